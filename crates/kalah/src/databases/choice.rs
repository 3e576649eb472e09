//! Which database a request uses ([`DbSpec`]), and which file of the
//! folder a position gets ([`Databases::choose`]: see the module docs of
//! [`crate::databases`]), within what setting it up may cost
//! ([`SetupBudget`]).

use std::path::PathBuf;
use std::time::Duration;

use kalah_core::Rules;
use kalah_db::{human_bytes, Database};

use crate::databases::folder::{Databases, FoundFile};
use crate::databases::loading::DbHold;
use crate::error::{Error, ErrorKind, Result};
use crate::progress::Observer;

/// The default file for a position ([`Databases::choose`]), and the one
/// the budget passed over for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Choice {
    /// The file chosen, if any.
    pub path: Option<PathBuf>,
    /// The file chosen without the budget, and its bytes, when the budget
    /// passed it over.
    pub passed_over: Option<(PathBuf, u64)>,
}

/// What a default database is chosen for: positions of `houses` houses
/// under `rules` with up to `seeds` seeds in their houses, which a file
/// at most `gap` seeds below serves better than a larger one
/// ([`VALUE_LOAD_GAP`], [`ANALYSIS_LOAD_GAP`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Purpose {
    /// Houses a side.
    pub houses: usize,
    /// The rules.
    pub rules: Rules,
    /// Seeds in the houses of the largest position.
    pub seeds: u32,
    /// How far below the position a smaller file is preferred.
    pub gap: u32,
}

/// Which database a request uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DbSpec {
    /// Which file.
    pub file: DbFile,
    /// Build a database of up to this many seeds in memory first, unless a
    /// file covers them (0: never). `None`: one sized by the position when
    /// no file is used. Not with [`DbFile::None`].
    pub build_seeds: Option<u32>,
    /// How a file backs a search: copied into memory or mapped
    /// ([`DbHold`]; by default as it fits). A keeping analyzer searches
    /// over the file it keeps as it is held; a copy asked for
    /// ([`DbHold::Copied`]) is the request's own.
    pub hold: DbHold,
}

/// Which database file a request uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DbFile {
    /// The folder's choice for the position ([`Databases::choose`]), if it
    /// has one.
    #[default]
    Default,
    /// This file, whatever its size.
    Named(PathBuf),
    /// No database at all: no file, and none built in memory.
    None,
}

impl DbSpec {
    /// No database at all.
    pub fn none() -> DbSpec {
        DbSpec { file: DbFile::None, build_seeds: None, hold: DbHold::Auto }
    }

    /// The file at `path`, whatever the folder holds.
    pub fn file(path: impl Into<PathBuf>) -> DbSpec {
        DbSpec { file: DbFile::Named(path.into()), build_seeds: None, hold: DbHold::Auto }
    }

    /// Whether no database at all is asked.
    pub fn is_none(&self) -> bool {
        self.file == DbFile::None
    }
}

/// Seeds a search for a value (or a best move) may lie above the database
/// backing it for a smaller default database to serve it better than a
/// larger one: the larger costs more to load whole than it saves (the
/// measurements: BENCHMARKS.md, "Which default database").
pub const VALUE_LOAD_GAP: u32 = 24;

/// [`VALUE_LOAD_GAP`] for the searches of every move's value and a
/// principal variation, or of many openings, which search several times
/// as many nodes, so that a larger database pays sooner (the
/// measurements: BENCHMARKS.md, "Which default database").
pub const ANALYSIS_LOAD_GAP: u32 = 18;

/// Under a time limit, the share of the limit that loading or building
/// the default database may take (reckoned from its size, before it is
/// chosen): a search asked to take 5 s does not wait a minute for its
/// database first. A database named by [`DbSpec::file`] or sized by
/// [`DbSpec::build_seeds`] is used as asked, and a file that covers the
/// position is probed, not loaded, whatever its size.
const SETUP_SHARE: f64 = 0.25;

/// Bytes a second a database file loads at, reckoned low: on the Intel
/// machine the 24-seed file (1.25 GB) loaded in 1.57 s from disk and
/// 0.76 s from the page cache, and the 30-seed one (11 GB) took 15-42 s
/// where memory was short for it and its page cache together.
const LOAD_BYTES_PER_SECOND: f64 = 0.5e9;

/// Boards a second and thread a database builds at in memory, reckoned
/// low: the 20-seed one (226 M boards) took 9.9 s to file on two threads
/// of the Intel machine, about 11 M boards a second and thread.
const BUILD_BOARDS_PER_SECOND: f64 = 10e6;

/// Boards a second and thread clockwise retrograde analysis builds at,
/// reckoned low: the 20-seed database of six houses (226 M boards) took
/// 68 s on two threads of the Intel machine, 1.7 M boards a second and
/// thread (with relay it is slower: 26 s against 48 s on the first
/// machine).
const RETROGRADE_BOARDS_PER_SECOND: f64 = 0.8e6;

/// MiB of default transposition table a search may have for every second
/// of its time limit. Memory first touched is cleared by the kernel on the
/// search's time, 1-9 ms a MiB on the virtual machine measured
/// (BENCHMARKS.md, "A table the time limit can fill"). This much is what a quarter of the limit clears at 4 ms a MiB.
pub const TABLE_MB_PER_SECOND: f64 = 64.0;

/// What setting up the default database may cost before a search: the
/// bytes of a file to load and the boards of a database to build, and the
/// default transposition table's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetupBudget {
    /// The largest default file loaded whole into memory.
    pub load_bytes: u64,
    /// The most boards a default database built in memory may have.
    pub build_boards: u64,
    /// The same, built by clockwise retrograde analysis (for the proofs of
    /// bounds of positions too large for it).
    pub retrograde_boards: u64,
    /// The most boards retrograde analysis may solve as the answer itself,
    /// in the whole time limit: a clockwise position beyond it gets bounds
    /// proven within the limit instead (the plan's step 3;
    /// Kalah(5,3) clockwise under a 0.5 s limit took 93.6 s of retrograde
    /// analysis before).
    pub answer_boards: u64,
    /// The largest default transposition table, in MiB (a table asked for
    /// is made as asked; the keys may still need a larger one,
    /// `SearchOptions::keys`).
    pub table_mb: usize,
    /// The largest file copied into memory for a search; a larger one is
    /// searched over as it is mapped (no loading, the system's page
    /// cache), and so is never passed over for the time loading it would
    /// take.
    pub copy_bytes: u64,
}

impl SetupBudget {
    /// No limit: the defaults as chosen without a time limit.
    pub const UNLIMITED: SetupBudget = SetupBudget {
        load_bytes: u64::MAX,
        build_boards: u64::MAX,
        retrograde_boards: u64::MAX,
        answer_boards: u64::MAX,
        table_mb: usize::MAX,
        copy_bytes: u64::MAX,
    };

    /// A quarter of `limit`, for a search on `threads` threads, and a table
    /// of [`TABLE_MB_PER_SECOND`] for each second of it; retrograde analysis
    /// as the answer, the whole of it; no limit without one.
    pub fn within(limit: Option<Duration>, threads: usize) -> SetupBudget {
        let Some(limit) = limit else {
            return SetupBudget::UNLIMITED;
        };
        let seconds = limit.as_secs_f64() * SETUP_SHARE;
        SetupBudget {
            load_bytes: (seconds * LOAD_BYTES_PER_SECOND) as u64,
            build_boards: (seconds * BUILD_BOARDS_PER_SECOND * threads as f64) as u64,
            retrograde_boards: (seconds * RETROGRADE_BOARDS_PER_SECOND * threads as f64) as u64,
            answer_boards: (limit.as_secs_f64() * RETROGRADE_BOARDS_PER_SECOND * threads as f64) as u64,
            table_mb: table_mb_within(limit),
            copy_bytes: u64::MAX,
        }
    }

    /// This budget, held to `bytes` of memory in all (a door's share of
    /// its memory for one request, [`crate::Request::memory_share`]): the
    /// default table at most half of it (a power of two of MiB), and a
    /// database built in memory, or a file copied into memory, within the
    /// rest (a larger file is searched over mapped).
    pub fn within_memory(self, bytes: u64) -> SetupBudget {
        let half_mb = ((bytes / 2) >> 20).max(1) as usize;
        let table_mb = self.table_mb.min(1 << half_mb.ilog2());
        let rest = bytes.saturating_sub((table_mb as u64) << 20);
        SetupBudget {
            load_bytes: self.load_bytes,
            build_boards: self.build_boards.min(rest),
            // (Retrograde analysis holds more than a byte a board: its working set.)
            retrograde_boards: self.retrograde_boards.min(rest / 4),
            answer_boards: self.answer_boards.min(rest / 4),
            table_mb,
            copy_bytes: self.copy_bytes.min(rest),
        }
    }
}

/// The largest default transposition table, in MiB, of a search that may
/// take `limit`: [`TABLE_MB_PER_SECOND`] for each second, at least 1.
pub fn table_mb_within(limit: Duration) -> usize {
    ((limit.as_secs_f64() * TABLE_MB_PER_SECOND) as usize).max(1)
}

/// Among `found` (ascending seeds), the file for a position of `seeds`
/// seeds: the largest if it covers the position or if none has at least
/// `seeds - gap` seeds, else the smallest that has; files of more than
/// `max_load` bytes only if they cover it.
fn choose_for_seeds(found: &[FoundFile], seeds: u32, gap: u32, max_load: u64) -> Option<&FoundFile> {
    let loadable = |f: &&FoundFile| f.max_seeds >= seeds || f.bytes <= max_load;
    let largest = found.iter().rev().find(loadable)?;
    if largest.max_seeds >= seeds {
        return Some(largest);
    }
    Some(found.iter().filter(loadable).find(|f| f.max_seeds + gap >= seeds).unwrap_or(largest))
}

impl Databases {
    /// The largest file for `h` houses and `rules` of at most `max_bytes`,
    /// or if none is that small, the smallest.
    pub fn largest(&self, h: usize, rules: Rules, max_bytes: u64) -> Option<PathBuf> {
        let found = self.files(h, rules);
        let small = found.iter().rev().find(|f| f.bytes <= max_bytes);
        small.or(found.first()).map(|f| f.path.clone())
    }

    /// The file for positions of `purpose` (see the module docs), passing
    /// over files that would have to be loaded and that `budget` does not
    /// let load. Clockwise, a file is taken whatever its size: retrograde
    /// analysis needs none, and a proof of bounds holds the database it
    /// builds to the budget itself.
    pub fn choose(&self, purpose: Purpose, budget: SetupBudget) -> Choice {
        let Purpose { houses: h, rules, seeds, gap } = purpose;
        let found = self.files(h, rules);
        let max_load = if rules.may_cycle() { u64::MAX } else { budget.load_bytes };
        // A file too large to copy is mapped: it takes no time to load.
        let found: Vec<FoundFile> =
            found.into_iter().map(|f| FoundFile { bytes: if f.bytes > budget.copy_bytes { 0 } else { f.bytes }, ..f }).collect();
        let chosen = choose_for_seeds(&found, seeds, gap, max_load);
        let unlimited = choose_for_seeds(&found, seeds, gap, u64::MAX);
        Choice {
            path: chosen.map(|f| f.path.clone()),
            passed_over: unlimited.filter(|u| chosen.is_none_or(|c| c.path != u.path)).map(|f| (f.path.clone(), f.bytes)),
        }
    }

    /// Opens the database `spec` asks for, for positions of `purpose`,
    /// checked against their board and rules: the file named, or
    /// the one [`Databases::choose`] picks (the observer hears of a file the
    /// budget passed over), or none.
    pub fn open_for(&self, spec: &DbSpec, purpose: Purpose, budget: SetupBudget, observer: &dyn Observer) -> Result<Option<Database>> {
        self.open_spec(spec, purpose.houses, purpose.rules, || {
            let choice = self.choose(purpose, budget);
            if let Some((passed, bytes)) = &choice.passed_over {
                observer.note(&format!(
                    "{} ({}) is not loaded: it would take more than a quarter of the time limit ({}; named as the database to use, it is used all the same)",
                    passed.display(),
                    human_bytes(*bytes),
                    match &choice.path {
                        Some(p) => format!("using {} instead", p.display()),
                        None => "no smaller default database".to_string(),
                    }
                ));
            }
            choice.path
        })
    }

    /// Opens the database `spec` asks for, checked against the board and
    /// rules: the file named, or the largest default one of at most
    /// `max_bytes` ([`Databases::largest`]), or none.
    pub fn open_up_to(&self, spec: &DbSpec, h: usize, rules: Rules, max_bytes: u64) -> Result<Option<Database>> {
        self.open_spec(spec, h, rules, || self.largest(h, rules, max_bytes))
    }

    fn open_spec(&self, spec: &DbSpec, h: usize, rules: Rules, default: impl FnOnce() -> Option<PathBuf>) -> Result<Option<Database>> {
        let path = match &spec.file {
            DbFile::None => return Ok(None),
            DbFile::Named(p) => return Ok(Some(Database::open_for(p, h, rules).map_err(|e| Error::from(e).about(crate::error::Field::DbFile))?)),
            DbFile::Default => match default() {
                Some(p) => p,
                None => return Ok(None),
            },
        };
        // The folder's own file, named for this board and rules: one that
        // cannot serve them is damaged or misnamed, not the request's fault.
        let open = Database::open_for(&path, h, rules);
        Ok(Some(open.map_err(|e| {
            let e = Error::from(e);
            match e.kind() {
                ErrorKind::BadInput => {
                    Error::corrupt(format!("the database folder's file for these rules cannot serve them: {e}; move it aside or rebuild it"))
                        .caused_by(e)
                }
                _ => e,
            }
        })?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The default database is the largest by seeds, or with a size limit
    /// the largest within it (else the smallest); other boards, other
    /// rules and unfinished files are never picked.
    #[test]
    fn default_databases_are_chosen_by_seeds_and_size() {
        let dir = tempfile::tempdir().unwrap();
        let dbs = Databases::new(dir.path());
        let rules = Rules::default();
        let name = |h: usize, n: u32, r: Rules| format!("kalah-h{h}-n{n}-{}.kdb", r.tag());
        let other = Rules { capture: kalah_core::Capture::Empty, ..rules };
        for (file, bytes) in [
            (name(6, 20, rules), 200),
            (name(6, 24, rules), 1200),
            (name(6, 30, rules), 11000),
            (name(6, 32, other), 1),
            (name(5, 40, rules), 1),
            (format!("{}.partial", name(6, 34, rules)), 1),
        ] {
            std::fs::write(dir.path().join(file), vec![0u8; bytes]).unwrap();
        }
        let file_name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
        let pick = |max| dbs.largest(6, rules, max).map(|p| file_name(&p));
        assert_eq!(pick(u64::MAX), Some(name(6, 30, rules)));
        assert_eq!(pick(2000), Some(name(6, 24, rules)));
        assert_eq!(pick(1200), Some(name(6, 24, rules)));
        assert_eq!(pick(1199), Some(name(6, 20, rules)));
        assert_eq!(pick(10), Some(name(6, 20, rules)), "none is small enough: the smallest");
        assert_eq!(dbs.largest(4, rules, u64::MAX), None);
        assert_eq!(dbs.path_for(6, 20, rules), dir.path().join(name(6, 20, rules)));
        assert_eq!(Databases::name_parts(&name(6, 32, other)), Some((6, 32, other)));

        // By the position's seeds: the largest where it covers the position
        // or where none lies within the gap below it, else the smallest within.
        let found = dbs.files(6, rules);
        let seeds: Vec<u32> = found.iter().map(|f| f.max_seeds).collect();
        assert_eq!(seeds, [20, 24, 30]);
        let for_seeds = |s, gap| choose_for_seeds(&found, s, gap, u64::MAX).map(|f| file_name(&f.path));
        let value = |s| for_seeds(s, VALUE_LOAD_GAP);
        assert_eq!(value(12), Some(name(6, 30, rules)), "covered: probed, not loaded");
        assert_eq!(value(30), Some(name(6, 30, rules)));
        assert_eq!(value(36), Some(name(6, 20, rules)), "Kalah(6,3)");
        assert_eq!(value(44), Some(name(6, 20, rules)));
        assert_eq!(value(45), Some(name(6, 24, rules)));
        assert_eq!(value(48), Some(name(6, 24, rules)), "Kalah(6,4)");
        assert_eq!(value(54), Some(name(6, 30, rules)));
        assert_eq!(value(60), Some(name(6, 30, rules)), "Kalah(6,5): none within, the largest");
        let analysis = |s| for_seeds(s, ANALYSIS_LOAD_GAP);
        assert_eq!(analysis(36), Some(name(6, 20, rules)), "Kalah(6,3)");
        assert_eq!(analysis(42), Some(name(6, 24, rules)));
        assert_eq!(analysis(48), Some(name(6, 30, rules)), "Kalah(6,4)");
        assert_eq!(choose_for_seeds(&[], 48, VALUE_LOAD_GAP, u64::MAX), None);
        // Under a time limit files too large to load in its share are passed
        // over, unless they cover the position.
        let bytes: Vec<u64> = found.iter().map(|f| f.bytes).collect();
        let within = |s, max_load| choose_for_seeds(&found, s, VALUE_LOAD_GAP, max_load).map(|f| file_name(&f.path));
        assert_eq!(within(60, bytes[2] - 1), Some(name(6, 24, rules)), "Kalah(6,5): not the 30-seed file");
        assert_eq!(within(60, bytes[1] - 1), Some(name(6, 20, rules)));
        assert_eq!(within(60, bytes[0] - 1), None, "none small enough");
        assert_eq!(within(48, bytes[1]), Some(name(6, 24, rules)), "a file of exactly the budget is loaded");
        assert_eq!(within(30, 0), Some(name(6, 30, rules)), "covered: probed, whatever its size");
        let budget = SetupBudget { load_bytes: bytes[2] - 1, ..SetupBudget::UNLIMITED };
        let choice = dbs.choose(Purpose { houses: 6, rules, seeds: 60, gap: VALUE_LOAD_GAP }, budget);
        assert_eq!(choice.path.as_deref().map(file_name), Some(name(6, 24, rules)));
        assert_eq!(choice.passed_over.map(|(p, b)| (file_name(&p), b)), Some((name(6, 30, rules), bytes[2])));

        // Issue 64: held to a door's share of its memory, a file too large
        // to copy in it is searched over mapped, so it is not passed over
        // for the time loading it would take.
        let held = SetupBudget { load_bytes: bytes[2] - 1, copy_bytes: bytes[2] - 1, ..SetupBudget::UNLIMITED };
        let choice = dbs.choose(Purpose { houses: 6, rules, seeds: 60, gap: VALUE_LOAD_GAP }, held);
        assert_eq!((choice.path.as_deref().map(file_name), choice.passed_over), (Some(name(6, 30, rules)), None));
    }

    /// Issue 64: a budget held to `bytes` of memory (a server's share for
    /// one search): the default table at most half of it, a power of two,
    /// and what is built or copied into memory within the rest.
    #[test]
    fn a_budget_within_memory_holds_table_and_database_to_it() {
        let ten = SetupBudget::within(Some(std::time::Duration::from_secs(10)), 1);
        assert_eq!(ten.table_mb, 640, "a 10 s search's own table");
        let held = ten.within_memory(341 << 20);
        let rest = (341 - 128) << 20;
        assert_eq!((held.table_mb, held.copy_bytes, held.load_bytes), (128, rest, ten.load_bytes));
        assert!(held.build_boards <= rest && held.retrograde_boards <= rest / 4 && held.answer_boards <= rest / 4, "{held:?}");
        // A short search's table is smaller than half already: it stays.
        let short = SetupBudget::within(Some(std::time::Duration::from_millis(500)), 1);
        assert_eq!(short.within_memory(1 << 30).table_mb, short.table_mb);
        // The least share a server gives (32 MiB): a 16 MiB table, 16 MiB for a database.
        let least = ten.within_memory(32 << 20);
        assert_eq!((least.table_mb, least.copy_bytes), (16, 16 << 20));
        assert_eq!(SetupBudget::UNLIMITED.within_memory(64 << 20).table_mb, 32);
    }
}
