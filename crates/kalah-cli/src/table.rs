//! `kalah table`: the values of Kalah(h,s) for ranges of h and s, each
//! checked against the published values.

use clap::Args;
use kalah::studies::starts::{starts_table, StartEntry, StartsRequest};
use kalah_core::Rules;

use crate::common::{databases, print_json, seconds, start_position, user, RuleArgs, SearchArgs};
use crate::observe::Terminal;

/// A range of numbers on the command line: `4` or `1-6`.
#[derive(Clone, Copy, Debug)]
pub struct Span(pub u32, pub u32);

impl std::str::FromStr for Span {
    type Err = String;
    fn from_str(s: &str) -> Result<Span, String> {
        let number = |t: &str| -> Result<u32, String> {
            let t = t.trim();
            t.parse().map_err(|_| {
                if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                    format!("'{t}' is too large (at most {})", u32::MAX)
                } else {
                    format!("'{s}' is not a number or a range such as 1-6")
                }
            })
        };
        let (a, b) = match s.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(s)?;
                (n, n)
            }
        };
        if a > b {
            return Err(format!("the range {s} is empty"));
        }
        Ok(Span(a, b))
    }
}

/// Arguments of `kalah table`.
#[derive(Args, Debug)]
pub struct TableArgs {
    /// Houses a side: a number or a range such as 1-6 (default 1-6).
    #[arg(value_name = "H")]
    houses_given: Option<Span>,
    /// Seeds a house: a number or a range such as 1-6 (default 1-6).
    #[arg(value_name = "S")]
    seeds_given: Option<Span>,
    /// Houses a side, as H says it.
    #[arg(long, value_name = "H|A-B", default_value = "1-6", conflicts_with = "houses_given")]
    houses: Span,
    /// Seeds a house, as S says it.
    #[arg(long, value_name = "S|A-B", default_value = "1-6", conflicts_with = "seeds_given")]
    seeds: Span,
    #[command(flatten)]
    rules: RuleArgs,
    /// Back the searches with an endgame database of up to N seeds for each
    /// board size: the default database file if it covers N, else one built
    /// in memory first (0: none). Without it, the default database file that
    /// `solve` would use for the largest start, when there is one, else one
    /// is built in memory as `solve --value-only` does (from 46 seeds on,
    /// on six houses 30 seeds fewer than the largest start, two more for
    /// each house fewer; at most 24).
    /// Clockwise, the database is solved by retrograde analysis and gives
    /// exact values of the starts it covers; by default it covers the
    /// largest start that fits in memory, and larger starts get bounds from
    /// searches over it (exact where best play ends within their depth).
    #[arg(long, value_name = "N")]
    db_seeds: Option<u32>,
    /// Seconds per configuration's search; one that does not finish in time
    /// shows the bounds on its value proven so far. Loading or building the
    /// database of a board size comes first and is not counted, but a
    /// default one is chosen to take at most about a quarter of the board
    /// size's limits together (`--db-seeds` is used as given).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, allow_negative_numbers = true)]
    time_limit: f64,
    #[command(flatten)]
    search: SearchArgs,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

pub fn run(mut args: TableArgs) -> anyhow::Result<()> {
    args.houses = args.houses_given.unwrap_or(args.houses);
    args.seeds = args.seeds_given.unwrap_or(args.seeds);
    if !(1..=kalah_core::MAX_HOUSES as u32).contains(&args.houses.0) || args.houses.1 > kalah_core::MAX_HOUSES as u32 {
        return Err(user(format!("houses {}-{}: houses a side must be 1 to {}", args.houses.0, args.houses.1, kalah_core::MAX_HOUSES)));
    }
    if args.seeds.0 == 0 {
        return Err(user("seeds 0: every house holds at least one seed at the start"));
    }
    // Every start checked before any search: a bad one is refused at once.
    for h in args.houses.0 as usize..=args.houses.1 as usize {
        for s in args.seeds.0..=args.seeds.1 {
            start_position(h, s)?;
        }
    }
    let request = StartsRequest {
        houses: args.houses.0 as usize..=args.houses.1 as usize,
        seeds: args.seeds.0..=args.seeds.1,
        rules: args.rules.rules(),
        db_seeds: args.db_seeds,
        time_limit: seconds(args.time_limit)?,
        threads: args.search.threads()?,
        tt_mb: args.search.tt_mb_asked()?,
    };
    let table = starts_table(&databases(), &request, &Terminal::unless_json(args.json))?;
    if args.json {
        print_json(&serde_json::to_value(&table)?);
    } else {
        print_grid(&table.entries, request.rules, args.seeds);
    }
    Ok(())
}

fn print_grid(entries: &[StartEntry], rules: Rules, seeds: Span) {
    println!("Values of Kalah(h,s): South's final store difference under perfect play");
    println!("Rules: {rules}");
    println!("Marks: = agrees with the published value, ! disagrees, ~ bounds consistent with it, blank: not published");
    print!("{:>6}", "h \\ s");
    for s in seeds.0..=seeds.1 {
        print!("{s:>12}");
    }
    println!();
    let mut h = 0;
    for e in entries {
        if e.houses != h {
            if h != 0 {
                println!();
            }
            h = e.houses;
            print!("{h:>6}");
        }
        let mark = match e.check {
            "match" => "=",
            "mismatch" => "!",
            "consistent" => "~",
            _ => " ",
        };
        print!("{:>11}{mark}", e.value_text());
    }
    println!();
    println!();
    println!("{:>3} {:>3} {:>10} {:>10} {:>10} {:>12}  method", "h", "s", "value", "published", "check", "seconds");
    for e in entries {
        println!(
            "{:>3} {:>3} {:>10} {:>10} {:>10} {:>12.3}  {}",
            e.houses,
            e.seeds,
            e.value_text(),
            e.published.as_ref().map_or("-", |p| p.value.as_str()),
            e.check,
            e.seconds,
            e.method
        );
    }
}
