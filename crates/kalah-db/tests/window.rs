//! Window encodings (issue 63): a value in 3 or 4 bits a board, a window of
//! values a level and mover's seeds, and a proven bound for a value outside
//! it. On every board of small sizes and every rule set, what such a file
//! stores holds the reference solver's value (the value itself inside the
//! window) and agrees with the byte file; damage is found; the bytes are
//! pinned.

use std::fs;
use std::path::{Path, PathBuf};

use kalah_core::{Board, Capture, Rules, Sowing};
use kalah_db::format::{Encoding, Header, Window};
use kalah_db::writer::reencode;
use kalah_db::{build_file_encoded, Database, DbError, Quiet, Stored, Tablebase};

fn build(dir: &Path, name: &str, h: usize, rules: Rules, n: u32, encoding: Encoding) -> PathBuf {
    let path = dir.join(name);
    build_file_encoded(&path, h, rules, n, encoding, &Quiet).unwrap();
    path
}

/// Every board: the window file's bounds hold the reference value, the
/// value itself where the byte file's value lies in its window; every way
/// of reading agrees; some values are bounds and most are exact.
#[test]
fn a_window_file_holds_the_reference_values_or_bounds_on_them_under_every_rule_set() {
    let dir = tempfile::tempdir().unwrap();
    for (r, rules) in Rules::all().enumerate() {
        // Enough seeds that 14 values do not hold every value of the top levels.
        let (h, n) = if rules.sowing == Sowing::Cw { (2, 16) } else { (3, 18) };
        let reference = kalah_reference::board_values(h, &rules, n);
        let byte = Database::open(&build(dir.path(), &format!("byte{r}.kdb"), h, rules, n, Encoding::Byte)).unwrap();
        for bits in [3, 4] {
            let encoding = Encoding::window(bits).unwrap();
            let path = dir.path().join(format!("w{bits}-{r}.kdb"));
            reencode(&byte, &path, encoding, &|_| {}).unwrap();
            let db = Database::open(&path).unwrap();
            db.verify(&|_| {}).unwrap();
            assert_eq!(db.header().encoding, encoding);
            assert!(!db.is_exact() && !Tablebase::is_exact(&db));
            let (mut exact, mut bounds) = (0u64, 0u64);
            for ((mover, opponent), &value) in &reference {
                let board = Board::from_sides(mover, opponent);
                let stored = db.probe_stored(board).unwrap().unwrap();
                assert!(stored.lower <= value && value <= stored.upper, "{rules} {bits} bits {board:?}: {value} outside {stored:?}");
                let seeds = board.total() as i32;
                assert!(-seeds <= stored.lower && stored.upper <= seeds);
                let window = db.header().windows_of(board.total())[board.mover_seeds() as usize];
                // Inside the window the value; below it everything up to the
                // window, above it everything from it (exact only at an end).
                let want = if value < window.low {
                    Stored { lower: -seeds, upper: window.low - window.step }
                } else if value > window.high() {
                    Stored { lower: window.high() + window.step, upper: seeds }
                } else {
                    Stored::exact(value)
                };
                assert_eq!(stored, want, "{rules} {bits} bits {board:?}: {value} in {window:?}");
                assert_eq!(db.stored(board), stored);
                assert_eq!(db.stored_at(board, db.slot(board)), stored);
                assert_eq!(db.exact_value(board), stored.value());
                assert_eq!(byte.probe_board(board).unwrap(), Some(value));
                match db.probe_board(board) {
                    Ok(v) => assert_eq!(v, Some(value)),
                    Err(DbError::OnlyBounds { lower, upper, .. }) => assert_eq!(Stored { lower, upper }, stored),
                    Err(e) => panic!("{e}"),
                }
                if stored.is_exact() {
                    exact += 1;
                } else {
                    bounds += 1;
                }
            }
            assert!(bounds > 0, "{rules}, {bits} bits: some values lie outside their windows");
            // Under the published games' rules (counter-clockwise, values
            // with the seeds' parity) values lie mostly in their windows.
            let published = rules.values_have_seed_parity() && rules.relay == kalah_core::Relay::Off;
            let most = if published { 2 * bounds } else { bounds / 2 };
            assert!(exact > most, "{rules}, {bits} bits: {exact} exact, {bounds} bounds");
            assert_eq!(db.failure(), None);
        }
    }
}

/// A window file refuses to be read as exact values, or written again;
/// its windows are where they hold the most.
#[test]
fn a_window_file_is_not_read_as_exact_values() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules { capture: Capture::Empty, ..Rules::default() };
    let byte = Database::open(&build(dir.path(), "byte.kdb", 4, rules, 12, Encoding::Byte)).unwrap();
    let path = dir.path().join("w3.kdb");
    reencode(&byte, &path, Encoding::Window(3), &|_| {}).unwrap();
    let db = Database::open(&path).unwrap();
    assert!(matches!(db.level_values(12, 0..10), Err(DbError::Unsupported(_))));
    assert!(db.boards_of(3).is_err());
    let e = reencode(&db, &dir.path().join("again.kdb"), Encoding::Byte, &|_| {}).unwrap_err();
    assert!(e.to_string().contains("window"), "{e}");
    // Each window holds the most boards of its level and mover's seeds.
    let ix = byte.indexer();
    for n in [8, 12] {
        for (m, window) in db.header().windows_of(n).into_iter().enumerate() {
            let start = ix.block_start(n, m as u32);
            let end = if m as u32 == n { ix.level_len(n) } else { ix.block_start(n, m as u32 + 1) };
            let values = byte.level_values(n, start..end).unwrap();
            let held = |w: &Window| values.iter().filter(|&&v| (w.low..=w.high()).contains(&(v as i32))).count();
            let mut low = -(n as i32);
            while low + 2 * (window.count - 1) <= n as i32 {
                assert!(held(&Window::new(3, n, 2, low)) <= held(&window), "level {n}, m {m}: a window from {low} holds more");
                low += 2;
            }
        }
    }
}

/// A window file built directly is the byte file written again in the
/// window, and its exact file (built first, resumable) is gone once it is
/// complete; a complete exact file left by a stopped build is used.
#[test]
fn a_window_build_writes_the_window_of_the_exact_file_and_removes_it() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::default();
    let byte = Database::open(&build(dir.path(), "byte.kdb", 4, rules, 12, Encoding::Byte)).unwrap();
    let repacked = dir.path().join("repacked.kdb");
    reencode(&byte, &repacked, Encoding::Window(3), &|_| {}).unwrap();
    let built = build(dir.path(), "built.kdb", 4, rules, 12, Encoding::Window(3));
    assert!(fs::read(&built).unwrap() == fs::read(&repacked).unwrap());
    assert!(!kalah_db::build::exact_path(&built).exists());
    // The exact file of a build stopped after it: taken as it is.
    let again = dir.path().join("again.kdb");
    let exact = kalah_db::build::exact_path(&again);
    build_file_encoded(&exact, 4, rules, 12, Encoding::Share, &Quiet).unwrap();
    let report = build_file_encoded(&again, 4, rules, 12, Encoding::Window(3), &Quiet).unwrap();
    assert_eq!(report.resumed_levels, 13);
    assert!(fs::read(&again).unwrap() == fs::read(&repacked).unwrap() && !exact.exists());
}

/// A window that no writer would write, a code its window cannot hold, and
/// a flipped byte are each refused.
#[test]
fn damaged_window_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let byte = Database::open(&build(dir.path(), "byte.kdb", 3, Rules::default(), 12, Encoding::Byte)).unwrap();
    let path = dir.path().join("w4.kdb");
    reencode(&byte, &path, Encoding::Window(4), &|_| {}).unwrap();
    let good = fs::read(&path).unwrap();
    let header = Header::decode(&good).unwrap();

    // A window starting off the values' parity.
    let mut h = header.clone();
    let at = kalah_db::format::window_index(12) + 5;
    h.windows[at] += 1;
    let mut bytes = good.clone();
    bytes[..h.bytes() as usize].copy_from_slice(&h.encode());
    let e = Database::from_bytes(Path::new("odd.kdb"), &bytes).unwrap_err().to_string();
    assert!(e.contains("level 12: the window of 5 seeds to move"), "{e}");

    // A code of 15 (above) in a window that ends at n: level 1's windows
    // hold every value, so no code above them can be.
    let level = header.levels[1];
    let mut bytes = good.clone();
    bytes[level.offset as usize] |= 0x0f;
    let end = level.offset + header.value_bytes(1, &level);
    let sums = kalah_db::format::level_block_sums(Encoding::Window(4), 1, &bytes[level.offset as usize..end as usize]);
    bytes[level.sums_offset as usize..level.sums_offset as usize + 8].copy_from_slice(&sums[..8]);
    let mut h = header.clone();
    h.levels[1].checksum = kalah_db::format::level_checksum(&sums[..8]);
    bytes[..h.bytes() as usize].copy_from_slice(&h.encode());
    let db = Database::from_bytes(Path::new("code.kdb"), &bytes).unwrap();
    let e = db.verify(&|_| {}).unwrap_err().to_string();
    assert!(e.contains("level 1, block 0") && e.contains("window"), "{e}");

    // A flipped bit in the last level.
    let mut bytes = good.clone();
    bytes[header.levels[12].offset as usize + 100] ^= 0x10;
    let db = Database::from_bytes(Path::new("flip.kdb"), &bytes).unwrap();
    assert!(db.verify(&|_| {}).unwrap_err().to_string().contains("level 12"));
}

/// The exact bytes of a small window file, so that a change to them is
/// deliberate (as the other encodings' are pinned in `packed.rs`).
#[test]
fn window_files_have_pinned_bytes() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let byte = Database::open(&build(dir.path(), "byte.kdb", 3, Rules::default(), 8, Encoding::Byte)).unwrap();
    let mut sums = Vec::new();
    for bits in [3, 4] {
        let path = dir.path().join(format!("w{bits}.kdb"));
        reencode(&byte, &path, Encoding::Window(bits), &|_| {}).unwrap();
        let digest = Sha256::digest(fs::read(&path).unwrap());
        sums.push(digest.iter().map(|b| format!("{b:02x}")).collect::<String>());
    }
    assert_eq!(
        sums,
        ["4aef2d81540a7044ec77c7c425de028d1d021cbf40d80e016b5aec2c7c0c7814", "0d38cb4a5b77cf5fb92d7b77f044743c956830bb70ac2e8d2f77b11eeb6c32dd"],
        "window files' bytes changed"
    );
}
