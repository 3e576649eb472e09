//! `kalah serve`: the JSON API ([`kalah::api`], docs/api.md) over HTTP, on
//! axum and tokio.
//!
//! Protection: it binds 127.0.0.1 unless told otherwise; every search has
//! a deadline (`--time-limit`, which also caps a request's own); at most
//! as many searches run at once as there are search threads, one thread
//! each; a request that finds every slot taken waits up to
//! [`SLOT_WAIT`], then gets 503 with `Retry-After`; a position a database
//! file covers is answered by probes without taking a slot; a query string
//! longer than [`MAX_QUERY`] is refused; nothing in a request names a
//! file; SIGINT and SIGTERM stop it after the requests under way.
//!
//! At `/` it serves the board explorer (`web/`: a page, its script and
//! style, embedded in the binary), a client of the same API that fetches
//! nothing from elsewhere.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use clap::Args;
use kalah::api::{self, ApiRequest, Limits};
use kalah::{Error, ErrorKind};
use serde_json::{json, Value};
use tokio::sync::Semaphore;

use crate::common::threads;

/// How long a search request waits for a free slot before it gets 503.
const SLOT_WAIT: Duration = Duration::from_secs(1);

/// The longest query string served.
const MAX_QUERY: usize = 2048;

#[derive(Args, Debug)]
#[command(after_help = "\
The board explorer: open http://127.0.0.1:8080/ in a browser.

The API (docs/api.md):

  GET /api/v1/analysis?position=RING&capture=&end=&leftovers=&sowing=&relay=&time_limit=
  GET /api/v1/start?houses=H&seeds=S&capture=...
  GET /api/v1/databases
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
    #[command(flatten)]
    pub door: crate::common::DoorArgs,
}

/// What every request shares.
struct Shared {
    analyzer: kalah::Analyzer,
    limits: Limits,
    slots: Semaphore,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let slots = threads(args.threads)?;
    let (analyzer, time_limit) = args.door.analyzer()?;
    let limits = Limits { threads: 1, time_limit, bounded: true };
    let shared = Arc::new(Shared { analyzer, limits, slots: Semaphore::new(slots) });
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .map_err(|e| kalah::Error::bad_input(format!("--addr {}: cannot listen there: {e}", args.addr)))?;
        // The address bound (a port of 0 is chosen by the system), for people and for tests.
        eprintln!("kalah: serving on http://{}/ ({slots} search slots, {} s a search)", listener.local_addr()?, time_limit.as_secs_f64());
        let app = PAGES
            .iter()
            .fold(Router::new(), |app, &(path, kind, body)| app.route(path, get(move || async move { page(kind, body) })))
            .route("/health", get(|| async { Json(json!({"status": "ok"})) }))
            .route("/api/v1/analysis", get(analysis))
            .route("/api/v1/start", get(start))
            .route("/api/v1/databases", get(databases_list))
            .fallback(|| async { failure(StatusCode::NOT_FOUND, "no such page: see docs/api.md for the API") })
            .with_state(shared);
        axum::serve(listener, app).with_graceful_shutdown(shutdown()).await?;
        eprintln!("kalah: stopped");
        anyhow::Ok(())
    })
}

/// Resolves at SIGINT or SIGTERM.
async fn shutdown() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(term) => term,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}

/// The board explorer's files: path, content type, body.
const PAGES: &[(&str, &str, &str)] = &[
    ("/", "text/html; charset=utf-8", include_str!("web/index.html")),
    ("/explorer.js", "text/javascript; charset=utf-8", include_str!("web/explorer.js")),
    ("/explorer.css", "text/css; charset=utf-8", include_str!("web/explorer.css")),
    ("/favicon.svg", "image/svg+xml", include_str!("web/favicon.svg")),
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

fn failure(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}

/// The status of a library error: 400 for bad input, 422 for a refused
/// request, 500 otherwise.
fn error_response(e: &Error) -> Response {
    let status = match e.kind() {
        ErrorKind::BadInput => StatusCode::BAD_REQUEST,
        ErrorKind::Refused => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorKind::Corrupt | ErrorKind::Io | ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    };
    (status, Json(api::error_object(e))).into_response()
}

/// The query string read as a request, or what is wrong with it (a 400).
fn read_query(uri: &Uri, query: Result<Query<ApiRequest>, axum::extract::rejection::QueryRejection>) -> Result<ApiRequest, String> {
    if uri.query().map_or(0, str::len) > MAX_QUERY {
        return Err(format!("a query string longer than {MAX_QUERY} bytes"));
    }
    query.map(|Query(q)| q).map_err(|e| format!("not a valid request: {}", e.body_text()))
}

async fn analysis(State(shared): State<Arc<Shared>>, uri: Uri, query: Result<Query<ApiRequest>, axum::extract::rejection::QueryRejection>) -> Response {
    match read_query(&uri, query) {
        Ok(request) if request.houses.is_some() || request.seeds.is_some() => {
            failure(StatusCode::BAD_REQUEST, "/api/v1/analysis takes a position; the start of Kalah(h,s) is /api/v1/start?houses=H&seeds=S")
        }
        Ok(request) => answer(shared, request).await,
        Err(why) => failure(StatusCode::BAD_REQUEST, &why),
    }
}

async fn start(State(shared): State<Arc<Shared>>, uri: Uri, query: Result<Query<ApiRequest>, axum::extract::rejection::QueryRejection>) -> Response {
    match read_query(&uri, query) {
        Ok(request) if request.position.is_some() => failure(StatusCode::BAD_REQUEST, "/api/v1/start takes houses and seeds; a position is /api/v1/analysis?position=..."),
        Ok(request) if request.houses.is_none() || request.seeds.is_none() => failure(StatusCode::BAD_REQUEST, "give houses and seeds: /api/v1/start?houses=6&seeds=4"),
        Ok(request) => answer(shared, request).await,
        Err(why) => failure(StatusCode::BAD_REQUEST, &why),
    }
}

/// Answers on a blocking thread: by probes at once, a search once it has a slot.
async fn answer(shared: Arc<Shared>, request: ApiRequest) -> Response {
    let permit = if api::by_probe(&shared.analyzer, &request) {
        None
    } else {
        match tokio::time::timeout(SLOT_WAIT, shared.slots.acquire()).await {
            Ok(Ok(permit)) => Some(permit),
            _ => {
                let mut busy = failure(StatusCode::SERVICE_UNAVAILABLE, "every search slot is busy: try again in a second");
                busy.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
                return busy;
            }
        }
    };
    let work = shared.clone();
    let result = tokio::task::spawn_blocking(move || api::answer(&work.analyzer, &request, &work.limits)).await;
    drop(permit);
    match result {
        Ok(Ok(mut answer)) => {
            // The file's name, not where it lies on the server.
            if let Some(path) = answer.pointer_mut("/database/path").filter(|p| p.is_string()) {
                let name = std::path::Path::new(path.as_str().unwrap_or_default()).file_name().map(|n| n.to_string_lossy().into_owned());
                *path = name.into();
            }
            Json(answer).into_response()
        }
        Ok(Err(e)) => error_response(&e),
        Err(_) => failure(StatusCode::INTERNAL_SERVER_ERROR, "internal error: the analysis failed"),
    }
}

/// The database files served: name (not the path), board, seeds, rules, size.
async fn databases_list(State(shared): State<Arc<Shared>>) -> Response {
    let listing = match tokio::task::spawn_blocking(move || shared.analyzer.databases().list()).await {
        Ok(Ok(listing)) => listing,
        Ok(Err(e)) => return error_response(&e),
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
