//! A recorded game replayed through the referee, as each seat saw it: the tools that study
//! recorded games (the belief on records, the time-scaling probe) walk a game with
//! [`replay_seats`] and act at the steps they care about.

use crate::core::{Color, Move, Variant};
use crate::rules::{Game, Played, Position};
use crate::runner::record::GameRecord;
use crate::view::{InfoState, Observation};
use anyhow::{anyhow, Context, Result};

/// One step of a replayed game for one seat.
pub enum SeatStep<'a> {
    /// The seat is about to choose its move of this ply (its information state is up to date).
    ToMove,
    /// The seat's drop bounced.
    Bounced,
    /// The seat observed a ply; `truth` is the position after it, `goes_on` whether the game
    /// continues.
    Observed {
        /// The true position after the ply.
        truth: &'a Position,
        /// Whether the game continues after it.
        goes_on: bool,
    },
}

/// Replays `rec` through the referee, keeping each seat's information state as the engine's
/// would be, and calls `visit` with the seat, its information state and the step, in order.
pub fn replay_seats(rec: &GameRecord, mut visit: impl FnMut(Color, &InfoState, SeatStep) -> Result<()>) -> Result<()> {
    let variant: Variant = rec.variant.parse().map_err(|e| anyhow!("{e}"))?;
    let start = Position::from_fen(variant, &rec.start_fen).context("the record's start FEN")?;
    let mut game = Game::new(start.clone());
    let mut infos = Color::ALL.map(|side| InfoState::new(start.clone(), side));
    for (i, text) in rec.moves.iter().enumerate() {
        let mover = game.position().turn();
        visit(mover, &infos[mover.index()], SeatStep::ToMove)?;
        let bounces = rec.plies.get(i).map_or(&[][..], |p| p.bounces.as_slice());
        for tried in bounces.iter().chain([text]) {
            let wanted = Move::parse(tried, variant)?;
            let info = &mut infos[mover.index()];
            info.send_move(wanted).with_context(|| format!("game {} ply {}: {tried}", rec.game, i + 1))?;
            match game.play(wanted).map_err(|e| anyhow!("game {} ply {}: {e}", rec.game, i + 1))? {
                Played::Bounced(sq) => {
                    info.bounce(sq)?;
                    visit(mover, info, SeatStep::Bounced)?;
                }
                Played::Moved(report) => {
                    let goes_on = game.outcome().is_none();
                    for side in Color::ALL {
                        let info = &mut infos[side.index()];
                        info.observe(Observation::after_ply(game.position(), &report, side))?;
                        visit(side, info, SeatStep::Observed { truth: game.position(), goes_on })?;
                    }
                }
            }
        }
    }
    Ok(())
}
