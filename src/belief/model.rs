//! How likely each of the opponent's pseudo-legal moves is in a world: uniform (exactly right
//! against a random mover), biased towards captures, or a mixture of uniform and greedy (always
//! the most valuable capture it can make) whose share is learned from the game.

use crate::core::role_value;
use crate::core::{Color, Move, MoveKind, Role};
use crate::rules::Position;

/// How likely the belief takes each pseudo-legal opponent move to be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OpponentModel {
    /// Every move (drops included) equally likely.
    Uniform,
    /// A capture of one of the engine's pieces weighs `1 + bias * value of the victim` (in
    /// pawns, a king 1000) against 1 for any other move.
    CaptureBias(f64),
    /// A mixture of uniform and greedy (the most valuable capture of an engine's piece, ties
    /// alike, else uniform); the greedy share starts at one half and follows how well each
    /// explains the opponent's plies so far (Bayes' rule over the belief's worlds).
    Adaptive,
}

/// The value of the engine's piece that `m` captures in `pos`, if it captures one.
fn capture_value(pos: &Position, m: Move, side: Color) -> Option<f64> {
    match m.kind {
        MoveKind::EnPassant => Some(role_value(Role::Pawn)),
        MoveKind::Drop(_) | MoveKind::Castle => None,
        _ => pos.by_color(side).contains(m.to).then(|| pos.role_at(m.to)).flatten().map(role_value),
    }
}

/// The chances of the moves of one world (the engine is `side`), under a model whose greedy
/// share is `greedy_share` (used by [`OpponentModel::Adaptive`] only).
pub struct MoveChances {
    model: OpponentModel,
    side: Color,
    moves: f64,
    biased_total: f64,
    best: Option<f64>,
    best_count: f64,
    greedy_share: f64,
}

impl MoveChances {
    /// The chances of `moves`, the pseudo-legal moves of `pos`.
    pub fn new(model: OpponentModel, greedy_share: f64, pos: &Position, moves: &[Move], side: Color) -> MoveChances {
        let mut chances = MoveChances {
            model,
            side,
            moves: moves.len().max(1) as f64,
            biased_total: 0.0,
            best: None,
            best_count: 0.0,
            greedy_share,
        };
        match model {
            OpponentModel::Uniform => {}
            OpponentModel::CaptureBias(bias) => {
                chances.biased_total =
                    moves.iter().map(|&m| 1.0 + bias * capture_value(pos, m, side).unwrap_or(0.0)).sum();
            }
            OpponentModel::Adaptive => {
                for v in moves.iter().filter_map(|&m| capture_value(pos, m, side)) {
                    match chances.best {
                        Some(b) if v < b => {}
                        Some(b) if v == b => chances.best_count += 1.0,
                        _ => (chances.best, chances.best_count) = (Some(v), 1.0),
                    }
                }
            }
        }
        chances
    }

    /// The chance of `m` under a uniform mover.
    pub fn uniform(&self) -> f64 {
        1.0 / self.moves
    }

    /// The chance of `m` under a greedy mover.
    pub fn greedy(&self, pos: &Position, m: Move) -> f64 {
        match self.best {
            None => self.uniform(),
            Some(best) if capture_value(pos, m, self.side) == Some(best) => 1.0 / self.best_count,
            Some(_) => 0.0,
        }
    }

    /// The chance of `m` under the model.
    pub fn chance(&self, pos: &Position, m: Move) -> f64 {
        match self.model {
            OpponentModel::Uniform => self.uniform(),
            OpponentModel::CaptureBias(bias) => {
                (1.0 + bias * capture_value(pos, m, self.side).unwrap_or(0.0)) / self.biased_total
            }
            OpponentModel::Adaptive => {
                self.greedy_share * self.greedy(pos, m) + (1.0 - self.greedy_share) * self.uniform()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    #[test]
    fn chances_sum_to_one_and_greedy_takes_the_most_valuable_capture() {
        // Black to move may take the queen on d4 (pawn e5) or the knight on h4 (rook h8).
        let pos = Position::from_fen(Variant::DarkChess, "4k2r/8/8/4p3/3Q3N/8/8/4K3 b - - 0 1").unwrap();
        let moves = pos.moves();
        for (model, share) in
            [(OpponentModel::Uniform, 0.0), (OpponentModel::CaptureBias(1.0), 0.0), (OpponentModel::Adaptive, 0.3)]
        {
            let chances = MoveChances::new(model, share, &pos, &moves, Color::White);
            let total: f64 = moves.iter().map(|&m| chances.chance(&pos, m)).sum();
            assert!((total - 1.0).abs() < 1e-9, "{model:?}: {total}");
        }
        let chances = MoveChances::new(OpponentModel::Adaptive, 1.0, &pos, &moves, Color::White);
        for &m in moves.iter() {
            let takes_queen = m.to.to_string() == "d4";
            assert_eq!(chances.greedy(&pos, m), if takes_queen { 1.0 } else { 0.0 }, "{m:?}");
        }
    }
}
