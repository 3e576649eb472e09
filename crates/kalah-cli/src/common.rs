//! What every command shares: rule flags, positions, databases, errors.

use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use kalah_core::{Capture, End, Leftovers, Position, Relay, Rules, Side, Sowing};
use kalah_db::{human_bytes, Database, DbError};

/// A failure the user can fix: bad input or a refused request (exit code 2).
#[derive(Debug)]
pub struct UserError(pub String);

impl fmt::Display for UserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UserError {}

/// A user error with this message.
pub fn user(message: impl Into<String>) -> anyhow::Error {
    UserError(message.into()).into()
}

/// Classifies a database error: the user's file or request (exit 2), or
/// the machine failing us (exit 1).
pub fn db_error(e: DbError) -> anyhow::Error {
    match &e {
        DbError::Io { source, .. } => match source.kind() {
            std::io::ErrorKind::NotFound
            | std::io::ErrorKind::PermissionDenied
            | std::io::ErrorKind::IsADirectory
            | std::io::ErrorKind::NotADirectory
            | std::io::ErrorKind::InvalidInput
            | std::io::ErrorKind::InvalidData => user(e.to_string()),
            // ELOOP (a symbolic link loop), EROFS (a read-only file system)
            // and ENAMETOOLONG (a name too long) on Linux.
            _ if matches!(source.raw_os_error(), Some(40) | Some(30) | Some(36)) => user(e.to_string()),
            _ => anyhow::Error::new(e),
        },
        DbError::Memory { .. } => anyhow::Error::new(e),
        _ => user(e.to_string()),
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
        Rules {
            capture: self.capture,
            end: self.end,
            leftovers: self.leftovers,
            sowing: self.sowing,
            relay: self.relay,
        }
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

/// Where databases live when no path is given: `$KALAH_DB_DIR`, else (unset
/// or empty) `data/db`.
pub fn database_dir() -> PathBuf {
    std::env::var_os("KALAH_DB_DIR").filter(|d| !d.is_empty()).map_or_else(|| PathBuf::from("data/db"), PathBuf::from)
}

/// The default file name of a database.
pub fn default_database_path(h: usize, max_seeds: u32, rules: Rules) -> PathBuf {
    database_dir().join(format!("kalah-h{h}-n{max_seeds}-{}.kdb", rules.tag()))
}

/// The houses, seeds and rules whose default file name
/// ([`default_database_path`]) `name` is, if it is one.
pub fn default_name_parts(name: &str) -> Option<(usize, u32, Rules)> {
    let rest = name.strip_prefix("kalah-h")?.strip_suffix(".kdb")?;
    let (houses, rest) = rest.split_once("-n")?;
    let (seeds, tag) = rest.split_once('-')?;
    let (houses, seeds) = (houses.parse().ok()?, seeds.parse().ok()?);
    Rules::all().find(|r| r.tag() == tag).map(|r| (houses, seeds, r))
}

/// The largest complete default database for `h` houses and `rules`, if any.
pub fn find_default_database(h: usize, rules: Rules) -> Option<PathBuf> {
    find_default_database_up_to(h, rules, u64::MAX)
}

/// The largest complete default database for `h` houses and `rules` of at
/// most `max_bytes`, or if none is that small, the smallest one.
pub fn find_default_database_up_to(h: usize, rules: Rules, max_bytes: u64) -> Option<PathBuf> {
    find_database_in(&database_dir(), h, rules, max_bytes)
}

/// Seeds a search for a value (or a best move) may lie above the database
/// backing it for a smaller default database to serve it better than a
/// larger one ([`DbArgs::open_for`]): the larger costs more to load whole
/// than it saves. Measured on the Intel machine (BENCHMARKS.md, "Which
/// default database"), `kalah solve 6 S --capture empty --best-move`,
/// whole command: Kalah(6,3) 0.54 s over the 20-seed database (16 seeds
/// above it), 2.06 s over the 24-seed one, 13.47 s over the 30-seed one
/// (10.3 GiB to load); Kalah(6,4) 2.15 s over the 20- or 24-seed one,
/// 15.87 s over the 30-seed one.
pub const VALUE_LOAD_GAP: u32 = 24;

/// Under `--time-limit`, the share of the limit that loading or building
/// the default database may take (reckoned from its size, before it is
/// chosen): a search asked to take 5 s does not wait a minute for its
/// database first. A database named by `--db` or sized by `--db-seeds` is
/// used as asked, and a file that covers the position is probed, not
/// loaded, whatever its size.
const SETUP_SHARE: f64 = 0.25;

/// Bytes a second a database file loads at, reckoned low: on the Intel
/// machine the 24-seed file (1.25 GB) loaded in 1.57 s from disk and
/// 0.76 s from the page cache, and the 30-seed one (11 GB) took 15-42 s
/// where memory was short for it and its page cache together.
const LOAD_BYTES_PER_SECOND: f64 = 0.5e9;

/// Boards a second and thread a database builds at in memory, reckoned
/// low: the 20-seed one (226 M boards) took 9.9 s to file on two threads
/// of the Intel machine, about 11 M boards a second and thread.
const BUILD_BOARDS_PER_SECOND: f64 = 10e6;

/// Boards a second and thread clockwise retrograde analysis builds at,
/// reckoned low: the 20-seed database of six houses (226 M boards) took
/// 68 s on two threads of the Intel machine, 1.7 M boards a second and
/// thread (with relay it is slower: 26 s against 48 s on the first
/// machine).
const RETROGRADE_BOARDS_PER_SECOND: f64 = 0.8e6;

/// What setting up the default database may cost before a search: the
/// bytes of a file to load and the boards of a database to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetupBudget {
    /// The largest default file loaded whole into memory.
    pub load_bytes: u64,
    /// The most boards a default database built in memory may have.
    pub build_boards: u64,
    /// The same, built by clockwise retrograde analysis (for the proofs of
    /// bounds of positions too large for it).
    pub retrograde_boards: u64,
}

impl SetupBudget {
    /// No limit: the defaults as chosen without `--time-limit`.
    pub const UNLIMITED: SetupBudget = SetupBudget { load_bytes: u64::MAX, build_boards: u64::MAX, retrograde_boards: u64::MAX };

    /// [`SETUP_SHARE`] of `limit`, for a search on `threads` threads; no
    /// limit without one.
    pub fn within(limit: Option<std::time::Duration>, threads: usize) -> SetupBudget {
        let Some(limit) = limit else {
            return SetupBudget::UNLIMITED;
        };
        let seconds = limit.as_secs_f64() * SETUP_SHARE;
        SetupBudget {
            load_bytes: (seconds * LOAD_BYTES_PER_SECOND) as u64,
            build_boards: (seconds * BUILD_BOARDS_PER_SECOND * threads as f64) as u64,
            retrograde_boards: (seconds * RETROGRADE_BOARDS_PER_SECOND * threads as f64) as u64,
        }
    }
}

/// The longest `--time-limit`, in seconds (about 31 years): a deadline
/// beyond it could overflow the clock.
const MAX_TIME_LIMIT: f64 = 1e9;

/// A `--time-limit` in seconds, checked: more than 0 and below
/// [`MAX_TIME_LIMIT`].
pub fn seconds(t: f64) -> anyhow::Result<std::time::Duration> {
    if t > 0.0 && t < MAX_TIME_LIMIT {
        Ok(std::time::Duration::from_secs_f64(t))
    } else {
        Err(user(format!("--time-limit {t}: give a number of seconds above 0 and below {MAX_TIME_LIMIT:e}")))
    }
}

/// [`VALUE_LOAD_GAP`] for the searches of every move's value and a
/// principal variation, or of many openings, which search several times
/// as many nodes, so that a larger database pays sooner: `kalah solve`
/// (Kalah(6,4), standard capture) took 8.65 and 9.53 s over the 30-seed
/// database against 13.16 and 15.19 s over the 24-seed one (18 and 24
/// seeds below it), while Kalah(6,3) took 0.80 s over the 24-seed one (12
/// below) against 6.57 s over the 30-seed one.
pub const ANALYSIS_LOAD_GAP: u32 = 18;

/// The default database for a position of `seeds` seeds on `h` houses
/// under `rules` ([`DbArgs::open_for`]), and the file passed over for it.
#[derive(Debug, Default)]
pub struct DefaultChoice {
    /// The file chosen, if any.
    pub path: Option<PathBuf>,
    /// The file chosen without the budget, and its bytes, when the budget
    /// passed it over.
    pub passed_over: Option<(PathBuf, u64)>,
}

/// The default database for a position of `seeds` seeds ([`choose_for_seeds`]),
/// passing over files that would have to be loaded (do not cover the
/// position) and that `budget` does not let load. Clockwise, a file is
/// taken whatever its size: retrograde analysis needs none, and a proof of
/// bounds holds the database it builds to the budget itself.
pub fn default_database_for(h: usize, rules: Rules, seeds: u32, gap: u32, budget: SetupBudget) -> DefaultChoice {
    let Some(found) = default_databases(&database_dir(), h, rules) else {
        return DefaultChoice::default();
    };
    let max_load = if rules.may_cycle() { u64::MAX } else { budget.load_bytes };
    let chosen = choose_for_seeds(&found, seeds, gap, max_load);
    let unlimited = choose_for_seeds(&found, seeds, gap, u64::MAX);
    DefaultChoice {
        path: chosen.map(|(_, _, p)| p.clone()),
        passed_over: unlimited.filter(|u| chosen.is_none_or(|c| c.2 != u.2)).map(|(_, bytes, p)| (p.clone(), *bytes)),
    }
}

/// Among `found` (ascending seeds), the database for a position of `seeds`
/// seeds: the largest if it covers the position (it is probed, not loaded)
/// or if none has at least `seeds - gap` seeds, else the smallest that has;
/// files of more than `max_load` bytes only if they cover it.
fn choose_for_seeds(found: &[(u32, u64, PathBuf)], seeds: u32, gap: u32, max_load: u64) -> Option<&(u32, u64, PathBuf)> {
    let loadable = |f: &&(u32, u64, PathBuf)| f.0 >= seeds || f.1 <= max_load;
    let largest = found.iter().rev().find(loadable)?;
    if largest.0 >= seeds {
        return Some(largest);
    }
    Some(found.iter().filter(loadable).find(|(n, _, _)| n + gap >= seeds).unwrap_or(largest))
}

/// The complete default databases for `h` houses and `rules` in `dir`, as
/// (seeds, bytes, path) in ascending order; `None` if `dir` cannot be read.
fn default_databases(dir: &std::path::Path, h: usize, rules: Rules) -> Option<Vec<(u32, u64, PathBuf)>> {
    let mut found: Vec<(u32, u64, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let Some((_, n, _)) = default_name_parts(&entry.file_name().to_string_lossy()).filter(|&(houses, _, r)| (houses, r) == (h, rules)) else {
            continue;
        };
        let bytes = entry.metadata().map_or(u64::MAX, |m| m.len());
        found.push((n, bytes, entry.path()));
    }
    found.sort();
    Some(found)
}

/// [`find_default_database_up_to`] in the directory `dir`.
fn find_database_in(dir: &std::path::Path, h: usize, rules: Rules, max_bytes: u64) -> Option<PathBuf> {
    let found = default_databases(dir, h, rules)?;
    let small = found.iter().rev().find(|(_, bytes, _)| *bytes <= max_bytes);
    small.or(found.first()).map(|(_, _, p)| p.clone())
}

/// How a command picks its database.
#[derive(Args, Clone, Debug, Default)]
pub struct DbArgs {
    /// Endgame database to use. Without it one for the board and rules in
    /// the database directory (`$KALAH_DB_DIR`, default `data/db`) is used,
    /// if there is one: the largest, unless it does not cover the position
    /// and a smaller one lies at most 24 seeds below it (18 for every
    /// move's value, a principal variation or the openings); then the
    /// smallest such, which loads faster than a larger one would save
    /// (`play`: the largest of at most 2 GiB). Under --time-limit, a file
    /// that does not cover the position and would take more than a quarter
    /// of the limit to load is passed over.
    #[arg(long, value_name = "FILE", conflicts_with = "no_db")]
    pub db: Option<PathBuf>,
    /// Use no endgame database, not even a default one.
    #[arg(long)]
    pub no_db: bool,
    /// Build an endgame database of up to N seeds in memory first, unless a
    /// database file covers N seeds (0: never). Default: when no file is
    /// used, one sized by the position (Kalah(6,4): 18 seeds, about 2 s;
    /// none below 46 seeds, where it would not pay). Clockwise sowing
    /// solves every board up to the position's seeds by retrograde
    /// analysis when that fits in memory; with N below them (or when it
    /// does not fit), up to N seeds, and bounds on the values above are
    /// proven by searches over it.
    #[arg(long, value_name = "N", conflicts_with = "no_db")]
    pub db_seeds: Option<u32>,
}

impl DbArgs {
    /// Opens the database these flags ask for, checked against the board
    /// and rules, choosing among the default databases the largest of at
    /// most `max_bytes` (a database given by `--db` is used whatever its size).
    pub fn open_up_to(&self, h: usize, rules: Rules, max_bytes: u64) -> anyhow::Result<Option<Database>> {
        self.open_path(h, rules, || find_default_database_up_to(h, rules, max_bytes))
    }

    /// Opens the database these flags ask for, for a position of `seeds`
    /// seeds, checked against the board and rules: among the default
    /// databases, the largest if it covers the position or if every one
    /// lies more than `gap` seeds below it ([`VALUE_LOAD_GAP`],
    /// [`ANALYSIS_LOAD_GAP`]), else the smallest within that many seeds. A
    /// search that close above a database is small, and a larger database
    /// would take longer to load into memory than the search it saves.
    /// Under a time limit, a default file larger than `budget` allows to
    /// load is passed over (said on stderr with `announce`).
    pub fn open_for(&self, h: usize, rules: Rules, seeds: u32, gap: u32, budget: SetupBudget, announce: bool) -> anyhow::Result<Option<Database>> {
        self.open_path(h, rules, || {
            let choice = default_database_for(h, rules, seeds, gap, budget);
            if let (true, Some((passed, bytes))) = (announce, &choice.passed_over) {
                eprintln!(
                    "note: {} ({}) is not loaded: it would take more than a quarter of --time-limit ({}; `--db FILE` uses it all the same)",
                    passed.display(),
                    human_bytes(*bytes),
                    match &choice.path {
                        Some(p) => format!("using {} instead", p.display()),
                        None => "no smaller default database".to_string(),
                    }
                );
            }
            choice.path
        })
    }

    /// The database of `--db`, else the default one `default` finds; none with `--no-db`.
    fn open_path(&self, h: usize, rules: Rules, default: impl FnOnce() -> Option<PathBuf>) -> anyhow::Result<Option<Database>> {
        if self.no_db {
            return Ok(None);
        }
        let path = match &self.db {
            Some(p) => p.clone(),
            None => match default() {
                Some(p) => p,
                None => return Ok(None),
            },
        };
        Database::open_for(&path, h, rules).map(Some).map_err(db_error)
    }
}

pub use kalah_core::article;

/// A size in its unit after its article: "an 8.0 GiB", "a 128.0 MiB".
pub fn a_size(bytes: u64) -> String {
    let size = human_bytes(bytes);
    format!("{} {size}", article_of(&size))
}

/// The article before a figure written out, as "8.0 GiB": by its whole part.
fn article_of(text: &str) -> &'static str {
    let whole: String = text.chars().take_while(char::is_ascii_digit).collect();
    whole.parse().map_or("a", article)
}

/// "South wins by 10", "North wins by 2", "a draw".
pub fn verdict(mover: Side, value: i32) -> String {
    match value {
        0 => "a draw".to_string(),
        v if v > 0 => format!("{} wins by {v}", mover.name()),
        v => format!("{} wins by {}", mover.other().name(), -v),
    }
}

/// A signed value: `+10`, `0`, `-4`.
pub fn signed(v: i32) -> String {
    if v > 0 {
        format!("+{v}")
    } else {
        v.to_string()
    }
}

/// Rules as a JSON object.
pub fn rules_json(rules: Rules) -> serde_json::Value {
    serde_json::json!({
        "capture": rules.capture.name(),
        "end": rules.end.name(),
        "leftovers": rules.leftovers.name(),
        "sowing": rules.sowing.name(),
        "relay": rules.relay.name(),
    })
}

/// Whether a command has printed its JSON object: an error after it (the
/// failures `db verify --manifest --json` lists) adds no second object.
static JSON_PRINTED: AtomicBool = AtomicBool::new(false);

/// Prints one JSON object on stdout.
pub fn print_json(value: &serde_json::Value) {
    println!("{value}");
    JSON_PRINTED.store(true, Ordering::Relaxed);
}

/// Whether [`print_json`] has printed the command's object.
pub fn json_printed() -> bool {
    JSON_PRINTED.load(Ordering::Relaxed)
}

/// A database about to back a search: copied into huge-page memory when it
/// fits comfortably, else used mapped. The copy spares the search the
/// mapping's page faults and, where the processor's TLB sees huge pages,
/// its TLB misses; on the virtual machines measured the two came out
/// about level (BENCHMARKS.md, "Loading a database"). The copy reads on
/// `threads` threads.
pub fn for_search(db: Database, threads: usize) -> anyhow::Result<Database> {
    for_search_up_to(db, u64::MAX, threads)
}

/// The largest database an interactive command (`play`) copies into
/// memory before its first answer (loading reads 3-4 GiB/s from the page
/// cache, but a file not cached is read from disk), and the
/// largest default database it picks: a larger one given by `--db` is used
/// mapped, so the game starts at once, but its probes read the disk.
pub const INTERACTIVE_LOAD_LIMIT: u64 = 2 << 30;

/// [`for_search`] for a database of at most `limit` bytes; a larger one is used mapped.
pub fn for_search_up_to(db: Database, limit: u64, threads: usize) -> anyhow::Result<Database> {
    let free = kalah_db::writer::available_memory().unwrap_or(0);
    if db.file_bytes() < free / 2 && db.file_bytes() <= limit {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
        pool.install(|| db.load_into_memory()).map_err(db_error)
    } else {
        Ok(db)
    }
}

/// The `--threads` value: at least 1, at most 1024; every core by default.
pub fn threads(given: Option<usize>) -> anyhow::Result<usize> {
    match given {
        Some(0) => Err(user("--threads must be at least 1")),
        Some(n) if n > 1024 => Err(user(format!("--threads {n} is more than this program supports (1024)"))),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
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
        return Err(user(format!("{}: a file name of {} bytes is too long (at most 247: the partial file's name adds 8)", path.display(), name.len())));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_before_figures_follow_their_whole_part() {
        assert_eq!(article_of("8.0 GiB"), "an");
        assert_eq!(article_of("18.5 MiB"), "an");
        assert_eq!(article_of("1.0 GiB"), "a");
        assert_eq!(article_of("95.4 TiB"), "a");
        assert_eq!(article_of("no figure"), "a");
    }

    /// The default database is the largest by seeds, or with a size limit
    /// the largest within it (else the smallest); other boards, other
    /// rules and unfinished files are never picked.
    #[test]
    fn default_databases_are_chosen_by_seeds_and_size() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Rules::default();
        let name = |h: usize, n: u32, r: Rules| format!("kalah-h{h}-n{n}-{}.kdb", r.tag());
        let other = Rules { capture: kalah_core::Capture::Empty, ..rules };
        for (file, bytes) in [
            (name(6, 20, rules), 200),
            (name(6, 24, rules), 1200),
            (name(6, 30, rules), 11000),
            (name(6, 32, other), 1),
            (name(5, 40, rules), 1),
            (format!("{}.partial", name(6, 34, rules)), 1),
        ] {
            std::fs::write(dir.path().join(file), vec![0u8; bytes]).unwrap();
        }
        let pick = |max| find_database_in(dir.path(), 6, rules, max).map(|p| p.file_name().unwrap().to_string_lossy().into_owned());
        assert_eq!(pick(u64::MAX), Some(name(6, 30, rules)));
        assert_eq!(pick(2000), Some(name(6, 24, rules)));
        assert_eq!(pick(1200), Some(name(6, 24, rules)));
        assert_eq!(pick(1199), Some(name(6, 20, rules)));
        assert_eq!(pick(10), Some(name(6, 20, rules)), "none is small enough: the smallest");
        assert_eq!(find_database_in(dir.path(), 4, rules, u64::MAX), None);

        // By the position's seeds: the largest where it covers the position
        // or where none lies within the gap below it, else the smallest within.
        let found = default_databases(dir.path(), 6, rules).unwrap();
        let seeds: Vec<u32> = found.iter().map(|(n, _, _)| *n).collect();
        assert_eq!(seeds, [20, 24, 30]);
        let for_seeds = |s, gap| choose_for_seeds(&found, s, gap, u64::MAX).map(|(_, _, p)| p.file_name().unwrap().to_string_lossy().into_owned());
        let value = |s| for_seeds(s, VALUE_LOAD_GAP);
        assert_eq!(value(12), Some(name(6, 30, rules)), "covered: probed, not loaded");
        assert_eq!(value(30), Some(name(6, 30, rules)));
        assert_eq!(value(36), Some(name(6, 20, rules)), "Kalah(6,3)");
        assert_eq!(value(44), Some(name(6, 20, rules)));
        assert_eq!(value(45), Some(name(6, 24, rules)));
        assert_eq!(value(48), Some(name(6, 24, rules)), "Kalah(6,4)");
        assert_eq!(value(54), Some(name(6, 30, rules)));
        assert_eq!(value(60), Some(name(6, 30, rules)), "Kalah(6,5): none within, the largest");
        let analysis = |s| for_seeds(s, ANALYSIS_LOAD_GAP);
        assert_eq!(analysis(36), Some(name(6, 20, rules)), "Kalah(6,3)");
        assert_eq!(analysis(42), Some(name(6, 24, rules)));
        assert_eq!(analysis(48), Some(name(6, 30, rules)), "Kalah(6,4)");
        assert_eq!(choose_for_seeds(&[], 48, VALUE_LOAD_GAP, u64::MAX), None);
        // Under a time limit files too large to load in its share are passed
        // over, unless they cover the position.
        let bytes: Vec<u64> = found.iter().map(|(_, b, _)| *b).collect();
        let within = |s, max_load| choose_for_seeds(&found, s, VALUE_LOAD_GAP, max_load).map(|(_, _, p)| p.file_name().unwrap().to_string_lossy().into_owned());
        assert_eq!(within(60, bytes[2] - 1), Some(name(6, 24, rules)), "Kalah(6,5): not the 30-seed file");
        assert_eq!(within(60, bytes[1] - 1), Some(name(6, 20, rules)));
        assert_eq!(within(60, bytes[0] - 1), None, "none small enough");
        assert_eq!(within(48, bytes[1]), Some(name(6, 24, rules)), "a file of exactly the budget is loaded");
        assert_eq!(within(30, 0), Some(name(6, 30, rules)), "covered: probed, whatever its size");
    }
}
