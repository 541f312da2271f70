//! The engine: a game's session (its options, the information state, the searcher the `Player`
//! option names) and the registry of players. No I/O here.

pub mod options;
pub mod players;
pub mod session;

pub use options::{EngineOptions, OptionError};
pub use players::{players, MakeSearcher, PlayerEntry, SimpleSearcher};
pub use session::{BestMove, SearchDone, SearchJob, Session, SessionError};
