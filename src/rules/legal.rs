//! The check-aware mode, for testing only: ordinary chess / crazyhouse / open Crossroads legality
//! (no move may leave one's own king attacked; no castling out of, through or into check), so that
//! the generator can be compared with published perft numbers of those games.

use super::movegen::{reach, MoveList};
use super::position::Position;
use crate::core::attacks;
use crate::core::{Color, MoveKind, Role, Square};

impl Position {
    /// True if any piece of `by` attacks `sq` (could capture a piece standing there).
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        let occ = self.occupied();
        let board = self.variant.board_mask();
        let them = |role| self.pieces(by, role);
        let sliders_straight = them(Role::Rook) | them(Role::Queen);
        let sliders_diagonal = them(Role::Bishop) | them(Role::Queen);
        if (attacks::knight(sq) & them(Role::Knight)).any()
            || (attacks::king(sq) & them(Role::King)).any()
            || (attacks::pawn_attacks(by.opponent(), sq) & them(Role::Pawn)).any()
            || (attacks::rook(sq, occ) & sliders_straight).any()
            || (attacks::bishop(sq, occ) & sliders_diagonal).any()
        {
            return true;
        }
        if (attacks::cannon(sq, occ).beyond & them(Role::Cannon)).any() {
            return true;
        }
        let target = self.by_color(by.opponent()).with(sq);
        let reaches = |role| move |from| reach(role, by, from, occ, target, board).contains(sq);
        Iterator::any(&mut (attacks::knight(sq) & them(Role::Horse)), reaches(Role::Horse))
            || Iterator::any(&mut (attacks::king(sq) & them(Role::Soldier)), reaches(Role::Soldier))
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
