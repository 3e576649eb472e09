//! The checks behind the fuzz targets of `kalah` (`fuzz_targets/`).
//!
//! Each module has one `check(data: &[u8])` that feeds the bytes to one
//! reader of untrusted input and panics only when an invariant breaks (a
//! panic inside the code under test counts too). The same modules are
//! compiled into the workspace tests by path, where they replay every saved
//! input of `fuzz/regressions/<target>/` in a plain `cargo test`:
//!
//! * [`position`]: the position notation (`str::parse::<Position>`), then
//!   round trips and a few plies of play (crates/kalah-cli/tests/bad_input.rs).
//! * [`rule_args`]: the rule, database and search flags as clap parses them,
//!   with the real `RuleArgs` and `DbArgs` of the `kalah` command
//!   (crates/kalah-cli/tests/bad_input.rs).
//! * [`database`]: `Header::decode` and `Database::from_bytes` on arbitrary
//!   bytes, optionally with the checksums repaired so that the reader's
//!   later checks, probes and `verify` are reached too
//!   (crates/kalah-db/tests/faults.rs).
//!
//! `stand_in.rs` (not a module of this crate: it needs proptest) runs the
//! same checks on stable for a bounded time inside those tests.

/// The `kalah` command's shared flags and helpers, compiled in from its
/// source: the command has no library target, and this keeps the fuzzed
/// `RuleArgs`/`DbArgs` the very ones the command uses.
#[allow(dead_code)]
#[path = "../../crates/kalah-cli/src/common.rs"]
pub mod common;

pub mod database;
pub mod position;
pub mod rule_args;
