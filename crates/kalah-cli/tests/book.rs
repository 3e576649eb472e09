//! The opening book (issue 53): the book `kalah` carries is proven again on
//! a random sample every run (the seed printed: `KALAH_BOOK_SEED=N`
//! replays it); a forged entry with its checksum made right is caught by
//! `kalah book verify`; `solve` answers from the book at once, and the
//! same as without it.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use kalah::book::Book;

const BIN: &str = env!("CARGO_BIN_EXE_kalah");

fn kalah(db: &Path, args: &[&str]) -> Output {
    Command::new(BIN).args(args).env("KALAH_DB_DIR", db).stdin(Stdio::null()).output().unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_carried_book_holds_the_default_games_and_agrees_with_search_on_a_sample() {
    let dir = tempfile::tempdir().unwrap();
    let info = json(&kalah(dir.path(), &["book", "info", "--json"]));
    let section = |h: u64, s: u64, capture: &str| {
        info["sections"].as_array().unwrap().iter().find(|x| x["houses"] == h && x["seeds"] == s && x["rules"]["capture"] == capture).cloned()
    };
    for capture in ["standard", "empty"] {
        let six_four = section(6, 4, capture).unwrap_or_else(|| panic!("no Kalah(6,4) {capture} in {info}"));
        assert!(six_four["plies"].as_u64().unwrap() >= 3, "{six_four}");
    }
    let seed = std::env::var("KALAH_BOOK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 % 1_000_000_007);
    eprintln!("KALAH_BOOK_SEED={seed}");
    // The small games' entries take moments each to prove again; Kalah(6,4)'s
    // seconds (tools/book.sh's `kalah book verify --all` proves them all).
    for (game, sample) in [(["4", "3"], "8"), (["4", "4"], "6"), (["6", "3"], "3"), (["6", "4"], "1")] {
        let out =
            kalah(dir.path(), &["book", "verify", game[0], game[1], "--sample", sample, "--seed", &seed.to_string(), "--threads", "2", "--json"]);
        let report = json(&out);
        assert_eq!(report["disagreements"], 0, "Kalah({},{}), seed {seed}: {report}", game[0], game[1]);
        let per_rule = sample.parse::<u64>().unwrap();
        assert!(report["checked"].as_u64().unwrap() >= per_rule, "Kalah({},{}): {report}", game[0], game[1]);
    }
}

/// With a database file named, verify proves the games of that file's
/// rules only (it went through both capture rules and failed on the
/// other's after the first); no such game is bad input.
#[test]
fn verify_with_a_named_database_takes_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.kbk");
    let file_arg = file.to_str().unwrap();
    for capture in ["standard", "empty"] {
        json(&kalah(dir.path(), &["book", "build", "3", "3", "--plies", "2", "--capture", capture, "-o", file_arg, "--threads", "1", "--json"]));
    }
    json(&kalah(dir.path(), &["db", "build", "--houses", "3", "--max-seeds", "18", "--threads", "1", "--json"]));
    let db = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "kdb"))
        .expect("a database file");
    let info = json(&kalah(dir.path(), &["book", "info", "-f", file_arg, "--json"]));
    let standard = info["sections"].as_array().unwrap().iter().find(|x| x["rules"]["capture"] == "standard").unwrap()["entries"].as_u64().unwrap();
    let report = json(&kalah(dir.path(), &["book", "verify", "-f", file_arg, "--all", "--db", db.to_str().unwrap(), "--json"]));
    assert_eq!((report["checked"].as_u64(), &report["disagreements"]), (Some(standard), &serde_json::Value::from(0)), "{report}");
    let out = kalah(dir.path(), &["book", "verify", "-f", file_arg, "--all", "--capture", "empty", "--db", db.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no game of 3 houses"), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn a_forged_book_entry_is_caught_by_verify() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.kbk");
    let file_arg = file.to_str().unwrap();
    json(&kalah(dir.path(), &["book", "build", "3", "3", "--plies", "4", "-o", file_arg, "--threads", "1", "--json"]));
    let clean = json(&kalah(dir.path(), &["book", "verify", "-f", file_arg, "--all", "--json"]));
    assert_eq!(clean["disagreements"], 0, "{clean}");
    assert!(clean["checked"].as_u64().unwrap() >= 10, "{clean}");

    // One move that is not the best made 2 worse: a value the board allows,
    // and the line still begins with a best move, so reading cannot tell.
    let book = Book::read(&file).unwrap();
    let mut sections = book.sections().to_vec();
    let (board, entry) = sections[0]
        .entries
        .iter_mut()
        .find(|(_, e)| e.value().is_some_and(|best| e.moves.iter().flatten().any(|&v| v < best)))
        .map(|(b, e)| (*b, e))
        .expect("an entry with a move that is not best");
    let best = entry.value().unwrap();
    let worse = entry.moves.iter_mut().flatten().find(|v| **v < best).expect("a move that is not best");
    *worse -= 2;
    std::fs::write(&file, Book::new(sections).to_bytes().unwrap()).unwrap();
    let forged = Book::read(&file).expect("the forged book reads as sound");
    assert!(!forged.is_empty());

    let out = kalah(dir.path(), &["book", "verify", "-f", file_arg, "--all", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["disagreements"], 1, "{report}");
    let position = kalah::book::board_position(3, board).unwrap().ring();
    assert_eq!(report["wrong"][0]["position"], position.as_str(), "{report}");
}

#[test]
fn a_damaged_book_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.kbk");
    let file_arg = file.to_str().unwrap();
    json(&kalah(dir.path(), &["book", "build", "3", "2", "--plies", "3", "-o", file_arg, "--threads", "1", "--json"]));
    let good = std::fs::read(&file).unwrap();
    let content = zstd::decode_all(&good[..]).unwrap();
    for at in [3, 12, content.len() / 2, content.len() - 2] {
        let mut bad = content.clone();
        bad[at] ^= 0x20;
        std::fs::write(&file, zstd::bulk::compress(&bad, 3).unwrap()).unwrap();
        let out = kalah(dir.path(), &["book", "info", "-f", file_arg]);
        assert_eq!(out.status.code(), Some(2), "byte {at}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a usable opening book"), "{}", String::from_utf8_lossy(&out.stderr));
    }
}

/// `solve` of a start the book holds: at once (no node searched), from
/// the book, and the same values and line as a search without it.
#[test]
fn solve_answers_from_the_book_as_a_search_would() {
    let dir = tempfile::tempdir().unwrap();
    for capture in ["standard", "empty"] {
        let book = json(&kalah(dir.path(), &["solve", "4", "3", "--capture", capture, "--json"]));
        assert_eq!(book["source"], "book", "{book}");
        assert_eq!(book["nodes"], 0);
        let search = json(&kalah(dir.path(), &["solve", "4", "3", "--capture", capture, "--no-book", "--no-memory", "--json"]));
        assert_eq!(search["source"], "search", "{search}");
        for key in ["value", "moves", "best_move"] {
            assert_eq!(book[key], search[key], "{capture} {key}");
        }
        assert!(!book["pv"].as_array().unwrap().is_empty());
        // A line of best play need not be the search's, but it must reach the value.
        let (value, line) = (book["value"].as_i64().unwrap(), book["pv"].as_array().unwrap().clone());
        let mut position: kalah::Position = book["position"].as_str().unwrap().parse().unwrap();
        let rules = kalah::Rules { capture: capture.parse().unwrap(), ..kalah::Rules::default() };
        let engine = kalah_core::Engine::new(4, rules);
        for step in &line {
            position = position.play(&engine, step["house"].as_u64().unwrap() as usize).unwrap().0;
        }
        assert!(position.is_over(&engine), "the line ends the game");
        let south = position.store(kalah::Side::South) as i64 - position.store(kalah::Side::North) as i64;
        let leftovers = (1..=4).map(|i| position.house(kalah::Side::South, i) as i64 - position.house(kalah::Side::North, i) as i64).sum::<i64>();
        assert_eq!(south + leftovers, value, "{capture}: the line scores the value");
    }
}
