//! A door's memory: one limit (`kalah serve --memory`) covering every
//! search's transposition table and every database the door holds (built
//! in memory, or a file copied into memory; a file searched over mapped
//! is the system's page cache, which it reclaims, and is not counted).
//!
//! Each search reserves its share before it sets up ([`MemoryBudget::reserve`])
//! and holds to it ([`crate::Request::memory_limit`]): its table at most
//! half, a database built or copied in the rest, a larger file mapped.
//! What the analyzer keeps for later requests, and what paused background
//! searches hold, count as taken until they are let go, which a
//! reservation does first when it needs the room. A search that finds no
//! room waits for one under way to end, then is refused with the reason.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::answer::analyzer::Analyzer;
use kalah_db::human_bytes;

/// The least a search's share may be: a table of 16 MiB and a database
/// of as much.
pub const LEAST: u64 = 32 << 20;

/// A door's memory limit, and the shares of the searches under way.
#[derive(Debug)]
pub struct MemoryBudget {
    limit: u64,
    /// Bytes reserved by the searches under way.
    reserved: Mutex<u64>,
    released: Condvar,
}

/// One search's share, given back when dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<MemoryBudget>,
    bytes: u64,
}

impl Reservation {
    /// The bytes reserved: the request's [`crate::Request::memory_limit`].
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut reserved = self.budget.reserved.lock().unwrap_or_else(|e| e.into_inner());
        *reserved = reserved.saturating_sub(self.bytes);
        self.budget.released.notify_all();
    }
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Arc<MemoryBudget> {
        Arc::new(MemoryBudget { limit, reserved: Mutex::new(0), released: Condvar::new() })
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes the searches under way have reserved.
    pub fn reserved(&self) -> u64 {
        *self.reserved.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reserves `share` bytes for one search, or what is free if less (at
    /// least [`LEAST`]). What `analyzer` keeps and `held()` (other holders:
    /// paused background searches) count as taken; where they leave too
    /// little, the analyzer lets go of what it keeps, then `release(bytes)`
    /// is asked to let its holders go down to `bytes`. If that is not
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
        let deadline = Instant::now() + wait;
        let want = share.clamp(LEAST, self.limit);
        loop {
            // Room for the share: what is kept and held goes first, kept
            // then held. (Asked outside the lock: the analyzer may be busy
            // making what it keeps, and a search that ends must be able to
            // give its share back meanwhile.)
            let room = self.limit.saturating_sub(self.reserved());
            let others = held();
            if analyzer.kept_bytes() + others + want > room {
                analyzer.release_kept(room.saturating_sub(want + others));
            }
            let kept = analyzer.kept_bytes();
            if kept + held() + want > room {
                release(room.saturating_sub(want + kept));
            }
            let taken = analyzer.kept_bytes() + held();
            let mut reserved = self.reserved.lock().unwrap_or_else(|e| e.into_inner());
            let free = self.limit.saturating_sub(*reserved).saturating_sub(taken);
            if free >= LEAST {
                let bytes = free.min(want);
                *reserved += bytes;
                return Ok(Reservation { budget: self.clone(), bytes });
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(format!(
                    "the server's memory ({}) is taken by the searches under way ({} reserved): try again in a few seconds",
                    human_bytes(self.limit),
                    human_bytes(*reserved)
                ));
            }
            // (Looked at again at least five times a second: what is kept may be let go meanwhile.)
            let nap = (deadline - now).min(Duration::from_millis(200));
            drop(self.released.wait_timeout(reserved, nap).unwrap_or_else(|e| e.into_inner()));
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
        // Others that hold memory are asked to let it go.
        drop(second);
        let holding = std::sync::atomic::AtomicU64::new(90 << 20);
        let held = || holding.load(std::sync::atomic::Ordering::Relaxed);
        let release = |to: u64| holding.store(to, std::sync::atomic::Ordering::Relaxed);
        let r = budget.reserve(60 << 20, &analyzer, &held, &release, Duration::ZERO).unwrap();
        assert_eq!((r.bytes(), held()), (60 << 20, 40 << 20));
        assert!(MemoryBudget::new(1 << 20).reserve(1, &analyzer, &none, &nothing, Duration::ZERO).is_err(), "a limit below any search");
    }
}
