//! Which way a database file is built, and what it needs: every level in
//! memory ([`crate::builder`], written by [`crate::writer`]) where that
//! fits, else one level at a time ([`crate::levels`]); in a window
//! encoding, from its exact file, built first beside it. The one choice of
//! every build ([`plan`]), and the refusal up front of one that cannot fit.

use std::fs;
use std::path::{Path, PathBuf};

use kalah_core::{Indexer, Rules};

use crate::builder::check_size;
use crate::error::DbError;
use crate::format::{Encoding, Header};
use crate::safe::partial_path;
use crate::writer::{available_memory, build_file_with, check_disk, check_encoding, check_memory, reencode, write_at, BuildProgress, BuildReport};

/// Memory and disk a build needs: `(memory bytes, file bytes)`, by the
/// method [`plan`] chooses within the memory available now.
pub fn requirements(h: usize, max_seeds: u32, rules: Rules, encoding: Encoding) -> (u64, u64) {
    let plan = plan(h, max_seeds, rules, encoding, None);
    (plan.memory, plan.disk)
}

/// How a build is made, and what it needs ([`plan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildPlan {
    /// One level at a time ([`crate::levels`]), because every level does
    /// not fit in memory at once.
    pub by_levels: bool,
    /// Bytes of memory it needs at least: every level a byte a board (and
    /// for rules that may cycle the retrograde working set), or by levels
    /// the largest level beside the level below it.
    pub memory: u64,
    /// The memory it may use: the limit given, else what the system has
    /// available (`u64::MAX` if it does not say).
    pub limit: u64,
    /// Bytes of disk: the file, and for a window encoding the exact file
    /// it is written from, until it is removed.
    pub disk: u64,
}

/// How a database of `h` houses, `rules` and up to `max_seeds` seeds in
/// `encoding` is built within `limit` bytes of memory (default: what the
/// system has available): every level in memory when that fits (or the
/// rules may cycle, whose levels are solved by retrograde analysis), else
/// one level at a time. The one choice of [`build_file_within`].
pub fn plan(h: usize, max_seeds: u32, rules: Rules, encoding: Encoding, limit: Option<u64>) -> BuildPlan {
    let indexer = Indexer::new(h, max_seeds);
    let limit = limit.or_else(available_memory).unwrap_or(u64::MAX);
    let exact = exact_encoding(encoding, rules);
    let file = Header::encoded(h, max_seeds, rules, encoding).file_bytes(&indexer);
    let disk = if encoding.is_exact() { file } else { file.saturating_add(Header::encoded(h, max_seeds, rules, exact).file_bytes(&indexer)) };
    // The builder's memory, plus the largest level's checksum table and slack.
    let whole = crate::builder::memory_needed(h, max_seeds, rules).saturating_add(indexer.len() / 4096 + (64 << 20));
    let by_levels = whole > limit && crate::levels::supports(rules) && max_seeds <= crate::levels::MAX_SEEDS;
    let memory = if by_levels { crate::levels::least_memory(h, max_seeds, exact) } else { whole };
    BuildPlan { by_levels, memory, limit, disk }
}

/// The exact encoding a file of `encoding` is built in: itself, or for a
/// window the packed exact encoding of the rules.
fn exact_encoding(encoding: Encoding, rules: Rules) -> Encoding {
    if encoding.is_exact() {
        encoding
    } else {
        Encoding::packed_for(rules)
    }
}

/// Refuses up front a build that cannot fit in memory or on disk.
pub fn check_resources(path: &Path, h: usize, max_seeds: u32, rules: Rules, encoding: Encoding) -> Result<(), DbError> {
    check_resources_within(path, h, max_seeds, rules, encoding, None)
}

/// [`check_resources`] within `limit` bytes of memory (default: what the
/// system has available).
pub fn check_resources_within(path: &Path, h: usize, max_seeds: u32, rules: Rules, encoding: Encoding, limit: Option<u64>) -> Result<(), DbError> {
    check_size(h, max_seeds)?;
    let plan = plan(h, max_seeds, rules, encoding, limit);
    let what = || format!("memory for {} {h}-house, {max_seeds}-seed database", kalah_core::article(h as u64));
    if plan.memory > plan.limit {
        return Err(DbError::too_large(what(), plan.memory, plan.limit));
    }
    check_memory(what, plan.memory)?;
    if encoding.is_exact() {
        return check_disk(path, plan.disk);
    }
    // A window file beside its exact file: what either has written so far
    // (the exact file may be complete) is not needed again.
    let exact = exact_path(path);
    let written = [partial_path(&exact), exact].iter().map(|p| fs::metadata(p).map_or(0, |m| m.len())).sum::<u64>();
    check_disk(path, plan.disk.saturating_sub(written))
}

/// Builds (or finishes building) the database of `h` houses, `rules` and
/// up to `max_seeds` seeds into `path`, one byte a board; see the module docs.
pub fn build_file(path: &Path, h: usize, rules: Rules, max_seeds: u32, progress: &dyn BuildProgress) -> Result<BuildReport, DbError> {
    build_file_encoded(path, h, rules, max_seeds, Encoding::Byte, progress)
}

/// [`build_file`] with the values stored in `encoding`, within the memory
/// the system has available ([`build_file_within`]). A build that
/// `progress` tells to stop ([`crate::Progress::stopped`]) ends with
/// [`DbError::Stopped`], the levels written kept for the next build.
pub fn build_file_encoded(
    path: &Path,
    h: usize,
    rules: Rules,
    max_seeds: u32,
    encoding: Encoding,
    progress: &dyn BuildProgress,
) -> Result<BuildReport, DbError> {
    build_file_within(path, h, rules, max_seeds, encoding, None, progress)
}

/// [`build_file_encoded`] within `limit` bytes of memory (default: what
/// the system has available): every level in memory if that fits, else
/// one level at a time ([`plan`], [`crate::levels`]). A window encoding
/// is written from the exact file, built first (or finished) at
/// [`exact_path`]`(path)` and removed once the window file is complete.
pub fn build_file_within(
    path: &Path,
    h: usize,
    rules: Rules,
    max_seeds: u32,
    encoding: Encoding,
    limit: Option<u64>,
    progress: &dyn BuildProgress,
) -> Result<BuildReport, DbError> {
    check_size(h, max_seeds)?;
    check_encoding(encoding, rules)?;
    if !encoding.is_exact() {
        let exact = exact_path(path);
        let mut report = match crate::Database::open_for(&exact, h, rules) {
            // A build stopped after its exact file was complete.
            Ok(db) if db.header().max_seeds == max_seeds && db.is_exact() => {
                BuildReport { path: exact.clone(), bytes: db.file_bytes(), resumed_levels: max_seeds + 1, level_seconds: Vec::new() }
            }
            _ => build_file_within(&exact, h, rules, max_seeds, exact_encoding(encoding, rules), limit, progress)?,
        };
        let windowed = reencode(&crate::Database::open(&exact)?, path, encoding, &|_| {})?;
        fs::remove_file(&exact).map_err(|e| DbError::io(&exact, e))?;
        report.path = windowed.path;
        report.bytes = windowed.bytes;
        return Ok(report);
    }
    let plan = plan(h, max_seeds, rules, encoding, limit);
    if plan.by_levels {
        return crate::levels::build_file_by_levels(path, h, rules, max_seeds, encoding, plan.limit, progress);
    }
    build_file_with(path, h, rules, max_seeds, encoding, progress, &mut |builder, n| match builder.build_next(progress) {
        Some(_) => Ok(()),
        None => Err(DbError::Stopped { path: path.to_path_buf(), levels: n, total: max_seeds + 1 }),
    })
}

/// Starts the build of `path` (`max_seeds` seeds in `encoding`, the file
/// [`build_file_within`] writes for it first: the exact one) from the
/// levels of `from`, a complete database of the same board and rules with
/// fewer seeds: they are copied into its partial file, which the build
/// then checks and goes on from. Returns the levels copied; 0 where the
/// build has a partial file already (it resumes from that). A database of
/// another board, other rules or values stored otherwise (exact in
/// another encoding), or of as many seeds, is refused.
pub fn start_from(from: &crate::Database, path: &Path, max_seeds: u32, encoding: Encoding) -> Result<u32, DbError> {
    let (old, rules) = (from.header(), from.header().rules);
    let target = if encoding.is_exact() { path.to_path_buf() } else { exact_path(path) };
    let exact = exact_encoding(encoding, rules);
    if old.encoding != exact || old.max_seeds >= max_seeds {
        return Err(DbError::Unsupported(format!(
            "{}: a build of {max_seeds} seeds in the {} encoding starts from a database of fewer seeds in it, not one of {} seeds in the {} encoding",
            from.path().display(),
            exact.name(),
            old.max_seeds,
            old.encoding.name()
        )));
    }
    crate::safe::refuse_partial_input(from.path(), &target)?;
    if partial_path(&target).exists() {
        return Ok(0);
    }
    let indexer = Indexer::new(old.houses, max_seeds);
    let mut header = Header::encoded(old.houses, max_seeds, rules, exact);
    check_disk(&target, header.file_bytes(&indexer))?;
    let (mut file, partial) = crate::safe::open_partial(&target)?;
    write_at(&mut file, &partial, 0, &header.encode())?;
    let bytes = from.file_bytes();
    for n in 0..=old.max_seeds {
        let (was, entry) = (old.levels[n as usize], header.layout(&indexer, n));
        // The values, their padding and the block checksums, as they were.
        let end = old.levels.get(n as usize + 1).map_or(bytes, |e| e.offset);
        let mut at = 0;
        while at < end - was.offset {
            let piece = (end - was.offset - at).min(64 << 20);
            write_at(&mut file, &partial, entry.offset + at, &from.raw_bytes(was.offset + at, piece))?;
            at += piece;
        }
        header.levels[n as usize] = crate::format::LevelEntry { checksum: was.checksum, ..entry };
    }
    file.sync_data().map_err(|e| DbError::io(&partial, e))?;
    header.levels_done = old.max_seeds + 1;
    write_at(&mut file, &partial, 0, &header.encode())?;
    file.sync_data().map_err(|e| DbError::io(&partial, e))?;
    Ok(header.levels_done)
}

/// Where a file in a window encoding is built exactly first: `FILE.exact`
/// beside it (not a name the database folder takes for a database).
pub fn exact_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".exact");
    PathBuf::from(name)
}
