//! Squares and colors.

use std::fmt;

/// One of the two sides. The second side is Black in the 8x8 games and Red in Crossroads;
/// both are written `b` in FEN and in the protocol.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Color {
    /// The first player.
    White = 0,
    /// The second player (Black, or Red in Crossroads).
    Black = 1,
}

impl Color {
    /// Both colors, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other side.
    #[inline(always)]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The FEN letter: `w` or `b`.
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// The lower-case word used on the command line and in the protocol.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// Parses `white`/`black` (also `w`, `b` and `red`).
    pub fn from_name(s: &str) -> Option<Color> {
        match s {
            "white" | "w" => Some(Color::White),
            "black" | "b" | "red" => Some(Color::Black),
            _ => None,
        }
    }

    /// A rank counted from this side's own back rank (0 = own back rank).
    #[inline(always)]
    pub const fn relative_rank(self, rank: u8) -> u8 {
        match self {
            Color::White => rank,
            Color::Black => 7 - rank,
        }
    }

    /// +1 for White (moves up the board), -1 for Black.
    #[inline(always)]
    pub const fn forward(self) -> i8 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }
}

/// A square of the 8x8 grid, `rank * 8 + file`. The 6x8 board uses files 0..6 of the same grid.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Builds a square from an index below 64.
    #[inline(always)]
    pub const fn new_unchecked(index: u8) -> Square {
        debug_assert!(index < 64);
        Square(index)
    }

    /// Builds a square from 0-based file and rank, both below 8.
    #[inline(always)]
    pub const fn from_coords(file: u8, rank: u8) -> Square {
        debug_assert!(file < 8 && rank < 8);
        Square(rank * 8 + file)
    }

    /// The grid index, `rank * 8 + file`.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 0-based file (0 = a).
    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// 0-based rank (0 = rank 1).
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The square `df` files and `dr` ranks away, if it lies on the 8x8 grid.
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f < 0 || f > 7 || r < 0 || r > 7 {
            None
        } else {
            Some(Square((r * 8 + f) as u8))
        }
    }

    /// Parses a square name such as `e4` (no check against a variant's width).
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].wrapping_sub(b'a');
        let rank = b[1].wrapping_sub(b'1');
        (file < 8 && rank < 8).then(|| Square::from_coords(file, rank))
    }

    /// Every square of the grid in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
