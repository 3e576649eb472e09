//! Fuzzing the database reader: `Header::decode` and
//! `Database::from_bytes` (the checks of `Database::open` on bytes in
//! memory) fed arbitrary bytes, then probes and `verify` on what opens.
//!
//! The first byte is a mode, the rest the file. Random bytes rarely get
//! past the header checksum, so the mode can repair checksums first:
//! bit 0 recomputes the header checksum, bit 1 recomputes every level's
//! block checksums and level checksum wherever the (possibly damaged)
//! level table points inside the file. A repaired file is one a buggy or
//! hostile writer could produce; the reader must still never panic, never
//! hang, and never answer a value no board can have.
//!
//! Checks:
//! * no panic, anywhere;
//! * an error names the file;
//! * a decoded header encodes back to the very bytes it was read from;
//! * an opened file is complete and exactly as long as its header says;
//! * every probed board gets a value in `-n..=n` (`n` its seeds) that
//!   `Tablebase::value` repeats, or an error naming the file, after which
//!   `value` answers 0 and `failure` reports the damage; boards beyond the
//!   database get `None`; a file that `verify` passes has no probe errors.

use std::path::Path;

use kalah_core::Indexer;
use kalah_db::format::{block_sums, blocks, header_bytes, level_block_sums, level_checksum, Encoding, Header};
use kalah_db::{Database, Stored, Tablebase};
use xxhash_rust::xxh3::xxh3_64;

/// The name the fuzzed bytes go by in errors.
pub const NAME: &str = "fuzzed.kdb";

/// Boards probed at most.
const PROBES: u64 = 2048;

/// See the module docs.
pub fn check(data: &[u8]) {
    let Some((&mode, file)) = data.split_first() else {
        return;
    };
    let mut file = file.to_vec();
    if mode & 2 != 0 {
        repair_levels(&mut file);
    }
    if mode & 1 != 0 {
        repair_header(&mut file);
    }
    check_file(&file);
}

/// The checks on one file's bytes.
pub fn check_file(file: &[u8]) {
    if let Ok(header) = Header::decode(file) {
        let encoded = header.encode();
        let differ = (0..encoded.len()).find(|&i| encoded[i] != file[i]);
        assert_eq!(differ, None, "a decoded header encodes to other bytes (first at offset {differ:?})");
    }
    let path = Path::new(NAME);
    let db = match Database::from_bytes(path, file) {
        Ok(db) => db,
        Err(e) => {
            let message = e.to_string();
            assert!(message.contains(NAME), "the error does not name the file: {message}");
            return;
        }
    };
    let header = db.header().clone();
    assert!(header.complete, "an incomplete file opened");
    assert_eq!(db.file_bytes(), file.len() as u64);
    assert_eq!(db.file_bytes(), header.file_bytes(db.indexer()));
    let ix = db.indexer();
    let step = ix.len().div_ceil(PROBES).max(1);
    let mut damaged = false;
    for i in (0..ix.len()).step_by(step as usize) {
        let board = ix.unrank(i);
        let n = board.total();
        match db.probe_board(board) {
            Ok(Some(v)) => {
                assert!(v.unsigned_abs() <= n, "value {v} for a board of {n} seeds (index {i})");
                assert_eq!(db.stored(board), Stored::exact(v), "probe and stored value differ at index {i}");
            }
            Ok(None) => panic!("no value for covered board {i} ({n} seeds)"),
            Err(e) => {
                assert!(e.to_string().contains(NAME), "{e}");
                assert_eq!(db.stored(board), Stored::exact(0), "a value from a damaged block");
                assert!(db.failure().is_some(), "damage not reported to the search");
                damaged = true;
            }
        }
    }
    let mut mover = vec![0u8; header.houses];
    mover[0] = header.max_seeds as u8 + 1;
    let beyond = kalah_core::Board::from_sides(&mover, &vec![0u8; header.houses]);
    assert_eq!(db.probe_board(beyond).ok().flatten(), None, "a value beyond the database");
    match db.verify(&|_| {}) {
        Ok(()) => assert!(!damaged, "verify passed a file with damaged blocks"),
        Err(e) => assert!(e.to_string().contains(NAME), "{e}"),
    }
}

fn u64_at(file: &[u8], at: usize) -> Option<u64> {
    file.get(at..at.checked_add(8)?).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
}

/// Recomputes every level's block checksums and level checksum where the
/// level table points inside the file.
pub fn repair_levels(file: &mut [u8]) {
    if file.len() < 64 {
        return;
    }
    let max_seeds = file[17] as usize;
    for n in 0..=max_seeds {
        let at = 64 + 32 * n;
        let (Some(offset), Some(boards), Some(sums_offset), Some(_)) =
            (u64_at(file, at), u64_at(file, at + 8), u64_at(file, at + 16), u64_at(file, at + 24))
        else {
            return;
        };
        let len = file.len() as u64;
        // The values' bytes and blocks as the header's encoding lays them out.
        let encoding = Encoding::from_code(file[23]).unwrap_or_default();
        let bytes = boards.checked_mul(encoding.bits(n as u32) as u64).map(|b| b.div_ceil(8));
        let Some(values_end) = bytes.and_then(|b| offset.checked_add(b)).filter(|&e| e <= len) else {
            continue;
        };
        let Some(sums_end) = blocks(boards).checked_mul(8).and_then(|b| sums_offset.checked_add(b)).filter(|&e| e <= len) else {
            continue;
        };
        let sums = level_block_sums(encoding, n as u32, &file[offset as usize..values_end as usize]);
        file[sums_offset as usize..sums_end as usize].copy_from_slice(&sums);
        file[at + 24..at + 32].copy_from_slice(&level_checksum(&sums).to_le_bytes());
    }
}

/// Recomputes the header checksum over the header the file declares.
pub fn repair_header(file: &mut [u8]) {
    if file.len() < 64 {
        return;
    }
    let declared = u32::from_le_bytes(file[12..16].try_into().expect("4 bytes")) as usize;
    let len =
        if declared <= file.len() { declared } else { header_bytes(file[17] as u32, Encoding::from_code(file[23]).unwrap_or_default()) as usize };
    if len < 64 || len > file.len() {
        return;
    }
    file[48..56].fill(0);
    let sum = xxh3_64(&file[..len]);
    file[48..56].copy_from_slice(&sum.to_le_bytes());
}

/// A small real database, for seeds and tests: `h` houses, up to `n` seeds.
pub fn sample(h: usize, rules: kalah_core::Rules, n: u32) -> Vec<u8> {
    let mut builder = kalah_db::Builder::new(h, rules, n).expect("a small database");
    builder.build_all(&kalah_db::Quiet);
    let ix = Indexer::new(h, n);
    let mut header = Header::new(h, n, rules);
    let mut file = vec![0u8; header.file_bytes(&ix) as usize];
    for k in 0..=n {
        let mut e = header.layout(&ix, k);
        let values = builder.level_bytes(k);
        file[e.offset as usize..(e.offset + e.boards) as usize].copy_from_slice(values);
        let sums = block_sums(values);
        file[e.sums_offset as usize..e.sums_offset as usize + sums.len()].copy_from_slice(&sums);
        e.checksum = level_checksum(&sums);
        header.levels[k as usize] = e;
    }
    header.levels_done = n + 1;
    header.complete = true;
    let encoded = header.encode();
    file[..encoded.len()].copy_from_slice(&encoded);
    file
}
