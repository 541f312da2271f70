//! The quiescence search that values the search's leaves (the alpha-beta's and the trees'): from a leaf it plays out the captures,
//! promotions and king captures (and in Crazyhouse, at the first ply, the drops that attack the
//! enemy king), so a leaf where a piece hangs is valued after the exchange, not before. Losing
//! captures are pruned by static exchange evaluation; a side whose king is attacked may not stand
//! pat and answers with every move, for a few plies.

use crate::core::{Move, Role};
use crate::eval::see::{captured_value, see};
use crate::eval::{drop_squares_attacking, Evaluator, WIN};
use crate::rules::{MoveList, MoveSink, PlyVerdict, Position};

/// Deepest quiescence ply.
const MAX_PLY: u32 = 6;
/// Plies at which a side whose king is attacked answers with every move (beyond them it stands
/// pat as if it were not).
const EVASION_PLIES: u32 = 2;
/// Margin of delta pruning, in pawns: a capture that cannot lift the score above alpha even
/// winning this much more is not searched.
const DELTA_MARGIN: f32 = 2.0;

/// Most positions one quiescence search visits: past it every position stands pat, so that one
/// leaf where both kings are under fire cannot take the time of a thousand.
const MAX_NODES: u32 = 256;

/// The quiescence value of `pos` for the side to move, in pawns.
pub fn quiesce(pos: &Position, eval: &Evaluator) -> f32 {
    quiesce_window(pos, -WIN - 1.0, WIN + 1.0, eval).0
}

/// The quiescence value of `pos` within the window `alpha..beta` (fail-soft: a value outside it
/// is a bound), and the positions it visited.
pub fn quiesce_window(pos: &Position, alpha: f32, beta: f32, eval: &Evaluator) -> (f32, u32) {
    let mut nodes = 0;
    let value = search(pos, alpha, beta, 0, &mut nodes, eval);
    (value, nodes)
}

fn search(pos: &Position, mut alpha: f32, beta: f32, ply: u32, nodes: &mut u32, eval: &Evaluator) -> f32 {
    *nodes += 1;
    let us = pos.turn();
    let them = us.opponent();
    let (Some(our_king), Some(their_king)) = (pos.king(us), pos.king(them)) else {
        return if pos.king(us).is_some() { WIN } else { -WIN };
    };
    if pos.is_attacked(their_king, us) {
        return WIN - ply as f32;
    }
    let stand = eval.score(pos);
    let threatened = pos.is_attacked(our_king, them);
    let exhausted = *nodes >= MAX_NODES;
    let evading = threatened && ply < EVASION_PLIES && !exhausted;
    if !evading {
        if stand >= beta || ply >= MAX_PLY || exhausted {
            return stand;
        }
        alpha = alpha.max(stand);
    }
    let moves = if evading { pos.moves() } else { tactical_moves(pos, ply) };
    let mut ordered: Vec<(f32, Move)> = moves
        .iter()
        .filter_map(|&m| {
            if evading {
                return Some((order_key(pos, m), m));
            }
            let gain = see(pos, m);
            let checking_drop = m.is_drop();
            // A losing capture is skipped, and so is one that cannot reach alpha.
            if !checking_drop && (gain < 0.0 || stand + gain + DELTA_MARGIN < alpha) {
                return None;
            }
            Some((gain, m))
        })
        .collect();
    ordered.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut best = if evading { -WIN + ply as f32 } else { stand };
    for (_, m) in ordered {
        let mut child = pos.clone();
        child.play_unchecked(m);
        let value = match child.ply_verdict(us, m.to) {
            PlyVerdict::KingCaptured => WIN - ply as f32,
            PlyVerdict::TryCompleted => -WIN + ply as f32,
            PlyVerdict::TryArmed | PlyVerdict::Neither => -search(&child, -beta, -alpha, ply + 1, nodes, eval),
        };
        if value > best {
            best = value;
            if value > alpha {
                alpha = value;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}

/// Captures and promotions, plus, at the first ply of a game with hands, the drops that attack
/// the enemy king.
fn tactical_moves(pos: &Position, ply: u32) -> MoveList {
    let mut moves = pos.tactical_moves();
    if ply == 0 && pos.variant().has_hands() {
        push_checking_drops(pos, &mut moves);
    }
    moves
}

/// Adds the drops from the side to move's hand onto empty squares from which the dropped piece
/// attacks the enemy king.
fn push_checking_drops(pos: &Position, moves: &mut MoveList) {
    let us = pos.turn();
    let Some(king) = pos.king(us.opponent()) else { return };
    for role in pos.hand(us).roles() {
        moves.push_drops(role, drop_squares_attacking(pos, role, king, us));
    }
}

/// The order in which a side answers an attack on its king: king moves and captures of the
/// attacker first, by what they take.
fn order_key(pos: &Position, m: Move) -> f32 {
    let king_move = !m.is_drop() && pos.role_at(m.from) == Some(Role::King);
    captured_value(pos, m) + if king_move { 0.5 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;
    use crate::eval::score;

    fn q(variant: Variant, fen: &str) -> (f32, f32) {
        let pos = Position::from_fen(variant, fen).unwrap();
        (quiesce(&pos, &Evaluator::Hand), score(&pos))
    }

    #[test]
    fn a_hanging_piece_is_counted_as_taken() {
        // White to move can take the undefended black queen.
        let (quiet, stat) = q(Variant::DarkChess, "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1");
        assert!(quiet > stat + 6.0, "qsearch {quiet} static {stat}");
        // A queen that would take a defended pawn stays put: the value is no worse than standing pat.
        let (quiet, stat) = q(Variant::DarkChess, "4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1");
        assert_eq!(quiet, stat);
    }

    #[test]
    fn a_king_in_reach_wins_and_an_attacked_king_must_answer() {
        let (quiet, _) = q(Variant::DarkChess, "4k3/8/8/8/8/8/4Q3/4K3 w - - 0 1");
        assert!(quiet >= WIN - 1.0);
        // Black to move, its king attacked by the queen: it steps away rather than standing pat
        // into the capture, so the value is far from a loss.
        let (quiet, _) = q(Variant::DarkChess, "4k3/8/8/8/8/8/4Q3/4K3 b - - 0 1");
        assert!(quiet > -50.0, "{quiet}");
    }

    #[test]
    fn a_drop_that_attacks_the_king_and_forks_is_seen() {
        // White drops a knight on c7: it attacks the king on e8 and the rook on a8.
        let fen = "r3k3/8/8/8/8/8/8/4K3[N] w - - 0 1";
        let (quiet, stat) = q(Variant::DarkCrazyhouse, fen);
        assert!(quiet > stat + 3.0, "qsearch {quiet} static {stat}");
    }
}
