//! `kalah`: solve Kalah positions, build and query endgame databases.
//!
//! Every command that answers with values takes `--json` and then prints
//! one JSON object on stdout. Exit codes: 0 success, 2 bad input or a
//! refused request, 1 an internal failure. Errors are one line on stderr;
//! under `--json` they are also one object on stdout,
//! `{"error": "...", "exit_code": 2}`, so that a script reading stdout
//! always reads one object.

mod analysis;
mod book;
mod chains;
mod common;
mod db;
#[cfg(feature = "mpi")]
mod distributed;
mod engine;
mod journal;
mod observe;
mod opening;
mod play;
mod prepare;
mod serve;
mod solve;
mod strong;
mod table;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Strong solver and endgame-database builder for the mancala game Kalah.
///
/// Kalah(h,s) is played with h houses a side and s seeds in each house at
/// the start; values are final store differences under perfect play, for
/// the player to move. Rules follow RULES.md; every option is a flag
/// (--capture empty, --end turn, --leftovers unscored, --sowing cw, --relay).
///
/// Examples:
///   kalah solve                      Kalah(6,4), standard rules
///   kalah solve 6 4 --capture empty --value-only   as Irving et al. played it (seconds)
///   kalah solve --position "0,0,1,2,0,3,20,1,0,0,4,2,0,15 S"
///   kalah db build --houses 6 --max-seeds 20 --capture empty
///   kalah query --position "0,0,1,2,0,3,20,1,0,0,4,2,0,15 N" --json
///   kalah solve 6 4 --sowing cw --relay on   proven bounds (here they meet)
#[derive(Parser, Debug)]
#[command(name = "kalah", version, verbatim_doc_comment)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Solve Kalah(h,s) (Kalah(6,4) when H S are left out) or a position:
    /// its value, every move's value and a principal variation. Clockwise
    /// sowing (endless play) is solved by retrograde analysis, or where that
    /// does not fit in memory, shown as bounds proven within --time-limit
    /// (exact when they meet).
    Solve(solve::SolveArgs),
    /// The perfect-play value of any position: a database probe where it is
    /// covered, a search backed by the database beyond.
    Query(solve::QueryArgs),
    /// Build, inspect, verify, probe, pack and unpack endgame databases.
    #[command(subcommand)]
    Db(db::DbCommand),
    /// Build, verify and inspect opening books: every move's exact value of
    /// the positions near the starts people play, answered at once.
    #[command(subcommand)]
    Book(book::BookCommand),
    /// Check what a long search's journal, or the search memory, holds.
    #[command(subcommand)]
    Journal(journal::JournalCommand),
    /// Play against the perfect player in the terminal (or watch it play
    /// itself), from Kalah(6,4) unless H S or --position say otherwise.
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
    /// Answer JSON requests, one a line on stdin, one answer a line on
    /// stdout (docs/api.md): for bots and scripts, databases opened once.
    Engine(engine::EngineArgs),
    /// Serve a board explorer and the JSON API over HTTP (docs/api.md), on
    /// 127.0.0.1:8080 by default: databases opened once, every search
    /// under a deadline.
    Serve(serve::ServeArgs),
}

fn main() -> ExitCode {
    quiet_on_closed_output();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Under mpirun every rank parses the same arguments: rank 0 alone says what is wrong.
            #[cfg(feature = "mpi")]
            let print = !distributed::is_other_rank();
            #[cfg(not(feature = "mpi"))]
            let print = true;
            // Help and version go to stdout with code 0; usage errors are
            // one line on stderr and exit 2.
            if !e.use_stderr() {
                if print {
                    if let Err(why) = e.print().and_then(|()| std::io::stdout().flush()) {
                        return stdout_failed(&why);
                    }
                }
                return ExitCode::SUCCESS;
            }
            if print {
                if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    // `kalah` or `kalah db` alone: the commands to choose from.
                    eprintln!("kalah: a command is needed; the choices:\n");
                    eprint!("{}", e.render());
                } else {
                    let line = usage_line(&e);
                    eprintln!("kalah: {line}");
                    json_error(&line, 2);
                }
            }
            return ExitCode::from(2);
        }
    };
    // Under mpirun (feature `mpi`), `solve` and `db build` are shared between the ranks.
    #[cfg(feature = "mpi")]
    if let Some(code) = distributed::main(&cli.command) {
        return code;
    }
    let result = match cli.command {
        Command::Solve(args) => solve::solve(args),
        Command::Query(args) => solve::query(args),
        Command::Db(command) => db::run(command),
        Command::Book(command) => book::run(command),
        Command::Journal(command) => journal::run(command),
        Command::Play(args) => play::run(args),
        Command::Chains(args) => chains::run(args),
        Command::Table(args) => table::run(args),
        Command::Strong(args) => strong::run(args),
        Command::Engine(args) => engine::run(args),
        Command::Serve(args) => serve::run(args),
    };
    match result {
        Ok(()) => match std::io::stdout().flush() {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => stdout_failed(&why),
        },
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            let line = one_line(&e) + &common::flag_hint(&e);
            eprintln!("kalah: {line}");
            let code = common::exit_code(&e);
            json_error(&line, code);
            ExitCode::from(code)
        }
    }
}

/// A failure to write stdout: quietly 0 for a closed pipe (`kalah ... |
/// head`), else 1 with a `kalah:` line, for the answer is lost (a full
/// disk, `>/dev/full`).
fn stdout_failed(why: &std::io::Error) -> ExitCode {
    if why.kind() == std::io::ErrorKind::BrokenPipe {
        return ExitCode::SUCCESS;
    }
    say_output_lost(why);
    ExitCode::from(1)
}

/// The one line that says the answer is lost: stdout could not be written.
fn say_output_lost(why: &dyn std::fmt::Display) {
    let _ = writeln!(std::io::stderr(), "kalah: cannot write the output to stdout: {why}");
}

/// Under `--json`, an error is also one object on stdout, unless the
/// command printed its own before it failed. A failure to write it loses
/// nothing the stderr line has not said, so the exit code stays.
fn json_error(line: &str, code: u8) {
    let asked = std::env::args_os().skip(1).take_while(|a| a != "--").any(|a| a == "--json");
    if asked && !common::json_printed() {
        let object = serde_json::json!({"error": line, "exit_code": code});
        let _ = writeln!(std::io::stdout().lock(), "{object}");
    }
}

/// A clap usage error as one line: clap's message (the lines before its
/// usage) without its `error: ` prefix, its tip, and where to read more.
fn usage_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut message = Vec::new();
    let mut tip = String::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        match line.strip_prefix("tip: ") {
            Some(t) => tip = format!(" ({t})"),
            None => message.push(line.strip_prefix("error: ").unwrap_or(line)),
        }
    }
    let message = message.join(" ");
    let message = if message.is_empty() { "invalid arguments" } else { &message };
    format!("{message}{tip}; see `kalah help` or `kalah COMMAND --help`")
}

/// `kalah ... | head` and `kalah ... 2>&1 | head`: a closed stdout or
/// stderr ends the program quietly with code 0 instead of the panic of
/// `println!` or `eprintln!` (Rust ignores SIGPIPE). Any other failure to
/// write them (a full disk, `>/dev/full`) loses the answer or the error:
/// code 1, with a `kalah:` line on stderr when it is stdout that failed.
fn quiet_on_closed_output() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message =
            info.payload().downcast_ref::<String>().map(String::as_str).or_else(|| info.payload().downcast_ref::<&str>().copied()).unwrap_or("");
        if message.starts_with("failed printing to stdout") || message.starts_with("failed printing to stderr") {
            let closed = message.contains("Broken pipe");
            if !closed && message.starts_with("failed printing to stdout") {
                say_output_lost(&message.trim_start_matches("failed printing to stdout").trim_start_matches(':').trim());
            }
            std::process::exit(if closed { 0 } else { 1 });
        }
        default(info);
    }));
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
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}
