//! The information-set search (`Search infoset`): one game tree over the worlds drawn from the
//! belief, grown while time lasts and solved by regret minimisation over both sides'
//! information sets (GT-CFR with PCFR+), so that our later moves are chosen per information set
//! (not per world) and the opponent's replies cannot depend on what it does not see.
//!
//! Rounds alternate one solver iteration with a batch of expansions whose size grows with the
//! tree (about as much time to each), until the clock, the node budget or `stop` ends the search.

pub mod keys;
pub mod solver;
pub mod subgame;

pub use subgame::{RootMove, Subgame, SUBGAME_NODE_BYTES};

use super::limits::SearchClock;
use crate::core::{Bitboard, Move};
use crate::eval::Evaluator;
use crate::rules::Position;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Fewest expansions between two solver iterations.
const MIN_EXPANSIONS: usize = 8;
/// Tree nodes per expansion between two solver iterations: a round's expansions grow with the
/// tree, as an iteration's cost does.
const NODES_PER_EXPANSION: usize = 400;
/// Most expansions chosen under one strategy before they are evaluated together.
const BATCH: usize = 32;
/// How often a running search reports its progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// What the search is given besides the worlds.
pub struct SearchInput<'a> {
    /// Our moves (legal from our view), in any order.
    pub moves: &'a [Move],
    /// Squares our drops bounced on this turn.
    pub bounced: Bitboard,
    /// The leaf evaluation.
    pub eval: &'a Evaluator,
    /// The seed of the search's random choices.
    pub seed: u64,
    /// Most nodes the tree may hold (from `Hash`).
    pub max_nodes: usize,
}

/// Grows and solves the subgame over `worlds` (positions with us to move, and their weights)
/// on `pool` until `clock` (its node budget counts tree nodes) or `stop` ends it; calls
/// `progress` about every [`PROGRESS_EVERY`].
pub fn search(
    worlds: &[(Position, f64)],
    input: &SearchInput,
    pool: &rayon::ThreadPool,
    clock: &SearchClock,
    stop: &AtomicBool,
    mut progress: impl FnMut(&Subgame),
) -> Subgame {
    let rng = Xoshiro256PlusPlus::seed_from_u64(input.seed);
    // Under a node budget the tree stops growing at the budget.
    let max_nodes = clock.budget().nodes.map_or(input.max_nodes, |n| input.max_nodes.min(n as usize));
    let mut game = Subgame::new(worlds, input.moves, input.bounced, input.eval, rng);
    let timed = clock.budget().soft.or(clock.budget().hard).is_some() || clock.budget().nodes.is_none();
    let mut reported = Instant::now();
    let out_of_time = || clock.time_is_up(stop);
    let deadline = clock.budget().hard.map(|h| clock.started() + h);
    pool.install(|| game.expand(worlds.len(), input.eval, max_nodes, (&out_of_time, deadline)));
    loop {
        pool.install(|| game.iterate());
        if clock.should_stop(game.tree().len() as u64, stop) {
            break;
        }
        let wanted = (game.tree().len() / NODES_PER_EXPANSION).max(MIN_EXPANSIONS);
        let mut done = 0;
        let mut stalled = false;
        while done < wanted && !clock.should_stop(game.tree().len() as u64, stop) {
            let n =
                pool.install(|| game.expand(BATCH.min(wanted - done), input.eval, max_nodes, (&out_of_time, deadline)));
            if n == 0 {
                stalled = true;
                break;
            }
            done += n;
        }
        // A tree that cannot grow under a node budget alone is as solved as it will be.
        if stalled && !timed {
            pool.install(|| game.iterate());
            break;
        }
        if reported.elapsed() >= PROGRESS_EVERY {
            reported = Instant::now();
            progress(&game);
        }
    }
    game
}

/// The move to play from the root policy: the most probable in the current strategy (ties to the
/// better value); `None` without a policy.
pub fn choose(policy: &[RootMove]) -> Option<RootMove> {
    policy.iter().copied().max_by(|a, b| a.current.total_cmp(&b.current).then(a.value.total_cmp(&b.value)))
}
