//! The one table type every search and probe reads ([`Table`]): a
//! database file, one built in memory, or none, so that one solver type
//! serves every source ([`crate::answer::plan`]).

use std::sync::Arc;

use kalah_core::{Board, Rules};
use kalah_db::{human_bytes, Builder, Database, NoTablebase, Stored, Tablebase};

/// A table of exact values that a search or a probe reads: a database
/// file (mapped, or loaded into memory), one built in memory, or none.
#[derive(Debug, Clone)]
pub enum Table {
    /// A database file.
    File(Arc<Database>),
    /// A database built in memory.
    Memory(Arc<Builder>),
    /// No database: covers nothing.
    None(NoTablebase),
}

impl Table {
    /// No database, for boards of `houses` houses under `rules`.
    pub fn none(houses: usize, rules: Rules) -> Table {
        Table::None(NoTablebase { houses, rules })
    }

    /// Whether it covers boards of `seeds` seeds.
    pub fn covers(&self, seeds: u32) -> bool {
        self.max_seeds().is_some_and(|n| seeds <= n)
    }

    /// What it is, for people: "the 20-seed database built in memory",
    /// "the 24-seed database PATH (1.2 GB)", "no endgame database".
    pub fn describe(&self) -> String {
        match self {
            Table::File(d) => describe_file(d),
            Table::Memory(b) => format!("the {}-seed database built in memory", b.indexer().max_seeds()),
            Table::None(_) => "no endgame database".to_string(),
        }
    }
}

/// A database file, for people: "the 24-seed database PATH (1.2 GB)".
pub fn describe_file(d: &Database) -> String {
    format!("the {}-seed database {} ({})", d.header().max_seeds, d.path().display(), human_bytes(d.file_bytes()))
}

impl Tablebase for Table {
    fn houses(&self) -> usize {
        match self {
            Table::File(d) => d.houses(),
            Table::Memory(b) => b.houses(),
            Table::None(n) => n.houses(),
        }
    }
    fn rules(&self) -> Rules {
        match self {
            Table::File(d) => Tablebase::rules(&**d),
            Table::Memory(b) => Tablebase::rules(&**b),
            Table::None(n) => n.rules(),
        }
    }
    fn max_seeds(&self) -> Option<u32> {
        match self {
            Table::File(d) => d.max_seeds(),
            Table::Memory(b) => b.max_seeds(),
            Table::None(n) => n.max_seeds(),
        }
    }
    #[inline]
    fn stored(&self, board: Board) -> Stored {
        match self {
            Table::File(d) => d.stored(board),
            Table::Memory(b) => b.stored(board),
            Table::None(n) => n.stored(board),
        }
    }
    fn is_exact(&self) -> bool {
        match self {
            Table::File(d) => Tablebase::is_exact(&**d),
            Table::Memory(b) => b.is_exact(),
            Table::None(n) => n.is_exact(),
        }
    }
    #[inline]
    fn slot(&self, board: Board) -> u64 {
        match self {
            Table::File(d) => d.slot(board),
            Table::Memory(b) => b.slot(board),
            Table::None(n) => n.slot(board),
        }
    }
    #[inline]
    fn prefetch_slot(&self, slot: u64) {
        match self {
            Table::File(d) => d.prefetch_slot(slot),
            Table::Memory(b) => b.prefetch_slot(slot),
            Table::None(n) => n.prefetch_slot(slot),
        }
    }
    #[inline]
    fn stored_at(&self, board: Board, slot: u64) -> Stored {
        match self {
            Table::File(d) => d.stored_at(board, slot),
            Table::Memory(b) => b.stored_at(board, slot),
            Table::None(n) => n.stored_at(board, slot),
        }
    }
    fn failure(&self) -> Option<String> {
        match self {
            Table::File(d) => d.failure(),
            Table::Memory(b) => b.failure(),
            Table::None(n) => n.failure(),
        }
    }
}
