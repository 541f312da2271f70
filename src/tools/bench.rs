//! `murk bench`: a fixed set of positions per variant searched with a fixed seed and node count
//! on one thread. The node total is a signature that changes only when search or evaluation
//! changes; nodes per second measure speed. With `--movetime` each position is searched for a
//! fixed time instead, as in a game, for the nodes per second at each thread count.

use crate::core::{Move, Variant};
use crate::engine::EngineOptions;
use crate::rules::Position;
use crate::rules::{Game, Played};
use crate::search::{Limits, Mode, MurkSearcher, SearchConfig, SearchParams, Searcher};
use crate::view::{InfoState, Observation};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Options of `murk bench`.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// Nodes per position: tree iterations for `pimc` and `ismcts` (default 20000), positions
    /// visited for `alphabeta` (default 400000), tree nodes for `infoset` (default 100000).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Search each position for this many milliseconds instead of a node count, as a game's
    /// `go movetime` does (the node total then varies from run to run: for thread scaling).
    #[arg(long, conflicts_with = "nodes")]
    pub movetime: Option<u64>,
    /// Threads (under a node count, the count does not depend on it).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// The search: `alphabeta` (the engine's default), `infoset`, `pimc` or `ismcts`.
    #[arg(long, default_value = Mode::default().name(), value_parser = parse_mode)]
    pub mode: Mode,
    /// The leaf evaluation: `net` (the engine's default, the built-in nets) or `hand`.
    #[arg(long, default_value = "net", value_parser = ["net", "hand"])]
    pub eval: String,
}

/// The bench's nodes per position for `mode`: about a second in all on one core.
fn default_nodes(mode: Mode) -> u64 {
    match mode {
        Mode::AlphaBeta => 400_000,
        Mode::Pimc | Mode::Ismcts => 20_000,
        Mode::InfoSet => 100_000,
    }
}

/// Parses a search mode name.
pub fn parse_mode(s: &str) -> Result<Mode, String> {
    Mode::ALL
        .into_iter()
        .find(|m| m.name() == s)
        .ok_or_else(|| format!("unknown search mode '{s}' (expected pimc, ismcts, alphabeta or infoset)"))
}

/// The bench positions: each start, and middlegames with fog, hands, cannons and horses.
pub const POSITIONS: &[(Variant, &str)] = &[
    (Variant::DarkChess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    (Variant::DarkChess, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    (Variant::DarkCrazyhouse, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"),
    (Variant::DarkCrazyhouse, "r1bqk2r/ppp2ppp/2n5/3Pp3/1b6/2N5/PPP2PPP/R1BQKB~NR[QPPn] w KQkq e6 0 9"),
    (Variant::DarkCrossroads, "bknhcv/pppooo/6/6/6/6/OOOPPP/VCHNKB w - - 0 1"),
    (Variant::DarkCrossroads, "1k1h2/3o1v/1nb2o/V1p2P/1O1P2/4P1/2O1c1/1CH1KB w - - 0 26"),
];

/// Plies played (by seeded random board moves) from each bench position before the search, so
/// that the engine's belief holds many worlds, as in a real game.
const PLIES_INTO_FOG: usize = 4;

/// The information state of the side to move in `start` after [`PLIES_INTO_FOG`] plies of seeded
/// random board moves played through the referee.
fn into_the_fog(start: Position, seed: u64) -> anyhow::Result<InfoState> {
    let side = start.turn();
    let mut info = InfoState::new(start.clone(), side);
    let mut game = Game::new(start);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for _ in 0..PLIES_INTO_FOG {
        let moves: Vec<Move> = game.position().moves().iter().copied().filter(|m| !m.is_drop()).collect();
        let Some(&mv) = moves.choose(&mut rng) else { break };
        if game.position().turn() == side {
            info.send_move(mv)?;
        }
        let Played::Moved(report) = game.play(mv)? else { anyhow::bail!("a board move bounced") };
        if report.outcome.is_some() {
            anyhow::bail!("a bench line ended the game");
        }
        info.observe(Observation::after_ply(game.position(), &report, side))?;
    }
    Ok(info)
}

/// Runs the bench, printing one line per position, then `Nodes searched: N` and
/// `Nodes/second: X` as the last two lines.
pub fn run(args: &BenchArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let mut total = 0u64;
    let started = Instant::now();
    for (i, &(variant, fen)) in POSITIONS.iter().enumerate() {
        let pos = Position::from_fen(variant, fen)?;
        let side = pos.turn();
        let info = into_the_fog(pos, 1000 + i as u64)?;
        let options = EngineOptions { variant, use_net: args.eval == "net", ..EngineOptions::default() };
        let (hash_mib, eval) = (options.hash_mib, options.evaluator());
        let config = SearchConfig { variant, side, seed: 1, threads: args.threads, hash_mib, mode: args.mode, eval };
        let mut searcher = MurkSearcher::new(&config, SearchParams::default());
        let limits = match args.movetime {
            Some(ms) => Limits { movetime: Some(ms), overhead_ms: 0, ..Limits::default() },
            None => Limits { nodes: Some(args.nodes.unwrap_or(default_nodes(args.mode))), ..Limits::default() },
        };
        let mut nodes = 0;
        let best = searcher.search(&info, &limits, &AtomicBool::new(false), &mut |r| nodes = r.nodes.unwrap_or(nodes));
        total += nodes;
        let best = best.map_or("0000".to_string(), |m| m.to_uci(variant));
        writeln!(out, "position {} {variant}: bestmove {best} nodes {nodes}", i + 1)?;
    }
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    writeln!(out, "\nNodes searched: {total}")?;
    writeln!(out, "Nodes/second: {}", (total as f64 / secs) as u64)?;
    Ok(())
}
