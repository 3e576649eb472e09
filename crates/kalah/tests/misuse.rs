//! Misuse thrown at the public face (issue 52): positions of every small
//! size against engines, database files and rules of other sizes and
//! rules, finished games, positions beyond a file. Every call answers
//! with an error or the naive reference solver's value, never another
//! `Ok`.

use std::sync::OnceLock;

use kalah::{Analyzer, Capture, Database, Databases, DbSpec, End, Engine, Position, Request, Rules, Silent, Want};
use kalah_reference::RefPosition;
use proptest::prelude::*;

/// The rule sets drawn.
fn rule_sets() -> [Rules; 3] {
    [Rules::default(), Rules { capture: Capture::Empty, ..Rules::default() }, Rules { end: End::Turn, ..Rules::default() }]
}

/// Small database files, built once: (houses, seeds, rule set's index).
fn files() -> &'static (tempfile::TempDir, Vec<Database>) {
    static FILES: OnceLock<(tempfile::TempDir, Vec<Database>)> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let made = [(2, 8, 0), (3, 7, 0), (3, 6, 1), (4, 5, 2)]
            .into_iter()
            .map(|(h, n, r)| {
                let path = dir.path().join(format!("f{h}-{n}-{r}.kdb"));
                kalah::build_file(&path, h, rule_sets()[r], n, &kalah::Quiet).unwrap();
                Database::open(&path).unwrap()
            })
            .collect();
        (dir, made)
    })
}

/// The reference solver's value of `p` under `rules`.
fn reference(p: &Position, rules: Rules) -> i32 {
    let ring = p.ring();
    let (counts, mover) = ring.split_once(' ').unwrap();
    let cells = counts.split(',').map(|c| c.parse().unwrap()).collect();
    kalah_reference::solve(&rules, &RefPosition { cells, south_to_move: mover == "S" }).0
}

/// A position of 2 to 4 houses with at most 9 seeds in its houses (often
/// a finished game), stores of up to 6 each.
fn positions() -> impl Strategy<Value = Position> {
    (2usize..=4).prop_flat_map(|h| {
        (proptest::collection::vec(0u32..=3, 2 * h), 0u32..=6, 0u32..=6, any::<bool>()).prop_map(move |(mut cells, s, n, south)| {
            // At most 9 seeds, so that the reference solver is quick.
            while cells.iter().sum::<u32>() > 9 {
                let i = cells.iter().position(|&c| c > 0).unwrap();
                cells[i] -= 1;
            }
            let side = if south { kalah::Side::South } else { kalah::Side::North };
            Position::new(&cells[..h], &cells[h..], [s, n], side).unwrap()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn misuse_is_an_error_or_the_reference_answer(p in positions(), rules_at in 0usize..3, engine_houses in 2usize..=4, file_at in 0usize..4, house in 1usize..=4) {
        let rules = rule_sets()[rules_at];
        let h = p.houses();
        let value = reference(&p, rules);

        // Playing with an engine of another size is refused.
        let engine = Engine::new(engine_houses, rules);
        if p.play(&engine, house).is_ok() {
            prop_assert!(engine_houses == h && house <= h && p.house(p.to_move(), house) > 0 && !p.is_over(&Engine::new(h, rules)));
        }

        // Probes of a file: an error, None beyond it, or the reference value under its rules.
        let db = &files().1[file_at];
        let (db_h, db_rules, db_n) = (db.header().houses, db.header().rules, db.header().max_seeds);
        match db.probe_position(&p) {
            Ok(Some(v)) => {
                prop_assert_eq!(db_h, h);
                prop_assert_eq!(v, reference(&p, db_rules), "probe_position of {} on a {}-house file", p, db_h);
            }
            Ok(None) => prop_assert!(db_h == h && p.seeds_in_houses() > db_n),
            Err(_) => prop_assert_ne!(db_h, h),
        }
        match kalah::probe(db, &p) {
            Ok(report) => {
                prop_assert!(db_h == h && p.seeds_in_houses() <= db_n);
                prop_assert_eq!(report.value(), Some(reference(&p, db_rules)), "probe of {}", p);
            }
            Err(_) => prop_assert!(db_h != h || p.seeds_in_houses() > db_n),
        }

        // The analyzer told to use that file for these rules: an error, or
        // the reference value of the rules asked.
        let analyzer = Analyzer::new(Databases::new(files().0.path().join("none")));
        let request = Request { db: DbSpec::file(db.path()), want: Want::Value, threads: 1, book: false, ..Request::new(p, rules) };
        match analyzer.analyze(&request, &Silent) {
            Ok(report) => prop_assert_eq!(report.value(), Some(value), "analyze {} under {} with {}", p, rules, db.path().display()),
            Err(e) => prop_assert!(db_h != h || db_rules != rules, "refused a file that fits: {}", e),
        }
        // And with no database, the reference value.
        let request = Request { db: DbSpec::none(), threads: 1, book: false, ..Request::new(p, rules) };
        let report = analyzer.analyze(&request, &Silent).unwrap();
        prop_assert_eq!(report.value(), Some(value));
        let best = report.move_to_play();
        prop_assert_eq!(best.is_none(), p.is_over(&Engine::new(h, rules)));

        // A player of a game of `engine_houses` houses asked about this
        // position: an error, or the reference values of its moves.
        let start = Position::start(engine_houses, 1).unwrap();
        let player = analyzer.player(&Request { db: DbSpec::none(), threads: 1, book: false, ..Request::new(start, rules) }, &Silent).unwrap();
        match kalah::move_values(player.as_ref(), &p, None) {
            Ok(Some(values)) => {
                prop_assert_eq!(engine_houses, h);
                for (house, v) in values {
                    let (next, _) = p.play(&Engine::new(h, rules), house).unwrap();
                    let after = if next.to_move() == p.to_move() { reference(&next, rules) } else { -reference(&next, rules) };
                    prop_assert_eq!(v, after, "move {} of {}", house, p);
                }
            }
            Ok(None) => prop_assert!(false, "no values without a cancel flag"),
            Err(e) => prop_assert!(engine_houses != h, "refused a position that fits: {}", e),
        }
        match player.best_move(&p, None) {
            Ok(Some(house)) => prop_assert!(engine_houses == h && p.legal_moves().contains(&house)),
            Ok(None) => prop_assert!(false, "no best move without a cancel flag"),
            Err(e) => prop_assert!(engine_houses != h || p.is_over(&Engine::new(h, rules)), "refused a position that fits: {}", e),
        }
    }
}

/// A named database file that cannot serve says so, about the file; a
/// rule option read from text fails into the library's error with `?`.
#[test]
fn a_named_file_that_cannot_serve_is_an_error_about_it() {
    let (dir, made) = files();
    let analyzer = Analyzer::new(Databases::new(dir.path().join("none")));
    let start = Position::start(3, 2).unwrap();
    let other_rules = Request { db: DbSpec::file(made[2].path()), book: false, ..Request::new(start, Rules::default()) };
    let missing = Request { db: DbSpec::file(dir.path().join("no-such.kdb")), book: false, ..Request::new(start, Rules::default()) };
    for request in [other_rules, missing] {
        let e = analyzer.analyze(&request, &Silent).unwrap_err();
        assert_eq!((e.kind(), e.field()), (kalah::ErrorKind::BadInput, Some(kalah::Field::DbFile)), "{e}");
    }
    let capture = || -> Result<Capture, kalah::Error> { Ok("sometimes".parse::<Capture>()?) };
    assert_eq!(capture().unwrap_err().kind(), kalah::ErrorKind::BadInput);
}

/// A game the end rule has ended, seeds left on one side: a player gives
/// its moves no value (there are none) and no best move; its openings
/// are none. Found by the property test above (issue 52, the library
/// face's misuse).
#[test]
fn a_finished_game_with_seeds_left_has_no_move() {
    let rules = Rules::default();
    let over: Position = "0,0,0,0,0,0,0,0,1,0 N".parse().unwrap();
    assert!(over.is_over(&Engine::new(4, rules)) && !over.legal_moves().is_empty());
    let analyzer = Analyzer::new(Databases::new(files().0.path().join("none")));
    let request = Request { db: DbSpec::none(), threads: 1, book: false, ..Request::new(Position::start(4, 1).unwrap(), rules) };
    let player = analyzer.player(&request, &Silent).unwrap();
    assert_eq!(kalah::move_values(player.as_ref(), &over, None).unwrap(), Some(Vec::new()));
    assert_eq!(player.best_move(&over, None).unwrap_err().kind(), kalah::ErrorKind::BadInput);
    assert!(kalah::openings::opening_turns(&Engine::new(4, rules), &over).is_empty());
}
