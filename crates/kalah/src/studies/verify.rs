//! Checking a journal (or a search memory) against searches that do not
//! read it: `kalah journal verify`.
//!
//! A journal's checksum says its bytes are those written, and reading it
//! refuses bounds no search could prove (see [`crate::journal`]); neither
//! says its bounds are true. A sample of its entries is proven again from
//! scratch, each bound by one null-window test of its board with no
//! journal and no search memory: a lower bound `L` by "value >= L", which
//! must hold, an upper bound `U` by "value >= U + 1", which must fail. A
//! test that does not end within the time limit is counted as unchecked,
//! never as agreeing.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use kalah_core::{Board, Position, Side};

use crate::answer::analyzer::Analyzer;
use crate::answer::request::{Request, RootTests};
use crate::databases::DbSpec;
use crate::error::{Error, Result};
use crate::memory::journal::{Contents, FILE_NAME};
use crate::progress::Observer;
use crate::studies::sample::Sampler;

/// What to check, and with what.
#[derive(Clone, Debug)]
pub struct VerifyRequest {
    /// The journal's directory (a search's, or a search memory's).
    pub dir: PathBuf,
    /// How many entries to prove again, chosen at random (all of them if
    /// the journal holds fewer).
    pub sample: usize,
    /// The seed of the choice: the same seed, the same entries.
    pub seed: u64,
    /// Time for each test; a test not done by then is unchecked.
    pub time_limit: Duration,
    /// The database the searches use.
    pub db: DbSpec,
    /// Search threads.
    pub threads: usize,
    /// Transposition table MiB for each test (`None`: sized by its board).
    pub tt_mb: Option<usize>,
}

/// One bound proven again.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Checked {
    /// The board, as a position of South to move with empty stores (its
    /// value is the board's).
    pub position: String,
    /// The bound checked: `"lower"` or `"upper"`.
    pub bound: &'static str,
    /// Its value in the journal.
    pub value: i32,
    /// What the test found: `Some(true)` the bound holds, `Some(false)` it
    /// is wrong, `None` not decided in time.
    pub holds: Option<bool>,
    /// Nodes the test searched.
    pub nodes: u64,
}

/// The answer of [`verify`].
#[derive(Clone, Debug, serde::Serialize)]
pub struct VerifyReport {
    /// The journal file.
    pub path: PathBuf,
    /// Whether it is a search memory.
    pub memory: bool,
    /// Entries it holds.
    pub entries: usize,
    /// Entries sampled.
    pub sampled: usize,
    /// The seed of the sample.
    pub seed: u64,
    /// Every bound tested.
    pub checked: Vec<Checked>,
    /// Bounds shown wrong.
    pub disagreements: usize,
    /// Bounds not decided in time.
    pub unchecked: usize,
    /// Nodes searched in all.
    pub nodes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Proves again a random sample of the bounds the journal of
/// `request.dir` holds, each by a search that reads no journal; see the
/// module docs. `observer` hears each test's progress.
pub fn verify(analyzer: &Analyzer, request: &VerifyRequest, observer: &dyn Observer) -> Result<VerifyReport> {
    let start = Instant::now();
    if request.time_limit.is_zero() {
        return Err(Error::bad_input("a time limit of 0 s for each test: give more"));
    }
    let contents = Contents::read(&request.dir)?;
    let rules = contents.rules()?;
    let h = contents.houses;
    let mut chosen = Sampler::new(request.seed).indices(contents.entries.len(), request.sample)?;
    chosen.sort_unstable();
    let mut checked = Vec::new();
    for &i in &chosen {
        let e = contents.entries[i];
        let position = board_position(h, e.board)?;
        for (bound, value, at_least) in [("lower", e.lower, e.lower), ("upper", e.upper, e.upper.saturating_add(1))] {
            if value == i32::MIN || value == i32::MAX {
                continue;
            }
            let test = Request {
                db: request.db.clone(),
                threads: request.threads,
                tt_mb: request.tt_mb,
                want: crate::answer::request::Want::Value,
                time_limit: Some(request.time_limit),
                journal: None,
                memory: crate::answer::request::Memory::Off,
                tests: RootTests::AtLeast(at_least),
                ..Request::new(position, rules)
            };
            let report = analyzer.analyze(&test, observer)?;
            // A lower bound holds if "value >= L" does; an upper bound if "value >= U + 1" does not.
            let holds = report.test.map(|t| if bound == "lower" { t.holds } else { !t.holds });
            checked.push(Checked { position: position.ring(), bound, value, holds, nodes: report.nodes });
        }
    }
    Ok(VerifyReport {
        path: request.dir.join(FILE_NAME),
        memory: contents.position_text.is_empty(),
        entries: contents.entries.len(),
        sampled: chosen.len(),
        seed: request.seed,
        disagreements: checked.iter().filter(|c| c.holds == Some(false)).count(),
        unchecked: checked.iter().filter(|c| c.holds.is_none()).count(),
        nodes: checked.iter().map(|c| c.nodes).sum(),
        checked,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The position of South to move on `board` (South's houses the mover's)
/// with empty stores: its value is the board's.
fn board_position(h: usize, board: Board) -> Result<Position> {
    let side = |cells: &mut dyn Iterator<Item = u8>| cells.map(u32::from).collect::<Vec<_>>();
    Position::new(&side(&mut board.mover_houses(h)), &side(&mut board.opponent_houses(h)), [0, 0], Side::South)
        .map_err(|e| Error::corrupt(format!("a journal entry is no board: {e}")))
}
