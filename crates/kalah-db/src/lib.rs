//! Endgame databases for Kalah: the value of every board with up to `N`
//! seeds in its houses, for one board size and rule set.
//!
//! * [`builder`]: solving the levels in memory ([`Builder`]).
//! * [`memory`]: huge-page tables and the crate's only `unsafe`.
//! * [`tablebase`]: the interface the search probes ([`Tablebase`]).
#![warn(missing_docs)]

pub mod builder;
pub mod error;
pub mod memory;
pub mod tablebase;

pub use builder::{Builder, Progress, Quiet};
pub use error::{human_bytes, DbError};
pub use tablebase::{NoTablebase, Tablebase};
