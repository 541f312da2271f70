//! `murk serve --http`: Mistboard's engine routes over HTTP/1.1, served by hyper on a small
//! tokio runtime. Connections and request bodies are handled asynchronously, so a slow or
//! stalled client holds a task, not a thread; each turn's engine work runs on a blocking thread.
//!
//! Routes: `POST /internal/engine/turn`, `POST /internal/engine/observe`, and `GET /health`
//! (no token needed). With a token configured, every other request must carry
//! `Authorization: Bearer <token>` (compared in constant time), or it gets 401 before its body is
//! read.

use super::wire::{self, Problem};
use super::{Timing, TurnService};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderMap, HeaderValue, AUTHORIZATION, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// The turn route.
pub const TURN_PATH: &str = "/internal/engine/turn";
/// The observation push route.
pub const OBSERVE_PATH: &str = "/internal/engine/observe";
/// The health route.
pub const HEALTH_PATH: &str = "/health";

/// The most of an oversized body read and discarded before its 413 (a larger one, or one
/// declared larger, gets the 413 at once and the connection is closed).
pub const DRAIN_LIMIT_BYTES: usize = 64 << 20;

/// How the HTTP front end is set up.
#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// Where to listen (port 0 picks a free port).
    pub addr: SocketAddr,
    /// The bearer token every engine route needs, if any.
    pub token: Option<String>,
    /// How long a client may take to send a request's headers, and its body.
    pub body_timeout: Duration,
    /// The largest body read; a larger one gets 413.
    pub max_body_bytes: usize,
    /// Most requests handled at once; more get 503.
    pub max_in_flight: usize,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            token: None,
            body_timeout: Duration::from_secs(5),
            max_body_bytes: 4 << 20,
            max_in_flight: 512,
        }
    }
}

/// A running HTTP front end.
pub struct HttpServer {
    addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HttpServer {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Blocks until the server stops (it stops only when told to, or with the process).
    pub fn wait(mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// Stops accepting, drops the open connections and waits for the server's thread.
    pub fn stop(mut self) {
        self.shutdown_now();
    }

    fn shutdown_now(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.shutdown_now();
    }
}

/// What every connection's handler shares.
struct Context {
    engine: Arc<TurnService>,
    config: HttpConfig,
    in_flight: AtomicUsize,
}

/// Binds the address and starts serving on a thread of its own.
pub fn start(engine: Arc<TurnService>, config: HttpConfig) -> std::io::Result<HttpServer> {
    let std_listener = std::net::TcpListener::bind(config.addr)?;
    std_listener.set_nonblocking(true)?;
    let addr = std_listener.local_addr()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("murk-serve-io")
        .enable_all()
        .build()?;
    let listener = {
        let _guard = runtime.enter();
        tokio::net::TcpListener::from_std(std_listener)?
    };
    let (tx, rx) = oneshot::channel();
    let context = Arc::new(Context { engine, config, in_flight: AtomicUsize::new(0) });
    let thread = std::thread::Builder::new().name("murk-serve-http".into()).spawn(move || {
        runtime.block_on(accept_loop(listener, context, rx));
        runtime.shutdown_timeout(Duration::from_secs(1));
    })?;
    Ok(HttpServer { addr, shutdown: Some(tx), thread: Some(thread) })
}

async fn accept_loop(listener: tokio::net::TcpListener, context: Arc<Context>, mut shutdown: oneshot::Receiver<()>) {
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else {
            // Out of file descriptors or the like: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let context = Arc::clone(&context);
        let header_timeout = context.config.body_timeout;
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                let context = Arc::clone(&context);
                async move { Ok::<_, Infallible>(handle(request, &context).await) }
            });
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// A JSON response; `close` asks the client to drop the connection (its body was not read).
fn json_response(status: u16, body: &Value, close: bool) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if close {
        response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

fn problem_response(problem: &Problem, close: bool) -> Response<Full<Bytes>> {
    json_response(problem.status, &problem.body(), close)
}

/// Compares a presented token with the configured one in time that depends only on the
/// configured token's length.
pub fn token_matches(presented: &[u8], secret: &[u8]) -> bool {
    let mut diff = u8::from(presented.len() != secret.len());
    for (i, &s) in secret.iter().enumerate() {
        let p = presented.get(i).copied().unwrap_or(!s);
        diff |= std::hint::black_box(p ^ s);
    }
    diff == 0
}

fn authorized(headers: &HeaderMap, token: &str) -> bool {
    let presented = headers.get(AUTHORIZATION).map(HeaderValue::as_bytes).unwrap_or(b"");
    let bearer = presented.strip_prefix(b"Bearer ").unwrap_or(b"");
    token_matches(bearer, token.as_bytes())
}

/// A positive integer header, else `None` (an unreadable value is ignored, as Mistboard's own
/// engine worker does).
fn header_ms(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse::<u64>().ok().filter(|&v| v > 0)
}

async fn handle(request: Request<Incoming>, context: &Context) -> Response<Full<Bytes>> {
    let received = Instant::now();
    let (method, path) = (request.method().clone(), request.uri().path().to_string());
    if path == HEALTH_PATH && method == Method::GET {
        let stats = context.engine.stats();
        let body = json!({ "ok": true, "service": "murk", "engine": crate::protocol::ENGINE_NAME, "sessions": stats.sessions });
        return json_response(200, &body, false);
    }
    if let Some(token) = &context.config.token {
        if !authorized(request.headers(), token) {
            return problem_response(&Problem::new(401, "unauthorized", "missing or wrong bearer token"), true);
        }
    }
    let turn = match (path.as_str(), &method) {
        (TURN_PATH, &Method::POST) => true,
        (OBSERVE_PATH, &Method::POST) => false,
        (TURN_PATH | OBSERVE_PATH, _) => {
            return problem_response(&Problem::new(405, "method_not_allowed", format!("{path} takes POST")), true);
        }
        _ => {
            let message = format!("no route {}", super::decode::clip(&path));
            return problem_response(&Problem::new(404, "not_found", message), true);
        }
    };
    let busy = context.in_flight.fetch_add(1, Ordering::SeqCst) >= context.config.max_in_flight;
    let response = if busy {
        problem_response(&Problem::new(503, "busy", "too many requests at once; try again"), true)
    } else {
        serve_engine_route(request, context, received, turn).await
    };
    context.in_flight.fetch_sub(1, Ordering::SeqCst);
    response
}

async fn serve_engine_route(
    request: Request<Incoming>,
    context: &Context,
    received: Instant,
    turn: bool,
) -> Response<Full<Bytes>> {
    let limit = context.config.max_body_bytes;
    let timing = Timing {
        received,
        compute_budget_ms: header_ms(request.headers(), "x-mistboard-engine-compute-budget-ms"),
        watchdog_ms: header_ms(request.headers(), "x-mistboard-engine-timeout-ms"),
    };
    let too_large = || Problem::new(413, "payload_too_large", format!("the body is larger than {limit} bytes"));
    let declared = request.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > DRAIN_LIMIT_BYTES as u64) {
        return problem_response(&too_large(), true);
    }
    // Read the body within the timeout; past the limit, read on (up to DRAIN_LIMIT_BYTES) and
    // discard, so that a client still writing its body reads the 413 instead of a broken pipe.
    let deadline = tokio::time::Instant::now() + context.config.body_timeout;
    let mut body = request.into_body();
    let mut bytes = Vec::new();
    let mut total = 0usize;
    loop {
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => {
                let ms = context.config.body_timeout.as_millis();
                let message = format!("the body did not arrive within {ms} ms");
                return problem_response(&Problem::new(408, "request_timeout", message), true);
            }
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                let message = format!("the body could not be read: {e}");
                return problem_response(&Problem::new(400, "bad_body", message), true);
            }
            Ok(Some(Ok(frame))) => {
                let Ok(data) = frame.into_data() else { continue };
                total = total.saturating_add(data.len());
                if total > DRAIN_LIMIT_BYTES {
                    return problem_response(&too_large(), true);
                }
                if total <= limit {
                    bytes.extend_from_slice(&data);
                }
            }
        }
    }
    if total > limit {
        return problem_response(&too_large(), false);
    }
    let engine = Arc::clone(&context.engine);
    let answer = tokio::task::spawn_blocking(move || -> Result<Value, Problem> {
        let value = wire::parse_document(&bytes)?;
        if turn {
            let request = wire::turn_request(value)?;
            let response = engine.turn(request, timing)?;
            Ok(serde_json::to_value(response).unwrap_or(Value::Null))
        } else {
            let push: wire::ObservationPush = wire::from_value(value)?;
            Ok(serde_json::to_value(engine.observe(push)?).unwrap_or(Value::Null))
        }
    })
    .await;
    match answer {
        Ok(Ok(value)) => json_response(200, &value, false),
        Ok(Err(problem)) => problem_response(&problem, false),
        Err(_) => problem_response(&Problem::new(500, "internal_error", "the engine failed on this request"), false),
    }
}
