//! The 64-bit packed key of a board, for transposition tables.
//!
//! A key packs the houses of a [`Board`] seen from the player to move, so
//! the side to move is the orientation of the key, not a bit in it: a
//! position and its mirror image with the other side to move share a key,
//! exactly as they share a value. Stores are not in the key (they never
//! influence play). Each house gets a field of `w` bits, `w` depending on
//! the number of houses `h` so that all `2h` fields fit in 64 bits:
//!
//! | houses h | field width w | seeds a house may hold |
//! |---|---|---|
//! | 1 to 3 | 8 | 255 |
//! | 4, 5 | 6 | 63 |
//! | 6 | 5 | 31 |
//! | 7, 8 | 4 | 15 |
//!
//! For h = 6 (field width 5):
//!
//! ```text
//!  63   60 59   55 54   50       34   30 29   25 24   20       4    0
//! +-------+-------+-------+-----+-------+-------+-------+-----+-------+
//! | 0000  | opp 6 | opp 5 | ... | opp 1 | own 6 | own 5 | ... | own 1 |
//! +-------+-------+-------+-----+-------+-------+-------+-----+-------+
//!          5 bits                         5 bits                5 bits
//! ```
//!
//! House `i` of the mover (0-based) sits at bits `w*i .. w*i+w`, house `i` of
//! the opponent at `w*(h+i) ..`. The packing is a bijection between boards
//! whose houses all fit their field and the keys: no two such boards share a
//! key, so a table that stores whole keys can never take one position for
//! another. A board with a house above the field's limit has no key
//! ([`KeyPacker::pack`] returns `None`); searches simply do not cache it.

use crate::board::{ones, Board, MAX_HOUSES, OPPONENT};

/// Field width of one house in the key of an `h`-house board.
pub const fn key_width(h: usize) -> u32 {
    match h {
        0..=3 => 8,
        4 | 5 => 6,
        6 => 5,
        _ => 4,
    }
}

/// The largest number of seeds a house may hold for a board of `h` houses to have a key.
pub const fn key_house_limit(h: usize) -> u32 {
    (1u32 << key_width(h)) - 1
}

/// The eight bytes of `word`, each below `2^w` (`w <= 8`), as `w`-bit
/// fields: byte `i` at bits `w*i .. w*i+w`. Neighbouring fields are joined
/// in pairs, then pairs of pairs, then the two halves: three steps for the
/// eight bytes instead of one shift a byte.
#[inline]
fn compress(word: u64, w: u32) -> u64 {
    const BYTES: u64 = 0x00ff_00ff_00ff_00ff;
    const PAIRS: u64 = 0x0000_ffff_0000_ffff;
    let x = (word & BYTES) | ((word >> 8) & BYTES) << w;
    let x = (x & PAIRS) | ((x >> 16) & PAIRS) << (2 * w);
    (x & 0xffff_ffff) | (x >> 32) << (4 * w)
}

/// Packs boards of one size into keys; see the module docs for the layout.
#[derive(Clone, Copy, Debug)]
pub struct KeyPacker {
    h: usize,
    width: u32,
    /// The bits of each house byte that must be clear for the house to fit.
    overflow: u64,
}

impl KeyPacker {
    /// A packer for boards with `h` houses a side.
    pub fn new(h: usize) -> KeyPacker {
        assert!((1..=MAX_HOUSES).contains(&h));
        let width = key_width(h);
        let per_byte_overflow = (0xffu32 << width) as u8 as u64;
        KeyPacker {
            h,
            width,
            overflow: ones(h) * per_byte_overflow,
        }
    }

    /// The key of `board`, or `None` if a house holds more than the field allows.
    #[inline]
    pub fn pack(&self, board: Board) -> Option<u64> {
        let (mover, opponent) = (board.mover_word(), board.opponent_word());
        if (mover | opponent) & self.overflow != 0 {
            return None;
        }
        let w = self.width;
        Some(compress(mover, w) | compress(opponent, w) << (w as usize * self.h))
    }

    /// The board of a key made by [`KeyPacker::pack`].
    pub fn unpack(&self, key: u64) -> Board {
        let mask = (1u64 << self.width) - 1;
        let w = self.width as usize;
        let mut board = Board::EMPTY;
        for i in 0..self.h {
            board.set(i, ((key >> (w * i)) & mask) as u8);
            board.set(OPPONENT + i, ((key >> (w * (self.h + i))) & mask) as u8);
        }
        board
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn layout_of_a_six_house_key() {
        let p = KeyPacker::new(6);
        let b = Board::from_sides(&[1, 0, 0, 0, 0, 2], &[0, 0, 0, 0, 0, 31]);
        let key = p.pack(b).unwrap();
        assert_eq!(key, 1 | (2 << 25) | (31 << 55));
        assert_eq!(key >> 60, 0, "the top nibble is never used");
    }

    #[test]
    fn houses_beyond_the_field_have_no_key() {
        let p = KeyPacker::new(6);
        assert_eq!(p.pack(Board::from_sides(&[32, 0, 0, 0, 0, 0], &[0; 6])), None);
        assert!(p.pack(Board::from_sides(&[31, 0, 0, 0, 0, 0], &[0; 6])).is_some());
        assert_eq!(KeyPacker::new(8).pack(Board::from_sides(&[0; 8], &[16, 0, 0, 0, 0, 0, 0, 0])), None);
        assert!(KeyPacker::new(3).pack(Board::from_sides(&[255, 0, 0], &[0; 3])).is_some());
        assert!(KeyPacker::new(4).pack(Board::from_sides(&[63, 0, 0, 0], &[0; 4])).is_some());
        assert_eq!(KeyPacker::new(4).pack(Board::from_sides(&[64, 0, 0, 0], &[0; 4])), None);
    }

    proptest! {
        #[test]
        fn keys_put_each_house_in_its_field(h in 1usize..=8, cells in prop::collection::vec(0u8..=255, 16)) {
            let p = KeyPacker::new(h);
            let w = key_width(h) as usize;
            let fits: Vec<u8> = cells.iter().map(|&c| c.min(key_house_limit(h) as u8)).collect();
            let b = Board::from_sides(&fits[..h], &fits[8..8 + h]);
            let mut key = 0u64;
            for i in 0..h {
                key |= (fits[i] as u64) << (w * i);
                key |= (fits[8 + i] as u64) << (w * (h + i));
            }
            prop_assert_eq!(p.pack(b), Some(key));
        }

        #[test]
        fn unpack_inverts_pack(h in 1usize..=8, cells in prop::collection::vec(0u8..=255, 16)) {
            let p = KeyPacker::new(h);
            let limit = key_house_limit(h) as u8;
            let fits: Vec<u8> = cells.iter().map(|&c| c.min(limit)).collect();
            let b = Board::from_sides(&fits[..h], &fits[8..8 + h]);
            let key = p.pack(b).unwrap();
            prop_assert_eq!(p.unpack(key), b);
            prop_assert!(2 * h as u32 * key_width(h) >= 64 || key >> (2 * h as u32 * key_width(h)) == 0);
        }

        #[test]
        fn distinct_boards_have_distinct_keys(h in 5usize..=8, a in prop::collection::vec(0u8..=15, 16), b in prop::collection::vec(0u8..=15, 16)) {
            let p = KeyPacker::new(h);
            let x = Board::from_sides(&a[..h], &a[8..8 + h]);
            let y = Board::from_sides(&b[..h], &b[8..8 + h]);
            prop_assert_eq!(p.pack(x) == p.pack(y), x == y);
        }

        #[test]
        fn a_board_has_a_key_exactly_when_its_houses_fit(h in 1usize..=8, cells in prop::collection::vec(0u8..=40, 16)) {
            let p = KeyPacker::new(h);
            let b = Board::from_sides(&cells[..h], &cells[8..8 + h]);
            let fits = b.mover_houses(h).chain(b.opponent_houses(h)).all(|s| s as u32 <= key_house_limit(h));
            prop_assert_eq!(p.pack(b).is_some(), fits);
        }
    }
}
