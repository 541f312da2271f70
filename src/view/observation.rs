//! What a player is told after every ply, its own or the opponent's, and the protocol line
//! that carries it: `observe <view> [captured <square> <letter>] [try]`.

use super::{View, ViewParseError};
use crate::core::{Color, Role, Square, Variant};
use crate::rules::{PlyReport, Position};
use std::fmt::Write;

/// The information one side receives after a ply.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Observation {
    /// The side's view of the position after the ply.
    pub view: View,
    /// One of the side's own pieces was captured in this ply: where, and what it was.
    pub captured: Option<(Square, Role)>,
    /// The side's own Try was armed by this ply (Crossroads; only the racer is told).
    pub try_armed: bool,
}

/// An `observe` line that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObservationParseError {
    /// The view part is malformed.
    #[error("{0}")]
    View(#[from] ViewParseError),
    /// Something after the view is not `captured <square> <letter>` or `try`.
    #[error("unexpected '{0}' in observation (expected 'captured <square> <piece>' or 'try')")]
    Extra(String),
    /// The captured square or piece letter is malformed or contradicts the view.
    #[error("bad capture report '{0}'")]
    Capture(String),
}

impl Observation {
    /// What `side` learns from the ply described by `report`, given the position after it.
    pub fn after_ply(after: &Position, report: &PlyReport, side: Color) -> Observation {
        let mover = after.turn().opponent();
        Observation {
            view: View::of(after, side),
            captured: report.captured.filter(|(_, p)| p.color == side).map(|(sq, p)| (sq, p.role)),
            try_armed: report.try_armed && mover == side,
        }
    }

    /// The observation of a start position (no ply played yet).
    pub fn initial(pos: &Position, side: Color) -> Observation {
        Observation { view: View::of(pos, side), captured: None, try_armed: false }
    }

    /// The arguments of the `observe` line (everything after the word `observe`).
    pub fn to_args(&self) -> String {
        let mut s = self.view.to_text();
        let variant = self.view.variant();
        if let Some((sq, role)) = self.captured {
            let letter = variant.letter(role).unwrap_or('?');
            let letter = if self.view.side() == Color::White { letter.to_ascii_uppercase() } else { letter };
            let _ = write!(s, " captured {sq} {letter}");
        }
        if self.try_armed {
            s.push_str(" try");
        }
        s
    }

    /// Parses the arguments of an `observe` line for `side` in `variant`.
    pub fn parse_args(variant: Variant, side: Color, args: &str) -> Result<Observation, ObservationParseError> {
        let tokens: Vec<&str> = args.split_whitespace().collect();
        if tokens.len() < 2 {
            return Err(ViewParseError::Fields(args.to_string()).into());
        }
        let view = View::parse(variant, side, &tokens[..2].join(" "))?;
        let mut obs = Observation { view, captured: None, try_armed: false };
        let mut rest = tokens[2..].iter();
        while let Some(&word) = rest.next() {
            match word {
                "captured" if obs.captured.is_none() => {
                    let (Some(sq), Some(letter)) = (rest.next(), rest.next()) else {
                        return Err(ObservationParseError::Capture(args.to_string()));
                    };
                    obs.captured = Some(parse_capture(variant, side, &obs.view, sq, letter)?);
                }
                "try" if !obs.try_armed => obs.try_armed = true,
                other => return Err(ObservationParseError::Extra(other.to_string())),
            }
        }
        Ok(obs)
    }
}

fn parse_capture(
    variant: Variant,
    side: Color,
    view: &View,
    sq: &str,
    letter: &str,
) -> Result<(Square, Role), ObservationParseError> {
    let err = || ObservationParseError::Capture(format!("{sq} {letter}"));
    let square = Square::parse(sq).filter(|&s| variant.board_mask().contains(s)).ok_or_else(err)?;
    let mut chars = letter.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else { return Err(err()) };
    let role = variant.role_of_letter(c).ok_or_else(err)?;
    let own_case = (side == Color::White) == c.is_ascii_uppercase();
    // The captor now stands on the square: it cannot still show one of the observer's pieces.
    if !own_case || view.by_color(side).contains(square) {
        return Err(err());
    }
    Ok((square, role))
}
