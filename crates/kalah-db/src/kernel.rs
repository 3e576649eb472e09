//! The builder's fast path for counter-clockwise sowing without relay.
//!
//! The builder sweeps a block with the mover's houses `x` in the inner loop
//! and the opponent's houses `y` in the outer one (or the other way round;
//! see `Builder::sweep_pair`). Most of a move's work depends on one side
//! only, so it is done once per side instead of once per board:
//!
//! * [`SideMove`]: what move `i` does to the mover's own houses: where the
//!   last seed falls (an own house, the store, or the opponent's row after
//!   `r` seeds there), the mover's houses afterwards and their half rank,
//!   and the half rank without the landing house (after a capture).
//! * [`SideInfo`]: the opponent's houses as the moves see them: their half
//!   rank, the half rank with house `j` emptied (captured), and with one
//!   seed added to each of the first `r` houses (sown into).
//!
//! A board's successor index is then one multiply-add of precomputed half
//! ranks (`kalah_core::rank`). Moves that sow more seeds than reach the
//! opponent's last house (a lap, or a wrap into the mover's own row) are
//! rare and take the general path: `Engine::play` and a full index.

use kalah_core::{Board, Capture, Engine, Indexer, MAX_HOUSES};

/// Where a move's last seed falls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Landing {
    /// In the mover's own house, before reaching the store.
    Own {
        /// The house.
        house: u8,
        /// It was empty, so the seed may capture.
        was_empty: bool,
    },
    /// In the mover's store: the mover plays again.
    Store,
    /// In the opponent's house `r - 1`, after one seed in each of their first `r` houses.
    Opponent {
        /// Seeds sown into the opponent's row.
        r: u8,
    },
    /// Anything longer: played by the general engine.
    General,
}

/// A move's effect on the mover's own houses; see the module docs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SideMove {
    /// The house played.
    pub(crate) house: u8,
    pub(crate) landing: Landing,
    /// The mover's houses after sowing (before any capture).
    pub(crate) after: u64,
    pub(crate) after_seeds: u32,
    pub(crate) after_rank: u64,
    /// The half rank of `after` with the landing house emptied.
    pub(crate) captured_rank: u64,
}

/// The opponent's houses as the moves see them; see the module docs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SideInfo {
    pub(crate) word: u64,
    pub(crate) seeds: u32,
    pub(crate) rank: u64,
    /// Half rank with house `j` emptied.
    pub(crate) without: [u64; MAX_HOUSES],
    /// Half rank with one seed added to each of houses `0..r` (index `r`).
    pub(crate) plus: [u64; MAX_HOUSES + 1],
}

/// One seed in each of the first `r` bytes.
#[inline]
fn ones(r: usize) -> u64 {
    kalah_core::board::ones(r)
}

#[inline]
fn byte(word: u64, i: usize) -> u64 {
    (word >> (8 * i)) & 0xff
}

impl SideInfo {
    pub(crate) fn new(indexer: &Indexer, word: u64) -> SideInfo {
        let h = indexer.houses();
        let mut without = [0u64; MAX_HOUSES];
        let mut plus = [0u64; MAX_HOUSES + 1];
        for (j, w) in without.iter_mut().enumerate().take(h) {
            *w = indexer.word_rank(word & !(0xff << (8 * j)));
        }
        for (r, p) in plus.iter_mut().enumerate().take(h + 1) {
            *p = indexer.word_rank(word + ones(r));
        }
        SideInfo { word, seeds: byte_sum(word), rank: plus[0], without, plus }
    }
}

#[inline]
fn byte_sum(word: u64) -> u32 {
    Board::from_words(word, 0).mover_seeds()
}

/// The moves of the mover's side `word` (an `h`-house side), into `out`;
/// returns how many.
pub(crate) fn side_moves(indexer: &Indexer, word: u64, out: &mut [SideMove; MAX_HOUSES]) -> usize {
    let h = indexer.houses();
    let mut count = 0;
    for i in 0..h {
        let s = byte(word, i) as usize;
        if s == 0 {
            continue;
        }
        let d = h - i; // cells to the store: houses i+1..h-1, then the store
        let emptied = word & !(0xff << (8 * i));
        let (after, landing) = if s < d {
            let after = emptied + (ones(s) << (8 * (i + 1)));
            let c = i + s;
            let landing = Landing::Own { house: c as u8, was_empty: byte(word, c) == 0 };
            (after, landing)
        } else if s == d {
            (emptied + (ones(d - 1) << (8 * (i + 1))), Landing::Store)
        } else if s <= d + h {
            (emptied + (ones(d - 1) << (8 * (i + 1))), Landing::Opponent { r: (s - d) as u8 })
        } else {
            (word, Landing::General)
        };
        let captured_rank = match landing {
            Landing::Own { house, .. } => indexer.word_rank(after & !(0xff << (8 * house as usize))),
            _ => 0,
        };
        out[count] = SideMove { house: i as u8, landing, after, after_seeds: byte_sum(after), after_rank: indexer.word_rank(after), captured_rank };
        count += 1;
    }
    count
}

/// A successor of a board, as the kernel finds it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Successor {
    /// The value of the move is known: the game ended.
    Value(i32),
    /// The move is worth `gain + sign * value(index)`; `board` is the
    /// successor (needed only if it must be solved first), of `level` seeds.
    Lookup { index: u64, level: u32, gain: i32, same_mover: bool, board: Board },
    /// Not handled here: play the move with the general engine.
    General,
}

/// The successor of move `mv` of the mover's side against opponent `y`,
/// for boards with `n` seeds (`h` houses, counter-clockwise, no relay).
#[inline]
pub(crate) fn successor(engine: &Engine, indexer: &Indexer, capture: Capture, n: u32, mv: &SideMove, y: &SideInfo) -> Successor {
    let h = indexer.houses();
    match mv.landing {
        Landing::Own { house, was_empty } => {
            let c = house as usize;
            let j = h - 1 - c;
            let taken = byte(y.word, j) as u32;
            if was_empty && (taken > 0 || capture == Capture::Empty) {
                let mover = mv.after & !(0xff << (8 * c));
                let opponent = y.word & !(0xff << (8 * j));
                let board = Board::from_words(mover, opponent);
                let gain = (taken + 1) as i32;
                if engine.ends(board, false) {
                    return Successor::Value(gain + engine.leftover_value(board));
                }
                let y_seeds = y.seeds - taken;
                let m = mv.after_seeds - 1;
                let index = indexer.block_base(m + y_seeds, y_seeds) + mv.captured_rank * indexer.side_len(y_seeds) + y.without[j];
                Successor::Lookup { index, level: m + y_seeds, gain, same_mover: false, board: board.flip() }
            } else {
                let board = Board::from_words(mv.after, y.word);
                if engine.ends(board, false) {
                    return Successor::Value(engine.leftover_value(board));
                }
                let index = indexer.block_base(n, y.seeds) + mv.after_rank * indexer.side_len(y.seeds) + y.rank;
                Successor::Lookup { index, level: n, gain: 0, same_mover: false, board: board.flip() }
            }
        }
        Landing::Store => {
            let board = Board::from_words(mv.after, y.word);
            if engine.ends(board, true) {
                return Successor::Value(1 + engine.leftover_value(board));
            }
            let m = mv.after_seeds;
            let index = indexer.block_base(n - 1, m) + y.rank * indexer.side_len(m) + mv.after_rank;
            Successor::Lookup { index, level: n - 1, gain: 1, same_mover: true, board }
        }
        Landing::Opponent { r } => {
            let opponent = y.word + ones(r as usize);
            let board = Board::from_words(mv.after, opponent);
            if engine.ends(board, false) {
                return Successor::Value(1 + engine.leftover_value(board));
            }
            let y_seeds = y.seeds + r as u32;
            let index = indexer.block_base(n - 1, y_seeds) + mv.after_rank * indexer.side_len(y_seeds) + y.plus[r as usize];
            Successor::Lookup { index, level: n - 1, gain: 1, same_mover: false, board: board.flip() }
        }
        Landing::General => Successor::General,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kalah_core::{Next, Rules};

    /// The kernel's successors equal the general engine's, for every board
    /// of small levels and both capture rules and all end/leftover rules.
    #[test]
    fn the_kernel_agrees_with_the_engine() {
        for rules in Rules::all().filter(|r| !r.may_cycle() && r.relay == kalah_core::Relay::Off) {
            for h in [1usize, 2, 3, 5] {
                let ix = Indexer::new(h, 9);
                let engine = Engine::new(h, rules);
                for i in 0..ix.len() {
                    let board = ix.unrank(i);
                    if engine.is_over(board) {
                        continue;
                    }
                    let n = board.total();
                    let y = SideInfo::new(&ix, board.opponent_word());
                    let mut moves =
                        [SideMove { house: 0, landing: Landing::General, after: 0, after_seeds: 0, after_rank: 0, captured_rank: 0 }; MAX_HOUSES];
                    let count = side_moves(&ix, board.mover_word(), &mut moves);
                    assert_eq!(count, engine.moves(board).count());
                    for mv in &moves[..count] {
                        let o = engine.play(board, mv.house as usize);
                        match successor(&engine, &ix, rules.capture, n, mv, &y) {
                            Successor::Value(v) => {
                                assert_eq!(o.next, Next::Over, "{rules} {board:?} house {}", mv.house);
                                assert_eq!(v, o.gain());
                            }
                            Successor::Lookup { index, level, gain, same_mover, board: child } => {
                                assert_ne!(o.next, Next::Over, "{rules} {board:?} house {}", mv.house);
                                assert_eq!(level, o.board.total());
                                assert_eq!(child, o.board);
                                assert_eq!(index, ix.index(o.board), "{rules} {board:?} house {}", mv.house);
                                assert_eq!(gain, o.gain());
                                assert_eq!(same_mover, o.next == Next::Mover);
                            }
                            Successor::General => {
                                assert!(board.get(mv.house as usize) as usize > 2 * h - mv.house as usize);
                            }
                        }
                    }
                }
            }
        }
    }
}
