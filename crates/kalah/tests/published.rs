//! The published values (`data/published.csv`, read by
//! [`kalah::published`]: Irving, Donkers & Uiterwijk 2000; Rawlings'
//! reports) reproduced from the start position, with no database, by two
//! independent solvers:
//!
//! - the alpha-beta search (`kalah-search`): every row with h <= 4, and
//!   Kalah(5,1..3) and Kalah(6,1..3);
//! - the naive reference solver (`kalah-reference`): what it solves in
//!   about a second; larger boards under `--ignored`.
//!
//! An exact published value must equal the solver's, a W/L/D row must have
//! its sign, a bound (`>=N`) must hold. Each test counts the rows it
//! checked and asserts the count, so that a row cannot be skipped silently
//! (by a parse change or an edit of the file).
//!
//! Release-mode wall times are noted on each test.

// The published values are read with the cargo feature `csv`.
#![cfg(feature = "csv")]

use kalah::published::{self, Published};
use kalah_core::{Position, Rules};
use kalah_db::NoTablebase;
use kalah_reference::{solve, RefPosition};
use kalah_search::{SearchOptions, Solver};

/// For h = 4 the table is 1 GiB whatever is asked (64-bit keys, 40 bits
/// stored), for h = 5 and 6 at least 64 MiB; this asks for no more.
const OPTIONS: SearchOptions = SearchOptions { threads: 2, tt_bytes: 64 << 20, max_seeds: None };

/// The rows `wanted(h, s)` selects.
fn rows(wanted: impl Fn(usize, u32) -> bool) -> Vec<Published> {
    published::all().into_iter().filter(|r| wanted(r.houses, r.seeds)).collect()
}

/// Solves the start of every row that `wanted` selects with the search and
/// compares it with the published value; returns the number of rows
/// checked. All disagreements are reported together.
fn check_search(wanted: impl Fn(usize, u32) -> bool) -> usize {
    // One solver per board size and rule set: its table holds exact bounds
    // only, so it serves every start, and the smaller starts' entries help
    // the larger ones.
    let mut solvers: Vec<(usize, Rules, Solver<NoTablebase>)> = Vec::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in rows(wanted) {
        let (h, rules) = (row.houses, row.rules);
        let at = match solvers.iter().position(|(sh, sr, _)| (*sh, *sr) == (h, rules)) {
            Some(at) => at,
            None => {
                let table = NoTablebase { houses: h, rules };
                solvers.push((h, rules, Solver::new(h, rules, table, OPTIONS).unwrap()));
                solvers.len() - 1
            }
        };
        let start = Position::start(h, row.seeds).unwrap();
        let value = solvers[at].2.analyze(&start, false, false).unwrap().value;
        if !row.claim.agrees(value) {
            failures.push(format!("Kalah({h},{}) under {rules}: published {}, search {value}", row.seeds, row.claim.text()));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

/// The same with the reference solver; returns the sizes checked.
fn check_reference(wanted: impl Fn(usize, u32) -> bool) -> Vec<(usize, u32)> {
    let mut checked = Vec::new();
    for row in rows(wanted) {
        let (h, s, rules) = (row.houses, row.seeds, row.rules);
        let (value, moves) = solve(&rules, &RefPosition::start(h, s));
        assert!(row.claim.agrees(value), "Kalah({h},{s}) under {rules}: published {}, reference {value}", row.claim.text());
        assert_eq!(moves.iter().map(|&(_, v)| v).max(), Some(value));
        checked.push((h, s));
    }
    checked
}

/// Release: under 0.1 s.
#[test]
fn search_up_to_3_houses() {
    assert_eq!(check_search(|h, _| h <= 3), 18);
}

/// Release: about 1.5 s, mostly faulting in the 1 GiB table.
#[test]
fn search_four_houses() {
    assert_eq!(check_search(|h, _| h == 4), 6);
}

/// Release: under 0.1 s.
#[test]
fn search_kalah_5_1_to_5_3() {
    assert_eq!(check_search(|h, s| h == 5 && s <= 3), 3);
}

/// Release: about 0.4 s.
#[test]
fn search_kalah_6_1_to_6_3() {
    assert_eq!(check_search(|h, s| h == 6 && s <= 3), 3);
}

/// What the reference solves in about a second (release mode): all of
/// h <= 3, Kalah(4, s <= 3), Kalah(5,1), Kalah(6,1).
#[test]
fn reference_small_boards() {
    let checked = check_reference(|h, s| h <= 3 || (h == 4 && s <= 3) || s == 1);
    for must in [(1, 1), (2, 3), (3, 3), (3, 6), (4, 1), (4, 2), (4, 3), (5, 1), (6, 1)] {
        assert!(checked.contains(&must), "Kalah{must:?} was not checked");
    }
}

/// Larger boards, about 12 minutes and 3 GB in release mode (Kalah(4,4)
/// 11 s, (5,2) 4 s, (4,5) 66 s, (5,3) 4 min, (6,2) 6 min):
/// `cargo test -p kalah --release --test published -- --ignored`.
#[test]
#[ignore = "minutes; run with --ignored"]
fn reference_medium_boards() {
    let checked = check_reference(|h, s| matches!((h, s), (4, 4) | (4, 5) | (5, 2) | (5, 3) | (6, 2)));
    assert_eq!(checked.len(), 5);
}
