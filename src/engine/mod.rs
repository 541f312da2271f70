//! The engine side of a game: what the player knows, and how it chooses moves. No I/O here.

pub mod limits;
pub mod options;
pub mod players;
pub mod searcher;
pub mod session;

pub use limits::{Budget, Limits, SearchClock};
pub use options::{EngineOptions, OptionError};
pub use players::{SimplePlayer, UnknownPlayer};
pub use searcher::{players, MakeSearcher, PlayerEntry, SearchConfig, SearchInfo, Searcher, SimpleSearcher};
pub use session::{BestMove, SearchDone, SearchJob, Session, SessionError};
