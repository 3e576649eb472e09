//! The tree near the root, split into jobs (the module docs: "Jobs",
//! "Proven bounds"): expanded, split further, its bounds combined by
//! negamax, and which nodes are still needed.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use kalah_core::{Board, Engine, Next};
use kalah_db::Tablebase;

use crate::error::{Error, Result};

/// Jobs per rank the first split aims at. Few: a deeper split costs more
/// nodes (a job is searched to its exact value or until it is not needed,
/// where one search would often only bound it), and jobs are split later
/// where workers would otherwise wait.
pub const JOBS_PER_WORKER: usize = 2;
/// The split stops at this depth whatever the number of jobs.
pub const MAX_SPLIT_DEPTH: u32 = 24;

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
        Node { board, house, gain, same_mover, children: Vec::new(), job: None, own: (lo, hi), lo, hi }
    }

    /// A move that ends the game with store difference `gain`.
    fn game_over(house: usize, gain: i32) -> Node {
        Node { board: Board::EMPTY, house, gain, same_mover: true, children: Vec::new(), job: None, own: (0, 0), lo: 0, hi: 0 }
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
                self.jobs.push(Job { board, nodes: Vec::new(), state: JobState::Waiting, lo: -n, hi: n, split: false });
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
    pub(crate) fn split<T: Tablebase>(&mut self, engine: &Engine, table: &T, job: usize) {
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
    pub(crate) fn record(&mut self, job: usize, lower: i32, upper: i32) -> Result<()> {
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

    /// The bounds proven on the root's board value.
    pub(crate) fn root_bounds(&self) -> (i32, i32) {
        (self.nodes[ROOT].lo, self.nodes[ROOT].hi)
    }

    /// Hands job `job` out to worker `worker`: its board.
    pub(crate) fn hand_out(&mut self, job: usize, worker: usize) -> Board {
        self.jobs[job].state = JobState::Running(worker, Instant::now());
        self.jobs[job].board
    }

    /// Ends job `job` with the bounds recorded: whether it is solved
    /// (exact), else stopped.
    pub(crate) fn end_job(&mut self, job: usize) -> bool {
        let j = &mut self.jobs[job];
        let solved = j.lo == j.hi;
        j.state = if solved { JobState::Solved } else { JobState::Stopped };
        solved
    }

    /// Whether what is asked is known: the root's value, and with
    /// `all_moves` every move's.
    pub fn finished(&self) -> bool {
        let root = &self.nodes[ROOT];
        root.decided() && (!self.all_moves || root.children.iter().all(|&c| self.nodes[c].decided()))
    }

    /// Whether searching job `job` can still change what is asked.
    pub(crate) fn job_needed(&self, job: usize) -> bool {
        let j = &self.jobs[job];
        !j.split && j.lo < j.hi && j.nodes.iter().any(|&n| self.needed[n] && !self.nodes[n].decided())
    }

    /// The next job to hand out: the first needed one. (Holding back a
    /// node's later moves until its first is solved, as young-brothers-wait
    /// search does, cost 2.5 times the nodes on Kalah(6,4) with 2 ranks:
    /// the waiting workers split jobs instead, into many more small
    /// searches to exact values.)
    pub(crate) fn next_job(&self) -> Option<usize> {
        self.order.iter().copied().find(|&j| matches!(self.jobs[j].state, JobState::Waiting | JobState::Stopped) && self.job_needed(j))
    }

    /// The first needed job (in hand-out order) that a worker has been
    /// searching for at least `after`, to split for idle workers.
    pub(crate) fn to_split(&self, engine: &Engine, after: Duration) -> Option<usize> {
        self.order.iter().copied().find(|&j| {
            let job = &self.jobs[j];
            matches!(job.state, JobState::Running(_, since) if since.elapsed() >= after) && self.job_needed(j) && !engine.is_over(job.board)
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
        let mut moves: Vec<(usize, i32)> = self.nodes[ROOT].children.iter().map(|&c| (self.nodes[c].house + 1, self.nodes[c].as_move().0)).collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use kalah_core::{Position, Rules};
    use kalah_db::NoTablebase;

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
                    let live: Vec<usize> =
                        tree.order.iter().copied().filter(|&j| !tree.jobs[j].split && !engine.is_over(tree.jobs[j].board)).collect();
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
}
