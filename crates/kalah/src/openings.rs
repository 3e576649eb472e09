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
//! ([`crate::oracle::for_positions`]).

use std::time::{Duration, Instant};

use kalah_core::{Engine, Next, Position, Side};
use kalah_search::Bounded;

use crate::error::{Error, Result};
use crate::oracle::Oracle;

/// One opening turn of South and South's value after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningTurn {
    /// The houses played, in order (1-based).
    pub houses: Vec<usize>,
    /// South's final store difference after it under perfect play (bounds
    /// if a time limit cut the search short).
    pub value: Bounded,
}

/// Every complete first turn of the player to move in `start` (extra-move
/// chains followed to their end), with the position after it.
pub fn opening_turns(engine: &Engine, start: &Position) -> Vec<(Vec<usize>, Position)> {
    fn walk(engine: &Engine, p: &Position, prefix: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, Position)>) {
        for house in p.legal_moves() {
            let (q, o) = p.play(engine, house).expect("a legal move");
            prefix.push(house);
            if o.next == Next::Mover {
                walk(engine, &q, prefix, out);
            } else {
                out.push((prefix.clone(), q));
            }
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    walk(engine, start, &mut Vec::new(), &mut out);
    out
}

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
