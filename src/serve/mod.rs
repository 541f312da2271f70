//! `murk serve`: Murk as the engine behind a game server that speaks Mistboard's engine protocol
//! (one JSON request per turn, version "1"), over HTTP or as a line-delimited JSON stdio worker.
//! protocol.md section 12 describes the protocol as Murk speaks it, its extension for Dark
//! Crossroads and Dark Crazyhouse, and the errors.
//!
//! The [`TurnService`] behind both transports holds the configuration, the session cache and
//! counters; its work is shared out among:
//!
//! - [`session`]: the session cache, one game's information state and searcher per `sessionId`;
//! - [`timing`]: the time a request gives a turn, and the turn's budget and deadline;
//! - [`sync`]: bringing a session's information state up to the request's transcript;
//! - [`turn`]: answering one turn, on a worker thread, within its deadline;
//! - [`fallback`]: the move chosen from the request alone when the search gives none;
//! - [`decode`] and [`encode`]: from the wire to Murk's vocabulary and back; [`wire`]: the JSON
//!   types; [`http`] and [`stdio`]: the transports.

pub mod decode;
pub mod encode;
pub mod fallback;
pub mod http;
pub mod session;
pub mod stdio;
pub mod sync;
pub mod timing;
pub mod turn;
pub mod wire;

pub use http::{HttpConfig, HttpServer};
pub use timing::{Timing, TurnBudget};

use anyhow::{bail, Context, Result};
use session::Cache;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// What `murk serve` was started with (everything but the transport).
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Threads each game's search may use (the `Threads` option).
    pub threads: usize,
    /// MiB for all cached games together; each gets `hash_mib / max_games` (at least
    /// [`MIN_GAME_HASH_MIB`](session::MIN_GAME_HASH_MIB)).
    pub hash_mib: usize,
    /// Most games held at once; the least recently used is dropped first.
    pub max_games: usize,
    /// The player (`murk`, `greedy` or `random`, the `Player` option).
    pub player: String,
    /// Every random choice of a game derives from this, its `gameId` and the engine's color.
    pub seed: u64,
    /// Milliseconds of each move's time kept for the reply (the `Move Overhead` option).
    pub move_overhead_ms: u64,
    /// A node limit for every search, besides its time.
    pub nodes: Option<u64>,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            threads: 1,
            hash_mib: 2048,
            max_games: 32,
            player: "murk".into(),
            seed: 0,
            move_overhead_ms: 5,
            nodes: None,
        }
    }
}

/// Counters, for tests and the health route.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Sessions held now.
    pub sessions: usize,
    /// Turn requests that reached a session (authorized, well-formed).
    pub turns: u64,
    /// Turns answered by a search.
    pub searched: u64,
    /// Turns answered by a move from the request alone (deadline, or a request Murk could not
    /// follow).
    pub fallbacks: u64,
}

/// What answers Mistboard's turns: the configuration, the session cache and counters. Shared
/// by every connection; it answers turns ([`TurnService::turn`]) and observation pushes
/// ([`TurnService::observe`]).
pub struct TurnService {
    config: ServeConfig,
    player: usize,
    simple_player: bool,
    cache: Mutex<Cache>,
    turns: AtomicU64,
    searched: AtomicU64,
    fallbacks: AtomicU64,
}

impl TurnService {
    /// An engine with this configuration, or why the configuration is wrong.
    pub fn new(config: ServeConfig) -> Result<TurnService, String> {
        let options = crate::engine::EngineOptions::default();
        let player = options
            .players
            .iter()
            .position(|p| p.name.eq_ignore_ascii_case(&config.player))
            .ok_or_else(|| format!("unknown player '{}' (murk, greedy or random)", config.player))?;
        if config.max_games == 0 || config.threads == 0 || config.hash_mib == 0 {
            return Err("--max-games, --threads and --hash must be at least 1".into());
        }
        let simple_player = options.players[player].name != "murk";
        Ok(TurnService {
            config,
            player,
            simple_player,
            cache: Mutex::default(),
            turns: AtomicU64::new(0),
            searched: AtomicU64::new(0),
            fallbacks: AtomicU64::new(0),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ServeConfig {
        &self.config
    }

    /// The counters now.
    pub fn stats(&self) -> Stats {
        Stats {
            sessions: self.cache.lock().unwrap_or_else(PoisonError::into_inner).len(),
            turns: self.turns.load(Ordering::Relaxed),
            searched: self.searched.load(Ordering::Relaxed),
            fallbacks: self.fallbacks.load(Ordering::Relaxed),
        }
    }
}

/// `murk serve`'s command line.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Serve HTTP on this address (`127.0.0.1:8080`; port 0 picks a free one, printed at start).
    #[arg(long, value_name = "ADDR", required_unless_present = "stdio", conflicts_with = "stdio")]
    pub http: Option<String>,
    /// Speak one JSON object per line on stdin/stdout instead (Mistboard's worker envelope).
    #[arg(long)]
    pub stdio: bool,
    /// A file holding the bearer token every HTTP engine request must carry.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Threads each game's search may use.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// MiB for all cached games together (each gets hash / max-games, at least 8).
    #[arg(long, value_name = "MIB", default_value_t = 2048)]
    pub hash: usize,
    /// Most games held at once; the least recently used is dropped first.
    #[arg(long, default_value_t = 32)]
    pub max_games: usize,
    /// Who chooses the moves: murk, greedy or random.
    #[arg(long, default_value = "murk")]
    pub player: String,
    /// Every random choice of a game derives from this, its gameId and the engine's color.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Milliseconds of each move's time kept for the reply.
    #[arg(long, value_name = "MS", default_value_t = 5)]
    pub move_overhead: u64,
    /// Stop every search after this many nodes too (besides its time).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Milliseconds a client may take to send a request's headers, and its body (idle
    /// keep-alive connections are closed after it too).
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub body_timeout_ms: u64,
    /// The largest request body read (a larger one gets 413).
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 20)]
    pub max_body_bytes: usize,
}

impl ServeArgs {
    /// The engine's configuration.
    pub fn config(&self) -> ServeConfig {
        ServeConfig {
            threads: self.threads,
            hash_mib: self.hash,
            max_games: self.max_games,
            player: self.player.clone(),
            seed: self.seed,
            move_overhead_ms: self.move_overhead,
            nodes: self.nodes,
        }
    }
}

/// Reads a token file: its content less surrounding white space, which must not be empty.
pub fn read_token(path: &std::path::Path) -> Result<String> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading the token file {}", path.display()))?;
    let token = text.trim().to_string();
    if token.is_empty() {
        bail!("the token file {} is empty", path.display());
    }
    Ok(token)
}

/// Runs `murk serve` until the input ends (stdio) or for ever (HTTP).
pub fn run(args: &ServeArgs) -> Result<()> {
    let engine = Arc::new(TurnService::new(args.config()).map_err(anyhow::Error::msg)?);
    if args.stdio {
        let stdin = std::io::stdin();
        return Ok(stdio::run(engine, stdin.lock(), std::io::stdout().lock())?);
    }
    let addr_text = args.http.as_deref().unwrap_or("127.0.0.1:8080");
    let addr = std::net::ToSocketAddrs::to_socket_addrs(addr_text)
        .with_context(|| format!("bad --http address '{addr_text}'"))?
        .next()
        .with_context(|| format!("--http address '{addr_text}' resolves to nothing"))?;
    let token = args.token_file.as_deref().map(read_token).transpose()?;
    let config = HttpConfig {
        addr,
        token,
        body_timeout: Duration::from_millis(args.body_timeout_ms.max(1)),
        max_body_bytes: args.max_body_bytes.max(1),
        ..HttpConfig::default()
    };
    let authenticated = config.token.is_some();
    let server = http::start(engine, config).with_context(|| format!("listening on {addr}"))?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "murk serve: listening on http://{} ({}, {} games at most)",
        server.addr(),
        if authenticated { "bearer token required" } else { "no token" },
        args.max_games
    )?;
    out.flush()?;
    drop(out);
    server.wait();
    Ok(())
}
