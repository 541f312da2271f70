//! `murk perft`: counts the move tree of a position, one line per root move, as Fairy-Stockfish's
//! `go perft` prints it, so that the two can be compared line by line.

use super::position_arg;
use crate::core::Variant;
use crate::rules::{divide, Legality};
use std::io::Write;

/// Options of `murk perft`.
#[derive(clap::Args, Debug, Clone)]
pub struct PerftArgs {
    /// Depth in plies.
    pub depth: u32,
    /// The game.
    #[arg(long)]
    pub variant: Variant,
    /// Start from this FEN instead of the variant's start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Count legal moves under ordinary check rules (testing mode) instead of pseudo-legal ones.
    #[arg(long)]
    pub legal: bool,
}

/// Prints `move: count` per root move, a blank line, then `Nodes searched: N`.
pub fn run(args: &PerftArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let pos = position_arg(args.variant, args.fen.as_deref())?;
    let legality = if args.legal { Legality::CheckAware } else { Legality::Pseudo };
    let mut total = 0;
    if args.depth > 0 {
        for (m, n) in divide(&pos, args.depth, legality) {
            writeln!(out, "{}: {n}", m.to_uci(args.variant))?;
            total += n;
        }
    } else {
        total = 1;
    }
    writeln!(out, "\nNodes searched: {total}")?;
    Ok(())
}
