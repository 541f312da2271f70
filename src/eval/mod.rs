//! The hand-written evaluation of a (determinized) position: material including hands (valued by
//! what a drop could do), piece placement and development, pieces left hanging, the king's shelter
//! and exposure to the fog, mobility, and in Crossroads the king race and Try threats.
//!
//! [`score`] is in pawns for the side to move; [`to_value`] squashes pawns into (-1, 1), the scale
//! the search backs up.

use crate::core::attacks;
use crate::core::{Bitboard, Color, Role, Square, Variant};
use crate::rules::vision;
use crate::rules::Position;
use net::{Base, Net};
use std::sync::Arc;

pub mod features;
pub mod net;
pub mod samples;
pub mod see;

use see::piece_value;

/// Pawns of evaluation that make the value about 0.76 (tanh(1)).
const SCALE: f32 = 6.0;
/// A piece in hand is worth this much of the same piece on the board, before what its drop
/// could do near the enemy king.
const HAND_FACTOR: f32 = 0.9;
/// Value of one pseudo-legal move of mobility, in pawns.
const MOBILITY: f32 = 0.03;
/// The value of a won position (the enemy king can be taken), in pawns.
pub const WIN: f32 = 1000.0;
/// The value a certain win is given on the search's scale: short of a proven result.
const WIN_VALUE: f32 = 0.98;

/// A value in (-1, 1) as centipawns: the inverse of [`to_value`]'s squashing (values past
/// +-0.999 read as +-0.999).
pub fn to_centipawns(value: f32) -> i32 {
    (value.clamp(-0.999, 0.999).atanh() * (SCALE * 100.0)).round() as i32
}

/// A score in pawns as a value in (-1, 1); won and lost scores map to +-`WIN_VALUE`.
pub fn to_value(pawns: f32) -> f32 {
    if pawns.abs() >= WIN / 2.0 {
        WIN_VALUE.copysign(pawns)
    } else {
        (pawns / SCALE).tanh()
    }
}

/// The static score of `pos` for the side to move, in pawns ([`WIN`] when it can take the
/// enemy king, -[`WIN`] when its own is gone).
pub fn score(pos: &Position) -> f32 {
    decided(pos).unwrap_or_else(|| undecided_score(pos))
}

/// [`score`] of a position that [`decided`] leaves open.
fn undecided_score(pos: &Position) -> f32 {
    let us = pos.turn();
    let them = us.opponent();
    let maps = [AttackMap::of(pos, Color::White), AttackMap::of(pos, Color::Black)];
    side_score(pos, us, &maps) - side_score(pos, them, &maps) - hanging(pos, us, &maps)
}

/// [`WIN`] when the side to move can take the enemy king, -[`WIN`] when its own is gone, else `None`.
fn decided(pos: &Position) -> Option<f32> {
    let us = pos.turn();
    let (Some(_), Some(their_king)) = (pos.king(us), pos.king(us.opponent())) else {
        return Some(if pos.king(us).is_some() { WIN } else { -WIN });
    };
    pos.is_attacked(their_king, us).then_some(WIN)
}

/// Largest score the net may give, in pawns (far from [`WIN`], which only a decided position
/// gets); the trainer clamps the base scores it trains on to it too.
pub const NET_LIMIT: f32 = 50.0;

/// Which evaluation values the search's leaves (the `Eval` and `EvalFile` options). Two are
/// equal when they are the hand evaluation or the same loaded net.
#[derive(Clone, Debug, Default)]
pub enum Evaluator {
    /// The hand-written [`score`].
    #[default]
    Hand,
    /// A learned net.
    Net(Arc<Net>),
}

impl PartialEq for Evaluator {
    fn eq(&self, other: &Evaluator) -> bool {
        match (self, other) {
            (Evaluator::Hand, Evaluator::Hand) => true,
            (Evaluator::Net(a), Evaluator::Net(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for Evaluator {}

impl Evaluator {
    /// The score of `pos` for the side to move, in pawns, as [`score`] gives it.
    #[inline]
    pub fn score(&self, pos: &Position) -> f32 {
        match self {
            Evaluator::Hand => score(pos),
            Evaluator::Net(net) => decided(pos).unwrap_or_else(|| {
                let base = match net.base {
                    Base::Hand => net.base_weight * undecided_score(pos),
                    Base::Zero => 0.0,
                };
                (base + net.evaluate(pos)).clamp(-NET_LIMIT, NET_LIMIT)
            }),
        }
    }

    /// `hand`, or `net` (the option value).
    pub fn name(&self) -> &'static str {
        match self {
            Evaluator::Hand => "hand",
            Evaluator::Net(_) => "net",
        }
    }
}

/// The squares one side's pieces attack, by the value of the cheapest attacker, and its mobility.
struct AttackMap {
    /// Squares attacked by a piece of each class (pawns and soldiers; minor pieces; rooks and
    /// cannons; queens; the king).
    by_class: [Bitboard; 5],
    /// Squares attacked by any piece.
    all: Bitboard,
    /// Pseudo-legal moves of the pieces other than pawns, soldiers and the king.
    mobility: u32,
}

/// The value of the cheapest piece of each [`AttackMap`] class.
const CLASS_VALUE: [f32; 5] = [1.0, 3.0, 4.5, 9.0, 1000.0];

impl AttackMap {
    fn of(pos: &Position, side: Color) -> AttackMap {
        let board = pos.variant().board_mask();
        let occ = pos.occupied();
        let own = pos.by_color(side);
        let mut by_class = [Bitboard::EMPTY; 5];
        let mut mobility = 0;
        for sq in pos.pieces(side, Role::Pawn) {
            by_class[0] |= attacks::pawn_attacks(side, sq) & board;
        }
        for sq in pos.pieces(side, Role::Soldier) {
            by_class[0] |= attacks::soldier(side, sq) & board;
        }
        for (class, role) in [
            (1, Role::Knight),
            (1, Role::Bishop),
            (1, Role::Horse),
            (2, Role::Rook),
            (2, Role::Cannon),
            (3, Role::Queen),
        ] {
            for sq in pos.pieces(side, role) {
                let reach = match role {
                    Role::Cannon => attacks::cannon(sq, occ).beyond,
                    _ => crate::rules::reach(role, side, sq, occ, Bitboard::EMPTY, board),
                };
                by_class[class] |= reach;
                let moves = match role {
                    Role::Cannon => {
                        let c = attacks::cannon(sq, occ);
                        (c.quiet & board) | (c.beyond & !own)
                    }
                    _ => reach & !own,
                };
                mobility += moves.count();
            }
        }
        if let Some(king) = pos.king(side) {
            by_class[4] = attacks::king(king) & board;
        }
        let all = by_class.iter().fold(Bitboard::EMPTY, |a, &b| a | b);
        AttackMap { by_class, all, mobility }
    }

    /// The value of the cheapest piece attacking `sq`, if any does.
    fn cheapest_on(&self, sq: Square) -> Option<f32> {
        (0..5).find(|&c| self.by_class[c].contains(sq)).map(|c| CLASS_VALUE[c])
    }
}

/// Everything in the evaluation that belongs to one side, in pawns.
fn side_score(pos: &Position, side: Color, maps: &[AttackMap; 2]) -> f32 {
    let enemy_attacks = maps[side.opponent().index()].all;
    let mut score = 0.0;
    for role in Role::ALL {
        if role == Role::King {
            continue;
        }
        score += piece_value(role) * pos.pieces(side, role).count() as f32;
    }
    score += hand_score(pos, side, enemy_attacks);
    score += placement(pos, side);
    score += MOBILITY * maps[side.index()].mobility as f32;
    score -= king_exposure(pos, side);
    if pos.variant() == Variant::DarkCrossroads {
        score += race(pos, side, enemy_attacks);
    } else {
        score += shelter(pos, side);
    }
    score
}

/// True while `side`'s enemy still has the material to attack a king (a queen's worth of
/// pieces besides pawns, on the board or in hand): kings hide, rather than centralise.
fn middlegame(pos: &Position, side: Color) -> bool {
    let enemy = side.opponent();
    let on_board: f32 = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::Cannon, Role::Horse]
        .into_iter()
        .map(|r| piece_value(r) * pos.pieces(enemy, r).count() as f32)
        .sum();
    let in_hand: f32 = pos.hand(enemy).roles().map(|r| piece_value(r) * pos.hand(enemy).count(r) as f32).sum();
    on_board + in_hand >= 9.0
}

/// Where `side`'s pieces stand: central knights and bishops, advanced pawns and soldiers, rooks
/// on the seventh, minor pieces off their home rank, the queen kept home until they are out, and
/// a king that stays back (castled) while the enemy has attackers (under fog a king never
/// walks out to the centre: what it cannot see takes it).
fn placement(pos: &Position, side: Color) -> f32 {
    let variant = pos.variant();
    let width = variant.width();
    let chess = variant.is_chess_board();
    let hiding = middlegame(pos, side);
    let centre = |sq: Square| {
        let file = sq.file().min(width - 1 - sq.file()) as f32;
        let rank = sq.rank().min(7 - sq.rank()) as f32;
        (file, rank)
    };
    let rel_rank = |sq: Square| side.relative_rank(sq.rank());
    let home_minors = (pos.pieces(side, Role::Knight) | pos.pieces(side, Role::Bishop))
        & Bitboard::rank(if side == Color::White { 0 } else { 7 });
    let undeveloped = if chess { home_minors.count() } else { 0 };
    let mut score = -0.15 * undeveloped as f32;
    for sq in pos.pieces(side, Role::Pawn) {
        const ADVANCE: [f32; 8] = [0.0, 0.0, 0.04, 0.1, 0.2, 0.4, 0.7, 0.0];
        let (file, _) = centre(sq);
        score += ADVANCE[rel_rank(sq) as usize];
        if file >= 2.0 && (2..=4).contains(&rel_rank(sq)) {
            score += 0.1;
        }
    }
    for sq in pos.pieces(side, Role::Soldier) {
        score += 0.06 * rel_rank(sq) as f32;
    }
    for sq in pos.pieces(side, Role::Knight) | pos.pieces(side, Role::Horse) {
        let (file, rank) = centre(sq);
        score += 0.06 * (file + rank);
        if file == 0.0 {
            score -= 0.2;
        }
    }
    for sq in pos.pieces(side, Role::Bishop) | pos.pieces(side, Role::Cannon) {
        let (file, rank) = centre(sq);
        score += 0.03 * (file + rank);
    }
    let own_pawns = pos.pieces(side, Role::Pawn);
    for sq in pos.pieces(side, Role::Rook) {
        if rel_rank(sq) == 6 {
            score += 0.2;
        }
        if (Bitboard::file(sq.file()) & own_pawns).is_empty() {
            score += 0.12;
        }
    }
    for sq in pos.pieces(side, Role::Queen) {
        if hiding && undeveloped >= 2 && rel_rank(sq) >= 2 {
            score -= 0.25;
        }
    }
    if let (true, true, Some(king)) = (chess, hiding, pos.king(side)) {
        let rank = rel_rank(king);
        score -= 0.3 * rank.min(3) as f32;
        if rank == 0 && matches!(king.file(), 1 | 2 | 6) {
            score += 0.3;
        }
    }
    score
}

/// The pawns in front of a king that stays back in a chess game, while the enemy can attack it.
fn shelter(pos: &Position, side: Color) -> f32 {
    let Some(king) = pos.king(side) else { return 0.0 };
    if !middlegame(pos, side) || side.relative_rank(king.rank()) > 1 {
        return 0.0;
    }
    let pawns = pos.pieces(side, Role::Pawn);
    let mut score = 0.0;
    for df in -1i8..=1 {
        for (step, worth) in [(1i8, 0.15), (2, 0.07)] {
            if king.offset(df, step * side.forward()).is_some_and(|sq| pawns.contains(sq)) {
                score += worth;
            }
        }
    }
    score
}

/// The pieces in `side`'s hand: most of their board value, more when a drop would attack the
/// enemy king from a square the enemy does not guard.
fn hand_score(pos: &Position, side: Color, enemy_attacks: Bitboard) -> f32 {
    let hand = pos.hand(side);
    if hand.is_empty() {
        return 0.0;
    }
    let king = pos.king(side.opponent());
    let mut score = 0.0;
    for role in hand.roles() {
        score += HAND_FACTOR * piece_value(role) * hand.count(role) as f32;
        let Some(king) = king else { continue };
        let safe = (drop_squares_attacking(pos, role, king, side) & !enemy_attacks).count().min(3);
        score += 0.2 * safe as f32;
    }
    score
}

/// The empty squares onto which `dropper` may drop a `role` that then attacks the square `king`
/// (no pawn on the first or last rank).
pub fn drop_squares_attacking(pos: &Position, role: Role, king: Square, dropper: Color) -> Bitboard {
    let occ = pos.occupied();
    let from = match role {
        Role::Knight => attacks::knight(king),
        Role::Bishop => attacks::bishop(king, occ),
        Role::Rook => attacks::rook(king, occ),
        Role::Queen => attacks::queen(king, occ),
        Role::Pawn => attacks::pawn_attacks(dropper.opponent(), king) & !(Bitboard::rank(0) | Bitboard::rank(7)),
        _ => Bitboard::EMPTY,
    };
    from & pos.variant().board_mask() & !occ
}

/// Pieces of the side to move that the enemy attacks with a cheaper piece or that stand
/// unguarded under attack: it can save one, so the second worst costs most of its value.
fn hanging(pos: &Position, side: Color, maps: &[AttackMap; 2]) -> f32 {
    let (own, enemy) = (&maps[side.index()], &maps[side.opponent().index()]);
    let mut worst = [0.0f32; 2];
    for sq in pos.by_color(side) & !pos.pieces(side, Role::King) & enemy.all {
        let (Some(role), Some(cheapest)) = (pos.role_at(sq), enemy.cheapest_on(sq)) else { continue };
        let value = piece_value(role);
        let loss = if own.all.contains(sq) { value - cheapest } else { value };
        if loss > worst[1] {
            worst[1] = loss;
            if worst[1] > worst[0] {
                worst.swap(0, 1);
            }
        }
    }
    0.1 * worst[0] + 0.6 * worst[1]
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
    let blind_drops = blind_drop_squares_in(pos, side, seen | silhouettes).count().min(6) as f32;
    0.25 * enemies_near + 0.12 * blind_lines + 0.6 * blind_drops
}

/// Empty squares `side` cannot see from which a piece in the enemy's hand, once dropped, would
/// attack `side`'s king: a drop there stays hidden and takes the king on the next move.
pub fn blind_drop_squares(pos: &Position, side: Color) -> Bitboard {
    if pos.hand(side.opponent()).is_empty() {
        return Bitboard::EMPTY;
    }
    let (seen, silhouettes) = vision(pos, side);
    blind_drop_squares_in(pos, side, seen | silhouettes)
}

/// [`blind_drop_squares`] given the squares `side` sees (in full or as silhouettes).
fn blind_drop_squares_in(pos: &Position, side: Color, visible: Bitboard) -> Bitboard {
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
    from & pos.variant().board_mask() & !occ & !visible
}

/// The Crossroads king race: progress toward the far rank, and a bonus when the far rank is one
/// step away on a square no enemy piece attacks.
fn race(pos: &Position, side: Color, enemy_attacks: Bitboard) -> f32 {
    let Some(king) = pos.king(side) else { return 0.0 };
    let progress = side.relative_rank(king.rank()) as f32;
    let mut score = 0.04 * progress * progress;
    let far = Bitboard::rank(if side == Color::White { 7 } else { 0 });
    let steps = attacks::king(king) & far & pos.variant().board_mask() & !pos.by_color(side);
    if (steps & !enemy_attacks).any() {
        score += 1.5;
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Centipawns are the inverse of the squashing: a score survives the round trip to the
    /// centipawn, and values near +-1 read as large but finite scores.
    #[test]
    fn to_centipawns_inverts_to_value() {
        for pawns in [-7.5f32, -1.0, -0.13, 0.0, 0.42, 3.0, 9.0] {
            assert_eq!(to_centipawns(to_value(pawns)), (pawns * 100.0).round() as i32, "{pawns}");
        }
        assert!(to_centipawns(1.0) > 2000 && to_centipawns(1.0) == -to_centipawns(-1.0));
    }
}
