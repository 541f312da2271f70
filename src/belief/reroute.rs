//! Rerouting: the last try before a fallback. A world that agreed with the whole history until
//! the newest event (a seed), with its line of opponent moves from its anchor, is given other
//! paths for a few of the opponent's pieces: the chosen pieces may make any move the
//! observations allow at any ply, and the other pieces make the moves the line gave them, in
//! the same order, at the line's ply or later (a first pass) or at any ply (a second), or not at
//! all. The pieces are chosen from what the newest events disagree with: the seed's pieces where
//! the latest view shows something else, the pieces of a role it shows where the seed has none,
//! and the pieces that stood where a drop has just bounced but left. In Crazyhouse the hand may
//! also drop freely over the latest levels. Last, a few moves of any piece over the latest
//! levels may break the line (edits; each frees the piece it moves): dark-crazyhouse g-g game
//! 159 needed a pawn drop twenty plies early, another rook move, a knight dropped in place of a
//! bishop and a second bishop, which no choice of pieces gives.
//!
//! The regeneration searches branch on every move of every hidden ply, so they cannot reach far
//! back; this one keeps close to one line and so reaches back to its anchor (the start of the
//! game), which is where a line that lost the truth long ago went wrong (dark-chess r-r game
//! 479: a knight's three moves early in the game). Every world it returns is the end of a line
//! of moves checked against every event by the update's own steps, so it is consistent with the
//! whole history.

use super::keys::world_key;
use super::lineage::Anchor;
use super::regen::{levels, Found, Guide, Level};
use super::step::{goes_on, own_child, Collect};
use super::worlds::{WorldBuilder, WorldSet, NO_NODE};
use super::{last_view, Belief};
use crate::core::{Bitboard, Color, Move, Square};
use crate::rules::Position;
use crate::view::{SquareView, View};
use rand::Rng;
use std::collections::HashMap;

/// One seed: the world its line starts from (its anchor) with its key, and the line.
struct Seed<'a> {
    anchor: &'a Position,
    anchor_key: u64,
    line: &'a [Move],
}

/// The seed's line piece by piece: which of the opponent's pieces made each of its moves.
/// Pieces are numbered: those of the anchor world first, then each dropped one.
struct Lineup {
    /// For each level: the line's move there and the piece that made it (opponent plies).
    moves: Vec<Option<(Move, Option<usize>)>>,
    /// For each piece: its square in the anchor world (none for a dropped piece).
    home: Vec<Option<Square>>,
    /// For each piece: every square it stood on along the line.
    visited: Vec<Bitboard>,
    /// The world at the end of the line.
    end: Position,
    /// Which piece stands on each square at the end of the line.
    owner: [Option<usize>; 64],
}

impl Lineup {
    /// Replays the seed's line through `levels`, following every piece of `enemy`.
    fn new(seed: &Seed, levels: &[Level], enemy: Color) -> Lineup {
        let mut pos = seed.anchor.clone();
        let mut owner: [Option<usize>; 64] = [None; 64];
        let (mut home, mut visited) = (Vec::new(), Vec::new());
        for sq in pos.by_color(enemy) {
            owner[sq.index()] = Some(home.len());
            home.push(Some(sq));
            visited.push(Bitboard::from_square(sq));
        }
        let mut line = seed.line.iter();
        let mut moves = Vec::with_capacity(levels.len());
        for level in levels {
            let before = pos.by_color(enemy);
            let mut entry = None;
            match level {
                Level::Own(mv, _) => {
                    if goes_on(&pos) && pos.moves().contains(mv) {
                        pos.play_unchecked(*mv);
                    }
                }
                Level::Opponent(_) => {
                    if let Some(&m) = line.next() {
                        let mover = if m.is_drop() {
                            home.push(None);
                            visited.push(Bitboard::EMPTY);
                            Some(home.len() - 1)
                        } else {
                            owner[m.from.index()]
                        };
                        pos.play_unchecked(m);
                        entry = Some((m, mover));
                    }
                }
                Level::Bounce(_) => {}
            }
            let after = pos.by_color(enemy);
            let (gone, came) = (before & !after, after & !before);
            let movers: Vec<Option<usize>> = match entry {
                Some((m, mover)) if m.is_drop() => vec![mover],
                _ => gone.into_iter().map(|sq| owner[sq.index()]).collect(),
            };
            for sq in gone {
                owner[sq.index()] = None;
            }
            // Squares in reverse order pair a castling king and rook with their new squares.
            let came: Vec<Square> = came.into_iter().collect();
            for (&sq, who) in came.iter().rev().zip(movers) {
                owner[sq.index()] = who;
                if let Some(w) = who {
                    visited[w] = visited[w].with(sq);
                }
            }
            moves.push(entry);
        }
        Lineup { moves, home, visited, end: pos, owner }
    }

    /// The pieces the latest events disagree with: those on squares the view shows otherwise,
    /// those of a role it shows where the end of the line has none, and those that stood on a
    /// square where a drop bounced since the opponent's last ply and no longer stand there.
    fn disagreeing(&self, levels: &[Level], target_view: &View, enemy: Color) -> Vec<usize> {
        let mut wanted: Vec<usize> = Vec::new();
        let mut push = |who: Option<usize>| {
            if let Some(w) = who.filter(|w| !wanted.contains(w)) {
                wanted.push(w);
            }
        };
        let end = &self.end;
        for sq in end.by_color(enemy) {
            let differs = match target_view.square(sq) {
                SquareView::Fog => false,
                SquareView::Piece(p, _) => end.piece_at(sq) != Some(p),
                _ => true,
            };
            if differs {
                push(self.owner[sq.index()]);
            }
        }
        for sq in (0..64u8).map(Square::new_unchecked) {
            if let SquareView::Piece(p, _) = target_view.square(sq) {
                if p.color == enemy && end.piece_at(sq) != Some(p) {
                    for from in end.by_color(enemy).into_iter().filter(|&f| end.piece_at(f) == Some(p)) {
                        push(self.owner[from.index()]);
                    }
                }
            }
        }
        let since_opponent = levels.iter().rev().take_while(|l| !matches!(l, Level::Opponent(_)));
        for level in since_opponent {
            if let Level::Bounce(sq) = level {
                if !end.by_color(enemy).contains(*sq) {
                    (0..self.home.len()).filter(|&w| self.visited[w].contains(*sq)).for_each(|w| push(Some(w)));
                }
            }
        }
        wanted
    }
}

/// What to reroute, in the order to try it: the pieces the latest events disagree with on their
/// own, in pairs, in pairs with a third piece that moved in the line, with one other piece that
/// moved; in Crazyhouse then free drops over the latest levels, alone and with each of those
/// pieces; last the edit tries ([`EDIT_TRIES`]).
fn candidates(lineup: &Lineup, levels: &[Level], target_view: &View, enemy: Color) -> Vec<Choice> {
    let wanted = lineup.disagreeing(levels, target_view, enemy);
    let moved: Vec<usize> = lineup.moves.iter().flatten().filter_map(|&(_, who)| who).collect();
    let others: Vec<usize> = (0..lineup.home.len()).filter(|w| moved.contains(w) && !wanted.contains(w)).collect();
    let mut sets: Vec<Vec<usize>> = wanted.iter().map(|&a| vec![a]).collect();
    for (i, &a) in wanted.iter().enumerate() {
        for &b in &wanted[i + 1..] {
            sets.push(vec![a, b]);
            sets.extend(others.iter().map(|&c| vec![a, b, c]));
        }
    }
    for &a in &wanted {
        sets.extend(others.iter().map(|&b| vec![a, b]));
    }
    let mut choices: Vec<Choice> = sets
        .into_iter()
        .map(|pieces| Choice { pieces, drops: false, from_level: 0, delay_only: false, edits: 0 })
        .collect();
    if lineup.end.variant().has_hands() {
        // A hand drops anywhere in the fog: too many lines to go far back.
        for window in [8, 12, 16, 20, 24] {
            let from_level = levels.len().saturating_sub(window);
            for pieces in std::iter::once(vec![]).chain(wanted.iter().map(|&a| vec![a])) {
                choices.push(Choice { pieces, drops: true, from_level, delay_only: false, edits: 0 });
            }
        }
    }
    // Then a few moves of any piece anywhere over the latest levels, each freeing its piece.
    for (window, edits) in EDIT_TRIES {
        let from_level = levels.len().saturating_sub(window);
        choices.push(Choice { pieces: vec![], drops: false, from_level, delay_only: false, edits });
    }
    choices
}

/// The edit tries, in order: how many of the latest levels may break the line, and how many of
/// their moves may.
const EDIT_TRIES: [(usize, u8); 4] = [(12, 2), (24, 3), (36, 4), (48, 5)];

/// What one search may change.
#[derive(Clone, Debug)]
struct Choice {
    /// The pieces (numbered as in [`Lineup`]) that move freely once on the board.
    pieces: Vec<usize>,
    /// The hand may drop freely (the dropped pieces then move freely).
    drops: bool,
    /// Levels before this one replay the line as it is.
    from_level: usize,
    /// The other pieces' moves may come later than the line made them, not earlier.
    delay_only: bool,
    /// How many moves from `from_level` on may break the line (each frees the piece it moves).
    edits: u8,
}

/// The line's moves for one [`Choice`]: those of each piece not chosen (and the drops of chosen
/// ones), which the search may replay at other plies than the line did.
struct Skeleton {
    /// For each piece, the moves it must make in order, each with the level the line made it at.
    queues: Vec<Vec<(Move, usize)>>,
    /// For each piece, true if it is chosen.
    chosen: Vec<bool>,
}

impl Skeleton {
    /// The queues of `lineup` with the moves of the pieces of `choice` left out (but their drops).
    fn new(lineup: &Lineup, choice: &Choice) -> Skeleton {
        let chosen: Vec<bool> = (0..lineup.home.len()).map(|w| choice.pieces.contains(&w)).collect();
        let mut queues = vec![Vec::new(); lineup.home.len()];
        for (level, entry) in lineup.moves.iter().enumerate() {
            if let Some((m, Some(w))) = *entry {
                if !chosen[w] || m.is_drop() {
                    queues[w].push((m, level));
                }
            }
        }
        Skeleton { queues, chosen }
    }

    /// The squares of the chosen pieces in the anchor world.
    fn chosen_at_home(&self, lineup: &Lineup) -> Bitboard {
        (0..self.chosen.len())
            .filter(|&w| self.chosen[w])
            .filter_map(|w| lineup.home[w])
            .fold(Bitboard::EMPTY, Bitboard::with)
    }
}

/// The squares of the followed pieces `pieces` after a ply that turned the enemy's squares from
/// `before` into `after` (a piece that left goes where one arrived; a captured one is gone).
fn moved_pieces(pieces: Bitboard, before: Bitboard, after: Bitboard) -> Bitboard {
    let (gone, came) = (before & !after, after & !before);
    if (pieces & gone).any() {
        (pieces & after) | came
    } else {
        pieces & after
    }
}

/// A node of the search: the world after some levels, the followed pieces' squares, how far
/// each queue has got and how many edits are left.
struct Node {
    world: Position,
    key: u64,
    pieces: Bitboard,
    /// How many of its moves each piece of the skeleton has made.
    progress: Vec<u8>,
    /// How many more moves may break the line.
    edits: u8,
    /// The opponent's move that led here (none after an own move or a bounce).
    mv: Option<Move>,
}

/// A node on the search's stack, with the successors still to visit.
struct Frame {
    node: Node,
    kids: Option<Vec<Node>>,
}

/// Searches from `seed` (its line followed piece by piece in `lineup`) for up to `want` worlds
/// at the end of `levels` whose lines differ from the seed's as `choice` allows, spending at most
/// `budget` moves looked at.
#[allow(clippy::too_many_arguments)]
fn search(
    seed: &Seed,
    lineup: &Lineup,
    levels: &[Level],
    guide: &Guide,
    choice: &Choice,
    side: Color,
    want: usize,
    budget: &mut usize,
    rng: &mut impl Rng,
) -> Vec<Found> {
    let enemy = side.opponent();
    let skeleton = Skeleton::new(lineup, choice);
    let mut found = Vec::new();
    let mut distinct = WorldBuilder::new();
    // The most edits left with which each (level, world and followed squares) was reached.
    let mut seen: HashMap<(usize, u64), u8> = HashMap::new();
    let root = Node {
        world: seed.anchor.clone(),
        key: seed.anchor_key,
        pieces: skeleton.chosen_at_home(lineup),
        progress: vec![0; skeleton.queues.len()],
        edits: choice.edits,
        mv: None,
    };
    let mut stack = vec![Frame { node: root, kids: None }];
    while !stack.is_empty() {
        if *budget == 0 || found.len() >= want {
            break;
        }
        let depth = stack.len() - 1;
        if depth == levels.len() {
            let top = &stack[depth].node;
            if distinct.add(top.key, top.world.clone(), 1.0, || NO_NODE) {
                let moves = stack.iter().filter_map(|f| f.node.mv).collect();
                found.push(Found { world: top.world.clone(), key: top.key, root: 0, moves });
            }
            stack.pop();
            continue;
        }
        let top = &mut stack[depth];
        if top.kids.is_none() {
            let kids =
                successors(&levels[depth], lineup, &skeleton, choice, depth, &top.node, enemy, guide, budget, rng);
            let kids = kids
                .into_iter()
                .filter(|kid| guide.may_reach(depth, &kid.world) && first_visit(&mut seen, depth + 1, kid))
                .collect();
            top.kids = Some(kids);
        }
        match top.kids.as_mut().and_then(Vec::pop) {
            Some(node) => stack.push(Frame { node, kids: None }),
            None => {
                stack.pop();
            }
        }
    }
    found
}

/// True (and noted in `seen`) unless `node`'s world and followed squares were reached at `depth`
/// before with as many edits left or more (the queues' progress is not compared: a pruning
/// choice; whatever is found is consistent all the same).
fn first_visit(seen: &mut HashMap<(usize, u64), u8>, depth: usize, node: &Node) -> bool {
    let state = (depth, node.key ^ node.pieces.0);
    if seen.get(&state).is_some_and(|&edits| edits >= node.edits) {
        return false;
    }
    seen.insert(state, node.edits);
    true
}

/// The successors of the node `at` at level `depth` (popped from the back: the line's own
/// move last, then the moves nearest the latest view).
#[allow(clippy::too_many_arguments)]
fn successors(
    level: &Level,
    lineup: &Lineup,
    skeleton: &Skeleton,
    choice: &Choice,
    depth: usize,
    at: &Node,
    enemy: Color,
    guide: &Guide,
    budget: &mut usize,
    rng: &mut impl Rng,
) -> Vec<Node> {
    *budget = budget.saturating_sub(1);
    let (world, key) = (&at.world, at.key);
    if !goes_on(world) {
        return Vec::new();
    }
    let before = world.by_color(enemy);
    let follow = |w: &Position| moved_pieces(at.pieces, before, w.by_color(enemy));
    let next = |world: Position, key: u64, pieces: Bitboard, mv: Option<Move>| Node {
        world,
        key,
        pieces,
        progress: at.progress.clone(),
        edits: at.edits,
        mv,
    };
    match level {
        Level::Own(mv, obs) => own_child(world, key, enemy.opponent(), *mv, obs)
            .map(|(w, k)| {
                let pieces = follow(&w);
                next(w, k, pieces, None)
            })
            .into_iter()
            .collect(),
        Level::Bounce(sq) => {
            let held = world.by_color(enemy).contains(*sq);
            held.then(|| next(world.clone(), key, at.pieces, None)).into_iter().collect()
        }
        Level::Opponent(step) => {
            let mut sink = Collect::default();
            *budget = budget.saturating_sub(step.children(world, key, &mut sink, rng).moves);
            let line_move = lineup.moves[depth].map(|(m, _)| m);
            let mut kids: Vec<(i32, f64, Node)> = sink
                .0
                .into_iter()
                .filter_map(|(w, k, m, p)| {
                    if depth < choice.from_level && line_move != Some(m) {
                        return None;
                    }
                    let pieces = follow(&w);
                    let mut node = next(w, k, pieces, Some(m));
                    if m.is_drop() && choice.drops {
                        node.pieces = node.pieces.with(m.to);
                    } else if m.is_drop() || !at.pieces.contains(m.from) {
                        // Some piece's next move in the line: at its own level or later (when
                        // a rerouted piece took that ply), or in the second pass also earlier;
                        // else an edit, which frees the piece it moves.
                        let progress = &mut node.progress;
                        let queued = |i: usize| skeleton.queues[i].get(usize::from(progress[i])).copied();
                        let i = (0..progress.len())
                            .find(|&i| queued(i).is_some_and(|(q, l)| q == m && (l <= depth || !choice.delay_only)));
                        match i {
                            Some(i) => {
                                progress[i] += 1;
                                if m.is_drop() && skeleton.chosen[i] {
                                    node.pieces = node.pieces.with(m.to);
                                }
                            }
                            None if depth < choice.from_level => {}
                            None if node.edits > 0 => {
                                node.edits -= 1;
                                node.pieces = node.pieces.with(m.to);
                            }
                            None => return None,
                        }
                    }
                    let score = if line_move == Some(m) { i32::MAX } else { guide.score(world, m) };
                    let order = rng.gen::<f64>().max(f64::MIN_POSITIVE).ln() / p.max(1e-12);
                    Some((score, order, node))
                })
                .collect();
            kids.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            kids.into_iter().map(|(_, _, kid)| kid).collect()
        }
    }
}

impl Belief {
    /// Reroutes the pieces of the `seeds` (worlds that agreed with the history before the
    /// newest event; their lines are needed, so nothing is found without lineage) for up to
    /// `want` worlds consistent with the whole history, spending at most `budget` moves looked
    /// at: half on a pass where the other pieces' moves may only come late, the rest on one
    /// where they may also come early; within a pass half on the tries over the whole line and
    /// half on those over the latest levels, at most a sixteenth of the pass on one try.
    pub(super) fn reroute(&mut self, seeds: &WorldSet, want: usize, budget: &mut usize) -> WorldSet {
        let Some(lineage) = self.lineage.as_ref() else { return WorldSet::default() };
        let target = last_view(&self.initial_view, &self.history).clone();
        let lines: Vec<(Anchor, Vec<Move>)> =
            seeds.nodes().iter().map(|&n| lineage.path(n)).map(|(a, moves)| (a.clone(), moves)).collect();
        let mut found: Vec<Found> = Vec::new();
        let mut found_from: Option<&Anchor> = None;
        // Two passes, each with half the budget: the other pieces' moves only delayed, then
        // moved either way.
        for (pass, delay_only) in [true, false].into_iter().enumerate() {
            let pass_budget = if pass == 0 { *budget / 2 } else { *budget };
            *budget -= pass_budget;
            let per_try = (pass_budget / 16).max(1);
            // Half for the tries over the whole line, half for those over the latest levels: in
            // a long game the first used it all before any of the second ran (dark-crazyhouse
            // r-r game 618, 213 levels, whose fallback the second do not save either).
            let mut kinds = [pass_budget / 2, pass_budget - pass_budget / 2];
            'seeds: for (anchor, line) in &lines {
                let levels =
                    levels(&self.initial_view, &self.history, anchor.events, self.cfg.model, self.greedy_share);
                let guide = Guide::new(&self.initial_view, &self.history, anchor.events, self.side);
                let seed = Seed { anchor: &anchor.world, anchor_key: world_key(&anchor.world), line };
                let lineup = Lineup::new(&seed, &levels, self.side.opponent());
                for choice in candidates(&lineup, &levels, &target, self.side.opponent()) {
                    let kind = &mut kinds[usize::from(choice.from_level > 0)];
                    if *kind == 0 {
                        continue;
                    }
                    let choice = Choice { delay_only, ..choice };
                    let mut share = per_try.min(*kind);
                    *kind -= share;
                    let got =
                        search(&seed, &lineup, &levels, &guide, &choice, self.side, want, &mut share, &mut self.rng);
                    *kind += share;
                    if !got.is_empty() {
                        (found, found_from) = (got, Some(anchor));
                    }
                    if found_from.is_some() || kinds == [0, 0] {
                        break 'seeds;
                    }
                }
            }
            let pass_budget: usize = kinds.iter().sum();
            *budget += pass_budget;
            if found_from.is_some() {
                break;
            }
        }
        // The worlds found all come from one seed: their lines start from its anchor.
        let Some(anchor) = found_from.cloned() else { return WorldSet::default() };
        let root = self.lineage.as_mut().map_or(NO_NODE, |l| l.anchor(anchor));
        self.collect_found(found, &[root])
    }
}
