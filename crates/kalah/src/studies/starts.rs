//! A table of starts: the value of Kalah(h,s) for ranges of board sizes
//! and seeds, each checked against the published value where there is one
//! ([`crate::published`]); what `kalah table` answers. Each board size's
//! starts share one oracle: one database, one transposition table.

use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

use kalah_core::{Engine, Position, Rules};
use kalah_search::Bounded;
use serde::Serialize;

use crate::answer::setup::Setup;
use crate::answer::sizes::SearchWork;
use crate::databases::{Databases, DbSpec, SetupBudget};
use crate::error::{Error, Result};
use crate::progress::Observer;
use crate::studies::published::{self, Published};
use crate::text::{bounded, RulesView};

/// What to tabulate.
#[derive(Clone, Debug)]
pub struct StartsRequest {
    /// Houses a side.
    pub houses: RangeInclusive<usize>,
    /// Seeds a house at the start.
    pub seeds: RangeInclusive<u32>,
    /// The rules.
    pub rules: Rules,
    /// The size of the database built in memory for each board size;
    /// `None`: the default.
    pub db_seeds: Option<u32>,
    /// Time for each start's search: one not done by then is shown as the
    /// bounds proven.
    pub time_limit: Duration,
    /// Search threads.
    pub threads: usize,
    /// Transposition table MiB (`None`: the default).
    pub tt_mb: Option<usize>,
}

/// The published value of a start, as a table shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PublishedView {
    /// The value as published (`+10`, `>= +2`).
    pub value: String,
    /// Who published it.
    pub source: String,
}

/// One start of the table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StartEntry {
    /// Houses a side.
    pub houses: usize,
    /// Seeds a house.
    pub seeds: u32,
    /// South's value; `None` when only bounds were proven in time.
    pub value: Option<i32>,
    /// The value is at least this.
    pub lower: i32,
    /// And at most this.
    pub upper: i32,
    /// Whether the value is proven.
    pub exact: bool,
    /// Seconds for this start.
    pub seconds: f64,
    /// Nodes searched (`None`: a database answered).
    pub nodes: Option<u64>,
    /// Seconds spent before the first start of its board size: building
    /// a database in memory, retrograde analysis (clockwise), loading a file.
    pub setup_seconds: f64,
    /// How it was answered, in words.
    pub method: String,
    /// The seeds of the database that answered or backed the search.
    pub database_seeds: Option<u32>,
    /// The published value, if there is one.
    pub published: Option<PublishedView>,
    /// `match`, `mismatch`, `consistent` (bounds that allow the published
    /// value) or `unpublished`.
    pub check: &'static str,
}

impl StartEntry {
    /// The value or its bounds, as text (`+10`, `+2..+8`).
    pub fn value_text(&self) -> String {
        bounded(Bounded { lower: self.lower, upper: self.upper })
    }
}

/// The table: every start asked, board size by board size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StartsTable {
    /// The rules.
    pub rules: RulesView,
    /// Seconds for each start's search.
    pub time_limit: f64,
    /// The starts, by houses then seeds.
    pub entries: Vec<StartEntry>,
}

/// How `bounds` stand against `published`.
fn check(bounds: Bounded, published: Option<&Published>) -> &'static str {
    match published {
        None => "unpublished",
        Some(p) if bounds.is_exact() && p.claim.agrees(bounds.lower) => "match",
        Some(p) if !p.claim.possible(bounds.lower, bounds.upper) => "mismatch",
        Some(_) if bounds.is_exact() => "mismatch",
        Some(_) => "consistent",
    }
}

/// Tabulates the starts `request` asks for over the databases of
/// `databases`; `observer` hears each board size's set-up and each value.
pub fn starts_table(databases: &Databases, request: &StartsRequest, observer: &dyn Observer) -> Result<StartsTable> {
    let (seeds_from, seeds_to) = (*request.seeds.start(), *request.seeds.end());
    if seeds_from == 0 {
        return Err(Error::bad_input("seeds 0: every house holds at least one seed at the start"));
    }
    let mut entries = Vec::new();
    for h in request.houses.clone() {
        let starts: Vec<Position> = request.seeds.clone().map(|s| Position::start(h, s)).collect::<std::result::Result<_, _>>()?;
        let setup = Instant::now();
        // The database serves every start of `h` houses: its set-up shares
        // their limits (clockwise, retrograde analysis sizes its own).
        let budget = SetupBudget::within(Some(request.time_limit * (seeds_to - seeds_from + 1)), request.threads);
        let engine = Engine::new(h, request.rules);
        let spec = DbSpec { build_seeds: request.db_seeds, ..DbSpec::default() };
        let how = Setup {
            engine: &engine,
            spec: &spec,
            threads: request.threads,
            tt_mb: request.tt_mb,
            budget,
            work: SearchWork::Value,
            observer,
            cancel: None,
        };
        let oracle = crate::answer::oracle::for_starts(databases, &how, 2 * h as u32 * seeds_to)?;
        let setup_seconds = setup.elapsed().as_secs_f64();
        let database = oracle.database_seeds().map_or("no database".to_string(), |n| format!("the {n}-seed database"));
        let prepared = if setup_seconds >= 0.1 {
            format!(", {setup_seconds:.1} s to prepare (building or loading it, retrograde analysis)")
        } else {
            String::new()
        };
        observer.note(&format!("{h} houses: {database}{prepared}"));
        for (s, start) in request.seeds.clone().zip(starts) {
            let timer = Instant::now();
            let before = oracle.nodes();
            let bounds = oracle.bounds(&start, Some(timer + request.time_limit))?;
            let published = published::find(h, s, request.rules);
            let entry = StartEntry {
                houses: h,
                seeds: s,
                value: bounds.exact(),
                lower: bounds.lower,
                upper: bounds.upper,
                exact: bounds.is_exact(),
                seconds: timer.elapsed().as_secs_f64(),
                nodes: oracle.searches(&start).then(|| oracle.nodes() - before),
                setup_seconds,
                method: oracle.method(&start),
                database_seeds: oracle.database_seeds(),
                check: check(bounds, published.as_ref()),
                published: published.map(|p| PublishedView { value: p.claim.text(), source: p.source }),
            };
            observer.note(&format!("Kalah({h},{s}) = {} in {:.2} s [{}]", entry.value_text(), entry.seconds, entry.check));
            entries.push(entry);
        }
    }
    Ok(StartsTable { rules: request.rules.into(), time_limit: request.time_limit.as_secs_f64(), entries })
}
