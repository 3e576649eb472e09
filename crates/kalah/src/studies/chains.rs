//! The clearing chains of one side (sowing solitaire, "Tchoukaillon"):
//! what `kalah chains` answers, as one serialisable [`Chains`]. The
//! combinatorics and their proof are in [`kalah_core::chains`].
use kalah_core::chains::{clearing_moves, clearing_pattern, houses_needed, least_seeds_needing, longest_chain, on_houses, ClearingPatterns};
use serde::Serialize;

use crate::error::{Error, Result};

/// Most seeds a listing may ask for (one row per seed count).
pub const MAX_SEEDS: u32 = 10_000;
/// Most houses a listing may ask for: the combinatorics do not need a
/// playable board, but s(h + 1) grows like h^2 / pi.
pub const MAX_HOUSES: usize = 1_000;

/// The clearing patterns of 1 to `max` seeds on `houses` houses, the
/// longest chain there, and the least seeds needing each board width.
/// Serialises to the object `kalah chains --json` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Chains {
    /// Houses a side.
    pub houses: usize,
    /// The patterns listed: 1 to this many seeds.
    pub max: u32,
    /// One pattern for each seed count, fewest seeds first.
    pub patterns: Vec<Pattern>,
    /// The longest chain on `houses` houses.
    pub longest_chain: LongestChain,
    /// s(k), the least seeds whose pattern needs k houses, for k = 1 up to
    /// the widest pattern listed (and at least `houses + 1`).
    pub least_seeds: Vec<LeastSeeds>,
}

/// The one pattern of `seeds` seeds that clears.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pattern {
    /// Seeds in the pattern, and moves in its chain.
    pub seeds: u32,
    /// Houses the pattern needs.
    #[serde(rename = "houses_needed")]
    pub needed: usize,
    /// Whether it fits on the listing's houses.
    pub fits: bool,
    /// The board it is laid out on: the listing's houses, or as many as it needs.
    #[serde(rename = "board_houses")]
    pub board: usize,
    /// Seeds in houses 1..=board from the owner's left.
    #[serde(rename = "pattern")]
    pub houses: Vec<u32>,
    /// Houses played, numbered on `board` houses.
    pub moves: Vec<usize>,
}

/// The longest clearing chain on a board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LongestChain {
    /// Its moves (s(h + 1) - 1).
    pub moves: u32,
    /// Its seeds: one a move.
    pub seeds: u32,
    /// Seeds in houses 1..=h from the owner's left.
    pub pattern: Vec<u32>,
    /// Houses played, from the owner's left.
    pub clearing_moves: Vec<usize>,
}

/// s(k): the least seeds whose clearing pattern needs `houses` houses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LeastSeeds {
    /// k.
    pub houses: usize,
    /// s(k).
    pub seeds: u32,
}

/// The listing of `houses` houses and 1 to `max` seeds; an error of kind
/// bad input names the field out of range ([`MAX_HOUSES`], [`MAX_SEEDS`]).
///
/// ```
/// let chains = kalah::chains::listing(6, 30)?;
/// assert_eq!(chains.longest_chain.moves, 17);
/// // Four seeds clear from houses 4 and 5 (of 6, from the owner's left): 4 6 5 6.
/// let four = &chains.patterns[3];
/// assert_eq!((four.houses.as_slice(), four.moves.as_slice()), ([0, 0, 0, 3, 1, 0].as_slice(), [4, 6, 5, 6].as_slice()));
/// assert!(kalah::chains::listing(0, 30).is_err());
/// # Ok::<(), kalah::Error>(())
/// ```
pub fn listing(houses: usize, max: u32) -> Result<Chains> {
    if !(1..=MAX_HOUSES).contains(&houses) {
        return Err(Error::bad_input(format!("{houses} houses a side: give 1 to {MAX_HOUSES}")));
    }
    if !(1..=MAX_SEEDS).contains(&max) {
        return Err(Error::bad_input(format!("patterns of up to {max} seeds: give 1 to {MAX_SEEDS}")));
    }
    let mut patterns = Vec::new();
    for (pattern, seeds) in ClearingPatterns::new().zip(0u32..).skip(1).take(max as usize) {
        let needed = houses_needed(&pattern);
        let board = needed.max(houses);
        let laid_out = on_houses(&pattern, board).ok_or_else(|| Error::internal(format!("the {seeds}-seed pattern does not fit its own width")))?;
        // Checked, not assumed: the forced chain empties the side, one seed a move.
        let chain = clearing_moves(&pattern).filter(|c| c.len() == seeds as usize);
        let chain = chain.ok_or_else(|| Error::internal(format!("the {seeds}-seed pattern does not clear in {seeds} moves")))?;
        let moves = chain.iter().map(|&d| board + 1 - d).collect();
        patterns.push(Pattern { seeds, needed, fits: needed <= houses, board, houses: laid_out, moves });
    }
    let longest = longest_chain(houses);
    let pattern = clearing_pattern(longest);
    let clearing = clearing_moves(&pattern).ok_or_else(|| Error::internal("the longest chain does not clear"))?;
    let pattern = on_houses(&pattern, houses).ok_or_else(|| Error::internal("the longest chain does not fit its board"))?;
    let longest_chain = LongestChain { moves: longest, seeds: longest, pattern, clearing_moves: clearing.iter().map(|&d| houses + 1 - d).collect() };
    let widest = patterns.iter().map(|r| r.needed).max().unwrap_or(0).max(houses + 1);
    let least_seeds = (1..=widest).map(|k| LeastSeeds { houses: k, seeds: least_seeds_needing(k) }).collect();
    Ok(Chains { houses, max, patterns, longest_chain, least_seeds })
}
