//! Moves in the notation of RULES.md section 6: `e2e4`, `e7e8q`, `N@e5`; castling as the king's
//! two-square move `e1g1` (king-takes-own-rook `e1h1` is accepted on input by the rules layer).

use super::role::Role;
use super::square::Square;
use super::variant::Variant;
use std::fmt;

/// What kind of move a [`Move`] is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MoveKind {
    /// A plain move or capture.
    Normal,
    /// A pawn move onto the last rank, becoming the given role.
    Promotion(Role),
    /// An en-passant capture.
    EnPassant,
    /// Castling; `from`/`to` are the king's squares.
    Castle,
    /// A drop of the given role from the hand; `from` equals `to`.
    Drop(Role),
}

/// A move of either game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    /// Origin square (the target square for drops).
    pub from: Square,
    /// Destination square.
    pub to: Square,
    /// Kind of move.
    pub kind: MoveKind,
}

/// A move text that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed move '{0}'")]
pub struct MoveParseError(pub String);

impl Move {
    /// A plain move.
    pub const fn normal(from: Square, to: Square) -> Move {
        Move { from, to, kind: MoveKind::Normal }
    }

    /// A drop of `role` on `to`.
    pub const fn drop(role: Role, to: Square) -> Move {
        Move { from: to, to, kind: MoveKind::Drop(role) }
    }

    /// True if this move has the squares of `wanted` (a parsed move shape) and agrees with it
    /// on promotion and drop roles; any other kind (castling, en passant) matches a plain shape.
    pub fn matches_shape(self, wanted: Move) -> bool {
        let kinds_agree = match (self.kind, wanted.kind) {
            (MoveKind::Promotion(a), MoveKind::Promotion(b)) | (MoveKind::Drop(a), MoveKind::Drop(b)) => a == b,
            (MoveKind::Promotion(_) | MoveKind::Drop(_), _) | (_, MoveKind::Promotion(_) | MoveKind::Drop(_)) => false,
            _ => true,
        };
        self.from == wanted.from && self.to == wanted.to && kinds_agree
    }

    /// True for drops.
    pub const fn is_drop(self) -> bool {
        matches!(self.kind, MoveKind::Drop(_))
    }

    /// Writes the move in the notation of `variant`.
    pub fn to_uci(self, variant: Variant) -> String {
        match self.kind {
            MoveKind::Drop(role) => {
                let letter = variant.letter(role).unwrap_or('?').to_ascii_uppercase();
                format!("{letter}@{}", self.to)
            }
            MoveKind::Promotion(role) => format!("{}{}{}", self.from, self.to, variant.letter(role).unwrap_or('?')),
            _ => format!("{}{}", self.from, self.to),
        }
    }

    /// Parses the notation of `variant` into a move shape. The kind is `Normal` for every board
    /// move; the rules layer matches it against the position's moves to learn castling or en passant.
    pub fn parse(text: &str, variant: Variant) -> Result<Move, MoveParseError> {
        let err = || MoveParseError(text.to_string());
        let on_board = |sq: Square| variant.board_mask().contains(sq);
        if let Some((piece, square)) = text.split_once('@') {
            let mut chars = piece.chars();
            let (Some(letter), None) = (chars.next(), chars.next()) else { return Err(err()) };
            let role = variant.role_of_letter(letter).filter(|_| letter.is_ascii_uppercase()).ok_or_else(err)?;
            let to = Square::parse(square).filter(|&s| on_board(s)).ok_or_else(err)?;
            return Ok(Move::drop(role, to));
        }
        if !text.is_ascii() || !(4..=5).contains(&text.len()) {
            return Err(err());
        }
        let from = Square::parse(&text[0..2]).filter(|&s| on_board(s)).ok_or_else(err)?;
        let to = Square::parse(&text[2..4]).filter(|&s| on_board(s)).ok_or_else(err)?;
        if from == to {
            return Err(err());
        }
        let kind = match text[4..].chars().next() {
            None => MoveKind::Normal,
            Some(c) if c.is_ascii_lowercase() => {
                let role =
                    variant.role_of_letter(c).filter(|r| variant.promotion_roles().contains(r)).ok_or_else(err)?;
                MoveKind::Promotion(role)
            }
            Some(_) => return Err(err()),
        };
        Ok(Move { from, to, kind })
    }
}

impl fmt::Display for Move {
    /// Chess notation; use [`Move::to_uci`] for Crossroads letters.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_uci(Variant::DarkCrazyhouse))
    }
}
