//! Setting up what answers a position: the transposition table's size, a
//! database built in memory, retrograde analysis for clockwise sowing, a
//! solver of proven bounds; each checked against the memory available
//! and refused up front, with the figures, when it does not fit.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kalah_core::{boards_up_to, Engine};
use kalah_db::{human_bytes, Builder, Database};
use kalah_search::{BoundSolver, SearchOptions, Solver};

use crate::answer::request::Request;
use crate::answer::sizes::{
    bounds_tt_mb, check_search_memory, default_memory_seeds, default_tt_mb, retrograde_fits, SearchWork, BOUNDS_DB_BOARDS, BOUNDS_DB_SEEDS,
};
use crate::answer::table::Table;
use crate::databases::{for_search_held, DbHold, DbSpec, SetupBudget};
use crate::error::{Error, Field, Result};
use crate::progress::Observer;
use crate::report::UsedDatabase;
use crate::text::{article, group};

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

impl<'a> Setup<'a> {
    /// The set-up of work beyond one position of `request`'s board and
    /// rules (many positions, a game, a rank of a shared search): its
    /// database, threads and table, sized for every move's value, and not
    /// held to its time limit, as it serves every position.
    pub fn beyond_one(request: &'a Request, observer: &'a dyn Observer) -> Setup<'a> {
        Setup {
            engine: Engine::shared(request.position.houses(), request.rules),
            spec: &request.db,
            threads: request.threads,
            tt_mb: request.tt_mb,
            budget: SetupBudget::UNLIMITED,
            work: SearchWork::Analysis,
            observer,
            cancel: None,
        }
    }

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
            self.observer
                .note(&format!("the {seeds}-seed database built in memory was stopped by the cancel flag, after {} levels", builder.levels_done()));
            return Ok(None);
        }
        Ok(Some(builder))
    }

    /// [`Setup::retrograde`] for a caller that needs the table: stopped by
    /// [`Setup::cancel`], it is an error saying so.
    pub fn retrograde_table(&self, seeds: u32) -> Result<Builder> {
        self.retrograde(seeds)?
            .ok_or_else(|| Error::refused(format!("retrograde analysis of the boards up to {seeds} seeds was stopped by the cancel flag")))
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
                kalah_db::builder::check_size(h, n)
                    .map_err(|e| Error::refused(format!("a {n}-seed database built in memory: {e}")).about(Field::DbSeeds))?;
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
            if self.spec.build_seeds.is_none() {
                "; asking for a database of 0 seeds in memory skips it, and a database file built once makes one that lasts"
            } else {
                ""
            }
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
        let options =
            SearchOptions { threads: self.threads, tt_bytes: self.table_mb(|| bounds_tt_mb(h, seeds, n, limit)) << 20, max_seeds: Some(seeds) };
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
                check_search_memory(table_bytes, Some(&d), self.spec.hold)?;
                let mut used = UsedDatabase::file(&d);
                let loading = Instant::now();
                let loaded = for_search_held(d, self.spec.hold, u64::MAX, self.threads)?;
                used.load_seconds = Some(loading.elapsed().as_secs_f64());
                used.copied = loaded.is_loaded();
                (Table::File(Arc::new(loaded)), Some(used))
            }
            None if n == 0 => {
                check_search_memory(table_bytes, None, DbHold::Auto)?;
                (Table::none(h, rules), None)
            }
            None => {
                check_search_memory(table_bytes + boards_up_to(h, n), None, DbHold::Auto)?;
                let started = Instant::now();
                match self.build_unless(n, self.cancel)? {
                    Some(built) => {
                        let used = UsedDatabase {
                            path: None,
                            max_seeds: n,
                            build_seconds: Some(started.elapsed().as_secs_f64()),
                            load_seconds: None,
                            copied: false,
                            kept: false,
                            saved_as: None,
                        };
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
        check_search_memory(options.reserved_bytes(self.houses()) as u64, to_load, self.spec.hold)?;
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
        let to_load = file.as_ref().filter(|d| memory.is_none() && (d.file_bytes() <= limit || self.spec.hold == DbHold::Copied));
        let options = self.checked_search_options(seeds, searched_db_seeds(memory.as_deref(), file.as_ref()), to_load)?;
        let table = search_table(self.engine, memory, file, |d| Ok(Arc::new(for_search_held(d, self.spec.hold, limit, self.threads)?)))?;
        solver_over(self.engine, table, options)
    }
}

/// How a database file that backs a search is made ready ([`Setup::searcher`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// Copied into memory where it fits comfortably, or as the request's
    /// [`DbHold`] says ([`for_search_held`]).
    Whole,
    /// The same if it has at most this many bytes; else used mapped (a
    /// game starts at once).
    UpTo(u64),
}

/// The table a search reads: `memory`, the database built in memory, else
/// `file` made ready by `load` (loaded into memory, or left mapped), else
/// none.
pub fn search_table(
    engine: &Engine,
    memory: Option<Arc<Builder>>,
    file: Option<Database>,
    load: impl FnOnce(Database) -> Result<Arc<Database>>,
) -> Result<Table> {
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
    use kalah_core::Rules;

    /// Under a time limit the default table is what the search can clear
    /// in its time; a table asked for is made as asked.
    #[test]
    fn a_time_limit_cuts_the_default_table() {
        let engine = Engine::new(6, Rules::default());
        let spec = DbSpec::default();
        let mb = |limit: Option<f64>, tt_mb: Option<usize>| {
            let budget = SetupBudget::within(limit.map(Duration::from_secs_f64), 2);
            let setup = Setup {
                engine: &engine,
                spec: &spec,
                threads: 2,
                tt_mb,
                budget,
                work: SearchWork::Analysis,
                observer: &crate::progress::Silent,
                cancel: None,
            };
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
