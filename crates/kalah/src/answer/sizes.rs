//! How large what answers a position may be: the transposition table's
//! default size (for a search, a proof of bounds), the database a search
//! builds in memory by default, whether retrograde analysis fits and when
//! bounds are proven instead; each checked against the memory available
//! and refused up front, with the figures, when it does not fit.

use std::time::Duration;

use kalah_core::{boards_up_to, Rules};
use kalah_db::{human_bytes, Database};
use kalah_search::SearchOptions;

use crate::databases::{copied_into_memory, table_mb_within, DbHold, DbSpec, SetupBudget};
use crate::error::{Error, Field, Result};
use crate::text::a_size;

/// The default transposition table size in MiB for positions of `h`
/// houses with `seeds` seeds in their houses, searched with a database of
/// `db_seeds` seeds if any. Small searches do not need, and should not pay
/// for, a large table: its pages are zeroed when first touched, about 0.1
/// to 1.5 s a GiB on this project's test machine. With a database the
/// search stores only boards several seeds above it, so what counts is how
/// far above it the position is: Kalah(6,5) with the 30-seed database
/// searches as fast with 256 MiB as with 1 GiB, Kalah(6,4) with the
/// 20-seed one (28 seeds above it) faster with 128 MiB than with 256, and
/// Kalah(6,5) with the 24-seed one (36 above) fastest with 256 MiB:
/// 32.6-36.3 s against 37.0-42.1 s with 1 GiB, whose pages cost seconds of
/// system time (BENCHMARKS.md).
///
/// The size is then raised to what the keys' fields need where that is
/// small.
///
/// With no database the tiers are those of six houses by seeds; fewer
/// houses hold far fewer boards of as many seeds, and take the tier of six
/// houses holding as many boards (Kalah(4,3), 24 seeds: 10.5 million
/// boards, fewer than six houses hold with 16 seeds, so 16 MiB where six
/// houses take 64). Its searches take 41 thousand nodes: a 64 MiB table
/// was a thousand times more than they fill, and its clearing most of the
/// system time of a batch of such positions (BENCHMARKS.md).
pub fn default_tt_mb(h: usize, seeds: u32, db_seeds: Option<u32>) -> usize {
    // The tiers, by the seeds of six houses.
    const TIERS: [(u32, usize); 3] = [(16, 16), (24, 64), (36, 256)];
    let mb = match db_seeds {
        None => {
            let by_seeds = TIERS.iter().find(|&&(n, _)| seeds <= n).map_or(1024, |&(_, mb)| mb);
            let by_boards = if h < 6 {
                // C(seeds + 2h, 2h), in u128 (no overflow below 6 houses).
                let boards = (1..=2 * h as u128).fold(1u128, |c, k| c * (u128::from(seeds) + k) / k);
                TIERS.iter().find(|&&(n, _)| boards <= u128::from(boards_up_to(6, n))).map_or(1024, |&(_, mb)| mb)
            } else {
                by_seeds
            };
            by_seeds.min(by_boards)
        }
        Some(n) => match seeds.saturating_sub(n) {
            0..=28 => 64,
            29..=38 => 256,
            _ => 1024,
        },
    };
    fields_floor(h, mb)
}

/// A default table size `mb` for `h` houses, raised to what the keys'
/// fixed fields need if it is at least 64 MiB and they need at most 128
/// (five and six houses). A smaller table takes unary keys
/// ([`SearchOptions::keys`]), which cost 5-8% of a search's time
/// (Kalah(6,4) over the 20-seed database, one thread: 64 MiB of unary
/// keys against 128 MiB of fields, BENCHMARKS.md): worth it for the small
/// tables of small searches only.
pub fn fields_floor(h: usize, mb: usize) -> usize {
    let fields = SearchOptions::fields_mb(h);
    if mb >= 64 && fields <= 128 {
        mb.max(fields)
    } else {
        mb
    }
}

/// The transposition table of a proof of bounds more than
/// [`BOUNDS_SMALL_GAP`] seeds above its database, in MiB (else 64), given
/// at least [`BOUNDS_SHORT`]: such a proof often runs to its time limit,
/// and a large table pays. Clockwise Kalah(5,3) over a 20-seed database,
/// 60 s, two threads: 0..+4 with 1 GiB, -2..+6 with 64 MiB (the value is 0).
const BOUNDS_TT_MB: usize = 1024;
/// See [`BOUNDS_TT_MB`].
const BOUNDS_SMALL_GAP: u32 = 8;
/// A proof of bounds given less time than this gets a table of
/// [`BOUNDS_SHORT_TT_MB`]: it cannot fill a larger one, whose pages the
/// kernel would clear as they are first touched, on the search's time.
/// Clockwise Kalah(6,4), no database, 2 s: 256 MiB searched 13.0-16.1 M
/// nodes to 1 GiB's 3.8-11.4 M (0.03 s of system time to 0.7-2.8 s) and
/// proved as narrow bounds or narrower; 10 s: 43-66 M nodes to 43-54 M,
/// the same bounds within one step (BENCHMARKS.md).
const BOUNDS_SHORT: Duration = Duration::from_secs(15);
/// See [`BOUNDS_SHORT`].
const BOUNDS_SHORT_TT_MB: usize = 256;

/// The default table, in MiB, of a proof of bounds on `h` houses of boards
/// of up to `seeds` seeds over an `n`-seed database that may take `limit`
/// (64 MiB up to 8 seeds above it, else 256 MiB under 15 s, 1 GiB from
/// then on), raised to what the keys' fields need ([`fields_floor`]), and
/// cut to what the search can clear in its time ([`table_mb_within`]).
pub fn bounds_tt_mb(h: usize, seeds: u32, n: u32, limit: Duration) -> usize {
    let mb = if seeds <= n + BOUNDS_SMALL_GAP {
        64
    } else if limit < BOUNDS_SHORT {
        BOUNDS_SHORT_TT_MB
    } else {
        BOUNDS_TT_MB
    };
    fields_floor(h, mb).min(table_mb_within(limit))
}

/// The database a proof of bounds builds by default has at most this many
/// seeds and [`BOUNDS_DB_BOARDS`] boards: 20 seeds for six houses is built
/// by retrograde analysis in 26 s (relay off) to 48 s (relay on) on two
/// cores. A smaller one saves that time but costs the proof more:
/// clockwise Kalah(6,3) with relay meets in 3.2 s over 20 seeds, and not
/// within 30 s over 16 or 12. A larger one costs more than it saves:
/// clockwise Kalah(5,4) with relay, 20 seeds: 5.6 s to build, 1.2 s to
/// prove; 25 seeds: 101 s and 14 s (the machine loaded).
pub const BOUNDS_DB_SEEDS: u32 = 20;
/// See [`BOUNDS_DB_SEEDS`].
pub const BOUNDS_DB_BOARDS: u64 = 250_000_000;

/// The default time a proof of bounds may take for one position.
pub const BOUNDS_TIME: Duration = Duration::from_secs(60);

/// Positions with fewer seeds are searched without a database built in
/// memory by default: it would not pay for its building (see
/// [`default_memory_seeds`]).
const MEMORY_DB_FROM: u32 = 46;
/// The default database built in memory for the value alone of a
/// six-house position covers this many seeds fewer than the position has
/// ([`default_memory_seeds`]), and at most [`MEMORY_DB_MAX_SEEDS`].
const MEMORY_DB_BELOW: u32 = 30;
const MEMORY_DB_MAX_SEEDS: u32 = 24;
/// ... and at most this many boards (a byte each; about 26 s on two cores).
const MEMORY_DB_MAX_BOARDS: u64 = 1_300_000_000;

/// What the searches over a database built in memory are asked for,
/// which sizes it ([`default_memory_seeds`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchWork {
    /// The value of a position (or bounds on it).
    Value,
    /// Every move's value or a line of best play, or many positions'
    /// values (the openings, a game): several searches as large as the
    /// value's.
    Analysis,
}

/// The seeds of the database a search of a position with `seeds` seeds on
/// `h` houses builds in memory by default when no database file is used:
/// on six houses or more `seeds - 30` for the value alone, two more for
/// an analysis; two more for each house fewer than six; at most 24 seeds
/// and 1.3 billion boards, none for positions of fewer than 46 seeds.
/// The best size is about the one whose building takes as long as the
/// search over it; a small one costs nodes (the search keeps boards just
/// above a database out of its table). The measurements behind these
/// sizes, on Kalah(6,4), Kalah(5,5) and Kalah(4,6): BENCHMARKS.md,
/// "Databases built in memory by `solve`".
/// Under a time limit, at most `max_boards` boards ([`SetupBudget`]).
pub fn default_memory_seeds(h: usize, seeds: u32, work: SearchWork, max_boards: u64) -> Option<u32> {
    if seeds < MEMORY_DB_FROM {
        return None;
    }
    let fewer_houses = 6usize.saturating_sub(h) as u32;
    let below = MEMORY_DB_BELOW - 2 * fewer_houses - if work == SearchWork::Analysis { 2 } else { 0 };
    let mut n = (seeds - below).min(MEMORY_DB_MAX_SEEDS);
    while n > 0 && boards_up_to(h, n) > MEMORY_DB_MAX_BOARDS.min(max_boards) {
        n -= 1;
    }
    (n > 0).then_some(n)
}

/// Memory a search may take without asking the system what is available.
const SMALL_MEMORY: u64 = 64 << 20;

/// Refuses a transposition table of `bytes` that does not fit in the memory available.
pub fn check_table_memory(bytes: u64) -> Result<()> {
    check_search_memory(bytes, None, DbHold::Auto)
}

/// Refuses transposition tables of `bytes` each that `copies` processes
/// of this machine (the ranks of a shared search) cannot hold together.
pub fn check_tables_memory(bytes: u64, copies: usize) -> Result<()> {
    if copies <= 1 {
        return check_table_memory(bytes);
    }
    let total = bytes.saturating_mul(copies as u64);
    match kalah_db::writer::available_memory() {
        Some(available) if total > available => Err(Error::refused(format!(
            "{copies} processes on this machine with {} transposition table each need {}: {} of memory is available",
            a_size(bytes),
            human_bytes(total),
            human_bytes(available)
        ))
        .about(Field::TtMb)),
        _ => Ok(()),
    }
}

/// Refuses a transposition table of `bytes` that does not fit in the
/// memory available next to `db`, if the search will copy it into memory
/// as `hold` says ([`for_search_held`](crate::databases::for_search_held):
/// by default when it takes less than half the memory; always when told
/// to copy it, which is refused here where the copy does not fit).
pub fn check_search_memory(bytes: u64, db: Option<&Database>, hold: DbHold) -> Result<()> {
    // What any machine this runs on has: many small searches do not each
    // read the system's memory figures.
    if bytes.saturating_add(db.map_or(0, Database::file_bytes)) <= SMALL_MEMORY {
        return Ok(());
    }
    let Some(available) = kalah_db::writer::available_memory() else {
        return Ok(());
    };
    let loaded = db.map_or(0, |d| if copied_into_memory(d.file_bytes(), hold, u64::MAX, 1, available) { d.file_bytes() } else { 0 });
    if bytes.saturating_add(loaded) > available {
        let asked = if hold == DbHold::Copied { " (as asked: --db-load copied)" } else { "" };
        let next_to = if loaded > 0 {
            format!(" next to the {} database copied into memory{asked}, {} in all", human_bytes(loaded), human_bytes(bytes.saturating_add(loaded)))
        } else {
            String::new()
        };
        return Err(Error::refused(format!(
            "{} transposition table does not fit{next_to}: {} of memory is available",
            a_size(bytes),
            human_bytes(available)
        ))
        .about(Field::TtMb));
    }
    Ok(())
}

/// Whether retrograde analysis of every board of `h` houses with up to
/// `seeds` seeds fits in the memory available.
pub fn retrograde_fits(h: usize, seeds: u32, rules: Rules) -> bool {
    let free = kalah_db::writer::available_memory().unwrap_or(u64::MAX);
    seeds <= kalah_db::builder::MAX_SEEDS && kalah_db::builder::memory_needed(h, seeds, rules) <= free
}

/// Whether a position of `h` houses with `seeds` seeds under `rules` (not
/// covered by a database file) is answered by proofs of bounds
/// ([`Setup::bound_solver`](crate::answer::setup::Setup::bound_solver)) rather than retrograde analysis: clockwise,
/// when retrograde analysis of its seeds does not fit, would take longer
/// than the time limit `budget` is for ([`SetupBudget::answer_boards`]),
/// or the spec asks for a database of fewer seeds.
pub fn proves_bounds(h: usize, seeds: u32, rules: Rules, spec: &DbSpec, budget: SetupBudget) -> bool {
    rules.may_cycle()
        && (spec.build_seeds.is_some_and(|n| n < seeds) || !retrograde_fits(h, seeds, rules) || boards_up_to(h, seeds) > budget.answer_boards)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Six houses and more by seeds; fewer houses by the boards they hold,
    /// never above what their seeds say.
    #[test]
    fn the_default_table_follows_the_boards_of_the_position() {
        let no_db = |h, seeds| default_tt_mb(h, seeds, None);
        assert_eq!(
            (no_db(6, 16), no_db(6, 17), no_db(6, 24), no_db(6, 36), no_db(6, 37)),
            (16, fields_floor(6, 64), fields_floor(6, 64), fields_floor(6, 256), 1024)
        );
        assert_eq!(no_db(8, 16), 16, "eight houses: by seeds");
        assert_eq!(no_db(4, 24), 16, "Kalah(4,3): 10.5 million boards");
        assert_eq!(no_db(4, 32), fields_floor(4, 64), "Kalah(4,4): 225 million boards");
        assert_eq!(no_db(5, 40), fields_floor(5, 256), "Kalah(5,4)");
        assert_eq!(no_db(1, 2000), 16, "one house: few boards");
        assert_eq!(no_db(5, 2550), 1024, "no overflow");
        assert_eq!(default_tt_mb(4, 24, Some(10)), fields_floor(4, 64), "with a database: unchanged");
    }

    #[test]
    fn the_default_database_built_in_memory_is_sized_by_the_position() {
        let all = u64::MAX;
        let value = |h, seeds, max_boards| default_memory_seeds(h, seeds, SearchWork::Value, max_boards);
        let analysis = |h, seeds| default_memory_seeds(h, seeds, SearchWork::Analysis, all);
        assert_eq!(value(6, 45, all), None, "below 46 seeds none");
        assert_eq!(analysis(6, 45), None, "below 46 seeds none");
        assert_eq!(value(6, 46, all), Some(16));
        assert_eq!(value(6, 48, all), Some(18), "Kalah(6,4)");
        assert_eq!(analysis(6, 48), Some(20), "Kalah(6,4), every move");
        assert_eq!(value(5, 50, all), Some(22), "Kalah(5,5)");
        assert_eq!(analysis(5, 50), Some(24), "Kalah(5,5), every move");
        assert_eq!(analysis(4, 48), Some(24), "Kalah(4,6), every move");
        assert_eq!(value(6, 60, all), Some(24), "Kalah(6,5): at most 24 seeds");
        assert_eq!(analysis(6, 72), Some(24));
        // Under a time limit, at most the boards its share builds.
        let budget = |t: f64| SetupBudget::within(Some(Duration::from_secs_f64(t)), 2).build_boards;
        assert_eq!(value(6, 48, budget(1000.0)), Some(18), "a long limit changes nothing");
        let n = value(8, 48, budget(5.0)).unwrap();
        assert!(boards_up_to(8, n) <= budget(5.0) && boards_up_to(8, n + 1) > budget(5.0), "8 houses, 5 s: {n}");
        assert_eq!(value(6, 48, 0), None, "nothing fits: none");
        // Eight houses: 17 seeds are 1.17 billion boards, 18 seeds 2.2 billion.
        assert_eq!(value(8, 64, all), Some(17));
        for (h, seeds) in [(1, 200), (4, 100), (7, 90), (8, 128)] {
            for work in [SearchWork::Value, SearchWork::Analysis] {
                let n = default_memory_seeds(h, seeds, work, all).unwrap();
                assert!(boards_up_to(h, n) <= MEMORY_DB_MAX_BOARDS, "h={h} seeds={seeds}: {n}");
                assert!(n <= MEMORY_DB_MAX_SEEDS && n + 18 <= seeds);
            }
        }
    }
}
