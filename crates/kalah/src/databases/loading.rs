//! A database about to back a search: copied into memory when it fits
//! comfortably, else used mapped (and read into the page cache in the
//! background when it fits there).

use kalah_db::Database;

use crate::error::{Error, Result};

/// The largest database an interactive game copies into memory before its
/// first answer (loading reads 3-4 GiB/s from the page cache, but a file
/// not cached is read from disk), and the largest default database it
/// picks: a larger one named by [`DbSpec::file`](crate::databases::DbSpec::file) is used mapped, so the
/// game starts at once, its file read into the page cache in the
/// background where it fits ([`for_search_up_to`]).
pub const INTERACTIVE_LOAD_LIMIT: u64 = 2 << 30;

/// A database about to back a search: copied into huge-page memory when it
/// fits comfortably, else used mapped, its file read once in the
/// background when it fits in the memory available
/// ([`Database::read_ahead_in_background`]: a mapped file's pages are
/// otherwise faulted in 4 KiB at a time by the search's probes). The copy spares the search the
/// mapping's page faults and, where the processor's TLB sees huge pages,
/// its TLB misses; on the virtual machines measured the two came out
/// about level (BENCHMARKS.md, "Loading a database"). The copy reads on
/// `threads` threads.
pub fn for_search(db: Database, threads: usize) -> Result<Database> {
    for_search_up_to(db, u64::MAX, threads)
}

/// [`for_search`] for a database of at most `limit` bytes; a larger one is used mapped.
pub fn for_search_up_to(db: Database, limit: u64, threads: usize) -> Result<Database> {
    load_if_it_fits(db, limit, 1, threads)
}

/// [`for_search`] for `copies` processes of this machine, each backing a
/// search of its own with the database (the ranks of a distributed
/// search): copied if all the copies fit as one would, else used mapped,
/// so that the processes share one copy in the page cache.
pub fn for_search_by(db: Database, copies: usize, threads: usize) -> Result<Database> {
    load_if_it_fits(db, u64::MAX, copies.max(1) as u64, threads)
}

/// Whether a search copies a database file of `bytes` (in `copies`
/// processes of this machine) into memory, `available` bytes being free:
/// when the copies take less than half of it. The one rule of
/// [`for_search`], and of the memory a search is told it will take
/// ([`crate::answer::sizes::check_search_memory`]).
pub(crate) fn copied_into_memory(bytes: u64, copies: u64, available: u64) -> bool {
    bytes.saturating_mul(copies) < available / 2
}

/// [`for_search`] with `copies` copies of the file, each at most `limit` bytes.
fn load_if_it_fits(db: Database, limit: u64, copies: u64, threads: usize) -> Result<Database> {
    let free = kalah_db::writer::available_memory().unwrap_or(0);
    if copied_into_memory(db.file_bytes(), copies, free) && db.file_bytes() <= limit {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::refused(format!("cannot start {threads} threads to load the database: {e}")))?;
        Ok(pool.install(|| db.load_into_memory())?)
    } else {
        if db.file_bytes() < free {
            db.read_ahead_in_background();
        }
        Ok(db)
    }
}
