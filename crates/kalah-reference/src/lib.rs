//! A deliberately naive Kalah solver, written to be *obviously right* rather
//! than fast, for the fast engines to be checked against.
//!
//! The project's real engines (`kalah-core`'s bit-parallel [`Engine`], the
//! alpha-beta search, the endgame-database builder) are clever, and clever
//! code needs a referee. This crate is that referee. It shares nothing with
//! them but the rule option types ([`Rules`] and its enums), which it only
//! reads:
//!
//! * [`ring`]: the board as the plain absolute ring of `2h + 2` cells of
//!   `RULES.md` ([`RefPosition`]) and one move on it, sown one seed at a time
//!   ([`play`]), written straight from the rules text.
//! * [`values`]: exact values. Counter-clockwise sowing always ends, so
//!   plain memoised minimax is exact there. Clockwise sowing can go on for
//!   ever; values are then computed level by level (a level is the set of
//!   boards with a given number of seeds in the houses) with one naive
//!   fixed-point iteration per threshold, exact with no depth limit or move
//!   cap; the module docs explain why ([`solve()`], [`board_values`]).
//!
//! Speed is a non-goal beyond what the cross-checks need: every board of
//! `h <= 4` houses a side with up to 12 seeds takes seconds in release mode,
//! and so does solving Kalah(4,3) from the start.
//!
//! # Conventions
//!
//! * Cells of the ring, counter-clockwise: `0..h` are South's houses S1..Sh,
//!   `h` is South's store, `h+1..=2h` are North's houses N1..Nh, `2h+1` is
//!   North's store. Si is opposite N(h+1-i), i.e. cell `c` faces cell `2h - c`.
//! * Houses in moves are numbered 1..h from their owner's left.
//! * Values are store differences, player to move minus opponent, under
//!   perfect play by both sides each maximising their own final difference.
//!   Seeds that never reach a store (endless play, unscored leftovers) count
//!   for nobody.
//!
//! [`Engine`]: kalah_core::Engine
//! [`Rules`]: kalah_core::Rules
#![warn(missing_docs)]

pub mod ring;
pub mod values;

pub use ring::{play, RefPosition};
pub use values::{board_values, solve};
