//! What a search's journal says of its position, turn by turn, as far as
//! it holds bounds (`kalah journal show`).

use std::path::{Path, PathBuf};

use kalah_core::{Board, Position, Rules};
use kalah_search::Entry;

use crate::error::{Error, Result};
use crate::memory::journal::format::{corrupt, Contents, FILE_NAME};

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
        return Err(Error::bad_input(format!(
            "{}: a search memory, which holds no one position to sum up (journal verify checks it)",
            path.display()
        )));
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
        p.turns(engine)
            .into_iter()
            .map(|(turn, after)| {
                let (lower, upper) = bounds(&after);
                TurnBounds {
                    turn,
                    position: after.ring(),
                    value: exact((lower, upper)),
                    lower,
                    upper,
                    replies: turns_from(engine, &after, depth - 1, bounds),
                }
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
