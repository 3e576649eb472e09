//! A report of the library's analyzer (`kalah::Report`) for people:
//! `solve`, `query` and `db probe` print it.

use kalah::text::{bounded, group, signed, verdict};
use kalah::{BoundedAnalysis, LineEnd, Report, Source, UsedDatabase};

/// Prints a report for people.
pub fn print_human(title: &str, report: &Report) {
    let p = &report.position;
    let a = &report.analysis;
    let mover = p.to_move();
    println!("{title}");
    println!("Rules:    {}", report.rules);
    println!("Position: {}  ({} to move)", p.ring(), mover.name());
    print!("{}", p.diagram());
    let v = a.value;
    if let Some(t) = &report.test {
        let proved = if t.holds {
            format!("holds: the value is at least {}", signed(t.bound))
        } else {
            format!("fails: the value is at most {}", signed(t.bound))
        };
        println!("Test:     value >= {}  {proved}", signed(t.at_least));
    }
    if v.is_exact() {
        println!("Value:    {}  ({}){}", signed(v.lower), verdict(mover, v.lower), source_note(report));
    } else if report.test.is_some() {
        println!("Value:    {}..{}  (the bounds proven){}", signed(v.lower), signed(v.upper), source_note(report));
    } else {
        println!("Value:    {}..{}  (proven bounds: not solved within the time limit){}", signed(v.lower), signed(v.upper), source_note(report));
    }
    if !a.moves.is_empty() {
        println!("Moves for {}:", mover.name());
        for m in &a.moves {
            // A move is best when it is proven to reach the most the position can.
            let best = if m.value.lower >= v.upper { "  best" } else { "" };
            println!("  house {}  {:>4}{best}", m.house, bounded(m.value));
        }
    }
    if a.moves.is_empty() {
        if let Some(house) = report.best_move() {
            println!("Best move: house {house}");
        }
    }
    if !a.pv.is_empty() || a.end == LineEnd::Endless {
        let end = match a.end {
            LineEnd::GameOver => "",
            LineEnd::Endless => ", then endless",
            LineEnd::Cut => ", cut short",
        };
        println!("Principal variation ({} moves{end}):", a.pv.len());
        println!("  {}", pv_text(a));
    } else if v.is_exact() && a.end == LineEnd::Cut {
        println!("Principal variation: none proven within the time limit");
    }
    match report.source {
        source if matches!(source, Source::Search | Source::Bounds | Source::Distributed) || (source == Source::Proven && report.nodes > 0) => {
            let build = report.database.as_ref().and_then(|d| d.build_seconds).unwrap_or(0.0);
            let load = report.database.as_ref().and_then(|d| d.load_seconds).unwrap_or(0.0);
            let secs = report.seconds - build - load;
            let after = if build > 0.0 {
                format!(", after {build:.2} s building the database")
            } else if load >= 0.01 {
                format!(", after {load:.2} s loading the database")
            } else {
                String::new()
            };
            println!("Searched {} nodes in {:.2} s ({:.1} M nodes/s){after}", group(report.nodes), secs, report.nodes as f64 / secs.max(1e-9) / 1e6)
        }
        _ => println!("Time:     {:.3} s", report.seconds),
    }
    if let Some(j) = report.journal.as_ref().filter(|j| j.memory) {
        println!(
            "Memory:   {} ({} boards from earlier searches; {} now; --no-memory to search without it)",
            j.path.display(),
            group(j.entries_loaded as u64),
            group(j.entries as u64)
        );
    } else if let Some(j) = &report.journal {
        let earlier = match j.earlier_sessions {
            0 => "a new journal".to_string(),
            n => format!(
                "{n} earlier session{} ({} nodes in {:.0} s) left {} boards' bounds",
                if n == 1 { "" } else { "s" },
                group(j.earlier_nodes),
                j.earlier_seconds,
                group(j.entries_loaded as u64)
            ),
        };
        println!("Journal:  {} ({earlier}); it now keeps {} boards", j.path.display(), group(j.entries as u64));
    }
}

fn source_note(report: &Report) -> String {
    let what = |d: &UsedDatabase| match (&d.path, d.build_seconds) {
        (Some(path), _) => format!("database {path}"),
        (None, Some(secs)) => format!("database built in memory in {secs:.1} s"),
        (None, None) => "database built in memory".to_string(),
    };
    match (report.source, &report.database) {
        (Source::Database, Some(d)) => format!("  [{}, {} seeds]", what(d), d.max_seeds),
        (Source::Search, Some(d)) => format!("  [search, {} up to {} seeds]", what(d), d.max_seeds),
        (Source::Search, None) => "  [search, no database]".to_string(),
        (Source::Retrograde, _) => "  [retrograde analysis: clockwise play can be endless]".to_string(),
        (Source::Bounds, Some(d)) => format!("  [bounds proven by searches over the {}, {} seeds]", what(d), d.max_seeds),
        (Source::Bounds, None) => "  [bounds proven by searches, no database]".to_string(),
        (Source::Database, None) => String::new(),
        (Source::Book, _) => "  [opening book; --no-book to search]".to_string(),
        (Source::GameOver, _) => "  [the game is over]".to_string(),
        (Source::Distributed, Some(d)) => format!("  [one search shared by the ranks of an MPI job, {} up to {} seeds]", what(d), d.max_seeds),
        (Source::Distributed, None) => "  [one search shared by the ranks of an MPI job, no database]".to_string(),
        (Source::Kept, _) => "  [kept from an earlier run's search, in the database folder's answers/; --no-memory to search]".to_string(),
        (Source::Proven, _) if report.nodes > 0 => {
            "  [what this project has proven and ships (data/), with the search's bounds; --no-book to search alone]".to_string()
        }
        (Source::Proven, _) => "  [proven by this project and shipped with it (data/); --no-book to search]".to_string(),
    }
}

/// The principal variation as turns: `1. S3 S6  2. N1  3. S2 ...`.
pub fn pv_text(a: &BoundedAnalysis) -> String {
    let mut out = String::new();
    let mut turn = 0;
    let mut last = None;
    for m in &a.pv {
        if last != Some(m.side) {
            turn += 1;
            if !out.is_empty() {
                out.push_str("  ");
            }
            out.push_str(&format!("{turn}."));
            last = Some(m.side);
        }
        out.push_str(&format!(" {}{}", m.side.letter(), m.house));
    }
    match a.end {
        LineEnd::Endless => out.push_str("  ... (repeats for ever)"),
        LineEnd::Cut => out.push_str("  ... (not proven further within the time limit)"),
        LineEnd::GameOver => {}
    }
    out
}
