//! `Solver::progress` while a search runs on two threads: the line under
//! way it reports is always one line of legal moves from the root (the
//! threads' lines are never mixed), and the root move is its first.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use kalah_core::{Engine, Position, Rules};
use kalah_db::NoTablebase;
use kalah_search::{SearchOptions, Solver};

#[test]
fn the_line_under_way_is_a_line_of_legal_moves_from_the_root() {
    let rules = Rules::default();
    let options = SearchOptions { threads: 2, tt_bytes: 16 << 20, max_seeds: None };
    let solver = Solver::new(6, rules, NoTablebase { houses: 6, rules }, options).unwrap();
    let engine = Engine::new(6, rules);
    let start = Position::start(6, 4).unwrap();
    let stop = AtomicBool::new(false);
    let seen = std::thread::scope(|scope| {
        // Kalah(6,4) with no database: minutes of search, stopped after a second.
        let search = scope.spawn(|| solver.analyze_unless(&start, false, false, Some(&stop)));
        let (began, mut seen) = (Instant::now(), Vec::new());
        while began.elapsed() < Duration::from_secs(1) {
            let p = solver.progress();
            if p.root == Some(start.mover_board()) && p.line[0] != 0 {
                seen.push((p.line, p.root_move));
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        stop.store(true, Relaxed);
        assert!(search.join().unwrap().unwrap().is_none(), "stopped");
        seen
    });
    assert!(seen.len() > 100, "{} lines seen", seen.len());
    let mut lines = std::collections::HashSet::new();
    for (line, root_move) in &seen {
        assert_eq!(*root_move, Some(line[0] as usize));
        let moves: Vec<u8> = line.iter().copied().take_while(|&m| m != 0).collect();
        assert!(line[moves.len()..].iter().all(|&m| m == 0), "{line:?}: a move after the end");
        let mut at = start;
        for &house in &moves {
            at = at.play(&engine, house as usize).unwrap_or_else(|e| panic!("{line:?}: house {house} from {at}: {e}")).0;
        }
        lines.insert(moves);
    }
    assert!(lines.len() > 1, "the line moves on: {lines:?}");
}
