//! Every file of the folder, with what the reader thinks of each: what
//! `kalah db list` shows.

use std::path::{Path, PathBuf};

use kalah_core::Rules;
use kalah_db::Database;

use crate::databases::folder::{rules_of_tag, Databases, JOURNAL_FILE};
use crate::error::{Error, Result};

/// The files of a database directory ([`Databases::list`]), each kind by
/// path (databases by board size, rules and seeds). Serialises to the
/// object `kalah db list --json` prints.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Listing {
    /// The directory.
    #[serde(serialize_with = "crate::text::display_path")]
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
    /// Why this directory, when it is the default one ([`DefaultDir::why`](crate::databases::DefaultDir::why));
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
    #[serde(serialize_with = "crate::text::display_path")]
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
    #[serde(serialize_with = "crate::text::display_path")]
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
    #[serde(serialize_with = "crate::text::display_path")]
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
    #[serde(serialize_with = "crate::text::display_path")]
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
    #[serde(serialize_with = "crate::text::display_path")]
    pub path: PathBuf,
    /// Why.
    pub error: String,
}

impl Databases {
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
        let entries = std::fs::read_dir(self.dir()).map_err(|e| Error::from(kalah_db::DbError::io(self.dir(), e)))?;
        let mut listing = Listing { dir: self.dir().to_path_buf(), exists: true, ..Listing::default() };
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
                Err(kalah_db::DbError::Incomplete { levels, total, .. }) => {
                    listing.partial.push(PartialFile { path, levels_done: levels, levels: total, bytes })
                }
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
        let Ok(entries) = std::fs::read_dir(self.dir().join("memory")) else {
            return Vec::new();
        };
        let mut found: Vec<ListedMemory> = entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                let (houses, tag) = name.strip_prefix("kalah-h")?.split_once('-')?;
                let houses = houses.parse().ok()?;
                let rules = rules_of_tag(tag)?;
                let path = entry.path().join(JOURNAL_FILE);
                let bytes = std::fs::metadata(&path).ok()?.len();
                Some(ListedMemory { path, houses, rules, bytes })
            })
            .collect();
        found.sort_by(|a, b| a.path.cmp(&b.path));
        found
    }
}
