//! How likely each of the opponent's pseudo-legal moves is in a world: uniform (exactly right
//! against a random mover), biased towards captures, a mixture of uniform and greedy (always
//! the most valuable capture it can make) whose share is learned from the game, or purposeful:
//! a softmax over what each move does to us (captures, threats, checks, pieces left hanging or
//! saved, steps towards our king), fitted to strong players' moves, over a uniform floor.

use crate::core::role_value;
use crate::core::{attacks, Bitboard, Color, Move, MoveKind, Role, Square, Variant};
use crate::rules::{reach, vision, Position};

/// How likely the belief takes each pseudo-legal opponent move to be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OpponentModel {
    /// Every move (drops included) equally likely.
    Uniform,
    /// A capture of one of the engine's pieces weighs `1 + bias * value of the victim` (in
    /// pawns, a king 1000) against 1 for any other move.
    CaptureBias(f64),
    /// A mixture of uniform and greedy (the most valuable capture of an engine's piece, ties
    /// alike, else uniform); the greedy share starts at one half and follows how well each
    /// explains the opponent's plies so far (Bayes' rule over the belief's worlds).
    Adaptive,
    /// A competent mover: `1 - floor` of a softmax of [`purpose_weights`] times each move's
    /// [`features`], plus `floor` of uniform, so that no consistent world is ever dropped for
    /// being unlikely.
    Purposeful {
        /// The uniform share.
        floor: f64,
    },
}

/// The number of [`features`] of a move.
pub const FEATURES: usize = 13;

/// The names of the [`features`], in order.
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "capture",
    "king_capture",
    "check",
    "threat",
    "hanging",
    "escape",
    "approach",
    "promotion",
    "drop",
    "pawn",
    "king_move",
    "castle",
    "blind_check",
];

/// The weights of the purposeful model's softmax in each game (the inverse temperature folded
/// in), fitted by maximum likelihood (`murk belief-eval --variant V --records FILE --fit NAME`):
/// in Dark Chess to Misty's 2,586 moves in 80 games against Murk at 1 s a move, in the other two
/// games to Murk's own moves in 40 games against itself at 30,000 nodes a move.
pub fn purpose_weights(variant: Variant) -> [f32; FEATURES] {
    match variant {
        Variant::DarkChess => [1.03, 5.32, -0.47, 0.20, -0.38, 0.27, -0.04, -0.10, 0.0, 0.06, -0.22, 2.76, 1.57],
        Variant::DarkCrazyhouse => [0.74, 6.50, 1.19, 0.19, -0.20, 0.21, -0.01, 0.46, -0.46, 0.05, -0.13, 1.18, 1.22],
        Variant::DarkCrossroads => [0.75, 4.46, 0.05, 0.13, -0.22, 0.16, -0.07, 1.70, 0.0, -0.49, 0.11, 0.0, 0.29],
    }
}

/// The uniform share of the purposeful model (the best of the fits' floors, on all three data
/// sets 0.02 to 0.05).
pub const PURPOSE_FLOOR: f64 = 0.05;

/// What a mover's moves do to the other side (`side`) in one position, computed once per
/// position: `side`'s king, the squares its pieces attack, the occupancy, and the mover's pieces
/// that alone stand between one of its sliders and our king (moving one uncovers an attack).
pub struct Target {
    side: Color,
    king: Option<Square>,
    covered: Bitboard,
    occupied: Bitboard,
    board: Bitboard,
    discoverers: Bitboard,
    /// `side`'s pieces worth 9, 5, 3 (4.5: cannons count as 5) and 1, each set a subset of the next.
    worth: [(Bitboard, f32); 4],
}

impl Target {
    /// The target of the moves of `pos`'s side to move: the other side, `side`.
    pub fn new(pos: &Position, side: Color) -> Target {
        let board = pos.variant().board_mask();
        let occupied = pos.occupied();
        let enemies = pos.by_color(side.opponent());
        let mut covered = Bitboard::EMPTY;
        for sq in pos.by_color(side) {
            let role = pos.role_at(sq).unwrap_or(Role::Pawn);
            covered |= match role {
                Role::Pawn => attacks::pawn_attacks(side, sq) & board,
                _ => reach(role, side, sq, occupied, enemies, board),
            };
        }
        let king = pos.king(side);
        let discoverers = king.map_or(Bitboard::EMPTY, |k| discoverers(pos, side.opponent(), k));
        let ours = |roles: &[Role]| roles.iter().fold(Bitboard::EMPTY, |acc, &r| acc | pos.pieces(side, r));
        let queens = ours(&[Role::Queen]);
        let rooks = queens | ours(&[Role::Rook, Role::Cannon]);
        let minors = rooks | ours(&[Role::Knight, Role::Bishop, Role::Horse]);
        let all = pos.by_color(side) & !ours(&[Role::King]);
        let worth = [(queens, 9.0), (rooks, 5.0), (minors, 3.0), (all, 1.0)];
        Target { side, king, covered, occupied, board, discoverers, worth }
    }
}

/// A slider's attacks from a square through an occupancy.
type Slider = fn(Square, Bitboard) -> Bitboard;

/// The pieces of `mover` that alone block a line from one of its sliders to `king`.
fn discoverers(pos: &Position, mover: Color, king: Square) -> Bitboard {
    let occ = pos.occupied();
    let own = pos.by_color(mover);
    let mut found = Bitboard::EMPTY;
    let lines: [(Slider, Role); 2] = [(attacks::rook, Role::Rook), (attacks::bishop, Role::Bishop)];
    for (slide, role) in lines {
        let near = slide(king, occ);
        let blockers = near & own;
        if blockers.is_empty() {
            continue;
        }
        let snipers = slide(king, occ & !blockers) & !near & (pos.pieces(mover, role) | pos.pieces(mover, Role::Queen));
        for sniper in snipers {
            found |= blockers & slide(sniper, occ);
        }
    }
    found
}

/// Chebyshev distance between two squares.
fn distance(a: Square, b: Square) -> f32 {
    f32::from(a.file().abs_diff(b.file()).max(a.rank().abs_diff(b.rank())))
}

/// What the move `m` of `pos`'s side to move does to `target`'s side: the value of the piece
/// it takes (in pawns; the king apart), whether it takes the king, whether the king is then
/// attacked (by the moved piece, or by a slider it uncovers), the most valuable other piece the
/// moved piece then attacks, the value it leaves on a
/// square we attack (less what it took), the value it takes off one we attack, how many steps
/// nearer our king it goes, what kind of move it is, and whether a check comes from a square we
/// will not see.
pub fn features(pos: &Position, m: Move, target: &Target) -> [f32; FEATURES] {
    let role = match m.kind {
        MoveKind::Drop(r) => r,
        _ => pos.role_at(m.from).unwrap_or(Role::Pawn),
    };
    features_of(pos, m, role, target)
}

/// [`features`] of `m`, a move of a piece of `role` (the piece it promotes from, for a promotion).
#[inline(always)]
fn features_of(pos: &Position, m: Move, role: Role, target: &Target) -> [f32; FEATURES] {
    let mut f = [0.0; FEATURES];
    let mover = target.side.opponent();
    let role = match m.kind {
        MoveKind::Promotion(r) => {
            f[7] = 1.0;
            r
        }
        _ => role,
    };
    let to = Bitboard::from_square(m.to);
    let taken = match m.kind {
        MoveKind::EnPassant => 1.0,
        MoveKind::Drop(_) | MoveKind::Castle => 0.0,
        _ => target.worth.iter().find(|(set, _)| (*set & to).any()).map_or(0.0, |w| w.1),
    };
    if target.king == Some(m.to) && m.kind != MoveKind::Castle && !m.is_drop() {
        f[1] = 1.0;
    } else {
        f[0] = taken;
    }
    let from = if m.is_drop() { Bitboard::EMPTY } else { Bitboard::from_square(m.from) };
    let occ = (target.occupied & !from) | to;
    let ours = occ & !to & !pos.by_color(mover);
    let hits = match role {
        Role::Pawn => attacks::pawn_attacks(mover, m.to) & target.board,
        _ => reach(role, mover, m.to, occ, ours, target.board),
    } & ours;
    if let Some(king) = target.king {
        let uncovers = !m.is_drop() && target.discoverers.contains(m.from);
        f[2] = f32::from(u8::from(hits.contains(king) || uncovers));
        if !m.is_drop() {
            f[6] = distance(m.from, king) - distance(m.to, king);
        }
    }
    f[3] = target.worth.iter().find(|(set, _)| (*set & hits).any()).map_or(0.0, |w| w.1);
    let value = role_value(role).min(9.0) as f32;
    if target.covered.contains(m.to) {
        f[4] = (value - taken).max(0.0);
    }
    if !m.is_drop() && target.covered.contains(m.from) && !target.covered.contains(m.to) {
        f[5] = value;
    }
    f[8] = f32::from(u8::from(m.is_drop()));
    f[9] = f32::from(u8::from(role == Role::Pawn && !m.is_drop()));
    f[10] = f32::from(u8::from(role == Role::King && m.kind != MoveKind::Castle));
    f[11] = f32::from(u8::from(m.kind == MoveKind::Castle));
    if let (Some(king), true) = (target.king, f[2] > 0.0) {
        // A check by a piece on a square we will not see: the king falls next unless we guess it.
        let mut after = pos.clone();
        after.play_unchecked(m);
        let (seen, silhouettes) = vision(&after, target.side);
        let unseen = after.attackers(king, mover, after.occupied()) & !seen & !silhouettes;
        f[12] = f32::from(u8::from(unseen.any()));
    }
    f
}

/// The softmax chances of `moves` (those of `pos`, whose mover's opponent is `side`) under
/// `weights`, written into `out`.
pub fn softmax_into(pos: &Position, moves: &[Move], side: Color, weights: &[f32; FEATURES], out: &mut Vec<f64>) {
    let target = Target::new(pos, side);
    out.clear();
    // Moves come piece by piece: the moving piece's role is looked up once per piece.
    let mut last: Option<(Square, Role)> = None;
    out.extend(moves.iter().map(|&m| {
        let role = match (m.kind, last) {
            (MoveKind::Drop(r), _) => r,
            (_, Some((sq, r))) if sq == m.from => r,
            _ => {
                let r = pos.role_at(m.from).unwrap_or(Role::Pawn);
                last = Some((m.from, r));
                r
            }
        };
        let f = features_of(pos, m, role, &target);
        f64::from(f.iter().zip(weights).map(|(f, w)| f * w).sum::<f32>())
    }));
    let top = out.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut total = 0.0;
    for s in out.iter_mut() {
        *s = (*s - top).exp();
        total += *s;
    }
    for s in out.iter_mut() {
        *s /= total;
    }
}

/// The value of the engine's piece that `m` captures in `pos`, if it captures one.
fn capture_value(pos: &Position, m: Move, side: Color) -> Option<f64> {
    match m.kind {
        MoveKind::EnPassant => Some(role_value(Role::Pawn)),
        MoveKind::Drop(_) | MoveKind::Castle => None,
        _ => pos.by_color(side).contains(m.to).then(|| pos.role_at(m.to)).flatten().map(role_value),
    }
}

/// The chances of the moves of one world (the engine is `side`), under a model whose greedy
/// share is `greedy_share` (used by [`OpponentModel::Adaptive`] only).
pub struct MoveChances {
    model: OpponentModel,
    side: Color,
    moves: f64,
    biased_total: f64,
    best: Option<f64>,
    best_count: f64,
    greedy_share: f64,
    /// The purposeful model's chance of each move, in the order of the moves.
    purposeful: Vec<f64>,
}

impl MoveChances {
    /// The chances of `moves`, the pseudo-legal moves of `pos`.
    pub fn new(model: OpponentModel, greedy_share: f64, pos: &Position, moves: &[Move], side: Color) -> MoveChances {
        let mut chances = MoveChances {
            model,
            side,
            moves: moves.len().max(1) as f64,
            biased_total: 0.0,
            best: None,
            best_count: 0.0,
            greedy_share,
            purposeful: Vec::new(),
        };
        match model {
            OpponentModel::Uniform => {}
            OpponentModel::CaptureBias(bias) => {
                chances.biased_total =
                    moves.iter().map(|&m| 1.0 + bias * capture_value(pos, m, side).unwrap_or(0.0)).sum();
            }
            OpponentModel::Purposeful { .. } => {}
            OpponentModel::Adaptive => {
                for v in moves.iter().filter_map(|&m| capture_value(pos, m, side)) {
                    match chances.best {
                        Some(b) if v < b => {}
                        Some(b) if v == b => chances.best_count += 1.0,
                        _ => (chances.best, chances.best_count) = (Some(v), 1.0),
                    }
                }
            }
        }
        chances
    }

    /// The chance of `m` under a uniform mover.
    pub fn uniform(&self) -> f64 {
        1.0 / self.moves
    }

    /// The chance of `m` under a greedy mover.
    pub fn greedy(&self, pos: &Position, m: Move) -> f64 {
        match self.best {
            None => self.uniform(),
            Some(best) if capture_value(pos, m, self.side) == Some(best) => 1.0 / self.best_count,
            Some(_) => 0.0,
        }
    }

    /// Prepares [`MoveChances::chance`] for every move (the purposeful model weighs all the
    /// moves of `pos` at once: call this only for a position some of whose moves are wanted);
    /// returns how many moves it weighed one by one.
    pub fn weigh_all(&mut self, pos: &Position, moves: &[Move]) -> usize {
        let OpponentModel::Purposeful { floor } = self.model else { return 0 };
        let uniform = floor / self.moves;
        softmax_into(pos, moves, self.side, &purpose_weights(pos.variant()), &mut self.purposeful);
        for p in &mut self.purposeful {
            *p = (1.0 - floor) * *p + uniform;
        }
        moves.len()
    }

    /// The chance of `m`, the `index`-th of the moves, under the model (after
    /// [`MoveChances::weigh_all`]).
    pub fn chance(&self, pos: &Position, m: Move, index: usize) -> f64 {
        match self.model {
            OpponentModel::Purposeful { .. } => self.purposeful[index],
            OpponentModel::Uniform => self.uniform(),
            OpponentModel::CaptureBias(bias) => {
                (1.0 + bias * capture_value(pos, m, self.side).unwrap_or(0.0)) / self.biased_total
            }
            OpponentModel::Adaptive => {
                self.greedy_share * self.greedy(pos, m) + (1.0 - self.greedy_share) * self.uniform()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chances_sum_to_one_and_greedy_takes_the_most_valuable_capture() {
        // Black to move may take the queen on d4 (pawn e5) or the knight on h4 (rook h8).
        let pos = Position::from_fen(Variant::DarkChess, "4k2r/8/8/4p3/3Q3N/8/8/4K3 b - - 0 1").unwrap();
        let moves = pos.moves();
        for (model, share) in [
            (OpponentModel::Uniform, 0.0),
            (OpponentModel::CaptureBias(1.0), 0.0),
            (OpponentModel::Adaptive, 0.3),
            (OpponentModel::Purposeful { floor: 0.1 }, 0.0),
        ] {
            let mut chances = MoveChances::new(model, share, &pos, &moves, Color::White);
            chances.weigh_all(&pos, &moves);
            let total: f64 = moves.iter().enumerate().map(|(i, &m)| chances.chance(&pos, m, i)).sum();
            assert!((total - 1.0).abs() < 1e-9, "{model:?}: {total}");
        }
        let chances = MoveChances::new(OpponentModel::Adaptive, 1.0, &pos, &moves, Color::White);
        for &m in moves.iter() {
            let takes_queen = m.to.to_string() == "d4";
            assert_eq!(chances.greedy(&pos, m), if takes_queen { 1.0 } else { 0.0 }, "{m:?}");
        }
    }

    fn feature(fen: &str, uci: &str, name: &str) -> f64 {
        let pos = Position::from_fen(Variant::DarkChess, fen).unwrap();
        let m = pos.find_move(Move::parse(uci, Variant::DarkChess).unwrap()).expect("a legal move");
        let i = FEATURE_NAMES.iter().position(|n| *n == name).unwrap();
        f64::from(features(&pos, m, &Target::new(&pos, pos.turn().opponent()))[i])
    }

    #[test]
    fn features_see_captures_checks_uncovered_attacks_threats_and_hanging_pieces() {
        // White: Kg1, Re1, Be2, Nd4; Black: Ke8, Qd8, pawns a7 and f7 (Black is the target).
        let fen = "3qk3/p4p2/8/8/3N4/8/4B3/4R1K1 w - - 0 1";
        assert_eq!(feature(fen, "e2b5", "check"), 1.0, "the bishop gives check");
        assert_eq!(feature(fen, "e2c4", "check"), 1.0, "moving the bishop uncovers the rook's attack on e8");
        assert_eq!(feature(fen, "d4c6", "check"), 0.0, "the knight on c6 attacks d8 and e7, not e8");
        assert_eq!(feature(fen, "e2b5", "blind_check"), 1.0, "Black does not see b5");
        assert_eq!(feature(fen, "e2c4", "blind_check"), 1.0, "nor the rook on e1 that the bishop uncovers");
        assert_eq!(feature(fen, "e2d3", "blind_check"), 1.0, "e2-d3 uncovers the rook too");
        // Without the rook, and a black knight on c7 watching b5, the bishop's check is seen.
        let seen = "3qk3/p1n2p2/8/8/3N4/8/4B3/6K1 w - - 0 1";
        assert_eq!(feature(seen, "e2b5", "check"), 1.0);
        assert_eq!(feature(seen, "e2b5", "blind_check"), 0.0);
        assert_eq!(feature(fen, "d4c6", "threat"), 9.0, "the knight on c6 attacks the queen");
        assert_eq!(feature(fen, "d4e6", "hanging"), 3.0, "e6 is attacked by the f7 pawn");
        assert_eq!(feature(fen, "g1h2", "king_move"), 1.0);
        assert_eq!(feature(fen, "g1h2", "approach"), 1.0, "one step nearer e8");
        assert_eq!(feature("4k3/8/8/8/8/8/4q3/4K3 w - - 0 1", "e1e2", "capture"), 9.0);
        assert_eq!(feature("8/8/8/8/8/8/4k3/4K3 w - - 0 1", "e1e2", "king_capture"), 1.0);
    }
}
