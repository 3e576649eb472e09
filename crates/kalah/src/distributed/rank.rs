//! One rank's search of a shared search, set up by the library as one
//! process sets up its own ([`prepare`]).

use std::sync::Arc;

use kalah_search::Solver;

use crate::answer::request::Request;
use crate::answer::setup::{search_table, solver_over, Setup};
use crate::answer::sizes::check_tables_memory;
use crate::answer::table::Table;
use crate::databases::{for_search_by, Databases, Purpose, SetupBudget, ANALYSIS_LOAD_GAP};
use crate::error::{Error, Field, Result};
use crate::progress::Observer;
use crate::report::UsedDatabase;

/// One rank's part of a shared search ([`prepare`]): its solver, and the
/// database it reads as the answer names it.
#[derive(Debug)]
pub struct RankSearch {
    /// The rank's solver: its threads, transposition table and database.
    pub solver: Solver<Table>,
    /// The database file it reads, if any.
    pub database: Option<UsedDatabase>,
}

/// The search of one rank of a shared search of `request`'s position, set
/// up as one process sets up its own search of every move's value: the
/// file `request` names, else the one `databases` chooses (none is built
/// in memory), copied into memory where the `ranks_here` ranks of this
/// machine can each hold a copy, else used mapped and shared between them;
/// the default table for the position and that database, or the size
/// asked, refused when the tables of those ranks do not fit in memory
/// together. Clockwise sowing (retrograde analysis, in one process) and a
/// database built in memory are refused. `observer` hears of a file passed
/// over.
pub fn prepare(databases: &Databases, request: &Request, ranks_here: usize, observer: &dyn Observer) -> Result<RankSearch> {
    request.check()?;
    let (position, rules) = (&request.position, request.rules);
    if rules.may_cycle() {
        return Err(Error::refused(
            "clockwise sowing is solved by retrograde analysis in memory, which a shared search does not do: search it in one process",
        ));
    }
    if request.db.build_seeds.is_some_and(|n| n > 0) {
        return Err(Error::refused("a database built in memory is not shared by the ranks of a search: build a database file and name it")
            .about(Field::DbSeeds));
    }
    let (h, seeds) = (position.houses(), position.seeds_in_houses());
    let setup = Setup::beyond_one(request, observer);
    let engine = setup.engine;
    let purpose = Purpose { houses: h, rules, seeds, gap: ANALYSIS_LOAD_GAP };
    let file = databases.open_for(setup.spec, purpose, SetupBudget::UNLIMITED, observer)?;
    let database = file.as_ref().map(UsedDatabase::file);
    let options = setup.search_options(seeds, database.as_ref().map(|d| d.max_seeds));
    let table = search_table(engine, None, file, |d| Ok(Arc::new(for_search_by(d, ranks_here, request.threads)?)))?;
    // Checked with the database in memory: what is available is what is left.
    check_tables_memory(options.reserved_bytes(h) as u64, ranks_here)?;
    Ok(RankSearch { solver: solver_over(engine, table, options)?, database })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distributed::report::report;
    use crate::distributed::workers::tests::shared_by;
    use kalah_core::{Capture, Position, Rules};

    /// Ranks set up by the library over the folder's database answer as
    /// one process does, and say which database they read; what a shared
    /// search does not do is refused.
    #[test]
    fn prepared_ranks_answer_as_one_process() {
        let dir = tempfile::tempdir().unwrap();
        let databases = Databases::new(dir.path());
        let rules = Rules { capture: Capture::Empty, ..Rules::default() };
        kalah_db::build_file(&databases.path_for(4, 10, rules), 4, rules, 10, &kalah_db::Quiet).unwrap();
        let request = Request { threads: 1, want: crate::answer::request::Want::Moves, ..Request::new(Position::start(4, 3).unwrap(), rules) };
        let ranks: Vec<RankSearch> = (0..2).map(|_| prepare(&databases, &request, 2, &crate::progress::Silent).unwrap()).collect();
        let database = ranks[0].database.clone();
        assert_eq!(database.as_ref().map(|d| d.max_seeds), Some(10));
        let solvers: Vec<Solver<Table>> = ranks.into_iter().map(|r| r.solver).collect();
        let (tree, stats) = shared_by(&solvers, &request.position, 8, true);
        let answer = report(&tree, &stats, &request, database, 1.0).unwrap();
        let one = crate::answer::analyzer::Analyzer::new(databases.clone())
            .analyze(&Request { book: false, ..request.clone() }, &crate::progress::Silent)
            .unwrap();
        assert_eq!(answer.report.value(), one.value());
        assert_eq!(answer.report.analysis.moves, one.analysis.moves);
        assert_eq!((answer.distributed.ranks, answer.distributed.threads_per_rank), (2, 1));
        let value_only = report(&tree, &stats, &Request { want: crate::answer::request::Want::Value, ..request.clone() }, None, 1.0).unwrap();
        assert!(value_only.report.analysis.moves.is_empty());
        // Clockwise sowing, and a database built in memory, are one process's.
        let cw = Request { rules: Rules { sowing: kalah_core::Sowing::Cw, ..rules }, ..request.clone() };
        assert_eq!(prepare(&databases, &cw, 1, &crate::progress::Silent).unwrap_err().kind(), crate::error::ErrorKind::Refused);
        let built = Request { db: crate::databases::DbSpec { build_seeds: Some(8), ..Default::default() }, ..request.clone() };
        assert_eq!(prepare(&databases, &built, 1, &crate::progress::Silent).unwrap_err().field(), Some(Field::DbSeeds));
    }
}
