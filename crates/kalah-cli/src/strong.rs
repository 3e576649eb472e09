//! `kalah strong`: the strong solution of Kalah(h,s), i.e. the database of
//! every board with up to 2hs seeds, with its statistics and a manifest
//! entry so anyone can rebuild it and check it byte for byte.

use std::path::PathBuf;

use clap::Args;
use kalah_db::human_bytes;

use crate::common::{default_database_path, print_json, BoardSize, RuleArgs};
use crate::observe::Terminal;
use kalah::databases::strong::StrongRequest;
use kalah::text::{group, signed};

/// Arguments of `kalah strong`.
#[derive(Args, Debug)]
pub struct StrongArgs {
    #[command(flatten)]
    size: BoardSize,
    #[command(flatten)]
    rules: RuleArgs,
    /// The database file (default: data/db/kalah-hH-nN-RULES.kdb, or under $KALAH_DB_DIR).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Append the result to this manifest (CSV: rules, file, size, SHA-256, statistics).
    #[arg(long, value_name = "CSV")]
    manifest: Option<PathBuf>,
    /// Threads (default: every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

pub fn run(a: StrongArgs) -> anyhow::Result<()> {
    let rules = a.rules.rules();
    let (h, seeds) = a.size.required("strong")?;
    let n = crate::common::start_position(h, seeds)?.seeds_in_houses();
    let file = a.output.clone().unwrap_or_else(|| default_database_path(h, n, rules));
    crate::common::check_output(&file)?;
    if let Some(m) = &a.manifest {
        crate::common::check_output(m)?;
    }
    let request = StrongRequest { houses: h, seeds, rules, file, threads: crate::common::threads(a.threads)?, manifest: a.manifest.clone() };
    let bars = crate::observe::Bars::new(h, n);
    let solution = kalah::databases::strong::solve(&request, &bars, &Terminal::unless_json(a.json))?;
    if a.json {
        print_json(&solution);
        return Ok(());
    }
    let s = &solution;
    println!("Strong solution of Kalah({h},{seeds}), {rules}");
    println!("  start value          {} ({})", signed(s.value), s.verdict);
    println!("  boards (<= {n} seeds)  {}", group(s.boards));
    println!("  won / drawn / lost   {} / {} / {}  (for the player to move)", group(s.won), group(s.drawn), group(s.lost));
    println!(
        "  reachable from start {} boards, {} positions (side to move counted, stores not)",
        group(s.reachable_boards),
        group(s.reachable_positions)
    );
    println!("  file                 {} ({})", s.path.display(), human_bytes(s.bytes));
    println!("  sha256               {}", s.sha256);
    println!("  time                 {:.1} s (build {:.1} s)", s.seconds, s.build_seconds);
    Ok(())
}
