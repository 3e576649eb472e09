//! Searches that go on after a position was answered with bounds only,
//! while someone looks at it (`kalah serve --background`): the bounds
//! close while a client watches ([`Background::told`]; the server's
//! `GET /api/v1/background`), and the exact answer is kept with the
//! analyzer's answers ([`crate::Memory::Answers`]), so the next request
//! for the position gets it at once.
//!
//! Searches follow what people look at. A viewer (a page of the board
//! explorer, named by a token it chose) *follows* the position it shows
//! ([`Background::follow`], about once a second while it shows it): its
//! search runs, or goes on, if a place is free. A viewer follows one
//! position at a time, so following another hands its place over, and a
//! search that no viewer has followed for [`WATCH`] pauses and gives its
//! place up; [`Background::leave`] says a viewer looks at none. A paused
//! or stopped search goes on from what it proved when someone follows it
//! again or gives it more time: it holds its solver and transposition
//! table between runs ([`HeldSearch`]), the last [`HELD`] of them, and its
//! bounds and time are counted on.
//!
//! Bounded: at most `slots` searches run at once (one thread each, beside
//! a door's own), each for `time` in all, which a client may raise by as
//! much again, [`MAX_MORE`] times; a client may stop one. What they leave
//! is kept for the most recent [`KEPT_JOBS`] questions, each followed by
//! at most [`MAX_VIEWERS`] viewers. A question is a position and its rules
//! ([`ApiRequest::question`]); nothing in it names a file.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::answer::analyzer::Analyzer;
use crate::answer::held::HeldSearch;
use crate::answer::request::Memory;
use crate::progress::{Log, Observer, SearchStatus};
use crate::service::api::{self, ApiRequest, Limits};
use crate::service::memory::MemoryBudget;

/// Searches whose state is still told, the least recently used forgotten
/// first (a running one never).
pub const KEPT_JOBS: usize = 64;

/// How many times a client may give a search more time.
pub const MAX_MORE: u32 = 4;

/// How long a viewer that has not followed a search again still counts as
/// looking at it (a page follows about once a second).
pub const WATCH: Duration = Duration::from_secs(5);

/// Viewers a search counts at most (the most recent).
pub const MAX_VIEWERS: usize = 16;

/// Searches that hold their solver and table between runs at most, the
/// most recently run; the others go on from nothing but their bounds.
pub const HELD: usize = 4;

/// The longest viewer token taken (a page's random name for itself).
pub const MAX_VIEWER_LEN: usize = 64;

/// Where a background search is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Searching.
    Running,
    /// No one follows it (or it is waiting for a place): it goes on, from
    /// what it proved, when someone follows it and a place is free.
    Paused,
    /// Done: the answer is exact, and the server gives it at once.
    Exact,
    /// Its time ran out with bounds only (more time goes on).
    OutOfTime,
    /// A client stopped it (following it again, or more time, goes on).
    Stopped,
    /// It failed (the server's log says why).
    Failed,
}

/// What a client is told of a background search (`GET /api/v1/background`).
#[derive(Clone, Debug, Serialize)]
pub struct Told {
    /// `none` when no search of this question runs or ran lately.
    pub state: Option<State>,
    /// Seconds it has searched (in all its runs).
    pub seconds: f64,
    /// Seconds it may still search.
    pub seconds_left: f64,
    /// Nodes searched (in all its runs).
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
    /// How many other searches hold every place (or the server's memory,
    /// `kalah serve --memory`: then 1) while this one waits for one (0
    /// when it does not wait).
    pub waiting: usize,
    /// Whether it holds its solver and transposition table between runs:
    /// its next run goes on from them (else from its bounds alone).
    pub held: bool,
}

impl Told {
    /// No search of the question.
    pub fn none() -> Told {
        Told {
            state: None,
            seconds: 0.0,
            seconds_left: 0.0,
            nodes: 0,
            lower: None,
            upper: None,
            building: None,
            more_allowed: false,
            waiting: 0,
            held: false,
        }
    }
}

/// Whether `viewer` may name a viewer: 1 to [`MAX_VIEWER_LEN`] letters,
/// digits, `-` or `_`.
pub fn valid_viewer(viewer: &str) -> bool {
    (1..=MAX_VIEWER_LEN).contains(&viewer.len()) && viewer.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// One question's background search.
struct Job {
    key: String,
    /// The question, as it was first asked.
    request: ApiRequest,
    /// Its solver and table between runs.
    held: Arc<HeldSearch>,
    /// Times a client gave it more time.
    more: AtomicU32,
    /// Held by the thread of its run under way: a new run waits for the
    /// last to hand its solver back.
    running: Mutex<()>,
    now: Mutex<Now>,
}

struct Now {
    state: State,
    /// Nodes of the runs that ended, and of the run under way so far.
    nodes: u64,
    /// The nodes of the run under way when it was last heard of, and those
    /// it had when first heard of (its solver's count may go on from an
    /// earlier run's).
    run_nodes: Option<(u64, u64)>,
    lower: Option<i32>,
    upper: Option<i32>,
    building: Option<f64>,
    /// Time searched in the runs that ended.
    spent: Duration,
    /// When the run under way began.
    since: Option<Instant>,
    /// The time it may search in all: the first, and each more.
    allowed: Duration,
    /// Counts its runs: a run's thread changes the state only while it is
    /// the last begun.
    run: u64,
    /// Stops the run under way; `why` is what its end is then called.
    cancel: Arc<AtomicBool>,
    why: State,
    /// The viewers that follow it, with when each last did.
    viewers: Vec<(String, Instant)>,
    /// Whether a viewer ever followed it: such a search pauses when no one
    /// looks (one a client started without a viewer runs its time).
    followed: bool,
    /// When a client last asked for it (the least recent is forgotten first).
    used: Instant,
    /// 1 when its last run paused for want of memory (told as waiting
    /// behind one search), else 0.
    waiting: usize,
}

impl Now {
    fn searched(&self) -> Duration {
        self.spent + self.since.map_or(Duration::ZERO, |s| s.elapsed())
    }

    fn left(&self) -> Duration {
        self.allowed.saturating_sub(self.searched())
    }

    /// `viewer` follows it now: the last [`MAX_VIEWERS`] viewers are kept.
    fn followed_by(&mut self, viewer: &str) {
        self.used = Instant::now();
        self.followed = true;
        self.viewers.retain(|(v, _)| v != viewer);
        self.viewers.push((viewer.to_string(), Instant::now()));
        if self.viewers.len() > MAX_VIEWERS {
            self.viewers.remove(0);
        }
    }

    /// Whether a viewer looked at it within [`WATCH`].
    fn watched(&self) -> bool {
        self.viewers.iter().any(|(_, seen)| seen.elapsed() < WATCH)
    }
}

impl Job {
    fn now(&self) -> MutexGuard<'_, Now> {
        self.now.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn told(&self) -> Told {
        let now = self.now();
        let running = now.state == State::Running;
        Told {
            state: Some(now.state),
            seconds: now.searched().as_secs_f64(),
            seconds_left: now.left().as_secs_f64(),
            nodes: now.nodes,
            lower: now.lower,
            upper: now.upper,
            building: now.building.filter(|_| running),
            more_allowed: self.more.load(Relaxed) < MAX_MORE
                && matches!(now.state, State::Running | State::OutOfTime | State::Stopped | State::Paused),
            waiting: now.waiting,
            held: self.held.bytes() > 0,
        }
    }

    /// Stops the run under way, its end called `why`: told so at once, and
    /// its place free (its thread ends within moments, or once the
    /// database it builds is built; a run begun meanwhile waits for it).
    fn cancel(&self, why: State) {
        Job::halt(&mut self.now(), why);
    }

    /// [`Job::cancel`], its state at hand.
    fn halt(now: &mut Now, why: State) {
        if now.state == State::Running {
            now.why = why;
            now.cancel.store(true, Relaxed);
            if let Some(since) = now.since.take() {
                now.spent += since.elapsed();
            }
            now.state = why;
        }
    }

    /// Ends run `run` as `state`, unless another run has begun since.
    fn end(&self, run: u64, state: State) {
        let mut now = self.now();
        if now.run != run {
            return;
        }
        if let Some(since) = now.since.take() {
            now.spent += since.elapsed();
        }
        now.run_nodes = None;
        now.building = None;
        now.state = state;
    }

    /// Narrows its bounds to `lower..upper` (bounds only tighten).
    fn narrow(now: &mut Now, lower: Option<i32>, upper: Option<i32>) {
        if let Some(l) = lower {
            now.lower = Some(now.lower.map_or(l, |x| x.max(l)));
        }
        if let Some(u) = upper {
            now.upper = Some(now.upper.map_or(u, |x| x.min(u)));
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
        self.0.now().building = (done < boards).then(|| done as f64 / boards.max(1) as f64);
    }

    fn searching(&self, _what: &str, status: SearchStatus, _elapsed: Duration, _done: bool) {
        let mut now = self.0.now();
        now.building = None;
        // The run's nodes, counted from its first word (a solver held from
        // an earlier run counts on from that run's).
        let (last, first) = now.run_nodes.unwrap_or((status.nodes, status.nodes));
        now.nodes += status.nodes.saturating_sub(last.max(first));
        now.run_nodes = Some((status.nodes.max(last), first));
        // Bounds only tighten: the values of each move, searched after
        // the position's, say nothing of it.
        Job::narrow(&mut now, status.lower, status.upper);
        // Followed, and no one has looked for a while (a page closed
        // without a word): it pauses, its place free.
        if now.followed && !now.watched() {
            Job::halt(&mut now, State::Paused);
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
    /// The server's memory, and each search's share of it.
    memory: Option<(Arc<MemoryBudget>, u64)>,
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
        Background { slots, time, jobs: Mutex::new(VecDeque::new()), log, memory: None }
    }

    /// These searches, each run held to `share` bytes of the server's
    /// `budget` ([`crate::service::memory`]): a run that finds no room
    /// pauses, told waiting, and goes on when followed again.
    pub fn within(self, budget: Arc<MemoryBudget>, share: u64) -> Background {
        Background { memory: Some((budget, share)), ..self }
    }

    /// Counts what these searches hold between runs as taken in `budget`
    /// ([`MemoryBudget::counting_held`]), let go for a file or a build
    /// that needs the room; the budget does not keep them alive.
    pub fn counted_in(self: &Arc<Self>, budget: &MemoryBudget) {
        let (held, releasing) = (Arc::downgrade(self), Arc::downgrade(self));
        budget.counting_held(
            move || held.upgrade().map_or(0, |b| b.held_bytes()),
            move |to| {
                if let Some(b) = releasing.upgrade() {
                    b.release_held(to)
                }
            },
        );
    }

    /// The memory the searches hold between runs (their solvers' tables).
    pub fn held_bytes(&self) -> u64 {
        self.jobs().iter().map(|j| j.held.bytes() as u64).sum()
    }

    /// Lets go of the solvers held between runs, the least recently used
    /// first, until they hold at most `bytes`.
    pub fn release_held(&self, bytes: u64) {
        let mut holding: Vec<Arc<Job>> = self.jobs().iter().filter(|j| j.held.bytes() > 0).cloned().collect();
        holding.sort_by_key(|j| j.now().used);
        for job in holding {
            if self.held_bytes() <= bytes {
                return;
            }
            job.held.release();
        }
    }

    fn jobs(&self) -> MutexGuard<'_, VecDeque<Arc<Job>>> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn find(jobs: &VecDeque<Arc<Job>>, key: &str) -> Option<Arc<Job>> {
        jobs.iter().find(|j| j.key == key).cloned()
    }

    /// What a client is told of the search of question `key`.
    pub fn told(&self, key: &str) -> Told {
        Background::find(&self.jobs(), key).map_or_else(Told::none, |j| j.told())
    }

    /// The searches running, and whether each may give its place up (no
    /// viewer looks at it any more).
    fn running(jobs: &VecDeque<Arc<Job>>) -> (usize, Vec<Arc<Job>>) {
        let mut count = 0;
        let mut idle = Vec::new();
        for j in jobs {
            let now = j.now();
            if now.state == State::Running {
                count += 1;
                if now.followed && !now.watched() {
                    idle.push(j.clone());
                }
            }
        }
        (count, idle)
    }

    /// `viewer` follows question `key`: it looks at it now, and at no
    /// other. Its search runs, or goes on from what it proved, if a place
    /// is free (one whose search no viewer looks at any more is taken);
    /// otherwise it waits, told `paused` with how many hold the places,
    /// until the viewer follows it again and one is. An exact or failed
    /// search, or one whose time ran out, is told as it is.
    pub fn follow(self: &Arc<Self>, analyzer: &Analyzer, limits: &Limits, key: &str, request: ApiRequest, viewer: &str) -> Told {
        let mut jobs = self.jobs();
        // A viewer looks at one question: the others it followed lose it,
        // and pause if no one else looks.
        for j in jobs.iter().filter(|j| j.key != key) {
            let mut now = j.now();
            now.viewers.retain(|(v, _)| v != viewer);
            let idle = now.state == State::Running && now.followed && !now.watched();
            drop(now);
            if idle {
                j.cancel(State::Paused);
            }
        }
        let job = match Background::find(&jobs, key) {
            Some(job) => job,
            None => self.remember_new(&mut jobs, key, request),
        };
        job.now().followed_by(viewer);
        let (state, left) = {
            let now = job.now();
            (now.state, now.left())
        };
        if matches!(state, State::Paused | State::Stopped) && !left.is_zero() {
            return self.run_or_wait(analyzer, limits, &mut jobs, &job);
        }
        job.told()
    }

    /// Runs `job` if a place is free (taking one whose search no viewer
    /// looks at any more), else tells it waiting.
    fn run_or_wait(self: &Arc<Self>, analyzer: &Analyzer, limits: &Limits, jobs: &mut VecDeque<Arc<Job>>, job: &Arc<Job>) -> Told {
        let (running, idle) = Background::running(jobs);
        if self.slots == 0 {
            return Told { waiting: 0, ..job.told() };
        }
        if running >= self.slots {
            match idle.first() {
                // Its place is handed over once it has stopped (a moment).
                Some(left) => left.cancel(State::Paused),
                None => return Told { waiting: running, ..job.told() },
            }
        }
        self.launch(analyzer, limits, jobs, job);
        job.told()
    }

    /// A new search of `key`, in `state`, for `time`.
    fn new_job(&self, key: &str, request: ApiRequest, state: State) -> Arc<Job> {
        Arc::new(Job {
            key: key.to_string(),
            request,
            held: Arc::default(),
            more: AtomicU32::new(0),
            running: Mutex::new(()),
            now: Mutex::new(Now {
                state,
                nodes: 0,
                run_nodes: None,
                lower: None,
                upper: None,
                building: None,
                spent: Duration::ZERO,
                since: None,
                allowed: self.time,
                run: 0,
                cancel: Arc::new(AtomicBool::new(false)),
                why: State::Stopped,
                viewers: Vec::new(),
                followed: false,
                used: Instant::now(),
                waiting: 0,
            }),
        })
    }

    /// A new paused search of `key`, remembered ([`Background::remember`]).
    fn remember_new(&self, jobs: &mut VecDeque<Arc<Job>>, key: &str, request: ApiRequest) -> Arc<Job> {
        let job = self.new_job(key, request, State::Paused);
        self.remember(jobs, job.clone());
        job
    }

    /// Adds `job`, forgetting the least recently used beyond [`KEPT_JOBS`]
    /// (a running search never).
    fn remember(&self, jobs: &mut VecDeque<Arc<Job>>, job: Arc<Job>) {
        jobs.push_back(job);
        while jobs.len() > KEPT_JOBS {
            let oldest = jobs.iter().enumerate().filter(|(_, j)| j.now().state != State::Running).min_by_key(|(_, j)| j.now().used).map(|(at, _)| at);
            match oldest {
                Some(at) => drop(jobs.remove(at)),
                None => break,
            }
        }
    }

    /// Begins a run of `job` on a thread of its own, and lets go of the
    /// solvers held beyond the [`HELD`] most recently run.
    fn launch(self: &Arc<Self>, analyzer: &Analyzer, limits: &Limits, jobs: &VecDeque<Arc<Job>>, job: &Arc<Job>) {
        let run = {
            let mut now = job.now();
            now.run += 1;
            now.cancel = Arc::new(AtomicBool::new(false));
            now.why = State::Stopped;
            now.state = State::Running;
            now.since = Some(Instant::now());
            now.used = Instant::now();
            now.run_nodes = None;
            now.waiting = 0;
            now.run
        };
        let mut by_use: Vec<&Arc<Job>> = jobs.iter().filter(|j| j.held.bytes() > 0 && !Arc::ptr_eq(j, job)).collect();
        by_use.sort_by_key(|j| std::cmp::Reverse(j.now().used));
        for old in by_use.into_iter().skip(HELD.saturating_sub(1)) {
            if old.now().state != State::Running {
                old.held.release();
            }
        }
        let (analyzer, limits, background, searched) = (analyzer.clone(), limits.clone(), self.clone(), job.clone());
        let spawned = std::thread::Builder::new().name("kalah-background".into()).spawn(move || background.run(&analyzer, limits, &searched, run));
        if spawned.is_err() {
            // No thread: the place it took is free again.
            (self.log)("a background search could not start: no thread for it");
            job.end(run, State::Failed);
        }
    }

    /// Run `run` of `job`: searches until the answer is exact, its time
    /// (and any more given) runs out, or it is stopped or paused. Each
    /// search sets up as a request of the server's time limit would
    /// (`limits`: the same database, a table of the same size), not as one
    /// of its own time: a larger database would be built first, with
    /// memory to match, and no stop reaches a build. It goes on from the
    /// solver the job holds. Its exact answer is kept with the analyzer's
    /// answers.
    fn run(&self, analyzer: &Analyzer, limits: Limits, job: &Job, run: u64) {
        // The last run hands its solver back first.
        let _only = job.running.lock().unwrap_or_else(|e| e.into_inner());
        let request = ApiRequest { time_limit: None, ..job.request.clone() };
        loop {
            let (left, cancel) = {
                let now = job.now();
                if now.run != run {
                    return;
                }
                (now.left(), now.cancel.clone())
            };
            if cancel.load(Relaxed) {
                let why = job.now().why;
                return job.end(run, why);
            }
            if left.is_zero() {
                return job.end(run, State::OutOfTime);
            }
            // Its share of the server's memory, if there is room (its own solver's table counts as its own).
            let reservation = match &self.memory {
                Some((budget, share)) => {
                    let mine = job.held.bytes() as u64;
                    let others = || self.held_bytes().saturating_sub(mine);
                    let release = |to: u64| self.release_held(to + mine);
                    match budget.reserve(*share, analyzer, &others, &release, Duration::ZERO) {
                        Ok(r) => Some(r),
                        // No room: it waits, told so, until followed again.
                        Err(_) => {
                            job.now().waiting = 1;
                            return job.end(run, State::Paused);
                        }
                    }
                }
                None => None,
            };
            let limits = Limits {
                time_limit: left.max(Duration::from_millis(50)),
                setup_time: Some(limits.time_limit),
                memory: Memory::Answers,
                memory_share: reservation.map(|r| Arc::new(r) as Arc<dyn crate::MemoryShare>),
                ..limits.clone()
            };
            let answered = api::answer_held(analyzer, &request, &limits, Some(cancel), &Watch(job), job.held.clone());
            drop(limits);
            match answered {
                Ok(report) => {
                    let b = report.analysis.value;
                    {
                        let mut now = job.now();
                        let (last, first) = now.run_nodes.unwrap_or((0, 0));
                        // The report counts the run's nodes exactly.
                        now.nodes = now.nodes.saturating_sub(last.saturating_sub(first)) + report.nodes;
                        now.run_nodes = Some((first, first));
                        Job::narrow(&mut now, Some(b.lower), Some(b.upper));
                    }
                    if report.is_exact() {
                        job.held.release();
                        return job.end(run, State::Exact);
                    }
                    // Stopped, paused, out of time, or time left (more may
                    // have been given meanwhile): on with the next search.
                }
                Err(e) => {
                    (self.log)(&format!("a background search failed: {e}"));
                    return job.end(run, State::Failed);
                }
            }
        }
    }

    /// `viewer` looks at no question: the searches it followed pause if
    /// no one else looks at them.
    pub fn leave(&self, viewer: &str) -> Told {
        for j in self.jobs().iter() {
            let mut now = j.now();
            let had = now.viewers.len();
            now.viewers.retain(|(v, _)| v != viewer);
            let idle = now.viewers.len() < had && now.state == State::Running && now.followed && !now.watched();
            drop(now);
            if idle {
                j.cancel(State::Paused);
            }
        }
        Told::none()
    }

    /// Stops the search of question `key`: for `viewer` (it no longer
    /// follows it), which stops it if no other viewer looks at it; with no
    /// viewer, whoever looks. It goes on from what it proved when someone
    /// follows it again or gives it more time.
    pub fn stop(&self, key: &str, viewer: Option<&str>) -> Told {
        let Some(job) = Background::find(&self.jobs(), key) else {
            return Told::none();
        };
        let others = {
            let mut now = job.now();
            if let Some(v) = viewer {
                now.viewers.retain(|(x, _)| x != v);
            }
            viewer.is_some() && now.watched()
        };
        if !others {
            job.cancel(State::Stopped);
        }
        job.told()
    }

    /// Gives the search of question `key` more time ([`MAX_MORE`] times):
    /// a running one runs on; a paused, stopped or finished one (with
    /// bounds only) goes on from what it proved, and one that never ran
    /// starts, if a place is free. Err with what a client is told if it
    /// may not, or no place is free.
    pub fn more(self: &Arc<Self>, analyzer: &Analyzer, limits: &Limits, key: &str, request: ApiRequest, viewer: Option<&str>) -> Result<Told, Told> {
        let mut jobs = self.jobs();
        let job = match Background::find(&jobs, key) {
            Some(job) => {
                let told = job.told();
                if !told.more_allowed {
                    return Err(told);
                }
                job.more.fetch_add(1, Relaxed);
                job.now().allowed += self.time;
                job
            }
            None => self.remember_new(&mut jobs, key, request),
        };
        {
            let mut now = job.now();
            match viewer {
                Some(v) => now.followed_by(v),
                None => now.used = Instant::now(),
            }
        }
        if job.now().state == State::Running {
            return Ok(job.told());
        }
        let told = self.run_or_wait(analyzer, limits, &mut jobs, &job);
        if told.state == Some(State::Running) {
            Ok(told)
        } else {
            Err(told)
        }
    }
}
