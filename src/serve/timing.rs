//! How long a turn may take: the time a request's headers (or stdio envelope) give it
//! ([`Timing`]), and the budget drawn from them and the request's clock ([`TurnBudget`]): the
//! search's `go` limits and the moment the answer must be given.

use super::wire::WireClock;
use crate::core::{Color, Move};
use crate::search::limits::clock_budget;
use crate::search::Limits;
use std::time::{Duration, Instant};

/// The move time of a request that gives neither a budget nor a clock (protocol.md's `go`
/// default).
pub const DEFAULT_MOVETIME_MS: u64 = 1000;

/// The longest watchdog honoured (a larger header is read as this), and the longest time any
/// one move is given.
pub const MAX_WATCHDOG_MS: u64 = 600_000;

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
pub struct TurnBudget {
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

impl TurnBudget {
    /// The budget of a request: the budget header if given (capped by the watchdog), else the
    /// clock (`remaining_ms`, `increment_ms`) shared out as protocol.md section 8 says, else
    /// [`DEFAULT_MOVETIME_MS`]; the answer is due before the watchdog less
    /// [`reply_margin_ms`], or, without a watchdog, at twice the move's hard time plus 100 ms.
    pub fn new(timing: &Timing, clock: &WireClock, overhead_ms: u64) -> TurnBudget {
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
        TurnBudget { received: timing.received, movetime_ms, clock_ms, budget_ms, answer_by }
    }

    /// The `go` limits of the search for `side`.
    pub(super) fn limits(&self, side: Color, overhead_ms: u64, nodes: Option<u64>, searchmoves: Vec<Move>) -> Limits {
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
