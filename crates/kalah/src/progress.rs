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
    /// bounds"`); `nodes` reads the nodes searched so far, from any thread,
    /// for a display that polls it while `job` runs.
    fn search(&self, what: &str, nodes: &(dyn Fn() -> u64 + Sync), job: &mut dyn FnMut()) {
        let _ = (what, nodes);
        job()
    }
}

/// An observer that hears nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Observer for Silent {}
