//! One search shared by P workers, each with its own solver: the job
//! planning and result merging behind `mpirun -np P kalah solve ...`
//! (the command's MPI links are in `kalah-cli`; [`local_links`] joins
//! workers in one process, as the tests do).
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
//! Every rank is a worker with its own [`Solver`] (threads, transposition
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
//! ([`Solver::value_within`], from [`FIRST_SLICE`] doubling up to
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

use std::collections::{HashMap, VecDeque};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kalah_core::{Board, Engine, Next, Position, Rules, Side};
use kalah_db::Tablebase;
use kalah_search::{Analysis, LineEnd, MoveValue, Solver};

use crate::error::{Error, Result};
use crate::report::{Report, Source};
use crate::setup::UsedDatabase;

/// Jobs per rank the first split aims at. Few: a deeper split costs more
/// nodes (a job is searched to its exact value or until it is not needed,
/// where one search would often only bound it), and jobs are split later
/// where workers would otherwise wait.
pub const JOBS_PER_WORKER: usize = 2;
/// The split stops at this depth whatever the number of jobs.
pub const MAX_SPLIT_DEPTH: u32 = 24;
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

// ----- messages -----

/// From the master to a worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToWorker {
    /// Search the board (seen from its mover) of job `job`.
    Job {
        /// The job.
        job: usize,
        /// Its board.
        board: Board,
    },
    /// Go on with the job (after a progress report).
    Continue,
    /// Stop the job (after a progress report); report its bounds with `Done`.
    Stop,
    /// No more work.
    Quit,
}

/// From a worker to the master.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToMaster {
    /// The worker wants a job.
    Ready,
    /// A slice of job `job` ended: the bounds proven so far, the nodes searched since the last report.
    Progress {
        /// The job.
        job: usize,
        /// The value is at least this.
        lower: i32,
        /// The value is at most this.
        upper: i32,
        /// Nodes searched since the last report.
        nodes: u64,
    },
    /// Job `job` ended (solved, or stopped): its bounds, and the worker wants another.
    Done {
        /// The job.
        job: usize,
        /// The value is at least this.
        lower: i32,
        /// The value is at most this.
        upper: i32,
        /// Nodes searched since the last report.
        nodes: u64,
    },
    /// The worker failed (only workers in the master's process send this;
    /// a worker rank ends the whole job itself).
    Failed,
}

/// A message on the wire: six 64-bit words, the kind first.
pub type Words = [u64; 6];

fn bits(v: i32) -> u64 {
    v as i64 as u64
}

fn unbits(w: u64) -> i32 {
    w as i64 as i32
}

impl ToWorker {
    /// The message as words on the wire.
    pub fn encode(self) -> Words {
        match self {
            ToWorker::Job { job, board } => [1, job as u64, board.mover_word(), board.opponent_word(), 0, 0],
            ToWorker::Continue => [2, 0, 0, 0, 0, 0],
            ToWorker::Stop => [3, 0, 0, 0, 0, 0],
            ToWorker::Quit => [4, 0, 0, 0, 0, 0],
        }
    }

    /// The message [`ToWorker::encode`] wrote.
    pub fn decode(w: Words) -> ToWorker {
        match w[0] {
            1 => ToWorker::Job {
                job: w[1] as usize,
                board: Board::from_words(w[2], w[3]),
            },
            2 => ToWorker::Continue,
            3 => ToWorker::Stop,
            _ => ToWorker::Quit,
        }
    }
}

impl ToMaster {
    /// The message as words on the wire.
    pub fn encode(self) -> Words {
        match self {
            ToMaster::Ready => [1, 0, 0, 0, 0, 0],
            ToMaster::Progress { job, lower, upper, nodes } => [2, job as u64, bits(lower), bits(upper), nodes, 0],
            ToMaster::Done { job, lower, upper, nodes } => [3, job as u64, bits(lower), bits(upper), nodes, 0],
            ToMaster::Failed => [4, 0, 0, 0, 0, 0],
        }
    }

    /// The message [`ToMaster::encode`] wrote.
    pub fn decode(w: Words) -> ToMaster {
        let (job, lower, upper, nodes) = (w[1] as usize, unbits(w[2]), unbits(w[3]), w[4]);
        match w[0] {
            2 => ToMaster::Progress { job, lower, upper, nodes },
            3 => ToMaster::Done { job, lower, upper, nodes },
            4 => ToMaster::Failed,
            _ => ToMaster::Ready,
        }
    }
}

// ----- the tree -----

const ROOT: usize = 0;

/// A node of the tree near the root.
#[derive(Clone, Debug)]
struct Node {
    /// The board, seen from its mover.
    board: Board,
    /// The move from the parent (house, 0-based), the store difference it
    /// makes for the parent's mover, and whether that player moves again.
    /// A move that ends the game has `same_mover` and a value of 0.
    house: usize,
    gain: i32,
    same_mover: bool,
    children: Vec<usize>,
    /// The job for this board: a leaf's, or the job of a leaf split since.
    job: Option<usize>,
    /// Bounds proven on the board itself: the end of the game, the
    /// database, its job's search; `-n..=n` for `n` seeds otherwise.
    own: (i32, i32),
    /// Proven bounds on the board value for this node's mover: `own`,
    /// narrowed by the bounds of its moves once it has children.
    lo: i32,
    hi: i32,
}

impl Node {
    /// A node for `board`, exact if the game is over or `table` holds its
    /// value, within the bounds `table` holds for it if only those (a
    /// window encoding).
    fn new<T: Tablebase>(engine: &Engine, table: &T, board: Board, house: usize, gain: i32, same_mover: bool) -> Node {
        let n = board.total() as i32;
        let (lo, hi) = match engine.terminal_value(board) {
            Some(v) => (v, v),
            None if table.max_seeds().is_some_and(|m| board.total() <= m) => {
                let stored = table.stored(board);
                (stored.lower, stored.upper)
            }
            None => (-n, n),
        };
        Node {
            board,
            house,
            gain,
            same_mover,
            children: Vec::new(),
            job: None,
            own: (lo, hi),
            lo,
            hi,
        }
    }

    /// A move that ends the game with store difference `gain`.
    fn game_over(house: usize, gain: i32) -> Node {
        Node {
            board: Board::EMPTY,
            house,
            gain,
            same_mover: true,
            children: Vec::new(),
            job: None,
            own: (0, 0),
            lo: 0,
            hi: 0,
        }
    }

    fn decided(&self) -> bool {
        self.lo == self.hi
    }

    /// Bounds on the value of the move leading here, for the parent's mover.
    fn as_move(&self) -> (i32, i32) {
        if self.same_mover {
            (self.gain + self.lo, self.gain + self.hi)
        } else {
            (self.gain - self.hi, self.gain - self.lo)
        }
    }
}

/// Where a job stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JobState {
    /// Not handed out yet.
    Waiting,
    /// A worker is searching it, since then.
    Running(usize, Instant),
    /// Stopped with bounds only (it was no longer needed).
    Stopped,
    /// Exact.
    Solved,
}

#[derive(Clone, Debug)]
struct Job {
    board: Board,
    /// The nodes with this board (transpositions share a job).
    nodes: Vec<usize>,
    state: JobState,
    /// Bounds its searches proved.
    lo: i32,
    hi: i32,
    /// Its nodes were expanded and their moves made jobs of their own.
    split: bool,
}

/// The tree near the root, split into jobs; see the module docs.
#[derive(Debug)]
pub struct Tree {
    /// Parents come before their children.
    nodes: Vec<Node>,
    jobs: Vec<Job>,
    /// Jobs in the order they are handed out: depth first, moves in order.
    order: Vec<usize>,
    by_board: HashMap<Board, usize>,
    /// Plies of the first split.
    depth: u32,
    /// Jobs split while searched.
    splits: usize,
    /// Every move of the root is wanted exact.
    all_moves: bool,
    /// Whether each node can still change what is asked.
    needed: Vec<bool>,
}

impl Tree {
    /// Expands the tree from `root` until its open leaves hold `wanted`
    /// distinct boards or it is `max_depth` plies deep (with `all_moves`,
    /// at least the root's moves), and makes the open leaves jobs.
    pub fn new<T: Tablebase>(engine: &Engine, table: &T, root: Board, wanted: usize, max_depth: u32, all_moves: bool) -> Tree {
        let mut tree = Tree {
            nodes: vec![Node::new(engine, table, root, 0, 0, true)],
            jobs: Vec::new(),
            order: Vec::new(),
            by_board: HashMap::new(),
            depth: 0,
            splits: 0,
            all_moves,
            needed: Vec::new(),
        };
        let over = engine.is_over(root);
        let mut frontier = if !over && (!tree.nodes[ROOT].decided() || all_moves) { vec![ROOT] } else { Vec::new() };
        let distinct = |tree: &Tree, frontier: &[usize]| {
            let mut boards: Vec<Board> = frontier.iter().map(|&i| tree.nodes[i].board).collect();
            boards.sort_unstable();
            boards.dedup();
            boards.len()
        };
        while !frontier.is_empty() && ((tree.depth == 0 && all_moves) || (tree.depth < max_depth && distinct(&tree, &frontier) < wanted)) {
            let mut next = Vec::new();
            for &p in &frontier {
                next.extend(tree.expand(engine, table, p));
            }
            frontier = next;
            tree.depth += 1;
        }
        // One job per distinct open board, numbered depth first.
        let mut stack = vec![ROOT];
        while let Some(i) = stack.pop() {
            let node = &tree.nodes[i];
            if !node.children.is_empty() {
                stack.extend(node.children.iter().rev());
            } else if !node.decided() {
                let (job, new) = tree.attach(i);
                if new {
                    tree.order.push(job);
                }
            }
        }
        tree.refresh();
        tree
    }

    /// Gives node `p` its moves, in the order the search tries them (extra
    /// moves first, then larger gains); returns the open ones.
    fn expand<T: Tablebase>(&mut self, engine: &Engine, table: &T, p: usize) -> Vec<usize> {
        let board = self.nodes[p].board;
        let mut children: Vec<Node> = engine
            .moves(board)
            .map(|house| {
                let o = engine.play(board, house);
                match o.next {
                    Next::Over => Node::game_over(house, o.gain()),
                    next => Node::new(engine, table, o.board, house, o.gain(), next == Next::Mover),
                }
            })
            .collect();
        children.sort_by_key(|c| (!c.same_mover, -c.gain, c.house));
        let mut open = Vec::new();
        for child in children {
            let i = self.nodes.len();
            if !child.decided() {
                open.push(i);
            }
            self.nodes.push(child);
            self.nodes[p].children.push(i);
        }
        open
    }

    /// The job of node `i`'s board, made if there is none (then `true`).
    fn attach(&mut self, i: usize) -> (usize, bool) {
        let board = self.nodes[i].board;
        let (job, new) = match self.by_board.get(&board) {
            Some(&j) => (j, false),
            None => {
                let n = board.total() as i32;
                self.jobs.push(Job {
                    board,
                    nodes: Vec::new(),
                    state: JobState::Waiting,
                    lo: -n,
                    hi: n,
                    split: false,
                });
                self.by_board.insert(board, self.jobs.len() - 1);
                (self.jobs.len() - 1, true)
            }
        };
        let j = &mut self.jobs[job];
        j.nodes.push(i);
        let node = &mut self.nodes[i];
        node.job = Some(job);
        node.own = (node.own.0.max(j.lo), node.own.1.min(j.hi));
        (job, new)
    }

    /// Splits job `job`, which a worker is searching: its nodes get their
    /// moves, whose open boards become jobs handed out next, and the job
    /// itself is no longer needed (its worker is told to stop).
    ///
    /// A move may reach the board of a job split before (a transposition
    /// from a shallower node): a split job is never handed out again, so
    /// that node is expanded too, as the job's first nodes were.
    fn split<T: Tablebase>(&mut self, engine: &Engine, table: &T, job: usize) {
        let mut new_jobs = Vec::new();
        self.jobs[job].split = true;
        let mut to_expand: VecDeque<usize> = self.jobs[job].nodes.iter().copied().collect();
        while let Some(node) = to_expand.pop_front() {
            if !self.nodes[node].children.is_empty() || engine.is_over(self.nodes[node].board) {
                continue;
            }
            for child in self.expand(engine, table, node) {
                let (j, new) = self.attach(child);
                if new {
                    new_jobs.push(j);
                } else if self.jobs[j].split {
                    to_expand.push_back(child);
                }
            }
        }
        self.splits += 1;
        let at = self.order.iter().position(|&j| j == job).map_or(self.order.len(), |p| p + 1);
        self.order.splice(at..at, new_jobs);
        self.refresh();
    }

    /// Recomputes every node's bounds from its own and its moves' (children
    /// come after their parents), then which nodes are needed (parents first).
    fn refresh(&mut self) {
        for i in (0..self.nodes.len()).rev() {
            let (mut lo, mut hi) = self.nodes[i].own;
            if !self.nodes[i].children.is_empty() {
                let (mut best_lo, mut best_hi) = (i32::MIN, i32::MIN);
                for &c in &self.nodes[i].children {
                    let (l, h) = self.nodes[c].as_move();
                    best_lo = best_lo.max(l);
                    best_hi = best_hi.max(h);
                }
                lo = lo.max(best_lo);
                hi = hi.min(best_hi);
            }
            self.nodes[i].lo = lo;
            self.nodes[i].hi = hi;
        }
        self.needed.clear();
        self.needed.resize(self.nodes.len(), false);
        self.needed[ROOT] = true;
        for i in 0..self.nodes.len() {
            if !self.needed[i] {
                continue;
            }
            let p = &self.nodes[i];
            for &c in &p.children {
                let child = &self.nodes[c];
                self.needed[c] = if i == ROOT && self.all_moves {
                    !child.decided()
                } else {
                    // Only a move that could beat the best one proven so far matters.
                    !p.decided() && child.as_move().1 > p.lo
                };
            }
        }
    }

    /// Records proven bounds on job `job`'s board value.
    fn record(&mut self, job: usize, lower: i32, upper: i32) -> Result<()> {
        let j = &mut self.jobs[job];
        let (lo, hi) = (j.lo.max(lower), j.hi.min(upper));
        if lo > hi {
            return Err(Error::internal(format!("internal error: inconsistent bounds on a job: {lower}..={upper} after {}..={}", j.lo, j.hi)));
        }
        j.lo = lo;
        j.hi = hi;
        for &n in &j.nodes {
            let node = &mut self.nodes[n];
            node.own = (node.own.0.max(lo), node.own.1.min(hi));
        }
        self.refresh();
        if let Some(n) = self.nodes.iter().find(|n| n.lo > n.hi) {
            return Err(Error::internal(format!("internal error: inconsistent bounds in the tree: {}..={} on {:?}", n.lo, n.hi, n.board)));
        }
        Ok(())
    }

    /// Whether what is asked is known: the root's value, and with
    /// `all_moves` every move's.
    pub fn finished(&self) -> bool {
        let root = &self.nodes[ROOT];
        root.decided() && (!self.all_moves || root.children.iter().all(|&c| self.nodes[c].decided()))
    }

    /// Whether searching job `job` can still change what is asked.
    fn job_needed(&self, job: usize) -> bool {
        let j = &self.jobs[job];
        !j.split && j.lo < j.hi && j.nodes.iter().any(|&n| self.needed[n] && !self.nodes[n].decided())
    }

    /// The next job to hand out: the first needed one. (Holding back a
    /// node's later moves until its first is solved, as young-brothers-wait
    /// search does, cost 2.5 times the nodes on Kalah(6,4) with 2 ranks:
    /// the waiting workers split jobs instead, into many more small
    /// searches to exact values.)
    fn next_job(&self) -> Option<usize> {
        self.order
            .iter()
            .copied()
            .find(|&j| matches!(self.jobs[j].state, JobState::Waiting | JobState::Stopped) && self.job_needed(j))
    }

    /// The first needed job (in hand-out order) that a worker has been
    /// searching for at least `after`, to split for idle workers.
    fn to_split(&self, engine: &Engine, after: Duration) -> Option<usize> {
        self.order.iter().copied().find(|&j| {
            let job = &self.jobs[j];
            matches!(job.state, JobState::Running(_, since) if since.elapsed() >= after)
                && self.job_needed(j)
                && !engine.is_over(job.board)
        })
    }

    /// The root's board value, once finished.
    pub fn value(&self) -> i32 {
        debug_assert!(self.finished());
        self.nodes[ROOT].lo
    }

    /// Each move of the root (1-based house) and its value for the root's
    /// mover, once finished with `all_moves`.
    pub fn moves(&self) -> Vec<(usize, i32)> {
        let mut moves: Vec<(usize, i32)> = self.nodes[ROOT]
            .children
            .iter()
            .map(|&c| (self.nodes[c].house + 1, self.nodes[c].as_move().0))
            .collect();
        moves.sort_unstable();
        moves
    }

    /// Plies of the first split.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Jobs made, jobs never handed out, and jobs split while searched.
    pub fn job_counts(&self) -> (usize, usize, usize) {
        let never = self.jobs.iter().filter(|j| j.state == JobState::Waiting).count();
        (self.jobs.len(), never, self.splits)
    }
}

// ----- the answer -----

/// What the ranks of one shared search did: `"distributed"` in the object
/// `mpirun -np P kalah solve --json` prints.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Distributed {
    /// Ranks (processes) that searched, rank 0 included.
    pub ranks: usize,
    /// Search threads of each rank.
    pub threads_per_rank: usize,
    /// Plies of the first split ([`Tree::depth`]).
    pub split_depth: u32,
    /// Jobs made, by the first split and later ones.
    pub jobs: usize,
    /// Jobs solved exactly.
    pub jobs_solved: u64,
    /// Jobs stopped because they were no longer needed.
    pub jobs_stopped: u64,
    /// Jobs never handed out: the root was decided without them.
    pub jobs_never_needed: usize,
    /// Jobs split while they were searched.
    pub jobs_split: usize,
    /// Nodes each rank searched.
    pub nodes_by_rank: Vec<u64>,
    /// Jobs each rank searched (solved or stopped).
    pub jobs_by_rank: Vec<u64>,
}

/// The answer of a shared search: the [`Report`] one process would give
/// (no line: see the module docs), source [`Source::Distributed`], and
/// what the ranks did. Serialises to the report's object with
/// `"distributed"` added.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DistributedReport {
    /// The value, and each move's when they were asked for.
    #[serde(flatten)]
    pub report: Report,
    /// What the ranks did.
    pub distributed: Distributed,
}

/// What a finished tree answers for `position` under `rules` (every
/// move's value unless `value_only`), with what each rank did (`stats`,
/// one a rank), its `threads_per_rank`, the database the ranks searched
/// over and the `seconds` it all took.
#[allow(clippy::too_many_arguments)] // each is one fact of the answer
pub fn report(
    tree: &Tree,
    stats: &[WorkerStats],
    position: Position,
    rules: Rules,
    value_only: bool,
    threads_per_rank: usize,
    database: Option<UsedDatabase>,
    seconds: f64,
) -> Result<DistributedReport> {
    if !tree.finished() {
        return Err(Error::internal("the shared search ended before its root was decided"));
    }
    let base = position.store_difference();
    let moves = if value_only { Vec::new() } else { tree.moves().into_iter().map(|(house, v)| MoveValue { house, value: base + v }).collect() };
    let analysis = Analysis { value: base + tree.value(), moves, pv: Vec::new(), end: LineEnd::GameOver };
    let (jobs, never, splits) = tree.job_counts();
    let report = Report {
        position,
        rules,
        analysis: analysis.into(),
        source: Source::Distributed,
        nodes: stats.iter().map(|s| s.nodes).sum(),
        seconds,
        database,
        best_found: None,
        journal: None,
        test: None,
        likely_best: None,
    };
    let distributed = Distributed {
        ranks: stats.len(),
        threads_per_rank,
        split_depth: tree.depth(),
        jobs,
        jobs_solved: stats.iter().map(|s| s.solved).sum(),
        jobs_stopped: stats.iter().map(|s| s.stopped).sum(),
        jobs_never_needed: never,
        jobs_split: splits,
        nodes_by_rank: stats.iter().map(|s| s.nodes).collect(),
        jobs_by_rank: stats.iter().map(|s| s.solved + s.stopped).collect(),
    };
    Ok(DistributedReport { report, distributed })
}

// ----- master and workers -----

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
                    let root = &tree.nodes[ROOT];
                    trace(format!("{:9.3} s  worker {w}: {message:?}  root {}..={}", start.elapsed().as_secs_f64(), root.lo, root.hi));
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
                        let j = &mut tree.jobs[job];
                        if j.lo == j.hi {
                            j.state = JobState::Solved;
                            stats[w].solved += 1;
                        } else {
                            j.state = JobState::Stopped;
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
                tree.jobs[job].state = JobState::Running(w, Instant::now());
                link.send(w, ToWorker::Job { job, board: tree.jobs[job].board });
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
        ends.push(LocalWorker {
            id,
            outbox: to_master.clone(),
            inbox: worker_inbox,
        });
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
mod tests {
    use super::*;
    use kalah_core::Rules;
    use kalah_db::NoTablebase;
    use kalah_search::SearchOptions;
    use kalah_core::{Capture, End};
    use kalah_db::Builder;

    #[test]
    fn messages_survive_the_wire() {
        let board = Board::from_sides(&[1, 0, 7, 3], &[0, 2, 5, 9]);
        for m in [ToWorker::Job { job: 77, board }, ToWorker::Continue, ToWorker::Stop, ToWorker::Quit] {
            assert_eq!(ToWorker::decode(m.encode()), m);
        }
        for m in [
            ToMaster::Ready,
            ToMaster::Progress { job: 3, lower: -40, upper: 12, nodes: 1 << 40 },
            ToMaster::Done { job: 9, lower: -7, upper: -7, nodes: 5 },
            ToMaster::Failed,
        ] {
            assert_eq!(ToMaster::decode(m.encode()), m);
        }
    }

    /// Runs the master and `workers` workers (each with its own solver, as
    /// ranks have) in this process.
    fn shared<T: Tablebase>(h: usize, rules: Rules, tables: Vec<T>, position: &Position, wanted: usize, all_moves: bool) -> (Tree, Vec<WorkerStats>) {
        let workers = tables.len();
        let options = SearchOptions {
            threads: 1,
            tt_bytes: 1 << 22,
            max_seeds: None,
        };
        let solvers: Vec<Solver<T>> = tables.into_iter().map(|t| Solver::new(h, rules, t, options).unwrap()).collect();
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
        let empty = Rules {
            capture: Capture::Empty,
            ..Rules::default()
        };
        let turn = Rules {
            end: End::Turn,
            ..Rules::default()
        };
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
        let rules = Rules {
            capture: Capture::Empty,
            ..Rules::default()
        };
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

    /// Every open leaf of the tree has a job that can still be handed out
    /// (or split): otherwise a needed node could never be decided.
    fn every_open_leaf_has_a_live_job(tree: &Tree) -> Result<(), String> {
        for (i, node) in tree.nodes.iter().enumerate() {
            if node.children.is_empty() && !node.decided() {
                match node.job {
                    None => return Err(format!("open leaf {i} without a job")),
                    Some(j) if tree.jobs[j].split => return Err(format!("open leaf {i} on split job {j}")),
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }

    #[test]
    fn a_transposition_into_a_split_job_is_expanded_too() {
        // Splitting a job whose moves reach the board of a job split
        // earlier (a transposition across depths) must not leave a leaf
        // on the split job, which no worker would search again.
        for (h, s) in [(4, 3), (4, 4), (5, 3), (6, 2)] {
            let rules = Rules::default();
            let engine = Engine::new(h, rules);
            let table = NoTablebase { houses: h, rules };
            let root = Position::start(h, s).unwrap().mover_board();
            for stride in [1usize, 3, 7, 11] {
                let mut tree = Tree::new(&engine, &table, root, 2, 30, false);
                // Jobs split in a scattered order, so that shallow ones
                // reach the boards of deeper ones split before.
                let mut pick = 0usize;
                for _ in 0..200 {
                    let live: Vec<usize> = tree
                        .order
                        .iter()
                        .copied()
                        .filter(|&j| !tree.jobs[j].split && !engine.is_over(tree.jobs[j].board))
                        .collect();
                    if live.is_empty() {
                        break;
                    }
                    pick = (pick + stride) % live.len();
                    tree.split(&engine, &table, live[pick]);
                    every_open_leaf_has_a_live_job(&tree).unwrap_or_else(|e| panic!("Kalah({h},{s}), stride {stride}: {e}"));
                }
            }
        }
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
