//! Whole positions (houses, stores, side to move) and their text forms.
//!
//! # Text forms
//!
//! **Ring form** (`RULES.md`, "Writing a position"): the `2h + 2` cell counts
//! in counter-clockwise ring order, South's houses 1..h, South's store,
//! North's houses 1..h, North's store, separated by commas and/or spaces,
//! then the side to move, `S` or `N`. The start of Kalah(6,4) is
//!
//! ```text
//! 4,4,4,4,4,4,0,4,4,4,4,4,4,0 S
//! ```
//!
//! **Side form**: each side as `SIDE:HOUSES:STORE`, houses joined by `-`
//! from the owner's left, then the side to move:
//!
//! ```text
//! S:4-4-4-4-4-4:0 N:4-4-4-4-4-4:0 S
//! ```
//!
//! Both are accepted wherever a position is read ([`Position::from_str`]
//! tells them apart by the `:`); [`Position::ring`] and [`Position::sides`]
//! write them. Houses are numbered 1..h from their owner's left everywhere.

use std::fmt;
use std::str::FromStr;

use crate::board::{Board, MAX_HOUSES, OPPONENT};
use crate::engine::{Engine, Next, Outcome};
use crate::error::PositionError;

/// A player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The first player.
    South,
    /// The second player.
    North,
}

impl Side {
    /// The other player.
    pub fn other(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// `S` or `N`.
    pub fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }

    /// `South` or `North`.
    pub fn name(self) -> &'static str {
        match self {
            Side::South => "South",
            Side::North => "North",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl FromStr for Side {
    type Err = String;

    fn from_str(s: &str) -> Result<Side, String> {
        match s.to_ascii_lowercase().as_str() {
            "s" | "south" => Ok(Side::South),
            "n" | "north" => Ok(Side::North),
            _ => Err("the side to move must be S or N".into()),
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The largest number of seeds the houses of an `h`-house board may hold.
///
/// A house is one byte (at most 255 seeds), and the database index of a
/// board, which counts every distribution of up to this many seeds over the
/// `2h` houses, must fit in 64 bits: 206 seeds for h = 6, 136 for h = 7,
/// 100 for h = 8.
pub const fn max_board_seeds(h: usize) -> u32 {
    match h {
        0..=5 => 255,
        6 => 206,
        7 => 136,
        _ => 100,
    }
}

/// The most seeds a store and the houses may hold together in a position
/// given by the user: store differences and values are `i32`, and play
/// moves at most the seeds of the houses into a store, so every sum stays
/// far from overflow (issue 6: "2,4,4,2444444444 S" was read with a wrapped
/// store difference), and every position play reaches can be written and
/// read back (the fuzzer: "1,2,10,0,3,1000000000 N" was read, and the
/// position after North's house 2, with a store of 1000000001, was not).
pub const MAX_STORE: u32 = 1_000_000_000;

/// A position: both sides' houses and stores and the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    houses: usize,
    /// South's houses in cells `0..h`, North's in `h..2h` (South's view).
    board: Board,
    stores: [u32; 2],
    to_move: Side,
}

impl Position {
    /// The start of Kalah(h, s): `s` seeds in every house, South to move.
    pub fn start(h: usize, s: u32) -> Result<Position, PositionError> {
        check_houses(h)?;
        let max = max_board_seeds(h) / (2 * h as u32);
        if s == 0 || s > max {
            return Err(PositionError::Seeds {
                houses: h,
                seeds: s,
                max,
                why: "every house of the start must hold a seed, and the houses at most 255 in all (fewer on 6 to 8 houses, for the position index)",
            });
        }
        let side = vec![s; h];
        Position::new(&side, &side, [0, 0], Side::South)
    }

    /// A position from South's and North's houses (each from its owner's
    /// left), the stores `[South, North]` and the side to move.
    pub fn new(south: &[u32], north: &[u32], stores: [u32; 2], to_move: Side) -> Result<Position, PositionError> {
        Self::from_counts(south, north, stores, to_move)
    }

    fn from_counts<T: Copy + Into<u64>>(south: &[T], north: &[T], stores: [u32; 2], to_move: Side) -> Result<Position, PositionError> {
        let h = south.len();
        check_houses(h)?;
        if north.len() != h {
            return Err(PositionError::Malformed(format!("South has {h} houses and North {}; both sides need the same number", north.len())));
        }
        let total: u64 = south.iter().chain(north).map(|&s| s.into()).sum();
        let max = max_board_seeds(h);
        if total > max as u64 {
            return Err(PositionError::TooManySeeds { houses: h, total: total.min(u32::MAX as u64) as u32, max });
        }
        if let Some(&store) = stores.iter().find(|&&s| s as u64 + total > MAX_STORE as u64) {
            return Err(PositionError::Malformed(format!(
                "a store of {store} seeds is more than this program handles (a store and the {total} seeds in the houses at most {MAX_STORE} together, as play moves them into a store)"
            )));
        }
        let cells: Vec<u8> = south.iter().chain(north).map(|&s| s.into() as u8).collect();
        Ok(Position { houses: h, board: Board::from_sides(&cells[..h], &cells[h..]), stores, to_move })
    }

    /// A position of `h` houses from a board seen by the mover, the
    /// mover's side, and the stores `[South, North]`. Refused, like
    /// [`Position::new`], for a board with seeds beyond house `h`, more
    /// seeds than `h` houses hold, or stores too large.
    pub fn from_mover_board(h: usize, board: Board, to_move: Side, stores: [u32; 2]) -> Result<Position, PositionError> {
        check_houses(h)?;
        let mover: Vec<u32> = board.mover_houses(h).map(u32::from).collect();
        let opponent: Vec<u32> = board.opponent_houses(h).map(u32::from).collect();
        if mover.iter().chain(&opponent).sum::<u32>() != board.total() {
            return Err(PositionError::Malformed(format!("the board holds seeds beyond house {h}")));
        }
        let (south, north) = match to_move {
            Side::South => (mover, opponent),
            Side::North => (opponent, mover),
        };
        Position::new(&south, &north, stores, to_move)
    }

    /// The position after a move of a valid one: its board came from the
    /// engine, so it needs no check.
    fn after_move(h: usize, board: Board, to_move: Side, stores: [u32; 2]) -> Position {
        let board = match to_move {
            Side::South => board,
            Side::North => board.flip(),
        };
        Position { houses: h, board, stores, to_move }
    }

    /// Houses a side.
    pub fn houses(&self) -> usize {
        self.houses
    }

    /// The side to move.
    pub fn to_move(&self) -> Side {
        self.to_move
    }

    /// Seeds in `side`'s house `house` (1-based from the owner's left).
    ///
    /// # Panics
    /// If `house` is not one of `1..=houses()`: a caller's bug, as an index
    /// out of a slice is.
    pub fn house(&self, side: Side, house: usize) -> u8 {
        assert!((1..=self.houses).contains(&house), "house {house} of a board of {} houses", self.houses);
        self.board.get(side.index() * OPPONENT + house - 1)
    }

    /// Seeds in `side`'s store.
    pub fn store(&self, side: Side) -> u32 {
        self.stores[side.index()]
    }

    /// Seeds in all houses.
    pub fn seeds_in_houses(&self) -> u32 {
        self.board.total()
    }

    /// The houses seen from the player to move (see [`Board`]).
    pub fn mover_board(&self) -> Board {
        match self.to_move {
            Side::South => self.board,
            Side::North => self.board.flip(),
        }
    }

    /// The store difference now, for the player to move.
    pub fn store_difference(&self) -> i32 {
        let me = self.stores[self.to_move.index()] as i64;
        let them = self.stores[self.to_move.other().index()] as i64;
        (me - them) as i32
    }

    /// The houses (1-based) of the player to move that hold seeds: the
    /// moves of a game that is not over. Whether it is over depends on the
    /// rules ([`Position::is_over`]): a finished game has no move, seeds
    /// or not.
    pub fn legal_moves(&self) -> Vec<usize> {
        let b = self.mover_board();
        (0..self.houses).filter(|&i| b.get(i) > 0).map(|i| i + 1).collect()
    }

    /// Whether the game is over (see [`Engine::is_over`]).
    pub fn is_over(&self, engine: &Engine) -> bool {
        engine.is_over(self.mover_board())
    }

    /// Plays house `house` (1-based from the mover's left) of the player to
    /// move. Returns the new position and the outcome of the move.
    /// An engine of another board size is refused (its moves would read
    /// this board wrong), in release builds too.
    pub fn play(&self, engine: &Engine, house: usize) -> Result<(Position, Outcome), PositionError> {
        let h = self.houses;
        if engine.houses() != h {
            return Err(PositionError::WrongEngine { position_houses: h, engine_houses: engine.houses() });
        }
        if self.is_over(engine) {
            return Err(PositionError::IllegalMove("the game is over".into()));
        }
        if !(1..=h).contains(&house) {
            return Err(PositionError::IllegalMove(format!("there is no house {house}; houses are 1 to {h}")));
        }
        let board = self.mover_board();
        if board.get(house - 1) == 0 {
            return Err(PositionError::IllegalMove(format!("{}'s house {house} is empty", self.to_move)));
        }
        let outcome = engine.play(board, house - 1);
        let mover = self.to_move;
        let mut stores = self.stores;
        stores[mover.index()] += outcome.mover_gain;
        stores[mover.other().index()] += outcome.opponent_gain;
        let next = match outcome.next {
            Next::Mover => Position::after_move(h, outcome.board, mover, stores),
            Next::Opponent => Position::after_move(h, outcome.board, mover.other(), stores),
            Next::Over => {
                // The player who would move next is the one whose houses are empty.
                let to_move = if outcome.board.mover_empty() { mover } else { mover.other() };
                let absolute = Position::after_move(h, outcome.board, mover, stores);
                Position { to_move, ..absolute }
            }
        };
        Ok((next, outcome))
    }

    /// Every complete turn of the player to move (extra-move chains
    /// followed to their end, houses 1-based in the order played), with the
    /// position after it; none when the game is over (or `engine` is of
    /// another board size). A game's opening turns, and the turns a
    /// journal's summary shows.
    pub fn turns(&self, engine: &Engine) -> Vec<(Vec<usize>, Position)> {
        fn walk(engine: &Engine, p: &Position, prefix: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, Position)>) {
            if p.is_over(engine) {
                return;
            }
            for house in p.legal_moves() {
                let Ok((q, o)) = p.play(engine, house) else {
                    continue;
                };
                prefix.push(house);
                if o.next == Next::Mover {
                    walk(engine, &q, prefix, out);
                } else {
                    out.push((prefix.clone(), q));
                }
                prefix.pop();
            }
        }
        let mut out = Vec::new();
        walk(engine, self, &mut Vec::new(), &mut out);
        out
    }

    /// The position with the sides swapped: South's houses and store become
    /// North's and the other player is to move. Its value for the player to
    /// move is the same.
    pub fn mirrored(&self) -> Position {
        Position { houses: self.houses, board: self.board.flip(), stores: [self.stores[1], self.stores[0]], to_move: self.to_move.other() }
    }

    /// The ring form: `4,4,4,4,4,4,0,4,4,4,4,4,4,0 S`.
    pub fn ring(&self) -> String {
        let h = self.houses;
        let mut cells: Vec<String> = Vec::with_capacity(2 * h + 2);
        cells.extend((0..h).map(|i| self.board.get(i).to_string()));
        cells.push(self.stores[0].to_string());
        cells.extend((0..h).map(|j| self.board.opponent(j).to_string()));
        cells.push(self.stores[1].to_string());
        format!("{} {}", cells.join(","), self.to_move.letter())
    }

    /// The side form: `S:4-4-4-4-4-4:0 N:4-4-4-4-4-4:0 S`.
    pub fn sides(&self) -> String {
        let h = self.houses;
        let side = |range: std::ops::Range<usize>| range.map(|i| self.board.get(i).to_string()).collect::<Vec<_>>().join("-");
        format!("S:{}:{} N:{}:{} {}", side(0..h), self.stores[0], side(OPPONENT..OPPONENT + h), self.stores[1], self.to_move.letter())
    }

    /// A drawing of the board, North at the top (North's store on the left,
    /// South's on the right, as seen from South's seat).
    pub fn diagram(&self) -> String {
        let h = self.houses;
        let cell = |s: u8| format!("{s:>4}");
        let mut out = String::new();
        let north_labels: String = (1..=h).rev().map(|i| format!("{:>4}", format!("N{i}"))).collect();
        let south_labels: String = (1..=h).map(|i| format!("{:>4}", format!("S{i}"))).collect();
        out.push_str(&format!("      {north_labels}\n"));
        let north: String = (1..=h).rev().map(|i| cell(self.house(Side::North, i))).collect();
        out.push_str(&format!("      {north}\n"));
        out.push_str(&format!("  {:>3} {:width$} {:<3}\n", self.stores[1], "", self.stores[0], width = 4 * h));
        let south: String = (1..=h).map(|i| cell(self.house(Side::South, i))).collect();
        out.push_str(&format!("      {south}\n"));
        out.push_str(&format!("      {south_labels}\n"));
        out
    }
}

fn check_houses(h: usize) -> Result<(), PositionError> {
    if (1..=MAX_HOUSES).contains(&h) {
        Ok(())
    } else {
        Err(PositionError::Houses { houses: h, max: MAX_HOUSES })
    }
}

/// Reads a seed count token.
fn seeds(at: usize, token: &str) -> Result<u32, PositionError> {
    let bad = |why: &str| PositionError::BadToken { at, token: token.to_string(), why: why.to_string() };
    if token.starts_with('-') && token[1..].chars().all(|c| c.is_ascii_digit()) && token.len() > 1 {
        return Err(bad("seed counts cannot be negative"));
    }
    if token.is_empty() || !token.chars().all(|c| c.is_ascii_digit()) {
        return Err(bad("not a seed count (a whole number is expected)"));
    }
    token.parse::<u32>().map_err(|_| bad("too large"))
}

fn side_token(at: usize, token: &str) -> Result<Side, PositionError> {
    token.parse::<Side>().map_err(|why| PositionError::BadToken { at, token: token.to_string(), why })
}

impl FromStr for Position {
    type Err = PositionError;

    /// Reads the ring form or the side form (see the module docs).
    fn from_str(text: &str) -> Result<Position, PositionError> {
        if text.contains(':') {
            parse_sides(text)
        } else {
            parse_ring(text)
        }
    }
}

fn parse_ring(text: &str) -> Result<Position, PositionError> {
    // Two commas with nothing between them leave out a count: refused, not
    // read as if the counts after it moved up a house.
    let pieces: Vec<&str> = text.split(',').collect();
    if pieces.len() > 1 {
        if let Some(at) = pieces.iter().position(|p| p.trim().is_empty()) {
            return Err(PositionError::Malformed(format!("field {} is empty (two commas with no count between them, or a comma at an end)", at + 1)));
        }
    }
    let tokens: Vec<&str> = text.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()).collect();
    let Some((&last, numbers)) = tokens.split_last() else {
        return Err(PositionError::Malformed("empty; expected 2h+2 numbers then S or N, e.g. '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'".into()));
    };
    let side = side_token(tokens.len(), last)?;
    let counts = numbers.iter().enumerate().map(|(i, t)| seeds(i + 1, t)).collect::<Result<Vec<u32>, _>>()?;
    let n = counts.len();
    if n % 2 != 0 || !(4..=2 * MAX_HOUSES + 2).contains(&n) {
        return Err(PositionError::Malformed(format!(
            "{n} numbers before the side to move; the ring form needs 2h+2 of them \
             (h houses and a store for each side, h from 1 to {MAX_HOUSES}: 4, 6, .., 18)"
        )));
    }
    let h = n / 2 - 1;
    Position::from_counts(&counts[..h], &counts[h + 1..2 * h + 1], [counts[h], counts[2 * h + 1]], side)
}

fn parse_sides(text: &str) -> Result<Position, PositionError> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    if tokens.len() != 3 {
        return Err(PositionError::Malformed(format!(
            "the side form has 3 parts, 'S:houses:store N:houses:store SIDE' (e.g. 'S:4-4-4:0 N:4-4-4:0 S'); found {}",
            tokens.len()
        )));
    }
    let mut sides: [Option<(Vec<u32>, u32)>; 2] = [None, None];
    for (i, token) in tokens[..2].iter().enumerate() {
        let at = i + 1;
        let bad = |why: String| PositionError::BadToken { at, token: token.to_string(), why };
        let parts: Vec<&str> = token.split(':').collect();
        if parts.len() != 3 {
            return Err(bad("expected SIDE:HOUSES:STORE such as S:4-4-4:0".into()));
        }
        let side = parts[0].parse::<Side>().map_err(|_| bad(format!("'{}' is not a side (S or N)", parts[0])))?;
        let houses = parts[1]
            .split('-')
            .map(|t| seeds(at, t).map_err(|e| bad(format!("house count '{t}': {}", why_of(&e)))))
            .collect::<Result<Vec<u32>, _>>()?;
        let store = seeds(at, parts[2]).map_err(|e| bad(format!("store '{}': {}", parts[2], why_of(&e))))?;
        if sides[side.index()].replace((houses, store)).is_some() {
            return Err(bad(format!("{side} is given twice")));
        }
    }
    let to_move = side_token(3, tokens[2])?;
    let [Some((south, south_store)), Some((north, north_store))] = sides else {
        return Err(PositionError::Malformed("both S and N must be given".into()));
    };
    Position::from_counts(&south, &north, [south_store, north_store], to_move)
}

fn why_of(e: &PositionError) -> String {
    match e {
        PositionError::BadToken { why, .. } => why.clone(),
        other => other.to_string(),
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.ring())
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.ring())
    }
}

/// Every complete first turn of the player to move in `start`
/// ([`Position::turns`]).
pub fn opening_turns(engine: &Engine, start: &Position) -> Vec<(Vec<usize>, Position)> {
    start.turns(engine)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use proptest::prelude::*;

    /// A turn is its moves replayed: every move but the last gives the
    /// mover another, the last does not; a move without an extra move is a
    /// turn of its own, and a finished game has none.
    #[test]
    fn a_turn_follows_extra_moves_to_their_end() {
        let engine = Engine::new(6, Rules::default());
        let start = Position::start(6, 4).unwrap();
        let turns = start.turns(&engine);
        for (houses, after) in &turns {
            let mut at = start;
            for (i, &house) in houses.iter().enumerate() {
                let (next, o) = at.play(&engine, house).unwrap();
                assert_eq!(o.next == Next::Mover, i + 1 < houses.len(), "{houses:?}");
                at = next;
            }
            assert_eq!(at, *after);
        }
        let single: Vec<usize> = turns.iter().filter(|(h, _)| h.len() == 1).map(|(h, _)| h[0]).collect();
        let no_extra: Vec<usize> = start.legal_moves().into_iter().filter(|&m| start.play(&engine, m).unwrap().1.next != Next::Mover).collect();
        assert_eq!(single, no_extra);
        assert!(turns.iter().any(|(h, _)| h.len() > 1), "house 3 of Kalah(6,4) moves again");
        let over: Position = "0,0,0,0,5,2,1,0,0,3 S".parse().unwrap();
        assert!(over.turns(&Engine::new(4, Rules::default())).is_empty());
        assert_eq!(opening_turns(&engine, &start), turns);
    }

    /// Issue 52: a board with seeds beyond its houses made the search panic.
    #[test]
    fn a_board_that_is_not_one_of_its_houses_is_refused() {
        let beyond = Board::from_sides(&[1, 1, 1, 5], &[1, 1, 1, 0]);
        assert!(matches!(Position::from_mover_board(3, beyond, Side::South, [0, 0]), Err(PositionError::Malformed(_))));
        let full = Board::from_sides(&[255; 6], &[255; 6]);
        assert!(matches!(Position::from_mover_board(6, full, Side::North, [0, 0]), Err(PositionError::TooManySeeds { .. })));
        assert!(Position::from_mover_board(9, Board::EMPTY, Side::South, [0, 0]).is_err());
        // A board of its houses: the same position as by its counts, North's seen from North.
        let board = Board::from_sides(&[1, 2, 3], &[4, 0, 5]);
        let north = Position::from_mover_board(3, board, Side::North, [2, 7]).unwrap();
        assert_eq!(north, Position::new(&[4, 0, 5], &[1, 2, 3], [2, 7], Side::North).unwrap());
        assert_eq!(north.mover_board(), board);
    }

    /// Issue 52: a 4-house start played by a 6-house engine lost two seeds
    /// and gained a turn; it is refused, in release builds too.
    #[test]
    fn a_position_played_by_an_engine_of_another_size_is_refused() {
        let start = Position::start(4, 3).unwrap();
        for h in [1, 3, 5, 6, 8] {
            let e = start.play(&Engine::new(h, Rules::default()), 4).unwrap_err();
            assert_eq!(e, PositionError::WrongEngine { position_houses: 4, engine_houses: h });
        }
        assert!(start.play(&Engine::new(4, Rules::default()), 4).is_ok());
    }

    #[test]
    fn start_position_in_both_forms() {
        let p = Position::start(6, 4).unwrap();
        assert_eq!(p.ring(), "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
        assert_eq!(p.sides(), "S:4-4-4-4-4-4:0 N:4-4-4-4-4-4:0 S");
        assert_eq!("4,4,4,4,4,4,0,4,4,4,4,4,4,0 S".parse::<Position>().unwrap(), p);
        assert_eq!("4 4 4 4 4 4 0 4 4 4 4 4 4 0 s".parse::<Position>().unwrap(), p);
        assert_eq!("S:4-4-4-4-4-4:0 N:4-4-4-4-4-4:0 S".parse::<Position>().unwrap(), p);
        assert_eq!("N:4-4-4-4-4-4:0 S:4-4-4-4-4-4:0 south".parse::<Position>().unwrap(), p);
    }

    #[test]
    fn parse_errors_name_the_token_and_the_reason() {
        let err = |s: &str| s.parse::<Position>().unwrap_err().to_string();
        let e = err("4,4,x,4,4,4,0,4,4,4,4,4,4,0 S");
        assert!(e.contains("token 3 'x'") && e.contains("not a seed count"), "{e}");
        let e = err("4,4,4,4,4,4,0,4,-2,4,4,4,4,0 S");
        assert!(e.contains("token 9 '-2'") && e.contains("negative"), "{e}");
        let e = err("4,4,4,4,4,4,0,4,4,4,4,4,4,0 Q");
        assert!(e.contains("token 15 'Q'") && e.contains("S or N"), "{e}");
        let e = err("4,4,4,4,4,4,0,4,4,4,4,4,0 S");
        assert!(e.contains("13 numbers"), "{e}");
        let e = err("");
        assert!(e.contains("empty"), "{e}");
        // An empty field is refused, not read as the counts after it moved up (issue 38).
        let e = err("4,,4,4,0,4,4,4,0 S");
        assert!(e.contains("field 2 is empty"), "{e}");
        assert!(err("4,4, ,4,0,4,4,4,4,0 S").contains("field 3 is empty"));
        assert!(err(",4,4,4,0,4,4,4,4,0 S").contains("field 1 is empty"));
        // Spaces after the commas, and a space-separated ring, still read.
        assert_eq!("4, 4, 4, 4, 0, 4, 4, 4, 4, 0 S".parse::<Position>().unwrap(), Position::start(4, 4).unwrap());
        assert_eq!("4 4 4 4 0 4 4 4 4 0 S".parse::<Position>().unwrap(), Position::start(4, 4).unwrap());
        let e = err("1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 S");
        assert!(e.contains("20 numbers"), "{e}");
        let e = err("S:4-4:0 N:4-4-4:0 S");
        assert!(e.contains("same number"), "{e}");
        let e = err("S:4-4:0 S:4-4:0 S");
        assert!(e.contains("twice"), "{e}");
        let e = err("100,100,0,100,0,0 S");
        assert!(e.contains("too many"), "{e}");
    }

    #[test]
    fn start_refuses_what_cannot_be_represented() {
        assert!(matches!(Position::start(0, 4), Err(PositionError::Houses { .. })));
        assert!(matches!(Position::start(9, 4), Err(PositionError::Houses { .. })));
        assert!(matches!(Position::start(6, 0), Err(PositionError::Seeds { .. })));
        assert!(Position::start(6, 17).is_ok());
        let e = Position::start(6, 18).unwrap_err().to_string();
        assert!(e.contains("18 seeds per house") && e.contains("1 to 17"), "{e}");
    }

    #[test]
    fn playing_updates_stores_and_side() {
        let engine = Engine::new(6, Rules::default());
        let p = Position::start(6, 4).unwrap();
        let (q, o) = p.play(&engine, 3).unwrap();
        assert_eq!(o.next, Next::Mover);
        assert_eq!(q.ring(), "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S");
        let (r, _) = q.play(&engine, 6).unwrap();
        assert_eq!(r.ring(), "4,4,0,5,5,0,2,5,5,5,5,4,4,0 N");
        let (s, _) = r.play(&engine, 1).unwrap();
        assert_eq!(s.ring(), "4,4,0,5,5,0,2,0,6,6,6,5,5,0 S");
        assert!(p.play(&engine, 7).is_err());
        assert!(s.play(&engine, 3).unwrap_err().to_string().contains("empty"));
    }

    #[test]
    fn every_position_play_reaches_reads_back() {
        // A store and the houses together at most MAX_STORE: the largest
        // store play can make is still one the reader takes. North's house
        // 1 sows into its empty house 2 and captures South's last seed:
        // every seed ends in North's store.
        let edge = format!("1,0,0,1,0,{} N", MAX_STORE - 2);
        let p: Position = edge.parse().unwrap();
        let engine = Engine::new(2, Rules::default());
        let (q, _) = p.play(&engine, 1).unwrap();
        assert_eq!(q.store(Side::North), MAX_STORE);
        assert_eq!(q.ring().parse::<Position>().unwrap(), q);
        let over = format!("1,0,0,1,0,{} N", MAX_STORE - 1);
        let e = over.parse::<Position>().unwrap_err().to_string();
        assert!(e.contains("the 2 seeds in the houses") && e.contains("at most 1000000000"), "{e}");
    }

    #[test]
    fn the_diagram_shows_houses_and_stores() {
        let p: Position = "1,2,3,4,5,6,7,8 N".parse().unwrap();
        let d = p.diagram();
        assert!(d.contains("N3  N2  N1"), "{d}");
        assert!(d.contains("S1  S2  S3"), "{d}");
        assert!(d.contains("   7   6   5"), "{d}");
        assert!(d.contains("   1   2   3"), "{d}");
    }

    proptest! {
        #[test]
        fn both_forms_round_trip(h in 1usize..=8, cells in prop::collection::vec(0u32..=6, 16), stores in (0u32..100, 0u32..100), north in any::<bool>()) {
            let side = if north { Side::North } else { Side::South };
            let p = Position::new(&cells[..h], &cells[8..8 + h], [stores.0, stores.1], side).unwrap();
            prop_assert_eq!(p.ring().parse::<Position>().unwrap(), p);
            prop_assert_eq!(p.sides().parse::<Position>().unwrap(), p);
            prop_assert_eq!(p.mirrored().mirrored(), p);
            prop_assert_eq!(p.mirrored().mover_board(), p.mover_board());
        }
    }
}
