//! One analyzer answers any position: it takes the steps of the one plan
//! ([the crate's docs](crate#how-a-position-is-answered): at once, a
//! probe, bounds, retrograde analysis, a search) by the rules, the
//! position and the databases at hand, and returns a [`Report`]. By
//! default a search over no database file first builds one in memory when
//! the position has 46 seeds or more: of 30 seeds fewer than the position
//! has (two more for every move's value), and at most 24 (Kalah(6,4), 48
//! seeds: 18 for its value alone, 20 for every move's).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kalah_core::Engine;
use kalah_db::{human_bytes, Builder, Database};
use kalah_search::{analyze_from_table, BoundedAnalysis, LineEnd};

use crate::answer::kept::{Keeping, KEPT_SOLVER_BYTES};
use crate::answer::oracle::Oracle;
use crate::answer::plan::{self, Plan, Step, Table};
use crate::answer::player::Brain;
use crate::answer::request::{cancelled, keeps_answers, purpose_and_budget, Memory, Request, RootTests, Want};
use crate::answer::search::{bounds, open_journal, probe_file, search, stopped_analysis, with_test_decided};
use crate::answer::setup::{solver_over, Setup};
use crate::answer::sizes::SearchWork;
use crate::databases::{for_search_held, for_search_up_to, Databases, DbFile, DbHold, DbSpec, Purpose, SetupBudget};
use crate::error::{Error, Field, Result};
use crate::limits::{MemoryShare, MAX_THREADS};
use crate::memory::answers::Answers;
use crate::memory::book::Book;
use crate::progress::{Observer, SearchStatus};
use crate::report::{Report, Source, UsedDatabase};
use crate::text::a_size;

/// Answers positions from a directory of databases, searches and
/// retrograde analysis; see the module docs.
#[derive(Clone, Debug)]
pub struct Analyzer {
    databases: Databases,
    /// What a keeping analyzer keeps between requests.
    kept: Option<Arc<Keeping>>,
    book: Option<Arc<Book>>,
    /// The exact answers kept, read and added to by requests that
    /// remember ([`Memory`]).
    answers: Arc<Answers>,
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
        Ok(match crate::memory::book::carried()? {
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
    pub fn logging_to(self, log: crate::progress::Log) -> Analyzer {
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
            .map(|a| {
                a.into_inner().unwrap_or_else(|e| e.into_inner()).unwrap_or_else(|| Err(Error::internal("a request of the batch was not answered")))
            })
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
        let setup = Setup::beyond_one(request, observer);
        crate::answer::oracle::for_positions(&self.databases, &setup, seeds, limit)
    }

    /// A player of the game that starts at `request`'s position, over its
    /// database, threads and table: it answers every position of the game
    /// with its moves' values ([`Brain`]), exact where the plan can.
    pub fn player(&self, request: &Request, observer: &dyn Observer) -> Result<Box<dyn Brain>> {
        request.check()?;
        let setup = Setup::beyond_one(request, observer);
        crate::answer::player::for_game(&self.databases, &setup, &request.position)
    }

    /// The database of `n` seeds built in memory (beside a database
    /// `file`, if one is used), from those kept if this analyzer keeps
    /// them (and whether it was).
    fn memory_database(&self, setup: &Setup<'_>, n: u32, file: bool) -> Result<Option<(Arc<Builder>, bool)>> {
        match &self.kept {
            Some(kept) => kept.built(setup, n, file),
            None => Ok(setup.build_noted(n, file)?.map(|b| (Arc::new(b), false))),
        }
    }

    /// `db` loaded into memory for a search (copied if it is at most
    /// `copy_bytes`, else mapped; as `hold` says where it says copied or
    /// mapped: a copy asked for is the request's own, not kept), from
    /// those kept if this analyzer keeps them (and whether it was). A file to be mapped settles `share` (the
    /// request's share of a door's memory) on the search's `table` bytes
    /// and comes in only where the share then admits it beside what is
    /// kept ([`MemoryShare::admit_file`]); an analyzer that keeps nothing
    /// takes it within the share itself, beside the table. `None` where
    /// it does not fit.
    fn loaded(
        &self,
        db: Database,
        copy_bytes: u64,
        hold: DbHold,
        threads: usize,
        share: Option<&dyn MemoryShare>,
        table: u64,
    ) -> Result<Option<(Arc<Database>, bool)>> {
        let copy_bytes = match hold {
            DbHold::Auto => copy_bytes,
            DbHold::Mapped => 0,
            DbHold::Copied => return Ok(Some((Arc::new(for_search_held(db, hold, u64::MAX, threads)?), false))),
        };
        let mapped = share.filter(|_| db.file_bytes() > copy_bytes);
        match &self.kept {
            Some(kept) => {
                if let Some(share) = mapped {
                    share.settle(table);
                }
                kept.loaded(db, copy_bytes, threads, mapped)
            }
            None => {
                if let Some(share) = mapped {
                    let needed = table.saturating_add(db.file_bytes());
                    if needed > share.bytes() {
                        return Ok(None);
                    }
                    share.settle(needed);
                }
                Ok(Some((Arc::new(for_search_up_to(db, copy_bytes, threads)?), false)))
            }
        }
    }

    /// The memory this (keeping) analyzer holds for later requests:
    /// databases built in memory, files copied into memory, files mapped
    /// (each whole: a search's reads make their pages the process's), and
    /// the tables of the solvers it keeps; and the files it let go of that
    /// searches still map, until they end. 0 for one that keeps nothing.
    pub fn kept_bytes(&self) -> u64 {
        self.kept.as_ref().map_or(0, |k| k.bytes())
    }

    /// Lets go of what this analyzer keeps for later requests (the solvers
    /// first, then the least recently used databases) until it holds at
    /// most `bytes` ([`Analyzer::kept_bytes`]): a door's way to keep within
    /// its memory. A database in memory that a search under way uses is
    /// freed when it ends; a mapped file a search uses stays kept.
    pub fn release_kept(&self, bytes: u64) {
        if let Some(kept) = &self.kept {
            kept.release_beyond(bytes);
        }
    }

    /// For a keeping analyzer, the default file that covers a position of
    /// `purpose` with exact values, kept open ([`Keeping::cover`]).
    fn kept_cover(&self, spec: &DbSpec, purpose: Purpose, budget: SetupBudget) -> Result<Option<(Arc<Database>, bool)>> {
        match &self.kept {
            Some(kept) if spec.file == DbFile::Default => kept.cover(&self.databases, purpose, budget),
            _ => Ok(None),
        }
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
                let report = self.with_proven(request, self.answer(request, observer)?);
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

    /// Step 1 of the plan ([`crate::answer::plan::at_once`]): a finished game,
    /// then the opening book, unless the request passes the book over, and
    /// what this project has proven, unless the request says how to search.
    fn at_once(&self, request: &Request) -> Option<Report> {
        let book = self.book.as_deref().filter(|_| request.book);
        crate::answer::plan::at_once(book, self.ships_proven(request), &request.position, request.rules, request.want)
    }

    /// Whether `request` is answered from what this project has proven
    /// and ships ([`crate::memory::proven`]): by an analyzer that answers
    /// from what the library ships (it has a book), for a request that
    /// does not pass the book over nor say how to search (a database of its
    /// own, a journal, tests of its own).
    fn ships_proven(&self, request: &Request) -> bool {
        self.book.is_some() && request.book && request.db == DbSpec::default() && request.journal.is_none() && request.tests == RootTests::Deepening
    }

    /// `report` narrowed by what this project has proven and ships of its
    /// position ([`crate::memory::proven`]), for an analyzer that answers
    /// from what the library ships (it has a book, and the request does
    /// not pass it over): its source [`Source::Proven`] when that changed
    /// anything.
    fn with_proven(&self, request: &Request, mut report: Report) -> Report {
        if !self.ships_proven(request) {
            return report;
        }
        if let Some(proven) = crate::memory::proven::lookup(&request.position, request.rules) {
            if proven.narrow(&mut report.analysis) {
                report.source = Source::Proven;
            }
        }
        report
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

    /// The rest of the plan ([`crate::answer::plan`]) for a request that
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
        let setup =
            Setup { engine, spec: &spec, threads: request.threads, tt_mb: request.tt_mb, budget, work, observer, cancel: request.cancel.as_deref() };
        let start = Instant::now();
        let mut built_kept = false;
        let step = match plan::step(&setup, seeds, db)? {
            Plan::Take(step) => step,
            Plan::Build { seeds: n, file } => {
                let memory = self.memory_database(&setup, n, file.is_some())?;
                built_kept = memory.as_ref().is_some_and(|&(_, kept)| kept);
                plan::built(seeds, memory.map(|(b, _)| b), file)
            }
        };
        let built = |b: &Builder| UsedDatabase {
            path: None,
            max_seeds: b.indexer().max_seeds(),
            build_seconds: Some(start.elapsed().as_secs_f64()),
            load_seconds: None,
            copied: false,
            kept: built_kept,
            saved_as: None,
        };
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
    fn answer_by_search(
        &self,
        request: &Request,
        setup: &Setup<'_>,
        mut memory: Option<Arc<Builder>>,
        file: Option<Database>,
        mut database: Option<UsedDatabase>,
        start: Instant,
    ) -> Result<Report> {
        let (position, observer) = (&request.position, setup.observer);
        let (h, rules, seeds) = (position.houses(), request.rules, position.seeds_in_houses());

        if let Some(b) = memory.as_mut() {
            self.remember_built(request, b, database.as_mut(), observer);
        }
        let options = setup.checked_search_options(seeds, database.as_ref().map(|d| d.max_seeds), file.as_ref())?;
        // The set-up is decided: the share of a door's memory settles on
        // what it takes (a file to be mapped settles in `loaded`), giving
        // the rest back for the searches beside it.
        if let Some(share) = &request.memory_share {
            let table = options.table_bytes(h) as u64;
            match (&memory, &file) {
                (Some(b), _) => share.settle(table.saturating_add(b.indexer().len())),
                (None, Some(db)) if request.db.hold == DbHold::Copied || db.file_bytes() <= setup.budget.copy_bytes => {
                    share.settle(table.saturating_add(db.file_bytes()))
                }
                (None, Some(_)) => {}
                (None, None) => share.settle(table),
            }
        }
        let (mut load_seconds, mut copied) = (None, false);
        let mut loaded_kept = false;
        let table = match (memory, file) {
            (Some(b), _) => Table::Memory(b),
            (None, Some(db)) => {
                let (loading, bytes) = (Instant::now(), db.file_bytes());
                let table = options.table_bytes(h) as u64;
                match self.loaded(db, setup.budget.copy_bytes, request.db.hold, request.threads, request.memory_share.as_deref(), table)? {
                    Some((loaded, kept)) => {
                        (load_seconds, loaded_kept, copied) = (Some(loading.elapsed().as_secs_f64()), kept, loaded.is_loaded());
                        Table::File(loaded)
                    }
                    None => {
                        observer.note(&format!(
                            "the {} database does not fit in the memory this search may take beside what is held now: searched without it",
                            human_bytes(bytes)
                        ));
                        // (The table stays the one settled on.)
                        database = None;
                        Table::none(h, rules)
                    }
                }
            }
            (None, None) => Table::none(h, rules),
        };
        let db_seeds = database.as_ref().map(|d| d.max_seeds);
        let table_note = match &table {
            Table::None(_) => ", no endgame database".to_string(),
            table => format!(" and {}", table.describe()),
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
            if let Some(note) = crate::answer::cost::likely_cost(h, seeds, db_seeds, setup.work, rules.capture, request.threads) {
                observer.note(&note);
            }
        }
        // A plain search (no journal, no memory, no tests chosen) goes on
        // from the solver its request holds, if it holds one that fits
        // (and leaves it there after); else a keeping analyzer answers it
        // with a solver kept from an earlier request if one fits, and keeps
        // it after.
        let plain = journaling.is_none() && request.tests == RootTests::Deepening;
        let held = request.held.as_ref().filter(|_| plain);
        let poolable = held.is_none() && self.kept.is_some() && plain && options.table_bytes(h) <= KEPT_SOLVER_BYTES;
        let reused = match held {
            Some(held) => held.take(h, rules, &table, &options),
            None => poolable.then(|| self.kept.as_ref()?.take_solver(h, rules, &table, &options)).flatten(),
        };
        let mut solver = match reused {
            Some(solver) => solver,
            None => solver_over(setup.engine, table, options)?,
        };
        let searched = search(&mut solver, request, start, observer, journaling);
        solver.clear_cancel();
        match (held, &self.kept) {
            (Some(held), _) => held.put(solver),
            (None, Some(kept)) if poolable => kept.keep_solver(solver),
            _ => {}
        }
        let searched = searched?;
        let (analysis, nodes, best, journal, test, likely_best) = searched;
        let mut report =
            Report { nodes, best_found: best, journal, test, likely_best, ..self.report(request, analysis, Source::Search, start, database) };
        if let Some(d) = report.database.as_mut().filter(|_| load_seconds.is_some()) {
            d.load_seconds = load_seconds;
            d.kept = loaded_kept;
            d.copied = copied;
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use kalah_core::{Capture, Position, Rules};
    use kalah_search::{Bounded, TestOutcome};

    use super::*;
    use crate::progress::Silent;

    fn empty() -> Rules {
        Rules { capture: Capture::Empty, ..Rules::default() }
    }

    /// What takes no work is answered at once: a finished game; a probe of
    /// the folder's covering file by a keeping analyzer (open from the
    /// second request on); not a search, and not a probe by an analyzer
    /// that keeps nothing open.
    #[test]
    fn what_takes_no_work_is_answered_at_once_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let databases = Databases::new(dir.path());
        kalah_db::build_file(&databases.path_for(4, 8, empty()), 4, empty(), 8, &kalah_db::Quiet).unwrap();
        let (keeping, fresh) = (Analyzer::keeping(databases.clone()), Analyzer::new(databases));
        let ask = |position: &str| Request { threads: 1, book: false, ..Request::new(position.parse().unwrap(), empty()) };
        let over = keeping.analyze_at_once(&ask("0,0,0,0,5,2,1,0,0,3 S"), &Silent).unwrap().expect("over");
        assert_eq!((over.source, over.database), (Source::GameOver, None));
        let covered = ask("1,0,2,1,0,1,0,3,0,2 S");
        let first = keeping.analyze_at_once(&covered, &Silent).unwrap().expect("covered");
        assert_eq!((first.source, first.database.as_ref().map(|d| (d.max_seeds, d.kept))), (Source::Database, Some((8, false))));
        let again = keeping.analyze_at_once(&covered, &Silent).unwrap().expect("covered");
        assert_eq!(again.database.map(|d| d.kept), Some(true));
        assert_eq!(again.analysis, first.analysis);
        assert!(fresh.analyze_at_once(&covered, &Silent).unwrap().is_none(), "nothing held open");
        assert_eq!(fresh.analyze(&covered, &Silent).unwrap().analysis, first.analysis, "the probe, with work");
        assert!(keeping.analyze_at_once(&ask("3,3,3,3,0,3,3,3,3,0 S"), &Silent).unwrap().is_none(), "12 seeds: a search");
    }

    /// A keeping analyzer builds a database in memory once for the
    /// requests that fit it; one that keeps nothing builds it each time.
    #[test]
    fn a_keeping_analyzer_builds_a_database_once() {
        let dir = tempfile::tempdir().unwrap();
        let start = Position::start(4, 3).unwrap();
        let ask = Request { threads: 1, book: false, db: DbSpec { build_seeds: Some(9), ..DbSpec::default() }, ..Request::new(start, empty()) };
        let keeping = Analyzer::keeping(Databases::new(dir.path()));
        let kept = |a: &Analyzer| a.analyze(&ask, &Silent).unwrap().database.map(|d| (d.max_seeds, d.kept));
        assert_eq!(kept(&keeping), Some((9, false)));
        assert_eq!(kept(&keeping), Some((9, true)));
        let fresh = Analyzer::new(Databases::new(dir.path()));
        assert_eq!((kept(&fresh), kept(&fresh)), (Some((9, false)), Some((9, false))));
        assert_eq!(keeping.analyze(&ask, &Silent).unwrap().analysis, fresh.analyze(&ask, &Silent).unwrap().analysis);
    }

    /// The one test asked is decided from an exact answer wherever it came
    /// from (here a probe), holding or failing with the value as bound.
    #[test]
    fn a_test_is_decided_by_an_exact_answer() {
        let dir = tempfile::tempdir().unwrap();
        let databases = Databases::new(dir.path());
        kalah_db::build_file(&databases.path_for(4, 8, empty()), 4, empty(), 8, &kalah_db::Quiet).unwrap();
        let analyzer = Analyzer::new(databases);
        let position: Position = "1,0,2,1,0,1,0,3,0,2 S".parse().unwrap();
        let value = analyzer.analyze(&Request { threads: 1, ..Request::new(position, empty()) }, &Silent).unwrap().value().unwrap();
        let test = |at_least| {
            let asked = Request { threads: 1, want: Want::Value, tests: RootTests::AtLeast(at_least), ..Request::new(position, empty()) };
            analyzer.analyze(&asked, &Silent).unwrap().test
        };
        assert_eq!(test(value), Some(TestOutcome { at_least: value, holds: true, bound: value }));
        assert_eq!(test(value + 1), Some(TestOutcome { at_least: value + 1, holds: false, bound: value }));
    }

    /// A search held between runs goes on from its table: asked again,
    /// the same question takes a small part of the nodes it took the first
    /// time, where a search from nothing takes them all again; released,
    /// it holds nothing.
    #[test]
    fn a_held_search_goes_on_from_its_table() {
        let dir = tempfile::tempdir().unwrap();
        let analyzer = Analyzer::new(Databases::new(dir.path()));
        let held = Arc::new(crate::HeldSearch::default());
        let ask = Request { threads: 1, book: false, held: Some(held.clone()), ..Request::new(Position::start(4, 4).unwrap(), Rules::default()) };
        let first = analyzer.analyze(&ask, &Silent).unwrap();
        assert!(held.bytes() > 0, "the solver is held");
        let again = analyzer.analyze(&ask, &Silent).unwrap();
        let fresh = analyzer.analyze(&Request { held: None, ..ask.clone() }, &Silent).unwrap();
        assert_eq!((again.analysis.value, fresh.analysis.value), (first.analysis.value, first.analysis.value));
        assert!(again.nodes * 10 < first.nodes, "held: {} nodes again, {} the first time", again.nodes, first.nodes);
        assert!(fresh.nodes * 10 > first.nodes * 9, "from nothing: {} nodes, {} the first time", fresh.nodes, first.nodes);
        held.release();
        assert_eq!(held.bytes(), 0);
    }

    /// A share of a door's memory that admits files or not, counting asks.
    #[derive(Debug)]
    struct Share {
        admits: bool,
        asked: std::sync::atomic::AtomicUsize,
    }

    impl MemoryShare for Share {
        fn bytes(&self) -> u64 {
            // A table of 1 MiB and nothing besides: any file is mapped.
            1 << 20
        }

        fn settle(&self, needed: u64) {
            assert_eq!(needed, 1 << 20, "the search's table");
        }

        fn admit_file(&self, _file: u64, _kept: u64) -> bool {
            self.asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.admits
        }

        fn release_held(&self) -> bool {
            false
        }
    }

    /// A file to be searched over mapped comes in only where the request's
    /// share admits it: refused, the search goes on without it (the same
    /// value); admitted, it is kept mapped, counted whole among what the
    /// analyzer keeps, used again without asking, and let go once no
    /// search uses it.
    #[test]
    fn a_mapped_file_comes_in_only_where_the_share_admits_it() {
        let dir = tempfile::tempdir().unwrap();
        let databases = Databases::new(dir.path());
        let file = databases.path_for(4, 8, empty());
        kalah_db::build_file(&file, 4, empty(), 8, &kalah_db::Quiet).unwrap();
        let bytes = std::fs::metadata(&file).unwrap().len();
        let analyzer = Analyzer::keeping(databases);
        let start = Position::start(4, 3).unwrap();
        let ask = |admits| {
            let share = Arc::new(Share { admits, asked: Default::default() });
            let asked = Request { threads: 1, book: false, memory_share: Some(share.clone()), ..Request::new(start, empty()) };
            (analyzer.analyze(&asked, &Silent).unwrap(), share.asked.load(std::sync::atomic::Ordering::Relaxed))
        };
        // (What is kept besides: the solver of each search, let go first.)
        let (refused, asked) = ask(false);
        analyzer.release_kept(bytes);
        assert_eq!((refused.database.as_ref(), analyzer.kept_bytes()), (None, 0));
        assert!(asked >= 1, "asked");
        let (admitted, asked) = ask(true);
        assert_eq!((admitted.database.as_ref().map(|d| (d.max_seeds, d.kept)), asked), (Some((8, false)), 1));
        assert_eq!(admitted.analysis.value, refused.analysis.value);
        analyzer.release_kept(bytes);
        assert_eq!(analyzer.kept_bytes(), bytes, "the mapped file counted whole");
        let (again, asked) = ask(false);
        assert_eq!((again.database.map(|d| d.kept), asked), (Some(true), 0), "kept: not asked again");
        analyzer.release_kept(0);
        assert_eq!(analyzer.kept_bytes(), 0, "no search uses it: let go");
    }

    /// A database file backs a search copied into memory or mapped as the
    /// request says (by default, a small file is copied), the report says
    /// which, and the value is the same either way; a keeping analyzer
    /// answers over the map it keeps whatever the request says, except
    /// for a copy asked for, the request's own.
    #[test]
    fn a_file_is_copied_or_mapped_as_asked() {
        let dir = tempfile::tempdir().unwrap();
        let databases = Databases::new(dir.path());
        let file = databases.path_for(4, 8, empty());
        kalah_db::build_file(&file, 4, empty(), 8, &kalah_db::Quiet).unwrap();
        let start = Position::start(4, 3).unwrap();
        let ask = |analyzer: &Analyzer, hold| {
            let db = DbSpec { hold, ..DbSpec::file(&file) };
            let report = analyzer.analyze(&Request { threads: 1, book: false, db, ..Request::new(start, empty()) }, &Silent).unwrap();
            let used = report.database.expect("the file");
            (report.analysis.value.lower, used.copied, used.kept)
        };
        let plain = Analyzer::new(databases.clone());
        let value = ask(&plain, DbHold::Auto).0;
        assert_eq!(ask(&plain, DbHold::Auto), (value, true, false), "a small file is copied by default");
        assert_eq!(ask(&plain, DbHold::Mapped), (value, false, false));
        assert_eq!(ask(&plain, DbHold::Copied), (value, true, false));
        let keeping = Analyzer::keeping(databases);
        assert_eq!(ask(&keeping, DbHold::Mapped), (value, false, false));
        assert_eq!(ask(&keeping, DbHold::Copied), (value, true, false), "a copy of its own");
        assert_eq!(ask(&keeping, DbHold::Auto), (value, false, true), "the map kept");
    }

    /// A request stopped before its work began answers at once with the
    /// bounds its seeds allow, nothing set up, and a legal move to play.
    #[test]
    fn a_request_stopped_before_its_work_answers_what_its_seeds_allow() {
        let dir = tempfile::tempdir().unwrap();
        let analyzer = Analyzer::new(Databases::new(dir.path()));
        let start = Position::start(6, 6).unwrap();
        let stopped = Arc::new(AtomicBool::new(true));
        let asked = Request { want: Want::BestMove, book: false, cancel: Some(stopped), ..Request::new(start, Rules::default()) };
        let report = analyzer.analyze(&asked, &Silent).unwrap();
        assert_eq!((report.source, report.nodes, &report.database), (Source::Search, 0, &None));
        assert_eq!(report.analysis.value, Bounded { lower: -72, upper: 72 });
        assert!(start.legal_moves().contains(&report.move_to_play().expect("a move")));
    }
}
