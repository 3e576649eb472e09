//! `kalah strong`: the strong solution of Kalah(h,s), i.e. the database of
//! every board with up to 2hs seeds, with its statistics and a manifest
//! entry so anyone can rebuild it and check it byte for byte.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use kalah_core::{Engine, Indexer, Next, Position};
use kalah_db::{human_bytes, Database, Tablebase};
use serde_json::json;
use sha2::{Digest, Sha256};

use kalah::text::group;
use crate::common::{db_error, default_database_path, print_json, rules_json, start_position, BoardSize, RuleArgs};
use kalah::text::{signed, verdict};

/// Arguments of `kalah strong`.
#[derive(Args, Debug)]
pub struct StrongArgs {
    #[command(flatten)]
    size: BoardSize,
    #[command(flatten)]
    rules: RuleArgs,
    /// The database file (default: data/db/kalah-hH-nN-RULES.kdb, or under $KALAH_DB_DIR).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Append the result to this manifest (CSV: rules, file, size, SHA-256, statistics).
    #[arg(long, value_name = "CSV")]
    manifest: Option<PathBuf>,
    /// Threads (default: every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// The header line of a manifest.
pub const MANIFEST_HEADER: &str =
    "houses,seeds,capture,end,leftovers,sowing,relay,max_seeds,file,bytes,sha256,start_value,won,drawn,lost,reachable_boards,reachable_positions";

pub fn run(a: StrongArgs) -> anyhow::Result<()> {
    let rules = a.rules.rules();
    let (h, seeds) = a.size.required("strong")?;
    let start = start_position(h, seeds)?;
    let n = start.seeds_in_houses();
    kalah_db::builder::check_size(h, n).map_err(db_error)?;
    let path = a.output.clone().unwrap_or_else(|| default_database_path(h, n, rules));
    let threads = crate::common::threads(a.threads)?;
    crate::common::check_output(&path)?;
    if let Some(m) = &a.manifest {
        // Before the work, not after it: a directory or a device there, a
        // place that cannot be written, a file that is not a manifest.
        crate::common::check_output(m)?;
        kalah_db::safe::check_writable(m).map_err(db_error)?;
        read_manifest(m)?;
    }
    let timer = Instant::now();
    let existing = Database::open_for(&path, h, rules).ok().filter(|d| d.header().max_seeds == n);
    let build_seconds = match existing {
        Some(_) => {
            if !a.json {
                eprintln!("note: {} already holds the strong solution; checking it", path.display());
            }
            0.0
        }
        None => {
            kalah_db::check_resources(&path, h, n, rules).map_err(db_error)?;
            let (memory, disk) = kalah_db::writer::requirements(h, n, rules);
            if !a.json {
                eprintln!(
                    "note: strong solution of Kalah({h},{seeds}): {} boards, {} of memory, {} of disk, into {}",
                    group(kalah_core::boards_up_to(h, n)),
                    human_bytes(memory + kalah_core::boards_up_to(h, n) / 4),
                    human_bytes(disk),
                    path.display()
                );
            }
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
            let bars = crate::observe::Bars::new(h, n);
            pool.install(|| kalah_db::build_file(&path, h, rules, n, &bars)).map_err(db_error)?;
            timer.elapsed().as_secs_f64()
        }
    };
    let db = Database::open_for(&path, h, rules).map_err(db_error)?;
    let db = kalah::databases::for_search(db, threads)?;
    let engine = Engine::new(h, rules);
    let value = start.store_difference() + db.value(start.mover_board());
    let (won, drawn, lost) = outcome_counts(&db);
    let (boards, positions) = reachable(&engine, &db, &start);
    let (bytes, sha) = sha256(&path)?;
    let seconds = timer.elapsed().as_secs_f64();
    let file_name = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let row = format!(
        "{h},{},{},{},{},{},{},{n},{file_name},{bytes},{sha},{value},{won},{drawn},{lost},{boards},{positions}",
        seeds, rules.capture, rules.end, rules.leftovers, rules.sowing, rules.relay
    );
    if let Some(m) = &a.manifest {
        append_manifest(m, &row)?;
    }
    if a.json {
        print_json(&json!({
            "houses": h,
            "seeds": seeds,
            "rules": rules_json(rules),
            "max_seeds": n,
            "path": path.display().to_string(),
            "bytes": bytes,
            "sha256": sha,
            "value": value,
            "verdict": verdict(kalah_core::Side::South, value),
            "boards": db.indexer().len(),
            "won": won,
            "drawn": drawn,
            "lost": lost,
            "reachable_boards": boards,
            "reachable_positions": positions,
            "build_seconds": build_seconds,
            "seconds": seconds,
        }));
    } else {
        println!("Strong solution of Kalah({h},{seeds}), {rules}");
        println!("  start value          {} ({})", signed(value), verdict(kalah_core::Side::South, value));
        println!("  boards (<= {n} seeds)  {}", group(db.indexer().len()));
        println!("  won / drawn / lost   {} / {} / {}  (for the player to move)", group(won), group(drawn), group(lost));
        println!("  reachable from start {} boards, {} positions (side to move counted, stores not)", group(boards), group(positions));
        println!("  file                 {} ({})", path.display(), human_bytes(bytes));
        println!("  sha256               {sha}");
        println!("  time                 {seconds:.1} s (build {build_seconds:.1} s)");
    }
    Ok(())
}

/// Boards whose value for the player to move is positive, zero, negative.
fn outcome_counts(db: &Database) -> (u64, u64, u64) {
    use rayon::prelude::*;
    (0..=db.header().max_seeds)
        .map(|n| {
            db.level_bytes(n)
                .par_chunks(1 << 20)
                .map(|chunk| {
                    chunk.iter().fold((0, 0, 0), |(w, d, l), &b| match b as i8 {
                        v if v > 0 => (w + 1, d, l),
                        0 => (w, d + 1, l),
                        _ => (w, d, l + 1),
                    })
                })
                .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
        })
        .fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
}

/// The boards (seen from the mover) and the positions (board and side to
/// move) reachable from `start`.
fn reachable(engine: &Engine, db: &Database, start: &Position) -> (u64, u64) {
    let ix: &Indexer = db.indexer();
    let len = ix.len() as usize;
    // One bit per board and side to move: South's in `seen[0]`, North's in `seen[1]`.
    let mut seen = [vec![0u64; len.div_ceil(64)], vec![0u64; len.div_ceil(64)]];
    let side_bit = |s: kalah_core::Side| (s == kalah_core::Side::North) as usize;
    let mut stack = vec![(ix.index(start.mover_board()), side_bit(start.to_move()))];
    let mark = |seen: &mut [Vec<u64>; 2], i: u64, side: usize| -> bool {
        let (w, b) = ((i / 64) as usize, i % 64);
        let new = seen[side][w] & (1 << b) == 0;
        seen[side][w] |= 1 << b;
        new
    };
    mark(&mut seen, stack[0].0, stack[0].1);
    while let Some((i, side)) = stack.pop() {
        let board = ix.unrank(i);
        if engine.is_over(board) {
            continue;
        }
        for house in engine.moves(board) {
            let o = engine.play(board, house);
            let next_side = match o.next {
                Next::Over => continue,
                Next::Mover => side,
                Next::Opponent => 1 - side,
            };
            let c = ix.index(o.board);
            if mark(&mut seen, c, next_side) {
                stack.push((c, next_side));
            }
        }
    }
    let positions: u64 = seen.iter().flatten().map(|w| w.count_ones() as u64).sum();
    let boards: u64 = seen[0].iter().zip(&seen[1]).map(|(a, b)| (a | b).count_ones() as u64).sum();
    (boards, positions)
}

/// The size and SHA-256 of a file.
pub fn sha256(path: &Path) -> anyhow::Result<(u64, String)> {
    use std::io::Read;
    let io = |e| db_error(kalah_db::DbError::io(path, e));
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        let got = file.read(&mut buffer).map_err(io)?;
        if got == 0 {
            break;
        }
        hasher.update(&buffer[..got]);
        bytes += got as u64;
    }
    let digest = hasher.finalize();
    Ok((bytes, digest.iter().map(|b| format!("{b:02x}")).collect()))
}

/// The manifest's text: empty if there is none yet. A file that is not
/// UTF-8 text or that does not start with the manifest's header is refused,
/// never replaced.
fn read_manifest(path: &Path) -> anyhow::Result<String> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(db_error(kalah_db::DbError::io(path, e))),
    };
    let refused = |why: &str| crate::common::user(format!("{}: {why}; it is left as it is (move it aside, or give another --manifest)", path.display()));
    let text = String::from_utf8(bytes).map_err(|e| refused(&format!("not a manifest: byte {} is not UTF-8 text", e.utf8_error().valid_up_to())))?;
    match text.lines().find(|l| !l.trim().is_empty()) {
        None => Ok(text),
        Some(first) if first == MANIFEST_HEADER => Ok(text),
        Some(_) => Err(refused("not a manifest: its first line is not the manifest header")),
    }
}

fn append_manifest(path: &Path, row: &str) -> anyhow::Result<()> {
    let existing = read_manifest(path)?;
    let key = |line: &str| line.split(',').take(8).collect::<Vec<_>>().join(",");
    let mut lines: Vec<String> = existing
        .lines()
        .filter(|l| !l.is_empty() && *l != MANIFEST_HEADER && key(l) != key(row))
        .map(str::to_string)
        .collect();
    lines.push(row.to_string());
    lines.sort_by_key(|l| {
        let f: Vec<&str> = l.split(',').collect();
        (f[0].parse::<u32>().unwrap_or(0), f[1].parse::<u32>().unwrap_or(0), f[2..8].join(","))
    });
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| db_error(kalah_db::DbError::io(dir, e)))?;
    }
    // Written whole beside it and renamed over it: a full disk or a crash
    // leaves the manifest as it was.
    let mut out = kalah_db::safe::SafeFile::create(path).map_err(db_error)?;
    let text: String = std::iter::once(MANIFEST_HEADER.to_string()).chain(lines).map(|l| l + "\n").collect();
    out.write_all(text.as_bytes()).map_err(|e| db_error(kalah_db::DbError::io(out.path(), e)))?;
    out.commit().map_err(db_error)?;
    Ok(())
}
