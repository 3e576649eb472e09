//! Exact alpha-beta search with a shared transposition table.
//!
//! Values here are *board values*: the future store difference for the
//! player to move (`kalah-core`), so a search never needs the stores. A
//! board with `n` seeds in its houses has a value in `-n..=n`, and when the
//! rules score every seed (`Rules::values_have_seed_parity`) the value has
//! the parity of `n`.
//!
//! The search is exact: no depth limit, every line is followed to the end
//! of the game or to a board the endgame database covers. This only works
//! for rules under which play always ends (counter-clockwise sowing); the
//! clockwise rules are solved by retrograde analysis in `kalah-db`, and
//! where that does not fit, `Searcher::prove` bounds their values (see
//! "Proven bounds" below).
//!
//! # A node
//!
//! 1. Futility: the value of a board of `n` seeds lies in `-n..=n`; it is
//!    at least `2 g - n` when the mover is sure to bank `g` seeds (a chain
//!    of moves into the store), and at most `n - 2` when the opponent is
//!    sure to score one (see `Bounds`). Only a root checks them itself:
//!    a node's moves were bounded by them in step 4 against the same
//!    window (every search is a null-window test), so a move is searched
//!    only where they do not decide it.
//! 2. The board's own table entry: a bound that decides the window ends the
//!    node. Boards with few seeds, or few more than the database covers,
//!    skip the table (`TT_MIN_SEEDS`, `TT_ABOVE_TABLE`).
//! 3. Every move is played once. A move that ends the game has an exact
//!    value at once. Then the database entries of the moves to covered
//!    boards and the table buckets of the others are prefetched, all
//!    together, and the covered moves' exact values read.
//! 4. Enhanced transposition cut-off: each remaining move's value is
//!    bounded from its board's entry and seed count; a move whose lower
//!    bound reaches beta refutes the node without a search, a move whose
//!    upper bound cannot exceed alpha needs none.
//! 5. The rest are searched in order, each picked when its turn comes
//!    (most nodes are refuted by their first move): the table's best move,
//!    then moves that end in the store (the mover plays again; the house
//!    nearer the store first), then by seeds won, by how often the same
//!    house has refuted a node before (the history heuristic, see
//!    `History`), by the children's bounds, and last the house farther
//!    from the store. With several threads, when the first move searched
//!    does not refute a node the table keeps (the first two, if the node
//!    was expected to be refuted: `SPLIT_CUT_AFTER`), the others are
//!    searched in parallel (`Searcher::split`; not in iterative
//!    deepening, below).
//!
//! # Iterative deepening
//!
//! Before the exact MTD(f), depth-limited MTD(f) searches (depths 3, 6, ..,
//! leaves guessed at no further gain) give the first guess. Their results
//! are stored as *guess* entries tagged with their depth (`crate::tt`): a
//! later depth-limited search uses a guess's bounds when it looks no
//! deeper, and its best move first; an exact search uses neither. Playing
//! a guess's move first made exact searches up to twice as large as
//! ordering by seeds won and history alone (Kalah(6,5) over the 24-seed
//! database, one thread: 465.1 M nodes against 213.0 M; Kalah(6,4) over
//! the 20-seed one 7.83 M against 5.99 M; Kalah(5,4) (standard capture)
//! and Kalah(6,3) over 12-seed databases 56% and 32% fewer, Kalah(6,4)
//! without one 15%; Kalah(5,5) 1% and Kalah(6,4) under standard capture
//! 1.5-4% more; BENCHMARKS.md). So the shallow searches' moves are wrong
//! often enough to cost more than they save, and the more so the larger
//! the table, which keeps more of them.
//! A depth-limited result that never touched a guessed leaf is exact and
//! stored as such.
//!
//! Iterative deepening runs on one thread even when the search has more
//! (`Searcher::may_split`). Split between threads, it made the exact
//! searches that followed up to 40% larger from one run to the next; most
//! likely because its exact entries carry best moves that the exact
//! search plays first, and a split node's entry holds whichever
//! refutation a thread happened to find first.
//! On one thread deepening takes a little longer and leaves the same
//! moves every time. Two threads, alternating runs (BENCHMARKS.md):
//! Kalah(6,4) over the 20-seed database 5.63-5.78 M nodes, mean 1.83 s,
//! against 5.73-7.92 M, mean 1.96 s (twelve runs each); Kalah(5,5) over a
//! 16-seed one 51.0-52.8 M nodes and 16.7-19.3 s against 70.4-70.7 M and
//! 25.2-25.4 s (three each); Kalah(6,5) over the 24-seed one unchanged.
//!
//! # Proven bounds
//!
//! With clockwise sowing play can go on for ever, so a search cannot
//! follow every line to its end. `Searcher::prove` searches to a depth
//! and takes each board at the horizon at the least its seeds allow the
//! root's mover (`-n` or `n`, `Horizon::WorstForRoot`) or at the most
//! (`Horizon::BestForRoot`). The minimax value of such a tree is a
//! monotone function of its leaves, and the true values (endless play
//! included) satisfy the same recursion, so with the leaves at the worst
//! the value found is at most the true one, and at the best at least. In a
//! null-window search this says, for a node whose mover the leaves are
//! worst for: a result above alpha is a lower bound on its true value (a
//! result at or below alpha says nothing); for the other nodes, a result
//! below beta is an upper bound. Such a result rests only on results of
//! its children of the same kind, on exact values and on exact table
//! bounds, so it is stored as an exact bound; the other side is stored as
//! a guess of its depth and only ever used for results that prove
//! nothing (`Searcher::guess_bounds`).

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering::Relaxed};

use arrayvec::ArrayVec;
use kalah_core::{Board, Capture, Engine, KeyPacker, Leftovers, Next, Relay, Rules, Sowing};
use kalah_db::Tablebase;

use crate::journal::Journal;
use crate::tt::TranspositionTable;

/// A searcher checks the stop flag (and adds its nodes to the shared count)
/// after this many nodes of its own, and after every split. Counted from
/// the last check, not as a multiple of its node count: a split adds its
/// forks' nodes to that count in jumps, which stepped over the multiples
/// and left a stopped search running for seconds (clockwise Kalah(6,4),
/// 10 s asked: 10.3-13.8 s taken).
const STOP_CHECK_NODES: u64 = 0x400;
/// Boards with fewer seeds are searched without the table: their subtrees
/// cost less than the cache misses. Tuned on Kalah(5,5) and Kalah(6,4).
const TT_MIN_SEEDS: i32 = 8;
/// With a database, boards with at most this many seeds more than it
/// covers are searched without the table too: most of their moves end in
/// the database, so their subtrees are small and a table probe (a cache
/// miss) costs more than it saves. On Kalah(6,4) with the 20-seed
/// database, from 0 to 3 to 5 the nodes grow by 30% and 50% and the time
/// falls by 28% and 33% (one thread); on the larger searches of Kalah(6,5)
/// 3 beats 5 (24-seed database: 112-113 s against 124-143 s; 30-seed:
/// 18.8 s against 19.4 s; two threads; BENCHMARKS.md).
const TT_ABOVE_TABLE: i32 = 3;
/// Boards with fewer seeds than this many more than the table's least
/// are never split between threads ([`Searcher::split`]): their subtrees
/// are small, and a split costs a hand-over of rayon tasks (Kalah(5,5)
/// over a 16-seed database splits 6.3 M nodes at 0, 2.6 M at 4). From 0
/// to 4 to 8 Kalah(5,5) took 10.3, 9.2 and 9.5 s and Kalah(6,4) over a
/// 20-seed database 1.39, 1.51 and 1.36 s (medians of four, two threads):
/// no clear winner in this machine's noise.
const SPLIT_ABOVE_TT: i32 = 4;
/// Moves a node expected to be refuted (a cut node, see
/// `Searcher::expects_cut`) searches one after the other before it splits
/// the rest; a node expected to have every move fail splits after one (young
/// brothers wait). When the first move of a cut node fails, the next one
/// most often refutes it, and searching the others beside it would be
/// wasted. Kalah(6,4) over the 20-seed database, two threads, ten runs
/// each: 1, 2 and 3 took 1.36, 1.12 and 1.24 s (medians) and searched
/// 9.6, 8.2 and 8.6 M nodes (one thread: 7.8 M); Kalah(6,5) over the
/// 24-seed one and Kalah(6,4) under standard capture over a 16-seed one
/// did not change (BENCHMARKS.md).
const SPLIT_CUT_AFTER: u32 = 2;
/// Iterative deepening before an exact search: depths `ID_STEP, 2 ID_STEP, ..`
/// up to `ID_MAX_DEPTH`. Tuned on Kalah(6,3), Kalah(5,5) and Kalah(6,4)
/// with a 20-seed database (node counts, one thread), and again since an
/// exact search takes no moves from guesses: from 0 to 24 in steps of 3,
/// 18 was best or near it on six searches.
const ID_STEP: u32 = 3;
const ID_MAX_DEPTH: u32 = 18;
/// The distances from the guess of the first tests of a bracketed MTD(f)
/// ([`Searcher::mtdf`]), widest first.
const BRACKET: &[i32] = &[48, 42, 36, 30, 24, 18, 12, 6];
/// When the first exact test of an MTD(f) holds ("value >= guess"), the
/// iterative deepening guessed low, and most often by more than one step:
/// the second test goes this many steps above the new lower bound, not
/// one, skipping a test just below the value, the costliest kind (its
/// proof has few cut-offs). If it fails, one test more closes the gap.
/// `kalah solve` (Kalah(6,4), every move's value, no database on disk, two
/// threads, three alternating runs): 0.79 of the wall time with 1
/// (BENCHMARKS.md); Kalah(6,4) under empty capture, Kalah(6,3), Kalah(5,5)
/// and Kalah(5,4) within 4% of the nodes either way.
const GALLOP: i32 = 2;
/// The depths of [`Searcher::prove`]'s searches grow by this many plies.
/// Clockwise Kalah(5,3) over a 20-seed database, 60 s (value 0): steps of
/// 1, 2 and 4 proved -2..+6, 0..+4 and -2..+4.
const PROVE_STEP: u32 = 2;

/// What a depth-limited search takes a board at its horizon to be worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Horizon {
    /// No further gain: a guess (iterative deepening before an exact search).
    Guess,
    /// The least the root's mover can get: results in the root's mover's
    /// favour are proven ([`Searcher::prove`]).
    WorstForRoot,
    /// The most the root's mover can get: results against it are proven.
    BestForRoot,
}

/// Bounds on the value of a board from its seeds alone (step 1 of a
/// node, "futility"), under one rule set: [`Bounds::floor`] and
/// [`Bounds::ceiling`].
#[derive(Clone, Copy, Debug)]
struct Bounds {
    /// The mover of any board wins a seed at once ([`Bounds::floor`]).
    mover_always_scores: bool,
    /// The opponent scores whenever two of its houses hold seeds ([`Bounds::ceiling`]).
    opponent_scores: bool,
    /// [`store_distances`], or 0 with clockwise sowing.
    store_distances: u64,
    /// The opponent scores whenever two of its houses reach its store ([`Bounds::ceiling`]).
    opponent_reaching_scores: bool,
}

impl Bounds {
    fn new(h: usize, rules: Rules) -> Bounds {
        let ccw = rules.sowing == Sowing::Ccw;
        let mover_always_scores = rules.capture == Capture::Empty && ccw && rules.relay == Relay::Off;
        Bounds {
            mover_always_scores,
            opponent_scores: mover_always_scores && rules.leftovers == Leftovers::Owner,
            store_distances: if ccw { store_distances(h) } else { 0 },
            opponent_reaching_scores: ccw && rules.relay == Relay::Off && rules.leftovers == Leftovers::Owner,
        }
    }

    /// A least value `board` (with `seeds` seeds, not over) can have, cheap
    /// to find: [`Bounds::chain_floor`] without the chain.
    #[inline]
    fn floor(&self, board: Board, seeds: i32) -> i32 {
        if self.mover_always_scores || (self.store_distances != 0 && reaches_store(board.mover_word(), self.store_distances)) {
            2 - seeds
        } else {
            -seeds
        }
    }

    /// `floor`, a least value of `board` (with `seeds` seeds, not over)
    /// already known, raised to [`Bounds::chain_floor`] if that may reach
    /// `need` (the mover banks at most the seeds on its side): the chain is
    /// followed only where it may decide something.
    #[inline]
    fn raise_floor(&self, board: Board, seeds: i32, floor: i32, need: i32) -> i32 {
        if floor >= need || self.store_distances == 0 || 2 * board.mover_seeds() as i32 - seeds < need {
            floor
        } else {
            floor.max(self.chain_floor(board, seeds))
        }
    }

    /// [`Bounds::floor`] raised by [`Bounds::raise_floor`] toward `need`:
    /// the floor of a board checked against a window whose beta is `need`.
    #[inline]
    fn floor_toward(&self, board: Board, seeds: i32, need: i32) -> i32 {
        self.raise_floor(board, seeds, self.floor(board, seeds), need)
    }

    /// The least value `board` (with `seeds` seeds, not over) can have.
    ///
    /// Always `-seeds`; but when the mover is sure to bank `g` seeds, the
    /// opponent can score at most `seeds - g`, and the value is at least
    /// `2 g - seeds`. With counter-clockwise sowing, `g` counts
    ///
    /// * the moves of a chain that each end in the store (a house holding
    ///   exactly as many seeds as it is far from the store, the one nearest
    ///   the store first: its seeds fill the houses to its right by one and
    ///   end in the store, and the mover moves again), found by
    ///   [`banked_by_chain`];
    /// * and one more if, after the chain, a house holds at least as many
    ///   seeds as it is far from the store, whose move passes the store.
    ///   With empty capture and no relay there always is one while the
    ///   mover has seeds: the rightmost non-empty house either reaches the
    ///   store or ends in an own house that was empty (every house to its
    ///   right is), which captures.
    fn chain_floor(&self, board: Board, seeds: i32) -> i32 {
        if self.store_distances == 0 {
            return -seeds;
        }
        let (banked, side) = banked_by_chain(board.mover_word(), self.store_distances);
        let more = side != 0 && (self.mover_always_scores || reaches_store(side, self.store_distances));
        2 * (banked + more as i32) - seeds
    }

    /// The greatest value `board` (with `seeds` seeds, not over) can have.
    ///
    /// Always `seeds`; but with counter-clockwise sowing, no relay and
    /// leftovers to their owner, the opponent is sure to score a seed, and
    /// the value is at most `seeds - 2`, when two of its houses hold seeds
    /// (under empty capture) or when two of its houses reach its store
    /// (under either capture). The mover's turn captures at most one house
    /// (a capture ends the turn) and sowing only adds seeds, so the other
    /// house still holds seeds (still reaches the store) when the turn is
    /// over. Then either the game is over, and the opponent keeps those
    /// seeds, or the opponent moves and wins a seed at once (see
    /// [`Bounds::floor`]).
    #[inline]
    fn ceiling(&self, board: Board, seeds: i32) -> i32 {
        let opponent = board.opponent_word();
        let scores = if self.opponent_scores {
            two_occupied(opponent)
        } else if self.opponent_reaching_scores {
            let reaching = houses_reaching_store(opponent, self.store_distances);
            reaching & reaching.wrapping_sub(1) != 0
        } else {
            false
        };
        if scores {
            seeds - 2
        } else {
            seeds
        }
    }
}

/// The distance of each house to its owner's store, counter-clockwise,
/// as the bytes of a word (`h - i` in byte `i`), and 128 in the bytes past
/// the last house (see [`reaches_store`]).
fn store_distances(h: usize) -> u64 {
    (0..kalah_core::MAX_HOUSES).fold(0, |word, i| word | (if i < h { (h - i) as u64 } else { 0x80 }) << (8 * i))
}

/// Whether some house of a side (given as a word) holds at least as many
/// seeds as its distance to the store (`distances`, from
/// [`store_distances`]): then its move puts a seed in the store. Exact for
/// houses of fewer than 128 seeds; a house of more may be missed.
#[inline]
fn reaches_store(side: u64, distances: u64) -> bool {
    houses_reaching_store(side, distances) != 0
}

/// The houses of [`reaches_store`], as the top bit of each of their bytes.
#[inline]
fn houses_reaching_store(side: u64, distances: u64) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Per byte, (seeds + 128) - distance: no byte borrows from the next
    // (distances are at most 128), and the top bit stays set exactly when
    // seeds >= distance; past the last house, 128 - 128 clears it.
    ((side | HIGH) - distances) & HIGH
}

/// The seeds a chain of moves that each end in the store banks from a side
/// (given as a word), and the side after the chain: each move is from the
/// house nearest the store that holds exactly its distance to it
/// (`distances`, from [`store_distances`]). The chain stops early at a
/// house of 128 seeds or more (a bound, not the most it could bank).
#[inline]
fn banked_by_chain(mut side: u64, distances: u64) -> (i32, u64) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut banked = 0;
    while side & HIGH == 0 {
        // The top bit of each byte where side and distance agree (past the
        // last house they never do: 0 against 128); no carry crosses a byte.
        let diff = side ^ distances;
        let exact = !(((diff & LOW) + LOW) | diff) & HIGH;
        if exact == 0 {
            break;
        }
        // Play the exact house nearest the store (the highest byte): empty
        // it and add a seed to each house between it and the store (the
        // top bits of the houses' bytes: distances 1 to 8, 128 past them).
        let houses = ((distances & LOW) + LOW) & !distances & HIGH;
        let byte = (63 - exact.leading_zeros()) / 8;
        let right = houses & !(2u64 << (8 * byte + 7)).wrapping_sub(1);
        side = (side & !(0xff << (8 * byte))) + (right >> 7);
        banked += 1;
    }
    (banked, side)
}

/// The houses of a side (given as a word, one byte a house) that hold
/// seeds, as the lowest bit of each of their bytes.
#[inline]
fn occupied_houses(side: u64) -> u64 {
    let mut x = side;
    x |= x >> 4;
    x |= x >> 2;
    x |= x >> 1;
    x & 0x0101_0101_0101_0101
}

/// Whether two or more houses of a side (given as a word, one byte a
/// house) hold seeds: whether bits remain above the byte of the lowest one.
#[inline]
fn two_occupied(side: u64) -> bool {
    side.checked_shr((side.trailing_zeros() | 7) + 1).unwrap_or(0) != 0
}

/// What the search counts, per thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Nodes searched (calls of the node routine).
    pub nodes: u64,
    /// Nodes decided by their own table entry.
    pub table_cuts: u64,
    /// Nodes refuted by a child's table entry (enhanced transposition cut-off).
    pub etc_cuts: u64,
    /// Nodes refuted by a move with an exact value (game over, database).
    pub exact_cuts: u64,
    /// Nodes refuted by the first move searched.
    pub first_move_cuts: u64,
    /// Nodes refuted by a later move.
    pub later_cuts: u64,
    /// Nodes where no move reached beta.
    pub all_nodes: u64,
    /// Nodes whose moves were searched in parallel (`Searcher::split`).
    pub splits: u64,
    /// Moves to a board the database holds only bounds for (a window
    /// encoding), probed.
    pub db_bounds: u64,
}

impl Stats {
    /// Adds another thread's counts.
    pub fn add(&mut self, o: &Stats) {
        self.nodes += o.nodes;
        self.table_cuts += o.table_cuts;
        self.etc_cuts += o.etc_cuts;
        self.exact_cuts += o.exact_cuts;
        self.first_move_cuts += o.first_move_cuts;
        self.later_cuts += o.later_cuts;
        self.all_nodes += o.all_nodes;
        self.splits += o.splits;
        self.db_bounds += o.db_bounds;
    }
}

/// How often each house (counted from the mover's left) refuted a node by
/// a move that ends the mover's turn: the history heuristic. Most of the
/// nodes lie just above the database, where the table gives no best move,
/// so the order of their moves is all the search has; among moves that win
/// the same seeds, trying first the house that refuted most often so far
/// makes the tree a third smaller (Kalah(6,4) with the 20-seed database:
/// 11.8 M -> 7.8 M nodes; Kalah(5,5) and Kalah(6,4) under both capture
/// rules over smaller databases: 31-38% fewer; but the small Kalah(6,3)
/// searches, which start with no counts, grow 2-3 times; BENCHMARKS.md,
/// "Move ordering by history"). Each searcher keeps its own; the forks of
/// a split start from a copy, and what they count is added back
/// ([`History::merge`]), so the counts follow the tree as on one thread.
#[derive(Clone, Copy, Debug)]
struct History {
    cuts: [u32; kalah_core::MAX_HOUSES],
    /// The largest of `cuts`.
    max: u32,
}

impl History {
    const fn new() -> History {
        History { cuts: [0; kalah_core::MAX_HOUSES], max: 0 }
    }

    /// Adds what the forks of a split counted after they were made from
    /// this history (`forks`, each a copy of it when the split began).
    fn merge(&mut self, forks: impl Iterator<Item = History>) {
        let start = *self;
        for fork in forks {
            for (count, (&now, &then)) in self.cuts.iter_mut().zip(fork.cuts.iter().zip(&start.cuts)) {
                *count = (*count + now).saturating_sub(then);
            }
        }
        self.max = self.cuts.iter().copied().max().unwrap_or(0);
        while self.max >= Self::LIMIT {
            for c in &mut self.cuts {
                *c /= 2;
            }
            self.max /= 2;
        }
    }

    /// Counts are halved when one reaches this, so that they keep
    /// following the search as it moves on.
    const LIMIT: u32 = 1 << 24;

    /// Counts a refutation by `house`.
    #[inline]
    fn record(&mut self, house: u8) {
        let count = &mut self.cuts[house as usize];
        *count += 1;
        self.max = self.max.max(*count);
        if self.max >= Self::LIMIT {
            for c in &mut self.cuts {
                *c /= 2;
            }
            self.max /= 2;
        }
    }

    /// The shift that brings every count below 256.
    #[inline]
    fn shift(&self) -> u32 {
        (u32::BITS - self.max.leading_zeros()).saturating_sub(8)
    }

    /// The count of `house` shifted by `shift` (below 256).
    #[inline]
    fn rank(&self, house: u8, shift: u32) -> i32 {
        (self.cuts[house as usize & (kalah_core::MAX_HOUSES - 1)] >> shift) as i32
    }
}

/// A move of a node, with what is known of its value before searching it.
#[derive(Clone, Copy)]
struct Child {
    /// The board after the move, seen from the player who moves next.
    board: Board,
    /// The child's table key if it is cached, or the slot of its value
    /// ([`Tablebase::slot`]) if the database covers it; meaningful only
    /// when `keyed` ([`Child::key`]). A word and a flag rather than an
    /// `Option<u64>`: the flag fits in padding, the `Option`'s tag took
    /// a word of its own (40 bytes a move instead of 48, and a node
    /// writes six).
    key: u64,
    /// The store difference the move makes for the mover.
    gain: i32,
    /// Seeds on the board after the move.
    seeds: i32,
    house: u8,
    /// The move of the child's table entry ([`Searcher::hint`]; `u8::MAX`: none).
    hint: u8,
    /// Who moves next (never [`Next::Over`]: such moves are not children).
    next: Next,
    /// Whether `key` holds a key or a slot.
    keyed: bool,
}

impl Child {
    /// The child's table key, or for a covered board the slot of its value.
    #[inline]
    fn key(&self) -> Option<u64> {
        self.keyed.then_some(self.key)
    }

    /// The mover's value of the move, given the value of the child's board
    /// for the player who moves next (as [`kalah_core::Outcome::value_with`]).
    #[inline]
    fn value_with(&self, next_value: i32) -> i32 {
        match self.next {
            Next::Mover => self.gain + next_value,
            _ => self.gain - next_value,
        }
    }
}

/// What the searchers share.
pub(crate) struct Shared<'a, T: Tablebase> {
    pub(crate) engine: &'a Engine,
    pub(crate) tt: &'a TranspositionTable,
    /// The keys of `tt`.
    pub(crate) keys: KeyPacker,
    pub(crate) table: &'a T,
    pub(crate) stop: &'a AtomicBool,
    /// When the search is to stop, if it has a deadline, and the caller's
    /// flag that stops it ([`crate::Solver::cancel_with`],
    /// [`crate::Solver::analyze_unless`]): each searcher looks at both in
    /// [`Searcher::stopped`] and raises `stop` for the others.
    pub(crate) deadline: Option<std::time::Instant>,
    pub(crate) cancel: Option<&'a AtomicBool>,
    pub(crate) nodes: &'a AtomicU64,
    pub(crate) threads: usize,
    /// Bounds on the root value proven by the exact passes of MTD(f).
    pub(crate) proven: &'a Proven,
    /// Bounds kept across runs: recorded here, and loaded into `tt` when
    /// the journal was given ([`crate::Solver::journal_with`]).
    pub(crate) journal: Option<&'a Journal>,
    /// Where the search is, for progress displays.
    pub(crate) live: &'a Live,
    /// A first guess for MTD(f) at one root board, given by the caller
    /// ([`crate::Solver::first_guess`]): iterative deepening is skipped
    /// there, and the guess wins over the test a journal recorded.
    pub(crate) guess: Option<(Board, i32)>,
    /// A line searched first ([`crate::Solver::first_line`]): the board at
    /// each ply from the root and its move.
    pub(crate) line: &'a [(Board, u8)],
}

/// One thread's search state.
pub(crate) struct Searcher<'a, T: Tablebase> {
    shared: &'a Shared<'a, T>,
    engine: &'a Engine,
    packer: KeyPacker,
    /// Boards with at most this many seeds are answered by the database (-1: none).
    table_max: i32,
    /// Boards with fewer seeds are searched without the table.
    tt_min: i32,
    /// Subtrees of at least this many nodes are recorded in the journal
    /// (`u64::MAX`: there is none).
    journal_min: u64,
    /// Plies of the line searched first (`Shared::line`).
    line_len: u32,
    /// Boards with fewer seeds are never split ([`Searcher::split`]).
    split_min: i32,
    parity: bool,
    bounds: Bounds,
    pub(crate) stats: Stats,
    /// Plies from the root at which a depth-limited search stops ([`u32::MAX`]: exact search).
    horizon: u32,
    /// What the horizon's boards are taken to be worth.
    leaves: Horizon,
    /// Whether the player to move at the current node is the root's.
    root_mover: bool,
    /// Leaves a depth-limited search guessed; results resting on them are not exact.
    guessed_leaves: u64,
    flushed: u64,
    pub(crate) aborted: bool,
    /// The split this search is a fork of, if any: set when a sibling fork
    /// refuted the node split, which makes this search pointless.
    cancel: Option<&'a Cancel<'a>>,
    history: History,
    /// The moves of this searcher's line at the first [`LINE_SHOWN`]
    /// plies ([`extend_line`]).
    line: u32,
}

/// The flag of a node whose moves are searched in parallel (see
/// [`Searcher::split`]), and that of the split above it.
struct Cancel<'a> {
    flag: AtomicBool,
    parent: Option<&'a Cancel<'a>>,
}

impl Cancel<'_> {
    /// Whether this split or one above it was refuted.
    fn is_set(&self) -> bool {
        let mut at = Some(self);
        while let Some(c) = at {
            if c.flag.load(Relaxed) {
                return true;
            }
            at = c.parent;
        }
        false
    }
}

/// What a fork of a split found ([`Searcher::split`]).
/// The window a node is searched in, `alpha < beta`, and its distance
/// from the root.
#[derive(Clone, Copy)]
struct Window {
    alpha: i32,
    beta: i32,
    ply: u32,
}

impl Window {
    /// The window of a move's child: shifted by the move's gain, and
    /// negated when the opponent moves next.
    #[inline]
    fn child(self, gain: i32, same_mover: bool) -> Window {
        let (alpha, beta) = if same_mover { (self.alpha - gain, self.beta - gain) } else { (gain - self.beta, gain - self.alpha) };
        Window { alpha, beta, ply: self.ply + 1 }
    }
}

/// What [`Searcher::finish`] needs of a node: its board's seeds and table
/// key, its window, and the counters when it began.
struct Node {
    board: Board,
    seeds: i32,
    key: Option<u64>,
    window: Window,
    start_nodes: u64,
    start_guesses: u64,
}

/// What is known of a move without searching it ([`Searcher::known`]).
enum Known {
    /// Its exact value, for the mover.
    Value(i32),
    /// Bounds on the value of the board it leads to, for the player who
    /// moves there, and whether a table guess narrowed them.
    Bounds { lo: i32, hi: i32, guessed: bool },
}

/// The best value a node has proven so far, and its move.
struct Best {
    value: i32,
    house: u8,
}

struct Forked {
    value: Option<i32>,
    house: u8,
    stats: Stats,
    guessed_leaves: u64,
    history: History,
}

impl<'a, T: Tablebase> Searcher<'a, T> {
    pub(crate) fn new(shared: &'a Shared<'a, T>) -> Self {
        let rules = shared.engine.rules();
        let tt_min = match shared.table.max_seeds() {
            Some(m) => TT_MIN_SEEDS.max(m as i32 + 1 + TT_ABOVE_TABLE),
            None => TT_MIN_SEEDS,
        };
        Searcher {
            shared,
            engine: shared.engine,
            packer: shared.keys,
            table_max: shared.table.max_seeds().map_or(-1, |m| m as i32),
            tt_min,
            journal_min: shared.journal.map_or(u64::MAX, Journal::min_nodes),
            line_len: shared.line.len() as u32,
            split_min: tt_min + SPLIT_ABOVE_TT,
            parity: rules.values_have_seed_parity(),
            bounds: Bounds::new(shared.engine.houses(), rules),
            stats: Stats::default(),
            horizon: u32::MAX,
            leaves: Horizon::Guess,
            root_mover: true,
            guessed_leaves: 0,
            flushed: 0,
            aborted: false,
            cancel: None,
            history: History::new(),
            line: 0,
        }
    }

    /// This searcher begins the move of `house` (0-based) at `ply` (below
    /// [`LINE_SHOWN`]): its line, published whole for a progress display.
    #[inline]
    fn under_way(&mut self, ply: u32, house: u8) {
        self.line = extend_line(self.line, ply, house);
        self.shared.live.line.store(self.line, Relaxed);
    }

    /// A searcher for one move of a split node: this one's state, counting
    /// from zero, stopped when `cancel` (or a split above) is set.
    fn fork<'b>(&self, cancel: &'b Cancel<'b>) -> Searcher<'b, T>
    where
        'a: 'b,
    {
        Searcher { stats: Stats::default(), guessed_leaves: 0, flushed: 0, aborted: false, cancel: Some(cancel), ..*self }
    }

    /// Whether the search is to stop: the stop flag raised, the deadline
    /// passed or the caller's flag raised (then the stop flag is raised for
    /// the other threads), or this split or one above it refuted. Adds this
    /// searcher's nodes to the shared count first.
    fn stopped(&mut self) -> bool {
        self.flush_nodes();
        if self.shared.stop.load(Relaxed) || self.cancel.is_some_and(Cancel::is_set) {
            return true;
        }
        let late = self.shared.deadline.is_some_and(|d| std::time::Instant::now() >= d);
        if late || self.shared.cancel.is_some_and(|c| c.load(Relaxed)) {
            self.shared.stop.store(true, Relaxed);
            return true;
        }
        false
    }

    /// Adds this thread's uncounted nodes to the shared counter.
    pub(crate) fn flush_nodes(&mut self) {
        self.shared.nodes.fetch_add(self.stats.nodes - self.flushed, Relaxed);
        self.flushed = self.stats.nodes;
    }

    /// Rounds a lower bound up and an upper bound down to the parity of `seeds`.
    #[inline]
    fn round(&self, lower: i32, upper: i32, seeds: i32) -> (i32, i32) {
        if !self.parity {
            return (lower, upper);
        }
        let fix = |v: i32, up: bool| {
            if v == i32::MIN || v == i32::MAX || (v - seeds) % 2 == 0 {
                v
            } else if up {
                v + 1
            } else {
                v - 1
            }
        };
        (fix(lower, true), fix(upper, false))
    }

    /// The value of a board that is not over and not covered by the
    /// database, searched in the window `(alpha, beta)`, `alpha < beta`.
    ///
    /// Fail-soft contract: with `v` the result and `V` the true value,
    /// `v <= alpha` means `V <= v`; `v >= beta` means `V >= v`; otherwise
    /// `v == V`. `seeds` is `board.total()`. If the search was stopped
    /// (`self.aborted`), the result means nothing and nothing was stored.
    pub(crate) fn search(&mut self, board: Board, seeds: i32, alpha: i32, beta: i32, ply: u32) -> i32 {
        // Futility: nobody can gain more than the seeds left on the board.
        let ceiling = self.bounds.ceiling(board, seeds);
        if ceiling <= alpha {
            self.stats.nodes += 1;
            return ceiling;
        }
        let floor = self.bounds.floor_toward(board, seeds, beta);
        if floor >= beta {
            self.stats.nodes += 1;
            return floor;
        }
        let key = if seeds >= self.tt_min { self.packer.pack(board) } else { None };
        self.search_keyed(board, seeds, key, Window { alpha, beta, ply }, None)
    }

    /// [`Searcher::search`] of a board whose futility bounds (step 1 of a
    /// node) are known not to decide the window, and whose table key is
    /// `key`, which a board with at least `tt_min` seeds must have if it
    /// fits a key. A node's moves come here: the node packed their keys to
    /// probe the table, and bounded their values by the same futility
    /// bounds before it searched them (`Searcher::expand`), against the
    /// same window (every search is a null-window test).
    ///
    /// `probed` is the move of the board's table entry (`u8::MAX`: none)
    /// when the node probed the entry for its bounds and this search has
    /// stored nothing since (the entry did not decide the window, or the
    /// move would not be searched): then the table is not probed again.
    /// Another thread may have stored the entry in between; that is missed
    /// as it would be by a probe a moment earlier.
    #[inline]
    fn search_keyed(&mut self, board: Board, seeds: i32, key: Option<u64>, window: Window, probed: Option<u8>) -> i32 {
        let Window { alpha, beta, ply } = window;
        debug_assert!(alpha < beta);
        debug_assert_eq!(key, if seeds >= self.tt_min { self.packer.pack(board) } else { None });
        debug_assert_eq!(board.total() as i32, seeds);
        debug_assert!(self.bounds.ceiling(board, seeds) > alpha);
        debug_assert!(self.bounds.floor_toward(board, seeds, beta) < beta);
        self.stats.nodes += 1;
        if self.stats.nodes - self.flushed >= STOP_CHECK_NODES && self.stopped() {
            self.aborted = true;
            return 0;
        }
        let mut hint = probed.unwrap_or(u8::MAX);
        // The root's own entry decides nothing when a journal was loaded:
        // it may be the journal's, read from a file (`Searcher::root_bounds`).
        let trusted = ply > 0 || self.shared.journal.is_none();
        if let Some(entry) = key.filter(|_| probed.is_none()).and_then(|k| self.shared.tt.probe(k)) {
            // Exact bounds always decide; a guess only a depth-limited search
            // that looks no deeper than the search that made it.
            let (lower, upper) = match entry.guess_depth {
                None => (entry.lower, entry.upper),
                Some(depth) if self.horizon != u32::MAX && depth >= self.horizon - ply.min(self.horizon) => {
                    self.guess_bounds(entry.lower, entry.upper, self.root_mover)
                }
                Some(_) => (i32::MIN, i32::MAX),
            };
            if trusted && (lower >= beta || upper <= alpha) {
                if !entry.is_exact() {
                    self.guessed_leaves += 1;
                }
                self.stats.table_cuts += 1;
                return if lower >= beta { lower } else { upper };
            }
            hint = self.hint(&entry);
        }
        if ply < self.line_len {
            // On the line to search first: its move before the table's.
            if let Some(&(_, house)) = self.shared.line.get(ply as usize).filter(|(b, _)| *b == board) {
                hint = house;
            }
        }
        if ply >= self.horizon {
            // A depth-limited search stops here.
            self.guessed_leaves += 1;
            let floor = self.bounds.floor_toward(board, seeds, beta);
            let ceiling = self.bounds.ceiling(board, seeds);
            return match self.leaves {
                Horizon::Guess => 0.clamp(floor, ceiling),
                _ if self.leaves_worst_for(self.root_mover) => floor,
                _ => ceiling,
            };
        }
        self.expand(board, seeds, key, window, hint)
    }

    /// The move a table entry suggests to try first (`u8::MAX`: none). The
    /// move of a guess orders only depth-limited searches: an exact search
    /// orders better by itself than by what a shallow search guessed
    /// (module docs, "Iterative deepening").
    #[inline]
    fn hint(&self, entry: &crate::tt::Bounds) -> u8 {
        if entry.guess_depth.is_none() || self.horizon != u32::MAX {
            entry.best
        } else {
            u8::MAX
        }
    }

    /// Whether a node with `seeds` seeds may search its moves in parallel
    /// ([`Searcher::split`]): with several threads, a board large enough,
    /// and not in iterative deepening (module docs).
    #[inline]
    fn may_split(&self, seeds: i32) -> bool {
        self.shared.threads > 1 && seeds >= self.split_min && (self.horizon == u32::MAX || self.leaves != Horizon::Guess)
    }

    /// Whether the current node is expected to be refuted by one move (a
    /// cut node), rather than to have every move fail (an all node). A
    /// root is taken as an all node; the opponent's replies to an all
    /// node's moves are cut nodes and the other way round, and a move that
    /// plays again keeps the type (its mover is the same): so the cut nodes
    /// are those whose mover is not the root's.
    #[inline]
    fn expects_cut(&self) -> bool {
        !self.root_mover
    }

    /// Whether the horizon's boards are taken at the worst for the mover of
    /// a node whose mover is (`root_mover`) or is not the root's (when
    /// searching for proofs: such a node proves lower bounds, the others
    /// upper bounds).
    #[inline]
    fn leaves_worst_for(&self, root_mover: bool) -> bool {
        root_mover == (self.leaves == Horizon::WorstForRoot)
    }

    /// The bounds of a guess entry a node whose mover is (`root_mover`) or
    /// is not the root's may use. When searching for proofs
    /// ([`Searcher::prove`]), only in the direction the node proves nothing
    /// in (see [`Searcher::finish`]): a result in the direction it does
    /// prove in then never rests on a guess, only on proven bounds.
    #[inline]
    fn guess_bounds(&self, lower: i32, upper: i32, root_mover: bool) -> (i32, i32) {
        match self.leaves {
            Horizon::Guess => (lower, upper),
            _ if self.leaves_worst_for(root_mover) => (i32::MIN, upper),
            _ => (lower, i32::MAX),
        }
    }

    /// Searches one move; `None` if stopped. `fresh`: this search stored
    /// nothing in the table since it probed the move's entry for its bounds.
    #[inline]
    fn search_move(&mut self, child: &Child, window: Window, fresh: bool) -> Option<i32> {
        let gain = child.gain;
        let probed = fresh.then_some(child.hint);
        let v = match child.next {
            Next::Mover => gain + self.search_keyed(child.board, child.seeds, child.key(), window.child(gain, true), probed),
            _ => {
                self.root_mover = !self.root_mover;
                let v = gain - self.search_keyed(child.board, child.seeds, child.key(), window.child(gain, false), probed);
                self.root_mover = !self.root_mover;
                v
            }
        };
        (!self.aborted).then_some(v)
    }

    /// Steps 3 to 5 of a node (see the module docs).
    fn expand(&mut self, board: Board, seeds: i32, key: Option<u64>, window: Window, hint: u8) -> i32 {
        let Window { alpha, beta, ply } = window;
        let node = Node { board, seeds, key, window, start_nodes: self.stats.nodes, start_guesses: self.guessed_leaves };
        // The best value proven so far (exact moves, bounds of pruned moves, searched moves).
        let mut best = Best { value: i32::MIN, house: 0 };

        // Not an array of placeholders: writing them cost 1.6% of a search's instructions.
        let mut children = ArrayVec::<Child, { kalah_core::MAX_HOUSES }>::new();
        let mut houses = occupied_houses(board.mover_word());
        while houses != 0 {
            let house = (houses.trailing_zeros() / 8) as usize;
            houses &= houses - 1;
            let outcome = self.engine.play(board, house);
            let left = seeds - outcome.mover_gain as i32 - outcome.opponent_gain as i32;
            if outcome.next == Next::Over {
                let v = outcome.gain();
                if v > best.value {
                    best = Best { value: v, house: house as u8 };
                    if v >= beta {
                        self.stats.exact_cuts += 1;
                        return self.finish(&node, best);
                    }
                }
                continue;
            }
            let child_key = if left <= self.table_max {
                Some(self.shared.table.slot(outcome.board))
            } else if left >= self.tt_min {
                self.packer.pack(outcome.board)
            } else {
                None
            };
            children.push(Child {
                board: outcome.board,
                key: child_key.unwrap_or(0),
                keyed: child_key.is_some(),
                gain: outcome.gain(),
                seeds: left,
                house: house as u8,
                hint: u8::MAX,
                next: outcome.next,
            });
        }

        self.prefetch_children(&children);

        // Bounds on each move from its child's range and table entry; the
        // moves still to search are `ranked[..kept]`, each its score
        // shifted left by 8 bits above its index in `children`: the
        // search order is the order of these words, read without going
        // through `children`.
        let mut ranked = [0i64; kalah_core::MAX_HOUSES];
        let mut kept = 0;
        let history_shift = self.history.shift();
        for (i, child) in children.iter_mut().enumerate() {
            let gain = child.gain;
            let (mut lo, hi, guessed) = match self.known(child, ply) {
                Known::Value(v) => {
                    if v > best.value {
                        best = Best { value: v, house: child.house };
                        if v >= beta {
                            self.stats.exact_cuts += 1;
                            return self.finish(&node, best);
                        }
                    }
                    continue;
                }
                Known::Bounds { lo, hi, guessed } => (lo, hi, guessed),
            };
            // The bound from a chain into the store, where it may decide the move.
            let need = if child.next == Next::Mover { beta - gain } else { gain - alpha };
            lo = self.bounds.raise_floor(child.board, child.seeds, lo, need);
            let (move_lo, move_hi) = match child.next {
                Next::Mover => (gain + lo, gain + hi),
                _ => (gain - hi, gain - lo),
            };
            if guessed && (move_lo >= beta || move_hi <= alpha) {
                self.guessed_leaves += 1;
            }
            if move_lo >= beta {
                // Enhanced transposition cut-off: this move alone refutes.
                self.stats.etc_cuts += 1;
                return self.finish(&node, Best { value: move_lo, house: child.house });
            }
            if move_hi <= alpha {
                // It cannot raise the value above alpha: its upper bound is all we need.
                if move_hi > best.value {
                    best = Best { value: move_hi, house: child.house };
                }
                continue;
            }
            let score = self.move_score(child, hint, move_lo, move_hi, history_shift);
            ranked[kept] = score << 8 | i as i64;
            kept += 1;
        }

        self.search_in_order(&node, &children, ranked, kept, best)
    }

    /// Starts fetching what the loop over a node's moves reads: the
    /// database entry of a covered board, the table bucket of another. All
    /// at once, so that the processor's page walks (the tables are larger
    /// than its TLB reaches) and cache misses overlap.
    #[inline(always)]
    fn prefetch_children(&self, children: &[Child]) {
        for child in children {
            match child.key() {
                Some(slot) if child.seeds <= self.table_max => self.shared.table.prefetch_slot(slot),
                Some(key) => self.shared.tt.prefetch(key),
                None => {}
            }
        }
    }

    /// What is known of a move's value without searching it, for the
    /// mover: exact where the database holds its board's value; else
    /// bounds on its board's value, for the player who moves there, from
    /// the seeds (futility), the database's bounds (a window encoding, for
    /// a value outside its window: the board is then searched below like
    /// any other, without the table, whose key was the database's slot)
    /// and the board's table entry, and whether a guess narrowed them.
    #[inline(always)]
    fn known(&mut self, child: &mut Child, ply: u32) -> Known {
        let (floor, ceiling) = if child.seeds <= self.table_max {
            let stored = self.shared.table.stored_at(child.board, child.key);
            if let Some(v) = stored.value() {
                return Known::Value(child.value_with(v));
            }
            child.keyed = false;
            self.stats.db_bounds += 1;
            (stored.lower, stored.upper)
        } else {
            (i32::MIN, i32::MAX)
        };
        let mut lo = floor.max(self.bounds.floor(child.board, child.seeds));
        let mut hi = ceiling.min(self.bounds.ceiling(child.board, child.seeds));
        let mut guessed = false;
        if let Some(e) = child.key().and_then(|k| self.shared.tt.probe(k)) {
            child.hint = self.hint(&e);
            // A guess counts only in a depth-limited search that looks no
            // deeper below the child than the search that made it.
            let (lower, upper) = match e.guess_depth {
                None => (e.lower, e.upper),
                Some(depth) if self.horizon != u32::MAX && depth + ply + 1 >= self.horizon => {
                    guessed = true;
                    self.guess_bounds(e.lower, e.upper, self.root_mover == (child.next == Next::Mover))
                }
                Some(_) => (i32::MIN, i32::MAX),
            };
            lo = lo.max(lower);
            hi = hi.min(upper);
        }
        Known::Bounds { lo, hi, guessed }
    }

    /// The search order's score of a move to search (highest first; the
    /// table's move: bit 50 alone), from its bounds `move_lo..move_hi`.
    /// Wide enough that no field needs clamping: a move's bounds lie
    /// within the seeds on the board, and history ranks below 256.
    ///
    ///   bits  49..36       35..24         23..4          3..0
    ///        seeds won   house history  middle of the   house
    ///        (16 for a   (moves that    move's bounds   (nearer the store
    ///        move that   end the turn)  + 2^19          higher for a move
    ///        plays again)                               that plays again,
    ///                                                   farther for others)
    #[inline(always)]
    fn move_score(&self, child: &Child, hint: u8, move_lo: i32, move_hi: i32, history_shift: u32) -> i64 {
        if child.house == hint {
            1 << 50
        } else if child.next == Next::Mover {
            (16 << 36) + child.house as i64
        } else {
            let middle = (move_lo + move_hi) / 2 + (1 << 19);
            ((child.gain as i64) << 36)
                + ((self.history.rank(child.house, history_shift) as i64) << 24)
                + ((middle as i64) << 4)
                + (kalah_core::MAX_HOUSES - 1 - child.house as usize) as i64
        }
    }

    /// Step 5 of a node: the moves still to search (`ranked[..kept]`, each
    /// its score above its index in `children`) in the order of their
    /// scores, until one cuts; once the first moves did not, the rest in
    /// parallel (young brothers wait). `best`: the best proven before.
    #[inline(always)]
    fn search_in_order(&mut self, node: &Node, children: &[Child], mut ranked: [i64; kalah_core::MAX_HOUSES], kept: usize, mut best: Best) -> i32 {
        let (seeds, window) = (node.seeds, node.window);
        let ply = window.ply;
        // Highest score first, picked one at a time: most nodes are cut by
        // their first move, so sorting the rest would be wasted.
        let mut searched = 0u32;
        let mut left = kept;
        while left > 0 {
            let mut pick = 0;
            for j in 1..left {
                if ranked[j] > ranked[pick] {
                    pick = j;
                }
            }
            let picked = ranked[pick];
            ranked.copy_within(pick + 1..left, pick);
            left -= 1;
            let child = &children[(picked & 0xff) as usize];
            let split_after = if self.expects_cut() { SPLIT_CUT_AFTER } else { 1 };
            if searched >= split_after && self.may_split(seeds) {
                // The first moves did not refute the node, so most likely
                // no move does and every one must be searched: the rest in
                // parallel (young brothers wait).
                ranked[left] = picked;
                ranked[..=left].sort_unstable_by(|a, b| b.cmp(a));
                let mut rest = [0u8; kalah_core::MAX_HOUSES];
                for (r, &word) in rest.iter_mut().zip(&ranked[..=left]) {
                    *r = (word & 0xff) as u8;
                }
                return match self.split(children, &rest[..=left], window, &mut best) {
                    Some(cut) => cut.map_or(0, |v| self.finish(node, Best { value: v, house: best.house })),
                    None => {
                        self.stats.all_nodes += 1;
                        self.finish(node, best)
                    }
                };
            }
            if ply < LINE_SHOWN as u32 {
                self.under_way(ply, child.house);
            }
            if let Some(cut) = self.search_child(child, window, &mut best, searched) {
                return cut.map_or(0, |v| self.finish(node, Best { value: v, house: best.house }));
            }
            searched += 1;
        }
        self.stats.all_nodes += 1;
        self.finish(node, best)
    }

    /// Searches one move of a node and raises `best` by its result:
    /// `Some(Some(v))` if it refutes the node (`v >= beta`), `Some(None)`
    /// if the search was stopped, `None` to go on. `searched` moves came
    /// before it.
    #[inline]
    fn search_child(&mut self, child: &Child, window: Window, best: &mut Best, searched: u32) -> Option<Option<i32>> {
        let Some(v) = self.search_move(child, window, searched == 0) else {
            return Some(None);
        };
        if v > best.value {
            *best = Best { value: v, house: child.house };
            if v >= window.beta {
                if child.next != Next::Mover {
                    self.history.record(child.house);
                }
                if searched == 0 {
                    self.stats.first_move_cuts += 1;
                } else {
                    self.stats.later_cuts += 1;
                }
                return Some(Some(v));
            }
        }
        None
    }

    /// Searches the moves `rest` of a node in parallel, each by a fork of
    /// this searcher, and raises `best` by their results; returns as
    /// [`Searcher::search_child`]. The first fork to refute the node
    /// stops the others.
    fn split(&mut self, children: &[Child], rest: &[u8], window: Window, best: &mut Best) -> Option<Option<i32>> {
        let beta = window.beta;
        use rayon::prelude::*;
        let cancel = Cancel { flag: AtomicBool::new(false), parent: self.cancel };
        let this = &*self;
        let forked: Vec<Forked> = rest
            .par_iter()
            .with_max_len(1)
            .map(|&index| {
                let child = &children[index as usize];
                let mut fork = this.fork(&cancel);
                if window.ply < LINE_SHOWN as u32 {
                    fork.under_way(window.ply, child.house);
                }
                let value = if cancel.is_set() { None } else { fork.search_move(child, window, false) };
                if value.is_some_and(|v| v >= beta) {
                    cancel.flag.store(true, Relaxed);
                    if child.next != Next::Mover {
                        fork.history.record(child.house);
                    }
                }
                fork.flush_nodes();
                Forked { value, house: child.house, stats: fork.stats, guessed_leaves: fork.guessed_leaves, history: fork.history }
            })
            .collect();
        self.stats.splits += 1;
        self.history.merge(forked.iter().map(|f| f.history));
        let mut stopped = false;
        for f in &forked {
            self.stats.add(&f.stats);
            self.flushed += f.stats.nodes;
            self.guessed_leaves += f.guessed_leaves;
            match f.value {
                Some(v) if v > best.value => *best = Best { value: v, house: f.house },
                Some(_) => {}
                None => stopped = true,
            }
        }
        if best.value >= beta {
            self.stats.later_cuts += 1;
            return Some(Some(best.value));
        }
        if stopped || self.stopped() {
            self.aborted = true;
            return Some(None);
        }
        None
    }

    /// Records the result of a node in the table and returns it. A result
    /// that rests on a guess of a depth-limited search (`guessed_leaves`
    /// grew since the node began) is stored as a guess of that depth, but
    /// for the side a search for proofs proves (module docs, "Proven bounds").
    #[inline]
    fn finish(&mut self, node: &Node, best: Best) -> i32 {
        let Node { key, start_guesses, window: Window { alpha, beta, ply }, .. } = *node;
        let Best { value: best, house } = best;
        let (lower, upper) = if best >= beta {
            (best, i32::MAX)
        } else if best <= alpha {
            (i32::MIN, best)
        } else {
            (best, best)
        };
        if self.guessed_leaves != start_guesses {
            // A guess of its depth; but leaves taken at the worst for this
            // node's mover make the value found a lower bound on the true
            // one, and at the best an upper bound: that side is proven.
            const NONE: (i32, i32) = (i32::MIN, i32::MAX);
            let (proven, guessed) = match self.leaves {
                Horizon::Guess => (NONE, (lower, upper)),
                _ if self.leaves_worst_for(self.root_mover) => ((lower, i32::MAX), (i32::MIN, upper)),
                _ => ((i32::MIN, upper), (lower, i32::MAX)),
            };
            if proven != NONE {
                self.store_proven(node, proven, house);
            } else if let Some(k) = key {
                self.shared.tt.store_guess(k, guessed.0, guessed.1, house, self.horizon - ply.min(self.horizon));
            }
            return best;
        }
        let (lower, upper) = self.store_proven(node, (lower, upper), house);
        if best >= beta {
            lower
        } else {
            upper
        }
    }

    /// Records proven `bounds` (rounded to the parity of its seeds) for
    /// `node`, found in the nodes searched since it began: in the table if
    /// the board is cached, in the journal if there is one and the subtree
    /// was large; returns them rounded.
    #[inline]
    fn store_proven(&self, node: &Node, bounds: (i32, i32), house: u8) -> (i32, i32) {
        let (lower, upper) = self.round(bounds.0, bounds.1, node.seeds);
        let nodes = self.stats.nodes - node.start_nodes + 1;
        if let Some(k) = node.key {
            self.shared.tt.store(k, lower, upper, house, nodes);
        }
        if nodes >= self.journal_min {
            if let Some(journal) = self.shared.journal {
                journal.record(node.board, lower, upper, house);
            }
        }
        (lower, upper)
    }

    /// The value of a root board (of `seeds` seeds) where the database
    /// holds it exactly; `None` where it does not cover the board, or holds
    /// only bounds for it (a window encoding): the board is searched then,
    /// its moves probed as any node's.
    #[inline]
    fn exact_in_table(&self, board: Board, seeds: i32) -> Option<i32> {
        if seeds > self.table_max {
            return None;
        }
        self.shared.table.exact_value(board)
    }

    /// The exact value of a board by MTD(f): null-window tests around a
    /// guess until the lower and upper bounds meet. `None` if stopped.
    ///
    /// With `bracket`, the tests start far from the guess, on both sides
    /// ([`BRACKET`]), and close in: a test far from the value is cheap
    /// (its proof has many cut-offs), so a search stopped early has proven
    /// bounds near the value rather than only the trivial ones. Costs a
    /// few passes more when it runs to the end.
    pub(crate) fn mtdf(&mut self, board: Board, guess: i32, bracket: bool) -> Option<i32> {
        if let Some(v) = self.engine.terminal_value(board) {
            return Some(v);
        }
        let seeds = board.total() as i32;
        if let Some(v) = self.exact_in_table(board, seeds) {
            return Some(v);
        }
        // Iterative deepening gives the exact search its first guess, and
        // orders its moves. A guess the caller gave goes first, then the
        // test a journal recorded as running (its bounds are of that test's
        // windows), then a value the journal holds (tested again, not taken
        // as proven); the deepening runs before the first two all the same,
        // for the order it leaves (module docs, "Iterative deepening"),
        // but not before a value kept, which the journal's bounds on the
        // moves prove again at once (`Searcher::record_children`).
        let given = self.shared.guess.filter(|&(b, _)| b == board).map(|(_, g)| g);
        let journal = self.shared.journal;
        let chosen = given.or_else(|| journal.and_then(|j| j.test(board)));
        let kept = journal.and_then(|j| j.bounds(board)).filter(|(l, u)| l == u).map(|(l, _)| l);
        let guess = match (chosen, kept) {
            (None, Some(value)) => value,
            _ => {
                let deepened = self.deepen(board, seeds, guess)?;
                chosen.unwrap_or(deepened)
            }
        };
        let (mut lower, mut upper) = self.root_bounds(board, seeds);
        let step = if self.parity { 2 } else { 1 };
        let mut guess = guess.clamp(lower, upper);
        let brackets = if bracket { BRACKET } else { &[] };
        for &width in brackets {
            for beta in [guess - width, guess + width + 1] {
                if lower < beta && beta <= upper {
                    self.exact_test(board, seeds, beta, &mut lower, &mut upper)?;
                }
            }
        }
        guess = guess.clamp(lower, upper);
        let mut tests = 0;
        while lower < upper {
            // Test "value >= beta" with beta just above what is known; the
            // second test, after a first that held, `GALLOP` steps above.
            let beta = if guess > lower {
                guess
            } else if tests == 1 {
                (lower + GALLOP * step).min(upper)
            } else {
                lower + step
            };
            guess = self.exact_test(board, seeds, beta, &mut lower, &mut upper)?;
            tests += 1;
        }
        self.record_children(board);
        Some(lower)
    }

    /// Records in the journal, if there is one, the bounds the table holds
    /// on each move of the root `board` after its tests: what proving the
    /// root's bounds again takes (`Searcher::root_bounds`), so that a
    /// search run again (or resumed after its last test) does it in one
    /// step, whatever the size of the moves' subtrees.
    fn record_children(&self, board: Board) {
        let Some(journal) = self.shared.journal else {
            return;
        };
        let h = self.engine.houses();
        for house in (0..h).filter(|&i| board.get(i) > 0) {
            let o = self.engine.play(board, house);
            if o.next == Next::Over || (o.board.total() as i32) <= self.table_max {
                continue;
            }
            if let Some(e) = self.packer.pack(o.board).and_then(|k| self.shared.tt.probe_exact(k)) {
                let best = if (e.best as usize) < h { e.best } else { u8::MAX };
                journal.record(o.board, e.lower, e.upper, best);
            }
        }
    }

    /// Iterative deepening of a root: depth-limited MTD(f) searches to
    /// depths `ID_STEP`, `2 ID_STEP`, .. `ID_MAX_DEPTH` from `guess`, and
    /// the last one's value. It gives the exact search its first guess and
    /// a table whose exact entries and history order its moves: skipping
    /// it cost Kalah(6,4) over a 16-seed database, one thread, 112.9 M
    /// nodes against 74.6 M when the first test was at the value either
    /// way, and a single test "value >= 8" 43.8 M against 22.6 M. `None`
    /// if stopped.
    fn deepen(&mut self, board: Board, seeds: i32, mut guess: i32) -> Option<i32> {
        let mut depth = ID_STEP;
        while depth <= ID_MAX_DEPTH && seeds > self.table_max + ID_STEP as i32 {
            guess = self.mtdf_limited(board, seeds, guess, depth)?;
            depth += ID_STEP;
        }
        self.horizon = u32::MAX;
        Some(guess)
    }

    /// The bounds on a root board's value known before its tests: those
    /// its seeds allow. What a journal holds of the root itself is not
    /// among them: a journal is read from a file, and the root's bounds are
    /// the answer, so they are proven again, by tests whose subtrees the
    /// journal answers (see [`Searcher::search_keyed`]: at the root, a
    /// journal's table entry orders the moves but decides nothing). A
    /// resumed search pays a few root tests for that, no more.
    fn root_bounds(&self, board: Board, seeds: i32) -> (i32, i32) {
        (self.bounds.chain_floor(board, seeds), self.bounds.ceiling(board, seeds))
    }

    /// One null-window test "value >= beta" of `board` alone, as a caller
    /// asks it: whether it holds, and the bound it proves (a lower bound
    /// of at least `beta` if it holds, else an upper bound below `beta`),
    /// fail-soft, as the root's values (stores not counted). A test that
    /// bounds already known decide (a terminal board, the database, the
    /// seeds, a journal) is not searched. `None` if stopped.
    pub(crate) fn single_test(&mut self, board: Board, beta: i32) -> Option<(bool, i32)> {
        if let Some(v) = self.engine.terminal_value(board) {
            return Some((v >= beta, v));
        }
        let seeds = board.total() as i32;
        if let Some(v) = self.exact_in_table(board, seeds) {
            return Some((v >= beta, v));
        }
        let (mut lower, mut upper) = self.root_bounds(board, seeds);
        if beta <= lower {
            return Some((true, lower));
        }
        if beta > upper {
            return Some((false, upper));
        }
        // For the order it leaves, not its guess.
        self.deepen(board, seeds, beta)?;
        let v = self.exact_test(board, seeds, beta, &mut lower, &mut upper)?;
        self.record_children(board);
        Some((v >= beta, v))
    }

    /// One null-window test "value >= beta" of the root of an exact
    /// search: narrows `lower..=upper` by its result, records the bounds
    /// for every thread and returns the result. `None` if stopped.
    fn exact_test(&mut self, board: Board, seeds: i32, beta: i32, lower: &mut i32, upper: &mut i32) -> Option<i32> {
        self.shared.live.testing.store(beta, Relaxed);
        if let Some(journal) = self.shared.journal {
            journal.begin_test(board, beta);
        }
        let v = self.search(board, seeds, beta - 1, beta, 0);
        if self.aborted {
            return None;
        }
        if v >= beta {
            *lower = v;
        } else {
            *upper = v;
        }
        self.record_root(board, *lower, *upper);
        Some(v)
    }

    /// Records bounds proven on the root `board` by a root test: for every
    /// thread, for progress, and in the journal (each test's result, however
    /// quick it was).
    fn record_root(&self, board: Board, lower: i32, upper: i32) {
        self.shared.proven.record(lower, upper);
        self.shared.live.proven.record(lower, upper);
        if let Some(journal) = self.shared.journal {
            journal.record(board, lower, upper, u8::MAX);
        }
    }

    /// The depth-limited value of `board` (leaves `depth` plies down guessed
    /// at no further gain), by MTD(f) from `guess`. `None` if stopped.
    fn mtdf_limited(&mut self, board: Board, seeds: i32, guess: i32, depth: u32) -> Option<i32> {
        self.horizon = depth;
        let (mut lower, mut upper) = (self.bounds.chain_floor(board, seeds), self.bounds.ceiling(board, seeds));
        let mut guess = guess.clamp(lower, upper);
        // Guessed values need not be consistent between passes: a few passes do.
        for _ in 0..16 {
            if lower >= upper {
                break;
            }
            let beta = if guess <= lower { lower + 1 } else { guess };
            let v = self.search(board, seeds, beta - 1, beta, 0);
            if self.aborted {
                self.horizon = u32::MAX;
                return None;
            }
            if v >= beta {
                lower = v;
            } else {
                upper = v;
            }
            guess = v;
        }
        self.horizon = u32::MAX;
        Some(guess)
    }

    /// Proven bounds on the value of `board` under any rules, clockwise
    /// sowing included, closing in until they meet or the searches have
    /// gone `max_depth` plies deep; `None` if stopped first (the bounds
    /// proven so far are in `Shared::proven`).
    ///
    /// Depth-limited searches to depths `PROVE_STEP`, `2 PROVE_STEP`, ..:
    /// at each depth, null-window tests just above the lower bound with the
    /// horizon's boards worth the least their seeds allow for the root's
    /// mover (a success raises the lower bound), then tests at the upper
    /// bound with them worth the most (a failure lowers it). The true value
    /// lies between these two depth-limited values, whatever cycles the
    /// play has, so every bound kept here is proven (the table's guesses
    /// never make one, see `Searcher::guess_bounds`). Play that goes on for ever
    /// keeps its lines at the horizon, so the bounds meet only when best
    /// play ends or enters the database.
    pub(crate) fn prove(&mut self, board: Board, max_depth: u32) -> Option<(i32, i32)> {
        if let Some(v) = self.engine.terminal_value(board) {
            return Some((v, v));
        }
        let seeds = board.total() as i32;
        if let Some(v) = self.exact_in_table(board, seeds) {
            return Some((v, v));
        }
        // Cycles make every table entry pay: keep every board above the database.
        self.tt_min = self.table_max + 1;
        let (mut lower, mut upper) = (self.bounds.chain_floor(board, seeds), self.bounds.ceiling(board, seeds));
        let mut depth = PROVE_STEP;
        while lower < upper && depth <= max_depth {
            self.horizon = depth;
            for leaves in [Horizon::WorstForRoot, Horizon::BestForRoot] {
                self.leaves = leaves;
                // At the worst: can the lower bound rise? At the best: can the upper fall?
                let raising = leaves == Horizon::WorstForRoot;
                while lower < upper {
                    let beta = if raising { lower + 1 } else { upper };
                    let (v, exact) = self.proof_test(board, seeds, beta)?;
                    let high = v >= beta;
                    // Proven in the direction the leaves were taken against,
                    // and in both if the search reached no leaf.
                    if high && (raising || exact) {
                        lower = lower.max(v);
                    }
                    if !high && (!raising || exact) {
                        upper = upper.min(v);
                    }
                    self.record_root(board, lower, upper);
                    if high != raising {
                        break;
                    }
                }
            }
            depth = depth.saturating_add(PROVE_STEP);
        }
        self.horizon = u32::MAX;
        self.leaves = Horizon::Guess;
        Some((lower, upper))
    }

    /// One null-window test "value >= beta" of a depth-limited search: its
    /// result, and whether it touched no horizon (then it is exact either
    /// way). `None` if stopped.
    fn proof_test(&mut self, board: Board, seeds: i32, beta: i32) -> Option<(i32, bool)> {
        let start = self.guessed_leaves;
        self.shared.live.testing.store(beta, Relaxed);
        self.root_mover = true;
        let v = self.search(board, seeds, beta - 1, beta, 0);
        if self.aborted {
            self.horizon = u32::MAX;
            self.leaves = Horizon::Guess;
            return None;
        }
        Some((v, self.guessed_leaves == start))
    }

    /// Whether the value of `board` is at least `beta` (one null-window test).
    pub(crate) fn at_least(&mut self, board: Board, beta: i32) -> Option<bool> {
        if let Some(v) = self.engine.terminal_value(board) {
            return Some(v >= beta);
        }
        let seeds = board.total() as i32;
        if let Some(v) = self.exact_in_table(board, seeds) {
            return Some(v >= beta);
        }
        let v = self.search(board, seeds, beta - 1, beta, 0);
        if self.aborted {
            None
        } else {
            Some(v >= beta)
        }
    }
}

/// Exact bounds on the root's board value, gathered from every thread's MTD(f).
#[derive(Debug)]
pub(crate) struct Proven {
    lower: AtomicI32,
    upper: AtomicI32,
}

impl Default for Proven {
    fn default() -> Self {
        Proven { lower: AtomicI32::new(i32::MIN), upper: AtomicI32::new(i32::MAX) }
    }
}

impl Proven {
    /// Records `lower <= value <= upper`.
    pub(crate) fn record(&self, lower: i32, upper: i32) {
        self.lower.fetch_max(lower, Relaxed);
        self.upper.fetch_min(upper, Relaxed);
    }

    pub(crate) fn get(&self) -> (i32, i32) {
        (self.lower.load(Relaxed), self.upper.load(Relaxed))
    }
}

/// How many moves from the root a progress display is told of: the
/// line under way ([`crate::SearchProgress::line`]).
pub const LINE_SHOWN: usize = 4;

/// Where a running search is, for a progress display
/// ([`crate::Solver::progress`]): its root, the bounds proven on the
/// root's value, the null-window test it runs, and the line under way.
#[derive(Debug)]
pub(crate) struct Live {
    pub(crate) root: std::sync::Mutex<Option<Board>>,
    pub(crate) proven: Proven,
    /// The `beta` of the test "value >= beta" running (`i32::MIN`: none).
    pub(crate) testing: AtomicI32,
    /// The line a searcher began last, packed ([`extend_line`]): where
    /// threads search apart, one thread's.
    pub(crate) line: std::sync::atomic::AtomicU32,
}

impl Default for Live {
    fn default() -> Self {
        Live { root: Default::default(), proven: Proven::default(), testing: AtomicI32::new(i32::MIN), line: Default::default() }
    }
}

impl Live {
    /// A new search of `root` begins.
    pub(crate) fn begin(&self, root: Board) {
        *self.root.lock().unwrap_or_else(|e| e.into_inner()) = Some(root);
        self.proven.lower.store(i32::MIN, Relaxed);
        self.proven.upper.store(i32::MAX, Relaxed);
        self.testing.store(i32::MIN, Relaxed);
        self.line.store(0, Relaxed);
    }

    /// The line under way: 1-based houses, 0 past its end.
    pub(crate) fn line(&self) -> [u8; LINE_SHOWN] {
        self.line.load(Relaxed).to_le_bytes()
    }
}

/// `line` (a move a byte, the first ply lowest, 1-based houses, 0 past
/// its end) with the move of `house` (0-based) begun at `ply`, below
/// [`LINE_SHOWN`]: the moves above it, then this one.
#[inline]
fn extend_line(line: u32, ply: u32, house: u8) -> u32 {
    let shift = 8 * ply;
    let above = line & ((1u64 << shift) - 1) as u32;
    above | (u32::from(house) + 1) << shift
}

#[cfg(test)]
mod tests {
    use super::{banked_by_chain, houses_reaching_store, occupied_houses, reaches_store, store_distances, two_occupied, Bounds, History};
    use kalah_core::{Engine, Rules};
    use kalah_db::{Builder, Quiet};

    #[test]
    fn houses_reaching_the_store_are_those_holding_their_distance_or_more() {
        for h in 1..=8usize {
            let distances = store_distances(h);
            for house in 0..h {
                for seeds in 0..128u64 {
                    for other in [0u64, 1, 7, 127] {
                        // `other` seeds in the next house to the left, if any: no borrow may reach it.
                        let side = seeds << (8 * house) | if house > 0 { other << (8 * (house - 1)) } else { 0 };
                        let want: u64 = (0..h).filter(|&i| (side >> (8 * i)) as u8 as usize >= h - i).map(|i| 0x80 << (8 * i)).sum();
                        assert_eq!(houses_reaching_store(side, distances), want, "h={h} side {side:#x}");
                        assert_eq!(reaches_store(side, distances), want != 0);
                    }
                }
                // A house of 128 seeds or more may be missed, but nothing is claimed wrongly.
                for seeds in 128..256u64 {
                    let reaching = houses_reaching_store(seeds << (8 * house), distances);
                    assert!(reaching == 0 || reaching == 0x80 << (8 * house), "h={h} house {house} seeds {seeds}");
                }
            }
        }
    }

    /// The chain played one house at a time, from the houses as a list.
    fn chain_by_hand(mut side: Vec<u8>) -> (i32, Vec<u8>) {
        let h = side.len();
        let mut banked = 0;
        while let Some(i) = (0..h).rev().find(|&i| side[i] as usize == h - i) {
            side[i] = 0;
            for s in &mut side[i + 1..] {
                *s += 1;
            }
            banked += 1;
        }
        (banked, side)
    }

    #[test]
    fn a_chain_banks_what_playing_it_house_by_house_banks() {
        let word = |side: &[u8]| side.iter().rev().fold(0u64, |w, &s| w << 8 | s as u64);
        // Every side of up to 5 houses with at most 6 seeds a house, and
        // for 6 to 8 houses every side of at most 3 seeds a house.
        for h in 1..=8usize {
            let most = if h <= 5 { 6u64 } else { 3 };
            let distances = store_distances(h);
            for code in 0..(most + 1).pow(h as u32) {
                let side: Vec<u8> = (0..h).map(|i| (code / (most + 1).pow(i as u32) % (most + 1)) as u8).collect();
                let (banked, after) = chain_by_hand(side.clone());
                assert_eq!(banked_by_chain(word(&side), distances), (banked, word(&after)), "h={h} side {side:?}");
            }
        }
        // Houses 6, 4, 6, 5, 6 (from the left, 1-based) in turn: five seeds
        // banked, and the house 4 away from the store keeps its seed.
        assert_eq!(banked_by_chain(word(&[0, 0, 1, 3, 1, 1]), store_distances(6)), (5, word(&[0, 0, 1, 0, 0, 0])));
        // A house of 128 seeds stops the chain.
        assert_eq!(banked_by_chain(word(&[128, 0, 0, 0, 0, 1]), store_distances(6)), (0, word(&[128, 0, 0, 0, 0, 1])));
    }

    /// Every value of small databases lies within the bounds, under every
    /// rule set, and the bounds from houses reaching the store are not
    /// idle: on some boards the floor is above `-seeds`, and above
    /// `2 - seeds` (a chain), and the ceiling below `seeds`.
    #[test]
    fn every_value_lies_between_floor_and_ceiling() {
        for rules in Rules::all() {
            for (h, max) in [(3usize, 10u32), (4, 8)] {
                let engine = Engine::new(h, rules);
                let bounds = Bounds::new(h, rules);
                let mut builder = Builder::new(h, rules, max).unwrap();
                builder.build_all(&Quiet);
                let (mut raised, mut chained, mut lowered) = (0u32, 0u32, 0u32);
                for index in 0..builder.indexer().len() {
                    let board = builder.indexer().unrank(index);
                    if engine.is_over(board) {
                        continue;
                    }
                    let seeds = board.total() as i32;
                    let (floor, ceiling, value) = (bounds.chain_floor(board, seeds), bounds.ceiling(board, seeds), builder.value(board));
                    assert!(bounds.floor(board, seeds) <= floor, "{rules} board {board:?}: the cheap floor is above the chain's");
                    assert!(floor <= value && value <= ceiling, "{rules} board {board:?}: {value} not in {floor}..={ceiling}");
                    raised += u32::from(floor > -seeds);
                    chained += u32::from(floor > 2 - seeds);
                    lowered += u32::from(ceiling < seeds);
                }
                if rules.sowing == kalah_core::Sowing::Ccw {
                    assert!(raised > 0, "{rules} h={h}: no floor above -seeds");
                    assert!(chained > 0, "{rules} h={h}: no chain of moves into the store");
                    if rules.relay == kalah_core::Relay::Off && rules.leftovers == kalah_core::Leftovers::Owner {
                        assert!(lowered > 0, "{rules} h={h}: no ceiling below seeds");
                    }
                }
            }
        }
    }

    #[test]
    fn occupied_houses_marks_the_houses_holding_seeds() {
        assert_eq!(occupied_houses(0), 0);
        assert_eq!(occupied_houses(0x0000_0300_0080_0000), 0x0000_0100_0001_0000);
        assert_eq!(occupied_houses(0xff00_0000_0000_0001), 0x0100_0000_0000_0001);
        for house in 0..8 {
            for seeds in 1..=255u64 {
                assert_eq!(occupied_houses(seeds << (8 * house)), 1 << (8 * house), "{seeds} seeds in house {house}");
            }
        }
    }

    #[test]
    fn two_occupied_tells_whether_two_houses_hold_seeds() {
        assert!(!two_occupied(0));
        assert!(!two_occupied(0x01));
        assert!(!two_occupied(0xff00_0000_0000_0000));
        assert!(two_occupied(0x8040_2010_0804_0201));
        assert!(two_occupied(0x0000_0300_0080_0000));
        assert!(two_occupied(0x0100_0000_0000_0080));
        for house in 0..8 {
            for seeds in 1..=255u64 {
                assert!(!two_occupied(seeds << (8 * house)), "{seeds} seeds in house {house}");
                for other in 0..8 {
                    if other != house {
                        assert!(two_occupied(seeds << (8 * house) | 1 << (8 * other)), "houses {house} and {other}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_line_is_the_moves_above_a_ply_and_the_one_begun_there() {
        let line = [(0, 2), (1, 0), (2, 5)].into_iter().fold(0, |line, (ply, house)| super::extend_line(line, ply, house));
        assert_eq!(line.to_le_bytes(), [3, 1, 6, 0]);
        // A new move at ply 1: what was under way below it is over.
        let line = super::extend_line(line, 1, 3);
        assert_eq!(line.to_le_bytes(), [3, 4, 0, 0]);
        let line = super::extend_line(super::extend_line(line, 2, 0), 3, 1);
        assert_eq!(line.to_le_bytes(), [3, 4, 1, 2]);
        assert_eq!(super::extend_line(line, 0, 5).to_le_bytes(), [6, 0, 0, 0]);
        // Published whole; a new search begins from nothing.
        let live = super::Live::default();
        live.line.store(line, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(live.line(), [3, 4, 1, 2]);
        live.begin(kalah_core::Position::start(4, 3).unwrap().mover_board());
        assert_eq!(live.line(), [0; super::LINE_SHOWN]);
    }

    #[test]
    fn history_ranks_houses_by_their_refutations_below_256() {
        let mut h = History::new();
        assert_eq!(h.shift(), 0);
        assert!((0..8).all(|house| h.rank(house, h.shift()) == 0));
        for _ in 0..300 {
            h.record(2);
        }
        h.record(5);
        let shift = h.shift();
        assert_eq!(shift, 1, "300 refutations need one bit dropped");
        assert_eq!((h.rank(2, shift), h.rank(5, shift), h.rank(0, shift)), (150, 0, 0));
        // Counts are halved at the limit, keeping their order.
        for _ in 0..History::LIMIT {
            h.record(4);
        }
        assert!(h.max < History::LIMIT && h.max == h.cuts[4]);
        let shift = h.shift();
        assert!((0..8).all(|house| h.rank(house, shift) < 256));
        assert!((128..256).contains(&h.rank(4, shift)), "the most frequent house keeps the top bit of the rank");
        assert!(h.cuts[4] > h.cuts[2] && h.cuts[2] > h.cuts[5]);
    }

    #[test]
    fn a_split_adds_what_its_forks_counted() {
        let mut h = History::new();
        h.record(1);
        h.record(1);
        let (mut a, mut b) = (h, h);
        a.record(1);
        a.record(3);
        b.record(3);
        b.record(3);
        b.record(0);
        h.merge([a, b].into_iter());
        assert_eq!(h.cuts[..4], [1, 3, 0, 3]);
        assert_eq!(h.max, 3);
        // Near the limit the merged counts are halved like any others.
        let mut big = History::new();
        big.cuts[2] = History::LIMIT - 2;
        big.max = History::LIMIT - 2;
        let (mut a, mut b) = (big, big);
        a.record(2);
        a.record(5);
        b.record(2);
        big.merge([a, b].into_iter());
        assert_eq!((big.cuts[2], big.max), (History::LIMIT / 2, History::LIMIT / 2));
        assert_eq!(big.cuts[5], 0, "one count, halved");
    }
}
