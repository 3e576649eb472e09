//! The houses of a board, seen from the player to move.
//!
//! Stores never influence play (`RULES.md`, "Values"), so the engines work
//! on the houses alone. A [`Board`] holds them from the point of view of the
//! player to move (the *mover*): the mover's houses first, then the
//! opponent's, each side numbered from its owner's left. Both players play by
//! the same rules, so a position and its mirror image with the other side to
//! move have the same value for the mover; storing boards this way lets one
//! table entry or database entry serve both.
//!
//! ```text
//!  byte:  0 .. h-1            h .. 2h-1              2h .. 15
//!        +-------------------+---------------------+-----------+
//!        | mover's houses    | opponent's houses   | always 0  |
//!        | 1 (left) .. h     | 1 (left) .. h       |           |
//!        +-------------------+---------------------+-----------+
//! ```
//!
//! One byte a house, packed into a `u128`: sowing a full lap or a run of
//! cells is then a single addition of a precomputed mask (no byte can carry
//! into the next because a board never holds more than 255 seeds).

use std::fmt;

/// The largest number of houses per side.
pub const MAX_HOUSES: usize = 8;

/// The houses of a board from the mover's point of view; see the module docs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Board(u128);

/// A mask with the byte `0x01` in each of the first `cells` bytes.
pub const fn ones(cells: usize) -> u128 {
    let mut m = 0u128;
    let mut i = 0;
    while i < cells {
        m |= 1u128 << (8 * i);
        i += 1;
    }
    m
}

/// A mask with the byte `0xff` in each of the first `cells` bytes.
pub const fn bytes_mask(cells: usize) -> u128 {
    ones(cells) * 0xff
}

impl Board {
    /// The board with no seeds.
    pub const EMPTY: Board = Board(0);

    /// A board from the mover's and the opponent's houses (each from its owner's left).
    ///
    /// # Panics
    /// If the sides differ in length or are longer than [`MAX_HOUSES`].
    pub fn from_sides(mover: &[u8], opponent: &[u8]) -> Board {
        assert_eq!(mover.len(), opponent.len(), "both sides have the same houses");
        assert!(mover.len() <= MAX_HOUSES);
        let h = mover.len();
        let mut b = Board::EMPTY;
        for (i, &s) in mover.iter().enumerate() {
            b.set(i, s);
        }
        for (i, &s) in opponent.iter().enumerate() {
            b.set(h + i, s);
        }
        b
    }

    /// The raw bytes as a `u128` (byte `i` is cell `i`).
    #[inline]
    pub const fn bits(self) -> u128 {
        self.0
    }

    /// A board from raw bytes as made by [`Board::bits`].
    #[inline]
    pub const fn from_bits(bits: u128) -> Board {
        Board(bits)
    }

    /// Seeds in cell `i` (mover's houses `0..h`, opponent's `h..2h`).
    #[inline]
    pub const fn get(self, i: usize) -> u8 {
        (self.0 >> (8 * i)) as u8
    }

    /// Sets the seeds of cell `i`.
    #[inline]
    pub fn set(&mut self, i: usize, seeds: u8) {
        let shift = 8 * i;
        self.0 = (self.0 & !(0xffu128 << shift)) | ((seeds as u128) << shift);
    }

    /// Adds the bytes of `mask` to the cells. The caller guarantees no cell exceeds 255.
    #[inline]
    pub(crate) fn add(&mut self, mask: u128) {
        self.0 = self.0.wrapping_add(mask);
    }

    /// The total number of seeds in all houses.
    #[inline]
    pub fn total(self) -> u32 {
        byte_sum(self.0 as u64) + byte_sum((self.0 >> 64) as u64)
    }

    /// Seeds in the mover's houses of an `h`-house board.
    #[inline]
    pub fn mover_seeds(self, h: usize) -> u32 {
        byte_sum_wide(self.0 & bytes_mask(h))
    }

    /// Seeds in the opponent's houses of an `h`-house board.
    #[inline]
    pub fn opponent_seeds(self, h: usize) -> u32 {
        byte_sum_wide((self.0 >> (8 * h)) & bytes_mask(h))
    }

    /// Whether the mover's houses are all empty.
    #[inline]
    pub fn mover_empty(self, h: usize) -> bool {
        self.0 & bytes_mask(h) == 0
    }

    /// Whether the opponent's houses are all empty.
    #[inline]
    pub fn opponent_empty(self, h: usize) -> bool {
        (self.0 >> (8 * h)) == 0
    }

    /// The same houses seen from the other player: the two sides swap.
    #[inline]
    pub fn flip(self, h: usize) -> Board {
        let low = self.0 & bytes_mask(h);
        Board((self.0 >> (8 * h)) | (low << (8 * h)))
    }

    /// The mover's houses, left to right.
    pub fn mover_houses(self, h: usize) -> impl Iterator<Item = u8> {
        (0..h).map(move |i| self.get(i))
    }

    /// The opponent's houses, each from its owner's left.
    pub fn opponent_houses(self, h: usize) -> impl Iterator<Item = u8> {
        (h..2 * h).map(move |i| self.get(i))
    }

    /// The largest number of seeds in one house.
    pub fn max_house(self) -> u8 {
        self.0.to_le_bytes().into_iter().max().unwrap_or(0)
    }
}

/// Sum of the eight bytes of `x`, for sums below 256.
#[inline]
fn byte_sum(x: u64) -> u32 {
    // Multiplying by 0x0101..01 accumulates every byte into the top byte.
    // Splitting into two halves of 16-bit lanes first keeps sums up to 8 * 255 exact.
    let pairs = (x & 0x00ff_00ff_00ff_00ff) + ((x >> 8) & 0x00ff_00ff_00ff_00ff);
    (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as u32
}

#[inline]
fn byte_sum_wide(x: u128) -> u32 {
    byte_sum(x as u64) + byte_sum((x >> 64) as u64)
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = self.0.to_le_bytes();
        let used = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        write!(f, "Board{:?}", &bytes[..used])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sides_and_totals() {
        let b = Board::from_sides(&[1, 2, 3], &[4, 0, 6]);
        assert_eq!(b.total(), 16);
        assert_eq!(b.mover_seeds(3), 6);
        assert_eq!(b.opponent_seeds(3), 10);
        assert!(!b.mover_empty(3));
        let f = b.flip(3);
        assert_eq!(f, Board::from_sides(&[4, 0, 6], &[1, 2, 3]));
        assert_eq!(f.flip(3), b);
        assert!(Board::from_sides(&[0, 0], &[1, 0]).mover_empty(2));
        assert!(Board::from_sides(&[0, 3], &[0, 0]).opponent_empty(2));
    }

    #[test]
    fn byte_sum_is_exact_up_to_255_per_byte() {
        assert_eq!(byte_sum(u64::MAX), 8 * 255);
        assert_eq!(Board::from_bits(u128::MAX).total(), 16 * 255);
    }

    proptest! {
        #[test]
        fn flip_is_an_involution_that_keeps_the_seeds(h in 1usize..=8, cells in prop::collection::vec(0u8..=15, 16)) {
            let b = Board::from_sides(&cells[..h], &cells[8..8 + h]);
            prop_assert_eq!(b.flip(h).flip(h), b);
            prop_assert_eq!(b.flip(h).total(), b.total());
            prop_assert_eq!(b.flip(h).mover_seeds(h), b.opponent_seeds(h));
        }
    }
}
