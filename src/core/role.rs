//! Piece kinds of both games and colored pieces.

use super::square::Color;

/// A kind of piece. Chess pieces and the xiangqi pieces of Crossroads share one enum;
/// the Crossroads chariot moves as a rook and is the `Rook` role.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Role {
    /// Chess pawn (both games).
    Pawn = 0,
    /// Chess knight.
    Knight = 1,
    /// Bishop.
    Bishop = 2,
    /// Rook, or the Crossroads chariot.
    Rook = 3,
    /// Queen.
    Queen = 4,
    /// King.
    King = 5,
    /// Xiangqi cannon (Crossroads).
    Cannon = 6,
    /// Xiangqi horse with a blockable leg (Crossroads).
    Horse = 7,
    /// Xiangqi soldier (Crossroads).
    Soldier = 8,
}

impl Role {
    /// Number of roles.
    pub const COUNT: usize = 9;
    /// Every role in index order.
    pub const ALL: [Role; 9] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
        Role::Cannon,
        Role::Horse,
        Role::Soldier,
    ];
    /// The roles a Crazyhouse hand can hold, in FEN order of value.
    pub const HAND: [Role; 5] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];

    /// Index into per-role tables.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The role with index `i` (below [`Role::COUNT`]).
    #[inline(always)]
    pub const fn from_index(i: usize) -> Role {
        Role::ALL[i]
    }
}

/// A piece: a role of one color.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// What kind of piece it is.
    pub role: Role,
}

impl Piece {
    /// Builds a piece.
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }
}

/// A rough value of each role, in pawns; the king is worth more than everything else together.
pub fn role_value(role: Role) -> f64 {
    match role {
        Role::Pawn | Role::Soldier => 1.0,
        Role::Knight | Role::Bishop | Role::Horse => 3.0,
        Role::Cannon => 4.5,
        Role::Rook => 5.0,
        Role::Queen => 9.0,
        Role::King => 1000.0,
    }
}
