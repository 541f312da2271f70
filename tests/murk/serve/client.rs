//! Clients of `murk serve` for the tests: a server in this process over real loopback HTTP (ureq
//! as the client), the real binary serving HTTP, and the binary as a stdio worker; and the game
//! loop that plays the referee's true game through any of them.

use super::referee::{Referee, Seat};
use murk::core::Move;
use murk::rules::Game;
use murk::serve::{HttpConfig, HttpServer, ServeConfig, TurnService};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The test's default compute budget (ms) and watchdog (ms).
pub const BUDGET_MS: u64 = 30;
/// The watchdog every test request carries.
pub const WATCHDOG_MS: u64 = 1500;

/// A reply: HTTP status, JSON body, and the time from sending to the whole reply.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The status (stdio: 200 for `ok`, else the error's `status`).
    pub status: u16,
    /// The body (stdio: the envelope's `response`, or the error line).
    pub body: Value,
    /// From sending the request to reading the whole reply.
    pub elapsed: Duration,
}

/// A server in this process, and its engine.
pub struct Local {
    /// The engine (for its counters).
    pub engine: Arc<TurnService>,
    /// The server.
    pub server: HttpServer,
    /// A client of it.
    pub http: Http,
}

/// Starts a server in this process on a free loopback port.
pub fn local(config: ServeConfig, http: HttpConfig) -> Local {
    let engine = Arc::new(TurnService::new(config).expect("a valid configuration"));
    let server = murk::serve::http::start(Arc::clone(&engine), http).expect("the server starts");
    let http = Http::new(server.addr());
    Local { engine, server, http }
}

/// A server in this process playing `player`, with the default HTTP settings.
pub fn local_player(player: &str) -> Local {
    local(ServeConfig { player: player.into(), ..ServeConfig::default() }, HttpConfig::default())
}

/// An HTTP client of one server.
#[derive(Clone)]
pub struct Http {
    agent: ureq::Agent,
    /// `http://addr`.
    pub base: String,
    /// The bearer token to send, if any.
    pub token: Option<String>,
}

impl Http {
    /// A client of the server at `addr`.
    pub fn new(addr: SocketAddr) -> Http {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        Http { agent, base: format!("http://{addr}"), token: None }
    }

    /// POSTs `body` to `path` with these headers (and the token, if set).
    pub fn post(&self, path: &str, body: &str, headers: &[(&str, String)]) -> Reply {
        let started = Instant::now();
        let mut request = self.agent.post(format!("{}{path}", self.base)).header("content-type", "application/json");
        if let Some(token) = &self.token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let mut response = request.send(body).expect("the server answers");
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().expect("a readable body");
        let body = serde_json::from_str(&text).unwrap_or_else(|e| panic!("the reply is not JSON ({e}): {text}"));
        Reply { status, body, elapsed: started.elapsed() }
    }

    /// GETs `path` (no token).
    pub fn agent_get(&self, path: &str) -> Reply {
        let started = Instant::now();
        let mut response = self.agent.get(format!("{}{path}", self.base)).call().expect("the server answers");
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().expect("a readable body");
        let body = serde_json::from_str(&text).unwrap_or_else(|e| panic!("the reply is not JSON ({e}): {text}"));
        Reply { status, body, elapsed: started.elapsed() }
    }

    /// A turn request with the test's headers.
    pub fn turn(&self, request: &Value, budget_ms: u64, watchdog_ms: u64) -> Reply {
        let headers = [
            ("x-mistboard-engine-compute-budget-ms", budget_ms.to_string()),
            ("x-mistboard-engine-timeout-ms", watchdog_ms.to_string()),
        ];
        self.post("/internal/engine/turn", &request.to_string(), &headers)
    }
}

/// `murk serve` as a process: its stdin (stdio mode) and its stdout lines.
pub struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Process {
    /// Starts `murk serve` with these arguments.
    pub fn start(args: &[&str]) -> Process {
        let mut child = Command::new(env!("CARGO_BIN_EXE_murk"))
            .arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start murk serve");
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Process { child, stdin, lines }
    }

    /// The next line of its output.
    pub fn line(&self) -> String {
        self.lines.recv_timeout(Duration::from_secs(30)).expect("a line from murk serve")
    }

    /// Sends one line (stdio mode).
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").and_then(|_| stdin.flush()).expect("write to murk serve");
    }

    /// Sends a line and reads the answer line, timed.
    pub fn exchange(&mut self, line: &str) -> (Value, Duration) {
        let started = Instant::now();
        self.send(line);
        let answer = self.line();
        let elapsed = started.elapsed();
        (serde_json::from_str(&answer).unwrap_or_else(|e| panic!("not JSON ({e}): {answer}")), elapsed)
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes stdin and waits for the exit status.
    pub fn finish(mut self) -> std::process::ExitStatus {
        self.stdin = None;
        self.child.wait().expect("murk serve exits")
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `murk serve --http 127.0.0.1:0 <args>` as a process, and a client of it.
pub fn binary_http(args: &[&str]) -> (Process, Http) {
    let mut all = vec!["--http", "127.0.0.1:0"];
    all.extend_from_slice(args);
    let process = Process::start(&all);
    let banner = process.line();
    let addr = banner
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in '{banner}'"));
    (process, Http::new(addr.parse().expect("an address")))
}

/// The stdio envelope Mistboard's worker pool writes.
pub fn envelope(request: &Value, id: usize, budget_ms: u64, deadline_ms: u64) -> Value {
    json!({
        "engineTurnRequest": request,
        "requestId": format!("req-{id}"),
        "computeBudgetMs": budget_ms,
        "watchdogTimeoutMs": budget_ms,
        "workerDeadlineMs": deadline_ms,
    })
}

/// One game played through a server.
pub struct Played {
    /// The referee at the end.
    pub referee: Referee,
    /// Every reply, in order.
    pub replies: Vec<Reply>,
}

/// Plays the referee's game: the engine answers through `ask` (which gets the request and how
/// many requests came before), the opponent by `opponent`; every answer must be 200, one of the
/// request's legal moves, and in by the watchdog. Stops at the end of the game or after
/// `max_plies` plies.
pub fn play(
    seat: Seat,
    ask: &mut dyn FnMut(&Value, usize) -> Reply,
    opponent: &mut dyn FnMut(&Game) -> Move,
    max_plies: usize,
    watchdog_ms: u64,
) -> Played {
    let mut referee = Referee::new(seat);
    let mut replies = Vec::new();
    while referee.game.outcome().is_none() && referee.game.moves().len() < max_plies {
        if !referee.engine_to_move() {
            let m = opponent(&referee.game);
            referee.play_opponent(m);
            continue;
        }
        let request = referee.request(replies.len() as u64 * 7919 + 11);
        let reply = ask(&request, replies.len());
        let context = format!("{} ply {}: {}", referee.seat.variant, referee.game.moves().len(), reply.body);
        let context = || context.clone();
        assert_eq!(reply.status, 200, "{}", context());
        assert!(reply.elapsed < Duration::from_millis(watchdog_ms), "late ({:?}): {}", reply.elapsed, context());
        assert_eq!(reply.body["protocolVersion"], "1", "{}", context());
        assert_eq!(reply.body["sessionId"], json!(referee.seat.session_id), "{}", context());
        assert_eq!(reply.body["gameId"], json!(referee.seat.game_id), "{}", context());
        let answer = reply.body["move"].clone();
        referee.play_engine(&answer).unwrap_or_else(|e| panic!("{e}: {}", context()));
        replies.push(reply);
    }
    Played { referee, replies }
}
