//! Move priors for PUCT from a cheap heuristic: king captures first, then captures by the value
//! taken, promotions, then quiet moves and drops.

use crate::core::{Move, MoveKind, Role};
use crate::engine::role_value;
use crate::rules::Position;

/// Softmax temperature over heuristic scores (in pawns).
const TEMPERATURE: f32 = 1.5;

/// The heuristic score of `m` in `pos`, in pawns.
pub fn move_score(pos: &Position, m: Move) -> f32 {
    let victim = match m.kind {
        MoveKind::Drop(_) | MoveKind::Castle => None,
        MoveKind::EnPassant => Some(Role::Pawn),
        _ => pos.role_at(m.to),
    };
    let mut score = match victim {
        Some(Role::King) => 30.0,
        Some(role) => role_value(role) as f32,
        None => 0.0,
    };
    match m.kind {
        MoveKind::Promotion(Role::Queen) => score += 6.0,
        MoveKind::Promotion(_) => score -= 1.0,
        MoveKind::Drop(_) => score -= 1.0,
        _ => {}
    }
    score
}

/// Priors for `moves` in `pos`, summing to one.
pub fn priors(pos: &Position, moves: &[Move]) -> Vec<f32> {
    let scores: Vec<f32> = moves.iter().map(|&m| move_score(pos, m)).collect();
    let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = scores.iter().map(|s| ((s - max) / TEMPERATURE).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.into_iter().map(|e| e / sum).collect()
}
