//! Exact answers kept across runs: `DIR/answers/` in the database folder,
//! an LMDB environment (`data.mdb`, `lock.mdb`, through heed; cargo
//! feature `answers`, on by default: without it an analyzer keeps the
//! most recent answers in memory only). Step 1 of
//! the plan ([the crate docs](crate#how-a-position-is-answered)) reads them for a request that remembers
//! ([`crate::Memory`]), and the analyzer keeps there every exact answer
//! that took work (a search, retrograde analysis, bounds that met).
//!
//! # Format
//!
//! One unnamed database of string keys to string values. The key
//! [`FORMAT_KEY`] holds [`FORMAT`], the format's name and version (2:
//! this one); a store without it that holds anything, or with another,
//! is refused, but for version 1 (the same answers without checksums),
//! whose answers are dropped and the store made version 2, with a note.
//! Any other key names a question: the position in ring form and the
//! rules' tag, a space between (`"3,3,3,3,0,3,3,3,3,0 S
//! standard-instant-owner-ccw-relayoff"`). A value is the answer's
//! checksum, 16 hexadecimal digits of the XXH3-64 of the rest, a space,
//! then the answer: the [`Report`] as JSON (docs/json.md), with every
//! move's value and the line of best play. Only exact answers are kept,
//! so a key's value never changes; a second writer of the same key writes
//! the same answer.
//!
//! # Why LMDB
//!
//! A kept answer is committed (synced) on its own, in a few milliseconds
//! whatever the store holds, several processes (servers, command lines)
//! may read and write at once, and a kill at any moment loses nothing
//! committed (BENCHMARKS.md, "Where a search memory of millions of boards
//! could live": the journal file's whole rewrite takes seconds at 10^7
//! boards, redb lets one process open its file). The map is reserved at
//! [`MAP_BYTES`] of address space; only what is written takes disk.
//!
//! # Never trusted blindly
//!
//! An answer read back must match its checksum, and is checked against
//! its question: it must be of the key's position, exact, every legal move
//! once with a value the seeds allow, the best move's value the
//! position's, a line of legal moves whose first is a best move
//! (`Report::from_kept`); one that is not is refused ([`AnswerStore::get`]
//! says why), never served. A store whose file is shorter than the pages
//! it says it holds (cut short by a copy or a full disk) is refused before
//! any of them is read. What no check here can catch is damage to LMDB's
//! own pages (it keeps no checksums of them): a page of garbage in the
//! middle of the file may stop the process (SIGBUS) when it is read.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

#[cfg(feature = "answers")]
use heed::types::Str;
use kalah_core::Rules;

use crate::error::{Error, Result};
use crate::report::Report;
use kalah_core::Position;

#[cfg(feature = "answers")]
/// The address space an answer store reserves: 4 GiB, about four
/// million answers of Kalah(6,4) with every move and the line.
pub const MAP_BYTES: usize = 4 << 30;

#[cfg(feature = "answers")]
/// The key of the format's name and version: no question's key begins
/// with a NUL.
pub const FORMAT_KEY: &str = "\0format";

#[cfg(feature = "answers")]
/// The format's name and version.
pub const FORMAT: &str = "kalah answers 2";

#[cfg(feature = "answers")]
/// The format before answers carried checksums: its answers are dropped.
const FORMAT_1: &str = "kalah answers 1";

#[cfg(feature = "answers")]
/// The checksum of an answer's text.
fn checksum(text: &str) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
}

pub use crate::databases::answers_dir;

/// The key of the question of `position` under `rules`.
pub fn key(position: &Position, rules: Rules) -> String {
    format!("{} {}", position.ring(), rules.tag())
}

#[cfg(feature = "answers")]
/// The exact answers kept in a folder (see the module docs).
pub struct AnswerStore {
    env: heed::Env,
    db: heed::Database<Str, Str>,
    dir: PathBuf,
}

#[cfg(feature = "answers")]
impl std::fmt::Debug for AnswerStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerStore").field("dir", &self.dir).finish()
    }
}

#[cfg(feature = "answers")]
fn store_error(dir: &Path, what: &str, e: heed::Error) -> Error {
    let kind = match &e {
        heed::Error::Io(_) => crate::error::ErrorKind::Io,
        heed::Error::Mdb(heed::MdbError::Invalid | heed::MdbError::VersionMismatch | heed::MdbError::Corrupted | heed::MdbError::PageNotFound) => {
            crate::error::ErrorKind::Corrupt
        }
        _ => crate::error::ErrorKind::Io,
    };
    Error::of_kind(kind, format!("{}: the answers kept there: {what}: {e}", dir.display()))
}

#[cfg(feature = "answers")]
/// Refuses a store whose file is shorter than the pages its meta page
/// says it holds, before any of them is read (a read beyond the file's
/// end would stop the process).
fn check_length(env: &heed::Env, dir: &Path) -> Result<()> {
    let txn = env.read_txn().map_err(|e| store_error(dir, "cannot read", e))?;
    // The main table's statistics and the last page come from the meta page alone.
    let page_size = match env.open_database::<Str, Str>(&txn, None).map_err(|e| store_error(dir, "cannot open its table", e))? {
        Some(db) => u64::from(db.stat(&txn).map_err(|e| store_error(dir, "cannot read", e))?.page_size),
        None => return Ok(()),
    };
    let pages = env.info().last_page_number as u64 + 1;
    let file = dir.join("data.mdb");
    let bytes = std::fs::metadata(&file).map_err(|e| Error::io(format!("{}: {e}", file.display()), Some(e)))?.len();
    if pages.saturating_mul(page_size) > bytes {
        return Err(Error::corrupt(format!(
            "{}: {bytes} bytes, where its pages take {} (cut short): refused; delete the folder to keep answers anew",
            file.display(),
            pages * page_size
        )));
    }
    Ok(())
}

#[cfg(feature = "answers")]
/// The stores this process has open, by folder: LMDB lets a process open
/// an environment once.
static OPEN: Mutex<Vec<(PathBuf, std::sync::Weak<AnswerStore>)>> = Mutex::new(Vec::new());

#[cfg(feature = "answers")]
impl AnswerStore {
    /// The store in `dir` (created if need be), shared with whatever else
    /// in this process has it open: LMDB lets a process open a folder's
    /// environment once.
    pub fn shared(dir: &Path) -> Result<Arc<AnswerStore>> {
        AnswerStore::shared_noting(dir, &crate::progress::Silent)
    }

    /// [`AnswerStore::shared`], saying to `observer` what opening it did
    /// (the answers of an older format dropped).
    pub fn shared_noting(dir: &Path, observer: &dyn crate::progress::Observer) -> Result<Arc<AnswerStore>> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("{}: cannot make the folder of kept answers: {e}", dir.display()), Some(e)))?;
        let dir = dir.canonicalize().map_err(|e| Error::io(format!("{}: cannot find the folder of kept answers: {e}", dir.display()), Some(e)))?;
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|(_, store)| store.strong_count() > 0);
        if let Some(store) = open.iter().find(|(at, _)| *at == dir).and_then(|(_, store)| store.upgrade()) {
            return Ok(store);
        }
        let store = Arc::new(AnswerStore::open(&dir, observer)?);
        open.push((dir, Arc::downgrade(&store)));
        Ok(store)
    }

    /// Opens the store in `dir`, an existing folder, checking its format;
    /// a store of version 1 has its answers dropped (said to `observer`).
    fn open(dir: &Path, observer: &dyn crate::progress::Observer) -> Result<AnswerStore> {
        // SAFETY: the environment's files are only ever opened through
        // LMDB, by this type, with the same options, once a process
        // (`shared`); LMDB itself guards concurrent use by processes (its
        // lock file).
        #[allow(unsafe_code)]
        let env = unsafe { heed::EnvOpenOptions::new().map_size(MAP_BYTES).max_dbs(1).open(dir) }.map_err(|e| store_error(dir, "cannot open", e))?;
        check_length(&env, dir)?;
        let mut txn = env.write_txn().map_err(|e| store_error(dir, "cannot write", e))?;
        let db: heed::Database<Str, Str> = env.create_database(&mut txn, None).map_err(|e| store_error(dir, "cannot open its table", e))?;
        // A store of this format, or a new one made so; never a foreign one.
        match db.get(&txn, FORMAT_KEY).map_err(|e| store_error(dir, "cannot read", e))? {
            Some(FORMAT) => {}
            Some(FORMAT_1) => {
                db.clear(&mut txn).map_err(|e| store_error(dir, "cannot write", e))?;
                db.put(&mut txn, FORMAT_KEY, FORMAT).map_err(|e| store_error(dir, "cannot write", e))?;
                observer.note(&format!(
                    "{}: the answers kept there were of format 1, without checksums: dropped, to be found and kept again",
                    dir.display()
                ));
            }
            Some(other) => {
                return Err(Error::corrupt(format!("{}: kept answers of another format ({other:?}, not {FORMAT:?}): refused", dir.display())))
            }
            None if db.is_empty(&txn).map_err(|e| store_error(dir, "cannot read", e))? => {
                db.put(&mut txn, FORMAT_KEY, FORMAT).map_err(|e| store_error(dir, "cannot write", e))?;
            }
            None => return Err(Error::corrupt(format!("{}: not a store of kept answers (no format key): refused", dir.display()))),
        }
        txn.commit().map_err(|e| store_error(dir, "cannot commit", e))?;
        Ok(AnswerStore { env, db, dir: dir.to_path_buf() })
    }

    /// The answer kept for `position` under `rules` (checked, module docs:
    /// [`crate::Source::Kept`]): `Ok(None)` if none is kept, an error if
    /// the kept one does not fit the question (a damaged or forged store).
    pub fn get(&self, position: &Position, rules: Rules) -> Result<Option<Report>> {
        let start = Instant::now();
        let txn = self.env.read_txn().map_err(|e| store_error(&self.dir, "cannot read", e))?;
        let Some(text) = self.db.get(&txn, &key(position, rules)).map_err(|e| store_error(&self.dir, "cannot read", e))? else {
            return Ok(None);
        };
        let refused = |why: String| Error::corrupt(format!("{}: the answer kept for {position} {why}: refused", self.dir.display()));
        let (sum, text) = text
            .split_once(' ')
            .filter(|(sum, _)| sum.len() == 16 && sum.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| refused("has no checksum".into()))?;
        if sum != checksum(text) {
            return Err(refused("does not match its checksum (damaged)".into()));
        }
        let json: serde_json::Value = serde_json::from_str(text).map_err(|e| refused(format!("is not JSON ({e})")))?;
        Report::from_kept(&json, position, rules, start).map(Some).map_err(refused)
    }

    /// Keeps `report`, an exact answer with every move's value and the
    /// line, committed before it returns; one that would not be read back
    /// is an internal error.
    pub fn put(&self, report: &Report) -> Result<()> {
        let json = serde_json::to_value(report).map_err(|e| Error::internal(format!("an answer to keep does not serialise: {e}")))?;
        Report::from_kept(&json, &report.position, report.rules, Instant::now())
            .map_err(|why| Error::internal(format!("an answer to keep for {} {why}", report.position)))?;
        let text = json.to_string();
        let text = format!("{} {text}", checksum(&text));
        let mut txn = self.env.write_txn().map_err(|e| store_error(&self.dir, "cannot write", e))?;
        self.db.put(&mut txn, &key(&report.position, report.rules), &text).map_err(|e| store_error(&self.dir, "cannot write", e))?;
        txn.commit().map_err(|e| store_error(&self.dir, "cannot commit", e))
    }

    /// How many answers are kept.
    pub fn len(&self) -> Result<u64> {
        let txn = self.env.read_txn().map_err(|e| store_error(&self.dir, "cannot read", e))?;
        // All but the format's key.
        Ok(self.db.len(&txn).map_err(|e| store_error(&self.dir, "cannot read", e))?.saturating_sub(1))
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }
}

/// The answers an analyzer keeps: the most recent in memory, and those of
/// its folder's store (opened at the first request that remembers).
pub(crate) struct Answers {
    recent: Mutex<lru::LruCache<String, Report>>,
    /// The store once opened; or why it could not be, and when that was
    /// (tried again after [`RETRY_OPENING`]); `None` before the first try.
    store: Mutex<Option<Opening>>,
    dir: PathBuf,
    /// Where a fault of the store is logged besides the request's notes.
    log: Mutex<Option<crate::progress::Log>>,
}

impl std::fmt::Debug for Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answers").field("dir", &self.dir).finish()
    }
}

/// The store opened, or why it could not be and when that was.
type Opening = std::result::Result<Arc<Store>, (String, Instant)>;

/// The folder's store: LMDB's ([`AnswerStore`]) with the cargo feature
/// `answers`, else none (`NoStore`).
#[cfg(feature = "answers")]
type Store = AnswerStore;
#[cfg(not(feature = "answers"))]
type Store = NoStore;

/// No store: a build without the cargo feature `answers` keeps answers in
/// memory only.
#[cfg(not(feature = "answers"))]
#[derive(Debug)]
pub(crate) enum NoStore {}

#[cfg(not(feature = "answers"))]
impl NoStore {
    fn shared_noting(_: &Path, _: &dyn crate::progress::Observer) -> Result<Arc<NoStore>> {
        Err(Error::refused("this build of kalah keeps no answers across runs (its cargo feature `answers` is off)"))
    }

    fn get(&self, _: &Position, _: Rules) -> Result<Option<Report>> {
        match *self {}
    }

    fn put(&self, _: &Report) -> Result<()> {
        match *self {}
    }
}

/// How long an analyzer answers without a store that could not be opened
/// before it tries again (the folder may have been made writable since).
pub const RETRY_OPENING: std::time::Duration = std::time::Duration::from_secs(60);

/// How many answers an analyzer holds in memory, the most recent.
pub const RECENT_ANSWERS: usize = 4096;

impl Answers {
    pub(crate) fn new(databases: &Path) -> Answers {
        let recent = Mutex::new(lru::LruCache::new(std::num::NonZeroUsize::new(RECENT_ANSWERS).expect("not zero")));
        Answers { recent, store: Mutex::new(None), dir: answers_dir(databases), log: Mutex::new(None) }
    }

    /// Logs the store's faults to `log` too.
    pub(crate) fn log_to(&self, log: crate::progress::Log) {
        *self.log.lock().unwrap_or_else(|e| e.into_inner()) = Some(log);
    }

    /// Says `text`, a fault of the store, to `observer` and to the log.
    fn fault(&self, observer: &dyn crate::progress::Observer, text: &str) {
        observer.note(text);
        if let Some(log) = self.log.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            log(text);
        }
    }

    /// The folder's store, opened the first time (and again
    /// [`RETRY_OPENING`] after a failure); a store that cannot be opened is
    /// said to `observer` when the opening is tried, and passed over.
    fn store(&self, observer: &dyn crate::progress::Observer) -> Option<Arc<Store>> {
        let (store, tried_now) = self.opened(observer);
        if let (Err(why), true) = (&store, tried_now) {
            self.fault(observer, &format!("answering without the answers kept across runs: {why}"));
        }
        store.ok()
    }

    /// The store, or why it cannot be had; and whether it was tried now.
    fn opened(&self, observer: &dyn crate::progress::Observer) -> (std::result::Result<Arc<Store>, String>, bool) {
        let mut store = self.store.lock().unwrap_or_else(|e| e.into_inner());
        match &*store {
            Some(Ok(open)) => return (Ok(open.clone()), false),
            Some(Err((why, when))) if when.elapsed() < RETRY_OPENING => return (Err(why.clone()), false),
            _ => {}
        }
        let tried = Store::shared_noting(&self.dir, observer).map_err(|e| (e.to_string(), Instant::now()));
        *store = Some(tried.clone());
        (tried.map_err(|(why, _)| why), true)
    }

    /// Opens the store if it was not: whether it is open; if not, why is
    /// said to `observer`, whoever tried it first.
    pub(crate) fn open(&self, observer: &dyn crate::progress::Observer) -> bool {
        match self.opened(observer).0 {
            Ok(_) => true,
            Err(why) => {
                self.fault(observer, &format!("answering without the answers kept across runs: {why}"));
                false
            }
        }
    }

    /// The exact answer kept for `position` under `rules`, if there is one
    /// (a damaged one is a note, and passed over).
    pub(crate) fn get(&self, position: &Position, rules: Rules, observer: &dyn crate::progress::Observer) -> Option<Report> {
        let key = key(position, rules);
        let start = Instant::now();
        if let Some(kept) = self.recent.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Some(Report { seconds: start.elapsed().as_secs_f64(), ..kept.clone() });
        }
        match self.store(observer)?.get(position, rules) {
            Ok(Some(report)) => {
                self.recent.lock().unwrap_or_else(|e| e.into_inner()).put(key, report.clone());
                Some(report)
            }
            Ok(None) => None,
            Err(e) => {
                self.fault(observer, &e.to_string());
                None
            }
        }
    }

    /// Keeps `report`, exact with every move's value and the line, in
    /// memory and in the store (a failure is a note).
    pub(crate) fn keep(&self, report: &Report, observer: &dyn crate::progress::Observer) {
        if let Some(store) = self.store(observer) {
            if let Err(e) = store.put(report) {
                self.fault(observer, &format!("an answer not kept across runs: {e}"));
            }
        }
        let kept = Report { source: crate::report::Source::Kept, nodes: 0, database: None, journal: None, ..report.clone() };
        self.recent.lock().unwrap_or_else(|e| e.into_inner()).put(key(&report.position, report.rules), kept);
    }
}

#[cfg(test)]
#[cfg(feature = "answers")]
mod tests {
    use super::*;
    use crate::answer::analyzer::Analyzer;
    use crate::answer::request::Request;
    use crate::databases::Databases;
    use crate::progress::Silent;
    use crate::report::Source;

    /// The exact answer of Kalah(3,3) under the default rules, by a search.
    fn solved() -> Report {
        let dir = tempfile::tempdir().unwrap();
        let report = Analyzer::new(Databases::new(dir.path()))
            .analyze(&Request { book: false, ..Request::new(Position::start(3, 3).unwrap(), Rules::default()) }, &Silent)
            .unwrap();
        assert_eq!(report.source, Source::Search);
        report
    }

    /// Puts `text` as it is under the key of Kalah(3,3), unchecked.
    fn put_raw(store: &AnswerStore, text: &str) {
        let mut txn = store.env.write_txn().unwrap();
        store.db.put(&mut txn, &key(&Position::start(3, 3).unwrap(), Rules::default()), text).unwrap();
        txn.commit().unwrap();
    }

    /// Puts `json` under the key of Kalah(3,3) with its checksum made
    /// good, as a forger would.
    fn forge(store: &AnswerStore, json: &str) {
        put_raw(store, &format!("{} {json}", checksum(json)));
    }

    /// Kept answers come back across openings (another process's too:
    /// LMDB), the same values, moves and line, read as kept.
    #[test]
    fn answers_are_kept_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let report = solved();
        let start = report.position;
        {
            let store = AnswerStore::shared(dir.path()).unwrap();
            assert!(store.get(&start, Rules::default()).unwrap().is_none());
            store.put(&report).unwrap();
            assert_eq!(store.len().unwrap(), 1);
            // The same folder in the same process: the same store.
            assert!(Arc::ptr_eq(&store, &AnswerStore::shared(dir.path()).unwrap()));
        }
        let store = AnswerStore::shared(dir.path()).unwrap();
        let kept = store.get(&start, Rules::default()).unwrap().unwrap();
        assert_eq!((kept.source, kept.nodes), (Source::Kept, 0));
        let mut analysis = report.analysis.clone();
        analysis.moves.sort_by_key(|m| m.house);
        assert_eq!(kept.analysis, analysis);
        // Other rules are another question.
        let empty = Rules { capture: kalah_core::Capture::Empty, ..Rules::default() };
        assert!(store.get(&start, empty).unwrap().is_none());
    }

    /// An answer that does not fit its question is refused on reading,
    /// and one that would not be read back is not written.
    #[test]
    fn a_forged_answer_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = AnswerStore::shared(dir.path()).unwrap();
        let good = serde_json::to_value(solved()).unwrap();
        let start = Position::start(3, 3).unwrap();
        let forged = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut json = good.clone();
            edit(&mut json);
            forge(&store, &json.to_string());
            let e = store.get(&start, Rules::default()).unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::Corrupt, "{e}");
            e.to_string()
        };
        assert!(forged(&|j| j["value"] = 99.into()).contains("cannot have"));
        assert!(forged(&|j| j["value"] = (-2).into()).contains("best move"));
        assert!(forged(&|j| j["position"] = "3,3,3,0,3,3,3,0 N".into()).contains("another position"));
        assert!(forged(&|j| j["exact"] = false.into()).contains("not exact"));
        assert!(forged(&|j| j["moves"].as_array_mut().unwrap().truncate(2)).contains("legal ones"));
        assert!(forged(&|j| j["moves"][0]["house"] = 7.into()).contains("legal ones"));
        assert!(forged(&|j| j["pv"][0]["side"] = "N".into()).contains("not to move"));
        assert!(forged(&|j| j["pv"][1]["house"] = 9.into()).contains("not a move"));
        assert!(forged(&|j| j["pv"] = serde_json::json!([])).contains("no line"));
        forge(&store, "{");
        assert!(store.get(&start, Rules::default()).unwrap_err().to_string().contains("not JSON"));
        // A byte changed, its checksum not made good: damaged.
        let mut damaged = good.clone();
        damaged["moves"][1]["value"] = (damaged["moves"][1]["value"].as_i64().unwrap() - 2).into();
        put_raw(&store, &format!("{} {damaged}", checksum(&good.to_string())));
        assert!(store.get(&start, Rules::default()).unwrap_err().to_string().contains("checksum"));
        put_raw(&store, &good.to_string());
        assert!(store.get(&start, Rules::default()).unwrap_err().to_string().contains("no checksum"));
        // Bounds only, or no line, are never written.
        let mut bounds = solved();
        bounds.analysis.value.upper += 2;
        assert!(store.put(&bounds).is_err());
        let mut lineless = solved();
        lineless.analysis.pv.clear();
        assert!(store.put(&lineless).is_err());
    }

    /// A store cut short (a copy or a full disk) is refused before its
    /// pages are read, which would stop the process.
    #[test]
    fn a_store_cut_short_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = AnswerStore::shared(dir.path()).unwrap();
            // Enough answers for pages well past the meta pages.
            let report = solved();
            for house in 0..200 {
                let mut txn = store.env.write_txn().unwrap();
                store.db.put(&mut txn, &format!("padding {house}"), &"x".repeat(1000)).unwrap();
                txn.commit().unwrap();
            }
            store.put(&report).unwrap();
        }
        let file = dir.path().join("data.mdb");
        let bytes = std::fs::metadata(&file).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&file).unwrap().set_len(bytes / 2).unwrap();
        let e = AnswerStore::shared(dir.path()).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Corrupt, "{e}");
        assert!(e.to_string().contains("cut short"), "{e}");
    }

    /// A store of format 1 (answers without checksums) is made format 2,
    /// its answers dropped, and says so.
    #[test]
    fn a_store_of_format_1_is_renewed() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = AnswerStore::shared(dir.path()).unwrap();
            let mut txn = store.env.write_txn().unwrap();
            store.db.put(&mut txn, FORMAT_KEY, FORMAT_1).unwrap();
            store.db.put(&mut txn, "3,3,3,0,3,3,3,0 S standard-instant-owner-ccw-relayoff", "{}").unwrap();
            txn.commit().unwrap();
        }
        #[derive(Default)]
        struct Notes(Mutex<Vec<String>>);
        impl crate::progress::Observer for Notes {
            fn note(&self, text: &str) {
                self.0.lock().unwrap().push(text.to_string());
            }
        }
        let notes = Notes::default();
        let store = AnswerStore::shared_noting(dir.path(), &notes).unwrap();
        assert_eq!(store.len().unwrap(), 0);
        assert!(notes.0.lock().unwrap().iter().any(|n| n.contains("format 1")), "{:?}", notes.0.lock().unwrap());
    }

    /// A store of another format, or an LMDB store of something else, is
    /// refused on opening.
    #[test]
    fn a_foreign_store_is_refused() {
        for (key, value) in [(FORMAT_KEY, "kalah answers 99"), ("someone else's", "data")] {
            let dir = tempfile::tempdir().unwrap();
            {
                let store = AnswerStore::shared(dir.path()).unwrap();
                let mut txn = store.env.write_txn().unwrap();
                store.db.clear(&mut txn).unwrap();
                store.db.put(&mut txn, key, value).unwrap();
                txn.commit().unwrap();
            }
            let e = AnswerStore::shared(dir.path()).unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::Corrupt, "{e}");
        }
    }
}
