//! The interface the search uses to ask a database for values.

use kalah_core::{Board, Rules};

/// What a database holds of a board's value: proven bounds, equal when
/// the value is exact (`lower <= value <= upper`). Every database holds
/// exact values but one in a window encoding ([`crate::format`], "Values"),
/// which holds bounds for the boards whose values lie outside its windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stored {
    /// The value is at least this.
    pub lower: i32,
    /// The value is at most this.
    pub upper: i32,
}

impl Stored {
    /// An exact value.
    #[inline]
    pub const fn exact(value: i32) -> Stored {
        Stored { lower: value, upper: value }
    }

    /// The value, if the bounds meet.
    #[inline]
    pub const fn value(self) -> Option<i32> {
        if self.lower == self.upper {
            Some(self.lower)
        } else {
            None
        }
    }

    /// Whether the value is exact.
    #[inline]
    pub const fn is_exact(self) -> bool {
        self.lower == self.upper
    }
}

/// The values of every board with up to [`Tablebase::max_seeds`] seeds in
/// its houses: exact, or for some boards of a database in a window
/// encoding, proven bounds ([`Stored`]).
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
    /// What is stored of the value of `board`, which must be covered.
    fn stored(&self, board: Board) -> Stored;
    /// Whether every value stored is exact ([`Stored::is_exact`]): false
    /// only for a database in a window encoding. Code that needs exact
    /// values (a line of best play read from the table) refuses a table
    /// that is not, and reads [`Tablebase::exact_value`].
    fn is_exact(&self) -> bool {
        true
    }
    /// The exact value of `board` (covered) where it is stored: `None` for
    /// a board a window encoding holds bounds for.
    #[inline]
    fn exact_value(&self, board: Board) -> Option<i32> {
        self.stored(board).value()
    }
    /// Where the value of `board` (covered) is kept: a slot for
    /// [`Tablebase::prefetch_slot`] and [`Tablebase::stored_at`], so that a
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
    /// What is stored of the value of `board` (covered), kept at `slot`
    /// (its [`Tablebase::slot`]).
    #[inline]
    fn stored_at(&self, board: Board, _slot: u64) -> Stored {
        self.stored(board)
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
    fn stored(&self, _board: Board) -> Stored {
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
            fn stored(&self, board: Board) -> Stored {
                (**self).stored(board)
            }
            fn is_exact(&self) -> bool {
                (**self).is_exact()
            }
            fn exact_value(&self, board: Board) -> Option<i32> {
                (**self).exact_value(board)
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
            fn stored_at(&self, board: Board, slot: u64) -> Stored {
                (**self).stored_at(board, slot)
            }
        }
    )*};
}

forward_tablebase!(Box<T>, &T);
