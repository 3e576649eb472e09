//! A fixed-size, lock-free transposition table shared by all search threads.
//!
//! # What an entry means
//!
//! An entry holds a *lower* and an *upper* bound on a value of one board,
//! and the house of the best move found, as a hint for move ordering. There
//! are two kinds:
//!
//! * **Exact** entries bound the board's true value (the future store
//!   difference for the player to move, see `kalah-core`). They never go
//!   stale, whichever search or thread wrote them, and two of them for the
//!   same board may always be intersected.
//! * **Guess** entries bound the value a *depth-limited* search found
//!   (leaves `depth` plies down guessed at no further gain, iterative
//!   deepening; or, searching for proofs, at the worst or the best their
//!   seeds allow, the side that proves nothing: `crate::search`, "Proven
//!   bounds"). They only speed up later depth-limited
//!   searches to the same or a smaller depth, and order their moves; an
//!   exact search takes neither a bound nor a move from them. A board has
//!   one entry: an exact entry replaces a guess, a guess never replaces an
//!   exact entry.
//!
//! # Layout: one `u64` per entry, eight to a cache line
//!
//! A board's packed key (`kalah_core::key`, `K` bits) is first put through
//! a bijection of `K`-bit numbers (`mix`). The low `b` bits of the mixed key
//! choose one of `2^b` buckets of eight entries (64 bytes, one cache line);
//! the remaining `K - b` bits are stored in the entry. Because `mix` is a
//! bijection and the bucket plus the stored bits give back the whole mixed
//! key, **a matching entry is always the same board**: no false hits, ever.
//! The table needs `K - b <= 39`, so at least `2^(K - 39)` buckets: 128 MiB
//! for the 60-bit keys of five and six houses. A solver asked for less
//! takes unary keys, whose width grows with the seeds a board holds, where
//! they cover every board it will search (`SearchOptions::keys`).
//!
//! ```text
//!  63                        25 24  23    19 18  16 15      8 7       0
//! +----------------------------+---+--------+------+---------+---------+
//! | mixed key >> b  (39 bits)  | G | work/d | move | 127 - U | L + 128 |
//! +----------------------------+---+--------+------+---------+---------+
//! ```
//!
//! * `L`, `U`: the bounds. A lower byte of 0 means no lower bound (-inf), an
//!   upper byte of 0 no upper bound (+inf), so the all-zero word is an empty
//!   entry that says nothing. Bounds outside the bytes' range are stored
//!   weakened (a lower bound lowered, an upper bound raised), never strengthened.
//! * `move`: the house (0-based) that produced the best value, an ordering hint.
//! * `G`: 1 for a guess entry.
//! * `work/d`: for an exact entry, log2 of the nodes searched to find the
//!   bounds (the replacement scheme keeps the entries that cost most); for a
//!   guess, the depth of the search that made it.
//!
//! Each entry is a single atomic word, so concurrent readers and writers
//! can never see half of one entry and half of another.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use kalah_db::memory::{prefetch, LargeBuffer};

/// Entries per bucket (one 64-byte cache line).
const WAYS: usize = 8;
/// Bits that number a way of a bucket ([`TranspositionTable::put`] packs them below a priority).
const WAY_BITS: u32 = WAYS.trailing_zeros();
const _: () = assert!(WAYS.is_power_of_two());
/// Bits of an entry that hold the key.
const KEY_BITS: u32 = 39;
/// Bits of an entry that hold the bounds, move, work and kind.
const DATA_BITS: u32 = 64 - KEY_BITS;
const DATA_MASK: u64 = (1 << DATA_BITS) - 1;
/// The guess flag.
const GUESS: u64 = 1 << 24;

/// Bounds on a board's value, as the table returns them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// A value the board's value is at least (`i32::MIN` if unknown).
    pub lower: i32,
    /// A value the board's value is at most (`i32::MAX` if unknown).
    pub upper: i32,
    /// The house that produced the best value (0-based), a hint.
    pub best: u8,
    /// `None` for an exact entry; the depth of the search for a guess.
    pub guess_depth: Option<u32>,
    /// For an exact entry, log2 of the nodes searched to find it.
    pub work: u32,
}

impl Bounds {
    /// No information.
    pub const NONE: Bounds = Bounds { lower: i32::MIN, upper: i32::MAX, best: 0, guess_depth: None, work: 0 };

    /// Whether these are exact bounds.
    #[inline]
    pub fn is_exact(&self) -> bool {
        self.guess_depth.is_none()
    }
}

/// The transposition table; see the module docs.
pub struct TranspositionTable {
    /// `2^bucket_bits` buckets of `WAYS` entries, one cache line each.
    words: LargeBuffer,
    bucket_bits: u32,
    key_bits: u32,
    mixer: Mixer,
}

/// Bytes of one bucket.
const BUCKET_BYTES: usize = WAYS * 8;

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranspositionTable").field("bytes", &self.bytes()).field("key_bits", &self.key_bits).finish()
    }
}

/// Log2 of the buckets `bytes` bytes hold, rounded down (at least one bucket).
fn asked_bucket_bits(bytes: usize) -> u32 {
    (bytes / BUCKET_BYTES).max(1).ilog2()
}

/// Log2 of the buckets of a table asked for `bytes` bytes: see [`TranspositionTable::new`].
fn bucket_bits(bytes: usize, key_bits: u32) -> u32 {
    assert!((1..=64).contains(&key_bits));
    asked_bucket_bits(bytes).max(key_bits.saturating_sub(KEY_BITS)).min(key_bits)
}

/// A bijection of `bits`-bit numbers that spreads the key over the low bits.
#[derive(Clone, Copy, Debug)]
struct Mixer {
    mask: u64,
    half: u32,
}

impl Mixer {
    fn new(bits: u32) -> Mixer {
        Mixer { mask: if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 }, half: bits.div_ceil(2) }
    }

    #[inline]
    fn mix(self, key: u64) -> u64 {
        // Odd multipliers and right xor-shifts are both invertible modulo 2^bits.
        let mut x = key.wrapping_mul(MIX_A) & self.mask;
        x ^= x >> self.half;
        x = x.wrapping_mul(MIX_B) & self.mask;
        x ^= x >> self.half;
        x
    }

    /// The key `mix` turned into `mixed`: a shift by at least half the
    /// width undoes itself, and each multiplier has an inverse modulo 2^64
    /// (so modulo 2^bits).
    fn unmix(self, mixed: u64) -> u64 {
        let mut x = mixed;
        x ^= x >> self.half;
        x = x.wrapping_mul(inverse(MIX_B)) & self.mask;
        x ^= x >> self.half;
        x.wrapping_mul(inverse(MIX_A)) & self.mask
    }
}

const MIX_A: u64 = 0x9E37_79B9_7F4A_7C15;
const MIX_B: u64 = 0xD6E8_FEB8_6659_FD93;

/// The inverse of an odd `a` modulo 2^64, by Newton's iteration (each step
/// doubles the bits that are right; `a` itself is right to 3 bits).
const fn inverse(a: u64) -> u64 {
    let mut x = a;
    let mut i = 0;
    while i < 5 {
        x = x.wrapping_mul(2u64.wrapping_sub(a.wrapping_mul(x)));
        i += 1;
    }
    x
}

impl TranspositionTable {
    /// The smallest table (in bytes) for keys of `key_bits` bits.
    pub fn min_bytes(key_bits: u32) -> usize {
        (1usize << key_bits.saturating_sub(KEY_BITS)) * BUCKET_BYTES
    }

    /// The widest keys a table of `bytes` bytes holds at that size (its
    /// buckets rounded down to a power of two): the 39 bits an entry keeps
    /// and the bits that choose its bucket, at most 64.
    pub fn widest_keys(bytes: usize) -> u32 {
        (KEY_BITS + asked_bucket_bits(bytes)).min(64)
    }

    /// A table of at most `bytes` bytes (rounded down to a power of two of
    /// buckets, and up to [`TranspositionTable::min_bytes`]) for keys of
    /// `key_bits` bits. Fails only if the memory cannot be mapped.
    pub fn new(bytes: usize, key_bits: u32) -> std::io::Result<TranspositionTable> {
        let bucket_bits = bucket_bits(bytes, key_bits);
        let words = LargeBuffer::zeroed(BUCKET_BYTES << bucket_bits)?;
        Ok(TranspositionTable { words, bucket_bits, key_bits, mixer: Mixer::new(key_bits) })
    }

    /// The size in bytes of the table [`TranspositionTable::new`] makes
    /// when asked for `bytes` bytes with keys of `key_bits` bits.
    pub fn size_for(bytes: usize, key_bits: u32) -> usize {
        BUCKET_BYTES << bucket_bits(bytes, key_bits)
    }

    #[inline]
    fn bucket(&self, index: usize) -> &[AtomicU64] {
        &self.words.atomic_u64()[index * WAYS..index * WAYS + WAYS]
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> usize {
        self.words.len()
    }

    /// Empties the table.
    pub fn clear(&self) {
        for e in self.words.atomic_u64() {
            e.store(0, Relaxed);
        }
    }

    #[inline]
    fn locate(&self, key: u64) -> (&[AtomicU64], u64) {
        let mixed = self.mixer.mix(key);
        let bucket = self.bucket((mixed & ((1u64 << self.bucket_bits) - 1)) as usize);
        (bucket, mixed >> self.bucket_bits)
    }

    /// Asks the processor to start fetching the bucket of `key`, so that a
    /// later [`TranspositionTable::probe`] finds it in cache.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        let (bucket, _) = self.locate(key);
        prefetch(&bucket[0]);
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Bounds> {
        let (bucket, stored) = self.locate(key);
        for e in bucket {
            let word = e.load(Relaxed);
            if word >> DATA_BITS == stored && word != 0 {
                return Some(decode(word));
            }
        }
        None
    }

    /// The exact bounds stored for `key`, if any (guess entries ignored).
    #[inline]
    pub fn probe_exact(&self, key: u64) -> Option<Bounds> {
        self.probe(key).filter(Bounds::is_exact)
    }

    /// Records `lower <= value <= upper` for `key`, found by searching
    /// `nodes` nodes, with `best` the house of the best move. The bounds are
    /// intersected with the exact ones already stored for the key, and
    /// replace a guess.
    #[inline]
    ///
    /// The move of a lower bound (a move proven to reach it) is kept when
    /// only an upper bound comes (whose move is merely the least bad one).
    pub fn store(&self, key: u64, lower: i32, upper: i32, best: u8, nodes: u64) {
        let work = (64 - nodes.leading_zeros()).min(31) as u64;
        self.put(key, |old| match old {
            Some(old) if old.is_exact() => {
                let keep = lower == i32::MIN && old.lower != i32::MIN;
                let (narrowed_lower, narrowed_upper) = (lower.max(old.lower), upper.min(old.upper));
                // Bounds that cross can only come from an entry read from a
                // journal (a damaged or forged one, which the journal reports
                // as it sees the same bounds): what was proven now replaces it.
                if narrowed_lower > narrowed_upper {
                    return Some((lower, upper, best, work, false));
                }
                Some((narrowed_lower, narrowed_upper, if keep { old.best } else { best }, work.max(old_work(old)), false))
            }
            _ => Some((lower, upper, best, work, false)),
        });
    }

    /// Records `lower <= value <= upper` for the value a search of depth
    /// `depth` found for `key`. Never replaces an exact entry; replaces a
    /// guess of a smaller depth, and is intersected with one of the same.
    #[inline]
    pub fn store_guess(&self, key: u64, lower: i32, upper: i32, best: u8, depth: u32) {
        let depth = depth.min(31) as u64;
        self.put(key, |old| match old {
            Some(old) if old.is_exact() => None,
            Some(old) if old.guess_depth == Some(depth as u32) && lower.max(old.lower) <= upper.min(old.upper) => {
                Some((lower.max(old.lower), upper.min(old.upper), best, depth, true))
            }
            Some(old) if old.guess_depth > Some(depth as u32) => None,
            _ => Some((lower, upper, best, depth, true)),
        });
    }

    /// Writes the entry of `key` as `update` decides from the old one
    /// (`(lower, upper, best, work or depth, guess)`, or `None` to leave it).
    #[inline]
    fn put(&self, key: u64, update: impl Fn(Option<Bounds>) -> Option<(i32, i32, u8, u64, bool)>) {
        let (bucket, stored) = self.locate(key);
        // The entry of least priority, the first of equals: its priority
        // above its way ([`WAY_BITS`]), so that a minimum picks it without branches.
        let mut least = u64::MAX;
        for (i, e) in bucket.iter().enumerate() {
            let word = e.load(Relaxed);
            if word >> DATA_BITS == stored && word != 0 {
                if let Some((lower, upper, best, field, guess)) = update(Some(decode(word))) {
                    e.store(encode(stored, lower, upper, best, field, guess), Relaxed);
                }
                return;
            }
            least = least.min(priority(word) << WAY_BITS | i as u64);
        }
        let (victim, victim_priority) = ((least & (WAYS as u64 - 1)) as usize, least >> WAY_BITS);
        if let Some((lower, upper, best, field, guess)) = update(None) {
            // Guesses are cheap to redo: they never push out an exact entry.
            if guess && victim_priority >= EXACT_PRIORITY {
                return;
            }
            bucket[victim].store(encode(stored, lower, upper, best, field, guess), Relaxed);
        }
    }

    /// Every exact entry: its key and bounds, for a snapshot of the table
    /// (the guesses of depth-limited searches are cheap to make again). A
    /// search may write while this reads: each entry is read whole.
    pub fn exact_entries(&self) -> impl Iterator<Item = (u64, Bounds)> + '_ {
        self.words.atomic_u64().iter().enumerate().filter_map(move |(i, e)| {
            let word = e.load(Relaxed);
            if word == 0 || word & GUESS != 0 {
                return None;
            }
            let bucket = (i / WAYS) as u64;
            let mixed = ((word >> DATA_BITS) << self.bucket_bits) | bucket;
            Some((self.mixer.unmix(mixed), decode(word)))
        })
    }

    /// Stores an exact entry read from a snapshot
    /// ([`TranspositionTable::exact_entries`]): as [`TranspositionTable::store`]
    /// of a search of `2^(work - 1)` nodes.
    pub fn restore(&self, key: u64, bounds: Bounds) {
        let nodes = if bounds.work == 0 { 0 } else { 1u64 << (bounds.work - 1).min(62) };
        self.store(key, bounds.lower, bounds.upper, bounds.best, nodes);
    }

    /// The share of entries in use, per mille, from a sample of the table.
    pub fn fill_permille(&self) -> u32 {
        let words = self.words.atomic_u64();
        let sample = words.len().min(8192);
        let used = words[..sample].iter().filter(|e| e.load(Relaxed) != 0).count();
        (used * 1000 / sample) as u32
    }
}

/// Priorities of exact entries start here (guesses and empty slots are below).
const EXACT_PRIORITY: u64 = 64;

/// How much an entry is worth keeping: empty 0, guesses by depth, exact
/// entries by work above all guesses.
#[inline]
fn priority(word: u64) -> u64 {
    let kind = if word & GUESS != 0 { 1 } else { EXACT_PRIORITY };
    if word == 0 {
        0
    } else {
        kind + ((word >> 19) & 31)
    }
}

#[inline]
fn old_work(b: Bounds) -> u64 {
    b.work as u64
}

#[inline]
fn encode(stored: u64, lower: i32, upper: i32, best: u8, field: u64, guess: bool) -> u64 {
    // Weakening: a lower bound below -127 becomes "none" (byte 0); an upper
    // bound above 126 becomes "none" (byte 0).
    let lo = if lower < -127 { 0 } else { (lower.min(127) + 128) as u64 };
    let up = if upper > 126 { 0 } else { (127 - upper.max(-127)) as u64 };
    let data = lo | (up << 8) | (((best & 7) as u64) << 16) | ((field & 31) << 19) | if guess { GUESS } else { 0 };
    debug_assert_eq!(data & !DATA_MASK, 0);
    (stored << DATA_BITS) | data
}

#[inline]
fn decode(word: u64) -> Bounds {
    let lo = (word & 0xff) as i32;
    let up = ((word >> 8) & 0xff) as i32;
    let field = ((word >> 19) & 31) as u32;
    Bounds {
        lower: if lo == 0 { i32::MIN } else { lo - 128 },
        upper: if up == 0 { i32::MAX } else { 127 - up },
        best: ((word >> 16) & 7) as u8,
        guess_depth: (word & GUESS != 0).then_some(field),
        work: if word & GUESS != 0 { 0 } else { field },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn exact(lower: i32, upper: i32, best: u8) -> Option<Bounds> {
        Some(Bounds { lower, upper, best, guess_depth: None, work: 0 })
    }

    /// Compares all but the work field.
    fn same(a: Option<Bounds>, b: Option<Bounds>) -> bool {
        a.map(|x| (x.lower, x.upper, x.best, x.guess_depth)) == b.map(|x| (x.lower, x.upper, x.best, x.guess_depth))
    }

    #[test]
    fn unmix_undoes_mix() {
        for bits in [1u32, 7, 16, 39, 40, 60, 64] {
            let m = Mixer::new(bits);
            for k in (0..1000u64).chain([m.mask, m.mask / 3, m.mask / 7]).map(|k| k & m.mask) {
                assert_eq!(m.unmix(m.mix(k)), k, "width {bits} key {k}");
            }
        }
    }

    #[test]
    fn a_snapshot_gives_back_every_exact_entry() {
        let table = TranspositionTable::new(1 << 20, 40).unwrap();
        let other = TranspositionTable::new(4 << 20, 40).unwrap();
        let keys: Vec<u64> = (0..5000u64).map(|i| i.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 24).collect();
        for (i, &k) in keys.iter().enumerate() {
            table.store(k, (i % 7) as i32 - 3, (i % 7) as i32 + 2, (i % 6) as u8, 1 << (i % 20));
        }
        table.store_guess(7, -1, 1, 0, 5);
        let entries: Vec<_> = table.exact_entries().collect();
        assert!(entries.len() > 3000, "{}", entries.len());
        for (key, bounds) in &entries {
            assert_eq!(table.probe(*key), Some(*bounds));
            other.restore(*key, *bounds);
        }
        for (key, bounds) in &entries {
            let back = other.probe(*key).unwrap();
            assert_eq!((back.lower, back.upper, back.best, back.work), (bounds.lower, bounds.upper, bounds.best, bounds.work));
        }
        assert!(entries.iter().all(|(_, b)| b.is_exact()));
    }

    #[test]
    fn mix_is_a_bijection_on_small_widths() {
        for bits in [1u32, 4, 8, 12, 16] {
            let mut seen = vec![false; 1 << bits];
            for k in 0..1u64 << bits {
                let m = Mixer::new(bits).mix(k) as usize;
                assert!(!seen[m], "collision at width {bits}");
                seen[m] = true;
            }
        }
    }

    #[test]
    fn bounds_are_stored_intersected_and_never_strengthened() {
        let tt = TranspositionTable::new(1 << 20, 60).unwrap();
        assert_eq!(tt.probe(42), None);
        tt.store(42, 3, i32::MAX, 2, 1000);
        assert!(same(tt.probe(42), exact(3, i32::MAX, 2)));
        assert_eq!(tt.probe(42).unwrap().work, 10);
        tt.store(42, -5, 9, 4, 10);
        assert!(same(tt.probe(42), exact(3, 9, 4)));
        assert_eq!(tt.probe(42).unwrap().work, 10, "the larger work is kept");
        tt.store(7, -200, 200, 0, 1);
        assert!(same(tt.probe(7), exact(i32::MIN, i32::MAX, 0)));
        tt.store(8, 200, 200, 0, 1);
        assert_eq!(tt.probe(8).unwrap().lower, 127, "a lower bound may only be weakened");
        assert_eq!(tt.probe(8).unwrap().upper, i32::MAX);
        tt.store(9, -126, -126, 0, 1);
        assert_eq!(tt.probe(9).unwrap().lower, -126);
        assert_eq!(tt.probe(9).unwrap().upper, -126);
    }

    #[test]
    fn a_lower_bound_keeps_its_move_when_an_upper_bound_comes() {
        let tt = TranspositionTable::new(1 << 20, 60).unwrap();
        tt.store(11, 4, i32::MAX, 2, 100);
        tt.store(11, i32::MIN, 6, 5, 100);
        assert!(same(tt.probe(11), exact(4, 6, 2)), "the move that reached 4 stays");
        tt.store(11, 6, i32::MAX, 3, 100);
        assert!(same(tt.probe(11), exact(6, 6, 3)), "a new lower bound brings its move");
        tt.store(12, i32::MIN, 0, 1, 100);
        tt.store(12, i32::MIN, -2, 4, 100);
        assert!(same(tt.probe(12), exact(i32::MIN, -2, 4)), "without a lower bound the newest move counts");
    }

    #[test]
    fn guesses_give_way_to_exact_entries_and_deeper_guesses() {
        let tt = TranspositionTable::new(1 << 20, 60).unwrap();
        tt.store_guess(5, 2, 4, 1, 6);
        assert_eq!(tt.probe(5).unwrap().guess_depth, Some(6));
        assert_eq!(tt.probe_exact(5), None, "a guess is no exact bound");
        tt.store_guess(5, 0, 0, 3, 3);
        assert_eq!(tt.probe(5).unwrap().lower, 2, "a shallower guess does not replace a deeper one");
        tt.store_guess(5, 8, 8, 2, 9);
        assert_eq!((tt.probe(5).unwrap().lower, tt.probe(5).unwrap().guess_depth), (8, Some(9)));
        tt.store(5, -1, 1, 0, 100);
        assert!(same(tt.probe(5), exact(-1, 1, 0)), "an exact entry replaces a guess");
        tt.store_guess(5, 10, 10, 4, 30);
        assert!(same(tt.probe(5), exact(-1, 1, 0)), "a guess never replaces an exact entry");
    }

    #[test]
    fn small_requests_get_the_minimum_size() {
        let tt = TranspositionTable::new(0, 60).unwrap();
        assert_eq!(tt.bytes(), TranspositionTable::min_bytes(60));
        assert_eq!(tt.bytes(), 128 << 20);
        assert_eq!(TranspositionTable::new(0, 16).unwrap().bytes(), 64);
        for (bytes, bits) in [(0, 60), (3 << 20, 60), (300 << 20, 60), (1000, 16)] {
            assert_eq!(TranspositionTable::size_for(bytes, bits), TranspositionTable::new(bytes, bits).unwrap().bytes());
        }
    }

    proptest! {
        #[test]
        fn no_key_is_ever_mistaken_for_another(keys in prop::collection::vec(0u64..1 << 20, 1..400)) {
            // A tiny table with 20-bit keys: 1 bucket bit is the minimum, so
            // buckets overflow and entries get replaced; a probe must return
            // only what was stored for that very key.
            let tt = TranspositionTable::new(128, 20).unwrap();
            let value = |k: u64| (k % 101) as i32 - 50;
            for &k in &keys {
                if k % 3 == 0 {
                    tt.store_guess(k, value(k), value(k), (k % 8) as u8, (k % 31) as u32);
                } else {
                    tt.store(k, value(k), value(k), (k % 8) as u8, k);
                }
            }
            for &k in &keys {
                if let Some(b) = tt.probe(k) {
                    prop_assert_eq!(b.lower, value(k));
                    prop_assert_eq!(b.upper, value(k));
                }
            }
        }
    }
}
