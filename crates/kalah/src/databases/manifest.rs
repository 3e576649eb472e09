//! The manifest of strong solutions, whose format the module docs of
//! [`crate::strong`] give: read, written whole, and checked against the
//! files it names.

use std::path::{Path, PathBuf};

use kalah_core::{Engine, Position};
use kalah_db::{Database, DbError};

use crate::databases::facts::{outcome_counts, reachable, sha256};
use crate::error::{Error, Result};

/// The header line of a manifest: [`ManifestRow`]'s fields.
pub const MANIFEST_HEADER: &str =
    "houses,seeds,capture,end,leftovers,sowing,relay,max_seeds,file,bytes,sha256,start_value,won,drawn,lost,reachable_boards,reachable_positions";

/// One row of a manifest: a strong solution's file and what it says.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ManifestRow {
    /// Houses a side.
    pub houses: usize,
    /// Seeds a house at the start.
    pub seeds: u32,
    /// The capture rule, by its name.
    pub capture: String,
    /// The end rule.
    pub end: String,
    /// The leftovers rule.
    pub leftovers: String,
    /// The sowing direction.
    pub sowing: String,
    /// The relay rule.
    pub relay: String,
    /// Seeds the database covers.
    pub max_seeds: u32,
    /// The file's name (in the folder checked).
    pub file: String,
    /// Its size.
    pub bytes: u64,
    /// Its SHA-256, in hex.
    pub sha256: String,
    /// The start's value for South.
    pub start_value: i32,
    /// Boards won for the player to move.
    pub won: u64,
    /// Boards drawn.
    pub drawn: u64,
    /// Boards lost.
    pub lost: u64,
    /// Boards reachable from the start.
    pub reachable_boards: u64,
    /// Positions reachable from the start.
    pub reachable_positions: u64,
}

impl ManifestRow {
    /// What a later row of the same board, seeds, rules and size replaces.
    fn key(&self) -> (usize, u32, [&str; 5], u32) {
        (self.houses, self.seeds, [&self.capture, &self.end, &self.leftovers, &self.sowing, &self.relay], self.max_seeds)
    }
}

/// The rows of the manifest at `path`: none if it is not there. A file
/// that is not a manifest (not text, no header, a row that does not
/// read) is refused, naming the line.
pub fn read_manifest(path: &Path) -> Result<Vec<ManifestRow>> {
    read_rows(path, MANIFEST_HEADER)
}

/// The columns of a manifest that say which file is which, all a check
/// needs ([`check_manifest`] reads manifests of these alone, too).
const FILE_COLUMNS: &str = "houses,seeds,capture,end,leftovers,sowing,relay,max_seeds,file,bytes,sha256";

/// A manifest row's columns [`FILE_COLUMNS`], and its statistics where the
/// manifest has them.
#[derive(Clone, Debug, serde::Deserialize)]
struct ListedFile {
    houses: usize,
    seeds: u32,
    capture: String,
    end: String,
    leftovers: String,
    sowing: String,
    relay: String,
    max_seeds: u32,
    file: String,
    bytes: u64,
    sha256: String,
    start_value: Option<i32>,
    won: Option<u64>,
    drawn: Option<u64>,
    lost: Option<u64>,
    reachable_boards: Option<u64>,
    reachable_positions: Option<u64>,
}

/// The rows of the CSV file at `path` whose header begins with `header`
/// (none if it is not there), each read by the header's names.
fn read_rows<T: serde::de::DeserializeOwned>(path: &Path, header: &str) -> Result<Vec<T>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(DbError::io(path, e).into()),
    };
    let refused = |why: String| Error::bad_input(format!("{}: not a manifest: {why}; it is left as it is", path.display()));
    let text = std::str::from_utf8(&bytes).map_err(|e| refused(format!("byte {} is not UTF-8 text", e.valid_up_to())))?;
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut reader = csv::ReaderBuilder::new().from_reader(text.trim_start().as_bytes());
    let names = reader.headers().map_err(|e| refused(e.to_string()))?;
    let wanted: Vec<&str> = header.split(',').collect();
    if names.iter().take(wanted.len()).ne(wanted.iter().copied()) {
        return Err(refused(format!("its first line does not begin with the manifest header ({header})")));
    }
    reader.deserialize().map(|row| row.map_err(|e| refused(e.to_string()))).collect()
}

/// Adds `row` to the manifest at `path` (made, with its folder, if it is
/// not there), replacing the row of the same board, seeds, rules and
/// size; the rows sorted by houses, seeds and rules.
pub fn add_to_manifest(path: &Path, row: &ManifestRow) -> Result<()> {
    let mut rows = read_manifest(path)?;
    rows.retain(|r| r.key() != row.key());
    rows.push(row.clone());
    rows.sort_by(|a, b| a.key().cmp(&b.key()));
    let mut writer = csv::Writer::from_writer(Vec::new());
    for r in &rows {
        writer.serialize(r).map_err(|e| Error::internal(format!("a manifest row: {e}")))?;
    }
    let text = writer.into_inner().map_err(|e| Error::internal(format!("a manifest: {e}")))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| DbError::io(dir, e))?;
    }
    let mut out = kalah_db::safe::SafeFile::create(path)?;
    std::io::Write::write_all(&mut out, &text).map_err(|e| DbError::io(path, e))?;
    out.commit()?;
    Ok(())
}

/// What [`check_manifest`] found: serialises to the object `kalah db
/// verify --manifest --json` prints.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ManifestCheck {
    /// The manifest.
    #[serde(serialize_with = "crate::text::display_path")]
    pub manifest: PathBuf,
    /// Whether every file present holds, and at least one is.
    pub ok: bool,
    /// The files that hold: size, SHA-256, header and every checksum.
    pub checked: Vec<String>,
    /// The files that do not, and why.
    pub problems: Vec<String>,
    /// The manifest's files not in the folder (not built there).
    pub absent: Vec<String>,
}

/// Checks the files of the manifest at `manifest` found in `dir` (or only
/// `file`, against the row of its name): the size and SHA-256 the
/// manifest gives, the rules and seeds it names, every internal checksum,
/// and what the file says where the manifest has it (the start's value,
/// boards won, drawn and lost, boards and positions reachable).
/// Files not in the folder are absent, not failures. A manifest without
/// rows, or a `file` it does not list, is bad input.
pub fn check_manifest(manifest: &Path, dir: &Path, file: Option<&Path>) -> Result<ManifestCheck> {
    // The manifest must be there: a missing one is no empty manifest here.
    kalah_db::reader::open_regular(manifest)?;
    let rows: Vec<ListedFile> = read_rows(manifest, FILE_COLUMNS)?;
    if rows.is_empty() {
        // A manifest cut short must not pass for one whose files all hold.
        return Err(Error::bad_input(format!("{}: lists no databases (a manifest is its header and a line per file)", manifest.display())));
    }
    let wanted = file.and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned());
    let mut check = ManifestCheck { manifest: manifest.to_path_buf(), ok: false, checked: Vec::new(), problems: Vec::new(), absent: Vec::new() };
    for row in &rows {
        if Path::new(&row.file).file_name() != Some(std::ffi::OsStr::new(&row.file)) {
            return Err(Error::bad_input(format!(
                "{}: the file {:?} is not a file name (a manifest names files of its folder)",
                manifest.display(),
                row.file
            )));
        }
        let path = match file {
            Some(file) if wanted.as_deref() == Some(row.file.as_str()) => file.to_path_buf(),
            Some(_) => continue,
            None => dir.join(&row.file),
        };
        if file.is_none() && !path.exists() {
            check.absent.push(path.display().to_string());
            continue;
        }
        match check_row(row, &path) {
            Ok(None) => check.checked.push(path.display().to_string()),
            Ok(Some(why)) => check.problems.push(format!("{}: {why}", path.display())),
            Err(e) => check.problems.push(e.to_string()),
        }
    }
    if let (Some(file), true) = (file, check.checked.is_empty() && check.problems.is_empty()) {
        return Err(Error::bad_input(format!("{}: {} lists no file of that name", file.display(), manifest.display())));
    }
    check.ok = check.problems.is_empty() && !check.checked.is_empty();
    Ok(check)
}

/// What is wrong with the file at `path` against its manifest row, if
/// anything.
fn check_row(row: &ListedFile, path: &Path) -> Result<Option<String>> {
    if !path.is_file() {
        return Ok(Some("not a file".into()));
    }
    if row.max_seeds as u64 != 2 * row.houses as u64 * row.seeds as u64 {
        return Ok(Some(format!(
            "the manifest's row covers {} seeds, not the {} of Kalah({},{})'s start",
            row.max_seeds,
            2 * row.houses as u64 * row.seeds as u64,
            row.houses,
            row.seeds
        )));
    }
    let (bytes, sha) = sha256(path)?;
    if bytes != row.bytes {
        return Ok(Some(format!("{bytes} bytes, manifest says {}", row.bytes)));
    }
    if sha != row.sha256 {
        return Ok(Some(format!("SHA-256 {sha}, manifest says {}", row.sha256)));
    }
    let db = Database::open(path)?;
    let h = db.header();
    let r = h.rules;
    let named =
        (h.houses, [r.capture.to_string(), r.end.to_string(), r.leftovers.to_string(), r.sowing.to_string(), r.relay.to_string()], h.max_seeds);
    let listed = (row.houses, [&row.capture, &row.end, &row.leftovers, &row.sowing, &row.relay].map(String::clone), row.max_seeds);
    if named != listed {
        return Ok(Some(format!("the header names other rules or sizes than the manifest ({})", h.rules)));
    }
    db.verify(&|_| {})?;
    // What the file says, where the manifest says it too.
    let start = Position::start(row.houses, row.seeds)?;
    let said = |listed: Option<u64>, found: u64, what: &str| listed.filter(|&l| l != found).map(|l| format!("{found} {what}, manifest says {l}"));
    let Some(start_value) = db.probe_position(&start)? else {
        return Ok(Some(format!("the file does not cover the start of Kalah({},{})", row.houses, row.seeds)));
    };
    if let Some(v) = row.start_value.filter(|&v| v != start_value) {
        return Ok(Some(format!("the start is worth {start_value:+}, manifest says {v:+}")));
    }
    let (won, drawn, lost) = outcome_counts(&db)?;
    if let Some(why) = said(row.won, won, "boards won").or_else(|| said(row.drawn, drawn, "drawn")).or_else(|| said(row.lost, lost, "lost")) {
        return Ok(Some(why));
    }
    if row.reachable_boards.is_some() || row.reachable_positions.is_some() {
        let (boards, positions) = reachable(&Engine::new(row.houses, r), &db, &start);
        if let Some(why) =
            said(row.reachable_boards, boards, "boards reachable").or_else(|| said(row.reachable_positions, positions, "positions reachable"))
        {
            return Ok(Some(why));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(houses: usize, seeds: u32, file: &str) -> ManifestRow {
        ManifestRow {
            houses,
            seeds,
            capture: "standard".into(),
            end: "instant".into(),
            leftovers: "owner".into(),
            sowing: "ccw".into(),
            relay: "off".into(),
            max_seeds: 2 * houses as u32 * seeds,
            file: file.into(),
            bytes: 10,
            sha256: "00".into(),
            start_value: 2,
            won: 1,
            drawn: 2,
            lost: 3,
            reachable_boards: 4,
            reachable_positions: 5,
        }
    }

    #[test]
    fn rows_are_added_sorted_and_replaced_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deeper/m.csv");
        add_to_manifest(&path, &row(3, 2, "b.kdb")).unwrap();
        add_to_manifest(&path, &row(2, 5, "a, with a comma.kdb")).unwrap();
        add_to_manifest(&path, &ManifestRow { start_value: -4, ..row(3, 2, "b.kdb") }).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(&format!("{MANIFEST_HEADER}\n2,5,")), "{text}");
        assert!(text.contains("\"a, with a comma.kdb\""), "{text}");
        let rows = read_manifest(&path).unwrap();
        assert_eq!(rows, [row(2, 5, "a, with a comma.kdb"), ManifestRow { start_value: -4, ..row(3, 2, "b.kdb") }]);
    }

    #[test]
    fn what_is_not_a_manifest_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in [
            ("notes.txt", &b"some notes\n1,2\n"[..]),
            ("latin1.csv", b"houses,seeds\n\xe9\n"),
            ("short.csv", b"houses,seeds,capture\n1,1,standard\n"),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            let e = add_to_manifest(&path, &row(1, 1, "x.kdb")).unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::BadInput, "{e}");
            assert!(e.to_string().contains("not a manifest"), "{e}");
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name} was changed");
        }
        assert!(read_manifest(&dir.path().join("absent.csv")).unwrap().is_empty());
    }
}
