//! The fuzz targets on stable Rust, for a bounded time: a stand-in for
//! `cargo fuzz` that the workspace tests run (issue 38).
//!
//! It feeds a target's `check` what libFuzzer would start from: the saved
//! inputs (`fuzz/seeds/<target>/`, `fuzz/regressions/<target>/`), each
//! mutated by a few random edits (bit flips, bytes set to values that matter
//! to the readers, insertions, deletions, repeated runs, cuts, splices with
//! another input), drawn by proptest. There is no coverage guidance, so it
//! finds less than a long `cargo fuzz` run (RELIABILITY.md has those); what
//! it gives is that every CI run puts a few thousand fresh inputs through
//! each reader.
//!
//! Not part of the fuzz crate's library (it needs proptest, which the
//! fuzz crate does not); `crates/kalah-db/tests/faults.rs` and
//! `crates/kalah-cli/tests/bad_input.rs` compile it in by path.
//!
//! * `KALAH_FUZZ_SECONDS` (default 2): how long each target runs.
//! * `KALAH_FUZZ_SEED` (default: from the clock): the random seed, printed
//!   at the start, so a run can be repeated.
//!
//! An input that makes `check` panic is written to
//! `<dir>/<target>-<seed>-<case>` (the `dir` given, a test's temporary
//! directory) and the test fails naming it; copied into
//! `fuzz/regressions/<target>/`, it is replayed by every later test run.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// One edit of an input.
#[derive(Clone, Debug)]
enum Edit {
    /// Flip bit `bit % 8` of byte `at`.
    Flip { at: usize, bit: u8 },
    /// Set byte `at` to one of [`SPECIAL`].
    Special { at: usize, which: usize },
    /// Insert these bytes at `at`.
    Insert { at: usize, bytes: Vec<u8> },
    /// Delete up to `len` bytes from `at`.
    Delete { at: usize, len: usize },
    /// Repeat the `len` bytes from `at` `times` times.
    Repeat { at: usize, len: usize, times: usize },
    /// Cut the input at `at`.
    Cut { at: usize },
    /// Put the bytes of another input (from `from`) over this one at `at`.
    Splice { other: usize, from: usize, at: usize, len: usize },
}

/// Bytes that mean something to one of the readers: separators and sides
/// of the position notation, the NUL that splits arguments, digits, the
/// ends of a byte's range, `UNSOLVED` (0x80).
const SPECIAL: &[u8] = b"\0,- SN0123456789\x7f\x80\xff\x01=";

fn edit() -> impl Strategy<Value = Edit> {
    let at = any::<usize>();
    prop_oneof![
        (at, any::<u8>()).prop_map(|(at, bit)| Edit::Flip { at, bit }),
        (at, any::<usize>()).prop_map(|(at, which)| Edit::Special { at, which }),
        (at, prop::collection::vec(any::<u8>(), 1..8)).prop_map(|(at, bytes)| Edit::Insert { at, bytes }),
        (at, 1..16usize).prop_map(|(at, len)| Edit::Delete { at, len }),
        (at, 1..8usize, 1..64usize).prop_map(|(at, len, times)| Edit::Repeat { at, len, times }),
        at.prop_map(|at| Edit::Cut { at }),
        (any::<usize>(), any::<usize>(), at, 1..64usize).prop_map(|(other, from, at, len)| Edit::Splice { other, from, at, len }),
    ]
}

/// `input` after `edits`; an input never grows past `max_len`.
fn apply(input: &[u8], edits: &[Edit], inputs: &[Vec<u8>], max_len: usize) -> Vec<u8> {
    let mut data = input.to_vec();
    for edit in edits {
        let n = data.len();
        let pos = |at: usize| if n == 0 { 0 } else { at % n };
        match edit {
            Edit::Flip { at, bit } if n > 0 => data[pos(*at)] ^= 1 << (bit % 8),
            Edit::Special { at, which } if n > 0 => data[pos(*at)] = SPECIAL[which % SPECIAL.len()],
            Edit::Insert { at, bytes } => {
                let at = if n == 0 { 0 } else { at % (n + 1) };
                data.splice(at..at, bytes.iter().copied());
            }
            Edit::Delete { at, len } if n > 0 => {
                let at = pos(*at);
                data.drain(at..(at + len).min(n));
            }
            Edit::Repeat { at, len, times } if n > 0 => {
                let at = pos(*at);
                let run = data[at..(at + len).min(n)].to_vec();
                for _ in 0..*times {
                    data.splice(at..at, run.iter().copied());
                }
            }
            Edit::Cut { at } => data.truncate(if n == 0 { 0 } else { at % (n + 1) }),
            Edit::Splice { other, from, at, len } => {
                let source = &inputs[other % inputs.len()];
                if !source.is_empty() {
                    let from = from % source.len();
                    let piece = &source[from..(from + len).min(source.len())];
                    let at = if n == 0 { 0 } else { at % (n + 1) };
                    let end = (at + piece.len()).min(n);
                    data.splice(at..end, piece.iter().copied());
                }
            }
            _ => {}
        }
        data.truncate(max_len);
    }
    data
}

/// Every file of `fuzz/seeds/<target>/` and `fuzz/regressions/<target>/`,
/// with its path: what the stand-in mutates, and what the tests replay.
pub fn saved_inputs(target: &str) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut inputs = Vec::new();
    for dir in ["seeds", "regressions"] {
        let Ok(entries) = fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        inputs.extend(paths.into_iter().map(|p| {
            let bytes = fs::read(&p).unwrap();
            (p, bytes)
        }));
    }
    assert!(!inputs.is_empty(), "no saved inputs for the fuzz target {target} under {}", root.display());
    inputs
}

/// Runs `check` on mutated saved inputs of `target` for
/// `KALAH_FUZZ_SECONDS`; returns how many inputs it tried. A panicking
/// input is saved under `failures` and fails the caller.
pub fn run(target: &str, max_len: usize, failures: &Path, check: fn(&[u8])) -> u64 {
    let inputs: Vec<Vec<u8>> = saved_inputs(target).into_iter().map(|(_, bytes)| bytes).collect();
    let seconds: f64 = std::env::var("KALAH_FUZZ_SECONDS")
        .map_or(2.0, |s| s.parse().unwrap_or_else(|_| panic!("KALAH_FUZZ_SECONDS={s:?} is not a number of seconds")));
    let seed: u64 = std::env::var("KALAH_FUZZ_SEED").map_or_else(
        |_| SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64,
        |s| s.parse().unwrap_or_else(|_| panic!("KALAH_FUZZ_SEED={s:?} is not a number")),
    );
    eprintln!("fuzz stand-in {target}: {} saved inputs, {seconds} s, KALAH_FUZZ_SEED={seed}", inputs.len());
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let case = (0..inputs.len(), prop::collection::vec(edit(), 1..6));
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut tried = 0u64;
    while Instant::now() < deadline {
        let (which, edits) = case.new_tree(&mut runner).expect("a case").current();
        let data = apply(&inputs[which], &edits, &inputs, max_len);
        if catch_unwind(AssertUnwindSafe(|| check(&data))).is_err() {
            fs::create_dir_all(failures).unwrap();
            let path = failures.join(format!("{target}-{seed}-{tried}"));
            fs::write(&path, &data).unwrap();
            panic!(
                "the fuzz target {target} failed on an input saved as {} (KALAH_FUZZ_SEED={seed}); \
                 copy it into fuzz/regressions/{target}/ once fixed",
                path.display()
            );
        }
        tried += 1;
    }
    eprintln!("fuzz stand-in {target}: {tried} inputs, none failed");
    tried
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_stay_within_the_input_and_the_length() {
        let inputs = vec![b"4,4,4,0,4,4,4,0 S".to_vec(), Vec::new()];
        let edits = [
            Edit::Repeat { at: 3, len: 5, times: 60 },
            Edit::Splice { other: 0, from: 99, at: 7, len: 60 },
            Edit::Delete { at: usize::MAX, len: 15 },
        ];
        let out = apply(&inputs[0], &edits, &inputs, 100);
        assert!(out.len() <= 100);
        assert_eq!(apply(&inputs[1], &[Edit::Flip { at: 5, bit: 3 }, Edit::Cut { at: 9 }], &inputs, 10), b"");
        assert_eq!(apply(&inputs[0], &[Edit::Cut { at: 3 }], &inputs, 100), b"4,4");
    }

    #[test]
    fn a_failing_input_is_saved_and_fails_the_run() {
        let dir = std::env::temp_dir().join(format!("kalah-stand-in-{}", std::process::id()));
        let found = catch_unwind(|| run("position", 256, &dir, |data| assert!(data.len() > 1 << 20)));
        let message = *found.expect_err("the run fails").downcast::<String>().unwrap();
        assert!(message.contains("fuzz/regressions/position/"), "{message}");
        let saved: Vec<_> = fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(saved.len(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }
}
