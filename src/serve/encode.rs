//! From Murk's vocabulary to Mistboard's wire: the observations and turn requests `murk match`
//! sends a Mistboard engine, written as Mistboard's request builder writes them (its
//! `buildObservationForPly`) plus the extension of protocol.md section 12.4. The inverse of
//! [`decode`](super::decode), which reads them back.

use super::decode::{index_of_square, mask_text, move_to_wire, role_letter, wire_color};
use super::wire::{ObsKind, WireMove, WireObservation, WirePiece};
use crate::core::{Move, MoveKind, Role, Square};
use crate::rules::Castling;
use crate::view::{SquareView, View};
use std::collections::BTreeMap;

/// What produced an observation, with what the wire says of it besides the view.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Source {
    /// The start of the game.
    Initial,
    /// The receiver's own move.
    Own(Move),
    /// The opponent's move: where it took one of the receiver's pieces, and where the mover's
    /// piece landed when the receiver sees it there ([`landing_square`]).
    Opponent {
        /// The square of the receiver's piece it took.
        captured: Option<Square>,
        /// The landing square hint.
        landing: Option<Square>,
    },
}

/// The wire observation of `view` (the receiver's, after `ply` plies) produced by `source`.
pub fn observation(view: &View, ply: usize, source: Source) -> WireObservation {
    let variant = view.variant();
    let side = view.side();
    let mut visible_pieces = Vec::new();
    let mut shrouded = Vec::new();
    for sq in view.seen() | view.silhouettes() {
        let index = index_of_square(variant, sq);
        match view.square(sq) {
            SquareView::Piece(piece, promoted) => {
                let letter = role_letter(variant, piece.role).to_string();
                visible_pieces.push((index, WirePiece { letter, color: wire_color(piece.color), promoted }));
            }
            SquareView::Silhouette(color) => shrouded.push((index, wire_color(color))),
            SquareView::Empty | SquareView::Fog => {}
        }
    }
    visible_pieces.sort_by_key(|p| p.0);
    shrouded.sort_by_key(|s| s.0);
    let own_hand = variant.has_hands().then(|| {
        Role::HAND
            .into_iter()
            .filter(|&role| view.hand().count(role) > 0)
            .map(|role| (role_letter(variant, role).to_string(), u32::from(view.hand().count(role))))
            .collect::<BTreeMap<_, _>>()
    });
    let index = |sq: Square| index_of_square(variant, sq);
    let (kind, own_move, own_capture, landing) = match source {
        Source::Initial => (ObsKind::Initial, None, None, None),
        // Mistboard reports the square an own piece left other than the move's origin: after
        // castling, the rook's home square.
        Source::Own(m) => {
            let rook = (m.kind == MoveKind::Castle).then(|| Castling::rook_square(side, m.to.file() > m.from.file()));
            (ObsKind::OwnMove, Some(move_to_wire(variant, side, m)), rook, None)
        }
        Source::Opponent { captured, landing } => (ObsKind::OppMove, None, captured, landing),
    };
    WireObservation {
        ply: ply as u64,
        kind,
        own_move,
        visibility_mask: Some(mask_text(variant, view.seen() | view.silhouettes())),
        visible_pieces: Some(visible_pieces),
        own_capture_square: own_capture.map(index),
        opp_capture_landing_square: landing.map(index),
        shrouded: (!shrouded.is_empty()).then_some(shrouded),
        game_over: None,
        own_hand,
    }
}

/// The transcript entry of a drop that bounced (the extension's `drop_rejected`): no ply passed.
pub fn drop_rejected(ply: usize, drop: WireMove) -> WireObservation {
    WireObservation {
        ply: ply as u64,
        kind: ObsKind::DropRejected,
        own_move: Some(drop),
        visibility_mask: None,
        visible_pieces: None,
        own_capture_square: None,
        opp_capture_landing_square: None,
        shrouded: None,
        game_over: None,
        own_hand: None,
    }
}

/// Mistboard's `opp_capture_landing_square` in `view` (the receiver's, after the opponent
/// played `mv`): the move's wire destination when the receiver sees a piece of the mover there
/// (never after castling, whose wire destination is the rook's home square, left empty).
pub fn landing_square(view: &View, mv: Move) -> Option<Square> {
    let mover = view.side().opponent();
    let seen_there = view.seen().contains(mv.to) && view.by_color(mover).contains(mv.to);
    (mv.kind != MoveKind::Castle && seen_there).then_some(mv.to)
}
