//! The Python face of the `kalah` library (`import kalah`): rules,
//! positions that play, and an engine that answers any position with its
//! perfect-play value. A door like the command line: it reads Python
//! values, calls the library, and turns its answers and errors into Python
//! objects and exceptions; every decision is the library's.
//!
//! Errors: bad input raises `ValueError` with the library's message, a
//! refused request `kalah.Refused`, any other failure `kalah.Error` (of
//! which `Refused` is a kind).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kalah::service::api::{ApiRequest, Flag};
use kalah::{Analyzer, Databases, ErrorKind, Request, Silent, Want};
use kalah_core::Engine as Rulebook;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

create_exception!(kalah, Error, PyException, "A failure of the kalah library: a damaged database, an I/O error, or an internal one.");
create_exception!(kalah, Refused, Error, "A request beyond what this machine or method can do: too large a database, or too little memory.");

/// The library's error as the Python exception of its kind.
fn raised(e: kalah::Error) -> PyErr {
    // The argument the error is about, as Python names it (the library's
    // messages name none).
    let message = match e.field() {
        Some(kalah::Field::DbFile) => format!("{e} (argument db_file)"),
        Some(field) => format!("{e} (argument {})", field.name()),
        None => e.to_string(),
    };
    match e.kind() {
        ErrorKind::BadInput => PyValueError::new_err(message),
        ErrorKind::Refused => Refused::new_err(message),
        // Corrupt, Io, Internal, and any kind added later.
        _ => Error::new_err(message),
    }
}

fn bad_input(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A count read from Python's int: a negative or too large one is a
/// ValueError naming the argument (PyO3 would raise OverflowError naming
/// none).
fn count<T: TryFrom<i128>>(name: &str, value: i128) -> PyResult<T> {
    T::try_from(value).map_err(|_| PyValueError::new_err(format!("{name}: {value} is not a count here (give 0 or more, and not absurdly many)")))
}

/// Every count of a list, as [`count`].
fn counts<T: TryFrom<i128>>(name: &str, values: &[i128]) -> PyResult<Vec<T>> {
    values.iter().enumerate().map(|(i, &v)| count(&format!("{name}[{i}]"), v)).collect()
}

/// How often a long call looks at Python's signals (Ctrl-C).
const SIGNAL_LOOK: Duration = Duration::from_millis(50);

/// Runs `work` on a thread of its own, the GIL released, while this
/// thread looks at Python's signals every [`SIGNAL_LOOK`]: when a handler
/// raises (Ctrl-C: `KeyboardInterrupt`), `stop` is raised, `work` (which
/// watches it) is waited for, and the exception is raised in place of its
/// answer. So a search or a build of minutes stops at Ctrl-C, in a
/// terminal or a notebook, within moments. A thread of its own, not a
/// kept pool: a pool's threads do not survive a fork (multiprocessing),
/// and the hand-over, not the start, is what costs (BENCHMARKS.md). A
/// panic in `work` is raised here, as PyO3 raises one.
fn interruptible<T: Send>(py: Python<'_>, stop: &AtomicBool, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    // The work's end (its answer, or its panic), and a wake-up when it comes.
    type Ended<T> = Option<std::thread::Result<T>>;
    let ended: (Mutex<Ended<T>>, std::sync::Condvar) = (Mutex::new(None), std::sync::Condvar::new());
    let wait = |limit: Option<Duration>| {
        let slot = ended.0.lock().unwrap_or_else(|e| e.into_inner());
        let slot = match limit {
            Some(limit) => ended.1.wait_timeout_while(slot, limit, |e| e.is_none()).unwrap_or_else(|e| e.into_inner()).0,
            None => ended.1.wait_while(slot, |e| e.is_none()).unwrap_or_else(|e| e.into_inner()),
        };
        slot.is_some()
    };
    let interrupt = std::thread::scope(|scope| {
        scope.spawn(|| {
            let end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            *ended.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(end);
            ended.1.notify_one();
        });
        loop {
            let done = py.allow_threads(|| wait(Some(SIGNAL_LOOK)));
            if let Err(interrupt) = py.check_signals() {
                stop.store(true, Relaxed);
                py.allow_threads(|| wait(None));
                return Some(interrupt);
            }
            if done {
                return None;
            }
        }
    });
    if let Some(interrupt) = interrupt {
        return Err(interrupt);
    }
    match ended.0.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(Ok(answer)) => Ok(answer),
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        None => Err(Error::new_err("the work ended with no answer (a bug of kalah: please report it)")),
    }
}

/// A database build's progress as Python hears it: nothing, but a stop
/// once Ctrl-C raised the flag.
struct StopOn<'a>(&'a AtomicBool);

impl kalah::Progress for StopOn<'_> {
    fn advance(&self, _: u32, _: u64) {}
    fn stopped(&self) -> bool {
        self.0.load(Relaxed)
    }
}

impl kalah::BuildProgress for StopOn<'_> {
    fn resumed(&self, _: u32) {}
    fn level_started(&self, _: u32, _: u64) {}
    fn level_finished(&self, _: u32, _: f64) {}
}

/// What `__reduce__` gives pickle and copy: the callable that makes the
/// object again, and its arguments.
type Reduced<'py, A> = PyResult<(Bound<'py, PyAny>, A)>;

/// The rules of a game (RULES.md): the capture rule, the end of the game,
/// who scores the seeds left, the direction of sowing, relay sowing.
#[pyclass(module = "kalah", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Rules {
    inner: kalah::Rules,
}

#[pymethods]
impl Rules {
    #[new]
    #[pyo3(signature = (capture = "standard", end = "instant", leftovers = "owner", sowing = "ccw", relay = false))]
    fn new(capture: &str, end: &str, leftovers: &str, sowing: &str, relay: bool) -> PyResult<Rules> {
        let named = |s: &str| Some(s.to_string());
        let request = ApiRequest {
            capture: named(capture),
            end: named(end),
            leftovers: named(leftovers),
            sowing: named(sowing),
            relay: Some(Flag::Bool(relay)),
            ..ApiRequest::default()
        };
        Ok(Rules { inner: request.rules().map_err(raised)? })
    }

    /// `"standard"` or `"empty"`.
    #[getter]
    fn capture(&self) -> &'static str {
        self.inner.capture.name()
    }

    /// `"instant"` or `"turn"`.
    #[getter]
    fn end(&self) -> &'static str {
        self.inner.end.name()
    }

    /// `"owner"`, `"unscored"` or `"emptier"`.
    #[getter]
    fn leftovers(&self) -> &'static str {
        self.inner.leftovers.name()
    }

    /// `"ccw"` or `"cw"`.
    #[getter]
    fn sowing(&self) -> &'static str {
        self.inner.sowing.name()
    }

    /// Whether relay sowing is on.
    #[getter]
    fn relay(&self) -> bool {
        self.inner.relay == kalah::Relay::On
    }

    /// Pickles (and copies) as the call that makes it again.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> Reduced<'py, (&'static str, &'static str, &'static str, &'static str, bool)> {
        let r = slf.get();
        Ok((slf.get_type().into_any(), (r.capture(), r.end(), r.leftovers(), r.sowing(), r.relay())))
    }

    fn __repr__(&self) -> String {
        format!(
            "Rules(capture={:?}, end={:?}, leftovers={:?}, sowing={:?}, relay={})",
            self.capture(),
            self.end(),
            self.leftovers(),
            self.sowing(),
            if self.relay() { "True" } else { "False" }
        )
    }
}

fn rules_or_default(rules: Option<&Rules>) -> kalah::Rules {
    rules.map_or_else(kalah::Rules::default, |r| r.inner)
}

/// A position: both sides' houses and stores, and the side to move.
#[pyclass(module = "kalah", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Position {
    inner: kalah::Position,
}

#[pymethods]
impl Position {
    /// The start of Kalah(houses, seeds): `seeds` in every house, South to move.
    #[staticmethod]
    fn start(houses: i128, seeds: i128) -> PyResult<Position> {
        Ok(Position { inner: kalah::Position::start(count("houses", houses)?, count("seeds", seeds)?).map_err(bad_input)? })
    }

    /// A position in the ring form (`"3,3,3,3,0,3,3,3,3,0 S"`: South's
    /// houses and store, North's houses and store, the side to move) or the
    /// side form (`"S:3-3-3-3:0 N:3-3-3-3:0 S"`).
    #[staticmethod]
    fn from_ring(text: &str) -> PyResult<Position> {
        Ok(Position { inner: text.parse().map_err(bad_input)? })
    }

    /// A position from South's and North's houses (each from its owner's
    /// left), the stores (South's, North's) and the side to move (`"S"` or `"N"`).
    #[staticmethod]
    #[pyo3(signature = (south, north, stores = (0, 0), to_move = "S"))]
    fn from_counts(south: Vec<i128>, north: Vec<i128>, stores: (i128, i128), to_move: &str) -> PyResult<Position> {
        let side = side_named(to_move)?;
        let (south, north): (Vec<u32>, Vec<u32>) = (counts("south", &south)?, counts("north", &north)?);
        let stores = [count("stores[0]", stores.0)?, count("stores[1]", stores.1)?];
        Ok(Position { inner: kalah::Position::new(&south, &north, stores, side).map_err(bad_input)? })
    }

    /// The ring form.
    #[pyo3(name = "to_ring")]
    fn ring(&self) -> String {
        self.inner.ring()
    }

    /// Houses a side.
    #[getter]
    fn houses(&self) -> usize {
        self.inner.houses()
    }

    /// The side to move: `"S"` or `"N"`.
    #[getter(to_move)]
    fn mover(&self) -> String {
        self.inner.to_move().letter().to_string()
    }

    /// South's houses, from South's left.
    #[getter]
    fn south<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.side(kalah::Side::South))
    }

    /// North's houses, from North's left.
    #[getter]
    fn north<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.side(kalah::Side::North))
    }

    /// The stores: (South's, North's).
    #[getter]
    fn stores(&self) -> (u32, u32) {
        (self.inner.store(kalah::Side::South), self.inner.store(kalah::Side::North))
    }

    /// Every count in the ring form's order: South's houses, South's
    /// store, North's houses, North's store.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let mut counts = self.side(kalah::Side::South);
        counts.push(self.stores().0);
        counts.extend(self.side(kalah::Side::North));
        counts.push(self.stores().1);
        PyTuple::new(py, counts)
    }

    /// The houses (1 to h, from the mover's left) the side to move may
    /// play; none once the game is over.
    #[pyo3(signature = (rules = None))]
    fn legal_moves(&self, rules: Option<&Rules>) -> Vec<usize> {
        if self.inner.is_over(self.rulebook(rules)) {
            return Vec::new();
        }
        self.inner.legal_moves()
    }

    /// The position after the side to move plays `house` (1 to h from its
    /// left). Raises ValueError for an empty house, one that is not there,
    /// or a finished game.
    #[pyo3(signature = (house, rules = None))]
    fn play(&self, house: i128, rules: Option<&Rules>) -> PyResult<Position> {
        let (next, _) = self.inner.play(self.rulebook(rules), count("house", house)?).map_err(bad_input)?;
        Ok(Position { inner: next })
    }

    /// Whether the game is over.
    #[pyo3(signature = (rules = None))]
    fn is_over(&self, rules: Option<&Rules>) -> bool {
        self.inner.is_over(self.rulebook(rules))
    }

    /// The final scores (South's, North's) of a finished game: the stores
    /// and the seeds left, scored as the leftovers rule says; None while
    /// the game goes on.
    #[pyo3(signature = (rules = None))]
    fn final_scores(&self, rules: Option<&Rules>) -> Option<(u32, u32)> {
        let (mine, theirs) = self.rulebook(rules).terminal_shares(self.inner.mover_board())?;
        let (south, north) = self.stores();
        Some(match self.inner.to_move() {
            kalah::Side::South => (south + mine, north + theirs),
            kalah::Side::North => (south + theirs, north + mine),
        })
    }

    /// Pickles (and copies) as `Position.from_ring(ring)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> Reduced<'py, (String,)> {
        Ok((slf.get_type().getattr("from_ring")?, (slf.get().inner.ring(),)))
    }

    fn __repr__(&self) -> String {
        format!("Position.from_ring({:?})", self.inner.ring())
    }

    fn __str__(&self) -> String {
        self.inner.ring()
    }
}

impl Position {
    fn side(&self, side: kalah::Side) -> Vec<u32> {
        (1..=self.inner.houses()).map(|house| u32::from(self.inner.house(side, house))).collect()
    }

    fn rulebook(&self, rules: Option<&Rules>) -> &'static Rulebook {
        Rulebook::shared(self.inner.houses(), rules_or_default(rules))
    }
}

fn side_named(name: &str) -> PyResult<kalah::Side> {
    match name {
        "S" | "South" | "south" => Ok(kalah::Side::South),
        "N" | "North" | "north" => Ok(kalah::Side::North),
        _ => Err(PyValueError::new_err(format!("side {name:?}: give \"S\" or \"N\""))),
    }
}

/// One move's value for the side that makes it: exact, or bounds.
#[pyclass(module = "kalah", frozen, get_all, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
struct MoveValue {
    /// The house played, 1 to h from the mover's left.
    house: usize,
    /// The value, if proven; None when only bounds were.
    value: Option<i32>,
    /// The value is at least this.
    lower: i32,
    /// The value is at most this.
    upper: i32,
}

#[pymethods]
impl MoveValue {
    #[new]
    #[pyo3(signature = (house, value, lower, upper))]
    fn new(house: usize, value: Option<i32>, lower: i32, upper: i32) -> PyResult<MoveValue> {
        if lower > upper || value.is_some_and(|v| v != lower || v != upper) {
            return Err(PyValueError::new_err(format!(
                "a move's value {value:?} within {lower}..{upper}: the bounds must meet at the value, or hold no value"
            )));
        }
        Ok(MoveValue { house, value, lower, upper })
    }

    /// Pickles (and copies) as the call that makes it again.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> Reduced<'py, (usize, Option<i32>, i32, i32)> {
        let m = slf.get();
        Ok((slf.get_type().into_any(), (m.house, m.value, m.lower, m.upper)))
    }

    fn __repr__(&self) -> String {
        match self.value {
            Some(v) => format!("MoveValue(house={}, value={v})", self.house),
            None => format!("MoveValue(house={}, lower={}, upper={})", self.house, self.lower, self.upper),
        }
    }
}

/// The answer for a position: its value for the side to move (the store
/// difference it ends with under perfect play), each move's, a line of best
/// play, and how it was found.
///
/// Two analyses are equal when every field is (`nodes` and `seconds`
/// included, as a copy or an unpickled one is); compare `value`, `moves`
/// or `pv` to compare answers. Not hashable.
#[pyclass(module = "kalah", frozen, get_all, eq)]
#[derive(PartialEq)]
struct Analysis {
    /// The position answered.
    position: Position,
    /// The rules it was answered under.
    rules: Rules,
    /// The value for the side to move, if proven; None when only bounds were.
    value: Option<i32>,
    /// The value is at least this.
    lower: i32,
    /// The value is at most this.
    upper: i32,
    /// Whether the value is proven.
    exact: bool,
    /// A house of best value, if known.
    best_move: Option<usize>,
    /// Every legal move with its value or bounds, best first.
    moves: Vec<MoveValue>,
    /// A line of best play: (side, house) pairs.
    pv: Vec<(String, usize)>,
    /// "book", "game_over", "kept", "proven" (what this project has proven and
    /// ships), "database", "search", "retrograde" or "bounds".
    source: String,
    /// Nodes searched (0 for probes).
    nodes: u64,
    /// Seconds taken.
    seconds: f64,
}

/// An [`Analysis`]'s fields, in order: what pickling keeps.
type AnalysisState = (Position, Rules, Option<i32>, i32, i32, bool, Option<usize>, Vec<MoveValue>, Vec<(String, usize)>, String, u64, f64);

#[pymethods]
impl Analysis {
    /// Made again from its fields (what pickling and copying call).
    #[staticmethod]
    fn _from_state(state: AnalysisState) -> Analysis {
        let (position, rules, value, lower, upper, exact, best_move, moves, pv, source, nodes, seconds) = state;
        Analysis { position, rules, value, lower, upper, exact, best_move, moves, pv, source, nodes, seconds }
    }

    /// Pickles (and copies) as `Analysis._from_state(fields)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> Reduced<'py, (AnalysisState,)> {
        let a = slf.get();
        let state = (
            a.position,
            a.rules,
            a.value,
            a.lower,
            a.upper,
            a.exact,
            a.best_move,
            a.moves.clone(),
            a.pv.clone(),
            a.source.clone(),
            a.nodes,
            a.seconds,
        );
        Ok((slf.get_type().getattr("_from_state")?, (state,)))
    }

    fn __repr__(&self) -> String {
        let value = match self.value {
            Some(v) => format!("value={v}"),
            None => format!("lower={}, upper={}", self.lower, self.upper),
        };
        let best = self.best_move.map_or_else(|| "None".to_string(), |h| h.to_string());
        format!("Analysis({:?}, {value}, best_move={best}, source={:?})", self.position.inner.ring(), self.source)
    }
}

impl Analysis {
    fn of(report: &kalah::Report) -> Analysis {
        let a = &report.analysis;
        let bounds = |b: kalah::Bounded| (b.exact(), b.lower, b.upper);
        let (value, lower, upper) = bounds(a.value);
        // Best first, in the library's order (every door's).
        let moves: Vec<MoveValue> = report
            .moves_best_first()
            .iter()
            .map(|m| {
                let (value, lower, upper) = bounds(m.value);
                MoveValue { house: m.house, value, lower, upper }
            })
            .collect();
        Analysis {
            position: Position { inner: report.position },
            rules: Rules { inner: report.rules },
            value,
            lower,
            upper,
            exact: value.is_some(),
            best_move: report.best_move(),
            moves,
            pv: a.pv.iter().map(|m| (m.side.letter().to_string(), m.house)).collect(),
            source: report.source.name().to_string(),
            nodes: report.nodes,
            seconds: report.seconds,
        }
    }
}

/// An endgame database file: the value of every board with up to
/// `max_seeds` seeds in its houses, for one board size and rule set,
/// memory-mapped and checked block by block as it is read.
#[pyclass(module = "kalah", frozen)]
struct Database {
    inner: Arc<kalah::Database>,
}

#[pymethods]
impl Database {
    /// Builds the database of `houses` houses and up to `max_seeds` seeds
    /// under `rules` into the file `path` (resuming a build stopped
    /// before), and opens it. With `packed`, each value takes the bits its
    /// level needs (5 a board up to 31 seeds) instead of a byte: the same
    /// values in about 62% of the file (72% where values lack the seeds'
    /// parity: clockwise sowing, unscored leftovers). The GIL is released
    /// while it builds; Ctrl-C stops it within moments (KeyboardInterrupt),
    /// the levels built kept for the same build to go on from.
    #[staticmethod]
    #[pyo3(signature = (path, houses, max_seeds, rules = None, packed = false))]
    fn build(py: Python<'_>, path: std::path::PathBuf, houses: i128, max_seeds: i128, rules: Option<&Rules>, packed: bool) -> PyResult<Database> {
        let (houses, max_seeds): (usize, u32) = (count("houses", houses)?, count("max_seeds", max_seeds)?);
        let rules = rules_or_default(rules);
        let encoding = kalah::Encoding::chosen(packed, rules);
        let stop = AtomicBool::new(false);
        interruptible(py, &stop, || kalah::build_file_encoded(&path, houses, rules, max_seeds, encoding, &StopOn(&stop)))?
            .map_err(|e| raised(e.into()))?;
        Database::open(path)
    }

    /// Opens the database file `path`; a file that is not a database, or a
    /// damaged one, raises kalah.Error.
    #[staticmethod]
    fn open(path: std::path::PathBuf) -> PyResult<Database> {
        let db = kalah::Database::open(&path).map_err(|e| raised(e.into()))?;
        Ok(Database { inner: Arc::new(db) })
    }

    /// The database of the folder `db_dir` (default as for `Engine`:
    /// `$KALAH_DB_DIR`, else `data/db` of the checkout the current
    /// directory is in, else `~/.local/share/kalah/db` on Linux) for boards
    /// of `houses` houses under `rules`: the one of most seeds; None if the
    /// folder has none.
    #[staticmethod]
    #[pyo3(signature = (houses, rules = None, db_dir = None))]
    fn find(houses: i128, rules: Option<&Rules>, db_dir: Option<std::path::PathBuf>) -> PyResult<Option<Database>> {
        let databases = Databases::new(db_dir.unwrap_or_else(Databases::default_dir));
        let rules = rules_or_default(rules);
        let houses: usize = count("houses", houses)?;
        match databases.largest(houses, rules, u64::MAX) {
            Some(path) => Ok(Some(Database { inner: Arc::new(kalah::Database::open_for(&path, houses, rules).map_err(|e| raised(e.into()))?) })),
            None => Ok(None),
        }
    }

    /// Where the folder `db_dir` (default as for `Engine`) keeps the
    /// database of `houses` houses, `max_seeds` seeds and `rules`: build
    /// there, and engines and `find` use it.
    #[staticmethod]
    #[pyo3(signature = (houses, max_seeds, rules = None, db_dir = None))]
    fn default_path(houses: i128, max_seeds: i128, rules: Option<&Rules>, db_dir: Option<std::path::PathBuf>) -> PyResult<std::path::PathBuf> {
        let databases = Databases::new(db_dir.unwrap_or_else(Databases::default_dir));
        Ok(databases.path_for(count("houses", houses)?, count("max_seeds", max_seeds)?, rules_or_default(rules)))
    }

    /// The file.
    #[getter]
    fn path(&self) -> std::path::PathBuf {
        self.inner.path().to_path_buf()
    }

    /// Houses a side of its boards.
    #[getter]
    fn houses(&self) -> usize {
        self.inner.header().houses
    }

    /// Boards with up to this many seeds in their houses are covered.
    #[getter]
    fn max_seeds(&self) -> u32 {
        self.inner.header().max_seeds
    }

    /// The rules its values are for.
    #[getter]
    fn rules(&self) -> Rules {
        Rules { inner: self.inner.header().rules }
    }

    /// How many boards it holds.
    #[getter]
    fn boards(&self) -> u64 {
        self.inner.indexer().len()
    }

    /// Whether its values are packed in the bits each level needs (built
    /// with `packed=True`, or `kalah db repack --packed`) rather than a byte a board.
    #[getter]
    fn packed(&self) -> bool {
        self.inner.header().encoding.is_packed()
    }

    /// Its size on disk, in bytes.
    #[getter]
    fn bytes(&self) -> u64 {
        self.inner.file_bytes()
    }

    /// The value of `position` for the side to move, stores included; None
    /// if it has more seeds in its houses than the database covers.
    /// Raises ValueError for a position of another board size.
    fn probe(&self, position: &Position) -> PyResult<Option<i32>> {
        self.inner.probe_position(&position.inner).map_err(|e| raised(e.into()))
    }

    /// Every board with `seeds` seeds in its houses, with its value: an
    /// iterator of (Position, value), each position South to move with
    /// empty stores (the value is what the side to move gains from the
    /// board on). Read lazily, a block at a time, each block checked.
    fn level(&self, seeds: i128) -> PyResult<Boards> {
        let seeds: u32 = count("seeds", seeds)?;
        if seeds > self.max_seeds() {
            return Err(PyValueError::new_err(format!("seeds: {seeds} is more than the database covers ({})", self.max_seeds())));
        }
        Ok(Boards { db: self.inner.clone(), seeds, next: Mutex::new((0, std::collections::VecDeque::new())) })
    }

    fn __repr__(&self) -> String {
        format!(
            "Database({:?}, houses={}, max_seeds={}, rules={})",
            self.inner.path().display().to_string(),
            self.houses(),
            self.max_seeds(),
            self.rules().__repr__()
        )
    }
}

/// The boards of one level of a Database, with their values, read a
/// block at a time.
#[pyclass(module = "kalah")]
struct Boards {
    db: Arc<kalah::Database>,
    seeds: u32,
    /// The index of the next board to read, and the boards read ahead.
    next: Mutex<(u64, std::collections::VecDeque<(kalah::Board, i32)>)>,
}

/// Boards read ahead by [`Boards`] at a time.
const BOARDS_AHEAD: usize = 4096;

#[pymethods]
impl Boards {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self) -> PyResult<Option<(Position, i32)>> {
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        if next.1.is_empty() {
            let from = next.0;
            for entry in self.db.boards_from(self.seeds, from).map_err(|e| raised(e.into()))?.take(BOARDS_AHEAD) {
                next.1.push_back(entry.map_err(|e| raised(e.into()))?);
            }
            next.0 += next.1.len() as u64;
        }
        let houses = self.db.header().houses;
        match next.1.pop_front() {
            Some((board, value)) => Ok(Some((Position { inner: kalah::memory::book::board_position(houses, board).map_err(raised)? }, value))),
            None => Ok(None),
        }
    }
}

/// Answers positions with their perfect-play values: endgame databases
/// (files of `db_dir`, or one built in memory) are opened once and kept
/// for the positions after.
#[pyclass(module = "kalah", frozen)]
struct Engine {
    analyzer: Analyzer,
    db_file: Option<std::path::PathBuf>,
    db_seeds: Option<u32>,
    threads: usize,
    /// Whether answers are read from, and exact ones kept in, the
    /// folder's `answers/`.
    memory: kalah::Memory,
}

/// What one call asks of the analyzer.
struct Ask {
    rules: kalah::Rules,
    time_limit: Option<Duration>,
    want: Want,
}

#[pymethods]
impl Engine {
    /// `db_dir`: the directory of database files (default `$KALAH_DB_DIR`
    /// if set, else `data/db` of the checkout the current directory is in,
    /// else the user's data directory, `~/.local/share/kalah/db` on
    /// Linux); `db_file`: a database file to use whatever the folder
    /// holds (a file of other rules or board size is refused when used);
    /// `db_seeds`: the seeds of a database to build in
    /// memory when no file covers a position (0 for none; default: sized
    /// by the position); `threads`: search threads (default every core);
    /// `book`: answer from the opening book this package carries where it
    /// holds a position (`source` "book"), before any search (default
    /// True); `keep_answers`: answer at once from the exact answers kept
    /// in `db_dir`'s `answers/` (by `kalah solve`, `query`, `serve` or
    /// another engine; `source` "kept"), and keep there each exact answer
    /// that took a search (default False: nothing is written). Not with
    /// `db_file` or `db_seeds`, which say how to answer.
    #[new]
    #[pyo3(signature = (db_dir = None, db_seeds = None, threads = None, book = true, db_file = None, keep_answers = false))]
    fn new(
        db_dir: Option<std::path::PathBuf>,
        db_seeds: Option<i128>,
        threads: Option<i128>,
        book: bool,
        db_file: Option<std::path::PathBuf>,
        keep_answers: bool,
    ) -> PyResult<Engine> {
        let db_seeds: Option<u32> = db_seeds.map(|n| count("db_seeds", n)).transpose()?;
        let threads: Option<usize> = threads.map(|n| count("threads", n)).transpose()?;
        let threads = match threads {
            Some(0) => return Err(PyValueError::new_err("threads: give at least 1")),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let databases = Databases::new(db_dir.unwrap_or_else(Databases::default_dir));
        let mut analyzer = Analyzer::keeping(databases);
        if book {
            analyzer = analyzer.with_carried_book().map_err(raised)?;
        }
        if keep_answers && (db_file.is_some() || db_seeds.is_some()) {
            return Err(PyValueError::new_err(
                "keep_answers: not with db_file or db_seeds, which say how to answer (a kept answer would pass them over)",
            ));
        }
        let memory = if keep_answers { kalah::Memory::Answers } else { kalah::Memory::Off };
        Ok(Engine { analyzer, db_file, db_seeds, threads, memory })
    }

    /// The perfect-play value of `position` and of each of its moves, a
    /// line of best play, and how they were found. Under `time_limit`
    /// (seconds), what is not proven by then comes back as bounds.
    #[pyo3(signature = (position, rules = None, time_limit = None))]
    fn analyze(&self, py: Python<'_>, position: &Position, rules: Option<&Rules>, time_limit: Option<f64>) -> PyResult<Analysis> {
        let ask = Ask { rules: rules_or_default(rules), time_limit: seconds(time_limit)?, want: Want::MovesAndLine };
        Ok(Analysis::of(&self.report(py, position, &ask)?))
    }

    /// The value of `position` for the side to move; None if it was not
    /// proven within `time_limit`.
    #[pyo3(signature = (position, rules = None, time_limit = None))]
    fn value(&self, py: Python<'_>, position: &Position, rules: Option<&Rules>, time_limit: Option<f64>) -> PyResult<Option<i32>> {
        let ask = Ask { rules: rules_or_default(rules), time_limit: seconds(time_limit)?, want: Want::Value };
        Ok(self.report(py, position, &ask)?.value())
    }

    /// A house of best value for the side to move; None when the game is
    /// over. Under `time_limit`, the move with the best bounds proven.
    #[pyo3(signature = (position, rules = None, time_limit = None))]
    fn best_move(&self, py: Python<'_>, position: &Position, rules: Option<&Rules>, time_limit: Option<f64>) -> PyResult<Option<usize>> {
        let time_limit = seconds(time_limit)?;
        // Without a time limit, a best move found on its own (a search for the
        // value, then one for a move that keeps it); under one, every move's
        // bounds proven in the time, the best first.
        let ask = Ask { rules: rules_or_default(rules), time_limit, want: if time_limit.is_some() { Want::MovesAndLine } else { Want::BestMove } };
        Ok(self.report(py, position, &ask)?.move_to_play())
    }

    /// `analyze` of every position, in order: the positions answered side
    /// by side, one thread each, the GIL released once for all.
    #[pyo3(signature = (positions, rules = None, time_limit = None))]
    fn analyze_many(&self, py: Python<'_>, positions: Vec<Position>, rules: Option<&Rules>, time_limit: Option<f64>) -> PyResult<Vec<Analysis>> {
        let ask = Ask { rules: rules_or_default(rules), time_limit: seconds(time_limit)?, want: Want::MovesAndLine };
        let stop = Arc::new(AtomicBool::new(false));
        let reports = interruptible(py, &stop, || self.answer_each(&positions, &ask, &stop))?.map_err(raised)?;
        reports.into_iter().map(|r| r.map(|report| Analysis::of(&report)).map_err(raised)).collect()
    }

    fn __repr__(&self) -> String {
        format!("Engine(db_dir={:?}, threads={})", self.analyzer.databases().dir().display().to_string(), self.threads)
    }
}

impl Engine {
    /// The library's report on one position, on every thread of the
    /// engine, the GIL released meanwhile: at once where the library
    /// answers at once, else as work that Ctrl-C stops ([`interruptible`]:
    /// a thread of its own costs more than such an answer takes).
    fn report(&self, py: Python<'_>, position: &Position, ask: &Ask) -> PyResult<kalah::Report> {
        let stop = Arc::new(AtomicBool::new(false));
        let request = self.request(position.inner, ask, self.threads, &stop);
        if let Some(report) = py.allow_threads(|| self.analyzer.analyze_at_once(&request, &Silent)).map_err(raised)? {
            return Ok(report);
        }
        interruptible(py, &stop, || self.analyzer.analyze(&request, &Silent))?.map_err(raised)
    }

    /// Each position's answer, in order: the library's batch
    /// ([`kalah::Analyzer::analyze_each`]), one search thread a position
    /// and as many workers as the engine has threads.
    fn answer_each(&self, positions: &[Position], ask: &Ask, stop: &Arc<AtomicBool>) -> kalah::Result<Vec<kalah::Result<kalah::Report>>> {
        let requests: Vec<Request> = positions.iter().map(|p| self.request(p.inner, ask, 1, stop)).collect();
        self.analyzer.analyze_each(&requests, self.threads, &Silent)
    }

    /// The library's request for `position`, stopped once `stop` is raised.
    fn request(&self, position: kalah::Position, ask: &Ask, threads: usize, stop: &Arc<AtomicBool>) -> Request {
        let mut request = Request::new(position, ask.rules);
        request.cancel = Some(stop.clone());
        request.threads = threads;
        request.time_limit = ask.time_limit;
        request.want = ask.want;
        request.memory = self.memory;
        request.db.build_seeds = self.db_seeds;
        if let Some(path) = &self.db_file {
            request.db.file = kalah::DbFile::Named(path.clone());
        }
        request
    }
}

fn seconds(limit: Option<f64>) -> PyResult<Option<Duration>> {
    match limit {
        None => Ok(None),
        Some(t) if t > 0.0 && t.is_finite() && t < 1e9 => Ok(Some(Duration::from_secs_f64(t))),
        Some(t) => Err(PyValueError::new_err(format!("time_limit {t}: give a number of seconds above 0"))),
    }
}

/// The module `kalah._kalah`, re-exported by the package `kalah`.
#[pymodule]
fn _kalah(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Rules>()?;
    m.add_class::<Position>()?;
    m.add_class::<Engine>()?;
    m.add_class::<Analysis>()?;
    m.add_class::<MoveValue>()?;
    m.add_class::<Database>()?;
    m.add_class::<Boards>()?;
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("Refused", m.py().get_type::<Refused>())?;
    Ok(())
}
