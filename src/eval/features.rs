//! The input encoding of the learned evaluation: which inputs of the net a position switches on.
//!
//! Everything is seen from the side to move ("us"): a piece is an input (us or them, role, square),
//! with the board turned round when Black (Red) is to move so that "our" pieces always advance up
//! the board (mirrored top to bottom on 8x8, whose start is symmetric that way; rotated half a turn
//! on the 6x8 board, whose start is symmetric about its centre); a hand is a run of inputs per (us or them, role), one per piece held, up to
//! [`HAND_DEPTH`]. The same encoding serves 8x8 and 6x8 boards (a 6x8 board leaves two files'
//! inputs unused), and every variant has its own net.

use crate::core::{Color, Role, Square, Variant};
use crate::rules::Position;
use smallvec::SmallVec;

/// Roles that can stand on a board (all of them).
const BOARD_ROLES: usize = Role::COUNT;
/// Roles that can be held in hand (pawn to queen).
const HAND_ROLES: [Role; 5] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen];
/// Most pieces of one role in one hand that get an input of their own.
pub const HAND_DEPTH: usize = 8;
/// Inputs of the board part.
const BOARD_INPUTS: usize = 2 * BOARD_ROLES * 64;
/// Number of inputs of the encoding.
pub const INPUTS: usize = BOARD_INPUTS + 2 * HAND_ROLES.len() * HAND_DEPTH;
/// Most inputs one position switches on (32 pieces on the board and up to 32 held).
pub const MAX_ACTIVE: usize = 64;
/// The encoding's name in a net file's header.
pub const ENCODING: &str = "psq-hand-v1";

/// The inputs a position switches on, in increasing order.
pub type Active = SmallVec<[u16; MAX_ACTIVE]>;

/// The square as the side to move sees it: for Black the ranks turned round, and on the 6x8
/// board the files too.
#[inline]
fn relative(sq: Square, us: Color, variant: Variant) -> usize {
    match (us, variant) {
        (Color::White, _) => sq.index(),
        (Color::Black, Variant::DarkCrossroads) => (7 - sq.rank() as usize) * 8 + (5 - sq.file() as usize),
        (Color::Black, _) => sq.index() ^ 56,
    }
}

/// The active inputs of `pos`, from the side to move's point of view.
pub fn active(pos: &Position) -> Active {
    let (us, variant) = (pos.turn(), pos.variant());
    let mut out = Active::new();
    for (side, color) in [us, us.opponent()].into_iter().enumerate() {
        for role in Role::ALL {
            let base = (side * BOARD_ROLES + role as usize) * 64;
            for sq in pos.pieces(color, role) {
                out.push((base + relative(sq, us, variant)) as u16);
            }
        }
    }
    for (side, color) in [us, us.opponent()].into_iter().enumerate() {
        let hand = pos.hand(color);
        for (i, &role) in HAND_ROLES.iter().enumerate() {
            let base = BOARD_INPUTS + (side * HAND_ROLES.len() + i) * HAND_DEPTH;
            for k in 0..(hand.count(role) as usize).min(HAND_DEPTH) {
                out.push((base + k) as u16);
            }
        }
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    #[test]
    fn the_start_position_looks_the_same_to_both_sides() {
        for variant in Variant::ALL {
            let white = Position::start(variant);
            let fen = white.to_fen().replacen(" w ", " b ", 1);
            let black = Position::from_fen(variant, &fen).unwrap();
            assert_eq!(active(&white), active(&black), "{variant}: the start is symmetric");
            assert_eq!(active(&white).len() as u32, white.occupied().count(), "{variant}: one input a piece");
        }
    }

    #[test]
    fn hands_switch_on_one_input_per_piece_held() {
        let pos = Position::from_fen(Variant::DarkCrazyhouse, "4k3/8/8/8/8/8/8/4K3[NNqp] w - - 0 1").unwrap();
        let inputs = active(&pos);
        assert_eq!(inputs.len(), 2 + 4);
        let ours = BOARD_INPUTS + HAND_DEPTH; // our knights
        assert!(inputs.contains(&(ours as u16)) && inputs.contains(&(ours as u16 + 1)));
        assert!(inputs.iter().all(|&i| (i as usize) < INPUTS));
    }
}
