//! What this project has proven and ships, answered at once (the plan's
//! step 1, [`crate::answer::plan`]): the start value of every strong
//! solution in `data/strong-manifest.csv`; and the exact proofs of
//! Kalah(6,6) under empty capture in `data/kalah-6-6/start-empty.json`
//! (+2) and under standard capture in `data/kalah-6-6/start-standard.json`
//! (+4), each with the bounds its journal holds on each of South's
//! opening turns: the value of the opening move that gives an extra
//! move, and an upper bound on every other move. (A proof still running
//! can be shipped the same way, from its journal's summary,
//! `data/kalah-6-6/bounds-CAPTURE.json`: the bounds proven so far.) All
//! are built into the library (through links in the crate's `data/`, so
//! that the packaged crate holds them) and read once a process.
//!
//! What is proven of a position is bounds: on its value, and on some of
//! its moves' values ([`Proven`]). A request that asks no more than they
//! prove exactly is answered from them alone ([`crate::Source::Proven`]);
//! otherwise the plan goes on, and its answer is narrowed by them
//! ([`Proven::narrow`]): a search that proves bounds in its time shows the
//! value this project has proven.

use std::collections::HashMap;
use std::sync::OnceLock;

use kalah_core::{Capture, End, Engine, Leftovers, Next, Position, Relay, Rules, Sowing};
use kalah_search::{Bounded, BoundedAnalysis, BoundedMove};

/// `data/strong-manifest.csv`: every strongly solved Kalah(h,s), its start value.
const MANIFEST: &str = include_str!("../../data/strong-manifest.csv");

/// `data/kalah-6-6/start-empty.json`: the proof of Kalah(6,6), empty capture.
const KALAH_66_EMPTY: &str = include_str!("../../data/kalah-6-6-start-empty.json");

/// `data/kalah-6-6/start-standard.json`: the proof of Kalah(6,6), standard capture.
const KALAH_66_STANDARD: &str = include_str!("../../data/kalah-6-6-start-standard.json");

/// A position and the rules it is played under: what a proven answer is of.
type Question = (Position, Rules);

/// What is proven of one position: bounds on its value and on some of its
/// moves' (by house, 1-based), for the player to move, stores included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Proven {
    /// The value's bounds.
    pub value: Bounded,
    /// Each move proven something of, with its bounds.
    pub moves: Vec<(usize, Bounded)>,
}

impl Proven {
    /// The bounds a position's seeds allow: nothing proven.
    fn nothing(position: &Position) -> Bounded {
        let (base, seeds) = (position.store_difference(), position.seeds_in_houses() as i32);
        Bounded { lower: base - seeds, upper: base + seeds }
    }

    /// The bounds proven of move `house`, if any.
    fn of_move(&self, house: usize) -> Option<Bounded> {
        self.moves.iter().find(|&&(h, _)| h == house).map(|&(_, b)| b)
    }

    /// `analysis` (of the position this is of) narrowed by what is proven:
    /// its value's bounds, and each move's, within what is proven of them
    /// (and no move above the value); whether that changed anything.
    /// Bounds proven of the same position never cross; a pair that would
    /// is left as the analysis has it.
    pub(crate) fn narrow(&self, analysis: &mut BoundedAnalysis) -> bool {
        let before = analysis.clone();
        analysis.value = meet(analysis.value, self.value);
        for m in &mut analysis.moves {
            // No move is worth more than the position.
            let proven = self.of_move(m.house).unwrap_or(m.value);
            m.value = meet(m.value, meet(proven, Bounded { lower: proven.lower, upper: analysis.value.upper }));
        }
        *analysis != before
    }

    /// The analysis this proves alone, when it is exact for what is asked:
    /// the value (and, with `moves`, every legal move's of `position`); no
    /// line.
    pub(crate) fn analysis(&self, position: &Position, moves: bool) -> Option<BoundedAnalysis> {
        if !self.value.is_exact() {
            return None;
        }
        let mut analysis = BoundedAnalysis { value: self.value, moves: Vec::new(), pv: Vec::new(), end: kalah_search::LineEnd::GameOver };
        if moves {
            for house in position.legal_moves() {
                let value = self.of_move(house).filter(Bounded::is_exact)?;
                analysis.moves.push(BoundedMove { house, value });
            }
        }
        Some(analysis)
    }

    /// A best move, if a move is proven to have the position's value.
    pub(crate) fn best_move(&self) -> Option<usize> {
        let v = self.value.exact()?;
        self.moves.iter().find(|&&(_, b)| b.exact() == Some(v)).map(|&(h, _)| h)
    }
}

/// The bounds both `a` and `b` prove; `a` where they would cross.
fn meet(a: Bounded, b: Bounded) -> Bounded {
    let (lower, upper) = (a.lower.max(b.lower), a.upper.min(b.upper));
    if lower <= upper {
        Bounded { lower, upper }
    } else {
        a
    }
}

/// What is proven of `position` under `rules`, if anything.
pub(crate) fn lookup(position: &Position, rules: Rules) -> Option<&'static Proven> {
    static ALL: OnceLock<HashMap<Question, Proven>> = OnceLock::new();
    ALL.get_or_init(read).get(&(*position, rules))
}

/// Every position proven something of, from the files shipped.
fn read() -> HashMap<Question, Proven> {
    let mut all = HashMap::new();
    for (position, rules, value) in manifest_starts(MANIFEST) {
        all.insert((position, rules), Proven { value: Bounded { lower: value, upper: value }, moves: Vec::new() });
    }
    // (The files are the project's own, checked by its tests: one that
    // does not read adds nothing, and the test says why.)
    for proof in [KALAH_66_EMPTY, KALAH_66_STANDARD] {
        if let Ok(proof) = openings(proof) {
            all.extend(proof);
        }
    }
    all
}

/// The start of each row of a strong manifest, its rules and start value.
/// Its columns: houses, seeds, capture, end, leftovers, sowing, relay,
/// then (after five others) the start value.
fn manifest_starts(text: &str) -> Vec<(Position, Rules, i32)> {
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let rules = Rules {
                capture: f.get(2)?.parse::<Capture>().ok()?,
                end: f.get(3)?.parse::<End>().ok()?,
                leftovers: f.get(4)?.parse::<Leftovers>().ok()?,
                sowing: f.get(5)?.parse::<Sowing>().ok()?,
                relay: f.get(6)?.parse::<Relay>().ok()?,
            };
            let start = Position::start(f.first()?.parse().ok()?, f.get(1)?.parse().ok()?).ok()?;
            Some((start, rules, f.get(11)?.parse().ok()?))
        })
        .collect()
}

/// The positions a proof of a start proves something of: the start, its
/// value's bounds and each opening move's; and after a move that gives
/// South another, that position, its value's bounds and each of its
/// moves'. A move's upper bound is known where every turn it begins is
/// listed. The proof is a finished one (the object of
/// `tools/kalah66_result.py`: `position`, `rules`, `"exact": true`, the
/// `value`, and `openings`, each a `turn` of South's with `lower` and
/// `upper`, `null` where unknown) or a running one's summary (`kalah
/// journal show --json`: the start's `lower` and `upper` bounds, `null`
/// where none is proven, and `turns` in the same form).
fn openings(text: &str) -> Result<Vec<(Question, Proven)>, String> {
    let proof: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let position: Position = proof["position"].as_str().ok_or("no position")?.parse().map_err(|e| format!("position: {e}"))?;
    let rule = |name: &str| proof["rules"][name].as_str().ok_or(format!("no rule {name}"));
    let rules = Rules {
        capture: rule("capture")?.parse().map_err(|e| format!("{e}"))?,
        end: rule("end")?.parse().map_err(|e| format!("{e}"))?,
        leftovers: rule("leftovers")?.parse().map_err(|e| format!("{e}"))?,
        sowing: rule("sowing")?.parse().map_err(|e| format!("{e}"))?,
        relay: rule("relay")?.parse().map_err(|e| format!("{e}"))?,
    };
    let nothing = Proven::nothing(&position);
    let bound = |v: &serde_json::Value, otherwise: i32| v.as_i64().map_or(otherwise, |v| v as i32);
    let (start, listed) = if proof["exact"] == true {
        let value = proof["value"].as_i64().ok_or("no value")? as i32;
        (Bounded { lower: value, upper: value }, &proof["openings"])
    } else if proof["turns"].is_array() {
        (Bounded { lower: bound(&proof["lower"], nothing.lower), upper: bound(&proof["upper"], nothing.upper) }, &proof["turns"])
    } else {
        return Err("neither a finished proof nor a running one's summary".into());
    };
    if start.lower > start.upper {
        return Err(format!("the start's bounds {}..{} cross", start.lower, start.upper));
    }
    let engine = Engine::shared(position.houses(), rules);
    // Each turn's bounds, South's (the mover's at the start and in every turn).
    let mut turns: Vec<(Vec<usize>, Bounded)> = Vec::new();
    for opening in listed.as_array().ok_or("no openings")? {
        let turn: Vec<usize> = opening["turn"].as_array().ok_or("a turn")?.iter().filter_map(|h| h.as_u64().map(|h| h as usize)).collect();
        turns.push((turn, Bounded { lower: bound(&opening["lower"], nothing.lower), upper: bound(&opening["upper"], nothing.upper) }));
    }
    // The bounds of the position `prefix` leads to (South to move): the
    // best of its moves', each the turn's it begins, known where every
    // move from there begins a listed turn.
    let mut out = Vec::new();
    let mut start_moves = Vec::new();
    for house in position.legal_moves() {
        let (next, outcome) = position.play(engine, house).map_err(|e| e.to_string())?;
        if outcome.next != Next::Mover {
            if let Some(&(_, b)) = turns.iter().find(|(t, _)| t == &[house]) {
                start_moves.push((house, b));
            }
            continue;
        }
        // Another move for South: each move from there is a turn of two.
        let mut moves = Vec::new();
        for second in next.legal_moves() {
            if let Some(&(_, b)) = turns.iter().find(|(t, _)| t == &[house, second]) {
                moves.push((second, b));
            }
        }
        let all_known = moves.len() == next.legal_moves().len();
        let lower = moves.iter().map(|(_, b)| b.lower).max().unwrap_or(nothing.lower);
        let upper = if all_known { moves.iter().map(|(_, b)| b.upper).max().unwrap_or(nothing.upper) } else { nothing.upper };
        let after = Bounded { lower, upper: upper.max(lower) };
        start_moves.push((house, after));
        out.push(((next, rules), Proven { value: after, moves }));
    }
    out.push(((position, rules), Proven { value: start, moves: start_moves }));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> Rules {
        Rules { capture: Capture::Empty, ..Rules::default() }
    }

    /// Kalah(6,6) under empty capture is +2, its move 1 (another move for
    /// South) +2 with the turn 1-2, every other move at most +2; after
    /// move 1, the same.
    #[test]
    fn the_proof_of_kalah_6_6_is_read() {
        let start = Position::start(6, 6).unwrap();
        let proven = lookup(&start, empty()).expect("Kalah(6,6), empty capture");
        assert_eq!(proven.value, Bounded { lower: 2, upper: 2 });
        assert_eq!(proven.of_move(1), Some(Bounded { lower: 2, upper: 2 }));
        assert_eq!(proven.best_move(), Some(1));
        for house in 2..=6 {
            assert_eq!(proven.of_move(house).map(|b| b.upper), Some(2), "move {house}");
        }
        let engine = Engine::new(6, empty());
        let (after, _) = start.play(&engine, 1).unwrap();
        let then = lookup(&after, empty()).expect("after move 1");
        assert_eq!((then.value, then.of_move(2)), (Bounded { lower: 2, upper: 2 }, Some(Bounded { lower: 2, upper: 2 })));
    }

    /// Kalah(6,6) under standard capture is +4, its move 1 +4 (the turn
    /// 1-3), every other move at most +4; after move 1, 1-3 exactly +4,
    /// 1-5 and 1-6 at most +2. A running proof's summary (the journal's,
    /// as bounds-CAPTURE.json holds it) reads as its bounds.
    #[test]
    fn the_proof_of_kalah_6_6_under_standard_capture_is_read() {
        let start = Position::start(6, 6).unwrap();
        let standard = Rules::default();
        openings(KALAH_66_STANDARD).expect("start-standard.json reads");
        let proven = lookup(&start, standard).expect("Kalah(6,6), standard capture");
        assert_eq!(proven.value, Bounded { lower: 4, upper: 4 });
        assert_eq!(proven.of_move(1), Some(Bounded { lower: 4, upper: 4 }));
        assert_eq!(proven.best_move(), Some(1));
        for house in 2..=6 {
            assert_eq!(proven.of_move(house).map(|b| b.upper), Some(4), "move {house}");
        }
        let (after, _) = start.play(&Engine::new(6, standard), 1).unwrap();
        let then = lookup(&after, standard).expect("after move 1");
        assert_eq!((then.value, then.of_move(3)), (Bounded { lower: 4, upper: 4 }, Some(Bounded { lower: 4, upper: 4 })));
        assert!([5, 6].iter().all(|&h| then.of_move(h).is_some_and(|b| b.upper <= 2)), "{then:?}");

        let running = r#"{"position":"6,6,6,6,6,6,0,6,6,6,6,6,6,0 S","rules":{"capture":"standard","end":"instant","leftovers":"owner","relay":"off","sowing":"ccw"},
            "lower":4,"upper":null,"value":null,"turns":[{"turn":[1,3],"lower":4,"upper":null},{"turn":[6],"lower":null,"upper":-2}]}"#;
        let read: HashMap<Question, Proven> = openings(running).unwrap().into_iter().collect();
        let proven = &read[&(start, standard)];
        assert_eq!(proven.value, Bounded { lower: 4, upper: 72 });
        assert_eq!((proven.of_move(1).map(|b| b.lower), proven.of_move(6)), (Some(4), Some(Bounded { lower: -72, upper: -2 })));
    }

    /// Every row of the manifest is read, with the start value it gives.
    #[test]
    fn the_strong_solutions_are_read() {
        let rows = MANIFEST.lines().skip(1).filter(|l| !l.trim().is_empty()).count();
        let starts = manifest_starts(MANIFEST);
        assert_eq!(starts.len(), rows, "every row of the manifest reads");
        let (position, rules) = (Position::start(4, 3).unwrap(), empty());
        assert_eq!(lookup(&position, rules).map(|p| p.value), Some(Bounded { lower: 8, upper: 8 }), "Kalah(4,3), empty capture: +8");
    }

    /// Narrowing keeps what a search proved where it is tighter, takes
    /// what is proven where that is, and puts no move above the value.
    #[test]
    fn an_analysis_is_narrowed_by_what_is_proven() {
        let proven = Proven { value: Bounded { lower: 2, upper: 2 }, moves: vec![(1, Bounded { lower: 2, upper: 2 })] };
        let wide = Bounded { lower: -40, upper: 50 };
        let mut analysis = BoundedAnalysis {
            value: Bounded { lower: -36, upper: 48 },
            moves: vec![BoundedMove { house: 1, value: wide }, BoundedMove { house: 2, value: Bounded { lower: -10, upper: -4 } }],
            pv: Vec::new(),
            end: kalah_search::LineEnd::Cut,
        };
        assert!(proven.narrow(&mut analysis));
        assert_eq!(analysis.value, Bounded { lower: 2, upper: 2 });
        assert_eq!(analysis.moves[0].value, Bounded { lower: 2, upper: 2 });
        assert_eq!(analysis.moves[1].value, Bounded { lower: -10, upper: -4 }, "tighter already");
        assert!(!proven.narrow(&mut analysis), "nothing more to narrow");
    }
}
