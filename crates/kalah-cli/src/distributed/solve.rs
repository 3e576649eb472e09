//! `mpirun -np P kalah solve ...`: one search shared by P ranks.
//!
//! The job planning, the master and the workers are the library's
//! (`kalah::distributed`, with its module docs: jobs, proven bounds, what it
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
use kalah_db::Tablebase;
use kalah_search::Solver;
use mpi::point_to_point::Source as _;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::{arg, flag, Cluster, POLL};
use kalah::distributed::{
    local_links, master, prepare, worker, Knobs, LocalMaster, MasterLink, RankSearch, ToMaster, ToWorker, Tree, Words, WorkerLink, JOBS_PER_WORKER,
    MAX_SPLIT_DEPTH,
};
use kalah::text::{a_size, article, group};
use kalah::{Request, Table, UsedDatabase, Want};

use crate::common::{databases, print_json, user, BoardSize, DbArgs, RuleArgs, SearchArgs};

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

/// What `solve` was asked: the library's request, and how to print it.
struct Asked {
    request: Request,
    title: String,
    json: bool,
}

/// Runs `solve` on this rank; see the module docs.
pub(crate) fn run(cluster: &Cluster, m: &clap::ArgMatches) -> ExitCode {
    let asked = match cluster.agree(ask(cluster, m)) {
        Ok(asked) => asked,
        Err(code) => return code,
    };
    // The database chosen and loaded, the table sized, the solver made: the library's.
    let search = prepare(&databases(), &asked.request, cluster.local, &kalah::Silent).map_err(anyhow::Error::from);
    let RankSearch { solver, database } = match cluster.agree(search) {
        Ok(search) => search,
        Err(code) => return code,
    };
    if !cluster.is_root() {
        let mut link = ClusterWorker { world: cluster.world() };
        return match worker(&solver, &mut link, knobs()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => cluster.fatal(&e.into()),
        };
    }
    match lead(cluster, &asked, &solver, database) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => cluster.fatal(&e),
    }
}

/// Reads the arguments, refusing what is not distributed.
fn ask(cluster: &Cluster, m: &clap::ArgMatches) -> anyhow::Result<Asked> {
    for option in ["pie", "shift", "openings"] {
        if flag(m, option)? {
            return Err(user(format!("--{option} is not distributed: run it without mpirun")));
        }
    }
    if arg::<f64>(m, "time_limit")?.is_some() {
        return Err(user("--time-limit is not distributed: run it without mpirun"));
    }
    let rules = RuleArgs::from_arg_matches(m)?.rules();
    // `H S` or `--houses H --seeds S`, read as the single-process solve reads them.
    let size = BoardSize::from_arg_matches(m)?;
    let (position, title) = crate::common::start_or_position(size.houses(), size.seeds(), arg::<String>(m, "position")?.as_deref(), "solve")?;
    let search = SearchArgs::from_arg_matches(m)?;
    let want = if flag(m, "value_only")? { Want::Value } else { Want::Moves };
    let request = Request {
        db: DbArgs::from_arg_matches(m)?.spec(),
        threads: cluster.threads(search.threads)?,
        tt_mb: search.tt_mb_asked()?,
        want,
        ..Request::new(position, rules)
    };
    Ok(Asked { request, title, json: flag(m, "json")? })
}

/// Rank 0: splits, runs the master and a worker, prints the answer.
fn lead(cluster: &Cluster, asked: &Asked, solver: &Solver<Table>, database: Option<UsedDatabase>) -> anyhow::Result<()> {
    let p = &asked.request;
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<usize>().ok());
    let (wanted, max_depth) = match env("KALAH_SPLIT_DEPTH") {
        Some(d) => (usize::MAX, d as u32),
        None => (env("KALAH_SPLIT_JOBS").unwrap_or(JOBS_PER_WORKER).max(1) * cluster.size, MAX_SPLIT_DEPTH),
    };
    let start = Instant::now();
    let mut tree = Tree::new(solver.engine(), solver.tablebase(), p.position.mover_board(), wanted, max_depth, p.want.moves());
    if let Some(why) = solver.tablebase().failure() {
        return Err(user(why));
    }
    let (jobs, _, _) = tree.job_counts();
    if !asked.json {
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
        let searched = searcher.join().unwrap_or_else(|_| Err(kalah::Error::internal("internal error: rank 0's search thread panicked")));
        (stats, searched)
    });
    searched?;
    let stats = stats?;
    if let Some(why) = solver.tablebase().failure() {
        return Err(user(why));
    }
    let seconds = start.elapsed().as_secs_f64();
    let answer = kalah::distributed::report(&tree, &stats, p, database, seconds)?;
    if asked.json {
        print_json(&answer);
    } else {
        let d = &answer.distributed;
        crate::analysis::print_human(&asked.title, &answer.report);
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
