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
    load_if_it_fits(db, DbHold::Auto, limit, 1, threads)
}

/// How a database file backs a search ([`DbSpec::hold`](crate::DbSpec::hold)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DbHold {
    /// Copied into huge-page memory where the copy takes less than half
    /// the memory available (and the request's limits allow), else read
    /// through its mapping ([`for_search`]).
    #[default]
    Auto,
    /// Copied into huge-page memory whenever it fits beside the search's
    /// table in the memory available; refused up front, with the sizes,
    /// where it does not. A long proof over a large file: the Kalah(6,6)
    /// proof's 13.6 GiB file copied searched 1.09-1.24 times the nodes a
    /// second it did mapped (BENCHMARKS.md, "The Kalah(6,6) proof").
    Copied,
    /// Read through its mapping, never copied: pages in the page cache,
    /// shared with other processes, given back under memory pressure.
    Mapped,
}

impl DbHold {
    /// The names `auto`, `copied` and `mapped`.
    pub fn parse(name: &str) -> Option<DbHold> {
        match name {
            "auto" => Some(DbHold::Auto),
            "copied" => Some(DbHold::Copied),
            "mapped" => Some(DbHold::Mapped),
            _ => None,
        }
    }
}

/// [`for_search`] held as `hold` says, a file of more than `limit` bytes
/// mapped unless it is to be copied whatever its size ([`DbHold::Copied`]).
pub fn for_search_held(db: Database, hold: DbHold, limit: u64, threads: usize) -> Result<Database> {
    load_if_it_fits(db, hold, limit, 1, threads)
}

/// [`for_search`] for `copies` processes of this machine, each backing a
/// search of its own with the database (the ranks of a distributed
/// search): copied if all the copies fit as one would, else used mapped,
/// so that the processes share one copy in the page cache.
pub fn for_search_by(db: Database, copies: usize, threads: usize) -> Result<Database> {
    load_if_it_fits(db, DbHold::Auto, u64::MAX, copies.max(1) as u64, threads)
}

/// Whether a search copies a database file of `bytes` (in `copies`
/// processes of this machine) into memory, held as `hold` says, `limit`
/// the largest a request copies unless told to, `available` bytes being
/// free: told to ([`DbHold::Copied`]), or by default when the copies take
/// less than half of it and the file is within `limit`. The one rule of
/// [`for_search`], and of the memory a search is told it will take
/// ([`crate::answer::sizes::check_search_memory`]).
pub(crate) fn copied_into_memory(bytes: u64, hold: DbHold, limit: u64, copies: u64, available: u64) -> bool {
    match hold {
        DbHold::Copied => true,
        DbHold::Mapped => false,
        DbHold::Auto => bytes <= limit && bytes.saturating_mul(copies) < available / 2,
    }
}

/// [`for_search_held`] with `copies` copies of the file.
fn load_if_it_fits(db: Database, hold: DbHold, limit: u64, copies: u64, threads: usize) -> Result<Database> {
    let free = kalah_db::writer::available_memory().unwrap_or(0);
    if copied_into_memory(db.file_bytes(), hold, limit, copies, free) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_copied_by_default_when_it_takes_under_half_the_memory_free() {
        const GIB: u64 = 1 << 30;
        // 13.6 GiB with 23 GiB free: mapped by default; copied when told.
        let (proof, free) = (13 * GIB + GIB / 2, 23 * GIB);
        assert!(!copied_into_memory(proof, DbHold::Auto, u64::MAX, 1, free));
        assert!(copied_into_memory(proof, DbHold::Copied, u64::MAX, 1, free));
        assert!(copied_into_memory(GIB, DbHold::Auto, u64::MAX, 1, free));
        assert!(!copied_into_memory(GIB, DbHold::Mapped, u64::MAX, 1, free));
        // A request's limit, and copies for several processes.
        assert!(!copied_into_memory(GIB, DbHold::Auto, GIB - 1, 1, free));
        assert!(copied_into_memory(GIB, DbHold::Copied, GIB - 1, 1, free));
        assert!(!copied_into_memory(6 * GIB, DbHold::Auto, u64::MAX, 2, free));
        assert_eq!(
            [DbHold::parse("auto"), DbHold::parse("copied"), DbHold::parse("mapped"), DbHold::parse("copy")],
            [Some(DbHold::Auto), Some(DbHold::Copied), Some(DbHold::Mapped), None]
        );
    }
}
