//! `kalah table`: the values of Kalah(h,s) for ranges of h and s, each
//! checked against the published values.

use std::time::Instant;

use clap::Args;
use kalah_core::{Engine, Position, Rules};
use kalah_db::{human_bytes, Database, NoTablebase, Tablebase};
use kalah_search::{BoundSolver, Bounded, SearchOptions, Solver};
use serde_json::json;

use crate::analysis::{bounds_tt_mb, check_table_memory, group, retrograde_fits};
use crate::common::{db_error, default_database_for, find_default_database, print_json, rules_json, seconds, signed, start_position, user, RuleArgs, SetupBudget, VALUE_LOAD_GAP};
use crate::published;
use crate::solve::{default_tt_mb, SearchArgs};

/// A range of numbers on the command line: `4` or `1-6`.
#[derive(Clone, Copy, Debug)]
pub struct Span(pub u32, pub u32);

impl std::str::FromStr for Span {
    type Err = String;
    fn from_str(s: &str) -> Result<Span, String> {
        let bad = || format!("'{s}' is not a number or a range such as 1-6");
        let (a, b) = match s.split_once('-') {
            Some((a, b)) => (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?),
            None => {
                let n = s.trim().parse().map_err(|_| bad())?;
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
    /// Houses a side: a number or a range such as 1-6.
    #[arg(long, value_name = "H|A-B", default_value = "1-6")]
    houses: Span,
    /// Seeds a house: a number or a range such as 1-6.
    #[arg(long, value_name = "S|A-B", default_value = "1-6")]
    seeds: Span,
    #[command(flatten)]
    rules: RuleArgs,
    /// Back the searches with an endgame database of up to N seeds for each
    /// board size: the default database file if it covers N, else one built
    /// in memory first (0: none). Without it, the default database file that
    /// `solve` would use for the largest start, when there is one, else one
    /// is built in memory as `solve` does (from 46 seeds on, 30 seeds fewer
    /// than the largest start, at most 24).
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
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
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
        if self.bounds.is_exact() {
            signed(self.bounds.lower)
        } else {
            format!("{}..{}", signed(self.bounds.lower), signed(self.bounds.upper))
        }
    }
}

/// Bounds on a position's value proven by a deadline, and the nodes searched.
type Search = Box<dyn Fn(&Position, Instant) -> anyhow::Result<(Bounded, u64)>>;

/// Answers start positions of one board size.
enum Evaluator {
    Table(Box<Engine>, Box<dyn Tablebase>),
    /// A search, backed by a database of the seeds given (`None`: none).
    Search(Search, Option<u32>),
    /// Rules that may cycle: starts the database (of every board up to
    /// its seeds, by retrograde analysis) covers are answered by it, larger
    /// ones by bounds proven by a search backed by it.
    Clockwise(Box<Engine>, Box<dyn Tablebase>, SearchOptions),
}

impl Evaluator {
    /// Bounds on the value of `position` (exact from a database), and the
    /// nodes searched for them (`None`: none, a database answered).
    fn value(&self, position: &Position, deadline: Instant) -> anyhow::Result<(Bounded, Option<u64>)> {
        match self {
            Evaluator::Clockwise(engine, table, options) if !covers(&**table, position) => {
                check_table_memory(options.reserved_bytes(engine.houses()) as u64)?;
                let solver = BoundSolver::new(engine.houses(), engine.rules(), &**table, *options).map_err(|e| user(e.to_string()))?;
                let bounds = solver.bounds_within(position, deadline).map_err(|e| user(e.to_string()))?;
                Ok((bounds, Some(solver.nodes())))
            }
            Evaluator::Table(engine, table) | Evaluator::Clockwise(engine, table, _) => {
                let board = position.mover_board();
                let v = position.store_difference() + engine.terminal_value(board).unwrap_or_else(|| table.value(board));
                if let Some(why) = table.failure() {
                    return Err(user(why));
                }
                Ok((Bounded { lower: v, upper: v }, None))
            }
            Evaluator::Search(f, _) => f(position, deadline).map(|(b, nodes)| (b, Some(nodes))),
        }
    }

    /// The seeds of the database that answers or backs the searches, if any.
    fn database_seeds(&self) -> Option<u32> {
        match self {
            Evaluator::Table(_, table) | Evaluator::Clockwise(_, table, _) => table.max_seeds(),
            Evaluator::Search(_, seeds) => *seeds,
        }
    }
}

pub fn run(args: TableArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules();
    if !(1..=kalah_core::MAX_HOUSES as u32).contains(&args.houses.0) || args.houses.1 > kalah_core::MAX_HOUSES as u32 {
        return Err(user(format!("--houses {}-{}: houses a side must be 1 to {}", args.houses.0, args.houses.1, kalah_core::MAX_HOUSES)));
    }
    if args.seeds.0 == 0 {
        return Err(user("--seeds: every house holds at least one seed at the start"));
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
        let evaluator = evaluator(h, rules, 2 * h as u32 * args.seeds.1, args.db_seeds, threads, args.search.tt_mb_asked()?, budget, !args.json)?;
        let setup_seconds = setup.elapsed().as_secs_f64();
        if !args.json {
            let database = match evaluator.database_seeds() {
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
            let (bounds, nodes) = evaluator.value(&start, timer + limit)?;
            let method = describe(&evaluator, &start);
            let entry = Entry {
                houses: h,
                seeds: s,
                bounds,
                nodes,
                seconds: timer.elapsed().as_secs_f64(),
                setup_seconds,
                method,
                database_seeds: evaluator.database_seeds(),
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

/// Why retrograde analysis of every board of `h` houses with up to `seeds` seeds is refused.
fn clockwise_refusal(h: usize, seeds: u32, rules: Rules) -> String {
    let boards = group(kalah_core::boards_up_to(h, seeds));
    if seeds > kalah_db::builder::MAX_SEEDS {
        return format!("retrograde analysis of {boards} boards: more seeds than a database holds (at most {})", kalah_db::builder::MAX_SEEDS);
    }
    let free = kalah_db::writer::available_memory().map_or(String::new(), |f| format!(", {} is available", human_bytes(f)));
    format!("retrograde analysis of {boards} boards needs {} of memory{free}", human_bytes(kalah_db::builder::memory_needed(h, seeds, rules)))
}

/// Clockwise: every board up to `--db-seeds`, or by default up to the
/// largest start that fits in memory (else the most seeds that fit), solved
/// by retrograde analysis; larger starts get bounds from searches over it.
fn clockwise(h: usize, rules: Rules, largest: u32, db_seeds: Option<u32>, threads: usize, tt_mb: Option<usize>, announce: bool) -> anyhow::Result<Evaluator> {
    let engine = Engine::new(h, rules);
    let n = match db_seeds {
        Some(n) => {
            let n = n.min(largest);
            if !retrograde_fits(h, n, rules) {
                return Err(user(format!("--db-seeds {n}: {}", clockwise_refusal(h, n, rules))));
            }
            n
        }
        None => {
            let step = 2 * h as u32;
            (1..=largest / step).rev().map(|s| s * step).chain((0..step).rev()).find(|&n| retrograde_fits(h, n, rules)).unwrap_or(0)
        }
    };
    if announce {
        let memory = kalah_db::builder::memory_needed(h, n, rules);
        eprintln!(
            "note: {h} houses, clockwise: retrograde analysis of {} boards ({} of memory){}",
            group(kalah_core::boards_up_to(h, n)),
            human_bytes(memory),
            if n < largest { format!("; starts of more than {n} seeds get bounds from searches over it") } else { String::new() }
        );
        if n < largest && db_seeds.is_none() {
            eprintln!("note: exact values up to {largest} seeds: {}", clockwise_refusal(h, largest, rules));
        }
    }
    let builder = crate::analysis::build_in_memory(&engine, n, threads)?;
    let options = SearchOptions {
        threads,
        tt_bytes: tt_mb.unwrap_or_else(|| bounds_tt_mb(h, largest, n)) << 20,
        max_seeds: Some(largest),
    };
    Ok(Evaluator::Clockwise(Box::new(engine), Box::new(builder), options))
}

/// Whether `table` covers the board of `position`.
fn covers(table: &dyn Tablebase, position: &Position) -> bool {
    table.max_seeds().is_some_and(|m| position.seeds_in_houses() <= m)
}

fn describe(e: &Evaluator, position: &Position) -> String {
    match e {
        Evaluator::Clockwise(_, table, _) if !covers(&**table, position) => format!(
            "bounds: searches to growing depths over the {}-seed database, the horizon at its worst and at its best",
            table.max_seeds().unwrap_or(0)
        ),
        Evaluator::Table(..) | Evaluator::Clockwise(..) => "database".into(),
        Evaluator::Search(_, Some(n)) if position.seeds_in_houses() <= *n => "database".into(),
        Evaluator::Search(..) => "search".into(),
    }
}

/// How to answer the starts of `h` houses with up to `largest` seeds.
#[allow(clippy::too_many_arguments)]
fn evaluator(
    h: usize,
    rules: Rules,
    largest: u32,
    db_seeds: Option<u32>,
    threads: usize,
    tt_mb: Option<usize>,
    budget: SetupBudget,
    announce: bool,
) -> anyhow::Result<Evaluator> {
    let engine = Engine::new(h, rules);
    // The file `solve` would pick for the largest start (a larger one costs
    // more to load than it saves), or with `--db-seeds` the largest, which
    // covers them if any does. A file that covers every start is all we need.
    let path = match db_seeds {
        Some(_) => find_default_database(h, rules),
        None => {
            let choice = default_database_for(h, rules, largest, VALUE_LOAD_GAP, budget);
            if let (true, Some((passed, _))) = (announce, &choice.passed_over) {
                eprintln!("note: {h} houses: {} is not loaded: it would take more than a quarter of the entries' time limits", passed.display());
            }
            choice.path
        }
    };
    let file = match path.map(|p| Database::open_for(&p, h, rules)).transpose().map_err(db_error)? {
        Some(db) if db.header().max_seeds >= largest => return Ok(Evaluator::Table(Box::new(engine), Box::new(db))),
        other => other,
    };
    if rules.may_cycle() {
        return clockwise(h, rules, largest, db_seeds, threads, tt_mb, announce);
    }
    let search_err = |e: kalah_search::SearchError| user(e.to_string());
    // No file and no size asked for: the size `solve` builds by default.
    let db_seeds = match (db_seeds, &file) {
        (None, None) => crate::analysis::default_memory_seeds(h, largest, budget.build_boards),
        (asked, _) => asked,
    };
    let database: Option<Box<dyn Tablebase>> = match (db_seeds, file) {
        (Some(n), Some(d)) if d.header().max_seeds >= n => Some(Box::new(crate::common::for_search(d, threads)?)),
        (Some(0), _) => None,
        (Some(n), _) => {
            // Checked as asked, as `solve` checks it, before it is cut to the starts' seeds.
            kalah_db::builder::check_size(h, n).map_err(|e| user(format!("--db-seeds {n}: {e}")))?;
            let n = n.min(largest);
            let (memory, _) = kalah_db::writer::requirements(h, n, rules);
            let free = kalah_db::writer::available_memory().unwrap_or(u64::MAX);
            if memory > free {
                return Err(user(format!(
                    "--db-seeds {n}: {} {h}-house database of {n} seeds needs {} of memory, {} is available",
                    crate::common::article(h as u64),
                    human_bytes(memory),
                    human_bytes(free)
                )));
            }
            if announce {
                eprintln!(
                    "note: {h} houses: building {} {n}-seed database in memory ({} boards)",
                    crate::common::article(n.into()),
                    group(kalah_core::boards_up_to(h, n))
                );
            }
            Some(Box::new(crate::analysis::build_in_memory(&engine, n, threads)?))
        }
        (None, Some(d)) => Some(Box::new(crate::common::for_search(d, threads)?)),
        (None, None) => None,
    };
    // Checked with the database in memory: what is available is what is left.
    let options = SearchOptions {
        threads,
        tt_bytes: tt_mb.unwrap_or_else(|| default_tt_mb(h, largest, database.as_ref().and_then(|t| t.max_seeds()))) << 20,
        max_seeds: Some(largest),
    };
    check_table_memory(options.reserved_bytes(h) as u64)?;
    let database_seeds = database.as_ref().and_then(|t| t.max_seeds());
    let evaluator: Search = match database {
        Some(table) => {
            let solver = Solver::new(h, rules, table, options).map_err(search_err)?;
            Box::new(move |p, deadline| {
                let before = solver.nodes();
                solver.bounds_within(p, deadline).map(|b| (b, solver.nodes() - before)).map_err(search_err)
            })
        }
        None => {
            let solver = Solver::new(h, rules, NoTablebase { houses: h, rules }, options).map_err(search_err)?;
            Box::new(move |p, deadline| {
                let before = solver.nodes();
                solver.bounds_within(p, deadline).map(|b| (b, solver.nodes() - before)).map_err(search_err)
            })
        }
    };
    Ok(Evaluator::Search(evaluator, database_seeds))
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
