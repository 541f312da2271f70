//! The perfect-information UCI engine that `murk uci-fog` runs as a child process: its
//! handshake (variant definitions, options), and one search of a position restricted to given
//! moves, read back as a score per move. Every wait has a deadline; a search that misses its
//! deadline is left to finish, and its `bestmove` is awaited before the next one.

use crate::process::{EngineIo, IoFailure, Process};
use std::io::ErrorKind;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The score of a forced win: a mate in `n` is `MATE_CP - n`, being mated in `n` is `n - MATE_CP`.
pub const MATE_CP: i32 = 10_000;

/// Centipawn scores are clamped to this, so that they stay below every mate score.
pub const MAX_CP: i32 = MATE_CP - 1_000;

/// How often a waiting search looks at the `stop` flag.
const POLL: Duration = Duration::from_millis(2);

/// How long a search may take to answer `stop` when no deadline is nearer, and how long a late
/// `bestmove` is awaited when the next search has no deadline.
const STOP_GRACE: Duration = Duration::from_millis(500);

/// How the child is started and set up.
#[derive(Clone, Debug)]
pub struct ChildConfig {
    /// The program (a path, or a name looked up on `PATH`).
    pub program: PathBuf,
    /// `setoption` pairs sent after the handshake, in order.
    pub options: Vec<(String, String)>,
    /// How many moves to score per search (`MultiPV`, where the engine has it).
    pub multipv: usize,
    /// The variant definitions, sent as `VariantPath` where the engine has that option.
    pub variant_path: PathBuf,
}

/// Why the child could not do what was asked; the child is then unusable and is dropped.
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    /// The program did not start.
    #[error("cannot start '{program}': {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The engine exited or did not answer in time.
    #[error("{failure} (waiting for {waiting_for})")]
    Io {
        /// What it was expected to send.
        waiting_for: &'static str,
        /// What went wrong.
        failure: IoFailure,
    },
    /// The engine lacks an option that uci-fog or the user needs.
    #[error("the engine has no option '{0}'")]
    NoOption(String),
    /// A restarted engine has not completed its handshake yet.
    #[error("the restarted engine is not ready yet")]
    StillStarting,
    /// The engine does not offer the variant.
    #[error("the engine offers no UCI_Variant '{0}'")]
    NoVariant(String),
}

/// One `option ...` line of the engine's `uci` reply.
#[derive(Clone, Debug)]
struct Declared {
    name: String,
    /// The `var` values of a combo.
    vars: Vec<String>,
}

/// What one search reported: the score of each move it gave one for (latest report wins), from
/// the side to move's point of view, and its `bestmove` (`None` for `(none)` or `0000`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChildSearch {
    /// `(move text, score)` pairs, in order of first report.
    pub scores: Vec<(String, i32)>,
    /// The move it played.
    pub best: Option<String>,
}

/// How long one search may run: the child's own limits and the times at which it is told to
/// `stop` and given up for hung.
#[derive(Clone, Copy, Debug)]
pub struct ChildLimit {
    /// `go movetime`.
    pub movetime: Option<Duration>,
    /// `go nodes`.
    pub nodes: Option<u64>,
    /// When to send `stop` if no `bestmove` has come.
    pub stop_at: Option<Instant>,
    /// When to stop waiting: the search keeps what it has, and the child owes its `bestmove`.
    pub deadline: Option<Instant>,
}

/// A running child engine that has completed its handshake.
pub struct ChildEngine {
    io: Process,
    declared: Vec<Declared>,
    variant: Option<String>,
    /// A search was given up before its `bestmove` came.
    owes_bestmove: bool,
}

impl ChildEngine {
    /// Starts the engine and completes the handshake by `deadline`: `uci`, `VariantPath` (then
    /// `uci` again, to learn the variants it added), the user's options, `MultiPV`, `isready`.
    pub fn start(config: &ChildConfig, deadline: Instant) -> Result<ChildEngine, ChildError> {
        // A program just written (installed, or made by a test) stays busy for writing while any
        // process forked meanwhile still holds the writer's descriptor: try again until it execs.
        let io = loop {
            match Process::spawn(&config.program, &[], None, None) {
                Err(e) if e.kind() == ErrorKind::ExecutableFileBusy && Instant::now() < deadline => {
                    std::thread::sleep(POLL);
                }
                spawned => break spawned,
            }
        }
        .map_err(|source| ChildError::Spawn { program: config.program.display().to_string(), source })?;
        let mut child = ChildEngine { io, declared: Vec::new(), variant: None, owes_bestmove: false };
        child.uci(deadline)?;
        if child.declares("VariantPath") {
            child.setoption("VariantPath", &config.variant_path.display().to_string())?;
            child.uci(deadline)?;
        }
        for (name, value) in &config.options {
            if !child.declares(name) {
                return Err(ChildError::NoOption(name.clone()));
            }
            child.setoption(name, value)?;
        }
        if child.declares("MultiPV") {
            child.setoption("MultiPV", &config.multipv.to_string())?;
        }
        child.sync(deadline)?;
        Ok(child)
    }

    /// The `UCI_Variant` set by the last [`ChildEngine::new_game`].
    pub fn variant(&self) -> Option<&str> {
        self.variant.as_deref()
    }

    /// Sets `UCI_Variant` (when it changes), sends `ucinewgame` and waits for `readyok`.
    pub fn new_game(&mut self, variant: &str, deadline: Instant) -> Result<(), ChildError> {
        self.settle(deadline)?;
        if self.variant.as_deref() != Some(variant) {
            let offered = self.declared("UCI_Variant").ok_or_else(|| ChildError::NoOption("UCI_Variant".into()))?;
            if !offered.vars.iter().any(|v| v == variant) {
                return Err(ChildError::NoVariant(variant.to_string()));
            }
            self.setoption("UCI_Variant", variant)?;
            self.variant = Some(variant.to_string());
        }
        self.send("ucinewgame")?;
        self.sync(deadline)
    }

    /// Searches `fen` among `moves` (move texts in the engine's notation) within `limit`; `stop`
    /// raised makes it send `stop` at once. A search still running at the deadline returns what
    /// it reported so far. An error means the child is hung or gone.
    pub fn search(
        &mut self,
        fen: &str,
        moves: &[String],
        limit: &ChildLimit,
        stop: &AtomicBool,
    ) -> Result<ChildSearch, ChildError> {
        self.settle(limit.deadline.unwrap_or_else(|| Instant::now() + STOP_GRACE))?;
        self.send(&format!("position fen {fen}"))?;
        let mut go = String::from("go");
        if let Some(t) = limit.movetime {
            go.push_str(&format!(" movetime {}", t.as_millis().max(1)));
        }
        if let Some(n) = limit.nodes {
            go.push_str(&format!(" nodes {n}"));
        }
        if !moves.is_empty() {
            go.push_str(" searchmoves ");
            go.push_str(&moves.join(" "));
        }
        self.send(&go)?;
        let mut result = ChildSearch::default();
        let mut stop_sent: Option<Instant> = None;
        loop {
            let now = Instant::now();
            if stop_sent.is_none() && (stop.load(Ordering::Relaxed) || limit.stop_at.is_some_and(|t| now >= t)) {
                self.send("stop")?;
                stop_sent = Some(now);
            }
            let give_up = match (limit.deadline, stop_sent) {
                (Some(d), Some(s)) => Some(d.min(s + STOP_GRACE)),
                (d, s) => d.or(s.map(|s| s + STOP_GRACE)),
            };
            if give_up.is_some_and(|d| now >= d) {
                if stop_sent.is_none() {
                    self.send("stop")?;
                }
                self.owes_bestmove = true;
                return Ok(result);
            }
            let mut wake = now + POLL;
            for t in [give_up, limit.stop_at.filter(|_| stop_sent.is_none())].into_iter().flatten() {
                wake = wake.min(t);
            }
            let line = match self.io.recv(wake) {
                Ok(line) => line,
                Err(IoFailure::Timeout) => continue,
                Err(failure) => return Err(ChildError::Io { waiting_for: "bestmove", failure }),
            };
            let mut words = line.split_whitespace();
            match words.next() {
                Some("bestmove") => {
                    result.best = words.next().filter(|m| !["(none)", "0000"].contains(m)).map(str::to_string);
                    return Ok(result);
                }
                Some("info") => {
                    if let Some((mv, score)) = parse_info(&line) {
                        match result.scores.iter_mut().find(|(m, _)| *m == mv) {
                            Some(entry) => entry.1 = score,
                            None => result.scores.push((mv, score)),
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Waits by `deadline` for the `bestmove` of a search given up earlier, then skips whatever
    /// else is waiting.
    fn settle(&mut self, deadline: Instant) -> Result<(), ChildError> {
        while self.owes_bestmove {
            let line = self.io.recv(deadline).map_err(io_error("a late bestmove"))?;
            self.owes_bestmove = !line.starts_with("bestmove");
        }
        while self.io.try_recv().map_err(io_error("bestmove"))?.is_some() {}
        Ok(())
    }

    /// Sends `uci` and records the declared options until `uciok`.
    fn uci(&mut self, deadline: Instant) -> Result<(), ChildError> {
        self.send("uci")?;
        self.declared.clear();
        loop {
            let line = self.io.recv(deadline).map_err(io_error("uciok"))?;
            if line.trim() == "uciok" {
                return Ok(());
            }
            if let Some(declared) = parse_option(&line) {
                self.declared.push(declared);
            }
        }
    }

    /// Sends `isready` and waits for `readyok`, skipping other lines.
    fn sync(&mut self, deadline: Instant) -> Result<(), ChildError> {
        self.send("isready")?;
        while self.io.recv(deadline).map_err(io_error("readyok"))?.trim() != "readyok" {}
        Ok(())
    }

    fn declared(&self, name: &str) -> Option<&Declared> {
        self.declared.iter().find(|d| d.name.eq_ignore_ascii_case(name))
    }

    fn declares(&self, name: &str) -> bool {
        self.declared(name).is_some()
    }

    fn setoption(&mut self, name: &str, value: &str) -> Result<(), ChildError> {
        self.send(&format!("setoption name {name} value {value}"))
    }

    fn send(&mut self, line: &str) -> Result<(), ChildError> {
        self.io.send(line).map_err(io_error("a line to be read"))
    }
}

fn io_error(waiting_for: &'static str) -> impl Fn(IoFailure) -> ChildError {
    move |failure| ChildError::Io { waiting_for, failure }
}

/// Reads `option name <name...> type <type> ... [var <v>]...`.
fn parse_option(line: &str) -> Option<Declared> {
    let rest = line.trim().strip_prefix("option name ")?;
    let (name, rest) = rest.split_once(" type ").unwrap_or((rest, ""));
    let vars = rest.split(" var ").skip(1).map(|v| v.trim().to_string()).collect();
    Some(Declared { name: name.trim().to_string(), vars })
}

/// The first move of the `pv` of an `info` line and its exact score (`cp` clamped to
/// [`MAX_CP`], `mate` as [`MATE_CP`] less the distance); `None` for bound scores.
pub fn parse_info(line: &str) -> Option<(String, i32)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = |key: &str| words.iter().position(|w| *w == key);
    let score = at("score")?;
    if words.iter().any(|w| *w == "lowerbound" || *w == "upperbound") {
        return None;
    }
    let value: i32 = words.get(score + 2)?.parse().ok()?;
    let score = match *words.get(score + 1)? {
        "cp" => value.clamp(-MAX_CP, MAX_CP),
        "mate" if value > 0 => MATE_CP - value.min(MATE_CP - MAX_CP),
        "mate" => -MATE_CP - value.max(MAX_CP - MATE_CP),
        _ => return None,
    };
    let mv = words.get(at("pv")? + 1)?;
    Some((mv.to_string(), score))
}
