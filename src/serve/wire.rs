//! The JSON of Mistboard's engine protocol, version "1" (its `packages/game/src/engine-protocol.ts`),
//! with Murk's extension for the two variants Mistboard defines no engine wire for (protocol.md,
//! section 12): what a request, an observation push and a stdio envelope hold, how `murk serve`
//! reads them and how `murk match` writes them for a Mistboard engine (one definition for both
//! directions). Top-level keys are camelCase, observation keys snake_case, as Mistboard writes
//! them; absent values are written as `null`, as Mistboard does. Unknown fields are ignored, as
//! the protocol asks of engines.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The only protocol version Murk speaks.
pub const PROTOCOL_VERSION: &str = "1";

/// A side, as the wire writes it (Crossroads' Red is `"black"`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WireColor {
    /// The first player.
    White,
    /// The second player (Black, or Red in Crossroads).
    Black,
}

/// A move: `{from, to, promotion?}`. Castling is the king onto its own rook's square (`e1h1`);
/// a drop (Murk's extension, Dark Crazyhouse) has `from: "*N"`, the letter of the dropped piece.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Deserialize, Serialize)]
pub struct WireMove {
    /// Origin square name, or `*` and a piece letter for a drop.
    pub from: String,
    /// Destination square name.
    pub to: String,
    /// `queen`, `rook`, `bishop` or `knight` for a promotion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promotion: Option<String>,
}

/// The engine's own clock.
#[derive(Clone, PartialEq, Debug, Deserialize, Serialize)]
pub struct WireClock {
    /// Milliseconds left, or `null` when the game is untimed.
    #[serde(serialize_with = "whole_or_null")]
    pub remaining_ms: Option<f64>,
    /// Milliseconds added after each of the engine's moves.
    #[serde(serialize_with = "whole")]
    pub increment_ms: f64,
}

/// Writes a whole number without a fraction (`60000`, not `60000.0`), as Mistboard's
/// JavaScript does; other numbers as they are.
fn whole<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        s.serialize_i64(*v as i64)
    } else {
        s.serialize_f64(*v)
    }
}

fn whole_or_null<S: serde::Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => whole(v, s),
        None => s.serialize_none(),
    }
}

/// A piece on a visible square.
#[derive(Clone, PartialEq, Eq, Debug, Deserialize, Serialize)]
pub struct WirePiece {
    /// Its letter: `P N B R Q K`, in Crossroads also `V C H O` (chariot, cannon, horse, soldier).
    #[serde(rename = "type")]
    pub letter: String,
    /// Its owner.
    pub color: WireColor,
    /// Murk's extension, Dark Crazyhouse: a promoted piece (it goes to the captor's hand as a pawn).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub promoted: bool,
}

/// The end of the game, as the last observation reports it.
#[derive(Clone, PartialEq, Eq, Debug, Deserialize, Serialize)]
pub struct WireGameOver {
    /// The winner, or `null` for a draw.
    pub winner: Option<WireColor>,
    /// Why it ended.
    pub reason: String,
}

/// What produced an observation.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ObsKind {
    /// The start of the game (ply 0).
    Initial,
    /// The engine's own move.
    OwnMove,
    /// The opponent's move (never named).
    OppMove,
    /// Murk's extension, Dark Crazyhouse: the engine's drop onto a fogged square bounced off a
    /// hidden piece; no ply passed and it is still the engine's turn.
    DropRejected,
}

/// One entry of the observation transcript, from the receiver's point of view.
#[derive(Clone, PartialEq, Eq, Debug, Deserialize, Serialize)]
pub struct WireObservation {
    /// Plies played after it (0 for `initial`; a `drop_rejected` entry keeps its turn's count).
    pub ply: u64,
    /// What produced it.
    pub kind: ObsKind,
    /// The engine's move, on `own_move` (and the bounced drop, on `drop_rejected`).
    #[serde(default)]
    pub own_move: Option<WireMove>,
    /// `"0x"` and hex digits: bit i is wire square i (a1 = 0, rank by rank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility_mask: Option<String>,
    /// Every identified piece on a visible square, own pieces included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible_pieces: Option<Vec<(u32, WirePiece)>>,
    /// Where one of the receiver's pieces was taken, on `opp_move`.
    #[serde(default)]
    pub own_capture_square: Option<u32>,
    /// A hint: a visible square where the mover's piece now stands.
    #[serde(default)]
    pub opp_capture_landing_square: Option<u32>,
    /// Visible squares seen as occupied by a color only (Crossroads silhouettes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shrouded: Option<Vec<(u32, WireColor)>>,
    /// The end of the game, on the last observation of a finished game.
    #[serde(default)]
    pub game_over: Option<WireGameOver>,
    /// Murk's extension, Dark Crazyhouse: the receiver's own hand after the ply, letter to count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_hand: Option<BTreeMap<String, u32>>,
}

/// `EngineTurnRequest`: the engine's turn, with everything it may know.
#[derive(Clone, PartialEq, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnRequest {
    /// Always `"1"`.
    pub protocol_version: String,
    /// Echoed in the response.
    pub game_id: String,
    /// Which engine identity is asked (Murk answers to any).
    pub engine_id: String,
    /// The game; absent for Dark Chess.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_spec_id: Option<String>,
    /// Stable over one seat of one game: the key of Murk's cached state.
    pub session_id: String,
    /// The engine's side.
    pub color: WireColor,
    /// The 0-based index of the ply about to be played.
    pub ply: u64,
    /// A per-turn seed (Murk uses it only to break ties of a fallback move).
    #[serde(serialize_with = "whole")]
    pub engine_seed: f64,
    /// The engine's own clock.
    pub clock: WireClock,
    /// The mover's complete fog-legal list; the answer is one of them.
    pub legal_moves: Vec<WireMove>,
    /// The whole history, first entry `initial` (exactly one of this and the delta).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observation_transcript: Option<Vec<WireObservation>>,
    /// Only the latest observation, for a session whose history Murk holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latest_observation_delta: Option<WireObservation>,
    /// Murk's extension: the game started from this FEN, known to both players (absent: the
    /// variant's start position, as on Mistboard).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_fen: Option<String>,
}

/// `EngineObservationPush`: the engine's own-move observation, right after its move.
#[derive(Clone, PartialEq, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservationPush {
    /// Always `"1"`.
    pub protocol_version: String,
    /// Echoed in the acknowledgement.
    pub game_id: String,
    /// The game; absent for Dark Chess.
    #[serde(default)]
    pub game_spec_id: Option<String>,
    /// The seat's session.
    pub session_id: String,
    /// The engine's side.
    pub color: WireColor,
    /// Plies played after the move.
    pub ply: u64,
    /// The observation (`kind: "own_move"`).
    pub observation: WireObservation,
}

/// `EngineTurnResponse`.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnResponse {
    /// Always `"1"`.
    pub protocol_version: String,
    /// The request's `gameId`.
    pub game_id: String,
    /// The request's `sessionId`.
    pub session_id: String,
    /// The move, one of the request's `legalMoves`.
    #[serde(rename = "move")]
    pub mv: WireMove,
    /// How the move was chosen, and any problem with the request.
    #[serde(default)]
    pub diagnostics: serde_json::Map<String, serde_json::Value>,
}

/// A line to a stdio worker: Mistboard's engine-pool envelope around one turn request.
#[derive(Clone, PartialEq, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkerRequest {
    /// Echoed in the answer.
    pub request_id: String,
    /// The turn.
    pub engine_turn_request: TurnRequest,
    /// The time the move is meant to take, in milliseconds.
    pub compute_budget_ms: u64,
    /// The watchdog: the answer is due before it, in milliseconds.
    pub worker_deadline_ms: u64,
}

/// A stdio worker's answer line: `{"requestId", "ok": true, "response"}` or `{"requestId",
/// "ok": false, "error", "code", "status"}`.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkerReply {
    /// The request's `requestId`.
    #[serde(default)]
    pub request_id: serde_json::Value,
    /// True when `response` holds an answer.
    pub ok: bool,
    /// The `EngineTurnResponse` (plus the pool's `engine`, `roomId`, `decisionSource`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<serde_json::Value>,
    /// `"<code>: <message>"` when not ok.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The error's code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The HTTP status the error would have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
}

/// `EngineObservationAck`.
#[derive(Clone, PartialEq, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservationAck {
    /// Always `"1"`.
    pub protocol_version: &'static str,
    /// The push's `gameId`.
    pub game_id: String,
    /// The push's `sessionId`.
    pub session_id: String,
    /// Always true.
    pub received: bool,
}

/// A request Murk cannot answer with a move: an HTTP status, a short code and what is wrong.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Problem {
    /// The HTTP status (4xx, or 5xx for Murk's own failures).
    pub status: u16,
    /// A stable code: `malformed_json`, `invalid_request`, ...
    pub code: &'static str,
    /// What is wrong, naming the field or the entry.
    pub message: String,
}

impl Problem {
    /// A problem with this status, code and message.
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> Problem {
        Problem { status, code, message: message.into() }
    }

    /// 400 `invalid_request`: a field is missing or has the wrong shape.
    pub fn invalid(message: impl Into<String>) -> Problem {
        Problem::new(400, "invalid_request", message)
    }

    /// The JSON body of the error response: `{"error": code, "message": ...}` (Mistboard's
    /// engine worker answers errors as `{"error": ...}` too).
    pub fn body(&self) -> serde_json::Value {
        serde_json::json!({ "error": self.code, "message": self.message })
    }
}

/// Reads a JSON document: its syntax first (`malformed_json`), then that it is an object whose
/// `protocolVersion` is "1" (`unsupported_protocol_version`).
pub fn parse_document(bytes: &[u8]) -> Result<serde_json::Value, Problem> {
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| Problem::new(400, "malformed_json", format!("the body is not valid JSON: {e}")))?;
    check_version(&value)?;
    Ok(value)
}

/// Checks that `value` is an object with `protocolVersion: "1"`.
pub fn check_version(value: &serde_json::Value) -> Result<(), Problem> {
    let object = value.as_object().ok_or_else(|| Problem::invalid("the request is not a JSON object"))?;
    match object.get("protocolVersion") {
        None => Err(Problem::invalid("missing field `protocolVersion`")),
        Some(serde_json::Value::String(v)) if v == PROTOCOL_VERSION => Ok(()),
        Some(other) => Err(Problem::new(
            400,
            "unsupported_protocol_version",
            format!("protocolVersion {other} is not supported (Murk speaks \"{PROTOCOL_VERSION}\")"),
        )),
    }
}

/// Reads a typed document from a checked JSON value, naming the path of a bad or missing field.
pub fn from_value<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, Problem> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." || path.is_empty() {
            Problem::invalid(inner.to_string())
        } else {
            Problem::invalid(format!("{path}: {inner}"))
        }
    })
}

/// Reads an `EngineTurnRequest` from a JSON value whose version was checked.
pub fn turn_request(value: serde_json::Value) -> Result<TurnRequest, Problem> {
    let request: TurnRequest = from_value(value)?;
    match (&request.observation_transcript, &request.latest_observation_delta) {
        (Some(_), None) | (None, Some(_)) => Ok(request),
        _ => {
            Err(Problem::invalid("exactly one of `observationTranscript` and `latestObservationDelta` must be present"))
        }
    }
}
