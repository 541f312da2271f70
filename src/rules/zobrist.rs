//! Zobrist keys, generated at compile time, for repetition detection.

use crate::core::Role;

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// Most pieces of one role a hand can hold that get distinct keys.
pub const HAND_SLOTS: usize = 40;

/// All keys of one table.
pub struct Keys {
    /// Piece on square: `[color][role][square]`.
    pub piece: [[[u64; 64]; Role::COUNT]; 2],
    /// A promoted piece on a square (in addition to its piece key).
    pub promoted: [u64; 64],
    /// Hand counts: `[color][role][count]`.
    pub hand: [[[u64; HAND_SLOTS]; Role::COUNT]; 2],
    /// Castling-rights combinations.
    pub castling: [u64; 16],
    /// En-passant square.
    pub ep: [u64; 64],
    /// Black to move.
    pub black: u64,
}

/// The keys.
pub static KEYS: Keys = {
    let mut st = 0x4D55_524B_u64;
    let mut k = Keys {
        piece: [[[0; 64]; Role::COUNT]; 2],
        promoted: [0; 64],
        hand: [[[0; HAND_SLOTS]; Role::COUNT]; 2],
        castling: [0; 16],
        ep: [0; 64],
        black: 0,
    };
    let mut c = 0;
    while c < 2 {
        let mut r = 0;
        while r < Role::COUNT {
            let mut i = 0;
            while i < 64 {
                let (s, v) = splitmix(st);
                st = s;
                k.piece[c][r][i] = v;
                i += 1;
            }
            i = 1;
            while i < HAND_SLOTS {
                let (s, v) = splitmix(st);
                st = s;
                k.hand[c][r][i] = v;
                i += 1;
            }
            r += 1;
        }
        c += 1;
    }
    let mut i = 0;
    while i < 64 {
        let (s, v) = splitmix(st);
        st = s;
        k.promoted[i] = v;
        let (s, v) = splitmix(st);
        st = s;
        k.ep[i] = v;
        i += 1;
    }
    i = 1;
    while i < 16 {
        let (s, v) = splitmix(st);
        st = s;
        k.castling[i] = v;
        i += 1;
    }
    let (_, v) = splitmix(st);
    k.black = v;
    k
};
