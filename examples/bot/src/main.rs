//! A client of the `kalah` library alone: Kalah(h,s) played by a bot
//! against itself, each move chosen within a time limit, the score and
//! the proven value of the start printed at the end.
//!
//! `cargo run --release -p kalah-example-bot -- 4 3 0.2` (houses, seeds,
//! seconds a move; the defaults).

use std::time::Duration;

use kalah::{Analyzer, Databases, Engine, Position, Request, Rules, Side, Silent, Want};

/// Plays the game from the start of Kalah(`houses`,`seeds`), each move
/// chosen within `per_move`; the final position and the moves played.
fn self_play(analyzer: &Analyzer, houses: usize, seeds: u32, per_move: Duration) -> Result<(Position, Vec<usize>), kalah::Error> {
    let rules = Rules::default();
    let engine = Engine::new(houses, rules);
    let mut position = Position::start(houses, seeds)?;
    let mut played = Vec::new();
    while !position.is_over(&engine) {
        let request = Request { want: Want::BestMove, time_limit: Some(per_move), ..Request::new(position, rules) };
        let house = analyzer.analyze(&request, &Silent)?.move_to_play().ok_or_else(|| kalah::Error::internal("no move in a live game"))?;
        position = position.play(&engine, house)?.0;
        played.push(house);
    }
    Ok((position, played))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let houses = args.first().map_or(Ok(4), |a| a.parse())?;
    let seeds = args.get(1).map_or(Ok(3), |a| a.parse())?;
    let seconds: f64 = args.get(2).map_or(Ok(0.2), |a| a.parse())?;
    let analyzer = Analyzer::keeping(Databases::new(Databases::default_dir()));
    let (end, played) = self_play(&analyzer, houses, seeds, Duration::from_secs_f64(seconds))?;
    let start = Request::new(Position::start(houses, seeds)?, Rules::default());
    let value = analyzer.analyze(&Request { want: Want::Value, ..start }, &Silent)?.value();
    println!("Kalah({houses},{seeds}): {} moves, South {} - North {}", played.len(), end.store(Side::South), end.store(Side::North));
    match value {
        Some(v) => println!("the start's value under perfect play: {v:+} for South"),
        None => println!("the start's value: not proven"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With time enough for every move to be proven best, the game ends
    /// with South ahead by the start's value.
    #[test]
    fn perfect_self_play_ends_with_the_value_of_the_start() {
        let analyzer = Analyzer::new(Databases::new("no-such-directory"));
        let (end, played) = self_play(&analyzer, 3, 3, Duration::from_secs(60)).unwrap();
        assert!(!played.is_empty());
        let score = end.store(Side::South) as i32 - end.store(Side::North) as i32;
        let start = Request { want: Want::Value, ..Request::new(Position::start(3, 3).unwrap(), Rules::default()) };
        assert_eq!(Some(score), analyzer.analyze(&start, &Silent).unwrap().value());
    }
}
