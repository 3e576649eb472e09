//! Where could a search memory of millions of boards live (issue 54,
//! "Knowledge that accumulates")? Measures, for N boards with bounds:
//!
//! - the journal file of `kalah::journal` (the search memory today),
//!   written whole through the safe writer: the cost of keeping 100 new
//!   boards is a whole rewrite;
//! - LMDB through heed: 100 new boards merged (read, tighten, write) in one
//!   committed (synced) transaction; several processes may write at once;
//! - redb: the same; one process at a time may open the file.
//!
//! and the cost of reading all N back (what a process does when it starts).
//!
//!     cd tools/store_bench && cargo run --release -- 10000 100000 1000000
//!     cargo run --release -- --concurrent DIR   # two processes, LMDB and redb
//!
//! Prints one line per store and size. Run beside nothing else.

use std::path::Path;
use std::time::Instant;

use heed::types::Bytes;
use kalah::journal::{Identity, JournalDir};
use kalah::{Board, Indexer, Rules};
use kalah_search::{Entry, Journal};
use rand::{rngs::StdRng, RngExt, SeedableRng};
use redb::ReadableTable;

const HOUSES: usize = 6;
const NEW: usize = 100;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--concurrent") {
        return concurrent(Path::new(&args[1]));
    }
    if args.first().map(String::as_str) == Some("--writer") {
        return writer(&args[1], Path::new(&args[2]), args[3].parse().unwrap());
    }
    for n in args.iter().map(|a| a.parse::<usize>().expect("a count of boards")) {
        let entries = random_entries(n, 7);
        let new = random_entries(NEW, 8);
        journal_file(&entries, &new);
        lmdb(&entries, &new);
        redb_store(&entries, &new);
    }
}

fn random_entries(n: usize, seed: u64) -> Vec<Entry> {
    let ix = Indexer::new(HOUSES, 30);
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let board = ix.unrank(rng.random_range(0..ix.len()));
            // Bounds a board of its seeds can have (the journal refuses others).
            // The same bounds whenever a board comes again (the journal
            // refuses crossing ones).
            let t = board.total() as i32;
            let mut of_board = StdRng::seed_from_u64(board.mover_word() ^ board.opponent_word().rotate_left(17));
            let lower = of_board.random_range(-t..=t);
            Entry { board, lower, upper: (lower + of_board.random_range(0..6)).min(t), best: u8::MAX }
        })
        .collect()
}

fn key(board: Board) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&board.mover_word().to_be_bytes());
    k[8..].copy_from_slice(&board.opponent_word().to_be_bytes());
    k
}

fn value(lower: i32, upper: i32) -> [u8; 8] {
    let mut v = [0u8; 8];
    v[..4].copy_from_slice(&lower.to_le_bytes());
    v[4..].copy_from_slice(&upper.to_le_bytes());
    v
}

fn bounds(v: &[u8]) -> (i32, i32) {
    (i32::from_le_bytes(v[..4].try_into().unwrap()), i32::from_le_bytes(v[4..8].try_into().unwrap()))
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).unwrap().flatten().map(|e| e.metadata().map_or(0, |m| m.len())).sum()
}

fn report(store: &str, n: usize, first: f64, add: f64, read: f64, bytes: u64) {
    println!(
        "{store:>12} N={n:>8}: first write {first:>8.3} s, {NEW} new boards kept {:>9.2} ms, all read back {read:>8.3} s, {:.1} MB on disk",
        add * 1e3,
        bytes as f64 / 1e6
    );
}

fn journal_file(entries: &[Entry], new: &[Entry]) {
    let dir = tempfile::tempdir().unwrap();
    let identity = Identity::memory(Rules::default(), HOUSES);
    let (file, _) = JournalDir::open(dir.path(), identity.clone(), 1).unwrap();
    let journal = Journal::with_entries(1, entries.iter().copied(), []).unwrap();
    let t = Instant::now();
    file.write(&journal, 1, 0, 0.0).unwrap();
    let first = t.elapsed().as_secs_f64();
    let grown = Journal::with_entries(1, entries.iter().chain(new).copied(), []).unwrap();
    let t = Instant::now();
    file.write(&grown, 1, 0, 0.0).unwrap();
    let add = t.elapsed().as_secs_f64();
    drop(file);
    let t = Instant::now();
    let (_, loaded) = JournalDir::open(dir.path(), identity, 1).unwrap();
    let read = t.elapsed().as_secs_f64();
    assert!(loaded.journal.len() >= entries.len().min(1));
    report("journal file", entries.len(), first, add, read, dir_bytes(dir.path()));
}

fn lmdb_env(dir: &Path) -> heed::Env {
    // SAFETY: the directory is this program's own; no other code maps it differently.
    unsafe { heed::EnvOpenOptions::new().map_size(8 << 30).open(dir).unwrap() }
}

fn lmdb_merge(env: &heed::Env, entries: &[Entry]) {
    let mut txn = env.write_txn().unwrap();
    let db: heed::Database<Bytes, Bytes> = env.create_database(&mut txn, None).unwrap();
    for e in entries {
        let k = key(e.board);
        let (lower, upper) = match db.get(&txn, &k).unwrap() {
            Some(v) => {
                let (l, u) = bounds(v);
                (l.max(e.lower), u.min(e.upper))
            }
            None => (e.lower, e.upper),
        };
        db.put(&mut txn, &k, &value(lower, upper)).unwrap();
    }
    txn.commit().unwrap();
}

fn lmdb(entries: &[Entry], new: &[Entry]) {
    let dir = tempfile::tempdir().unwrap();
    let env = lmdb_env(dir.path());
    let t = Instant::now();
    lmdb_merge(&env, entries);
    let first = t.elapsed().as_secs_f64();
    let t = Instant::now();
    lmdb_merge(&env, new);
    let add = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let txn = env.read_txn().unwrap();
    let db: heed::Database<Bytes, Bytes> = env.open_database(&txn, None).unwrap().unwrap();
    let mut all = Vec::new();
    for item in db.iter(&txn).unwrap() {
        let (k, v) = item.unwrap();
        let (lower, upper) = bounds(v);
        let board = Board::from_words(u64::from_be_bytes(k[..8].try_into().unwrap()), u64::from_be_bytes(k[8..].try_into().unwrap()));
        all.push(Entry { board, lower, upper, best: u8::MAX });
    }
    let journal = Journal::with_entries(1, all, []).unwrap();
    assert!(journal.len() >= entries.len().min(1));
    let read = t.elapsed().as_secs_f64();
    drop(txn);
    report("LMDB (heed)", entries.len(), first, add, read, dir_bytes(dir.path()));
}

const TABLE: redb::TableDefinition<&[u8], &[u8]> = redb::TableDefinition::new("bounds");

fn redb_merge(db: &redb::Database, entries: &[Entry]) {
    let txn = db.begin_write().unwrap();
    {
        let mut table = txn.open_table(TABLE).unwrap();
        for e in entries {
            let k = key(e.board);
            let old = table.get(&k[..]).unwrap().map(|v| bounds(v.value()));
            let (lower, upper) = match old {
                Some((l, u)) => (l.max(e.lower), u.min(e.upper)),
                None => (e.lower, e.upper),
            };
            table.insert(&k[..], &value(lower, upper)[..]).unwrap();
        }
    }
    txn.commit().unwrap();
}

fn redb_store(entries: &[Entry], new: &[Entry]) {
    let dir = tempfile::tempdir().unwrap();
    let db = redb::Database::create(dir.path().join("memory.redb")).unwrap();
    let t = Instant::now();
    redb_merge(&db, entries);
    let first = t.elapsed().as_secs_f64();
    let t = Instant::now();
    redb_merge(&db, new);
    let add = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let txn = db.begin_read().unwrap();
    let table = txn.open_table(TABLE).unwrap();
    let mut all = Vec::new();
    for item in table.iter().unwrap() {
        let (k, v) = item.unwrap();
        let (lower, upper) = bounds(v.value());
        let k = k.value();
        let board = Board::from_words(u64::from_be_bytes(k[..8].try_into().unwrap()), u64::from_be_bytes(k[8..].try_into().unwrap()));
        all.push(Entry { board, lower, upper, best: u8::MAX });
    }
    let journal = Journal::with_entries(1, all, []).unwrap();
    assert!(journal.len() >= entries.len().min(1));
    let read = t.elapsed().as_secs_f64();
    report("redb", entries.len(), first, add, read, dir_bytes(dir.path()));
}

/// Two processes keep 10,000 boards each, 100 a transaction, in one store
/// at once: with LMDB both succeed and every board is there; with redb
/// the second cannot open the file while the first has it.
fn concurrent(dir: &Path) {
    for store in ["lmdb", "redb"] {
        let at = dir.join(store);
        std::fs::create_dir_all(&at).unwrap();
        let me = std::env::current_exe().unwrap();
        let t = Instant::now();
        // Both started before either is waited for: they write at once.
        let started: Vec<_> = (0..2)
            .map(|i| {
                std::process::Command::new(&me)
                    .args(["--writer", store, at.to_str().unwrap(), &i.to_string()])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let children: Vec<_> = started.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
        for (i, c) in children.iter().enumerate() {
            println!(
                "{store} writer {i}: exit {:?} {}{}",
                c.status.code(),
                String::from_utf8_lossy(&c.stdout).trim(),
                String::from_utf8_lossy(&c.stderr).lines().last().unwrap_or("")
            );
        }
        println!("{store}: {:.2} s", t.elapsed().as_secs_f64());
    }
}

fn writer(store: &str, dir: &Path, seed: u64) {
    let entries = random_entries(10_000, 100 + seed);
    match store {
        "lmdb" => {
            let env = lmdb_env(dir);
            for chunk in entries.chunks(100) {
                lmdb_merge(&env, chunk);
            }
            let txn = env.read_txn().unwrap();
            let db: heed::Database<Bytes, Bytes> = env.open_database(&txn, None).unwrap().unwrap();
            println!("kept; the store holds {} boards", db.len(&txn).unwrap());
        }
        _ => match redb::Database::create(dir.join("memory.redb")) {
            Ok(db) => {
                for chunk in entries.chunks(100) {
                    redb_merge(&db, chunk);
                }
                println!("kept");
            }
            Err(e) => println!("cannot open: {e}"),
        },
    }
}
