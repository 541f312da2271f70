//! Runs the iterations: a fixed set of work units (one tree per world for PIMC, a fixed number
//! of root-parallel trees for ISMCTS), each with its own random stream derived from the seed,
//! taken in batches from a shared queue by the pool's threads until the budget or `stop` ends
//! the search.
//!
//! Units and their node quotas do not depend on the thread count, so `go nodes N` with a fixed
//! seed gives the same result on any number of threads.

use super::limits::SearchClock;
use super::tree::{Tree, NODE_BYTES};
use crate::core::hash::GOLDEN_GAMMA;
use crate::eval::Evaluator;
use crate::rules::Position;
use rand::distributions::{Distribution, WeightedIndex};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Mutex;
use std::time::Duration;

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
    /// One game tree over the sampled worlds, solved over both sides' information sets
    /// (GT-CFR).
    InfoSet,
}

impl Mode {
    /// Every mode.
    pub const ALL: [Mode; 4] = [Mode::Pimc, Mode::Ismcts, Mode::AlphaBeta, Mode::InfoSet];

    /// The option value: `pimc`, `ismcts`, `alphabeta` or `infoset`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Pimc => "pimc",
            Mode::Ismcts => "ismcts",
            Mode::AlphaBeta => "alphabeta",
            Mode::InfoSet => "infoset",
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
/// (keyed by [`Position::repetition_key`]) starts from it.
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
        Mode::Pimc | Mode::AlphaBeta | Mode::InfoSet => worlds.len(),
    };
    let per_unit_nodes = (memory_bytes / NODE_BYTES / count.max(1)).max(64);
    (0..count)
        .map(|i| {
            let (members, sampler) = match mode {
                Mode::Pimc | Mode::AlphaBeta | Mode::InfoSet => (vec![i], None),
                Mode::Ismcts => {
                    let weights: Vec<f64> = worlds.iter().map(|w| w.1.max(1e-12)).collect();
                    ((0..worlds.len()).collect(), WeightedIndex::new(weights).ok())
                }
            };
            let quota = nodes.map(|n| n / count as u64 + u64::from((i as u64) < n % count as u64));
            let reused = match mode {
                Mode::Ismcts => None,
                Mode::Pimc | Mode::AlphaBeta | Mode::InfoSet => reuse.remove(&worlds[i].0.repetition_key()),
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
                rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ (i as u64).wrapping_mul(GOLDEN_GAMMA)),
                quota,
                iterations: 0,
                full: false,
            }
        })
        .collect()
}

/// How often a running search reports its progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// Advances the units until all are finished or the clock or `stop` ends the search, calling
/// `progress` with the iterations so far about every `PROGRESS_EVERY` and returning the total.
///
/// The units wait in a shared queue: each of the pool's threads takes the next unit, runs
/// `BATCH` iterations of it and puts it back, so no thread waits for another (a unit runs on one
/// thread at a time, and its iterations follow only its own random stream and quota).
pub fn run(
    units: &mut [Unit],
    worlds: &[(Position, f64)],
    pool: &rayon::ThreadPool,
    clock: &SearchClock,
    stop: &AtomicBool,
    eval: &Evaluator,
    mut progress: impl FnMut(u64, &[&Unit]),
) -> u64 {
    let queue: Mutex<VecDeque<usize>> = Mutex::new((0..units.len()).filter(|&i| !units[i].finished()).collect());
    let total = AtomicU64::new(0);
    let cells: Vec<Mutex<&mut Unit>> = units.iter_mut().map(Mutex::new).collect();
    // Each thread holds at most one unit, so the queue is empty only when every unfinished unit
    // is held by some thread: a thread that finds it empty has nothing left to do.
    let worker = || loop {
        if clock.should_stop(total.load(Ordering::Relaxed), stop) {
            return;
        }
        let Some(i) = lock(&queue).pop_front() else { return };
        let (done, finished) = {
            let mut unit = lock(&cells[i]);
            let done = unit.run(worlds, BATCH, clock, stop, eval);
            (done, unit.finished() || done == 0)
        };
        total.fetch_add(done, Ordering::Relaxed);
        if !finished {
            lock(&queue).push_back(i);
        }
    };
    std::thread::scope(|scope| {
        let (done_tx, done_rx) = channel::<()>();
        scope.spawn(|| {
            pool.scope(|s| (0..pool.current_num_threads()).for_each(|_| s.spawn(|_| worker())));
            drop(done_tx);
        });
        while let Err(RecvTimeoutError::Timeout) = done_rx.recv_timeout(PROGRESS_EVERY) {
            let guards: Vec<_> = cells.iter().map(lock).collect();
            let now: Vec<&Unit> = guards.iter().map(|g| &***g).collect();
            progress(total.load(Ordering::Relaxed), &now);
        }
    });
    total.into_inner()
}

/// Locks `m`, whether or not a thread panicked while holding it.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;
    use crate::search::Budget;

    fn worlds(n: usize) -> Vec<(Position, f64)> {
        (0..n).map(|_| (Position::start(Variant::DarkChess), 1.0)).collect()
    }

    /// Iterations per unit after a 60 ms search on `threads` threads.
    fn timed_counts(threads: usize) -> Vec<u64> {
        let worlds = worlds(5);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut units = units(Mode::Pimc, &worlds, 1, 16 << 20, None, 1, &mut HashMap::new());
        let clock = SearchClock::start(Budget { soft: Some(Duration::from_millis(60)), ..Budget::UNBOUNDED });
        let mut reports = 0;
        let total =
            run(&mut units, &worlds, &pool, &clock, &AtomicBool::new(false), &Evaluator::Hand, |_, _| reports += 1);
        assert_eq!(reports, 0, "a 60 ms search ends before its first progress report");
        let counts: Vec<u64> = units.iter().map(|u| u.iterations).collect();
        assert_eq!(total, counts.iter().sum::<u64>());
        counts
    }

    #[test]
    fn units_taken_from_the_queue_all_advance_until_the_time_is_up() {
        // One thread takes the units in turn, a batch each: only the batch the clock cut short
        // falls behind.
        let counts = timed_counts(1);
        let (least, most) = (*counts.iter().min().unwrap(), *counts.iter().max().unwrap());
        assert!(least > 0 && most - least <= BATCH, "{counts:?}");
        // Several threads: no unit waits for another's batch, every one advances (how far
        // depends on how the threads were scheduled).
        assert!(timed_counts(3).iter().all(|&n| n > 0));
    }

    #[test]
    fn a_node_budget_ends_with_every_unit_at_its_quota_on_any_pool() {
        let worlds = worlds(3);
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut units = units(Mode::Pimc, &worlds, 1, 16 << 20, Some(1000), 1, &mut HashMap::new());
            let clock = SearchClock::start(Budget { nodes: Some(1000), ..Budget::UNBOUNDED });
            let total = run(&mut units, &worlds, &pool, &clock, &AtomicBool::new(false), &Evaluator::Hand, |_, _| ());
            assert_eq!(total, 1000);
            let counts: Vec<u64> = units.iter().map(|u| u.iterations).collect();
            assert_eq!(counts, [334, 333, 333], "{threads} threads");
        }
    }
}
