//! `kalah journal verify`: a sample of a journal's (or a search memory's)
//! bounds proven again by searches that do not read it.

use clap::{Args, Subcommand};

use crate::common::{databases, print_json, seconds, user, DbArgs, SearchArgs};
use crate::observe::Terminal;

/// What to do with a journal.
#[derive(Subcommand, Debug)]
pub enum JournalCommand {
    /// Prove again, from scratch, a random sample of the bounds a journal
    /// (`solve --journal DIR`) or a search memory (the database folder's
    /// memory/kalah-hH-RULES) holds, each by one null-window test with no
    /// journal and no memory, and report every disagreement (exit code 2
    /// if there is one). A test not decided within --time-limit is counted
    /// as unchecked. The seed is printed: the same seed checks the same
    /// entries.
    ///
    /// Example: kalah journal verify data/kalah-6-6/journal-empty --sample 200 --db data/db/kalah-h6-n32-empty-instant-owner-ccw-relayoff.kdb
    #[command(verbatim_doc_comment)]
    Verify(VerifyArgs),
    /// What a search's journal holds: the runs that wrote it (sessions,
    /// nodes, hours), the bounds on its position's value, the test last
    /// begun and where it stands at each move of the player to move
    /// (which are proven below its bound, which are still open), and the
    /// bounds on the value after each opening turn of that player
    /// (extra-move chains followed), for that player, stores included;
    /// with --depth 2, after each reply to each turn too
    /// (still for the player to move in the position), which shows where a
    /// running proof stands below its first turns.
    /// Reads the journal only: nothing is searched.
    ///
    /// Example: kalah journal show data/kalah-6-6/journal-empty
    ///          kalah journal show data/kalah-6-6/journal-standard --depth 2
    #[command(verbatim_doc_comment)]
    Show(ShowArgs),
}

/// Arguments of `kalah journal show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The journal's directory (it holds journal.kj).
    #[arg(value_name = "DIR")]
    dir: std::path::PathBuf,
    /// How many turns down to show: 1, the opening turns; 2, each reply
    /// to them too; 3, the turns after those.
    #[arg(long, value_name = "TURNS", default_value_t = 1)]
    depth: usize,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Arguments of `kalah journal verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The journal's directory (it holds journal.kj).
    #[arg(value_name = "DIR")]
    dir: std::path::PathBuf,
    /// How many entries to prove again (all, if it holds fewer).
    #[arg(long, value_name = "N", default_value_t = 20)]
    sample: usize,
    /// The seed of the random choice (default: from the clock, printed).
    #[arg(long, value_name = "SEED")]
    seed: Option<u64>,
    /// Seconds for each test.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, allow_negative_numbers = true)]
    time_limit: f64,
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    search: SearchArgs,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

pub fn run(command: JournalCommand) -> anyhow::Result<()> {
    match command {
        JournalCommand::Verify(args) => verify(args),
        JournalCommand::Show(args) => show(args),
    }
}

fn show(args: ShowArgs) -> anyhow::Result<()> {
    let summary = kalah::memory::journal::summary(&args.dir, args.depth)?;
    if args.json {
        print_json(&serde_json::to_value(&summary)?);
        return Ok(());
    }
    let bounds = |value: Option<i32>, lower: Option<i32>, upper: Option<i32>| match (value, lower, upper) {
        (Some(v), _, _) => format!("{v:+}"),
        (None, None, None) => "no bounds kept".to_string(),
        (None, l, u) => format!("{}..{}", l.map_or("?".to_string(), |l| format!("{l:+}")), u.map_or("?".to_string(), |u| format!("{u:+}"))),
    };
    println!("Journal:  {} ({} entries)", summary.path.display(), summary.entries);
    println!("Position: {} ({})", summary.position, summary.rules);
    println!(
        "Runs:     {} session{}, {} nodes, {:.1} h{}",
        summary.sessions,
        if summary.sessions == 1 { "" } else { "s" },
        kalah::text::group(summary.nodes),
        summary.seconds / 3600.0,
        summary.database_seeds.map_or(String::new(), |n| format!(", over a {n}-seed database last"))
    );
    println!(
        "Value:    {}{}",
        bounds(summary.value, summary.lower, summary.upper),
        summary.testing.filter(|_| summary.value.is_none()).map_or(String::new(), |t| format!(" (testing >= {t:+})"))
    );
    if let (Some(beta), Some(standing)) = (summary.testing, &summary.test_standing) {
        println!("Test:     {}", test_standing(beta, standing));
    }
    println!(
        "Opening turns (the value after each, for the player to move in the position{}):",
        if args.depth > 1 { "; replies indented" } else { "" }
    );
    fn print(turns: &[kalah::memory::journal::TurnBounds], indent: usize, bounds: &dyn Fn(Option<i32>, Option<i32>, Option<i32>) -> String) {
        for t in turns {
            let turn: Vec<String> = t.turn.iter().map(|h| h.to_string()).collect();
            println!("{:indent$}  {:<8} {}", "", turn.join("-"), bounds(t.value, t.lower, t.upper));
            print(&t.replies, indent + 4, bounds);
        }
    }
    print(&summary.turns, 0, &bounds);
    Ok(())
}

/// Where the test "value >= `beta`" stands at the moves of the player to
/// move, in a line: decided, or how many moves are below it and which
/// are still open.
fn test_standing(beta: i32, standing: &kalah::memory::journal::TestStanding) -> String {
    let houses = |houses: &[usize]| houses.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(", ");
    let all = standing.at_least.len() + standing.below.len() + standing.open.len();
    match standing.holds {
        Some(true) if standing.at_least.is_empty() => format!("holds: at least {beta:+}"),
        Some(true) => format!("holds: at least {beta:+} after move {}", houses(&standing.at_least)),
        Some(false) if standing.open.is_empty() => format!("fails: every move below {beta:+}"),
        Some(false) => format!("fails: below {beta:+}"),
        None => format!("{} of {all} moves below {beta:+} (it fails once all are); still open: {}", standing.below.len(), houses(&standing.open)),
    }
}

fn verify(args: VerifyArgs) -> anyhow::Result<()> {
    let seed = args.seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64));
    let request = kalah::studies::verify::VerifyRequest {
        dir: args.dir.clone(),
        sample: args.sample,
        seed,
        time_limit: seconds(args.time_limit).map_err(|_| user(format!("--time-limit {}: give a number of seconds above 0", args.time_limit)))?,
        db: args.db.spec(),
        threads: args.search.threads()?,
        tt_mb: args.search.tt_mb_asked()?,
    };
    let report = kalah::studies::verify::verify(&kalah::Analyzer::keeping(databases()), &request, &Terminal::unless_json(true))?;
    if args.json {
        print_json(&serde_json::to_value(&report)?);
    } else {
        println!(
            "Journal:  {} ({}, {} entries)",
            report.path.display(),
            if report.memory { "a search memory" } else { "a search's journal" },
            report.entries
        );
        println!("Sample:   {} entries, seed {} (--seed {} checks the same)", report.sampled, report.seed, report.seed);
        for c in &report.checked {
            let what = match c.holds {
                Some(true) => "holds",
                Some(false) => "WRONG",
                None => "not decided in time",
            };
            println!("  {:<32} {} bound {:+}: {what} ({} nodes)", c.position, c.bound, c.value, c.nodes);
        }
        println!(
            "Checked:  {} bounds: {} hold, {} wrong, {} not decided in time; {} nodes in {:.1} s",
            report.checked.len(),
            report.checked.len() - report.disagreements - report.unchecked,
            report.disagreements,
            report.unchecked,
            report.nodes,
            report.seconds
        );
    }
    if report.disagreements > 0 {
        return Err(kalah::Error::corrupt(format!("{}: {} of its bounds are wrong", report.path.display(), report.disagreements)).into());
    }
    Ok(())
}
