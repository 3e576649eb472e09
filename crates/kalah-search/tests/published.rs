//! The published values of `data/published.csv` (Irving, Donkers &
//! Uiterwijk 2000; Rawlings' reports), reproduced by the alpha-beta solver
//! from the start position, with no database: every row with h <= 4, and
//! Kalah(5,1..3) and Kalah(6,1..3).
//!
//! An exact published value must equal the solver's; a W/L/D row must have
//! its sign. Each test counts the rows it checked and asserts the count, so
//! a row cannot be skipped silently (by a parse change or an edit of the
//! file). Bounds (`>=N`) are not read; none falls in these sizes.
//!
//! Release-mode wall times are noted on each test.

use kalah_core::{Capture, End, Leftovers, Position, Relay, Rules, Sowing};
use kalah_db::NoTablebase;
use kalah_search::{SearchOptions, Solver};

const CSV: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/published.csv");

/// For h = 4 the table is 1 GiB whatever is asked (64-bit keys, 40 bits
/// stored), for h = 5 and 6 at least 64 MiB; this asks for no more.
const OPTIONS: SearchOptions = SearchOptions {
    threads: 2,
    tt_bytes: 64 << 20,
    max_seeds: None,
};

/// What a source says about a start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Published {
    /// The exact value.
    Exact(i32),
    /// Only the outcome for South: W (> 0), L (< 0) or D (= 0).
    Sign(std::cmp::Ordering),
    /// Only a lower bound.
    AtLeast(i32),
}

impl Published {
    fn admits(self, value: i32) -> bool {
        match self {
            Published::Exact(v) => value == v,
            Published::Sign(o) => value.cmp(&0) == o,
            Published::AtLeast(v) => value >= v,
        }
    }
}

/// One row of the file.
#[derive(Clone, Debug)]
struct Row {
    line: usize,
    houses: usize,
    seeds: u32,
    rules: Rules,
    value: Published,
}

/// Every row of `data/published.csv`, checked for form.
fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(CSV).unwrap_or_else(|e| panic!("{CSV}: {e}"));
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty());
    let (_, header) = lines.next().expect("a header line");
    assert_eq!(header, "houses,seeds,capture,end,leftovers,value,source");
    lines
        .map(|(line, text)| {
            let f: Vec<&str> = text.split(',').collect();
            assert_eq!(f.len(), 7, "{CSV}:{line}: {text}");
            let bad = |what: &str| -> ! { panic!("{CSV}:{line}: bad {what}: {text}") };
            // All published values are for counter-clockwise sowing without relay.
            let rules = Rules {
                capture: f[2].parse::<Capture>().unwrap_or_else(|_| bad("capture")),
                end: f[3].parse::<End>().unwrap_or_else(|_| bad("end")),
                leftovers: f[4].parse::<Leftovers>().unwrap_or_else(|_| bad("leftovers")),
                sowing: Sowing::Ccw,
                relay: Relay::Off,
            };
            let value = match f[5] {
                "W" => Published::Sign(std::cmp::Ordering::Greater),
                "L" => Published::Sign(std::cmp::Ordering::Less),
                "D" => Published::Sign(std::cmp::Ordering::Equal),
                v => match v.strip_prefix(">=") {
                    Some(bound) => Published::AtLeast(bound.parse().unwrap_or_else(|_| bad("value"))),
                    None => Published::Exact(v.parse().unwrap_or_else(|_| bad("value"))),
                },
            };
            Row {
                line,
                houses: f[0].parse().unwrap_or_else(|_| bad("houses")),
                seeds: f[1].parse().unwrap_or_else(|_| bad("seeds")),
                rules,
                value,
            }
        })
        .collect()
}

/// Solves the start of every row that `wanted` selects and compares it with
/// the published value; returns the number of rows checked. All
/// disagreements are reported together.
fn check(wanted: impl Fn(usize, u32) -> bool) -> usize {
    // One solver per board size and rule set: its table holds exact bounds
    // only, so it serves every start, and the smaller starts' entries help
    // the larger ones.
    let mut solvers: Vec<(usize, Rules, Solver<NoTablebase>)> = Vec::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in rows().into_iter().filter(|r| wanted(r.houses, r.seeds)) {
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
        if !row.value.admits(value) {
            failures.push(format!(
                "{CSV}:{}: Kalah({h},{}) under {rules}: published {:?}, solver {value}",
                row.line, row.seeds, row.value
            ));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

/// Release: under 0.1 s.
#[test]
fn up_to_3_houses() {
    assert_eq!(check(|h, _| h <= 3), 18);
}

/// Release: about 1.5 s, mostly faulting in the 1 GiB table.
#[test]
fn four_houses() {
    assert_eq!(check(|h, _| h == 4), 6);
}

/// Release: under 0.1 s.
#[test]
fn kalah_5_1_to_5_3() {
    assert_eq!(check(|h, s| h == 5 && s <= 3), 3);
}

/// Release: about 0.4 s.
#[test]
fn kalah_6_1_to_6_3() {
    assert_eq!(check(|h, s| h == 6 && s <= 3), 3);
}
