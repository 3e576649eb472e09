//! `kalah book`: build and verify opening books, and the book this program
//! carries (`data/book/book.kbk`, format in the `kalah` library's `book`
//! module), which `solve`, `query`, `play`, `engine` and `serve` answer
//! from first unless told `--no-book`.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use kalah::memory::book::Book;
use kalah::studies::book_build::{CheckRequest, Game, Searches};
use kalah::Analyzer;

use crate::common::{databases, print_json, BoardSize, DbArgs, RuleArgs, SearchArgs};
use crate::observe::Terminal;

/// The analyzer's book unless `no_book`: a door's one way to it.
pub fn analyzer(analyzer: kalah::Analyzer, no_book: bool) -> anyhow::Result<kalah::Analyzer> {
    if no_book {
        return Ok(analyzer);
    }
    Ok(analyzer.with_carried_book()?)
}

/// What to do with an opening book.
#[derive(Subcommand, Debug)]
pub enum BookCommand {
    /// Add to an opening book (or go on adding, after a stop) every
    /// position within PLIES sowings of the start of Kalah(H,S), with every
    /// move's exact value and a line of best play, found by searches over
    /// the default database. The book is written whole every minute and at
    /// the end: run the same command again to go on after a kill.
    ///
    /// Example: kalah book build 6 4 --plies 4 -o data/book/book.kbk
    #[command(verbatim_doc_comment)]
    Build(BuildArgs),
    /// Prove again, by searches that do not read it, a random sample of a
    /// book's entries (every move's value, and the line), and report every
    /// disagreement (exit code 2 if there is one). Without -f, the book
    /// this program carries.
    Verify(VerifyArgs),
    /// What a book holds: its games, the plies each covers, its entries.
    Info(InfoArgs),
}

/// Arguments of `kalah book build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    #[command(flatten)]
    size: BoardSize,
    #[command(flatten)]
    rules: RuleArgs,
    /// Every position this many sowings or fewer from the start.
    #[arg(long, value_name = "N")]
    plies: u32,
    /// The book file to add to (made if it is not there).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: PathBuf,
    /// Seconds between writes of the book.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    every: f64,
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    search: SearchArgs,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Arguments of `kalah book verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Only the games of H houses (and S seeds, if given; all games when
    /// left out), under the capture rule given (both when left out). With
    /// --db, only the games of that file's board and rules.
    #[arg(value_name = "H")]
    houses: Option<usize>,
    #[arg(value_name = "S")]
    seeds: Option<u32>,
    /// Only the games under this capture rule.
    #[arg(long, value_name = "RULE")]
    capture: Option<kalah::Capture>,
    /// The book file (default: the one this program carries).
    #[arg(short = 'f', long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// How many entries to prove again (all: --all).
    #[arg(long, value_name = "N", default_value_t = 20, conflicts_with = "all")]
    sample: usize,
    /// Prove every entry again.
    #[arg(long)]
    all: bool,
    /// The seed of the random choice (default: from the clock, printed).
    #[arg(long, value_name = "SEED")]
    seed: Option<u64>,
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    search: SearchArgs,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Arguments of `kalah book info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The book file (default: the one this program carries).
    #[arg(short = 'f', long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

pub fn run(command: BookCommand) -> anyhow::Result<()> {
    match command {
        BookCommand::Build(args) => build(args),
        BookCommand::Verify(args) => verify(args),
        BookCommand::Info(args) => info(args),
    }
}

fn read_or_carried(file: &Option<PathBuf>) -> anyhow::Result<Book> {
    Ok(match file {
        Some(path) => Book::read(path)?,
        None => kalah::memory::book::carried()?.map_or_else(Book::default, |b| (*b).clone()),
    })
}

fn searches(db: &DbArgs, search: &SearchArgs) -> anyhow::Result<Searches> {
    Ok(Searches { db: db.spec(), threads: search.threads()?, tt_mb: search.tt_mb_asked()? })
}

fn info(args: InfoArgs) -> anyhow::Result<()> {
    let info = read_or_carried(&args.file)?.info();
    if args.json {
        print_json(&info);
    } else {
        for s in &info.sections {
            println!("Kalah({},{})  {}  every position within {} plies: {} boards", s.houses, s.seeds, s.rules, s.plies, s.entries);
        }
        println!("{} boards in all", info.entries);
    }
    Ok(())
}

fn build(args: BuildArgs) -> anyhow::Result<()> {
    let (h, s) = args.size.required("book build")?;
    let rules = args.rules.rules();
    let every = crate::common::seconds(args.every)?;
    let game = Game { houses: h, seeds: s, rules, plies: args.plies };
    let json = args.json;
    let built = kalah::studies::book_build::build_file(
        &Analyzer::new(databases()),
        &args.output,
        game,
        &searches(&args.db, &args.search)?,
        every,
        &Terminal::unless_json(json),
        &mut |p| {
            if !json {
                eprintln!(
                    "progress: {} of {} boards, {:.0} s, {} nodes; complete to ply {}",
                    p.done,
                    p.total,
                    p.elapsed.as_secs_f64(),
                    p.nodes,
                    p.plies
                );
            }
        },
    )?;
    if json {
        print_json(&built);
    } else {
        let section = &built.section;
        println!(
            "{}: Kalah({h},{s}) {rules} to ply {}: {} boards ({} in the book), {} nodes in {:.1} s",
            built.file.display(),
            section.plies,
            section.entries,
            built.entries,
            built.nodes,
            built.seconds
        );
    }
    Ok(())
}

fn verify(args: VerifyArgs) -> anyhow::Result<()> {
    let book = read_or_carried(&args.file)?;
    let seed = args.seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64));
    let request = CheckRequest {
        houses: args.houses,
        seeds: args.seeds,
        capture: args.capture,
        sample: (!args.all).then_some(args.sample),
        seed,
        searches: searches(&args.db, &args.search)?,
    };
    let checked = kalah::studies::book_build::check(&Analyzer::new(databases()), &book, &request, &Terminal::unless_json(true))?;
    if args.json {
        print_json(&checked);
    } else {
        println!("Checked {} book entries (seed {seed}: --seed {seed} checks the same) in {:.1} s", checked.checked, checked.seconds);
        for v in &checked.wrong {
            println!("  WRONG {} ({}): {}", v.position, v.rules, v.why.as_deref().unwrap_or(""));
        }
        println!("{} disagree", checked.disagreements);
    }
    if checked.disagreements > 0 {
        return Err(kalah::Error::corrupt(format!("{} of the book's entries are wrong", checked.disagreements)).into());
    }
    Ok(())
}
