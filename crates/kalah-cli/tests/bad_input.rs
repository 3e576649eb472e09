//! Bad input at the command line (issue 6): every kind of bad position,
//! rule name, board size, absurd limit and unusable path that `cli.rs`
//! does not already try, each answered with exit code 2 and one clear line
//! (`kalah: ...`), clap's usage errors included.
//! The table in RELIABILITY.md lists these and `cli.rs`'s cases together.
//!
//! Also replays the inputs the fuzz targets `position` and `rule_args`
//! saved (`fuzz/regressions/`), through the same checks (`fuzz/src/`).

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[allow(dead_code, clippy::all)]
#[path = "../src/common.rs"]
mod common;

#[allow(dead_code)] // each test binary uses part of it
mod support;

#[allow(dead_code)]
#[path = "../../../fuzz/src/position.rs"]
mod fuzz_position;

#[allow(dead_code)]
#[path = "../../../fuzz/src/rule_args.rs"]
mod fuzz_rule_args;

#[allow(dead_code)]
#[path = "../../../fuzz/src/stand_in.rs"]
mod fuzz_stand_in;

const BIN: &str = env!("CARGO_BIN_EXE_kalah");

/// Every refusal here comes before any real work.
const TIME_LIMIT: Duration = Duration::from_secs(20);

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

    /// Under `--json` an error is also one object on stdout: the stderr
    /// line's message and the exit code.
    fn json_error_matches<S: AsRef<OsStr>>(&self, args: &[S]) {
        if !args.iter().any(|a| a.as_ref() == "--json") {
            return;
        }
        let object: serde_json::Value =
            serde_json::from_str(self.stdout.trim_end()).unwrap_or_else(|e| panic!("stdout is not one JSON object: {e}\n{}", self.describe()));
        if object.get("error").is_none() {
            return; // the command's own object, printed before it failed
        }
        let line = self.stderr.lines().next().unwrap_or("");
        assert_eq!(object["error"].as_str().map(|m| format!("kalah: {m}")).as_deref(), Some(line), "{}", self.describe());
        assert_eq!(object["exit_code"].as_i64(), self.code.map(i64::from), "{}", self.describe());
    }
}

/// A scratch directory that is also `$KALAH_DB_DIR` and the working directory.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        Sandbox { dir: tempfile::Builder::new().prefix("kalah-bad-input").tempdir().unwrap() }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn file(&self, name: &str) -> String {
        self.path(name).to_string_lossy().into_owned()
    }

    fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Run {
        let mut child = Command::new(BIN)
            .args(args)
            .env("KALAH_DB_DIR", self.dir.path())
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + TIME_LIMIT;
        let mut timed_out = false;
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                timed_out = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let out = child.wait_with_output().unwrap();
        let mut stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if timed_out {
            stderr.push_str(&format!("[TIMED OUT after {} s]", TIME_LIMIT.as_secs()));
        }
        Run {
            cmd: args.iter().map(|a| format!("{:?}", a.as_ref())).collect::<Vec<_>>().join(" "),
            code: if timed_out { None } else { out.status.code() },
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr,
        }
    }

    /// Exit 2, exactly one line on stderr, `kalah: ` and every needle on it.
    fn refused(&self, args: &[&str], needles: &[&str]) -> Run {
        let r = self.run(args);
        assert!(!r.stderr.contains("panicked"), "panic\n{}", r.describe());
        assert_eq!(r.code, Some(2), "expected exit code 2\n{}", r.describe());
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "expected one line on stderr\n{}", r.describe());
        assert!(lines[0].starts_with("kalah: "), "{}", r.describe());
        for needle in needles {
            assert!(lines[0].contains(needle), "the line should contain {needle:?}\n{}", r.describe());
        }
        r.json_error_matches(args);
        r
    }

    /// A clap usage error: exit 2, one line on stderr, `kalah: ` and every
    /// needle on it.
    fn usage<S: AsRef<OsStr>>(&self, args: &[S], needles: &[&str]) -> Run {
        let r = self.run(args);
        assert!(!r.stderr.contains("panicked"), "panic\n{}", r.describe());
        assert_eq!(r.code, Some(2), "expected exit code 2\n{}", r.describe());
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "expected one line on stderr\n{}", r.describe());
        assert!(lines[0].starts_with("kalah: ") && lines[0].contains("--help"), "{}", r.describe());
        for needle in needles {
            assert!(lines[0].contains(needle), "the line should contain {needle:?}\n{}", r.describe());
        }
        r.json_error_matches(args);
        r
    }
}

/// Issue 6: the inputs the fuzz targets `position` and `rule_args` saved,
/// and their seeds, through the fuzz targets' checks.
#[test]
fn fuzz_regressions_replay() {
    for (target, check) in [("position", fuzz_position::check as fn(&[u8])), ("rule_args", fuzz_rule_args::check)] {
        for (path, data) in fuzz_stand_in::saved_inputs(target) {
            eprintln!("replaying {}", path.display());
            check(&data);
        }
    }
}

/// Issue 38: the fuzz targets `position` and `rule_args` on stable, for
/// `KALAH_FUZZ_SECONDS` each (2 s unless told; `.ci/run` gives them
/// longer), on mutated saved inputs.
#[test]
fn fuzz_stand_in_position_and_rule_args() {
    let failures = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-failures");
    assert!(fuzz_stand_in::run("position", 256, &failures, fuzz_position::check) > 0);
    assert!(fuzz_stand_in::run("rule_args", 256, &failures, fuzz_rule_args::check) > 0);
}

#[test]
fn bad_positions() {
    let sb = Sandbox::new();
    let cases: &[(&str, &[&str])] = &[
        ("4,4,4,4,4,4,0,4,4,4,4,4,4,0", &["token 14 '0'", "S or N"]),
        ("4,4,4,4,4,4,0,4,4,4,4,4,4,0 S S", &["token 15 'S'", "not a seed count"]),
        ("   ", &["empty"]),
        ("256,0,0,0,0,0 S", &["256 seeds", "at most 255"]),
        ("200,7,0,0,0,0,0,0,0,0,0,0,0,0 S", &["207 seeds", "at most 206"]),
        ("99999999999,0,0,0,0,0 S", &["token 1", "too large"]),
        // Issue 6: this store was read, and its difference wrapped to a wrong value.
        ("1,0,0,3000000000,1,1,1,0 S", &["store of 3000000000", "at most 1000000000"]),
        ("1.5,0,0,0,0,0 S", &["'1.5'", "not a seed count"]),
        ("+1,0,0,0,0,0 S", &["'+1'", "not a seed count"]),
        ("\u{ff10},1,0,1 S", &["not a seed count"]),
        ("1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 S", &["20 numbers"]),
        ("0,0 S", &["2 numbers"]),
        ("S:4-4-4:0 N:4-4-4:0", &["3 parts", "found 2"]),
        ("S:4-4-4:0 N:4-4-4:0 S extra", &["3 parts", "found 4"]),
        ("S::0 N::0 S", &["house count ''"]),
        ("S:4-4-4 N:4-4-4:0 S", &["SIDE:HOUSES:STORE"]),
        ("S:4-4-4:0:1 N:4-4-4:0 S", &["SIDE:HOUSES:STORE"]),
        ("S:4-4-4:0 S:4-4-4:0 S", &["twice"]),
        ("S:4-4-4:0 N:4-4-4:99999999999 S", &["store '99999999999'", "too large"]),
        ("S:1-1-1-1-1-1-1-1-1:0 N:1-1-1-1-1-1-1-1-1:0 S", &["9 houses", "1 to 8"]),
    ];
    for (position, needles) in cases {
        let mut needles = needles.to_vec();
        needles.push("--position");
        sb.refused(&["query", "--position", position, "--tt-mb", "16", "--threads", "1"], &needles);
    }
    sb.refused(&["solve", "--position", "1,0,0,3000000000,1,1,1,0 S", "--json"], &["store"]);
    sb.refused(&["db", "probe", "x.kdb", "--position", "1,2"], &[]);
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let args = [OsStr::new("query"), OsStr::new("--position"), OsStr::from_bytes(b"4,4,\xff,0 S")];
        sb.usage(&args, &["invalid UTF-8"]);
    }
}

#[test]
fn bad_rule_options() {
    let sb = Sandbox::new();
    sb.usage(&["solve", "3", "3", "--capture="], &["''", "--capture", "expected one of: standard, empty"]);
    sb.usage(&["solve", "3", "3", "--capture", "empty", "--capture", "standard"], &["--capture", "cannot be used multiple times"]);
    sb.usage(&["solve", "3", "3", "--sowing", "counterclockwise"], &["counterclockwise", "ccw, cw"]);
    sb.usage(&["solve", "3", "3", "--relay", "yes"], &["'yes'", "off, on"]);
    // The relay's value is optional: a board size after it is read as one.
    sb.usage(&["solve", "--relay", "3", "3"], &["'3'", "off, on", "kalah solve 3 3 --relay"]);
    sb.usage(&["solve", "3", "3", "--leftovers", "owner,emptier"], &["owner,emptier"]);
    sb.usage(&["db", "build", "--houses", "3", "--max-seeds", "4", "--end", "sudden"], &["sudden", "instant, turn"]);
    sb.usage(&["solve", "3", "3", "--capture"], &["--capture"]);
}

#[test]
fn house_and_seed_counts_out_of_range() {
    let sb = Sandbox::new();
    sb.refused(&["solve", "6", "18", "--tt-mb", "16"], &["18 seeds per house", "1 to 17"]);
    sb.refused(&["solve", "3", "300", "--tt-mb", "16"], &["300 seeds per house", "1 to 42"]);
    sb.refused(&["solve", "8", "13", "--tt-mb", "16", "--json"], &["13 seeds per house", "1 to 6"]);
    sb.usage(&["solve", "99999999999999999999", "4"], &["99999999999999999999", "too large"]);
    sb.usage(&["solve", "6", "4.5"], &["'4.5'"]);
    let out = sb.file("never.kdb");
    sb.refused(&["db", "build", "--houses", "6", "--max-seeds", "128", "-o", &out], &["128 seeds", "at most 127"]);
    sb.refused(&["db", "build", "--houses", "8", "--max-seeds", "101", "-o", &out], &["101 seeds", "at most 100"]);
    sb.usage(&["db", "build", "--houses", "3", "--max-seeds", "-1", "-o", &out], &["-1"]);
    sb.usage(&["db", "build", "--houses", "99999999999999999999", "--max-seeds", "4"], &["too large"]);
    assert!(!Path::new(&out).exists() && !sb.path("never.kdb.partial").exists());
}

#[test]
fn absurd_limits() {
    let sb = Sandbox::new();
    let out = sb.file("never.kdb");
    // Sizes no machine has: refused up front, with the figures.
    sb.refused(&["db", "build", "--houses", "8", "--max-seeds", "100", "-o", &out], &["memory", "needs", "available"]);
    // 60 seeds: every level at once would take 14.0 TiB; one level at a
    // time (issue 63) the largest beside the one below it, 4.3 TiB.
    sb.refused(&["db", "build", "--houses", "6", "--max-seeds", "60", "-o", &out, "--json"], &["memory", "4.3 TiB"]);
    sb.refused(&["solve", "3", "3", "--tt-mb", "100000000"], &["95.4 TiB transposition table does not fit", "--tt-mb"]);
    sb.refused(&["solve", "3", "3", "--tt-mb", "1073741825"], &["--tt-mb 1073741825", "absurd"]);
    sb.usage(&["solve", "3", "3", "--tt-mb", "99999999999999999999"], &["--tt-mb", "too large"]);
    sb.refused(&["solve", "3", "3", "--tt-mb", "16", "--threads", "1025"], &["--threads 1025", "1024"]);
    sb.refused(&["query", "--position", "1,0,1,0 S", "--tt-mb", "16", "--threads", "100000", "--json"], &["--threads 100000"]);
    let db = sb.file("small.kdb");
    let built = sb.run(&["db", "build", "--houses", "2", "--max-seeds", "4", "--threads", "1", "-o", &db]);
    assert_eq!(built.code, Some(0), "{}", built.describe());
    sb.usage(&["db", "pack", &db, "--level", "0"], &["0 is not in 1..=19"]);
    sb.usage(&["db", "pack", &db, "--level", "22"], &["22 is not in 1..=19"]);
    assert!(!Path::new(&out).exists());
}

/// Gap (RELIABILITY.md): `db build` has no upper bound on `--threads`;
/// 100000 makes rayon try to start 100000 threads and the command hangs.
#[test]
fn db_build_refuses_absurd_thread_counts() {
    let sb = Sandbox::new();
    let out = sb.file("never.kdb");
    sb.refused(&["db", "build", "--houses", "2", "--max-seeds", "4", "--threads", "100000", "-o", &out], &["--threads"]);
}

#[test]
fn unusable_paths() {
    let sb = Sandbox::new();
    let db = sb.file("small.kdb");
    let built = sb.run(&["db", "build", "--houses", "2", "--max-seeds", "4", "--threads", "1", "-o", &db]);
    assert_eq!(built.code, Some(0), "{}", built.describe());
    fs::create_dir(sb.path("a-dir")).unwrap();
    fs::write(sb.path("a-file"), "x").unwrap();
    let p = "1,0,1,0 S";
    sb.refused(&["query", "--position", p, "--db", &sb.file("a-dir"), "--tt-mb", "16"], &["a-dir", "directory"]);
    sb.refused(&["query", "--position", p, "--db", &sb.file("a-file"), "--tt-mb", "16"], &["a-file", "truncated"]);
    sb.refused(&["db", "info", "/dev/null"], &["/dev/null", "not a regular file"]);
    sb.refused(&["db", "verify", &sb.file("a-file/inside.kdb")], &["a-file/inside.kdb", "Not a directory"]);
    // An interrupted build's file.
    let partial = sb.path("partial.kdb");
    fs::write(&partial, support::interrupted(&fs::read(&db).unwrap(), 2)).unwrap();
    sb.refused(
        &["query", "--position", p, "--db", &partial.to_string_lossy(), "--tt-mb", "16"],
        &["incomplete database (2 of 5 levels", "run the build again"],
    );
    // Outputs that cannot be written.
    sb.refused(&["db", "build", "--houses", "2", "--max-seeds", "4", "-o", "/proc/x.kdb"], &["disk space in /proc", "needs"]);
    sb.refused(&["db", "pack", &db, "-o", &sb.file("no-dir/x.zst")], &["no-dir/x.zst.partial", "No such file"]);
    sb.refused(&["db", "unpack", &sb.file("missing.zst"), "-o", &sb.file("out.kdb")], &["missing.zst", "No such file"]);
}

/// Gap (RELIABILITY.md): an output path that is a directory, or under a
/// regular file, is found only when the file is created or renamed: `db
/// build -o DIR` builds the whole database, then fails with a complete
/// `DIR.partial` left behind (so does `db unpack -o DIR`), and `-o FILE/x`
/// exits 1 after the start-up line.
#[test]
fn outputs_that_cannot_be_files_are_refused_up_front() {
    let sb = Sandbox::new();
    fs::create_dir(sb.path("a-dir")).unwrap();
    fs::write(sb.path("a-file"), "x").unwrap();
    sb.refused(&["db", "build", "--houses", "2", "--max-seeds", "4", "-o", &sb.file("a-dir")], &["a-dir", "directory"]);
    assert!(!sb.path("a-dir.partial").exists(), "a refused build left a partial file");
    sb.refused(&["db", "build", "--houses", "2", "--max-seeds", "4", "-o", &sb.file("a-file/x.kdb")], &["a-file"]);
}

/// Special files and the input itself as outputs, and pipes as inputs: an
/// output that is a device or a pipe would be replaced by a regular file
/// (the finished file is renamed over its name), an output that is the
/// input would destroy it, and opening a pipe to read blocks for ever.
/// (Regression: the sweep of 2026-12-02, RELIABILITY.md.)
#[test]
#[cfg(unix)]
fn special_files_and_the_input_itself_are_refused() {
    let sb = Sandbox::new();
    let db = sb.file("small.kdb");
    let built = sb.run(&["db", "build", "--houses", "2", "--max-seeds", "4", "--threads", "1", "-o", &db]);
    assert_eq!(built.code, Some(0), "{}", built.describe());
    let bytes = fs::read(&db).unwrap();
    let made = Command::new("mkfifo").arg(sb.path("pipe.kdb")).status().unwrap();
    assert!(made.success(), "mkfifo");
    let pipe = sb.file("pipe.kdb");
    let is_pipe = || {
        use std::os::unix::fs::FileTypeExt;
        fs::symlink_metadata(sb.path("pipe.kdb")).unwrap().file_type().is_fifo()
    };
    // Outputs.
    sb.refused(&["db", "build", "--houses", "2", "--max-seeds", "3", "-o", &pipe], &["pipe", "not a regular file"]);
    sb.refused(&["db", "pack", &db, "-o", &pipe], &["pipe", "not a regular file"]);
    sb.refused(&["strong", "2", "1", "-o", &pipe], &["pipe", "not a regular file"]);
    assert!(is_pipe(), "the pipe was replaced");
    sb.refused(&["db", "pack", &db, "-o", &db], &["small.kdb", "is the input file"]);
    std::os::unix::fs::symlink(&db, sb.path("link.kdb")).unwrap();
    sb.refused(&["db", "pack", &sb.file("link.kdb"), "-o", &db], &["is the input file"]);
    let packed = sb.run(&["db", "pack", &db]);
    assert_eq!(packed.code, Some(0), "{}", packed.describe());
    let archive = format!("{db}.zst");
    let archive_bytes = fs::read(&archive).unwrap();
    sb.refused(&["db", "unpack", &archive, "-o", &archive], &["is the input file"]);
    assert_eq!(fs::read(&db).unwrap(), bytes, "the database was overwritten");
    assert_eq!(fs::read(&archive).unwrap(), archive_bytes, "the archive was overwritten");
    // A failed unpack leaves no partial file behind.
    fs::write(sb.path("cut.kdb.zst"), &archive_bytes[..archive_bytes.len() / 2]).unwrap();
    sb.refused(&["db", "unpack", &sb.file("cut.kdb.zst")], &["cut.kdb.zst", "truncated"]);
    assert!(!sb.path("cut.kdb.partial").exists(), "a failed unpack left its partial file");
    // Inputs: refused at once, not a hang.
    sb.refused(&["db", "info", &pipe], &["pipe", "not a regular file"]);
    sb.refused(&["query", "--position", "1,0,1,0 S", "--db", &pipe], &["pipe", "not a regular file"]);
    sb.refused(&["db", "unpack", &pipe, "-o", &sb.file("out.kdb")], &["pipe", "not a regular file"]);
    sb.refused(&["db", "verify", "--manifest", &pipe], &["pipe", "not a regular file"]);
    let listed = sb.run(&["db", "list"]);
    assert_eq!(listed.code, Some(0), "{}", listed.describe());
    assert!(listed.stdout.contains("refused") && listed.stdout.contains("not a regular file"), "{}", listed.describe());
    // A manifest that lists nothing does not pass.
    fs::write(sb.path("empty.csv"), "").unwrap();
    sb.refused(&["db", "verify", "--manifest", &sb.file("empty.csv")], &["empty.csv", "lists no databases"]);
    // Names too long for the file system, and text that is not UTF-8: bad input.
    let long = "x".repeat(300) + ".kdb";
    sb.refused(&["db", "info", &long], &["File name too long"]);
    sb.refused(&["db", "build", "--houses", "2", "--max-seeds", "3", "-o", &long], &["too long"]);
    fs::write(sb.path("latin1.csv"), b"h\n\xff\xfe,1\n").unwrap();
    sb.refused(&["db", "verify", "--manifest", &sb.file("latin1.csv")], &["latin1.csv", "UTF-8"]);
}

/// More of what a sweep of bad input found: flags that would be ignored,
/// a command missing, checks that came after the work, sizes that wrapped.
/// (Regression: the sweep of 2026-12-02, RELIABILITY.md.)
#[test]
fn flags_that_would_be_ignored_and_checks_before_the_work() {
    let sb = Sandbox::new();
    for extra in ["--pie", "--shift", "--openings"] {
        sb.usage(&["solve", "3", "2", extra, "--value-only"], &["cannot be used with"]);
        sb.usage(&["solve", "3", "2", extra, "--best-move"], &["cannot be used with"]);
    }
    sb.refused(&["db", "verify", "x.kdb", "--dir", "somewhere"], &["--dir somewhere", "needs --manifest"]);
    // No command: exit 2 and the commands to choose from.
    for args in [&[][..], &["db"][..]] {
        let r = sb.run(args);
        assert_eq!(r.code, Some(2), "{}", r.describe());
        let choice = if args.is_empty() { "  solve" } else { "  unpack" };
        assert!(r.stderr.starts_with("kalah: a command is needed") && r.stderr.contains(choice), "{}", r.describe());
        assert!(r.stderr.contains("Commands:"), "{}", r.describe());
    }
    // strong --manifest into a directory: refused before the solve, which writes nothing.
    fs::create_dir(sb.path("a-dir")).unwrap();
    sb.refused(&["strong", "2", "1", "-o", &sb.file("s.kdb"), "--manifest", &sb.file("a-dir")], &["a-dir", "directory"]);
    assert!(!sb.path("s.kdb").exists());
    // A manifest that is not UTF-8, or not a manifest, is refused before the
    // solve and left as it was (it was replaced by one row, issue 38).
    let header = "houses,seeds,capture,end,leftovers,sowing,relay,max_seeds,file,bytes,sha256,start_value,won,drawn,lost,reachable_boards,reachable_positions\n";
    let latin1 = [header.as_bytes(), b"1,1,empty,instant,owner,ccw,off,2,x.kdb,1,ab,0,2,2,2,1,1\n# note: caf\xe9\n"].concat();
    fs::write(sb.path("latin1-m.csv"), &latin1).unwrap();
    sb.refused(&["strong", "2", "1", "-o", &sb.file("s.kdb"), "--manifest", &sb.file("latin1-m.csv")], &["latin1-m.csv", "UTF-8", "left as it is"]);
    assert_eq!(fs::read(sb.path("latin1-m.csv")).unwrap(), latin1);
    fs::write(sb.path("notes.txt"), "my notes\n").unwrap();
    sb.refused(&["strong", "2", "1", "-o", &sb.file("s.kdb"), "--manifest", &sb.file("notes.txt")], &["notes.txt", "not a manifest"]);
    assert_eq!(fs::read_to_string(sb.path("notes.txt")).unwrap(), "my notes\n");
    assert!(!sb.path("s.kdb").exists());
    // Memory sizes too large for 64 bits saturate, not wrap to smaller ones.
    let needs = |seeds: &str| -> u128 {
        let r = sb.refused(&["db", "build", "--houses", "8", "--max-seeds", seeds, "--sowing", "cw"], &["needs"]);
        let after = r.stderr.split("needs ").nth(1).unwrap();
        after.split(' ').next().unwrap().parse().unwrap()
    };
    assert!(needs("97") <= needs("98") && needs("98") <= needs("99") && needs("99") <= needs("100"));
    // An empty KALAH_DB_DIR is the default directory, as if unset: outside
    // a checkout the user's data directory (not there yet: no error), inside
    // one (Cargo.toml and data/RULES.md) its data/db, from any folder in it.
    let list = |cwd: &Path| {
        let r = Command::new(BIN)
            .args(["db", "list"])
            .env("KALAH_DB_DIR", "")
            .env("HOME", sb.dir.path())
            .env_remove("XDG_DATA_HOME")
            .current_dir(cwd)
            .output()
            .unwrap();
        assert_eq!(r.status.code(), Some(0), "{}", String::from_utf8_lossy(&r.stderr));
        String::from_utf8_lossy(&r.stdout).into_owned()
    };
    let home = sb.dir.path().join(".local/share/kalah/db");
    let out = list(sb.dir.path());
    assert!(out.contains(&format!("{} (the user's data directory): no databases yet", home.display())), "{out}");
    fs::create_dir_all(sb.path("data/db")).unwrap();
    fs::create_dir_all(sb.path("crates/deep")).unwrap();
    fs::write(sb.path("Cargo.toml"), "[workspace]\n").unwrap();
    fs::write(sb.path("data/RULES.md"), "rules\n").unwrap();
    let out = list(sb.dir.path());
    assert!(out.starts_with("data/db (the repository's data/db)"), "{out}");
    let out = list(&sb.dir.path().join("crates/deep"));
    assert!(out.starts_with(&format!("{} (the repository's data/db)", sb.dir.path().join("data/db").display())), "{out}");
}

/// Under `--json` a refusal, a usage error and a missing file are one
/// object on stdout as well as the stderr line; a command that printed its
/// own object before failing (`db verify --manifest`) prints no second one.
#[test]
fn errors_under_json_are_one_object_on_stdout() {
    let sb = Sandbox::new();
    sb.usage(&["solve", "--capture", "nope", "--json"], &["nope"]);
    sb.usage(&["query", "--position", "3,3,3,0,3,3,3,0 S", "--bogus", "--json"], &["--bogus"]);
    sb.refused(&["query", "--json"], &["--position P", "H S"]);
    sb.refused(&["db", "info", &sb.file("missing.kdb"), "--json"], &["missing.kdb"]);
    sb.refused(&["solve", "3", "2", "--pie", "--json", "--db", &sb.file("none.kdb")], &["none.kdb"]);
    // Without --json, stdout stays empty.
    let r = sb.refused(&["db", "info", &sb.file("missing.kdb")], &["missing.kdb"]);
    assert!(r.stdout.is_empty(), "{}", r.describe());
    fs::write(
        sb.path("m.csv"),
        "houses,seeds,capture,end,leftovers,sowing,relay,max_seeds,file,bytes,sha256\n2,1,standard,instant,owner,ccw,off,4,gone.kdb,10,00\n",
    )
    .unwrap();
    let r =
        sb.refused(&["db", "verify", "--manifest", &sb.file("m.csv"), "--dir", &sb.file(""), "--json"], &["none of the 1 files", "nothing to check"]);
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.describe());
    let object: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(object["ok"], false, "{}", r.describe());
    assert!(object["absent"][0].as_str().unwrap().contains("gone.kdb"), "{}", r.describe());
}

/// Issue 39: `db verify --manifest` checks the files present and lists the
/// absent ones (they were reported as failures); `db verify FILE --manifest`
/// checks one file against its row.
#[test]
fn a_manifest_checks_the_files_present() {
    let sb = Sandbox::new();
    let m = sb.file("m.csv");
    let built = sb.run(&["strong", "2", "2", "-o", &sb.file("s22.kdb"), "--manifest", &m]);
    assert_eq!(built.code, Some(0), "{}", built.describe());
    let built = sb.run(&["strong", "2", "3", "-o", &sb.file("s23.kdb"), "--manifest", &m]);
    assert_eq!(built.code, Some(0), "{}", built.describe());
    let rows: Vec<String> = fs::read_to_string(sb.path("m.csv")).unwrap().lines().map(str::to_string).collect();
    // A third row whose file was never built here.
    let absent = rows[1].replace("s22.kdb", "never-built.kdb");
    fs::write(sb.path("m.csv"), format!("{}\n{absent}\n", rows.join("\n"))).unwrap();
    let r = sb.run(&["db", "verify", "--manifest", &m, "--dir", &sb.file(""), "--json"]);
    assert_eq!(r.code, Some(0), "{}", r.describe());
    let object: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(object["ok"], true, "{}", r.describe());
    assert_eq!(object["checked"].as_array().unwrap().len(), 2, "{}", r.describe());
    assert!(object["absent"][0].as_str().unwrap().ends_with("never-built.kdb"), "{}", r.describe());
    let r = sb.run(&["db", "verify", "--manifest", &m, "--dir", &sb.file("")]);
    assert!(r.stdout.contains("absent   1 of the manifest's files"), "{}", r.describe());
    // One file against its row; a damaged one fails; a name the manifest lacks is refused.
    let r = sb.run(&["db", "verify", &sb.file("s23.kdb"), "--manifest", &m]);
    assert_eq!(r.code, Some(0), "{}", r.describe());
    assert!(r.stdout.contains("ok") && r.stdout.contains("s23.kdb") && !r.stdout.contains("s22.kdb"), "{}", r.describe());
    let mut bytes = fs::read(sb.path("s22.kdb")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(sb.path("s22.kdb"), &bytes).unwrap();
    sb.refused(&["db", "verify", &sb.file("s22.kdb"), "--manifest", &m], &["1 of 1 databases present", "do not match"]);
    sb.refused(&["db", "verify", "--manifest", &m, "--dir", &sb.file("")], &["1 of 2 databases present", "do not match"]);
    fs::copy(sb.path("s23.kdb"), sb.path("other.kdb")).unwrap();
    sb.refused(&["db", "verify", &sb.file("other.kdb"), "--manifest", &m], &["other.kdb", "lists no file of that name"]);
}

/// A symbolic link loop as a database path gives one clear line naming the
/// file and exit code 2 (`common::db_error` matches ELOOP by its number).
#[test]
fn a_symbolic_link_loop_is_one_line_naming_the_file() {
    let sb = Sandbox::new();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(sb.path("loop.kdb"), sb.path("loop.kdb")).unwrap();
        let r = sb.run(&["db", "info", &sb.file("loop.kdb")]);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.describe());
        assert!(r.stderr.starts_with("kalah: ") && r.stderr.contains("loop.kdb: Too many levels of symbolic links"), "{}", r.describe());
        assert_eq!(r.code, Some(2), "{}", r.describe());
    }
}

/// `kalah ... | head`: output into a closed pipe ends the program quietly
/// with code 0, not with a panic.
#[test]
fn a_closed_stdout_is_not_a_panic() {
    for args in [&["chains", "--houses", "8", "--max", "60"][..], &["chains", "--houses", "6", "--json"]] {
        let mut child = spawn(args, Stdio::piped());
        drop(child.stdout.take()); // the reader goes away before the first line
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}

/// `kalah ... 2>&1 | head`: notes into a closed pipe end the program
/// quietly with code 0 too (a panic would exit with 101).
#[test]
fn a_closed_stderr_is_not_a_panic() {
    let mut child = spawn(&["table", "--houses", "1-3", "--seeds", "1-3"], Stdio::null());
    drop(child.stderr.take()); // the reader goes away before the first note
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
}

/// An answer or an error that cannot be written for another reason than a
/// closed pipe (here a full disk, `/dev/full`) is lost: exit code 1, not 0.
/// (Regression: the sweep of 2026-12-02, RELIABILITY.md.)
#[test]
#[cfg(target_os = "linux")]
fn output_to_a_full_disk_is_a_failure() {
    let full = || fs::OpenOptions::new().write(true).open("/dev/full").map(Stdio::from).unwrap();
    // The answer lost.
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["solve", "3", "2", "--json"])
        .env("KALAH_DB_DIR", dir.path())
        .stdin(Stdio::null())
        .stdout(full())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    // The error lost: bad input, but nothing could say so.
    let out = Command::new(BIN).args(["solve", "9", "9"]).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(full()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// Starts `kalah args` with no input, stdout as given and stderr piped.
fn spawn(args: &[&str], stdout: Stdio) -> std::process::Child {
    // A database folder of its own: no test reads or writes data/db.
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| tempfile::tempdir().unwrap()).path();
    Command::new(BIN).args(args).env("KALAH_DB_DIR", dir).stdin(Stdio::null()).stdout(stdout).stderr(Stdio::piped()).spawn().unwrap()
}

/// An answer that cannot be written (stdout a full disk: `/dev/full`) is
/// lost, and said: exit code 1 and one `kalah:` line, for answers, JSON,
/// help and listings alike (issue 38); a closed pipe stays quiet.
#[cfg(target_os = "linux")]
#[test]
fn an_answer_that_cannot_be_written_is_said() {
    let dir = tempfile::tempdir().unwrap();
    for args in
        [&["solve", "3", "3", "--no-db", "--value-only"][..], &["solve", "3", "3", "--no-db", "--json"], &["solve", "--help"], &["db", "list"]]
    {
        let full = fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = Command::new(BIN).args(args).env("KALAH_DB_DIR", dir.path()).stdout(full).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.lines().last().is_some_and(|l| l.starts_with("kalah: cannot write the output to stdout")), "{args:?}: {stderr}");
    }
}

/// The smaller refusals of issue 38, each one line naming what is wrong.
#[test]
fn smaller_refusals_name_what_is_wrong() {
    let sb = Sandbox::new();
    // An empty field of the ring form: refused, not read as the counts after it moved up.
    sb.refused(&["query", "--position", "4,,4,4,0,4,4,4,0 S"], &["field 2 is empty"]);
    // A negative time limit: the limit's own message, not clap's `-- -1`.
    sb.refused(&["solve", "3", "3", "--time-limit", "-1"], &["--time-limit -1", "above 0"]);
    sb.refused(&["table", "--houses", "2", "--time-limit", "-1"], &["--time-limit -1", "above 0"]);
    // A number too large for a range says so.
    sb.usage(&["table", "--seeds", "1-99999999999999999999"], &["99999999999999999999", "too large"]);
    // A directory as a manifest or a database is a directory, not corrupt.
    fs::create_dir(sb.path("a-dir")).unwrap();
    let r = sb.refused(&["db", "verify", "--manifest", &sb.file("a-dir")], &["a-dir", "is a directory"]);
    assert!(!r.stderr.contains("corrupt"), "{}", r.describe());
    sb.refused(&["db", "info", &sb.file("a-dir")], &["a-dir", "is a directory"]);
}

/// A `db build` into a file another writer holds (its partial file locked,
/// here by flock(1)) is refused in one line, before the plan is said: it
/// came after the plan note, as two lines (issue 38).
#[cfg(target_os = "linux")]
#[test]
fn a_build_into_a_file_being_written_is_refused_in_one_line() {
    let sb = Sandbox::new();
    let out = sb.file("busy.kdb");
    let partial = sb.path("busy.kdb.partial");
    fs::write(&partial, b"").unwrap();
    let mut holder = Command::new("flock").arg(&partial).args(["sleep", "5"]).spawn().expect("flock(1)");
    std::thread::sleep(Duration::from_millis(300));
    let r = sb.refused(&["db", "build", "--houses", "2", "--max-seeds", "4", "-o", &out], &["busy.kdb.partial", "another kalah process is writing"]);
    assert!(!r.stderr.contains("note:"), "{}", r.describe());
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(!sb.path("busy.kdb").exists());
}
