//! Compact archives of database files (zstd), restored byte for byte.
//!
//! # Archive format, version 1
//!
//! All integers little-endian.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `KALAHZS\0` ([`ARCHIVE_MAGIC`]) |
//! | 8 | 4 | archive version, 1 |
//! | 12 | 4 | zero (checked) |
//! | 16 | 8 | `H`: bytes of the database header that follows |
//! | 24 | `H` | the database file's header, verbatim |
//!
//! Then, for each level `n = 0..=N`: a `u64` count of frames, and for each
//! frame a `u64` byte length and one zstd frame holding the next (up to)
//! 16 MiB of the bytes of the level's values (in the file's encoding). Block checksum tables and padding are not
//! stored: unpacking recomputes the checksums and must find the level
//! checksums the header holds, so an archive that unpacks is the file that
//! was packed, byte for byte. Frames are compressed in parallel.

use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use rayon::prelude::*;

use crate::builder::check_size;
use crate::error::DbError;
use crate::format::{level_block_sums, level_checksum, Header, HeaderProblem};
use crate::reader::Database;
use crate::safe::SafeFile;
use crate::writer::{check_disk, check_memory};

/// The first eight bytes of an archive.
pub const ARCHIVE_MAGIC: [u8; 8] = *b"KALAHZS\0";
/// The archive version this program writes and reads.
pub const ARCHIVE_VERSION: u32 = 1;
/// Values per zstd frame.
const FRAME: usize = 16 << 20;
/// Frames compressed together (in parallel) before they are written.
const BATCH: usize = 16;

/// Sizes of a pack or unpack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackReport {
    /// Bytes of the database file.
    pub database_bytes: u64,
    /// Bytes of the archive.
    pub archive_bytes: u64,
}

/// Packs the database at `database` into an archive at `archive` (written
/// to a `.partial` name, then renamed). Every block is verified first.
pub fn pack(database: &Path, archive: &Path, level: i32, progress: &(dyn Fn(u64) + Sync)) -> Result<PackReport, DbError> {
    crate::safe::refuse_input_as_output(database, archive)?;
    let db = Database::open(database)?;
    // Claimed before the long check: an archive that cannot be written, or
    // that another pack writes, is refused at once. Nothing half-written
    // is left behind: the partial file of a failed pack goes.
    let mut out = SafeFile::create(archive)?;
    db.verify(&|_| {})?;
    let partial = out.path().to_path_buf();
    let archive_bytes = write_packed(&db, out.file(), &partial, level, progress)?;
    out.commit()?;
    Ok(PackReport { database_bytes: db.file_bytes(), archive_bytes })
}

/// Writes the archive of `db` into `file`, the file `partial`; returns its size.
fn write_packed(db: &Database, file: &mut File, partial: &Path, level: i32, progress: &(dyn Fn(u64) + Sync)) -> Result<u64, DbError> {
    let mut out = BufWriter::new(file);
    let io = |e| DbError::io(partial, e);
    let header = db.header().encode();
    out.write_all(&ARCHIVE_MAGIC).map_err(io)?;
    out.write_all(&ARCHIVE_VERSION.to_le_bytes()).map_err(io)?;
    out.write_all(&0u32.to_le_bytes()).map_err(io)?;
    out.write_all(&(header.len() as u64).to_le_bytes()).map_err(io)?;
    out.write_all(&header).map_err(io)?;
    // The values are read from the file's mapping, a batch of frames at a
    // time: memory stays near BATCH frames whatever the file's size.
    for n in 0..=db.header().max_seeds {
        let values = db.level_bytes(n);
        out.write_all(&(values.len().div_ceil(FRAME) as u64).to_le_bytes()).map_err(io)?;
        for batch in values.chunks(BATCH * FRAME) {
            let frames: Vec<Vec<u8>> = batch
                .par_chunks(FRAME)
                .map(|chunk| {
                    let f = zstd::bulk::compress(chunk, level);
                    progress(chunk.len() as u64);
                    f
                })
                .collect::<Result<_, _>>()
                .map_err(io)?;
            for f in &frames {
                out.write_all(&(f.len() as u64).to_le_bytes()).map_err(io)?;
                out.write_all(f).map_err(io)?;
            }
        }
    }
    let file = out.into_inner().map_err(|e| DbError::io(partial, e.into_error()))?;
    file.sync_all().map_err(io)?;
    file.metadata().map(|m| m.len()).map_err(io)
}

/// The header of the database packed in `archive`, checked as a complete
/// one, and the archive read up to its first level.
pub fn archive_header(archive: &Path) -> Result<(Header, Vec<u8>, BufReader<File>), DbError> {
    let file = crate::reader::open_regular(archive)?;
    let mut input = BufReader::new(file);
    let bad = |why: &str| DbError::corrupt(archive, why.to_string());
    let mut start = [0u8; 16];
    input.read_exact(&mut start).map_err(|_| bad("truncated archive (no archive header)"))?;
    if start[0..8] != ARCHIVE_MAGIC {
        return Err(DbError::corrupt(archive, "not a kalah database archive (wrong magic bytes)"));
    }
    let version = u32::from_le_bytes(start[8..12].try_into().expect("4 bytes"));
    if version != ARCHIVE_VERSION {
        return Err(DbError::Version { path: archive.into(), found: version, expected: ARCHIVE_VERSION });
    }
    if start[12..16] != [0; 4] {
        return Err(bad("bytes 12-15 of the archive header are not zero (a damaged or foreign archive)"));
    }
    let header_len = read_u64(&mut input, archive)?;
    if header_len > 1 << 20 {
        return Err(bad("impossible header length"));
    }
    let mut head = vec![0u8; header_len as usize];
    input.read_exact(&mut head).map_err(|_| bad("truncated archive (database header)"))?;
    let header = Header::decode(&head).map_err(|p| match p {
        HeaderProblem::Magic => bad("the archived header is not a database header"),
        HeaderProblem::Version(v) => DbError::Version { path: archive.into(), found: v, expected: crate::format::VERSION },
        HeaderProblem::Truncated(why) | HeaderProblem::Corrupt(why) => DbError::corrupt(archive, format!("archived header: {why}")),
    })?;
    if !header.complete {
        return Err(bad("the packed database is not complete"));
    }
    Ok((header, head, input))
}

/// The next little-endian `u64` of `archive`.
fn read_u64(input: &mut BufReader<File>, archive: &Path) -> Result<u64, DbError> {
    let mut b = [0u8; 8];
    input.read_exact(&mut b).map_err(|_| DbError::corrupt(archive, "truncated archive"))?;
    Ok(u64::from_le_bytes(b))
}

/// Restores the database file packed in `archive` to `database` (written
/// to a `.partial` name, checked, then renamed).
pub fn unpack(archive: &Path, database: &Path, progress: &(dyn Fn(u64) + Sync)) -> Result<PackReport, DbError> {
    crate::safe::refuse_input_as_output(archive, database)?;
    let archive_bytes = fs::metadata(archive).map_err(|e| DbError::io(archive, e))?.len();
    let (header, head, input) = archive_header(archive)?;
    check_size(header.houses, header.max_seeds)?;
    let indexer = kalah_core::Indexer::new(header.houses, header.max_seeds);
    let file_bytes = header.file_bytes(&indexer);
    // A level is checked whole in memory before it is written.
    let level_bytes = (0..=header.max_seeds).map(|n| header.value_bytes(n, &header.levels[n as usize])).max().unwrap_or(0);
    check_memory(|| format!("memory for the largest level of {}", archive.display()), level_bytes)?;
    if let Some(dir) = database.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(|e| DbError::io(dir, e))?;
    }
    check_disk(database, file_bytes)?;
    // Nothing half-written is left behind: the partial file of a failed
    // unpack goes. A build of the same file holds the same partial file,
    // and refuses the unpack (or is refused) by its lock.
    let mut out = SafeFile::create(database)?;
    let partial = out.path().to_path_buf();
    let from = ArchiveRead { archive, header: &header, head: &head, input };
    write_unpacked(from, out.file(), &partial, file_bytes, progress)?;
    out.commit()?;
    let db = Database::open(database)?;
    Ok(PackReport { database_bytes: db.file_bytes(), archive_bytes })
}

/// An archive being unpacked: its path, its header, the database file's
/// header bytes, and the archive read past its header.
struct ArchiveRead<'a> {
    archive: &'a Path,
    header: &'a Header,
    head: &'a [u8],
    input: BufReader<File>,
}

/// Writes the levels of an archive into `out`, the file `partial`, each
/// checked against its level checksum.
fn write_unpacked(from: ArchiveRead, out: &mut File, partial: &Path, file_bytes: u64, progress: &(dyn Fn(u64) + Sync)) -> Result<(), DbError> {
    let ArchiveRead { archive, header, head, mut input } = from;
    let bad = |why: &str| DbError::corrupt(archive, why.to_string());
    let io = |e| DbError::io(partial, e);
    out.set_len(file_bytes).map_err(io)?;
    use std::io::{Seek, SeekFrom};
    out.write_all(head).map_err(io)?;
    for (n, e) in header.levels.iter().enumerate() {
        let frames = read_u64(&mut input, archive)?;
        let size = header.value_bytes(n as u32, e);
        if frames != size.div_ceil(FRAME as u64) {
            return Err(DbError::corrupt(archive, format!("level {n}: {frames} frames, expected {}", size.div_ceil(FRAME as u64))));
        }
        let mut values = Vec::with_capacity(size as usize);
        for _ in 0..frames {
            let len = read_u64(&mut input, archive)?;
            if len > 2 * FRAME as u64 + 4096 {
                return Err(DbError::corrupt(archive, format!("level {n}: impossible frame length {len}")));
            }
            let mut frame = vec![0u8; len as usize];
            input.read_exact(&mut frame).map_err(|_| bad("truncated archive (level data)"))?;
            let want = (size as usize - values.len()).min(FRAME);
            let chunk = zstd::bulk::decompress(&frame, want).map_err(|err| DbError::corrupt(archive, format!("level {n}: bad zstd frame: {err}")))?;
            if chunk.len() != want {
                return Err(DbError::corrupt(archive, format!("level {n}: a frame holds {} values, expected {want}", chunk.len())));
            }
            progress(chunk.len() as u64);
            values.extend_from_slice(&chunk);
        }
        let sums = level_block_sums(header.encoding, n as u32, &values);
        if level_checksum(&sums) != e.checksum {
            return Err(DbError::corrupt(archive, format!("level {n}: values do not match the level checksum")));
        }
        out.seek(SeekFrom::Start(e.offset)).map_err(io)?;
        out.write_all(&values).map_err(io)?;
        out.seek(SeekFrom::Start(e.sums_offset)).map_err(io)?;
        out.write_all(&sums).map_err(io)?;
    }
    let mut rest = [0u8; 1];
    if input.read(&mut rest).map_err(|e| DbError::io(archive, e))? != 0 {
        return Err(bad("trailing bytes after the last level"));
    }
    out.sync_all().map_err(io)?;
    Ok(())
}
