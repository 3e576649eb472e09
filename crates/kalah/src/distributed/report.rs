//! The answer of a shared search: the report one process would give, and
//! what the ranks did.

use kalah_search::{Analysis, LineEnd, MoveValue};

use crate::answer::request::Request;
use crate::distributed::tree::Tree;
use crate::distributed::workers::WorkerStats;
use crate::error::{Error, Result};
use crate::report::{Report, Source, UsedDatabase};

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

/// What a finished tree answers for `request`'s position (every move's
/// value if it asks for them, the value alone otherwise), with what each
/// rank did (`stats`, one a rank) on `request`'s threads each, the
/// database the ranks searched over and the `seconds` it all took.
pub fn report(tree: &Tree, stats: &[WorkerStats], request: &Request, database: Option<UsedDatabase>, seconds: f64) -> Result<DistributedReport> {
    if !tree.finished() {
        return Err(Error::internal("the shared search ended before its root was decided"));
    }
    let (position, rules) = (request.position, request.rules);
    let base = position.store_difference();
    let moves =
        if request.want.moves() { tree.moves().into_iter().map(|(house, v)| MoveValue { house, value: base + v }).collect() } else { Vec::new() };
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
        threads_per_rank: request.threads,
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
