//! Cross-check of the reference `play` against `kalah_core::Engine` (through
//! `kalah_core::Position`, which converts the engine's mover-relative boards
//! back to the ring) on random positions, for all 48 rule sets and h = 1..=6.
//!
//! Both must give the same houses and stores, the same game-over flag and,
//! while the game goes on, the same side to move. Once the game is over the
//! side to move is a convention that differs: the reference names the player
//! who would move next by the move rules, `Position::play` names the player
//! whose houses are empty (the same player under `end = turn`).

use kalah_core::{Engine, Next, Position, Rules, Side};
use kalah_reference::{play, RefPosition};
use proptest::prelude::*;

/// The ring form without the side to move.
fn cells_of(ring: &str) -> &str {
    ring.rsplit_once(' ').map_or(ring, |(cells, _)| cells)
}

fn reference_of(p: &Position) -> RefPosition {
    let ring = p.ring();
    let (cells, side) = ring.rsplit_once(' ').unwrap();
    RefPosition { cells: cells.split(',').map(|c| c.parse().unwrap()).collect(), south_to_move: side == "S" }
}

/// Plays every legal move of the position both ways under every rule set;
/// returns the number of moves compared.
fn compare_all(h: usize, cells: &[u32], south_to_move: bool) -> Result<usize, TestCaseError> {
    let side = if south_to_move { Side::South } else { Side::North };
    let south = &cells[..h];
    let north = &cells[h + 1..2 * h + 1];
    let p = Position::new(south, north, [cells[h], cells[2 * h + 1]], side).unwrap();
    let reference = reference_of(&p);
    prop_assert_eq!(&reference.cells[..], cells);
    let mut compared = 0;
    for rules in Rules::all() {
        let engine = Engine::new(h, rules);
        let over = p.is_over(&engine);
        prop_assert_eq!(over, reference.is_over(&rules), "{} under {}", p, rules);
        if over {
            continue;
        }
        for house in p.legal_moves() {
            let (q, outcome) = p.play(&engine, house).unwrap();
            let (r, r_over) = play(&rules, &reference, house);
            let core_over = outcome.next == Next::Over;
            let q_ring = q.ring();
            let r_ring = r.to_string();
            prop_assert_eq!(cells_of(&q_ring), cells_of(&r_ring), "{} house {} under {}: engine {}, reference {}", p, house, rules, q_ring, r_ring);
            prop_assert_eq!(core_over, r_over, "{} house {} under {}", p, house, rules);
            if !r_over {
                prop_assert_eq!(&q_ring, &r_ring, "{} house {} under {}", p, house, rules);
            }
            compared += 1;
        }
    }
    Ok(compared)
}

/// A ring with `h` houses a side from up to 18 random cells.
fn ring(h: usize, raw: &[u32]) -> Vec<u32> {
    let mut cells: Vec<u32> = raw[..2 * h + 2].to_vec();
    // Keep stores small and every house's count within what a Board holds.
    cells[h] %= 50;
    cells[2 * h + 1] %= 50;
    cells
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Small counts: many empty houses, captures, sides running out.
    #[test]
    fn small_counts(h in 1usize..=6, raw in prop::collection::vec(0u32..=3, 14), south in any::<bool>()) {
        compare_all(h, &ring(h, &raw), south)?;
    }

    /// Medium counts: laps, relay chains.
    #[test]
    fn medium_counts(h in 1usize..=6, raw in prop::collection::vec(0u32..=9, 14), south in any::<bool>()) {
        compare_all(h, &ring(h, &raw), south)?;
    }

    /// Large counts: laps of the ring (at most 17 a house keeps h = 6 within
    /// the 206 seeds a `Position` accepts).
    #[test]
    fn large_counts(h in 1usize..=6, raw in prop::collection::vec(0u32..=17, 14), south in any::<bool>()) {
        compare_all(h, &ring(h, &raw), south)?;
    }

    /// Many laps on small boards (6 houses of at most 42 seeds stay within
    /// a `Board`'s 255).
    #[test]
    fn many_laps(h in 1usize..=3, raw in prop::collection::vec(0u32..=42, 14), south in any::<bool>()) {
        compare_all(h, &ring(h, &raw), south)?;
    }

    /// A house of 64 seeds or more: a move the engine sows lap by lap
    /// instead of looking it up whole (`Engine::play`). At most 250 seeds
    /// on the board.
    #[test]
    fn a_house_beyond_the_lookup(h in 1usize..=2, raw in prop::collection::vec(0u32..=40, 14), big in 64u32..=130, at in 0usize..4, south in any::<bool>()) {
        let mut cells = ring(h, &raw);
        let houses: Vec<usize> = (0..2 * h + 2).filter(|&c| c != h && c != 2 * h + 1).collect();
        cells[houses[at % houses.len()]] = big;
        compare_all(h, &cells, south)?;
    }
}

/// Every position of a small board, exhaustively.
#[test]
fn every_position_of_two_houses_with_up_to_six_seeds() {
    let mut compared = 0;
    for s1 in 0..=6u32 {
        for s2 in 0..=6 - s1 {
            for n1 in 0..=6 - s1 - s2 {
                for n2 in 0..=6 - s1 - s2 - n1 {
                    for south in [true, false] {
                        compared += compare_all(2, &[s1, s2, 3, n1, n2, 1], south).unwrap();
                    }
                }
            }
        }
    }
    assert!(compared > 10_000, "{compared}");
}

/// Every game of Kalah(h, s) played out along random legal moves under all
/// 48 rule sets: positions that arise in play, not just random ones.
#[test]
fn random_games_stay_in_step() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for rules in Rules::all() {
        for h in 1..=6 {
            let engine = Engine::new(h, rules);
            for s in 1..=6 {
                for _game in 0..10 {
                    let mut p = Position::start(h, s).unwrap();
                    let mut r = RefPosition::start(h, s);
                    for _ply in 0..400 {
                        if p.is_over(&engine) {
                            assert!(r.is_over(&rules), "{p} under {rules}");
                            break;
                        }
                        let moves = p.legal_moves();
                        let house = moves[(next() % moves.len() as u64) as usize];
                        let (q, outcome) = p.play(&engine, house).unwrap();
                        let (r2, over) = play(&rules, &r, house);
                        assert_eq!(cells_of(&q.ring()), cells_of(&r2.to_string()), "{p} {house} {rules}");
                        assert_eq!(outcome.next == Next::Over, over, "{p} {house} {rules}");
                        if over {
                            break;
                        }
                        assert_eq!(q.ring(), r2.to_string(), "{p} {house} {rules}");
                        p = q;
                        r = r2;
                    }
                }
            }
        }
    }
}
