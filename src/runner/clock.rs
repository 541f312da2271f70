//! Time controls and the runner-side clocks. Time is measured by the runner from sending `go`
//! to receiving `bestmove`; the engine's own claims are never trusted.

use crate::core::Color;
use crate::search::limits::clock_budget;
use std::fmt;
use std::time::Duration;

/// How long an engine may think.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimeControl {
    /// A clock per side: `base` at the start, `inc` added after each move (`--tc base+inc`).
    Clock {
        /// Starting time in milliseconds.
        base_ms: u64,
        /// Increment per move in milliseconds.
        inc_ms: u64,
    },
    /// A fixed time per move in milliseconds (`--movetime`).
    MoveTime(u64),
    /// A node budget per move (`--nodes`); no clock, only the stall limit.
    Nodes(u64),
}

/// A time control text that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed time control '{0}' (expected seconds 'base+inc', e.g. '10+0.1')")]
pub struct TimeControlError(pub String);

impl TimeControl {
    /// Parses `base+inc` or `base` in seconds, as cutechess does (`10+0.1`, `60`).
    pub fn parse_tc(text: &str) -> Result<TimeControl, TimeControlError> {
        let err = || TimeControlError(text.to_string());
        let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
        let seconds = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
        let (base, inc) = (seconds(base).ok_or_else(err)?, seconds(inc).ok_or_else(err)?);
        if base <= 0.0 {
            return Err(err());
        }
        Ok(TimeControl::Clock { base_ms: (base * 1000.0).round() as u64, inc_ms: (inc * 1000.0).round() as u64 })
    }

    /// The PGN `TimeControl` tag value.
    pub fn pgn_tag(self) -> String {
        match self {
            TimeControl::Clock { base_ms, inc_ms } => format!("{}+{}", secs(base_ms), secs(inc_ms)),
            TimeControl::MoveTime(ms) => format!("1/{}", secs(ms)),
            TimeControl::Nodes(_) => "-".to_string(),
        }
    }
}

fn secs(ms: u64) -> String {
    let s = format!("{:.3}", ms as f64 / 1000.0);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Clock { .. } => write!(f, "tc {}", self.pgn_tag()),
            TimeControl::MoveTime(ms) => write!(f, "movetime {ms}"),
            TimeControl::Nodes(n) => write!(f, "nodes {n}"),
        }
    }
}

/// Both sides' clocks during one game; each side may have its own time control.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Clocks {
    tc: [TimeControl; 2],
    left_ms: [u64; 2],
    margin: Duration,
    stall: Duration,
}

impl TimeControl {
    fn base_ms(self) -> u64 {
        match self {
            TimeControl::Clock { base_ms, .. } => base_ms,
            _ => 0,
        }
    }

    fn inc_ms(self) -> u64 {
        match self {
            TimeControl::Clock { inc_ms, .. } => inc_ms,
            _ => 0,
        }
    }
}

impl Clocks {
    /// Fresh clocks with White's and Black's time controls; `margin` is the tolerance on every
    /// limit, `stall` the limit for node budgets.
    pub fn new(tc: [TimeControl; 2], margin: Duration, stall: Duration) -> Clocks {
        Clocks { tc, left_ms: tc.map(TimeControl::base_ms), margin, stall }
    }

    /// The `go` command for `side`, the side to move (both clocks, as UCI sends them).
    pub fn go_command(&self, side: Color) -> String {
        match self.tc[side.index()] {
            TimeControl::Clock { .. } => {
                let [w, b] = self.left_ms;
                let [wi, bi] = self.tc.map(TimeControl::inc_ms);
                format!("go wtime {w} btime {b} winc {wi} binc {bi}")
            }
            TimeControl::MoveTime(ms) => format!("go movetime {ms}"),
            TimeControl::Nodes(n) => format!("go nodes {n}"),
        }
    }

    /// How long `side` may take for its move before it loses on time (tolerance included).
    pub fn allowance(&self, side: Color) -> Duration {
        match self.tc[side.index()] {
            TimeControl::Clock { .. } => Duration::from_millis(self.left_ms[side.index()]) + self.margin,
            TimeControl::MoveTime(ms) => Duration::from_millis(ms) + self.margin,
            TimeControl::Nodes(_) => self.stall,
        }
    }

    /// Charges `side` for a move that took `used` (within its allowance) and adds the increment.
    pub fn charge(&mut self, side: Color, used: Duration) {
        if let TimeControl::Clock { inc_ms, .. } = self.tc[side.index()] {
            let left = &mut self.left_ms[side.index()];
            *left = left.saturating_sub(used.as_millis() as u64) + inc_ms;
        }
    }

    /// `side`'s own clock for a Mistboard request: milliseconds left (`None` without a clock)
    /// and the increment.
    pub fn own_clock(&self, side: Color) -> (Option<u64>, u64) {
        match self.tc[side.index()] {
            TimeControl::Clock { inc_ms, .. } => (Some(self.left_ms[side.index()]), inc_ms),
            _ => (None, 0),
        }
    }

    /// The time `side`'s move is meant to take, for a Mistboard engine's `computeBudgetMs`: the
    /// move time, or the share of its clock a line-protocol Murk would spend (protocol.md
    /// section 8); under a node budget, the stall limit.
    pub fn budget_ms(&self, side: Color) -> u64 {
        match self.tc[side.index()] {
            TimeControl::Clock { inc_ms, .. } => {
                clock_budget(self.left_ms[side.index()], inc_ms, None, 0).0.as_millis() as u64
            }
            TimeControl::MoveTime(ms) => ms,
            TimeControl::Nodes(_) => self.stall.as_millis() as u64,
        }
    }

    /// Time left on each clock in milliseconds, White first (`None` without clocks).
    pub fn left_ms(&self) -> Option<[u64; 2]> {
        self.tc.iter().any(|tc| matches!(tc, TimeControl::Clock { .. })).then_some(self.left_ms)
    }
}
