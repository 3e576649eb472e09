//! `kalah serve`: the JSON API ([`kalah::service::api`], docs/api.md) over HTTP, on
//! axum and tokio.
//!
//! Protection: it binds 127.0.0.1 unless told otherwise; every search has
//! a deadline (`--time-limit`, which also caps a request's own); at most
//! as many searches run at once as there are search threads, one thread
//! each; a request that finds every slot taken waits in a queue (at most
//! [`MAX_WAITING`] requests, each up to `--queue-wait`), then gets 503 with
//! `Retry-After`; a position a database file or the opening book covers is
//! answered by probes without taking a slot, and so is one whose exact
//! answer was kept ([`api::answer_at_once`]); a client that goes away stops
//! its search; at most `--max-connections` connections are served at once,
//! and one whose client is slower than [`HEADER_WAIT`] to send a request's
//! headers is closed; a query string longer than [`MAX_QUERY`] is refused;
//! nothing in a request names a file, and no answer shows one of the
//! server's paths; SIGINT and SIGTERM stop it after the requests under
//! way, or after [`STOP_WAIT`] whatever its clients do.
//!
//! A search answered with bounds only goes on in the background, bounded
//! ([`kalah::service::background`]): `GET /api/v1/background?...` tells how its
//! bounds close, `POST /api/v1/background/stop?...` stops it and `POST
//! /api/v1/background/more?...` gives it more time. Every exact answer
//! that took work is kept by the library in the database folder
//! ([`kalah::Memory::Answers`], `answers/`): this server, another on the
//! folder, or this one after a restart answers it at once, marked by the
//! header `X-Kalah-Kept: 1` (`"source": "kept"`).
//!
//! At `/` it serves the board explorer (`web/`: a page, its script and
//! style, embedded in the binary), a client of the same API that fetches
//! nothing from elsewhere.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use clap::Args;
use kalah::service::api::{self, ApiRequest, Limits};
use kalah::{Error, ErrorKind};
use serde_json::{json, Value};
use tokio::sync::Semaphore;

use crate::common::threads;
use kalah::service::background::Background;
use kalah::service::memory::MemoryBudget;
use kalah::service::prepare::Preparing;

/// Requests that may wait for a slot at once; one more gets 503 at once.
const MAX_WAITING: usize = 512;

/// How long SIGINT or SIGTERM lets the requests under way finish.
const STOP_WAIT: Duration = Duration::from_secs(8);

/// How long a client may take to send a request's headers (the first on
/// a connection, or the next on one kept open) before its connection is
/// closed: a client that sends a byte now and then holds no connection
/// for long.
const HEADER_WAIT: Duration = Duration::from_secs(5);

/// The default cap on connections served at once (`--max-connections`).
const MAX_CONNECTIONS: usize = 200;

/// The longest query string served.
const MAX_QUERY: usize = 2048;

#[derive(Args, Debug)]
#[command(after_help = "\
The board explorer: open http://127.0.0.1:8080/ in a browser.

The API (docs/api.md):

  GET /api/v1/analysis?position=RING&capture=&end=&leftovers=&sowing=&relay=&time_limit=
  GET /api/v1/start?houses=H&seeds=S&capture=...
  GET /api/v1/databases
  GET /api/v1/background?position=RING&...     (POST .../stop, .../more)
  GET /health

  $ kalah serve &
  $ curl 'http://127.0.0.1:8080/api/v1/start?houses=4&seeds=3&capture=empty'

Bad input gets 400 with {\"error\": \"...\"}, a request beyond the server's limits 422, a
search that finds every slot busy 503 with Retry-After.")]
pub struct ServeArgs {
    /// The address to listen on. Only this machine can reach the default;
    /// give 0.0.0.0:PORT to serve others (behind a proxy).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Searches that may run at once, one thread each (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Seconds a search request waits in the queue for a free slot before
    /// it gets 503: long enough for a class that opens the page at once
    /// (200 requests of a tenth of a second on two slots), short of a
    /// browser's patience.
    #[arg(long, value_name = "SECONDS", default_value_t = 15.0)]
    pub queue_wait: f64,
    /// Connections served at once; one more waits to be accepted. Keep it
    /// below the open-file limit (`ulimit -n`), which the database files
    /// share. A client that is slow to send a request's headers is cut off
    /// after 5 s, so idle connections cannot hold every place for long.
    #[arg(long, value_name = "N", default_value_t = MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Searches answered with bounds only that go on in the background
    /// until exact (one thread each, beside the request slots); 0 for none.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub background: usize,
    /// Seconds a background search gets; a client may give it as much
    /// again a few times (`POST /api/v1/background/more`).
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    pub background_time: f64,
    /// Endgame databases to prepare as the server starts, as H:N (houses,
    /// seeds): the N-seed database of H houses under each capture rule,
    /// packed, built in the background into the database folder where it
    /// has none as large (Kalah(6,4) over the 24-seed ones is exact
    /// wherever a player goes; 744 MiB each, about two minutes on two
    /// cores). Repeat for more; `none` for none. `/health` says how far it
    /// is (`"ready": false` until done).
    #[arg(long, value_name = "H:N", default_value = crate::prepare::DEFAULT)]
    pub prepare: Vec<String>,
    /// The memory the server may hold, as `1GiB` or `512MiB`: every
    /// search's transposition table and every database it holds (built in
    /// memory, copied into memory, or a file searched over mapped, counted
    /// whole while it is kept mapped). Each search (a request's or a
    /// background one) reserves its share, the limit over the searches
    /// that may run at once; a larger file is mapped (and kept for the
    /// searches after) only where it fits beside the rest, the search's
    /// share then shrinking to its table, else the search goes on without
    /// it; what is kept for later requests and no search uses is let go
    /// when a search needs the room; a request that finds none waits for
    /// one under way to end, then gets 503 with the reason. A database
    /// prepared at start (`--prepare`) is built within it too: the memory
    /// its build needs is reserved whole, within two thirds of the limit
    /// where that is enough (one level at a time where the whole would not
    /// fit: 824 MiB for 6:24), the searches sharing the rest meanwhile.
    /// The default holds one 744 MiB file of `--prepare 6:24` with the
    /// tables beside it.
    #[arg(long, value_name = "SIZE", default_value = "1280MiB")]
    pub memory: bytesize::ByteSize,
    #[command(flatten)]
    pub door: crate::common::DoorArgs,
}

/// What every request shares.
struct Shared {
    analyzer: kalah::Analyzer,
    limits: Limits,
    slots: Semaphore,
    /// Requests waiting for a slot.
    waiting: std::sync::atomic::AtomicUsize,
    /// The database folder, whose paths an answer must not show.
    db_dir: String,
    /// How long a request waits for a slot (`--queue-wait`).
    queue_wait: Duration,
    /// The searches that go on after an answer with bounds only.
    background: Arc<Background>,
    /// The databases the server prepares as it starts.
    preparing: Arc<Preparing>,
    /// The server's memory (`--memory`), and each search's share of it.
    memory: Arc<MemoryBudget>,
    share: u64,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let slots = threads(args.threads)?;
    let (analyzer, time_limit) = args.door.analyzer()?;
    let analyzer = crate::book::analyzer(analyzer, args.door.no_book)?;
    let limits =
        Limits { threads: 1, time_limit, bounded: true, show_paths: false, setup_time: None, memory: kalah::Memory::Answers, memory_share: None };
    let db_dir = analyzer.databases().dir().display().to_string();
    let queue_wait = crate::common::seconds(args.queue_wait)
        .map_err(|_| crate::common::user(format!("--queue-wait {}: give a number of seconds above 0", args.queue_wait)))?;
    if args.max_connections == 0 {
        return Err(crate::common::user("--max-connections 0: give at least 1"));
    }
    let prepare = crate::prepare::parse(&args.prepare)?;
    let background_time = crate::common::seconds(args.background_time)
        .map_err(|_| crate::common::user(format!("--background-time {}: give a number of seconds above 0", args.background_time)))?;
    // The server's log: what a client is not told.
    let log: kalah::Log = Arc::new(|what: &str| {
        let _ = writeln!(std::io::stderr(), "kalah: {what}");
    });
    let memory = MemoryBudget::new(args.memory.as_u64());
    if memory.limit() < kalah::service::memory::LEAST {
        return Err(crate::common::user(format!("--memory {}: give at least 32MiB", args.memory)));
    }
    // Each search's share: the limit over the searches that may run at once.
    let share = memory.limit() / (slots + args.background).max(1) as u64;
    let background = Arc::new(Background::new(args.background, background_time, log.clone()).within(memory.clone(), share));
    background.counted_in(&memory);
    let preparing = Preparing::start(&analyzer, &prepare, memory.clone(), log.clone())?;
    let analyzer = analyzer.logging_to(log);
    // Said as it starts (to the log): a folder where no answer can be kept.
    analyzer.open_kept_answers(&kalah::Silent);
    let shared = Arc::new(Shared {
        analyzer,
        limits,
        slots: Semaphore::new(slots),
        waiting: Default::default(),
        db_dir,
        queue_wait,
        background,
        preparing,
        memory,
        share,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .map_err(|e| kalah::Error::bad_input(format!("--addr {}: cannot listen there: {e}", args.addr)))?;
        // The address bound (a port of 0 is chosen by the system), for people and for tests.
        eprintln!("kalah: serving on http://{}/ ({slots} search slots, {} s a search)", listener.local_addr()?, time_limit.as_secs_f64());
        let app = PAGES
            .iter()
            .fold(Router::new(), |app, &(path, kind, body)| app.route(path, get(move || async move { page(kind, body) })))
            .route("/health", get(|State(shared): State<Arc<Shared>>| async move { Json(shared.preparing.health()) }))
            .route("/api/v1/analysis", get(analysis))
            .route("/api/v1/start", get(start))
            .route("/api/v1/databases", get(databases_list))
            .route("/api/v1/background", get(background_told))
            .route("/api/v1/background/follow", post(background_follow))
            .route("/api/v1/background/leave", post(background_leave))
            .route("/api/v1/background/stop", post(background_stop))
            .route("/api/v1/background/more", post(background_more))
            .fallback(|| async { failure(StatusCode::NOT_FOUND, "no such page: see docs/api.md for the API") })
            .with_state(shared);
        serve_until_stopped(listener, app, args.max_connections).await;
        eprintln!("kalah: stopped");
        anyhow::Ok(())
    })?;
    // Searches still running on blocking threads end with the process.
    runtime.shutdown_timeout(Duration::from_millis(500));
    Ok(())
}

/// Serves `app` on `listener` until SIGINT or SIGTERM: at most
/// `max_connections` connections at once (one more waits to be accepted),
/// each closed when a request's headers take longer than [`HEADER_WAIT`];
/// at a signal it accepts no more, lets the requests under way finish for
/// [`STOP_WAIT`], then returns whatever its clients do.
async fn serve_until_stopped(listener: tokio::net::TcpListener, app: Router, max_connections: usize) {
    let open = Arc::new(Semaphore::new(max_connections));
    // Raised at the signal: each connection finishes its request and closes.
    let (stop, stopped) = tokio::sync::watch::channel(());
    let signal = crate::common::signalled();
    tokio::pin!(signal);
    loop {
        let permit = tokio::select! {
            permit = open.clone().acquire_owned() => permit.expect("the semaphore is never closed"),
            _ = &mut signal => break,
        };
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(_) => {
                    // Out of file descriptors, or a connection reset before it
                    // was accepted: try again shortly rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut signal => break,
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(HEADER_WAIT);
            let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stopped.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            drop(permit);
        });
    }
    drop(listener);
    let _ = stop.send(());
    // Every connection closed gives its permit back.
    let all_closed = open.acquire_many(max_connections as u32);
    if tokio::time::timeout(STOP_WAIT, all_closed).await.is_err() {
        let _ = writeln!(std::io::stderr(), "kalah: stopped with requests still under way");
    }
}

/// The board explorer's files: path, content type, body.
const PAGES: &[(&str, &str, &str)] = &[
    ("/", "text/html; charset=utf-8", include_str!("web/index.html")),
    ("/explorer.js", "text/javascript; charset=utf-8", include_str!("web/explorer.js")),
    ("/explorer.css", "text/css; charset=utf-8", include_str!("web/explorer.css")),
    ("/favicon.svg", "image/svg+xml", include_str!("web/favicon.svg")),
    ("/rules", "text/html; charset=utf-8", include_str!("web/rules.html")),
];

/// An embedded file, with headers that let it run nothing but its own
/// script and reach nothing but this server.
fn page(kind: &'static str, body: &'static str) -> Response {
    let headers = [
        (header::CONTENT_TYPE, kind),
        (header::CACHE_CONTROL, "no-cache"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::CONTENT_SECURITY_POLICY, "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
    ];
    (headers, body).into_response()
}

/// An answer of the server's own refusal, in the shape of a library
/// error's (`{"error", "kind"}`): `bad_input` for what the request got
/// wrong (4xx), `busy` when every search slot is taken (503), `internal`
/// otherwise.
fn failure(status: StatusCode, message: &str) -> Response {
    let kind = if status.is_client_error() {
        "bad_input"
    } else if status == StatusCode::SERVICE_UNAVAILABLE {
        "busy"
    } else {
        "internal"
    };
    (status, Json(json!({ "error": message, "kind": kind }))).into_response()
}

/// The status of a library error: 400 for bad input, 422 for a refused
/// request; a fault of the server's own (a damaged or unreadable file of
/// its database folder, which no request names, or an internal failure)
/// is 500, said without its details, which go to stderr: a client learns
/// nothing of the server's files.
fn error_response(shared: &Shared, e: &Error) -> Response {
    let message = e.to_string();
    let servers = matches!(e.kind(), ErrorKind::Corrupt | ErrorKind::Io | ErrorKind::Internal)
        || (!shared.db_dir.is_empty() && message.contains(&shared.db_dir));
    if servers {
        // The server's log; a closed stderr must not cost the answer.
        let _ = writeln!(std::io::stderr(), "kalah: a request failed for a fault of the server: {message}");
        let body = json!({"error": "the server could not answer: a fault of its own (its log says which)", "kind": "internal"});
        return (StatusCode::INTERNAL_SERVER_ERROR, Json(body)).into_response();
    }
    let status = match e.kind() {
        ErrorKind::BadInput => StatusCode::BAD_REQUEST,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    };
    (status, Json(api::error_object(e))).into_response()
}

/// Raises its flag when dropped: axum drops a request's future when its
/// client goes away, and the search it started then stops.
struct CancelOnDrop(Arc<std::sync::atomic::AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The question of a background call: its request and key, or why it
/// does not name a position and rules (a 400).
fn question(uri: &Uri, query: Result<Query<ApiRequest>, QueryRejection>) -> Result<(ApiRequest, String), String> {
    let request = read_query(uri, query)?;
    let key = request.question().map_err(|e| e.to_string())?;
    Ok((request, key))
}

/// The viewer a request names (header `X-Kalah-Viewer`): `None` if it
/// names none, or why the name is refused (a 400).
fn viewer(headers: &HeaderMap) -> Result<Option<String>, String> {
    let Some(value) = headers.get("x-kalah-viewer") else {
        return Ok(None);
    };
    match value.to_str() {
        Ok(v) if kalah::background::valid_viewer(v) => Ok(Some(v.to_string())),
        _ => Err(format!("X-Kalah-Viewer: give 1 to {} letters, digits, - or _", kalah::background::MAX_VIEWER_LEN)),
    }
}

/// `GET /api/v1/background?...`: how the background search of the
/// question goes (`{"state": null}` if none runs or ran lately).
async fn background_told(State(shared): State<Arc<Shared>>, uri: Uri, query: Result<Query<ApiRequest>, QueryRejection>) -> Response {
    match question(&uri, query) {
        Ok((_, key)) => Json(shared.background.told(&key)).into_response(),
        Err(why) => failure(StatusCode::BAD_REQUEST, &why),
    }
}

/// `POST /api/v1/background/follow?...` with `X-Kalah-Viewer`: the viewer
/// looks at this question (and no other): its search runs or goes on if a
/// place is free.
async fn background_follow(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    uri: Uri,
    query: Result<Query<ApiRequest>, QueryRejection>,
) -> Response {
    let (request, key) = match question(&uri, query) {
        Ok(question) => question,
        Err(why) => return failure(StatusCode::BAD_REQUEST, &why),
    };
    let viewer = match viewer(&headers) {
        Ok(Some(viewer)) => viewer,
        Ok(None) => return failure(StatusCode::BAD_REQUEST, "follow needs the viewer that follows: the header X-Kalah-Viewer"),
        Err(why) => return failure(StatusCode::BAD_REQUEST, &why),
    };
    let work = shared.clone();
    match tokio::task::spawn_blocking(move || work.background.follow(&work.analyzer, &work.limits, &key, request, &viewer)).await {
        Ok(told) => Json(told).into_response(),
        Err(_) => failure(StatusCode::INTERNAL_SERVER_ERROR, "internal error: following the search failed"),
    }
}

/// `POST /api/v1/background/leave` with `X-Kalah-Viewer`: the viewer looks
/// at no question any more.
async fn background_leave(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    match viewer(&headers) {
        Ok(Some(viewer)) => Json(shared.background.leave(&viewer)).into_response(),
        Ok(None) => failure(StatusCode::BAD_REQUEST, "leave needs the viewer that leaves: the header X-Kalah-Viewer"),
        Err(why) => failure(StatusCode::BAD_REQUEST, &why),
    }
}

/// `POST /api/v1/background/stop?...`: stops the question's background
/// search (for the viewer, if the request names one: it runs on for
/// others who look at it).
async fn background_stop(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    uri: Uri,
    query: Result<Query<ApiRequest>, QueryRejection>,
) -> Response {
    match (question(&uri, query), viewer(&headers)) {
        (Ok((_, key)), Ok(viewer)) => Json(shared.background.stop(&key, viewer.as_deref())).into_response(),
        (Err(why), _) | (_, Err(why)) => failure(StatusCode::BAD_REQUEST, &why),
    }
}

/// `POST /api/v1/background/more?...`: gives the question's background
/// search more time (422 with its state if it may not have more, or no
/// place is free).
async fn background_more(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    uri: Uri,
    query: Result<Query<ApiRequest>, QueryRejection>,
) -> Response {
    let (request, key) = match question(&uri, query) {
        Ok(question) => question,
        Err(why) => return failure(StatusCode::BAD_REQUEST, &why),
    };
    let viewer = match viewer(&headers) {
        Ok(viewer) => viewer,
        Err(why) => return failure(StatusCode::BAD_REQUEST, &why),
    };
    let work = shared.clone();
    match tokio::task::spawn_blocking(move || work.background.more(&work.analyzer, &work.limits, &key, request, viewer.as_deref())).await {
        Ok(Ok(told)) => Json(told).into_response(),
        Ok(Err(told)) => (StatusCode::UNPROCESSABLE_ENTITY, Json(told)).into_response(),
        Err(_) => failure(StatusCode::INTERNAL_SERVER_ERROR, "internal error: giving the search more time failed"),
    }
}

/// The query string read as a request, or what is wrong with it (a 400).
fn read_query(uri: &Uri, query: Result<Query<ApiRequest>, QueryRejection>) -> Result<ApiRequest, String> {
    if uri.query().map_or(0, str::len) > MAX_QUERY {
        return Err(format!("a query string longer than {MAX_QUERY} bytes"));
    }
    // (axum's words for a query that does not read begin with its own preamble.)
    query.map(|Query(q)| q).map_err(|e| format!("not a valid request: {}", e.body_text().trim_start_matches("Failed to deserialize query string: ")))
}

async fn analysis(State(shared): State<Arc<Shared>>, uri: Uri, query: Result<Query<ApiRequest>, QueryRejection>) -> Response {
    match read_query(&uri, query) {
        Ok(request) if request.houses.is_some() || request.seeds.is_some() => {
            failure(StatusCode::BAD_REQUEST, "/api/v1/analysis takes a position; the start of Kalah(h,s) is /api/v1/start?houses=H&seeds=S")
        }
        Ok(request) => answer(shared, request).await,
        Err(why) => failure(StatusCode::BAD_REQUEST, &why),
    }
}

async fn start(State(shared): State<Arc<Shared>>, uri: Uri, query: Result<Query<ApiRequest>, QueryRejection>) -> Response {
    match read_query(&uri, query) {
        Ok(request) if request.position.is_some() => {
            failure(StatusCode::BAD_REQUEST, "/api/v1/start takes houses and seeds; a position is /api/v1/analysis?position=...")
        }
        Ok(request) if request.houses.is_none() || request.seeds.is_none() => {
            failure(StatusCode::BAD_REQUEST, "give houses and seeds: /api/v1/start?houses=6&seeds=4")
        }
        Ok(request) => answer(shared, request).await,
        Err(why) => failure(StatusCode::BAD_REQUEST, &why),
    }
}

/// Answers on a blocking thread: at once what needs no search (a kept
/// answer, probes of a database or the opening book), a search once it
/// has a slot, waiting for one in a bounded queue.
async fn answer(shared: Arc<Shared>, request: ApiRequest) -> Response {
    let busy = || {
        let mut busy = failure(StatusCode::SERVICE_UNAVAILABLE, "every search slot is busy: try again in a few seconds");
        busy.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static("2"));
        busy
    };
    // What takes no work is answered at once, without a slot.
    let at_once = {
        let (work, request) = (shared.clone(), request.clone());
        tokio::task::spawn_blocking(move || api::answer_at_once(&work.analyzer, &request, &work.limits)).await
    };
    match at_once {
        Ok(Ok(Some(report))) => return respond(&shared, report),
        Ok(Ok(None)) => {}
        Ok(Err(e)) => return error_response(&shared, &e),
        Err(_) => return failure(StatusCode::INTERNAL_SERVER_ERROR, "internal error: the analysis failed"),
    }
    let queued = std::time::Instant::now();
    let permit = {
        use std::sync::atomic::Ordering::Relaxed;
        if shared.waiting.fetch_add(1, Relaxed) >= MAX_WAITING {
            shared.waiting.fetch_sub(1, Relaxed);
            return busy();
        }
        let acquired = tokio::time::timeout(shared.queue_wait, shared.slots.acquire()).await;
        shared.waiting.fetch_sub(1, Relaxed);
        match acquired {
            Ok(Ok(permit)) => permit,
            _ => return busy(),
        }
    };
    // Its share of the server's memory, waiting (what is left of the
    // queue's wait) for a search under way to end if there is no room.
    let work = shared.clone();
    let wait = shared.queue_wait.saturating_sub(queued.elapsed());
    let reserved = tokio::task::spawn_blocking(move || {
        let held = || work.background.held_bytes();
        let release = |to: u64| work.background.release_held(to);
        work.memory.reserve(work.share, &work.analyzer, &held, &release, wait)
    })
    .await;
    let reservation = match reserved {
        Ok(Ok(reservation)) => reservation,
        Ok(Err(why)) => {
            let mut busy = failure(StatusCode::SERVICE_UNAVAILABLE, &why);
            busy.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static("2"));
            return busy;
        }
        Err(_) => return failure(StatusCode::INTERNAL_SERVER_ERROR, "internal error: the analysis failed"),
    };
    // (Another request may have answered the same question while this
    // one waited: the analyzer then answers from what it kept.)
    let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let _gone = CancelOnDrop(cancel.clone());
    let (work, asked) = (shared.clone(), request.clone());
    let limits = Limits { memory_share: Some(Arc::new(reservation)), ..shared.limits.clone() };
    // (The share is given back as the search's request is dropped.)
    let result = tokio::task::spawn_blocking(move || api::answer_until(&work.analyzer, &asked, &limits, Some(cancel))).await;
    drop(permit);
    match result {
        Ok(Ok(report)) => respond(&shared, report),
        Ok(Err(e)) => error_response(&shared, &e),
        Err(_) => failure(StatusCode::INTERNAL_SERVER_ERROR, "internal error: the analysis failed"),
    }
}

/// The answer to `request`: `report` as JSON, marked when it was kept. (A
/// report with bounds only goes on in the background only when a viewer
/// follows it: the position on a page's board.)
fn respond(shared: &Shared, report: kalah::Report) -> Response {
    let answer = match serde_json::to_value(&report) {
        Ok(answer) => answer,
        Err(e) => return error_response(shared, &Error::internal(format!("the report does not serialise: {e}"))),
    };
    let mut response = Json(answer).into_response();
    if report.source == kalah::Source::Kept {
        response.headers_mut().insert("x-kalah-kept", header::HeaderValue::from_static("1"));
    }
    response
}

/// The database files served: name (not the path), board, seeds, rules, size.
async fn databases_list(State(shared): State<Arc<Shared>>) -> Response {
    let work = shared.clone();
    let listing = match tokio::task::spawn_blocking(move || work.analyzer.databases().list()).await {
        Ok(Ok(listing)) => listing,
        Ok(Err(e)) => return error_response(&shared, &e),
        Err(_) => return failure(StatusCode::INTERNAL_SERVER_ERROR, "internal error: listing the databases failed"),
    };
    let files: Vec<Value> = listing
        .databases
        .iter()
        .filter(|d| d.default)
        .map(|d| {
            json!({
                "file": d.path.file_name().map(|n| n.to_string_lossy().into_owned()),
                "houses": d.houses,
                "max_seeds": d.max_seeds,
                "rules": serde_json::to_value(kalah::report::RulesView::from(d.rules)).unwrap_or(Value::Null),
                "boards": d.boards,
                "bytes": d.bytes,
            })
        })
        .collect();
    Json(json!({ "databases": files })).into_response()
}
