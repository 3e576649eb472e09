//! What the integration tests share: reproducible random boards and small search options.

use kalah_core::Board;
use kalah_search::SearchOptions;

/// A small deterministic generator (xorshift), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A board of `h` houses a side with `seeds` seeds dropped at random.
#[allow(dead_code)] // not every test binary uses it
pub fn random_board(rng: &mut Rng, h: usize, seeds: u32) -> Board {
    let mut cells = [0u8; 16];
    for _ in 0..seeds {
        cells[rng.below(2 * h as u64) as usize] += 1;
    }
    Board::from_sides(&cells[..h], &cells[h..2 * h])
}

/// Two threads and a 16 MiB table (128 MiB on five and six houses, for
/// their keys' fixed fields: the searches' largest boards are not given).
pub fn options() -> SearchOptions {
    SearchOptions { threads: 2, tt_bytes: 16 << 20, max_seeds: None }
}

/// [`options`] for boards of at most `max_seeds` seeds: on five to eight
/// houses the table stays at 16 MiB with unary keys while they fit.
#[allow(dead_code)] // not every test binary uses it
pub fn options_for(max_seeds: u32) -> SearchOptions {
    SearchOptions { max_seeds: Some(max_seeds), ..options() }
}
