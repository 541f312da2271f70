//! The search tree: a compact node arena, and the named steps of one iteration (select, expand,
//! evaluate, back up) over one determinized world.
//!
//! One tree serves both ways of sharing knowledge across worlds: a PIMC tree sees one world, so
//! every child is always available; an ISMCTS tree sees a new world each iteration, so a child's
//! statistics count only the iterations in which its move was legal (`avail`).

use super::priors::priors;
use super::quiesce::quiesce;
use super::sim::{result_value, Sim};
use crate::core::{Move, MoveKind, Square};
use crate::eval::{to_value, Evaluator};
use crate::rules::Position;

const NONE: u32 = u32::MAX;

/// A number that identifies a move (for sorting and lookups).
#[inline]
pub fn move_key(m: Move) -> u32 {
    let kind = match m.kind {
        MoveKind::Normal => 0,
        MoveKind::EnPassant => 1,
        MoveKind::Castle => 2,
        MoveKind::Promotion(r) => 3 + r.index() as u32,
        MoveKind::Drop(r) => 16 + r.index() as u32,
    };
    m.from.index() as u32 | (m.to.index() as u32) << 6 | kind << 12
}

/// The keys of `moves`, sorted.
fn sorted_keys(moves: &[Move]) -> Vec<u32> {
    let mut keys: Vec<u32> = moves.iter().map(|&m| move_key(m)).collect();
    keys.sort_unstable();
    keys
}

/// One node: the move that leads to it and its statistics, from the point of view of the side
/// that played that move.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// The move from the parent.
    pub mv: Move,
    first_child: u32,
    next_sibling: u32,
    /// Iterations that went through this node.
    pub visits: u32,
    /// Iterations in which this node's move was legal at its parent.
    pub avail: u32,
    /// Sum of backed-up values for the side that played `mv`.
    pub value_sum: f32,
    /// The heuristic prior of `mv`.
    pub prior: f32,
    expanded: bool,
}

impl Node {
    fn new(mv: Move, prior: f32) -> Node {
        Node { mv, first_child: NONE, next_sibling: NONE, visits: 0, avail: 0, value_sum: 0.0, prior, expanded: false }
    }

    /// Mean value for the side that played the move (0 when unvisited).
    pub fn q(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value_sum / self.visits as f32
        }
    }
}

/// Size of one node in bytes (for the memory bound).
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

/// Exploration constant of PUCT.
const C_PUCT: f32 = 1.4;
/// How much worse than its parent an unvisited child is assumed to be.
const FPU_REDUCTION: f32 = 0.25;

/// A tree in an arena with a node budget.
#[derive(Clone, Debug)]
pub struct Tree {
    nodes: Vec<Node>,
    max_nodes: usize,
    multi_world: bool,
    /// Factors on the priors of root moves (sorted by move key), from the root's safety check.
    root_bias: Vec<(u32, f32)>,
}

impl Tree {
    /// An empty tree that will hold at most `max_nodes` nodes; `multi_world` selects ISMCTS
    /// availability counting (a new world each iteration) over PIMC's single world.
    pub fn new(max_nodes: usize, multi_world: bool) -> Tree {
        let dummy = Move::normal(Square::new_unchecked(0), Square::new_unchecked(0));
        Tree { nodes: vec![Node::new(dummy, 1.0)], max_nodes: max_nodes.max(2), multi_world, root_bias: Vec::new() }
    }

    /// Lets the tree grow to `max_nodes` nodes (it never shrinks below what it holds).
    pub fn set_capacity(&mut self, max_nodes: usize) {
        self.max_nodes = max_nodes.max(2);
    }

    /// A copy of the subtree reached from the root by `line`, as a tree of its own (for reuse
    /// by the next search), or `None` if the line is not in the tree.
    pub fn subtree(&self, line: &[Move]) -> Option<Tree> {
        let mut node = 0u32;
        for &m in line {
            node = self.children(node).find(|&c| self.nodes[c as usize].mv == m)?;
        }
        let mut nodes = Vec::new();
        self.copy_into(node, &mut nodes);
        nodes[0].mv = self.nodes[0].mv;
        Some(Tree { nodes, max_nodes: self.max_nodes, multi_world: self.multi_world, root_bias: Vec::new() })
    }

    fn copy_into(&self, node: u32, out: &mut Vec<Node>) -> u32 {
        let index = out.len() as u32;
        out.push(Node { first_child: NONE, next_sibling: NONE, ..self.nodes[node as usize] });
        let kids: Vec<u32> = self.children(node).collect();
        let copies: Vec<u32> = kids.into_iter().map(|k| self.copy_into(k, out)).collect();
        for pair in copies.windows(2) {
            out[pair[0] as usize].next_sibling = pair[1];
        }
        out[index as usize].first_child = copies.first().copied().unwrap_or(NONE);
        index
    }

    /// True for an ISMCTS tree (a new world each iteration).
    pub fn is_multi_world(&self) -> bool {
        self.multi_world
    }

    /// The children of the root move `first` (the opponent's replies to it).
    pub fn replies(&self, first: Move) -> impl Iterator<Item = &Node> {
        let node = self.children(0).find(|&c| self.nodes[c as usize].mv == first);
        node.into_iter().flat_map(move |n| self.children(n)).map(|c| &self.nodes[c as usize])
    }

    /// The root's children.
    pub fn root_children(&self) -> impl Iterator<Item = &Node> {
        self.children(0).map(|i| &self.nodes[i as usize])
    }

    /// Iterations run through the root.
    pub fn root_visits(&self) -> u32 {
        self.nodes[0].visits
    }

    /// Nodes in use.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True if only the root exists.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The line starting with the root move `first`, then following the most visited children.
    pub fn principal_variation(&self, first: Move, max_len: usize) -> Vec<Move> {
        let Some(mut node) = self.children(0).find(|&c| self.nodes[c as usize].mv == first) else { return vec![first] };
        let mut pv = vec![first];
        while pv.len() < max_len {
            let Some(best) = self.children(node).max_by_key(|&c| self.nodes[c as usize].visits) else { break };
            if self.nodes[best as usize].visits == 0 {
                break;
            }
            pv.push(self.nodes[best as usize].mv);
            node = best;
        }
        pv
    }

    fn children(&self, node: u32) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.nodes[node as usize].first_child;
        std::iter::from_fn(move || {
            (next != NONE).then(|| {
                let here = next;
                next = self.nodes[here as usize].next_sibling;
                here
            })
        })
    }

    /// Runs one iteration on `world`: select down the tree, expand one node, evaluate it, and back
    /// the value up. Returns false when the tree is full and nothing could be learned.
    pub fn iterate(&mut self, world: &Position, eval: &Evaluator) -> bool {
        let mut sim = Sim::new(world.clone());
        let mut path: Vec<u32> = vec![0];
        let mut node = 0u32;
        let leaf_value = loop {
            let moves = sim.pos.moves();
            if moves.is_empty() {
                break result_value(sim.no_moves_result(), sim.pos.turn());
            }
            if !self.nodes[node as usize].expanded {
                if self.nodes.len() + moves.len() > self.max_nodes {
                    if path.len() == 1 {
                        return false;
                    }
                    break to_value(quiesce(&sim.pos, eval));
                }
                self.add_children(node, &sim.pos, &moves);
                self.nodes[node as usize].expanded = true;
                break to_value(quiesce(&sim.pos, eval));
            }
            let legal = if self.multi_world { sorted_keys(&moves) } else { Vec::new() };
            if self.multi_world && !self.add_missing(node, &sim.pos, &moves) && path.len() == 1 {
                return false;
            }
            let child = self.select(node, &legal);
            path.push(child);
            node = child;
            let mover = sim.pos.turn();
            if let Some(result) = sim.play(self.nodes[child as usize].mv) {
                // Value for the side to move after the move, i.e. the mover's opponent.
                break result_value(result, mover.opponent());
            }
        };
        self.backup(&path, leaf_value);
        true
    }

    /// Scales the priors of root moves by `factors` (moves not named keep theirs), now if the
    /// root is expanded and at its expansion otherwise, so that the search spends its time on
    /// moves the safety check does not condemn.
    pub fn bias_root(&mut self, factors: &[(Move, f32)]) {
        let mut bias: Vec<(u32, f32)> = factors.iter().map(|&(m, f)| (move_key(m), f)).collect();
        bias.sort_unstable_by_key(|b| b.0);
        self.root_bias = bias;
        let kids: Vec<u32> = self.children(0).collect();
        let mut total = 0.0;
        for &c in &kids {
            let factor = self.root_factor(self.nodes[c as usize].mv);
            self.nodes[c as usize].prior *= factor;
            total += self.nodes[c as usize].prior;
        }
        for &c in kids.iter().filter(|_| total > 0.0) {
            self.nodes[c as usize].prior /= total;
        }
    }

    fn root_factor(&self, m: Move) -> f32 {
        self.root_bias.binary_search_by_key(&move_key(m), |b| b.0).map_or(1.0, |i| self.root_bias[i].1)
    }

    fn add_children(&mut self, node: u32, pos: &Position, moves: &[Move]) {
        let mut p = priors(pos, moves);
        if node == 0 && !self.root_bias.is_empty() {
            for (prior, &m) in p.iter_mut().zip(moves) {
                *prior *= self.root_factor(m);
            }
            let total: f32 = p.iter().sum();
            if total > 0.0 {
                p.iter_mut().for_each(|x| *x /= total);
            }
        }
        let mut prev = NONE;
        for (i, &m) in moves.iter().enumerate().rev() {
            let idx = self.nodes.len() as u32;
            let mut n = Node::new(m, p[i]);
            n.next_sibling = prev;
            self.nodes.push(n);
            prev = idx;
        }
        self.nodes[node as usize].first_child = prev;
    }

    /// ISMCTS: adds children for moves legal in this world that the node has not seen yet.
    /// Returns false if the tree is full (the node keeps the children it has).
    fn add_missing(&mut self, node: u32, pos: &Position, moves: &[Move]) -> bool {
        let mut known: Vec<u32> = self.children(node).map(|c| move_key(self.nodes[c as usize].mv)).collect();
        known.sort_unstable();
        let missing: Vec<usize> =
            (0..moves.len()).filter(|&i| known.binary_search(&move_key(moves[i])).is_err()).collect();
        if missing.is_empty() {
            return true;
        }
        if self.nodes.len() + missing.len() > self.max_nodes {
            return false;
        }
        let p = priors(pos, moves);
        for i in missing {
            let idx = self.nodes.len() as u32;
            let mut n = Node::new(moves[i], p[i]);
            n.next_sibling = self.nodes[node as usize].first_child;
            self.nodes.push(n);
            self.nodes[node as usize].first_child = idx;
        }
        true
    }

    /// PUCT over the children whose moves are legal now: all of them in a single-world tree,
    /// those whose keys are in the sorted `legal` in a multi-world tree.
    fn select(&mut self, node: u32, legal: &[u32]) -> u32 {
        let parent = self.nodes[node as usize];
        let parent_q = -parent.q();
        let mut best = (f32::NEG_INFINITY, NONE);
        let children: Vec<u32> = self.children(node).collect();
        for c in children {
            if self.multi_world {
                if legal.binary_search(&move_key(self.nodes[c as usize].mv)).is_err() {
                    continue;
                }
                self.nodes[c as usize].avail += 1;
            }
            let child = &self.nodes[c as usize];
            let exploration_base = if self.multi_world { child.avail.max(1) } else { parent.visits.max(1) };
            let q = if child.visits == 0 { parent_q - FPU_REDUCTION } else { child.q() };
            let u = C_PUCT * child.prior * (exploration_base as f32).sqrt() / (1.0 + child.visits as f32);
            if q + u > best.0 {
                best = (q + u, c);
            }
        }
        debug_assert!(best.1 != NONE, "a position with moves has a selectable child");
        best.1
    }

    /// `value` is for the side to move at the end of `path`; each node stores the value for the
    /// side that played its move, so signs alternate going up.
    fn backup(&mut self, path: &[u32], value: f32) {
        let mut v = -value;
        for &n in path.iter().rev() {
            let node = &mut self.nodes[n as usize];
            node.visits += 1;
            node.value_sum += v;
            v = -v;
        }
    }
}
