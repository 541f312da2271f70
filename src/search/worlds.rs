//! The worlds a fog player searches: a belief kept up to date from the engine's information
//! state, with its limits sized from the move's time, and worlds drawn from it.
//!
//! Murk's own search and `murk uci-fog` both draw their positions from here.

use super::limits::Budget;
use crate::belief::{Belief, BeliefConfig};
use crate::rules::Position;
use crate::view::InfoState;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::HashMap;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Instant;

/// What waiting for an update's thread gave.
enum Received {
    Belief(Box<Belief>, Option<String>),
    NotYet,
    Lost,
}

/// Waits for the belief from `rx` until `deadline` (for ever without one).
fn receive_until(rx: &Receiver<(Belief, Option<String>)>, deadline: Option<Instant>) -> Received {
    let got = match deadline {
        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        Some(d) => rx.recv_timeout(d.saturating_duration_since(Instant::now())),
    };
    match got {
        Ok((belief, note)) => Received::Belief(Box::new(belief), note),
        Err(RecvTimeoutError::Timeout) => Received::NotYet,
        Err(RecvTimeoutError::Disconnected) => Received::Lost,
    }
}

/// Moves the belief's replays may look at per millisecond of the move's time: about a fifth of
/// the time, on this project's machines, even when the whole budget is spent.
pub const REPLAY_MOVES_PER_MS: usize = 1_000;

/// Children an opponent ply of the belief may make per millisecond of the move's time: an update
/// then takes about a quarter of the time on this project's machines.
pub const CHILDREN_PER_MS: usize = 1_000;

/// The pool a player's belief updates and searches run on: `threads` threads (at least one).
pub fn thread_pool(threads: usize) -> Arc<rayon::ThreadPool> {
    Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().expect("a thread pool can be built"))
}

/// A belief over the hidden position, built at the first update of a game. An update runs on
/// a thread of its own, so that one that overruns the move's time can be left to finish while
/// the player answers without it; its parallel work runs on the search's pool, so the `Threads`
/// option bounds it as it bounds the search.
pub struct WorldSource {
    hash_mib: usize,
    seed: u64,
    pool: Arc<rayon::ThreadPool>,
    belief: Option<Belief>,
    /// An update still running after its move was answered: the belief comes back through it.
    pending: Option<Receiver<(Belief, Option<String>)>>,
}

/// How an update under a deadline went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Update {
    /// The belief is up to date: its size, and anything the user should be told.
    Ready(usize, Option<String>),
    /// The deadline passed first; the update goes on in the background and the next one waits
    /// for it.
    Late,
}

impl WorldSource {
    /// A source whose belief may use `hash_mib` MiB, its random choices derived from `seed`, its
    /// updates run on `pool`.
    pub fn new(hash_mib: usize, seed: u64, pool: Arc<rayon::ThreadPool>) -> WorldSource {
        WorldSource { hash_mib: hash_mib.max(1), seed, pool, belief: None, pending: None }
    }

    /// The belief, once the first update has built it.
    pub fn belief(&self) -> Option<&Belief> {
        self.belief.as_ref()
    }

    /// Brings the belief up to date, letting its replays look at a number of moves in
    /// proportion to the move's time and an opponent ply gather children for at most a quarter
    /// of it (a fixed-node search keeps the default sizes and no deadline, so it stays
    /// deterministic); returns the belief's size and anything the user should be told.
    pub fn update(&mut self, info: &InfoState, budget: &Budget) -> (usize, Option<String>) {
        match self.update_until(info, budget, None) {
            Update::Ready(size, note) => (size, note),
            Update::Late => (0, Some("the belief update failed; it starts again from the game's start".into())),
        }
    }

    /// [`WorldSource::update`], waiting for it (and for an earlier update still running) until
    /// `deadline` at most.
    pub fn update_until(&mut self, info: &InfoState, budget: &Budget, deadline: Option<Instant>) -> Update {
        if let Some(pending) = self.pending.take() {
            match receive_until(&pending, deadline) {
                Received::Belief(belief, _) => self.belief = Some(*belief),
                Received::NotYet => {
                    self.pending = Some(pending);
                    return Update::Late;
                }
                // The thread died with the belief: start again from the game's start.
                Received::Lost => self.belief = None,
            }
        }
        let cfg = self.config_for(budget);
        let info = info.clone();
        let belief = self.belief.take();
        let (tx, rx) = channel();
        let pool = Arc::clone(&self.pool);
        let work = move || {
            // A new belief starts with these limits (its first update may already expand), a
            // running one takes them for this move.
            let (belief, note) = pool.install(|| {
                let mut belief = belief.unwrap_or_else(|| Belief::new(&info, cfg.clone()));
                belief.set_limits(&cfg);
                let note = belief.update(&info).info_string();
                (belief, note)
            });
            let _ = tx.send((belief, note));
        };
        if std::thread::Builder::new().name("murk-belief".into()).spawn(work).is_err() {
            return Update::Late;
        }
        match receive_until(&rx, deadline) {
            Received::Belief(belief, note) => {
                let size = belief.len();
                self.belief = Some(*belief);
                Update::Ready(size, note)
            }
            Received::NotYet => {
                self.pending = Some(rx);
                Update::Late
            }
            Received::Lost => Update::Late,
        }
    }

    /// The belief's limits for a move with `budget`.
    fn config_for(&self, budget: &Budget) -> BeliefConfig {
        let defaults = BeliefConfig::default();
        let (replay, children, expand_ms) = match budget.soft.or(budget.hard) {
            Some(time) => {
                let ms = time.as_millis() as usize;
                (
                    (ms * REPLAY_MOVES_PER_MS).clamp(20_000, defaults.replay_budget),
                    (ms * CHILDREN_PER_MS).clamp(5_000, defaults.max_children),
                    (ms as u64 / 4).max(1),
                )
            }
            None => (defaults.replay_budget, defaults.max_children, 0),
        };
        BeliefConfig {
            hash_mib: self.hash_mib,
            seed: self.seed,
            replay_budget: replay,
            max_worlds: children * defaults.max_worlds / defaults.max_children,
            max_children: children,
            expand_ms,
            ..defaults
        }
    }

    /// `n` worlds drawn from the belief, identical ones merged with their counts as weights,
    /// the likeliest first (ties in drawing order).
    pub fn draw(&self, n: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<(Position, f64)> {
        let Some(belief) = &self.belief else { return Vec::new() };
        let mut merged: Vec<(Position, f64)> = Vec::new();
        let mut index: HashMap<u64, usize> = HashMap::new();
        for world in belief.sample(n, rng) {
            match index.get(&world.repetition_key()) {
                Some(&i) => merged[i].1 += 1.0,
                None => {
                    index.insert(world.repetition_key(), merged.len());
                    merged.push((world, 1.0));
                }
            }
        }
        merged.sort_by(|a, b| b.1.total_cmp(&a.1));
        merged
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Color, Variant};
    use std::time::Duration;

    /// The belief's limits after an update under `budget`.
    fn belief_limits_under(budget: Budget) -> BeliefConfig {
        let mut source = WorldSource::new(32, 1, thread_pool(1));
        let info = InfoState::new(Position::start(Variant::DarkChess), Color::White);
        source.update(&info, &budget);
        source.belief().expect("a belief after an update").config().clone()
    }

    #[test]
    fn an_update_past_its_deadline_is_late_and_the_next_one_takes_it_over() {
        let mut source = WorldSource::new(32, 1, thread_pool(1));
        let info = InfoState::new(Position::start(Variant::DarkChess), Color::White);
        let budget = Budget { soft: Some(Duration::from_millis(100)), ..Budget::UNBOUNDED };
        let past = Instant::now() - Duration::from_millis(1);
        // The first update of a game builds the belief, which takes longer than no time at all.
        let first = source.update_until(&info, &budget, Some(past));
        assert!(matches!(first, Update::Late | Update::Ready(..)));
        if first == Update::Late {
            assert!(source.belief().is_none(), "a late belief is not drawn from");
            assert!(source.draw(4, &mut rand::SeedableRng::seed_from_u64(1)).is_empty());
        }
        assert!(matches!(source.update_until(&info, &budget, None), Update::Ready(1, _)));
        assert_eq!(source.draw(4, &mut rand::SeedableRng::seed_from_u64(1)).len(), 1);
    }

    #[test]
    fn the_belief_gathers_children_for_a_quarter_of_a_timed_move_and_without_a_clock_when_bounded_by_nodes() {
        let timed = belief_limits_under(Budget { soft: Some(Duration::from_millis(100)), ..Budget::UNBOUNDED });
        assert_eq!(timed.expand_ms, 25);
        assert_eq!(timed.max_children, 100 * CHILDREN_PER_MS);
        let counted = belief_limits_under(Budget { nodes: Some(1_000), ..Budget::UNBOUNDED });
        assert_eq!(counted.expand_ms, 0, "a search bounded by nodes stays deterministic");
        assert_eq!(counted.max_children, BeliefConfig::default().max_children);
    }
}
