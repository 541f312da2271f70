//! The opponent's hidden ply over a whole set of worlds: every world's consistent children,
//! merged, at most `cap` of them, computed in parallel chunks of parents when the set is large.
//! Children are gathered as recipes (a parent and a move) and built once merged.
//!
//! While the children so far, projected over the parents still to come, fit the room, every
//! parent adds all its children. Past that, each parent may add new children in proportion to its
//! share of the weight still to come in its chunk (and at least an even share of the room left),
//! so that a full set keeps children of every parent; children that are already held only gain
//! weight. A set larger than the sample size is expanded heaviest first: the sample, then
//! lighter parents in rounds while room is left (an observation that refutes most children
//! leaves room for many more parents).

use super::key_index::prefetch;
use super::lineage::Lineage;
use super::step::{ChildSink, OpponentStep};
use super::worlds::{BestFirst, Keyed, Stored, WorldBuilder, WorldSet, NO_NODE};
use crate::core::Move;
use crate::rules::Position;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::time::Instant;

/// Sets smaller than this are expanded on one thread.
const PARALLEL_MIN: usize = 4096;
/// Most chunks a set is expanded in at once (more threads than this split no further).
const MAX_CHUNKS: usize = 8;
/// An expansion stops taking rounds of parents when less than `1 / ROOM_LEFT` of its cap or
/// of its work budget is left.
const ROOM_LEFT: usize = 16;
/// Children per parent to make room for at first.
const CHILDREN_GUESS: usize = 8;
/// How many parents ahead an expansion starts fetching a parent's world.
const PREFETCH_AHEAD: usize = 4;
/// The first chunk's set has room for the cap and a `1 / CAP_SLACK` more: expansions at the cap
/// end a few children over it, and growing the merged set would copy all of it.
const CAP_SLACK: usize = 64;
/// Most rounds of parents one expansion takes (the heaviest, then lighter ones while room is left).
const MAX_ROUNDS: usize = 4;
/// Children an expansion gathers, past its deadline, before it stops.
const DEADLINE_FLOOR: usize = 1024;
/// Parents a chunk expands between two looks at the clock.
const CLOCK_EVERY: usize = 32;
/// Work units a child gathered costs after the gathering (merged and built), counted against
/// the work to spend now ([`Effort::now`]): an expansion that keeps many children per parent
/// spends much of its time there.
const SETTLE_WORK: u64 = 130;

/// What an expansion may spend.
#[derive(Clone, Copy, Debug)]
pub struct Effort {
    /// Most work units ([`Looked::work`](super::step::Looked::work)) for the rounds after the
    /// first (which always runs, up to the deadline).
    pub work: u64,
    /// When the gathering stops, heaviest parents first, so the lightest are the ones left out
    /// (once at least `DEADLINE_FLOOR` children are gathered); `None`: no deadline.
    pub deadline: Option<Instant>,
    /// Most work units spent now: the parents the expansion would go on to past it are handed
    /// back ([`Expanded::deferred`]) for the caller to expand later. `u64::MAX`: no split.
    pub now: u64,
}

impl Effort {
    /// No bound at all.
    pub fn unbounded() -> Effort {
        Effort { work: u64::MAX, deadline: None, now: u64::MAX }
    }

    /// True if the deadline has passed.
    fn late(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// A child gathered but not yet built: its parent's place in the parents' set and the move.
#[derive(Clone, Copy, Debug)]
struct Recipe {
    parent: u32,
    mv: Move,
}

impl Stored for Recipe {}

/// The children of one chunk of parents, as recipes.
#[derive(Default)]
struct Chunk {
    builder: WorldBuilder<Recipe>,
    cut: bool,
    /// True if the deadline stopped it before its last parent.
    late: bool,
    /// Parents expanded.
    expanded: usize,
    /// True if it stopped, its share of the work now spent, leaving the rest for later.
    split: bool,
    likelihood: Likelihood,
    work: u64,
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

/// The sink for the parent at hand (of weight `weight`, at `parent` in the parents' set): at
/// most `quota` new children.
struct ChunkSink<'a> {
    chunk: &'a mut Chunk,
    quota: usize,
    weight: f64,
    parent: u32,
}

impl ChildSink for ChunkSink<'_> {
    fn quota(&self, n: usize) -> usize {
        n.min(self.quota)
    }
    fn prefetch(&self, key: u64) {
        self.chunk.builder.prefetch(key);
    }
    fn take(&mut self, key: u64, _child: impl FnOnce() -> Position, mv: Move, p: f64) {
        let recipe = Recipe { parent: self.parent, mv };
        self.chunk.builder.add_with(key, || recipe, self.weight * p, || NO_NODE);
    }
}

/// Expands the parents at `indices`, adding at most about `cap` new children, stopping at the
/// deadline of `effort` once it has `floor` children, and once it has spent `now` work units.
fn expand_chunk(
    step: &OpponentStep,
    parents: &WorldSet,
    indices: &[usize],
    (cap, room, floor): (usize, usize, usize),
    (effort, now): (Effort, u64),
    seed: u64,
) -> Chunk {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let count = indices.len();
    let mut chunk = Chunk { builder: WorldBuilder::with_capacity(room), ..Chunk::default() };
    let mut remaining: f64 = indices.iter().map(|&i| parents.weights()[i]).sum();
    for (done, &i) in indices.iter().enumerate() {
        if done % CLOCK_EVERY == 0 && chunk.builder.len() >= floor && effort.late() {
            (chunk.cut, chunk.late) = (true, true);
            break;
        }
        if chunk.work + SETTLE_WORK * chunk.builder.len() as u64 >= now {
            chunk.split = true;
            break;
        }
        chunk.expanded = done + 1;
        // Parents come in weight order, scattered over memory: fetch a few ahead.
        if let Some(&ahead) = indices.get(done + PREFETCH_AHEAD) {
            prefetch(&parents.worlds()[ahead]);
            prefetch(&parents.keys()[ahead]);
            prefetch(&parents.weights()[ahead]);
            prefetch(&parents.nodes()[ahead]);
        }
        let weight = parents.weights()[i];
        let room = cap.saturating_sub(chunk.builder.len());
        // No quota while the children so far, projected over the parents left, fit the room;
        // else a share of the room in proportion to weight, but never less than an even share.
        let projected = chunk.builder.len() as f64 / done.max(1) as f64 * (count - done) as f64;
        let even = room / (count - done);
        let weighted = (room as f64 * weight / remaining.max(f64::MIN_POSITIVE)).ceil() as usize;
        let quota = if projected <= room as f64 { usize::MAX } else { weighted.max(even).max(1) };
        remaining -= weight;
        let mut sink = ChunkSink { chunk: &mut chunk, quota, weight, parent: i as u32 };
        let looked = step.children(&parents.worlds()[i], parents.keys()[i], &mut sink, &mut rng);
        chunk.cut |= looked.left_out;
        chunk.work += looked.work();
        chunk.likelihood.uniform += weight * looked.uniform;
        chunk.likelihood.greedy += weight * looked.greedy;
    }
    chunk
}

/// The parents chunk `t` of `threads` expands: every `threads`-th one. Sets come heaviest first,
/// and each chunk has the same room, which should go to parents of every weight alike.
fn chunk_parents(parents: &[usize], threads: usize, t: usize) -> Vec<usize> {
    parents.iter().skip(t).step_by(threads).copied().collect()
}

/// What [`expand`] made: the children, whether some were left out, and how likely the
/// observation was under a uniform and a greedy mover.
pub struct Expanded {
    /// The children.
    pub set: WorldSet,
    /// True if some consistent children were left out (or some parents not expanded), those
    /// of the parents left for later aside.
    pub cut: bool,
    /// The observation's chance under each mover.
    pub likelihood: Likelihood,
    /// The parents left for later (see [`Effort::now`]), by their places in the parents' set.
    pub deferred: Vec<usize>,
}

/// The children gathered so far, chunk by chunk, before they are merged.
#[derive(Default)]
struct Rounds {
    builders: Vec<WorldBuilder<Recipe>>,
    made: usize,
    cut: bool,
    late: bool,
    likelihood: Likelihood,
    work: u64,
    /// Parents left for later, their chunks having spent their share of the work now.
    deferred: Vec<usize>,
}

impl Rounds {
    /// Expands the parents at `indices` in parallel chunks, adding at most about `cap` children
    /// (each chunk stopping at the deadline of `effort` once it holds its share of the floor).
    fn expand(
        &mut self,
        step: &OpponentStep,
        parents: &WorldSet,
        indices: &[usize],
        cap: usize,
        effort: Effort,
        rng: &mut impl Rng,
    ) {
        let threads = if indices.len() >= PARALLEL_MIN { rayon::current_num_threads().clamp(1, MAX_CHUNKS) } else { 1 };
        let seeds: Vec<u64> = (0..threads).map(|_| rng.gen()).collect();
        let chunk_cap = cap.div_ceil(threads);
        let floor = DEADLINE_FLOOR.saturating_sub(self.made).div_ceil(threads);
        let now = match effort.now {
            u64::MAX => u64::MAX,
            now => now.saturating_sub(self.work + SETTLE_WORK * self.made as u64).div_ceil(threads as u64),
        };
        let chunks: Vec<(Chunk, Vec<usize>)> = seeds
            .into_par_iter()
            .enumerate()
            .map(|(t, seed)| {
                let mine = chunk_parents(indices, threads, t);
                // Room for the children up front (growing a large set copies it and rebuilds its
                // index); the very first chunk's set becomes the merged one, so it gets room for all,
                // and a little more: the last parents may overshoot the cap by a few children.
                let first = t == 0 && self.builders.is_empty();
                let (room, guess) =
                    if first { (cap + cap / CAP_SLACK, indices.len()) } else { (chunk_cap, mine.len()) };
                let room = room.min(guess * CHILDREN_GUESS);
                (expand_chunk(step, parents, &mine, (chunk_cap, room, floor), (effort, now), seed), mine)
            })
            .collect();
        for (chunk, mine) in chunks {
            if chunk.split {
                self.deferred.extend_from_slice(&mine[chunk.expanded..]);
            }
            self.cut |= chunk.cut;
            self.late |= chunk.late;
            self.likelihood.uniform += chunk.likelihood.uniform;
            self.likelihood.greedy += chunk.likelihood.greedy;
            self.made += chunk.builder.len();
            self.work += chunk.work;
            self.builders.push(chunk.builder);
        }
    }
}

/// The consistent children of the worlds of `parents` (weighted by parent weight times move
/// chance): about `cap` distinct ones at most. At most `max_parents` of the heaviest parents are
/// expanded first; while room is left, lighter ones follow, in rounds sized by the children per
/// parent so far (an observation that refutes most children leaves room for many more parents),
/// and while their work in all stays within `effort` (the first round always runs). With a
/// deadline, parents always go heaviest first, so that when it passes the gathering stops leaving
/// out the lightest; so they do when the work to spend now is bounded (`effort.now`), and the
/// parents left then are handed back. Lineage ids are extended in `lineage` if one is kept.
pub fn expand(
    step: &OpponentStep,
    parents: &WorldSet,
    max_parents: usize,
    cap: usize,
    effort: Effort,
    lineage: Option<&mut Lineage>,
    rng: &mut impl Rng,
) -> Expanded {
    let work_budget = effort.work;
    let mut rounds = Rounds::default();
    if parents.len() <= max_parents && effort.deadline.is_none() && effort.now == u64::MAX {
        let all: Vec<usize> = (0..parents.len()).collect();
        rounds.expand(step, parents, &all, cap, effort, rng);
    } else {
        let mut order = BestFirst::new(parents, rng, |_, weight| weight);
        let mut batch = max_parents;
        let mut expanded = 0;
        for _ in 0..MAX_ROUNDS {
            let indices = order.next(batch);
            expanded += indices.len();
            rounds.expand(step, parents, &indices, cap.saturating_sub(rounds.made), effort, rng);
            let room = cap.saturating_sub(rounds.made);
            let work_left = work_budget.saturating_sub(rounds.work);
            if order.remaining() == 0
                || room < cap / ROOM_LEFT
                || work_left < work_budget / ROOM_LEFT as u64
                || rounds.late
            {
                break;
            }
            // Fill most of the room left at the rate seen so far, as far as the work left allows.
            let done = expanded - rounds.deferred.len();
            let per_parent = (rounds.made as f64 / done.max(1) as f64).max(0.05);
            let work_per_parent = rounds.work as f64 / done.max(1) as f64;
            let affordable = work_left as f64 / work_per_parent;
            batch = ((0.8 * room as f64 / per_parent).min(affordable) as usize).max(256);
            if !rounds.deferred.is_empty() {
                // The work now is spent: leave for later the parents the rounds would go on to.
                let more = batch.saturating_sub(rounds.deferred.len());
                rounds.deferred.extend(order.next(more));
                break;
            }
        }
        rounds.cut |= order.remaining() > 0;
    }
    let Rounds { builders, cut, likelihood, deferred, .. } = rounds;
    let recipes = WorldBuilder::merge(builders);
    Expanded { set: build(recipes, parents, lineage), cut, likelihood, deferred }
}

/// The children `recipes` stand for, with their lines extended in `lineage` if one is kept.
fn build(recipes: Keyed<Recipe>, parents: &WorldSet, lineage: Option<&mut Lineage>) -> WorldSet {
    let nodes: Vec<u32> = match lineage {
        Some(l) => recipes.worlds().iter().map(|r| l.step(parents.nodes()[r.parent as usize], r.mv)).collect(),
        None => vec![NO_NODE; recipes.len()],
    };
    let mut set = recipes.map_worlds(|r| {
        let mut child = parents.worlds()[r.parent as usize].clone();
        child.play_unchecked(r.mv);
        child
    });
    set.set_nodes(&mut nodes.into_iter());
    debug_assert!(set.worlds().iter().zip(set.keys()).all(|(w, &k)| w.fits_key(k)), "a child's key is stale");
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::belief::OpponentModel;
    use crate::core::{Color, Variant};
    use crate::view::{Observation, View};

    /// Three worlds after 1. e4, Black to move, alike in White's view: the knight on b8 or c6,
    /// the h-pawn on h7 or h6. The last two reach the same child (...Nc6 from one, ...h6 from the
    /// other), and every other child has one parent.
    fn parents_sharing_a_child() -> (WorldSet, Position) {
        let fen = |f: &str| Position::from_fen(Variant::DarkChess, f).expect("a legal FEN");
        let mut builder = WorldBuilder::new();
        for f in [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "rnbqkbnr/ppppppp1/7p/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "r1bqkbnr/pppppppp/2n5/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        ] {
            let pos = fen(f);
            builder.add(pos.repetition_key(), pos, 1.0, || NO_NODE);
        }
        (builder.finish(), fen("r1bqkbnr/ppppppp1/2n4p/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2"))
    }

    #[test]
    fn a_child_reached_from_two_parents_gets_both_their_weights() {
        let (parents, shared) = parents_sharing_a_child();
        let prev = View::of(&parents.worlds()[0], Color::White);
        let obs = Observation { view: View::of(&shared, Color::White), captured: None, try_armed: false };
        assert_eq!(prev, obs.view, "the shared child's moves are hidden from White");
        let step = OpponentStep::new(&prev, &obs, OpponentModel::Uniform, 0.0);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let all = expand(&step, &parents, usize::MAX, 1_000, Effort::unbounded(), None, &mut rng);
        assert!(!all.cut && all.set.len() > 30, "every hidden reply of every parent: {}", all.set.len());
        let at = all.set.find(&shared).expect("the shared child is a child");
        let heaviest = all.set.weights().iter().copied().fold(0.0, f64::max);
        assert_eq!(all.set.weights()[at], heaviest);
        assert_eq!(all.set.weights().iter().filter(|&&w| w == heaviest).count(), 1, "and it alone");
    }

    /// A rank in FEN: pieces as they are, runs of empty squares ('.') as their length.
    fn fen_row(cells: &[char; 8]) -> String {
        let mut row = String::new();
        for run in cells.chunk_by(|a, b| (*a == '.') == (*b == '.')) {
            if run[0] == '.' {
                row += &run.len().to_string();
            } else {
                row.extend(run);
            }
        }
        row
    }

    /// 2,304 worlds alike in White's view, Black to move: White's army at home, Black's pawns on
    /// their 7th or 6th rank and knights at home or out, none of it seen; lightest first.
    fn parents_in_the_fog() -> WorldSet {
        let mut builder = WorldBuilder::new();
        let mut weight = 1.0;
        for pawns in 0..256u32 {
            for knights in 0..9 {
                let mut ranks = [['.'; 8]; 3]; // ranks 8, 7 and 6
                ranks[0] = ['r', '.', 'b', 'q', 'k', 'b', '.', 'r'];
                for file in 0..8 {
                    ranks[if pawns >> file & 1 == 1 { 2 } else { 1 }][file] = 'p';
                }
                for (i, (home, out)) in [(1, [0, 2]), (6, [5, 7])].into_iter().enumerate() {
                    let at = [knights / 3, knights % 3][i];
                    if at == 0 {
                        ranks[0][home] = 'n';
                    } else {
                        ranks[2][out[at - 1]] = 'n';
                    }
                }
                let fen = format!(
                    "{}/{}/{}/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
                    fen_row(&ranks[0]),
                    fen_row(&ranks[1]),
                    fen_row(&ranks[2])
                );
                let pos = Position::from_fen(Variant::DarkChess, &fen).expect("a legal FEN");
                builder.add(pos.repetition_key(), pos, weight, || NO_NODE);
                weight *= 1.01;
            }
        }
        builder.finish()
    }

    #[test]
    fn past_its_deadline_an_expansion_keeps_the_children_of_its_heaviest_parents() {
        let parents = parents_in_the_fog();
        assert_eq!(parents.len(), 2304);
        let prev = View::of(&parents.worlds()[0], Color::White);
        assert!(parents.worlds().iter().all(|w| View::of(w, Color::White) == prev), "the parents look alike");
        let obs = Observation { view: prev.clone(), captured: None, try_armed: false };
        let step = OpponentStep::new(&prev, &obs, OpponentModel::Uniform, 0.0);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let room = 1_000_000;
        let all = expand(&step, &parents, usize::MAX, room, Effort::unbounded(), None, &mut rng);
        assert!(!all.cut && all.set.len() > 20_000, "{} children", all.set.len());
        let past = Effort { deadline: Some(Instant::now()), ..Effort::unbounded() };
        let late = expand(&step, &parents, usize::MAX, room, past, None, &mut rng);
        assert!(late.cut, "children were left out");
        let n = late.set.len();
        assert!((DEADLINE_FLOOR..all.set.len() / 4).contains(&n), "{n} children of {}", all.set.len());
        // Heaviest parents first: the children kept hold far more of the weight than of the count.
        let mass = |set: &WorldSet| set.weights().iter().sum::<f64>();
        let (weight_share, count_share) = (mass(&late.set) / mass(&all.set), n as f64 / all.set.len() as f64);
        assert!(
            weight_share > 5.0 * count_share,
            "{weight_share:.3} of the weight in {count_share:.3} of the children"
        );
        for (key, world) in late.set.keys().iter().zip(late.set.worlds()) {
            assert!(all.set.find(world).is_some() && *key == world.repetition_key(), "a child of no parent");
        }
    }

    #[test]
    fn with_its_work_now_spent_an_expansion_leaves_its_lightest_parents_for_later() {
        let parents = parents_in_the_fog();
        let prev = View::of(&parents.worlds()[0], Color::White);
        let obs = Observation { view: prev.clone(), captured: None, try_armed: false };
        let step = OpponentStep::new(&prev, &obs, OpponentModel::Uniform, 0.0);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let room = 1_000_000;
        let all = expand(&step, &parents, usize::MAX, room, Effort::unbounded(), None, &mut rng);
        assert!(all.deferred.is_empty(), "nothing is left for later without a split");
        let split = Effort { now: all_work(&step, &parents) / 4, ..Effort::unbounded() };
        let now = expand(&step, &parents, usize::MAX, room, split, None, &mut rng);
        let n = now.deferred.len();
        assert!((parents.len() / 2..parents.len()).contains(&n), "{n} of {} parents left", parents.len());
        assert!(!now.cut, "nothing left out for good");
        let expanded: Vec<usize> = (0..parents.len()).filter(|i| !now.deferred.contains(i)).collect();
        let lightest_expanded = expanded.iter().map(|&i| parents.weights()[i]).fold(f64::MAX, f64::min);
        assert!(now.deferred.iter().all(|&i| parents.weights()[i] <= lightest_expanded), "a heavier parent left");
        // The parents left, expanded later, give the rest of the children, with the same weights.
        let later =
            expand(&step, &parents.subset(&now.deferred), usize::MAX, room, Effort::unbounded(), None, &mut rng);
        let mut merged = now.set;
        merged.merge_in(later.set, 1.0);
        assert_eq!(merged.len(), all.set.len());
        for (world, weight) in merged.iter() {
            let at = all.set.find(world).expect("a child of the whole expansion");
            assert!(
                (all.set.weights()[at] - weight).abs() <= 1e-12 * weight,
                "{weight} against {}",
                all.set.weights()[at]
            );
        }
    }

    /// A sink that takes every child and keeps none.
    struct Discard;

    impl ChildSink for Discard {
        fn take(&mut self, _key: u64, _child: impl FnOnce() -> Position, _mv: Move, _weight: f64) {}
    }

    /// The work units of expanding every parent of `parents` in `step`.
    fn all_work(step: &OpponentStep, parents: &WorldSet) -> u64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
        let mut sink = Discard;
        parents.worlds().iter().zip(parents.keys()).map(|(w, &k)| step.children(w, k, &mut sink, &mut rng).work()).sum()
    }

    #[test]
    fn every_chunk_gets_parents_of_every_weight_alike() {
        // A set heaviest first, its weights falling off steeply.
        let weights: Vec<f64> = (0..10_000).map(|i| 0.999f64.powi(i)).collect();
        let total: f64 = weights.iter().sum();
        for threads in 2..=8 {
            let mut seen = vec![0; weights.len()];
            for t in 0..threads {
                let all: Vec<usize> = (0..weights.len()).collect();
                let chunk = chunk_parents(&all, threads, t);
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
