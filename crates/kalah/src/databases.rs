//! The database library: a directory of database files, choosing one for
//! a position and a budget, opening, checking and loading it.
//!
//! Files in the directory are found by their default names,
//! `kalah-h{H}-n{N}-{TAG}.kdb` ([`Databases::path_for`]: `H` houses, every
//! board with up to `N` seeds, `TAG` the rules' [`Rules::tag`]); any other
//! file can still be opened by its path ([`DbSpec::file`]).
//!
//! # Which file a position gets
//!
//! Among the files for its board and rules ([`Databases::choose`]): the
//! largest if it covers the position (it is probed, not loaded), else the
//! smallest within a gap of seeds below it ([`VALUE_LOAD_GAP`] for a value
//! or a best move, [`ANALYSIS_LOAD_GAP`] for every move's value), which
//! loads faster than a larger one would pay back; the largest if none lies
//! within. Under a time limit a file that would have to be loaded and
//! takes more than a quarter of the limit to load ([`SetupBudget`]) is
//! passed over.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kalah_core::Rules;
use kalah_db::{human_bytes, Builder, Database};

use crate::error::{Error, ErrorKind, Result};
use crate::progress::Observer;

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

/// The files of a database directory ([`Databases::list`]), each kind by
/// path (databases by board size, rules and seeds). Serialises to the
/// object `kalah db list --json` prints.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Listing {
    /// The directory.
    #[serde(serialize_with = "display_path")]
    pub dir: PathBuf,
    /// Complete databases the reader accepts.
    pub databases: Vec<ListedDatabase>,
    /// Builds under way or interrupted (`kalah db build` resumes them).
    pub partial: Vec<PartialFile>,
    /// Archives (`kalah db pack`; `kalah db unpack` restores them).
    pub archives: Vec<ListedArchive>,
    /// Files the reader refuses, and why.
    pub refused: Vec<RefusedFile>,
    /// Search memories ([`Databases::memory_dir`]).
    pub memories: Vec<ListedMemory>,
    /// Why this directory, when it is the default one ([`DefaultDir::why`]);
    /// `None` when the caller named it.
    pub why: Option<&'static str>,
    /// Whether the directory is there. A default one not made yet (the
    /// first build makes it) lists as empty; a named one not there is an
    /// error of [`Databases::listing`].
    pub exists: bool,
}

impl Listing {
    /// Whether the directory holds none of these files.
    pub fn is_empty(&self) -> bool {
        self.databases.is_empty() && self.partial.is_empty() && self.archives.is_empty() && self.refused.is_empty() && self.memories.is_empty()
    }
}

/// A complete database in a directory.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ListedDatabase {
    /// The file.
    #[serde(serialize_with = "display_path")]
    pub path: PathBuf,
    /// Houses a side.
    pub houses: usize,
    /// Every board with up to this many seeds is covered.
    pub max_seeds: u32,
    /// The rules its values are for.
    #[serde(serialize_with = "crate::text::serialize_rules")]
    pub rules: Rules,
    /// Boards it holds.
    pub boards: u64,
    /// How it stores its values: `byte`, or packed (`share`, `offset`).
    #[serde(serialize_with = "serialize_encoding")]
    pub encoding: kalah_db::Encoding,
    /// Its size.
    pub bytes: u64,
    /// Named as `kalah db build` names it without `-o`, so that the
    /// commands find it without `--db`.
    pub default: bool,
}

fn serialize_encoding<S: serde::Serializer>(e: &kalah_db::Encoding, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(e.name())
}

/// A database build under way or interrupted.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PartialFile {
    /// The file.
    #[serde(serialize_with = "display_path")]
    pub path: PathBuf,
    /// Levels (seed counts) written.
    pub levels_done: u32,
    /// Levels the finished database has.
    pub levels: u32,
    /// Its size so far.
    pub bytes: u64,
}

/// An archive of a database.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ListedArchive {
    /// The file.
    #[serde(serialize_with = "display_path")]
    pub path: PathBuf,
    /// Houses a side of its database.
    pub houses: usize,
    /// Its database covers every board with up to this many seeds.
    pub max_seeds: u32,
    /// The rules of its values.
    #[serde(serialize_with = "crate::text::serialize_rules")]
    pub rules: Rules,
    /// The archive's size.
    pub bytes: u64,
}

/// A search memory in a directory ([`crate::journal`], "Search memory").
#[derive(Clone, Debug, serde::Serialize)]
pub struct ListedMemory {
    /// The file.
    #[serde(serialize_with = "display_path")]
    pub path: PathBuf,
    /// Houses a side of the boards it holds.
    pub houses: usize,
    /// The rules of their values.
    #[serde(serialize_with = "crate::text::serialize_rules")]
    pub rules: Rules,
    /// Its size.
    pub bytes: u64,
}

/// A file the reader refuses.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RefusedFile {
    /// The file.
    #[serde(serialize_with = "display_path")]
    pub path: PathBuf,
    /// Why.
    pub error: String,
}

/// The rules whose [`Rules::tag`] (in file and directory names) is `tag`.
fn rules_of_tag(tag: &str) -> Option<Rules> {
    Rules::all().find(|r| r.tag() == tag)
}

/// A path as people read it, for serde's `serialize_with`.
pub(crate) fn display_path<S: serde::Serializer>(path: &Path, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(&path.display())
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

/// The default file for a position ([`Databases::choose`]), and the one
/// the budget passed over for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Choice {
    /// The file chosen, if any.
    pub path: Option<PathBuf>,
    /// The file chosen without the budget, and its bytes, when the budget
    /// passed it over.
    pub passed_over: Option<(PathBuf, u64)>,
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

    /// The listing of `dir`, or of the default directory when it is
    /// `None` ([`Databases::find_default_dir`], said in [`Listing::why`]):
    /// what `kalah db list` shows. A default directory not made yet lists
    /// as empty; a named one that is not there is an error.
    pub fn listing(dir: Option<&Path>) -> Result<Listing> {
        let Some(dir) = dir else {
            let default = Databases::find_default_dir();
            if !default.path.exists() {
                return Ok(Listing { dir: default.path, why: Some(default.why), ..Listing::default() });
            }
            return Ok(Listing { why: Some(default.why), ..Databases::new(default.path).list()? });
        };
        Databases::new(dir).list()
    }

    /// Every file of the directory that is a database, a build under way
    /// or an archive, with what the reader thinks of each: what `kalah db
    /// list` shows. Files of other kinds are passed over.
    pub fn list(&self) -> Result<Listing> {
        let entries = std::fs::read_dir(&self.dir).map_err(|e| Error::from(kalah_db::DbError::io(&self.dir, e)))?;
        let mut listing = Listing { dir: self.dir.clone(), exists: true, ..Listing::default() };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let bytes = entry.metadata().map_or(0, |m| m.len());
            if path.is_dir() {
                continue;
            }
            if name.ends_with(".kdb.zst") {
                match kalah_db::pack::archive_header(&path) {
                    Ok((h, _, _)) => listing.archives.push(ListedArchive { path, houses: h.houses, max_seeds: h.max_seeds, rules: h.rules, bytes }),
                    Err(e) => listing.refused.push(RefusedFile { path, error: e.to_string() }),
                }
                continue;
            }
            if !(name.ends_with(".kdb") || name.ends_with(".kdb.partial")) {
                continue;
            }
            match Database::open(&path) {
                // Complete but not yet renamed into place: the build's last step is left.
                Ok(db) if name.ends_with(".partial") => {
                    let levels = db.header().max_seeds + 1;
                    listing.partial.push(PartialFile { path, levels_done: levels, levels, bytes: db.file_bytes() });
                }
                Ok(db) => {
                    let h = db.header();
                    let named = Databases::name_parts(&name);
                    let default = named == Some((h.houses, h.max_seeds, h.rules));
                    if let Some((houses, seeds, rules)) = named.filter(|_| !default) {
                        // The commands that find it by its name would refuse it.
                        let error = format!(
                            "named as the default database of {houses} houses, {seeds} seeds and {rules}, but holds {} houses, {} seeds and {}: the commands that find it by name refuse it; rename it",
                            h.houses, h.max_seeds, h.rules
                        );
                        listing.refused.push(RefusedFile { path, error });
                        continue;
                    }
                    listing.databases.push(ListedDatabase {
                        path,
                        houses: h.houses,
                        max_seeds: h.max_seeds,
                        rules: h.rules,
                        boards: db.indexer().len(),
                        encoding: h.encoding,
                        bytes: db.file_bytes(),
                        default,
                    });
                }
                Err(kalah_db::DbError::Incomplete { levels, total, .. }) => listing.partial.push(PartialFile { path, levels_done: levels, levels: total, bytes }),
                Err(e) => listing.refused.push(RefusedFile { path, error: e.to_string() }),
            }
        }
        listing.memories = self.memories();
        listing.databases.sort_by(|a, b| (a.houses, a.rules.tag(), a.max_seeds, &a.path).cmp(&(b.houses, b.rules.tag(), b.max_seeds, &b.path)));
        listing.partial.sort_by(|a, b| a.path.cmp(&b.path));
        listing.archives.sort_by(|a, b| a.path.cmp(&b.path));
        listing.refused.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(listing)
    }

    /// The search memories of the directory, by name: those of
    /// [`Databases::memory_dir`] that hold a file.
    fn memories(&self) -> Vec<ListedMemory> {
        let Ok(entries) = std::fs::read_dir(self.dir.join("memory")) else {
            return Vec::new();
        };
        let mut found: Vec<ListedMemory> = entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                let (houses, tag) = name.strip_prefix("kalah-h")?.split_once('-')?;
                let houses = houses.parse().ok()?;
                let rules = rules_of_tag(tag)?;
                let path = entry.path().join(crate::journal::FILE_NAME);
                let bytes = std::fs::metadata(&path).ok()?.len();
                Some(ListedMemory { path, houses, rules, bytes })
            })
            .collect();
        found.sort_by(|a, b| a.path.cmp(&b.path));
        found
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

    /// The largest file for `h` houses and `rules` of at most `max_bytes`,
    /// or if none is that small, the smallest.
    pub fn largest(&self, h: usize, rules: Rules, max_bytes: u64) -> Option<PathBuf> {
        let found = self.files(h, rules);
        let small = found.iter().rev().find(|f| f.bytes <= max_bytes);
        small.or(found.first()).map(|f| f.path.clone())
    }

    /// The file for positions of `purpose` (see the module docs), passing
    /// over files that would have to be loaded and that `budget` does not
    /// let load. Clockwise, a file is taken whatever its size: retrograde
    /// analysis needs none, and a proof of bounds holds the database it
    /// builds to the budget itself.
    pub fn choose(&self, purpose: Purpose, budget: SetupBudget) -> Choice {
        let Purpose { houses: h, rules, seeds, gap } = purpose;
        let found = self.files(h, rules);
        let max_load = if rules.may_cycle() { u64::MAX } else { budget.load_bytes };
        let chosen = choose_for_seeds(&found, seeds, gap, max_load);
        let unlimited = choose_for_seeds(&found, seeds, gap, u64::MAX);
        Choice {
            path: chosen.map(|f| f.path.clone()),
            passed_over: unlimited.filter(|u| chosen.is_none_or(|c| c.path != u.path)).map(|f| (f.path.clone(), f.bytes)),
        }
    }

    /// Opens the database `spec` asks for, for positions of `purpose`,
    /// checked against their board and rules: the file named, or
    /// the one [`Databases::choose`] picks (the observer hears of a file the
    /// budget passed over), or none.
    pub fn open_for(&self, spec: &DbSpec, purpose: Purpose, budget: SetupBudget, observer: &dyn Observer) -> Result<Option<Database>> {
        self.open_spec(spec, purpose.houses, purpose.rules, || {
            let choice = self.choose(purpose, budget);
            if let Some((passed, bytes)) = &choice.passed_over {
                observer.note(&format!(
                    "{} ({}) is not loaded: it would take more than a quarter of the time limit ({}; named as the database to use, it is used all the same)",
                    passed.display(),
                    human_bytes(*bytes),
                    match &choice.path {
                        Some(p) => format!("using {} instead", p.display()),
                        None => "no smaller default database".to_string(),
                    }
                ));
            }
            choice.path
        })
    }

    /// Opens the database `spec` asks for, checked against the board and
    /// rules: the file named, or the largest default one of at most
    /// `max_bytes` ([`Databases::largest`]), or none.
    pub fn open_up_to(&self, spec: &DbSpec, h: usize, rules: Rules, max_bytes: u64) -> Result<Option<Database>> {
        self.open_spec(spec, h, rules, || self.largest(h, rules, max_bytes))
    }

    fn open_spec(&self, spec: &DbSpec, h: usize, rules: Rules, default: impl FnOnce() -> Option<PathBuf>) -> Result<Option<Database>> {
        let path = match &spec.file {
            DbFile::None => return Ok(None),
            DbFile::Named(p) => return Ok(Some(Database::open_for(p, h, rules).map_err(|e| Error::from(e).about(crate::error::Field::DbFile))?)),
            DbFile::Default => match default() {
                Some(p) => p,
                None => return Ok(None),
            },
        };
        // The folder's own file, named for this board and rules: one that
        // cannot serve them is damaged or misnamed, not the request's fault.
        let open = Database::open_for(&path, h, rules);
        Ok(Some(open.map_err(|e| {
            let e = Error::from(e);
            match e.kind() {
                ErrorKind::BadInput => Error::corrupt(format!("the database folder's file for these rules cannot serve them: {e}; move it aside or rebuild it")).caused_by(e),
                _ => e,
            }
        })?))
    }
}

/// Checks every board of `db` against the retrograde equations: each
/// holds its best move's value (a move's from the value the file holds for
/// the board it leads to), a finished board its leftovers' difference.
/// Slower than the checksums ([`Database::verify`]), which a value forged
/// within range with its checksums repaired passes; this does not.
/// `progress` hears of boards checked.
pub fn verify_equations(db: &Database, progress: &(dyn Fn(u64) + Sync)) -> Result<()> {
    let header = db.header();
    let engine = kalah_core::Engine::new(header.houses, header.rules);
    let indexer = db.indexer();
    let broken = check_equations(&engine, db, indexer.len(), &|i| indexer.unrank(i), progress);
    if let Some(why) = kalah_db::Tablebase::failure(db) {
        return Err(kalah_db::DbError::corrupt(db.path(), why).into());
    }
    match broken {
        None => Ok(()),
        Some(b) => {
            let board = kalah_core::Position::from_mover_board(header.houses, b.board, kalah_core::Side::South, [0, 0]).map_or_else(|_| format!("{:?}", b.board), |p| p.ring());
            Err(kalah_db::DbError::corrupt(
                db.path(),
                format!("inconsistent database: the board {} (South to move, stores left out) holds {}, but its moves give it {}", board, range(b.stored), range(b.from_moves)),
            )
            .into())
        }
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

/// A stored value or bounds, for an error: "+4", or "-10..+2".
fn range(s: kalah_db::Stored) -> String {
    match s.value() {
        Some(v) => format!("{v:+}"),
        None => format!("{:+}..{:+}", s.lower, s.upper),
    }
}

/// A board whose stored value its moves do not give it ([`check_equations`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Broken {
    board: kalah_core::Board,
    stored: kalah_db::Stored,
    from_moves: kalah_db::Stored,
}

/// The retrograde equations over the `count` boards of `table`'s index
/// (`board_at` unranks them): each holds its best move's value (a move's
/// from the table's value of the board it leads to), a finished board its
/// leftovers' difference. Where the table holds bounds (a window
/// encoding) the equations hold of some values within them: a board's
/// bounds meet those its moves' bounds give it. The first board, in index
/// order, that breaks them.
fn check_equations<T: kalah_db::Tablebase + Sync>(
    engine: &kalah_core::Engine,
    table: &T,
    count: u64,
    board_at: &(dyn Fn(u64) -> kalah_core::Board + Sync),
    progress: &(dyn Fn(u64) + Sync),
) -> Option<Broken> {
    use kalah_db::Stored;
    use rayon::prelude::*;
    const CHUNK: u64 = 1 << 16;
    let move_value = |board, house| {
        let o = engine.play(board, house);
        match o.next {
            kalah_core::Next::Over => Stored::exact(o.gain()),
            next => {
                let child = table.stored(o.board);
                let (a, b) = (o.value_with(child.lower), o.value_with(child.upper));
                debug_assert!(next == kalah_core::Next::Mover || a >= b);
                Stored { lower: a.min(b), upper: a.max(b) }
            }
        }
    };
    (0..count.div_ceil(CHUNK)).into_par_iter().find_map_first(|c| {
        let found = (c * CHUNK..count.min((c + 1) * CHUNK)).find_map(|i| {
            let board = board_at(i);
            let stored = table.stored(board);
            let from_moves = match engine.terminal_value(board) {
                Some(v) => Stored::exact(v),
                None => engine
                    .moves(board)
                    .map(|house| move_value(board, house))
                    .reduce(|a, b| Stored { lower: a.lower.max(b.lower), upper: a.upper.max(b.upper) })
                    .unwrap_or(stored),
            };
            let meet = stored.lower <= from_moves.upper && from_moves.lower <= stored.upper;
            (!meet).then_some(Broken { board, stored, from_moves })
        });
        progress(CHUNK.min(count - c * CHUNK));
        found
    })
}

/// Among `found` (ascending seeds), the file for a position of `seeds`
/// seeds: the largest if it covers the position or if none has at least
/// `seeds - gap` seeds, else the smallest that has; files of more than
/// `max_load` bytes only if they cover it.
fn choose_for_seeds(found: &[FoundFile], seeds: u32, gap: u32, max_load: u64) -> Option<&FoundFile> {
    let loadable = |f: &&FoundFile| f.max_seeds >= seeds || f.bytes <= max_load;
    let largest = found.iter().rev().find(loadable)?;
    if largest.max_seeds >= seeds {
        return Some(largest);
    }
    Some(found.iter().filter(loadable).find(|f| f.max_seeds + gap >= seeds).unwrap_or(largest))
}

/// What a default database is chosen for: positions of `houses` houses
/// under `rules` with up to `seeds` seeds in their houses, which a file
/// at most `gap` seeds below serves better than a larger one
/// ([`VALUE_LOAD_GAP`], [`ANALYSIS_LOAD_GAP`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Purpose {
    /// Houses a side.
    pub houses: usize,
    /// The rules.
    pub rules: Rules,
    /// Seeds in the houses of the largest position.
    pub seeds: u32,
    /// How far below the position a smaller file is preferred.
    pub gap: u32,
}

/// Which database a request uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DbSpec {
    /// Which file.
    pub file: DbFile,
    /// Build a database of up to this many seeds in memory first, unless a
    /// file covers them (0: never). `None`: one sized by the position when
    /// no file is used. Not with [`DbFile::None`].
    pub build_seeds: Option<u32>,
}

/// Which database file a request uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DbFile {
    /// The folder's choice for the position ([`Databases::choose`]), if it
    /// has one.
    #[default]
    Default,
    /// This file, whatever its size.
    Named(PathBuf),
    /// No database at all: no file, and none built in memory.
    None,
}

impl DbSpec {
    /// No database at all.
    pub fn none() -> DbSpec {
        DbSpec { file: DbFile::None, build_seeds: None }
    }

    /// The file at `path`, whatever the folder holds.
    pub fn file(path: impl Into<PathBuf>) -> DbSpec {
        DbSpec { file: DbFile::Named(path.into()), build_seeds: None }
    }

    /// Whether no database at all is asked.
    pub fn is_none(&self) -> bool {
        self.file == DbFile::None
    }
}

/// Seeds a search for a value (or a best move) may lie above the database
/// backing it for a smaller default database to serve it better than a
/// larger one: the larger costs more to load whole than it saves (the
/// measurements: BENCHMARKS.md, "Which default database").
pub const VALUE_LOAD_GAP: u32 = 24;

/// [`VALUE_LOAD_GAP`] for the searches of every move's value and a
/// principal variation, or of many openings, which search several times
/// as many nodes, so that a larger database pays sooner (the
/// measurements: BENCHMARKS.md, "Which default database").
pub const ANALYSIS_LOAD_GAP: u32 = 18;

/// Under a time limit, the share of the limit that loading or building
/// the default database may take (reckoned from its size, before it is
/// chosen): a search asked to take 5 s does not wait a minute for its
/// database first. A database named by [`DbSpec::file`] or sized by
/// [`DbSpec::build_seeds`] is used as asked, and a file that covers the
/// position is probed, not loaded, whatever its size.
const SETUP_SHARE: f64 = 0.25;

/// Bytes a second a database file loads at, reckoned low: on the Intel
/// machine the 24-seed file (1.25 GB) loaded in 1.57 s from disk and
/// 0.76 s from the page cache, and the 30-seed one (11 GB) took 15-42 s
/// where memory was short for it and its page cache together.
const LOAD_BYTES_PER_SECOND: f64 = 0.5e9;

/// Boards a second and thread a database builds at in memory, reckoned
/// low: the 20-seed one (226 M boards) took 9.9 s to file on two threads
/// of the Intel machine, about 11 M boards a second and thread.
const BUILD_BOARDS_PER_SECOND: f64 = 10e6;

/// Boards a second and thread clockwise retrograde analysis builds at,
/// reckoned low: the 20-seed database of six houses (226 M boards) took
/// 68 s on two threads of the Intel machine, 1.7 M boards a second and
/// thread (with relay it is slower: 26 s against 48 s on the first
/// machine).
const RETROGRADE_BOARDS_PER_SECOND: f64 = 0.8e6;

/// MiB of default transposition table a search may have for every second
/// of its time limit. Memory first touched is cleared by the kernel on the
/// search's time, 1-9 ms a MiB on the virtual machine measured
/// (BENCHMARKS.md, "A table the time limit can fill"). This much is what a quarter of the limit clears at 4 ms a MiB.
pub const TABLE_MB_PER_SECOND: f64 = 64.0;

/// What setting up the default database may cost before a search: the
/// bytes of a file to load and the boards of a database to build, and the
/// default transposition table's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetupBudget {
    /// The largest default file loaded whole into memory.
    pub load_bytes: u64,
    /// The most boards a default database built in memory may have.
    pub build_boards: u64,
    /// The same, built by clockwise retrograde analysis (for the proofs of
    /// bounds of positions too large for it).
    pub retrograde_boards: u64,
    /// The most boards retrograde analysis may solve as the answer itself,
    /// in the whole time limit: a clockwise position beyond it gets bounds
    /// proven within the limit instead (the plan's step 3;
    /// Kalah(5,3) clockwise under a 0.5 s limit took 93.6 s of retrograde
    /// analysis before).
    pub answer_boards: u64,
    /// The largest default transposition table, in MiB (a table asked for
    /// is made as asked; the keys may still need a larger one,
    /// `SearchOptions::keys`).
    pub table_mb: usize,
}

impl SetupBudget {
    /// No limit: the defaults as chosen without a time limit.
    pub const UNLIMITED: SetupBudget = SetupBudget { load_bytes: u64::MAX, build_boards: u64::MAX, retrograde_boards: u64::MAX, answer_boards: u64::MAX, table_mb: usize::MAX };

    /// A quarter of `limit`, for a search on `threads` threads, and a table
    /// of [`TABLE_MB_PER_SECOND`] for each second of it; retrograde analysis
    /// as the answer, the whole of it; no limit without one.
    pub fn within(limit: Option<Duration>, threads: usize) -> SetupBudget {
        let Some(limit) = limit else {
            return SetupBudget::UNLIMITED;
        };
        let seconds = limit.as_secs_f64() * SETUP_SHARE;
        SetupBudget {
            load_bytes: (seconds * LOAD_BYTES_PER_SECOND) as u64,
            build_boards: (seconds * BUILD_BOARDS_PER_SECOND * threads as f64) as u64,
            retrograde_boards: (seconds * RETROGRADE_BOARDS_PER_SECOND * threads as f64) as u64,
            answer_boards: (limit.as_secs_f64() * RETROGRADE_BOARDS_PER_SECOND * threads as f64) as u64,
            table_mb: table_mb_within(limit),
        }
    }
}

/// The largest default transposition table, in MiB, of a search that may
/// take `limit`: [`TABLE_MB_PER_SECOND`] for each second, at least 1.
pub fn table_mb_within(limit: Duration) -> usize {
    ((limit.as_secs_f64() * TABLE_MB_PER_SECOND) as usize).max(1)
}

/// The largest database an interactive game copies into memory before its
/// first answer (loading reads 3-4 GiB/s from the page cache, but a file
/// not cached is read from disk), and the largest default database it
/// picks: a larger one named by [`DbSpec::file`] is used mapped, so the
/// game starts at once, but its probes read the disk.
pub const INTERACTIVE_LOAD_LIMIT: u64 = 2 << 30;

/// A database about to back a search: copied into huge-page memory when it
/// fits comfortably, else used mapped. The copy spares the search the
/// mapping's page faults and, where the processor's TLB sees huge pages,
/// its TLB misses; on the virtual machines measured the two came out
/// about level (BENCHMARKS.md, "Loading a database"). The copy reads on
/// `threads` threads.
pub fn for_search(db: Database, threads: usize) -> Result<Database> {
    for_search_up_to(db, u64::MAX, threads)
}

/// [`for_search`] for a database of at most `limit` bytes; a larger one is used mapped.
pub fn for_search_up_to(db: Database, limit: u64, threads: usize) -> Result<Database> {
    load_if_it_fits(db, limit, 1, threads)
}

/// [`for_search`] for `copies` processes of this machine, each backing a
/// search of its own with the database (the ranks of a distributed
/// search): copied if all the copies fit as one would, else used mapped,
/// so that the processes share one copy in the page cache.
pub fn for_search_by(db: Database, copies: usize, threads: usize) -> Result<Database> {
    load_if_it_fits(db, u64::MAX, copies.max(1) as u64, threads)
}

/// Whether a search copies a database file of `bytes` (in `copies`
/// processes of this machine) into memory, `available` bytes being free:
/// when the copies take less than half of it. The one rule of
/// [`for_search`], and of the memory a search is told it will take
/// ([`crate::setup::check_search_memory`]).
pub(crate) fn copied_into_memory(bytes: u64, copies: u64, available: u64) -> bool {
    bytes.saturating_mul(copies) < available / 2
}

/// [`for_search`] with `copies` copies of the file, each at most `limit` bytes.
fn load_if_it_fits(db: Database, limit: u64, copies: u64, threads: usize) -> Result<Database> {
    let free = kalah_db::writer::available_memory().unwrap_or(0);
    if copied_into_memory(db.file_bytes(), copies, free) && db.file_bytes() <= limit {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::refused(format!("cannot start {threads} threads to load the database: {e}")))?;
        Ok(pool.install(|| db.load_into_memory())?)
    } else {
        Ok(db)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The folder is read again when a file comes or goes, and its
    /// reading is kept only once its time of change has settled.
    #[test]
    fn the_folder_listing_follows_its_changes() {
        let dir = tempfile::tempdir().unwrap();
        let dbs = Databases::new(dir.path());
        let rules = Rules::default();
        let name = |n: u32| format!("kalah-h4-n{n}-{}.kdb", rules.tag());
        let seeds = |dbs: &Databases| dbs.files(4, rules).iter().map(|f| f.max_seeds).collect::<Vec<_>>();
        let age = |secs: u64| std::fs::File::open(dir.path()).unwrap().set_modified(std::time::SystemTime::now() - Duration::from_secs(secs)).unwrap();
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

    /// The default database is the largest by seeds, or with a size limit
    /// the largest within it (else the smallest); other boards, other
    /// rules and unfinished files are never picked.
    #[test]
    fn default_databases_are_chosen_by_seeds_and_size() {
        let dir = tempfile::tempdir().unwrap();
        let dbs = Databases::new(dir.path());
        let rules = Rules::default();
        let name = |h: usize, n: u32, r: Rules| format!("kalah-h{h}-n{n}-{}.kdb", r.tag());
        let other = Rules { capture: kalah_core::Capture::Empty, ..rules };
        for (file, bytes) in [
            (name(6, 20, rules), 200),
            (name(6, 24, rules), 1200),
            (name(6, 30, rules), 11000),
            (name(6, 32, other), 1),
            (name(5, 40, rules), 1),
            (format!("{}.partial", name(6, 34, rules)), 1),
        ] {
            std::fs::write(dir.path().join(file), vec![0u8; bytes]).unwrap();
        }
        let file_name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
        let pick = |max| dbs.largest(6, rules, max).map(|p| file_name(&p));
        assert_eq!(pick(u64::MAX), Some(name(6, 30, rules)));
        assert_eq!(pick(2000), Some(name(6, 24, rules)));
        assert_eq!(pick(1200), Some(name(6, 24, rules)));
        assert_eq!(pick(1199), Some(name(6, 20, rules)));
        assert_eq!(pick(10), Some(name(6, 20, rules)), "none is small enough: the smallest");
        assert_eq!(dbs.largest(4, rules, u64::MAX), None);
        assert_eq!(dbs.path_for(6, 20, rules), dir.path().join(name(6, 20, rules)));
        assert_eq!(Databases::name_parts(&name(6, 32, other)), Some((6, 32, other)));

        // By the position's seeds: the largest where it covers the position
        // or where none lies within the gap below it, else the smallest within.
        let found = dbs.files(6, rules);
        let seeds: Vec<u32> = found.iter().map(|f| f.max_seeds).collect();
        assert_eq!(seeds, [20, 24, 30]);
        let for_seeds = |s, gap| choose_for_seeds(&found, s, gap, u64::MAX).map(|f| file_name(&f.path));
        let value = |s| for_seeds(s, VALUE_LOAD_GAP);
        assert_eq!(value(12), Some(name(6, 30, rules)), "covered: probed, not loaded");
        assert_eq!(value(30), Some(name(6, 30, rules)));
        assert_eq!(value(36), Some(name(6, 20, rules)), "Kalah(6,3)");
        assert_eq!(value(44), Some(name(6, 20, rules)));
        assert_eq!(value(45), Some(name(6, 24, rules)));
        assert_eq!(value(48), Some(name(6, 24, rules)), "Kalah(6,4)");
        assert_eq!(value(54), Some(name(6, 30, rules)));
        assert_eq!(value(60), Some(name(6, 30, rules)), "Kalah(6,5): none within, the largest");
        let analysis = |s| for_seeds(s, ANALYSIS_LOAD_GAP);
        assert_eq!(analysis(36), Some(name(6, 20, rules)), "Kalah(6,3)");
        assert_eq!(analysis(42), Some(name(6, 24, rules)));
        assert_eq!(analysis(48), Some(name(6, 30, rules)), "Kalah(6,4)");
        assert_eq!(choose_for_seeds(&[], 48, VALUE_LOAD_GAP, u64::MAX), None);
        // Under a time limit files too large to load in its share are passed
        // over, unless they cover the position.
        let bytes: Vec<u64> = found.iter().map(|f| f.bytes).collect();
        let within = |s, max_load| choose_for_seeds(&found, s, VALUE_LOAD_GAP, max_load).map(|f| file_name(&f.path));
        assert_eq!(within(60, bytes[2] - 1), Some(name(6, 24, rules)), "Kalah(6,5): not the 30-seed file");
        assert_eq!(within(60, bytes[1] - 1), Some(name(6, 20, rules)));
        assert_eq!(within(60, bytes[0] - 1), None, "none small enough");
        assert_eq!(within(48, bytes[1]), Some(name(6, 24, rules)), "a file of exactly the budget is loaded");
        assert_eq!(within(30, 0), Some(name(6, 30, rules)), "covered: probed, whatever its size");
        let budget = SetupBudget { load_bytes: bytes[2] - 1, ..SetupBudget::UNLIMITED };
        let choice = dbs.choose(Purpose { houses: 6, rules, seeds: 60, gap: VALUE_LOAD_GAP }, budget);
        assert_eq!(choice.path.as_deref().map(file_name), Some(name(6, 24, rules)));
        assert_eq!(choice.passed_over.map(|(p, b)| (file_name(&p), b)), Some((name(6, 30, rules), bytes[2])));
    }
}
