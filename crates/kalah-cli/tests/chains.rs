//! `kalah chains` (issue 5, "Clearing chains"): the figures it reports,
//! checked against a brute force that plays every sequence of moves with
//! the real rules engine.
//!
//! A side *clears* when some sequence of moves, each ending in the
//! mover's store (an extra move), leaves all of the mover's houses empty.
//! The brute force tries every distribution of `n` seeds over `h` houses
//! and every such sequence, with seeds on the opponent's side and the
//! turn-based end, so that nothing but an emptied mover's side ends a turn
//! of extra moves (the chain is about the sowing, not the end rules).

use std::process::Command;

use kalah_core::{Board, End, Engine, Leftovers, Next, Rules};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_kalah");

fn chains(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).arg("chains").args(args).output().expect("run kalah chains");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn chains_json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let (code, stdout, stderr) = chains(&all);
    assert_eq!(code, 0, "kalah chains {all:?} failed\n{stderr}");
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not one JSON object ({e}):\n{stdout}"))
}

/// The brute force's engine: see the module docs.
fn engine(h: usize) -> Engine {
    Engine::new(h, Rules { end: End::Turn, leftovers: Leftovers::Unscored, ..Rules::default() })
}

/// Whether the mover can empty their side with extra moves alone.
fn clears(engine: &Engine, board: Board) -> bool {
    if board.mover_empty() {
        return true;
    }
    engine.moves(board).any(|house| {
        let o = engine.play(board, house);
        match o.next {
            Next::Mover => clears(engine, o.board),
            // Over only after an extra move that emptied the mover's side:
            // the opponent's houses all hold seeds and one move cannot
            // empty them all.
            Next::Over => o.board.mover_empty(),
            Next::Opponent => false,
        }
    })
}

/// Every distribution of `n` seeds over `h` houses that clears (houses
/// from the owner's left).
fn clearing_sides(h: usize, n: u32) -> Vec<Vec<u8>> {
    fn each(i: usize, left: u32, side: &mut Vec<u8>, f: &mut dyn FnMut(&[u8])) {
        if i + 1 == side.len() {
            side[i] = left as u8;
            f(side);
            return;
        }
        for s in 0..=left {
            side[i] = s as u8;
            each(i + 1, left - s, side, f);
        }
    }
    let engine = engine(h);
    let opponent = vec![2u8; h];
    let mut found = Vec::new();
    each(0, n, &mut vec![0; h], &mut |side| {
        if clears(&engine, Board::from_sides(side, &opponent)) {
            found.push(side.to_vec());
        }
    });
    found
}

/// Houses a side (from the owner's left, store on the right) needs: the
/// distance from the store of its farthest non-empty house.
fn needed(side: &[u8]) -> usize {
    side.iter().position(|&s| s > 0).map_or(0, |i| side.len() - i)
}

fn numbers(v: &Value) -> Vec<u64> {
    v.as_array().expect("an array").iter().map(|x| x.as_u64().expect("a number")).collect()
}

#[test]
fn the_longest_chain_on_six_houses_lasts_17_moves() {
    let v = chains_json(&["--houses", "6"]);
    assert_eq!(v["longest_chain"]["moves"], 17, "{v}");
    let pattern = numbers(&v["longest_chain"]["pattern"]);
    assert_eq!(pattern.iter().sum::<u64>(), 17);
    assert_eq!(numbers(&v["longest_chain"]["clearing_moves"]).len(), 17);
    // The brute force agrees: 17 seeds clear on six houses, 18 never do.
    let seventeen = clearing_sides(6, 17);
    assert_eq!(seventeen.len(), 1);
    assert_eq!(seventeen[0].iter().map(|&s| s as u64).collect::<Vec<_>>(), pattern);
    assert!(clearing_sides(6, 18).is_empty(), "18 seeds must need a seventh house");

    let (code, text, _) = chains(&["--houses", "6"]);
    assert_eq!(code, 0);
    assert!(text.contains("Longest chain on 6 houses: 17 moves"), "{text}");
}

#[test]
fn every_pattern_is_the_only_one_that_clears() {
    let h = 6;
    let v = chains_json(&["--houses", "6", "--max", "14"]);
    let patterns = v["patterns"].as_array().unwrap();
    assert_eq!(patterns.len(), 14);
    for (i, p) in patterns.iter().enumerate() {
        let n = i as u32 + 1;
        assert_eq!(p["seeds"], n);
        let found = clearing_sides(h, n);
        assert_eq!(found.len(), 1, "{n} seeds: exactly one pattern clears, found {found:?}");
        let expected: Vec<u64> = found[0].iter().map(|&s| s as u64).collect();
        assert_eq!(numbers(&p["pattern"]), expected, "{n} seeds");
        assert_eq!(p["houses_needed"], needed(&found[0]) as u64, "{n} seeds");
        assert_eq!(p["fits"], true);
    }
}

#[test]
fn the_listed_moves_clear_the_pattern() {
    // Including patterns wider than the board, on a board as wide as they need.
    let v = chains_json(&["--houses", "3", "--max", "25"]);
    for p in v["patterns"].as_array().unwrap() {
        let b = p["board_houses"].as_u64().unwrap() as usize;
        let side: Vec<u8> = numbers(&p["pattern"]).iter().map(|&s| s as u8).collect();
        assert_eq!(side.len(), b);
        assert_eq!(p["fits"], p["houses_needed"].as_u64().unwrap() <= 3);
        let engine = engine(b);
        let mut board = Board::from_sides(&side, &vec![2; b]);
        let moves = numbers(&p["moves"]);
        assert_eq!(moves.len() as u64, p["seeds"].as_u64().unwrap(), "one seed to the store a move");
        for (k, &house) in moves.iter().enumerate() {
            let o = engine.play(board, house as usize - 1);
            let last = k + 1 == moves.len();
            assert_eq!(o.next, if last { Next::Over } else { Next::Mover }, "{p}: move {}", k + 1);
            assert_eq!(o.mover_gain, 1);
            board = o.board;
        }
        assert!(board.mover_empty(), "{p}");
    }
}

#[test]
fn least_seeds_needing_k_houses_match_the_brute_force() {
    let v = chains_json(&["--houses", "6", "--max", "5"]);
    let least: Vec<(u64, u64)> =
        v["least_seeds"].as_array().unwrap().iter().map(|e| (e["houses"].as_u64().unwrap(), e["seeds"].as_u64().unwrap())).collect();
    // s(1..=7), at least through h + 1.
    assert_eq!(least.len(), 7, "{v}");
    // The brute force on seven houses: the first n whose one clearing side
    // needs k houses.
    let mut brute = Vec::new();
    let mut k = 1;
    for n in 1..=18u32 {
        let found = clearing_sides(7, n);
        assert_eq!(found.len(), 1, "{n} seeds");
        if needed(&found[0]) == k {
            brute.push((k as u64, n as u64));
            k += 1;
        }
    }
    assert_eq!(least, brute);
    assert_eq!(brute.iter().map(|&(_, s)| s).collect::<Vec<_>>(), [1, 2, 4, 6, 10, 12, 18]);
}

#[test]
fn bad_arguments_are_refused_in_one_line() {
    for args in [&["--houses", "0"][..], &["--max", "0"][..], &["--houses", "6", "--max", "1000000"][..]] {
        let (code, stdout, stderr) = chains(args);
        assert_eq!(code, 2, "{args:?}\n{stdout}\n{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("kalah: "), "{stderr}");
    }
}

/// Issue 39, item 4: the houses as `H` or as `--houses H`, not both.
#[test]
fn the_houses_as_positional_or_flag() {
    let positional = chains_json(&["4", "--max", "12"]);
    let flag = chains_json(&["--houses", "4", "--max", "12"]);
    assert_eq!(positional, flag);
    assert_eq!(positional["houses"], 4, "{positional}");
    let (code, _, stderr) = chains(&["4", "--houses", "4"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}
