//! The rule options of `RULES.md`, their names and their byte codes.
//!
//! Five options change the value of a position and are therefore part of
//! every database header ([`Rules`]); two more, the pie rule and the seed
//! shift, only change how a game opens and live in [`Opening`].
//!
//! Every option has a command-line spelling (`--capture empty`) that
//! [`FromStr`] accepts and [`fmt::Display`] prints, and a one-byte code used
//! by the database format; both are stable.

use std::fmt;
use std::str::FromStr;

use crate::error::RuleError;

/// Defines a rule option enum with its names, codes and default.
macro_rules! rule_option {
    (
        $(#[$meta:meta])*
        $name:ident, $flag:literal {
            $( $(#[$vmeta:meta])* $variant:ident = ($code:literal, $text:literal) ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every value, the default first.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The command-line flag that sets this option.
            pub const FLAG: &'static str = $flag;

            /// The stable one-byte code used in database headers.
            pub const fn code(self) -> u8 {
                match self { $($name::$variant => $code),+ }
            }

            /// The option for a database header code, if it is one.
            pub const fn from_code(code: u8) -> Option<Self> {
                match code { $($code => Some($name::$variant),)+ _ => None }
            }

            /// The name used on the command line and in output.
            pub const fn name(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::ALL[0]
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $name {
            type Err = RuleError;

            fn from_str(s: &str) -> Result<Self, RuleError> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.name().eq_ignore_ascii_case(s.trim()))
                    .ok_or_else(|| RuleError::UnknownValue {
                        option: $flag,
                        value: s.to_string(),
                        expected: Self::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", "),
                    })
            }
        }
    };
}

rule_option! {
    /// Which last seeds in an own empty house capture.
    Capture, "capture" {
        /// Capture only when the opposite house holds at least one seed.
        Standard = (0, "standard"),
        /// Capture even when the opposite house is empty (Irving et al., Rawlings).
        Empty = (1, "empty"),
    }
}

rule_option! {
    /// When the game ends.
    End, "end" {
        /// As soon as, after a move, either side's houses are all empty.
        Instant = (0, "instant"),
        /// Only when the player to move has no seed in their houses.
        Turn = (1, "turn"),
    }
}

rule_option! {
    /// Who scores the seeds left in houses when the game ends.
    Leftovers, "leftovers" {
        /// Each house's owner (the standard sweep).
        Owner = (0, "owner"),
        /// Nobody.
        Unscored = (1, "unscored"),
        /// The player whose houses are empty.
        Emptier = (2, "emptier"),
    }
}

rule_option! {
    /// The sowing direction.
    Sowing, "sowing" {
        /// Counter-clockwise: own houses, own store, opponent's houses.
        Ccw = (0, "ccw"),
        /// Clockwise: own houses leftwards, opponent's houses, own store.
        Cw = (1, "cw"),
    }
}

rule_option! {
    /// Relay sowing ("Seed On").
    Relay, "relay" {
        /// Plain sowing with captures.
        Off = (0, "off"),
        /// No captures; a last seed in a non-empty house picks it up and sows on.
        On = (1, "on"),
    }
}

/// The five rule options that change the value of a position.
///
/// The default is the standard game: standard capture, instant end, owner
/// sweep, counter-clockwise sowing, no relay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Which captures are allowed.
    pub capture: Capture,
    /// When the game ends.
    pub end: End,
    /// Who scores seeds left in houses at the end.
    pub leftovers: Leftovers,
    /// Sowing direction.
    pub sowing: Sowing,
    /// Relay sowing.
    pub relay: Relay,
}

impl Rules {
    /// The rules of Irving, Donkers & Uiterwijk (2000): empty capture, otherwise standard.
    pub const IRVING: Rules =
        Rules { capture: Capture::Empty, end: End::Instant, leftovers: Leftovers::Owner, sowing: Sowing::Ccw, relay: Relay::Off };

    /// Every one of the 48 combinations of the five options.
    pub fn all() -> impl Iterator<Item = Rules> {
        Capture::ALL.iter().flat_map(|&capture| {
            End::ALL.iter().flat_map(move |&end| {
                Leftovers::ALL.iter().flat_map(move |&leftovers| {
                    Sowing::ALL.iter().flat_map(move |&sowing| Relay::ALL.iter().map(move |&relay| Rules { capture, end, leftovers, sowing, relay }))
                })
            })
        })
    }

    /// Whether play can go on forever (clockwise sowing), so that values
    /// need the retrograde method instead of alpha-beta.
    pub fn may_cycle(&self) -> bool {
        self.sowing == Sowing::Cw
    }

    /// Whether every seed is scored by someone when the game ends, so that
    /// the value of a position with `n` seeds in its houses has the parity
    /// of `n`. False for unscored leftovers and for clockwise sowing, where
    /// endless play leaves seeds unscored.
    pub fn values_have_seed_parity(&self) -> bool {
        self.leftovers != Leftovers::Unscored && self.sowing == Sowing::Ccw
    }

    /// A short file-name friendly tag such as `empty-instant-owner-ccw-off`.
    pub fn tag(&self) -> String {
        format!("{}-{}-{}-{}-relay{}", self.capture, self.end, self.leftovers, self.sowing, self.relay)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "capture={} end={} leftovers={} sowing={} relay={}", self.capture, self.end, self.leftovers, self.sowing, self.relay)
    }
}

/// The options that only change how a game opens (`RULES.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Opening {
    /// North may swap sides after South's first turn.
    pub pie: bool,
    /// North moves one seed before South starts.
    pub shift: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_48_rule_sets_all_distinct() {
        let all: Vec<Rules> = Rules::all().collect();
        assert_eq!(all.len(), 48);
        let set: std::collections::HashSet<_> = all.iter().collect();
        assert_eq!(set.len(), 48);
        assert_eq!(all[0], Rules::default());
    }

    #[test]
    fn names_and_codes_round_trip() {
        for &c in Capture::ALL {
            assert_eq!(c.name().parse::<Capture>().unwrap(), c);
            assert_eq!(Capture::from_code(c.code()), Some(c));
        }
        for &s in Sowing::ALL {
            assert_eq!(s.to_string().parse::<Sowing>().unwrap(), s);
            assert_eq!(Sowing::from_code(s.code()), Some(s));
        }
        assert_eq!(Leftovers::from_code(3), None);
        assert_eq!("EMPTY".parse::<Capture>().unwrap(), Capture::Empty);
    }

    #[test]
    fn unknown_names_say_what_is_accepted() {
        let err = "sideways".parse::<Sowing>().unwrap_err().to_string();
        assert!(err.contains("sowing"), "{err}");
        assert!(err.contains("sideways"), "{err}");
        assert!(err.contains("ccw, cw"), "{err}");
    }
}
