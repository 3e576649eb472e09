//! The limits every request is held to, whichever door asks: search
//! threads, a transposition table's size, a time limit.

/// The most search threads a request may ask for.
pub const MAX_THREADS: usize = 1024;

/// The largest transposition table a request may ask for, in MiB (1 PiB).
pub const MAX_TT_MB: usize = 1 << 30;

/// The longest time limit, in seconds (about 31 years): a deadline beyond
/// it could overflow the clock.
pub const MAX_TIME_LIMIT: f64 = 1e9;
