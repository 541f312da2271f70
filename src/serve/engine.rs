//! The engine behind `murk serve`: one information state and searcher per `sessionId`, kept in a
//! cache bounded by the number of games (least recently used first) with each game's searcher
//! sized to its share of `--hash`, and the answer to one turn request within its time.
//!
//! A request carries the whole transcript. When it extends the transcript the session's state
//! was built from, only the new observations are applied (the searcher's belief then updates
//! incrementally, as under the line protocol); otherwise the state is rebuilt from the start. A
//! cache miss costs time, never correctness.
//!
//! Each turn runs on a worker thread of its own, holding its session's lock (so requests of one
//! session run in order and different sessions in parallel); the caller waits until the
//! answer's deadline at most, and past it answers a move chosen from the request alone while the
//! worker is told to stop and finishes in the background.

use super::decode::{
    check_move_shape, clip, color, decode_view, describe, fallback_move, move_from_wire, move_to_wire, square_of_index,
    variant_of_spec,
};
use super::wire::{
    ObsKind, ObservationAck, ObservationPush, Problem, TurnRequest, TurnResponse, WireClock, WireMove, WireObservation,
    PROTOCOL_VERSION,
};
use crate::core::hash::{fnv1a, mix64};
use crate::core::{Color, Move, MoveKind, Role, Variant};
use crate::engine::EngineOptions;
use crate::rules::{Castling, Position};
use crate::search::limits::clock_budget;
use crate::search::{Limits, SearchInfo, Searcher};
use crate::view::{InfoState, Observation, SquareView};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The move time of a request that gives neither a budget nor a clock (protocol.md's `go`
/// default).
pub const DEFAULT_MOVETIME_MS: u64 = 1000;

/// The longest watchdog honoured (a larger header is read as this), and the longest time any
/// one move is given.
pub const MAX_WATCHDOG_MS: u64 = 600_000;

/// The least memory one game's searcher is given, in MiB.
pub const MIN_GAME_HASH_MIB: usize = 8;

/// What `murk serve` was started with (everything but the transport).
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Threads each game's search may use (the `Threads` option).
    pub threads: usize,
    /// MiB for all cached games together; each gets `hash_mib / max_games` (at least
    /// [`MIN_GAME_HASH_MIB`]).
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

/// When a request arrived and the time its headers (or stdio envelope) give it.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// When the request arrived: its time counts from then.
    pub received: Instant,
    /// `x-mistboard-engine-compute-budget-ms`: the time the engine is meant to spend.
    pub compute_budget_ms: Option<u64>,
    /// `x-mistboard-engine-timeout-ms`: the watchdog, which the answer must beat.
    pub watchdog_ms: Option<u64>,
}

impl Timing {
    /// A request arriving now with these headers.
    pub fn now(compute_budget_ms: Option<u64>, watchdog_ms: Option<u64>) -> Timing {
        Timing { received: Instant::now(), compute_budget_ms, watchdog_ms }
    }
}

/// How long a turn may take: the search's limits and the moment the answer must be given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimePlan {
    /// When the request arrived.
    pub received: Instant,
    /// A fixed time for the move (the budget header, capped by the watchdog).
    pub movetime_ms: Option<u64>,
    /// The engine's clock and increment, when no budget header is given.
    pub clock_ms: Option<(u64, u64)>,
    /// The time the move is meant to take, for the diagnostics.
    pub budget_ms: u64,
    /// The latest moment to answer: before the watchdog, less a margin for the reply.
    pub answer_by: Instant,
}

/// The margin kept before a watchdog of `w` ms: a tenth of it, 2 to 250 ms.
pub fn reply_margin_ms(w: u64) -> u64 {
    (w / 10).clamp(2, 250)
}

impl TimePlan {
    /// The plan for a request: the budget header if given (capped by the watchdog), else the
    /// clock (`remaining_ms`, `increment_ms`) shared out as protocol.md section 8 says, else
    /// [`DEFAULT_MOVETIME_MS`]; the answer is due before the watchdog less
    /// [`reply_margin_ms`], or, without a watchdog, at twice the move's hard time plus 100 ms.
    pub fn new(timing: &Timing, clock: &WireClock, overhead_ms: u64) -> TimePlan {
        let ms = Duration::from_millis;
        let watchdog = timing.watchdog_ms.filter(|&w| w > 0).map(|w| w.min(MAX_WATCHDOG_MS));
        let within = watchdog.map(|w| w.saturating_sub(reply_margin_ms(w)).max(1));
        let cap = |t: u64| within.map_or(t, |w| t.min(w)).clamp(1, MAX_WATCHDOG_MS);
        let clamp = |v: f64| if v.is_finite() { v.clamp(0.0, 1e12) as u64 } else { 0 };
        let remaining = clock.remaining_ms.map(clamp);
        let increment = clamp(clock.increment_ms);
        let (movetime_ms, clock_ms, budget_ms, hard_ms) = match (timing.compute_budget_ms.filter(|&b| b > 0), remaining)
        {
            (Some(b), _) => (Some(cap(b)), None, cap(b), cap(b)),
            (None, Some(r)) => {
                let (soft, hard) = clock_budget(r, increment, None, overhead_ms);
                let hard = cap(hard.as_millis() as u64);
                (within, Some((r, increment)), (soft.as_millis() as u64).min(hard), hard)
            }
            (None, None) => (Some(cap(DEFAULT_MOVETIME_MS)), None, cap(DEFAULT_MOVETIME_MS), cap(DEFAULT_MOVETIME_MS)),
        };
        let answer_by = timing.received + ms(within.unwrap_or(hard_ms * 2 + 100));
        TimePlan { received: timing.received, movetime_ms, clock_ms, budget_ms, answer_by }
    }

    /// The `go` limits of the search for `side`.
    fn limits(&self, side: Color, overhead_ms: u64, nodes: Option<u64>, searchmoves: Vec<Move>) -> Limits {
        let mut limits = Limits {
            movetime: self.movetime_ms,
            nodes,
            searchmoves,
            overhead_ms,
            started: Some(self.received),
            ..Limits::default()
        };
        if let Some((time, inc)) = self.clock_ms {
            match side {
                Color::White => (limits.wtime, limits.winc) = (Some(time), Some(inc)),
                Color::Black => (limits.btime, limits.binc) = (Some(time), Some(inc)),
            }
        }
        limits
    }
}

/// One seat of one game, as the engine holds it between requests.
struct GameState {
    variant: Variant,
    side: Color,
    start_fen: Option<String>,
    /// The game's seed (from `--seed`, the `gameId` and the side).
    seed: u64,
    /// The transcript entries applied so far.
    applied: Vec<WireObservation>,
    info: InfoState,
    /// The game's searcher (`None` after a panic, or for the simple players, which are built
    /// afresh every turn so that their choice depends on the request alone).
    searcher: Option<Box<dyn Searcher>>,
}

type Slot = Arc<Mutex<Option<GameState>>>;

struct CacheEntry {
    slot: Slot,
    used: u64,
}

#[derive(Default)]
struct Cache {
    slots: HashMap<String, CacheEntry>,
    tick: u64,
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

/// The engine: configuration, the session cache and counters. Shared by every connection.
pub struct Engine {
    config: ServeConfig,
    player: usize,
    simple_player: bool,
    cache: Mutex<Cache>,
    turns: AtomicU64,
    searched: AtomicU64,
    fallbacks: AtomicU64,
}

/// How a turn's work ended.
enum Work {
    /// The search chose this move.
    Moved(WireMove, Map<String, Value>),
    /// A move can still be given, but not by the search: the problem, and diagnostics so far.
    Degraded(&'static str, String, Map<String, Value>),
    /// No move can be given.
    Refused(Problem),
}

/// Why a transcript could not be brought in.
enum SyncError {
    Refused(Problem),
    Contradiction(String),
}

impl Engine {
    /// An engine with this configuration, or why the configuration is wrong.
    pub fn new(config: ServeConfig) -> Result<Engine, String> {
        let options = EngineOptions::default();
        let player = options
            .players
            .iter()
            .position(|p| p.name.eq_ignore_ascii_case(&config.player))
            .ok_or_else(|| format!("unknown player '{}' (murk, greedy or random)", config.player))?;
        if config.max_games == 0 || config.threads == 0 || config.hash_mib == 0 {
            return Err("--max-games, --threads and --hash must be at least 1".into());
        }
        let simple_player = options.players[player].name != "murk";
        Ok(Engine {
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
            sessions: self.cache.lock().unwrap_or_else(PoisonError::into_inner).slots.len(),
            turns: self.turns.load(Ordering::Relaxed),
            searched: self.searched.load(Ordering::Relaxed),
            fallbacks: self.fallbacks.load(Ordering::Relaxed),
        }
    }

    /// MiB each game's searcher may use.
    pub fn game_hash_mib(&self) -> usize {
        (self.config.hash_mib / self.config.max_games).max(MIN_GAME_HASH_MIB)
    }

    /// The session's slot, created if new (dropping the least recently used games beyond
    /// `max_games`).
    fn slot(&self, session: &str, create: bool) -> Option<Slot> {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        cache.tick += 1;
        let tick = cache.tick;
        if let Some(entry) = cache.slots.get_mut(session) {
            entry.used = tick;
            return Some(Arc::clone(&entry.slot));
        }
        if !create {
            return None;
        }
        while cache.slots.len() >= self.config.max_games {
            let oldest = cache.slots.iter().min_by_key(|(_, e)| e.used).map(|(k, _)| k.clone());
            match oldest {
                Some(key) => cache.slots.remove(&key),
                None => break,
            };
        }
        let slot: Slot = Arc::default();
        cache.slots.insert(session.to_string(), CacheEntry { slot: Arc::clone(&slot), used: tick });
        Some(slot)
    }

    fn forget(&self, session: &str) {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner).slots.remove(session);
    }

    /// A fresh searcher for one game (or, for the simple players, one turn).
    fn make_searcher(&self, variant: Variant, side: Color, seed: u64) -> Box<dyn Searcher> {
        let mut options = EngineOptions::default();
        options.variant = variant;
        options.player = self.player;
        options.seed = seed & crate::engine::options::SEED_RANGE.1;
        options.threads = self.config.threads;
        options.hash_mib = self.game_hash_mib();
        (options.player_entry().make)(&options.search_config(side))
    }

    /// Answers a turn request: a move from its `legalMoves` within its time, or why none can
    /// be given.
    pub fn turn(self: &Arc<Self>, request: TurnRequest, timing: Timing) -> Result<TurnResponse, Problem> {
        let variant = variant_of_spec(request.game_spec_id.as_deref())?;
        for (i, m) in request.legal_moves.iter().enumerate() {
            check_move_shape(variant, m).map_err(|e| Problem::invalid(format!("legalMoves[{i}]: {e}")))?;
        }
        if let Some(over) = last_observation(&request).and_then(|o| o.game_over.as_ref()) {
            return Err(Problem::new(
                409,
                "game_over",
                format!("the game is over ({}); no move is asked after the last observation", clip(&over.reason)),
            ));
        }
        if request.legal_moves.is_empty() {
            return Err(Problem::new(422, "no_legal_moves", "legalMoves is empty: there is no move to choose"));
        }
        let plan = TimePlan::new(&timing, &request.clock, self.config.move_overhead_ms);
        let request = Arc::new(request);
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = channel();
        let (engine, req, flag) = (Arc::clone(self), Arc::clone(&request), Arc::clone(&stop));
        let spawned = std::thread::Builder::new().name("murk-serve-turn".into()).spawn(move || {
            let work = catch_unwind(AssertUnwindSafe(|| engine.work(&req, variant, &plan, &flag)));
            let _ = tx.send(work.unwrap_or_else(|_| {
                engine.forget(&req.session_id);
                Work::Degraded("internal_error", "the engine failed on this request".into(), Map::new())
            }));
        });
        let work = match spawned {
            Err(e) => Work::Degraded("internal_error", format!("no thread for the search: {e}"), Map::new()),
            Ok(_) => match rx.recv_timeout(plan.answer_by.saturating_duration_since(Instant::now())) {
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
        };
        let (mv, mut diag) = match work {
            Work::Refused(problem) => return Err(problem),
            Work::Moved(mv, diag) => {
                self.searched.fetch_add(1, Ordering::Relaxed);
                (mv, diag)
            }
            Work::Degraded(code, message, mut diag) => {
                self.fallbacks.fetch_add(1, Ordering::Relaxed);
                let side = color(request.color);
                let seed = request.engine_seed.abs() as u64;
                let mv = fallback_move(variant, side, last_observation(&request), &request.legal_moves, seed)
                    .expect("legalMoves is not empty");
                diag.entry("source").or_insert(json!("fallback"));
                if code != "late" {
                    diag.insert("error".into(), json!({ "code": code, "message": message }));
                }
                (mv, diag)
            }
        };
        diag.insert("engine".into(), json!(crate::protocol::ENGINE_NAME));
        diag.insert("player".into(), json!(self.config.player.to_ascii_lowercase()));
        diag.insert("budgetMs".into(), json!(plan.budget_ms));
        diag.insert("elapsedMs".into(), json!(plan.received.elapsed().as_millis() as u64));
        Ok(TurnResponse {
            protocol_version: PROTOCOL_VERSION.to_string(),
            game_id: request.game_id.clone(),
            session_id: request.session_id.clone(),
            mv,
            diagnostics: diag,
        })
    }

    /// A turn's work, on its worker thread: bring the session up to date, check the offered
    /// moves, search.
    fn work(&self, request: &TurnRequest, variant: Variant, plan: &TimePlan, stop: &AtomicBool) -> Work {
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
        if !state.info.is_our_turn() {
            let message = "after the transcript it is not our turn (its last entry is our own move)".to_string();
            return Work::Degraded("contradictory_transcript", message, diag);
        }
        if request.ply != state.info.plies() as u64 {
            let message = format!("ply is {} but the transcript has {} plies", request.ply, state.info.plies());
            return Work::Degraded("contradictory_transcript", message, diag);
        }
        let ours: Vec<Move> = state.info.legal_moves().to_vec();
        // Each of our moves in the form the request offers it (castling also as `e1g1`).
        let offered = |m: Move| request.legal_moves.iter().find(|o| move_from_wire(variant, side, &[m], o).is_some());
        let searchmoves = match common_moves(request, variant, side, &ours) {
            Ok((moves, None)) => moves,
            Ok((moves, Some(message))) => {
                diag.insert("error".into(), json!({ "code": "legal_moves_mismatch", "message": message }));
                moves
            }
            Err(message) => return Work::Degraded("legal_moves_mismatch", message, diag),
        };
        let limits = plan.limits(side, self.config.move_overhead_ms, self.config.nodes, searchmoves);
        let mut searcher = match state.searcher.take() {
            Some(s) if !self.simple_player => s,
            _ => self.make_searcher(variant, side, mix64(state.seed ^ state.info.plies() as u64)),
        };
        let mut last = SearchInfo::default();
        let info = &state.info;
        let result = catch_unwind(AssertUnwindSafe(|| {
            searcher.search(info, &limits, stop, &mut |report: SearchInfo| {
                last.nodes = report.nodes.or(last.nodes);
                last.score_cp = report.score_cp.or(last.score_cp);
                if report.string.is_some() {
                    last.string = report.string;
                }
            })
        }));
        let best = match result {
            Ok(best) => {
                if !self.simple_player {
                    state.searcher = Some(searcher);
                }
                best
            }
            Err(_) => return Work::Degraded("internal_error", "the search failed".into(), diag),
        };
        if let Some(nodes) = last.nodes {
            diag.insert("nodes".into(), json!(nodes));
        }
        if let Some(cp) = last.score_cp {
            diag.insert("scoreCp".into(), json!(cp));
        }
        if let Some(text) = last.string {
            diag.insert("info".into(), json!(text));
        }
        let chosen = best.filter(|m| ours.contains(m)).and_then(offered).cloned();
        match chosen {
            Some(mv) => {
                diag.insert("source".into(), json!("search"));
                Work::Moved(mv, diag)
            }
            None => Work::Degraded("search_failed", "the search gave no move among legalMoves".into(), diag),
        }
    }

    /// Brings the session's state up to the request's transcript (or delta); the label says
    /// how: `new`, `hit` (nothing new), `extended` (new entries applied), `rebuilt` (replayed
    /// from the start), `delta`.
    fn sync(
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
            if s.applied.last() == Some(delta) {
                return Ok("hit");
            }
            let next = s.info.plies() as u64 + u64::from(delta.kind != ObsKind::DropRejected);
            if delta.ply != next || delta.kind == ObsKind::Initial {
                let why =
                    format!("the delta (ply {}) does not follow the held history (ply {})", delta.ply, s.info.plies());
                return Err(SyncError::Refused(no_state(&why)));
            }
            apply_entry(s, delta, &request.legal_moves)
                .map_err(|e| SyncError::Contradiction(format!("latestObservationDelta: {e}")))?;
            s.applied.push(delta.clone());
            return Ok("delta");
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
            *state = None;
            let start = match &request.start_fen {
                None => Position::start(variant),
                Some(fen) => Position::from_fen(variant, fen)
                    .map_err(|e| SyncError::Refused(Problem::invalid(format!("startFen: {e}"))))?,
            };
            let initial = &transcript[0];
            let at = |e: String| SyncError::Contradiction(format!("observationTranscript[0]: {e}"));
            if initial.kind != ObsKind::Initial || initial.ply != 0 {
                return Err(at("the first entry must be `initial` at ply 0".into()));
            }
            let expected = crate::view::View::of(&start, side);
            let view =
                decode_view(variant, side, initial, start.turn() == side, &|_, _| expected.ep_square().is_some())
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
            *state = Some(GameState {
                variant,
                side,
                start_fen: request.start_fen.clone(),
                seed,
                applied: vec![initial.clone()],
                info: InfoState::new(start, side),
                searcher,
            });
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

/// The request's latest observation.
fn last_observation(request: &TurnRequest) -> Option<&WireObservation> {
    request.latest_observation_delta.as_ref().or_else(|| request.observation_transcript.as_ref()?.last())
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

fn list(moves: &[String]) -> String {
    let shown: Vec<&str> = moves.iter().take(12).map(String::as_str).collect();
    let more = if moves.len() > 12 { format!(" and {} more", moves.len() - 12) } else { String::new() };
    format!("{}{more}", shown.join(" "))
}

/// Applies one transcript entry after those already applied; `hint` holds moves known to be
/// legal right after it (see [`decode_view`]). On error the state is as before, but for a
/// pending move the next own move replaces.
fn apply_entry(s: &mut GameState, obs: &WireObservation, hint: &[WireMove]) -> Result<(), String> {
    let (variant, side) = (s.variant, s.side);
    let info = &mut s.info;
    let plies = info.plies() as u64;
    if obs.game_over.is_some() {
        return Err("game_over on an observation that is not the last".into());
    }
    match obs.kind {
        ObsKind::Initial => Err("an `initial` entry after the first".into()),
        ObsKind::OwnMove | ObsKind::OppMove if obs.ply != plies + 1 => {
            Err(format!("ply {} does not follow ply {plies}", obs.ply))
        }
        ObsKind::OwnMove => {
            if !info.is_our_turn() {
                return Err(format!("own_move at ply {}, but the opponent was to move", obs.ply));
            }
            let wanted = obs.own_move.as_ref().ok_or("missing field `own_move`")?;
            let legal = info.legal_moves();
            let mv = move_from_wire(variant, side, &legal, wanted)
                .ok_or_else(|| format!("own_move {} is not legal from our view", describe(wanted)))?;
            if let Some(index) = obs.own_capture_square {
                // Mistboard reports the rook's home square after castling (a square its own
                // piece left other than the move's origin); anything else is a contradiction.
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
        ObsKind::OppMove => {
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
            let takes = |from: crate::core::Square, to: crate::core::Square| {
                hint.iter().any(|m| m.from == from.to_string() && m.to == to.to_string())
            };
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
        ObsKind::DropRejected => {
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
    }
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
