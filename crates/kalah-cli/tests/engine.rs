//! `kalah engine` driven through a pipe: one answer a line, in order; the
//! values those of `kalah query --json` and of the naive reference solver;
//! a bad line answered by an error object while the engine goes on; a
//! database built in memory once for every request after it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kalah_core::{Capture, Position, Rules};
use kalah_reference::{solve, RefPosition};
use serde_json::Value;

mod documented;
use documented::{api_doc, block, shows};

const BIN: &str = env!("CARGO_BIN_EXE_kalah");

/// Runs `kalah engine ARGS` on the lines `input` with an empty database
/// directory; its answers, and the engine's stderr. Killed after a minute.
fn engine(args: &[&str], input: &str) -> (Vec<Value>, String, Option<i32>) {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .arg("engine")
        .args(args)
        .env("KALAH_DB_DIR", dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kalah engine");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let start = Instant::now();
    let out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || BufReader::new(out).lines().map(|l| l.unwrap()).collect::<Vec<_>>());
    while child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < Duration::from_secs(60), "kalah engine did not finish in a minute");
        std::thread::sleep(Duration::from_millis(20));
    }
    writer.join().unwrap();
    let lines = reader.join().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let answers = lines.iter().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not one JSON object a line ({e}): {l}"))).collect();
    (answers, stderr, child.wait().unwrap().code())
}

fn query(position: &str, capture: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let out =
        Command::new(BIN).args(["query", "--position", position, "--capture", capture, "--json"]).env("KALAH_DB_DIR", dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn answers_come_one_a_line_in_order_and_errors_do_not_stop_it() {
    let input = "\
{\"position\": \"3,3,3,3,0,3,3,3,3,0 S\", \"capture\": \"empty\"}
this is not json

{\"houses\": 3, \"seeds\": 3}
{\"position\": \"S:1-2-3:0 N:3-2-1:0 N\"}
{\"houses\": 3, \"seeds\": 3, \"capture\": \"sometimes\"}
{\"houses\": 3, \"seeds\": 3, \"db\": \"/etc/passwd\"}
{\"houses\": 2, \"seeds\": 2, \"relay\": true}
";
    let (answers, stderr, code) = engine(&["--threads", "1"], input);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(answers.len(), 7, "one answer a request line, blank lines skipped: {answers:?}");
    assert!(answers[1]["error"].as_str().unwrap().contains("not a valid request"), "{}", answers[1]);
    assert_eq!(answers[1]["kind"], "bad_input");
    assert!(answers[4]["error"].as_str().unwrap().starts_with("capture:"), "{}", answers[4]);
    // Nothing in a request names a file.
    assert!(answers[5]["error"].as_str().unwrap().contains("unknown field `db`"), "{}", answers[5]);

    // The same objects as `kalah query --json`: the same moves, in the
    // same order (best first), each with the position it leads to.
    for (answer, (position, capture)) in [(&answers[0], ("3,3,3,3,0,3,3,3,3,0 S", "empty")), (&answers[2], ("3,3,3,0,3,3,3,0 S", "standard"))] {
        let q = query(position, capture);
        // (A line of best play and a best move among equals may differ.)
        for key in ["value", "lower", "upper", "exact", "verdict", "position", "to_move", "rules"] {
            assert_eq!(answer[key], q[key], "{key} of {position}");
        }
        let best = answer["moves"].as_array().unwrap().iter().find(|m| m["house"] == answer["best_move"]).unwrap();
        assert_eq!(best["value"], answer["value"]);
        assert_eq!(answer["moves"], q["moves"], "{position}");
    }
    // The side form, and the reference solver's values.
    let p: Position = "S:1-2-3:0 N:3-2-1:0 N".parse().unwrap();
    assert_eq!(answers[3]["position"], p.ring(), "{}", answers[3]);
    assert_eq!(answers[3]["to_move"], "N");
    let rules = Rules { capture: Capture::Empty, ..Rules::default() };
    let (value, _) = solve(&rules, &RefPosition::start(4, 3));
    assert_eq!(answers[0]["value"], value);
    assert_eq!(answers[6]["rules"]["relay"], "on");
}

#[test]
fn a_search_is_held_to_the_time_limit_and_gives_bounds() {
    // Kalah(6,6) is not proven in half a second: bounds come back (not
    // from what this project has proven and ships: no book).
    let (answers, stderr, code) =
        engine(&["--threads", "2", "--time-limit", "0.5"], "{\"houses\": 6, \"seeds\": 6, \"time_limit\": 100, \"book\": false}\n");
    assert_eq!(code, Some(0), "{stderr}");
    let a = &answers[0];
    assert_eq!(a["exact"], false, "{a}");
    assert!(a["lower"].as_i64().unwrap() < a["upper"].as_i64().unwrap());
    assert!(a["seconds"].as_f64().unwrap() < 5.0, "{a}");
}

#[test]
fn a_database_built_in_memory_serves_the_requests_after_it() {
    // Kalah(6,4) under a time limit of a second: the first request builds
    // a database that fits a quarter of it, the second finds it built.
    // (Not from the opening book, which holds both.)
    let input = "{\"houses\": 6, \"seeds\": 4, \"time_limit\": 1, \"book\": false}\n{\"position\": \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 N\", \"time_limit\": 1, \"book\": \"off\"}\n";
    let (answers, stderr, code) = engine(&["--threads", "2"], input);
    assert_eq!(code, Some(0), "{stderr}");
    let built = |a: &Value| a["database"]["build_seconds"].as_f64();
    assert!(built(&answers[0]).is_some(), "{}", answers[0]);
    assert_eq!(answers[0]["database"]["max_seeds"], answers[1]["database"]["max_seeds"]);
    let (first, second) = (built(&answers[0]).unwrap(), built(&answers[1]).unwrap());
    assert!(second < first / 10.0, "the second request rebuilt the database: {first} s, then {second} s");
    assert_eq!(answers[0]["database"]["kept"], false, "{}", answers[0]);
    assert_eq!(answers[1]["database"]["kept"], true, "{}", answers[1]);
}

#[test]
fn bad_flags_are_refused_with_exit_code_2() {
    let out = Command::new(BIN).args(["engine", "--time-limit", "-1"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--time-limit"));
}

/// The examples of docs/api.md: each `request` block through the engine,
/// its answers against the `answer` block after it.
#[test]
fn the_documented_examples_are_the_engines_answers() {
    let doc = api_doc();
    let mut at = 0;
    let mut examples = 0;
    while let Some((requests, end)) = block(&doc, "request", at) {
        let (answers, after) = block(&doc, "answer", end).expect("an answer block after each request block");
        let (got, stderr, code) = engine(&["--threads", "1"], &(requests.join("\n") + "\n"));
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(got.len(), answers.len(), "{requests:?}");
        for ((request, answer), got) in requests.iter().zip(&answers).zip(&got) {
            let expected: Value = serde_json::from_str(answer).unwrap_or_else(|e| panic!("docs/api.md: {e}: {answer}"));
            shows(&expected, got).unwrap_or_else(|why| panic!("docs/api.md, {request}: {why}"));
            examples += 1;
        }
        at = after;
    }
    assert_eq!(examples, 9, "examples in docs/api.md");
}

/// A request line beyond the limit is refused without being held: a
/// 64 MiB line leaves the engine's peak memory far below its size (issue
/// 54: a 400 MiB line peaked at 414 MB), and the next request is answered.
#[test]
fn a_long_line_is_refused_without_being_held() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        // Without the book, whose tables would be most of what it holds.
        .args(["engine", "--threads", "1", "--no-book"])
        .env("KALAH_DB_DIR", dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..64 {
        stdin.write_all(&chunk).unwrap();
    }
    stdin.write_all(b"\n{\"houses\": 3, \"seeds\": 2}\n").unwrap();
    stdin.flush().unwrap();
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains("a request line longer than"), "{first}");
    let mut second = String::new();
    stdout.read_line(&mut second).unwrap();
    assert!(second.contains("\"value\":"), "{second}");
    // Still running (its stdin is open): its peak resident memory so far.
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let peak_kb: u64 = status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).unwrap().parse().unwrap();
    drop(stdin);
    child.wait().unwrap();
    assert!(peak_kb < 32 * 1024, "the engine peaked at {peak_kb} kB after a 64 MiB line");
}
