//! Exact values: memoised minimax when play must end, per-level fixed
//! points when it may not.
//!
//! # What is computed
//!
//! Stores never influence play, so the value of a position is its store
//! difference now plus the *future gain difference* of its houses: what the
//! player to move will add to their store, minus what the opponent will add,
//! from now on under perfect play (`RULES.md`, "Values"). Both players play
//! by the same rules, so the future gain depends only on the houses seen from
//! the player to move (a *key*): the mover's houses from the mover's left,
//! then the opponent's from the opponent's left. A position and its mirror
//! image with the other side to move share one entry.
//!
//! # Counter-clockwise sowing: plain minimax
//!
//! Counter-clockwise, every game ends (`RULES.md`, "Endless play"), so the
//! game graph is finite and acyclic and memoised minimax is exact:
//! the future gain of a board is its leftover score if the game is over,
//! else the best over the moves of `gain + future(next)` (extra move) or
//! `gain - future(next)` (turn passes). The recursion marks a board while
//! it is being worked on, so a cycle (which would make the method wrong)
//! panics instead of going unnoticed.
//!
//! # Clockwise sowing: levels and thresholds
//!
//! Clockwise, a game can go on for ever; it is then scored by the stores
//! alone, so endless play is worth a future gain of 0. Memoised minimax
//! would loop, and a depth limit or move cap would make values inexact.
//! Instead, following `RULES.md`:
//!
//! 1. **Levels.** Call the number of seeds in the houses the *level* of a
//!    board. Seeds reach a store only from the houses and never leave it,
//!    so no move raises the level, and a move that keeps it adds nothing to
//!    either store (and cannot give an extra move, which needs a seed in the
//!    own store). Levels are solved from 0 upwards; a move that lowers the
//!    level or ends the game is an *exit* whose value for the mover,
//!    `gain ± future(next)`, is already known exactly (the lower level is
//!    solved, and once left a level is never re-entered, so what follows is
//!    an independent game with that value). Every other move is an *inner*
//!    move to a board of the same level with the turn passing and gain 0.
//!
//! 2. **One level is a game on a finite graph.** Nodes are the boards of
//!    the level whose game is not over, each with either player to move.
//!    The payoff of a play for South is the South value of the exit it
//!    takes (all inner moves gain nothing), or 0 if it never takes one.
//!
//! 3. **Thresholds.** For an integer `t`, let `S_t` be the set of boards
//!    from which South, to move, can force a payoff `>= t`, and `N_t` those
//!    from which South can force `>= t` when North is to move (boards seen
//!    from the player to move).
//!    * `t > 0`: endless play (0) is not good enough, so South must reach
//!      an exit worth `>= t` in finitely many moves. `(S_t, N_t)` is South's
//!      *attractor* to those exits, the **least** fixed point of
//!      `S = { b : some exit of b is worth >= t to South, or some inner move leads into N }`,
//!      `N = { b : every exit of b is worth >= t to South, and every inner move leads into S }`,
//!      reached by iterating from the empty sets.
//!    * `t <= 0`: endless play is good enough, so South wins unless North
//!      can force an exit worth `< t` to South. South's winning sets are the
//!      complement of North's attractor to those exits, which is the
//!      **greatest** fixed point of the same two equations, reached by
//!      iterating from the full sets.
//!
//!    Both are classical results for reachability and safety games on
//!    finite graphs, which are *determined*: for every `t`, either South can
//!    force `>= t` or North can force `< t`. In-place (chaotic) iteration
//!    of a monotone operator on a finite lattice reaches the same fixed
//!    point as the textbook iteration, since every intermediate state lies
//!    between the start and that fixed point.
//!
//! 4. **Values.** The value of board `b` for the player to move is
//!    `v(b) = max { t : b in S_t }`: South can force `>= v(b)` and, by
//!    determinacy at `t = v(b) + 1`, North can hold South to `<= v(b)`. The
//!    payoff of any play is 0 or plus or minus some exit value, so `t`
//!    need only range over `-B..=B` with `B` the largest absolute exit
//!    value (`S_{-B}` is every board). The players' roles are symmetric,
//!    so `v(b)` is also North's value of `b` when North is to move.
//!
//! No step depends on the level graph being acyclic, and no step stops
//! early: the values are exact. The iteration is naive (whole sweeps until
//! nothing changes, for every threshold) on purpose.

use std::collections::{BTreeMap, HashMap, HashSet};

use kalah_core::{Rules, Sowing};

use crate::ring::{play, side_houses, store, RefPosition};

/// The most houses a side this crate handles (the width of a [`Key`]).
const MAX_HOUSES: usize = 8;

/// A board seen from the player to move: byte `i < h` is the mover's house
/// `i + 1` (from the mover's left), byte `h + i` the opponent's house `i + 1`
/// (from the opponent's left), the rest 0.
///
/// ```text
///  byte:  0 .. h-1          h .. 2h-1             2h .. 15
///        +-----------------+---------------------+---------+
///        | mover 1 .. h    | opponent 1 .. h     |    0    |
///        +-----------------+---------------------+---------+
/// ```
type Key = [u8; 2 * MAX_HOUSES];

/// Marks a board whose minimax value is being computed (never a real
/// value: those are at most 255 in absolute value).
const IN_PROGRESS: i32 = i32::MIN;

/// The board of a position, seen from the player to move.
///
/// # Panics
/// If the board has more than [`MAX_HOUSES`] houses a side or more than 255
/// seeds in a house.
fn key_of(pos: &RefPosition) -> Key {
    let h = pos.houses();
    assert!(h <= MAX_HOUSES, "at most {MAX_HOUSES} houses a side, not {h}");
    let me = pos.south_to_move;
    let houses = pos.cells[side_houses(h, me)].iter().chain(&pos.cells[side_houses(h, !me)]);
    let mut key = [0; 2 * MAX_HOUSES];
    for (byte, &seeds) in key.iter_mut().zip(houses) {
        *byte = u8::try_from(seeds).expect("at most 255 seeds in a house");
    }
    key
}

/// The position of a board with South to move and empty stores.
fn position_of(h: usize, key: &Key) -> RefPosition {
    let mut cells = Vec::with_capacity(2 * h + 2);
    cells.extend(key[..h].iter().map(|&s| u32::from(s)));
    cells.push(0);
    cells.extend(key[h..2 * h].iter().map(|&s| u32::from(s)));
    cells.push(0);
    RefPosition { cells, south_to_move: true }
}

/// Seeds in the houses of a board: its level.
fn level_of(key: &Key) -> u32 {
    key.iter().map(|&s| u32::from(s)).sum()
}

/// Every board of `h` houses a side with exactly `n` seeds.
fn boards_with(h: usize, n: u32) -> Vec<Key> {
    fn fill(cells: usize, at: usize, left: u32, key: &mut Key, out: &mut Vec<Key>) {
        if at + 1 == cells {
            key[at] = left as u8;
            out.push(*key);
            return;
        }
        for s in 0..=left {
            key[at] = s as u8;
            fill(cells, at + 1, left - s, key, out);
        }
    }
    assert!(n <= 255, "at most 255 seeds");
    let mut out = Vec::new();
    fill(2 * h, 0, n, &mut [0; 2 * MAX_HOUSES], &mut out);
    out
}

/// What one move does, for the mover.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// The game is over; the mover's gain difference, sweep included.
    Over(i32),
    /// The game goes on from `next` (seen from the player to move there).
    Next {
        /// The store difference the move made for the mover.
        gain: i32,
        /// The board afterwards, seen from whoever moves next.
        next: Key,
        /// Whether the mover moves again (last seed in the own store).
        extra_move: bool,
    },
}

/// How values are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    /// Memoised minimax; only for rules under which every game ends.
    Minimax,
    /// Level by level with per-threshold fixed points; always exact.
    Levels,
}

/// One board of a level, for the fixed-point iteration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Node {
    /// Values (for the player to move) of the moves that leave the level or
    /// end the game.
    exits: Vec<i32>,
    /// Indices of the boards that moves inside the level lead to (the other
    /// player is then to move, nothing gained).
    inner: Vec<usize>,
}

/// Future gain differences of boards of `h` houses a side under one rule set.
#[derive(Debug)]
struct Solver<'r> {
    h: usize,
    rules: &'r Rules,
    method: Method,
    /// Future gain difference of every board solved so far.
    values: HashMap<Key, i32>,
}

impl<'r> Solver<'r> {
    /// A solver using the method the rules need.
    fn new(h: usize, rules: &'r Rules) -> Self {
        let method = match rules.sowing {
            Sowing::Ccw => Method::Minimax,
            Sowing::Cw => Method::Levels,
        };
        Self::with_method(h, rules, method)
    }

    fn with_method(h: usize, rules: &'r Rules, method: Method) -> Self {
        assert!((1..=MAX_HOUSES).contains(&h), "1 to {MAX_HOUSES} houses a side, not {h}");
        Solver { h, rules, method, values: HashMap::new() }
    }

    /// Plays the mover's house `house` (1-based) of board `key`.
    fn step(&self, key: &Key, house: usize) -> Step {
        let h = self.h;
        let (after, over) = play(self.rules, &position_of(h, key), house);
        // The mover is South and the stores started empty.
        let gain = after.cells[store(h, true)] as i32 - after.cells[store(h, false)] as i32;
        if over {
            Step::Over(gain)
        } else {
            Step::Next { gain, next: key_of(&after), extra_move: after.south_to_move }
        }
    }

    /// The mover's value of a move: its gain plus what follows.
    fn value_of(&mut self, step: Step) -> i32 {
        match step {
            Step::Over(gain) => gain,
            Step::Next { gain, next, extra_move } => {
                let after = self.future(&next);
                if extra_move {
                    gain + after
                } else {
                    gain - after
                }
            }
        }
    }

    /// The future gain difference of a board for the player to move. With
    /// [`Method::Levels`] the board must have been solved already.
    fn future(&mut self, key: &Key) -> i32 {
        match self.values.get(key) {
            Some(&IN_PROGRESS) => panic!("play can go on for ever under {}: board {key:?} recurs; minimax is not exact here", self.rules),
            Some(&value) => value,
            None if self.method == Method::Minimax => self.minimax(key),
            None => panic!("board {key:?} is needed before its level was solved"),
        }
    }

    /// Memoised minimax (see the module docs).
    fn minimax(&mut self, key: &Key) -> i32 {
        let pos = position_of(self.h, key);
        let value = if pos.is_over(self.rules) {
            pos.leftover_score(self.rules)
        } else {
            self.values.insert(*key, IN_PROGRESS);
            pos.legal_moves(self.rules)
                .into_iter()
                .map(|house| {
                    let step = self.step(key, house);
                    self.value_of(step)
                })
                .max()
                .expect("a game that is not over has a move")
        };
        self.values.insert(*key, value);
        value
    }

    /// Solves one level: `level` holds boards with the same number of seeds,
    /// including every board an inner move of one of them leads to; every
    /// lower-level board its moves lead to is solved already.
    fn solve_level(&mut self, level: &[Key]) {
        let Some(first) = level.first() else { return };
        let n = level_of(first);
        let index: HashMap<Key, usize> = level.iter().enumerate().map(|(i, &k)| (k, i)).collect();
        let mut nodes = Vec::with_capacity(level.len());
        for key in level {
            assert_eq!(level_of(key), n, "one level at a time");
            let pos = position_of(self.h, key);
            if pos.is_over(self.rules) {
                self.values.insert(*key, pos.leftover_score(self.rules));
                nodes.push(None);
                continue;
            }
            let mut node = Node::default();
            for house in pos.legal_moves(self.rules) {
                match self.step(key, house) {
                    Step::Next { gain, next, extra_move } if level_of(&next) == n => {
                        assert!(gain == 0 && !extra_move, "a move inside a level gains nothing");
                        let j = *index.get(&next).expect("the level holds its inner moves' boards");
                        node.inner.push(j);
                    }
                    step => {
                        let value = self.value_of(step);
                        node.exits.push(value);
                    }
                }
            }
            nodes.push(Some(node));
        }
        for (key, value) in level.iter().zip(threshold_values(&nodes)) {
            if let Some(value) = value {
                self.values.insert(*key, value);
            }
        }
    }

    /// Solves every board reachable from `root`, level by level.
    fn solve_reachable(&mut self, root: Key) {
        let mut seen = HashSet::from([root]);
        let mut todo = vec![root];
        let mut levels: BTreeMap<u32, Vec<Key>> = BTreeMap::new();
        while let Some(key) = todo.pop() {
            levels.entry(level_of(&key)).or_default().push(key);
            for house in position_of(self.h, &key).legal_moves(self.rules) {
                if let Step::Next { next, .. } = self.step(&key, house) {
                    if seen.insert(next) {
                        todo.push(next);
                    }
                }
            }
        }
        for level in levels.values() {
            self.solve_level(level);
        }
    }
}

/// The value of every node of one level (`None` for boards whose game is
/// over), by one fixed-point iteration per threshold (module docs, steps 3
/// and 4).
fn threshold_values(nodes: &[Option<Node>]) -> Vec<Option<i32>> {
    let bound = nodes.iter().flatten().flat_map(|node| &node.exits).map(|v| v.abs()).max().unwrap_or(0);
    let mut values = vec![None; nodes.len()];
    for t in -bound..=bound {
        let (south, _) = winning_sets(nodes, t);
        for (value, &wins) in values.iter_mut().zip(&south) {
            if wins {
                // Thresholds go up, so the last one South reaches is the largest.
                *value = Some(t);
            }
        }
    }
    for (node, value) in nodes.iter().zip(&values) {
        assert_eq!(node.is_some(), value.is_some(), "South can always force the lowest threshold");
    }
    values
}

/// `(S_t, N_t)` of the module docs: whether South can force a payoff `>= t`
/// from each node with South to move, and with North to move.
fn winning_sets(nodes: &[Option<Node>], t: i32) -> (Vec<bool>, Vec<bool>) {
    // t > 0: an attractor, grown from nothing (least fixed point).
    // t <= 0: endless play will do, so shrink from everything (greatest).
    let start = t <= 0;
    let mut south: Vec<bool> = nodes.iter().map(|n| n.is_some() && start).collect();
    let mut north = south.clone();
    loop {
        let mut changed = false;
        for (i, node) in nodes.iter().enumerate() {
            let Some(node) = node else { continue };
            // South to move: one good move is enough.
            let s = node.exits.iter().any(|&v| v >= t) || node.inner.iter().any(|&j| north[j]);
            // North to move: every North move must still leave South >= t
            // (an exit worth v to North is worth -v to South).
            let n = node.exits.iter().all(|&v| -v >= t) && node.inner.iter().all(|&j| south[j]);
            if (s, n) != (south[i], north[i]) {
                south[i] = s;
                north[i] = n;
                changed = true;
            }
        }
        if !changed {
            return (south, north);
        }
    }
}

/// The exact value of `pos` for the player to move (final store difference,
/// the stores now included) and of each legal move (house 1-based from the
/// mover's left, value for the player who plays it and then plays on
/// perfectly).
///
/// A position whose game is already over (see [`RefPosition::is_over`]) is
/// worth its store difference plus its leftovers' score and has no moves.
/// Counter-clockwise this is memoised minimax over the positions reachable
/// from `pos`; clockwise, every board reachable from `pos` is solved level
/// by level (module docs).
///
/// # Panics
/// If the board has more than 8 houses a side or more than 255 seeds in its
/// houses.
pub fn solve(rules: &Rules, pos: &RefPosition) -> (i32, Vec<(usize, i32)>) {
    let h = pos.houses();
    let seeds = pos.side_seeds(true) + pos.side_seeds(false);
    assert!(seeds <= 255, "at most 255 seeds in the houses, not {seeds}");
    let stores = pos.store_difference();
    if pos.is_over(rules) {
        return (stores + pos.leftover_score(rules), Vec::new());
    }
    let mut solver = Solver::new(h, rules);
    let root = key_of(pos);
    if solver.method == Method::Levels {
        solver.solve_reachable(root);
    }
    let moves: Vec<(usize, i32)> = pos
        .legal_moves(rules)
        .into_iter()
        .map(|house| {
            let step = solver.step(&root, house);
            (house, stores + solver.value_of(step))
        })
        .collect();
    let best = moves.iter().map(|&(_, v)| v).max().expect("a game that is not over has a move");
    (best, moves)
}

/// The future gain difference (player to move minus opponent, stores
/// ignored) of every distribution of `n` seeds over the `2h` houses, for
/// every `n` in `0..=max_seeds`.
///
/// Keys are `(mover's houses from the mover's left, opponent's houses from
/// the opponent's left)`. Boards whose game is already over (per the end
/// rule, the mover to play) get their leftovers' score.
///
/// # Panics
/// If `h` is not in `1..=8` or `max_seeds` is more than 255.
pub fn board_values(h: usize, rules: &Rules, max_seeds: u32) -> HashMap<(Vec<u8>, Vec<u8>), i32> {
    board_values_by(Solver::new(h, rules), max_seeds)
}

fn board_values_by(mut solver: Solver<'_>, max_seeds: u32) -> HashMap<(Vec<u8>, Vec<u8>), i32> {
    let h = solver.h;
    let mut out = HashMap::new();
    for n in 0..=max_seeds {
        let level = boards_with(h, n);
        if solver.method == Method::Levels {
            solver.solve_level(&level);
        }
        for key in &level {
            let value = solver.future(key);
            out.insert((key[..h].to_vec(), key[h..2 * h].to_vec()), value);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kalah_core::End;

    fn node(exits: &[i32], inner: &[usize]) -> Option<Node> {
        Some(Node { exits: exits.to_vec(), inner: inner.to_vec() })
    }

    #[test]
    fn boards_are_all_distributions() {
        assert_eq!(boards_with(4, 12).len(), 50_388);
        assert_eq!(boards_with(1, 3).len(), 4);
        assert_eq!(boards_with(2, 0), vec![[0; 16]]);
        let all: HashSet<Key> = boards_with(3, 5).into_iter().collect();
        assert_eq!(all.len(), 252);
        assert!(all.iter().all(|k| level_of(k) == 5));
    }

    #[test]
    fn keys_see_the_board_from_the_player_to_move() {
        let south = RefPosition { cells: vec![1, 2, 9, 3, 4, 8], south_to_move: true };
        let north = RefPosition { cells: vec![3, 4, 0, 1, 2, 0], south_to_move: false };
        assert_eq!(key_of(&south), key_of(&north));
        assert_eq!(&key_of(&south)[..5], &[1, 2, 3, 4, 0]);
        assert_eq!(position_of(2, &key_of(&north)).cells, vec![1, 2, 0, 3, 4, 0]);
    }

    #[test]
    fn a_cycle_is_worth_zero_unless_an_exit_is_better() {
        // Two boards, each with one inner move to the other (a 2-cycle).
        // Board 0 can also exit for `e`: the mover takes it only when e > 0.
        for e in -3..=3 {
            let values = threshold_values(&[node(&[e], &[1]), node(&[], &[0])]);
            assert_eq!(values[0], Some(e.max(0)), "exit {e}");
            // Board 1's only move hands board 0 to the opponent.
            assert_eq!(values[1], Some(-e.max(0)), "exit {e}");
        }
    }

    #[test]
    fn the_opponent_may_refuse_to_leave_a_cycle() {
        // 0 -> 1 -> 0; board 1's mover may exit for -2 (bad for them) or
        // stay in the cycle: they stay, so board 0 is worth 0.
        let values = threshold_values(&[node(&[], &[1]), node(&[-2], &[0])]);
        assert_eq!(values, vec![Some(0), Some(0)]);
        // With an exit worth +2 to board 1's mover they take it.
        let values = threshold_values(&[node(&[], &[1]), node(&[2], &[0])]);
        assert_eq!(values, vec![Some(-2), Some(2)]);
        // A self-loop (the same board comes back with the other side to
        // move) next to an exit worth -1: endless play is better.
        let values = threshold_values(&[node(&[-1], &[0]), None]);
        assert_eq!(values, vec![Some(0), None]);
    }

    #[test]
    fn acyclic_levels_are_plain_minimax() {
        // 0 -> 1 -> 2 (exit 3) and 0 exits for 1.
        let values = threshold_values(&[node(&[1], &[1]), node(&[-5], &[2]), node(&[3], &[])]);
        // Board 2: 3. Board 1: max(-5, -3) = -3. Board 0: max(1, 3) = 3.
        assert_eq!(values, vec![Some(3), Some(-3), Some(3)]);
    }

    /// The counter-clockwise rule sets and the clockwise ones.
    fn rule_sets(sowing: Sowing) -> Vec<Rules> {
        Rules::all().filter(|r| r.sowing == sowing).collect()
    }

    #[test]
    fn counter_clockwise_minimax_and_levels_agree() {
        // Counter-clockwise level graphs are acyclic, so this checks the
        // level machinery (exits, signs, indices) against plain minimax.
        for rules in rule_sets(Sowing::Ccw) {
            for h in 1..=3 {
                let max = [10, 7, 5][h - 1];
                let minimax = board_values_by(Solver::with_method(h, &rules, Method::Minimax), max);
                let levels = board_values_by(Solver::with_method(h, &rules, Method::Levels), max);
                assert_eq!(minimax, levels, "{rules}, h = {h}");
            }
        }
    }

    /// Brute force over the *first-cycle game*: play stops, scoring 0 from
    /// there on, as soon as a position (board and side to move) repeats on
    /// the current path. When both players have optimal positional
    /// strategies, as they do in these games, its value is the value of the
    /// endless game; it shares nothing with the fixed-point code.
    fn first_cycle_value(rules: &Rules, pos: &RefPosition, path: &mut HashSet<RefPosition>, fresh: &mut HashMap<RefPosition, i32>) -> i32 {
        if pos.is_over(rules) {
            return pos.leftover_score(rules);
        }
        if path.contains(pos) {
            return 0;
        }
        if path.is_empty() {
            if let Some(&v) = fresh.get(pos) {
                return v;
            }
        }
        path.insert(pos.clone());
        let h = pos.houses();
        let seeds = pos.side_seeds(true) + pos.side_seeds(false);
        let mut best = i32::MIN;
        for house in pos.legal_moves(rules) {
            let (mut next, over) = play(rules, pos, house);
            let gain = next.store_difference() * if next.south_to_move == pos.south_to_move { 1 } else { -1 };
            let value = if over {
                gain
            } else {
                next.cells[store(h, true)] = 0;
                next.cells[store(h, false)] = 0;
                let after = if next.side_seeds(true) + next.side_seeds(false) < seeds {
                    // A new level: nothing before can come back.
                    first_cycle_value(rules, &next, &mut HashSet::new(), fresh)
                } else {
                    first_cycle_value(rules, &next, path, fresh)
                };
                if next.south_to_move == pos.south_to_move {
                    gain + after
                } else {
                    gain - after
                }
            };
            best = best.max(value);
        }
        path.remove(pos);
        if path.is_empty() {
            fresh.insert(pos.clone(), best);
        }
        best
    }

    #[test]
    fn clockwise_levels_agree_with_the_first_cycle_game() {
        let mut endless = 0;
        for rules in rule_sets(Sowing::Cw) {
            for (h, max) in [(1, 9), (2, 5), (3, 3)] {
                let values = board_values(h, &rules, max);
                let mut fresh = HashMap::new();
                for ((mine, theirs), &value) in &values {
                    let mut cells: Vec<u32> = mine.iter().map(|&s| s.into()).collect();
                    cells.push(0);
                    cells.extend(theirs.iter().map(|&s| u32::from(s)));
                    cells.push(0);
                    let pos = RefPosition { cells, south_to_move: true };
                    let brute = first_cycle_value(&rules, &pos, &mut HashSet::new(), &mut fresh);
                    assert_eq!(value, brute, "{rules}: {pos}");
                    endless += usize::from(value == 0);
                }
            }
        }
        assert!(endless > 0);
    }

    #[test]
    fn an_endless_clockwise_game_is_worth_nothing() {
        // h = 1, clockwise, turn-based end: one seed goes S1 -> N1 -> S1 ...
        // for ever (South sows into N1, North into S1, nobody reaches a store).
        let rules = Rules { end: End::Turn, sowing: Sowing::Cw, ..Rules::default() };
        let pos = RefPosition { cells: vec![1, 5, 0, 2], south_to_move: true };
        assert_eq!(solve(&rules, &pos), (3, vec![(1, 3)]));
        let values = board_values(1, &rules, 1);
        assert_eq!(values[&(vec![1], vec![0])], 0);
        // The mover has no seed: over, and North's seed is swept to North.
        assert_eq!(values[&(vec![0], vec![1])], -1);
    }

    #[test]
    fn clockwise_values_are_locally_consistent() {
        // Necessary (not sufficient, cycles admit other solutions) for exact
        // values: every board is worth its best move.
        for rules in rule_sets(Sowing::Cw) {
            let h = 3;
            let values = board_values(h, &rules, 6);
            let solver = Solver::new(h, &rules);
            for ((mine, theirs), &value) in &values {
                let key = key_of(&RefPosition {
                    cells: mine.iter().chain(&[0]).chain(theirs).chain(&[0]).map(|&s| s.into()).collect(),
                    south_to_move: true,
                });
                let pos = position_of(h, &key);
                if pos.is_over(&rules) {
                    assert_eq!(value, pos.leftover_score(&rules));
                    continue;
                }
                let best = pos
                    .legal_moves(&rules)
                    .into_iter()
                    .map(|house| match solver.step(&key, house) {
                        Step::Over(gain) => gain,
                        Step::Next { gain, next, extra_move } => {
                            let after = values[&(next[..h].to_vec(), next[h..2 * h].to_vec())];
                            if extra_move {
                                gain + after
                            } else {
                                gain - after
                            }
                        }
                    })
                    .max()
                    .unwrap();
                assert_eq!(value, best, "{rules}: {pos}");
            }
        }
    }

    #[test]
    fn solve_agrees_with_board_values_on_start_positions() {
        for rules in Rules::all() {
            for (h, s) in [(1, 1), (1, 4), (2, 1), (2, 2), (3, 1), (3, 2)] {
                let start = RefPosition::start(h, s);
                let (value, moves) = solve(&rules, &start);
                let table = board_values(h, &rules, 2 * h as u32 * s);
                let side = vec![s as u8; h];
                assert_eq!(value, table[&(side.clone(), side)], "{rules}: Kalah({h},{s})");
                assert_eq!(value, moves.iter().map(|&(_, v)| v).max().unwrap());
                assert_eq!(moves.len(), h);
            }
        }
    }
}
