//! A door's memory: one limit (`kalah serve --memory`) covering every
//! search's transposition table and every database the door holds: built
//! in memory, copied into memory, or a file searched over mapped (whose
//! pages become the door's as its searches read them: counted whole while
//! the door keeps it mapped).
//!
//! Each search reserves its share before it sets up ([`MemoryBudget::reserve`])
//! and holds to it ([`crate::Request::memory_share`]): its table at most
//! half, a database built or copied in the rest. A search that maps a
//! larger file settles its share on its table first, giving the rest back
//! ([`Reservation::settle`]); the file, kept mapped for the searches after,
//! comes in only where it fits beside everything else
//! ([`Reservation::admit_file`], which waits up to [`SETTLING`] for the
//! searches beside it to settle), counted as kept from then on. A file
//! that does not fit is not used: the search goes on without it, and
//! says so.
//! What the analyzer keeps for later requests (its mapped files among
//! them), and what paused background searches hold, count as taken until
//! they are let go, which a reservation does first when it needs the room
//! (what a search under way uses stays). A search that finds no room waits
//! for one under way to end, then is refused with the reason.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::answer::analyzer::Analyzer;
use crate::limits::MemoryShare;
use kalah_db::human_bytes;

/// The least a search's share may be: a table of 16 MiB and a database
/// of as much.
pub const LEAST: u64 = 32 << 20;

/// The longest a file's admission waits for the searches set up beside
/// it to settle their shares ([`Reservation::admit_file`]; once a share):
/// searches that arrive together reserve whole shares before any knows
/// what it needs.
pub const SETTLING: Duration = Duration::from_millis(250);

/// What a door holds besides its searches' shares and its analyzer's
/// keeping (a server's paused background searches): its bytes, and how to
/// let it go down to some bytes.
struct Held {
    bytes: Box<dyn Fn() -> u64 + Send + Sync>,
    release: Box<dyn Fn(u64) + Send + Sync>,
}

/// A door's memory limit, and the shares of the searches under way.
pub struct MemoryBudget {
    limit: u64,
    /// The shares of the searches under way.
    reserved: Mutex<Shares>,
    released: Condvar,
    /// What else the door holds ([`MemoryBudget::counting_held`]).
    held: OnceLock<Held>,
}

impl std::fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryBudget").field("limit", &self.limit).field("reserved", &self.reserved()).finish()
    }
}

/// The shares of the searches under way: their bytes, and how many have
/// not settled ([`Reservation::settle`]).
#[derive(Debug, Default)]
struct Shares {
    bytes: u64,
    unsettled: usize,
}

/// One search's share, given back when dropped: the request's
/// [`crate::Request::memory_share`].
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<MemoryBudget>,
    bytes: AtomicU64,
    settled: std::sync::atomic::AtomicBool,
    /// Whether an admission has waited for the shares beside it: it waits
    /// once ([`SETTLING`]), the next are answered at once.
    waited: std::sync::atomic::AtomicBool,
}

impl Reservation {
    /// The bytes reserved ([`MemoryShare::bytes`]).
    pub fn bytes(&self) -> u64 {
        MemoryShare::bytes(self)
    }
}

impl MemoryShare for Reservation {
    fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    fn settle(&self, needed: u64) {
        let mut shares = self.budget.shares();
        if !self.settled.swap(true, Ordering::Relaxed) {
            shares.unsettled -= 1;
        }
        let mine = self.bytes.load(Ordering::Relaxed);
        let kept = needed.min(mine);
        shares.bytes -= mine - kept;
        self.bytes.store(kept, Ordering::Relaxed);
        self.budget.released.notify_all();
    }

    fn admit_file(&self, file: u64, kept: u64) -> bool {
        // (Asked before the lock: what is held is counted under locks of its own.)
        let held = self.budget.held();
        let deadline = Instant::now() + if self.waited.swap(true, Ordering::Relaxed) { Duration::ZERO } else { SETTLING };
        let mut shares = self.budget.shares();
        loop {
            let taken = shares.bytes.saturating_add(kept).saturating_add(held);
            if taken.saturating_add(file) <= self.budget.limit {
                return true;
            }
            // Searches that reserved beside it and have not settled may
            // give most of their shares back in a moment.
            let unsettled = shares.unsettled - usize::from(!self.settled.load(Ordering::Relaxed));
            let now = Instant::now();
            if unsettled == 0 || now >= deadline {
                return false;
            }
            shares = self.budget.released.wait_timeout(shares, deadline - now).unwrap_or_else(|e| e.into_inner()).0;
        }
    }

    fn release_held(&self) -> bool {
        let before = self.budget.held();
        self.budget.release_held_to(0);
        self.budget.held() < before
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut shares = self.budget.shares();
        shares.bytes -= self.bytes.load(Ordering::Relaxed);
        if !self.settled.load(Ordering::Relaxed) {
            shares.unsettled -= 1;
        }
        self.budget.released.notify_all();
    }
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Arc<MemoryBudget> {
        Arc::new(MemoryBudget { limit, reserved: Mutex::default(), released: Condvar::new(), held: OnceLock::new() })
    }

    /// Counts `held()` as taken whenever a file asks to come in
    /// ([`Reservation::admit_file`]): what the door holds besides the
    /// shares and its analyzer's keeping (a server's paused background
    /// searches); `release(bytes)` lets it go down to `bytes` where a file
    /// would not fit otherwise ([`Reservation::release_held`]). Set once;
    /// a second call is ignored.
    pub fn counting_held(&self, held: impl Fn() -> u64 + Send + Sync + 'static, release: impl Fn(u64) + Send + Sync + 'static) {
        let _ = self.held.set(Held { bytes: Box::new(held), release: Box::new(release) });
    }

    fn held(&self) -> u64 {
        self.held.get().map_or(0, |held| (held.bytes)())
    }

    fn release_held_to(&self, bytes: u64) {
        if let Some(held) = self.held.get() {
            (held.release)(bytes);
        }
    }

    fn shares(&self) -> std::sync::MutexGuard<'_, Shares> {
        self.reserved.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes the searches under way have reserved.
    pub fn reserved(&self) -> u64 {
        self.shares().bytes
    }

    /// Reserves `share` bytes for one search, or what is free if less (at
    /// least [`LEAST`]). What `analyzer` keeps and `held()` (other holders:
    /// paused background searches) count as taken; where they leave less
    /// than half the share, the analyzer lets go of what it keeps, then
    /// `release(bytes)` is asked to let its holders go down to `bytes`. If that is not
    /// enough, it waits up to `wait` for a search under way to end. Err
    /// with the reason a client is told.
    pub fn reserve(
        self: &Arc<Self>,
        share: u64,
        analyzer: &Analyzer,
        held: &dyn Fn() -> u64,
        release: &dyn Fn(u64),
        wait: Duration,
    ) -> Result<Reservation, String> {
        if self.limit < LEAST {
            return Err(format!("the server's memory limit ({}) is below what a search needs ({})", human_bytes(self.limit), human_bytes(LEAST)));
        }
        self.reserve_between(LEAST, share.clamp(LEAST, self.limit), analyzer, held, release, wait)
    }

    /// Reserves `bytes` whole, for a database the door builds (`kalah serve
    /// --prepare`), as [`MemoryBudget::reserve`] does a search's share:
    /// what is kept and held ([`MemoryBudget::counting_held`]) let go where
    /// it leaves too little, waiting up to `wait` for searches under way to
    /// end. Err at once where `bytes` is more than the limit.
    pub fn reserve_whole(self: &Arc<Self>, bytes: u64, analyzer: &Analyzer, wait: Duration) -> Result<Reservation, String> {
        if bytes > self.limit {
            return Err(format!("it needs {} of memory, more than the server's limit ({})", human_bytes(bytes), human_bytes(self.limit)));
        }
        let whole = self.reserve_between(bytes, bytes, analyzer, &|| self.held(), &|to| self.release_held_to(to), wait)?;
        // Settled from the start: no file's admission waits for it.
        whole.settle(bytes);
        Ok(whole)
    }

    /// At most `want` bytes, at least `least`: see [`MemoryBudget::reserve`].
    fn reserve_between(
        self: &Arc<Self>,
        least: u64,
        want: u64,
        analyzer: &Analyzer,
        held: &dyn Fn() -> u64,
        release: &dyn Fn(u64),
        wait: Duration,
    ) -> Result<Reservation, String> {
        let deadline = Instant::now() + wait;
        // What is kept is let go only for a share below half of the one
        // wanted: a search over a kept mapped file (and a kept solver's
        // table) is worth more than a larger table.
        let enough = (want / 2).max(least);
        loop {
            // Room for the share: what is kept and held goes first, kept
            // then held. (Asked outside the lock: the analyzer may be busy
            // making what it keeps, and a search that ends must be able to
            // give its share back meanwhile.)
            let room = self.limit.saturating_sub(self.reserved());
            let others = held();
            if analyzer.kept_bytes() + others + enough > room {
                analyzer.release_kept(room.saturating_sub(enough + others));
            }
            let kept = analyzer.kept_bytes();
            if kept + held() + enough > room {
                release(room.saturating_sub(enough + kept));
            }
            let taken = analyzer.kept_bytes() + held();
            let mut shares = self.shares();
            let free = self.limit.saturating_sub(shares.bytes).saturating_sub(taken);
            if free >= least {
                let bytes = free.min(want);
                shares.bytes += bytes;
                shares.unsettled += 1;
                return Ok(Reservation {
                    budget: self.clone(),
                    bytes: AtomicU64::new(bytes),
                    settled: Default::default(),
                    waited: Default::default(),
                });
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(format!(
                    "the server's memory ({}) is taken by the searches under way ({} reserved): try again in a few seconds",
                    human_bytes(self.limit),
                    human_bytes(shares.bytes)
                ));
            }
            // (Looked at again at least five times a second: what is kept may be let go meanwhile.)
            let nap = (deadline - now).min(Duration::from_millis(200));
            drop(self.released.wait_timeout(shares, nap).unwrap_or_else(|e| e.into_inner()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::databases::Databases;

    /// Shares are given while there is room, smaller when less is left,
    /// refused (after the wait) when none is, and given back when dropped.
    #[test]
    fn shares_are_reserved_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let analyzer = Analyzer::keeping(Databases::new(dir.path()));
        let budget = MemoryBudget::new(100 << 20);
        let none = || 0;
        let nothing = |_: u64| {};
        let first = budget.reserve(60 << 20, &analyzer, &none, &nothing, Duration::ZERO).unwrap();
        assert_eq!(first.bytes(), 60 << 20);
        let second = budget.reserve(60 << 20, &analyzer, &none, &nothing, Duration::ZERO).unwrap();
        assert_eq!(second.bytes(), 40 << 20, "what is left");
        let refused = budget.reserve(60 << 20, &analyzer, &none, &nothing, Duration::from_millis(50)).unwrap_err();
        assert!(refused.contains("taken by the searches under way"), "{refused}");
        drop(first);
        assert_eq!(budget.reserve(60 << 20, &analyzer, &none, &nothing, Duration::ZERO).unwrap().bytes(), 60 << 20);
        // Others that hold memory are asked to let it go where they leave
        // less than half the share wanted, down to that half; not where
        // they leave more.
        drop(second);
        let holding = std::sync::atomic::AtomicU64::new(90 << 20);
        let held = || holding.load(std::sync::atomic::Ordering::Relaxed);
        let release = |to: u64| holding.store(to, std::sync::atomic::Ordering::Relaxed);
        let r = budget.reserve(80 << 20, &analyzer, &held, &release, Duration::ZERO).unwrap();
        assert_eq!((r.bytes(), held()), (40 << 20, 60 << 20));
        drop(r);
        let r = budget.reserve(60 << 20, &analyzer, &held, &release, Duration::ZERO).unwrap();
        assert_eq!((r.bytes(), held()), (40 << 20, 60 << 20), "40 left of 60 wanted: nothing let go");
        assert!(MemoryBudget::new(1 << 20).reserve(1, &analyzer, &none, &nothing, Duration::ZERO).is_err(), "a limit below any search");
    }

    /// A build's memory is reserved whole or not at all: refused at once
    /// beyond the limit, waited for while searches hold the room, taken
    /// as soon as they give it back; settled from the start.
    #[test]
    fn a_build_reserves_its_memory_whole() {
        let dir = tempfile::tempdir().unwrap();
        let analyzer = Analyzer::keeping(Databases::new(dir.path()));
        let budget = MemoryBudget::new(1000 << 20);
        let none = || 0;
        let nothing = |_: u64| {};
        assert!(budget.reserve_whole(1001 << 20, &analyzer, Duration::ZERO).unwrap_err().contains("more than the server's limit"));
        let search = budget.reserve(300 << 20, &analyzer, &none, &nothing, Duration::ZERO).unwrap();
        assert!(budget.reserve_whole(800 << 20, &analyzer, Duration::from_millis(50)).is_err(), "700 free: not a part");
        let build = std::thread::scope(|s| {
            let waiting = s.spawn(|| budget.reserve_whole(800 << 20, &analyzer, Duration::from_secs(10)));
            std::thread::sleep(Duration::from_millis(50));
            drop(search);
            waiting.join().unwrap().unwrap()
        });
        assert_eq!((build.bytes(), budget.reserved()), (800 << 20, 800 << 20));
        let beside = budget.reserve(300 << 20, &analyzer, &none, &nothing, Duration::ZERO).unwrap();
        assert_eq!(beside.bytes(), 200 << 20, "a search beside it shares the rest");
        // Settled: an admission does not wait for it.
        let asked = Instant::now();
        assert!(!beside.admit_file(150 << 20, 0));
        assert!(asked.elapsed() < SETTLING, "waited for a build");
    }

    /// A file comes into a share where it fits beside the other shares,
    /// what is kept and what is held, once the share has settled on its
    /// table; an admission waits for the shares beside it to settle.
    #[test]
    fn a_file_is_admitted_where_it_fits_beside_the_settled_shares() {
        let dir = tempfile::tempdir().unwrap();
        let analyzer = Analyzer::keeping(Databases::new(dir.path()));
        let budget = MemoryBudget::new(1000 << 20);
        budget.counting_held(|| 100 << 20, |_| {});
        let none = || 0;
        let nothing = |_: u64| {};
        let other = budget.reserve(300 << 20, &analyzer, &none, &nothing, Duration::ZERO).unwrap();
        let mine = budget.reserve(300 << 20, &analyzer, &none, &nothing, Duration::ZERO).unwrap();
        mine.settle(64 << 20);
        assert_eq!((mine.bytes(), budget.reserved()), (64 << 20, 364 << 20), "settled: the rest given back");
        // 300 other + 64 mine + 100 held + 50 kept + 550 file > 1000: the
        // other share has not settled, which it does within the wait.
        let admitted = std::thread::scope(|s| {
            let admitting = s.spawn(|| mine.admit_file(550 << 20, 50 << 20));
            std::thread::sleep(Duration::from_millis(20));
            other.settle(32 << 20);
            admitting.join().unwrap()
        });
        assert!(admitted, "32 + 64 + 100 + 50 + 550 = 796");
        // 32 + 64 + 100 + 50 + 800 > 1000: refused at once, all settled.
        let asked = Instant::now();
        assert!(!other.admit_file(800 << 20, 50 << 20));
        assert!(asked.elapsed() < SETTLING, "nothing to wait for");
        // With a share beside it unsettled, an admission that has waited
        // once is refused at once.
        let third = budget.reserve(100 << 20, &analyzer, &none, &nothing, Duration::ZERO).unwrap();
        let asked = Instant::now();
        assert!(!mine.admit_file(700 << 20, 50 << 20));
        assert!(asked.elapsed() < SETTLING, "waited once already");
        drop(third);
        drop(mine);
        assert_eq!(budget.reserved(), 32 << 20, "given back");
        drop(other);
        assert_eq!(budget.reserved(), 0);
    }
}
