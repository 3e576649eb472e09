use std::time::Instant;

use kalah_core::{Capture, Position, Rules};
use kalah_db::NoTablebase;
use kalah_search::{SearchOptions, Solver};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(|s| s.as_str()) == Some("build") {
        let h: usize = args[2].parse().unwrap();
        let n: u32 = args[3].parse().unwrap();
        let rules = Rules { capture: Capture::Empty, ..Rules::default() };
        let mut b = kalah_db::Builder::new(h, rules, n).unwrap();
        let start = Instant::now();
        while b.levels_done() <= n {
            let t = Instant::now();
            let l = b.build_next(&kalah_db::Quiet);
            let len = b.indexer().level_len(l);
            println!("level {l}: {len} boards in {:.2}s ({:.1}M/s)", t.elapsed().as_secs_f64(), len as f64 / t.elapsed().as_secs_f64() / 1e6);
        }
        println!("total {:.2}s, recursions {}", start.elapsed().as_secs_f64(), kalah_db::builder::RECURSIONS.load(std::sync::atomic::Ordering::Relaxed));
        return;
    }
    let h: usize = args.get(1).map_or(6, |a| a.parse().unwrap());
    let s: u32 = args.get(2).map_or(4, |a| a.parse().unwrap());
    let capture: Capture = args.get(3).map_or(Capture::Empty, |a| a.parse().unwrap());
    let threads: usize = args.get(4).map_or(1, |a| a.parse().unwrap());
    let mb: usize = args.get(5).map_or(1024, |a| a.parse().unwrap());
    let rules = Rules { capture, ..Rules::default() };
    let options = SearchOptions { threads, tt_bytes: mb << 20 };
    let p = Position::start(h, s).unwrap();
    let start = Instant::now();
    let report = |value: i32, nodes: u64, stats: kalah_search::Stats| {
        let t = start.elapsed().as_secs_f64();
        println!("Kalah({h},{s}) {capture}: value {value} in {t:.2}s, {nodes} nodes, {:.1}M nodes/s", nodes as f64 / t / 1e6);
        println!("{stats:?}");
    };
    match args.get(6) {
        Some(path) => {
            let db = kalah_db::Database::open(std::path::Path::new(path)).unwrap().load_into_memory().unwrap();
            let solver = Solver::new(h, rules, db, options).unwrap();
            let a = solver.analyze(&p, false, false).unwrap();
            report(a.value, solver.nodes(), solver.stats());
        }
        None => {
            let solver = Solver::new(h, rules, NoTablebase { houses: h, rules }, options).unwrap();
            let a = solver.analyze(&p, false, false).unwrap();
            report(a.value, solver.nodes(), solver.stats());
        }
    }
}
