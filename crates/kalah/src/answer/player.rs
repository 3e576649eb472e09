//! Values and best moves for a game played from one start: what `kalah
//! play` (and any program that plays) asks position after position.
//!
//! # Where the values come from
//!
//! One [`Brain`] serves the whole game, built once at the start by
//! [`for_game`] (every later position has at most the start's seeds in
//! its houses):
//!
//! * an endgame database that covers the start: every value is a probe;
//! * clockwise sowing without one: every board with up to the start's
//!   seeds solved in memory by retrograde analysis, then probes; where
//!   that does not fit, values proven by searches over a smaller database
//!   (an error if one is not proven within a minute);
//! * otherwise one [`Solver`], so its transposition table (and the
//!   database behind it, if any) carries over from move to move, with a
//!   cache of the exact board values it has found.
//!
//! # How a best move is chosen
//!
//! A best move, never anything less: a move whose exact value equals the
//! position's value. From a table it is the first move of the table's line
//! of best play, which under clockwise sowing also makes progress towards
//! cashing in a lead (see `kalah_search::analyze_from_table`). From a
//! search: the position's exact value first, then a move whose bounds in
//! the transposition table already prove that it reaches it (the search
//! that proved the value usually left them), else the remaining moves
//! solved exactly, the most promising first. While a person thinks, a
//! brain may *ponder* ([`Brain::ponder`]): in the background it computes
//! the value of every move and then its own best reply to each, best moves
//! first, in slices of search (a tenth of a second, growing to 0.8 s) so
//! that it stops soon after the person answers; all it learns stays in the
//! table and the caches.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kalah_core::{boards_up_to, Board, Engine, Next, Outcome, Position, Side};
use kalah_db::Tablebase;
use kalah_search::{analyze_from_table, table_move, Bounded, SearchError, Solver};

use crate::memory::book::Book;
use crate::databases::{Databases, INTERACTIVE_LOAD_LIMIT};
use crate::error::{Error, Result};
use crate::answer::oracle::table_value;
use crate::answer::plan::{self, Plan, Step, Table};
use crate::report::UsedDatabase;
use crate::answer::setup::{BoundsOverDatabase, Load, Setup, BOUNDS_TIME};
use crate::text::{a_size, group};

/// How long the first slice of pondering may run before it checks whether
/// the human has answered; each further slice on the same board runs
/// twice as long, up to [`PONDER_SLICE_MAX`], so that a search whose
/// re-entry through the table takes longer than a slice still progresses.
const PONDER_SLICE: Duration = Duration::from_millis(100);
/// The longest slice of pondering.
const PONDER_SLICE_MAX: Duration = Duration::from_millis(800);

/// The one source of values for a game from `start`: see the module
/// docs. The database is the file named, or the largest default one of at
/// most [`INTERACTIVE_LOAD_LIMIT`] bytes; without either, one built in
/// memory, which, when its size was not asked for, is kept as a file of
/// `databases` for the next game or search ([`Databases::keep_built`]).
pub fn for_game(databases: &Databases, setup: &Setup<'_>, start: &Position) -> Result<Box<dyn Brain>> {
    let engine = setup.engine.clone();
    let (h, rules) = (engine.houses(), engine.rules());
    if start.houses() != h {
        return Err(Error::bad_input(format!("the start has {} houses a side, the rules engine {h}", start.houses())));
    }
    let (threads, seeds) = (setup.threads, start.seeds_in_houses());
    let file = databases.open_up_to(setup.spec, h, rules, INTERACTIVE_LOAD_LIMIT)?;
    let step = match plan::step(setup, seeds, file)? {
        Plan::Take(step) => step,
        Plan::Build { seeds: n, file } => {
            let mut memory = setup.build_noted(n, file.is_some())?;
            if let (Some(builder), None) = (memory.as_mut(), setup.spec.build_seeds) {
                databases.keep_built(builder, setup.observer);
            }
            plan::built(seeds, memory.map(Arc::new), file)
        }
    };
    let brain: Box<dyn Brain> = match step {
        Step::Probe(table) => {
            let what = match &table {
                Table::File(d) => format!("the {}-seed database {}", d.header().max_seeds, d.path().display()),
                _ => table.describe(),
            };
            Box::new(TableBrain { engine, table, what })
        }
        Step::Bounds(file) => {
            let (solver, used) = setup.bound_solver(seeds, file, BOUNDS_TIME)?;
            let what = format!(
                "proofs by searches over {} (clockwise play can be endless; every value is proven, within {} s a position)",
                match used {
                    Some(UsedDatabase { path: Some(p), max_seeds, .. }) => format!("the {max_seeds}-seed database {p}"),
                    Some(UsedDatabase { max_seeds, .. }) => format!("the {max_seeds}-seed database built in memory"),
                    None => "no database".to_string(),
                },
                BOUNDS_TIME.as_secs()
            );
            Box::new(BoundBrain::new(solver, what))
        }
        Step::Retrograde { .. } => {
            let table = setup.retrograde_table(seeds)?;
            let what = format!("retrograde analysis of all {} boards with up to {seeds} seeds (clockwise play can be endless)", group(boards_up_to(h, seeds)));
            Box::new(TableBrain { engine, table, what })
        }
        Step::Search { memory, file } => {
            let backed = match (&memory, &file) {
                (Some(b), _) => format!(" backed by the {}-seed database built in memory", b.indexer().max_seeds()),
                (None, Some(d)) => format!(" backed by the {}-seed database {}", d.header().max_seeds, d.path().display()),
                (None, None) => ", no endgame database".to_string(),
            };
            let solver = setup.searcher(seeds, memory, file, Load::UpTo(INTERACTIVE_LOAD_LIMIT))?;
            let plural = if threads == 1 { "" } else { "s" };
            let what = format!("a search ({threads} thread{plural}, {} table){backed}", a_size(solver.tt_bytes() as u64));
            Box::new(SearchBrain::new(solver, what))
        }
    };
    Ok(brain)
}

/// Exact values for the game, however they are found; see the module docs.
pub trait Brain: Send + Sync {
    /// The rules engine.
    fn engine(&self) -> &Engine;
    /// The exact value of `board` for its mover (future store difference),
    /// or `None` if `cancel` was raised first.
    fn board_value(&self, board: Board, cancel: Option<&AtomicBool>) -> Result<Option<i32>>;
    /// A best move (1-based house) of the player to move in `position`;
    /// `None` if `cancel` was raised first. A position of another board
    /// size than the engine's, or a game already over, is bad input.
    fn best_move(&self, position: &Position, cancel: Option<&AtomicBool>) -> Result<Option<usize>>;
    /// Whether values of `board` take a search (so are worth pondering).
    fn searches(&self, board: Board) -> bool;
    /// Thinks on a person's time in `position` (a person to move) until
    /// `cancel` is raised: a search brain works out the moves' values and its
    /// replies to them (see the module docs).
    fn ponder(&self, _position: &Position, _computer: &dyn Fn(Side) -> bool, _cancel: &AtomicBool) {}
    /// Where the values come from, for people.
    fn describe(&self) -> &str;
    /// The value of move `house` (1-based) of `board` for its mover, if
    /// known without a search (an opening book's).
    fn known_move_value(&self, _board: Board, _house: usize) -> Option<i32> {
        None
    }
}

/// The value of move `house` (1-based) of `board` for its mover, from
/// the board values of `brain`.
pub fn move_value(
    brain: &dyn Brain,
    board: Board,
    house: usize,
    cancel: Option<&AtomicBool>,
) -> Result<Option<i32>> {
    if let Some(v) = brain.known_move_value(board, house) {
        return Ok(Some(v));
    }
    let o = brain.engine().play(board, house - 1);
    Ok(match o.next {
        Next::Over => Some(o.gain()),
        _ => brain.board_value(o.board, cancel)?.map(|v| o.value_with(v)),
    })
}

/// Every legal move of `position` with its exact value (final store
/// difference for the player to move), in house order; none for a game
/// that is over. A position of another board size than the brain's
/// engine is bad input.
pub fn move_values(
    brain: &dyn Brain,
    position: &Position,
    cancel: Option<&AtomicBool>,
) -> Result<Option<Vec<(usize, i32)>>> {
    answerable(brain.engine(), position, false)?;
    if position.is_over(brain.engine()) {
        // A side may still hold seeds (an end rule ended it): no move is legal.
        return Ok(Some(Vec::new()));
    }
    let board = position.mover_board();
    let base = position.store_difference();
    let mut out = Vec::new();
    for house in position.legal_moves() {
        match move_value(brain, board, house, cancel)? {
            Some(v) => out.push((house, base + v)),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// Refuses what a brain of `engine` cannot answer: a position of another
/// board size (its values would be another game's) or, for a best move,
/// a game already over.
fn answerable(engine: &Engine, position: &Position, wants_move: bool) -> Result<()> {
    if position.houses() != engine.houses() {
        return Err(Error::bad_input(format!(
            "a position of {} houses asked of a player of Kalah with {} houses",
            position.houses(),
            engine.houses()
        )));
    }
    if wants_move && position.is_over(engine) {
        return Err(Error::bad_input(format!("{}: the game is over, there is no move to play", position.ring())));
    }
    Ok(())
}

/// How well a computer player plays, for teaching (`kalah play --level`):
/// the perfect player always plays a best move; the others, on some turns,
/// a move that is not best, chosen at random among those that give away
/// at most a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// Always a best move.
    Perfect,
    /// One turn in four, a move that gives away at most 4.
    Strong,
    /// Half the turns, a move that gives away at most 10.
    Fair,
    /// Any legal move, each as likely (a best one included).
    Random,
}

impl Level {
    /// Every level, strongest first.
    pub const ALL: [Level; 4] = [Level::Perfect, Level::Strong, Level::Fair, Level::Random];

    /// Its name, as `--level` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Perfect => "perfect",
            Level::Strong => "strong",
            Level::Fair => "fair",
            Level::Random => "random",
        }
    }

    /// How it plays, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Level::Perfect => "always a best move",
            Level::Strong => "a best move three turns in four, otherwise one that gives away at most 4",
            Level::Fair => "a best move every other turn, otherwise one that gives away at most 10",
            Level::Random => "any legal move, each as likely",
        }
    }

    /// The level named `name` (as [`Level::name`] gives it).
    pub fn from_name(name: &str) -> Result<Level> {
        Level::ALL.into_iter().find(|l| l.name() == name.trim().to_ascii_lowercase()).ok_or_else(|| {
            let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
            Error::bad_input(format!("level {name:?}: one of {}", names.join(", ")))
        })
    }

    /// Whether the level needs every move's value to choose (all but the
    /// perfect player, who needs only a best move).
    pub fn needs_values(self) -> bool {
        self != Level::Perfect
    }

    /// The move this level plays instead of a best one, given every legal
    /// move's value (`values`: house and value, as [`move_values`] gives
    /// them), or `None` for a best move (which the brain chooses: under
    /// clockwise sowing the one that makes progress). `roll(n)` is a
    /// uniform random number below `n`.
    pub fn deviate(self, values: &[(usize, i32)], roll: &mut dyn FnMut(usize) -> usize) -> Option<usize> {
        let best = values.iter().map(|&(_, v)| v).max()?;
        let (turns_in_four, most) = match self {
            Level::Perfect => return None,
            Level::Strong => (1, 4),
            Level::Fair => (2, 10),
            Level::Random => {
                let (house, v) = values[roll(values.len())];
                return (v < best).then_some(house);
            }
        };
        if roll(4) >= turns_in_four {
            return None;
        }
        let weaker: Vec<usize> = values.iter().filter(|&&(_, v)| v < best && best - v <= most).map(|&(h, _)| h).collect();
        (!weaker.is_empty()).then(|| weaker[roll(weaker.len())])
    }
}

/// The value of `board` for its mover if it is known without a search:
/// the game is over, `table` covers the board, or `values` holds it.
fn known_value<T: Tablebase>(engine: &Engine, table: &T, values: &Mutex<HashMap<Board, i32>>, board: Board) -> Result<Option<i32>> {
    if let Some(v) = table_value(engine, table, board)? {
        return Ok(Some(v));
    }
    Ok(values.lock().unwrap_or_else(|e| e.into_inner()).get(&board).copied())
}

/// Bounds for its mover on a move with outcome `o`, from bounds on the
/// value of the board it leads to (`child`, asked only if the game goes on).
fn outcome_bounds(o: &Outcome, child: impl FnOnce(Board) -> Result<(i32, i32)>) -> Result<(i32, i32)> {
    if o.next == Next::Over {
        return Ok((o.gain(), o.gain()));
    }
    let (lower, upper) = child(o.board)?;
    Ok(match o.next {
        Next::Mover => (o.gain() + lower, o.gain() + upper),
        _ => (o.gain() - upper, o.gain() - lower),
    })
}

/// Makes the brain for the positions an opening book does not hold.
pub type MakeBrain = Box<dyn FnOnce() -> Result<Box<dyn Brain>> + Send>;

/// A brain that answers from an opening book where it holds the board, and
/// elsewhere from another brain, made (its database loaded or built) only
/// when first needed: a game's first moves are answered at once.
pub struct BookBrain {
    engine: Engine,
    book: std::sync::Arc<Book>,
    make: Mutex<Option<MakeBrain>>,
    inner: std::sync::OnceLock<std::result::Result<Box<dyn Brain>, (crate::error::ErrorKind, String)>>,
    what: String,
}

impl std::fmt::Debug for BookBrain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BookBrain").field("engine", &self.engine).field("entries", &self.book.len()).field("made", &self.inner.get().is_some()).finish()
    }
}

impl BookBrain {
    /// Book answers for the game of `engine`'s rules; `make` gives the
    /// brain for the rest (see [`Analyzer::player`](crate::Analyzer::player)).
    pub fn new(engine: Engine, book: std::sync::Arc<Book>, make: MakeBrain) -> BookBrain {
        let what = "the opening book, and beyond it a search or a database set up at the first position the book does not hold".to_string();
        BookBrain { engine, book, make: Mutex::new(Some(make)), inner: std::sync::OnceLock::new(), what }
    }

    fn entry(&self, board: Board) -> Option<&crate::memory::book::BookEntry> {
        let position = Position::from_mover_board(self.engine.houses(), board, Side::South, [0, 0]).ok()?;
        self.book.lookup(self.engine.rules(), &position)
    }

    fn inner(&self) -> Result<&dyn Brain> {
        let made = self.inner.get_or_init(|| {
            let make = self.make.lock().unwrap_or_else(|e| e.into_inner()).take();
            match make {
                Some(make) => make().map_err(|e| (e.kind(), e.to_string())),
                None => Err((crate::error::ErrorKind::Internal, "the brain beyond the book was made twice".into())),
            }
        });
        match made {
            Ok(brain) => Ok(brain.as_ref()),
            Err((kind, message)) => Err(Error::of_kind(*kind, message.clone())),
        }
    }
}

impl Brain for BookBrain {
    fn engine(&self) -> &Engine {
        &self.engine
    }

    fn board_value(&self, board: Board, cancel: Option<&AtomicBool>) -> Result<Option<i32>> {
        match self.entry(board).and_then(|e| e.value()) {
            Some(v) => Ok(Some(v)),
            None => self.inner()?.board_value(board, cancel),
        }
    }

    fn best_move(&self, position: &Position, cancel: Option<&AtomicBool>) -> Result<Option<usize>> {
        answerable(self.engine(), position, true)?;
        match self.entry(position.mover_board()).and_then(|e| e.line.first()) {
            Some(&house) => Ok(Some(house as usize)),
            None => self.inner()?.best_move(position, cancel),
        }
    }

    fn searches(&self, board: Board) -> bool {
        // Outside the book a search is likely: pondering then makes the brain.
        self.entry(board).is_none()
    }

    fn ponder(&self, position: &Position, computer: &dyn Fn(Side) -> bool, cancel: &AtomicBool) {
        if self.entry(position.mover_board()).is_none() {
            if let Ok(inner) = self.inner() {
                inner.ponder(position, computer, cancel);
            }
        }
    }

    fn describe(&self) -> &str {
        &self.what
    }

    fn known_move_value(&self, board: Board, house: usize) -> Option<i32> {
        self.entry(board).and_then(|e| e.moves.get(house.checked_sub(1)?).copied().flatten())
    }
}

/// Values read from a table that covers every board of the game.
struct TableBrain<T: Tablebase> {
    engine: Engine,
    table: T,
    what: String,
}

impl<T: Tablebase> Brain for TableBrain<T> {
    fn engine(&self) -> &Engine {
        &self.engine
    }

    fn board_value(&self, board: Board, _: Option<&AtomicBool>) -> Result<Option<i32>> {
        match table_value(&self.engine, &self.table, board)? {
            Some(v) => Ok(Some(v)),
            // The table covers the start, and play only takes seeds away.
            None => Err(Error::bad_input(format!("a board of {} seeds, more than the game's table covers", board.total()))),
        }
    }

    fn best_move(&self, position: &Position, _: Option<&AtomicBool>) -> Result<Option<usize>> {
        answerable(self.engine(), position, true)?;
        table_best_move(&self.engine, &self.table, position).map(Some)
    }

    fn searches(&self, _: Board) -> bool {
        false
    }

    fn describe(&self) -> &str {
        &self.what
    }
}

/// The first move of the table's line of best play (which makes progress
/// under clockwise sowing, where merely keeping the value may go round in
/// circles).
fn table_best_move<T: Tablebase>(engine: &Engine, table: &T, position: &Position) -> Result<usize> {
    if let Some(house) = table_move(engine, table, position) {
        return Ok(house);
    }
    // Damaged, or no line: the full analysis reports what is wrong.
    let a = analyze_from_table(engine, table, position)?;
    a.moves
        .iter()
        .find(|m| m.value == a.value)
        .map(|m| m.house)
        .ok_or_else(|| Error::internal(format!("internal error: no best move in {}", position.ring())))
}

/// Whether `table` covers `board`.
fn covers<T: Tablebase>(table: &T, board: Board) -> bool {
    table.max_seeds().is_some_and(|m| board.total() <= m)
}

/// An error if `table` met a damaged block: values read since may be wrong.
fn checked<T: Tablebase>(table: &T) -> Result<()> {
    match table.failure() {
        Some(why) => Err(Error::corrupt(why)),
        None => Ok(()),
    }
}

/// An exact value proven in slices of growing length, each resuming from
/// the transposition table: `prove(deadline)` gives the bounds proven by
/// then, `unmet(bounds)` may give up after a slice whose bounds did not
/// meet. `None` if `cancel` was raised first.
fn proven_in_slices(
    cancel: Option<&AtomicBool>,
    prove: impl Fn(Instant) -> Result<Bounded, SearchError>,
    unmet: impl Fn(Bounded) -> Result<()>,
) -> Result<Option<i32>> {
    let mut slice = PONDER_SLICE;
    loop {
        if cancel.is_some_and(|c| c.load(Relaxed)) {
            return Ok(None);
        }
        let b = prove(Instant::now() + slice)?;
        if b.is_exact() {
            return Ok(Some(b.lower));
        }
        unmet(b)?;
        slice = (slice * 2).min(PONDER_SLICE_MAX);
    }
}

/// Values found by one search that lasts the whole game; see the module docs.
struct SearchBrain<T: Tablebase> {
    solver: Solver<T>,
    /// Exact board values found so far.
    values: Mutex<HashMap<Board, i32>>,
    /// Best moves found so far (1-based houses), by board.
    replies: Mutex<HashMap<Board, usize>>,
    what: String,
}

impl<T: Tablebase> SearchBrain<T> {
    fn new(solver: Solver<T>, what: String) -> Self {
        SearchBrain {
            solver,
            values: Mutex::new(HashMap::new()),
            replies: Mutex::new(HashMap::new()),
            what,
        }
    }

    /// Bounds on the value of move `house` (1-based) of `board` for its
    /// mover, from what is known without searching: exact values found
    /// before, the database, and the transposition table (a search whose
    /// deadline has already passed reports the bounds proven so far).
    fn move_bounds(&self, board: Board, house: usize) -> Result<(i32, i32)> {
        outcome_bounds(&self.engine().play(board, house - 1), |child| {
            if let Some(v) = known_value(self.engine(), self.solver.tablebase(), &self.values, child)? {
                return Ok((v, v));
            }
            let position = Position::from_mover_board(self.engine().houses(), child, Side::South, [0, 0])?;
            let b = self
                .solver
                .value_within(&position, Instant::now())
                ?;
            Ok((b.lower, b.upper))
        })
    }
}

impl<T: Tablebase> SearchBrain<T> {
    /// [`Brain::ponder`]; `None` when cancelled. Errors are left for the
    /// game to meet again when it asks the same questions.
    fn ponder_until(&self, position: &Position, computer: &dyn Fn(Side) -> bool, cancel: &AtomicBool) -> Option<()> {
        let engine = self.engine();
        let board = position.mover_board();
        self.board_value(board, Some(cancel)).ok()??;
        let mut moves = Vec::new();
        for house in position.legal_moves() {
            let (_, upper) = self.move_bounds(board, house).ok()?;
            moves.push((upper, house));
        }
        moves.sort_by_key(|&(upper, house)| (-upper, house));
        for (_, house) in moves {
            move_value(self, board, house, Some(cancel)).ok()??;
            let (next, _) = position.play(engine, house).ok()?;
            if !next.is_over(engine) && computer(next.to_move()) {
                self.best_move(&next, Some(cancel)).ok()??;
            }
        }
        Some(())
    }
}

impl<T: Tablebase> Brain for SearchBrain<T> {
    fn engine(&self) -> &Engine {
        self.solver.engine()
    }

    fn board_value(&self, board: Board, cancel: Option<&AtomicBool>) -> Result<Option<i32>> {
        if let Some(v) = known_value(self.engine(), self.solver.tablebase(), &self.values, board)? {
            return Ok(Some(v));
        }
        let v = match cancel {
            None => self.solver.board_value(board),
            Some(_) => {
                let position = Position::from_mover_board(self.engine().houses(), board, Side::South, [0, 0])?;
                match proven_in_slices(cancel, |deadline| self.solver.value_within(&position, deadline), |_| Ok(()))? {
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
        };
        checked(self.solver.tablebase())?;
        self.values.lock().unwrap_or_else(|e| e.into_inner()).insert(board, v);
        Ok(Some(v))
    }

    fn best_move(&self, position: &Position, cancel: Option<&AtomicBool>) -> Result<Option<usize>> {
        answerable(self.engine(), position, true)?;
        let board = position.mover_board();
        if covers(self.solver.tablebase(), board) {
            return table_best_move(self.engine(), self.solver.tablebase(), position).map(Some);
        }
        if let Some(&house) = self.replies.lock().unwrap_or_else(|e| e.into_inner()).get(&board) {
            return Ok(Some(house));
        }
        let Some(value) = self.board_value(board, cancel)? else {
            return Ok(None);
        };
        let chosen = |house: usize| {
            self.replies
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(board, house);
            Ok(Some(house))
        };
        // The search that proved the value left bounds on the moves in the
        // transposition table: the move that proves it usually has one
        // that already shows it, so no further search is needed.
        let mut open = Vec::new();
        for house in position.legal_moves() {
            let (lower, upper) = self.move_bounds(board, house)?;
            if lower >= value {
                return chosen(house);
            }
            if upper >= value {
                open.push((upper, house));
            }
        }
        // Otherwise the most promising first, each solved exactly.
        open.sort_by_key(|&(upper, house)| (-upper, house));
        for (_, house) in open {
            let Some(v) = move_value(self, board, house, cancel)? else {
                return Ok(None);
            };
            if v == value {
                return chosen(house);
            }
        }
        Err(Error::internal(format!(
            "internal error: no move of {} reaches its value {value}",
            position.ring()
        )))
    }

    fn searches(&self, board: Board) -> bool {
        self.engine().terminal_value(board).is_none() && !covers(self.solver.tablebase(), board)
    }

    /// The position's value; then, the most promising moves first (by the
    /// bounds that search left in the table), each move's exact value (what
    /// `hint` shows) and, where the computer is to move next, its best
    /// reply, so that a likely move is answered from memory.
    fn ponder(&self, position: &Position, computer: &dyn Fn(Side) -> bool, cancel: &AtomicBool) {
        let _ = self.ponder_until(position, computer, cancel);
    }

    fn describe(&self) -> &str {
        &self.what
    }
}

/// Clockwise sowing on a board too large for retrograde analysis: values
/// proven by searches to growing depths over a smaller database
/// ([`Setup::bound_solver`]), each within [`BOUNDS_TIME`] (an error if its bounds
/// do not meet by then). A best move is one proven to reach the position's
/// exact value (the moves are proven in rounds of growing slices until one
/// is); among those the first round proves, the computer prefers, when
/// ahead, one that cashes something in, then one that leads to a board it
/// has not played to yet, so that a lead is not kept by going round in
/// circles. Boards the database covers are played as [`TableBrain`] plays
/// them.
struct BoundBrain {
    solver: BoundsOverDatabase,
    /// Exact board values found so far.
    values: Mutex<HashMap<Board, i32>>,
    /// The boards the computer's moves led to.
    played: Mutex<HashSet<Board>>,
    what: String,
}

impl BoundBrain {
    fn new(solver: BoundsOverDatabase, what: String) -> Self {
        BoundBrain {
            solver,
            values: Mutex::new(HashMap::new()),
            played: Mutex::new(HashSet::new()),
            what,
        }
    }

    /// Bounds on the value of a move with outcome `o` for its mover,
    /// proven by `deadline` (exact where the value is known).
    fn move_bounds(&self, o: &Outcome, deadline: Instant) -> Result<(i32, i32)> {
        outcome_bounds(o, |child| {
            if let Some(v) = known_value(self.engine(), self.solver.tablebase(), &self.values, child)? {
                return Ok((v, v));
            }
            let position = Position::from_mover_board(self.engine().houses(), child, Side::South, [0, 0])?;
            let b = self.solver.bounds_within(&position, deadline)?;
            if b.is_exact() {
                self.values.lock().unwrap_or_else(|e| e.into_inner()).insert(child, b.lower);
            }
            Ok((b.lower, b.upper))
        })
    }
}

impl Brain for BoundBrain {
    fn engine(&self) -> &Engine {
        self.solver.engine()
    }

    fn board_value(&self, board: Board, cancel: Option<&AtomicBool>) -> Result<Option<i32>> {
        if let Some(v) = known_value(self.engine(), self.solver.tablebase(), &self.values, board)? {
            return Ok(Some(v));
        }
        let position = Position::from_mover_board(self.engine().houses(), board, Side::South, [0, 0])?;
        let started = Instant::now();
        let proven = proven_in_slices(
            cancel,
            |deadline| self.solver.bounds_within(&position, deadline),
            |b| {
                if cancel.is_some() || started.elapsed() < BOUNDS_TIME {
                    return Ok(());
                }
                Err(Error::refused(format!(
                    "the value of {} is not proven within {} s (only {}..{}): clockwise play without an end in sight; \
                     the computer plays only proven best moves",
                    position.ring(),
                    BOUNDS_TIME.as_secs(),
                    b.lower,
                    b.upper
                )))
            },
        )?;
        let Some(v) = proven else {
            return Ok(None);
        };
        checked(self.solver.tablebase())?;
        self.values.lock().unwrap_or_else(|e| e.into_inner()).insert(board, v);
        Ok(Some(v))
    }

    fn best_move(&self, position: &Position, cancel: Option<&AtomicBool>) -> Result<Option<usize>> {
        answerable(self.engine(), position, true)?;
        let board = position.mover_board();
        if covers(self.solver.tablebase(), board) {
            return table_best_move(self.engine(), self.solver.tablebase(), position).map(Some);
        }
        let Some(value) = self.board_value(board, cancel)? else {
            return Ok(None);
        };
        // Rounds of proofs over the moves not yet decided, in growing
        // slices, until some move is proven to reach the value (a move
        // proven to fall short drops out; no move needs an exact value).
        let mut open: Vec<(usize, Outcome)> = position.legal_moves().into_iter().map(|house| (house, self.engine().play(board, house - 1))).collect();
        let mut best = Vec::new();
        let started = Instant::now();
        let mut slice = PONDER_SLICE;
        while best.is_empty() {
            if cancel.is_some_and(|c| c.load(Relaxed)) {
                return Ok(None);
            }
            if cancel.is_none() && started.elapsed() >= BOUNDS_TIME {
                return Err(Error::refused(format!(
                    "no move of {} is proven to reach its value {value} within {} s",
                    position.ring(),
                    BOUNDS_TIME.as_secs()
                )));
            }
            let mut still = Vec::new();
            for (house, o) in open {
                let (lower, upper) = self.move_bounds(&o, Instant::now() + slice)?;
                if lower >= value {
                    best.push((house, o));
                } else if upper >= value {
                    still.push((house, o));
                }
            }
            if best.is_empty() && still.is_empty() {
                return Err(Error::internal(format!("internal error: no move of {} reaches its value {value}", position.ring())));
            }
            open = still;
            slice = (slice * 2).min(PONDER_SLICE_MAX);
        }
        let played = self.played.lock().unwrap_or_else(|e| e.into_inner());
        let cashes_in = |o: &Outcome| o.next == Next::Over || o.board.total() < board.total();
        let (house, next) = best
            .iter()
            .find(|(_, o)| value > 0 && cashes_in(o))
            .or_else(|| best.iter().find(|(_, o)| !played.contains(&o.board)))
            .map_or(best[0], |&c| c);
        drop(played);
        if cancel.is_none() {
            self.played.lock().unwrap_or_else(|e| e.into_inner()).insert(next.board);
        }
        Ok(Some(house))
    }

    fn searches(&self, board: Board) -> bool {
        self.engine().terminal_value(board).is_none() && !covers(self.solver.tablebase(), board)
    }

    fn describe(&self) -> &str {
        &self.what
    }
}


#[cfg(test)]
mod tests {
    use super::Level;

    /// A reproducible roll (xorshift64), uniform enough for counting.
    fn roller(mut state: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        }
    }

    /// Houses 1-6 worth +8, +8, +6, +3, -2, -14: two best moves, one
    /// giving away 2, one 5, one 10, one 22.
    const VALUES: [(usize, i32); 6] = [(1, 8), (2, 8), (3, 6), (4, 3), (5, -2), (6, -14)];

    /// How often each house was chosen instead of a best move, in `n` turns.
    fn deviations(level: Level, n: usize) -> [usize; 7] {
        let mut roll = roller(0x9e37_79b9_7f4a_7c15);
        let mut count = [0; 7];
        for _ in 0..n {
            if let Some(house) = level.deviate(&VALUES, &mut roll) {
                count[house] += 1;
            }
        }
        count
    }

    #[test]
    fn the_perfect_player_never_deviates() {
        assert_eq!(deviations(Level::Perfect, 1000), [0; 7]);
    }

    #[test]
    fn weaker_levels_give_away_at_most_their_limit_on_their_share_of_turns() {
        let strong = deviations(Level::Strong, 8000);
        // Never a best move (1, 2) as a deviation, nothing beyond 4 (4 gives away 5).
        assert_eq!((strong[1], strong[2], strong[4], strong[5], strong[6]), (0, 0, 0, 0, 0), "{strong:?}");
        assert!((1800..2200).contains(&strong[3]), "a quarter of 8000 turns: {strong:?}");

        let fair = deviations(Level::Fair, 8000);
        assert_eq!((fair[1], fair[2], fair[6]), (0, 0, 0), "{fair:?}");
        let total: usize = fair.iter().sum();
        assert!((3800..4200).contains(&total), "half of 8000 turns: {fair:?}");
        for house in [3, 4, 5] {
            assert!((1100..1600).contains(&fair[house]), "house {house}, a third of the deviations: {fair:?}");
        }
    }

    #[test]
    fn the_random_player_plays_every_move_alike() {
        let random = deviations(Level::Random, 6000);
        assert_eq!((random[1], random[2]), (0, 0), "a best move is not a deviation: {random:?}");
        for house in 3..=6 {
            assert!((850..1150).contains(&random[house]), "house {house}, a sixth of 6000: {random:?}");
        }
    }

    #[test]
    fn no_move_within_the_limit_means_a_best_move() {
        let values = [(1, 8), (2, -20)];
        let mut roll = roller(7);
        for level in [Level::Strong, Level::Fair] {
            assert!((0..400).all(|_| level.deviate(&values, &mut roll).is_none()), "{level:?}");
        }
    }

    #[test]
    fn levels_are_named_as_the_command_line_takes_them() {
        for level in Level::ALL {
            assert_eq!(Level::from_name(level.name()).unwrap(), level);
        }
        let e = Level::from_name("expert").unwrap_err().to_string();
        assert!(e.contains("\"expert\"") && e.contains("perfect, strong, fair, random"), "{e}");
    }
}
