//! Playing out a determinized world inside the search, with the terminal rules of RULES.md:
//! king capture, the Try (armed, answered, won at once against a side without moves), no legal
//! move, the no-progress limit, and repetition. The engine never knows the true game's history,
//! so a position repeated along the simulated line counts as the draw it leads to (the usual
//! in-tree reading of threefold repetition).

use crate::core::{Color, Move, Piece, Square};
use crate::rules::{PlyVerdict, Position};

/// A world being played out: the position and the keys along the line (a king standing on its
/// far rank is the Try awaiting its reply, [`Position::king_on_far_rank`]).
#[derive(Clone, Debug)]
pub struct Sim {
    /// The position.
    pub pos: Position,
    /// Repetition keys of the positions along the line, the start first (0 where no repetition
    /// can reach back).
    keys: Vec<u64>,
}

/// The end of a simulated game: the winner, or `None` for a draw.
pub type SimResult = Option<Color>;

/// What one simulated ply did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimStep {
    /// The result, if the game ended with the ply.
    pub result: Option<SimResult>,
    /// The piece captured and where it stood.
    pub captured: Option<(Square, Piece)>,
    /// True if the ply armed the mover's Try.
    pub try_armed: bool,
}

impl Sim {
    /// Starts from a world.
    pub fn new(pos: Position) -> Sim {
        let root = pos.repetition_key();
        Sim { pos, keys: vec![root] }
    }

    /// Plays a pseudo-legal move; returns the result if the game ended with it.
    /// "No legal move" is found by the caller when it generates the next moves.
    #[inline]
    pub fn play(&mut self, m: Move) -> Option<SimResult> {
        self.step(m).result
    }

    /// Plays a pseudo-legal move and tells what the players may learn of the ply besides their
    /// views: the piece captured, whether a Try was armed, and the result if the game ended.
    #[inline]
    pub fn step(&mut self, m: Move) -> SimStep {
        let mover = self.pos.turn();
        let captured = self.pos.play_unchecked(m);
        let verdict = self.pos.ply_verdict(mover, m.to);
        let result = match verdict {
            PlyVerdict::KingCaptured => Some(Some(mover)),
            PlyVerdict::TryCompleted => Some(Some(mover.opponent())),
            PlyVerdict::TryArmed => None,
            PlyVerdict::Neither => (self.pos.no_progress_limit_reached() || self.repeats()).then_some(None),
        };
        SimStep { result, captured, try_armed: verdict == PlyVerdict::TryArmed }
    }

    /// Records the new position's key and tells whether it already occurred on the line with the
    /// same side to move since the last irreversible move.
    fn repeats(&mut self) -> bool {
        let reversible = self.pos.halfmoves() as usize;
        if reversible < 4 {
            self.keys.push(0);
            return false;
        }
        let key = self.pos.repetition_key();
        let back = reversible.min(self.keys.len());
        let seen = self.keys[self.keys.len() - back..].iter().rev().skip(1).step_by(2).any(|&k| k == key);
        self.keys.push(key);
        seen
    }

    /// The result when the side to move has no legal move: the Try's racer or the mover wins,
    /// except in Dark Chess, where it is a draw (without a pending Try).
    pub fn no_moves_result(&self) -> SimResult {
        self.pos.winner_when_stuck()
    }
}

/// The value of a result for `side`: +1 win, 0 draw, -1 loss.
#[inline]
pub fn result_value(result: SimResult, side: Color) -> f32 {
    match result {
        None => 0.0,
        Some(w) if w == side => 1.0,
        Some(_) => -1.0,
    }
}
