//! The belief state: the worlds (true positions, enemy hand, castling and en-passant rights
//! included) that agree with everything the engine has observed, built from its
//! [`InfoState`] alone.
//!
//! A world is *consistent* exactly when replaying it through the rules core reproduces every
//! observation the engine received (its views, capture reports and Try reports), every bounce,
//! and the game's going on. The belief is a weighted set of worlds, tracked event by event (the
//! filter):
//!
//! - the engine's own move is played in every world, and worlds whose new view differs die;
//! - the opponent's hidden ply expands every world by all its pseudo-legal moves (board moves,
//!   castling, en passant, promotions, drops from the enemy hand) and keeps the children whose
//!   view and capture report are the observed ones, weighted by an [`OpponentModel`];
//! - a bounce keeps the worlds with an enemy piece on that square.
//!
//! While the set fits the limits of [`BeliefConfig`] it is *exact*: every consistent world is in
//! it, with the probability the opponent model gives its histories (tests check both against a
//! brute-force enumeration). Past the limits the heaviest worlds are expanded first, each keeping
//! a weighted random share of its children, and lighter ones follow while room and work last: a
//! weighted sample of consistent worlds.
//!
//! A sample can lose the truth and then narrow or run dry. The one way back is a replay from the
//! checkpoints (the sets saved at spaced points of the history, in one ring): the events since
//! are replayed with every child kept that can still reach the later views, each level cut to
//! the likeliest worlds (see the `recover` module). It tops up a sample that narrows below
//! `min_worlds`, refills one that runs dry, and after a fallback brings the belief back onto
//! the whole history. If no replay finds a world, the belief falls back to worlds made to agree
//! with the recent events only, says so in its [`UpdateReport`], and goes on.
//!
//! For the search: [`Belief::new`], [`Belief::update`] after every new event, [`Belief::sample`]
//! to draw worlds, [`Belief::len`] / [`Belief::is_exact`] / [`Belief::is_anchored`], and
//! [`Belief::square_probabilities`] / [`Belief::enemy_hands`] for what each square and the enemy
//! hand hold.

mod approach;
mod expand;
mod key_index;
mod keys;
mod lineage;
pub mod lookahead;
mod marginals;
mod model;
mod recover;
mod repair;
mod step;
mod worlds;

pub use marginals::{Content, SquareProbabilities};
pub use model::{features, purpose_weights, OpponentModel, Target, FEATURES, FEATURE_NAMES, PURPOSE_FLOOR};
pub use worlds::{same_world, Keyed, Stored, WorldSet};

use crate::core::Color;
use crate::rules::{Hand, Position};
use crate::view::{Event, InfoState, Observation, View};
use lineage::{Anchor, Lineage, NODE_BYTES};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use recover::{Checkpoint, Retry};
use std::time::{Duration, Instant};
use step::{after_bounce, after_own_move, OpponentStep};
use worlds::{NO_NODE, WORLD_BYTES};

/// The belief's limits; the engine sets them from its options and the move's time.
#[derive(Clone, Debug)]
pub struct BeliefConfig {
    /// Memory for the worlds, checkpoints and lineage, in MiB (the engine gives the belief half
    /// of its `Hash` option).
    pub hash_mib: usize,
    /// The sample size: the worlds an opponent ply expands first, and each checkpoint keeps.
    pub max_worlds: usize,
    /// Most children one opponent update keeps.
    pub max_children: usize,
    /// Most work an opponent update spends per child of `max_children`, in units of about a
    /// nanosecond; lighter parents are expanded only while work is left.
    pub work_per_child: u64,
    /// The share of an opponent update's work it spends at once; the lightest parents past it
    /// are expanded at the start of the next update, against the same observation.
    pub work_now_share: f64,
    /// Most milliseconds an opponent update spends gathering children (0: no deadline, so that
    /// the result is the same on any machine).
    pub expand_ms: u64,
    /// Most moves the replays of one update may look at.
    pub replay_budget: usize,
    /// A sample smaller than this is narrow: topped up by a replay from the checkpoints (and an
    /// opponent ply that leaves parents for later expands them at once if its children are fewer).
    pub min_worlds: usize,
    /// How the opponent's hidden moves are weighted.
    pub model: OpponentModel,
    /// Seed of the belief's random choices.
    pub seed: u64,
    /// Keep each world's line of opponent moves, so that it can be replayed against the history
    /// ([`Belief::check_world`]: tests and `belief-eval`).
    pub lineage: bool,
}

impl Default for BeliefConfig {
    fn default() -> BeliefConfig {
        BeliefConfig {
            hash_mib: 160,
            max_worlds: 40_000,
            max_children: 165_000,
            work_per_child: 220,
            work_now_share: 0.7,
            expand_ms: 0,
            replay_budget: 200_000_000,
            min_worlds: 256,
            model: OpponentModel::Adaptive,
            seed: 0,
            lineage: false,
        }
    }
}

impl BeliefConfig {
    /// The sample size and the most children an update may keep, as far as the memory budget
    /// allows them after the lineage's share: the set, its successor and the newest checkpoint
    /// may each hold the children; every other checkpoint keeps at most the sample size.
    pub fn limits(&self) -> (usize, usize) {
        let budget = self.hash_bytes() - self.lineage_nodes() * NODE_BYTES;
        let samples = recover::RING - 1;
        let per_child = 3 * WORLD_BYTES;
        let worlds = self.max_worlds.min(budget / (per_child + samples * WORLD_BYTES)).max(1);
        let children =
            self.max_children.min(budget.saturating_sub(samples * worlds * WORLD_BYTES) / per_child).max(worlds);
        (worlds, children)
    }

    /// The most lineage nodes the belief may hold: an eighth of `Hash` when it keeps lineage.
    pub fn lineage_nodes(&self) -> usize {
        if self.lineage {
            self.hash_bytes() / LINEAGE_SHARE / NODE_BYTES
        } else {
            0
        }
    }

    /// The `Hash` option in bytes.
    fn hash_bytes(&self) -> usize {
        self.hash_mib.max(1) << 20
    }
}

/// The lineage gets one part in this many of `Hash`.
const LINEAGE_SHARE: usize = 8;
/// The share of the sample size an opponent ply expands first (the heaviest worlds; lighter ones
/// follow while room for children is left).
const FIRST_ROUND_SHARE: f64 = 0.8;
/// An opponent update whose work bound is smaller than this (about 10 ms) does all its work at
/// once: it is short anyway.
const SPLIT_MIN_WORK: u64 = 8_000_000;

/// What one call of [`Belief::update`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateReport {
    /// Events applied.
    pub events: usize,
    /// Worlds held afterwards.
    pub worlds: usize,
    /// True if the belief holds every consistent world.
    pub exact: bool,
    /// True if the set was cut to a sample during this update.
    pub sampled: bool,
    /// Worlds a replay added to a sample that had narrowed below `min_worlds`.
    pub topped_up: usize,
    /// Times the set ran dry and a replay from the checkpoints refilled it.
    pub regenerated: usize,
    /// Fallbacks: no replay found a world consistent with the whole history, and the belief now
    /// holds worlds that agree with the latest view and the `fallback_events` events before it.
    pub fallbacks: usize,
    /// How many events before the latest view the fallback worlds agree with.
    pub fallback_events: usize,
    /// Worlds made to show the latest view again when the worlds of a fallback ran dry.
    pub repaired: usize,
    /// Times a replay got the belief back onto the whole history after a fallback.
    pub reanchored: usize,
    /// True if the lines of the worlds held outgrew the lineage's share of `Hash` and were
    /// given up (the worlds stay; they can no longer be checked).
    pub lineage_dropped: bool,
    /// Parents of the opponent's ply left for the next update to expand (`work_now_share`).
    pub deferred_parents: usize,
    /// Children of the parents an earlier update left, added to the set by this one.
    pub deferred_children: usize,
}

impl UpdateReport {
    /// A line for `info string` when something happened that the user should know about.
    pub fn info_string(&self) -> Option<String> {
        if self.fallbacks > 0 {
            Some(format!(
                "belief lost track of the history; playing on with {} worlds that agree with the latest view and the {} events before it",
                self.worlds, self.fallback_events
            ))
        } else if self.reanchored > 0 {
            Some(format!("belief back on the whole history with {} worlds", self.worlds))
        } else if self.repaired > 0 {
            Some(format!("belief still off the history; {} worlds refitted to the latest view", self.worlds))
        } else if self.regenerated > 0 {
            Some(format!("belief regenerated {} worlds from the history", self.worlds))
        } else if self.lineage_dropped {
            Some("belief's lines of moves outgrew their share of Hash and were dropped".into())
        } else {
            None
        }
    }
}

/// Parents of the opponent's latest ply left for the next update to expand (see
/// [`BeliefConfig::work_now_share`]).
#[derive(Clone, Debug)]
struct Deferred {
    /// The parents, with their weights before that ply.
    parents: WorldSet,
    /// The view before that ply and the observation after it.
    prev: View,
    obs: Observation,
    /// The greedy share the ply was expanded with.
    greedy_share: f64,
    /// True if the set was exact before that ply and its expansion left nothing out but these
    /// parents: their children complete it again.
    completes: bool,
    /// What the weights of that ply's children were multiplied by when the set was normalized.
    scale: f64,
}

/// The engine's belief about the true position.
#[derive(Clone, Debug)]
pub struct Belief {
    cfg: BeliefConfig,
    start: Position,
    side: Color,
    initial_view: View,
    history: Vec<Event>,
    set: WorldSet,
    exact: bool,
    /// True after a fallback, until a replay gets back onto the whole history.
    fallen_back: bool,
    lineage: Option<Lineage>,
    /// The share of a greedy mover in the [`OpponentModel::Adaptive`] mixture.
    greedy_share: f64,
    /// The sets saved before events since the set was last exact, oldest first.
    checkpoints: Vec<Checkpoint>,
    rng: Xoshiro256PlusPlus,
    lost: usize,
    /// When a narrow sample is next topped up, and a fallen-back belief next tries to get back.
    top_up: Retry,
    reanchor: Retry,
    /// Parents of the latest opponent ply still to expand.
    deferred: Option<Deferred>,
}

impl Belief {
    /// The belief at the start of the game `info` describes, then brought up to date with its events.
    pub fn new(info: &InfoState, cfg: BeliefConfig) -> Belief {
        let mut belief = Belief::at_start(info, cfg);
        belief.update(info);
        belief
    }

    /// The belief at the start of the game `info` describes, before any event.
    fn at_start(info: &InfoState, cfg: BeliefConfig) -> Belief {
        let start = info.start().clone();
        let mut lineage = cfg.lineage.then(|| Lineage::with_capacity(cfg.lineage_nodes()));
        let root = lineage.as_mut().map_or(NO_NODE, |l| l.anchor(Anchor { events: 0, world: start.clone() }));
        Belief {
            rng: Xoshiro256PlusPlus::seed_from_u64(cfg.seed),
            initial_view: View::of(&start, info.side()),
            side: info.side(),
            set: WorldSet::single(start.clone(), root),
            start,
            cfg,
            history: Vec::new(),
            exact: true,
            fallen_back: false,
            lineage,
            greedy_share: 0.5,
            checkpoints: Vec::new(),
            lost: 0,
            top_up: Retry::default(),
            reanchor: Retry::default(),
            deferred: None,
        }
    }

    /// Applies the events `info` has received since the last update. A different game (other
    /// start, side or a shorter history) starts the belief afresh.
    pub fn update(&mut self, info: &InfoState) -> UpdateReport {
        let fresh = info.start() != &self.start
            || info.side() != self.side
            || info.events().len() < self.history.len()
            || info.events()[..self.history.len()] != self.history[..];
        if fresh {
            *self = Belief::at_start(info, self.cfg.clone());
        }
        let mut report = UpdateReport::default();
        for event in &info.events()[self.history.len()..] {
            self.finish_deferred(&mut report);
            self.history.push(event.clone());
            self.apply(&mut report);
            report.events += 1;
        }
        report.worlds = self.set.len();
        report.exact = self.exact;
        report
    }

    /// The configuration.
    pub fn config(&self) -> &BeliefConfig {
        &self.cfg
    }

    /// Takes the time-dependent limits of `limits` from the next update on, so that a caller
    /// with little time per move keeps the updates short: the replays' budget, the sample size,
    /// the most children (at least one world, and as many children) and the expansion's
    /// deadline. The memory budget, model, seed and the rest stay as they were.
    pub fn set_limits(&mut self, limits: &BeliefConfig) {
        self.cfg.replay_budget = limits.replay_budget;
        self.cfg.max_worlds = limits.max_worlds.max(1);
        self.cfg.max_children = limits.max_children.max(self.cfg.max_worlds);
        self.cfg.expand_ms = limits.expand_ms;
    }

    /// Number of distinct worlds held.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// True if no world is held (only after a fallback found nothing at all).
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// True if the belief holds every world consistent with the history.
    pub fn is_exact(&self) -> bool {
        self.exact
    }

    /// True if every world held is consistent with the whole history (false after a fallback).
    pub fn is_anchored(&self) -> bool {
        !self.fallen_back
    }

    /// Number of fallbacks so far in this game.
    pub fn lost(&self) -> usize {
        self.lost
    }

    /// The worlds with their weights (summing to 1).
    pub fn worlds(&self) -> &WorldSet {
        &self.set
    }

    /// `n` worlds drawn in proportion to their weights (by systematic resampling, so heavy worlds
    /// come back several times). Debug builds replay each against the history.
    pub fn sample(&self, n: usize, rng: &mut impl Rng) -> Vec<Position> {
        let mut picks = self.set.systematic(n, rng);
        picks.shuffle(rng);
        for &i in &picks {
            debug_assert!(
                self.replay_world(i, self.is_anchored()).is_none_or(|r| r.is_ok()),
                "inconsistent world: {:?}",
                self.replay_world(i, self.is_anchored())
            );
        }
        picks.into_iter().map(|i| self.set.worlds()[i].clone()).collect()
    }

    /// Replays world `index` against the whole history: `None` if no lineage is kept, else
    /// whether every observation, bounce and the game's going on are reproduced (a world a
    /// fallback made up fails).
    pub fn check_world(&self, index: usize) -> Option<Result<(), String>> {
        self.replay_world(index, true)
    }

    /// Replays world `index` from its anchor (the start unless a fallback made it up; the start
    /// only if `from_start`) against the history since.
    fn replay_world(&self, index: usize, from_start: bool) -> Option<Result<(), String>> {
        let lineage = self.lineage.as_ref()?;
        let node = self.set.nodes()[index];
        let outcome = lineage::replay(lineage, node, &self.history, self.side, from_start).and_then(|w| {
            same_world(&w, &self.set.worlds()[index]).then_some(()).ok_or_else(|| "replay ends elsewhere".to_string())
        });
        Some(outcome)
    }

    /// The probability of each content of each square.
    pub fn square_probabilities(&self) -> SquareProbabilities {
        SquareProbabilities::of(&self.set)
    }

    /// The distribution of the enemy hand (Crazyhouse), most likely first.
    pub fn enemy_hands(&self) -> Vec<(Hand, f64)> {
        marginals::hands(&self.set, self.side.opponent())
    }

    /// Applies the newest event of `history`: the filter, then whatever recovery the set needs.
    fn apply(&mut self, report: &mut UpdateReport) {
        let k = self.history.len() - 1;
        let prev = last_view(&self.initial_view, &self.history[..k]).clone();
        let side = self.side;
        let was_exact = self.exact;
        let next = match self.history[k].clone() {
            Event::Own { mv, obs } => after_own_move(&self.set, side, mv, &obs),
            Event::Opponent { obs } => self.expand(&prev, &obs, report),
            Event::Bounce { square } => after_bounce(&self.set, side, square),
        };
        let before = std::mem::replace(&mut self.set, next);
        // A set that ran dry is refilled, or its fallback made, from the worlds before.
        let seeds = self.set.is_empty().then(|| before.head(64));
        if was_exact && !self.exact {
            self.checkpoints.clear();
        }
        if !self.exact {
            let (sample, _) = self.cfg.limits();
            self.save_checkpoint(Checkpoint::new(k, before, was_exact, !self.fallen_back), sample);
        }
        if let Some(seeds) = seeds {
            self.recover(&seeds, report);
        }
        let total = self.set.total_weight();
        self.set.normalize();
        if let Some(d) = self.deferred.as_mut() {
            d.scale = 1.0 / total;
        }
        self.try_reanchor(report);
        self.try_top_up(report);
        self.collect_lineage(report);
    }

    /// The opponent's hidden ply: the children of every world that reproduce `obs`, cut down to
    /// the limits (the belief is then no longer exact).
    fn expand(&mut self, prev: &View, obs: &Observation, report: &mut UpdateReport) -> WorldSet {
        let step = OpponentStep::new(prev, obs, self.cfg.model, self.greedy_share);
        let (sample, cap) = self.cfg.limits();
        let first = (sample as f64 * FIRST_ROUND_SHARE).ceil() as usize;
        let work = (cap as u64).saturating_mul(self.cfg.work_per_child);
        let split = self.cfg.work_now_share < 1.0 && work >= SPLIT_MIN_WORK && !self.fallen_back;
        let effort = expand::Effort {
            work,
            deadline: self.deadline(),
            now: if split { (work as f64 * self.cfg.work_now_share) as u64 } else { u64::MAX },
        };
        let expanded = expand::expand(&step, &self.set, first, cap, effort, self.lineage.as_mut(), &mut self.rng);
        let (mut children, mut cut, seen) = (expanded.set, expanded.cut, expanded.likelihood);
        if !expanded.deferred.is_empty() {
            report.deferred_parents += expanded.deferred.len();
            self.deferred = Some(Deferred {
                parents: self.set.subset(&expanded.deferred),
                prev: prev.clone(),
                obs: obs.clone(),
                greedy_share: self.greedy_share,
                completes: self.exact && !cut,
                scale: 1.0,
            });
            if children.len() < self.cfg.min_worlds {
                // Too few children to go on with (or none): the rest now.
                let (added, complete) = self.expand_deferred(&mut children, 1.0);
                report.deferred_children += added;
                cut |= !complete;
            } else {
                cut = true;
            }
        }
        let odds = self.greedy_share * seen.greedy + (1.0 - self.greedy_share) * seen.uniform;
        if odds > 0.0 {
            self.greedy_share = (self.greedy_share * seen.greedy / odds).clamp(0.02, 0.98);
        }
        if cut {
            self.exact = false;
            report.sampled = true;
        }
        children
    }

    /// Expands the parents the latest opponent ply left for later, if any, and merges their
    /// children into the set.
    fn finish_deferred(&mut self, report: &mut UpdateReport) {
        let Some(scale) = self.deferred.as_ref().map(|d| d.scale) else { return };
        let mut set = std::mem::take(&mut self.set);
        let (added, complete) = self.expand_deferred(&mut set, scale);
        report.deferred_children += added;
        self.exact |= complete;
        set.normalize();
        self.set = set;
    }

    /// The expansion's deadline, if it has one (`expand_ms`).
    fn deadline(&self) -> Option<Instant> {
        (self.cfg.expand_ms > 0).then(|| Instant::now() + Duration::from_millis(self.cfg.expand_ms))
    }

    /// Expands the parents an opponent ply left for later, against its observation, and adds
    /// their children to `set` (that ply's children), their weights times `scale`, as far as
    /// `max_children` leaves room. Returns how many children were new, and whether the set is
    /// now exact (see [`Deferred::completes`]).
    fn expand_deferred(&mut self, set: &mut WorldSet, scale: f64) -> (usize, bool) {
        let Some(d) = self.deferred.take() else { return (0, false) };
        let room = self.cfg.limits().1.saturating_sub(set.len());
        if room == 0 {
            return (0, false);
        }
        let step = OpponentStep::new(&d.prev, &d.obs, self.cfg.model, d.greedy_share);
        let effort = expand::Effort { deadline: self.deadline(), ..expand::Effort::unbounded() };
        let expanded =
            expand::expand(&step, &d.parents, usize::MAX, room, effort, self.lineage.as_mut(), &mut self.rng);
        (set.merge_in(expanded.set, scale), d.completes && !expanded.cut)
    }

    /// Drops lineage nodes no world needs any more, when they pile up or come near the
    /// lineage's budget; if the lines of the worlds held would still leave no room for the next
    /// update's, the lineage is given up (its checks with it), and `report` says so.
    fn collect_lineage(&mut self, report: &mut UpdateReport) {
        let live = self.set.len()
            + self.deferred.as_ref().map_or(0, |d| d.parents.len())
            + self.checkpoints.iter().map(|c| c.set.len()).sum::<usize>();
        let room = self.lineage_room();
        if self.lineage.as_ref().is_none_or(|l| l.len() < (4 * live + 100_000).min(room)) {
            return;
        }
        let mut ids: Vec<u32> = self.set.nodes().to_vec();
        for c in &self.checkpoints {
            ids.extend_from_slice(c.set.nodes());
        }
        if let Some(d) = &self.deferred {
            ids.extend_from_slice(d.parents.nodes());
        }
        let Some(lineage) = self.lineage.as_mut() else { return };
        lineage.compact(&mut ids);
        if lineage.len() > room {
            self.lineage = None;
            report.lineage_dropped = true;
            return;
        }
        let mut ids = ids.into_iter();
        self.set.set_nodes(&mut ids);
        for c in &mut self.checkpoints {
            c.set.set_nodes(&mut ids);
        }
        if let Some(d) = &mut self.deferred {
            d.parents.set_nodes(&mut ids);
        }
    }

    /// How many lineage nodes may be held between updates: the budget less room for what one
    /// expansion adds (twice its children).
    fn lineage_room(&self) -> usize {
        self.cfg.lineage_nodes().saturating_sub(2 * self.cfg.limits().1)
    }

    /// Memory in use, in bytes (worlds, parents left for later, checkpoints and lineage).
    pub fn bytes(&self) -> usize {
        self.set.bytes()
            + self.deferred.as_ref().map_or(0, |d| d.parents.bytes())
            + self.checkpoints.iter().map(|c| c.set.bytes()).sum::<usize>()
            + self.lineage.as_ref().map_or(0, Lineage::bytes)
    }
}

/// The view after the last ply of `history`, or `initial` before the first.
fn last_view<'a>(initial: &'a View, history: &'a [Event]) -> &'a View {
    history
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::Own { obs, .. } | Event::Opponent { obs } => Some(&obs.view),
            Event::Bounce { .. } => None,
        })
        .unwrap_or(initial)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    /// Lines of moves that would leave no room for the next update's, even compacted, are given
    /// up: the worlds stay, they can no longer be checked, and the report says so.
    #[test]
    fn lines_that_outgrow_their_share_of_hash_are_given_up() {
        let start = Position::start(Variant::DarkChess);
        let info = InfoState::new(start.clone(), Color::White);
        let mut belief = Belief::new(&info, BeliefConfig { hash_mib: 1, lineage: true, ..BeliefConfig::default() });
        let room = belief.lineage_room();
        let lineage = belief.lineage.as_mut().expect("lineage kept");
        let mv = start.moves()[0];
        let mut node = belief.set.nodes()[0];
        for _ in 0..room {
            node = lineage.step(node, mv);
        }
        belief.set.set_nodes(&mut std::iter::once(node));
        let mut report = UpdateReport::default();
        belief.collect_lineage(&mut report);
        assert!(report.lineage_dropped && belief.check_world(0).is_none());
        assert_eq!(belief.len(), 1);
        assert!(report.info_string().is_some_and(|s| s.contains("Hash")), "{:?}", report.info_string());
    }
}
