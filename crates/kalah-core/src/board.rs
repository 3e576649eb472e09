//! The houses of a board, seen from the player to move.
//!
//! Stores never influence play (`RULES.md`, "Values"), so the engines work
//! on the houses alone. A [`Board`] holds them from the point of view of the
//! player to move (the *mover*): the mover's houses in one 64-bit word, the
//! opponent's in another, each side numbered from its owner's left. Both
//! players play by the same rules, so a position and its mirror image with
//! the other side to move have the same value for the mover; storing boards
//! this way lets one table or database entry serve both, and handing the
//! move to the other player is a swap of the two words.
//!
//! ```text
//!            byte 0   byte 1        byte h-1   byte h .. 7
//!  word 0:  | own 1  | own 2  | .. | own h    | 0 ..      |   cells 0 .. 7
//!  word 1:  | opp 1  | opp 2  | .. | opp h    | 0 ..      |   cells 8 .. 15
//! ```
//!
//! A *cell* is a byte position `0..16`: the mover's house `i` (0-based) is
//! cell `i`, the opponent's house `j` is cell `8 + j` ([`OPPONENT`]). Unused
//! bytes are always zero. One byte a house: sowing a full lap or a run of
//! cells is then an addition of a precomputed mask to each word (no byte can
//! carry into the next because a board never holds more than 255 seeds).

use std::fmt;

/// The largest number of houses per side.
pub const MAX_HOUSES: usize = 8;

/// The cell of the opponent's first house.
pub const OPPONENT: usize = 8;

/// The houses of a board from the mover's point of view; see the module docs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Board([u64; 2]);

/// A mask with the byte `0x01` in each of the first `cells` bytes of a word.
pub const fn ones(cells: usize) -> u64 {
    if cells >= 8 {
        0x0101_0101_0101_0101
    } else {
        0x0101_0101_0101_0101 & ((1u64 << (8 * cells)) - 1)
    }
}

impl Board {
    /// The board with no seeds.
    pub const EMPTY: Board = Board([0; 2]);

    /// A board from the mover's and the opponent's houses (each from its owner's left).
    ///
    /// # Panics
    /// If the sides differ in length or are longer than [`MAX_HOUSES`].
    pub fn from_sides(mover: &[u8], opponent: &[u8]) -> Board {
        assert_eq!(mover.len(), opponent.len(), "both sides have the same houses");
        assert!(mover.len() <= MAX_HOUSES);
        let word = |side: &[u8]| side.iter().rev().fold(0u64, |w, &s| (w << 8) | s as u64);
        Board([word(mover), word(opponent)])
    }

    /// A board from its two words (the mover's houses, the opponent's).
    #[inline]
    pub const fn from_words(mover: u64, opponent: u64) -> Board {
        Board([mover, opponent])
    }

    /// The mover's houses as a word (byte `i` is house `i`).
    #[inline]
    pub const fn mover_word(self) -> u64 {
        self.0[0]
    }

    /// The opponent's houses as a word (byte `j` is house `j`).
    #[inline]
    pub const fn opponent_word(self) -> u64 {
        self.0[1]
    }

    /// Seeds in cell `cell` (the mover's houses are cells `0..8`, the opponent's `8..16`).
    #[inline]
    pub const fn get(self, cell: usize) -> u8 {
        // Select the word with a condition rather than an index: indexing
        // would spill the board to memory and stall on store forwarding.
        let word = if cell & 8 == 0 { self.0[0] } else { self.0[1] };
        (word >> (8 * (cell & 7))) as u8
    }

    /// Sets the seeds of cell `cell`.
    #[inline]
    pub fn set(&mut self, cell: usize, seeds: u8) {
        let shift = 8 * (cell & 7);
        let put = |word: u64| (word & !(0xff << shift)) | ((seeds as u64) << shift);
        if cell & 8 == 0 {
            self.0[0] = put(self.0[0]);
        } else {
            self.0[1] = put(self.0[1]);
        }
    }

    /// Seeds in the opponent's house `j` (0-based).
    #[inline]
    pub const fn opponent(self, j: usize) -> u8 {
        (self.0[1] >> (8 * (j & 7))) as u8
    }

    /// Seeds in the mover's house `i` (0-based): [`Board::get`] of a cell
    /// known to be the mover's, without choosing the word.
    #[inline]
    pub const fn mover(self, i: usize) -> u8 {
        (self.0[0] >> (8 * (i & 7))) as u8
    }

    /// Empties the mover's house `i` (0-based).
    #[inline]
    pub fn clear_mover(&mut self, i: usize) {
        self.0[0] &= !(0xff << (8 * (i & 7)));
    }

    /// Empties the opponent's house `j` (0-based).
    #[inline]
    pub fn clear_opponent(&mut self, j: usize) {
        self.0[1] &= !(0xff << (8 * (j & 7)));
    }

    /// Adds the bytes of `mover` and `opponent` to the two sides. The
    /// caller guarantees no house exceeds 255.
    #[inline]
    pub(crate) fn add(&mut self, mover: u64, opponent: u64) {
        self.0[0] = self.0[0].wrapping_add(mover);
        self.0[1] = self.0[1].wrapping_add(opponent);
    }

    /// The total number of seeds in all houses.
    #[inline]
    pub fn total(self) -> u32 {
        byte_sum(self.0[0]) + byte_sum(self.0[1])
    }

    /// Seeds in the mover's houses.
    #[inline]
    pub fn mover_seeds(self) -> u32 {
        byte_sum(self.0[0])
    }

    /// Seeds in the opponent's houses.
    #[inline]
    pub fn opponent_seeds(self) -> u32 {
        byte_sum(self.0[1])
    }

    /// Whether the mover's houses are all empty.
    #[inline]
    pub fn mover_empty(self) -> bool {
        self.0[0] == 0
    }

    /// Whether the opponent's houses are all empty.
    #[inline]
    pub fn opponent_empty(self) -> bool {
        self.0[1] == 0
    }

    /// The same houses seen from the other player: the two sides swap.
    #[inline]
    pub fn flip(self) -> Board {
        Board([self.0[1], self.0[0]])
    }

    /// The mover's houses, left to right, of an `h`-house board.
    pub fn mover_houses(self, h: usize) -> impl Iterator<Item = u8> {
        (0..h).map(move |i| self.get(i))
    }

    /// The opponent's houses of an `h`-house board, from the opponent's left.
    pub fn opponent_houses(self, h: usize) -> impl Iterator<Item = u8> {
        (0..h).map(move |j| self.opponent(j))
    }

    /// The largest number of seeds in one house.
    pub fn max_house(self) -> u8 {
        (0..16).map(|c| self.get(c)).max().unwrap_or(0)
    }
}

/// Sum of the eight bytes of `x`.
#[inline]
fn byte_sum(x: u64) -> u32 {
    // Add neighbouring bytes into 16-bit lanes first so that sums up to
    // 8 * 255 stay exact, then gather the lanes into the top 16 bits.
    let pairs = (x & 0x00ff_00ff_00ff_00ff) + ((x >> 8) & 0x00ff_00ff_00ff_00ff);
    (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as u32
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |w: u64| {
            let bytes = w.to_le_bytes();
            let used = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            bytes[..used].to_vec()
        };
        write!(f, "Board{:?}/{:?}", side(self.0[0]), side(self.0[1]))
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
        assert_eq!(b.mover_seeds(), 6);
        assert_eq!(b.opponent_seeds(), 10);
        assert_eq!(b.get(2), 3);
        assert_eq!(b.opponent(2), 6);
        assert_eq!(b.get(OPPONENT + 2), 6);
        assert!(!b.mover_empty());
        let f = b.flip();
        assert_eq!(f, Board::from_sides(&[4, 0, 6], &[1, 2, 3]));
        assert_eq!(f.flip(), b);
        assert!(Board::from_sides(&[0, 0], &[1, 0]).mover_empty());
        assert!(Board::from_sides(&[0, 3], &[0, 0]).opponent_empty());
        let mut c = b;
        c.set(OPPONENT + 1, 9);
        c.set(0, 0);
        assert_eq!(c, Board::from_sides(&[0, 2, 3], &[4, 9, 6]));
        assert_eq!((c.mover(1), c.mover(2), c.opponent(1)), (2, 3, 9));
        c.clear_mover(2);
        c.clear_opponent(0);
        assert_eq!(c, Board::from_sides(&[0, 2, 0], &[0, 9, 6]));
    }

    #[test]
    fn byte_sum_is_exact_up_to_255_per_byte() {
        assert_eq!(byte_sum(u64::MAX), 8 * 255);
        assert_eq!(Board::from_words(u64::MAX, u64::MAX).total(), 16 * 255);
    }

    proptest! {
        #[test]
        fn flip_is_an_involution_that_keeps_the_seeds(h in 1usize..=8, cells in prop::collection::vec(0u8..=15, 16)) {
            let b = Board::from_sides(&cells[..h], &cells[8..8 + h]);
            prop_assert_eq!(b.flip().flip(), b);
            prop_assert_eq!(b.flip().total(), b.total());
            prop_assert_eq!(b.flip().mover_seeds(), b.opponent_seeds());
            prop_assert_eq!(b.mover_houses(h).collect::<Vec<_>>(), cells[..h].to_vec());
            prop_assert_eq!(b.opponent_houses(h).collect::<Vec<_>>(), cells[8..8 + h].to_vec());
        }
    }
}
