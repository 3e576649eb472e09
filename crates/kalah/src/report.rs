//! The answer about one position: value or proven bounds, every move's,
//! a line of best play, how it was found; serialised by serde to the
//! object `kalah query --json` prints (docs: the CLI's `--json`).

use std::path::PathBuf;

use kalah_core::Engine;
use kalah_core::{Position, Rules};
use kalah_db::Database;
use kalah_search::{BoundedAnalysis, BoundedMove, LineEnd, TestOutcome};
use serde::ser::{Serialize, Serializer};

use crate::text::verdict;
pub use crate::text::RulesView;

/// The endgame database a result rests on.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct UsedDatabase {
    /// Its file; `None` for one built in memory.
    pub path: Option<String>,
    /// Seeds it covers.
    pub max_seeds: u32,
    /// Seconds building it took (built in memory).
    pub build_seconds: Option<f64>,
    /// Seconds loading it into memory took (a file a search used whole).
    pub load_seconds: Option<f64>,
    /// Whether its file was copied into memory for the search (huge
    /// pages), rather than read through its mapping
    /// ([`DbHold`](crate::DbHold)); false for one built in memory.
    pub copied: bool,
    /// Whether it was kept in memory from an earlier request, built or
    /// loaded then (a long-lived analyzer, [`crate::Analyzer::keeping`]):
    /// the seconds above are then those of finding it.
    pub kept: bool,
    /// The file a database built in memory by default was written to now,
    /// for the next searches of its rules ([`crate::Databases::keep_built`]);
    /// left out of the JSON when none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved_as: Option<String>,
}

impl UsedDatabase {
    /// A file, as opened.
    pub fn file(db: &Database) -> UsedDatabase {
        UsedDatabase {
            path: Some(db.path().display().to_string()),
            max_seeds: db.header().max_seeds,
            build_seconds: None,
            load_seconds: None,
            copied: false,
            kept: false,
            saved_as: None,
        }
    }
}

/// What a search's journal held and gave (in a [`Report`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct JournalReport {
    /// The journal file.
    pub path: PathBuf,
    /// Whether it is a search memory (module docs), not one search's journal.
    pub memory: bool,
    /// Boards with bounds when the search began (from earlier sessions).
    pub entries_loaded: usize,
    /// Boards with bounds at its end.
    pub entries: usize,
    /// Sessions before this one.
    pub earlier_sessions: u32,
    /// Nodes the earlier sessions searched.
    pub earlier_nodes: u64,
    /// Seconds the earlier sessions took.
    pub earlier_seconds: f64,
    /// Times the journal was written by this session (its last write included).
    pub writes: u64,
    /// Why the last write failed, if it did (a full disk, a directory no
    /// longer writable): the answer stands, but what this session proved
    /// since its last successful write is not kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_written: Option<String>,
}

/// How a value was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Read from an endgame database.
    Database,
    /// Alpha-beta search (backed by a database where it covers).
    Search,
    /// Retrograde analysis in memory of every board with up to the
    /// position's seeds (clockwise sowing, where play can be endless).
    Retrograde,
    /// Bounds proven by searches to growing depths over a database of
    /// fewer seeds (clockwise sowing, where retrograde analysis of the
    /// position's seeds does not fit); the value is exact when they meet.
    Bounds,
    /// Read from an opening book ([`crate::book`]).
    Book,
    /// The game is over: the rules give the value.
    GameOver,
    /// Read from the exact answers kept in the database folder, found by
    /// an earlier request's search, retrograde analysis or bounds that met
    /// ([`crate::Memory::Answers`]).
    Kept,
    /// One search shared by the ranks of an MPI job ([`crate::distributed`]).
    Distributed,
    /// What this project has proven and ships (a strong solution's start
    /// value, the proofs of Kalah(6,6) under empty and standard capture):
    /// at once, or narrowing the bounds a search proved in its time.
    Proven,
}

impl Source {
    /// The name used in output.
    pub fn name(self) -> &'static str {
        match self {
            Source::Book => "book",
            Source::GameOver => "game_over",
            Source::Database => "database",
            Source::Search => "search",
            Source::Retrograde => "retrograde",
            Source::Bounds => "bounds",
            Source::Kept => "kept",
            Source::Distributed => "distributed",
            Source::Proven => "proven",
        }
    }
}

/// The answer, with how it was found.
#[derive(Clone, Debug)]
pub struct Report {
    /// The position answered.
    pub position: Position,
    /// Its rules.
    pub rules: Rules,
    /// Value, moves, principal variation (values for the player to move,
    /// or for the player of each move): exact, or bounds.
    pub analysis: BoundedAnalysis,
    /// How.
    pub source: Source,
    /// Nodes searched (0 for probes).
    pub nodes: u64,
    /// Wall-clock seconds, setting up the database included.
    pub seconds: f64,
    /// The database used.
    pub database: Option<UsedDatabase>,
    /// A best move found on its own, when neither every move's value nor a
    /// line was asked for; see [`Report::best_move`].
    pub best_found: Option<usize>,
    /// The search's journal, when it kept one ([`crate::journal`]).
    pub journal: Option<JournalReport>,
    /// The one test asked ([`crate::RootTests::AtLeast`]) and
    /// what it proved; `None` when none was asked, or it was stopped first.
    pub test: Option<TestOutcome>,
    /// When a best move was asked and none was proven in time: the move
    /// the search ranked first at the position (its table's best), a legal
    /// move to play ([`Report::move_to_play`]), not proven best.
    pub likely_best: Option<usize>,
}

impl Report {
    /// A best move for the player to move: the one found on its own, or the
    /// first move of the principal variation, or the first move of the best
    /// value (`None` when none was asked for, or the game is over).
    pub fn best_move(&self) -> Option<usize> {
        let a = &self.analysis;
        self.best_found
            .or_else(|| a.pv.first().filter(|m| m.side == self.position.to_move()).map(|m| m.house))
            .or_else(|| a.moves.iter().find(|m| m.value.lower >= a.value.upper).map(|m| m.house))
    }

    /// A move to play: [`Report::best_move`] when one is known, else the
    /// first of [`Report::moves_best_first`] (the best proven), as a time
    /// limit leaves them, else the move the search ranked first
    /// ([`Report::likely_best`]). `None` only when the game is over.
    pub fn move_to_play(&self) -> Option<usize> {
        let best_proven = || self.moves_best_first().first().map(|m| m.house);
        self.best_move().or_else(best_proven).or(self.likely_best)
    }

    /// Every move's value asked for, best first by what is proven: the
    /// highest lower bound first (an exact value is above a range that
    /// may be worse), then the highest upper bound, then the lowest
    /// house. The order of every door's answer.
    pub fn moves_best_first(&self) -> Vec<BoundedMove> {
        let mut moves = self.analysis.moves.clone();
        moves.sort_by_key(|m| (std::cmp::Reverse(m.value.lower), std::cmp::Reverse(m.value.upper), m.house));
        moves
    }

    /// The exact value for the player to move, if the bounds met.
    pub fn value(&self) -> Option<i32> {
        self.analysis.value.exact()
    }

    /// Whether the position's value and every move's are exact: an answer
    /// that never changes (a door may keep it for the same question).
    pub fn is_exact(&self) -> bool {
        self.value().is_some() && self.analysis.moves.iter().all(|m| m.value.is_exact())
    }
}

impl Report {
    /// The exact answer a door serialised (this type's JSON), read back
    /// as the answer to `position` under `rules`: [`Source::Kept`], no
    /// nodes, `seconds` the time of reading, since `start`. Nothing in it
    /// is trusted: it must be exact and of `position`, every legal move
    /// once with an exact value its seeds allow, the best of them the
    /// position's value, and its line a line of legal moves whose first
    /// is a best move; if not, why.
    #[cfg(feature = "answers")]
    pub(crate) fn from_kept(json: &serde_json::Value, position: &Position, rules: Rules, start: std::time::Instant) -> Result<Report, String> {
        use kalah_search::{Bounded, PvMove};
        if json["position"].as_str() != Some(position.ring().as_str()) {
            return Err(format!("is of another position ({})", json["position"]));
        }
        if json["exact"] != serde_json::Value::Bool(true) {
            return Err("is not exact".into());
        }
        // At most every seed's worth, stores included.
        let seeds = i64::from(position.seeds_in_houses()) + i64::from(position.store_difference().unsigned_abs());
        let exact = |v: &serde_json::Value, what: &str| -> Result<Bounded, String> {
            match v.as_i64() {
                Some(v) if v.abs() <= seeds => Ok(Bounded { lower: v as i32, upper: v as i32 }),
                _ => Err(format!("has {what} the position cannot have ({v})")),
            }
        };
        let value = exact(&json["value"], "a value")?;
        let listed = json["moves"].as_array().ok_or("has no moves")?;
        let mut moves = Vec::with_capacity(listed.len());
        for m in listed {
            let house = m["house"].as_u64().ok_or_else(|| format!("has a move without a house ({m})"))? as usize;
            moves.push(BoundedMove { house, value: exact(&m["value"], "a move's value")? });
        }
        // In the order of the houses, as an analysis lists them.
        moves.sort_by_key(|m| m.house);
        let houses: Vec<usize> = moves.iter().map(|m| m.house).collect();
        let engine = Engine::shared(position.houses(), rules);
        let legal = if position.is_over(engine) { Vec::new() } else { position.legal_moves() };
        if houses != legal {
            return Err(format!("has the moves {houses:?}, where the legal ones are {legal:?}"));
        }
        if let Some(best) = moves.iter().map(|m| m.value.lower).max() {
            if best != value.lower {
                return Err(format!("has the value {}, where its best move's is {best}", value.lower));
            }
        }
        let mut pv = Vec::new();
        let mut at = *position;
        for step in json["pv"].as_array().ok_or("has no line")? {
            let side = step["side"].as_str().and_then(|s| s.parse().ok()).ok_or_else(|| format!("has a line step without a side ({step})"))?;
            let house = step["house"].as_u64().ok_or_else(|| format!("has a line step without a house ({step})"))? as usize;
            if side != at.to_move() {
                return Err(format!("has a line step of the player not to move ({step})"));
            }
            at = at.play(engine, house).map_err(|e| format!("has a line step that is not a move ({step}: {e})"))?.0;
            pv.push(PvMove { side, house });
        }
        match pv.first() {
            Some(first) if moves.iter().find(|m| m.house == first.house).map(|m| m.value) != Some(value) => {
                return Err(format!("has a line whose first move ({}) is not a best one", first.house));
            }
            None if !moves.is_empty() => return Err("has no line of best play".into()),
            _ => {}
        }
        let end = match (json["pv_endless"].as_bool(), json["pv_cut"].as_bool()) {
            (Some(true), _) => LineEnd::Endless,
            (_, Some(true)) => LineEnd::Cut,
            _ => LineEnd::GameOver,
        };
        let analysis = BoundedAnalysis { value, moves, pv, end };
        Ok(Report {
            position: *position,
            rules,
            analysis,
            source: Source::Kept,
            nodes: 0,
            seconds: start.elapsed().as_secs_f64(),
            database: None,
            best_found: None,
            journal: None,
            test: None,
            likely_best: None,
        })
    }
}

#[derive(serde::Serialize)]
struct MoveView {
    house: usize,
    value: Option<i32>,
    lower: i32,
    upper: i32,
    /// The position the move leads to (ring form).
    position: String,
}

#[derive(serde::Serialize)]
struct PvView {
    side: String,
    house: usize,
    /// The position the step leads to (ring form).
    position: String,
}

#[derive(serde::Serialize)]
struct ReportView<'a> {
    houses: usize,
    rules: RulesView,
    position: String,
    to_move: String,
    value: Option<i32>,
    lower: i32,
    upper: i32,
    exact: bool,
    verdict: Option<String>,
    moves: Vec<MoveView>,
    best_move: Option<usize>,
    pv: Vec<PvView>,
    pv_endless: bool,
    pv_cut: bool,
    source: &'static str,
    database: Option<&'a UsedDatabase>,
    nodes: u64,
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    journal: Option<&'a JournalReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    test: Option<TestView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    likely_best: Option<usize>,
}

/// A test's answer: "value >= at_least" holds or not, and the bound proven.
#[derive(serde::Serialize)]
struct TestView {
    at_least: i32,
    holds: bool,
    bound: i32,
}

impl Serialize for Report {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let p = &self.position;
        let a = &self.analysis;
        let engine = Engine::shared(p.houses(), self.rules);
        // A move of the report is legal at its position (the analysis
        // found it there); a failure would be a bug, not bad input.
        let after = |at: &Position, house: usize| at.play(engine, house).map(|(next, _)| next).map_err(serde::ser::Error::custom);
        let mut moves = Vec::new();
        for m in self.moves_best_first() {
            moves.push(MoveView {
                house: m.house,
                value: m.value.exact(),
                lower: m.value.lower,
                upper: m.value.upper,
                position: after(p, m.house)?.ring(),
            });
        }
        let mut pv = Vec::new();
        let mut at = *p;
        for m in &a.pv {
            at = after(&at, m.house)?;
            pv.push(PvView { side: m.side.letter().to_string(), house: m.house, position: at.ring() });
        }
        ReportView {
            houses: p.houses(),
            rules: self.rules.into(),
            position: p.ring(),
            to_move: p.to_move().letter().to_string(),
            value: a.value.exact(),
            lower: a.value.lower,
            upper: a.value.upper,
            exact: a.value.is_exact(),
            verdict: a.value.exact().map(|v| verdict(p.to_move(), v)),
            moves,
            best_move: self.best_move(),
            pv,
            pv_endless: a.end == LineEnd::Endless,
            pv_cut: a.end == LineEnd::Cut,
            source: self.source.name(),
            database: self.database.as_ref(),
            nodes: self.nodes,
            seconds: self.seconds,
            journal: self.journal.as_ref(),
            test: self.test.map(|t| TestView { at_least: t.at_least, holds: t.holds, bound: t.bound }),
            likely_best: self.likely_best,
        }
        .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kalah_search::Bounded;

    /// Moves known as ranges are ordered by what is proven: an exact value
    /// above a range it may beat, ranges by their lower bound; the move to
    /// play is the first, and every move carries the position it leads to.
    #[test]
    fn moves_come_best_first_by_what_is_proven() {
        let position = Position::start(6, 4).unwrap();
        let bounded = |house, lower, upper| BoundedMove { house, value: Bounded { lower, upper } };
        let moves = vec![bounded(1, -4, 26), bounded(2, 8, 8), bounded(3, -46, 10), bounded(4, 8, 12), bounded(5, -4, 20), bounded(6, 2, 2)];
        let analysis = BoundedAnalysis { value: Bounded { lower: 8, upper: 26 }, moves, pv: Vec::new(), end: LineEnd::Cut };
        let report = Report {
            position,
            rules: Rules::default(),
            analysis,
            source: Source::Search,
            nodes: 1,
            seconds: 0.0,
            database: None,
            best_found: None,
            journal: None,
            test: None,
            likely_best: None,
        };
        let order: Vec<usize> = report.moves_best_first().iter().map(|m| m.house).collect();
        assert_eq!(order, [4, 2, 6, 1, 5, 3]);
        assert_eq!(report.move_to_play(), Some(4), "the best proven");
        let json = serde_json::to_value(&report).unwrap();
        let listed: Vec<u64> = json["moves"].as_array().unwrap().iter().map(|m| m["house"].as_u64().unwrap()).collect();
        assert_eq!(listed, [4, 2, 6, 1, 5, 3]);
        let engine = Engine::new(6, Rules::default());
        assert_eq!(json["moves"][0]["position"], position.play(&engine, 4).unwrap().0.ring());
    }
}
