//! What one side sees of the true position (RULES.md sections 2 and 4): each square is seen
//! (with its content), a silhouette (occupied, color only) or fog; plus the side's own hand.
//!
//! The text form, used by the protocol, is a FEN-like board, rank 8 first: piece letters (with
//! `~` for promoted pieces) and digits for runs of seen empty squares as in FEN, `?` for a fogged
//! square, `X`/`x` for a White/Black silhouette; then, in Crazyhouse, the viewer's own hand in
//! brackets in FEN letters (`[QPP]` for White, `[qpp]` for Black; `[]` when empty); then, after a
//! space, the en-passant square the viewer may capture on now, or `-` (the square and the pawn
//! that may be taken are already seen; this field says that the capture is available).
//! Example (White after 1. e4 in Dark Chess): `????????/????????/1???????/?1??1??1/4P3/4?3/PPPP1PPP/RNBQKBNR -`.

mod info;
mod observation;
mod own_moves;
mod players;
mod text;

pub use info::{Event, InfoError, InfoState};
pub use observation::{Observation, ObservationParseError};
pub use players::{SimplePlayer, UnknownPlayer};
pub use text::{grid_diagram, ViewParseError};

use crate::core::{Bitboard, Color, Piece, Role, Square, Variant};
use crate::rules::fen::{piece_char, FenError};
use crate::rules::{vision_with_ep, Hand, Position};

/// What a side knows about one square.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SquareView {
    /// Not seen.
    Fog,
    /// Occupied by a piece of this color, kind unknown.
    Silhouette(Color),
    /// Seen and empty.
    Empty,
    /// Seen, holding this piece (`true` if it is a promoted Crazyhouse piece).
    Piece(Piece, bool),
}

/// One side's view of a position.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct View {
    variant: Variant,
    side: Color,
    seen: Bitboard,
    silhouettes: Bitboard,
    by_color: [Bitboard; 2],
    by_role: [Bitboard; Role::COUNT],
    promoted: Bitboard,
    hand: Hand,
    ep: Option<Square>,
}

impl View {
    /// The view `side` has of `pos`.
    pub fn of(pos: &Position, side: Color) -> View {
        let (seen, silhouettes, ep) = vision_with_ep(pos, side);
        let known = seen | silhouettes;
        let mut by_role = [Bitboard::EMPTY; Role::COUNT];
        for role in Role::ALL {
            by_role[role.index()] = pos.by_role(role) & seen;
        }
        View {
            variant: pos.variant(),
            side,
            seen,
            silhouettes,
            by_color: [pos.by_color(Color::White) & known, pos.by_color(Color::Black) & known],
            by_role,
            promoted: pos.promoted() & seen,
            hand: *pos.hand(side),
            ep,
        }
    }

    /// The view in which `side` knows `square(sq)` of each square of the board, holds `hand` and
    /// may capture en passant on `ep`: the value [`View::parse`] reads from the text form, built
    /// without one. It is checked as the text is: a piece of this game (a promoted one only in
    /// Crazyhouse, never a king or pawn), at most one king of the viewer, a hand only in
    /// Crazyhouse, and `ep` a seen square of an 8x8 board that a pawn of the viewer attacks.
    pub fn from_squares(
        variant: Variant,
        side: Color,
        square: impl Fn(Square) -> SquareView,
        hand: Hand,
        ep: Option<Square>,
    ) -> Result<View, ViewParseError> {
        let mut view = View {
            variant,
            side,
            seen: Bitboard::EMPTY,
            silhouettes: Bitboard::EMPTY,
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; Role::COUNT],
            promoted: Bitboard::EMPTY,
            hand,
            ep: None,
        };
        for sq in variant.board_mask() {
            view.put(sq, square(sq))?;
        }
        if !variant.has_hands() && !hand.is_empty() {
            return Err(ViewParseError::Hand(view.hand_text()));
        }
        if view.pieces(side, Role::King).count() > 1 {
            return Err(ViewParseError::OwnKings);
        }
        if let Some(sq) = ep {
            if !view.can_take_en_passant(sq) {
                return Err(ViewParseError::EnPassant(sq.to_string()));
            }
            view.ep = Some(sq);
        }
        Ok(view)
    }

    /// Records what the viewer knows of `sq`, a square it knew nothing of yet.
    fn put(&mut self, sq: Square, known: SquareView) -> Result<(), FenError> {
        let bb = Bitboard::from_square(sq);
        match known {
            SquareView::Fog => {}
            SquareView::Empty => self.seen |= bb,
            SquareView::Silhouette(color) => {
                self.silhouettes |= bb;
                self.by_color[color.index()] |= bb;
            }
            SquareView::Piece(piece, promoted) => {
                if !self.variant.has_role(piece.role) {
                    return Err(FenError::BadPiece(piece_char(self.variant, piece), self.variant));
                }
                if promoted && (!self.variant.has_hands() || matches!(piece.role, Role::King | Role::Pawn)) {
                    return Err(FenError::BadPromotedMark);
                }
                self.seen |= bb;
                self.by_color[piece.color.index()] |= bb;
                self.by_role[piece.role.index()] |= bb;
                if promoted {
                    self.promoted |= bb;
                }
            }
        }
        Ok(())
    }

    /// The game.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Whose view this is.
    pub fn side(&self) -> Color {
        self.side
    }

    /// Squares seen in full.
    pub fn seen(&self) -> Bitboard {
        self.seen
    }

    /// Squares seen only as silhouettes.
    pub fn silhouettes(&self) -> Bitboard {
        self.silhouettes
    }

    /// Squares in fog (on the board, neither seen nor silhouette).
    pub fn fog(&self) -> Bitboard {
        self.variant.board_mask() & !(self.seen | self.silhouettes)
    }

    /// Known squares holding pieces of `color` (seen or silhouette).
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// Seen squares holding `color`'s pieces of `role`.
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_color[color.index()] & self.by_role[role.index()]
    }

    /// Seen promoted pieces.
    pub fn promoted(&self) -> Bitboard {
        self.promoted
    }

    /// The viewer's own hand.
    pub fn hand(&self) -> &Hand {
        &self.hand
    }

    /// The en-passant square the viewer may capture on now, if any.
    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    /// What the viewer knows about `sq`.
    pub fn square(&self, sq: Square) -> SquareView {
        if self.silhouettes.contains(sq) {
            let color = if self.by_color[0].contains(sq) { Color::White } else { Color::Black };
            return SquareView::Silhouette(color);
        }
        if !self.seen.contains(sq) {
            return SquareView::Fog;
        }
        let color = if self.by_color[0].contains(sq) {
            Color::White
        } else if self.by_color[1].contains(sq) {
            Color::Black
        } else {
            return SquareView::Empty;
        };
        match Role::ALL.into_iter().find(|r| self.by_role[r.index()].contains(sq)) {
            Some(role) => SquareView::Piece(Piece::new(color, role), self.promoted.contains(sq)),
            None => SquareView::Silhouette(color),
        }
    }
}
