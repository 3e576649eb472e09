//! Fuzzing the position notation: `str::parse::<Position>` on any text.
//!
//! The first byte picks one of the 48 rule sets, the rest is the text
//! (lossily UTF-8). The parser must answer `Ok` or an error that says
//! something, never panic. A position it accepts must be one the rest of
//! the program can use without overflow or a wrong answer:
//!
//! * both text forms write it back to the same position;
//! * at most `max_board_seeds(h)` seeds in the houses;
//! * the store difference is the exact difference of the stores (values
//!   are `i32` everywhere);
//! * every legal move, and a short game after it, plays without panic and
//!   keeps every seed (houses plus stores) on the board.

use kalah_core::{max_board_seeds, Engine, Position, Rules, Side};

/// Plies of play after each first move.
const PLIES: usize = 40;

/// See the module docs.
pub fn check(data: &[u8]) {
    let Some((&rule_byte, text)) = data.split_first() else {
        return;
    };
    let rules = Rules::all().nth(rule_byte as usize % 48).expect("48 rule sets");
    let text = String::from_utf8_lossy(text);
    let position = match text.parse::<Position>() {
        Ok(p) => p,
        Err(e) => {
            let message = e.to_string();
            assert!(message.len() > 10, "an error that says nothing: {message:?} for {text:?}");
            return;
        }
    };
    check_position(&position, &text);
    let engine = Engine::new(position.houses(), rules);
    for house in position.legal_moves() {
        if position.is_over(&engine) {
            break;
        }
        let mut p = position;
        let mut next = house;
        for _ in 0..PLIES {
            let (q, _) = p.play(&engine, next).unwrap_or_else(|e| panic!("legal move {next} of {p:?} refused: {e}"));
            assert_eq!(seeds_on_board(&q), seeds_on_board(&p), "seeds lost playing {next} in {p:?} ({rules}): {q:?}");
            check_position(&q, &text);
            if q.is_over(&engine) {
                assert!(q.play(&engine, 1).is_err(), "a move after the end: {q:?}");
                break;
            }
            p = q;
            // The first legal move, then the last, alternately: no randomness needed.
            let moves = p.legal_moves();
            next = if p.seeds_in_houses() % 2 == 0 { moves[0] } else { moves[moves.len() - 1] };
        }
    }
}

/// Seeds in the houses and the stores.
fn seeds_on_board(p: &Position) -> u64 {
    p.seeds_in_houses() as u64 + p.store(Side::South) as u64 + p.store(Side::North) as u64
}

fn check_position(p: &Position, text: &str) {
    let h = p.houses();
    assert!((1..=kalah_core::MAX_HOUSES).contains(&h), "{h} houses from {text:?}");
    assert!(p.seeds_in_houses() <= max_board_seeds(h), "{p:?} from {text:?}");
    let ring = p.ring();
    assert_eq!(ring.parse::<Position>().as_ref(), Ok(p), "ring form {ring:?} of {text:?}");
    let sides = p.sides();
    assert_eq!(sides.parse::<Position>().as_ref(), Ok(p), "side form {sides:?} of {text:?}");
    let mover = p.to_move();
    let exact = p.store(mover) as i64 - p.store(mover.other()) as i64;
    assert_eq!(p.store_difference() as i64, exact, "store difference of {p:?} from {text:?}");
    // Values add at most the seeds in the houses to the store difference.
    assert!(exact.abs() + (p.seeds_in_houses() as i64) <= i32::MAX as i64, "{p:?}: values overflow i32");
    assert_eq!(p.mirrored().mirrored(), *p);
    let _ = p.diagram();
    for house in p.legal_moves() {
        assert!((1..=h).contains(&house) && p.house(mover, house) > 0, "{p:?}: move {house}");
    }
}
