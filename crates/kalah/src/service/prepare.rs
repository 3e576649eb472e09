//! The databases a server prepares as it starts (`kalah serve --prepare
//! H:N`): the endgame database of up to N seeds on H houses under each
//! capture rule (the other rules their defaults), packed, built in the
//! background into the analyzer's database folder where the folder has
//! none as large, one at a time, resumable (a server stopped during a
//! build goes on with it at its next start). [`Preparing::health`] says
//! how far it is: not ready until every one is built or has failed (the
//! log says why); requests are answered meanwhile, over what the folder
//! has.
//!
//! Each build takes its memory from the server's one budget
//! ([`crate::service::memory`]), reserved whole before it begins and given
//! back when it ends: within two thirds of the limit where one level at a
//! time fits there (the searches share the rest meanwhile), else what it
//! needs within the whole limit, waiting for searches under way to make
//! room. A build that needs more than the limit fails, and says so.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::service::memory::MemoryBudget;
use crate::{Analyzer, Capture, Databases, Encoding, Error, Log, Result, Rules};

/// The largest database a server prepares: 28 seeds of six houses (5.6
/// billion boards, 3.3 GiB packed); a larger one is a `kalah db build`.
pub const MAX_BOARDS: u64 = 5_700_000_000;

/// The longest a build waits for the searches under way to make room.
const BUILD_WAIT: Duration = Duration::from_secs(24 * 3600);

/// Whether a server prepares the database of `houses` and `seeds`: Err
/// (bad input) for no houses or seeds, more houses than
/// [`crate::MAX_HOUSES`], or more boards than [`MAX_BOARDS`].
pub fn check(houses: usize, seeds: u32) -> Result<()> {
    if !(1..=crate::MAX_HOUSES).contains(&houses) || seeds == 0 {
        return Err(Error::bad_input(format!("{houses}:{seeds}: give 1 to {} houses and at least 1 seed", crate::MAX_HOUSES)));
    }
    if kalah_core::boards_up_to(houses, seeds) > MAX_BOARDS {
        return Err(Error::bad_input(format!(
            "{houses}:{seeds}: more boards than a server prepares (at most 28 seeds of six houses); build it with `kalah db build`"
        )));
    }
    Ok(())
}

/// Where one database's preparation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Not begun: another is built first.
    Waiting,
    /// Being built.
    Building,
    /// In the folder (built, or found there).
    Ready,
    /// Not built: the log says why.
    Failed,
}

/// One database's preparation, as `/health` tells it.
#[derive(Clone, Debug, Serialize)]
pub struct Prepared {
    /// Houses a side.
    pub houses: usize,
    /// The database's largest number of seeds on a board.
    pub max_seeds: u32,
    /// `standard` or `empty`.
    pub capture: &'static str,
    /// Where its preparation is.
    pub state: State,
    /// The share built, 0 to 1 (in thousandths).
    pub done: f64,
}

/// What a server says of its health: `{"status": "ok", "ready": ...,
/// "preparing": [...]}`.
#[derive(Clone, Debug, Serialize)]
pub struct Health {
    /// Always `ok`: the server answers.
    pub status: &'static str,
    /// Whether every database is built or has failed.
    pub ready: bool,
    /// Each database asked for, under each capture rule.
    pub preparing: Vec<Prepared>,
}

/// One database to prepare.
struct Item {
    houses: usize,
    seeds: u32,
    rules: Rules,
    /// Boards solved so far (of `kalah_core::boards_up_to(houses, seeds)`).
    done: AtomicU64,
    state: Mutex<State>,
}

impl Item {
    fn state(&self) -> State {
        *self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set(&self, state: State) {
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = state;
    }
}

/// The databases a server prepares, and how far it is.
pub struct Preparing {
    items: Vec<Arc<Item>>,
}

impl std::fmt::Debug for Preparing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Preparing").field("health", &self.health()).finish()
    }
}

impl Preparing {
    /// Prepares `asked` (houses and seeds, each [`check`]ed first) under
    /// each capture rule in `analyzer`'s database folder, in a thread of
    /// its own, each build's memory reserved from `budget`; `log` hears
    /// what is built and what failed.
    pub fn start(analyzer: &Analyzer, asked: &[(usize, u32)], budget: Arc<MemoryBudget>, log: Log) -> Result<Arc<Preparing>> {
        for &(houses, seeds) in asked {
            check(houses, seeds)?;
        }
        let databases = analyzer.databases().clone();
        let items: Vec<Arc<Item>> = asked
            .iter()
            .flat_map(|&(houses, seeds)| {
                [Capture::Standard, Capture::Empty].map(|capture| {
                    let rules = Rules { capture, ..Rules::default() };
                    // Found in the folder already: ready from the first health on.
                    let state = if present(&databases, houses, seeds, rules) { State::Ready } else { State::Waiting };
                    Arc::new(Item { houses, seeds, rules, done: AtomicU64::new(0), state: Mutex::new(state) })
                })
            })
            .collect();
        let preparing = Arc::new(Preparing { items });
        let (work, analyzer, building) = (preparing.clone(), analyzer.clone(), log.clone());
        let spawned = std::thread::Builder::new().name("kalah-prepare".into()).spawn(move || {
            for item in &work.items {
                item.set(build(&databases, item, &budget, &analyzer, &building));
            }
        });
        if let Err(e) = spawned {
            log(&format!("not preparing databases: no thread to build them: {e}"));
            preparing.items.iter().for_each(|item| item.set(State::Failed));
        }
        Ok(preparing)
    }

    /// Whether every database is built (or failed).
    pub fn ready(&self) -> bool {
        self.items.iter().all(|i| matches!(i.state(), State::Ready | State::Failed))
    }

    /// How far each database is.
    pub fn health(&self) -> Health {
        let preparing = self
            .items
            .iter()
            .map(|i| {
                let state = i.state();
                let total = kalah_core::boards_up_to(i.houses, i.seeds).max(1);
                let done = match state {
                    State::Ready => 1.0,
                    State::Building => (i.done.load(Relaxed) as f64 / total as f64).min(0.999),
                    State::Waiting | State::Failed => 0.0,
                };
                Prepared { houses: i.houses, max_seeds: i.seeds, capture: i.rules.capture.name(), state, done: (done * 1000.0).round() / 1000.0 }
            })
            .collect();
        Health { status: "ok", ready: self.ready(), preparing }
    }
}

/// Whether the folder has an exact file of `houses` and `rules` with at least `seeds` seeds.
fn present(databases: &Databases, houses: usize, seeds: u32, rules: Rules) -> bool {
    databases.files(houses, rules).iter().any(|f| f.max_seeds >= seeds && f.exact)
}

/// The memory a build reserves within a server's `limit`: what it needs
/// within two thirds of the limit where that is enough (one level at a
/// time if the whole is not), else what it needs within the whole.
fn build_memory(houses: usize, seeds: u32, rules: Rules, encoding: Encoding, limit: u64) -> u64 {
    let plan = |limit| kalah_db::build::plan(houses, seeds, rules, encoding, Some(limit)).memory;
    let most = limit / 3 * 2;
    Some(plan(most)).filter(|&needed| needed <= most).unwrap_or_else(|| plan(limit))
}

/// Builds `item` into the folder unless a file there covers it already,
/// with the memory it needs reserved from `budget` ([`build_memory`]).
fn build(databases: &Databases, item: &Item, budget: &Arc<MemoryBudget>, analyzer: &Analyzer, log: &Log) -> State {
    if present(databases, item.houses, item.seeds, item.rules) {
        return State::Ready;
    }
    item.set(State::Building);
    let path = databases.path_for(item.houses, item.seeds, item.rules);
    if let Some(dir) = path.parent() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            log(&format!("could not prepare {}: {e}", path.display()));
            return State::Failed;
        }
    }
    log(&format!(
        "preparing {} (the {}-seed database of {} houses, {} capture) in the background",
        path.display(),
        item.seeds,
        item.houses,
        item.rules.capture.name()
    ));
    let encoding = Encoding::chosen(true, item.rules);
    let needed = build_memory(item.houses, item.seeds, item.rules, encoding, budget.limit());
    let reservation = match budget.reserve_whole(needed, analyzer, BUILD_WAIT) {
        Ok(reservation) => reservation,
        Err(why) => {
            log(&format!("could not prepare {}: {why}", path.display()));
            return State::Failed;
        }
    };
    let started = Instant::now();
    let built = kalah_db::build_file_within(&path, item.houses, item.rules, item.seeds, encoding, Some(reservation.bytes()), &Counted(item));
    drop(reservation);
    match built {
        Ok(report) => {
            log(&format!("prepared {} ({} MiB) in {:.1} s", path.display(), report.bytes >> 20, started.elapsed().as_secs_f64()));
            State::Ready
        }
        Err(e) => {
            log(&format!("could not prepare {}: {e}", path.display()));
            State::Failed
        }
    }
}

/// Counts the boards a build solves, for [`Preparing::health`].
struct Counted<'a>(&'a Item);

impl crate::Progress for Counted<'_> {
    fn advance(&self, _n: u32, done: u64) {
        self.0.done.fetch_add(done, Relaxed);
    }
}

impl crate::BuildProgress for Counted<'_> {
    fn resumed(&self, levels: u32) {
        // The levels a partial file holds count as done.
        let boards = if levels == 0 { 0 } else { kalah_core::boards_up_to(self.0.houses, levels - 1) };
        self.0.done.store(boards, Relaxed);
    }
    fn level_started(&self, _n: u32, _boards: u64) {}
    fn level_finished(&self, n: u32, _seconds: f64) {
        self.0.done.store(kalah_core::boards_up_to(self.0.houses, n), Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_server_prepares_is_checked() {
        check(6, 24).unwrap();
        check(6, 28).unwrap();
        for (houses, seeds) in [(6, 0), (0, 3), (crate::MAX_HOUSES + 1, 3), (6, 29), (6, 40)] {
            let e = check(houses, seeds).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::BadInput, "{houses}:{seeds}");
        }
    }

    /// `/health` says each database's state and share built, in the
    /// shape docs/api.md gives.
    #[test]
    fn health_reads_as_the_api_says() {
        let item = |capture, state, done| {
            let rules = Rules { capture, ..Rules::default() };
            Arc::new(Item { houses: 6, seeds: 24, rules, done: AtomicU64::new(done), state: Mutex::new(state) })
        };
        let total = kalah_core::boards_up_to(6, 24);
        let preparing = Preparing {
            items: vec![
                item(Capture::Standard, State::Ready, 0),
                item(Capture::Empty, State::Building, total / 4),
                item(Capture::Empty, State::Waiting, 0),
                item(Capture::Standard, State::Failed, 0),
            ],
        };
        let health = serde_json::to_value(preparing.health()).unwrap();
        assert_eq!(
            health,
            serde_json::json!({"status": "ok", "ready": false, "preparing": [
                {"houses": 6, "max_seeds": 24, "capture": "standard", "state": "ready", "done": 1.0},
                {"houses": 6, "max_seeds": 24, "capture": "empty", "state": "building", "done": 0.25},
                {"houses": 6, "max_seeds": 24, "capture": "empty", "state": "waiting", "done": 0.0},
                {"houses": 6, "max_seeds": 24, "capture": "standard", "state": "failed", "done": 0.0},
            ]})
        );
        let done = Preparing { items: vec![item(Capture::Standard, State::Ready, 0), item(Capture::Empty, State::Failed, 0)] };
        assert!(done.ready() && done.health().ready);
    }

    #[test]
    fn a_build_takes_two_thirds_of_the_limit_where_that_is_enough() {
        let rules = Rules::default();
        let encoding = Encoding::chosen(true, rules);
        let whole = kalah_db::build::plan(6, 24, rules, encoding, Some(u64::MAX)).memory;
        // Room for the whole build within two thirds: it takes what it needs.
        assert_eq!(build_memory(6, 24, rules, encoding, whole * 2), whole);
        // The server's default limit: by levels, within two thirds of it.
        let limit = 1280 << 20;
        let needed = build_memory(6, 24, rules, encoding, limit);
        assert!(needed < whole && needed <= limit / 3 * 2, "{needed} of {limit}");
        // Not even by levels within two thirds: what it needs within the whole.
        let tight = kalah_db::build::plan(6, 24, rules, encoding, Some(1)).memory;
        assert!(tight > 0);
        assert_eq!(build_memory(6, 24, rules, encoding, tight), tight);
    }
}
