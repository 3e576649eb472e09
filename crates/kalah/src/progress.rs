//! What long work tells its caller: notes for people, the progress of a
//! database built in memory, and the nodes of a search. The library never
//! prints; a door (the command line, a server) implements [`Observer`]
//! and draws what it likes.

/// Hears what the library is doing. Every method has a default that does
/// nothing (or just runs the job), so an implementation overrides what it
/// shows. [`Silent`] hears nothing.
pub trait Observer: Sync {
    /// A note for people: what is used, what is passed over, and why.
    fn note(&self, text: &str) {
        let _ = text;
    }

    /// Runs `job`, which builds a database of `boards` boards in memory and
    /// reports to the progress it is handed (boards done, level by level).
    /// The default hands it one that ignores everything.
    fn build(&self, boards: u64, job: &mut dyn FnMut(&dyn kalah_db::Progress)) {
        let _ = boards;
        job(&kalah_db::Quiet)
    }

    /// Runs `job`, a search described by `what` (`"searching"`, `"proving
    /// bounds"`); `status` reads where it is (nodes, bounds proven), from
    /// any thread, for a display that polls it while `job` runs.
    fn search(&self, what: &str, status: &(dyn Fn() -> SearchStatus + Sync), job: &mut dyn FnMut()) {
        let _ = (what, status);
        job()
    }
}

/// Where a search is ([`Observer::search`]). The bounds and the test are
/// of the position's value (stores included, for the player to move), and
/// given only while the position itself is searched (not while each
/// move's value is).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStatus {
    /// Nodes searched so far.
    pub nodes: u64,
    /// The bounds proven on the position's value so far.
    pub lower: Option<i32>,
    /// See `lower`.
    pub upper: Option<i32>,
    /// The null-window test running: "is the value at least this?".
    pub testing: Option<i32>,
    /// The move of the position searched last (1-based house).
    pub root_move: Option<usize>,
}

impl SearchStatus {
    /// The status of a search of `position` from its solver's progress.
    pub fn of(position: &kalah_core::Position, p: kalah_search::SearchProgress) -> SearchStatus {
        let base = position.store_difference();
        let ours = p.root == Some(position.mover_board());
        let shift = |v: Option<i32>| v.filter(|_| ours).map(|v| base + v);
        SearchStatus { nodes: p.nodes, lower: shift(p.lower), upper: shift(p.upper), testing: shift(p.testing), root_move: p.root_move.filter(|_| ours) }
    }
}

/// An observer that hears nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Observer for Silent {}
