//! `BoundSolver` proves bounds by depth-limited searches, clockwise sowing
//! (endless play) included. Checked against retrograde analysis, an
//! independent engine that has the exact value of every board: every
//! bound proven must hold, and deep enough searches must find most values.
//! From issue 4 (clockwise starts too large for retrograde analysis show
//! proven bounds, not blanks).

use kalah_core::{Position, Rules, Side};
use kalah_db::{Builder, NoTablebase, Quiet, Tablebase};
use kalah_search::BoundSolver;

mod common;
use common::{options, random_board, Rng};

/// For `boards` random boards of `h` houses with more seeds than `small`
/// covers and at most what `exact` covers: the bounds proven at each of
/// `depths` hold. Returns how many were exact at the last depth.
fn check<T: Tablebase>(h: usize, rules: Rules, exact: &Builder, small: T, boards: usize, depths: &[u32], rng: &mut Rng) -> usize {
    let max = exact.indexer().max_seeds();
    let least = small.max_seeds().map_or(1, |m| m + 1);
    let solver = BoundSolver::new(h, rules, small, options()).unwrap();
    let mut found = 0;
    for _ in 0..boards {
        let seeds = least + rng.below((max - least + 1) as u64) as u32;
        let board = random_board(rng, h, seeds);
        let position = Position::from_mover_board(h, board, Side::South, [0, 0]);
        let value = exact.value(board);
        for &depth in depths {
            let b = solver.bounds_to_depth(&position, depth).unwrap();
            assert!(
                b.lower <= value && value <= b.upper,
                "{rules} h={h} board {board:?}: value {value}, proven {}..{} at depth {depth}",
                b.lower,
                b.upper
            );
            if depth == depths[depths.len() - 1] && b.is_exact() {
                found += 1;
            }
        }
    }
    found
}

#[test]
fn clockwise_bounds_hold_and_close_in() {
    let mut rng = Rng(0x2545f4914f6cdd1d);
    let (mut found, mut total) = (0, 0);
    for rules in Rules::all().filter(|r| r.may_cycle()) {
        let h = 3;
        let mut exact = Builder::new(h, rules, 12).unwrap();
        exact.build_all(&Quiet);
        // Backed by a small database of the same rules, and by none.
        let mut small = Builder::new(h, rules, 4).unwrap();
        small.build_all(&Quiet);
        found += check(h, rules, &exact, small, 12, &[2, 6, 40], &mut rng);
        found += check(h, rules, &exact, NoTablebase { houses: h, rules }, 6, &[3, 40], &mut rng);
        total += 18;
    }
    // Endless best play keeps some bounds apart; most must meet.
    assert!(found * 2 > total, "only {found} of {total} clockwise values found exactly");
}

#[test]
fn counter_clockwise_bounds_meet_at_the_value() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for rules in Rules::all().filter(|r| !r.may_cycle()) {
        let h = 3;
        let mut exact = Builder::new(h, rules, 12).unwrap();
        exact.build_all(&Quiet);
        let mut small = Builder::new(h, rules, 4).unwrap();
        small.build_all(&Quiet);
        // Counter-clockwise play always ends: deep enough, every bound meets.
        assert_eq!(check(h, rules, &exact, small, 8, &[4, 200], &mut rng), 8, "{rules}");
    }
}

/// Clockwise Kalah(3,3) (18 seeds) over a 12-seed database: the value
/// retrograde analysis of every board gives.
#[test]
fn clockwise_kalah_3_3_from_a_smaller_database() {
    for rules in Rules::all().filter(|r| r.may_cycle()) {
        let mut exact = Builder::new(3, rules, 18).unwrap();
        exact.build_all(&Quiet);
        let start = Position::start(3, 3).unwrap();
        let value = exact.value(start.mover_board());
        let mut small = Builder::new(3, rules, 12).unwrap();
        small.build_all(&Quiet);
        let b = BoundSolver::new(3, rules, small, options()).unwrap().bounds_to_depth(&start, 60).unwrap();
        // Best play ends within 60 plies under every rule set: the bounds meet.
        assert_eq!((b.lower, b.upper), (value, value), "{rules}: Kalah(3,3) = {value}, proven {}..{}", b.lower, b.upper);
    }
}
