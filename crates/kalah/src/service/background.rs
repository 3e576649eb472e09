//! Searches that go on after their request was answered with bounds only
//! (`kalah serve --background`): the bounds close while a client watches
//! ([`Background::told`]; the server's `GET /api/v1/background`), and the
//! exact answer is kept with the analyzer's answers
//! ([`crate::Memory::Answers`]), so the next request for the position
//! gets it at once.
//!
//! Bounded: at most `slots` searches run at once (one thread each, beside
//! a door's own), each for `time`, which a client may raise by as much
//! again, [`MAX_MORE`] times; a client may stop one. What they leave is
//! kept for the most recent [`KEPT_JOBS`] questions. A question is a
//! position and its rules ([`ApiRequest::question`]); nothing in it names
//! a file.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::answer::request::Memory;
use crate::progress::{Log, Observer, SearchStatus};
use crate::service::api::{self, ApiRequest, Limits};

/// Finished searches whose state is still told, the oldest forgotten first.
pub const KEPT_JOBS: usize = 64;

/// How many times a client may give a search more time.
pub const MAX_MORE: u32 = 4;

/// Where a background search is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Searching.
    Running,
    /// Done: the answer is exact, and the server gives it at once.
    Exact,
    /// Its time ran out with bounds only (more time goes on).
    OutOfTime,
    /// A client stopped it.
    Stopped,
    /// It failed (the server's log says why).
    Failed,
}

/// What a client is told of a background search (`GET /api/v1/background`).
#[derive(Clone, Debug, Serialize)]
pub struct Told {
    /// `none` when no search of this question runs or ran lately.
    pub state: Option<State>,
    /// Seconds since it began.
    pub seconds: f64,
    /// Seconds it may still run.
    pub seconds_left: f64,
    /// Nodes searched.
    pub nodes: u64,
    /// The bounds proven on the position's value (for the player to move,
    /// stores included), if any yet.
    pub lower: Option<i32>,
    /// See `lower`.
    pub upper: Option<i32>,
    /// While it builds the database it searches over (in memory, sized to
    /// its time), the share built so far, 0 to 1; a stop takes effect once
    /// the database is built.
    pub building: Option<f64>,
    /// Whether a client may still give it more time.
    pub more_allowed: bool,
}

impl Told {
    /// No search of the question.
    pub fn none() -> Told {
        Told { state: None, seconds: 0.0, seconds_left: 0.0, nodes: 0, lower: None, upper: None, building: None, more_allowed: false }
    }
}

/// One question's background search.
struct Job {
    key: String,
    started: Instant,
    cancel: Arc<AtomicBool>,
    /// Times a client gave it more time.
    more: AtomicU32,
    /// State, nodes, bounds, and when the current search ends.
    now: Mutex<Now>,
}

struct Now {
    state: State,
    nodes: u64,
    lower: Option<i32>,
    upper: Option<i32>,
    building: Option<f64>,
    ends: Instant,
    ended: Option<Instant>,
}

impl Job {
    fn told(&self) -> Told {
        let now = self.now.lock().unwrap_or_else(|e| e.into_inner());
        let until = now.ended.unwrap_or_else(Instant::now);
        let running = now.state == State::Running;
        Told {
            state: Some(now.state),
            seconds: until.duration_since(self.started).as_secs_f64(),
            seconds_left: if running { now.ends.saturating_duration_since(Instant::now()).as_secs_f64() } else { 0.0 },
            nodes: now.nodes,
            lower: now.lower,
            upper: now.upper,
            building: now.building.filter(|_| running),
            more_allowed: self.more.load(Relaxed) < MAX_MORE && matches!(now.state, State::Running | State::OutOfTime | State::Stopped),
        }
    }

    fn set(&self, state: State) {
        let mut now = self.now.lock().unwrap_or_else(|e| e.into_inner());
        now.state = state;
        if state != State::Running {
            now.ended = Some(Instant::now());
        }
    }
}

/// Hears a background search's bounds close.
struct Watch<'a>(&'a Job);

impl Observer for Watch<'_> {
    fn watches(&self) -> bool {
        true
    }

    fn building(&self, boards: u64, done: u64) {
        let mut now = self.0.now.lock().unwrap_or_else(|e| e.into_inner());
        now.building = (done < boards).then(|| done as f64 / boards.max(1) as f64);
    }

    fn searching(&self, _what: &str, status: SearchStatus, _elapsed: Duration, _done: bool) {
        let mut now = self.0.now.lock().unwrap_or_else(|e| e.into_inner());
        now.building = None;
        now.nodes = now.nodes.max(status.nodes);
        // Bounds only tighten: the values of each move, searched after
        // the position's, say nothing of it.
        if let Some(l) = status.lower {
            now.lower = Some(now.lower.map_or(l, |x| x.max(l)));
        }
        if let Some(u) = status.upper {
            now.upper = Some(now.upper.map_or(u, |x| x.min(u)));
        }
    }
}

/// The background searches of a server.
pub struct Background {
    /// Searches that may run at once (0: none).
    slots: usize,
    /// Time a search gets, and each "more" adds.
    time: Duration,
    jobs: Mutex<VecDeque<Arc<Job>>>,
    /// Where a failure is said (a server's log).
    log: Log,
}

impl std::fmt::Debug for Background {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Background").field("slots", &self.slots).field("time", &self.time).finish()
    }
}

impl Background {
    /// At most `slots` searches at once (0: none), each for `time` at
    /// first; a search that fails is said to `log`, and told as failed.
    pub fn new(slots: usize, time: Duration, log: Log) -> Background {
        Background { slots, time, jobs: Mutex::new(VecDeque::new()), log }
    }

    fn find(&self, key: &str) -> Option<Arc<Job>> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|j| j.key == key).cloned()
    }

    /// What a client is told of the search of question `key`.
    pub fn told(&self, key: &str) -> Told {
        self.find(key).map_or_else(Told::none, |j| j.told())
    }

    /// Goes on with `request` (question `key`), answered with bounds only,
    /// if no search of it runs or ran lately and a slot is free; says
    /// whether it did.
    pub fn start(self: &Arc<Self>, analyzer: &crate::answer::analyzer::Analyzer, limits: &Limits, key: String, request: ApiRequest) -> bool {
        self.launch(analyzer, limits, key, request, (Instant::now(), 0))
    }

    /// [`Background::start`], for a search begun at `begun.0` and given
    /// more time `begun.1` times (a search taken up again goes on counting).
    fn launch(
        self: &Arc<Self>,
        analyzer: &crate::answer::analyzer::Analyzer,
        limits: &Limits,
        key: String,
        request: ApiRequest,
        begun: (Instant, u32),
    ) -> bool {
        let job = {
            let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
            let running = jobs.iter().filter(|j| j.told().state == Some(State::Running)).count();
            if self.slots == 0 || running >= self.slots || jobs.iter().any(|j| j.key == key) {
                return false;
            }
            let job = Arc::new(Job {
                key,
                started: begun.0,
                cancel: Arc::new(AtomicBool::new(false)),
                more: AtomicU32::new(begun.1),
                now: Mutex::new(Now {
                    state: State::Running,
                    nodes: 0,
                    lower: None,
                    upper: None,
                    building: None,
                    ends: Instant::now() + self.time,
                    ended: None,
                }),
            });
            jobs.push_back(job.clone());
            // Forget the oldest finished searches beyond the kept ones.
            while jobs.len() > KEPT_JOBS {
                match jobs.iter().position(|j| j.told().state != Some(State::Running)) {
                    Some(at) => drop(jobs.remove(at)),
                    None => break,
                }
            }
            job
        };
        let (analyzer, limits, background, searched) = (analyzer.clone(), *limits, self.clone(), job.clone());
        let spawned =
            std::thread::Builder::new().name("kalah-background".into()).spawn(move || background.run(&analyzer, limits, &searched, request));
        if spawned.is_err() {
            // No thread: the place it took is free again.
            job.set(State::Failed);
        }
        spawned.is_ok()
    }

    /// Searches until the answer is exact, the time (and any more given)
    /// runs out, or a client stops it. The search sets up as a request of
    /// the server's time limit would (`limits`: the same database, a table
    /// of the same size), not as one of its own time: a larger database
    /// would be built first, with memory to match, and no stop reaches a
    /// build. Its exact answer is kept with the analyzer's answers.
    fn run(&self, analyzer: &crate::answer::analyzer::Analyzer, limits: Limits, job: &Job, request: ApiRequest) {
        let request = ApiRequest { time_limit: None, ..request };
        loop {
            let left = job.now.lock().unwrap_or_else(|e| e.into_inner()).ends.saturating_duration_since(Instant::now());
            let limits =
                Limits { time_limit: left.max(Duration::from_millis(50)), setup_time: Some(limits.time_limit), memory: Memory::Answers, ..limits };
            match api::answer_watched(analyzer, &request, &limits, Some(job.cancel.clone()), &Watch(job)) {
                Ok(report) if report.is_exact() => {
                    let value = report.value();
                    {
                        let mut now = job.now.lock().unwrap_or_else(|e| e.into_inner());
                        (now.lower, now.upper) = (value, value);
                        now.nodes = now.nodes.max(report.nodes);
                    }
                    job.set(State::Exact);
                    return;
                }
                Ok(report) => {
                    let mut now = job.now.lock().unwrap_or_else(|e| e.into_inner());
                    let b = report.analysis.value;
                    now.lower = Some(now.lower.map_or(b.lower, |x| x.max(b.lower)));
                    now.upper = Some(now.upper.map_or(b.upper, |x| x.min(b.upper)));
                    drop(now);
                    if job.cancel.load(Relaxed) {
                        job.set(State::Stopped);
                        return;
                    }
                    // Time left (more may have been given meanwhile): on with the next search.
                    if job.now.lock().unwrap_or_else(|e| e.into_inner()).ends > Instant::now() {
                        continue;
                    }
                    job.set(State::OutOfTime);
                    return;
                }
                Err(e) => {
                    (self.log)(&format!("a background search failed: {e}"));
                    job.set(State::Failed);
                    return;
                }
            }
        }
    }

    /// Stops the search of question `key`, if one runs.
    pub fn stop(&self, key: &str) -> Told {
        match self.find(key) {
            Some(job) => {
                job.cancel.store(true, Relaxed);
                job.told()
            }
            None => Told::none(),
        }
    }

    /// Gives the search of question `key` more time: a running one runs
    /// on, a stopped or finished one (with bounds only) starts again, and
    /// one that never ran (every place was taken when it was answered)
    /// starts, if a place is free. Err with what a client is told if it
    /// may not.
    pub fn more(
        self: &Arc<Self>,
        analyzer: &crate::answer::analyzer::Analyzer,
        limits: &Limits,
        key: &str,
        request: ApiRequest,
    ) -> Result<Told, Told> {
        let Some(job) = self.find(key) else {
            if self.start(analyzer, limits, key.to_string(), request) {
                return Ok(self.told(key));
            }
            return Err(Told::none());
        };
        let told = job.told();
        if !told.more_allowed {
            return Err(told);
        }
        if told.state == Some(State::Running) {
            job.more.fetch_add(1, Relaxed);
            job.now.lock().unwrap_or_else(|e| e.into_inner()).ends += self.time;
            return Ok(job.told());
        }
        // Ended with bounds: a new search (its table may still hold the
        // work of the last), counted as one more, its time counted on.
        let begun = (job.started, job.more.load(Relaxed) + 1);
        {
            let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
            // No free place: it stays as it ended.
            if jobs.iter().filter(|j| j.told().state == Some(State::Running)).count() >= self.slots {
                return Err(told);
            }
            jobs.retain(|j| j.key != key);
        }
        if !self.launch(analyzer, limits, key.to_string(), request, begun) {
            return Err(told);
        }
        Ok(self.find(key).ok_or(told)?.told())
    }
}
