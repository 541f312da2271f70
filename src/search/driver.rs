//! Runs the iterations: a fixed set of work units (one tree per world for PIMC, a fixed number
//! of root-parallel trees for ISMCTS), each with its own random stream derived from the seed,
//! advanced in batches on a rayon pool until the budget or `stop` ends the search.
//!
//! Units and their node quotas do not depend on the thread count, so `go nodes N` with a fixed
//! seed gives the same result on any number of threads.

use super::tree::{Tree, NODE_BYTES};
use crate::belief::world_key;
use crate::engine::limits::SearchClock;
use crate::eval::Evaluator;
use crate::rules::Position;
use rand::distributions::{Distribution, WeightedIndex};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

/// How knowledge is shared across worlds (the `Search` option).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Mode {
    /// Perfect-information trees, one per sampled world, merged at the root.
    Pimc,
    /// Single-observer information-set MCTS: trees over the engine's information sets, a new
    /// world each iteration.
    Ismcts,
    /// Alpha-beta on each sampled world, every root move scored, merged at the root.
    #[default]
    AlphaBeta,
}

impl Mode {
    /// Every mode.
    pub const ALL: [Mode; 3] = [Mode::Pimc, Mode::Ismcts, Mode::AlphaBeta];

    /// The option value: `pimc`, `ismcts` or `alphabeta`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Pimc => "pimc",
            Mode::Ismcts => "ismcts",
            Mode::AlphaBeta => "alphabeta",
        }
    }
}

/// Iterations a unit runs in one round (it looks at the clock before each).
const BATCH: u64 = 32;

/// One independent piece of search work.
pub struct Unit {
    /// Its tree.
    pub tree: Tree,
    /// Indices into the world list it draws from (one world for PIMC).
    worlds: Vec<usize>,
    sampler: Option<WeightedIndex<f64>>,
    rng: Xoshiro256PlusPlus,
    /// Iterations it may still run under a node budget.
    quota: Option<u64>,
    /// Iterations run.
    pub iterations: u64,
    full: bool,
}

impl Unit {
    /// Runs up to `n` iterations, fewer if its quota or the tree runs out or the clock says stop.
    fn run(
        &mut self,
        worlds: &[(Position, f64)],
        n: u64,
        clock: &SearchClock,
        stop: &AtomicBool,
        eval: &Evaluator,
    ) -> u64 {
        let n = self.quota.map_or(n, |q| q.min(n));
        let mut done = 0;
        while done < n && !self.full && !clock.time_is_up(stop) {
            let idx = match &self.sampler {
                Some(s) => self.worlds[s.sample(&mut self.rng)],
                None => self.worlds[0],
            };
            if !self.tree.iterate(&worlds[idx].0, eval) {
                self.full = true;
                break;
            }
            done += 1;
        }
        self.iterations += done;
        if let Some(q) = &mut self.quota {
            *q -= done;
        }
        done
    }

    fn finished(&self) -> bool {
        self.full || self.quota == Some(0)
    }
}

/// Builds the units: one per world for PIMC, `trees` for ISMCTS, sharing `memory_bytes` and a
/// node budget `nodes` split in a fixed way. A PIMC unit whose world has a tree in `reuse`
/// (keyed by [`world_key`]) starts from it.
pub fn units(
    mode: Mode,
    worlds: &[(Position, f64)],
    trees: usize,
    memory_bytes: usize,
    nodes: Option<u64>,
    seed: u64,
    reuse: &mut HashMap<u64, Tree>,
) -> Vec<Unit> {
    let count = match mode {
        Mode::Ismcts => trees.max(1),
        Mode::Pimc | Mode::AlphaBeta => worlds.len(),
    };
    let per_unit_nodes = (memory_bytes / NODE_BYTES / count.max(1)).max(64);
    (0..count)
        .map(|i| {
            let (members, sampler) = match mode {
                Mode::Pimc | Mode::AlphaBeta => (vec![i], None),
                Mode::Ismcts => {
                    let weights: Vec<f64> = worlds.iter().map(|w| w.1.max(1e-12)).collect();
                    ((0..worlds.len()).collect(), WeightedIndex::new(weights).ok())
                }
            };
            let quota = nodes.map(|n| n / count as u64 + u64::from((i as u64) < n % count as u64));
            let reused = match mode {
                Mode::Ismcts => None,
                Mode::Pimc | Mode::AlphaBeta => reuse.remove(&world_key(&worlds[i].0)),
            };
            let tree = match reused {
                Some(mut tree) => {
                    tree.set_capacity(per_unit_nodes);
                    tree
                }
                None => Tree::new(per_unit_nodes, mode == Mode::Ismcts),
            };
            Unit {
                tree,
                worlds: members,
                sampler,
                rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
                quota,
                iterations: 0,
                full: false,
            }
        })
        .collect()
}

/// Advances all units until the clock or `stop` ends the search, calling `progress` with the
/// iterations so far after every round. Returns the total iterations.
pub fn run(
    units: &mut [Unit],
    worlds: &[(Position, f64)],
    pool: &rayon::ThreadPool,
    clock: &SearchClock,
    stop: &AtomicBool,
    eval: &Evaluator,
    mut progress: impl FnMut(u64, &[Unit]),
) -> u64 {
    let mut total = 0;
    loop {
        if units.iter().all(Unit::finished) || clock.should_stop(total, stop) {
            break;
        }
        let round: u64 = pool.install(|| units.par_iter_mut().map(|u| u.run(worlds, BATCH, clock, stop, eval)).sum());
        total += round;
        progress(total, units);
        if round == 0 {
            break;
        }
    }
    total
}
