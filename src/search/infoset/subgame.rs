//! The subgame over the worlds drawn from the belief: each world the root of a tree of its
//! histories, grown while time lasts (GT-CFR) and solved over information sets keyed by each
//! side's observations since the root.
//!
//! Growth walks from the least-grown world (for its weight) down the tree: the side exploring in
//! this expansion (it alternates) takes, half of the time, a move it plays with positive
//! probability uniformly, and otherwise the move with the best value plus an exploration bonus;
//! the other side plays its current strategy. The first leaf met is expanded with all its
//! children, each valued by the quiescence search and the evaluation (a king that can be taken is
//! worth a win). Expansions are chosen in batches and evaluated in parallel, then inserted in the
//! order they were chosen, so the tree does not depend on the threads.

use super::keys;
use super::solver::{Kind, Player, Tree, NODE_BYTES};
use crate::core::{Bitboard, Color, Move, Role, Square};
use crate::eval::{to_value, Evaluator};
use crate::rules::{vision, Position};
use crate::search::alphabeta::{score_root_moves, WorldLimit, WorldScores};
use crate::search::quiesce::quiesce;
use crate::search::sim::{result_value, Sim};
use crate::search::tree::move_key;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// What the chess side of the tree keeps per node (aligned with the solver's nodes).
#[derive(Clone, Copy, Debug)]
struct NodeData {
    /// The move from the parent (for a root: none).
    mv: Move,
    /// The move was a drop that bounced: nothing changed and the same side moves again.
    bounce: bool,
    /// Observation keys of us and them (set when the node is expanded, or at a root).
    keys: [u64; 2],
    /// Expansion walks that went through the node.
    visits: u32,
}

/// Bytes a node of the subgame takes, solver and chess data together, with a share for its
/// information set.
pub const SUBGAME_NODE_BYTES: usize = NODE_BYTES + std::mem::size_of::<NodeData>() + 24;

/// Exploration constant of the expansion walk's bonus.
const EXPLORATION: f32 = 1.0;

/// A chosen expansion: the leaf and how play came there.
struct Job {
    node: u32,
    sim: Sim,
    /// Squares where the side to move's drops bounced this turn.
    bounced: Bitboard,
    /// The parent's keys and the ply that led here (`None` for a root).
    from: Option<Ply>,
    depth: u32,
}

/// The ply from a parent to the leaf.
struct Ply {
    keys: [u64; 2],
    mover: Color,
    mv: Move,
    bounce: bool,
    captured: Option<(Square, crate::core::Piece)>,
    try_armed: bool,
}

/// What evaluating a job found.
enum Expansion {
    /// Not evaluated: the time ran out first.
    Skipped,
    Terminal(f32),
    Decision {
        keys: [u64; 2],
        player: Player,
        children: Vec<ChildSpec>,
    },
}

/// One child of an expansion.
struct ChildSpec {
    mv: Move,
    bounce: bool,
    value: f32,
    terminal: bool,
}

/// The subgame of one search.
pub struct Subgame {
    tree: Tree,
    data: Vec<NodeData>,
    worlds: Vec<Position>,
    us: Color,
    /// Our moves at the root, sorted by [`move_key`].
    root_moves: Vec<Move>,
    root_bounced: Bitboard,
    /// Expansions done.
    expansions: u64,
    max_depth: u32,
    rng: Xoshiro256PlusPlus,
}

/// The player index of `color` when `us` is player 0.
fn player_of(color: Color, us: Color) -> Player {
    u8::from(color != us)
}

/// The value for `us` of `pos`, from its quiescence value for the side to move.
fn leaf_value(pos: &Position, us: Color, eval: &Evaluator) -> f32 {
    let v = to_value(quiesce(pos, eval));
    if pos.turn() == us {
        v
    } else {
        -v
    }
}

/// Plies of the alpha-beta search (on top of the quiescence search) that values the children
/// of an expansion.
const LEAF_DEPTH: u32 = 2;

/// The values, for the side to move in `pos`, of playing each of `moves`: an alpha-beta search
/// of [`LEAF_DEPTH`] plies after each, as if both sides saw the whole world from there, cut
/// short at `deadline` (the plies it completed count).
fn leaf_scores(pos: &Position, moves: &[Move], eval: &Evaluator, deadline: Option<Instant>) -> WorldScores {
    let limit = WorldLimit { nodes: None, deadline, max_depth: LEAF_DEPTH, table_entries: 256 };
    score_root_moves(pos, moves, limit, &AtomicBool::new(false), eval)
}

impl Subgame {
    /// The subgame over `worlds` (positions with us to move, and their weights) for our `moves`,
    /// with `bounced` the squares our drops already bounced on this turn.
    pub fn new(
        worlds: &[(Position, f64)],
        moves: &[Move],
        bounced: Bitboard,
        eval: &Evaluator,
        rng: Xoshiro256PlusPlus,
    ) -> Subgame {
        let us = worlds.first().map_or(Color::White, |w| w.0.turn());
        let mut root_moves = moves.to_vec();
        root_moves.sort_by_key(|&m| move_key(m));
        root_moves.dedup();
        let mut tree = Tree::new();
        let mut data = Vec::new();
        for (world, weight) in worlds {
            tree.add_root(*weight, leaf_value(world, us, eval));
            let dummy = Move::normal(Square::new_unchecked(0), Square::new_unchecked(0));
            let keys = [keys::ROOT_KEY, keys::view_key(world, us.opponent())];
            data.push(NodeData { mv: dummy, bounce: false, keys, visits: 0 });
        }
        Subgame {
            tree,
            data,
            worlds: worlds.iter().map(|w| w.0.clone()).collect(),
            us,
            root_moves,
            root_bounced: bounced,
            expansions: 0,
            max_depth: 0,
            rng,
        }
    }

    /// The solver's tree.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Expansions done.
    pub fn expansions(&self) -> u64 {
        self.expansions
    }

    /// The deepest ply an expansion reached.
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// The move of child `node`.
    pub fn move_of(&self, node: u32) -> Move {
        self.data[node as usize].mv
    }

    /// The observation keys (ours, theirs) of an expanded node.
    #[cfg(test)]
    pub fn keys_of(&self, node: u32) -> [u64; 2] {
        self.data[node as usize].keys
    }

    /// One solver iteration.
    pub fn iterate(&mut self) {
        self.tree.iterate();
    }

    /// Chooses up to `count` leaves and expands them, evaluating them in parallel on the
    /// current pool; returns how many were expanded (fewer when the walks find no leaf, the
    /// tree would pass `max_nodes`, or `out_of_time` says so before a leaf is evaluated; a leaf
    /// being evaluated at `deadline` is valued by the plies its search completed).
    pub fn expand(
        &mut self,
        count: usize,
        eval: &Evaluator,
        max_nodes: usize,
        (out_of_time, deadline): (&(dyn Fn() -> bool + Sync), Option<Instant>),
    ) -> usize {
        let mut jobs = Vec::new();
        let mut chosen = HashSet::new();
        for attempt in 0..count * 2 {
            if jobs.len() >= count {
                break;
            }
            let explorer = ((self.expansions + attempt as u64) % 2) as Player;
            if let Some(job) = self.choose(explorer) {
                if chosen.insert(job.node) {
                    jobs.push(job);
                }
            }
        }
        let results: Vec<Expansion> = jobs
            .par_iter()
            .map(|job| if out_of_time() { Expansion::Skipped } else { self.evaluate(job, eval, deadline) })
            .collect();
        let mut done = 0;
        for (job, result) in jobs.into_iter().zip(results) {
            match &result {
                Expansion::Skipped => continue,
                Expansion::Decision { children, .. } if self.tree.len() + children.len() > max_nodes => break,
                _ => {}
            }
            self.insert(job, result);
            done += 1;
        }
        self.expansions += done as u64;
        done
    }

    /// The root to grow next: the one with the fewest walks for its weight.
    fn next_root(&self) -> usize {
        let roots = self.tree.roots();
        (0..roots.len())
            .min_by(|&a, &b| {
                let load = |i: usize| (f64::from(self.data[roots[i].0 as usize].visits) + 1.0) / roots[i].1.max(1e-9);
                load(a).total_cmp(&load(b))
            })
            .unwrap_or(0)
    }

    /// Walks from a root to a leaf for `explorer`; `None` if it ends on a terminal.
    fn choose(&mut self, explorer: Player) -> Option<Job> {
        if self.tree.roots().is_empty() {
            return None;
        }
        let root = self.next_root();
        self.walk_to_leaf(root, |game, node, actor| Some(game.pick_child(node, actor, explorer)))
    }

    /// Walks from root `r`, taking at each decision the child `pick` names, to the first leaf;
    /// `None` if the walk ends on a terminal or `pick` names none.
    fn walk_to_leaf(&mut self, r: usize, mut pick: impl FnMut(&mut Self, u32, Player) -> Option<u32>) -> Option<Job> {
        let mut node = self.tree.roots()[r].0;
        let mut sim = Sim::new(self.worlds[r].clone());
        let mut bounced = self.root_bounced;
        let mut from = None;
        let mut depth = 0;
        loop {
            self.data[node as usize].visits += 1;
            match self.tree.kind(node) {
                Kind::Terminal => return None,
                Kind::Leaf => return Some(Job { node, sim, bounced, from, depth }),
                Kind::Decision(actor) => {
                    let child = pick(self, node, actor)?;
                    let d = self.data[child as usize];
                    let mover = sim.pos.turn();
                    let keys = self.data[node as usize].keys;
                    let (captured, try_armed) = if d.bounce {
                        bounced |= Bitboard::from_square(d.mv.to);
                        (None, false)
                    } else {
                        let step = sim.step(d.mv);
                        bounced = Bitboard::EMPTY;
                        (step.captured, step.try_armed)
                    };
                    from = Some(Ply { keys, mover, mv: d.mv, bounce: d.bounce, captured, try_armed });
                    node = child;
                    depth += 1;
                }
            }
        }
    }

    /// Expands the node that `line` leads to from root `r` (a test's way to grow the tree where
    /// it looks); false if the line does not lead to a leaf.
    #[cfg(test)]
    fn expand_line(&mut self, r: usize, line: &[Move], eval: &Evaluator) -> bool {
        let mut rest = line.iter();
        let job = self.walk_to_leaf(r, |game, node, _| {
            let mv = *rest.next()?;
            game.tree.children(node).find(|&c| game.data[c as usize].mv == mv)
        });
        let Some(job) = job else { return false };
        let result = self.evaluate(&job, eval, None);
        self.insert(job, result);
        true
    }

    /// The child the walk takes at `node`, where `actor` decides.
    fn pick_child(&mut self, node: u32, actor: Player, explorer: Player) -> u32 {
        let children = self.tree.children(node);
        let set = self.tree.infoset_of(node).expect("a decision has an information set");
        let strategy = set.strategy();
        if actor != explorer {
            let mut x: f32 = self.rng.gen();
            for (i, child) in children.clone().enumerate() {
                x -= strategy[i];
                if x <= 0.0 {
                    return child;
                }
            }
            return children.end - 1;
        }
        if self.rng.gen_bool(0.5) {
            let played: Vec<u32> =
                children.clone().enumerate().filter(|&(i, _)| strategy[i] > 0.0).map(|x| x.1).collect();
            if !played.is_empty() {
                return played[self.rng.gen_range(0..played.len())];
            }
        }
        let sign = if actor == 0 { 1.0 } else { -1.0 };
        let parent_visits = self.data[node as usize].visits as f32;
        children
            .max_by(|&a, &b| {
                let score = |c: u32| {
                    let bonus =
                        EXPLORATION * (parent_visits + 1.0).sqrt() / (1.0 + self.data[c as usize].visits as f32);
                    sign * self.tree.value(c) + bonus
                };
                score(a).total_cmp(&score(b))
            })
            .expect("a decision has children")
    }

    /// The moves of the side to move in a world, as it decides them from its view: its
    /// pseudo-legal moves, and drops onto squares in its fog that are occupied (which bounce),
    /// except on the squares in `bounced`; each with whether it bounces.
    fn moves_in_world(pos: &Position, bounced: Bitboard) -> Vec<(Move, bool)> {
        let mut moves: Vec<(Move, bool)> = pos.moves().iter().map(|&m| (m, false)).collect();
        let side = pos.turn();
        let hand = pos.hand(side);
        if pos.variant().has_hands() && !hand.is_empty() {
            let (seen, silhouettes) = vision(pos, side);
            let hidden = pos.occupied() & pos.variant().board_mask() & !(seen | silhouettes) & !bounced;
            for role in hand.roles() {
                let back = if role == Role::Pawn { Bitboard::rank(0) | Bitboard::rank(7) } else { Bitboard::EMPTY };
                for sq in hidden & !back {
                    moves.push((Move::drop(role, sq), true));
                }
            }
        }
        moves.sort_by_key(|&(m, _)| move_key(m));
        moves
    }

    /// Our root moves in world `pos`: each plays, bounces, or (not possible in this world, which
    /// a consistent belief never draws) ends the line at the world's value.
    fn root_moves_in_world(&self, pos: &Position) -> Vec<(Move, Option<bool>)> {
        let playable = pos.moves();
        self.root_moves
            .iter()
            .map(|&m| {
                if m.is_drop() && pos.occupied().contains(m.to) {
                    (m, Some(true))
                } else {
                    (m, playable.contains(&m).then_some(false))
                }
            })
            .collect()
    }

    /// Evaluates a job: the leaf's keys, and its children with their values.
    fn evaluate(&self, job: &Job, eval: &Evaluator, deadline: Option<Instant>) -> Expansion {
        let us = self.us;
        let pos = &job.sim.pos;
        let keys = match &job.from {
            None => self.data[job.node as usize].keys,
            Some(ply) => child_keys(ply, pos, us),
        };
        let actions: Vec<(Move, Option<bool>)> = match job.from {
            None => self.root_moves_in_world(pos),
            Some(_) => Self::moves_in_world(pos, job.bounced).into_iter().map(|(m, b)| (m, Some(b))).collect(),
        };
        if actions.is_empty() {
            return Expansion::Terminal(result_value(job.sim.no_moves_result(), us));
        }
        // A bounce, or a move this world does not allow, leaves the position as it is.
        let unchanged = actions.iter().any(|a| a.1 != Some(false));
        let here = if unchanged { leaf_value(pos, us, eval) } else { 0.0 };
        let playable: Vec<Move> = actions.iter().filter(|a| a.1 == Some(false)).map(|a| a.0).collect();
        let searched = leaf_scores(pos, &playable, eval, deadline);
        let sign = if pos.turn() == us { 1.0 } else { -1.0 };
        let mut scores = searched.scores.iter();
        let children = actions
            .into_iter()
            .map(|(mv, bounce)| match bounce {
                Some(true) => ChildSpec { mv, bounce: true, value: here, terminal: false },
                None => ChildSpec { mv, bounce: false, value: here, terminal: true },
                Some(false) => {
                    let score = scores.next().copied().flatten();
                    let mut sim = job.sim.clone();
                    match sim.step(mv).result {
                        Some(result) => {
                            ChildSpec { mv, bounce: false, value: result_value(result, us), terminal: true }
                        }
                        None => {
                            let value = score.map_or_else(|| leaf_value(&sim.pos, us, eval), |s| sign * to_value(s));
                            ChildSpec { mv, bounce: false, value, terminal: false }
                        }
                    }
                }
            })
            .collect();
        Expansion::Decision { keys, player: player_of(pos.turn(), us), children }
    }

    /// Puts an evaluated job into the tree.
    fn insert(&mut self, job: Job, result: Expansion) {
        self.max_depth = self.max_depth.max(job.depth);
        match result {
            Expansion::Skipped => {}
            Expansion::Terminal(value) => self.tree.set_terminal(job.node, value),
            Expansion::Decision { keys, player, children } => {
                let actions: Vec<(u32, f32, bool)> =
                    children.iter().map(|c| (move_key(c.mv), c.value, c.terminal)).collect();
                self.tree.expand(job.node, player, keys[player as usize], &actions);
                self.data[job.node as usize].keys = keys;
                for c in children {
                    self.data.push(NodeData { mv: c.mv, bounce: c.bounce, keys: [0, 0], visits: 0 });
                }
            }
        }
    }

    /// Our root information set's moves with their current probabilities and their values for
    /// us (weighted over the worlds).
    pub fn root_policy(&self) -> Vec<RootMove> {
        let Some(&(root, _)) = self.tree.roots().iter().find(|r| matches!(self.tree.kind(r.0), Kind::Decision(_)))
        else {
            return Vec::new();
        };
        let set = self.tree.infoset_of(root).expect("an expanded root has a set");
        let total: f64 = self.tree.roots().iter().map(|r| r.1).sum();
        let mut values = vec![0.0f64; set.actions().len()];
        for &(r, w) in self.tree.roots() {
            if self.tree.infoset_id(r) != self.tree.infoset_id(root) {
                continue;
            }
            for (i, c) in self.tree.children(r).enumerate() {
                values[i] += w / total * f64::from(self.tree.value(c));
            }
        }
        self.tree
            .children(root)
            .enumerate()
            .map(|(i, c)| RootMove {
                mv: self.data[c as usize].mv,
                current: set.strategy()[i],
                value: values[i] as f32,
            })
            .collect()
    }
}

/// A root move and what the solver says of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootMove {
    /// The move.
    pub mv: Move,
    /// Its probability in the current strategy.
    pub current: f32,
    /// Its value for us, averaged over the worlds.
    pub value: f32,
}

/// The keys after the ply `ply` that ended in `pos`.
fn child_keys(ply: &Ply, pos: &Position, us: Color) -> [u64; 2] {
    let mover = player_of(ply.mover, us) as usize;
    let mut keys = ply.keys;
    if ply.bounce {
        keys[mover] = keys::with_bounce(keys::with_action(keys[mover], ply.mv), ply.mv.to);
        return keys;
    }
    for (i, color) in [us, us.opponent()].into_iter().enumerate() {
        let mut key = keys[i];
        if i == mover {
            key = keys::with_action(key, ply.mv);
        }
        keys[i] = keys::with_observation(key, keys::observation(pos, color, ply.captured, ply.try_armed));
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;
    use rand::SeedableRng;

    fn pos(fen: &str) -> Position {
        Position::from_fen(Variant::DarkChess, fen).unwrap()
    }

    fn m(uci: &str) -> Move {
        Move::parse(uci, Variant::DarkChess).unwrap()
    }

    /// The subgame over `worlds` (equal weights) for White's moves, with each root and each
    /// of `lines` expanded in every world.
    fn grown(worlds: &[Position], lines: &[&[&str]]) -> Subgame {
        let weighted: Vec<(Position, f64)> = worlds.iter().map(|w| (w.clone(), 1.0)).collect();
        let moves: Vec<Move> = worlds[0].moves().to_vec();
        let rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut game = Subgame::new(&weighted, &moves, Bitboard::EMPTY, &Evaluator::Hand, rng);
        for r in 0..worlds.len() {
            assert!(game.expand_line(r, &[], &Evaluator::Hand));
            for line in lines {
                let line: Vec<Move> = line.iter().map(|uci| m(uci)).collect();
                for len in 1..=line.len() {
                    if game.walk_line(r, &line[..len]).is_some_and(|n| game.tree.kind(n) == Kind::Leaf) {
                        assert!(game.expand_line(r, &line[..len], &Evaluator::Hand));
                    }
                }
            }
        }
        game
    }

    impl Subgame {
        /// The node `line` leads to from root `r`, if it is in the tree.
        fn walk_line(&self, r: usize, line: &[Move]) -> Option<u32> {
            let mut node = self.tree.roots()[r].0;
            for &mv in line {
                node = self.tree.children(node).find(|&c| self.data[c as usize].mv == mv)?;
            }
            Some(node)
        }
    }

    #[test]
    fn worlds_we_cannot_tell_apart_share_our_sets_and_moves_the_opponent_cannot_see_share_its_set() {
        // White sees its own half; Black's knight stands on g6 or on c6, out of White's sight.
        let worlds = [pos("4k3/8/6n1/8/8/8/P6P/4K3 w - - 0 1"), pos("4k3/8/2n5/8/8/8/P6P/4K3 w - - 0 1")];
        let lines: [&[&str]; 5] = [&["a2a3", "e8d8"], &["a2a3", "c6b4"], &["a2a4"], &["h2h3"], &["h2h4"]];
        let game = grown(&worlds, &lines);
        let tree = game.tree();
        let roots: Vec<u32> = tree.roots().iter().map(|r| r.0).collect();
        assert_eq!(tree.infoset_id(roots[0]), tree.infoset_id(roots[1]), "one root set for us");
        // After h2-h3 and h2-h4 in the first world, Black's knight on g6 sees h4 but not h3:
        // after a2-a3 and a2-a4 it sees neither, and cannot tell the two moves apart.
        let node = |r: usize, line: &[&str]| {
            let line: Vec<Move> = line.iter().map(|uci| m(uci)).collect();
            game.walk_line(r, &line).expect("the line is in the tree")
        };
        let (a3, a4, h3, h4) = (node(0, &["a2a3"]), node(0, &["a2a4"]), node(0, &["h2h3"]), node(0, &["h2h4"]));
        for n in [a3, a4, h3, h4] {
            assert_eq!(tree.kind(n), Kind::Decision(1));
        }
        assert_eq!(tree.infoset_id(a3), tree.infoset_id(a4), "a move in Black's fog is not seen");
        assert_ne!(tree.infoset_id(h3), tree.infoset_id(h4), "h4 stands where the knight sees it");
        assert_ne!(game.keys_of(a3)[0], game.keys_of(a4)[0], "we know which move we made");
        // Black knows where its knight is: its sets differ between the worlds.
        assert_ne!(tree.infoset_id(a3), tree.infoset_id(node(1, &["a2a3"])));
        // After a reply seen the same way in both worlds (the king's step from e8 to d8 is out
        // of White's sight), our set is shared again.
        let (first, second) = (node(0, &["a2a3", "e8d8"]), node(1, &["a2a3", "e8d8"]));
        assert_eq!((tree.kind(first), tree.kind(second)), (Kind::Decision(0), Kind::Decision(0)));
        assert_eq!(tree.infoset_id(first), tree.infoset_id(second));
        // A reply White sees (the knight from c6 to b4, where the a3 pawn looks) is its own set.
        let seen = node(1, &["a2a3", "c6b4"]);
        assert_eq!(tree.kind(seen), Kind::Decision(0));
        assert_ne!(tree.infoset_id(seen), tree.infoset_id(first));
    }

    #[test]
    fn a_drop_onto_a_hidden_piece_bounces_and_the_dropper_moves_again() {
        // White holds a knight and sees neither d5 nor h5; a black pawn stands on d5.
        let world = Position::from_fen(Variant::DarkCrazyhouse, "4k3/8/8/3p4/8/8/P7/4K3[N] w - - 0 1").unwrap();
        let moves: Vec<Move> =
            crate::view::View::of(&world, Color::White).own_moves(world.castling(), Bitboard::EMPTY).to_vec();
        let rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut game = Subgame::new(&[(world, 1.0)], &moves, Bitboard::EMPTY, &Evaluator::Hand, rng);
        assert!(game.expand_line(0, &[], &Evaluator::Hand));
        let root = game.tree().roots()[0].0;
        let drop = |sq: &str| Move::parse(&format!("N@{sq}"), Variant::DarkCrazyhouse).unwrap();
        let bounced = game.tree().children(root).find(|&c| game.move_of(c) == drop("d5")).unwrap();
        assert!(game.data[bounced as usize].bounce);
        let landed = game.tree().children(root).find(|&c| game.move_of(c) == drop("h5")).unwrap();
        assert!(!game.data[landed as usize].bounce);
        assert!(game.expand_line(0, &[drop("d5")], &Evaluator::Hand));
        assert!(matches!(game.tree().kind(bounced), Kind::Decision(0)), "after a bounce White moves again");
        let again: Vec<Move> = game.tree().children(bounced).map(|c| game.move_of(c)).collect();
        assert!(!again.contains(&drop("d5")), "not onto the square that bounced");
        assert!(again.contains(&drop("h5")) && again.contains(&m("a2a3")));
    }
}
