//! FEN in and out for all three games: Crazyhouse hands in brackets, `~` on promoted pieces,
//! and 6-file Crossroads boards with their own letters.

use super::position::{Castling, Position};
use crate::core::{Bitboard, Color, Piece, Role, Square, Variant};
use std::fmt::Write;

/// Why a FEN was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// The FEN has no board field, or more than six fields.
    #[error("FEN must have 1 to 6 space-separated fields, got {0}")]
    FieldCount(usize),
    /// The board has the wrong number of ranks.
    #[error("board must have 8 ranks separated by '/', got {0}")]
    RankCount(usize),
    /// A rank does not add up to the board width.
    #[error("rank {rank} describes {found} squares, expected {width}")]
    RankWidth {
        /// Rank number (1-8).
        rank: u8,
        /// Squares described.
        found: u32,
        /// Squares expected.
        width: u8,
    },
    /// A character that is no piece of this variant.
    #[error("'{0}' is not a piece letter of {1}")]
    BadPiece(char, Variant),
    /// A `~` in a game without promoted marks, or after a king or pawn.
    #[error("misplaced '~' (only Crazyhouse pieces that can result from promotion carry it)")]
    BadPromotedMark,
    /// A hand in a game without hands, or a malformed hand.
    #[error("bad hand '{0}'")]
    BadHand(String),
    /// Side to move is not `w` or `b`.
    #[error("side to move must be 'w' or 'b', got '{0}'")]
    BadTurn(String),
    /// A malformed or inconsistent castling field.
    #[error("bad castling field '{0}'")]
    BadCastling(String),
    /// A malformed or impossible en-passant field.
    #[error("bad en-passant field '{0}'")]
    BadEnPassant(String),
    /// A counter that is not a number.
    #[error("bad move counter '{0}'")]
    BadCounter(String),
    /// Not exactly one king per side.
    #[error("{0} must have exactly one king")]
    KingCount(&'static str),
    /// A pawn on the first or last rank.
    #[error("pawn on {0}, a first or last rank")]
    PawnOnBackRank(Square),
    /// The side to move has its king on its far rank (Crossroads): that Try went unanswered, so
    /// the game is already over.
    #[error("{0}'s king stands on its far rank with {0} to move: that Try is already won")]
    TryAlreadyWon(&'static str),
}

impl Position {
    /// Parses a FEN of `variant`. The move counters may be omitted (they default to `0 1`).
    pub fn from_fen(variant: Variant, fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.is_empty() || fields.len() > 6 {
            return Err(FenError::FieldCount(fields.len()));
        }
        let mut pos = Position::empty(variant);
        let (board, hand) = split_hand(fields[0])?;
        parse_board(&mut pos, board)?;
        if let Some(hand) = hand {
            parse_hand(&mut pos, hand)?;
        }
        pos.turn = match fields.get(1).copied().unwrap_or("w") {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::BadTurn(other.to_string())),
        };
        parse_castling(&mut pos, fields.get(2).copied().unwrap_or("-"))?;
        parse_ep(&mut pos, fields.get(3).copied().unwrap_or("-"))?;
        let counter = |i: usize, default: u32| -> Result<u32, FenError> {
            fields.get(i).map_or(Ok(default), |s| s.parse().map_err(|_| FenError::BadCounter(s.to_string())))
        };
        pos.halfmoves = counter(4, 0)?;
        pos.fullmoves = counter(5, 1)?.max(1);
        validate(&pos)?;
        Ok(pos)
    }

    /// Writes the position as FEN (hands in brackets for Crazyhouse).
    pub fn to_fen(&self) -> String {
        let mut s = board_fen(self.variant, |sq| self.piece_at(sq).map(|p| (p, self.promoted.contains(sq))));
        if self.variant.has_hands() {
            s.push('[');
            for color in Color::ALL {
                for role in Role::HAND {
                    for _ in 0..self.hand(color).count(role) {
                        s.push(piece_char(self.variant, Piece::new(color, role)));
                    }
                }
            }
            s.push(']');
        }
        let _ = write!(s, " {} ", self.turn.letter());
        if self.castling.0 == 0 {
            s.push('-');
        }
        for (color, king_side, c) in [
            (Color::White, true, 'K'),
            (Color::White, false, 'Q'),
            (Color::Black, true, 'k'),
            (Color::Black, false, 'q'),
        ] {
            if self.castling.has(color, king_side) {
                s.push(c);
            }
        }
        match self.ep_square {
            Some(sq) => {
                let _ = write!(s, " {sq}");
            }
            None => s.push_str(" -"),
        }
        let _ = write!(s, " {} {}", self.halfmoves, self.fullmoves);
        s
    }
}

/// The FEN letter of `piece` in `variant` (uppercase for White).
pub fn piece_char(variant: Variant, piece: Piece) -> char {
    let c = variant.letter(piece.role).unwrap_or('?');
    match piece.color {
        Color::White => c.to_ascii_uppercase(),
        Color::Black => c,
    }
}

/// Writes a FEN-style board, rank 8 first, from a function giving each square's piece and
/// promoted mark. Shared by positions and views.
pub fn board_fen(variant: Variant, at: impl Fn(Square) -> Option<(Piece, bool)>) -> String {
    board_text(variant, |sq| at(sq).map(|(p, promoted)| (piece_char(variant, p), promoted)))
}

/// Writes a board, rank 8 first, where each square is either a run-length-counted empty square
/// (`None`) or a character with an optional `~`.
pub fn board_text(variant: Variant, at: impl Fn(Square) -> Option<(char, bool)>) -> String {
    let mut s = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..variant.width() {
            match at(Square::from_coords(file, rank)) {
                None => empty += 1,
                Some((c, promoted)) => {
                    if empty > 0 {
                        let _ = write!(s, "{empty}");
                        empty = 0;
                    }
                    s.push(c);
                    if promoted {
                        s.push('~');
                    }
                }
            }
        }
        if empty > 0 {
            let _ = write!(s, "{empty}");
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s
}

/// Splits `board[hand]` (a trailing bracketed hand is optional).
pub fn split_hand(field: &str) -> Result<(&str, Option<&str>), FenError> {
    match field.find('[') {
        None => Ok((field, None)),
        Some(i) if field.ends_with(']') => Ok((&field[..i], Some(&field[i + 1..field.len() - 1]))),
        Some(_) => Err(FenError::BadHand(field.to_string())),
    }
}

/// Reads a FEN-style board, calling `place` for every non-empty token: the square, the character
/// and whether a `~` followed. Shared by positions and views.
pub fn parse_board_text(
    variant: Variant,
    board: &str,
    mut place: impl FnMut(Square, char, bool) -> Result<(), FenError>,
) -> Result<(), FenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount(ranks.len()));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file: u32 = 0;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if let Some(d) = c.to_digit(10).filter(|&d| d > 0) {
                file += d;
                continue;
            }
            let promoted = chars.peek() == Some(&'~');
            if promoted {
                chars.next();
            }
            if file < variant.width() as u32 {
                place(Square::from_coords(file as u8, rank), c, promoted)?;
            }
            file += 1;
        }
        if file != variant.width() as u32 {
            return Err(FenError::RankWidth { rank: rank + 1, found: file, width: variant.width() });
        }
    }
    Ok(())
}

fn parse_board(pos: &mut Position, board: &str) -> Result<(), FenError> {
    let variant = pos.variant;
    parse_board_text(variant, board, |sq, c, promoted| {
        let role = variant.role_of_letter(c).ok_or(FenError::BadPiece(c, variant))?;
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        if promoted {
            if !variant.has_hands() || matches!(role, Role::King | Role::Pawn) {
                return Err(FenError::BadPromotedMark);
            }
            pos.promoted |= Bitboard::from_square(sq);
        }
        pos.put(sq, Piece::new(color, role));
        Ok(())
    })
}

fn parse_hand(pos: &mut Position, hand: &str) -> Result<(), FenError> {
    if !pos.variant.has_hands() && !hand.is_empty() {
        return Err(FenError::BadHand(hand.to_string()));
    }
    for c in hand.chars() {
        let role = pos
            .variant
            .role_of_letter(c)
            .filter(|r| Role::HAND.contains(r))
            .ok_or_else(|| FenError::BadHand(hand.to_string()))?;
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        pos.hands[color.index()].add(role);
    }
    Ok(())
}

fn parse_castling(pos: &mut Position, field: &str) -> Result<(), FenError> {
    let err = || FenError::BadCastling(field.to_string());
    if field == "-" {
        return Ok(());
    }
    if !pos.variant.is_chess_board() {
        return Err(err());
    }
    for c in field.chars() {
        let (color, king_side) = match c {
            'K' => (Color::White, true),
            'Q' => (Color::White, false),
            'k' => (Color::Black, true),
            'q' => (Color::Black, false),
            _ => return Err(err()),
        };
        let rook = Castling::rook_square(color, king_side);
        let king = Castling::king_square(color);
        let unpromoted_rook = pos.pieces(color, Role::Rook).contains(rook) && !pos.promoted.contains(rook);
        if !pos.pieces(color, Role::King).contains(king) || !unpromoted_rook {
            return Err(err());
        }
        pos.castling.0 |= Castling::bit(color, king_side);
    }
    Ok(())
}

fn parse_ep(pos: &mut Position, field: &str) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    let err = || FenError::BadEnPassant(field.to_string());
    let sq = Square::parse(field).ok_or_else(err)?;
    let pusher = pos.turn.opponent();
    // The passed square lies on the pusher's third rank, with the pushed pawn just beyond it
    // and both the passed square and the pawn's origin empty.
    let pawn = sq.offset(0, pusher.forward()).ok_or_else(err)?;
    let origin = sq.offset(0, -pusher.forward()).ok_or_else(err)?;
    let plausible = pos.variant.is_chess_board()
        && pusher.relative_rank(sq.rank()) == 2
        && pos.pieces(pusher, Role::Pawn).contains(pawn)
        && !pos.occupied().contains(sq)
        && !pos.occupied().contains(origin);
    if !plausible {
        return Err(err());
    }
    let attackers = crate::core::attacks::pawn_attacks(pusher, sq) & pos.pieces(pos.turn, Role::Pawn);
    if attackers.any() {
        pos.ep_square = Some(sq);
    }
    Ok(())
}

fn validate(pos: &Position) -> Result<(), FenError> {
    for color in Color::ALL {
        if pos.pieces(color, Role::King).count() != 1 {
            return Err(FenError::KingCount(if color == Color::White { "White" } else { "Black" }));
        }
    }
    let back_ranks = Bitboard::rank(0) | Bitboard::rank(7);
    if let Some(sq) = (pos.by_role(Role::Pawn) & back_ranks).first() {
        return Err(FenError::PawnOnBackRank(sq));
    }
    if pos.king_on_far_rank(pos.turn()) {
        return Err(FenError::TryAlreadyWon(if pos.turn() == Color::White { "White" } else { "Red" }));
    }
    Ok(())
}
