//! The interface the search uses to ask a database for exact values.

use kalah_core::{Board, Rules};

/// Exact values of every board with up to [`Tablebase::max_seeds`] seeds in its houses.
///
/// A value is the future store difference for the player to move under
/// perfect play (`RULES.md`, "Values"), for boards seen from the mover.
pub trait Tablebase: Sync {
    /// Houses a side of the boards covered.
    fn houses(&self) -> usize;
    /// The rules the values were computed for.
    fn rules(&self) -> Rules;
    /// Boards with at most this many seeds are covered; `None` if none are.
    fn max_seeds(&self) -> Option<u32>;
    /// The value of `board`, which must be covered.
    fn value(&self, board: Board) -> i32;
    /// Asks the processor to start fetching the value of `board` (covered),
    /// which is read soon after, and returns where it is kept: a slot to
    /// give [`Tablebase::value_at`] with the same board, so that the
    /// board's index is computed once.
    #[inline]
    fn prefetch(&self, board: Board) -> u64 {
        let slot = self.slot(board);
        self.prefetch_slot(slot);
        slot
    }
    /// Where the value of `board` (covered) is kept, for [`Tablebase::value_at`].
    #[inline]
    fn slot(&self, _board: Board) -> u64 {
        0
    }
    /// Asks the processor to start fetching the value kept at `slot`.
    #[inline]
    fn prefetch_slot(&self, _slot: u64) {}
    /// The value of `board` (covered), whose slot [`Tablebase::prefetch`] gave.
    #[inline]
    fn value_at(&self, board: Board, _slot: u64) -> i32 {
        self.value(board)
    }
    /// A problem found while answering (a damaged block of a file): every
    /// value given since may be wrong, and a search must not report its result.
    fn failure(&self) -> Option<String> {
        None
    }
}

/// No database: covers nothing.
#[derive(Clone, Copy, Debug)]
pub struct NoTablebase {
    /// Houses a side.
    pub houses: usize,
    /// Rules.
    pub rules: Rules,
}

impl Tablebase for NoTablebase {
    fn houses(&self) -> usize {
        self.houses
    }
    fn rules(&self) -> Rules {
        self.rules
    }
    fn max_seeds(&self) -> Option<u32> {
        None
    }
    fn value(&self, _board: Board) -> i32 {
        unreachable!("NoTablebase covers no board")
    }
}

impl<T: Tablebase + ?Sized> Tablebase for Box<T> {
    fn houses(&self) -> usize {
        (**self).houses()
    }
    fn rules(&self) -> Rules {
        (**self).rules()
    }
    fn max_seeds(&self) -> Option<u32> {
        (**self).max_seeds()
    }
    fn value(&self, board: Board) -> i32 {
        (**self).value(board)
    }
    fn failure(&self) -> Option<String> {
        (**self).failure()
    }
    fn prefetch(&self, board: Board) -> u64 {
        (**self).prefetch(board)
    }
    fn value_at(&self, board: Board, slot: u64) -> i32 {
        (**self).value_at(board, slot)
    }
    fn slot(&self, board: Board) -> u64 {
        (**self).slot(board)
    }
    fn prefetch_slot(&self, slot: u64) {
        (**self).prefetch_slot(slot)
    }
}

impl<T: Tablebase + ?Sized> Tablebase for &T {
    fn houses(&self) -> usize {
        (**self).houses()
    }
    fn rules(&self) -> Rules {
        (**self).rules()
    }
    fn max_seeds(&self) -> Option<u32> {
        (**self).max_seeds()
    }
    fn value(&self, board: Board) -> i32 {
        (**self).value(board)
    }
    fn failure(&self) -> Option<String> {
        (**self).failure()
    }
    fn prefetch(&self, board: Board) -> u64 {
        (**self).prefetch(board)
    }
    fn value_at(&self, board: Board, slot: u64) -> i32 {
        (**self).value_at(board, slot)
    }
    fn slot(&self, board: Board) -> u64 {
        (**self).slot(board)
    }
    fn prefetch_slot(&self, slot: u64) {
        (**self).prefetch_slot(slot)
    }
}
