//! What a request asks about a position, and with what ([`Request`]);
//! what it reads of what earlier requests kept ([`Memory`]); the tests an
//! exact search of it runs ([`RootTests`]); and what follows from it for
//! the plan (the database it needs, its deadline, whether it reads and
//! keeps answers).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kalah_core::{Position, Rules};

use crate::answer::held::HeldSearch;
use crate::databases::{DbSpec, Purpose, SetupBudget, ANALYSIS_LOAD_GAP, VALUE_LOAD_GAP};
use crate::error::{Error, Field, Result};
use crate::limits::{MemoryShare, MAX_THREADS, MAX_TIME_LIMIT, MAX_TT_MB};
use crate::memory::journal::JournalSpec;

/// What a request asks beside the position's value (always answered).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Want {
    /// The value alone.
    Value,
    /// The value and a best move, found on its own: much cheaper than
    /// every move's value. Under a time limit a legal move is always
    /// given ([`Report::move_to_play`](crate::Report::move_to_play)), proven best or not.
    BestMove,
    /// The value and every move's.
    Moves,
    /// Every move's value and a line of best play (whose first move is a
    /// best move): what `kalah query` answers.
    #[default]
    MovesAndLine,
}

impl Want {
    /// Whether every move's value is asked.
    pub fn moves(self) -> bool {
        matches!(self, Want::Moves | Want::MovesAndLine)
    }

    /// Whether a line of best play is asked.
    pub fn line(self) -> bool {
        self == Want::MovesAndLine
    }

    /// Whether a best move is asked on its own.
    pub fn best_alone(self) -> bool {
        self == Want::BestMove
    }
}

/// What to answer about a position, and with what.
#[derive(Clone, Debug)]
pub struct Request {
    /// The position.
    pub position: Position,
    /// The rules.
    pub rules: Rules,
    /// Which database.
    pub db: DbSpec,
    /// Search threads (1 to [`MAX_THREADS`]).
    pub threads: usize,
    /// Transposition table MiB (`None`: sized by the position and database).
    /// Rounded down to a power of two; a table too small for the keys of
    /// the position's boards grows to what they need (at most 128 MiB on
    /// five and six houses, 2 GiB on eight): the report's note says the
    /// size used.
    pub tt_mb: Option<usize>,
    /// What to answer beside the position's value.
    pub want: Want,
    /// Time for the search: what it has not proven by then is reported as
    /// bounds. `None`: a search runs until it is done, a proof of bounds
    /// ([`Source::Bounds`](crate::Source::Bounds)) for [`BOUNDS_TIME`](crate::BOUNDS_TIME). Database probes and
    /// retrograde analysis are always exact, and setting up a database is
    /// not counted (but a default one is chosen to take at most about a
    /// quarter of the limit).
    pub time_limit: Option<Duration>,
    /// Raised from another thread, stops the work within moments: what the
    /// search proved by then is reported as bounds; a database built in
    /// memory, or retrograde analysis, stops within its level and is
    /// dropped (the answer is then the bounds a search proves by then:
    /// few). With a flag and no time limit, the search is the exact one
    /// (as fast as without a flag), and stopped it answers the bounds it
    /// proved on the position's value alone. Raised before the work
    /// begins, nothing is searched and no database is loaded or built:
    /// the answer is the bounds the position's seeds allow, at once, with
    /// a legal move to play if a move was asked ([`Report::move_to_play`](crate::Report::move_to_play)).
    /// What takes no work still answers exactly: a finished game, the
    /// book, a kept answer, a probe of a file the analyzer holds open
    /// ([`Analyzer::analyze_at_once`](crate::Analyzer::analyze_at_once)).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Keep what the search proves in a journal, and resume from what an
    /// earlier run of the same search kept there ([`crate::journal`]).
    /// Only searches use it: an answer read from a database, or found by
    /// retrograde analysis, leaves it as it is.
    pub journal: Option<JournalSpec>,
    /// What this request reads of what earlier ones kept in the
    /// analyzer's database folder, and keeps there for later ones
    /// ([`Memory`]). [`Memory::Off`] in [`Request::new`]: `kalah solve`
    /// and `kalah query` ask for [`Memory::All`], a server for
    /// [`Memory::Answers`].
    pub memory: Memory,
    /// Which null-window tests the search of the position runs.
    pub tests: RootTests,
    /// Moves (houses 1-based, each of the player to move then) every
    /// search from the position tries first, one a ply: a line known to
    /// hold a test, searched before the table's moves
    /// ([`kalah_search::Solver::first_line`]). Empty: none.
    pub first: Vec<usize>,
    /// Answer from the analyzer's opening book where it has the position,
    /// before anything else. On in [`Request::new`]; an analyzer has a book
    /// only when given one ([`Analyzer::with_carried_book`](crate::Analyzer::with_carried_book),
    /// [`Analyzer::with_book`](crate::Analyzer::with_book)).
    pub book: bool,
    /// The most boards retrograde analysis may solve for this request, for
    /// a door open to others: a clockwise position beyond it gets bounds
    /// proven within the time limit over a database of at most that many
    /// boards. `None` in
    /// [`Request::new`]: what memory allows.
    pub retrograde_boards: Option<u64>,
    /// The time the set-up is held to (which database is chosen, loaded
    /// or built in memory, how large a table), if not the time limit: for
    /// a long search that must set up as a short one would (a server's
    /// search that goes on in the background). `None` in [`Request::new`].
    pub setup_time: Option<Duration>,
    /// The most memory this request's set-up may take: a door's share of
    /// its memory (`kalah serve --memory`,
    /// [`crate::service::memory::MemoryBudget::reserve`]). The default
    /// transposition table at most half of it, and a database built in
    /// memory or a file copied into memory within the rest
    /// ([`crate::SetupBudget::within_memory`]); a larger file is searched
    /// over mapped only where the share admits it
    /// ([`MemoryShare::admit_file`], an analyzer that keeps what it
    /// opens), else the search goes on without it. `None` in
    /// [`Request::new`]: what the time limit and the machine allow.
    pub memory_share: Option<Arc<dyn MemoryShare>>,
    /// A search held between runs of this question ([`HeldSearch`]): the
    /// search goes on from the solver it holds, if that serves it, and
    /// leaves its solver there after. `None` in [`Request::new`].
    pub held: Option<Arc<HeldSearch>>,
}

/// What a request reads of what earlier requests kept in the analyzer's
/// database folder, and keeps there for later ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Memory {
    /// Nothing: the answer is found anew, and nothing is kept.
    #[default]
    Off,
    /// Exact answers ([`crate::answers`], `answers/` in the folder): a
    /// kept one answers at once ([`Source::Kept`](crate::Source::Kept)), with as much as the
    /// request asks ([`Want`]); an exact answer that took work (a search,
    /// retrograde analysis, bounds that met) is kept when it has every
    /// move's value and the line ([`Want::MovesAndLine`]: the answer to
    /// every other question too). A store that cannot be opened, a
    /// damaged answer, or one that cannot be written is passed over, with
    /// a note. Not for a request that says how to answer: a database other
    /// than the default ([`DbSpec::default`]), a `journal`, the one test
    /// [`RootTests::AtLeast`] ([`RootTests::FirstGuess`] reads and keeps
    /// them).
    Answers,
    /// The exact answers, and the search memory ([`crate::journal`],
    /// "Search memory"): a search run again answers from what the earlier
    /// one proved (passed over, with a note, when it is in use by another
    /// process, damaged or cannot be written; not with a `journal`). A
    /// database built in memory by default (no file for the rules, no
    /// `DbSpec::build_seeds`) is kept too, as a file of the folder, which
    /// the next requests then load (with a note; one that cannot be
    /// written is a note, not an error).
    All,
}

/// Which null-window tests ("is the value at least V?") an exact search of
/// the position runs. Its values are the position's, for the player to
/// move, stores included. Every move's value is searched as always; only
/// the position's own search follows this.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RootTests {
    /// MTD(f), its first test chosen by depth-limited searches (or the
    /// one a journal recorded as running).
    #[default]
    Deepening,
    /// MTD(f) from this guess of the value: the first test is "value >=
    /// guess", with no depth-limited searches before it, and it comes
    /// before the test a journal recorded. For a value known or closely
    /// guessed (a published one), it is the fewest tests.
    FirstGuess(i32),
    /// One test only, "is the value at least V?": answered as holding or
    /// not, with the bound it proves ([`Report::test`](crate::Report::test)). The value alone
    /// is asked (no moves, line or best move).
    AtLeast(i32),
}

impl Request {
    /// Every move's value and a line of best play of `position` under
    /// `rules`, on every core, with the default database: what `kalah
    /// query` answers.
    pub fn new(position: Position, rules: Rules) -> Request {
        Request {
            position,
            rules,
            db: DbSpec::default(),
            threads: kalah_search::cores(),
            tt_mb: None,
            want: Want::MovesAndLine,
            time_limit: None,
            cancel: None,
            journal: None,
            memory: Memory::Off,
            tests: RootTests::Deepening,
            first: Vec::new(),
            book: true,
            retrograde_boards: None,
            setup_time: None,
            memory_share: None,
            held: None,
        }
    }

    /// Refuses what cannot be answered as asked.
    pub(crate) fn check(&self) -> Result<()> {
        if !(1..=MAX_THREADS).contains(&self.threads) {
            return Err(Error::bad_input(format!("{} search threads: give 1 to {MAX_THREADS}", self.threads)).about(Field::Threads));
        }
        if let Some(mb) = self.tt_mb.filter(|&mb| mb == 0 || mb > MAX_TT_MB) {
            return Err(Error::bad_input(format!("a {mb} MiB transposition table: give 1 MiB to 1 PiB")).about(Field::TtMb));
        }
        if let Some(t) = self.time_limit.filter(|t| t.is_zero() || t.as_secs_f64() >= MAX_TIME_LIMIT) {
            return Err(Error::bad_input(format!("a time limit of {} s: give more than 0 and less than {MAX_TIME_LIMIT:e}", t.as_secs_f64()))
                .about(Field::TimeLimit));
        }
        // Checked before anything answers (the book, a finished game): a
        // request that asks the impossible is refused whatever the position.
        if self.db.is_none() && self.db.build_seeds.is_some_and(|n| n > 0) {
            return Err(Error::bad_input("no database at all, and one built in memory: ask for one or the other").about(Field::DbSeeds));
        }
        if let Some(n) = self.db.build_seeds.filter(|&n| n > 0) {
            kalah_db::builder::check_size(self.position.houses(), n)
                .map_err(|e| Error::refused(format!("a {n}-seed database built in memory: {e}")).about(Field::DbSeeds))?;
        }
        if let RootTests::AtLeast(v) = self.tests {
            if self.want != Want::Value {
                return Err(Error::bad_input(format!(
                    "the test \"value >= {v}\" answers the value alone: ask for no moves, line or best move with it"
                ))
                .about(Field::Tests));
            }
        }
        Ok(())
    }
}

/// What a request's position needs of a database, and what setting one
/// up may cost ([`SetupBudget::within`]).
pub(crate) fn purpose_and_budget(request: &Request) -> (Purpose, SetupBudget) {
    let gap = if request.want.moves() { ANALYSIS_LOAD_GAP } else { VALUE_LOAD_GAP };
    let purpose = Purpose { houses: request.position.houses(), rules: request.rules, seeds: request.position.seeds_in_houses(), gap };
    let budget = SetupBudget::within(request.setup_time.or(request.time_limit), request.threads);
    (purpose, request.memory_share.as_ref().map_or(budget, |share| budget.within_memory(share.bytes())))
}

/// The deadline of a search: its time limit counted from `start` (so that
/// setting up, the database loaded or built, is inside it, as for a proof
/// of bounds), or with only a way to cancel it, as far off as a deadline
/// may be.
pub(crate) fn deadline(request: &Request, start: Instant) -> Option<Instant> {
    match (request.time_limit, &request.cancel) {
        (Some(limit), _) => Some(start + limit),
        (None, Some(_)) => Some(Instant::now() + Duration::from_secs_f64(MAX_TIME_LIMIT)),
        (None, None) => None,
    }
}

/// Whether `request` reads and adds to the exact answers kept
/// ([`Memory::Answers`]): not when it says how to answer (a database
/// file, none, or one built in memory of a size it chose; a journal of
/// its own; a test), which a kept answer would pass over.
pub(crate) fn keeps_answers(request: &Request) -> bool {
    request.memory != Memory::Off && request.db == DbSpec::default() && request.journal.is_none() && !matches!(request.tests, RootTests::AtLeast(_))
}

/// Whether `request`'s cancel flag is raised.
pub(crate) fn cancelled(request: &Request) -> bool {
    request.cancel.as_ref().is_some_and(|flag| flag.load(std::sync::atomic::Ordering::Relaxed))
}
