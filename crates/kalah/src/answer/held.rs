//! One search held between the runs of one question ([`HeldSearch`]),
//! and when a solver kept from an earlier search serves a new one
//! ([`fits`]).

use std::sync::{Arc, Mutex};

use kalah_core::Rules;
use kalah_search::{SearchOptions, Solver};

use crate::answer::table::Table;

/// Whether `solver` serves a search of `h` houses under `rules` over
/// `table` with `options`, as one made for it would: the same table, the
/// same transposition table and the same keys into it (a kept solver
/// packs keys as it always did, so its entries never mix two packings).
pub(crate) fn fits(solver: &Solver<Table>, h: usize, rules: Rules, table: &Table, options: &SearchOptions) -> bool {
    let same_table = match (solver.tablebase(), table) {
        (Table::File(a), Table::File(b)) => Arc::ptr_eq(a, b),
        (Table::Memory(a), Table::Memory(b)) => Arc::ptr_eq(a, b),
        (Table::None(_), Table::None(_)) => true,
        _ => false,
    };
    let engine = solver.engine();
    same_table
        && engine.houses() == h
        && engine.rules() == rules
        && solver.tt_bytes() == options.table_bytes(h)
        && solver.keys() == options.keys(h)
        && solver.threads() == options.threads.max(1)
}

/// One search held between the runs of one question (a server's
/// background search that pauses while no one looks at its position and
/// goes on when someone does, or is given more time): its solver, with
/// its transposition table, so that the next run goes on from what the
/// last proved instead of from nothing. A request carries it in
/// [`Request::held`](crate::Request::held); the search of a request that
/// keeps a journal, or chooses its tests, is not held. It holds the
/// table's memory (and, through the solver, the database it searched
/// over) until [`HeldSearch::release`] or until it is dropped.
#[derive(Default)]
pub struct HeldSearch(Mutex<Option<Solver<Table>>>);

impl std::fmt::Debug for HeldSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldSearch").field("bytes", &self.bytes()).finish()
    }
}

impl HeldSearch {
    /// The bytes of the transposition table held (0 when none is).
    pub fn bytes(&self) -> usize {
        self.0.lock().map_or(0, |s| s.as_ref().map_or(0, |s| s.tt_bytes()))
    }

    /// Lets the search held go: its table's memory is freed (the next run
    /// begins from nothing).
    pub fn release(&self) {
        if let Ok(mut held) = self.0.lock() {
            *held = None;
        }
    }

    /// The solver held, taken out while it searches, if it serves this
    /// search as one made for it would ([`fits`]); one that does not is
    /// let go.
    pub(crate) fn take(&self, h: usize, rules: Rules, table: &Table, options: &SearchOptions) -> Option<Solver<Table>> {
        let solver = self.0.lock().ok()?.take()?;
        fits(&solver, h, rules, table, options).then_some(solver)
    }

    /// Holds `solver` for the next run.
    pub(crate) fn put(&self, solver: Solver<Table>) {
        if let Ok(mut held) = self.0.lock() {
            *held = Some(solver);
        }
    }
}
