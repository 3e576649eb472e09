//! The proof: a deliberately naive reference agrees with the solver,
//! for each of the 48 combinations of capture, end, leftovers, sowing and
//! relay, on every Kalah(h,s) with h <= 4 and s <= 2 and on Kalah(3,3), and
//! with counter-clockwise sowing also on Kalah(4,3), Kalah(5,1) and
//! Kalah(6,1): the start value and every first move's value.
//!
//! * Counter-clockwise rules: `Solver::analyze` (alpha-beta, no database)
//!   against `kalah_reference::solve` (memoised minimax).
//! * Clockwise rules: the solver refuses them (endless play), so the
//!   project's answer is `analyze_from_table` over levels built in memory by
//!   retrograde analysis (`kalah_db::Builder`), against the reference's
//!   per-threshold fixed points.
//!
//! The principal variation is replayed with `Position::play`: every move
//! must be legal and played by the side to move; a line that ends the game
//! must leave the start value as the final store difference (each move of a
//! principal variation keeps the value, and a finished game is worth its
//! stores); a clockwise line reported as endless must stop on a position it
//! has already visited, and that position must still be worth the start
//! value according to the reference.
//!
//! Every disagreement is collected and reported together, smallest board
//! first, with the rules, the position and both values.
//!
//! Release-mode wall times (2 shared cores, the tests run in parallel) are
//! noted on each test.

use kalah_core::{Engine, Next, Position, Rules, Side, Sowing};
use kalah_db::{Builder, NoTablebase, Quiet};
use kalah_reference::{solve, RefPosition};
use kalah_search::{analyze_from_table, Analysis, SearchOptions, Solver};

/// A small table and two threads, so the parallel (ABDADA) path is the one
/// checked; the value cannot depend on the thread count.
const OPTIONS: SearchOptions = SearchOptions {
    threads: 2,
    tt_bytes: 16 << 20,
};

/// The 24 rule sets with the given sowing direction.
fn rule_sets(sowing: Sowing) -> Vec<Rules> {
    let rules: Vec<Rules> = Rules::all().filter(|r| r.sowing == sowing).collect();
    assert_eq!(rules.len(), 24, "half of the 48 combinations sow {sowing}");
    rules
}

/// The reference's view of a position: the ring of `RULES.md`, built from
/// the position's accessors (not from its text form).
fn to_reference(p: &Position) -> RefPosition {
    let h = p.houses();
    let mut cells = Vec::with_capacity(2 * h + 2);
    for side in [Side::South, Side::North] {
        cells.extend((1..=h).map(|i| u32::from(p.house(side, i))));
        cells.push(p.store(side));
    }
    RefPosition {
        cells,
        south_to_move: p.to_move() == Side::South,
    }
}

/// The store difference of `p` for `side`.
fn stores_for(p: &Position, side: Side) -> i32 {
    p.store(side) as i32 - p.store(side.other()) as i32
}

/// A position's value seen by `side`, from its value for the player to move.
fn value_for(p: &Position, value_for_mover: i32, side: Side) -> i32 {
    if p.to_move() == side {
        value_for_mover
    } else {
        -value_for_mover
    }
}

/// Compares one analysis of `start` with the reference's values; returns
/// every disagreement found, as text.
fn compare(rules: &Rules, engine: &Engine, start: &Position, what: &str, analysis: &Analysis) -> Vec<String> {
    let mut failures = Vec::new();
    let case = format!("{} under {rules} ({})", start.ring(), rules.tag());
    let (ref_value, ref_moves) = solve(rules, &to_reference(start));

    if analysis.value != ref_value {
        failures.push(format!("{case}: start value: {what} {}, reference {ref_value}", analysis.value));
    }
    let mut moves: Vec<(usize, i32)> = analysis.moves.iter().map(|m| (m.house, m.value)).collect();
    moves.sort_unstable();
    let mut ref_moves = ref_moves;
    ref_moves.sort_unstable();
    if moves != ref_moves {
        failures.push(format!(
            "{case}: move values (house, value): {what} {moves:?}, reference {ref_moves:?}"
        ));
    }
    if moves.iter().map(|&(_, v)| v).max() != Some(analysis.value) {
        failures.push(format!(
            "{case}: {what} value {} is not the best of its move values {moves:?}",
            analysis.value
        ));
    }
    if let Err(why) = replay(rules, engine, start, analysis) {
        failures.push(format!("{case}: principal variation {:?}: {why}", analysis.pv));
    }
    failures
}

/// Replays the principal variation of `analysis` from `start`; see the module docs.
fn replay(rules: &Rules, engine: &Engine, start: &Position, analysis: &Analysis) -> Result<(), String> {
    let me = start.to_move();
    let mut line = vec![*start];
    let mut ended = false;
    for (i, mv) in analysis.pv.iter().enumerate() {
        let p = line.last().expect("the line holds the start");
        if ended {
            return Err(format!("move {} comes after the end of the game", i + 1));
        }
        if mv.side != p.to_move() {
            return Err(format!("move {} is {}'s, but {} is to move in {}", i + 1, mv.side, p.to_move(), p.ring()));
        }
        let (next, outcome) = p
            .play(engine, mv.house)
            .map_err(|e| format!("move {} (house {}) in {}: {e}", i + 1, mv.house, p.ring()))?;
        ended = outcome.next == Next::Over;
        line.push(next);
    }
    let last = line.last().expect("the line holds the start");
    if analysis.endless {
        if !rules.may_cycle() {
            return Err("endless play reported under counter-clockwise sowing".into());
        }
        if ended || last.is_over(engine) {
            return Err(format!("reported endless, but the game is over in {}", last.ring()));
        }
        if !line[..line.len() - 1].contains(last) {
            return Err(format!("reported endless, but {} was not visited before", last.ring()));
        }
        let (ref_value, _) = solve(rules, &to_reference(last));
        let seen_by_me = value_for(last, ref_value, me);
        if seen_by_me != analysis.value {
            return Err(format!(
                "the repeated position {} is worth {seen_by_me} to {me} by the reference, not the value {}",
                last.ring(),
                analysis.value
            ));
        }
    } else {
        if !ended || !last.is_over(engine) {
            return Err(format!("the line stops before the end of the game, in {}", last.ring()));
        }
        let stores = stores_for(last, me);
        if stores != analysis.value {
            return Err(format!(
                "it ends with store difference {stores} for {me} in {}, not the value {}",
                last.ring(),
                analysis.value
            ));
        }
    }
    Ok(())
}

/// Panics with every disagreement, if any.
fn assert_agree(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} disagreement(s) with the reference:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The start of Kalah(h,s), checked against the reference's own start.
fn start(h: usize, s: u32) -> Position {
    let p = Position::start(h, s).unwrap();
    assert_eq!(to_reference(&p), RefPosition::start(h, s), "Kalah({h},{s})");
    p
}

/// Counter-clockwise: alpha-beta against the reference on the starts of
/// `sizes` (smallest first) under all 24 counter-clockwise rule sets.
fn check_counter_clockwise(sizes: &[(usize, u32)]) {
    let mut failures = Vec::new();
    let mut compared = 0;
    for rules in rule_sets(Sowing::Ccw) {
        for &(h, s) in sizes {
            let solver = Solver::new(h, rules, NoTablebase { houses: h, rules }, OPTIONS).unwrap();
            let start = start(h, s);
            let analysis = solver.analyze(&start, true, true).unwrap();
            failures.extend(compare(&rules, solver.engine(), &start, "search", &analysis));
            // The root's own MTD(f) (not the best of the move values) must agree too.
            let value = solver.analyze(&start, false, false).unwrap().value;
            if value != analysis.value {
                failures.push(format!(
                    "{} under {rules}: value alone {value}, best move value {}",
                    start.ring(),
                    analysis.value
                ));
            }
            compared += 1;
        }
    }
    assert_agree(&failures);
    assert_eq!(compared, 24 * sizes.len());
}

/// Clockwise: levels built by retrograde analysis against the reference on
/// the starts of `sizes` (smallest first; one `h` per call) under all 24
/// clockwise rule sets.
fn check_clockwise(h: usize, seeds: &[u32]) {
    let max_seeds = 2 * h as u32 * seeds.iter().max().expect("some sizes");
    let mut failures = Vec::new();
    let mut compared = 0;
    for rules in rule_sets(Sowing::Cw) {
        let t0 = std::time::Instant::now();
        let mut levels = Builder::new(h, rules, max_seeds).unwrap();
        levels.build_all(&Quiet);
        eprintln!("TIMING build {h} {} {:?}", rules.tag(), t0.elapsed());
        let engine = Engine::new(h, rules);
        for &s in seeds {
            let start = start(h, s);
            let t0 = std::time::Instant::now();
            let analysis = analyze_from_table(&engine, &levels, &start).unwrap();
            let t1 = t0.elapsed();
            let _ = solve(&rules, &to_reference(&start));
            let t2 = t0.elapsed();
            failures.extend(compare(&rules, &engine, &start, "retrograde", &analysis));
            eprintln!("TIMING ({h},{s}) {} table {:?} ref {:?} compare {:?} endless {} pv {}", rules.tag(), t1, t2 - t1, t0.elapsed() - t2, analysis.endless, analysis.pv.len());
            compared += 1;
        }
    }
    assert_agree(&failures);
    assert_eq!(compared, 24 * seeds.len());
}

/// Release: about 0.1 s.
#[test]
fn counter_clockwise_up_to_4_houses_and_2_seeds() {
    check_counter_clockwise(&[(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2), (4, 1), (4, 2)]);
}

/// Release: about 0.1 s.
#[test]
fn counter_clockwise_kalah_3_3() {
    check_counter_clockwise(&[(3, 3)]);
}

/// Release: about 0.1 s.
#[test]
fn counter_clockwise_kalah_4_3() {
    check_counter_clockwise(&[(4, 3)]);
}

/// Release: about 0.1 s.
#[test]
fn counter_clockwise_kalah_5_1_and_6_1() {
    check_counter_clockwise(&[(5, 1), (6, 1)]);
}

/// Release: about 0.1 s.
#[test]
fn clockwise_up_to_3_houses_and_2_seeds() {
    for h in 1..=3 {
        check_clockwise(h, &[1, 2]);
    }
}

/// Release: about 0.1 s.
#[test]
fn clockwise_kalah_4_1_and_4_2() {
    check_clockwise(4, &[1, 2]);
}

/// Release: about 0.1 s.
#[test]
fn clockwise_kalah_3_3() {
    check_clockwise(3, &[3]);
}
