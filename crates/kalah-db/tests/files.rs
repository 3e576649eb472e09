//! Database files: written, read back, damaged on purpose, resumed, packed.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use kalah_core::{Board, Capture, Indexer, Rules};
use kalah_db::format::Header;
use kalah_db::{build_file, BuildProgress, Builder, Database, DbError, Progress, Quiet, Tablebase};
use sha2::{Digest, Sha256};

/// Records what a build reports.
#[derive(Default)]
struct Log(Mutex<Vec<String>>);

impl Progress for Log {
    fn advance(&self, _: u32, _: u64) {}
}

impl BuildProgress for Log {
    fn resumed(&self, levels: u32) {
        self.0.lock().unwrap().push(format!("resumed {levels}"));
    }
    fn level_started(&self, n: u32, _: u64) {
        self.0.lock().unwrap().push(format!("start {n}"));
    }
    fn level_finished(&self, _: u32, _: f64) {}
}

fn build(dir: &Path, name: &str, h: usize, rules: Rules, n: u32) -> PathBuf {
    let path = dir.join(name);
    build_file(&path, h, rules, n, &Log::default()).unwrap();
    path
}

fn sha256(path: &Path) -> String {
    let digest = Sha256::digest(fs::read(path).unwrap());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_built_file_reads_back_every_value() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules { capture: Capture::Empty, ..Rules::default() };
    let path = build(dir.path(), "t.kdb", 3, rules, 10);
    let db = Database::open(&path).unwrap();
    let mut builder = Builder::new(3, rules, 10).unwrap();
    builder.build_all(&Quiet);
    let ix = Indexer::new(3, 10);
    for i in 0..ix.len() {
        let board = ix.unrank(i);
        assert_eq!(db.probe_board(board).unwrap(), Some(builder.value(board)));
        assert_eq!(db.stored(board), kalah_db::Stored::exact(builder.value(board)));
    }
    assert_eq!(db.probe_board(Board::from_sides(&[11, 0, 0], &[0, 0, 0])).unwrap(), None, "beyond the database");
    db.verify(&|_| {}).unwrap();
    assert!(!fs::exists(kalah_db::writer::partial_path(&path)).unwrap(), "the partial file is renamed");
}

/// A position is answered with its stores; one of another board size is
/// refused, never read as a board of the file's (issue 52: a 3-house board
/// on a 4-house file answered +6 where the value is +2).
#[test]
fn a_position_probe_adds_the_stores_and_refuses_another_board_size() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::default();
    let path = build(dir.path(), "t.kdb", 3, rules, 10);
    let db = Database::open(&path).unwrap();
    let position: kalah_core::Position = "1,0,2,4,0,3,1,2 N".parse().unwrap();
    let board = db.probe_board(position.mover_board()).unwrap().unwrap();
    assert_eq!(db.probe_position(&position).unwrap(), Some(position.store_difference() + board));
    let four = build(dir.path(), "f.kdb", 4, rules, 8);
    let four = Database::open(&four).unwrap();
    let three: kalah_core::Position = "1,0,2,0,1,1,0,0 S".parse().unwrap();
    let e = four.probe_position(&three).unwrap_err();
    assert!(matches!(e, kalah_db::DbError::WrongBoard { position_houses: 3, db_houses: 4 }), "{e}");
    // A bare board of more houses than the file's is refused too; one of
    // fewer reads as the file's size with its last houses empty.
    let seeded = Board::from_sides(&[1, 0, 0, 2], &[0, 1, 0, 0]);
    let e = db.probe_board(seeded).unwrap_err();
    assert!(matches!(e, kalah_db::DbError::WrongBoard { position_houses: 4, db_houses: 3 }), "{e}");
    let narrow = Board::from_sides(&[1, 0, 2], &[0, 1, 1]);
    let padded = Board::from_sides(&[1, 0, 2, 0], &[0, 1, 1, 0]);
    assert_eq!(four.probe_board(narrow).unwrap(), four.probe_board(padded).unwrap());
}

#[test]
fn a_tiny_database_has_pinned_bytes() {
    // Any change to these bytes must be deliberate: bump the format version
    // and the pinned hash together (issue "Endgame databases").
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "pinned.kdb", 2, Rules::default(), 8);
    assert_eq!(fs::metadata(&path).unwrap().len(), 4096 * 19);
    assert_eq!(sha256(&path), "0558c25ac3951bf530642a0c500ea11179019144cf673b76d8b8c032245658d5");
}

fn damaged(bytes: &[u8], dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path
}

fn open_error(path: &Path) -> String {
    let err = Database::open(path).unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&path.display().to_string()), "the error names the file: {text}");
    text
}

#[test]
fn damaged_files_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "good.kdb", 3, Rules::default(), 9);
    let good = fs::read(&path).unwrap();
    let header = Header::decode(&good).unwrap();

    // Truncation anywhere: in the header, at every level boundary, inside levels.
    let mut cuts = vec![0usize, 1, 7, 8, 40, 63, 64, 100, 4095];
    for e in &header.levels {
        cuts.extend([e.offset as usize, e.offset as usize + 1, e.sums_offset as usize]);
    }
    cuts.push(good.len() - 1);
    for cut in cuts {
        let p = damaged(&good[..cut], dir.path(), "cut.kdb");
        let e = open_error(&p);
        assert!(e.contains("truncated") || e.contains("empty") || e.contains("magic"), "cut at {cut}: {e}");
    }

    // A flipped bit anywhere in the header.
    for byte in (0..64).chain([64 + 5, 64 + 32 * 3 + 9]) {
        for bit in [0, 3, 7] {
            let mut b = good.clone();
            b[byte] ^= 1 << bit;
            let p = damaged(&b, dir.path(), "flip.kdb");
            let e = Database::open(&p).unwrap_err();
            assert!(
                matches!(e, DbError::Corrupt { .. } | DbError::NotADatabase { .. } | DbError::Version { .. }),
                "header byte {byte} bit {bit}: {e}"
            );
        }
    }

    // A flipped bit in the values: the file opens, the damaged block is refused.
    let level = header.levels[7];
    let mut b = good.clone();
    b[level.offset as usize + 10] ^= 0x10;
    let p = damaged(&b, dir.path(), "values.kdb");
    let db = Database::open(&p).unwrap();
    let board = db.indexer().unrank(db.indexer().level_start(7) + 10);
    let e = db.probe_board(board).unwrap_err().to_string();
    assert!(e.contains("level 7") && e.contains("checksum"), "{e}");
    assert!(db.verify(&|_| {}).is_err());
    assert_eq!(db.failure(), None);
    let _ = db.stored(board);
    assert!(db.failure().unwrap().contains("checksum"), "the search learns of the damage");

    // A flipped bit in a block checksum table.
    let mut b = good.clone();
    b[level.sums_offset as usize] ^= 1;
    let e = open_error(&damaged(&b, dir.path(), "sums.kdb"));
    assert!(e.contains("level 7"), "{e}");

    // Other files.
    let e = open_error(&damaged(b"not a database at all, just text\n", dir.path(), "text.kdb"));
    assert!(e.contains("not a kalah database"), "{e}");
    let e = open_error(&damaged(b"", dir.path(), "empty.kdb"));
    assert!(e.contains("empty"), "{e}");
    let e = open_error(dir.path());
    assert!(e.contains("directory"), "{e}");
    let e = open_error(&dir.path().join("missing.kdb"));
    assert!(e.contains("No such file"), "{e}");
    let mut b = good.clone();
    b[8] = 2;
    let e = open_error(&damaged(&b, dir.path(), "v2.kdb"));
    assert!(e.contains("version 2"), "{e}");
}

#[test]
fn a_database_of_other_rules_or_another_board_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "std.kdb", 3, Rules::default(), 6);
    let empty = Rules { capture: Capture::Empty, ..Rules::default() };
    let e = Database::open_for(&path, 3, empty).unwrap_err();
    assert!(matches!(e, DbError::WrongRules { .. }), "{e}");
    assert!(e.to_string().contains("capture=empty"), "{e}");
    assert!(matches!(Database::open_for(&path, 4, Rules::default()), Err(DbError::WrongRules { .. })));
    assert!(Database::open_for(&path, 3, Rules::default()).is_ok());
}

#[test]
fn an_interrupted_build_resumes_and_ends_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::default();
    let whole = build(dir.path(), "whole.kdb", 3, rules, 11);
    let good = fs::read(&whole).unwrap();
    let header = Header::decode(&good).unwrap();

    for kept in [0u32, 1, 5, 11] {
        // What a build killed while writing level `kept` leaves behind: the
        // levels before it, a header counting them, garbage after.
        let mut h = header.clone();
        h.complete = false;
        h.levels_done = kept;
        for e in h.levels.iter_mut().skip(kept as usize) {
            *e = Default::default();
        }
        let end = if kept == 0 { h.bytes() } else { header.levels[kept as usize].offset } as usize;
        let mut bytes = good[..end].to_vec();
        bytes.extend_from_slice(&[0xAB; 5000]);
        bytes[..h.bytes() as usize].copy_from_slice(&h.encode());
        let target = dir.path().join(format!("resumed{kept}.kdb"));
        fs::write(kalah_db::writer::partial_path(&target), &bytes).unwrap();
        assert!(Database::open(&kalah_db::writer::partial_path(&target)).is_err(), "a partial file is not a database");

        let log = Log::default();
        build_file(&target, 3, rules, 11, &log).unwrap();
        let events = log.0.lock().unwrap().clone();
        if kept > 0 {
            assert_eq!(events[0], format!("resumed {kept}"));
            assert_eq!(events[1], format!("start {kept}"), "finished levels are not built again");
        } else {
            assert_eq!(events[0], "start 0");
        }
        assert!(fs::read(&target).unwrap() == good, "resumed after {kept} levels: bytes differ");
    }
}

#[test]
fn a_damaged_level_in_a_partial_file_is_built_again() {
    let dir = tempfile::tempdir().unwrap();
    let whole = build(dir.path(), "whole.kdb", 2, Rules::default(), 9);
    let good = fs::read(&whole).unwrap();
    let header = Header::decode(&good).unwrap();
    let mut h = header.clone();
    h.complete = false;
    h.levels_done = 8;
    for e in h.levels.iter_mut().skip(8) {
        *e = Default::default();
    }
    let mut bytes = good[..header.levels[8].offset as usize].to_vec();
    bytes[..h.bytes() as usize].copy_from_slice(&h.encode());
    bytes[header.levels[5].offset as usize] ^= 0xff;
    let target = dir.path().join("again.kdb");
    fs::write(kalah_db::writer::partial_path(&target), &bytes).unwrap();
    let log = Log::default();
    build_file(&target, 2, Rules::default(), 9, &log).unwrap();
    assert_eq!(log.0.lock().unwrap()[0], "resumed 5");
    assert!(fs::read(&target).unwrap() == good, "bytes differ");
}

/// A build whose partial file another build holds (its lock) is refused
/// and leaves that file alone; once the other lets go it goes ahead.
/// (Regression: the bad-input sweep of 2026-12-02, RELIABILITY.md.)
#[test]
fn a_build_refuses_a_partial_file_another_build_holds() {
    use fs4::fs_std::FileExt;
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("held.kdb");
    let partial = kalah_db::writer::partial_path(&target);
    fs::write(&partial, b"another build's bytes").unwrap();
    let other = fs::File::open(&partial).unwrap();
    assert!(other.try_lock_exclusive().unwrap(), "the test takes the lock");
    let e = build_file(&target, 2, Rules::default(), 4, &Quiet).unwrap_err();
    assert!(e.to_string().contains("another kalah process is writing"), "{e}");
    assert_eq!(fs::read(&partial).unwrap(), b"another build's bytes");
    assert!(!target.exists());
    drop(other);
    build_file(&target, 2, Rules::default(), 4, &Quiet).unwrap();
    assert!(Database::open(&target).is_ok());
}

#[test]
fn a_database_built_in_memory_saves_to_the_bytes_a_file_build_writes() {
    let dir = tempfile::tempdir().unwrap();
    for (h, rules, n) in [(3, Rules::default(), 9), (4, Rules { capture: Capture::Empty, ..Rules::default() }, 7)] {
        let built = build(dir.path(), &format!("built-{h}.kdb"), h, rules, n);
        let mut builder = Builder::new(h, rules, n).unwrap();
        builder.build_all(&Quiet);
        let saved = dir.path().join(format!("saved-{h}.kdb"));
        let report = kalah_db::save_built(&saved, &mut builder).unwrap();
        assert_eq!(fs::read(&saved).unwrap(), fs::read(&built).unwrap(), "{h} houses, {n} seeds");
        assert_eq!(report.bytes, fs::metadata(&saved).unwrap().len());
        assert!(!kalah_db::writer::partial_path(&saved).exists(), "no partial file is left");
    }
    // A builder with a level left to build is refused, and writes nothing.
    let mut builder = Builder::new(3, Rules::default(), 6).unwrap();
    builder.build_next(&Quiet);
    let target = dir.path().join("unfinished.kdb");
    let e = kalah_db::save_built(&target, &mut builder).unwrap_err();
    assert!(matches!(e, DbError::Incomplete { levels: 1, total: 7, .. }), "{e}");
    assert!(!target.exists() && !kalah_db::writer::partial_path(&target).exists());
}

#[test]
fn pack_and_unpack_restore_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "db.kdb", 4, Rules::default(), 12);
    let archive = dir.path().join("db.kdbz");
    let packed = kalah_db::pack::pack(&path, &archive, 3, &|_| {}).unwrap();
    assert!(packed.archive_bytes < packed.database_bytes / 2, "{packed:?}");
    let restored = dir.path().join("restored.kdb");
    kalah_db::pack::unpack(&archive, &restored, &|_| {}).unwrap();
    assert!(fs::read(&restored).unwrap() == fs::read(&path).unwrap(), "bytes differ");
    let packed_copy = dir.path().join("copy.kdbz");
    fs::copy(&archive, &packed_copy).unwrap();

    // A damaged archive is refused and leaves no database behind.
    let mut bytes = fs::read(&archive).unwrap();
    let last = bytes.len() - 20;
    bytes[last] ^= 0x55;
    fs::write(&archive, &bytes).unwrap();
    let out = dir.path().join("bad.kdb");
    assert!(kalah_db::pack::unpack(&archive, &out, &|_| {}).is_err());
    assert!(!fs::exists(&out).unwrap());
    // A damaged reserved field of the archive header is refused (issue 38).
    let mut reserved = fs::read(&packed_copy).unwrap();
    reserved[13] = 1;
    fs::write(&archive, &reserved).unwrap();
    let e = kalah_db::pack::unpack(&archive, &out, &|_| {}).unwrap_err();
    assert!(e.to_string().contains("bytes 12-15"), "{e}");
    fs::write(&archive, &bytes[..100]).unwrap();
    assert!(kalah_db::pack::unpack(&archive, &out, &|_| {}).unwrap_err().to_string().contains("truncated"));
}

/// A pack or an unpack whose target another writer holds (a build, or a
/// second unpack, with the lock on its partial file) is refused, and takes
/// nothing from it: two writers never mix their bytes under one name.
#[test]
fn a_pack_or_unpack_into_a_file_another_writer_holds_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "db.kdb", 3, Rules::default(), 8);
    let archive = dir.path().join("db.kdbz");
    kalah_db::pack::pack(&path, &archive, 3, &|_| {}).unwrap();
    let packed = fs::read(&archive).unwrap();

    let target = dir.path().join("restored.kdb");
    let mut holder = kalah_db::safe::SafeFile::create(&target).unwrap();
    std::io::Write::write_all(&mut holder, b"the first writer's bytes").unwrap();
    let e = kalah_db::pack::unpack(&archive, &target, &|_| {}).unwrap_err();
    assert!(e.to_string().contains("another kalah process is writing") && e.to_string().contains("restored.kdb.partial"), "{e}");
    assert_eq!(fs::read(holder.path()).unwrap(), b"the first writer's bytes");
    assert!(!target.exists());
    drop(holder);
    kalah_db::pack::unpack(&archive, &target, &|_| {}).unwrap();
    assert!(fs::read(&target).unwrap() == fs::read(&path).unwrap());

    let holder = kalah_db::safe::SafeFile::create(&archive).unwrap();
    let e = kalah_db::pack::pack(&path, &archive, 3, &|_| {}).unwrap_err();
    assert!(e.to_string().contains("another kalah process is writing"), "{e}");
    drop(holder);
    assert_eq!(fs::read(&archive).unwrap(), packed, "the archive is as it was");
}

/// Says to stop from its `after`-th look on (and stays stopped).
struct StopAfter {
    looks: std::sync::atomic::AtomicU64,
    after: u64,
}

impl StopAfter {
    fn new(after: u64) -> StopAfter {
        StopAfter { looks: std::sync::atomic::AtomicU64::new(0), after }
    }
}

impl Progress for StopAfter {
    fn advance(&self, _: u32, _: u64) {}
    fn stopped(&self) -> bool {
        self.looks.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= self.after
    }
}

impl BuildProgress for StopAfter {
    fn resumed(&self, _: u32) {}
    fn level_started(&self, _: u32, _: u64) {}
    fn level_finished(&self, _: u32, _: f64) {}
}

/// A build told to stop partway (`Progress::stopped`) does not count the
/// level it stopped in, and going on from there gives every value of a
/// build never stopped: counter-clockwise (the boards solved kept) and by
/// retrograde analysis (clockwise, relay: the level started over). From
/// issue 52's notes: a cancel flag did not stop retrograde analysis.
#[test]
fn a_stopped_build_goes_on_to_the_same_values() {
    use kalah_core::{Relay, Sowing};
    let (h, n) = (3, 9);
    for rules in [
        Rules::default(),
        Rules { capture: Capture::Empty, ..Rules::default() },
        Rules { sowing: Sowing::Cw, ..Rules::default() },
        Rules { relay: Relay::On, ..Rules::default() },
    ] {
        let mut whole = Builder::new(h, rules, n).unwrap();
        // Every look a whole build takes, counted.
        let counted = StopAfter::new(u64::MAX);
        assert!(whole.build_all(&counted));
        let looks = counted.looks.into_inner();
        assert!(looks > 20, "{rules}: {looks} looks");
        let levels = |b: &mut Builder| (0..=n).map(|k| b.level_bytes(k).to_vec()).collect::<Vec<_>>();
        let expected = levels(&mut whole);
        for after in [0, 1, looks / 5, looks / 2, looks - 3, looks - 1] {
            let mut b = Builder::new(h, rules, n).unwrap();
            let stop = StopAfter::new(after);
            let mut stops = 0;
            while b.levels_done() <= n {
                let before = b.levels_done();
                match b.build_next(&stop) {
                    Some(level) => assert_eq!((level, b.levels_done()), (before, before + 1)),
                    None => {
                        assert_eq!(b.levels_done(), before, "{rules}: a stopped level is not counted");
                        stops += 1;
                        // Go on without stopping, as a resumed build does.
                        assert!(b.build_all(&Quiet));
                    }
                }
            }
            assert_eq!(stops, 1, "{rules}, stopped from look {after}");
            assert_eq!(levels(&mut b), expected, "{rules}, stopped from look {after}");
        }
    }
}

/// A file build told to stop ends with `DbError::Stopped`, naming the
/// levels kept; the same build run again goes on from them and writes the
/// file a build never stopped writes.
#[test]
fn a_stopped_file_build_resumes_to_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules { capture: Capture::Empty, ..Rules::default() };
    let whole = build(dir.path(), "whole.kdb", 3, rules, 9);
    let path = dir.path().join("stopped.kdb");
    let e = build_file(&path, 3, rules, 9, &StopAfter::new(20)).unwrap_err();
    let DbError::Stopped { levels, total, .. } = &e else { panic!("{e}") };
    let (levels, total) = (*levels, *total);
    assert!(levels > 0 && levels < total, "{levels} of {total}");
    assert!(e.to_string().contains(&format!("stopped after {levels} of {total} levels")), "{e}");
    assert!(!path.exists(), "no finished file");
    assert!(kalah_db::writer::partial_path(&path).exists(), "the partial file is kept");
    let report = build_file(&path, 3, rules, 9, &Quiet).unwrap();
    assert_eq!(report.resumed_levels, levels);
    assert_eq!(sha256(&path), sha256(&whole));
}
