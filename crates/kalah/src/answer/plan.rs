//! How a position is answered: the one plan that every question goes
//! through, whichever door asked it (the [`Analyzer`](crate::Analyzer)
//! behind `kalah solve`, `query`, `engine`, `serve` and Python; the
//! openings and seed shifts of [`crate::answer::oracle`]; a game's
//! [`player`](crate::answer::player)).
//!
//! # The steps, in order
//!
//! 1. **At once** ([`at_once`]), with no database and no search: a
//!    finished game (the rules give its value), then a position of the
//!    opening book, then what this project has proven and ships
//!    ([`crate::memory::proven`]: the strong solutions' start values,
//!    Kalah(6,6) under empty capture) where it answers what is asked; then,
//!    for a request that remembers ([`crate::Memory`]), an exact answer
//!    kept in the folder ([`crate::answers`]). What is proven narrows the
//!    answer of the steps below, where they give bounds.
//! 2. **Probes** of a database that covers the position with exact values:
//!    the file chosen ([`crate::databases`]: the one named, else the
//!    folder's choice). A file in a window encoding, which holds bounds
//!    for the values outside its windows, covers it for step 5 instead.
//! 3. **Bounds** proven within a time limit by searches to growing depths
//!    over a smaller database: clockwise sowing (play can be endless)
//!    where retrograde analysis of every board up to the position's seeds
//!    does not fit in memory or would take longer than the time limit, or
//!    a smaller database is asked for ([`proves_bounds`]).
//! 4. **Retrograde analysis** of every board up to the position's seeds
//!    in memory: clockwise sowing otherwise.
//! 5. **A search** over the file, else over a database built in memory
//!    first ([`Setup::memory_seeds`] sizes it), else over none; where the
//!    one built in memory covers the position, probes of it instead.
//!
//! [`step`] says what to do for a position in steps 2-5: a step to take,
//! or a database to build in memory first, after which [`built`] gives
//! the step. Each caller wraps what it gets (a report, an oracle of many
//! positions, a player's brain) and chooses only how a file is opened and
//! kept, and where a database built in memory comes from. Every table a search or a
//! probe reads is a [`Table`], so one solver type serves every source.

use std::sync::Arc;
use std::time::Instant;

use kalah_core::{Engine, Position, Rules};
use kalah_db::{Builder, Database};
use kalah_search::{Bounded, BoundedAnalysis, LineEnd};

use crate::answer::request::Want;
use crate::answer::setup::Setup;
use crate::answer::sizes::proves_bounds;
pub use crate::answer::table::Table;
use crate::databases::DbSpec;
use crate::error::Result;
use crate::memory::book::Book;
use crate::report::{Report, Source};

/// Step 1: what needs neither a database nor a search. A finished game
/// (the rules give its value), then a position of `book` (if any): every
/// move's value and the line, cut to what was asked (`want`), as a search
/// would answer; then, with `proven`, what this project has proven and
/// ships ([`crate::memory::proven`]) where it answers what was asked
/// exactly. `None` for the other steps.
pub fn at_once(book: Option<&Book>, proven: bool, position: &Position, rules: Rules, want: Want) -> Option<Report> {
    let start = Instant::now();
    let engine = Engine::shared(position.houses(), rules);
    let base = position.store_difference();
    let (analysis, source, best) = if let Some(v) = engine.terminal_value(position.mover_board()) {
        let value = Bounded { lower: base + v, upper: base + v };
        (BoundedAnalysis { value, moves: Vec::new(), pv: Vec::new(), end: LineEnd::GameOver }, Source::GameOver, None)
    } else if let Some(entry) = book.and_then(|b| b.lookup(rules, position)) {
        let analysis = entry.analysis(engine, position);
        let best = analysis.pv.first().map(|m| m.house);
        (analysis, Source::Book, best)
    } else {
        let proven = crate::memory::proven::lookup(position, rules).filter(|_| proven)?;
        // No line is proven: a request for one is not answered from it.
        let best = proven.best_move();
        let analysis = match want {
            Want::Value => proven.analysis(position, false)?,
            Want::BestMove => proven.analysis(position, false).filter(|_| best.is_some())?,
            Want::Moves => proven.analysis(position, true)?,
            Want::MovesAndLine => return None,
        };
        (analysis, Source::Proven, best)
    };
    let best_found = if want.best_alone() { best } else { None };
    let analysis = BoundedAnalysis {
        moves: if want.moves() { analysis.moves } else { Vec::new() },
        pv: if want.line() { analysis.pv } else { Vec::new() },
        ..analysis
    };
    Some(Report {
        position: *position,
        rules,
        analysis,
        source,
        nodes: 0,
        seconds: start.elapsed().as_secs_f64(),
        database: None,
        best_found,
        journal: None,
        test: None,
        likely_best: None,
    })
}

/// Steps 2-5 for a position of `seeds` seeds (in its houses).
#[derive(Debug)]
pub enum Step {
    /// Probes of `0`, which covers the position: the file, or the
    /// database built in memory for it.
    Probe(Table),
    /// Bounds proven in time, over the file given (if any) or a database
    /// [`Setup::bound_solver`] builds.
    Bounds(Option<Database>),
    /// Retrograde analysis of every board up to the position's seeds; a
    /// file found is `unused` (the caller may say so).
    Retrograde {
        /// The file found, not needed.
        unused: Option<Database>,
    },
    /// A search over the database built in memory, else the file (which
    /// the caller loads as it keeps files), else none.
    Search {
        /// The database built in memory.
        memory: Option<Arc<Builder>>,
        /// The file, when nothing was built.
        file: Option<Database>,
    },
}

/// What the plan says to do next for a position: take a step, or first
/// build a database in memory (the caller builds it, or takes it from
/// what it keeps, and asks [`built`] for the step).
#[derive(Debug)]
pub enum Plan {
    /// The step that answers the position.
    Take(Step),
    /// Build the database of every board up to `seeds` seeds in memory
    /// ([`Setup::memory_seeds`] sized it), beside `file`, then take the
    /// step [`built`] gives.
    Build {
        /// The seeds of the database to build.
        seeds: u32,
        /// The file chosen for the position (it does not cover it).
        file: Option<Database>,
    },
}

/// What to do for a position of `seeds` seeds under `setup`, with
/// `file`, the database file chosen for it (if any).
pub fn step(setup: &Setup<'_>, seeds: u32, file: Option<Database>) -> Result<Plan> {
    let (h, rules) = (setup.engine.houses(), setup.engine.rules());
    let file = match file {
        Some(d) if seeds <= d.header().max_seeds && d.is_exact() => return Ok(Plan::Take(Step::Probe(Table::File(Arc::new(d))))),
        // A window encoding holds bounds for some values: a search over it.
        Some(d) if seeds <= d.header().max_seeds && !rules.may_cycle() => return Ok(Plan::Take(Step::Search { memory: None, file: Some(d) })),
        file => file,
    };
    if proves_bounds(h, seeds, rules, setup.spec, setup.budget) {
        return Ok(Plan::Take(Step::Bounds(file)));
    }
    if rules.may_cycle() {
        return Ok(Plan::Take(Step::Retrograde { unused: file }));
    }
    Ok(match setup.memory_seeds(seeds, file.as_ref())? {
        Some(n) => Plan::Build { seeds: n, file },
        None => Plan::Take(Step::Search { memory: None, file }),
    })
}

/// The step after [`Plan::Build`] for a position of `seeds` seeds:
/// probes of `memory`, the database built, where it covers the position,
/// else a search over it; without one (a build a cancel flag stopped), a
/// search over `file`.
pub fn built(seeds: u32, memory: Option<Arc<Builder>>, file: Option<Database>) -> Step {
    match memory {
        Some(b) if b.indexer().max_seeds() >= seeds => Step::Probe(Table::Memory(b)),
        Some(b) => Step::Search { memory: Some(b), file: None },
        None => Step::Search { memory: None, file },
    }
}

/// `spec` for a position of `seeds` seeds on `h` houses under `rules`
/// whose retrograde analysis may solve at most `limit` boards: a
/// clockwise position beyond it gets a database of fewer seeds, at most
/// `limit` boards, so that step 3 proves bounds over it in time instead
/// (unless a file covers the position, which step 2 probes first).
pub fn within_retrograde(spec: &DbSpec, h: usize, seeds: u32, rules: Rules, limit: Option<u64>) -> DbSpec {
    let Some(limit) = limit else {
        return spec.clone();
    };
    if !rules.may_cycle() || spec.build_seeds.is_some() || spec.is_none() || kalah_core::boards_up_to(h, seeds) <= limit {
        return spec.clone();
    }
    let n = (1..seeds).rev().find(|&n| kalah_core::boards_up_to(h, n) <= limit).unwrap_or(0);
    DbSpec { build_seeds: Some(n), ..spec.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::sizes::SearchWork;
    use crate::databases::DbSpec;
    use crate::databases::SetupBudget;
    use crate::progress::Silent;

    fn setup<'a>(engine: &'a Engine, spec: &'a DbSpec) -> Setup<'a> {
        Setup { engine, spec, threads: 1, tt_mb: Some(16), budget: SetupBudget::UNLIMITED, work: SearchWork::Value, observer: &Silent, cancel: None }
    }

    /// A file that covers the position is probed, one that does not backs
    /// a search; a database built in memory that covers it is probed.
    #[test]
    fn the_steps_follow_the_ladder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("kalah-h3-n8.kdb");
        kalah_db::build_file(&file, 3, Rules::default(), 8, &kalah_db::Quiet).unwrap();
        let engine = Engine::new(3, Rules::default());
        let spec = DbSpec::default();
        let s = setup(&engine, &spec);
        let open = || Some(Database::open_for(&file, 3, Rules::default()).unwrap());
        assert!(matches!(step(&s, 8, open()).unwrap(), Plan::Take(Step::Probe(Table::File(_)))));
        assert!(matches!(step(&s, 9, open()).unwrap(), Plan::Take(Step::Search { memory: None, file: Some(_) })));
        assert!(matches!(step(&s, 9, None).unwrap(), Plan::Take(Step::Search { memory: None, file: None })));
        // A database built in memory: asked for, probed where it covers.
        let asked = |n| DbSpec { build_seeds: Some(n), ..DbSpec::default() };
        let (nine, six) = (asked(9), asked(6));
        assert!(matches!(step(&setup(&engine, &nine), 9, None).unwrap(), Plan::Build { seeds: 9, file: None }));
        assert!(
            matches!(step(&setup(&engine, &six), 12, open()).unwrap(), Plan::Take(Step::Search { memory: None, file: Some(_) })),
            "the file covers the size asked"
        );
        assert!(matches!(step(&setup(&engine, &asked(10)), 12, open()).unwrap(), Plan::Build { seeds: 10, file: Some(_) }));
        let build = |n| Some(Arc::new(s.build(n).unwrap()));
        assert!(matches!(built(9, build(9), None), Step::Probe(Table::Memory(_))));
        assert!(matches!(built(12, build(6), open()), Step::Search { memory: Some(_), file: None }));
        assert!(matches!(built(12, None, open()), Step::Search { memory: None, file: Some(_) }), "a build stopped: the file");
        // Clockwise: retrograde analysis where it fits, the file unused.
        let clockwise = Rules { sowing: kalah_core::Sowing::Cw, ..Rules::default() };
        let engine = Engine::new(3, clockwise);
        let s = setup(&engine, &spec);
        assert!(matches!(step(&s, 9, None).unwrap(), Plan::Take(Step::Retrograde { unused: None })));
        let smaller = DbSpec { build_seeds: Some(4), ..DbSpec::default() };
        let s = setup(&engine, &smaller);
        assert!(matches!(step(&s, 9, None).unwrap(), Plan::Take(Step::Bounds(None))));
    }

    /// A cap on retrograde analysis gives a clockwise position beyond it a
    /// database of at most that many boards; other positions keep theirs.
    #[test]
    fn a_cap_on_retrograde_analysis_asks_for_a_smaller_database() {
        let cw = Rules { sowing: kalah_core::Sowing::Cw, ..Rules::default() };
        let spec = DbSpec::default();
        let capped = within_retrograde(&spec, 6, 36, cw, Some(5_000_000));
        let n = capped.build_seeds.expect("a smaller database");
        assert!(kalah_core::boards_up_to(6, n) <= 5_000_000 && kalah_core::boards_up_to(6, n + 1) > 5_000_000);
        assert_eq!(within_retrograde(&spec, 6, 36, cw, None), spec, "no cap");
        assert_eq!(within_retrograde(&spec, 6, 36, Rules::default(), Some(5)), spec, "counter-clockwise");
        assert_eq!(within_retrograde(&spec, 3, 6, cw, Some(5_000_000)), spec, "small enough");
        let asked = DbSpec { build_seeds: Some(4), ..spec.clone() };
        assert_eq!(within_retrograde(&asked, 6, 36, cw, Some(5_000_000)), asked, "a size asked for stays");
    }

    /// A finished game is answered at once, with no book; a live one
    /// without a book is not.
    #[test]
    fn a_finished_game_is_answered_at_once() {
        let over: Position = "0,0,0,5,1,2,3,3 S".parse().unwrap();
        let report = at_once(None, false, &over, Rules::default(), Want::MovesAndLine).expect("over");
        assert_eq!(report.source, Source::GameOver);
        assert_eq!(report.value(), Some(5 - (3 + 6)), "North keeps its 6 seeds");
        assert!(at_once(None, false, &Position::start(3, 3).unwrap(), Rules::default(), Want::MovesAndLine).is_none());
    }
}
