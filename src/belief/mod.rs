//! The belief state: the worlds (true positions, enemy hand, castling and en-passant rights
//! included) that agree with everything the engine has observed, built from its
//! [`InfoState`] alone.
//!
//! A world is *consistent* exactly when replaying it through the rules core reproduces every
//! observation the engine received (its views, capture reports and Try reports), every bounce,
//! and the game's going on. The belief is a weighted set of worlds, tracked event by event:
//!
//! - the engine's own move is played in every world, and worlds whose new view differs die;
//! - the opponent's hidden ply expands every world by all its pseudo-legal moves (board moves,
//!   castling, en passant, promotions, drops from the enemy hand) and keeps the children whose
//!   view and capture report are the observed ones, weighted by an [`OpponentModel`];
//! - a bounce keeps the worlds with an enemy piece on that square.
//!
//! While the set fits the work and memory limits of [`BeliefConfig`] it is *exact*: every
//! consistent world is in it, with the probability the opponent model gives its histories (tests
//! check both against a brute-force enumeration). Past the limits the heaviest worlds are
//! expanded first, each keeping a weighted random share of its children, and lighter ones follow
//! while the room for children lasts; the others are dropped ([`Truncation`]): a weighted sample
//! of consistent worlds. After a cut the belief can try (if `resync_budget` allows), with backoff,
//! to *resync*: replay the events since the last exact set keeping every world that can still
//! reach the later views; when no level outgrows its budget it is exact again. A narrow sample
//! is topped up: once while it stays narrow by a replay from the older checkpoints that knows
//! the later views, then from a checkpoint. A sample can run dry (no world survives an observation); it
//! is then regenerated from the history: a depth-first search from the sets kept before the
//! latest events, then replays (a particle filter that knows the later views and keeps the
//! worlds nearest them) from the last exact set and the older checkpoints, then a depth-first
//! search from the last exact set.
//! If that fails within its budget, the belief falls back to worlds made to agree with the
//! recent observations only, says so in its [`UpdateReport`] (for `info string`), and goes on,
//! trying again (backing off) to replay from the anchored checkpoints, now with more later
//! views to guide it, until it is back onto the whole history.

//! For the search: [`Belief::new`], [`Belief::update`] after every new event, [`Belief::sample`]
//! to draw worlds, [`Belief::len`] / [`Belief::is_exact`] / [`Belief::is_anchored`], and
//! [`Belief::square_probabilities`] / [`Belief::enemy_hands`] for what each square and the enemy
//! hand hold.

mod approach;
pub mod baseline;
mod expand;
mod key_index;
mod keys;
mod lineage;
pub mod lookahead;
mod marginals;
mod model;
mod regen;
mod repair;
mod reroute;
mod resync;
mod step;
mod worlds;

pub use keys::world_key;
pub use marginals::{Content, SquareProbabilities};
pub use model::OpponentModel;
pub use worlds::{same_world, Keyed, Stored, WorldSet};

use crate::core::Color;
use crate::rules::{Hand, Position};
use crate::view::{Event, InfoState, Observation, View};
use expand::GATHERED_BYTES;
use lineage::{Anchor, Lineage, NODE_BYTES};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use resync::Ranking;
use std::time::{Duration, Instant};
use step::{after_bounce, after_own_move, OpponentStep};
use worlds::{NO_NODE, WORLD_BYTES};

/// How a set too large for the limits is cut down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truncation {
    /// Keep the heaviest worlds: the most probability mass the limit allows.
    Heaviest,
    /// Systematic resampling: every world survives in proportion to its weight.
    Systematic,
}

/// The belief's limits and choices; the protocol sets them from engine options.
#[derive(Clone, Debug)]
pub struct BeliefConfig {
    /// Memory for the worlds, checkpoints and lineage, in MiB (the engine gives the belief half
    /// of its `Hash` option).
    pub hash_mib: usize,
    /// The sample size: the worlds each checkpoint keeps, expanded heaviest first at an opponent
    /// ply, and the most a regeneration makes per level.
    pub max_worlds: usize,
    /// Most children one opponent update keeps; past it each parent draws a share of its
    /// consistent children in proportion to its weight.
    pub max_children: usize,
    /// Children gathered (as a parent and a move) per child kept; the heaviest are kept, their
    /// weights summed over the parents that reach them (1: keep all gathered).
    pub gathered_per_child: f64,
    /// Most work an opponent update may spend per child of `max_children`, in work units of
    /// about a nanosecond; lighter parents are expanded only while work is left.
    pub work_per_child: u64,
    /// Most milliseconds an opponent update spends gathering children, heaviest parents first
    /// (0: no deadline, so the result is the same on any machine; the engine sets a quarter of the
    /// move's time).
    pub expand_ms: u64,
    /// The share of an opponent update's work it spends at once; the lightest parents past it
    /// are expanded at the start of the next update, against the same observation.
    pub work_now_share: f64,
    /// Most moves a regeneration may look at before it gives up (the engine scales it to the
    /// move's time).
    pub regen_budget: usize,
    /// A sampled set smaller than this is topped up: once while it stays narrow by a replay from
    /// the older checkpoints (within an eighth of `regen_budget`, if `narrow_replay`), and each
    /// time from a checkpoint.
    pub min_worlds: usize,
    /// Top up a narrow sample once by a look-ahead replay from the older checkpoints (see
    /// `min_worlds`).
    pub narrow_replay: bool,
    /// Most moves a top-up may look at.
    pub rejuvenate_budget: usize,
    /// How many of the latest events a fallback world must agree with (at most).
    pub fallback_window: usize,
    /// How many of the latest sets (the set before each of the latest events) are kept to
    /// regenerate from once the set is no longer exact.
    pub checkpoint_depth: usize,
    /// How the opponent's hidden moves are weighted.
    pub model: OpponentModel,
    /// How a set too large is cut down.
    pub truncation: Truncation,
    /// Most children per opponent ply when replaying the events since the last exact set to be
    /// exact again (0: never try).
    pub resync_budget: usize,
    /// Most events since the last exact set for which a resync is tried; within twice this many
    /// a regeneration replays from the last exact set first, and within this many a top-up
    /// searches from it.
    pub resync_window: usize,
    /// Seed of the belief's random choices (sampling, regeneration).
    pub seed: u64,
    /// Keep each world's line of opponent moves: the last try before a fallback reroutes lines,
    /// and tests and `belief-eval` replay them to check the worlds handed out.
    pub lineage: bool,
}

impl Default for BeliefConfig {
    fn default() -> BeliefConfig {
        BeliefConfig {
            hash_mib: 160,
            max_worlds: 40_000,
            max_children: 165_000,
            gathered_per_child: 1.0,
            work_per_child: 220,
            expand_ms: 0,
            work_now_share: 0.7,
            regen_budget: 200_000_000,
            min_worlds: 256,
            narrow_replay: true,
            rejuvenate_budget: 100_000,
            fallback_window: 8,
            checkpoint_depth: 4,
            model: OpponentModel::Adaptive,
            truncation: Truncation::Heaviest,
            resync_budget: 0,
            resync_window: 24,
            seed: 0,
            lineage: true,
        }
    }
}

impl BeliefConfig {
    /// The sample size (`max_worlds`: expanded first, and kept by each checkpoint) and the most
    /// children it may make (`max_children`), as far as the memory budget allows them after the
    /// lineage's share ([`BeliefConfig::lineage_nodes`]): the set, its successor and the last
    /// exact set may each hold the children; every other checkpoint keeps at most the sample size.
    /// An expansion's recipes for its children, one per child, take about the room its builders
    /// took when they held the children's worlds (their second half was never counted: the peak
    /// heap of dark-crazyhouse game 618 was 282.0 MB before recipes and 200.9 MB with them, for
    /// two beliefs at 160 MiB); any more than one per child (`gathered_per_child`) are counted.
    pub fn limits(&self) -> (usize, usize) {
        let budget = self.hash_bytes() - self.lineage_nodes() * NODE_BYTES;
        let samples = self.checkpoint_depth + DEEP_KEPT;
        let per_child = 3 * WORLD_BYTES + ((self.gather() - 1.0) * GATHERED_BYTES as f64) as usize;
        let worlds = self.max_worlds.min(budget / (per_child + samples * WORLD_BYTES)).max(1);
        let children =
            self.max_children.min(budget.saturating_sub(samples * worlds * WORLD_BYTES) / per_child).max(worlds);
        (worlds, children)
    }

    /// The most lineage nodes the belief may hold: an eighth of `Hash` when it keeps lineage.
    /// (Its peak was 2.1 million nodes in 10 random games of dark-crazyhouse, 7.4 million while
    /// game 618 regenerated, before it was bounded.)
    pub fn lineage_nodes(&self) -> usize {
        if self.lineage {
            self.hash_bytes() / LINEAGE_SHARE / NODE_BYTES
        } else {
            0
        }
    }

    /// Children gathered per child kept: `gathered_per_child`, at least 1.
    fn gather(&self) -> f64 {
        self.gathered_per_child.max(1.0)
    }

    /// The `Hash` option in bytes.
    fn hash_bytes(&self) -> usize {
        self.hash_mib.max(1) << 20
    }
}

/// The lineage gets one part in this many of `Hash`.
const LINEAGE_SHARE: usize = 8;

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
    /// Regenerations from the history during this update.
    pub regenerated: usize,
    /// Fallbacks during this update: no world consistent with the whole history was found and
    /// the belief now holds worlds that agree with the latest view and the `fallback_events`
    /// events before it only.
    pub fallbacks: usize,
    /// How many events before the latest view the fallback worlds agree with.
    pub fallback_events: usize,
    /// Worlds added to a sample that had grown narrow.
    pub rejuvenated: usize,
    /// Times the belief got back to the exact set of consistent worlds.
    pub resynced: usize,
    /// Worlds made to show the latest view again after a fallback, when the fallback's worlds
    /// ran dry.
    pub repaired: usize,
    /// Times the belief got back onto the whole history after a fallback.
    pub reanchored: usize,
    /// True if the lines of the worlds held outgrew the lineage's share of `Hash` and were
    /// given up (the worlds stay; their lines can no longer be replayed or rerouted).
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

/// Events between deep checkpoints.
const DEEP_EVERY: usize = 12;
/// The share of the sample size an opponent ply expands first (the heaviest worlds; lighter ones
/// follow while room for children is left). A first round smaller than the sample gives the
/// heaviest more room each: dark-chess r-r, 150 games, truth_in_support 0.9743 with the whole
/// sample first, 0.9787 with four fifths (update p99 44.5 -> 41.6 ms); a sample cut to that size
/// too fell back more (crazyhouse r-r, 1,000 games: 10 fallbacks at 32,000, 6 at 40,000).
const FIRST_ROUND_SHARE: f64 = 0.8;
/// A narrow sample given a replay is given another once it has held this many times
/// `min_worlds` (a narrow spell has ended).
const NARROW_SPELL_ENDS: usize = 16;
/// Deep checkpoints kept.
const DEEP_KEPT: usize = 3;
/// An opponent update whose work bound is smaller than this (about 10 ms) does all its work at
/// once (`work_now_share` aside): it is short anyway (and dark-crazyhouse at a 2 MiB `Hash`, 3
/// random games, fell back once with a split, never without; not looked into further).
const SPLIT_MIN_WORK: u64 = 8_000_000;

/// A set of worlds saved at some point of the history, to regenerate from.
#[derive(Clone, Debug)]
struct Checkpoint {
    events: usize,
    set: WorldSet,
    /// True if the worlds are consistent with the whole history up to `events` (not made up by a
    /// fallback).
    anchored: bool,
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
    fallen_back: bool,
    lineage: Option<Lineage>,
    /// The share of a greedy mover in the [`OpponentModel::Adaptive`] mixture.
    greedy_share: f64,
    exact_checkpoint: Option<Checkpoint>,
    checkpoints: Vec<Checkpoint>,
    deep_checkpoints: Vec<Checkpoint>,
    rng: Xoshiro256PlusPlus,
    lost: usize,
    /// Events to wait before the next resync, and resyncs failed in a row.
    resync_wait: usize,
    resync_fails: u32,
    /// Opponent plies to wait before the next try to get back onto the whole history after a
    /// fallback, and tries failed in a row.
    reanchor_wait: usize,
    reanchor_fails: u32,
    /// True once a narrow sample has been given a replay (until it is wide again).
    narrow_replayed: bool,
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
            exact_checkpoint: None,
            checkpoints: Vec::new(),
            deep_checkpoints: Vec::new(),
            lost: 0,
            resync_wait: 0,
            resync_fails: 0,
            reanchor_wait: 0,
            reanchor_fails: 0,
            narrow_replayed: false,
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

    /// Takes the work and size limits of `limits` from the next update on, so that a caller with
    /// little time per move keeps the updates short: how many moves a regeneration and a top-up
    /// may look at, the sample size and the most children (at least one world, and as many
    /// children), and the expansion's deadline. The memory budget, model, seed and the rest stay
    /// as they were.
    pub fn set_limits(&mut self, limits: &BeliefConfig) {
        self.cfg.regen_budget = limits.regen_budget;
        self.cfg.rejuvenate_budget = limits.rejuvenate_budget;
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

    /// Applies the newest event of `history`.
    fn apply(&mut self, report: &mut UpdateReport) {
        let k = self.history.len() - 1;
        let prev = last_view(&self.initial_view, &self.history[..k]).clone();
        let side = self.side;
        let was_exact = self.exact;
        let next = match self.history[k].clone() {
            Event::Own { mv, obs } => after_own_move(&self.set, side, mv, &obs),
            Event::Opponent { obs } => {
                self.resample_parents(k, report);
                self.expand(&prev, &obs, report)
            }
            Event::Bounce { square } => after_bounce(&self.set, side, square),
        };
        let set = std::mem::replace(&mut self.set, next);
        let before = Checkpoint { events: k, set, anchored: !self.fallen_back };
        let seeds = before.set.head(64);
        let checkpoint_saved = self.exact_checkpoint.as_ref().is_some_and(|cp| cp.events == k);
        if was_exact && !self.exact && !checkpoint_saved {
            self.exact_checkpoint = Some(before);
        } else if !was_exact && self.cfg.checkpoint_depth > 0 {
            self.keep_checkpoint(before);
        }
        if self.set.is_empty() && self.fallen_back {
            // Already off the whole history: keep the worlds in line with the latest view.
            self.set = self.repaired_roots(&seeds, self.history.len());
            report.repaired += self.set.len();
        }
        if self.set.is_empty() {
            self.recover(&seeds, report);
        }
        let total = self.set.total_weight();
        self.set.normalize();
        if let Some(d) = self.deferred.as_mut() {
            d.scale = 1.0 / total;
        }
        self.try_resync(report);
        self.try_reanchor(report);
        self.rejuvenate(report);
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
        let expanded = expand::expand(
            &step,
            &self.set,
            first,
            expand::Room { gathered: (cap as f64 * self.cfg.gather()) as usize, kept: cap },
            effort,
            self.lineage.as_mut(),
            &mut self.rng,
        );
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
        let expanded = expand::expand(
            &step,
            &d.parents,
            usize::MAX,
            expand::Room::all(room),
            effort,
            self.lineage.as_mut(),
            &mut self.rng,
        );
        (set.merge_in(expanded.set, scale), d.completes && !expanded.cut)
    }

    /// With systematic truncation, resamples a set of more than `max_worlds` worlds before the
    /// opponent's ply is expanded (the set before event `k`); the first cut keeps the exact set
    /// as a checkpoint. (The heaviest are picked by the expansion itself, which goes on to
    /// lighter parents while its room lasts.)
    fn resample_parents(&mut self, k: usize, report: &mut UpdateReport) {
        let max = self.cfg.limits().0;
        if self.cfg.truncation != Truncation::Systematic || self.set.len() <= max {
            return;
        }
        if self.exact {
            self.exact_checkpoint = Some(Checkpoint { events: k, set: self.set.clone(), anchored: !self.fallen_back });
        }
        self.set.resample(max, &mut self.rng);
        self.exact = false;
        report.sampled = true;
    }

    /// Every checkpoint kept: recent, deep and the last exact set.
    fn all_checkpoints(&self) -> impl Iterator<Item = &Checkpoint> {
        self.checkpoints.iter().chain(&self.deep_checkpoints).chain(&self.exact_checkpoint)
    }

    /// Drops lineage nodes no world needs any more, when they pile up or come near the
    /// lineage's budget; if the lines of the worlds held would still leave no room for the next
    /// update's, the lineage is given up (its checks and rerouting with it), and `report` says so.
    fn collect_lineage(&mut self, report: &mut UpdateReport) {
        let live = self.set.len()
            + self.deferred.as_ref().map_or(0, |d| d.parents.len())
            + self.all_checkpoints().map(|c| c.set.len()).sum::<usize>();
        let room = self.lineage_room();
        if self.lineage.as_ref().is_none_or(|l| l.len() < (4 * live + 100_000).min(room)) {
            return;
        }
        let mut ids: Vec<u32> = self.set.nodes().to_vec();
        for c in self.all_checkpoints() {
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
        let checkpoints =
            self.checkpoints.iter_mut().chain(&mut self.deep_checkpoints).chain(&mut self.exact_checkpoint);
        for c in checkpoints {
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

    /// No world survived the newest event: regenerate by a depth-first search from the recent
    /// checkpoints (newest first), then by a guided beam from the older ones (newest first),
    /// each attempt getting half of its part of the budget left, then by rerouting the lines of
    /// the worlds held before the event; else fall back.
    fn recover(&mut self, seeds: &WorldSet, report: &mut UpdateReport) {
        let recent = std::mem::take(&mut self.checkpoints);
        let deep = std::mem::take(&mut self.deep_checkpoints);
        let exact = self.exact_checkpoint.take();
        // A quarter of the budget for the depth-first searches, the rest for the replays.
        let mut dfs_budget = self.cfg.regen_budget / 8;
        let mut last_budget = self.cfg.regen_budget / 4;
        let mut budget = self.cfg.regen_budget - dfs_budget - last_budget;
        let want = self.cfg.max_worlds.clamp(1, 1024);
        let mut anchored = !self.fallen_back;
        for cp in recent.iter().rev() {
            let (mut share, given) = (dfs_budget / 2, dfs_budget / 2);
            let found = self.search(&cp.set, cp.events, want, &mut share);
            dfs_budget -= given - share;
            if !found.is_empty() {
                (self.set, anchored) = (found, cp.anchored);
                break;
            }
        }
        if self.set.is_empty() {
            let older = self.older_sources(&deep, exact.as_ref(), false);
            let most = self.cfg.limits().1;
            if let Some((set, from_anchored, replayed_exact)) = self.replay_older(&older, most, &mut budget) {
                (self.set, anchored, self.exact) = (set, from_anchored, replayed_exact);
            }
        }
        if let Some(cp) = exact.as_ref().filter(|_| self.set.is_empty()) {
            // Last, a depth-first search from the last exact set however old.
            self.set = self.search(&cp.set, cp.events, want, &mut last_budget);
        }
        (self.checkpoints, self.deep_checkpoints, self.exact_checkpoint) = (recent, deep, exact);
        if self.set.is_empty() && anchored {
            let mut reroute_budget = self.cfg.regen_budget;
            self.set = self.reroute(seeds, want, &mut reroute_budget);
        }
        if self.set.is_empty() {
            self.fall_back(seeds, report);
        } else {
            // Regenerating from worlds a fallback made up stays a fallback; from anchored ones it
            // is back on the whole history.
            self.fallen_back = !anchored;
            report.regenerated += 1;
        }
    }

    /// The checkpoints older than the recent ones to replay from, with whether each is the last
    /// exact set: the deep ones newest first, and the last exact set first if recent enough, else
    /// last. With `anchored_only`, none that a fallback made up.
    fn older_sources<'c>(
        &self,
        deep: &'c [Checkpoint],
        exact: Option<&'c Checkpoint>,
        anchored_only: bool,
    ) -> Vec<(&'c Checkpoint, bool)> {
        let k = self.history.len();
        let recent_exact = exact.is_some_and(|cp| k - cp.events <= 2 * self.cfg.resync_window);
        let mut older: Vec<(&Checkpoint, bool)> =
            deep.iter().rev().filter(|cp| cp.anchored || !anchored_only).map(|cp| (cp, false)).collect();
        if let Some(cp) = exact.filter(|cp| cp.anchored || !anchored_only) {
            older.insert(if recent_exact { 0 } else { older.len() }, (cp, true));
        }
        older
    }

    /// Replays from each of `older` in turn (a particle filter that knows the later views, see
    /// [`Belief::replay_from`]) until one reaches the present: each gets half the budget left
    /// (the last all of it) and as many worlds per level as its share allows, up to the most
    /// children an update may make (of 8 games that fell back at 100 million moves, replays
    /// capped at the sample size kept none on the history, these 2). If every one dies, they are
    /// tried again in the same way, hedged ([`Ranking`]), on the budget left (replays that die
    /// early leave most of theirs). A level keeps at most `most` worlds. Returns the worlds
    /// found, whether their checkpoint was anchored, and whether they are every consistent world
    /// (replayed from the last exact set with nothing cut).
    fn replay_older(
        &mut self,
        older: &[(&Checkpoint, bool)],
        most: usize,
        budget: &mut usize,
    ) -> Option<(WorldSet, bool, bool)> {
        let cap = self.cfg.limits().1;
        for ranking in [Ranking::Nearest, Ranking::Hedged] {
            for (i, &(cp, is_exact)) in older.iter().enumerate() {
                let mut share = if i + 1 == older.len() { *budget } else { *budget / 2 };
                *budget -= share;
                let opponent_plies =
                    self.history[cp.events..].iter().filter(|e| matches!(e, Event::Opponent { .. })).count();
                let keep = (share / (opponent_plies.max(1) * resync::MOVES_PER_PARENT)).max(256).min(most).min(cap);
                let r = self.replay_from(&cp.set, cp.events, cap, Some((keep, ranking)), &mut share);
                *budget += share;
                if let Some(replayed) = r {
                    return Some((replayed.set, cp.anchored, is_exact && replayed.exact));
                }
            }
        }
        None
    }

    /// After a fallback, tries to get back onto the whole history by replaying from the
    /// anchored checkpoints left (the later views, more of them now, guide the replay), backing
    /// off after each failure (tries 2, 2, 4, 8, then 16 opponent plies apart).
    fn try_reanchor(&mut self, report: &mut UpdateReport) {
        let k = self.history.len();
        if !self.fallen_back || self.set.is_empty() || !matches!(self.history[k - 1], Event::Opponent { .. }) {
            return;
        }
        if self.reanchor_wait > 0 {
            self.reanchor_wait -= 1;
            return;
        }
        let found = self.replay_anchored(self.cfg.regen_budget / 2, self.cfg.limits().1);
        match found {
            Some((set, _, exact)) => {
                // Back on the whole history: the recent checkpoints were made up.
                (self.set, self.exact, self.fallen_back) = (set, exact, false);
                self.checkpoints.clear();
                self.reanchor_fails = 0;
                report.reanchored += 1;
            }
            None => {
                self.reanchor_fails += 1;
                self.reanchor_wait = (1usize << self.reanchor_fails.min(4)) - 1;
            }
        }
    }

    /// Keeps `cp` as the newest recent checkpoint; the one that leaves the recent ones becomes a
    /// deep checkpoint if the newest deep one is `DEEP_EVERY` events older.
    fn keep_checkpoint(&mut self, mut cp: Checkpoint) {
        // Regeneration needs roots, not every world: a checkpoint keeps the sample size.
        if cp.set.len() > self.cfg.limits().0 {
            cp.set.keep_heaviest(self.cfg.limits().0, &mut self.rng);
        }
        self.checkpoints.push(cp);
        if self.checkpoints.len() <= self.cfg.checkpoint_depth {
            return;
        }
        let old = self.checkpoints.remove(0);
        if self.deep_checkpoints.last().is_none_or(|d| d.events + DEEP_EVERY <= old.events) {
            self.deep_checkpoints.push(old);
            if self.deep_checkpoints.len() > DEEP_KEPT {
                // The oldest made up by a fallback goes first: anchored ones are the way back.
                let i = self.deep_checkpoints.iter().position(|c| !c.anchored).unwrap_or(0);
                self.deep_checkpoints.remove(i);
            }
        }
    }

    /// Tries to get back to the exact set after an opponent ply, backing off after each failure
    /// (1, 2, 4, ... 16 events).
    fn try_resync(&mut self, report: &mut UpdateReport) {
        let k = self.history.len();
        let window = self.exact_checkpoint.as_ref().map_or(usize::MAX, |cp| k - cp.events);
        if self.exact || self.cfg.resync_budget == 0 || window > self.cfg.resync_window {
            return;
        }
        if !matches!(self.history[k - 1], Event::Opponent { .. }) {
            return;
        }
        if self.resync_wait > 0 {
            self.resync_wait -= 1;
            return;
        }
        if self.resync(self.cfg.resync_budget) {
            self.deferred = None;
            self.resync_fails = 0;
            report.resynced += 1;
        } else {
            self.resync_fails += 1;
            self.resync_wait = (1usize << self.resync_fails.min(4)) - 1;
        }
    }

    /// Tops up a sampled set that has shrunk below `min_worlds` (a narrow sample is the one that
    /// runs dry): once while it stays narrow, with worlds replayed from the older checkpoints
    /// ([`Belief::narrow_replay`]); then, each time, with worlds found from the oldest checkpoint
    /// kept (the most varied one) by a depth-first search within `rejuvenate_budget`.
    fn rejuvenate(&mut self, report: &mut UpdateReport) {
        if self.exact || self.set.len() >= NARROW_SPELL_ENDS * self.cfg.min_worlds {
            self.narrow_replayed = false;
        }
        if self.exact || self.fallen_back || self.set.is_empty() || self.set.len() >= self.cfg.min_worlds {
            return;
        }
        if self.cfg.narrow_replay && !self.narrow_replayed {
            self.narrow_replayed = true;
            report.rejuvenated += self.narrow_replay();
            if self.set.len() >= self.cfg.min_worlds {
                return;
            }
        }
        let k = self.history.len();
        let from_exact = self.exact_checkpoint.as_ref().is_some_and(|cp| k - cp.events <= self.cfg.resync_window);
        let source = if from_exact {
            self.exact_checkpoint.take()
        } else if self.checkpoints.first().is_some_and(|c| c.anchored) {
            Some(self.checkpoints.remove(0))
        } else {
            None
        };
        let Some(cp) = source else { return };
        let mut budget = self.cfg.rejuvenate_budget;
        let found = self.search(&cp.set, cp.events, 4 * self.cfg.min_worlds, &mut budget);
        if from_exact {
            self.exact_checkpoint = Some(cp);
        } else {
            self.checkpoints.insert(0, cp);
        }
        let added = self.set.absorb(found);
        report.rejuvenated += added;
    }

    /// Adds to a narrow sample the worlds a replay from the older checkpoints finds (see
    /// [`Belief::replay_older`]: the later views guide it), within an eighth of `regen_budget`
    /// and at most a quarter of the sample size per level; returns how many were new. What it buys
    /// is a way back when a narrow sample later runs dry (a regeneration then starts from
    /// checkpoints as narrow): two dark-crazyhouse r-r games of 1,000 (seeds 156 and 618) fell
    /// back after 26-31 s of regeneration so, and with this replay neither did. It rarely brings
    /// the truth back: of 72 replays in 40 dark-crazyhouse r-r games the truth was already held in
    /// 59, regained in 3 (dark-chess, 65: 61 and 2), and more than half added no world.
    fn narrow_replay(&mut self) -> usize {
        let found = self.replay_anchored(self.cfg.regen_budget / 8, self.cfg.limits().0 / 4);
        found.map_or(0, |(set, _, _)| self.set.absorb(set))
    }

    /// [`Belief::replay_older`] from the anchored deep checkpoints and the last exact set, within
    /// `budget` moves and at most `most` worlds per level.
    fn replay_anchored(&mut self, mut budget: usize, most: usize) -> Option<(WorldSet, bool, bool)> {
        let deep = std::mem::take(&mut self.deep_checkpoints);
        let exact = self.exact_checkpoint.take();
        let older = self.older_sources(&deep, exact.as_ref(), true);
        let found = self.replay_older(&older, most, &mut budget);
        (self.deep_checkpoints, self.exact_checkpoint) = (deep, exact);
        found
    }

    /// Memory in use, in bytes (worlds, parents left for later, checkpoints and lineage).
    pub fn bytes(&self) -> usize {
        self.set.bytes()
            + self.deferred.as_ref().map_or(0, |d| d.parents.bytes())
            + self.all_checkpoints().map(|c| c.set.bytes()).sum::<usize>()
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
