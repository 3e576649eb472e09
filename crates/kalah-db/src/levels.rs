//! Building a database file one level at a time, against the levels below
//! read back from the file: a build holds one level in memory (a byte a
//! board) and as many of the levels below as fit, not every level.
//!
//! [`crate::builder`] holds every level at once, a byte a board: 32 seeds
//! of six houses take 19.7 GiB, and 34 seeds would take 36.2. A level of
//! `n` seeds (counter-clockwise sowing, `Rules::may_cycle` false) only
//! needs its own boards and the levels below: a move within the level, a
//! seed into a store (the level below), a capture (any level lower). So
//! this builder solves level `n` with its boards in memory and reads the
//! levels below from the file it is writing (exact values: a byte a board
//! or packed), as many of them at a time as `memory` allows:
//!
//! 1. The levels below are split into groups, the highest first, each as
//!    large as fits beside the level (`plan_groups`).
//! 2. For every group but the highest, a pass over the level folds the
//!    moves that lead into the group into each board's best value so far:
//!    a board's value is the best of its moves' values, whatever the order
//!    they are met in.
//! 3. A last pass, with the highest group loaded, folds the rest: the moves
//!    into that group, the moves that end the game, and the moves within
//!    the level, solved first where they are not yet (memoised recursion,
//!    as [`crate::builder`] does: it ends because the seeds' distance to
//!    their stores drops along such moves).
//!
//! A cell of the level is a byte:
//!
//! ```text
//!   bit  7        6 .. 0
//!      solved    the best value found so far, 7-bit two's complement
//!                (-64: none yet; values lie within -63..=63)
//! ```
//!
//! When every board is solved the level is written (its values, block
//! checksums, the header counting it) and synced before the next one
//! starts: a killed build resumes at the level it was in. Every level read
//! back is checked against its block checksums as it is loaded.
//!
//! Each pass reads a group's levels at random, and the highest group holds
//! the level just below, which most moves lead to; the passes over lower
//! groups cost move generation and a lookup for the few moves that
//! capture. BENCHMARKS.md gives the time and the peak memory of the
//! 34-seed build this was written for.

use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::time::Instant;

use kalah_core::{Board, Engine, Indexer, Next, Rules};
use rayon::prelude::*;

use crate::builder::{check_size, Side};
use crate::error::DbError;
use crate::format::{blocks, level_block_sums, level_checksum, read_code, Encoding, Header};
use crate::kernel::{self, Successor};
use crate::memory::{FrozenBuffer, LargeBuffer};
use crate::writer::{read_at, write_at, write_level_values, BuildProgress, BuildReport};

/// A cell's solved bit.
const SOLVED: u8 = 0x80;
/// A cell with no move folded in yet: not solved, best so far -64.
const NONE: u8 = 0x40;
/// Columns (the mover's sides) precomputed together.
const TILE: u64 = 256;
/// Rows between looks at [`crate::Progress::stopped`].
const STOP_ROWS: u64 = 1024;
/// Memory left for everything else a build holds (the checksum tables, the
/// threads' stacks, the writer's pieces); a page in unit tests, so that
/// small databases are built in many groups.
const SLACK: u64 = if cfg!(test) { 4096 } else { 256 << 20 };

/// The most seeds a build by levels takes: a cell holds values of 7 bits.
pub const MAX_SEEDS: u32 = 63;

/// The best value so far in a cell.
#[inline]
fn best_of(cell: u8) -> i32 {
    ((cell << 1) as i8 >> 1) as i32
}

/// A cell holding `v` as the best so far, solved or not.
#[inline]
fn cell_of(v: i32, solved: bool) -> u8 {
    (v as u8 & 0x7f) | if solved { SOLVED } else { 0 }
}

/// Whether the levels of `rules` can be built one at a time: no level
/// depends on itself in a cycle (counter-clockwise sowing without relay).
pub fn supports(rules: Rules) -> bool {
    !rules.may_cycle()
}

/// The least memory a build of `h` houses and up to `max_seeds` seeds by
/// levels needs: its largest level a byte a board, beside the packed level
/// below it (in `encoding`), and the slack.
pub fn least_memory(h: usize, max_seeds: u32, encoding: Encoding) -> u64 {
    let indexer = Indexer::new(h, max_seeds);
    (0..=max_seeds)
        .map(|n| indexer.level_len(n) + n.checked_sub(1).map_or(0, |below| encoding.value_bytes(below, indexer.level_len(below))))
        .max()
        .unwrap_or(0)
        + SLACK
}

/// The groups of the levels below `n` (highest first), each of them
/// loaded together: as many levels as fit in `memory` beside level `n`'s
/// cells. `Err(bytes)`: the level below does not fit, and needs `bytes`.
fn plan_groups(indexer: &Indexer, encoding: Encoding, n: u32, memory: u64) -> Result<Vec<std::ops::RangeInclusive<u32>>, u64> {
    let room = memory.saturating_sub(indexer.level_len(n) + SLACK);
    let mut groups = Vec::new();
    let mut top = match n.checked_sub(1) {
        Some(below) => below,
        None => return Ok(groups),
    };
    loop {
        let mut bottom = top;
        let mut bytes = encoding.value_bytes(top, indexer.level_len(top));
        if bytes > room {
            return Err(bytes + indexer.level_len(n) + SLACK);
        }
        while bottom > 0 {
            let more = encoding.value_bytes(bottom - 1, indexer.level_len(bottom - 1));
            if bytes + more > room {
                break;
            }
            bytes += more;
            bottom -= 1;
        }
        groups.push(bottom..=top);
        if bottom == 0 {
            return Ok(groups);
        }
        top = bottom - 1;
    }
}

/// Levels of a file loaded into memory, their values read in the file's
/// encoding.
struct Loaded {
    encoding: Encoding,
    /// By level: its bytes, if loaded.
    levels: Vec<Option<FrozenBuffer>>,
}

impl Loaded {
    /// Reads `group`'s levels of `header` from `file`, checking each
    /// block against its checksum.
    fn read(file: &mut File, path: &Path, header: &Header, group: std::ops::RangeInclusive<u32>) -> Result<Loaded, DbError> {
        let mut levels: Vec<Option<FrozenBuffer>> = (0..=header.max_seeds).map(|_| None).collect();
        for n in group {
            let e = header.levels[n as usize];
            let bytes = header.value_bytes(n, &e);
            let mut buffer = LargeBuffer::zeroed(bytes as usize).map_err(|why| DbError::Memory { needed: bytes, why: why.to_string() })?;
            read_at(file, path, e.offset, buffer.bytes())?;
            let sums = level_block_sums(header.encoding, n, buffer.bytes());
            let mut stored = vec![0u8; 8 * blocks(e.boards) as usize];
            read_at(file, path, e.sums_offset, &mut stored)?;
            if sums != stored || level_checksum(&sums) != e.checksum {
                return Err(DbError::corrupt(
                    path,
                    format!("level {n}: its values do not match their checksums (the partial file is damaged; remove it and build again)"),
                ));
            }
            levels[n as usize] = Some(buffer.freeze());
        }
        Ok(Loaded { encoding: header.encoding, levels })
    }

    /// Whether level `n` is loaded.
    #[inline]
    fn has(&self, n: u32) -> bool {
        self.levels.get(n as usize).is_some_and(Option::is_some)
    }

    /// The bytes of level `n`, loaded.
    #[inline]
    fn bytes(&self, n: u32) -> &[u8] {
        self.levels[n as usize].as_ref().expect("a level of the group").bytes()
    }

    /// Starts fetching the value of board `i` of level `n`.
    #[inline]
    fn prefetch(&self, n: u32, i: u64) {
        let at = i * self.encoding.bits(n) as u64 / 8;
        crate::memory::prefetch(&self.bytes(n)[at as usize]);
    }

    /// The value of board `i` of level `n`.
    #[inline]
    fn value(&self, n: u32, i: u64) -> i32 {
        match self.encoding {
            Encoding::Byte => self.bytes(n)[i as usize] as i8 as i32,
            packed => packed.value_of(n, read_code(self.bytes(n), i, packed.bits(n))),
        }
    }
}

/// One pass over level `n`: its cells, and the group of levels below whose
/// moves it folds in (the last pass also folds moves within the level and
/// solves every board).
struct Pass<'a> {
    engine: &'a Engine,
    indexer: &'a Indexer,
    n: u32,
    cells: &'a [AtomicU8],
    loaded: &'a Loaded,
    /// The kernel's per-side work applies (counter-clockwise, no relay).
    fast: bool,
    last: bool,
}

/// A move whose value is read later, once its fetch has started: the
/// child's level, its index there, its board, the gain, and whether the
/// mover moves again.
#[derive(Clone, Copy)]
struct Pending {
    level: u32,
    index: u64,
    board: Board,
    gain: i32,
    same_mover: bool,
}

impl Pass<'_> {
    /// Whether this pass folds a move into level `level`.
    #[inline]
    fn folds(&self, level: u32) -> bool {
        if level == self.n {
            self.last
        } else {
            self.loaded.has(level)
        }
    }

    /// The value of board `i` of level `level` (this level: solved first
    /// if it is not yet; `board` is the board).
    #[inline]
    fn value(&self, level: u32, i: u64, board: Board) -> i32 {
        if level < self.n {
            return self.loaded.value(level, i);
        }
        let cell = self.cells[i as usize].load(Relaxed);
        if cell & SOLVED != 0 {
            return best_of(cell);
        }
        let v = self.solve_general(board, cell);
        self.cells[i as usize].store(cell_of(v, true), Relaxed);
        v
    }

    #[inline]
    fn prefetch(&self, level: u32, i: u64) {
        if level < self.n {
            self.loaded.prefetch(level, i);
        } else {
            crate::memory::prefetch(&self.cells[i as usize]);
        }
    }

    /// The best of `best` and the values of the `pending` moves.
    #[inline]
    fn fold(&self, mut best: i32, pending: &[Pending]) -> i32 {
        for p in pending {
            self.prefetch(p.level, p.index);
        }
        for p in pending {
            let v = self.value(p.level, p.index, p.board);
            best = best.max(if p.same_mover { p.gain + v } else { p.gain - v });
        }
        best
    }

    /// A move played by the engine, as a pending read or (the game over,
    /// or a level this pass does not fold) a value or nothing.
    #[inline]
    fn played(&self, board: Board, house: usize, best: &mut i32, pending: &mut [Pending; kalah_core::MAX_HOUSES], count: &mut usize) {
        let o = self.engine.play(board, house);
        if o.next == Next::Over {
            *best = (*best).max(o.gain());
            return;
        }
        let level = o.board.total();
        if self.folds(level) {
            let index = self.indexer.index(o.board) - self.indexer.level_start(level);
            pending[*count] = Pending { level, index, board: o.board, gain: o.gain(), same_mover: o.next == Next::Mover };
            *count += 1;
        }
    }

    /// The best of the value `board` of this level holds so far (`cell`)
    /// and of its moves this pass folds (the last pass: every move left).
    fn solve_general(&self, board: Board, cell: u8) -> i32 {
        if let Some(v) = self.engine.terminal_value(board) {
            return v;
        }
        let mut best = best_of(cell);
        let mut pending = [Pending { level: 0, index: 0, board: Board::EMPTY, gain: 0, same_mover: false }; kalah_core::MAX_HOUSES];
        let mut count = 0;
        for house in self.engine.moves(board) {
            self.played(board, house, &mut best, &mut pending, &mut count);
        }
        self.fold(best, &pending[..count])
    }

    /// The best of the cell's value so far (`cell`) and the moves this
    /// pass folds, of the board `(mover, opponent)`, through the kernel.
    #[inline]
    fn board_value(&self, mover: &Side, opponent: &Side, cell: u8) -> i32 {
        let board = Board::from_words(mover.info.word, opponent.info.word);
        if !self.fast {
            return self.solve_general(board, cell);
        }
        if let Some(v) = self.engine.terminal_value(board) {
            return v;
        }
        let capture = self.engine.rules().capture;
        let mut best = best_of(cell);
        let mut pending = [Pending { level: 0, index: 0, board: Board::EMPTY, gain: 0, same_mover: false }; kalah_core::MAX_HOUSES];
        let mut count = 0;
        for mv in &mover.moves[..mover.count] {
            match kernel::successor(self.engine, self.indexer, capture, self.n, mv, &opponent.info) {
                Successor::Value(v) => best = best.max(v),
                Successor::Lookup { index, level, gain, same_mover, board } => {
                    if self.folds(level) {
                        let index = index - self.indexer.level_start(level);
                        pending[count] = Pending { level, index, board, gain, same_mover };
                        count += 1;
                    }
                }
                Successor::General => self.played(board, mv.house as usize, &mut best, &mut pending, &mut count),
            }
        }
        self.fold(best, &pending[..count])
    }

    /// The pass over the whole level; false if `progress` said to stop
    /// first. A pass that only folds a group below takes the level in work
    /// items of one block (the mover's seeds) and a tile of its columns, in
    /// any order. The last pass takes blocks `m` and `n - m` together, in
    /// the order of [`crate::builder`]'s sweep, where a move within the
    /// level finds the board it leads to solved already (else it would be
    /// solved on the spot through the general engine, several times slower).
    fn run(&self, progress: &dyn BuildProgress, share: u64) -> bool {
        let (n, indexer) = (self.n, self.indexer);
        if self.last {
            let mut units: Vec<u32> = (0..=n / 2).collect();
            units.sort_by_key(|&m| std::cmp::Reverse(indexer.side_len(m) * indexer.side_len(n - m)));
            return units.into_par_iter().with_max_len(1).all(|m| {
                if 2 * m == n {
                    (0..indexer.side_len(m).div_ceil(TILE)).all(|t| self.tile(m, t * TILE, progress, share))
                } else {
                    self.pair(m, progress, share)
                }
            });
        }
        let items: Vec<(u32, u64)> = (0..=n).flat_map(|m| (0..indexer.side_len(m).div_ceil(TILE)).map(move |t| (m, t * TILE))).collect();
        items.into_par_iter().with_max_len(1).all(|(m, c0)| self.tile(m, c0, progress, share))
    }

    /// The sides of `seeds` seeds from rank `from` to `to`, each with what
    /// the kernel precomputes.
    fn sides(&self, seeds: u32, from: u64, to: u64) -> Vec<Side> {
        let h = self.indexer.houses();
        let mut side = [0u8; kalah_core::MAX_HOUSES];
        kalah_core::rank::first_side(&mut side[..h], seeds as u8);
        for _ in 0..from {
            kalah_core::rank::next_side(&mut side[..h]);
        }
        (from..to)
            .map(|_| {
                let s = Side::new(self.indexer, u64::from_le_bytes(side));
                kalah_core::rank::next_side(&mut side[..h]);
                s
            })
            .collect()
    }

    /// Solves (or folds into) the cell at `i` of the board `(mover, opponent)`.
    #[inline]
    fn visit(&self, i: u64, mover: &Side, opponent: &Side) {
        let cell = &self.cells[i as usize];
        let before = cell.load(Relaxed);
        if before & SOLVED == 0 {
            let v = self.board_value(mover, opponent, before);
            cell.store(cell_of(v, self.last), Relaxed);
        }
    }

    /// The boards of block `m` whose mover's sides are the tile of ranks
    /// from `c0`, every opponent's side in turn; false if told to stop.
    fn tile(&self, m: u32, c0: u64, progress: &dyn BuildProgress, share: u64) -> bool {
        let (n, indexer) = (self.n, self.indexer);
        let h = indexer.houses();
        let (columns, rows) = (indexer.side_len(m), indexer.side_len(n - m));
        let c1 = (c0 + TILE).min(columns);
        let base = indexer.block_start(n, m);
        let tile = self.sides(m, c0, c1);
        let mut opponent = [0u8; kalah_core::MAX_HOUSES];
        kalah_core::rank::first_side(&mut opponent[..h], (n - m) as u8);
        for row in 0..rows {
            if row % STOP_ROWS == 0 && progress.stopped() {
                return false;
            }
            let o_side = Side::new(indexer, u64::from_le_bytes(opponent));
            for (t, mover) in tile.iter().enumerate() {
                self.visit(base + row * columns + c0 + t as u64, mover, &o_side);
            }
            kalah_core::rank::next_side(&mut opponent[..h]);
        }
        progress.advance(n, (c1 - c0) * rows / share);
        true
    }

    /// Blocks `m` and `k = n - m` (`m < k`) together: with `A_a` the sides
    /// of `m` seeds and `B_b` those of `k`, `P = (mover A_a, opponent B_b)`
    /// and `Q = (mover B_b, opponent A_a)` for `a` in tiles, then `b`, then
    /// `a` within the tile. A move of `P` within the level leads to a `Q`
    /// of an earlier `a`, one of `Q` to a `P` of the same `a` and an earlier
    /// `b` ([`crate::builder`]), solved by then. False if told to stop.
    fn pair(&self, m: u32, progress: &dyn BuildProgress, share: u64) -> bool {
        let (n, indexer) = (self.n, self.indexer);
        let h = indexer.houses();
        let k = n - m;
        let (da, db) = (indexer.side_len(m), indexer.side_len(k));
        let (base_p, base_q) = (indexer.block_start(n, m), indexer.block_start(n, k));
        let mut a0 = 0;
        while a0 < da {
            let a1 = (a0 + TILE).min(da);
            let tile = self.sides(m, a0, a1);
            let mut b_side = [0u8; kalah_core::MAX_HOUSES];
            kalah_core::rank::first_side(&mut b_side[..h], k as u8);
            for b in 0..db {
                if b % STOP_ROWS == 0 && progress.stopped() {
                    return false;
                }
                let b_info = Side::new(indexer, u64::from_le_bytes(b_side));
                for (t, a_info) in tile.iter().enumerate() {
                    let a = a0 + t as u64;
                    self.visit(base_p + b * da + a, a_info, &b_info);
                    self.visit(base_q + a * db + b, &b_info, a_info);
                }
                kalah_core::rank::next_side(&mut b_side[..h]);
            }
            progress.advance(n, 2 * (a1 - a0) * db / share);
            a0 = a1;
        }
        true
    }
}

/// Builds (or finishes building) the database of `h` houses, `rules`
/// (which [`supports`]) and up to `max_seeds` seeds into `path` in
/// `encoding` (an exact one), one level at a time within `memory` bytes;
/// see the module docs. Resumes the partial file of the same database, as
/// [`crate::build_file_encoded`] does; a build that `progress` tells to
/// stop ends with [`DbError::Stopped`], the levels written kept.
pub fn build_file_by_levels(
    path: &Path,
    h: usize,
    rules: Rules,
    max_seeds: u32,
    encoding: Encoding,
    memory: u64,
    progress: &dyn BuildProgress,
) -> Result<BuildReport, DbError> {
    check_size(h, max_seeds)?;
    if !supports(rules) || !encoding.is_exact() || max_seeds > MAX_SEEDS {
        return Err(DbError::Unsupported(format!(
            "a build one level at a time of {rules}, {max_seeds} seeds, in the {} encoding: it needs counter-clockwise sowing without relay, an exact encoding and at most {MAX_SEEDS} seeds",
            encoding.name()
        )));
    }
    let least = least_memory(h, max_seeds, encoding);
    if least > memory {
        return Err(DbError::too_large(
            format!("memory for the largest level of a {h}-house, {max_seeds}-seed database beside the level below it"),
            least,
            memory,
        ));
    }
    let indexer = Indexer::new(h, max_seeds);
    let engine = Engine::new(h, rules);
    let mut header = Header::encoded(h, max_seeds, rules, encoding);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| DbError::io(dir, e))?;
    }
    let (mut file, partial) = crate::safe::open_partial(path)?;
    let resumed = crate::writer::resume_checked(&mut file, &partial, &mut header)?;
    if resumed > 0 {
        progress.resumed(resumed);
    } else {
        file.set_len(0).map_err(|e| DbError::io(&partial, e))?;
        write_at(&mut file, &partial, 0, &header.encode())?;
    }
    let fast = rules.sowing == kalah_core::Sowing::Ccw && rules.relay == kalah_core::Relay::Off;
    let mut level_seconds = Vec::new();
    for n in resumed..=max_seeds {
        let boards = indexer.level_len(n);
        progress.level_started(n, boards);
        let start = Instant::now();
        let groups = plan_groups(&indexer, encoding, n, memory)
            .map_err(|needed| DbError::too_large(format!("memory for level {n} beside level {}", n.saturating_sub(1)), needed, memory))?;
        let mut cells = LargeBuffer::zeroed(boards as usize).map_err(|why| DbError::Memory { needed: boards, why: why.to_string() })?;
        cells.bytes().par_chunks_mut(1 << 20).for_each(|c| c.fill(NONE));
        // The lower groups first, the highest (with the level below) last.
        let passes = groups.len().max(1) as u64;
        let mut order: Vec<Option<std::ops::RangeInclusive<u32>>> = groups.iter().skip(1).rev().cloned().map(Some).collect();
        order.push(groups.first().cloned());
        for (k, group) in order.into_iter().enumerate() {
            let loaded = match group {
                Some(g) => Loaded::read(&mut file, &partial, &header, g)?,
                None => Loaded { encoding, levels: Vec::new() },
            };
            let pass = Pass { engine: &engine, indexer: &indexer, n, cells: cells.atomic_u8(), loaded: &loaded, fast, last: k as u64 + 1 == passes };
            if !pass.run(progress, passes) {
                return Err(DbError::Stopped { path: path.to_path_buf(), levels: n, total: max_seeds + 1 });
            }
        }
        // Every cell solved: the values as signed bytes, in place.
        let values = cells.bytes();
        values.par_chunks_mut(1 << 20).for_each(|c| {
            for v in c {
                debug_assert!(*v & SOLVED != 0, "a board of level {n} left unsolved");
                *v = best_of(*v) as i8 as u8;
            }
        });
        write_level_values(&mut file, &partial, &mut header, &indexer, n, values, true)?;
        let seconds = start.elapsed().as_secs_f64();
        level_seconds.push((n, seconds));
        progress.level_finished(n, seconds);
    }
    let bytes = crate::writer::finish(file, &partial, path, &mut header, &indexer)?;
    Ok(BuildReport { path: path.to_path_buf(), bytes, resumed_levels: resumed, level_seconds })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_hold_seven_bit_values_and_the_solved_bit() {
        for v in -63..=63 {
            for solved in [false, true] {
                let c = cell_of(v, solved);
                assert_eq!((best_of(c), c & SOLVED != 0), (v, solved));
            }
        }
        assert_eq!((best_of(NONE), NONE & SOLVED), (-64, 0));
    }

    #[test]
    fn groups_cover_the_levels_below_highest_first_within_the_memory() {
        let ix = Indexer::new(6, 34);
        let e = Encoding::Share;
        let level = |n: u32| e.value_bytes(n, ix.level_len(n));
        for memory in [24u64 << 30, 20 << 30, 16 << 30] {
            let groups = plan_groups(&ix, e, 34, memory).unwrap();
            assert_eq!(*groups[0].end(), 33);
            assert_eq!(*groups.last().unwrap().start(), 0);
            for pair in groups.windows(2) {
                assert_eq!(*pair[0].start(), pair[1].end() + 1);
            }
            for g in &groups {
                let bytes: u64 = g.clone().map(level).sum();
                assert!(bytes + ix.level_len(34) + SLACK <= memory, "{g:?}");
            }
        }
        // 20 GiB: level 34 (10.2 GB) beside levels 32-33, then the rest.
        assert_eq!(plan_groups(&ix, e, 34, 20 << 30).unwrap(), [32..=33, 0..=31]);
        // Too little for level 34 beside 33.
        assert!(plan_groups(&ix, e, 34, 14 << 30).is_err());
        assert_eq!(plan_groups(&ix, e, 0, 1 << 20).unwrap(), []);
    }

    /// A build by levels in the least memory (many groups for the top
    /// levels) writes the bytes of a build of every level in memory, for
    /// every rule set it takes and every exact encoding.
    #[test]
    fn a_build_by_levels_writes_the_bytes_of_a_build_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        for (r, rules) in Rules::all().filter(|&r| supports(r)).enumerate() {
            let (h, n) = (3, 12);
            for encoding in [Encoding::Byte, Encoding::packed_for(rules)] {
                let whole = dir.path().join(format!("whole{r}-{}.kdb", encoding.name()));
                crate::build_file_encoded(&whole, h, rules, n, encoding, &crate::Quiet).unwrap();
                let memory = least_memory(h, n, encoding);
                let ix = Indexer::new(h, n);
                assert!(plan_groups(&ix, encoding, n, memory).unwrap().len() >= 3, "{rules}: many groups");
                let by_levels = dir.path().join(format!("levels{r}-{}.kdb", encoding.name()));
                build_file_by_levels(&by_levels, h, rules, n, encoding, memory, &crate::Quiet).unwrap();
                assert!(std::fs::read(&whole).unwrap() == std::fs::read(&by_levels).unwrap(), "{rules}, {}", encoding.name());
            }
        }
    }

    /// A build started from a smaller database's levels goes on from them
    /// to the bytes of a build from nothing, by levels or in a window.
    #[test]
    fn a_build_started_from_a_smaller_database_ends_as_one_from_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Rules { capture: kalah_core::Capture::Empty, ..Rules::default() };
        let (h, encoding) = (4, Encoding::Share);
        let small = dir.path().join("small.kdb");
        crate::build_file_encoded(&small, h, rules, 9, encoding, &crate::Quiet).unwrap();
        let small = crate::Database::open(&small).unwrap();
        let whole = dir.path().join("whole.kdb");
        crate::build_file_encoded(&whole, h, rules, 13, encoding, &crate::Quiet).unwrap();
        let path = dir.path().join("levels.kdb");
        assert_eq!(crate::build::start_from(&small, &path, 13, encoding).unwrap(), 10);
        assert_eq!(crate::build::start_from(&small, &path, 13, encoding).unwrap(), 0, "a partial file is there already");
        let report = build_file_by_levels(&path, h, rules, 13, encoding, least_memory(h, 13, encoding), &crate::Quiet).unwrap();
        assert_eq!(report.resumed_levels, 10);
        assert!(std::fs::read(&whole).unwrap() == std::fs::read(&path).unwrap());
        // In a window, from the same levels.
        let window = dir.path().join("window.kdb");
        assert_eq!(crate::build::start_from(&small, &window, 13, Encoding::Window(3)).unwrap(), 10);
        crate::build_file_encoded(&window, h, rules, 13, Encoding::Window(3), &crate::Quiet).unwrap();
        let again = dir.path().join("again.kdb");
        crate::writer::reencode(&crate::Database::open(&whole).unwrap(), &again, Encoding::Window(3), &|_| {}).unwrap();
        assert!(std::fs::read(&window).unwrap() == std::fs::read(&again).unwrap());
        // Not from a file of as many seeds, nor of another encoding.
        assert!(crate::build::start_from(&small, &dir.path().join("x.kdb"), 9, encoding).is_err());
        assert!(crate::build::start_from(&small, &dir.path().join("x.kdb"), 13, Encoding::Byte).is_err());
    }

    /// Stops once this many levels are finished: the levels written are
    /// kept, and the build goes on from them to the same bytes; a damaged
    /// level is built again.
    struct StopAfter(u32, std::sync::atomic::AtomicU32);

    impl crate::Progress for StopAfter {
        fn advance(&self, _: u32, _: u64) {}
        fn stopped(&self) -> bool {
            self.1.load(Relaxed) >= self.0
        }
    }

    impl BuildProgress for StopAfter {
        fn resumed(&self, _: u32) {}
        fn level_started(&self, _: u32, _: u64) {}
        fn level_finished(&self, _: u32, _: f64) {
            self.1.fetch_add(1, Relaxed);
        }
    }

    #[test]
    fn a_stopped_build_by_levels_resumes_to_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Rules::default();
        let (h, n, encoding) = (4, 13, Encoding::Share);
        let memory = least_memory(h, n, encoding);
        let whole = dir.path().join("whole.kdb");
        crate::build_file_encoded(&whole, h, rules, n, encoding, &crate::Quiet).unwrap();
        let path = dir.path().join("levels.kdb");
        let stop = StopAfter(9, std::sync::atomic::AtomicU32::new(0));
        let e = build_file_by_levels(&path, h, rules, n, encoding, memory, &stop).unwrap_err();
        let DbError::Stopped { levels, .. } = e else { panic!("{e}") };
        assert_eq!(levels, 9, "stopped in level 9");
        assert!(!path.exists());
        // Damage a level kept: it and those above it are built again.
        let partial = crate::safe::partial_path(&path);
        let mut bytes = std::fs::read(&partial).unwrap();
        let header = Header::decode(&bytes).unwrap();
        bytes[header.levels[levels as usize - 1].offset as usize] ^= 1;
        std::fs::write(&partial, &bytes).unwrap();
        build_file_by_levels(&path, h, rules, n, encoding, memory, &crate::Quiet).unwrap();
        assert!(std::fs::read(&whole).unwrap() == std::fs::read(&path).unwrap());
        // Too little memory is refused up front, with what it needs.
        let e = build_file_by_levels(&dir.path().join("small.kdb"), h, rules, n, encoding, memory - 1, &crate::Quiet).unwrap_err();
        assert!(matches!(e, DbError::TooLarge { needed, .. } if needed == memory), "{e}");
    }
}
