//! `kalah solve --openings`, `--pie` and `--shift`: the library's
//! openings (`kalah::studies::openings`) answered by one oracle; its typed reports
//! printed as they are (`--json`) or as tables.

use std::time::Duration;

use kalah::studies::openings::{openings_report, shift_report};
use kalah::text::{bounded, signed, verdict};
use kalah::{Analyzer, Bounded, Request};
use kalah_core::{Engine, Position, Rules, Side};

use crate::common::{databases, print_json, DbArgs, SearchArgs};
use crate::observe::Terminal;

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
    let observer = Terminal::unless_json(json);
    let request = Request { db: db.spec(), threads: search.threads()?, tt_mb: search.tt_mb_asked()?, ..Request::new(*start, *rules) };
    let oracle = Analyzer::new(databases()).oracle(&request, start.seeds_in_houses(), modes.budget, &observer)?;
    if !modes.shift {
        let report = openings_report(&engine, oracle.as_ref(), start, *rules, modes.pie, modes.budget)?;
        if json {
            print_json(&serde_json::to_value(&report)?);
            return Ok(());
        }
        println!("{title}{}", if modes.pie { " with the pie rule" } else { ": opening turns" });
        println!("Rules:    {rules}");
        println!("Opening turns of South, with South's value after each:");
        for t in &report.openings {
            println!("  {:<14} {:>10}", turn_text(&t.turn), bounded(Bounded { lower: t.lower, upper: t.upper }));
        }
        let game = Bounded { lower: report.lower, upper: report.upper };
        if modes.pie {
            println!(
                "Value under the pie rule: {}{}; North swaps after any turn worth more to South",
                bounded(game),
                report.value.map_or(String::new(), |v| format!(" ({})", verdict(Side::South, v)))
            );
        } else {
            println!("Value of the game (South's best opening): {}", bounded(game));
        }
        println!("Time: {:.2} s", report.seconds);
        return Ok(());
    }
    let bar = indicatif::ProgressBar::new((2 * h * 2 * h) as u64);
    let report = shift_report(&engine, oracle.as_ref(), start, *rules, modes.pie, &|| bar.inc(1))?;
    bar.finish_and_clear();
    if json {
        print_json(&serde_json::to_value(&report)?);
        return Ok(());
    }
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
            match report.shifts.iter().find(|s| s.from == from && s.to == to) {
                Some(s) => print!("{:>5}", signed(s.value)),
                None => print!("{:>5}", "-"),
            }
        }
        println!();
    }
    let best_text: Vec<String> = report.best_shifts.iter().map(|s| format!("{} to {}", s.from, s.to)).collect();
    println!(
        "North's best shift{}: {}; the game is then {} ({})",
        if report.best_shifts.len() > 1 { "s" } else { "" },
        best_text.join(", "),
        signed(report.shift_value),
        verdict(Side::South, report.shift_value)
    );
    println!("South still wins {} of the {} games", report.south_wins, report.shifts.len());
    println!("Time: {:.2} s", report.seconds);
    Ok(())
}
