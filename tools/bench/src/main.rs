//! The macro benchmark behind BENCHMARKS.md.
//!
//! ```text
//! kalah-bench build H N [THREADS]                 build every level up to N seeds in memory
//! kalah-bench search H S CAPTURE THREADS [unary:]TT_MB [DATABASE | map:DATABASE | mem:N]
//!                                                 solve Kalah(H,S) (value only) and print
//!                                                 time, nodes and the search's counters;
//!                                                 a database file is copied into huge-page
//!                                                 memory first, as `kalah solve` does (timed
//!                                                 apart), or with `map:` probed through its
//!                                                 file mapping; `mem:N` builds an N-seed
//!                                                 database in memory first (timed apart)
//! kalah-bench moves H S CAPTURE THREADS TT_MB DATABASE
//!                                                 every move's exact value of Kalah(H,S)'s
//!                                                 start as `kalah solve` finds them (one
//!                                                 solver, the moves that play again first,
//!                                                 then house order), with each move's nodes
//!                                                 and seconds: where a full analysis goes
//! kalah-bench test POSITION CAPTURE THREADS TT_MB AT_LEAST SECONDS DATABASE|map:DATABASE
//!                                                 the null-window test "value >= AT_LEAST"
//!                                                 of POSITION (ring form, six houses or
//!                                                 any), stopped after SECONDS if not
//!                                                 decided: nodes and nodes a second over
//!                                                 the database copied into huge-page
//!                                                 memory (the load timed apart) or mapped
//!                                                 (`map:`, its file read into the page
//!                                                 cache first): the same nodes in the
//!                                                 same order on one thread, so the rate
//!                                                 compares the two
//! kalah-bench memory [MIB ...]                    random reads of huge-page memory of each
//!                                                 size: the latency of one read waited
//!                                                 for, and the time a read takes when
//!                                                 eight are issued at once
//! ```
//!
//! Run with `cargo run --release -p kalah-bench-tools -- ...`. Each run prints
//! one line that can go into BENCHMARKS.md as it is.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use kalah_core::{Capture, Engine, Next, Position, Rules};
use kalah_db::{Builder, Database, NoTablebase, Quiet};
use kalah_search::{SearchOptions, Solver, Stats};

const USAGE: &str = "usage: kalah-bench build H N [THREADS] | search H S CAPTURE THREADS [unary:]TT_MB [DATABASE | map:DATABASE | mem:N] | moves H S CAPTURE THREADS TT_MB DATABASE | test POSITION CAPTURE THREADS TT_MB AT_LEAST SECONDS DATABASE|map:DATABASE | memory [MIB ...]";

/// Prints a line of results; a closed standard output (`kalah-bench ... | head`) ends the run quietly.
macro_rules! out {
    ($($arg:tt)*) => {
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    };
}

/// Ends the run: `what` failed, and why (exit code 1).
fn fail<E: std::fmt::Display>(what: &str, e: E) -> ! {
    eprintln!("kalah-bench: {what}: {e}");
    std::process::exit(1)
}

/// Ends the run: argument `i` is not `what` (the usage, exit code 2).
fn bad_argument(i: usize, what: &str) -> ! {
    eprintln!("kalah-bench: argument {i}: {what} expected\n{USAGE}");
    std::process::exit(2)
}

/// Argument `i` parsed, or [`bad_argument`].
fn arg<T: std::str::FromStr>(args: &[String], i: usize, what: &str) -> T {
    args.get(i).and_then(|a| a.parse().ok()).unwrap_or_else(|| bad_argument(i, what))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("build") => build(&args),
        Some("search") => search(&args),
        Some("moves") => moves(&args),
        Some("test") => test(&args),
        Some("memory") => memory(&args),
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2)
        }
    }
}

fn build(args: &[String]) {
    let h: usize = arg(args, 2, "houses");
    let n: u32 = arg(args, 3, "max seeds");
    let threads: usize = args.get(4).and_then(|a| a.parse().ok()).unwrap_or(2);
    let rules = Rules { capture: Capture::Empty, ..Rules::default() };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap_or_else(|e| fail("a thread pool", e));
    let mut b = Builder::new(h, rules, n).unwrap_or_else(|e| fail("memory for the database", e));
    let start = Instant::now();
    pool.install(|| {
        while b.levels_done() <= n {
            let t = Instant::now();
            let level = b.build_next(&Quiet).expect("Quiet never stops a build");
            let len = b.indexer().level_len(level);
            let secs = t.elapsed().as_secs_f64();
            out!("level {level}: {len} boards in {secs:.2} s ({:.1} M boards/s)", len as f64 / secs / 1e6);
        }
    });
    let secs = start.elapsed().as_secs_f64();
    let boards = b.indexer().len();
    out!("| build h={h} up to {n} seeds, {threads} threads | {boards} boards | {secs:.2} s | {:.1} M boards/s |", boards as f64 / secs / 1e6);
}

fn search(args: &[String]) {
    let h: usize = arg(args, 2, "houses");
    let s: u32 = arg(args, 3, "seeds");
    let capture: Capture = arg(args, 4, "capture rule");
    let threads: usize = arg(args, 5, "threads");
    // `MB` keeps the keys' fixed fields, so that a table too small for them
    // grows to what they need (128 MiB on six houses), as every search here
    // did before unary keys; `unary:MB` lets the table take unary keys
    // where they cover the start (`SearchOptions::keys`).
    let asked = args.get(6).map_or("", String::as_str);
    let (mb, unary) = asked.strip_prefix("unary:").map_or((asked, false), |mb| (mb, true));
    let mb: usize = mb.parse().unwrap_or_else(|_| bad_argument(6, "transposition table MiB, or unary:MiB"));
    let rules = Rules { capture, ..Rules::default() };
    let options = SearchOptions { threads, tt_bytes: mb << 20, max_seeds: unary.then_some(h as u32 * 2 * s) };
    // The table actually made, and the keys.
    let made = options.table_bytes(h) >> 20;
    let keys = if options.keys(h).is_unary() { ", unary keys" } else { "" };
    let table = if made == mb { format!("{mb} MiB table{keys}") } else { format!("{made} MiB table ({mb} asked){keys}") };
    let p = Position::start(h, s).unwrap_or_else(|e| fail("the start position", e));
    let report = |what: &str, value: i32, nodes: u64, stats: Stats, start: Instant| {
        let t = start.elapsed().as_secs_f64();
        out!(
            "| Kalah({h},{s}) {capture}, {what}, {threads} threads, {table} | {value:+} | {t:.2} s | {nodes} nodes | {:.2} M nodes/s |",
            nodes as f64 / t / 1e6
        );
        out!("{stats:?}");
    };
    match args.get(7) {
        Some(mem) if mem.starts_with("mem:") => {
            let n: u32 = mem[4..].parse().unwrap_or_else(|_| bad_argument(7, "mem:N, N the seeds of the database to build"));
            let building = Instant::now();
            let mut db = Builder::new(h, rules, n).unwrap_or_else(|e| fail("memory for the database", e));
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap_or_else(|e| fail("a thread pool", e));
            pool.install(|| db.build_all(&Quiet));
            let what = format!("{n}-seed database built in memory in {:.2} s", building.elapsed().as_secs_f64());
            let solver = Solver::new(h, rules, db, options).unwrap_or_else(|e| fail("the solver", e));
            let start = Instant::now();
            let a = solver.analyze(&p, false, false).unwrap_or_else(|e| fail("the search", e));
            report(&what, a.value, solver.nodes(), solver.stats(), start);
        }
        Some(path) => {
            let (db, how, load) = held_database(path, false);
            let what = format!("{}-seed database ({how} in {load:.2} s)", db.header().max_seeds);
            let solver = Solver::new(h, rules, db, options).unwrap_or_else(|e| fail("the solver", e));
            let start = Instant::now();
            let a = solver.analyze(&p, false, false).unwrap_or_else(|e| fail("the search", e));
            report(&what, a.value, solver.nodes(), solver.stats(), start);
        }
        None => {
            let solver = Solver::new(h, rules, NoTablebase { houses: h, rules }, options).unwrap_or_else(|e| fail("the solver", e));
            let start = Instant::now();
            let a = solver.analyze(&p, false, false).unwrap_or_else(|e| fail("the search", e));
            report("no database", a.value, solver.nodes(), solver.stats(), start);
        }
    }
}

/// Every move's value of a start, one move at a time through one solver
/// (its table shared, as in `kalah solve`), with what each cost.
fn moves(args: &[String]) {
    let h: usize = arg(args, 2, "houses");
    let s: u32 = arg(args, 3, "seeds");
    let capture: Capture = arg(args, 4, "capture rule");
    let threads: usize = arg(args, 5, "threads");
    let mb: usize = arg(args, 6, "transposition table MiB");
    let path: String = arg(args, 7, "database file");
    let rules = Rules { capture, ..Rules::default() };
    let engine = Engine::new(h, rules);
    let loading = Instant::now();
    let db = Database::open(Path::new(&path)).unwrap_or_else(|e| fail("opening the database", e));
    let db = db.load_into_memory().unwrap_or_else(|e| fail("loading the database", e));
    let max_seeds = db.header().max_seeds;
    let load = loading.elapsed().as_secs_f64();
    let options = SearchOptions { threads, tt_bytes: mb << 20, max_seeds: None };
    let solver = Solver::new(h, rules, db, options).unwrap_or_else(|e| fail("the solver", e));
    let start = Position::start(h, s).unwrap_or_else(|e| fail("the start position", e));
    // The order of `kalah solve`'s full analysis (1-based houses).
    let houses: Vec<usize> = solver.moves_best_first(start.mover_board()).into_iter().map(|h| h + 1).collect();
    out!("Kalah({h},{s}) {capture}, every move, {threads} threads, {mb} MiB table, {max_seeds}-seed database (loaded in {load:.2} s)");
    let began = Instant::now();
    let mut best = i32::MIN;
    for house in houses {
        let (child, outcome) = start.play(&engine, house).unwrap_or_else(|e| fail("a move", e));
        let (nodes, t) = (solver.nodes(), Instant::now());
        // The child's value is its mover's, stores included.
        let value = match outcome.next {
            Next::Over => start.store_difference() + outcome.gain(),
            _ => {
                let a = solver.analyze(&child, false, false).unwrap_or_else(|e| fail("the search", e));
                if child.to_move() == start.to_move() {
                    a.value
                } else {
                    -a.value
                }
            }
        };
        best = best.max(value);
        out!("| house {house} | {value:+} | {} nodes | {:.2} s |", solver.nodes() - nodes, t.elapsed().as_secs_f64());
    }
    out!("| value {best:+} | {} nodes | {:.2} s |", solver.nodes(), began.elapsed().as_secs_f64());
}

/// One null-window test of a position, for at most some seconds, over a
/// database copied or mapped: what a proof's node costs either way.
fn test(args: &[String]) {
    let position: Position = arg(args, 2, "position (ring form)");
    let capture: Capture = arg(args, 3, "capture rule");
    let threads: usize = arg(args, 4, "threads");
    let mb: usize = arg(args, 5, "transposition table MiB");
    let at_least: i32 = arg(args, 6, "the test's bound");
    let seconds: f64 = arg(args, 7, "seconds");
    let path: String = arg(args, 8, "database file, or map:FILE");
    let rules = Rules { capture, ..Rules::default() };
    let h = position.houses();
    // (Mapped, every page read into the page cache first, as a long proof's are.)
    let (db, how, load) = held_database(&path, true);
    let options = SearchOptions { threads, tt_bytes: mb << 20, max_seeds: None };
    let solver = Solver::new(h, rules, db, options).unwrap_or_else(|e| fail("the solver", e));
    let start = Instant::now();
    let deadline = start + std::time::Duration::from_secs_f64(seconds);
    let outcome = solver.test(&position, at_least, Some(deadline)).unwrap_or_else(|e| fail("the search", e));
    let t = start.elapsed().as_secs_f64();
    let nodes = solver.nodes();
    let said = outcome.map_or("not decided".to_string(), |o| format!("{} (bound {:+})", if o.holds { "holds" } else { "fails" }, o.bound));
    out!(
        "| {position} {capture} >= {at_least:+}, {threads} threads, {mb} MiB table, database {how} ({load:.1} s) | {said} | {t:.2} s | {nodes} nodes | {:.3} M nodes/s |",
        nodes as f64 / t / 1e6
    );
}

/// The database at `path` copied into huge-page memory, or mapped with
/// `map:` before the path (with `warm`, its file read into the page cache
/// first): the database, how it is held, and the seconds that took.
fn held_database(path: &str, warm: bool) -> (Database, &'static str, f64) {
    let loading = Instant::now();
    let (path, mapped) = path.strip_prefix("map:").map_or((path, false), |p| (p, true));
    let db = Database::open(Path::new(path)).unwrap_or_else(|e| fail("opening the database", e));
    let (db, how) = if mapped {
        if warm {
            let mut file = std::fs::File::open(path).unwrap_or_else(|e| fail("reading the database", e));
            std::io::copy(&mut file, &mut std::io::sink()).unwrap_or_else(|e| fail("reading the database", e));
        }
        (db, "mapped")
    } else {
        (db.load_into_memory().unwrap_or_else(|e| fail("loading the database", e)), "copied")
    };
    (db, how, loading.elapsed().as_secs_f64())
}

/// A xorshift step: the random numbers of [`memory`].
fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Random reads of a [`kalah_db::memory::LargeBuffer`] (huge pages, as the search's tables
/// and databases use) of each size: one cache line at a time, each read's
/// address taken from the one before (the latency a search waits when it
/// cannot prefetch), then in groups of eight independent reads (what
/// issuing several prefetches together can gain).
fn memory(args: &[String]) {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let sizes: Vec<usize> =
        if args.len() > 2 { (2..args.len()).map(|i| arg(args, i, "size in MiB")).collect() } else { vec![4, 16, 64, 256, 1024, 2048] };
    const READS: usize = 20_000_000;
    const LINE_WORDS: usize = 8;
    for mib in sizes {
        let buffer = kalah_db::memory::LargeBuffer::zeroed(mib << 20).unwrap_or_else(|e| fail("memory for the test", e));
        let words = buffer.atomics::<AtomicU64>();
        let lines = words.len() / LINE_WORDS;
        // A random cycle through every line: each holds the word index of the next.
        let mut order: Vec<usize> = (0..lines).collect();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for i in (1..lines).rev() {
            order.swap(i, (xorshift(&mut x) % (i as u64 + 1)) as usize);
        }
        for k in 0..lines {
            words[order[k] * LINE_WORDS].store((order[(k + 1) % lines] * LINE_WORDS) as u64, Relaxed);
        }
        let mut at = 0usize;
        let start = Instant::now();
        for _ in 0..READS {
            at = words[at].load(Relaxed) as usize;
        }
        let dependent = start.elapsed().as_secs_f64() * 1e9 / READS as f64;
        let mut sum = 0u64;
        let start = Instant::now();
        for _ in 0..READS / 8 {
            let mut group = [0usize; 8];
            for g in &mut group {
                *g = (xorshift(&mut x) % lines as u64) as usize * LINE_WORDS;
            }
            for g in group {
                sum = sum.wrapping_add(words[g].load(Relaxed));
            }
        }
        let independent = start.elapsed().as_secs_f64() * 1e9 / READS as f64;
        // Printing the results keeps the reads from being optimised away.
        out!("| random reads of {mib} MiB | {dependent:.1} ns a read, one at a time | {independent:.1} ns a read, eight at a time | (checks {at} {sum}) |");
    }
}
