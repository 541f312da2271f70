//! A Mistboard engine in `murk match` and `murk tournament`: an engine that answers Mistboard's
//! engine protocol (one `EngineTurnRequest` per turn, protocol.md section 12), as a stdio worker
//! (one envelope per line) or over HTTP (`POST <url>/internal/engine/turn`).
//!
//! Each request is built from the engine's own side of the game only: its information state
//! (the start, its own moves, the observations and bounces it was sent) gives the transcript and
//! `legalMoves`, its clock the `clock` and the budget. The wire is `serve::wire`'s, the same
//! definition `murk serve` reads. An answer that is not one of `legalMoves`, that does not parse,
//! that says `ok: false`, that comes late, or a worker that dies, is the same forfeit as for a
//! line-protocol engine. Before the first game the engine answers one request for the variant's
//! start position (a probe, `gameId` [`PROBE_GAME_ID`]): an engine that cannot play the game
//! says so there and is refused.

use super::clock::Clocks;
use super::contestant::{AskError, Contestant, GameStart, Wire};
use super::line_engine::{Dir, EngineInit, Msg, StartError};
use super::record::Forfeit;
use super::spec::{EngineSpec, Protocol};
use crate::core::hash::derive_seed;
use crate::core::{Color, Move, Square, Variant};
use crate::process::{EngineIo, IoFailure, Process};
use crate::rules::Position;
use crate::serve::decode::{describe, move_from_wire, move_to_wire, spec_of_variant, wire_color};
use crate::serve::encode::{drop_rejected, observation, Source};
use crate::serve::wire::{
    from_value, ObsKind, TurnRequest, TurnResponse, WireClock, WireObservation, WorkerReply, WorkerRequest,
    PROTOCOL_VERSION,
};
use crate::view::{InfoState, Observation};
use std::time::{Duration, Instant};

/// The `gameId` (and `engineId`) of the probe request sent before the first game.
pub const PROBE_GAME_ID: &str = "murk-probe";

/// The budget of the probe request, in milliseconds.
pub const PROBE_BUDGET_MS: u64 = 100;

/// How requests reach the engine.
enum Transport {
    /// A worker process: one envelope per line on its stdin, one answer per line on its stdout.
    Stdio(Process),
    /// An HTTP engine.
    Http {
        /// The client.
        agent: ureq::Agent,
        /// `<url>/internal/engine/turn`.
        turn_url: String,
        /// The bearer token, if one is needed.
        token: Option<String>,
    },
}

/// The engine's seat in the game being played.
struct Seat {
    game_id: String,
    side: Color,
    seed: u64,
    start_fen: Option<String>,
    info: InfoState,
    transcript: Vec<WireObservation>,
}

/// A Mistboard engine as the referee drives it.
pub struct MistboardEngine {
    name: String,
    variant: Variant,
    transport: Transport,
    log: Vec<Msg>,
    epoch: Instant,
    requests: u64,
    /// The stdio request whose answer did not come in time (its answer is skipped when it comes).
    unanswered: Option<String>,
    seat: Option<Seat>,
}

impl MistboardEngine {
    /// Starts the worker (or reaches the HTTP engine) of `spec` and sends the probe: the first
    /// request of a game of `init.variant` from its start. An error answer naming the game (or
    /// coded `unsupported_game`) refuses the engine; any other answer but a legal move too.
    pub fn launch(spec: &EngineSpec, init: &EngineInit) -> Result<MistboardEngine, StartError> {
        let transport = match &spec.protocol {
            Protocol::MistboardHttp { url } => {
                let token = match &spec.token_file {
                    Some(path) => Some(crate::serve::read_token(path).map_err(|e| StartError::Spawn {
                        program: url.clone(),
                        reason: std::io::Error::other(format!("{e:#}")),
                    })?),
                    None => None,
                };
                let agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
                Transport::Http { agent, turn_url: format!("{url}/internal/engine/turn"), token }
            }
            _ => Transport::Stdio(
                spec.spawn()
                    .map_err(|reason| StartError::Spawn { program: spec.program.display().to_string(), reason })?,
            ),
        };
        let mut engine = MistboardEngine {
            name: init.name.clone().unwrap_or_else(|| init.fallback_name.clone()),
            variant: init.variant,
            transport,
            log: Vec::new(),
            epoch: Instant::now(),
            requests: 0,
            unanswered: None,
            seat: None,
        };
        let start = Position::start(init.variant);
        let request = probe_request(init.variant);
        let legal = InfoState::new(start, Color::White).legal_moves().to_vec();
        let answer = engine.exchange(&request, PROBE_BUDGET_MS, Instant::now() + init.stall);
        let variant = init.variant.name();
        match answer {
            Ok(response) if move_from_wire(init.variant, Color::White, &legal, &response.mv).is_some() => {
                if init.name.is_none() {
                    if let Some(name) = response.diagnostics.get("engine").and_then(|v| v.as_str()) {
                        engine.name = name.to_string();
                    }
                }
                Ok(engine)
            }
            Ok(response) => Err(StartError::FirstAnswer(format!("{}, not one of legalMoves", describe(&response.mv)))),
            Err(AskError::Io(failure)) => {
                Err(StartError::Handshake { expected: "an answer to the first request", failure })
            }
            Err(AskError::Reply(_, why)) if why.contains("unsupported_game") || why.contains(variant) => {
                Err(StartError::Refused { variant, answer: why })
            }
            Err(AskError::Reply(_, why)) => Err(StartError::FirstAnswer(why)),
        }
    }

    /// Sends one turn request and reads its answer, due before `deadline`.
    fn exchange(&mut self, request: &TurnRequest, budget_ms: u64, deadline: Instant) -> Result<TurnResponse, AskError> {
        self.requests += 1;
        let watchdog_ms = deadline.saturating_duration_since(Instant::now()).as_millis().max(1) as u64;
        let request_id = format!("r{}", self.requests);
        let malformed = |why: String| AskError::Reply(Forfeit::MalformedReply, why);
        match &mut self.transport {
            Transport::Stdio(_) => {
                let envelope = WorkerRequest {
                    request_id: request_id.clone(),
                    engine_turn_request: request.clone(),
                    compute_budget_ms: budget_ms,
                    worker_deadline_ms: watchdog_ms,
                };
                let line = serde_json::to_string(&envelope).expect("a request serializes");
                self.push(Dir::In, &line);
                self.stdio().send(&line).map_err(AskError::Io)?;
                let reply = loop {
                    let line = match self.stdio().recv(deadline) {
                        Ok(line) => line,
                        Err(failure) => {
                            self.unanswered = Some(request_id);
                            return Err(AskError::Io(failure));
                        }
                    };
                    self.push(Dir::Out, &line);
                    if line.trim().is_empty() {
                        continue;
                    }
                    let value: serde_json::Value = serde_json::from_str(&line)
                        .map_err(|e| malformed(format!("the answer line is not JSON: {e}")))?;
                    // Skipped: a ready line, or the late answer to an earlier request.
                    if answers(&value, &request_id) {
                        break serde_json::from_value::<WorkerReply>(value)
                            .map_err(|e| malformed(format!("the answer line is not a worker reply: {e}")))?;
                    }
                };
                if !reply.ok {
                    let error = reply.error.or(reply.code).unwrap_or_else(|| "no error given".into());
                    return Err(malformed(format!("answered ok: false ({error})")));
                }
                let response = reply.response.ok_or_else(|| malformed("ok: true without a response".into()))?;
                from_value(response).map_err(|p| malformed(format!("the response does not parse: {}", p.message)))
            }
            Transport::Http { agent, turn_url, token } => {
                let body = serde_json::to_string(request).expect("a request serializes");
                let mut post = agent
                    .post(turn_url.as_str())
                    .config()
                    .timeout_global(Some(Duration::from_millis(watchdog_ms)))
                    .build()
                    .header("content-type", "application/json")
                    .header("x-mistboard-engine-compute-budget-ms", budget_ms.to_string())
                    .header("x-mistboard-engine-timeout-ms", watchdog_ms.to_string());
                if let Some(token) = token {
                    post = post.header("authorization", format!("Bearer {token}"));
                }
                let sent = post.send(body.as_str());
                self.push(Dir::In, &body);
                let mut response = sent.map_err(|e| match e {
                    ureq::Error::Timeout(_) => AskError::Io(IoFailure::Timeout),
                    _ => AskError::Io(IoFailure::Closed),
                })?;
                let status = response.status().as_u16();
                let text = response.body_mut().read_to_string().map_err(|e| match e {
                    ureq::Error::Timeout(_) => AskError::Io(IoFailure::Timeout),
                    other => malformed(format!("the answer's body cannot be read: {other}")),
                })?;
                self.push(Dir::Out, &text);
                if status != 200 {
                    return Err(malformed(format!("answered HTTP {status}: {}", text.trim())));
                }
                let value: serde_json::Value =
                    serde_json::from_str(&text).map_err(|e| malformed(format!("the answer is not JSON: {e}")))?;
                from_value(value).map_err(|p| malformed(format!("the response does not parse: {}", p.message)))
            }
        }
    }

    fn stdio(&mut self) -> &mut Process {
        match &mut self.transport {
            Transport::Stdio(process) => process,
            Transport::Http { .. } => unreachable!("only called for a stdio worker"),
        }
    }

    fn push(&mut self, dir: Dir, line: &str) {
        let t_ms = self.epoch.elapsed().as_millis() as u64;
        self.log.push(Msg { dir, line: line.to_string(), t_ms });
    }
}

/// The probe: White's first turn in the variant's start position.
pub fn probe_request(variant: Variant) -> TurnRequest {
    let start = Position::start(variant);
    let info = InfoState::new(start, Color::White);
    TurnRequest {
        protocol_version: PROTOCOL_VERSION.to_string(),
        game_id: PROBE_GAME_ID.to_string(),
        engine_id: PROBE_GAME_ID.to_string(),
        game_spec_id: spec_of_variant(variant).map(str::to_string),
        session_id: format!("{PROBE_GAME_ID}-white"),
        color: wire_color(Color::White),
        ply: 0,
        engine_seed: 0.0,
        clock: WireClock { remaining_ms: None, increment_ms: 0.0 },
        legal_moves: info.legal_moves().iter().map(|&m| move_to_wire(variant, Color::White, m)).collect(),
        observation_transcript: Some(vec![observation(info.view(), 0, Source::Initial)]),
        latest_observation_delta: None,
        start_fen: None,
    }
}

/// True if a worker's answer line `value` answers the request `request_id`.
fn answers(value: &serde_json::Value, request_id: &str) -> bool {
    value.get("requestId").and_then(|id| id.as_str()) == Some(request_id)
}

/// The per-turn `engineSeed`: the game's seed mixed with the ply and the tries this turn.
fn engine_seed(seed: u64, ply: usize, tries: usize) -> f64 {
    // 53 bits: the seed must be exact as a JSON number.
    (derive_seed(seed, (ply * 64 + tries) as u64) >> 11) as f64
}

impl Contestant for MistboardEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn wire(&self) -> Wire {
        Wire::Mistboard
    }

    fn begin_game(&mut self) {
        self.epoch = Instant::now();
    }

    /// Mistboard has no message for a new game: the seat is set up here, and its first request
    /// starts the engine's session.
    fn start_game(&mut self, game: &GameStart) -> Result<Option<u64>, IoFailure> {
        if !self.alive() {
            return Err(IoFailure::Closed);
        }
        let info = InfoState::new(game.start.clone(), game.side);
        let transcript = vec![observation(info.view(), 0, Source::Initial)];
        let standard = *game.start == Position::start(game.start.variant());
        self.seat = Some(Seat {
            game_id: game.game_id.to_string(),
            side: game.side,
            seed: game.seed,
            start_fen: (!standard).then(|| game.start.to_fen()),
            info,
            transcript,
        });
        Ok(Some(game.seed))
    }

    fn ask(&mut self, clocks: &Clocks, side: Color, deadline: Instant) -> Result<String, AskError> {
        let variant = self.variant;
        let seat = self.seat.as_ref().ok_or(AskError::Io(IoFailure::Closed))?;
        let legal: Vec<Move> = seat.info.legal_moves().to_vec();
        let (remaining, increment) = clocks.own_clock(side);
        let bounces = seat.transcript.iter().rev().take_while(|o| o.kind == ObsKind::DropRejected);
        let request = TurnRequest {
            protocol_version: PROTOCOL_VERSION.to_string(),
            game_id: seat.game_id.clone(),
            engine_id: self.name.clone(),
            game_spec_id: spec_of_variant(variant).map(str::to_string),
            session_id: format!("{}-{}", seat.game_id, side.name()),
            color: wire_color(side),
            ply: seat.info.plies() as u64,
            engine_seed: engine_seed(seat.seed, seat.info.plies(), bounces.count()),
            clock: WireClock { remaining_ms: remaining.map(|ms| ms as f64), increment_ms: increment as f64 },
            legal_moves: legal.iter().map(|&m| move_to_wire(variant, side, m)).collect(),
            observation_transcript: Some(seat.transcript.clone()),
            latest_observation_delta: None,
            start_fen: seat.start_fen.clone(),
        };
        let response = self.exchange(&request, clocks.budget_ms(side), deadline)?;
        let Some(mv) = move_from_wire(variant, side, &legal, &response.mv) else {
            let why = format!("answered {}, which is not one of legalMoves", describe(&response.mv));
            return Err(AskError::Reply(Forfeit::IllegalMove, why));
        };
        let seat = self.seat.as_mut().expect("checked above");
        seat.info.send_move(mv).map_err(|e| AskError::Reply(Forfeit::IllegalMove, e.to_string()))?;
        Ok(mv.to_uci(variant))
    }

    fn bounce(&mut self, square: Square) -> Result<(), IoFailure> {
        let seat = self.seat.as_mut().ok_or(IoFailure::Closed)?;
        let drop = seat.info.pending_move().ok_or(IoFailure::Closed)?;
        seat.info.bounce(square).map_err(|_| IoFailure::Closed)?;
        seat.transcript.push(drop_rejected(seat.info.plies(), move_to_wire(self.variant, seat.side, drop)));
        Ok(())
    }

    fn observe(&mut self, obs: &Observation, landing: Option<Square>) -> Result<(), IoFailure> {
        let seat = self.seat.as_mut().ok_or(IoFailure::Closed)?;
        let source = match seat.info.pending_move() {
            Some(mv) if seat.info.is_our_turn() => Source::Own(mv),
            _ => Source::Opponent { captured: obs.captured.map(|(sq, _)| sq), landing },
        };
        // The referee's observations follow the rules, so the information state takes them.
        seat.info.observe(obs.clone()).map_err(|_| IoFailure::Closed)?;
        seat.transcript.push(observation(&obs.view, seat.info.plies(), source));
        Ok(())
    }

    /// Waits for the answer to the request that ran out of time (a worker that gives it is
    /// ready for the next game); an HTTP request was dropped at its deadline.
    fn stop(&mut self, grace: Duration) -> bool {
        let Some(request_id) = self.unanswered.take() else { return true };
        let deadline = Instant::now() + grace;
        while let Ok(line) = self.stdio().recv(deadline) {
            self.push(Dir::Out, &line);
            if serde_json::from_str(&line).is_ok_and(|v| answers(&v, &request_id)) {
                return true;
            }
        }
        false
    }

    fn end_game(&mut self, _result: &str, _termination: &str) {
        self.seat = None;
    }

    fn take_log(&mut self) -> Vec<Msg> {
        std::mem::take(&mut self.log)
    }

    fn alive(&mut self) -> bool {
        match &mut self.transport {
            Transport::Stdio(process) => process.alive(),
            Transport::Http { .. } => true,
        }
    }

    /// Closes a worker's input (it ends there), then makes sure it is gone.
    fn shutdown(mut self: Box<Self>, grace: Duration) {
        if let Transport::Stdio(process) = &mut self.transport {
            process.close(grace);
        }
    }
}

/// One line for a logged Mistboard message, for replays: a request's turn, budget, transcript
/// and moves offered; an answer's move and how it was chosen, or its error.
pub fn summarize(line: &str) -> String {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
        return line.chars().take(120).collect();
    };
    let field = |v: &serde_json::Value, key: &str| v.get(key).map(|x| x.to_string().trim_matches('"').to_string());
    if let Some(request) = value.get("engineTurnRequest").or_else(|| value.get("legalMoves").map(|_| &value)) {
        let transcript = request["observationTranscript"].as_array().map_or(&[][..], |t| t.as_slice());
        let latest = transcript.last().map_or(String::new(), |o| {
            let seen = o["visible_pieces"].as_array().map_or(0, |p| p.len());
            let taken =
                field(o, "own_capture_square").filter(|s| s != "null").map(|s| format!(", own piece taken on {s}"));
            format!(
                " (latest {}: {seen} pieces seen{})",
                field(o, "kind").unwrap_or_default(),
                taken.unwrap_or_default()
            )
        });
        let budget = field(&value, "computeBudgetMs").map(|b| format!(", budget {b} ms")).unwrap_or_default();
        return format!(
            "request {} ply {} ({}){budget}: {} observations{latest}, {} legal moves",
            field(request, "gameId").unwrap_or_default(),
            field(request, "ply").unwrap_or_default(),
            field(request, "color").unwrap_or_default(),
            transcript.len(),
            request["legalMoves"].as_array().map_or(0, |m| m.len()),
        );
    }
    if value["ok"] == false {
        return format!("error: {}", field(&value, "error").unwrap_or_default());
    }
    let response = value.get("response").unwrap_or(&value);
    match response.get("move") {
        Some(m) => {
            let promotion = field(m, "promotion").map(|p| format!("={p}")).unwrap_or_default();
            let diagnostics = &response["diagnostics"];
            let how = [
                field(diagnostics, "source").or_else(|| field(response, "decisionSource")),
                field(diagnostics, "elapsedMs").map(|e| format!("{e} ms")),
            ];
            let how: Vec<String> = how.into_iter().flatten().collect();
            let how = if how.is_empty() { String::new() } else { format!(" ({})", how.join(", ")) };
            format!(
                "answer {}{}{promotion}{how}",
                field(m, "from").unwrap_or_default(),
                field(m, "to").unwrap_or_default()
            )
        }
        None => value.to_string().chars().take(120).collect(),
    }
}
