//! Clearing chains: one side emptied into its store by extra moves alone
//! (the sowing solitaire "Tchoukaillon").
//!
//! A *clearing chain* is a sequence of moves of one player, each of whose
//! last seed falls into that player's own store (so each earns an extra
//! move), after which all of that player's houses are empty. A *clearing
//! pattern* is a distribution of seeds over one side from which such a
//! chain exists.
//!
//! # Definition, independent of the end rules
//!
//! Only the sowing matters. Counter-clockwise, the mover's houses lead
//! straight into the mover's store, so a house `d` steps from the store
//! (its *distance*: house `i` of an `h`-house side has distance `h + 1 - i`)
//! ends its sowing in the store exactly when it holds `d` seeds, or `d`
//! plus a multiple of `2h + 1`. The second case sends seeds into the
//! opponent's row, which then do not reach the store: not a clearing. So
//! every move of a chain takes a house holding exactly its distance, puts
//! one seed into the store and one into each house nearer the store, and
//! an `n`-seed pattern clears in exactly `n` moves. No last seed lands in a
//! house, so capture and relay never apply, and the opponent's houses are
//! never touched; whether the game ends at the last move (instant end) or
//! at the opponent's turn changes nothing about the chain. Clockwise a seed
//! reaches the mover's store only after crossing the opponent's row, so
//! no pattern clears; this module is about counter-clockwise sowing.
//!
//! # Exactly one pattern for every number of seeds
//!
//! Patterns are written by distance: `p[d - 1]` seeds in the house at
//! distance `d`. Let `Q` be a clearing pattern of `n` seeds and `P` one of
//! `n + 1` seeds whose chain starts with the house at distance `d`. That
//! move empties house `d` and adds one seed to each house at distance
//! `< d`, leaving a clearing pattern of `n` seeds. Conversely, from `Q`,
//! the move can be *un-sown*: house `d` must be empty in `Q` and every
//! house nearer the store must hold a seed (it just received one), so `d`
//! is the **nearest empty house** of `Q`, and `P` is `Q` with one seed
//! taken from each house nearer the store and `d` seeds put in house `d`.
//! By induction from the empty side (the only 0-seed pattern), the
//! clearing pattern of `n` seeds exists and is unique:
//! [`ClearingPatterns`] builds them in order this way. Playing the chain
//! forward is forced too: a house holding more seeds than its distance can
//! never be emptied into the store (seeds only ever arrive), so the only
//! playable house is the nearest one holding exactly its distance
//! ([`clearing_moves`]).
//!
//! # How many houses
//!
//! The number of houses a pattern needs (its farthest non-empty house)
//! never decreases with `n` and grows by at most one at a time. The least
//! number of seeds whose pattern needs `k` houses is `s(k)` =
//! 1, 2, 4, 6, 10, 12, 18, 22, 30, 34, ... (OEIS A002491); the longest
//! clearing chain on `h` houses therefore lasts `s(h + 1) - 1` moves: 17 on
//! the standard 6-house board.

/// The clearing patterns of 0, 1, 2, ... seeds, in order, each by distance
/// from the store (`p[d - 1]` seeds at distance `d`, no trailing empty
/// houses). The first is the empty side.
#[derive(Clone, Debug, Default)]
pub struct ClearingPatterns {
    next: Vec<u32>,
}

impl ClearingPatterns {
    /// Starts from the empty side.
    pub fn new() -> ClearingPatterns {
        ClearingPatterns { next: Vec::new() }
    }
}

impl Iterator for ClearingPatterns {
    type Item = Vec<u32>;

    fn next(&mut self) -> Option<Vec<u32>> {
        let current = self.next.clone();
        unsow(&mut self.next);
        Some(current)
    }
}

/// Turns the clearing pattern of `n` seeds into that of `n + 1` seeds:
/// un-sows the nearest empty house (see the module docs).
fn unsow(pattern: &mut Vec<u32>) {
    let d = pattern.iter().position(|&s| s == 0).unwrap_or(pattern.len());
    if d == pattern.len() {
        pattern.push(0);
    }
    for seeds in &mut pattern[..d] {
        *seeds -= 1;
    }
    pattern[d] = d as u32 + 1;
}

/// The unique clearing pattern of `n` seeds, by distance from the store.
pub fn clearing_pattern(n: u32) -> Vec<u32> {
    let mut pattern = Vec::new();
    for _ in 0..n {
        unsow(&mut pattern);
    }
    pattern
}

/// Houses a pattern (by distance) needs: the distance of its farthest
/// non-empty house.
pub fn houses_needed(pattern: &[u32]) -> usize {
    pattern.iter().rposition(|&s| s > 0).map_or(0, |d| d + 1)
}

/// The chain that clears `pattern` (by distance), as the distances of the
/// houses played in order; `None` if the side cannot be cleared in one
/// turn of extra moves. The chain is forced: each move plays the nearest
/// house that holds exactly its distance.
pub fn clearing_moves(pattern: &[u32]) -> Option<Vec<usize>> {
    let mut side = pattern.to_vec();
    let mut moves = Vec::new();
    while side.iter().any(|&s| s > 0) {
        let d = side.iter().enumerate().position(|(i, &s)| s == i as u32 + 1)? + 1;
        side[d - 1] = 0;
        for seeds in &mut side[..d - 1] {
            *seeds += 1;
        }
        moves.push(d);
    }
    Some(moves)
}

/// `s(k)`: the least number of seeds whose clearing pattern needs `k`
/// houses (1, 2, 4, 6, 10, 12, 18, ...; `s(0) = 0`).
pub fn least_seeds_needing(k: usize) -> u32 {
    ClearingPatterns::new().zip(0u32..).find(|(p, _)| houses_needed(p) >= k).map(|(_, n)| n).expect("every number of houses is eventually needed")
}

/// The longest clearing chain on `h` houses, in moves (= seeds): the most
/// seeds whose pattern fits, `s(h + 1) - 1`.
pub fn longest_chain(h: usize) -> u32 {
    least_seeds_needing(h + 1) - 1
}

/// A pattern by distance laid out on a side of `h` houses numbered from
/// the owner's left (house `i` is at distance `h + 1 - i`); `None` if it
/// needs more than `h` houses.
pub fn on_houses(pattern: &[u32], h: usize) -> Option<Vec<u32>> {
    if houses_needed(pattern) > h {
        return None;
    }
    Some((1..=h).map(|i| pattern.get(h - i).copied().unwrap_or(0)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Engine, Next};
    use crate::rules::{End, Leftovers, Rules};
    use crate::Board;

    #[test]
    fn the_first_patterns() {
        let first: Vec<Vec<u32>> = ClearingPatterns::new().take(7).collect();
        let expected: [&[u32]; 7] = [&[], &[1], &[0, 2], &[1, 2], &[0, 1, 3], &[1, 1, 3], &[0, 0, 2, 4]];
        for (p, e) in first.iter().zip(expected) {
            assert_eq!(p.as_slice(), e);
        }
        assert_eq!(clearing_pattern(6), vec![0, 0, 2, 4]);
    }

    #[test]
    fn s_of_k_is_a002491_and_17_moves_fit_six_houses() {
        let s: Vec<u32> = (1..=12).map(least_seeds_needing).collect();
        assert_eq!(s, [1, 2, 4, 6, 10, 12, 18, 22, 30, 34, 42, 48]);
        assert_eq!(longest_chain(6), 17);
        assert_eq!(houses_needed(&clearing_pattern(17)), 6);
        assert_eq!(houses_needed(&clearing_pattern(18)), 7);
    }

    #[test]
    fn every_pattern_clears_in_as_many_moves_as_seeds() {
        for (n, p) in ClearingPatterns::new().take(200).enumerate() {
            assert_eq!(p.iter().sum::<u32>() as usize, n);
            let moves = clearing_moves(&p).expect("clears");
            assert_eq!(moves.len(), n);
        }
    }

    /// Whether the mover can empty their side by extra moves alone, every
    /// sequence tried, moves played by the real engine.
    fn engine_clears(engine: &Engine, board: Board) -> bool {
        if board.mover_empty() {
            return true;
        }
        engine.moves(board).any(|house| {
            let o = engine.play(board, house);
            // The opponent's five houses cannot all be emptied by one move,
            // so with the turn-based end the game is over only after an
            // extra move that empties the mover's side; leftovers are
            // unscored, so the gain is the sowing's alone.
            match o.next {
                Next::Mover => engine_clears(engine, o.board),
                Next::Over => o.board.mover_empty() && o.mover_gain == board.mover_seeds(),
                Next::Opponent => false,
            }
        })
    }

    #[test]
    fn the_engine_clears_exactly_the_one_pattern() {
        let h = 5;
        let rules = Rules { end: End::Turn, leftovers: Leftovers::Unscored, ..Rules::default() };
        let engine = Engine::new(h, rules);
        // Patterns of up to 11 seeds fit 5 houses; 12 seeds need 6.
        for n in 0..=12u32 {
            let mut clearing = Vec::new();
            let mut side = vec![0u8; h];
            // Every distribution of n seeds over h houses.
            fn each(i: usize, left: u32, side: &mut Vec<u8>, f: &mut dyn FnMut(&[u8])) {
                if i + 1 == side.len() {
                    side[i] = left as u8;
                    f(side);
                    return;
                }
                for s in 0..=left {
                    side[i] = s as u8;
                    each(i + 1, left - s, side, f);
                }
            }
            each(0, n, &mut side, &mut |side: &[u8]| {
                if engine_clears(&engine, Board::from_sides(side, &[1; 5])) {
                    clearing.push(side.to_vec());
                }
            });
            let expected: Vec<Vec<u8>> = on_houses(&clearing_pattern(n), h).map(|p| p.iter().map(|&s| s as u8).collect()).into_iter().collect();
            assert_eq!(expected.len(), usize::from(n < 12));
            assert_eq!(clearing, expected, "{n} seeds");
        }
    }
}
