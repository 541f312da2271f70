//! Answering one turn request: a move from its `legalMoves` within its time.
//!
//! Each turn runs on a worker thread of its own, holding its session's lock (so requests of one
//! session run in order and different sessions in parallel); the caller waits until the
//! answer's deadline at most, and past it answers a move chosen from the request alone
//! ([`fallback`](super::fallback)) while the worker is told to stop and finishes in the
//! background.

use super::decode::{check_move_shape, clip, color, describe, move_from_wire, move_to_wire, variant_of_spec};
use super::fallback::fallback_answer;
use super::session::GameState;
use super::sync::SyncError;
use super::timing::{Timing, TurnBudget};
use super::wire::{Problem, TurnRequest, TurnResponse, WireMove, WireObservation, PROTOCOL_VERSION};
use super::TurnService;
use crate::core::hash::mix64;
use crate::core::{Color, Move, Variant};
use crate::search::{Limits, SearchInfo};
use serde_json::{json, Map, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, PoisonError};
use std::time::Instant;

/// How a turn's work ended.
enum Work {
    /// The search chose this move.
    Moved(WireMove, Map<String, Value>),
    /// A move can still be given, but not by the search: the problem, and diagnostics so far.
    Degraded(&'static str, String, Map<String, Value>),
    /// No move can be given.
    Refused(Problem),
}

impl TurnService {
    /// Answers a turn request: a move from its `legalMoves` within its time, or why none can
    /// be given.
    pub fn turn(self: &Arc<Self>, request: TurnRequest, timing: Timing) -> Result<TurnResponse, Problem> {
        let variant = check_request(&request)?;
        let budget = TurnBudget::new(&timing, &request.clock, self.config.move_overhead_ms);
        let request = Arc::new(request);
        let (mv, mut diag) = match self.work_in_time(&request, variant, budget) {
            Work::Refused(problem) => return Err(problem),
            Work::Moved(mv, diag) => {
                self.searched.fetch_add(1, Ordering::Relaxed);
                (mv, diag)
            }
            Work::Degraded(code, message, diag) => {
                self.fallbacks.fetch_add(1, Ordering::Relaxed);
                fallback_answer(&request, variant, code, message, diag)
            }
        };
        diag.insert("engine".into(), json!(crate::protocol::ENGINE_NAME));
        diag.insert("player".into(), json!(self.config.player.to_ascii_lowercase()));
        diag.insert("budgetMs".into(), json!(budget.budget_ms));
        diag.insert("elapsedMs".into(), json!(budget.received.elapsed().as_millis() as u64));
        Ok(TurnResponse {
            protocol_version: PROTOCOL_VERSION.to_string(),
            game_id: request.game_id.clone(),
            session_id: request.session_id.clone(),
            mv,
            diagnostics: diag,
        })
    }

    /// Runs the turn's [`work`](TurnService::work) on a worker thread of its own and waits for it
    /// until the answer is due; past that, tells the worker to stop and leaves it to finish in
    /// the background.
    fn work_in_time(self: &Arc<Self>, request: &Arc<TurnRequest>, variant: Variant, budget: TurnBudget) -> Work {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = channel();
        let (engine, req, flag) = (Arc::clone(self), Arc::clone(request), Arc::clone(&stop));
        let spawned = std::thread::Builder::new().name("murk-serve-turn".into()).spawn(move || {
            let work = catch_unwind(AssertUnwindSafe(|| engine.work(&req, variant, &budget, &flag)));
            let _ = tx.send(work.unwrap_or_else(|_| {
                engine.forget(&req.session_id);
                Work::Degraded("internal_error", "the engine failed on this request".into(), Map::new())
            }));
        });
        match spawned {
            Err(e) => Work::Degraded("internal_error", format!("no thread for the search: {e}"), Map::new()),
            Ok(_) => match rx.recv_timeout(budget.answer_by.saturating_duration_since(Instant::now())) {
                Ok(work) => work,
                Err(RecvTimeoutError::Timeout) => {
                    stop.store(true, Ordering::Relaxed);
                    let mut diag = Map::new();
                    diag.insert("source".into(), json!("deadline-fallback"));
                    Work::Degraded("late", "the search was not done before the deadline".into(), diag)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    Work::Degraded("internal_error", "the search thread ended without an answer".into(), Map::new())
                }
            },
        }
    }

    /// A turn's work, on its worker thread: bring the session up to date, check the offered
    /// moves, search.
    fn work(&self, request: &TurnRequest, variant: Variant, budget: &TurnBudget, stop: &AtomicBool) -> Work {
        self.turns.fetch_add(1, Ordering::Relaxed);
        let side = color(request.color);
        let slot = self.slot(&request.session_id, true).expect("created");
        let mut guard = slot.lock().unwrap_or_else(PoisonError::into_inner);
        let mut diag = Map::new();
        let cache = match self.sync(&mut guard, request, variant, side) {
            Ok(label) => label,
            Err(SyncError::Refused(p)) => return Work::Refused(p),
            Err(SyncError::Contradiction(message)) => return Work::Degraded("contradictory_transcript", message, diag),
        };
        diag.insert("cache".into(), json!(cache));
        if stop.load(Ordering::Relaxed) {
            // The answer was already given (it waited for this session past its deadline); the
            // state is up to date for the next request, the search would be thrown away.
            return Work::Degraded("late", "the deadline passed before the search began".into(), diag);
        }
        let Some(state) = guard.as_mut() else {
            return Work::Degraded("internal_error", "no session state".into(), diag);
        };
        if let Err(message) = our_turn(state, request) {
            return Work::Degraded("contradictory_transcript", message, diag);
        }
        let ours: Vec<Move> = state.info.legal_moves().to_vec();
        let searchmoves = match common_moves(request, variant, side, &ours) {
            Ok((moves, None)) => moves,
            Ok((moves, Some(message))) => {
                diag.insert("error".into(), json!({ "code": "legal_moves_mismatch", "message": message }));
                moves
            }
            Err(message) => return Work::Degraded("legal_moves_mismatch", message, diag),
        };
        let limits = budget.limits(side, self.config.move_overhead_ms, self.config.nodes, searchmoves);
        let Some((best, last)) = self.search(state, variant, side, &limits, stop) else {
            return Work::Degraded("internal_error", "the search failed".into(), diag);
        };
        note_report(&mut diag, last);
        // Each of our moves in the form the request offers it (castling also as `e1g1`).
        let offered = |m: Move| request.legal_moves.iter().find(|o| move_from_wire(variant, side, &[m], o).is_some());
        match best.filter(|m| ours.contains(m)).and_then(offered).cloned() {
            Some(mv) => {
                diag.insert("source".into(), json!("search"));
                Work::Moved(mv, diag)
            }
            None => Work::Degraded("search_failed", "the search gave no move among legalMoves".into(), diag),
        }
    }

    /// Searches the session's state with `limits` (with the game's searcher, or a fresh one for
    /// the simple players): the move chosen and the last of the search's reports folded
    /// together; `None` if the search failed (the game's searcher is then dropped).
    fn search(
        &self,
        state: &mut GameState,
        variant: Variant,
        side: Color,
        limits: &Limits,
        stop: &AtomicBool,
    ) -> Option<(Option<Move>, SearchInfo)> {
        let mut searcher = match state.searcher.take() {
            Some(s) if !self.simple_player => s,
            _ => self.make_searcher(variant, side, mix64(state.seed ^ state.info.plies() as u64)),
        };
        let mut last = SearchInfo::default();
        let info = &state.info;
        let result = catch_unwind(AssertUnwindSafe(|| {
            searcher.search(info, limits, stop, &mut |report: SearchInfo| {
                last.nodes = report.nodes.or(last.nodes);
                last.score_cp = report.score_cp.or(last.score_cp);
                if report.string.is_some() {
                    last.string = report.string;
                }
            })
        }));
        let best = result.ok()?;
        if !self.simple_player {
            state.searcher = Some(searcher);
        }
        Some((best, last))
    }
}

/// Notes the search's last report in the diagnostics: its nodes, score and `info string`.
fn note_report(diag: &mut Map<String, Value>, last: SearchInfo) {
    if let Some(nodes) = last.nodes {
        diag.insert("nodes".into(), json!(nodes));
    }
    if let Some(cp) = last.score_cp {
        diag.insert("scoreCp".into(), json!(cp));
    }
    if let Some(text) = last.string {
        diag.insert("info".into(), json!(text));
    }
}

/// The request's game, once its `legalMoves` are checked to be well-formed and not empty and
/// its latest observation not to end the game.
fn check_request(request: &TurnRequest) -> Result<Variant, Problem> {
    let variant = variant_of_spec(request.game_spec_id.as_deref())?;
    for (i, m) in request.legal_moves.iter().enumerate() {
        check_move_shape(variant, m).map_err(|e| Problem::invalid(format!("legalMoves[{i}]: {e}")))?;
    }
    if let Some(over) = last_observation(request).and_then(|o| o.game_over.as_ref()) {
        return Err(Problem::new(
            409,
            "game_over",
            format!("the game is over ({}); no move is asked after the last observation", clip(&over.reason)),
        ));
    }
    if request.legal_moves.is_empty() {
        return Err(Problem::new(422, "no_legal_moves", "legalMoves is empty: there is no move to choose"));
    }
    Ok(variant)
}

/// The request's latest observation.
pub(super) fn last_observation(request: &TurnRequest) -> Option<&WireObservation> {
    request.latest_observation_delta.as_ref().or_else(|| request.observation_transcript.as_ref()?.last())
}

/// Checks that after the transcript it is our turn, at the request's ply.
fn our_turn(state: &GameState, request: &TurnRequest) -> Result<(), String> {
    if !state.info.is_our_turn() {
        return Err("after the transcript it is not our turn (its last entry is our own move)".to_string());
    }
    if request.ply != state.info.plies() as u64 {
        return Err(format!("ply is {} but the transcript has {} plies", request.ply, state.info.plies()));
    }
    Ok(())
}

/// The moves the search may choose among, when the request's `legalMoves` and `ours` (the legal
/// moves from our view) disagree: those both hold, with a message naming the difference (none
/// and no message when they agree: all of ours); an error with the message when they hold none
/// in common.
fn common_moves(
    request: &TurnRequest,
    variant: Variant,
    side: Color,
    ours: &[Move],
) -> Result<(Vec<Move>, Option<String>), String> {
    let offered = |m: Move| request.legal_moves.iter().any(|o| move_from_wire(variant, side, &[m], o).is_some());
    let missing: Vec<String> =
        ours.iter().filter(|&&m| !offered(m)).map(|&m| describe(&move_to_wire(variant, side, m))).collect();
    let extra: Vec<String> =
        request.legal_moves.iter().filter(|o| move_from_wire(variant, side, ours, o).is_none()).map(describe).collect();
    if missing.is_empty() && extra.is_empty() {
        return Ok((Vec::new(), None));
    }
    let message = format!(
        "legalMoves disagrees with the transcript: offered but not legal from our view: [{}]; legal but not offered: [{}]",
        list(&extra),
        list(&missing)
    );
    let common: Vec<Move> = ours.iter().copied().filter(|&m| offered(m)).collect();
    if common.is_empty() {
        return Err(message);
    }
    Ok((common, Some(message)))
}

/// Up to 12 moves, and how many more, for messages.
fn list(moves: &[String]) -> String {
    let shown: Vec<&str> = moves.iter().take(12).map(String::as_str).collect();
    let more = if moves.len() > 12 { format!(" and {} more", moves.len() - 12) } else { String::new() };
    format!("{}{more}", shown.join(" "))
}
