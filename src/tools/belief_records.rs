//! `murk belief-eval --records FILE.json`: the belief measured on recorded games (from
//! `murk match --json` or `murk tournament --json`), whoever played them. Each side's
//! observations are replayed into a belief as the engine's would be, and after every ply it is
//! measured against the true position, per engine:
//!
//! - `truth_in_support`: the share of belief states holding the true world;
//! - `truth_ll`: the mean natural log of the truth's share of the belief's weight, over the
//!   states that hold it (higher is better: the belief expected what happened); `truth_rank`:
//!   the mean share of the belief's worlds weighing more than the truth;
//! - the calibration of the belief's chance that the opponent can take our king on its next
//!   ply (measured after each of our own moves) against whether it truly could: the Brier score
//!   and a table of chance bins, each with its states, mean chance and how often the king could
//!   be taken.

use super::belief_eval::BeliefEvalArgs;
use super::seats::{replay_seats, SeatStep};
use crate::belief::{same_world, Belief, BeliefConfig};
use crate::core::{Color, Variant};
use crate::rules::Position;
use crate::runner::record::{read_records, GameRecord};
use crate::view::InfoState;
use anyhow::{anyhow, Context, Result};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// The upper ends of the calibration bins of the king-capture chance.
const BINS: [f64; 6] = [0.001, 0.05, 0.15, 0.35, 0.65, 1.0];

/// What was measured of one engine's belief (the belief of its seat).
#[derive(Clone, Debug, Default)]
pub struct SeatStats {
    /// Belief states measured, and those holding the truth.
    pub support: (u64, u64),
    /// Sum of ln(the truth's weight share) over the states holding it.
    pub ll_sum: f64,
    /// Sum of the share of worlds weighing more than the truth, over the states holding it.
    pub rank_sum: f64,
    /// Per state after an own move: the belief's chance that the king can be taken next, and
    /// whether it truly could.
    pub king: Vec<(f64, bool)>,
    /// Milliseconds of every update.
    pub update_ms: Vec<f64>,
}

impl SeatStats {
    /// The share of states holding the truth.
    pub fn truth_in_support(&self) -> f64 {
        self.support.1 as f64 / self.support.0.max(1) as f64
    }

    /// The mean log-likelihood of the truth over the states holding it.
    pub fn truth_ll(&self) -> f64 {
        self.ll_sum / self.support.1.max(1) as f64
    }

    /// The Brier score of the king-capture chance.
    pub fn king_brier(&self) -> f64 {
        let sum: f64 = self.king.iter().map(|&(p, y)| (p - f64::from(u8::from(y))).powi(2)).sum();
        sum / self.king.len().max(1) as f64
    }

    /// The `p`-quantile of the update times.
    pub fn update_quantile(&self, p: f64) -> f64 {
        let mut v = self.update_ms.clone();
        v.sort_by(f64::total_cmp);
        v.get(((v.len().max(1) - 1) as f64 * p).round() as usize).copied().unwrap_or(0.0)
    }

    /// The calibration table: per bin, states, mean chance, share truly takeable.
    fn calibration(&self) -> String {
        let mut lo = 0.0;
        let mut parts = Vec::new();
        for &hi in &BINS {
            let inside: Vec<&(f64, bool)> =
                self.king.iter().filter(|(p, _)| *p >= lo && (*p < hi || hi == 1.0)).collect();
            if !inside.is_empty() {
                let n = inside.len() as f64;
                let chance = inside.iter().map(|(p, _)| p).sum::<f64>() / n;
                let hit = inside.iter().filter(|(_, y)| *y).count() as f64 / n;
                parts.push(format!("[{lo:.3},{hi:.3}):{}:{chance:.3}/{hit:.3}", inside.len()));
            }
            lo = hi;
        }
        parts.join(" ")
    }
}

/// One seat of a replayed game.
struct Seat<'a> {
    info: &'a InfoState,
    belief: &'a mut Belief,
}

impl Seat<'_> {
    fn update(&mut self, stats: &mut SeatStats) {
        let t = Instant::now();
        self.belief.update(self.info);
        stats.update_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }

    /// Measures the belief against `truth`; after an own move, also the king-capture chance.
    fn measure(&self, truth: &Position, stats: &mut SeatStats) {
        let worlds = self.belief.worlds();
        let total = worlds.total_weight();
        stats.support.0 += 1;
        let found = worlds.iter().find(|(w, _)| same_world(w, truth)).map(|(_, weight)| weight);
        if let Some(weight) = found.filter(|_| total > 0.0) {
            stats.support.1 += 1;
            stats.ll_sum += (weight / total).max(1e-300).ln();
            let heavier = worlds.weights().iter().filter(|&&w| w > weight).count();
            stats.rank_sum += heavier as f64 / worlds.len() as f64;
        }
        let side = self.info.side();
        if truth.turn() != side && total > 0.0 {
            let takes = |pos: &Position| pos.king(side).is_some_and(|k| pos.is_attacked(k, side.opponent()));
            let chance = worlds.iter().filter(|(w, _)| takes(w)).map(|(_, weight)| weight).sum::<f64>() / total;
            stats.king.push((chance, takes(truth)));
        }
    }
}

/// Replays one recorded game into both sides' beliefs, measuring them after every ply.
fn replay(rec: &GameRecord, cfg: &BeliefConfig, stats: &mut BTreeMap<String, SeatStats>) -> Result<()> {
    let variant: Variant = rec.variant.parse().map_err(|e| anyhow!("{e}"))?;
    let start = Position::from_fen(variant, &rec.start_fen).context("the record's start FEN")?;
    let mut beliefs = Color::ALL.map(|side| Belief::new(&InfoState::new(start.clone(), side), cfg.clone()));
    let names = [rec.white.clone(), rec.black.clone()];
    replay_seats(rec, |side, info, step| {
        let mut seat = Seat { belief: &mut beliefs[side.index()], info };
        let seat_stats = stats.entry(names[side.index()].clone()).or_default();
        match step {
            SeatStep::ToMove => {}
            SeatStep::Bounced => seat.update(seat_stats),
            SeatStep::Observed { truth, goes_on } => {
                seat.update(seat_stats);
                if goes_on {
                    seat.measure(truth, seat_stats);
                }
            }
        }
        Ok(())
    })
}

/// Runs the evaluation on the records of `path` (at most `args.games` games of `args.variant`),
/// printing a line per engine.
pub fn run(args: &BeliefEvalArgs, path: &Path, out: &mut impl Write) -> Result<BTreeMap<String, SeatStats>> {
    let mut cfg = args.belief_config();
    cfg.lineage = false;
    let mut stats = BTreeMap::new();
    let records = read_records(path)?;
    let games = records.iter().filter(|r| r.variant == args.variant.name());
    for (n, rec) in games.take(args.games).enumerate() {
        cfg.seed = args.seed.wrapping_add(n as u64);
        replay(rec, &cfg, &mut stats)?;
    }
    for (name, s) in &stats {
        writeln!(
            out,
            "belief-eval records seat={name} states={} truth_in_support={:.4} truth_ll={:.3} truth_rank={:.3} king_brier={:.4} king_states={} update_ms_p50={:.3} update_ms_p99={:.3} king_calibration={}",
            s.support.0,
            s.truth_in_support(),
            s.truth_ll(),
            s.rank_sum / s.support.1.max(1) as f64,
            s.king_brier(),
            s.king.len(),
            s.update_quantile(0.5),
            s.update_quantile(0.99),
            s.calibration(),
        )?;
    }
    Ok(stats)
}
