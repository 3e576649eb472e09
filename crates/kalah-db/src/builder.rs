//! Building the values of every board with up to `N` seeds, level by level.
//!
//! A *level* is the set of boards with exactly `n` seeds in their houses. A
//! move never adds seeds to the houses, so a level only depends on itself
//! and on the levels below, and the builder solves levels `0, 1, .., N` in
//! turn. Within a level the rules decide the method.
//!
//! # Counter-clockwise: one memoised sweep
//!
//! A move that keeps every seed on the board only carries the mover's seeds
//! towards the mover's store (`RULES.md`); it then passes the turn. The
//! mover's half rank (`kalah_core::rank`) strictly drops, so the successor
//! graph inside a level has no cycle. The builder sweeps the level in index
//! order (blocks of the mover's seed count, the opponent's houses as rows,
//! the mover's as columns) and solves each board from its successors'
//! values; a successor in the same level that is not solved yet is solved
//! on the spot, recursively, and stored (memoised recursion, no fixed-point
//! iteration). The recursion ends because the potential "sum over every
//! seed of its distance to its owner's store" strictly drops along it.
//!
//! Threads take chunks of the index range (rayon). Two threads may solve
//! the same board at once through the recursion; both store the same value,
//! and an entry is a single atomic byte, so the race is harmless.
//!
//! # Clockwise: retrograde analysis with thresholds
//!
//! Clockwise, seeds pass through the opponent's row before they reach a
//! store, so a level's successor graph has cycles and play can go on
//! forever (worth 0: nobody scores). Every move inside a level gains
//! nothing and passes the turn; every other move (an *exit*) has a known
//! value from the levels below. For each threshold `s >= 1`, the boards
//! worth at least `s` to the mover (`W_s`) and at most `-s` (`L_s`) are the
//! least fixed point of
//!
//! ```text
//! p in W_s  <=  some exit of p is worth >= s,  or some move of p leads to L_s
//! p in L_s  <=  every exit of p is worth <= -s, and every move of p leads to W_s
//! ```
//!
//! (an attractor: endless play is worth 0, which reaches neither side's
//! threshold, so both must be forced in finitely many moves). As `s`
//! decreases the sets only grow, so one retrograde pass over the reversed
//! successor graph, lowering `s` from `n` to 1, finds them all: a board's
//! value is `s` for the largest `s` with `p in W_s`, `-s` for the largest
//! with `p in L_s`, and 0 if it is in neither.
//!
//! The level's working set is small: per board its best exit and its count
//! of moves inside the level, a byte each in one 16-bit word; values are
//! written straight into the level's cells. The threshold passes need each
//! board's predecessors inside the level. Without relay they are found by
//! undoing moves (`Engine::quiet_predecessors`), which costs no memory; a
//! relay move cannot be undone that way, so with relay the builder stores
//! the reversed graph: the start of each board's predecessors (4 bytes) and
//! 4 bytes per move inside the level. Clockwise Kalah(5,4) (10.3 billion
//! boards, 2.05 billion in its largest level) thus needs 13.4 GiB without
//! relay and 52.3 GiB with it. Every pass is parallel. The threshold passes
//! scan the level for boards that join at `s` through their exits
//! (skipping the chunks of the level with no exit of `±s`), and each
//! thread follows the predecessors of the boards it claimed: a board is
//! claimed once, by a compare-and-swap of its cell, and since `W_s` and
//! `L_s` are least fixed points the order of the claims cannot change them.
//!
//! Those arrays are far larger than the caches and nearly every access
//! lands somewhere new, so the passes are bound by memory latency, not by
//! work. The arrays sit in huge pages (no TLB miss on top of the cache
//! miss), and each thread queues what it is about to touch a few dozen
//! deep, prefetching the line when it queues it (`Lagged`, `Frontier`):
//! many misses are in flight at once instead of one. That made clockwise
//! builds about twice as fast (BENCHMARKS.md).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU8, Ordering::Relaxed};

use kalah_core::{Board, Engine, Indexer, Next, Relay, Rules};
use rayon::prelude::*;

use crate::error::DbError;
use crate::kernel;
use crate::memory::LargeBuffer;
use crate::tablebase::Tablebase;

/// The byte of a board whose value is not known yet.
pub const UNSOLVED: u8 = 0x80;

/// The largest number of seeds a one-byte value can serve (values lie in `-N..=N`).
pub const MAX_SEEDS: u32 = 127;

/// Boards per parallel work item of the retrograde solver (small in unit
/// tests, so that small levels are shared between threads too).
const CHUNK: u64 = if cfg!(test) { 1 << 5 } else { 1 << 16 };

/// One level under retrograde analysis ([`Builder::build_level_retrograde`]):
/// its seeds, where its boards begin in the index, how many there are,
/// whether predecessors are found by undoing moves (else the reversed
/// graph), its value cells and the passes' working memory.
#[derive(Clone, Copy)]
struct RetrogradeLevel<'a> {
    n: u32,
    start: u64,
    len: usize,
    undo: bool,
    cells: &'a [AtomicU8],
    state: &'a [AtomicU16],
    offsets: &'a [AtomicU32],
    chunks: usize,
}

/// Reports how far a level has got, and says when to stop.
pub trait Progress: Sync {
    /// `done` more boards of level `n` are solved.
    fn advance(&self, n: u32, done: u64);

    /// Whether the build is to stop (a caller's cancel flag, an
    /// interrupt). Looked at often within a level: counter-clockwise every
    /// 1,024 rows of a block (at most half a million boards), by
    /// retrograde analysis between passes, thresholds and chunks. A level
    /// stopped in is not counted as solved; solving it again finishes it
    /// (counter-clockwise: the boards already solved are
    /// kept) or starts it over (retrograde analysis).
    fn stopped(&self) -> bool {
        false
    }
}

/// Ignores progress.
#[derive(Debug, Clone, Copy)]
pub struct Quiet;

impl Progress for Quiet {
    fn advance(&self, _: u32, _: u64) {}
}

/// The values of all boards of `h` houses a side with up to `max_seeds`
/// seeds, held in memory and solved level by level; see the module docs.
pub struct Builder {
    engine: Engine,
    indexer: Indexer,
    /// Counter-clockwise without relay: the kernel's fast path applies.
    fast: bool,
    values: LargeBuffer,
    /// The retrograde solver's working memory (rules that may cycle).
    retrograde: Option<Scratch>,
    /// Levels `0..done` are solved.
    done: u32,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder")
            .field("houses", &self.engine.houses())
            .field("rules", &self.engine.rules())
            .field("max_seeds", &self.indexer.max_seeds())
            .field("done", &self.done)
            .finish()
    }
}

/// The bytes a builder for `h` houses and `max_seeds` seeds under `rules`
/// holds in memory: one a board, and for rules that may cycle the
/// retrograde solver's working set ([`retrograde_working_set`]).
pub fn memory_needed(h: usize, max_seeds: u32, rules: Rules) -> u64 {
    let values = kalah_core::boards_up_to(h, max_seeds);
    if rules.may_cycle() {
        values.saturating_add(retrograde_working_set(h, max_seeds, rules))
    } else {
        values
    }
}

impl Builder {
    /// A builder with no level solved yet. Allocates one byte per board.
    pub fn new(h: usize, rules: Rules, max_seeds: u32) -> Result<Builder, DbError> {
        check_size(h, max_seeds)?;
        if rules.may_cycle() {
            check_retrograde_size(h, max_seeds, rules)?;
        }
        let indexer = Indexer::new(h, max_seeds);
        let bytes = indexer.len();
        let mut values = LargeBuffer::zeroed(bytes as usize).map_err(|e| DbError::Memory { needed: bytes, why: e.to_string() })?;
        values.bytes().fill(UNSOLVED);
        let retrograde = if rules.may_cycle() { Some(Scratch::new(h, rules, max_seeds)?) } else { None };
        Ok(Builder {
            engine: Engine::new(h, rules),
            indexer,
            fast: rules.sowing == kalah_core::Sowing::Ccw && rules.relay == kalah_core::Relay::Off,
            values,
            retrograde,
            done: 0,
        })
    }

    /// The rules engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The index of the boards.
    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// Levels `0..levels_done()` are solved.
    pub fn levels_done(&self) -> u32 {
        self.done
    }

    /// The bytes of level `n` (one signed value per board), once solved.
    pub fn level_bytes(&mut self, n: u32) -> &[u8] {
        assert!(n < self.done, "level {n} is not solved");
        let start = self.indexer.level_start(n) as usize;
        let len = self.indexer.level_len(n) as usize;
        &self.values.bytes()[start..start + len]
    }

    /// The memory of level `n`, the first unsolved level, to restore it
    /// from saved bytes (resuming a build); then call [`Builder::restored`].
    pub fn level_buffer(&mut self, n: u32) -> &mut [u8] {
        assert_eq!(n, self.done, "levels are restored in order");
        let start = self.indexer.level_start(n) as usize;
        let len = self.indexer.level_len(n) as usize;
        &mut self.values.bytes()[start..start + len]
    }

    /// Counts level `n`, filled through [`Builder::level_buffer`], as solved.
    pub fn restored(&mut self, n: u32) {
        assert_eq!(n, self.done, "levels are restored in order");
        self.done = n + 1;
    }

    /// Solves the next level; returns its number, or `None` if `progress`
    /// said to stop first ([`Progress::stopped`]; the level is then not
    /// counted, and the next call goes on with it).
    pub fn build_next(&mut self, progress: &dyn Progress) -> Option<u32> {
        let n = self.done;
        assert!(n <= self.indexer.max_seeds(), "every level is solved");
        let solved = if self.engine.rules().may_cycle() { self.build_level_retrograde(n, progress) } else { self.build_level_sweep(n, progress) };
        if !solved {
            return None;
        }
        self.done = n + 1;
        if self.done > self.indexer.max_seeds() {
            // Every level is solved: the working memory is no longer needed.
            self.retrograde = None;
        }
        Some(n)
    }

    /// The independent work units of level `n` (counter-clockwise rules):
    /// each `m <= n - m` stands for blocks `m` and `n - m`, which only need
    /// each other and the levels below. Returned with the boards they hold,
    /// largest first.
    pub fn level_units(&self, n: u32) -> Vec<(u32, u64)> {
        let mut units: Vec<(u32, u64)> = (0..=n / 2)
            .map(|m| {
                let size = self.indexer.side_len(m) * self.indexer.side_len(n - m);
                (m, if 2 * m == n { size } else { 2 * size })
            })
            .collect();
        units.sort_by_key(|&(m, size)| (std::cmp::Reverse(size), m));
        units
    }

    /// The index ranges, within level `n`, of the blocks of unit `m`.
    pub fn unit_ranges(&self, n: u32, m: u32) -> Vec<std::ops::Range<u64>> {
        let block = |b: u32| {
            let start = self.indexer.block_start(n, b);
            start..start + self.indexer.side_len(b) * self.indexer.side_len(n - b)
        };
        if 2 * m == n {
            vec![block(m)]
        } else {
            vec![block(m), block(n - m)]
        }
    }

    /// Solves only the units `units` of level `n`, the first unsolved level
    /// (for a build shared between processes: each solves some units, the
    /// others' are installed with [`Builder::install`], then
    /// [`Builder::restored`] counts the level). Counter-clockwise rules
    /// only. False if `progress` said to stop first: the units are then
    /// not all solved.
    pub fn build_units(&mut self, n: u32, units: &[u32], progress: &dyn Progress) -> bool {
        assert_eq!(n, self.done, "levels are built in order");
        assert!(!self.engine.rules().may_cycle(), "clockwise levels are solved whole");
        units.par_iter().map(|&m| self.sweep_unit(n, m, progress)).reduce(|| true, |a, b| a && b)
    }

    /// Solves unit `m` of level `n` ([`Builder::level_units`]); false if
    /// `progress` said to stop first.
    fn sweep_unit(&self, n: u32, m: u32, progress: &dyn Progress) -> bool {
        if 2 * m == n {
            self.sweep_block(n, m, progress)
        } else {
            self.sweep_pair(n, m, progress)
        }
    }

    /// Writes solved values into level `n` (the first unsolved level) at
    /// `offset` within the level.
    pub fn install(&mut self, n: u32, offset: u64, values: &[u8]) {
        let start = (self.indexer.level_start(n) + offset) as usize;
        assert!(offset + values.len() as u64 <= self.indexer.level_len(n));
        self.values.bytes()[start..start + values.len()].copy_from_slice(values);
    }

    /// The values of level `n` so far (solved or not), at `range` within the level.
    pub fn level_part(&mut self, n: u32, range: std::ops::Range<u64>) -> &[u8] {
        let start = self.indexer.level_start(n);
        &self.values.bytes()[(start + range.start) as usize..(start + range.end) as usize]
    }

    /// Solves every remaining level; false if `progress` said to stop
    /// first ([`Builder::build_next`]).
    pub fn build_all(&mut self, progress: &dyn Progress) -> bool {
        while self.done <= self.indexer.max_seeds() {
            if self.build_next(progress).is_none() {
                return false;
            }
        }
        true
    }

    fn cells(&self) -> &[AtomicU8] {
        self.values.atomic_u8()
    }

    /// The value of `board`, of a solved level (always exact).
    pub fn value(&self, board: Board) -> i32 {
        let n = board.total();
        assert!(n < self.done, "a board of {n} seeds: level {n} is not solved");
        self.cells()[self.indexer.index(board) as usize].load(Relaxed) as i8 as i32
    }

    /// The value of a board in a solved level, or in level `n` once solved.
    #[cfg(test)]
    fn stored(&self, board: Board) -> Option<i32> {
        match self.cells()[self.indexer.index(board) as usize].load(Relaxed) {
            UNSOLVED => None,
            v => Some(v as i8 as i32),
        }
    }

    // ----- counter-clockwise -----

    /// Solves level `n` (counter-clockwise); false if `progress` said to stop first.
    fn build_level_sweep(&self, n: u32, progress: &dyn Progress) -> bool {
        // Blocks m and n - m only ever need each other (and lower levels):
        // the pairs are independent, and the threads share them out, the
        // largest first.
        let mut pairs: Vec<u32> = (0..=n / 2).collect();
        pairs.sort_by_key(|&m| std::cmp::Reverse(self.indexer.side_len(m) * self.indexer.side_len(n - m)));
        pairs.into_par_iter().map(|m| self.sweep_unit(n, m, progress)).reduce(|| true, |a, b| a && b)
    }

    /// Solves blocks `m` and `k = n - m` of level `n` (`m < k`) together,
    /// in an order where every successor inside the level is solved first.
    ///
    /// With `A_a` the distributions of `m` seeds over one side in half-rank
    /// order and `B_b` those of `k` seeds, the sweep visits the pairs `(a, b)`
    /// and solves both `P = (mover A_a, opponent B_b)` and
    /// `Q = (mover B_b, opponent A_a)`. A move of `P` that stays in the
    /// level leads to `(mover B_b, opponent A_a')` with `a' < a` (half ranks
    /// drop along such moves, see `kalah_core::rank`), a `Q` of an earlier
    /// `a`; a move of `Q` leads to a `P` of the same `a` and an earlier `b`.
    /// So the order "a in tiles, then b, then a within the tile" needs no
    /// recursion, and within a tile `P` is written in runs and `Q` in a few
    /// streams, which keeps the writes and most reads in cache.
    ///
    /// False if `progress` said to stop first (looked at every
    /// [`STOP_ROWS`] rows): the boards solved so far are kept, and solving
    /// the pair again goes on where it stopped.
    fn sweep_pair(&self, n: u32, m: u32, progress: &dyn Progress) -> bool {
        const TILE: u64 = 256;
        let h = self.indexer.houses();
        let k = n - m;
        let (da, db) = (self.indexer.side_len(m), self.indexer.side_len(k));
        let start = self.indexer.level_start(n);
        let (base_p, base_q) = (start + self.indexer.block_start(n, m), start + self.indexer.block_start(n, k));
        let cells = self.cells();
        let mut a_side = [0u8; kalah_core::MAX_HOUSES];
        kalah_core::rank::first_side(&mut a_side[..h], m as u8);
        let mut tile: Vec<Side> = Vec::with_capacity(TILE as usize);
        let mut a0 = 0;
        while a0 < da {
            let a1 = (a0 + TILE).min(da);
            tile.clear();
            for _ in a0..a1 {
                tile.push(Side::new(&self.indexer, u64::from_le_bytes(a_side)));
                kalah_core::rank::next_side(&mut a_side[..h]);
            }
            let mut b_side = [0u8; kalah_core::MAX_HOUSES];
            kalah_core::rank::first_side(&mut b_side[..h], k as u8);
            for b in 0..db {
                if b % STOP_ROWS == 0 && progress.stopped() {
                    return false;
                }
                let b_side_info = Side::new(&self.indexer, u64::from_le_bytes(b_side));
                for (t, a_side_info) in tile.iter().enumerate() {
                    let a = a0 + t as u64;
                    let p = &cells[(base_p + b * da + a) as usize];
                    if p.load(Relaxed) == UNSOLVED {
                        p.store(self.solve_sides(a_side_info, &b_side_info, n) as i8 as u8, Relaxed);
                    }
                    let q = &cells[(base_q + a * db + b) as usize];
                    if q.load(Relaxed) == UNSOLVED {
                        q.store(self.solve_sides(&b_side_info, a_side_info, n) as i8 as u8, Relaxed);
                    }
                }
                kalah_core::rank::next_side(&mut b_side[..h]);
            }
            progress.advance(n, 2 * (a1 - a0) * db);
            a0 = a1;
        }
        true
    }

    /// Solves block `m` of level `n = 2m` in index order, solving a
    /// same-level successor not reached yet on the spot; false if
    /// `progress` said to stop first, as [`Builder::sweep_pair`].
    fn sweep_block(&self, n: u32, m: u32, progress: &dyn Progress) -> bool {
        const TILE: u64 = 256;
        let h = self.indexer.houses();
        let d = self.indexer.side_len(m);
        let base = self.indexer.level_start(n) + self.indexer.block_start(n, m);
        let cells = self.cells();
        let mut columns: Vec<Side> = Vec::with_capacity(TILE as usize);
        let mut mover = [0u8; kalah_core::MAX_HOUSES];
        kalah_core::rank::first_side(&mut mover[..h], m as u8);
        let mut c0 = 0;
        while c0 < d {
            let c1 = (c0 + TILE).min(d);
            columns.clear();
            for _ in c0..c1 {
                columns.push(Side::new(&self.indexer, u64::from_le_bytes(mover)));
                kalah_core::rank::next_side(&mut mover[..h]);
            }
            let mut opponent = [0u8; kalah_core::MAX_HOUSES];
            kalah_core::rank::first_side(&mut opponent[..h], m as u8);
            for row in 0..d {
                if row % STOP_ROWS == 0 && progress.stopped() {
                    return false;
                }
                let o_side = Side::new(&self.indexer, u64::from_le_bytes(opponent));
                for (t, m_side) in columns.iter().enumerate() {
                    let cell = &cells[(base + row * d + c0 + t as u64) as usize];
                    if cell.load(Relaxed) == UNSOLVED {
                        cell.store(self.solve_sides(m_side, &o_side, n) as i8 as u8, Relaxed);
                    }
                }
                kalah_core::rank::next_side(&mut opponent[..h]);
            }
            progress.advance(n, (c1 - c0) * d);
            c0 = c1;
        }
        true
    }

    /// The value of the board `(mover, opponent)` with `n` seeds, through
    /// the per-side precomputations of [`crate::kernel`] where the rules
    /// allow it.
    #[inline]
    fn solve_sides(&self, mover: &Side, opponent: &Side, n: u32) -> i32 {
        let board = Board::from_words(mover.info.word, opponent.info.word);
        if !self.fast {
            return self.solve(board);
        }
        if let Some(v) = self.engine.terminal_value(board) {
            return v;
        }
        let capture = self.engine.rules().capture;
        let mut best = i32::MIN;
        let mut pending = [(0usize, Board::EMPTY, 0i32, false); kalah_core::MAX_HOUSES];
        let mut count = 0;
        for mv in &mover.moves[..mover.count] {
            let (index, child, gain, same_mover) = match kernel::successor(&self.engine, &self.indexer, capture, n, mv, &opponent.info) {
                kernel::Successor::Value(v) => {
                    best = best.max(v);
                    continue;
                }
                kernel::Successor::Lookup { index, gain, same_mover, board, .. } => (index, board, gain, same_mover),
                kernel::Successor::General => {
                    let o = self.engine.play(board, mv.house as usize);
                    match o.next {
                        Next::Over => {
                            best = best.max(o.gain());
                            continue;
                        }
                        next => (self.indexer.index(o.board), o.board, o.gain(), next == Next::Mover),
                    }
                }
            };
            crate::memory::prefetch(&self.cells()[index as usize]);
            pending[count] = (index as usize, child, gain, same_mover);
            count += 1;
        }
        for &(i, child, gain, same_mover) in &pending[..count] {
            let v = self.value_or_solve(i, child);
            best = best.max(if same_mover { gain + v } else { gain - v });
        }
        best
    }

    /// The value of `board`, whose successors in lower levels are solved;
    /// successors in its own level are solved (and stored) on demand.
    fn solve(&self, board: Board) -> i32 {
        if let Some(v) = self.engine.terminal_value(board) {
            return v;
        }
        // Play every move and start fetching the successors' values, then
        // read them: the cache misses of the moves overlap.
        let mut best = i32::MIN;
        let mut pending = [(0usize, Board::EMPTY, 0i32, false); kalah_core::MAX_HOUSES];
        let mut count = 0;
        for house in self.engine.moves(board) {
            let o = self.engine.play(board, house);
            match o.next {
                Next::Over => best = best.max(o.gain()),
                next => {
                    let i = self.indexer.index(o.board) as usize;
                    crate::memory::prefetch(&self.cells()[i]);
                    pending[count] = (i, o.board, o.gain(), next == Next::Mover);
                    count += 1;
                }
            }
        }
        for &(i, child, gain, same_mover) in &pending[..count] {
            let v = self.value_or_solve(i, child);
            best = best.max(if same_mover { gain + v } else { gain - v });
        }
        best
    }

    /// The value of `board`, whose index is `i`, solving it first if needed.
    fn value_or_solve(&self, i: usize, board: Board) -> i32 {
        let cell = &self.cells()[i];
        match cell.load(Relaxed) {
            UNSOLVED => {
                let v = self.solve(board);
                cell.store(v as i8 as u8, Relaxed);
                v
            }
            v => v as i8 as i32,
        }
    }

    // ----- clockwise -----

    /// Solves level `n` under rules that may cycle (clockwise sowing,
    /// relay), by retrograde analysis in three passes: each board's best
    /// exit from the level and its moves inside it
    /// ([`Builder::retrograde_exits`]); with relay, the level's moves
    /// reversed ([`Builder::retrograde_graph`]); then the thresholds from
    /// `n` down, deciding who can force what ([`Builder::retrograde_thresholds`]).
    /// A board left undecided is a draw by endless play.
    ///
    /// False if `progress` said to stop first (looked at between passes,
    /// thresholds and chunks): the level is then left for a new start.
    fn build_level_retrograde(&self, n: u32, progress: &dyn Progress) -> bool {
        let start = self.indexer.level_start(n);
        let len = self.indexer.level_len(n);
        let rules = self.engine.rules();
        assert!(
            len <= retrograde_level_limit(self.engine.houses(), rules),
            "a level of {len} boards is too large for the retrograde solver (check_retrograde_size refuses it)"
        );
        // Without relay, the predecessors of a board inside the level are
        // found by undoing moves; with relay they are stored (`offsets`, `preds`).
        let undo = undoes_moves(rules);
        let len = len as usize;
        // The level's own cells hold the values as they are decided: UNSOLVED until then.
        let cells = &self.cells()[start as usize..start as usize + len];
        cells.par_iter().for_each(|c| c.store(UNSOLVED, Relaxed));

        let scratch = self.retrograde.as_ref().expect("a builder for rules that may cycle has working memory");
        let level = RetrogradeLevel {
            n,
            start,
            len,
            undo,
            cells,
            state: &scratch.state.atomic_u16()[..len],
            offsets: if undo { &[][..] } else { &scratch.offsets.atomic_u32()[..len + 1] },
            chunks: len.div_ceil(CHUNK as usize),
        };
        let joins_at = self.retrograde_exits(&level);
        if progress.stopped() {
            return false;
        }
        let preds = self.retrograde_graph(&level, &scratch.preds);
        // The thresholds look at `progress` before each one.
        if !self.retrograde_thresholds(&level, &joins_at, preds, progress) {
            return false;
        }
        // In neither W_1 nor L_1: endless play is the best both can force.
        cells.par_iter().for_each(|c| {
            if c.load(Relaxed) == UNSOLVED {
                c.store(0, Relaxed);
            }
        });
        progress.advance(n, len as u64);
        true
    }

    /// Pass 1 of [`Builder::build_level_retrograde`]: every board's best
    /// exit, its moves inside the level and (in `offsets`, with relay) how
    /// many moves of the level lead to it; for each chunk, the thresholds
    /// at which its boards' exits may let them join (bit `|e|`), so that
    /// the threshold passes skip a chunk with none to scan for.
    fn retrograde_exits(&self, level: &RetrogradeLevel<'_>) -> Vec<u128> {
        let RetrogradeLevel { n, start, len, undo, state, offsets, chunks, .. } = *level;
        offsets.par_iter().for_each(|c| c.store(0, Relaxed));
        (0..chunks)
            .into_par_iter()
            .map(|chunk| {
                let first = chunk * CHUNK as usize;
                let mut cursor = Cursor::new(&self.indexer, n, first as u64);
                let mut lagged = Lagged::<usize>::new();
                let mut joins_at = 0u128;
                let mut note = |exit: i32| {
                    if exit != i32::from(NO_EXIT) {
                        joins_at |= 1 << exit.unsigned_abs();
                    }
                };
                let last = len.min(first + CHUNK as usize);
                for (p, slot) in state.iter().enumerate().take(last).skip(first) {
                    cursor.seek(p as u64);
                    let board = cursor.board();
                    if let Some(v) = self.engine.terminal_value(board) {
                        slot.store(pack_state(v, 0), Relaxed);
                        note(v);
                        continue;
                    }
                    // Play every move first and prefetch what each needs:
                    // an exit's value below, an inside move's counter.
                    let mut played = [None; kalah_core::MAX_HOUSES];
                    let mut moves = 0;
                    let mut best = i32::from(NO_EXIT);
                    let mut count = 0;
                    for house in self.engine.moves(board) {
                        let o = self.engine.play(board, house);
                        match o.next {
                            Next::Over => best = best.max(o.gain()),
                            _ if o.board.total() < n => {
                                let i = self.indexer.index(o.board);
                                crate::memory::prefetch(&self.cells()[i as usize]);
                                played[moves] = Some((i, o));
                                moves += 1;
                            }
                            _ => {
                                debug_assert_eq!(o.next, Next::Opponent, "a move inside a level passes the turn");
                                debug_assert_eq!(o.gain(), 0);
                                if !undo {
                                    let c = (self.indexer.index(o.board) - start) as usize;
                                    crate::memory::prefetch(&offsets[c]);
                                    if let Some(c) = lagged.push(c) {
                                        offsets[c].fetch_add(1, Relaxed);
                                    }
                                }
                                count += 1;
                            }
                        }
                    }
                    for &(i, o) in played[..moves].iter().flatten() {
                        let v = self.cells()[i as usize].load(Relaxed);
                        assert_ne!(v, UNSOLVED, "lower levels are solved");
                        best = best.max(o.value_with(v as i8 as i32));
                    }
                    slot.store(pack_state(best, count), Relaxed);
                    note(best);
                }
                for c in lagged.drain() {
                    offsets[c].fetch_add(1, Relaxed);
                }
                joins_at
            })
            .collect()
    }

    /// Pass 2 of [`Builder::build_level_retrograde`], with relay only: the
    /// level's moves reversed, as CSR in `preds` (kept in `memory`). The
    /// counts of pass 1 become the end of each board's run of
    /// predecessors; filling a run counts its end down to its start.
    fn retrograde_graph<'a>(&self, level: &RetrogradeLevel<'a>, memory: &'a LargeBuffer) -> &'a [AtomicU32] {
        let RetrogradeLevel { n, start, len, undo, state, offsets, chunks, .. } = *level;
        let mut total = 0u32;
        for o in offsets {
            total += o.load(Relaxed);
            o.store(total, Relaxed);
        }
        let preds = if undo { &[][..] } else { &memory.atomic_u32()[..total as usize] };
        if !undo {
            (0..chunks).into_par_iter().for_each(|chunk| {
                let first = chunk * CHUNK as usize;
                let mut cursor = Cursor::new(&self.indexer, n, first as u64);
                // Two lags: the counter of a move's board, then the slot it gives.
                let mut counted = Lagged::<(usize, u32)>::new();
                let mut placed = Lagged::<(usize, u32)>::new();
                let mut place = |(c, p): (usize, u32)| {
                    let slot = (offsets[c].fetch_sub(1, Relaxed) - 1) as usize;
                    crate::memory::prefetch(&preds[slot]);
                    if let Some((slot, p)) = placed.push((slot, p)) {
                        preds[slot].store(p, Relaxed);
                    }
                };
                let last = len.min(first + CHUNK as usize);
                for (p, packed) in state.iter().enumerate().take(last).skip(first) {
                    if inside_moves(packed.load(Relaxed)) == 0 {
                        continue;
                    }
                    cursor.seek(p as u64);
                    let board = cursor.board();
                    for house in self.engine.moves(board) {
                        let o = self.engine.play(board, house);
                        if o.next != Next::Over && o.board.total() == n {
                            let c = (self.indexer.index(o.board) - start) as usize;
                            crate::memory::prefetch(&offsets[c]);
                            if let Some(item) = counted.push((c, p as u32)) {
                                place(item);
                            }
                        }
                    }
                }
                for item in counted.drain() {
                    place(item);
                }
                for (slot, p) in placed.drain() {
                    preds[slot].store(p, Relaxed);
                }
            });
        }
        preds
    }

    /// Pass 3 of [`Builder::build_level_retrograde`]: thresholds from `n`
    /// down to 1, growing W_s and L_s (see the comments within); false if
    /// `progress` said to stop first (looked at before each threshold and
    /// chunk), the level half decided.
    ///
    /// Read best whole: it is the retrograde kernel, one loop over the
    /// thresholds whose two parts (the scan for boards that join through
    /// their exits, the walk over their predecessors) share the claim
    /// protocol of a cell and the prefetch queues; split apart, each piece
    /// would need the whole of that state and its invariant again.
    fn retrograde_thresholds(&self, level: &RetrogradeLevel<'_>, joins_at: &[u128], preds: &[AtomicU32], progress: &dyn Progress) -> bool {
        let RetrogradeLevel { n, start, len, undo, cells, state, offsets, chunks } = *level;
        // Pass 3: thresholds from n down to 1, growing W_s and L_s. A cell
        // is claimed once (compare-and-swap from UNSOLVED): +s when its
        // board joins W_s, -s when it joins L_s. A board's count (in `state`)
        // is of its moves not (yet) known to lead into W. Within a threshold the
        // order of the claims does not matter (the sets are least fixed
        // points), so threads scan the level for the threshold's new
        // members and each follows the predecessors of its own.
        //
        // What is to be followed waits in queues ([`Frontier`]) until the
        // cache lines it needs, prefetched when it was queued, have arrived.
        let claim = |p: usize, v: i32| cells[p].compare_exchange(UNSOLVED, v as i8 as u8, Relaxed, Relaxed).is_ok();
        // A chunk passed over for a stop leaves its threshold unfinished.
        let skipped = AtomicBool::new(false);
        for s in (1..=n as i32).rev() {
            if progress.stopped() {
                return false;
            }
            (0..chunks).into_par_iter().for_each_init(Frontier::default, |frontier, chunk| {
                // A claimed board: its predecessors are to be followed.
                let add = |f: &mut Frontier, c: usize, wins: bool, board: Board| {
                    if !undo {
                        crate::memory::prefetch(&offsets[c]);
                    }
                    f.boards.push_back((c as u32, wins, board));
                };
                // A move into a claimed board, to be followed.
                let queue_move = |f: &mut Frontier, p: usize, wins: bool, board: Board| {
                    crate::memory::prefetch(&cells[p]);
                    if wins {
                        crate::memory::prefetch(&state[p]);
                    }
                    f.moves.push_back((p as u32, wins, board));
                };
                // The oldest board's predecessors: undone, or its run of the
                // reversed graph.
                let open_board = |f: &mut Frontier| {
                    let (c, wins, board) = f.boards.pop_front().expect("a board is queued");
                    if undo {
                        self.engine.quiet_predecessors(board, |parent, _| {
                            queue_move(f, (self.indexer.index(parent) - start) as usize, wins, parent);
                        });
                        return;
                    }
                    let (start, end) = (offsets[c as usize].load(Relaxed), offsets[c as usize + 1].load(Relaxed));
                    if start < end {
                        crate::memory::prefetch(&preds[start as usize]);
                        f.runs.push_back((start, end, wins));
                    }
                };
                // The oldest run's moves.
                let open_run = |f: &mut Frontier| {
                    let (start, end, wins) = f.runs.pop_front().expect("a run is queued");
                    for p in &preds[start as usize..end as usize] {
                        queue_move(f, p.load(Relaxed) as usize, wins, Board::EMPTY);
                    }
                };
                // The oldest move, into a board of W_s (`c_wins`) or L_s.
                let follow = |f: &mut Frontier| {
                    let (p, c_wins, board) = f.moves.pop_front().expect("a move is queued");
                    let p = p as usize;
                    if c_wins {
                        // One fewer move of p escapes W; with none left
                        // and no exit better than -s, p is in L_s.
                        let before = state[p].fetch_sub(1, Relaxed);
                        debug_assert!(inside_moves(before) > 0, "more moves followed than counted");
                        let e = best_exit(before);
                        if inside_moves(before) == 1 && (e == NO_EXIT || i32::from(e) <= -s) && claim(p, -s) {
                            add(f, p, false, board);
                        }
                    } else if cells[p].load(Relaxed) == UNSOLVED && claim(p, s) {
                        // p moves into L_s: p is in W_s.
                        add(f, p, true, board);
                    }
                };
                // Takes one step of the work queued; false when there is none
                // to take (outside `draining`: none with enough in flight).
                // The queue nearest its end goes first once it is long
                // enough; while draining, the earliest goes first, so that
                // as much as possible stays in flight.
                let step = |frontier: &mut Frontier, draining: bool| -> bool {
                    let f = frontier;
                    if f.moves.len() > LAG {
                        follow(f);
                    } else if f.runs.len() > LAG {
                        open_run(f);
                    } else if f.boards.len() > LAG {
                        open_board(f);
                    } else if !draining {
                        return false;
                    } else if !f.boards.is_empty() {
                        open_board(f);
                    } else if !f.runs.is_empty() {
                        open_run(f);
                    } else if !f.moves.is_empty() {
                        follow(f);
                    } else {
                        return false;
                    }
                    true
                };
                if joins_at[chunk] & 1 << s == 0 {
                    return;
                }
                if progress.stopped() {
                    skipped.store(true, Relaxed);
                    return;
                }
                let first = chunk * CHUNK as usize;
                let last = len.min(first + CHUNK as usize);
                for (p, slot) in state.iter().enumerate().take(last).skip(first) {
                    let packed = slot.load(Relaxed);
                    let e = i32::from(best_exit(packed));
                    let joins = if e == s {
                        s
                    } else if e == -s && inside_moves(packed) == 0 {
                        -s
                    } else {
                        continue;
                    };
                    if claim(p, joins) {
                        let board = if undo { self.indexer.unrank(start + p as u64) } else { Board::EMPTY };
                        add(frontier, p, joins > 0, board);
                        while step(frontier, false) {}
                    }
                }
                while step(frontier, true) {}
            });
            if skipped.load(Relaxed) {
                return false;
            }
        }
        true
    }
}

/// Rows of a block (each up to 512 boards) a sweep solves between two
/// looks at [`Progress::stopped`]: about a hundredth of a second.
const STOP_ROWS: u64 = 1024;

/// Items queued this many places deep before their work is done
/// ([`Lagged`], [`Frontier`]; small in unit tests, so that the queues both
/// fill and drain there).
const LAG: usize = if cfg!(test) { 3 } else { 32 };

/// A queue that hands an item back `LAG` pushes later, so that the cache
/// line its work touches, prefetched when it was pushed, has arrived: the
/// retrograde passes update counters at random places in arrays far larger
/// than the caches, and an atomic update waits for its line.
struct Lagged<T>(VecDeque<T>);

impl<T> Lagged<T> {
    fn new() -> Self {
        Lagged(VecDeque::with_capacity(LAG + 1))
    }

    /// Queues `item`; returns the oldest item once the queue is full.
    #[inline]
    fn push(&mut self, item: T) -> Option<T> {
        self.0.push_back(item);
        if self.0.len() > LAG {
            self.0.pop_front()
        } else {
            None
        }
    }

    /// The items still queued, oldest first; empties the queue.
    fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        self.0.drain(..)
    }
}

/// The threshold pass's work in flight on one thread, in three stages:
/// claimed boards whose predecessors are still to be found (undone, or
/// their run read), runs of the reversed graph (`start..end`; with relay
/// only), and the moves into claimed boards, still to be followed. Each
/// item carries whether the claimed board it leads back to is won for the
/// player to move there (`W_s`) or lost (`L_s`). Without relay, boards and
/// moves also carry the board they stand for (the board claimed, the
/// board the move is played from), so that undoing moves needs no
/// unranking for the boards the moves claim, most of them (with relay:
/// `Board::EMPTY`, unused).
#[derive(Default)]
struct Frontier {
    boards: VecDeque<(u32, bool, Board)>,
    runs: VecDeque<(u32, u32, bool)>,
    moves: VecDeque<(u32, bool, Board)>,
}

/// The retrograde solver's working memory, mapped once per build for its
/// largest level (the last) and reused by every level, so that a map that
/// fails is an error of [`Builder::new`], not of a level half solved. The
/// arrays are read at random: huge pages spare the TLB. Pages a level never
/// touches (part of `preds`: many moves leave the level) take no memory;
/// [`retrograde_working_set`] counts what may be.
struct Scratch {
    /// Per board, in one 16-bit word ([`pack_state`]): the best value of a
    /// move that leaves the level, and the moves inside the level not
    /// known to lead into `W_s`. One word, so that following a move reads
    /// one cache line of it, and counts down and reads the exit in one
    /// atomic step.
    state: LargeBuffer,
    /// With relay: the reversed graph's offsets, one `u32` per board and one more.
    offsets: LargeBuffer,
    /// With relay: the reversed graph's moves, one `u32` each ([`most_moves`]).
    preds: LargeBuffer,
}

impl Scratch {
    fn new(h: usize, rules: Rules, max_seeds: u32) -> Result<Scratch, DbError> {
        let largest = kalah_core::boards_with(h, max_seeds) as usize;
        let map = |bytes: usize| {
            LargeBuffer::zeroed(bytes)
                .map_err(|e| DbError::Memory { needed: bytes as u64, why: format!("the retrograde solver's working memory: {e}") })
        };
        let relay = !undoes_moves(rules);
        Ok(Scratch {
            state: map(2 * largest)?,
            offsets: map(if relay { 4 * (largest + 1) } else { 0 })?,
            preds: map(if relay { 4 * most_moves(h, max_seeds) as usize } else { 0 })?,
        })
    }
}

/// The best exit of a board with none (every move stays in the level).
const NO_EXIT: i8 = i8::MIN;

/// A board's retrograde state: its best exit (high byte) and its count of
/// moves inside the level (low byte, at most `h`). Counting a move down
/// subtracts 1 from the word, which never borrows from the exit: a board's
/// count is counted down once for each of its moves inside the level.
#[inline]
fn pack_state(exit: i32, count: u8) -> u16 {
    u16::from(exit as i8 as u8) << 8 | u16::from(count)
}

/// The best exit of a board's state ([`NO_EXIT`] if it has none).
#[inline]
fn best_exit(state: u16) -> i8 {
    (state >> 8) as u8 as i8
}

/// The count of a board's moves inside the level in its state.
#[inline]
fn inside_moves(state: u16) -> u8 {
    state as u8
}

/// Whether the retrograde solver finds a board's predecessors inside its
/// level by undoing moves (`Engine::quiet_predecessors`: every rule set
/// without relay) rather than by storing the reversed graph.
fn undoes_moves(rules: Rules) -> bool {
    rules.relay == Relay::Off
}

/// The extra memory the retrograde solver (clockwise sowing) needs while it
/// solves the largest level of a build up to `max_seeds`: per board of the
/// level its best exit and its count of moves inside the level (2 bytes);
/// with relay also its offset in the reversed graph (4 bytes) and 4 bytes
/// per move inside the level (at most `h` times the boards with one seed
/// fewer, `most_moves`).
pub fn retrograde_working_set(h: usize, max_seeds: u32, rules: Rules) -> u64 {
    let level = kalah_core::boards_with(h, max_seeds);
    // Saturating: the sizes of boards far too large to build (then refused)
    // must not wrap around to small ones.
    if undoes_moves(rules) {
        level.saturating_mul(2)
    } else {
        level.saturating_mul(6).saturating_add(most_moves(h, max_seeds).saturating_mul(4))
    }
}

/// The most moves the boards with `n` seeds can have: one a house of the
/// mover's that holds seeds. House `i` holds seeds in as many boards of `n`
/// seeds as there are boards of `n - 1` (take one seed from it), so the
/// moves number `h` times the boards of `n - 1` seeds: `n / (n + 2h - 1)`
/// of `h` a board.
fn most_moves(h: usize, n: u32) -> u64 {
    match n {
        0 => 0,
        _ => kalah_core::boards_with(h, n - 1).saturating_mul(h as u64),
    }
}

/// The largest level the retrograde solver can number: its queues hold
/// boards as 32-bit numbers, and with relay the reversed graph numbers the
/// moves inside a level with 32 bits too.
fn retrograde_level_limit(h: usize, rules: Rules) -> u64 {
    if undoes_moves(rules) {
        u32::MAX as u64 - 1
    } else {
        (u32::MAX as u64 - 1) / h as u64
    }
}

/// Refuses a clockwise build whose largest level the retrograde solver
/// cannot number (see `retrograde_level_limit`).
pub fn check_retrograde_size(h: usize, max_seeds: u32, rules: Rules) -> Result<(), DbError> {
    let level = kalah_core::boards_with(h, max_seeds);
    let limit = retrograde_level_limit(h, rules);
    if level > limit {
        return Err(DbError::Unsupported(format!(
            "clockwise sowing with {max_seeds} seeds on {h} houses a side: a level of {level} boards \
             is too large for the retrograde solver (at most {limit} boards{})",
            if undoes_moves(rules) { "" } else { " with relay" }
        )));
    }
    Ok(())
}

/// Refuses databases that one-byte values or the index cannot hold.
pub fn check_size(h: usize, max_seeds: u32) -> Result<(), DbError> {
    if !(1..=kalah_core::MAX_HOUSES).contains(&h) {
        return Err(DbError::Unsupported(format!("{h} houses a side (1 to {} are supported)", kalah_core::MAX_HOUSES)));
    }
    let max = MAX_SEEDS.min(kalah_core::max_board_seeds(h));
    if max_seeds > max {
        return Err(DbError::Unsupported(format!("{max_seeds} seeds (one-byte values hold databases of at most {max} seeds)")));
    }
    Ok(())
}

impl Tablebase for Builder {
    fn houses(&self) -> usize {
        self.engine.houses()
    }

    fn rules(&self) -> Rules {
        self.engine.rules()
    }

    fn max_seeds(&self) -> Option<u32> {
        self.done.checked_sub(1)
    }

    #[inline]
    fn stored(&self, board: Board) -> crate::Stored {
        self.stored_at(board, self.slot(board))
    }

    #[inline]
    fn slot(&self, board: Board) -> u64 {
        self.indexer.index(board)
    }

    #[inline]
    fn prefetch_slot(&self, slot: u64) {
        crate::memory::prefetch(&self.cells()[slot as usize]);
    }

    #[inline]
    fn stored_at(&self, _board: Board, slot: u64) -> crate::Stored {
        crate::Stored::exact(self.cells()[slot as usize].load(Relaxed) as i8 as i32)
    }
}

/// One side's houses with what the kernel precomputes for them, as the
/// mover's side (its moves) and as the opponent's (its half ranks).
pub(crate) struct Side {
    pub(crate) info: kernel::SideInfo,
    pub(crate) moves: [kernel::SideMove; kalah_core::MAX_HOUSES],
    pub(crate) count: usize,
}

impl Side {
    pub(crate) fn new(indexer: &Indexer, word: u64) -> Side {
        let mut moves = [kernel::SideMove { house: 0, landing: kernel::Landing::General, after: 0, after_seeds: 0, after_rank: 0, captured_rank: 0 };
            kalah_core::MAX_HOUSES];
        let count = kernel::side_moves(indexer, word, &mut moves);
        Side { info: kernel::SideInfo::new(indexer, word), moves, count }
    }
}

/// Walks the boards of one level in index order.
pub(crate) struct Cursor<'a> {
    indexer: &'a Indexer,
    n: u32,
    /// Seeds of the mover.
    m: u32,
    mover: [u8; kalah_core::MAX_HOUSES],
    opponent: [u8; kalah_core::MAX_HOUSES],
    /// Index within the level of the current board.
    at: u64,
}

impl<'a> Cursor<'a> {
    /// A cursor at index `at` within level `n`.
    pub(crate) fn new(indexer: &'a Indexer, n: u32, at: u64) -> Cursor<'a> {
        let mut c = Cursor { indexer, n, m: 0, mover: [0; kalah_core::MAX_HOUSES], opponent: [0; kalah_core::MAX_HOUSES], at: u64::MAX };
        c.seek(at);
        c
    }

    /// Moves to index `at` within the level (cheap when it is the next one).
    pub(crate) fn seek(&mut self, at: u64) {
        if at == self.at {
            return;
        }
        if self.at != u64::MAX && at == self.at + 1 {
            self.advance();
            return;
        }
        let board = self.indexer.unrank(self.indexer.level_start(self.n) + at);
        let h = self.indexer.houses();
        self.m = board.mover_seeds();
        for i in 0..h {
            self.mover[i] = board.get(i);
            self.opponent[i] = board.opponent(i);
        }
        self.at = at;
    }

    /// The current board.
    #[inline]
    pub(crate) fn board(&self) -> Board {
        let h = self.indexer.houses();
        Board::from_sides(&self.mover[..h], &self.opponent[..h])
    }

    /// Steps to the next board of the level (past the end: unspecified).
    #[inline]
    pub(crate) fn advance(&mut self) {
        let h = self.indexer.houses();
        self.at += 1;
        if kalah_core::rank::next_side(&mut self.mover[..h]) {
            return;
        }
        kalah_core::rank::first_side(&mut self.mover[..h], self.m as u8);
        if kalah_core::rank::next_side(&mut self.opponent[..h]) {
            return;
        }
        if self.m < self.n {
            self.m += 1;
            kalah_core::rank::first_side(&mut self.mover[..h], self.m as u8);
            kalah_core::rank::first_side(&mut self.opponent[..h], (self.n - self.m) as u8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_visits_a_level_in_index_order() {
        for h in 1..=4 {
            let ix = Indexer::new(h, 6);
            for n in 0..=6 {
                let mut c = Cursor::new(&ix, n, 0);
                for i in 0..ix.level_len(n) {
                    assert_eq!(ix.index(c.board()), ix.level_start(n) + i, "h={h} n={n} i={i}");
                    c.advance();
                }
                let mid = ix.level_len(n) / 2;
                let c = Cursor::new(&ix, n, mid);
                assert_eq!(ix.index(c.board()), ix.level_start(n) + mid);
            }
        }
    }

    /// The retrograde solver's threads share small levels here (`CHUNK`
    /// is small in unit tests): the values must not depend on how they
    /// interleave. Four threads on every clockwise rule set.
    #[test]
    fn retrograde_levels_shared_between_threads_match_the_reference() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        for rules in Rules::all().filter(|r| r.may_cycle()) {
            let (h, max_seeds) = (4, 10);
            let mut builder = Builder::new(h, rules, max_seeds).unwrap();
            pool.install(|| builder.build_all(&Quiet));
            let reference = kalah_reference::board_values(h, &rules, max_seeds);
            assert_eq!(reference.len() as u64, builder.indexer.len());
            for ((mover, opponent), &value) in &reference {
                let board = Board::from_sides(mover, opponent);
                assert_eq!(builder.stored(board), Some(value), "{rules} board {mover:?}/{opponent:?}");
            }
        }
    }

    #[test]
    fn lagged_hands_items_back_in_order_lag_pushes_later() {
        let mut lagged = Lagged::<u32>::new();
        let mut out = Vec::new();
        for i in 0..10 {
            if let Some(old) = lagged.push(i) {
                assert_eq!(old + LAG as u32, i, "each item comes back LAG pushes later");
                out.push(old);
            }
        }
        out.extend(lagged.drain());
        assert_eq!(out, (0..10).collect::<Vec<_>>());
        assert_eq!(lagged.drain().count(), 0, "a drain empties the queue");
        assert_eq!(lagged.push(7), None);
        assert_eq!(lagged.drain().collect::<Vec<_>>(), vec![7]);
    }

    #[test]
    fn most_moves_counts_every_move_of_a_level() {
        for h in 1..=4 {
            let ix = Indexer::new(h, 8);
            for n in 0..=8 {
                let mut c = Cursor::new(&ix, n, 0);
                let mut moves = 0;
                for _ in 0..ix.level_len(n) {
                    moves += (0..h).filter(|&i| c.board().get(i) > 0).count() as u64;
                    c.advance();
                }
                assert_eq!(most_moves(h, n), moves, "h={h} n={n}");
            }
        }
    }

    #[test]
    fn clockwise_levels_too_large_to_index_are_refused() {
        let cw = Rules { sowing: kalah_core::Sowing::Cw, ..Rules::default() };
        let relay = Rules { relay: Relay::On, ..cw };
        let e = check_retrograde_size(8, 40, relay).unwrap_err().to_string();
        assert!(e.contains("too large for the retrograde solver"), "{e}");
        assert!(check_retrograde_size(6, 24, relay).is_ok());
        assert!(Builder::new(8, relay, 40).is_err());
        // Undoing moves numbers boards only: Kalah(5,4) fits, Kalah(6,3) does not.
        assert!(check_retrograde_size(5, 40, cw).is_ok());
        assert!(check_retrograde_size(5, 40, relay).is_err());
        let e = check_retrograde_size(6, 36, cw).unwrap_err().to_string();
        assert!(e.contains("at most 4294967294 boards)"), "{e}");
    }

    #[test]
    fn sizes_beyond_one_byte_values_are_refused() {
        assert!(check_size(6, 127).is_ok());
        let e = check_size(6, 128).unwrap_err().to_string();
        assert!(e.contains("128 seeds"), "{e}");
        assert!(check_size(9, 4).is_err());
    }
}
