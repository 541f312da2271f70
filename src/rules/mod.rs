//! The true-game rules of all three variants: positions and FEN, pseudo-legal move generation,
//! playing moves (with bounces), outcomes, the check-aware test mode, and perft.

pub mod fen;
mod game;
mod hand;
mod legal;
mod movegen;
mod perft;
mod position;
mod vision;
pub mod zobrist;

pub use fen::FenError;
pub use game::{EndReason, Game, Outcome, PlayError, Played, PlyReport};
pub use hand::Hand;
pub use movegen::{pawn_pushes, reach, MoveCounter, MoveList, MoveSink, MAX_MOVES};
pub use perft::{divide, perft, Legality};
pub use position::{Castling, PlyVerdict, Position};
pub use vision::vision;
pub(crate) use vision::vision_with_ep;
