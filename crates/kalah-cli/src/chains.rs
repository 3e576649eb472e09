//! `kalah chains`: the clearing chains of one side (sowing solitaire,
//! "Tchoukaillon"); the combinatorics and their proof are in
//! `kalah_core::chains`.

use std::fmt::Write as _;
use std::io::Write as _;

use clap::Args;

use crate::common::print_json;

/// Arguments of `kalah chains`.
#[derive(Args, Debug)]
#[command(after_long_help = "A clearing chain is a turn of extra moves only: every move's last seed falls into the mover's \
store, and at the end the mover's houses are all empty. A house d steps from the store (house \
h+1-d, counting from the owner's left) ends in the store exactly when it holds d seeds, so each \
move puts one seed in the store and an n-seed pattern clears in exactly n moves. For every n \
there is exactly one pattern of n seeds that clears: it is built from the empty side by \
un-sowing the nearest empty house, and the chain that clears it is forced (always the nearest \
house holding exactly its distance). It may need more houses than the board has.\n\n\
Printed: for n = 1..=max, the n-seed pattern (houses from the owner's left, the store on the \
right), the houses it needs and the houses played to clear it; the longest chain on H houses \
(s(H+1) - 1 moves: 17 on 6 houses); and s(k), the least seeds whose pattern needs k houses \
(1, 2, 4, 6, 10, 12, 18, ...).\n\n\
The chains do not depend on the capture, end, leftover or relay rules (no last seed lands in a \
house and the opponent's row is never touched). They are for counter-clockwise sowing: \
clockwise, a seed reaches its store only after crossing the opponent's row, so no side ever \
clears this way.\n\n\
Examples:\n  kalah chains                   6 houses, patterns of 1 to 30 seeds\n  \
kalah chains 4 --max 12        4 houses (`--houses 4` says the same)\n  kalah chains 8 --json")]
pub struct ChainsArgs {
    /// Houses a side (default 6).
    #[arg(value_name = "H")]
    houses_given: Option<usize>,
    /// Houses a side, as H says it.
    #[arg(long, value_name = "H", default_value_t = 6, conflicts_with = "houses_given")]
    houses: usize,
    /// List the patterns of 1 to N seeds.
    #[arg(long, value_name = "N", default_value_t = 30)]
    max: u32,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

pub fn run(args: ChainsArgs) -> anyhow::Result<()> {
    let h = args.houses_given.unwrap_or(args.houses);
    let chains = kalah::studies::chains::listing(h, args.max)?;
    if args.json {
        print_json(&chains);
        return Ok(());
    }
    let (rows, longest) = (&chains.patterns, &chains.longest_chain);

    // Written at once at the end, so that a closed pipe (`| head`) is an
    // error `main` treats as success rather than a panic in `println!`.
    let mut text = String::new();
    macro_rules! say {
        () => {
            text.push('\n')
        };
        ($($arg:tt)*) => {{
            writeln!(text, $($arg)*).expect("writing to a String");
        }};
    }
    say!("Clearing chains on {h} house{} (sowing solitaire, \"Tchoukaillon\")", if h == 1 { "" } else { "s" });
    say!("Each pattern clears into the store by extra moves alone, one seed a move;");
    say!("it is the only pattern of its seeds that does. Houses from the owner's left,");
    say!("the store on the right.");
    say!();
    let join = |v: &[usize]| v.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ");
    let width = rows.iter().flat_map(|r| r.houses.iter()).max().map_or(1, |m| m.to_string().len());
    let extra = rows.iter().map(|r| r.board - h).max().unwrap_or(0);
    let cell = |s: u32| format!("{s:>width$}");
    let pattern_width = (extra + h) * (width + 1) + if extra > 0 { 2 } else { 0 };
    say!("{:>5}  {:>6}  {:<pattern_width$}  moves (houses played)", "seeds", "houses", "pattern");
    let mut wider = false;
    for r in rows {
        let (outside, inside) = r.houses.split_at(r.board - h);
        let mut row = String::new();
        if extra > 0 {
            // Houses beyond the board, left of a bar; blank where there are none.
            let pad = (extra - outside.len()) * (width + 1);
            row.push_str(&" ".repeat(pad));
            for &s in outside {
                row.push_str(&cell(s));
                row.push(' ');
            }
            row.push_str(if outside.is_empty() { "  " } else { "| " });
        }
        row.push_str(&inside.iter().map(|&s| cell(s)).collect::<Vec<_>>().join(" "));
        let mark = if r.needed > h {
            wider = true;
            "*"
        } else {
            " "
        };
        let moves = join(&r.moves);
        say!("{:>5}  {:>5}{mark}  {row:<pattern_width$}  {moves}", r.seeds, r.needed);
    }
    if wider {
        say!();
        say!("* needs more than {h} houses: shown on a board of as many houses as it needs (the");
        say!("  houses beyond {h} left of the bar), its moves numbered on that board.");
    }
    say!();
    say!("Longest chain on {h} house{}: {} moves ({} seeds need {} houses).", if h == 1 { "" } else { "s" }, longest.moves, longest.moves + 1, h + 1);
    say!("  pattern:       {}", longest.pattern.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" "));
    say!("  houses played: {}", join(&longest.clearing_moves));
    say!("Least seeds needing k houses, s(k) for k = 1..{}:", chains.least_seeds.len());
    say!("  {}", chains.least_seeds.iter().map(|s| s.seeds.to_string()).collect::<Vec<_>>().join(", "));
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(())
}
