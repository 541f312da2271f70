//! Start positions for a match: the variant's start, or the lines of an `--openings` file. Each
//! line is a FEN (EPD lines work too: extra fields after the FEN's six are ignored) or a sequence
//! of moves from the variant's start (`e2e4 e7e5`, move numbers like `1.` skipped). A move
//! sequence becomes the position it reaches: the moves of a fog game are never sent, so both
//! engines start from that position, known to both. Blank lines and lines starting with `#` are
//! skipped.

use crate::core::{Move, Variant};
use crate::rules::{Game, Played, Position};
use anyhow::{bail, Context, Result};
use std::path::Path;

/// Reads the openings of `variant` from `path`.
pub fn read_openings(variant: Variant, path: &Path) -> Result<Vec<Position>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut openings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let pos = parse_opening(variant, line).with_context(|| format!("{} line {}", path.display(), i + 1))?;
        openings.push(pos);
    }
    if openings.is_empty() {
        bail!("{} holds no openings", path.display());
    }
    Ok(openings)
}

/// Parses one opening line.
pub fn parse_opening(variant: Variant, line: &str) -> Result<Position> {
    if line.contains('/') {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let fen = fields[..fields.len().min(6)].join(" ");
        return Position::from_fen(variant, &fen)
            .or_else(|_| Position::from_fen(variant, &fields[..fields.len().min(4)].join(" ")))
            .with_context(|| format!("invalid FEN '{line}'"));
    }
    let mut game = Game::new(Position::start(variant));
    for word in line.split_whitespace().filter(|w| !w.ends_with('.')) {
        let mv = Move::parse(word, variant).with_context(|| format!("bad move '{word}'"))?;
        match game.play(mv) {
            Ok(Played::Moved(_)) => {}
            Ok(Played::Bounced(_)) => bail!("the drop {word} bounces: an opening must consist of moves"),
            Err(e) => bail!("{e} (in '{line}')"),
        }
    }
    if let Some(outcome) = game.outcome() {
        bail!("the opening '{line}' ends the game ({outcome})");
    }
    Ok(game.position().clone())
}
