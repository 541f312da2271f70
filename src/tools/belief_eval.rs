//! `murk belief-eval`: plays games with the referee, which knows the truth, tracks the belief of
//! each side, and measures it against the truth and against a naive baseline.
//!
//! Measured after every ply, for both sides: `consistent`, the fraction of handed-out worlds
//! (drawn as [`Belief::sample`] draws them) that replay through the whole history;
//! `truth_in_support`, the fraction of belief states holding the true world; `square_acc`, the
//! mean probability given to the true content of each fogged square; `hand_acc`, the mean
//! probability given to the true enemy hand (Crazyhouse); `lost`, the number of fallbacks;
//! `truth_drops` and the runs of states missing the truth that follow each; the
//! time of every [`Belief::update`] call; and `rule_misses`, the times the truth was missing where
//! the rules say it cannot be (an exact set, or the look-ahead bound's verdict on later views).

use super::baseline::Baseline;
use crate::belief::lookahead::Lookahead;
use crate::belief::{same_world, Belief, BeliefConfig, OpponentModel};
use crate::core::{Color, Variant};
use crate::rules::{Game, Played, Position};
use crate::view::SimplePlayer;
use crate::view::{InfoState, Observation};
use anyhow::{anyhow, Context, Result};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::io::Write;
use std::time::Instant;

/// How many of the latest events' true positions are checked against the look-ahead bound after
/// each ply (each is checked against later views as they come).
const RULE_CHECK_EVENTS: usize = 12;

/// The options of `murk belief-eval`.
#[derive(clap::Args, Debug, Clone)]
pub struct BeliefEvalArgs {
    /// The game.
    #[arg(long)]
    pub variant: Variant,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Seed of the first game; game i uses seed + i.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// White's player: random or greedy (builtin:random and builtin:greedy are read too).
    #[arg(long, default_value = "random", value_parser = parse_player)]
    pub white: SimplePlayer,
    /// Black's (Red's) player.
    #[arg(long, default_value = "random", value_parser = parse_player)]
    pub black: SimplePlayer,
    /// Plies after which a game is cut off.
    #[arg(long, default_value_t = 300)]
    pub max_plies: usize,
    /// Memory budget of each belief, in MiB (default: the engine's).
    #[arg(long)]
    pub hash: Option<usize>,
    /// Worlds each belief keeps (default: the engine's).
    #[arg(long)]
    pub max_worlds: Option<usize>,
    /// Children each opponent update may generate (default: the engine's).
    #[arg(long)]
    pub max_children: Option<usize>,
    /// Most work an opponent update may spend per child it may generate (default: the engine's).
    #[arg(long)]
    pub work_per_child: Option<u64>,
    /// Most wall-clock milliseconds an opponent update spends gathering children (default 0: no
    /// limit but the work, so that a run gives the same worlds on any machine).
    #[arg(long)]
    pub expand_ms: Option<u64>,
    /// The share of an opponent update's work it spends at once, leaving the rest of its parents
    /// to the next update (default: the engine's).
    #[arg(long)]
    pub work_now_share: Option<f64>,
    /// Most moves the replays of one update may look at before the belief falls back (default:
    /// the engine's).
    #[arg(long)]
    pub replay_budget: Option<usize>,
    /// Opponent model: uniform, adaptive, capture-bias:BIAS, purposeful or purposeful:FLOOR (default:
    /// the engine's).
    #[arg(long, value_parser = parse_model)]
    pub model: Option<OpponentModel>,
    /// Handed-out worlds replayed against the whole history after every update.
    #[arg(long, default_value_t = 4)]
    pub check: usize,
    /// Measure the belief on the recorded games of this file (`murk match --json`) instead of
    /// playing games: each engine's seat, replayed (at most `--games` games; the players are
    /// not used).
    #[arg(long, value_name = "FILE.json")]
    pub records: Option<std::path::PathBuf>,
    /// With --records: fit the purposeful opponent model to the moves of this engine (`any`:
    /// every engine) in the records' games of --variant, instead of measuring the belief.
    #[arg(long, value_name = "NAME", requires = "records")]
    pub fit: Option<String>,
}

/// Parses `random`, `greedy`, `builtin:random` or `builtin:greedy`.
pub fn parse_player(s: &str) -> Result<SimplePlayer, String> {
    s.strip_prefix("builtin:").unwrap_or(s).parse().map_err(|e| format!("{e}"))
}

/// Parses `uniform`, `adaptive`, `capture-bias:<b>`, `purposeful` or `purposeful:<floor>`.
pub fn parse_model(s: &str) -> Result<OpponentModel, String> {
    let number = |prefix: &str| s.strip_prefix(prefix).and_then(|b| b.parse::<f64>().ok());
    match s {
        "uniform" => Ok(OpponentModel::Uniform),
        "adaptive" => Ok(OpponentModel::Adaptive),
        "purposeful" => Ok(OpponentModel::Purposeful { floor: crate::belief::PURPOSE_FLOOR }),
        _ => number("capture-bias:")
            .map(OpponentModel::CaptureBias)
            .or_else(|| {
                number("purposeful:")
                    .filter(|f| (0.0..=1.0).contains(f))
                    .map(|floor| OpponentModel::Purposeful { floor })
            })
            .ok_or_else(|| {
                format!("unknown model '{s}' (expected uniform, adaptive, capture-bias:<b>, purposeful[:<floor>])")
            }),
    }
}

impl BeliefEvalArgs {
    /// The belief configuration these options give (lineage on, so worlds can be replayed).
    pub fn belief_config(&self) -> BeliefConfig {
        let mut cfg = BeliefConfig { lineage: true, ..BeliefConfig::default() };
        if let Some(h) = self.hash {
            cfg.hash_mib = h;
        }
        if let Some(n) = self.max_worlds {
            cfg.max_worlds = n;
        }
        if let Some(n) = self.max_children {
            cfg.max_children = n;
        }
        if let Some(n) = self.work_per_child {
            cfg.work_per_child = n;
        }
        if let Some(ms) = self.expand_ms {
            cfg.expand_ms = ms;
        }
        if let Some(share) = self.work_now_share {
            cfg.work_now_share = share;
        }
        if let Some(n) = self.replay_budget {
            cfg.replay_budget = n;
        }
        if let Some(model) = self.model {
            cfg.model = model;
        }
        cfg
    }
}

/// The running totals of an evaluation.
#[derive(Clone, Debug, Default)]
pub struct EvalStats {
    /// Games played.
    pub games: usize,
    /// Plies played.
    pub plies: usize,
    /// Handed-out worlds replayed, and those that replayed cleanly.
    pub checked: (u64, u64),
    /// Belief states measured, and those holding the true world.
    pub support: (u64, u64),
    /// Lengths of the runs of one side's consecutive belief states that miss the truth: each
    /// starts where the belief lost the truth (or the game began without it) and ends where it
    /// holds it again or the game ends. Their sum is the misses; few long runs mean the truth is
    /// rarely lost but slow to come back.
    pub miss_runs: Vec<usize>,
    /// Belief states that were exact.
    pub exact: u64,
    /// Sum of worlds held over the belief states measured.
    pub worlds: u64,
    /// Fogged squares measured, the belief's and the baseline's probability sums.
    pub squares: (u64, f64, f64),
    /// Enemy hands measured and the probability sum.
    pub hands: (u64, f64),
    /// Fallbacks.
    pub lost: usize,
    /// Seeds of the games in which a belief fell back (to rerun one with `--games 1 --seed S`).
    pub lost_games: Vec<u64>,
    /// Times a belief ran dry and a replay from its checkpoints refilled it.
    pub regenerated: usize,
    /// Times a replay topped up a belief whose sample had narrowed.
    pub topped_up: usize,
    /// Times the truth was missing where the rules say it cannot be: from a set the belief
    /// called exact, or rejected by the look-ahead bound for later views it did reach. Either
    /// means the belief disagrees with the rules (both kinds found real errors).
    pub rule_misses: u64,
    /// Duration of every update, in milliseconds.
    pub update_ms: Vec<f64>,
    /// The most memory one belief held after an update ([`Belief::bytes`]), in bytes: within
    /// `Hash` by design.
    pub memory_max: usize,
    /// Beliefs that gave up their lines of moves for memory (and so could no longer check them).
    pub lineage_dropped: usize,
}

fn ratio(num: f64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num / den as f64
    }
}

impl EvalStats {
    /// The `p`-quantile of the update times (nearest rank).
    pub fn update_quantile(&self, p: f64) -> f64 {
        let mut v = self.update_ms.clone();
        v.sort_by(f64::total_cmp);
        v.get(((v.len().max(1) - 1) as f64 * p).round() as usize).copied().unwrap_or(0.0)
    }

    /// The fraction of handed-out worlds that replayed cleanly.
    pub fn consistent(&self) -> f64 {
        ratio(self.checked.1 as f64, self.checked.0)
    }

    /// The fraction of belief states holding the truth.
    pub fn truth_in_support(&self) -> f64 {
        ratio(self.support.1 as f64, self.support.0)
    }

    /// The belief's mean probability of the true content of a fogged square.
    pub fn square_acc(&self) -> f64 {
        ratio(self.squares.1, self.squares.0)
    }

    /// The baseline's mean probability of the true content of a fogged square.
    pub fn baseline_acc(&self) -> f64 {
        ratio(self.squares.2, self.squares.0)
    }

    /// The mean length of a run of belief states missing the truth (0 if there is none).
    pub fn miss_run_mean(&self) -> f64 {
        ratio(self.miss_runs.iter().sum::<usize>() as f64, self.miss_runs.len() as u64)
    }

    /// The summary line (the last line of the output).
    pub fn summary(&self, variant: Variant) -> String {
        let hand = if variant.has_hands() { format!("{:.4}", ratio(self.hands.1, self.hands.0)) } else { "-".into() };
        format!(
            "belief-eval variant={variant} games={} plies={} consistent={:.4} truth_in_support={:.4} square_acc={:.4} hand_acc={hand} lost={} update_ms_p50={:.3} update_ms_p99={:.3}",
            self.games,
            self.plies,
            self.consistent(),
            self.truth_in_support(),
            self.square_acc(),
            self.lost,
            self.update_quantile(0.5),
            self.update_quantile(0.99),
        )
    }
}

/// One side of a game under evaluation.
struct Tracker {
    info: InfoState,
    belief: Belief,
    baseline: Baseline,
    /// The true position after each of this side's events.
    truths: Vec<Position>,
    /// Belief states in a row, up to the last one measured, that missed the truth.
    miss_run: usize,
}

impl Tracker {
    fn new(start: &Position, side: Color, cfg: &BeliefConfig) -> Tracker {
        let info = InfoState::new(start.clone(), side);
        Tracker {
            belief: Belief::new(&info, cfg.clone()),
            baseline: Baseline::new(&info),
            info,
            truths: Vec::new(),
            miss_run: 0,
        }
    }

    /// Updates the belief after an event that left the true position `truth`.
    fn update(&mut self, truth: &Position, stats: &mut EvalStats) {
        self.truths.push(truth.clone());
        let t = Instant::now();
        let report = self.belief.update(&self.info);
        stats.update_ms.push(t.elapsed().as_secs_f64() * 1e3);
        stats.regenerated += report.regenerated;
        stats.topped_up += (report.topped_up > 0) as usize;
        stats.lineage_dropped += report.lineage_dropped as usize;
        stats.memory_max = stats.memory_max.max(self.belief.bytes());
        self.baseline.update(&self.info);
    }

    /// Records the run of belief states missing the truth that is going on, if any.
    fn end_miss_run(&mut self, stats: &mut EvalStats) {
        if self.miss_run > 0 {
            stats.miss_runs.push(self.miss_run);
            self.miss_run = 0;
        }
    }

    /// How many of the true positions after the last [`RULE_CHECK_EVENTS`] events the look-ahead
    /// bound says cannot reach the later views (which they did reach).
    fn lookahead_misses(&self) -> u64 {
        let events = self.info.events();
        let from = events.len().saturating_sub(RULE_CHECK_EVENTS);
        let lookaheads = Lookahead::after_each(events, from, self.info.side());
        lookaheads.iter().zip(&self.truths[from..]).filter(|(l, truth)| !l.allows(truth)).count() as u64
    }

    /// Measures this side's belief against the true position.
    fn measure(&mut self, truth: &Position, stats: &mut EvalStats, check: usize, rng: &mut Xoshiro256PlusPlus) {
        let worlds = self.belief.worlds();
        for i in worlds.systematic(check, rng) {
            if let Some(outcome) = self.belief.check_world(i) {
                stats.checked.0 += 1;
                stats.checked.1 += outcome.is_ok() as u64;
            }
        }
        stats.support.0 += 1;
        let hit = worlds.worlds().iter().any(|w| same_world(w, truth));
        stats.support.1 += hit as u64;
        stats.rule_misses += (self.belief.is_exact() && !hit) as u64 + self.lookahead_misses();
        stats.exact += self.belief.is_exact() as u64;
        stats.worlds += worlds.len() as u64;
        let probs = self.belief.square_probabilities();
        let view = self.info.view();
        for sq in view.fog() {
            let content = truth.piece_at(sq);
            stats.squares.0 += 1;
            stats.squares.1 += probs.probability(sq, content);
            stats.squares.2 += self.baseline.probability(view, sq, content);
        }
        if truth.variant().has_hands() {
            let enemy = truth.hand(self.info.side().opponent());
            stats.hands.0 += 1;
            stats.hands.1 += self.belief.enemy_hands().iter().find(|(h, _)| h == enemy).map_or(0.0, |e| e.1);
        }
        if hit {
            self.end_miss_run(stats);
        } else {
            self.miss_run += 1;
        }
    }
}

/// Plays one game, updating and measuring both beliefs after every ply.
pub fn play_game(args: &BeliefEvalArgs, game_seed: u64, stats: &mut EvalStats) -> Result<()> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(game_seed);
    let mut check_rng = Xoshiro256PlusPlus::seed_from_u64(game_seed ^ 0x5EED_C0DE);
    let mut cfg = args.belief_config();
    cfg.seed = game_seed;
    let start = Position::start(args.variant);
    let mut game = Game::new(start.clone());
    let mut sides = [Tracker::new(&start, Color::White, &cfg), Tracker::new(&start, Color::Black, &cfg)];
    let players = [args.white, args.black];
    let mut plies = 0;
    while game.outcome().is_none() && plies < args.max_plies {
        let mover = game.position().turn().index();
        let mv = players[mover].choose(&sides[mover].info, &mut rng).ok_or_else(|| anyhow!("no move offered"))?;
        sides[mover].info.send_move(mv).context("player chose an illegal move")?;
        match game.play(mv).map_err(|e| anyhow!("referee refused {mv:?}: {e}"))? {
            Played::Bounced(sq) => {
                sides[mover].info.bounce(sq).context("bounce refused")?;
                sides[mover].update(game.position(), stats);
            }
            Played::Moved(report) => {
                plies += 1;
                for side in &mut sides {
                    let obs = Observation::after_ply(game.position(), &report, side.info.side());
                    side.info.observe(obs).context("observation refused")?;
                    side.update(game.position(), stats);
                }
                for side in &mut sides {
                    side.measure(game.position(), stats, args.check, &mut check_rng);
                }
            }
        }
    }
    for side in &mut sides {
        side.end_miss_run(stats);
    }
    stats.games += 1;
    stats.plies += plies;
    let lost = sides.iter().map(|s| s.belief.lost()).sum::<usize>();
    stats.lost += lost;
    if lost > 0 {
        stats.lost_games.push(game_seed);
    }
    Ok(())
}

/// The seeds of the games that fell back, comma-separated (`-` if none).
fn lost_games(seeds: &[u64]) -> String {
    if seeds.is_empty() {
        return "-".to_string();
    }
    seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

/// Runs the whole evaluation, printing the baseline and the summary line (last) to `out`.
pub fn run(args: &BeliefEvalArgs, out: &mut impl Write) -> Result<EvalStats> {
    let mut stats = EvalStats::default();
    for g in 0..args.games {
        play_game(args, args.seed.wrapping_add(g as u64), &mut stats)?;
    }
    let n = stats.support.0.max(1) as f64;
    writeln!(
        out,
        "belief-eval detail exact={:.4} mean_worlds={:.1} truth_drops={} miss_run_mean={:.1} miss_run_max={} topped_up={} regenerated={} checked_worlds={} update_ms_max={:.1} update_ms_total={:.0} memory_mib_max={:.1} lineage_dropped={} rule_misses={} lost_games={}",
        stats.exact as f64 / n,
        stats.worlds as f64 / n,
        stats.miss_runs.len(),
        stats.miss_run_mean(),
        stats.miss_runs.iter().max().unwrap_or(&0),
        stats.topped_up,
        stats.regenerated,
        stats.checked.0,
        stats.update_quantile(1.0),
        stats.update_ms.iter().sum::<f64>(),
        stats.memory_max as f64 / f64::from(1 << 20),
        stats.lineage_dropped,
        stats.rule_misses,
        lost_games(&stats.lost_games)
    )?;
    writeln!(
        out,
        "belief-eval baseline square_acc={:.4} (enemy pieces stay where last seen, the rest spread evenly over the fog)",
        stats.baseline_acc()
    )?;
    writeln!(out, "{}", stats.summary(args.variant))?;
    Ok(stats)
}
