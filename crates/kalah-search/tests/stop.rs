//! `Solver::analyze_unless`: the exact search, stopped within moments when
//! its flag is raised (Python's Ctrl-C), and otherwise the same answer as
//! `Solver::analyze`; the solver serves the next search as before. From
//! issue 52's notes (Ctrl-C could not stop a Python analysis).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kalah_core::{Position, Rules};
use kalah_db::NoTablebase;
use kalah_search::{SearchOptions, Solver};

fn solver(h: usize) -> Solver<NoTablebase> {
    let rules = Rules::default();
    let options = SearchOptions { threads: 2, tt_bytes: 16 << 20, max_seeds: None };
    Solver::new(h, rules, NoTablebase { houses: h, rules }, options).unwrap()
}

#[test]
fn a_raised_flag_stops_the_exact_search_and_nothing_of_it_is_answered() {
    let solver = solver(6);
    let stop = Arc::new(AtomicBool::new(false));
    let raiser = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            stop.store(true, Relaxed);
        })
    };
    let start = Instant::now();
    // Kalah(6,5) with no database: minutes of search, every move's value and the line.
    let answer = solver.analyze_unless(&Position::start(6, 5).unwrap(), true, true, Some(&stop)).unwrap();
    raiser.join().unwrap();
    assert!(answer.is_none(), "{answer:?}");
    assert!(start.elapsed() < Duration::from_secs(3), "stopped after {:?}", start.elapsed());

    // The same solver, a flag never raised: the answer of `analyze`.
    let small = Position::start(6, 2).unwrap();
    let unless = solver.analyze_unless(&small, true, true, Some(&AtomicBool::new(false))).unwrap().expect("not stopped");
    let plain = solver.analyze(&small, true, true).unwrap();
    assert_eq!((unless.value, &unless.moves, &unless.pv), (plain.value, &plain.moves, &plain.pv));
    assert_eq!(plain.value, 6, "Kalah(6,2), standard capture");
}
