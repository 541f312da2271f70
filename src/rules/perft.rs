//! Perft: counting the tree of pseudo-legal moves (or of legal moves in the check-aware mode).

use super::position::Position;
use crate::core::Move;

/// Which moves perft counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Legality {
    /// The pseudo-legal moves of the fog games (RULES.md section 6).
    Pseudo,
    /// Ordinary check rules (testing only).
    CheckAware,
}

/// Leaf nodes of the move tree `depth` plies deep.
pub fn perft(pos: &Position, depth: u32, legality: Legality) -> u64 {
    match (depth, legality) {
        (0, _) => 1,
        (1, Legality::Pseudo) => pos.count_moves(),
        (1, Legality::CheckAware) => pos.legal_moves().len() as u64,
        _ => {
            let moves = match legality {
                Legality::Pseudo => pos.moves(),
                Legality::CheckAware => pos.legal_moves(),
            };
            moves
                .iter()
                .map(|&m| {
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    perft(&child, depth - 1, legality)
                })
                .sum()
        }
    }
}

/// Perft split by root move, in generation order.
pub fn divide(pos: &Position, depth: u32, legality: Legality) -> Vec<(Move, u64)> {
    let moves = match legality {
        Legality::Pseudo => pos.moves(),
        Legality::CheckAware => pos.legal_moves(),
    };
    moves
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (m, perft(&child, depth.saturating_sub(1), legality))
        })
        .collect()
}
