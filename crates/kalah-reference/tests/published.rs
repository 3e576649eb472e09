//! The published values of `data/published.csv` (Irving, Donkers &
//! Uiterwijk 2000; Rawlings), reproduced by the reference solver for the
//! sizes it solves in seconds.

use std::path::Path;

use kalah_core::{Capture, End, Leftovers, Relay, Rules, Sowing};
use kalah_reference::{solve, RefPosition};

/// A published result: the exact value or only its sign.
#[derive(Debug)]
enum Published {
    Exact(i32),
    Win,
    Loss,
    Draw,
}

impl Published {
    fn admits(&self, value: i32) -> bool {
        match *self {
            Published::Exact(v) => value == v,
            Published::Win => value > 0,
            Published::Loss => value < 0,
            Published::Draw => value == 0,
        }
    }
}

/// Rows `(h, s, rules, published)` whose value is exact or W/L/D (bounds
/// such as `>=4` are skipped).
fn published() -> Vec<(usize, u32, Rules, Published)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/published.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    let header = lines.next().expect("a header line");
    assert_eq!(header, "houses,seeds,capture,end,leftovers,value,source");
    let mut rows = Vec::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 7, "{line}");
        let rules = Rules {
            capture: f[2].parse::<Capture>().unwrap(),
            end: f[3].parse::<End>().unwrap(),
            leftovers: f[4].parse::<Leftovers>().unwrap(),
            sowing: Sowing::Ccw,
            relay: Relay::Off,
        };
        let value = match f[5] {
            "W" => Published::Win,
            "L" => Published::Loss,
            "D" => Published::Draw,
            v if v.starts_with(">=") => continue,
            v => Published::Exact(v.parse().unwrap_or_else(|e| panic!("{line}: {e}"))),
        };
        rows.push((f[0].parse().unwrap(), f[1].parse().unwrap(), rules, value));
    }
    rows
}

/// Checks every published row for which `wanted(h, s)` holds; returns the sizes checked.
fn check(wanted: impl Fn(usize, u32) -> bool) -> Vec<(usize, u32)> {
    let rows = published();
    assert!(rows.len() >= 36, "{} rows", rows.len());
    let mut checked = Vec::new();
    for (h, s, rules, expected) in rows {
        if !wanted(h, s) {
            continue;
        }
        let (value, moves) = solve(&rules, &RefPosition::start(h, s));
        assert!(
            expected.admits(value),
            "Kalah({h},{s}) under {rules}: published {expected:?}, reference {value}"
        );
        assert_eq!(moves.iter().map(|&(_, v)| v).max(), Some(value));
        checked.push((h, s));
    }
    checked
}

/// What the reference solves in about a second (release mode): all of
/// h <= 3, Kalah(4, s <= 3), Kalah(5,1), Kalah(6,1).
#[test]
fn published_values_of_small_boards() {
    let checked = check(|h, s| h <= 3 || (h == 4 && s <= 3) || s == 1);
    for must in [
        (1, 1),
        (2, 3),
        (3, 3),
        (3, 6),
        (4, 1),
        (4, 2),
        (4, 3),
        (5, 1),
        (6, 1),
    ] {
        assert!(checked.contains(&must), "Kalah{must:?} was not checked");
    }
}

/// Larger boards, about 12 minutes and 3 GB in release mode (Kalah(4,4)
/// 11 s, (5,2) 4 s, (4,5) 66 s, (5,3) 4 min, (6,2) 6 min):
/// `cargo test -p kalah-reference --release -- --ignored`.
#[test]
#[ignore = "minutes; run with --ignored"]
fn published_values_of_medium_boards() {
    let checked = check(|h, s| matches!((h, s), (4, 4) | (4, 5) | (5, 2) | (5, 3) | (6, 2)));
    assert_eq!(checked.len(), 5);
}
