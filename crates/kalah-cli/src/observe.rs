//! What the library tells the command, drawn on stderr: notes as `note:`
//! lines, a bar for a database built in memory, a spinner with the nodes
//! of a search (bars and spinners only where stderr is a terminal).

use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use kalah::text::group;
use kalah_db::{BuildProgress, Progress};

/// The command's observer: notes unless `--json` asked for quiet; a bar
/// while a database is built in memory and a spinner while a search runs,
/// where stderr is a terminal, else a `progress:` line every minute of a
/// long search (a log).
#[derive(Debug, Default)]
pub struct Terminal {
    /// Print notes.
    pub notes: bool,
    /// What is drawn now.
    shown: std::sync::Mutex<Shown>,
}

/// The bar or spinner on stderr, and the minutes of a search logged.
#[derive(Debug, Default)]
struct Shown {
    bar: Option<ProgressBar>,
    logged_minutes: u64,
}

impl Terminal {
    /// Notes on stderr unless `json`.
    pub fn unless_json(json: bool) -> Terminal {
        Terminal { notes: !json, shown: Default::default() }
    }

    fn shown(&self) -> std::sync::MutexGuard<'_, Shown> {
        self.shown.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Whether stderr is a log rather than a terminal.
fn logging() -> bool {
    !std::io::IsTerminal::is_terminal(&std::io::stderr())
}

impl kalah::Observer for Terminal {
    fn note(&self, text: &str) {
        if self.notes {
            eprintln!("note: {text}");
        }
    }

    fn watches(&self) -> bool {
        true
    }

    fn building(&self, boards: u64, done: u64) {
        if logging() {
            return;
        }
        let mut shown = self.shown();
        if done >= boards {
            if let Some(bar) = shown.bar.take() {
                bar.finish_and_clear();
            }
            return;
        }
        let bar = shown.bar.get_or_insert_with(|| {
            let bar = ProgressBar::new(boards);
            bar.set_style(build_style("{elapsed_precise} {bar:20} {percent:>3}%  {rate}  {eta} left"));
            bar
        });
        bar.set_position(done);
    }

    fn searching(&self, what: &str, s: kalah::SearchStatus, elapsed: Duration, done: bool) {
        let mut shown = self.shown();
        if done {
            if let Some(bar) = shown.bar.take() {
                bar.finish_and_clear();
            }
            shown.logged_minutes = 0;
            return;
        }
        let secs = elapsed.as_secs_f64().max(1e-9);
        let mut line = format!("{what}: {} nodes, {:.1} M nodes/s", group(s.nodes), s.nodes as f64 / secs / 1e6);
        let bound = |v: Option<i32>| v.map_or("?".to_string(), |v| format!("{v:+}"));
        if s.lower.is_some() || s.upper.is_some() {
            line += &format!("; value {}..{}", bound(s.lower), bound(s.upper));
        }
        if let Some(t) = s.testing {
            line += &format!(", testing >= {t:+}");
        }
        if !s.line_under_way().is_empty() {
            let moves: Vec<String> = s.line_under_way().iter().map(u8::to_string).collect();
            line += &format!(", line {}", moves.join(" "));
        }
        if logging() {
            let minutes = elapsed.as_secs() / 60;
            if minutes > shown.logged_minutes {
                shown.logged_minutes = minutes;
                let t = elapsed.as_secs();
                eprintln!("progress: {}:{:02}:{:02} {line}", t / 3600, t / 60 % 60, t % 60);
            }
            return;
        }
        let spinner = shown.bar.get_or_insert_with(|| {
            let spinner = ProgressBar::new_spinner();
            spinner.set_style(ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("valid template"));
            spinner
        });
        spinner.set_message(line);
        spinner.tick();
    }
}

/// A build's bar: `template` with `{rate}` in millions of boards a second.
fn build_style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).expect("valid template").with_key(
        "rate",
        |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.1} M boards/s", state.per_sec() / 1e6);
        },
    )
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
