//! Error types of the core crate.

use thiserror::Error;

/// An unknown rule option value.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleError {
    /// The value is not one of the option's names.
    #[error("unknown {option} '{value}' (expected one of: {expected})")]
    UnknownValue {
        /// The option, as its command-line flag without dashes.
        option: &'static str,
        /// What was given.
        value: String,
        /// The accepted names.
        expected: String,
    },
}

/// A board or a position that this crate cannot represent or that breaks the rules.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionError {
    /// The number of houses per side is outside `1..=8`.
    #[error("{houses} houses per side is not supported (1 to {max} are)")]
    Houses {
        /// What was asked for.
        houses: usize,
        /// The largest supported number.
        max: usize,
    },
    /// Seeds per house at the start outside what can be searched.
    #[error("{seeds} seeds per house is not supported on {} {houses}-house board (1 to {max} are: {why})", article(*.houses as u64))]
    Seeds {
        /// Houses per side.
        houses: usize,
        /// What was asked for.
        seeds: u32,
        /// The largest supported number.
        max: u32,
        /// The limit that applies.
        why: &'static str,
    },
    /// More seeds on the board than a house cell or the position index can hold.
    #[error("{total} seeds in the houses is too many for {} {houses}-house board (at most {max})", article(*.houses as u64))]
    TooManySeeds {
        /// Houses per side.
        houses: usize,
        /// Seeds in all houses.
        total: u32,
        /// The largest supported total.
        max: u32,
    },
    /// A token of a position could not be read.
    #[error("bad position: token {at} '{token}': {why}")]
    BadToken {
        /// 1-based index of the token.
        at: usize,
        /// The token.
        token: String,
        /// What is wrong with it.
        why: String,
    },
    /// The position text as a whole is malformed.
    #[error("bad position: {0}")]
    Malformed(String),
    /// A move that is not legal in the position.
    #[error("illegal move: {0}")]
    IllegalMove(String),
    /// A position played with an engine of another board size.
    #[error("a position of {position_houses} houses a side played by a rules engine of {engine_houses}")]
    WrongEngine {
        /// The position's houses a side.
        position_houses: usize,
        /// The engine's.
        engine_houses: usize,
    },
}

/// The article before a number said aloud: "an" for 8, 11, 18, 80-89,
/// 800-899 (and the same thousands), else "a": "an 8-house board", "a
/// 6-house board".
pub fn article(n: u64) -> &'static str {
    let mut lead = n;
    while lead >= 1000 {
        lead /= 1000;
    }
    if lead == 8 || lead == 11 || lead == 18 || (80..=89).contains(&lead) || (800..=899).contains(&lead) {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_follow_the_spoken_number() {
        for n in [8, 11, 18, 80, 86, 89, 800, 8000, 11_000, 18_500] {
            assert_eq!(article(n), "an", "{n}");
        }
        for n in [0, 1, 7, 10, 12, 16, 24, 30, 100, 110, 180, 1000, 1_100] {
            assert_eq!(article(n), "a", "{n}");
        }
    }

    #[test]
    fn messages_take_the_article_of_their_number() {
        let seeds = |houses| PositionError::Seeds { houses, seeds: 40, max: 6, why: "x" }.to_string();
        assert!(seeds(8).contains("on an 8-house board"), "{}", seeds(8));
        assert!(seeds(6).contains("on a 6-house board"), "{}", seeds(6));
    }
}
