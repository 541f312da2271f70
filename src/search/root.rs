//! The root decision: statistics of each candidate merged across worlds and trees, weighed by a
//! risk-aware blend of the mean and the worst case, with a one-ply safety check per world (a move
//! that lets the opponent take our king in some worlds is worth the worst there).

use super::alphabeta::WorldScores;
use super::tree::{move_key, Tree};
use crate::core::{Color, Move};
use crate::eval::{blind_drop_squares, to_value};
use crate::rules::Position;
use rayon::prelude::*;

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
    /// Weighted share of the other worlds in which the opponent could drop, unseen, a piece that
    /// attacks our king.
    pub blind_drop: f32,
    /// The blended score the choice maximizes.
    pub score: f32,
}

/// How much a world in which the opponent can drop, unseen, a piece that attacks our king counts
/// as a lost one.
const BLIND_DROP_LOSS: f32 = 0.7;

/// How dangerous a move is for our king, over many worlds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Danger {
    /// Weighted share of the worlds in which the opponent can capture our king right after it.
    pub king_loss: f32,
    /// Weighted share of the other worlds in which the opponent can drop, unseen, a piece that
    /// attacks our king.
    pub blind_drop: f32,
}

/// The danger of each move of `legal` over `worlds`, computed on the current rayon pool. Worlds where a move is not legal (a drop
/// that would bounce there) do not count for it.
pub fn dangers(legal: &[Move], worlds: &[(Position, f64)], side: Color) -> Vec<Danger> {
    let world_moves: Vec<Vec<u32>> = worlds
        .par_iter()
        .map(|(world, _)| {
            let mut keys: Vec<u32> = world.moves().iter().map(|&m| move_key(m)).collect();
            keys.sort_unstable();
            keys
        })
        .collect();
    // One move per task, its worlds in a fixed order: the sums do not depend on the threads.
    legal
        .par_iter()
        .map(|&m| {
            let key = move_key(m);
            let (mut lost, mut blind, mut total) = (0.0f64, 0.0f64, 0.0f64);
            for ((world, weight), keys) in worlds.iter().zip(&world_moves) {
                if keys.binary_search(&key).is_err() {
                    continue;
                }
                let mut after = world.clone();
                after.play_unchecked(m);
                total += weight;
                if let Some(king) = after.king(side) {
                    if after.is_attacked(king, side.opponent()) {
                        lost += weight;
                    } else if blind_drop_squares(&after, side).any() {
                        blind += weight;
                    }
                }
            }
            match total > 0.0 {
                true => Danger { king_loss: (lost / total) as f32, blind_drop: (blind / total) as f32 },
                false => Danger::default(),
            }
        })
        .collect()
}

/// The share of the worlds in which a move loses the king at once, counting a world where an
/// unseen drop can attack it as [`BLIND_DROP_LOSS`] of a loss.
pub fn loss_share(danger: &Danger) -> f32 {
    (danger.king_loss + BLIND_DROP_LOSS * danger.blind_drop).min(1.0)
}

/// The moves of `legal` (with their `danger`) whose loss share is within `slack` of the safest
/// move's: the moves a search that trusts the safety check keeps.
pub fn safest(legal: &[Move], danger: &[Danger], slack: f32) -> Vec<Move> {
    let least = danger.iter().map(loss_share).fold(f32::INFINITY, f32::min);
    legal.iter().zip(danger).filter(|(_, d)| loss_share(d) <= least + slack).map(|(&m, _)| m).collect()
}

/// How much of its prior a root move keeps given its danger: all of it when safe, a tenth when
/// the king is surely lost.
pub fn prior_factor(danger: &Danger) -> f32 {
    1.0 - 0.9 * loss_share(danger)
}

/// Merges root statistics of `trees` (each with the weight of the world it searched, or equal
/// weights for ISMCTS) into one candidate per move of `legal` (with its `danger`), and scores them
/// with the risk blend `alpha` (0 = mean only, 1 = worst case only).
pub fn candidates(legal: &[Move], danger: &[Danger], trees: &[(&Tree, f64)], alpha: f32) -> Vec<Candidate> {
    legal
        .iter()
        .zip(danger)
        .map(|(&mv, danger)| {
            let samples = trees.iter().filter_map(|(tree, w)| {
                let child = tree.root_children().find(|c| c.mv == mv && c.visits > 0)?;
                Some(Sample { value: child.q(), weight: *w, visits: child.visits as u64 })
            });
            candidate(mv, danger, samples, alpha)
        })
        .collect()
}

/// Merges per-world alpha-beta scores (each with its world's weight) into one candidate per
/// move of `legal`, as [`candidates`] does for trees; each world that scored a move counts as
/// one visit.
pub fn candidates_from_scores(
    legal: &[Move],
    danger: &[Danger],
    worlds: &[(&WorldScores, f64)],
    alpha: f32,
) -> Vec<Candidate> {
    (0..legal.len())
        .map(|i| {
            let samples = worlds.iter().filter_map(move |(world, w)| {
                let score = world.scores[i]?;
                Some(Sample { value: to_value(score), weight: *w, visits: 1 })
            });
            candidate(legal[i], &danger[i], samples, alpha)
        })
        .collect()
}

/// One world's or tree's estimate of a move.
struct Sample {
    /// Value in (-1, 1) for the side playing the move.
    value: f32,
    /// The weight of the world (or tree).
    weight: f64,
    /// The effort behind the estimate.
    visits: u64,
}

/// A move's weighted mean and its worst value over the worlds that valued it (`(value,
/// weight)` pairs); `None` when they weigh nothing. The worst is the lowest world however rarely
/// it was drawn: an opponent who knows where its pieces are makes that world the real one.
pub fn mean_and_worst(values: impl IntoIterator<Item = (f64, f64)>) -> Option<(f64, f64)> {
    let (mut sum, mut weight, mut worst) = (0.0f64, 0.0f64, f64::INFINITY);
    for (value, w) in values {
        sum += w * value;
        weight += w;
        worst = worst.min(value);
    }
    (weight > 0.0).then(|| (sum / weight, worst))
}

/// The risk rule of choosing under the fog: a move is worth its mean over the worlds blended
/// with its worst case, `risk` of the worst (0: the mean only, 1: the worst case only).
pub fn risk_blend(mean: f64, worst: f64, risk: f64) -> f64 {
    (1.0 - risk) * mean + risk * worst
}

/// The candidate for `mv` from its samples: weighted mean and worst case, both lowered by the
/// safety check's `danger`, blended by `alpha`.
fn candidate(mv: Move, danger: &Danger, samples: impl Iterator<Item = Sample>, alpha: f32) -> Candidate {
    let Danger { king_loss, blind_drop } = *danger;
    let mut visits = 0u64;
    let values = samples.map(|sample| {
        visits += sample.visits;
        (f64::from(sample.value), sample.weight)
    });
    let (mean, worst) = mean_and_worst(values).map_or((-1.0, -1.0), |(mean, worst)| (mean as f32, worst as f32));
    let worst = if king_loss > 0.0 { -1.0 } else { worst };
    let lost = (king_loss + BLIND_DROP_LOSS * blind_drop).min(1.0);
    let mean = mean * (1.0 - lost) - lost;
    let score = risk_blend(f64::from(mean), f64::from(worst), f64::from(alpha)) as f32;
    Candidate { mv, visits, mean, worst, king_loss, blind_drop, score }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_is_the_lowest_world_however_rare() {
        let values = [(-0.9, 1.0), (0.1, 2.0), (0.2, 40.0), (0.5, 21.0)];
        let (mean, worst) = mean_and_worst(values).unwrap();
        assert!((mean - (-0.9 + 0.2 + 8.0 + 10.5) / 64.0).abs() < 1e-12, "{mean}");
        assert_eq!(worst, -0.9);
        assert_eq!(mean_and_worst([(0.3, 0.0)]), None);
    }

    #[test]
    fn the_safest_moves_are_those_within_the_slack_of_the_least_danger() {
        let m = |uci: &str| Move::parse(uci, crate::core::Variant::DarkChess).unwrap();
        let legal = [m("e1e2"), m("a2a3"), m("h2h3")];
        let d = |king_loss, blind_drop| Danger { king_loss, blind_drop };
        let danger = [d(0.5, 0.0), d(0.02, 0.0), d(0.0, 0.2)];
        assert_eq!(safest(&legal, &danger, 0.05), vec![m("a2a3")], "a blind drop counts 0.7 of a loss");
        assert_eq!(safest(&legal, &danger, 0.15), vec![m("a2a3"), m("h2h3")]);
        let doomed = [d(1.0, 0.0), d(1.0, 0.0), d(1.0, 0.0)];
        assert_eq!(safest(&legal, &doomed, 0.0), legal.to_vec(), "when every move loses, all are kept");
    }
}
