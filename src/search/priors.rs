//! Move priors for PUCT from a cheap heuristic: king captures first, then captures by the value
//! taken, promotions, quiet moves, and drops by what they risk (static exchange evaluation: a drop
//! where it is taken for free is worth its loss) and whether they attack the enemy king.
//!
//! Board moves are not judged by their exchanges: measured in games, exchange-based priors for
//! them lost heavily in Dark Chess and Dark Crossroads (the tree then hardly looks at the moves it
//! calls losing), while for drops they are what makes the Crazyhouse search work.

use crate::core::{Move, MoveKind, Role};
use crate::eval::drop_squares_attacking;
use crate::eval::see::{piece_value, see};
use crate::rules::Position;

/// Softmax temperature over heuristic scores (in pawns).
const TEMPERATURE: f32 = 1.5;

/// The heuristic score of `m` in `pos`, in pawns.
fn move_score(pos: &Position, m: Move) -> f32 {
    match m.kind {
        MoveKind::Drop(role) => {
            let exchange = see(pos, m);
            let check = exchange >= 0.0 && attacks_king_after_drop(pos, role, m);
            exchange + if check { 1.0 } else { -0.5 }
        }
        MoveKind::Castle => 0.0,
        MoveKind::EnPassant => piece_value(Role::Pawn),
        MoveKind::Normal | MoveKind::Promotion(_) => {
            let victim = match pos.role_at(m.to) {
                Some(Role::King) => 30.0,
                Some(role) => piece_value(role),
                None => 0.0,
            };
            victim
                + match m.kind {
                    MoveKind::Promotion(Role::Queen) => 6.0,
                    MoveKind::Promotion(_) => -1.0,
                    _ => 0.0,
                }
        }
    }
}

/// True if a piece of `role` dropped by `m` attacks the enemy king.
fn attacks_king_after_drop(pos: &Position, role: Role, m: Move) -> bool {
    let us = pos.turn();
    pos.king(us.opponent()).is_some_and(|king| drop_squares_attacking(pos, role, king, us).contains(m.to))
}

/// Priors for `moves` in `pos`, summing to one.
pub fn priors(pos: &Position, moves: &[Move]) -> Vec<f32> {
    let scores: Vec<f32> = moves.iter().map(|&m| move_score(pos, m)).collect();
    let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = scores.iter().map(|s| ((s - max) / TEMPERATURE).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.into_iter().map(|e| e / sum).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    fn prior_of(variant: Variant, fen: &str, uci: &str) -> f32 {
        let pos = Position::from_fen(variant, fen).unwrap();
        let moves = pos.moves();
        let wanted = pos.find_move(Move::parse(uci, variant).unwrap()).unwrap();
        let p = priors(&pos, &moves);
        p[moves.iter().position(|&m| m == wanted).unwrap()]
    }

    #[test]
    fn captures_lead_and_drops_are_judged_by_what_they_risk() {
        let fen = "4k3/8/8/3r4/8/8/3Q4/4K3 w - - 0 1";
        assert!(prior_of(Variant::DarkChess, fen, "d2d5") > 5.0 * prior_of(Variant::DarkChess, fen, "d2d3"));
        // A knight dropped where the king takes it for free, against one that attacks the king
        // from a guarded square.
        let fen = "4k3/8/8/8/8/8/8/4KQ2[N] w - - 0 1";
        let free = prior_of(Variant::DarkCrazyhouse, fen, "N@e7");
        let check = prior_of(Variant::DarkCrazyhouse, fen, "N@f6");
        assert!(check > 10.0 * free, "check {check} free {free}");
    }
}
