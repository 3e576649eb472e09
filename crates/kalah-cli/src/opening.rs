//! `kalah solve --openings`, `--pie` and `--shift`: the library's
//! openings (`kalah::openings`) answered by one oracle, printed.

use std::time::{Duration, Instant};

use kalah::openings::{pie, shifted, OpeningTurn};
use kalah::setup::{SearchWork, Setup};
use kalah::{Bounded, SetupBudget};
use kalah_core::{Engine, Position, Rules, Side};
use serde_json::json;

use kalah::text::{bounded, signed, verdict};

use crate::common::{databases, print_json, rules_json, user, DbArgs, SearchArgs};
use crate::observe::Terminal;

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
pub fn run(rules: &Rules, start: &Position, title: &str, db: &DbArgs, search: &SearchArgs, modes: Modes, json: bool) -> anyhow::Result<()> {
    let h = start.houses();
    let engine = Engine::new(h, *rules);
    let timer = Instant::now();
    let spec = db.spec();
    let observer = Terminal::unless_json(json);
    // The set-up serves every opening's search: it is not held to one's budget.
    let setup = Setup { engine: &engine, spec: &spec, threads: search.threads()?, tt_mb: search.tt_mb_asked()?, budget: SetupBudget::UNLIMITED, work: SearchWork::Analysis, observer: &observer };
    let oracle = kalah::oracle::for_positions(&databases(), &setup, start.seeds_in_houses(), modes.budget)?;
    if !modes.shift {
        let (pie_value, turns) = pie(&engine, oracle.as_ref(), start, modes.budget)?;
        let best = kalah::openings::best_turn(&turns).expect("some turn");
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
            // `lower` and `upper`, as every other answer names them;
            // `bounds` kept for readers of the files written before.
            o["lower"] = json!(game.lower);
            o["upper"] = json!(game.upper);
            o["bounds"] = json!([game.lower, game.upper]);
            o["nodes"] = json!(oracle.nodes());
            o["seconds"] = json!(seconds);
            print_json(&o);
        } else {
            println!("{title}{}", if modes.pie { " with the pie rule" } else { ": opening turns" });
            println!("Rules:    {rules}");
            println!("Opening turns of South, with South's value after each:");
            for t in &turns {
                println!("  {:<14} {:>10}", turn_text(&t.houses), bounded(t.value));
            }
            if modes.pie {
                println!(
                    "Value under the pie rule: {}{}; North swaps after any turn worth more to South",
                    bounded(pie_value),
                    if pie_value.is_exact() { format!(" ({})", verdict(Side::South, pie_value.lower)) } else { String::new() }
                );
            } else {
                println!("Value of the game (South's best opening): {}", bounded(best));
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
            Ok(oracle.value(p)?)
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
