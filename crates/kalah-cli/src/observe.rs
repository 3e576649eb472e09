//! What the library tells the command, drawn on stderr: notes as `note:`
//! lines, a bar for a database built in memory, a spinner with the nodes
//! of a search (bars and spinners only where stderr is a terminal).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
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
        bar.set_style(build_style("{elapsed_precise} {bar:20} {percent:>3}%  {rate}  {eta} left"));
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
        let ticker = scope.spawn(|| {
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
                // Woken at once when the job ends: a quick search is not
                // held up to a tenth of a second.
                std::thread::park_timeout(Duration::from_millis(100));
            }
            spinner.finish_and_clear();
        });
        struct Done<'a>(&'a AtomicBool, std::thread::Thread);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(true, Relaxed);
                self.1.unpark();
            }
        }
        let _done = Done(&done, ticker.thread().clone());
        job()
    })
}

/// A build's bar: `template` with `{rate}` in millions of boards a second.
fn build_style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).expect("valid template").with_key("rate", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = write!(w, "{:.1} M boards/s", state.per_sec() / 1e6);
    })
}

/// The progress of a database build on stderr: one bar for the whole build
/// (elapsed time, the share of all boards done, the level being solved, the
/// rate and an estimate of the time left) and a line as each level ends.
/// Where stderr is no terminal (a log) only the lines are written.
pub(crate) struct Bars {
    multi: MultiProgress,
    bar: ProgressBar,
    houses: usize,
    max_seeds: u32,
    log: bool,
}

impl Bars {
    /// For a build of every board of `houses` a side with up to `max_seeds`.
    pub(crate) fn new(houses: usize, max_seeds: u32) -> Bars {
        let multi = MultiProgress::new();
        let bar = multi.add(ProgressBar::new(kalah_core::boards_up_to(houses, max_seeds)));
        bar.set_style(build_style("{elapsed_precise} {bar:20} {percent:>3}%  level {prefix}  {rate}  {eta} left"));
        let log = !std::io::IsTerminal::is_terminal(&std::io::stderr());
        Bars { multi, bar, houses, max_seeds, log }
    }

    fn say(&self, line: String) {
        if self.log {
            eprintln!("{line}");
        } else {
            let _ = self.multi.println(line);
        }
    }
}

impl Progress for Bars {
    fn advance(&self, _: u32, done: u64) {
        self.bar.inc(done);
    }
}

impl BuildProgress for Bars {
    fn resumed(&self, levels: u32) {
        self.say(format!("resuming: levels 0 to {} are already built and check out", levels - 1));
    }

    fn level_started(&self, n: u32, _boards: u64) {
        // The levels below are done (built now, or earlier when resumed).
        let before = n.checked_sub(1).map_or(0, |m| kalah_core::boards_up_to(self.houses, m));
        if self.bar.position() != before {
            self.bar.set_position(before);
            self.bar.reset_eta();
        }
        self.bar.set_prefix(format!("{n}/{}", self.max_seeds));
    }

    fn level_finished(&self, n: u32, seconds: f64) {
        self.say(format!("level {n:>2}: {:>15} boards in {seconds:.1} s", group(kalah_core::boards_with(self.houses, n))));
    }
}

impl Drop for Bars {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
