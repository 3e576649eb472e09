//! What long work tells its caller: notes for people, the progress of a
//! database built in memory, and the nodes of a search. The library never
//! prints; a door (the command line, a server) implements [`Observer`]
//! and draws what it likes.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// Where a door logs what no client is told: a fault of its own files (a
/// damaged kept answer), a background search that failed. A server's
/// stderr, say.
pub type Log = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// Hears what the library is doing; the library does the work, on its
/// own threads, and tells the observer where it is. Every method has a
/// default that does nothing, so an implementation overrides what it
/// shows. [`Silent`] hears nothing.
pub trait Observer: Sync {
    /// A note for people: what is used, what is passed over, and why.
    fn note(&self, text: &str) {
        let _ = text;
    }

    /// Whether it watches long work ([`Observer::building`],
    /// [`Observer::searching`]): if not, the library spares the thread
    /// that would tell it. The default is no.
    fn watches(&self) -> bool {
        false
    }

    /// A database of `boards` boards is being built in memory, `done` of
    /// them so far: heard as the building goes (from its threads), and
    /// once more with `done == boards` at the end.
    fn building(&self, boards: u64, done: u64) {
        let _ = (boards, done);
    }

    /// A search described by `what` (`"searching"`, `"testing"`,
    /// `"proving bounds"`) is under way, `elapsed` into it, at `status`:
    /// heard about ten times a second while it runs (from a thread of the
    /// library's), and once when it ends, with `done`.
    fn searching(&self, what: &str, status: SearchStatus, elapsed: Duration, done: bool) {
        let _ = (what, status, elapsed, done);
    }
}

/// How often a watching observer hears of a search.
const WATCH_EVERY: Duration = Duration::from_millis(100);

/// Runs `job`, a search described by `what`, telling `observer` where it
/// is (`status`) about ten times a second from a thread of its own, and
/// once at the end ([`Observer::searching`]); with an observer that does
/// not watch, just runs it.
pub(crate) fn watched_search<R>(observer: &dyn Observer, what: &str, status: &(dyn Fn() -> SearchStatus + Sync), job: impl FnOnce() -> R) -> R {
    if !observer.watches() {
        return job();
    }
    let started = Instant::now();
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let teller = scope.spawn(|| {
            while !done.load(Relaxed) {
                observer.searching(what, status(), started.elapsed(), false);
                // Woken at once when the job ends: a quick search is not
                // held up to a tenth of a second.
                std::thread::park_timeout(WATCH_EVERY);
            }
        });
        // Set when the job ends, a panic included.
        struct Ended<'a>(&'a AtomicBool, std::thread::Thread);
        impl Drop for Ended<'_> {
            fn drop(&mut self) {
                self.0.store(true, Relaxed);
                self.1.unpark();
            }
        }
        let result = {
            let _ended = Ended(&done, teller.thread().clone());
            job()
        };
        let _ = teller.join();
        observer.searching(what, status(), started.elapsed(), true);
        result
    })
}

/// The progress a build reports ([`kalah_db::Progress`]), told to an
/// observer as [`Observer::building`].
pub(crate) struct WatchedBuild<'a> {
    observer: &'a dyn Observer,
    boards: u64,
    done: AtomicU64,
    cancel: Option<&'a std::sync::atomic::AtomicBool>,
}

impl<'a> WatchedBuild<'a> {
    /// A build of `boards` boards that `observer` hears of, stopped
    /// once `cancel` is raised.
    pub(crate) fn new(observer: &'a dyn Observer, boards: u64, cancel: Option<&'a std::sync::atomic::AtomicBool>) -> WatchedBuild<'a> {
        WatchedBuild { observer, boards, done: AtomicU64::new(0), cancel }
    }

    /// Tells the observer the build is done.
    pub(crate) fn finish(&self) {
        self.observer.building(self.boards, self.boards);
    }
}

impl kalah_db::Progress for WatchedBuild<'_> {
    fn advance(&self, _level: u32, boards: u64) {
        let done = self.done.fetch_add(boards, Relaxed) + boards;
        self.observer.building(self.boards, done.min(self.boards));
    }

    fn stopped(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Relaxed))
    }
}

/// Where a search is ([`Observer::searching`]). The bounds and the test are
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
    /// The line under way from the position, its first moves (1-based
    /// houses, an extra move a move of its own; 0 past its end): see
    /// [`SearchStatus::line_under_way`].
    pub line: [u8; kalah_search::search::LINE_SHOWN],
}

impl SearchStatus {
    /// The status of a search of `position` from its solver's progress.
    pub fn of(position: &kalah_core::Position, p: kalah_search::SearchProgress) -> SearchStatus {
        let base = position.store_difference();
        let ours = p.root == Some(position.mover_board());
        let shift = |v: Option<i32>| v.filter(|_| ours).map(|v| base + v);
        SearchStatus {
            nodes: p.nodes,
            lower: shift(p.lower),
            upper: shift(p.upper),
            testing: shift(p.testing),
            root_move: p.root_move.filter(|_| ours),
            line: if ours { p.line } else { Default::default() },
        }
    }

    /// The first moves of the line the search has under way (where its
    /// threads search apart, the line of the one that began a move last):
    /// a long search's progress below its root move. Empty before it
    /// begins.
    pub fn line_under_way(&self) -> &[u8] {
        let end = self.line.iter().position(|&m| m == 0).unwrap_or(self.line.len());
        &self.line[..end]
    }
}

/// An observer that hears nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Observer for Silent {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line under way is the search's moves from the position asked
    /// about, cut where it ends; a search of another board (one move's
    /// value) tells none of it.
    #[test]
    fn the_line_under_way_is_told_of_the_position_searched() {
        let position = kalah_core::Position::start(6, 6).unwrap();
        let p = kalah_search::SearchProgress { root: Some(position.mover_board()), root_move: Some(1), line: [1, 3, 1, 0], ..Default::default() };
        let ours = SearchStatus::of(&position, p);
        assert_eq!((ours.line_under_way(), ours.root_move), (&[1, 3, 1][..], Some(1)));
        let other = kalah_core::Position::start(6, 5).unwrap();
        let theirs = SearchStatus::of(&other, p);
        assert_eq!((theirs.line_under_way(), theirs.root_move), (&[][..], None));
        assert_eq!(SearchStatus::default().line_under_way(), &[] as &[u8]);
    }
}
