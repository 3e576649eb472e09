//! The public face of the search: exact values of positions, of every
//! move, and a principal variation, on as many threads as asked.
//!
//! # Parallel search
//!
//! Every thread runs the same MTD(f) on the same position and all share one
//! transposition table. Near the root a thread marks the boards it is
//! searching, and a thread that meets a marked board among its moves puts
//! it off to the end (ABDADA), so the threads spread over different
//! subtrees and find each other's results in the table. The first thread
//! to finish stops the rest. Every bound in the table is exact, so the
//! value cannot depend on the number of threads, only the time.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use kalah_core::{key_width, Board, Engine, Next, Position, Rules, Side};
use kalah_db::Tablebase;
use thiserror::Error;

use crate::busy::BusyTable;
use crate::search::{Searcher, Shared, Stats};
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
    /// The thread pool could not be made.
    #[error("cannot start {threads} search threads: {why}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// The reason.
        why: String,
    },
}

/// How to search.
#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// Threads to search with (at least 1).
    pub threads: usize,
    /// Transposition table size in bytes.
    pub tt_bytes: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            tt_bytes: 1 << 30,
        }
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
    /// The principal variation stops because best play repeats a position
    /// and goes on for ever (clockwise sowing); the rest scores nothing.
    pub endless: bool,
}

/// Exact alpha-beta solver for one board size and rule set; see the module docs.
pub struct Solver<T: Tablebase> {
    engine: Engine,
    tt: TranspositionTable,
    busy: BusyTable,
    table: T,
    pool: rayon::ThreadPool,
    threads: usize,
    nodes: AtomicU64,
    stats: Mutex<Stats>,
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
        if table.max_seeds().is_some() && (table.houses() != h || table.rules() != rules) {
            return Err(SearchError::WrongTablebase {
                db_houses: table.houses(),
                db_rules: table.rules(),
                houses: h,
                rules,
            });
        }
        let threads = options.threads.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("search-{i}"))
            .build()
            .map_err(|e| SearchError::Threads {
                threads,
                why: e.to_string(),
            })?;
        let key_bits = 2 * h as u32 * key_width(h);
        Ok(Solver {
            engine: Engine::new(h, rules),
            tt: TranspositionTable::new(options.tt_bytes, key_bits).map_err(|e| SearchError::Memory {
                bytes: options.tt_bytes,
                why: e.to_string(),
            })?,
            busy: BusyTable::new(),
            table,
            pool,
            threads,
            nodes: AtomicU64::new(0),
            stats: Mutex::new(Stats::default()),
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

    /// Nodes searched so far by all threads.
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Relaxed)
    }

    /// What the threads counted, added up, for finished searches.
    pub fn stats(&self) -> Stats {
        *self.stats.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `job` on every thread (shared table, ABDADA); returns the first result.
    fn parallel<R: Send>(&self, job: impl Fn(&mut Searcher<'_, T>) -> Option<R> + Sync) -> R {
        let stop = AtomicBool::new(false);
        let result = Mutex::new(None);
        let shared = Shared {
            engine: &self.engine,
            tt: &self.tt,
            busy: &self.busy,
            table: &self.table,
            stop: &stop,
            nodes: &self.nodes,
            threads: self.threads,
        };
        self.pool.broadcast(|_| {
            let mut searcher = Searcher::new(&shared);
            if let Some(r) = job(&mut searcher) {
                let mut slot = result.lock().unwrap_or_else(|e| e.into_inner());
                if slot.is_none() {
                    *slot = Some(r);
                }
                stop.store(true, Relaxed);
            }
            searcher.flush_nodes();
            self.stats.lock().unwrap_or_else(|e| e.into_inner()).add(&searcher.stats);
        });
        result
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .expect("a search thread that was not stopped returns a result")
    }

    /// The exact value of `board` (future store difference for the mover).
    pub fn board_value(&self, board: Board) -> i32 {
        self.parallel(|s| s.mtdf(board, 0))
    }

    /// Whether the value of `board` is at least `beta`.
    fn board_at_least(&self, board: Board, beta: i32) -> bool {
        self.parallel(|s| s.at_least(board, beta))
    }

    /// The exact value of the player to move's move `house` (0-based) in `board`.
    fn move_value(&self, board: Board, house: usize) -> i32 {
        let o = self.engine.play(board, house);
        match o.next {
            Next::Over => o.gain(),
            _ => o.value_with(self.board_value(o.board)),
        }
    }

    /// Solves `position`: its value, and if asked every move's value and a
    /// principal variation to the end of the game. Fails only if the
    /// database turned out to be damaged (no value is reported then).
    pub fn analyze(&self, position: &Position, all_moves: bool, pv: bool) -> Result<Analysis, SearchError> {
        let analysis = self.analyze_unchecked(position, all_moves, pv);
        match self.table.failure() {
            Some(why) => Err(SearchError::Tablebase(why)),
            None => Ok(analysis),
        }
    }

    fn analyze_unchecked(&self, position: &Position, all_moves: bool, pv: bool) -> Analysis {
        let board = position.mover_board();
        let base = position.store_difference();
        if let Some(v) = self.engine.terminal_value(board) {
            return Analysis {
                value: base + v,
                moves: Vec::new(),
                pv: Vec::new(),
                endless: false,
            };
        }
        let (value, moves) = if all_moves {
            let moves: Vec<MoveValue> = self
                .engine
                .moves(board)
                .map(|house| MoveValue {
                    house: house + 1,
                    value: base + self.move_value(board, house),
                })
                .collect();
            let best = moves.iter().map(|m| m.value).max().expect("a position that is not over has a move");
            (best, moves)
        } else {
            (base + self.board_value(board), Vec::new())
        };
        let pv = if pv {
            self.principal_variation(position, value - base)
        } else {
            Vec::new()
        };
        Analysis {
            value,
            moves,
            pv,
            endless: false,
        }
    }

    /// A line of best play from `position`, whose board value is `value`.
    pub fn principal_variation(&self, position: &Position, mut value: i32) -> Vec<PvMove> {
        let h = self.engine.houses();
        let mut line = Vec::new();
        let mut side = position.to_move();
        let mut board = position.mover_board();
        while !self.engine.is_over(board) {
            let (house, o) = self
                .engine
                .moves(board)
                .map(|house| (house, self.engine.play(board, house)))
                .find(|(_, o)| self.reaches(o, value))
                .expect("some move reaches the value of the position");
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
            debug_assert!(h == self.engine.houses());
        }
        line
    }

    /// Whether the move with outcome `o` is worth at least `value` to its mover.
    fn reaches(&self, o: &kalah_core::Outcome, value: i32) -> bool {
        let gain = o.gain();
        match o.next {
            Next::Over => gain >= value,
            Next::Mover => self.board_at_least(o.board, value - gain),
            // gain - child >= value  <=>  child <= gain - value  <=>  not (child >= gain - value + 1)
            Next::Opponent => !self.board_at_least(o.board, gain - value + 1),
        }
    }
}

/// Solves `position` from a table that covers it and everything it leads
/// to (a database, or levels built in memory for clockwise sowing): every
/// move's value, and a principal variation that follows best moves until
/// the game ends or, with endless play, until a position repeats.
pub fn analyze_from_table<T: Tablebase>(engine: &Engine, table: &T, position: &Position) -> Result<Analysis, SearchError> {
    let board = position.mover_board();
    let base = position.store_difference();
    let move_value = |board: Board, house: usize| {
        let o = engine.play(board, house);
        match o.next {
            Next::Over => o.gain(),
            _ => o.value_with(table.value(o.board)),
        }
    };
    let analysis = if let Some(v) = engine.terminal_value(board) {
        Analysis {
            value: base + v,
            moves: Vec::new(),
            pv: Vec::new(),
            endless: false,
        }
    } else {
        let moves: Vec<MoveValue> = engine
            .moves(board)
            .map(|house| MoveValue {
                house: house + 1,
                value: base + move_value(board, house),
            })
            .collect();
        let value = table.value(board) + base;
        let mut pv = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let (mut b, mut side, mut endless) = (board, position.to_move(), false);
        while !engine.is_over(b) {
            if !seen.insert((b, side)) {
                endless = true;
                break;
            }
            let target = table.value(b);
            let house = engine
                .moves(b)
                .find(|&house| move_value(b, house) == target)
                .expect("some move reaches the value of the position");
            pv.push(PvMove { side, house: house + 1 });
            let o = engine.play(b, house);
            match o.next {
                Next::Over => break,
                Next::Mover => {}
                Next::Opponent => side = side.other(),
            }
            b = o.board;
        }
        Analysis {
            value,
            moves,
            pv,
            endless,
        }
    };
    match table.failure() {
        Some(why) => Err(SearchError::Tablebase(why)),
        None => Ok(analysis),
    }
}
