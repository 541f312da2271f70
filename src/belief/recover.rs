//! The belief's one way back: a replay from the checkpoints, guided by the later views.
//!
//! A sample can lose the truth: it then narrows, or runs dry when an observation refutes every
//! world it holds. The checkpoints hold the sets saved before events since the set was last
//! exact, in one ring (the exact set first, then spaced more widely the older they are). A replay
//! takes a checkpoint's worlds through the events since, keeping every consistent child that
//! can still reach the later views in time ([`Lookahead`]) and cutting each opponent level to the
//! likeliest worlds, each ply the look-ahead still counts to the later views costing a factor e
//! (if every checkpoint's replay dies, they are tried again with half of each cut by weight
//! alone). The same replay tops up a narrow sample, refills one that ran dry, and brings a belief
//! back onto the whole history after a fallback. When no replay finds a world, the belief falls
//! back to worlds repaired to show a recent view and replayed through the events since.

use super::expand;
use super::lineage::Anchor;
use super::lookahead::Lookahead;
use super::repair::repair;
use super::step::{after_bounce, after_own_move, OpponentStep};
use super::worlds::{WorldBuilder, WorldSet, NO_NODE};
use super::{last_view, Belief, UpdateReport};
use crate::rules::Position;
use crate::view::Event;

/// Checkpoints kept: the one saved when the set was last exact and the most of the others.
pub(super) const RING: usize = 8;
/// Checkpoints this many events old or newer are recent: a replay from them sees what the sample
/// saw, so a top-up skips them.
const RECENT: usize = 4;
/// A replay tries the exact checkpoint right after the recent ones if it is at most this many
/// events old (else last): replaying from every consistent world is likeliest to find the truth.
const EXACT_FIRST_WITHIN: usize = 48;
/// The moves an opponent ply looks at per world, about, for budgets counted in moves.
const MOVES_PER_PARENT: usize = 30;
/// Worlds a replay keeps per level at least, however small its budget.
const MIN_KEPT: usize = 256;
/// How many of the latest events a fallback's worlds try to agree with (at most).
const FALLBACK_WINDOW: usize = 8;
/// The later top-ups of a narrow spell get one part in this many of the replay budget.
const LATER_TOP_UP_SHARE: usize = 64;
/// A narrow spell ends once the sample holds this many times `min_worlds`.
const NARROW_SPELL_ENDS: usize = 16;

/// A set of worlds saved before some event, to replay from.
#[derive(Clone, Debug)]
pub(super) struct Checkpoint {
    /// Events the set accounts for.
    events: usize,
    pub(super) set: WorldSet,
    /// True if the set held every consistent world.
    exact: bool,
    /// True if its worlds are consistent with the whole history up to `events` (not made up by a
    /// fallback).
    anchored: bool,
}

impl Checkpoint {
    pub(super) fn new(events: usize, set: WorldSet, exact: bool, anchored: bool) -> Checkpoint {
        Checkpoint { events, set, exact, anchored }
    }
}

/// When to try again something that failed: at once, then 1, 3, 7, then every 15 ticks.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Retry {
    wait: usize,
    fails: u32,
}

impl Retry {
    /// True if it is time to try; else one tick passes.
    fn ready(&mut self) -> bool {
        if self.wait == 0 {
            return true;
        }
        self.wait -= 1;
        false
    }

    /// A try failed: wait longer before the next.
    fn failed(&mut self) {
        self.fails += 1;
        self.wait = (1usize << self.fails.min(4)) - 1;
    }
}

/// How a replay cuts a level that outgrows its room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ranking {
    /// The likeliest worlds, each ply the look-ahead counts to the later views costing a factor e.
    Nearest,
    /// Half the room so, the other half the likeliest by weight alone (the look-ahead's bound
    /// can favour worlds the next view refutes).
    Hedged,
}

/// What a replay found.
pub(super) struct Replayed {
    /// The worlds at the end of the history.
    set: WorldSet,
    /// True if the checkpoint was exact and no level was cut: the set holds every consistent world.
    exact: bool,
    /// True if the checkpoint was anchored on the whole history.
    anchored: bool,
}

impl Belief {
    /// Keeps `cp` as the newest checkpoint (cut to `sample` worlds unless it is exact); past
    /// [`RING`], drops the one whose loss leaves the smallest gap for its age (never the oldest,
    /// which is the last exact set, nor the newest), so the older ones are spaced more widely.
    pub(super) fn save_checkpoint(&mut self, mut cp: Checkpoint, sample: usize) {
        if !cp.exact && cp.set.len() > sample {
            cp.set.keep_heaviest(sample, &mut self.rng);
        }
        self.checkpoints.push(cp);
        let n = self.checkpoints.len();
        if n <= RING {
            return;
        }
        let now = self.history.len() as f64;
        let events = |i: usize| self.checkpoints[i].events as f64;
        let gap = |i: usize| (events(i + 1) - events(i - 1)) / (now - events(i - 1));
        let drop = (1..n - 1).min_by(|&a, &b| gap(a).total_cmp(&gap(b))).expect("a checkpoint between");
        self.checkpoints.remove(drop);
    }

    /// The set ran dry: refills it by a replay from the checkpoints (all of them, the recent
    /// first). A belief already fallen back is refitted to the latest view instead (it tries to
    /// get back by [`Belief::try_reanchor`]); one that finds nothing falls back.
    pub(super) fn recover(&mut self, seeds: &WorldSet, report: &mut UpdateReport) {
        if self.fallen_back {
            self.set = self.repaired_roots(seeds, self.history.len());
            report.repaired += self.set.len();
            return;
        }
        let order = self.sources(false, false);
        let most = self.cfg.limits().1;
        match self.replay_checkpoints(&order, most, self.cfg.replay_budget) {
            Some(found) => {
                (self.set, self.exact, self.fallen_back) = (found.set, found.exact, !found.anchored);
                report.regenerated += 1;
            }
            None => self.fall_back(seeds, report),
        }
    }

    /// After a fallback, at most once per opponent ply and backing off after each failure,
    /// replays from the anchored checkpoints (more later views guide it each time) to get back
    /// onto the whole history.
    pub(super) fn try_reanchor(&mut self, report: &mut UpdateReport) {
        let k = self.history.len();
        if !self.fallen_back || self.set.is_empty() || !matches!(self.history[k - 1], Event::Opponent { .. }) {
            return;
        }
        if !self.reanchor.ready() {
            return;
        }
        let order = self.sources(false, true);
        let most = self.cfg.limits().1;
        match self.replay_checkpoints(&order, most, self.cfg.replay_budget / 2) {
            Some(found) => {
                (self.set, self.exact, self.fallen_back) = (found.set, found.exact, false);
                // The checkpoints saved since the fallback were made up.
                self.checkpoints.retain(|c| c.anchored);
                self.reanchor = Retry::default();
                report.reanchored += 1;
            }
            None => self.reanchor.failed(),
        }
    }

    /// Tops up a sample that has narrowed below `min_worlds` with the worlds a replay from the
    /// older anchored checkpoints finds: at once, with an eighth of the replay budget and at
    /// most a quarter of the sample size per level, then, while the sample stays narrow, less
    /// often and with a smaller share ([`LATER_TOP_UP_SHARE`]). A narrow sample is the one that
    /// runs dry, and a replay from checkpoints as narrow as it then finds little.
    pub(super) fn try_top_up(&mut self, report: &mut UpdateReport) {
        if self.exact || self.set.len() >= NARROW_SPELL_ENDS * self.cfg.min_worlds {
            self.top_up = Retry::default();
        }
        if self.exact || self.fallen_back || self.set.is_empty() || self.set.len() >= self.cfg.min_worlds {
            return;
        }
        if !self.top_up.ready() {
            return;
        }
        let (budget, most) = if self.top_up.fails == 0 {
            (self.cfg.replay_budget / 8, self.cfg.limits().0 / 4)
        } else {
            (self.cfg.replay_budget / LATER_TOP_UP_SHARE, 4 * self.cfg.min_worlds)
        };
        self.top_up.failed();
        let order = self.sources(true, true);
        if let Some(found) = self.replay_checkpoints(&order, most.max(1), budget) {
            report.topped_up += self.set.absorb(found.set);
        }
    }

    /// The checkpoints to replay from, in the order to try them: the recent ones newest first
    /// (unless `skip_recent`), the exact one if it is recent enough, the older ones newest first,
    /// and the exact one if it is older. With `anchored_only`, none a fallback made up.
    fn sources(&self, skip_recent: bool, anchored_only: bool) -> Vec<usize> {
        let k = self.history.len();
        let age = |i: usize| k - self.checkpoints[i].events;
        let newest_first: Vec<usize> =
            (0..self.checkpoints.len()).rev().filter(|&i| self.checkpoints[i].anchored || !anchored_only).collect();
        let (exact, sampled): (Vec<usize>, Vec<usize>) =
            newest_first.into_iter().partition(|&i| self.checkpoints[i].exact);
        let (recent, older): (Vec<usize>, Vec<usize>) = sampled.into_iter().partition(|&i| age(i) <= RECENT);
        let (near, far): (Vec<usize>, Vec<usize>) = exact.into_iter().partition(|&i| age(i) <= EXACT_FIRST_WITHIN);
        let recent = if skip_recent { Vec::new() } else { recent };
        [recent, near, older, far].concat()
    }

    /// Replays from the checkpoints at `order` in turn until one reaches the present: each gets
    /// half of the budget left (the last all of it, and what a replay leaves goes back) and as
    /// many worlds per level as its share allows, at most `most`; if every one dies, they are
    /// tried again hedged ([`Ranking::Hedged`]).
    fn replay_checkpoints(&mut self, order: &[usize], most: usize, mut budget: usize) -> Option<Replayed> {
        let cap = self.cfg.limits().1;
        for ranking in [Ranking::Nearest, Ranking::Hedged] {
            for (n, &i) in order.iter().enumerate() {
                let mut share = if n + 1 == order.len() { budget } else { budget / 2 };
                budget -= share;
                let (events, exact, anchored) =
                    (self.checkpoints[i].events, self.checkpoints[i].exact, self.checkpoints[i].anchored);
                let keep = self.kept_per_level(events, share).min(most).min(cap);
                let roots = self.checkpoints[i].set.clone();
                let found = self.replay_from(roots, events, keep, ranking, &mut share);
                budget += share;
                if let Some((set, uncut)) = found {
                    return Some(Replayed { set, exact: exact && uncut, anchored });
                }
            }
        }
        None
    }

    /// How many worlds per opponent level a replay from event `from` can afford with `budget`.
    fn kept_per_level(&self, from: usize, budget: usize) -> usize {
        let plies = self.history[from..].iter().filter(|e| matches!(e, Event::Opponent { .. })).count();
        (budget / (plies.max(1) * MOVES_PER_PARENT)).max(MIN_KEPT)
    }

    /// Replays the events since `from` from the worlds `roots` held then: every opponent ply
    /// expanded with room for the most children an update may keep, each child able to reach the
    /// later views in time, and the level cut to `keep` worlds by `ranking`. Each opponent ply
    /// costs [`MOVES_PER_PARENT`] moves per world from `budget`. Returns the worlds and whether
    /// no level was cut; `None` if no world is left or the budget runs out.
    fn replay_from(
        &mut self,
        roots: WorldSet,
        from: usize,
        keep: usize,
        ranking: Ranking,
        budget: &mut usize,
    ) -> Option<(WorldSet, bool)> {
        let side = self.side;
        let cap = self.cfg.limits().1;
        // The lines this replay adds start at `mark`: they are compacted after any level that
        // leaves too little room for the next, and the replay fails if the lines of the worlds
        // it holds still leave too little.
        let mark = self.lineage.as_ref().map_or(0, |l| l.len());
        let room = self.lineage_room();
        let mut set = roots;
        let mut uncut = true;
        let lookaheads = Lookahead::after_each(&self.history, from, side);
        let replayed = 'replay: {
            for (i, lookahead) in (from..self.history.len()).zip(lookaheads) {
                set = match &self.history[i] {
                    Event::Own { mv, obs } => after_own_move(&set, side, *mv, obs),
                    Event::Bounce { square } => after_bounce(&set, side, *square),
                    Event::Opponent { obs } => {
                        let Some(left) = budget.checked_sub(set.len() * MOVES_PER_PARENT) else { break 'replay None };
                        *budget = left;
                        let prev = last_view(&self.initial_view, &self.history[..i]);
                        let step =
                            OpponentStep::new(prev, obs, self.cfg.model, self.greedy_share).reaching(lookahead.clone());
                        let effort = expand::Effort::unbounded();
                        let rng = &mut self.rng;
                        let mut expanded =
                            expand::expand(&step, &set, usize::MAX, cap, effort, self.lineage.as_mut(), rng);
                        if expanded.cut || expanded.set.len() > keep {
                            let nearest = |world: &Position, weight: f64| {
                                weight.max(f64::MIN_POSITIVE).ln()
                                    - f64::from(lookahead.distance(world).unwrap_or(u32::MAX))
                            };
                            match ranking {
                                Ranking::Nearest => expanded.set.keep_best(keep, rng, nearest),
                                Ranking::Hedged => expanded.set.keep_best_of_two(keep, rng, nearest, |_, w| w),
                            };
                            uncut = false;
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
            Some((set, uncut))
        };
        if replayed.is_none() {
            // No world leads through the lines this replay added.
            if let Some(lineage) = self.lineage.as_mut() {
                lineage.truncate(mark);
            }
        }
        replayed
    }

    /// Falls back to worlds that agree with as many of the latest events as can be managed (up
    /// to [`FALLBACK_WINDOW`], down to the latest view alone): `seeds` repaired to show the view
    /// that many events ago, then replayed through the events since.
    fn fall_back(&mut self, seeds: &WorldSet, report: &mut UpdateReport) {
        self.lost += 1;
        report.fallbacks += 1;
        self.fallen_back = true;
        self.exact = false;
        // Not straight back to the replays that just failed: the next try waits an opponent ply.
        self.reanchor = Retry { wait: 1, fails: 0 };
        let k = self.history.len();
        let mut window = FALLBACK_WINDOW.min(k);
        let mut budget = self.cfg.replay_budget / 4;
        loop {
            let roots = self.repaired_roots(seeds, k - window);
            if window == 0 {
                self.set = roots;
                report.fallback_events = 0;
                return;
            }
            let mut share = budget / 2;
            budget -= share;
            let keep = self.kept_per_level(k - window, share).min(self.cfg.limits().1);
            let found = self.replay_from(roots, k - window, keep, Ranking::Nearest, &mut share);
            budget += share;
            if let Some((set, _)) = found {
                self.set = set;
                report.fallback_events = window;
                return;
            }
            window /= 2;
        }
    }

    /// `seeds` (and the start position) repaired to show the view after the first `events`
    /// events, each anchored there.
    fn repaired_roots(&mut self, seeds: &WorldSet, events: usize) -> WorldSet {
        let view = last_view(&self.initial_view, &self.history[..events]).clone();
        let plies = self.history[..events].iter().filter(|e| !matches!(e, Event::Bounce { .. })).count();
        let turn = if plies % 2 == 0 { self.start.turn() } else { self.start.turn().opponent() };
        let mut builder = WorldBuilder::new();
        for seed in seeds.worlds().iter().chain(std::iter::once(&self.start)) {
            let Some(world) = repair(seed, &view, turn) else { continue };
            let lineage = &mut self.lineage;
            builder.add(world.repetition_key(), world.clone(), 1.0, || {
                lineage.as_mut().map_or(NO_NODE, |l| l.anchor(Anchor { events, world }))
            });
        }
        let mut set = builder.finish();
        set.normalize();
        set
    }
}
