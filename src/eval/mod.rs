//! The hand-written evaluation of a (determinized) position: material including hands, king
//! exposure, mobility, and in Crossroads the king race and Try threats. Values are from the side
//! to move's point of view, in (-1, 1), so the search can back them up directly.

use crate::core::attacks;
use crate::core::{Bitboard, Color, Role, Variant};
use crate::engine::role_value;
use crate::rules::Position;

/// Pawns of evaluation that make the value about 0.76 (tanh(1)).
const SCALE: f32 = 6.0;
/// A piece in hand is worth this much of the same piece on the board.
const HAND_FACTOR: f32 = 0.9;
/// Value of one pseudo-legal move of mobility, in pawns.
const MOBILITY: f32 = 0.03;

/// The value of `pos` for the side to move: +1 is a certain win, -1 a certain loss.
pub fn evaluate(pos: &Position) -> f32 {
    let us = pos.turn();
    let them = us.opponent();
    let (Some(_), Some(their_king)) = (pos.king(us), pos.king(them)) else {
        return if pos.king(us).is_some() { 1.0 } else { -1.0 };
    };
    // The side to move takes a king it attacks: a win one ply away.
    if pos.is_attacked(their_king, us) {
        return 0.98;
    }
    let score = side_score(pos, us) - side_score(pos, them);
    (score / SCALE).tanh()
}

/// Everything in the evaluation that belongs to one side, in pawns.
fn side_score(pos: &Position, side: Color) -> f32 {
    let mut score = 0.0;
    for role in Role::ALL {
        if role == Role::King {
            continue;
        }
        let value = role_value(role) as f32;
        score += value * pos.pieces(side, role).count() as f32;
        score += HAND_FACTOR * value * pos.hand(side).count(role) as f32;
    }
    score += MOBILITY * mobility(pos, side) as f32;
    score -= king_exposure(pos, side);
    if pos.variant() == Variant::DarkCrossroads {
        score += race(pos, side);
    }
    score
}

/// The number of squares `side`'s pieces reach (a cheap mobility count that ignores pawns).
fn mobility(pos: &Position, side: Color) -> u32 {
    let board = pos.variant().board_mask();
    let occ = pos.occupied();
    let own = pos.by_color(side);
    let enemies = pos.by_color(side.opponent());
    let mut n = 0;
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::Cannon, Role::Horse] {
        for sq in pos.pieces(side, role) {
            n += (crate::rules::reach(role, side, sq, occ, enemies, board) & !own).count();
        }
    }
    n
}

/// How open `side`'s king is: enemy pieces nearby, and in Crazyhouse empty squares around it
/// that an enemy drop could use.
fn king_exposure(pos: &Position, side: Color) -> f32 {
    let Some(king) = pos.king(side) else { return 0.0 };
    let ring = attacks::king(king) & pos.variant().board_mask();
    let near = ring | attacks::knight(king);
    let enemies_near = (near & pos.by_color(side.opponent())).count() as f32;
    let mut exposure = 0.25 * enemies_near;
    let enemy_hand = pos.hand(side.opponent());
    if !enemy_hand.is_empty() {
        let empty_ring = (ring & !pos.occupied()).count() as f32;
        let strongest = enemy_hand.roles().map(role_value).fold(0.0, f64::max) as f32;
        exposure += 0.08 * empty_ring * strongest.min(9.0) / 3.0;
    }
    exposure
}

/// The Crossroads king race: progress toward the far rank, and a bonus when the far rank is one
/// step away on a square no enemy piece attacks.
fn race(pos: &Position, side: Color) -> f32 {
    let Some(king) = pos.king(side) else { return 0.0 };
    let progress = side.relative_rank(king.rank()) as f32;
    let mut score = 0.04 * progress * progress;
    let far = Bitboard::rank(if side == Color::White { 7 } else { 0 });
    let steps = attacks::king(king) & far & pos.variant().board_mask() & !pos.by_color(side);
    if Iterator::any(&mut steps.into_iter(), |sq| !pos.is_attacked(sq, side.opponent())) {
        score += 1.5;
    }
    score
}
