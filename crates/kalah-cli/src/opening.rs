//! Game openings: the pie rule and North's seed shifts (RULES.md).
//!
//! * Pie rule: after South's whole first turn (extra moves included) North
//!   may swap sides. With `V(t)` South's value after opening turn `t`, the
//!   value of the game for South is `max over t of min(V(t), -V(t))`.
//! * Shift: before the game North moves one seed from any house to any
//!   house (houses numbered 1..2h in ring order, South's first; "from =
//!   to" means no shift). The value for South is the least over the
//!   `(2h)^2` shifted starts.
//!
//! Both solve many related positions, so they share one [`Oracle`]: one
//! search with one transposition table (and database), or one table built
//! by retrograde analysis for clockwise sowing.

use kalah_core::{Engine, Next, Position, Rules, Side};
use kalah_db::{Builder, NoTablebase, Tablebase};
use kalah_search::{Bounded, SearchOptions, Solver};
use std::time::{Duration, Instant};
use serde_json::json;

use crate::analysis::{bound_solver, check_search_memory, proves_bounds, retrograde_builder, BoundsOverDatabase, BOUNDS_TIME};
use crate::common::{user, DbArgs};
use crate::solve::default_tt_mb;

/// Exact values of positions of one board size and rule set.
pub trait Oracle {
    /// The value of `position` for the player to move.
    fn value(&self, position: &Position) -> anyhow::Result<i32>;
    /// The value, or if `deadline` passes first the bounds proven on it.
    fn bounds(&self, position: &Position, deadline: Option<Instant>) -> anyhow::Result<Bounded> {
        let _ = deadline;
        let v = self.value(position)?;
        Ok(Bounded { lower: v, upper: v })
    }
    /// Nodes searched so far.
    fn nodes(&self) -> u64 {
        0
    }
}

impl<T: Tablebase> Oracle for Solver<T> {
    fn value(&self, position: &Position) -> anyhow::Result<i32> {
        Ok(self.analyze(position, false, false).map_err(|e| user(e.to_string()))?.value)
    }
    fn bounds(&self, position: &Position, deadline: Option<Instant>) -> anyhow::Result<Bounded> {
        match deadline {
            Some(d) => self.bounds_within(position, d).map_err(|e| user(e.to_string())),
            None => {
                let v = self.value(position)?;
                Ok(Bounded { lower: v, upper: v })
            }
        }
    }
    fn nodes(&self) -> u64 {
        Solver::nodes(self)
    }
}

/// Clockwise positions too large for retrograde analysis: bounds proven
/// within `limit` a position (see [`crate::analysis::bound_solver`]).
struct BoundOracle {
    solver: BoundsOverDatabase,
    limit: Duration,
}

impl Oracle for BoundOracle {
    fn value(&self, position: &Position) -> anyhow::Result<i32> {
        let b = self.bounds(position, None)?;
        if b.is_exact() {
            return Ok(b.lower);
        }
        Err(user(format!(
            "the value of {} is not proven within {} s (only {}..{}): clockwise play beyond retrograde analysis",
            position.ring(),
            self.limit.as_secs_f64(),
            b.lower,
            b.upper
        )))
    }
    fn bounds(&self, position: &Position, deadline: Option<Instant>) -> anyhow::Result<Bounded> {
        let deadline = deadline.unwrap_or_else(|| Instant::now() + self.limit);
        self.solver.bounds_within(position, deadline).map_err(|e| user(e.to_string()))
    }
    fn nodes(&self) -> u64 {
        self.solver.nodes()
    }
}

/// Values read from a table covering every board needed.
struct TableOracle<T: Tablebase> {
    engine: Engine,
    table: T,
}

impl<T: Tablebase> Oracle for TableOracle<T> {
    fn value(&self, position: &Position) -> anyhow::Result<i32> {
        let board = position.mover_board();
        let v = match self.engine.terminal_value(board) {
            Some(v) => v,
            None => self.table.value(board),
        };
        if let Some(why) = self.table.failure() {
            return Err(user(why));
        }
        Ok(position.store_difference() + v)
    }
}

/// The best oracle for positions of `h` houses with up to `seeds` seeds:
/// a database that covers them all, retrograde analysis for clockwise
/// sowing, or where that does not fit bounds proven within `budget` a
/// position (default [`BOUNDS_TIME`]), else a search (backed by the
/// database if there is one).
#[allow(clippy::too_many_arguments)]
pub fn oracle(
    h: usize,
    rules: Rules,
    seeds: u32,
    db: &DbArgs,
    threads: usize,
    tt_mb: Option<usize>,
    budget: Option<Duration>,
    announce: bool,
) -> anyhow::Result<Box<dyn Oracle>> {
    let engine = Engine::new(h, rules);
    // The set-up serves every opening's search: it is not held to one's budget.
    let setup = crate::common::SetupBudget::UNLIMITED;
    let database = match db.open_for(h, rules, seeds, crate::common::ANALYSIS_LOAD_GAP, setup, announce)? {
        Some(d) if d.header().max_seeds >= seeds => return Ok(Box::new(TableOracle { engine, table: d })),
        other => other,
    };
    if proves_bounds(h, seeds, rules, db) {
        let limit = budget.unwrap_or(BOUNDS_TIME);
        let (solver, _) = bound_solver(&engine, seeds, database, db, threads, tt_mb, setup, announce.then_some(limit))?;
        return Ok(Box::new(BoundOracle { solver, limit }));
    }
    if rules.may_cycle() {
        let builder: Builder = retrograde_builder(&engine, seeds, announce, threads)?;
        return Ok(Box::new(TableOracle { engine, table: builder }));
    }
    let memory = crate::analysis::memory_database(&engine, seeds, db, database.as_ref(), tt_mb, threads, setup, announce)?;
    let db_seeds = crate::analysis::searched_db_seeds(memory.as_ref(), database.as_ref());
    let options = SearchOptions {
        threads,
        tt_bytes: tt_mb.unwrap_or_else(|| default_tt_mb(h, seeds, db_seeds)) << 20,
        max_seeds: Some(seeds),
    };
    check_search_memory(options.reserved_bytes(h) as u64, database.as_ref().filter(|_| memory.is_none()))?;
    let search = |e: kalah_search::SearchError| user(e.to_string());
    Ok(match (memory, database) {
        (Some(b), _) if b.indexer().max_seeds() >= seeds => Box::new(TableOracle { engine, table: b }),
        (Some(b), _) => Box::new(Solver::new(h, rules, b, options).map_err(search)?),
        (None, Some(d)) => Box::new(Solver::new(h, rules, crate::common::for_search(d, threads)?, options).map_err(search)?),
        (None, None) => Box::new(Solver::new(h, rules, NoTablebase { houses: h, rules }, options).map_err(search)?),
    })
}

/// One opening turn of South and South's value after it.
#[derive(Clone, Debug)]
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

/// South's value of each opening turn from `start` (within `budget` each,
/// if given), and the value of the game under the pie rule.
pub fn pie(engine: &Engine, oracle: &dyn Oracle, start: &Position, budget: Option<Duration>) -> anyhow::Result<(Bounded, Vec<OpeningTurn>)> {
    let first = start.to_move();
    let mut turns = Vec::new();
    for (houses, after) in opening_turns(engine, start) {
        // The value after the turn, for the first player: the position is
        // over, or the other player is to move.
        let b = oracle.bounds(&after, budget.map(|d| Instant::now() + d))?;
        let value = if after.to_move() == first {
            b
        } else {
            Bounded { lower: -b.upper, upper: -b.lower }
        };
        turns.push(OpeningTurn { houses, value });
    }
    if turns.is_empty() {
        return Err(user("the start position has no move"));
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

/// The start with one seed moved from ring house `from` to ring house `to`
/// (1..2h: South's houses, then North's), or `None` if `from` is empty.
pub fn shifted(start: &Position, from: usize, to: usize) -> Option<Position> {
    let h = start.houses();
    // The ring houses in order: South's 1..h, then North's 1..h.
    let mut ring: Vec<u32> = [Side::South, Side::North]
        .iter()
        .flat_map(|&side| (1..=h).map(move |i| start.house(side, i) as u32))
        .collect();
    if !(1..=2 * h).contains(&from) || !(1..=2 * h).contains(&to) || ring[from - 1] == 0 {
        return None;
    }
    ring[from - 1] -= 1;
    ring[to - 1] += 1;
    Position::new(&ring[..h], &ring[h..], [start.store(Side::South), start.store(Side::North)], start.to_move()).ok()
}

/// The pie result as JSON fields.
pub fn pie_json(pie_value: Bounded, turns: &[OpeningTurn]) -> serde_json::Value {
    json!({
        "pie_value": exact_or_null(pie_value),
        "pie_bounds": [pie_value.lower, pie_value.upper],
        "openings": turns.iter().map(|t| json!({
            "turn": t.houses,
            "value": exact_or_null(t.value),
            "lower": t.value.lower,
            "upper": t.value.upper,
        })).collect::<Vec<_>>(),
    })
}

fn exact_or_null(b: Bounded) -> serde_json::Value {
    if b.is_exact() {
        json!(b.lower)
    } else {
        serde_json::Value::Null
    }
}

/// A value or its bounds: `+4`, `0..+6`.
pub fn bounded_text(b: Bounded) -> String {
    use crate::common::signed;
    if b.is_exact() {
        signed(b.lower)
    } else {
        format!("{}..{}", signed(b.lower), signed(b.upper))
    }
}

/// An opening turn as text: `3-6`.
pub fn turn_text(houses: &[usize]) -> String {
    houses.iter().map(|h| h.to_string()).collect::<Vec<_>>().join("-")
}

/// What `run` computes.
#[derive(Clone, Copy, Debug)]
pub struct Modes {
    /// The pie rule (without it and without `shift`: every opening turn's
    /// value, and the game's, the best of them).
    pub pie: bool,
    /// North's seed shifts.
    pub shift: bool,
    /// Time per opening: unfinished ones show bounds (not with `shift`).
    pub budget: Option<Duration>,
}

/// `kalah solve --openings`, `--pie` and `--shift`: see the module docs.
#[allow(clippy::too_many_arguments)]
pub fn run(rules: &Rules, start: &Position, title: &str, db: &DbArgs, threads: usize, tt_mb: Option<usize>, modes: Modes, json: bool) -> anyhow::Result<()> {
    use crate::common::{print_json, rules_json, signed, verdict};
    let h = start.houses();
    let engine = Engine::new(h, *rules);
    let timer = Instant::now();
    let oracle = oracle(h, *rules, start.seeds_in_houses(), db, threads, tt_mb, modes.budget, !json)?;
    if !modes.shift {
        let (pie_value, turns) = pie(&engine, oracle.as_ref(), start, modes.budget)?;
        let best = Bounded {
            lower: turns.iter().map(|t| t.value.lower).max().expect("some turn"),
            upper: turns.iter().map(|t| t.value.upper).max().expect("some turn"),
        };
        let game = if modes.pie { pie_value } else { best };
        let seconds = timer.elapsed().as_secs_f64();
        if json {
            let mut o = pie_json(pie_value, &turns);
            if !modes.pie {
                o.as_object_mut().expect("an object").remove("pie_value");
                o.as_object_mut().expect("an object").remove("pie_bounds");
            }
            o["houses"] = json!(h);
            o["position"] = json!(start.ring());
            o["rules"] = rules_json(*rules);
            o["value"] = exact_or_null(game);
            o["bounds"] = json!([game.lower, game.upper]);
            o["nodes"] = json!(oracle.nodes());
            o["seconds"] = json!(seconds);
            print_json(&o);
        } else {
            println!("{title}{}", if modes.pie { " with the pie rule" } else { ": opening turns" });
            println!("Rules:    {rules}");
            println!("Opening turns of South, with South's value after each:");
            for t in &turns {
                println!("  {:<14} {:>10}", turn_text(&t.houses), bounded_text(t.value));
            }
            if modes.pie {
                println!(
                    "Value under the pie rule: {}{}; North swaps after any turn worth more to South",
                    bounded_text(pie_value),
                    if pie_value.is_exact() { format!(" ({})", verdict(Side::South, pie_value.lower)) } else { String::new() }
                );
            } else {
                println!("Value of the game (South's best opening): {}", bounded_text(best));
            }
            println!("Time: {seconds:.2} s");
        }
        return Ok(());
    }
    let value_of = |p: &Position| -> anyhow::Result<i32> {
        if modes.pie {
            let (v, _) = pie(&engine, oracle.as_ref(), p, None)?;
            Ok(v.lower)
        } else {
            oracle.value(p)
        }
    };
    let bar = indicatif::ProgressBar::new((2 * h * 2 * h) as u64);
    let mut shifts = Vec::new();
    for from in 1..=2 * h {
        for to in 1..=2 * h {
            let Some(p) = shifted(start, from, to) else { continue };
            shifts.push((from, to, value_of(&p)?));
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let seconds = timer.elapsed().as_secs_f64();
    let shift_value = shifts.iter().map(|s| s.2).min().ok_or_else(|| user("no shift is possible"))?;
    let south_wins = shifts.iter().filter(|s| s.2 > 0).count();
    let best: Vec<&(usize, usize, i32)> = shifts.iter().filter(|s| s.2 == shift_value).collect();
    if json {
        print_json(&json!({
            "houses": h,
            "position": start.ring(),
            "rules": rules_json(*rules),
            "pie": modes.pie,
            "shift_value": shift_value,
            "value": shift_value,
            "south_wins": south_wins,
            "shifts": shifts.iter().map(|&(from, to, value)| json!({"from": from, "to": to, "value": value})).collect::<Vec<_>>(),
            "best_shifts": best.iter().map(|&&(from, to, _)| json!({"from": from, "to": to})).collect::<Vec<_>>(),
            "nodes": oracle.nodes(),
            "seconds": seconds,
        }));
    } else {
        println!("{title} with North's one-seed shift{}", if modes.pie { " and the pie rule" } else { "" });
        println!("Rules:    {rules}");
        println!("South's value after each shift (rows: from, columns: to; houses 1-{h} South's, {}-{} North's):", h + 1, 2 * h);
        print!("from\\to");
        for to in 1..=2 * h {
            print!("{to:>5}");
        }
        println!();
        for from in 1..=2 * h {
            print!("{from:>7}");
            for to in 1..=2 * h {
                match shifts.iter().find(|s| s.0 == from && s.1 == to) {
                    Some(s) => print!("{:>5}", signed(s.2)),
                    None => print!("{:>5}", "-"),
                }
            }
            println!();
        }
        let best_text: Vec<String> = best.iter().map(|s| format!("{} to {}", s.0, s.1)).collect();
        println!(
            "North's best shift{}: {}; the game is then {} ({})",
            if best.len() > 1 { "s" } else { "" },
            best_text.join(", "),
            signed(shift_value),
            verdict(Side::South, shift_value)
        );
        println!("South still wins {south_wins} of the {} games", shifts.len());
        println!("Time: {seconds:.2} s");
    }
    Ok(())
}
