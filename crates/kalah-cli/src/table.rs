//! `kalah table`: the values of Kalah(h,s) for ranges of h and s, each
//! checked against the published values.

use std::time::Instant;

use clap::Args;
use kalah::published;
use kalah::setup::{SearchWork, Setup};
use kalah::{Bounded, DbSpec, SetupBudget};
use kalah_core::{Engine, Rules};
use serde_json::json;

use crate::common::{databases, print_json, rules_json, seconds, start_position, user, RuleArgs};
use kalah::text::bounded;
use crate::observe::Terminal;
use crate::common::SearchArgs;

/// A range of numbers on the command line: `4` or `1-6`.
#[derive(Clone, Copy, Debug)]
pub struct Span(pub u32, pub u32);

impl std::str::FromStr for Span {
    type Err = String;
    fn from_str(s: &str) -> Result<Span, String> {
        let number = |t: &str| -> Result<u32, String> {
            let t = t.trim();
            t.parse().map_err(|_| {
                if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                    format!("'{t}' is too large (at most {})", u32::MAX)
                } else {
                    format!("'{s}' is not a number or a range such as 1-6")
                }
            })
        };
        let (a, b) = match s.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(s)?;
                (n, n)
            }
        };
        if a > b {
            return Err(format!("the range {s} is empty"));
        }
        Ok(Span(a, b))
    }
}

/// Arguments of `kalah table`.
#[derive(Args, Debug)]
pub struct TableArgs {
    /// Houses a side: a number or a range such as 1-6 (default 1-6).
    #[arg(value_name = "H")]
    houses_given: Option<Span>,
    /// Seeds a house: a number or a range such as 1-6 (default 1-6).
    #[arg(value_name = "S")]
    seeds_given: Option<Span>,
    /// Houses a side, as H says it.
    #[arg(long, value_name = "H|A-B", default_value = "1-6", conflicts_with = "houses_given")]
    houses: Span,
    /// Seeds a house, as S says it.
    #[arg(long, value_name = "S|A-B", default_value = "1-6", conflicts_with = "seeds_given")]
    seeds: Span,
    #[command(flatten)]
    rules: RuleArgs,
    /// Back the searches with an endgame database of up to N seeds for each
    /// board size: the default database file if it covers N, else one built
    /// in memory first (0: none). Without it, the default database file that
    /// `solve` would use for the largest start, when there is one, else one
    /// is built in memory as `solve --value-only` does (from 46 seeds on,
    /// on six houses 30 seeds fewer than the largest start, two more for
    /// each house fewer; at most 24).
    /// Clockwise, the database is solved by retrograde analysis and gives
    /// exact values of the starts it covers; by default it covers the
    /// largest start that fits in memory, and larger starts get bounds from
    /// searches over it (exact where best play ends within their depth).
    #[arg(long, value_name = "N")]
    db_seeds: Option<u32>,
    /// Seconds per configuration's search; one that does not finish in time
    /// shows the bounds on its value proven so far. Loading or building the
    /// database of a board size comes first and is not counted, but a
    /// default one is chosen to take at most about a quarter of the board
    /// size's limits together (`--db-seeds` is used as given).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, allow_negative_numbers = true)]
    time_limit: f64,
    #[command(flatten)]
    search: SearchArgs,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// One configuration's result.
struct Entry {
    houses: usize,
    seeds: u32,
    bounds: Bounded,
    /// Nodes searched (`None`: a database answered).
    nodes: Option<u64>,
    seconds: f64,
    /// Seconds spent before the first entry of its board size: building a
    /// database in memory, retrograde analysis (clockwise), loading a file.
    setup_seconds: f64,
    method: String,
    /// The seeds of the database that answered or backed the search (`None`: none).
    database_seeds: Option<u32>,
    published: Option<published::Published>,
}

impl Entry {
    fn check(&self) -> &'static str {
        match &self.published {
            None => "unpublished",
            Some(p) if self.bounds.is_exact() && p.claim.agrees(self.bounds.lower) => "match",
            Some(p) if !p.claim.possible(self.bounds.lower, self.bounds.upper) => "mismatch",
            Some(_) if self.bounds.is_exact() => "mismatch",
            Some(_) => "consistent",
        }
    }

    fn value_text(&self) -> String {
        bounded(self.bounds)
    }
}

pub fn run(mut args: TableArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules();
    args.houses = args.houses_given.unwrap_or(args.houses);
    args.seeds = args.seeds_given.unwrap_or(args.seeds);
    if !(1..=kalah_core::MAX_HOUSES as u32).contains(&args.houses.0) || args.houses.1 > kalah_core::MAX_HOUSES as u32 {
        return Err(user(format!("houses {}-{}: houses a side must be 1 to {}", args.houses.0, args.houses.1, kalah_core::MAX_HOUSES)));
    }
    if args.seeds.0 == 0 {
        return Err(user("seeds 0: every house holds at least one seed at the start"));
    }
    let limit = seconds(args.time_limit)?;
    let threads = args.search.threads()?;
    let mut entries = Vec::new();
    for h in args.houses.0 as usize..=args.houses.1 as usize {
        for s in args.seeds.0..=args.seeds.1 {
            start_position(h, s)?;
        }
        let setup = Instant::now();
        // The database serves every start of `h` houses: its set-up shares
        // their limits (clockwise, retrograde analysis sizes its own).
        let budget = SetupBudget::within(Some(limit * (args.seeds.1 - args.seeds.0 + 1)), threads);
        let engine = Engine::new(h, rules);
        let spec = DbSpec { build_seeds: args.db_seeds, ..DbSpec::default() };
        let observer = Terminal::unless_json(args.json);
        let how = Setup { engine: &engine, spec: &spec, threads, tt_mb: args.search.tt_mb_asked()?, budget, work: SearchWork::Value, observer: &observer };
        let oracle = kalah::oracle::for_starts(&databases(), &how, 2 * h as u32 * args.seeds.1)?;
        let setup_seconds = setup.elapsed().as_secs_f64();
        if !args.json {
            let database = match oracle.database_seeds() {
                Some(n) => format!("the {n}-seed database"),
                None => "no database".into(),
            };
            let prepared = if setup_seconds >= 0.1 {
                format!(", {setup_seconds:.1} s to prepare (building or loading it, retrograde analysis)")
            } else {
                String::new()
            };
            eprintln!("note: {h} houses: {database}{prepared}");
        }
        for s in args.seeds.0..=args.seeds.1 {
            let start = start_position(h, s)?;
            let timer = Instant::now();
            let before = oracle.nodes();
            let bounds = oracle.bounds(&start, Some(timer + limit))?;
            let nodes = oracle.searches(&start).then(|| oracle.nodes() - before);
            let method = oracle.method(&start);
            let entry = Entry {
                houses: h,
                seeds: s,
                bounds,
                nodes,
                seconds: timer.elapsed().as_secs_f64(),
                setup_seconds,
                method,
                database_seeds: oracle.database_seeds(),
                published: published::find(h, s, rules),
            };
            if !args.json {
                eprintln!("note: Kalah({h},{s}) = {} in {:.2} s [{}]", entry.value_text(), entry.seconds, entry.check());
            }
            entries.push(entry);
        }
    }
    if args.json {
        print_json(&json!({
            "rules": rules_json(rules),
            "time_limit": args.time_limit,
            "entries": entries.iter().map(|e| json!({
                "houses": e.houses,
                "seeds": e.seeds,
                "value": if e.bounds.is_exact() { json!(e.bounds.lower) } else { json!(null) },
                "lower": e.bounds.lower,
                "upper": e.bounds.upper,
                "exact": e.bounds.is_exact(),
                "seconds": e.seconds,
                "nodes": e.nodes,
                "setup_seconds": e.setup_seconds,
                "method": e.method,
                "database_seeds": e.database_seeds,
                "published": e.published.as_ref().map(|p| json!({"value": p.claim.text(), "source": p.source})),
                "check": e.check(),
            })).collect::<Vec<_>>(),
        }));
    } else {
        print_grid(&entries, rules, args.seeds);
    }
    Ok(())
}

fn print_grid(entries: &[Entry], rules: Rules, seeds: Span) {
    println!("Values of Kalah(h,s): South's final store difference under perfect play");
    println!("Rules: {rules}");
    println!("Marks: = agrees with the published value, ! disagrees, ~ bounds consistent with it, blank: not published");
    print!("{:>6}", "h \\ s");
    for s in seeds.0..=seeds.1 {
        print!("{s:>12}");
    }
    println!();
    let mut h = 0;
    for e in entries {
        if e.houses != h {
            if h != 0 {
                println!();
            }
            h = e.houses;
            print!("{h:>6}");
        }
        let mark = match e.check() {
            "match" => "=",
            "mismatch" => "!",
            "consistent" => "~",
            _ => " ",
        };
        print!("{:>11}{mark}", e.value_text());
    }
    println!();
    println!();
    println!("{:>3} {:>3} {:>10} {:>10} {:>10} {:>12}  method", "h", "s", "value", "published", "check", "seconds");
    for e in entries {
        println!(
            "{:>3} {:>3} {:>10} {:>10} {:>10} {:>12.3}  {}",
            e.houses,
            e.seeds,
            e.value_text(),
            e.published.as_ref().map_or("-".to_string(), |p| p.claim.text()),
            e.check(),
            e.seconds,
            e.method
        );
    }
}
