//! End-to-end tests of the `kalah` command line: the product's contract.
//!
//! - Every command that answers with values takes `--json` and then prints
//!   exactly one JSON object on stdout.
//! - Exit code 0 on success, 2 for bad input or a refused request, 1 for an
//!   internal failure. A bad input prints exactly one line on stderr that
//!   starts with `kalah: ` (clap usage errors print clap's own message),
//!   and never a panic.
//!
//! Every invocation runs with `KALAH_DB_DIR` pointing into a fresh temporary
//! directory (and with that directory as its working directory), so no
//! database of the developer's `data/db` is ever picked up. Boards are
//! small (at most 24 seeds) and searches use a 16 MiB transposition table.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

#[allow(dead_code)] // each test binary uses part of it
mod support;

const BIN: &str = env!("CARGO_BIN_EXE_kalah");

/// No run of the binary in these tests should take more than a second or
/// two; a hung process is killed after this long.
const TIME_LIMIT: Duration = Duration::from_secs(15);

/// Search resources for every `solve` and `query`: small and gentle.
const SEARCH: [&str; 4] = ["--tt-mb", "16", "--threads", "1"];

/// The outcome of one run of the binary.
#[derive(Debug)]
struct Run {
    cmd: String,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn describe(&self) -> String {
        format!("command: {}\nexit code: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}", self.cmd, self.code, self.stdout, self.stderr)
    }

    fn assert_no_panic(&self) {
        assert!(!self.stderr.contains("panicked") && !self.stdout.contains("panicked"), "the program panicked\n{}", self.describe());
    }
}

/// A scratch area: `root/db` is `$KALAH_DB_DIR`, `root/work` holds files.
struct Sandbox {
    root: TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let root = tempfile::Builder::new().prefix("kalah-cli-test").tempdir().expect("temp dir");
        fs::create_dir_all(root.path().join("db")).expect("db dir");
        fs::create_dir_all(root.path().join("work")).expect("work dir");
        Sandbox { root }
    }

    fn db_dir(&self) -> PathBuf {
        self.root.path().join("db")
    }

    /// A path under the work directory, as a string for the command line.
    fn file(&self, name: &str) -> String {
        self.root.path().join("work").join(name).to_string_lossy().into_owned()
    }

    /// `kalah ARGS` in the sandbox (its database folder, its work
    /// directory as the current one), nothing on stdin.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(BIN);
        command.args(args).env("KALAH_DB_DIR", self.db_dir()).current_dir(self.root.path().join("work")).stdin(Stdio::null());
        command
    }

    /// Runs the binary with a time limit: a run that outlives it is killed
    /// and reported (exit code None, "TIMED OUT" on stderr).
    fn run(&self, args: &[&str]) -> Run {
        let mut child = self.command(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("run the kalah binary");
        let drain = |mut pipe: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = pipe.read_to_end(&mut bytes);
                String::from_utf8_lossy(&bytes).into_owned()
            })
        };
        let out = drain(Box::new(child.stdout.take().unwrap()));
        let err = drain(Box::new(child.stderr.take().unwrap()));
        let deadline = Instant::now() + TIME_LIMIT;
        let (code, timed_out) = loop {
            if let Some(status) = child.try_wait().expect("wait for kalah") {
                break (status.code(), false);
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                break (None, true);
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let mut stderr = err.join().unwrap();
        if timed_out {
            stderr.push_str(&format!("\n[TIMED OUT: killed after {} s]", TIME_LIMIT.as_secs()));
        }
        Run { cmd: format!("kalah {}", args.iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" ")), code, stdout: out.join().unwrap(), stderr }
    }

    /// Runs a command that must succeed.
    fn ok(&self, args: &[&str]) -> Run {
        let r = self.run(args);
        r.assert_no_panic();
        assert_eq!(r.code, Some(0), "expected success (exit 0)\n{}", r.describe());
        r
    }

    /// Runs a `--json` command that must succeed and print one JSON object.
    fn json(&self, args: &[&str]) -> Value {
        assert!(args.contains(&"--json"), "json() needs --json in {args:?}");
        let r = self.ok(args);
        let value: Value =
            serde_json::from_str(r.stdout.trim()).unwrap_or_else(|e| panic!("stdout is not exactly one JSON value ({e})\n{}", r.describe()));
        assert!(value.is_object(), "stdout is JSON but not an object\n{}", r.describe());
        value
    }

    /// `solve ... --json` with the small search resources.
    fn solve(&self, args: &[&str]) -> Value {
        let mut all = vec!["solve"];
        all.extend_from_slice(args);
        all.extend_from_slice(&SEARCH);
        all.push("--json");
        let v = self.json(&all);
        check_analysis(&v, &all);
        v
    }

    /// `query ... --json` with the small search resources.
    fn query(&self, args: &[&str]) -> Value {
        let mut all = vec!["query"];
        all.extend_from_slice(args);
        all.extend_from_slice(&SEARCH);
        all.push("--json");
        let v = self.json(&all);
        check_analysis(&v, &all);
        assert!(v["source"].is_string(), "query --json has no \"source\" string: {v}\n{all:?}");
        v
    }

    /// A bad input or refused request handled by the program itself: exit 2,
    /// exactly one line on stderr starting with `kalah: `, no panic; the line
    /// contains every one of `needles` (case-insensitive).
    fn user_error(&self, args: &[&str], needles: &[&str]) -> Run {
        let r = self.run(args);
        r.assert_no_panic();
        assert_eq!(r.code, Some(2), "expected exit code 2 (bad input / refused)\n{}", r.describe());
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "expected exactly one line on stderr, got {}\n{}", lines.len(), r.describe());
        assert!(lines[0].starts_with("kalah: "), "the error line must start with \"kalah: \"\n{}", r.describe());
        assert!(lines[0].len() > "kalah: ".len() + 5, "the error line says nothing useful\n{}", r.describe());
        let lower = lines[0].to_lowercase();
        for needle in needles {
            assert!(lower.contains(&needle.to_lowercase()), "the error line should mention {needle:?}\n{}", r.describe());
        }
        r
    }

    /// A command-line usage error reported by clap: exit 2, no panic, one
    /// `kalah: ` line on stderr naming every one of `needles` (the
    /// offending flag or value).
    fn usage_error(&self, args: &[&str], needles: &[&str]) -> Run {
        let r = self.run(args);
        r.assert_no_panic();
        assert_eq!(r.code, Some(2), "expected exit code 2 (usage error)\n{}", r.describe());
        assert!(r.stderr.starts_with("kalah: ") && r.stderr.lines().count() == 1, "a usage error is one `kalah: ` line on stderr\n{}", r.describe());
        for needle in needles {
            assert!(r.stderr.contains(needle), "stderr should name {needle:?}\n{}", r.describe());
        }
        r
    }

    /// Builds a database of `houses` houses and up to `max_seeds` seeds at
    /// `path` (None: the default place under `$KALAH_DB_DIR`).
    fn build(&self, houses: usize, max_seeds: u32, rules: &[&str], path: Option<&str>) -> Value {
        let h = houses.to_string();
        let n = max_seeds.to_string();
        let mut args = vec!["db", "build", "--houses", &h, "--max-seeds", &n, "--threads", "1"];
        args.extend_from_slice(rules);
        if let Some(p) = path {
            args.push("-o");
            args.push(p);
        }
        args.push("--json");
        self.json(&args)
    }
}

fn shell_quote(a: &str) -> String {
    if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'') {
        format!("\"{a}\"")
    } else {
        a.to_string()
    }
}

fn value_of(v: &Value) -> i64 {
    v["value"].as_i64().unwrap_or_else(|| panic!("no integer \"value\" in {v}"))
}

/// `(house, value)` of every move, in the order given.
fn moves_of(v: &Value) -> Vec<(i64, i64)> {
    v["moves"]
        .as_array()
        .unwrap_or_else(|| panic!("no \"moves\" array in {v}"))
        .iter()
        .map(|m| {
            (
                m["house"].as_i64().unwrap_or_else(|| panic!("move without integer house: {m}")),
                m["value"].as_i64().unwrap_or_else(|| panic!("move without integer value: {m}")),
            )
        })
        .collect()
}

/// What every `solve`/`query`/`probe` answer must hold: value, moves (each
/// with house and value; the best equals the value), pv (starting with a
/// best move of the side to move when there are moves), nodes, seconds.
fn check_analysis(v: &Value, cmd: &[&str]) {
    let ctx = format!("{cmd:?}\n{v}");
    let value = v["value"].as_i64().unwrap_or_else(|| panic!("no integer \"value\": {ctx}"));
    let moves = moves_of(v);
    assert!(v["pv"].is_array(), "no \"pv\" array: {ctx}");
    assert!(v["nodes"].is_u64(), "no integer \"nodes\": {ctx}");
    assert!(v["seconds"].is_number(), "no number \"seconds\": {ctx}");
    if let Some(h) = v["houses"].as_i64() {
        for &(house, _) in &moves {
            assert!((1..=h).contains(&house), "move house {house} outside 1..={h}: {ctx}");
        }
    }
    if !moves.is_empty() {
        let best = moves.iter().map(|&(_, mv)| mv).max().unwrap();
        assert_eq!(best, value, "the best move's value must equal the value: {ctx}");
        let pv = v["pv"].as_array().unwrap();
        assert!(!pv.is_empty(), "the principal variation is empty although there are moves: {ctx}");
        let first = &pv[0];
        if let (Some(side), Some(to_move)) = (first["side"].as_str(), v["to_move"].as_str()) {
            assert_eq!(side, to_move, "the pv must start with the side to move: {ctx}");
        }
        let house = first["house"].as_i64().unwrap_or_else(|| panic!("pv move without house: {ctx}"));
        let pv_value = moves.iter().find(|&&(m, _)| m == house).map(|&(_, mv)| mv);
        assert_eq!(pv_value, Some(value), "the pv's first move must be a best move: {ctx}");
    }
}

fn assert_same_moves(a: &Value, b: &Value, what: &str) {
    let mut ma = moves_of(a);
    let mut mb = moves_of(b);
    ma.sort();
    mb.sort();
    assert_eq!(ma, mb, "{what}: move values differ\n{a}\n{b}");
}

// ---------------------------------------------------------------------------
// 1. solve
// ---------------------------------------------------------------------------

#[test]
fn solve_3_3_json() {
    let sb = Sandbox::new();
    for rules in [&[][..], &["--capture", "empty"][..]] {
        let mut args = vec!["3", "3"];
        args.extend_from_slice(rules);
        let v = sb.solve(&args);
        assert_eq!(v["houses"], 3, "{v}");
        assert_eq!(v["to_move"], "S", "{v}");
        let moves = moves_of(&v);
        assert_eq!(moves.iter().map(|m| m.0).collect::<Vec<_>>(), vec![1, 2, 3], "every house is a move at the start: {v}");
        // Kalah(3,3) has 18 seeds, all scored: the value is even and at most 18.
        let value = value_of(&v);
        assert!(value.abs() <= 18 && value % 2 == 0, "implausible value {value}: {v}");
        if let Some(source) = v.get("source") {
            assert_eq!(source, "search", "{v}");
        }
    }
}

#[test]
fn solve_value_only_json() {
    let sb = Sandbox::new();
    let full = sb.solve(&["3", "3", "--capture", "empty"]);
    let only = sb.json(&["solve", "3", "3", "--capture", "empty", "--tt-mb", "16", "--threads", "1", "--value-only", "--json"]);
    assert_eq!(value_of(&only), value_of(&full), "{only}\n{full}");
}

/// `kalah query` answers as `kalah solve` does with the same answer flags
/// (issue 39, item 4): the full analysis by default, the value alone with
/// `--value-only`, the value and a best move with `--best-move`.
#[test]
fn query_takes_the_answer_flags_of_solve() {
    let sb = Sandbox::new();
    // South's house 1 played from Kalah(4,3): North to move.
    let position = "0,4,4,4,0,3,3,3,3,0 N";
    let ask = |flags: &[&str]| {
        let mut args = vec!["query", "--position", position, "--capture", "empty", "--tt-mb", "16", "--threads", "1", "--json"];
        args.extend_from_slice(flags);
        sb.json(&args)
    };
    let solved = sb.json(&["solve", "--position", position, "--capture", "empty", "--tt-mb", "16", "--threads", "1", "--json"]);
    let full = ask(&[]);
    assert_eq!(value_of(&full), value_of(&solved), "{full}\n{solved}");
    assert_eq!(moves_of(&full), moves_of(&solved), "{full}\n{solved}");
    assert!(!full["pv"].as_array().unwrap().is_empty(), "{full}");

    let only = ask(&["--value-only"]);
    assert_eq!(value_of(&only), value_of(&full), "{only}");
    assert_eq!(only["moves"].as_array().map(Vec::len), Some(0), "{only}");
    assert_eq!(only["pv"].as_array().map(Vec::len), Some(0), "{only}");

    let best = ask(&["--best-move"]);
    assert_eq!(value_of(&best), value_of(&full), "{best}");
    assert_eq!(best["moves"].as_array().map(Vec::len), Some(0), "{best}");
    let house = best["best_move"].as_u64().unwrap_or_else(|| panic!("no best move: {best}"));
    let best_value = moves_of(&full).into_iter().find(|m| m.0 as u64 == house).map(|m| m.1);
    assert_eq!(best_value, Some(value_of(&full)), "house {house} is not a best move:\n{best}\n{full}");

    sb.usage_error(&["query", "--position", position, "--value-only", "--best-move"], &["cannot be used with"]);

    // A start as `H S` (or the flags), as solve takes it; a query with no
    // position is refused naming both ways to give one.
    let start = sb.json(&["query", "4", "3", "--capture", "empty", "--tt-mb", "16", "--threads", "1", "--json"]);
    let solved = sb.json(&["solve", "4", "3", "--capture", "empty", "--tt-mb", "16", "--threads", "1", "--json"]);
    assert_eq!(start["position"], "3,3,3,3,0,3,3,3,3,0 S", "{start}");
    assert_eq!(value_of(&start), value_of(&solved), "{start}\n{solved}");
    assert_eq!(moves_of(&start), moves_of(&solved), "{start}\n{solved}");
    let flags = sb.json(&["query", "--houses", "4", "--seeds", "3", "--capture", "empty", "--value-only", "--json"]);
    assert_eq!(flags["position"], start["position"], "{flags}");
    for args in [&["query"][..], &["query", "4"], &["query", "--seeds", "3"]] {
        let r = sb.run(args);
        assert_eq!(r.code, Some(2), "{}", r.describe());
        assert!(r.stderr.contains("--position P") && r.stderr.contains("H S"), "{}", r.describe());
    }
    sb.usage_error(&["query", "4", "3", "--position", position], &["cannot be used with"]);
}

/// `--best-move`: the value, and a move the full analysis gives that value;
/// neither every move's value nor a principal variation.
#[test]
fn solve_best_move_is_a_move_of_the_best_value() {
    let sb = Sandbox::new();
    for (h, s, capture) in [("3", "3", "empty"), ("3", "3", "standard"), ("4", "3", "empty"), ("4", "4", "standard"), ("5", "2", "standard")] {
        let full = sb.solve(&[h, s, "--capture", capture]);
        let best = sb.json(&["solve", h, s, "--capture", capture, "--tt-mb", "16", "--threads", "1", "--best-move", "--json"]);
        assert_eq!(value_of(&best), value_of(&full), "{best}\n{full}");
        assert_eq!(best["moves"].as_array().map(Vec::len), Some(0), "{best}");
        let house = best["best_move"].as_u64().unwrap_or_else(|| panic!("no best move: {best}"));
        assert_eq!(best["pv"].as_array().map(Vec::len), Some(0), "{best}");
        let value_of_move =
            |house: u64| full["moves"].as_array().unwrap().iter().find(|m| m["house"].as_u64() == Some(house)).map(|m| m["value"].clone());
        assert_eq!(value_of_move(house), Some(full["value"].clone()), "house {house} is not best:\n{best}\n{full}");
        // The full analysis names a best move too.
        let full_best = full["best_move"].as_u64().unwrap_or_else(|| panic!("no best move: {full}"));
        assert_eq!(value_of_move(full_best), Some(full["value"].clone()), "{full}");
    }
}

#[test]
fn solve_3_3_human() {
    let sb = Sandbox::new();
    for rules in [&[][..], &["--capture", "empty"][..]] {
        let mut args = vec!["solve", "3", "3", "--tt-mb", "16", "--threads", "1"];
        args.extend_from_slice(rules);
        let r = sb.ok(&args);
        let out = &r.stdout;
        assert!(out.contains("South wins by") || out.contains("North wins by") || out.contains("draw"), "no verdict\n{}", r.describe());
        for house in 1..=3 {
            assert!(out.contains(&format!("house {house}")), "move list lacks house {house}\n{}", r.describe());
        }
        assert!(serde_json::from_str::<Value>(out.trim()).is_err(), "human output should not be JSON\n{}", r.describe());
    }
    // The published result: Kalah(3,3) with empty capture is a South win.
    let r = sb.ok(&["solve", "3", "3", "--capture", "empty", "--tt-mb", "16", "--threads", "1"]);
    assert!(r.stdout.contains("South wins by"), "Kalah(3,3), empty capture, is a South win\n{}", r.describe());
}

#[test]
fn solve_clockwise_is_retrograde() {
    let sb = Sandbox::new();
    let v = sb.solve(&["3", "2", "--sowing", "cw"]);
    assert_eq!(v["rules"]["sowing"], "cw", "{v}");
    if let Some(source) = v.get("source") {
        assert_eq!(source, "retrograde", "{v}");
    }
    let q = sb.query(&["--position", "2,2,2,0,2,2,2,0 S", "--sowing", "cw", "--no-memory"]);
    assert_eq!(q["source"], "retrograde", "{q}");
    // Asked again with the memory on (the default), the answer solve kept.
    let kept = sb.query(&["--position", "2,2,2,0,2,2,2,0 S", "--sowing", "cw"]);
    assert_eq!((&kept["source"], &kept["nodes"]), (&serde_json::json!("kept"), &serde_json::json!(0)), "{kept}");
    assert_same_moves(&kept, &v, "cw solve vs its kept answer");
    assert_eq!(kept["pv"], v["pv"], "{kept}\n{v}");
    assert_eq!(value_of(&q), value_of(&v), "solve 3 2 --sowing cw and query of its start differ\n{v}\n{q}");
    assert_same_moves(&q, &v, "cw solve vs query");

    // A clockwise database of the same board agrees.
    let db = sb.file("cw.kdb");
    sb.build(3, 12, &["--sowing", "cw"], Some(&db));
    let p = sb.json(&["db", "probe", &db, "--position", "2,2,2,0,2,2,2,0 S", "--json"]);
    assert_eq!(value_of(&p), value_of(&v), "cw database probe vs retrograde solve\n{p}\n{v}");
    assert_same_moves(&p, &v, "cw probe vs solve");
}

/// Clockwise, with a database smaller than the position (`--db-seeds`, as
/// when retrograde analysis of all its seeds does not fit): `solve` and
/// `query` prove bounds by searches over it. At this size they meet: the
/// value and every move's equal those of retrograde analysis of every
/// board, and the principal variation starts with a best move. A proof cut
/// short by `--time-limit` shows bounds that hold the value, and no verdict.
#[test]
fn solve_clockwise_beyond_its_database_proves_bounds() {
    let sb = Sandbox::new();
    for relay in ["off", "on"] {
        let full = sb.solve(&["3", "3", "--sowing", "cw", "--relay", relay]);
        assert_eq!(full["source"], "retrograde", "{full}");
        let v = sb.solve(&["3", "3", "--sowing", "cw", "--relay", relay, "--db-seeds", "12"]);
        assert_eq!(v["source"], "bounds", "{v}");
        assert_eq!(v["database"]["max_seeds"], 12, "{v}");
        assert_eq!(
            (v["exact"].clone(), v["lower"].clone(), v["upper"].clone()),
            (serde_json::json!(true), full["value"].clone(), full["value"].clone()),
            "{v}"
        );
        assert_eq!(value_of(&v), value_of(&full), "relay {relay}\n{v}\n{full}");
        assert_same_moves(&v, &full, "bounds vs retrograde");
        assert_eq!(v["verdict"], full["verdict"], "{v}");
        let best = sb.json(&["solve", "3", "3", "--sowing", "cw", "--relay", relay, "--db-seeds", "12", "--best-move", "--json"]);
        let house = best["best_move"].as_i64().unwrap_or_else(|| panic!("no best move: {best}"));
        assert!(moves_of(&full).contains(&(house, value_of(&full))), "house {house} is not best\n{best}\n{full}");
        let q = sb.query(&["--position", "3,3,3,0,3,3,3,0 S", "--sowing", "cw", "--relay", relay, "--db-seeds", "12", "--time-limit", "30"]);
        assert_eq!(q["source"], "bounds", "{q}");
        assert_eq!(value_of(&q), value_of(&full), "{q}");
    }
    // Cut short: whatever the machine managed, the bounds hold the value.
    let full = sb.solve(&["3", "4", "--sowing", "cw"]);
    let v = sb.json(&["solve", "3", "4", "--sowing", "cw", "--db-seeds", "4", "--time-limit", "0.05", "--tt-mb", "16", "--json"]);
    let (lower, upper, value) = (v["lower"].as_i64().unwrap(), v["upper"].as_i64().unwrap(), value_of(&full));
    assert!(lower <= value && value <= upper, "Kalah(3,4) = {value}, proven {lower}..{upper}: {v}");
    assert_eq!(v["exact"], serde_json::json!(lower == upper), "{v}");
    if lower < upper {
        assert!(v["value"].is_null() && v["verdict"].is_null(), "{v}");
    }
    for m in v["moves"].as_array().unwrap() {
        let exact = moves_of(&full).into_iter().find(|&(h, _)| Some(h) == m["house"].as_i64()).unwrap().1;
        assert!(m["lower"].as_i64().unwrap() <= exact && exact <= m["upper"].as_i64().unwrap(), "house {m}: {exact}");
    }
}

/// The pie rule, the openings and the seed shifts of clockwise Kalah(3,3)
/// from bounds proven over a 12-seed database (as for starts too large
/// for retrograde analysis) are those of retrograde analysis of every board.
#[test]
fn clockwise_openings_from_bounds_equal_retrograde_ones() {
    let sb = Sandbox::new();
    for relay in ["off", "on"] {
        for mode in ["--pie", "--openings", "--shift"] {
            let run = |extra: &[&str]| {
                let mut args = vec!["solve", "3", "3", "--sowing", "cw", "--relay", relay, mode, "--tt-mb", "16", "--json"];
                args.extend_from_slice(extra);
                let mut v = sb.json(&args);
                let o = v.as_object_mut().unwrap();
                let nodes = o.remove("nodes").and_then(|n| n.as_u64()).unwrap_or(0);
                o.remove("seconds");
                (v, nodes)
            };
            let ((retrograde, _), (bounds, nodes)) = (run(&[]), run(&["--db-seeds", "12"]));
            assert!(nodes > 0, "relay {relay} {mode}: no search above the 12-seed database");
            assert_eq!(retrograde, bounds, "relay {relay} {mode}");
        }
    }
}

/// `--time-limit` caps any search: in time, the answer is the exact one;
/// cut short, bounds that hold the value, for the position and each move.
#[test]
fn solve_with_a_time_limit_shows_what_it_proved() {
    let sb = Sandbox::new();
    let full = sb.solve(&["4", "4", "--no-db", "--no-book"]);
    let v = sb.solve(&["4", "4", "--no-db", "--no-book", "--time-limit", "60"]);
    assert_eq!((v["exact"].clone(), v["source"].clone()), (serde_json::json!(true), serde_json::json!("search")), "{v}");
    assert_eq!(value_of(&v), value_of(&full), "{v}\n{full}");
    assert_same_moves(&v, &full, "with and without a time limit");
    let cut = sb.json(&["solve", "4", "4", "--no-db", "--no-book", "--time-limit", "0.001", "--tt-mb", "16", "--threads", "1", "--json"]);
    let (lower, upper, value) = (cut["lower"].as_i64().unwrap(), cut["upper"].as_i64().unwrap(), value_of(&full));
    assert!(lower <= value && value <= upper, "Kalah(4,4) = {value}, proven {lower}..{upper}: {cut}");
    assert_eq!(cut["exact"], serde_json::json!(lower == upper), "{cut}");
    for m in cut["moves"].as_array().unwrap() {
        let exact = moves_of(&full).into_iter().find(|&(h, _)| Some(h) == m["house"].as_i64()).unwrap().1;
        assert!(m["lower"].as_i64().unwrap() <= exact && exact <= m["upper"].as_i64().unwrap(), "house {m}: {exact}");
    }
    sb.user_error(&["solve", "3", "3", "--time-limit", "0"], &["--time-limit"]);
    sb.user_error(&["query", "--position", "3,3,3,0,3,3,3,0 S", "--time-limit=-1"], &["--time-limit"]);
    sb.user_error(&["solve", "3", "3", "--shift", "--time-limit", "5"], &["--time-limit", "--shift"]);
    // Too long for the clock: refused by every command that takes it, not a panic.
    for t in ["1e30", "1e19", "1e9", "inf", "NaN"] {
        sb.user_error(&["solve", "3", "3", "--time-limit", t], &["--time-limit", "below 1e9"]);
        sb.user_error(&["table", "--houses", "1", "--seeds", "1", "--time-limit", t], &["--time-limit", "below 1e9"]);
    }
}

#[test]
fn solve_custom_positions_ring_and_side_forms() {
    let sb = Sandbox::new();
    for side in ["S", "N"] {
        let ring = format!("2,0,1,3,0,1,2,1 {side}");
        let sides = format!("S:2-0-1:3 N:0-1-2:1 {side}");
        let a = sb.solve(&["--position", &ring, "--no-db"]);
        let b = sb.solve(&["--position", &sides, "--no-db"]);
        assert_eq!(a["houses"], 3, "{a}");
        assert_eq!(a["to_move"], side, "{a}");
        assert_eq!(a["position"], b["position"], "ring and side form should be the same position\n{a}\n{b}");
        assert_eq!(value_of(&a), value_of(&b), "ring vs side form\n{a}\n{b}");
        assert_same_moves(&a, &b, "ring vs side form");
        // Stores never influence play: the value shifts by the store difference.
        let empty_stores = sb.solve(&["--position", &format!("2,0,1,0,0,1,2,0 {side}"), "--no-db"]);
        let diff = if side == "S" { 3 - 1 } else { 1 - 3 };
        assert_eq!(value_of(&a), value_of(&empty_stores) + diff, "stores must add to the value\n{a}\n{empty_stores}");
    }
    // Spaces instead of commas, and a 2-house board.
    let v = sb.solve(&["--position", "1 2 0 2 1 0 N"]);
    assert_eq!(v["houses"], 2, "{v}");
    assert_eq!(v["to_move"], "N", "{v}");
}

#[test]
fn query_of_a_finished_game_is_not_an_error() {
    let sb = Sandbox::new();
    // South's houses are empty: North sweeps its 3 seeds, 5 to 6.
    let v = sb.query(&["--position", "0,0,0,5,1,2,0,3 S", "--no-db"]);
    assert_eq!(value_of(&v), -1, "{v}");
    assert!(moves_of(&v).is_empty(), "a finished game has no moves: {v}");
    let s = sb.solve(&["--position", "0,0,0,5,1,2,0,3 S"]);
    assert_eq!(value_of(&s), -1, "{s}");
}

// ---------------------------------------------------------------------------
// 2. known values
// ---------------------------------------------------------------------------

#[test]
fn kalah_4_3_empty_capture_is_plus_8() {
    let sb = Sandbox::new();
    let v = sb.solve(&["4", "3", "--capture", "empty"]);
    assert_eq!(value_of(&v), 8, "Kalah(4,3), empty capture, is +8 (Irving et al.)\n{v}");
    // The same with two search threads.
    let v2 = sb.json(&["solve", "4", "3", "--capture", "empty", "--tt-mb", "16", "--threads", "2", "--json"]);
    assert_eq!(value_of(&v2), 8, "Kalah(4,3), empty capture, two threads\n{v2}");
}

#[test]
fn kalah_3_3_empty_capture_is_a_south_win() {
    let sb = Sandbox::new();
    let v = sb.solve(&["3", "3", "--capture", "empty"]);
    assert!(value_of(&v) > 0, "Kalah(3,3), empty capture, is a South win (W)\n{v}");
    assert_eq!(v["verdict"].as_str().map(|s| s.starts_with("South wins by")), Some(true), "{v}");
}

/// Issue 64: what this project has proven and ships is answered at once:
/// Kalah(6,6) under empty capture is +2 (the proof of
/// data/kalah-6-6/start-empty.json), its move 1 +2, every other at most
/// +2, whatever the search proves in its time; a strong solution's start
/// value too. `--no-book` searches instead.
#[test]
fn what_this_project_has_proven_is_answered_at_once() {
    let sb = Sandbox::new();
    let value = sb.json(&["solve", "6", "6", "--capture", "empty", "--value-only", "--json"]);
    assert_eq!((value_of(&value), &value["source"]), (2, &Value::from("proven")), "{value}");
    assert!(value["seconds"].as_f64().unwrap() < 1.0, "{value}");
    let moves = sb.json(&["solve", "6", "6", "--capture", "empty", "--time-limit", "0.3", "--tt-mb", "16", "--threads", "1", "--json"]);
    assert_eq!((value_of(&moves), &moves["source"]), (2, &Value::from("proven")), "{moves}");
    for m in moves["moves"].as_array().unwrap() {
        let (house, lower, upper) = (m["house"].as_i64().unwrap(), m["lower"].as_i64().unwrap(), m["upper"].as_i64().unwrap());
        assert!(upper <= 2, "move {house}: {m}");
        if house == 1 {
            assert_eq!((lower, upper), (2, 2), "{m}");
        }
    }
    let strong = sb.json(&["solve", "5", "3", "--value-only", "--json"]);
    assert_eq!(strong["source"], "proven", "{strong}");
    let searched = sb.json(&["solve", "5", "3", "--value-only", "--no-book", "--tt-mb", "16", "--threads", "1", "--json"]);
    assert_eq!((&searched["source"], value_of(&searched)), (&Value::from("search"), value_of(&strong)), "{searched}");
    let not = sb.json(&[
        "solve",
        "6",
        "6",
        "--capture",
        "empty",
        "--value-only",
        "--no-book",
        "--time-limit",
        "0.3",
        "--tt-mb",
        "16",
        "--threads",
        "1",
        "--json",
    ]);
    assert_ne!(not["source"], "proven", "{not}");
}

/// Every published value of a board with at most 24 seeds.
#[test]
fn small_published_values() {
    let sb = Sandbox::new();
    let mut checked = 0;
    for row in kalah::published::all().into_iter().filter(|r| 2 * r.houses as u32 * r.seeds <= 24) {
        let (hs, ss) = (row.houses.to_string(), row.seeds.to_string());
        let r = row.rules;
        let v = sb.solve(&[&hs, &ss, "--capture", r.capture.name(), "--end", r.end.name(), "--leftovers", r.leftovers.name()]);
        let value = value_of(&v);
        assert!(row.claim.agrees(value as i32), "Kalah({hs},{ss}) under {r}: published {}, got {value}", row.claim.text());
        checked += 1;
    }
    assert!(checked >= 15, "too few published values checked: {checked}");
}

// ---------------------------------------------------------------------------
// 3. databases
// ---------------------------------------------------------------------------

/// Positions of 3 houses with at most 9 seeds in their houses.
const SMALL: [&str; 6] =
    ["1,2,0,0,0,3,1,0 S", "3,0,2,5,1,1,2,4 N", "0,0,1,0,0,0,1,0 S", "2,2,1,0,1,1,2,0 S", "S:0-4-1:2 N:2-0-2:7 N", "0,0,0,6,3,0,0,1 S"];

#[test]
fn db_build_info_verify_probe() {
    let sb = Sandbox::new();
    let db = sb.file("t.kdb");
    let b = sb.build(3, 9, &[], Some(&db));
    assert!(Path::new(&db).is_file(), "db build did not write {db}\n{b}");
    assert_eq!(b["max_seeds"], 9, "{b}");
    assert_eq!(b["houses"], 3, "{b}");

    let info = sb.json(&["db", "info", &db, "--json"]);
    assert_eq!(info["houses"], 3, "{info}");
    assert_eq!(info["max_seeds"], 9, "{info}");
    assert_eq!(info["rules"]["capture"], "standard", "{info}");
    assert_eq!(info["bytes"].as_u64(), Some(fs::metadata(&db).unwrap().len()), "{info}");
    let human = sb.ok(&["db", "info", &db]);
    assert!(human.stdout.contains("houses"), "{}", human.describe());

    let verify = sb.json(&["db", "verify", &db, "--json"]);
    assert_eq!(verify["ok"], true, "{verify}");
    assert_eq!(verify["deep"], false, "{verify}");
    sb.ok(&["db", "verify", &db]);
    let deep = sb.json(&["db", "verify", &db, "--deep", "--json"]);
    assert_eq!((&deep["ok"], &deep["deep"]), (&true.into(), &true.into()), "{deep}");
    assert!(deep["boards"].as_u64().is_some_and(|n| n > 0), "{deep}");
    assert!(sb.ok(&["db", "verify", &db, "--deep"]).stdout.contains("every board's value its moves'"));

    for p in SMALL {
        let probe = sb.json(&["db", "probe", &db, "--position", p, "--json"]);
        check_analysis(&probe, &["db", "probe", p]);
        assert_eq!(probe["source"], "database", "{probe}");
        let solved = sb.solve(&["--position", p, "--no-db"]);
        assert_eq!(value_of(&probe), value_of(&solved), "db probe vs solve --no-db for {p}\n{probe}\n{solved}");
        assert_same_moves(&probe, &solved, &format!("db probe vs solve --no-db for {p}"));
    }
    let human = sb.ok(&["db", "probe", &db, "--position", SMALL[0]]);
    assert!(human.stdout.contains("house"), "{}", human.describe());
}

#[test]
fn db_pack_unpack_round_trip() {
    let sb = Sandbox::new();
    let db = sb.file("t.kdb");
    sb.build(3, 9, &[], Some(&db));
    let archive = sb.file("t.kdb.zst");
    let restored = sb.file("u.kdb");
    let p = sb.json(&["db", "pack", &db, "-o", &archive, "--json"]);
    assert!(Path::new(&archive).is_file(), "no archive written\n{p}");
    let u = sb.json(&["db", "unpack", &archive, "-o", &restored, "--json"]);
    assert!(Path::new(&restored).is_file(), "no database restored\n{u}");
    let original = fs::read(&db).unwrap();
    let copy = fs::read(&restored).unwrap();
    assert!(original == copy, "unpack(pack(db)) is not byte-identical: {} vs {} bytes", original.len(), copy.len());
    sb.json(&["db", "verify", &restored, "--json"]);

    // Default names: FILE.zst, and back without .zst.
    let db2 = sb.file("v.kdb");
    fs::copy(&db, &db2).unwrap();
    sb.ok(&["db", "pack", &db2]);
    let archive2 = format!("{db2}.zst");
    assert!(Path::new(&archive2).is_file(), "db pack without -o should write {archive2}");
    fs::remove_file(&db2).unwrap();
    sb.ok(&["db", "unpack", &archive2]);
    assert!(fs::read(&db2).unwrap() == original, "default-name round trip is not byte-identical");
}

/// `db build --packed` and `db repack` (issue 51): the same values in
/// fewer bytes, found by every command that reads a database, and a file
/// repacked either way is the file its build writes.
#[test]
fn packed_databases_build_repack_and_answer_the_same() {
    let sb = Sandbox::new();
    let byte = sb.file("byte.kdb");
    sb.build(3, 9, &[], Some(&byte));
    let packed = sb.file("packed.kdb");
    let b = sb.build(3, 9, &["--packed"], Some(&packed));
    assert_eq!(b["encoding"], "share", "{b}");
    let info = sb.json(&["db", "info", &packed, "--json"]);
    assert_eq!(info["encoding"], "share", "{info}");
    // Levels this small each fill their 4 KiB either way; the sizes are the format tests'.
    assert!(info["bytes"].as_u64().unwrap() <= fs::metadata(&byte).unwrap().len(), "{info}");
    let deep = sb.json(&["db", "verify", &packed, "--deep", "--json"]);
    assert_eq!(deep["ok"], true, "{deep}");
    for p in SMALL {
        let from_packed = sb.json(&["db", "probe", &packed, "--position", p, "--json"]);
        let from_byte = sb.json(&["db", "probe", &byte, "--position", p, "--json"]);
        assert_eq!(value_of(&from_packed), value_of(&from_byte), "{p}");
        assert_same_moves(&from_packed, &from_byte, &format!("probe of {p}, packed against byte"));
        let solved = sb.solve(&["--position", p, "--db", &packed]);
        assert_eq!(value_of(&solved), value_of(&from_byte), "solve over the packed file, {p}");
    }
    // In place, then back into another file.
    let copy = sb.file("copy.kdb");
    fs::copy(&byte, &copy).unwrap();
    let r = sb.json(&["db", "repack", &copy, "--packed", "--json"]);
    assert_eq!((&r["encoding"], &r["path"]), (&"share".into(), &copy.clone().into()), "{r}");
    assert!(fs::read(&copy).unwrap() == fs::read(&packed).unwrap(), "repacked in place differs from the packed build");
    let back = sb.file("back.kdb");
    sb.ok(&["db", "repack", &copy, "-o", &back]);
    assert!(fs::read(&back).unwrap() == fs::read(&byte).unwrap(), "repacked back differs from the byte build");
    let missing = sb.run(&["db", "repack", &sb.file("none.kdb"), "--packed"]);
    assert_eq!(missing.code, Some(2), "{}", missing.describe());

    // A review's findings: a source that is the target's partial file is
    // refused and left whole (it was emptied under its own mapping: a bus
    // error, the file lost), for repack and pack alike; a missing folder
    // is made; in place through a link repacks the file linked to.
    let partial = sb.file("y.kdb.partial");
    fs::copy(&packed, &partial).unwrap();
    for args in [&["db", "repack", &partial, "-o", &sb.file("y.kdb")][..], &["db", "pack", &partial, "-o", &sb.file("y.kdb")]] {
        let r = sb.run(args);
        assert_eq!(r.code, Some(2), "{}", r.describe());
        assert!(r.stderr.contains("is where") && r.stderr.contains("written until it is complete"), "{}", r.describe());
        assert!(fs::read(&partial).unwrap() == fs::read(&packed).unwrap(), "the source is intact");
    }
    let nested = sb.file("new/folder/x.kdb");
    sb.ok(&["db", "repack", &packed, "-o", &nested]);
    assert!(fs::read(&nested).unwrap() == fs::read(&byte).unwrap());
    #[cfg(unix)]
    {
        let (target, link) = (sb.file("linked.kdb"), sb.file("link.kdb"));
        fs::copy(&byte, &target).unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        sb.ok(&["db", "repack", &link, "--packed"]);
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
        assert!(fs::read(&target).unwrap() == fs::read(&packed).unwrap(), "the file linked to is repacked");
    }
}

/// `db build --bits 3|4` and `db repack --bits` (issue 63): a window of
/// values and bounds outside it, refused where exact values are read (a
/// probe, a repack from it), searched over by `query` and `solve` to the
/// values of the byte file, checked deep; `--memory` too small is refused
/// up front with what the build needs.
#[test]
fn window_databases_are_searched_over_to_the_values_of_the_byte_file() {
    let sb = Sandbox::new();
    let byte = sb.file("byte.kdb");
    sb.build(3, 12, &[], Some(&byte));
    let w3 = sb.file("w3.kdb");
    let b = sb.build(3, 12, &["--bits", "3"], Some(&w3));
    assert_eq!((&b["encoding"], &b["bits"]), (&"window3".into(), &3.into()), "{b}");
    assert!(!std::path::Path::new(&format!("{w3}.exact")).exists(), "the exact file is removed");
    let info = sb.json(&["db", "info", &w3, "--json"]);
    assert_eq!(info["encoding"], "window3", "{info}");
    assert_eq!(sb.json(&["db", "verify", &w3, "--deep", "--json"])["ok"], true);
    let w4 = sb.file("w4.kdb");
    let r = sb.json(&["db", "repack", &byte, "--bits", "4", "-o", &w4, "--json"]);
    assert_eq!(r["encoding"], "window4", "{r}");
    sb.user_error(&["db", "repack", &w4, "--bits", "8", "-o", &sb.file("back.kdb")], &["window", "exact file"]);
    for p in ["2,2,2,0,2,2,2,0 S", "3,1,2,4,2,2,1,3 N", "1,0,4,2,0,1,3,2 N", "0,2,2,5,1,1,0,1 S"] {
        let exact = sb.json(&["db", "probe", &byte, "--position", p, "--json"]);
        sb.user_error(&["db", "probe", &w3, "--position", p], &["window", "kalah query --db"]);
        for w in [&w3, &w4] {
            let q = sb.query(&["--position", p, "--db", w]);
            assert_eq!(q["source"], "search", "a window file is searched over\n{q}");
            assert_eq!(value_of(&q), value_of(&exact), "{p} over {w}");
            assert_same_moves(&q, &exact, &format!("query of {p} over {w} against the byte file's probe"));
        }
    }
    sb.user_error(&["db", "build", "3", "12", "--memory", "1KiB", "-o", &sb.file("small.kdb")], &["needs", "1.0 KiB"]);
    // From the levels of a smaller exact file: the same window file.
    let nine = sb.file("nine.kdb");
    sb.build(3, 9, &["--packed"], Some(&nine));
    let from = sb.file("from.kdb");
    let b = sb.build(3, 12, &["--bits", "3", "--from", &nine], Some(&from));
    assert_eq!(b["resumed_levels"], 10, "{b}");
    assert!(fs::read(&from).unwrap() == fs::read(&w3).unwrap(), "built from nine seeds' levels");
    sb.user_error(&["db", "build", "3", "12", "--from", &byte, "-o", &sb.file("x.kdb"), "--packed"], &["fewer seeds"]);
    sb.usage_error(&["db", "build", "3", "12", "--bits", "7"], &["--bits"]);
    sb.usage_error(&["db", "build", "3", "12", "--bits", "3", "--packed"], &["--packed"]);
}

/// `--db-load`: a file backs a search copied into memory or mapped, as
/// asked, with the same value; the JSON says which; a bad name is a
/// usage error.
#[test]
fn a_database_file_is_copied_or_mapped_as_asked() {
    let sb = Sandbox::new();
    let db = sb.file("t.kdb");
    sb.build(3, 9, &[], Some(&db));
    let solve = |how: &str| sb.json(&["solve", "3", "3", "--db", &db, "--db-load", how, "--no-book", "--no-memory", "--value-only", "--json"]);
    let (auto, copied, mapped) = (solve("auto"), solve("copied"), solve("mapped"));
    let copied_of = |v: &Value| v["database"]["copied"].as_bool();
    assert_eq!((copied_of(&auto), copied_of(&copied), copied_of(&mapped)), (Some(true), Some(true), Some(false)), "{auto}\n{copied}\n{mapped}");
    assert_eq!((value_of(&copied), value_of(&mapped)), (value_of(&auto), value_of(&auto)));
    sb.usage_error(&["solve", "3", "3", "--db-load", "copy"], &["--db-load"]);
}

#[test]
fn query_uses_database_where_it_covers_and_search_beyond() {
    let sb = Sandbox::new();
    let db = sb.file("t.kdb");
    sb.build(3, 9, &[], Some(&db));
    for p in &SMALL[..3] {
        let q = sb.query(&["--position", p, "--db", &db]);
        assert_eq!(q["source"], "database", "{p} has at most 9 seeds\n{q}");
        let s = sb.solve(&["--position", p, "--no-db"]);
        assert_eq!(value_of(&q), value_of(&s), "query --db vs solve --no-db for {p}\n{q}\n{s}");
        assert_same_moves(&q, &s, "query --db vs solve --no-db");
    }
    for p in ["3,3,3,0,3,3,3,0 S", "4,0,3,2,1,2,3,5 N"] {
        let q = sb.query(&["--position", p, "--db", &db]);
        assert_eq!(q["source"], "search", "{p} has more seeds than the database covers\n{q}");
        let s = sb.solve(&["--position", p, "--no-db"]);
        assert_eq!(value_of(&q), value_of(&s), "query --db (search) vs solve --no-db for {p}\n{q}\n{s}");
        assert_same_moves(&q, &s, "query --db (search) vs solve --no-db");
        let plain = sb.query(&["--position", p, "--no-db"]);
        assert_eq!(plain["source"], "search", "{plain}");
        assert_eq!(value_of(&plain), value_of(&s), "{plain}\n{s}");
    }
}

#[test]
fn default_database_is_found_in_kalah_db_dir() {
    let sb = Sandbox::new();
    let b = sb.build(3, 6, &["--capture", "empty"], None);
    let built: Vec<_> = fs::read_dir(sb.db_dir()).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(built.len(), 1, "db build without -o should write one file into $KALAH_DB_DIR: {built:?}\n{b}");
    assert!(built[0].extension().is_some_and(|e| e == "kdb"), "{built:?}");

    let p = "1,0,2,0,0,2,1,0 S";
    let q = sb.query(&["--position", p, "--capture", "empty"]);
    assert_eq!(q["source"], "database", "query without --db should use the default database\n{q}");
    let s = sb.solve(&["--position", p, "--capture", "empty", "--no-db"]);
    assert_eq!(value_of(&q), value_of(&s), "{q}\n{s}");
    assert_same_moves(&q, &s, "default database vs search");

    // --no-db ignores it; other rules do not pick it up.
    let q = sb.query(&["--position", p, "--capture", "empty", "--no-db"]);
    assert_eq!(q["source"], "search", "{q}");
    let q = sb.query(&["--position", p]);
    assert_eq!(q["source"], "search", "a database for empty capture must not serve standard rules\n{q}");
    // A position beyond the default database: searched, backed by it.
    let q = sb.query(&["--position", "3,3,3,0,3,3,3,0 S", "--capture", "empty"]);
    assert_eq!(q["source"], "search", "{q}");
    assert!(q["database"].is_object(), "the search should be backed by the default database\n{q}");
    let s = sb.solve(&["3", "3", "--capture", "empty", "--no-db"]);
    assert_eq!(value_of(&q), value_of(&s), "{q}\n{s}");
}

/// Under `--time-limit`, a default file that would take more than a
/// quarter of the limit to load (reckoned at 0.5 GB/s) is passed over, and
/// said to be; a file named by `--db` is used as asked.
#[test]
fn a_short_time_limit_passes_over_a_default_file_too_large_to_load() {
    let sb = Sandbox::new();
    for n in [4, 18] {
        sb.build(3, n, &["--capture", "empty"], None);
    }
    let big = fs::read_dir(sb.db_dir()).unwrap().flatten().map(|e| e.path()).find(|p| p.to_string_lossy().contains("-h3-n18-")).unwrap();
    // Kalah(3,6), 36 seeds: every move's value is searched over the 18-seed file.
    // (--no-memory: a kept answer would answer the same question at once.)
    let solved = sb.solve(&["3", "6", "--capture", "empty", "--no-memory"]);
    assert_eq!(solved["database"]["max_seeds"], 18, "{solved}");
    assert!(solved["database"]["load_seconds"].as_f64().is_some(), "a loaded file's time: {solved}");
    // 0.5 ms: 62,500 bytes may load; the 18-seed file has 134,596 boards.
    let hurried =
        sb.json(&["solve", "3", "6", "--capture", "empty", "--time-limit", "0.0005", "--tt-mb", "16", "--threads", "1", "--no-memory", "--json"]);
    assert_eq!(hurried["database"]["max_seeds"], 4, "{hurried}");
    let r = sb.ok(&["solve", "3", "6", "--capture", "empty", "--time-limit", "0.0005", "--tt-mb", "16", "--threads", "1", "--no-memory"]);
    assert!(r.stderr.contains("-h3-n18-") && r.stderr.contains("is not loaded"), "{}", r.describe());
    let big = big.to_string_lossy();
    let named =
        sb.json(&["solve", "3", "6", "--capture", "empty", "--time-limit", "0.0005", "--tt-mb", "16", "--threads", "1", "--db", &big, "--json"]);
    assert_eq!(named["database"]["max_seeds"], 18, "{named}");
    // `table` shares the set-up among a board size's starts: six of 0.1 ms
    // let 75,000 bytes load, six of 1 s the 18-seed file.
    for (limit, seeds) in [("0.0001", 4), ("1", 18)] {
        let t = sb.json(&[
            "table",
            "--houses",
            "3",
            "--seeds",
            "1-6",
            "--capture",
            "empty",
            "--time-limit",
            limit,
            "--tt-mb",
            "16",
            "--threads",
            "1",
            "--json",
        ]);
        let entries = t["entries"].as_array().unwrap_or_else(|| panic!("no entries: {t}"));
        assert!(entries.iter().all(|e| e["database_seeds"] == seeds), "--time-limit {limit}: {t}");
    }
}

/// Clockwise, a position of more seeds than retrograde analysis takes (127)
/// gets bounds proven over a database built first; under `--time-limit`
/// it is one that a quarter of the limit builds (reckoned at 0.8 M boards
/// a second): none in 10 microseconds, the default 20 seeds in half a
/// second. The value is the same.
#[test]
fn a_short_time_limit_builds_a_smaller_database_for_clockwise_bounds() {
    let sb = Sandbox::new();
    let solve = |limit: &str| {
        sb.json(&[
            "solve",
            "--position",
            "70,0,70,0 S",
            "--sowing",
            "cw",
            "--time-limit",
            limit,
            "--value-only",
            "--tt-mb",
            "16",
            "--threads",
            "1",
            "--json",
        ])
    };
    let (hurried, default) = (solve("0.00001"), solve("0.5"));
    assert_eq!(hurried["source"], "bounds", "{hurried}");
    assert!(hurried["database"].is_null(), "{hurried}");
    assert_eq!(default["database"]["max_seeds"], 20, "{default}");
    assert_eq!((&hurried["lower"], &hurried["upper"]), (&default["lower"], &default["upper"]), "{hurried}\n{default}");
}

/// `kalah db list`: the databases of the database directory (or of a
/// directory given), complete ones by board size, rules and seeds, with
/// whether the commands find them by name; the builds under way; the
/// archives; the files the reader refuses, and why.
#[test]
fn db_list_shows_the_databases_builds_and_refused_files() {
    let sb = Sandbox::new();
    let r = sb.ok(&["db", "list"]);
    assert!(r.stdout.contains("no databases"), "{}", r.describe());
    sb.build(3, 6, &["--capture", "empty"], None);
    sb.build(2, 4, &["--capture", "empty"], None);
    let small =
        fs::read_dir(sb.db_dir()).unwrap().flatten().map(|e| e.path()).find(|p| p.to_string_lossy().contains("-h2-n4-")).expect("the 2-house file");
    fs::copy(&small, sb.db_dir().join("mine.kdb")).unwrap();
    // A default name that is not the file's own: `solve` would take it and refuse it.
    let mislabelled = small.file_name().unwrap().to_string_lossy().replace("-empty-", "-standard-");
    fs::copy(&small, sb.db_dir().join(&mislabelled)).unwrap();
    fs::write(sb.db_dir().join("junk.kdb"), "not a database").unwrap();
    fs::write(sb.db_dir().join("notes.txt"), "not listed").unwrap();
    // An interrupted build: two of its five levels written.
    fs::write(sb.db_dir().join("later.kdb.partial"), support::interrupted(&fs::read(&small).unwrap(), 2)).unwrap();
    // A build whose every level is written, not yet renamed into place.
    fs::copy(&small, sb.db_dir().join("renamed-next.kdb.partial")).unwrap();
    // An archive, and a file named like one that is not.
    let archive = sb.db_dir().join("kept.kdb.zst").to_string_lossy().into_owned();
    sb.ok(&["db", "pack", &small.to_string_lossy(), "-o", &archive]);
    fs::write(sb.db_dir().join("fake.kdb.zst"), "this file is not an archive of a database").unwrap();

    let l = sb.json(&["db", "list", "--json"]);
    assert_eq!((&l["why"], &l["exists"]), (&Value::from("$KALAH_DB_DIR"), &Value::from(true)), "{l}");
    let dbs = l["databases"].as_array().unwrap_or_else(|| panic!("no databases array: {l}"));
    let row = |d: &Value| (d["houses"].as_u64().unwrap(), d["max_seeds"].as_u64().unwrap(), d["default"].as_bool().unwrap());
    assert_eq!(dbs.iter().map(row).collect::<Vec<_>>(), [(2, 4, true), (2, 4, false), (3, 6, true)], "{l}");
    assert!(dbs[1]["path"].as_str().unwrap().ends_with("mine.kdb"), "{l}");
    assert_eq!(dbs[1]["rules"]["capture"], "empty", "{l}");
    assert_eq!(dbs[0]["bytes"].as_u64(), Some(fs::metadata(&small).unwrap().len()), "{l}");
    let partial = l["partial"].as_array().unwrap();
    assert_eq!(partial.len(), 2, "{l}");
    assert!(partial[0]["path"].as_str().unwrap().ends_with("later.kdb.partial"), "{l}");
    assert_eq!((partial[0]["levels_done"].as_u64(), partial[0]["levels"].as_u64()), (Some(2), Some(5)), "{l}");
    assert_eq!((partial[1]["levels_done"].as_u64(), partial[1]["levels"].as_u64()), (Some(5), Some(5)), "{l}");
    let archives = l["archives"].as_array().unwrap();
    assert_eq!(archives.len(), 1, "{l}");
    assert!(archives[0]["path"].as_str().unwrap().ends_with("kept.kdb.zst"), "{l}");
    assert_eq!((archives[0]["houses"].as_u64(), archives[0]["max_seeds"].as_u64()), (Some(2), Some(4)), "{l}");
    let refused = l["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 3, "{l}");
    assert!(
        refused[0]["path"].as_str().unwrap().ends_with("fake.kdb.zst")
            && refused[0]["error"].as_str().unwrap().contains("not a kalah database archive"),
        "{l}"
    );
    assert!(refused[1]["path"].as_str().unwrap().ends_with("junk.kdb") && refused[1]["error"].as_str().unwrap().contains("junk.kdb"), "{l}");
    assert!(
        refused[2]["path"].as_str().unwrap().ends_with(&mislabelled)
            && refused[2]["error"].as_str().unwrap().contains("named as the default database of 2 houses, 4 seeds and capture=standard"),
        "{l}"
    );

    let r = sb.ok(&["db", "list"]);
    for needle in [
        "mine.kdb",
        "not the default name",
        "2 of 5 levels",
        "later.kdb.partial",
        "not yet renamed",
        "kept.kdb.zst",
        "db unpack",
        "refused",
        "junk.kdb",
    ] {
        assert!(r.stdout.contains(needle), "db list should mention {needle:?}\n{}", r.describe());
    }
    assert!(!r.stdout.contains("notes.txt"), "{}", r.describe());
    // Another directory, and one that is not there.
    let other = sb.file("");
    let r = sb.ok(&["db", "list", &other]);
    assert!(r.stdout.contains("no databases"), "{}", r.describe());
    sb.user_error(&["db", "list", &sb.file("missing")], &["missing", "No such file"]);
}

/// A clockwise position small enough for retrograde analysis of every
/// board up to its seeds needs no database: a file given is said to be
/// unused, and the JSON names none (it named the file). (Regression: the
/// bad-input sweep of 2026-12-02, RELIABILITY.md.)
#[test]
fn a_database_retrograde_analysis_does_not_need_is_said_unused() {
    let sb = Sandbox::new();
    let file = sb.file("cw8.kdb");
    sb.build(3, 8, &["--sowing", "cw"], Some(&file));
    let v = sb.json(&["solve", "3", "3", "--sowing", "cw", "--db", &file, "--json"]);
    assert!(v["database"].is_null(), "{v}");
    assert_eq!(v["source"], "retrograde", "{v}");
    let r = sb.ok(&["solve", "3", "3", "--sowing", "cw", "--db", &file]);
    assert!(r.stderr.contains("cw8.kdb (up to 8 seeds) is not used"), "{}", r.describe());
}

/// Without a database file, `solve`, `query` and the openings build one
/// in memory (`--db-seeds N`, or by default for positions of 46 seeds or
/// more); it must give the values a plain search gives.
#[test]
fn databases_built_in_memory_agree_with_the_search() {
    let sb = Sandbox::new();
    // A search backed by an 8-seed database built in memory.
    let b = sb.solve(&["4", "3", "--db-seeds", "8", "--no-book"]);
    let s = sb.solve(&["4", "3", "--no-db", "--no-book"]);
    assert_eq!(b["source"], "search", "{b}");
    assert!(b["database"]["path"].is_null(), "built in memory: no path\n{b}");
    assert_eq!(b["database"]["max_seeds"], 8, "{b}");
    assert!(b["database"]["build_seconds"].as_f64().is_some_and(|t| t >= 0.0), "{b}");
    assert_eq!(value_of(&b), value_of(&s), "{b}\n{s}");
    assert_same_moves(&b, &s, "built 8-seed database vs search");

    // A position the built database covers is probed.
    let p = "1,0,2,0,0,2,1,0 S";
    let q = sb.query(&["--position", p, "--db-seeds", "12"]);
    assert_eq!(q["source"], "database", "{q}");
    let s = sb.query(&["--position", p, "--no-db"]);
    assert_eq!(value_of(&q), value_of(&s), "{q}\n{s}");
    assert_same_moves(&q, &s, "built database probe vs search");

    // By default from 46 seeds on: on six houses 30 seeds fewer than the
    // position, two more for each house fewer and for every move's
    // value; at most 24.
    let p = "12,11,0,12,11,0 S";
    let q = sb.query(&["--position", p, "--no-memory"]);
    assert_eq!(q["database"]["max_seeds"], 24, "{q}");
    assert!(q["database"]["path"].is_null(), "{q}");
    assert!(q["database"].get("saved_as").is_none(), "--no-memory keeps nothing\n{q}");
    let s = sb.query(&["--position", p, "--no-db"]);
    assert!(s["database"].is_null(), "{s}");
    assert_eq!(value_of(&q), value_of(&s), "{q}\n{s}");
    assert_same_moves(&q, &s, "default built database vs search");
    let q = sb.query(&["--position", p, "--db-seeds", "0"]);
    assert!(q["database"].is_null(), "--db-seeds 0 builds none\n{q}");
    let q = sb.query(&["--position", "12,10,0,12,11,0 S"]);
    assert!(q["database"].is_null(), "45 seeds: none by default\n{q}");
    // With the search memory on, the database built by default is kept
    // in the database folder, and the next query loads it.
    let first = sb.query(&["--position", p]);
    assert!(first["database"]["path"].is_null(), "built first\n{first}");
    assert!(
        first["database"]["saved_as"].as_str().is_some_and(|f| f.ends_with("kalah-h2-n24-standard-instant-owner-ccw-relayoff.kdb")),
        "kept\n{first}"
    );
    // (Another position of 46 seeds: the first one's answer is kept, and
    // would answer it at once.)
    let p2 = "11,12,0,12,11,0 S";
    let again = sb.query(&["--position", p2]);
    let kept = again["database"]["path"].as_str().unwrap_or_default();
    assert!(kept.ends_with("kalah-h2-n24-standard-instant-owner-ccw-relayoff.kdb") && kept.starts_with(&*sb.db_dir().to_string_lossy()), "{again}");
    let s2 = sb.query(&["--position", p2, "--no-db"]);
    assert_eq!(value_of(&again), value_of(&s2), "{again}\n{s2}");
    assert_same_moves(&again, &s2, "kept database vs search");
    let answered = sb.query(&["--position", p]);
    assert_eq!(answered["source"], "kept", "{answered}");
    assert_same_moves(&answered, &s, "a kept answer vs search");

    // The openings with a database that covers them all, and with none.
    let o = sb.json(&["solve", "3", "2", "--openings", "--db-seeds", "12", "--json"]);
    let s = sb.json(&["solve", "3", "2", "--openings", "--no-db", "--json"]);
    assert_eq!(o["openings"], s["openings"], "{o}\n{s}");

    // A file that covers what is asked is used instead.
    sb.build(3, 6, &["--capture", "empty"], None);
    let q = sb.query(&["--position", "3,3,3,0,3,3,3,0 S", "--capture", "empty", "--db-seeds", "6"]);
    assert!(q["database"]["path"].as_str().is_some_and(|p| p.ends_with(".kdb")), "{q}");

    // Refused: with --no-db, and beyond one-byte values.
    sb.user_error(&["solve", "4", "3", "--no-db", "--db-seeds", "4"], &["--no-db", "--db-seeds"]);
    sb.user_error(&["solve", "4", "3", "--db-seeds", "200"], &["200-seed", "127", "(see --db-seeds)"]);
    sb.user_error(&["table", "--houses", "4", "--seeds", "3", "--db-seeds", "200"], &["200-seed", "127", "(see --db-seeds)"]);
}

// ---------------------------------------------------------------------------
// 4. bad input
// ---------------------------------------------------------------------------

#[test]
fn bad_board_sizes() {
    let sb = Sandbox::new();
    sb.user_error(&["solve", "9", "4", "--tt-mb", "16"], &["9"]);
    sb.user_error(&["solve", "9", "4", "--tt-mb", "16", "--json"], &["9"]);
    sb.user_error(&["solve", "0", "4", "--tt-mb", "16"], &["0"]);
    sb.user_error(&["solve", "3", "0", "--tt-mb", "16"], &["0"]);
    sb.user_error(&["solve", "3", "0", "--tt-mb", "16", "--json"], &["0"]);
    sb.usage_error(&["solve", "6", "x", "--tt-mb", "16"], &["'x'"]);
    sb.usage_error(&["solve", "x", "4", "--tt-mb", "16"], &["'x'"]);
    sb.usage_error(&["solve", "3", "-2", "--tt-mb", "16"], &["-2"]);
    // H without S.
    sb.user_error(&["solve", "6", "--tt-mb", "16"], &["S"]);
    sb.user_error(&["solve", "6", "--tt-mb", "16", "--json"], &["S"]);
}

#[test]
fn bad_positions() {
    let sb = Sandbox::new();
    for cmd in ["solve", "query"] {
        // Negative seeds.
        sb.user_error(&[cmd, "--position", "3,-1,3,0,3,3,3,0 S", "--tt-mb", "16"], &["--position", "-1"]);
        sb.user_error(&[cmd, "--position", "S:3-3-3:0 N:3--2-3:0 S", "--tt-mb", "16", "--json"], &["--position"]);
        // Wrong number of cells.
        sb.user_error(&[cmd, "--position", "3,3,3,0,3,3,3 S", "--tt-mb", "16"], &["--position", "7"]);
        sb.user_error(&[cmd, "--position", "3,3,0,3,3,0,0,0,0 S", "--tt-mb", "16", "--json"], &["--position"]);
        sb.user_error(&[cmd, "--position", "S:3-3-3:0 N:3-3:0 S", "--tt-mb", "16"], &["--position"]);
        // A bad side letter.
        sb.user_error(&[cmd, "--position", "3,3,3,0,3,3,3,0 X", "--tt-mb", "16"], &["--position", "X"]);
        sb.user_error(&[cmd, "--position", "S:3-3-3:0 X:3-3-3:0 S", "--tt-mb", "16", "--json"], &["--position", "X"]);
        sb.user_error(&[cmd, "--position", "S:3-3-3:0 N:3-3-3:0 Q", "--tt-mb", "16"], &["--position", "Q"]);
        // Not a number; empty.
        sb.user_error(&[cmd, "--position", "3,3,a,0,3,3,3,0 S", "--tt-mb", "16"], &["--position", "a"]);
        sb.user_error(&[cmd, "--position", "", "--tt-mb", "16"], &["--position"]);
    }
}

#[test]
fn bad_rule_names() {
    let sb = Sandbox::new();
    sb.usage_error(&["solve", "3", "3", "--capture", "sideways", "--tt-mb", "16"], &["--capture", "sideways"]);
    sb.usage_error(&["solve", "3", "3", "--sowing", "up", "--tt-mb", "16"], &["--sowing", "up"]);
    sb.usage_error(&["query", "--position", "3,3,3,0,3,3,3,0 S", "--end", "later"], &["--end", "later"]);
    sb.usage_error(&["query", "--position", "3,3,3,0,3,3,3,0 S", "--leftovers", "mine", "--json"], &["--leftovers", "mine"]);
    sb.usage_error(&["db", "build", "--houses", "3", "--max-seeds", "4", "--relay", "maybe"], &["--relay", "maybe"]);
    sb.usage_error(&["solve", "3", "3", "--frobnicate"], &["--frobnicate"]);
}

#[test]
fn bad_search_resources() {
    let sb = Sandbox::new();
    sb.user_error(&["solve", "3", "3", "--tt-mb", "0"], &["--tt-mb"]);
    sb.user_error(&["solve", "3", "3", "--tt-mb", "0", "--json"], &["--tt-mb"]);
    sb.user_error(&["query", "--position", "3,3,3,0,3,3,3,0 S", "--tt-mb", "0"], &["--tt-mb"]);
    sb.user_error(&["solve", "3", "3", "--tt-mb", "16", "--threads", "0"], &["--threads"]);
    sb.user_error(&["query", "--position", "3,3,3,0,3,3,3,0 S", "--tt-mb", "16", "--threads", "0", "--json"], &["--threads"]);
    sb.usage_error(&["solve", "3", "3", "--tt-mb", "-1"], &["-1"]);
    sb.usage_error(&["solve", "3", "3", "--threads", "many"], &["--threads", "many"]);
    let out = sb.file("never.kdb");
    sb.user_error(&["db", "build", "--houses", "3", "--max-seeds", "4", "--threads", "0", "-o", &out], &["--threads"]);
    assert!(!Path::new(&out).exists(), "a refused build must not leave a file");
}

#[test]
fn db_build_refuses_absurd_sizes() {
    let sb = Sandbox::new();
    let out = sb.file("huge.kdb");
    sb.user_error(&["db", "build", "--houses", "3", "--max-seeds", "1000", "-o", &out], &["1000"]);
    sb.user_error(&["db", "build", "--houses", "3", "--max-seeds", "1000", "-o", &out, "--json"], &["1000"]);
    sb.user_error(&["db", "build", "--houses", "9", "--max-seeds", "4", "-o", &out], &["9"]);
    sb.user_error(&["db", "build", "--houses", "0", "--max-seeds", "4", "-o", &out], &["0"]);
    assert!(!Path::new(&out).exists(), "a refused build must not leave a file");
    sb.usage_error(&["db", "build", "--houses", "3"], &["--max-seeds"]);
}

#[test]
fn db_probe_of_bad_files() {
    let sb = Sandbox::new();
    let p = "1,2,0,0,0,3,1,0 S";
    // Missing file.
    let missing = sb.file("missing.kdb");
    sb.user_error(&["db", "probe", &missing, "--position", p, "--json"], &["missing.kdb"]);
    sb.user_error(&["db", "info", &missing], &["missing.kdb"]);
    sb.user_error(&["db", "verify", &missing, "--json"], &["missing.kdb"]);
    // A directory.
    let dir = sb.file("a-directory.kdb");
    fs::create_dir_all(&dir).unwrap();
    sb.user_error(&["db", "probe", &dir, "--position", p, "--json"], &["a-directory.kdb"]);
    sb.user_error(&["db", "info", &dir], &["a-directory.kdb"]);
    // A text file, short and long.
    let text = sb.file("notes.txt");
    fs::write(&text, "this is not a database\n").unwrap();
    sb.user_error(&["db", "probe", &text, "--position", p, "--json"], &["notes.txt"]);
    sb.user_error(&["db", "info", &text, "--json"], &["notes.txt"]);
    let long = sb.file("long.txt");
    fs::write(&long, "not a database at all\n".repeat(500)).unwrap();
    sb.user_error(&["db", "probe", &long, "--position", p], &["long.txt"]);
    sb.user_error(&["db", "verify", &long], &["long.txt"]);
    // An empty file.
    let empty = sb.file("empty.kdb");
    fs::write(&empty, b"").unwrap();
    sb.user_error(&["db", "probe", &empty, "--position", p], &["empty.kdb"]);
    // A truncated database, at several lengths.
    let db = sb.file("t.kdb");
    sb.build(3, 9, &[], Some(&db));
    let bytes = fs::read(&db).unwrap();
    for (i, len) in [bytes.len() - 1, bytes.len() / 2, 64, 8].into_iter().enumerate() {
        let cut = sb.file(&format!("cut{i}.kdb"));
        fs::write(&cut, &bytes[..len]).unwrap();
        sb.user_error(&["db", "probe", &cut, "--position", p, "--json"], &[&format!("cut{i}.kdb")]);
        sb.user_error(&["db", "info", &cut], &[&format!("cut{i}.kdb")]);
        sb.user_error(&["db", "verify", &cut, "--json"], &[&format!("cut{i}.kdb")]);
        sb.user_error(&["query", "--position", p, "--db", &cut, "--tt-mb", "16", "--json"], &[&format!("cut{i}.kdb")]);
    }
    // unpack of something that is not an archive.
    sb.user_error(&["db", "unpack", &text, "-o", &sb.file("out.kdb")], &["notes.txt"]);
    sb.user_error(&["db", "unpack", &sb.file("nothing.zst")], &["nothing.zst"]);
}

/// Builds a 3-house, 9-seed database and a copy of it with one byte of the
/// 9-seed level's values flipped (found through `db info --json`); returns
/// the damaged file's path.
fn damaged_database(sb: &Sandbox) -> String {
    let db = sb.file("t.kdb");
    sb.build(3, 9, &[], Some(&db));
    let bytes = fs::read(&db).unwrap();
    let info = sb.json(&["db", "info", &db, "--json"]);
    let level = info["levels"]
        .as_array()
        .and_then(|l| l.iter().find(|e| e["seeds"] == 9))
        .unwrap_or_else(|| panic!("db info --json lists no level 9: {info}"));
    let offset = level["offset"].as_u64().expect("level offset") as usize;
    let boards = level["boards"].as_u64().expect("level boards") as usize;
    assert!(offset + boards <= bytes.len(), "level 9 lies outside the file: {info}");
    let mut damaged = bytes;
    damaged[offset + boards / 2] ^= 0x55;
    let bad = sb.file("damaged.kdb");
    fs::write(&bad, &damaged).unwrap();
    bad
}

/// `db verify` and `db probe` refuse a damaged database.
#[test]
fn damaged_database_verify_and_probe() {
    let sb = Sandbox::new();
    let bad = damaged_database(&sb);
    let r = sb.run(&["db", "verify", &bad, "--json"]);
    r.assert_no_panic();
    assert_ne!(r.code, Some(0), "db verify must fail on a damaged database\n{}", r.describe());
    sb.user_error(&["db", "verify", &bad, "--json"], &["damaged.kdb"]);
    sb.user_error(&["db", "verify", &bad], &["damaged.kdb"]);
    sb.user_error(&["db", "probe", &bad, "--position", "2,2,1,0,1,1,2,0 S", "--json"], &["damaged.kdb"]);
    // Levels below the damaged one still answer (moves never add seeds to the houses).
    let intact = sb.file("t.kdb");
    let p = "2,2,1,0,1,1,1,0 S";
    let a = sb.json(&["db", "probe", &bad, "--position", p, "--json"]);
    let b = sb.json(&["db", "probe", &intact, "--position", p, "--json"]);
    assert_eq!(a["value"], b["value"], "{a}\n{b}");
}

/// `query --db` of a position the damaged database covers.
#[test]
fn damaged_database_query_in_range() {
    let sb = Sandbox::new();
    let bad = damaged_database(&sb);
    sb.user_error(&["query", "--position", "2,2,1,0,1,1,2,0 S", "--db", &bad, "--tt-mb", "16", "--json"], &["damaged.kdb"]);
}

/// A search that reaches the damaged level reports the damage instead of a value.
#[test]
fn damaged_database_search_beyond() {
    let sb = Sandbox::new();
    let bad = damaged_database(&sb);
    sb.user_error(&["query", "--position", "3,3,3,0,3,3,3,0 S", "--db", &bad, "--tt-mb", "16", "--json"], &["damaged.kdb"]);
    sb.user_error(&["solve", "3", "3", "--db", &bad, "--tt-mb", "16", "--threads", "1", "--json"], &["damaged.kdb"]);
}

#[test]
fn db_refuses_requests_it_cannot_answer() {
    let sb = Sandbox::new();
    let db = sb.file("t.kdb");
    sb.build(3, 9, &[], Some(&db));
    // More seeds than the database covers.
    sb.user_error(&["db", "probe", &db, "--position", "3,3,3,0,3,3,3,0 S", "--json"], &["18", "9"]);
    sb.user_error(&["db", "probe", &db, "--position", "3,3,3,0,3,3,3,0 S"], &["18", "9"]);
    // Another board size.
    sb.user_error(&["db", "probe", &db, "--position", "1,1,1,1,0,1,1,1,1,0 S", "--json"], &["4", "3"]);
    // A bad position.
    sb.user_error(&["db", "probe", &db, "--position", "1,1,1,0,1,1,1 S"], &["--position"]);
    // A database of other rules given to query --db: refused, naming the rules.
    sb.user_error(
        &["query", "--position", "1,2,0,0,0,3,1,0 S", "--capture", "empty", "--db", &db, "--tt-mb", "16", "--json"],
        &["capture=empty", "capture=standard"],
    );
    sb.user_error(&["query", "--position", "1,2,0,0,0,3,1,0 S", "--sowing", "cw", "--db", &db, "--tt-mb", "16"], &["sowing=cw", "sowing=ccw"]);
    sb.user_error(
        &["solve", "--position", "1,2,0,0,0,3,1,0 S", "--end", "turn", "--db", &db, "--tt-mb", "16", "--json"],
        &["end=turn", "end=instant"],
    );
    // Another board size given to query --db.
    sb.user_error(&["query", "--position", "1,1,1,1,0,1,1,1,1,0 S", "--db", &db, "--tt-mb", "16"], &["4", "3"]);
    // --db and --no-db together.
    sb.usage_error(&["query", "--position", "1,2,0,0,0,3,1,0 S", "--db", &db, "--no-db"], &["--no-db"]);
    // --position with H S.
    sb.usage_error(&["solve", "3", "3", "--position", "1,2,0,0,0,3,1,0 S"], &["--position"]);
}

// ---------------------------------------------------------------------------
// 5. help
// ---------------------------------------------------------------------------

#[test]
fn help_exits_zero_and_names_the_rule_options() {
    let sb = Sandbox::new();
    let r = sb.ok(&["--help"]);
    for word in ["solve", "query", "db", "--capture", "--sowing"] {
        assert!(r.stdout.contains(word), "kalah --help should mention {word}\n{}", r.describe());
    }
    for cmd in [&["solve", "--help"][..], &["query", "--help"][..], &["db", "build", "--help"][..]] {
        let r = sb.ok(cmd);
        for flag in ["--capture", "--end", "--leftovers", "--sowing", "--relay"] {
            assert!(r.stdout.contains(flag), "{cmd:?} should mention {flag}\n{}", r.describe());
        }
        for value in ["empty", "turn", "unscored", "emptier", "cw"] {
            assert!(r.stdout.contains(value), "{cmd:?} should mention the value {value}\n{}", r.describe());
        }
    }
    for cmd in [&["db", "--help"][..], &["db", "probe", "--help"][..], &["solve", "-h"][..]] {
        sb.ok(cmd);
    }
    let v = sb.ok(&["--version"]);
    assert!(v.stdout.contains("kalah"), "{}", v.describe());
}

/// RULES.md: every rule option is a flag of the same name, including the
/// opening options `--pie` and `--shift`.
#[test]
fn help_names_the_opening_options_pie_and_shift() {
    let sb = Sandbox::new();
    let r = sb.ok(&["solve", "--help"]);
    for flag in ["--pie", "--shift"] {
        assert!(r.stdout.contains(flag), "kalah solve --help should mention {flag} (RULES.md: rule options)\n{}", r.describe());
    }
}

/// `kalah table`: every entry of h, s <= 3 with empty capture is exact and
/// matches the published value (Irving et al.); clockwise entries are
/// exact and equal `solve`'s retrograde values.
#[test]
fn table_reproduces_the_published_small_values() {
    let sb = Sandbox::new();
    let t = sb.json(&["table", "--houses", "1-3", "--seeds", "1-3", "--capture", "empty", "--threads", "1", "--json"]);
    let entries = t["entries"].as_array().unwrap_or_else(|| panic!("no entries: {t}"));
    assert_eq!(entries.len(), 9, "{t}");
    for e in entries {
        assert_eq!(e["exact"], true, "{e}");
        assert_eq!(e["check"], "match", "{e}");
        let v = e["value"].as_i64().unwrap();
        let agrees = match e["published"]["value"].as_str().unwrap_or_default() {
            "W" => v > 0,
            "L" => v < 0,
            "D" => v == 0,
            number => number.parse::<i64>().ok() == Some(v),
        };
        assert!(agrees, "{e}");
    }
    let t = sb.json(&["table", "--houses", "2-3", "--seeds", "1-2", "--sowing", "cw", "--threads", "1", "--json"]);
    for e in t["entries"].as_array().unwrap() {
        assert_eq!(e["exact"], true, "{e}");
        let (h, s) = (e["houses"].to_string(), e["seeds"].to_string());
        let solved = sb.solve(&[&h, &s, "--sowing", "cw"]);
        assert_eq!(e["value"], solved["value"], "Kalah({h},{s}) clockwise: {e} against {solved}");
    }
}

/// `kalah table` backs its searches with the default database `solve`
/// would use for a value of its largest start, not simply the largest
/// file: a far larger file costs more to load than it saves.
#[test]
fn table_uses_the_database_solve_would() {
    let sb = Sandbox::new();
    for n in [6, 12] {
        sb.build(3, n, &["--capture", "empty"], None);
    }
    // Kalah(3,1) and Kalah(3,2) have at most 12 seeds: the 12-seed file answers both.
    let t = sb.json(&["table", "--houses", "3", "--seeds", "1-2", "--capture", "empty", "--threads", "1", "--json"]);
    let entries = t["entries"].as_array().unwrap_or_else(|| panic!("no entries: {t}"));
    assert_eq!(entries.len(), 2, "{t}");
    for e in entries {
        assert_eq!(e["database_seeds"], 12, "{e}");
        assert_eq!(e["method"], "database", "{e}");
    }
    // Up to Kalah(3,3), 18 seeds: the file `solve --value-only` picks.
    // (Not from the book or the start values this project ships: a search.)
    let solved = sb.solve(&["3", "3", "--capture", "empty", "--value-only", "--no-book"]);
    assert_eq!(solved["database"]["max_seeds"], 6, "within 24 seeds below the start, the smallest: {solved}");
    let t = sb.json(&["table", "--houses", "3", "--seeds", "1-3", "--capture", "empty", "--threads", "1", "--json"]);
    let entries = t["entries"].as_array().unwrap_or_else(|| panic!("no entries: {t}"));
    assert_eq!(entries.len(), 3, "{t}");
    for e in entries {
        assert_eq!(e["database_seeds"], solved["database"]["max_seeds"], "{e}");
        assert_eq!(e["check"], "match", "{e}");
    }
    assert_eq!(entries[0]["method"], "database", "Kalah(3,1) has 6 seeds: {t}");
    assert_eq!(entries[2]["method"], "search", "{t}");
    assert_eq!(entries[2]["value"], solved["value"], "{t}");
}

/// `kalah table`, clockwise, with a database smaller than a start: the
/// starts it covers are exact, the larger one gets proven bounds from
/// searches over it, which hold the value retrograde analysis of every
/// board gives (`solve`); at this size they meet.
#[test]
fn table_bounds_clockwise_starts_above_its_database() {
    let sb = Sandbox::new();
    for relay in ["off", "on"] {
        let t = sb.json(&[
            "table",
            "--houses",
            "3",
            "--seeds",
            "2-3",
            "--sowing",
            "cw",
            "--relay",
            relay,
            "--db-seeds",
            "12",
            "--time-limit",
            "30",
            "--json",
        ]);
        let entries = t["entries"].as_array().unwrap_or_else(|| panic!("no entries: {t}"));
        assert_eq!(entries.len(), 2, "{t}");
        assert_eq!(entries[0]["method"], "database", "{t}");
        assert!(entries[1]["method"].as_str().unwrap().starts_with("bounds"), "{t}");
        let solved = sb.solve(&["3", "3", "--sowing", "cw", "--relay", relay]);
        let value = solved["value"].as_i64().unwrap();
        let (lower, upper) = (entries[1]["lower"].as_i64().unwrap(), entries[1]["upper"].as_i64().unwrap());
        assert!(lower <= value && value <= upper, "relay {relay}: Kalah(3,3) = {value}, bounds {lower}..{upper}");
        assert_eq!(entries[1]["value"], solved["value"], "relay {relay}: {t}");
    }
}

/// Issue 39: `solve` and `play` take the board size as `H S` or as
/// `--houses H --seeds S`, the way `table` takes it; not both.
#[test]
fn the_board_size_as_flags_or_positional() {
    let sb = Sandbox::new();
    let positional = sb.json(&["solve", "3", "2", "--no-db", "--value-only", "--json"]);
    let flags = sb.json(&["solve", "--houses", "3", "--seeds", "2", "--no-db", "--value-only", "--json"]);
    assert_eq!(positional["position"], "2,2,2,0,2,2,2,0 S");
    assert_eq!(flags["position"], positional["position"]);
    assert_eq!(flags["value"], positional["value"]);
    let mixed = sb.json(&["solve", "3", "--seeds", "2", "--no-db", "--value-only", "--json"]);
    assert_eq!(mixed["position"], positional["position"]);
    let both = sb.run(&["solve", "3", "2", "--houses", "4"]);
    assert_eq!(both.code, Some(2), "{}", both.stderr);
    assert!(both.stderr.contains("cannot be used with"), "{}", both.stderr);
}

/// Issue 39, item 4: `strong` takes `H S` or `--houses H --seeds S`,
/// `db build` takes `H N` or `--houses H --max-seeds N`, and `table` takes
/// `H S` ranges or `--houses`/`--seeds`; either way the same answer or
/// file, and a size left out is refused naming both ways.
#[test]
fn strong_db_build_and_table_take_the_size_either_way() {
    let sb = Sandbox::new();
    let table = |args: &[&str]| {
        let mut all = vec!["table"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--capture", "empty", "--threads", "1", "--json"]);
        let t = sb.json(&all);
        let entries = t["entries"].as_array().unwrap_or_else(|| panic!("no entries: {t}")).clone();
        entries.iter().map(|e| (e["houses"].as_u64(), e["seeds"].as_u64(), e["value"].as_i64())).collect::<Vec<_>>()
    };
    let positional = table(&["2-3", "2"]);
    assert_eq!(positional.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(), [(Some(2), Some(2)), (Some(3), Some(2))]);
    assert_eq!(positional, table(&["--houses", "2-3", "--seeds", "2"]));
    sb.usage_error(&["table", "3", "--houses", "3"], &["cannot be used with"]);

    // The JSON answer and the bytes of the file a command writes.
    let written = |command: &[&str], args: &[&str], file: &str| {
        let out = sb.file(file);
        let mut all = command.to_vec();
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", &out, "--json"]);
        let v = sb.json(&all);
        (v, std::fs::read(&out).unwrap_or_else(|e| panic!("{all:?} wrote no file: {e}")))
    };
    let strong = |args: &[&str], file: &str| written(&["strong"], args, file);
    let (positional, positional_bytes) = strong(&["2", "2"], "p.kdb");
    let (flags, flags_bytes) = strong(&["--houses", "2", "--seeds", "2"], "f.kdb");
    assert_eq!(positional["max_seeds"], 8, "{positional}");
    for field in ["houses", "seeds", "max_seeds", "value", "sha256", "won", "drawn", "lost", "reachable_positions"] {
        assert_eq!(positional[field], flags[field], "{field}: {positional}\n{flags}");
    }
    assert!(positional_bytes == flags_bytes, "the two strong solutions differ");

    let build = |args: &[&str], file: &str| written(&["db", "build"], args, file);
    let (positional, positional_bytes) = build(&["3", "6"], "b.kdb");
    let (flags, flags_bytes) = build(&["--houses", "3", "--max-seeds", "6"], "c.kdb");
    assert_eq!((positional["houses"].as_u64(), positional["max_seeds"].as_u64()), (Some(3), Some(6)), "{positional}");
    assert_eq!(positional["boards"], flags["boards"], "{positional}\n{flags}");
    assert!(positional_bytes == flags_bytes, "the two builds differ");
    // Six houses when H is left out.
    let (six, _) = build(&["--max-seeds", "2"], "d.kdb");
    assert_eq!(six["houses"], 6, "{six}");

    for args in [&["strong", "3"][..], &["strong"], &["strong", "--houses", "3"]] {
        sb.usage_error(args, &["kalah strong H S", "--houses H --seeds S"]);
    }
    for args in [&["db", "build", "3"][..], &["db", "build"], &["db", "build", "--houses", "3"]] {
        sb.usage_error(args, &["kalah db build H N", "--houses H --max-seeds N"]);
    }
    sb.usage_error(&["db", "build", "3", "6", "--max-seeds", "6"], &["cannot be used with"]);
    sb.usage_error(&["strong", "2", "2", "--seeds", "2"], &["cannot be used with"]);
}

/// A search likely to be long says so before it starts, with what
/// comparable measured searches took; it is stopped here once it has.
#[test]
fn a_long_search_says_so_before_it_starts() {
    let sandbox = Sandbox::new();
    let args = ["solve", "6", "6", "--capture", "empty", "--value-only", "--db-seeds", "0", "--no-memory"];
    let mut child = sandbox.command(&args).args(SEARCH).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("run the kalah binary");
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let (mut seen, mut buf) = (Vec::new(), [0u8; 4096]);
        while let Ok(n) = stderr.read(&mut buf) {
            seen.extend_from_slice(&buf[..n]);
            if n == 0 || String::from_utf8_lossy(&seen).contains("progress line") {
                break;
            }
        }
        String::from_utf8_lossy(&seen).into_owned()
    });
    let deadline = Instant::now() + TIME_LIMIT;
    while !reader.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let said = reader.join().unwrap();
    // No database: 72 seeds above it, farther than the measured proof of
    // Kalah(6,6), which had not finished after 103 G nodes.
    assert!(said.contains("likely a long search: the position is 72 seeds above no database"), "{said}");
    assert!(said.contains("expect more than 103 G nodes"), "{said}");
    assert!(said.contains("unfinished after 103 G nodes"), "{said}");
    // A quick search says nothing of the kind.
    let quick = sandbox.run(&["solve", "6", "3", "--value-only", "--no-memory", "--tt-mb", "16", "--threads", "1"]);
    assert_eq!(quick.code, Some(0), "{}", quick.describe());
    assert!(!quick.stderr.contains("long search"), "{}", quick.describe());
}
