//! Exact answers kept across runs: `DIR/answers/` in the database folder,
//! an LMDB environment (`data.mdb`, `lock.mdb`, through heed).
//!
//! # Format
//!
//! One unnamed database of string keys to string values. The key
//! [`FORMAT_KEY`] holds [`FORMAT`], the format's name and version (1:
//! this one); a store without it that holds anything, or with another,
//! is refused. Any other key names a
//! question: the position in ring form, the rules' tag and what else
//! changes the answer, as the door that keeps it writes it (`kalah
//! serve`: `"3,3,3,3,0,3,3,3,3,0 S standard-instant-owner-ccw-relayoff
//! book=None"`). A value is the answer: the [`crate::Report`] as JSON, as
//! the door serialised it. Only exact answers are kept, so a key's value
//! never changes; a second writer of the same key writes the same answer.
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
//! An answer read back is checked against its question: its position must
//! be the key's, its value within what the position's seeds allow, and it
//! must be exact; one that is not is refused ([`AnswerStore::get`] says
//! why), never served.

use std::path::{Path, PathBuf};

use heed::types::Str;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::Position;

/// The address space an answer store reserves: 4 GiB, about four
/// million answers of Kalah(6,4) with every move and the line.
pub const MAP_BYTES: usize = 4 << 30;

/// The key of the format's name and version: no question's key begins
/// with a NUL.
pub const FORMAT_KEY: &str = "\0format";

/// The format's name and version.
pub const FORMAT: &str = "kalah answers 1";

/// The folder of the answers of database folder `dir`.
pub fn answers_dir(dir: &Path) -> PathBuf {
    dir.join("answers")
}

/// The exact answers kept in a folder (see the module docs).
pub struct AnswerStore {
    env: heed::Env,
    db: heed::Database<Str, Str>,
    dir: PathBuf,
}

impl std::fmt::Debug for AnswerStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerStore").field("dir", &self.dir).finish()
    }
}

fn store_error(dir: &Path, what: &str, e: heed::Error) -> Error {
    let kind = match &e {
        heed::Error::Io(_) => crate::ErrorKind::Io,
        heed::Error::Mdb(heed::MdbError::Invalid | heed::MdbError::VersionMismatch | heed::MdbError::Corrupted | heed::MdbError::PageNotFound) => crate::ErrorKind::Corrupt,
        _ => crate::ErrorKind::Io,
    };
    Error::of_kind(kind, format!("{}: the answers kept there: {what}: {e}", dir.display()))
}

impl AnswerStore {
    /// Opens (creating if need be) the store in `dir`. One process opens
    /// a folder's store once (heed keeps one environment a path).
    pub fn open(dir: &Path) -> Result<AnswerStore> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("{}: cannot make the folder of kept answers", dir.display()), Some(e)))?;
        // SAFETY: the environment's files are only ever opened through
        // LMDB, by this type, with the same options; LMDB itself guards
        // concurrent use by processes (its lock file).
        #[allow(unsafe_code)]
        let env = unsafe { heed::EnvOpenOptions::new().map_size(MAP_BYTES).max_dbs(1).open(dir) }.map_err(|e| store_error(dir, "cannot open", e))?;
        let mut txn = env.write_txn().map_err(|e| store_error(dir, "cannot write", e))?;
        let db: heed::Database<Str, Str> = env.create_database(&mut txn, None).map_err(|e| store_error(dir, "cannot open its table", e))?;
        // A store of this format, or a new one made so; never a foreign one.
        match db.get(&txn, FORMAT_KEY).map_err(|e| store_error(dir, "cannot read", e))? {
            Some(FORMAT) => {}
            Some(other) => return Err(Error::corrupt(format!("{}: kept answers of another format ({other:?}, not {FORMAT:?}): refused", dir.display()))),
            None if db.is_empty(&txn).map_err(|e| store_error(dir, "cannot read", e))? => {
                db.put(&mut txn, FORMAT_KEY, FORMAT).map_err(|e| store_error(dir, "cannot write", e))?;
            }
            None => return Err(Error::corrupt(format!("{}: not a store of kept answers (no format key): refused", dir.display()))),
        }
        txn.commit().map_err(|e| store_error(dir, "cannot commit", e))?;
        Ok(AnswerStore { env, db, dir: dir.to_path_buf() })
    }

    /// The answer kept for question `key`, checked against `position`
    /// (the question's): `Ok(None)` if none is kept, an error if the kept
    /// one does not fit the question (a damaged or forged store).
    pub fn get(&self, key: &str, position: &Position) -> Result<Option<Value>> {
        let txn = self.env.read_txn().map_err(|e| store_error(&self.dir, "cannot read", e))?;
        let Some(text) = self.db.get(&txn, key).map_err(|e| store_error(&self.dir, "cannot read", e))? else {
            return Ok(None);
        };
        let answer: Value = serde_json::from_str(text).map_err(|e| Error::corrupt(format!("{}: a kept answer is not JSON ({e}): refused", self.dir.display())))?;
        check(&answer, position).map_err(|why| Error::corrupt(format!("{}: the answer kept for {position} {why}: refused", self.dir.display())))?;
        Ok(Some(answer))
    }

    /// Keeps `answer`, an exact answer to question `key` about
    /// `position`, committed before it returns.
    pub fn put(&self, key: &str, position: &Position, answer: &Value) -> Result<()> {
        check(answer, position).map_err(|why| Error::internal(format!("an answer to keep for {position} {why}")))?;
        let text = answer.to_string();
        let mut txn = self.env.write_txn().map_err(|e| store_error(&self.dir, "cannot write", e))?;
        self.db.put(&mut txn, key, &text).map_err(|e| store_error(&self.dir, "cannot write", e))?;
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

/// Whether `answer` answers `position` exactly with a value its seeds
/// allow; if not, why.
fn check(answer: &Value, position: &Position) -> std::result::Result<(), String> {
    if answer["position"].as_str() != Some(position.to_string().as_str()) {
        return Err(format!("is of another position ({})", answer["position"]));
    }
    if answer["exact"] != Value::Bool(true) {
        return Err("is not exact".into());
    }
    let seeds = i64::from(position.seeds_in_houses()) + i64::from(position.store_difference().unsigned_abs());
    let in_range = |v: &Value| v.as_i64().is_some_and(|v| v.abs() <= seeds);
    if !in_range(&answer["value"]) {
        return Err(format!("has a value the position cannot have ({})", answer["value"]));
    }
    let moves = answer["moves"].as_array().ok_or("has no moves")?;
    if moves.iter().any(|m| !in_range(&m["value"])) {
        return Err("has a move's value the position cannot have".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(position: &str, value: i64) -> Value {
        serde_json::json!({"position": position, "exact": true, "value": value, "moves": [{"house": 1, "value": value}]})
    }

    /// Kept answers come back across openings (another process's too:
    /// LMDB), and one that does not fit its question is refused.
    #[test]
    fn answers_are_kept_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let start = Position::start(3, 3).unwrap();
        let key = format!("{start} test");
        {
            let store = AnswerStore::open(dir.path()).unwrap();
            assert_eq!(store.get(&key, &start).unwrap(), None);
            store.put(&key, &start, &answer(&start.to_string(), 2)).unwrap();
            assert_eq!(store.len().unwrap(), 1);
        }
        let store = AnswerStore::open(dir.path()).unwrap();
        assert_eq!(store.get(&key, &start).unwrap().unwrap()["value"], 2);
        // A value beyond the seeds, another position, a bounds-only answer: refused.
        let other = Position::start(3, 2).unwrap();
        assert!(store.put(&key, &start, &answer(&start.to_string(), 40)).is_err());
        assert!(store.put(&key, &start, &answer(&other.to_string(), 0)).is_err());
        let forged = format!("{start} forged");
        let mut txn = store.env.write_txn().unwrap();
        store.db.put(&mut txn, &forged, &answer(&start.to_string(), 99).to_string()).unwrap();
        store.db.put(&mut txn, "not json", "{").unwrap();
        txn.commit().unwrap();
        let e = store.get(&forged, &start).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Corrupt, "{e}");
        assert!(e.to_string().contains("cannot have"), "{e}");
        assert_eq!(store.get("not json", &start).unwrap_err().kind(), crate::ErrorKind::Corrupt);
    }

    /// A store of another format, or an LMDB store of something else, is
    /// refused on opening.
    #[test]
    fn a_foreign_store_is_refused() {
        for (key, value) in [(FORMAT_KEY, "kalah answers 99"), ("someone else's", "data")] {
            let dir = tempfile::tempdir().unwrap();
            {
                let store = AnswerStore::open(dir.path()).unwrap();
                let mut txn = store.env.write_txn().unwrap();
                store.db.clear(&mut txn).unwrap();
                store.db.put(&mut txn, key, value).unwrap();
                txn.commit().unwrap();
            }
            let e = AnswerStore::open(dir.path()).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::Corrupt, "{e}");
        }
    }
}
