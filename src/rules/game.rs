//! A game in progress: the true position, its history, bounces, and the outcomes of RULES.md in
//! the order it gives (king capture, a pending Try answered, a Try armed, no legal move,
//! threefold repetition, the no-progress rule).

use super::position::{PlyVerdict, Position};
use super::vision;
use crate::core::{Bitboard, Color, Move, MoveKind, Piece, Role, Square};
use std::fmt;

/// Why a game ended under the rules.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndReason {
    /// A king was captured.
    KingCaptured,
    /// A Try was not answered by a capture of the racing king (or could not be answered at all).
    TryCompleted,
    /// The side to move had no legal move (a loss, or a draw in Dark Chess).
    NoLegalMove,
    /// The same true position occurred for the third time.
    Repetition,
    /// 100 plies without capture, pawn or soldier move, or drop.
    NoProgress,
}

impl EndReason {
    /// The protocol word for the reason.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::KingCaptured => "king-captured",
            EndReason::TryCompleted => "try-completed",
            EndReason::NoLegalMove => "no-legal-move",
            EndReason::Repetition => "repetition",
            EndReason::NoProgress => "no-progress",
        }
    }
}

/// The end of a game: who won (none for a draw) and why.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// The PGN result: `1-0`, `0-1` or `1/2-1/2`.
    pub fn result(self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.result(), self.reason.name())
    }
}

/// Why a move was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// The game is already over.
    #[error("the game is over")]
    GameOver,
    /// Not a pseudo-legal move of the side to move.
    #[error("illegal move {0}")]
    Illegal(String),
    /// A drop onto a square the dropper can see is occupied.
    #[error("drop onto {0}, a square the dropper sees occupied")]
    DropOntoKnownPiece(Square),
    /// A second drop onto a square that already bounced this turn.
    #[error("repeated drop onto {0}, which already bounced this turn")]
    RepeatedBounce(Square),
}

/// What happened when a move was played.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Played {
    /// The drop landed on an occupied fogged square and bounced: nothing changed.
    Bounced(Square),
    /// The move was made.
    Moved(PlyReport),
}

/// The facts about one ply that players may be told.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PlyReport {
    /// The move, as the rules read it (castling and en passant filled in).
    pub mv: Move,
    /// The captured piece and the square it was captured on.
    pub captured: Option<(Square, Piece)>,
    /// True if this move armed the mover's Try.
    pub try_armed: bool,
    /// The outcome, if the game ended with this move.
    pub outcome: Option<Outcome>,
}

/// A game: a start position, the true position now, the moves played and the outcome.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    keys: Vec<u64>,
    bounced: Bitboard,
    outcome: Option<Outcome>,
}

impl Game {
    /// A game starting from `start`.
    pub fn new(start: Position) -> Game {
        let key = start.repetition_key();
        Game {
            position: start.clone(),
            start,
            moves: Vec::new(),
            keys: vec![key],
            bounced: Bitboard::EMPTY,
            outcome: None,
        }
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The true position now.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played so far (bounces are not moves).
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The outcome, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// The side whose Try is armed and awaiting the reply, if any (while the game goes on).
    pub fn pending_try(&self) -> Option<Color> {
        let racer = self.position.turn().opponent();
        (self.outcome.is_none() && self.position.king_on_far_rank(racer)).then_some(racer)
    }

    /// Squares where the side to move has had a drop bounce this turn.
    pub fn bounced_this_turn(&self) -> Bitboard {
        self.bounced
    }

    /// Plays `wanted` (a move as parsed from text) for the side to move. Drops onto occupied
    /// squares the mover cannot see bounce; everything else must be a pseudo-legal move.
    pub fn play(&mut self, wanted: Move) -> Result<Played, PlayError> {
        if self.outcome.is_some() {
            return Err(PlayError::GameOver);
        }
        let pos = &self.position;
        let variant = pos.variant();
        if let MoveKind::Drop(role) = wanted.kind {
            let to = wanted.to;
            let pawn_on_back_rank = role == Role::Pawn && (to.rank() == 0 || to.rank() == 7);
            if pos.occupied().contains(to) && pos.hand(pos.turn()).count(role) > 0 && !pawn_on_back_rank {
                let (seen, silhouettes) = vision(pos, pos.turn());
                if (seen | silhouettes).contains(to) {
                    return Err(PlayError::DropOntoKnownPiece(to));
                }
                if self.bounced.contains(to) {
                    return Err(PlayError::RepeatedBounce(to));
                }
                self.bounced |= Bitboard::from_square(to);
                return Ok(Played::Bounced(to));
            }
        }
        let mv = pos.find_move(wanted).ok_or_else(|| PlayError::Illegal(wanted.to_uci(variant)))?;
        Ok(Played::Moved(self.play_found(mv)))
    }

    /// Plays a move known to be pseudo-legal here and judges the outcome.
    fn play_found(&mut self, mv: Move) -> PlyReport {
        let mover = self.position.turn();
        let captured = self.position.play_unchecked(mv);
        self.moves.push(mv);
        self.keys.push(self.position.repetition_key());
        self.bounced = Bitboard::EMPTY;
        let verdict = self.position.ply_verdict(mover, mv.to);
        let try_armed = verdict == PlyVerdict::TryArmed;
        let outcome = match verdict {
            PlyVerdict::KingCaptured => Some(Outcome { winner: Some(mover), reason: EndReason::KingCaptured }),
            PlyVerdict::TryCompleted => {
                Some(Outcome { winner: Some(mover.opponent()), reason: EndReason::TryCompleted })
            }
            PlyVerdict::TryArmed => (self.position.count_moves() == 0)
                .then_some(Outcome { winner: Some(mover), reason: EndReason::TryCompleted }),
            PlyVerdict::Neither => self.judge_draws_and_stalemate(),
        };
        self.outcome = outcome;
        PlyReport { mv, captured, try_armed, outcome }
    }

    /// The end, if any, of a ply that decided nothing about the kings: no legal move, threefold
    /// repetition or the no-progress limit.
    fn judge_draws_and_stalemate(&self) -> Option<Outcome> {
        let pos = &self.position;
        if pos.count_moves() == 0 {
            return Some(Outcome { winner: pos.winner_when_stuck(), reason: EndReason::NoLegalMove });
        }
        let key = *self.keys.last().expect("history holds the start");
        let window = (pos.halfmoves() as usize + 1).min(self.keys.len());
        let repeats = self.keys[self.keys.len() - window..].iter().filter(|&&k| k == key).count();
        if repeats >= 3 {
            return Some(Outcome { winner: None, reason: EndReason::Repetition });
        }
        pos.no_progress_limit_reached().then_some(Outcome { winner: None, reason: EndReason::NoProgress })
    }
}
