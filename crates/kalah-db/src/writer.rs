//! Building a database file: level by level, resumable, renamed into place
//! only when complete.
//!
//! The file under construction is `FILE.partial` next to `FILE`. After each
//! level its values and block checksums are written and flushed, then the
//! header is rewritten to count the level and flushed again (see
//! [`crate::format`]). A build that finds a `.partial` of the same database
//! checks every level it holds against its checksums, loads them, and goes
//! on from the first level missing; a killed build therefore loses at most
//! the level it was working on. The finished file is marked complete and
//! renamed over `FILE`, so an older `FILE` stays usable until then.
//!
//! A database already built in memory is written the same way, all at
//! once ([`save_built`]): the same bytes, under the same partial name
//! and lock, synced once at the end.

use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use kalah_core::{Indexer, Rules};

use crate::builder::{check_size, Builder, Progress};
use crate::error::DbError;
use crate::format::{align, block_sums_parallel, level_block_sums, level_checksum, Encoding, Header, LevelCodes, Window, BLOCK_BYTES};

/// Hears about a file build as it goes.
pub trait BuildProgress: Progress {
    /// `levels` finished levels were found in the partial file and kept.
    fn resumed(&self, levels: u32);
    /// Level `n` with `boards` boards is starting.
    fn level_started(&self, n: u32, boards: u64);
    /// Level `n` is solved and written.
    fn level_finished(&self, n: u32, seconds: f64);
}

/// Reports nothing, for builds nobody watches (tests, tools).
impl BuildProgress for crate::Quiet {
    fn resumed(&self, _: u32) {}
    fn level_started(&self, _: u32, _: u64) {}
    fn level_finished(&self, _: u32, _: f64) {}
}

/// What a finished build did.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildReport {
    /// The database file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Levels found already built in the partial file.
    pub resumed_levels: u32,
    /// Seconds per level built now (`(level, seconds)`).
    pub level_seconds: Vec<(u32, f64)>,
}

/// The name of the file a build of `path` writes until it is complete.
pub use crate::safe::partial_path;

/// Bytes of memory available for new allocations, if the system says.
pub fn available_memory() -> Option<u64> {
    let info = fs::read_to_string("/proc/meminfo").ok()?;
    info.lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

/// Refuses `needed` bytes of memory (for `what`) when the system says
/// fewer are available.
pub(crate) fn check_memory(what: impl FnOnce() -> String, needed: u64) -> Result<(), DbError> {
    match available_memory() {
        Some(available) if needed > available => Err(DbError::too_large(what(), needed, available)),
        _ => Ok(()),
    }
}

/// Refuses a file of `bytes` at `path` (written as its partial file) that
/// does not fit on its disk, counting what the partial file already holds.
pub(crate) fn check_disk(path: &Path, bytes: u64) -> Result<(), DbError> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if let Ok(free) = fs4::available_space(dir) {
        let partial = fs::metadata(partial_path(path)).map_or(0, |m| m.len());
        let needed = bytes.saturating_sub(partial);
        if needed > free {
            return Err(DbError::too_large(format!("disk space in {}", dir.display()), needed, free));
        }
    }
    Ok(())
}

/// [`crate::build_file_encoded`] with the solving of each level left to
/// `solve_level`, called with the builder and the level's number and
/// expected to leave that level solved (`builder.levels_done() == n + 1`);
/// for builds shared between processes, where each solves part of a level.
pub fn build_file_with(
    path: &Path,
    h: usize,
    rules: Rules,
    max_seeds: u32,
    encoding: Encoding,
    progress: &dyn BuildProgress,
    solve_level: &mut dyn FnMut(&mut Builder, u32) -> Result<(), DbError>,
) -> Result<BuildReport, DbError> {
    check_size(h, max_seeds)?;
    check_encoding(encoding, rules)?;
    let mut builder = Builder::new(h, rules, max_seeds)?;
    let mut header = Header::encoded(h, max_seeds, rules, encoding);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(|e| DbError::io(dir, e))?;
    }
    // Kept, not removed, when the build stops: the next one resumes from it.
    let (mut file, partial) = crate::safe::open_partial(path)?;

    let resumed = resume(&mut file, &partial, &mut header, &mut builder)?;
    if resumed > 0 {
        progress.resumed(resumed);
    } else {
        // A fresh start: an empty header.
        file.set_len(0).map_err(|e| DbError::io(&partial, e))?;
        write_at(&mut file, &partial, 0, &header.encode())?;
    }

    let mut level_seconds = Vec::new();
    while builder.levels_done() <= max_seeds {
        let n = builder.levels_done();
        progress.level_started(n, header.layout(builder.indexer(), n).boards);
        let start = Instant::now();
        solve_level(&mut builder, n)?;
        assert_eq!(builder.levels_done(), n + 1, "the level solver solved level {n}");
        write_level(&mut file, &partial, &mut header, &mut builder, n, true)?;
        let seconds = start.elapsed().as_secs_f64();
        level_seconds.push((n, seconds));
        progress.level_finished(n, seconds);
    }
    let bytes = finish(file, &partial, path, &mut header, builder.indexer())?;
    Ok(BuildReport { path: path.to_path_buf(), bytes, resumed_levels: resumed, level_seconds })
}

/// Writes the database `builder` holds, every level of it built (as by
/// [`Builder::build_all`]), into `path`: under its partial name, locked,
/// synced once and renamed when complete, so that a crash leaves no file
/// that looks finished. Refused up front when the disk lacks the room, or
/// when a level is not built.
pub fn save_built(path: &Path, builder: &mut Builder) -> Result<BuildReport, DbError> {
    let (h, max_seeds) = (builder.engine().houses(), builder.indexer().max_seeds());
    if builder.levels_done() <= max_seeds {
        return Err(DbError::Incomplete { path: path.to_path_buf(), levels: builder.levels_done(), total: max_seeds + 1 });
    }
    let mut header = Header::new(h, max_seeds, builder.engine().rules());
    check_disk(path, header.file_bytes(builder.indexer()))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(|e| DbError::io(dir, e))?;
    }
    let (mut file, partial) = crate::safe::open_partial(path)?;
    file.set_len(0).map_err(|e| DbError::io(&partial, e))?;
    write_at(&mut file, &partial, 0, &header.encode())?;
    for n in 0..=max_seeds {
        write_level(&mut file, &partial, &mut header, builder, n, false)?;
    }
    let bytes = finish(file, &partial, path, &mut header, builder.indexer())?;
    Ok(BuildReport { path: path.to_path_buf(), bytes, resumed_levels: 0, level_seconds: Vec::new() })
}

/// Writes the solved level `n` of `builder` (its values, zero padding and
/// block checksums), then the header counting it; with `sync`, each
/// flushed to disk before the next, so a killed build resumes after it.
fn write_level(file: &mut File, partial: &Path, header: &mut Header, builder: &mut Builder, n: u32, sync: bool) -> Result<(), DbError> {
    let indexer = builder.indexer().clone();
    write_level_values(file, partial, header, &indexer, n, builder.level_bytes(n), sync)
}

/// Writes level `n`, its `values` a signed byte a board (its values in
/// `header`'s encoding, zero padding and block checksums), then the header
/// counting it; with `sync`, each flushed to disk before the next.
pub(crate) fn write_level_values(
    file: &mut File,
    partial: &Path,
    header: &mut Header,
    indexer: &Indexer,
    n: u32,
    values: &[u8],
    sync: bool,
) -> Result<(), DbError> {
    let entry = header.layout(indexer, n);
    let encoding = header.encoding;
    let codes = level_codes(header, indexer, n, &mut |range| Ok(values[range.start as usize..range.end as usize].to_vec()))?;
    // Encoded and written a piece at a time: a packed copy of a whole
    // level beside the builder's bytes would not fit where the builder
    // barely does (32 seeds: 2.7 GB more for level 31 beside 21.1 GB).
    let mut sums = Vec::with_capacity(8 * crate::format::blocks(entry.boards) as usize);
    let mut at = entry.offset;
    for (k, piece) in values.chunks(REENCODE_PIECE as usize).enumerate() {
        let encoded = encode_level(&codes, encoding, k as u64 * REENCODE_PIECE, piece).map_err(|(board, v)| {
            let why = format!("level {n}, board {board}: value {v} has no code in the {} encoding (the build is wrong)", encoding.name());
            DbError::corrupt(partial, why)
        })?;
        let bytes = encoded.as_deref().unwrap_or(piece);
        // Each region with its zero padding, so the bytes never depend on
        // what a killed build left in the file.
        write_at(file, partial, at, bytes)?;
        sums.extend(level_block_sums(encoding, n, bytes));
        at += bytes.len() as u64;
    }
    let value_bytes = header.value_bytes(n, &entry);
    debug_assert_eq!(at, entry.offset + value_bytes);
    let gap = entry.sums_offset - entry.offset - value_bytes;
    write_at(file, partial, entry.offset + value_bytes, &vec![0u8; gap as usize])?;
    let mut sums_padded = sums.clone();
    sums_padded.resize((align(sums.len() as u64)) as usize, 0);
    write_at(file, partial, entry.sums_offset, &sums_padded)?;
    if sync {
        file.sync_data().map_err(|e| DbError::io(partial, e))?;
    }
    header.levels[n as usize] = crate::format::LevelEntry { checksum: level_checksum(&sums), ..entry };
    header.levels_done = n + 1;
    write_at(file, partial, 0, &header.encode())?;
    if sync {
        file.sync_data().map_err(|e| DbError::io(partial, e))?;
    }
    Ok(())
}

/// Writes the database `from` again into `to` with its values in
/// `encoding`: the same values, another file ([`crate::format`],
/// "Values"). Every block of `from` is checked first; the new file is
/// written under its partial name, locked, every block of it checked,
/// then renamed into place, so `to` may be `from`'s own path. Memory stays
/// near [`REENCODE_PIECE`] boards whatever the file's size. `progress`
/// hears the boards written.
pub fn reencode(from: &crate::Database, to: &Path, encoding: Encoding, progress: &(dyn Fn(u64) + Sync)) -> Result<BuildReport, DbError> {
    let old = from.header();
    check_reencode(from, encoding)?;
    crate::safe::refuse_partial_input(from.path(), to)?;
    crate::safe::check_writable(to)?;
    crate::safe::check_free(to)?;
    let indexer = from.indexer();
    let mut header = Header::encoded(old.houses, old.max_seeds, old.rules, encoding);
    check_disk(to, header.file_bytes(indexer))?;
    from.verify(&|_| {})?;
    let mut out = crate::safe::SafeFile::create(to)?;
    let partial = out.path().to_path_buf();
    let file = out.file();
    write_at(file, &partial, 0, &header.encode())?;
    let read = |n: u32, range: std::ops::Range<u64>| -> Result<Vec<u8>, DbError> {
        // Signed bytes, converted in place.
        Ok(from.level_values(n, range)?.into_iter().map(|v| v as u8).collect())
    };
    for n in 0..=old.max_seeds {
        let entry = header.layout(indexer, n);
        let codes = level_codes(&mut header, indexer, n, &mut |range| read(n, range))?;
        let mut sums = Vec::with_capacity(8 * crate::format::blocks(entry.boards) as usize);
        let mut at = entry.offset;
        // A piece is a whole number of blocks, so its codes start at a whole byte.
        for first in (0..entry.boards).step_by(REENCODE_PIECE as usize) {
            let bytes = read(n, first..(first + REENCODE_PIECE).min(entry.boards))?;
            let encoded = encode_level(&codes, encoding, first, &bytes).map_err(|(board, v)| {
                let why = format!("level {n}, board {board}: value {v} has no code in the {} encoding", encoding.name());
                DbError::corrupt(from.path(), why)
            })?;
            let piece = encoded.as_deref().unwrap_or(&bytes);
            write_at(file, &partial, at, piece)?;
            sums.extend(level_block_sums(encoding, n, piece));
            at += piece.len() as u64;
            progress(bytes.len() as u64);
        }
        let mut sums_padded = sums.clone();
        sums_padded.resize(align(sums.len() as u64) as usize, 0);
        write_at(file, &partial, entry.sums_offset, &sums_padded)?;
        header.levels[n as usize] = crate::format::LevelEntry { checksum: level_checksum(&sums), ..entry };
        header.levels_done = n + 1;
    }
    header.complete = true;
    let total = header.file_bytes(indexer);
    file.set_len(total).map_err(|e| DbError::io(&partial, e))?;
    write_at(file, &partial, 0, &header.encode())?;
    file.sync_all().map_err(|e| DbError::io(&partial, e))?;
    // The new file, checked whole before it replaces anything.
    let written = crate::Database::open(&partial)?;
    written.verify(&|_| {})?;
    drop(written);
    out.commit()?;
    Ok(BuildReport { path: to.to_path_buf(), bytes: total, resumed_levels: 0, level_seconds: Vec::new() })
}

/// Refuses writing `from` again in `encoding` ([`reencode`]) when the
/// encoding cannot hold the values of its rules, or when `from` holds
/// bounds for some values (a window encoding).
pub fn check_reencode(from: &crate::Database, encoding: Encoding) -> Result<(), DbError> {
    check_encoding(encoding, from.header().rules)?;
    if !from.is_exact() {
        return Err(DbError::Unsupported(format!(
            "{}: written again from a file in a window encoding, which holds bounds for some values: write it from the exact file (or build it again)",
            from.path().display()
        )));
    }
    Ok(())
}

/// Boards a level is encoded and written (or read back and decoded) in at
/// a time: 256 blocks (one in unit tests, so that small levels take many).
pub const REENCODE_PIECE: u64 = if cfg!(test) { 1 } else { 256 } * BLOCK_BYTES as u64;

/// Marks the partial file of `path`, every level written, complete,
/// syncs it and renames it over `path`; returns its size.
pub(crate) fn finish(mut file: File, partial: &Path, path: &Path, header: &mut Header, indexer: &Indexer) -> Result<u64, DbError> {
    header.complete = true;
    let total = header.file_bytes(indexer);
    file.set_len(total).map_err(|e| DbError::io(partial, e))?;
    write_at(&mut file, partial, 0, &header.encode())?;
    file.sync_all().map_err(|e| DbError::io(partial, e))?;
    drop(file);
    fs::rename(partial, path).map_err(|e| DbError::io(path, e))?;
    crate::safe::sync_dir(path);
    Ok(total)
}

/// Loads the finished levels of an interrupted build of the same database;
/// returns how many. A partial file of another database, or one whose
/// header is damaged, is started over; a level whose checksum fails and
/// every level after it are built again.
fn resume(file: &mut File, path: &Path, header: &mut Header, builder: &mut Builder) -> Result<u32, DbError> {
    let mut head = vec![0u8; header.bytes() as usize];
    let len = file.metadata().map_err(|e| DbError::io(path, e))?.len();
    if len < head.len() as u64 {
        return Ok(0);
    }
    read_at(file, path, 0, &mut head)?;
    let Ok(found) = Header::decode(&head) else {
        return Ok(0);
    };
    if (found.houses, found.max_seeds, found.rules, found.encoding) != (header.houses, header.max_seeds, header.rules, header.encoding) {
        return Ok(0);
    }
    if !found.encoding.is_exact() {
        // A window holds bounds, not the values the next levels need.
        return Ok(0);
    }
    let mut kept = 0;
    for n in 0..found.levels_done {
        let e = found.levels[n as usize];
        if e.sums_offset + 8 * crate::format::blocks(e.boards) > len {
            break;
        }
        let sums = if found.encoding == Encoding::Byte {
            let values = builder.level_buffer(n);
            read_at(file, path, e.offset, values)?;
            block_sums_parallel(values)
        } else {
            // A piece at a time, as written: the builder holds a byte a board already.
            let encoding = found.encoding;
            let value_bytes = found.value_bytes(n, &e);
            let mut sums = Vec::new();
            let mut at = e.offset;
            for piece in builder.level_buffer(n).chunks_mut(REENCODE_PIECE as usize) {
                let len = encoding.value_bytes(n, piece.len() as u64).min(e.offset + value_bytes - at);
                let mut packed = vec![0u8; len as usize];
                read_at(file, path, at, &mut packed)?;
                crate::format::read_values(encoding, n, &packed, 0, piece);
                sums.extend(level_block_sums(encoding, n, &packed));
                at += len;
            }
            sums
        };
        let mut stored = vec![0u8; sums.len()];
        read_at(file, path, e.sums_offset, &mut stored)?;
        if sums != stored || level_checksum(&sums) != e.checksum {
            // Damaged: build it again, from a clean slate.
            builder.level_buffer(n).fill(crate::builder::UNSOLVED);
            break;
        }
        builder.restored(n);
        header.levels[n as usize] = e;
        kept = n + 1;
    }
    header.levels_done = kept;
    // Forget what was not kept, so the header on disk matches.
    for e in header.levels.iter_mut().skip(kept as usize) {
        *e = Default::default();
    }
    if kept > 0 {
        write_at(file, path, 0, &header.encode())?;
        file.sync_data().map_err(|e| DbError::io(path, e))?;
    }
    Ok(kept)
}

/// The finished levels of an interrupted build of the same database as
/// `header`, each checked against its block checksums (read a piece at a
/// time, not kept); returns how many, `header` counting them. A partial
/// file of another database, or one whose header is damaged, is started
/// over; a level whose checksums fail and every level after it are built
/// again.
pub(crate) fn resume_checked(file: &mut File, path: &Path, header: &mut Header) -> Result<u32, DbError> {
    let mut head = vec![0u8; header.bytes() as usize];
    let len = file.metadata().map_err(|e| DbError::io(path, e))?.len();
    if len < head.len() as u64 {
        return Ok(0);
    }
    read_at(file, path, 0, &mut head)?;
    let Ok(found) = Header::decode(&head) else {
        return Ok(0);
    };
    if (found.houses, found.max_seeds, found.rules, found.encoding) != (header.houses, header.max_seeds, header.rules, header.encoding) {
        return Ok(0);
    }
    let mut kept = 0;
    for n in 0..found.levels_done {
        let e = found.levels[n as usize];
        if e.sums_offset + 8 * crate::format::blocks(e.boards) > len {
            break;
        }
        let (value_bytes, piece) = (found.value_bytes(n, &e), found.encoding.block_bytes(n) * 256);
        let mut sums = Vec::new();
        let mut at = e.offset;
        while at < e.offset + value_bytes {
            let mut bytes = vec![0u8; piece.min(e.offset + value_bytes - at) as usize];
            read_at(file, path, at, &mut bytes)?;
            sums.extend(level_block_sums(found.encoding, n, &bytes));
            at += bytes.len() as u64;
        }
        let mut stored = vec![0u8; sums.len()];
        read_at(file, path, e.sums_offset, &mut stored)?;
        if sums != stored || level_checksum(&sums) != e.checksum {
            break;
        }
        header.levels[n as usize] = e;
        kept = n + 1;
    }
    header.levels_done = kept;
    for e in header.levels.iter_mut().skip(kept as usize) {
        *e = Default::default();
    }
    if kept > 0 {
        write_at(file, path, 0, &header.encode())?;
        file.sync_data().map_err(|e| DbError::io(path, e))?;
    }
    Ok(kept)
}

/// Refuses `encoding` for `rules` whose values it cannot hold.
pub(crate) fn check_encoding(encoding: Encoding, rules: Rules) -> Result<(), DbError> {
    if encoding.holds_values_of(rules) {
        return Ok(());
    }
    Err(DbError::Unsupported(format!(
        "the {} encoding holds values with the parity of the seeds, which {rules} do not have; use the {} encoding",
        encoding.name(),
        Encoding::packed_for(rules).name()
    )))
}

/// How level `n` is coded in `header`'s encoding: for a window encoding,
/// each mover's seed count's window where it holds the most of the level's
/// values (read by `read`, a piece at a time, as signed bytes), set in
/// `header` too.
fn level_codes(
    header: &mut Header,
    indexer: &Indexer,
    n: u32,
    read: &mut dyn FnMut(std::ops::Range<u64>) -> Result<Vec<u8>, DbError>,
) -> Result<LevelCodes, DbError> {
    use rayon::prelude::*;
    let Encoding::Window(bits) = header.encoding else {
        return Ok(LevelCodes::Exact(header.encoding, n));
    };
    let starts: Vec<u64> = (0..=n).map(|m| indexer.block_start(n, m)).chain([indexer.level_len(n)]).collect();
    let step = header.value_step();
    let mut windows = Vec::with_capacity(n as usize + 1);
    // Each piece's values counted on every thread, a block at a time.
    let values = 2 * n as usize + 1;
    let count = |mut counts: Vec<u64>, piece: &[u8]| {
        for &v in piece {
            if let Some(c) = counts.get_mut((v as i8 as i32 + n as i32) as usize) {
                *c += 1;
            }
        }
        counts
    };
    let add = |a: Vec<u64>, b: Vec<u64>| a.iter().zip(&b).map(|(a, b)| a + b).collect::<Vec<u64>>();
    for m in 0..=n as usize {
        let mut counts = vec![0u64; values];
        let mut first = starts[m];
        while first < starts[m + 1] {
            let last = (first + REENCODE_PIECE).min(starts[m + 1]);
            let piece = read(first..last)?;
            let more = piece.par_chunks(BLOCK_BYTES as usize).fold(|| vec![0u64; values], &count).reduce(|| vec![0u64; values], add);
            counts = add(counts, more);
            first = last;
        }
        windows.push(Window::best(bits, n, step, &counts));
    }
    header.set_windows(n, &windows);
    Ok(LevelCodes::Window { windows, starts })
}

/// The values of boards `first..` of a level (a signed byte a board,
/// `first` a whole number of blocks) coded by `codes`; `None` for
/// [`Encoding::Byte`], whose bytes are the values. `Err((board, value))`
/// names a value the encoding has no code for.
fn encode_level(codes: &LevelCodes, encoding: Encoding, first: u64, values: &[u8]) -> Result<Option<Vec<u8>>, (u64, i8)> {
    use rayon::prelude::*;
    if encoding == Encoding::Byte {
        return Ok(None);
    }
    let n = match codes {
        LevelCodes::Exact(_, n) => *n,
        LevelCodes::Window { windows, .. } => windows.len() as u32 - 1,
    };
    let mut out = vec![0u8; encoding.value_bytes(n, values.len() as u64) as usize];
    // A block's codes start at a whole byte, so blocks pack apart.
    out.par_chunks_mut(encoding.block_bytes(n) as usize).zip(values.par_chunks(BLOCK_BYTES as usize)).enumerate().try_for_each(
        |(b, (out, piece))| {
            let start = first + b as u64 * BLOCK_BYTES as u64;
            codes.pack(start, piece, out).map_err(|i| (i, values[(i - first) as usize] as i8))
        },
    )?;
    Ok(Some(out))
}

pub(crate) fn write_at(file: &mut File, path: &Path, offset: u64, bytes: &[u8]) -> Result<(), DbError> {
    file.seek(SeekFrom::Start(offset)).map_err(|e| DbError::io(path, e))?;
    file.write_all(bytes).map_err(|e| DbError::io(path, e))
}

pub(crate) fn read_at(file: &mut File, path: &Path, offset: u64, bytes: &mut [u8]) -> Result<(), DbError> {
    file.seek(SeekFrom::Start(offset)).map_err(|e| DbError::io(path, e))?;
    file.read_exact(bytes).map_err(|e| DbError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{build_file, build_file_encoded};
    use crate::{Database, Quiet};

    /// Levels of several pieces (a block each here): a packed build, a
    /// byte build written again packed, and a packed build killed after a
    /// level of several pieces and resumed all give the same bytes, and
    /// the values of the byte build (issue 51).
    #[test]
    fn levels_of_many_pieces_write_and_resume_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Rules::default();
        let (packed, byte, repacked) = (dir.path().join("p.kdb"), dir.path().join("b.kdb"), dir.path().join("r.kdb"));
        build_file_encoded(&packed, 5, rules, 12, Encoding::Share, &Quiet).unwrap();
        build_file(&byte, 5, rules, 12, &Quiet).unwrap();
        let byte_db = Database::open(&byte).unwrap();
        assert!(byte_db.indexer().level_len(11) > 2 * REENCODE_PIECE, "levels of many pieces");
        reencode(&byte_db, &repacked, Encoding::Share, &|_| {}).unwrap();
        let good = fs::read(&packed).unwrap();
        assert!(fs::read(&repacked).unwrap() == good);
        let packed_db = Database::open(&packed).unwrap();
        for n in [10, 11, 12] {
            let len = byte_db.indexer().level_len(n);
            assert_eq!(packed_db.level_values(n, 0..len).unwrap(), byte_db.level_values(n, 0..len).unwrap(), "level {n}");
        }
        // Killed while writing level 12: levels 0-11 kept, 11 of three pieces.
        let mut h = Header::decode(&good).unwrap();
        let end = h.levels[12].offset as usize;
        h.complete = false;
        h.levels_done = 12;
        h.levels[12] = Default::default();
        let mut bytes = good[..end].to_vec();
        bytes[..h.bytes() as usize].copy_from_slice(&h.encode());
        let target = dir.path().join("resumed.kdb");
        fs::write(partial_path(&target), &bytes).unwrap();
        build_file_encoded(&target, 5, rules, 12, Encoding::Share, &Quiet).unwrap();
        assert!(fs::read(&target).unwrap() == good, "resumed bytes differ");
    }
}
