//! The opponent's hidden ply over a whole set of worlds: every world's consistent children,
//! merged, at most `cap` of them, computed in parallel chunks of parents when the set is large.
//!
//! While the children so far, projected over the parents still to come, fit the room, every
//! parent adds all its children. Past that, each parent may add new children in proportion to its
//! share of the weight still to come in its chunk (and at least an even share of the room left),
//! so that a full set keeps children of every parent; children that are already held only gain
//! weight.

use super::lineage::Lineage;
use super::step::{ChildSink, OpponentStep};
use super::worlds::{WorldBuilder, WorldSet, NO_NODE};
use crate::core::Move;
use crate::rules::Position;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::iter::StepBy;
use std::ops::Range;

/// Sets smaller than this are expanded on one thread.
const PARALLEL_MIN: usize = 4096;
/// Children per parent to make room for at first.
const CHILDREN_GUESS: usize = 8;

/// The children of one chunk of parents. A new child's lineage id is, for now, its index in
/// `origins`: the parent's lineage id and the move.
#[derive(Default)]
struct Chunk {
    builder: WorldBuilder,
    origins: Vec<(u32, Move)>,
    cut: bool,
    likelihood: Likelihood,
}

/// The chance of the observation under a uniform and under a greedy mover, summed over the
/// parents with their weights.
#[derive(Clone, Copy, Debug, Default)]
pub struct Likelihood {
    /// Under a uniform mover.
    pub uniform: f64,
    /// Under a greedy mover.
    pub greedy: f64,
}

/// The sink for the parent at hand (of weight `weight`, lineage `node`): at most `quota` new
/// children.
struct ChunkSink<'a> {
    chunk: &'a mut Chunk,
    quota: usize,
    weight: f64,
    node: u32,
}

impl ChildSink for ChunkSink<'_> {
    fn quota(&self, n: usize) -> usize {
        n.min(self.quota)
    }
    fn take(&mut self, key: u64, child: impl FnOnce() -> Position, mv: Move, p: f64) {
        let (origins, node) = (&mut self.chunk.origins, self.node);
        self.chunk.builder.add_with(key, child, self.weight * p, || {
            origins.push((node, mv));
            origins.len() as u32 - 1
        });
    }
}

/// Expands the parents at `indices`, adding at most about `cap` new children.
fn expand_chunk(
    step: &OpponentStep,
    parents: &WorldSet,
    indices: StepBy<Range<usize>>,
    cap: usize,
    seed: u64,
) -> Chunk {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let count = indices.len();
    // Room for the children up front: growing a large set copies it and rebuilds its index.
    let room = cap.min(count * CHILDREN_GUESS);
    let mut chunk = Chunk { builder: WorldBuilder::with_capacity(room), ..Chunk::default() };
    let mut remaining: f64 = indices.clone().map(|i| parents.weights()[i]).sum();
    for (done, i) in indices.enumerate() {
        let weight = parents.weights()[i];
        let room = cap.saturating_sub(chunk.builder.len());
        // No quota while the children so far, projected over the parents left, fit the room;
        // else a share of the room in proportion to weight, but never less than an even share.
        let projected = chunk.builder.len() as f64 / done.max(1) as f64 * (count - done) as f64;
        let even = room / (count - done);
        let weighted = (room as f64 * weight / remaining.max(f64::MIN_POSITIVE)).ceil() as usize;
        let quota = if projected <= room as f64 { usize::MAX } else { weighted.max(even).max(1) };
        remaining -= weight;
        let mut sink = ChunkSink { chunk: &mut chunk, quota, weight, node: parents.nodes()[i] };
        let looked = step.children(&parents.worlds()[i], parents.keys()[i], &mut sink, &mut rng);
        chunk.cut |= looked.left_out;
        chunk.likelihood.uniform += weight * looked.uniform;
        chunk.likelihood.greedy += weight * looked.greedy;
    }
    chunk
}

/// The parents chunk `t` of `threads` expands: every `threads`-th one. Sets come heaviest first,
/// and each chunk has the same room, which should go to parents of every weight alike (chunks of
/// consecutive parents gave the lightest half as much room as the heaviest, whose children the
/// next cut keeps; truth_in_support of dark-chess r-r over 12 games fell from 0.9447 on one
/// thread to 0.9317 on two, and is 0.9435 so).
fn chunk_parents(parents: usize, threads: usize, t: usize) -> StepBy<Range<usize>> {
    (t..parents).step_by(threads)
}

/// What [`expand`] made: the children, whether some were left out, and how likely the
/// observation was under a uniform and a greedy mover.
pub struct Expanded {
    /// The children.
    pub set: WorldSet,
    /// True if some consistent children were left out.
    pub cut: bool,
    /// The observation's chance under each mover.
    pub likelihood: Likelihood,
}

/// The consistent children of every world of `parents` (weighted by parent weight times move
/// chance), at most about `cap` distinct ones. Lineage ids are extended in `lineage` if one is
/// kept.
pub fn expand(
    step: &OpponentStep,
    parents: &WorldSet,
    cap: usize,
    lineage: Option<&mut Lineage>,
    rng: &mut impl Rng,
) -> Expanded {
    let threads = if parents.len() >= PARALLEL_MIN { rayon::current_num_threads().clamp(1, 8) } else { 1 };
    let seeds: Vec<u64> = (0..threads).map(|_| rng.gen()).collect();
    let chunk_cap = cap.div_ceil(threads);
    let chunks: Vec<Chunk> = seeds
        .into_par_iter()
        .enumerate()
        .map(|(t, seed)| expand_chunk(step, parents, chunk_parents(parents.len(), threads, t), chunk_cap, seed))
        .collect();
    let (mut cut, mut likelihood) = (false, Likelihood::default());
    let (mut origins, mut offsets, mut builders) = (Vec::new(), Vec::new(), Vec::new());
    for chunk in chunks {
        cut |= chunk.cut;
        likelihood.uniform += chunk.likelihood.uniform;
        likelihood.greedy += chunk.likelihood.greedy;
        offsets.push(origins.len() as u32);
        origins.extend(chunk.origins);
        builders.push(chunk.builder);
    }
    let mut set = WorldBuilder::merge(builders, &offsets);
    match lineage {
        Some(l) => set.map_nodes(|i| {
            let (node, mv) = origins[i as usize];
            l.step(node, mv)
        }),
        None => set.map_nodes(|_| NO_NODE),
    }
    Expanded { set, cut, likelihood }
}

#[cfg(test)]
mod tests {
    use super::chunk_parents;

    #[test]
    fn every_chunk_gets_parents_of_every_weight_alike() {
        // A set heaviest first, its weights falling off steeply.
        let weights: Vec<f64> = (0..10_000).map(|i| 0.999f64.powi(i)).collect();
        let total: f64 = weights.iter().sum();
        for threads in 2..=8 {
            let mut seen = vec![0; weights.len()];
            for t in 0..threads {
                let chunk: Vec<usize> = chunk_parents(weights.len(), threads, t).collect();
                let share = chunk.iter().map(|&i| weights[i]).sum::<f64>() / total;
                assert!(
                    (share * threads as f64 - 1.0).abs() < 0.01,
                    "chunk {t} of {threads} holds {share:.3} of the weight"
                );
                chunk.iter().for_each(|&i| seen[i] += 1);
            }
            assert!(seen.iter().all(|&n| n == 1), "with {threads} chunks some parent is expanded other than once");
        }
    }
}
