//! The true position of any of the three games, and playing a move on it.

use super::hand::Hand;
use super::zobrist::{HAND_SLOTS, KEYS};
use crate::core::{Bitboard, Color, Move, MoveKind, Piece, Role, Square, Variant};

/// What a ply did to the kings and the Try ([`Position::ply_verdict`]), in RULES.md's order of
/// checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlyVerdict {
    /// The mover captured the enemy king: the mover wins.
    KingCaptured,
    /// The enemy's Try was pending and the ply did not capture its king: the enemy wins.
    TryCompleted,
    /// The mover's king reached its far rank: its Try is armed (the mover wins at once if the
    /// opponent has no legal move).
    TryArmed,
    /// None of these: the draw rules and the lack of moves decide whether the game goes on.
    Neither,
}

/// Castling rights as four bits: White king side, White queen side, Black king side, Black queen side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Castling(pub u8);

impl Castling {
    /// No rights at all.
    pub const NONE: Castling = Castling(0);

    /// The bit of the right of `color` on the king side (`king_side`) or the queen side.
    #[inline(always)]
    pub const fn bit(color: Color, king_side: bool) -> u8 {
        1 << (color as u8 * 2 + if king_side { 0 } else { 1 })
    }

    /// True if `color` may still castle on that side.
    #[inline(always)]
    pub const fn has(self, color: Color, king_side: bool) -> bool {
        self.0 & Castling::bit(color, king_side) != 0
    }

    /// The rook's home square for that right.
    pub const fn rook_square(color: Color, king_side: bool) -> Square {
        Square::from_coords(if king_side { 7 } else { 0 }, if matches!(color, Color::White) { 0 } else { 7 })
    }

    /// Where the rook of `color` goes from and to when the king castles with `castle`.
    pub fn rook_move(color: Color, castle: Move) -> (Square, Square) {
        let king_side = castle.to.file() > castle.from.file();
        let to = Square::from_coords(if king_side { 5 } else { 3 }, castle.from.rank());
        (Castling::rook_square(color, king_side), to)
    }

    /// The king's home square.
    pub const fn king_square(color: Color) -> Square {
        Square::from_coords(4, if matches!(color, Color::White) { 0 } else { 7 })
    }

    /// Rights lost when a move starts or ends on `sq` (a king or rook home square).
    #[inline(always)]
    fn lost_by_touching(sq: Square) -> u8 {
        match sq.index() {
            0 => Castling::bit(Color::White, false),
            7 => Castling::bit(Color::White, true),
            4 => Castling::bit(Color::White, true) | Castling::bit(Color::White, false),
            56 => Castling::bit(Color::Black, false),
            63 => Castling::bit(Color::Black, true),
            60 => Castling::bit(Color::Black, true) | Castling::bit(Color::Black, false),
            _ => 0,
        }
    }
}

/// Plies without a capture, pawn or soldier move or drop after which the game is drawn (RULES.md).
pub const NO_PROGRESS_LIMIT: u32 = 100;

/// A complete position: placement, promoted marks, hands, side to move, castling rights,
/// en-passant square and move counters.
///
/// The en-passant square is kept only when the side to move has a pawn that can capture there,
/// so two positions with the same possibilities compare equal.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Position {
    pub(super) variant: Variant,
    pub(super) by_color: [Bitboard; 2],
    pub(super) by_role: [Bitboard; Role::COUNT],
    pub(super) promoted: Bitboard,
    pub(super) hands: [Hand; 2],
    pub(super) turn: Color,
    pub(super) castling: Castling,
    pub(super) ep_square: Option<Square>,
    pub(super) halfmoves: u32,
    pub(super) fullmoves: u32,
}

impl Position {
    /// The start position of `variant`.
    pub fn start(variant: Variant) -> Position {
        Position::from_fen(variant, variant.start_fen()).expect("start FEN is valid")
    }

    /// An empty board of `variant`, White to move (the starting point for building positions).
    pub(super) fn empty(variant: Variant) -> Position {
        Position {
            variant,
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; Role::COUNT],
            promoted: Bitboard::EMPTY,
            hands: [Hand::default(); 2],
            turn: Color::White,
            castling: Castling::NONE,
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// Which game this is.
    #[inline(always)]
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The side to move.
    #[inline(always)]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Squares holding pieces of `color`.
    #[inline(always)]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// Squares holding pieces of `role` (both colors).
    #[inline(always)]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    /// Squares holding `color`'s pieces of `role`.
    #[inline(always)]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_color[color.index()] & self.by_role[role.index()]
    }

    /// Every occupied square.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// Squares holding promoted pieces (Crazyhouse `~`).
    #[inline(always)]
    pub fn promoted(&self) -> Bitboard {
        self.promoted
    }

    /// The hand of `color`.
    #[inline(always)]
    pub fn hand(&self, color: Color) -> &Hand {
        &self.hands[color.index()]
    }

    /// Castling rights.
    #[inline(always)]
    pub fn castling(&self) -> Castling {
        self.castling
    }

    /// The en-passant target square, present only when a capture there is possible.
    #[inline(always)]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// Plies since the last capture, pawn or soldier move, or drop.
    #[inline(always)]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// True if the game is drawn for want of progress ([`NO_PROGRESS_LIMIT`] plies without a
    /// capture, pawn or soldier move or drop), unless a pending Try ends it first.
    #[inline(always)]
    pub fn no_progress_limit_reached(&self) -> bool {
        self.halfmoves >= NO_PROGRESS_LIMIT
    }

    /// Who wins when the side to move has no legal move (RULES.md): the other side when a Try
    /// is pending against it or where having no move loses; nobody (a draw) in Dark Chess.
    pub fn winner_when_stuck(&self) -> Option<Color> {
        let stuck = self.turn;
        (self.king_on_far_rank(stuck.opponent()) || self.variant.no_move_loses()).then_some(stuck.opponent())
    }

    /// The move number, starting at 1 and counting up after Black's move.
    #[inline(always)]
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The role on `sq`, if any.
    #[inline(always)]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if !self.occupied().contains(sq) {
            return None;
        }
        Role::ALL.into_iter().find(|r| self.by_role[r.index()].contains(sq))
    }

    /// The piece on `sq`, if any.
    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let role = self.role_at(sq)?;
        let color = if self.by_color[0].contains(sq) { Color::White } else { Color::Black };
        Some(Piece::new(color, role))
    }

    /// The king square of `color`, or `None` once that king has been captured.
    #[inline(always)]
    pub fn king(&self, color: Color) -> Option<Square> {
        self.pieces(color, Role::King).first()
    }

    /// True if, in a variant with the Try, `color`'s king stands on its far rank. In a game that
    /// goes on this is a pending Try: the ply that put the king there armed it, and the reply must
    /// capture that king.
    #[inline]
    pub fn king_on_far_rank(&self, color: Color) -> bool {
        self.variant.has_try() && self.king(color).is_some_and(|k| color.relative_rank(k.rank()) == 7)
    }

    /// What the ply `mover` has just played (ending on `to`) did to the kings and the Try, by
    /// RULES.md's order of checks: a king captured, a pending Try answered, a Try armed. The
    /// referee, the search's playouts and the belief all judge a ply by this.
    #[inline]
    pub fn ply_verdict(&self, mover: Color, to: Square) -> PlyVerdict {
        if self.king(mover.opponent()).is_none() {
            PlyVerdict::KingCaptured
        } else if self.king_on_far_rank(mover.opponent()) {
            PlyVerdict::TryCompleted
        } else if self.variant.has_try()
            && self.pieces(mover, Role::King).contains(to)
            && mover.relative_rank(to.rank()) == 7
        {
            PlyVerdict::TryArmed
        } else {
            PlyVerdict::Neither
        }
    }

    /// True once either king has been captured (such a position has no moves).
    #[inline(always)]
    pub fn is_king_captured(&self) -> bool {
        self.by_role[Role::King.index()].count() < 2
    }

    /// Puts `piece` on the empty square `sq`.
    #[inline(always)]
    pub(super) fn put(&mut self, sq: Square, piece: Piece) {
        self.by_color[piece.color.index()] |= Bitboard::from_square(sq);
        self.by_role[piece.role.index()] |= Bitboard::from_square(sq);
    }

    /// Empties `sq`, which holds `piece`.
    #[inline(always)]
    fn remove(&mut self, sq: Square, piece: Piece) {
        let bb = Bitboard::from_square(sq);
        self.by_color[piece.color.index()] ^= bb;
        self.by_role[piece.role.index()] ^= bb;
        self.promoted &= !bb;
    }

    /// Plays a move already known to be one of this position's pseudo-legal moves
    /// (see [`Position::find_move`] for matching untrusted input). Returns the captured piece.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) -> Option<(Square, Piece)> {
        let us = self.turn;
        let them = us.opponent();
        let mut captured = None;
        self.ep_square = None;
        self.halfmoves += 1;
        match m.kind {
            MoveKind::Drop(role) => {
                debug_assert!(!self.occupied().contains(m.to));
                self.hands[us.index()].remove(role);
                self.put(m.to, Piece::new(us, role));
                self.halfmoves = 0;
            }
            MoveKind::Castle => {
                let (rook_from, rook_to) = Castling::rook_move(us, m);
                self.remove(m.from, Piece::new(us, Role::King));
                self.remove(rook_from, Piece::new(us, Role::Rook));
                self.put(m.to, Piece::new(us, Role::King));
                self.put(rook_to, Piece::new(us, Role::Rook));
                self.castling.0 &= !(Castling::bit(us, true) | Castling::bit(us, false));
            }
            _ => {
                let role = self.role_at(m.from).expect("move from an empty square");
                let was_promoted = self.promoted.contains(m.from);
                let target =
                    if m.kind == MoveKind::EnPassant { Square::from_coords(m.to.file(), m.from.rank()) } else { m.to };
                if let Some(victim) = self.role_at(target) {
                    let victim_promoted = self.promoted.contains(target);
                    self.remove(target, Piece::new(them, victim));
                    captured = Some((target, Piece::new(them, victim)));
                    self.halfmoves = 0;
                    if self.variant.has_hands() && victim != Role::King {
                        self.hands[us.index()].add(if victim_promoted { Role::Pawn } else { victim });
                    }
                }
                self.remove(m.from, Piece::new(us, role));
                let new_role = match m.kind {
                    MoveKind::Promotion(r) => r,
                    _ => role,
                };
                self.put(m.to, Piece::new(us, new_role));
                if self.variant.has_hands() && (was_promoted || matches!(m.kind, MoveKind::Promotion(_))) {
                    self.promoted |= Bitboard::from_square(m.to);
                }
                if matches!(role, Role::Pawn | Role::Soldier) {
                    self.halfmoves = 0;
                    if role == Role::Pawn && m.from.rank().abs_diff(m.to.rank()) == 2 {
                        self.set_ep_if_capturable(Square::from_coords(
                            m.from.file(),
                            (m.from.rank() + m.to.rank()) / 2,
                        ));
                    }
                }
                self.castling.0 &= !(Castling::lost_by_touching(m.from) | Castling::lost_by_touching(m.to));
            }
        }
        if us == Color::Black {
            self.fullmoves += 1;
        }
        self.turn = them;
        captured
    }

    /// Records `sq` as the en-passant square if a pawn of the side about to move attacks it.
    fn set_ep_if_capturable(&mut self, sq: Square) {
        let capturer = self.turn.opponent();
        let attackers = crate::core::attacks::pawn_attacks(self.turn, sq) & self.pieces(capturer, Role::Pawn);
        if self.variant.is_chess_board() && attackers.any() {
            self.ep_square = Some(sq);
        }
    }

    /// A hash of everything the repetition rule compares: placement (with promoted marks),
    /// side to move, hands, castling rights and the en-passant square.
    pub fn repetition_key(&self) -> u64 {
        let mut h = 0u64;
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in self.pieces(color, role) {
                    h ^= KEYS.piece[color.index()][role.index()][sq.index()];
                }
                let n = self.hands[color.index()].count(role) as usize;
                h ^= KEYS.hand[color.index()][role.index()][n.min(HAND_SLOTS - 1)];
            }
        }
        for sq in self.promoted {
            h ^= KEYS.promoted[sq.index()];
        }
        h ^= KEYS.castling[self.castling.0 as usize & 15];
        if let Some(ep) = self.ep_square {
            h ^= KEYS.ep[ep.index()];
        }
        if self.turn == Color::Black {
            h ^= KEYS.black;
        }
        h
    }
}
