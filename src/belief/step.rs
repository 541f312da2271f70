//! The update step for one world and one event: the engine's own move applied, the opponent's
//! hidden ply expanded and filtered against the new observation, a bounce.
//!
//! A child is kept exactly when the rules core's view of it equals the observed view and the
//! capture and Try reports agree. Two shortcuts keep this cheap without ever changing the answer:
//! a world that differs from the observation on more squares than any move can change is dropped
//! before generating its moves, and a move that touches no square able to affect the view (the
//! "zone") leaves the view as it was, so it matches exactly when nothing visible changed.
//! Debug builds check every shortcut against the full test.

use super::keys::key_delta;
use super::lookahead::Lookahead;
use super::model::{MoveChances, OpponentModel};
use super::worlds::{WordMap, WorldSet};
use crate::core::attacks;
use crate::core::{Bitboard, Color, Move, MoveKind, Piece, Role, Square};
use crate::rules::{Castling, PlyVerdict, Position};
use crate::view::{Observation, View};
use rand::seq::SliceRandom;
use rand::Rng;
use std::cell::RefCell;

/// The squares whose content `m` changes in `pos`.
pub fn touched(pos: &Position, m: Move) -> Bitboard {
    let ends = Bitboard::from_square(m.from) | Bitboard::from_square(m.to);
    match m.kind {
        MoveKind::EnPassant => ends.with(Square::from_coords(m.to.file(), m.from.rank())),
        MoveKind::Castle => {
            let (rook_from, rook_to) = Castling::rook_move(pos.turn(), m);
            ends.with(rook_from).with(rook_to)
        }
        _ => ends,
    }
}

/// True if the game can have gone on to `pos`: no king is captured; in Crossroads, no king of
/// the side to move stands on its far rank (that Try went unanswered, so the game would have
/// ended); and the no-progress limit is not reached, unless the last ply armed a Try.
pub fn goes_on(pos: &Position) -> bool {
    let to_move = pos.turn();
    !pos.is_king_captured()
        && !pos.king_on_far_rank(to_move)
        && (!pos.no_progress_limit_reached() || pos.king_on_far_rank(to_move.opponent()))
}

/// True if `mv`, just played by `mover` and leaving `after`, armed `mover`'s Try. A king that
/// arrives while the enemy's own Try is pending arms nothing: the reply did not capture the
/// enemy king, so the game ends by that Try first (the order of checks in the rules).
pub fn arms_try(after: &Position, mover: Color, mv: Move) -> bool {
    after.ply_verdict(mover, mv.to) == PlyVerdict::TryArmed
}

/// The world after the engine's own move `mv` and its key (the world's is `key`), if it
/// reproduces the observation `obs`, whose view `shows` tests. Every board move the engine
/// decides from its view is legal in every world that shows that view; a drop into the fog
/// landed, so a world holding a piece on that square is not consistent.
fn own_child(
    world: &Position,
    key: u64,
    side: Color,
    mv: Move,
    obs: &Observation,
    shows: impl FnOnce(&Position) -> bool,
) -> Option<(Position, u64)> {
    if mv.is_drop() && world.occupied().contains(mv.to) {
        return None;
    }
    debug_assert!(world.turn() == side && world.moves().contains(&mv), "own move {mv:?} not legal in a world");
    let child_key = key ^ key_delta(world, mv);
    let mut child = world.clone();
    let captured = child.play_unchecked(mv);
    let ok = captured.is_none_or(|(_, p)| p.color != side)
        && obs.captured.is_none()
        && obs.try_armed == arms_try(&child, side, mv)
        && shows(&child);
    ok.then_some((child, child_key))
}

/// The worlds of `set` after the engine's own move `mv` that reproduce the observation `obs`
/// (the view computed once per group of worlds alike around it, see [`ViewCheck`]).
pub fn after_own_move(set: &WorldSet, side: Color, mv: Move, obs: &Observation) -> WorldSet {
    set.filter_remake(
        || ViewCheck::new(&obs.view),
        |check, w, key| {
            if goes_on(w) {
                own_child(w, key, side, mv, obs, |child| check.shows(child)).map(|(_, key)| key)
            } else {
                None
            }
        },
        |w| played(w, mv).0,
    )
}

/// The worlds of `set` with an enemy piece on `square`, where the engine's drop bounced.
pub fn after_bounce(set: &WorldSet, side: Color, square: Square) -> WorldSet {
    set.filter_remake(
        || (),
        |_, w, key| (goes_on(w) && w.by_color(side.opponent()).contains(square)).then_some(key),
        Position::clone,
    )
}

/// Where the children of a world go.
pub trait ChildSink {
    /// How many children the sink takes from a parent that offers `n` of them.
    fn quota(&self, n: usize) -> usize {
        n
    }
    /// Takes a child consistent with the observation, reached by `mv`, with key `key`: adds
    /// `weight` to it if it is already held, else stores the world `child()` builds.
    fn take(&mut self, key: u64, child: impl FnOnce() -> Position, mv: Move, weight: f64);
    /// Hints that a child of key `key` will be taken soon (to start fetching what that looks at).
    fn prefetch(&self, _key: u64) {}
}

/// What a view shows on its known squares, to compare worlds with it square by square.
pub(super) struct Shown {
    seen: Bitboard,
    known: Bitboard,
    colors: [Bitboard; 2],
    roles: [Bitboard; Role::COUNT],
    promoted: Bitboard,
}

impl Shown {
    /// What `view` shows.
    pub(super) fn new(view: &View) -> Shown {
        let mut roles = [Bitboard::EMPTY; Role::COUNT];
        for role in Role::ALL {
            roles[role.index()] = view.pieces(Color::White, role) | view.pieces(Color::Black, role);
        }
        Shown {
            seen: view.seen(),
            known: view.seen() | view.silhouettes(),
            colors: [view.by_color(Color::White), view.by_color(Color::Black)],
            roles,
            promoted: view.promoted(),
        }
    }

    /// The known squares where `pos` disagrees with the view.
    pub(super) fn diff(&self, pos: &Position) -> Bitboard {
        let mut d = Bitboard::EMPTY;
        for color in Color::ALL {
            d |= (pos.by_color(color) ^ self.colors[color.index()]) & self.known;
        }
        for role in Role::ALL {
            d |= (pos.by_role(role) ^ self.roles[role.index()]) & self.seen;
        }
        d | ((pos.promoted() ^ self.promoted) & self.seen)
    }
}

/// Tells whether worlds show a view, computing the view once for all worlds that agree with it
/// on its known squares and hold the same pieces on the fog squares that can change it (see
/// [`zone`]), with the same en-passant square and castling rights.
pub struct ViewCheck<'a> {
    view: &'a View,
    shown: Shown,
    fog_zone: Bitboard,
    verdicts: WordMap<(u64, u64, u8, u8), bool>,
}

impl<'a> ViewCheck<'a> {
    /// A check against `view`.
    pub fn new(view: &'a View) -> ViewCheck<'a> {
        ViewCheck { view, shown: Shown::new(view), fog_zone: zone(view) & view.fog(), verdicts: WordMap::default() }
    }

    /// True if the viewer of `view` sees exactly `view` in `pos`.
    pub fn shows(&mut self, pos: &Position) -> bool {
        if self.shown.diff(pos).any() {
            debug_assert!(
                View::of(pos, self.view.side()) != *self.view,
                "a known square disagrees yet the view matches"
            );
            return false;
        }
        let key = (
            (pos.by_color(Color::White) & self.fog_zone).0,
            (pos.by_color(Color::Black) & self.fog_zone).0,
            pos.ep_square().map_or(u8::MAX, |sq| sq.index() as u8),
            pos.castling().0,
        );
        let view = self.view;
        let verdict = *self.verdicts.entry(key).or_insert_with(|| View::of(pos, view.side()) == *view);
        debug_assert_eq!(verdict, View::of(pos, view.side()) == *view, "worlds alike around the view see differently");
        verdict
    }
}

/// Everything about one opponent ply that is the same for every world.
pub struct OpponentStep<'a> {
    side: Color,
    obs: &'a Observation,
    shown: Shown,
    zone: Bitboard,
    required: Bitboard,
    unchanged: bool,
    model: OpponentModel,
    greedy_share: f64,
    /// Later views children must be able to reach.
    reach: Option<Lookahead>,
}

/// What [`OpponentStep::children`] did for one parent.
#[derive(Clone, Copy, Debug, Default)]
pub struct Looked {
    /// Moves looked at.
    pub moves: usize,
    /// Views computed.
    pub views: usize,
    /// Children kept.
    pub kept: usize,
    /// Moves the opponent model weighed one by one (the purposeful model weighs all of a
    /// world's moves when one of them may have been played).
    pub weighed: usize,
    /// True if some consistent children were left out (the sink's quota).
    pub left_out: bool,
    /// The chance of the observation from this parent under a uniform mover.
    pub uniform: f64,
    /// The chance of the observation from this parent under a greedy mover.
    pub greedy: f64,
}

// Work units: about nanoseconds of one of two threads, fitted (least squares, R^2 0.81 and
// 0.84) to the time of the expansion rounds of 25 random games each of dark-chess and
// dark-crazyhouse.
/// Work units for one parent (its moves generated and weighed).
const PARENT_WORK: u64 = 200;
/// Work units for a move looked at.
const MOVE_WORK: u64 = 2;
/// Work units for a child's view computed.
const VIEW_WORK: u64 = 30;
/// Work units for a child kept.
const KEPT_WORK: u64 = 50;
/// Work units for a move the opponent model weighs (its features, for the purposeful model).
const WEIGH_WORK: u64 = 20;

impl Looked {
    /// What looking at one parent cost, in work units: a deterministic stand-in for its time.
    pub fn work(&self) -> u64 {
        PARENT_WORK
            + MOVE_WORK * self.moves as u64
            + VIEW_WORK * self.views as u64
            + KEPT_WORK * self.kept as u64
            + WEIGH_WORK * self.weighed as u64
    }
}

impl<'a> OpponentStep<'a> {
    /// The step from worlds whose view is `prev` (the engine's last view) to the observation
    /// `obs`, with the opponent's moves weighted by `model` (and `greedy_share`, for
    /// [`OpponentModel::Adaptive`]).
    pub fn new(prev: &View, obs: &'a Observation, model: OpponentModel, greedy_share: f64) -> OpponentStep<'a> {
        let view = &obs.view;
        OpponentStep {
            side: view.side(),
            obs,
            shown: Shown::new(view),
            zone: zone(prev),
            required: obs.captured.map_or(Bitboard::EMPTY, |(sq, _)| Bitboard::from_square(sq)),
            unchanged: view == prev && obs.captured.is_none() && !obs.try_armed,
            model,
            greedy_share,
            reach: None,
        }
    }

    /// The same step keeping only children that `lookahead` allows.
    pub fn reaching(self, lookahead: Lookahead) -> OpponentStep<'a> {
        OpponentStep { reach: Some(lookahead), ..self }
    }

    /// How far the child of `parent` by `m` is from the later views this step looks ahead to
    /// (the look-ahead's count; 0 without one), or `None` if it cannot reach them in time.
    fn nearness(&self, parent: &Position, m: Move) -> Option<u32> {
        self.reach.as_ref().map_or(Some(0), |l| l.distance(&played(parent, m).0))
    }

    /// The full test: the child's view and capture report are the observed ones.
    fn accepts(&self, child: &Position, captured: Option<(Square, Piece)>) -> bool {
        let report = captured.filter(|(_, p)| p.color == self.side).map(|(sq, p)| (sq, p.role));
        report == self.obs.captured && !self.obs.try_armed && View::of(child, self.side) == self.obs.view
    }

    /// Hands `sink` the children of `parent` (a world whose view is the previous one, opponent to
    /// move, with key `key`) that reproduce the observation, each with the opponent model's chance
    /// of its move. A child the sink already holds only gets that chance added. If the sink wants
    /// fewer new children than there are, a random subset (likelier moves first) is taken and
    /// their chances are scaled up to the mass of all.
    pub fn children(&self, parent: &Position, key: u64, sink: &mut impl ChildSink, rng: &mut impl Rng) -> Looked {
        let mut looked = Looked::default();
        if !goes_on(parent) {
            return looked;
        }
        let d = self.shown.diff(parent);
        if d.count() > 4 {
            return looked;
        }
        let moves = parent.moves();
        looked.moves = moves.len();
        let mut chances = MoveChances::new(self.model, self.greedy_share, parent, &moves, self.side);
        SCRATCH.with_borrow_mut(|buffers| {
            let Buffers { fresh, kept } = buffers;
            fresh.clear();
            kept.clear();
            // The candidates first, then their chances: the model weighs a world's moves only if
            // one of them may have been played.
            for (i, &m) in moves.iter().enumerate() {
                if let Some(quiet) = self.candidate(parent, m, d) {
                    (looked.uniform, looked.greedy) =
                        (looked.uniform + chances.uniform(), looked.greedy + chances.greedy(parent, m));
                    if let Some(near) = self.nearness(parent, m) {
                        fresh.push(Candidate { p: 0.0, index: i as u32, m, quiet, near });
                    }
                }
            }
            if !fresh.is_empty() {
                looked.weighed = chances.weigh_all(parent, &moves);
                for c in fresh.iter_mut() {
                    c.p = chances.chance(parent, c.m, c.index as usize);
                }
            }
            let quota = sink.quota(fresh.len());
            looked.left_out = fresh.len() > quota;
            if looked.left_out && self.reach.is_some() {
                // Looking ahead: the children nearest the later views first.
                nearest_first(fresh, rng);
            } else if looked.left_out {
                draw_first(fresh, quota, rng);
            }
            let mass: f64 = fresh.iter().map(|c| c.p).sum();
            // Quiet children are sure to match and are built only if the sink lacks them; the others
            // are built now to compare their views.
            let mut tried = 0.0;
            // A kept child's key, its slot in the sink fetched ahead while the others are tried.
            let announce = |m: Move| {
                let child_key = key ^ key_delta(parent, m);
                sink.prefetch(child_key);
                child_key
            };
            for &c in fresh.iter() {
                if kept.len() >= quota {
                    break;
                }
                tried += c.p;
                if c.quiet {
                    debug_assert!(self.accepts_move(parent, c.m), "zone shortcut disagrees with the view");
                    kept.push((c, announce(c.m), None));
                    continue;
                }
                let (child, captured) = played(parent, c.m);
                looked.views += 1;
                if self.accepts(&child, captured) {
                    kept.push((c, announce(c.m), Some(child)));
                } else {
                    (looked.uniform, looked.greedy) =
                        (looked.uniform - chances.uniform(), looked.greedy - chances.greedy(parent, c.m));
                }
            }
            let scale = if tried > 0.0 { mass / tried } else { 1.0 };
            looked.kept += kept.len();
            for (c, child_key, child) in kept.drain(..) {
                let build = || child.unwrap_or_else(|| played(parent, c.m).0);
                sink.take(child_key, build, c.m, c.p * scale);
            }
        });
        looked
    }

    /// The full test for the child of `parent` by `m`.
    fn accepts_move(&self, parent: &Position, m: Move) -> bool {
        let (child, captured) = played(parent, m);
        self.accepts(&child, captured)
    }

    /// If `m` may lead to the observation from `parent` (whose known squares differ from it on
    /// `d`), whether its child is sure to match without looking (a quiet move, nothing visible
    /// changed); `None` if it cannot match.
    fn candidate(&self, parent: &Position, m: Move, d: Bitboard) -> Option<bool> {
        let t = touched(parent, m);
        if t & self.shown.known != d || t & self.required != self.required {
            return None;
        }
        let double_push =
            parent.pieces(parent.turn(), Role::Pawn).contains(m.from) && m.from.rank().abs_diff(m.to.rank()) == 2;
        let quiet = (t & self.zone).is_empty() && !double_push;
        if quiet && !self.unchanged {
            debug_assert!(!self.accepts(&played(parent, m).0, None), "zone shortcut rejected a match");
            return None;
        }
        Some(quiet)
    }
}

/// Moves a weighted random draw of `k` candidates without replacement to the front (the rest
/// follow in no particular order, for when some of the drawn fail): a partial shuffle when all
/// chances are equal, else Efraimidis-Spirakis keys.
fn draw_first(candidates: &mut [Candidate], k: usize, rng: &mut impl Rng) {
    let n = candidates.len();
    let p0 = candidates[0].p;
    if candidates.iter().all(|c| c.p == p0) {
        for i in 0..k.min(n) {
            candidates.swap(i, rng.gen_range(i..n));
        }
        return;
    }
    let mut keyed: Vec<(f64, usize)> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| (rng.gen::<f64>().max(f64::MIN_POSITIVE).ln() / c.p.max(1e-12), i))
        .collect();
    if k < n {
        keyed.select_nth_unstable_by(k, |a, b| b.0.total_cmp(&a.0));
    }
    let order: Vec<Candidate> = keyed.iter().map(|&(_, i)| candidates[i]).collect();
    candidates.copy_from_slice(&order);
}

/// Orders candidates by their distance to the later views, nearest first, in random order
/// among equals.
fn nearest_first(candidates: &mut [Candidate], rng: &mut impl Rng) {
    candidates.shuffle(rng);
    candidates.sort_by_key(|c| c.near);
}

thread_local! {
    /// Buffers for [`OpponentStep::children`], reused from one parent to the next.
    static SCRATCH: RefCell<Buffers> = RefCell::default();
}

/// The candidate moves of one parent and the children it keeps, with their keys (built ones
/// with their world).
#[derive(Default)]
struct Buffers {
    fresh: Vec<Candidate>,
    kept: Vec<(Candidate, u64, Option<Position>)>,
}

/// A move that may lead to a consistent child.
#[derive(Clone, Copy)]
struct Candidate {
    p: f64,
    /// The move's place among the parent's moves.
    index: u32,
    m: Move,
    quiet: bool,
    /// The look-ahead's count for the child (0 without a look-ahead).
    near: u32,
}

fn played(pos: &Position, m: Move) -> (Position, Option<(Square, Piece)>) {
    let mut child = pos.clone();
    let captured = child.play_unchecked(m);
    (child, captured)
}

/// Every square whose content can change the view of a world whose view is `prev`, as long as
/// the viewer's own pieces stay put: the known squares (slider rays end on them), the squares
/// ahead of and diagonal to its pawns, its cannons' whole lines (what stands beyond a screen
/// decides what it sees) and its horses' legs and leaps.
pub fn zone(prev: &View) -> Bitboard {
    let side = prev.side();
    let board = prev.variant().board_mask();
    let mut z = prev.seen() | prev.silhouettes();
    for sq in prev.pieces(side, Role::Pawn) {
        let one = Bitboard::from_square(sq).shift_ranks(side.forward());
        z |= attacks::pawn_attacks(side, sq) | one | one.shift_ranks(side.forward());
    }
    for sq in prev.pieces(side, Role::Cannon) {
        z |= attacks::rook(sq, Bitboard::EMPTY);
    }
    for sq in prev.pieces(side, Role::Horse) {
        z |= attacks::king(sq) | attacks::knight(sq);
    }
    z & board
}
