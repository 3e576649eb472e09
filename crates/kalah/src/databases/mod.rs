//! The database library: a directory of database files, choosing one for
//! a position and a budget, opening, checking and loading it.
//!
//! Where each is decided: the folder, its file names and the files it
//! holds (`folder.rs`); every file listed with what the reader thinks of
//! it (`listing.rs`); which database a request uses and which file a
//! position gets (`choice.rs`); a file copied into memory for a search or
//! left mapped (`loading.rs`); the deep check of a file's values
//! (`equations.rs`); strong solutions ([`strong`]), what their files say
//! (`facts.rs`) and their manifest (`manifest.rs`).
//!
//! Files in the directory are found by their default names,
//! `kalah-h{H}-n{N}-{TAG}.kdb` ([`Databases::path_for`]: `H` houses, every
//! board with up to `N` seeds, `TAG` the rules' [`Rules::tag`](kalah_core::Rules::tag)); any other
//! file can still be opened by its path ([`DbSpec::file`]).
//!
//! # Which file a position gets
//!
//! Among the files for its board and rules ([`Databases::choose`]): the
//! largest if it covers the position (it is probed, not loaded), else the
//! smallest within a gap of seeds below it ([`VALUE_LOAD_GAP`] for a value
//! or a best move, [`ANALYSIS_LOAD_GAP`] for every move's value), which
//! loads faster than a larger one would pay back; the largest if none lies
//! within. Under a time limit a file that would have to be loaded and
//! takes more than a quarter of the limit to load ([`SetupBudget`]) is
//! passed over.

mod choice;
mod equations;
mod facts;
mod folder;
mod listing;
mod loading;
#[cfg(feature = "csv")]
mod manifest;
pub mod strong;

pub use choice::{table_mb_within, Choice, DbFile, DbSpec, Purpose, SetupBudget, ANALYSIS_LOAD_GAP, TABLE_MB_PER_SECOND, VALUE_LOAD_GAP};
pub use equations::verify_equations;
pub use folder::{answers_dir, Databases, DefaultDir, FoundFile, JOURNAL_FILE};
pub use listing::{ListedArchive, ListedDatabase, ListedMemory, Listing, PartialFile, RefusedFile};
pub(crate) use loading::copied_into_memory;
pub use loading::{for_search, for_search_by, for_search_held, for_search_up_to, DbHold, INTERACTIVE_LOAD_LIMIT};
