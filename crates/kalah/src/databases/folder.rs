//! The folder itself: where it is, the names of its files (databases,
//! the search memories, the journal file, the answers kept), the files it
//! holds for a board and rules (read again only when it changed), and a
//! database built in memory kept there.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use kalah_core::Rules;
use kalah_db::{human_bytes, Builder};

use crate::progress::Observer;

/// The file name of a journal in its directory: a search memory's in the
/// folder ([`Databases::memory_dir`]), and every search's own
/// ([`crate::journal`]).
pub const JOURNAL_FILE: &str = "journal.kj";

/// The folder of the exact answers kept in the database folder `dir`
/// ([`crate::answers`]).
pub fn answers_dir(dir: &Path) -> PathBuf {
    dir.join("answers")
}

/// A directory of database files.
#[derive(Clone, Debug)]
pub struct Databases {
    dir: PathBuf,
    /// The directory's complete files by name, read when its time of
    /// change was last seen, shared by clones ([`Databases::files`]).
    listing: Arc<Mutex<Option<Listed>>>,
}

/// Two folders are the same folder.
impl PartialEq for Databases {
    fn eq(&self, other: &Databases) -> bool {
        self.dir == other.dir
    }
}

impl Eq for Databases {}

/// A reading of the folder's names: every complete file with its board,
/// rules and seeds, and the folder's time of change then.
#[derive(Debug)]
struct Listed {
    changed: std::time::SystemTime,
    files: Vec<(usize, Rules, FoundFile)>,
}

/// How old a folder's time of change must be for a reading made after it
/// to be trusted: a file system keeps times in ticks (a clock tick of
/// 1-10 ms on Linux's ext4, xfs, btrfs and tmpfs), so a change within the
/// same tick as an earlier one can leave the time as it was. On a file
/// system of coarser times (FAT's 2 s) a file added within one may be
/// seen late, until the folder changes again: a search instead of a
/// probe, the same values.
const SETTLED: std::time::Duration = std::time::Duration::from_millis(50);

/// A database file found in a directory by its default name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FoundFile {
    /// Every board with up to this many seeds is covered.
    pub max_seeds: u32,
    /// The file's size (`u64::MAX` if it could not be read).
    pub bytes: u64,
    /// The file.
    pub path: PathBuf,
    /// Whether it holds every value exactly (not a window encoding, whose
    /// values outside their windows are bounds: a search over it answers,
    /// not a probe), as its header's encoding byte says.
    pub exact: bool,
}

/// The rules whose [`Rules::tag`] (in file and directory names) is `tag`.
pub(crate) fn rules_of_tag(tag: &str) -> Option<Rules> {
    Rules::all().find(|r| r.tag() == tag)
}

/// Where databases are looked for and built when no directory is given
/// ([`Databases::find_default_dir`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultDir {
    /// The directory.
    pub path: PathBuf,
    /// Why this one, for people: `$KALAH_DB_DIR`, `the repository's
    /// data/db`, `the user's data directory`.
    pub why: &'static str,
}

impl Databases {
    /// The database files in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Databases {
        Databases { dir: dir.into(), listing: Arc::default() }
    }

    /// The directory programs use when none is given ([`DefaultDir`]).
    pub fn default_dir() -> PathBuf {
        Databases::find_default_dir().path
    }

    /// The directory programs use when none is given, and why: the
    /// directory `$KALAH_DB_DIR` names if it is set and not empty; else the
    /// repository's `data/db` when the current directory is inside a
    /// checkout of this project (it or a parent holds `Cargo.toml` and
    /// `data/RULES.md`), made by the first build; else the user's data directory (`kalah/db` under
    /// `$XDG_DATA_HOME`, `~/.local/share` on Linux; the platform's own
    /// elsewhere), so that a database built once is found from anywhere.
    /// The one place the library reads the environment, and only when a
    /// caller asks it to.
    pub fn find_default_dir() -> DefaultDir {
        if let Some(dir) = std::env::var_os("KALAH_DB_DIR").filter(|d| !d.is_empty()) {
            return DefaultDir { path: PathBuf::from(dir), why: "$KALAH_DB_DIR" };
        }
        if let Ok(cwd) = std::env::current_dir() {
            if let Some(root) = cwd.ancestors().find(|a| a.join("data/RULES.md").is_file() && a.join("Cargo.toml").is_file()) {
                let path = root.join("data/db");
                // Relative where it is the current directory's own, as before.
                let path = path.strip_prefix(&cwd).map_or(path.clone(), Path::to_path_buf);
                return DefaultDir { path, why: "the repository's data/db" };
            }
        }
        match directories::ProjectDirs::from("", "", "kalah") {
            Some(p) => DefaultDir { path: p.data_dir().join("db"), why: "the user's data directory" },
            None => DefaultDir { path: PathBuf::from("data/db"), why: "no home directory: data/db here" },
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The default file name, in this directory, of the database of `h`
    /// houses and every board up to `max_seeds` seeds under `rules`.
    pub fn path_for(&self, h: usize, max_seeds: u32, rules: Rules) -> PathBuf {
        self.dir.join(format!("kalah-h{h}-n{max_seeds}-{}.kdb", rules.tag()))
    }

    /// Writes `builder`, a database built in memory by default, into this
    /// folder, where the next searches of its rules find it (what
    /// `Memory::All` and `kalah play` keep beside the search
    /// memory); a note says so, or why it was not written (never an
    /// error: the search goes on without the file). A database of that
    /// name already here is left as it is. Returns the file if it was
    /// written.
    pub fn keep_built(&self, builder: &mut Builder, observer: &dyn Observer) -> Option<PathBuf> {
        let (h, n) = (builder.engine().houses(), builder.indexer().max_seeds());
        let path = self.path_for(h, n, builder.engine().rules());
        if path.exists() {
            return None;
        }
        match kalah_db::save_built(&path, builder) {
            Ok(report) => {
                observer.note(&format!(
                    "kept the {n}-seed database as {} ({}) for the next searches of these rules",
                    path.display(),
                    human_bytes(report.bytes)
                ));
                Some(path)
            }
            Err(e) => {
                observer.note(&format!("the {n}-seed database built in memory is not kept: {e}"));
                None
            }
        }
    }

    /// The directory, in this one, of the search memory of boards of `h`
    /// houses under `rules` ([`crate::journal`], "Search memory").
    pub fn memory_dir(&self, h: usize, rules: Rules) -> PathBuf {
        self.dir.join("memory").join(format!("kalah-h{h}-{}", rules.tag()))
    }

    /// The houses, seeds and rules whose default name `name` is, if it is one.
    pub fn name_parts(name: &str) -> Option<(usize, u32, Rules)> {
        let rest = name.strip_prefix("kalah-h")?.strip_suffix(".kdb")?;
        let (houses, rest) = rest.split_once("-n")?;
        let (seeds, tag) = rest.split_once('-')?;
        let (houses, seeds) = (houses.parse().ok()?, seeds.parse().ok()?);
        rules_of_tag(tag).map(|r| (houses, seeds, r))
    }

    /// The complete files (by name) for `h` houses and `rules`, by seeds
    /// ascending; none if the directory cannot be read. The folder is read
    /// again only when its time of change moved (a file added, removed or
    /// renamed), or is too recent to tell (under 50 ms old): many small
    /// requests look at it once each.
    pub fn files(&self, h: usize, rules: Rules) -> Vec<FoundFile> {
        let changed = std::fs::metadata(&self.dir).and_then(|m| m.modified()).ok();
        let settled = changed.filter(|&t| std::time::SystemTime::now().duration_since(t).is_ok_and(|age| age >= SETTLED));
        let mut listing = self.listing.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(kept) = listing.as_ref().filter(|l| Some(l.changed) == settled) {
            return Databases::of(kept, h, rules);
        }
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            *listing = None;
            return Vec::new();
        };
        let files = entries
            .flatten()
            .filter_map(|entry| {
                let (houses, max_seeds, r) = Databases::name_parts(&entry.file_name().to_string_lossy())?;
                let path = entry.path();
                let exact = encoding_of(&path).is_none_or(kalah_db::Encoding::is_exact);
                Some((houses, r, FoundFile { max_seeds, bytes: entry.metadata().map_or(u64::MAX, |m| m.len()), path, exact }))
            })
            .collect();
        // Kept only when the folder's time has settled (a reading of a
        // folder changed just now may miss a change of the same tick).
        let read = Listed { changed: settled.unwrap_or(std::time::UNIX_EPOCH), files };
        let found = Databases::of(&read, h, rules);
        *listing = settled.map(|_| read);
        found
    }

    /// The files of `listed` for `h` houses and `rules`, by seeds ascending.
    fn of(listed: &Listed, h: usize, rules: Rules) -> Vec<FoundFile> {
        let mut found: Vec<FoundFile> = listed.files.iter().filter(|(houses, r, _)| (*houses, *r) == (h, rules)).map(|(_, _, f)| f.clone()).collect();
        found.sort();
        found
    }
}

/// The encoding a database file's header names (its 24th byte), read
/// without opening the file as a database; `None` where it cannot be read.
fn encoding_of(path: &Path) -> Option<kalah_db::Encoding> {
    use std::io::Read;
    let mut head = [0u8; 24];
    std::fs::File::open(path).ok()?.read_exact(&mut head).ok()?;
    (head[..8] == kalah_db::format::MAGIC).then(|| kalah_db::Encoding::from_code(head[23])).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The folder is read again when a file comes or goes, and its
    /// reading is kept only once its time of change has settled.
    #[test]
    fn the_folder_listing_follows_its_changes() {
        let dir = tempfile::tempdir().unwrap();
        let dbs = Databases::new(dir.path());
        let rules = Rules::default();
        let name = |n: u32| format!("kalah-h4-n{n}-{}.kdb", rules.tag());
        let seeds = |dbs: &Databases| dbs.files(4, rules).iter().map(|f| f.max_seeds).collect::<Vec<_>>();
        let age =
            |secs: u64| std::fs::File::open(dir.path()).unwrap().set_modified(std::time::SystemTime::now() - Duration::from_secs(secs)).unwrap();
        std::fs::write(dir.path().join(name(8)), b"x").unwrap();
        // Changed "just now" whatever the time the test takes: a second ahead.
        std::fs::File::open(dir.path()).unwrap().set_modified(std::time::SystemTime::now() + Duration::from_secs(1)).unwrap();
        assert_eq!(seeds(&dbs), [8]);
        assert!(dbs.listing.lock().unwrap().is_none(), "a reading of a folder changed just now is not kept");
        age(10);
        assert_eq!(seeds(&dbs), [8]);
        assert!(dbs.listing.lock().unwrap().is_some(), "a settled folder's reading is kept");
        // A file renamed in moves the folder's time: it is seen at once,
        // by every clone.
        std::fs::write(dir.path().join("partial"), b"x").unwrap();
        std::fs::rename(dir.path().join("partial"), dir.path().join(name(12))).unwrap();
        assert_eq!(seeds(&dbs.clone()), [8, 12]);
        age(5);
        assert_eq!(seeds(&dbs), [8, 12]);
        std::fs::remove_file(dir.path().join(name(8))).unwrap();
        age(3);
        assert_eq!(seeds(&dbs), [12]);
    }
}
