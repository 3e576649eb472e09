//! One analyzer answers any position: it takes the steps of the one plan
//! ([the crate's docs](crate#how-a-position-is-answered): at once, a
//! probe, bounds, retrograde analysis, a search) by the rules, the
//! position and the databases at hand, and returns a [`Report`]. By
//! default a search over no database file first builds one in memory when
//! the position has 46 seeds or more: of 30 seeds fewer than the position
//! has (two more for every move's value), and at most 24 (Kalah(6,4), 48
//! seeds: 18 for its value alone, 20 for every move's).

use std::sync::atomic::AtomicBool;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kalah_core::{Engine, Position, Rules};
use kalah_db::{Builder, Database, Tablebase};
use kalah_search::{analyze_from_table, Bounded, BoundedAnalysis, LineEnd, SearchOptions, Solver, TestOutcome};

use crate::answers::Answers;
use crate::book::Book;
use crate::oracle::Oracle;
use crate::player::Brain;
use crate::databases::{for_search, Databases, DbSpec, Purpose, SetupBudget, ANALYSIS_LOAD_GAP, VALUE_LOAD_GAP};
use crate::journal::{Identity, JournalReport, JournalSpec, Journaling};
use crate::error::{Error, Field, Result};
use crate::progress::{watched_search, Observer, SearchStatus};
use crate::report::{Report, Source};
use crate::setup::{SearchWork, Setup, UsedDatabase, BOUNDS_TIME};
use crate::plan::{self, Step, Table};
pub use crate::plan::Want;
use crate::text::a_size;

/// The most search threads a request may ask for.
pub const MAX_THREADS: usize = 1024;

/// The largest transposition table a request may ask for, in MiB (1 PiB).
pub const MAX_TT_MB: usize = 1 << 30;

/// The longest time limit, in seconds (about 31 years): a deadline beyond
/// it could overflow the clock.
pub const MAX_TIME_LIMIT: f64 = 1e9;

/// What to answer about a position, and with what.
#[derive(Clone, Debug)]
pub struct Request {
    /// The position.
    pub position: Position,
    /// The rules.
    pub rules: Rules,
    /// Which database.
    pub db: DbSpec,
    /// Search threads (1 to [`MAX_THREADS`]).
    pub threads: usize,
    /// Transposition table MiB (`None`: sized by the position and database).
    /// Rounded down to a power of two; a table too small for the keys of
    /// the position's boards grows to what they need (at most 128 MiB on
    /// five and six houses, 2 GiB on eight): the report's note says the
    /// size used.
    pub tt_mb: Option<usize>,
    /// What to answer beside the position's value.
    pub want: Want,
    /// Time for the search: what it has not proven by then is reported as
    /// bounds. `None`: a search runs until it is done, a proof of bounds
    /// ([`Source::Bounds`]) for [`BOUNDS_TIME`]. Database probes and
    /// retrograde analysis are always exact, and setting up a database is
    /// not counted (but a default one is chosen to take at most about a
    /// quarter of the limit).
    pub time_limit: Option<Duration>,
    /// Raised from another thread, stops the work within moments: what the
    /// search proved by then is reported as bounds; a database built in
    /// memory, or retrograde analysis, stops within its level and is
    /// dropped (the answer is then the bounds a search proves by then:
    /// few). With a flag and no time limit, the search is the exact one
    /// (as fast as without a flag), and stopped it answers the bounds it
    /// proved on the position's value alone. Raised before the work
    /// begins, nothing is searched and no database is loaded or built:
    /// the answer is the bounds the position's seeds allow, at once, with
    /// a legal move to play if a move was asked ([`Report::move_to_play`]).
    /// What takes no work still answers exactly: a finished game, the
    /// book, a kept answer, a probe of a file the analyzer holds open
    /// ([`Analyzer::analyze_at_once`]).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Keep what the search proves in a journal, and resume from what an
    /// earlier run of the same search kept there ([`crate::journal`]).
    /// Only searches use it: an answer read from a database, or found by
    /// retrograde analysis, leaves it as it is.
    pub journal: Option<JournalSpec>,
    /// What this request reads of what earlier ones kept in the
    /// analyzer's database folder, and keeps there for later ones
    /// ([`Memory`]). [`Memory::Off`] in [`Request::new`]: `kalah solve`
    /// and `kalah query` ask for [`Memory::All`], a server for
    /// [`Memory::Answers`].
    pub memory: Memory,
    /// Which null-window tests the search of the position runs.
    pub tests: RootTests,
    /// Moves (houses 1-based, each of the player to move then) every
    /// search from the position tries first, one a ply: a line known to
    /// hold a test, searched before the table's moves
    /// ([`kalah_search::Solver::first_line`]). Empty: none.
    pub first: Vec<usize>,
    /// Answer from the analyzer's opening book where it has the position,
    /// before anything else. On in [`Request::new`]; an analyzer has a book
    /// only when given one ([`Analyzer::with_carried_book`],
    /// [`Analyzer::with_book`]).
    pub book: bool,
    /// The most boards retrograde analysis may solve for this request, for
    /// a door open to others: a clockwise position beyond it gets bounds
    /// proven within the time limit over a database of at most that many
    /// boards. `None` in
    /// [`Request::new`]: what memory allows.
    pub retrograde_boards: Option<u64>,
    /// The time the set-up is held to (which database is chosen, loaded
    /// or built in memory, how large a table), if not the time limit: for
    /// a long search that must set up as a short one would (a server's
    /// search that goes on in the background). `None` in [`Request::new`].
    pub setup_time: Option<Duration>,
}

/// What a request reads of what earlier requests kept in the analyzer's
/// database folder, and keeps there for later ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Memory {
    /// Nothing: the answer is found anew, and nothing is kept.
    #[default]
    Off,
    /// Exact answers ([`crate::answers`], `answers/` in the folder): a
    /// kept one answers at once ([`Source::Kept`]), with as much as the
    /// request asks ([`Want`]); an exact answer that took work (a search,
    /// retrograde analysis, bounds that met) is kept when it has every
    /// move's value and the line ([`Want::MovesAndLine`]: the answer to
    /// every other question too). A store that cannot be opened, a
    /// damaged answer, or one that cannot be written is passed over, with
    /// a note. Not for a request that says how to answer: a database other
    /// than the default ([`DbSpec::default`]), a `journal`, the one test
    /// [`RootTests::AtLeast`] ([`RootTests::FirstGuess`] reads and keeps
    /// them).
    Answers,
    /// The exact answers, and the search memory ([`crate::journal`],
    /// "Search memory"): a search run again answers from what the earlier
    /// one proved (passed over, with a note, when it is in use by another
    /// process, damaged or cannot be written; not with a `journal`). A
    /// database built in memory by default (no file for the rules, no
    /// `DbSpec::build_seeds`) is kept too, as a file of the folder, which
    /// the next requests then load (with a note; one that cannot be
    /// written is a note, not an error).
    All,
}

/// Which null-window tests ("is the value at least V?") an exact search of
/// the position runs. Its values are the position's, for the player to
/// move, stores included. Every move's value is searched as always; only
/// the position's own search follows this.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RootTests {
    /// MTD(f), its first test chosen by depth-limited searches (or the
    /// one a journal recorded as running).
    #[default]
    Deepening,
    /// MTD(f) from this guess of the value: the first test is "value >=
    /// guess", with no depth-limited searches before it, and it comes
    /// before the test a journal recorded. For a value known or closely
    /// guessed (a published one), it is the fewest tests.
    FirstGuess(i32),
    /// One test only, "is the value at least V?": answered as holding or
    /// not, with the bound it proves ([`Report::test`]). The value alone
    /// is asked (no moves, line or best move).
    AtLeast(i32),
}

impl Request {
    /// Every move's value and a line of best play of `position` under
    /// `rules`, on every core, with the default database: what `kalah
    /// query` answers.
    pub fn new(position: Position, rules: Rules) -> Request {
        Request {
            position,
            rules,
            db: DbSpec::default(),
            threads: kalah_search::cores(),
            tt_mb: None,
            want: Want::MovesAndLine,
            time_limit: None,
            cancel: None,
            journal: None,
            memory: Memory::Off,
            tests: RootTests::Deepening,
            first: Vec::new(),
            book: true,
            retrograde_boards: None,
            setup_time: None,
        }
    }

    /// Refuses what cannot be answered as asked.
    fn check(&self) -> Result<()> {
        if !(1..=MAX_THREADS).contains(&self.threads) {
            return Err(Error::bad_input(format!("{} search threads: give 1 to {MAX_THREADS}", self.threads)).about(Field::Threads));
        }
        if let Some(mb) = self.tt_mb.filter(|&mb| mb == 0 || mb > MAX_TT_MB) {
            return Err(Error::bad_input(format!("a {mb} MiB transposition table: give 1 MiB to 1 PiB")).about(Field::TtMb));
        }
        if let Some(t) = self.time_limit.filter(|t| t.is_zero() || t.as_secs_f64() >= MAX_TIME_LIMIT) {
            return Err(Error::bad_input(format!("a time limit of {} s: give more than 0 and less than {MAX_TIME_LIMIT:e}", t.as_secs_f64())).about(Field::TimeLimit));
        }
        // Checked before anything answers (the book, a finished game): a
        // request that asks the impossible is refused whatever the position.
        if self.db.is_none() && self.db.build_seeds.is_some_and(|n| n > 0) {
            return Err(Error::bad_input("no database at all, and one built in memory: ask for one or the other").about(Field::DbSeeds));
        }
        if let Some(n) = self.db.build_seeds.filter(|&n| n > 0) {
            kalah_db::builder::check_size(self.position.houses(), n).map_err(|e| Error::refused(format!("a {n}-seed database built in memory: {e}")).about(Field::DbSeeds))?;
        }
        if let RootTests::AtLeast(v) = self.tests {
            if self.want != Want::Value {
                return Err(Error::bad_input(format!("the test \"value >= {v}\" answers the value alone: ask for no moves, line or best move with it")).about(Field::Tests));
            }
        }
        Ok(())
    }
}

/// Answers positions from a directory of databases, searches and
/// retrograde analysis; see the module docs.
#[derive(Clone, Debug)]
pub struct Analyzer {
    databases: Databases,
    kept: Option<Arc<Mutex<Kept>>>,
    book: Option<Arc<Book>>,
    /// The exact answers kept, read and added to by requests that
    /// remember ([`Memory`]).
    answers: Arc<Answers>,
}

/// The databases a long-lived analyzer keeps between requests
/// ([`Analyzer::keeping`]): those built in memory, and files loaded into
/// memory for searches, the most recently used last.
#[derive(Default)]
struct Kept {
    built: Vec<Arc<Builder>>,
    loaded: Vec<(PathBuf, Arc<Database>)>,
    /// Solvers of searches done, with their transposition tables (what
    /// they proved stays true for the next position of the same rules),
    /// for the next request whose search they fit ([`KEPT_SOLVERS`]).
    solvers: Vec<Solver<Table>>,
    /// Files opened (mapped) for probes, with the size and time of change
    /// they had then: a file rebuilt since is opened anew.
    opened: Vec<(PathBuf, FileStamp, Arc<Database>)>,
}

/// A file's size and time of last change.
type FileStamp = (u64, Option<std::time::SystemTime>);

fn stamp(path: &std::path::Path) -> Result<FileStamp> {
    let meta = std::fs::metadata(path).map_err(|e| Error::from(kalah_db::DbError::io(path, e)))?;
    Ok((meta.len(), meta.modified().ok()))
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept")
            .field("built", &self.built.len())
            .field("loaded", &self.loaded.len())
            .field("opened", &self.opened.len())
            .field("solvers", &self.solvers.len())
            .finish()
    }
}

/// The entry of `kept` that `fits`, moved to the end (the most recently
/// used), or one made and added, the least recently used going first when
/// [`KEPT_DATABASES`] are kept; and whether it was kept from before.
fn keep<T: Clone>(kept: &mut Vec<T>, fits: impl Fn(&T) -> bool, make: impl FnOnce() -> Result<T>) -> Result<(T, bool)> {
    keep_made(kept, fits, || make().map(Some))?.ok_or_else(|| Error::internal("a kept item was not made"))
}

/// [`keep`], where making may come to nothing (`None`: a build stopped
/// by a cancel flag), which is not kept.
fn keep_made<T: Clone>(kept: &mut Vec<T>, fits: impl Fn(&T) -> bool, make: impl FnOnce() -> Result<Option<T>>) -> Result<Option<(T, bool)>> {
    let found = kept.iter().position(fits);
    let entry = match found {
        Some(at) => kept.remove(at),
        None => {
            let Some(made) = make()? else {
                return Ok(None);
            };
            if kept.len() >= KEPT_DATABASES {
                kept.remove(0);
            }
            made
        }
    };
    kept.push(entry.clone());
    Ok(Some((entry, found.is_some())))
}

/// How many databases of each kind a keeping analyzer holds at most; the
/// least recently used goes first.
pub const KEPT_DATABASES: usize = 4;

/// How many solvers a keeping analyzer holds at most for later requests,
/// each with its transposition table of at most [`KEPT_SOLVER_BYTES`]:
/// a new solver starts threads and a table whose pages the kernel clears
/// as they are first touched, most of the time of a small search
/// (BENCHMARKS.md, "Python: many positions").
pub const KEPT_SOLVERS: usize = 4;

/// The largest transposition table a kept solver may hold.
pub const KEPT_SOLVER_BYTES: usize = 256 << 20;

/// Whether `solver` serves a search of `h` houses under `rules` over
/// `table` with `options`, as one made for it would: the same table, the
/// same transposition table and the same keys into it (a kept solver
/// packs keys as it always did, so its entries never mix two packings).
fn fits(solver: &Solver<Table>, h: usize, rules: Rules, table: &Table, options: &SearchOptions) -> bool {
    let same_table = match (solver.tablebase(), table) {
        (Table::File(a), Table::File(b)) => Arc::ptr_eq(a, b),
        (Table::Memory(a), Table::Memory(b)) => Arc::ptr_eq(a, b),
        (Table::None(_), Table::None(_)) => true,
        _ => false,
    };
    let engine = solver.engine();
    same_table
        && engine.houses() == h
        && engine.rules() == rules
        && solver.tt_bytes() == options.table_bytes(h)
        && solver.keys() == options.keys(h)
        && solver.threads() == options.threads.max(1)
}

impl Analyzer {
    /// An analyzer whose default databases are those of `databases`. Each
    /// request opens, builds or loads the database it needs anew.
    pub fn new(databases: Databases) -> Analyzer {
        let answers = Arc::new(Answers::new(databases.dir()));
        Analyzer { databases, kept: None, book: None, answers }
    }

    /// An analyzer for many requests (a server, an engine): the databases
    /// it builds in memory, the files it loads for searches and those it
    /// maps for probes (opened anew when changed since) are kept
    /// for the next requests (at most four of each kind),
    /// shared by its clones. A kept database built in memory serves any
    /// request of its board and rules that asks no larger one.
    pub fn keeping(databases: Databases) -> Analyzer {
        let answers = Arc::new(Answers::new(databases.dir()));
        Analyzer { databases, kept: Some(Arc::default()), book: None, answers }
    }

    /// This analyzer, answering first from the opening book the library
    /// carries ([`crate::book::carried`]) where it has a position (unless a
    /// request says not to, [`Request::book`]); as it was if the library
    /// carries none. An error if the carried book is damaged.
    ///
    /// ```
    /// use kalah::{Analyzer, Databases, Position, Request, Rules, Silent, Source};
    ///
    /// let analyzer = Analyzer::new(Databases::new("no-such-directory")).with_carried_book()?;
    /// let report = analyzer.analyze(&Request::new(Position::start(6, 4)?, Rules::default()), &Silent)?;
    /// assert_eq!((report.source, report.value()), (Source::Book, Some(8))); // at once (Rawlings 2015)
    /// # Ok::<(), kalah::Error>(())
    /// ```
    pub fn with_carried_book(self) -> Result<Analyzer> {
        Ok(match crate::book::carried()? {
            Some(book) => self.with_book(book),
            None => self,
        })
    }

    /// This analyzer, answering from `book` first where it has a
    /// position (unless a request says not to, [`Request::book`]).
    pub fn with_book(self, book: Arc<Book>) -> Analyzer {
        Analyzer { book: Some(book), ..self }
    }

    /// This analyzer, logging to `log` what no request is told of its
    /// kept answers (a damaged one, a store that cannot be opened or
    /// written), besides saying it to the request's observer: a server's
    /// log.
    pub fn logging_to(self, log: crate::Log) -> Analyzer {
        self.answers.log_to(log);
        self
    }

    /// The opening book, if it has one.
    pub fn book(&self) -> Option<&Book> {
        self.book.as_deref()
    }

    /// Each request's report, in order, by `workers` threads that each
    /// take the next request as they finish one: for many small questions
    /// (a batch of positions), where each search runs on its worker's own
    /// thread (with one search thread a request) instead of being handed
    /// to a pool and back. An analyzer made by [`Analyzer::keeping`] lends
    /// each worker the solvers the earlier requests left. Err if a worker
    /// cannot start.
    pub fn analyze_each(&self, requests: &[Request], workers: usize, observer: &dyn Observer) -> Result<Vec<Result<Report>>> {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let answers: Vec<Mutex<Option<Result<Report>>>> = requests.iter().map(|_| Mutex::new(None)).collect();
        std::thread::scope(|scope| {
            let handles = (0..workers.clamp(1, MAX_THREADS).min(requests.len()))
                .map(|i| {
                    kalah_search::spawn_search_thread(scope, format!("kalah-batch-{i}"), || loop {
                        let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(request) = requests.get(at) else { break };
                        let answer = self.analyze(request, observer);
                        *answers[at].lock().unwrap_or_else(|e| e.into_inner()) = Some(answer);
                    })
                    .map_err(|e| Error::refused(format!("a worker thread of the batch cannot start: {e}")).about(Field::Threads).caused_by(e))
                })
                .collect::<Result<Vec<_>>>()?;
            for handle in handles {
                if handle.join().is_err() {
                    return Err(Error::internal("a worker of the batch failed"));
                }
            }
            Ok(())
        })?;
        Ok(answers
            .into_iter()
            .map(|a| a.into_inner().unwrap_or_else(|e| e.into_inner()).unwrap_or_else(|| Err(Error::internal("a request of the batch was not answered"))))
            .collect())
    }

    /// An oracle for many positions of `request`'s board and rules with
    /// up to `seeds` seeds in their houses (the openings of a start, its
    /// seed shifts, a book's boards), over `request`'s database, threads
    /// and table: a database that covers them all, retrograde analysis, or
    /// bounds proven within `limit` a position where the plan says so, else
    /// a search ([the plan](crate#how-a-position-is-answered)). Its set-up serves every position, so it
    /// is not held to `request`'s time limit; the position is used for its
    /// board size only.
    pub fn oracle(&self, request: &Request, seeds: u32, limit: Option<Duration>, observer: &dyn Observer) -> Result<Box<dyn Oracle>> {
        request.check()?;
        let engine = Engine::shared(request.position.houses(), request.rules);
        let setup = Setup { engine, spec: &request.db, threads: request.threads, tt_mb: request.tt_mb, budget: SetupBudget::UNLIMITED, work: SearchWork::Analysis, observer, cancel: None };
        crate::oracle::for_positions(&self.databases, &setup, seeds, limit)
    }

    /// A player of the game that starts at `request`'s position, over its
    /// database, threads and table: it answers every position of the game
    /// with its moves' values ([`Brain`]), exact where the plan can.
    pub fn player(&self, request: &Request, observer: &dyn Observer) -> Result<Box<dyn Brain>> {
        request.check()?;
        let engine = Engine::shared(request.position.houses(), request.rules);
        let setup = Setup { engine, spec: &request.db, threads: request.threads, tt_mb: request.tt_mb, budget: SetupBudget::UNLIMITED, work: SearchWork::Analysis, observer, cancel: None };
        crate::player::for_game(&self.databases, &setup, &request.position)
    }

    /// The database to build in memory for `seeds`, from those kept if
    /// this analyzer keeps them (and whether it was).
    fn memory_database(&self, setup: &Setup<'_>, seeds: u32, file: Option<&Database>) -> Result<Option<(Arc<Builder>, bool)>> {
        let Some(kept) = &self.kept else {
            return Ok(setup.memory_database(seeds, file)?.map(|b| (Arc::new(b), false)));
        };
        let Some(n) = setup.memory_seeds(seeds, file)? else {
            return Ok(None);
        };
        let (h, rules) = (setup.engine.houses(), setup.engine.rules());
        // Held while building: a second request for the same database waits for it.
        let mut kept = kept.lock().map_err(|_| Error::internal("a request failed while building a database"))?;
        let fits = |b: &Arc<Builder>| b.houses() == h && b.rules() == rules && b.indexer().max_seeds() >= n;
        // A build the cancel flag stops (or never begins) is not kept.
        keep_made(&mut kept.built, fits, || Ok(setup.build_noted(n, file.is_some())?.map(Arc::new)))
    }

    /// `db` loaded into memory for a search, from those kept if this
    /// analyzer keeps them (and whether it was).
    fn loaded(&self, db: Database, threads: usize) -> Result<(Arc<Database>, bool)> {
        let Some(kept) = &self.kept else {
            return Ok((Arc::new(for_search(db, threads)?), false));
        };
        let mut kept = kept.lock().map_err(|_| Error::internal("a request failed while loading a database"))?;
        let path = db.path().to_path_buf();
        let ((_, loaded), was_kept) = keep(&mut kept.loaded, |(p, _)| *p == path, || Ok((path.clone(), Arc::new(for_search(db, threads)?))))?;
        Ok((loaded, was_kept))
    }

    /// For a keeping analyzer, the default file that covers a position of
    /// `purpose`, when the directory's choice is one, opened once and kept
    /// mapped for the probes of the requests after (and whether it was open
    /// from before).
    fn kept_cover(&self, spec: &DbSpec, purpose: Purpose, budget: SetupBudget) -> Result<Option<(Arc<Database>, bool)>> {
        let Some(kept) = &self.kept else {
            return Ok(None);
        };
        if spec.file != crate::databases::DbFile::Default {
            return Ok(None);
        }
        let Some(path) = self.databases.choose(purpose, budget).path else {
            return Ok(None);
        };
        let covers = path.file_name().and_then(|n| Databases::name_parts(&n.to_string_lossy())).is_some_and(|(_, n, _)| n >= purpose.seeds);
        if !covers {
            return Ok(None);
        }
        let now = stamp(&path)?;
        let mut kept = kept.lock().map_err(|_| Error::internal("a request failed while opening a database"))?;
        let open = || Ok((path.clone(), now, Arc::new(Database::open_for(&path, purpose.houses, purpose.rules)?)));
        let ((_, _, db), was_kept) = keep(&mut kept.opened, |(p, s, _)| *p == path && *s == now, open)?;
        Ok(Some((db, was_kept)).filter(|(db, _)| db.header().max_seeds >= purpose.seeds))
    }

    /// A kept solver that serves this search ([`fits`]), taken out of the
    /// keeping while it searches.
    fn take_solver(&self, h: usize, rules: Rules, table: &Table, options: &SearchOptions) -> Option<Solver<Table>> {
        let mut kept = self.kept.as_ref()?.lock().ok()?;
        let at = kept.solvers.iter().position(|s| fits(s, h, rules, table, options))?;
        Some(kept.solvers.remove(at))
    }

    /// Keeps `solver` for later requests, the oldest kept going first
    /// beyond [`KEPT_SOLVERS`].
    fn keep_solver(&self, solver: Solver<Table>) {
        let Some(mut kept) = self.kept.as_ref().and_then(|k| k.lock().ok()) else {
            return;
        };
        if kept.solvers.len() >= KEPT_SOLVERS {
            kept.solvers.remove(0);
        }
        kept.solvers.push(solver);
    }

    /// The directory of default databases.
    pub fn databases(&self) -> &Databases {
        &self.databases
    }

    /// Answers `request`; `observer` hears notes and progress.
    pub fn analyze(&self, request: &Request, observer: &dyn Observer) -> Result<Report> {
        request.check()?;
        let report = match self.without_work(request, observer)? {
            Some(report) => report,
            // Stopped before its work began (the rest of a batch after
            // Ctrl-C): the bounds its seeds allow, with nothing set up,
            // and a legal move to play when a move was asked.
            None if cancelled(request) => {
                let analysis = stopped_analysis(&request.position, SearchStatus::default(), request.want.line());
                let likely_best = (request.want != Want::Value).then(|| request.position.legal_moves().first().copied()).flatten();
                Report { likely_best, ..self.report(request, analysis, Source::Search, Instant::now(), None) }
            }
            None => {
                let report = self.answer(request, observer)?;
                // Kept: an exact answer with every move's value and the line
                // (which every later question can be answered from), that
                // took work to find.
                let whole = request.want == Want::MovesAndLine && report.is_exact() && !report.analysis.pv.is_empty();
                if keeps_answers(request) && whole && matches!(report.source, Source::Search | Source::Retrograde | Source::Bounds) {
                    self.answers.keep(&report, observer);
                }
                report
            }
        };
        Ok(with_test_decided(request, report))
    }

    /// [`Analyzer::analyze`] when the plan answers at once, with no work:
    /// a finished game, the opening book, an exact answer kept, or a probe
    /// of the default database file this (keeping) analyzer holds open
    /// (steps 1 and 2 of [the plan](crate#how-a-position-is-answered)). `None` when the answer takes
    /// work (a search, retrograde analysis, a database to load or build),
    /// which `analyze` then does: a door that runs long work where it can
    /// be interrupted (Python's Ctrl-C) answers the rest in place.
    pub fn analyze_at_once(&self, request: &Request, observer: &dyn Observer) -> Result<Option<Report>> {
        request.check()?;
        Ok(self.without_work(request, observer)?.map(|report| with_test_decided(request, report)))
    }

    /// Steps 1 and 2 of the plan: the answer if it takes no work.
    fn without_work(&self, request: &Request, observer: &dyn Observer) -> Result<Option<Report>> {
        if let Some(report) = self.at_once(request).or_else(|| self.kept_answer(request, observer)) {
            return Ok(Some(report));
        }
        // Step 2 of the plan, from a file this analyzer keeps mapped.
        let (purpose, budget) = purpose_and_budget(request);
        let Some((db, kept)) = self.kept_cover(&request.db, purpose, budget)? else {
            return Ok(None);
        };
        let start = Instant::now();
        let analysis = probe_file(Engine::shared(purpose.houses, purpose.rules), &db, &request.position)?;
        let database = UsedDatabase { kept, ..UsedDatabase::file(&db) };
        Ok(Some(self.report(request, analysis.into(), Source::Database, start, Some(database))))
    }

    /// Step 1 of the plan ([`crate::plan::at_once`]): a finished game,
    /// then the opening book, unless the request passes the book over.
    fn at_once(&self, request: &Request) -> Option<Report> {
        let book = self.book.as_deref().filter(|_| request.book);
        crate::plan::at_once(book, &request.position, request.rules, request.want)
    }

    /// Step 1 of the plan, last: the exact answer an earlier request kept,
    /// if `request` reads them ([`Memory::Answers`]), with as much as it
    /// asks (a kept answer has every move's value and the line).
    fn kept_answer(&self, request: &Request, observer: &dyn Observer) -> Option<Report> {
        if !keeps_answers(request) {
            return None;
        }
        let mut report = self.answers.get(&request.position, request.rules, observer)?;
        // A best move is taken before the moves are cleared (the line's first).
        if request.want == Want::BestMove {
            report.best_found = report.best_move();
        }
        let a = &mut report.analysis;
        if !request.want.moves() {
            a.moves.clear();
        }
        if !request.want.line() {
            a.pv.clear();
            a.end = LineEnd::GameOver;
        }
        Some(report)
    }

    /// Opens the folder's store of kept answers now, as the first request
    /// that remembers would: whether it could be, and if not, why is said
    /// to `observer` (a door that keeps answers says so as it starts).
    pub fn open_kept_answers(&self, observer: &dyn Observer) -> bool {
        self.answers.open(observer)
    }

    /// Whether the exact answers kept in the folder (or in memory) answer
    /// `request` at once, with no search.
    pub fn has_kept_answer(&self, request: &Request) -> bool {
        keeps_answers(request) && self.answers.get(&request.position, request.rules, &crate::progress::Silent).is_some()
    }

    /// The report of `request` answered by `analysis` from `source`, in the
    /// time since `start`, with no search.
    fn report(&self, request: &Request, analysis: BoundedAnalysis, source: Source, start: Instant, database: Option<UsedDatabase>) -> Report {
        Report {
            position: request.position,
            rules: request.rules,
            analysis,
            source,
            nodes: 0,
            seconds: start.elapsed().as_secs_f64(),
            database,
            best_found: None,
            journal: None,
            test: None,
            likely_best: None,
        }
    }

    /// Keeps `built`, a database built in memory of the size chosen by
    /// default, as a file of the folder when the request asks to remember
    /// (and no one else holds it), saying where in `used`.
    fn remember_built(&self, request: &Request, built: &mut Arc<Builder>, used: Option<&mut UsedDatabase>, observer: &dyn Observer) {
        if request.memory != Memory::All || request.db.build_seeds.is_some() {
            return;
        }
        if let (Some(builder), Some(used)) = (Arc::get_mut(built), used) {
            used.saved_as = self.databases.keep_built(builder, observer).map(|p| p.display().to_string());
        }
    }

    /// The rest of the plan ([`crate::plan`]) for a request that
    /// [`Analyzer::without_work`] did not answer.
    fn answer(&self, request: &Request, observer: &dyn Observer) -> Result<Report> {
        let position = &request.position;
        let h = position.houses();
        let rules = request.rules;
        let engine = Engine::shared(h, rules);
        let seeds = position.seeds_in_houses();
        let (purpose, budget) = purpose_and_budget(request);
        let spec = plan::within_retrograde(&request.db, h, seeds, rules, request.retrograde_boards);
        let db = self.databases.open_for(&spec, purpose, budget, observer)?;
        let work = if request.want.moves() { SearchWork::Analysis } else { SearchWork::Value };
        let setup = Setup { engine, spec: &spec, threads: request.threads, tt_mb: request.tt_mb, budget, work, observer, cancel: request.cancel.as_deref() };
        let start = Instant::now();
        let mut built_kept = false;
        let step = plan::step(&setup, seeds, db, |file| {
            Ok(self.memory_database(&setup, seeds, file)?.map(|(b, kept)| {
                built_kept = kept;
                b
            }))
        })?;
        let built = |b: &Builder| UsedDatabase { path: None, max_seeds: b.indexer().max_seeds(), build_seconds: Some(start.elapsed().as_secs_f64()), load_seconds: None, kept: built_kept, saved_as: None };
        let (memory, file) = match step {
            Step::Probe(Table::File(db)) => {
                let analysis = probe_file(engine, &db, position)?;
                return Ok(self.report(request, analysis.into(), Source::Database, start, Some(UsedDatabase::file(&db))));
            }
            Step::Probe(table) => {
                // The database built in memory for the position covers it
                // (its seconds are its building's, taken before the probes).
                let mut database = if let Table::Memory(b) = &table { Some(built(b)) } else { None };
                let analysis = analyze_from_table(engine, &table, position)?;
                if let Table::Memory(mut b) = table {
                    self.remember_built(request, &mut b, database.as_mut(), observer);
                }
                return Ok(self.report(request, analysis.into(), Source::Database, start, database));
            }
            Step::Bounds(file) => return bounds(&setup, file, request, start, &self.databases),
            Step::Retrograde { unused } => {
                // Retrograde analysis of every board up to the position's seeds
                // needs no database: say so of a file that was given or found.
                if let Some(d) = &unused {
                    observer.note(&format!(
                        "{} (up to {} seeds) is not used: retrograde analysis of every board up to the position's {seeds} seeds fits in memory",
                        d.path().display(),
                        d.header().max_seeds
                    ));
                }
                let Some(builder) = setup.retrograde(seeds)? else {
                    // Stopped by the cancel flag: bounds, which it stops at once.
                    return bounds(&setup, None, request, start, &self.databases);
                };
                let analysis = analyze_from_table(engine, &builder, position)?;
                return Ok(self.report(request, analysis.into(), Source::Retrograde, start, None));
            }
            Step::Search { memory, file } => (memory, file),
        };
        let database = match (&memory, &file) {
            (Some(b), _) => Some(built(b)),
            (None, Some(d)) => Some(UsedDatabase::file(d)),
            (None, None) => None,
        };
        self.answer_by_search(request, &setup, memory, file, database, start)
    }

    /// Step 5 of the plan: a search of the request's position over the
    /// database built in memory, else the file (loaded as this analyzer
    /// keeps files), else none; `database` says which, `start` when the
    /// request began.
    fn answer_by_search(&self, request: &Request, setup: &Setup<'_>, mut memory: Option<Arc<Builder>>, file: Option<Database>, mut database: Option<UsedDatabase>, start: Instant) -> Result<Report> {
        let (position, observer) = (&request.position, setup.observer);
        let (h, rules, seeds) = (position.houses(), request.rules, position.seeds_in_houses());

        if let Some(b) = memory.as_mut() {
            self.remember_built(request, b, database.as_mut(), observer);
        }
        let db_seeds = database.as_ref().map(|d| d.max_seeds);
        let options = plan::search_options(setup, seeds, db_seeds, file.as_ref())?;
        let table_note = match (&memory, &file) {
            (Some(b), _) => format!(" and {}", Table::Memory(b.clone()).describe()),
            (None, Some(d)) => format!(" and {}", plan::describe_file(d)),
            (None, None) => ", no endgame database".to_string(),
        };
        observer.note(&format!(
            "searching with {} thread{}, {} transposition table{table_note}",
            request.threads,
            if request.threads == 1 { "" } else { "s" },
            a_size(options.table_bytes(h) as u64),
        ));
        let journaling = open_journal(request, db_seeds, &self.databases, observer)?;
        let journaling = journaling.as_ref();
        // A search without a limit that is likely long says so, unless the
        // journal (or the search memory) already has its value.
        let known = journaling.and_then(|j| j.journal().bounds(position.mover_board())).is_some_and(|(l, u)| l == u);
        if request.time_limit.is_none() && !known {
            if let Some(note) = crate::cost::likely_cost(h, seeds, db_seeds, setup.work, rules.capture, request.threads) {
                observer.note(&note);
            }
        }
        let mut load_seconds = None;
        let mut loaded_kept = false;
        let table = match (memory, file) {
            (Some(b), _) => Table::Memory(b),
            (None, Some(db)) => {
                let loading = Instant::now();
                let loaded;
                (loaded, loaded_kept) = self.loaded(db, request.threads)?;
                load_seconds = Some(loading.elapsed().as_secs_f64());
                Table::File(loaded)
            }
            (None, None) => Table::none(h, rules),
        };
        // A keeping analyzer answers a plain search (no journal, no memory,
        // no tests chosen) with a solver kept from an earlier request if
        // one fits, and keeps it after.
        let poolable = self.kept.is_some() && journaling.is_none() && request.tests == RootTests::Deepening && options.table_bytes(h) <= KEPT_SOLVER_BYTES;
        let kept_solver = poolable.then(|| self.take_solver(h, rules, &table, &options)).flatten();
        let mut solver = match kept_solver {
            Some(solver) => solver,
            None => Solver::new(h, rules, table, options)?,
        };
        let searched = search(&mut solver, request, start, observer, journaling);
        if poolable {
            solver.clear_cancel();
            self.keep_solver(solver);
        }
        let searched = searched?;
        let (analysis, nodes, best, journal, test, likely_best) = searched;
        let mut report = Report { nodes, best_found: best, journal, test, likely_best, ..self.report(request, analysis, Source::Search, start, database) };
        if let Some(d) = report.database.as_mut().filter(|_| load_seconds.is_some()) {
            d.load_seconds = load_seconds;
            d.kept = loaded_kept;
        }
        Ok(report)
    }
}

/// Every move's value of `position` by probes of the file `db`: values
/// that contradict each other are said of the file (a damaged or forged
/// database), with the check that finds every such board.
fn probe_file(engine: &Engine, db: &Database, position: &Position) -> Result<kalah_search::Analysis> {
    analyze_from_table(engine, db, position).map_err(|e| match e {
        kalah_search::SearchError::Inconsistent(why) => {
            kalah_db::DbError::corrupt(db.path(), format!("inconsistent database: {why}; a deep verification of the file finds every such board")).into()
        }
        e => e.into(),
    })
}

/// `report` with the test `request` asks answered from it, where its
/// bounds decide it (a probe, a value known before, bounds that settle it).
fn with_test_decided(request: &Request, mut report: Report) -> Report {
    if let RootTests::AtLeast(at_least) = request.tests {
        let Bounded { lower, upper } = report.analysis.value;
        report.test = report.test.or(if lower >= at_least {
            Some(TestOutcome { at_least, holds: true, bound: lower })
        } else if upper < at_least {
            Some(TestOutcome { at_least, holds: false, bound: upper })
        } else {
            None
        });
    }
    report
}

/// What a request's position needs of a database, and what setting one
/// up may cost ([`SetupBudget::within`]).
fn purpose_and_budget(request: &Request) -> (Purpose, SetupBudget) {
    let gap = if request.want.moves() { ANALYSIS_LOAD_GAP } else { VALUE_LOAD_GAP };
    let purpose = Purpose { houses: request.position.houses(), rules: request.rules, seeds: request.position.seeds_in_houses(), gap };
    (purpose, SetupBudget::within(request.setup_time.or(request.time_limit), request.threads))
}

/// The deadline of a search: its time limit counted from `start` (so that
/// setting up, the database loaded or built, is inside it, as for a proof
/// of bounds), or with only a way to cancel it, as far off as a deadline
/// may be.
fn deadline(request: &Request, start: Instant) -> Option<Instant> {
    match (request.time_limit, &request.cancel) {
        (Some(limit), _) => Some(start + limit),
        (None, Some(_)) => Some(Instant::now() + Duration::from_secs_f64(MAX_TIME_LIMIT)),
        (None, None) => None,
    }
}

/// Whether `request` reads and adds to the exact answers kept
/// ([`Memory::Answers`]): not when it says how to answer (a database
/// file, none, or one built in memory of a size it chose; a journal of
/// its own; a test), which a kept answer would pass over.
fn keeps_answers(request: &Request) -> bool {
    request.memory != Memory::Off && request.db == DbSpec::default() && request.journal.is_none() && !matches!(request.tests, RootTests::AtLeast(_))
}

/// The journal `request` asks for, opened for a search of its position
/// over a database of `db_seeds` (or none); else the search memory of
/// `databases` if it asks for that and it can be had (else a note).
fn open_journal(request: &Request, db_seeds: Option<u32>, databases: &Databases, observer: &dyn Observer) -> Result<Option<Journaling>> {
    if let Some(spec) = &request.journal {
        let identity = Identity::search(request.rules, request.position, db_seeds);
        return Journaling::open(spec, identity).map(Some);
    }
    if request.memory != Memory::All {
        return Ok(None);
    }
    let houses = request.position.houses();
    let spec = JournalSpec::new(databases.memory_dir(houses, request.rules));
    match Journaling::open(&spec, Identity::memory(request.rules, houses)) {
        Ok(journaling) => Ok(Some(journaling)),
        Err(e) => {
            let fix = if e.kind() == crate::ErrorKind::Corrupt { " (delete it to start a new memory)" } else { "" };
            observer.note(&format!("searching without the search memory: {e}{fix}"));
            Ok(None)
        }
    }
}

/// Runs `job` under the journal if there is one (written while it runs,
/// with a snapshot of `solver`'s table beside it), else just runs it.
fn journaled<R, T: Tablebase>(journaling: Option<&Journaling>, solver: &Solver<T>, observer: &dyn Observer, job: impl FnOnce() -> R) -> Result<(R, Option<JournalReport>)> {
    let table = |f: &mut dyn FnMut(kalah_core::Board, kalah_search::tt::Bounds)| solver.for_each_table_entry(f);
    match journaling {
        Some(j) => j.run(&|| solver.nodes(), Some(&table), observer, job).map(|(r, report)| (r, Some(report))),
        None => Ok((job(), None)),
    }
}

/// Gives `solver` the journal's bounds and the table snapshot an earlier
/// run of the search left beside it, unless the journal holds the value
/// of the position (proven again at once from its moves' bounds, which it
/// also holds: restoring the table would take longer).
fn resume<T: Tablebase>(solver: &mut Solver<T>, journaling: &Journaling, request: &Request, observer: &dyn Observer) {
    solver.journal_with(journaling.journal());
    let known = journaling.journal().bounds(request.position.mover_board()).is_some_and(|(l, u)| l == u);
    if known && request.tests == RootTests::Deepening {
        return;
    }
    if let Some(n) = journaling.restore_table(&mut |board, bounds| {
        solver.restore_table_entry(board, bounds);
    }, observer) {
        observer.note(&format!("{n} entries of the transposition table restored from the snapshot beside the journal"));
    }
}

type Searched = (BoundedAnalysis, u64, Option<usize>, Option<JournalReport>, Option<TestOutcome>, Option<usize>);

/// The search `request` asks of `solver` (made for it, or kept from an
/// earlier request: its nodes are counted from now).
fn search<T: Tablebase>(solver: &mut Solver<T>, request: &Request, start: Instant, observer: &dyn Observer, journaling: Option<&Journaling>) -> Result<Searched> {
    let nodes_before = solver.nodes();
    if let Some(flag) = &request.cancel {
        solver.cancel_with(flag.clone());
    }
    if let Some(j) = journaling {
        resume(solver, j, request, observer);
    }
    let position = &request.position;
    if let RootTests::FirstGuess(guess) = request.tests {
        solver.first_guess(position, guess)?;
    }
    solver.first_line(position, &request.first)?;
    if let RootTests::AtLeast(at_least) = request.tests {
        return single_test(solver, request, at_least, start, observer, journaling);
    }
    let solver = &*solver;
    let status = || SearchStatus::of(position, solver.progress());
    let (result, journal) = journaled(journaling, solver, observer, || {
        watched_search(observer, "searching", &status, || {
            let (moves, line) = (request.want.moves(), request.want.line());
            let analysis = match (request.time_limit, &request.cancel) {
                // What can be proven in time; bounds where the search did not finish.
                (Some(limit), _) => solver.analyze_within(position, start + limit, moves, line)?,
                // Exact unless stopped; then the bounds proven on the way.
                (None, Some(flag)) => match solver.analyze_unless(position, moves, line, Some(flag))? {
                    Some(analysis) => analysis.into(),
                    None => stopped_analysis(position, status(), line),
                },
                (None, None) => solver.analyze(position, moves, line)?.into(),
            };
            let v = analysis.value;
            let best = if request.want.best_alone() && v.is_exact() {
                solver.best_move(position, v.lower)
            } else {
                None
            };
            // A damaged database is reported, not a move it may have misled.
            match solver.tablebase().failure() {
                Some(why) => Err(kalah_search::SearchError::Tablebase(why)),
                None => Ok((analysis, best)),
            }
        })
    })?;
    let (analysis, best) = result?;
    // A best move asked and none proven in time: the search's first choice,
    // so that a bot under a time limit always has a legal move.
    let board = position.mover_board();
    let likely_best = (request.want.best_alone() && best.is_none() && !solver.engine().is_over(board))
        .then(|| solver.moves_hint_first(board).first().map(|h| h + 1))
        .flatten();
    Ok((analysis, solver.nodes() - nodes_before, best, journal, None, likely_best))
}

/// Whether `request`'s cancel flag is raised.
fn cancelled(request: &Request) -> bool {
    request.cancel.as_ref().is_some_and(|flag| flag.load(std::sync::atomic::Ordering::Relaxed))
}

/// What a search of `position` stopped by its cancel flag answers: the
/// bounds it proved on the position's value (`status`), within those its
/// seeds allow; no move's, and a line (if `line` was asked) cut short.
fn stopped_analysis(position: &Position, status: SearchStatus, line: bool) -> BoundedAnalysis {
    let (base, seeds) = (position.store_difference(), position.seeds_in_houses() as i32);
    let value = Bounded { lower: status.lower.unwrap_or(base - seeds).max(base - seeds), upper: status.upper.unwrap_or(base + seeds).min(base + seeds) };
    BoundedAnalysis { value, moves: Vec::new(), pv: Vec::new(), end: if line { LineEnd::Cut } else { LineEnd::GameOver } }
}

/// The one test "value >= at_least" of the request's position
/// ([`RootTests::AtLeast`]): the value's bounds are those the test proved
/// (or, stopped first, none), within those the seeds allow.
fn single_test<T: Tablebase>(solver: &Solver<T>, request: &Request, at_least: i32, start: Instant, observer: &dyn Observer, journaling: Option<&Journaling>) -> Result<Searched> {
    let position = &request.position;
    let status = || SearchStatus::of(position, solver.progress());
    let (result, journal) = journaled(journaling, solver, observer, || {
        watched_search(observer, "testing", &status, || solver.test(position, at_least, deadline(request, start)))
    })?;
    let test = result?;
    let base = position.store_difference();
    let seeds = position.seeds_in_houses() as i32;
    let (mut lower, mut upper) = (base - seeds, base + seeds);
    if let Some(t) = &test {
        (lower, upper) = t.bounds(lower, upper);
    }
    let analysis = BoundedAnalysis { value: Bounded { lower, upper }, moves: Vec::new(), pv: Vec::new(), end: LineEnd::GameOver };
    Ok((analysis, solver.nodes(), None, journal, test, None))
}

/// Clockwise, too many seeds for retrograde analysis: bounds on the value
/// (and on every move's, and a line of best play, as asked) proven within
/// the time limit by a [`Setup::bound_solver`].
fn bounds(setup: &Setup<'_>, file: Option<Database>, request: &Request, start: Instant, databases: &Databases) -> Result<Report> {
    let limit = request.time_limit.unwrap_or(BOUNDS_TIME);
    let position = &request.position;
    let seeds = position.seeds_in_houses();
    let (mut solver, database) = setup.bound_solver(seeds, file, limit)?;
    if let Some(flag) = &request.cancel {
        solver.cancel_with(flag.clone());
    }
    let journaling = open_journal(request, database.as_ref().map(|d| d.max_seeds), databases, setup.observer)?;
    if let Some(j) = &journaling {
        solver.journal_with(j.journal());
    }
    let database = database.map(|d| UsedDatabase { build_seconds: d.build_seconds.map(|_| start.elapsed().as_secs_f64()), ..d });
    // The time limit counts from the request, so that setting up (the
    // database built, the table allocated) is inside it, not after it.
    let deadline = start + limit;
    let status = || SearchStatus::of(position, solver.progress());
    let job = || {
        watched_search(setup.observer, "proving bounds", &status, || {
            let analysis = solver.analyze_within(position, deadline, request.want.moves(), request.want.line())?;
            let v = analysis.value;
            let best = if request.want.best_alone() && v.is_exact() && !setup.engine.is_over(position.mover_board()) {
                solver.best_move_within(position, v.lower, deadline)?
            } else {
                None
            };
            Ok::<_, kalah_search::SearchError>((analysis, best))
        })
    };
    // No table snapshot: proofs of bounds keep guesses the snapshot leaves out.
    let (result, journal) = match journaling.as_ref() {
        Some(j) => j.run(&|| solver.nodes(), None, setup.observer, job).map(|(r, report)| (r, Some(report)))?,
        None => (job(), None),
    };
    let (analysis, best) = result?;
    Ok(Report {
        position: *position,
        rules: request.rules,
        analysis,
        source: Source::Bounds,
        nodes: solver.nodes(),
        seconds: start.elapsed().as_secs_f64(),
        database,
        best_found: best,
        journal,
        test: None,
        likely_best: None,
    })
}

/// Every move's value and a line of best play of `position` read from the
/// database file `db`, refused unless the position is of the database's
/// board size and the database covers it (what `kalah db probe` answers).
pub fn probe(db: &Database, position: &Position) -> Result<Report> {
    let start = Instant::now();
    let (h, rules) = (db.header().houses, db.header().rules);
    if position.houses() != h {
        return Err(Error::bad_input(format!("the position has {} houses a side, the database {h}", position.houses())));
    }
    let seeds = position.seeds_in_houses();
    let max = db.header().max_seeds;
    // Every move leads to at most as many seeds, so the table covers them too.
    if seeds > max {
        return Err(Error::bad_input(format!(
            "the position has {seeds} seeds in its houses; the database covers at most {max} (an analyzer searches beyond)"
        )));
    }
    if !db.is_exact() {
        return Err(Error::refused(format!(
            "{} holds a window of values ({} bits a board) and bounds for the values outside it: a probe reads exact files; `kalah query --db {}` searches over it",
            db.path().display(),
            db.header().encoding.bits(0),
            db.path().display()
        )));
    }
    // Check the block of the position itself before reporting anything.
    db.probe_board(position.mover_board())?;
    let analysis = analyze_from_table(Engine::shared(h, rules), db, position)?;
    Ok(Report {
        position: *position,
        rules,
        analysis: analysis.into(),
        source: Source::Database,
        nodes: 0,
        seconds: start.elapsed().as_secs_f64(),
        database: Some(UsedDatabase::file(db)),
        best_found: None,
        journal: None,
        test: None,
        likely_best: None,
    })
}
