//! The database builder and the alpha-beta search are independent engines:
//! on random boards they must give the same values.

use kalah_core::{Capture, Position, Rules, Side};
use kalah_db::{Builder, NoTablebase, Quiet, Tablebase};
use kalah_search::Solver;

mod common;
use common::{options, random_board, Rng};

#[test]
fn kalah_4_3_from_the_database_and_from_search() {
    let rules = Rules { capture: Capture::Empty, ..Rules::default() };
    let mut builder = Builder::new(4, rules, 24).unwrap();
    builder.build_all(&Quiet);
    let start = Position::start(4, 3).unwrap();
    assert_eq!(builder.value(start.mover_board()), 8, "published: Kalah(4,3) = +8");
    let solver = Solver::new(4, rules, NoTablebase { houses: 4, rules }, options()).unwrap();
    assert_eq!(solver.analyze(&start, false, false).unwrap().value, 8);
}

#[test]
fn random_boards_agree_for_every_counter_clockwise_rule_set() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for rules in Rules::all().filter(|r| !r.may_cycle()) {
        for h in [3usize, 5] {
            let max = if h == 3 { 14 } else { 9 };
            let mut builder = Builder::new(h, rules, max).unwrap();
            builder.build_all(&Quiet);
            let solver = Solver::new(h, rules, NoTablebase { houses: h, rules }, options()).unwrap();
            for _ in 0..40 {
                let seeds = 1 + rng.below(max as u64) as u32;
                let board = random_board(&mut rng, h, seeds);
                let position = Position::from_mover_board(h, board, Side::South, [0, 0]);
                let searched = solver.analyze(&position, false, false).unwrap().value;
                assert_eq!(builder.value(board), searched, "{rules} h={h} board {board:?}");
            }
        }
    }
}

/// A search backed by a small database, of boards above it (some searched
/// with the transposition table, some too near the database for it),
/// against a database that covers them.
#[test]
fn searches_backed_by_a_database_agree_with_a_larger_database() {
    let mut rng = Rng(0x2545f4914f6cdd1d);
    for rules in Rules::all().filter(|r| !r.may_cycle()) {
        let (h, small, large) = (4usize, 6u32, 22u32);
        let mut truth = Builder::new(h, rules, large).unwrap();
        truth.build_all(&Quiet);
        let mut backing = Builder::new(h, rules, small).unwrap();
        backing.build_all(&Quiet);
        let solver = Solver::new(h, rules, backing, options()).unwrap();
        // Twelve boards anywhere above the small database, and six near the
        // top, whose exact searches are large enough to split (iterative
        // deepening never splits).
        for i in 0..18 {
            let seeds = if i < 12 { small + 1 + rng.below((large - small) as u64) as u32 } else { large - rng.below(4) as u32 };
            let board = random_board(&mut rng, h, seeds);
            let position = Position::from_mover_board(h, board, Side::South, [0, 0]);
            let searched = solver.analyze(&position, false, false).unwrap().value;
            assert_eq!(truth.value(board), searched, "{rules} board {board:?} with a {small}-seed database");
        }
        // Two threads: the values above came through nodes split between them.
        assert!(solver.stats().splits > 0, "{rules}: no node was split");
    }
}

/// Budgeted searches: with time to spare the bounds meet at the value;
/// stopped at once they still contain it.
#[test]
fn bounds_within_a_budget_contain_the_value() {
    let rules = Rules { capture: Capture::Standard, ..Rules::default() };
    let mut truth = Builder::new(5, rules, 16).unwrap();
    truth.build_all(&Quiet);
    let solver = Solver::new(5, rules, NoTablebase { houses: 5, rules }, options()).unwrap();
    let mut rng = Rng(0x853c49e6748fea9b);
    for _ in 0..20 {
        let seeds = 8 + rng.below(9) as u32;
        let board = random_board(&mut rng, 5, seeds);
        let position = Position::from_mover_board(5, board, Side::South, [0, 0]);
        let value = truth.value(board);
        // Stopped at once first, before the table knows the board.
        let cut = solver.bounds_within(&position, std::time::Instant::now()).unwrap();
        assert!(cut.lower <= value && value <= cut.upper, "{cut:?} for value {value}, board {board:?}");
        let later = std::time::Instant::now() + std::time::Duration::from_secs(600);
        let exact = solver.bounds_within(&position, later).unwrap();
        assert_eq!((exact.lower, exact.upper), (value, value), "board {board:?}");
    }
}
