//! `kalah engine`: the JSON API ([`kalah::service::api`]) as JSON lines on stdin and
//! stdout, for bots and scripts. The databases are opened, built or loaded
//! once, for every request after.

use std::io::{BufRead, Read, Write};

use clap::Args;
use kalah::service::api::{self, ApiRequest, Limits};

use crate::common::threads;

/// The longest request line read; a longer one is answered by an error.
const MAX_LINE: u64 = 64 * 1024;

#[derive(Args, Debug)]
#[command(after_help = "\
Each line on stdin is one request object; each answer is one line on stdout, in order:

  $ echo '{\"position\": \"3,3,3,3,0,3,3,3,3,0 S\", \"capture\": \"empty\"}' | kalah engine
  {\"houses\":4,\"rules\":{...},\"value\":...,\"moves\":[{\"house\":...,\"position\":\"...\",...}],...}

Request fields: position (ring or side form) or houses and seeds; capture, end, leftovers,
sowing, relay (as the flags of `kalah query`); time_limit (seconds, at most --time-limit).
A line that is not a valid request is answered by {\"error\": \"...\", \"kind\": \"bad_input\"},
and the engine goes on; blank lines are skipped. It stops at the end of stdin.
The protocol is documented in docs/api.md.")]
pub struct EngineArgs {
    /// Search threads for each request (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub door: crate::common::DoorArgs,
}

pub fn run(args: EngineArgs) -> anyhow::Result<()> {
    let (analyzer, time_limit) = args.door.analyzer()?;
    let analyzer = crate::book::analyzer(analyzer, args.door.no_book)?;
    let limits = Limits {
        threads: threads(args.threads)?,
        time_limit,
        bounded: false,
        show_paths: true,
        setup_time: None,
        memory: kalah::Memory::Off,
        memory_share: None,
    };
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = Read::by_ref(&mut input).take(MAX_LINE + 1).read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(());
        }
        let answer = if line.len() as u64 > MAX_LINE {
            // Skip the rest of the line, a buffer at a time, holding none of
            // it: it is one request, answered once.
            skip_line(&mut input)?;
            api::error_object(&kalah::Error::bad_input(format!("a request line longer than {MAX_LINE} bytes")))
        } else {
            let Ok(text) = std::str::from_utf8(&line) else {
                answer_line(&mut output, &api::error_object(&kalah::Error::bad_input("a request line that is not UTF-8")))?;
                continue;
            };
            if text.trim().is_empty() {
                continue;
            }
            let answered = ApiRequest::from_json(text).and_then(|r| api::answer(&analyzer, &r, &limits));
            match answered
                .and_then(|report| serde_json::to_value(&report).map_err(|e| kalah::Error::internal(format!("the report does not serialise: {e}"))))
            {
                Ok(answer) => answer,
                Err(e) => api::error_object(&e),
            }
        };
        answer_line(&mut output, &answer)?;
    }
}

/// Reads past the next newline (or to the end of the input) without
/// keeping what it reads.
fn skip_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => {
                input.consume(at + 1);
                return Ok(());
            }
            None => {
                let n = buffer.len();
                input.consume(n);
            }
        }
    }
}

fn answer_line(output: &mut impl Write, answer: &serde_json::Value) -> anyhow::Result<()> {
    writeln!(output, "{answer}")?;
    output.flush()?;
    Ok(())
}
