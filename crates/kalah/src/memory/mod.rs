//! What the project remembers from one run to the next: the opening book
//! it carries ([`book`]), the exact answers kept in the database folder
//! ([`answers`]), a long search's journal and the search memory of a
//! folder ([`journal`]), and the transposition table kept beside a
//! journal (`snapshot`). Each file format is written down at the top of
//! its module; `bytes` reads them.

pub mod answers;
pub mod book;
pub(crate) mod bytes;
pub mod journal;
pub(crate) mod snapshot;
