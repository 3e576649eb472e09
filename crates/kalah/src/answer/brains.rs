//! The brains of a game ([`Brain`]), one for each source of its values
//! ([`for_game`](crate::answer::player::for_game) chooses): a table that
//! covers every board of the game, one search with its transposition
//! table kept from move to move, proofs of bounds for clockwise sowing
//! beyond retrograde analysis, and an opening book in front of any of
//! them. How each chooses a best move, and ponders: the module docs of
//! [`player`](crate::answer::player).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use kalah_core::{Board, Engine, Next, Outcome, Position, Side};
use kalah_db::Tablebase;
use kalah_search::{analyze_from_table, table_move, Bounded, SearchError, Solver};

use crate::answer::oracle::table_value;
use crate::answer::setup::BoundsOverDatabase;
use crate::answer::sizes::BOUNDS_TIME;
use crate::error::{Error, Result};
use crate::memory::book::Book;

/// How long the first slice of pondering may run before it checks whether
/// the human has answered; each further slice on the same board runs
/// twice as long, up to [`PONDER_SLICE_MAX`], so that a search whose
/// re-entry through the table takes longer than a slice still progresses.
const PONDER_SLICE: Duration = Duration::from_millis(100);
/// The longest slice of pondering.
const PONDER_SLICE_MAX: Duration = Duration::from_millis(800);

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
pub fn move_value(brain: &dyn Brain, board: Board, house: usize, cancel: Option<&AtomicBool>) -> Result<Option<i32>> {
    if let Some(v) = brain.known_move_value(board, house) {
        return Ok(Some(v));
    }
    let o = brain.engine().play(board, house - 1);
    Ok(match o.next {
        Next::Over => Some(o.gain()),
        _ => brain.board_value(o.board, cancel)?.map(|v| o.value_with(v)),
    })
}

/// Refuses what a brain of `engine` cannot answer: a position of another
/// board size (its values would be another game's) or, for a best move,
/// a game already over.
pub(crate) fn answerable(engine: &Engine, position: &Position, wants_move: bool) -> Result<()> {
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

/// Makes the brain for the positions an opening book does not hold.
pub type MakeBrain = Box<dyn FnOnce() -> Result<Box<dyn Brain>> + Send>;

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
        f.debug_struct("BookBrain")
            .field("engine", &self.engine)
            .field("entries", &self.book.len())
            .field("made", &self.inner.get().is_some())
            .finish()
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
pub(crate) struct TableBrain<T: Tablebase> {
    pub(crate) engine: Engine,
    pub(crate) table: T,
    pub(crate) what: String,
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
pub(crate) struct SearchBrain<T: Tablebase> {
    solver: Solver<T>,
    /// Exact board values found so far.
    values: Mutex<HashMap<Board, i32>>,
    /// Best moves found so far (1-based houses), by board.
    replies: Mutex<HashMap<Board, usize>>,
    what: String,
}

impl<T: Tablebase> SearchBrain<T> {
    pub(crate) fn new(solver: Solver<T>, what: String) -> Self {
        SearchBrain { solver, values: Mutex::new(HashMap::new()), replies: Mutex::new(HashMap::new()), what }
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
            let b = self.solver.value_within(&position, Instant::now())?;
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
            self.replies.lock().unwrap_or_else(|e| e.into_inner()).insert(board, house);
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
        Err(Error::internal(format!("internal error: no move of {} reaches its value {value}", position.ring())))
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
/// ([`Setup::bound_solver`](crate::answer::setup::Setup::bound_solver)), each within [`BOUNDS_TIME`] (an error if its bounds
/// do not meet by then). A best move is one proven to reach the position's
/// exact value (the moves are proven in rounds of growing slices until one
/// is); among those the first round proves, the computer prefers, when
/// ahead, one that cashes something in, then one that leads to a board it
/// has not played to yet, so that a lead is not kept by going round in
/// circles. Boards the database covers are played as [`TableBrain`] plays
/// them.
pub(crate) struct BoundBrain {
    solver: BoundsOverDatabase,
    /// Exact board values found so far.
    values: Mutex<HashMap<Board, i32>>,
    /// The boards the computer's moves led to.
    played: Mutex<HashSet<Board>>,
    what: String,
}

impl BoundBrain {
    pub(crate) fn new(solver: BoundsOverDatabase, what: String) -> Self {
        BoundBrain { solver, values: Mutex::new(HashMap::new()), played: Mutex::new(HashSet::new()), what }
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
