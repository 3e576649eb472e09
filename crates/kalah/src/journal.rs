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

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kalah_core::{Board, Position, Rules};
use kalah_db::safe::{claim, SafeFile};
use kalah_search::{Entry, Journal};
use xxhash_rust::xxh3::xxh3_64;

use crate::bytes::{board_text, Reader};
use crate::error::{Error, Field, Result};

/// The journal's file name in its directory.
pub const FILE_NAME: &str = "journal.kj";
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
    dir: PathBuf,
    identity: Identity,
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
                return Err(Error::bad_input(format!("{}: not a regular file, so not a journal: remove it, or give another directory", path.display())));
            }
        }
        let loaded = match File::open(&path) {
            Ok(file) => this.read(file, min_nodes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Loaded { journal: Arc::new(Journal::new(min_nodes)), sessions: 0, nodes: 0, seconds: 0.0 },
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
            Err(Error::refused(format!("{}: this journal is of a search {what} {theirs}, not {ours}: give another journal directory", path.display())).about(Field::Journal))
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
        let journal = Journal::with_entries(min_nodes, contents.entries, contents.tests).ok_or_else(|| corrupt(&path, "an entry's bounds contradict each other"))?;
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

fn corrupt(path: &Path, why: impl std::fmt::Display) -> Error {
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
        Rules::all().find(|r| r.to_string() == self.rules_text).ok_or_else(|| Error::corrupt(format!("a journal of unknown rules {:?}", self.rules_text)))
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

/// What a search's journal says of its position: the record of its runs,
/// the bounds on the position's value and on the value after each
/// opening turn of its player to move (extra-move chains followed to
/// their end), and after each reply to it, down to the depth asked, as
/// far as the journal holds them (`kalah journal show`). Values are the
/// position's player's to move, stores included, as a search of the
/// position reports them.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    /// The journal file.
    pub path: PathBuf,
    /// The position searched (ring form).
    pub position: String,
    /// The rules.
    #[serde(serialize_with = "crate::text::serialize_rules")]
    pub rules: Rules,
    /// The seeds of the database the search read last (`None`: none).
    pub database_seeds: Option<u32>,
    /// Runs of the search that wrote it.
    pub sessions: u32,
    /// Nodes they searched.
    pub nodes: u64,
    /// Wall-clock seconds they took.
    pub seconds: f64,
    /// Boards with bounds.
    pub entries: usize,
    /// The position's value, if the journal holds it exactly.
    pub value: Option<i32>,
    /// The position's value is at least this (`None`: no bound kept).
    pub lower: Option<i32>,
    /// And at most this.
    pub upper: Option<i32>,
    /// The test "value >= V" last begun on the position.
    pub testing: Option<i32>,
    /// Each opening turn, in the order of its houses.
    pub turns: Vec<TurnBounds>,
}

/// The deepest [`summary`] goes: turns of the player to move, then the
/// replies, then the turns after those (about 400 lines from
/// Kalah(6,6)'s start).
pub const MAX_SUMMARY_DEPTH: usize = 3;

/// The bounds a journal holds on the value after one turn, for the
/// player to move in the journal's position ([`Summary::turns`]), and
/// after each turn that follows it, down to the depth asked.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TurnBounds {
    /// The houses played, in order (1-based).
    pub turn: Vec<usize>,
    /// The position after it (ring form).
    pub position: String,
    /// The value after it, if the journal holds it exactly (or the game is over).
    pub value: Option<i32>,
    /// The value after it is at least this (`None`: no bound kept).
    pub lower: Option<i32>,
    /// And at most this.
    pub upper: Option<i32>,
    /// The turns that can follow it (extra-move chains followed), if the
    /// depth asked goes below it; none when the game is over after it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replies: Vec<TurnBounds>,
}

/// The journal of `dir`, read and checked ([`Contents::read`]), summed up
/// for its position: its opening turns (`depth` 1), their replies (2),
/// and so on down to `depth` turns (1 to [`MAX_SUMMARY_DEPTH`]). A search
/// memory, which has no position, is refused.
pub fn summary(dir: &Path, depth: usize) -> Result<Summary> {
    if !(1..=MAX_SUMMARY_DEPTH).contains(&depth) {
        return Err(Error::bad_input(format!("a summary's depth of {depth} turns: give 1 to {MAX_SUMMARY_DEPTH}")));
    }
    let contents = Contents::read(dir)?;
    let path = dir.join(FILE_NAME);
    if contents.position_text.is_empty() {
        return Err(Error::bad_input(format!("{}: a search memory, which holds no one position to sum up (journal verify checks it)", path.display())));
    }
    let rules = contents.rules()?;
    let position: Position = contents.position_text.parse().map_err(|e| corrupt(&path, format!("its position {:?}: {e}", contents.position_text)))?;
    if position.houses() != contents.houses {
        return Err(corrupt(&path, format!("its position {:?} is not of {} houses", contents.position_text, contents.houses)));
    }
    let engine = kalah_core::Engine::new(contents.houses, rules);
    let by_board: std::collections::HashMap<Board, &Entry> = contents.entries.iter().map(|e| (e.board, e)).collect();
    let mover = position.to_move();
    // Bounds for `mover` on the value of `p`: the journal's on its board
    // (for its player to move, houses only), the stores added, the
    // signs turned when the other player is to move.
    type Bounds = (Option<i32>, Option<i32>);
    let bounds = |p: &Position| -> Bounds {
        let board = p.mover_board();
        let base = p.store_difference();
        let (lower, upper) = match engine.terminal_value(board) {
            Some(v) => (Some(v), Some(v)),
            None => match by_board.get(&board) {
                Some(e) => ((e.lower != i32::MIN).then_some(e.lower), (e.upper != i32::MAX).then_some(e.upper)),
                None => (None, None),
            },
        };
        let (lower, upper) = (lower.map(|v| base + v), upper.map(|v| base + v));
        if p.to_move() == mover {
            (lower, upper)
        } else {
            (upper.map(|v| -v), lower.map(|v| -v))
        }
    };
    // The value, if the bounds meet.
    fn exact((l, u): Bounds) -> Option<i32> {
        l.filter(|&l| Some(l) == u)
    }
    let (lower, upper) = bounds(&position);
    // The turns from `p` and, while `depth` lasts, the turns after each.
    fn turns_from(engine: &kalah_core::Engine, p: &Position, depth: usize, bounds: &dyn Fn(&Position) -> Bounds) -> Vec<TurnBounds> {
        if depth == 0 {
            return Vec::new();
        }
        crate::openings::opening_turns(engine, p)
            .into_iter()
            .map(|(turn, after)| {
                let (lower, upper) = bounds(&after);
                TurnBounds { turn, position: after.ring(), value: exact((lower, upper)), lower, upper, replies: turns_from(engine, &after, depth - 1, bounds) }
            })
            .collect()
    }
    let turns = turns_from(&engine, &position, depth, &bounds);
    let root = position.mover_board();
    Ok(Summary {
        path,
        position: position.ring(),
        rules,
        database_seeds: (contents.database_seeds != u32::MAX).then_some(contents.database_seeds),
        sessions: contents.sessions,
        nodes: contents.nodes,
        seconds: contents.seconds,
        entries: contents.entries.len(),
        value: exact((lower, upper)),
        lower,
        upper,
        testing: contents.tests.iter().find(|&&(b, _)| b == root).map(|&(_, beta)| position.store_difference() + beta),
        turns,
    })
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


/// The longest a journal waits between writes, however long the last
/// took (a 4 GiB table snapshot written beside a busy session took up to
/// 6 minutes; ten times that would leave an hour of work unwritten).
pub const MAX_WRITE_SPACING: std::time::Duration = std::time::Duration::from_secs(20 * 60);

/// Where and how often a search keeps its journal ([`crate::analyzer::Request::journal`]).
#[derive(Clone, Debug, PartialEq)]
pub struct JournalSpec {
    /// The directory (created if need be).
    pub dir: PathBuf,
    /// How often the journal is written while the search runs (and once
    /// more at its end).
    pub every: std::time::Duration,
    /// The least subtree, in nodes, whose bounds are kept
    /// ([`DEFAULT_MIN_NODES`]).
    pub min_nodes: u64,
}

impl JournalSpec {
    /// A journal in `dir`, written every minute, keeping subtrees of
    /// [`DEFAULT_MIN_NODES`].
    pub fn new(dir: impl Into<PathBuf>) -> JournalSpec {
        JournalSpec { dir: dir.into(), every: std::time::Duration::from_secs(60), min_nodes: DEFAULT_MIN_NODES }
    }
}

pub use crate::snapshot::TableEntries;

/// What a search's journal held and gave (in a [`crate::report::Report`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct JournalReport {
    /// The journal file.
    pub path: PathBuf,
    /// Whether it is a search memory (module docs), not one search's journal.
    pub memory: bool,
    /// Boards with bounds when the search began (from earlier sessions).
    pub entries_loaded: usize,
    /// Boards with bounds at its end.
    pub entries: usize,
    /// Sessions before this one.
    pub earlier_sessions: u32,
    /// Nodes the earlier sessions searched.
    pub earlier_nodes: u64,
    /// Seconds the earlier sessions took.
    pub earlier_seconds: f64,
    /// Times the journal was written by this session (its last write included).
    pub writes: u64,
    /// Why the last write failed, if it did (a full disk, a directory no
    /// longer writable): the answer stands, but what this session proved
    /// since its last successful write is not kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_written: Option<String>,
}

/// A journal in use by one search: read, locked, and written while the
/// search runs ([`Journaling::run`]).
#[derive(Debug)]
pub struct Journaling {
    dir: JournalDir,
    loaded: Loaded,
    entries_loaded: usize,
    every: std::time::Duration,
}

impl Journaling {
    /// Opens the journal of `spec` for a search of `identity`.
    pub fn open(spec: &JournalSpec, identity: Identity) -> Result<Journaling> {
        if spec.every.is_zero() {
            return Err(Error::bad_input("a journal written every 0 s: give a positive interval"));
        }
        let (dir, loaded) = JournalDir::open(&spec.dir, identity, spec.min_nodes)?;
        let entries_loaded = loaded.journal.len();
        Ok(Journaling { dir, loaded, entries_loaded, every: spec.every })
    }

    /// The bounds, to hand to the solver.
    pub fn journal(&self) -> Arc<Journal> {
        self.loaded.journal.clone()
    }

    /// What a table snapshot of this search is tagged with; `None` for a
    /// search memory, which keeps none.
    fn snapshot_tag(&self) -> Option<crate::snapshot::Tag> {
        let id = &self.dir.identity;
        id.search.map(|(position, _)| crate::snapshot::Tag { houses: id.houses, rules: id.rules.to_string(), position: position.ring() })
    }

    /// Gives `restore` every entry of the table snapshot an earlier run of
    /// this search left (the table snapshot, `table.kt`), if there is one and it is
    /// whole; the number of entries. A snapshot that cannot be used is
    /// passed over with a note to `observer`.
    pub fn restore_table(&self, restore: &mut dyn FnMut(Board, kalah_search::tt::Bounds), observer: &dyn crate::progress::Observer) -> Option<u64> {
        let tag = self.snapshot_tag()?;
        match crate::snapshot::read(&self.dir.dir, &tag, restore) {
            Ok(count) => count,
            Err(e) => {
                observer.note(&format!("the table snapshot is not used (the journal is): {e}"));
                None
            }
        }
    }

    /// Runs `job` (the search), writing the journal every interval while
    /// it runs, with the nodes `nodes` reads, and once more at its end
    /// (also when it was stopped). A write that fails while the search
    /// runs is said to `observer` and tried again next time; the last one's
    /// failure is the error.
    ///
    /// With `table` (the solver's [`kalah_search::Solver::for_each_table_entry`]),
    /// a search's journal (not a search memory) also keeps a snapshot of
    /// the transposition table (the table snapshot, `table.kt`), written just before
    /// the journal, whose count of nodes is read after it: the nodes a
    /// journal counts include all whose work a resumed search finds kept
    /// (and those searched while the snapshot was taken, which it may
    /// have missed in part). Writes are then spaced by at least ten times as
    /// long as the last took (at most a tenth of the time on them), but at
    /// most [`MAX_WRITE_SPACING`] (a write slowed by a busy disk must not
    /// put the next hours away), and a snapshot that cannot be written is
    /// a note.
    pub fn run<R>(&self, nodes: &(dyn Fn() -> u64 + Sync), table: Option<&TableEntries<'_>>, observer: &dyn crate::progress::Observer, job: impl FnOnce() -> R) -> Result<(R, JournalReport)> {
        use std::sync::{Condvar, Mutex};
        let started = std::time::Instant::now();
        let journal = &self.loaded.journal;
        let sessions = self.loaded.sessions + 1;
        let tag = self.snapshot_tag();
        let snapshot = table.zip(tag.as_ref());
        let write = || {
            if let Some((table, tag)) = snapshot {
                if let Err(e) = crate::snapshot::write(&self.dir.dir, tag, table) {
                    observer.note(&format!("the table snapshot was not written (the journal is): {e}"));
                }
            }
            self.dir.write(journal, sessions, self.loaded.nodes + nodes(), self.loaded.seconds + started.elapsed().as_secs_f64())
        };
        let done = (Mutex::new(false), Condvar::new());
        let writes = std::sync::atomic::AtomicU64::new(0);
        let result = std::thread::scope(|scope| {
            scope.spawn(|| {
                let mut written = journal.changes();
                let mut wait = self.every;
                let mut finished = done.0.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    // Checked before waiting too: a search that ends before
                    // this thread first waits has already notified.
                    if *finished {
                        return;
                    }
                    finished = done.1.wait_timeout(finished, wait).unwrap_or_else(|e| e.into_inner()).0;
                    if *finished {
                        return;
                    }
                    let changes = journal.changes();
                    // The table changes all the time: a snapshot is worth writing.
                    if changes != written || snapshot.is_some() {
                        let begun = std::time::Instant::now();
                        let result = write();
                        wait = self.every.max((begun.elapsed() * 10).min(MAX_WRITE_SPACING));
                        match result {
                            Ok(()) => {
                                written = changes;
                                writes.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            }
                            Err(e) => observer.note(&format!("the journal was not written (the search goes on; tried again in {} s): {e}", self.every.as_secs_f64())),
                        }
                    }
                }
            });
            struct Done<'a>(&'a (Mutex<bool>, Condvar));
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    *self.0 .0.lock().unwrap_or_else(|e| e.into_inner()) = true;
                    self.0 .1.notify_all();
                }
            }
            let _done = Done(&done);
            job()
        });
        let memory = self.dir.identity.search.is_none();
        let contradictions = journal.contradictions();
        if contradictions > 0 {
            // Not written: the file keeps what it held, for `kalah journal verify`.
            let what = if memory { "search memory" } else { "journal" };
            return Err(Error::corrupt(format!(
                "{}: this {what} holds bounds that the search proved wrong ({contradictions} time{}): it is damaged or forged, and the answer is not trusted; verify it against searches, or delete it",
                self.dir.path().display(),
                if contradictions == 1 { "" } else { "s" }
            )));
        }
        // The answer stands without the last write: a failure is reported
        // with it, not instead of it.
        let (last, not_written) = match write() {
            Ok(()) => (1, None),
            Err(e) => {
                let what = if memory { "search memory" } else { "journal" };
                observer.note(&format!("the {what} was not written: {e}"));
                (0, Some(e.to_string()))
            }
        };
        let report = JournalReport {
            path: self.dir.path(),
            memory,
            entries_loaded: self.entries_loaded,
            entries: journal.len(),
            earlier_sessions: self.loaded.sessions,
            earlier_nodes: self.loaded.nodes,
            earlier_seconds: self.loaded.seconds,
            writes: writes.into_inner() + last,
            not_written: if memory { None } else { not_written },
        };
        Ok((result, report))
    }
}
