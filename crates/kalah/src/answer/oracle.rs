//! Values of many positions of one board size and rule set, set up once:
//! the openings, the pie rule and seed shifts ([`for_positions`]), the
//! table of starts ([`for_starts`]).
//!
//! An [`Oracle`] is a database that covers every position asked, a
//! search with one transposition table (and database) kept from position
//! to position, retrograde analysis for clockwise sowing, or where that
//! does not fit, bounds proven over a smaller database.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kalah_core::{boards_up_to, Board, Engine, Position, Rules};
use kalah_db::{human_bytes, Database, Tablebase};
use kalah_search::{analyze_from_table, Bounded, SearchOptions, Solver};

use crate::answer::plan::{self, Plan, Step, Table};
use crate::answer::setup::{bound_solver_over, solver_over, BoundsOverDatabase, Load, Setup};
use crate::answer::sizes::{bounds_tt_mb, check_table_memory, default_memory_seeds, retrograde_fits, BOUNDS_TIME};
use crate::databases::{for_search, Databases, Purpose, SetupBudget, ANALYSIS_LOAD_GAP, VALUE_LOAD_GAP};
use crate::error::{Error, Field, Result};
use crate::text::{article, group};

/// Values of positions of one board size and rule set.
pub trait Oracle: Sync {
    /// The exact value of `position` for the player to move.
    fn value(&self, position: &Position) -> Result<i32>;
    /// The value, or if `deadline` passes first the bounds proven on it.
    fn bounds(&self, position: &Position, deadline: Option<Instant>) -> Result<Bounded> {
        let _ = deadline;
        let v = self.value(position)?;
        Ok(Bounded { lower: v, upper: v })
    }
    /// Every move's exact value and a line of best play of `position`
    /// (an opening book's entry). Refused where values are only bounds
    /// (clockwise sowing beyond retrograde analysis).
    fn analysis(&self, position: &Position) -> Result<kalah_search::Analysis> {
        let _ = position;
        Err(Error::refused("every move's exact value is not proven here (clockwise sowing beyond retrograde analysis)"))
    }
    /// Nodes searched so far.
    fn nodes(&self) -> u64 {
        0
    }
    /// The seeds of the database that answers or backs the searches, if any.
    fn database_seeds(&self) -> Option<u32> {
        None
    }
    /// Whether answering `position` takes a search (else it is read from a table).
    fn searches(&self, position: &Position) -> bool {
        let _ = position;
        true
    }
    /// How `position` is answered, for people: `database`, `search`, or
    /// how bounds are proven.
    fn method(&self, position: &Position) -> String {
        match self.database_seeds() {
            Some(n) if position.seeds_in_houses() <= n => "database".into(),
            _ => "search".into(),
        }
    }
}

/// The value of `board` for its mover read without a search: the game is
/// over, or `table` covers the board and holds its value exactly; `None`
/// if neither (a table in a window encoding may hold only bounds). An
/// error if the table met a damaged block (every value read since may be
/// wrong).
pub fn table_value<T: Tablebase + ?Sized>(engine: &Engine, table: &T, board: Board) -> Result<Option<i32>> {
    let v = match engine.terminal_value(board) {
        Some(v) => v,
        None if table.max_seeds().is_some_and(|m| board.total() <= m) => match table.exact_value(board) {
            Some(v) => v,
            None => return Ok(None),
        },
        None => return Ok(None),
    };
    match table.failure() {
        Some(why) => Err(Error::corrupt(why)),
        None => Ok(Some(v)),
    }
}

/// Refuses a position of another board size than `engine`'s.
fn check_houses(engine: &Engine, position: &Position) -> Result<()> {
    if position.houses() != engine.houses() {
        return Err(Error::bad_input(format!("the position has {} houses a side, the oracle {}", position.houses(), engine.houses())));
    }
    Ok(())
}

/// Values read from a table: exact, and refused for a position it does not cover.
#[derive(Debug)]
pub struct TableOracle<T: Tablebase> {
    engine: Engine,
    table: T,
}

impl<T: Tablebase> TableOracle<T> {
    /// Values of `engine`'s positions from `table`, which must be for its
    /// board and rules.
    pub fn new(engine: Engine, table: T) -> Result<TableOracle<T>> {
        if table.houses() != engine.houses() || table.rules() != engine.rules() {
            return Err(Error::bad_input(format!(
                "the database is for {} houses and {}, not {} houses and {}",
                table.houses(),
                table.rules(),
                engine.houses(),
                engine.rules()
            )));
        }
        Ok(TableOracle { engine, table })
    }
}

impl<T: Tablebase> Oracle for TableOracle<T> {
    fn value(&self, position: &Position) -> Result<i32> {
        check_houses(&self.engine, position)?;
        let board = position.mover_board();
        let Some(v) = table_value(&self.engine, &self.table, board)? else {
            return Err(Error::bad_input(format!(
                "the position has {} seeds in its houses; the database covers at most {}",
                board.total(),
                self.table.max_seeds().unwrap_or(0)
            )));
        };
        Ok(position.store_difference() + v)
    }
    fn analysis(&self, position: &Position) -> Result<kalah_search::Analysis> {
        self.value(position)?;
        Ok(analyze_from_table(&self.engine, &self.table, position)?)
    }
    fn database_seeds(&self) -> Option<u32> {
        self.table.max_seeds()
    }
    fn searches(&self, _: &Position) -> bool {
        false
    }
    fn method(&self, _: &Position) -> String {
        "database".into()
    }
}

/// Values found by one search with one transposition table.
#[derive(Debug)]
pub struct SearchOracle<T: Tablebase>(Solver<T>);

impl<T: Tablebase> Oracle for SearchOracle<T> {
    fn value(&self, position: &Position) -> Result<i32> {
        Ok(self.0.analyze(position, false, false)?.value)
    }
    fn analysis(&self, position: &Position) -> Result<kalah_search::Analysis> {
        Ok(self.0.analyze(position, true, true)?)
    }
    fn bounds(&self, position: &Position, deadline: Option<Instant>) -> Result<Bounded> {
        match deadline {
            Some(d) => Ok(self.0.bounds_within(position, d)?),
            None => {
                let v = self.value(position)?;
                Ok(Bounded { lower: v, upper: v })
            }
        }
    }
    fn nodes(&self) -> u64 {
        self.0.nodes()
    }
    fn database_seeds(&self) -> Option<u32> {
        self.0.tablebase().max_seeds()
    }
}

/// Clockwise positions too large for retrograde analysis: bounds proven
/// within `limit` a position ([`Setup::bound_solver`]); a value not proven
/// by then is an error.
#[derive(Debug)]
pub struct BoundOracle {
    solver: BoundsOverDatabase,
    limit: Duration,
}

impl Oracle for BoundOracle {
    fn value(&self, position: &Position) -> Result<i32> {
        let b = self.bounds(position, None)?;
        if b.is_exact() {
            return Ok(b.lower);
        }
        Err(Error::refused(format!(
            "the value of {} is not proven within {} s (only {}..{}): clockwise play beyond retrograde analysis",
            position.ring(),
            self.limit.as_secs_f64(),
            b.lower,
            b.upper
        )))
    }
    fn bounds(&self, position: &Position, deadline: Option<Instant>) -> Result<Bounded> {
        let deadline = deadline.unwrap_or_else(|| Instant::now() + self.limit);
        Ok(self.solver.bounds_within(position, deadline)?)
    }
    fn nodes(&self) -> u64 {
        self.solver.nodes()
    }
    fn database_seeds(&self) -> Option<u32> {
        self.solver.tablebase().max_seeds()
    }
}

/// Clockwise sowing: positions the table (every board up to its seeds, by
/// retrograde analysis) covers are read from it, larger ones get bounds
/// proven by a search over it, each with a table of its own.
pub struct ClockwiseOracle {
    engine: Engine,
    table: Table,
    threads: usize,
    largest: u32,
    /// The table size asked for; else decided for each proof by the time
    /// it has ([`bounds_tt_mb`]).
    tt_mb: Option<usize>,
    nodes: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for ClockwiseOracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClockwiseOracle").field("engine", &self.engine).field("max_seeds", &self.table.max_seeds()).finish()
    }
}

impl ClockwiseOracle {
    fn covers(&self, position: &Position) -> bool {
        self.table.max_seeds().is_some_and(|m| position.seeds_in_houses() <= m)
    }
}

impl Oracle for ClockwiseOracle {
    fn value(&self, position: &Position) -> Result<i32> {
        let b = self.bounds(position, Some(Instant::now() + BOUNDS_TIME))?;
        match b.is_exact() {
            true => Ok(b.lower),
            false => Err(Error::refused(format!(
                "the value of {} is not proven within {} s (only {}..{})",
                position.ring(),
                BOUNDS_TIME.as_secs(),
                b.lower,
                b.upper
            ))),
        }
    }
    fn bounds(&self, position: &Position, deadline: Option<Instant>) -> Result<Bounded> {
        check_houses(&self.engine, position)?;
        if let Some(v) = table_value(&self.engine, &self.table, position.mover_board())? {
            let v = position.store_difference() + v;
            return Ok(Bounded { lower: v, upper: v });
        }
        let deadline = deadline.unwrap_or_else(|| Instant::now() + BOUNDS_TIME);
        let h = self.engine.houses();
        let n = self.table.max_seeds().unwrap_or(0);
        let mb = self.tt_mb.unwrap_or_else(|| bounds_tt_mb(h, self.largest, n, deadline.saturating_duration_since(Instant::now())));
        let options = SearchOptions { threads: self.threads, tt_bytes: mb << 20, max_seeds: Some(self.largest) };
        check_table_memory(options.reserved_bytes(h) as u64)?;
        let solver = bound_solver_over(&self.engine, self.table.clone(), options)?;
        let bounds = solver.bounds_within(position, deadline)?;
        self.nodes.fetch_add(solver.nodes(), std::sync::atomic::Ordering::Relaxed);
        Ok(bounds)
    }
    fn nodes(&self) -> u64 {
        self.nodes.load(std::sync::atomic::Ordering::Relaxed)
    }
    fn database_seeds(&self) -> Option<u32> {
        self.table.max_seeds()
    }
    fn searches(&self, position: &Position) -> bool {
        !self.covers(position)
    }
    fn method(&self, position: &Position) -> String {
        if self.covers(position) {
            return "database".into();
        }
        format!(
            "bounds: searches to growing depths over the {}-seed database, the horizon at its worst and at its best",
            self.table.max_seeds().unwrap_or(0)
        )
    }
}

/// The best oracle for many positions of up to `seeds` seeds (the
/// openings of one start, its seed shifts): a database that covers them
/// all, retrograde analysis for clockwise sowing, or where that does not
/// fit bounds proven within `limit` a position (default [`BOUNDS_TIME`]),
/// else a search (backed by the database if there is one). The set-up
/// serves every position: it is not held to one's limit.
pub fn for_positions(databases: &Databases, setup: &Setup<'_>, seeds: u32, limit: Option<Duration>) -> Result<Box<dyn Oracle>> {
    let engine = setup.engine;
    let (h, rules) = (engine.houses(), engine.rules());
    let purpose = Purpose { houses: h, rules, seeds, gap: ANALYSIS_LOAD_GAP };
    let file = databases.open_for(setup.spec, purpose, SetupBudget::UNLIMITED, setup.observer)?;
    let step = match plan::step(setup, seeds, file)? {
        Plan::Take(step) => step,
        Plan::Build { seeds: n, file } => plan::built(seeds, setup.build_noted(n, file.is_some())?.map(Arc::new), file),
    };
    Ok(match step {
        Step::Probe(table) => Box::new(TableOracle::new(engine.clone(), table)?),
        Step::Bounds(file) => {
            let limit = limit.unwrap_or(BOUNDS_TIME);
            let (solver, _) = setup.bound_solver(seeds, file, limit)?;
            Box::new(BoundOracle { solver, limit })
        }
        Step::Retrograde { .. } => Box::new(TableOracle::new(engine.clone(), setup.retrograde_table(seeds)?)?),
        Step::Search { memory, file } => Box::new(SearchOracle(setup.searcher(seeds, memory, file, Load::Whole)?)),
    })
}

/// Why retrograde analysis of every board of `h` houses with up to `seeds` seeds is refused.
fn clockwise_refusal(h: usize, seeds: u32, rules: Rules) -> String {
    let boards = group(boards_up_to(h, seeds));
    if seeds > kalah_db::builder::MAX_SEEDS {
        return format!("retrograde analysis of {boards} boards: more seeds than a database holds (at most {})", kalah_db::builder::MAX_SEEDS);
    }
    let free = kalah_db::writer::available_memory().map_or(String::new(), |f| format!(", {} is available", human_bytes(f)));
    format!("retrograde analysis of {boards} boards needs {} of memory{free}", human_bytes(kalah_db::builder::memory_needed(h, seeds, rules)))
}

/// Clockwise starts: every board up to `build_seeds`, or by default up to
/// the largest start that fits in memory (else the most seeds that fit),
/// solved by retrograde analysis; larger starts get bounds from searches
/// over it.
fn clockwise(setup: &Setup<'_>, largest: u32) -> Result<Box<dyn Oracle>> {
    let engine = setup.engine;
    let (h, rules) = (engine.houses(), engine.rules());
    let n = match setup.spec.build_seeds {
        Some(n) => {
            let n = n.min(largest);
            if !retrograde_fits(h, n, rules) {
                return Err(Error::refused(format!("a {n}-seed database built in memory: {}", clockwise_refusal(h, n, rules))).about(Field::DbSeeds));
            }
            n
        }
        None => {
            let step = 2 * h as u32;
            (1..=largest / step).rev().map(|s| s * step).chain((0..step).rev()).find(|&n| retrograde_fits(h, n, rules)).unwrap_or(0)
        }
    };
    setup.observer.note(&format!(
        "{h} houses, clockwise: retrograde analysis of {} boards ({} of memory){}",
        group(boards_up_to(h, n)),
        human_bytes(kalah_db::builder::memory_needed(h, n, rules)),
        if n < largest { format!("; starts of more than {n} seeds get bounds from searches over it") } else { String::new() }
    ));
    if n < largest && setup.spec.build_seeds.is_none() {
        setup.observer.note(&format!("exact values up to {largest} seeds: {}", clockwise_refusal(h, largest, rules)));
    }
    let table = Table::Memory(Arc::new(setup.build(n)?));
    Ok(Box::new(ClockwiseOracle { engine: engine.clone(), table, threads: setup.threads, largest, tt_mb: setup.tt_mb, nodes: Default::default() }))
}

/// The oracle for the starts of one board size with up to `largest` seeds
/// (`kalah table`): the file a value search of the largest start would
/// pick (or with a size asked for, the largest file), if it covers every
/// start; clockwise, retrograde analysis ([`ClockwiseOracle`]); else a
/// search over that file, or over a database built in memory first (the
/// size asked for, or by default the one a search of the largest start
/// builds), or over none. The observer hears which.
pub fn for_starts(databases: &Databases, setup: &Setup<'_>, largest: u32) -> Result<Box<dyn Oracle>> {
    let engine = setup.engine;
    let (h, rules) = (engine.houses(), engine.rules());
    let build_seeds = setup.spec.build_seeds;
    let path = match build_seeds {
        Some(_) => databases.largest(h, rules, u64::MAX),
        None => {
            let choice = databases.choose(Purpose { houses: h, rules, seeds: largest, gap: VALUE_LOAD_GAP }, setup.budget);
            if let Some((passed, _)) = &choice.passed_over {
                setup
                    .observer
                    .note(&format!("{h} houses: {} is not loaded: it would take more than a quarter of the entries' time limits", passed.display()));
            }
            choice.path
        }
    };
    let file = match path.map(|p| Database::open_for(&p, h, rules)).transpose()? {
        Some(db) if db.header().max_seeds >= largest => return Ok(Box::new(TableOracle::new(engine.clone(), db)?)),
        other => other,
    };
    if rules.may_cycle() {
        return clockwise(setup, largest);
    }
    // No file and no size asked for: the size `solve` builds by default.
    let build_seeds = match (build_seeds, &file) {
        (None, None) => default_memory_seeds(h, largest, setup.work, setup.budget.build_boards),
        (asked, _) => asked,
    };
    let database = match (build_seeds, file) {
        (Some(n), Some(d)) if d.header().max_seeds >= n => Some(Table::File(Arc::new(for_search(d, setup.threads)?))),
        (Some(0), _) => None,
        (Some(n), _) => {
            // Checked as asked, as `solve` checks it, before it is cut to the starts' seeds.
            kalah_db::builder::check_size(h, n)
                .map_err(|e| Error::refused(format!("a {n}-seed database built in memory: {e}")).about(Field::DbSeeds))?;
            let n = n.min(largest);
            let (memory, _) = kalah_db::build::requirements(h, n, rules, kalah_db::Encoding::Byte);
            let free = kalah_db::writer::available_memory().unwrap_or(u64::MAX);
            if memory > free {
                return Err(Error::refused(format!(
                    "a {n}-seed database built in memory: {} {h}-house database of {n} seeds needs {} of memory, {} is available",
                    article(h as u64),
                    human_bytes(memory),
                    human_bytes(free)
                ))
                .about(Field::DbSeeds));
            }
            setup.observer.note(&format!(
                "{h} houses: building {} {n}-seed database in memory ({} boards)",
                article(n.into()),
                group(boards_up_to(h, n))
            ));
            Some(Table::Memory(Arc::new(setup.build(n)?)))
        }
        (None, Some(d)) => Some(Table::File(Arc::new(for_search(d, setup.threads)?))),
        (None, None) => None,
    };
    // Checked with the database in memory: what is available is what is left.
    let options = setup.search_options(largest, database.as_ref().and_then(|t| t.max_seeds()));
    check_table_memory(options.reserved_bytes(h) as u64)?;
    let table = database.unwrap_or_else(|| Table::none(h, rules));
    Ok(Box::new(SearchOracle(solver_over(engine, table, options)?)))
}
