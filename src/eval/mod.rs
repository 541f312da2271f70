//! The hand-written evaluation of a (determinized) position: material including hands, king
//! exposure, mobility, and in Crossroads the king race and Try threats. Values are from the side
//! to move's point of view, in (-1, 1), so the search can back them up directly.

use crate::core::attacks;
use crate::core::{Bitboard, Color, Role, Variant};
use crate::engine::role_value;
use crate::rules::Position;
use crate::view::vision;

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

/// How open `side`'s king is: enemy pieces nearby; squares `side` cannot see from which a
/// hidden piece could strike it (open lines and knight jumps into the fog); and in Crazyhouse the
/// squares from which a piece of the enemy's hand, dropped unseen, would attack it.
fn king_exposure(pos: &Position, side: Color) -> f32 {
    let Some(king) = pos.king(side) else { return 0.0 };
    let near = attacks::king(king) | attacks::knight(king);
    let enemies_near = (near & pos.by_color(side.opponent())).count() as f32;
    let occ = pos.occupied();
    let lines = attacks::queen(king, occ) | attacks::knight(king);
    let (seen, silhouettes) = vision(pos, side);
    let blind_lines = (lines & pos.variant().board_mask() & !seen & !silhouettes).count() as f32;
    0.25 * enemies_near + 0.12 * blind_lines + 0.6 * blind_drop_squares(pos, side).count().min(6) as f32
}

/// Empty squares `side` cannot see from which a piece in the enemy's hand, once dropped, would
/// attack `side`'s king: a drop there stays hidden and takes the king on the next move.
pub fn blind_drop_squares(pos: &Position, side: Color) -> Bitboard {
    let hand = pos.hand(side.opponent());
    let Some(king) = pos.king(side).filter(|_| !hand.is_empty()) else { return Bitboard::EMPTY };
    let occ = pos.occupied();
    let has = |role| hand.count(role) > 0;
    let mut from = Bitboard::EMPTY;
    if has(Role::Knight) {
        from |= attacks::knight(king);
    }
    if has(Role::Bishop) || has(Role::Queen) {
        from |= attacks::bishop(king, occ);
    }
    if has(Role::Rook) || has(Role::Queen) {
        from |= attacks::rook(king, occ);
    }
    if has(Role::Pawn) {
        from |= attacks::pawn_attacks(side, king) & !(Bitboard::rank(0) | Bitboard::rank(7));
    }
    let (seen, silhouettes) = vision(pos, side);
    from & pos.variant().board_mask() & !occ & !seen & !silhouettes
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
