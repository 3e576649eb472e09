//! What the library tells the command, drawn on stderr: notes as `note:`
//! lines, a bar for a database built in memory, a spinner with the nodes
//! of a search (bars and spinners only where stderr is a terminal).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use kalah_db::{BuildProgress, Progress};
use kalah::text::group;

/// The command's observer: notes unless `--json` asked for quiet.
#[derive(Clone, Copy, Debug)]
pub struct Terminal {
    /// Print notes.
    pub notes: bool,
}

impl Terminal {
    /// Notes on stderr unless `json`.
    pub fn unless_json(json: bool) -> Terminal {
        Terminal { notes: !json }
    }
}

impl kalah::Observer for Terminal {
    fn note(&self, text: &str) {
        if self.notes {
            eprintln!("note: {text}");
        }
    }

    fn build(&self, boards: u64, job: &mut dyn FnMut(&dyn kalah_db::Progress)) {
        let bar = ProgressBar::new(boards);
        bar.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} boards {msg}").expect("valid template"));
        struct Bar<'a>(&'a ProgressBar);
        impl kalah_db::Progress for Bar<'_> {
            fn advance(&self, _: u32, done: u64) {
                self.0.inc(done);
            }
        }
        job(&Bar(&bar));
        bar.finish_and_clear();
    }

    fn search(&self, what: &str, status: &(dyn Fn() -> kalah::SearchStatus + Sync), job: &mut dyn FnMut()) {
        let message = |secs: f64| {
            let s = status();
            let mut line = format!("{what}: {} nodes, {:.1} M nodes/s", group(s.nodes), s.nodes as f64 / secs / 1e6);
            let bound = |v: Option<i32>| v.map_or("?".to_string(), |v| format!("{v:+}"));
            if s.lower.is_some() || s.upper.is_some() {
                line += &format!("; value {}..{}", bound(s.lower), bound(s.upper));
            }
            if let Some(t) = s.testing {
                line += &format!(", testing >= {t:+}");
            }
            if let Some(m) = s.root_move {
                line += &format!(", house {m}");
            }
            line
        };
        spinning(&message, job)
    }
}

/// Runs `job` with a spinner on stderr showing the elapsed time and
/// `message` of the seconds so far, ten times a second (cleared when it
/// ends, a panic included). Where stderr is no terminal (a log), a search
/// that runs for minutes gets a `progress:` line every minute instead.
fn spinning<R>(message: &(dyn Fn(f64) -> String + Sync), job: impl FnOnce() -> R) -> R {
    let done = AtomicBool::new(false);
    let spinner = ProgressBar::new_spinner();
    spinner.set_style(ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("valid template"));
    let started = Instant::now();
    let log = !std::io::IsTerminal::is_terminal(&std::io::stderr());
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut logged = 0;
            while !done.load(Relaxed) {
                let secs = started.elapsed().as_secs_f64().max(1e-9);
                if log {
                    if secs as u64 / 60 > logged {
                        logged = secs as u64 / 60;
                        let t = secs as u64;
                        eprintln!("progress: {}:{:02}:{:02} {}", t / 3600, t / 60 % 60, t % 60, message(secs));
                    }
                } else {
                    spinner.set_message(message(secs));
                    spinner.tick();
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            spinner.finish_and_clear();
        });
        struct Done<'a>(&'a AtomicBool);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(true, Relaxed);
            }
        }
        let _done = Done(&done);
        job()
    })
}

/// One progress bar per level.
pub(crate) struct Bars {
    multi: MultiProgress,
    current: Mutex<Option<ProgressBar>>,
}

impl Bars {
    pub(crate) fn new() -> Bars {
        Bars {
            multi: MultiProgress::new(),
            current: Mutex::new(None),
        }
    }
}

impl Progress for Bars {
    fn advance(&self, _: u32, done: u64) {
        if let Some(bar) = self.current.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            bar.inc(done);
        }
    }
}

impl BuildProgress for Bars {
    fn resumed(&self, levels: u32) {
        let _ = self.multi.println(format!("resuming: levels 0 to {} are already built and check out", levels - 1));
    }

    fn level_started(&self, n: u32, boards: u64) {
        let bar = self.multi.add(ProgressBar::new(boards));
        bar.set_style(
            ProgressStyle::with_template("level {prefix:>3} {bar:30} {human_pos}/{human_len} boards  {per_sec}  eta {eta}")
                .expect("valid template"),
        );
        bar.set_prefix(n.to_string());
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar);
    }

    fn level_finished(&self, n: u32, seconds: f64) {
        if let Some(bar) = self.current.lock().unwrap_or_else(|e| e.into_inner()).take() {
            bar.finish_with_message(format!("{seconds:.1} s"));
            let _ = n;
        }
    }
}
