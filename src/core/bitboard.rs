//! A set of squares as a 64-bit mask, indexed `rank * 8 + file` on every board.
//!
//! The 6x8 Crossroads board uses the same indexing and simply never sets files g and h,
//! so one set of attack tables serves both geometries.

use super::square::Square;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// Every square of the 8x8 grid.
    pub const ALL: Bitboard = Bitboard(u64::MAX);

    /// The set holding exactly `sq`.
    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1u64 << sq.index())
    }

    /// Every square of rank `rank` (0-based).
    pub const fn rank(rank: u8) -> Bitboard {
        Bitboard(0xFFu64 << (8 * rank as u32))
    }

    /// Every square of file `file` (0-based).
    pub const fn file(file: u8) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101u64 << file as u32)
    }

    /// True if the set holds no square.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True if the set holds at least one square.
    #[inline(always)]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// True if `sq` is in the set.
    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// Number of squares in the set.
    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The lowest square of a non-empty set.
    #[inline(always)]
    pub fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::new_unchecked(self.0.trailing_zeros() as u8))
        }
    }

    /// The set with `sq` added.
    #[inline(always)]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1u64 << sq.index())
    }

    /// The set with `sq` removed.
    #[inline(always)]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1u64 << sq.index()))
    }

    /// Shifts every square `delta` ranks up (positive) or down (negative); squares leaving the grid vanish.
    #[inline(always)]
    pub const fn shift_ranks(self, delta: i8) -> Bitboard {
        if delta >= 0 {
            Bitboard(self.0 << (8 * delta as u32))
        } else {
            Bitboard(self.0 >> (8 * (-delta) as u32))
        }
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        let sq = self.first()?;
        self.0 &= self.0 - 1;
        Some(sq)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bitboard({:#018x})", self.0)
    }
}

macro_rules! bit_ops {
    ($($trait:ident $method:ident $op:tt, $assign:ident $amethod:ident;)*) => {$(
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $method(self, rhs: Bitboard) -> Bitboard { Bitboard(self.0 $op rhs.0) }
        }
        impl $assign for Bitboard {
            #[inline(always)]
            fn $amethod(&mut self, rhs: Bitboard) { self.0 = self.0 $op rhs.0; }
        }
    )*};
}
bit_ops! {
    BitAnd bitand &, BitAndAssign bitand_assign;
    BitOr bitor |, BitOrAssign bitor_assign;
    BitXor bitxor ^, BitXorAssign bitxor_assign;
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}
