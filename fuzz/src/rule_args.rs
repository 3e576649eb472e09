//! Fuzzing the command-line flags: an argument vector parsed by clap with
//! the `kalah` command's own `RuleArgs` and `DbArgs`, as `kalah solve` has
//! them.
//!
//! The input is split at NUL bytes into arguments, each taken as raw bytes
//! (not necessarily UTF-8, as on a Unix command line). The `kalah` command
//! has no library target, so its `Cli` cannot be named here; [`Args`]
//! rebuilds `kalah solve`'s flags around the real `RuleArgs`, `DbArgs`
//! and `SearchArgs` (compiled in from `crates/kalah-cli/src/common.rs`),
//! and mirrors the positional `H S`.
//!
//! Checks: clap answers `Ok` or an error whose message renders and says
//! something; parsed rule options print and parse back to themselves (each
//! `FromStr` of `kalah_core::rules` too); a parsed `--position` goes through
//! the command's `parse_position`, `H S` through `start_position`, whose
//! errors are user errors (exit code 2) on one line.

use std::ffi::OsString;

use clap::Parser;
use kalah_core::{Capture, End, Leftovers, Relay, Sowing};

use crate::common::{exit_code, parse_position, rules_json, start_position, DbArgs, RuleArgs, SearchArgs};

/// `kalah solve`'s flags (see the module docs).
#[derive(Parser, Debug)]
#[command(name = "kalah-solve", no_binary_name = true)]
pub struct Args {
    /// Houses a side.
    #[arg(value_name = "H")]
    pub houses: Option<usize>,
    /// Seeds per house.
    #[arg(value_name = "S")]
    pub seeds: Option<u32>,
    /// A position.
    #[arg(long, value_name = "P", conflicts_with_all = ["houses", "seeds"])]
    pub position: Option<String>,
    /// The rule options.
    #[command(flatten)]
    pub rules: RuleArgs,
    /// The database.
    #[command(flatten)]
    pub db: DbArgs,
    /// The search flags.
    #[command(flatten)]
    pub search: SearchArgs,
    /// JSON output.
    #[arg(long)]
    pub json: bool,
}

/// Splits the input into arguments at NUL bytes.
pub fn arguments(data: &[u8]) -> Vec<OsString> {
    if data.is_empty() {
        return Vec::new();
    }
    data.split(|&b| b == 0).map(os_string).collect()
}

#[cfg(unix)]
fn os_string(bytes: &[u8]) -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(bytes.to_vec())
}

#[cfg(not(unix))]
fn os_string(bytes: &[u8]) -> OsString {
    String::from_utf8_lossy(bytes).into_owned().into()
}

/// See the module docs.
pub fn check(data: &[u8]) {
    // Every rule option's `FromStr` on the raw text of each argument.
    for arg in data.split(|&b| b == 0) {
        let text = String::from_utf8_lossy(arg);
        check_option::<Capture>(&text);
        check_option::<End>(&text);
        check_option::<Leftovers>(&text);
        check_option::<Sowing>(&text);
        check_option::<Relay>(&text);
    }
    let args = match Args::try_parse_from(arguments(data)) {
        Ok(args) => args,
        Err(e) => {
            let message = e.render().to_string();
            assert!(!message.trim().is_empty(), "clap error {:?} with no message", e.kind());
            return;
        }
    };
    let rules = args.rules.rules();
    // Printed as `capture=X end=Y ...`, every value parses back.
    for part in rules.to_string().split(' ') {
        let (flag, value) = part.split_once('=').expect("flag=value");
        match flag {
            "capture" => assert_eq!(value.parse::<Capture>(), Ok(rules.capture)),
            "end" => assert_eq!(value.parse::<End>(), Ok(rules.end)),
            "leftovers" => assert_eq!(value.parse::<Leftovers>(), Ok(rules.leftovers)),
            "sowing" => assert_eq!(value.parse::<Sowing>(), Ok(rules.sowing)),
            "relay" => assert_eq!(value.parse::<Relay>(), Ok(rules.relay)),
            other => panic!("unknown rule {other} in {rules}"),
        }
    }
    let _ = rules_json(rules);
    assert!(!(args.db.no_db && args.db.db.is_some()), "--db and --no-db together were accepted");
    if let Some(text) = &args.position {
        if let Err(e) = parse_position(text) {
            check_user_error(&e);
        }
    }
    if let (Some(h), Some(s)) = (args.houses, args.seeds) {
        if let Err(e) = start_position(h, s) {
            check_user_error(&e);
        }
    }
}

/// A rule option's `FromStr`: a name it accepts prints back to the same
/// name (case aside); an error names the option, the value and what is accepted.
fn check_option<T>(text: &str)
where
    T: std::str::FromStr<Err = kalah_core::RuleError> + std::fmt::Display + PartialEq + std::fmt::Debug,
{
    match text.parse::<T>() {
        Ok(v) => {
            assert!(v.to_string().eq_ignore_ascii_case(text.trim()), "{text:?} parsed as {v}");
            assert_eq!(v.to_string().parse::<T>(), Ok(v));
        }
        Err(e) => {
            let message = e.to_string();
            assert!(message.contains("expected one of"), "{message}");
        }
    }
}

/// What the command prints for it: a user error (exit 2), non-empty.
fn check_user_error(e: &anyhow::Error) {
    assert_eq!(exit_code(e), 2, "not a user error: {e}");
    let line = e.to_string().replace('\n', " ");
    assert!(line.len() > 10, "an error that says nothing: {line:?}");
}
