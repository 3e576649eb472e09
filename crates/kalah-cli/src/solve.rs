//! `kalah solve` and `kalah query`.

use clap::Args;

use kalah::{Request, Want};

use crate::common::{databases, parse_position, print_json, seconds, start_or_position, user, BoardSize, DbArgs, RuleArgs, SearchArgs};
use crate::observe::Terminal;

/// Arguments of `kalah solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    size: BoardSize,
    /// Solve this position instead of a start: ring form "S1..Sh,Sstore,N1..Nh,Nstore SIDE",
    /// e.g. "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", or side form "S:4-4-4:0 N:4-4-4:0 S".
    #[arg(long, value_name = "P", conflicts_with_all = ["houses", "seeds", "houses_flag", "seeds_flag"])]
    position: Option<String>,
    #[command(flatten)]
    rules: RuleArgs,
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    answer: AnswerArgs,
    /// Pie rule: after South's first turn North may swap sides. Prints every
    /// opening turn's value and the value of the game under the pie rule.
    #[arg(long, conflicts_with_all = ["position", "value_only", "best_move", "guess", "test", "journal"])]
    pie: bool,
    /// Seed shift: before the game North moves one seed from any house to
    /// any house (houses 1..2h in ring order). Prints each shift's value,
    /// North's best shift and the value of the game.
    #[arg(long, conflicts_with_all = ["position", "value_only", "best_move", "guess", "test", "journal"])]
    shift: bool,
    /// Every opening turn of South (extra-move chains included) with its value.
    #[arg(long, conflicts_with_all = ["position", "pie", "shift", "value_only", "best_move", "guess", "test", "journal"])]
    openings: bool,
    /// Seconds for the search: a value not proven in time is shown as the
    /// bounds proven on it (and every move's, as far as time allows; a
    /// principal variation only for an exact value). Default: no limit,
    /// except 60 s for a clockwise position too large for retrograde
    /// analysis in memory. With --openings or --pie: seconds per opening
    /// turn. Database probes are always exact, and not counted; clockwise,
    /// retrograde analysis (exact) runs when the limit allows it (0.8
    /// million boards a second and thread, reckoned low), else bounds are
    /// proven within the limit. Neither is loading or building a database
    /// first counted, but a
    /// default one is chosen to take at most about a quarter of the limit
    /// to set up (`--db` and `--db-seeds` are used as given; with
    /// --openings or --pie the set-up serves every turn and is not held
    /// to one turn's limit).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    time_limit: Option<f64>,
    #[command(flatten)]
    journal: JournalArgs,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// What to answer about a position (`kalah solve` and `kalah query`):
/// by default its value, every move's value and a line of best play.
#[derive(Args, Clone, Debug)]
pub struct AnswerArgs {
    /// Only the value: skip every move's value and the principal variation.
    #[arg(long, conflicts_with = "best_move")]
    value_only: bool,
    /// The value and a best move, without every move's exact value and the
    /// principal variation: much faster than the full analysis (a move is
    /// only shown to reach the value).
    #[arg(long)]
    best_move: bool,
    /// Begin the search at the guess V of the value (for the player to
    /// move, stores included): the first null-window test is "value >= V",
    /// with no depth-limited searches before it, and it comes before the
    /// test a journal recorded. For a value known or closely guessed
    /// (Kalah(6,6) empty capture, published +2: --guess 4 runs "value >=
    /// +4", which must fail, then "value >= +2", which must hold).
    #[arg(long, value_name = "V", allow_negative_numbers = true, conflicts_with = "test")]
    guess: Option<i32>,
    /// Run one null-window test only: is the value (for the player to
    /// move, stores included) at least V? Answered "holds" with a lower
    /// bound of at least V, or "fails" with an upper bound below it
    /// (`test` in --json); the value alone, as with --value-only. It
    /// comes before the test a journal recorded.
    #[arg(long, value_name = "V", allow_negative_numbers = true, conflicts_with = "best_move")]
    test: Option<i32>,
    /// Search these moves first, one a ply from the position (houses
    /// 1-based, each of the player to move then, comma-separated): a line
    /// known to hold the test, as Rawlings' 1-3 (`--first 1,3`) for the
    /// test "value at least +4" of Kalah(6,6) under standard capture. Only
    /// the order of the search changes, not a value.
    #[arg(long, value_name = "HOUSES", value_delimiter = ',', num_args = 1..)]
    first: Vec<usize>,
    /// Answer without the opening book this program carries (every move's
    /// exact value of the positions near the starts of Kalah(6,4) and
    /// other games people play; `kalah book info` lists them): search.
    #[arg(long)]
    no_book: bool,
}

impl AnswerArgs {
    /// The root tests asked for.
    fn tests(&self) -> kalah::RootTests {
        match (self.guess, self.test) {
            (_, Some(v)) => kalah::RootTests::AtLeast(v),
            (Some(v), None) => kalah::RootTests::FirstGuess(v),
            (None, None) => kalah::RootTests::Deepening,
        }
    }
}

/// The journal of a long search (`kalah solve` and `kalah query`).
#[derive(Args, Debug)]
pub struct JournalArgs {
    /// Keep what the search proves in the directory DIR (created if need
    /// be), written every --journal-every seconds and at the end; the same
    /// command run again resumes from it, after a kill, a reboot or on
    /// another machine, losing at most the work since the last write. A
    /// journal made for another position, other rules or another database
    /// size is refused. For searches of hours (Kalah(6,6)); the format is
    /// in the docs of the `kalah` library's `journal` module. Beside it,
    /// DIR/table.kt keeps a snapshot of the transposition table, so that a
    /// search killed and run again on this machine loses little more than
    /// the time since the last write (as large as the table's filled part,
    /// compressed: up to GiBs for a large --tt-mb; not needed elsewhere,
    /// delete it at will). Writes are spaced by at least ten times what the
    /// last one took. SIGINT or SIGTERM (Ctrl-C, `kill`) stops the search
    /// with its journal written first, losing nothing (exit code 1); a
    /// second signal stops it at once.
    #[arg(long, value_name = "DIR")]
    journal: Option<std::path::PathBuf>,
    /// Seconds between writes of the journal.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, requires = "journal", allow_negative_numbers = true)]
    journal_every: f64,
    /// The least subtree, in nodes, whose proven bounds the journal keeps:
    /// smaller keeps more (a larger file, less work lost at a kill).
    #[arg(long, value_name = "NODES", default_value_t = kalah::memory::journal::DEFAULT_MIN_NODES, requires = "journal")]
    journal_min_nodes: u64,
    /// Neither use nor add to the answers kept or the search memory. By
    /// default an exact answer an earlier `solve`, `query` or `serve` kept
    /// in the database folder (answers/) answers at once (source "kept"),
    /// and each new exact answer with every move's value is kept there
    /// (not with --db, --no-db or --db-seeds, which say how to answer).
    /// A search reads what earlier searches of the same board size and rules proved (the
    /// bounds of every subtree of a million nodes or more, and each root's
    /// value), kept in the database folder under
    /// memory/kalah-hH-RULES/journal.kj, and adds what it proves: a search
    /// run again answers in moments, and one of a position met before (a
    /// line of play of a solved start) goes faster. A few KiB for a search
    /// of seconds; delete the directory to forget. A memory in use by
    /// another kalah, or damaged, is passed over with a note. Likewise a
    /// database built in memory by default (no file for the rules, no
    /// --db-seeds) is kept as a file of the database folder, which the
    /// next searches of those rules load instead of building it again
    /// (Kalah(6,4): 20 seeds, 216 MiB); --no-memory keeps nothing.
    #[arg(long, conflicts_with = "journal")]
    no_memory: bool,
}

impl JournalArgs {
    fn spec(&self) -> anyhow::Result<Option<kalah::memory::journal::JournalSpec>> {
        let Some(dir) = &self.journal else {
            return Ok(None);
        };
        let every =
            seconds(self.journal_every).map_err(|_| user(format!("--journal-every {}: give a number of seconds above 0", self.journal_every)))?;
        Ok(Some(kalah::memory::journal::JournalSpec { dir: dir.clone(), every, min_nodes: self.journal_min_nodes.max(1) }))
    }
}

/// Arguments of `kalah query`.
#[derive(Args, Debug)]
pub struct QueryArgs {
    #[command(flatten)]
    size: BoardSize,
    /// The position, ring form "S1..Sh,Sstore,N1..Nh,Nstore SIDE" or side
    /// form (or H S for the start of Kalah(H,S)).
    #[arg(long, value_name = "P", conflicts_with_all = ["houses", "seeds", "houses_flag", "seeds_flag"])]
    position: Option<String>,
    #[command(flatten)]
    rules: RuleArgs,
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    answer: AnswerArgs,
    /// Seconds for the search: a value not proven in time is shown as the
    /// bounds proven on it (and every move's, as far as time allows; a
    /// principal variation only for an exact value). Default: no limit,
    /// except 60 s for a clockwise position too large for retrograde
    /// analysis in memory. Database probes are always exact, and not
    /// counted; clockwise, retrograde analysis (exact) runs when the limit
    /// allows it (0.8 million boards a second and thread, reckoned low),
    /// else bounds are proven within the limit. Neither is loading or
    /// building a database first counted, but a default one is chosen to take at most about a
    /// quarter of the limit to set up (`--db` and `--db-seeds` are used as
    /// given).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    time_limit: Option<f64>,
    #[command(flatten)]
    journal: JournalArgs,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

pub fn solve(args: SolveArgs) -> anyhow::Result<()> {
    let (position, title) = start_or_position(args.size.houses(), args.size.seeds(), args.position.as_deref(), "solve")?;
    let rules = args.rules.rules();
    let budget = match args.time_limit {
        None => None,
        Some(_) if args.shift => return Err(user("--time-limit does not apply to --shift")),
        Some(t) => Some(seconds(t)?),
    };
    if args.pie || args.shift || args.openings {
        let modes = crate::opening::Modes { pie: args.pie, shift: args.shift, budget };
        return crate::opening::run(&rules, &position, &title, &args.db, &args.search, modes, args.json);
    }
    let request =
        Asked { db: &args.db, search: &args.search, answer: &args.answer, time_limit: budget, journal: &args.journal }.request(position, rules)?;
    answer(&title, &request, args.json)
}

pub fn query(args: QueryArgs) -> anyhow::Result<()> {
    let (position, title) = match (&args.position, args.size.houses(), args.size.seeds()) {
        (Some(text), _, _) => (parse_position(text)?, "Query".to_string()),
        (None, Some(h), Some(s)) => start_or_position(Some(h), Some(s), None, "query")?,
        _ => return Err(user("give the position: --position P (e.g. \"4,4,4,0,4,4,4,0 S\"), or H S for the start of Kalah(H,S)")),
    };
    let rules = args.rules.rules();
    let time_limit = args.time_limit.map(seconds).transpose()?;
    let request = Asked { db: &args.db, search: &args.search, answer: &args.answer, time_limit, journal: &args.journal }.request(position, rules)?;
    answer(&title, &request, args.json)
}

/// The flags `kalah solve` and `kalah query` share, parsed: one way from
/// them to the library's request.
struct Asked<'a> {
    db: &'a DbArgs,
    search: &'a SearchArgs,
    answer: &'a AnswerArgs,
    time_limit: Option<std::time::Duration>,
    journal: &'a JournalArgs,
}

impl Asked<'_> {
    /// The request for `position` under `rules`, the flags checked.
    fn request(&self, position: kalah_core::Position, rules: kalah_core::Rules) -> anyhow::Result<Request> {
        let AnswerArgs { value_only, best_move, test, .. } = *self.answer;
        let full = !value_only && !best_move && test.is_none();
        Ok(Request {
            db: self.db.spec(),
            threads: self.search.threads()?,
            tt_mb: self.search.tt_mb_asked()?,
            want: if full {
                Want::MovesAndLine
            } else if best_move {
                Want::BestMove
            } else {
                Want::Value
            },
            time_limit: self.time_limit,
            journal: self.journal.spec()?,
            memory: if self.journal.no_memory { kalah::Memory::Off } else { kalah::Memory::All },
            tests: self.answer.tests(),
            first: self.answer.first.clone(),
            book: !self.answer.no_book,
            ..Request::new(position, rules)
        })
    }
}

/// Asks the library's analyzer and prints its report. A search with a
/// journal stops at SIGINT or SIGTERM, writes its journal, prints what it
/// has proven and fails (exit code 1): the same command goes on from it.
fn answer(title: &str, request: &Request, json: bool) -> anyhow::Result<()> {
    let mut request = request.clone();
    let stop = match request.journal {
        Some(_) => Some(crate::common::stop_on_signal()?),
        None => None,
    };
    request.cancel = request.cancel.or(stop.clone());
    let report = crate::book::analyzer(kalah::Analyzer::new(databases()), !request.book)?.analyze(&request, &Terminal::unless_json(json))?;
    if json {
        print_json(&serde_json::to_value(&report)?);
    } else {
        crate::analysis::print_human(title, &report);
    }
    // (A signal that came once the answer was found stops nothing.)
    if stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) && !report.is_exact() {
        let kept = match report.journal.as_ref().map(|j| &j.not_written) {
            Some(None) => "the journal is written: run the same command to go on",
            _ => "the journal was not written",
        };
        return Err(kalah::Error::internal(format!("stopped by a signal before the answer; {kept}")).into());
    }
    // The answer is printed; a journal that could not be kept is a failure
    // of the machine, said after it (exit code 1).
    if let Some(why) = report.journal.as_ref().and_then(|j| j.not_written.as_ref()) {
        return Err(kalah::Error::io(format!("the value above stands, but the journal was not kept: {why}"), None).into());
    }
    Ok(())
}
