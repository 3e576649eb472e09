//! Solving one position by the best means available: a database probe, a
//! search backed by the database, or (clockwise sowing) retrograde
//! analysis of every board it can reach, or where that does not fit in
//! memory, bounds proven by a search over a smaller retrograde database;
//! shared by `solve`, `query` and `db probe`.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use kalah_core::{Engine, Position, Rules};
use kalah_db::{human_bytes, Builder, Database, NoTablebase, Progress, Tablebase};
use kalah_search::{analyze_from_table, Analysis, BoundSolver, BoundedAnalysis, LineEnd, SearchOptions, Solver};
use serde_json::json;

use crate::common::{article, db_error, rules_json, signed, user, verdict, DbArgs, SetupBudget, ANALYSIS_LOAD_GAP, VALUE_LOAD_GAP};
use crate::solve::default_tt_mb;

/// How a value was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Read from an endgame database.
    Database,
    /// Alpha-beta search (backed by a database where it covers).
    Search,
    /// Retrograde analysis in memory of every board with up to the
    /// position's seeds (clockwise sowing, where play can be endless).
    Retrograde,
    /// Bounds proven by searches to growing depths over a database of
    /// fewer seeds (clockwise sowing, where retrograde analysis of the
    /// position's seeds does not fit); the value is exact when they meet.
    Bounds,
}

impl Source {
    /// The name used in output.
    pub fn name(self) -> &'static str {
        match self {
            Source::Database => "database",
            Source::Search => "search",
            Source::Retrograde => "retrograde",
            Source::Bounds => "bounds",
        }
    }
}

/// What to solve and how.
#[derive(Clone, Debug)]
pub struct Request {
    /// The position.
    pub position: Position,
    /// The rules.
    pub rules: Rules,
    /// Which database.
    pub db: DbArgs,
    /// Search threads.
    pub threads: usize,
    /// Transposition table megabytes (`None`: [`crate::solve::default_tt_mb`]).
    pub tt_mb: Option<usize>,
    /// Every move's value, not only the position's.
    pub moves: bool,
    /// A principal variation.
    pub pv: bool,
    /// A best move, found on its own when neither every move's value nor a
    /// principal variation is asked for.
    pub best: bool,
    /// Say on stderr what is being used (memory, database).
    pub announce: bool,
    /// Time for the search: what it has not proven by then is reported as
    /// bounds. `None`: a search runs until it is done, a proof of bounds
    /// ([`Source::Bounds`]) for [`BOUNDS_TIME`].
    pub time_limit: Option<Duration>,
}

/// The default time a proof of bounds may take ([`Source::Bounds`]).
pub const BOUNDS_TIME: Duration = Duration::from_secs(60);

/// The answer, with how it was found.
#[derive(Clone, Debug)]
pub struct Report {
    /// Value, moves, principal variation: exact, or bounds ([`Source::Bounds`]).
    pub analysis: BoundedAnalysis,
    /// How.
    pub source: Source,
    /// Nodes searched (0 for probes).
    pub nodes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The database used.
    pub database: Option<UsedDatabase>,
    /// A best move found on its own (`Request::best`); see [`best_move`].
    pub best_move: Option<usize>,
}

/// The endgame database a report rests on.
#[derive(Clone, Debug)]
pub struct UsedDatabase {
    /// Its file; `None` for one built in memory by the command.
    pub path: Option<String>,
    /// Seeds it covers.
    pub max_seeds: u32,
    /// Seconds building it took (built in memory), included in `Report::seconds`.
    pub build_seconds: Option<f64>,
    /// Seconds loading it into memory took (a file a search used whole),
    /// included in `Report::seconds`.
    pub load_seconds: Option<f64>,
}

/// Solves the request; see the module docs.
pub fn run(request: &Request) -> anyhow::Result<Report> {
    let position = &request.position;
    let h = position.houses();
    let rules = request.rules;
    let engine = Engine::new(h, rules);
    let seeds = position.seeds_in_houses();
    let gap = if request.moves || request.pv { ANALYSIS_LOAD_GAP } else { VALUE_LOAD_GAP };
    let budget = SetupBudget::within(request.time_limit, request.threads);
    let db = request.db.open_for(h, rules, seeds, gap, budget, request.announce)?;
    let start = Instant::now();
    let memory = memory_database(&engine, seeds, &request.db, db.as_ref(), request.tt_mb, request.threads, budget, request.announce)?;
    let database = match (&memory, &db) {
        (Some(b), _) => Some(UsedDatabase {
            path: None,
            max_seeds: b.indexer().max_seeds(),
            build_seconds: Some(start.elapsed().as_secs_f64()),
            load_seconds: None,
        }),
        (None, Some(d)) => Some(UsedDatabase {
            path: Some(d.path().display().to_string()),
            max_seeds: d.header().max_seeds,
            build_seconds: None,
            load_seconds: None,
        }),
        (None, None) => None,
    };
    let finish = |analysis: BoundedAnalysis, source, nodes, best_move| Report {
        analysis,
        source,
        nodes,
        seconds: start.elapsed().as_secs_f64(),
        database: database.clone(),
        best_move,
    };

    if let Some(b) = memory.as_ref().filter(|b| seeds <= b.indexer().max_seeds()) {
        let analysis = analyze_from_table(&engine, b, position).map_err(|e| user(e.to_string()))?;
        return Ok(finish(analysis.into(), Source::Database, 0, None));
    }
    if let Some(db) = db.as_ref().filter(|d| seeds <= d.header().max_seeds) {
        let analysis = analyze_from_table(&engine, db, position).map_err(|e| user(e.to_string()))?;
        return Ok(finish(analysis.into(), Source::Database, 0, None));
    }
    if proves_bounds(h, seeds, rules, &request.db) {
        return bounds(&engine, db, request, budget, start);
    }
    if rules.may_cycle() {
        // Retrograde analysis of every board up to the position's seeds
        // needs no database: say so of a file that was given or found.
        if let (Some(d), true) = (&db, request.announce) {
            eprintln!(
                "note: {} (up to {} seeds) is not used: retrograde analysis of every board up to the position's {seeds} seeds fits in memory",
                d.path().display(),
                d.header().max_seeds
            );
        }
        let analysis = retrograde(&engine, position, request.announce, request.threads)?;
        return Ok(Report {
            database: None,
            ..finish(analysis.into(), Source::Retrograde, 0, None)
        });
    }
    let db_seeds = database.as_ref().map(|d| d.max_seeds);
    let options = SearchOptions {
        threads: request.threads,
        tt_bytes: request.tt_mb.unwrap_or_else(|| default_tt_mb(h, seeds, db_seeds)) << 20,
        max_seeds: Some(seeds),
    };
    check_search_memory(options.reserved_bytes(h) as u64, db.as_ref().filter(|_| memory.is_none()))?;
    if request.announce {
        eprintln!(
            "note: searching with {} thread{}, {} transposition table{}",
            request.threads,
            if request.threads == 1 { "" } else { "s" },
            crate::common::a_size(options.table_bytes(h) as u64),
            match (&memory, &db) {
                (Some(b), _) => format!(" and the {}-seed database built in memory", b.indexer().max_seeds()),
                (None, Some(d)) => format!(
                    " and the {}-seed database {} ({})",
                    d.header().max_seeds,
                    d.path().display(),
                    human_bytes(d.file_bytes())
                ),
                (None, None) => ", no endgame database".to_string(),
            }
        );
    }
    let mut load_seconds = None;
    let (analysis, nodes, best) = match (memory, db) {
        (Some(b), _) => search(h, rules, b, options, request)?,
        (None, Some(db)) => {
            let loading = Instant::now();
            let loaded = crate::common::for_search(db, request.threads)?;
            load_seconds = Some(loading.elapsed().as_secs_f64());
            search(h, rules, loaded, options, request)?
        }
        (None, None) => search(h, rules, NoTablebase { houses: h, rules }, options, request)?,
    };
    let mut report = finish(analysis, Source::Search, nodes, best);
    if let Some(d) = report.database.as_mut() {
        d.load_seconds = load_seconds;
    }
    Ok(report)
}

/// Whether a position of `h` houses with `seeds` seeds under `rules` (not
/// covered by a database file) is answered by proofs of bounds
/// ([`bound_solver`]) rather than retrograde analysis: clockwise, when
/// retrograde analysis of its seeds does not fit, or `--db-seeds` asks for
/// a database of fewer seeds.
pub fn proves_bounds(h: usize, seeds: u32, rules: Rules, db: &DbArgs) -> bool {
    rules.may_cycle() && (db.db_seeds.is_some_and(|n| n < seeds) || !retrograde_fits(h, seeds, rules))
}

/// Whether retrograde analysis of every board of `h` houses with up to
/// `seeds` seeds fits in the memory available.
pub fn retrograde_fits(h: usize, seeds: u32, rules: Rules) -> bool {
    let free = kalah_db::writer::available_memory().unwrap_or(u64::MAX);
    seeds <= kalah_db::builder::MAX_SEEDS && kalah_db::builder::memory_needed(h, seeds, rules) <= free
}

/// The database a proof of bounds builds by default ([`bounds`]) has at
/// most this many seeds and [`BOUNDS_DB_BOARDS`] boards: 20 seeds for six
/// houses is built by retrograde analysis in 26 s (relay off) to 48 s
/// (relay on) on two cores. A smaller one saves that time but costs the
/// proof more: clockwise Kalah(6,3) with relay meets in 3.2 s over 20
/// seeds, and not within 30 s over 16 or 12. A larger one costs more than
/// it saves: clockwise Kalah(5,4) with relay, 20 seeds: 5.6 s to build,
/// 1.2 s to prove; 25 seeds: 101 s and 14 s (the machine loaded).
const BOUNDS_DB_SEEDS: u32 = 20;
/// See [`BOUNDS_DB_SEEDS`].
const BOUNDS_DB_BOARDS: u64 = 250_000_000;

/// The transposition table of a proof of bounds more than
/// [`BOUNDS_SMALL_GAP`] seeds above its database, in MiB (else 64): such a
/// proof often runs to its time limit, and a large table pays. Clockwise
/// Kalah(5,3) over a 20-seed database, 60 s, two threads: 0..+4 with 1 GiB,
/// -2..+6 with 64 MiB (the value is 0).
const BOUNDS_TT_MB: usize = 1024;
/// See [`BOUNDS_TT_MB`].
const BOUNDS_SMALL_GAP: u32 = 8;

/// The default table, in MiB, of a proof of bounds on `h` houses of boards
/// of up to `seeds` seeds over an `n`-seed database ([`BOUNDS_TT_MB`]),
/// raised to what the keys' fields need ([`crate::solve::fields_floor`]).
pub fn bounds_tt_mb(h: usize, seeds: u32, n: u32) -> usize {
    crate::solve::fields_floor(h, if seeds > n + BOUNDS_SMALL_GAP { BOUNDS_TT_MB } else { 64 })
}

/// Clockwise, too many seeds for retrograde analysis: bounds on the value
/// (and on every move's, and a line of best play, as asked) proven within
/// the time limit by a [`bound_solver`].
fn bounds(engine: &Engine, file: Option<Database>, request: &Request, budget: SetupBudget, start: Instant) -> anyhow::Result<Report> {
    let limit = request.time_limit.unwrap_or(BOUNDS_TIME);
    let seeds = request.position.seeds_in_houses();
    // Without --time-limit the proof takes BOUNDS_TIME and `budget` is
    // unlimited: the database has its default size.
    let (solver, database) = bound_solver(engine, seeds, file, &request.db, request.threads, request.tt_mb, budget, request.announce.then_some(limit))?;
    let database = database.map(|d| UsedDatabase {
        build_seconds: d.build_seconds.map(|_| start.elapsed().as_secs_f64()),
        ..d
    });
    let deadline = Instant::now() + limit;
    let position = &request.position;
    let (analysis, best) = spinning("proving bounds", &|| solver.nodes(), || {
        let analysis = solver.analyze_within(position, deadline, request.moves, request.pv)?;
        let v = analysis.value;
        let best = if request.best && v.is_exact() && !engine.is_over(position.mover_board()) {
            solver.best_move_within(position, v.lower, deadline)?
        } else {
            None
        };
        Ok::<_, kalah_search::SearchError>((analysis, best))
    })
    .map_err(|e| user(e.to_string()))?;
    Ok(Report {
        analysis,
        source: Source::Bounds,
        nodes: solver.nodes(),
        seconds: start.elapsed().as_secs_f64(),
        database,
        best_move: best,
    })
}

/// A [`BoundSolver`] over whatever database [`bound_solver`] found or built.
pub type BoundsOverDatabase = BoundSolver<Box<dyn Tablebase>>;

/// A [`BoundSolver`] for clockwise positions of up to `seeds` seeds, too
/// many for retrograde analysis, and the database it searches over: the
/// file given or found, else one built in memory (`--db-seeds`, by
/// default the largest of at most [`BOUNDS_DB_SEEDS`] seeds and
/// [`BOUNDS_DB_BOARDS`] boards that fits, and that `budget` lets it build).
/// With `announce` (the time a proof may take), says so.
#[allow(clippy::too_many_arguments)]
pub fn bound_solver(
    engine: &Engine,
    seeds: u32,
    file: Option<Database>,
    db: &DbArgs,
    threads: usize,
    tt_mb: Option<usize>,
    budget: SetupBudget,
    announce: Option<Duration>,
) -> anyhow::Result<(BoundsOverDatabase, Option<UsedDatabase>)> {
    let h = engine.houses();
    let rules = engine.rules();
    let n = match (&file, db.no_db, db.db_seeds) {
        (Some(d), _, _) => d.header().max_seeds,
        (None, true, _) | (None, false, Some(0)) => 0,
        (None, false, Some(n)) => {
            let n = n.min(seeds.saturating_sub(1));
            if !retrograde_fits(h, n, rules) {
                return Err(user(format!(
                    "--db-seeds {n}: retrograde analysis of {} boards needs {} of memory; {} is available",
                    group(kalah_core::boards_up_to(h, n)),
                    human_bytes(kalah_db::builder::memory_needed(h, n, rules)),
                    human_bytes(kalah_db::writer::available_memory().unwrap_or(0))
                )));
            }
            n
        }
        (None, false, None) => (0..seeds.min(BOUNDS_DB_SEEDS + 1))
            .rev()
            .find(|&n| kalah_core::boards_up_to(h, n) <= BOUNDS_DB_BOARDS.min(budget.retrograde_boards) && retrograde_fits(h, n, rules))
            .unwrap_or(0),
    };
    let options = SearchOptions {
        threads,
        tt_bytes: tt_mb.unwrap_or_else(|| bounds_tt_mb(h, seeds, n)) << 20,
        max_seeds: Some(seeds),
    };
    if let Some(limit) = announce {
        let why = if retrograde_fits(h, seeds, rules) {
            format!("--db-seeds {n} asks for retrograde analysis of fewer seeds than the position's {seeds}")
        } else if seeds > kalah_db::builder::MAX_SEEDS {
            format!(
                "clockwise sowing can make play endless, and retrograde analysis stops at {} seeds (one-byte values), below the position's {seeds}",
                kalah_db::builder::MAX_SEEDS
            )
        } else {
            format!(
                "clockwise sowing can make play endless, and retrograde analysis of all {} boards with up to {seeds} seeds needs {} of memory ({} is available)",
                group(kalah_core::boards_up_to(h, seeds)),
                human_bytes(kalah_db::builder::memory_needed(h, seeds, rules)),
                human_bytes(kalah_db::writer::available_memory().unwrap_or(0)),
            )
        };
        eprintln!(
            "note: {why}: proving bounds on values ({} s a position) by searches over {}",
            limit.as_secs_f64(),
            match (&file, n) {
                (Some(d), _) => format!("the {n}-seed database {}", d.path().display()),
                (None, 0) => "no database".to_string(),
                (None, n) => format!(
                    "{} {n}-seed database built first in memory by retrograde analysis ({} boards; `kalah db build --houses {h} --max-seeds {n}` with these rules makes one that lasts)",
                    article(n.into()),
                    group(kalah_core::boards_up_to(h, n))
                ),
            }
        );
    }
    // The table must fit beside the database's values (a built one's
    // working memory is freed when it is done).
    let table_bytes = options.reserved_bytes(h) as u64;
    let (table, used): (Box<dyn Tablebase>, _) = match file {
        Some(d) => {
            check_search_memory(table_bytes, Some(&d))?;
            let path = Some(d.path().display().to_string());
            let loading = Instant::now();
            let loaded = crate::common::for_search(d, threads)?;
            let used = UsedDatabase {
                path,
                max_seeds: n,
                build_seconds: None,
                load_seconds: Some(loading.elapsed().as_secs_f64()),
            };
            (Box::new(loaded), Some(used))
        }
        None if n == 0 => {
            check_search_memory(table_bytes, None)?;
            (Box::new(NoTablebase { houses: h, rules }), None)
        }
        None => {
            check_search_memory(table_bytes + kalah_core::boards_up_to(h, n), None)?;
            let started = Instant::now();
            let built = build_in_memory(engine, n, threads)?;
            let used = UsedDatabase {
                path: None,
                max_seeds: n,
                build_seconds: Some(started.elapsed().as_secs_f64()),
                load_seconds: None,
            };
            (Box::new(built), Some(used))
        }
    };
    let solver = BoundSolver::new(h, rules, table, options).map_err(|e| user(e.to_string()))?;
    Ok((solver, used))
}

/// Runs `job` with a spinner on stderr that shows the nodes searched
/// (cleared when it ends, a panic included).
fn spinning<R>(what: &str, nodes: &(dyn Fn() -> u64 + Sync), job: impl FnOnce() -> R) -> R {
    let done = AtomicBool::new(false);
    let spinner = ProgressBar::new_spinner();
    spinner.set_style(ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("valid template"));
    let started = Instant::now();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Relaxed) {
                let n = nodes();
                let secs = started.elapsed().as_secs_f64().max(1e-9);
                spinner.set_message(format!("{what}: {} nodes, {:.1} M nodes/s", group(n), n as f64 / secs / 1e6));
                spinner.tick();
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

/// Positions with fewer seeds are searched without a database built in
/// memory by default: it would not pay for its building (see
/// [`default_memory_seeds`]).
const MEMORY_DB_FROM: u32 = 46;
/// The default database built in memory covers this many seeds fewer than
/// the position has, and at most [`MEMORY_DB_MAX_SEEDS`].
const MEMORY_DB_BELOW: u32 = 30;
const MEMORY_DB_MAX_SEEDS: u32 = 24;
/// ... and at most this many boards (a byte each; about 26 s on two cores).
const MEMORY_DB_MAX_BOARDS: u64 = 1_300_000_000;

/// The seeds of the database a search of a position with `seeds` seeds on
/// `h` houses builds in memory by default when no database file is used:
/// `seeds - 30`, at most 24 seeds and 1.3 billion boards, none for
/// positions of fewer than 46 seeds. Measured on Kalah(6,4) (48 seeds,
/// one thread, nodes): no database 41.3 M; built databases of 12, 14, 16,
/// 17, 18, 19, 20 seeds 56.8, 48.7, 34.6, 28.1, 21.7, 16.6, 12.1 M (small
/// ones cost nodes: the search keeps boards just above a database out of
/// its table), while building them costs 0.6 s (16 seeds), 1.8 s (18) and
/// 4.7 s (20) on two cores; BENCHMARKS.md has the times.
/// Under a time limit, at most `max_boards` boards (`SetupBudget`).
pub fn default_memory_seeds(h: usize, seeds: u32, max_boards: u64) -> Option<u32> {
    if seeds < MEMORY_DB_FROM {
        return None;
    }
    let mut n = (seeds - MEMORY_DB_BELOW).min(MEMORY_DB_MAX_SEEDS);
    while n > 0 && kalah_core::boards_up_to(h, n) > MEMORY_DB_MAX_BOARDS.min(max_boards) {
        n -= 1;
    }
    (n > 0).then_some(n)
}

/// The database to build in memory before a search (`--db-seeds`, or by
/// default when no file is used, [`default_memory_seeds`]), built; `None`
/// when there is none to build: a file covers what is asked, the rules are
/// clockwise (retrograde analysis builds its own), `--db-seeds 0`, or
/// (by default only) the memory is short. An explicit size that does not
/// fit is refused with the figures.
#[allow(clippy::too_many_arguments)]
pub fn memory_database(
    engine: &Engine,
    seeds: u32,
    args: &DbArgs,
    file: Option<&Database>,
    tt_mb: Option<usize>,
    threads: usize,
    budget: SetupBudget,
    announce: bool,
) -> anyhow::Result<Option<Builder>> {
    let h = engine.houses();
    if args.no_db || engine.rules().may_cycle() {
        return Ok(None);
    }
    let file_seeds = file.map(|d| d.header().max_seeds);
    let n = match args.db_seeds {
        Some(0) => return Ok(None),
        Some(n) if file_seeds.is_some_and(|f| f >= n.min(seeds)) => return Ok(None),
        Some(n) => {
            kalah_db::builder::check_size(h, n).map_err(|e| user(format!("--db-seeds {n}: {e}")))?;
            n.min(seeds)
        }
        None if file.is_some() => return Ok(None),
        None => match default_memory_seeds(h, seeds, budget.build_boards) {
            Some(n) => n,
            None => return Ok(None),
        },
    };
    let boards = kalah_core::boards_up_to(h, n);
    let options = SearchOptions {
        threads,
        tt_bytes: tt_mb.unwrap_or_else(|| default_tt_mb(h, seeds, Some(n))) << 20,
        max_seeds: Some(seeds),
    };
    let table = options.reserved_bytes(h) as u64;
    if let Some(available) = kalah_db::writer::available_memory() {
        if boards.saturating_add(table) > available {
            if args.db_seeds.is_none() {
                if announce {
                    eprintln!(
                        "note: not building {} {n}-seed database in memory: it needs {} next to the search's table, {} is available",
                        article(n.into()),
                        human_bytes(boards),
                        human_bytes(available)
                    );
                }
                return Ok(None);
            }
            let asked = args.db_seeds.unwrap_or(n);
            return Err(user(format!(
                "--db-seeds {asked}: {} {h}-house database of {n} seeds{} needs {} of memory next to the search's table, {} is available",
                article(h as u64),
                if asked > n { " (the position's)" } else { "" },
                human_bytes(boards),
                human_bytes(available)
            )));
        }
    }
    if announce {
        eprintln!(
            "note: {}building {} {n}-seed database in memory ({} boards{})",
            if file.is_some() { "" } else { "no database file for these rules: " },
            article(n.into()),
            group(boards),
            if args.db_seeds.is_none() { "; --db-seeds 0 skips it, `kalah db build` makes one that lasts" } else { "" }
        );
    }
    Ok(Some(build_in_memory(engine, n, threads)?))
}

/// Seeds the database a search uses covers: the one built in memory
/// ([`memory_database`]) if any, else the file.
pub fn searched_db_seeds(memory: Option<&Builder>, file: Option<&Database>) -> Option<u32> {
    memory.map(|b| b.indexer().max_seeds()).or_else(|| file.map(|d| d.header().max_seeds))
}

/// Every board with up to `seeds` seeds solved in memory, with a progress
/// bar on stderr (none when stderr is not a terminal).
pub fn build_in_memory(engine: &Engine, seeds: u32, threads: usize) -> anyhow::Result<Builder> {
    let h = engine.houses();
    let mut builder = Builder::new(h, engine.rules(), seeds).map_err(db_error)?;
    let bar = ProgressBar::new(kalah_core::boards_up_to(h, seeds));
    bar.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} boards {msg}").expect("valid template"));
    struct Bar<'a>(&'a ProgressBar);
    impl Progress for Bar<'_> {
        fn advance(&self, _: u32, done: u64) {
            self.0.inc(done);
        }
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    pool.install(|| builder.build_all(&Bar(&bar)));
    bar.finish_and_clear();
    Ok(builder)
}

/// Refuses a transposition table of `bytes` that does not fit in the memory available.
pub fn check_table_memory(bytes: u64) -> anyhow::Result<()> {
    check_search_memory(bytes, None)
}

/// Refuses a transposition table of `bytes` that does not fit in the
/// memory available next to `db`, if the search will copy it into memory
/// (`common::for_search`: when it takes less than half the memory).
pub fn check_search_memory(bytes: u64, db: Option<&Database>) -> anyhow::Result<()> {
    let Some(available) = kalah_db::writer::available_memory() else {
        return Ok(());
    };
    let loaded = db.map_or(0, |d| if d.file_bytes() < available / 2 { d.file_bytes() } else { 0 });
    if bytes.saturating_add(loaded) > available {
        let next_to = if loaded > 0 { format!(" next to the {} database copied into memory", human_bytes(loaded)) } else { String::new() };
        return Err(user(format!(
            "{} transposition table does not fit{next_to}: {} of memory is available (use --tt-mb)",
            crate::common::a_size(bytes),
            human_bytes(available)
        )));
    }
    Ok(())
}

fn search<T: Tablebase>(h: usize, rules: Rules, table: T, options: SearchOptions, request: &Request) -> anyhow::Result<(BoundedAnalysis, u64, Option<usize>)> {
    let solver = Solver::new(h, rules, table, options).map_err(|e| user(e.to_string()))?;
    let position = &request.position;
    let result = spinning("searching", &|| solver.nodes(), || {
        let analysis = match request.time_limit {
            // What can be proven in time; bounds where the search did not finish.
            Some(limit) => solver.analyze_within(position, Instant::now() + limit, request.moves, request.pv)?,
            None => solver.analyze(position, request.moves, request.pv)?.into(),
        };
        let v = analysis.value;
        let best = if request.best && analysis.moves.is_empty() && analysis.pv.is_empty() && v.is_exact() {
            solver.best_move(position, v.lower)
        } else {
            None
        };
        // A damaged database is reported, not a move it may have misled.
        match solver.tablebase().failure() {
            Some(why) => Err(kalah_search::SearchError::Tablebase(why)),
            None => Ok((analysis, best)),
        }
    });
    let (analysis, best) = result.map_err(|e| user(e.to_string()))?;
    Ok((analysis, solver.nodes(), best))
}

fn retrograde(engine: &Engine, position: &Position, announce: bool, threads: usize) -> anyhow::Result<Analysis> {
    let builder = retrograde_builder(engine, position.seeds_in_houses(), announce, threads)?;
    analyze_from_table(engine, &builder, position).map_err(|e| user(e.to_string()))
}

/// Every board with up to `seeds` seeds solved in memory by retrograde
/// analysis (for clockwise sowing), refused up front if it cannot fit.
pub fn retrograde_builder(engine: &Engine, seeds: u32, announce: bool, threads: usize) -> anyhow::Result<Builder> {
    let h = engine.houses();
    if seeds > kalah_db::builder::MAX_SEEDS {
        return Err(user(format!("{seeds} seeds is too many for retrograde analysis (at most {})", kalah_db::builder::MAX_SEEDS)));
    }
    let needed = kalah_db::builder::memory_needed(h, seeds, engine.rules());
    let available = kalah_db::writer::available_memory().unwrap_or(u64::MAX);
    if needed > available {
        return Err(user(format!(
            "clockwise sowing is solved by retrograde analysis of every board with up to {seeds} seeds \
             ({} boards), which needs {} of memory; {} is available (`kalah solve`, `query` and \
             `table` prove bounds on the values of positions this large)",
            group(kalah_core::boards_up_to(h, seeds)),
            human_bytes(needed),
            human_bytes(available)
        )));
    }
    if announce {
        eprintln!(
            "note: clockwise sowing can make play endless: solving all {} boards with up to {seeds} seeds by retrograde analysis ({} of memory)",
            group(kalah_core::boards_up_to(h, seeds)),
            human_bytes(needed)
        );
    }
    build_in_memory(engine, seeds, threads)
}

/// `1234567` as `1,234,567`.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Prints a report for people.
pub fn print_human(title: &str, request: &Request, report: &Report) {
    let p = &request.position;
    let a = &report.analysis;
    let mover = p.to_move();
    println!("{title}");
    println!("Rules:    {}", request.rules);
    println!("Position: {}  ({} to move)", p.ring(), mover.name());
    print!("{}", p.diagram());
    let v = a.value;
    if v.is_exact() {
        println!("Value:    {}  ({}){}", signed(v.lower), verdict(mover, v.lower), source_note(report));
    } else {
        println!(
            "Value:    {}..{}  (proven bounds: not solved within the time limit){}",
            signed(v.lower),
            signed(v.upper),
            source_note(report)
        );
    }
    if !a.moves.is_empty() {
        println!("Moves for {}:", mover.name());
        for m in &a.moves {
            // A move is best when it is proven to reach the most the position can.
            let best = if m.value.lower >= v.upper { "  best" } else { "" };
            println!("  house {}  {:>4}{best}", m.house, bounds_text(m.value));
        }
    }
    if a.moves.is_empty() {
        if let Some(house) = best_move(request, report) {
            println!("Best move: house {house}");
        }
    }
    if !a.pv.is_empty() || a.end == LineEnd::Endless {
        let end = match a.end {
            LineEnd::GameOver => "",
            LineEnd::Endless => ", then endless",
            LineEnd::Cut => ", cut short",
        };
        println!("Principal variation ({} moves{end}):", a.pv.len());
        println!("  {}", pv_text(a));
    } else if request.pv && v.is_exact() && a.end == LineEnd::Cut {
        println!("Principal variation: none proven within the time limit");
    }
    match report.source {
        Source::Search | Source::Bounds => {
            let build = report.database.as_ref().and_then(|d| d.build_seconds).unwrap_or(0.0);
            let load = report.database.as_ref().and_then(|d| d.load_seconds).unwrap_or(0.0);
            let secs = report.seconds - build - load;
            let after = if build > 0.0 {
                format!(", after {build:.2} s building the database")
            } else if load >= 0.01 {
                format!(", after {load:.2} s loading the database")
            } else {
                String::new()
            };
            println!("Searched {} nodes in {:.2} s ({:.1} M nodes/s){after}", group(report.nodes), secs, report.nodes as f64 / secs.max(1e-9) / 1e6)
        }
        _ => println!("Time:     {:.3} s", report.seconds),
    }
}

/// `+4`, or `-2..+6` for bounds that do not meet.
fn bounds_text(b: kalah_search::Bounded) -> String {
    if b.is_exact() {
        signed(b.lower)
    } else {
        format!("{}..{}", signed(b.lower), signed(b.upper))
    }
}

fn source_note(report: &Report) -> String {
    let what = |d: &UsedDatabase| match (&d.path, d.build_seconds) {
        (Some(path), _) => format!("database {path}"),
        (None, Some(secs)) => format!("database built in memory in {secs:.1} s"),
        (None, None) => "database built in memory".to_string(),
    };
    match (report.source, &report.database) {
        (Source::Database, Some(d)) => format!("  [{}, {} seeds]", what(d), d.max_seeds),
        (Source::Search, Some(d)) => format!("  [search, {} up to {} seeds]", what(d), d.max_seeds),
        (Source::Search, None) => "  [search, no database]".to_string(),
        (Source::Retrograde, _) => "  [retrograde analysis: clockwise play can be endless]".to_string(),
        (Source::Bounds, Some(d)) => format!("  [bounds proven by searches over the {}, {} seeds]", what(d), d.max_seeds),
        (Source::Bounds, None) => "  [bounds proven by searches, no database]".to_string(),
        (Source::Database, None) => String::new(),
    }
}

/// The principal variation as turns: `1. S3 S6  2. N1  3. S2 ...`.
pub fn pv_text(a: &BoundedAnalysis) -> String {
    let mut out = String::new();
    let mut turn = 0;
    let mut last = None;
    for m in &a.pv {
        if last != Some(m.side) {
            turn += 1;
            if !out.is_empty() {
                out.push_str("  ");
            }
            out.push_str(&format!("{turn}."));
            last = Some(m.side);
        }
        out.push_str(&format!(" {}{}", m.side.letter(), m.house));
    }
    match a.end {
        LineEnd::Endless => out.push_str("  ... (repeats for ever)"),
        LineEnd::Cut => out.push_str("  ... (not proven further within the time limit)"),
        LineEnd::GameOver => {}
    }
    out
}

/// A best move for the player to move: the one found on its own, or the
/// first move of the principal variation, or the first move of the best
/// value (`None` when none was asked for, or the game is over).
pub fn best_move(request: &Request, report: &Report) -> Option<usize> {
    let a = &report.analysis;
    report
        .best_move
        .or_else(|| a.pv.first().filter(|m| m.side == request.position.to_move()).map(|m| m.house))
        .or_else(|| a.moves.iter().find(|m| m.value.lower >= a.value.upper).map(|m| m.house))
}

/// The report as one JSON object.
pub fn to_json(request: &Request, report: &Report) -> serde_json::Value {
    let p = &request.position;
    let a = &report.analysis;
    json!({
        "houses": p.houses(),
        "rules": rules_json(request.rules),
        "position": p.ring(),
        "to_move": p.to_move().letter().to_string(),
        "value": exact_or_null(a.value),
        "lower": a.value.lower,
        "upper": a.value.upper,
        "exact": a.value.is_exact(),
        "verdict": a.value.is_exact().then(|| verdict(p.to_move(), a.value.lower)),
        "moves": a.moves.iter().map(|m| json!({
            "house": m.house,
            "value": exact_or_null(m.value),
            "lower": m.value.lower,
            "upper": m.value.upper,
        })).collect::<Vec<_>>(),
        "best_move": best_move(request, report),
        "pv": a.pv.iter().map(|m| json!({"side": m.side.letter().to_string(), "house": m.house})).collect::<Vec<_>>(),
        "pv_endless": a.end == LineEnd::Endless,
        "pv_cut": a.end == LineEnd::Cut,
        "source": report.source.name(),
        "database": report.database.as_ref().map(|d| json!({"path": d.path, "max_seeds": d.max_seeds, "build_seconds": d.build_seconds, "load_seconds": d.load_seconds})),
        "nodes": report.nodes,
        "seconds": report.seconds,
    })
}

/// An exact value as a number, bounds that do not meet as `null`.
fn exact_or_null(b: kalah_search::Bounded) -> serde_json::Value {
    if b.is_exact() {
        json!(b.lower)
    } else {
        serde_json::Value::Null
    }
}

/// Checks that the database, if any, agrees with the request (for `db probe`).
pub fn probe_database(db: &Database, position: &Position) -> anyhow::Result<Analysis> {
    let engine = Engine::new(db.header().houses, db.header().rules);
    if position.houses() != db.header().houses {
        return Err(user(format!(
            "the position has {} houses a side, the database {}",
            position.houses(),
            db.header().houses
        )));
    }
    let seeds = position.seeds_in_houses();
    let max = db.header().max_seeds;
    // Every move leads to at most as many seeds, so the table covers them too.
    if seeds > max {
        return Err(user(format!(
            "the position has {seeds} seeds in its houses; the database covers at most {max} (use `kalah query` to search beyond)"
        )));
    }
    // Check the block of the position itself before reporting anything.
    db.probe(position.mover_board()).map_err(db_error)?;
    analyze_from_table(&engine, db, position).map_err(|e| user(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_database_built_in_memory_is_sized_by_the_position() {
        let all = u64::MAX;
        assert_eq!(default_memory_seeds(6, 45, all), None, "below 46 seeds none");
        assert_eq!(default_memory_seeds(6, 46, all), Some(16));
        assert_eq!(default_memory_seeds(6, 48, all), Some(18), "Kalah(6,4)");
        assert_eq!(default_memory_seeds(6, 60, all), Some(24), "Kalah(6,5): at most 24 seeds");
        assert_eq!(default_memory_seeds(6, 72, all), Some(24));
        // Under a time limit, at most the boards its share builds.
        let budget = |t: f64| SetupBudget::within(Some(Duration::from_secs_f64(t)), 2).build_boards;
        assert_eq!(default_memory_seeds(6, 48, budget(1000.0)), Some(18), "a long limit changes nothing");
        let n = default_memory_seeds(8, 48, budget(5.0)).unwrap();
        assert!(kalah_core::boards_up_to(8, n) <= budget(5.0) && kalah_core::boards_up_to(8, n + 1) > budget(5.0), "8 houses, 5 s: {n}");
        assert_eq!(default_memory_seeds(6, 48, 0), None, "nothing fits: none");
        // Eight houses: 17 seeds are 1.17 billion boards, 18 seeds 2.2 billion.
        assert_eq!(default_memory_seeds(8, 64, all), Some(17));
        for (h, seeds) in [(1, 200), (4, 100), (7, 90), (8, 128)] {
            let n = default_memory_seeds(h, seeds, all).unwrap();
            assert!(kalah_core::boards_up_to(h, n) <= MEMORY_DB_MAX_BOARDS, "h={h} seeds={seeds}: {n}");
            assert!(n <= MEMORY_DB_MAX_SEEDS && n + MEMORY_DB_BELOW <= seeds);
        }
    }
}
