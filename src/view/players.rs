//! The simple built-in players that later work measures against: `random` and `greedy`.

use crate::core::{role_value, Move, MoveKind, Role};
use crate::view::InfoState;
use crate::view::SquareView;
use rand::seq::SliceRandom;
use rand::Rng;
use std::str::FromStr;

/// A simple built-in way of choosing moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SimplePlayer {
    /// Uniform over its legal moves, drops included.
    Random,
    /// Captures a king it sees; else the most valuable piece it sees and can capture; else random.
    Greedy,
}

impl SimplePlayer {
    /// The option / command-line name.
    pub fn name(self) -> &'static str {
        match self {
            SimplePlayer::Random => "random",
            SimplePlayer::Greedy => "greedy",
        }
    }

    /// Chooses a move for the player whose information is `info`, or `None` without legal moves.
    pub fn choose(self, info: &InfoState, rng: &mut impl Rng) -> Option<Move> {
        self.choose_from(info, &info.legal_moves(), rng)
    }

    /// Chooses among `moves` (a subset of the legal moves, e.g. UCI `searchmoves`) by the same rule.
    pub fn choose_from(self, info: &InfoState, moves: &[Move], rng: &mut impl Rng) -> Option<Move> {
        if self == SimplePlayer::Greedy {
            let best_capture =
                moves.iter().filter_map(|&m| capture_value(info, m).map(|v| (v, m))).max_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((_, m)) = best_capture {
                let ties: Vec<Move> =
                    moves.iter().copied().filter(|&o| capture_value(info, o) == capture_value(info, m)).collect();
                return ties.choose(rng).copied();
            }
        }
        moves.choose(rng).copied()
    }
}

/// The value of the piece `m` captures, if the player sees one there.
fn capture_value(info: &InfoState, m: Move) -> Option<f64> {
    if m.kind == MoveKind::EnPassant {
        return Some(role_value(Role::Pawn));
    }
    if m.is_drop() {
        return None;
    }
    match info.view().square(m.to) {
        SquareView::Piece(p, _) if p.color != info.side() => Some(role_value(p.role)),
        _ => None,
    }
}

/// A player name that is not one of the simple players.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown player '{0}'")]
pub struct UnknownPlayer(pub String);

impl FromStr for SimplePlayer {
    type Err = UnknownPlayer;
    fn from_str(s: &str) -> Result<Self, UnknownPlayer> {
        match s {
            "random" => Ok(SimplePlayer::Random),
            "greedy" => Ok(SimplePlayer::Greedy),
            _ => Err(UnknownPlayer(s.to_string())),
        }
    }
}
