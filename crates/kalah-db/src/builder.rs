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

use std::sync::atomic::{AtomicU32, AtomicU8, Ordering::Relaxed};

use kalah_core::{Board, Engine, Indexer, Next, Rules};
use rayon::prelude::*;

use crate::error::DbError;
use crate::kernel;
use crate::memory::LargeBuffer;
use crate::tablebase::Tablebase;

/// The byte of a board whose value is not known yet.
pub const UNSOLVED: u8 = 0x80;

/// The largest number of seeds a one-byte value can serve (values lie in `-N..=N`).
pub const MAX_SEEDS: u32 = 127;

/// Boards per parallel work item.
const CHUNK: u64 = 1 << 16;

/// Reports how far a level has got.
pub trait Progress: Sync {
    /// `done` more boards of level `n` are solved.
    fn advance(&self, n: u32, done: u64);
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

/// The bytes a builder for `h` houses and `max_seeds` seeds holds in memory.
pub fn memory_needed(h: usize, max_seeds: u32) -> u64 {
    kalah_core::boards_up_to(h, max_seeds)
}

impl Builder {
    /// A builder with no level solved yet. Allocates one byte per board.
    pub fn new(h: usize, rules: Rules, max_seeds: u32) -> Result<Builder, DbError> {
        check_size(h, max_seeds)?;
        let indexer = Indexer::new(h, max_seeds);
        let bytes = indexer.len();
        let mut values = LargeBuffer::zeroed(bytes as usize).map_err(|e| DbError::Memory {
            needed: bytes,
            why: e.to_string(),
        })?;
        values.bytes().fill(UNSOLVED);
        Ok(Builder {
            engine: Engine::new(h, rules),
            indexer,
            fast: rules.sowing == kalah_core::Sowing::Ccw && rules.relay == kalah_core::Relay::Off,
            values,
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

    /// Solves the next level; returns its number.
    pub fn build_next(&mut self, progress: &dyn Progress) -> u32 {
        let n = self.done;
        assert!(n <= self.indexer.max_seeds(), "every level is solved");
        if self.engine.rules().may_cycle() {
            self.build_level_retrograde(n, progress);
        } else {
            self.build_level_sweep(n, progress);
        }
        self.done = n + 1;
        n
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
    /// [`Builder::restored`] counts the level). Counter-clockwise rules only.
    pub fn build_units(&mut self, n: u32, units: &[u32], progress: &dyn Progress) {
        assert_eq!(n, self.done, "levels are built in order");
        assert!(!self.engine.rules().may_cycle(), "clockwise levels are solved whole");
        units.par_iter().for_each(|&m| {
            if 2 * m == n {
                self.sweep_block(n, m, progress);
            } else {
                self.sweep_pair(n, m, progress);
            }
        });
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

    /// Solves every remaining level.
    pub fn build_all(&mut self, progress: &dyn Progress) {
        while self.done <= self.indexer.max_seeds() {
            self.build_next(progress);
        }
    }

    fn cells(&self) -> &[AtomicU8] {
        self.values.atomic_u8()
    }

    /// The value of a board in a solved level, or in level `n` once solved.
    #[inline]
    fn stored(&self, board: Board) -> Option<i32> {
        match self.cells()[self.indexer.index(board) as usize].load(Relaxed) {
            UNSOLVED => None,
            v => Some(v as i8 as i32),
        }
    }

    // ----- counter-clockwise -----

    fn build_level_sweep(&self, n: u32, progress: &dyn Progress) {
        // Blocks m and n - m only ever need each other (and lower levels):
        // the pairs are independent, and the threads share them out, the
        // largest first.
        let mut pairs: Vec<u32> = (0..=n / 2).collect();
        pairs.sort_by_key(|&m| std::cmp::Reverse(self.indexer.side_len(m) * self.indexer.side_len(n - m)));
        pairs.into_par_iter().for_each(|m| {
            if 2 * m == n {
                self.sweep_block(n, m, progress);
            } else {
                self.sweep_pair(n, m, progress);
            }
        });
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
    fn sweep_pair(&self, n: u32, m: u32, progress: &dyn Progress) {
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
    }

    /// Solves block `m` of level `n = 2m` in index order, solving a
    /// same-level successor not reached yet on the spot.
    fn sweep_block(&self, n: u32, m: u32, progress: &dyn Progress) {
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
                kernel::Successor::Lookup { index, gain, same_mover, board } => (index, board, gain, same_mover),
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

    fn build_level_retrograde(&self, n: u32, progress: &dyn Progress) {
        let start = self.indexer.level_start(n);
        let len = self.indexer.level_len(n);
        assert!(len < u32::MAX as u64, "a level of {len} boards is too large for the retrograde solver");

        // Pass 1: every board's best exit and its moves inside the level.
        let none = i32::MIN;
        let exits: Vec<i32>;
        let out_degree: Vec<u32>;
        let in_degree: Vec<AtomicU32> = (0..len).map(|_| AtomicU32::new(0)).collect();
        {
            let per_board: Vec<(i32, u32)> = (0..len as usize)
                .into_par_iter()
                .with_min_len(CHUNK as usize)
                .map_init(
                    || Cursor::new(&self.indexer, n, 0),
                    |cursor, i| {
                        cursor.seek(i as u64);
                        let board = cursor.board();
                        if let Some(v) = self.engine.terminal_value(board) {
                            return (v, 0);
                        }
                        let mut best = none;
                        let mut inside = 0;
                        for house in self.engine.moves(board) {
                            let o = self.engine.play(board, house);
                            match o.next {
                                Next::Over => best = best.max(o.gain()),
                                _ if o.board.total() < n => {
                                    let v = self.stored(o.board).expect("lower levels are solved");
                                    best = best.max(o.value_with(v));
                                }
                                _ => {
                                    debug_assert_eq!(o.next, Next::Opponent, "a move inside a level passes the turn");
                                    debug_assert_eq!(o.gain(), 0);
                                    let c = self.indexer.index(o.board) - start;
                                    in_degree[c as usize].fetch_add(1, Relaxed);
                                    inside += 1;
                                }
                            }
                        }
                        (best, inside)
                    },
                )
                .collect();
            exits = per_board.iter().map(|&(e, _)| e).collect();
            out_degree = per_board.iter().map(|&(_, d)| d).collect();
        }

        // Pass 2: the reversed graph (predecessors of each board) as CSR.
        let mut offsets = Vec::with_capacity(len as usize + 1);
        let mut total = 0u64;
        for d in &in_degree {
            offsets.push(total);
            total += d.load(Relaxed) as u64;
        }
        offsets.push(total);
        let fill: Vec<AtomicU32> = (0..len).map(|_| AtomicU32::new(0)).collect();
        let preds: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
        (0..len as usize)
            .into_par_iter()
            .with_min_len(CHUNK as usize)
            .for_each_init(
                || Cursor::new(&self.indexer, n, 0),
                |cursor, i| {
                    if out_degree[i] == 0 {
                        return;
                    }
                    cursor.seek(i as u64);
                    let board = cursor.board();
                    for house in self.engine.moves(board) {
                        let o = self.engine.play(board, house);
                        if o.next != Next::Over && o.board.total() == n {
                            let c = (self.indexer.index(o.board) - start) as usize;
                            let slot = offsets[c] + fill[c].fetch_add(1, Relaxed) as u64;
                            preds[slot as usize].store(i as u32, Relaxed);
                        }
                    }
                },
            );
        drop(fill);
        let preds: Vec<u32> = preds.into_iter().map(AtomicU32::into_inner).collect();

        // Pass 3: thresholds from n down to 1, growing W_s and L_s.
        // value[p]: 0 while undecided; +s when p joined W_s; -s when it joined L_s.
        let mut value = vec![0i32; len as usize];
        let mut decided = vec![false; len as usize];
        // Moves of p not (yet) known to lead into W.
        let mut not_winning: Vec<u32> = out_degree;
        // Boards by their best exit, to find new members at each threshold.
        let mut by_exit: Vec<Vec<u32>> = vec![Vec::new(); 2 * n as usize + 1];
        for (p, &e) in exits.iter().enumerate() {
            if e != none {
                by_exit[(e + n as i32) as usize].push(p as u32);
            }
        }
        let mut queue: Vec<u32> = Vec::new();
        for s in (1..=n as i32).rev() {
            // Exits worth >= s: W. (Exactly s now; larger ones joined earlier.)
            for &p in &by_exit[(s + n as i32) as usize] {
                if !decided[p as usize] {
                    decided[p as usize] = true;
                    value[p as usize] = s;
                    queue.push(p);
                }
            }
            // Best exit exactly -s and every inside move already into W: L.
            for &p in &by_exit[(n as i32 - s) as usize] {
                if !decided[p as usize] && not_winning[p as usize] == 0 {
                    decided[p as usize] = true;
                    value[p as usize] = -s;
                    queue.push(p);
                }
            }
            while let Some(c) = queue.pop() {
                let c_value = value[c as usize];
                let range = offsets[c as usize] as usize..offsets[c as usize + 1] as usize;
                for &p in &preds[range] {
                    let p = p as usize;
                    if c_value > 0 {
                        // c in W_s: one fewer move of p escapes W.
                        not_winning[p] -= 1;
                        if !decided[p] && not_winning[p] == 0 && exits[p] != none && exits[p] <= -s {
                            decided[p] = true;
                            value[p] = -s;
                            queue.push(p as u32);
                        } else if !decided[p] && not_winning[p] == 0 && exits[p] == none {
                            // No exit at all and every move leads into W.
                            decided[p] = true;
                            value[p] = -s;
                            queue.push(p as u32);
                        }
                    } else if !decided[p] {
                        // c in L_s: p moves there and is worth at least s.
                        decided[p] = true;
                        value[p] = s;
                        queue.push(p as u32);
                    }
                }
            }
        }

        let cells = &self.cells()[start as usize..(start + len) as usize];
        cells.par_iter().zip(value.par_iter()).for_each(|(cell, &v)| cell.store(v as i8 as u8, Relaxed));
        progress.advance(n, len);
    }
}

/// The extra memory the retrograde solver (clockwise sowing) needs while it
/// solves the largest level of a build up to `max_seeds`: per board of the
/// level its best exit, move counts, reversed-graph offsets and working
/// state (about 48 bytes), and 4 bytes per move inside the level.
pub fn retrograde_working_set(h: usize, max_seeds: u32) -> u64 {
    kalah_core::boards_with(h, max_seeds) * (48 + 4 * h as u64)
}

/// Refuses databases that one-byte values or the index cannot hold.
pub fn check_size(h: usize, max_seeds: u32) -> Result<(), DbError> {
    if !(1..=kalah_core::MAX_HOUSES).contains(&h) {
        return Err(DbError::Unsupported(format!(
            "{h} houses a side (1 to {} are supported)",
            kalah_core::MAX_HOUSES
        )));
    }
    let max = MAX_SEEDS.min(kalah_core::max_board_seeds(h));
    if max_seeds > max {
        return Err(DbError::Unsupported(format!(
            "{max_seeds} seeds (one-byte values hold databases of at most {max} seeds)"
        )));
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
    fn value(&self, board: Board) -> i32 {
        self.cells()[self.indexer.index(board) as usize].load(Relaxed) as i8 as i32
    }

    #[inline]
    fn prefetch(&self, board: Board) {
        crate::memory::prefetch(&self.cells()[self.indexer.index(board) as usize]);
    }
}

/// One side's houses with what the kernel precomputes for them, as the
/// mover's side (its moves) and as the opponent's (its half ranks).
struct Side {
    info: kernel::SideInfo,
    moves: [kernel::SideMove; kalah_core::MAX_HOUSES],
    count: usize,
}

impl Side {
    fn new(indexer: &Indexer, word: u64) -> Side {
        let mut moves = [kernel::SideMove {
            house: 0,
            landing: kernel::Landing::General,
            after: 0,
            after_seeds: 0,
            after_rank: 0,
            captured_rank: 0,
        }; kalah_core::MAX_HOUSES];
        let count = kernel::side_moves(indexer, word, &mut moves);
        Side {
            info: kernel::SideInfo::new(indexer, word),
            moves,
            count,
        }
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
        let mut c = Cursor {
            indexer,
            n,
            m: 0,
            mover: [0; kalah_core::MAX_HOUSES],
            opponent: [0; kalah_core::MAX_HOUSES],
            at: u64::MAX,
        };
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

    #[test]
    fn sizes_beyond_one_byte_values_are_refused() {
        assert!(check_size(6, 127).is_ok());
        let e = check_size(6, 128).unwrap_err().to_string();
        assert!(e.contains("128 seeds"), "{e}");
        assert!(check_size(9, 4).is_err());
    }
}
