//! `kalah`: the perfect-play value of any Kalah position, every move's
//! value and a line of best play, under every rule option of RULES.md.
//!
//! One [`Analyzer`], made once over a directory of endgame databases
//! ([`Databases`]), answers a [`Request`] with a [`Report`]: it chooses
//! the method once (a database probe, a search over a database file or
//! one built in memory, retrograde analysis where clockwise play can be
//! endless, bounds proven where that does not fit; see below) and
//! checks that the position, the rules and the database belong together.
//! Failures are one [`Error`] whose [`ErrorKind`] says what the caller can
//! do; progress and notes go to an [`Observer`] the caller supplies (the
//! library never prints). A [`Report`] serialises (serde) to the object
//! `kalah query --json` prints.
//!
//! Values are final store differences for the player to move (each move's
//! for the player who plays it), under perfect play by both sides.
//!
//! # How a position is answered
//!
//! One plan, whichever door asks (the [`Analyzer`] behind `kalah solve`,
//! `query`, `engine`, `serve` and Python; [`Analyzer::oracle`] for many
//! positions; [`Analyzer::player`] for a game), takes the first of these
//! steps that applies:
//!
//! 1. **At once**, with no database and no search: a finished game (the
//!    rules give its value), then a position of the opening book, then an
//!    exact answer an earlier request kept in the folder ([`Memory`]; a
//!    request that remembers keeps each exact answer that took work).
//! 2. **A probe** of a database file that covers the position: the one
//!    named, else the folder's choice ([`Databases`]).
//! 3. **Bounds** proven within a time limit by searches to growing depths
//!    over a smaller database: clockwise sowing (play can be endless)
//!    where retrograde analysis of every board up to the position's seeds
//!    does not fit in memory (or beyond [`Request::retrograde_boards`]),
//!    or when a smaller database is asked for.
//! 4. **Retrograde analysis** of every board up to the position's seeds in
//!    memory: clockwise sowing otherwise.
//! 5. **A search** over the file, else over a database built in memory
//!    first, else over none; where the one built in memory covers the
//!    position, probes of it instead.
//!
//! The [`Report`] says which step answered ([`Source`]).
//! [`Analyzer::analyze_at_once`] answers only where steps 1 and 2 do with
//! a file the analyzer holds open, and says `None` for work: a door runs
//! that work where it can stop it ([`Request::cancel`]; Python's Ctrl-C),
//! or once it has a place for it (`kalah serve`, through
//! [`api::answer_at_once`]). It is the one place that decides what is
//! answered without work.
//!
//! # The face
//!
//! What most clients need is at the top: positions and rules
//! ([`Position`], [`Rules`], [`Engine`]), databases ([`Builder`],
//! [`Database`], [`Databases`]), the [`Analyzer`] with its [`Request`]
//! and [`Report`], and [`Error`]. The public modules are for work beyond
//! one position, each behind one door of this program:
//!
//! | module | for |
//! |---|---|
//! | [`service`]: [`api`], [`background`] | one JSON request in, one answer out (`kalah engine`, `kalah serve`); searches that go on after bounds were answered |
//! | [`memory`]: [`book`], [`answers`], [`journal`] | what is remembered: the opening book, the answers kept across runs, a long search's journal |
//! | [`databases`], [`strong`] | the database folder: listing, choosing, loading; strong solutions and their manifest |
//! | [`studies`]: [`openings`], [`starts`], [`published`], [`chains`], [`book_build`], [`verify`] | work over many positions, one command each |
//! | [`distributed`] | one search shared by many workers (MPI) |
//! | [`report`], [`text`] | the answer's parts; values and sizes as people read them |
//!
//! Each room's modules are also at the top, where they were before the
//! rooms ([`api`], [`journal`], [`strong`], [`split`], ...).
//!
//! The analyzer's plan, its cost estimates, search set-up and table
//! snapshots are private (the room `answer/`, where a position's answer
//! is decided; docs/architecture.md): every door goes through the items
//! above.
//!
//! Three default features hold what an embedder may not want: `answers`
//! (the answers kept across runs, LMDB through heed), `csv` (strong
//! solutions' manifests and the published values) and `sampling` (random
//! samples proven again, rand).
//!
//! # Solve Kalah(4,3)
//!
//! ```
//! use kalah::{Analyzer, Capture, Databases, Position, Request, Rules, Silent, Want};
//!
//! let analyzer = Analyzer::new(Databases::new("no-such-directory"));
//! let rules = Rules { capture: Capture::Empty, ..Rules::default() };
//! let start = Position::start(4, 3)?;
//! let request = Request { want: Want::Value, ..Request::new(start, rules) };
//! let report = analyzer.analyze(&request, &Silent)?;
//! assert_eq!(report.value(), Some(8)); // South wins by 8 (Irving et al. 2000)
//! # Ok::<(), kalah::Error>(())
//! ```
//!
//! # Every move of a Kalah(6,4) position, over a database built in memory
//!
//! ```
//! use kalah::{Analyzer, Databases, DbSpec, Position, Request, Rules, Silent, Source};
//!
//! let analyzer = Analyzer::new(Databases::new("no-such-directory"));
//! // A late middlegame of Kalah(6,4): 20 seeds left in the houses.
//! let position: Position = "0,0,1,2,0,3,20,1,0,0,4,2,0,15 S".parse()?;
//! let request = Request {
//!     db: DbSpec { build_seeds: Some(12), ..DbSpec::default() },
//!     ..Request::new(position, Rules::default())
//! };
//! let report = analyzer.analyze(&request, &Silent)?;
//! assert_eq!(report.source, Source::Search);
//! assert_eq!(report.database.as_ref().map(|d| d.max_seeds), Some(12));
//! let best = report.value().expect("exact without a time limit");
//! for m in &report.analysis.moves {
//!     assert!(m.value.lower <= best, "house {}: {:?}", m.house, m.value);
//! }
//! assert_eq!(report.best_move(), report.analysis.pv.first().map(|m| m.house));
//! # Ok::<(), kalah::Error>(())
//! ```
//!
//! # A bot's move under a time limit
//!
//! A best move alone is much cheaper than every move's value; under a time
//! limit [`Report::move_to_play`] is always a legal move, proven best or
//! the best proven so far.
//!
//! ```
//! use std::time::Duration;
//! use kalah::{Analyzer, Databases, Position, Request, Rules, Silent, Want};
//!
//! let analyzer = Analyzer::new(Databases::new("no-such-directory"));
//! let position: Position = "4,4,4,4,4,0,4,4,4,4,4,0 S".parse()?; // Kalah(5,4)
//! let request = Request {
//!     want: Want::BestMove,
//!     book: false,
//!     time_limit: Some(Duration::from_millis(200)),
//!     ..Request::new(position, Rules::default())
//! };
//! let report = analyzer.analyze(&request, &Silent)?;
//! let house = report.move_to_play().expect("the game is not over");
//! assert!(position.legal_moves().contains(&house));
//! # Ok::<(), kalah::Error>(())
//! ```
//!
//! # A game loop
//!
//! Positions are played with an [`Engine`] of their board size and rules;
//! a position of another size is refused, not misplayed.
//!
//! ```
//! use kalah::{Analyzer, Databases, Engine, Position, Request, Rules, Side, Silent, Want};
//!
//! let rules = Rules::default();
//! let engine = Engine::new(3, rules);
//! let analyzer = Analyzer::new(Databases::new("no-such-directory"));
//! let start = Position::start(3, 3)?;
//! let value = analyzer.analyze(&Request::new(start, rules), &Silent)?.value().expect("exact");
//! let mut position = start;
//! while !position.is_over(&engine) {
//!     let request = Request { want: Want::BestMove, ..Request::new(position, rules) };
//!     let house = analyzer.analyze(&request, &Silent)?.move_to_play().expect("a move");
//!     position = position.play(&engine, house)?.0;
//! }
//! // Perfect play by both sides ends with the value of the start.
//! let over = analyzer.analyze(&Request::new(position, rules), &Silent)?;
//! let south = if position.to_move() == Side::South { over.value() } else { over.value().map(|v| -v) };
//! assert_eq!(south, Some(value));
//! // A 4-house position with a 3-house engine is refused.
//! assert!(Position::start(4, 3)?.play(&engine, 1).is_err());
//! # Ok::<(), kalah::Error>(())
//! ```
//!
//! # Build a database file, open it and probe it
//!
//! ```
//! use kalah::{Database, Position, Rules};
//!
//! let dir = tempfile::tempdir()?;
//! let file = dir.path().join("kalah-h3-n9.kdb");
//! kalah::build_file(&file, 3, Rules::default(), 9, &kalah::Quiet)?;
//! let db = Database::open_for(&file, 3, Rules::default())?;
//! let report = kalah::probe(&db, &"1,2,0,10,2,1,0,8 N".parse::<Position>()?)?;
//! assert_eq!(report.nodes, 0);
//! // The value of one position, stores included, or `None` beyond the file.
//! assert_eq!(db.probe_position(&"1,2,0,10,2,1,0,8 N".parse()?)?, report.value());
//! assert_eq!(db.probe_position(&Position::start(3, 4)?)?, None);
//! // A position the file does not cover is refused by `probe`, not misread.
//! let e = kalah::probe(&db, &Position::start(3, 4)?).unwrap_err();
//! assert_eq!(e.kind(), kalah::ErrorKind::BadInput);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Every board of a database, with its value
//!
//! ```
//! use kalah::{Database, Rules};
//!
//! let dir = tempfile::tempdir()?;
//! let file = dir.path().join("kalah-h2-n6.kdb");
//! kalah::build_file(&file, 2, Rules::default(), 6, &kalah::Quiet)?;
//! let db = Database::open(&file)?;
//! let mut boards = 0;
//! for entry in db.boards_of(6)? {
//!     let (board, value) = entry?;
//!     assert_eq!(board.total(), 6);
//!     assert!(value.abs() <= 6, "at most the seeds left");
//!     boards += 1;
//! }
//! assert_eq!(boards, 84); // 6 seeds in 4 houses: C(9, 3)
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Handle each kind of error
//!
//! [`ErrorKind`] says what the caller can do; [`Error::field`] which part
//! of the request is wrong, for a door to name as its users know it.
//!
//! ```
//! use kalah::{Analyzer, Databases, DbSpec, ErrorKind, Field, Position, Request, Rules, Silent};
//!
//! let analyzer = Analyzer::new(Databases::new("no-such-directory"));
//! let start = Position::start(4, 3)?;
//! let asks = [
//!     Request { threads: 0, ..Request::new(start, Rules::default()) },
//!     Request { db: DbSpec { build_seeds: Some(200), ..DbSpec::default() }, ..Request::new(start, Rules::default()) },
//!     Request { db: DbSpec::file("no-such-file.kdb"), book: false, ..Request::new(start, Rules::default()) },
//! ];
//! for request in &asks {
//!     let e = analyzer.analyze(request, &Silent).unwrap_err();
//!     let what = match e.kind() {
//!         ErrorKind::BadInput => "fix the request",
//!         ErrorKind::Refused => "ask for less",
//!         ErrorKind::Corrupt => "rebuild the database",
//!         ErrorKind::Io | ErrorKind::Internal => "try again, or report it",
//!         _ => "report it", // kinds may be added (`#[non_exhaustive]`)
//!     };
//!     match e.field() {
//!         Some(Field::Threads) => assert_eq!(what, "fix the request"),
//!         Some(Field::DbSeeds) => assert_eq!(what, "ask for less"),
//!         _ => assert_eq!(e.kind(), ErrorKind::BadInput, "{e}"),
//!     }
//! }
//! # Ok::<(), kalah::Error>(())
//! ```
//!
//! # Bounds proven in time
//!
//! ```
//! use std::time::Duration;
//! use kalah::{Analyzer, Databases, Position, Request, Rules, Silent, Source};
//!
//! let analyzer = Analyzer::new(Databases::new("no-such-directory"));
//! let request = Request {
//!     time_limit: Some(Duration::from_millis(50)),
//!     book: false,
//!     ..Request::new(Position::start(6, 6)?, Rules::default())
//! };
//! let report = analyzer.analyze(&request, &Silent)?;
//! assert_eq!(report.source, Source::Search);
//! let v = report.analysis.value;
//! assert!(v.lower <= 2 && 2 <= v.upper, "whatever is proven holds the published value");
//! # Ok::<(), kalah::Error>(())
//! ```
//!
//! # Other rules: clockwise sowing, solved by retrograde analysis
//!
//! ```
//! use kalah::{Analyzer, Databases, Position, Request, Rules, Silent, Source, Sowing};
//!
//! let analyzer = Analyzer::new(Databases::new("no-such-directory"));
//! let rules = Rules { sowing: Sowing::Cw, ..Rules::default() };
//! let report = analyzer.analyze(&Request::new(Position::start(3, 2)?, rules), &Silent)?;
//! assert_eq!(report.source, Source::Retrograde);
//! assert!(report.value().is_some());
//! # Ok::<(), kalah::Error>(())
//! ```
//!
//! # A report as JSON
//!
//! ```
//! use kalah::{Analyzer, Databases, Position, Request, Rules, Silent};
//!
//! let analyzer = Analyzer::new(Databases::new("no-such-directory"));
//! let report = analyzer.analyze(&Request::new(Position::start(3, 3)?, Rules::default()), &Silent)?;
//! let json = serde_json::to_value(&report).expect("a report serialises");
//! assert_eq!(json["value"], 2);
//! // Each move with the position it leads to, best first.
//! assert_eq!(json["moves"][0]["value"], 2);
//! assert!(json["moves"][0]["position"].is_string());
//! # Ok::<(), kalah::Error>(())
//! ```
#![warn(missing_docs)]

// The rooms, by concern: where an answer is decided (private: its items
// are the face below), what is stored, what is distributed, what is
// remembered, what is worked out over many positions, what serves.
mod answer;
pub mod databases;
pub mod distributed;
mod error;
mod limits;
pub mod memory;
mod progress;
pub mod report;
pub mod service;
pub mod studies;
pub mod text;

// The paths of before the rooms, kept alive.
pub use databases::strong;
pub use distributed as split;
pub use memory::{answers, book, journal};
pub use service::{api, background};
pub use studies::{book_build, chains, openings, published, starts, verify};

pub use answer::analyzer::Analyzer;
pub use answer::held::HeldSearch;
pub use answer::oracle::Oracle;
pub use answer::player::{move_values, BookBrain, Brain, Level, MakeBrain};
pub use answer::request::Want;
pub use answer::request::{Memory, Request, RootTests};
pub use answer::search::probe;
pub use answer::sizes::BOUNDS_TIME;
/// The transposition table's size a search of this program would choose,
/// and the check that one fits in memory: for doors that run searches of
/// their own.
pub use answer::sizes::{check_table_memory, default_tt_mb};
pub use answer::table::Table;
pub use databases::{Databases, DbFile, DbHold, DbSpec, SetupBudget};
pub use error::{Error, ErrorKind, Field, Result};
pub use limits::{MemoryShare, MAX_THREADS, MAX_TIME_LIMIT, MAX_TT_MB};
pub use memory::answers::answers_dir;
#[cfg(feature = "answers")]
pub use memory::answers::AnswerStore;
pub use progress::{Log, Observer, SearchStatus, Silent};
pub use report::{Report, Source, UsedDatabase};

pub use kalah_core::{
    max_board_seeds, Board, Capture, End, Engine, Indexer, Leftovers, Next, Outcome, Position, PositionError, Relay, RuleError, Rules, Side, Sowing,
    MAX_HOUSES,
};
pub use kalah_db::format::Header;
pub use kalah_db::{build_file, build_file_encoded, BuildProgress, BuildReport, Builder, Database, DbError, Encoding, Progress, Quiet};
pub use kalah_search::{Analysis, Bounded, BoundedAnalysis, BoundedMove, LineEnd, MoveValue, PvMove, TestOutcome};
