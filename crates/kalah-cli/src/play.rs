//! `kalah play`: a game in the terminal against the perfect player.
//!
//! The program reads one line at a time from standard input, so it works
//! the same in a terminal and from a pipe, and draws nothing but plain
//! lines (no cursor movement), so it fits any 80x24 terminal. Every board
//! drawn is followed by a `Position:` line in ring form (to paste into
//! `kalah solve --position`, and what the tests replay), every move by a
//! `<Side> plays house <n>` line, the computer's with its time.
//!
//! # Where the values come from
//!
//! One brain (`kalah::player`) serves the whole game, built once at the
//! start: a database probe, retrograde analysis, or one search whose table
//! carries over from move to move; the computer always plays a best move.
//! In a terminal it thinks on the human's time (`--ponder`).

use std::collections::HashSet;
use std::io::{BufRead, IsTerminal, Write};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use kalah::{move_values, Analyzer, BookBrain, Brain, Level, MakeBrain, Request};
use kalah_core::{Engine, Leftovers, Next, Outcome, Position, Rules, Side, Sowing};
use rand::{rngs::StdRng, RngExt, SeedableRng};

use crate::common::SearchArgs;
use crate::common::{databases, start_or_position, BoardSize, DbArgs, RuleArgs};
use crate::observe::Terminal;
use kalah::text::{signed, verdict};

/// `println!` that returns an error instead of panicking when standard
/// output is closed (`kalah play --side none | head`; `main` reports a
/// closed pipe as success).
macro_rules! say {
    () => {
        writeln!(std::io::stdout())?
    };
    ($($arg:tt)*) => {
        writeln!(std::io::stdout(), $($arg)*)?
    };
}

/// Arguments of `kalah play`.
#[derive(Args, Debug)]
#[command(after_long_help = "The computer plays a best move (one whose exact value, the final store difference for \
the mover under perfect play, is the position's value), unless --level asks for a weaker player. You type a house number to sow it; \
houses are numbered 1..h from their owner's left, so your own 1 is on your left. Commands at \
the prompt:\n\n  \
1..h   play that house\n  \
hint   every legal move's exact value, the best ones marked\n  \
undo   take moves back to your previous turn\n  \
new    start again\n  \
board  draw the board again\n  \
help   the commands\n  \
quit   stop (so does the end of the input)\n\n\
The board is drawn with North at the top (its houses numbered from its own left, so right to \
left as you see them) and South at the bottom; North's store is on the left, South's on the \
right. After every move the houses that changed are listed and marked with *.\n\n\
Values come from an endgame database that covers the game if there is one (data/db, or --db), \
from retrograde analysis for clockwise sowing, and otherwise from a search backed by the \
largest database for the board and rules of at most 2 GiB (a larger one loads too slowly for a \
game; --db takes any); one search with one transposition table serves the \
whole game. In a terminal the computer thinks on your time (--ponder).\n\n\
Input is read line by line, so a game can be scripted:\n  \
printf '2\\nhint\\n1\\nquit\\n' | kalah play 3 2\n\n\
Examples:\n  \
kalah play                          Kalah(6,4), you are South and move first\n  \
kalah play 6 4 --capture empty      with the 20-seed database of `kalah db build`\n  \
kalah play 4 3 --side N             the computer opens\n  \
kalah play 3 3 --sowing cw          clockwise: play can be endless\n  \
kalah play 4 4 --side both          two players, hints on demand\n  \
kalah play 3 3 --side none          watch the perfect player play itself\n  \
kalah play 4 4 --level fair         a weaker opponent, for learning")]
pub struct PlayArgs {
    #[command(flatten)]
    size: BoardSize,
    /// Start from this position instead: ring form "S1..Sh,Sstore,N1..Nh,Nstore SIDE",
    /// e.g. "3,3,3,0,3,3,3,0 S", or side form "S:3-3-3:0 N:3-3-3:0 S".
    #[arg(long, value_name = "P", conflicts_with_all = ["houses", "seeds", "houses_flag", "seeds_flag"])]
    position: Option<String>,
    /// The side you play: S (South, moves first), N (North), both (two
    /// people at one keyboard) or none (the computer plays both sides).
    #[arg(long, value_name = "SIDE", default_value = "S")]
    side: Seats,
    /// Play without the opening book this program carries: the values
    /// of the first moves are searched, after the database is set up.
    #[arg(long)]
    no_book: bool,
    #[command(flatten)]
    rules: RuleArgs,
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    search: SearchArgs,
    /// Think on the human's time: `auto` (when the input is a terminal),
    /// `on` or `off`. Only searches ponder; database probes are instant.
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    ponder: Ponder,
    /// After each of your moves, say whether it kept the position's value
    /// or how much it gave away, and what the best move was worth (every
    /// move's value each turn: instant where a database covers the
    /// position, a search otherwise). Without it, this is said only after
    /// a `hint`.
    #[arg(long)]
    coach: bool,
    /// How well the computer plays: perfect (always a best move), strong
    /// (one turn in four a move that gives away at most 4), fair (every
    /// other turn one that gives away at most 10) or random (any legal
    /// move). Below perfect it says each time it gives value away. Levels
    /// below perfect need every move's value each turn: instant from a
    /// database, a search otherwise.
    #[arg(long, value_name = "LEVEL", default_value = "perfect", value_parser = parse_level)]
    level: Level,
    /// The seed of the weaker levels' choices (default: from the clock,
    /// said in the header): the same seed and moves replay the same game.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
}

fn parse_level(text: &str) -> Result<Level, String> {
    Level::from_name(text).map_err(|e| e.to_string())
}

/// Which sides people play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seats {
    south: bool,
    north: bool,
}

impl Seats {
    fn human(self, side: Side) -> bool {
        match side {
            Side::South => self.south,
            Side::North => self.north,
        }
    }

    fn any(self) -> bool {
        self.south || self.north
    }

    /// Whether the computer plays a side.
    fn computer_plays(self) -> bool {
        !(self.south && self.north)
    }
}

impl FromStr for Seats {
    type Err = String;

    fn from_str(s: &str) -> Result<Seats, String> {
        let (south, north) = match s.to_ascii_lowercase().as_str() {
            "s" | "south" => (true, false),
            "n" | "north" => (false, true),
            "both" => (true, true),
            "none" => (false, false),
            _ => return Err(format!("`{s}` is not a side: give S, N, both or none")),
        };
        Ok(Seats { south, north })
    }
}

/// When to ponder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ponder {
    Auto,
    On,
    Off,
}

impl FromStr for Ponder {
    type Err = String;

    fn from_str(s: &str) -> Result<Ponder, String> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(Ponder::Auto),
            "on" => Ok(Ponder::On),
            "off" => Ok(Ponder::Off),
            _ => Err(format!("`{s}`: give auto, on or off")),
        }
    }
}

pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    let (start, title) = start_or_position(args.size.houses(), args.size.seeds(), args.position.as_deref(), "play")?;
    let rules = args.rules.rules();
    let threads = args.search.threads()?;
    let tt_mb = args.search.tt_mb_asked()?;
    let ponder = match args.ponder {
        Ponder::On => true,
        Ponder::Off => false,
        Ponder::Auto => std::io::stdin().is_terminal(),
    };
    let h = start.houses();
    let engine = Engine::new(h, rules);
    let spec = args.db.spec();
    // The brain beyond the book is set up at the first position the book
    // does not hold; without a book (or the game's), at once.
    let make: MakeBrain = {
        let request = Request { db: spec.clone(), threads, tt_mb, ..Request::new(start, rules) };
        Box::new(move || Analyzer::new(databases()).player(&request, &Terminal::unless_json(false)))
    };
    let book = if args.no_book { None } else { kalah::memory::book::carried()?.filter(|b| b.lookup(rules, &start).is_some()) };
    let brain: Box<dyn Brain> = match book {
        Some(book) => Box::new(BookBrain::new(engine.clone(), book, make)),
        None => make()?,
    };
    let seed = args
        .seed
        .unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64 % 1_000_000));
    let mut game = Game {
        brain: brain.as_ref(),
        engine: Engine::new(h, rules),
        rules,
        seats: args.side,
        start,
        position: start,
        history: Vec::new(),
        ponder,
        coach: args.coach,
        known: None,
        level: args.level,
        seed,
        rng: StdRng::seed_from_u64(seed),
    };
    game.header(&title)?;
    std::thread::scope(|scope| game.play(scope))
}

/// What one line of input asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    House(usize),
    /// A house in the notation of the principal variation: `S2`, `N3`.
    SideHouse(Side, usize),
    Hint,
    Undo,
    New,
    Board,
    Help,
    Quit,
    Nothing,
    Unknown(String),
}

fn parse_command(line: &str) -> Command {
    let word = line.trim();
    match word.to_ascii_lowercase().as_str() {
        "" => Command::Nothing,
        "hint" | "hints" => Command::Hint,
        "undo" | "u" | "back" => Command::Undo,
        "new" | "restart" => Command::New,
        "board" | "b" | "show" => Command::Board,
        "help" | "?" | "h" => Command::Help,
        "quit" | "q" | "exit" => Command::Quit,
        w if !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()) => {
            // Absurdly long numbers are simply out of range.
            Command::House(w.parse::<usize>().unwrap_or(usize::MAX))
        }
        w if w.len() > 1 && (w.starts_with('s') || w.starts_with('n')) && w[1..].chars().all(|c| c.is_ascii_digit()) => {
            let side = if w.starts_with('s') { Side::South } else { Side::North };
            Command::SideHouse(side, w[1..].parse::<usize>().unwrap_or(usize::MAX))
        }
        _ => Command::Unknown(word.to_string()),
    }
}

/// A cell of the board: a side's house (1-based) or store (`None`).
type Cell = (Side, Option<usize>);

/// One game session.
struct Game<'a> {
    brain: &'a dyn Brain,
    engine: Engine,
    rules: Rules,
    seats: Seats,
    start: Position,
    position: Position,
    /// The positions before each move played, oldest first.
    history: Vec<Position>,
    ponder: bool,
    /// Say what each move of a person gave away ([`PlayArgs::coach`]).
    coach: bool,
    /// Every move's value of a position, as a hint showed them.
    known: Option<(Position, Vec<(usize, i32)>)>,
    /// How well the computer plays ([`PlayArgs::level`]).
    level: Level,
    /// The seed of `rng`, said in the header.
    seed: u64,
    /// The weaker levels' choices.
    rng: StdRng,
}

impl<'a> Game<'a> {
    fn h(&self) -> usize {
        self.position.houses()
    }

    fn header(&mut self, title: &str) -> anyhow::Result<()> {
        let h = self.h();
        say!("{title}   {}", self.rules);
        match (self.seats.south, self.seats.north) {
            (true, false) => say!("You play South (bottom row) against the {} player, who plays North.", self.level.name()),
            (false, true) => say!("You play North (top row) against the {} player, who plays South.", self.level.name()),
            (true, true) => say!("Two players at one keyboard; `hint` shows every move's exact value."),
            (false, false) => say!("The {} player plays both sides.", self.level.name()),
        }
        if self.level != Level::Perfect && self.seats.computer_plays() {
            say!("The {} player plays {} (seed {}: --seed {} replays it).", self.level.name(), self.level.describe(), self.seed, self.seed);
        }
        say!(
            "Houses are numbered 1-{h} from their owner's left. Sowing runs {}",
            match self.rules.sowing {
                Sowing::Ccw => "counter-clockwise:\nyour houses towards your store, then the other row.",
                Sowing::Cw => "clockwise: your houses away\nfrom your store, then the other row, then your store.",
            }
        );
        for line in wrap(&format!("Values come from {}.", self.brain.describe()), 78) {
            say!("{line}");
        }
        if self.seats.any() {
            say!("Type a house number to play it, or help.");
        }
        Ok(())
    }

    /// The board, North on top; `changed` cells are marked with `*`.
    fn draw(&self, changed: &[Cell]) -> String {
        let p = &self.position;
        let h = self.h();
        let mark = |cell: Cell| if changed.contains(&cell) { '*' } else { ' ' };
        let house = |side: Side, i: usize| format!("|{:>3}{}", p.house(side, i), mark((side, Some(i))));
        let rule: String = "+----".repeat(h) + "+";
        let left = 16;
        // Who sits where is in the header and the prompt; the board says
        // only whose turn it is (80 columns hold 8 houses and this).
        let turn = |side: Side| {
            if !p.is_over(&self.engine) && p.to_move() == side {
                format!("  <- {} to move", side.name())
            } else {
                String::new()
            }
        };
        let mut out = String::new();
        let labels =
            |side: Side, order: Vec<usize>| -> String { order.iter().map(|&i| format!("{:>4} ", format!("{}{i}", side.letter()))).collect() };
        out.push_str(&format!("{:left$}{}\n", "", labels(Side::North, (1..=h).rev().collect()).trim_end()));
        out.push_str(&format!("{:left$}{rule}\n", ""));
        let north: String = (1..=h).rev().map(|i| house(Side::North, i)).collect();
        out.push_str(&format!("{:<left$}{north}|{}\n", "   North", turn(Side::North).trim_end()));
        out.push_str(&format!(
            "{:<left$}{rule} [{:>3}{} S store]\n",
            format!(" [N store {:>3}{}]", p.store(Side::North), mark((Side::North, None))),
            p.store(Side::South),
            mark((Side::South, None)),
        ));
        let south: String = (1..=h).map(|i| house(Side::South, i)).collect();
        out.push_str(&format!("{:<left$}{south}|{}\n", "   South", turn(Side::South).trim_end()));
        out.push_str(&format!("{:left$}{rule}\n", ""));
        out.push_str(&format!("{:left$}{}\n", "", labels(Side::South, (1..=h).collect()).trim_end()));
        out.push_str(&format!("Position: {}\n", p.ring()));
        out
    }

    fn show(&mut self, changed: &[Cell]) -> anyhow::Result<()> {
        let text = self.draw(changed);
        say!();
        write!(std::io::stdout(), "{text}")?;
        Ok(())
    }

    /// Plays `house` for the player to move, says what happened and draws the board.
    fn play_move(&mut self, house: usize, seconds: Option<f64>) -> anyhow::Result<()> {
        let before = self.position;
        let mover = before.to_move();
        let seeds = before.house(mover, house);
        let (after, outcome) = before.play(&self.engine, house).map_err(|e| anyhow::anyhow!("internal error: {e}"))?;
        self.history.push(before);
        self.position = after;
        let changed = changed_cells(&before, &after);
        let names: Vec<String> = changed
            .iter()
            .map(|&(side, i)| match i {
                Some(i) => format!("{}{i}", side.letter()),
                None => format!("{} store", side.letter()),
            })
            .collect();
        let time = seconds.map_or(String::new(), |s| format!(" [{s:.2} s]"));
        say!();
        let text = format!(
            "{} plays house {house} ({seeds} seed{}){time}: changed {}. {}",
            mover.name(),
            if seeds == 1 { "" } else { "s" },
            names.join(" "),
            consequence(self.rules, mover, &outcome, &after)
        );
        for line in wrap(&text, 78) {
            say!("{line}");
        }
        self.show(&changed)
    }

    fn computer_move(&mut self) -> anyhow::Result<()> {
        let timer = Instant::now();
        let spinner = ProgressBar::new_spinner();
        spinner.set_style(ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template"));
        spinner.set_message(format!("{} is thinking", self.position.to_move().name()));
        spinner.enable_steady_tick(Duration::from_millis(100));
        let chosen = self.level_move();
        let best = match chosen {
            Ok(Some(_)) | Err(_) => None,
            Ok(None) => Some(self.brain.best_move(&self.position, None)),
        };
        spinner.finish_and_clear();
        if let Some((house, chosen, was)) = chosen? {
            let mover = self.position.to_move().name();
            self.play_move(house, Some(timer.elapsed().as_secs_f64()))?;
            say!(
                "({mover}, playing at the {} level, gave away {} there: that move is worth {}, a best one {}.)",
                self.level.name(),
                was - chosen,
                signed(chosen),
                signed(was)
            );
            return Ok(());
        }
        let house = best.expect("no deviation means a best move")?.expect("an uncancelled search answers");
        self.play_move(house, Some(timer.elapsed().as_secs_f64()))
    }

    /// The move the computer's level plays instead of a best one, with its
    /// value and a best move's, or `None` for a best move.
    fn level_move(&mut self) -> anyhow::Result<Option<(usize, i32, i32)>> {
        if !self.level.needs_values() {
            return Ok(None);
        }
        let values = move_values(self.brain, &self.position, None)?.expect("an uncancelled search answers");
        let rng = &mut self.rng;
        let Some(house) = self.level.deviate(&values, &mut |n| rng.random_range(0..n)) else {
            return Ok(None);
        };
        let value = |house: usize| values.iter().find(|&&(h, _)| h == house).map(|&(_, v)| v);
        let best = values.iter().map(|&(_, v)| v).max().expect("a position that is not over has a move");
        Ok(Some((house, value(house).expect("a deviation is a legal move"), best)))
    }

    fn hint(&mut self) -> anyhow::Result<()> {
        let p = self.position;
        if p.is_over(&self.engine) {
            say!("The game is over.");
            return Ok(());
        }
        let values = move_values(self.brain, &p, None)?.expect("an uncancelled search answers");
        self.known = Some((p, values.clone()));
        let best = values.iter().map(|&(_, v)| v).max().expect("a position that is not over has a move");
        let mover = p.to_move();
        say!("Value for {}: {} ({}); each move's value:", mover.name(), signed(best), verdict(mover, best));
        for (house, v) in values {
            let mark = if v == best { "  best" } else { "" };
            say!("  house {house:>2}  {:>4}{mark}", signed(v));
        }
        Ok(())
    }

    /// What playing `house` in `p` does to the mover's value, when every
    /// move's value is known (a hint showed them) or coaching asks for it.
    fn judge(&self, p: &Position, house: usize) -> anyhow::Result<Option<String>> {
        let values = match &self.known {
            Some((q, v)) if q == p => v.clone(),
            _ if self.coach => move_values(self.brain, p, None)?.expect("an uncancelled search answers"),
            _ => return Ok(None),
        };
        let best = values.iter().max_by_key(|&&(h, v)| (v, std::cmp::Reverse(h))).copied().expect("a position that is not over has a move");
        let Some(&(_, chosen)) = values.iter().find(|&&(h, _)| h == house) else {
            return Ok(None);
        };
        Ok(Some(if chosen == best.1 {
            format!("House {house} keeps the value: {}.", signed(chosen))
        } else {
            format!("House {house} gives away {}: it is worth {}, house {} was worth {}.", best.1 - chosen, signed(chosen), best.0, signed(best.1))
        }))
    }

    /// Back to the position before the last move a person chose.
    fn undo(&mut self) -> bool {
        match self.history.iter().rposition(|p| self.seats.human(p.to_move())) {
            Some(i) => {
                self.position = self.history[i];
                self.history.truncate(i);
                true
            }
            None => false,
        }
    }

    fn help(&self) -> anyhow::Result<()> {
        let h = self.h();
        say!("Commands:");
        say!("  1-{h:<6} play that house of yours (numbered from your left); S2 or N2, as a line of play writes it, too");
        say!("  hint     every legal move's exact value, the best marked");
        say!("  undo     take moves back to your previous turn");
        say!("  new      start the game again");
        say!("  board    draw the board again");
        say!("  help     this list");
        say!("  quit     stop playing (so does the end of the input)");
        say!("A value is the final store difference for the player to move when both");
        say!("play perfectly from there: +4 means that player ends 4 seeds ahead.");
        Ok(())
    }

    fn final_score(&self) -> anyhow::Result<()> {
        let p = &self.position;
        let (mut s, mut n) = (p.store(Side::South), p.store(Side::North));
        // A move that ends the game scores the seeds left in the houses;
        // a game given already over (`--position`) has them still there.
        // (After endless play they count for nobody, RULES.md.)
        if let Some((mover, other)) = self.engine.terminal_shares(p.mover_board()) {
            if mover + other > 0 {
                let (south, north) = if p.to_move() == Side::South { (mover, other) } else { (other, mover) };
                say!();
                say!("The seeds left in the houses score: {south} to South, {north} to North.");
                s += south;
                n += north;
            }
        }
        let diff = s as i64 - n as i64;
        say!();
        say!("Game over. South {s}, North {n}: {}.", verdict(Side::South, diff as i32));
        Ok(())
    }

    /// Prints the prompt.
    fn prompt(&mut self, text: &str) -> anyhow::Result<()> {
        let mut out = std::io::stdout();
        write!(out, "{text}")?;
        out.flush()?;
        Ok(())
    }

    fn play<'s>(&mut self, scope: &'s std::thread::Scope<'s, '_>) -> anyhow::Result<()>
    where
        'a: 's,
    {
        let stdin = std::io::stdin();
        // Input from a pipe is not echoed by a terminal: echo it, so that
        // the transcript reads as a game.
        let echo = !stdin.is_terminal();
        let mut lines = stdin.lock().lines();
        // Positions already seen with the computer to move (endless play).
        let mut seen: HashSet<Position> = HashSet::new();
        // The final score of the game on the board has been printed.
        let mut scored = false;
        self.show(&[])?;
        loop {
            let p = self.position;
            let over = p.is_over(&self.engine);
            if over {
                if !scored {
                    self.final_score()?;
                    scored = true;
                }
                if !self.seats.any() {
                    return Ok(());
                }
            } else if !self.seats.human(p.to_move()) {
                if !self.seats.any() && !seen.insert(p) {
                    say!();
                    say!("The position repeats and best play goes round for ever; the seeds in the houses");
                    say!("count for nobody (RULES.md, \"Endless play\").");
                    self.final_score()?;
                    return Ok(());
                }
                self.computer_move()?;
                continue;
            }

            // A person's turn, or the end of a game with people.
            let cancel = Arc::new(AtomicBool::new(false));
            let pondering = (!over && self.ponder && self.brain.searches(p.mover_board())).then(|| {
                let (brain, seats, cancel) = (self.brain, self.seats, Arc::clone(&cancel));
                scope.spawn(move || brain.ponder(&p, &|side| !seats.human(side), &cancel))
            });
            if over {
                self.prompt("Type new to play again, undo to take moves back, or quit: ")?;
            } else {
                let h = self.h();
                let mover = p.to_move();
                let you = if self.seats.south && self.seats.north { String::new() } else { " (you)".to_string() };
                self.prompt(&format!("{}{you} to move: house 1-{h}, hint, undo, new, help or quit > ", mover.name()))?;
            }
            let line = lines.next();
            cancel.store(true, Relaxed);
            if let Some(handle) = pondering {
                let _ = handle.join();
            }
            let line = match line {
                None => {
                    say!();
                    say!("End of input: goodbye.");
                    return Ok(());
                }
                Some(Ok(line)) => line,
                Some(Err(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                    say!();
                    say!("That line is not text (UTF-8). Type help for the commands.");
                    continue;
                }
                // Input that cannot be read at all (a directory, say) is bad input.
                Some(Err(e)) => return Err(crate::common::user(format!("standard input: {e}"))),
            };
            if echo {
                say!("{}", line.trim_end());
            }
            // `S2` for the side to move is its house 2.
            let command = match parse_command(&line) {
                Command::SideHouse(side, house) if side == p.to_move() => Command::House(house),
                command => command,
            };
            if self.obey(command, p, over, &line, &mut seen, &mut scored)? == Flow::Quit {
                return Ok(());
            }
        }
    }

    /// Carries out a person's `command` at `p` (whose game is `over` or
    /// not; `typed`, the line as typed): a move, a command of the game
    /// (new, undo, hint, ...), or what is wrong with it. `seen` and
    /// `scored` are the game loop's, reset by a new game or an undo.
    fn obey(
        &mut self,
        command: Command,
        p: Position,
        over: bool,
        typed: &str,
        seen: &mut HashSet<Position>,
        scored: &mut bool,
    ) -> anyhow::Result<Flow> {
        match command {
            Command::SideHouse(side, _) => {
                let mover = p.to_move();
                say!(
                    "It is {}'s turn, not {}'s: {}'s houses are {}1 to {}{}.",
                    mover.name(),
                    side.name(),
                    mover.name(),
                    mover.letter(),
                    mover.letter(),
                    self.h()
                );
            }
            Command::Quit => {
                say!("Goodbye.");
                return Ok(Flow::Quit);
            }
            Command::Help => self.help()?,
            Command::Board => self.show(&[])?,
            Command::Hint => self.hint()?,
            Command::Nothing => {}
            Command::New => {
                *scored = false;
                self.position = self.start;
                self.history.clear();
                seen.clear();
                say!("New game.");
                self.show(&[])?;
            }
            Command::Undo => {
                if self.undo() {
                    *scored = false;
                    say!("Taken back to {}'s turn.", self.position.to_move().name());
                    self.show(&[])?;
                } else {
                    say!("Nothing to undo: no move of yours has been played yet.");
                }
            }
            Command::Unknown(word) => {
                say!("`{word}` is neither a house number nor a command; type help for the list.");
            }
            Command::House(_) if over => {
                say!("The game is over: type new, undo or quit.");
            }
            Command::House(house) => {
                let h = self.h();
                let legal = p.legal_moves();
                if !(1..=h).contains(&house) {
                    // An absurdly long number is shown as typed, not as usize::MAX.
                    let typed = typed.trim();
                    say!("There is no house {typed}: your houses are 1 to {h}.");
                } else if !legal.contains(&house) {
                    let list: Vec<String> = legal.iter().map(|m| m.to_string()).collect();
                    say!("House {house} is empty. You can play: {}.", list.join(" "));
                } else {
                    let judged = self.judge(&p, house)?;
                    self.play_move(house, None)?;
                    if let Some(text) = judged {
                        say!("{text}");
                    }
                }
            }
        }
        Ok(Flow::Go)
    }
}

/// Whether the game loop goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Go,
    Quit,
}

/// `text` in lines of at most `width` characters, broken at spaces (a
/// longer word, such as a path, gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// What a move led to, in words.
fn consequence(rules: Rules, mover: Side, o: &Outcome, after: &Position) -> String {
    let capture = if o.captured > 0 { format!("{} captures {} seeds. ", mover.name(), o.captured) } else { String::new() };
    match o.next {
        Next::Mover => format!("{capture}The last seed fell in {}'s store: {} moves again.", mover.name(), mover.name()),
        Next::Opponent => format!("{capture}{} to move.", after.to_move().name()),
        Next::Over => format!(
            "{capture}A side is empty: the game is over, and {}.",
            match rules.leftovers {
                Leftovers::Owner => "the seeds left go to their owner's store",
                Leftovers::Unscored => "the seeds left count for nobody",
                Leftovers::Emptier => "the seeds left go to the player whose houses are empty",
            }
        ),
    }
}

/// The cells whose seeds differ between two positions of the same board.
fn changed_cells(before: &Position, after: &Position) -> Vec<Cell> {
    let h = before.houses();
    let mut out = Vec::new();
    for side in [before.to_move(), before.to_move().other()] {
        for i in 1..=h {
            if before.house(side, i) != after.house(side, i) {
                out.push((side, Some(i)));
            }
        }
        if before.store(side) != after.store(side) {
            out.push((side, None));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse() {
        assert_eq!(parse_command(" 3 "), Command::House(3));
        assert_eq!(parse_command("HINT"), Command::Hint);
        assert_eq!(parse_command(""), Command::Nothing);
        assert_eq!(parse_command("99999999999999999999999"), Command::House(usize::MAX));
        assert_eq!(parse_command("-1"), Command::Unknown("-1".into()));
        // The principal variation's notation (issue 39).
        assert_eq!(parse_command("S2"), Command::SideHouse(Side::South, 2));
        assert_eq!(parse_command(" n3"), Command::SideHouse(Side::North, 3));
        assert_eq!(parse_command("S"), Command::Unknown("S".into()));
        assert_eq!(parse_command("Sx"), Command::Unknown("Sx".into()));
        assert_eq!("both".parse::<Seats>().unwrap(), Seats { south: true, north: true });
        assert!("east".parse::<Seats>().is_err());
    }
}
