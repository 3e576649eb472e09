//! The requests and answers of the JSON API, shared by the doors that
//! answer many positions in one process (`kalah engine`, a server): one
//! request object in, one answer object out.
//!
//! # A request
//!
//! ```json
//! {"position": "3,3,3,3,0,3,3,3,3,0 S", "capture": "empty", "time_limit": 2}
//! ```
//!
//! | field | meaning | default |
//! |---|---|---|
//! | `position` | a position, in the ring form (`3,3,3,3,0,3,3,3,3,0 S`) or the side form (`S:3-3-3-3:0 N:3-3-3-3:0 S`) | none |
//! | `houses`, `seeds` | instead of `position`: the start of Kalah(houses, seeds) | none |
//! | `capture` | `standard` or `empty` | `standard` |
//! | `end` | `instant` or `turn` | `instant` |
//! | `leftovers` | `owner`, `unscored` or `emptier` | `owner` |
//! | `sowing` | `ccw` or `cw` | `ccw` |
//! | `relay` | `on`/`off` or `true`/`false` | off |
//! | `time_limit` | seconds a search may take, at most the door's own limit | the door's limit |
//! | `book` | whether to answer from the door's opening book where it has the position (`source` is then `book`) | `true` |
//!
//! Either `position` or both `houses` and `seeds`; any other field is
//! refused (a misspelt option is not silently ignored). Nothing in a
//! request names a file: the databases are the door's.
//!
//! # An answer
//!
//! A request that fails is answered by `{"error": "...", "kind": "..."}`,
//! the kind one of `bad_input`, `refused`, `corrupt`, `io`, `internal`
//! ([`crate::ErrorKind`]), and `field`, the request field it is about,
//! where there is one (`time_limit`; [`crate::Field::name`]).
//!
//! Otherwise the answer is a [`Report`], which a door serialises as it
//! is: the object `kalah query --json` prints (docs/json.md), each move's
//! object and each step of the line of best play (`pv`) holding
//! `position`, the position it leads to, and the moves best first
//! ([`Report::moves_best_first`]). Under [`Limits::show_paths`] off, a
//! database is named by its file name alone.

use std::time::Duration;

use serde::Deserialize;

use crate::answer::analyzer::Analyzer;
use crate::answer::request::{Memory, Request};
use crate::error::{Error, Result};
use crate::progress::Silent;
use crate::report::Report;
use kalah_core::{Capture, End, Leftovers, Position, Relay, Rules, Sowing};

/// One request ([module docs](self)).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiRequest {
    /// The position, ring or side form.
    pub position: Option<String>,
    /// With `seeds`, instead of `position`: the start of Kalah(houses, seeds).
    pub houses: Option<usize>,
    /// See `houses`.
    pub seeds: Option<u32>,
    /// Capture rule name.
    pub capture: Option<String>,
    /// End rule name.
    pub end: Option<String>,
    /// Leftovers rule name.
    pub leftovers: Option<String>,
    /// Sowing direction name.
    pub sowing: Option<String>,
    /// Relay sowing.
    pub relay: Option<Flag>,
    /// Seconds a search may take.
    pub time_limit: Option<f64>,
    /// Whether to answer from the opening book where it has the position
    /// (default yes).
    pub book: Option<Flag>,
}

/// A yes-or-no option, written as JSON's `true`/`false` or as a name
/// (`on`/`off`), as a query string gives it.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Flag {
    /// `true` or `false`.
    Bool(bool),
    /// A name, such as `on` or `off`.
    Name(String),
}

impl Flag {
    /// The yes or no of `field`: `true`/`false`, or the names `on`/`off`,
    /// `true`/`false`, `yes`/`no`.
    pub fn value(&self, field: &str) -> Result<bool> {
        match self {
            Flag::Bool(on) => Ok(*on),
            Flag::Name(text) => match text.as_str() {
                "true" | "on" | "yes" => Ok(true),
                "false" | "off" | "no" => Ok(false),
                other => Err(Error::bad_input(format!("{field}: {other:?} is neither on nor off (true, false, on, off, yes, no)"))),
            },
        }
    }
}

/// What a door allows each request.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Search threads a request gets.
    pub threads: usize,
    /// The longest a search may take; also the time limit of a request
    /// that gives none.
    pub time_limit: Duration,
    /// Whether work that no time limit bounds (retrograde analysis of
    /// more than [`MAX_RETROGRADE_BOARDS`] boards) is replaced by bounds
    /// proven in time: for a door open to others, such as a server.
    pub bounded: bool,
    /// Whether an answer shows where a database file lies on this machine
    /// (else its file name only): off for a door open to others.
    pub show_paths: bool,
    /// The time a request's set-up is held to, if not its time limit
    /// ([`crate::Request::setup_time`]): a search that goes on after its
    /// answer sets up as a request does.
    pub setup_time: Option<Duration>,
    /// What a request reads of what earlier ones kept, and keeps
    /// ([`Memory`]): a server keeps exact answers ([`Memory::Answers`]).
    pub memory: Memory,
    /// The request's share of the door's memory
    /// ([`crate::Request::memory_share`]): a server's share for it of its
    /// `--memory` ([`crate::service::memory`]); `None` for no limit of the
    /// door's own.
    pub memory_share: Option<std::sync::Arc<dyn crate::MemoryShare>>,
}

impl ApiRequest {
    /// Reads a request from one line of JSON.
    pub fn from_json(line: &str) -> Result<ApiRequest> {
        serde_json::from_str(line).map_err(|e| Error::bad_input(format!("not a valid request: {e}")))
    }

    /// The rules the request names.
    pub fn rules(&self) -> Result<Rules> {
        fn named<T: std::str::FromStr>(field: &str, value: &Option<String>, default: T) -> Result<T>
        where
            T::Err: std::fmt::Display,
        {
            match value {
                None => Ok(default),
                Some(text) => text.parse().map_err(|e| Error::bad_input(format!("{field}: {e}"))),
            }
        }
        let relay = match &self.relay {
            None => Relay::Off,
            Some(Flag::Bool(on)) => {
                if *on {
                    Relay::On
                } else {
                    Relay::Off
                }
            }
            // A query string writes a yes-or-no option as a name.
            Some(Flag::Name(text)) if text == "true" => Relay::On,
            Some(Flag::Name(text)) if text == "false" => Relay::Off,
            Some(Flag::Name(text)) => text.parse().map_err(|e| Error::bad_input(format!("relay: {e}")))?,
        };
        Ok(Rules {
            capture: named::<Capture>("capture", &self.capture, Capture::Standard)?,
            end: named::<End>("end", &self.end, End::Instant)?,
            leftovers: named::<Leftovers>("leftovers", &self.leftovers, Leftovers::Owner)?,
            sowing: named::<Sowing>("sowing", &self.sowing, Sowing::Ccw)?,
            relay,
        })
    }

    /// The position the request names.
    pub fn position(&self) -> Result<Position> {
        match (&self.position, self.houses, self.seeds) {
            (Some(text), None, None) => text.parse::<Position>().map_err(|e| Error::bad_input(format!("position: {e}"))),
            (None, Some(h), Some(s)) => Ok(Position::start(h, s)?),
            (Some(_), _, _) => Err(Error::bad_input("give either position or houses and seeds, not both")),
            (None, _, _) => Err(Error::bad_input("give a position (\"position\": \"3,3,3,3,0,3,3,3,3,0 S\"), or houses and seeds for a start")),
        }
    }

    /// The analyzer's request for this one under `limits`: a time limit
    /// above the door's is cut to it.
    pub fn request(&self, limits: &Limits) -> Result<Request> {
        let time_limit = match self.time_limit {
            None => limits.time_limit,
            Some(t) if t > 0.0 && t.is_finite() => Duration::from_secs_f64(t.min(limits.time_limit.as_secs_f64())),
            Some(t) => return Err(Error::bad_input(format!("time_limit {t}: give a number of seconds above 0"))),
        };
        let book = match &self.book {
            None => true,
            Some(flag) => flag.value("book")?,
        };
        Ok(Request {
            threads: limits.threads,
            time_limit: Some(time_limit),
            book,
            memory: limits.memory,
            ..Request::new(self.position()?, self.rules()?)
        })
    }

    /// The question asked: its position and rules, as the answers kept
    /// name it ([`crate::answers::key`]); what else a request says (its
    /// time limit, the book) does not change an exact answer.
    pub fn question(&self) -> Result<String> {
        Ok(crate::memory::answers::key(&self.position()?, self.rules()?))
    }
}

/// Under [`Limits::bounded`], a clockwise position whose retrograde
/// analysis (every board up to its seeds) has more boards than this gets
/// bounds proven within the time limit over a database of at most this
/// many boards instead: about a second of work on two cores.
pub const MAX_RETROGRADE_BOARDS: u64 = 5_000_000;

/// [`answer`] when it takes no work ([`Analyzer::analyze_at_once`]: a
/// finished game, the book, an answer kept under `limits`'
/// [`Memory`], a probe of a default database file that covers the
/// position); `None` when it takes a search, retrograde analysis or a
/// database to load or build. A door answers such a request without
/// waiting for a search's place, and the rest with [`answer_until`].
pub fn answer_at_once(analyzer: &Analyzer, request: &ApiRequest, limits: &Limits) -> Result<Option<Report>> {
    let request = analyzer_request(request, limits, None)?;
    Ok(analyzer.analyze_at_once(&request, &Silent)?.map(|report| shown(report, limits)))
}

/// Answers `request` ([module docs](self)).
pub fn answer(analyzer: &Analyzer, request: &ApiRequest, limits: &Limits) -> Result<Report> {
    answer_until(analyzer, request, limits, None)
}

/// [`answer`], stopped early (its search giving the bounds proven by then)
/// when `cancel` is raised: a door's way to stop the work of a client that
/// went away.
pub fn answer_until(
    analyzer: &Analyzer,
    request: &ApiRequest,
    limits: &Limits,
    cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
) -> Result<Report> {
    answer_watched(analyzer, request, limits, cancel, &Silent)
}

/// [`answer_until`], with `observer` hearing how the search goes (its
/// bounds closing): a door's way to show a search it runs on after
/// answering (a server's background search).
pub fn answer_watched(
    analyzer: &Analyzer,
    request: &ApiRequest,
    limits: &Limits,
    cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    observer: &dyn crate::progress::Observer,
) -> Result<Report> {
    let request = analyzer_request(request, limits, cancel)?;
    Ok(shown(analyzer.analyze(&request, observer)?, limits))
}

/// [`answer_watched`], going on from the search `held` holds (and leaving
/// its solver there after): a door's way to pause a search and go on with
/// it later (a server's background search, [`crate::background`]).
pub fn answer_held(
    analyzer: &Analyzer,
    request: &ApiRequest,
    limits: &Limits,
    cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    observer: &dyn crate::progress::Observer,
    held: std::sync::Arc<crate::HeldSearch>,
) -> Result<Report> {
    let request = Request { held: Some(held), ..analyzer_request(request, limits, cancel)? };
    Ok(shown(analyzer.analyze(&request, observer)?, limits))
}

/// The analyzer's request for `request` under `limits`, stopped by `cancel`.
fn analyzer_request(request: &ApiRequest, limits: &Limits, cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>) -> Result<Request> {
    let mut request = request.request(limits)?;
    request.cancel = cancel;
    request.setup_time = limits.setup_time;
    request.memory_share = limits.memory_share.clone();
    // Retrograde analysis beyond the limit would take longer than any time
    // limit: the plan proves bounds in time over a smaller database instead.
    request.retrograde_boards = limits.bounded.then_some(MAX_RETROGRADE_BOARDS);
    Ok(request)
}

/// `report` as the door shows it: under [`Limits::show_paths`] off, a
/// database named by its file name alone.
fn shown(mut report: Report, limits: &Limits) -> Report {
    if !limits.show_paths {
        if let Some(used) = report.database.as_mut() {
            used.path = used.path.as_deref().map(file_name);
            used.saved_as = used.saved_as.as_deref().map(file_name);
        }
    }
    report
}

/// The name of the file at `path`, without where it lies.
fn file_name(path: &str) -> String {
    std::path::Path::new(path).file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// The answer object of a request that failed: `{"error": "...", "kind":
/// "bad_input"}` (the kinds of [`ErrorKind::name`](crate::ErrorKind::name)).
pub fn error_object(error: &Error) -> serde_json::Value {
    let mut object = serde_json::json!({ "error": error.to_string(), "kind": error.kind().name() });
    if let Some(field) = error.field() {
        object["field"] = field.name().into();
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::databases::Databases;

    fn limits() -> Limits {
        Limits {
            threads: 1,
            time_limit: Duration::from_secs(10),
            bounded: true,
            show_paths: false,
            setup_time: None,
            memory: Memory::Off,
            memory_share: None,
        }
    }

    #[test]
    fn a_request_names_its_rules_and_position() {
        let r = ApiRequest::from_json(r#"{"houses": 3, "seeds": 3, "capture": "empty", "relay": false}"#).unwrap();
        assert_eq!(r.rules().unwrap(), Rules { capture: Capture::Empty, ..Rules::default() });
        assert_eq!(r.position().unwrap(), Position::start(3, 3).unwrap());
        let on = ApiRequest::from_json(r#"{"position": "1,1,0,1,1,0 S", "relay": "on"}"#).unwrap();
        assert_eq!(on.rules().unwrap().relay, Relay::On);
    }

    #[test]
    fn bad_requests_say_what_is_wrong() {
        let bad = |line: &str| {
            let e = ApiRequest::from_json(line).and_then(|r| r.request(&limits())).unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::BadInput, "{line}: {e}");
            e.to_string()
        };
        assert!(bad(r#"{"position": "3,3 S"}"#).starts_with("position:"));
        assert!(bad(r#"{"houses": 3, "seeds": 3, "capture": "never"}"#).starts_with("capture:"));
        assert!(bad(r#"{"houses": 3, "seeds": 3, "sowing": 1}"#).contains("not a valid request"));
        assert!(bad(r#"{"houses": 3, "seeds": 3, "capturre": "empty"}"#).contains("unknown field"));
        assert!(bad(r#"{"houses": 3}"#).contains("give a position"));
        assert!(bad(r#"{"houses": 3, "seeds": 3, "time_limit": -1}"#).contains("time_limit"));
        assert!(bad(r#"{"houses": 30, "seeds": 3}"#).contains("30"));
        assert!(bad("[1, 2").contains("not a valid request"));
    }

    #[test]
    fn a_time_limit_is_cut_to_the_doors() {
        let r = ApiRequest::from_json(r#"{"houses": 3, "seeds": 3, "time_limit": 1e9}"#).unwrap();
        assert_eq!(r.request(&limits()).unwrap().time_limit, Some(Duration::from_secs(10)));
    }

    /// Every move's position is the one it leads to, and the moves come
    /// best first; the values are those of the analyzer.
    #[test]
    fn the_answer_holds_each_moves_position_best_first() {
        let dir = tempfile::tempdir().unwrap();
        let analyzer = Analyzer::new(Databases::new(dir.path()));
        let request = ApiRequest::from_json(r#"{"houses": 4, "seeds": 3}"#).unwrap();
        let answer = serde_json::to_value(answer(&analyzer, &request, &limits()).unwrap()).unwrap();
        let report = analyzer.analyze(&request.request(&limits()).unwrap(), &Silent).unwrap();
        assert_eq!(answer["value"], report.value().unwrap());
        let moves = answer["moves"].as_array().unwrap();
        assert_eq!(moves.len(), 4);
        let engine = kalah_core::Engine::new(4, Rules::default());
        let values: Vec<i64> = moves.iter().map(|m| m["value"].as_i64().unwrap()).collect();
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
        assert_eq!(values[0], report.value().unwrap() as i64);
        for m in moves {
            let house = m["house"].as_u64().unwrap() as usize;
            let next = Position::start(4, 3).unwrap().play(&engine, house).unwrap().0;
            assert_eq!(m["position"], next.ring());
            let listed = report.analysis.moves.iter().find(|x| x.house == house).unwrap();
            assert_eq!(m["value"].as_i64(), listed.value.is_exact().then_some(listed.value.lower as i64));
        }
        // The line of best play, each step with the position it leads to.
        let mut at = Position::start(4, 3).unwrap();
        let pv = answer["pv"].as_array().unwrap();
        assert_eq!(pv.len(), report.analysis.pv.len());
        for (step, m) in pv.iter().zip(&report.analysis.pv) {
            assert_eq!(step["side"], m.side.letter().to_string());
            assert_eq!(step["house"], m.house);
            at = at.play(&engine, m.house).unwrap().0;
            assert_eq!(step["position"], at.ring());
        }
        assert!(engine.is_over(at.mover_board()), "the line ends the game: {at}");
    }

    /// What takes no work is answered at once, as the door shows it (a
    /// database by its file name alone); the rest is left for a search.
    #[test]
    fn what_takes_no_work_is_answered_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let databases = Databases::new(dir.path());
        let rules = Rules { capture: Capture::Empty, ..Rules::default() };
        kalah_db::build_file(&databases.path_for(4, 8, rules), 4, rules, 8, &kalah_db::Quiet).unwrap();
        let analyzer = Analyzer::keeping(databases);
        let at_once = |line: &str| answer_at_once(&analyzer, &ApiRequest::from_json(line).unwrap(), &limits()).unwrap();
        let over = at_once(r#"{"position": "0,0,0,0,5,2,1,0,0,3 S"}"#).expect("a finished game");
        assert_eq!(over.source, crate::report::Source::GameOver);
        let probed = at_once(r#"{"position": "1,0,2,1,0,1,0,3,0,2 S", "capture": "empty"}"#).expect("covered by the file");
        assert_eq!(probed.source, crate::report::Source::Database);
        assert_eq!(probed.database.unwrap().path.as_deref(), Some(format!("kalah-h4-n8-{}.kdb", rules.tag()).as_str()));
        assert!(at_once(r#"{"houses": 4, "seeds": 3, "capture": "empty"}"#).is_none(), "12 seeds: a search");
        let bad = answer_at_once(&analyzer, &ApiRequest::from_json(r#"{"houses": 4}"#).unwrap(), &limits()).unwrap_err();
        assert_eq!(bad.kind(), crate::error::ErrorKind::BadInput);
    }

    /// A door open to others bounds retrograde analysis: clockwise
    /// Kalah(6,3) (2.5 billion boards to solve) is answered within the
    /// time limit by bounds over a database of at most 5 million boards.
    #[test]
    fn a_bounded_door_proves_bounds_instead_of_a_long_retrograde_analysis() {
        let dir = tempfile::tempdir().unwrap();
        let analyzer = Analyzer::new(Databases::new(dir.path()));
        let request = ApiRequest::from_json(r#"{"houses": 6, "seeds": 3, "sowing": "cw", "time_limit": 1, "book": false}"#).unwrap();
        let start = std::time::Instant::now();
        let report = answer(&analyzer, &request, &limits()).unwrap();
        assert_eq!(report.source, crate::report::Source::Bounds);
        let n = report.database.as_ref().expect("a database built for the bounds").max_seeds;
        assert!(kalah_core::boards_up_to(6, n) <= MAX_RETROGRADE_BOARDS, "{n} seeds");
        assert!(report.analysis.value.lower <= report.analysis.value.upper);
        assert!(start.elapsed() < Duration::from_secs(8), "{:?}", start.elapsed());
    }
}
