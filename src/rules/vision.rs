//! What a side sees of the true position (RULES.md section 2): the squares seen in full and the
//! squares seen only as silhouettes. Part of the rules: the referee needs it to tell each side
//! what it sees, and `view` builds the views from it.

use super::{reach, Position};
use crate::core::attacks;
use crate::core::{Bitboard, Color, Role, Square};

/// The squares `side` sees in full and the squares it sees only as silhouettes (disjoint sets).
pub fn vision(pos: &Position, side: Color) -> (Bitboard, Bitboard) {
    let (seen, silhouettes, _) = vision_with_ep(pos, side);
    (seen, silhouettes)
}

/// [`vision`], plus the en-passant square `side` may capture on now.
pub(crate) fn vision_with_ep(pos: &Position, side: Color) -> (Bitboard, Bitboard, Option<Square>) {
    let board = pos.variant().board_mask();
    let own = pos.by_color(side);
    let enemies = pos.by_color(side.opponent());
    let occ = own | enemies;
    let mut seen = own;
    let mut silhouettes = Bitboard::EMPTY;
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King, Role::Soldier] {
        for sq in pos.pieces(side, role) {
            seen |= reach(role, side, sq, occ, enemies, board);
        }
    }
    for sq in pos.pieces(side, Role::Pawn) {
        seen |= reach(Role::Pawn, side, sq, occ, enemies, board);
    }
    let ep = pos.ep_square().filter(|_| pos.turn() == side);
    if let Some(ep) = ep {
        debug_assert!((attacks::pawn_attacks(side.opponent(), ep) & pos.pieces(side, Role::Pawn)).any());
        seen |= Bitboard::from_square(ep);
        seen |= Bitboard::from_square(Square::from_coords(ep.file(), (ep.rank() as i8 - side.forward()) as u8));
    }
    for sq in pos.pieces(side, Role::Cannon) {
        let c = attacks::cannon(sq, occ);
        seen |= (c.quiet & board) | (c.beyond & enemies);
        silhouettes |= c.screens;
    }
    for sq in pos.pieces(side, Role::Horse) {
        let (leaps, blocked_legs) = attacks::horse(sq, occ, board);
        seen |= leaps;
        silhouettes |= blocked_legs;
    }
    (seen, silhouettes & !seen, ep)
}
