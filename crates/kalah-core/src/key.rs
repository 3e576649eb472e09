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
//!
//! # Unary keys, for small tables
//!
//! A table that stores part of each key in its entries needs keys of few
//! bits to be small (`kalah-search`'s table keeps 39 bits an entry and picks
//! the bucket with the rest, so 60-bit keys need 2^21 buckets, 128 MiB).
//! [`KeyPacker::unary`] writes a board with `n` seeds as `n + 2h - 1` bits
//! instead: from the lowest bit, each house in turn (the mover's 1 to `h`,
//! then the opponent's) as one 1 bit a seed, and a 0 bit after every house
//! but the last.
//!
//! ```text
//!  h = 2; the mover's houses hold 2 and 0 seeds, the opponent's 1 and 3:
//!  6 seeds, so 6 + 2h - 1 = 9 bits
//!
//!  bit      8 7 6   5    4    3   2    1 0
//!           1 1 1   0    1    0   0    1 1
//!           opp 2        opp 1         mover 1   (mover 2 holds none:
//!                                                 the zeros 2 and 3 meet)
//! ```
//!
//! The `2h - 1` zeros split the bits back into the houses, so two boards
//! never share a key (the last house is the ones left above the last
//! zero). A packer of keys of at most `b` bits packs the boards of at most
//! `b - 2h + 1` seeds, whatever their houses hold, and no others: small
//! searches, whose boards have few seeds, get a small table. Packing costs a
//! step a house where the fields cost three steps in all.

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

/// The eight bytes of `word`, each below `2^W` (`W <= 8`), as `W`-bit
/// fields: byte `i` at bits `W*i .. W*i+W`. Neighbouring fields are joined
/// in pairs, then pairs of pairs, then the two halves: three steps for the
/// eight bytes instead of one shift a byte. The width is a constant, so
/// that the shifts are too ([`KeyPacker::pack`] picks it).
#[inline]
fn compress<const W: u32>(word: u64) -> u64 {
    let w = W;
    const BYTES: u64 = 0x00ff_00ff_00ff_00ff;
    const PAIRS: u64 = 0x0000_ffff_0000_ffff;
    let x = (word & BYTES) | ((word >> 8) & BYTES) << w;
    let x = (x & PAIRS) | ((x >> 16) & PAIRS) << (2 * w);
    (x & 0xffff_ffff) | (x >> 32) << (4 * w)
}

/// Packs boards of one size into keys; see the module docs for the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyPacker {
    h: usize,
    form: Form,
}

/// The two kinds of keys (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// A field of `width` bits a house ([`key_width`]); `overflow` has the
    /// bits of each house byte that must be clear for the house to fit;
    /// the opponent's fields start at bit `width * h`.
    Fields { width: u32, overflow: u64, opponent_shift: u32 },
    /// Unary keys of at most `bits` bits.
    Unary { bits: u32 },
}

/// Every byte 1: multiplying a side's word by it sums its houses into each byte.
const PREFIX: u64 = 0x0101_0101_0101_0101;

impl KeyPacker {
    /// A packer of fixed-field keys for boards with `h` houses a side.
    pub fn new(h: usize) -> KeyPacker {
        assert!((1..=MAX_HOUSES).contains(&h));
        let width = key_width(h);
        let per_byte_overflow = (0xffu32 << width) as u8 as u64;
        KeyPacker { h, form: Form::Fields { width, overflow: ones(h) * per_byte_overflow, opponent_shift: width * h as u32 } }
    }

    /// A packer of unary keys of at most `bits` bits (module docs) for
    /// boards with `h` houses a side: it packs every board of at most
    /// `bits - 2h + 1` seeds. `bits` must lie in `2h - 1..=64`.
    pub fn unary(h: usize, bits: u32) -> KeyPacker {
        assert!((1..=MAX_HOUSES).contains(&h));
        assert!((2 * h as u32 - 1..=64).contains(&bits), "{bits}-bit unary keys for {h} houses");
        KeyPacker { h, form: Form::Unary { bits } }
    }

    /// The bits a key may use: every key is below `2^bits()`.
    pub fn bits(&self) -> u32 {
        match self.form {
            Form::Fields { width, .. } => 2 * self.h as u32 * width,
            Form::Unary { bits } => bits,
        }
    }

    /// Whether the keys are unary ([`KeyPacker::unary`]).
    pub fn is_unary(&self) -> bool {
        matches!(self.form, Form::Unary { .. })
    }

    /// The key of `board`, or `None` if it does not fit: a house holds more
    /// than its field allows, or, for unary keys, the board holds more
    /// seeds than the keys' bits allow.
    ///
    /// Always inlined with the fields' three steps, and the unary keys'
    /// loop kept out of line: a large search packs keys at most nodes and
    /// takes the fields (callgrind: the call and the larger body cost 1.2%
    /// of Kalah(6,4)'s instructions when `pack` was left to the compiler).
    #[inline(always)]
    pub fn pack(&self, board: Board) -> Option<u64> {
        let (mover, opponent) = (board.mover_word(), board.opponent_word());
        match self.form {
            Form::Fields { width, overflow, opponent_shift } => {
                if (mover | opponent) & overflow != 0 {
                    return None;
                }
                let join = |mover: u64, opponent: u64| mover | opponent << opponent_shift;
                Some(match width {
                    4 => join(compress::<4>(mover), compress::<4>(opponent)),
                    5 => join(compress::<5>(mover), compress::<5>(opponent)),
                    6 => join(compress::<6>(mover), compress::<6>(opponent)),
                    // The only other width (`key_width`).
                    _ => join(compress::<8>(mover), compress::<8>(opponent)),
                })
            }
            Form::Unary { bits } => self.pack_unary(mover, opponent, bits),
        }
    }

    /// [`KeyPacker::pack`] of unary keys: all ones, but a zero after each
    /// house, at the house's prefix sum of seeds plus the zeros before it.
    #[inline(never)]
    fn pack_unary(&self, mover: u64, opponent: u64, bits: u32) -> Option<u64> {
        let h = self.h;
        // Byte i: the seeds of houses 0..=i (no byte carries: at most 255 seeds).
        let mover_sums = mover.wrapping_mul(PREFIX);
        let opponent_sums = opponent.wrapping_mul(PREFIX);
        let m = (mover_sums >> (8 * (h - 1))) as u8 as u32;
        let n = m + (opponent_sums >> (8 * (h - 1))) as u8 as u32;
        let len = n + 2 * h as u32 - 1;
        if len > bits {
            return None;
        }
        let mut zeros = 0u64;
        for i in 0..h {
            zeros |= 1 << (((mover_sums >> (8 * i)) & 0xff) as u32 + i as u32);
        }
        for i in 0..h - 1 {
            zeros |= 1 << (m + ((opponent_sums >> (8 * i)) & 0xff) as u32 + (h + i) as u32);
        }
        Some((u64::MAX >> (64 - len)) & !zeros)
    }

    /// The board of a key made by [`KeyPacker::pack`].
    pub fn unpack(&self, key: u64) -> Board {
        let mut board = Board::EMPTY;
        let cell = |i: usize| if i < self.h { i } else { OPPONENT + i - self.h };
        match self.form {
            Form::Fields { width, .. } => {
                let mask = (1u64 << width) - 1;
                let w = width as usize;
                for i in 0..2 * self.h {
                    board.set(cell(i), ((key >> (w * i)) & mask) as u8);
                }
            }
            Form::Unary { .. } => {
                // Each house is the run of ones up to the next zero; the last, the ones left.
                let mut rest = key;
                for i in 0..2 * self.h {
                    let seeds = rest.trailing_ones();
                    board.set(cell(i), seeds as u8);
                    rest = rest.checked_shr(seeds + 1).unwrap_or(0);
                }
            }
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

    #[test]
    // The digits are grouped by house: opponent 2, zero, opponent 1, zero, zero, mover 1.
    #[allow(clippy::unusual_byte_groupings)]
    fn layout_of_a_unary_key() {
        // The example of the module docs.
        let p = KeyPacker::unary(2, 9);
        let b = Board::from_sides(&[2, 0], &[1, 3]);
        assert_eq!(p.pack(b), Some(0b111_0_1_0_0_11));
        assert_eq!(p.unpack(0b111_0_1_0_0_11), b);
        // One seed more does not fit in 9 bits; an empty board is all zeros.
        assert_eq!(p.pack(Board::from_sides(&[2, 0], &[1, 4])), None);
        assert_eq!(p.pack(Board::EMPTY), Some(0));
        assert_eq!(p.bits(), 9);
        assert!(p.is_unary() && !KeyPacker::new(2).is_unary());
        assert_eq!(KeyPacker::new(6).bits(), 60);
    }

    #[test]
    fn unary_keys_of_every_small_board_are_distinct_and_unpack() {
        // Every board of h = 2 with houses up to 6 seeds, keys of 16 bits:
        // exactly those of at most 13 seeds have one, all different.
        let p = KeyPacker::unary(2, 16);
        let mut seen = std::collections::HashSet::new();
        for code in 0..7u32.pow(4) {
            let c: Vec<u8> = (0..4).map(|i| (code / 7u32.pow(i) % 7) as u8).collect();
            let b = Board::from_sides(&c[..2], &c[2..]);
            let n: u32 = c.iter().map(|&x| x as u32).sum();
            match p.pack(b) {
                Some(key) => {
                    assert!(n <= 13 && key < 1 << 16, "{c:?}");
                    assert!(seen.insert(key), "two boards share key {key:#b}");
                    assert_eq!(p.unpack(key), b);
                }
                None => assert!(n > 13, "{c:?} has no key"),
            }
        }
    }

    proptest! {
        #[test]
        fn unary_keys_unpack_and_stay_within_their_bits(h in 1usize..=8, extra in 0u32..=49, cells in prop::collection::vec(0u8..=15, 16)) {
            let bits = (2 * h as u32 - 1 + extra).min(64);
            let p = KeyPacker::unary(h, bits);
            let b = Board::from_sides(&cells[..h], &cells[8..8 + h]);
            match p.pack(b) {
                Some(key) => {
                    prop_assert!(b.total() + 2 * h as u32 - 1 <= bits);
                    prop_assert!(bits == 64 || key >> bits == 0);
                    prop_assert_eq!(p.unpack(key), b);
                }
                None => prop_assert!(b.total() + 2 * h as u32 - 1 > bits),
            }
        }

        #[test]
        fn distinct_boards_have_distinct_unary_keys(h in 1usize..=8, a in prop::collection::vec(0u8..=6, 16), b in prop::collection::vec(0u8..=6, 16)) {
            let p = KeyPacker::unary(h, 64);
            let x = Board::from_sides(&a[..h], &a[8..8 + h]);
            let y = Board::from_sides(&b[..h], &b[8..8 + h]);
            if let (Some(kx), Some(ky)) = (p.pack(x), p.pack(y)) {
                prop_assert_eq!(kx == ky, x == y);
            }
        }

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
