//! What a `go` allows the search to spend, and how much of it to spend on this move.
//!
//! [`Limits`] holds the parameters of one `go` (clocks, increments, moves to go, fixed move
//! time, node budget, `infinite`) plus the `Move Overhead` option. [`Limits::budget`] turns them
//! into a [`Budget`] for the side to move, and [`SearchClock`] answers "must I stop now?" during
//! a search, so every searcher stops by the same rules.

use crate::core::{Color, Move};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The budget of a `go` that names no limit at all: searched as `go movetime 1000`.
pub const DEFAULT_MOVE_TIME_MS: u64 = 1000;

/// How many moves a clock is assumed to have to last when `movestogo` is not given.
pub const DEFAULT_MOVES_TO_GO: u64 = 30;

/// The parameters of one `go` command, in milliseconds where they are times.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Limits {
    /// White's remaining clock time.
    pub wtime: Option<u64>,
    /// Black's (Red's) remaining clock time.
    pub btime: Option<u64>,
    /// White's increment per move.
    pub winc: Option<u64>,
    /// Black's (Red's) increment per move.
    pub binc: Option<u64>,
    /// Moves until the next time control (sudden death when absent).
    pub movestogo: Option<u64>,
    /// Search exactly this long (less the overhead).
    pub movetime: Option<u64>,
    /// Stop after this many nodes.
    pub nodes: Option<u64>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Restrict the choice to these moves (UCI `searchmoves`; empty means all moves).
    pub searchmoves: Vec<Move>,
    /// The `Move Overhead` option: time lost per move in transmission, kept in reserve.
    pub overhead_ms: u64,
    /// When the `go` arrived: its time counts from then (from the search's start if unset).
    pub started: Option<Instant>,
}

/// How much a search may spend on this move. `None` means "no bound of that kind".
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Budget {
    /// The time after which the search should stop at a convenient point.
    pub soft: Option<Duration>,
    /// The time at which the search must stop.
    pub hard: Option<Duration>,
    /// The node count at which the search must stop.
    pub nodes: Option<u64>,
}

impl Budget {
    /// No bound at all: the search runs until `stop`.
    pub const UNBOUNDED: Budget = Budget { soft: None, hard: None, nodes: None };
}

impl Limits {
    /// The stopwatch of a search for `side` under these limits, running since the `go` arrived.
    pub fn clock(&self, side: Color) -> SearchClock {
        SearchClock { start: self.started.unwrap_or_else(Instant::now), budget: self.budget(side) }
    }

    /// The budget for `side` (the side to move, the engine). `infinite` wins over everything;
    /// a node limit and a time limit both apply when both are given; a `go` with no limit for
    /// `side` (no `movetime`, no `nodes`, no clock of its own) gets [`DEFAULT_MOVE_TIME_MS`].
    pub fn budget(&self, side: Color) -> Budget {
        if self.infinite {
            return Budget::UNBOUNDED;
        }
        let mut budget = Budget { nodes: self.nodes, ..Budget::UNBOUNDED };
        let (time, inc) = match side {
            Color::White => (self.wtime, self.winc),
            Color::Black => (self.btime, self.binc),
        };
        if let Some(time) = time {
            let (soft, hard) = clock_budget(time, inc.unwrap_or(0), self.movestogo, self.overhead_ms);
            budget.soft = Some(soft);
            budget.hard = Some(hard);
        }
        let unbounded = time.is_none() && self.movetime.is_none() && self.nodes.is_none();
        let movetime = self.movetime.or(unbounded.then_some(DEFAULT_MOVE_TIME_MS));
        if let Some(mt) = movetime {
            let fixed = ms(mt.saturating_sub(self.overhead_ms).max(1));
            budget.soft = Some(budget.soft.map_or(fixed, |s| s.min(fixed)));
            budget.hard = Some(budget.hard.map_or(fixed, |h| h.min(fixed)));
        }
        budget
    }
}

/// The soft and hard time for one move from a clock: a share of the remaining time (less the
/// overhead) over the moves to go, plus three quarters of the increment; the hard limit is four
/// times that; neither exceeds four fifths of what remains, and both are at least 1 ms.
pub fn clock_budget(time_ms: u64, inc_ms: u64, movestogo: Option<u64>, overhead_ms: u64) -> (Duration, Duration) {
    let available = time_ms.saturating_sub(overhead_ms);
    let cap = available / 5 * 4;
    let mtg = movestogo.unwrap_or(DEFAULT_MOVES_TO_GO).max(1);
    let soft = (available / mtg + inc_ms / 4 * 3).min(cap).max(1);
    let hard = soft.saturating_mul(4).min(cap).max(soft);
    (ms(soft), ms(hard))
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The stopwatch of one search: started when the search starts, it says when the budget or the
/// `stop` flag ends it.
#[derive(Clone, Copy, Debug)]
pub struct SearchClock {
    start: Instant,
    budget: Budget,
}

impl SearchClock {
    /// Starts the clock now.
    pub fn start(budget: Budget) -> SearchClock {
        SearchClock { start: Instant::now(), budget }
    }

    /// The budget it enforces.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// When the clock started.
    pub fn started(&self) -> Instant {
        self.start
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// True if the search must stop now: `stop` was raised, the node budget is used up, or the
    /// hard time has passed.
    pub fn must_stop(&self, nodes: u64, stop: &AtomicBool) -> bool {
        stop.load(Ordering::Relaxed)
            || self.budget.nodes.is_some_and(|n| nodes >= n)
            || self.budget.hard.is_some_and(|h| self.elapsed() >= h)
    }

    /// True if `stop` was raised or the soft or hard time has passed (node budgets aside).
    #[inline]
    pub fn time_is_up(&self, stop: &AtomicBool) -> bool {
        stop.load(Ordering::Relaxed) || self.budget.soft.or(self.budget.hard).is_some_and(|t| self.elapsed() >= t)
    }

    /// The same clock with `reserve` taken off its times (at least 1 ms left), for a phase that
    /// must leave time for the work after it.
    pub fn with_reserve(&self, reserve: Duration) -> SearchClock {
        let less = |t: Duration| t.saturating_sub(reserve).max(Duration::from_millis(1));
        SearchClock {
            start: self.start,
            budget: Budget { soft: self.budget.soft.map(less), hard: self.budget.hard.map(less), ..self.budget },
        }
    }

    /// True if the search should stop at the next convenient point: it must stop, or the soft
    /// time has passed.
    pub fn should_stop(&self, nodes: u64, stop: &AtomicBool) -> bool {
        self.must_stop(nodes, stop) || self.budget.soft.is_some_and(|s| self.elapsed() >= s)
    }
}
