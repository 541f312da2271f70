//! Regeneration and fallback: finding worlds again when a sampled set runs dry.
//!
//! Regeneration searches depth first from the worlds of a checkpoint through the events since,
//! roots closest to the latest view first, trying the opponent's consistent moves that agree
//! with the latest view first and the rest in a random order biased by the opponent model, and
//! backing up on dead ends, and dropping worlds that cannot reach the later views in time
//! ([`Lookahead`]); after each world found it jumps back to a random depth so that the worlds it
//! finds differ early as well as late. Every world it returns is consistent with the whole
//! history. (Replays from older checkpoints are in the `resync` module.)
//!
//! A fallback, when even that fails, makes worlds up: it repairs remembered worlds so that they
//! show the view of a few events ago, then searches forward from them through the latest events.

use super::keys::world_key;
use super::lineage::Anchor;
use super::lookahead::Lookahead;
use super::repair::repair;
use super::step::{goes_on, own_child, Collect, OpponentStep, Shown};
use super::worlds::{WorldBuilder, WorldSet, NO_NODE};
use super::{last_view, Belief, OpponentModel, UpdateReport};
use crate::core::{Color, Move, MoveKind, Piece, Role, Square};
use crate::rules::Position;
use crate::view::{Event, Observation, SquareView, View};
use rand::Rng;

/// What the search does with a world at one event.
pub(super) enum Level<'a> {
    /// The engine's own move and what it saw after it.
    Own(Move, &'a Observation),
    /// The opponent's hidden ply.
    Opponent(OpponentStep<'a>),
    /// A bounce on this square.
    Bounce(Square),
}

/// The levels for events `from..` of `history`.
pub(super) fn levels<'a>(
    initial: &'a View,
    history: &'a [Event],
    from: usize,
    model: OpponentModel,
    greedy_share: f64,
) -> Vec<Level<'a>> {
    (from..history.len())
        .map(|i| match &history[i] {
            Event::Own { mv, obs } => Level::Own(*mv, obs),
            Event::Opponent { obs } => {
                Level::Opponent(OpponentStep::new(last_view(initial, &history[..i]), obs, model, greedy_share))
            }
            Event::Bounce { square } => Level::Bounce(*square),
        })
        .collect()
}

/// A world found by the search: which root it came from and the opponent moves since.
pub(super) struct Found {
    pub(super) world: Position,
    pub(super) key: u64,
    pub(super) root: usize,
    pub(super) moves: Vec<Move>,
}

struct Frame {
    world: Position,
    key: u64,
    mv: Option<Move>,
    kids: Option<Vec<Kid>>,
}

/// A successor: world, key, and the opponent move that led there (none for the engine's own).
type Kid = (Position, u64, Option<Move>);

/// What the latest view says about where the opponent's pieces end up, used to try first the
/// hidden moves that put a piece where it is finally seen.
pub(super) struct Guide<'a> {
    target: &'a View,
    shown: Shown,
    /// The later views a world must still reach, after each level.
    reach: Vec<Lookahead>,
}

impl<'a> Guide<'a> {
    /// The guide towards the view after the last of `history`, for levels from event `from`.
    pub(super) fn new(initial: &'a View, history: &'a [Event], from: usize, side: Color) -> Guide<'a> {
        let target = last_view(initial, history);
        let reach = Lookahead::after_each(history, from, side);
        Guide { target, shown: Shown::new(target), reach }
    }

    /// False if `pos`, after level `depth`, cannot reach the later views in time.
    pub(super) fn may_reach(&self, depth: usize, pos: &Position) -> bool {
        self.reach[depth].allows(pos)
    }

    /// How many squares the target view knows that `pos` shows differently (fewer is closer).
    fn distance(&self, pos: &Position) -> u32 {
        self.shown.diff(pos).count()
    }

    /// Higher for a move by the side to move in `pos` that agrees with the target view.
    pub(super) fn score(&self, pos: &Position, m: Move) -> i32 {
        let mover = pos.turn();
        let role = match m.kind {
            MoveKind::Drop(r) | MoveKind::Promotion(r) => r,
            MoveKind::Castle => Role::King,
            _ => pos.role_at(m.from).unwrap_or(Role::Pawn),
        };
        let mut score = match self.target.square(m.to) {
            SquareView::Piece(p, _) if p == Piece::new(mover, role) => 2,
            SquareView::Silhouette(c) if c == mover => 1,
            SquareView::Fog => 0,
            _ => -1,
        };
        if !m.is_drop() {
            let stays = pos.piece_at(m.from).map(|p| (p, false));
            if matches!((self.target.square(m.from), stays), (SquareView::Piece(a, _), Some((b, _))) if a == b) {
                score -= 1;
            }
        }
        score
    }
}

/// The successors of `world` (with key `key`) at `level`, in the order the search should try
/// them (last first).
fn successors(levels: &[Level], depth: usize, world: &Position, key: u64, ctx: &mut SearchCtx<impl Rng>) -> Vec<Kid> {
    let mut kids = level_successors(&levels[depth], world, key, ctx);
    kids.retain(|(w, _, _)| ctx.guide.may_reach(depth, w));
    kids
}

/// The successors of `world` at `level`, before the look-ahead.
fn level_successors(level: &Level, world: &Position, key: u64, ctx: &mut SearchCtx<impl Rng>) -> Vec<Kid> {
    ctx.budget = ctx.budget.saturating_sub(1);
    if !goes_on(world) {
        return Vec::new();
    }
    let side = ctx.side;
    match level {
        Level::Own(mv, obs) => own_child(world, key, side, *mv, obs).map(|(w, k)| (w, k, None)).into_iter().collect(),
        Level::Bounce(sq) => {
            let held = world.by_color(side.opponent()).contains(*sq);
            held.then(|| (world.clone(), key, None)).into_iter().collect()
        }
        Level::Opponent(step) => {
            let mut sink = Collect::default();
            ctx.budget = ctx.budget.saturating_sub(step.children(world, key, &mut sink, &mut ctx.rng).moves);
            // Moves that agree with the latest view first, then a weighted random order
            // (Efraimidis-Spirakis keys); the list is popped from the back.
            let mut keyed: Vec<((i32, f64), Kid)> = sink
                .0
                .into_iter()
                .map(|(w, k, mv, p)| {
                    let order =
                        (ctx.guide.score(world, mv), ctx.rng.gen::<f64>().max(f64::MIN_POSITIVE).ln() / p.max(1e-12));
                    (order, (w, k, Some(mv)))
                })
                .collect();
            keyed.sort_by(|a, b| a.0 .0.cmp(&b.0 .0).then(a.0 .1.total_cmp(&b.0 .1)));
            keyed.into_iter().map(|(_, kid)| kid).collect()
        }
    }
}

/// What the search carries along: the engine's side, the guide, the budget left and randomness.
pub(super) struct SearchCtx<'a, R: Rng> {
    side: Color,
    guide: Guide<'a>,
    budget: usize,
    rng: R,
}

/// Searches from the worlds of `roots` through `levels` for up to `want` distinct worlds,
/// spending at most the context's budget of moves looked at.
pub(super) fn search(levels: &[Level], roots: &WorldSet, want: usize, ctx: &mut SearchCtx<impl Rng>) -> Vec<Found> {
    let mut found = Vec::new();
    let mut distinct = WorldBuilder::new();
    // Roots closest to the latest view first, then a weighted random order.
    let mut order: Vec<(u32, f64, usize)> = (0..roots.len())
        .map(|i| {
            let w = roots.weights()[i].max(1e-12);
            (ctx.guide.distance(&roots.worlds()[i]), ctx.rng.gen::<f64>().max(f64::MIN_POSITIVE).ln() / w, i)
        })
        .collect();
    order.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    for (_, _, root) in order {
        let mut stack =
            vec![Frame { world: roots.worlds()[root].clone(), key: roots.keys()[root], mv: None, kids: None }];
        while !stack.is_empty() {
            if ctx.budget == 0 || found.len() >= want {
                return found;
            }
            let depth = stack.len() - 1;
            if depth == levels.len() {
                let (world, key) = (&stack[depth].world, stack[depth].key);
                if distinct.add(key, world.clone(), 1.0, || NO_NODE) {
                    let moves = stack.iter().filter_map(|f| f.mv).collect();
                    found.push(Found { world: world.clone(), key, root, moves });
                }
                let keep = if depth > 0 { ctx.rng.gen_range(1..=depth) } else { 0 };
                stack.truncate(keep);
                continue;
            }
            let top = &mut stack[depth];
            if top.kids.is_none() {
                top.kids = Some(successors(levels, depth, &top.world, top.key, ctx));
            }
            match top.kids.as_mut().and_then(Vec::pop) {
                Some((world, key, mv)) => stack.push(Frame { world, key, mv, kids: None }),
                None => {
                    stack.pop();
                }
            }
        }
    }
    found
}

/// Runs [`search`] with `budget` moves to spend, leaving in it what is left.
fn run_search(
    levels: &[Level],
    roots: &WorldSet,
    want: usize,
    budget: &mut usize,
    guide: Guide,
    side: Color,
    rng: &mut impl Rng,
) -> Vec<Found> {
    let mut ctx = SearchCtx { side, guide, budget: *budget, rng };
    let found = search(levels, roots, want, &mut ctx);
    *budget = ctx.budget;
    found
}

impl Belief {
    /// Regenerates worlds consistent with the whole history from a checkpoint's worlds, saved
    /// after `events` events: up to `want` of them, spending at most `budget` moves looked at.
    pub(super) fn search(&mut self, roots: &WorldSet, events: usize, want: usize, budget: &mut usize) -> WorldSet {
        let levels = levels(&self.initial_view, &self.history, events, self.cfg.model, self.greedy_share);
        let guide = Guide::new(&self.initial_view, &self.history, events, self.side);
        let found = run_search(&levels, roots, want, budget, guide, self.side, &mut self.rng);
        self.collect_found(found, roots.nodes())
    }

    /// Turns search results into a uniformly weighted set, extending the roots' lineages.
    pub(super) fn collect_found(&mut self, found: Vec<Found>, root_nodes: &[u32]) -> WorldSet {
        let mut builder = WorldBuilder::new();
        for f in found {
            let lineage = &mut self.lineage;
            builder.add(f.key, f.world, 1.0, || {
                lineage.as_mut().map_or(NO_NODE, |l| f.moves.iter().fold(root_nodes[f.root], |n, &mv| l.step(n, mv)))
            });
        }
        let mut set = builder.finish();
        set.normalize();
        set
    }

    /// Falls back to worlds that agree with as many of the latest events as can be managed
    /// (up to `fallback_window`, down to the latest view alone), made from `seeds`.
    pub(super) fn fall_back(&mut self, seeds: &WorldSet, report: &mut UpdateReport) {
        self.lost += 1;
        report.fallbacks += 1;
        self.fallen_back = true;
        self.exact = false;
        // Not straight back to the replays that just failed: the next try waits an opponent ply.
        (self.reanchor_wait, self.reanchor_fails) = (1, 0);
        // The recent checkpoints led nowhere; the deep and exact ones stay, to get back on the
        // whole history later.
        self.checkpoints.clear();
        let k = self.history.len();
        let mut window = self.cfg.fallback_window.min(k);
        let mut budget = self.cfg.regen_budget / 4;
        loop {
            let roots = self.repaired_roots(seeds, k - window);
            if window == 0 {
                // Worlds that show the latest view are all a fallback can promise.
                self.set = roots;
                report.fallback_events = 0;
                return;
            }
            let levels = levels(&self.initial_view, &self.history, k - window, self.cfg.model, self.greedy_share);
            let want = self.cfg.max_worlds.clamp(1, 1024);
            let guide = Guide::new(&self.initial_view, &self.history, k - window, self.side);
            let found = run_search(&levels, &roots, want, &mut budget, guide, self.side, &mut self.rng);
            if !found.is_empty() {
                self.set = self.collect_found(found, roots.nodes());
                report.fallback_events = window;
                return;
            }
            window /= 2;
        }
    }

    /// `seeds` (and the start position) repaired to show the view after the first `events`
    /// events, each anchored there.
    pub(super) fn repaired_roots(&mut self, seeds: &WorldSet, events: usize) -> WorldSet {
        let view = last_view(&self.initial_view, &self.history[..events]).clone();
        let plies = self.history[..events].iter().filter(|e| !matches!(e, Event::Bounce { .. })).count();
        let turn = if plies % 2 == 0 { self.start.turn() } else { self.start.turn().opponent() };
        let mut builder = WorldBuilder::new();
        for seed in seeds.worlds().iter().chain(std::iter::once(&self.start)) {
            let Some(world) = repair(seed, &view, turn) else { continue };
            let lineage = &mut self.lineage;
            builder.add(world_key(&world), world.clone(), 1.0, || {
                lineage.as_mut().map_or(NO_NODE, |l| l.anchor(Anchor { events, world }))
            });
        }
        let mut set = builder.finish();
        set.normalize();
        set
    }
}
