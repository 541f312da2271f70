//! The text form of a view (see the module docs of [`crate::view`]) and its ASCII diagram.

use super::{SquareView, View};
use crate::core::{Bitboard, Color, Piece, Role, Square, Variant};
use crate::rules::fen::{board_text, parse_board_text, piece_char, split_hand, FenError};
use crate::rules::Hand;

/// Why a view text was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewParseError {
    /// The board part is malformed.
    #[error("bad view board: {0}")]
    Board(#[from] FenError),
    /// The hand part is malformed, is missing in Crazyhouse, or shows the other side's pieces.
    #[error("bad view hand '{0}'")]
    Hand(String),
    /// The text is not two space-separated fields (board, en-passant square).
    #[error("a view is '<board>[<hand>] <ep-square|->', got '{0}'")]
    Fields(String),
    /// The en-passant field is malformed or impossible.
    #[error("bad view en-passant field '{0}'")]
    EnPassant(String),
    /// The view shows more than one king of the viewer (none is possible once it was captured).
    #[error("view shows more than one king of the viewer")]
    OwnKings,
}

impl View {
    /// The text form: FEN-like board with `?` fog and `X`/`x` silhouettes, plus the own hand in
    /// Crazyhouse.
    pub fn to_text(&self) -> String {
        let mut s = self.board_text();
        match self.ep {
            Some(sq) => s.push_str(&format!(" {sq}")),
            None => s.push_str(" -"),
        }
        s
    }

    /// The board and hand part of the text form (no en-passant field).
    fn board_text(&self) -> String {
        let mut s = board_text(self.variant, |sq| match self.square(sq) {
            SquareView::Fog => Some(('?', false)),
            SquareView::Silhouette(Color::White) => Some(('X', false)),
            SquareView::Silhouette(Color::Black) => Some(('x', false)),
            SquareView::Empty => None,
            SquareView::Piece(p, promoted) => Some((piece_char(self.variant, p), promoted)),
        });
        if self.variant.has_hands() {
            s.push('[');
            s.push_str(&self.hand_text());
            s.push(']');
        }
        s
    }

    /// The own hand in FEN letters, in [`Role::HAND`] order (`QPP` for White, `qpp` for Black).
    pub(super) fn hand_text(&self) -> String {
        let mut s = String::new();
        for role in Role::HAND {
            for _ in 0..self.hand.count(role) {
                s.push(piece_char(self.variant, Piece::new(self.side, role)));
            }
        }
        s
    }

    /// True if `sq` may be the viewer's en-passant square: a seen square of an 8x8 board that a
    /// pawn of the viewer attacks.
    pub(super) fn can_take_en_passant(&self, sq: Square) -> bool {
        let capturers =
            crate::core::attacks::pawn_attacks(self.side.opponent(), sq) & self.pieces(self.side, Role::Pawn);
        self.variant.is_chess_board() && self.seen.contains(sq) && !capturers.is_empty()
    }

    /// Parses the text form of `side`'s view in `variant`.
    pub fn parse(variant: Variant, side: Color, text: &str) -> Result<View, ViewParseError> {
        let mut fields = text.split_whitespace();
        let (board, ep_text) = match (fields.next(), fields.next(), fields.next()) {
            (Some(board), Some(ep), None) => (board, ep),
            _ => return Err(ViewParseError::Fields(text.to_string())),
        };
        let (board, hand_text) = split_hand(board)?;
        let mut view = View {
            variant,
            side,
            seen: variant.board_mask(),
            silhouettes: Bitboard::EMPTY,
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; Role::COUNT],
            promoted: Bitboard::EMPTY,
            hand: Hand::default(),
            ep: None,
        };
        parse_board_text(variant, board, |sq, c, promoted| view.place(sq, c, promoted))?;
        match (variant.has_hands(), hand_text) {
            (true, Some(h)) => view.hand = parse_own_hand(variant, side, h)?,
            (false, None) => {}
            (_, other) => return Err(ViewParseError::Hand(other.unwrap_or("").to_string())),
        }
        if view.pieces(side, Role::King).count() > 1 {
            return Err(ViewParseError::OwnKings);
        }
        if ep_text != "-" {
            let sq = Square::parse(ep_text).ok_or_else(|| ViewParseError::EnPassant(ep_text.to_string()))?;
            if !view.can_take_en_passant(sq) {
                return Err(ViewParseError::EnPassant(ep_text.to_string()));
            }
            view.ep = Some(sq);
        }
        Ok(view)
    }

    fn place(&mut self, sq: Square, c: char, promoted: bool) -> Result<(), FenError> {
        let bb = Bitboard::from_square(sq);
        let mark_ok = !promoted || self.variant.has_hands();
        match c {
            '?' if !promoted => self.seen ^= bb,
            'X' | 'x' if !promoted => {
                self.seen ^= bb;
                self.silhouettes |= bb;
                self.by_color[usize::from(c == 'x')] |= bb;
            }
            _ => {
                let role = self.variant.role_of_letter(c).ok_or(FenError::BadPiece(c, self.variant))?;
                if !mark_ok || (promoted && matches!(role, Role::King | Role::Pawn)) {
                    return Err(FenError::BadPromotedMark);
                }
                self.by_color[usize::from(c.is_ascii_lowercase())] |= bb;
                self.by_role[role.index()] |= bb;
                if promoted {
                    self.promoted |= bb;
                }
            }
        }
        Ok(())
    }

    /// A multi-line ASCII diagram, rank 8 on top: letters for pieces (`~` after promoted ones),
    /// `.` for seen empty squares, `?` for fog and `X`/`x` for silhouettes.
    pub fn diagram(&self) -> String {
        let mut s = grid_diagram(self.variant, |sq| match self.square(sq) {
            SquareView::Fog => ('?', ' '),
            SquareView::Silhouette(Color::White) => ('X', ' '),
            SquareView::Silhouette(Color::Black) => ('x', ' '),
            SquareView::Empty => ('.', ' '),
            SquareView::Piece(p, promoted) => (piece_char(self.variant, p), if promoted { '~' } else { ' ' }),
        });
        if let Some(ep) = self.ep {
            s.push_str(&format!("  en passant: {ep}\n"));
        }
        if self.variant.has_hands() {
            let hand: String =
                self.board_text().split_once('[').map(|(_, h)| h.trim_end_matches(']').to_string()).unwrap_or_default();
            s.push_str(&format!("  hand: {}\n", if hand.is_empty() { "-" } else { &hand }));
        }
        s
    }
}

/// A framed board, rank 8 on top, with file letters below; `cell` gives each square's character
/// and the mark written before it (`~` for promoted pieces). Shared by views and true positions.
pub fn grid_diagram(variant: Variant, cell: impl Fn(Square) -> (char, char)) -> String {
    let width = variant.width() as usize;
    let rule = format!("  +{}+\n", "-".repeat(width * 2 + 1));
    let mut s = rule.clone();
    for rank in (0..8u8).rev() {
        s.push_str(&format!("{} |", rank + 1));
        for file in 0..width as u8 {
            let (c, mark) = cell(Square::from_coords(file, rank));
            s.push(mark);
            s.push(c);
        }
        s.push_str(" |\n");
    }
    s.push_str(&rule);
    s.push_str("   ");
    for file in 0..width as u8 {
        s.push(' ');
        s.push((b'a' + file) as char);
    }
    s.push('\n');
    s
}

fn parse_own_hand(variant: Variant, side: Color, text: &str) -> Result<Hand, ViewParseError> {
    let mut hand = Hand::default();
    for c in text.chars() {
        let role = variant.role_of_letter(c).filter(|r| Role::HAND.contains(r));
        let own_case = (side == Color::White) == c.is_ascii_uppercase();
        match role {
            Some(role) if own_case => hand.add(role),
            _ => return Err(ViewParseError::Hand(text.to_string())),
        }
    }
    Ok(hand)
}
