//! `kalah solve --pie` and `--shift` against the naive reference solver
//! (issue 52): the value under the pie rule is South's best opening turn
//! once North may swap after it, the value with North's one-seed shift
//! the least over every shifted start, both worked out here from the
//! reference solver's values alone.

use std::process::Command;

use kalah_core::{Capture, Rules};
use kalah_reference::{play, solve, RefPosition};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_kalah");

/// `kalah solve H S MODE --json` under `capture`, with a database folder of its own.
fn solve_json(h: usize, s: u32, mode: &str, capture: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["solve", &h.to_string(), &s.to_string(), mode, "--capture", capture, "--threads", "1", "--json"])
        .env("KALAH_DB_DIR", dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every position after a complete first turn of the player to move
/// (extra moves followed to the turn's end, or the game's).
fn turns(rules: &Rules, p: &RefPosition) -> Vec<RefPosition> {
    let mut out = Vec::new();
    for (house, _) in solve(rules, p).1 {
        let (q, over) = play(rules, p, house);
        if !over && q.south_to_move == p.south_to_move {
            out.extend(turns(rules, &q));
        } else {
            out.push(q);
        }
    }
    out
}

/// South's value of a position: the reference value for the side to move, turned to South's.
fn south_value(rules: &Rules, p: &RefPosition) -> i32 {
    let v = solve(rules, p).0;
    if p.south_to_move {
        v
    } else {
        -v
    }
}

#[test]
fn the_pie_rule_and_the_seed_shift_agree_with_the_reference_solver() {
    for (h, s) in [(2, 2), (3, 2), (3, 3), (4, 2)] {
        for (capture, name) in [(Capture::Standard, "standard"), (Capture::Empty, "empty")] {
            let rules = Rules { capture, ..Rules::default() };
            let start = RefPosition::start(h, s);

            // Pie: North swaps after any turn worth more to South, so South
            // gets -|V| of the turn it picks, the best of them.
            let pie = turns(&rules, &start).iter().map(|q| -south_value(&rules, q).abs()).max().unwrap();
            let ours = solve_json(h, s, "--pie", name);
            assert_eq!(ours["value"], pie, "Kalah({h},{s}) {name} under the pie rule: {ours}");

            // Shift: the least of South's values over every one-seed move
            // from a ring house to another (or none, from = to).
            let mut shift = i32::MAX;
            let houses: Vec<usize> = (0..h).chain(h + 1..2 * h + 1).collect();
            for &from in &houses {
                for &to in &houses {
                    if start.cells[from] == 0 {
                        continue;
                    }
                    let mut shifted = start.clone();
                    shifted.cells[from] -= 1;
                    shifted.cells[to] += 1;
                    shift = shift.min(south_value(&rules, &shifted));
                }
            }
            let ours = solve_json(h, s, "--shift", name);
            assert_eq!(ours["shift_value"], shift, "Kalah({h},{s}) {name} with the shift: {ours}");
        }
    }
}

/// `kalah strong`'s won, drawn and lost counts (every board of its
/// database, for the player to move) are the reference solver's, and so
/// is the start's value.
#[test]
fn strong_counts_agree_with_the_reference_solver() {
    for (h, s, capture, name) in [(2, 2, Capture::Standard, "standard"), (3, 2, Capture::Empty, "empty"), (2, 3, Capture::Empty, "empty")] {
        let rules = Rules { capture, ..Rules::default() };
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("strong.kdb");
        let out = Command::new(BIN)
            .args([
                "strong",
                "--houses",
                &h.to_string(),
                "--seeds",
                &s.to_string(),
                "--capture",
                name,
                "-o",
                file.to_str().unwrap(),
                "--threads",
                "1",
                "--json",
            ])
            .env("KALAH_DB_DIR", dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
        let values = kalah_reference::board_values(h, &rules, 2 * h as u32 * s);
        let count = |keep: fn(i32) -> bool| values.values().filter(|&&v| keep(v)).count() as u64;
        assert_eq!(ours["won"], count(|v| v > 0), "Kalah({h},{s}) {name}: {ours}");
        assert_eq!(ours["drawn"], count(|v| v == 0), "Kalah({h},{s}) {name}: {ours}");
        assert_eq!(ours["lost"], count(|v| v < 0), "Kalah({h},{s}) {name}: {ours}");
        assert_eq!(ours["value"], solve(&rules, &RefPosition::start(h, s)).0, "Kalah({h},{s}) {name}: {ours}");
    }
}
