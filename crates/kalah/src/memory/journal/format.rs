//! The journal file ([`crate::journal`]'s docs specify its format): read
//! and checked ([`Contents`]), written whole through the safe writer, in
//! a directory locked while a search uses it ([`JournalDir`]).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kalah_core::{Board, Position, Rules};
use kalah_db::safe::{claim, SafeFile};
use kalah_search::{Entry, Journal};
use xxhash_rust::xxh3::xxh3_64;

use crate::error::{Error, Field, Result};
use crate::memory::bytes::{board_text, Reader};

/// The journal's file name in its directory.
pub use crate::databases::JOURNAL_FILE as FILE_NAME;
const MAGIC: &[u8; 8] = b"KALAHJNL";
const VERSION: u32 = 1;
/// The largest journal read (decompressed): far more than any search keeps.
const MAX_BYTES: u64 = 1 << 32;

/// The default least subtree, in nodes, whose bounds a journal keeps:
/// about a fifth of a second of search on these two cores, so what a kill
/// loses beyond the last write is small, and a journal of Kalah(6,6) stays
/// a few MiB.
pub const DEFAULT_MIN_NODES: u64 = 1_000_000;

/// What a journal is for: a search of one position under one set of rules,
/// over one database; or, as a search memory, every search of boards of
/// some size under some rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The rules.
    pub rules: Rules,
    /// Houses a side.
    pub houses: usize,
    /// The one search the journal is of: its position and the seeds of the
    /// database it reads (`None`: none). `None` for a search memory.
    pub search: Option<(Position, Option<u32>)>,
}

impl Identity {
    /// The journal of one search: of `position` over a database of
    /// `database_seeds` seeds (or none).
    pub fn search(rules: Rules, position: Position, database_seeds: Option<u32>) -> Identity {
        Identity { rules, houses: position.houses(), search: Some((position, database_seeds)) }
    }

    /// A search memory: what every search of boards of `houses` houses
    /// under `rules` proved, for the next to use (the bounds are the
    /// same whatever the position searched and the database read).
    pub fn memory(rules: Rules, houses: usize) -> Identity {
        Identity { rules, houses, search: None }
    }
}

/// A journal as read from its file, or new.
#[derive(Debug)]
pub struct Loaded {
    /// The bounds, for the solver.
    pub journal: Arc<Journal>,
    /// Sessions before this one.
    pub sessions: u32,
    /// Nodes searched before this session.
    pub nodes: u64,
    /// Seconds taken before this session.
    pub seconds: f64,
}

/// A journal directory in use: locked until dropped.
#[derive(Debug)]
pub struct JournalDir {
    pub(crate) dir: PathBuf,
    pub(crate) identity: Identity,
    _lock: File,
}

impl JournalDir {
    /// Opens (creating it if need be) and locks the journal directory
    /// `dir` for a search of `identity`, and reads its journal if there is
    /// one; refuses one made for another search, and a damaged one.
    pub fn open(dir: &Path, identity: Identity, min_nodes: u64) -> Result<(JournalDir, Loaded)> {
        std::fs::create_dir_all(dir).map_err(|e| Error::from(kalah_db::DbError::io(dir, e)))?;
        let lock = File::open(dir).map_err(|e| Error::from(kalah_db::DbError::io(dir, e)))?;
        if claim(&lock, dir).is_err() {
            return Err(Error::refused(format!("{}: another kalah process is using this journal", dir.display())));
        }
        let this = JournalDir { dir: dir.to_path_buf(), identity, _lock: lock };
        let path = this.path();
        // A FIFO or a device would block the read or never end: only a
        // regular file (or a link to one) is read.
        if let Ok(meta) = std::fs::metadata(&path) {
            if !meta.is_file() {
                return Err(Error::bad_input(format!(
                    "{}: not a regular file, so not a journal: remove it, or give another directory",
                    path.display()
                )));
            }
        }
        let loaded = match File::open(&path) {
            Ok(file) => this.read(file, min_nodes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Loaded { journal: Arc::new(Journal::new(min_nodes)), sessions: 0, nodes: 0, seconds: 0.0 }
            }
            Err(e) => return Err(kalah_db::DbError::io(&path, e).into()),
        };
        Ok((this, loaded))
    }

    /// The journal file.
    pub fn path(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }

    fn read(&self, file: File, min_nodes: u64) -> Result<Loaded> {
        let path = self.path();
        let contents = Contents::parse(&path, file)?;
        let id = &self.identity;
        let refuse = |what: &str, theirs: String, ours: String| {
            Err(Error::refused(format!(
                "{}: this journal is of a search {what} {theirs}, not {ours}: give another journal directory",
                path.display()
            ))
            .about(Field::Journal))
        };
        if contents.houses != id.houses {
            return refuse("of boards of", format!("{} houses", contents.houses), format!("{}", id.houses));
        }
        let rules = contents.rules_text;
        if rules != id.rules.to_string() {
            return refuse("under the rules", rules, id.rules.to_string());
        }
        let position = contents.position_text;
        let ours = id.search.map_or(String::new(), |(p, _)| p.ring());
        if position != ours {
            if !position.is_empty() && !ours.is_empty() {
                return refuse("of the position", position, ours);
            }
            let what = |p: String| if p.is_empty() { "any position (a search memory)".to_string() } else { format!("the position {p}") };
            return refuse("of", what(position), what(ours));
        }
        // The database the journal's search read is not checked: a
        // database holds exact values (or proven bounds, in a window
        // encoding), so the bounds hold over any other.
        let journal = Journal::with_entries(min_nodes, contents.entries, contents.tests)
            .ok_or_else(|| corrupt(&path, "an entry's bounds contradict each other"))?;
        Ok(Loaded { journal: Arc::new(journal), sessions: contents.sessions, nodes: contents.nodes, seconds: contents.seconds })
    }

    /// Writes `journal` whole, with the totals of every session so far.
    pub fn write(&self, journal: &Journal, sessions: u32, nodes: u64, seconds: f64) -> Result<()> {
        let id = &self.identity;
        let h = id.houses;
        let entries = journal.entries();
        let mut out = Vec::with_capacity(128 + entries.len() * (2 * h + 5));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(h as u32).to_le_bytes());
        out.extend_from_slice(&id.search.and_then(|(_, seeds)| seeds).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(&sessions.to_le_bytes());
        out.extend_from_slice(&nodes.to_le_bytes());
        out.extend_from_slice(&seconds.to_bits().to_le_bytes());
        out.extend_from_slice(&journal.min_nodes().to_le_bytes());
        for text in [id.rules.to_string(), id.search.map_or(String::new(), |(p, _)| p.ring())] {
            out.extend_from_slice(&(text.len() as u16).to_le_bytes());
            out.extend_from_slice(text.as_bytes());
        }
        out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        let bound = |v: i32| match v {
            i32::MIN => i16::MIN,
            i32::MAX => i16::MAX,
            v => v as i16,
        };
        let cells = |out: &mut Vec<u8>, board: Board| {
            out.extend(board.mover_houses(h));
            out.extend(board.opponent_houses(h));
        };
        for Entry { board, lower, upper, best } in entries {
            cells(&mut out, board);
            out.extend_from_slice(&bound(lower).to_le_bytes());
            out.extend_from_slice(&bound(upper).to_le_bytes());
            out.push(best);
        }
        let tests = journal.tests();
        out.extend_from_slice(&(tests.len() as u64).to_le_bytes());
        for (board, beta) in tests {
            cells(&mut out, board);
            out.extend_from_slice(&bound(beta).to_le_bytes());
        }
        out.extend_from_slice(&xxh3_64(&out).to_le_bytes());
        let path = self.path();
        let packed = zstd::bulk::compress(&out, 9).map_err(|e| Error::from(kalah_db::DbError::io(&path, e)))?;
        let mut file = SafeFile::create(&path)?;
        std::io::Write::write_all(&mut file, &packed).map_err(|e| Error::from(kalah_db::DbError::io(&path, e)))?;
        file.commit()?;
        Ok(())
    }
}

pub(crate) fn corrupt(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::corrupt(format!("{}: not a usable journal: {why}", path.display()))
}

/// A journal file's contents, checked as far as they can be without the
/// search they are for: the format, the checksum, and every entry's
/// bounds against what its board allows (for `kalah journal verify`).
#[derive(Clone, Debug)]
pub struct Contents {
    /// Houses a side.
    pub houses: usize,
    /// The seeds of the database the search read (`u32::MAX`: none, or a
    /// search memory).
    pub database_seeds: u32,
    /// Sessions that wrote it.
    pub sessions: u32,
    /// Nodes they searched.
    pub nodes: u64,
    /// Seconds they took.
    pub seconds: f64,
    /// The rules, as `kalah` prints them.
    pub rules_text: String,
    /// The position searched, in the ring form; empty for a search memory.
    pub position_text: String,
    /// The bounds, by board.
    pub entries: Vec<Entry>,
    /// The root test last begun on each root board.
    pub tests: Vec<(Board, i32)>,
}

impl Contents {
    /// The journal of the directory `dir`, read and checked (not locked:
    /// a search may be writing it, and each write is whole).
    pub fn read(dir: &Path) -> Result<Contents> {
        let path = dir.join(FILE_NAME);
        let meta = std::fs::metadata(&path).map_err(|e| Error::from(kalah_db::DbError::io(&path, e)))?;
        if !meta.is_file() {
            return Err(Error::bad_input(format!("{}: not a regular file, so not a journal", path.display())));
        }
        let file = File::open(&path).map_err(|e| Error::from(kalah_db::DbError::io(&path, e)))?;
        Contents::parse(&path, file)
    }

    /// The rules, or the reason they cannot be read.
    pub fn rules(&self) -> Result<Rules> {
        Rules::all()
            .find(|r| r.to_string() == self.rules_text)
            .ok_or_else(|| Error::corrupt(format!("a journal of unknown rules {:?}", self.rules_text)))
    }

    fn parse(path: &Path, file: File) -> Result<Contents> {
        let corrupt = |why: String| corrupt(path, why);
        let mut bytes = Vec::new();
        zstd::stream::read::Decoder::new(file)
            .and_then(|d| d.take(MAX_BYTES).read_to_end(&mut bytes))
            .map_err(|e| corrupt(format!("it does not decompress ({e})")))?;
        if bytes.len() < 8 + 8 || &bytes[..8] != MAGIC {
            return Err(corrupt("it is not a kalah journal".into()));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if xxh3_64(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
            return Err(corrupt("its checksum does not match (damaged)".into()));
        }
        let mut r = Reader { bytes: body, at: 8 };
        let short = || corrupt("it ends too soon".into());
        let version = r.u32().ok_or_else(short)?;
        if version != VERSION {
            return Err(corrupt(format!("format version {version}; this kalah reads version {VERSION}")));
        }
        let houses = r.u32().ok_or_else(short)? as usize;
        if !(1..=kalah_core::MAX_HOUSES).contains(&houses) {
            return Err(corrupt(format!("boards of {houses} houses a side")));
        }
        let database_seeds = r.u32().ok_or_else(short)?;
        let sessions = r.u32().ok_or_else(short)?;
        let nodes = r.u64().ok_or_else(short)?;
        let seconds = f64::from_bits(r.u64().ok_or_else(short)?);
        let _kept_min = r.u64().ok_or_else(short)?;
        let rules_text = r.text().ok_or_else(short)?;
        let position_text = r.text().ok_or_else(short)?;
        let count = r.u64().ok_or_else(short)?;
        let size = 2 * houses + 5;
        let cells = |c: &[u8]| Board::from_sides(&c[..houses], &c[houses..2 * houses]);
        let i16_at = |x: &[u8]| i16::from_le_bytes([x[0], x[1]]);
        let bound = |x: &[u8]| match i16_at(x) {
            i16::MIN => i32::MIN,
            i16::MAX => i32::MAX,
            v => v as i32,
        };
        let mut entries = Vec::new();
        for _ in 0..count {
            let e = r.take(size).ok_or_else(short)?;
            let b = &e[2 * houses..];
            let entry = Entry { board: cells(e), lower: bound(&b[..2]), upper: bound(&b[2..4]), best: b[4] };
            check_entry(&entry, houses).map_err(corrupt)?;
            entries.push(entry);
        }
        let count = r.u64().ok_or_else(short)?;
        let mut tests = Vec::new();
        for _ in 0..count {
            let t = r.take(2 * houses + 2).ok_or_else(short)?;
            let (board, beta) = (cells(t), i16_at(&t[2 * houses..]) as i32);
            let seeds = board.total() as i32;
            if beta.abs() > seeds + 1 {
                return Err(corrupt(format!("the test \"value >= {beta}\" of a board of {seeds} seeds (its value is within -{seeds}..+{seeds})")));
            }
            tests.push((board, beta));
        }
        if r.at != body.len() {
            return Err(corrupt(format!("{} bytes after its last entry", body.len() - r.at)));
        }
        Ok(Contents { houses, database_seeds, sessions, nodes, seconds, rules_text, position_text, entries, tests })
    }
}

/// Refuses an entry no search could have recorded: bounds outside the
/// values the board's seeds allow (a board's value is what its mover gains
/// from it on, within `-seeds..=seeds`), a lower bound above the upper,
/// a best move that is not a house. Bounds within these limits that are
/// wrong are not seen here: `kalah journal verify` proves a sample again.
fn check_entry(e: &Entry, houses: usize) -> std::result::Result<(), String> {
    let seeds = e.board.total() as i32;
    let fits = |v: i32| (-seeds..=seeds).contains(&v);
    let text = |v: i32| match v {
        i32::MIN => "none".to_string(),
        i32::MAX => "none".to_string(),
        v => format!("{v:+}"),
    };
    let why = if (e.lower != i32::MIN && !fits(e.lower)) || (e.upper != i32::MAX && !fits(e.upper)) {
        format!("bounds {}..{} on a board of {seeds} seeds (its value is within -{seeds}..+{seeds})", text(e.lower), text(e.upper))
    } else if e.lower != i32::MIN && e.upper != i32::MAX && e.lower > e.upper {
        format!("a lower bound {} above the upper {}", text(e.lower), text(e.upper))
    } else if e.best != u8::MAX && e.best as usize >= houses {
        format!("a best move {} of a board of {houses} houses", e.best as usize + 1)
    } else {
        return Ok(());
    };
    Err(format!("an entry of the board {}: {why}", board_text(e.board, houses)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kalah_core::Capture;

    /// A journal of Kalah(4,3) with three boards' bounds (one without an
    /// upper bound, one without a best move) and a root test.
    fn sample() -> (Identity, Journal) {
        let rules = Rules { capture: Capture::Empty, ..Rules::default() };
        let start = Position::start(4, 3).unwrap();
        let entries = [
            Entry { board: start.mover_board(), lower: -2, upper: 4, best: 1 },
            Entry { board: Board::from_sides(&[1, 0, 2, 0], &[0, 3, 0, 1]), lower: 3, upper: i32::MAX, best: 3 },
            Entry { board: Board::from_sides(&[0, 0, 1, 0], &[1, 0, 0, 0]), lower: -1, upper: -1, best: u8::MAX },
        ];
        let journal = Journal::with_entries(1000, entries, [(start.mover_board(), 2)]).unwrap();
        (Identity::search(rules, start, Some(10)), journal)
    }

    /// The bytes of the journal file of `dir`, decompressed.
    fn body(dir: &Path) -> Vec<u8> {
        zstd::stream::decode_all(File::open(dir.join(FILE_NAME)).unwrap()).unwrap()
    }

    /// `bytes` (without their checksum) written back as the journal of
    /// `dir`, with a checksum that matches.
    fn rewrite(dir: &Path, mut bytes: Vec<u8>) {
        bytes.truncate(bytes.len() - 8);
        let sum = xxh3_64(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        std::fs::write(dir.join(FILE_NAME), zstd::bulk::compress(&bytes, 1).unwrap()).unwrap();
    }

    /// What is written is read back whole: the record of the sessions,
    /// the rules and position, every entry and root test, in the layout
    /// the module docs give.
    #[test]
    fn a_journal_reads_back_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let (identity, journal) = sample();
        let (jd, loaded) = JournalDir::open(dir.path(), identity.clone(), 1000).unwrap();
        assert_eq!((loaded.sessions, loaded.nodes, loaded.journal.len()), (0, 0, 0), "a new journal");
        jd.write(&journal, 3, 123_456, 7.5).unwrap();
        let c = Contents::read(dir.path()).unwrap();
        assert_eq!((c.houses, c.database_seeds, c.sessions, c.nodes, c.seconds), (4, 10, 3, 123_456, 7.5));
        assert_eq!((c.rules().unwrap(), c.position_text.as_str()), (identity.rules, "3,3,3,3,0,3,3,3,3,0 S"));
        assert_eq!(c.entries, journal.entries());
        assert_eq!(c.tests, journal.tests());
        // The layout: magic, version, houses, then the database's seeds.
        let bytes = body(dir.path());
        assert_eq!(&bytes[..8], MAGIC);
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), VERSION);
        assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), 4);
        assert_eq!(u32::from_le_bytes(bytes[16..20].try_into().unwrap()), 10);
        // Each entry takes 2h + 5 bytes, each test 2h + 2, beside the header.
        let texts = 2 + c.rules_text.len() + 2 + c.position_text.len();
        assert_eq!(bytes.len(), 8 + 4 * 4 + 3 * 8 + texts + 8 + 3 * 13 + 8 + 10 + 8);
        // The directory is locked while it is open: a second search is refused.
        let e = JournalDir::open(dir.path(), identity.clone(), 1000).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Refused, "{e}");
        drop(jd);
        let (_, loaded) = JournalDir::open(dir.path(), identity, 1000).unwrap();
        assert_eq!((loaded.sessions, loaded.nodes, loaded.journal.entries()), (3, 123_456, journal.entries()));
    }

    /// A journal of another search, a damaged one, one of another version
    /// and one holding bounds no search could prove are refused, saying
    /// why.
    #[test]
    fn a_journal_that_cannot_serve_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (identity, journal) = sample();
        JournalDir::open(dir.path(), identity.clone(), 1000).unwrap().0.write(&journal, 1, 1, 1.0).unwrap();
        let refused = |identity: Identity| JournalDir::open(dir.path(), identity, 1000).unwrap_err();
        let other_rules = Identity { rules: Rules::default(), ..identity.clone() };
        assert!(refused(other_rules).to_string().contains("under the rules"));
        let other_position = Identity::search(identity.rules, "2,4,3,3,0,3,3,3,3,0 N".parse().unwrap(), Some(10));
        assert!(refused(other_position).to_string().contains("of the position"));
        assert!(refused(Identity::memory(identity.rules, 4)).to_string().contains("a search memory"));
        let good = body(dir.path());
        let corrupt = |why: &str| {
            let e = refused(identity.clone());
            assert_eq!(e.kind(), crate::error::ErrorKind::Corrupt, "{e}");
            assert!(e.to_string().contains(why), "{why}: {e}");
        };
        // A byte changed, the checksum left as it was.
        let mut damaged = good.clone();
        damaged[30] ^= 1;
        std::fs::write(dir.path().join(FILE_NAME), zstd::bulk::compress(&damaged, 1).unwrap()).unwrap();
        corrupt("checksum");
        // Another version, with a checksum that matches.
        let mut version = good.clone();
        version[8] = 2;
        rewrite(dir.path(), version);
        corrupt("format version 2");
        // The first entry's lower bound beyond the 24 seeds of its board.
        let at = 8 + 4 * 4 + 3 * 8 + 2 + identity.rules.to_string().len() + 2 + "3,3,3,3,0,3,3,3,3,0 S".len() + 8;
        let mut beyond = good.clone();
        beyond[at + 8..at + 10].copy_from_slice(&30i16.to_le_bytes());
        rewrite(dir.path(), beyond);
        corrupt("bounds +30..");
        // Cut short.
        let mut short = good.clone();
        short.truncate(at + 20);
        short.extend_from_slice(&[0; 8]);
        rewrite(dir.path(), short);
        corrupt("ends too soon");
        std::fs::write(dir.path().join(FILE_NAME), b"not zstd").unwrap();
        corrupt("does not decompress");
    }
}
