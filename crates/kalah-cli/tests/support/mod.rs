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

/// A small generator (splitmix64) for random kill times and the like; the
/// tests print its seed, so a run can be repeated.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}
