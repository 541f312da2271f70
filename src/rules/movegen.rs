//! Pseudo-legal move generation for every game, written once over a [`MoveSink`] so that the
//! same code fills move lists and counts moves for perft.

use super::position::{Castling, Position};
use crate::core::attacks;
use crate::core::{Bitboard, Color, Move, MoveKind, Role, Square};

/// Where generated moves go.
pub trait MoveSink {
    /// Receives one move.
    fn push(&mut self, m: Move);

    /// Receives plain moves from `from` to every square of `targets`.
    #[inline(always)]
    fn push_targets(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(Move::normal(from, to));
        }
    }

    /// Receives drops of `role` onto every square of `targets`.
    #[inline(always)]
    fn push_drops(&mut self, role: Role, targets: Bitboard) {
        for to in targets {
            self.push(Move::drop(role, to));
        }
    }
}

/// Most moves a position of any game can have, with room to spare.
pub const MAX_MOVES: usize = 512;

/// A fixed-capacity list of moves, filled without allocating.
#[derive(Clone, Default)]
pub struct MoveList(arrayvec::ArrayVec<Move, MAX_MOVES>);

impl MoveList {
    /// An empty list.
    #[inline(always)]
    pub fn new() -> MoveList {
        MoveList(arrayvec::ArrayVec::new())
    }

    /// The moves as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        &self.0
    }

    /// Keeps only the moves for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(Move) -> bool) {
        self.0.retain(|m| keep(*m));
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        self.0.push(m);
    }
}

/// A sink that only counts moves (perft's leaves).
#[derive(Default)]
pub struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn push_targets(&mut self, _: Square, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }
    #[inline(always)]
    fn push_drops(&mut self, _: Role, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }
}

/// Where a piece of `color` and `role` on `sq` may move or capture, excluding pawns
/// (whose pushes and captures differ) and castling. `own` squares are removed by the caller.
#[inline(always)]
pub fn reach(role: Role, color: Color, sq: Square, occ: Bitboard, enemies: Bitboard, board: Bitboard) -> Bitboard {
    match role {
        Role::Knight => attacks::knight(sq) & board,
        Role::King => attacks::king(sq) & board,
        Role::Bishop => attacks::bishop(sq, occ) & board,
        Role::Rook => attacks::rook(sq, occ) & board,
        Role::Queen => attacks::queen(sq, occ) & board,
        Role::Soldier => attacks::soldier(color, sq) & board,
        Role::Horse => attacks::horse(sq, occ, board).0,
        Role::Cannon => {
            let c = attacks::cannon(sq, occ);
            (c.quiet & board) | (c.beyond & enemies)
        }
        Role::Pawn => (attacks::pawn_attacks(color, sq) & enemies) | pawn_pushes(color, sq, occ, board),
    }
}

/// The squares a pawn of `color` on `sq` may push to (one step, or two from its second rank).
#[inline(always)]
pub fn pawn_pushes(color: Color, sq: Square, occ: Bitboard, board: Bitboard) -> Bitboard {
    let empty = board & !occ;
    let one = Bitboard::from_square(sq).shift_ranks(color.forward()) & empty;
    let two =
        if color.relative_rank(sq.rank()) == 1 { one.shift_ranks(color.forward()) & empty } else { Bitboard::EMPTY };
    one | two
}

impl Position {
    /// Generates every pseudo-legal move (board moves and drops) into `sink`.
    /// A position whose king has been captured has no moves.
    #[inline]
    pub fn generate<S: MoveSink>(&self, sink: &mut S) {
        self.generate_moves::<S, false>(sink);
    }

    /// Generates every pseudo-legal move, or with `TACTICAL` only the captures (king captures
    /// included) and the promotions, without castling or drops.
    #[inline(always)]
    fn generate_moves<S: MoveSink, const TACTICAL: bool>(&self, sink: &mut S) {
        if self.is_king_captured() {
            return;
        }
        let us = self.turn;
        let board = self.variant.board_mask();
        let own = self.by_color(us);
        let enemies = self.by_color(us.opponent());
        let occ = own | enemies;
        let targets = if TACTICAL { enemies } else { board & !own };
        for role in
            [Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King, Role::Cannon, Role::Horse, Role::Soldier]
        {
            for sq in self.pieces(us, role) {
                sink.push_targets(sq, reach(role, us, sq, occ, enemies, board) & targets);
            }
        }
        self.generate_pawn_moves::<S, TACTICAL>(sink, occ, enemies, board);
        if TACTICAL {
            return;
        }
        if self.castling.0 != 0 {
            self.generate_castling(sink, occ);
        }
        if self.variant.has_hands() {
            let hand = self.hand(us);
            let empty = board & !occ;
            for role in hand.roles() {
                let to = if role == Role::Pawn { empty & !(Bitboard::rank(0) | Bitboard::rank(7)) } else { empty };
                sink.push_drops(role, to);
            }
        }
    }

    fn generate_pawn_moves<S: MoveSink, const TACTICAL: bool>(
        &self,
        sink: &mut S,
        occ: Bitboard,
        enemies: Bitboard,
        board: Bitboard,
    ) {
        let us = self.turn;
        let pawns = self.pieces(us, Role::Pawn);
        if pawns.is_empty() {
            return;
        }
        let fwd = us.forward();
        let empty = board & !occ;
        let last = Bitboard::rank(if us == Color::White { 7 } else { 0 });
        let double_to = Bitboard::rank(if us == Color::White { 3 } else { 4 });
        let single = pawns.shift_ranks(fwd) & empty;
        let ahead = pawns.shift_ranks(fwd);
        let west = Bitboard((ahead & !Bitboard::file(0)).0 >> 1) & enemies;
        let east = Bitboard((ahead & !Bitboard::file(7)).0 << 1) & enemies;
        let fwd8 = 8 * fwd as i32;
        if TACTICAL {
            self.push_pawn_moves(sink, single & last, fwd8, last);
        } else {
            let double = single.shift_ranks(fwd) & empty & double_to;
            self.push_pawn_moves(sink, single, fwd8, last);
            self.push_pawn_moves(sink, double, 2 * fwd8, last);
        }
        self.push_pawn_moves(sink, west, fwd8 - 1, last);
        self.push_pawn_moves(sink, east, fwd8 + 1, last);
        if let Some(ep) = self.ep_square {
            for from in attacks::pawn_attacks(us.opponent(), ep) & pawns {
                sink.push(Move { from, to: ep, kind: MoveKind::EnPassant });
            }
        }
    }

    #[inline(always)]
    fn push_pawn_moves<S: MoveSink>(&self, sink: &mut S, targets: Bitboard, delta: i32, last: Bitboard) {
        for to in targets {
            let from = Square::new_unchecked((to.index() as i32 - delta) as u8);
            if last.contains(to) {
                for &role in self.variant.promotion_roles() {
                    sink.push(Move { from, to, kind: MoveKind::Promotion(role) });
                }
            } else {
                sink.push(Move::normal(from, to));
            }
        }
    }

    fn generate_castling<S: MoveSink>(&self, sink: &mut S, occ: Bitboard) {
        let us = self.turn;
        let king = Castling::king_square(us);
        let rank = king.rank();
        for king_side in [true, false] {
            if !self.castling.has(us, king_side) {
                continue;
            }
            let between: &[u8] = if king_side { &[5, 6] } else { &[1, 2, 3] };
            if between.iter().all(|&f| !occ.contains(Square::from_coords(f, rank))) {
                let to = Square::from_coords(if king_side { 6 } else { 2 }, rank);
                sink.push(Move { from: king, to, kind: MoveKind::Castle });
            }
        }
    }

    /// All pseudo-legal moves in a list.
    pub fn moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list
    }

    /// The pseudo-legal captures (king captures included) and promotions: the moves a
    /// quiescence search looks at.
    pub fn tactical_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_moves::<MoveList, true>(&mut list);
        list
    }

    /// Number of pseudo-legal moves, without building a list.
    #[inline]
    pub fn count_moves(&self) -> u64 {
        let mut counter = MoveCounter(0);
        self.generate(&mut counter);
        counter.0
    }

    /// Matches a parsed move (from [`Move::parse`]) against this position's pseudo-legal moves,
    /// filling in castling and en passant; king-takes-own-rook (`e1h1`) is read as castling.
    /// Drops are matched on role and square only if the square is empty.
    pub fn find_move(&self, wanted: Move) -> Option<Move> {
        let wanted = self.castle_alias(wanted);
        self.moves().iter().copied().find(|m| m.matches_shape(wanted))
    }

    /// Rewrites `e1h1`/`e1a1` (king onto its own castling rook) as `e1g1`/`e1c1`.
    fn castle_alias(&self, m: Move) -> Move {
        let us = self.turn;
        if m.kind != MoveKind::Normal
            || m.from != Castling::king_square(us)
            || !self.pieces(us, Role::King).contains(m.from)
        {
            return m;
        }
        for king_side in [true, false] {
            if m.to == Castling::rook_square(us, king_side) && self.pieces(us, Role::Rook).contains(m.to) {
                let to = Square::from_coords(if king_side { 6 } else { 2 }, m.from.rank());
                return Move::normal(m.from, to);
            }
        }
        m
    }
}
