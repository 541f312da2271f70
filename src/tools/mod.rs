//! The measuring and inspection subcommands, one file each: `murk bench` (search speed and its
//! signature), `murk belief-eval` (the belief against the referee, or on recorded games), `murk
//! perft` (move counts)
//! and `murk view` (one side's view of a position).

mod baseline;
pub mod belief_eval;
pub mod belief_records;
pub mod bench;
pub mod opponent_fit;
pub mod perft;
pub mod scaling;
pub mod seats;
pub mod view;

use crate::core::{Color, Variant};
use crate::rules::Position;
use anyhow::{Context, Result};

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
