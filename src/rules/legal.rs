//! The check-aware mode, for testing only: ordinary chess / crazyhouse / open Crossroads legality
//! (no move may leave one's own king attacked; no castling out of, through or into check), so that
//! the generator can be compared with published perft numbers of those games.

use super::movegen::{reach, MoveList};
use super::position::Position;
use crate::core::attacks;
use crate::core::{Bitboard, Color, MoveKind, Role, Square};

impl Position {
    /// True if any piece of `by` attacks `sq` (could capture a piece standing there).
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        self.attackers(sq, by, self.occupied()).any()
    }

    /// The pieces of `by` that attack `sq` on a board whose occupied squares are `occ`: pieces
    /// outside `occ` count as gone and lines run through the squares `occ` leaves empty, so an
    /// exchange on `sq` can be played out by taking pieces out of `occ` (x-rays included).
    pub fn attackers(&self, sq: Square, by: Color, occ: Bitboard) -> Bitboard {
        let board = self.variant.board_mask();
        let them = |role| self.pieces(by, role) & occ;
        let sliders_straight = them(Role::Rook) | them(Role::Queen);
        let sliders_diagonal = them(Role::Bishop) | them(Role::Queen);
        let mut found = (attacks::knight(sq) & them(Role::Knight))
            | (attacks::king(sq) & them(Role::King))
            | (attacks::pawn_attacks(by.opponent(), sq) & them(Role::Pawn))
            | (attacks::rook(sq, occ) & sliders_straight)
            | (attacks::bishop(sq, occ) & sliders_diagonal);
        if !self.variant.is_chess_board() {
            found |= attacks::cannon(sq, occ).beyond & them(Role::Cannon);
            let target = (self.by_color(by.opponent()) & occ).with(sq);
            for (role, near) in [(Role::Horse, attacks::knight(sq)), (Role::Soldier, attacks::king(sq))] {
                for from in near & them(role) {
                    if reach(role, by, from, occ, target, board).contains(sq) {
                        found |= Bitboard::from_square(from);
                    }
                }
            }
        }
        found
    }

    /// True if the king of `color` is attacked (false once it has been captured).
    pub fn in_check(&self, color: Color) -> bool {
        self.king(color).is_some_and(|k| self.is_attacked(k, color.opponent()))
    }

    /// The moves that are legal under ordinary check rules.
    pub fn legal_moves(&self) -> MoveList {
        let us = self.turn;
        let mut list = self.moves();
        list.retain(|m| {
            if m.kind == MoveKind::Castle {
                let transit = Square::from_coords((m.from.file() + m.to.file()) / 2, m.from.rank());
                if self.is_attacked(m.from, us.opponent()) || self.is_attacked(transit, us.opponent()) {
                    return false;
                }
            }
            let mut after = self.clone();
            after.play_unchecked(m);
            !after.in_check(us)
        });
        list
    }
}
