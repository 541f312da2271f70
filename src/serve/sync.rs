//! Bringing a session's information state up to a request's transcript, its latest delta, or an
//! observation push.
//!
//! A request carries the whole transcript. When it extends the transcript the session's state
//! was built from, only the new observations are applied (the searcher's belief then updates
//! incrementally, as under the line protocol); otherwise the state is rebuilt from the start.

use super::decode::{color, decode_view, describe, move_from_wire, square_of_index, variant_of_spec};
use super::session::GameState;
use super::wire::{
    ObsKind, ObservationAck, ObservationPush, Problem, TurnRequest, WireMove, WireObservation, PROTOCOL_VERSION,
};
use super::TurnService;
use crate::core::hash::{fnv1a, mix64};
use crate::core::{Color, MoveKind, Role, Square, Variant};
use crate::rules::{Castling, Position};
use crate::view::{InfoState, Observation, SquareView, View};

/// Why a transcript could not be brought in.
pub(super) enum SyncError {
    /// The request cannot be answered at all.
    Refused(Problem),
    /// The transcript contradicts itself or the rules: a move can still be given, not searched.
    Contradiction(String),
}

impl TurnService {
    /// Brings the session's state up to the request's transcript (or delta); the label says
    /// how: `new`, `hit` (nothing new), `extended` (new entries applied), `rebuilt` (replayed
    /// from the start), `delta`.
    pub(super) fn sync(
        &self,
        state: &mut Option<GameState>,
        request: &TurnRequest,
        variant: Variant,
        side: Color,
    ) -> Result<&'static str, SyncError> {
        let same_game = |s: &GameState| s.variant == variant && s.side == side && s.start_fen == request.start_fen;
        if let Some(delta) = &request.latest_observation_delta {
            let Some(s) = state.as_mut().filter(|s| same_game(s)) else {
                return Err(SyncError::Refused(no_state("no history is held for this session")));
            };
            return apply_delta(s, delta, &request.legal_moves);
        }
        let transcript = request.observation_transcript.as_deref().unwrap_or(&[]);
        if transcript.is_empty() {
            return Err(SyncError::Refused(Problem::invalid(
                "observationTranscript is empty (its first entry is `initial`)",
            )));
        }
        let reuse = state.as_ref().is_some_and(|s| {
            same_game(s) && transcript.len() >= s.applied.len() && transcript[..s.applied.len()] == s.applied[..]
        });
        let label = match (reuse, state.as_ref().map(|s| s.applied.len())) {
            (true, Some(n)) if n == transcript.len() => "hit",
            (true, _) => "extended",
            (false, Some(_)) => "rebuilt",
            (false, None) => "new",
        };
        if !reuse {
            // The old state goes first (its searcher's memory with it), and stays gone when the
            // transcript's start is refused.
            *state = None;
            *state = Some(self.start_game(request, &transcript[0], variant, side)?);
        }
        let s = state.as_mut().expect("set above");
        for i in s.applied.len()..transcript.len() {
            let hint = next_own_moves(transcript, i).unwrap_or(&request.legal_moves);
            apply_entry(s, &transcript[i], hint)
                .map_err(|e| SyncError::Contradiction(format!("observationTranscript[{i}]: {e}")))?;
            s.applied.push(transcript[i].clone());
        }
        Ok(label)
    }

    /// A session's state at the start of the request's game, once `initial` (the transcript's
    /// first entry) is checked to be `side`'s view of the start position.
    fn start_game(
        &self,
        request: &TurnRequest,
        initial: &WireObservation,
        variant: Variant,
        side: Color,
    ) -> Result<GameState, SyncError> {
        let start = match &request.start_fen {
            None => Position::start(variant),
            Some(fen) => Position::from_fen(variant, fen)
                .map_err(|e| SyncError::Refused(Problem::invalid(format!("startFen: {e}"))))?,
        };
        let at = |e: String| SyncError::Contradiction(format!("observationTranscript[0]: {e}"));
        if initial.kind != ObsKind::Initial || initial.ply != 0 {
            return Err(at("the first entry must be `initial` at ply 0".into()));
        }
        let expected = View::of(&start, side);
        let view = decode_view(variant, side, initial, start.turn() == side, &|_, _| expected.ep_square().is_some())
            .map_err(at)?;
        if view != expected {
            return Err(at(format!(
                "it is not {}'s view of the start position (expected {}, got {})",
                side.name(),
                expected.to_text(),
                view.to_text()
            )));
        }
        let seed = mix64(self.config.seed ^ fnv1a(request.game_id.as_bytes()) ^ (side.index() as u64 + 1));
        let searcher = (!self.simple_player).then(|| self.make_searcher(variant, side, seed));
        Ok(GameState {
            variant,
            side,
            start_fen: request.start_fen.clone(),
            seed,
            applied: vec![initial.clone()],
            info: InfoState::new(start, side),
            searcher,
        })
    }

    /// Acknowledges an observation push; an own-move observation that continues a held session
    /// is applied at once (deduplicated by ply), and a final one (with `game_over`) ends the
    /// session.
    pub fn observe(&self, push: ObservationPush) -> Result<ObservationAck, Problem> {
        let variant = variant_of_spec(push.game_spec_id.as_deref())?;
        let side = color(push.color);
        let ack = ObservationAck {
            protocol_version: PROTOCOL_VERSION,
            game_id: push.game_id.clone(),
            session_id: push.session_id.clone(),
            received: true,
        };
        let obs = &push.observation;
        if obs.game_over.is_some() {
            self.forget(&push.session_id);
            return Ok(ack);
        }
        let Some(slot) = self.slot(&push.session_id, false) else { return Ok(ack) };
        let Ok(mut guard) = slot.try_lock() else { return Ok(ack) };
        if let Some(s) = guard.as_mut() {
            let follows = s.variant == variant
                && s.side == side
                && obs.kind == ObsKind::OwnMove
                && obs.ply == s.info.plies() as u64 + 1
                && s.applied.last() != Some(obs);
            if follows && apply_entry(s, obs, &[]).is_ok() {
                s.applied.push(obs.clone());
            }
        }
        Ok(ack)
    }
}

/// Applies the request's `latestObservationDelta` to the held state of the same game: `hit`
/// when it is the entry applied last, `delta` when it follows it.
fn apply_delta(s: &mut GameState, delta: &WireObservation, legal: &[WireMove]) -> Result<&'static str, SyncError> {
    if s.applied.last() == Some(delta) {
        return Ok("hit");
    }
    let next = s.info.plies() as u64 + u64::from(delta.kind != ObsKind::DropRejected);
    if delta.ply != next || delta.kind == ObsKind::Initial {
        let why = format!("the delta (ply {}) does not follow the held history (ply {})", delta.ply, s.info.plies());
        return Err(SyncError::Refused(no_state(&why)));
    }
    apply_entry(s, delta, legal).map_err(|e| SyncError::Contradiction(format!("latestObservationDelta: {e}")))?;
    s.applied.push(delta.clone());
    Ok("delta")
}

/// The own moves recorded right after entry `i` (bounced drops, then the move played): what
/// decides an en-passant chance the mask leaves open. `None` for the last entry.
fn next_own_moves(transcript: &[WireObservation], i: usize) -> Option<&[WireMove]> {
    if i + 1 >= transcript.len() {
        return None;
    }
    let next = &transcript[i + 1];
    Some(match (&next.kind, &next.own_move) {
        (ObsKind::OwnMove, Some(m)) => std::slice::from_ref(m),
        _ => &[],
    })
}

fn no_state(why: &str) -> Problem {
    Problem::new(409, "no_session_state", format!("{why}: send the whole observationTranscript"))
}

/// Applies one transcript entry after those already applied; `hint` holds moves known to be
/// legal right after it (see [`decode_view`]). On error the state is as before, but for a
/// pending move the next own move replaces.
fn apply_entry(s: &mut GameState, obs: &WireObservation, hint: &[WireMove]) -> Result<(), String> {
    let plies = s.info.plies() as u64;
    if obs.game_over.is_some() {
        return Err("game_over on an observation that is not the last".into());
    }
    match obs.kind {
        ObsKind::Initial => Err("an `initial` entry after the first".into()),
        ObsKind::OwnMove | ObsKind::OppMove if obs.ply != plies + 1 => {
            Err(format!("ply {} does not follow ply {plies}", obs.ply))
        }
        ObsKind::OwnMove => apply_own_move(s, obs),
        ObsKind::OppMove => apply_opp_move(s, obs, hint),
        ObsKind::DropRejected => apply_drop_rejected(s, obs),
    }
}

/// Applies an `own_move` entry: our move, then the view after it.
fn apply_own_move(s: &mut GameState, obs: &WireObservation) -> Result<(), String> {
    let (variant, side) = (s.variant, s.side);
    let info = &mut s.info;
    if !info.is_our_turn() {
        return Err(format!("own_move at ply {}, but the opponent was to move", obs.ply));
    }
    let wanted = obs.own_move.as_ref().ok_or("missing field `own_move`")?;
    let legal = info.legal_moves();
    let mv = move_from_wire(variant, side, &legal, wanted)
        .ok_or_else(|| format!("own_move {} is not legal from our view", describe(wanted)))?;
    if let Some(index) = obs.own_capture_square {
        // Mistboard reports the rook's home square after castling (a square its own piece left
        // other than the move's origin); anything else is a contradiction.
        let rook_home =
            (mv.kind == MoveKind::Castle).then(|| Castling::rook_square(side, mv.to.file() > mv.from.file()));
        if square_of_index(variant, index).is_none() || square_of_index(variant, index) != rook_home {
            return Err(format!("own_capture_square {index} after our own move"));
        }
    }
    let took_king = matches!(info.view().square(mv.to), SquareView::Piece(p, _) if p.role == Role::King);
    let king_arrives = info.view().pieces(side, Role::King).contains(mv.from)
        && !mv.is_drop()
        && side.relative_rank(mv.to.rank()) == 7;
    let view = decode_view(variant, side, obs, false, &|_, _| false)?;
    let try_armed = variant.has_try() && king_arrives && !took_king;
    info.send_move(mv).map_err(|e| e.to_string())?;
    info.observe(Observation { view, captured: None, try_armed }).map_err(|e| e.to_string())
}

/// Applies an `opp_move` entry: the view after the opponent's move, with the piece of ours it
/// captured.
fn apply_opp_move(s: &mut GameState, obs: &WireObservation, hint: &[WireMove]) -> Result<(), String> {
    let (variant, side) = (s.variant, s.side);
    let info = &mut s.info;
    if info.is_our_turn() {
        return Err(format!("opp_move at ply {}, but we were to move", obs.ply));
    }
    if obs.own_move.is_some() {
        return Err("own_move on an opp_move entry".into());
    }
    let captured = match obs.own_capture_square {
        None => None,
        Some(index) => {
            let sq = square_of_index(variant, index)
                .ok_or_else(|| format!("own_capture_square {index} is off the board"))?;
            match info.view().square(sq) {
                SquareView::Piece(p, _) if p.color == side => Some((sq, p.role)),
                _ => return Err(format!("own_capture_square {index} ({sq}) did not hold one of our pieces")),
            }
        }
    };
    let takes = |from: Square, to: Square| hint.iter().any(|m| m.from == from.to_string() && m.to == to.to_string());
    let view = decode_view(variant, side, obs, true, &takes)?;
    if let Some(index) = obs.opp_capture_landing_square {
        let enemy_there = square_of_index(variant, index)
            .is_some_and(|sq| matches!(view.square(sq), SquareView::Piece(p, _) if p.color != side));
        if !enemy_there {
            return Err(format!("opp_capture_landing_square {index} does not show an enemy piece"));
        }
    }
    info.observe(Observation { view, captured, try_armed: false }).map_err(|e| e.to_string())
}

/// Applies a `drop_rejected` entry: our drop in our turn, bounced off an occupied square.
fn apply_drop_rejected(s: &mut GameState, obs: &WireObservation) -> Result<(), String> {
    let (variant, side) = (s.variant, s.side);
    let info = &mut s.info;
    let plies = info.plies() as u64;
    if !variant.has_hands() {
        return Err(format!("drop_rejected in {variant}, which has no drops"));
    }
    if !info.is_our_turn() || obs.ply != plies {
        return Err(format!(
            "drop_rejected at ply {}: only our own drop in our turn (ply {plies}) can bounce",
            obs.ply
        ));
    }
    let wanted = obs.own_move.as_ref().ok_or("missing field `own_move` (the drop that bounced)")?;
    let legal = info.legal_moves();
    let mv = move_from_wire(variant, side, &legal, wanted)
        .filter(|m| m.is_drop())
        .ok_or_else(|| format!("{} is not a drop we could make", describe(wanted)))?;
    info.send_move(mv).map_err(|e| e.to_string())?;
    info.bounce(mv.to).map_err(|e| e.to_string())
}
