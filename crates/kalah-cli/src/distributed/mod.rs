//! Work shared between the processes of an MPI job (cargo feature `mpi`):
//! `mpirun -np P kalah db build ...` and `mpirun -np P kalah solve ...`.
//! How to run it on a cluster, and what it costs: `docs/distributed.md`.
//!
//! * [`build`]: every level's independent units (pairs of blocks,
//!   `kalah_db::Builder::level_units`) shared out between the ranks, the
//!   values exchanged so that every rank holds the lower levels; rank 0
//!   writes the file, resumable as in a single-process build.
//! * [`solve`]: the tree near the root split into jobs that a master on
//!   rank 0 hands out (dynamic balancing) and combines by negamax over
//!   proven bounds, stopping jobs that can no longer change the value.
//!
//! # Which runs are distributed
//!
//! A `kalah` built with the feature runs distributed when an MPI launcher
//! started it (the environment holds `OMPI_COMM_WORLD_SIZE`, `PMIX_RANK`,
//! `PMI_RANK` or `PMI_SIZE`), or when `KALAH_MPI=1`; `KALAH_MPI=0` turns it
//! off. Without a launcher nothing here runs and MPI is never initialised,
//! so the same binary works as a plain `kalah`. Only `solve` and `db build`
//! are distributed; any other command refuses to run on several ranks
//! (each would do the same work and print the same answer).
//!
//! # Errors
//!
//! Every rank reads the same arguments and checks them the same way before
//! any work is shared ([`Cluster::agree`]): a refused request fails on all
//! ranks together, rank 0 prints it once, and every rank exits with the
//! same code (2 for a refused request, 1 otherwise, as without MPI). A
//! failure on one rank after the work has started (a disk, the memory)
//! is printed with the rank's number and ends the whole job
//! ([`Cluster::fatal`], `MPI_Abort`), since the others would wait for the
//! failed rank for ever; a database build then resumes from its last
//! complete level when started again.
//!
//! # Waiting without spinning
//!
//! Open MPI's blocking calls spin on the CPU while they wait, which would
//! take a core from the search on rank 0 and from other users of a shared
//! machine. Ranks that may wait long (for other ranks to finish a level or
//! for a message) poll instead and sleep between polls ([`POLL`]).

pub(crate) mod build;
pub(crate) mod solve;

use std::process::ExitCode;

use mpi::collective::SystemOperation;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// How long a waiting rank sleeps between polls (the master's own, in the library).
pub(crate) use kalah::distributed::POLL;

/// Environment variables through which MPI launchers (Open MPI's `mpirun`,
/// PMIx and PMI-2 launchers such as Slurm's `srun`) tell a process it is
/// one rank of a job.
const LAUNCHER_VARIABLES: [&str; 4] = ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"];

/// Whether this process was started as a rank of an MPI job; see the module docs.
pub(crate) fn launched() -> bool {
    match std::env::var("KALAH_MPI").as_deref() {
        Ok("0") | Ok("off") => false,
        Ok("1") | Ok("on") => true,
        _ => LAUNCHER_VARIABLES.iter().any(|v| std::env::var_os(v).is_some()),
    }
}

/// The number of ranks and this rank's number as the launcher gives them,
/// before MPI is initialised (only to refuse commands that are not shared).
fn launcher_rank_and_size() -> (usize, usize) {
    let read = |names: &[&str]| names.iter().find_map(|n| std::env::var(n).ok().and_then(|v| v.parse::<usize>().ok()));
    let rank = read(&["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"]).unwrap_or(0);
    let size = read(&["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]).unwrap_or(1);
    (rank, size)
}

/// Whether this process is a rank other than 0 of an MPI job (which
/// leaves messages about the arguments to rank 0).
pub(crate) fn is_other_rank() -> bool {
    launched() && launcher_rank_and_size().0 != 0
}

/// Runs `command` distributed if this process is a rank of an MPI job and
/// the command is one that is shared; `None` when the command should run
/// as usual. Called by `main` once the arguments are parsed.
pub(crate) fn main(command: &crate::Command) -> Option<ExitCode> {
    if !launched() {
        return None;
    }
    enum Which {
        Solve,
        Build,
    }
    let which = match command {
        crate::Command::Solve(_) => Which::Solve,
        crate::Command::Db(crate::db::DbCommand::Build(_)) => Which::Build,
        _ => {
            let (rank, size) = launcher_rank_and_size();
            if size <= 1 {
                return None;
            }
            if rank == 0 {
                eprintln!("kalah: only `kalah solve` and `kalah db build` run on several MPI ranks; run this command without mpirun");
            }
            return Some(ExitCode::from(2));
        }
    };
    let cluster = match Cluster::initialize() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("kalah: {}", crate::one_line(&e));
            return Some(ExitCode::from(1));
        }
    };
    // The arguments again, as matches: the argument structs of `solve` and
    // `db build` keep their fields private, and reading the matches by name
    // shares their definitions instead of copying them.
    let matches = match <crate::Cli as clap::CommandFactory>::command().try_get_matches_from(std::env::args_os()) {
        Ok(m) => m,
        Err(e) => {
            if cluster.rank == 0 {
                let _ = e.print();
            }
            return Some(ExitCode::from(2));
        }
    };
    let code = match (which, matches.subcommand()) {
        (Which::Solve, Some(("solve", sub))) => solve::run(&cluster, sub),
        (Which::Build, Some(("db", db))) => match db.subcommand() {
            Some(("build", sub)) => build::run(&cluster, sub),
            _ => ExitCode::from(1),
        },
        _ => ExitCode::from(1),
    };
    // Every rank gets here unless the job was aborted; wait for the others
    // without spinning (MPI_Finalize would), then dropping the universe
    // finalises MPI.
    cluster.barrier();
    drop(cluster);
    Some(code)
}

/// This process's place in the MPI job.
pub(crate) struct Cluster {
    world: SimpleCommunicator,
    /// This rank, `0..size`.
    pub(crate) rank: usize,
    /// Ranks in the job.
    pub(crate) size: usize,
    /// Ranks on this machine (they share its cores).
    pub(crate) local: usize,
    /// Finalises MPI when dropped, after `world`.
    _universe: Universe,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").field("rank", &self.rank).field("size", &self.size).field("local", &self.local).finish()
    }
}

impl Cluster {
    /// Initialises MPI. Only the main thread calls MPI (`Funneled`): the
    /// search and build threads never do.
    fn initialize() -> anyhow::Result<Cluster> {
        let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Funneled)
            .ok_or_else(|| anyhow::anyhow!("MPI could not be initialised (or was already)"))?;
        if threading == mpi::Threading::Single {
            anyhow::bail!("the MPI library offers no thread support ({threading:?}); kalah needs MPI_THREAD_FUNNELED");
        }
        let world = universe.world();
        let rank = world.rank() as usize;
        let size = world.size() as usize;
        let local = world.split_shared(world.rank()).size() as usize;
        Ok(Cluster { world, rank, size, local, _universe: universe })
    }

    /// Every rank of the job.
    pub(crate) fn world(&self) -> &SimpleCommunicator {
        &self.world
    }

    /// Whether this is rank 0, which prints, writes files and leads.
    pub(crate) fn is_root(&self) -> bool {
        self.rank == 0
    }

    /// Threads for this rank: `requested`, or this machine's cores shared
    /// out between the ranks on it.
    pub(crate) fn threads(&self, requested: Option<usize>) -> anyhow::Result<usize> {
        match requested {
            Some(n) => crate::common::threads(Some(n)),
            None => {
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                Ok((cores / self.local.max(1)).max(1))
            }
        }
    }

    /// Waits until every rank gets here, sleeping rather than spinning.
    pub(crate) fn barrier(&self) {
        let mut request = self.world.immediate_barrier();
        loop {
            match request.test() {
                Ok(_) => return,
                Err(pending) => {
                    request = pending;
                    std::thread::sleep(POLL);
                }
            }
        }
    }

    /// Rank 0's `value`, on every rank.
    pub(crate) fn broadcast_u64(&self, value: u64) -> u64 {
        let mut v = value;
        self.world.process_at_rank(0).broadcast_into(&mut v);
        v
    }

    /// The largest of every rank's `value`.
    fn max_u64(&self, value: u64) -> u64 {
        let mut out = 0u64;
        self.world.all_reduce_into(&value, &mut out, SystemOperation::max());
        out
    }

    /// Settles a step that every rank takes before any work is shared (the
    /// arguments, the resources each rank needs): `Ok` on every rank if it
    /// succeeded on every rank. Otherwise each rank gets the same exit code
    /// (the largest: 1 for a failure, 2 for a refused request); rank 0
    /// prints its error, and another rank prints its own only when rank 0
    /// succeeded (so an error every rank met is printed once).
    pub(crate) fn agree<T>(&self, result: anyhow::Result<T>) -> Result<T, ExitCode> {
        let mine = match &result {
            Ok(_) => 0,
            Err(e) => crate::common::exit_code(e).into(),
        };
        let code = self.max_u64(mine);
        let root_failed = self.broadcast_u64(mine) != 0;
        match result {
            Ok(v) if code == 0 => Ok(v),
            Ok(_) => Err(ExitCode::from(code as u8)),
            Err(e) => {
                if self.is_root() {
                    eprintln!("kalah: {}", crate::one_line(&e));
                } else if !root_failed {
                    eprintln!("kalah: rank {}: {}", self.rank, crate::one_line(&e));
                }
                Err(ExitCode::from(code as u8))
            }
        }
    }

    /// Reports a failure of this rank once the work is shared and ends the
    /// whole job: the other ranks would wait for this one for ever.
    pub(crate) fn fatal(&self, e: &anyhow::Error) -> ! {
        let code = crate::common::exit_code(e).into();
        eprintln!("kalah: rank {} of {}: {}", self.rank, self.size, crate::one_line(e));
        self.world.abort(code)
    }
}

/// An argument of the matched subcommand, by its id (the field's name in
/// the argument struct); an error rather than a panic if the definitions
/// change.
pub(crate) fn arg<T: Clone + Send + Sync + 'static>(m: &clap::ArgMatches, id: &str) -> anyhow::Result<Option<T>> {
    m.try_get_one::<T>(id).map(|v| v.cloned()).map_err(|e| anyhow::anyhow!("internal error: argument `{id}`: {e}"))
}

/// A flag of the matched subcommand, by its id.
pub(crate) fn flag(m: &clap::ArgMatches, id: &str) -> anyhow::Result<bool> {
    Ok(arg::<bool>(m, id)?.unwrap_or(false))
}
