//! Solving one position by the best means available: a database probe, a
//! search backed by the database, or (clockwise sowing) retrograde
//! analysis of every board it can reach; shared by `solve`, `query` and `play`.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use kalah_core::{Engine, Position, Rules};
use kalah_db::{human_bytes, Builder, Database, NoTablebase, Progress, Tablebase};
use kalah_search::{analyze_from_table, Analysis, SearchOptions, Solver};
use serde_json::json;

use crate::common::{db_error, rules_json, signed, user, verdict, DbArgs};
use crate::solve::default_tt_mb;

/// How a value was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Read from an endgame database.
    Database,
    /// Alpha-beta search (backed by a database where it covers).
    Search,
    /// Retrograde analysis in memory of every board with up to the
    /// position's seeds (clockwise sowing, where play can be endless).
    Retrograde,
}

impl Source {
    /// The name used in output.
    pub fn name(self) -> &'static str {
        match self {
            Source::Database => "database",
            Source::Search => "search",
            Source::Retrograde => "retrograde",
        }
    }
}

/// What to solve and how.
#[derive(Clone, Debug)]
pub struct Request {
    /// The position.
    pub position: Position,
    /// The rules.
    pub rules: Rules,
    /// Which database.
    pub db: DbArgs,
    /// Search threads.
    pub threads: usize,
    /// Transposition table megabytes (`None`: [`crate::solve::default_tt_mb`]).
    pub tt_mb: Option<usize>,
    /// Every move's value, not only the position's.
    pub moves: bool,
    /// A principal variation.
    pub pv: bool,
    /// A best move, found on its own when neither every move's value nor a
    /// principal variation is asked for.
    pub best: bool,
    /// Say on stderr what is being used (memory, database).
    pub announce: bool,
}

/// The answer, with how it was found.
#[derive(Clone, Debug)]
pub struct Report {
    /// Value, moves, principal variation.
    pub analysis: Analysis,
    /// How.
    pub source: Source,
    /// Nodes searched (0 for probes).
    pub nodes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The database used: path and seeds covered.
    pub database: Option<(String, u32)>,
    /// A best move found on its own (`Request::best`); see [`best_move`].
    pub best_move: Option<usize>,
}

/// Solves the request; see the module docs.
pub fn run(request: &Request) -> anyhow::Result<Report> {
    let position = &request.position;
    let h = position.houses();
    let rules = request.rules;
    let engine = Engine::new(h, rules);
    let db = request.db.open(h, rules)?;
    let database = db.as_ref().map(|d| (d.path().display().to_string(), d.header().max_seeds));
    let seeds = position.seeds_in_houses();
    let start = Instant::now();
    let finish = |analysis: Analysis, source, nodes, best_move| Report {
        analysis,
        source,
        nodes,
        seconds: start.elapsed().as_secs_f64(),
        database: database.clone(),
        best_move,
    };

    if let Some(db) = db.as_ref().filter(|d| seeds <= d.header().max_seeds) {
        let analysis = analyze_from_table(&engine, db, position).map_err(|e| user(e.to_string()))?;
        return Ok(finish(analysis, Source::Database, 0, None));
    }
    if rules.may_cycle() {
        let analysis = retrograde(&engine, position, request.announce, request.threads)?;
        return Ok(finish(analysis, Source::Retrograde, 0, None));
    }
    let options = SearchOptions {
        threads: request.threads,
        tt_bytes: request.tt_mb.unwrap_or_else(|| default_tt_mb(seeds, db.as_ref().map(|d| d.header().max_seeds))) << 20,
    };
    check_search_memory(options.reserved_bytes(h) as u64, db.as_ref())?;
    if request.announce {
        eprintln!(
            "note: searching with {} thread{}, a {} transposition table{}",
            request.threads,
            if request.threads == 1 { "" } else { "s" },
            human_bytes(options.table_bytes(h) as u64),
            match &db {
                Some(d) => format!(
                    " and the {}-seed database {} ({})",
                    d.header().max_seeds,
                    d.path().display(),
                    human_bytes(d.file_bytes())
                ),
                None => ", no endgame database".to_string(),
            }
        );
    }
    let (analysis, nodes, best) = match db {
        Some(db) => search(h, rules, crate::common::for_search(db)?, options, request)?,
        None => search(h, rules, NoTablebase { houses: h, rules }, options, request)?,
    };
    Ok(finish(analysis, Source::Search, nodes, best))
}

/// Refuses a transposition table of `bytes` that does not fit in the memory available.
pub fn check_table_memory(bytes: u64) -> anyhow::Result<()> {
    check_search_memory(bytes, None)
}

/// Refuses a transposition table of `bytes` that does not fit in the
/// memory available next to `db`, if the search will copy it into memory
/// (`common::for_search`: when it takes less than half the memory).
pub fn check_search_memory(bytes: u64, db: Option<&Database>) -> anyhow::Result<()> {
    let Some(available) = kalah_db::writer::available_memory() else {
        return Ok(());
    };
    let loaded = db.map_or(0, |d| if d.file_bytes() < available / 2 { d.file_bytes() } else { 0 });
    if bytes.saturating_add(loaded) > available {
        let next_to = if loaded > 0 { format!(" next to the {} database copied into memory", human_bytes(loaded)) } else { String::new() };
        return Err(user(format!(
            "a {} transposition table does not fit{next_to}: {} of memory is available (use --tt-mb)",
            human_bytes(bytes),
            human_bytes(available)
        )));
    }
    Ok(())
}

fn search<T: Tablebase>(h: usize, rules: Rules, table: T, options: SearchOptions, request: &Request) -> anyhow::Result<(Analysis, u64, Option<usize>)> {
    let solver = Solver::new(h, rules, table, options).map_err(|e| user(e.to_string()))?;
    let done = AtomicBool::new(false);
    let spinner = ProgressBar::new_spinner();
    spinner.set_style(ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("valid template"));
    let started = Instant::now();
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Relaxed) {
                let nodes = solver.nodes();
                let secs = started.elapsed().as_secs_f64().max(1e-9);
                spinner.set_message(format!(
                    "searching: {} nodes, {:.1} M nodes/s",
                    group(nodes),
                    nodes as f64 / secs / 1e6
                ));
                spinner.tick();
                std::thread::sleep(Duration::from_millis(100));
            }
            spinner.finish_and_clear();
        });
        // Stop the spinner however the search ends, a panic included.
        struct Done<'a>(&'a AtomicBool);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(true, Relaxed);
            }
        }
        let _done = Done(&done);
        let analysis = solver.analyze(&request.position, request.moves, request.pv)?;
        let best = if request.best && analysis.moves.is_empty() && analysis.pv.is_empty() {
            solver.best_move(&request.position, analysis.value)
        } else {
            None
        };
        // A damaged database is reported, not a move it may have misled.
        match solver.tablebase().failure() {
            Some(why) => Err(kalah_search::SearchError::Tablebase(why)),
            None => Ok((analysis, best)),
        }
    });
    let (analysis, best) = result.map_err(|e| user(e.to_string()))?;
    Ok((analysis, solver.nodes(), best))
}

/// Memory retrograde analysis needs for boards of up to `seeds` seeds.
fn retrograde_memory(h: usize, seeds: u32) -> u64 {
    // One byte per board, and the working set of the level being solved.
    kalah_core::boards_up_to(h, seeds) + kalah_db::builder::retrograde_working_set(h, seeds)
}

fn retrograde(engine: &Engine, position: &Position, announce: bool, threads: usize) -> anyhow::Result<Analysis> {
    let builder = retrograde_builder(engine, position.seeds_in_houses(), announce, threads)?;
    analyze_from_table(engine, &builder, position).map_err(|e| user(e.to_string()))
}

/// Every board with up to `seeds` seeds solved in memory by retrograde
/// analysis (for clockwise sowing), refused up front if it cannot fit.
pub fn retrograde_builder(engine: &Engine, seeds: u32, announce: bool, threads: usize) -> anyhow::Result<Builder> {
    let h = engine.houses();
    if seeds > kalah_db::builder::MAX_SEEDS {
        return Err(user(format!("{seeds} seeds is too many for retrograde analysis (at most {})", kalah_db::builder::MAX_SEEDS)));
    }
    let needed = retrograde_memory(h, seeds);
    let available = kalah_db::writer::available_memory().unwrap_or(u64::MAX);
    if needed > available {
        return Err(user(format!(
            "clockwise sowing is solved by retrograde analysis of every board with up to {seeds} seeds \
             ({} boards), which needs {} of memory; {} is available",
            group(kalah_core::boards_up_to(h, seeds)),
            human_bytes(needed),
            human_bytes(available)
        )));
    }
    if announce {
        eprintln!(
            "note: clockwise sowing can make play endless: solving all {} boards with up to {seeds} seeds by retrograde analysis ({} of memory)",
            group(kalah_core::boards_up_to(h, seeds)),
            human_bytes(needed)
        );
    }
    let mut builder = Builder::new(h, engine.rules(), seeds).map_err(db_error)?;
    let bar = ProgressBar::new(kalah_core::boards_up_to(h, seeds));
    bar.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} boards {msg}").expect("valid template"));
    struct Bar<'a>(&'a ProgressBar);
    impl Progress for Bar<'_> {
        fn advance(&self, _: u32, done: u64) {
            self.0.inc(done);
        }
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    pool.install(|| builder.build_all(&Bar(&bar)));
    bar.finish_and_clear();
    Ok(builder)
}

/// `1234567` as `1,234,567`.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Prints a report for people.
pub fn print_human(title: &str, request: &Request, report: &Report) {
    let p = &request.position;
    let a = &report.analysis;
    let mover = p.to_move();
    println!("{title}");
    println!("Rules:    {}", request.rules);
    println!("Position: {}  ({} to move)", p.ring(), mover.name());
    print!("{}", p.diagram());
    println!("Value:    {}  ({}){}", signed(a.value), verdict(mover, a.value), source_note(report));
    if !a.moves.is_empty() {
        println!("Moves for {}:", mover.name());
        for m in &a.moves {
            let best = if m.value == a.value { "  best" } else { "" };
            println!("  house {}  {:>4}{best}", m.house, signed(m.value));
        }
    }
    if a.moves.is_empty() {
        if let Some(house) = best_move(request, report) {
            println!("Best move: house {house}");
        }
    }
    if !a.pv.is_empty() || a.endless {
        println!("Principal variation ({} moves{}):", a.pv.len(), if a.endless { ", then endless" } else { "" });
        println!("  {}", pv_text(a));
    }
    match report.source {
        Source::Search => println!(
            "Searched {} nodes in {:.2} s ({:.1} M nodes/s)",
            group(report.nodes),
            report.seconds,
            report.nodes as f64 / report.seconds.max(1e-9) / 1e6
        ),
        _ => println!("Time:     {:.3} s", report.seconds),
    }
}

fn source_note(report: &Report) -> String {
    match (report.source, &report.database) {
        (Source::Database, Some((path, n))) => format!("  [database {path}, {n} seeds]"),
        (Source::Search, Some((path, n))) => format!("  [search, database {path} up to {n} seeds]"),
        (Source::Search, None) => "  [search, no database]".to_string(),
        (Source::Retrograde, _) => "  [retrograde analysis: clockwise play can be endless]".to_string(),
        (Source::Database, None) => String::new(),
    }
}

/// The principal variation as turns: `1. S3 S6  2. N1  3. S2 ...`.
pub fn pv_text(a: &Analysis) -> String {
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
    if a.endless {
        out.push_str("  ... (repeats for ever)");
    }
    out
}

/// A best move for the player to move: the one found on its own, or the
/// first move of the principal variation, or the first move of the best
/// value (`None` when none was asked for, or the game is over).
pub fn best_move(request: &Request, report: &Report) -> Option<usize> {
    let a = &report.analysis;
    report
        .best_move
        .or_else(|| a.pv.first().filter(|m| m.side == request.position.to_move()).map(|m| m.house))
        .or_else(|| a.moves.iter().find(|m| m.value == a.value).map(|m| m.house))
}

/// The report as one JSON object.
pub fn to_json(request: &Request, report: &Report) -> serde_json::Value {
    let p = &request.position;
    let a = &report.analysis;
    json!({
        "houses": p.houses(),
        "rules": rules_json(request.rules),
        "position": p.ring(),
        "to_move": p.to_move().letter().to_string(),
        "value": a.value,
        "verdict": verdict(p.to_move(), a.value),
        "moves": a.moves.iter().map(|m| json!({"house": m.house, "value": m.value})).collect::<Vec<_>>(),
        "best_move": best_move(request, report),
        "pv": a.pv.iter().map(|m| json!({"side": m.side.letter().to_string(), "house": m.house})).collect::<Vec<_>>(),
        "pv_endless": a.endless,
        "source": report.source.name(),
        "database": report.database.as_ref().map(|(path, n)| json!({"path": path, "max_seeds": n})),
        "nodes": report.nodes,
        "seconds": report.seconds,
    })
}

/// Checks that the database, if any, agrees with the request (for `db probe`).
pub fn probe_database(db: &Database, position: &Position) -> anyhow::Result<Analysis> {
    let engine = Engine::new(db.header().houses, db.header().rules);
    if position.houses() != db.header().houses {
        return Err(user(format!(
            "the position has {} houses a side, the database {}",
            position.houses(),
            db.header().houses
        )));
    }
    let seeds = position.seeds_in_houses();
    let max = db.header().max_seeds;
    // Every move leads to at most as many seeds, so the table covers them too.
    if seeds > max {
        return Err(user(format!(
            "the position has {seeds} seeds in its houses; the database covers at most {max} (use `kalah query` to search beyond)"
        )));
    }
    // Check the block of the position itself before reporting anything.
    db.probe(position.mover_board()).map_err(db_error)?;
    analyze_from_table(&engine, db, position).map_err(|e| user(e.to_string()))
}
