//! `kalah play` (issue 5), driven through its standard input as a pipe.
//!
//! Every board drawn is followed by a `Position: <ring form>` line and
//! every move by a `<Side> plays house <n> ...` line (the computer's with
//! its time in brackets), so a transcript can be replayed with the rules
//! engine and every computer move checked against an independent solve:
//! plain alpha-beta for counter-clockwise sowing, a retrograde table for
//! clockwise. Each run has `KALAH_DB_DIR` pointing at an empty directory,
//! so no database of the developer's `data/db` is picked up.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kalah_core::{Engine, Position, Rules, Side, Sowing};
use kalah_db::{Builder, NoTablebase, Quiet};
use kalah_search::{analyze_from_table, Analysis, SearchOptions, Solver};

const BIN: &str = env!("CARGO_BIN_EXE_kalah");
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// One run of `kalah play`.
#[derive(Debug)]
struct Run {
    args: Vec<String>,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn describe(&self) -> String {
        format!("kalah {}\nexit code: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}", self.args.join(" "), self.code, self.stdout, self.stderr)
    }

    /// Succeeded without a panic.
    fn ok(self) -> Run {
        assert!(!self.stderr.contains("panicked"), "panic\n{}", self.describe());
        assert_eq!(self.code, Some(0), "expected exit 0\n{}", self.describe());
        self
    }
}

/// Runs `kalah play ARGS` with `input` on its standard input.
fn play(args: &[&str], input: &str) -> Run {
    let dir = tempfile::tempdir().expect("temp dir");
    play_in(dir.path(), args, input)
}

/// [`play`] with `dir` as the database directory and working directory.
fn play_in(dir: &std::path::Path, args: &[&str], input: &str) -> Run {
    let mut all = vec!["play", "--threads", "1", "--tt-mb", "16"];
    all.extend_from_slice(args);
    let mut child = Command::new(BIN)
        .args(&all)
        .env("KALAH_DB_DIR", dir)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kalah");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    // The program may stop reading early (quit): a closed pipe is fine.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = pipe.read_to_string(&mut s);
            s
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + TIME_LIMIT;
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    Run { args: all.iter().map(|s| s.to_string()).collect(), code, stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

/// What a transcript shows, in order.
#[derive(Clone, Debug, PartialEq)]
enum Event {
    /// A board was drawn: this position.
    Board(Position),
    /// A move: who, which house, whether the computer chose it.
    Move { side: Side, house: usize, computer: bool },
    /// The computer playing itself repeated a position: endless play.
    Endless,
    /// `Game over. South s, North n`.
    Over { south: u32, north: u32 },
}

fn events(stdout: &str) -> Vec<Event> {
    let mut out = Vec::new();
    for line in stdout.lines() {
        if let Some(ring) = line.strip_prefix("Position: ") {
            out.push(Event::Board(ring.parse().unwrap_or_else(|e| panic!("bad position line {line:?}: {e}"))));
        } else if let Some((side, rest)) = line.split_once(" plays house ") {
            let side = match side {
                "South" => Side::South,
                "North" => Side::North,
                _ => continue,
            };
            let house = rest.split(' ').next().unwrap().parse().expect("a house number");
            out.push(Event::Move { side, house, computer: rest.contains(" s]") });
        } else if line.starts_with("The position repeats") {
            out.push(Event::Endless);
        } else if let Some(rest) = line.strip_prefix("Game over. South ") {
            let (south, rest) = rest.split_once(", North ").expect("the final score");
            let north = rest.split(':').next().unwrap();
            out.push(Event::Over { south: south.parse().unwrap(), north: north.parse().unwrap() });
        }
    }
    out
}

/// Exact analyses by means independent of the program's game code.
enum Judge {
    Search(Engine, Box<Solver<NoTablebase>>),
    Table(Engine, Box<Builder>),
}

impl Judge {
    fn new(h: usize, rules: Rules, seeds: u32) -> Judge {
        let engine = Engine::new(h, rules);
        if rules.sowing == Sowing::Cw {
            let mut b = Builder::new(h, rules, seeds).unwrap();
            b.build_all(&Quiet);
            Judge::Table(engine, Box::new(b))
        } else {
            let options = SearchOptions { threads: 1, tt_bytes: 1 << 22, max_seeds: None };
            Judge::Search(engine, Box::new(Solver::new(h, rules, NoTablebase { houses: h, rules }, options).unwrap()))
        }
    }

    fn engine(&self) -> &Engine {
        match self {
            Judge::Search(e, _) | Judge::Table(e, _) => e,
        }
    }

    fn analyze(&self, p: &Position) -> Analysis {
        match self {
            Judge::Search(_, s) => s.analyze(p, true, false).unwrap(),
            Judge::Table(e, t) => analyze_from_table(e, t.as_ref(), p).unwrap(),
        }
    }
}

/// Checks a transcript: every move played is legal and leads to the next
/// board drawn, every computer move is a best move, and a final score is
/// the stores of a finished game. Returns the number of computer moves.
fn check_transcript(run: &Run, judge: &Judge) -> usize {
    let engine = judge.engine();
    let mut board: Option<Position> = None;
    let mut pending: Option<Position> = None;
    let mut computer_moves = 0;
    let mut endless = false;
    for e in events(&run.stdout) {
        match e {
            Event::Board(p) => {
                if let Some(expected) = pending.take() {
                    assert_eq!(p, expected, "the board after a move is not what the rules give\n{}", run.describe());
                }
                board = Some(p);
            }
            Event::Move { side, house, computer } => {
                let before = board.expect("a board before a move");
                assert_eq!(before.to_move(), side, "{side:?} moved out of turn\n{}", run.describe());
                let (after, _) =
                    before.play(engine, house).unwrap_or_else(|e| panic!("illegal move {house} in {}: {e}\n{}", before.ring(), run.describe()));
                if computer {
                    computer_moves += 1;
                    let a = judge.analyze(&before);
                    let v = a.moves.iter().find(|m| m.house == house).expect("a legal move has a value").value;
                    assert_eq!(
                        v,
                        a.value,
                        "the computer played house {house} (worth {v}) in {} (worth {})\n{}",
                        before.ring(),
                        a.value,
                        run.describe()
                    );
                }
                pending = Some(after);
            }
            Event::Endless => endless = true,
            Event::Over { south, north } => {
                let p = board.expect("a board before the end");
                assert!(endless || p.is_over(engine), "game over announced in {} which is not over\n{}", p.ring(), run.describe());
                let (store_south, store_north) = (p.store(Side::South), p.store(Side::North));
                if endless {
                    // The seeds in the houses count for nobody.
                    assert_eq!((south, north), (store_south, store_north), "{}", run.describe());
                } else {
                    // The stores, and the seeds left in the houses scored as
                    // the rules say: the value of the finished game (a final
                    // store difference).
                    let value = judge.analyze(&p).value;
                    let value = if p.to_move() == Side::South { value } else { -value };
                    assert_eq!(south as i64 - north as i64, value as i64, "{}", run.describe());
                    assert!(south + north <= store_south + store_north + p.seeds_in_houses(), "{}", run.describe());
                }
            }
        }
    }
    computer_moves
}

fn rules(sowing: Sowing) -> Rules {
    Rules { sowing, ..Rules::default() }
}

/// Human moves that try every house in turn, right to left: some are illegal (and
/// re-prompted), the rest make a varied, mostly poor game.
fn clumsy(h: usize, n: usize) -> String {
    (0..n).map(|i| format!("{}\n", h - i % h)).collect()
}

#[test]
fn the_computer_plays_only_best_moves_on_small_boards() {
    for (h, s, side, extra) in [(3, 2, "S", &[][..]), (3, 2, "N", &[][..]), (2, 2, "S", &[][..]), (3, 3, "S", &["--capture", "empty"][..])] {
        let mut args = vec![h.to_string(), s.to_string(), "--side".to_string(), side.to_string()];
        args.extend(extra.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(|a| a.as_str()).collect();
        let run = play(&args, &clumsy(h, 60)).ok();
        let mut r = Rules::default();
        if !extra.is_empty() {
            r.capture = kalah_core::Capture::Empty;
        }
        let judge = Judge::new(h, r, 2 * h as u32 * s);
        let moves = check_transcript(&run, &judge);
        assert!(moves > 0, "the computer never moved\n{}", run.describe());
        assert!(run.stdout.contains("Game over."), "the game did not end\n{}", run.describe());
    }
}

#[test]
fn the_computer_plays_best_moves_with_clockwise_sowing() {
    let run = play(&["3", "2", "--sowing", "cw"], &clumsy(3, 80)).ok();
    let judge = Judge::new(3, rules(Sowing::Cw), 12);
    let moves = check_transcript(&run, &judge);
    assert!(moves > 0, "{}", run.describe());
}

#[test]
fn the_computer_plays_itself_to_the_end_and_realises_the_value() {
    for (h, s, sowing) in [(3, 2, Sowing::Ccw), (2, 2, Sowing::Ccw), (4, 2, Sowing::Ccw), (3, 2, Sowing::Cw), (2, 3, Sowing::Cw)] {
        let hs = (h.to_string(), s.to_string());
        let run = play(&[&hs.0, &hs.1, "--side", "none", "--sowing", sowing.name()], "").ok();
        let judge = Judge::new(h, rules(sowing), 2 * h as u32 * s);
        let moves = check_transcript(&run, &judge);
        let start = Position::start(h, s).unwrap();
        let value = judge.analyze(&start).value;
        let over: Vec<(u32, u32)> = events(&run.stdout)
            .into_iter()
            .filter_map(|e| match e {
                Event::Over { south, north } => Some((south, north)),
                _ => None,
            })
            .collect();
        assert_eq!(over.len(), 1, "one final score\n{}", run.describe());
        let (south, north) = over[0];
        assert_eq!(south as i32 - north as i32, value, "perfect play realises the value of the start\n{}", run.describe());
        let all: usize = events(&run.stdout).iter().filter(|e| matches!(e, Event::Move { .. })).count();
        assert_eq!(moves, all, "every move is the computer's\n{}", run.describe());
        assert!(!run.stdout.contains("to move: house"), "no prompt without a person\n{}", run.describe());
    }
}

#[test]
fn endless_play_is_detected_and_scored_by_the_stores() {
    // Clockwise relay sowing on Kalah(3,1): best play ends in a cycle.
    let run = play(&["3", "1", "--sowing", "cw", "--relay", "--side", "none"], "").ok();
    let r = Rules { sowing: Sowing::Cw, relay: kalah_core::Relay::On, ..Rules::default() };
    let judge = Judge::new(3, r, 6);
    check_transcript(&run, &judge);
    let ev = events(&run.stdout);
    assert!(ev.contains(&Event::Endless), "{}", run.describe());
    let value = judge.analyze(&Position::start(3, 1).unwrap()).value;
    let Some(Event::Over { south, north }) = ev.last() else { panic!("no final score\n{}", run.describe()) };
    assert_eq!(*south as i32 - *north as i32, value, "{}", run.describe());
    // The position before the announcement occurred before, with the same side to move.
    let boards: Vec<Position> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Board(p) => Some(*p),
            _ => None,
        })
        .collect();
    let last = boards.last().unwrap();
    assert!(boards[..boards.len() - 1].contains(last), "{}", run.describe());
}

#[test]
fn a_database_answers_or_backs_the_search() {
    let dir = tempfile::tempdir().expect("temp dir");
    let built = Command::new(BIN)
        .args(["db", "build", "--houses", "3", "--max-seeds", "8", "--threads", "1", "--json"])
        .env("KALAH_DB_DIR", dir.path())
        .current_dir(dir.path())
        .output()
        .expect("run kalah db build");
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let judge = Judge::new(3, Rules::default(), 12);
    // Kalah(3,1): 6 seeds, every value a probe.
    let run = play_in(dir.path(), &["3", "1"], &clumsy(3, 40)).ok();
    assert!(run.stdout.replace('\n', " ").contains("Values come from the 8-seed database"), "{}", run.describe());
    assert!(check_transcript(&run, &judge) > 0, "{}", run.describe());
    // Kalah(3,2): 12 seeds, a search that probes the database below 9.
    let run = play_in(dir.path(), &["3", "2"], &format!("hint\n{}", clumsy(3, 60))).ok();
    assert!(run.stdout.replace('\n', " ").contains("backed by the 8-seed database"), "{}", run.describe());
    assert!(check_transcript(&run, &judge) > 0, "{}", run.describe());
    // --no-db ignores it.
    let run = play_in(dir.path(), &["3", "1", "--no-db"], "quit\n").ok();
    assert!(run.stdout.replace('\n', " ").contains("no endgame database"), "{}", run.describe());
}

/// With no database file, the one a game builds in memory by default is
/// kept in the database folder, and the next game loads it (issue 39).
#[test]
fn a_game_keeps_the_database_it_built_for_the_next() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Kalah(2,12): 48 seeds, a 24-seed database by default.
    let first = play_in(dir.path(), &["2", "12"], "quit\n").ok();
    let file = dir.path().join("kalah-h2-n24-standard-instant-owner-ccw-relayoff.kdb");
    assert!(
        first.stderr.contains("building a 24-seed database in memory") && first.stderr.contains("kept the 24-seed database as"),
        "{}",
        first.describe()
    );
    assert!(file.is_file(), "{}", first.describe());
    let again = play_in(dir.path(), &["2", "12"], "hint\nquit\n").ok();
    assert!(!again.stderr.contains("building"), "{}", again.describe());
    assert!(again.stdout.replace('\n', " ").contains("24-seed database"), "{}", again.describe());
    // A size asked for is not kept.
    let other = tempfile::tempdir().expect("temp dir");
    let asked = play_in(other.path(), &["2", "12", "--db-seeds", "20"], "quit\n").ok();
    assert!(!asked.stderr.contains("kept"), "{}", asked.describe());
    assert_eq!(std::fs::read_dir(other.path()).unwrap().count(), 0, "{}", asked.describe());
}

#[test]
fn hint_lists_every_legal_move_with_its_exact_value() {
    let run = play(&["3", "2"], "hint\n2\nhint\nquit\n").ok();
    let judge = Judge::new(3, Rules::default(), 12);
    let boards: Vec<Position> = events(&run.stdout)
        .into_iter()
        .filter_map(|e| match e {
            Event::Board(p) => Some(p),
            _ => None,
        })
        .collect();
    // Two hints: at the start, and after 2 (an extra move: South again).
    let hints: Vec<Vec<(usize, i32, bool)>> = run
        .stdout
        .split("Value for ")
        .skip(1)
        .map(|chunk| {
            chunk
                .lines()
                .skip(1)
                .map_while(|l| {
                    let rest = l.trim_start().strip_prefix("house ")?;
                    let mut words = rest.split_whitespace();
                    let house = words.next()?.parse().ok()?;
                    let value = words.next()?.trim_start_matches('+').parse().ok()?;
                    Some((house, value, words.next() == Some("best")))
                })
                .collect()
        })
        .collect();
    assert_eq!(hints.len(), 2, "{}", run.describe());
    for (hint, p) in hints.iter().zip([boards[0], boards[1]]) {
        let a = judge.analyze(&p);
        let expected: Vec<(usize, i32, bool)> = a.moves.iter().map(|m| (m.house, m.value, m.value == a.value)).collect();
        assert_eq!(hint, &expected, "hint in {}\n{}", p.ring(), run.describe());
    }
}

#[test]
fn undo_new_and_quit() {
    let start: Position = "2,2,2,0,2,2,2,0 S".parse().unwrap();
    // 1: South's turn passes and North answers; undo goes back to the start.
    let run = play(&["3", "2"], "undo\n1\nundo\n3\nnew\nquit\n2\n").ok();
    assert!(run.stdout.contains("Nothing to undo"), "{}", run.describe());
    let ev = events(&run.stdout);
    let boards: Vec<Position> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Board(p) => Some(*p),
            _ => None,
        })
        .collect();
    assert_eq!(boards[0], start);
    let after_undo = run.stdout.split("Taken back").nth(1).expect("an undo");
    assert_eq!(
        events(after_undo).into_iter().find_map(|e| match e {
            Event::Board(p) => Some(p),
            _ => None,
        }),
        Some(start),
        "undo goes back to South's turn before 1\n{}",
        run.describe()
    );
    let after_new = run.stdout.split("New game.").nth(1).expect("a new game");
    assert_eq!(events(after_new).first(), Some(&Event::Board(start)), "{}", run.describe());
    assert!(run.stdout.trim_end().ends_with("Goodbye."), "quit stops at once\n{}", run.describe());
    // The 2 after quit was never played.
    assert_eq!(events(after_new).len(), 1, "{}", run.describe());
    check_transcript(&run, &Judge::new(3, Rules::default(), 12));
}

#[test]
fn undo_skips_the_computers_moves_and_extra_moves_are_undone_one_turn_at_a_time() {
    // 2 is an extra move (South again), then 1 passes the turn; North answers.
    let run = play(&["3", "2"], "2\n1\nundo\nundo\nquit\n").ok();
    let chunks: Vec<&str> = run.stdout.split("Taken back").collect();
    assert_eq!(chunks.len(), 3, "{}", run.describe());
    let first_board = |text: &str| {
        events(text).into_iter().find_map(|e| match e {
            Event::Board(p) => Some(p),
            _ => None,
        })
    };
    // First undo: back to before 1 (after 2); second: back to the start.
    assert_eq!(first_board(chunks[1]), Some("2,0,3,1,2,2,2,0 S".parse().unwrap()), "{}", run.describe());
    assert_eq!(first_board(chunks[2]), Some("2,2,2,0,2,2,2,0 S".parse().unwrap()), "{}", run.describe());
}

#[test]
fn bad_input_gets_a_message_and_the_prompt_again() {
    // After 2 (an extra move) South's house 2 is empty.
    let input = "foo\n0\n9\n\n99999999999999999999999\n-1\n2\n2\n1\nquit\n";
    let run = play(&["3", "2"], input).ok();
    let out = &run.stdout;
    assert!(out.contains("`foo` is neither a house number nor a command"), "{}", run.describe());
    assert!(out.contains("There is no house 0"), "{}", run.describe());
    assert!(out.contains("There is no house 9: your houses are 1 to 3."), "{}", run.describe());
    assert!(out.contains("There is no house 18446744073709551615") || out.contains("There is no house 99999"), "{}", run.describe());
    assert!(out.contains("`-1` is neither"), "{}", run.describe());
    assert!(out.contains("House 2 is empty. You can play: 1 3."), "{}", run.describe());
    let prompts = out.matches("South (you) to move").count();
    assert!(prompts >= 9, "a prompt after every line\n{}", run.describe());
    let moves: Vec<Event> = events(out).into_iter().filter(|e| matches!(e, Event::Move { .. })).collect();
    assert_eq!(moves[0], Event::Move { side: Side::South, house: 2, computer: false });
    assert_eq!(moves[1], Event::Move { side: Side::South, house: 1, computer: false });
    check_transcript(&run, &Judge::new(3, Rules::default(), 12));
}

#[test]
fn the_end_of_the_input_ends_the_program_cleanly() {
    let run = play(&["3", "2"], "1\n").ok();
    assert!(run.stdout.contains("End of input"), "{}", run.describe());
    let run = play(&["2", "2"], "").ok();
    assert!(run.stdout.contains("End of input"), "{}", run.describe());
}

#[test]
fn two_people_get_hints_and_no_computer_moves() {
    // South plays 2 (the turn passes); North asks for a hint and plays 1.
    let run = play(&["2", "2", "--side", "both"], "2\nhint\n1\nquit\n").ok();
    let ev = events(&run.stdout);
    assert!(ev.iter().all(|e| !matches!(e, Event::Move { computer: true, .. })), "{}", run.describe());
    assert_eq!(run.stdout.matches("Value for North").count(), 1, "{}", run.describe());
    check_transcript(&run, &Judge::new(2, Rules::default(), 8));
}

#[test]
fn a_game_from_a_position_ends_with_the_right_score() {
    // South to move, one legal move that ends the game by emptying South's side.
    let run = play(&["--position", "0,0,1,5,1,1,1,3 S"], "3\n").ok();
    let over: Vec<Event> = events(&run.stdout).into_iter().filter(|e| matches!(e, Event::Over { .. })).collect();
    assert_eq!(over.len(), 1, "{}", run.describe());
    check_transcript(&run, &Judge::new(3, Rules::default(), 4));
}

/// A game given already over (`--position`) still has seeds in its
/// houses: the final score counts them as the leftovers rule says, as
/// `query` values the position, under every end and leftovers rule.
/// (Regression: the bad-input sweep of 2026-12-02, RELIABILITY.md.)
#[test]
fn a_game_given_already_over_scores_the_seeds_left() {
    for (position, to_move) in [("0,0,0,0,1,1,1,0 S", Side::South), ("1,0,0,4 S", Side::South), ("0,0,0,2,1,1,1,0 N", Side::North)] {
        for leftovers in ["owner", "unscored", "emptier"] {
            for end in ["instant", "turn"] {
                let args = ["--position", position, "--side", "none", "--leftovers", leftovers, "--end", end];
                let run = play(&args, "").ok();
                let rules: Rules = Rules { leftovers: leftovers.parse().unwrap(), end: end.parse().unwrap(), ..Rules::default() };
                let h = if position.starts_with("1,0,0") { 1 } else { 3 };
                let judge = Judge::new(h, rules, 8);
                let start = events(&run.stdout).into_iter().find_map(|e| match e {
                    Event::Board(p) => Some(p),
                    _ => None,
                });
                let start = start.expect("the board is drawn");
                assert_eq!(start.to_move(), to_move);
                if !start.is_over(judge.engine()) {
                    continue; // the turn-based end: the game goes on
                }
                let over = events(&run.stdout).into_iter().filter(|e| matches!(e, Event::Over { .. })).count();
                assert_eq!(over, 1, "{}", run.describe());
                check_transcript(&run, &judge);
            }
        }
    }
}

#[test]
fn bad_arguments_are_refused() {
    for (args, needle) in
        [(&["3"][..], "give both H and S"), (&["9", "2"][..], "9 houses per side is not supported"), (&["--position", "1,2,3 S"][..], "--position")]
    {
        let run = play(args, "");
        assert_eq!(run.code, Some(2), "{}", run.describe());
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{}", run.describe());
        assert!(lines[0].starts_with("kalah: ") && lines[0].contains(needle), "{}", run.describe());
    }
    let run = play(&["--side", "east"], "");
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(run.stderr.contains("east"), "{}", run.describe());
}

/// Clockwise, with a database smaller than the start (`--db-seeds`, as
/// when retrograde analysis of the start does not fit): the computer
/// plays from values proven by searches over it, only best moves (judged
/// by retrograde analysis of every board), and realises the start's value
/// against itself.
#[test]
fn the_computer_plays_clockwise_from_proofs_over_a_smaller_database() {
    use kalah_core::{Capture, End, Relay};
    for (relay, capture, end) in
        [(Relay::Off, Capture::Standard, End::Instant), (Relay::On, Capture::Standard, End::Instant), (Relay::Off, Capture::Empty, End::Turn)]
    {
        let r = Rules { sowing: Sowing::Cw, relay, capture, end, ..Rules::default() };
        let rule_args = ["--sowing", "cw", "--relay", relay.name(), "--capture", capture.name(), "--end", end.name(), "--db-seeds", "12"];
        let args = |side: &'static str| [&["3", "3"][..], &rule_args[..], &["--side", side][..]].concat();
        let run = play(&args("none"), "").ok();
        assert!(run.stdout.contains("proofs by searches over the 12-seed database"), "{}", run.describe());
        let judge = Judge::new(3, r, 18);
        assert!(check_transcript(&run, &judge) > 0, "{}", run.describe());
        let value = judge.analyze(&Position::start(3, 3).unwrap()).value;
        let Some(Event::Over { south, north }) = events(&run.stdout).last().cloned() else { panic!("no final score\n{}", run.describe()) };
        assert_eq!(south as i32 - north as i32, value, "{r}\n{}", run.describe());
        // Against a person too: every computer move is a best move.
        for side in ["S", "N"] {
            let run = play(&args(side), &clumsy(3, 80)).ok();
            assert!(check_transcript(&run, &judge) > 0, "{}", run.describe());
        }
    }
}

/// Issue 39: `--coach` (and any move after a `hint`) says whether a move
/// kept the value or how much it gave away, by the values `kalah solve`
/// gives each move.
#[test]
fn a_move_that_gives_value_away_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN).args(["solve", "3", "3", "--no-db", "--json"]).env("KALAH_DB_DIR", dir.path()).output().unwrap();
    let solved: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let moves: Vec<(u64, i64)> =
        solved["moves"].as_array().unwrap().iter().map(|m| (m["house"].as_u64().unwrap(), m["value"].as_i64().unwrap())).collect();
    let best = moves.iter().map(|m| m.1).max().unwrap();
    assert!(moves.iter().any(|m| m.1 < best), "Kalah(3,3) has a move worse than the best: {moves:?}");
    for &(house, value) in &moves {
        for (args, input) in [(&["3", "3", "--coach"][..], format!("{house}\nquit\n")), (&["3", "3"][..], format!("hint\n{house}\nquit\n"))] {
            let run = play(args, &input);
            let said = if value == best {
                format!("House {house} keeps the value: {value:+}.")
            } else {
                format!("House {house} gives away {}: it is worth {value:+}", best - value)
            };
            assert!(run.stdout.contains(&said), "{args:?} {input:?}: no {said:?} in\n{}", run.stdout);
        }
    }
    // Without coaching or a hint nothing is judged.
    let run = play(&["3", "3"], "3\nquit\n");
    assert!(!run.stdout.contains("gives away") && !run.stdout.contains("keeps the value"), "{}", run.stdout);
}

/// What a computer move said it gave away: so much, the move's value and a
/// best move's.
struct GaveAway {
    away: i32,
    worth: i32,
    best: i32,
}

/// One computer move of a transcript: the position before it, the house, and
/// what it said it gave away, if anything.
struct ComputerMove {
    before: Position,
    house: usize,
    said: Option<GaveAway>,
}

/// Each computer move of a transcript.
fn computer_moves(run: &Run) -> Vec<ComputerMove> {
    let mut out: Vec<ComputerMove> = Vec::new();
    let mut board = None;
    for line in run.stdout.lines() {
        if let Some(ring) = line.strip_prefix("Position: ") {
            board = Some(ring.parse::<Position>().unwrap());
        } else if let Some((_, rest)) = line.split_once(" plays house ").filter(|_| line.contains(" s]")) {
            let house = rest.split(' ').next().unwrap().parse().unwrap();
            out.push(ComputerMove { before: board.expect("a board before a move"), house, said: None });
        } else if let Some(rest) = line.split_once(" gave away ").map(|(_, r)| r) {
            // "N there: that move is worth V, a best one B.)"
            let numbers: Vec<i32> = rest
                .split(|c: char| !(c.is_ascii_digit() || c == '-' || c == '+'))
                .filter(|w| !w.is_empty() && w.chars().any(|c| c.is_ascii_digit()))
                .map(|w| w.parse().unwrap())
                .collect();
            assert_eq!(numbers.len(), 3, "{line}");
            let said = GaveAway { away: numbers[0], worth: numbers[1], best: numbers[2] };
            out.last_mut().expect("said after a computer move").said = Some(said);
        }
    }
    out
}

#[test]
fn weaker_levels_give_away_what_they_say_within_their_limits() {
    let judge = Judge::new(4, rules(Sowing::Ccw), 24);
    for (level, most) in [("strong", 4), ("fair", 10), ("random", 99)] {
        let mut deviations = 0;
        for seed in 1..=4 {
            let seed = seed.to_string();
            let args = ["4", "3", "--side", "none", "--level", level, "--seed", &seed];
            let run = play(&args, "").ok();
            assert!(run.stdout.contains(&format!("(seed {seed}: --seed {seed} replays it)")), "{}", run.describe());
            let moves = computer_moves(&run);
            assert!(!moves.is_empty(), "{}", run.describe());
            for ComputerMove { before, house, said } in moves {
                let a = judge.analyze(&before);
                let value = a.moves.iter().find(|m| m.house == house).expect("a legal move").value;
                match said {
                    None => {
                        assert_eq!(value, a.value, "{level}: house {house} in {} is not best and nothing was said\n{}", before.ring(), run.describe())
                    }
                    Some(GaveAway { away, worth, best }) => {
                        deviations += 1;
                        assert_eq!(
                            (worth, best, away),
                            (value, a.value, a.value - value),
                            "{level}: house {house} in {}\n{}",
                            before.ring(),
                            run.describe()
                        );
                        assert!(away > 0 && away <= most, "{level} gave away {away}\n{}", run.describe());
                    }
                }
            }
            // The same seed replays the same game.
            let again = play(&args, "").ok();
            assert_eq!(events(&again.stdout), events(&run.stdout), "{level} seed {seed}");
        }
        assert!(deviations > 0, "{level}: four games without a weaker move");
    }
    let run = play(&["4", "3", "--side", "none"], "").ok();
    assert!(!run.stdout.contains("gave away") && run.stdout.contains("The perfect player plays both sides."), "{}", run.describe());
    let bad = Command::new(BIN).args(["play", "--level", "expert"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("perfect, strong, fair, random"), "{}", String::from_utf8_lossy(&bad.stderr));
}
