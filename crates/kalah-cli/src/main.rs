//! `kalah`: solve Kalah positions, build and query endgame databases.
//!
//! Every command that answers with values takes `--json` and then prints
//! one JSON object on stdout. Exit codes: 0 success, 2 bad input or a
//! refused request, 1 an internal failure. Errors are one line on stderr.

mod analysis;
mod chains;
mod common;
mod db;
mod opening;
mod play;
mod published;
mod solve;
mod strong;
mod table;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::common::UserError;

/// Strong solver and endgame-database builder for the mancala game Kalah.
///
/// Kalah(h,s) is played with h houses a side and s seeds in each house at
/// the start; values are final store differences under perfect play, for
/// the player to move. Rules follow RULES.md; every option is a flag
/// (--capture empty, --end turn, --leftovers unscored, --sowing cw, --relay).
///
/// Examples:
///   kalah solve                      Kalah(6,4), standard rules
///   kalah solve 6 5 --capture empty  Kalah(6,5) as Irving et al. played it
///   kalah solve --position "0,0,1,2,0,3,20,1,0,0,4,2,0,15 S"
///   kalah db build --houses 6 --max-seeds 20 --capture empty
///   kalah query --position "0,0,1,2,0,3,20,1,0,0,4,2,0,15 N" --json
#[derive(Parser, Debug)]
#[command(name = "kalah", version, verbatim_doc_comment)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Solve Kalah(h,s) or a position: its value, every move's value and a
    /// principal variation.
    Solve(solve::SolveArgs),
    /// The perfect-play value of any position: a database probe where it is
    /// covered, a search backed by the database beyond.
    Query(solve::QueryArgs),
    /// Build, inspect, verify, probe, pack and unpack endgame databases.
    #[command(subcommand)]
    Db(db::DbCommand),
    /// Play against the perfect player in the terminal (or watch it play itself).
    Play(play::PlayArgs),
    /// The clearing chains of one side: the unique n-seed pattern cleared by
    /// extra moves alone, the longest chain on h houses, s(n).
    Chains(chains::ChainsArgs),
    /// The values of Kalah(h,s) for ranges of h and s, checked against the
    /// published values (data/published.csv).
    Table(table::TableArgs),
    /// Strongly solve Kalah(h,s): the database of every board with up to
    /// 2hs seeds, the start value, won/drawn/lost counts, reachable positions.
    Strong(strong::StrongArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with code 0; usage errors exit 2.
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::Solve(args) => solve::solve(args),
        Command::Query(args) => solve::query(args),
        Command::Db(command) => db::run(command),
        Command::Play(args) => play::run(args),
        Command::Chains(args) => chains::run(args),
        Command::Table(args) => table::run(args),
        Command::Strong(args) => strong::run(args),
    };
    match result {
        Ok(()) => {
            let _ = std::io::stdout().flush();
            ExitCode::SUCCESS
        }
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("kalah: {}", one_line(&e));
            if e.downcast_ref::<UserError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// The error and its causes on one line.
fn one_line(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ").replace('\n', " ")
}

/// A closed pipe (`kalah ... | head`) is not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
