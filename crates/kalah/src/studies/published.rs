//! The published values of `data/published.csv` (Irving, Donkers and
//! Uiterwijk 2000; Rawlings 2015), built into the library and parsed here
//! alone.

use kalah_core::Rules;
#[cfg(feature = "csv")]
use kalah_core::{Capture, End, Leftovers, Relay, Sowing};

/// The file, as shipped in `data/`.
#[cfg(feature = "csv")]
const CSV: &str = include_str!("../../data/published.csv");

/// A published value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// An exact store difference.
    Exact(i32),
    /// Only the outcome: a South win (`W`), loss (`L`) or draw (`D`).
    Outcome(char),
    /// A lower bound (`>=N`).
    AtLeast(i32),
}

/// One row of the file.
#[derive(Clone, Debug)]
pub struct Published {
    /// Houses a side.
    pub houses: usize,
    /// Seeds a house.
    pub seeds: u32,
    /// Capture, end and leftovers rules of the row (sowing ccw, no relay).
    pub rules: Rules,
    /// The value.
    pub claim: Claim,
    /// Who published it (`I`, `R`).
    pub source: String,
}

impl Claim {
    /// As written in the file.
    pub fn text(&self) -> String {
        match self {
            Claim::Exact(v) => v.to_string(),
            Claim::Outcome(c) => c.to_string(),
            Claim::AtLeast(v) => format!(">={v}"),
        }
    }

    /// Whether an exact value agrees.
    pub fn agrees(&self, value: i32) -> bool {
        match *self {
            Claim::Exact(v) => v == value,
            Claim::Outcome('W') => value > 0,
            Claim::Outcome('L') => value < 0,
            Claim::Outcome(_) => value == 0,
            Claim::AtLeast(v) => value >= v,
        }
    }

    /// Whether some value within `lower..=upper` agrees.
    pub fn possible(&self, lower: i32, upper: i32) -> bool {
        (lower..=upper).any(|v| self.agrees(v))
    }
}

/// Every row of the file; none in a build without the cargo feature
/// `csv` (on by default), which reads it.
#[cfg(not(feature = "csv"))]
pub fn all() -> Vec<Published> {
    Vec::new()
}

/// Every row of the file; none in a build without the cargo feature
/// `csv` (on by default), which reads it.
#[cfg(feature = "csv")]
pub fn all() -> Vec<Published> {
    /// A row as the file has it.
    #[derive(serde::Deserialize)]
    struct Row {
        houses: usize,
        seeds: u32,
        capture: String,
        end: String,
        leftovers: String,
        value: String,
        #[serde(default)]
        source: String,
    }
    let claim = |v: &str| match v {
        "W" | "L" | "D" => v.chars().next().map(Claim::Outcome),
        v => match v.strip_prefix(">=") {
            Some(n) => n.parse().ok().map(Claim::AtLeast),
            None => v.parse().ok().map(Claim::Exact),
        },
    };
    let mut reader = csv::ReaderBuilder::new().comment(Some(b'#')).trim(csv::Trim::All).from_reader(CSV.as_bytes());
    // The file is built in and every row of it is read (the test below
    // counts them): a row that does not read is passed over.
    reader
        .deserialize::<Row>()
        .filter_map(std::result::Result::ok)
        .filter_map(|r| {
            let (capture, end, leftovers) = (r.capture.parse::<Capture>().ok()?, r.end.parse::<End>().ok()?, r.leftovers.parse::<Leftovers>().ok()?);
            let rules = Rules { capture, end, leftovers, sowing: Sowing::Ccw, relay: Relay::Off };
            Some(Published { houses: r.houses, seeds: r.seeds, rules, claim: claim(&r.value)?, source: r.source })
        })
        .collect()
}

/// The published value of Kalah(h,s) under `rules`, if there is one.
pub fn find(h: usize, s: u32, rules: Rules) -> Option<Published> {
    all().into_iter().find(|p| p.houses == h && p.seeds == s && p.rules == rules)
}

#[cfg(test)]
#[cfg(feature = "csv")]
mod tests {
    use super::*;

    #[test]
    fn every_row_of_the_file_is_read() {
        let rows = all();
        assert_eq!(rows.len(), 39, "rows in data/published.csv");
        let r = find(6, 5, Rules { capture: Capture::Empty, ..Rules::default() }).unwrap();
        assert_eq!(r.claim, Claim::Exact(12));
        assert!(find(6, 6, Rules::default()).unwrap().claim.agrees(4));
        assert!(!find(6, 6, Rules::default()).unwrap().claim.agrees(2));
        assert!(find(1, 3, Rules { capture: Capture::Empty, ..Rules::default() }).unwrap().claim.agrees(1));
    }
}
