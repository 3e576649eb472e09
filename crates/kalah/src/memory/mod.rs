//! What the project remembers from one run to the next: the opening book
//! it carries ([`book`]), the exact answers kept in the database folder
//! ([`answers`]), a long search's journal and the search memory of a
//! folder ([`journal`]), the transposition table kept beside a journal
//! (`snapshot`), and what the project has proven and ships (`proven`). Each file format is written down at the top of
//! its module; `bytes` reads them.

pub mod answers;
pub mod book;
pub(crate) mod bytes;
pub mod journal;
pub(crate) mod proven;
pub(crate) mod snapshot;
