//! The database builder and the alpha-beta search are independent engines:
//! on random boards they must give the same values.

use kalah_core::{Capture, Position, Rules, Side};
use kalah_db::{Builder, NoTablebase, Quiet};
use kalah_search::{SearchOptions, Solver};

mod common;
use common::{options, options_for, random_board, Rng};

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

/// Unary table keys exactly where the asked table is smaller than the
/// fields' keys need and unary keys cover the boards; the table as asked then.
#[test]
fn a_small_table_takes_unary_keys_where_they_cover_the_boards() {
    let options = |mib: usize, max_seeds| SearchOptions { threads: 1, tt_bytes: mib << 20, max_seeds };
    // (houses, MiB asked, most seeds, unary, MiB made)
    let cases = [
        (6, 64, Some(48), true, 64),      // 48 + 11 bits: the widest 64 MiB holds (39 + 20)
        (6, 32, Some(48), false, 128),    // 59 bits do not fit 32 MiB's 58: the fields' 128 MiB
        (6, 64, None, false, 128),        // seeds not given: the fields
        (6, 256, Some(48), false, 256),   // large enough for the fields
        (8, 16, Some(16), true, 16),      // Kalah(8,1): 16 MiB, not 2 GiB
        (8, 1024, Some(64), false, 2048), // Kalah(8,4): 79 bits are too many
        (4, 1, Some(48), false, 1),       // four houses' fields need 32 KiB
    ];
    for (h, mib, max_seeds, unary, made) in cases {
        let o = options(mib, max_seeds);
        assert_eq!(o.keys(h).is_unary(), unary, "{h} houses, {mib} MiB, {max_seeds:?}");
        assert_eq!(o.table_bytes(h), made << 20, "{h} houses, {mib} MiB, {max_seeds:?}");
    }
    // Seven houses: unary keys in 1 MiB against the fields' 8 MiB, on the
    // starts of Kalah(7,1) and Kalah(7,2) and on random boards of up to 28 seeds.
    let rules = Rules::default();
    let table = || NoTablebase { houses: 7, rules };
    let unary = Solver::new(7, rules, table(), options(1, Some(28))).unwrap();
    let fields = Solver::new(7, rules, table(), options(1, None)).unwrap();
    assert_eq!((unary.tt_bytes(), fields.tt_bytes()), (1 << 20, 8 << 20));
    let mut rng = Rng(0x5851f42d4c957f2d);
    let mut positions = vec![Position::start(7, 1).unwrap(), Position::start(7, 2).unwrap()];
    for _ in 0..10 {
        let seeds = 10 + rng.below(19) as u32;
        let board = random_board(&mut rng, 7, seeds);
        positions.push(Position::from_mover_board(7, board, Side::South, [0, 0]).unwrap());
    }
    for p in &positions {
        let a = unary.analyze(p, false, false).unwrap().value;
        let b = fields.analyze(p, false, false).unwrap().value;
        assert_eq!(a, b, "{}", p.ring());
    }
}

#[test]
fn random_boards_agree_for_every_counter_clockwise_rule_set() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for rules in Rules::all().filter(|r| !r.may_cycle()) {
        for h in [3usize, 5] {
            let max = if h == 3 { 14 } else { 9 };
            let mut builder = Builder::new(h, rules, max).unwrap();
            builder.build_all(&Quiet);
            // Five houses: unary table keys (16 MiB, where their fixed fields need 128).
            let solver = Solver::new(h, rules, NoTablebase { houses: h, rules }, options_for(max)).unwrap();
            assert_eq!(solver.tt_bytes(), 16 << 20, "h={h}");
            for _ in 0..40 {
                let seeds = 1 + rng.below(max as u64) as u32;
                let board = random_board(&mut rng, h, seeds);
                let position = Position::from_mover_board(h, board, Side::South, [0, 0]).unwrap();
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
            let position = Position::from_mover_board(h, board, Side::South, [0, 0]).unwrap();
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
        let position = Position::from_mover_board(5, board, Side::South, [0, 0]).unwrap();
        let value = truth.value(board);
        // Stopped at once first, before the table knows the board.
        let cut = solver.bounds_within(&position, std::time::Instant::now()).unwrap();
        assert!(cut.lower <= value && value <= cut.upper, "{cut:?} for value {value}, board {board:?}");
        let later = std::time::Instant::now() + std::time::Duration::from_secs(600);
        let exact = solver.bounds_within(&position, later).unwrap();
        assert_eq!((exact.lower, exact.upper), (value, value), "board {board:?}");
    }
}
