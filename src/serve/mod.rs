//! `murk serve`: Murk as the engine behind a game server that speaks Mistboard's engine protocol
//! (one JSON request per turn, version "1"), over HTTP or as a line-delimited JSON stdio worker.
//! protocol.md section 12 describes the protocol as Murk speaks it, its extension for Dark
//! Crossroads and Dark Crazyhouse, and the errors.

pub mod decode;
pub mod encode;
pub mod engine;
pub mod http;
pub mod stdio;
pub mod wire;

pub use engine::{Engine, ServeConfig, Stats, TimePlan, Timing};
pub use http::{HttpConfig, HttpServer};

use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

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
    let engine = Arc::new(Engine::new(args.config()).map_err(anyhow::Error::msg)?);
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
