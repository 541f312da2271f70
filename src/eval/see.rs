//! Static exchange evaluation: what a move wins or loses on its target square once both sides
//! have made every profitable capture there, least valuable attacker first (x-rays included).
//! Quiet moves and drops are exchanges too: a piece put where it can be taken for free "loses"
//! its value.

use crate::core::role_value;
use crate::core::{Bitboard, Color, Move, MoveKind, Role, Square};
use crate::rules::Position;

/// Value of a piece in exchanges, in pawns (the king's is larger than any exchange).
#[inline]
pub fn piece_value(role: Role) -> f32 {
    role_value(role) as f32
}

/// The roles in the order an exchange spends them: cheapest first, the king last.
const CHEAPEST_FIRST: [Role; 9] = [
    Role::Pawn,
    Role::Soldier,
    Role::Knight,
    Role::Horse,
    Role::Bishop,
    Role::Cannon,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// The piece value `m` captures (0 for a quiet move or a drop).
#[inline]
pub fn captured_value(pos: &Position, m: Move) -> f32 {
    match m.kind {
        MoveKind::EnPassant => piece_value(Role::Pawn),
        MoveKind::Drop(_) | MoveKind::Castle => 0.0,
        _ => pos.role_at(m.to).map_or(0.0, piece_value),
    }
}

/// The material `m` wins for the side to move, in pawns, when the exchange it starts on its
/// target square is played out by both sides stopping when it suits them.
pub fn see(pos: &Position, m: Move) -> f32 {
    if m.kind == MoveKind::Castle {
        return 0.0;
    }
    let us = pos.turn();
    let to = m.to;
    let mut occ = pos.occupied();
    let mut on_square = match m.kind {
        MoveKind::Drop(role) => role,
        MoveKind::Promotion(role) => role,
        _ => pos.role_at(m.from).unwrap_or(Role::Pawn),
    };
    let mut gain = [0.0f32; 40];
    gain[0] = captured_value(pos, m);
    if let MoveKind::Promotion(role) = m.kind {
        gain[0] += piece_value(role) - piece_value(Role::Pawn);
    }
    if gain[0] >= piece_value(Role::King) {
        return gain[0];
    }
    if !m.is_drop() {
        occ = occ.without(m.from);
    }
    if m.kind == MoveKind::EnPassant {
        occ = occ.without(Square::from_coords(to.file(), m.from.rank()));
    }
    occ = occ.with(to);
    let mut side = us.opponent();
    let mut depth = 0;
    while depth + 1 < gain.len() {
        let Some((from, role)) = cheapest_attacker(pos, to, side, occ) else { break };
        depth += 1;
        gain[depth] = piece_value(on_square) - gain[depth - 1];
        // Neither side can do better than stopping here whatever follows: cut the sequence.
        if gain[depth].max(-gain[depth - 1]) < 0.0 && depth > 1 {
            break;
        }
        on_square = role;
        occ = occ.without(from);
        side = side.opponent();
    }
    while depth > 0 {
        gain[depth - 1] = -(-gain[depth - 1]).max(gain[depth]);
        depth -= 1;
    }
    gain[0]
}

/// The least valuable piece of `side` attacking `sq` over the occupancy `occ`.
#[inline]
fn cheapest_attacker(pos: &Position, sq: Square, side: Color, occ: Bitboard) -> Option<(Square, Role)> {
    let attackers = pos.attackers(sq, side, occ);
    if attackers.is_empty() {
        return None;
    }
    CHEAPEST_FIRST.into_iter().find_map(|role| (attackers & pos.pieces(side, role)).first().map(|sq| (sq, role)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    fn see_of(variant: Variant, fen: &str, uci: &str) -> f32 {
        let pos = Position::from_fen(variant, fen).unwrap();
        let m = pos.find_move(Move::parse(uci, variant).unwrap()).unwrap();
        see(&pos, m)
    }

    #[test]
    fn exchanges_are_played_out_with_the_cheapest_attacker_and_x_rays() {
        // A pawn defended by a pawn: the queen that takes it is lost.
        assert_eq!(see_of(Variant::DarkChess, "4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1", "d2d5"), 1.0 - 9.0);
        // An undefended knight: won.
        assert_eq!(see_of(Variant::DarkChess, "4k3/8/8/3n4/8/8/3Q4/4K3 w - - 0 1", "d2d5"), 3.0);
        // Rook takes a rook defended by a rook, our second rook behind ours (x-ray): R for R.
        assert_eq!(see_of(Variant::DarkChess, "3rk3/8/8/3r4/8/8/3R4/3RK3 w - - 0 1", "d2d5"), 5.0);
        // A quiet move onto a square a pawn attacks loses the piece.
        assert_eq!(see_of(Variant::DarkChess, "4k3/8/2p5/8/8/8/8/1N2K3 w - - 0 1", "b1d2"), 0.0);
        assert_eq!(see_of(Variant::DarkChess, "4k3/8/4p3/8/8/4N3/8/4K3 w - - 0 1", "e3d5"), -3.0);
        // A drop next to the enemy king, defended: the king cannot take it.
        assert_eq!(see_of(Variant::DarkCrazyhouse, "4k3/8/8/8/8/8/8/4KQ2[N] w - - 0 1", "N@f7"), 0.0);
        // A drop the king can take for free.
        assert_eq!(see_of(Variant::DarkCrazyhouse, "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1", "N@e7"), -3.0);
    }

    #[test]
    fn crossroads_cannons_need_a_screen() {
        // The white chariot takes a soldier the black cannon guards over the screen on a4.
        let fen = "c5/6/6/6/k5/6/o5/V3K1 w - - 0 1";
        assert_eq!(see_of(Variant::DarkCrossroads, fen, "a1a2"), 1.0 - 5.0);
    }
}
