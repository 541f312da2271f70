//! The engine side of a game: what the player knows, and how it chooses moves. No I/O here.

pub mod info;
pub mod players;

pub use info::{Event, InfoError, InfoState};
pub use players::{role_value, SimplePlayer, UnknownPlayer};
