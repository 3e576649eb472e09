//! Errors of the database crate.

use std::path::PathBuf;

use kalah_core::Rules;
use thiserror::Error;

/// What can go wrong with a database.
#[derive(Debug, Error)]
pub enum DbError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a database of this program (wrong magic).
    #[error("{path}: not a kalah database (wrong magic bytes)")]
    NotADatabase {
        /// The file.
        path: PathBuf,
    },
    /// The file was written by another version of the format.
    #[error("{path}: database format version {found}, this program reads version {expected}")]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The version this program reads.
        expected: u32,
    },
    /// The file is damaged: truncated, a checksum fails, a field is impossible.
    #[error("{path}: corrupt database: {why}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The build that writes the file has not finished.
    #[error("{path}: incomplete database ({levels} of {total} levels written); run the build again to finish it")]
    Incomplete {
        /// The file.
        path: PathBuf,
        /// Levels complete.
        levels: u32,
        /// Levels in all.
        total: u32,
    },
    /// The build was told to stop ([`crate::Progress::stopped`]) before
    /// it ended; the levels written are kept in the partial file.
    #[error(
        "{path}: the build was stopped after {levels} of {total} levels; they are kept in its partial file, and the same build goes on from them"
    )]
    Stopped {
        /// The file being built.
        path: PathBuf,
        /// Levels complete.
        levels: u32,
        /// Levels in all.
        total: u32,
    },
    /// The file is for another board or other rules than asked.
    #[error("{path}: database is for {found_houses} houses and {found}, not {houses} houses and {wanted}")]
    WrongRules {
        /// The file.
        path: PathBuf,
        /// Houses of the file.
        found_houses: usize,
        /// Rules of the file.
        found: Rules,
        /// Houses asked for.
        houses: usize,
        /// Rules asked for.
        wanted: Rules,
    },
    /// A position of another board size than the database's.
    #[error("a position of {position_houses} houses a side probed in a database of {db_houses}")]
    WrongBoard {
        /// The position's houses a side.
        position_houses: usize,
        /// The database's.
        db_houses: usize,
    },
    /// Not enough memory or disk.
    #[error("{what}: needs {needed} bytes ({needed_h}), but only {available} bytes ({available_h}) are available")]
    TooLarge {
        /// Memory or disk, and for what.
        what: String,
        /// Bytes needed.
        needed: u64,
        /// The same, readable.
        needed_h: String,
        /// Bytes available.
        available: u64,
        /// The same, readable.
        available_h: String,
    },
    /// Memory could not be allocated.
    #[error("cannot allocate {needed} bytes: {why}")]
    Memory {
        /// Bytes asked for.
        needed: u64,
        /// The reason.
        why: String,
    },
    /// A request this program does not support.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The file holds only bounds for the value asked for (a window
    /// encoding, for a value outside its window): a search over the file
    /// finds the value.
    #[error("{path}: the value lies outside the window this file stores exactly: it is proven to lie in {lower}..={upper}; a search over the file finds it")]
    OnlyBounds {
        /// The file.
        path: PathBuf,
        /// The value is at least this.
        lower: i32,
        /// The value is at most this.
        upper: i32,
    },
}

impl DbError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> DbError {
        DbError::Io { path: path.into(), source }
    }

    /// A corrupt file.
    pub fn corrupt(path: impl Into<PathBuf>, why: impl Into<String>) -> DbError {
        DbError::Corrupt { path: path.into(), why: why.into() }
    }

    /// Not enough memory or disk for `what`: `needed` bytes, `available` there.
    pub fn too_large(what: impl Into<String>, needed: u64, available: u64) -> DbError {
        DbError::TooLarge { what: what.into(), needed, needed_h: human_bytes(needed), available, available_h: human_bytes(available) }
    }
}

/// Bytes in a readable unit. Sizes are computed saturating, so `u64::MAX`
/// stands for "that much or more".
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes == u64::MAX {
        return "16.0 EiB or more".to_string();
    }
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::human_bytes;

    #[test]
    fn sizes_read_in_their_unit_and_a_saturated_one_says_so() {
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(15_367_102_212_151), "14.0 TiB");
        assert_eq!(human_bytes(3 << 50), "3.0 PiB");
        assert_eq!(human_bytes(1 << 62), "4.0 EiB");
        assert_eq!(human_bytes(u64::MAX), "16.0 EiB or more");
    }
}
