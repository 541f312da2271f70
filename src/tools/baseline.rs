//! The naive baseline belief-eval compares against: enemy pieces stay where they were last seen,
//! and the enemy pieces not placed that way are spread evenly over the rest of the fog.

use crate::belief::Content;
use crate::core::{Color, MoveKind, Piece, Role, Square};
use crate::view::{Event, InfoState, SquareView, View};

/// The naive belief of one player, fed from its information state only.
#[derive(Clone, Debug)]
pub struct Baseline {
    side: Color,
    /// The enemy piece last seen on each square (cleared when the square is seen otherwise).
    memory: [Option<Piece>; 64],
    /// Enemy pieces of each role believed on the board: the start's, less those the player took.
    material: [u32; Role::COUNT],
    events: usize,
    last: View,
}

impl Baseline {
    /// The baseline at the start of the game `info` describes.
    pub fn new(info: &InfoState) -> Baseline {
        let enemy = info.side().opponent();
        let mut material = [0; Role::COUNT];
        for role in Role::ALL {
            material[role.index()] = info.start().pieces(enemy, role).count();
        }
        let mut memory = [None; 64];
        for sq in info.start().by_color(enemy) {
            memory[sq.index()] = info.start().piece_at(sq);
        }
        Baseline { side: info.side(), memory, material, events: 0, last: View::of(info.start(), info.side()) }
    }

    /// Takes in the events `info` received since the last call.
    pub fn update(&mut self, info: &InfoState) {
        for event in &info.events()[self.events..] {
            match event {
                Event::Own { mv, obs } => {
                    let victim = match mv.kind {
                        MoveKind::EnPassant => Square::from_coords(mv.to.file(), mv.from.rank()),
                        _ => mv.to,
                    };
                    if let SquareView::Piece(p, _) = self.last.square(victim) {
                        if p.color != self.side {
                            self.material[p.role.index()] = self.material[p.role.index()].saturating_sub(1);
                        }
                    }
                    self.remember(&obs.view);
                }
                Event::Opponent { obs } => self.remember(&obs.view),
                Event::Bounce { .. } => {}
            }
        }
        self.events = info.events().len();
    }

    fn remember(&mut self, view: &View) {
        self.last = view.clone();
        for sq in view.seen() {
            self.memory[sq.index()] = match view.square(sq) {
                SquareView::Piece(p, _) if p.color != self.side => Some(p),
                _ => None,
            };
        }
    }

    /// The probability the baseline gives to `content` on the fogged square `sq` of `view`.
    pub fn probability(&self, view: &View, sq: Square, content: Content) -> f64 {
        let fog = view.fog();
        if let Some(p) = self.memory[sq.index()] {
            return if content == Some(p) { 1.0 } else { 0.0 };
        }
        let enemy = self.side.opponent();
        let mut unplaced = self.material;
        for role in Role::ALL {
            let seen = view.pieces(enemy, role).count();
            let remembered = fog.filter(|s| self.memory[s.index()] == Some(Piece::new(enemy, role))).count() as u32;
            unplaced[role.index()] = unplaced[role.index()].saturating_sub(seen + remembered);
        }
        let open = fog.filter(|s| self.memory[s.index()].is_none()).count().max(1) as f64;
        let total: f64 = unplaced.iter().map(|&n| n as f64).sum();
        let scale = if total > open { open / total } else { 1.0 };
        match content {
            None => 1.0 - total * scale / open,
            Some(p) if p.color == enemy => unplaced[p.role.index()] as f64 * scale / open,
            Some(_) => 0.0,
        }
    }
}
