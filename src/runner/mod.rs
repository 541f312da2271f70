//! The fog-enforcing match runner: `murk match`, `murk tournament`, `murk results` and
//! `murk replay`.
//!
//! Ordinary runners show engines the whole board; this one holds the true game with the rules
//! core and sends each engine only what protocol.md says it may learn. The pieces:
//!
//! - [`spec`]: engine specifications (command lines with cutechess-style settings, built-ins);
//! - [`contestant`]: an engine as the referee drives it, whatever its protocol;
//! - [`line_engine`]: engines that speak the line protocol, as child processes with deadlines
//!   ([`crate::process`]): the handshake, the lines of a game, the line log;
//!   [`mistboard`]: engines that speak Mistboard's engine protocol (stdio workers, HTTP);
//! - [`clock`]: time controls and runner-side clocks;
//! - [`referee`]: one game on the true position, with bounces, forfeits and adjudication;
//! - [`record`], [`pgn`]: the JSON record of every line exchanged, and PGN;
//! - [`audit`]: the check that no line revealed anything an engine could not see;
//! - [`stats`]: score, Elo with its 95% interval, pentanomial statistics, SPRT;
//! - [`schedule`]: engines started and checked once, games over K workers, restarts;
//!   [`outputs`]: record files and the progress display;
//! - [`matches`](mod@matches): two engines, score and SPRT; [`tournament`]: many engines, resume;
//!   [`standings`]: crosstable and conduct; [`ratings`]: maximum-likelihood Elo of many engines;
//!   [`results`]: the standing of a run (e.g. of its shards) from its record files alone;
//! - [`openings`]: start positions;
//! - [`replay`]: a recorded game as ASCII boards; [`replay_html`]: the same game as one HTML page
//!   with the true position and both views side by side; [`args`]: the command-line arguments.

pub mod args;
pub mod audit;
pub mod clock;
pub mod contestant;
pub mod line_engine;
pub mod matches;
pub mod mistboard;
pub mod openings;
pub mod outputs;
pub mod pgn;
pub mod ratings;
pub mod record;
pub mod referee;
pub mod replay;
pub mod replay_html;
pub mod results;
pub mod schedule;
pub mod spec;
pub mod standings;
pub mod stats;
pub mod tournament;

pub use crate::process::{EngineIo, IoFailure};
pub use args::{
    run_match_command, run_replay_command, run_results_command, run_tournament_command, MatchArgs, ReplayArgs,
    TournamentArgs,
};
pub use audit::{audit_record, AuditError};
pub use clock::TimeControl;
pub use contestant::{Contestant, Wire};
pub use line_engine::{EngineHandle, EngineInit};
pub use matches::{run_match, MatchConfig, MatchSummary};
pub use record::{Forfeit, GameRecord, Termination};
pub use referee::{play_game, GameResult, GameSetup};
pub use results::ResultsArgs;
pub use schedule::{GameConfig, Progress};
pub use spec::EngineSpec;
pub use stats::{Score, Sprt};
pub use tournament::{run_tournament, TournamentConfig};
