//! The opening book: every move's exact value, and a line of best play,
//! of every position within the first plies of the games people play, so
//! that those are answered at once instead of searched.
//!
//! A book is built by searches ([`crate::book_build::build_file`], `kalah book build`, the tool
//! `tools/book.sh`), and read back whole into memory ([`Book::from_bytes`],
//! [`Book::read`]); an [`crate::Analyzer`] given one
//! ([`crate::Analyzer::with_book`]) answers from it before anything else
//! (`Source::Book`), unless a request says not to ([`crate::Request::book`]).
//! The library carries the book of `data/book/` ([`carried`]), which the
//! command line and the Python package answer from by default.
//!
//! Entries are by *board* (the houses, the player to move's first), not by
//! position: a board's move values are what the player to move gains from
//! the board on, stores not counted, so one entry serves every position
//! with that board, whatever its stores and whichever side is to move.
//!
//! # Format, version 1
//!
//! One zstd frame. Inside, little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `KALAHBOK` |
//! | 4 | version, 1 |
//! | 4 | sections `n` |
//! | ... | `n` sections, each: |
//! | 4 | houses a side `h` |
//! | 4 | seeds a house at the start `s` |
//! | 4 | plies covered `p`: every position `p` sowings or fewer from the start is in |
//! | 2 + n | the rules, as `kalah` prints them (`capture=standard end=...`): length, UTF-8 |
//! | 8 | entries `e` |
//! | e × ... | each entry, sorted by board: the board's `2h` houses (the mover's first), `h` move values (`i8`, the mover's gain from the board on through that house; -128: the house is empty), the length `k` of a line of best play (`u8`) and its `k` houses (1-based, each of the side to move then) |
//! | 8 | xxh3-64 of every byte before it |
//!
//! A book is refused, with the reason, if it does not decompress, its
//! checksum or layout is wrong, its version is another, or an entry is not
//! possible: a move value beyond the board's seeds, a value for an empty
//! house or none for a full one, a line whose first move is not one of the
//! best. Values within those limits that are wrong cannot be seen from the
//! file: [`crate::book_build::check`] (`kalah book verify`) proves entries again by search,
//! and the test suite proves a random sample on every run.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use kalah_core::{Board, Engine, Next, Position, Rules, Side};
use kalah_search::{Bounded, BoundedAnalysis, BoundedMove, LineEnd, PvMove};
use xxhash_rust::xxh3::xxh3_64;

use crate::error::{Error, Result};
use crate::memory::bytes::{board_text, Reader};

/// The book this library carries: `data/book/book.kbk` of its
/// repository (through the crate's `data/book.kbk`, a link to it, so that
/// the packaged crate holds it), built in (empty in a build without a
/// book).
static CARRIED: &[u8] = include_bytes!("../../data/book.kbk");

/// The opening book this library carries, read once a process; `None`
/// when the build carries none. An error (kind corrupt) if it is damaged.
pub fn carried() -> Result<Option<Arc<Book>>> {
    static BOOK: OnceLock<std::result::Result<Arc<Book>, String>> = OnceLock::new();
    let book =
        BOOK.get_or_init(|| if CARRIED.is_empty() { Ok(Arc::default()) } else { Book::from_bytes(CARRIED).map(Arc::new).map_err(|e| e.to_string()) });
    match book {
        Ok(b) if b.is_empty() => Ok(None),
        Ok(b) => Ok(Some(b.clone())),
        Err(e) => Err(Error::corrupt(format!("the opening book this library carries: {e}"))),
    }
}

/// What a book holds ([`Book::info`]): serialises to the object `kalah
/// book info --json` prints.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BookInfo {
    /// Each game's part.
    pub sections: Vec<SectionInfo>,
    /// Entries in all.
    pub entries: usize,
}

/// What one section holds ([`Section::info`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SectionInfo {
    /// Houses a side.
    pub houses: usize,
    /// Seeds a house at the start.
    pub seeds: u32,
    /// The rules.
    #[serde(serialize_with = "crate::text::serialize_rules")]
    pub rules: Rules,
    /// Every position this many sowings or fewer from the start is in.
    pub plies: u32,
    /// Its entries.
    pub entries: usize,
}

const MAGIC: &[u8; 8] = b"KALAHBOK";
const VERSION: u32 = 1;
/// A move value byte that means "no such move".
const NO_MOVE: i8 = i8::MIN;
/// The largest book read (decompressed).
const MAX_BYTES: u64 = 1 << 30;

/// What the book knows of one board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookEntry {
    /// Each house's move value (index 0 is house 1): what the player to
    /// move gains from the board on through it, stores not counted;
    /// `None` for an empty house.
    pub moves: Vec<Option<i32>>,
    /// A line of best play from the board to the end of the game: the
    /// houses played (1-based), each by the side to move then.
    pub line: Vec<u8>,
}

impl BookEntry {
    /// The board's value: its best move's.
    pub fn value(&self) -> Option<i32> {
        self.moves.iter().flatten().copied().max()
    }
}

/// One game's part of a book: Kalah(h,s) under some rules, to some plies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Houses a side.
    pub houses: usize,
    /// Seeds a house at the start.
    pub seeds: u32,
    /// The rules.
    pub rules: Rules,
    /// Every position this many sowings or fewer from the start is in.
    pub plies: u32,
    /// The entries, by board.
    pub entries: HashMap<Board, BookEntry>,
}

impl Section {
    /// What it holds.
    pub fn info(&self) -> SectionInfo {
        SectionInfo { houses: self.houses, seeds: self.seeds, rules: self.rules, plies: self.plies, entries: self.entries.len() }
    }
}

/// An opening book, in memory; see the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    sections: Vec<Section>,
}

impl Book {
    /// A book of these sections (one for each game; a later section of the
    /// same board size and rules adds to an earlier one's entries).
    pub fn new(sections: Vec<Section>) -> Book {
        Book { sections }
    }

    /// The sections.
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// What it holds: each section's game, plies and entries.
    pub fn info(&self) -> BookInfo {
        BookInfo { sections: self.sections.iter().map(Section::info).collect(), entries: self.len() }
    }

    /// Entries in all.
    pub fn len(&self) -> usize {
        self.sections.iter().map(|s| s.entries.len()).sum()
    }

    /// Whether it holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the book knows of `position` under `rules`, if anything.
    pub fn lookup(&self, rules: Rules, position: &Position) -> Option<&BookEntry> {
        let board = position.mover_board();
        self.sections.iter().filter(|s| s.rules == rules && s.houses == position.houses()).find_map(|s| s.entries.get(&board))
    }

    /// The book in the file at `path`.
    pub fn read(path: &Path) -> Result<Book> {
        let meta = std::fs::metadata(path).map_err(|e| Error::from(kalah_db::DbError::io(path, e)))?;
        if !meta.is_file() {
            return Err(Error::bad_input(format!("{}: not a regular file, so not a book", path.display())));
        }
        let bytes = std::fs::read(path).map_err(|e| Error::from(kalah_db::DbError::io(path, e)))?;
        Book::from_bytes(&bytes).map_err(|e| Error::corrupt(format!("{}: {e}", path.display())))
    }

    /// The book of these bytes (a file's, or those a program carries).
    pub fn from_bytes(compressed: &[u8]) -> Result<Book> {
        let bad = |why: String| Error::corrupt(format!("not a usable opening book: {why}"));
        let mut bytes = Vec::new();
        zstd::stream::read::Decoder::new(compressed)
            .and_then(|d| d.take(MAX_BYTES).read_to_end(&mut bytes))
            .map_err(|e| bad(format!("it does not decompress ({e})")))?;
        if bytes.len() < 8 + 8 || &bytes[..8] != MAGIC {
            return Err(bad("it is not a kalah opening book".into()));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if xxh3_64(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
            return Err(bad("its checksum does not match (damaged)".into()));
        }
        let mut r = Reader { bytes: body, at: 8 };
        let short = || bad("it ends too soon".into());
        let version = r.u32().ok_or_else(short)?;
        if version != VERSION {
            return Err(bad(format!("format version {version}; this kalah reads version {VERSION}")));
        }
        let count = r.u32().ok_or_else(short)?;
        let mut sections = Vec::new();
        for _ in 0..count {
            let houses = r.u32().ok_or_else(short)? as usize;
            if !(1..=kalah_core::MAX_HOUSES).contains(&houses) {
                return Err(bad(format!("a section of {houses} houses a side")));
            }
            let seeds = r.u32().ok_or_else(short)?;
            let plies = r.u32().ok_or_else(short)?;
            let text = r.text().ok_or_else(short)?;
            let rules = Rules::all().find(|r| r.to_string() == text).ok_or_else(|| bad(format!("unknown rules {text:?}")))?;
            let engine = Engine::new(houses, rules);
            let n = r.u64().ok_or_else(short)?;
            let mut entries = HashMap::new();
            for _ in 0..n {
                let cells = r.take(2 * houses).ok_or_else(short)?;
                let board = Board::from_sides(&cells[..houses], &cells[houses..]);
                let moves: Vec<Option<i32>> =
                    r.take(houses).ok_or_else(short)?.iter().map(|&b| (b as i8 != NO_MOVE).then_some(b as i8 as i32)).collect();
                let k = r.take(1).ok_or_else(short)?[0] as usize;
                let line = r.take(k).ok_or_else(short)?.to_vec();
                let entry = BookEntry { moves, line };
                check_entry(&engine, board, &entry).map_err(|why| bad(format!("the entry of the board {}: {why}", board_text(board, houses))))?;
                if entries.insert(board, entry).is_some() {
                    return Err(bad(format!("the board {} twice", board_text(board, houses))));
                }
            }
            sections.push(Section { houses, seeds, rules, plies, entries });
        }
        if r.at != body.len() {
            return Err(bad(format!("{} bytes after its last entry", body.len() - r.at)));
        }
        Ok(Book { sections })
    }

    /// The book as bytes ([`Book::from_bytes`] reads them back; the same
    /// book gives the same bytes).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.sections.len() as u32).to_le_bytes());
        for s in &self.sections {
            let h = s.houses;
            out.extend_from_slice(&(h as u32).to_le_bytes());
            out.extend_from_slice(&s.seeds.to_le_bytes());
            out.extend_from_slice(&s.plies.to_le_bytes());
            let text = s.rules.to_string();
            out.extend_from_slice(&(text.len() as u16).to_le_bytes());
            out.extend_from_slice(text.as_bytes());
            out.extend_from_slice(&(s.entries.len() as u64).to_le_bytes());
            let mut boards: Vec<&Board> = s.entries.keys().collect();
            boards.sort_unstable();
            for board in boards {
                let e = &s.entries[board];
                if e.moves.len() != h || e.line.len() > u8::MAX as usize || e.moves.iter().flatten().any(|v| v.abs() > 127) {
                    return Err(Error::internal(format!("a book entry that does not fit the format: {e:?}")));
                }
                out.extend(board.mover_houses(h));
                out.extend(board.opponent_houses(h));
                out.extend(e.moves.iter().map(|v| v.map_or(NO_MOVE, |v| v as i8) as u8));
                out.push(e.line.len() as u8);
                out.extend_from_slice(&e.line);
            }
        }
        out.extend_from_slice(&xxh3_64(&out).to_le_bytes());
        zstd::bulk::compress(&out, 19).map_err(|e| Error::internal(format!("compressing the book: {e}")))
    }
}

/// Refuses an entry no search could have made (module docs).
pub(crate) fn check_entry(engine: &Engine, board: Board, e: &BookEntry) -> std::result::Result<(), String> {
    let h = engine.houses();
    let seeds = board.total() as i32;
    if engine.is_over(board) {
        return Err("a finished game".into());
    }
    for (i, v) in e.moves.iter().enumerate() {
        match (board.get(i) > 0, v) {
            (true, None) => return Err(format!("no value for house {}, which holds seeds", i + 1)),
            (false, Some(_)) => return Err(format!("a value for house {}, which is empty", i + 1)),
            (true, Some(v)) if v.abs() > seeds => return Err(format!("house {} worth {v:+} with {seeds} seeds on the board", i + 1)),
            _ => {}
        }
    }
    let best = e.value().ok_or("no move")?;
    match e.line.first() {
        Some(&first) if (1..=h as u8).contains(&first) && e.moves[first as usize - 1] == Some(best) => {}
        Some(first) => return Err(format!("a line that begins with house {first}, not a best move")),
        None => return Err("no line of best play".into()),
    }
    // The line is legal play to the end of the game.
    let mut board = board;
    for (i, &house) in e.line.iter().enumerate() {
        if !(1..=h as u8).contains(&house) || board.get(house as usize - 1) == 0 {
            return Err(format!("its line's move {} (house {house}) is not legal", i + 1));
        }
        let o = engine.play(board, house as usize - 1);
        board = o.board;
        if o.next == Next::Over {
            return if i + 1 == e.line.len() { Ok(()) } else { Err(format!("its line goes on after the game ends at move {}", i + 1)) };
        }
    }
    Err("its line stops before the game ends".into())
}

/// Every board within `plies` sowings of the start of Kalah(h,s) under
/// `rules` whose game is not over, each once, nearest the start first (in
/// board order within a ply).
pub fn boards_within(h: usize, s: u32, rules: Rules, plies: u32) -> Result<Vec<Board>> {
    let engine = Engine::new(h, rules);
    let start = Position::start(h, s).map_err(|e| Error::bad_input(e.to_string()))?;
    let mut seen = std::collections::HashSet::new();
    let mut all = Vec::new();
    let mut level = vec![start.mover_board()];
    seen.insert(start.mover_board());
    all.push(start.mover_board());
    for _ in 0..plies {
        let mut next = Vec::new();
        for &board in &level {
            for house in (0..h).filter(|&i| board.get(i) > 0) {
                let o = engine.play(board, house);
                if o.next == Next::Over {
                    continue;
                }
                let child = turn_board(&o);
                if seen.insert(child) {
                    next.push(child);
                }
            }
        }
        next.sort_unstable();
        all.extend_from_slice(&next);
        level = next;
    }
    Ok(all)
}

/// The board after a move, from the side to move then (the engine's view).
fn turn_board(o: &kalah_core::Outcome) -> Board {
    o.board
}

/// The position of `board` for South to move with empty stores: its value
/// is the board's. Refused for a board that is not one of `h` houses
/// ([`Position::from_mover_board`]).
pub fn board_position(h: usize, board: Board) -> Result<Position> {
    Ok(Position::from_mover_board(h, board, Side::South, [0, 0])?)
}

impl BookEntry {
    /// The answer for `position` (whose board this entry is of) under the
    /// rules of `engine`: every move's value and the line, stores
    /// included, for the player to move.
    pub fn analysis(&self, engine: &Engine, position: &Position) -> BoundedAnalysis {
        let base = position.store_difference();
        let exact = |v: i32| Bounded { lower: base + v, upper: base + v };
        let moves = self.moves.iter().enumerate().filter_map(|(i, v)| v.map(|v| BoundedMove { house: i + 1, value: exact(v) })).collect();
        let (mut board, mut side) = (position.mover_board(), position.to_move());
        let mut pv = Vec::with_capacity(self.line.len());
        for &house in &self.line {
            pv.push(PvMove { side, house: house as usize });
            let o = engine.play(board, house as usize - 1);
            board = o.board;
            match o.next {
                Next::Mover => {}
                Next::Opponent => side = side.other(),
                Next::Over => break,
            }
        }
        BoundedAnalysis { value: exact(self.value().unwrap_or(0)), moves, pv, end: LineEnd::GameOver }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A book of Kalah(3,2) to `plies`, every value from the reference solver.
    fn small_book(plies: u32) -> Book {
        let rules = Rules::default();
        let engine = Engine::new(3, rules);
        let mut entries = HashMap::new();
        for board in boards_within(3, 2, rules, plies).unwrap() {
            let position = board_position(3, board).unwrap();
            let value = |p: &Position| kalah_reference_value(&engine, p);
            let mut moves = vec![None; 3];
            for house in (0..3).filter(|&i| board.get(i) > 0) {
                let (next, _) = position.play(&engine, house + 1).unwrap();
                let v = if next.to_move() == position.to_move() { value(&next) } else { -value(&next) };
                moves[house] = Some(v);
            }
            // A line: the first best move each time, to the end.
            let mut line = Vec::new();
            let mut p = position;
            while !p.is_over(&engine) {
                let best = (1..=3).filter(|&h| p.house(p.to_move(), h) > 0).max_by_key(|&h| {
                    let (next, _) = p.play(&engine, h).unwrap();
                    let v = if next.to_move() == p.to_move() { value(&next) } else { -value(&next) };
                    (v, std::cmp::Reverse(h))
                });
                let h = best.unwrap();
                line.push(h as u8);
                p = p.play(&engine, h).unwrap().0;
            }
            entries.insert(board, BookEntry { moves, line });
        }
        Book::new(vec![Section { houses: 3, seeds: 2, rules, plies, entries }])
    }

    /// The value of `p` for its player to move, by plain minimax
    /// (future store difference plus the stores'): small boards only.
    fn kalah_reference_value(engine: &Engine, p: &Position) -> i32 {
        fn board_value(engine: &Engine, board: Board) -> i32 {
            if let Some(v) = engine.terminal_value(board) {
                return v;
            }
            (0..engine.houses())
                .filter(|&i| board.get(i) > 0)
                .map(|i| {
                    let o = engine.play(board, i);
                    match o.next {
                        Next::Over => o.gain(),
                        _ => o.value_with(board_value(engine, o.board)),
                    }
                })
                .max()
                .expect("a board not over has a move")
        }
        p.store_difference() + board_value(engine, p.mover_board())
    }

    #[test]
    fn a_book_reads_back_what_was_written_and_the_same_bytes_again() {
        let book = small_book(4);
        assert!(book.len() > 10);
        let bytes = book.to_bytes().unwrap();
        let back = Book::from_bytes(&bytes).unwrap();
        assert_eq!(back, book);
        assert_eq!(back.to_bytes().unwrap(), bytes);
    }

    #[test]
    fn a_lookup_answers_any_position_of_a_board_from_either_side() {
        let book = small_book(3);
        let rules = Rules::default();
        let engine = Engine::new(3, rules);
        let start = Position::start(3, 2).unwrap();
        let entry = book.lookup(rules, &start).expect("the start is in");
        assert_eq!(entry.value(), Some(kalah_reference_value(&engine, &start)));
        // North to move on the same houses, with stores: the same board.
        let north = Position::from_mover_board(3, start.mover_board(), Side::North, [3, 1]).unwrap();
        let a = book.lookup(rules, &north).unwrap().analysis(&engine, &north);
        assert_eq!(a.value.lower, kalah_reference_value(&engine, &north));
        assert_eq!(a.pv.first().map(|m| m.side), Some(Side::North));
        assert!(book.lookup(Rules { capture: kalah_core::Capture::Empty, ..rules }, &start).is_none(), "other rules");
        assert!(book.lookup(rules, &Position::start(4, 2).unwrap()).is_none(), "another board size");
    }

    #[test]
    fn a_damaged_or_impossible_book_is_refused() {
        let book = small_book(3);
        let bytes = book.to_bytes().unwrap();
        let raw = zstd::decode_all(&bytes[..]).unwrap();
        for at in (0..raw.len()).step_by(7) {
            let mut bad = raw.clone();
            bad[at] ^= 0x01;
            let e = Book::from_bytes(&zstd::bulk::compress(&bad, 1).unwrap()).unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::Corrupt, "byte {at}");
        }
        assert!(Book::from_bytes(&bytes[..bytes.len() / 2]).is_err());
        // Entries no search could make, their checksum made right: refused on reading.
        let forge = |edit: &dyn Fn(&mut BookEntry)| {
            let mut sections = book.sections().to_vec();
            let entry = sections[0].entries.values_mut().find(|e| e.moves.iter().flatten().count() >= 2).unwrap();
            edit(entry);
            Book::from_bytes(&Book::new(sections).to_bytes().unwrap()).unwrap_err().to_string()
        };
        assert!(forge(&|e| *e.moves.iter_mut().flatten().next().unwrap() = 100).contains("seeds on the board"));
        assert!(forge(&|e| {
            let empty = e.moves.iter().position(Option::is_some).unwrap();
            e.moves[empty] = None;
        })
        .contains("no value for house"));
        assert!(forge(&|e| e.line.clear()).contains("no line"));
        assert!(forge(&|e| e.line.pop().map_or((), |_| ())).contains("stops before the game ends"));
    }
}
