//! Setting up what answers a position: the transposition table's size, a
//! database built in memory, retrograde analysis for clockwise sowing, a
//! solver of proven bounds; each checked against the memory available
//! and refused up front, with the figures, when it does not fit.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kalah_core::{boards_up_to, Engine, Rules};
use kalah_db::{human_bytes, Builder, Database};
use kalah_search::{BoundSolver, SearchOptions, Solver};

use crate::databases::{for_search, for_search_up_to, table_mb_within, DbSpec, SetupBudget};
use crate::error::{Error, Field, Result};
use crate::progress::Observer;
use crate::report::UsedDatabase;
use crate::answer::table::Table;
use crate::text::{a_size, article, group};

/// The default transposition table size in MiB for positions of `h`
/// houses with `seeds` seeds in their houses, searched with a database of
/// `db_seeds` seeds if any. Small searches do not need, and should not pay
/// for, a large table: its pages are zeroed when first touched, about 0.1
/// to 1.5 s a GiB on this project's test machine. With a database the
/// search stores only boards several seeds above it, so what counts is how
/// far above it the position is: Kalah(6,5) with the 30-seed database
/// searches as fast with 256 MiB as with 1 GiB, Kalah(6,4) with the
/// 20-seed one (28 seeds above it) faster with 128 MiB than with 256, and
/// Kalah(6,5) with the 24-seed one (36 above) fastest with 256 MiB:
/// 32.6-36.3 s against 37.0-42.1 s with 1 GiB, whose pages cost seconds of
/// system time (BENCHMARKS.md).
///
/// The size is then raised to what the keys' fields need where that is
/// small.
///
/// With no database the tiers are those of six houses by seeds; fewer
/// houses hold far fewer boards of as many seeds, and take the tier of six
/// houses holding as many boards (Kalah(4,3), 24 seeds: 10.5 million
/// boards, fewer than six houses hold with 16 seeds, so 16 MiB where six
/// houses take 64). Its searches take 41 thousand nodes: a 64 MiB table
/// was a thousand times more than they fill, and its clearing most of the
/// system time of a batch of such positions (BENCHMARKS.md).
pub fn default_tt_mb(h: usize, seeds: u32, db_seeds: Option<u32>) -> usize {
    // The tiers, by the seeds of six houses.
    const TIERS: [(u32, usize); 3] = [(16, 16), (24, 64), (36, 256)];
    let mb = match db_seeds {
        None => {
            let by_seeds = TIERS.iter().find(|&&(n, _)| seeds <= n).map_or(1024, |&(_, mb)| mb);
            let by_boards = if h < 6 {
                // C(seeds + 2h, 2h), in u128 (no overflow below 6 houses).
                let boards = (1..=2 * h as u128).fold(1u128, |c, k| c * (u128::from(seeds) + k) / k);
                TIERS.iter().find(|&&(n, _)| boards <= u128::from(boards_up_to(6, n))).map_or(1024, |&(_, mb)| mb)
            } else {
                by_seeds
            };
            by_seeds.min(by_boards)
        }
        Some(n) => match seeds.saturating_sub(n) {
            0..=28 => 64,
            29..=38 => 256,
            _ => 1024,
        },
    };
    fields_floor(h, mb)
}

/// A default table size `mb` for `h` houses, raised to what the keys'
/// fixed fields need if it is at least 64 MiB and they need at most 128
/// (five and six houses). A smaller table takes unary keys
/// ([`SearchOptions::keys`]), which cost 5-8% of a search's time
/// (Kalah(6,4) over the 20-seed database, one thread: 64 MiB of unary
/// keys against 128 MiB of fields, BENCHMARKS.md): worth it for the small
/// tables of small searches only.
pub fn fields_floor(h: usize, mb: usize) -> usize {
    let fields = SearchOptions::fields_mb(h);
    if mb >= 64 && fields <= 128 {
        mb.max(fields)
    } else {
        mb
    }
}

/// The transposition table of a proof of bounds more than
/// [`BOUNDS_SMALL_GAP`] seeds above its database, in MiB (else 64), given
/// at least [`BOUNDS_SHORT`]: such a proof often runs to its time limit,
/// and a large table pays. Clockwise Kalah(5,3) over a 20-seed database,
/// 60 s, two threads: 0..+4 with 1 GiB, -2..+6 with 64 MiB (the value is 0).
const BOUNDS_TT_MB: usize = 1024;
/// See [`BOUNDS_TT_MB`].
const BOUNDS_SMALL_GAP: u32 = 8;
/// A proof of bounds given less time than this gets a table of
/// [`BOUNDS_SHORT_TT_MB`]: it cannot fill a larger one, whose pages the
/// kernel would clear as they are first touched, on the search's time.
/// Clockwise Kalah(6,4), no database, 2 s: 256 MiB searched 13.0-16.1 M
/// nodes to 1 GiB's 3.8-11.4 M (0.03 s of system time to 0.7-2.8 s) and
/// proved as narrow bounds or narrower; 10 s: 43-66 M nodes to 43-54 M,
/// the same bounds within one step (BENCHMARKS.md).
const BOUNDS_SHORT: Duration = Duration::from_secs(15);
/// See [`BOUNDS_SHORT`].
const BOUNDS_SHORT_TT_MB: usize = 256;

/// The default table, in MiB, of a proof of bounds on `h` houses of boards
/// of up to `seeds` seeds over an `n`-seed database that may take `limit`
/// (64 MiB up to 8 seeds above it, else 256 MiB under 15 s, 1 GiB from
/// then on), raised to what the keys' fields need ([`fields_floor`]), and
/// cut to what the search can clear in its time ([`table_mb_within`]).
pub fn bounds_tt_mb(h: usize, seeds: u32, n: u32, limit: Duration) -> usize {
    let mb = if seeds <= n + BOUNDS_SMALL_GAP {
        64
    } else if limit < BOUNDS_SHORT {
        BOUNDS_SHORT_TT_MB
    } else {
        BOUNDS_TT_MB
    };
    fields_floor(h, mb).min(table_mb_within(limit))
}

/// The database a proof of bounds builds by default has at most this many
/// seeds and [`BOUNDS_DB_BOARDS`] boards: 20 seeds for six houses is built
/// by retrograde analysis in 26 s (relay off) to 48 s (relay on) on two
/// cores. A smaller one saves that time but costs the proof more:
/// clockwise Kalah(6,3) with relay meets in 3.2 s over 20 seeds, and not
/// within 30 s over 16 or 12. A larger one costs more than it saves:
/// clockwise Kalah(5,4) with relay, 20 seeds: 5.6 s to build, 1.2 s to
/// prove; 25 seeds: 101 s and 14 s (the machine loaded).
pub const BOUNDS_DB_SEEDS: u32 = 20;
/// See [`BOUNDS_DB_SEEDS`].
pub const BOUNDS_DB_BOARDS: u64 = 250_000_000;

/// The default time a proof of bounds may take for one position.
pub const BOUNDS_TIME: Duration = Duration::from_secs(60);

/// Positions with fewer seeds are searched without a database built in
/// memory by default: it would not pay for its building (see
/// [`default_memory_seeds`]).
const MEMORY_DB_FROM: u32 = 46;
/// The default database built in memory for the value alone of a
/// six-house position covers this many seeds fewer than the position has
/// ([`default_memory_seeds`]), and at most [`MEMORY_DB_MAX_SEEDS`].
const MEMORY_DB_BELOW: u32 = 30;
const MEMORY_DB_MAX_SEEDS: u32 = 24;
/// ... and at most this many boards (a byte each; about 26 s on two cores).
const MEMORY_DB_MAX_BOARDS: u64 = 1_300_000_000;

/// What the searches over a database built in memory are asked for,
/// which sizes it ([`default_memory_seeds`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchWork {
    /// The value of a position (or bounds on it).
    Value,
    /// Every move's value or a line of best play, or many positions'
    /// values (the openings, a game): several searches as large as the
    /// value's.
    Analysis,
}

/// The seeds of the database a search of a position with `seeds` seeds on
/// `h` houses builds in memory by default when no database file is used:
/// on six houses or more `seeds - 30` for the value alone, two more for
/// an analysis; two more for each house fewer than six; at most 24 seeds
/// and 1.3 billion boards, none for positions of fewer than 46 seeds.
/// The best size is about the one whose building takes as long as the
/// search over it; a small one costs nodes (the search keeps boards just
/// above a database out of its table). The measurements behind these
/// sizes, on Kalah(6,4), Kalah(5,5) and Kalah(4,6): BENCHMARKS.md,
/// "Databases built in memory by `solve`".
/// Under a time limit, at most `max_boards` boards ([`SetupBudget`]).
pub fn default_memory_seeds(h: usize, seeds: u32, work: SearchWork, max_boards: u64) -> Option<u32> {
    if seeds < MEMORY_DB_FROM {
        return None;
    }
    let fewer_houses = 6usize.saturating_sub(h) as u32;
    let below = MEMORY_DB_BELOW - 2 * fewer_houses - if work == SearchWork::Analysis { 2 } else { 0 };
    let mut n = (seeds - below).min(MEMORY_DB_MAX_SEEDS);
    while n > 0 && boards_up_to(h, n) > MEMORY_DB_MAX_BOARDS.min(max_boards) {
        n -= 1;
    }
    (n > 0).then_some(n)
}

/// Memory a search may take without asking the system what is available.
const SMALL_MEMORY: u64 = 64 << 20;

/// Refuses a transposition table of `bytes` that does not fit in the memory available.
pub fn check_table_memory(bytes: u64) -> Result<()> {
    check_search_memory(bytes, None)
}

/// Refuses transposition tables of `bytes` each that `copies` processes
/// of this machine (the ranks of a shared search) cannot hold together.
pub fn check_tables_memory(bytes: u64, copies: usize) -> Result<()> {
    if copies <= 1 {
        return check_table_memory(bytes);
    }
    let total = bytes.saturating_mul(copies as u64);
    match kalah_db::writer::available_memory() {
        Some(available) if total > available => Err(Error::refused(format!(
            "{copies} processes on this machine with {} transposition table each need {}: {} of memory is available",
            a_size(bytes),
            human_bytes(total),
            human_bytes(available)
        ))
        .about(Field::TtMb)),
        _ => Ok(()),
    }
}

/// Refuses a transposition table of `bytes` that does not fit in the
/// memory available next to `db`, if the search will copy it into memory
/// ([`for_search`]: when it takes less than half the memory).
pub fn check_search_memory(bytes: u64, db: Option<&Database>) -> Result<()> {
    // What any machine this runs on has: many small searches do not each
    // read the system's memory figures.
    if bytes.saturating_add(db.map_or(0, Database::file_bytes)) <= SMALL_MEMORY {
        return Ok(());
    }
    let Some(available) = kalah_db::writer::available_memory() else {
        return Ok(());
    };
    let loaded = db.map_or(0, |d| if crate::databases::copied_into_memory(d.file_bytes(), 1, available) { d.file_bytes() } else { 0 });
    if bytes.saturating_add(loaded) > available {
        let next_to = if loaded > 0 { format!(" next to the {} database copied into memory", human_bytes(loaded)) } else { String::new() };
        return Err(Error::refused(format!(
            "{} transposition table does not fit{next_to}: {} of memory is available",
            a_size(bytes),
            human_bytes(available)
        ))
        .about(Field::TtMb));
    }
    Ok(())
}

/// Whether retrograde analysis of every board of `h` houses with up to
/// `seeds` seeds fits in the memory available.
pub fn retrograde_fits(h: usize, seeds: u32, rules: Rules) -> bool {
    let free = kalah_db::writer::available_memory().unwrap_or(u64::MAX);
    seeds <= kalah_db::builder::MAX_SEEDS && kalah_db::builder::memory_needed(h, seeds, rules) <= free
}

/// Whether a position of `h` houses with `seeds` seeds under `rules` (not
/// covered by a database file) is answered by proofs of bounds
/// ([`Setup::bound_solver`]) rather than retrograde analysis: clockwise,
/// when retrograde analysis of its seeds does not fit, would take longer
/// than the time limit `budget` is for ([`SetupBudget::answer_boards`]),
/// or the spec asks for a database of fewer seeds.
pub fn proves_bounds(h: usize, seeds: u32, rules: Rules, spec: &DbSpec, budget: SetupBudget) -> bool {
    rules.may_cycle()
        && (spec.build_seeds.is_some_and(|n| n < seeds) || !retrograde_fits(h, seeds, rules) || boards_up_to(h, seeds) > budget.answer_boards)
}

/// A [`BoundSolver`] over whatever database [`Setup::bound_solver`] found or built.
pub type BoundsOverDatabase = BoundSolver<Table>;

/// How to set up the answers for one board size and rule set: the
/// database asked for, the threads, the table size, what set-up may cost
/// and who hears about it.
#[derive(Clone, Copy)]
pub struct Setup<'a> {
    /// The rules engine (board size and rules).
    pub engine: &'a Engine,
    /// Which database.
    pub spec: &'a DbSpec,
    /// Threads for searches, builds and loading.
    pub threads: usize,
    /// Transposition table MiB (`None`: the default for the job).
    pub tt_mb: Option<usize>,
    /// What a default database may cost to set up.
    pub budget: SetupBudget,
    /// What the searches are for, which sizes a default database built in memory.
    pub work: SearchWork,
    /// Hears notes and progress.
    pub observer: &'a dyn Observer,
    /// The request's cancel flag: a database built in memory for a search
    /// ([`Setup::build_noted`]) is not begun, or stops between its
    /// levels, once it is raised (the search then runs without it, and
    /// stops at once with its bounds).
    pub cancel: Option<&'a AtomicBool>,
}

impl std::fmt::Debug for Setup<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Setup")
            .field("houses", &self.engine.houses())
            .field("rules", &self.engine.rules())
            .field("spec", self.spec)
            .field("threads", &self.threads)
            .field("tt_mb", &self.tt_mb)
            .field("budget", &self.budget)
            .field("work", &self.work)
            .finish()
    }
}

impl Setup<'_> {
    fn houses(&self) -> usize {
        self.engine.houses()
    }

    /// The table asked for, else the `default` cut to what the budget lets
    /// a search clear in its time ([`SetupBudget::table_mb`]).
    fn table_mb(&self, default: impl FnOnce() -> usize) -> usize {
        self.tt_mb.unwrap_or_else(|| default().min(self.budget.table_mb))
    }

    /// Search options for boards of up to `seeds` seeds over a database of
    /// `db_seeds` seeds (the default table size unless one was asked for).
    pub fn search_options(&self, seeds: u32, db_seeds: Option<u32>) -> SearchOptions {
        SearchOptions {
            threads: self.threads,
            tt_bytes: self.table_mb(|| default_tt_mb(self.houses(), seeds, db_seeds)) << 20,
            max_seeds: Some(seeds),
        }
    }

    /// Every board with up to `seeds` seeds solved in memory; the observer
    /// sees the progress.
    pub fn build(&self, seeds: u32) -> Result<Builder> {
        self.build_unless(seeds, None)?.ok_or_else(|| Error::internal("a build without a cancel flag stopped"))
    }

    /// [`Setup::build`], or `None` if `cancel` is raised before it ends
    /// (the builder looks at it within each level,
    /// [`kalah_db::Progress::stopped`]; [`Setup::build_noted`] looks
    /// before it begins).
    fn build_unless(&self, seeds: u32, cancel: Option<&AtomicBool>) -> Result<Option<Builder>> {
        let h = self.houses();
        let mut builder = Builder::new(h, self.engine.rules(), seeds)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads)
            .build()
            .map_err(|e| Error::refused(format!("cannot start {} threads: {e}", self.threads)))?;
        let progress = crate::progress::WatchedBuild::new(self.observer, boards_up_to(h, seeds), cancel);
        let stopped = !pool.install(|| builder.build_all(&progress));
        progress.finish();
        if stopped {
            self.observer.note(&format!("the {seeds}-seed database built in memory was stopped by the cancel flag, after {} levels", builder.levels_done()));
            return Ok(None);
        }
        Ok(Some(builder))
    }

    /// [`Setup::retrograde`] for a caller that needs the table: stopped by
    /// [`Setup::cancel`], it is an error saying so.
    pub fn retrograde_table(&self, seeds: u32) -> Result<Builder> {
        self.retrograde(seeds)?.ok_or_else(|| Error::refused(format!("retrograde analysis of the boards up to {seeds} seeds was stopped by the cancel flag")))
    }

    /// Every board with up to `seeds` seeds solved in memory by retrograde
    /// analysis (for clockwise sowing), refused up front if it cannot fit;
    /// `None` if [`Setup::cancel`] stopped it.
    pub fn retrograde(&self, seeds: u32) -> Result<Option<Builder>> {
        let h = self.houses();
        if seeds > kalah_db::builder::MAX_SEEDS {
            return Err(Error::refused(format!("{seeds} seeds is too many for retrograde analysis (at most {})", kalah_db::builder::MAX_SEEDS)));
        }
        let needed = kalah_db::builder::memory_needed(h, seeds, self.engine.rules());
        let available = kalah_db::writer::available_memory().unwrap_or(u64::MAX);
        if needed > available {
            return Err(Error::refused(format!(
                "clockwise sowing is solved by retrograde analysis of every board with up to {seeds} seeds \
                 ({} boards), which needs {} of memory; {} is available (an analyzer proves bounds on the values of \
                 positions this large)",
                group(boards_up_to(h, seeds)),
                human_bytes(needed),
                human_bytes(available)
            )));
        }
        self.observer.note(&format!(
            "clockwise sowing can make play endless: solving all {} boards with up to {seeds} seeds by retrograde analysis ({} of memory)",
            group(boards_up_to(h, seeds)),
            human_bytes(needed)
        ));
        self.build_unless(seeds, self.cancel)
    }

    /// The database to build in memory before a search of positions of up
    /// to `seeds` seeds ([`DbSpec::build_seeds`], or by default when no
    /// file is used, [`default_memory_seeds`]): its seeds, or `None` when
    /// there is none to build: a file covers what is asked, the rules are
    /// clockwise (retrograde analysis builds its own), a size of 0, or (by
    /// default only) the memory is short, which a note says. A size asked
    /// for that does not fit is refused with the figures.
    pub fn memory_seeds(&self, seeds: u32, file: Option<&Database>) -> Result<Option<u32>> {
        let h = self.houses();
        if self.spec.is_none() || self.engine.rules().may_cycle() {
            return Ok(None);
        }
        let file_seeds = file.map(|d| d.header().max_seeds);
        let n = match self.spec.build_seeds {
            Some(0) => return Ok(None),
            Some(n) if file_seeds.is_some_and(|f| f >= n.min(seeds)) => return Ok(None),
            Some(n) => {
                kalah_db::builder::check_size(h, n).map_err(|e| Error::refused(format!("a {n}-seed database built in memory: {e}")).about(Field::DbSeeds))?;
                n.min(seeds)
            }
            None if file.is_some() => return Ok(None),
            None => match default_memory_seeds(h, seeds, self.work, self.budget.build_boards) {
                Some(n) => n,
                None => return Ok(None),
            },
        };
        let boards = boards_up_to(h, n);
        let table = self.search_options(seeds, Some(n)).reserved_bytes(h) as u64;
        if let Some(available) = kalah_db::writer::available_memory() {
            if boards.saturating_add(table) > available {
                let Some(asked) = self.spec.build_seeds else {
                    self.observer.note(&format!(
                        "not building {} {n}-seed database in memory: it needs {} next to the search's table, {} is available",
                        article(n.into()),
                        human_bytes(boards),
                        human_bytes(available)
                    ));
                    return Ok(None);
                };
                return Err(Error::refused(format!(
                    "a {asked}-seed database built in memory: {} {h}-house database of {n} seeds{} needs {} of memory next to the search's table, {} is available",
                    article(h as u64),
                    if asked > n { " (the position's)" } else { "" },
                    human_bytes(boards),
                    human_bytes(available)
                ))
                .about(Field::DbSeeds));
            }
        }
        Ok(Some(n))
    }

    /// [`Setup::build`], said first; `file`: whether a database file is
    /// used beside it. `None` when [`Setup::cancel`] stopped it.
    pub fn build_noted(&self, n: u32, file: bool) -> Result<Option<Builder>> {
        if self.cancel.is_some_and(|c| c.load(Relaxed)) {
            return Ok(None);
        }
        self.observer.note(&format!(
            "{}building {} {n}-seed database in memory ({} boards{})",
            if file { "" } else { "no database file for these rules: " },
            article(n.into()),
            group(boards_up_to(self.houses(), n)),
            if self.spec.build_seeds.is_none() { "; asking for a database of 0 seeds in memory skips it, and a database file built once makes one that lasts" } else { "" }
        ));
        self.build_unless(n, self.cancel)
    }

    /// A [`BoundSolver`] for clockwise positions of up to `seeds` seeds,
    /// too many for retrograde analysis, and the database it searches
    /// over: the file given or found, else one built in memory (the size
    /// asked for, by default the largest of at most [`BOUNDS_DB_SEEDS`]
    /// seeds and [`BOUNDS_DB_BOARDS`] boards that fits, and that the
    /// budget lets it build). The observer hears which, and why, with
    /// `limit`, the time a proof may take.
    pub fn bound_solver(&self, seeds: u32, file: Option<Database>, limit: Duration) -> Result<(BoundsOverDatabase, Option<UsedDatabase>)> {
        let h = self.houses();
        let rules = self.engine.rules();
        let n = match (&file, self.spec.is_none(), self.spec.build_seeds) {
            (Some(d), _, _) => d.header().max_seeds,
            (None, true, _) | (None, false, Some(0)) => 0,
            (None, false, Some(n)) => {
                let n = n.min(seeds.saturating_sub(1));
                if !retrograde_fits(h, n, rules) {
                    return Err(Error::refused(format!(
                        "a {n}-seed database built in memory: retrograde analysis of {} boards needs {} of memory; {} is available",
                        group(boards_up_to(h, n)),
                        human_bytes(kalah_db::builder::memory_needed(h, n, rules)),
                        human_bytes(kalah_db::writer::available_memory().unwrap_or(0))
                    ))
                    .about(Field::DbSeeds));
                }
                n
            }
            (None, false, None) => (0..seeds.min(BOUNDS_DB_SEEDS + 1))
                .rev()
                .find(|&n| boards_up_to(h, n) <= BOUNDS_DB_BOARDS.min(self.budget.retrograde_boards) && retrograde_fits(h, n, rules))
                .unwrap_or(0),
        };
        let options = SearchOptions {
            threads: self.threads,
            tt_bytes: self.table_mb(|| bounds_tt_mb(h, seeds, n, limit)) << 20,
            max_seeds: Some(seeds),
        };
        let why = if self.spec.build_seeds.is_some_and(|k| k < seeds) && retrograde_fits(h, seeds, rules) {
            format!("a database of {n} seeds is asked for, fewer than the position's {seeds}")
        } else if retrograde_fits(h, seeds, rules) {
            format!(
                "clockwise sowing can make play endless, and retrograde analysis of all {} boards with up to {seeds} seeds would take longer than the time limit",
                group(boards_up_to(h, seeds))
            )
        } else if seeds > kalah_db::builder::MAX_SEEDS {
            format!(
                "clockwise sowing can make play endless, and retrograde analysis stops at {} seeds (one-byte values), below the position's {seeds}",
                kalah_db::builder::MAX_SEEDS
            )
        } else {
            format!(
                "clockwise sowing can make play endless, and retrograde analysis of all {} boards with up to {seeds} seeds needs {} of memory ({} is available)",
                group(boards_up_to(h, seeds)),
                human_bytes(kalah_db::builder::memory_needed(h, seeds, rules)),
                human_bytes(kalah_db::writer::available_memory().unwrap_or(0)),
            )
        };
        self.observer.note(&format!(
            "{why}: proving bounds on values ({} s a position) by searches over {}",
            limit.as_secs_f64(),
            match (&file, n) {
                (Some(d), _) => format!("the {n}-seed database {}", d.path().display()),
                (None, 0) => "no database".to_string(),
                (None, n) => format!(
                    "{} {n}-seed database built first in memory by retrograde analysis ({} boards; a database file of {h} houses and {n} seeds for these rules makes one that lasts)",
                    article(n.into()),
                    group(boards_up_to(h, n))
                ),
            }
        ));
        // The table must fit beside the database's values (a built one's
        // working memory is freed when it is done).
        let table_bytes = options.reserved_bytes(h) as u64;
        let (table, used) = match file {
            Some(d) => {
                check_search_memory(table_bytes, Some(&d))?;
                let mut used = UsedDatabase::file(&d);
                let loading = Instant::now();
                let loaded = for_search(d, self.threads)?;
                used.load_seconds = Some(loading.elapsed().as_secs_f64());
                (Table::File(Arc::new(loaded)), Some(used))
            }
            None if n == 0 => {
                check_search_memory(table_bytes, None)?;
                (Table::none(h, rules), None)
            }
            None => {
                check_search_memory(table_bytes + boards_up_to(h, n), None)?;
                let started = Instant::now();
                match self.build_unless(n, self.cancel)? {
                    Some(built) => {
                        let used = UsedDatabase { path: None, max_seeds: n, build_seconds: Some(started.elapsed().as_secs_f64()), load_seconds: None, kept: false, saved_as: None };
                        (Table::Memory(Arc::new(built)), Some(used))
                    }
                    // Stopped by the cancel flag: so is the search, which answers at once without it.
                    None => (Table::none(h, rules), None),
                }
            }
        };
        Ok((bound_solver_over(self.engine, table, options)?, used))
    }

    /// The options of a search of positions of up to `seeds` seeds over a
    /// database of `db_seeds` (the table asked for, or the default),
    /// refused when its transposition table does not fit in memory next to
    /// `to_load`, a file about to be copied into memory for it.
    pub fn checked_search_options(&self, seeds: u32, db_seeds: Option<u32>, to_load: Option<&Database>) -> Result<SearchOptions> {
        let options = self.search_options(seeds, db_seeds);
        check_search_memory(options.reserved_bytes(self.houses()) as u64, to_load)?;
        Ok(options)
    }

    /// A search of positions of up to `seeds` seeds, ready: over `memory`,
    /// the database built in memory, else over `file` made ready as `load`
    /// says, else over none; its options checked
    /// ([`Setup::checked_search_options`]).
    pub fn searcher(&self, seeds: u32, memory: Option<Arc<Builder>>, file: Option<Database>, load: Load) -> Result<Solver<Table>> {
        let limit = match load {
            Load::Whole => u64::MAX,
            Load::UpTo(bytes) => bytes,
        };
        let to_load = file.as_ref().filter(|d| memory.is_none() && d.file_bytes() <= limit);
        let options = self.checked_search_options(seeds, searched_db_seeds(memory.as_deref(), file.as_ref()), to_load)?;
        let table = search_table(self.engine, memory, file, |d| Ok(Arc::new(for_search_up_to(d, limit, self.threads)?)))?;
        solver_over(self.engine, table, options)
    }
}

/// How a database file that backs a search is made ready ([`Setup::searcher`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// Copied into memory where it fits comfortably ([`for_search`]).
    Whole,
    /// The same if it has at most this many bytes; else used mapped (a
    /// game starts at once).
    UpTo(u64),
}

/// The table a search reads: `memory`, the database built in memory, else
/// `file` made ready by `load` (loaded into memory, or left mapped), else
/// none.
pub fn search_table(engine: &Engine, memory: Option<Arc<Builder>>, file: Option<Database>, load: impl FnOnce(Database) -> Result<Arc<Database>>) -> Result<Table> {
    Ok(match (memory, file) {
        (Some(b), _) => Table::Memory(b),
        (None, Some(d)) => Table::File(load(d)?),
        (None, None) => Table::none(engine.houses(), engine.rules()),
    })
}

/// A solver of exact values over `table` for `engine`'s board and rules,
/// with `options`: the one place one is made, for every search (the
/// plan's, an oracle's, a game's, a rank's of a distributed search).
pub fn solver_over(engine: &Engine, table: Table, options: SearchOptions) -> Result<Solver<Table>> {
    Ok(Solver::new(engine.houses(), engine.rules(), table, options)?)
}

/// A solver of proven bounds over `table` ([`solver_over`]'s brother):
/// the one place one is made, for the plan's proofs of bounds and the
/// clockwise oracle's.
pub fn bound_solver_over(engine: &Engine, table: Table, options: SearchOptions) -> Result<BoundsOverDatabase> {
    Ok(BoundSolver::new(engine.houses(), engine.rules(), table, options)?)
}

/// Seeds the database a search uses covers: the one built in memory
/// ([`Setup::build_noted`]) if any, else the file.
pub fn searched_db_seeds(memory: Option<&Builder>, file: Option<&Database>) -> Option<u32> {
    memory.map(|b| b.indexer().max_seeds()).or_else(|| file.map(|d| d.header().max_seeds))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Six houses and more by seeds; fewer houses by the boards they hold,
    /// never above what their seeds say.
    #[test]
    fn the_default_table_follows_the_boards_of_the_position() {
        let no_db = |h, seeds| default_tt_mb(h, seeds, None);
        assert_eq!((no_db(6, 16), no_db(6, 17), no_db(6, 24), no_db(6, 36), no_db(6, 37)), (16, fields_floor(6, 64), fields_floor(6, 64), fields_floor(6, 256), 1024));
        assert_eq!(no_db(8, 16), 16, "eight houses: by seeds");
        assert_eq!(no_db(4, 24), 16, "Kalah(4,3): 10.5 million boards");
        assert_eq!(no_db(4, 32), fields_floor(4, 64), "Kalah(4,4): 225 million boards");
        assert_eq!(no_db(5, 40), fields_floor(5, 256), "Kalah(5,4)");
        assert_eq!(no_db(1, 2000), 16, "one house: few boards");
        assert_eq!(no_db(5, 2550), 1024, "no overflow");
        assert_eq!(default_tt_mb(4, 24, Some(10)), fields_floor(4, 64), "with a database: unchanged");
    }

    #[test]
    fn the_default_database_built_in_memory_is_sized_by_the_position() {
        let all = u64::MAX;
        let value = |h, seeds, max_boards| default_memory_seeds(h, seeds, SearchWork::Value, max_boards);
        let analysis = |h, seeds| default_memory_seeds(h, seeds, SearchWork::Analysis, all);
        assert_eq!(value(6, 45, all), None, "below 46 seeds none");
        assert_eq!(analysis(6, 45), None, "below 46 seeds none");
        assert_eq!(value(6, 46, all), Some(16));
        assert_eq!(value(6, 48, all), Some(18), "Kalah(6,4)");
        assert_eq!(analysis(6, 48), Some(20), "Kalah(6,4), every move");
        assert_eq!(value(5, 50, all), Some(22), "Kalah(5,5)");
        assert_eq!(analysis(5, 50), Some(24), "Kalah(5,5), every move");
        assert_eq!(analysis(4, 48), Some(24), "Kalah(4,6), every move");
        assert_eq!(value(6, 60, all), Some(24), "Kalah(6,5): at most 24 seeds");
        assert_eq!(analysis(6, 72), Some(24));
        // Under a time limit, at most the boards its share builds.
        let budget = |t: f64| SetupBudget::within(Some(Duration::from_secs_f64(t)), 2).build_boards;
        assert_eq!(value(6, 48, budget(1000.0)), Some(18), "a long limit changes nothing");
        let n = value(8, 48, budget(5.0)).unwrap();
        assert!(boards_up_to(8, n) <= budget(5.0) && boards_up_to(8, n + 1) > budget(5.0), "8 houses, 5 s: {n}");
        assert_eq!(value(6, 48, 0), None, "nothing fits: none");
        // Eight houses: 17 seeds are 1.17 billion boards, 18 seeds 2.2 billion.
        assert_eq!(value(8, 64, all), Some(17));
        for (h, seeds) in [(1, 200), (4, 100), (7, 90), (8, 128)] {
            for work in [SearchWork::Value, SearchWork::Analysis] {
                let n = default_memory_seeds(h, seeds, work, all).unwrap();
                assert!(boards_up_to(h, n) <= MEMORY_DB_MAX_BOARDS, "h={h} seeds={seeds}: {n}");
                assert!(n <= MEMORY_DB_MAX_SEEDS && n + 18 <= seeds);
            }
        }
    }

    /// Under a time limit the default table is what the search can clear
    /// in its time; a table asked for is made as asked.
    #[test]
    fn a_time_limit_cuts_the_default_table() {
        let engine = Engine::new(6, Rules::default());
        let spec = DbSpec::default();
        let mb = |limit: Option<f64>, tt_mb: Option<usize>| {
            let budget = SetupBudget::within(limit.map(Duration::from_secs_f64), 2);
            let setup = Setup { engine: &engine, spec: &spec, threads: 2, tt_mb, budget, work: SearchWork::Analysis, observer: &crate::progress::Silent, cancel: None };
            setup.search_options(72, Some(11)).tt_bytes >> 20
        };
        assert_eq!(mb(None, None), 1024, "Kalah(6,6) over 11 seeds, no limit");
        assert_eq!(mb(Some(100.0), None), 1024, "a long limit changes nothing");
        assert_eq!(mb(Some(10.0), None), 640);
        assert_eq!(mb(Some(0.5), None), 32);
        assert_eq!(mb(Some(0.001), None), 1, "at least 1 MiB");
        assert_eq!(mb(Some(0.5), Some(2048)), 2048, "as asked");
        // The keys' fields on six houses need 128 MiB: the table grows to it.
        let options = SearchOptions { threads: 2, tt_bytes: mb(Some(0.5), None) << 20, max_seeds: Some(72) };
        assert_eq!(options.table_bytes(6), 128 << 20);
        // Proofs of bounds too.
        assert_eq!(bounds_tt_mb(6, 72, 20, Duration::from_secs(60)), 1024);
        assert_eq!(bounds_tt_mb(6, 72, 20, Duration::from_secs(2)), 128);
        assert_eq!(bounds_tt_mb(6, 72, 20, Duration::from_millis(500)), 32);
    }
}
