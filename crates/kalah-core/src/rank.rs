//! A dense rank of every board with up to `N` seeds, and its inverse.
//!
//! Endgame databases store one value per board (seen from the player to
//! move). This module numbers the boards of `h` houses a side with at most
//! `N` seeds in the houses `0, 1, .., C(N + 2h, 2h) - 1`, with no gaps.
//!
//! # The order
//!
//! ```text
//! index = level_start[n]           boards with fewer than n seeds
//!       + block_start[n][m]        boards with n seeds of which the mover has fewer than m
//!       + row(opponent) * D(m)     D(m): the distributions of m seeds over h houses
//!       + column(mover)
//! ```
//!
//! 1. **Levels**: by `n`, the seeds on the board. Counter-clockwise, no move
//!    adds seeds to the houses, so a database is built level by level and a
//!    level only ever looks at itself and the levels below it.
//! 2. **Blocks**: within a level, by `m`, the mover's seeds.
//! 3. **Rows and columns**: within a block, the opponent's houses pick the
//!    row and the mover's houses the column; both sides are ranked by the
//!    same *half rank* (below). Consecutive entries differ only in the
//!    mover's houses.
//!
//! # The half rank
//!
//! One side's `h` houses holding `m` seeds are written as `h - 1` bars among
//! the seeds ("stars and bars"): bar `j` sits at `b_j = x_0 + .. + x_j + j`.
//! The half rank is the colexicographic rank of the bar set,
//! `sum_j C(b_j, j + 1)`: one table look-up a house. Its order is: the house
//! nearest the store (`x_{h-1}`) most significant, *more* seeds there giving
//! a *smaller* rank, then the next house, and so on. Rank 0 is all seeds in
//! the last house, the largest rank all seeds in the first.
//!
//! The reason for this order: counter-clockwise, a move that keeps all seeds
//! on the board only carries the mover's seeds towards the mover's store
//! (`RULES.md`), which lowers every prefix sum `x_0 + .. + x_j` or leaves it,
//! and the one of the played house strictly; so the mover's half rank
//! strictly decreases. A builder that sweeps a block in increasing half rank
//! finds most same-level successors already solved.
//!
//! # Locality
//!
//! Consider a builder sweeping the mover's column for a fixed opponent row.
//! A move that ends in the mover's store (an extra move) keeps the opponent's
//! houses whenever it does not lap, so its successor lies in the *same row*
//! of a block of a lower level: a run of at most `D(m)` bytes (53,130 for six
//! houses and 20 seeds), which stays in cache for the whole row. A move that
//! passes the turn shows the board from the other side, so its successor's
//! row is the mover's houses after the move and its column the opponent's
//! row: for a fixed mover column and a sweep over opponent rows, those
//! successors walk along a row. The builder in `kalah-db` tiles its sweep to
//! use both (see its docs).

use crate::board::{Board, MAX_HOUSES};
use crate::position::max_board_seeds;

/// `C(n, k)` for small arguments, saturating at `u64::MAX`.
pub const fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let k = if k > n - k { n - k } else { k };
    let mut r: u128 = 1;
    let mut i = 0;
    while i < k {
        r = r * (n - i) as u128 / (i + 1) as u128;
        if r > u64::MAX as u128 {
            return u64::MAX;
        }
        i += 1;
    }
    r as u64
}

/// The number of distributions of `seeds` seeds over `houses` houses.
pub const fn distributions(houses: u64, seeds: u64) -> u64 {
    if houses == 0 {
        return if seeds == 0 { 1 } else { 0 };
    }
    binomial(seeds + houses - 1, houses - 1)
}

/// The number of boards of `h` houses a side with at most `n` seeds: `C(n + 2h, 2h)`.
pub const fn boards_up_to(h: usize, n: u32) -> u64 {
    binomial(n as u64 + 2 * h as u64, 2 * h as u64)
}

/// The number of boards of `h` houses a side with exactly `n` seeds.
pub const fn boards_with(h: usize, n: u32) -> u64 {
    distributions(2 * h as u64, n as u64)
}

/// Ranks the boards of `h` houses a side with up to `max_seeds` seeds; see the module docs.
#[derive(Clone, Debug)]
pub struct Indexer {
    h: usize,
    max_seeds: u32,
    /// `bar[j][p] = C(p + j, j + 1)`: the half-rank term of bar `j` when the
    /// first `j + 1` houses hold `p` seeds; zero for `j >= h - 1`, so that a
    /// half rank is a fixed number of look-ups with no loop to run.
    bar: Box<[[u64; 256]; MAX_HOUSES - 1]>,
    /// `choose[j][b] = C(b, j)` for `j < h` and every bar position `b` (for unranking).
    choose: Vec<Vec<u64>>,
    /// `dist[m]`: distributions of `m` seeds over one side.
    dist: [u64; 256],
    /// `level_start[n]`: boards with fewer than `n` seeds (`n <= max_seeds + 1`).
    level_start: Vec<u64>,
    /// `block_start[n * stride + m]`: boards with `n` seeds whose mover has
    /// fewer than `m` (`m <= n + 1`).
    block_start: Vec<u64>,
    /// `base[n * stride + m] = level_start[n] + block_start[n * stride + m]`.
    base: Vec<u64>,
    stride: usize,
}

/// `0x01` in every byte: multiplying by it turns bytes into their prefix sums.
const PREFIX: u64 = 0x0101_0101_0101_0101;

impl Indexer {
    /// An indexer for `h` houses a side and boards of up to `max_seeds` seeds.
    ///
    /// # Panics
    /// If `h` is not in `1..=8` or `max_seeds` exceeds [`max_board_seeds`].
    pub fn new(h: usize, max_seeds: u32) -> Indexer {
        assert!((1..=MAX_HOUSES).contains(&h));
        assert!(max_seeds <= max_board_seeds(h), "index would not fit 64 bits");
        let bars = max_seeds as usize + h;
        let choose = (0..h.max(1)).map(|j| (0..=bars).map(|b| binomial(b as u64, j as u64)).collect()).collect();
        let bar = Box::new(std::array::from_fn(|j| std::array::from_fn(|p| if j + 1 < h { binomial((p + j) as u64, (j + 1) as u64) } else { 0 })));
        let dist: [u64; 256] = std::array::from_fn(|m| distributions(h as u64, m as u64));
        let level_start: Vec<u64> = (0..=max_seeds + 1).map(|n| if n == 0 { 0 } else { boards_up_to(h, n - 1) }).collect();
        let stride = max_seeds as usize + 2;
        let mut block_start = vec![0u64; (max_seeds as usize + 1) * stride];
        let mut base = vec![0u64; (max_seeds as usize + 1) * stride];
        for n in 0..=max_seeds as usize {
            let mut acc = 0u64;
            for m in 0..=n + 1 {
                block_start[n * stride + m] = acc;
                base[n * stride + m] = level_start[n] + acc;
                if m <= n {
                    acc += dist[m] * dist[n - m];
                }
            }
        }
        Indexer { h, max_seeds, bar, choose, dist, level_start, block_start, base, stride }
    }

    /// Houses a side.
    pub fn houses(&self) -> usize {
        self.h
    }

    /// The largest number of seeds ranked.
    pub fn max_seeds(&self) -> u32 {
        self.max_seeds
    }

    /// The number of boards ranked: `C(max_seeds + 2h, 2h)`.
    pub fn len(&self) -> u64 {
        self.level_start[self.max_seeds as usize + 1]
    }

    /// Always false: the empty board is ranked.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The index of the first board with `n` seeds.
    #[inline]
    pub fn level_start(&self, n: u32) -> u64 {
        self.level_start[n as usize]
    }

    /// The number of boards with exactly `n` seeds.
    pub fn level_len(&self, n: u32) -> u64 {
        self.level_start[n as usize + 1] - self.level_start[n as usize]
    }

    /// Distributions of `m` seeds over one side.
    #[inline]
    pub fn side_len(&self, m: u32) -> u64 {
        self.dist[m as usize]
    }

    /// Offset within level `n` of the block where the mover has `m` seeds.
    #[inline]
    pub fn block_start(&self, n: u32, m: u32) -> u64 {
        self.block_start[n as usize * self.stride + m as usize]
    }

    /// The half rank of one side from its prefix sums (byte `j` of `prefix`
    /// is the number of seeds in houses `0..=j`).
    #[inline]
    fn half_rank(&self, prefix: u64) -> u64 {
        // Bytes past the last house hold the side's total: bar rows of zeros.
        self.half_rank_in::<MAX_HOUSES>(prefix)
    }

    /// [`Indexer::half_rank`] from the first `H - 1` bar rows, which are
    /// all for a board of `H` houses or fewer.
    #[inline]
    fn half_rank_in<const H: usize>(&self, prefix: u64) -> u64 {
        (0..H - 1).map(|j| self.bar[j][(prefix >> (8 * j)) as u8 as usize]).sum()
    }

    /// The half rank of one side given as a word (byte `i` is house `i`,
    /// as in [`Board::mover_word`]).
    #[inline]
    pub fn word_rank(&self, side: u64) -> u64 {
        self.half_rank(side.wrapping_mul(PREFIX))
    }

    /// The index of the first board with `n` seeds of which the mover has `m`.
    #[inline]
    pub fn block_base(&self, n: u32, m: u32) -> u64 {
        self.base[n as usize * self.stride + m as usize]
    }

    /// The half rank of one side given as a slice of house counts.
    pub fn side_rank(&self, houses: &[u8]) -> u64 {
        debug_assert_eq!(houses.len(), self.h);
        let mut prefix = 0usize;
        let mut rank = 0u64;
        for (&seeds, bar) in houses.iter().zip(&self.bar[..self.h - 1]) {
            prefix += seeds as usize;
            rank += bar[prefix];
        }
        rank
    }

    /// The index of `board` (seen from the mover), which must hold at most `max_seeds` seeds.
    #[inline]
    pub fn index(&self, board: Board) -> u64 {
        let (n, i) = self.locate(board);
        self.level_start[n as usize] + i
    }

    /// The level of `board` (its seeds) and its index within the level,
    /// from one pass over its houses.
    #[inline]
    pub fn locate(&self, board: Board) -> (u32, u64) {
        // The houses as a constant: each side's rank then reads only its
        // `h - 1` bar rows, not the rows of zeros past them.
        match self.h {
            1 => self.locate_in::<1>(board),
            2 => self.locate_in::<2>(board),
            3 => self.locate_in::<3>(board),
            4 => self.locate_in::<4>(board),
            5 => self.locate_in::<5>(board),
            6 => self.locate_in::<6>(board),
            7 => self.locate_in::<7>(board),
            _ => self.locate_in::<8>(board),
        }
    }

    /// [`Indexer::locate`] on `H` houses (`H == self.h`).
    #[inline]
    fn locate_in<const H: usize>(&self, board: Board) -> (u32, u64) {
        // Prefix sums of each side's houses: no byte carries, a board holds at most 255 seeds.
        let mover = board.mover_word().wrapping_mul(PREFIX);
        let opponent = board.opponent_word().wrapping_mul(PREFIX);
        let m = (mover >> (8 * (H - 1))) as u8 as usize;
        let n = m + (opponent >> (8 * (H - 1))) as u8 as usize;
        debug_assert!(n <= self.max_seeds as usize);
        let i = self.block_start[n * self.stride + m] + self.half_rank_in::<H>(opponent) * self.dist[m] + self.half_rank_in::<H>(mover);
        (n as u32, i)
    }

    /// The houses of a side with `m` seeds and half rank `rank`.
    pub fn side_unrank(&self, m: u32, mut rank: u64, out: &mut [u8]) {
        let h = self.h;
        debug_assert!(rank < self.dist[m as usize]);
        // Bars from the last down: the largest b with C(b, j + 1) <= rank.
        let mut bars = [0usize; MAX_HOUSES];
        let mut top = m as usize + h - 1;
        for j in (0..h - 1).rev() {
            let mut b = top - 1;
            while self.choose[j + 1][b] > rank {
                b -= 1;
            }
            rank -= self.choose[j + 1][b];
            bars[j] = b;
            top = b;
        }
        let mut prev = 0usize;
        for j in 0..h - 1 {
            let prefix = bars[j] - j;
            out[j] = (prefix - prev) as u8;
            prev = prefix;
        }
        out[h - 1] = (m as usize - prev) as u8;
    }

    /// The board with index `index` (`< len()`).
    pub fn unrank(&self, index: u64) -> Board {
        assert!(index < self.len(), "index {index} out of range");
        let n = self.level_start.partition_point(|&s| s <= index) as u32 - 1;
        let within = index - self.level_start[n as usize];
        let blocks = &self.block_start[n as usize * self.stride..][..n as usize + 2];
        let m = blocks.partition_point(|&s| s <= within) as u32 - 1;
        let within = within - blocks[m as usize];
        let d = self.dist[m as usize];
        let mut mover = [0u8; MAX_HOUSES];
        let mut opponent = [0u8; MAX_HOUSES];
        self.side_unrank(m, within % d, &mut mover);
        self.side_unrank(n - m, within / d, &mut opponent);
        Board::from_sides(&mover[..self.h], &opponent[..self.h])
    }
}

/// Steps one side's houses to the distribution with the next half rank
/// (same number of seeds). Returns `false` after the last one (all seeds in
/// the first house), leaving the houses unchanged.
///
/// The successor: find the first house `j` whose right neighbour holds a
/// seed, move one seed from house `j + 1` to house `j` and gather every seed
/// left of `j` into house `j` as well.
#[inline]
pub fn next_side(houses: &mut [u8]) -> bool {
    let mut gathered = 0u8;
    for j in 0..houses.len() - 1 {
        if houses[j + 1] > 0 {
            houses[j + 1] -= 1;
            houses[j] += gathered + 1;
            return true;
        }
        gathered += houses[j];
        houses[j] = 0;
    }
    // Undo: no successor. All seeds were in house 0 (gathered is empty then).
    houses[0] += gathered;
    false
}

/// The distribution of `m` seeds with half rank 0: all in the last house.
pub fn first_side(houses: &mut [u8], m: u8) {
    houses.fill(0);
    if let Some(last) = houses.last_mut() {
        *last = m;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn binomials() {
        assert_eq!(binomial(5, 2), 10);
        assert_eq!(binomial(12, 0), 1);
        assert_eq!(binomial(3, 4), 0);
        assert_eq!(binomial(200, 100), u64::MAX);
        assert_eq!(distributions(6, 4), 126);
        assert_eq!(distributions(0, 0), 1);
    }

    #[test]
    fn level_sizes_match_the_reference_table() {
        // ../shared/reference/sizes.csv, copied into data/sizes.csv.
        let sizes = include_str!("../../../data/sizes.csv");
        let mut checked = 0;
        for line in sizes.lines().filter(|l| !l.starts_with('#') && !l.starts_with("seeds")) {
            let f: Vec<u64> = line.split(',').map(|x| x.trim().parse().unwrap()).collect();
            let n = f[0] as u32;
            assert_eq!(boards_up_to(6, n), f[1], "positions with at most {n} seeds");
            let one_side_empty = boards_up_to(3, n); // C(n + 6, 6)
            assert_eq!(boards_up_to(6, n) - 2 * one_side_empty + 1, f[2], "both sides non-empty, {n} seeds");
            let ix = Indexer::new(6, n);
            assert_eq!(ix.len(), f[1]);
            checked += 1;
        }
        assert_eq!(checked, 4);
    }

    #[test]
    fn exhaustive_rank_unrank_on_small_boards() {
        for h in 1..=4 {
            let ix = Indexer::new(h, 7);
            let mut seen = vec![false; ix.len() as usize];
            for i in 0..ix.len() {
                let b = ix.unrank(i);
                assert!(b.total() <= 7);
                assert_eq!(ix.index(b), i, "h={h} board {b:?}");
                assert!(!seen[i as usize]);
                seen[i as usize] = true;
            }
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn next_side_walks_the_half_ranks_in_order() {
        let ix = Indexer::new(4, 9);
        for m in 0..=9u8 {
            let mut houses = [0u8; 4];
            first_side(&mut houses, m);
            let mut rank = 0u64;
            loop {
                assert_eq!(ix.side_rank(&houses), rank, "{houses:?}");
                let mut back = [0u8; 4];
                ix.side_unrank(m as u32, rank, &mut back);
                assert_eq!(back, houses);
                rank += 1;
                if !next_side(&mut houses) {
                    break;
                }
            }
            assert_eq!(rank, ix.side_len(m as u32));
            assert_eq!(houses[0], m, "the last distribution has every seed in house 1");
        }
    }

    #[test]
    fn forward_moves_lower_the_half_rank() {
        // Sowing within the own row: house i's seeds go to houses i+1.. .
        let ix = Indexer::new(5, 12);
        let mut houses = [0u8; 5];
        for m in 1..=12u8 {
            first_side(&mut houses, m);
            loop {
                for i in 0..5 {
                    let k = houses[i] as usize;
                    if k == 0 || i + k > 4 {
                        continue;
                    }
                    let mut after = houses;
                    after[i] = 0;
                    for t in 1..=k {
                        after[i + t] += 1;
                    }
                    assert!(ix.side_rank(&after) < ix.side_rank(&houses), "{houses:?} -> {after:?}");
                }
                if !next_side(&mut houses) {
                    break;
                }
            }
        }
    }

    proptest! {
        #[test]
        fn rank_round_trips_on_large_boards(h in 1usize..=8, cells in prop::collection::vec(0u8..=6, 16)) {
            let b = Board::from_sides(&cells[..h], &cells[8..8 + h]);
            let max = max_board_seeds(h).min(b.total() + 5);
            let ix = Indexer::new(h, max);
            let i = ix.index(b);
            prop_assert!(i < ix.len());
            prop_assert_eq!(ix.unrank(i), b);
            let n = b.total();
            prop_assert!(i >= ix.level_start(n) && i < ix.level_start(n) + ix.level_len(n));
        }

        #[test]
        fn the_largest_index_fits(h in 1usize..=8) {
            let ix = Indexer::new(h, max_board_seeds(h));
            prop_assert!(ix.len() < u64::MAX);
            let mut side = vec![0u8; h];
            side[0] = max_board_seeds(h) as u8;
            // The last board: every seed in the mover's first house.
            let b = Board::from_sides(&side, &vec![0u8; h]);
            prop_assert_eq!(ix.index(b), ix.len() - 1);
        }
    }
}
