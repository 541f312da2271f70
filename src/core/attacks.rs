//! Attack tables built at compile time, and the sliding, cannon and horse geometry built on them.
//!
//! Tables cover the 8x8 grid; callers mask results with the variant's board so that the
//! 6x8 Crossroads board shares them.

use super::bitboard::Bitboard;
use super::square::{Color, Square};

const fn step_table(deltas: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
        let mut i = 0;
        while i < deltas.len() {
            let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                table[sq] |= 1u64 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

const KNIGHT_DELTAS: [(i8, i8); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const KING_DELTAS: [(i8, i8); 8] = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];

static KNIGHT: [u64; 64] = step_table(&KNIGHT_DELTAS);
static KING: [u64; 64] = step_table(&KING_DELTAS);
static PAWN: [[u64; 64]; 2] = [step_table(&[(1, 1), (-1, 1)]), step_table(&[(1, -1), (-1, -1)])];

/// Mask of the line through `sq` in direction (df, dr), both ways, without `sq` itself.
const fn line_mask(sq: usize, df: i8, dr: i8) -> u64 {
    let mut mask = 0u64;
    let mut dir = 0;
    while dir < 2 {
        let sign = if dir == 0 { 1 } else { -1 };
        let (mut f, mut r) = ((sq % 8) as i8 + df * sign, (sq / 8) as i8 + dr * sign);
        while f >= 0 && f < 8 && r >= 0 && r < 8 {
            mask |= 1u64 << (r * 8 + f);
            f += df * sign;
            r += dr * sign;
        }
        dir += 1;
    }
    mask
}

const fn line_masks(df: i8, dr: i8) -> [u64; 64] {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        t[sq] = line_mask(sq, df, dr);
        sq += 1;
    }
    t
}

static FILE_MASK: [u64; 64] = line_masks(0, 1);
static DIAG_MASK: [u64; 64] = line_masks(1, 1);
static ANTI_MASK: [u64; 64] = line_masks(1, -1);

/// Attacks along one rank: `RANK_ATTACKS[file][inner occupancy]` as 8 bits of that rank.
static RANK_ATTACKS: [[u8; 64]; 8] = {
    let mut t = [[0u8; 64]; 8];
    let mut file = 0;
    while file < 8 {
        let mut occ6 = 0;
        while occ6 < 64 {
            let occ = (occ6 << 1) as u8;
            let mut attacks = 0u8;
            let mut f = file as i8 + 1;
            while f < 8 {
                attacks |= 1 << f;
                if occ & (1 << f) != 0 {
                    break;
                }
                f += 1;
            }
            f = file as i8 - 1;
            while f >= 0 {
                attacks |= 1 << f;
                if occ & (1 << f) != 0 {
                    break;
                }
                f -= 1;
            }
            t[file][occ6] = attacks;
            occ6 += 1;
        }
        file += 1;
    }
    t
};

/// Horse leg squares (index 64 = off the grid) for the four orthogonal directions N, E, S, W.
static HORSE_LEG: [[u8; 4]; 64] = {
    let mut t = [[64u8; 4]; 64];
    let dirs: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
        let mut d = 0;
        while d < 4 {
            let (nf, nr) = (f + dirs[d].0, r + dirs[d].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                t[sq][d] = (nr * 8 + nf) as u8;
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

/// The two horse leaps through each leg direction, as in [`HORSE_LEG`].
static HORSE_LEAPS: [[u64; 4]; 64] = {
    let mut t = [[0u64; 4]; 64];
    let mut sq = 0;
    while sq < 64 {
        t[sq][0] = step_table(&[(1, 2), (-1, 2)])[sq];
        t[sq][1] = step_table(&[(2, 1), (2, -1)])[sq];
        t[sq][2] = step_table(&[(1, -2), (-1, -2)])[sq];
        t[sq][3] = step_table(&[(-2, 1), (-2, -1)])[sq];
        sq += 1;
    }
    t
};

/// Squares a soldier of each color on each square may step to (sideways once across the river).
static SOLDIER: [[u64; 64]; 2] = {
    let mut t = [[0u64; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = (sq % 8, sq / 8);
        if r < 7 {
            t[0][sq] |= 1u64 << (sq + 8);
        }
        if r > 0 {
            t[1][sq] |= 1u64 << (sq - 8);
        }
        let side = (if f > 0 { 1u64 << (sq - 1) } else { 0 }) | (if f < 7 { 1u64 << (sq + 1) } else { 0 });
        if r >= 4 {
            t[0][sq] |= side;
        }
        if r <= 3 {
            t[1][sq] |= side;
        }
        sq += 1;
    }
    t
};

#[inline(always)]
fn hyperbola(occ: u64, sq: Square, mask: u64) -> u64 {
    let s = 1u64 << sq.index();
    let mut forward = occ & mask;
    let mut reverse = forward.swap_bytes();
    forward = forward.wrapping_sub(s);
    reverse = reverse.wrapping_sub(s.swap_bytes());
    forward ^= reverse.swap_bytes();
    forward & mask
}

#[inline(always)]
fn rank_attacks(occ: u64, sq: Square) -> u64 {
    let shift = sq.rank() as u32 * 8;
    let inner = ((occ >> (shift + 1)) & 63) as usize;
    (RANK_ATTACKS[sq.file() as usize][inner] as u64) << shift
}

/// Knight leaps from `sq`.
#[inline(always)]
pub fn knight(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// King steps from `sq`.
#[inline(always)]
pub fn king(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks diagonally.
#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}

/// Rook (chariot) rays from `sq`, each up to and including the first occupied square.
#[inline(always)]
pub fn rook(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard(hyperbola(occ.0, sq, FILE_MASK[sq.index()]) | rank_attacks(occ.0, sq))
}

/// Bishop rays from `sq`, each up to and including the first occupied square.
#[inline(always)]
pub fn bishop(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard(hyperbola(occ.0, sq, DIAG_MASK[sq.index()]) | hyperbola(occ.0, sq, ANTI_MASK[sq.index()]))
}

/// Queen rays from `sq`.
#[inline(always)]
pub fn queen(sq: Square, occ: Bitboard) -> Bitboard {
    rook(sq, occ) | bishop(sq, occ)
}

/// Squares a soldier of `color` on `sq` may step to.
#[inline(always)]
pub fn soldier(color: Color, sq: Square) -> Bitboard {
    Bitboard(SOLDIER[color.index()][sq.index()])
}

/// What a cannon on `sq` can reach: empty squares it slides to, the screens (first piece on each
/// line) and the first piece beyond each screen (a capture target if it is an enemy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CannonReach {
    /// Empty squares the cannon may slide to.
    pub quiet: Bitboard,
    /// The first occupied square on each line.
    pub screens: Bitboard,
    /// The first occupied square beyond each screen.
    pub beyond: Bitboard,
}

/// The cannon geometry from `sq` over the occupancy `occ` (which must lie on the board).
#[inline(always)]
pub fn cannon(sq: Square, occ: Bitboard) -> CannonReach {
    let rays = rook(sq, occ);
    let screens = rays & occ;
    let past = rook(sq, occ & !screens) & occ & !screens;
    CannonReach { quiet: rays & !occ, screens, beyond: past }
}

/// Horse leaps from `sq` whose leg is empty, plus the occupied legs that blocked a leap
/// still on `board` (those are what the horse sees as silhouettes).
#[inline(always)]
pub fn horse(sq: Square, occ: Bitboard, board: Bitboard) -> (Bitboard, Bitboard) {
    let legs = &HORSE_LEG[sq.index()];
    let leaps = &HORSE_LEAPS[sq.index()];
    let mut reach = 0u64;
    let mut blocked = 0u64;
    for d in 0..4 {
        let leg = legs[d];
        if leg >= 64 {
            continue;
        }
        if occ.0 >> leg & 1 == 0 {
            reach |= leaps[d];
        } else if leaps[d] & board.0 != 0 {
            blocked |= 1u64 << leg;
        }
    }
    (Bitboard(reach) & board, Bitboard(blocked))
}
