//! Where a position's answer is decided.
//!
//! * [`plan`]: the one plan every question goes through (at once, a
//!   probe, bounds, retrograde analysis, a search), and what it says to do
//!   next; [`table`], the one table type every probe and search reads.
//! * [`analyzer`]: the plan's steps for one [`request`]; [`search`], the
//!   work a step asks (a probe of a file, a search under its journal, a
//!   proof of bounds); [`kept`], what a long-lived analyzer keeps between
//!   requests; [`held`], one search held between the runs of a question.
//! * [`setup`]: what answers, set up (databases built in memory,
//!   retrograde analysis, the solvers, made in one place); [`sizes`], how
//!   large each may be, checked against the memory available; [`cost`],
//!   what a long search is likely to cost, said before it starts.
//! * The plan's other callers: the oracles of many positions ([`oracle`])
//!   and a game's [`player`], with its [`brains`].

pub(crate) mod analyzer;
pub(crate) mod brains;
pub(crate) mod cost;
pub(crate) mod held;
pub(crate) mod kept;
pub(crate) mod oracle;
pub(crate) mod plan;
pub(crate) mod player;
pub(crate) mod request;
pub(crate) mod search;
pub(crate) mod setup;
pub(crate) mod sizes;
pub(crate) mod table;
