//! Times the reference solver on the sizes the cross-checks use.
//!
//! ```text
//! cargo run -p kalah-reference --release --example timings [-- --all]
//! ```
//!
//! With `--all`, also times `board_values(4, rules, 12)` for all 48 rule sets.

use std::time::Instant;

use kalah_core::{Capture, Rules, Sowing};
use kalah_reference::{board_values, solve, RefPosition};

fn main() {
    let ccw = Rules::IRVING;
    let cw = Rules { sowing: Sowing::Cw, capture: Capture::Standard, ..Rules::IRVING };
    for rules in [ccw, cw] {
        let t = Instant::now();
        let values = board_values(4, &rules, 12);
        println!("board_values(4, {rules}, 12): {} boards in {:.2?}", values.len(), t.elapsed());
    }
    if std::env::args().any(|a| a == "--all") {
        for rules in Rules::all() {
            let t = Instant::now();
            let values = board_values(4, &rules, 12);
            println!("board_values(4, {}, 12): {} boards in {:.2?}", rules.tag(), values.len(), t.elapsed());
        }
    }
    for (rules, h, s) in [(ccw, 4, 3), (cw, 3, 3)] {
        let t = Instant::now();
        let (value, moves) = solve(&rules, &RefPosition::start(h, s));
        println!("solve Kalah({h},{s}) {rules}: {value} {moves:?} in {:.2?}", t.elapsed());
    }
}
