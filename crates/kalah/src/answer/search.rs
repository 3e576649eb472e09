//! The work of one request once the plan has chosen it: probes of a
//! database file, a search (or its one test) under the request's journal
//! or the folder's search memory, a proof of bounds (the plan's step 3);
//! and `kalah::probe`, a report read from one file.

use std::time::Instant;

use kalah_core::{Engine, Position};
use kalah_db::{Database, Tablebase};
use kalah_search::{analyze_from_table, Bounded, BoundedAnalysis, LineEnd, Solver, TestOutcome};

use crate::answer::request::{deadline, Memory, Request, RootTests};
use crate::answer::setup::Setup;
use crate::answer::sizes::BOUNDS_TIME;
use crate::databases::Databases;
use crate::error::{Error, Result};
use crate::memory::journal::{Identity, JournalSpec, Journaling};
use crate::progress::{watched_search, Observer, SearchStatus};
use crate::report::{JournalReport, Report, Source, UsedDatabase};

/// Every move's value of `position` by probes of the file `db`: values
/// that contradict each other are said of the file (a damaged or forged
/// database), with the check that finds every such board.
pub(crate) fn probe_file(engine: &Engine, db: &Database, position: &Position) -> Result<kalah_search::Analysis> {
    analyze_from_table(engine, db, position).map_err(|e| match e {
        kalah_search::SearchError::Inconsistent(why) => {
            kalah_db::DbError::corrupt(db.path(), format!("inconsistent database: {why}; a deep verification of the file finds every such board"))
                .into()
        }
        e => e.into(),
    })
}

/// The journal `request` asks for, opened for a search of its position
/// over a database of `db_seeds` (or none); else the search memory of
/// `databases` if it asks for that and it can be had (else a note).
pub(crate) fn open_journal(request: &Request, db_seeds: Option<u32>, databases: &Databases, observer: &dyn Observer) -> Result<Option<Journaling>> {
    if let Some(spec) = &request.journal {
        let identity = Identity::search(request.rules, request.position, db_seeds);
        return Journaling::open(spec, identity).map(Some);
    }
    if request.memory != Memory::All {
        return Ok(None);
    }
    let houses = request.position.houses();
    let spec = JournalSpec::new(databases.memory_dir(houses, request.rules));
    match Journaling::open(&spec, Identity::memory(request.rules, houses)) {
        Ok(journaling) => Ok(Some(journaling)),
        Err(e) => {
            let fix = if e.kind() == crate::error::ErrorKind::Corrupt { " (delete it to start a new memory)" } else { "" };
            observer.note(&format!("searching without the search memory: {e}{fix}"));
            Ok(None)
        }
    }
}

/// Runs `job` under the journal if there is one (written while it runs,
/// with a snapshot of `solver`'s table beside it), else just runs it.
fn journaled<R, T: Tablebase>(
    journaling: Option<&Journaling>,
    solver: &Solver<T>,
    observer: &dyn Observer,
    job: impl FnOnce() -> R,
) -> Result<(R, Option<JournalReport>)> {
    let table = |f: &mut dyn FnMut(kalah_core::Board, kalah_search::tt::Bounds)| solver.for_each_table_entry(f);
    match journaling {
        Some(j) => j.run(&|| solver.nodes(), Some(&table), observer, job).map(|(r, report)| (r, Some(report))),
        None => Ok((job(), None)),
    }
}

/// Gives `solver` the journal's bounds and the table snapshot an earlier
/// run of the search left beside it, unless the journal holds the value
/// of the position (proven again at once from its moves' bounds, which it
/// also holds: restoring the table would take longer).
fn resume<T: Tablebase>(solver: &mut Solver<T>, journaling: &Journaling, request: &Request, observer: &dyn Observer) {
    solver.journal_with(journaling.journal());
    let known = journaling.journal().bounds(request.position.mover_board()).is_some_and(|(l, u)| l == u);
    if known && request.tests == RootTests::Deepening {
        return;
    }
    if let Some(n) = journaling.restore_table(
        &mut |board, bounds| {
            solver.restore_table_entry(board, bounds);
        },
        observer,
    ) {
        observer.note(&format!("{n} entries of the transposition table restored from the snapshot beside the journal"));
    }
}

type Searched = (BoundedAnalysis, u64, Option<usize>, Option<JournalReport>, Option<TestOutcome>, Option<usize>);

/// The search `request` asks of `solver` (made for it, or kept from an
/// earlier request: its nodes are counted from now).
pub(crate) fn search<T: Tablebase>(
    solver: &mut Solver<T>,
    request: &Request,
    start: Instant,
    observer: &dyn Observer,
    journaling: Option<&Journaling>,
) -> Result<Searched> {
    let nodes_before = solver.nodes();
    if let Some(flag) = &request.cancel {
        solver.cancel_with(flag.clone());
    }
    if let Some(j) = journaling {
        resume(solver, j, request, observer);
    }
    let position = &request.position;
    if let RootTests::FirstGuess(guess) = request.tests {
        solver.first_guess(position, guess)?;
    }
    solver.first_line(position, &request.first)?;
    if let RootTests::AtLeast(at_least) = request.tests {
        return single_test(solver, request, at_least, start, observer, journaling);
    }
    let solver = &*solver;
    let status = || SearchStatus::of(position, solver.progress());
    let (result, journal) = journaled(journaling, solver, observer, || {
        watched_search(observer, "searching", &status, || {
            let (moves, line) = (request.want.moves(), request.want.line());
            let analysis = match (request.time_limit, &request.cancel) {
                // What can be proven in time; bounds where the search did not finish.
                (Some(limit), _) => solver.analyze_within(position, start + limit, moves, line)?,
                // Exact unless stopped; then the bounds proven on the way.
                (None, Some(flag)) => match solver.analyze_unless(position, moves, line, Some(flag))? {
                    Some(analysis) => analysis.into(),
                    None => stopped_analysis(position, status(), line),
                },
                (None, None) => solver.analyze(position, moves, line)?.into(),
            };
            let v = analysis.value;
            let best = if request.want.best_alone() && v.is_exact() { solver.best_move(position, v.lower) } else { None };
            // A damaged database is reported, not a move it may have misled.
            match solver.tablebase().failure() {
                Some(why) => Err(kalah_search::SearchError::Tablebase(why)),
                None => Ok((analysis, best)),
            }
        })
    })?;
    let (analysis, best) = result?;
    // A best move asked and none proven in time: the search's first choice,
    // so that a bot under a time limit always has a legal move.
    let board = position.mover_board();
    let likely_best = (request.want.best_alone() && best.is_none() && !solver.engine().is_over(board))
        .then(|| solver.moves_hint_first(board).first().map(|h| h + 1))
        .flatten();
    Ok((analysis, solver.nodes() - nodes_before, best, journal, None, likely_best))
}

/// What a search of `position` stopped by its cancel flag answers: the
/// bounds it proved on the position's value (`status`), within those its
/// seeds allow; no move's, and a line (if `line` was asked) cut short.
pub(crate) fn stopped_analysis(position: &Position, status: SearchStatus, line: bool) -> BoundedAnalysis {
    let (base, seeds) = (position.store_difference(), position.seeds_in_houses() as i32);
    let value =
        Bounded { lower: status.lower.unwrap_or(base - seeds).max(base - seeds), upper: status.upper.unwrap_or(base + seeds).min(base + seeds) };
    BoundedAnalysis { value, moves: Vec::new(), pv: Vec::new(), end: if line { LineEnd::Cut } else { LineEnd::GameOver } }
}

/// The one test "value >= at_least" of the request's position
/// ([`RootTests::AtLeast`]): the value's bounds are those the test proved
/// (or, stopped first, none), within those the seeds allow.
fn single_test<T: Tablebase>(
    solver: &Solver<T>,
    request: &Request,
    at_least: i32,
    start: Instant,
    observer: &dyn Observer,
    journaling: Option<&Journaling>,
) -> Result<Searched> {
    let position = &request.position;
    let status = || SearchStatus::of(position, solver.progress());
    let (result, journal) = journaled(journaling, solver, observer, || {
        watched_search(observer, "testing", &status, || solver.test(position, at_least, deadline(request, start)))
    })?;
    let test = result?;
    let base = position.store_difference();
    let seeds = position.seeds_in_houses() as i32;
    let (mut lower, mut upper) = (base - seeds, base + seeds);
    if let Some(t) = &test {
        (lower, upper) = t.bounds(lower, upper);
    }
    let analysis = BoundedAnalysis { value: Bounded { lower, upper }, moves: Vec::new(), pv: Vec::new(), end: LineEnd::GameOver };
    Ok((analysis, solver.nodes(), None, journal, test, None))
}

/// Clockwise, too many seeds for retrograde analysis: bounds on the value
/// (and on every move's, and a line of best play, as asked) proven within
/// the time limit by a [`Setup::bound_solver`].
pub(crate) fn bounds(setup: &Setup<'_>, file: Option<Database>, request: &Request, start: Instant, databases: &Databases) -> Result<Report> {
    let limit = request.time_limit.unwrap_or(BOUNDS_TIME);
    let position = &request.position;
    let seeds = position.seeds_in_houses();
    let (mut solver, database) = setup.bound_solver(seeds, file, limit)?;
    if let Some(flag) = &request.cancel {
        solver.cancel_with(flag.clone());
    }
    let journaling = open_journal(request, database.as_ref().map(|d| d.max_seeds), databases, setup.observer)?;
    if let Some(j) = &journaling {
        solver.journal_with(j.journal());
    }
    let database = database.map(|d| UsedDatabase { build_seconds: d.build_seconds.map(|_| start.elapsed().as_secs_f64()), ..d });
    // The time limit counts from the request, so that setting up (the
    // database built, the table allocated) is inside it, not after it.
    let deadline = start + limit;
    let status = || SearchStatus::of(position, solver.progress());
    let job = || {
        watched_search(setup.observer, "proving bounds", &status, || {
            let analysis = solver.analyze_within(position, deadline, request.want.moves(), request.want.line())?;
            let v = analysis.value;
            let best = if request.want.best_alone() && v.is_exact() && !setup.engine.is_over(position.mover_board()) {
                solver.best_move_within(position, v.lower, deadline)?
            } else {
                None
            };
            Ok::<_, kalah_search::SearchError>((analysis, best))
        })
    };
    // No table snapshot: proofs of bounds keep guesses the snapshot leaves out.
    let (result, journal) = match journaling.as_ref() {
        Some(j) => j.run(&|| solver.nodes(), None, setup.observer, job).map(|(r, report)| (r, Some(report)))?,
        None => (job(), None),
    };
    let (analysis, best) = result?;
    Ok(Report {
        position: *position,
        rules: request.rules,
        analysis,
        source: Source::Bounds,
        nodes: solver.nodes(),
        seconds: start.elapsed().as_secs_f64(),
        database,
        best_found: best,
        journal,
        test: None,
        likely_best: None,
    })
}

/// Every move's value and a line of best play of `position` read from the
/// database file `db`, refused unless the position is of the database's
/// board size and the database covers it (what `kalah db probe` answers).
pub fn probe(db: &Database, position: &Position) -> Result<Report> {
    let start = Instant::now();
    let (h, rules) = (db.header().houses, db.header().rules);
    if position.houses() != h {
        return Err(Error::bad_input(format!("the position has {} houses a side, the database {h}", position.houses())));
    }
    let seeds = position.seeds_in_houses();
    let max = db.header().max_seeds;
    // Every move leads to at most as many seeds, so the table covers them too.
    if seeds > max {
        return Err(Error::bad_input(format!(
            "the position has {seeds} seeds in its houses; the database covers at most {max} (an analyzer searches beyond)"
        )));
    }
    if !db.is_exact() {
        return Err(Error::refused(format!(
            "{} holds a window of values ({} bits a board) and bounds for the values outside it: a probe reads exact files; `kalah query --db {}` searches over it",
            db.path().display(),
            db.header().encoding.bits(0),
            db.path().display()
        )));
    }
    // Check the block of the position itself before reporting anything.
    db.probe_board(position.mover_board())?;
    let analysis = analyze_from_table(Engine::shared(h, rules), db, position)?;
    Ok(Report {
        position: *position,
        rules,
        analysis: analysis.into(),
        source: Source::Database,
        nodes: 0,
        seconds: start.elapsed().as_secs_f64(),
        database: Some(UsedDatabase::file(db)),
        best_found: None,
        journal: None,
        test: None,
        likely_best: None,
    })
}

/// `report` with the test `request` asks answered from it, where its
/// bounds decide it (a probe, a value known before, bounds that settle it).
pub(crate) fn with_test_decided(request: &Request, mut report: Report) -> Report {
    if let RootTests::AtLeast(at_least) = request.tests {
        let Bounded { lower, upper } = report.analysis.value;
        report.test = report.test.or(if lower >= at_least {
            Some(TestOutcome { at_least, holds: true, bound: lower })
        } else if upper < at_least {
            Some(TestOutcome { at_least, holds: false, bound: upper })
        } else {
            None
        });
    }
    report
}
