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
    /// Where that test stands at the moves of the player to move, while
    /// the value is not exact.
    pub test_standing: Option<TestStanding>,
    /// Each opening turn, in the order of its houses.
    pub turns: Vec<TurnBounds>,
}

/// Where the test "value >= V" last begun ([`Summary::testing`]) stands
/// at the moves of the player to move, by the bounds the journal holds
/// after each (a move that plays again: the best of the turns it begins,
/// as far as the journal bounds them, and its own board's bounds). The
/// test holds once one move is proven worth at least V to the player to
/// move, and fails once every move is proven worth less: a running test
/// that fails settles the moves one after the other (`open` shrinks);
/// one that holds needs one move.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TestStanding {
    /// Whether it is decided: it holds (`true`), it fails (`false`), or
    /// neither is proven yet (`None`), by the root's bounds or its moves'.
    pub holds: Option<bool>,
    /// Moves (houses, 1-based) proven worth at least V: each makes the
    /// test hold.
    pub at_least: Vec<usize>,
    /// Moves proven worth less than V.
    pub below: Vec<usize>,
    /// Moves with neither proven yet.
    pub open: Vec<usize>,
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
    let value = exact((lower, upper));
    let testing = contents.tests.iter().find(|&&(b, _)| b == root).map(|&(_, beta)| position.store_difference() + beta);
    // Bounds on the value of `p` for `mover`: its board's, narrowed where
    // `mover` is to move by those of its moves (the value is their best).
    fn narrowed(engine: &kalah_core::Engine, p: &Position, mover: kalah_core::Side, bounds: &dyn Fn(&Position) -> Bounds) -> Bounds {
        let (mut lower, mut upper) = bounds(p);
        if p.to_move() == mover && !p.is_over(engine) {
            let (mut best_lower, mut best_upper) = (None, Some(i32::MIN));
            for after in p.legal_moves().into_iter().filter_map(|house| p.play(engine, house).ok()).map(|(after, _)| after) {
                let (l, u) = narrowed(engine, &after, mover, bounds);
                best_lower = best_lower.max(l);
                best_upper = best_upper.zip(u).map(|(a, b)| a.max(b));
            }
            lower = lower.max(best_lower);
            upper = match (upper, best_upper) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        (lower, upper)
    }
    let test_standing = testing.filter(|_| value.is_none()).map(|beta| {
        let mut standing = TestStanding { holds: None, at_least: Vec::new(), below: Vec::new(), open: Vec::new() };
        for house in position.legal_moves() {
            let Ok((after, _)) = position.play(&engine, house) else { continue };
            let (l, u) = narrowed(&engine, &after, mover, &bounds);
            let side = if l.is_some_and(|l| l >= beta) {
                &mut standing.at_least
            } else if u.is_some_and(|u| u < beta) {
                &mut standing.below
            } else {
                &mut standing.open
            };
            side.push(house);
        }
        standing.holds = if lower.is_some_and(|l| l >= beta) || !standing.at_least.is_empty() {
            Some(true)
        } else if upper.is_some_and(|u| u < beta) || standing.open.is_empty() {
            Some(false)
        } else {
            None
        };
        standing
    });
    Ok(Summary {
        path,
        position: position.ring(),
        rules,
        database_seeds: (contents.database_seeds != u32::MAX).then_some(contents.database_seeds),
        sessions: contents.sessions,
        nodes: contents.nodes,
        seconds: contents.seconds,
        entries: contents.entries.len(),
        value,
        lower,
        upper,
        testing,
        test_standing,
        turns,
    })
}
