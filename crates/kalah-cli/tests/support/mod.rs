//! Helpers shared by the integration tests (a folder, so that cargo does
//! not build it as a test of its own).

/// The bytes of a database file as an interrupted build leaves them: only
/// the first `levels` levels written, the complete flag not set.
pub fn interrupted(database: &[u8], levels: u32) -> Vec<u8> {
    let mut bytes = database.to_vec();
    let mut header = kalah_db::format::Header::decode(&bytes).expect("a database header");
    header.complete = false;
    header.levels_done = levels;
    for e in header.levels.iter_mut().skip(levels as usize) {
        *e = Default::default();
    }
    let encoded = header.encode();
    bytes[..encoded.len()].copy_from_slice(&encoded);
    bytes
}
