//! Alpha-beta over one determinized world: iterative deepening, principal variation search with
//! a transposition table, killer and history ordering and late-move reductions, leaves valued by
//! the quiescence search. It scores every root move (moves far below the best get only an upper
//! bound), so that the root decision can weigh each move over many worlds.
//!
//! Scores are pawns for the side to move, as the evaluation gives them; a king capture `p` plies
//! ahead scores `WIN - p`.

use super::quiesce::quiesce_window;
use crate::core::{Move, MoveKind, Role};
use crate::eval::see::piece_value;
use crate::eval::{Evaluator, WIN};
use crate::rules::{PlyVerdict, Position};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// When one world's search must end: a node quota (`go nodes`, deterministic), a time, or both.
#[derive(Clone, Copy, Debug)]
pub struct WorldLimit {
    /// Nodes the world may visit, quiescence included.
    pub nodes: Option<u64>,
    /// The time at which it stops.
    pub deadline: Option<Instant>,
    /// Deepest iteration.
    pub max_depth: u32,
    /// Entries of its transposition table (a power of two; see [`table_entries`]).
    pub table_entries: usize,
}

/// What the search of one world found.
#[derive(Clone, Debug)]
pub struct WorldScores {
    /// A score per root move (in the order given), `None` where the move is not legal in this
    /// world (a drop onto a square the world fills).
    pub scores: Vec<Option<f32>>,
    /// Deepest iteration completed (0: only the quiescence values of the moves).
    pub depth: u32,
    /// Nodes visited.
    pub nodes: u64,
    /// The best line found, the best root move first.
    pub pv: Vec<Move>,
}

/// Below the best root move by more than this (pawns), a move is only shown to be worse.
const ROOT_MARGIN: f32 = 3.0;
/// The null window's width (pawns).
const NULL_WINDOW: f32 = 0.01;
/// Deepest ply the search tracks (killers, repetition line).
const MAX_PLY: usize = 64;
/// Nodes between two looks at the clock.
const CLOCK_INTERVAL: u64 = 512;
/// Ordering values: the table's move first, then captures and promotions, then the killers, then
/// the history counts below them.
const TT_ORDER: f32 = 1e9;
const TACTICAL_ORDER: f32 = 1e6;
const KILLER_ORDER: f32 = 5e5;
/// Entries of a world's transposition table when nothing sizes it (a power of two).
pub const DEFAULT_TABLE_ENTRIES: usize = 1 << 15;
/// Fewest and most entries of a sized table.
const TABLE_ENTRIES: (usize, usize) = (1 << 8, 1 << 22);

/// Entries of the transposition table of a world's search expected to visit `nodes` nodes,
/// within `memory` bytes: about one per node, a power of two.
pub fn table_entries(nodes: u64, memory: usize) -> usize {
    let wanted =
        usize::try_from(nodes).unwrap_or(usize::MAX).clamp(TABLE_ENTRIES.0, TABLE_ENTRIES.1).next_power_of_two();
    let fits = (memory / std::mem::size_of::<Option<Entry>>()).max(1);
    wanted.min((1 << fits.ilog2()).max(TABLE_ENTRIES.0))
}
/// Late-move reductions: a quiet move is searched a ply shallower from this depth on, once
/// [`LMR_FIRST_MOVE`] moves were tried before it...
const LMR_MIN_DEPTH: i32 = 3;
const LMR_FIRST_MOVE: usize = 3;
/// ...and two plies shallower from this depth on, once [`LMR_DEEP_MOVE`] were.
const LMR_DEEP_DEPTH: i32 = 5;
const LMR_DEEP_MOVE: usize = 10;

/// The bound a stored score is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    best: Option<Move>,
    score: f32,
    depth: i8,
    bound: Bound,
}

/// One world's search state.
struct Search<'a> {
    table: Vec<Option<Entry>>,
    killers: [[Option<Move>; 2]; MAX_PLY],
    history: Vec<i32>,
    /// Repetition keys of the positions on the current line, the root first.
    line: Vec<u64>,
    nodes: u64,
    /// Node count at which the budget is looked at next.
    next_check: u64,
    limit: WorldLimit,
    stop: &'a AtomicBool,
    eval: &'a Evaluator,
    aborted: bool,
}

/// Searches `world` and scores each of `root_moves` (the engine's legal moves, matched against
/// the world's own) by iterative deepening until `limit` or `stop`.
pub fn score_root_moves(
    world: &Position,
    root_moves: &[Move],
    limit: WorldLimit,
    stop: &AtomicBool,
    eval: &Evaluator,
) -> WorldScores {
    let mut search = Search {
        table: vec![None; limit.table_entries.next_power_of_two()],
        killers: [[None; 2]; MAX_PLY],
        history: vec![0; HISTORY_SIZE],
        line: vec![world.repetition_key()],
        nodes: 0,
        next_check: CLOCK_INTERVAL,
        limit,
        stop,
        eval,
        aborted: false,
    };
    let moves: Vec<(usize, Move)> =
        root_moves.iter().enumerate().filter_map(|(i, &m)| world.find_move(m).map(|m| (i, m))).collect();
    let mut scores: Vec<Option<f32>> = vec![None; root_moves.len()];
    // Depth 0: the quiescence value after each move, so that even a search cut short at once
    // has an answer.
    for &(i, m) in &moves {
        scores[i] = Some(search.root_child(world, m, 0, -WIN - 1.0, WIN + 1.0));
    }
    let mut depth = 0;
    let mut pv = Vec::new();
    while depth < limit.max_depth && !search.out_of_budget() {
        let next = depth + 1;
        let mut order = moves.clone();
        order.sort_by(|a, b| scores[b.0].unwrap_or(-WIN).total_cmp(&scores[a.0].unwrap_or(-WIN)));
        let mut found = scores.clone();
        let mut best = f32::NEG_INFINITY;
        for &(i, m) in &order {
            let floor = if best.is_finite() { best - ROOT_MARGIN } else { -WIN - 1.0 };
            let value = search.root_child(world, m, next as i32 - 1, floor, WIN + 1.0);
            if search.aborted {
                break;
            }
            found[i] = Some(value);
            best = best.max(value);
        }
        if search.aborted {
            break;
        }
        scores = found;
        depth = next;
        pv = search.principal_variation(world, &moves, &scores);
        if best >= WIN - MAX_PLY as f32 {
            break;
        }
    }
    if pv.is_empty() {
        pv = search.principal_variation(world, &moves, &scores);
    }
    WorldScores { scores, depth, nodes: search.nodes, pv }
}

/// Slots of the history table: from-to for board moves, then role-to for drops.
const HISTORY_SIZE: usize = 64 * 64 + 16 * 64;

fn history_index(m: Move) -> usize {
    match m.kind {
        MoveKind::Drop(role) => 64 * 64 + role.index() * 64 + m.to.index(),
        _ => m.from.index() * 64 + m.to.index(),
    }
}

/// Ordering value of a capture or promotion (most valuable victim, least valuable attacker).
fn tactical_order(pos: &Position, m: Move) -> Option<f32> {
    let victim = match m.kind {
        MoveKind::EnPassant => Some(Role::Pawn),
        MoveKind::Drop(_) | MoveKind::Castle => None,
        _ => pos.role_at(m.to),
    };
    let promotion = match m.kind {
        MoveKind::Promotion(r) => piece_value(r) - piece_value(Role::Pawn),
        _ => 0.0,
    };
    let attacker = pos.role_at(m.from).map_or(0.0, piece_value);
    match victim {
        Some(v) => Some(10.0 * piece_value(v) - attacker + promotion),
        None if promotion > 0.0 => Some(promotion),
        None => None,
    }
}

impl Search<'_> {
    fn out_of_budget(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        let over = self.stop.load(Ordering::Relaxed)
            || self.limit.nodes.is_some_and(|n| self.nodes >= n)
            || self.limit.deadline.is_some_and(|d| Instant::now() >= d);
        self.aborted = over;
        over
    }

    /// The score of root move `m` searched `depth` plies deeper, for the side playing it.
    fn root_child(&mut self, world: &Position, m: Move, depth: i32, alpha: f32, beta: f32) -> f32 {
        let mover = world.turn();
        let mut child = world.clone();
        child.play_unchecked(m);
        self.nodes += 1;
        match child.ply_verdict(mover, m.to) {
            PlyVerdict::KingCaptured => WIN,
            PlyVerdict::TryCompleted => -WIN,
            PlyVerdict::TryArmed | PlyVerdict::Neither => -self.negamax(&child, depth, -beta, -alpha, 1),
        }
    }

    fn negamax(&mut self, pos: &Position, depth: i32, mut alpha: f32, beta: f32, ply: usize) -> f32 {
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + CLOCK_INTERVAL;
            self.out_of_budget();
        }
        if self.aborted {
            return 0.0;
        }
        let us = pos.turn();
        let them = us.opponent();
        let (Some(our_king), Some(their_king)) = (pos.king(us), pos.king(them)) else {
            return if pos.king(us).is_some() { WIN - ply as f32 } else { -WIN + ply as f32 };
        };
        if pos.is_attacked(their_king, us) {
            return WIN - ply as f32;
        }
        if ply > 0 && (pos.no_progress_limit_reached() || self.repeats(pos)) {
            return 0.0;
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            let (value, visited) = quiesce_window(pos, alpha, beta, self.eval);
            self.nodes += u64::from(visited);
            return mate_at_ply(value, ply);
        }
        let key = pos.repetition_key();
        let slot = (key as usize) & (self.table.len() - 1);
        let mut tt_move = None;
        if let Some(entry) = self.table[slot].filter(|e| e.key == key) {
            tt_move = entry.best;
            let score = from_table(entry.score, ply);
            if i32::from(entry.depth) >= depth {
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    return score;
                }
            }
        }
        let moves = pos.moves();
        if moves.is_empty() {
            return no_moves_value(pos, ply);
        }
        let threatened = pos.is_attacked(our_king, them);
        let ordered = self.order_moves(pos, &moves, tt_move, ply);
        let original_alpha = alpha;
        let mut best = f32::NEG_INFINITY;
        let mut best_move = None;
        self.line.push(key);
        for (index, &(order, m, tactical)) in ordered.iter().enumerate() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            self.nodes += 1;
            let value = match child.ply_verdict(us, m.to) {
                PlyVerdict::KingCaptured => WIN - ply as f32,
                PlyVerdict::TryCompleted => -WIN + ply as f32,
                PlyVerdict::TryArmed | PlyVerdict::Neither => {
                    let quiet = !tactical && order < KILLER_ORDER && !threatened;
                    let reduction = if quiet && depth >= LMR_MIN_DEPTH && index >= LMR_FIRST_MOVE {
                        1 + i32::from(index >= LMR_DEEP_MOVE && depth >= LMR_DEEP_DEPTH)
                    } else {
                        0
                    };
                    self.search_child(&child, depth, reduction, index == 0, (alpha, beta), ply)
                }
            };
            if self.aborted {
                self.line.pop();
                return 0.0;
            }
            if value > best {
                best = value;
                best_move = Some(m);
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        if !tactical {
                            let killers = &mut self.killers[ply];
                            if killers[0] != Some(m) {
                                killers[1] = killers[0];
                                killers[0] = Some(m);
                            }
                            self.history[history_index(m)] += depth * depth;
                        }
                        break;
                    }
                }
            }
        }
        self.line.pop();
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.table[slot] =
            Some(Entry { key, best: best_move, score: to_table(best, ply), depth: depth.min(127) as i8, bound });
        best
    }

    /// `moves` in the order they are searched: the table's move, captures and promotions (most
    /// valuable victim first), the killers, then by history; each with its ordering value and
    /// whether it is tactical.
    fn order_moves(&self, pos: &Position, moves: &[Move], tt_move: Option<Move>, ply: usize) -> Vec<(f32, Move, bool)> {
        let mut ordered: Vec<(f32, Move, bool)> = moves
            .iter()
            .map(|&m| {
                let tactical = tactical_order(pos, m);
                let order = if Some(m) == tt_move {
                    TT_ORDER
                } else if let Some(t) = tactical {
                    TACTICAL_ORDER + t
                } else if self.killers[ply].contains(&Some(m)) {
                    KILLER_ORDER
                } else {
                    self.history[history_index(m)] as f32
                };
                (order, m, tactical.is_some())
            })
            .collect();
        ordered.sort_by(|a, b| b.0.total_cmp(&a.0));
        ordered
    }

    /// The value of `child` for the side that moved into it: a full window for the first move,
    /// else a null window (at `reduction` plies less, searched again at full depth if it beats
    /// alpha), and a full window again when it lands inside (principal variation search).
    fn search_child(
        &mut self,
        child: &Position,
        depth: i32,
        reduction: i32,
        first: bool,
        (alpha, beta): (f32, f32),
        ply: usize,
    ) -> f32 {
        if first {
            return -self.negamax(child, depth - 1, -beta, -alpha, ply + 1);
        }
        let mut v = -self.negamax(child, depth - 1 - reduction, -alpha - NULL_WINDOW, -alpha, ply + 1);
        if v > alpha && reduction > 0 {
            v = -self.negamax(child, depth - 1, -alpha - NULL_WINDOW, -alpha, ply + 1);
        }
        if v > alpha && v < beta {
            v = -self.negamax(child, depth - 1, -beta, -alpha, ply + 1);
        }
        v
    }

    /// True if `pos` already stood on the current line with the same side to move since the
    /// last irreversible move.
    fn repeats(&self, pos: &Position) -> bool {
        let reversible = pos.halfmoves() as usize;
        if reversible < 4 {
            return false;
        }
        let key = pos.repetition_key();
        let back = reversible.min(self.line.len());
        self.line[self.line.len() - back..].iter().rev().skip(1).step_by(2).any(|&k| k == key)
    }

    /// The best root move by `scores`, then the table's moves from there.
    fn principal_variation(&self, world: &Position, moves: &[(usize, Move)], scores: &[Option<f32>]) -> Vec<Move> {
        let Some(&(_, first)) =
            moves.iter().max_by(|a, b| scores[a.0].unwrap_or(-WIN).total_cmp(&scores[b.0].unwrap_or(-WIN)))
        else {
            return Vec::new();
        };
        let mut pv = vec![first];
        let mut pos = world.clone();
        pos.play_unchecked(first);
        while pv.len() < 8 && !pos.is_king_captured() {
            let key = pos.repetition_key();
            let Some(next) =
                self.table[(key as usize) & (self.table.len() - 1)].filter(|e| e.key == key).and_then(|e| e.best)
            else {
                break;
            };
            if pos.find_move(next) != Some(next) {
                break;
            }
            pos.play_unchecked(next);
            pv.push(next);
        }
        pv
    }
}

/// The value of a position whose side to move has no move (RULES.md): a loss when a Try is
/// pending against it or in the variants where having no move loses, else a draw.
fn no_moves_value(pos: &Position, ply: usize) -> f32 {
    if pos.winner_when_stuck().is_some() {
        -WIN + ply as f32
    } else {
        0.0
    }
}

/// A quiescence value (won scores counted from its own start) as seen from `ply` plies deeper.
fn mate_at_ply(value: f32, ply: usize) -> f32 {
    if value >= WIN / 2.0 {
        value - ply as f32
    } else if value <= -WIN / 2.0 {
        value + ply as f32
    } else {
        value
    }
}

/// A score as stored in the table: won scores counted from the stored position.
fn to_table(score: f32, ply: usize) -> f32 {
    if score >= WIN / 2.0 {
        score + ply as f32
    } else if score <= -WIN / 2.0 {
        score - ply as f32
    } else {
        score
    }
}

/// A stored score as seen from `ply`.
fn from_table(score: f32, ply: usize) -> f32 {
    mate_at_ply(score, ply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    #[test]
    fn a_table_holds_about_one_entry_per_expected_node_within_its_memory() {
        let entry = std::mem::size_of::<Option<Entry>>();
        assert_eq!(table_entries(25_000, 1 << 30), 1 << 15);
        assert_eq!(table_entries(70_000, 1 << 30), 1 << 17);
        assert_eq!(table_entries(u64::MAX, usize::MAX), TABLE_ENTRIES.1);
        assert_eq!(table_entries(0, 1 << 30), TABLE_ENTRIES.0);
        // Memory for 5,000 entries: the largest power of two that fits.
        assert_eq!(table_entries(1_000_000, 5_000 * entry), 4096);
        assert_eq!(table_entries(1_000_000, 0), TABLE_ENTRIES.0, "never less than the fewest");
    }

    fn best(variant: Variant, fen: &str, depth: u32) -> (Move, WorldScores) {
        let pos = Position::from_fen(variant, fen).unwrap();
        let moves = pos.moves().to_vec();
        let stop = AtomicBool::new(false);
        let result = score_root_moves(
            &pos,
            &moves,
            WorldLimit {
                nodes: Some(2_000_000),
                deadline: None,
                max_depth: depth,
                table_entries: DEFAULT_TABLE_ENTRIES,
            },
            &stop,
            &Evaluator::Hand,
        );
        let i =
            (0..moves.len()).max_by(|&a, &b| result.scores[a].unwrap().total_cmp(&result.scores[b].unwrap())).unwrap();
        (moves[i], result)
    }

    #[test]
    fn a_two_move_king_hunt_is_found() {
        // The knight fork Nc7 attacks the king on e8 and the rook on a8: the king must step
        // away, then Nxa8.
        let fen = "r3k3/8/8/1N6/8/8/8/4K3 w - - 0 1";
        let (m, result) = best(Variant::DarkChess, fen, 4);
        assert_eq!(m.to_uci(Variant::DarkChess), "b5c7", "{result:?}");
        assert!(result.depth >= 4);
    }

    #[test]
    fn a_move_that_leaves_the_king_to_be_taken_scores_as_lost() {
        // The white bishop on e2 shields the king on e1 from the rook on e8: any bishop move
        // leaves the king to be taken.
        let fen = "4r1k1/8/8/8/8/8/4B3/4K3 w - - 0 1";
        let pos = Position::from_fen(Variant::DarkChess, fen).unwrap();
        let moves = pos.moves().to_vec();
        let stop = AtomicBool::new(false);
        let result = score_root_moves(
            &pos,
            &moves,
            WorldLimit { nodes: None, deadline: None, max_depth: 3, table_entries: DEFAULT_TABLE_ENTRIES },
            &stop,
            &Evaluator::Hand,
        );
        for (m, s) in moves.iter().zip(&result.scores) {
            let uci = m.to_uci(Variant::DarkChess);
            let s = s.unwrap();
            if uci.starts_with("e2") {
                assert!(s <= -WIN / 2.0, "{uci} {s}");
            }
        }
    }

    #[test]
    fn the_node_quota_makes_the_search_repeatable() {
        let pos = Position::start(Variant::DarkCrazyhouse);
        let moves = pos.moves().to_vec();
        let stop = AtomicBool::new(false);
        let limit =
            WorldLimit { nodes: Some(20_000), deadline: None, max_depth: 32, table_entries: DEFAULT_TABLE_ENTRIES };
        let a = score_root_moves(&pos, &moves, limit, &stop, &Evaluator::Hand);
        let b = score_root_moves(&pos, &moves, limit, &stop, &Evaluator::Hand);
        assert_eq!(a.scores, b.scores);
        assert_eq!(a.nodes, b.nodes);
        assert!(a.depth >= 2, "{}", a.depth);
    }
}
