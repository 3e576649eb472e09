//! The limits every request is held to, whichever door asks: search
//! threads, a transposition table's size, a time limit.

/// The most search threads a request may ask for.
pub const MAX_THREADS: usize = 1024;

/// The largest transposition table a request may ask for, in MiB (1 PiB).
pub const MAX_TT_MB: usize = 1 << 30;

/// The longest time limit, in seconds (about 31 years): a deadline beyond
/// it could overflow the clock.
pub const MAX_TIME_LIMIT: f64 = 1e9;

/// A search's share of a door's memory ([`crate::Request::memory_share`]):
/// its bytes, what its set-up settles on, and the one way a database file
/// searched over mapped comes in. A mapped file's pages become the door's
/// as the search reads them, so a door that holds to a limit counts the
/// file whole while it keeps it mapped. `kalah::service::memory::Reservation`
/// is the one a server gives.
pub trait MemoryShare: std::fmt::Debug + Send + Sync {
    /// The bytes of the share: the request's transposition table at most
    /// half of it, a database built or copied into memory within the rest.
    fn bytes(&self) -> u64;

    /// The search's set-up is decided and needs `needed` bytes of the
    /// share (its table, beside a file it maps): the rest goes back to the
    /// door at once, for the files of the searches beside it.
    fn settle(&self, needed: u64);

    /// Whether a database file of `file` bytes may be mapped for the
    /// search and kept mapped after it (counted then among the `kept`
    /// bytes of what the door keeps), beside the share and the `kept`
    /// bytes kept already. The door may wait a moment for the searches
    /// set up beside it to settle.
    fn admit_file(&self, file: u64, kept: u64) -> bool;

    /// Lets go of what the door holds besides its shares and its
    /// keeping (a server's paused background searches, and the files
    /// their solvers keep mapped), for a file that would not fit; whether
    /// anything was let go.
    fn release_held(&self) -> bool;
}
