//! `mpirun -np P kalah solve ...`: one search shared by P ranks.
//!
//! The job planning, the master and the workers are the library's
//! (`kalah::split`, with its module docs: jobs, proven bounds, what it
//! costs); this module links them by MPI, reads the knobs and prints.
//!
//! # Knobs (environment, for experiments)
//!
//! `KALAH_SPLIT_JOBS` (jobs per rank in the first split),
//! `KALAH_SPLIT_DEPTH` (split exactly this many plies instead),
//! `KALAH_SPLIT_AFTER` (seconds before a running job may be split),
//! `KALAH_SLICE_FIRST`, `KALAH_SLICE_GROWTH`, `KALAH_SLICE_MAX` (the
//! slices, seconds and factor), `KALAH_MPI_TRACE=1` (every message the
//! master receives, on stderr).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::FromArgMatches;
use kalah_core::{Position, Rules};
use kalah_db::{human_bytes, Database, NoTablebase, Tablebase};
use kalah_search::{SearchOptions, Solver};
use mpi::topology::SimpleCommunicator;
use mpi::point_to_point::Source as _;
use mpi::traits::*;

use super::{arg, flag, Cluster, POLL};
use kalah::text::{a_size, article, group};
use kalah::UsedDatabase;

use crate::common::{databases, print_json, user, BoardSize, DbArgs, RuleArgs};
use crate::common::SearchArgs;
use kalah::split::{local_links, master, worker, Knobs, LocalMaster, MasterLink, ToMaster, ToWorker, Tree, WorkerLink, Words, JOBS_PER_WORKER, MAX_SPLIT_DEPTH};

/// Rank 0's master link: worker 0 in this process, worker `r` on rank `r`.
struct ClusterMaster<'a> {
    local: LocalMaster,
    world: &'a SimpleCommunicator,
}

impl MasterLink for ClusterMaster<'_> {
    fn try_recv(&mut self) -> Option<(usize, ToMaster)> {
        if let Some(m) = self.local.try_recv() {
            return Some(m);
        }
        let (message, status) = self.world.any_process().immediate_matched_probe()?;
        let mut words: Words = [0; 6];
        message.matched_receive_into(&mut words[..]);
        Some((status.source_rank() as usize, ToMaster::decode(words)))
    }

    fn send(&mut self, worker: usize, message: ToWorker) {
        if worker == 0 {
            self.local.send(0, message);
        } else {
            self.world.process_at_rank(worker as i32).send(&message.encode()[..]);
        }
    }
}

/// The link of a worker on a rank other than 0.
struct ClusterWorker<'a> {
    world: &'a SimpleCommunicator,
}

impl WorkerLink for ClusterWorker<'_> {
    fn send(&mut self, message: ToMaster) {
        self.world.process_at_rank(0).send(&message.encode()[..]);
    }

    fn recv(&mut self) -> ToWorker {
        loop {
            if let Some((message, _)) = self.world.process_at_rank(0).immediate_matched_probe() {
                let mut words: Words = [0; 6];
                message.matched_receive_into(&mut words[..]);
                return ToWorker::decode(words);
            }
            std::thread::sleep(POLL);
        }
    }
}

// ----- the command -----

/// The shared search's timings, from the environment where set (see the module docs).
fn knobs() -> Knobs {
    let seconds = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<f64>().ok());
    let default = Knobs::default();
    Knobs {
        split_after: seconds("KALAH_SPLIT_AFTER").map_or(default.split_after, Duration::from_secs_f64),
        first_slice: seconds("KALAH_SLICE_FIRST").map_or(default.first_slice, Duration::from_secs_f64),
        slice_growth: seconds("KALAH_SLICE_GROWTH").unwrap_or(default.slice_growth),
        longest_slice: seconds("KALAH_SLICE_MAX").map_or(default.longest_slice, Duration::from_secs_f64),
    }
}

/// What `solve` was asked.
struct Prepared {
    position: Position,
    title: String,
    rules: Rules,
    threads: usize,
    tt_mb: usize,
    value_only: bool,
    json: bool,
}

/// Runs `solve` on this rank; see the module docs.
pub(crate) fn run(cluster: &Cluster, m: &clap::ArgMatches) -> ExitCode {
    let (prepared, database) = match cluster.agree(prepare(cluster, m)) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let h = prepared.position.houses();
    match database {
        Some(db) => {
            let about = UsedDatabase::file(&db);
            go(cluster, &prepared, db, Some(about))
        }
        None => go(cluster, &prepared, NoTablebase { houses: h, rules: prepared.rules }, None),
    }
}

/// Reads the arguments (refusing what is not distributed) and opens the database.
fn prepare(cluster: &Cluster, m: &clap::ArgMatches) -> anyhow::Result<(Prepared, Option<Database>)> {
    for option in ["pie", "shift", "openings"] {
        if flag(m, option)? {
            return Err(user(format!("--{option} is not distributed: run it without mpirun")));
        }
    }
    if arg::<f64>(m, "time_limit")?.is_some() {
        return Err(user("--time-limit is not distributed: run it without mpirun"));
    }
    let rules = RuleArgs::from_arg_matches(m)?.rules();
    if rules.may_cycle() {
        return Err(user(
            "clockwise sowing is solved by retrograde analysis in memory, which is not distributed: run it without mpirun",
        ));
    }
    // `H S` or `--houses H --seeds S`, read as the single-process solve reads them.
    let size = BoardSize::from_arg_matches(m)?;
    let (position, title) = crate::common::start_or_position(size.houses(), size.seeds(), arg::<String>(m, "position")?.as_deref(), "solve")?;
    let search = SearchArgs::from_arg_matches(m)?;
    let db = DbArgs::from_arg_matches(m)?;
    if db.db_seeds.is_some_and(|n| n > 0) {
        return Err(user(
            "--db-seeds: a database built in memory is not distributed; build a file with `kalah db build` and give it with --db",
        ));
    }
    // Bad arguments are refused before a database is read.
    let (threads, tt_mb, value_only, json) = (cluster.threads(search.threads)?, search.tt_mb_asked()?, flag(m, "value_only")?, flag(m, "json")?);
    let (h, seeds) = (position.houses(), position.seeds_in_houses());
    let purpose = kalah::databases::Purpose { houses: h, rules, seeds, gap: kalah::databases::ANALYSIS_LOAD_GAP };
    let database = match databases().open_for(&db.spec(), purpose, kalah::SetupBudget::UNLIMITED, &kalah::Silent)? {
        // Loaded if every rank of this machine can hold a copy, else shared mapped.
        Some(d) => Some(kalah::databases::for_search_by(d, cluster.local, threads)?),
        None => None,
    };
    let db_seeds = database.as_ref().map(|d| d.header().max_seeds);
    let prepared = Prepared {
        position,
        title,
        rules,
        threads,
        tt_mb: tt_mb.unwrap_or_else(|| kalah::default_tt_mb(h, seeds, db_seeds)),
        value_only,
        json,
    };
    Ok((prepared, database))
}

/// Refuses transposition tables that the ranks on this machine (each
/// allocates its own) cannot hold together.
fn check_tables_memory(cluster: &Cluster, bytes: u64) -> anyhow::Result<()> {
    if cluster.local <= 1 {
        return Ok(kalah::check_table_memory(bytes)?);
    }
    let total = bytes.saturating_mul(cluster.local as u64);
    match kalah_db::writer::available_memory() {
        Some(available) if total > available => Err(user(format!(
            "{} ranks on this machine with {} transposition table each need {}: {} of memory is available (use --tt-mb)",
            cluster.local,
            a_size(bytes),
            human_bytes(total),
            human_bytes(available)
        ))),
        _ => Ok(()),
    }
}

/// Every rank: makes its solver; rank 0 leads, the others work.
/// `database`: the database's path and seeds, if there is one.
fn go<T: Tablebase>(cluster: &Cluster, p: &Prepared, table: T, database: Option<UsedDatabase>) -> ExitCode {
    let h = p.position.houses();
    let options = SearchOptions {
        threads: p.threads,
        tt_bytes: p.tt_mb << 20,
        max_seeds: Some(p.position.seeds_in_houses()),
    };
    let solver = check_tables_memory(cluster, options.reserved_bytes(h) as u64)
        .and_then(|()| Solver::new(h, p.rules, table, options).map_err(|e| user(e.to_string())));
    let solver = match cluster.agree(solver) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if !cluster.is_root() {
        let mut link = ClusterWorker { world: cluster.world() };
        return match worker(&solver, &mut link, knobs()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => cluster.fatal(&e.into()),
        };
    }
    match lead(cluster, p, &solver, database) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => cluster.fatal(&e),
    }
}

/// Rank 0: splits, runs the master and a worker, prints the answer.
fn lead<T: Tablebase>(cluster: &Cluster, p: &Prepared, solver: &Solver<T>, database: Option<UsedDatabase>) -> anyhow::Result<()> {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<usize>().ok());
    let (wanted, max_depth) = match env("KALAH_SPLIT_DEPTH") {
        Some(d) => (usize::MAX, d as u32),
        None => (env("KALAH_SPLIT_JOBS").unwrap_or(JOBS_PER_WORKER).max(1) * cluster.size, MAX_SPLIT_DEPTH),
    };
    let start = Instant::now();
    let mut tree = Tree::new(solver.engine(), solver.tablebase(), p.position.mover_board(), wanted, max_depth, !p.value_only);
    if let Some(why) = solver.tablebase().failure() {
        return Err(user(why));
    }
    let (jobs, _, _) = tree.job_counts();
    if !p.json {
        eprintln!(
            "note: searching on {} rank{} of {} thread{}, {} transposition table each{}; {jobs} jobs from {} {}-ply split",
            cluster.size,
            if cluster.size == 1 { "" } else { "s" },
            p.threads,
            if p.threads == 1 { "" } else { "s" },
            a_size(solver.tt_bytes() as u64),
            match &database {
                Some(d) => format!(" and the {}-seed database", d.max_seeds),
                None => ", no endgame database".into(),
            },
            article(tree.depth().into()),
            tree.depth(),
        );
    }
    let (local, mut ends) = local_links(1);
    let mut local_end = ends.pop().expect("one local worker");
    let (stats, searched) = std::thread::scope(|scope| {
        let searcher = scope.spawn(move || {
            // A panic must reach the master too, or it would wait for this
            // worker's job for ever.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| worker(solver, &mut local_end, knobs())))
                .unwrap_or_else(|_| Err(kalah::Error::internal("internal error: rank 0's search thread panicked")));
            if result.is_err() {
                local_end.send(ToMaster::Failed);
            }
            result
        });
        let mut link = ClusterMaster { local, world: cluster.world() };
        let trace = |line: String| eprintln!("{line}");
        let trace = std::env::var_os("KALAH_MPI_TRACE").is_some().then_some(&trace as &dyn Fn(String));
        let stats = master(&mut tree, (solver.engine(), solver.tablebase()), &mut link, cluster.size, knobs(), trace).map_err(anyhow::Error::from);
        // Closes the channels: a search thread still waiting sees the end.
        drop(link);
        if let Err(e) = &stats {
            if !searcher.is_finished() {
                // The master failed while rank 0's search is in a slice:
                // end the job now rather than when the slice ends.
                cluster.fatal(e);
            }
        }
        let searched = searcher
            .join()
            .unwrap_or_else(|_| Err(kalah::Error::internal("internal error: rank 0's search thread panicked")));
        (stats, searched)
    });
    searched?;
    let stats = stats?;
    if let Some(why) = solver.tablebase().failure() {
        return Err(user(why));
    }
    let seconds = start.elapsed().as_secs_f64();
    let answer = kalah::split::report(&tree, &stats, p.position, p.rules, p.value_only, p.threads, database, seconds)?;
    if p.json {
        print_json(&answer);
    } else {
        let d = &answer.distributed;
        crate::analysis::print_human(&p.title, &answer.report);
        println!(
            "Distributed: {} rank{} of {} thread{}; {} jobs from {} {}-ply split and {} later splits: {} solved, {} stopped early, {} never needed",
            d.ranks,
            if d.ranks == 1 { "" } else { "s" },
            d.threads_per_rank,
            if d.threads_per_rank == 1 { "" } else { "s" },
            d.jobs,
            article(d.split_depth.into()),
            d.split_depth,
            d.jobs_split,
            d.jobs_solved,
            d.jobs_stopped,
            d.jobs_never_needed,
        );
        for (r, (nodes, jobs)) in d.nodes_by_rank.iter().zip(&d.jobs_by_rank).enumerate() {
            println!("  rank {r}: {} nodes, {jobs} jobs", group(*nodes));
        }
        println!("  (no principal variation under MPI: `kalah solve` on one machine gives it)");
    }
    Ok(())
}
