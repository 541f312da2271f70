//! The root decision: statistics of each candidate merged across worlds and trees, weighed by a
//! risk-aware blend of the mean and the worst case, with a one-ply safety check per world (a move
//! that lets the opponent take our king in some worlds is worth the worst there).

use super::tree::Tree;
use crate::core::{Color, Move};
use crate::rules::Position;

/// What the search learned about one candidate move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// The move.
    pub mv: Move,
    /// Iterations spent on it, over all trees.
    pub visits: u64,
    /// Weighted mean value over the worlds or trees that tried it.
    pub mean: f32,
    /// The worst per-world value (PIMC) or the mean (ISMCTS), lowered to -1 if the king falls
    /// at once in some world.
    pub worst: f32,
    /// Weighted share of the worlds in which the opponent could capture our king right after it.
    pub king_loss: f32,
    /// The blended score the choice maximizes.
    pub score: f32,
}

/// The share (by weight) of `worlds` in which the opponent can capture `side`'s king right after
/// `m`. Worlds where `m` is not legal (a drop that would bounce there) do not count.
pub fn king_loss_share(worlds: &[(Position, f64)], m: Move, side: Color) -> f32 {
    let mut lost = 0.0;
    let mut total = 0.0;
    for (world, weight) in worlds {
        if !world.moves().contains(&m) {
            continue;
        }
        total += weight;
        let mut after = world.clone();
        after.play_unchecked(m);
        if let Some(king) = after.king(side) {
            if after.is_attacked(king, side.opponent()) {
                lost += weight;
            }
        }
    }
    if total > 0.0 {
        (lost / total) as f32
    } else {
        0.0
    }
}

/// Merges root statistics of `trees` (each with the weight of the world it searched, or equal
/// weights for ISMCTS) into one candidate per move of `legal`, and scores them with the risk
/// blend `alpha` (0 = mean only, 1 = worst case only).
pub fn candidates(
    legal: &[Move],
    trees: &[(&Tree, f64)],
    worlds: &[(Position, f64)],
    side: Color,
    alpha: f32,
) -> Vec<Candidate> {
    legal
        .iter()
        .map(|&mv| {
            let mut visits = 0u64;
            let (mut sum, mut weight, mut worst) = (0.0f64, 0.0f64, f32::INFINITY);
            for (tree, w) in trees {
                if let Some(child) = tree.root_children().find(|c| c.mv == mv && c.visits > 0) {
                    visits += child.visits as u64;
                    sum += w * child.q() as f64;
                    weight += w;
                    worst = worst.min(child.q());
                }
            }
            let mean = if weight > 0.0 { (sum / weight) as f32 } else { -1.0 };
            let king_loss = king_loss_share(worlds, mv, side);
            let mut worst = if worst.is_finite() { worst } else { mean };
            if king_loss > 0.0 {
                worst = -1.0;
            }
            let mean = mean * (1.0 - king_loss) - king_loss;
            let score = (1.0 - alpha) * mean + alpha * worst;
            Candidate { mv, visits, mean, worst, king_loss, score }
        })
        .collect()
}

/// The candidate to play: the best score among moves searched at least a twentieth as much as
/// the most searched one (so a barely-tried move cannot win on noise).
pub fn choose(candidates: &[Candidate]) -> Option<Candidate> {
    let most = candidates.iter().map(|c| c.visits).max()?;
    candidates
        .iter()
        .filter(|c| c.visits * 20 >= most)
        .copied()
        .max_by(|a, b| a.score.total_cmp(&b.score).then(a.visits.cmp(&b.visits)))
}
