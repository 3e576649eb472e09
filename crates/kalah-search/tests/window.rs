//! A search over a database in a window encoding (issue 63), which holds
//! bounds for the values outside its windows, gives the values a search
//! over the byte database of the same boards gives: every move's value, on
//! positions of Kalah(6,4) and Kalah(5,5) played at random from the start,
//! under both capture rules; and it meets bounds on the way.

use kalah_core::{Capture, Engine, Position, Rules};
use kalah_db::format::Encoding;
use kalah_db::{build_file, Database, Tablebase};
use kalah_search::{SearchOptions, Solver};

mod common;
use common::Rng;

/// Positions of Kalah(h,s) reached by random moves from the start, with
/// at most `max_seeds` seeds in their houses (and no fewer than 4 above
/// the database), the first `count` of them.
fn positions(h: usize, s: u32, rules: Rules, db_seeds: u32, max_seeds: u32, count: usize, rng: &mut Rng) -> Vec<Position> {
    let engine = Engine::new(h, rules);
    let mut out = Vec::new();
    while out.len() < count {
        let mut p = Position::start(h, s).unwrap();
        while !engine.is_over(p.mover_board()) && p.seeds_in_houses() > db_seeds + 4 {
            if p.seeds_in_houses() <= max_seeds {
                out.push(p);
                break;
            }
            let moves: Vec<usize> = engine.moves(p.mover_board()).collect();
            let house = moves[rng.below(moves.len() as u64) as usize];
            p = p.play(&engine, house + 1).unwrap().0;
        }
    }
    out
}

#[test]
fn a_search_over_a_window_file_gives_the_values_over_the_byte_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x2545f4914f6cdd1d);
    let mut met = 0u64;
    for (h, s, db_seeds) in [(6usize, 4u32, 12u32), (5, 5, 12)] {
        for capture in [Capture::Standard, Capture::Empty] {
            let rules = Rules { capture, ..Rules::default() };
            let byte_path = dir.path().join(format!("byte-{h}-{capture:?}.kdb"));
            build_file(&byte_path, h, rules, db_seeds, &kalah_db::Quiet).unwrap();
            let byte = Database::open(&byte_path).unwrap();
            let window_path = dir.path().join(format!("w3-{h}-{capture:?}.kdb"));
            kalah_db::writer::reencode(&byte, &window_path, Encoding::Window(3), &|_| {}).unwrap();
            let window = Database::open(&window_path).unwrap();
            assert!(!window.is_exact());
            let options = SearchOptions { threads: 2, tt_bytes: 64 << 20, max_seeds: None };
            let exact = Solver::new(h, rules, byte, options).unwrap();
            let bounded = Solver::new(h, rules, window, options).unwrap();
            for p in positions(h, s, rules, db_seeds, db_seeds + 9, 6, &mut rng) {
                let a = exact.analyze(&p, true, false).unwrap();
                let b = bounded.analyze(&p, true, false).unwrap();
                assert_eq!((a.value, &a.moves), (b.value, &b.moves), "Kalah({h},{s}) {rules}: {}", p.ring());
            }
            // The searches met boards whose values lie outside their
            // windows, and the byte file's searches none.
            assert_eq!(exact.stats().db_bounds, 0);
            met += bounded.stats().db_bounds;
            assert!(bounded.tablebase().stored(kalah_core::Board::from_sides(&[12], &[0])).is_exact());
        }
    }
    assert!(met > 1000, "{met} bounds met");
}
