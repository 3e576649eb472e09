//! `kalah book`: build and verify opening books, and the book this program
//! carries (`data/book/book.kbk`, format in the `kalah` library's `book`
//! module), which `solve`, `query`, `play`, `engine` and `serve` answer
//! from first unless told `--no-book`.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use rand::{rngs::StdRng, SeedableRng};

use clap::{Args, Subcommand};
use kalah::book::{Book, Section};
use kalah::{Analyzer, Position, Request};

use crate::common::{databases, print_json, BoardSize, DbArgs, RuleArgs, SearchArgs};
use crate::observe::Terminal;

/// The book this program carries, read once.
static CARRIED: &[u8] = include_bytes!("../../../data/book/book.kbk");

/// The book this program carries (`None` if it is empty).
pub fn carried() -> anyhow::Result<Option<Arc<Book>>> {
    static BOOK: OnceLock<Result<Arc<Book>, String>> = OnceLock::new();
    // An empty file: a build without a book.
    let book = BOOK.get_or_init(|| if CARRIED.is_empty() { Ok(Arc::new(Book::default())) } else { Book::from_bytes(CARRIED).map(Arc::new).map_err(|e| e.to_string()) });
    match book {
        Ok(b) if b.is_empty() => Ok(None),
        Ok(b) => Ok(Some(b.clone())),
        Err(e) => Err(anyhow::anyhow!("the opening book this program carries: {e}")),
    }
}

/// The analyzer's book unless `no_book`: a door's one way to it.
pub fn analyzer(analyzer: kalah::Analyzer, no_book: bool) -> anyhow::Result<kalah::Analyzer> {
    if no_book {
        return Ok(analyzer);
    }
    Ok(match carried()? {
        Some(book) => analyzer.with_book(book),
        None => analyzer,
    })
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
        None => carried()?.map_or_else(Book::default, |b| (*b).clone()),
    })
}

fn section_json(s: &Section) -> serde_json::Value {
    serde_json::json!({"houses": s.houses, "seeds": s.seeds, "rules": kalah::report::RulesView::from(s.rules), "plies": s.plies, "entries": s.entries.len()})
}

fn info(args: InfoArgs) -> anyhow::Result<()> {
    let book = read_or_carried(&args.file)?;
    if args.json {
        print_json(&serde_json::json!({"sections": book.sections().iter().map(section_json).collect::<Vec<_>>(), "entries": book.len()}));
    } else {
        for s in book.sections() {
            println!("Kalah({},{})  {}  every position within {} plies: {} boards", s.houses, s.seeds, s.rules, s.plies, s.entries.len());
        }
        println!("{} boards in all", book.len());
    }
    Ok(())
}

fn build(args: BuildArgs) -> anyhow::Result<()> {
    let (h, s) = args.size.required("book build")?;
    let rules = args.rules.rules();
    let every = crate::common::seconds(args.every)?;
    let mut book = match std::fs::metadata(&args.output) {
        Ok(_) => Book::read(&args.output)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Book::default(),
        Err(e) => return Err(kalah::Error::from(kalah_db::DbError::io(&args.output, e)).into()),
    };
    let mut sections: Vec<Section> = book.sections().to_vec();
    let at = sections.iter().position(|x| (x.houses, x.seeds, x.rules) == (h, s, rules));
    let earlier = at.map(|i| sections.remove(i));
    let observer = Terminal::unless_json(args.json);
    let start = Position::start(h, s)?;
    let request = Request { db: args.db.spec(), threads: args.search.threads()?, tt_mb: args.search.tt_mb_asked()?, ..Request::new(start, rules) };
    let oracle = Analyzer::new(databases()).oracle(&request, h as u32 * 2 * s, None, &observer)?;
    let started = Instant::now();
    let output = args.output.clone();
    let write = |sections: &[Section], current: &Section| -> anyhow::Result<()> {
        let mut all = sections.to_vec();
        all.push(current.clone());
        let bytes = Book::new(all).to_bytes()?;
        if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| kalah::Error::from(kalah_db::DbError::io(dir, e)))?;
        }
        let mut file = kalah_db::safe::SafeFile::create(&output)?;
        std::io::Write::write_all(&mut file, &bytes).map_err(|e| kalah::Error::from(kalah_db::DbError::io(&output, e)))?;
        file.commit()?;
        Ok(())
    };
    let json = args.json;
    let game = kalah::book_build::Game { houses: h, seeds: s, rules, plies: args.plies };
    let section = kalah::book_build::build(oracle.as_ref(), game, earlier, every, &mut |section, done, total| {
        write(&sections, section).map_err(|e| kalah::Error::io(e.to_string(), None))?;
        if !json {
            let secs = started.elapsed().as_secs_f64();
            eprintln!("progress: {done} of {total} boards, {:.0} s, {} nodes; complete to ply {}", secs, oracle.nodes(), section.plies);
        }
        Ok(())
    })?;
    let seconds = started.elapsed().as_secs_f64();
    book = Book::new({
        let mut all = sections;
        all.push(section.clone());
        all
    });
    if json {
        print_json(&serde_json::json!({"file": args.output.display().to_string(), "section": section_json(&section), "entries": book.len(), "nodes": oracle.nodes(), "seconds": seconds}));
    } else {
        println!("{}: Kalah({h},{s}) {rules} to ply {}: {} boards ({} in the book), {} nodes in {:.1} s", args.output.display(), section.plies, section.entries.len(), book.len(), oracle.nodes(), seconds);
    }
    Ok(())
}

fn verify(args: VerifyArgs) -> anyhow::Result<()> {
    let book = read_or_carried(&args.file)?;
    let seed = args.seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64));
    let spec = args.db.spec();
    let observer = Terminal::unless_json(true);
    let started = Instant::now();
    let mut all = Vec::new();
    let mut rng = StdRng::seed_from_u64(seed);
    // A named database serves the games of its own board and rules only.
    let file = match &args.db.db {
        Some(path) => Some(kalah::Database::open(path).map_err(kalah::Error::from)?.header().clone()),
        None => None,
    };
    let fits = |x: &Section| file.as_ref().is_none_or(|f| (f.houses, f.rules) == (x.houses, x.rules));
    let chosen = |x: &&Section| args.houses.is_none_or(|h| x.houses == h) && args.seeds.is_none_or(|s| x.seeds == s) && args.capture.is_none_or(|c| x.rules.capture == c) && fits(x);
    if let (Some(f), None) = (&file, book.sections().iter().find(|x| chosen(x))) {
        return Err(crate::common::user(format!("the book holds no game of {} houses under {} chosen here, the board and rules of --db", f.houses, f.rules)));
    }
    for section in book.sections().iter().filter(chosen) {
        let mut boards: Vec<_> = section.entries.keys().copied().collect();
        boards.sort_unstable();
        if !args.all {
            let chosen = rand::seq::index::sample(&mut rng, boards.len(), args.sample.min(boards.len()));
            boards = chosen.into_iter().map(|i| boards[i]).collect();
        }
        let start = Position::start(section.houses, section.seeds)?;
        let request = Request { db: spec.clone(), threads: args.search.threads()?, tt_mb: args.search.tt_mb_asked()?, ..Request::new(start, section.rules) };
        let seeds = section.houses as u32 * 2 * section.seeds;
        let oracle = Analyzer::new(databases()).oracle(&request, seeds, None, &observer)?;
        all.extend(kalah::book_build::verify(oracle.as_ref(), section, &boards)?);
    }
    let wrong: Vec<_> = all.iter().filter(|v| !v.agrees).collect();
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        print_json(&serde_json::json!({"seed": seed, "checked": all.len(), "disagreements": wrong.len(), "wrong": wrong, "seconds": seconds}));
    } else {
        println!("Checked {} book entries (seed {seed}: --seed {seed} checks the same) in {seconds:.1} s", all.len());
        for v in &wrong {
            println!("  WRONG {} ({}): {}", v.position, v.rules, v.why.as_deref().unwrap_or(""));
        }
        println!("{} disagree", wrong.len());
    }
    if !wrong.is_empty() {
        return Err(kalah::Error::corrupt(format!("{} of the book's entries are wrong", wrong.len())).into());
    }
    Ok(())
}
