//! Building an opening book ([`build_file`], [`build`]) and proving its
//! entries again ([`check`], [`verify`]), by searches of an [`Oracle`];
//! the book itself, its format and its lookups are [`crate::book`]'s.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kalah_core::{Board, Capture, Engine, Next, Position, Rules};

use crate::answer::analyzer::Analyzer;
use crate::answer::oracle::Oracle;
use crate::answer::request::Request;
use crate::databases::{DbFile, DbSpec};
use crate::error::{Error, Result};
use crate::memory::book::{board_position, boards_within, check_entry, Book, BookEntry, Section, SectionInfo};
use crate::progress::Observer;
use crate::studies::sample::Sampler;

/// What a section of a book is of: Kalah(houses, seeds) under `rules`, to
/// `plies` sowings from the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Game {
    /// Houses a side.
    pub houses: usize,
    /// Seeds a house at the start.
    pub seeds: u32,
    /// The rules.
    pub rules: Rules,
    /// Sowings from the start.
    pub plies: u32,
}

/// Builds the section of Kalah(`houses`,`seeds`) under `rules` to `plies`
/// sowings, going on from `section`'s entries (an earlier, stopped build's;
/// `None` to begin; one of more plies is cut to `plies`): every board within the plies, nearest the start
/// first, analysed by `oracle` (every move's exact value and a line of best
/// play). `checkpoint` is given the section (complete to the ply its
/// `plies` says) and the boards done and in all, at least every `every`
/// and at the end; an error from it stops the build.
pub fn build(
    oracle: &dyn Oracle,
    game: Game,
    section: Option<Section>,
    every: std::time::Duration,
    checkpoint: &mut dyn FnMut(&Section, usize, usize) -> Result<()>,
) -> Result<Section> {
    let Game { houses, seeds, rules, plies } = game;
    if rules.may_cycle() {
        return Err(Error::refused("an opening book of clockwise sowing: its values are not all exact"));
    }
    let mut section = section.unwrap_or(Section { houses, seeds, rules, plies: 0, entries: HashMap::new() });
    if (section.houses, section.seeds, section.rules) != (houses, seeds, rules) {
        return Err(Error::bad_input(format!(
            "a section of Kalah({},{}) under {} goes on as one of Kalah({houses},{seeds}) under {rules}",
            section.houses, section.seeds, section.rules
        )));
    }
    let engine = Engine::new(houses, rules);
    let mut levels: Vec<Vec<Board>> = Vec::new();
    {
        // The boards ply by ply, each once, at its first ply.
        let all = boards_within(houses, seeds, rules, plies)?;
        let mut ply_of = HashMap::new();
        let start = Position::start(houses, seeds).map_err(|e| Error::bad_input(e.to_string()))?.mover_board();
        ply_of.insert(start, 0u32);
        let mut frontier = vec![start];
        for ply in 1..=plies {
            let mut next = Vec::new();
            for &b in &frontier {
                for house in (0..houses).filter(|&i| b.get(i) > 0) {
                    let o = engine.play(b, house);
                    if o.next != Next::Over && !ply_of.contains_key(&o.board) {
                        ply_of.insert(o.board, ply);
                        next.push(o.board);
                    }
                }
            }
            frontier = next;
        }
        levels.resize(plies as usize + 1, Vec::new());
        for b in all {
            levels[ply_of[&b] as usize].push(b);
        }
    }
    // A section deeper than asked keeps only what is asked: every
    // position within `plies`, no more.
    if section.plies > plies {
        let wanted: std::collections::HashSet<Board> = levels.iter().flatten().copied().collect();
        section.entries.retain(|b, _| wanted.contains(b));
        section.plies = 0;
    }
    let total: usize = levels.iter().map(Vec::len).sum();
    let mut done = levels.iter().flatten().filter(|b| section.entries.contains_key(b)).count();
    let mut last = std::time::Instant::now();
    for (ply, boards) in levels.iter().enumerate() {
        for &board in boards {
            if section.entries.contains_key(&board) {
                continue;
            }
            let a = oracle.analysis(&board_position(houses, board)?)?;
            let mut moves = vec![None; houses];
            for m in &a.moves {
                moves[m.house - 1] = Some(m.value);
            }
            if a.pv.len() > u8::MAX as usize {
                return Err(Error::refused(format!("a line of best play of {} moves: a book keeps at most 255", a.pv.len())));
            }
            let entry = BookEntry { moves, line: a.pv.iter().map(|m| m.house as u8).collect() };
            check_entry(&engine, board, &entry)
                .map_err(|why| Error::internal(format!("the search gave a book entry that is not possible: {why}")))?;
            section.entries.insert(board, entry);
            done += 1;
            if last.elapsed() >= every {
                checkpoint(&section, done, total)?;
                last = std::time::Instant::now();
            }
        }
        section.plies = section.plies.max(ply as u32);
    }
    checkpoint(&section, done, total)?;
    Ok(section)
}

/// One book entry proven again ([`verify`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Verified {
    /// The board, as a position of South to move with empty stores.
    pub position: String,
    /// The rules.
    pub rules: String,
    /// Whether every move's value and the line agree with the search.
    pub agrees: bool,
    /// What disagrees, if anything.
    pub why: Option<String>,
}

/// Proves again, with `oracle` (which must not read this book), the entries
/// `boards` of the section `section`: every move's value by a search, and
/// the line by the values of the positions along it.
pub fn verify(oracle: &dyn Oracle, section: &Section, boards: &[Board]) -> Result<Vec<Verified>> {
    let engine = Engine::new(section.houses, section.rules);
    let mut out = Vec::new();
    for &board in boards {
        let Some(entry) = section.entries.get(&board) else {
            continue;
        };
        let position = board_position(section.houses, board)?;
        let a = oracle.analysis(&position)?;
        let mut why = None;
        for m in &a.moves {
            if entry.moves[m.house - 1] != Some(m.value) {
                why = Some(format!("house {} is worth {:+}, the book says {:?}", m.house, m.value, entry.moves[m.house - 1]));
                break;
            }
        }
        if why.is_none() {
            // Along the line, each position's value is its move's gain and the next's.
            let (mut board, mut value) = (board, a.value);
            for (i, &house) in entry.line.iter().enumerate() {
                let o = engine.play(board, house as usize - 1);
                let rest = match o.next {
                    Next::Over => 0,
                    Next::Mover => oracle.value(&board_position(section.houses, o.board)?)?,
                    Next::Opponent => -oracle.value(&board_position(section.houses, o.board)?)?,
                };
                if o.gain() + rest != value {
                    why = Some(format!("its line's move {} (house {house}) loses {}", i + 1, value - o.gain() - rest));
                    break;
                }
                value = rest * if o.next == Next::Opponent { -1 } else { 1 };
                board = o.board;
            }
        }
        out.push(Verified { position: position.ring(), rules: section.rules.to_string(), agrees: why.is_none(), why });
    }
    Ok(out)
}

/// How the searches of [`build_file`] and [`check`] run: over which
/// database, with how many threads and how large a table (the fields of
/// a [`Request`] of the same names, checked as a request's are). The
/// default: the folder's database, every core, the table's default size.
#[derive(Clone, Debug)]
pub struct Searches {
    /// Which database ([`Request::db`]).
    pub db: DbSpec,
    /// Search threads ([`Request::threads`]).
    pub threads: usize,
    /// The transposition table's size in MiB ([`Request::tt_mb`]).
    pub tt_mb: Option<usize>,
}

impl Default for Searches {
    fn default() -> Searches {
        Searches { db: DbSpec::default(), threads: kalah_search::cores(), tt_mb: None }
    }
}

impl Searches {
    fn oracle(&self, analyzer: &Analyzer, houses: usize, seeds: u32, rules: Rules, observer: &dyn Observer) -> Result<Box<dyn Oracle>> {
        let start = Position::start(houses, seeds)?;
        let request = Request { db: self.db.clone(), threads: self.threads, tt_mb: self.tt_mb, ..Request::new(start, rules) };
        analyzer.oracle(&request, houses as u32 * 2 * seeds, None, observer)
    }
}

/// Where a book build is ([`build_file`]'s progress).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BookProgress {
    /// Boards with an entry.
    pub done: usize,
    /// Boards within the plies asked.
    pub total: usize,
    /// Every board this many sowings or fewer from the start has its entry.
    pub plies: u32,
    /// Nodes searched so far by this build.
    pub nodes: u64,
    /// Time since the build began.
    pub elapsed: Duration,
}

/// What [`build_file`] did: serialises to the object `kalah book build
/// --json` prints.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BookBuilt {
    /// The book file.
    #[serde(serialize_with = "crate::text::display_path")]
    pub file: PathBuf,
    /// The section built, as it now is.
    pub section: SectionInfo,
    /// Entries in the whole book.
    pub entries: usize,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds taken.
    pub seconds: f64,
}

/// Adds `game` to the book at `file` (made, with its folder, if it is not
/// there), or goes on with its section after a stop: [`build`] by
/// searches over `searches`, the whole book written (safely: a kill leaves
/// the last complete write) at least every `every` and at the end.
/// `progress` hears where the build is after each write.
pub fn build_file(
    analyzer: &Analyzer,
    file: &Path,
    game: Game,
    searches: &Searches,
    every: Duration,
    observer: &dyn Observer,
    progress: &mut dyn FnMut(&BookProgress),
) -> Result<BookBuilt> {
    let book = match std::fs::metadata(file) {
        Ok(_) => Book::read(file)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Book::default(),
        Err(e) => return Err(kalah_db::DbError::io(file, e).into()),
    };
    let mut sections: Vec<Section> = book.sections().to_vec();
    let at = sections.iter().position(|x| (x.houses, x.seeds, x.rules) == (game.houses, game.seeds, game.rules));
    let earlier = at.map(|i| sections.remove(i));
    let oracle = searches.oracle(analyzer, game.houses, game.seeds, game.rules, observer)?;
    let started = Instant::now();
    let with = |section: &Section| {
        let mut all = sections.clone();
        all.push(section.clone());
        Book::new(all)
    };
    let section = build(oracle.as_ref(), game, earlier, every, &mut |section, done, total| {
        write_book(&with(section), file)?;
        progress(&BookProgress { done, total, plies: section.plies, nodes: oracle.nodes(), elapsed: started.elapsed() });
        Ok(())
    })?;
    Ok(BookBuilt {
        file: file.to_path_buf(),
        section: section.info(),
        entries: with(&section).len(),
        nodes: oracle.nodes(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Writes `book` to `file` through the one safe way to write a file (a
/// temporary name, locked, renamed when complete), making its folder.
fn write_book(book: &Book, file: &Path) -> Result<()> {
    let bytes = book.to_bytes()?;
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| kalah_db::DbError::io(dir, e))?;
    }
    let mut out = kalah_db::safe::SafeFile::create(file)?;
    std::io::Write::write_all(&mut out, &bytes).map_err(|e| kalah_db::DbError::io(file, e))?;
    out.commit()?;
    Ok(())
}

/// Which entries of a book [`check`] proves again.
#[derive(Clone, Debug, Default)]
pub struct CheckRequest {
    /// Only the games of this many houses.
    pub houses: Option<usize>,
    /// Only the games of this many seeds a house.
    pub seeds: Option<u32>,
    /// Only the games under this capture rule.
    pub capture: Option<Capture>,
    /// How many entries of each game, chosen at random; `None`: every one.
    pub sample: Option<usize>,
    /// The seed of the random choice: the same seed chooses the same entries.
    pub seed: u64,
    /// The searches. A database file named there serves the games of its
    /// own board and rules only.
    pub searches: Searches,
}

/// What [`check`] found: serialises to the object `kalah book verify
/// --json` prints.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BookCheck {
    /// The seed of the random choice.
    pub seed: u64,
    /// Entries proven again.
    pub checked: usize,
    /// How many disagree with the searches.
    pub disagreements: usize,
    /// Those that disagree, and why.
    pub wrong: Vec<Verified>,
    /// Seconds taken.
    pub seconds: f64,
}

/// Proves again the entries of `book` that `request` chooses, by
/// searches of `analyzer` that [`verify`] runs, game by game (the searches
/// never read a book). Disagreements are in the answer, not an error. Bad
/// input: no game chosen (none of those sizes and rules, or none a named
/// database file serves), a sample of 0, 0 threads.
pub fn check(analyzer: &Analyzer, book: &Book, request: &CheckRequest, observer: &dyn Observer) -> Result<BookCheck> {
    let started = Instant::now();
    let file = match &request.searches.db.file {
        DbFile::Named(path) => Some(kalah_db::Database::open(path)?.header().clone()),
        DbFile::Default | DbFile::None => None,
    };
    let fits = |x: &Section| file.as_ref().is_none_or(|f| (f.houses, f.rules) == (x.houses, x.rules));
    let chosen = |x: &&Section| {
        request.houses.is_none_or(|h| x.houses == h)
            && request.seeds.is_none_or(|s| x.seeds == s)
            && request.capture.is_none_or(|c| x.rules.capture == c)
            && fits(x)
    };
    if request.sample == Some(0) {
        return Err(Error::bad_input("a sample of 0 entries proves nothing: ask for at least 1, or for every entry"));
    }
    if !book.sections().iter().any(|x| chosen(&x)) {
        return Err(Error::bad_input(match &file {
            Some(f) => {
                format!("the book holds no game of {} houses under {} chosen here, the board and rules of the database file", f.houses, f.rules)
            }
            None => "the book holds no game of the sizes and rules chosen".to_string(),
        }));
    }
    let mut sampler = Sampler::new(request.seed);
    let mut all = Vec::new();
    for section in book.sections().iter().filter(chosen) {
        let mut boards: Vec<_> = section.entries.keys().copied().collect();
        boards.sort_unstable();
        if let Some(n) = request.sample {
            boards = sampler.indices(boards.len(), n)?.into_iter().map(|i| boards[i]).collect();
        }
        let oracle = request.searches.oracle(analyzer, section.houses, section.seeds, section.rules, observer)?;
        all.extend(verify(oracle.as_ref(), section, &boards)?);
    }
    let wrong: Vec<Verified> = all.iter().filter(|v| !v.agrees).cloned().collect();
    Ok(BookCheck { seed: request.seed, checked: all.len(), disagreements: wrong.len(), wrong, seconds: started.elapsed().as_secs_f64() })
}
