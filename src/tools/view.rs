//! `murk view`: prints one side's view of a position, the text form the protocol uses, then an
//! ASCII diagram.

use super::{parse_color, position_arg};
use crate::core::{Color, Variant};
use crate::view::View;
use std::io::Write;

/// Options of `murk view`.
#[derive(clap::Args, Debug, Clone)]
pub struct ViewArgs {
    /// The game.
    #[arg(long)]
    pub variant: Variant,
    /// The position (defaults to the start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Whose view: white or black (red in Crossroads).
    #[arg(long, value_parser = parse_color)]
    pub side: Color,
}

/// Prints the view's text form, then its diagram.
pub fn run(args: &ViewArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let pos = position_arg(args.variant, args.fen.as_deref())?;
    let view = View::of(&pos, args.side);
    writeln!(out, "{}", view.to_text())?;
    write!(out, "{}", view.diagram())?;
    Ok(())
}
