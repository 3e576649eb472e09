//! The rules engine: one move of Kalah(h, ·) under any [`Rules`].
//!
//! The engine works on [`Board`]s seen from the player to move. Sowing runs
//! along a *cycle* of `2h + 1` cells, the mover's houses, the mover's store
//! and the opponent's houses, in the order of the sowing direction (the
//! opponent's store is never sown into, so it is not on the cycle):
//!
//! ```text
//!   ccw:  own 1, own 2, .., own h, STORE, opp 1, opp 2, .., opp h
//!   cw:   own h, own h-1, .., own 1, opp h, opp h-1, .., opp 1, STORE
//! ```
//!
//! Sowing `k` seeds from cycle position `p` puts `k / L` seeds in every cell
//! of the cycle (`L = 2h + 1`, full laps, the emptied house included) and one
//! more in the `k % L` cells after `p`. Both parts are precomputed masks, so a
//! sowing is an addition to each side's word whatever the number of seeds.
//! A move from a house of fewer than 64 seeds looks its two masks (laps
//! included), its store gain and its last cell up in one table entry.

use crate::board::{ones, Board, MAX_HOUSES, OPPONENT};
use crate::rules::{Capture, End, Leftovers, Relay, Rules, Sowing};

/// Cycle entry that stands for the mover's store.
const STORE: u8 = u8::MAX;
/// Longest cycle: 2 * MAX_HOUSES + 1.
const MAX_CYCLE: usize = 2 * MAX_HOUSES + 1;

/// Moves of fewer seeds than this are looked up whole ([`Engine::play`]).
const LOOKED_UP: usize = 64;

/// Who moves after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Next {
    /// The same player again: the last seed fell into their store.
    Mover,
    /// The other player.
    Opponent,
    /// Nobody: the game is over and the leftovers have been scored.
    Over,
}

/// The result of one move (a whole move: relay chains and captures included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The houses afterwards, seen from the player who moves next: the
    /// mover's view for [`Next::Mover`] and [`Next::Over`], the opponent's
    /// view for [`Next::Opponent`]. After [`Next::Over`] it holds only the
    /// seeds that nobody scores (unscored leftovers).
    pub board: Board,
    /// Who moves next.
    pub next: Next,
    /// Seeds the mover put into their store, the end-of-game sweep included.
    pub mover_gain: u32,
    /// Seeds the opponent received (only ever from the end-of-game sweep).
    pub opponent_gain: u32,
    /// Seeds taken by a capture (the capturing seed included), 0 if none.
    pub captured: u32,
}

impl Outcome {
    /// The store difference this move makes for the mover.
    #[inline]
    pub fn gain(&self) -> i32 {
        self.mover_gain as i32 - self.opponent_gain as i32
    }

    /// The mover's value of the move, given the value of the resulting board
    /// for the player who moves next (ignored when the game is over).
    #[inline]
    pub fn value_with(&self, next_value: i32) -> i32 {
        match self.next {
            Next::Mover => self.gain() + next_value,
            Next::Opponent => self.gain() - next_value,
            Next::Over => self.gain(),
        }
    }
}

/// Precomputed effect of sowing `r < L` seeds from one cycle position.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    /// One seed in each of the mover's houses that the run covers.
    mover: u64,
    /// One seed in each of the opponent's houses that the run covers.
    opponent: u64,
    /// 1 if the run passes the mover's store.
    store: u8,
    /// The cycle position of the last seed.
    last: u8,
    /// The cell of the last seed (`cycle[last]`, or [`STORE`]).
    cell: u8,
}

/// Plays moves of Kalah with `h` houses a side under one rule set.
#[derive(Clone, Debug)]
pub struct Engine {
    h: usize,
    rules: Rules,
    /// Cycle position to cell index, or [`STORE`].
    cycle: [u8; MAX_CYCLE],
    /// Cell to cycle position.
    position_of: [u8; 16],
    /// `runs[p][r]`: sowing `r` seeds after cycle position `p`.
    runs: [[Run; MAX_CYCLE]; MAX_CYCLE],
    /// One seed in every house of a side: what a full lap adds to each side.
    lap: u64,
    /// `k / L` and `k % L` for every `k` a cell can hold.
    laps: [(u8, u8); 256],
    /// `moves[i][k]`: the mover's move from house `i` holding `k <
    /// LOOKED_UP` seeds, laps and all, as one run (its first sowing: a
    /// relay may sow on).
    moves: [[Run; LOOKED_UP]; MAX_HOUSES],
}

/// How many sets of rules there are.
const RULE_SETS: usize = Capture::ALL.len() * End::ALL.len() * Leftovers::ALL.len() * Sowing::ALL.len() * Relay::ALL.len();

/// The place of `rules` among all sets of rules, `0..RULE_SETS`.
fn rules_index(rules: Rules) -> usize {
    let at = |i: Option<usize>| i.expect("every option is in its ALL");
    let mut index = at(Capture::ALL.iter().position(|&c| c == rules.capture));
    index = index * End::ALL.len() + at(End::ALL.iter().position(|&e| e == rules.end));
    index = index * Leftovers::ALL.len() + at(Leftovers::ALL.iter().position(|&l| l == rules.leftovers));
    index = index * Sowing::ALL.len() + at(Sowing::ALL.iter().position(|&s| s == rules.sowing));
    index * Relay::ALL.len() + at(Relay::ALL.iter().position(|&r| r == rules.relay))
}

impl Engine {
    /// The engine for `h` houses a side under `rules`, made once in the
    /// process and shared after: an engine's tables take microseconds to
    /// make, a noticeable share of a small request's time when every step
    /// of answering it makes its own.
    ///
    /// # Panics
    /// As [`Engine::new`].
    pub fn shared(h: usize, rules: Rules) -> &'static Engine {
        static ENGINES: [std::sync::OnceLock<Box<Engine>>; MAX_HOUSES * RULE_SETS] = [const { std::sync::OnceLock::new() }; MAX_HOUSES * RULE_SETS];
        assert!((1..=MAX_HOUSES).contains(&h), "1 to {MAX_HOUSES} houses");
        ENGINES[(h - 1) * RULE_SETS + rules_index(rules)].get_or_init(|| Box::new(Engine::new(h, rules)))
    }

    /// An engine for `h` houses a side (`1..=8`).
    ///
    /// # Panics
    /// If `h` is 0 or more than [`MAX_HOUSES`]; callers validate user input first.
    pub fn new(h: usize, rules: Rules) -> Engine {
        assert!((1..=MAX_HOUSES).contains(&h), "1 to {MAX_HOUSES} houses");
        let len = 2 * h + 1;
        let mut cycle = [STORE; MAX_CYCLE];
        for (p, slot) in cycle.iter_mut().enumerate().take(len) {
            *slot = match rules.sowing {
                Sowing::Ccw if p < h => p as u8,
                Sowing::Ccw if p == h => STORE,
                Sowing::Ccw => (OPPONENT + p - h - 1) as u8,
                Sowing::Cw if p < h => (h - 1 - p) as u8,
                Sowing::Cw if p < 2 * h => (OPPONENT + 2 * h - 1 - p) as u8,
                Sowing::Cw => STORE,
            };
        }
        let mut position_of = [0u8; 16];
        for (p, &c) in cycle.iter().enumerate().take(len) {
            if c != STORE {
                position_of[c as usize] = p as u8;
            }
        }
        let mut runs = [[Run::default(); MAX_CYCLE]; MAX_CYCLE];
        for (p, row) in runs.iter_mut().enumerate().take(len) {
            for (r, run) in row.iter_mut().enumerate().take(len) {
                for t in 1..=r {
                    match cycle[(p + t) % len] {
                        STORE => run.store += 1,
                        c if (c as usize) < OPPONENT => run.mover += 1 << (8 * c as usize),
                        c => run.opponent += 1 << (8 * (c as usize - OPPONENT)),
                    }
                }
                run.last = ((p + r) % len) as u8;
                run.cell = cycle[run.last as usize];
            }
        }
        let mut laps = [(0u8, 0u8); 256];
        for (k, slot) in laps.iter_mut().enumerate() {
            *slot = ((k / len) as u8, (k % len) as u8);
        }
        let lap = ones(h);
        let mut moves = [[Run::default(); LOOKED_UP]; MAX_HOUSES];
        for (house, row) in moves.iter_mut().enumerate().take(h) {
            for (k, run) in row.iter_mut().enumerate() {
                let (full, rest) = laps[k];
                let part = runs[position_of[house] as usize][rest as usize];
                let covered = lap * full as u64;
                *run = Run {
                    mover: covered + part.mover,
                    opponent: covered + part.opponent,
                    store: full + part.store,
                    last: part.last,
                    cell: part.cell,
                };
            }
        }
        Engine { h, rules, cycle, position_of, runs, lap, laps, moves }
    }

    /// Houses a side.
    #[inline]
    pub fn houses(&self) -> usize {
        self.h
    }

    /// The rules this engine plays by.
    #[inline]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The mover's non-empty houses (0-based), left to right.
    #[inline]
    pub fn moves(&self, board: Board) -> impl Iterator<Item = usize> {
        (0..self.h).filter(move |&i| board.get(i) != 0)
    }

    /// Sows `seeds` seeds after cycle position `from`; returns the store
    /// gain, the cycle position of the last seed and its cell.
    #[inline]
    fn sow(&self, board: &mut Board, from: u8, seeds: u8) -> (u32, u8, u8) {
        let (laps, rest) = self.laps[seeds as usize];
        let run = &self.runs[from as usize][rest as usize];
        let lap = self.lap * laps as u64;
        board.add(lap + run.mover, lap + run.opponent);
        (laps as u32 + run.store as u32, run.last, run.cell)
    }

    /// Plays the mover's house `house` (0-based, must be non-empty).
    ///
    /// Always inlined: a search plays every move of every node, and the
    /// call (saving and restoring registers) cost a sixth of a move.
    #[inline(always)]
    pub fn play(&self, mut board: Board, house: usize) -> Outcome {
        let h = self.h;
        let seeds = board.mover(house);
        debug_assert!(house < h && seeds > 0, "move from an empty or foreign house");
        board.clear_mover(house);
        let (mut gain, mut last, mut cell) = if (seeds as usize) < LOOKED_UP {
            let run = &self.moves[house & (MAX_HOUSES - 1)][seeds as usize];
            board.add(run.mover, run.opponent);
            (run.store as u32, run.last, run.cell)
        } else {
            self.sow(&mut board, self.position_of[house], seeds)
        };
        let mut captured = 0u32;
        let extra = loop {
            if cell == STORE {
                break true;
            }
            let at = cell as usize;
            let now = board.get(at);
            if self.rules.relay == Relay::On {
                // Relay: a last seed in a non-empty house takes it up and sows on.
                if now > 1 {
                    board.set(at, 0);
                    let (g, next, next_cell) = self.sow(&mut board, last, now);
                    gain += g;
                    (last, cell) = (next, next_cell);
                    continue;
                }
                break false;
            }
            if self.captures_at(board, at) {
                let opposite = h - 1 - at;
                captured = board.opponent(opposite) as u32 + 1;
                gain += captured;
                board.clear_mover(at);
                board.clear_opponent(opposite);
            }
            break false;
        };
        self.finish(board, extra, gain, captured)
    }

    /// Applies the end-of-game rule after a move.
    #[inline]
    fn finish(&self, board: Board, extra: bool, gain: u32, captured: u32) -> Outcome {
        if !self.ends(board, extra) {
            let (board, next) = if extra { (board, Next::Mover) } else { (board.flip(), Next::Opponent) };
            return Outcome { board, next, mover_gain: gain, opponent_gain: 0, captured };
        }
        let (mover_left, opponent_left) = self.leftovers(board, board.mover_empty());
        let board = match self.rules.leftovers {
            Leftovers::Unscored => board,
            Leftovers::Owner | Leftovers::Emptier => Board::EMPTY,
        };
        Outcome { board, next: Next::Over, mover_gain: gain + mover_left, opponent_gain: opponent_left, captured }
    }

    /// Whether the game is over after a move that left `board` (in the
    /// mover's view), `extra` telling whether the mover moves again.
    #[inline]
    pub fn ends(&self, board: Board, extra: bool) -> bool {
        match self.rules.end {
            End::Instant => board.mover_empty() || board.opponent_empty(),
            // Turn-based: over only when the player to move next has no seed.
            End::Turn if extra => board.mover_empty(),
            End::Turn => board.opponent_empty(),
        }
    }

    /// The value for the mover of the seeds left on `board` when the game
    /// ends after the mover's move (the leftovers' score difference).
    #[inline]
    pub fn leftover_value(&self, board: Board) -> i32 {
        let (mine, theirs) = self.leftovers(board, board.mover_empty());
        mine as i32 - theirs as i32
    }

    /// Who scores the seeds left in the houses of a finished game:
    /// `(mover's share, opponent's share)`.
    #[inline]
    fn leftovers(&self, board: Board, mover_empty: bool) -> (u32, u32) {
        match self.rules.leftovers {
            Leftovers::Owner => (board.mover_seeds(), board.opponent_seeds()),
            Leftovers::Unscored => (0, 0),
            // The player whose houses are empty takes the rest. When the
            // mover's side is not empty the game ended on the opponent's.
            Leftovers::Emptier if mover_empty => (board.opponent_seeds(), 0),
            Leftovers::Emptier => (0, board.mover_seeds()),
        }
    }

    /// Whether the game is over in this position (the mover to play): a side
    /// is empty with the instant end, the mover's side with the turn-based end.
    #[inline]
    pub fn is_over(&self, board: Board) -> bool {
        match self.rules.end {
            End::Instant => board.mover_empty() || board.opponent_empty(),
            End::Turn => board.mover_empty(),
        }
    }

    /// Every *quiet* move that leads to `board`: a move that keeps every
    /// seed on the board (no seed reaches a store, nothing is captured) and
    /// passes the turn, so that `board` is seen by the player who did not
    /// make it. Calls `f(parent, house)` once for each: the mover of
    /// `parent` plays `house`. Relay sowing is not supported (a relay move
    /// takes seeds up again on its way, which this cannot undo).
    ///
    /// A quiet move cannot lap (it would pass the mover's store), so the
    /// house it was played from is empty in `board`, and every cell it sowed
    /// holds a seed. Each such house and length is undone, and kept unless
    /// its last seed would capture or the board it was played from is over.
    /// Play goes on after a quiet move, so a `board` that is over has none.
    /// (Debug builds check each by playing it forwards.)
    pub fn quiet_predecessors(&self, board: Board, mut f: impl FnMut(Board, usize)) {
        assert_eq!(self.rules.relay, Relay::Off, "relay moves cannot be undone here");
        if self.is_over(board) {
            return;
        }
        let seen = board.flip();
        let len = 2 * self.h + 1;
        for house in 0..self.h {
            if seen.get(house) != 0 {
                continue;
            }
            let from = self.position_of[house] as usize;
            let mut parent = seen;
            for k in 1..len {
                let cell = self.cycle[(from + k) % len];
                if cell == STORE || parent.get(cell as usize) == 0 {
                    break;
                }
                parent.set(cell as usize, parent.get(cell as usize) - 1);
                if self.captures_at(seen, cell as usize) {
                    continue;
                }
                let mut candidate = parent;
                candidate.set(house, k as u8);
                if self.is_over(candidate) {
                    continue;
                }
                debug_assert!({
                    let o = self.play(candidate, house);
                    o.next == Next::Opponent && o.board == board
                });
                f(candidate, house);
            }
        }
    }

    /// Whether a move whose last seed fell in `cell`, leaving `board` (the
    /// mover's view, before any capture), captures there.
    #[inline]
    fn captures_at(&self, board: Board, cell: usize) -> bool {
        let h = self.h;
        cell < h && board.mover(cell) == 1 && (self.rules.capture == Capture::Empty || board.opponent(h - 1 - cell) > 0)
    }

    /// The value for the mover of a finished game: the leftovers' score
    /// difference. `None` if the game is not over.
    #[inline]
    pub fn terminal_value(&self, board: Board) -> Option<i32> {
        let (mine, theirs) = self.terminal_shares(board)?;
        Some(mine as i32 - theirs as i32)
    }

    /// Who scores the seeds left in the houses of a finished game (the
    /// mover to play): `(mover's share, opponent's share)`. `None` if the
    /// game is not over.
    #[inline]
    pub fn terminal_shares(&self, board: Board) -> Option<(u32, u32)> {
        if !self.is_over(board) {
            return None;
        }
        Some(self.leftovers(board, board.mover_empty()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shared engine is the one of its size and rules, made once: every
    /// set of rules has its own place.
    #[test]
    fn shared_engines_are_one_per_size_and_rules() {
        let mut places = std::collections::HashSet::new();
        for &capture in Capture::ALL {
            for &end in End::ALL {
                for &leftovers in Leftovers::ALL {
                    for &sowing in Sowing::ALL {
                        for &relay in Relay::ALL {
                            let rules = Rules { capture, end, leftovers, sowing, relay };
                            assert!(places.insert(rules_index(rules)) && rules_index(rules) < RULE_SETS);
                            for h in [1, 4, MAX_HOUSES] {
                                let engine = Engine::shared(h, rules);
                                assert_eq!((engine.houses(), engine.rules()), (h, rules));
                                assert!(std::ptr::eq(engine, Engine::shared(h, rules)));
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(places.len(), RULE_SETS);
    }
    use crate::rules::{Capture, End, Leftovers, Relay, Rules, Sowing};

    /// Undoing quiet moves finds exactly the quiet moves that playing every
    /// move of every board finds, each once: every board of 3 houses a side
    /// with up to 10 seeds, every rule set without relay.
    #[test]
    fn quiet_predecessors_are_the_quiet_moves_played_backwards() {
        let (h, max) = (3, 10);
        let indexer = crate::Indexer::new(h, max);
        for rules in Rules::all().filter(|r| r.relay == Relay::Off) {
            let e = Engine::new(h, rules);
            let mut forward = std::collections::HashMap::<Board, Vec<(Board, usize)>>::new();
            let mut quiet = 0;
            for i in 0..indexer.len() {
                let parent = indexer.unrank(i);
                if e.is_over(parent) {
                    continue;
                }
                for house in e.moves(parent) {
                    let o = e.play(parent, house);
                    if o.next == Next::Opponent && o.board.total() == parent.total() {
                        forward.entry(o.board).or_default().push((parent, house));
                        quiet += 1;
                    }
                }
            }
            assert!(quiet > 1000, "{rules}: {quiet} quiet moves");
            for i in 0..indexer.len() {
                let board = indexer.unrank(i);
                let mut back = Vec::new();
                e.quiet_predecessors(board, |parent, house| back.push((parent, house)));
                back.sort();
                let mut want = forward.remove(&board).unwrap_or_default();
                want.sort();
                assert_eq!(back, want, "{rules}: {board:?}");
            }
        }
    }

    fn engine(h: usize, f: impl FnOnce(&mut Rules)) -> Engine {
        let mut rules = Rules::default();
        f(&mut rules);
        Engine::new(h, rules)
    }

    fn b(mover: &[u8], opponent: &[u8]) -> Board {
        Board::from_sides(mover, opponent)
    }

    #[test]
    fn sowing_passes_the_own_store_and_hands_over() {
        // Kalah(6,4): house 3 (index 2) has 4 seeds: houses 4,5,6 and the store.
        let e = engine(6, |_| {});
        let o = e.play(b(&[4; 6], &[4; 6]), 2);
        assert_eq!(o.next, Next::Mover, "last seed in the store: extra move");
        assert_eq!(o.mover_gain, 1);
        assert_eq!(o.board, b(&[4, 4, 0, 5, 5, 5], &[4; 6]));
        // House 6 with 4 seeds: store, then opponent's houses 1..3.
        let o = e.play(b(&[4; 6], &[4; 6]), 5);
        assert_eq!(o.next, Next::Opponent);
        assert_eq!(o.mover_gain, 1);
        // Seen from North now: North's houses first.
        assert_eq!(o.board, b(&[5, 5, 5, 4, 4, 4], &[4, 4, 4, 4, 4, 0]));
    }

    #[test]
    fn sowing_skips_the_opponent_store_and_laps_into_the_emptied_house() {
        // h = 2: cycle own1 own2 STORE opp1 opp2 (5 cells). 7 seeds from own1:
        // own2 store opp1 opp2 | own1 own2 store -> last in the store.
        let e = engine(2, |_| {});
        let o = e.play(b(&[7, 0], &[0, 1]), 0);
        assert_eq!(o.mover_gain, 2, "two passes of the own store, none of the opponent's");
        assert_eq!(o.board, b(&[1, 2], &[1, 2]));
        assert_eq!(o.next, Next::Mover);
        // 5 seeds from own1 on h = 2 is exactly one lap: the last seed lands in
        // the emptied house, which was empty before it: a capture.
        let o = e.play(b(&[5, 0], &[0, 3]), 0);
        assert_eq!(o.captured, 1 + 4, "opposite house had 3 + 1 from the lap");
        assert_eq!(o.mover_gain, 1 + 5);
    }

    #[test]
    fn multi_lap_sowing_on_a_six_house_board() {
        // 27 seeds from house 1: two laps of 13 (every cell +2, store +2) and one more seed into house 2.
        let e = engine(6, |_| {});
        let o = e.play(b(&[27, 0, 0, 0, 0, 0], &[1, 1, 1, 1, 1, 1]), 0);
        assert_eq!(o.mover_gain, 2);
        assert_eq!(o.next, Next::Opponent);
        assert_eq!(o.board.flip(), b(&[2, 3, 2, 2, 2, 2], &[3, 3, 3, 3, 3, 3]));
    }

    #[test]
    fn capture_standard_needs_an_opposite_seed() {
        // Own house 1 has 1 seed and lands in empty house 2; opposite of house 2 is opponent's house 5.
        let e = engine(6, |_| {});
        let with = e.play(b(&[1, 0, 0, 0, 0, 1], &[1, 1, 1, 1, 7, 1]), 0);
        assert_eq!(with.captured, 8);
        assert_eq!(with.mover_gain, 8);
        assert_eq!(with.next, Next::Opponent);
        assert_eq!(with.board.flip(), b(&[0, 0, 0, 0, 0, 1], &[1, 1, 1, 1, 0, 1]));
        let without = e.play(b(&[1, 0, 0, 0, 0, 1], &[1, 1, 1, 1, 0, 1]), 0);
        assert_eq!(without.captured, 0);
        assert_eq!(without.mover_gain, 0);
        assert_eq!(without.board.flip(), b(&[0, 1, 0, 0, 0, 1], &[1, 1, 1, 1, 0, 1]));
    }

    #[test]
    fn capture_empty_takes_the_lone_seed() {
        let e = engine(6, |r| r.capture = Capture::Empty);
        let o = e.play(b(&[1, 0, 0, 0, 0, 1], &[1, 1, 1, 1, 0, 1]), 0);
        assert_eq!(o.captured, 1);
        assert_eq!(o.mover_gain, 1);
        assert_eq!(o.board.flip(), b(&[0, 0, 0, 0, 0, 1], &[1, 1, 1, 1, 0, 1]));
    }

    #[test]
    fn no_capture_on_the_opponent_side_or_in_a_full_house() {
        let e = engine(3, |r| r.capture = Capture::Empty);
        // 2 seeds from house 3: store, opponent house 1 (empty before): no capture.
        let o = e.play(b(&[0, 0, 2], &[0, 5, 5]), 2);
        assert_eq!((o.captured, o.mover_gain), (0, 1));
        // Last seed into an own house that already held a seed.
        let o = e.play(b(&[1, 1, 0], &[5, 5, 5]), 0);
        assert_eq!((o.captured, o.mover_gain), (0, 0));
    }

    #[test]
    fn instant_end_sweeps_for_each_leftovers_rule() {
        // h = 2, mover plays house 2 (1 seed) into the store and has no seeds left.
        let board = b(&[0, 1], &[3, 2]);
        let owner = engine(2, |_| {}).play(board, 1);
        assert_eq!(owner.next, Next::Over);
        assert_eq!((owner.mover_gain, owner.opponent_gain), (1, 5));
        assert_eq!(owner.board, Board::EMPTY);
        let unscored = engine(2, |r| r.leftovers = Leftovers::Unscored).play(board, 1);
        assert_eq!((unscored.mover_gain, unscored.opponent_gain), (1, 0));
        assert_eq!(unscored.board, b(&[0, 0], &[3, 2]), "unscored seeds stay");
        let emptier = engine(2, |r| r.leftovers = Leftovers::Emptier).play(board, 1);
        assert_eq!((emptier.mover_gain, emptier.opponent_gain), (6, 0));
        assert_eq!(emptier.gain(), 6);
    }

    #[test]
    fn instant_end_when_the_opponent_side_empties() {
        // Capture empties the opponent's only house... h = 2: mover 1 seed in
        // house 1 lands in empty house 2 opposite the opponent's house 1.
        let board = b(&[1, 0], &[4, 0]);
        let o = engine(2, |_| {}).play(board, 0);
        assert_eq!(o.next, Next::Over);
        assert_eq!((o.mover_gain, o.opponent_gain), (5, 0));
        // With the emptier rule the emptied opponent would take the mover's leftovers.
        let board = b(&[1, 0, 2], &[0, 4, 0]);
        let o = engine(3, |r| r.leftovers = Leftovers::Emptier).play(board, 0);
        assert_eq!(o.next, Next::Over);
        assert_eq!((o.mover_gain, o.opponent_gain), (5, 2));
    }

    #[test]
    fn turn_end_lets_the_game_go_on_until_the_player_to_move_is_empty() {
        let board = b(&[0, 1], &[3, 2]);
        let turn = engine(2, |r| r.end = End::Turn);
        // Extra move with an empty side: the mover is to play and cannot.
        let o = turn.play(board, 1);
        assert_eq!(o.next, Next::Over);
        assert_eq!((o.mover_gain, o.opponent_gain), (1, 5));
        // The opponent's side empties but the mover is not to play: go on.
        let o = turn.play(b(&[1, 0], &[4, 0]), 0);
        assert_eq!(o.next, Next::Over, "capture passes the turn to an empty side");
        let o = turn.play(b(&[0, 2], &[1, 0]), 1);
        // 2 seeds from house 2: store, opponent's house 1 -> opponent to move with 2 seeds.
        assert_eq!(o.next, Next::Opponent);
        let o = turn.play(b(&[2, 1], &[0, 0]), 1);
        // Extra move; the opponent has nothing but the mover still has seeds: play on.
        assert_eq!(o.next, Next::Mover);
        assert_eq!(o.board, b(&[2, 0], &[0, 0]));
        let instant = engine(2, |_| {});
        assert_eq!(instant.play(b(&[2, 1], &[0, 0]), 1).next, Next::Over);
    }

    #[test]
    fn clockwise_sowing_goes_through_the_opponent_row_before_the_store() {
        // h = 3, cw cycle: own3 own2 own1 opp3 opp2 opp1 STORE.
        let e = engine(3, |r| r.sowing = Sowing::Cw);
        // House 2 with 3 seeds: own1, opp3, opp2.
        let o = e.play(b(&[0, 3, 0], &[1, 1, 1]), 1);
        assert_eq!(o.next, Next::Opponent);
        assert_eq!(o.mover_gain, 0);
        assert_eq!(o.board.flip(), b(&[1, 0, 0], &[1, 2, 2]));
        // House 1 with 4 seeds: opp3 opp2 opp1 STORE: extra move.
        let o = e.play(b(&[4, 0, 1], &[0, 0, 0]), 0);
        assert_eq!(o.next, Next::Mover);
        assert_eq!(o.mover_gain, 1);
        assert_eq!(o.board, b(&[0, 0, 1], &[1, 1, 1]));
        // House 3 with 1 seed lands in empty house 2: capture opposite (opp house 2).
        let o = e.play(b(&[0, 0, 1], &[1, 5, 1]), 2);
        assert_eq!(o.captured, 6);
    }

    #[test]
    fn relay_sows_on_from_a_full_house_on_either_side() {
        // h = 3, ccw: own1 own2 own3 STORE opp1 opp2 opp3.
        let e = engine(3, |r| r.relay = Relay::On);
        // House 1 (2 seeds): own2, own3 (had 1 -> 2): take up 2: STORE, opp1 (had 0): ends.
        let o = e.play(b(&[2, 0, 1], &[0, 3, 3]), 0);
        assert_eq!(o.next, Next::Opponent);
        assert_eq!(o.mover_gain, 1);
        assert_eq!(o.board.flip(), b(&[0, 1, 0], &[1, 3, 3]));
        // Relay through the opponent's row and back into the own store:
        // house 3 (1 seed) -> STORE: extra move immediately.
        let o = e.play(b(&[1, 0, 1], &[1, 1, 1]), 2);
        assert_eq!(o.next, Next::Mover);
        // House 3 (2 seeds): STORE, opp1 (1 -> 2); take up 2: opp2 (1 -> 2),
        // opp3 (1 -> 2); take up 2: own1 (0 -> 1), own2 (0 -> 1). own2 was
        // empty: the move ends there, and relay never captures.
        let o = e.play(b(&[0, 0, 2], &[1, 1, 1]), 2);
        assert_eq!(o.next, Next::Opponent);
        assert_eq!(o.captured, 0);
        assert_eq!(o.board.flip(), b(&[1, 1, 0], &[0, 2, 0]));
        assert_eq!(o.mover_gain, 1);
    }

    #[test]
    fn terminal_values_follow_the_end_and_leftovers_rules() {
        let board = b(&[0, 0], &[2, 1]);
        assert_eq!(engine(2, |_| {}).terminal_value(board), Some(-3));
        assert_eq!(engine(2, |r| r.leftovers = Leftovers::Emptier).terminal_value(board), Some(3));
        assert_eq!(engine(2, |r| r.leftovers = Leftovers::Unscored).terminal_value(board), Some(0));
        let other = b(&[2, 1], &[0, 0]);
        assert_eq!(engine(2, |_| {}).terminal_value(other), Some(3));
        assert_eq!(engine(2, |r| r.leftovers = Leftovers::Emptier).terminal_value(other), Some(-3));
        assert_eq!(engine(2, |r| r.end = End::Turn).terminal_value(other), None, "the mover can still play");
        assert_eq!(engine(2, |_| {}).terminal_value(b(&[1, 0], &[0, 1])), None);
    }
}
