//! A necessary condition for a world to lead on to later views, in two parts. Arrivals: the
//! opponent plies it needs to put its pieces where each later view shows them (counted per piece:
//! the nearest piece of the role shown, on an empty board) must not exceed the opponent plies
//! before that view. Escapes: every enemy piece needs a path that keeps it out of sight of all the
//! later views, and those paths together no more moves than the opponent plies left. Used when
//! the belief replays events it has already seen the end of (see the `recover` module), so that
//! worlds with no future are dropped early, and to rank the worlds a replay keeps.

use super::approach::{Approach, FAR};
use crate::core::{Bitboard, Color, MoveKind, Role, Square};
use crate::rules::{Castling, Position};
use crate::view::{Event, View};

/// How many of the nearest later views are checked, besides the last one.
const NEAR_VIEWS: usize = 8;

/// One later view, reduced to what the bound needs.
#[derive(Clone, Debug)]
struct Target {
    known: Bitboard,
    seen: Bitboard,
    enemy: Bitboard,
    roles: [Bitboard; Role::COUNT],
    /// Squares the engine's own moves land on before this view (an enemy piece there may have
    /// been taken rather than have left).
    taken: Bitboard,
    /// Opponent plies before this view.
    plies: u32,
    /// The roles the enemy may have put in its hand by capturing before this view (in
    /// Crazyhouse: the role taken, or a pawn if the piece taken was promoted).
    gained: [bool; Role::COUNT],
}

impl Target {
    fn new(view: &View, taken: Bitboard, plies: u32, gained: [bool; Role::COUNT]) -> Target {
        let enemy = view.side().opponent();
        let mut roles = [Bitboard::EMPTY; Role::COUNT];
        for role in Role::ALL {
            roles[role.index()] = view.pieces(enemy, role);
        }
        Target {
            known: view.seen() | view.silhouettes(),
            seen: view.seen(),
            enemy: view.by_color(enemy),
            roles,
            taken,
            plies,
            gained,
        }
    }

    /// True if `pos` may show this view's enemy pieces within the opponent plies before it, by a
    /// lower bound on the plies it needs.
    ///
    /// Every square the view shows an enemy piece on needs a piece to arrive unless the world
    /// already has it there; each arrival needs its own piece, which takes at least as many plies
    /// as the nearest piece of that role needs on an empty board (one for a drop from the hand,
    /// the pushes to the last rank for a promotion). Every known square the view shows without an
    /// enemy piece needs the world's enemy piece there to leave, unless one of the engine's own
    /// moves lands there first. One opponent ply makes one departure, so the plies needed are at
    /// least the larger of the two counts; castling moves two pieces in one ply, so while the
    /// enemy may castle, king and rook arrivals count one each and the total one less.
    fn reachable(&self, pos: &Position, enemy: Color) -> bool {
        self.cost(pos, enemy).is_some()
    }

    /// The plies the bound of [`Target::reachable`] counts for `pos`, or `None` if more than the
    /// opponent plies before this view.
    fn cost(&self, pos: &Position, enemy: Color) -> Option<u32> {
        let mine = pos.by_color(enemy) & self.known;
        let mut wrong_role = Bitboard::EMPTY;
        for role in Role::ALL {
            wrong_role |= (pos.by_role(role) ^ self.roles[role.index()]) & mine & self.enemy & self.seen;
        }
        let arrivals = (self.enemy & !mine) | wrong_role;
        let departures = ((mine & !self.enemy) | wrong_role) & !self.taken;
        let castles = pos.castling().has(enemy, true) || pos.castling().has(enemy, false);
        let allowed = self.plies + castles as u32;
        // Every arrival costs a ply at least: the counts alone settle most worlds.
        if departures.count() > allowed || arrivals.count() > allowed {
            return None;
        }
        // A silhouette's role is unknown: one ply at least.
        let mut cost = (arrivals & !self.seen).count();
        let approach = Approach::of(pos.variant());
        for role in Role::ALL {
            for sq in arrivals & self.roles[role.index()] {
                let mut c = approach.moves(enemy, role, sq, pos.pieces(enemy, role));
                if c > 1 {
                    c = c.min(self.shortcut(pos, enemy, role, sq));
                }
                if castles && matches!(role, Role::King | Role::Rook) {
                    c = c.min(1);
                }
                cost += c;
                if cost > allowed {
                    return None;
                }
            }
        }
        Some(cost.max(departures.count()))
    }

    /// The fewest plies a piece of `role` can reach `sq` in other than by moving there: a drop
    /// (one ply) or a pawn's promotion (its pushes to the last rank, plus a move on if `sq` is
    /// not on it). In Crazyhouse a pawn in hand, or one a capture may bring, can be dropped on
    /// the rank before the last and promote the next ply: two plies at most.
    fn shortcut(&self, pos: &Position, enemy: Color, role: Role, sq: Square) -> u32 {
        let variant = pos.variant();
        let may_drop = |r: Role| variant.has_hands() && (self.gained[r.index()] || pos.hand(enemy).count(r) > 0);
        if may_drop(role) {
            return 1;
        }
        if !variant.promotion_roles().contains(&role) {
            return FAR as u32;
        }
        // The most advanced pawn: from relative rank r it needs 7 - r pushes, one fewer from
        // its second rank (the double step).
        let on_board = pos
            .pieces(enemy, Role::Pawn)
            .map(|p| enemy.relative_rank(p.rank()))
            .max()
            .map(|rank| (7 - rank as u32).saturating_sub((rank == 1) as u32));
        let dropped = may_drop(Role::Pawn).then_some(2);
        let Some(pushes) = on_board.into_iter().chain(dropped).min() else {
            return FAR as u32;
        };
        pushes + (enemy.relative_rank(sq.rank()) != 7) as u32
    }
}

/// Per role and square, the fewest moves a lone enemy piece standing there after some event
/// needs to agree with every later view ([`UNVIABLE`] if no path does; see [`escape_moves`]).
type Escapes = [[u16; 64]; Role::COUNT];

/// No path keeps the piece in agreement with the later views.
const UNVIABLE: u16 = u16::MAX;

/// The view an event brought, if any (a bounce shows none).
fn event_view(event: &Event) -> Option<&View> {
    match event {
        Event::Own { obs, .. } | Event::Opponent { obs } => Some(&obs.view),
        Event::Bounce { .. } => None,
    }
}

/// For each event `from..` of `history`, oldest first: per role and square, the fewest moves an
/// enemy piece of that role standing there just after the event needs to agree with every later
/// view.
///
/// A piece may never stand where a view shows a square empty, held by the engine, or held by an
/// enemy piece of another role. At each opponent ply it may stay or move (on an empty board, a
/// pawn promoting on the last rank; castling is a king move), and once one of the engine's own
/// moves lands on its square it may have been taken and needs nothing more. Pieces in the way
/// only lengthen paths, so these are lower bounds for every world: a world with a piece where no
/// path exists has no future, and one opponent ply moves one piece (castling two), so a world's
/// pieces need no more moves in all than the opponent plies left (one more while it may castle).
fn escape_moves(history: &[Event], from: usize, enemy: Color) -> Vec<Escapes> {
    let n = history.len();
    let free = [[0u16; 64]; Role::COUNT];
    let Some(variant) = history.iter().find_map(event_view).map(View::variant) else {
        return vec![free; n.saturating_sub(from)];
    };
    let approach = Approach::of(variant);
    let mut out = vec![free; n.saturating_sub(from)];
    let mut moves = free;
    for i in (from..n).rev() {
        if let Some(next) = history.get(i + 1) {
            moves = before_event(next, &moves, enemy, approach);
        }
        if let Some(view) = event_view(&history[i]) {
            let open = view.fog() | view.silhouettes();
            for role in Role::ALL {
                let shut = view.variant().board_mask() & !(open | view.pieces(enemy, role));
                for sq in shut {
                    moves[role.index()][sq.index()] = UNVIABLE;
                }
            }
        }
        out[i - from] = moves;
    }
    out
}

/// The escape moves just before `event`, from those just after it.
fn before_event(event: &Event, after: &Escapes, enemy: Color, approach: &Approach) -> Escapes {
    let mut before = *after;
    match event {
        Event::Own { mv, .. } => {
            // The engine's move may take the piece there.
            let mut taken = Bitboard::from_square(mv.to);
            if mv.kind == MoveKind::EnPassant {
                taken = taken.with(Square::from_coords(mv.to.file(), mv.from.rank()));
            }
            for costs in &mut before {
                for sq in taken {
                    costs[sq.index()] = 0;
                }
            }
        }
        Event::Opponent { obs } => {
            let variant = obs.view.variant();
            let board = variant.board_mask();
            let last_rank = Bitboard::rank(if enemy == Color::White { 7 } else { 0 });
            // A pawn that promotes on a square goes on as the best of the roles it may become.
            let mut promoted = [UNVIABLE; 64];
            for sq in last_rank & board {
                promoted[sq.index()] =
                    variant.promotion_roles().iter().map(|r| after[r.index()][sq.index()]).min().unwrap_or(UNVIABLE);
            }
            for role in Role::ALL {
                let costs = &after[role.index()];
                for sq in board {
                    let mut best = UNVIABLE;
                    for to in approach.step(enemy, role, sq) {
                        let c = if role == Role::Pawn && last_rank.contains(to) {
                            promoted[to.index()]
                        } else {
                            costs[to.index()]
                        };
                        best = best.min(c);
                    }
                    // No piece needs more moves than there are opponent plies, far fewer than
                    // UNVIABLE.
                    let moved = if best == UNVIABLE { UNVIABLE } else { best + 1 };
                    let slot = &mut before[role.index()][sq.index()];
                    *slot = (*slot).min(moved);
                }
            }
            if variant.is_chess_board() {
                // Castling moves the king two squares.
                let home = Castling::king_square(enemy);
                let king = &after[Role::King.index()];
                let landing = [2, 6].map(|f| king[Square::from_coords(f, home.rank()).index()]).into_iter().min();
                let castled = landing.unwrap_or(UNVIABLE);
                if castled != UNVIABLE {
                    let slot = &mut before[Role::King.index()][home.index()];
                    *slot = (*slot).min(castled + 1);
                }
            }
        }
        Event::Bounce { .. } => {}
    }
    before
}

/// The later views a world must still be able to reach, after some event of the history.
#[derive(Clone, Debug)]
pub struct Lookahead {
    enemy: Color,
    targets: Vec<Target>,
    /// The moves each enemy piece needs to agree with the later views ([`escape_moves`]).
    escapes: Box<Escapes>,
    /// The opponent plies after this event.
    plies_left: u32,
}

impl Lookahead {
    /// The look-aheads from just after each event `from..` of `history` (the engine playing
    /// `side`), oldest first: for each, the views of the next few events and of the last one, and
    /// the escape moves.
    pub fn after_each(history: &[Event], from: usize, side: Color) -> Vec<Lookahead> {
        let escapes = escape_moves(history, from, side.opponent());
        escapes.into_iter().enumerate().map(|(k, e)| Lookahead::with_escapes(history, from + k, side, e)).collect()
    }

    fn with_escapes(history: &[Event], i: usize, side: Color, escapes: Escapes) -> Lookahead {
        let mut targets = Vec::new();
        let (mut taken, mut plies, mut gained) = (Bitboard::EMPTY, 0, [false; Role::COUNT]);
        let later = &history[(i + 1).min(history.len())..];
        // The last event with a view (a bounce shows none).
        let last = later.iter().rposition(|e| !matches!(e, Event::Bounce { .. }));
        for (j, event) in later.iter().enumerate() {
            let view = match event {
                Event::Own { mv, obs } => {
                    taken = taken.with(mv.to);
                    if mv.kind == MoveKind::EnPassant {
                        taken = taken.with(Square::from_coords(mv.to.file(), mv.from.rank()));
                    }
                    &obs.view
                }
                Event::Opponent { obs } => {
                    plies += 1;
                    if let Some((_, role)) = obs.captured {
                        gained[role.index()] = true;
                        gained[Role::Pawn.index()] = true;
                    }
                    &obs.view
                }
                Event::Bounce { .. } => continue,
            };
            if targets.len() < NEAR_VIEWS || Some(j) == last {
                targets.push(Target::new(view, taken, plies, gained));
            }
        }
        let plies_left =
            history[(i + 1).min(history.len())..].iter().filter(|e| matches!(e, Event::Opponent { .. })).count() as u32;
        Lookahead { enemy: side.opponent(), targets, escapes: Box::new(escapes), plies_left }
    }

    /// The moves `pos`'s enemy pieces need in all to agree with the later views, or `None` if
    /// some piece cannot or the opponent plies left are too few ([`escape_moves`]).
    fn escape_cost(&self, pos: &Position) -> Option<u32> {
        let castles = pos.castling().has(self.enemy, true) || pos.castling().has(self.enemy, false);
        let allowed = self.plies_left + castles as u32;
        let mut total = 0u32;
        for role in Role::ALL {
            for sq in pos.pieces(self.enemy, role) {
                let c = self.escapes[role.index()][sq.index()];
                if c == UNVIABLE {
                    return None;
                }
                total += u32::from(c);
            }
        }
        (total <= allowed).then_some(total)
    }

    /// The plies `pos` needs, by the bounds, summed over the later views and the escapes (smaller
    /// is nearer to them), or `None` if it cannot show some of them in time.
    pub fn distance(&self, pos: &Position) -> Option<u32> {
        let escapes = self.escape_cost(pos)?;
        self.targets.iter().map(|t| t.cost(pos, self.enemy)).sum::<Option<u32>>().map(|c| c + escapes)
    }

    /// False if `pos` cannot show some later view's enemy pieces in the opponent plies before it,
    /// or its enemy pieces need more moves than are left to agree with the later views.
    pub fn allows(&self, pos: &Position) -> bool {
        self.escape_cost(pos).is_some() && self.targets.iter().all(|t| t.reachable(pos, self.enemy))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;
    use crate::rules::{Game, Played};
    use crate::view::SimplePlayer;
    use crate::view::{InfoState, Observation};
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// A random game seen by both sides: each side's information state and the true position
    /// after each of its events.
    fn game(variant: Variant, seed: u64) -> [(InfoState, Vec<Position>); 2] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let start = Position::start(variant);
        let mut game = Game::new(start.clone());
        let mut sides = Color::ALL.map(|c| (InfoState::new(start.clone(), c), Vec::new()));
        while game.outcome().is_none() && sides[0].1.len() < 160 {
            let mover = game.position().turn().index();
            let mv = SimplePlayer::Random.choose(&sides[mover].0, &mut rng).expect("a move");
            sides[mover].0.send_move(mv).expect("a move from the view");
            match game.play(mv).expect("a legal move") {
                Played::Bounced(sq) => {
                    sides[mover].0.bounce(sq).expect("bounce");
                    sides[mover].1.push(game.position().clone());
                }
                Played::Moved(report) => {
                    for (info, truths) in &mut sides {
                        let obs = Observation::after_ply(game.position(), &report, info.side());
                        info.observe(obs).expect("observation");
                        truths.push(game.position().clone());
                    }
                }
            }
        }
        sides
    }

    #[test]
    fn a_pawn_in_hand_is_dropped_and_promotes_within_two_plies() {
        // Black holds a pawn; its pawns on the board are five pushes from promoting.
        let world = Position::from_fen(Variant::DarkCrazyhouse, "4k3/pppppppp/8/8/8/8/8/R3K3[p] b - - 0 1").unwrap();
        // Two Black plies later White's rook sees a promoted Black queen on b1 (P@b2, b2b1=Q).
        let later = Position::from_fen(Variant::DarkCrazyhouse, "4k3/pppppppp/8/8/8/8/8/Rq~2K3 w - - 0 2").unwrap();
        let view = View::of(&later, Color::White);
        assert!(view.pieces(Color::Black, Role::Queen).any(), "the rook should see the queen");
        let target = |plies| Target::new(&view, Bitboard::EMPTY, plies, [false; Role::COUNT]);
        assert!(target(2).reachable(&world, Color::Black), "drop and promotion take two plies");
        assert!(!target(1).reachable(&world, Color::Black), "one ply is not enough");
        // Without the pawn in hand it takes the board's pawns five pushes.
        let empty_handed =
            Position::from_fen(Variant::DarkCrazyhouse, "4k3/pppppppp/8/8/8/8/8/R3K3 b - - 0 1").unwrap();
        assert!(!target(4).reachable(&empty_handed, Color::Black));
        assert!(target(5).reachable(&empty_handed, Color::Black));
    }

    #[test]
    fn the_true_world_always_reaches_the_later_views_and_others_often_do_not() {
        let (mut allowed, mut rejected) = (0, 0);
        for variant in Variant::ALL {
            for seed in 0..4 {
                let [a, b] = game(variant, seed);
                let other = game(variant, seed + 100);
                for (c, (info, truths)) in [a, b].iter().enumerate() {
                    for (i, truth) in truths.iter().enumerate() {
                        let lookahead = Lookahead::after_each(info.events(), i, info.side()).remove(0);
                        assert!(lookahead.allows(truth), "{variant} seed {seed}: truth after event {i} rejected");
                        allowed += 1;
                        // The same moment of another game: mostly too far from this game's views.
                        if let Some(stranger) = other[c].1.get(i).filter(|p| p.turn() == truth.turn()) {
                            rejected += !lookahead.allows(stranger) as usize;
                        }
                    }
                }
            }
        }
        assert!(allowed > 2000, "only {allowed} events checked");
        assert!(rejected * 4 > allowed, "the bound rejected only {rejected} of {allowed} strangers");
    }

    #[test]
    fn escapes_reject_worlds_whose_pieces_would_be_seen_and_never_the_truth() {
        // Strangers (the same moment of another game) that the per-view counts let through but
        // whose pieces have no way to stay out of sight of the later views, or no time for it.
        let (mut checked, mut caught) = (0, 0);
        for variant in Variant::ALL {
            for seed in 0..3 {
                let [a, b] = game(variant, seed);
                let other = game(variant, seed + 200);
                for (c, (info, truths)) in [a, b].iter().enumerate() {
                    let each = Lookahead::after_each(info.events(), 0, info.side());
                    for (i, truth) in truths.iter().enumerate() {
                        assert!(each[i].escape_cost(truth).is_some(), "{variant} seed {seed}: truth {i} has no escape");
                        let single = Lookahead::after_each(info.events(), i, info.side()).remove(0);
                        assert_eq!(single.escape_cost(truth), each[i].escape_cost(truth), "depends on the start");
                        if let Some(stranger) = other[c].1.get(i).filter(|p| p.turn() == truth.turn()) {
                            let counts_allow = each[i].targets.iter().all(|t| t.reachable(stranger, each[i].enemy));
                            checked += counts_allow as usize;
                            caught += (counts_allow && !each[i].allows(stranger)) as usize;
                        }
                    }
                }
            }
        }
        assert!(checked > 50, "only {checked} strangers got past the counts");
        assert!(caught * 2 > checked, "escapes caught only {caught} of {checked} strangers the counts allowed");
    }
}
