//! The three games Murk plays and what each supplies to the shared machinery:
//! board width, piece letters, hands, castling, promotion choices and start position.

use super::bitboard::Bitboard;
use super::role::Role;
use std::fmt;
use std::str::FromStr;

/// One of the games, by its protocol name.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Variant {
    /// `dark-crazyhouse`: chess with drops, under fog.
    DarkCrazyhouse,
    /// `dark-crossroads`: the 6x8 chess/xiangqi hybrid under fog, with the Try.
    DarkCrossroads,
    /// `dark-chess`: fog-of-war chess without hands.
    DarkChess,
}

/// An unknown variant name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant '{0}' (expected dark-crazyhouse, dark-crossroads or dark-chess)")]
pub struct UnknownVariant(pub String);

const CHESS_LETTERS: [Option<char>; Role::COUNT] =
    [Some('p'), Some('n'), Some('b'), Some('r'), Some('q'), Some('k'), None, None, None];
const CROSSROADS_LETTERS: [Option<char>; Role::COUNT] =
    [Some('p'), Some('n'), Some('b'), Some('v'), Some('q'), Some('k'), Some('c'), Some('h'), Some('o')];

impl Variant {
    /// All variants.
    pub const ALL: [Variant; 3] = [Variant::DarkCrazyhouse, Variant::DarkCrossroads, Variant::DarkChess];

    /// The protocol name.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::DarkCrazyhouse => "dark-crazyhouse",
            Variant::DarkCrossroads => "dark-crossroads",
            Variant::DarkChess => "dark-chess",
        }
    }

    /// Number of files (8, or 6 in Crossroads).
    pub const fn width(self) -> u8 {
        match self {
            Variant::DarkCrossroads => 6,
            _ => 8,
        }
    }

    /// The squares that exist on this board.
    #[inline(always)]
    pub const fn board_mask(self) -> Bitboard {
        match self {
            Variant::DarkCrossroads => Bitboard(0x3F3F_3F3F_3F3F_3F3F),
            _ => Bitboard::ALL,
        }
    }

    /// True if captured pieces go to the captor's hand and may be dropped.
    #[inline(always)]
    pub const fn has_hands(self) -> bool {
        matches!(self, Variant::DarkCrazyhouse)
    }

    /// True if the game has castling and en passant (the 8x8 games).
    #[inline(always)]
    pub const fn is_chess_board(self) -> bool {
        !matches!(self, Variant::DarkCrossroads)
    }

    /// True if a king reaching the far rank arms a Try.
    #[inline(always)]
    pub const fn has_try(self) -> bool {
        matches!(self, Variant::DarkCrossroads)
    }

    /// True if a side with no legal move loses; false if it is a draw (Dark Chess).
    pub const fn no_move_loses(self) -> bool {
        !matches!(self, Variant::DarkChess)
    }

    /// The roles a pawn may promote to.
    pub const fn promotion_roles(self) -> &'static [Role] {
        match self {
            Variant::DarkCrossroads => &[Role::Queen],
            _ => &[Role::Queen, Role::Rook, Role::Bishop, Role::Knight],
        }
    }

    /// The FEN of the start position.
    pub const fn start_fen(self) -> &'static str {
        match self {
            Variant::DarkCrazyhouse => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
            Variant::DarkChess => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            Variant::DarkCrossroads => "bknhcv/pppooo/6/6/6/6/OOOPPP/VCHNKB w - - 0 1",
        }
    }

    /// The lower-case letter of `role` in this game, if the role exists here.
    pub const fn letter(self, role: Role) -> Option<char> {
        match self {
            Variant::DarkCrossroads => CROSSROADS_LETTERS[role.index()],
            _ => CHESS_LETTERS[role.index()],
        }
    }

    /// The role written with `letter` (either case) in this game.
    pub fn role_of_letter(self, letter: char) -> Option<Role> {
        let lower = letter.to_ascii_lowercase();
        Role::ALL.into_iter().find(|&r| self.letter(r) == Some(lower))
    }

    /// True if `role` occurs in this game at all.
    pub const fn has_role(self, role: Role) -> bool {
        self.letter(role).is_some()
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        Variant::ALL.into_iter().find(|v| v.name() == s).ok_or_else(|| UnknownVariant(s.to_string()))
    }
}
