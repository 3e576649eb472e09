//! Which boards some thread is searching right now (ABDADA).
//!
//! With several threads on one shared transposition table, a thread that
//! reaches a move whose board another thread is already searching does
//! better to search its other moves first and come back to that one last,
//! when the other thread's result is likely in the table (Weill's ABDADA).
//! This table marks the boards being searched near the root. A slot holds
//! one key; when two boards share a slot the second simply goes unmarked,
//! which costs only parallel efficiency, never correctness.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Slots in the table (a power of two).
const SLOTS: usize = 1 << 16;

/// The boards being searched; see the module docs.
pub(crate) struct BusyTable {
    slots: Box<[AtomicU64]>,
}

/// A mark that [`BusyTable::release`] must take back.
#[derive(Clone, Copy)]
pub(crate) struct Mark(Option<usize>);

#[inline]
fn slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS.trailing_zeros())) as usize
}

impl BusyTable {
    pub(crate) fn new() -> BusyTable {
        BusyTable {
            slots: (0..SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Marks `key` as being searched (if its slot is free).
    #[inline]
    pub(crate) fn mark(&self, key: u64) -> Mark {
        // Stored as key + 1 so that 0 means a free slot.
        let i = slot(key);
        match self.slots[i].compare_exchange(0, key.wrapping_add(1), Relaxed, Relaxed) {
            Ok(_) => Mark(Some(i)),
            Err(_) => Mark(None),
        }
    }

    /// Takes back a mark.
    #[inline]
    pub(crate) fn release(&self, mark: Mark) {
        if let Mark(Some(i)) = mark {
            self.slots[i].store(0, Relaxed);
        }
    }

    /// Whether another thread is searching `key`.
    #[inline]
    pub(crate) fn is_busy(&self, key: u64) -> bool {
        self.slots[slot(key)].load(Relaxed) == key.wrapping_add(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_taken_and_released() {
        let t = BusyTable::new();
        assert!(!t.is_busy(42));
        let m = t.mark(42);
        assert!(t.is_busy(42));
        let again = t.mark(42);
        assert!(again.0.is_none(), "a slot holds one key");
        t.release(again);
        assert!(t.is_busy(42));
        t.release(m);
        assert!(!t.is_busy(42));
    }
}
