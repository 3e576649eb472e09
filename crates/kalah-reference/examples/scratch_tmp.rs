use std::time::Instant;
use kalah_core::Rules;
use kalah_reference::{solve, RefPosition};
fn main() {
    for (h, s) in [(4, 4), (5, 1), (5, 2), (6, 1), (3, 6), (4, 5), (5, 3), (6, 2)] {
        let t = Instant::now();
        let (v, _) = solve(&Rules::IRVING, &RefPosition::start(h, s));
        println!("Kalah({h},{s}) = {v} in {:.2?}", t.elapsed());
    }
}
