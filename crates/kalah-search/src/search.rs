//! Exact alpha-beta search with a shared transposition table.
//!
//! Values here are *board values*: the future store difference for the
//! player to move (`kalah-core`), so a search never needs the stores. A
//! board with `n` seeds in its houses has a value in `-n..=n`, and when the
//! rules score every seed (`Rules::values_have_seed_parity`) the value has
//! the parity of `n`.
//!
//! The search is exact: no depth limit, every line is followed to the end
//! of the game or to a board the endgame database covers. This only works
//! for rules under which play always ends (counter-clockwise sowing); the
//! clockwise rules are solved by retrograde analysis in `kalah-db`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use kalah_core::{Board, Engine, KeyPacker, Next, Outcome};
use kalah_db::Tablebase;

use crate::tt::TranspositionTable;

/// Counts the stop flag is checked after (a power of two, minus one).
const STOP_CHECK_MASK: u64 = 0x3ff;

/// A move of a node, with what is known of its value before searching it.
#[derive(Clone, Copy)]
struct Child {
    house: u8,
    outcome: Outcome,
    /// Seeds on the board after the move.
    seeds: i32,
    /// The child's table key, if it is cached.
    key: Option<u64>,
    /// Ordering score: higher first.
    score: i32,
}

impl Child {
    const EMPTY: Child = Child {
        house: 0,
        outcome: Outcome {
            board: Board::EMPTY,
            next: Next::Over,
            mover_gain: 0,
            opponent_gain: 0,
            captured: 0,
        },
        seeds: 0,
        key: None,
        score: 0,
    };
}

/// One thread's search state. The table, the database and the stop flag are shared.
pub(crate) struct Searcher<'a, T: Tablebase> {
    engine: &'a Engine,
    packer: KeyPacker,
    tt: &'a TranspositionTable,
    table: &'a T,
    /// Boards with at most this many seeds are answered by the database (-1: none).
    table_max: i32,
    parity: bool,
    /// Boards with fewer seeds are searched without the table: their
    /// subtrees cost less than the cache misses.
    tt_min_seeds: i32,
    /// Helper threads (id > 0) vary their move order near the root.
    id: usize,
    stop: &'a AtomicBool,
    shared_nodes: &'a AtomicU64,
    pub(crate) nodes: u64,
    flushed: u64,
    pub(crate) aborted: bool,
}

impl<'a, T: Tablebase> Searcher<'a, T> {
    pub(crate) fn new(
        engine: &'a Engine,
        tt: &'a TranspositionTable,
        table: &'a T,
        id: usize,
        stop: &'a AtomicBool,
        shared_nodes: &'a AtomicU64,
    ) -> Self {
        Searcher {
            engine,
            packer: KeyPacker::new(engine.houses()),
            tt,
            table,
            table_max: table.max_seeds().map_or(-1, |m| m as i32),
            parity: engine.rules().values_have_seed_parity(),
            tt_min_seeds: std::env::var("KALAH_TT_MIN").ok().and_then(|v| v.parse().ok()).unwrap_or(0),
            id,
            stop,
            shared_nodes,
            nodes: 0,
            flushed: 0,
            aborted: false,
        }
    }

    /// Adds this thread's uncounted nodes to the shared counter.
    pub(crate) fn flush_nodes(&mut self) {
        self.shared_nodes.fetch_add(self.nodes - self.flushed, Relaxed);
        self.flushed = self.nodes;
    }

    /// The exact value of a move's result, if it needs no search: the game
    /// is over, or the database covers the board.
    #[inline]
    fn known(&self, o: &Outcome, seeds: i32) -> Option<i32> {
        match o.next {
            Next::Over => Some(o.gain()),
            _ if seeds <= self.table_max => Some(o.value_with(self.table.value(o.board))),
            _ => None,
        }
    }

    /// Rounds a lower bound up and an upper bound down to the parity of `seeds`.
    #[inline]
    fn round(&self, lower: i32, upper: i32, seeds: i32) -> (i32, i32) {
        if !self.parity {
            return (lower, upper);
        }
        let fix = |v: i32, up: bool| {
            if v == i32::MIN || v == i32::MAX || (v - seeds) % 2 == 0 {
                v
            } else if up {
                v + 1
            } else {
                v - 1
            }
        };
        (fix(lower, true), fix(upper, false))
    }

    /// The value of a board that is not over and not covered by the
    /// database, searched in the window `(alpha, beta)`, `alpha < beta`.
    ///
    /// Fail-soft contract: with `v` the result and `V` the true value,
    /// `v <= alpha` means `V <= v`; `v >= beta` means `V >= v`; otherwise
    /// `v == V`. `seeds` is `board.total()`. If the search was stopped
    /// (`self.aborted`), the result means nothing and nothing was stored.
    pub(crate) fn search(&mut self, board: Board, seeds: i32, alpha: i32, beta: i32, ply: u32) -> i32 {
        debug_assert!(alpha < beta);
        debug_assert_eq!(board.total() as i32, seeds);
        self.nodes += 1;
        if self.nodes & STOP_CHECK_MASK == 0 {
            self.flush_nodes();
            if self.stop.load(Relaxed) {
                self.aborted = true;
                return 0;
            }
        }
        // Futility: nobody can gain more than the seeds left on the board.
        if seeds <= alpha {
            return seeds;
        }
        if -seeds >= beta {
            return -seeds;
        }

        let h = self.engine.houses();
        let cached = seeds >= self.tt_min_seeds;
        let key = if cached { self.packer.pack(board) } else { None };

        // Play every move once. Results that need no search count at once;
        // the others are kept, and their table buckets fetched in the
        // background while this node's own entry is looked at.
        let mut children = [Child::EMPTY; kalah_core::MAX_HOUSES];
        let mut count = 0;
        // The best value proven so far (exact moves, bounds of pruned moves, searched moves).
        let mut best = i32::MIN;
        let mut best_house = 0u8;
        for house in 0..h {
            if board.get(house) == 0 {
                continue;
            }
            let outcome = self.engine.play(board, house);
            let left = seeds - outcome.mover_gain as i32 - outcome.opponent_gain as i32;
            if let Some(v) = self.known(&outcome, left) {
                if v > best {
                    best = v;
                    best_house = house as u8;
                    if best >= beta {
                        return self.finish(key, best, alpha, beta, best_house, seeds, self.nodes);
                    }
                }
                continue;
            }
            let child_key = if left >= self.tt_min_seeds { self.packer.pack(outcome.board) } else { None };
            if let Some(k) = child_key {
                self.tt.prefetch(k);
            }
            children[count] = Child {
                house: house as u8,
                outcome,
                seeds: left,
                key: child_key,
                score: 0,
            };
            count += 1;
        }

        let mut hint = u8::MAX;
        if let Some(entry) = key.and_then(|k| self.tt.probe(k)) {
            if entry.lower >= beta {
                return entry.lower;
            }
            if entry.upper <= alpha {
                return entry.upper;
            }
            hint = entry.best;
        }
        let start_nodes = self.nodes;

        // Bounds on each move from its child's range and table entry:
        // enhanced transposition cut-offs, pruning, and move ordering.
        let mut kept = 0;
        for i in 0..count {
            let child = children[i];
            let (mut lo, mut hi) = (-child.seeds, child.seeds);
            if let Some(e) = child.key.and_then(|k| self.tt.probe(k)) {
                lo = lo.max(e.lower);
                hi = hi.min(e.upper);
            }
            let gain = child.outcome.gain();
            let (move_lo, move_hi) = match child.outcome.next {
                Next::Mover => (gain + lo, gain + hi),
                _ => (gain - hi, gain - lo),
            };
            if move_lo >= beta {
                // Enhanced transposition cut-off: this move alone refutes.
                return self.finish(key, move_lo, alpha, beta, child.house, seeds, start_nodes);
            }
            if move_hi <= alpha {
                // Cannot raise the value above alpha: its upper bound is all we need.
                if move_hi > best {
                    best = move_hi;
                    best_house = child.house;
                }
                continue;
            }
            let score = if child.house == hint {
                1 << 20
            } else if child.outcome.next == Next::Mover {
                (1 << 16) + child.house as i32
            } else {
                // Seeds won now, then the bounds from the child's entry.
                (gain << 8) + (move_lo.max(-100) + move_hi.min(100)) / 2 + 128
            };
            children[kept] = Child { score, ..child };
            kept += 1;
        }
        let count = kept;

        let children = &mut children[..count];
        children.sort_unstable_by(|a, b| b.score.cmp(&a.score));
        if self.id > 0 && ply < 6 && children.len() > 2 {
            // Lazy SMP: helpers take the later moves in another order near
            // the root so the threads fill the table with different subtrees.
            let k = 1 + (self.id + ply as usize) % (children.len() - 1);
            children[1..].rotate_left(k - 1);
        }

        for child in children.iter() {
            let gain = child.outcome.gain();
            let v = match child.outcome.next {
                Next::Mover => gain + self.search(child.outcome.board, child.seeds, alpha - gain, beta - gain, ply + 1),
                _ => gain - self.search(child.outcome.board, child.seeds, gain - beta, gain - alpha, ply + 1),
            };
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_house = child.house;
                if best >= beta {
                    break;
                }
            }
        }
        self.finish(key, best, alpha, beta, best_house, seeds, start_nodes)
    }

    /// Records the result of a node in the table and returns it.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn finish(&mut self, key: Option<u64>, best: i32, alpha: i32, beta: i32, house: u8, seeds: i32, start_nodes: u64) -> i32 {
        let (lower, upper) = if best >= beta {
            (best, i32::MAX)
        } else if best <= alpha {
            (i32::MIN, best)
        } else {
            (best, best)
        };
        let (lower, upper) = self.round(lower, upper, seeds);
        if let Some(k) = key {
            self.tt.store(k, lower, upper, house, self.nodes - start_nodes + 1);
        }
        if best >= beta {
            lower
        } else {
            upper
        }
    }

    /// The exact value of a board by MTD(f): null-window tests around a
    /// guess until the lower and upper bounds meet. `None` if stopped.
    pub(crate) fn mtdf(&mut self, board: Board, guess: i32) -> Option<i32> {
        if let Some(v) = self.engine.terminal_value(board) {
            return Some(v);
        }
        let seeds = board.total() as i32;
        if seeds <= self.table_max {
            return Some(self.table.value(board));
        }
        let (mut lower, mut upper) = (-seeds, seeds);
        let step = if self.parity { 2 } else { 1 };
        let mut guess = guess.clamp(lower, upper);
        while lower < upper {
            // Test "value >= beta" with beta just above what is known.
            let beta = if guess <= lower { lower + step } else { guess };
            let before = self.nodes;
            let v = self.search(board, seeds, beta - 1, beta, 0);
            if std::env::var_os("KALAH_TRACE").is_some() {
                eprintln!("mtdf pass beta {beta}: {v} ({} nodes)", self.nodes - before);
            }
            if self.aborted {
                return None;
            }
            if v >= beta {
                lower = v;
            } else {
                upper = v;
            }
            guess = v;
        }
        Some(lower)
    }

    /// Whether the value of `board` is at least `beta` (one null-window test).
    pub(crate) fn at_least(&mut self, board: Board, beta: i32) -> Option<bool> {
        if let Some(v) = self.engine.terminal_value(board) {
            return Some(v >= beta);
        }
        let seeds = board.total() as i32;
        if seeds <= self.table_max {
            return Some(self.table.value(board) >= beta);
        }
        let v = self.search(board, seeds, beta - 1, beta, 0);
        if self.aborted {
            None
        } else {
            Some(v >= beta)
        }
    }
}
