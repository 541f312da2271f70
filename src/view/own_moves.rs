//! The moves a side can decide from its own view: every board move of its own pieces is fully
//! determined by what it sees, and drops may target any square not known to be occupied.

use super::View;
use crate::core::attacks;
use crate::core::{Bitboard, Color, Move, MoveKind, Role, Square};
use crate::rules::{pawn_pushes, reach, Castling, MoveList, MoveSink};

impl View {
    /// Every move the viewer may choose now: board moves of its own pieces (exactly its
    /// pseudo-legal moves in the true position), castling with the given own rights, and drops
    /// onto any square not known to be occupied, except squares in `bounced` (drops that already
    /// bounced this turn).
    pub fn own_moves(&self, castling: Castling, bounced: Bitboard) -> MoveList {
        let mut list = MoveList::new();
        let side = self.side();
        let board = self.variant().board_mask();
        let own = self.by_color(side);
        let known_enemies = self.by_color(side.opponent());
        let occ = own | known_enemies;
        for role in Role::ALL {
            if role == Role::Pawn {
                continue;
            }
            for sq in self.pieces(side, role) {
                list.push_targets(sq, reach(role, side, sq, occ, known_enemies, board) & !own);
            }
        }
        self.own_pawn_moves(&mut list, occ | self.fog(), known_enemies);
        self.own_castling(&mut list, castling);
        let free = self.fog() | (self.seen() & !occ);
        for role in self.hand().roles() {
            let back = if role == Role::Pawn { Bitboard::rank(0) | Bitboard::rank(7) } else { Bitboard::EMPTY };
            list.push_drops(role, free & !back & !bounced);
        }
        list
    }

    fn own_pawn_moves(&self, list: &mut MoveList, blocked: Bitboard, known_enemies: Bitboard) {
        let side = self.side();
        let board = self.variant().board_mask();
        let last_rank = if side == Color::White { 7 } else { 0 };
        for from in self.pieces(side, Role::Pawn) {
            let targets = pawn_pushes(side, from, blocked, board) | (attacks::pawn_attacks(side, from) & known_enemies);
            if let Some(ep) = self.ep_square().filter(|&ep| attacks::pawn_attacks(side, from).contains(ep)) {
                list.push(Move { from, to: ep, kind: MoveKind::EnPassant });
            }
            for to in targets {
                if to.rank() == last_rank {
                    for &role in self.variant().promotion_roles() {
                        list.push(Move { from, to, kind: MoveKind::Promotion(role) });
                    }
                } else {
                    list.push(Move::normal(from, to));
                }
            }
        }
    }

    fn own_castling(&self, list: &mut MoveList, castling: Castling) {
        let side = self.side();
        let king = Castling::king_square(side);
        if !self.variant().is_chess_board() || !self.pieces(side, Role::King).contains(king) {
            return;
        }
        for king_side in [true, false] {
            let rook = Castling::rook_square(side, king_side);
            if !castling.has(side, king_side) || !self.pieces(side, Role::Rook).contains(rook) {
                continue;
            }
            let between: &[u8] = if king_side { &[5, 6] } else { &[1, 2, 3] };
            let empty = self.seen() & !self.by_color(Color::White) & !self.by_color(Color::Black);
            if between.iter().all(|&f| empty.contains(Square::from_coords(f, king.rank()))) {
                let to = Square::from_coords(if king_side { 6 } else { 2 }, king.rank());
                list.push(Move { from: king, to, kind: MoveKind::Castle });
            }
        }
    }
}
