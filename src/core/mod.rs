//! The vocabulary every other module speaks: colors, squares, bitboards, roles, moves,
//! variants and the compile-time attack tables.

pub mod attacks;
pub mod bitboard;
pub mod hash;
pub mod moves;
pub mod role;
pub mod square;
pub mod variant;

pub use bitboard::Bitboard;
pub use moves::{Move, MoveKind, MoveParseError};
pub use role::{role_value, Piece, Role};
pub use square::{Color, Square};
pub use variant::{UnknownVariant, Variant};
