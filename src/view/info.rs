//! A player's information state: everything one player knows (the agreed start position, its
//! color, its own moves, and every observation and bounce it received), and nothing else.
//! Search and belief read only this, so a leak of hidden information is impossible by construction.

use crate::core::{Bitboard, Color, Move, MoveKind, Role, Square, Variant};
use crate::rules::{Castling, Hand, MoveList, Position};
use crate::view::{Observation, SquareView, View};

/// One entry of the observation history.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Event {
    /// The player's own move was played; `obs` is what it saw afterwards.
    Own {
        /// The move as played (castling and en passant filled in).
        mv: Move,
        /// The observation after it.
        obs: Observation,
    },
    /// The opponent moved (the move itself is never known); `obs` is what the player saw afterwards.
    Opponent {
        /// The observation after the opponent's ply.
        obs: Observation,
    },
    /// The player's drop onto a fogged square bounced: the square is occupied by an enemy piece.
    Bounce {
        /// The square the drop targeted.
        square: Square,
    },
}

/// Why an input could not be applied to the information state (the state is left unchanged).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InfoError {
    /// An observation of the player's own move arrived but no move of its own is pending.
    #[error("no move of ours is pending, but it is our turn")]
    NoPendingMove,
    /// A move was proposed that is not among the moves decidable from the view.
    #[error("move {0} is not legal from our view")]
    IllegalOwnMove(String),
    /// A bounce arrived for something other than the pending drop.
    #[error("bounce on {0} does not answer a pending drop onto that square")]
    UnexpectedBounce(Square),
    /// The observation contradicts what the player already knows.
    #[error("observation contradicts what we know: {0}")]
    Contradiction(String),
    /// The game is over.
    #[error("the game is over")]
    GameOver,
}

/// What one player knows.
#[derive(Clone, Debug)]
pub struct InfoState {
    start: Position,
    side: Color,
    initial_view: View,
    events: Vec<Event>,
    plies: usize,
    castling: Castling,
    bounced: Bitboard,
    pending: Option<Move>,
    finished: bool,
}

impl InfoState {
    /// The state at the start of a game from `start` (known to both players), playing `side`.
    pub fn new(start: Position, side: Color) -> InfoState {
        let own_rights = Castling::bit(side, true) | Castling::bit(side, false);
        InfoState {
            initial_view: View::of(&start, side),
            castling: Castling(start.castling().0 & own_rights),
            start,
            side,
            events: Vec::new(),
            plies: 0,
            bounced: Bitboard::EMPTY,
            pending: None,
            finished: false,
        }
    }

    /// The game.
    pub fn variant(&self) -> Variant {
        self.start.variant()
    }

    /// The player's color.
    pub fn side(&self) -> Color {
        self.side
    }

    /// The agreed start position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The observation history.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Plies played since the start.
    pub fn plies(&self) -> usize {
        self.plies
    }

    /// The side to move now.
    pub fn turn(&self) -> Color {
        if self.plies.is_multiple_of(2) {
            self.start.turn()
        } else {
            self.start.turn().opponent()
        }
    }

    /// True if it is the player's turn and the game goes on.
    pub fn is_our_turn(&self) -> bool {
        !self.finished && self.turn() == self.side
    }

    /// True once the game has been declared over.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The latest view.
    pub fn view(&self) -> &View {
        self.events
            .iter()
            .rev()
            .find_map(|e| match e {
                Event::Own { obs, .. } | Event::Opponent { obs } => Some(&obs.view),
                Event::Bounce { .. } => None,
            })
            .unwrap_or(&self.initial_view)
    }

    /// The player's own castling rights.
    pub fn castling(&self) -> Castling {
        self.castling
    }

    /// Squares where a drop bounced during the current turn.
    pub fn bounced_this_turn(&self) -> Bitboard {
        self.bounced
    }

    /// The move sent and not yet confirmed by an observation or a bounce.
    pub fn pending_move(&self) -> Option<Move> {
        self.pending
    }

    /// The moves the player may choose now (empty when it is not its turn).
    pub fn legal_moves(&self) -> MoveList {
        if !self.is_our_turn() {
            return MoveList::new();
        }
        self.view().own_moves(self.castling, self.bounced)
    }

    /// Records the move the player has just sent; the next observation or bounce answers it.
    /// `wanted` may be a parsed move shape; it is matched against the legal moves.
    pub fn send_move(&mut self, wanted: Move) -> Result<Move, InfoError> {
        if self.finished {
            return Err(InfoError::GameOver);
        }
        let variant = self.variant();
        let mv = self
            .legal_moves()
            .iter()
            .copied()
            .find(|m| m.matches_shape(wanted))
            .ok_or_else(|| InfoError::IllegalOwnMove(wanted.to_uci(variant)))?;
        self.pending = Some(mv);
        Ok(mv)
    }

    /// Applies the answer "your drop bounced".
    pub fn bounce(&mut self, square: Square) -> Result<(), InfoError> {
        match self.pending {
            // Only a fogged square can hold an unseen piece: a drop onto a square seen empty lands.
            Some(m) if m.is_drop() && m.to == square && self.is_our_turn() && self.view().fog().contains(square) => {
                self.pending = None;
                self.bounced |= Bitboard::from_square(square);
                self.events.push(Event::Bounce { square });
                Ok(())
            }
            _ => Err(InfoError::UnexpectedBounce(square)),
        }
    }

    /// Applies the observation after the next ply: the player's pending move if it is its turn,
    /// else the opponent's move. A contradiction leaves the state unchanged.
    pub fn observe(&mut self, obs: Observation) -> Result<(), InfoError> {
        if self.finished {
            return Err(InfoError::GameOver);
        }
        let before = self.view();
        let event = if self.turn() == self.side {
            let mv = self.pending.ok_or(InfoError::NoPendingMove)?;
            check_own_move(before, mv, &obs).map_err(InfoError::Contradiction)?;
            Event::Own { mv, obs }
        } else {
            check_opponent_move(before, &obs).map_err(InfoError::Contradiction)?;
            Event::Opponent { obs }
        };
        self.update_castling(&event);
        self.events.push(event);
        self.plies += 1;
        self.pending = None;
        self.bounced = Bitboard::EMPTY;
        Ok(())
    }

    /// Checks an `observe ... start` line: the view of the start position, sent once before the
    /// first ply. It teaches nothing new, so it is only compared with the view computed here.
    pub fn check_start_view(&self, obs: &Observation) -> Result<(), InfoError> {
        if self.finished {
            return Err(InfoError::GameOver);
        }
        let fail = |why: &str| Err(InfoError::Contradiction(why.to_string()));
        if self.plies > 0 || !self.events.is_empty() || self.pending.is_some() {
            return fail("a start view after the game has begun");
        }
        if obs.captured.is_some() || obs.try_armed {
            return fail("a start view reports a capture or a Try");
        }
        if obs.view != self.initial_view {
            return Err(InfoError::Contradiction(format!("the start view should be {}", self.initial_view.to_text())));
        }
        Ok(())
    }

    /// Marks the game as over; nothing more is applied.
    pub fn finish(&mut self) {
        self.finished = true;
        self.pending = None;
    }

    fn update_castling(&mut self, event: &Event) {
        let touched: &[Square] = match event {
            Event::Own { mv, .. } => &[mv.from, mv.to],
            Event::Opponent { obs } => match &obs.captured {
                Some((sq, _)) => std::slice::from_ref(sq),
                None => &[],
            },
            Event::Bounce { .. } => &[],
        };
        for &sq in touched {
            for king_side in [true, false] {
                if sq == Castling::rook_square(self.side, king_side) || sq == Castling::king_square(self.side) {
                    self.castling.0 &= !Castling::bit(self.side, king_side);
                }
            }
        }
    }
}

/// The player's own pieces, promoted marks and hand as a view shows them.
#[derive(PartialEq, Eq, Debug)]
struct OwnArmy {
    by_role: [Bitboard; Role::COUNT],
    promoted: Bitboard,
    hand: Hand,
}

impl OwnArmy {
    fn of(view: &View) -> OwnArmy {
        let side = view.side();
        let mut by_role = [Bitboard::EMPTY; Role::COUNT];
        for role in Role::ALL {
            by_role[role.index()] = view.pieces(side, role);
        }
        OwnArmy { by_role, promoted: view.promoted() & view.by_color(side), hand: *view.hand() }
    }

    fn role_at(&self, sq: Square) -> Option<Role> {
        Role::ALL.into_iter().find(|r| self.by_role[r.index()].contains(sq))
    }

    fn lift(&mut self, sq: Square) -> Option<(Role, bool)> {
        let role = self.role_at(sq)?;
        let promoted = self.promoted.contains(sq);
        self.by_role[role.index()] = self.by_role[role.index()].without(sq);
        self.promoted = self.promoted.without(sq);
        Some((role, promoted))
    }

    fn place(&mut self, sq: Square, role: Role, promoted: bool) {
        self.by_role[role.index()] |= Bitboard::from_square(sq);
        if promoted {
            self.promoted |= Bitboard::from_square(sq);
        }
    }
}

/// Checks that the observation after the player's own move `mv` shows its army as the move leaves it.
fn check_own_move(before: &View, mv: Move, obs: &Observation) -> Result<(), String> {
    let variant = before.variant();
    let mut army = OwnArmy::of(before);
    match mv.kind {
        MoveKind::Drop(role) => {
            army.hand.remove(role);
            army.place(mv.to, role, false);
        }
        MoveKind::Castle => {
            let (rook_from, rook_to) = Castling::rook_move(before.side(), mv);
            army.lift(mv.from);
            army.lift(rook_from);
            army.place(mv.to, Role::King, false);
            army.place(rook_to, Role::Rook, false);
        }
        _ => {
            let (role, promoted) = army.lift(mv.from).ok_or("our move starts on an empty square")?;
            let victim_sq =
                if mv.kind == MoveKind::EnPassant { Square::from_coords(mv.to.file(), mv.from.rank()) } else { mv.to };
            if variant.has_hands() {
                match before.square(victim_sq) {
                    SquareView::Piece(victim, _) if victim.role == Role::King => {}
                    SquareView::Piece(_, true) => army.hand.add(Role::Pawn),
                    SquareView::Piece(victim, false) => army.hand.add(victim.role),
                    _ => {}
                }
            }
            let (new_role, now_promoted) = match mv.kind {
                MoveKind::Promotion(r) => (r, variant.has_hands()),
                _ => (role, promoted),
            };
            army.place(mv.to, new_role, now_promoted);
        }
    }
    if obs.captured.is_some() {
        return Err("a capture of our piece reported after our own move".into());
    }
    let king_arrived = army.by_role[Role::King.index()].contains(mv.to)
        && before.side().relative_rank(mv.to.rank()) == 7
        && variant.has_try();
    if obs.try_armed && !king_arrived {
        return Err("a Try reported without our king reaching the far rank".into());
    }
    if army != OwnArmy::of(&obs.view) {
        return Err(format!("after our move {} our pieces or hand are not where they should be", mv.to_uci(variant)));
    }
    Ok(())
}

/// Checks that the observation after the opponent's move shows the player's army unchanged but
/// for the reported capture.
fn check_opponent_move(before: &View, obs: &Observation) -> Result<(), String> {
    let mut army = OwnArmy::of(before);
    if let Some((sq, role)) = obs.captured {
        match army.lift(sq) {
            Some((had, _)) if had == role => {}
            _ => return Err(format!("capture reported on {sq}, where we had no such piece")),
        }
    }
    if obs.try_armed {
        return Err("a Try of ours reported after the opponent's move".into());
    }
    if army != OwnArmy::of(&obs.view) {
        return Err("our pieces or hand changed without a reported capture".into());
    }
    Ok(())
}
