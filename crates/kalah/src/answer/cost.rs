//! What a long search is likely to cost, said before it starts.
//!
//! No formula predicts a Kalah search's nodes well: one fitted on the
//! searches measured here (nodes against seeds and database size) put the
//! first root test of Kalah(6,6) at 1.2e9 nodes, and it took 6.4e10. What
//! holds is that the cost grows with the seeds in play and with how far a
//! position lies above the database backing its search (the seeds in its
//! houses less the database's). So a search is bounded by measured
//! searches (`MEASURED`, BENCHMARKS.md "What a search is likely to cost")
//! of the same work and capture: one no larger is a floor, one no smaller
//! a ceiling; and [`likely_cost`] says what they took when the floor alone
//! is long. It is a comparison, not a promise: the ceiling can be far off
//! (Kalah(6,4) over 12 seeds took 109 M nodes, Kalah(6,5) over 24 seeds,
//! as far above, 2.6 G), a position from the middle of a game is often
//! cheaper than a start, and the searches were measured under the default
//! rules but for the capture (other rules are compared with them).

use kalah_core::Capture;

use crate::answer::sizes::SearchWork;
use crate::text::group;

/// A search measured on this project's machine (2 cores of an Intel Xeon
/// VM, 2026-12-04, two threads).
struct Measured {
    houses: usize,
    /// Seeds in the houses of the start searched.
    seeds: u32,
    /// The seeds of the database under it.
    db: u32,
    work: SearchWork,
    capture: Capture,
    /// Which start, under which rules.
    what: &'static str,
    nodes: u64,
    /// Whether it finished: if not, `nodes` is how far it got.
    finished: bool,
}

impl Measured {
    fn above(&self) -> u32 {
        self.seeds - self.db
    }
}

/// The measured searches: `kalah solve H S --capture C` over a database of
/// N seeds (`--db-seeds N` or `--db FILE`), `--value-only` (value) or not
/// (every move's value and the line), counter-clockwise, the rest of the
/// rules the default ones, `--no-memory` (BENCHMARKS.md, "What a search is
/// likely to cost").
const MEASURED: &[Measured] = &[
    Measured {
        houses: 6,
        seeds: 48,
        db: 20,
        work: SearchWork::Analysis,
        capture: Capture::Standard,
        what: "Kalah(6,4)",
        nodes: 99_382_521,
        finished: true,
    },
    Measured {
        houses: 6,
        seeds: 48,
        db: 16,
        work: SearchWork::Analysis,
        capture: Capture::Standard,
        what: "Kalah(6,4)",
        nodes: 234_841_340,
        finished: true,
    },
    Measured {
        houses: 6,
        seeds: 48,
        db: 18,
        work: SearchWork::Value,
        capture: Capture::Standard,
        what: "Kalah(6,4)",
        nodes: 37_617_492,
        finished: true,
    },
    Measured {
        houses: 6,
        seeds: 48,
        db: 18,
        work: SearchWork::Value,
        capture: Capture::Empty,
        what: "Kalah(6,4) with empty capture",
        nodes: 9_933_915,
        finished: true,
    },
    Measured {
        houses: 6,
        seeds: 48,
        db: 14,
        work: SearchWork::Value,
        capture: Capture::Standard,
        what: "Kalah(6,4)",
        nodes: 95_248_254,
        finished: true,
    },
    Measured {
        houses: 6,
        seeds: 48,
        db: 12,
        work: SearchWork::Value,
        capture: Capture::Standard,
        what: "Kalah(6,4)",
        nodes: 109_080_811,
        finished: true,
    },
    Measured {
        houses: 6,
        seeds: 60,
        db: 24,
        work: SearchWork::Analysis,
        capture: Capture::Empty,
        what: "Kalah(6,5) with empty capture",
        nodes: 4_240_238_653,
        finished: true,
    },
    Measured {
        houses: 6,
        seeds: 60,
        db: 24,
        work: SearchWork::Value,
        capture: Capture::Empty,
        what: "Kalah(6,5) with empty capture",
        nodes: 234_245_189,
        finished: true,
    },
    Measured {
        houses: 6,
        seeds: 60,
        db: 24,
        work: SearchWork::Value,
        capture: Capture::Standard,
        what: "Kalah(6,5)",
        nodes: 2_619_095_718,
        finished: true,
    },
    Measured {
        houses: 6,
        seeds: 72,
        db: 30,
        work: SearchWork::Value,
        capture: Capture::Empty,
        what: "Kalah(6,6) with empty capture",
        nodes: 103_000_000_000,
        finished: false,
    },
];

/// Seeds above its database from which a search of more houses than were
/// measured is said to be perhaps long.
const UNMEASURED_FAR: u32 = 30;

/// A floor of at least this many seconds at the slow rate
/// ([`RATE_PER_THREAD`]) makes a search long enough to say so.
const LONG_SECONDS: f64 = 60.0;

/// Nodes a second and thread a search of six houses makes, reckoned slow
/// and fast: Kalah(6,4) over 20 seeds 2.9 M on each of two threads,
/// Kalah(6,6) over 30 seeds 1.6-2.7 M (BENCHMARKS.md).
const RATE_PER_THREAD: (f64, f64) = (1.5e6, 3.5e6);

/// What comparable searches took: a floor on the nodes (the most a
/// search no larger took), a ceiling (the fewest a search no smaller
/// took), and which searches they are.
#[derive(Debug, PartialEq)]
struct Comparison {
    low: Option<u64>,
    high: Option<u64>,
    basis: String,
}

/// Bounds on the nodes of a search of `work` under `capture` for a
/// position of `h` houses with `seeds` in them, `above` seeds above its
/// database, from the measured searches of the same work and capture,
/// taking a search's cost to grow both with the seeds and with the
/// distance above the database (as every pair measured does): one with
/// no more seeds and no farther above is a floor (finished or not), one
/// that finished with no fewer seeds and no nearer its database a
/// ceiling. `None` without a floor: a ceiling alone cannot say a search
/// is long.
fn compare(h: usize, seeds: u32, above: u32, work: SearchWork, capture: Capture) -> Option<Comparison> {
    let alike = || MEASURED.iter().filter(|m| m.houses == h && m.work == work && m.capture == capture);
    let floor = alike().filter(|m| m.seeds <= seeds && m.above() <= above).max_by_key(|m| m.nodes)?;
    let ceiling = alike().filter(|m| m.finished && m.seeds >= seeds && m.above() >= above).min_by_key(|m| m.nodes).filter(|c| c.nodes >= floor.nodes);
    let basis = match ceiling {
        Some(c) if !std::ptr::eq(c, floor) => format!("{}; {}", said(floor), said(c)),
        _ => said(floor),
    };
    Some(Comparison { low: Some(floor.nodes), high: ceiling.map(|c| c.nodes), basis })
}

/// The note to give before a search on `threads` threads of `work` under
/// `capture` for a position of `h` houses with `seeds` seeds in them over
/// a database of `db_seeds` (or none) when comparable searches say it is
/// long (see the module docs): what they took, or that none was
/// measured. `None` when nothing measured says it is long.
pub fn likely_cost(h: usize, seeds: u32, db_seeds: Option<u32>, work: SearchWork, capture: Capture, threads: usize) -> Option<String> {
    let above = seeds.saturating_sub(db_seeds.unwrap_or(0));
    let database = match db_seeds {
        Some(n) => format!("the {n}-seed database"),
        None => "no database".to_string(),
    };
    let asked = match work {
        SearchWork::Value => "value searches",
        SearchWork::Analysis => "searches for every move's value",
    };
    let mut found = compare(h, seeds, above, work, capture);
    // Every move's value costs at least the value's search.
    if work == SearchWork::Analysis {
        if let Some(value) = compare(h, seeds, above, SearchWork::Value, capture) {
            if found.as_ref().is_none_or(|f| value.low > f.low) {
                let high = found.and_then(|f| f.high).filter(|&h| Some(h) >= value.low);
                found = Some(Comparison { low: value.low, high, basis: format!("the value alone: {}", value.basis) });
            }
        }
    }
    let measured = MEASURED.iter().any(|m| m.houses == h);
    let Some(Comparison { low: Some(low), high, basis }) = found else {
        // Fewer houses than six are quick this far above (Kalah(5,6) over
        // 30 seeds: 5.9 s); more were never measured.
        return (h > 6 && !measured && above >= UNMEASURED_FAR).then(|| {
            format!("perhaps a long search: the position is {above} seeds above {database}, and no {asked} of {h} houses were measured here; the progress line shows the bounds proven so far")
        });
    };
    let threads = threads.max(1) as f64;
    let seconds = |nodes: u64, rate: f64| nodes as f64 / (rate * threads);
    if seconds(low, RATE_PER_THREAD.0) < LONG_SECONDS {
        return None;
    }
    let (slow, fast) = RATE_PER_THREAD;
    let (nodes, time) = match high {
        Some(h) if short(low) == short(h) => (format!("about {} nodes", short(h)), duration_range(seconds(low, fast), seconds(h, slow))),
        Some(h) => (format!("{}-{} nodes", short(low), short(h)), duration_range(seconds(low, fast), seconds(h, slow))),
        None => (format!("more than {} nodes", short(low)), format!("more than {}", duration(seconds(low, fast)))),
    };
    Some(format!(
        "likely a long search: the position is {above} seeds above {database}; expect {nodes}, {time} on {threads} thread{s}, going by comparable {asked} measured here ({basis}); the progress line shows the bounds proven so far",
        s = if threads == 1.0 { "" } else { "s" },
    ))
}

/// A measured search as the note names it.
fn said(m: &Measured) -> String {
    let how = if m.finished { format!("{} nodes", short(m.nodes)) } else { format!("unfinished after {} nodes", short(m.nodes)) };
    format!("{} over {} seeds, {} above: {how}", m.what, m.db, m.above())
}

/// A count of nodes in short: `99 M`, `1.4 G`, `103 G`.
fn short(n: u64) -> String {
    let (value, unit) = match n {
        0..1_000_000 => return group(n),
        1_000_000..1_000_000_000 => (n as f64 / 1e6, "M"),
        1_000_000_000..1_000_000_000_000 => (n as f64 / 1e9, "G"),
        _ => (n as f64 / 1e12, "T"),
    };
    if value < 10.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.0} {unit}")
    }
}

/// Seconds as a person reads them: `about 40 s`, `about 6 min`, `about 3 h`.
fn duration(seconds: f64) -> String {
    let (value, unit) = scaled(seconds);
    format!("about {value:.0} {unit}")
}

/// Two durations as a range in the larger's unit: `about 2-7 min`.
fn duration_range(low: f64, high: f64) -> String {
    let (h, unit) = scaled(high);
    let l = low / (high / h);
    if l.round() >= h.round() {
        return duration(high);
    }
    format!("about {l:.0}-{h:.0} {unit}")
}

fn scaled(seconds: f64) -> (f64, &'static str) {
    match seconds {
        s if s < 120.0 => (s, "s"),
        s if s < 7200.0 => (s / 60.0, "min"),
        s if s < 172_800.0 => (s / 3600.0, "h"),
        s => (s / 86400.0, "days"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STANDARD: Capture = Capture::Standard;

    #[test]
    fn searches_not_known_to_be_long_get_no_note() {
        // Kalah(6,4) over 20 seeds, every move: 99 M nodes, under a minute.
        assert_eq!(likely_cost(6, 48, Some(20), SearchWork::Analysis, STANDARD, 2), None);
        // Kalah(6,3) without a database, as far above as Kalah(6,4) over 12
        // seeds (109 M nodes) but with fewer seeds: only a ceiling, and it
        // took 4.7 M nodes.
        assert_eq!(likely_cost(6, 36, None, SearchWork::Value, STANDARD, 1), None);
        // Nearer its database than any measured for the value: no floor.
        assert_eq!(likely_cost(6, 48, Some(20), SearchWork::Value, STANDARD, 2), None);
        // Four houses, not measured, and fewer than six.
        assert_eq!(likely_cost(4, 24, None, SearchWork::Value, STANDARD, 2), None);
        // Every Kalah(6,4) value measured took under a minute at 3 M nodes/s.
        for db in 0..=30 {
            assert_eq!(likely_cost(6, 48, Some(db), SearchWork::Value, STANDARD, 2), None, "over {db} seeds");
        }
    }

    #[test]
    fn long_searches_say_what_comparable_ones_took() {
        let six = likely_cost(6, 72, Some(30), SearchWork::Value, Capture::Empty, 2).unwrap();
        assert!(six.contains("42 seeds above the 30-seed database"), "{six}");
        assert!(six.contains("expect more than 103 G nodes"), "{six}");
        assert!(six.contains("unfinished after 103 G nodes"), "{six}");
        // Farther above than anything measured: at least what the farthest took.
        let farther = likely_cost(6, 72, Some(24), SearchWork::Value, Capture::Empty, 2).unwrap();
        assert!(farther.contains("more than 103 G nodes"), "{farther}");
        // The start of Kalah(6,5) over 24 seeds, as measured.
        let value = likely_cost(6, 60, Some(24), SearchWork::Value, STANDARD, 2).unwrap();
        assert!(value.contains("expect about 2.6 G nodes, about 6-15 min on 2 threads"), "{value}");
        assert!(value.contains("(Kalah(6,5) over 24 seeds, 36 above: 2.6 G nodes)"), "{value}");
        let empty = likely_cost(6, 60, Some(24), SearchWork::Value, Capture::Empty, 2).unwrap();
        assert!(empty.contains("expect about 234 M nodes"), "{empty}");
        // Every move's value costs at least the value.
        let moves = likely_cost(6, 60, Some(24), SearchWork::Analysis, STANDARD, 2).unwrap();
        assert!(moves.contains("expect more than 2.6 G nodes"), "{moves}");
        assert!(moves.contains("the value alone: Kalah(6,5) over 24 seeds"), "{moves}");
        // Every move's value of Kalah(6,5) with empty capture, as measured.
        let analysis = likely_cost(6, 60, Some(24), SearchWork::Analysis, Capture::Empty, 2).unwrap();
        assert!(analysis.contains("expect about 4.2 G nodes"), "{analysis}");
        assert!(analysis.contains("(Kalah(6,5) with empty capture over 24 seeds, 36 above: 4.2 G nodes)"), "{analysis}");
        // Standard capture on Kalah(6,6): no standard search of 72 seeds was
        // measured, Kalah(6,5)'s is a floor.
        let standard = likely_cost(6, 72, Some(24), SearchWork::Value, STANDARD, 2).unwrap();
        assert!(standard.contains("expect more than 2.6 G nodes"), "{standard}");
        // Below Kalah(6,5) over 24 seeds in seeds or distance, the floor is
        // a Kalah(6,4) search's, under a minute: nothing said.
        assert_eq!(likely_cost(6, 56, Some(22), SearchWork::Value, STANDARD, 2), None, "floor Kalah(6,4) over 14 seeds, 95 M");
        assert_eq!(likely_cost(6, 60, Some(26), SearchWork::Value, STANDARD, 2), None, "floor Kalah(6,4) over 12 seeds, 109 M");
        // Eight houses far above a database: nothing comparable measured.
        let eight = likely_cost(8, 64, Some(17), SearchWork::Analysis, STANDARD, 2).unwrap();
        assert!(eight.contains("no searches for every move's value of 8 houses"), "{eight}");
    }

    #[test]
    fn figures_read_short() {
        assert_eq!(short(99_400_000), "99 M");
        assert_eq!(short(1_400_000_000), "1.4 G");
        assert_eq!(short(113_000_000_000), "113 G");
        assert_eq!(duration(45.0), "about 45 s");
        assert_eq!(duration(400.0), "about 7 min");
        assert_eq!(duration_range(100.0, 400.0), "about 2-7 min");
        assert_eq!(duration_range(10_000.0, 36_000.0), "about 3-10 h");
    }
}
