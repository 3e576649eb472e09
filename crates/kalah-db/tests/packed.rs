//! Packed database files (issue 51): the values of a byte-a-board file in
//! the bits each level needs, the same values for every rule set, written
//! again either way byte for byte, resumed, archived, and their damage
//! found.

use std::fs;
use std::path::{Path, PathBuf};

use kalah_core::{Capture, End, Leftovers, Relay, Rules, Sowing};
use kalah_db::format::{Encoding, Header};
use kalah_db::{build_file, build_file_encoded, Database, Quiet, Stored, Tablebase};

fn build(dir: &Path, name: &str, h: usize, rules: Rules, n: u32, encoding: Encoding) -> PathBuf {
    let path = dir.join(name);
    build_file_encoded(&path, h, rules, n, encoding, &Quiet).unwrap();
    path
}

/// Every rule set with a choice in each option: both encodings of packed
/// values are met (clockwise and unscored leftovers break the seeds' parity).
fn rule_sets() -> Vec<Rules> {
    let mut all = Vec::new();
    for &capture in Capture::ALL {
        for &end in End::ALL {
            for &leftovers in Leftovers::ALL {
                for &sowing in Sowing::ALL {
                    for &relay in Relay::ALL {
                        all.push(Rules { capture, end, leftovers, sowing, relay });
                    }
                }
            }
        }
    }
    all
}

/// Every board of a packed file reads the value of the byte file, for
/// every rule set, through every way a value is read; the packed file is
/// smaller and says its encoding.
#[test]
fn a_packed_file_holds_the_values_of_the_byte_file_under_every_rule_set() {
    let dir = tempfile::tempdir().unwrap();
    let mut encodings = std::collections::HashSet::new();
    for (r, rules) in rule_sets().into_iter().enumerate() {
        let (h, n) = if rules.sowing == Sowing::Cw { (2, 7) } else { (3, 9) };
        let byte = Database::open(&build(dir.path(), &format!("byte{r}.kdb"), h, rules, n, Encoding::Byte)).unwrap();
        let encoding = Encoding::packed_for(rules);
        encodings.insert(encoding);
        let packed = Database::open(&build(dir.path(), &format!("packed{r}.kdb"), h, rules, n, encoding)).unwrap();
        assert_eq!(packed.header().encoding, encoding);
        assert!(packed.file_bytes() <= byte.file_bytes(), "{rules}");
        packed.verify(&|_| {}).unwrap();
        for seeds in 0..=n {
            let boards = byte.indexer().level_len(seeds);
            assert_eq!(packed.level_values(seeds, 0..boards).unwrap(), byte.level_values(seeds, 0..boards).unwrap(), "{rules}, level {seeds}");
            for (a, b) in packed.boards_of(seeds).unwrap().zip(byte.boards_of(seeds).unwrap()) {
                let (board, value) = a.unwrap();
                assert_eq!((board, value), b.unwrap(), "{rules}");
                assert_eq!(packed.stored(board), Stored::exact(value));
                assert_eq!(packed.stored_at(board, packed.slot(board)), Stored::exact(value));
                assert_eq!(packed.probe_board(board).unwrap(), Some(value));
            }
        }
        assert_eq!(packed.failure(), None);
    }
    assert_eq!(encodings.len(), 2, "both packed encodings met");
}

/// Written again packed, a byte file is the file a packed build writes,
/// and written again a byte a board it is the byte file it came from;
/// in place, the file is replaced only once the new one is whole.
#[test]
fn repacking_either_way_gives_the_file_a_build_writes() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules { capture: Capture::Empty, ..Rules::default() };
    let byte = build(dir.path(), "byte.kdb", 4, rules, 12, Encoding::Byte);
    let packed = build(dir.path(), "packed.kdb", 4, rules, 12, Encoding::Share);
    let repacked = dir.path().join("repacked.kdb");
    let report = kalah_db::writer::reencode(&Database::open(&byte).unwrap(), &repacked, Encoding::Share, &|_| {}).unwrap();
    assert_eq!(report.bytes, fs::metadata(&packed).unwrap().len());
    assert!(fs::read(&repacked).unwrap() == fs::read(&packed).unwrap(), "repacked differs from a packed build");
    let back = dir.path().join("back.kdb");
    kalah_db::writer::reencode(&Database::open(&repacked).unwrap(), &back, Encoding::Byte, &|_| {}).unwrap();
    assert!(fs::read(&back).unwrap() == fs::read(&byte).unwrap(), "unpacked again differs from the byte build");

    // In place: the old file is mapped while the new one is written.
    let in_place = dir.path().join("in-place.kdb");
    fs::copy(&byte, &in_place).unwrap();
    let old = Database::open(&in_place).unwrap();
    kalah_db::writer::reencode(&old, &in_place, Encoding::Share, &|_| {}).unwrap();
    assert!(fs::read(&in_place).unwrap() == fs::read(&packed).unwrap());
    assert!(!kalah_db::writer::partial_path(&in_place).exists());
    // A damaged source is refused before anything is written.
    let mut bytes = fs::read(&byte).unwrap();
    let e = Header::decode(&bytes).unwrap().levels[10];
    bytes[e.offset as usize + 5] ^= 0x04;
    let damaged = dir.path().join("damaged.kdb");
    fs::write(&damaged, &bytes).unwrap();
    let target = dir.path().join("never.kdb");
    let err = kalah_db::writer::reencode(&Database::open(&damaged).unwrap(), &target, Encoding::Share, &|_| {}).unwrap_err();
    assert!(err.to_string().contains("level 10"), "{err}");
    assert!(!target.exists() && !kalah_db::writer::partial_path(&target).exists());
}

/// A packed build killed after some levels resumes to the same bytes; a
/// partial file of the other encoding is started over.
#[test]
fn an_interrupted_packed_build_resumes_and_ends_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::default();
    let whole = build(dir.path(), "whole.kdb", 3, rules, 11, Encoding::Share);
    let good = fs::read(&whole).unwrap();
    let header = Header::decode(&good).unwrap();
    for kept in [1u32, 6, 11] {
        let mut h = header.clone();
        h.complete = false;
        h.levels_done = kept;
        for e in h.levels.iter_mut().skip(kept as usize) {
            *e = Default::default();
        }
        let mut bytes = good[..header.levels[kept as usize].offset as usize].to_vec();
        bytes.extend_from_slice(&[0xAB; 3000]);
        bytes[..h.bytes() as usize].copy_from_slice(&h.encode());
        let target = dir.path().join(format!("resumed{kept}.kdb"));
        fs::write(kalah_db::writer::partial_path(&target), &bytes).unwrap();
        build_file_encoded(&target, 3, rules, 11, Encoding::Share, &Quiet).unwrap();
        assert!(fs::read(&target).unwrap() == good, "resumed after {kept} levels: bytes differ");
        // The same partial file, finished a byte a board: started over.
        let other = dir.path().join(format!("other{kept}.kdb"));
        fs::write(kalah_db::writer::partial_path(&other), &bytes).unwrap();
        build_file(&other, 3, rules, 11, &Quiet).unwrap();
        assert_eq!(Database::open(&other).unwrap().header().encoding, Encoding::Byte);
        assert_eq!(
            Database::open(&other).unwrap().level_values(11, 0..100).unwrap(),
            Database::open(&whole).unwrap().level_values(11, 0..100).unwrap()
        );
    }
}

/// An archive of a packed file unpacks to its bytes.
#[test]
fn a_packed_file_packs_and_unpacks_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "db.kdb", 4, Rules::default(), 12, Encoding::Share);
    let archive = dir.path().join("db.kdb.zst");
    kalah_db::pack::pack(&path, &archive, 3, &|_| {}).unwrap();
    let restored = dir.path().join("restored.kdb");
    kalah_db::pack::unpack(&archive, &restored, &|_| {}).unwrap();
    assert!(fs::read(&restored).unwrap() == fs::read(&path).unwrap(), "bytes differ");
}

/// A flipped bit of a packed level is found by its block's checksum; a
/// code above its level's largest, or a set bit after a level's last code,
/// is found even with the checksums forged to match.
#[test]
fn damage_to_packed_values_is_found() {
    use xxhash_rust::xxh3::xxh3_64;
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "db.kdb", 3, Rules::default(), 10, Encoding::Share);
    let good = fs::read(&path).unwrap();
    let header = Header::decode(&good).unwrap();
    let probe_all = |bytes: &[u8]| -> Result<(), String> {
        let db = Database::from_bytes(Path::new("t.kdb"), bytes).map_err(|e| e.to_string())?;
        db.verify(&|_| {}).map_err(|e| e.to_string())
    };
    probe_all(&good).unwrap();

    let e = header.levels[10];
    let mut flipped = good.clone();
    flipped[e.offset as usize + 17] ^= 0x10;
    let why = probe_all(&flipped).unwrap_err();
    assert!(why.contains("level 10, block 0: checksum does not match"), "{why}");

    // Levels 9 and 10 take 4 bits a board, codes 0..=9 and 0..=10: a 15
    // written at level 9's start, and a bit set after level 10's last
    // code (3,003 boards, half a byte left), each with its checksums forged.
    for (n, end, byte) in [(9usize, false, 0x0Fu8), (10, true, 0x80)] {
        let e = header.levels[n];
        let value_bytes = header.value_bytes(n as u32, &e) as usize;
        let at = e.offset as usize + if end { value_bytes - 1 } else { 0 };
        let mut forged = good.clone();
        forged[at] |= byte;
        let values = &forged[e.offset as usize..e.offset as usize + value_bytes];
        let sum = xxh3_64(values);
        let sums = e.sums_offset as usize;
        forged[sums..sums + 8].copy_from_slice(&sum.to_le_bytes());
        let mut h = header.clone();
        h.levels[n].checksum = xxh3_64(&forged[sums..sums + 8]);
        forged[..h.bytes() as usize].copy_from_slice(&h.encode());
        let why = probe_all(&forged).unwrap_err();
        assert!(why.contains(&format!("level {n}, block 0")) && why.contains("code above its largest"), "{why}");
    }
}

/// The mover's share cannot hold values of rules without the seeds'
/// parity: refused before a build or a repack starts, and in a header.
#[test]
fn the_share_encoding_is_refused_for_rules_it_cannot_hold() {
    let dir = tempfile::tempdir().unwrap();
    let cw = Rules { sowing: Sowing::Cw, ..Rules::default() };
    let target = dir.path().join("cw.kdb");
    let e = build_file_encoded(&target, 2, cw, 5, Encoding::Share, &Quiet).unwrap_err();
    assert!(e.to_string().contains("use the offset encoding"), "{e}");
    assert!(!target.exists() && !kalah_db::writer::partial_path(&target).exists());
    let byte = build(dir.path(), "cw-byte.kdb", 2, cw, 5, Encoding::Byte);
    let e = kalah_db::writer::reencode(&Database::open(&byte).unwrap(), &target, Encoding::Share, &|_| {}).unwrap_err();
    assert!(e.to_string().contains("parity"), "{e}");
    let mut header = Header::encoded(2, 5, cw, Encoding::Offset).encode();
    header[23] = Encoding::Share.code();
    header[48..56].fill(0);
    let sum = xxhash_rust::xxh3::xxh3_64(&header);
    header[48..56].copy_from_slice(&sum.to_le_bytes());
    let e = Header::decode(&header).unwrap_err();
    assert!(format!("{e:?}").contains("cannot hold the values"), "{e:?}");
}

/// The packed encodings' bytes are pinned as the byte file's are
/// (`files.rs`): any change to them must be deliberate (STYLE.md).
#[test]
fn tiny_packed_databases_have_pinned_bytes() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let cw = Rules { sowing: Sowing::Cw, ..Rules::default() };
    for (name, rules, encoding, hash) in [
        ("share.kdb", Rules::default(), Encoding::Share, "624c22e7dd49cccc119f3c35bc883aae80d91bbb7e2e9bc2b62fcc8b485fe3e9"),
        ("offset.kdb", cw, Encoding::Offset, "bae196a2304771f36812b197d9c80b46369c04f6ee6ada69b4fa739de2ed7e63"),
    ] {
        let path = build(dir.path(), name, 2, rules, 8, encoding);
        let digest = Sha256::digest(fs::read(&path).unwrap());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, hash, "{name}");
    }
}
