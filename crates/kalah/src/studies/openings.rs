//! Game openings: every opening turn, the pie rule and North's seed
//! shifts (RULES.md).
//!
//! * Pie rule: after South's whole first turn (extra moves included) North
//!   may swap sides. With `V(t)` South's value after opening turn `t`, the
//!   value of the game for South is `max over t of min(V(t), -V(t))`.
//! * Shift: before the game North moves one seed from any house to any
//!   house (houses numbered 1..2h in ring order, South's first; "from =
//!   to" means no shift). The value for South is the least over the
//!   `(2h)^2` shifted starts.
//!
//! Both solve many related positions, so they share one [`Oracle`]
//! ([`Analyzer::oracle`](crate::Analyzer::oracle)).

use std::time::{Duration, Instant};

use kalah_core::{Engine, Position, Rules, Side};
use kalah_search::Bounded;
use serde::Serialize;

use crate::answer::oracle::Oracle;
use crate::error::{Error, Result};
use crate::text::RulesView;

/// One opening turn of South and South's value after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningTurn {
    /// The houses played, in order (1-based).
    pub houses: Vec<usize>,
    /// South's final store difference after it under perfect play (bounds
    /// if a time limit cut the search short).
    pub value: Bounded,
}

/// Every complete first turn of the player to move in `start`, with the
/// position after it ([`Position::turns`]).
pub use kalah_core::opening_turns;

/// South's value of each opening turn from `start` (within `limit` each,
/// if given), and the value of the game under the pie rule.
pub fn pie(engine: &Engine, oracle: &dyn Oracle, start: &Position, limit: Option<Duration>) -> Result<(Bounded, Vec<OpeningTurn>)> {
    let first = start.to_move();
    let mut turns = Vec::new();
    for (houses, after) in opening_turns(engine, start) {
        // The value after the turn, for the first player: the position is
        // over, or the other player is to move.
        let b = oracle.bounds(&after, limit.map(|d| Instant::now() + d))?;
        let value = if after.to_move() == first { b } else { Bounded { lower: -b.upper, upper: -b.lower } };
        turns.push(OpeningTurn { houses, value });
    }
    if turns.is_empty() {
        return Err(Error::bad_input("the start position has no move"));
    }
    // North swaps when that is better for North: South gets -|V|, whose
    // range over lower..=upper is -max|V| ..= -min|V| (0 if the range spans 0).
    let pie_of = |b: Bounded| {
        let far = b.lower.abs().max(b.upper.abs());
        let near = if b.lower <= 0 && b.upper >= 0 { 0 } else { b.lower.abs().min(b.upper.abs()) };
        Bounded { lower: -far, upper: -near }
    };
    let pie_value = Bounded {
        lower: turns.iter().map(|t| pie_of(t.value).lower).max().expect("some turn"),
        upper: turns.iter().map(|t| pie_of(t.value).upper).max().expect("some turn"),
    };
    Ok((pie_value, turns))
}

/// The best of the opening turns' values: the value of the game.
pub fn best_turn(turns: &[OpeningTurn]) -> Option<Bounded> {
    Some(Bounded { lower: turns.iter().map(|t| t.value.lower).max()?, upper: turns.iter().map(|t| t.value.upper).max()? })
}

/// The start with one seed moved from ring house `from` to ring house `to`
/// (1..2h: South's houses, then North's), or `None` if `from` is empty.
pub fn shifted(start: &Position, from: usize, to: usize) -> Option<Position> {
    let h = start.houses();
    // The ring houses in order: South's 1..h, then North's 1..h.
    let mut ring: Vec<u32> = [Side::South, Side::North].iter().flat_map(|&side| (1..=h).map(move |i| start.house(side, i) as u32)).collect();
    if !(1..=2 * h).contains(&from) || !(1..=2 * h).contains(&to) || ring[from - 1] == 0 {
        return None;
    }
    ring[from - 1] -= 1;
    ring[to - 1] += 1;
    Position::new(&ring[..h], &ring[h..], [start.store(Side::South), start.store(Side::North)], start.to_move()).ok()
}

/// An opening turn as its answer shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TurnView {
    /// The houses played, in order.
    pub turn: Vec<usize>,
    /// South's value after it; `None` when only bounds were proven.
    pub value: Option<i32>,
    /// South's value is at least this.
    pub lower: i32,
    /// And at most this.
    pub upper: i32,
}

/// The value under the pie rule, in an [`OpeningsReport`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PieView {
    /// South's value under the pie rule; `None` when only bounds were proven.
    pub pie_value: Option<i32>,
    /// Its bounds.
    pub pie_bounds: [i32; 2],
}

/// Every opening turn of South and the game's value: South's best turn,
/// or under the pie rule the best once North may swap after it (what
/// `kalah solve --openings` and `--pie` answer, docs/json.md).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpeningsReport {
    /// Houses a side.
    pub houses: usize,
    /// The start (ring form).
    pub position: String,
    /// The rules.
    pub rules: RulesView,
    /// Every opening turn.
    pub openings: Vec<TurnView>,
    /// The value under the pie rule, when it was asked.
    #[serde(flatten)]
    pub pie: Option<PieView>,
    /// The game's value for South; `None` when only bounds were proven.
    pub value: Option<i32>,
    /// Its lower bound.
    pub lower: i32,
    /// Its upper bound.
    pub upper: i32,
    /// `[lower, upper]`, kept for readers of the files written before.
    pub bounds: [i32; 2],
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds taken.
    pub seconds: f64,
}

/// The opening turns of `start` and the game's value, under the pie rule
/// if `with_pie` ([`pie`]; within `limit` a turn); `rules` are the
/// oracle's.
pub fn openings_report(
    engine: &Engine,
    oracle: &dyn Oracle,
    start: &Position,
    rules: Rules,
    with_pie: bool,
    limit: Option<Duration>,
) -> Result<OpeningsReport> {
    let timer = Instant::now();
    let (pie_value, turns) = pie(engine, oracle, start, limit)?;
    let best = best_turn(&turns).ok_or_else(|| Error::bad_input("the start position has no move"))?;
    let game = if with_pie { pie_value } else { best };
    Ok(OpeningsReport {
        houses: start.houses(),
        position: start.ring(),
        rules: rules.into(),
        openings: turns
            .iter()
            .map(|t| TurnView { turn: t.houses.clone(), value: t.value.exact(), lower: t.value.lower, upper: t.value.upper })
            .collect(),
        pie: with_pie.then_some(PieView { pie_value: pie_value.exact(), pie_bounds: [pie_value.lower, pie_value.upper] }),
        value: game.exact(),
        lower: game.lower,
        upper: game.upper,
        bounds: [game.lower, game.upper],
        nodes: oracle.nodes(),
        seconds: timer.elapsed().as_secs_f64(),
    })
}

/// One of North's seed shifts and South's value after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Shift {
    /// The ring house a seed leaves (1..2h: South's houses, then North's).
    pub from: usize,
    /// The ring house it goes to (`from`: no shift).
    pub to: usize,
    /// South's value of the game after it.
    pub value: i32,
}

/// A best shift for North.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ShiftMove {
    /// See [`Shift::from`].
    pub from: usize,
    /// See [`Shift::to`].
    pub to: usize,
}

/// North's one-seed shifts before the game, each with South's value after
/// it, and the game's value, the least of them (what `kalah solve
/// --shift` answers, docs/json.md).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShiftReport {
    /// Houses a side.
    pub houses: usize,
    /// The start (ring form).
    pub position: String,
    /// The rules.
    pub rules: RulesView,
    /// Whether each shifted game is played under the pie rule.
    pub pie: bool,
    /// The least of the shifts' values.
    pub shift_value: i32,
    /// The same: the game's value.
    pub value: i32,
    /// Shifts after which South still wins.
    pub south_wins: usize,
    /// Every possible shift.
    pub shifts: Vec<Shift>,
    /// North's best shifts.
    pub best_shifts: Vec<ShiftMove>,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds taken.
    pub seconds: f64,
}

/// Every shift of `start` with South's value after it (under the pie rule
/// if `with_pie`), and the game's value; `done` hears each shift solved.
pub fn shift_report(engine: &Engine, oracle: &dyn Oracle, start: &Position, rules: Rules, with_pie: bool, done: &dyn Fn()) -> Result<ShiftReport> {
    let timer = Instant::now();
    let h = start.houses();
    let mut shifts = Vec::new();
    for from in 1..=2 * h {
        for to in 1..=2 * h {
            let Some(p) = shifted(start, from, to) else { continue };
            let value = if with_pie { pie(engine, oracle, &p, None)?.0.lower } else { oracle.value(&p)? };
            shifts.push(Shift { from, to, value });
            done();
        }
    }
    let shift_value = shifts.iter().map(|s| s.value).min().ok_or_else(|| Error::bad_input("no shift is possible: the start has no seed"))?;
    Ok(ShiftReport {
        houses: h,
        position: start.ring(),
        rules: rules.into(),
        pie: with_pie,
        shift_value,
        value: shift_value,
        south_wins: shifts.iter().filter(|s| s.value > 0).count(),
        best_shifts: shifts.iter().filter(|s| s.value == shift_value).map(|s| ShiftMove { from: s.from, to: s.to }).collect(),
        shifts,
        nodes: oracle.nodes(),
        seconds: timer.elapsed().as_secs_f64(),
    })
}
