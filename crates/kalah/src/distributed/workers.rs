//! The master, which hands out jobs and splits them (the module docs:
//! "Master and workers"), the workers, which search them in slices, their
//! links in one process, and the timings of both.

use std::collections::VecDeque;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kalah_core::{Engine, Position, Side};
use kalah_db::Tablebase;
use kalah_search::Solver;

use crate::distributed::messages::{ToMaster, ToWorker};
use crate::distributed::tree::Tree;
use crate::error::{Error, Result};

/// A worker's first slice of a job.
pub const FIRST_SLICE: Duration = Duration::from_millis(50);
/// A worker's longest slice of a job (how long a job no longer needed may
/// run on). Each slice restarts the search from its transposition table,
/// which a long search has partly overwritten: long slices for long jobs.
pub const LONGEST_SLICE: Duration = Duration::from_secs(60);
/// A job searched this long is split when a worker has nothing to do.
pub const SPLIT_AFTER: Duration = Duration::from_millis(500);
/// How long the master (and a waiting MPI rank) sleeps when no message
/// has arrived: MPI's own blocking waits spin a core, so the links poll.
pub const POLL: Duration = Duration::from_micros(500);
/// How often the master looks for a job to split while a worker waits.
const SPLIT_LOOK: Duration = Duration::from_millis(20);

/// The master's side of the messages.
pub trait MasterLink {
    /// A message from a worker, if one has arrived.
    fn try_recv(&mut self) -> Option<(usize, ToMaster)>;
    /// Sends a message to worker `worker`.
    fn send(&mut self, worker: usize, message: ToWorker);
}

/// A worker's side of the messages.
pub trait WorkerLink {
    /// Sends a message to the master.
    fn send(&mut self, message: ToMaster);
    /// Waits for the master's next message.
    fn recv(&mut self) -> ToWorker;
}

/// What one worker did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Nodes searched.
    pub nodes: u64,
    /// Jobs solved exactly.
    pub solved: u64,
    /// Jobs stopped because they were no longer needed.
    pub stopped: u64,
}

/// The timings of the shared search, for experiments (the defaults are
/// the constants above).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Knobs {
    /// A running job may be split after this long ([`SPLIT_AFTER`]).
    pub split_after: Duration,
    /// A worker's first slice of a job ([`FIRST_SLICE`]).
    pub first_slice: Duration,
    /// Each further slice is this many times longer (2).
    pub slice_growth: f64,
    /// The longest slice ([`LONGEST_SLICE`]).
    pub longest_slice: Duration,
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs { split_after: SPLIT_AFTER, first_slice: FIRST_SLICE, slice_growth: 2.0, longest_slice: LONGEST_SLICE }
    }
}

/// Hands out the jobs of `tree` to `workers` workers until it is finished,
/// splitting jobs for idle workers; see the module docs. `engine` and
/// `table` expand the tree; `trace`, if given, hears every message the
/// master receives and every split, with the time. Returns what each
/// worker did.
pub fn master<T: Tablebase>(
    tree: &mut Tree,
    (engine, table): (&Engine, &T),
    link: &mut dyn MasterLink,
    workers: usize,
    knobs: Knobs,
    trace: Option<&dyn Fn(String)>,
) -> Result<Vec<WorkerStats>> {
    let mut stats = vec![WorkerStats::default(); workers];
    let mut idle: VecDeque<usize> = VecDeque::new();
    let mut quit = 0;
    let split_after = knobs.split_after;
    let start = Instant::now();
    let mut last_look = Instant::now();
    while quit < workers {
        match link.try_recv() {
            None => {
                // Nothing arrived: look again for a job to split if a worker waits.
                if idle.is_empty() || last_look.elapsed() < SPLIT_LOOK {
                    std::thread::sleep(POLL);
                    continue;
                }
            }
            Some((w, message)) => {
                if let Some(trace) = trace {
                    let (lo, hi) = tree.root_bounds();
                    trace(format!("{:9.3} s  worker {w}: {message:?}  root {lo}..={hi}", start.elapsed().as_secs_f64()));
                }
                match message {
                    ToMaster::Ready => idle.push_back(w),
                    ToMaster::Failed => return Err(Error::internal(format!("the search of worker {w} failed"))),
                    ToMaster::Progress { job, lower, upper, nodes } => {
                        stats[w].nodes += nodes;
                        tree.record(job, lower, upper)?;
                        let go_on = !tree.finished() && tree.job_needed(job);
                        link.send(w, if go_on { ToWorker::Continue } else { ToWorker::Stop });
                    }
                    ToMaster::Done { job, lower, upper, nodes } => {
                        stats[w].nodes += nodes;
                        tree.record(job, lower, upper)?;
                        if tree.end_job(job) {
                            stats[w].solved += 1;
                        } else {
                            stats[w].stopped += 1;
                        }
                        idle.push_back(w);
                    }
                }
            }
        }
        last_look = Instant::now();
        while let Some(&w) = idle.front() {
            if tree.finished() {
                link.send(w, ToWorker::Quit);
                quit += 1;
            } else if let Some(job) = tree.next_job() {
                let board = tree.hand_out(job, w);
                link.send(w, ToWorker::Job { job, board });
            } else if let Some(job) = tree.to_split(engine, split_after) {
                if let Some(trace) = trace {
                    trace(format!("{:9.3} s  split job {job}", start.elapsed().as_secs_f64()));
                }
                tree.split(engine, table, job);
                continue;
            } else {
                break;
            }
            idle.pop_front();
        }
        if idle.len() + quit == workers && quit < workers {
            return Err(Error::internal("internal error: no job is left to search but the value is not decided"));
        }
    }
    Ok(stats)
}

/// Searches the jobs the master sends until it says quit; see the module docs.
pub fn worker<T: Tablebase>(solver: &Solver<T>, link: &mut dyn WorkerLink, knobs: Knobs) -> Result<()> {
    let h = solver.engine().houses();
    let (first, growth, longest) = (knobs.first_slice, knobs.slice_growth, knobs.longest_slice);
    link.send(ToMaster::Ready);
    loop {
        let (job, board) = match link.recv() {
            ToWorker::Quit => return Ok(()),
            ToWorker::Job { job, board } => (job, board),
            // Left over from a job already ended.
            ToWorker::Continue | ToWorker::Stop => continue,
        };
        let position = Position::from_mover_board(h, board, Side::South, [0, 0])?;
        let mut slice = first;
        loop {
            let before = solver.nodes();
            let b = solver.value_within(&position, Instant::now() + slice)?;
            let nodes = solver.nodes() - before;
            if b.is_exact() {
                link.send(ToMaster::Done { job, lower: b.lower, upper: b.upper, nodes });
                break;
            }
            link.send(ToMaster::Progress { job, lower: b.lower, upper: b.upper, nodes });
            if link.recv() == ToWorker::Continue {
                slice = slice.mul_f64(growth).min(longest);
            } else {
                link.send(ToMaster::Done { job, lower: b.lower, upper: b.upper, nodes: 0 });
                break;
            }
        }
    }
}

/// The master's end of in-process channels to local workers.
#[derive(Debug)]
pub struct LocalMaster {
    inbox: mpsc::Receiver<(usize, ToMaster)>,
    outboxes: Vec<mpsc::Sender<ToWorker>>,
}

/// A local worker's end of the channels.
#[derive(Debug)]
pub struct LocalWorker {
    id: usize,
    outbox: mpsc::Sender<(usize, ToMaster)>,
    inbox: mpsc::Receiver<ToWorker>,
}

/// Channels between a master and `workers` workers in this process, numbered from 0.
pub fn local_links(workers: usize) -> (LocalMaster, Vec<LocalWorker>) {
    let (to_master, inbox) = mpsc::channel();
    let mut outboxes = Vec::new();
    let mut ends = Vec::new();
    for id in 0..workers {
        let (to_worker, worker_inbox) = mpsc::channel();
        outboxes.push(to_worker);
        ends.push(LocalWorker { id, outbox: to_master.clone(), inbox: worker_inbox });
    }
    (LocalMaster { inbox, outboxes }, ends)
}

impl MasterLink for LocalMaster {
    fn try_recv(&mut self) -> Option<(usize, ToMaster)> {
        self.inbox.try_recv().ok()
    }
    fn send(&mut self, worker: usize, message: ToWorker) {
        // A worker that has gone (it failed) reports its failure itself.
        let _ = self.outboxes[worker].send(message);
    }
}

impl WorkerLink for LocalWorker {
    fn send(&mut self, message: ToMaster) {
        let _ = self.outbox.send((self.id, message));
    }
    fn recv(&mut self) -> ToWorker {
        self.inbox.recv().unwrap_or(ToWorker::Quit)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use kalah_core::{Capture, End, Rules};
    use kalah_db::{Builder, NoTablebase};
    use kalah_search::SearchOptions;

    /// Runs the master and `workers` workers (each with its own solver, as
    /// ranks have) in this process.
    pub(crate) fn shared<T: Tablebase>(
        h: usize,
        rules: Rules,
        tables: Vec<T>,
        position: &Position,
        wanted: usize,
        all_moves: bool,
    ) -> (Tree, Vec<WorkerStats>) {
        let options = SearchOptions { threads: 1, tt_bytes: 1 << 22, max_seeds: None };
        let solvers: Vec<Solver<T>> = tables.into_iter().map(|t| Solver::new(h, rules, t, options).unwrap()).collect();
        shared_by(&solvers, position, wanted, all_moves)
    }

    /// [`shared`] with the ranks' solvers made.
    pub(crate) fn shared_by<T: Tablebase>(solvers: &[Solver<T>], position: &Position, wanted: usize, all_moves: bool) -> (Tree, Vec<WorkerStats>) {
        let workers = solvers.len();
        let mut tree = Tree::new(solvers[0].engine(), solvers[0].tablebase(), position.mover_board(), wanted, 30, all_moves);
        let (mut link, ends) = local_links(workers);
        let stats = std::thread::scope(|scope| {
            for (solver, mut end) in solvers.iter().zip(ends) {
                scope.spawn(move || worker(solver, &mut end, Knobs::default()).unwrap());
            }
            master(&mut tree, (solvers[0].engine(), solvers[0].tablebase()), &mut link, workers, Knobs::default(), None).unwrap()
        });
        (tree, stats)
    }

    #[test]
    fn the_shared_search_finds_the_single_search_value() {
        let empty = Rules { capture: Capture::Empty, ..Rules::default() };
        let turn = Rules { end: End::Turn, ..Rules::default() };
        for (h, s, rules) in [(4, 3, Rules::default()), (4, 3, empty), (3, 4, turn), (5, 2, empty)] {
            let position = Position::start(h, s).unwrap();
            let single = Solver::new(h, rules, NoTablebase { houses: h, rules }, SearchOptions { threads: 1, tt_bytes: 1 << 22, max_seeds: None })
                .unwrap()
                .analyze(&position, true, false)
                .unwrap();
            for (workers, wanted) in [(1, 1), (2, 8), (3, 60)] {
                let tables = vec![NoTablebase { houses: h, rules }; workers];
                let (tree, stats) = shared(h, rules, tables.clone(), &position, wanted, false);
                assert_eq!(tree.value(), single.value, "Kalah({h},{s}) {rules}, {workers} workers, value only");
                assert_eq!(stats.len(), workers);
                let (tree, _) = shared(h, rules, tables, &position, wanted, true);
                assert_eq!(tree.value(), single.value, "Kalah({h},{s}) {rules}, {workers} workers");
                let moves: Vec<(usize, i32)> = single.moves.iter().map(|m| (m.house, m.value)).collect();
                assert_eq!(tree.moves(), moves, "Kalah({h},{s}) {rules}, {workers} workers");
            }
        }
    }

    #[test]
    fn leaves_the_database_covers_need_no_job() {
        let rules = Rules { capture: Capture::Empty, ..Rules::default() };
        let mut builder = Builder::new(4, rules, 10).unwrap();
        builder.build_all(&kalah_db::Quiet);
        let position = Position::start(4, 3).unwrap();
        let single = Solver::new(4, rules, &builder, SearchOptions { threads: 1, tt_bytes: 1 << 22, max_seeds: None })
            .unwrap()
            .analyze(&position, true, false)
            .unwrap();
        let (tree, _) = shared(4, rules, vec![&builder, &builder], &position, 40, true);
        assert_eq!(tree.value(), single.value);
        // A position the database covers is answered by the split alone.
        let covered: Position = "1,0,2,1,0,1,0,3,0,2 S".parse().unwrap();
        let (tree, stats) = shared(4, rules, vec![&builder], &covered, 40, false);
        assert_eq!(tree.job_counts(), (0, 0, 0));
        assert_eq!(stats[0].nodes, 0);
        assert_eq!(covered.store_difference() + tree.value(), covered.store_difference() + builder.value(covered.mover_board()));
    }

    #[test]
    fn a_finished_game_is_its_own_answer() {
        let rules = Rules::default();
        let over: Position = "0,0,0,0,5,2,1,0,0,3 S".parse().unwrap();
        let (tree, _) = shared(4, rules, vec![NoTablebase { houses: 4, rules }], &over, 10, true);
        assert!(tree.moves().is_empty());
        assert_eq!(tree.value(), Engine::new(4, rules).terminal_value(over.mover_board()).unwrap());
    }
}
