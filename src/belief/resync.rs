//! Getting back to the exact set after a cut.
//!
//! Once a set has been cut to a sample, the true world may have been among the worlds left out,
//! and a sample only narrows from then on. But observations often collapse the consistent set
//! again a few plies later. A resync replays the events since the last exact set, keeping every
//! consistent child, and drops early the worlds that cannot reach the later views in the
//! opponent plies before them ([`Lookahead`]): if no level outgrows its budget, the result is every
//! world consistent with the whole history, with the weights the forward pass would have given
//! them, and the belief is exact again.

use super::expand;
use super::lookahead::Lookahead;
use super::step::{after_bounce, after_own_move, OpponentStep};
use super::worlds::WorldSet;
use super::{last_view, Belief};
use crate::rules::Position;
use crate::view::Event;

/// The moves an opponent ply looks at per world, about, for budgets counted in moves.
pub(super) const MOVES_PER_PARENT: usize = 30;

/// How a replay cuts a level that outgrows its room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ranking {
    /// The likeliest worlds, each ply the look-ahead counts to the later views costing a factor
    /// e. (Forced replays from the exact set failed 2.5% of the time so, 8% with the count
    /// first and 4% by weight alone.)
    Nearest,
    /// Half the room so, the other half the likeliest by weight alone: the second try when a
    /// replay ranked by the look-ahead died (its bound can favour worlds the next view refutes;
    /// of 8 r-r games that fell back, one more got back so and none was lost).
    Hedged,
}

/// What a replay from a checkpoint found.
pub(super) struct Replayed {
    /// The worlds at the end of the history.
    pub set: WorldSet,
    /// True if no level was cut: the set holds every consistent world.
    pub exact: bool,
}

impl Belief {
    /// Replays the events since `from` from the worlds `roots` held then: every opponent ply
    /// expanded with at most `cap` children, each of which must be able to reach the later views
    /// in time. With `keep` = `None` a cut fails the replay (it is to be exact); with `Some((n,
    /// ranking))` a level is cut to `n` worlds chosen by `ranking` and the replay goes on. Each
    /// opponent ply costs
    /// [`MOVES_PER_PARENT`] moves per world from `budget`. `None` if no world is left or the
    /// budget runs out.
    pub(super) fn replay_from(
        &mut self,
        roots: &WorldSet,
        from: usize,
        cap: usize,
        keep: Option<(usize, Ranking)>,
        budget: &mut usize,
    ) -> Option<Replayed> {
        let n = self.history.len();
        let side = self.side;
        // The lines this replay adds start at `mark`: they are compacted after any level that
        // leaves too little room for the next, and the replay fails if the lines of the worlds
        // it holds still leave too little.
        let mark = self.lineage.as_ref().map_or(0, |l| l.len());
        let room = self.lineage_room();
        let mut set = roots.clone();
        let mut exact = true;
        let mut lookaheads = Lookahead::after_each(&self.history, from, side).into_iter();
        let replayed = 'replay: {
            for i in from..n {
                let lookahead = lookaheads.next().expect("one look-ahead per event");
                set = match &self.history[i] {
                    Event::Own { mv, obs } => after_own_move(&set, side, *mv, obs),
                    Event::Bounce { square } => after_bounce(&set, side, *square),
                    Event::Opponent { obs } => {
                        let Some(left) = budget.checked_sub(set.len() * MOVES_PER_PARENT) else { break 'replay None };
                        *budget = left;
                        let prev = last_view(&self.initial_view, &self.history[..i]);
                        let step =
                            OpponentStep::new(prev, obs, self.cfg.model, self.greedy_share).reaching(lookahead.clone());
                        let mut expanded = expand::expand(
                            &step,
                            &set,
                            usize::MAX,
                            expand::Room::all(cap),
                            expand::Effort::unbounded(),
                            self.lineage.as_mut(),
                            &mut self.rng,
                        );
                        match keep {
                            None if expanded.cut => break 'replay None,
                            Some((n, ranking)) if expanded.cut || expanded.set.len() > n => {
                                let nearest = |world: &Position, weight: f64| {
                                    weight.max(f64::MIN_POSITIVE).ln()
                                        - f64::from(lookahead.distance(world).unwrap_or(u32::MAX))
                                };
                                match ranking {
                                    Ranking::Nearest => expanded.set.keep_best(n, &mut self.rng, nearest),
                                    Ranking::Hedged => {
                                        expanded.set.keep_best_of_two(n, &mut self.rng, nearest, |_, weight| weight)
                                    }
                                };
                                exact = false;
                            }
                            _ => {}
                        }
                        if let Some(lineage) = self.lineage.as_mut().filter(|l| l.len() > room) {
                            lineage.compact_since(mark, expanded.set.nodes_mut());
                            if lineage.len() > room {
                                break 'replay None;
                            }
                        }
                        expanded.set
                    }
                };
                if set.is_empty() {
                    break 'replay None;
                }
            }
            set.normalize();
            Some(Replayed { set, exact })
        };
        if replayed.is_none() {
            // No world leads through the lines this replay added.
            if let Some(lineage) = self.lineage.as_mut() {
                lineage.truncate(mark);
            }
        }
        replayed
    }

    /// Replays the events since the last exact set keeping every consistent world, at most
    /// `budget` children per opponent ply; on success the belief is exact again. Returns whether
    /// it succeeded.
    pub(super) fn resync(&mut self, budget: usize) -> bool {
        let Some(cp) = self.exact_checkpoint.take() else { return false };
        let replayed = self.replay_from(&cp.set, cp.events, budget, None, &mut { usize::MAX });
        let Some(replayed) = replayed else {
            self.exact_checkpoint = Some(cp);
            return false;
        };
        self.set = replayed.set;
        self.exact = true;
        self.fallen_back = false;
        self.checkpoints.clear();
        true
    }
}
