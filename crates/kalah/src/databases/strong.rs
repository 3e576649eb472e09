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

use std::path::PathBuf;
use std::time::Instant;

use kalah_core::{Engine, Position, Rules, Side};
use kalah_db::{human_bytes, BuildProgress, Database, Encoding};

use crate::databases::facts::{outcome_counts, reachable};
use crate::error::{Error, Result};
use crate::progress::Observer;
use crate::text::{group, verdict};

pub use crate::databases::facts::sha256;
#[cfg(feature = "csv")]
pub use crate::databases::manifest::{add_to_manifest, check_manifest, read_manifest, ManifestCheck, ManifestRow, MANIFEST_HEADER};

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
    #[serde(serialize_with = "crate::text::display_path")]
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
    #[cfg(feature = "csv")]
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
    if !(1..=crate::limits::MAX_THREADS).contains(&threads) {
        return Err(Error::bad_input(format!("{threads} threads: give 1 to {}", crate::limits::MAX_THREADS)).about(crate::error::Field::Threads));
    }
    if let Some(m) = manifest {
        // Before the work, not after it: a place that cannot be written, a
        // file that is not a manifest.
        manifest_ready(m)?;
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
            let (memory, disk) = kalah_db::build::requirements(h, n, rules, Encoding::Byte);
            let boards = kalah_core::boards_up_to(h, n);
            observer.note(&format!(
                "strong solution of Kalah({h},{seeds}): {} boards, {} of memory, {} of disk, into {}",
                group(boards),
                human_bytes(memory + boards / 4),
                human_bytes(disk),
                file.display()
            ));
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| Error::internal(format!("a pool of {threads} threads: {e}")))?;
            pool.install(|| kalah_db::build_file(file, h, rules, n, progress))?;
            (Database::open_for(file, h, rules)?, timer.elapsed().as_secs_f64())
        }
    };
    // The statistics read the mapped file once, level by level: no copy
    // of it in memory is needed.
    let value = start.store_difference()
        + db.probe_board(start.mover_board())?.ok_or_else(|| Error::internal("the strong solution does not cover its start"))?;
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
    #[cfg(feature = "csv")]
    if let Some(m) = manifest {
        add_to_manifest(m, &solution.manifest_row())?;
    }
    Ok(solution)
}

/// Refuses a manifest that cannot be added to: a place that cannot be
/// written, a file that is not a manifest.
#[cfg(feature = "csv")]
fn manifest_ready(m: &std::path::Path) -> Result<()> {
    kalah_db::safe::check_writable(m)?;
    read_manifest(m).map(drop)
}

/// Refuses every manifest: a build without the cargo feature `csv` writes none.
#[cfg(not(feature = "csv"))]
fn manifest_ready(m: &std::path::Path) -> Result<()> {
    Err(Error::refused(format!("{}: this build of kalah writes no manifest (its cargo feature `csv` is off)", m.display())))
}

#[cfg(test)]
#[cfg(feature = "csv")]
mod tests {
    use super::*;

    /// A solution checked against its manifest: every statistic counts, a
    /// file name must stay in the folder, and a file that is not the
    /// solution is never replaced (issue 52, an embedder's review).
    #[test]
    fn a_manifest_vouches_for_every_column_and_a_file_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let (file, manifest) = (dir.path().join("s21.kdb"), dir.path().join("m.csv"));
        let request =
            StrongRequest { houses: 2, seeds: 1, rules: Rules::default(), file: file.clone(), threads: 1, manifest: Some(manifest.clone()) };
        let solution = solve(&request, &kalah_db::Quiet, &crate::progress::Silent).unwrap();
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
        assert_eq!(check_manifest(&manifest, dir.path(), None).unwrap_err().kind(), crate::error::ErrorKind::BadInput);
        // Another file where the solution would go: refused, left as it was.
        let notes = dir.path().join("notes.kdb");
        std::fs::write(&notes, "my notes").unwrap();
        let e =
            solve(&StrongRequest { file: notes.clone(), manifest: None, ..request.clone() }, &kalah_db::Quiet, &crate::progress::Silent).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Refused, "{e}");
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes");
        let e = solve(&StrongRequest { threads: 0, ..request }, &kalah_db::Quiet, &crate::progress::Silent).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::BadInput, "{e}");
    }
}
