//! Where each world came from: the opponent moves that lead to it from an anchor (the agreed start
//! position, or a world a fallback made up), so that any world can be replayed through the rules
//! core against every observation. This is the independent consistency test of the belief.

use super::step::{arms_try, goes_on};
use crate::core::{Color, Move};
use crate::engine::Event;
use crate::rules::{PlyReport, Position};
use crate::view::Observation;

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

/// A tree of opponent moves shared by all worlds; each world holds the id of its leaf.
#[derive(Clone, Debug, Default)]
pub struct Lineage {
    anchors: Vec<Anchor>,
    nodes: Vec<Node>,
}

impl Lineage {
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
        let mut keep = vec![false; self.nodes.len()];
        for &leaf in live.iter() {
            let mut n = leaf as usize;
            while !keep[n] {
                keep[n] = true;
                match self.nodes[n] {
                    Node::Root(_) => break,
                    Node::Step { parent, .. } => n = parent as usize,
                }
            }
        }
        let mut renumber = vec![u32::MAX; self.nodes.len()];
        let mut kept = Vec::with_capacity(keep.iter().filter(|&&k| k).count());
        for (i, node) in self.nodes.iter().enumerate() {
            if !keep[i] {
                continue;
            }
            renumber[i] = kept.len() as u32;
            kept.push(match *node {
                Node::Step { parent, mv } => Node::Step { parent: renumber[parent as usize], mv },
                root => root,
            });
        }
        self.nodes = kept;
        for n in live.iter_mut() {
            *n = renumber[*n as usize];
        }
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
