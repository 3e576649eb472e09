//! The strong solution of Kalah(h,s): the database of every board with up
//! to the start's 2hs seeds ([`solve`]), what it says (the start's value,
//! boards won, drawn and lost, boards and positions reachable from the
//! start), and a manifest that lets anyone rebuild the file and check it
//! byte for byte ([`check_manifest`]). What `kalah strong` and `kalah db
//! verify --manifest` answer.
//!
//! # The manifest
//!
//! A CSV file (RFC 4180, read and written by the `csv` crate) of one
//! header line, [`MANIFEST_HEADER`], and one row a file ([`ManifestRow`]),
//! sorted by houses, seeds and rules; a file's row replaces the earlier
//! row of the same board, seeds, rules and database size. A file that
//! does not begin with the header is refused, never replaced, and each
//! write is whole, through [`kalah_db::safe::SafeFile`]: a crash leaves the
//! manifest as it was.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use kalah_core::{Engine, Next, Position, Rules, Side};
use kalah_db::{human_bytes, BuildProgress, Database, DbError, Encoding};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::progress::Observer;
use crate::text::{group, verdict};

/// The header line of a manifest: [`ManifestRow`]'s fields.
pub const MANIFEST_HEADER: &str =
    "houses,seeds,capture,end,leftovers,sowing,relay,max_seeds,file,bytes,sha256,start_value,won,drawn,lost,reachable_boards,reachable_positions";

/// What to solve strongly: Kalah(`houses`,`seeds`) under `rules`, into
/// `file`, with `threads` threads; its row added to `manifest` if given.
#[derive(Clone, Debug)]
pub struct StrongRequest {
    /// Houses a side.
    pub houses: usize,
    /// Seeds a house at the start.
    pub seeds: u32,
    /// The rules.
    pub rules: Rules,
    /// The database file: built unless it already holds the solution,
    /// which is then checked and described.
    pub file: PathBuf,
    /// Threads of the build.
    pub threads: usize,
    /// A manifest to add the file's row to (made if it is not there).
    pub manifest: Option<PathBuf>,
}

/// What a strong solution says: serialises to the object `kalah strong
/// --json` prints.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StrongSolution {
    /// Houses a side.
    pub houses: usize,
    /// Seeds a house at the start.
    pub seeds: u32,
    /// The rules.
    #[serde(serialize_with = "crate::text::serialize_rules")]
    pub rules: Rules,
    /// Every board of up to this many seeds is solved: the start's.
    pub max_seeds: u32,
    /// The database file.
    #[serde(serialize_with = "crate::databases::display_path")]
    pub path: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// Its SHA-256, in hex.
    pub sha256: String,
    /// The start's value for South.
    pub value: i32,
    /// The start's value in words.
    pub verdict: String,
    /// Boards in the file.
    pub boards: u64,
    /// Boards whose value for the player to move is positive.
    pub won: u64,
    /// ... zero.
    pub drawn: u64,
    /// ... negative.
    pub lost: u64,
    /// Boards (seen from the player to move) reachable from the start.
    pub reachable_boards: u64,
    /// Positions (board and side to move, stores not counted) reachable
    /// from the start.
    pub reachable_positions: u64,
    /// Seconds building (0 when the file was there).
    pub build_seconds: f64,
    /// Seconds in all.
    pub seconds: f64,
}

impl StrongSolution {
    /// Its row of a manifest.
    pub fn manifest_row(&self) -> ManifestRow {
        let r = self.rules;
        ManifestRow {
            houses: self.houses,
            seeds: self.seeds,
            capture: r.capture.to_string(),
            end: r.end.to_string(),
            leftovers: r.leftovers.to_string(),
            sowing: r.sowing.to_string(),
            relay: r.relay.to_string(),
            max_seeds: self.max_seeds,
            file: self.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
            bytes: self.bytes,
            sha256: self.sha256.clone(),
            start_value: self.value,
            won: self.won,
            drawn: self.drawn,
            lost: self.lost,
            reachable_boards: self.reachable_boards,
            reachable_positions: self.reachable_positions,
        }
    }
}

/// Solves Kalah(h,s) strongly ([`StrongRequest`]): builds the database of
/// every board of up to the start's seeds (refused up front with the
/// memory and disk it needs if they are not there; `progress` hears the
/// build), or checks the one the file holds, and describes it. A file
/// there that is not that solution is refused, never replaced. Notes
/// (what is built, what is there already) go to `observer`.
pub fn solve(request: &StrongRequest, progress: &dyn BuildProgress, observer: &dyn Observer) -> Result<StrongSolution> {
    let StrongRequest { houses: h, seeds, rules, ref file, threads, ref manifest } = *request;
    let start = Position::start(h, seeds)?;
    let n = start.seeds_in_houses();
    kalah_db::builder::check_size(h, n)?;
    if !(1..=crate::MAX_THREADS).contains(&threads) {
        return Err(Error::bad_input(format!("{threads} threads: give 1 to {}", crate::MAX_THREADS)).about(crate::Field::Threads));
    }
    if let Some(m) = manifest {
        // Before the work, not after it: a place that cannot be written, a
        // file that is not a manifest.
        kalah_db::safe::check_writable(m)?;
        read_manifest(m)?;
    }
    let timer = Instant::now();
    let there = Database::open_for(file, h, rules).ok().filter(|d| d.header().max_seeds == n);
    if there.is_none() && std::fs::symlink_metadata(file).is_ok() {
        // Never replaced: another database, or a file of the user's.
        return Err(Error::refused(format!(
            "{} is there and does not hold the strong solution of Kalah({h},{seeds}) under {rules}; it is left as it is: move it aside or name another file",
            file.display()
        )));
    }
    let (db, build_seconds) = match there {
        Some(db) => {
            observer.note(&format!("{} already holds the strong solution; checking it", file.display()));
            (db, 0.0)
        }
        None => {
            kalah_db::check_resources(file, h, n, rules, Encoding::Byte)?;
            let (memory, disk) = kalah_db::writer::requirements(h, n, rules, Encoding::Byte);
            let boards = kalah_core::boards_up_to(h, n);
            observer.note(&format!(
                "strong solution of Kalah({h},{seeds}): {} boards, {} of memory, {} of disk, into {}",
                group(boards),
                human_bytes(memory + boards / 4),
                human_bytes(disk),
                file.display()
            ));
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| Error::internal(format!("a pool of {threads} threads: {e}")))?;
            pool.install(|| kalah_db::build_file(file, h, rules, n, progress))?;
            (Database::open_for(file, h, rules)?, timer.elapsed().as_secs_f64())
        }
    };
    // The statistics read the mapped file once, level by level: no copy
    // of it in memory is needed.
    let value = start.store_difference() + db.probe_board(start.mover_board())?.ok_or_else(|| Error::internal("the strong solution does not cover its start"))?;
    let (won, drawn, lost) = outcome_counts(&db)?;
    let (reachable_boards, reachable_positions) = reachable(&Engine::new(h, rules), &db, &start);
    let (bytes, sha256) = sha256(file)?;
    let solution = StrongSolution {
        houses: h,
        seeds,
        rules,
        max_seeds: n,
        path: file.clone(),
        bytes,
        sha256,
        value,
        verdict: verdict(Side::South, value),
        boards: db.indexer().len(),
        won,
        drawn,
        lost,
        reachable_boards,
        reachable_positions,
        build_seconds,
        seconds: timer.elapsed().as_secs_f64(),
    };
    if let Some(m) = manifest {
        add_to_manifest(m, &solution.manifest_row())?;
    }
    Ok(solution)
}

/// Boards whose value for the player to move is positive, zero,
/// negative (an exact file: one in a window encoding is refused).
fn outcome_counts(db: &Database) -> Result<(u64, u64, u64)> {
    use rayon::prelude::*;
    let add = |a: (u64, u64, u64), b: (u64, u64, u64)| (a.0 + b.0, a.1 + b.1, a.2 + b.2);
    const CHUNK: u64 = 1 << 20;
    let mut total = (0, 0, 0);
    for n in 0..=db.header().max_seeds {
        let boards = db.indexer().level_len(n);
        let level = (0..boards.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let values = db.level_values(n, c * CHUNK..((c + 1) * CHUNK).min(boards))?;
                Ok::<_, Error>(values.iter().fold((0, 0, 0), |(w, d, l), &v| match v {
                    v if v > 0 => (w + 1, d, l),
                    0 => (w, d + 1, l),
                    _ => (w, d, l + 1),
                }))
            })
            .try_reduce(|| (0, 0, 0), |a, b| Ok(add(a, b)))?;
        total = add(total, level);
    }
    Ok(total)
}

/// The boards (seen from the mover) and the positions (board and side to
/// move) reachable from `start`.
fn reachable(engine: &Engine, db: &Database, start: &Position) -> (u64, u64) {
    let ix = db.indexer();
    let len = ix.len() as usize;
    // One bit per board and side to move: South's in `seen[0]`, North's in `seen[1]`.
    let mut seen = [vec![0u64; len.div_ceil(64)], vec![0u64; len.div_ceil(64)]];
    let side_bit = |s: Side| (s == Side::North) as usize;
    let mut stack = vec![(ix.index(start.mover_board()), side_bit(start.to_move()))];
    let mark = |seen: &mut [Vec<u64>; 2], i: u64, side: usize| -> bool {
        let (w, b) = ((i / 64) as usize, i % 64);
        let new = seen[side][w] & (1 << b) == 0;
        seen[side][w] |= 1 << b;
        new
    };
    mark(&mut seen, stack[0].0, stack[0].1);
    while let Some((i, side)) = stack.pop() {
        let board = ix.unrank(i);
        if engine.is_over(board) {
            continue;
        }
        for house in engine.moves(board) {
            let o = engine.play(board, house);
            let next_side = match o.next {
                Next::Over => continue,
                Next::Mover => side,
                Next::Opponent => 1 - side,
            };
            let c = ix.index(o.board);
            if mark(&mut seen, c, next_side) {
                stack.push((c, next_side));
            }
        }
    }
    let positions: u64 = seen.iter().flatten().map(|w| w.count_ones() as u64).sum();
    let boards: u64 = seen[0].iter().zip(&seen[1]).map(|(a, b)| (a | b).count_ones() as u64).sum();
    (boards, positions)
}

/// The size and SHA-256 (hex) of a file.
pub fn sha256(path: &Path) -> Result<(u64, String)> {
    let io = |e| Error::from(DbError::io(path, e));
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        let got = file.read(&mut buffer).map_err(io)?;
        if got == 0 {
            break;
        }
        hasher.update(&buffer[..got]);
        bytes += got as u64;
    }
    Ok((bytes, hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()))
}

// ----- the manifest -----

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
    #[serde(serialize_with = "crate::databases::display_path")]
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
            return Err(Error::bad_input(format!("{}: the file {:?} is not a file name (a manifest names files of its folder)", manifest.display(), row.file)));
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
        return Ok(Some(format!("the manifest's row covers {} seeds, not the {} of Kalah({},{})'s start", row.max_seeds, 2 * row.houses as u64 * row.seeds as u64, row.houses, row.seeds)));
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
    let named = (h.houses, [r.capture.to_string(), r.end.to_string(), r.leftovers.to_string(), r.sowing.to_string(), r.relay.to_string()], h.max_seeds);
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
        if let Some(why) = said(row.reachable_boards, boards, "boards reachable").or_else(|| said(row.reachable_positions, positions, "positions reachable")) {
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
        for (name, bytes) in [("notes.txt", &b"some notes\n1,2\n"[..]), ("latin1.csv", b"houses,seeds\n\xe9\n"), ("short.csv", b"houses,seeds,capture\n1,1,standard\n")] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            let e = add_to_manifest(&path, &row(1, 1, "x.kdb")).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::BadInput, "{e}");
            assert!(e.to_string().contains("not a manifest"), "{e}");
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name} was changed");
        }
        assert!(read_manifest(&dir.path().join("absent.csv")).unwrap().is_empty());
    }

    /// A solution checked against its manifest: every statistic counts, a
    /// file name must stay in the folder, and a file that is not the
    /// solution is never replaced (issue 52, an embedder's review).
    #[test]
    fn a_manifest_vouches_for_every_column_and_a_file_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let (file, manifest) = (dir.path().join("s21.kdb"), dir.path().join("m.csv"));
        let request = StrongRequest { houses: 2, seeds: 1, rules: Rules::default(), file: file.clone(), threads: 1, manifest: Some(manifest.clone()) };
        let solution = solve(&request, &kalah_db::Quiet, &crate::Silent).unwrap();
        assert_eq!(solution.value, kalah_reference::solve(&Rules::default(), &kalah_reference::RefPosition::start(2, 1)).0);
        assert!(check_manifest(&manifest, dir.path(), None).unwrap().ok);
        let good = std::fs::read_to_string(&manifest).unwrap();
        let row = solution.manifest_row();
        for (i, field) in ["start_value", "won", "drawn", "lost", "reachable_boards", "reachable_positions"].into_iter().enumerate() {
            let mut forged = row.clone();
            match i {
                0 => forged.start_value += 1,
                1 => forged.won += 1,
                2 => forged.drawn += 1,
                3 => forged.lost += 1,
                4 => forged.reachable_boards += 1,
                _ => forged.reachable_positions += 1,
            }
            std::fs::remove_file(&manifest).unwrap();
            add_to_manifest(&manifest, &forged).unwrap();
            let check = check_manifest(&manifest, dir.path(), None).unwrap();
            assert!(!check.ok && check.problems.len() == 1, "a forged {field} passed: {check:?}");
        }
        std::fs::write(&manifest, good.replace("s21.kdb", "../s21.kdb")).unwrap();
        assert_eq!(check_manifest(&manifest, dir.path(), None).unwrap_err().kind(), crate::ErrorKind::BadInput);
        // Another file where the solution would go: refused, left as it was.
        let notes = dir.path().join("notes.kdb");
        std::fs::write(&notes, "my notes").unwrap();
        let e = solve(&StrongRequest { file: notes.clone(), manifest: None, ..request.clone() }, &kalah_db::Quiet, &crate::Silent).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Refused, "{e}");
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes");
        let e = solve(&StrongRequest { threads: 0, ..request }, &kalah_db::Quiet, &crate::Silent).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::BadInput, "{e}");
    }
}
