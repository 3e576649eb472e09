//! `BoundSolver` proves bounds by depth-limited searches, clockwise sowing
//! (endless play) included. Checked against retrograde analysis, an
//! independent engine that has the exact value of every board: every
//! bound proven must hold, and deep enough searches must find most values.
//! From issue 4 (clockwise starts too large for retrograde analysis show
//! proven bounds, not blanks).

use kalah_core::{Board, Engine, Next, Position, Rules, Side};
use kalah_db::{Builder, NoTablebase, Quiet, Tablebase};
use kalah_search::{BoundSolver, LineEnd};

mod common;
use common::{options, random_board, Rng};

/// Every board of `h` houses with up to `seeds` seeds, solved (retrograde
/// analysis where play can cycle).
fn built(h: usize, rules: Rules, seeds: u32) -> Builder {
    let mut b = Builder::new(h, rules, seeds).unwrap();
    b.build_all(&Quiet);
    b
}

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
        let position = Position::from_mover_board(h, board, Side::South, [0, 0]).unwrap();
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
        let exact = built(h, rules, 12);
        // Backed by a small database of the same rules, and by none.
        let small = built(h, rules, 4);
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
        let exact = built(h, rules, 12);
        let small = built(h, rules, 4);
        // Counter-clockwise play always ends: deep enough, every bound meets.
        assert_eq!(check(h, rules, &exact, small, 8, &[4, 200], &mut rng), 8, "{rules}");
    }
}

/// Clockwise Kalah(3,3) (18 seeds) over a 12-seed database: the value
/// retrograde analysis of every board gives.
#[test]
fn clockwise_kalah_3_3_from_a_smaller_database() {
    for rules in Rules::all().filter(|r| r.may_cycle()) {
        let exact = built(3, rules, 18);
        let start = Position::start(3, 3).unwrap();
        let value = exact.value(start.mover_board());
        let small = built(3, rules, 12);
        let b = BoundSolver::new(3, rules, small, options()).unwrap().bounds_to_depth(&start, 60).unwrap();
        // Best play ends within 60 plies under every rule set: the bounds meet.
        assert_eq!((b.lower, b.upper), (value, value), "{rules}: Kalah(3,3) = {value}, proven {}..{}", b.lower, b.upper);
    }
}

/// The exact value of move `house` (0-based) of `board` for its mover.
fn exact_move_value(engine: &Engine, exact: &Builder, board: Board, house: usize) -> i32 {
    let o = engine.play(board, house);
    match o.next {
        Next::Over => o.gain(),
        _ => o.value_with(exact.value(o.board)),
    }
}

/// `BoundSolver::analyze_to_depth` on random clockwise boards of 3 houses
/// over a 4-seed database: the bounds on the value and on every move's
/// hold against retrograde analysis, and where the value is exact, every
/// move of the principal variation keeps it (a line of best play) and the
/// line ends as it says: with the game, or at a board seen before on it
/// with nothing left to win (endless), or cut short.
#[test]
fn clockwise_analysis_moves_and_lines_are_best_play() {
    let mut rng = Rng(0xd1b54a32d192ed03);
    let mut counts = [0; 3];
    for rules in Rules::all().filter(|r| r.may_cycle()) {
        let h = 3;
        let exact = built(h, rules, 12);
        let small = built(h, rules, 4);
        // Over a small database, and over none: the line must then find its own way to the end.
        for (i, n) in check_analysis(h, rules, &exact, small, 6, &mut rng).into_iter().enumerate() {
            counts[i] += n;
        }
        for (i, n) in check_analysis(h, rules, &exact, NoTablebase { houses: h, rules }, 4, &mut rng).into_iter().enumerate() {
            counts[i] += n;
        }
    }
    let [exact_values, lines, total] = counts;
    assert!(exact_values * 2 > total && lines * 2 > total, "{exact_values} exact values and {lines} whole lines of {total}");
}

/// [`clockwise_analysis_moves_and_lines_are_best_play`] for `boards`
/// random boards above `small`: how many values were exact, how many lines
/// whole (not cut short), and of how many.
fn check_analysis<T: Tablebase>(h: usize, rules: Rules, exact: &Builder, small: T, boards: usize, rng: &mut Rng) -> [usize; 3] {
    let engine = Engine::new(h, rules);
    let least = small.max_seeds().map_or(1, |m| m + 1);
    let solver = BoundSolver::new(h, rules, small, options()).unwrap();
    let (mut exact_values, mut lines) = (0, 0);
    for _ in 0..boards {
        let seeds = least + rng.below(13 - least as u64) as u32;
        let board = random_board(rng, h, seeds);
        let position = Position::from_mover_board(h, board, Side::South, [0, 0]).unwrap();
        let a = solver.analyze_to_depth(&position, 40, true, true).unwrap();
        let ctx = format!("{rules} board {board:?}: {a:?}");
        let value = exact.value(board);
        assert!(a.value.lower <= value && value <= a.value.upper, "value {value}: {ctx}");
        let legal: Vec<usize> = if engine.is_over(board) { Vec::new() } else { engine.moves(board).map(|m| m + 1).collect() };
        assert_eq!(a.moves.iter().map(|m| m.house).collect::<Vec<_>>(), legal, "{ctx}");
        for m in &a.moves {
            let v = exact_move_value(&engine, exact, board, m.house - 1);
            assert!(m.value.lower <= v && v <= m.value.upper, "house {} is worth {v}: {ctx}", m.house);
        }
        if !a.value.is_exact() {
            assert!(a.pv.is_empty(), "a line without an exact value: {ctx}");
            continue;
        }
        exact_values += 1;
        // Replay the line: every move keeps the value of the board it is played on.
        let (mut b, mut side) = (board, Side::South);
        let mut visited = vec![(b, side)];
        for m in &a.pv {
            assert_eq!(m.side, side, "{ctx}");
            assert_eq!(exact_move_value(&engine, exact, b, m.house - 1), exact.value(b), "{m:?} does not keep the value: {ctx}");
            let o = engine.play(b, m.house - 1);
            if o.next == Next::Opponent {
                side = side.other();
            }
            b = o.board;
            if o.next == Next::Over {
                assert_eq!(m, a.pv.last().unwrap(), "play goes on after the game ended: {ctx}");
                b = Board::default();
            }
            visited.push((b, side));
        }
        match a.end {
            LineEnd::GameOver => assert!(b == Board::default() || engine.is_over(b), "the line stops before the end: {ctx}"),
            LineEnd::Endless => {
                assert!(visited[..visited.len() - 1].contains(&(b, side)), "an endless line that does not repeat: {ctx}");
                assert_eq!(exact.value(b), 0, "endless play while something is left to win: {ctx}");
            }
            LineEnd::Cut => continue,
        }
        lines += 1;
    }
    [exact_values, lines, boards]
}

/// Issue 38: a search told to stop stops within a few thousand nodes. It
/// checked the stop flag when its node count was a multiple of 1,024, a
/// count that splits raise in jumps: a stopped search of clockwise
/// Kalah(6,4) went on for seconds (millions of nodes) past its deadline.
/// Here the flag is raised before the search starts.
#[test]
fn a_stopped_search_stops_at_once() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let options = kalah_search::SearchOptions { threads: 2, tt_bytes: 64 << 20, max_seeds: None };
    for sowing in [kalah_core::Sowing::Cw, kalah_core::Sowing::Ccw] {
        let rules = Rules { sowing, ..Rules::default() };
        let start = Position::start(6, 4).unwrap();
        let mut solver = BoundSolver::new(6, rules, NoTablebase { houses: 6, rules }, options).unwrap();
        solver.cancel_with(Arc::new(AtomicBool::new(true)));
        let later = std::time::Instant::now() + std::time::Duration::from_secs(3600);
        let b = solver.bounds_within(&start, later).unwrap();
        assert!(b.lower < b.upper, "{rules}: stopped, yet proved {b:?}");
        assert!(solver.nodes() < 100_000, "{rules}: {} nodes searched after the stop", solver.nodes());
    }
}

/// A line asked for under a deadline: whenever the value comes back exact
/// the line is there, its first move a best one (the moves' searches may
/// make the value exact after the position's own search did not; a bot
/// keeping such an answer had no move to play), and an empty line of a
/// game not over is said to be cut short. Deadlines from nothing to a few
/// milliseconds meet every case on these small starts.
#[test]
fn an_exact_value_under_a_deadline_comes_with_its_line() {
    use kalah_search::Solver;
    let mut exact_with_line = 0;
    for (h, s) in [(3, 4), (4, 3), (3, 5)] {
        let position = Position::start(h, s).unwrap();
        for micros in (0..8_000).step_by(250) {
            // A new table each time: no search starts from the last one's.
            let solver = Solver::new(h, Rules::default(), NoTablebase { houses: h, rules: Rules::default() }, options()).unwrap();
            let deadline = std::time::Instant::now() + std::time::Duration::from_micros(micros);
            let a = solver.analyze_within(&position, deadline, true, true).unwrap();
            if a.value.is_exact() {
                assert!(!a.pv.is_empty(), "Kalah({h},{s}) in {micros} µs: an exact value {} without its line", a.value.lower);
                let first = a.moves.iter().find(|m| m.house == a.pv[0].house).map(|m| m.value);
                assert!(first.is_none_or(|v| v == a.value), "Kalah({h},{s}): the line's first move is not a best one: {a:?}");
                exact_with_line += 1;
            } else {
                assert!(a.pv.is_empty() && a.end == LineEnd::Cut, "Kalah({h},{s}) in {micros} µs: bounds only, the line {:?} ends {:?}", a.pv, a.end);
            }
        }
    }
    assert!(exact_with_line > 0, "no deadline let a value be proven");
}
