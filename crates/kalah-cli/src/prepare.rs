//! What `kalah serve` prepares as it starts (`--prepare H:N`, by default
//! `6:24`): the endgame database of up to N seeds on H houses under each
//! capture rule (the other rules their defaults), packed, built in the
//! background into the database folder where the folder has none as
//! large, one at a time, resumable (a server stopped during a build goes
//! on with it at its next start). `/health` says how far it is, `"ready":
//! false` until every one is built or has failed (the log says why);
//! requests are answered meanwhile, over what the folder has.
//!
//! Kalah(6,4) over the 24-seed databases is answered with every move
//! exact in seconds wherever a player goes (docs/benchmarks/explorer.md,
//! "The explorer as players play"); each is 744 MiB (`kalah db build 6 24
//! --packed`: about two minutes on two cores, in 1.2 GiB), built here
//! within `--memory`, one level at a time where the whole does not fit.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use kalah::{Capture, Rules};
use serde_json::{json, Value};

/// The databases prepared by default: 24 seeds of six houses.
pub const DEFAULT: &str = "6:24";

/// The largest database a server prepares: 28 seeds of six houses (5.6
/// billion boards, 3.3 GiB packed); a larger one is a `kalah db build`.
const MAX_BOARDS: u64 = 5_700_000_000;

/// The databases asked for: `H:N` each, or `none`.
pub fn parse(asked: &[String]) -> anyhow::Result<Vec<(usize, u32)>> {
    let mut out = Vec::new();
    for spec in asked {
        if spec == "none" {
            continue;
        }
        let bad = || crate::common::user(format!("--prepare {spec}: give houses and seeds as H:N (such as 6:24), or none"));
        let (h, n) = spec.split_once(':').ok_or_else(bad)?;
        let (h, n): (usize, u32) = (h.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if !(1..=kalah::MAX_HOUSES).contains(&h) || n == 0 {
            return Err(bad());
        }
        if kalah_core::boards_up_to(h, n) > MAX_BOARDS {
            return Err(crate::common::user(format!(
                "--prepare {spec}: more boards than a server prepares (at most 28 seeds of six houses); build it with `kalah db build`"
            )));
        }
        out.push((h, n));
    }
    Ok(out)
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

#[derive(Clone, Debug, PartialEq)]
enum State {
    Waiting,
    Building,
    Ready,
    Failed(String),
}

impl State {
    fn name(&self) -> &'static str {
        match self {
            State::Waiting => "waiting",
            State::Building => "building",
            State::Ready => "ready",
            State::Failed(_) => "failed",
        }
    }
}

/// The databases a server prepares, and how far it is.
pub struct Preparing {
    items: Vec<Arc<Item>>,
}

impl Preparing {
    /// Prepares `asked` (houses and seeds) under each capture rule in
    /// `databases`'s folder, in a thread of its own; `log` hears what is
    /// built and what failed.
    pub fn start(databases: kalah::Databases, asked: &[(usize, u32)], memory: Reserve, log: kalah::Log) -> Arc<Preparing> {
        let items: Vec<Arc<Item>> = asked
            .iter()
            .flat_map(|&(houses, seeds)| {
                [Capture::Standard, Capture::Empty].map(|capture| {
                    Arc::new(Item {
                        houses,
                        seeds,
                        rules: Rules { capture, ..Rules::default() },
                        done: AtomicU64::new(0),
                        // Found in the folder already: ready from the first `/health` on.
                        state: Mutex::new(if present(&databases, houses, seeds, Rules { capture, ..Rules::default() }) {
                            State::Ready
                        } else {
                            State::Waiting
                        }),
                    })
                })
            })
            .collect();
        let preparing = Arc::new(Preparing { items });
        let work = preparing.clone();
        let spawned = std::thread::Builder::new().name("kalah-prepare".into()).spawn(move || {
            for item in &work.items {
                let state = build(&databases, item, &memory, &log);
                *item.state.lock().unwrap_or_else(|e| e.into_inner()) = state;
            }
        });
        if let Err(e) = spawned {
            for item in &preparing.items {
                *item.state.lock().unwrap_or_else(|e| e.into_inner()) = State::Failed(format!("no thread to build it: {e}"));
            }
        }
        preparing
    }

    /// Whether every database is built (or failed).
    pub fn ready(&self) -> bool {
        self.items.iter().all(|i| matches!(*i.state.lock().unwrap_or_else(|e| e.into_inner()), State::Ready | State::Failed(_)))
    }

    /// What `/health` says: `{"status": "ok", "ready": ..., "preparing": [...]}`,
    /// each database with its `houses`, `max_seeds`, `capture`, `state`
    /// (`waiting`, `building`, `ready`, `failed`) and `done` (the share
    /// built, 0 to 1).
    pub fn health(&self) -> Value {
        let items: Vec<Value> = self
            .items
            .iter()
            .map(|i| {
                let state = i.state.lock().unwrap_or_else(|e| e.into_inner()).clone();
                let total = kalah_core::boards_up_to(i.houses, i.seeds).max(1);
                let done = match state {
                    State::Ready => 1.0,
                    State::Building => (i.done.load(Relaxed) as f64 / total as f64).min(0.999),
                    _ => 0.0,
                };
                json!({"houses": i.houses, "max_seeds": i.seeds, "capture": i.rules.capture.name(), "state": state.name(), "done": (done * 1000.0).round() / 1000.0})
            })
            .collect();
        json!({"status": "ok", "ready": self.ready(), "preparing": items})
    }
}

/// Whether the folder has an exact file of `houses` and `rules` with at least `seeds` seeds.
fn present(databases: &kalah::Databases, houses: usize, seeds: u32, rules: Rules) -> bool {
    databases.files(houses, rules).iter().any(|f| f.max_seeds >= seeds && f.exact)
}

/// How a build takes its memory from the server's `--memory`.
pub struct Reserve {
    /// The server's limit: a build that would not fit whole within it is
    /// built one level at a time.
    pub limit: u64,
    /// The bytes a build needs, reserved whole (waiting for searches under
    /// way to end) and given back when dropped, or the reason they cannot be.
    pub take: Box<dyn Fn(u64) -> Result<kalah::service::memory::Reservation, String> + Send>,
}

/// Builds `item` into the folder unless a file there covers it already,
/// with the memory it needs reserved from the server's (`reserve`): within
/// two thirds of it where it fits there (whole, or one level at a time),
/// else within the whole.
fn build(databases: &kalah::Databases, item: &Item, reserve: &Reserve, log: &kalah::Log) -> State {
    if present(databases, item.houses, item.seeds, item.rules) {
        return State::Ready;
    }
    *item.state.lock().unwrap_or_else(|e| e.into_inner()) = State::Building;
    let path = databases.path_for(item.houses, item.seeds, item.rules);
    if let Some(dir) = path.parent() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            log(&format!("not preparing {}: {e}", path.display()));
            return State::Failed(e.to_string());
        }
    }
    log(&format!(
        "preparing {} (the {}-seed database of {} houses, {} capture) in the background",
        path.display(),
        item.seeds,
        item.houses,
        item.rules.capture.name()
    ));
    let encoding = kalah::Encoding::chosen(true, item.rules);
    // At most two thirds of the server's memory where one level at a time
    // fits in it, the searches sharing the rest meanwhile; else what the
    // build needs within the whole.
    let plan = |limit| kalah_db::build::plan(item.houses, item.seeds, item.rules, encoding, Some(limit)).memory;
    let most = reserve.limit / 3 * 2;
    let needed = Some(plan(most)).filter(|&needed| needed <= most).unwrap_or_else(|| plan(reserve.limit));
    let reservation = match (reserve.take)(needed) {
        Ok(reservation) => reservation,
        Err(why) => {
            log(&format!("could not prepare {}: {why}", path.display()));
            return State::Failed(why);
        }
    };
    let started = std::time::Instant::now();
    let built = kalah_db::build_file_within(&path, item.houses, item.rules, item.seeds, encoding, Some(reservation.bytes()), &Counted(item));
    drop(reservation);
    match built {
        Ok(report) => {
            log(&format!("prepared {} ({} MiB) in {:.1} s", path.display(), report.bytes >> 20, started.elapsed().as_secs_f64()));
            State::Ready
        }
        Err(e) => {
            log(&format!("could not prepare {}: {e}", path.display()));
            State::Failed(e.to_string())
        }
    }
}

/// Counts the boards a build solves, for `/health`.
struct Counted<'a>(&'a Item);

impl kalah::Progress for Counted<'_> {
    fn advance(&self, _n: u32, done: u64) {
        self.0.done.fetch_add(done, Relaxed);
    }
}

impl kalah::BuildProgress for Counted<'_> {
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
    fn what_to_prepare_reads_or_is_refused() {
        assert_eq!(parse(&["6:24".into()]).unwrap(), vec![(6, 24)]);
        assert_eq!(parse(&["none".into()]).unwrap(), vec![]);
        for bad in ["6", "x:3", "9:3", "6:0", "6:40"] {
            assert!(parse(&[bad.to_string()]).is_err(), "{bad}");
        }
    }
}
