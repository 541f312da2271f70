//! Murk's own player: keeps the belief up to date, draws worlds from it, runs the determinized
//! search under the `go` budget and picks the move by the risk-aware root rule.

use super::driver::{self, Mode, Unit};
use super::root;
use super::tree::Tree;
use super::worlds::WorldSource;
use crate::belief::world_key;
use crate::core::{Move, Role};
use crate::engine::limits::{Limits, SearchClock};
use crate::engine::searcher::{SearchConfig, SearchInfo, Searcher};
use crate::engine::InfoState;
use crate::rules::Position;
use crate::view::SquareView;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The search's tunable choices (the mode comes from [`SearchConfig`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchParams {
    /// Worlds drawn from the belief for one search.
    pub worlds: usize,
    /// Root-parallel trees in ISMCTS mode.
    pub trees: usize,
    /// Weight of the worst case against the mean at the root (0..1).
    pub risk: f32,
    /// Worlds drawn for the one-ply king-safety check of every root move.
    pub danger_worlds: usize,
}

impl Default for SearchParams {
    fn default() -> SearchParams {
        SearchParams { worlds: 24, trees: 8, risk: 0.35, danger_worlds: 256 }
    }
}

/// The MCTS player.
pub struct MurkSearcher {
    config: SearchConfig,
    params: SearchParams,
    worlds: WorldSource,
    pool: rayon::ThreadPool,
    /// Subtrees of the last search, keyed by the world they start from (PIMC).
    reuse: HashMap<u64, Tree>,
}

impl MurkSearcher {
    /// A searcher for one game.
    pub fn new(config: &SearchConfig, params: SearchParams) -> MurkSearcher {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(config.threads.max(1))
            .build()
            .expect("a thread pool can be built");
        // Half of `Hash` goes to the belief, half to the trees.
        let worlds = WorldSource::new(config.hash_mib / 2, config.seed);
        MurkSearcher { config: *config, params, worlds, pool, reuse: HashMap::new() }
    }
}

/// Least visits a subtree needs to be kept for the next search.
const MIN_REUSE_VISITS: u32 = 8;

/// The subtrees the next search may start from: for each world, the whole tree (the same
/// position comes back after a bounce) and every well-visited reply to `best` (the position after
/// the opponent's answer), within `memory` bytes in all.
fn reusable_subtrees(units: &[Unit], worlds: &[(Position, f64)], best: Move, memory: usize) -> HashMap<u64, Tree> {
    let mut kept = HashMap::new();
    let mut nodes = 0;
    let budget = memory / super::tree::NODE_BYTES;
    for (unit, (world, _)) in units.iter().zip(worlds) {
        if unit.tree.is_multi_world() {
            break;
        }
        let mut candidates: Vec<(u64, Vec<Move>)> = Vec::new();
        if best.is_drop() {
            candidates.push((world_key(world), Vec::new()));
        }
        let mut after = world.clone();
        after.play_unchecked(best);
        for reply in unit.tree.replies(best).filter(|r| r.visits >= MIN_REUSE_VISITS) {
            let mut next = after.clone();
            next.play_unchecked(reply.mv);
            candidates.push((world_key(&next), vec![best, reply.mv]));
        }
        for (key, line) in candidates {
            let Some(tree) = unit.tree.subtree(&line) else { continue };
            nodes += tree.len();
            if nodes > budget {
                return kept;
            }
            kept.insert(key, tree);
        }
    }
    kept
}

/// A legal move that captures an enemy king the player sees.
pub(crate) fn visible_king_capture(info: &InfoState, legal: &[Move]) -> Option<Move> {
    legal.iter().copied().find(|m| {
        !m.is_drop()
            && matches!(info.view().square(m.to), SquareView::Piece(p, _) if p.role == Role::King && p.color != info.side())
    })
}

/// A value in (-1, 1) as centipawns, inverting the evaluation's squashing.
fn value_to_cp(v: f32) -> i32 {
    (v.clamp(-0.999, 0.999).atanh() * 600.0).round() as i32
}

impl Searcher for MurkSearcher {
    fn search(
        &mut self,
        info: &InfoState,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(SearchInfo),
    ) -> Option<Move> {
        let clock = SearchClock::start(limits.budget(info.side()));
        let mut legal: Vec<Move> = info.legal_moves().to_vec();
        if !limits.searchmoves.is_empty() {
            legal.retain(|m| limits.searchmoves.contains(m));
        }
        if let Some(m) = visible_king_capture(info, &legal) {
            return Some(m);
        }
        if legal.len() <= 1 {
            return legal.first().copied();
        }
        let seed = self.config.seed ^ (info.events().len() as u64).wrapping_mul(0xA24B_AED4_963E_E407);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let (belief_size, note) = self.worlds.update(info, &clock.budget());
        let worlds = self.worlds.draw(self.params.worlds, &mut rng);
        let danger_worlds = self.worlds.draw(self.params.danger_worlds, &mut rng);
        let danger = self.pool.install(|| root::dangers(&legal, &danger_worlds, info.side()));
        if let Some(text) = note {
            report(SearchInfo { string: Some(text), ..SearchInfo::default() });
        }
        if worlds.is_empty() {
            report(SearchInfo {
                string: Some("no world to search; playing the first legal move".into()),
                ..SearchInfo::default()
            });
            return legal.first().copied();
        }
        let memory = (self.config.hash_mib.max(2) / 2) << 20;
        let budget_nodes = clock.budget().nodes;
        let reusable = self.reuse.len();
        let mut units =
            driver::units(self.config.mode, &worlds, self.params.trees, memory, budget_nodes, seed, &mut self.reuse);
        let reused = reusable - self.reuse.len();
        let bias: Vec<(Move, f32)> = legal.iter().zip(&danger).map(|(&m, d)| (m, root::prior_factor(d))).collect();
        for unit in &mut units {
            unit.tree.bias_root(&bias);
        }
        let root = RootState {
            clock: &clock,
            legal: &legal,
            danger: &danger,
            worlds: &worlds,
            mode: self.config.mode,
            risk: self.params.risk,
        };
        let mut last_report = Duration::ZERO;
        let total = driver::run(&mut units, &worlds, &self.pool, &clock, stop, |nodes, units| {
            if clock.elapsed() >= last_report + Duration::from_millis(500) {
                last_report = clock.elapsed();
                report(root.progress(nodes, units));
            }
        });
        let mut last = root.progress(total, &units);
        last.string = Some(format!(
            "worlds {belief_size} sampled {} reused {reused} mode {}",
            worlds.len(),
            self.config.mode.name()
        ));
        let best = last.pv.first().copied().or_else(|| legal.first().copied());
        self.reuse = best.map_or_else(HashMap::new, |b| reusable_subtrees(&units, &worlds, b, memory));
        report(last);
        best
    }
}

/// What the root decision of one search needs besides the trees.
struct RootState<'a> {
    clock: &'a SearchClock,
    legal: &'a [Move],
    danger: &'a [root::Danger],
    worlds: &'a [(Position, f64)],
    mode: Mode,
    risk: f32,
}

impl RootState<'_> {
    /// The current choice as an `info` report.
    fn progress(&self, nodes: u64, units: &[Unit]) -> SearchInfo {
        let trees: Vec<(&Tree, f64)> = match self.mode {
            Mode::Pimc => units.iter().zip(self.worlds).map(|(u, w)| (&u.tree, w.1)).collect(),
            Mode::Ismcts => units.iter().map(|u| (&u.tree, 1.0)).collect(),
        };
        let candidates = root::candidates(self.legal, self.danger, &trees, self.risk);
        let best = root::choose(&candidates);
        let elapsed = self.clock.elapsed();
        let pv = best.map_or_else(Vec::new, |b| {
            let heaviest = trees
                .iter()
                .max_by_key(|(t, _)| t.root_children().find(|c| c.mv == b.mv).map_or(0, |c| c.visits))
                .map(|(t, _)| *t);
            heaviest.map_or(vec![b.mv], |t| t.principal_variation(b.mv, 8))
        });
        SearchInfo {
            depth: Some(pv.len() as u32),
            nodes: Some(nodes),
            nps: Some((nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64),
            time_ms: Some(elapsed.as_millis() as u64),
            score_cp: best.map(|b| value_to_cp(b.score)),
            pv,
            ..SearchInfo::default()
        }
    }
}
