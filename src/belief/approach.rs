//! How far a piece is from a square: for every colour, role and square of a variant, the squares
//! one move takes a piece of that colour and role to, and those from which it can get there
//! within `d` moves, on an empty board. Pieces in the way only make a path longer, so these are
//! lower bounds on the moves any real game needs (the look-ahead's bounds rest on them).

use crate::core::{Bitboard, Color, Role, Square, Variant};
use crate::rules::reach;
use std::sync::OnceLock;

/// Distances are told apart up to this many moves; anything further counts as `FAR`.
pub const FAR: usize = 8;

/// The approach tables of one variant.
pub struct Approach {
    /// Indexed by colour, role and target square: the squares within `d` moves, `d < FAR`.
    within: Vec<[Bitboard; FAR]>,
    /// Indexed by colour, role and square: the squares one move takes the piece to.
    step: Vec<Bitboard>,
}

impl Approach {
    /// The tables of `variant` (built on first use).
    pub fn of(variant: Variant) -> &'static Approach {
        static TABLES: [OnceLock<Approach>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let i = Variant::ALL.iter().position(|&v| v == variant).expect("a known variant");
        TABLES[i].get_or_init(|| Approach::build(variant))
    }

    fn build(variant: Variant) -> Approach {
        let board = variant.board_mask();
        let mut within = vec![[Bitboard::EMPTY; FAR]; 2 * Role::COUNT * 64];
        let mut steps = vec![Bitboard::EMPTY; 2 * Role::COUNT * 64];
        for color in Color::ALL {
            for role in Role::ALL {
                // Every move the piece could make from each square with nothing in the way (a
                // capture allowed anywhere).
                let step: Vec<Bitboard> = (0..64u8)
                    .map(Square::new_unchecked)
                    .map(|sq| {
                        if board.contains(sq) {
                            reach(role, color, sq, Bitboard::EMPTY, board, board)
                        } else {
                            Bitboard::EMPTY
                        }
                    })
                    .collect();
                for sq in board {
                    steps[Approach::index(color, role, sq)] = step[sq.index()];
                }
                for to in board {
                    let rings = &mut within[Approach::index(color, role, to)];
                    rings[0] = Bitboard::from_square(to);
                    for d in 1..FAR {
                        let closer = rings[d - 1];
                        let mut r = closer;
                        for from in board & !closer {
                            if (step[from.index()] & closer).any() {
                                r = r.with(from);
                            }
                        }
                        rings[d] = r;
                    }
                }
            }
        }
        Approach { within, step: steps }
    }

    fn index(color: Color, role: Role, to: Square) -> usize {
        (color.index() * Role::COUNT + role.index()) * 64 + to.index()
    }

    /// The squares a piece of `color` and `role` on `sq` reaches in one move on an empty board
    /// (a capture allowed anywhere).
    pub fn step(&self, color: Color, role: Role, sq: Square) -> Bitboard {
        self.step[Approach::index(color, role, sq)]
    }

    /// The fewest moves any of `pieces` (of `color` and `role`) needs to reach `to` on an empty
    /// board, or [`FAR`] if none is nearer; 0 if one stands there.
    pub fn moves(&self, color: Color, role: Role, to: Square, pieces: Bitboard) -> u32 {
        let rings = &self.within[Approach::index(color, role, to)];
        rings.iter().position(|r| (*r & pieces).any()).unwrap_or(FAR) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_are_those_of_the_pieces_moves() {
        let a = Approach::of(Variant::DarkChess);
        let sq = |s: &str| Square::parse(s).expect("square");
        let at = |s: &str| Bitboard::from_square(sq(s));
        assert_eq!(a.moves(Color::White, Role::Knight, sq("h8"), at("a1")), 6);
        assert_eq!(a.moves(Color::White, Role::Knight, sq("c2"), at("a1")), 1);
        assert_eq!(a.moves(Color::White, Role::King, sq("e4"), at("a1")), 4);
        assert_eq!(a.moves(Color::White, Role::Rook, sq("h8"), at("a1")), 2);
        assert_eq!(a.moves(Color::White, Role::Bishop, sq("h8"), at("a1")), 1);
        // A bishop never changes colour.
        assert_eq!(a.moves(Color::White, Role::Bishop, sq("h7"), at("a1")), FAR as u32);
        // Pawns only go forward: two steps from the second rank count one move.
        assert_eq!(a.moves(Color::White, Role::Pawn, sq("e4"), at("e2")), 1);
        assert_eq!(a.moves(Color::Black, Role::Pawn, sq("e4"), at("e2")), FAR as u32);
        assert_eq!(a.moves(Color::Black, Role::Pawn, sq("d5"), at("d7")), 1);
        assert_eq!(a.moves(Color::Black, Role::Pawn, sq("d5"), at("e7")), 2);
        assert_eq!(a.moves(Color::White, Role::Queen, sq("d4"), at("d4")), 0);
        assert_eq!(a.moves(Color::White, Role::Queen, sq("d4"), Bitboard::EMPTY), FAR as u32);
    }
}
