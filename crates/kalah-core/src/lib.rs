//! The rules of Kalah and the representations every other crate builds on.
//!
//! * [`rules`]: the rule options of `RULES.md` ([`Rules`], [`Opening`]).
//! * [`board`]: the houses seen from the player to move ([`Board`]).
//! * [`engine`]: one move under any rules ([`Engine::play`]).
//! * [`position`]: whole positions with stores and side to move, and their
//!   text forms ([`Position`]).
//! * [`key`]: the 64-bit packed key for transposition tables ([`KeyPacker`]).
//! * [`rank`]: the dense index of all boards with up to `N` seeds
//!   ([`Indexer`]), the order of every endgame database.
//!
//! Values throughout are *future store differences for the player to move*
//! (`RULES.md`, "Values"): what the mover will gain over the opponent from
//! now on under perfect play. The value of a position is its store
//! difference plus the value of its board.
#![warn(missing_docs)]

pub mod board;
pub mod chains;
pub mod engine;
pub mod error;
pub mod key;
pub mod position;
pub mod rank;
pub mod rules;

pub use board::{Board, MAX_HOUSES};
pub use engine::{Engine, Next, Outcome};
pub use error::{article, PositionError, RuleError};
pub use key::{key_house_limit, key_width, KeyPacker};
pub use position::{max_board_seeds, opening_turns, Position, Side};
pub use rank::{boards_up_to, boards_with, Indexer};
pub use rules::{Capture, End, Leftovers, Opening, Relay, Rules, Sowing};
