//! Zobrist keys, generated at compile time, for repetition detection.

use crate::core::hash::splitmix64 as splitmix;
use crate::core::Role;

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
