//! The input encoding of the learned evaluation: which inputs of the net a position switches on.
//!
//! Everything is seen from the side to move ("us"): a piece is an input (us or them, role, square),
//! with the board turned round when Black (Red) is to move so that "our" pieces always advance up
//! the board (mirrored top to bottom on 8x8, whose start is symmetric that way; rotated half a turn
//! on the 6x8 board, whose start is symmetric about its centre); a hand is a run of inputs per (us or them, role), one per piece held, up to
//! [`HAND_DEPTH`]. The same encoding serves 8x8 and 6x8 boards (a 6x8 board leaves two files'
//! inputs unused), and every variant has its own net.

use crate::core::{Color, Piece, Role, Square, Variant};
use crate::rules::fen::{board_fen, piece_char};
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

/// The active inputs of `pos`, from the side to move's point of view, in increasing order.
pub fn active(pos: &Position) -> Active {
    let mut out = Active::new();
    for_each_input(pos, |i| out.push(i as u16));
    out.sort_unstable();
    out
}

/// Writes the active inputs of `pos` into `out` (in no particular order) and returns how many.
#[inline]
pub fn fill(pos: &Position, out: &mut [u16; MAX_ACTIVE]) -> usize {
    let mut n = 0;
    for_each_input(pos, |i| {
        out[n] = i as u16;
        n += 1;
    });
    n
}

/// Calls `f` with each active input of `pos` (in no particular order).
#[inline(always)]
fn for_each_input(pos: &Position, mut f: impl FnMut(usize)) {
    let (us, variant) = (pos.turn(), pos.variant());
    for (side, color) in [us, us.opponent()].into_iter().enumerate() {
        for role in Role::ALL {
            let base = (side * BOARD_ROLES + role as usize) * 64;
            for sq in pos.pieces(color, role) {
                f(base + relative(sq, us, variant));
            }
        }
        let hand = pos.hand(color);
        if hand.is_empty() {
            continue;
        }
        for (i, &role) in HAND_ROLES.iter().enumerate() {
            let base = BOARD_INPUTS + (side * HAND_ROLES.len() + i) * HAND_DEPTH;
            for k in 0..(hand.count(role) as usize).min(HAND_DEPTH) {
                f(base + k);
            }
        }
    }
}

/// The position that `active` describes, with "us" as White to move (the side to move's own view
/// of the board, as the encoding turns it): the inverse of [`active`] for what an evaluation
/// reads (castling rights, en passant and promotion marks are not encoded, and come out empty).
pub fn position_of(variant: Variant, active: &[u16]) -> Result<Position, String> {
    let mut board: [Option<Piece>; 64] = [None; 64];
    let mut hands = [String::new(), String::new()];
    for &input in active {
        let i = input as usize;
        if i < BOARD_INPUTS {
            let color = Color::ALL[i / (BOARD_ROLES * 64)];
            board[i % 64] = Some(Piece::new(color, Role::from_index(i / 64 % BOARD_ROLES)));
        } else if i < INPUTS {
            let slot = (i - BOARD_INPUTS) / HAND_DEPTH;
            let piece = Piece::new(Color::ALL[slot / HAND_ROLES.len()], HAND_ROLES[slot % HAND_ROLES.len()]);
            hands[piece.color.index()].push(piece_char(variant, piece));
        } else {
            return Err(format!("input {i} out of range (the encoding has {INPUTS})"));
        }
    }
    let mut fen = board_fen(variant, |sq| board[sq.index()].map(|p| (p, false)));
    if variant.has_hands() {
        fen = format!("{fen}[{}{}]", hands[0], hands[1]);
    }
    Position::from_fen(variant, &format!("{fen} w - - 0 1")).map_err(|e| e.to_string())
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
    fn a_position_rebuilt_from_its_inputs_has_them_and_the_same_hand_evaluation() {
        let cases = [
            (Variant::DarkChess, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1"),
            (Variant::DarkChess, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b - - 0 1"),
            (Variant::DarkCrazyhouse, "r1bqk2r/ppp2ppp/2n5/3Pp3/1b6/2N5/PPP2PPP/R1BQKBNR[QPPn] w - - 0 9"),
            (Variant::DarkCrazyhouse, "r1bqk2r/ppp2ppp/2n5/3Pp3/1b6/2N5/PPP2PPP/R1BQKBNR[QPPnb] b - - 0 9"),
            (Variant::DarkCrossroads, "1k1h2/3o1v/1nb2o/V1p2P/1O1P2/4P1/2O1c1/1CH1KB w - - 0 26"),
            (Variant::DarkCrossroads, "1k1h2/3o1v/1nb2o/V1p2P/1O1P2/4P1/2O1c1/1CH1KB b - - 0 26"),
        ];
        for (variant, fen) in cases {
            let pos = Position::from_fen(variant, fen).unwrap();
            let rebuilt = position_of(variant, &active(&pos)).unwrap();
            assert_eq!(rebuilt.turn(), Color::White);
            assert_eq!(active(&rebuilt), active(&pos), "{fen}");
            let (a, b) = (crate::eval::score(&pos), crate::eval::score(&rebuilt));
            assert!((a - b).abs() < 1e-4, "{fen}: {a} vs {b} rebuilt as {}", rebuilt.to_fen());
        }
        assert!(position_of(Variant::DarkChess, &[INPUTS as u16]).is_err());
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
