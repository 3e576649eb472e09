//! A journal in use by one search ([`Journaling`]): opened and locked,
//! resumed from (with the table snapshot beside it), and written while
//! the search runs, then checked for bounds the search proved wrong.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use kalah_core::Board;
use kalah_search::Journal;

use crate::error::{Error, Result};
use crate::memory::journal::format::{Identity, JournalDir, Loaded, DEFAULT_MIN_NODES};
use crate::memory::snapshot::{self, TableEntries, Tag};
use crate::progress::Observer;
use crate::report::JournalReport;

/// The longest a journal waits between writes, however long the last
/// took (a 4 GiB table snapshot written beside a busy session took up to
/// 6 minutes; ten times that would leave an hour of work unwritten).
pub const MAX_WRITE_SPACING: Duration = Duration::from_secs(20 * 60);

/// Where and how often a search keeps its journal ([`crate::Request::journal`]).
#[derive(Clone, Debug, PartialEq)]
pub struct JournalSpec {
    /// The directory (created if need be).
    pub dir: PathBuf,
    /// How often the journal is written while the search runs (and once
    /// more at its end).
    pub every: Duration,
    /// The least subtree, in nodes, whose bounds are kept
    /// ([`DEFAULT_MIN_NODES`]).
    pub min_nodes: u64,
}

impl JournalSpec {
    /// A journal in `dir`, written every minute, keeping subtrees of
    /// [`DEFAULT_MIN_NODES`].
    pub fn new(dir: impl Into<PathBuf>) -> JournalSpec {
        JournalSpec { dir: dir.into(), every: Duration::from_secs(60), min_nodes: DEFAULT_MIN_NODES }
    }
}

/// A journal in use by one search: read, locked, and written while the
/// search runs ([`Journaling::run`]).
#[derive(Debug)]
pub struct Journaling {
    dir: JournalDir,
    loaded: Loaded,
    entries_loaded: usize,
    every: Duration,
}

impl Journaling {
    /// Opens the journal of `spec` for a search of `identity`.
    pub fn open(spec: &JournalSpec, identity: Identity) -> Result<Journaling> {
        if spec.every.is_zero() {
            return Err(Error::bad_input("a journal written every 0 s: give a positive interval"));
        }
        let (dir, loaded) = JournalDir::open(&spec.dir, identity, spec.min_nodes)?;
        let entries_loaded = loaded.journal.len();
        Ok(Journaling { dir, loaded, entries_loaded, every: spec.every })
    }

    /// The bounds, to hand to the solver.
    pub fn journal(&self) -> Arc<Journal> {
        self.loaded.journal.clone()
    }

    /// What a table snapshot of this search is tagged with; `None` for a
    /// search memory, which keeps none.
    fn snapshot_tag(&self) -> Option<Tag> {
        let id = &self.dir.identity;
        id.search.map(|(position, _)| Tag { houses: id.houses, rules: id.rules.to_string(), position: position.ring() })
    }

    /// Gives `restore` every entry of the table snapshot an earlier run of
    /// this search left (the table snapshot, `table.kt`), if there is one and it is
    /// whole; the number of entries. A snapshot that cannot be used is
    /// passed over with a note to `observer`.
    pub fn restore_table(&self, restore: &mut dyn FnMut(Board, kalah_search::tt::Bounds), observer: &dyn Observer) -> Option<u64> {
        let tag = self.snapshot_tag()?;
        match snapshot::read(&self.dir.dir, &tag, restore) {
            Ok(count) => count,
            Err(e) => {
                observer.note(&format!("the table snapshot is not used (the journal is): {e}"));
                None
            }
        }
    }

    /// Runs `job` (the search), writing the journal every interval while
    /// it runs, with the nodes `nodes` reads, and once more at its end
    /// (also when it was stopped). A write that fails while the search
    /// runs is said to `observer` and tried again next time; the last one's
    /// failure is the error.
    ///
    /// With `table` (the solver's [`kalah_search::Solver::for_each_table_entry`]),
    /// a search's journal (not a search memory) also keeps a snapshot of
    /// the transposition table (the table snapshot, `table.kt`), written just before
    /// the journal, whose count of nodes is read after it: the nodes a
    /// journal counts include all whose work a resumed search finds kept
    /// (and those searched while the snapshot was taken, which it may
    /// have missed in part). Writes are then spaced by at least ten times as
    /// long as the last took (at most a tenth of the time on them), but at
    /// most [`MAX_WRITE_SPACING`] (a write slowed by a busy disk must not
    /// put the next hours away), and a snapshot that cannot be written is
    /// a note.
    pub fn run<R>(
        &self,
        nodes: &(dyn Fn() -> u64 + Sync),
        table: Option<&TableEntries<'_>>,
        observer: &dyn Observer,
        job: impl FnOnce() -> R,
    ) -> Result<(R, JournalReport)> {
        let tag = self.snapshot_tag();
        let writer = Writer { journaling: self, nodes, snapshot: table.zip(tag.as_ref()), observer, started: Instant::now() };
        let (result, writes) = writer.while_running(job);
        self.check_contradictions()?;
        // The answer stands without the last write: a failure is reported
        // with it, not instead of it.
        let last = writer.write().inspect_err(|e| observer.note(&format!("the {} was not written: {e}", self.what())));
        Ok((result, self.report(writes, last)))
    }

    /// What this journal is, for people: "journal" or "search memory".
    fn what(&self) -> &'static str {
        if self.is_memory() {
            "search memory"
        } else {
            "journal"
        }
    }

    /// Whether it is a search memory (no position), not one search's journal.
    fn is_memory(&self) -> bool {
        self.dir.identity.search.is_none()
    }

    /// Refuses a journal whose bounds the search proved wrong: not
    /// written, so that the file keeps what it held for `kalah journal
    /// verify`.
    fn check_contradictions(&self) -> Result<()> {
        let contradictions = self.loaded.journal.contradictions();
        if contradictions == 0 {
            return Ok(());
        }
        Err(Error::corrupt(format!(
            "{}: this {} holds bounds that the search proved wrong ({contradictions} time{}): it is damaged or forged, and the answer is not trusted; verify it against searches, or delete it",
            self.dir.path().display(),
            self.what(),
            if contradictions == 1 { "" } else { "s" }
        )))
    }

    /// What the journal held and gave, after `writes` writes while the
    /// search ran and the `last` one at its end.
    fn report(&self, writes: u64, last: Result<()>) -> JournalReport {
        let memory = self.is_memory();
        JournalReport {
            path: self.dir.path(),
            memory,
            entries_loaded: self.entries_loaded,
            entries: self.loaded.journal.len(),
            earlier_sessions: self.loaded.sessions,
            earlier_nodes: self.loaded.nodes,
            earlier_seconds: self.loaded.seconds,
            writes: writes + u64::from(last.is_ok()),
            not_written: last.err().filter(|_| !memory).map(|e| e.to_string()),
        }
    }
}

/// What writes a journal while its search runs ([`Journaling::run`]).
struct Writer<'a> {
    journaling: &'a Journaling,
    /// The nodes searched so far in this session.
    nodes: &'a (dyn Fn() -> u64 + Sync),
    /// The table to snapshot beside the journal, and the snapshot's tag.
    snapshot: Option<(&'a TableEntries<'a>, &'a Tag)>,
    observer: &'a dyn Observer,
    started: Instant,
}

impl Writer<'_> {
    /// Writes the snapshot (if any; a failure is a note) and the journal
    /// whole, with the totals of every session so far.
    fn write(&self) -> Result<()> {
        let j = self.journaling;
        if let Some((table, tag)) = self.snapshot {
            if let Err(e) = snapshot::write(&j.dir.dir, tag, table) {
                self.observer.note(&format!("the table snapshot was not written (the journal is): {e}"));
            }
        }
        let loaded = &j.loaded;
        let seconds = loaded.seconds + self.started.elapsed().as_secs_f64();
        j.dir.write(&loaded.journal, loaded.sessions + 1, loaded.nodes + (self.nodes)(), seconds)
    }

    /// Runs `job` while a thread of its own writes the journal every
    /// interval (see [`Journaling::run`]); what `job` returned, and the
    /// writes that succeeded.
    fn while_running<R>(&self, job: impl FnOnce() -> R) -> (R, u64) {
        let done = (Mutex::new(false), Condvar::new());
        let writes = AtomicU64::new(0);
        let result = std::thread::scope(|scope| {
            scope.spawn(|| self.write_until(&done, &writes));
            // Raised when the job ends, a panic included.
            struct Done<'a>(&'a (Mutex<bool>, Condvar));
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    *self.0 .0.lock().unwrap_or_else(|e| e.into_inner()) = true;
                    self.0 .1.notify_all();
                }
            }
            let _done = Done(&done);
            job()
        });
        (result, writes.into_inner())
    }

    /// The writing thread: every interval until `done` is raised, a write
    /// when the journal changed (or a snapshot is kept: the table changes
    /// all the time), counted in `writes`.
    fn write_until(&self, done: &(Mutex<bool>, Condvar), writes: &AtomicU64) {
        let (journal, every) = (&self.journaling.loaded.journal, self.journaling.every);
        let mut written = journal.changes();
        let mut wait = every;
        let mut finished = done.0.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            // Checked before waiting too: a search that ends before
            // this thread first waits has already notified.
            if *finished {
                return;
            }
            finished = done.1.wait_timeout(finished, wait).unwrap_or_else(|e| e.into_inner()).0;
            if *finished {
                return;
            }
            let changes = journal.changes();
            if changes == written && self.snapshot.is_none() {
                continue;
            }
            let begun = Instant::now();
            let result = self.write();
            wait = every.max((begun.elapsed() * 10).min(MAX_WRITE_SPACING));
            match result {
                Ok(()) => {
                    written = changes;
                    writes.fetch_add(1, Relaxed);
                }
                Err(e) => {
                    self.observer.note(&format!("the journal was not written (the search goes on; tried again in {} s): {e}", every.as_secs_f64()))
                }
            }
        }
    }
}
