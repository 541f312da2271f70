//! The game record: how a game ended (rule outcome, forfeit or adjudication, kept apart), the true
//! moves, and per ply exactly the messages each engine received and wrote, with times (protocol
//! lines, or a Mistboard engine's JSON requests and answers). Records are stored one JSON object
//! per line, appended as each game ends.

use super::contestant::Wire;
use super::line_engine::Msg;
use crate::core::Color;
use crate::rules::EndReason;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::path::Path;

/// A loss caused by the engine's conduct rather than by the rules.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Forfeit {
    /// The engine ran past its clock (or its move time) plus the tolerance.
    TimeForfeit,
    /// The engine played a move that is not legal in the true position (or a drop onto a square
    /// it sees occupied).
    IllegalMove,
    /// The engine's reply did not parse as a move.
    MalformedReply,
    /// The engine's process exited or could not be started.
    Crash,
    /// The engine did not answer `isready` between moves.
    Unresponsive,
    /// The engine repeated a drop onto a square that had already bounced this turn.
    RepeatedBounce,
}

/// How a game ended, as the runner reports it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Termination {
    /// The rules ended it (RULES.md): king capture, Try, no legal move, repetition, no-progress.
    Rule(EndReason),
    /// One engine forfeited it.
    Forfeit(Forfeit),
    /// The runner stopped it at `--max-plies` and scored it a draw.
    Adjudication,
}

const FORFEITS: [(Forfeit, &str); 6] = [
    (Forfeit::TimeForfeit, "time-forfeit"),
    (Forfeit::IllegalMove, "illegal-move"),
    (Forfeit::MalformedReply, "malformed-reply"),
    (Forfeit::Crash, "crash"),
    (Forfeit::Unresponsive, "unresponsive"),
    (Forfeit::RepeatedBounce, "repeated-bounce"),
];

const END_REASONS: [EndReason; 5] = [
    EndReason::KingCaptured,
    EndReason::TryCompleted,
    EndReason::NoLegalMove,
    EndReason::Repetition,
    EndReason::NoProgress,
];

impl Forfeit {
    /// The protocol word (`time-forfeit`, `illegal-move`, ...).
    pub fn name(self) -> &'static str {
        FORFEITS.iter().find(|(f, _)| *f == self).map(|(_, n)| *n).unwrap_or("forfeit")
    }

    /// True if the engine must be restarted before its next game whatever it does now (an engine
    /// that overran its time is restarted only if it does not answer `stop`: the referee decides).
    pub fn needs_restart(self) -> bool {
        matches!(self, Forfeit::Crash | Forfeit::Unresponsive)
    }
}

impl Termination {
    /// The word sent in `gameover` and written to `[Termination]`.
    pub fn name(self) -> &'static str {
        match self {
            Termination::Rule(reason) => reason.name(),
            Termination::Forfeit(f) => f.name(),
            Termination::Adjudication => "adjudication",
        }
    }

    /// `rule`, `forfeit` or `adjudication`.
    pub fn kind(self) -> &'static str {
        match self {
            Termination::Rule(_) => "rule",
            Termination::Forfeit(_) => "forfeit",
            Termination::Adjudication => "adjudication",
        }
    }

    /// Parses a name written by [`Termination::name`].
    pub fn from_name(name: &str) -> Option<Termination> {
        if name == "adjudication" {
            return Some(Termination::Adjudication);
        }
        if let Some(&(f, _)) = FORFEITS.iter().find(|(_, n)| *n == name) {
            return Some(Termination::Forfeit(f));
        }
        END_REASONS.into_iter().find(|r| r.name() == name).map(Termination::Rule)
    }
}

/// A line log per engine, White's first.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct SideLogs {
    /// The lines White's engine received and wrote.
    pub white: Vec<Msg>,
    /// The lines Black's (Red's) engine received and wrote.
    pub black: Vec<Msg>,
}

impl SideLogs {
    /// The log of `side`.
    pub fn of(&self, side: Color) -> &[Msg] {
        match side {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// Builds logs from an array indexed by color.
    pub fn from_array([white, black]: [Vec<Msg>; 2]) -> SideLogs {
        SideLogs { white, black }
    }
}

/// One ply: the true move, the bounces before it, the mover's thinking time and both engines' lines.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PlyRecord {
    /// Ply number, from 1.
    pub ply: usize,
    /// The mover: `white` or `black`.
    pub side: String,
    /// The true move in protocol notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// Drops that bounced before it, in order.
    pub bounces: Vec<String>,
    /// The runner-measured time from the last `go` to this move's `bestmove`, in milliseconds.
    pub think_ms: u64,
    /// Both clocks after the move (White first), when playing with clocks.
    pub clock_ms: Option<[u64; 2]>,
    /// Every line exchanged during this ply, from the mover's `go` to both `observe` lines.
    pub lines: SideLogs,
}

/// A finished game.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameRecord {
    /// Game number in the match, from 1.
    pub game: usize,
    /// Pair (round) number, from 1: the two games of a pair share the opening, colors swapped.
    pub pair: usize,
    /// The variant's protocol name.
    pub variant: String,
    /// White's engine name.
    pub white: String,
    /// Black's (Red's) engine name.
    pub black: String,
    /// The start position (known to both engines).
    pub start_fen: String,
    /// The time control, as `tc 10+0.1`, `movetime 50` or `nodes 1000`.
    pub time_control: String,
    /// The protocol of each side's log, White first (absent in older records: both lines).
    #[serde(default)]
    pub wire: [Wire; 2],
    /// The `Seed` option value given to each engine (White first), when it declares one.
    pub seeds: [Option<u64>; 2],
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// The termination word (see [`Termination::name`]).
    pub termination: String,
    /// `rule`, `forfeit` or `adjudication`.
    pub termination_kind: String,
    /// The side that forfeited, for forfeits.
    pub forfeited_by: Option<String>,
    /// A human-readable account of the end (e.g. the illegal move).
    pub detail: String,
    /// The true moves in protocol notation.
    pub moves: Vec<String>,
    /// Lines before the first ply: handshakes of (re)started engines and the game setup.
    pub setup: SideLogs,
    /// The plies.
    pub plies: Vec<PlyRecord>,
    /// Lines after the last ply: a failed attempt, if any, and `gameover`.
    pub end: SideLogs,
}

impl GameRecord {
    /// The winner (`None` for a draw or an unreadable result).
    pub fn winner(&self) -> Option<Color> {
        match self.result.as_str() {
            "1-0" => Some(Color::White),
            "0-1" => Some(Color::Black),
            _ => None,
        }
    }

    /// The parsed termination.
    pub fn termination(&self) -> Option<Termination> {
        Termination::from_name(&self.termination)
    }

    /// Every line of `side`'s log in order: setup, each ply, end.
    pub fn lines_of(&self, side: Color) -> impl Iterator<Item = &Msg> {
        self.setup
            .of(side)
            .iter()
            .chain(self.plies.iter().flat_map(move |p| p.lines.of(side).iter()))
            .chain(self.end.of(side).iter())
    }
}

/// Appends `record` to `out` as one JSON line, in one write, and flushes it: a reader of the file
/// (a resume, a test watching a run) meets a line cut short only if the write itself is cut.
pub fn append_json(out: &mut impl Write, record: &GameRecord) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(record)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// Reads every record of a JSON-lines file (blank lines skipped).
pub fn read_records(path: &Path) -> anyhow::Result<Vec<GameRecord>> {
    use anyhow::Context;
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut records = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let record = serde_json::from_str(&line)
            .with_context(|| format!("{} line {}: not a game record", path.display(), i + 1))?;
        records.push(record);
    }
    Ok(records)
}
