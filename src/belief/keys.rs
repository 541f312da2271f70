//! Zobrist keys of worlds, updated move by move, so that a child that is already in the set is
//! recognized before it is built. A world's key is the rules' repetition key
//! ([`Position::repetition_key`]: placement, promoted marks, hands, side to move, castling rights
//! and the en-passant square; the move counters are left out), so these deltas share its tables.

use crate::core::attacks;
use crate::core::{Color, Move, MoveKind, Role, Square};
use crate::rules::zobrist::{HAND_SLOTS, KEYS as T};
use crate::rules::{Castling, Position};

fn piece(color: Color, role: Role, sq: Square) -> u64 {
    T.piece[color.index()][role.index()][sq.index()]
}

fn hand(color: Color, role: Role, count: u8) -> u64 {
    T.hand[color.index()][role.index()][(count as usize).min(HAND_SLOTS - 1)]
}

/// Castling rights lost when a move starts or ends on `sq`.
fn rights_touched(sq: Square) -> u8 {
    let mut lost = 0;
    for color in Color::ALL {
        for king_side in [true, false] {
            if sq == Castling::king_square(color) || sq == Castling::rook_square(color, king_side) {
                lost |= Castling::bit(color, king_side);
            }
        }
    }
    lost
}

/// What a world's key changes by when `m` (one of `pos`'s pseudo-legal moves) is played on `pos`.
pub fn key_delta(pos: &Position, m: Move) -> u64 {
    let us = pos.turn();
    let them = us.opponent();
    let hands = pos.variant().has_hands();
    let mut k = T.black;
    let mut rights = pos.castling().0;
    if let Some(ep) = pos.ep_square() {
        k ^= T.ep[ep.index()];
    }
    match m.kind {
        MoveKind::Drop(role) => {
            let n = pos.hand(us).count(role);
            k ^= piece(us, role, m.to) ^ hand(us, role, n) ^ hand(us, role, n.saturating_sub(1));
        }
        MoveKind::Castle => {
            let (rook_from, rook_to) = Castling::rook_move(us, m);
            k ^= piece(us, Role::King, m.from) ^ piece(us, Role::King, m.to);
            k ^= piece(us, Role::Rook, rook_from) ^ piece(us, Role::Rook, rook_to);
            rights &= !(Castling::bit(us, true) | Castling::bit(us, false));
        }
        _ => {
            k ^= board_move_delta(pos, m, hands);
            rights &= !(rights_touched(m.from) | rights_touched(m.to));
            let role = pos.role_at(m.from);
            if role == Some(Role::Pawn) && m.from.rank().abs_diff(m.to.rank()) == 2 {
                let mid = Square::from_coords(m.from.file(), (m.from.rank() + m.to.rank()) / 2);
                let capturers = attacks::pawn_attacks(us, mid) & pos.pieces(them, Role::Pawn);
                if pos.variant().is_chess_board() && capturers.any() {
                    k ^= T.ep[mid.index()];
                }
            }
        }
    }
    k ^ T.castling[pos.castling().0 as usize & 15] ^ T.castling[rights as usize & 15]
}

/// The placement, promoted-mark and hand part of [`key_delta`] for a board move.
fn board_move_delta(pos: &Position, m: Move, hands: bool) -> u64 {
    let us = pos.turn();
    let them = us.opponent();
    let Some(role) = pos.role_at(m.from) else { return 0 };
    let promoted = pos.promoted();
    let new_role = if let MoveKind::Promotion(r) = m.kind { r } else { role };
    let mut k = piece(us, role, m.from) ^ piece(us, new_role, m.to);
    if hands && promoted.contains(m.from) {
        k ^= T.promoted[m.from.index()];
    }
    if hands && (promoted.contains(m.from) || matches!(m.kind, MoveKind::Promotion(_))) {
        k ^= T.promoted[m.to.index()];
    }
    let victim_sq = if m.kind == MoveKind::EnPassant { Square::from_coords(m.to.file(), m.from.rank()) } else { m.to };
    if let Some(victim) = pos.by_color(them).contains(victim_sq).then(|| pos.role_at(victim_sq)).flatten() {
        let victim_promoted = promoted.contains(victim_sq);
        k ^= piece(them, victim, victim_sq);
        if victim_promoted {
            k ^= T.promoted[victim_sq.index()];
        }
        if hands && victim != Role::King {
            let gained = if victim_promoted { Role::Pawn } else { victim };
            let n = pos.hand(us).count(gained);
            k ^= hand(us, gained, n) ^ hand(us, gained, n.saturating_add(1));
        }
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;

    #[test]
    fn incremental_keys_match_full_keys_over_random_games() {
        for variant in crate::core::Variant::ALL {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
            for _ in 0..20 {
                let mut pos = Position::start(variant);
                for _ in 0..200 {
                    let moves = pos.moves();
                    let Some(&m) = moves.choose(&mut rng) else { break };
                    let expected = pos.repetition_key() ^ key_delta(&pos, m);
                    pos.play_unchecked(m);
                    assert_eq!(expected, pos.repetition_key(), "{variant}: {} after {m:?}", pos.to_fen());
                    if pos.is_king_captured() {
                        break;
                    }
                }
            }
        }
    }
}
