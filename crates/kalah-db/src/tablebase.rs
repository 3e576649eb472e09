//! The interface the search uses to ask a database for exact values.

use kalah_core::{Board, Rules};

/// Exact values of every board with up to [`Tablebase::max_seeds`] seeds in its houses.
///
/// A value is the future store difference for the player to move under
/// perfect play (`RULES.md`, "Values"), for boards seen from the mover.
pub trait Tablebase: Send + Sync {
    /// Houses a side of the boards covered.
    fn houses(&self) -> usize;
    /// The rules the values were computed for.
    fn rules(&self) -> Rules;
    /// Boards with at most this many seeds are covered; `None` if none are.
    fn max_seeds(&self) -> Option<u32>;
    /// The value of `board`, which must be covered.
    fn value(&self, board: Board) -> i32;
    /// Where the value of `board` (covered) is kept: a slot for
    /// [`Tablebase::prefetch_slot`] and [`Tablebase::value_at`], so that a
    /// search that prefetches a value and reads it later works out the
    /// board's index once.
    #[inline]
    fn slot(&self, _board: Board) -> u64 {
        0
    }
    /// Asks the processor to start fetching the value kept at `slot`, which
    /// is read soon after.
    #[inline]
    fn prefetch_slot(&self, _slot: u64) {}
    /// The value of `board` (covered), kept at `slot` (its [`Tablebase::slot`]).
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

/// A database behind a pointer answers as the database itself.
macro_rules! forward_tablebase {
    ($($pointer:ty),*) => {$(
        impl<T: Tablebase + ?Sized> Tablebase for $pointer {
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
            fn slot(&self, board: Board) -> u64 {
                (**self).slot(board)
            }
            fn prefetch_slot(&self, slot: u64) {
                (**self).prefetch_slot(slot)
            }
            fn value_at(&self, board: Board, slot: u64) -> i32 {
                (**self).value_at(board, slot)
            }
        }
    )*};
}

forward_tablebase!(Box<T>, &T);
