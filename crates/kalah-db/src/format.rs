//! The database file format, version 1.
//!
//! A database file holds the value of every board of `h` houses a side
//! with up to `N` seeds, under one rule set, in the order of
//! `kalah_core::rank` (levels `n = 0..=N` one after the other). All integers
//! are little-endian. Every region starts at a multiple of 4096 bytes and
//! padding is zero, so the bytes of a file depend only on its contents.
//!
//! ```text
//! +----------------------+  0
//! | header               |  header_bytes (a multiple of 4096)
//! +----------------------+
//! | level 0 values       |  one byte per board, or fewer bits (encoding)
//! | level 0 block sums   |  one u64 per block of the level
//! +----------------------+
//! | level 1 values       |
//! | level 1 block sums   |
//! | ...                  |
//! +----------------------+
//! ```
//!
//! # Header
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `KALAHDB\0` ([`MAGIC`]) |
//! | 8 | 4 | format version, 1 ([`VERSION`]) |
//! | 12 | 4 | header_bytes: `64 + 32 (N + 1)`, plus the window table's `(N + 1)(N + 2) / 2` bytes in encodings 4 and 5, rounded up to 4096 |
//! | 16 | 1 | houses a side `h`, 1..=8 |
//! | 17 | 1 | max seeds `N`, 0..=127 |
//! | 18 | 1 | capture: 0 standard, 1 empty |
//! | 19 | 1 | end: 0 instant, 1 turn |
//! | 20 | 1 | leftovers: 0 owner, 1 unscored, 2 emptier |
//! | 21 | 1 | sowing: 0 ccw, 1 cw |
//! | 22 | 1 | relay: 0 off, 1 on |
//! | 23 | 1 | value encoding ([`Encoding`]): 1 one signed byte a board, 2 the mover's share packed, 3 the value plus `n` packed, 4 and 5 a window of values in 3 and 4 bits |
//! | 24 | 4 | block_bytes: values per checksummed block, 65536 ([`BLOCK_BYTES`]) |
//! | 28 | 4 | levels_done: levels `0..levels_done` are written and checksummed |
//! | 32 | 4 | flags: bit 0 [`FLAG_COMPLETE`], set last, once every level is written |
//! | 36 | 4 | zero |
//! | 40 | 8 | boards: `C(N + 2h, 2h)` |
//! | 48 | 8 | header checksum: XXH3-64 of the header_bytes bytes with this field zero |
//! | 56 | 8 | zero |
//! | 64 | 32 (N+1) | level table, one entry per level `n` (below) |
//! | 64 + 32 (N+1) | (N+1)(N+2)/2 | encodings 4 and 5 only: the window table (below) |
//!
//! Level table entry `n` (32 bytes), filled in when the level is written:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | values offset in the file |
//! | 8 | 8 | boards in the level (encoding 1: the bytes of values) |
//! | 16 | 8 | block checksum table offset |
//! | 24 | 8 | level checksum: XXH3-64 of the block checksum table's bytes |
//!
//! A level's values take `ceil(boards × w / 8)` bytes, `w` the bits a
//! board (below); the block checksums start at the next multiple of 4096.
//! The block checksum table of a level holds, for each block of
//! `block_bytes` values (the last one shorter; `block_bytes × w / 8`
//! bytes, a whole number for every `w`), the XXH3-64 of its bytes.
//!
//! # Values
//!
//! A board's value is its value for the player to move, i.e. the future
//! store difference under perfect play (`RULES.md`, "Values"), in `-n..=n`
//! for a board of `n` seeds. Three encodings:
//!
//! * **1, one signed byte** (`w = 8`): the value as a two's complement `i8`.
//! * **2, the mover's share, packed**: the code `(value + n) / 2`, in
//!   `0..=n`, in `w = bits(n)` bits, where `bits(m)` is the bits of `m`
//!   written in binary (at least 1): 5 bits a board up to 31 seeds, 6 up to
//!   63. Only for rules under which every seed on the board ends in a store
//!   (counter-clockwise sowing, leftovers not `unscored`), so that a value
//!   has the parity of `n`.
//! * **3, the value plus `n`, packed**: the code `value + n`, in `0..=2n`,
//!   in `w = bits(2n)` bits; for any rules.
//!
//! * **4 and 5, a window, in `w = 3` and `w = 4` bits**: most values of a
//!   level lie in a narrow range that depends on the mover's seeds `m`
//!   (the seeds in the houses of the player to move). For each level `n`
//!   and each `m` in `0..=n` the window table holds the lowest value of a
//!   window of `K = 2^w - 2` values `low, low + d, .., low + (K - 1) d`,
//!   `d` the step of the rules' values (2 where a value has the parity of
//!   `n`, as for encoding 2, else 1). A board's code is `1 + (value - low)
//!   / d` when its value lies in its window; 0 when it lies below (the
//!   value is then at most `low - d`), `K + 1` when above (at least `low +
//!   K d`). A code outside the window is a proven bound, not a value: a
//!   reader returns it as one ([`crate::Stored`]), and a search expands
//!   such a board. A window lies within `-n..=n` (`low` from `-n` on, with
//!   the parity of `n` where `d = 2`, and `low + (K - 1) d <= n`) unless
//!   the whole range is narrower than the window, and then `low = -n`; a
//!   writer puts each window where it holds the most boards of its level
//!   and `m` (the lowest such place). These files are written from exact
//!   values (a byte file, a packed one, or a build), never built from one
//!   another: the levels below a level must be exact to solve it.
//!
//! The window table lists, level after level (`n = 0..=N`), the `n + 1`
//! lowest values of the windows of `m = 0..=n` as signed bytes; levels not
//! written yet have zeros.
//!
//! Packed codes follow each other with no gap: the code of board `i` is the
//! `w` bits from bit `i × w` of the level's values, bit `j` of the values
//! being bit `j mod 8` of byte `j / 8` (least significant first). A code
//! above its encoding's largest is damage, as is a window code whose value
//! lies outside `-n..=n` or a code below (above) a window that starts at
//! `-n` (ends at `n`).
//!
//! # Integrity
//!
//! A writer writes a level's values and checksums, flushes them to disk,
//! then rewrites the header with the level's table entry and a larger
//! `levels_done`, and flushes again: a crash leaves every level counted in
//! `levels_done` whole. [`FLAG_COMPLETE`] is set in a last header write, and
//! the finished file is renamed into place. A reader checks the magic, the
//! version, the header checksum, that the reserved fields and the header's
//! padding are zero, the complete flag, every table entry against the
//! layout the header implies, the file's length, and each level's block
//! checksum table against its level checksum; each block's checksum, and
//! that each of its values lies in `-n..=n`, is checked the first time a
//! value is read from it.
//!
//! # Version history
//!
//! * 1: first version; encodings 2 and 3 added on 2026-12-06, 4 and 5
//!   (the window table) on 2026-12-07 (a reader from before refuses them as
//!   an unknown encoding).

use kalah_core::{Capture, End, Indexer, Leftovers, Relay, Rules, Sowing};
use xxhash_rust::xxh3::xxh3_64;

/// The first eight bytes of every database file.
pub const MAGIC: [u8; 8] = *b"KALAHDB\0";
/// The format version this program writes and reads.
pub const VERSION: u32 = 1;
/// Value encoding 1: one signed byte per board.
pub const ENCODING_I8: u8 = 1;

/// How a file stores its values (see the module docs, "Values").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Encoding 1: one signed byte a board.
    #[default]
    Byte,
    /// Encoding 2: the mover's share `(value + n) / 2` in `bits(n)` bits.
    Share,
    /// Encoding 3: `value + n` in `bits(2n)` bits.
    Offset,
    /// Encodings 4 and 5: a window of values a level and mover's seeds in
    /// 3 or 4 bits ([`Encoding::window`]), values outside it as bounds.
    Window(u32),
}

impl Encoding {
    /// The code in the header.
    pub const fn code(self) -> u8 {
        match self {
            Encoding::Byte => ENCODING_I8,
            Encoding::Share => 2,
            Encoding::Offset => 3,
            Encoding::Window(bits) => 1 + bits as u8,
        }
    }

    /// The encoding of a header code.
    pub const fn from_code(code: u8) -> Option<Encoding> {
        match code {
            ENCODING_I8 => Some(Encoding::Byte),
            2 => Some(Encoding::Share),
            3 => Some(Encoding::Offset),
            4 | 5 => Some(Encoding::Window(code as u32 - 1)),
            _ => None,
        }
    }

    /// The window encoding of `bits` bits a board (3 or 4; [`WINDOW_BITS`]).
    pub fn window(bits: u32) -> Option<Encoding> {
        WINDOW_BITS.contains(&bits).then_some(Encoding::Window(bits))
    }

    /// The encoding of `bits` bits a board for `rules`, as `--bits` says
    /// it: 8 one byte, 5 (or 6) the packed exact encoding of the rules
    /// ([`Encoding::packed_for`]: 5 bits up to 31 seeds, 6 up to 63), 3 or 4
    /// a window. `None` for any other width.
    pub fn of_bits(bits: u32, rules: Rules) -> Option<Encoding> {
        match bits {
            8 => Some(Encoding::Byte),
            5 | 6 => Some(Encoding::packed_for(rules)),
            _ => Encoding::window(bits),
        }
    }

    /// Whether every value is stored exactly (a window stores bounds for
    /// the values outside it).
    pub const fn is_exact(self) -> bool {
        !matches!(self, Encoding::Window(_))
    }

    /// Whether the header holds a window table.
    pub const fn has_windows(self) -> bool {
        matches!(self, Encoding::Window(_))
    }

    /// The encoding of a new file: packed for `rules` ([`Encoding::packed_for`])
    /// if asked, else a byte a board. The one choice of `--packed` and of
    /// Python's `packed=True`.
    pub fn chosen(packed: bool, rules: Rules) -> Encoding {
        if packed {
            Encoding::packed_for(rules)
        } else {
            Encoding::Byte
        }
    }

    /// The packed encoding for `rules`: the mover's share where every seed
    /// ends in a store, so a value has the parity of the seeds; the value
    /// plus `n` otherwise (clockwise play can go on forever, worth 0; an
    /// `unscored` leftover counts for nobody).
    pub fn packed_for(rules: Rules) -> Encoding {
        if rules.values_have_seed_parity() {
            Encoding::Share
        } else {
            Encoding::Offset
        }
    }

    /// Whether the encoding holds every value under `rules`: the mover's
    /// share only where values have the parity of the seeds.
    pub fn holds_values_of(self, rules: Rules) -> bool {
        self != Encoding::Share || rules.values_have_seed_parity()
    }

    /// Whether values are packed in fewer bits than a byte.
    pub const fn is_packed(self) -> bool {
        !matches!(self, Encoding::Byte)
    }

    /// The name the command line and the reports use.
    pub const fn name(self) -> &'static str {
        match self {
            Encoding::Byte => "byte",
            Encoding::Share => "share",
            Encoding::Offset => "offset",
            Encoding::Window(3) => "window3",
            Encoding::Window(_) => "window4",
        }
    }

    /// Bits a board of level `n` takes.
    #[inline]
    pub const fn bits(self, n: u32) -> u32 {
        match self {
            Encoding::Byte => 8,
            Encoding::Share => bits(n),
            Encoding::Offset => bits(2 * n),
            Encoding::Window(w) => w,
        }
    }

    /// The largest code of level `n` (packed encodings).
    #[inline]
    pub const fn largest_code(self, n: u32) -> u32 {
        match self {
            Encoding::Byte | Encoding::Share => n,
            Encoding::Offset => 2 * n,
            Encoding::Window(w) => (1 << w) - 1,
        }
    }

    /// Bytes the values of a level of `n` seeds and `boards` boards take:
    /// never more than `boards` (at most 8 bits a board), whatever the
    /// size asked about (a size refused later must not overflow first).
    pub const fn value_bytes(self, n: u32, boards: u64) -> u64 {
        ((boards as u128 * self.bits(n) as u128).div_ceil(8)) as u64
    }

    /// Bytes of a whole block of level `n`.
    pub const fn block_bytes(self, n: u32) -> u64 {
        BLOCK_BYTES as u64 * self.bits(n) as u64 / 8
    }

    /// The code of `value` on a board of `n` seeds, if the encoding has one
    /// (the exact packed encodings; a share needs the parity of `n`; a
    /// window's codes are [`Window::code`]'s).
    #[inline]
    pub fn code_of(self, n: u32, value: i32) -> Option<u32> {
        let n = n as i32;
        if !(-n..=n).contains(&value) {
            return None;
        }
        match self {
            Encoding::Byte | Encoding::Offset => Some((value + n) as u32),
            Encoding::Share => ((value + n) % 2 == 0).then_some(((value + n) / 2) as u32),
            Encoding::Window(_) => None,
        }
    }

    /// The value of `code` on a board of `n` seeds (the exact packed
    /// encodings; a window's codes are read by [`Window::stored`]).
    #[inline]
    pub const fn value_of(self, n: u32, code: u32) -> i32 {
        match self {
            Encoding::Byte | Encoding::Offset | Encoding::Window(_) => code as i32 - n as i32,
            Encoding::Share => 2 * code as i32 - n as i32,
        }
    }
}

/// The widths of the window encodings.
pub const WINDOW_BITS: [u32; 2] = [3, 4];

/// The window of one level `n` and mover's seeds `m` (encodings 4 and 5;
/// see the module docs, "Values"): `count` values from `low` on, `step`
/// apart, with a code below and one above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Seeds on the board.
    pub n: i32,
    /// The lowest value in the window.
    pub low: i32,
    /// 2 where values have the parity of the seeds, else 1.
    pub step: i32,
    /// Values in the window: `2^w - 2`.
    pub count: i32,
}

impl Window {
    /// The window of `bits` bits from `low` on for a level of `n` seeds
    /// under rules whose values are `step` apart.
    pub const fn new(bits: u32, n: u32, step: i32, low: i32) -> Window {
        Window { n: n as i32, low, step, count: (1 << bits) - 2 }
    }

    /// The highest value in the window.
    #[inline]
    pub const fn high(&self) -> i32 {
        self.low + self.step * (self.count - 1)
    }

    /// The code of `value`: its place in the window (from 1), or 0 below
    /// it and `count + 1` above it.
    #[inline]
    pub const fn code(&self, value: i32) -> u32 {
        if value < self.low {
            0
        } else if value > self.high() {
            (self.count + 1) as u32
        } else {
            (1 + (value - self.low) / self.step) as u32
        }
    }

    /// What `code` says of the value: exact in the window, a bound out of it.
    #[inline]
    pub const fn stored(&self, code: u32) -> crate::Stored {
        let code = code as i32;
        if code == 0 {
            crate::Stored { lower: -self.n, upper: self.low - self.step }
        } else if code > self.count {
            crate::Stored { lower: self.low + self.step * self.count, upper: self.n }
        } else {
            let v = self.low + self.step * (code - 1);
            crate::Stored { lower: v, upper: v }
        }
    }

    /// Whether every code of the window's bits can be in a file
    /// ([`Window::holds`]): the window lies inside `-n..=n` with room
    /// below and above it, as it does for all but the smallest levels.
    #[inline]
    pub const fn holds_every_code(&self) -> bool {
        self.low > -self.n && self.high() < self.n
    }

    /// Whether `code` can be in a file: a value within `-n..=n`, a code
    /// below (above) only where the window does not start at `-n` (end at
    /// `n`).
    #[inline]
    pub const fn holds(&self, code: u32) -> bool {
        let code = code as i32;
        if code == 0 {
            self.low > -self.n
        } else if code > self.count {
            self.high() < self.n
        } else {
            self.low + self.step * (code - 1) <= self.n
        }
    }

    /// Whether `low` is where a window of level `n` may start (module
    /// docs): within the level's values, on their parity, and the window
    /// inside them unless they are fewer than it holds, then at `-n`.
    pub const fn may_start_at(bits: u32, n: u32, step: i32, low: i32) -> bool {
        let w = Window::new(bits, n, step, low);
        let n = n as i32;
        let values = 2 * n / step + 1;
        if values <= w.count {
            low == -n
        } else {
            low >= -n && (low + n) % step == 0 && w.high() <= n
        }
    }

    /// The window of `bits` bits that holds the most of `counts` (boards of
    /// each value of a level of `n` seeds and one mover's seeds, index
    /// `value + n`), the lowest such: where a writer puts it.
    pub fn best(bits: u32, n: u32, step: i32, counts: &[u64]) -> Window {
        let n_i = n as i32;
        let count = (1i32 << bits) - 2;
        let values = 2 * n_i / step + 1;
        if values <= count {
            return Window::new(bits, n, step, -n_i);
        }
        let held = |low: i32| (0..count).map(|k| counts.get((low + step * k + n_i) as usize).copied().unwrap_or(0)).sum::<u64>();
        let last = n_i - step * (count - 1);
        let mut best = (-n_i, held(-n_i));
        let mut low = -n_i + step;
        while low <= last {
            let h = held(low);
            if h > best.1 {
                best = (low, h);
            }
            low += step;
        }
        Window::new(bits, n, step, best.0)
    }
}

/// Index of level `n`'s first window in the window table.
#[inline]
pub const fn window_index(n: u32) -> usize {
    (n as usize) * (n as usize + 1) / 2
}

/// Bytes of the window table of a database of up to `max_seeds` seeds.
pub const fn window_table_bytes(max_seeds: u32) -> usize {
    window_index(max_seeds + 1)
}

/// Bits of `m` written in binary, at least 1.
pub const fn bits(m: u32) -> u32 {
    if m == 0 {
        1
    } else {
        32 - m.leading_zeros()
    }
}

/// Reads the `w`-bit code of board `i` from packed `values` (see the
/// module docs), which start at a whole block; the byte after the one the
/// code starts in is read where there is one (a code never reaches past
/// the values, so one ending their bytes needs none).
#[inline]
pub fn read_code(values: &[u8], i: u64, w: u32) -> u32 {
    let bit = i * w as u64;
    let at = (bit / 8) as usize;
    let pair = u16::from_le_bytes([values[at], values.get(at + 1).copied().unwrap_or(0)]);
    (pair as u32 >> (bit % 8)) & ((1 << w) - 1)
}

/// The codes of boards `first..first + out.len()` of packed `values` (as
/// [`read_code`] reads them; `w` at most 8), a word of 8 bytes at a time:
/// a level decoded whole, several times faster than code by code.
pub fn read_codes(values: &[u8], first: u64, w: u32, out: &mut [u8]) {
    let mask = (1u64 << w) - 1;
    let end = first + out.len() as u64;
    let (mut i, mut k) = (first, 0usize);
    while i < end {
        let bit = i * w as u64;
        let at = (bit / 8) as usize;
        let Some(bytes) = values.get(at..at + 8) else { break };
        let word = u64::from_le_bytes(bytes.try_into().expect("8 bytes")) >> (bit % 8);
        let codes = ((64 - bit % 8) / w as u64).min(end - i) as usize;
        for (c, code) in out[k..k + codes].iter_mut().enumerate() {
            *code = ((word >> (c as u64 * w as u64)) & mask) as u8;
        }
        i += codes as u64;
        k += codes;
    }
    for (code, i) in out[k..].iter_mut().zip(i..end) {
        *code = read_code(values, i, w) as u8;
    }
}

/// The values (signed bytes) of boards `first..first + out.len()` of a
/// level of `n` seeds packed in the exact `encoding` (`values` from the
/// level's start), decoded a block at a time on every thread.
pub fn read_values(encoding: Encoding, n: u32, values: &[u8], first: u64, out: &mut [u8]) {
    use rayon::prelude::*;
    let w = encoding.bits(n);
    let of_code: Vec<u8> = (0..1u32 << w).map(|code| encoding.value_of(n, code) as i8 as u8).collect();
    out.par_chunks_mut(BLOCK_BYTES as usize).enumerate().for_each(|(k, out)| {
        read_codes(values, first + (k * BLOCK_BYTES as usize) as u64, w, out);
        out.iter_mut().for_each(|code| *code = of_code[*code as usize]);
    });
}

/// Writes `w`-bit codes one after another from the start of a byte
/// slice, four bytes at a time; [`CodeWriter::finish`] writes the last
/// bits. Every byte it reaches is overwritten, not or-ed.
struct CodeWriter<'a> {
    out: &'a mut [u8],
    at: usize,
    bits: u64,
    held: u32,
    w: u32,
}

impl<'a> CodeWriter<'a> {
    fn new(out: &'a mut [u8], w: u32) -> CodeWriter<'a> {
        CodeWriter { out, at: 0, bits: 0, held: 0, w }
    }

    #[inline]
    fn push(&mut self, code: u8) {
        self.bits |= (code as u64) << self.held;
        self.held += self.w;
        if self.held >= 32 {
            self.out[self.at..self.at + 4].copy_from_slice(&(self.bits as u32).to_le_bytes());
            self.at += 4;
            self.bits >>= 32;
            self.held -= 32;
        }
    }

    fn finish(mut self) {
        while self.held > 0 {
            self.out[self.at] = self.bits as u8;
            self.at += 1;
            self.bits >>= 8;
            self.held = self.held.saturating_sub(8);
        }
    }
}

/// No code: a value a table of codes ([`LevelCodes::pack`]) refuses.
const NO_CODE: u8 = 0xff;

/// The code of each value (as its byte, `v as u8`) by `code`, [`NO_CODE`]
/// where it has none.
fn code_table(code: impl Fn(i32) -> Option<u32>) -> [u8; 256] {
    let mut table = [NO_CODE; 256];
    for (byte, slot) in table.iter_mut().enumerate() {
        if let Some(c) = code(byte as u8 as i8 as i32) {
            *slot = c as u8;
        }
    }
    table
}

/// The largest of the first `boards` codes of `w` bits in `values`, read
/// as [`read_code`] reads them: a word of 8 bytes at a time, as many whole
/// codes as it holds (a block's check of a packed level, several times
/// faster than code by code).
pub fn largest_code_in(values: &[u8], boards: u64, w: u32) -> u32 {
    let mask = (1u64 << w) - 1;
    let (mut largest, mut i) = (0u64, 0u64);
    while i < boards {
        let bit = i * w as u64;
        let at = (bit / 8) as usize;
        let Some(bytes) = values.get(at..at + 8) else { break };
        let word = u64::from_le_bytes(bytes.try_into().expect("8 bytes")) >> (bit % 8);
        let codes = ((64 - bit % 8) / w as u64).min(boards - i);
        for k in 0..codes {
            largest = largest.max((word >> (k * w as u64)) & mask);
        }
        i += codes;
    }
    (i..boards).fold(largest as u32, |m, k| m.max(read_code(values, k, w)))
}

/// How the boards of one level are coded: an exact encoding's one code a
/// value, or a window for each mover's seed count (encodings 4 and 5),
/// found from the board's place in the level.
#[derive(Clone, Debug)]
pub enum LevelCodes {
    /// An exact packed encoding of level `n`.
    Exact(Encoding, u32),
    /// A window encoding: the window of each mover's seed count `m`, and
    /// where each `m`'s boards start in the level (`starts[m]`; the last
    /// entry the level's length).
    Window {
        /// The windows, by `m`.
        windows: Vec<Window>,
        /// The first board of each `m`, then the level's length.
        starts: Vec<u64>,
    },
}

impl LevelCodes {
    /// The mover's seeds of board `i` of the level (window encodings).
    #[inline]
    fn block_of(starts: &[u64], i: u64) -> usize {
        starts.partition_point(|&s| s <= i) - 1
    }

    /// Packs the values (signed bytes) of boards `first..` of the level
    /// (a whole number of blocks from the level's start, so `first × w`
    /// is a whole number of bytes) into `out`, which must be zero and
    /// `value_bytes` of them long; `Err(i)` names the first board whose
    /// value has no code (an exact encoding's) or lies outside `-n..=n`.
    pub fn pack(&self, first: u64, values: &[u8], out: &mut [u8]) -> Result<(), u64> {
        // Each value's code from a table of 256 (its byte), built once for
        // the piece (exact) or for each mover's seed count in it (windows).
        let pack_run = |writer: &mut CodeWriter, table: &[u8; 256], from: u64, values: &[u8]| {
            for (k, &v) in values.iter().enumerate() {
                let code = table[v as usize];
                if code == NO_CODE {
                    return Err(from + k as u64);
                }
                writer.push(code);
            }
            Ok(())
        };
        match self {
            LevelCodes::Exact(encoding, n) => {
                let w = encoding.bits(*n);
                debug_assert!(encoding.is_packed() && (first * w as u64).is_multiple_of(8));
                let mut writer = CodeWriter::new(out, w);
                pack_run(&mut writer, &code_table(|v| encoding.code_of(*n, v)), first, values)?;
                writer.finish();
            }
            LevelCodes::Window { windows, starts } => {
                let w = windows.first().map_or(3, |x| (x.count + 2).trailing_zeros());
                let mut writer = CodeWriter::new(out, w);
                let end = first + values.len() as u64;
                let (mut m, mut i) = (Self::block_of(starts, first), first);
                while i < end {
                    while i >= starts[m + 1] {
                        m += 1;
                    }
                    let window = windows[m];
                    let table = code_table(|v| {
                        let valid = v.abs() <= window.n && (window.step == 1 || (v + window.n) % 2 == 0);
                        valid.then(|| window.code(v))
                    });
                    let run = starts[m + 1].min(end);
                    pack_run(&mut writer, &table, i, &values[(i - first) as usize..(run - first) as usize])?;
                    i = run;
                }
                writer.finish();
            }
        }
        Ok(())
    }
}

/// Packs the values (signed bytes) of boards `first..` of level `n` (a
/// whole number of blocks from the level's start, so `first × w` is a
/// whole number of bytes) into `out`, which must be zero and
/// `value_bytes` of them long; `Err(i)` names the first board whose value
/// has no code. Exact packed encodings ([`LevelCodes::pack`] for all).
pub fn pack_values(encoding: Encoding, n: u32, first: u64, values: &[u8], out: &mut [u8]) -> Result<(), u64> {
    LevelCodes::Exact(encoding, n).pack(first, values, out)
}
/// Values per checksummed block.
pub const BLOCK_BYTES: u32 = 1 << 16;
/// Header flag: every level is written.
pub const FLAG_COMPLETE: u32 = 1;
/// Alignment of the header and of every region.
pub const ALIGN: u64 = 4096;
/// Bytes of the fixed part of the header, before the level table.
const FIXED: usize = 64;
/// Bytes of one level table entry.
const ENTRY: usize = 32;
/// Where the header checksum sits.
const CHECKSUM_AT: usize = 48;

/// Rounds `x` up to a multiple of [`ALIGN`].
pub const fn align(x: u64) -> u64 {
    x.div_ceil(ALIGN) * ALIGN
}

/// One level's place in the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelEntry {
    /// Where the values start.
    pub offset: u64,
    /// Boards (and bytes of values) in the level.
    pub boards: u64,
    /// Where the block checksum table starts.
    pub sums_offset: u64,
    /// XXH3-64 of the block checksum table.
    pub checksum: u64,
}

/// A decoded header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Houses a side.
    pub houses: usize,
    /// Largest number of seeds covered.
    pub max_seeds: u32,
    /// Rules the values are for.
    pub rules: Rules,
    /// How the values are stored.
    pub encoding: Encoding,
    /// Levels written and checksummed.
    pub levels_done: u32,
    /// Whether every level is written.
    pub complete: bool,
    /// The level table (entries past `levels_done` are zero).
    pub levels: Vec<LevelEntry>,
    /// The window table (encodings 4 and 5; empty for the others): the
    /// lowest value of the window of level `n` and mover's seeds `m` at
    /// [`window_index`]`(n) + m`, zero for levels not written.
    pub windows: Vec<i8>,
}

/// A header that cannot be read; [`crate::DbError`] adds the file name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderProblem {
    /// Fewer bytes than a header needs.
    Truncated(String),
    /// Not our magic.
    Magic,
    /// Another format version.
    Version(u32),
    /// Any other inconsistency.
    Corrupt(String),
}

impl Header {
    /// A header for a new, empty database of one byte a board.
    pub fn new(houses: usize, max_seeds: u32, rules: Rules) -> Header {
        Header::encoded(houses, max_seeds, rules, Encoding::Byte)
    }

    /// A header for a new, empty database of `encoding`.
    pub fn encoded(houses: usize, max_seeds: u32, rules: Rules, encoding: Encoding) -> Header {
        Header {
            houses,
            max_seeds,
            rules,
            encoding,
            levels_done: 0,
            complete: false,
            levels: vec![LevelEntry::default(); max_seeds as usize + 1],
            windows: vec![0; if encoding.has_windows() { window_table_bytes(max_seeds) } else { 0 }],
        }
    }

    /// Bytes the header takes.
    pub fn bytes(&self) -> u64 {
        header_bytes(self.max_seeds, self.encoding)
    }

    /// The step between values of the rules (2 where a value has the
    /// parity of its seeds, else 1), which a window counts in.
    pub fn value_step(&self) -> i32 {
        if self.rules.values_have_seed_parity() {
            2
        } else {
            1
        }
    }

    /// The windows of level `n`, by mover's seeds (window encodings;
    /// empty for the others).
    pub fn windows_of(&self, n: u32) -> Vec<Window> {
        let Encoding::Window(bits) = self.encoding else {
            return Vec::new();
        };
        let at = window_index(n);
        self.windows[at..=at + n as usize].iter().map(|&low| Window::new(bits, n, self.value_step(), low as i32)).collect()
    }

    /// Sets the windows of level `n` (window encodings).
    pub fn set_windows(&mut self, n: u32, windows: &[Window]) {
        let at = window_index(n);
        for (slot, w) in self.windows[at..=at + n as usize].iter_mut().zip(windows) {
            *slot = w.low as i8;
        }
    }

    /// Where level `n` would be, by the layout rules (values offset, boards, sums offset).
    pub fn layout(&self, indexer: &Indexer, n: u32) -> LevelEntry {
        let mut offset = self.bytes();
        for k in 0..n {
            offset = self.level_end(offset, k, indexer.level_len(k));
        }
        let boards = indexer.level_len(n);
        LevelEntry { offset, boards, sums_offset: align(offset + self.encoding.value_bytes(n, boards)), checksum: 0 }
    }

    /// Bytes of the values of level `n` (of `entry`).
    pub fn value_bytes(&self, n: u32, entry: &LevelEntry) -> u64 {
        self.encoding.value_bytes(n, entry.boards)
    }

    /// The size of the whole file once complete.
    pub fn file_bytes(&self, indexer: &Indexer) -> u64 {
        (0..=self.max_seeds).fold(self.bytes(), |at, n| self.level_end(at, n, indexer.level_len(n)))
    }

    /// Where the next level starts after level `n` of `boards` boards at `offset`.
    fn level_end(&self, offset: u64, n: u32, boards: u64) -> u64 {
        align(align(offset + self.encoding.value_bytes(n, boards)) + 8 * blocks(boards))
    }

    /// The header as bytes, with its checksum.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; self.bytes() as usize];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&VERSION.to_le_bytes());
        b[12..16].copy_from_slice(&(self.bytes() as u32).to_le_bytes());
        b[16] = self.houses as u8;
        b[17] = self.max_seeds as u8;
        b[18] = self.rules.capture.code();
        b[19] = self.rules.end.code();
        b[20] = self.rules.leftovers.code();
        b[21] = self.rules.sowing.code();
        b[22] = self.rules.relay.code();
        b[23] = self.encoding.code();
        b[24..28].copy_from_slice(&BLOCK_BYTES.to_le_bytes());
        b[28..32].copy_from_slice(&self.levels_done.to_le_bytes());
        let flags = if self.complete { FLAG_COMPLETE } else { 0 };
        b[32..36].copy_from_slice(&flags.to_le_bytes());
        b[40..48].copy_from_slice(&kalah_core::boards_up_to(self.houses, self.max_seeds).to_le_bytes());
        for (n, e) in self.levels.iter().enumerate() {
            let at = FIXED + ENTRY * n;
            b[at..at + 8].copy_from_slice(&e.offset.to_le_bytes());
            b[at + 8..at + 16].copy_from_slice(&e.boards.to_le_bytes());
            b[at + 16..at + 24].copy_from_slice(&e.sums_offset.to_le_bytes());
            b[at + 24..at + 32].copy_from_slice(&e.checksum.to_le_bytes());
        }
        let table = FIXED + ENTRY * self.levels.len();
        for (k, &low) in self.windows.iter().enumerate() {
            b[table + k] = low as u8;
        }
        let sum = xxh3_64(&b);
        b[CHECKSUM_AT..CHECKSUM_AT + 8].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// Reads a header from the start of a file, checking everything the
    /// header alone can tell (see the module docs).
    pub fn decode(bytes: &[u8]) -> Result<Header, HeaderProblem> {
        let short = || HeaderProblem::Truncated(format!("{} bytes, shorter than a header", bytes.len()));
        if bytes.len() < MAGIC.len() {
            return Err(short());
        }
        if bytes[0..8] != MAGIC {
            return Err(HeaderProblem::Magic);
        }
        if bytes.len() < FIXED {
            return Err(short());
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let version = u32_at(8);
        if version != VERSION {
            return Err(HeaderProblem::Version(version));
        }
        let corrupt = |why: String| HeaderProblem::Corrupt(why);
        let houses = bytes[16] as usize;
        let max_seeds = bytes[17] as u32;
        if !(1..=kalah_core::MAX_HOUSES).contains(&houses) {
            return Err(corrupt(format!("{houses} houses a side")));
        }
        if crate::builder::check_size(houses, max_seeds).is_err() {
            return Err(corrupt(format!("{max_seeds} seeds for {houses} houses")));
        }
        let unknown = |what: &str, at: usize| corrupt(format!("unknown {what} code {}", bytes[at]));
        let encoding = Encoding::from_code(bytes[23]).ok_or_else(|| unknown("value encoding", 23))?;
        let declared = u32_at(12) as u64;
        let expected = header_bytes(max_seeds, encoding);
        if declared != expected {
            return Err(corrupt(format!("header length {declared}, expected {expected}")));
        }
        if (bytes.len() as u64) < expected {
            return Err(HeaderProblem::Truncated(format!("{} bytes, shorter than its {expected}-byte header", bytes.len())));
        }
        let header = &bytes[..expected as usize];
        let mut zeroed = header.to_vec();
        zeroed[CHECKSUM_AT..CHECKSUM_AT + 8].fill(0);
        if xxh3_64(&zeroed) != u64_at(CHECKSUM_AT) {
            return Err(corrupt("header checksum does not match".into()));
        }
        // Reserved fields and the padding after the level table are zero, so
        // that one header has one encoding (issue 6: the fuzzer found
        // headers with other bytes there accepted).
        let windows_at = FIXED + ENTRY * (max_seeds as usize + 1);
        let table_end = windows_at + if encoding.has_windows() { window_table_bytes(max_seeds) } else { 0 };
        let reserved = [36..40, 56..64, table_end..expected as usize];
        if let Some(at) = reserved.into_iter().flatten().find(|&at| bytes[at] != 0) {
            return Err(corrupt(format!("byte {at} of the header should be zero")));
        }
        let rules = Rules {
            capture: Capture::from_code(bytes[18]).ok_or_else(|| unknown("capture", 18))?,
            end: End::from_code(bytes[19]).ok_or_else(|| unknown("end", 19))?,
            leftovers: Leftovers::from_code(bytes[20]).ok_or_else(|| unknown("leftovers", 20))?,
            sowing: Sowing::from_code(bytes[21]).ok_or_else(|| unknown("sowing", 21))?,
            relay: Relay::from_code(bytes[22]).ok_or_else(|| unknown("relay", 22))?,
        };
        if !encoding.holds_values_of(rules) {
            return Err(corrupt(format!("the {} encoding cannot hold the values of {rules}", encoding.name())));
        }
        if u32_at(24) != BLOCK_BYTES {
            return Err(corrupt(format!("block size {}, expected {BLOCK_BYTES}", u32_at(24))));
        }
        let levels_done = u32_at(28);
        if levels_done > max_seeds + 1 {
            return Err(corrupt(format!("{levels_done} levels done of {}", max_seeds + 1)));
        }
        let flags = u32_at(32);
        if flags & !FLAG_COMPLETE != 0 {
            return Err(corrupt(format!("unknown flags {flags:#x}")));
        }
        let complete = flags & FLAG_COMPLETE != 0;
        if complete && levels_done != max_seeds + 1 {
            return Err(corrupt("marked complete with levels missing".into()));
        }
        if u64_at(40) != kalah_core::boards_up_to(houses, max_seeds) {
            return Err(corrupt(format!("{} boards, expected {}", u64_at(40), kalah_core::boards_up_to(houses, max_seeds))));
        }
        let levels: Vec<LevelEntry> = (0..=max_seeds as usize)
            .map(|n| {
                let at = FIXED + ENTRY * n;
                LevelEntry { offset: u64_at(at), boards: u64_at(at + 8), sums_offset: u64_at(at + 16), checksum: u64_at(at + 24) }
            })
            .collect();
        let header = Header {
            houses,
            max_seeds,
            rules,
            encoding,
            levels_done,
            complete,
            levels,
            windows: bytes[windows_at..table_end].iter().map(|&b| b as i8).collect(),
        };
        header.check_levels()?;
        Ok(header)
    }

    /// The checks of [`Header::decode`] on the level table and the window
    /// table: every written level where the layout puts it and the rest
    /// empty; every window of a written level where a window may start, the
    /// rest zero.
    fn check_levels(&self) -> Result<(), HeaderProblem> {
        let corrupt = |why: String| HeaderProblem::Corrupt(why);
        let indexer = Indexer::new(self.houses, self.max_seeds);
        for n in 0..=self.max_seeds {
            let e = self.levels[n as usize];
            if n < self.levels_done {
                let want = self.layout(&indexer, n);
                if (e.offset, e.boards, e.sums_offset) != (want.offset, want.boards, want.sums_offset) {
                    return Err(corrupt(format!("level {n} table entry does not match the layout")));
                }
            } else if e != LevelEntry::default() {
                return Err(corrupt(format!("level {n} has a table entry but is not done")));
            }
            if let Encoding::Window(bits) = self.encoding {
                let lows = &self.windows[window_index(n)..=window_index(n) + n as usize];
                let step = self.value_step();
                let done = n < self.levels_done;
                let fits = |&low: &i8| if done { Window::may_start_at(bits, n, step, low as i32) } else { low == 0 };
                if let Some(m) = lows.iter().position(|low| !fits(low)) {
                    return Err(corrupt(format!("level {n}: the window of {m} seeds to move starts at {}, where no window can", lows[m])));
                }
            }
        }
        Ok(())
    }
}

/// Bytes of the header of a database of up to `max_seeds` seeds in `encoding`.
pub const fn header_bytes(max_seeds: u32, encoding: Encoding) -> u64 {
    let windows = if encoding.has_windows() { window_table_bytes(max_seeds) } else { 0 };
    align((FIXED + ENTRY * (max_seeds as usize + 1) + windows) as u64)
}

/// Blocks in a level of `boards` boards.
pub const fn blocks(boards: u64) -> u64 {
    boards.div_ceil(BLOCK_BYTES as u64)
}

/// The block checksum table of a level's values, as bytes.
pub fn block_sums(values: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 * blocks(values.len() as u64) as usize);
    for block in values.chunks(BLOCK_BYTES as usize) {
        out.extend_from_slice(&xxh3_64(block).to_le_bytes());
    }
    out
}

/// The block checksum table in parallel (for large levels).
pub fn block_sums_parallel(values: &[u8]) -> Vec<u8> {
    block_sums_parallel_sized(values, BLOCK_BYTES as usize)
}

/// The block checksum table of level `n`'s values in `encoding`, in parallel.
pub fn level_block_sums(encoding: Encoding, n: u32, values: &[u8]) -> Vec<u8> {
    block_sums_parallel_sized(values, encoding.block_bytes(n) as usize)
}

/// The block checksum table of values whose blocks take `block_bytes`
/// bytes (a packed encoding's), in parallel.
pub fn block_sums_parallel_sized(values: &[u8], block_bytes: usize) -> Vec<u8> {
    use rayon::prelude::*;
    let sums: Vec<u64> = values.par_chunks(block_bytes).map(xxh3_64).collect();
    sums.iter().flat_map(|s| s.to_le_bytes()).collect()
}

/// The level checksum of a block checksum table.
pub fn level_checksum(sums: &[u8]) -> u64 {
    xxh3_64(sums)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_code_read_by_words_is_the_largest_read_one_by_one() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for w in 1..=7u32 {
            for boards in [0u64, 1, 7, 8, 63, 64, 65, 1000, 4099] {
                let bytes = (boards * w as u64).div_ceil(8) as usize;
                let values: Vec<u8> = (0..bytes)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        // Mostly small codes, so that the largest is not always the mask.
                        (seed as u8) & if seed.is_multiple_of(3) { 0xff } else { 0x11 }
                    })
                    .collect();
                let one_by_one = (0..boards).fold(0, |m, i| m.max(read_code(&values, i, w)));
                assert_eq!(largest_code_in(&values, boards, w), one_by_one, "w {w}, boards {boards}");
            }
        }
    }

    #[test]
    fn codes_written_and_read_by_words_are_the_codes_one_by_one() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for w in 1..=8u32 {
            for boards in [0usize, 1, 7, 8, 31, 32, 33, 1000, 4099] {
                let codes: Vec<u8> = (0..boards)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        (seed as u32 & ((1 << w) - 1)) as u8
                    })
                    .collect();
                // Written by the writer of words, into bytes that were not zero.
                let mut packed = vec![0xa5u8; (boards * w as usize).div_ceil(8)];
                let mut writer = CodeWriter::new(&mut packed, w);
                codes.iter().for_each(|&c| writer.push(c));
                writer.finish();
                let read: Vec<u8> = (0..boards as u64).map(|i| read_code(&packed, i, w) as u8).collect();
                assert_eq!(read, codes, "w {w}, boards {boards}");
                // Read back by words from every start, to every end.
                for first in [0usize, 1, 3, boards / 2, boards.saturating_sub(1)].into_iter().filter(|&f| f <= boards) {
                    for end in [first, (first + 9).min(boards), boards] {
                        let mut out = vec![0u8; end - first];
                        read_codes(&packed, first as u64, w, &mut out);
                        assert_eq!(out, codes[first..end], "w {w}, boards {first}..{end}");
                    }
                }
            }
        }
    }

    #[test]
    fn headers_round_trip_and_catch_damage() {
        let rules = Rules { capture: Capture::Empty, relay: Relay::On, ..Rules::default() };
        let mut h = Header::new(6, 20, rules);
        let ix = Indexer::new(6, 20);
        h.levels[0] = h.layout(&ix, 0);
        h.levels[0].checksum = 77;
        h.levels_done = 1;
        let bytes = h.encode();
        assert_eq!(bytes.len() as u64 % ALIGN, 0);
        assert_eq!(Header::decode(&bytes).unwrap(), h);

        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        assert!(matches!(Header::decode(&flipped), Err(HeaderProblem::Corrupt(_))));
        let mut magic = bytes.clone();
        magic[0] = b'X';
        assert_eq!(Header::decode(&magic), Err(HeaderProblem::Magic));
        let mut version = bytes.clone();
        version[8] = 9;
        assert_eq!(Header::decode(&version), Err(HeaderProblem::Version(9)));
        assert!(matches!(Header::decode(&bytes[..100]), Err(HeaderProblem::Truncated(_))));
        assert!(matches!(Header::decode(&bytes[..10]), Err(HeaderProblem::Truncated(_))));
    }

    #[test]
    fn the_layout_is_aligned_and_sized() {
        let h = Header::new(6, 20, Rules::default());
        let ix = Indexer::new(6, 20);
        let mut end = h.bytes();
        for n in 0..=20 {
            let e = h.layout(&ix, n);
            assert_eq!(e.offset % ALIGN, 0);
            assert_eq!(e.offset, end);
            assert_eq!(e.sums_offset % ALIGN, 0);
            assert!(e.sums_offset >= e.offset + e.boards);
            end = h.level_end(e.offset, n, e.boards);
        }
        assert_eq!(h.file_bytes(&ix), end);
        // 225,792,840 boards plus headers, sums and padding.
        assert!(end > 225_792_840 && end < 225_792_840 + (4 << 20), "{end}");
    }

    #[test]
    fn packed_layouts_take_the_bits_of_their_encoding() {
        let ix = Indexer::new(6, 32);
        for encoding in [Encoding::Share, Encoding::Offset] {
            let h = Header::encoded(6, 32, Rules::default(), encoding);
            let mut end = h.bytes();
            for n in 0..=32 {
                let e = h.layout(&ix, n);
                assert_eq!((e.offset % ALIGN, e.offset, e.sums_offset % ALIGN), (0, end, 0));
                assert_eq!(e.sums_offset, align(e.offset + (e.boards * encoding.bits(n) as u64).div_ceil(8)));
                end = h.level_end(e.offset, n, e.boards);
            }
            assert_eq!(h.file_bytes(&ix), end);
            let bytes = h.encode();
            assert_eq!(Header::decode(&bytes).unwrap().encoding, encoding);
        }
        // 32 seeds: 21.1 G boards, 6 bits for the last level and 5 or fewer
        // below as shares (issue 51): 12.9 GiB against 19.6 at a byte a board.
        let share = Header::encoded(6, 32, Rules::default(), Encoding::Share).file_bytes(&ix);
        let byte = Header::new(6, 32, Rules::default()).file_bytes(&ix);
        assert_eq!((share >> 27, byte >> 27), (103, 157), "{share} against {byte} (in 1/8 GiB)");
        // Windows (issue 63): 34 seeds at 3 bits, 33 at 4, beside 34 exact.
        let ix34 = Indexer::new(6, 34);
        let window3 = Header::encoded(6, 34, Rules::default(), Encoding::Window(3)).file_bytes(&ix34);
        let window4 = Header::encoded(6, 33, Rules::default(), Encoding::Window(4)).file_bytes(&Indexer::new(6, 33));
        let exact34 = Header::encoded(6, 34, Rules::default(), Encoding::Share).file_bytes(&ix34);
        assert_eq!((window3 >> 27, window4 >> 27, exact34 >> 27), (108, 107, 203), "in 1/8 GiB: 13.5, 13.4 and 25.4 GiB");
        let mut unknown = Header::new(3, 4, Rules::default()).encode();
        unknown[23] = 6;
        let sum = xxh3_64(&[&unknown[..CHECKSUM_AT], &[0; 8], &unknown[CHECKSUM_AT + 8..]].concat());
        unknown[CHECKSUM_AT..CHECKSUM_AT + 8].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(Header::decode(&unknown), Err(HeaderProblem::Corrupt("unknown value encoding code 6".into())));
    }

    #[test]
    fn codes_round_trip_and_refuse_what_they_cannot_hold() {
        assert_eq!([0, 1, 2, 3, 4, 7, 8, 31, 32, 127].map(bits), [1, 1, 2, 2, 3, 3, 4, 5, 6, 7]);
        for n in 0..=127u32 {
            for encoding in [Encoding::Share, Encoding::Offset] {
                assert!(encoding.bits(n) <= 8);
                for v in -(n as i32)..=n as i32 {
                    match encoding.code_of(n, v) {
                        Some(code) => {
                            assert!(code <= encoding.largest_code(n) && code < 1 << encoding.bits(n));
                            assert_eq!(encoding.value_of(n, code), v);
                        }
                        None => assert!(encoding == Encoding::Share && (v + n as i32) % 2 != 0),
                    }
                }
                assert_eq!(encoding.code_of(n, n as i32 + 1), None);
                assert_eq!(encoding.code_of(n, -(n as i32) - 2), None);
            }
        }
        // Packed and read back, every width, from a block's start.
        for n in [0u32, 1, 5, 17, 31, 32, 63, 100, 127] {
            for encoding in [Encoding::Share, Encoding::Offset] {
                let values: Vec<u8> = (0..1000).map(|i| (((i * 7919) % (n as i64 + 1)) * 2 - n as i64) as i8 as u8).collect();
                let w = encoding.bits(n);
                let mut out = vec![0u8; encoding.value_bytes(n, 1000) as usize + 1];
                pack_values(encoding, n, 0, &values, &mut out).unwrap();
                for (i, &v) in values.iter().enumerate() {
                    assert_eq!(encoding.value_of(n, read_code(&out, i as u64, w)), v as i8 as i32, "n {n} board {i}");
                }
            }
        }
        let mut out = vec![0u8; 8];
        assert_eq!(pack_values(Encoding::Share, 4, 0, &[2, 0, 1, 4], &mut out), Err(2), "an odd value of 4 seeds");
    }
}
