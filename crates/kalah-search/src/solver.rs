//! The public face of the search: exact values of positions, of every
//! move, and a principal variation, on as many threads as asked
//! ([`Solver`]); and proven bounds on values under rules that allow
//! endless play ([`BoundSolver`]).
//!
//! # Parallel search
//!
//! One MTD(f) runs on the pool's threads, which share one transposition
//! table. A node whose first move fails to refute it (so most likely
//! every move must be searched) searches its other moves in parallel as
//! rayon tasks, and an idle thread steals them: "young brothers wait"
//! (Feldmann's YBWC). A node expected to be refuted (a cut node, by its
//! place in the tree) waits for its second move too. The first of the
//! tasks to refute the node stops the others. Only boards a few seeds
//! above those the table keeps are split, so each task is a subtree
//! large enough to pay for its hand-over. Every bound in the table is
//! exact, so the value cannot depend on the number of threads, only the
//! time (and the nodes: which results the table holds when a board is
//! reached depends on the threads' timing).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use kalah_core::{Board, Engine, KeyPacker, Next, Position, Rules, Side};
use kalah_db::Tablebase;
use thiserror::Error;

use crate::journal::Journal;
use crate::search::{Live, Proven, Searcher, Shared, Stats};
use crate::tt::TranspositionTable;

/// Why a search cannot be made.
#[derive(Debug, Error)]
pub enum SearchError {
    /// The rules allow endless play; alpha-beta cannot score it.
    #[error("clockwise sowing can make play endless, which alpha-beta cannot score; these rules are solved by retrograde analysis")]
    EndlessPlay,
    /// The database does not match the board or rules.
    #[error("the endgame database is for {db_houses} houses and {db_rules}, not {houses} houses and {rules}")]
    WrongTablebase {
        /// Houses of the database.
        db_houses: usize,
        /// Rules of the database.
        db_rules: Rules,
        /// Houses asked for.
        houses: usize,
        /// Rules asked for.
        rules: Rules,
    },
    /// The position is of another board size than the solver's.
    #[error("the position has {position_houses} houses a side, the solver {houses}")]
    WrongPosition {
        /// Houses a side of the position.
        position_houses: usize,
        /// Houses a side of the solver.
        houses: usize,
    },
    /// A line to search first that cannot be played ([`Solver::first_line`]).
    #[error("the line to search first cannot be played: {0}")]
    IllegalLine(String),
    /// A line read from a table that holds bounds for some values (a
    /// database in a window encoding): such a table is searched, not read.
    #[error(
        "the endgame database holds a window of values and bounds outside it, so a line of best play cannot be read from it; search over it instead"
    )]
    NotExact,
    /// A table asked for a board it does not cover.
    #[error("the position has {seeds} seeds in its houses; the database covers at most {max}")]
    NotCovered {
        /// Seeds in the position's houses.
        seeds: u32,
        /// The most the table covers (0 where it covers nothing).
        max: u32,
    },
    /// The transposition table could not be allocated.
    #[error("cannot allocate a {bytes}-byte transposition table: {why}")]
    Memory {
        /// Bytes asked for.
        bytes: usize,
        /// The reason.
        why: String,
    },
    /// The endgame database reported damage while the search read it.
    #[error("{0}")]
    Tablebase(String),
    /// Values that contradict each other (a bug, or an undetected damaged table).
    #[error("internal error: inconsistent values: {0}")]
    Inconsistent(String),
    /// The thread pool could not be made.
    #[error("cannot start {threads} search threads: {why}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// The reason.
        why: String,
    },
}

/// Where a running search is ([`Solver::progress`]). Values are of the
/// root board: what its player to move gains from it on, stores not counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchProgress {
    /// Nodes searched so far by this solver (all its searches).
    pub nodes: u64,
    /// The board the running search is solving (a position's, or one
    /// move's when every move's value is asked for).
    pub root: Option<Board>,
    /// The bounds proven on its value so far.
    pub lower: Option<i32>,
    /// See `lower`.
    pub upper: Option<i32>,
    /// The null-window test running: "is the value at least this?".
    pub testing: Option<i32>,
    /// The root move searched last (1-based house).
    pub root_move: Option<usize>,
    /// The line under way, its first [`LINE_SHOWN`](crate::search::LINE_SHOWN)
    /// moves (1-based houses, extra moves each a move of their own; 0 past
    /// its end): where threads search apart, the line of the one that
    /// began a move last.
    pub line: [u8; crate::search::LINE_SHOWN],
}

/// How to search.
#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// Threads to search with (at least 1).
    pub threads: usize,
    /// Transposition table size in bytes.
    pub tt_bytes: usize,
    /// The most seeds a board the solver searches will hold (a root's,
    /// since seeds only leave the board), if known: a table smaller than
    /// its keys' fields need then stays as small as asked when unary keys
    /// cover every such board ([`SearchOptions::keys`]).
    pub max_seeds: Option<u32>,
}

impl SearchOptions {
    /// The bytes of the transposition table a solver for `h` houses makes
    /// from these options: `tt_bytes` rounded down to a power of two (and up
    /// to 64 bytes, one bucket; see [`SearchOptions::keys`] for how any
    /// size fits the keys).
    pub fn table_bytes(&self, h: usize) -> usize {
        TranspositionTable::size_for(self.tt_bytes, self.keys(h).bits())
    }

    /// The least table, in MiB (rounded up), that takes the fixed-field
    /// keys of `h` houses ([`SearchOptions::keys`]): 128 on five and six houses.
    pub fn fields_mb(h: usize) -> usize {
        TranspositionTable::min_bytes(KeyPacker::new(h).bits()).div_ceil(1 << 20)
    }

    /// The table keys of a solver for `h` houses with these options:
    /// unary keys (`kalah_core::key`) when the table is smaller than the
    /// fixed fields' keys need (their 60 bits on five and six houses need
    /// 128 MiB, their 64 bits on eight 2 GiB) and unary keys as wide as the
    /// table allows cover every board of `max_seeds` seeds; else the
    /// fields, and the table grows to their size. So a small search gets
    /// the small table asked for (the start of Kalah(8,1) searched in a
    /// 2 GiB table before), and a large one never leaves boards out of its
    /// table. (A solver that searches boards of more seeds than it was told
    /// searches them without the table, like boards whose houses do not
    /// fit the fields.)
    pub fn keys(&self, h: usize) -> KeyPacker {
        let fields = KeyPacker::new(h);
        let unary_bits = TranspositionTable::widest_keys(self.tt_bytes);
        match self.max_seeds {
            Some(n) if TranspositionTable::min_bytes(fields.bits()) > self.tt_bytes && n + 2 * h as u32 - 1 <= unary_bits => {
                KeyPacker::unary(h, unary_bits)
            }
            _ => fields,
        }
    }

    /// The bytes a memory check should count for the table: what it
    /// allocates, or what was asked for if that is more (a request that
    /// cannot fit is refused as it was made).
    pub fn reserved_bytes(&self, h: usize) -> usize {
        self.table_bytes(h).max(self.tt_bytes)
    }
}

/// The threads this machine runs at once, asked once: the question reads
/// files (a container's CPU quota), which many small searches would repeat.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions { threads: cores(), tt_bytes: 1 << 30, max_seeds: None }
    }
}

/// Proven bounds on a value, `lower <= value <= upper`; exact when equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounded {
    /// The value is at least this.
    pub lower: i32,
    /// The value is at most this.
    pub upper: i32,
}

impl Bounded {
    /// Whether the bounds meet.
    pub fn is_exact(&self) -> bool {
        self.lower == self.upper
    }

    /// The value, if the bounds meet.
    pub fn exact(&self) -> Option<i32> {
        self.is_exact().then_some(self.lower)
    }
}

/// A legal move and its exact value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The house played, 1-based from the mover's left.
    pub house: usize,
    /// The final store difference for the player who plays it, if both then play perfectly.
    pub value: i32,
}

/// One move of a principal variation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PvMove {
    /// Who plays it.
    pub side: Side,
    /// The house, 1-based from the mover's left.
    pub house: usize,
}

/// What the solver found for a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The final store difference for the player to move under perfect play.
    pub value: i32,
    /// Every legal move's value (empty when only the value was asked for or the game is over).
    pub moves: Vec<MoveValue>,
    /// A principal variation to the end of the game (empty if not asked for).
    pub pv: Vec<PvMove>,
    /// How the principal variation ends: with the game, or (clockwise
    /// sowing) in endless play that scores nothing more, or cut short.
    pub end: LineEnd,
}

/// A legal move and bounds on its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundedMove {
    /// The house played, 1-based from the mover's left.
    pub house: usize,
    /// Bounds on the final store difference for the player who plays it,
    /// if both then play perfectly; exact when they meet.
    pub value: Bounded,
}

/// How a principal variation ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// With the end of the game (or it was not asked for).
    GameOver,
    /// Best play repeats a position and goes on for ever (clockwise
    /// sowing); the rest scores nothing.
    Endless,
    /// Cut short: the time ran out (before any of it, when the value was
    /// not proven in time: the line is then empty), or the line repeated a
    /// position while something was still to be won, so it does not show
    /// how the value is cashed in. Every move shown is best play.
    Cut,
}

/// What was proven about a position: the exact value, every move's and a
/// principal variation ([`Analysis`]), or bounds where they do not meet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundedAnalysis {
    /// Bounds on the final store difference for the player to move under
    /// perfect play.
    pub value: Bounded,
    /// Every legal move with its bounds (empty when not asked for or the
    /// game is over).
    pub moves: Vec<BoundedMove>,
    /// A line of best play (empty if not asked for, or the value is not exact).
    pub pv: Vec<PvMove>,
    /// How the line ends.
    pub end: LineEnd,
}

impl From<Analysis> for BoundedAnalysis {
    fn from(a: Analysis) -> Self {
        BoundedAnalysis {
            value: Bounded { lower: a.value, upper: a.value },
            moves: a.moves.iter().map(|m| BoundedMove { house: m.house, value: Bounded { lower: m.value, upper: m.value } }).collect(),
            pv: a.pv,
            end: a.end,
        }
    }
}

/// The answer to one null-window test ([`Solver::test`]): is a position's
/// value at least `at_least`?
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestOutcome {
    /// The test: "value >= at_least" (for the player to move, stores
    /// included).
    pub at_least: i32,
    /// Whether it holds.
    pub holds: bool,
    /// What the test proved: the value is at least `bound` (`>= at_least`)
    /// if it holds, else at most `bound` (`< at_least`).
    pub bound: i32,
}

impl TestOutcome {
    /// The bounds the test proved, `(lower, upper)`, within the bounds
    /// `lower..=upper` the seeds allow.
    pub fn bounds(&self, lower: i32, upper: i32) -> (i32, i32) {
        if self.holds {
            (self.bound.max(lower), upper)
        } else {
            (lower, self.bound.min(upper))
        }
    }
}

/// Stack of a search thread, in bytes: a thread waiting for a split's
/// moves runs stolen ones on top of its own line (only touched pages cost
/// memory).
pub const SEARCH_STACK: usize = 64 << 20;

thread_local! {
    /// This thread was made by [`spawn_search_thread`]: its stack holds a search.
    static SEARCH_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Spawns in `scope` a thread with a search's stack ([`SEARCH_STACK`]) on
/// which a solver of one thread runs its searches in place, instead of
/// handing each to its own thread and waiting: for many small searches
/// (a batch of positions, one worker each), where the hand-overs cost
/// more system time than the searches take.
pub fn spawn_search_thread<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    name: String,
    work: impl FnOnce() -> T + Send + 'scope,
) -> std::io::Result<std::thread::ScopedJoinHandle<'scope, T>> {
    std::thread::Builder::new().name(name).stack_size(SEARCH_STACK).spawn_scoped(scope, move || {
        SEARCH_THREAD.with(|t| t.set(true));
        work()
    })
}

/// Exact alpha-beta solver for one board size and rule set; see the module docs.
pub struct Solver<T: Tablebase> {
    engine: Engine,
    tt: TranspositionTable,
    /// The keys of `tt` ([`SearchOptions::keys`]).
    keys: KeyPacker,
    table: T,
    pool: rayon::ThreadPool,
    threads: usize,
    nodes: AtomicU64,
    stats: Mutex<Stats>,
    /// Raised by the caller to stop searches with a deadline ([`Solver::cancel_with`]).
    cancel: Option<Arc<AtomicBool>>,
    /// Bounds kept across runs ([`Solver::journal_with`]).
    journal: Option<Arc<Journal>>,
    /// Where the running search is ([`Solver::progress`]).
    live: Live,
    /// MTD(f)'s first guess at one root board ([`Solver::first_guess`]).
    guess: Option<(Board, i32)>,
    /// A line searched first ([`Solver::first_line`]): each board on it
    /// and its move (0-based).
    line: Vec<(Board, u8)>,
}

impl<T: Tablebase> std::fmt::Debug for Solver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("houses", &self.engine.houses())
            .field("rules", &self.engine.rules())
            .field("threads", &self.threads)
            .field("tt", &self.tt)
            .finish()
    }
}

impl<T: Tablebase> Solver<T> {
    /// A solver for `h` houses a side under `rules`, backed by `table`.
    pub fn new(h: usize, rules: Rules, table: T, options: SearchOptions) -> Result<Self, SearchError> {
        if rules.may_cycle() {
            return Err(SearchError::EndlessPlay);
        }
        Solver::build(h, rules, table, options)
    }

    /// [`Solver::new`] for any rules: only [`BoundSolver`] may search rules
    /// that allow endless play.
    fn build(h: usize, rules: Rules, table: T, options: SearchOptions) -> Result<Self, SearchError> {
        if table.max_seeds().is_some() && (table.houses() != h || table.rules() != rules) {
            return Err(SearchError::WrongTablebase { db_houses: table.houses(), db_rules: table.rules(), houses: h, rules });
        }
        let threads = options.threads.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("search-{i}"))
            // A thread waiting for a split's moves runs stolen ones on top
            // of its own line: room for many lines of play (only touched
            // pages cost memory).
            .stack_size(SEARCH_STACK)
            .build()
            .map_err(|e| SearchError::Threads { threads, why: e.to_string() })?;
        let keys = options.keys(h);
        Ok(Solver {
            engine: Engine::new(h, rules),
            tt: TranspositionTable::new(options.tt_bytes, keys.bits())
                .map_err(|e| SearchError::Memory { bytes: options.tt_bytes, why: e.to_string() })?,
            keys,
            table,
            pool,
            threads,
            nodes: AtomicU64::new(0),
            stats: Mutex::new(Stats::default()),
            cancel: None,
            journal: None,
            live: Live::default(),
            guess: None,
            line: Vec::new(),
        })
    }

    /// The rules engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The database behind the search.
    pub fn tablebase(&self) -> &T {
        &self.table
    }

    /// The transposition table's size in bytes.
    pub fn tt_bytes(&self) -> usize {
        self.tt.bytes()
    }

    /// Search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// How its table packs boards into keys ([`SearchOptions::keys`]).
    pub fn keys(&self) -> kalah_core::KeyPacker {
        self.keys
    }

    /// Nodes searched so far by all threads.
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Relaxed)
    }

    /// What the threads counted, added up, for finished searches.
    pub fn stats(&self) -> Stats {
        *self.stats.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `job` on the threads (see the module docs, "Parallel search")
    /// to its end, unless `stop` is raised first: then `None`.
    fn parallel<R: Send>(&self, root: Board, job: impl FnOnce(&mut Searcher<'_, T>) -> Option<R> + Send, stop: Option<&AtomicBool>) -> Option<R> {
        self.parallel_until(root, job, None, stop, &Proven::default())
    }

    /// Runs `job` on the threads until it returns a result or, if given,
    /// the deadline passes or `cancel` is raised (then `None`). Exact
    /// bounds proven on the way are gathered in `proven`.
    fn parallel_until<R: Send>(
        &self,
        root: Board,
        job: impl FnOnce(&mut Searcher<'_, T>) -> Option<R> + Send,
        deadline: Option<Instant>,
        cancel: Option<&AtomicBool>,
        proven: &Proven,
    ) -> Option<R> {
        self.live.begin(root);
        let stop = AtomicBool::new(false);
        let shared = Shared {
            engine: &self.engine,
            tt: &self.tt,
            keys: self.keys,
            table: &self.table,
            stop: &stop,
            deadline,
            cancel,
            nodes: &self.nodes,
            threads: self.threads,
            proven,
            journal: self.journal.as_deref(),
            live: &self.live,
            guess: self.guess,
            line: &self.line,
        };
        // No watcher thread: the searchers look at the clock and the
        // cancel flag themselves, every 1,024 nodes
        // ([`Searcher::stopped`]), so a search of a few nodes costs no
        // thread (a thread a call made small time-limited searches several
        // times slower than unlimited ones).
        let run = || {
            let mut searcher = Searcher::new(&shared);
            let found = job(&mut searcher);
            searcher.flush_nodes();
            self.stats.lock().unwrap_or_else(|e| e.into_inner()).add(&searcher.stats);
            found
        };
        // One thread never splits: on a thread made for searches it
        // searches in place, with no hand-over to the pool and back.
        if self.threads == 1 && SEARCH_THREAD.with(|t| t.get()) {
            run()
        } else {
            self.pool.install(run)
        }
    }

    /// Refuses a position of another board size: its board would be read
    /// as one of this solver's size, and valued wrong.
    fn check(&self, position: &Position) -> Result<(), SearchError> {
        if position.houses() != self.engine.houses() {
            return Err(SearchError::WrongPosition { position_houses: position.houses(), houses: self.engine.houses() });
        }
        Ok(())
    }

    /// Stops every search of this solver that has a deadline, as if the
    /// deadline had passed, when `flag` is raised (from any thread): a
    /// caller's way to cancel. Searches without a deadline are not
    /// stopped ([`Solver::analyze_unless`] stops the exact search with a
    /// flag of its own).
    pub fn cancel_with(&mut self, flag: Arc<AtomicBool>) {
        self.cancel = Some(flag);
    }

    /// Forgets the flag of [`Solver::cancel_with`]: a solver kept for the
    /// next request searches as one made anew would (its table kept).
    pub fn clear_cancel(&mut self) {
        self.cancel = None;
    }

    /// Where the search running now is, read from any thread: for a
    /// progress display.
    pub fn progress(&self) -> SearchProgress {
        let (lower, upper) = self.live.proven.get();
        let testing = self.live.testing.load(Relaxed);
        let line = self.live.line();
        SearchProgress {
            nodes: self.nodes(),
            root: *self.live.root.lock().unwrap_or_else(|e| e.into_inner()),
            lower: (lower != i32::MIN).then_some(lower),
            upper: (upper != i32::MAX).then_some(upper),
            testing: (testing != i32::MIN).then_some(testing),
            root_move: (line[0] != 0).then_some(line[0] as usize),
            line,
        }
    }

    /// Makes every search of this solver record the bounds it proves on
    /// large subtrees and at the root in `journal`, and use those already
    /// there (an earlier run's), loaded into the transposition table now:
    /// see [`crate::journal`]. The caller writes the journal out while the
    /// search runs, from another thread.
    pub fn journal_with(&mut self, journal: Arc<Journal>) {
        for e in journal.entries() {
            if let Some(key) = self.keys.pack(e.board) {
                self.tt.store(key, e.lower, e.upper, e.best, u64::MAX);
            }
        }
        self.journal = Some(journal);
    }

    /// Makes MTD(f) begin its search of `position` with the test "value >=
    /// `guess`" (the value for the player to move, stores included),
    /// without the depth-limited searches that would otherwise choose
    /// where it begins, and before the test a journal recorded. For a
    /// value known or closely guessed (a published one): the fewest
    /// tests. Other positions (every move's, for instance) are searched
    /// as before.
    pub fn first_guess(&mut self, position: &Position, guess: i32) -> Result<(), SearchError> {
        self.check(position)?;
        self.guess = Some((position.mover_board(), guess - position.store_difference()));
        Ok(())
    }

    /// Makes every search from `position` try the moves `houses` (1-based,
    /// each of the player to move then) first, one after the other: the
    /// first at the position, the second at the position it leads to, and
    /// so on, before the move the table suggests. For a test that should
    /// hold through a line known to work (Rawlings' 1-3 for Kalah(6,6)), a
    /// proof needs only that line's subtree if it is searched first.
    /// Moves that are not legal are refused; the values searched are the
    /// same whatever the order.
    pub fn first_line(&mut self, position: &Position, houses: &[usize]) -> Result<(), SearchError> {
        self.check(position)?;
        let mut line = Vec::with_capacity(houses.len());
        let mut board = position.mover_board();
        for (k, &house) in houses.iter().enumerate() {
            if self.engine.is_over(board) || house == 0 || house > self.engine.houses() || board.get(house - 1) == 0 {
                return Err(SearchError::IllegalLine(format!(
                    "move {} of the line ({}): house {house} cannot be played there",
                    k + 1,
                    join_houses(houses)
                )));
            }
            line.push((board, (house - 1) as u8));
            board = self.engine.play(board, house - 1).board;
        }
        self.line = line;
        Ok(())
    }

    /// One null-window test of `position`: is its value (for the player
    /// to move, stores included) at least `at_least`? Answered with the
    /// bound the test proves, or `None` if `deadline` passed (or the
    /// search was cancelled) first. The root's bounds the test proves
    /// are recorded in the journal, as every root test's are.
    pub fn test(&self, position: &Position, at_least: i32, deadline: Option<Instant>) -> Result<Option<TestOutcome>, SearchError> {
        self.check(position)?;
        let board = position.mover_board();
        let base = position.store_difference();
        let found =
            self.parallel_until(board, |s| s.single_test(board, at_least - base), deadline, deadline.and(self.cancel.as_deref()), &Proven::default());
        if let Some(why) = self.table.failure() {
            return Err(SearchError::Tablebase(why));
        }
        Ok(found.map(|(holds, bound)| TestOutcome { at_least, holds, bound: base + bound }))
    }

    /// Calls `f` with every exact entry of the transposition table: its
    /// board and bounds (for a snapshot of the table, written while a
    /// search runs: each entry is read whole, some may be missed).
    pub fn for_each_table_entry(&self, f: &mut dyn FnMut(Board, crate::tt::Bounds)) {
        for (key, bounds) in self.tt.exact_entries() {
            f(self.keys.unpack(key), bounds);
        }
    }

    /// Stores an entry of a snapshot ([`Solver::for_each_table_entry`]) in
    /// the transposition table; false (and nothing stored) for a board the
    /// table does not keep (too many seeds in a house for its keys). The
    /// caller checks that the bounds are possible.
    pub fn restore_table_entry(&self, board: Board, bounds: crate::tt::Bounds) -> bool {
        match self.keys.pack(board) {
            Some(key) => {
                self.tt.restore(key, bounds);
                true
            }
            None => false,
        }
    }

    /// The exact value of `board` (future store difference for the mover).
    pub fn board_value(&self, board: Board) -> i32 {
        self.board_value_unless(board, None).expect("a search nothing stops returns a result")
    }

    /// [`Solver::board_value`], or `None` if `stop` is raised first.
    fn board_value_unless(&self, board: Board, stop: Option<&AtomicBool>) -> Option<i32> {
        self.parallel(board, |s| s.mtdf(board, 0, false), stop)
    }

    /// The value of `position` for the player to move, or if `deadline`
    /// passes first, the bounds on it proven so far. Meant for searches
    /// resumed in slices (the table keeps what each slice proved); a
    /// budget that may run out is better spent by
    /// [`Solver::bounds_within`].
    pub fn value_within(&self, position: &Position, deadline: Instant) -> Result<Bounded, SearchError> {
        self.within(position, deadline, false)
    }

    /// Like [`Solver::value_within`], but the search first brackets the
    /// value with cheap tests far from its guess and closes in, so that
    /// when the deadline passes the bounds proven are near the value.
    /// Takes a little longer than [`Solver::value_within`] when it finishes.
    pub fn bounds_within(&self, position: &Position, deadline: Instant) -> Result<Bounded, SearchError> {
        self.within(position, deadline, true)
    }

    fn within(&self, position: &Position, deadline: Instant, bracket: bool) -> Result<Bounded, SearchError> {
        self.check(position)?;
        let (lower, upper) = self.board_within(position.mover_board(), deadline, bracket)?;
        let base = position.store_difference();
        Ok(Bounded { lower: base + lower, upper: base + upper })
    }

    /// [`Solver::within`] for a board: bounds on its value for the mover.
    fn board_within(&self, board: Board, deadline: Instant, bracket: bool) -> Result<(i32, i32), SearchError> {
        let proven = Proven::default();
        let exact = self.parallel_until(board, |s| s.mtdf(board, 0, bracket), Some(deadline), self.cancel.as_deref(), &proven);
        self.gathered_board(board, exact.map(|v| (v, v)), &proven)
    }

    /// The bounds on the value of `position` a search proved: those of the
    /// thread that finished (`found`, if one did), those every thread
    /// recorded (`proven`) and the root's exact table entry, with the
    /// stores added.
    fn gathered(&self, position: &Position, found: Option<(i32, i32)>, proven: &Proven) -> Result<Bounded, SearchError> {
        let (lower, upper) = self.gathered_board(position.mover_board(), found, proven)?;
        let base = position.store_difference();
        Ok(Bounded { lower: base + lower, upper: base + upper })
    }

    /// [`Solver::gathered`] for a board: bounds on its value for the mover.
    fn gathered_board(&self, board: Board, found: Option<(i32, i32)>, proven: &Proven) -> Result<(i32, i32), SearchError> {
        if let Some(why) = self.table.failure() {
            return Err(SearchError::Tablebase(why));
        }
        let seeds = board.total() as i32;
        let (mut lower, mut upper) = proven.get();
        if let Some((l, u)) = found {
            lower = lower.max(l);
            upper = upper.min(u);
        }
        lower = lower.max(-seeds);
        upper = upper.min(seeds);
        // Under a journal the root's table entry may be the journal's, read
        // from a file: only what this search proved counts (`proven`).
        if let Some(e) = self.keys.pack(board).filter(|_| self.journal.is_none()).and_then(|k| self.tt.probe_exact(k)) {
            lower = lower.max(e.lower);
            upper = upper.min(e.upper);
        }
        if lower > upper {
            return Err(SearchError::Inconsistent(format!("bounds {lower}..{upper} proven for the board {board:?}")));
        }
        Ok((lower, upper))
    }

    /// Whether the value of `board` is at least `beta`, or `None` if `stop`
    /// is raised first.
    fn board_at_least(&self, board: Board, beta: i32, stop: Option<&AtomicBool>) -> Option<bool> {
        self.parallel(board, |s| s.at_least(board, beta), stop)
    }

    /// The exact value of the player to move's move `house` (0-based) in
    /// `board`, or `None` if `stop` is raised first.
    fn move_value(&self, board: Board, house: usize, stop: Option<&AtomicBool>) -> Option<i32> {
        let o = self.engine.play(board, house);
        match o.next {
            Next::Over => Some(o.gain()),
            _ => self.board_value_unless(o.board, stop).map(|v| o.value_with(v)),
        }
    }

    /// What can be proven about `position` by `deadline`: bounds on its
    /// value (as [`Solver::bounds_within`]); then if asked and the value is
    /// exact, a principal variation (as [`Solver::principal_variation`],
    /// which the deadline does not stop); then if asked, bounds on every
    /// move's value, the time left shared among them (a move not reached
    /// in time gets the bounds the table holds already).
    pub fn analyze_within(&self, position: &Position, deadline: Instant, all_moves: bool, pv: bool) -> Result<BoundedAnalysis, SearchError> {
        self.check(position)?;
        let board = position.mover_board();
        if self.engine.is_over(board) {
            return self.analyze(position, all_moves, pv).map(BoundedAnalysis::from);
        }
        let base = position.store_difference();
        let mut value = self.bounds_within(position, deadline)?;
        let mut line = if pv && value.is_exact() { self.principal_variation(position, value.lower - base) } else { Vec::new() };
        let moves = if all_moves {
            let limit = Limit { deadline: Some(deadline), max_depth: u32::MAX };
            moves_within(&self.engine, position, &mut value, limit, |house, limit| {
                outcome_bounds(&self.engine.play(board, house), |b| self.board_within(b, limit.deadline.unwrap_or(deadline), true))
            })?
        } else {
            Vec::new()
        };
        // The moves' values may have made the position's exact: its line then.
        if pv && line.is_empty() && value.is_exact() {
            line = self.principal_variation(position, value.lower - base);
        }
        if let Some(why) = self.table.failure() {
            return Err(SearchError::Tablebase(why));
        }
        // A line asked for and not known (the value not proven in time) is cut short.
        let end = if pv && line.is_empty() { LineEnd::Cut } else { LineEnd::GameOver };
        Ok(BoundedAnalysis { value, moves, pv: line, end })
    }

    /// Solves `position`: its value, and if asked every move's value and a
    /// principal variation to the end of the game. Fails only if the
    /// database turned out to be damaged (no value is reported then).
    pub fn analyze(&self, position: &Position, all_moves: bool, pv: bool) -> Result<Analysis, SearchError> {
        self.analyze_unless(position, all_moves, pv, None).map(|a| a.expect("a search nothing stops returns a result"))
    }

    /// [`Solver::analyze`], stopped within moments when `stop` is raised
    /// (from any thread): `Ok(None)` then, and nothing of the stopped
    /// search is answered (the table keeps what it proved). For a search
    /// with no time limit that a caller may want to stop (Python's
    /// Ctrl-C): the time-limited path ([`Solver::analyze_within`]) would
    /// take several times longer on small positions.
    pub fn analyze_unless(&self, position: &Position, all_moves: bool, pv: bool, stop: Option<&AtomicBool>) -> Result<Option<Analysis>, SearchError> {
        self.check(position)?;
        let analysis = self.analyze_unchecked(position, all_moves, pv, stop);
        match self.table.failure() {
            Some(why) => Err(SearchError::Tablebase(why)),
            None => Ok(analysis),
        }
    }

    fn analyze_unchecked(&self, position: &Position, all_moves: bool, pv: bool, stop: Option<&AtomicBool>) -> Option<Analysis> {
        let board = position.mover_board();
        let base = position.store_difference();
        if let Some(v) = self.engine.terminal_value(board) {
            return Some(Analysis { value: base + v, moves: Vec::new(), pv: Vec::new(), end: LineEnd::GameOver });
        }
        let (value, moves) = if all_moves {
            let mut moves = Vec::new();
            for house in self.moves_best_first(board) {
                moves.push(MoveValue { house: house + 1, value: base + self.move_value(board, house, stop)? });
            }
            moves.sort_by_key(|m| m.house);
            let best = moves.iter().map(|m| m.value).max().expect("a position that is not over has a move");
            (best, moves)
        } else {
            (base + self.board_value_unless(board, stop)?, Vec::new())
        };
        let pv = if pv { self.line_unless(position, value - base, stop)? } else { Vec::new() };
        Some(Analysis { value, moves, pv, end: LineEnd::GameOver })
    }

    /// A best move (its house, 1-based) of the player to move in
    /// `position`, whose value (stores included) is `value`: the first
    /// legal move shown by a null-window test to reach it, trying the
    /// table's best move before the others in house order. `None` if the
    /// game is over, or if a damaged database gave wrong values
    /// (`analyze` reports the damage).
    pub fn best_move(&self, position: &Position, value: i32) -> Option<usize> {
        let board = position.mover_board();
        let target = value - position.store_difference();
        self.moves_hint_first(board)
            .into_iter()
            .find(|&house| self.reaches(&self.engine.play(board, house), target, None) == Some(true))
            .map(|house| house + 1)
    }

    /// The legal moves of `board` (0-based houses), the table's best move
    /// first: after a search it is usually a move proven to reach the
    /// value, whose test the table then answers at once.
    pub fn moves_hint_first(&self, board: Board) -> Vec<usize> {
        let mut moves: Vec<usize> = self.engine.moves(board).collect();
        let hint = self.keys.pack(board).and_then(|k| self.tt.probe(k)).map(|e| e.best as usize);
        if let Some(i) = hint.and_then(|h| moves.iter().position(|&m| m == h)) {
            moves[..=i].rotate_right(1);
        }
        moves
    }

    /// The legal moves of `board` (0-based houses), in the order to solve
    /// them all: those that play again first, the likeliest best (a move
    /// into the store gains a seed and keeps the turn), then the others,
    /// each in house order. The best move's search fills the table with
    /// the lines of best play, which the other moves' searches meet
    /// again. Every move's value, one thread, over the database built in
    /// memory by default before 2026-12-04 (Kalah(6,4): 18 seeds), nodes
    /// against house order (BENCHMARKS.md): Kalah(6,4) 152.2 M against
    /// 170.7 M, under empty
    /// capture 81.7 M against 84.2 M, Kalah(5,4) 8.22 M against 8.41 M,
    /// Kalah(6,3) 13.06 M against 12.78 M; Kalah(5,5) and Kalah(4,6)
    /// unchanged (their move into the store is house 1).
    pub fn moves_best_first(&self, board: Board) -> Vec<usize> {
        let mut moves: Vec<usize> = self.engine.moves(board).collect();
        moves.sort_by_key(|&house| self.engine.play(board, house).next != Next::Mover);
        moves
    }

    /// A line of best play from `position`, whose board value is `value`.
    pub fn principal_variation(&self, position: &Position, value: i32) -> Vec<PvMove> {
        self.line_unless(position, value, None).expect("a search nothing stops returns a result")
    }

    /// [`Solver::principal_variation`], or `None` if `stop` is raised first.
    fn line_unless(&self, position: &Position, mut value: i32, stop: Option<&AtomicBool>) -> Option<Vec<PvMove>> {
        let mut line = Vec::new();
        let mut side = position.to_move();
        let mut board = position.mover_board();
        while !self.engine.is_over(board) {
            // Some move reaches the value, unless a damaged database gave
            // wrong values: then stop, and `analyze` reports the damage.
            let mut found = None;
            for house in self.moves_hint_first(board) {
                let o = self.engine.play(board, house);
                if self.reaches(&o, value, stop)? {
                    found = Some((house, o));
                    break;
                }
            }
            let Some((house, o)) = found else {
                debug_assert!(self.table.failure().is_some(), "no move reaches the value");
                break;
            };
            line.push(PvMove { side, house: house + 1 });
            let gain = o.gain();
            match o.next {
                Next::Over => break,
                Next::Mover => value -= gain,
                Next::Opponent => {
                    value = gain - value;
                    side = side.other();
                }
            }
            board = o.board;
        }
        Some(line)
    }

    /// Whether the move with outcome `o` is worth at least `value` to its
    /// mover, or `None` if `stop` is raised first.
    fn reaches(&self, o: &kalah_core::Outcome, value: i32, stop: Option<&AtomicBool>) -> Option<bool> {
        let gain = o.gain();
        match o.next {
            Next::Over => Some(gain >= value),
            Next::Mover => self.board_at_least(o.board, value - gain, stop),
            // gain - child >= value  <=>  child <= gain - value  <=>  not (child >= gain - value + 1)
            Next::Opponent => self.board_at_least(o.board, gain - value + 1, stop).map(|at_least| !at_least),
        }
    }
}

/// Solves `position` from a table that covers it and everything it leads
/// to (a database, or levels built in memory for clockwise sowing): every
/// move's value, and a principal variation to the end of the game or, with
/// endless play, until a position repeats.
///
/// Where play can cycle, keeping the value is not enough for a line of best
/// play: the player ahead must also make progress towards cashing it in.
/// The line follows `ProgressRanks`: the player ahead always moves to a
/// board fewer moves from the exit that realises the value.
pub fn analyze_from_table<T: Tablebase>(engine: &Engine, table: &T, position: &Position) -> Result<Analysis, SearchError> {
    check_table(engine, table, position)?;
    let board = position.mover_board();
    let base = position.store_difference();
    let damaged = || table.failure().map(SearchError::Tablebase);
    if let Some(v) = engine.terminal_value(board) {
        return Ok(Analysis { value: base + v, moves: Vec::new(), pv: Vec::new(), end: LineEnd::GameOver });
    }
    let moves: Vec<MoveValue> =
        engine.moves(board).map(|house| MoveValue { house: house + 1, value: base + move_value(engine, table, board, house) }).collect();
    let value = exact_value_of(table, board) + base;
    if let Some(e) = damaged() {
        return Err(e);
    }
    let (pv, end) = table_line(engine, table, board, position.to_move(), usize::MAX);
    if let Some(e) = damaged() {
        return Err(e);
    }
    if !moves.iter().any(|m| m.value == value) {
        return Err(SearchError::Inconsistent(format!("no move of {} reaches its value {value}", position.ring())));
    }
    Ok(Analysis { value, moves, pv, end })
}

/// Refuses a table, engine and position that do not belong together, a
/// position the table does not cover, or a table that holds bounds for
/// some values: a board of another size would be read as one of the
/// table's, an uncovered one lies outside it, and a bound is no value.
fn check_table<T: Tablebase>(engine: &Engine, table: &T, position: &Position) -> Result<(), SearchError> {
    if !table.is_exact() {
        return Err(SearchError::NotExact);
    }
    if table.houses() != engine.houses() || table.rules() != engine.rules() {
        return Err(SearchError::WrongTablebase {
            db_houses: table.houses(),
            db_rules: table.rules(),
            houses: engine.houses(),
            rules: engine.rules(),
        });
    }
    if position.houses() != engine.houses() {
        return Err(SearchError::WrongPosition { position_houses: position.houses(), houses: engine.houses() });
    }
    let seeds = position.seeds_in_houses();
    match table.max_seeds() {
        Some(max) if seeds <= max => Ok(()),
        _ if engine.is_over(position.mover_board()) => Ok(()),
        max => Err(SearchError::NotCovered { seeds, max: max.unwrap_or(0) }),
    }
}

/// The first move (its house, 1-based) of the line of best play
/// [`analyze_from_table`] gives from `position` (which makes progress
/// where play can cycle), without the rest of the line; `None` if the
/// game is over or the table is damaged.
pub fn table_move<T: Tablebase>(engine: &Engine, table: &T, position: &Position) -> Option<usize> {
    check_table(engine, table, position).ok()?;
    let board = position.mover_board();
    if engine.is_over(board) {
        return None;
    }
    let (line, _) = table_line(engine, table, board, position.to_move(), 1);
    line.first().filter(|_| table.failure().is_none()).map(|m| m.house)
}

/// The value for the mover of move `house` of `board`, from the table.
fn move_value<T: Tablebase>(engine: &Engine, table: &T, board: Board, house: usize) -> i32 {
    let o = engine.play(board, house);
    match o.next {
        Next::Over => o.gain(),
        _ => o.value_with(exact_value_of(table, o.board)),
    }
}

/// Houses (1-based) as "1-3", Rawlings' way of writing a line.
fn join_houses(houses: &[usize]) -> String {
    houses.iter().map(|h| h.to_string()).collect::<Vec<_>>().join("-")
}

/// The value of `board` in a table whose every value is exact, as
/// [`check_table`] makes sure before a line is read from it
/// ([`Tablebase::is_exact`]).
#[inline]
fn exact_value_of<T: Tablebase>(table: &T, board: Board) -> i32 {
    let stored = table.stored(board);
    debug_assert!(stored.is_exact(), "a line read from a table of bounds");
    stored.lower
}

/// A line of best play from the table, and how it ends.
///
/// Where play can cycle, the player ahead takes a best move that leaves
/// the level (cashes something in) when there is one, else follows
/// [`ProgressRanks`] (in a level too large to rank: a best move to a board
/// not yet on the line, if any); the player behind resists longest where
/// the ranks are known, else takes its first best move. A board that
/// repeats ends the line: endless play if nothing is left to win, else
/// (only possible in a level too large to rank) the line is cut there.
fn table_line<T: Tablebase>(engine: &Engine, table: &T, start: Board, mut side: Side, max_moves: usize) -> (Vec<PvMove>, LineEnd) {
    let mut line = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut board = start;
    let mut ranks: Option<ProgressRanks> = None;
    // The last level found too large to rank.
    let mut unranked = None;
    while !engine.is_over(board) && line.len() < max_moves {
        let target = exact_value_of(table, board);
        let optimal: Vec<usize> = engine.moves(board).filter(|&house| move_value(engine, table, board, house) == target).collect();
        if optimal.is_empty() {
            break; // damaged table; the caller reports it
        }
        if !seen.insert((board, side)) {
            // Nothing left to win: best play may go round for ever.
            // Something left: the line went round (a level too large to rank).
            return (line, if target == 0 { LineEnd::Endless } else { LineEnd::Cut });
        }
        let n = board.total();
        let ranked = |r: &ProgressRanks| r.seeds == n && r.rank.contains_key(&board);
        let leaves = |house: usize| {
            let o = engine.play(board, house);
            o.next == Next::Over || o.board.total() < n
        };
        let fresh = |house: usize| !seen.contains(&turn_after(&engine.play(board, house), side));
        let house = if !engine.rules().may_cycle() || target == 0 {
            optimal[0]
        } else if let Some(h) = optimal.iter().copied().find(|&h| target > 0 && leaves(h)) {
            h
        } else if ranks.as_ref().is_some_and(ranked) {
            ranks.as_ref().expect("ranked").best_move(engine, table, board, &optimal)
        } else if target < 0 || unranked == Some(n) {
            optimal.iter().copied().find(|&h| fresh(h)).unwrap_or(optimal[0])
        } else {
            ranks = ProgressRanks::new(engine, table, board);
            match &ranks {
                Some(r) => r.best_move(engine, table, board, &optimal),
                None => {
                    unranked = Some(n);
                    optimal.iter().copied().find(|&h| fresh(h)).unwrap_or(optimal[0])
                }
            }
        };
        line.push(PvMove { side, house: house + 1 });
        let o = engine.play(board, house);
        match o.next {
            Next::Over => break,
            Next::Mover => {}
            Next::Opponent => side = side.other(),
        }
        board = o.board;
    }
    (line, LineEnd::GameOver)
}

/// The board and the player to move after `side` made a move with outcome `o`.
fn turn_after(o: &kalah_core::Outcome, side: Side) -> (Board, Side) {
    (o.board, if o.next == Next::Opponent { side.other() } else { side })
}

/// How many moves the player ahead needs to cash in the value, for the
/// boards of one level reachable from a board (clockwise sowing).
///
/// Rank 0: a move that leaves the level realises the value. Otherwise the
/// player ahead (value > 0) has rank 1 + the least rank of a best move in
/// the level, and the player behind (value < 0) 1 + the largest rank of
/// any move in the level: the retrograde attractor order of the threshold
/// sets (`kalah_db::builder`), restricted to what the line can reach.
struct ProgressRanks {
    seeds: u32,
    rank: std::collections::HashMap<Board, u32>,
}

/// Boards a local rank computation may visit before giving up.
const MAX_RANKED: usize = 2_000_000;

impl ProgressRanks {
    fn new<T: Tablebase>(engine: &Engine, table: &T, start: Board) -> Option<ProgressRanks> {
        use std::collections::HashMap;
        let n = start.total();
        // The boards of the level reachable from `start`, and the moves between them.
        let mut index: HashMap<Board, usize> = HashMap::new();
        let mut boards = vec![start];
        index.insert(start, 0);
        let mut inside: Vec<Vec<usize>> = Vec::new();
        let mut exits_to_value: Vec<bool> = Vec::new();
        let mut i = 0;
        while i < boards.len() {
            let b = boards[i];
            let v = exact_value_of(table, b);
            let mut kids = Vec::new();
            let mut exit = false;
            if !engine.is_over(b) {
                for house in engine.moves(b) {
                    let o = engine.play(b, house);
                    if o.next != Next::Over && o.board.total() == n {
                        let next = boards.len();
                        let k = *index.entry(o.board).or_insert(next);
                        if k == next {
                            if boards.len() >= MAX_RANKED {
                                return None;
                            }
                            boards.push(o.board);
                        }
                        kids.push(k);
                    } else if move_value(engine, table, b, house) == v {
                        exit = true;
                    }
                }
            }
            inside.push(kids);
            exits_to_value.push(exit);
            i += 1;
        }
        let values: Vec<i32> = boards.iter().map(|&b| exact_value_of(table, b)).collect();
        let mut parents: Vec<Vec<usize>> = vec![Vec::new(); boards.len()];
        for (p, kids) in inside.iter().enumerate() {
            for &c in kids {
                parents[c].push(p);
            }
        }
        let mut rank: Vec<Option<u32>> = vec![None; boards.len()];
        let mut waiting: Vec<usize> = inside.iter().map(|k| k.len()).collect();
        let mut frontier: Vec<usize> = (0..boards.len())
            .filter(|&p| values[p] == 0 || (values[p] > 0 && exits_to_value[p]) || (values[p] < 0 && inside[p].is_empty()))
            .collect();
        for &p in &frontier {
            rank[p] = Some(0);
        }
        let mut r = 0;
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for &c in &frontier {
                for &p in &parents[c] {
                    if rank[p].is_some() || values[p] == 0 {
                        continue;
                    }
                    if values[p] > 0 {
                        // Ahead: a best move into c (worth -v(c) = v(p)) makes progress.
                        if -values[c] == values[p] {
                            rank[p] = Some(r + 1);
                            next.push(p);
                        }
                    } else {
                        waiting[p] -= 1;
                        if waiting[p] == 0 {
                            rank[p] = Some(r + 1);
                            next.push(p);
                        }
                    }
                }
            }
            frontier = next;
            r += 1;
        }
        let rank = boards.iter().zip(&rank).filter_map(|(&b, &r)| r.map(|r| (b, r))).collect();
        Some(ProgressRanks { seeds: n, rank })
    }

    /// Among `optimal` moves of `board`, one that makes progress.
    fn best_move<T: Tablebase>(&self, engine: &Engine, table: &T, board: Board, optimal: &[usize]) -> usize {
        let ahead = exact_value_of(table, board) > 0;
        let rank_of = |house: usize| {
            let o = engine.play(board, house);
            if o.next == Next::Over || o.board.total() != self.seeds {
                0 // leaves the level: cashes in
            } else {
                self.rank.get(&o.board).map_or(u32::MAX, |&r| r + 1)
            }
        };
        let pick = if ahead {
            optimal.iter().copied().min_by_key(|&h| rank_of(h))
        } else {
            optimal.iter().copied().max_by_key(|&h| rank_of(h).min(u32::MAX - 1))
        };
        pick.unwrap_or(optimal[0])
    }
}

/// Proven bounds on values under any rules, clockwise sowing included.
///
/// Alpha-beta cannot score play that goes on for ever, so [`Solver`]
/// refuses rules that allow it. This searches to a depth and takes the
/// boards at the horizon first at the least and then at the most their
/// seeds allow the root's mover: the true value lies between the two
/// depth-limited values, and as the depth grows the bounds close in, to
/// the value itself once best play on both sides ends (or enters the
/// database) within the depth. Where best play is endless they stay apart.
/// The database (clockwise: one built by retrograde analysis, which has
/// the exact values of endless play) answers every board it covers.
pub struct BoundSolver<T: Tablebase>(Solver<T>);

impl<T: Tablebase> std::fmt::Debug for BoundSolver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("BoundSolver").field(&self.0).finish()
    }
}

impl<T: Tablebase> BoundSolver<T> {
    /// A solver for `h` houses a side under `rules`, backed by `table`.
    pub fn new(h: usize, rules: Rules, table: T, options: SearchOptions) -> Result<Self, SearchError> {
        Solver::build(h, rules, table, options).map(BoundSolver)
    }

    /// [`Solver::cancel_with`]: searches stop, as if their deadline had
    /// passed, when `flag` is raised.
    pub fn cancel_with(&mut self, flag: Arc<AtomicBool>) {
        self.0.cancel_with(flag);
    }

    /// [`Solver::progress`].
    pub fn progress(&self) -> SearchProgress {
        self.0.progress()
    }

    /// [`Solver::journal_with`]: the proofs record and use bounds in `journal`.
    pub fn journal_with(&mut self, journal: Arc<Journal>) {
        self.0.journal_with(journal);
    }

    /// Nodes searched so far by all threads.
    pub fn nodes(&self) -> u64 {
        self.0.nodes()
    }

    /// The database behind the proofs.
    pub fn tablebase(&self) -> &T {
        self.0.tablebase()
    }

    /// The rules engine.
    pub fn engine(&self) -> &Engine {
        self.0.engine()
    }

    /// Bounds on the value of `position` for the player to move, proven
    /// by `deadline` (the exact value if the bounds meet first).
    pub fn bounds_within(&self, position: &Position, deadline: Instant) -> Result<Bounded, SearchError> {
        self.prove(position, Some(deadline), u32::MAX)
    }

    /// Bounds on the value of `position` proven by searches of at most
    /// `max_depth` plies (the exact value if the bounds meet first).
    pub fn bounds_to_depth(&self, position: &Position, max_depth: u32) -> Result<Bounded, SearchError> {
        self.prove(position, None, max_depth)
    }

    fn prove(&self, position: &Position, deadline: Option<Instant>, max_depth: u32) -> Result<Bounded, SearchError> {
        self.0.check(position)?;
        let board = position.mover_board();
        let proven = Proven::default();
        let found = self.0.parallel_until(board, |s| s.prove(board, max_depth), deadline, deadline.and(self.0.cancel.as_deref()), &proven);
        self.0.gathered(position, found, &proven)
    }

    /// Bounds on the value of `board` for its mover, proven within `limit`.
    fn board_bounds(&self, board: Board, limit: Limit) -> Result<(i32, i32), SearchError> {
        let proven = Proven::default();
        // Out of time: the bounds the table holds already, without starting
        // a proof that would only stop at its first check (0.1-0.2 s late).
        if limit.deadline.is_some_and(|d| Instant::now() >= d) {
            return self.0.gathered_board(board, None, &proven);
        }
        let found =
            self.0.parallel_until(board, |s| s.prove(board, limit.max_depth), limit.deadline, limit.deadline.and(self.0.cancel.as_deref()), &proven);
        self.0.gathered_board(board, found, &proven)
    }

    /// Bounds on the value for its mover of move `house` (0-based) of
    /// `board`, proven within `limit`.
    fn move_bounds(&self, board: Board, house: usize, limit: Limit) -> Result<Bounded, SearchError> {
        outcome_bounds(&self.0.engine.play(board, house), |b| self.board_bounds(b, limit))
    }

    /// What can be proven about `position` by `deadline`: bounds on its
    /// value; then if asked and the value is exact, a line of best play as
    /// far as time allows: moves proven to keep the value, preferring ones
    /// that lead to a board not yet on the line, until the game ends, the
    /// database covers the board (then on as [`analyze_from_table`] plays,
    /// which the deadline does not stop), or a board repeats (endless play
    /// if nothing is left to win, else the line is cut); then if asked,
    /// bounds on every move's value, the time left shared among them (a
    /// move not reached in time gets the bounds the table holds already).
    pub fn analyze_within(&self, position: &Position, deadline: Instant, all_moves: bool, pv: bool) -> Result<BoundedAnalysis, SearchError> {
        self.analyze(position, Limit { deadline: Some(deadline), max_depth: u32::MAX }, all_moves, pv)
    }

    /// [`BoundSolver::analyze_within`] with every proof searching at most
    /// `max_depth` plies instead of a deadline.
    pub fn analyze_to_depth(&self, position: &Position, max_depth: u32, all_moves: bool, pv: bool) -> Result<BoundedAnalysis, SearchError> {
        self.analyze(position, Limit { deadline: None, max_depth }, all_moves, pv)
    }

    fn analyze(&self, position: &Position, limit: Limit, all_moves: bool, pv: bool) -> Result<BoundedAnalysis, SearchError> {
        let board = position.mover_board();
        let base = position.store_difference();
        let mut value = self.prove(position, limit.deadline, limit.max_depth)?;
        // The line first: it follows the proof just made, so it is quick.
        let (mut line, mut end) = if pv && value.is_exact() {
            self.line(position, value.lower - base, limit)?
        } else {
            (Vec::new(), if pv { LineEnd::Cut } else { LineEnd::GameOver })
        };
        let moves = if all_moves {
            moves_within(&self.0.engine, position, &mut value, limit, |house, limit| self.move_bounds(board, house, limit))?
        } else {
            Vec::new()
        };
        // The moves' values may have made the position's exact: its line then.
        if pv && line.is_empty() && end == LineEnd::Cut && value.is_exact() {
            (line, end) = self.line(position, value.lower - base, limit)?;
        }
        Ok(BoundedAnalysis { value, moves, pv: line, end })
    }

    /// A best move (its house, 1-based) of the player to move in
    /// `position`, whose exact value (stores included) is `value`: the
    /// first move proven by `deadline` to reach it, trying the table's best
    /// move first and sharing the time among the moves. `None` if the game
    /// is over or no move was proven in time.
    pub fn best_move_within(&self, position: &Position, value: i32, deadline: Instant) -> Result<Option<usize>, SearchError> {
        let board = position.mover_board();
        let target = value - position.store_difference();
        let limit = Limit { deadline: Some(deadline), max_depth: u32::MAX };
        let houses = self.0.moves_hint_first(board);
        for (i, &house) in houses.iter().enumerate() {
            if self.move_bounds(board, house, limit.share(houses.len() - i))?.lower >= target {
                return Ok(Some(house + 1));
            }
        }
        Ok(None)
    }

    /// A line of best play from `position`, whose board value is `value`;
    /// see [`BoundSolver::analyze_within`].
    fn line(&self, position: &Position, mut value: i32, limit: Limit) -> Result<(Vec<PvMove>, LineEnd), SearchError> {
        let engine = &self.0.engine;
        // A line goes on from the table only where it holds exact values.
        let covered = self.0.table.max_seeds().filter(|_| self.0.table.is_exact());
        let mut line = Vec::new();
        let mut side = position.to_move();
        let mut board = position.mover_board();
        let mut seen = std::collections::HashSet::new();
        loop {
            if engine.is_over(board) {
                return Ok((line, LineEnd::GameOver));
            }
            if covered.is_some_and(|m| board.total() <= m) {
                let (rest, end) = table_line(engine, &self.0.table, board, side, usize::MAX);
                line.extend(rest);
                if let Some(why) = self.0.table.failure() {
                    return Err(SearchError::Tablebase(why));
                }
                return Ok((line, end));
            }
            if !seen.insert((board, side)) {
                return Ok((line, if value == 0 { LineEnd::Endless } else { LineEnd::Cut }));
            }
            // The first move proven to keep the value that leads somewhere
            // new, else the first proven to keep it.
            let houses = self.0.moves_hint_first(board);
            let mut chosen = None;
            for (i, &house) in houses.iter().enumerate() {
                if self.move_bounds(board, house, limit.share(houses.len() - i))?.lower >= value {
                    let o = engine.play(board, house);
                    let fresh = o.next == Next::Over || !seen.contains(&turn_after(&o, side));
                    if fresh || chosen.is_none() {
                        chosen = Some((house, o));
                    }
                    if fresh {
                        break;
                    }
                }
            }
            let Some((house, o)) = chosen else {
                return Ok((line, LineEnd::Cut));
            };
            line.push(PvMove { side, house: house + 1 });
            let gain = o.gain();
            match o.next {
                Next::Over => return Ok((line, LineEnd::GameOver)),
                Next::Mover => value -= gain,
                Next::Opponent => {
                    value = gain - value;
                    side = side.other();
                }
            }
            board = o.board;
        }
    }
}

/// Bounds on the value for its mover of a move with outcome `o`, given
/// bounds on the value of the board it leads to (`child`, asked only if
/// the game goes on).
fn outcome_bounds(o: &kalah_core::Outcome, child: impl FnOnce(Board) -> Result<(i32, i32), SearchError>) -> Result<Bounded, SearchError> {
    let gain = o.gain();
    let (lower, upper) = match o.next {
        Next::Over => (gain, gain),
        Next::Mover => {
            let (l, u) = child(o.board)?;
            (gain + l, gain + u)
        }
        Next::Opponent => {
            let (l, u) = child(o.board)?;
            (gain - u, gain - l)
        }
    };
    Ok(Bounded { lower, upper })
}

/// Every legal move of `position` (none if it is over) with the bounds
/// `bounds(house, limit)` proves on its value (0-based house; `limit`
/// shares what is left of `limit` among the moves not yet done), the
/// stores added; and `value`, the position's bounds, tightened by them:
/// the value is the best move's.
fn moves_within(
    engine: &Engine,
    position: &Position,
    value: &mut Bounded,
    limit: Limit,
    mut bounds: impl FnMut(usize, Limit) -> Result<Bounded, SearchError>,
) -> Result<Vec<BoundedMove>, SearchError> {
    let board = position.mover_board();
    if engine.is_over(board) {
        return Ok(Vec::new());
    }
    let base = position.store_difference();
    let houses: Vec<usize> = engine.moves(board).collect();
    let mut moves = Vec::new();
    for (i, &house) in houses.iter().enumerate() {
        let b = bounds(house, limit.share(houses.len() - i))?;
        moves.push(BoundedMove { house: house + 1, value: Bounded { lower: base + b.lower, upper: base + b.upper } });
    }
    value.lower = value.lower.max(moves.iter().map(|m| m.value.lower).max().unwrap_or(value.lower));
    value.upper = value.upper.min(moves.iter().map(|m| m.value.upper).max().unwrap_or(value.upper));
    for m in &mut moves {
        m.value.upper = m.value.upper.min(value.upper);
    }
    if value.lower > value.upper {
        return Err(SearchError::Inconsistent(format!("the moves' bounds contradict the value's for {}", position.ring())));
    }
    Ok(moves)
}

/// How long a proof of bounds may go on: until a deadline, or to a depth.
#[derive(Clone, Copy, Debug)]
struct Limit {
    deadline: Option<Instant>,
    max_depth: u32,
}

impl Limit {
    /// The limit of the first of `parts` proofs that share this one's time
    /// evenly (the depth is not shared).
    fn share(self, parts: usize) -> Limit {
        let deadline = self.deadline.map(|d| {
            let now = Instant::now();
            now + d.saturating_duration_since(now) / parts.max(1) as u32
        });
        Limit { deadline, ..self }
    }
}
