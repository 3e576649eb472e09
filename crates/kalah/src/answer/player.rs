//! Values and best moves for a game played from one start: what `kalah
//! play` (and any program that plays) asks position after position.
//!
//! # Where the values come from
//!
//! One [`Brain`] serves the whole game, built once at the start by
//! [`for_game`] (every later position has at most the start's seeds in
//! its houses):
//!
//! * an endgame database that covers the start: every value is a probe;
//! * clockwise sowing without one: every board with up to the start's
//!   seeds solved in memory by retrograde analysis, then probes; where
//!   that does not fit, values proven by searches over a smaller database
//!   (an error if one is not proven within a minute);
//! * otherwise one [`Solver`](kalah_search::Solver), so its transposition table (and the
//!   database behind it, if any) carries over from move to move, with a
//!   cache of the exact board values it has found.
//!
//! # How a best move is chosen
//!
//! A best move, never anything less: a move whose exact value equals the
//! position's value. From a table it is the first move of the table's line
//! of best play, which under clockwise sowing also makes progress towards
//! cashing in a lead (see `kalah_search::analyze_from_table`). From a
//! search: the position's exact value first, then a move whose bounds in
//! the transposition table already prove that it reaches it (the search
//! that proved the value usually left them), else the remaining moves
//! solved exactly, the most promising first. While a person thinks, a
//! brain may *ponder* ([`Brain::ponder`]): in the background it computes
//! the value of every move and then its own best reply to each, best moves
//! first, in slices of search (a tenth of a second, growing to 0.8 s) so
//! that it stops soon after the person answers; all it learns stays in the
//! table and the caches.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use kalah_core::{boards_up_to, Position};

use crate::answer::brains::{answerable, move_value, BoundBrain, SearchBrain, TableBrain};
use crate::answer::plan::{self, Plan, Step, Table};
use crate::answer::setup::{Load, Setup};
use crate::answer::sizes::BOUNDS_TIME;
use crate::databases::{Databases, INTERACTIVE_LOAD_LIMIT};
use crate::error::{Error, Result};
use crate::report::UsedDatabase;
use crate::text::{a_size, group};

pub use crate::answer::brains::{BookBrain, Brain, MakeBrain};

/// The one source of values for a game from `start`: see the module
/// docs. The database is the file named, or the largest default one of at
/// most [`INTERACTIVE_LOAD_LIMIT`] bytes; without either, one built in
/// memory, which, when its size was not asked for, is kept as a file of
/// `databases` for the next game or search ([`Databases::keep_built`]).
pub fn for_game(databases: &Databases, setup: &Setup<'_>, start: &Position) -> Result<Box<dyn Brain>> {
    let engine = setup.engine.clone();
    let (h, rules) = (engine.houses(), engine.rules());
    if start.houses() != h {
        return Err(Error::bad_input(format!("the start has {} houses a side, the rules engine {h}", start.houses())));
    }
    let (threads, seeds) = (setup.threads, start.seeds_in_houses());
    let file = databases.open_up_to(setup.spec, h, rules, INTERACTIVE_LOAD_LIMIT)?;
    let step = match plan::step(setup, seeds, file)? {
        Plan::Take(step) => step,
        Plan::Build { seeds: n, file } => {
            let mut memory = setup.build_noted(n, file.is_some())?;
            if let (Some(builder), None) = (memory.as_mut(), setup.spec.build_seeds) {
                databases.keep_built(builder, setup.observer);
            }
            plan::built(seeds, memory.map(Arc::new), file)
        }
    };
    let brain: Box<dyn Brain> = match step {
        Step::Probe(table) => {
            let what = match &table {
                Table::File(d) => format!("the {}-seed database {}", d.header().max_seeds, d.path().display()),
                _ => table.describe(),
            };
            Box::new(TableBrain { engine, table, what })
        }
        Step::Bounds(file) => {
            let (solver, used) = setup.bound_solver(seeds, file, BOUNDS_TIME)?;
            let what = format!(
                "proofs by searches over {} (clockwise play can be endless; every value is proven, within {} s a position)",
                match used {
                    Some(UsedDatabase { path: Some(p), max_seeds, .. }) => format!("the {max_seeds}-seed database {p}"),
                    Some(UsedDatabase { max_seeds, .. }) => format!("the {max_seeds}-seed database built in memory"),
                    None => "no database".to_string(),
                },
                BOUNDS_TIME.as_secs()
            );
            Box::new(BoundBrain::new(solver, what))
        }
        Step::Retrograde { .. } => {
            let table = setup.retrograde_table(seeds)?;
            let what = format!(
                "retrograde analysis of all {} boards with up to {seeds} seeds (clockwise play can be endless)",
                group(boards_up_to(h, seeds))
            );
            Box::new(TableBrain { engine, table, what })
        }
        Step::Search { memory, file } => {
            let backed = match (&memory, &file) {
                (Some(b), _) => format!(" backed by the {}-seed database built in memory", b.indexer().max_seeds()),
                (None, Some(d)) => format!(" backed by the {}-seed database {}", d.header().max_seeds, d.path().display()),
                (None, None) => ", no endgame database".to_string(),
            };
            let solver = setup.searcher(seeds, memory, file, Load::UpTo(INTERACTIVE_LOAD_LIMIT))?;
            let plural = if threads == 1 { "" } else { "s" };
            let what = format!("a search ({threads} thread{plural}, {} table){backed}", a_size(solver.tt_bytes() as u64));
            Box::new(SearchBrain::new(solver, what))
        }
    };
    Ok(brain)
}

/// Every legal move of `position` with its exact value (final store
/// difference for the player to move), in house order; none for a game
/// that is over. A position of another board size than the brain's
/// engine is bad input.
pub fn move_values(brain: &dyn Brain, position: &Position, cancel: Option<&AtomicBool>) -> Result<Option<Vec<(usize, i32)>>> {
    answerable(brain.engine(), position, false)?;
    if position.is_over(brain.engine()) {
        // A side may still hold seeds (an end rule ended it): no move is legal.
        return Ok(Some(Vec::new()));
    }
    let board = position.mover_board();
    let base = position.store_difference();
    let mut out = Vec::new();
    for house in position.legal_moves() {
        match move_value(brain, board, house, cancel)? {
            Some(v) => out.push((house, base + v)),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// How well a computer player plays, for teaching (`kalah play --level`):
/// the perfect player always plays a best move; the others, on some turns,
/// a move that is not best, chosen at random among those that give away
/// at most a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// Always a best move.
    Perfect,
    /// One turn in four, a move that gives away at most 4.
    Strong,
    /// Half the turns, a move that gives away at most 10.
    Fair,
    /// Any legal move, each as likely (a best one included).
    Random,
}

impl Level {
    /// Every level, strongest first.
    pub const ALL: [Level; 4] = [Level::Perfect, Level::Strong, Level::Fair, Level::Random];

    /// Its name, as `--level` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Perfect => "perfect",
            Level::Strong => "strong",
            Level::Fair => "fair",
            Level::Random => "random",
        }
    }

    /// How it plays, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Level::Perfect => "always a best move",
            Level::Strong => "a best move three turns in four, otherwise one that gives away at most 4",
            Level::Fair => "a best move every other turn, otherwise one that gives away at most 10",
            Level::Random => "any legal move, each as likely",
        }
    }

    /// The level named `name` (as [`Level::name`] gives it).
    pub fn from_name(name: &str) -> Result<Level> {
        Level::ALL.into_iter().find(|l| l.name() == name.trim().to_ascii_lowercase()).ok_or_else(|| {
            let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
            Error::bad_input(format!("level {name:?}: one of {}", names.join(", ")))
        })
    }

    /// Whether the level needs every move's value to choose (all but the
    /// perfect player, who needs only a best move).
    pub fn needs_values(self) -> bool {
        self != Level::Perfect
    }

    /// The move this level plays instead of a best one, given every legal
    /// move's value (`values`: house and value, as [`move_values`] gives
    /// them), or `None` for a best move (which the brain chooses: under
    /// clockwise sowing the one that makes progress). `roll(n)` is a
    /// uniform random number below `n`.
    pub fn deviate(self, values: &[(usize, i32)], roll: &mut dyn FnMut(usize) -> usize) -> Option<usize> {
        let best = values.iter().map(|&(_, v)| v).max()?;
        let (turns_in_four, most) = match self {
            Level::Perfect => return None,
            Level::Strong => (1, 4),
            Level::Fair => (2, 10),
            Level::Random => {
                let (house, v) = values[roll(values.len())];
                return (v < best).then_some(house);
            }
        };
        if roll(4) >= turns_in_four {
            return None;
        }
        let weaker: Vec<usize> = values.iter().filter(|&&(_, v)| v < best && best - v <= most).map(|&(h, _)| h).collect();
        (!weaker.is_empty()).then(|| weaker[roll(weaker.len())])
    }
}

#[cfg(test)]
mod tests {
    use super::Level;

    /// A reproducible roll (xorshift64), uniform enough for counting.
    fn roller(mut state: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        }
    }

    /// Houses 1-6 worth +8, +8, +6, +3, -2, -14: two best moves, one
    /// giving away 2, one 5, one 10, one 22.
    const VALUES: [(usize, i32); 6] = [(1, 8), (2, 8), (3, 6), (4, 3), (5, -2), (6, -14)];

    /// How often each house was chosen instead of a best move, in `n` turns.
    fn deviations(level: Level, n: usize) -> [usize; 7] {
        let mut roll = roller(0x9e37_79b9_7f4a_7c15);
        let mut count = [0; 7];
        for _ in 0..n {
            if let Some(house) = level.deviate(&VALUES, &mut roll) {
                count[house] += 1;
            }
        }
        count
    }

    #[test]
    fn the_perfect_player_never_deviates() {
        assert_eq!(deviations(Level::Perfect, 1000), [0; 7]);
    }

    #[test]
    fn weaker_levels_give_away_at_most_their_limit_on_their_share_of_turns() {
        let strong = deviations(Level::Strong, 8000);
        // Never a best move (1, 2) as a deviation, nothing beyond 4 (4 gives away 5).
        assert_eq!((strong[1], strong[2], strong[4], strong[5], strong[6]), (0, 0, 0, 0, 0), "{strong:?}");
        assert!((1800..2200).contains(&strong[3]), "a quarter of 8000 turns: {strong:?}");

        let fair = deviations(Level::Fair, 8000);
        assert_eq!((fair[1], fair[2], fair[6]), (0, 0, 0), "{fair:?}");
        let total: usize = fair.iter().sum();
        assert!((3800..4200).contains(&total), "half of 8000 turns: {fair:?}");
        for house in [3, 4, 5] {
            assert!((1100..1600).contains(&fair[house]), "house {house}, a third of the deviations: {fair:?}");
        }
    }

    #[test]
    fn the_random_player_plays_every_move_alike() {
        let random = deviations(Level::Random, 6000);
        assert_eq!((random[1], random[2]), (0, 0), "a best move is not a deviation: {random:?}");
        for house in 3..=6 {
            assert!((850..1150).contains(&random[house]), "house {house}, a sixth of 6000: {random:?}");
        }
    }

    #[test]
    fn no_move_within_the_limit_means_a_best_move() {
        let values = [(1, 8), (2, -20)];
        let mut roll = roller(7);
        for level in [Level::Strong, Level::Fair] {
            assert!((0..400).all(|_| level.deviate(&values, &mut roll).is_none()), "{level:?}");
        }
    }

    #[test]
    fn levels_are_named_as_the_command_line_takes_them() {
        for level in Level::ALL {
            assert_eq!(Level::from_name(level.name()).unwrap(), level);
        }
        let e = Level::from_name("expert").unwrap_err().to_string();
        assert!(e.contains("\"expert\"") && e.contains("perfect, strong, fair, random"), "{e}");
    }
}
