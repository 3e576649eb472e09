//! What a long-lived analyzer keeps between requests
//! ([`Analyzer::keeping`](crate::Analyzer::keeping)), shared by its
//! clones: the databases it built in memory, the files it loaded into
//! memory for searches and those it opened (mapped) for probes, at most
//! [`KEPT_DATABASES`] of each, the least recently used going first; and
//! the solvers of its searches, with their transposition tables, for the
//! next search they fit ([`KEPT_SOLVERS`]). A mapped file let go of while
//! a search still reads it counts among what is kept until that search
//! ends, as its pages stay until then.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use kalah_core::Rules;
use kalah_db::{Builder, Database, Tablebase};
use kalah_search::{SearchOptions, Solver};

use crate::answer::held::fits;
use crate::answer::setup::Setup;
use crate::answer::table::Table;
use crate::databases::{for_search_up_to, Databases, Purpose, SetupBudget};
use crate::error::{Error, Result};
use crate::limits::MemoryShare;

/// What a keeping analyzer holds, shared by its clones (see the module
/// docs); each method holds it locked while it finds or makes an entry.
#[derive(Debug, Default)]
pub(crate) struct Keeping(Mutex<Kept>);

/// The entries of a [`Keeping`], the most recently used last.
#[derive(Default)]
struct Kept {
    built: Vec<Arc<Builder>>,
    loaded: Vec<(PathBuf, Arc<Database>)>,
    /// Solvers of searches done, with their transposition tables (what
    /// they proved stays true for the next position of the same rules),
    /// for the next request whose search they fit ([`KEPT_SOLVERS`]).
    solvers: Vec<Solver<Table>>,
    /// Files opened (mapped) for probes, with the size and time of change
    /// they had then: a file rebuilt since is opened anew.
    opened: Vec<(PathBuf, FileStamp, Arc<Database>)>,
    /// Mapped files let go of (beyond [`KEPT_DATABASES`]) while a search
    /// still used them: their pages stay the door's until that search
    /// ends, and count until then ([`Kept::leaving_bytes`]); a request for
    /// the same file meanwhile takes the same map back. (A database built
    /// or copied into memory is its search's own, counted in its share.)
    /// Each with its file's stamp when it was opened for probes.
    leaving: Vec<(PathBuf, Option<FileStamp>, Weak<Database>)>,
}

impl Kept {
    /// See [`Keeping::bytes`].
    fn bytes(&self) -> u64 {
        let built: u64 = self.built.iter().map(|b| b.indexer().len()).sum();
        let copied: u64 = self.loaded.iter().filter(|(_, d)| d.is_loaded()).map(|(_, d)| d.file_bytes()).sum();
        let solvers: u64 = self.solvers.iter().map(|s| s.tt_bytes() as u64).sum();
        built + copied + self.mapped().iter().map(|d| d.file_bytes()).sum::<u64>() + solvers + self.leaving_bytes()
    }

    /// The memory of the mapped files let go of that searches still use:
    /// a map is gone when its last search ends.
    fn leaving_bytes(&self) -> u64 {
        self.leaving.iter().filter_map(|(_, _, d)| d.upgrade()).map(|d| d.file_bytes()).sum()
    }

    /// Lets go of `db`: a mapped file a search still uses counts until it
    /// ends (a map this keeping still holds elsewhere is counted there).
    /// Kept solvers over it go with it: no request would be given it again.
    fn leave(&mut self, db: Arc<Database>, stamp: Option<FileStamp>) {
        self.leaving.retain(|(_, _, d)| d.strong_count() > 0);
        let kept_elsewhere = self.loaded.iter().any(|(_, d)| Arc::ptr_eq(d, &db)) || self.opened.iter().any(|(_, _, d)| Arc::ptr_eq(d, &db));
        if kept_elsewhere || db.is_loaded() {
            return;
        }
        self.solvers.retain(|s| !matches!(s.tablebase(), Table::File(d) if Arc::ptr_eq(d, &db)));
        if Arc::strong_count(&db) > 1 {
            self.leaving.push((db.path().to_path_buf(), stamp, Arc::downgrade(&db)));
        }
    }

    /// The map of `path` let go of that a search still uses, taken back
    /// (it counts as kept again): for a search, one of as many bytes as
    /// `bytes`; for probes (`stamp`), one opened when the file had that
    /// size and time of change.
    fn take_back(&mut self, path: &Path, bytes: u64, stamp: Option<FileStamp>) -> Option<Arc<Database>> {
        let same = |p: &PathBuf, s: &Option<FileStamp>, d: &Weak<Database>| {
            p == path && (stamp.is_none() || *s == stamp) && d.upgrade().is_some_and(|d| d.file_bytes() == bytes)
        };
        let at = self.leaving.iter().position(|(p, s, d)| same(p, s, d))?;
        self.leaving.remove(at).2.upgrade()
    }

    /// The files kept mapped, for searches or for probes, each once.
    fn mapped(&self) -> Vec<&Arc<Database>> {
        let mut mapped: Vec<&Arc<Database>> = Vec::new();
        let all = self.loaded.iter().map(|(_, d)| d).chain(self.opened.iter().map(|(_, _, d)| d));
        for d in all.filter(|d| !d.is_loaded()) {
            if !mapped.iter().any(|m| Arc::ptr_eq(m, d)) {
                mapped.push(d);
            }
        }
        mapped
    }

    /// Whether a search under way (or a search held between runs) uses
    /// the mapped file `db`: it has more owners than this keeping.
    fn in_use(&self, db: &Arc<Database>) -> bool {
        let same = |d: &Arc<Database>| Arc::ptr_eq(d, db);
        let here = self.loaded.iter().filter(|(_, d)| same(d)).count()
            + self.opened.iter().filter(|(_, _, d)| same(d)).count()
            + self.solvers.iter().filter(|s| matches!(s.tablebase(), Table::File(d) if same(d))).count();
        Arc::strong_count(db) > here
    }

    /// Lets go of one thing kept: a solver, else the least recently used
    /// database built in memory, file copied into memory, or mapped file
    /// no search uses. False when nothing more can go.
    fn release_one(&mut self) -> bool {
        if !self.solvers.is_empty() {
            self.solvers.remove(0);
        } else if !self.built.is_empty() {
            self.built.remove(0);
        } else if let Some(at) = self.loaded.iter().position(|(_, d)| d.is_loaded()) {
            self.loaded.remove(at);
        } else if let Some(idle) = self.mapped().into_iter().find(|d| !self.in_use(d)).cloned() {
            self.loaded.retain(|(_, d)| !Arc::ptr_eq(d, &idle));
            self.opened.retain(|(_, _, d)| !Arc::ptr_eq(d, &idle));
        } else {
            return false;
        }
        true
    }

    /// What is kept that no search uses and could be let go
    /// ([`Kept::release_one`]), in bytes: all but the mapped files in use
    /// and what searches still use of what was let go.
    fn idle_bytes(&self) -> u64 {
        let in_use: u64 = self.mapped().into_iter().filter(|d| self.in_use(d)).map(|d| d.file_bytes()).sum();
        self.bytes() - in_use - self.leaving_bytes()
    }

    /// Whether `share` admits a file of `file` bytes mapped beside what is
    /// kept ([`MemoryShare::admit_file`]), letting go of what is kept (and
    /// then what the door holds paused) where that makes the room, and
    /// only then.
    fn admit(&mut self, share: &dyn MemoryShare, file: u64) -> bool {
        for pass in 0..2 {
            if share.admit_file(file, self.bytes()) {
                return true;
            }
            if share.admit_file(file, self.bytes().saturating_sub(self.idle_bytes())) {
                while self.release_one() {
                    if share.admit_file(file, self.bytes()) {
                        return true;
                    }
                }
            }
            // Paused searches hold tables and keep their files mapped:
            // let go of them, then look again.
            if pass == 0 && !share.release_held() {
                return false;
            }
        }
        false
    }
}

/// A file's size and time of last change.
type FileStamp = (u64, Option<std::time::SystemTime>);

fn stamp(path: &Path) -> Result<FileStamp> {
    let meta = std::fs::metadata(path).map_err(|e| Error::from(kalah_db::DbError::io(path, e)))?;
    Ok((meta.len(), meta.modified().ok()))
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept")
            .field("built", &self.built.len())
            .field("loaded", &self.loaded.len())
            .field("opened", &self.opened.len())
            .field("solvers", &self.solvers.len())
            .field("leaving", &self.leaving.len())
            .finish()
    }
}

/// The entry of `kept` that `fits`, moved to the end (the most recently
/// used), or one made and added, the least recently used going first
/// (given to `leave`) when [`KEPT_DATABASES`] are kept; and whether it
/// was kept from before.
fn keep<T: Clone>(kept: &mut Vec<T>, fits: impl Fn(&T) -> bool, make: impl FnOnce() -> Result<T>, leave: impl FnOnce(T)) -> Result<(T, bool)> {
    keep_made(kept, fits, || make().map(Some), leave)?.ok_or_else(|| Error::internal("a kept item was not made"))
}

/// [`keep`], where making may come to nothing (`None`: a build stopped
/// by a cancel flag), which is not kept.
fn keep_made<T: Clone>(
    kept: &mut Vec<T>,
    fits: impl Fn(&T) -> bool,
    make: impl FnOnce() -> Result<Option<T>>,
    leave: impl FnOnce(T),
) -> Result<Option<(T, bool)>> {
    let found = kept.iter().position(fits);
    let entry = match found {
        Some(at) => kept.remove(at),
        None => {
            let Some(made) = make()? else {
                return Ok(None);
            };
            if kept.len() >= KEPT_DATABASES {
                leave(kept.remove(0));
            }
            made
        }
    };
    kept.push(entry.clone());
    Ok(Some((entry, found.is_some())))
}

/// How many databases of each kind a keeping analyzer holds at most; the
/// least recently used goes first.
pub(crate) const KEPT_DATABASES: usize = 4;

/// How many solvers a keeping analyzer holds at most for later requests,
/// each with its transposition table of at most [`KEPT_SOLVER_BYTES`]:
/// a new solver starts threads and a table whose pages the kernel clears
/// as they are first touched, most of the time of a small search
/// (BENCHMARKS.md, "Python: many positions").
pub(crate) const KEPT_SOLVERS: usize = 4;

/// The largest transposition table a kept solver may hold.
pub(crate) const KEPT_SOLVER_BYTES: usize = 256 << 20;

impl Keeping {
    /// The database of `n` seeds built in memory under `setup` (beside a
    /// database `file`, if one is used): one kept that covers as many
    /// seeds, or one built now and kept (and whether it was kept before).
    /// A build the cancel flag stops (or never begins) is not kept.
    pub(crate) fn built(&self, setup: &Setup<'_>, n: u32, file: bool) -> Result<Option<(Arc<Builder>, bool)>> {
        let (h, rules) = (setup.engine.houses(), setup.engine.rules());
        // Held while building: a second request for the same database waits for it.
        let mut kept = self.0.lock().map_err(|_| Error::internal("a request failed while building a database"))?;
        let fits = |b: &Arc<Builder>| b.houses() == h && b.rules() == rules && b.indexer().max_seeds() >= n;
        keep_made(&mut kept.built, fits, || Ok(setup.build_noted(n, file)?.map(Arc::new)), drop)
    }

    /// `db` loaded into memory for a search ([`for_search_up_to`]: copied
    /// if it is at most `copy_bytes`, else mapped) on `threads` threads, or
    /// the one kept of its file (and whether it was). A file mapped anew
    /// comes in only where `share` (the request's share of a door's
    /// memory, settled) admits it beside what is kept
    /// ([`MemoryShare::admit_file`]), what no search uses let go first
    /// where that makes the room: `None` where it does not fit.
    pub(crate) fn loaded(
        &self,
        db: Database,
        copy_bytes: u64,
        threads: usize,
        share: Option<&dyn MemoryShare>,
    ) -> Result<Option<(Arc<Database>, bool)>> {
        let mut kept = self.0.lock().map_err(|_| Error::internal("a request failed while loading a database"))?;
        let path = db.path().to_path_buf();
        if !kept.loaded.iter().any(|(p, _)| *p == path) && db.file_bytes() > copy_bytes {
            // Mapped: the file opened for probes, if it is, else a new map, if it fits.
            if let Some(open) = kept.opened.iter().find(|(p, _, _)| *p == path).map(|(_, _, d)| d.clone()) {
                kept.loaded.push((path, open.clone()));
                return Ok(Some((open, true)));
            }
            // The map a search still uses, let go of: counted already.
            if let Some(back) = kept.take_back(&path, db.file_bytes(), None) {
                let mut left = None;
                let ((_, back), _) = keep(&mut kept.loaded, |(p, _)| *p == path, || Ok((path.clone(), back)), |(_, d)| left = Some(d))?;
                if let Some(d) = left {
                    kept.leave(d, None);
                }
                return Ok(Some((back, true)));
            }
            if let Some(share) = share {
                if !kept.admit(share, db.file_bytes()) {
                    return Ok(None);
                }
            }
        }
        let load = || Ok((path.clone(), Arc::new(for_search_up_to(db, copy_bytes, threads)?)));
        let mut left = None;
        let ((_, loaded), was_kept) = keep(&mut kept.loaded, |(p, _)| *p == path, load, |(_, d)| left = Some(d))?;
        if let Some(d) = left {
            kept.leave(d, None);
        }
        Ok(Some((loaded, was_kept)))
    }

    /// The memory what is kept holds: databases built in memory, files
    /// copied into memory, files mapped (each once, whole: a search's
    /// reads make their pages the door's), and the kept solvers' tables;
    /// and the mapped files let go of that searches still use.
    pub(crate) fn bytes(&self) -> u64 {
        self.0.lock().map_or(0, |kept| kept.bytes())
    }

    /// Lets go of what is kept, the solvers first, then the least recently
    /// used databases, until it holds at most `bytes` ([`Keeping::bytes`]):
    /// the memory of a database in memory is freed once no search under
    /// way uses it; a mapped file a search uses is kept.
    pub(crate) fn release_beyond(&self, bytes: u64) {
        let Ok(mut kept) = self.0.lock() else {
            return;
        };
        while kept.bytes() > bytes && kept.release_one() {}
    }

    /// The file at `path` opened (mapped) for the probes of positions of
    /// `purpose`, kept open for the requests after, and opened anew once
    /// changed (and whether it was open from before).
    pub(crate) fn opened(&self, path: &Path, purpose: Purpose) -> Result<(Arc<Database>, bool)> {
        let now = stamp(path)?;
        let mut kept = self.0.lock().map_err(|_| Error::internal("a request failed while opening a database"))?;
        // (The map a search uses, if one does: one map of a file, counted once.)
        let mapped = kept.loaded.iter().find(|(p, d)| p == path && !d.is_loaded() && d.file_bytes() == now.0).map(|(_, d)| d.clone());
        // Else the map a search still uses, let go of (counted already).
        let open_now = kept.opened.iter().any(|(p, s, _)| p == path && *s == now);
        let mapped = mapped.or_else(|| if open_now { None } else { kept.take_back(path, now.0, Some(now)) });
        let open =
            || Ok((path.to_path_buf(), now, mapped.map_or_else(|| Database::open_for(path, purpose.houses, purpose.rules).map(Arc::new), Ok)?));
        let mut left = None;
        let ((_, _, db), was_kept) = keep(&mut kept.opened, |(p, s, _)| p == path && *s == now, open, |(_, s, d)| left = Some((d, s)))?;
        if let Some((d, s)) = left {
            kept.leave(d, Some(s));
        }
        Ok((db, was_kept))
    }

    /// The file of `databases` that covers a position of `purpose` with
    /// exact values, when the folder's choice within `budget` is one,
    /// opened once and kept mapped for the probes of the requests after
    /// (and whether it was open from before). A file in a window encoding
    /// holds bounds for some values: a search answers over it.
    pub(crate) fn cover(&self, databases: &Databases, purpose: Purpose, budget: SetupBudget) -> Result<Option<(Arc<Database>, bool)>> {
        let Some(path) = databases.choose(purpose, budget).path else {
            return Ok(None);
        };
        let covers = path.file_name().and_then(|n| Databases::name_parts(&n.to_string_lossy())).is_some_and(|(_, n, _)| n >= purpose.seeds);
        if !covers {
            return Ok(None);
        }
        Ok(Some(self.opened(&path, purpose)?).filter(|(db, _)| db.header().max_seeds >= purpose.seeds && db.is_exact()))
    }

    /// A kept solver that serves this search ([`fits`]), taken out of the
    /// keeping while it searches.
    pub(crate) fn take_solver(&self, h: usize, rules: Rules, table: &Table, options: &SearchOptions) -> Option<Solver<Table>> {
        let mut kept = self.0.lock().ok()?;
        let at = kept.solvers.iter().position(|s| fits(s, h, rules, table, options))?;
        Some(kept.solvers.remove(at))
    }

    /// Keeps `solver` for later requests, the oldest kept going first
    /// beyond [`KEPT_SOLVERS`].
    pub(crate) fn keep_solver(&self, solver: Solver<Table>) {
        let Ok(mut kept) = self.0.lock() else {
            return;
        };
        if kept.solvers.len() >= KEPT_SOLVERS {
            kept.solvers.remove(0);
        }
        kept.solvers.push(solver);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Five small database files of three houses, in `dir`.
    fn files(dir: &Path) -> Vec<PathBuf> {
        (2..=6)
            .map(|seeds| {
                let path = dir.join(format!("kalah-h3-n{seeds}.kdb"));
                kalah_db::build_file(&path, 3, Rules::default(), seeds, &kalah_db::Quiet).unwrap();
                path
            })
            .collect()
    }

    fn size(path: &PathBuf) -> u64 {
        std::fs::metadata(path).unwrap().len()
    }

    fn purpose() -> Purpose {
        Purpose { houses: 3, rules: Rules::default(), seeds: 2, gap: 0 }
    }

    /// A mapped file let go of (beyond [`KEPT_DATABASES`]) while a search
    /// still holds it counts until that search lets go too, is never
    /// counted as what could be let go, and is taken back (counted once)
    /// when asked for again meanwhile.
    #[test]
    fn a_map_let_go_while_a_search_uses_it_counts_until_the_search_ends() {
        let dir = tempfile::tempdir().unwrap();
        let files = files(dir.path());
        let keeping = Keeping::default();
        // A search holds the first file; four more push it out of the keeping.
        let (searched, _) = keeping.opened(&files[0], purpose()).unwrap();
        for path in &files[1..] {
            keeping.opened(path, purpose()).unwrap();
        }
        let kept: u64 = files[1..].iter().map(size).sum();
        assert_eq!(keeping.bytes(), kept + size(&files[0]), "the file a search holds still counts");
        assert_eq!(keeping.0.lock().unwrap().idle_bytes(), kept, "and cannot be let go");
        // Asked for again: the same map, back among the kept, counted once
        // (the least recently used of the others now leaves, idle).
        let (again, _) = keeping.opened(&files[0], purpose()).unwrap();
        assert!(Arc::ptr_eq(&again, &searched), "the same map");
        assert_eq!(keeping.bytes(), kept + size(&files[0]) - size(&files[1]));
        drop(again);
        // Pushed out again, then the search ends: its map is gone.
        for path in &files[1..] {
            keeping.opened(path, purpose()).unwrap();
        }
        assert_eq!(keeping.bytes(), kept + size(&files[0]));
        drop(searched);
        assert_eq!(keeping.bytes(), kept, "the search ended: its map is gone");
        keeping.release_beyond(0);
        assert_eq!(keeping.bytes(), 0);
    }

    /// A file copied into memory for a search is the search's own (its
    /// share counts it): let go of while the search holds it, it is not
    /// counted among what is kept.
    #[test]
    fn a_copy_let_go_is_its_searchs_own() {
        let dir = tempfile::tempdir().unwrap();
        let files = files(dir.path());
        let keeping = Keeping::default();
        let load = |path: &PathBuf| {
            let db = Database::open_for(path, 3, Rules::default()).unwrap();
            keeping.loaded(db, u64::MAX, 1, None).unwrap().expect("no share to refuse it").0
        };
        let searched = load(&files[0]);
        assert!(searched.is_loaded(), "copied");
        files[1..].iter().for_each(|path| drop(load(path)));
        assert_eq!(keeping.bytes(), files[1..].iter().map(size).sum::<u64>());
        assert!(keeping.0.lock().unwrap().leaving.is_empty());
    }
}
