//! Where a position's answer is decided: the one plan every question goes
//! through ([`plan`]: at once, a probe, bounds, retrograde analysis, a
//! search), the [`analyzer`] that takes its steps for one request, the
//! set-up of what answers (table sizes, databases built in memory, the
//! solvers: [`setup`]), what a long search is likely to cost ([`cost`]),
//! and the plan's other callers: the oracles of many positions
//! ([`oracle`]) and a game's player ([`player`]). Every table a search or a
//! probe reads is one [`table::Table`].

pub(crate) mod analyzer;
pub(crate) mod cost;
pub(crate) mod oracle;
pub(crate) mod plan;
pub(crate) mod player;
pub(crate) mod setup;
pub(crate) mod table;
