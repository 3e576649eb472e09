//! Proven bounds worth keeping across runs: the memory of a long search.
//!
//! A search that takes hours keeps what it proves in its transposition
//! table, which is lost when the process ends. A [`Journal`] keeps the part
//! that is expensive to prove again: the bounds proven on every board whose
//! subtree took at least `min_nodes` nodes (at any depth), and the bounds
//! each root test proved on the root (however quick). A search given a
//! journal ([`crate::Solver::journal_with`]) records such bounds as it
//! proves them; given one with an earlier run's entries, it first loads
//! them into its transposition table, as entries of the highest priority,
//! so that every board of the journal is answered wherever the search meets
//! it, and its root tests start from the root's bounds. It goes on where
//! the earlier run stopped, less the small subtrees that run had cached.
//!
//! Only bounds proven by exact searches (or the proven side of a proof of
//! bounds) are recorded, never the guesses of depth-limited searches, as
//! board values: what the player to move gains from the board on, stores
//! not counted, the same for any position with that board. They do not
//! depend on the database the search read (a database holds exact
//! values), nor on the position searched from.
//!
//! This module holds the bounds in memory; writing them to a file, and
//! refusing a file of other rules, is the caller's (the `kalah` library's
//! `journal` module).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use kalah_core::Board;

/// One board's proven bounds in a [`Journal`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The board (its player to move first).
    pub board: Board,
    /// Its value is at least this (`i32::MIN`: no bound).
    pub lower: i32,
    /// And at most this (`i32::MAX`: no bound).
    pub upper: i32,
    /// The best move found (0-based house; `u8::MAX`: none): the move a
    /// resumed search tries first there.
    pub best: u8,
}

/// Bounds proven on boards, for the searches of a solver to record and use.
#[derive(Debug)]
pub struct Journal {
    /// Proven `(lower, upper)` board values; `i32::MIN` and `i32::MAX` for
    /// no bound.
    entries: Mutex<HashMap<Board, (i32, i32, u8)>>,
    /// The root test ("value >= beta") last begun on each root board: a
    /// resumed search begins with it, as the stopped one was running it.
    tests: Mutex<HashMap<Board, i32>>,
    min_nodes: u64,
    /// Bounds recorded or narrowed, for a caller to see whether to write.
    changes: AtomicU64,
    /// Bounds a search proved that crossed those kept: a journal (or
    /// search memory) whose bounds are wrong, for a caller to report.
    contradictions: AtomicU64,
}

impl Journal {
    /// An empty journal keeping bounds whose subtrees took at least
    /// `min_nodes` nodes (at least 1).
    pub fn new(min_nodes: u64) -> Journal {
        Journal {
            entries: Mutex::new(HashMap::new()),
            tests: Mutex::new(HashMap::new()),
            min_nodes: min_nodes.max(1),
            changes: AtomicU64::new(0),
            contradictions: AtomicU64::new(0),
        }
    }

    /// A journal holding `entries` (board, lower, upper) and root `tests`
    /// (board, beta), as an earlier run left them ([`Journal::entries`],
    /// [`Journal::tests`]); a board given twice keeps both bounds. `None`
    /// if some entry's lower bound is above its upper.
    pub fn with_entries(min_nodes: u64, entries: impl IntoIterator<Item = Entry>, tests: impl IntoIterator<Item = (Board, i32)>) -> Option<Journal> {
        let journal = Journal::new(min_nodes);
        for Entry { board, lower, upper, best } in entries {
            if lower > upper || !journal.merge(board, lower, upper, best) {
                return None;
            }
        }
        journal.tests.lock().unwrap_or_else(|e| e.into_inner()).extend(tests);
        journal.changes.store(0, Relaxed);
        Some(journal)
    }

    /// The root test last begun on each root board, in the order of the boards.
    pub fn tests(&self) -> Vec<(Board, i32)> {
        let mut all: Vec<_> = self.tests.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(&b, &t)| (b, t)).collect();
        all.sort_unstable();
        all
    }

    /// The root test last begun on `root`, if any.
    pub fn test(&self, root: Board) -> Option<i32> {
        self.tests.lock().unwrap_or_else(|e| e.into_inner()).get(&root).copied()
    }

    /// A root test "value >= beta" of `root` begins.
    pub(crate) fn begin_test(&self, root: Board, beta: i32) {
        if self.tests.lock().unwrap_or_else(|e| e.into_inner()).insert(root, beta) != Some(beta) {
            self.changes.fetch_add(1, Relaxed);
        }
    }

    /// Every entry, in the order of the boards (so that a file written from
    /// them depends on nothing else).
    pub fn entries(&self) -> Vec<Entry> {
        let mut all: Vec<_> = self.lock().iter().map(|(&board, &(lower, upper, best))| Entry { board, lower, upper, best }).collect();
        all.sort_unstable_by_key(|e| e.board);
        all
    }

    /// How many boards have bounds.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no board has bounds.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bounds kept for `board`, if any.
    pub fn bounds(&self, board: Board) -> Option<(i32, i32)> {
        self.lock().get(&board).map(|&(l, u, _)| (l, u))
    }

    /// How many times bounds were recorded or narrowed since the journal
    /// was made: a caller writes it out when this moved.
    pub fn changes(&self) -> u64 {
        self.changes.load(Relaxed)
    }

    /// The least subtree, in nodes, whose bounds are kept.
    pub fn min_nodes(&self) -> u64 {
        self.min_nodes
    }

    /// Records bounds proven on `board` (a board whose subtree was large,
    /// or a root).
    /// Bounds that cross those kept are not merged but counted
    /// ([`Journal::contradictions`]): the kept ones came from a damaged or
    /// forged file, or the search is wrong, and either must be reported.
    #[inline(never)]
    pub(crate) fn record(&self, board: Board, lower: i32, upper: i32, best: u8) {
        if !self.merge(board, lower, upper, best) {
            self.contradictions.fetch_add(1, Relaxed);
        }
    }

    /// How many times a search proved bounds that cross those kept (they
    /// are counted, not merged): 0 unless the journal's bounds are wrong.
    pub fn contradictions(&self) -> u64 {
        self.contradictions.load(Relaxed)
    }

    /// Narrows the bounds of `board`, its best move `best` (0-based house,
    /// `u8::MAX` none) kept unless only an upper bound comes with it (the
    /// table's rule); false if the bounds would cross.
    fn merge(&self, board: Board, lower: i32, upper: i32, best: u8) -> bool {
        let mut entries = self.lock();
        let entry = entries.entry(board).or_insert((i32::MIN, i32::MAX, u8::MAX));
        let keep = (lower == i32::MIN && entry.0 != i32::MIN) || best == u8::MAX;
        let narrowed = (entry.0.max(lower), entry.1.min(upper), if keep { entry.2 } else { best });
        if narrowed.0 > narrowed.1 {
            return false;
        }
        if narrowed != *entry {
            *entry = narrowed;
            self.changes.fetch_add(1, Relaxed);
        }
        true
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Board, (i32, i32, u8)>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}
