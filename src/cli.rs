//! The command line: one clap subcommand per job; with no subcommand Murk speaks the protocol.

use crate::core::{Color, Variant};
use crate::rules::{divide, Legality, Position};
use crate::view::View;
use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::io::Write;

/// Murk, an engine for fog-of-war chess (dark-crazyhouse, dark-crossroads, dark-chess).
#[derive(Parser, Debug)]
#[command(name = "murk", version, about)]
pub struct Cli {
    /// The job to run; without one, Murk speaks the engine protocol on stdin/stdout.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count the move tree: one line per root move, a blank line, then `Nodes searched: N`.
    Perft {
        /// Depth in plies.
        depth: u32,
        /// The game.
        #[arg(long)]
        variant: Variant,
        /// Start from this FEN instead of the variant's start position.
        #[arg(long)]
        fen: Option<String>,
        /// Count legal moves under ordinary check rules (testing mode) instead of pseudo-legal ones.
        #[arg(long)]
        legal: bool,
    },
    /// Print one side's view of a position: the text form, then an ASCII diagram.
    View {
        /// The game.
        #[arg(long)]
        variant: Variant,
        /// The position (defaults to the start position).
        #[arg(long)]
        fen: Option<String>,
        /// Whose view: white or black (red in Crossroads).
        #[arg(long, value_parser = parse_color)]
        side: Color,
    },
    /// Play a match between two engines under fog, refereed on the true position.
    ///
    /// The runner sends each engine only what protocol.md allows, and prints the score and the
    /// Elo difference as cutechess-cli does.
    Match(crate::runner::MatchArgs),
    /// Play a tournament of many engines under fog (round robin or gauntlet), with a crosstable
    /// and maximum-likelihood ratings of all engines on one scale; `--resume` continues one.
    Tournament(crate::runner::TournamentArgs),
    /// Print a game recorded by `murk match --json` ply by ply, as ASCII boards of one view.
    Replay(crate::runner::ReplayArgs),
    /// Measure the belief state against the referee: play games, track each side's belief, and
    /// print the naive baseline, then as the last line `belief-eval variant=... games=... plies=...
    /// consistent=... truth_in_support=... square_acc=... hand_acc=... lost=... update_ms_p50=...
    /// update_ms_p99=...`.
    BeliefEval(crate::belief::eval::BeliefEvalArgs),
    /// Search a fixed set of positions with a fixed seed and node count; the last two lines are
    /// `Nodes searched: N` (a signature of search and evaluation) and `Nodes/second: X`.
    Bench(crate::search::bench::BenchArgs),
    /// Speak the engine protocol, choosing moves by running a UCI variant engine (e.g.
    /// Fairy-Stockfish) on worlds drawn from Murk's belief.
    UciFog(crate::uci_fog::UciFogArgs),
    /// Write training positions for the learned evaluation: Murk's own games under fog, the
    /// truth and belief worlds, labelled by a teacher and the result (train.bin, valid.bin).
    Datagen(crate::datagen::DatagenArgs),
    /// Serve Mistboard's engine protocol (one JSON request per turn) over HTTP or stdio, so a
    /// game server can use Murk as its engine.
    Serve(crate::serve::ServeArgs),
}

/// Parses a side name for clap.
pub fn parse_color(s: &str) -> Result<Color, String> {
    Color::from_name(s).ok_or_else(|| format!("unknown side '{s}' (expected white or black)"))
}

/// Reads `--fen`, or the start position.
pub fn position_arg(variant: Variant, fen: Option<&str>) -> Result<Position> {
    match fen {
        Some(fen) => Position::from_fen(variant, fen).with_context(|| format!("invalid FEN '{fen}'")),
        None => Ok(Position::start(variant)),
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        None => crate::protocol::run_stdio(crate::engine::Session::default())?,
        Some(Command::Perft { depth, variant, fen, legal }) => {
            let pos = position_arg(variant, fen.as_deref())?;
            let legality = if legal { Legality::CheckAware } else { Legality::Pseudo };
            let mut out = std::io::stdout().lock();
            let mut total = 0;
            if depth > 0 {
                for (m, n) in divide(&pos, depth, legality) {
                    writeln!(out, "{}: {n}", m.to_uci(variant))?;
                    total += n;
                }
            } else {
                total = 1;
            }
            writeln!(out, "\nNodes searched: {total}")?;
        }
        Some(Command::View { variant, fen, side }) => {
            let pos = position_arg(variant, fen.as_deref())?;
            let view = View::of(&pos, side);
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", view.to_text())?;
            write!(out, "{}", view.diagram())?;
        }
        Some(Command::Match(args)) => crate::runner::run_match_command(&args)?,
        Some(Command::Tournament(args)) => crate::runner::run_tournament_command(&args)?,
        Some(Command::Replay(args)) => crate::runner::run_replay_command(&args)?,
        Some(Command::Bench(args)) => crate::search::bench::run(&args, &mut std::io::stdout().lock())?,
        Some(Command::UciFog(args)) => crate::uci_fog::run(&args)?,
        Some(Command::Datagen(args)) => {
            crate::datagen::run(&args, &mut std::io::stdout().lock())?;
        }
        Some(Command::Serve(args)) => crate::serve::run(&args)?,
        Some(Command::BeliefEval(args)) => {
            crate::belief::eval::run(&args, &mut std::io::stdout().lock())?;
        }
    }
    Ok(())
}
