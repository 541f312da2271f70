//! The store of worlds: true positions with their keys, weights and lineage ids, deduplicated
//! by key, and the ways of cutting a set down.

use super::key_index::KeyIndex;
use crate::core::hash::GOLDEN_GAMMA;
use crate::core::{Color, Role};
use crate::rules::Position;
use rand::Rng;
use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Sets smaller than this are mapped on one thread.
const PARALLEL_MIN: usize = 4096;
/// Keys per parallel task when merged builders look up each other's keys.
const MERGE_CHUNK: usize = 4096;
/// How many keys ahead a merge starts fetching a key's slots.
const MERGE_PREFETCH_AHEAD: usize = 8;

/// A lineage id meaning "no lineage kept".
pub(crate) const NO_NODE: u32 = u32::MAX;

/// True if two worlds are the same position, move counters aside.
pub fn same_world(a: &Position, b: &Position) -> bool {
    a.by_color(Color::White) == b.by_color(Color::White)
        && a.by_color(Color::Black) == b.by_color(Color::Black)
        && Role::ALL.iter().all(|&r| a.by_role(r) == b.by_role(r))
        && a.promoted() == b.promoted()
        && a.hand(Color::White) == b.hand(Color::White)
        && a.hand(Color::Black) == b.hand(Color::Black)
        && a.turn() == b.turn()
        && a.castling() == b.castling()
        && a.ep_square() == b.ep_square()
}

/// A cheap hasher for keys made of a few well-mixed words (Zobrist keys, bitboards): each word
/// is folded in with one multiplication.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u8(&mut self, x: u8) {
        self.write_u64(x as u64);
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(26) ^ x).wrapping_mul(GOLDEN_GAMMA);
    }
}

/// A hash map keyed by a few well-mixed words.
pub(crate) type WordMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// Bytes one stored world costs, index entry included (for the memory budget).
pub const WORLD_BYTES: usize = std::mem::size_of::<Position>() + 8 + 8 + 4 + 24;

/// What a set or builder stores for each world: the world itself, or a recipe that makes it
/// (an expansion gathers its children as recipes and builds only the ones it keeps).
pub trait Stored: Clone + Send + Sync {
    /// False if `key` is surely not this item's world key (checked in debug builds).
    fn fits_key(&self, _key: u64) -> bool {
        true
    }
}

impl Stored for Position {
    fn fits_key(&self, key: u64) -> bool {
        self.repetition_key() == key
    }
}

/// Worlds (or recipes for them, see [`Stored`]) with their keys, weights (not necessarily
/// normalized) and lineage ids.
#[derive(Clone, Debug)]
pub struct Keyed<T> {
    worlds: Vec<T>,
    keys: Vec<u64>,
    weights: Vec<f64>,
    nodes: Vec<u32>,
}

/// Worlds with their keys, weights and lineage ids: what the belief holds.
pub type WorldSet = Keyed<Position>;

impl<T> Default for Keyed<T> {
    fn default() -> Keyed<T> {
        Keyed { worlds: Vec::new(), keys: Vec::new(), weights: Vec::new(), nodes: Vec::new() }
    }
}

impl WorldSet {
    /// A set holding one world of weight 1.
    pub fn single(pos: Position, node: u32) -> WorldSet {
        WorldSet { keys: vec![pos.repetition_key()], worlds: vec![pos], weights: vec![1.0], nodes: vec![node] }
    }

    /// Index of the world equal to `pos` (move counters aside), if the set holds it.
    pub fn find(&self, pos: &Position) -> Option<usize> {
        let key = pos.repetition_key();
        (0..self.len()).find(|&i| self.keys[i] == key && same_world(&self.worlds[i], pos))
    }
}

impl<T: Stored> Keyed<T> {
    /// An empty set with room for `n` worlds before it grows (growing a large set copies it).
    fn with_capacity(n: usize) -> Keyed<T> {
        Keyed {
            worlds: Vec::with_capacity(n),
            keys: Vec::with_capacity(n),
            weights: Vec::with_capacity(n),
            nodes: Vec::with_capacity(n),
        }
    }

    /// Makes room for `n` more worlds.
    fn reserve(&mut self, n: usize) {
        self.worlds.reserve_exact(n);
        self.keys.reserve_exact(n);
        self.weights.reserve_exact(n);
        self.nodes.reserve_exact(n);
    }

    /// Number of worlds.
    pub fn len(&self) -> usize {
        self.worlds.len()
    }

    /// True if the set holds no world.
    pub fn is_empty(&self) -> bool {
        self.worlds.is_empty()
    }

    /// The worlds.
    pub fn worlds(&self) -> &[T] {
        &self.worlds
    }

    /// The worlds' keys, in the order of [`Keyed::worlds`].
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// The weights, in the order of [`Keyed::worlds`].
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// The lineage ids, in the order of [`Keyed::worlds`].
    pub fn nodes(&self) -> &[u32] {
        &self.nodes
    }

    /// The lineage ids, to renumber in place.
    pub fn nodes_mut(&mut self) -> &mut [u32] {
        &mut self.nodes
    }

    /// Iterates over (world, weight).
    pub fn iter(&self) -> impl Iterator<Item = (&T, f64)> {
        self.worlds.iter().zip(self.weights.iter().copied())
    }

    /// Sum of the weights.
    pub fn total_weight(&self) -> f64 {
        self.weights.iter().sum()
    }

    /// Rescales the weights to sum to 1 (or makes them uniform if they sum to nothing).
    pub fn normalize(&mut self) {
        let total = self.total_weight();
        let n = self.weights.len() as f64;
        for w in &mut self.weights {
            *w = if total > 0.0 && total.is_finite() { *w / total } else { 1.0 / n };
        }
    }

    /// The worlds `keep` accepts (it returns the new key, with a scratch value made by `init`
    /// for each thread), each made anew by `make`, with the weights and lineage ids of the old.
    /// Only the kept worlds are written, straight into the new set (a filter that built every
    /// world into a buffer first spent a third of a large own-move update copying them).
    pub fn filter_remake<S>(
        &self,
        init: impl Fn() -> S + Sync,
        keep: impl Fn(&mut S, &T, u64) -> Option<u64> + Sync,
        make: impl Fn(&T) -> T + Sync + Send,
    ) -> Keyed<T> {
        let test = |scratch: &mut S, i: usize| keep(scratch, &self.worlds[i], self.keys[i]).map(|k| (i as u32, k));
        let kept: Vec<(u32, u64)> = if self.len() >= PARALLEL_MIN {
            (0..self.len()).into_par_iter().map_init(&init, test).flatten_iter().collect()
        } else {
            let mut scratch = init();
            (0..self.len()).filter_map(|i| test(&mut scratch, i)).collect()
        };
        let mut out = Keyed::with_capacity(kept.len());
        if kept.len() >= PARALLEL_MIN {
            out.worlds.par_extend(kept.par_iter().map(|&(i, _)| make(&self.worlds[i as usize])));
        } else {
            out.worlds.extend(kept.iter().map(|&(i, _)| make(&self.worlds[i as usize])));
        }
        out.keys.extend(kept.iter().map(|&(_, k)| k));
        out.weights.extend(kept.iter().map(|&(i, _)| self.weights[i as usize]));
        out.nodes.extend(kept.iter().map(|&(i, _)| self.nodes[i as usize]));
        out
    }

    /// Indices of `n` draws by systematic resampling (one random offset, `n` even strides), in
    /// index order. Heavy worlds come back several times; light ones by chance.
    pub fn systematic(&self, n: usize, rng: &mut impl Rng) -> Vec<usize> {
        let total = self.total_weight();
        if self.worlds.is_empty() || n == 0 || total <= 0.0 {
            return Vec::new();
        }
        let step = total / n as f64;
        let mut next = rng.gen::<f64>() * step;
        let mut picks = Vec::with_capacity(n);
        let mut acc = 0.0;
        for (i, &w) in self.weights.iter().enumerate() {
            acc += w;
            while next < acc && picks.len() < n {
                picks.push(i);
                next += step;
            }
        }
        while picks.len() < n {
            picks.push(self.worlds.len() - 1);
        }
        picks
    }

    /// The worlds at `indices` (ascending), each with `weight(i, count)` where `count` is how
    /// often the index occurs.
    fn select(&self, indices: &[usize], weight: impl Fn(usize, usize) -> f64) -> Keyed<T> {
        let mut out = Keyed::with_capacity(indices.len());
        let mut i = 0;
        while i < indices.len() {
            let at = indices[i];
            let count = indices[i..].iter().take_while(|&&j| j == at).count();
            out.worlds.push(self.worlds[at].clone());
            out.keys.push(self.keys[at]);
            out.weights.push(weight(at, count));
            out.nodes.push(self.nodes[at]);
            i += count;
        }
        out
    }

    /// The worlds at `indices` (distinct, in any order), with their weights, in index order.
    pub fn subset(&self, indices: &[usize]) -> Keyed<T> {
        let mut sorted = indices.to_vec();
        sorted.sort_unstable();
        self.select(&sorted, |at, _| self.weights[at])
    }

    /// Adds the worlds of `other`, their weights times `scale`: a world this set holds gains
    /// its weight, a new one is appended. Returns how many were new.
    pub fn merge_in(&mut self, other: Keyed<T>, scale: f64) -> usize {
        let mut at: WordMap<u64, usize> = other.keys.iter().enumerate().map(|(i, &k)| (k, i)).collect();
        let mut fresh = vec![true; other.len()];
        for (key, weight) in self.keys.iter().zip(self.weights.iter_mut()) {
            if let Some(i) = at.remove(key) {
                *weight += other.weights[i] * scale;
                fresh[i] = false;
            }
        }
        let added = at.len();
        self.reserve(added);
        let Keyed { worlds, keys, weights, nodes } = other;
        let items = worlds.into_iter().zip(keys).zip(weights).zip(nodes).zip(fresh);
        for ((((world, key), weight), node), _) in items.filter(|&(_, new)| new) {
            self.worlds.push(world);
            self.keys.push(key);
            self.weights.push(weight * scale);
            self.nodes.push(node);
        }
        added
    }

    /// Shrinks the set to its `n` heaviest worlds (ties broken at random), keeping their weights
    /// (then normalized) and their order: in place, with no sorting, as a checkpoint of a large
    /// set needs. Returns true if anything was dropped.
    pub fn keep_heaviest(&mut self, n: usize, rng: &mut impl Rng) -> bool {
        if self.len() <= n {
            return false;
        }
        let mut scored = self.scored(rng, |_, weight| weight);
        scored.select_nth_unstable_by(n, best_first);
        let mut kept: Vec<usize> = scored[..n].iter().map(|&(_, _, i)| i).collect();
        kept.sort_unstable();
        // Ascending, so each kept world moves down to a slot whose world is dropped or moved.
        for (to, &from) in kept.iter().enumerate() {
            self.worlds.swap(to, from);
            self.keys[to] = self.keys[from];
            self.weights[to] = self.weights[from];
            self.nodes[to] = self.nodes[from];
        }
        self.worlds.truncate(n);
        self.keys.truncate(n);
        self.weights.truncate(n);
        self.nodes.truncate(n);
        self.worlds.shrink_to_fit();
        self.keys.shrink_to_fit();
        self.weights.shrink_to_fit();
        self.nodes.shrink_to_fit();
        self.normalize();
        true
    }

    /// Shrinks the set to the `n` worlds of highest `score(world, weight)` (ties broken at
    /// random), best first, keeping their weights. Returns true if anything was dropped.
    pub fn keep_best(&mut self, n: usize, rng: &mut impl Rng, score: impl Fn(&T, f64) -> f64) -> bool {
        let cut = self.len() > n;
        let picks = BestFirst::new(self, rng, score).next(n);
        self.keep_picks(&picks);
        cut
    }

    /// Shrinks the set to `n` worlds: the `n / 2` of highest `first` score, then those of highest
    /// `second` score among the others (ties broken at random), keeping their weights: a hedge
    /// for when one score alone misleads. Returns true if anything was dropped.
    pub fn keep_best_of_two(
        &mut self,
        n: usize,
        rng: &mut impl Rng,
        first: impl Fn(&T, f64) -> f64,
        second: impl Fn(&T, f64) -> f64,
    ) -> bool {
        if self.len() <= n {
            return self.keep_best(n, rng, first);
        }
        let half = n / 2;
        let mut order = self.scored(rng, first);
        order.select_nth_unstable_by(half, best_first);
        let mut rest: Vec<(f64, u64, usize)> =
            order[half..].iter().map(|&(_, tie, i)| (second(&self.worlds[i], self.weights[i]), tie, i)).collect();
        rest.select_nth_unstable_by(n - half, best_first);
        let picks: Vec<usize> = order[..half].iter().chain(&rest[..n - half]).map(|&(_, _, i)| i).collect();
        self.keep_picks(&picks);
        true
    }

    /// Every world's `score`, with a random key that breaks ties whatever the scores' sign or
    /// size, and its index.
    fn scored(&self, rng: &mut impl Rng, score: impl Fn(&T, f64) -> f64) -> Vec<(f64, u64, usize)> {
        (0..self.len()).map(|i| (score(&self.worlds[i], self.weights[i]), rng.gen(), i)).collect()
    }

    /// Keeps the worlds at `picks`, in that order, with their weights (then normalized).
    fn keep_picks(&mut self, picks: &[usize]) {
        let mut out = Keyed::with_capacity(picks.len());
        for &i in picks {
            out.worlds.push(self.worlds[i].clone());
            out.keys.push(self.keys[i]);
            out.weights.push(self.weights[i]);
            out.nodes.push(self.nodes[i]);
        }
        *self = out;
        self.normalize();
    }

    /// Adds the worlds of `other` that this set lacks, each with this set's mean weight.
    /// Returns how many were added.
    pub fn absorb(&mut self, other: Keyed<T>) -> usize {
        let held: std::collections::HashSet<u64, BuildHasherDefault<KeyHasher>> = self.keys.iter().copied().collect();
        let mean = if self.is_empty() { 1.0 } else { self.total_weight() / self.len() as f64 };
        let before = self.len();
        for i in 0..other.len() {
            if !held.contains(&other.keys[i]) {
                self.worlds.push(other.worlds[i].clone());
                self.keys.push(other.keys[i]);
                self.weights.push(mean);
                self.nodes.push(other.nodes[i]);
            }
        }
        self.normalize();
        self.len() - before
    }

    /// The set of what `f` makes of each stored item (in parallel when the set is large), with the
    /// same keys, weights and lineage ids.
    pub fn map_worlds<U: Stored>(self, f: impl Fn(&T) -> U + Sync + Send) -> Keyed<U> {
        let worlds = if self.len() >= PARALLEL_MIN {
            self.worlds.par_iter().map(f).collect()
        } else {
            self.worlds.iter().map(f).collect()
        };
        Keyed { worlds, keys: self.keys, weights: self.weights, nodes: self.nodes }
    }

    /// Replaces the lineage ids, in order, by the next ones of `ids`.
    pub fn set_nodes(&mut self, ids: &mut impl Iterator<Item = u32>) {
        for n in &mut self.nodes {
            *n = ids.next().unwrap_or(NO_NODE);
        }
    }

    /// The first `n` worlds, as a set (for seeding a fallback).
    pub fn head(&self, n: usize) -> Keyed<T> {
        let picks: Vec<usize> = (0..n.min(self.len())).collect();
        self.select(&picks, |i, _| self.weights[i])
    }

    /// Memory held by the set, in bytes (approximate).
    pub fn bytes(&self) -> usize {
        self.worlds.capacity() * std::mem::size_of::<T>() + self.keys.capacity() * 20
    }
}

/// The worlds of a set in batches, best first by a score (ties broken at random); each batch is
/// sorted only when it is taken.
pub struct BestFirst {
    scored: Vec<(f64, u64, usize)>,
    taken: usize,
}

impl BestFirst {
    /// The order of the worlds of `set` by `score(world, weight)`, highest first.
    pub fn new<T: Stored>(set: &Keyed<T>, rng: &mut impl Rng, score: impl Fn(&T, f64) -> f64) -> BestFirst {
        BestFirst { scored: set.scored(rng, score), taken: 0 }
    }

    /// How many worlds have not been taken.
    pub fn remaining(&self) -> usize {
        self.scored.len() - self.taken
    }

    /// The indices of the next (at most) `n` best worlds, best first.
    pub fn next(&mut self, n: usize) -> Vec<usize> {
        let rest = &mut self.scored[self.taken..];
        let n = n.min(rest.len());
        if n < rest.len() {
            rest.select_nth_unstable_by(n, best_first);
        }
        rest[..n].sort_unstable_by(best_first);
        self.taken += n;
        rest[..n].iter().map(|&(_, _, i)| i).collect()
    }
}

/// Orders scored worlds best first: higher score, then higher tie-breaking key.
fn best_first(a: &(f64, u64, usize), b: &(f64, u64, usize)) -> std::cmp::Ordering {
    b.0.total_cmp(&a.0).then(b.1.cmp(&a.1))
}

/// Builds a [`WorldSet`] (or a set of recipes for worlds), merging equal worlds (their weights
/// add up). Worlds are equal when their 64-bit keys are: with n worlds the chance that two
/// different ones share a key is about n^2 / 2^65, below 1e-7 for a million.
pub struct WorldBuilder<T = Position> {
    set: Keyed<T>,
    /// Key -> (index in the set, weight): the weight lives next to the key, so that merging a
    /// duplicate touches one cache line.
    index: KeyIndex,
}

impl<T> Default for WorldBuilder<T> {
    fn default() -> WorldBuilder<T> {
        WorldBuilder { set: Keyed::default(), index: KeyIndex::default() }
    }
}

impl<T: Stored> WorldBuilder<T> {
    /// An empty builder.
    pub fn new() -> WorldBuilder<T> {
        WorldBuilder::default()
    }

    /// An empty builder with room for `n` worlds before it grows.
    pub fn with_capacity(n: usize) -> WorldBuilder<T> {
        WorldBuilder { set: Keyed::with_capacity(n), index: KeyIndex::with_capacity(n) }
    }

    /// Number of distinct worlds so far.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Adds `weight` to `pos` (whose key is `key`), storing it with the lineage id `node()` if it
    /// is new. Returns true if it was new.
    pub fn add(&mut self, key: u64, pos: T, weight: f64, node: impl FnOnce() -> u32) -> bool {
        self.add_with(key, || pos, weight, node)
    }

    /// As [`WorldBuilder::add`], building the world only if it is new.
    pub fn add_with(&mut self, key: u64, pos: impl FnOnce() -> T, weight: f64, node: impl FnOnce() -> u32) -> bool {
        let set = &mut self.set;
        let fresh = self.index.add(key, weight, || set.worlds.len() as u32);
        if fresh {
            let pos = pos();
            debug_assert!(pos.fits_key(key), "stale key {key:#x}");
            set.worlds.push(pos);
            set.keys.push(key);
            set.weights.push(0.0);
            set.nodes.push(node());
        }
        fresh
    }

    /// Starts fetching what adding a world of key `key` will look at (a hint for the cache).
    pub fn prefetch(&self, key: u64) {
        self.index.prefetch(key);
    }

    /// Merges builders filled apart into one set: a world several hold gets the sum of their
    /// weights and keeps the first one's lineage id and stored item. The first builder's worlds
    /// stay where they are and the others' are moved after them; no index is rebuilt.
    pub fn merge(mut builders: Vec<WorldBuilder<T>>) -> Keyed<T> {
        if builders.len() == 1 {
            // A small set, expanded on one thread: nothing to merge.
            return builders.pop().map(WorldBuilder::finish).unwrap_or_default();
        }
        let total: usize = builders.iter().map(WorldBuilder::len).sum();
        let (sets, indexes): (Vec<Keyed<T>>, Vec<KeyIndex>) = builders
            .into_par_iter()
            .map(|mut builder| {
                builder.settle_weights();
                (builder.set, builder.index)
            })
            .unzip();
        // For every world of a later builder, the earlier builder holding it first, and where
        // (looked up in parallel, the slots fetched a few keys ahead: the indexes are only read).
        let held: Vec<Vec<Option<(u32, u32)>>> = sets
            .iter()
            .enumerate()
            .map(|(j, set)| {
                let earlier = &indexes[..j];
                if earlier.is_empty() {
                    return Vec::new();
                }
                set.keys
                    .par_chunks(MERGE_CHUNK)
                    .flat_map_iter(|keys| {
                        keys.iter().enumerate().map(move |(n, key)| {
                            if let Some(ahead) = keys.get(n + MERGE_PREFETCH_AHEAD) {
                                earlier.iter().for_each(|index| index.prefetch(*ahead));
                            }
                            let found = |(b, index): (usize, &KeyIndex)| index.get(*key).map(|(i, _)| (b as u32, i));
                            earlier.iter().enumerate().find_map(found)
                        })
                    })
                    .collect()
            })
            .collect();
        let mut sets = sets.into_iter();
        let Some(mut out) = sets.next() else { return Keyed::default() };
        out.reserve(total - out.len());
        // Per builder: where each of its worlds went in `out`.
        let mut places: Vec<Vec<u32>> = vec![(0..out.len() as u32).collect()];
        for (j, set) in sets.enumerate().map(|(j, set)| (j + 1, set)) {
            let mut place = Vec::with_capacity(set.len());
            let mut fresh = Vec::with_capacity(set.len());
            for (n, held) in held[j].iter().enumerate() {
                match *held {
                    Some((b, i)) => {
                        let at = places[b as usize][i as usize];
                        out.weights[at as usize] += set.weights[n];
                        place.push(at);
                    }
                    None => {
                        place.push((out.len() + fresh.len()) as u32);
                        fresh.push(n);
                    }
                }
            }
            // The new worlds are copied in parallel (the merged set's room is touched first here).
            out.worlds.par_extend(fresh.par_iter().map(|&n| set.worlds[n].clone()));
            out.keys.extend(fresh.iter().map(|&n| set.keys[n]));
            out.weights.extend(fresh.iter().map(|&n| set.weights[n]));
            out.nodes.extend(fresh.iter().map(|&n| set.nodes[n]));
            places.push(place);
        }
        out
    }

    /// The finished set.
    pub fn finish(mut self) -> Keyed<T> {
        self.settle_weights();
        self.set
    }

    /// Copies the weights summed in the index into the set.
    fn settle_weights(&mut self) {
        for (i, w) in self.index.entries() {
            self.set.weights[i as usize] = w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The 20 positions after White's first move, the i-th of weight `weight(i)` and lineage id i.
    fn after_one_move_weighted(weight: impl Fn(usize) -> f64) -> WorldSet {
        let start = Position::start(Variant::DarkChess);
        let mut builder = WorldBuilder::new();
        for (i, &m) in start.moves().iter().enumerate() {
            let mut pos = start.clone();
            pos.play_unchecked(m);
            builder.add(pos.repetition_key(), pos, weight(i), || i as u32);
        }
        builder.finish()
    }

    /// The 20 positions after White's first move, the i-th of weight i + 1.
    fn after_one_move() -> WorldSet {
        after_one_move_weighted(|i| (i + 1) as f64)
    }

    #[test]
    fn merged_builders_add_up_the_weights_of_shared_worlds_and_keep_the_first_lineage_id() {
        let set = after_one_move();
        let (ws, ks) = (set.worlds(), set.keys());
        // Builder 0 holds worlds 0..3, builder 1 worlds 2..5 (2 shared), builder 2 worlds 4 and 6.
        let fill = |range: &[usize]| {
            let mut b = WorldBuilder::new();
            for (n, &i) in range.iter().enumerate() {
                b.add(ks[i], ws[i].clone(), 1.0 + i as f64, || n as u32);
            }
            b
        };
        let merged = WorldBuilder::merge(vec![fill(&[0, 1, 2]), fill(&[2, 3, 4]), fill(&[4, 6])]);
        assert_eq!(merged.keys(), [ks[0], ks[1], ks[2], ks[3], ks[4], ks[6]]);
        assert_eq!(merged.weights(), [1.0, 2.0, 6.0, 4.0, 10.0, 7.0]);
        assert_eq!(merged.nodes(), [0, 1, 2, 1, 2, 1]);
        // One builder alone is its own set.
        let single = WorldBuilder::merge(vec![fill(&[0, 1, 2])]);
        assert_eq!(single.keys(), [ks[0], ks[1], ks[2]]);
        assert_eq!(single.weights(), [1.0, 2.0, 3.0]);
        assert_eq!(single.nodes(), [0, 1, 2]);
    }

    #[test]
    fn keep_best_of_two_keeps_half_by_each_score() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut set = after_one_move();
        // The two lightest (weights 1, 2) by the first score, the two heaviest by the second.
        assert!(set.keep_best_of_two(4, &mut rng, |_, weight| -weight, |_, weight| weight));
        let mut nodes = set.nodes().to_vec();
        nodes.sort_unstable();
        assert_eq!(nodes, [0, 1, 18, 19]);
        assert!((set.total_weight() - 1.0).abs() < 1e-12);
        assert!(set.weights()[0] < set.weights()[3], "weights are kept (then normalized)");
    }

    #[test]
    fn keep_best_keeps_the_highest_scores_best_first_and_keep_heaviest_the_heaviest_in_place() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let set = after_one_move();
        assert_eq!(set.len(), 20);
        // Lightest best: the worlds of weights 1, 2, 3 (lineage ids 0, 1, 2) survive in that order.
        let mut best = set.clone();
        assert!(best.keep_best(3, &mut rng, |_, weight| -weight));
        assert_eq!(best.nodes(), [0, 1, 2]);
        assert!((best.total_weight() - 1.0).abs() < 1e-12);
        assert!(best.weights()[0] < best.weights()[2], "weights are kept (then normalized), not rescored");
        // The heaviest three (weights 18, 19, 20), in the order they were in, with their keys.
        let mut heavy = set.clone();
        assert!(heavy.keep_heaviest(3, &mut rng));
        assert_eq!(heavy.nodes(), [17, 18, 19]);
        assert_eq!(heavy.keys(), &set.keys()[17..]);
        assert_eq!(heavy.worlds(), &set.worlds()[17..]);
        assert!((heavy.total_weight() - 1.0).abs() < 1e-12);
        assert!(heavy.weights()[0] < heavy.weights()[2], "weights are kept (then normalized)");
        // Nothing to drop: the same worlds.
        let mut all = set.clone();
        assert!(!all.keep_heaviest(20, &mut rng));
        assert_eq!(all.nodes(), set.nodes());
    }

    #[test]
    fn keep_heaviest_keeps_scattered_heaviest_worlds_with_their_own_keys_and_weights() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        // A permutation of the weights 1..=20, so the heaviest lie scattered.
        let set = after_one_move_weighted(|i| ((i * 7) % 20 + 1) as f64);
        for n in [1, 5, 12, 19] {
            let mut heavy = set.clone();
            assert!(heavy.keep_heaviest(n, &mut rng));
            let mut expected: Vec<usize> = (0..set.len()).collect();
            expected.sort_by(|&a, &b| set.weights()[b].total_cmp(&set.weights()[a]));
            expected.truncate(n);
            expected.sort_unstable();
            let nodes: Vec<usize> = heavy.nodes().iter().map(|&x| x as usize).collect();
            assert_eq!(nodes, expected, "the {n} heaviest, in their order");
            for (j, &i) in expected.iter().enumerate() {
                assert_eq!(heavy.keys()[j], set.keys()[i]);
                assert_eq!(heavy.keys()[j], heavy.worlds()[j].repetition_key(), "world and key moved together");
                let ratio = heavy.weights()[j] / set.weights()[i];
                assert!((ratio - heavy.weights()[0] / set.weights()[expected[0]]).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn best_first_hands_out_every_world_once_in_batches_best_first() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let set = after_one_move();
        let mut order = BestFirst::new(&set, &mut rng, |_, weight| weight);
        // Weight i + 1 at index i: the heaviest are the last indices.
        assert_eq!(order.next(3), [19, 18, 17]);
        assert_eq!(order.remaining(), 17);
        assert_eq!(order.next(5), [16, 15, 14, 13, 12]);
        let rest = order.next(100);
        assert_eq!(rest, (0..12).rev().collect::<Vec<usize>>());
        assert_eq!(order.remaining(), 0);
        assert!(order.next(4).is_empty());
    }
}
