//! What every command shares: rule flags, positions, databases, errors.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use kalah_core::{Capture, End, Leftovers, Position, Relay, Rules, Sowing};
use kalah_db::DbError;

/// A user error with this message: bad input (exit code 2).
pub fn user(message: impl Into<String>) -> anyhow::Error {
    kalah::Error::bad_input(message).into()
}

/// A database error, classified by the library (`kalah::ErrorKind`).
pub fn db_error(e: DbError) -> anyhow::Error {
    kalah::Error::from(e).into()
}

/// What the command line adds to a library error about a part of the
/// request: the flag that sets it, as " (see --tt-mb)" (the library's
/// messages name no flag).
pub fn flag_hint(e: &anyhow::Error) -> String {
    use kalah::Field;
    let Some(field) = e.chain().find_map(|c| c.downcast_ref::<kalah::Error>()).and_then(kalah::Error::field) else {
        return String::new();
    };
    let flag = match field {
        Field::Threads => "--threads",
        Field::TtMb => "--tt-mb",
        Field::TimeLimit => "--time-limit",
        Field::DbSeeds => "--db-seeds",
        Field::DbFile => "--db",
        Field::Journal => "--journal",
        Field::Tests => "--test or --guess",
        _ => return String::new(),
    };
    format!(" (see {flag})")
}

/// The exit code of a failure: 2 for the user's (bad input, a refused
/// request, a damaged file), 1 for the machine's or the program's.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    match e.chain().find_map(|c| c.downcast_ref::<kalah::Error>()) {
        Some(k) if k.is_users() => 2,
        _ => 1,
    }
}

/// The rule options of `RULES.md`, as flags.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct RuleArgs {
    /// Capture rule: `standard` (an opposite seed is needed) or `empty` (the
    /// rule of Irving et al. and Rawlings: capture even when the opposite
    /// house is empty).
    #[arg(long, value_name = "RULE", default_value = "standard")]
    pub capture: Capture,
    /// When the game ends: `instant` (as soon as a side is empty) or `turn`
    /// (when the player to move has no seed).
    #[arg(long, value_name = "RULE", default_value = "instant")]
    pub end: End,
    /// Who scores the seeds left at the end: `owner`, `unscored` or
    /// `emptier` (the player whose houses are empty).
    #[arg(long, value_name = "RULE", default_value = "owner")]
    pub leftovers: Leftovers,
    /// Sowing direction: `ccw` or `cw` (clockwise: play can be endless and
    /// is solved by retrograde analysis).
    #[arg(long, value_name = "DIR", default_value = "ccw")]
    pub sowing: Sowing,
    /// Relay sowing ("Seed On"): no captures; a last seed in a non-empty
    /// house picks it up and sows on. `--relay` alone means `on`.
    #[arg(long, value_name = "on|off", num_args = 0..=1, default_missing_value = "on", default_value = "off", value_parser = relay_value)]
    pub relay: Relay,
}

/// A `--relay` value. The value is optional, so `--relay 3 3` reads `3` as
/// the relay's value; the error says how to write it.
fn relay_value(text: &str) -> Result<Relay, String> {
    text.parse::<Relay>().map_err(|e| {
        if text.parse::<u64>().is_ok() {
            format!("{e}; `--relay` alone means on, so give the houses and seeds before it (`kalah solve 3 3 --relay`) or write `--relay on`")
        } else {
            e.to_string()
        }
    })
}

impl RuleArgs {
    /// The rules these flags select.
    pub fn rules(&self) -> Rules {
        Rules { capture: self.capture, end: self.end, leftovers: self.leftovers, sowing: self.sowing, relay: self.relay }
    }
}

/// Reads a position given on the command line.
pub fn parse_position(text: &str) -> anyhow::Result<Position> {
    text.parse::<Position>().map_err(|e| user(format!("--position: {e}")))
}

/// The position a command works on, from `H S` or `--position` (Kalah(6,4)
/// when neither is given), and a title for it. `command` names the command
/// in the error for a lone `H`.
pub fn start_or_position(houses: Option<usize>, seeds: Option<u32>, position: Option<&str>, command: &str) -> anyhow::Result<(Position, String)> {
    if let Some(text) = position {
        let p = parse_position(text)?;
        return Ok((p, format!("Position with {} houses a side", p.houses())));
    }
    let (h, s) = match (houses, seeds) {
        (Some(h), Some(s)) => (h, s),
        (None, None) => (6, 4),
        _ => return Err(user(format!("give both H and S (e.g. `kalah {command} 6 4`), or neither for Kalah(6,4)"))),
    };
    Ok((start_position(h, s)?, format!("Kalah({h},{s})")))
}

/// The start of Kalah(h, s), or a clear refusal.
pub fn start_position(h: usize, s: u32) -> anyhow::Result<Position> {
    Position::start(h, s).map_err(|e| user(e.to_string()))
}

/// The board size of a start, as `H S` or as `--houses H --seeds S` (the
/// way `table` takes it), not both (`kalah solve`, `play`, `strong`).
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct BoardSize {
    /// Houses a side, 1 to 8.
    #[arg(value_name = "H")]
    houses: Option<usize>,
    /// Seeds in each house at the start.
    #[arg(value_name = "S")]
    seeds: Option<u32>,
    /// Houses a side, as H says it (the way `table` takes it).
    #[arg(long = "houses", value_name = "H", conflicts_with = "houses")]
    houses_flag: Option<usize>,
    /// Seeds in each house at the start, as S says it.
    #[arg(long = "seeds", value_name = "S", conflicts_with = "seeds")]
    seeds_flag: Option<u32>,
}

impl BoardSize {
    /// Houses a side, as given either way.
    pub fn houses(&self) -> Option<usize> {
        self.houses.or(self.houses_flag)
    }

    /// Seeds a house, as given either way.
    pub fn seeds(&self) -> Option<u32> {
        self.seeds.or(self.seeds_flag)
    }

    /// Houses and seeds for a command that has no default size, or a
    /// refusal naming both ways to give them.
    pub fn required(&self, command: &str) -> anyhow::Result<(usize, u32)> {
        match (self.houses(), self.seeds()) {
            (Some(h), Some(s)) => Ok((h, s)),
            _ => Err(user(format!("give the board size: `kalah {command} H S` (e.g. `kalah {command} 3 3`) or --houses H --seeds S"))),
        }
    }
}

/// Where databases live when no path is given: `$KALAH_DB_DIR`, else the
/// repository's `data/db` inside a checkout, else the user's data directory
/// (`kalah::Databases::find_default_dir`).
pub fn database_dir() -> PathBuf {
    kalah::Databases::default_dir()
}

/// The default database directory.
pub fn databases() -> kalah::Databases {
    kalah::Databases::new(database_dir())
}

/// The default file name of a database.
pub fn default_database_path(h: usize, max_seeds: u32, rules: Rules) -> PathBuf {
    databases().path_for(h, max_seeds, rules)
}

/// How a command picks its database.
#[derive(Args, Clone, Debug, Default)]
pub struct DbArgs {
    /// Endgame database to use. Without it one for the board and rules in
    /// the database directory (`$KALAH_DB_DIR`; default: data/db inside this repository, else ~/.local/share/kalah/db; `kalah db list` says which) is used,
    /// if there is one: the largest, unless it does not cover the position
    /// and a smaller one lies at most 24 seeds below it (18 for every
    /// move's value, a principal variation or the openings); then the
    /// smallest such, which loads faster than a larger one would save
    /// (`play`: the largest of at most 2 GiB). Under --time-limit, a file
    /// that does not cover the position and would take more than a quarter
    /// of the limit to load is passed over.
    #[arg(long, value_name = "FILE", conflicts_with = "no_db")]
    pub db: Option<PathBuf>,
    /// Use no endgame database, not even a default one. (`solve` and
    /// `query` still read the search memory, which is no database: add
    /// --no-memory for a search from nothing.)
    #[arg(long)]
    pub no_db: bool,
    /// Build an endgame database of up to N seeds in memory first, unless a
    /// database file covers N seeds (0: never). Default: when no file is
    /// used, one sized by the position and the work asked (Kalah(6,4): 18
    /// seeds, about 2 s, for the value alone; 20 seeds, about 5 s, for
    /// every move's value, a line, the openings or a game; none below 46
    /// seeds, where it would not pay), which `solve` and `query` keep as a
    /// file of the database folder for later runs (see --no-memory).
    /// Clockwise sowing
    /// solves every board up to the position's seeds by retrograde
    /// analysis when that fits in memory; with N below them (or when it
    /// does not fit), up to N seeds, and bounds on the values above are
    /// proven by searches over it.
    #[arg(long, value_name = "N", conflicts_with = "no_db")]
    pub db_seeds: Option<u32>,
    /// How a database file backs a search: `auto` copies it into
    /// huge-page memory where the copy takes less than half the memory
    /// available, else reads it through its mapping; `copied` copies it
    /// whenever it fits beside the transposition table (refused up front,
    /// with the sizes, where it does not): a long proof over a large file
    /// (the Kalah(6,6) proof's 13.6 GiB file searched 1.09-1.24 times the
    /// nodes a second copied, one thread); `mapped` never copies it.
    #[arg(long, value_name = "HOW", default_value = "auto", value_parser = ["auto", "copied", "mapped"], conflicts_with = "no_db")]
    pub db_load: String,
}

impl DbArgs {
    /// The library's form of these flags.
    pub fn spec(&self) -> kalah::DbSpec {
        let file = match (&self.db, self.no_db) {
            (_, true) => kalah::DbFile::None,
            (Some(path), false) => kalah::DbFile::Named(path.clone()),
            (None, false) => kalah::DbFile::Default,
        };
        // (Clap has checked the name.)
        let hold = kalah::DbHold::parse(&self.db_load).unwrap_or_default();
        kalah::DbSpec { file, build_seeds: self.db_seeds, hold }
    }
}

/// Rules as a JSON object.
pub fn rules_json(rules: Rules) -> serde_json::Value {
    serde_json::to_value(kalah::report::RulesView::from(rules)).expect("rules serialise")
}

/// Whether a command has printed its JSON object: an error after it (the
/// failures `db verify --manifest --json` lists) adds no second object.
static JSON_PRINTED: AtomicBool = AtomicBool::new(false);

/// Prints one JSON object on stdout.
pub fn print_json(value: &impl serde::Serialize) {
    // The library's reports and `serde_json::Value`s: string keys only, so
    // serialising cannot fail.
    println!("{}", serde_json::to_string(value).expect("a report serialises"));
    JSON_PRINTED.store(true, Ordering::Relaxed);
}

/// Whether [`print_json`] has printed the command's object.
pub fn json_printed() -> bool {
    JSON_PRINTED.load(Ordering::Relaxed)
}

/// The `--threads` value: at least 1, at most
/// [`kalah::MAX_THREADS`]; every core by default.
pub fn threads(given: Option<usize>) -> anyhow::Result<usize> {
    let max = kalah::MAX_THREADS;
    match given {
        Some(0) => Err(user("--threads must be at least 1")),
        Some(n) if n > max => Err(user(format!("--threads {n} is more than this program supports ({max})"))),
        Some(n) => Ok(n),
        None => Ok(kalah_search::cores()),
    }
}

/// Refuses, before any work, an output file that cannot be written: a
/// directory, a device, a pipe or a socket, a name too long for its
/// `.partial` file, or a path under something that is not a directory.
pub fn check_output(path: &std::path::Path) -> anyhow::Result<()> {
    if let Ok(m) = std::fs::metadata(path) {
        if m.is_dir() {
            return Err(user(format!("{}: is a directory; give a file name", path.display())));
        }
        // The finished file is renamed over the name: a device or a pipe
        // there (`-o /dev/null`) would be replaced by a regular file.
        if !m.is_file() {
            return Err(user(format!("{}: not a regular file (a device, a pipe or a socket); give a file name", path.display())));
        }
    }
    // 255 bytes is the longest name most file systems take.
    if let Some(name) = path.file_name().filter(|n| n.len() + ".partial".len() > 255) {
        return Err(user(format!(
            "{}: a file name of {} bytes is too long (at most 247: the partial file's name adds 8)",
            path.display(),
            name.len()
        )));
    }
    let mut ancestor = path.parent();
    while let Some(dir) = ancestor.filter(|d| !d.as_os_str().is_empty()) {
        if dir.exists() {
            if !dir.is_dir() {
                return Err(user(format!("{}: {} is not a directory", path.display(), dir.display())));
            }
            break;
        }
        ancestor = dir.parent();
    }
    Ok(())
}

/// A `--time-limit` in seconds, checked: more than 0 and below
/// [`kalah::MAX_TIME_LIMIT`].
pub fn seconds(t: f64) -> anyhow::Result<std::time::Duration> {
    let max = kalah::MAX_TIME_LIMIT;
    if t > 0.0 && t < max {
        Ok(std::time::Duration::from_secs_f64(t))
    } else {
        Err(user(format!("--time-limit {t}: give a number of seconds above 0 and below {max:e}")))
    }
}

/// Search resources.
#[derive(Args, Clone, Copy, Debug)]
pub struct SearchArgs {
    /// Search threads (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Transposition table size in MiB (default: from 16 MiB for small
    /// positions up to 1024 MiB for 37 seeds or more, or for 39 seeds or
    /// more above the endgame database used; under a time limit at most
    /// 64 MiB for each second of it, since memory first touched is cleared
    /// on the search's time). Rounded down to a power of two; a table too
    /// small for the keys of the position's boards grows to what they need
    /// (at most 128 MiB on 5 and 6 houses, 2 GiB on 8).
    #[arg(long, value_name = "MB")]
    pub tt_mb: Option<usize>,
}

impl SearchArgs {
    pub(crate) fn threads(&self) -> anyhow::Result<usize> {
        threads(self.threads)
    }

    /// The table size asked for with `--tt-mb`, checked; `None` for the default.
    pub(crate) fn tt_mb_asked(&self) -> anyhow::Result<Option<usize>> {
        match self.tt_mb {
            Some(0) => Err(user("--tt-mb must be at least 1")),
            Some(mb) if mb > kalah::MAX_TT_MB => Err(user(format!("--tt-mb {mb} is absurd"))),
            other => Ok(other),
        }
    }
}

/// The flags of a door that answers many requests (`engine`, `serve`).
#[derive(Args, Clone, Debug)]
pub struct DoorArgs {
    /// The database directory (default: $KALAH_DB_DIR; else data/db inside this repository, else ~/.local/share/kalah/db; `kalah db list` says which).
    #[arg(long, value_name = "DIR")]
    pub db_dir: Option<PathBuf>,
    /// The longest a search may take, in seconds; also the time limit of a
    /// request that gives none. A value not proven in time comes back as
    /// bounds.
    #[arg(long, value_name = "S", default_value_t = 10.0, allow_negative_numbers = true)]
    pub time_limit: f64,
    /// Answer without the opening book this program carries (a request
    /// may also say `"book": false`).
    #[arg(long)]
    pub no_book: bool,
}

impl DoorArgs {
    /// An analyzer over the database directory that keeps what it builds
    /// or loads (the door adds the opening book unless --no-book), and the
    /// time limit checked.
    pub fn analyzer(&self) -> anyhow::Result<(kalah::Analyzer, std::time::Duration)> {
        let databases = self.db_dir.clone().map_or_else(databases, kalah::Databases::new);
        Ok((kalah::Analyzer::keeping(databases), seconds(self.time_limit)?))
    }
}

/// Resolves at SIGINT or SIGTERM.
pub async fn signalled() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(term) => term,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}

/// A flag raised at the first SIGINT or SIGTERM, for a long search to
/// stop on and write what it has (its journal); a second signal ends the
/// process at once (exit code 1). Listening from the moment it returns.
pub fn stop_on_signal() -> anyhow::Result<std::sync::Arc<AtomicBool>> {
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let (mut interrupt, mut term) =
            runtime.block_on(async { Ok::<_, std::io::Error>((signal(SignalKind::interrupt())?, signal(SignalKind::terminate())?)) })?;
        let raised = stop.clone();
        std::thread::Builder::new().name("kalah-signals".into()).spawn(move || {
            runtime.block_on(async {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = term.recv() => {}
                }
                raised.store(true, Ordering::Relaxed);
                eprintln!("kalah: stopping: the journal is written first (a second signal stops at once, losing what it has not written)");
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = term.recv() => {}
                }
                std::process::exit(1);
            })
        })?;
    }
    Ok(stop)
}
