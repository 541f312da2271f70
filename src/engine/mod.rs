//! The engine side of a game: what the player knows, and how it chooses moves. No I/O here.

pub mod info;

pub use info::{Event, InfoError, InfoState};
