//! Where each world came from: the opponent moves that lead to it from an anchor (the agreed start
//! position, or a world a fallback made up), so that any world can be replayed through the rules
//! core against every observation. This is the independent consistency test of the belief.

use super::step::{arms_try, goes_on};
use crate::core::{Color, Move};
use crate::rules::{PlyReport, Position};
use crate::view::{Event, Observation};

/// A world known after the first `events` events, from which lineages start.
#[derive(Clone, Debug)]
pub struct Anchor {
    /// How many events of the history the anchor already accounts for.
    pub events: usize,
    /// The world at that point.
    pub world: Position,
}

#[derive(Clone, Copy, Debug)]
enum Node {
    Root(u32),
    Step { parent: u32, mv: Move },
}

/// Bytes one lineage node takes (for the memory budget).
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

/// A tree of opponent moves shared by all worlds; each world holds the id of its leaf.
#[derive(Clone, Debug)]
pub struct Lineage {
    anchors: Vec<Anchor>,
    nodes: Vec<Node>,
}

impl Lineage {
    /// An empty lineage with room for `nodes` nodes reserved at once (so that what it holds
    /// does not grow past its budget by doubling).
    pub fn with_capacity(nodes: usize) -> Lineage {
        Lineage { anchors: Vec::new(), nodes: Vec::with_capacity(nodes) }
    }

    /// Adds an anchor and returns the node of its root.
    pub fn anchor(&mut self, anchor: Anchor) -> u32 {
        self.anchors.push(anchor);
        self.nodes.push(Node::Root(self.anchors.len() as u32 - 1));
        self.nodes.len() as u32 - 1
    }

    /// The node reached from `parent` by the opponent move `mv`.
    pub fn step(&mut self, parent: u32, mv: Move) -> u32 {
        self.nodes.push(Node::Step { parent, mv });
        self.nodes.len() as u32 - 1
    }

    /// Number of nodes stored.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The anchor of `node` and the opponent moves from it, in order.
    pub fn path(&self, mut node: u32) -> (&Anchor, Vec<Move>) {
        let mut moves = Vec::new();
        loop {
            match self.nodes[node as usize] {
                Node::Root(a) => {
                    moves.reverse();
                    return (&self.anchors[a as usize], moves);
                }
                Node::Step { parent, mv } => {
                    moves.push(mv);
                    node = parent;
                }
            }
        }
    }

    /// Drops every node no live world leads through, and renumbers `live` to match.
    pub fn compact(&mut self, live: &mut [u32]) {
        self.compact_since(0, live);
    }

    /// Like [`Lineage::compact`] for the nodes from `mark` on only: those before it are all kept
    /// as they are (worlds held elsewhere lead through them), so `live` need only name the worlds
    /// that lead through the newer ones.
    pub fn compact_since(&mut self, mark: usize, live: &mut [u32]) {
        let mut keep = vec![false; self.nodes.len() - mark];
        for &leaf in live.iter() {
            let mut n = leaf as usize;
            while n >= mark && !keep[n - mark] {
                keep[n - mark] = true;
                match self.nodes[n] {
                    Node::Root(_) => break,
                    Node::Step { parent, .. } => n = parent as usize,
                }
            }
        }
        // Kept nodes move down in order, so the nodes can be rewritten in place.
        let mut renumber = vec![u32::MAX; keep.len()];
        let mut next = mark;
        for (i, &kept) in keep.iter().enumerate() {
            if !kept {
                continue;
            }
            let node = match self.nodes[mark + i] {
                Node::Step { parent, mv } if parent as usize >= mark => {
                    Node::Step { parent: renumber[parent as usize - mark], mv }
                }
                node => node,
            };
            self.nodes[next] = node;
            renumber[i] = next as u32;
            next += 1;
        }
        self.nodes.truncate(next);
        for n in live.iter_mut().filter(|n| **n as usize >= mark) {
            *n = renumber[*n as usize - mark];
        }
    }

    /// Forgets the nodes from `mark` on (no world leads through them any more).
    pub fn truncate(&mut self, mark: usize) {
        self.nodes.truncate(mark);
    }

    /// Memory held, in bytes.
    pub fn bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
    }
}

/// Replays the world `node` leads to through `events` (the whole history of `side`), checking
/// every observation, every bounce and that the game went on after every ply but the last.
/// Returns the world, or what went wrong. `from_start` demands that the anchor be event 0.
pub fn replay(
    lineage: &Lineage,
    node: u32,
    events: &[Event],
    side: Color,
    from_start: bool,
) -> Result<Position, String> {
    let (anchor, path) = lineage.path(node);
    if from_start && anchor.events != 0 {
        return Err(format!("world anchored at event {} by a fallback", anchor.events));
    }
    let mut pos = anchor.world.clone();
    let mut moves = path.into_iter();
    for (i, event) in events.iter().enumerate().skip(anchor.events) {
        if !goes_on(&pos) {
            return Err(format!("event {i}: the game would already be over"));
        }
        match event {
            Event::Own { mv, obs } => {
                if pos.turn() != side {
                    return Err(format!("event {i}: own move out of turn"));
                }
                ply(&mut pos, *mv, obs, side).map_err(|e| format!("event {i}: own move: {e}"))?;
            }
            Event::Opponent { obs } => {
                let mv = moves.next().ok_or_else(|| format!("event {i}: lineage too short"))?;
                if pos.turn() == side {
                    return Err(format!("event {i}: opponent move out of turn"));
                }
                ply(&mut pos, mv, obs, side).map_err(|e| format!("event {i}: opponent move: {e}"))?;
            }
            Event::Bounce { square } => {
                if pos.turn() != side || !pos.by_color(side.opponent()).contains(*square) {
                    return Err(format!("event {i}: bounce on {square}, which is not held by the enemy"));
                }
            }
        }
    }
    match moves.next() {
        Some(_) => Err("lineage longer than the history".into()),
        None => Ok(pos),
    }
}

/// Plays `mv` on `pos` (it must be pseudo-legal there) and checks what `side` observes after it.
fn ply(pos: &mut Position, mv: Move, obs: &Observation, side: Color) -> Result<(), String> {
    if !pos.moves().contains(&mv) {
        return Err(format!("{} is not a move here", mv.to_uci(pos.variant())));
    }
    let mover = pos.turn();
    let captured = pos.play_unchecked(mv);
    let report = PlyReport { mv, captured, try_armed: arms_try(pos, mover, mv), outcome: None };
    let got = Observation::after_ply(pos, &report, side);
    if got != *obs {
        return Err(format!(
            "observation not reproduced after {}: expected '{}', got '{}'",
            mv.to_uci(pos.variant()),
            obs.to_args(),
            got.to_args()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Square, Variant};

    fn mv(i: u8) -> Move {
        Move::normal(Square::new_unchecked(i), Square::new_unchecked(i + 1))
    }

    #[test]
    fn compacting_from_a_mark_keeps_the_older_nodes_and_the_live_lines() {
        let mut lineage = Lineage::with_capacity(16);
        let root = lineage.anchor(Anchor { events: 0, world: Position::start(Variant::DarkChess) });
        let old = lineage.step(root, mv(1));
        let dead_old = lineage.step(root, mv(2));
        let mark = lineage.len();
        let dead = lineage.step(old, mv(3));
        let mid = lineage.step(old, mv(4));
        let live_a = lineage.step(mid, mv(5));
        lineage.step(dead, mv(6));
        let live_b = lineage.step(dead_old, mv(7));
        let want: Vec<Vec<Move>> = [live_a, live_b, old].iter().map(|&n| lineage.path(n).1).collect();
        let mut live = [live_a, live_b, old];
        lineage.compact_since(mark, &mut live);
        // Before the mark all four nodes stay (dead_old too); after it, the two lines' three.
        assert_eq!(lineage.len(), mark + 3);
        assert_eq!(live[2], old);
        let got: Vec<Vec<Move>> = live.iter().map(|&n| lineage.path(n).1).collect();
        assert_eq!(got, want);
        lineage.truncate(mark);
        assert_eq!(lineage.len(), mark);
        assert_eq!(lineage.path(dead_old).1, vec![mv(2)]);
    }
}
