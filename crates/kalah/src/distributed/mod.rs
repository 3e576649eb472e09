//! One search shared by P workers, each with its own solver: the job
//! planning and result merging behind `mpirun -np P kalah solve ...`
//! (the command's MPI links are in `kalah-cli`; [`local_links`] joins
//! workers in one process, as the tests do).
//!
//! The tree and its jobs are `tree.rs`'s, the messages `messages.rs`'s,
//! the master, the workers and their links `workers.rs`'s, the answer
//! `report.rs`'s, and one rank's search, set up as one process sets up
//! its own, `rank.rs`'s ([`prepare`]).
//!
//! # Jobs
//!
//! Rank 0 expands the game tree from the position one ply (one move, an
//! extra move included) at a time until the open leaves hold a few
//! distinct boards: [`JOBS_PER_WORKER`] per rank. A move that ends the
//! game, and a board the database covers, has its exact value at once;
//! every other leaf is a *job*, one per distinct board (transpositions
//! share their job). Each node keeps its moves in the order the search
//! tries them (extra moves first, then larger gains), and jobs are handed
//! out depth first in that order.
//!
//! # Master and workers
//!
//! Every rank is a worker with its own [`Solver`](kalah_search::Solver) (threads, transposition
//! table, database); rank 0 also runs the master, on its main thread (the
//! only one that calls MPI), while its worker searches on another. A free
//! worker asks for a job and gets the first one still *needed* (below).
//! When none is left but a worker waits, the master *splits* the first
//! needed job that has been searched for [`SPLIT_AFTER`]: its node gets
//! its moves, whose boards become jobs handed out next, and the worker
//! searching it is told to stop. So the work is balanced dynamically, and
//! the tree grows deeper only where the work is.
//!
//! # Proven bounds
//!
//! The master keeps bounds `lo <= v <= hi` on the value of every node of
//! the tree (the board value for the node's mover; an open board starts at
//! `-n..=n` for `n` seeds) and combines them by negamax: a node's bounds
//! are its own (from its job, if it had one) narrowed by the largest of its
//! moves' bounds. A worker searches a job in time slices
//! ([`Solver::value_within`](kalah_search::Solver::value_within), from [`FIRST_SLICE`] doubling up to
//! [`LONGEST_SLICE`], the transposition table kept between slices) and
//! after each slice sends the bounds proven so far; the master answers
//! whether to go on. A node is needed while its parent is needed and
//! undecided and the node could still raise the parent's value (the
//! node's upper bound exceeds the parent's lower bound): alpha-beta's
//! cut-off, made with proven bounds instead of a window. A job is handed
//! out, and kept running, only while one of its nodes is needed and
//! undecided and it has not been split. Bounds only tighten, so a node
//! that stops being needed is never needed again. When every move's value
//! is asked for, the root's moves are needed until each is exact.
//!
//! The root's bounds meet exactly when every needed job is solved, and
//! every bound is proven, so the value is the single-process value, on
//! any number of ranks. No principal variation is computed: it would be a
//! further search on one rank (`kalah solve` without `mpirun` gives it).
//!
//! # What it costs
//!
//! A job is searched to its exact value (or until it is not needed), where
//! the single search would often only prove a bound with a null window,
//! and each rank's transposition table sees only its own jobs: the ranks
//! together search more nodes than one process (about twice as many on
//! Kalah(6,4), `docs/distributed.md`). The public `Solver` offers no
//! null-window test with a deadline; one would let a job be searched
//! against its parent's bound directly.
//!
//! # Knobs
//!
//! [`Knobs`] holds the timings (the command reads them from
//! `KALAH_SPLIT_AFTER`, `KALAH_SLICE_FIRST`, `KALAH_SLICE_GROWTH`,
//! `KALAH_SLICE_MAX`), and [`master`] can hear a trace of every message.

mod messages;
mod rank;
mod report;
mod tree;
mod workers;

pub use messages::{ToMaster, ToWorker, Words};
pub use rank::{prepare, RankSearch};
pub use report::{report, Distributed, DistributedReport};
pub use tree::{Tree, JOBS_PER_WORKER, MAX_SPLIT_DEPTH};
pub use workers::{
    local_links, master, worker, Knobs, LocalMaster, LocalWorker, MasterLink, WorkerLink, WorkerStats, FIRST_SLICE, LONGEST_SLICE, POLL, SPLIT_AFTER,
};
