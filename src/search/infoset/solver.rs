//! The regret minimiser: a two-player zero-sum game tree grown from several weighted roots (the
//! worlds), whose decision nodes are grouped into information sets, solved by predictive regret
//! matching plus (PCFR+, alternating updates).
//!
//! The tree knows nothing of chess: a node is a leaf with a fixed value, a terminal, or a
//! decision of player 0 ("us", who maximises the values) or player 1 ("them"), whose children
//! follow the actions of its information set in the set's order. One iteration is a pass for
//! each player: the pass walks every root in parallel under the current strategies, leaving in
//! each node its value and (at the walking player's nodes) the probability that chance and the
//! other player bring play there; then every information set of that player sums the regrets of
//! its nodes and updates its strategy. A pass reads strategies and writes only node-local
//! scratch, so its result does not depend on the threads.

use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};

/// No node or information set.
pub const NONE: u32 = u32::MAX;

/// Player 0 maximises the tree's values, player 1 minimises them.
pub type Player = u8;

/// What a node is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// Not expanded: valued by its fixed leaf value.
    Leaf,
    /// The game ended here: its fixed value is exact.
    Terminal,
    /// A decision of this player, its children one per action of its information set.
    Decision(Player),
}

/// A value kept in an atomic (the passes write node values from several threads).
#[derive(Debug, Default)]
struct AtomicF32(AtomicU32);

impl AtomicF32 {
    fn new(v: f32) -> AtomicF32 {
        AtomicF32(AtomicU32::new(v.to_bits()))
    }
    #[inline]
    fn get(&self) -> f32 {
        f32::from_bits(self.0.load(Ordering::Relaxed))
    }
    #[inline]
    fn set(&self, v: f32) {
        self.0.store(v.to_bits(), Ordering::Relaxed)
    }
}

/// One node of the tree.
#[derive(Debug)]
pub struct Node {
    kind: Kind,
    first_child: u32,
    children: u32,
    infoset: u32,
    /// Value of a leaf or terminal; the value under the current strategies after a pass that
    /// reached a decision node.
    value: AtomicF32,
    /// At the walking player's nodes: the probability chance and the other player give the node
    /// in the last pass that reached it.
    reach: AtomicF32,
    /// The pass that last set `reach` (reach from older passes does not count).
    stamp: AtomicU32,
}

impl Node {
    fn new(kind: Kind, value: f32) -> Node {
        Node {
            kind,
            first_child: NONE,
            children: 0,
            infoset: NONE,
            value: AtomicF32::new(value),
            reach: AtomicF32::new(0.0),
            stamp: AtomicU32::new(0),
        }
    }
}

/// Bytes one node takes in the arena.
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

/// An information set: the actions its player chooses among, the regret state and strategies,
/// and the nodes it groups.
#[derive(Clone, Debug)]
pub struct InfoSet {
    player: Player,
    actions: Vec<u32>,
    regret: Vec<f32>,
    last: Vec<f32>,
    strategy: Vec<f32>,
    average: Vec<f32>,
    nodes: Vec<u32>,
}

impl InfoSet {
    /// The player who decides here.
    pub fn player(&self) -> Player {
        self.player
    }

    /// The actions, as the keys given when the set was made.
    pub fn actions(&self) -> &[u32] {
        &self.actions
    }

    /// The current strategy (what the next pass plays), one probability per action.
    pub fn strategy(&self) -> &[f32] {
        &self.strategy
    }

    /// The average of the strategies played so far, weighted by iteration (linear averaging),
    /// normalised.
    pub fn average(&self) -> Vec<f32> {
        normalised(&self.average).unwrap_or_else(|| self.strategy.clone())
    }

    /// The nodes it groups.
    pub fn nodes(&self) -> &[u32] {
        &self.nodes
    }
}

/// `v` scaled to sum to one, or `None` when it sums to nothing.
fn normalised(v: &[f32]) -> Option<Vec<f32>> {
    let total: f32 = v.iter().sum();
    (total > 0.0).then(|| v.iter().map(|x| x / total).collect())
}

/// The game tree and its information sets.
#[derive(Debug, Default)]
pub struct Tree {
    nodes: Vec<Node>,
    infosets: Vec<InfoSet>,
    index: HashMap<u64, u32>,
    /// Root nodes with their chance weights (normalised to sum to one when solving).
    roots: Vec<(u32, f64)>,
    passes: u32,
    iterations: u32,
}

impl Tree {
    /// An empty tree.
    pub fn new() -> Tree {
        Tree::default()
    }

    /// Adds a root leaf of chance weight `weight` and value `value`; returns its node.
    pub fn add_root(&mut self, weight: f64, value: f32) -> u32 {
        let id = self.push(Node::new(Kind::Leaf, value));
        self.roots.push((id, weight));
        id
    }

    fn push(&mut self, node: Node) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(node);
        id
    }

    /// The roots and their weights.
    pub fn roots(&self) -> &[(u32, f64)] {
        &self.roots
    }

    /// Nodes in the tree.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the tree holds no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Information sets made so far.
    pub fn infoset_count(&self) -> usize {
        self.infosets.len()
    }

    /// Iterations run.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// What `node` is.
    pub fn kind(&self, node: u32) -> Kind {
        self.nodes[node as usize].kind
    }

    /// The value of `node`: fixed for leaves and terminals, from the last pass that reached it
    /// for decisions.
    pub fn value(&self, node: u32) -> f32 {
        self.nodes[node as usize].value.get()
    }

    /// The children of `node` (empty unless it is a decision), in its information set's action
    /// order.
    pub fn children(&self, node: u32) -> std::ops::Range<u32> {
        let n = &self.nodes[node as usize];
        match n.first_child {
            NONE => 0..0,
            first => first..first + n.children,
        }
    }

    /// The information set of a decision node.
    pub fn infoset_of(&self, node: u32) -> Option<&InfoSet> {
        self.infosets.get(self.nodes[node as usize].infoset as usize)
    }

    /// The information set with this id.
    pub fn infoset(&self, id: u32) -> &InfoSet {
        &self.infosets[id as usize]
    }

    /// The id of the information set of a decision node (`NONE` otherwise).
    pub fn infoset_id(&self, node: u32) -> u32 {
        self.nodes[node as usize].infoset
    }

    /// Makes the leaf `node` a terminal of exact value `value`.
    pub fn set_terminal(&mut self, node: u32, value: f32) {
        let n = &mut self.nodes[node as usize];
        debug_assert_eq!(n.kind, Kind::Leaf);
        n.kind = Kind::Terminal;
        n.value.set(value);
    }

    /// Expands the leaf `node` into a decision of `player` in the information set keyed by
    /// `key`, with one child per action (`(action key, child value, terminal)`, in the set's
    /// order). Nodes whose key and actions agree share a set; a new set starts from the pure
    /// strategy of the child best for `player`. Returns the first child.
    pub fn expand(&mut self, node: u32, player: Player, key: u64, actions: &[(u32, f32, bool)]) -> u32 {
        assert!(!actions.is_empty(), "a decision has an action");
        debug_assert_eq!(self.nodes[node as usize].kind, Kind::Leaf);
        let first = self.nodes.len() as u32;
        for &(_, value, terminal) in actions {
            let kind = if terminal { Kind::Terminal } else { Kind::Leaf };
            self.push(Node::new(kind, value));
        }
        let full_key = set_key(player, key, actions.iter().map(|a| a.0));
        let id = match self.index.get(&full_key) {
            Some(&id) => id,
            None => {
                let id = self.infosets.len() as u32;
                let n = actions.len();
                let sign = if player == 0 { 1.0 } else { -1.0 };
                let best = (0..n).max_by(|&a, &b| (sign * actions[a].1).total_cmp(&(sign * actions[b].1))).unwrap_or(0);
                let mut strategy = vec![0.0; n];
                strategy[best] = 1.0;
                let mut regret = vec![0.0; n];
                regret[best] = SEED_REGRET;
                self.infosets.push(InfoSet {
                    player,
                    actions: actions.iter().map(|a| a.0).collect(),
                    regret,
                    last: vec![0.0; n],
                    strategy,
                    average: vec![0.0; n],
                    nodes: Vec::new(),
                });
                self.index.insert(full_key, id);
                id
            }
        };
        self.infosets[id as usize].nodes.push(node);
        let n = &mut self.nodes[node as usize];
        n.kind = Kind::Decision(player);
        n.first_child = first;
        n.children = actions.len() as u32;
        n.infoset = id;
        first
    }

    /// The value of root `i` under the current strategies (after a pass).
    pub fn root_value(&self, i: usize) -> f32 {
        self.value(self.roots[i].0)
    }

    /// One PCFR+ iteration: a pass and an update for player 0, then for player 1, on the
    /// current rayon pool.
    pub fn iterate(&mut self) {
        self.iterations += 1;
        for player in [0, 1] {
            self.pass(player);
            self.update(player);
        }
    }

    /// Walks every root under the current strategies for `player`.
    fn pass(&mut self, player: Player) {
        self.passes += 1;
        let total: f64 = self.roots.iter().map(|r| r.1).sum();
        let scale = if total > 0.0 { 1.0 / total } else { 0.0 };
        let stamp = self.passes;
        let tree = &*self;
        tree.roots.par_iter().for_each(|&(root, weight)| {
            let reach = (weight * scale) as f32;
            if reach > 0.0 {
                tree.walk(root, reach, player, stamp);
            }
        });
    }

    /// The value of `node` for player 0 under the current strategies, walked for `player`
    /// with `reach` the probability chance and the other player give it.
    fn walk(&self, node: u32, reach: f32, player: Player, stamp: u32) -> f32 {
        let n = &self.nodes[node as usize];
        let Kind::Decision(actor) = n.kind else { return n.value.get() };
        let strategy = &self.infosets[n.infoset as usize].strategy;
        let mut value = 0.0;
        if actor == player {
            n.reach.set(reach);
            n.stamp.store(stamp, Ordering::Relaxed);
            for (i, child) in self.children(node).enumerate() {
                value += strategy[i] * self.walk(child, reach, player, stamp);
            }
        } else {
            for (i, child) in self.children(node).enumerate() {
                let p = strategy[i];
                if p > 0.0 {
                    value += p * self.walk(child, reach * p, player, stamp);
                }
            }
        }
        n.value.set(value);
        value
    }

    /// Updates the regrets and strategies of `player`'s information sets from the last pass.
    fn update(&mut self, player: Player) {
        let stamp = self.passes;
        let weight = self.iterations as f32;
        let nodes = &self.nodes;
        let sign = if player == 0 { 1.0 } else { -1.0 };
        self.infosets.par_iter_mut().filter(|set| set.player == player).for_each(|set| {
            let k = set.actions.len();
            let mut regret = vec![0.0f32; k];
            let mut reached = false;
            for &h in &set.nodes {
                let n = &nodes[h as usize];
                if n.stamp.load(Ordering::Relaxed) != stamp {
                    continue;
                }
                let reach = n.reach.get();
                if reach <= 0.0 {
                    continue;
                }
                reached = true;
                let here = n.value.get();
                for (i, r) in regret.iter_mut().enumerate() {
                    let child = nodes[(n.first_child as usize) + i].value.get();
                    *r += sign * reach * (child - here);
                }
            }
            if !reached {
                return;
            }
            for (i, &r) in regret.iter().enumerate() {
                set.regret[i] = (set.regret[i] + r).max(0.0);
                set.last[i] = r;
                set.average[i] += weight * set.strategy[i];
            }
            let predicted: Vec<f32> = (0..k).map(|i| (set.regret[i] + set.last[i]).max(0.0)).collect();
            set.strategy = normalised(&predicted).unwrap_or_else(|| vec![1.0 / k as f32; k]);
        });
    }
}

/// The regret a new information set gives its best action, so that its first strategy plays it.
const SEED_REGRET: f32 = 1e-6;

/// The key under which nodes share an information set: the player, the observation key and the
/// actions.
fn set_key(player: Player, key: u64, actions: impl Iterator<Item = u32>) -> u64 {
    use crate::core::hash::mix64;
    actions.fold(mix64(key ^ u64::from(player).wrapping_mul(0x9E37_79B9_7F4A_7C15)), |h, a| mix64(h ^ u64::from(a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-by-two zero-sum matrix game as a tree: player 0 picks a row in one information set,
    /// player 1 a column in one information set spanning both rows (it does not see the row).
    fn matrix_game(payoff: [[f32; 2]; 2]) -> Tree {
        let mut tree = Tree::new();
        let root = tree.add_root(1.0, 0.0);
        // Player 0 seeds its set on the row of the larger first entry: nothing is decided yet.
        let first = tree.expand(root, 0, 1, &[(0, 0.0, false), (1, 0.0, false)]);
        for row in 0..2 {
            tree.expand(first + row, 1, 2, &[(0, payoff[row as usize][0], true), (1, payoff[row as usize][1], true)]);
        }
        tree
    }

    fn solve(tree: &mut Tree, iterations: usize) {
        for _ in 0..iterations {
            tree.iterate();
        }
    }

    #[test]
    fn matching_pennies_reaches_its_equilibrium_half_and_half() {
        let mut tree = matrix_game([[1.0, -1.0], [-1.0, 1.0]]);
        solve(&mut tree, 2000);
        let us = tree.infoset_of(0).unwrap();
        let them = tree.infoset_of(1).unwrap();
        assert_eq!(them.nodes().len(), 2, "both rows lead to one set of the column player");
        for p in us.average().into_iter().chain(them.average()) {
            assert!((p - 0.5).abs() < 0.02, "{:?} {:?}", us.average(), them.average());
        }
        // The game's value is 0.
        assert!(tree.root_value(0).abs() < 0.05, "{}", tree.root_value(0));
    }

    #[test]
    fn an_uneven_matrix_game_reaches_its_known_mixed_equilibrium() {
        // Rows (2, -1) and (-1, 1): the row player plays the first row 2/5 of the time, the
        // column player the first column 2/5 of the time; the value is 1/5.
        let mut tree = matrix_game([[2.0, -1.0], [-1.0, 1.0]]);
        solve(&mut tree, 4000);
        let us = tree.infoset_of(0).unwrap().average();
        let them = tree.infoset_of(1).unwrap().average();
        assert!((us[0] - 0.4).abs() < 0.02, "{us:?}");
        assert!((them[0] - 0.4).abs() < 0.02, "{them:?}");
        // The last iterate of PCFR+ settles on it too.
        let last = tree.infoset_of(0).unwrap().strategy().to_vec();
        assert!((last[0] - 0.4).abs() < 0.05, "{last:?}");
        assert!((tree.root_value(0) - 0.2).abs() < 0.05, "{}", tree.root_value(0));
    }

    #[test]
    fn a_player_who_sees_the_world_answers_each_while_one_who_cannot_hedges() {
        // Two equally likely worlds. In each, player 1 picks a or b; player 0 then wins 1 by
        // guessing it. If player 0 sees player 1's move it always wins; if it cannot, player 1
        // mixes and player 0 wins half of the time (value 0).
        for seeing in [true, false] {
            let mut tree = Tree::new();
            for _ in 0..2 {
                let root = tree.add_root(0.5, 0.0);
                let first = tree.expand(root, 1, 10, &[(0, 0.0, false), (1, 0.0, false)]);
                for choice in 0..2u32 {
                    let key = if seeing { 20 + u64::from(choice) } else { 20 };
                    let win = |guess: u32| if guess == choice { 1.0 } else { -1.0 };
                    tree.expand(first + choice, 0, key, &[(0, win(0), true), (1, win(1), true)]);
                }
            }
            solve(&mut tree, 3000);
            let value = (tree.root_value(0) + tree.root_value(1)) / 2.0;
            let expected = if seeing { 1.0 } else { 0.0 };
            assert!((value - expected).abs() < 0.05, "seeing {seeing}: {value}");
            assert_eq!(tree.infoset_count(), if seeing { 3 } else { 2 }, "worlds share player 1's set");
        }
    }
}
