//! `murk replay`: a recorded game ply by ply, as ASCII boards of one side's view (what that
//! engine was shown) or of the true position, with a Mistboard engine's requests and answers.

use super::contestant::Wire;
use super::line_engine::Dir;
use super::mistboard::summarize;
use super::record::{GameRecord, SideLogs};
use crate::core::{Color, Move, Variant};
use crate::rules::fen::piece_char;
use crate::rules::{Game, Hand, Played, PlyReport, Position};
use crate::view::{grid_diagram, Observation};
use anyhow::{anyhow, bail, Context, Result};
use std::fmt::Write;

/// Whose boards to print.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ReplaySide {
    /// One side's view.
    Side(Color),
    /// The true position.
    Truth,
}

impl std::str::FromStr for ReplaySide {
    type Err = String;
    fn from_str(s: &str) -> Result<ReplaySide, String> {
        match s {
            "truth" => Ok(ReplaySide::Truth),
            _ => Color::from_name(s)
                .map(ReplaySide::Side)
                .ok_or_else(|| format!("unknown side '{s}' (expected white, black or truth)")),
        }
    }
}

/// An ASCII diagram of the true position, in the style of [`View::diagram`](crate::view::View::diagram), with both hands.
pub fn truth_diagram(pos: &Position) -> String {
    let variant = pos.variant();
    let mut s = grid_diagram(variant, |sq| match pos.piece_at(sq) {
        Some(p) => (piece_char(variant, p), if pos.promoted().contains(sq) { '~' } else { ' ' }),
        None => ('.', ' '),
    });
    if variant.has_hands() {
        for color in Color::ALL {
            let _ = writeln!(s, "  {} hand: {}", color.name(), hand_letters(variant, color, pos.hand(color)));
        }
    }
    s
}

/// A hand in FEN letters (upper case for White), in role order; `-` when empty.
pub fn hand_letters(variant: Variant, color: Color, hand: &Hand) -> String {
    let letters: String = crate::core::Role::ALL
        .into_iter()
        .flat_map(|r| {
            let c = variant.letter(r).unwrap_or('?');
            let c = if color == Color::White { c.to_ascii_uppercase() } else { c };
            std::iter::repeat_n(c, hand.count(r) as usize)
        })
        .collect();
    if letters.is_empty() {
        "-".to_string()
    } else {
        letters
    }
}

/// The board for `side` after the ply `report` (none at the start): for a side, the `observe`
/// line it was sent (its view at the start) and the diagram of its view.
fn board(pos: &Position, report: Option<&PlyReport>, side: ReplaySide) -> String {
    match side {
        ReplaySide::Truth => truth_diagram(pos),
        ReplaySide::Side(c) => {
            let (label, obs) = match report {
                Some(report) => ("observe", Observation::after_ply(pos, report, c)),
                None => ("view", Observation::initial(pos, c)),
            };
            format!("  {label} {}\n{}", obs.to_args(), obs.view.diagram())
        }
    }
}

/// One ply of a recorded game, played again on the true position.
pub struct ReplayedPly {
    /// The side that moved.
    pub mover: Color,
    /// The move as the record writes it.
    pub text: String,
    /// The drops that bounced before it, as the record writes them.
    pub bounces: Vec<String>,
    /// What the rules report about the ply (the move as played, the capture, the Try).
    pub report: PlyReport,
    /// The true position after it.
    pub position: Position,
}

/// A recorded game played again with the rules core: the start position and every ply.
pub struct ReplayedGame {
    /// The game.
    pub variant: Variant,
    /// The true start position.
    pub start: Position,
    /// The plies in order.
    pub plies: Vec<ReplayedPly>,
}

/// Plays `record`'s moves again from its start position, failing on the first move that is not
/// legal there (a record that does not belong to its start position).
pub fn replay_game(record: &GameRecord) -> Result<ReplayedGame> {
    let variant: Variant = record.variant.parse().map_err(|e| anyhow!("{e}"))?;
    let start = Position::from_fen(variant, &record.start_fen).context("the record's start FEN")?;
    let mut game = Game::new(start.clone());
    let mut plies = Vec::with_capacity(record.moves.len());
    for (i, text) in record.moves.iter().enumerate() {
        let mover = game.position().turn();
        let mv = Move::parse(text, variant).with_context(|| format!("ply {}", i + 1))?;
        let Ok(Played::Moved(report)) = game.play(mv) else {
            bail!("ply {}: the recorded move {text} is not legal", i + 1);
        };
        let bounces = record.plies.get(i).map(|p| p.bounces.clone()).unwrap_or_default();
        plies.push(ReplayedPly { mover, text: text.clone(), bounces, report, position: game.position().clone() });
    }
    Ok(ReplayedGame { variant, start, plies })
}

/// The whole replay of `record` from `side`'s point of view.
pub fn replay_text(record: &GameRecord, side: ReplaySide) -> Result<String> {
    let game = replay_game(record)?;
    let mut s = String::new();
    let _ = writeln!(s, "Game {}: {} (White) vs {} (Black), {}", record.game, record.white, record.black, game.variant);
    let _ = writeln!(s, "Start: {}\n", record.start_fen);
    s.push_str(&board(&game.start, None, side));
    for (i, ply) in game.plies.iter().enumerate() {
        let _ = write!(s, "\nPly {}: {} {}", i + 1, ply.mover.name(), ply.text);
        if !ply.bounces.is_empty() {
            let _ = write!(s, " (bounced first: {})", ply.bounces.join(", "));
        }
        s.push('\n');
        s.push_str(&mistboard_messages(record.plies.get(i).map(|p| &p.lines), record));
        s.push_str(&board(&ply.position, Some(&ply.report), side));
    }
    s.push_str(&mistboard_messages(Some(&record.end), record));
    let _ = writeln!(s, "\nResult: {} ({}: {})", record.result, record.termination, record.detail);
    Ok(s)
}

/// The requests and answers of the Mistboard engines among `logs`, one summary line each.
fn mistboard_messages(logs: Option<&SideLogs>, record: &GameRecord) -> String {
    let mut s = String::new();
    for side in Color::ALL.into_iter().filter(|side| record.wire[side.index()] == Wire::Mistboard) {
        for m in logs.map_or(&[][..], |l| l.of(side)) {
            let arrow = if m.dir == Dir::In { "->" } else { "<-" };
            let _ = writeln!(s, "  {} {arrow} {}", side.name(), summarize(&m.line));
        }
    }
    s
}
