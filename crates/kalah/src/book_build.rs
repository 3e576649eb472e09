//! Building an opening book ([`build`]) and proving its entries again
//! ([`verify`]), by searches of an [`Oracle`]; the book itself, its format
//! and its lookups are [`crate::book`]'s.

use std::collections::HashMap;

use kalah_core::{Board, Engine, Next, Position, Rules};

use crate::book::{board_position, boards_within, check_entry, BookEntry, Section};
use crate::error::{Error, Result};
use crate::oracle::Oracle;

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
pub fn build(oracle: &dyn Oracle, game: Game, section: Option<Section>, every: std::time::Duration, checkpoint: &mut dyn FnMut(&Section, usize, usize) -> Result<()>) -> Result<Section> {
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
            let a = oracle.analysis(&board_position(houses, board))?;
            let mut moves = vec![None; houses];
            for m in &a.moves {
                moves[m.house - 1] = Some(m.value);
            }
            if a.pv.len() > u8::MAX as usize {
                return Err(Error::refused(format!("a line of best play of {} moves: a book keeps at most 255", a.pv.len())));
            }
            let entry = BookEntry { moves, line: a.pv.iter().map(|m| m.house as u8).collect() };
            check_entry(&engine, board, &entry).map_err(|why| Error::internal(format!("the search gave a book entry that is not possible: {why}")))?;
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
        let position = board_position(section.houses, board);
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
                    Next::Mover => oracle.value(&board_position(section.houses, o.board))?,
                    Next::Opponent => -oracle.value(&board_position(section.houses, o.board))?,
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

