//! Observation keys: a rolling hash of what one side has observed since the subgame's root, so
//! that two histories a side cannot tell apart get one key. A ply adds the side's view after it
//! (squares, pieces, silhouettes, its own hand, the en-passant chance), the own piece it lost and
//! whether its Try was armed; the side's own action is added too (it knows what it chose), and a
//! bounce adds the square to the dropper's key alone (the opponent is told nothing).

use crate::core::hash::mix64;
use crate::core::{Color, Move, Piece, Square};
use crate::rules::Position;
use crate::view::View;
use std::hash::{Hash, Hasher};

/// A hasher that folds every word it is given through [`mix64`].
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = mix64(self.0 ^ n);
    }
}

/// Tags that keep the kinds of entries apart.
const VIEW_TAG: u64 = 0x5649_4557;
const ACTION_TAG: u64 = 0x4143_5449;
const BOUNCE_TAG: u64 = 0x424F_554E;

/// The key every history of the side to move at the root starts from: its own information at the
/// root is the same in every world drawn from its belief.
pub const ROOT_KEY: u64 = 0x726F_6F74;

/// What `side` observes of a ply that ended in `after`: its view, the piece of its own that was
/// captured, and its own Try armed.
pub fn observation(after: &Position, side: Color, captured: Option<(Square, Piece)>, try_armed: bool) -> u64 {
    let mut h = MixHasher(VIEW_TAG);
    View::of(after, side).hash(&mut h);
    let lost = captured.filter(|(_, p)| p.color == side);
    lost.hash(&mut h);
    let mover = after.turn().opponent();
    (try_armed && mover == side).hash(&mut h);
    h.finish()
}

/// The key of `side` that sees its view of `pos` and knows nothing of how play came there: the
/// opponent's root key in each world (it knows its own pieces, so the worlds it can tell apart
/// split its information).
pub fn view_key(pos: &Position, side: Color) -> u64 {
    observation(pos, side, None, false)
}

/// `key` extended by an action of its owner.
pub fn with_action(key: u64, mv: Move) -> u64 {
    let mut h = MixHasher(key ^ ACTION_TAG);
    mv.hash(&mut h);
    h.finish()
}

/// `key` extended by an observation.
pub fn with_observation(key: u64, observation: u64) -> u64 {
    mix64(key ^ mix64(observation))
}

/// The dropper's `key` extended by a drop that bounced on `square`.
pub fn with_bounce(key: u64, square: Square) -> u64 {
    mix64(key ^ BOUNCE_TAG ^ (u64::from(square.index() as u8) << 32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    fn pos(fen: &str) -> Position {
        Position::from_fen(Variant::DarkChess, fen).unwrap()
    }

    #[test]
    fn a_piece_in_the_fog_does_not_change_the_observation_and_a_seen_one_does() {
        // A black knight on h5 is out of White's sight; on e5 it stands on the square White's
        // e4 pawn sees ahead of it.
        let base = pos("4k3/8/8/8/4P3/8/8/4K3 b - - 0 1");
        let hidden = pos("4k3/8/8/7n/4P3/8/8/4K3 b - - 0 1");
        let seen = pos("4k3/8/8/4n3/4P3/8/8/4K3 b - - 0 1");
        let white = |p: &Position| observation(p, Color::White, None, false);
        assert_eq!(white(&base), white(&hidden));
        assert_ne!(white(&base), white(&seen));
        assert_ne!(observation(&base, Color::Black, None, false), observation(&hidden, Color::Black, None, false));
    }

    #[test]
    fn an_action_and_a_bounce_change_the_key_and_equal_inputs_give_equal_keys() {
        let m = |uci: &str| Move::parse(uci, Variant::DarkChess).unwrap();
        assert_eq!(with_action(ROOT_KEY, m("e2e4")), with_action(ROOT_KEY, m("e2e4")));
        assert_ne!(with_action(ROOT_KEY, m("e2e4")), with_action(ROOT_KEY, m("d2d4")));
        let e5 = Square::parse("e5").unwrap();
        let d5 = Square::parse("d5").unwrap();
        assert_ne!(with_bounce(ROOT_KEY, e5), with_bounce(ROOT_KEY, d5));
        assert_ne!(with_observation(ROOT_KEY, 1), with_observation(ROOT_KEY, 2));
    }
}
