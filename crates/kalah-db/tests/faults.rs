//! Faults a disk or a user can inflict on database files (issue 6): every
//! truncation, every flipped header bit, flipped bits across the whole file,
//! files of other rules or boards, things that are not files, a full disk,
//! a read-only disk, and many threads probing one mapping at once.
//!
//! The rule throughout: a damaged file gives an error that names the file
//! and the problem, never a panic and never a value that differs from the
//! undamaged file's. `tests/files.rs` has the first examples of each; this
//! file sweeps them. The fuzz target `database` (`fuzz/`) runs the same
//! checks on arbitrary bytes; its saved inputs are replayed here.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use kalah_core::{Capture, Indexer, Relay, Rules, Sowing};
use kalah_db::format::{blocks, Header};
use kalah_db::{build_file, Database, DbError, Quiet, Stored, Tablebase};
use rayon::prelude::*;

#[allow(dead_code)]
#[path = "../../../fuzz/src/database.rs"]
mod fuzz_database;

#[allow(dead_code)]
#[path = "../../../fuzz/src/stand_in.rs"]
mod fuzz_stand_in;

fn build(dir: &Path, name: &str, h: usize, rules: Rules, n: u32) -> PathBuf {
    let path = dir.join(name);
    build_file(&path, h, rules, n, &Quiet).unwrap();
    path
}

/// splitmix64: reproducible pseudo-random numbers without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The values of every board, read one by one from an intact file.
fn all_values(db: &Database) -> Vec<i32> {
    let ix = db.indexer();
    (0..ix.len()).map(|i| db.probe_board(ix.unrank(i)).unwrap().unwrap()).collect()
}

/// Opening `bytes` as `name` must fail with an error naming it.
fn refused(bytes: &[u8], name: &str) -> DbError {
    match Database::from_bytes(Path::new(name), bytes) {
        Ok(_) => panic!("{name}: a damaged file opened"),
        Err(e) => {
            assert!(e.to_string().contains(name), "the error does not name the file: {e}");
            e
        }
    }
}

/// Issue 6: every input the fuzz target `database` saved, and its seeds,
/// checked again (see `fuzz/src/database.rs`).
#[test]
fn fuzz_regressions_replay() {
    for (path, data) in fuzz_stand_in::saved_inputs("database") {
        eprintln!("replaying {}", path.display());
        fuzz_database::check(&data);
    }
}

/// Issue 38: the fuzz target `database` on stable, for `KALAH_FUZZ_SECONDS`
/// (2 s unless told; `.ci/run` gives it longer), on mutated saved inputs.
#[test]
fn fuzz_stand_in_database() {
    let failures = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-failures");
    assert!(fuzz_stand_in::run("database", 70_000, &failures, fuzz_database::check) > 0);
}

#[test]
fn every_truncation_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let cw = Rules { sowing: Sowing::Cw, ..Rules::default() };
    let relay = Rules { capture: Capture::Empty, relay: Relay::On, ..Rules::default() };
    for (h, rules, n) in [(3, Rules::default(), 9), (2, cw, 8), (4, relay, 12)] {
        let path = build(dir.path(), "whole.kdb", h, rules, n);
        let good = fs::read(&path).unwrap();
        let header = Header::decode(&good).unwrap();
        // Every byte of the fixed header and the level table, every 4 KiB
        // boundary, every region's start and end, each one byte either side.
        let mut cuts: Vec<usize> = (0..=64 + 32 * (n as usize + 1)).collect();
        cuts.extend((0..good.len()).step_by(4096));
        for e in &header.levels {
            let ends = [e.offset, e.offset + e.boards, e.sums_offset, e.sums_offset + 8 * blocks(e.boards)];
            for at in ends {
                cuts.extend([at as usize - 1, at as usize, at as usize + 1]);
            }
        }
        cuts.push(good.len() - 1);
        cuts.retain(|&c| c < good.len());
        cuts.sort_unstable();
        cuts.dedup();
        for &cut in &cuts {
            let e = refused(&good[..cut], "cut.kdb").to_string();
            assert!(e.contains("truncated") || (cut == 0 && e.contains("empty")), "cut at {cut}: {e}");
        }
        // The same through the file system, at the level boundaries.
        for e in &header.levels {
            let p = dir.path().join("cut.kdb");
            fs::write(&p, &good[..e.offset as usize]).unwrap();
            let err = Database::open(&p).unwrap_err().to_string();
            assert!(err.contains(&p.display().to_string()) && err.contains("truncated"), "{err}");
        }
        fs::remove_file(&path).unwrap();
    }
}

#[test]
fn every_flipped_header_bit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "db.kdb", 3, Rules::default(), 9);
    let good = fs::read(&path).unwrap();
    let header_bytes = Header::decode(&good).unwrap().bytes() as usize;
    // Every bit of the fixed part and the level table; in the zero padding
    // after it, every bit of every 61st byte.
    let table_end = 64 + 32 * 10;
    let mut bytes = good.clone();
    for at in (0..table_end).chain((table_end..header_bytes).step_by(61)) {
        for bit in 0..8 {
            bytes[at] ^= 1 << bit;
            let e = refused(&bytes, "flip.kdb");
            assert!(matches!(e, DbError::Corrupt { .. } | DbError::NotADatabase { .. } | DbError::Version { .. }), "byte {at} bit {bit}: {e}");
            bytes[at] ^= 1 << bit;
        }
    }
    assert!(bytes == good);
}

/// A flipped bit anywhere in the file: the file is refused, or `verify`
/// refuses it; and whatever a probe answers is the undamaged file's value
/// or an error naming the file, never another value.
#[test]
fn flipped_bits_across_the_file_never_give_a_wrong_value() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "db.kdb", 4, Rules::default(), 16);
    let good = fs::read(&path).unwrap();
    let db = Database::open(&path).unwrap();
    let truth = all_values(&db);
    let header = db.header().clone();
    let ix = Indexer::new(4, 16);
    let mut rng = Rng(6);
    let (mut refused_at_open, mut refused_by_verify, mut probe_errors) = (0, 0, 0);
    let mut bytes = good.clone();
    for at in (0..good.len()).step_by(2039) {
        let bit = rng.below(8);
        bytes[at] ^= 1 << bit;
        match Database::from_bytes(Path::new("flip.kdb"), &bytes) {
            Err(e) => {
                assert!(e.to_string().contains("flip.kdb"), "{e}");
                refused_at_open += 1;
            }
            Ok(damaged) => {
                // The board whose byte flipped, if it is a value, others of
                // its block, and a sample of the whole file.
                let mut sample: Vec<u64> = (0..200).map(|_| rng.below(ix.len())).collect();
                for (n, e) in header.levels.iter().enumerate() {
                    if (e.offset..e.offset + e.boards).contains(&(at as u64)) {
                        let start = ix.level_start(n as u32);
                        let first = (at as u64 - e.offset) / 65536 * 65536;
                        let len = 65536.min(e.boards - first);
                        sample.push(start + at as u64 - e.offset);
                        sample.extend((0..8).map(|_| start + first + rng.below(len)));
                    }
                }
                for i in sample {
                    let board = ix.unrank(i);
                    match damaged.probe_board(board) {
                        Ok(v) => assert_eq!(v, Some(truth[i as usize]), "flip at {at}: a wrong value for board {i}"),
                        Err(e) => {
                            assert!(e.to_string().contains("flip.kdb"), "{e}");
                            probe_errors += 1;
                        }
                    }
                }
                let e = damaged.verify(&|_| {}).expect_err("verify passed a damaged file");
                assert!(e.to_string().contains("flip.kdb"), "{e}");
                refused_by_verify += 1;
            }
        }
        bytes[at] ^= 1 << bit;
    }
    eprintln!("flips refused at open: {refused_at_open}, by verify: {refused_by_verify}; probe errors: {probe_errors}");
    assert!(refused_at_open > 0 && refused_by_verify > 0 && probe_errors > 0);
}

#[test]
fn databases_of_other_rules_or_boards_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules { capture: Capture::Empty, ..Rules::default() };
    let path = build(dir.path(), "empty-capture.kdb", 3, rules, 6);
    for h in 1..=kalah_core::MAX_HOUSES {
        for other in Rules::all() {
            match Database::open_for(&path, h, other) {
                Ok(db) => assert!(h == 3 && other == rules, "opened for {h} houses and {other}: {db:?}"),
                Err(e) => {
                    assert!(matches!(e, DbError::WrongRules { .. }), "{e}");
                    let text = e.to_string();
                    assert!(text.contains("empty-capture.kdb"), "{text}");
                    assert!(text.contains(&rules.to_string()) && text.contains(&other.to_string()), "{text}");
                }
            }
        }
    }
}

#[test]
fn things_that_are_not_database_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = fs::read(build(d, "good.kdb", 2, Rules::default(), 4)).unwrap();
    let check = |path: &Path, needle: &str| {
        let e = Database::open(path).unwrap_err().to_string();
        assert!(e.contains(&path.display().to_string()), "the error does not name the file: {e}");
        assert!(e.contains(needle), "{path:?}: expected {needle:?} in {e}");
    };
    fs::write(d.join("zero.kdb"), b"").unwrap();
    check(&d.join("zero.kdb"), "empty");
    check(d, "directory");
    check(&d.join("missing.kdb"), "No such file");
    fs::write(d.join("a-file"), b"x").unwrap();
    check(&d.join("a-file/inside.kdb"), "Not a directory");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(d.join("loop"), d.join("loop")).unwrap();
        check(&d.join("loop"), "symbolic links");
        std::os::unix::fs::symlink(d.join("nowhere"), d.join("dangling.kdb")).unwrap();
        check(&d.join("dangling.kdb"), "No such file");
    }
    // A partial file of an interrupted build.
    let mut h = Header::decode(&good).unwrap();
    h.complete = false;
    h.levels_done = 2;
    for e in h.levels.iter_mut().skip(2) {
        *e = Default::default();
    }
    let mut partial = good.clone();
    partial[..h.bytes() as usize].copy_from_slice(&h.encode());
    fs::write(d.join("partial.kdb"), &partial).unwrap();
    check(&d.join("partial.kdb"), "incomplete database (2 of 5 levels written)");
    // A good file with bytes appended.
    let mut longer = good.clone();
    longer.extend_from_slice(&[0; 4096]);
    fs::write(d.join("longer.kdb"), &longer).unwrap();
    check(&d.join("longer.kdb"), "bytes, but a complete");
    // A file nobody may read (meaningless for root, who reads anything).
    #[cfg(unix)]
    if !is_root() {
        use std::os::unix::fs::PermissionsExt;
        let p = d.join("secret.kdb");
        fs::write(&p, &good).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o000)).unwrap();
        check(&p, "Permission denied");
    }
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

/// A small tmpfs mounted on a temporary directory, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts one of `size` (as `mount -o size=` reads it); `None`, with
    /// the reason printed, where that cannot be done (not root, no mount).
    fn mount(size: &str) -> Option<Tmpfs> {
        if !is_root() {
            return skipped("mounting a small tmpfs needs root".to_string());
        }
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(dir.path()).output();
        match out {
            Ok(o) if o.status.success() => Some(Tmpfs { dir }),
            Ok(o) => skipped(format!("mount -t tmpfs failed: {}", String::from_utf8_lossy(&o.stderr).trim())),
            Err(e) => skipped(format!("cannot run mount: {e}")),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn remount(&self, options: &str) {
        let o = Command::new("mount").args(["-o", &format!("remount,{options}")]).arg(self.path()).output().unwrap();
        assert!(o.status.success(), "remount {options}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(self.dir.path()).status();
    }
}

/// A disk that fills up during a build: an error naming the file and the
/// cause, the complete file of the same name untouched, and a build that
/// finishes once there is room, keeping the levels already written.
#[test]
fn a_full_disk_leaves_the_previous_file_untouched() {
    let Some(disk) = Tmpfs::mount("256k") else {
        return;
    };
    let path = disk.path().join("db.kdb");
    build_file(&path, 3, Rules::default(), 9, &Quiet).unwrap();
    let previous = fs::read(&path).unwrap();

    // Asked first, the disk check refuses with the figures.
    let e = kalah_db::check_resources(&path, 4, 16, Rules::default(), kalah_db::Encoding::Byte).unwrap_err();
    assert!(matches!(e, DbError::TooLarge { .. }), "{e}");
    assert!(e.to_string().contains("disk space") && e.to_string().contains("needs"), "{e}");

    // Not asked, the build runs into the full disk.
    let e = build_file(&path, 4, Rules::default(), 16, &Quiet).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("db.kdb.partial") && text.contains("No space left"), "{text}");
    assert!(fs::read(&path).unwrap() == previous, "the previous file changed");
    Database::open(&path).unwrap().verify(&|_| {}).unwrap();

    // With room again, the build goes on and ends as an uninterrupted one.
    disk.remount("size=4m");
    build_file(&path, 4, Rules::default(), 16, &Quiet).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let reference = build(elsewhere.path(), "db.kdb", 4, Rules::default(), 16);
    assert!(fs::read(&path).unwrap() == fs::read(&reference).unwrap(), "bytes differ after the disk was full");
}

/// A pack that runs out of disk fails naming its partial file, and
/// removes it: a full disk is not left fuller. (Regression: the bad-input
/// sweep of 2026-12-02, RELIABILITY.md.)
#[test]
fn a_pack_onto_a_full_disk_leaves_no_partial_file() {
    let Some(disk) = Tmpfs::mount("64k") else {
        return;
    };
    let elsewhere = tempfile::tempdir().unwrap();
    let db = build(elsewhere.path(), "db.kdb", 4, Rules::default(), 16);
    let archive = disk.path().join("db.kdb.zst");
    let e = kalah_db::pack::pack(&db, &archive, 1, &|_| {}).unwrap_err();
    assert!(e.to_string().contains("db.kdb.zst.partial") && e.to_string().contains("No space left"), "{e}");
    assert!(!archive.exists());
    assert_eq!(fs::read_dir(disk.path()).unwrap().count(), 0, "the partial archive was left");
}

/// A read-only disk: the build fails at once, naming the file, and the
/// complete file already there is untouched. (As a user other than root,
/// a directory without write permission.)
#[test]
fn unwritable_output_leaves_the_previous_file_untouched() {
    let disk = Tmpfs::mount("4m");
    let plain = tempfile::tempdir().unwrap();
    let dir = disk.as_ref().map_or(plain.path(), |d| d.path());
    let path = dir.join("db.kdb");
    build_file(&path, 2, Rules::default(), 6, &Quiet).unwrap();
    let previous = fs::read(&path).unwrap();
    match &disk {
        Some(d) => d.remount("ro"),
        None => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(dir, fs::Permissions::from_mode(0o555)).unwrap();
            }
        }
    }
    let e = build_file(&path, 2, Rules::default(), 8, &Quiet).unwrap_err().to_string();
    assert!(e.contains("db.kdb.partial"), "{e}");
    assert!(e.contains("Read-only file system") || e.contains("Permission denied"), "{e}");
    assert!(fs::read(&path).unwrap() == previous, "the previous file changed");
    assert_eq!(Database::open(&path).unwrap().header().max_seeds, 6);
    if disk.is_none() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
}

/// Many threads probe one memory-mapped file, each block checked the first
/// time any of them touches it, while `verify` runs too: every value is the
/// single-threaded one. A damaged block is refused to every thread alike.
#[test]
fn concurrent_probes_of_one_mapping_agree_with_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "db.kdb", 4, Rules::default(), 14);
    let truth = all_values(&Database::open(&path).unwrap());
    let len = truth.len() as u64;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(8).build().unwrap();

    for round in 0..3u64 {
        // A fresh mapping each round: no block checked yet. A third of the
        // boards each round, scattered, all of them over the rounds.
        let db = Database::open(&path).unwrap();
        pool.install(|| {
            rayon::join(
                || db.verify(&|_| {}).unwrap(),
                || {
                    (0..len / 3).into_par_iter().for_each(|i| {
                        let j = ((3 * i + round) * 7919) % len;
                        let board = db.indexer().unrank(j);
                        let slot = db.slot(board);
                        db.prefetch_slot(slot);
                        assert_eq!(db.probe_board(board).unwrap(), Some(truth[j as usize]), "board {j}");
                        assert_eq!(db.stored(board), Stored::exact(truth[j as usize]), "board {j}");
                        assert_eq!(db.stored_at(board, slot), Stored::exact(truth[j as usize]), "board {j}");
                    })
                },
            )
        });
        assert_eq!(db.failure(), None);
    }

    // One damaged block of the largest level.
    let mut bytes = fs::read(&path).unwrap();
    let level = Header::decode(&bytes).unwrap().levels[14];
    bytes[(level.offset + 65536 + 17) as usize] ^= 0x04;
    let damaged = dir.path().join("damaged.kdb");
    fs::write(&damaged, &bytes).unwrap();
    let db = Database::open(&damaged).unwrap();
    let ix = Indexer::new(4, 14);
    let bad = ix.level_start(14) + 65536..ix.level_start(14) + ix.level_len(14);
    pool.install(|| {
        // Every board outside the damaged block; inside it, every 61st (each
        // refusal hashes the block again).
        (0..len).into_par_iter().filter(|&i| !bad.contains(&i) || i % 61 == 0).for_each(|i| {
            let j = i;
            let board = ix.unrank(j);
            match db.probe_board(board) {
                Ok(v) => {
                    assert!(!bad.contains(&j), "board {j} of the damaged block answered");
                    assert_eq!(v, Some(truth[j as usize]));
                }
                Err(e) => {
                    assert!(bad.contains(&j), "board {j} refused: {e}");
                    assert!(e.to_string().contains("damaged.kdb") && e.to_string().contains("level 14, block 1"), "{e}");
                    assert_eq!(db.stored(board), Stored::exact(0));
                }
            }
        })
    });
    assert!(db.failure().unwrap().contains("level 14, block 1"));
}
