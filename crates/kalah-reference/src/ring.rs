//! The absolute ring of `2h + 2` cells and one move on it, seed by seed.
//!
//! ```text
//!            North's houses, seen from South's seat
//!           N_h   ..   N2    N1
//!          [2h]  ..  [h+2] [h+1]
//!  N store                          S store
//!  [2h+1]                            [h]
//!          [0]   [1]   ..  [h-1]
//!           S1    S2   ..   Sh
//! ```
//!
//! Counter-clockwise sowing steps +1 around this ring, clockwise sowing
//! steps -1; either way the mover's sowing skips the opponent's store and
//! nothing else (the emptied house gets a seed on later laps). Everything
//! here is written to be checked against `RULES.md` line by line; nothing is
//! precomputed.

use std::collections::HashSet;
use std::fmt;

use kalah_core::{Capture, End, Leftovers, Relay, Rules, Sowing};

/// A position on the absolute ring with the side to move.
///
/// `cells` holds the `2h + 2` cells in counter-clockwise ring order (South's
/// houses S1..Sh, South's store, North's houses N1..Nh, North's store),
/// exactly the ring form of `RULES.md`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RefPosition {
    /// Seeds in each cell, in counter-clockwise ring order.
    pub cells: Vec<u32>,
    /// Whether South is to move (North otherwise).
    pub south_to_move: bool,
}

impl RefPosition {
    /// The start of Kalah(h, s): `s` seeds in every house, empty stores,
    /// South to move.
    ///
    /// # Panics
    /// If `h` is 0.
    pub fn start(h: usize, s: u32) -> Self {
        assert!(h >= 1, "a board has at least one house a side");
        let mut cells = vec![s; 2 * h + 2];
        cells[store(h, true)] = 0;
        cells[store(h, false)] = 0;
        RefPosition { cells, south_to_move: true }
    }

    /// Houses a side, `h`.
    ///
    /// # Panics
    /// If `cells` does not have the length `2h + 2` of a ring with `h >= 1`.
    pub fn houses(&self) -> usize {
        let n = self.cells.len();
        assert!(n >= 4 && n.is_multiple_of(2), "a ring has 2h + 2 cells with h >= 1, not {n}");
        n / 2 - 1
    }

    /// Whether the game is over in this position, before any sweep:
    /// with [`End::Instant`] when either side's houses are all empty, with
    /// [`End::Turn`] when the player to move has no seed in their houses.
    pub fn is_over(&self, rules: &Rules) -> bool {
        let south_empty = self.side_seeds(true) == 0;
        let north_empty = self.side_seeds(false) == 0;
        match rules.end {
            End::Instant => south_empty || north_empty,
            End::Turn if self.south_to_move => south_empty,
            End::Turn => north_empty,
        }
    }

    /// Seeds in the houses of one side (`south` or North).
    pub(crate) fn side_seeds(&self, south: bool) -> u32 {
        self.cells[side_houses(self.houses(), south)].iter().sum()
    }

    /// The mover's store minus the opponent's.
    pub(crate) fn store_difference(&self) -> i32 {
        let h = self.houses();
        let mine = self.cells[store(h, self.south_to_move)] as i64;
        let theirs = self.cells[store(h, !self.south_to_move)] as i64;
        i32::try_from(mine - theirs).expect("store difference fits in i32")
    }

    /// The houses (1-based from the mover's left) the player to move may
    /// play: the non-empty ones, unless the game is over.
    pub(crate) fn legal_moves(&self, rules: &Rules) -> Vec<usize> {
        if self.is_over(rules) {
            return Vec::new();
        }
        let h = self.houses();
        (1..=h).filter(|&i| self.cells[house_cell(h, self.south_to_move, i)] > 0).collect()
    }

    /// The score of the leftovers of a finished game (not yet swept) for the
    /// player to move: what the end-of-game rule will still add to the store
    /// difference.
    ///
    /// # Panics
    /// If the game is not over.
    pub(crate) fn leftover_score(&self, rules: &Rules) -> i32 {
        assert!(self.is_over(rules), "leftovers are only scored at the end: {self}");
        let mine = self.side_seeds(self.south_to_move) as i32;
        let theirs = self.side_seeds(!self.south_to_move) as i32;
        match rules.leftovers {
            Leftovers::Owner => mine - theirs,
            Leftovers::Unscored => 0,
            // The player whose houses are empty gets everything left.
            Leftovers::Emptier if mine == 0 => theirs,
            Leftovers::Emptier if theirs == 0 => -mine,
            Leftovers::Emptier => unreachable!("a finished game has an empty side: {self}"),
        }
    }
}

/// The ring form of `RULES.md`: `4,4,4,0,4,4,4,0 S`.
impl fmt::Display for RefPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cells: Vec<String> = self.cells.iter().map(u32::to_string).collect();
        let side = if self.south_to_move { 'S' } else { 'N' };
        write!(f, "{} {side}", cells.join(","))
    }
}

/// The store cell of South (`south`) or North.
pub(crate) fn store(h: usize, south: bool) -> usize {
    if south {
        h
    } else {
        2 * h + 1
    }
}

/// The cells of one side's houses.
pub(crate) fn side_houses(h: usize, south: bool) -> std::ops::Range<usize> {
    if south {
        0..h
    } else {
        h + 1..2 * h + 1
    }
}

/// The cell of one side's house `i` (1-based from its owner's left).
pub(crate) fn house_cell(h: usize, south: bool, i: usize) -> usize {
    side_houses(h, south).start + i - 1
}

/// The house opposite a house cell: Si faces N(h+1-i), i.e. `c` faces `2h - c`.
fn opposite(h: usize, cell: usize) -> usize {
    2 * h - cell
}

/// The cell after `cell` in the sowing order of the player `south` (or North):
/// one step around the ring, a second one if the first hit the opponent's store.
fn next_cell(h: usize, sowing: Sowing, south: bool, cell: usize) -> usize {
    let len = 2 * h + 2;
    let step = |c: usize| match sowing {
        Sowing::Ccw => (c + 1) % len,
        Sowing::Cw => (c + len - 1) % len,
    };
    let next = step(cell);
    if next == store(h, !south) {
        step(next)
    } else {
        next
    }
}

/// Plays house `house` (1-based from the mover's left) of the player to move.
///
/// Returns the position after the whole move (relay chains, captures and the
/// end-of-game sweep included) and whether the game is now over.
///
/// * The side to move afterwards is the mover again if the last seed fell
///   into the mover's store, the opponent otherwise. This is also so when the
///   game is over (a convention: nobody moves then). Under [`End::Turn`] this
///   is always the player whose houses are empty.
/// * When the game is over the leftovers are dealt with: [`Leftovers::Owner`]
///   sweeps each side into its owner's store, [`Leftovers::Emptier`] gives all
///   of them to the player whose houses are empty, [`Leftovers::Unscored`]
///   leaves them in the houses, where they count for nobody.
///
/// # Panics
/// If the game is already over, if `house` is not in `1..=h` or is empty, or
/// if a relay chain would go round for ever (not known to happen).
pub fn play(rules: &Rules, pos: &RefPosition, house: usize) -> (RefPosition, bool) {
    let h = pos.houses();
    let me = pos.south_to_move;
    assert!(!pos.is_over(rules), "no move in a finished game: {pos}");
    assert!((1..=h).contains(&house), "there is no house {house} on a board of {h}");
    let from = house_cell(h, me, house);
    assert!(pos.cells[from] > 0, "house {house} of the player to move is empty: {pos}");

    let own_store = store(h, me);
    let mut cells = pos.cells.clone();
    let mut cell = from;
    let mut hand = std::mem::take(&mut cells[cell]);
    // Relay states seen so far, to stop rather than hang on an endless chain.
    let mut relay_states = HashSet::new();
    let extra_move = loop {
        while hand > 0 {
            cell = next_cell(h, rules.sowing, me, cell);
            cells[cell] += 1;
            hand -= 1;
        }
        if cell == own_store {
            break true;
        }
        match rules.relay {
            Relay::On => {
                // No captures; a last seed in a house that was not empty
                // (on either side) takes it up and sows on from there.
                if cells[cell] > 1 {
                    assert!(relay_states.insert((cells.clone(), cell)), "relay sowing never ends: {pos}, house {house}");
                    hand = std::mem::take(&mut cells[cell]);
                    continue;
                }
                break false;
            }
            Relay::Off => {
                let own_house = side_houses(h, me).contains(&cell);
                if own_house && cells[cell] == 1 {
                    let facing = opposite(h, cell);
                    if cells[facing] > 0 || rules.capture == Capture::Empty {
                        cells[own_store] += cells[cell] + cells[facing];
                        cells[cell] = 0;
                        cells[facing] = 0;
                    }
                }
                break false;
            }
        }
    };

    let mut next = RefPosition { cells, south_to_move: if extra_move { me } else { !me } };
    let over = next.is_over(rules);
    if over {
        sweep(rules, &mut next.cells, h);
    }
    (next, over)
}

/// Deals with the seeds left in the houses at the end of the game.
fn sweep(rules: &Rules, cells: &mut [u32], h: usize) {
    let south: u32 = cells[side_houses(h, true)].iter().sum();
    let north: u32 = cells[side_houses(h, false)].iter().sum();
    match rules.leftovers {
        Leftovers::Unscored => return,
        Leftovers::Owner => {
            cells[store(h, true)] += south;
            cells[store(h, false)] += north;
        }
        Leftovers::Emptier if south == 0 => cells[store(h, true)] += north,
        Leftovers::Emptier if north == 0 => cells[store(h, false)] += south,
        Leftovers::Emptier => unreachable!("a finished game has an empty side"),
    }
    for side in [true, false] {
        cells[side_houses(h, side)].fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(f: impl FnOnce(&mut Rules)) -> Rules {
        let mut r = Rules::default();
        f(&mut r);
        r
    }

    fn pos(cells: &[u32], south_to_move: bool) -> RefPosition {
        RefPosition { cells: cells.to_vec(), south_to_move }
    }

    /// Plays and returns the ring form and the over flag.
    fn after(r: &Rules, p: &RefPosition, house: usize) -> (String, bool) {
        let (q, over) = play(r, p, house);
        assert_eq!(q.cells.iter().sum::<u32>(), p.cells.iter().sum::<u32>(), "seeds are kept");
        (q.to_string(), over)
    }

    #[test]
    fn start_and_ring_form() {
        let p = RefPosition::start(3, 4);
        assert_eq!(p.to_string(), "4,4,4,0,4,4,4,0 S");
        assert_eq!(p.houses(), 3);
        assert_eq!(p.legal_moves(&Rules::default()), vec![1, 2, 3]);
    }

    #[test]
    fn sowing_into_and_past_the_own_store() {
        let r = Rules::default();
        let p = RefPosition::start(6, 4);
        // S3: S4 S5 S6 store: extra move.
        assert_eq!(after(&r, &p, 3), ("4,4,0,5,5,5,1,4,4,4,4,4,4,0 S".into(), false));
        // S6: store N1 N2 N3: turn passes.
        assert_eq!(after(&r, &p, 6), ("4,4,4,4,4,0,1,5,5,5,4,4,4,0 N".into(), false));
        // North's N6: North's store, S1 S2 S3.
        let n = pos(&[4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0], false);
        assert_eq!(after(&r, &n, 6), ("5,5,5,4,4,4,0,4,4,4,4,4,0,1 S".into(), false));
    }

    #[test]
    fn sowing_skips_the_opponent_store_and_laps_into_the_emptied_house() {
        let r = Rules::default();
        // h = 2, South S2 with 6 seeds: store N1 N2 (skip N store) S1 S2 store.
        let p = pos(&[1, 6, 0, 1, 1, 0], true);
        assert_eq!(after(&r, &p, 2), ("2,1,2,2,2,0 S".into(), false));
        // North N2 with 4 seeds: N store S1 S2 (skip S store) N1.
        let p = pos(&[1, 1, 0, 1, 4, 0], false);
        assert_eq!(after(&r, &p, 2), ("2,2,0,2,0,1 S".into(), false));
    }

    #[test]
    fn multi_lap_sowing() {
        let r = Rules::default();
        // h = 6, 27 seeds from S1: two laps of 13 cells (all houses +2, own
        // store +2, the emptied S1 included) and one more seed into S2.
        let mut cells = vec![27, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0];
        cells[6] = 3;
        let p = pos(&cells, true);
        assert_eq!(after(&r, &p, 1), ("2,3,2,2,2,2,5,3,3,3,3,3,3,0 N".into(), false));
        // h = 1, 7 seeds from S1: S store, N1, S1, S store, N1, S1, S store.
        let p = pos(&[7, 0, 2, 0], true);
        assert_eq!(after(&r, &p, 1), ("2,3,4,0 S".into(), false));
    }

    #[test]
    fn capture_standard_needs_an_opposite_seed() {
        let r = Rules::default();
        // h = 3: S1 (1 seed) lands in empty S2, opposite N2 holds 5.
        let p = pos(&[1, 0, 2, 0, 1, 5, 1, 0], true);
        assert_eq!(after(&r, &p, 1), ("0,0,2,6,1,0,1,0 N".into(), false));
        // Opposite N2 empty: no capture under the standard rule.
        let p = pos(&[1, 0, 2, 0, 1, 0, 1, 0], true);
        assert_eq!(after(&r, &p, 1), ("0,1,2,0,1,0,1,0 N".into(), false));
        // North: N1 (1 seed) into empty N2, opposite S2 holds 4.
        let p = pos(&[1, 4, 1, 0, 1, 0, 3, 0], false);
        assert_eq!(after(&r, &p, 1), ("1,0,1,0,0,0,3,5 S".into(), false));
        // Last seed in an own house that was not empty: nothing.
        let p = pos(&[1, 1, 2, 0, 1, 5, 1, 0], true);
        assert_eq!(after(&r, &p, 1), ("0,2,2,0,1,5,1,0 N".into(), false));
        // Last seed in an empty house of the opponent: nothing.
        let p = pos(&[1, 0, 2, 0, 0, 5, 1, 0], true);
        assert_eq!(after(&r, &p, 3), ("1,0,0,1,1,5,1,0 N".into(), false));
    }

    #[test]
    fn capture_empty_takes_the_lone_seed() {
        let r = rules(|r| r.capture = Capture::Empty);
        let p = pos(&[1, 0, 2, 0, 1, 0, 1, 0], true);
        assert_eq!(after(&r, &p, 1), ("0,0,2,1,1,0,1,0 N".into(), false));
        // With an opposite seed it is the ordinary capture.
        let p = pos(&[1, 0, 2, 0, 1, 5, 1, 0], true);
        assert_eq!(after(&r, &p, 1), ("0,0,2,6,1,0,1,0 N".into(), false));
        // A full lap back into the emptied house captures (h = 1: 3 seeds
        // from S1: S store, N1, S1); both sides are then empty.
        let p = pos(&[3, 0, 1, 0], true);
        assert_eq!(after(&r, &p, 1), ("0,4,0,0 N".into(), true));
    }

    #[test]
    fn extra_move_keeps_the_mover() {
        let r = Rules::default();
        let p = pos(&[0, 2, 1, 0, 1, 1, 1, 0], true);
        assert_eq!(after(&r, &p, 3), ("0,2,0,1,1,1,1,0 S".into(), false));
        // North into its own store.
        let p = pos(&[1, 1, 1, 0, 0, 2, 0, 0], false);
        assert_eq!(after(&r, &p, 2), ("1,1,1,0,0,0,1,1 N".into(), false));
    }

    #[test]
    fn instant_end_sweeps_by_each_leftovers_rule() {
        // h = 2, South plays S2 (1 seed) into its store and is empty.
        let p = pos(&[0, 1, 0, 3, 2, 0], true);
        let owner = Rules::default();
        assert_eq!(after(&owner, &p, 2), ("0,0,1,0,0,5 S".into(), true));
        let unscored = rules(|r| r.leftovers = Leftovers::Unscored);
        assert_eq!(after(&unscored, &p, 2), ("0,0,1,3,2,0 S".into(), true));
        let emptier = rules(|r| r.leftovers = Leftovers::Emptier);
        assert_eq!(after(&emptier, &p, 2), ("0,0,6,0,0,0 S".into(), true));
        // The opponent's side empties by a capture (h = 3, S1 into empty S2
        // opposite N2, North's only seeds); South's S3 stays.
        let p = pos(&[1, 0, 2, 0, 0, 4, 0, 0], true);
        assert_eq!(after(&owner, &p, 1), ("0,0,0,7,0,0,0,0 N".into(), true));
        assert_eq!(after(&unscored, &p, 1), ("0,0,2,5,0,0,0,0 N".into(), true));
        assert_eq!(after(&emptier, &p, 1), ("0,0,0,5,0,0,0,2 N".into(), true));
    }

    #[test]
    fn turn_end_waits_for_the_player_to_move() {
        let turn = rules(|r| r.end = End::Turn);
        // South empties its side with an extra move: South is to move and cannot.
        let p = pos(&[0, 1, 0, 3, 2, 0], true);
        assert_eq!(after(&turn, &p, 2), ("0,0,1,0,0,5 S".into(), true));
        // South empties its side and the turn passes: North plays on.
        let p = pos(&[0, 2, 0, 3, 2, 0], true);
        assert_eq!(after(&turn, &p, 2), ("0,0,1,4,2,0 N".into(), false));
        // North's side is empty but South has an extra move: play on.
        let p = pos(&[2, 1, 0, 0, 0, 0], true);
        assert_eq!(after(&turn, &p, 2), ("2,0,1,0,0,0 S".into(), false));
        assert!(!pos(&[2, 0, 1, 0, 0, 0], true).is_over(&turn));
        assert!(pos(&[2, 0, 1, 0, 0, 0], true).is_over(&Rules::default()));
        // The turn passes to an empty North: over, South's seeds swept.
        let p = pos(&[1, 2, 0, 0, 0, 0], true);
        assert_eq!(after(&turn, &p, 1), ("0,0,3,0,0,0 N".into(), true));
    }

    #[test]
    fn clockwise_sowing_runs_through_the_opponent_row_to_the_own_store() {
        let cw = rules(|r| r.sowing = Sowing::Cw);
        // h = 3, South S2 with 3 seeds: S1, N3, N2 (turn passes).
        let p = pos(&[0, 3, 0, 0, 1, 1, 1, 0], true);
        assert_eq!(after(&cw, &p, 2), ("1,0,0,0,1,2,2,0 N".into(), false));
        // S1 with 4 seeds: N3 N2 N1 S store: extra move.
        let p = pos(&[4, 0, 1, 0, 1, 0, 0, 0], true);
        assert_eq!(after(&cw, &p, 1), ("0,0,1,1,2,1,1,0 S".into(), false));
        // S1 with 9 seeds skips North's store: N3 N2 N1 Sstore S3 S2 S1 N3 N2.
        let p = pos(&[9, 0, 0, 0, 0, 0, 1, 0], true);
        assert_eq!(after(&cw, &p, 1), ("1,1,1,1,1,2,3,0 N".into(), false));
        // North N1 with 5 seeds: (skip S store) S3 S2 S1 N store N3.
        let p = pos(&[0, 2, 0, 0, 5, 1, 1, 0], false);
        assert_eq!(after(&cw, &p, 1), ("1,3,1,0,0,1,2,1 S".into(), false));
        // The same with N3 empty: the last seed captures S1 opposite.
        let p = pos(&[0, 2, 0, 0, 5, 1, 0, 0], false);
        assert_eq!(after(&cw, &p, 1), ("0,3,1,0,0,1,0,3 S".into(), false));
        // S3 with 1 seed into empty S2 captures the opposite N2 (standard).
        let p = pos(&[1, 0, 1, 0, 1, 5, 1, 0], true);
        assert_eq!(after(&cw, &p, 3), ("1,0,0,6,1,0,1,0 N".into(), false));
    }

    #[test]
    fn relay_sows_on_from_full_houses_on_either_side() {
        let relay = rules(|r| r.relay = Relay::On);
        // h = 3, ccw, S1 (2 seeds): S2, S3 (1 -> 2): take up 2: S store, N1
        // (empty before): the move ends.
        let p = pos(&[2, 0, 1, 0, 0, 3, 3, 0], true);
        assert_eq!(after(&relay, &p, 1), ("0,1,0,1,1,3,3,0 N".into(), false));
        // S3 (2): S store, N1 (1 -> 2); take up: N2 (1 -> 2), N3 (1 -> 2);
        // take up: S1 (0 -> 1), S2 (0 -> 1): ends there, no capture.
        let p = pos(&[0, 0, 2, 0, 1, 1, 1, 0], true);
        assert_eq!(after(&relay, &p, 3), ("1,1,0,1,0,2,0,0 N".into(), false));
        // A relay ending in the own store gives an extra move: S1 (1) into
        // S2 (1 -> 2); take up: S3, S store.
        let p = pos(&[1, 1, 0, 0, 1, 1, 1, 0], true);
        assert_eq!(after(&relay, &p, 1), ("0,0,1,1,1,1,1,0 S".into(), false));
        // Clockwise relay: S2 (1) into S1 (1 -> 2); take up both: (skip
        // North's store) N3 (1 -> 2), N2 (0 -> 1): ends.
        let cw_relay = rules(|r| {
            r.relay = Relay::On;
            r.sowing = Sowing::Cw;
        });
        let p = pos(&[1, 1, 1, 0, 0, 0, 1, 0], true);
        assert_eq!(after(&cw_relay, &p, 2), ("0,0,1,0,0,1,2,0 N".into(), false));
    }

    #[test]
    fn leftover_scores_of_finished_positions() {
        let p = pos(&[0, 0, 4, 2, 1, 7], true);
        assert_eq!(p.leftover_score(&Rules::default()), -3);
        assert_eq!(p.leftover_score(&rules(|r| r.leftovers = Leftovers::Unscored)), 0);
        assert_eq!(p.leftover_score(&rules(|r| r.leftovers = Leftovers::Emptier)), 3);
        let q = pos(&[2, 1, 0, 0, 0, 0], true);
        assert_eq!(q.leftover_score(&Rules::default()), 3);
        assert_eq!(q.leftover_score(&rules(|r| r.leftovers = Leftovers::Emptier)), -3);
        assert!(!q.is_over(&rules(|r| r.end = End::Turn)));
        assert_eq!(q.store_difference(), 0);
        assert_eq!(p.store_difference(), -3);
    }
}
