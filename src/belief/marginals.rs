//! What the belief says about single squares and about the enemy hand, summed over its worlds.

use super::worlds::WorldSet;
use crate::core::{Color, Piece, Role, Square};
use crate::rules::Hand;
use std::collections::HashMap;

/// What a square holds: nothing, or a piece.
pub type Content = Option<Piece>;

const CONTENTS: usize = 1 + 2 * Role::COUNT;

fn content_index(content: Content) -> usize {
    content.map_or(0, |p| 1 + p.color.index() * Role::COUNT + p.role.index())
}

/// The probability of every content of every square under the belief.
#[derive(Clone, Debug)]
pub struct SquareProbabilities {
    probs: Vec<[f32; CONTENTS]>,
}

impl SquareProbabilities {
    /// Sums the (normalized) weights of `set` per square and content.
    pub fn of(set: &WorldSet) -> SquareProbabilities {
        let mut probs = vec![[0f32; CONTENTS]; 64];
        let total = set.total_weight();
        for (world, weight) in set.iter() {
            let w = (weight / total) as f32;
            for row in probs.iter_mut() {
                row[0] += w;
            }
            for color in Color::ALL {
                for role in Role::ALL {
                    for sq in world.pieces(color, role) {
                        let row = &mut probs[sq.index()];
                        row[0] -= w;
                        row[content_index(Some(Piece::new(color, role)))] += w;
                    }
                }
            }
        }
        SquareProbabilities { probs }
    }

    /// The probability that `sq` holds `content`.
    pub fn probability(&self, sq: Square, content: Content) -> f64 {
        self.probs[sq.index()][content_index(content)].clamp(0.0, 1.0) as f64
    }

    /// The probability that `sq` is occupied.
    pub fn occupied(&self, sq: Square) -> f64 {
        1.0 - self.probability(sq, None)
    }
}

/// The distribution of `color`'s hand over the worlds of `set`, most likely first.
pub fn hands(set: &WorldSet, color: Color) -> Vec<(Hand, f64)> {
    let total = set.total_weight();
    let mut by_hand: HashMap<Hand, f64> = HashMap::new();
    for (world, weight) in set.iter() {
        *by_hand.entry(*world.hand(color)).or_default() += weight / total;
    }
    let mut out: Vec<(Hand, f64)> = by_hand.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}
