//! `kalah`: the perfect-play value of any Kalah position, every move's
//! value and a line of best play, under every rule option of RULES.md.
//!
//! One [`Analyzer`], made once over a directory of endgame databases
//! ([`Databases`]), answers a [`Request`] with a [`Report`]: it chooses
//! the method once (a database probe, a search over a database file or
//! one built in memory, retrograde analysis where clockwise play can be
//! endless, bounds proven where that does not fit; see [`plan`]) and
//! checks that the position, the rules and the database belong together.
//! Failures are one [`Error`] whose [`ErrorKind`] says what the caller can
//! do; progress and notes go to an [`Observer`] the caller supplies (the
//! library never prints). A [`Report`] serialises (serde) to the object
//! `kalah query --json` prints.
//!
//! Values are final store differences for the player to move (each move's
//! for the player who plays it), under perfect play by both sides.
//!
//! # Solve Kalah(4,3)
//!
//! ```
//! use kalah::{Analyzer, Capture, Databases, Position, Request, Rules, Silent};
//!
//! let analyzer = Analyzer::new(Databases::new("no-such-directory"));
//! let rules = Rules { capture: Capture::Empty, ..Rules::default() };
//! let start = Position::start(4, 3)?;
//! let request = Request { moves: false, pv: false, ..Request::new(start, rules) };
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
//! # Open a database file and probe it
//!
//! ```
//! use kalah::{Database, Position, Rules};
//!
//! let dir = tempfile::tempdir()?;
//! let file = dir.path().join("kalah-h3-n9.kdb");
//! kalah_db::build_file(&file, 3, Rules::default(), 9, &kalah_db::Quiet)?;
//! let db = Database::open_for(&file, 3, Rules::default())?;
//! let report = kalah::probe(&db, &"1,2,0,10,2,1,0,8 N".parse::<Position>()?)?;
//! assert_eq!(report.nodes, 0);
//! // A position the file does not cover is refused, not misread.
//! let e = kalah::probe(&db, &Position::start(3, 4)?).unwrap_err();
//! assert_eq!(e.kind(), kalah::ErrorKind::BadInput);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

pub mod analyzer;
pub mod api;
pub mod book;
pub mod book_build;
mod bytes;
pub mod cost;
pub mod databases;
pub mod error;
pub mod journal;
pub mod openings;
pub mod oracle;
pub mod plan;
pub mod player;
pub mod progress;
pub mod published;
pub mod report;
pub mod setup;
pub mod snapshot;
pub mod split;
pub mod table;
pub mod text;
pub mod verify;

pub use analyzer::{probe, Analyzer, Request, RootTests};
pub use databases::{Databases, DbSpec, SetupBudget};
pub use error::{Error, ErrorKind, Result};
pub use progress::{Observer, SearchStatus, Silent};
pub use report::{Report, Source};
pub use setup::UsedDatabase;

pub use kalah_core::{Capture, End, Leftovers, Position, Relay, Rules, Side, Sowing};
pub use kalah_db::Database;
pub use kalah_search::{Bounded, BoundedAnalysis, BoundedMove, LineEnd, PvMove, TestOutcome};
