//! `murk scaling --records FILE`: what more time changes in Murk's search. Recorded games are
//! replayed as each seat saw them; at every `--every`-th turn of a seat, Murk's searcher (the
//! belief brought up to date first) searches that turn once per `--times` entry, shortest
//! first, from the same belief and seed. Printed per time: the mean depth of the shallowest and
//! of the average world, the worlds searched, the nodes, how often the move is the one the
//! longest search chose and how often it changed from the next shorter time, how often searchers
//! with other seeds (`--seeds`) chose the same, and the mean of the chosen move's blended and
//! worst-world scores; for the information-set search (`--search infoset`), the depth is the
//! tree's and the solver's iterations and expansions are printed too.

use super::seats::{replay_seats, SeatStep};
use crate::core::{Color, Move, Variant};
use crate::engine::EngineOptions;
use crate::runner::record::read_records;
use crate::search::{Limits, Mode, MurkSearcher, SearchInfo, SearchParams, Searcher};
use crate::view::InfoState;
use anyhow::{bail, Result};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// Options of `murk scaling`.
#[derive(clap::Args, Debug, Clone)]
pub struct ScalingArgs {
    /// Games recorded by `murk match --json` or `murk tournament --json`.
    #[arg(long)]
    pub records: PathBuf,
    /// The variant whose games are probed.
    #[arg(long)]
    pub variant: Variant,
    /// Move times to compare, in milliseconds.
    #[arg(long, value_delimiter = ',', default_value = "100,200,400,800,1600")]
    pub times: Vec<u64>,
    /// Turns probed in all.
    #[arg(long, default_value_t = 40)]
    pub positions: usize,
    /// Probe every this many turns of a seat.
    #[arg(long, default_value_t = 5)]
    pub every: usize,
    /// Threads of the search.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// The leaf evaluation: `net` (the engine's default) or `hand`.
    #[arg(long, default_value = "net", value_parser = ["net", "hand"])]
    pub eval: String,
    /// The search: `alphabeta` (the engine's default), `infoset`, `pimc` or `ismcts`.
    #[arg(long, default_value = Mode::default().name(), value_parser = super::bench::parse_mode)]
    pub search: Mode,
    /// Searchers per seat, each with its own seed (its own belief sample and worlds): with 2 or
    /// more, how often they agree on the move at each time.
    #[arg(long, default_value_t = 1)]
    pub seeds: usize,
}

/// What one search of a probed turn reported.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Probe {
    /// The move chosen.
    pub best: Option<Move>,
    /// The shallowest world's depth.
    pub depth: f64,
    /// The mean depth over the worlds searched.
    pub depth_mean: f64,
    /// Worlds searched.
    pub worlds: f64,
    /// Nodes searched.
    pub nodes: f64,
    /// The chosen move's blended score, centipawns.
    pub score_cp: f64,
    /// The chosen move's worst-world score, centipawns.
    pub worst_cp: f64,
    /// Solver iterations (the information-set search; NaN for the others).
    pub iterations: f64,
    /// Expansions (the information-set search; NaN for the others).
    pub expansions: f64,
}

impl Probe {
    /// The probe from a search's last report and its move.
    fn from_report(info: &SearchInfo, best: Option<Move>) -> Probe {
        let field = |name: &str| -> f64 {
            let text = info.string.as_deref().unwrap_or("");
            let mut words = text.split_whitespace();
            words.by_ref().find(|w| *w == name);
            words.next().and_then(|v| v.parse().ok()).unwrap_or(f64::NAN)
        };
        Probe {
            best,
            depth: info.depth.map_or(f64::NAN, f64::from),
            depth_mean: field("depth_mean"),
            worlds: field("sampled"),
            nodes: info.nodes.map_or(f64::NAN, |n| n as f64),
            score_cp: info.score_cp.map_or(f64::NAN, f64::from),
            worst_cp: field("worst_cp"),
            iterations: field("iterations"),
            expansions: field("expansions"),
        }
    }
}

/// The searchers of one seat (one per seed) and the turns it has played.
struct SeatSearch {
    searchers: Vec<MurkSearcher>,
    turns: usize,
}

/// The probes of one turn: per seed, one per time (shortest first).
pub type Turn = Vec<Vec<Probe>>;

/// Searches `info` for each time of `times` (after one node-budget search that brings the
/// belief up to date), returning one probe per time.
fn probe(searcher: &mut MurkSearcher, info: &InfoState, times: &[u64]) -> Vec<Probe> {
    let stop = AtomicBool::new(false);
    catch_up(searcher, info);
    times
        .iter()
        .map(|&ms| {
            let limits = Limits { movetime: Some(ms), overhead_ms: 0, ..Limits::default() };
            let mut last = SearchInfo::default();
            let best = searcher.search(info, &limits, &stop, &mut |r| {
                if r.nodes.is_some() {
                    last = r;
                }
            });
            Probe::from_report(&last, best)
        })
        .collect()
}

/// Brings the searcher's belief up to date with `info` by a search of one node (a node budget
/// has no deadline, so the update runs to its end).
fn catch_up(searcher: &mut MurkSearcher, info: &InfoState) {
    let limits = Limits { nodes: Some(1), ..Limits::default() };
    searcher.search(info, &limits, &AtomicBool::new(false), &mut |_| {});
}

/// The times of `args`, shortest first, and the probes of its turns.
pub fn collect(args: &ScalingArgs) -> Result<(Vec<u64>, Vec<Turn>)> {
    if args.times.is_empty() || args.every == 0 || args.seeds == 0 {
        bail!("--times needs at least one time, --every and --seeds at least 1");
    }
    let mut times = args.times.clone();
    times.sort_unstable();
    let records = read_records(&args.records)?;
    let mut probes = Vec::new();
    for rec in records.iter().filter(|r| r.variant == args.variant.name()) {
        let mut seats = Color::ALL.map(|side| {
            let searchers = (0..args.seeds as u64)
                .map(|k| {
                    let options = EngineOptions {
                        variant: args.variant,
                        seed: rec.game as u64 + SEED_STRIDE * k,
                        threads: args.threads,
                        use_net: args.eval == "net",
                        search_mode: args.search,
                        ..Default::default()
                    };
                    MurkSearcher::new(&options.search_config(side), SearchParams::default())
                })
                .collect();
            SeatSearch { searchers, turns: 0 }
        });
        replay_seats(rec, |side, info, step| {
            if !matches!(step, SeatStep::ToMove) || probes.len() >= args.positions {
                return Ok(());
            }
            let seat = &mut seats[side.index()];
            seat.turns += 1;
            if seat.turns % args.every == 0 && info.legal_moves().len() > 1 {
                probes.push(seat.searchers.iter_mut().map(|s| probe(s, info, &times)).collect());
            } else {
                seat.searchers.iter_mut().for_each(|s| catch_up(s, info));
            }
            Ok(())
        })?;
        if probes.len() >= args.positions {
            break;
        }
    }
    Ok((times, probes))
}

/// Seeds of a seat's searchers lie this far apart.
const SEED_STRIDE: u64 = 1_000_003;

/// One line per time: the means over the probed turns (the first seed's searches), how the
/// chosen move compares with the longest search's and the next shorter one's, and how often the
/// other seeds chose the first seed's move (NaN with one seed).
pub fn summarize(times: &[u64], turns: &[Turn]) -> Vec<String> {
    let probes: Vec<&Vec<Probe>> = turns.iter().map(|t| &t[0]).collect();
    let n = probes.len().max(1) as f64;
    let mean = |i: usize, f: fn(&Probe) -> f64| probes.iter().map(|p| f(&p[i])).sum::<f64>() / n;
    let share = |same: &dyn Fn(&Vec<Probe>) -> bool| probes.iter().filter(|p| same(p)).count() as f64 / n;
    let last = times.len() - 1;
    (0..times.len())
        .map(|i| {
            let same_as_longest = share(&|p| p[i].best == p[last].best);
            let changed = if i == 0 { f64::NAN } else { share(&|p| p[i].best != p[i - 1].best) };
            let pairs: Vec<bool> =
                turns.iter().flat_map(|t| t[1..].iter().map(move |o| o[i].best == t[0][i].best)).collect();
            let same_across_seeds = pairs.iter().filter(|&&same| same).count() as f64 / pairs.len() as f64;
            format!(
                "scaling movetime={} positions={} depth_min={:.2} depth_mean={:.2} worlds={:.1} knodes={:.0} \
                 same_as_longest={same_as_longest:.3} changed={changed:.3} same_across_seeds={same_across_seeds:.3} \
                 score_cp={:.0} worst_cp={:.0} iterations={:.0} expansions={:.0}",
                times[i],
                probes.len(),
                mean(i, |p| p.depth),
                mean(i, |p| p.depth_mean),
                mean(i, |p| p.worlds),
                mean(i, |p| p.nodes) / 1000.0,
                mean(i, |p| p.score_cp),
                mean(i, |p| p.worst_cp),
                mean(i, |p| p.iterations),
                mean(i, |p| p.expansions),
            )
        })
        .collect()
}

/// Runs the probe and prints one line per time.
pub fn run(args: &ScalingArgs, out: &mut impl Write) -> Result<()> {
    let (times, probes) = collect(args)?;
    if probes.is_empty() {
        bail!("no turn of {} to probe in {}", args.variant, args.records.display());
    }
    for line in summarize(&times, &probes) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_compares_each_time_with_the_longest_and_the_next_shorter() {
        let m = |uci: &str| Some(Move::parse(uci, Variant::DarkChess).unwrap());
        let p = |best, depth: f64, worst_cp: f64| Probe { best, depth, worst_cp, ..Probe::default() };
        // Turn 1: e2e4, d2d4, d2d4; turn 2: a2a3 at every time.
        // A second seed agrees on turn 1 at 100 ms only, on turn 2 always.
        let turns = vec![
            vec![
                vec![p(m("e2e4"), 2.0, -100.0), p(m("d2d4"), 3.0, -50.0), p(m("d2d4"), 4.0, -20.0)],
                vec![p(m("e2e4"), 2.0, -100.0), p(m("e2e4"), 3.0, -50.0), p(m("e2e4"), 4.0, -20.0)],
            ],
            vec![
                vec![p(m("a2a3"), 4.0, 0.0), p(m("a2a3"), 5.0, 10.0), p(m("a2a3"), 6.0, 20.0)],
                vec![p(m("a2a3"), 9.0, 0.0), p(m("a2a3"), 9.0, 10.0), p(m("a2a3"), 9.0, 20.0)],
            ],
        ];
        let lines = summarize(&[100, 200, 400], &turns);
        assert_eq!(lines.len(), 3);
        let field = |line: &str, name: &str| -> String {
            line.split_whitespace().find_map(|w| w.strip_prefix(&format!("{name}="))).unwrap().to_string()
        };
        assert_eq!(field(&lines[0], "same_as_longest"), "0.500");
        assert_eq!(field(&lines[0], "changed"), "NaN", "nothing shorter to compare with");
        assert_eq!(field(&lines[0], "depth_min"), "3.00");
        assert_eq!(field(&lines[0], "worst_cp"), "-50");
        assert_eq!(field(&lines[1], "same_as_longest"), "1.000");
        assert_eq!(field(&lines[1], "changed"), "0.500");
        assert_eq!(field(&lines[2], "changed"), "0.000");
        assert_eq!(field(&lines[2], "movetime"), "400");
        assert_eq!(field(&lines[0], "same_across_seeds"), "1.000");
        assert_eq!(field(&lines[1], "same_across_seeds"), "0.500");
        assert_eq!(field(&lines[2], "depth_min"), "5.00", "the first seed's searches only");
    }
}
