//! Database builds and solves shared between MPI ranks (issue 7), run with
//! `mpirun -np 2` (`--oversubscribe`, and as root allowed through Open
//! MPI's environment variables). Only with the `mpi` feature:
//!
//!     cargo test -p kalah-cli --features mpi --test distributed
//!
//! `.ci/run` runs these after the plain test suite, which needs no MPI.
//!
//! - A distributed build writes byte for byte the single-process file, for
//!   counter-clockwise rules (units shared out) and clockwise ones (levels
//!   solved by rank 0 and broadcast).
//! - A build whose rank fails resumes from its last complete level,
//!   recomputing none of the finished levels, on any number of ranks.
//! - A distributed solve finds the single-process value and move values.
//! - The 20-seed database built on 2 ranks is the single-process file, and
//!   Kalah(6,4) with empty capture
//!   solved on 2 ranks with it is +10.
#![cfg(feature = "mpi")]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_kalah");

/// Runs `kalah args` on `ranks` ranks; Open MPI may run as root (CI
/// containers) and put more ranks than cores on this machine.
fn mpirun(ranks: usize, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new("mpirun");
    command
        .args(["-np", &ranks.to_string(), "--oversubscribe", BIN])
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .env("KALAH_DB_DIR", db_dir());
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("mpirun runs (Open MPI: apt-get install openmpi-bin)")
}

/// Runs `kalah args` as one plain process.
fn single(args: &[&str]) -> Output {
    Command::new(BIN).args(args).env("KALAH_DB_DIR", db_dir()).output().expect("kalah runs")
}

/// The database folder of every command these tests run: one of their
/// own, so that none reads or writes the repository's `data/db` (nor its
/// search memory).
fn db_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory")).path()
}

fn describe(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "failed:\n{}", describe(&o));
    o
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not one JSON object ({e}):\n{}", describe(o)))
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("kalah-mpi-test").tempdir().expect("temp dir")
}

fn path_arg(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn a_distributed_build_writes_the_single_process_file() {
    let dir = scratch();
    let cases: [&[&str]; 3] = [
        &["--houses", "5", "--max-seeds", "14", "--capture", "empty"],
        &["--houses", "4", "--max-seeds", "16", "--end", "turn", "--relay"],
        // Clockwise: rank 0 solves each level and broadcasts it.
        &["--houses", "3", "--max-seeds", "9", "--sowing", "cw", "--leftovers", "unscored"],
    ];
    for (i, rules) in cases.iter().enumerate() {
        let one = dir.path().join(format!("one-{i}.kdb"));
        let two = dir.path().join(format!("two-{i}.kdb"));
        let mut args = vec!["db", "build", "--threads", "1"];
        args.extend_from_slice(rules);
        let one_arg = path_arg(&one);
        let two_arg = path_arg(&two);
        ok(single(&[&args[..], &["-o", &one_arg]].concat()));
        let o = ok(mpirun(2, &[&args[..], &["-o", &two_arg, "--json"]].concat(), &[]));
        assert_eq!(json(&o)["ranks"], 2, "{}", describe(&o));
        assert!(read(&one) == read(&two), "{rules:?}: the files differ");
        ok(single(&["db", "verify", &two_arg]));
    }
}

#[test]
fn a_build_whose_rank_fails_resumes_from_its_last_complete_level() {
    // Issue 7: a level whose part did not finish is recomputed on restart;
    // finished levels never are.
    let dir = scratch();
    let reference = dir.path().join("reference.kdb");
    let file = dir.path().join("resumed.kdb");
    let rules = ["--houses", "5", "--max-seeds", "14", "--capture", "empty", "--threads", "1"];
    let (reference_arg, file_arg) = (path_arg(&reference), path_arg(&file));
    ok(single(&[&["db", "build"][..], &rules, &["-o", &reference_arg]].concat()));

    let args = [&["db", "build"][..], &rules, &["-o", &file_arg, "--json"]].concat();
    let failed = mpirun(2, &args, &[("KALAH_MPI_FAIL_LEVEL", "9")]);
    assert!(!failed.status.success(), "the failing rank should end the job:\n{}", describe(&failed));
    assert!(!file.exists(), "an unfinished build is not renamed into place");
    let partial = dir.path().join("resumed.kdb.partial");
    assert!(partial.exists(), "the partial file stays for the restart");

    // Restarted on another number of ranks: levels 0..=8 are sent, not solved.
    let o = ok(mpirun(3, &args, &[]));
    let report = json(&o);
    assert_eq!(report["resumed_levels"], 9, "{}", describe(&o));
    let built: Vec<u64> = report["level_seconds"].as_array().expect("level_seconds").iter().map(|l| l["level"].as_u64().expect("level")).collect();
    assert_eq!(built, (9..=14).collect::<Vec<_>>());
    assert!(read(&reference) == read(&file), "the resumed file differs from the single-process one");

    // A partial file that holds every level: nothing is solved, the file is finished.
    std::fs::rename(&file, &partial).expect("rename");
    // (A complete file renamed back to .partial: the writer resumes all levels.)
    let o = ok(mpirun(2, &args, &[]));
    assert_eq!(json(&o)["resumed_levels"], 15, "{}", describe(&o));
    assert!(read(&reference) == read(&file));
}

/// `solve --json` as one process and on `ranks` ranks: the same value and move values.
fn same_answer(args: &[&str], ranks: usize) -> Value {
    let base = [&["solve"][..], args, &["--json", "--tt-mb", "64", "--threads", "1"]].concat();
    let one = json(&ok(single(&base)));
    let shared = json(&ok(mpirun(ranks, &base, &[])));
    assert_eq!(shared["value"], one["value"], "{args:?}");
    assert_eq!(shared["moves"], one["moves"], "{args:?}");
    assert_eq!(shared["distributed"]["ranks"], ranks as u64);
    assert_eq!(shared["source"], "distributed", "{shared}");
    let by_rank = shared["distributed"]["nodes_by_rank"].as_array().expect("nodes by rank");
    assert_eq!(by_rank.iter().map(|n| n.as_u64().unwrap()).sum::<u64>(), shared["nodes"].as_u64().unwrap(), "{shared}");
    shared
}

#[test]
fn a_distributed_solve_finds_the_single_process_values() {
    same_answer(&["4", "4", "--no-db"], 2);
    same_answer(&["4", "3", "--capture", "empty", "--end", "turn", "--no-db"], 3);
    same_answer(&["--position", "3,0,5,1,2,4,3,0,2,6,1,3 N", "--no-db"], 2);
    // Value only, with many small jobs and splits.
    let dir = scratch();
    let db = dir.path().join("h5.kdb");
    let db_arg = path_arg(&db);
    ok(single(&["db", "build", "--houses", "5", "--max-seeds", "12", "--capture", "empty", "-o", &db_arg]));
    let args = ["5", "3", "--capture", "empty", "--db", &db_arg, "--value-only"];
    let base = [&["solve"][..], &args, &["--json", "--tt-mb", "64", "--threads", "1"]].concat();
    let one = json(&ok(single(&base)));
    let shared = json(&ok(mpirun(2, &base, &[("KALAH_SPLIT_JOBS", "40"), ("KALAH_SPLIT_AFTER", "0.05")])));
    assert_eq!(shared["value"], one["value"]);
    assert_eq!(one["value"], 8, "Kalah(5,3), empty capture");
}

/// Under mpirun the board size is read as one process reads it, `H S` or
/// the flags: the distributed solve read only `H S`, and solved
/// Kalah(6,4) when given `--houses 3 --seeds 2` (issue 39, item 4);
/// `db build` takes `H N` as well as `--houses H --max-seeds N`.
#[test]
fn the_board_size_as_flags_or_positional_on_ranks() {
    let flags = same_answer(&["--houses", "3", "--seeds", "2", "--no-db"], 2);
    assert_eq!(flags["position"], "2,2,2,0,2,2,2,0 S", "{flags}");
    let positional = same_answer(&["3", "2", "--no-db"], 2);
    assert_eq!(positional["position"], flags["position"]);

    let dir = scratch();
    let (one, two) = (dir.path().join("one.kdb"), dir.path().join("two.kdb"));
    let (one_arg, two_arg) = (path_arg(&one), path_arg(&two));
    ok(single(&["db", "build", "--houses", "4", "--max-seeds", "10", "--threads", "1", "-o", &one_arg]));
    let o = ok(mpirun(2, &["db", "build", "4", "10", "--threads", "1", "-o", &two_arg, "--json"], &[]));
    assert_eq!(json(&o)["max_seeds"], 10, "{}", describe(&o));
    assert!(read(&one) == read(&two), "the files differ");
    // Packed on ranks as in one process (issue 51: the flag was read and not used).
    let (p1, p2) = (dir.path().join("p1.kdb"), dir.path().join("p2.kdb"));
    ok(single(&["db", "build", "4", "10", "--packed", "--threads", "1", "-o", &path_arg(&p1)]));
    let o = ok(mpirun(2, &["db", "build", "4", "10", "--packed", "--threads", "1", "-o", &path_arg(&p2), "--json"], &[]));
    assert_eq!(json(&o)["encoding"], "share", "{}", describe(&o));
    assert!(read(&p1) == read(&p2) && read(&p1).len() < read(&one).len(), "the packed files differ");
}

#[test]
fn what_is_not_distributed_is_refused_once_with_exit_code_2() {
    for args in [
        &["solve", "4", "3", "--pie"][..],
        &["solve", "3", "2", "--sowing", "cw"],
        &["query", "--position", "1,1,0,1,1,0 S"],
        &["solve", "4", "3", "--db-seeds", "6"],
    ] {
        let o = mpirun(2, args, &[]);
        assert_eq!(o.status.code(), Some(2), "{args:?}:\n{}", describe(&o));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(stderr.matches("kalah: ").count(), 1, "one message, from rank 0:\n{stderr}");
    }
}

#[test]
fn the_20_seed_database_on_two_ranks_is_the_single_process_file_and_kalah_6_4_is_plus_10() {
    // Issue 7, at the scale of the README's example: 225,792,840 boards
    // (about 5 s on 2 ranks here), then Kalah(6,4) solved on 2 ranks with
    // it; the single-process value, +10, is the published one, which the
    // search's own tests reproduce.
    let dir = scratch();
    let shared = dir.path().join("shared.kdb");
    let shared_arg = path_arg(&shared);
    let rules = ["--houses", "6", "--max-seeds", "20", "--capture", "empty"];
    ok(mpirun(2, &[&["db", "build"][..], &rules, &["-o", &shared_arg]].concat(), &[]));
    let reference = dir.path().join("single.kdb");
    ok(single(&[&["db", "build"][..], &rules, &["-o", &path_arg(&reference)]].concat()));
    assert!(read(&reference) == read(&shared), "the 20-seed files differ");
    let o = ok(mpirun(2, &["solve", "6", "4", "--capture", "empty", "--db", &shared_arg, "--value-only", "--json", "--threads", "1"], &[]));
    let report = json(&o);
    assert_eq!(report["value"], 10, "{}", describe(&o));
    assert_eq!(report["distributed"]["ranks"], 2);
}
