//! A search's journal (issue 37) holds only true bounds: every entry a
//! search records contains the board's value by retrograde analysis (an
//! independent engine), for the exact search and for clockwise proofs of
//! bounds; a search loaded with an earlier one's entries gives the same
//! answers with fewer nodes.

use std::sync::Arc;

use kalah_core::{Capture, Position, Rules, Sowing};
use kalah_db::{Builder, NoTablebase, Quiet};
use kalah_search::{BoundSolver, Journal, Solver};

#[allow(dead_code)]
mod common;
use common::options;

fn built(h: usize, rules: Rules, seeds: u32) -> Builder {
    let mut b = Builder::new(h, rules, seeds).unwrap();
    b.build_all(&Quiet);
    b
}

/// Every entry of `journal` holds the exact value `exact` gives its board.
fn check_entries(journal: &Journal, exact: &Builder, what: &str) {
    assert!(journal.len() > 10, "{what}: only {} entries", journal.len());
    for kalah_search::Entry { board, lower, upper, .. } in journal.entries() {
        let v = exact.value(board);
        assert!(lower <= v && v <= upper, "{what}: {board:?} has value {v}, the journal says {lower}..{upper}");
    }
}

#[test]
fn the_journal_of_an_exact_search_holds_true_bounds_and_resumes_it() {
    for capture in [Capture::Standard, Capture::Empty] {
        let rules = Rules { capture, ..Rules::default() };
        let exact = built(4, rules, 24);
        let start = Position::start(4, 3).unwrap();
        let mut first = Solver::new(4, rules, NoTablebase { houses: 4, rules }, options()).unwrap();
        let journal = Arc::new(Journal::new(100));
        first.journal_with(journal.clone());
        let whole = first.analyze(&start, true, true).unwrap();
        assert_eq!(whole.value, exact.value(start.mover_board()), "{rules}");
        check_entries(&journal, &exact, &format!("{rules}"));

        // A new search (a new table) with the entries, as a resumed run has them.
        let kept = Journal::with_entries(100, journal.entries(), journal.tests()).unwrap();
        let mut second = Solver::new(4, rules, NoTablebase { houses: 4, rules }, options()).unwrap();
        second.journal_with(Arc::new(kept));
        let again = second.analyze(&start, true, true).unwrap();
        assert_eq!(again.value, whole.value);
        assert_eq!(again.moves, whole.moves, "{rules}: every move's value");
        assert!(second.nodes() * 4 < first.nodes(), "{rules}: {} nodes resumed, {} at first", second.nodes(), first.nodes());

        // The value alone: each root test's result is kept (the root's own
        // bounds), so a resumed run tests nothing again.
        let mut third = Solver::new(4, rules, NoTablebase { houses: 4, rules }, options()).unwrap();
        let journal = Arc::new(Journal::new(100));
        third.journal_with(journal.clone());
        assert_eq!(third.analyze(&start, false, false).unwrap().value, whole.value);
        assert_eq!(journal.bounds(start.mover_board()), Some((whole.value, whole.value)), "{rules}: the root's value is kept");
    }
}

#[test]
fn the_journal_of_clockwise_proofs_holds_true_bounds() {
    let rules = Rules { sowing: Sowing::Cw, ..Rules::default() };
    let exact = built(3, rules, 18);
    let start = Position::start(3, 3).unwrap();
    let mut solver = BoundSolver::new(3, rules, NoTablebase { houses: 3, rules }, options()).unwrap();
    let journal = Arc::new(Journal::new(50));
    solver.journal_with(journal.clone());
    let b = solver.bounds_to_depth(&start, 60).unwrap();
    let v = exact.value(start.mover_board());
    assert!(b.lower <= v && v <= b.upper, "{b:?} against {v}");
    check_entries(&journal, &exact, "clockwise");
}

fn entry(board: kalah_core::Board, lower: i32, upper: i32) -> kalah_search::Entry {
    kalah_search::Entry { board, lower, upper, best: 0 }
}

#[test]
fn contradicting_entries_are_refused() {
    let board = Position::start(4, 3).unwrap().mover_board();
    assert!(Journal::with_entries(1, [entry(board, 2, 1)], []).is_none());
    assert!(Journal::with_entries(1, [entry(board, 0, 4), entry(board, 6, 8)], []).is_none());
    let j = Journal::with_entries(1, [entry(board, 0, i32::MAX), entry(board, i32::MIN, 4)], []).unwrap();
    assert_eq!(j.bounds(board), Some((0, 4)), "two one-sided entries of a board make one");
    assert_eq!(j.changes(), 0, "what was loaded is not a change to write");
}
