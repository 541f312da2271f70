//! Murk's own player: keeps the belief up to date, draws worlds from it, runs the determinized
//! search under the `go` budget and picks the move by the risk-aware root rule.

use super::alphabeta::{score_root_moves, table_entries, WorldLimit, WorldScores};
use super::driver::{self, Mode, Unit};
use super::infoset;
use super::limits::{Limits, SearchClock};
use super::root;
use super::searcher::{SearchConfig, SearchInfo, Searcher};
use super::tree::Tree;
use super::worlds::{thread_pool, Update, WorldSource};
use crate::core::{Move, Role};
use crate::eval::to_centipawns;
use crate::rules::Position;
use crate::view::{InfoState, SimplePlayer, SquareView};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The search's tunable choices (the mode comes from [`SearchConfig`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchParams {
    /// Most worlds drawn from the belief for one search.
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
        SearchParams { worlds: 32, trees: 8, risk: 0.35, danger_worlds: 256 }
    }
}

/// Murk's searcher: the belief and the search of the worlds drawn from it, by the `Search`
/// option's mode (alpha-beta per world by default; PIMC or ISMCTS trees).
pub struct MurkSearcher {
    config: SearchConfig,
    params: SearchParams,
    worlds: WorldSource,
    pool: Arc<rayon::ThreadPool>,
    /// The last search's trees, for the subtrees the next search may start from.
    last: Option<LastSearch>,
    /// Iterations per second of the last timed search (sizes the next one's sample of worlds).
    speed: f64,
}

/// What a search leaves for the next one to reuse (PIMC): its trees, the worlds they searched
/// and the move it played.
struct LastSearch {
    trees: Vec<Tree>,
    worlds: Vec<(Position, f64)>,
    best: Move,
}

impl MurkSearcher {
    /// A searcher for one game.
    pub fn new(config: &SearchConfig, params: SearchParams) -> MurkSearcher {
        let pool = thread_pool(config.threads);
        // Half of `Hash` goes to the belief, half to the trees or the alpha-beta tables.
        let worlds = WorldSource::new(config.hash_mib / 2, config.seed, Arc::clone(&pool));
        MurkSearcher { config: config.clone(), params, worlds, pool, last: None, speed: INITIAL_SPEED }
    }
}

/// Least visits a subtree needs to be kept for the next search.
const MIN_REUSE_VISITS: u32 = 8;

/// Iterations per second assumed before the first timed search of a game.
const INITIAL_SPEED: f64 = 25_000.0;

/// Iterations each sampled world should get at least: fewer worlds are drawn when the time
/// allows fewer (one world, when the belief is exact, gets them all).
const ITERATIONS_PER_WORLD: u64 = 50;

/// Least worlds a search samples (unless the belief holds fewer).
const MIN_WORLDS: usize = 6;

/// How much more often than the safest move's a root move may lose the king at once (in the
/// safety check's worlds) and still be searched by the information-set search.
const INFOSET_DANGER_SLACK: f32 = 0.05;

/// Time kept back from the search for the root decision and the reply.
const REPLY_RESERVE: Duration = Duration::from_millis(3);

/// The subtrees the next search may start from, for the worlds it searches (`wanted`, by
/// [`Position::repetition_key`]): a whole tree when the same position comes back (after a bounce), or the
/// subtree of a well-visited reply to the move played (the position after the opponent's answer),
/// within `memory` bytes in all.
fn reusable_subtrees(last: &LastSearch, wanted: &HashSet<u64>, memory: usize) -> HashMap<u64, Tree> {
    let mut kept = HashMap::new();
    let mut nodes = 0;
    let budget = memory / super::tree::NODE_BYTES;
    let best = last.best;
    for (tree, (world, _)) in last.trees.iter().zip(&last.worlds) {
        if tree.is_multi_world() {
            break;
        }
        let mut candidates: Vec<(u64, Vec<Move>)> = Vec::new();
        if best.is_drop() {
            candidates.push((world.repetition_key(), Vec::new()));
        }
        let mut after = world.clone();
        after.play_unchecked(best);
        for reply in tree.replies(best).filter(|r| r.visits >= MIN_REUSE_VISITS) {
            let mut next = after.clone();
            next.play_unchecked(reply.mv);
            candidates.push((next.repetition_key(), vec![best, reply.mv]));
        }
        for (key, line) in candidates {
            if !wanted.contains(&key) || kept.contains_key(&key) {
                continue;
            }
            let Some(subtree) = tree.subtree(&line) else { continue };
            nodes += subtree.len();
            if nodes > budget {
                return kept;
            }
            kept.insert(key, subtree);
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

impl MurkSearcher {
    /// `n` worlds drawn from the belief as the last search left it (see [`WorldSource::draw`]).
    pub fn draw_worlds(&self, n: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<(Position, f64)> {
        self.worlds.draw(n, rng)
    }

    /// How many worlds to draw: enough that each gets [`ITERATIONS_PER_WORLD`] of the
    /// iterations the budget allows (counted, or estimated from the last search's speed), between
    /// [`MIN_WORLDS`] and the `worlds` parameter.
    fn world_count(&self, clock: &SearchClock) -> usize {
        let budget = clock.budget();
        let by_time = budget.soft.or(budget.hard).map(|t| (t.as_secs_f64() * self.speed) as u64);
        let iterations = match (budget.nodes, by_time) {
            (Some(n), _) => n,
            (None, Some(t)) => t,
            (None, None) => return self.params.worlds,
        };
        ((iterations / ITERATIONS_PER_WORLD) as usize).clamp(MIN_WORLDS, self.params.worlds.max(MIN_WORLDS))
    }

    /// How many worlds the root's safety check looks at: all of the `danger_worlds` parameter
    /// under a node budget, else as many as fit [`DANGER_SHARE`] of the move's time at
    /// [`DANGER_CHECKS_PER_MS`] move-world pairs per millisecond (at least [`MIN_DANGER_WORLDS`]).
    fn danger_world_count(&self, clock: &SearchClock, moves: usize) -> usize {
        let budget = clock.budget();
        match budget.soft.or(budget.hard).filter(|_| budget.nodes.is_none()) {
            None => self.params.danger_worlds,
            Some(time) => {
                let pairs = time.as_secs_f64() * 1000.0 * DANGER_SHARE * DANGER_CHECKS_PER_MS;
                ((pairs / moves.max(1) as f64) as usize).clamp(MIN_DANGER_WORLDS, self.params.danger_worlds)
            }
        }
    }
}

/// The share of a timed move's hard limit after which a belief update still running is left
/// to finish in the background and the move is answered without it.
const BELIEF_DEADLINE_SHARE: f64 = 0.75;

/// The share of a timed move the root's safety check may take.
const DANGER_SHARE: f64 = 0.1;
/// Move-world pairs the safety check gets through per millisecond on one core.
const DANGER_CHECKS_PER_MS: f64 = 1_000.0;
/// Least worlds the safety check looks at.
const MIN_DANGER_WORLDS: usize = 16;

impl Searcher for MurkSearcher {
    fn search(
        &mut self,
        info: &InfoState,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(SearchInfo),
    ) -> Option<Move> {
        let clock = limits.clock(info.side());
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
        let deadline = clock.budget().hard.map(|h| clock.started() + h.mul_f64(BELIEF_DEADLINE_SHARE));
        let (belief_size, note) = match self.worlds.update_until(info, &clock.budget(), deadline) {
            Update::Ready(size, note) => (size, note),
            Update::Late => {
                report(SearchInfo {
                    string: Some("belief update still running at the deadline; playing a greedy move".into()),
                    ..SearchInfo::default()
                });
                return SimplePlayer::Greedy.choose_from(info, &legal, &mut rng);
            }
        };
        let count = match self.config.mode {
            Mode::AlphaBeta => alphabeta_world_count(&clock, self.pool.current_num_threads()),
            Mode::Pimc | Mode::Ismcts => self.world_count(&clock),
            Mode::InfoSet => self.params.worlds,
        };
        let worlds = self.worlds.draw(count, &mut rng);
        let updated = clock.elapsed();
        let danger_worlds = self.worlds.draw(self.danger_world_count(&clock, legal.len()), &mut rng);
        let danger = self.pool.install(|| root::dangers(&legal, &danger_worlds, info.side()));
        let checked = clock.elapsed();
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
        let phases = Phases { belief_size, updated, checked };
        if self.config.mode == Mode::AlphaBeta {
            self.last = None;
            return self.search_alphabeta(&legal, &danger, &worlds, &clock, stop, phases, report);
        }
        if self.config.mode == Mode::InfoSet {
            // The tree is searched over the moves the safety check finds safest.
            let kept = root::safest(&legal, &danger, INFOSET_DANGER_SLACK);
            let bounced = info.bounced_this_turn();
            return self.search_infoset(&kept, bounced, &worlds, &clock, stop, (seed, phases), report);
        }
        self.search_trees(&legal, &danger, worlds, &clock, stop, (seed, phases), report)
    }
}

impl MurkSearcher {
    /// Runs the tree searches (PIMC or ISMCTS) on `worlds`, starting from the last search's
    /// subtrees where they fit, reports the result and keeps the trees for the next search.
    #[allow(clippy::too_many_arguments)]
    fn search_trees(
        &mut self,
        legal: &[Move],
        danger: &[root::Danger],
        worlds: Vec<(Position, f64)>,
        clock: &SearchClock,
        stop: &AtomicBool,
        (seed, phases): (u64, Phases),
        report: &mut dyn FnMut(SearchInfo),
    ) -> Option<Move> {
        let memory = (self.config.hash_mib.max(2) / 2) << 20;
        let budget_nodes = clock.budget().nodes;
        let wanted: HashSet<u64> = worlds.iter().map(|w| w.0.repetition_key()).collect();
        let mut reuse = self.last.take().map_or_else(HashMap::new, |last| reusable_subtrees(&last, &wanted, memory));
        let reusable = reuse.len();
        let mut units =
            driver::units(self.config.mode, &worlds, self.params.trees, memory, budget_nodes, seed, &mut reuse);
        let reused = reusable - reuse.len();
        let prepared = clock.elapsed();
        let bias: Vec<(Move, f32)> = legal.iter().zip(danger).map(|(&m, d)| (m, root::prior_factor(d))).collect();
        for unit in &mut units {
            unit.tree.bias_root(&bias);
        }
        let root = RootState { clock, legal, danger, worlds: &worlds, mode: self.config.mode, risk: self.params.risk };
        let search_clock = clock.with_reserve(REPLY_RESERVE);
        let total = driver::run(&mut units, &worlds, &self.pool, &search_clock, stop, &self.config.eval, |n, units| {
            report(root.progress(n, units))
        });
        let searched = clock.elapsed().saturating_sub(prepared);
        if budget_nodes.is_none() && searched >= Duration::from_millis(5) {
            self.speed = total as f64 / searched.as_secs_f64();
        }
        let mut last = root.progress(total, &units.iter().collect::<Vec<_>>());
        last.string = Some(phases.describe(worlds.len(), reused, self.config.mode, searched));
        let best = last.pv.first().copied().or_else(|| legal.first().copied());
        report(last);
        if let Some(best) = best {
            let trees = units.into_iter().map(|u| u.tree).collect();
            self.last = Some(LastSearch { trees, worlds, best });
        }
        best
    }
}

impl MurkSearcher {
    /// Runs the information-set search over `worlds` and plays the root strategy's top move.
    #[allow(clippy::too_many_arguments)]
    fn search_infoset(
        &mut self,
        legal: &[Move],
        bounced: crate::core::Bitboard,
        worlds: &[(Position, f64)],
        clock: &SearchClock,
        stop: &AtomicBool,
        (seed, phases): (u64, Phases),
        report: &mut dyn FnMut(SearchInfo),
    ) -> Option<Move> {
        self.last = None;
        let memory = (self.config.hash_mib.max(2) / 2) << 20;
        let input = infoset::SearchInput {
            moves: legal,
            bounced,
            eval: &self.config.eval,
            seed,
            max_nodes: memory / infoset::SUBGAME_NODE_BYTES,
        };
        let prepared = clock.elapsed();
        let search_clock = clock.with_reserve(REPLY_RESERVE);
        let game = infoset::search(worlds, &input, &self.pool, &search_clock, stop, |game| {
            report(infoset_progress(game, clock, None))
        });
        let searched = clock.elapsed().saturating_sub(prepared);
        let policy = game.root_policy();
        let best = infoset::choose(&policy);
        let mut last = infoset_progress(&game, clock, best);
        last.string = Some(format!(
            "{} iterations {} expansions {} infosets {}",
            phases.describe(worlds.len(), 0, Mode::InfoSet, searched),
            game.tree().iterations(),
            game.expansions(),
            game.tree().infoset_count()
        ));
        report(last);
        best.map(|b| b.mv).filter(|m| legal.contains(m)).or_else(|| legal.first().copied())
    }
}

/// The `info` report of an information-set search: its tree's depth and size, and the value
/// and line of `best` (or of the current top move).
fn infoset_progress(game: &infoset::Subgame, clock: &SearchClock, best: Option<infoset::RootMove>) -> SearchInfo {
    let best = best.or_else(|| infoset::choose(&game.root_policy()));
    let nodes = game.tree().len() as u64;
    let elapsed = clock.elapsed();
    SearchInfo {
        depth: Some(game.max_depth()),
        nodes: Some(nodes),
        nps: Some((nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64),
        time_ms: Some(elapsed.as_millis() as u64),
        score_cp: best.map(|b| to_centipawns(b.value)),
        pv: best.map(|b| vec![b.mv]).unwrap_or_default(),
        ..SearchInfo::default()
    }
}

/// How the time before the search went: the belief's size, and the clock when the belief was
/// updated and when the safety check was done.
#[derive(Clone, Copy)]
struct Phases {
    belief_size: usize,
    updated: Duration,
    checked: Duration,
}

impl Phases {
    /// The `info string` of a finished search: the belief's size, the worlds searched and
    /// reused, the mode, and where the time went.
    fn describe(&self, sampled: usize, reused: usize, mode: Mode, searched: Duration) -> String {
        format!(
            "worlds {} sampled {sampled} reused {reused} mode {} belief_ms {} danger_ms {} search_ms {}",
            self.belief_size,
            mode.name(),
            self.updated.as_millis(),
            (self.checked - self.updated).as_millis(),
            searched.as_millis()
        )
    }
}

/// Thread-milliseconds of a timed move, and nodes under a node budget, each alpha-beta world
/// gets while the worlds are few (up to [`ALPHABETA_WIDE_WORLDS`]): more time or threads draw
/// more worlds before they search any world deeper. Which worlds a search draws changes its move
/// about as often as quadrupling its time does, and in Dark Crazyhouse a deeper search of the
/// same worlds found as much that is untrue of the game as true.
const ALPHABETA_MS_PER_WORLD: f64 = 12.0;
const ALPHABETA_NODES_PER_WORLD: u64 = 20_000;
/// Past this many worlds, more effort is shared between more worlds and deeper searches of
/// each: the worlds grow with its square root (four times the effort: twice the worlds, each
/// searched twice as long).
const ALPHABETA_WIDE_WORLDS: f64 = 64.0;
/// Nodes per millisecond an alpha-beta world's search visits on one thread, about (sizes its
/// table under a time budget).
const ALPHABETA_NODES_PER_MS: f64 = 2_000.0;
/// Least and most worlds an alpha-beta search samples.
const ALPHABETA_WORLDS: (usize, usize) = (4, 256);

/// How many worlds an alpha-beta search draws for its effort: the thread-milliseconds (on
/// `threads` threads) or the nodes it may spend. Under a node budget the count does not depend
/// on `threads`, so `go nodes` searches the same worlds on any number of threads. Draws of the
/// same world merge, so a narrow belief searches its few worlds deeper.
fn alphabeta_world_count(clock: &SearchClock, threads: usize) -> usize {
    let budget = clock.budget();
    let shares = match (budget.nodes, budget.soft.or(budget.hard)) {
        (Some(n), _) => n as f64 / ALPHABETA_NODES_PER_WORLD as f64,
        (None, Some(t)) => t.as_secs_f64() * 1000.0 * threads as f64 / ALPHABETA_MS_PER_WORLD,
        (None, None) => ALPHABETA_WIDE_WORLDS,
    };
    let worlds = if shares <= ALPHABETA_WIDE_WORLDS {
        shares
    } else {
        ALPHABETA_WIDE_WORLDS * (shares / ALPHABETA_WIDE_WORLDS).sqrt()
    };
    (worlds as usize).clamp(ALPHABETA_WORLDS.0, ALPHABETA_WORLDS.1)
}

impl MurkSearcher {
    /// Scores every legal move by alpha-beta on each world (in parallel, the time shared out as
    /// the worlds start) and plays the best by the root rule.
    #[allow(clippy::too_many_arguments)]
    fn search_alphabeta(
        &mut self,
        legal: &[Move],
        danger: &[root::Danger],
        worlds: &[(Position, f64)],
        clock: &SearchClock,
        stop: &AtomicBool,
        phases: Phases,
        report: &mut dyn FnMut(SearchInfo),
    ) -> Option<Move> {
        let search_clock = clock.with_reserve(REPLY_RESERVE);
        let budget = search_clock.budget();
        let end = budget.soft.or(budget.hard).map(|t| search_clock.started() + t);
        let per_world_nodes = budget.nodes.map(|n| (n / worlds.len() as u64).max(1));
        let threads = self.pool.current_num_threads();
        // Each thread's table gets its share of the search's half of `Hash`, sized for the
        // nodes its world is expected to visit.
        let expected_nodes = per_world_nodes.unwrap_or_else(|| {
            let thread_ms = budget.soft.or(budget.hard).map_or(0.0, |t| t.as_secs_f64() * 1000.0) * threads as f64;
            (thread_ms / worlds.len() as f64 * ALPHABETA_NODES_PER_MS) as u64
        });
        let table_entries = table_entries(expected_nodes, (self.config.hash_mib << 20) / 2 / threads);
        // A timed search with fewer worlds than threads splits each world's root moves among
        // threads, so that none waits; under a node budget the work does not depend on threads.
        let parts = if budget.nodes.is_none() { threads.div_ceil(worlds.len()).min(legal.len()).max(1) } else { 1 };
        let items: Vec<(usize, Vec<usize>)> = (0..worlds.len())
            .flat_map(|w| (0..parts).map(move |p| (w, (p..legal.len()).step_by(parts).collect())))
            .collect();
        let left = AtomicUsize::new(items.len());
        let found: Vec<WorldScores> = self.pool.install(|| {
            items
                .par_iter()
                .map(|(w, moves)| {
                    let remaining = left.fetch_sub(1, Ordering::Relaxed).max(1);
                    let deadline = end.map(|end| {
                        let now = Instant::now();
                        let share =
                            end.saturating_duration_since(now).mul_f64((threads as f64 / remaining as f64).min(1.0));
                        now + share
                    });
                    let limit =
                        WorldLimit { nodes: per_world_nodes, deadline, max_depth: ALPHABETA_MAX_DEPTH, table_entries };
                    let mine: Vec<Move> = moves.iter().map(|&i| legal[i]).collect();
                    score_root_moves(&worlds[*w].0, &mine, limit, stop, &self.config.eval)
                })
                .collect()
        });
        let results = merge_parts(legal.len(), worlds.len(), &items, found);
        let weighted: Vec<(&WorldScores, f64)> = results.iter().zip(worlds).map(|(r, w)| (r, w.1)).collect();
        let candidates = root::candidates_from_scores(legal, danger, &weighted, self.params.risk);
        let best = root::choose(&candidates);
        let elapsed = clock.elapsed();
        let nodes: u64 = results.iter().map(|r| r.nodes).sum();
        let depth = results.iter().map(|r| r.depth).min().unwrap_or(0);
        let pv = best.map_or_else(Vec::new, |b| {
            weighted
                .iter()
                .filter(|(r, _)| r.pv.first() == Some(&b.mv))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(vec![b.mv], |(r, _)| r.pv.clone())
        });
        report(SearchInfo {
            depth: Some(depth),
            nodes: Some(nodes),
            nps: Some((nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64),
            time_ms: Some(elapsed.as_millis() as u64),
            score_cp: best.map(|b| to_centipawns(b.score)),
            pv,
            string: Some(format!(
                "{} depth_mean {:.1} worst_cp {}",
                phases.describe(worlds.len(), 0, self.config.mode, elapsed.saturating_sub(phases.checked)),
                results.iter().map(|r| f64::from(r.depth)).sum::<f64>() / results.len() as f64,
                best.map_or(0, |b| to_centipawns(b.worst)),
            )),
            ..SearchInfo::default()
        });
        best.map(|b| b.mv).or_else(|| legal.first().copied())
    }
}

/// Each world's scores from the searches of its parts (`items`: a world and the indices of the
/// root moves searched there, in order, with their scores in `found`): every move's score, the
/// nodes summed, the shallowest part's depth, and the line of the part whose best move scored
/// highest.
fn merge_parts(
    moves: usize,
    worlds: usize,
    items: &[(usize, Vec<usize>)],
    found: Vec<WorldScores>,
) -> Vec<WorldScores> {
    let mut merged: Vec<Option<WorldScores>> = vec![None; worlds];
    let mut best: Vec<f32> = vec![f32::NEG_INFINITY; worlds];
    for ((w, indices), part) in items.iter().zip(found) {
        let top = part.scores.iter().flatten().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        let world = merged[*w].get_or_insert_with(|| WorldScores {
            scores: vec![None; moves],
            depth: part.depth,
            nodes: 0,
            pv: Vec::new(),
        });
        for (&i, &score) in indices.iter().zip(&part.scores) {
            world.scores[i] = score;
        }
        world.nodes += part.nodes;
        world.depth = world.depth.min(part.depth);
        if top > best[*w] || world.pv.is_empty() {
            best[*w] = top;
            world.pv = part.pv;
        }
    }
    merged.into_iter().map(|w| w.expect("every world has a part")).collect()
}

/// Deepest alpha-beta iteration (a bound for searches without a time or node limit).
const ALPHABETA_MAX_DEPTH: u32 = 64;

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
    fn progress(&self, nodes: u64, units: &[&Unit]) -> SearchInfo {
        let trees: Vec<(&Tree, f64)> = match self.mode {
            Mode::Ismcts => units.iter().map(|u| (&u.tree, 1.0)).collect(),
            Mode::Pimc | Mode::AlphaBeta | Mode::InfoSet => {
                units.iter().zip(self.worlds).map(|(u, w)| (&u.tree, w.1)).collect()
            }
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
            score_cp: best.map(|b| to_centipawns(b.score)),
            pv,
            ..SearchInfo::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Budget;

    fn count(budget: Budget, threads: usize) -> usize {
        alphabeta_world_count(&SearchClock::start(budget), threads)
    }

    #[test]
    fn alphabeta_worlds_follow_the_nodes_alone_and_the_time_with_the_threads() {
        let nodes = |n| Budget { nodes: Some(n), ..Budget::UNBOUNDED };
        assert_eq!(count(nodes(200_000), 1), 10);
        assert_eq!(count(nodes(200_000), 64), 10, "a node budget searches the same worlds on any thread count");
        let timed = |ms| Budget { soft: Some(Duration::from_millis(ms)), ..Budget::UNBOUNDED };
        assert_eq!(count(timed(192), 1), 16);
        assert_eq!(count(timed(384), 1), 32, "twice the time: twice the worlds");
        assert_eq!(count(timed(192), 2), 32, "two threads: as twice the time");
        assert_eq!(count(timed(768), 1), 64);
        assert_eq!(count(timed(3072), 1), 128, "past 64 worlds, four times the time: twice the worlds");
        assert_eq!(count(nodes(5_120_000), 1), 128);
        assert_eq!(count(timed(24), 1), ALPHABETA_WORLDS.0);
        assert_eq!(count(timed(100_000), 64), ALPHABETA_WORLDS.1);
    }

    #[test]
    fn the_parts_of_a_world_merge_into_one_score_per_root_move() {
        let m = |uci: &str| Move::parse(uci, crate::core::Variant::DarkChess).unwrap();
        let part = |scores: Vec<Option<f32>>, depth, nodes, pv: Vec<Move>| WorldScores { scores, depth, nodes, pv };
        // Two worlds; the first split into two parts (moves 0, 2 and 1, 3), the second whole.
        let items = vec![(0, vec![0, 2]), (0, vec![1, 3]), (1, vec![0, 1, 2, 3])];
        let found = vec![
            part(vec![Some(0.1), Some(0.5)], 5, 100, vec![m("e2e4"), m("e7e5")]),
            part(vec![Some(0.7), None], 4, 50, vec![m("d2d4")]),
            part(vec![Some(0.0), Some(0.2), Some(0.3), Some(0.4)], 6, 10, vec![m("a2a3")]),
        ];
        let merged = merge_parts(4, 2, &items, found);
        assert_eq!(merged[0].scores, vec![Some(0.1), Some(0.7), Some(0.5), None]);
        assert_eq!((merged[0].nodes, merged[0].depth), (150, 4));
        assert_eq!(merged[0].pv, vec![m("d2d4")], "the line of the part with the best move");
        assert_eq!(merged[1].scores, vec![Some(0.0), Some(0.2), Some(0.3), Some(0.4)]);
        assert_eq!((merged[1].nodes, merged[1].depth), (10, 6));
    }
}
