//! Exact search for Kalah: null-window alpha-beta (MTD(f)) with a shared,
//! lock-free transposition table, enhanced transposition cut-offs, futility
//! bounds from the seeds left on the board, and young-brothers-wait
//! splitting of nodes over rayon threads.
//!
//! * [`solver`]: [`Solver`], values of positions and moves, principal
//!   variations; [`BoundSolver`], proven bounds under rules that allow
//!   endless play (clockwise sowing).
//! * [`search`]: the node routine and its contract.
//! * [`tt`]: the transposition table and its entry layout.
#![warn(missing_docs)]

pub mod journal;
pub mod search;
pub mod solver;
pub mod tt;

pub use journal::{Entry, Journal};
pub use search::Stats;
pub use solver::{
    analyze_from_table, cores, spawn_search_thread, table_move, Analysis, BoundSolver, Bounded, BoundedAnalysis, BoundedMove, LineEnd, MoveValue,
    PvMove, SearchError, SearchOptions, SearchProgress, Solver, TestOutcome, SEARCH_STACK,
};
pub use tt::TranspositionTable;
