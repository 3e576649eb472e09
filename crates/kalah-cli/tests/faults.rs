//! Faults around the real `kalah` process (issue 6): builds killed with
//! SIGKILL at random moments and restarted end byte-identical to an
//! uninterrupted build; a full or read-only disk refuses the build and
//! leaves the previous file alone; searches on many threads over one
//! memory-mapped database answer what one thread answers.
//!
//! `KALAH_FAULT_SEED=N` replays the kill times of one run (each run prints
//! its seed).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kalah_core::{Position, Rules};
use kalah_db::format::Header;
use kalah_db::{Database, Tablebase};
use kalah_search::{SearchOptions, Solver};
use rayon::prelude::*;

const BIN: &str = env!("CARGO_BIN_EXE_kalah");

#[allow(dead_code)] // each test binary uses part of it
mod support;
use support::Rng;

fn kalah(dir: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.env("KALAH_DB_DIR", dir).current_dir(dir).stdin(Stdio::null());
    c
}

/// `kalah db build` of 6 houses, up to `n` seeds, into `out`.
fn build_command(dir: &Path, n: u32, out: &Path) -> Command {
    let mut c = kalah(dir);
    c.args(["db", "build", "--houses", "6", "--max-seeds", &n.to_string(), "--threads", "2", "--json", "-o"]).arg(out);
    c
}

/// Runs to the end; `(exit code, stdout, stderr)`.
fn finish(mut c: Command) -> (Option<i32>, String, String) {
    let out = c.output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn killed_builds_resume_to_the_same_bytes() {
    const N: u32 = 16;
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("reference.kdb");
    let start = Instant::now();
    let (code, _, err) = finish(build_command(dir.path(), N, &reference));
    assert_eq!(code, Some(0), "{err}");
    let whole = start.elapsed();
    let good = fs::read(&reference).unwrap();

    let seed = std::env::var("KALAH_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64);
    eprintln!("KALAH_FAULT_SEED={seed} (an uninterrupted build took {:.2} s)", whole.as_secs_f64());
    let mut rng = Rng(seed);
    let target = dir.path().join("killed.kdb");
    let partial = dir.path().join("killed.kdb.partial");
    let (mut kills, mut resumed_kills, mut completed) = (0, 0, 0);
    for attempt in 0..8 {
        let levels_before = fs::read(&partial).ok().and_then(|b| Header::decode(&b).ok()).map_or(0, |h| h.levels_done);
        let mut child = build_command(dir.path(), N, &target).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        // First at 60% of a whole build (levels are written by then, so the
        // next run resumes), then log-uniform from 2 ms to a whole build.
        let delay = if attempt == 0 { 0.6 * whole.as_secs_f64() } else { 0.002 * (whole.as_secs_f64() / 0.002).max(1.0).powf(rng.unit()) };
        std::thread::sleep(Duration::from_secs_f64(delay));
        if child.try_wait().unwrap().is_some() {
            completed += 1;
            eprintln!("attempt {attempt}: finished within {:.0} ms (from {levels_before} levels)", delay * 1000.0);
            assert!(fs::read(&target).unwrap() == good, "a build that was not killed differs (seed {seed})");
            continue;
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        kills += 1;
        if levels_before > 0 {
            resumed_kills += 1;
        }
        eprintln!("attempt {attempt}: killed after {:.0} ms (started from {levels_before} levels)", delay * 1000.0);
        // Whatever is under the real name is a whole, right file; the
        // partial one is refused as a database, or is complete and right.
        if target.exists() {
            assert!(fs::read(&target).unwrap() == good, "a killed build left a wrong file under the real name");
        }
        if let Ok(bytes) = fs::read(&partial) {
            match Database::from_bytes(&partial, &bytes) {
                Ok(_) => assert!(bytes == good, "a complete partial file differs"),
                Err(e) => assert!(e.to_string().contains("killed.kdb.partial"), "{e}"),
            }
        }
    }
    let out = build_command(dir.path(), N, &target).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    eprintln!(
        "{kills} kills ({resumed_kills} of resumed builds), {completed} builds finished first; last run: {}",
        String::from_utf8_lossy(&out.stdout).trim()
    );
    assert!(fs::read(&target).unwrap() == good, "the resumed build differs from an uninterrupted one (seed {seed})");
    assert!(!partial.exists(), "the partial file is left behind");
    assert!(kills >= 3 && resumed_kills >= 1, "too few kills: {kills} ({resumed_kills} resumed), seed {seed}");
}

fn is_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(1) == Some("0")))
        .unwrap_or(false)
}

/// A test that cannot mount its tmpfs is skipped, with `why`; where
/// `KALAH_TMPFS_TEST=required` (CI), it fails instead.
fn skipped<T>(why: String) -> Option<T> {
    let required = std::env::var("KALAH_TMPFS_TEST").is_ok_and(|v| v == "required");
    assert!(!required, "the tmpfs fault tests are required here (KALAH_TMPFS_TEST=required): {why}");
    eprintln!("SKIPPED: {why}");
    None
}

/// A tmpfs of `size` on a temporary directory, unmounted when dropped;
/// `None` (the reason printed) where it cannot be mounted.
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        if !is_root() {
            return skipped("mounting a small tmpfs needs root".to_string());
        }
        let dir = tempfile::tempdir().unwrap();
        match Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(dir.path()).output() {
            Ok(o) if o.status.success() => Some(Tmpfs(dir)),
            Ok(o) => skipped(format!("mount -t tmpfs failed: {}", String::from_utf8_lossy(&o.stderr).trim())),
            Err(e) => skipped(format!("cannot run mount: {e}")),
        }
    }

    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(self.0.path()).status();
    }
}

/// A disk too small for the build: refused before any work, with the
/// figures, on one line, exit 2; the complete file already there untouched.
#[test]
fn a_build_that_does_not_fit_on_the_disk_is_refused() {
    let Some(disk) = Tmpfs::mount("1m") else {
        return;
    };
    let out = disk.path().join("db.kdb");
    let (code, _, err) = finish(build_command(disk.path(), 6, &out));
    assert_eq!(code, Some(0), "{err}");
    let previous = fs::read(&out).unwrap();
    let (code, stdout, err) = finish(build_command(disk.path(), 12, &out));
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("kalah: disk space in ") && err.contains("needs 2805760 bytes (2.7 MiB)") && err.contains("available"), "{err}");
    // Under --json the refusal is also one object on stdout.
    let object: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(object["exit_code"], 2, "{stdout}");
    assert!(err.contains(object["error"].as_str().unwrap()), "{stdout}");
    assert!(fs::read(&out).unwrap() == previous, "the previous file changed");
    assert!(!disk.path().join("db.kdb.partial").exists());
}

/// A read-only disk: the build is refused before it starts, in one line
/// naming the file and the cause; the complete file already there is
/// untouched.
#[test]
fn a_build_onto_a_read_only_disk_fails_naming_the_file() {
    let Some(disk) = Tmpfs::mount("4m") else {
        return;
    };
    let out = disk.path().join("db.kdb");
    let (code, _, err) = finish(build_command(disk.path(), 6, &out));
    assert_eq!(code, Some(0), "{err}");
    let previous = fs::read(&out).unwrap();
    let o = Command::new("mount").args(["-o", "remount,ro"]).arg(disk.path()).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (code, _, err) = finish(build_command(disk.path(), 8, &out));
    // One line, before the plan is said (it came after it, issue 38).
    assert_eq!(err.lines().count(), 1, "{err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("kalah: ") && last.contains("db.kdb") && last.contains("Read-only file system"), "{err}");
    assert!(matches!(code, Some(1 | 2)), "{err}");
    assert!(!err.contains("panicked"));
    assert!(fs::read(&out).unwrap() == previous, "the previous file changed");
}

/// Searches on many threads, several at once, all backed by one
/// memory-mapped database while other threads probe it: every value and
/// every move's value is what a single-threaded search answers.
#[test]
fn concurrent_searches_on_one_mapping_agree_with_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join("db.kdb");
    kalah_db::build_file(&path, 4, Rules::default(), 12, &kalah_db::Quiet).unwrap();
    let db = Database::open(&path).unwrap();
    assert!(!db.is_loaded(), "the test is about the memory map");
    let positions: Vec<Position> = [
        "3,3,3,3,0,3,3,3,3,0 S",
        "4,3,2,1,0,1,2,3,4,0 S",
        "2,5,0,4,3,1,3,2,2,6 N",
        "0,6,2,1,1,4,0,3,3,2 S",
        "5,0,3,3,7,2,2,0,4,3 N",
        "1,1,6,2,0,0,4,4,1,9 S",
    ]
    .iter()
    .map(|p| p.parse().unwrap())
    .collect();
    let options = |threads| SearchOptions { threads, tt_bytes: 8 << 20, max_seeds: None };
    let single: Vec<_> =
        positions.iter().map(|p| Solver::new(4, Rules::default(), &db, options(1)).unwrap().analyze(p, true, false).unwrap()).collect();
    let ix = db.indexer();
    let truth: Vec<i32> = (0..ix.len()).map(|i| db.probe_board(ix.unrank(i)).unwrap().unwrap()).collect();

    let pool = rayon::ThreadPoolBuilder::new().num_threads(6).build().unwrap();
    pool.install(|| {
        rayon::join(
            || {
                (0..positions.len() * 3).into_par_iter().for_each(|k| {
                    let i = k % positions.len();
                    let solver = Solver::new(4, Rules::default(), &db, options(1 + k % 3)).unwrap();
                    let a = solver.analyze(&positions[i], true, false).unwrap();
                    assert_eq!(a.value, single[i].value, "{}", positions[i]);
                    assert_eq!(a.moves, single[i].moves, "{}", positions[i]);
                })
            },
            || {
                (0..ix.len()).into_par_iter().for_each(|i| {
                    let j = (i * 7919) % ix.len();
                    assert_eq!(db.probe_board(ix.unrank(j)).unwrap(), Some(truth[j as usize]));
                })
            },
        )
    });
    assert_eq!(db.failure(), None);
}

/// A full disk under a journal (issue 51): the search's answer is printed
/// (and under --json is the one object, saying why the journal was not
/// written), then one line says the journal was not kept, exit code 1.
#[test]
fn a_full_disk_does_not_cost_a_journaled_search_its_answer() {
    let Some(disk) = Tmpfs::mount("256k") else {
        return;
    };
    let journal = disk.path().join("j");
    fs::create_dir(&journal).unwrap();
    // Fill the disk: the write fails part way, leaving it full.
    assert!(fs::write(disk.path().join("filler"), vec![0u8; 1 << 20]).is_err());
    let solve = |json: bool| {
        let mut c = kalah(disk.path());
        c.args(["solve", "4", "4", "--capture", "empty", "--no-db", "--no-book", "--value-only", "--threads", "2", "--journal"]).arg(&journal);
        if json {
            c.arg("--json");
        }
        finish(c)
    };
    let (code, stdout, err) = solve(true);
    assert_eq!(code, Some(1), "{err}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["value"], 2, "{stdout}");
    assert!(report["journal"]["not_written"].as_str().unwrap().contains("No space left on device"), "{stdout}");
    assert!(err.lines().last().unwrap().starts_with("kalah: the value above stands, but the journal was not kept"), "{err}");
    let (code, stdout, err) = solve(false);
    assert_eq!(code, Some(1), "{err}");
    assert!(stdout.contains("Value:    +2  (South wins by 2)"), "{stdout}");
    assert!(!err.contains("panicked"), "{err}");
}
