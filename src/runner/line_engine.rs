//! One line-protocol engine as the runner holds it: its channel, its name, the options it
//! declared, and a log of every line exchanged (what the game record keeps). The UCI handshake
//! and the lines of a game (protocol.md sections 3-8) live here.

use super::clock::Clocks;
use super::contestant::{AskError, Contestant, GameStart, Wire};
use super::record::Forfeit;
use super::spec::EngineSpec;
use crate::core::{Color, Square, Variant};
use crate::process::{EngineIo, IoFailure};
use crate::rules::Position;
use crate::view::Observation;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Which way a line went, seen from the engine.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    /// A line the engine received.
    In,
    /// A line the engine wrote.
    Out,
}

/// One logged line.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Msg {
    /// Received (`in`) or written (`out`) by the engine.
    pub dir: Dir,
    /// The line, without its newline.
    pub line: String,
    /// Milliseconds since the game began (for handshake lines: since the process started).
    pub t_ms: u64,
}

/// Why an engine could not be started.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The program could not be run.
    #[error("cannot run '{program}': {reason}")]
    Spawn {
        /// The program.
        program: String,
        /// The operating system's reason (in the message, not a separate cause, so that an error
        /// chain printed in full names it once).
        reason: std::io::Error,
    },
    /// The engine did not complete the handshake.
    #[error("no '{expected}' from the engine during the handshake: {failure}")]
    Handshake {
        /// The reply that was awaited.
        expected: &'static str,
        /// Why it did not come.
        failure: IoFailure,
    },
    /// The engine's `UCI_Variant` option does not offer the game.
    #[error("the engine does not play {variant}: its UCI_Variant option offers only {}", offered.join(", "))]
    Variant {
        /// The game of the match.
        variant: &'static str,
        /// The values its `UCI_Variant` combo declared.
        offered: Vec<String>,
    },
    /// A Mistboard engine answered its first request with an error naming the game.
    #[error("the engine does not play {variant}: it answered {answer}")]
    Refused {
        /// The game of the match.
        variant: &'static str,
        /// Its answer.
        answer: String,
    },
    /// A Mistboard engine's first answer is not a move.
    #[error("the engine's first answer is not a move: {0}")]
    FirstAnswer(String),
}

impl StartError {
    /// The channel failure behind the error (a failed spawn counts as closed).
    pub fn failure(&self) -> IoFailure {
        match self {
            StartError::Spawn { .. }
            | StartError::Variant { .. }
            | StartError::Refused { .. }
            | StartError::FirstAnswer(_) => IoFailure::Closed,
            StartError::Handshake { failure, .. } => *failure,
        }
    }
}

/// What an engine is told before its first game.
#[derive(Clone, Debug)]
pub struct EngineInit {
    /// The game, sent as `UCI_Variant`.
    pub variant: Variant,
    /// `setoption` pairs, in order.
    pub options: Vec<(String, String)>,
    /// The name to use instead of the engine's `id name`.
    pub name: Option<String>,
    /// The name when the engine gives none.
    pub fallback_name: String,
    /// How long to wait for `uciok` and `readyok`.
    pub stall: Duration,
}

impl EngineInit {
    /// The init for `spec` in `variant`.
    pub fn from_spec(spec: &EngineSpec, variant: Variant, stall: Duration) -> EngineInit {
        EngineInit {
            variant,
            options: spec.options.clone(),
            // Built-ins all answer `id name Murk ...`: they are told apart by their kind.
            name: spec.name.clone().or_else(|| spec.builtin.clone()),
            fallback_name: spec.fallback_name(),
            stall,
        }
    }
}

/// A started engine that has completed the handshake.
pub struct EngineHandle {
    name: String,
    io: Box<dyn EngineIo>,
    declared: Vec<String>,
    log: Vec<Msg>,
    epoch: Instant,
}

impl EngineHandle {
    /// Runs the program of `spec` and completes the handshake.
    pub fn launch(spec: &EngineSpec, init: &EngineInit) -> Result<EngineHandle, StartError> {
        let process =
            spec.spawn().map_err(|reason| StartError::Spawn { program: spec.program.display().to_string(), reason })?;
        EngineHandle::start(Box::new(process), init)
    }

    /// Completes the handshake over `io`: `uci` ... `uciok`, the options, `isready` ... `readyok`.
    pub fn start(io: Box<dyn EngineIo>, init: &EngineInit) -> Result<EngineHandle, StartError> {
        let mut handle = EngineHandle {
            name: init.fallback_name.clone(),
            io,
            declared: Vec::new(),
            log: Vec::new(),
            epoch: Instant::now(),
        };
        let fail = |expected| move |failure| StartError::Handshake { expected, failure };
        handle.send("uci").map_err(fail("uciok"))?;
        let deadline = Instant::now() + init.stall;
        let mut variants: Option<Vec<String>> = None;
        loop {
            let line = handle.recv(deadline).map_err(fail("uciok"))?;
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (Some("uciok"), _) => break,
                (Some("id"), Some("name")) => handle.name = words.collect::<Vec<_>>().join(" "),
                (Some("option"), Some("name")) => {
                    let name: Vec<&str> = words.by_ref().take_while(|&w| w != "type").collect();
                    let name = name.join(" ").to_ascii_lowercase();
                    if name == "uci_variant" {
                        variants = Some(combo_values(words));
                    }
                    handle.declared.push(name);
                }
                _ => {}
            }
        }
        if let Some(offered) = variants.filter(|vars| !vars.is_empty()) {
            if !offered.iter().any(|v| v.eq_ignore_ascii_case(init.variant.name())) {
                return Err(StartError::Variant { variant: init.variant.name(), offered });
            }
        }
        if let Some(name) = &init.name {
            handle.name = name.clone();
        }
        if handle.name.is_empty() {
            handle.name = init.fallback_name.clone();
        }
        handle.setoption("UCI_Variant", init.variant.name()).map_err(fail("uciok"))?;
        for (name, value) in &init.options {
            handle.setoption(name, value).map_err(fail("uciok"))?;
        }
        handle.sync(Instant::now() + init.stall).map_err(fail("readyok"))?;
        Ok(handle)
    }

    /// Error reports (`info string error ...`) the engine has written since its log was last
    /// taken, e.g. an option value it refused during the handshake.
    pub fn errors(&self) -> Vec<String> {
        self.log
            .iter()
            .filter(|m| m.dir == Dir::Out && m.line.starts_with("info string error"))
            .map(|m| m.line.clone())
            .collect()
    }

    /// The engine's display name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// True if the engine declared the option `name` (case-insensitive) during the handshake.
    pub fn declares(&self, name: &str) -> bool {
        self.declared.iter().any(|d| d.eq_ignore_ascii_case(name))
    }

    /// Sends `setoption name <name> value <value>`.
    pub fn setoption(&mut self, name: &str, value: &str) -> Result<(), IoFailure> {
        self.send(&format!("setoption name {name} value {value}"))
    }

    /// Sends a line and logs it.
    pub fn send(&mut self, line: &str) -> Result<(), IoFailure> {
        self.push(Dir::In, line);
        self.io.send(line)
    }

    /// Receives a line before `deadline` and logs it. A flood of output cannot outlast the deadline.
    pub fn recv(&mut self, deadline: Instant) -> Result<String, IoFailure> {
        if Instant::now() >= deadline {
            return match self.io.try_recv()? {
                Some(line) => Ok(self.logged(line)),
                None => Err(IoFailure::Timeout),
            };
        }
        let line = self.io.recv(deadline)?;
        Ok(self.logged(line))
    }

    /// Logs (and discards) every line already waiting.
    pub fn drain(&mut self) -> Result<(), IoFailure> {
        while let Some(line) = self.io.try_recv()? {
            self.logged(line);
        }
        Ok(())
    }

    /// Sends `isready` and waits for `readyok`, skipping other lines.
    pub fn sync(&mut self, deadline: Instant) -> Result<(), IoFailure> {
        self.send("isready")?;
        while self.recv(deadline)?.trim() != "readyok" {}
        Ok(())
    }

    fn logged(&mut self, line: String) -> String {
        self.push(Dir::Out, &line);
        line
    }

    fn push(&mut self, dir: Dir, line: &str) {
        let t_ms = self.epoch.elapsed().as_millis() as u64;
        self.log.push(Msg { dir, line: line.to_string(), t_ms });
    }
}

impl Contestant for EngineHandle {
    fn name(&self) -> &str {
        &self.name
    }

    fn wire(&self) -> Wire {
        Wire::Lines
    }

    fn warnings(&self) -> Vec<String> {
        self.errors()
    }

    fn begin_game(&mut self) {
        self.epoch = Instant::now();
    }

    /// `setoption name Seed` (if declared), `ucinewgame`, `position`, `side`, the start view,
    /// then `isready` until `readyok`.
    fn start_game(&mut self, game: &GameStart) -> Result<Option<u64>, IoFailure> {
        let position = if *game.start == Position::start(game.start.variant()) {
            "position startpos".to_string()
        } else {
            format!("position fen {}", game.start.to_fen())
        };
        let seed = self.declares("Seed").then_some(game.seed);
        if let Some(seed) = seed {
            self.setoption("Seed", &seed.to_string())?;
        }
        self.send("ucinewgame")?;
        self.send(&position)?;
        self.send(&format!("side {}", game.side.name()))?;
        self.send(&format!("observe {} start", Observation::initial(game.start, game.side).to_args()))?;
        self.sync(Instant::now() + game.stall)?;
        Ok(seed)
    }

    /// Sends `go` with the clocks and waits for `bestmove`, skipping other lines.
    fn ask(&mut self, clocks: &Clocks, side: Color, deadline: Instant) -> Result<String, AskError> {
        self.drain().map_err(AskError::Io)?;
        self.send(&clocks.go_command(side)).map_err(AskError::Io)?;
        loop {
            let line = self.recv(deadline).map_err(AskError::Io)?;
            let mut words = line.split_whitespace();
            if words.next() != Some("bestmove") {
                continue;
            }
            return words
                .next()
                .map(str::to_string)
                .ok_or_else(|| AskError::Reply(Forfeit::MalformedReply, "bare 'bestmove'".into()));
        }
    }

    fn bounce(&mut self, square: Square) -> Result<(), IoFailure> {
        self.send(&format!("bounce {square}"))
    }

    fn observe(&mut self, obs: &Observation, _landing: Option<Square>) -> Result<(), IoFailure> {
        self.send(&format!("observe {}", obs.to_args()))
    }

    /// Sends `stop` and reads the `bestmove` (ignored: the game is over).
    fn stop(&mut self, grace: Duration) -> bool {
        if self.send("stop").is_err() {
            return false;
        }
        let deadline = Instant::now() + grace;
        while let Ok(line) = self.recv(deadline) {
            if line.split_whitespace().next() == Some("bestmove") {
                return true;
            }
        }
        false
    }

    fn end_game(&mut self, result: &str, termination: &str) {
        let _ = self.send(&format!("gameover {result} {termination}"));
        let _ = self.drain();
    }

    fn take_log(&mut self) -> Vec<Msg> {
        std::mem::take(&mut self.log)
    }

    fn alive(&mut self) -> bool {
        self.io.alive()
    }

    /// Sends `quit`, waits up to `grace`, then makes sure the engine is gone.
    fn shutdown(mut self: Box<Self>, grace: Duration) {
        self.io.shutdown(grace);
    }
}

/// The `var` values of an `option ... type combo ...` line, read after its `type` word.
fn combo_values<'a>(mut words: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut values = Vec::new();
    while let Some(word) = words.next() {
        if word == "var" {
            if let Some(value) = words.next() {
                values.push(value.to_string());
            }
        }
    }
    values
}
