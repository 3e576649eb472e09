//! The transposition table of a long search, kept beside its journal so
//! that a search killed and run again on the same machine loses little.
//!
//! A journal keeps the bounds of large subtrees only (a million nodes and
//! more by default): small enough to commit, and what a search on another
//! machine needs to go on. What it does not keep costs a resumed search
//! more than the root test it was in: every later root test of MTD(f)
//! searches the same tree again, guided by the small entries the lost
//! table held. Measured (BENCHMARKS.md, "The journal of a long search"):
//! Kalah(6,4) over a 16-seed database, one thread, after the test of
//! "value at least 8" the two tests left took 40.4 M nodes with the table,
//! 53.2 M with a journal of every subtree of 100 nodes or more (848,183
//! boards), and 41.1 M with one of every node. So the whole table is kept, as a
//! snapshot written beside the journal.
//!
//! # Format, version 1
//!
//! `DIR/table.kt`, one zstd frame. Inside, little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `KALAHTBL` |
//! | 4 | version, 1 |
//! | 4 | houses a side `h` |
//! | 2 + n | the rules, as `kalah` prints them: length, UTF-8 |
//! | 2 + n | the position searched (ring form); empty for a search memory |
//! | blocks | each: `k` (4 bytes), then `k` entries of `2h + 4` bytes: the board's `2h` houses (the mover's first), its lower and upper bound (`i8`; -128: no bound), the table's best move (0-7; 7 or above `h - 1`: none) and its work (log2 of the nodes the bounds took, 0-31); a block of `k = 0` ends them |
//! | 8 | entries in all |
//! | 8 | xxh3-64 of every byte before it |
//!
//! It is read only with its journal, for the same search (the journal's
//! checks); a snapshot that is damaged, of another search, or whose
//! entries are not possible (bounds beyond the board's seeds, a best move
//! beyond 7) is passed over whole, with a note: it is a help, the journal
//! is the record. Written through [`kalah_db::safe::SafeFile`], so a kill
//! while writing leaves the previous snapshot.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use kalah_core::Board;
use kalah_db::safe::SafeFile;
use kalah_search::tt::Bounds;
use xxhash_rust::xxh3::Xxh3Default;

use crate::error::{Error, Result};

/// The snapshot's file name in a journal's directory.
pub const FILE_NAME: &str = "table.kt";
const MAGIC: &[u8; 8] = b"KALAHTBL";
const VERSION: u32 = 1;
/// Entries a block holds at most.
const BLOCK: usize = 1 << 16;
/// A bound byte that means "none".
const NONE: i8 = i8::MIN;

/// Every exact entry of a solver's transposition table, given to a
/// callback ([`kalah_search::Solver::for_each_table_entry`]).
pub type TableEntries<'a> = dyn Fn(&mut dyn FnMut(Board, Bounds)) + Sync + 'a;

/// What a snapshot is of: the same fields as its journal's identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tag {
    pub houses: usize,
    pub rules: String,
    pub position: String,
}

/// The snapshot file of the journal directory `dir`.
pub(crate) fn path(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

/// Writes the entries `each` gives (see [`kalah_search::Solver::for_each_table_entry`])
/// as the snapshot of `dir`; the number written.
pub(crate) fn write(dir: &Path, tag: &Tag, each: &TableEntries<'_>) -> Result<u64> {
    let path = path(dir);
    let io = |e: std::io::Error| Error::from(kalah_db::DbError::io(&path, e));
    let file = SafeFile::create(&path)?;
    let mut out = Hashed { inner: zstd::stream::write::Encoder::new(BufWriter::new(file), 1).map_err(io)?, hash: Xxh3Default::new() };
    out.put(MAGIC).map_err(io)?;
    out.put(&VERSION.to_le_bytes()).map_err(io)?;
    out.put(&(tag.houses as u32).to_le_bytes()).map_err(io)?;
    for text in [&tag.rules, &tag.position] {
        out.put(&(text.len() as u16).to_le_bytes()).map_err(io)?;
        out.put(text.as_bytes()).map_err(io)?;
    }
    let h = tag.houses;
    let size = 2 * h + 4;
    let mut block = Vec::with_capacity(BLOCK * size);
    let mut in_block = 0u32;
    let mut total = 0u64;
    let mut failed = None;
    let bound = |v: i32, none: i32| if v == none { NONE } else { v.clamp(-127, 127) as i8 };
    each(&mut |board, b| {
        if failed.is_some() {
            return;
        }
        block.extend(board.mover_houses(h));
        block.extend(board.opponent_houses(h));
        block.push(bound(b.lower, i32::MIN) as u8);
        block.push(bound(b.upper, i32::MAX) as u8);
        block.push(b.best);
        block.push(b.work.min(31) as u8);
        in_block += 1;
        total += 1;
        if in_block as usize == BLOCK {
            failed = out.put(&in_block.to_le_bytes()).and_then(|()| out.put(&block)).err();
            block.clear();
            in_block = 0;
        }
    });
    if let Some(e) = failed {
        return Err(io(e));
    }
    if in_block > 0 {
        out.put(&in_block.to_le_bytes()).map_err(io)?;
        out.put(&block).map_err(io)?;
    }
    out.put(&0u32.to_le_bytes()).map_err(io)?;
    out.put(&total.to_le_bytes()).map_err(io)?;
    let sum = out.hash.digest();
    out.inner.write_all(&sum.to_le_bytes()).map_err(io)?;
    let file = out.inner.finish().map_err(io)?.into_inner().map_err(|e| io(e.into_error()))?;
    file.commit()?;
    Ok(total)
}

/// Reads the snapshot of `dir`, if there is one, checking it whole before
/// any entry is given to `restore` (so a damaged file gives none); the
/// number of entries, or `None` without a snapshot. An error says why the
/// snapshot cannot be used.
pub(crate) fn read(dir: &Path, tag: &Tag, restore: &mut dyn FnMut(Board, Bounds)) -> Result<Option<u64>> {
    let path = path(dir);
    let meta = match std::fs::metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(kalah_db::DbError::io(&path, e).into()),
    };
    if !meta.is_file() {
        return Err(corrupt(&path, "not a regular file"));
    }
    // Once to check, once to restore: entries are never given from a file
    // whose checksum was not seen to match.
    let count = scan(&path, tag, &mut |_, _| ())?;
    scan(&path, tag, restore)?;
    Ok(Some(count))
}

fn corrupt(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::corrupt(format!("{}: not a usable table snapshot: {why}", path.display()))
}

/// One pass over the snapshot at `path`: every entry checked and given to
/// `each`; the count, once the checksum matched.
fn scan(path: &Path, tag: &Tag, each: &mut dyn FnMut(Board, Bounds)) -> Result<u64> {
    let file = File::open(path).map_err(|e| Error::from(kalah_db::DbError::io(path, e)))?;
    let decoder = zstd::stream::read::Decoder::new(BufReader::new(file)).map_err(|e| corrupt(path, e))?;
    let mut r = HashedReader { inner: decoder, hash: Xxh3Default::new() };
    let bad = |why: &str| corrupt(path, why);
    let mut magic = [0u8; 8];
    r.get(&mut magic).map_err(|_| bad("it ends too soon"))?;
    if &magic != MAGIC {
        return Err(bad("it is not a kalah table snapshot"));
    }
    let version = r.u32().map_err(|_| bad("it ends too soon"))?;
    if version != VERSION {
        return Err(corrupt(path, format!("format version {version}; this kalah reads version {VERSION}")));
    }
    let houses = r.u32().map_err(|_| bad("it ends too soon"))? as usize;
    let rules = r.text().map_err(|_| bad("it ends too soon"))?;
    let position = r.text().map_err(|_| bad("it ends too soon"))?;
    let theirs = Tag { houses, rules, position };
    if &theirs != tag {
        return Err(corrupt(path, format!("it is of another search ({} houses, {}, {:?})", theirs.houses, theirs.rules, theirs.position)));
    }
    let h = houses;
    let size = 2 * h + 4;
    let mut total = 0u64;
    let mut block = Vec::new();
    loop {
        let k = r.u32().map_err(|_| bad("it ends too soon"))? as usize;
        if k == 0 {
            break;
        }
        if k > BLOCK {
            return Err(bad("a block larger than any written"));
        }
        block.resize(k * size, 0);
        r.get(&mut block).map_err(|_| bad("it ends too soon"))?;
        for e in block.chunks_exact(size) {
            let board = Board::from_sides(&e[..h], &e[h..2 * h]);
            let seeds = board.total() as i32;
            let bound = |byte: u8, none: i32| match byte as i8 {
                NONE => Some(none),
                v if (v as i32).abs() <= seeds => Some(v as i32),
                _ => None,
            };
            let (Some(lower), Some(upper)) = (bound(e[2 * h], i32::MIN), bound(e[2 * h + 1], i32::MAX)) else {
                return Err(bad("an entry's bounds are beyond its board's seeds"));
            };
            if lower != i32::MIN && upper != i32::MAX && lower > upper {
                return Err(bad("an entry's lower bound is above its upper"));
            }
            let (best, work) = (e[2 * h + 2], e[2 * h + 3] as u32);
            if best > 7 || work > 31 {
                return Err(bad("an entry's move or work is out of range"));
            }
            each(board, Bounds { lower, upper, best, guess_depth: None, work });
            total += 1;
        }
    }
    let count = u64::from_le_bytes(r.array().map_err(|_| bad("it ends too soon"))?);
    let sum = r.hash.digest();
    let mut stored = [0u8; 8];
    r.inner.read_exact(&mut stored).map_err(|_| bad("it ends too soon"))?;
    if count != total || u64::from_le_bytes(stored) != sum {
        return Err(bad("its checksum does not match (damaged)"));
    }
    Ok(total)
}

/// A writer that hashes what it writes.
struct Hashed<W: Write> {
    inner: W,
    hash: Xxh3Default,
}

impl<W: Write> Hashed<W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hash.update(bytes);
        self.inner.write_all(bytes)
    }
}

/// A reader that hashes what it reads.
struct HashedReader<R: Read> {
    inner: R,
    hash: Xxh3Default,
}

impl<R: Read> HashedReader<R> {
    fn get(&mut self, buf: &mut [u8]) -> std::io::Result<()> {
        self.inner.read_exact(buf)?;
        self.hash.update(buf);
        Ok(())
    }
    fn array<const N: usize>(&mut self) -> std::io::Result<[u8; N]> {
        let mut a = [0u8; N];
        self.get(&mut a)?;
        Ok(a)
    }
    fn u32(&mut self) -> std::io::Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn text(&mut self) -> std::io::Result<String> {
        let n = u16::from_le_bytes(self.array()?) as usize;
        let mut bytes = vec![0u8; n];
        self.get(&mut bytes)?;
        String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag() -> Tag {
        Tag { houses: 3, rules: "capture=empty".into(), position: "2,2,2,0,2,2,2,0 S".into() }
    }

    /// `count` entries of boards of 3 houses, every field varied: bounds
    /// missing on either side, a move, a work; the boards distinct.
    fn entries(count: usize) -> Vec<(Board, Bounds)> {
        (0..count)
            .map(|i| {
                let board = Board::from_sides(&[(i % 7) as u8, (i / 7 % 7) as u8, (i / 49 % 7) as u8], &[(i / 343 % 7) as u8, 1, 2]);
                let seeds = board.total() as i32;
                let lower = if i % 5 == 0 { i32::MIN } else { -seeds + (i % 3) as i32 };
                let upper = if i % 7 == 1 { i32::MAX } else { seeds - (i % 2) as i32 };
                (board, Bounds { lower, upper, best: (i % 3) as u8, guess_depth: None, work: (i % 32) as u32 })
            })
            .collect()
    }

    fn written(dir: &Path, all: &[(Board, Bounds)]) -> u64 {
        write(dir, &tag(), &|each: &mut dyn FnMut(Board, Bounds)| all.iter().for_each(|&(b, x)| each(b, x))).unwrap()
    }

    /// Every entry comes back as it was written, over several blocks.
    #[test]
    fn a_snapshot_reads_back_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let all = entries(BLOCK + 300);
        assert_eq!(written(dir.path(), &all), all.len() as u64);
        let mut back = Vec::new();
        assert_eq!(read(dir.path(), &tag(), &mut |b, x| back.push((b, x))).unwrap(), Some(all.len() as u64));
        assert_eq!(back, all);
        // No snapshot: nothing, and no error.
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(read(empty.path(), &tag(), &mut |_, _| panic!("no entry")).unwrap(), None);
    }

    /// A snapshot of another search, or damaged anywhere, gives no entry
    /// at all, and says why.
    #[test]
    fn a_snapshot_that_cannot_serve_gives_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let all = entries(1000);
        written(dir.path(), &all);
        let refused = |tag: &Tag| {
            let mut given = 0;
            let e = read(dir.path(), tag, &mut |_, _| given += 1).unwrap_err();
            assert_eq!(given, 0, "{e}");
            assert_eq!(e.kind(), crate::error::ErrorKind::Corrupt);
            e.to_string()
        };
        assert!(refused(&Tag { position: "2,2,2,0,2,2,2,0 N".into(), ..tag() }).contains("another search"));
        let good = zstd::stream::decode_all(File::open(path(dir.path())).unwrap()).unwrap();
        // Past the header (50 bytes): an entry, the count, the checksum.
        for at in [60, good.len() / 2, good.len() - 12, good.len() - 1] {
            let mut bytes = good.clone();
            bytes[at] ^= 0x10;
            std::fs::write(path(dir.path()), zstd::bulk::compress(&bytes, 1).unwrap()).unwrap();
            let why = refused(&tag());
            assert!(why.contains("checksum") || why.contains("beyond") || why.contains("out of range") || why.contains("above"), "byte {at}: {why}");
        }
        let mut short = good.clone();
        short.truncate(good.len() - 20);
        std::fs::write(path(dir.path()), zstd::bulk::compress(&short, 1).unwrap()).unwrap();
        assert!(refused(&tag()).contains("ends too soon"));
    }

    /// Bounds beyond what one byte holds are written as the nearest it
    /// holds: a looser bound, never a wrong one for the board's seeds.
    #[test]
    fn bounds_are_clamped_to_a_byte() {
        let dir = tempfile::tempdir().unwrap();
        let board = Board::from_sides(&[200, 0, 0], &[0, 0, 0]);
        let wide = Bounds { lower: -150, upper: 150, best: 0, guess_depth: None, work: 40 };
        written(dir.path(), &[(board, wide)]);
        let mut back = Vec::new();
        read(dir.path(), &tag(), &mut |b, x| back.push((b, x))).unwrap();
        assert_eq!(back, [(board, Bounds { lower: -127, upper: 127, work: 31, ..wide })]);
    }
}
