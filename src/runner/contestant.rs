//! An engine as the referee drives it, whatever protocol it speaks (as cutechess's `ChessPlayer`
//! stands for its UCI and xboard engines): the line protocol of protocol.md
//! ([`EngineHandle`](super::line_engine::EngineHandle)) or Mistboard's engine protocol, one JSON
//! request per turn ([`MistboardEngine`](super::mistboard::MistboardEngine)). The referee keeps the
//! true game, the clocks and the forfeits; a contestant turns what its side may learn into its
//! protocol's messages and keeps the log of what it exchanged.

use super::clock::Clocks;
use super::line_engine::{EngineHandle, EngineInit, Msg, StartError};
use super::mistboard::MistboardEngine;
use super::record::Forfeit;
use super::spec::{EngineSpec, Protocol};
use crate::core::{Color, Square};
use crate::process::IoFailure;
use crate::rules::Position;
use crate::view::Observation;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The protocol a record's log of one side is written in.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Wire {
    /// The line protocol (protocol.md sections 3-8): the log holds its lines.
    #[default]
    Lines,
    /// Mistboard's engine protocol: the log holds the JSON requests and answers.
    Mistboard,
}

/// What an engine learns when a game starts.
#[derive(Clone, Debug)]
pub struct GameStart<'a> {
    /// The game's identity, the same for both sides (Mistboard's `gameId`).
    pub game_id: &'a str,
    /// The start position, known to both sides.
    pub start: &'a Position,
    /// The engine's side.
    pub side: Color,
    /// The engine's seed for this game.
    pub seed: u64,
    /// How long the engine may take to get ready.
    pub stall: Duration,
}

/// Why no move came from the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AskError {
    /// The engine exited, or gave no answer before the deadline.
    Io(IoFailure),
    /// The engine answered, but not with a move it may play: the forfeit and why.
    Reply(Forfeit, String),
}

/// An engine in a game, as the referee sees it.
pub trait Contestant: Send {
    /// Its display name.
    fn name(&self) -> &str;

    /// The protocol its log is written in.
    fn wire(&self) -> Wire;

    /// Errors the engine reported while starting (e.g. an option value it refused).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// Starts the clock of a new game's log: later messages are stamped from now.
    fn begin_game(&mut self);

    /// Tells the engine a new game starts and waits until it is ready; the seed it was given,
    /// if it takes one.
    fn start_game(&mut self, game: &GameStart) -> Result<Option<u64>, IoFailure>;

    /// Asks for the move of `side` (the engine's, to move), due before `deadline`; the move in
    /// protocol notation (section 1), which the referee checks against the true game.
    fn ask(&mut self, clocks: &Clocks, side: Color, deadline: Instant) -> Result<String, AskError>;

    /// Tells the engine its drop onto `square` bounced; it is asked again.
    fn bounce(&mut self, square: Square) -> Result<(), IoFailure>;

    /// Tells the engine what it observes after a ply. `landing` is where the opponent's piece
    /// landed, when the engine sees it there: Mistboard's hint, which the line protocol does not
    /// carry ([`landing_square`](crate::serve::encode::landing_square)).
    fn observe(&mut self, obs: &Observation, landing: Option<Square>) -> Result<(), IoFailure>;

    /// Stops a search that overran its time; false if the engine must be restarted.
    fn stop(&mut self, grace: Duration) -> bool;

    /// Tells the engine the game is over (`result` and the termination word).
    fn end_game(&mut self, result: &str, termination: &str);

    /// Takes the messages logged since the last call.
    fn take_log(&mut self) -> Vec<Msg>;

    /// False once the engine is known to have exited.
    fn alive(&mut self) -> bool;

    /// Asks the engine to quit, waits up to `grace`, then makes sure it is gone.
    fn shutdown(self: Box<Self>, grace: Duration);
}

/// Starts the engine of `spec` in the protocol it names and completes its handshake.
pub fn launch(spec: &EngineSpec, init: &EngineInit) -> Result<Box<dyn Contestant>, StartError> {
    Ok(match &spec.protocol {
        Protocol::Lines => Box::new(EngineHandle::launch(spec, init)?),
        Protocol::MistboardStdio | Protocol::MistboardHttp { .. } => Box::new(MistboardEngine::launch(spec, init)?),
    })
}
