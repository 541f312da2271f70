//! The fog-enforcing match runner: `murk match` and `murk replay`.
//!
//! Ordinary runners show engines the whole board; this one holds the true game with the rules
//! core and sends each engine only what protocol.md says it may learn. The pieces:
//!
//! - [`spec`]: engine specifications (command lines with cutechess-style settings, built-ins);
//! - [`io`] and [`engine`]: engine processes with deadlines, the handshake, the line log;
//! - [`clock`]: time controls and runner-side clocks;
//! - [`referee`]: one game on the true position, with bounces, forfeits and adjudication;
//! - [`record`], [`pgn`]: the JSON record of every line exchanged, and PGN;
//! - [`audit`]: the check that no line revealed anything an engine could not see;
//! - [`stats`]: score, Elo with its 95% interval, pentanomial statistics, SPRT;
//! - [`matches`](mod@matches): pairs, concurrency, restarts, progress; [`openings`]: start positions;
//! - [`replay`]: a recorded game as ASCII boards; [`args`]: the command-line arguments.

pub mod args;
pub mod audit;
pub mod clock;
pub mod engine;
pub mod io;
pub mod matches;
pub mod openings;
pub mod pgn;
pub mod record;
pub mod referee;
pub mod replay;
pub mod spec;
pub mod stats;

pub use args::{run_match_command, run_replay_command, MatchArgs, ReplayArgs};
pub use audit::{audit_record, AuditError};
pub use clock::TimeControl;
pub use engine::{EngineHandle, EngineInit};
pub use io::{EngineIo, IoFailure};
pub use matches::{run_match, MatchConfig, MatchSummary, Progress};
pub use record::{Forfeit, GameRecord, Termination};
pub use referee::{play_game, GameResult, GameSetup};
pub use spec::EngineSpec;
pub use stats::{Score, Sprt};
