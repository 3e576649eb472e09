//! `mpirun -np P kalah db build ...`: one database built by P ranks.
//!
//! # Sharing a level
//!
//! Counter-clockwise, a level's boards fall into independent *units*
//! (`kalah_db::Builder::level_units`: blocks `m` and `n - m` together),
//! which only read each other and the levels below. Every rank assigns the
//! units to ranks the same way ([`assign`]: largest first, each to the
//! least loaded rank), solves its own with all its threads
//! (`Builder::build_units`), and then every unit's owner broadcasts its
//! values in chunks of [`CHUNK`] bytes, so that every rank ends the level
//! holding all of it, as the next level needs. The last level is only sent
//! to rank 0, which writes the file. The values do not depend on who
//! solved them (each is the exact value of its board), so the file is
//! byte for byte the single-process build's.
//!
//! Clockwise levels have cycles across units and are solved whole
//! (retrograde analysis): rank 0 solves them and broadcasts them, while the
//! other ranks wait. A clockwise build therefore gains nothing from more
//! ranks, but runs, resumes and gives the same file.
//!
//! # The file and resuming
//!
//! Rank 0 runs the single-process writer (`kalah_db::build_file_with`)
//! with the solving of each level left to [`Level::solve`]: the same
//! partial file, checksums, level-by-level flushes and final rename. The
//! other ranks hold the same levels in memory but write nothing. A killed
//! job leaves the partial file with every level finished before the kill;
//! started again (with any number of ranks), rank 0 resumes from it, and
//! at its first level sends the levels it resumed to the other ranks,
//! which start from nothing: a finished level is never recomputed.
//!
//! `KALAH_MPI_FAIL_LEVEL=n` (for tests) makes the last rank abort the job
//! when level `n` starts, after rank 0 has written level `n - 1`: a rank
//! failure at a known point.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::FromArgMatches;
use kalah_core::Rules;
use kalah_db::{human_bytes, Builder, DbError, Progress, Quiet};
use mpi::traits::*;
use serde_json::json;

use super::{arg, flag, Cluster};
use crate::common::{db_error, default_database_path, print_json, rules_json, user, RuleArgs};
use kalah::text::group;

/// Bytes sent in one message (MPI counts are 32-bit; levels are larger).
const CHUNK: usize = 64 << 20;

/// What rank 0 announces as its first level when its file already held every level.
const NOTHING_LEFT: u32 = u32::MAX;

/// What `db build` was asked.
struct Request {
    houses: usize,
    max_seeds: u32,
    rules: Rules,
    path: PathBuf,
    encoding: kalah_db::Encoding,
    threads: usize,
    json: bool,
}

/// Runs `db build` on this rank; see the module docs.
pub(crate) fn run(cluster: &Cluster, m: &clap::ArgMatches) -> ExitCode {
    let request = match cluster.agree(prepare(cluster, m)) {
        Ok(r) => r,
        Err(code) => return code,
    };
    match build(cluster, &request) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => cluster.fatal(&e),
    }
}

/// Reads the arguments and checks the resources this rank needs: memory
/// for the whole database on every rank, disk on rank 0.
fn prepare(cluster: &Cluster, m: &clap::ArgMatches) -> anyhow::Result<Request> {
    // `H N` or the flags, read as the single-process build reads them.
    let args = crate::db::BuildArgs::from_arg_matches(m)?;
    let (houses, max_seeds) = args.size()?;
    let rules = RuleArgs::from_arg_matches(m)?.rules();
    let encoding = args.encoding(rules);
    kalah_db::builder::check_size(houses, max_seeds).map_err(db_error)?;
    let path = arg::<PathBuf>(m, "output")?.unwrap_or_else(|| default_database_path(houses, max_seeds, rules));
    let threads = cluster.threads(arg::<usize>(m, "threads")?)?;
    if cluster.is_root() {
        crate::common::check_output(&path)?;
        kalah_db::check_resources(&path, houses, max_seeds, rules, encoding).map_err(db_error)?;
    }
    // Every rank holds the whole database in memory, and the ranks of one
    // machine share its memory.
    let (memory, _) = kalah_db::build::requirements(houses, max_seeds, rules, encoding);
    let on_this_machine = memory.saturating_mul(cluster.local as u64);
    if let Some(available) = kalah_db::writer::available_memory().filter(|&a| a < on_this_machine) {
        return Err(user(format!(
            "every rank holds the whole database in memory: {} for {} rank{} on this machine, {} available",
            human_bytes(on_this_machine),
            cluster.local,
            if cluster.local == 1 { "" } else { "s" },
            human_bytes(available)
        )));
    }
    // The build runs on this thread (which alone calls MPI) and uses
    // rayon's global pool for its parallel parts.
    rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().map_err(|e| anyhow::anyhow!("cannot start {threads} threads: {e}"))?;
    Ok(Request { houses, max_seeds, rules, path, encoding, threads, json: flag(m, "json")? })
}

fn build(cluster: &Cluster, r: &Request) -> anyhow::Result<()> {
    let mut level = Level {
        cluster,
        max_seeds: r.max_seeds,
        cycles: r.rules.may_cycle(),
        resume_at: None,
        fail_level: std::env::var("KALAH_MPI_FAIL_LEVEL").ok().and_then(|v| v.parse().ok()),
        buffer: Vec::new(),
        timings: Vec::new(),
    };
    if !cluster.is_root() {
        let mut builder = Builder::new(r.houses, r.rules, r.max_seeds).map_err(db_error)?;
        for n in 0..=r.max_seeds {
            level.solve(&mut builder, n, &Quiet).map_err(db_error)?;
            if level.resume_at == Some(NOTHING_LEFT) {
                break;
            }
        }
        return Ok(());
    }
    let (memory, disk) = kalah_db::build::requirements(r.houses, r.max_seeds, r.rules, r.encoding);
    eprintln!(
        "note: building {} boards of {} houses with up to {} seeds ({}) into {} on {} rank{} of {} thread{}: {} of memory on every rank, {} of disk{}",
        group(kalah_core::boards_up_to(r.houses, r.max_seeds)),
        r.houses,
        r.max_seeds,
        r.rules,
        r.path.display(),
        cluster.size,
        if cluster.size == 1 { "" } else { "s" },
        r.threads,
        if r.threads == 1 { "" } else { "s" },
        human_bytes(memory),
        human_bytes(disk),
        if level.cycles { " (clockwise: each level is solved by rank 0 alone)" } else { "" },
    );
    let start = Instant::now();
    let bars = crate::observe::Bars::new(r.houses, r.max_seeds);
    let report =
        kalah_db::build_file_with(&r.path, r.houses, r.rules, r.max_seeds, r.encoding, &bars, &mut |builder, n| level.solve(builder, n, &bars))
            .map_err(db_error)?;
    if level.resume_at.is_none() {
        // Every level was in the partial file: the writer only finished
        // it, and the other ranks wait to hear that there is nothing to do.
        cluster.broadcast_u64(NOTHING_LEFT as u64);
    }
    let seconds = start.elapsed().as_secs_f64();
    if r.json {
        print_json(&json!({
            "path": report.path.display().to_string(),
            "houses": r.houses,
            "max_seeds": r.max_seeds,
            "rules": rules_json(r.rules),
            "boards": kalah_core::boards_up_to(r.houses, r.max_seeds),
            "encoding": r.encoding.name(),
            "bytes": report.bytes,
            "resumed_levels": report.resumed_levels,
            "seconds": seconds,
            "level_seconds": report.level_seconds.iter().map(|(n, s)| json!({"level": n, "seconds": s})).collect::<Vec<_>>(),
            "ranks": cluster.size,
            "threads_per_rank": r.threads,
            // Rank 0's time on each level it shared (counter-clockwise).
            "shared_levels": level.timings.iter().map(|t| json!({
                "level": t.level,
                "solve_seconds": t.solve,
                "wait_seconds": t.wait,
                "exchange_seconds": t.exchange,
                "bytes_received": t.received,
            })).collect::<Vec<_>>(),
        }));
    } else {
        println!(
            "Built {} ({}, {} boards) in {:.1} s on {} rank{}{}",
            report.path.display(),
            human_bytes(report.bytes),
            group(kalah_core::boards_up_to(r.houses, r.max_seeds)),
            seconds,
            cluster.size,
            if cluster.size == 1 { "" } else { "s" },
            if report.resumed_levels > 0 { format!(" (levels 0 to {} were already built)", report.resumed_levels - 1) } else { String::new() }
        );
    }
    Ok(())
}

/// Assigns the units of a level (`(m, boards)`, largest first, as
/// `Builder::level_units` gives them) to `ranks` ranks: each in turn to
/// the rank with the fewest boards so far, the lowest rank on a tie.
/// Every rank computes the same assignment.
pub(crate) fn assign(units: &[(u32, u64)], ranks: usize) -> Vec<(u32, usize)> {
    let mut load = vec![0u64; ranks.max(1)];
    units
        .iter()
        .map(|&(m, boards)| {
            let (owner, _) = load.iter().enumerate().min_by_key(|&(r, &l)| (l, r)).expect("at least one rank");
            load[owner] += boards;
            (m, owner)
        })
        .collect()
}

/// Solves levels on every rank together; see the module docs.
struct Level<'a> {
    cluster: &'a Cluster,
    max_seeds: u32,
    /// Clockwise rules: levels are solved whole, by rank 0.
    cycles: bool,
    /// The first level rank 0 solves (the levels below were resumed from
    /// its file; [`NOTHING_LEFT`] if it held them all).
    resume_at: Option<u32>,
    /// Test hook: the last rank aborts the job when this level starts.
    fail_level: Option<u32>,
    buffer: Vec<u8>,
    /// Where this rank's time went, level by level (for `--json`).
    timings: Vec<LevelTiming>,
}

/// Where one rank's time went on one level it solved with the others.
#[derive(Clone, Copy, Debug, Default)]
struct LevelTiming {
    level: u32,
    /// Solving this rank's units.
    solve: f64,
    /// Waiting for the other ranks to finish theirs.
    wait: f64,
    /// Sending and receiving values.
    exchange: f64,
    /// Bytes of values this rank received.
    received: u64,
}

/// A level's solving that ended (`done`): the progress of a distributed
/// build never says to stop, so a stop here is a bug, refused as such.
fn never_stopped(done: bool, n: u32) -> Result<(), DbError> {
    if done {
        Ok(())
    } else {
        Err(DbError::Unsupported(format!("level {n} stopped, which a distributed build never asks for")))
    }
}

impl Level<'_> {
    /// Leaves level `n` solved in `builder` on this rank (on ranks other
    /// than 0 the last level is left unsolved: no one reads it there).
    fn solve(&mut self, builder: &mut Builder, n: u32, progress: &dyn Progress) -> Result<(), DbError> {
        let cluster = self.cluster;
        let resume_at = match self.resume_at {
            Some(k) => k,
            None => {
                // First call: rank 0 starts at the first level its file
                // lacks, the others at 0; the levels between are sent.
                let k = cluster.broadcast_u64(n as u64) as u32;
                self.resume_at = Some(k);
                if k == NOTHING_LEFT {
                    return Ok(());
                }
                if cluster.is_root() {
                    for i in 0..k {
                        let len = builder.indexer().level_len(i);
                        self.broadcast(builder, i, 0..len, 0);
                    }
                }
                k
            }
        };
        if n < resume_at {
            // Not rank 0: a level rank 0 resumed, sent just above.
            let len = builder.indexer().level_len(n);
            self.broadcast(builder, n, 0..len, 0);
            builder.restored(n);
            return Ok(());
        }
        if self.fail_level == Some(n) {
            cluster.barrier();
            if cluster.rank + 1 == cluster.size {
                eprintln!("kalah: rank {}: KALAH_MPI_FAIL_LEVEL={n}: aborting the job", cluster.rank);
                cluster.world().abort(3);
            }
        }
        let last = n == self.max_seeds;
        if self.cycles {
            if cluster.is_root() {
                never_stopped(builder.build_next(progress).is_some(), n)?;
            }
            if !last {
                cluster.barrier();
                let len = builder.indexer().level_len(n);
                self.broadcast(builder, n, 0..len, 0);
            }
            if !cluster.is_root() {
                builder.restored(n);
            }
            return Ok(());
        }
        let owners = assign(&builder.level_units(n), cluster.size);
        let mine: Vec<u32> = owners.iter().filter(|&&(_, r)| r == cluster.rank).map(|&(m, _)| m).collect();
        let mut timing = LevelTiming { level: n, ..LevelTiming::default() };
        let start = Instant::now();
        never_stopped(builder.build_units(n, &mine, progress), n)?;
        timing.solve = start.elapsed().as_secs_f64();
        if cluster.size > 1 {
            // Wait for every rank without spinning, then exchange.
            cluster.barrier();
            timing.wait = start.elapsed().as_secs_f64() - timing.solve;
            for &(m, owner) in &owners {
                for range in builder.unit_ranges(n, m) {
                    if !last {
                        self.broadcast(builder, n, range.clone(), owner);
                    } else if owner != 0 {
                        self.send_to_root(builder, n, range.clone(), owner);
                    }
                    if owner != cluster.rank && (!last || cluster.is_root()) {
                        timing.received += range.end - range.start;
                    }
                    if cluster.is_root() && owner != 0 {
                        progress.advance(n, range.end - range.start);
                    }
                }
            }
            timing.exchange = start.elapsed().as_secs_f64() - timing.solve - timing.wait;
        }
        self.timings.push(timing);
        builder.restored(n);
        Ok(())
    }

    /// Sends the values at `range` of level `n` from `owner` to every rank.
    fn broadcast(&mut self, builder: &mut Builder, n: u32, range: std::ops::Range<u64>, owner: usize) {
        let cluster = self.cluster;
        if cluster.size == 1 {
            return;
        }
        for (at, len) in chunks(range) {
            self.buffer.resize(len.max(self.buffer.len()), 0);
            let buf = &mut self.buffer[..len];
            if cluster.rank == owner {
                buf.copy_from_slice(builder.level_part(n, at..at + len as u64));
            }
            cluster.world().process_at_rank(owner as i32).broadcast_into(buf);
            if cluster.rank != owner {
                builder.install(n, at, buf);
            }
        }
    }

    /// Sends the values at `range` of level `n` from `owner` to rank 0 only.
    fn send_to_root(&mut self, builder: &mut Builder, n: u32, range: std::ops::Range<u64>, owner: usize) {
        let cluster = self.cluster;
        if cluster.rank != owner && !cluster.is_root() {
            return;
        }
        for (at, len) in chunks(range) {
            self.buffer.resize(len.max(self.buffer.len()), 0);
            let buf = &mut self.buffer[..len];
            if cluster.rank == owner {
                buf.copy_from_slice(builder.level_part(n, at..at + len as u64));
                cluster.world().process_at_rank(0).send(&buf[..]);
            } else {
                cluster.world().process_at_rank(owner as i32).receive_into(buf);
                builder.install(n, at, buf);
            }
        }
    }
}

/// `range` cut into messages of at most [`CHUNK`] bytes: (start, length).
fn chunks(range: std::ops::Range<u64>) -> impl Iterator<Item = (u64, usize)> {
    (range.start..range.end).step_by(CHUNK).map(move |at| (at, ((range.end - at) as usize).min(CHUNK)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unit_has_one_owner_and_the_loads_are_balanced() {
        let builder = Builder::new(6, Rules::default(), 20).unwrap();
        for ranks in 1..=5 {
            for n in 0..=20 {
                let units = builder.level_units(n);
                let owners = assign(&units, ranks);
                let mut seen: Vec<u32> = owners.iter().map(|&(m, _)| m).collect();
                seen.sort();
                assert_eq!(seen, (0..=n / 2).collect::<Vec<_>>());
                assert!(owners.iter().all(|&(_, r)| r < ranks));
                assert_eq!(owners, assign(&units, ranks), "the same on every rank");
                // Greedy largest-first: no rank exceeds the mean by more than the largest unit.
                let mut load = vec![0u64; ranks];
                for (&(_, size), &(_, r)) in units.iter().zip(&owners) {
                    load[r] += size;
                }
                let total: u64 = load.iter().sum();
                assert_eq!(total, builder.indexer().level_len(n));
                let largest = units[0].1;
                assert!(*load.iter().max().unwrap() <= total / ranks as u64 + largest);
            }
        }
    }
}
