//! Endgame databases for Kalah: the value of every board with up to `N`
//! seeds in its houses, for one board size and rule set.
//!
//! * [`builder`]: solving the levels in memory ([`Builder`]).
//! * [`format`](mod@format): the file format, specified at the top of the module.
//! * [`build`]: which way a file is built, and what it needs ([`build_file`]).
//! * [`writer`]: writing a file, level by level, resumable.
//! * [`levels`]: building a file one level at a time, the levels below read
//!   back from it, for databases whose levels do not all fit in memory.
//! * [`reader`]: opening, checking and probing a file ([`Database`]).
//! * [`pack`]: zstd archives restored byte for byte ([`pack::pack`], [`pack::unpack`]).
//! * [`memory`]: huge-page tables and the crate's only `unsafe`.
//! * [`tablebase`]: the interface the search probes ([`Tablebase`]).
#![warn(missing_docs)]

pub mod build;
pub mod builder;
pub mod error;
pub mod format;
mod kernel;
pub mod levels;
pub mod memory;
pub mod pack;
pub mod reader;
pub mod safe;
pub mod tablebase;
pub mod writer;

pub use build::{build_file, build_file_encoded, build_file_within, check_resources, check_resources_within};
pub use builder::{Builder, Progress, Quiet};
pub use error::{human_bytes, DbError};
pub use format::Encoding;
pub use reader::Database;
pub use tablebase::{NoTablebase, Stored, Tablebase};
pub use writer::{build_file_with, save_built, BuildProgress, BuildReport};
