//! The leak audit of a game record: replays the true moves and checks, message by message, that
//! each engine received only what protocol.md allows. Every `observe` must equal what the
//! engine's view after that ply gives, and every square it shows must be one the engine could
//! see, with its true content; `position`, `side`, `go`, `bounce` and `gameover` must say only
//! what they may; nothing else about the game may be sent at all. A Mistboard engine's requests
//! are checked the same way.

use super::contestant::Wire;
use super::line_engine::{Dir, Msg};
use super::mistboard::{probe_request, PROBE_GAME_ID};
use super::record::GameRecord;
use crate::core::{Bitboard, Color, Move, Role, Square, Variant};
use crate::rules::vision;
use crate::rules::{Game, Played, PlyReport, Position};
use crate::serve::decode::{move_to_wire, spec_of_variant, wire_color};
use crate::serve::encode::{drop_rejected, landing_square, observation, Source};
use crate::serve::wire::{self, WireMove, WireObservation};
use crate::view::{Observation, SquareView, View};
use serde_json::Value;

/// A line an engine should not have received.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {game}, {side}'s engine received '{line}': {problem}")]
pub struct AuditError {
    /// The game number.
    pub game: usize,
    /// The engine's color.
    pub side: &'static str,
    /// The offending line.
    pub line: String,
    /// What is wrong with it.
    pub problem: String,
}

/// What an audit checked.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct AuditCounts {
    /// `observe` lines checked.
    pub observes: usize,
    /// `bounce` lines checked.
    pub bounces: usize,
    /// Mistboard turn requests checked (each with its whole transcript).
    pub requests: usize,
    /// Lines received in all.
    pub lines: usize,
}

/// The true game of a record, replayed.
struct Truth {
    variant: Variant,
    start: Position,
    /// The position after each ply, the start first.
    positions: Vec<Position>,
    /// Per ply, the `observe` line each side should receive (White first).
    observes: Vec<[String; 2]>,
    /// Per ply, what the rules reported.
    reports: Vec<PlyReport>,
}

fn replay(rec: &GameRecord) -> Result<Truth, String> {
    let variant: Variant = rec.variant.parse().map_err(|e| format!("{e}"))?;
    let start = Position::from_fen(variant, &rec.start_fen).map_err(|e| format!("start FEN: {e}"))?;
    let mut game = Game::new(start.clone());
    let mut truth =
        Truth { variant, start: start.clone(), positions: vec![start], observes: Vec::new(), reports: Vec::new() };
    for text in &rec.moves {
        let mv = Move::parse(text, variant).map_err(|e| e.to_string())?;
        let Ok(Played::Moved(report)) = game.play(mv) else { return Err(format!("recorded move {text} is not legal")) };
        let after = game.position().clone();
        truth.observes.push(
            Color::ALL.map(|side| format!("observe {}", Observation::after_ply(&after, &report, side).to_args())),
        );
        truth.positions.push(after);
        truth.reports.push(report);
    }
    Ok(truth)
}

/// Audits every line each engine received in `rec`.
pub fn audit_record(rec: &GameRecord) -> Result<AuditCounts, AuditError> {
    let truth = replay(rec).map_err(|problem| AuditError {
        game: rec.game,
        side: "either",
        line: String::new(),
        problem: format!("the record does not replay: {problem}"),
    })?;
    let mut counts = AuditCounts::default();
    for side in Color::ALL {
        match rec.wire[side.index()] {
            Wire::Lines => audit_side(rec, &truth, side, &mut counts)?,
            Wire::Mistboard => audit_requests(rec, &truth, side, &mut counts)?,
        }
    }
    Ok(counts)
}

fn audit_side(rec: &GameRecord, truth: &Truth, side: Color, counts: &mut AuditCounts) -> Result<(), AuditError> {
    let fail =
        |line: &str, problem: String| AuditError { game: rec.game, side: side.name(), line: line.to_string(), problem };
    let mut plies = 0;
    let mut last_bestmove: Option<String> = None;
    let mut over = false;
    for msg in rec.lines_of(side) {
        if msg.dir == Dir::Out {
            let mut words = msg.line.split_whitespace();
            if words.next() == Some("bestmove") {
                last_bestmove = words.next().map(str::to_string);
            }
            continue;
        }
        counts.lines += 1;
        let line = msg.line.as_str();
        if over {
            return Err(fail(line, "sent after gameover".into()));
        }
        let (word, args) = line.split_once(' ').unwrap_or((line, ""));
        let checked = match word {
            "uci" | "isready" | "ucinewgame" | "quit" | "stop" if args.is_empty() => Ok(()),
            "setoption" if args.starts_with("name ") => Ok(()),
            "position" => check_position(truth, args),
            "side" if args == side.name() => Ok(()),
            "go" => check_go(truth, plies, side, args),
            "observe" if args.ends_with(" start") => check_start_view(truth, plies, side, args),
            "observe" => {
                let r = check_observe(truth, plies, side, line);
                plies += 1;
                counts.observes += 1;
                r
            }
            "bounce" => {
                counts.bounces += 1;
                check_bounce(truth, plies, side, args, last_bestmove.as_deref())
            }
            "gameover" => {
                over = true;
                let expected = format!("{} {}", rec.result, rec.termination);
                if args == expected {
                    Ok(())
                } else {
                    Err(format!("expected 'gameover {expected}'"))
                }
            }
            _ => Err("not a message the runner may send".to_string()),
        };
        checked.map_err(|problem| fail(line, problem))?;
    }
    if plies != rec.moves.len() {
        return Err(fail("", format!("received {plies} observe lines for {} plies", rec.moves.len())));
    }
    Ok(())
}

fn check_position(truth: &Truth, args: &str) -> Result<(), String> {
    let ok = match args.split_once(' ') {
        None => args == "startpos" && truth.start == Position::start(truth.variant),
        Some(("fen", fen)) => Position::from_fen(truth.variant, fen).is_ok_and(|p| p == truth.start),
        _ => false,
    };
    ok.then_some(()).ok_or_else(|| format!("the start position is {}", truth.start.to_fen()))
}

fn check_go(truth: &Truth, plies: usize, side: Color, args: &str) -> Result<(), String> {
    let pos = truth.positions.get(plies).ok_or("go after the last ply")?;
    if pos.turn() != side {
        return Err("go while it is not this engine's turn".into());
    }
    let words: Vec<&str> = args.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            "infinite" => i += 1,
            "wtime" | "btime" | "winc" | "binc" | "movestogo" | "movetime" | "nodes" | "depth"
                if words.get(i + 1).is_some_and(|v| v.parse::<u64>().is_ok()) =>
            {
                i += 2
            }
            other => return Err(format!("'{other}' has no place in go")),
        }
    }
    Ok(())
}

fn check_start_view(truth: &Truth, plies: usize, side: Color, args: &str) -> Result<(), String> {
    let expected = format!("{} start", Observation::initial(&truth.start, side).to_args());
    match (plies, args == expected) {
        (0, true) => Ok(()),
        (0, false) => Err(format!("the start view is '{expected}'")),
        _ => Err("a start view after the first ply".into()),
    }
}

fn check_observe(truth: &Truth, plies: usize, side: Color, line: &str) -> Result<(), String> {
    let expected = truth.observes.get(plies).ok_or("more observe lines than plies")?;
    let pos = &truth.positions[plies + 1];
    let obs = Observation::parse_args(truth.variant, side, &line["observe ".len()..]).map_err(|e| e.to_string())?;
    check_only_visible(pos, side, &obs)
        .map_err(|sq| format!("square {sq} is shown but not visible, or shown wrong"))?;
    if line != expected[side.index()] {
        return Err(format!("after ply {} the view gives '{}'", plies + 1, expected[side.index()]));
    }
    if obs.view.hand() != pos.hand(side) {
        return Err("the hand shown is not the engine's own".into());
    }
    if let Some((sq, role)) = obs.captured {
        let before = &truth.positions[plies];
        if before.piece_at(sq).is_none_or(|p| p.color != side || p.role != role) {
            return Err(format!("no piece of this engine was captured on {sq}"));
        }
    }
    Ok(())
}

/// Checks that every square `obs` shows is visible to `side` in `pos` and shown as it truly is.
fn check_only_visible(pos: &Position, side: Color, obs: &Observation) -> Result<(), Square> {
    let (seen, silhouettes) = vision(pos, side);
    let board = pos.variant().board_mask();
    for sq in Square::all().filter(|&s| board.contains(s)) {
        let ok = match obs.view.square(sq) {
            SquareView::Fog => true,
            SquareView::Empty => seen.contains(sq) && pos.piece_at(sq).is_none(),
            SquareView::Piece(p, promoted) => {
                seen.contains(sq) && pos.piece_at(sq) == Some(p) && pos.promoted().contains(sq) == promoted
            }
            SquareView::Silhouette(c) => {
                silhouettes.contains(sq) && !seen.contains(sq) && pos.piece_at(sq).is_some_and(|p| p.color == c)
            }
        };
        if !ok {
            return Err(sq);
        }
    }
    Ok(())
}

fn check_bounce(truth: &Truth, plies: usize, side: Color, args: &str, bestmove: Option<&str>) -> Result<(), String> {
    let pos = truth.positions.get(plies).ok_or("bounce after the last ply")?;
    let sq = Square::parse(args).ok_or("not a square")?;
    let drop = bestmove.and_then(|m| Move::parse(m, truth.variant).ok());
    if pos.turn() != side || !drop.is_some_and(|m| m.is_drop() && m.to == sq) {
        return Err("does not answer this engine's drop".into());
    }
    let (seen, silhouettes) = vision(pos, side);
    if pos.piece_at(sq).is_none() || seen.contains(sq) || silhouettes.contains(sq) {
        return Err("the square is not an occupied fogged square".into());
    }
    Ok(())
}

/// The top-level fields a turn request may carry, and an observation's.
const REQUEST_FIELDS: [&str; 12] = [
    "protocolVersion",
    "gameId",
    "engineId",
    "gameSpecId",
    "sessionId",
    "color",
    "ply",
    "engineSeed",
    "clock",
    "legalMoves",
    "observationTranscript",
    "startFen",
];
const OBSERVATION_FIELDS: [&str; 10] = [
    "ply",
    "kind",
    "own_move",
    "visibility_mask",
    "visible_pieces",
    "own_capture_square",
    "opp_capture_landing_square",
    "shrouded",
    "game_over",
    "own_hand",
];

/// Audits a Mistboard engine's requests: each (stdio envelope or HTTP body) holds only the
/// fields of the protocol; the probe before a game is exactly [`probe_request`]; every other
/// request is for this game and side, at the ply the game is at, with the side's own clock,
/// `legalMoves` equal to the moves the side may choose (the true moves; drops onto every square
/// it does not see occupied but those that bounced this turn), and a transcript equal, entry by
/// entry, to the side's views of the true positions (own moves, the captures of its pieces, the
/// landing hints and bounced drops included), each shown square being one the side sees.
fn audit_requests(rec: &GameRecord, truth: &Truth, side: Color, counts: &mut AuditCounts) -> Result<(), AuditError> {
    let fail = |msg: &Msg, problem: String| AuditError {
        game: rec.game,
        side: side.name(),
        line: clip_line(&msg.line),
        problem,
    };
    let mut game_id: Option<String> = None;
    let plies = rec.plies.len();
    let parts = std::iter::once((0, rec.setup.of(side)))
        .chain(rec.plies.iter().enumerate().map(|(i, p)| (i, p.lines.of(side))))
        .chain(std::iter::once((plies, rec.end.of(side))));
    for (ply, msgs) in parts {
        // The moves answered so far this turn: each asked again bounced.
        let mut answered: Vec<WireMove> = Vec::new();
        for msg in msgs {
            if msg.dir == Dir::Out {
                answered.extend(answered_move(&msg.line));
                continue;
            }
            counts.lines += 1;
            let request = request_of(&msg.line).map_err(|p| fail(msg, p))?;
            if request.get("gameId").and_then(Value::as_str) == Some(PROBE_GAME_ID) {
                let expected = serde_json::to_value(probe_request(truth.variant)).unwrap_or(Value::Null);
                if request != expected {
                    return Err(fail(msg, format!("a probe must be exactly {expected}")));
                }
                continue;
            }
            counts.requests += 1;
            check_request(rec, truth, side, (ply, &answered), &request, &mut game_id).map_err(|p| fail(msg, p))?;
        }
    }
    Ok(())
}

/// The turn request a logged message carries: a stdio envelope's `engineTurnRequest` (the
/// envelope holding nothing else but its id, budget and deadline) or an HTTP body.
fn request_of(line: &str) -> Result<Value, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let object = value.as_object().ok_or("not a JSON object")?;
    let Some(inner) = object.get("engineTurnRequest") else { return Ok(value) };
    let envelope = ["requestId", "engineTurnRequest", "computeBudgetMs", "workerDeadlineMs"];
    if let Some(key) = object.keys().find(|k| !envelope.contains(&k.as_str())) {
        return Err(format!("the envelope carries '{key}'"));
    }
    Ok(inner.clone())
}

/// The move of a logged answer (a worker's reply or an HTTP response), if it holds one.
fn answered_move(line: &str) -> Option<WireMove> {
    let value: Value = serde_json::from_str(line).ok()?;
    let response = value.get("response").unwrap_or(&value);
    serde_json::from_value(response.get("move")?.clone()).ok()
}

/// Checks the request made at `ply` after the drops in `bounced` bounced this turn.
fn check_request(
    rec: &GameRecord,
    truth: &Truth,
    side: Color,
    (ply, bounced): (usize, &[WireMove]),
    request: &Value,
    game_id: &mut Option<String>,
) -> Result<(), String> {
    let object = request.as_object().ok_or("the request is not an object")?;
    if let Some(key) = object.keys().find(|k| !REQUEST_FIELDS.contains(&k.as_str())) {
        return Err(format!("the request carries '{key}'"));
    }
    let req = wire::turn_request(request.clone()).map_err(|p| p.message)?;
    let pos = truth.positions.get(ply).ok_or("a request after the last ply")?;
    let id = game_id.get_or_insert_with(|| req.game_id.clone());
    if req.game_id != *id || req.session_id != format!("{id}-{}", side.name()) {
        return Err("gameId or sessionId changed within the game".into());
    }
    if req.color != wire_color(side) || pos.turn() != side || req.ply != ply as u64 {
        return Err(format!("not this side's turn at ply {ply}"));
    }
    if req.game_spec_id.as_deref() != spec_of_variant(truth.variant) {
        return Err("gameSpecId is not the game's".into());
    }
    let standard = truth.start == Position::start(truth.variant);
    let start_ok = match &req.start_fen {
        None => standard,
        Some(fen) => !standard && Position::from_fen(truth.variant, fen).is_ok_and(|p| p == truth.start),
    };
    if !start_ok {
        return Err(format!("startFen does not give the start position {}", truth.start.to_fen()));
    }
    let own_clock = ply.checked_sub(1).and_then(|p| rec.plies[p].clock_ms).map(|c| c[side.index()] as f64);
    if ply > 0 && req.clock.remaining_ms != own_clock {
        return Err(format!("clock.remaining_ms is not this side's clock ({own_clock:?})"));
    }
    let transcript = req.observation_transcript.as_deref().ok_or("no observationTranscript")?;
    for (i, entry) in request["observationTranscript"].as_array().into_iter().flatten().enumerate() {
        let keys = entry.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
        if let Some(key) = keys.iter().find(|k| !OBSERVATION_FIELDS.contains(&k.as_str())) {
            return Err(format!("observationTranscript[{i}] carries '{key}'"));
        }
    }
    let expected = expected_transcript(rec, truth, side, ply, bounced)?;
    let bounced = bounced_squares(&expected);
    if transcript.len() != expected.len() {
        return Err(format!("the transcript has {} entries, the side's history {}", transcript.len(), expected.len()));
    }
    for (i, (got, want)) in transcript.iter().zip(&expected).enumerate() {
        if got != want {
            return Err(format!("observationTranscript[{i}] is not the side's observation"));
        }
    }
    let mut got: Vec<WireMove> = req.legal_moves.clone();
    let mut want = fog_legal_moves(pos, side, bounced);
    let key = |m: &WireMove| (m.from.clone(), m.to.clone(), m.promotion.clone());
    got.sort_by_key(key);
    want.sort_by_key(key);
    if got != want {
        return Err("legalMoves are not the moves this side may choose".into());
    }
    Ok(())
}

/// The transcript `side` should have been sent when asked at `ply` after the drops `bounced`
/// bounced this turn: its views of the true positions, with its own moves, the captures of its
/// pieces, the landing hints, and the drops that bounced (the record keeps them with each move;
/// those of this turn must be drops onto squares the side does not see that are occupied).
fn expected_transcript(
    rec: &GameRecord,
    truth: &Truth,
    side: Color,
    ply: usize,
    bounced: &[WireMove],
) -> Result<Vec<WireObservation>, String> {
    let variant = truth.variant;
    let bounce_entries = |at: usize| -> Result<Vec<WireObservation>, String> {
        let texts = rec.plies.get(at).map(|p| p.bounces.as_slice()).unwrap_or(&[]);
        texts
            .iter()
            .map(|t| {
                let m = Move::parse(t, variant).map_err(|e| e.to_string())?;
                Ok(drop_rejected(at, move_to_wire(variant, side, m)))
            })
            .collect()
    };
    let mut entries = vec![observation(&View::of(&truth.start, side), 0, Source::Initial)];
    for (i, report) in truth.reports.iter().take(ply).enumerate() {
        let before = &truth.positions[i];
        let obs = Observation::after_ply(&truth.positions[i + 1], report, side);
        let source = if before.turn() == side {
            entries.extend(bounce_entries(i)?);
            Source::Own(report.mv)
        } else {
            Source::Opponent { captured: obs.captured.map(|(sq, _)| sq), landing: landing_square(&obs.view, report.mv) }
        };
        check_only_visible(&truth.positions[i + 1], side, &obs).map_err(|sq| format!("square {sq} is not visible"))?;
        entries.push(observation(&obs.view, i + 1, source));
    }
    let pos = &truth.positions[ply];
    let (seen, silhouettes) = vision(pos, side);
    for drop in bounced {
        let square =
            Square::parse(&drop.to).filter(|&sq| pos.piece_at(sq).is_some() && !(seen | silhouettes).contains(sq));
        if !drop.from.starts_with('*') || square.is_none() {
            return Err(format!("asked again after {}{}, which did not bounce", drop.from, drop.to));
        }
        entries.push(drop_rejected(ply, drop.clone()));
    }
    Ok(entries)
}

/// The squares of the drop_rejected entries at the end of a transcript (this turn's bounces).
fn bounced_squares(transcript: &[WireObservation]) -> Bitboard {
    transcript
        .iter()
        .rev()
        .take_while(|o| o.kind == wire::ObsKind::DropRejected)
        .filter_map(|o| o.own_move.as_ref().and_then(|m| Square::parse(&m.to)))
        .fold(Bitboard::EMPTY, |acc, sq| acc | Bitboard::from_square(sq))
}

/// The moves `side` may choose in the true position `pos`, as Mistboard lists them: its board
/// moves, and drops onto every square it does not see occupied (a fogged square may hold a
/// hidden piece), pawns not onto the first and last ranks, but the squares in `bounced`.
fn fog_legal_moves(pos: &Position, side: Color, bounced: Bitboard) -> Vec<WireMove> {
    let variant = pos.variant();
    let mut moves: Vec<Move> = pos.moves().iter().copied().filter(|m| !m.is_drop()).collect();
    if variant.has_hands() {
        let (seen, silhouettes) = vision(pos, side);
        let free = variant.board_mask() & !((seen | silhouettes) & pos.occupied()) & !bounced;
        for role in Role::HAND.into_iter().filter(|&r| pos.hand(side).count(r) > 0) {
            let pawn_rank = |sq: Square| role == Role::Pawn && (sq.rank() == 0 || sq.rank() == 7);
            moves.extend(free.into_iter().filter(|&sq| !pawn_rank(sq)).map(|sq| Move::drop(role, sq)));
        }
    }
    moves.into_iter().map(|m| move_to_wire(variant, side, m)).collect()
}

/// At most 300 characters of a logged message, for an error.
fn clip_line(line: &str) -> String {
    let mut s: String = line.chars().take(300).collect();
    if line.chars().count() > 300 {
        s.push_str("...");
    }
    s
}
