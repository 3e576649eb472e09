//! The journal of a long search: what it has proven, kept in a directory
//! so that the same search, run again (after a kill, a reboot, or on
//! another machine), resumes where it stopped. See
//! [`kalah_search::journal`] for what is kept and how a search uses it;
//! this module is the file and its checks.
//!
//! # Format, version 1
//!
//! One file, `DIR/journal.kj`, compressed as a whole by zstd. Inside,
//! little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `KALAHJNL` |
//! | 4 | version, 1 |
//! | 4 | houses a side `h` |
//! | 4 | seeds of the database the search read (`u32::MAX`: none, or a search memory) |
//! | 4 | sessions that wrote it (runs of the search) |
//! | 8 | nodes searched by all of them (as of each one's last write) |
//! | 8 | seconds they took (an `f64`) |
//! | 8 | the least subtree kept, in nodes |
//! | 2 + n | the rules, as `kalah` prints them (`capture=empty end=...`): length, UTF-8 |
//! | 2 + n | the position searched, in the ring form (`6,6,...,0 S`): length, UTF-8; empty in a search memory |
//! | 8 | entries `e` |
//! | e × (2h + 5) | each entry: the board's `2h` houses (the player to move's first), its lower and upper bound (`i16`; `i16::MIN` and `i16::MAX`: no bound), its best move (0-based house, 255: none), sorted by board |
//! | 8 | root tests `t` |
//! | t × (2h + 2) | each: a root board's `2h` houses, and the `beta` (`i16`) of the test "value >= beta" last begun on it, sorted by board |
//! | 8 | xxh3-64 of every byte before it |
//!
//! A journal is refused, with the reason, if it does not decompress, its
//! checksum or layout is wrong, its version is another, it was made for
//! other rules, another board size or another position, or an entry holds
//! bounds no search could prove (outside the values the board's seeds
//! allow, a lower bound above the upper). It is taken whatever database
//! its search read (the bounds hold over any: a database holds exact
//! values, or in a window encoding proven bounds), and the seeds recorded
//! are only a note. A file that is not a
//! regular file (a FIFO) is refused without being read.
//!
//! Bounds within those limits are trusted as they are read, but not
//! blindly: a search that proves bounds crossing those kept fails with
//! the journal named (the answer is not given), and `kalah journal
//! verify` proves a sample of them again from scratch.
//!
//! # Search memory
//!
//! The same file, with no position and no database, is a *search memory*
//! ([`Identity::memory`]): kept in the database folder, one for each board
//! size and set of rules (`DIR/memory/kalah-hH-RULES/journal.kj`,
//! [`crate::Databases::memory_dir`]), read by every search of those rules
//! that asks for it ([`crate::Memory::All`]) and added to.
//! Its bounds hold whatever the position and the database, so a search
//! run again answers from it at once, and a search of another position
//! uses what it shares with the earlier ones. A memory that is damaged, or
//! in use by another process, is passed over with a note.
//!
//! # Table snapshot
//!
//! Beside a search's journal (not a search memory), `DIR/table.kt` keeps
//! the transposition table as of the journal's last write
//! (the table snapshot, `table.kt`): what makes a resume on the same machine cheap.
//! It is no part of the record: a journal moves to another machine
//! without it.
//!
//! It is written whole each time, through [`kalah_db::safe::SafeFile`]
//! (a partial file, synced, renamed over the old one): a kill at any moment
//! leaves the previous journal intact. The directory is locked while a
//! search uses it; a second search on it is refused.

mod format;
mod running;
mod summary;

pub use format::{Contents, Identity, JournalDir, Loaded, DEFAULT_MIN_NODES, FILE_NAME};
pub use running::{JournalSpec, Journaling, MAX_WRITE_SPACING};
pub use summary::{summary, Summary, TestStanding, TurnBounds, MAX_SUMMARY_DEPTH};

pub use crate::memory::snapshot::TableEntries;
pub use crate::report::JournalReport;
