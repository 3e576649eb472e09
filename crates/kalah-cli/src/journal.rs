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
    /// Example: kalah journal verify data/kalah-6-6/journal-empty --sample 200 --db data/db/kalah-h6-n30-empty-instant-owner-ccw-relayoff.kdb
    #[command(verbatim_doc_comment)]
    Verify(VerifyArgs),
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
    let JournalCommand::Verify(args) = command;
    let seed = args.seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64));
    let request = kalah::verify::VerifyRequest {
        dir: args.dir.clone(),
        sample: args.sample,
        seed,
        time_limit: seconds(args.time_limit).map_err(|_| user(format!("--time-limit {}: give a number of seconds above 0", args.time_limit)))?,
        db: args.db.spec(),
        threads: args.search.threads()?,
        tt_mb: args.search.tt_mb_asked()?,
    };
    let report = kalah::verify::verify(&kalah::Analyzer::keeping(databases()), &request, &Terminal::unless_json(true))?;
    if args.json {
        print_json(&serde_json::to_value(&report)?);
    } else {
        println!("Journal:  {} ({}, {} entries)", report.path.display(), if report.memory { "a search memory" } else { "a search's journal" }, report.entries);
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
