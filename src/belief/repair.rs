//! Making a world agree with one view, for the fallback: copy what the view shows, keep the
//! remembered world's enemy pieces in the fog, and fix what the fog itself implies.

use crate::core::{Color, Piece, Role, Square, Variant};
use crate::rules::fen::{board_fen, piece_char};
use crate::rules::{Castling, Hand, Position};
use crate::view::{SquareView, View};

type Cells = [Option<(Piece, bool)>; 64];

/// `seed` changed so that `view` is exactly what its viewer sees of it, with `turn` to move;
/// `None` if the repair does not converge.
pub(super) fn repair(seed: &Position, view: &View, turn: Color) -> Option<Position> {
    let side = view.side();
    let mut cells = copy_view(seed, view);
    for _ in 0..8 {
        place_enemy_king(&mut cells, view);
        let pos = build(seed, view, turn, &cells)?;
        let got = View::of(&pos, side);
        if got == *view {
            return Some(pos);
        }
        // Squares the world shows that the view keeps in fog: an enemy piece there must go (a
        // pawn or a cannon would see it), an empty one must be filled (a pawn would see it).
        let extra = got.seen() & view.fog();
        if extra.is_empty() {
            return None;
        }
        for sq in extra {
            cells[sq.index()] = match cells[sq.index()] {
                Some(_) => None,
                None => Some((Piece::new(side.opponent(), filler(view.variant(), sq)), false)),
            };
        }
    }
    None
}

/// The view's squares as it shows them, the seed's enemy pieces in the fog.
fn copy_view(seed: &Position, view: &View) -> Cells {
    let enemy = view.side().opponent();
    let mut cells: Cells = [None; 64];
    let seed_piece = |sq: Square, color: Color| {
        seed.piece_at(sq)
            .filter(|p| p.color == color && p.role != Role::King)
            .map(|p| (p, seed.promoted().contains(sq)))
    };
    for sq in view.variant().board_mask() {
        cells[sq.index()] = match view.square(sq) {
            SquareView::Piece(p, promoted) => Some((p, promoted)),
            SquareView::Empty => None,
            SquareView::Silhouette(c) => seed_piece(sq, c).or(Some((Piece::new(c, filler(view.variant(), sq)), false))),
            SquareView::Fog => seed_piece(sq, enemy),
        }
    }
    if let Some(k) = seed.king(enemy).filter(|&k| view.fog().contains(k) && cells[k.index()].is_none()) {
        cells[k.index()] = Some((Piece::new(enemy, Role::King), false));
    }
    cells
}

/// A piece to stand on `sq` when only its presence is known: a pawn, or a knight on a back rank.
fn filler(variant: Variant, sq: Square) -> Role {
    if sq.rank() == 0 || sq.rank() == 7 || !variant.has_role(Role::Pawn) {
        Role::Knight
    } else {
        Role::Pawn
    }
}

/// Makes sure exactly one enemy king stands on the board: a seen one wins, else one in the fog.
fn place_enemy_king(cells: &mut Cells, view: &View) {
    let enemy = view.side().opponent();
    let is_king = |c: &Option<(Piece, bool)>| matches!(c, Some((p, _)) if p.color == enemy && p.role == Role::King);
    let seen_king = view.pieces(enemy, Role::King).any();
    let mut kings: Vec<usize> = (0..64).filter(|&i| is_king(&cells[i])).collect();
    if seen_king {
        kings.retain(|&i| view.fog().contains(Square::new_unchecked(i as u8)));
        for i in kings {
            cells[i] = None;
        }
    } else if kings.is_empty() {
        if let Some(sq) = (view.fog()).find(|sq| cells[sq.index()].is_none()) {
            cells[sq.index()] = Some((Piece::new(enemy, Role::King), false));
        }
    }
}

/// The position with `cells` on the board, the viewer's hand from the view, the enemy's from the
/// seed, castling rights the seed had and the board still allows.
fn build(seed: &Position, view: &View, turn: Color, cells: &Cells) -> Option<Position> {
    let variant = view.variant();
    let mut fen = board_fen(variant, |sq| cells[sq.index()]);
    if variant.has_hands() {
        fen.push('[');
        for color in Color::ALL {
            let hand = if color == view.side() { view.hand() } else { seed.hand(color) };
            push_hand(&mut fen, variant, color, hand);
        }
        fen.push(']');
    }
    fen.push(' ');
    fen.push(turn.letter());
    fen.push(' ');
    fen.push_str(&castling_field(seed, cells));
    let ep = view.ep_square().filter(|_| turn == view.side());
    fen.push_str(&ep.map_or(" -".to_string(), |sq| format!(" {sq}")));
    fen.push_str(" 0 1");
    Position::from_fen(variant, &fen).ok()
}

fn push_hand(fen: &mut String, variant: Variant, color: Color, hand: &Hand) {
    for role in Role::HAND {
        for _ in 0..hand.count(role) {
            fen.push(piece_char(variant, Piece::new(color, role)));
        }
    }
}

/// The seed's castling rights whose king and rook still stand at home in `cells`.
fn castling_field(seed: &Position, cells: &Cells) -> String {
    let mut s = String::new();
    let holds = |sq: Square, color: Color, role: Role| matches!(cells[sq.index()], Some((p, _)) if p == Piece::new(color, role));
    for (color, king_side, c) in
        [(Color::White, true, 'K'), (Color::White, false, 'Q'), (Color::Black, true, 'k'), (Color::Black, false, 'q')]
    {
        if seed.castling().has(color, king_side)
            && holds(Castling::king_square(color), color, Role::King)
            && holds(Castling::rook_square(color, king_side), color, Role::Rook)
        {
            s.push(c);
        }
    }
    if s.is_empty() {
        s.push('-');
    }
    s
}
