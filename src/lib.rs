//! Murk: an engine for fog-of-war chess. It plays Dark Crazyhouse, Dark Crossroads Chess and
//! Dark Chess.
//!
//! The crate is layered, each module using only those before it: [`core`] (squares, pieces,
//! moves), [`rules`] (the true game, vision included), [`view`] (what each side sees and knows,
//! the simple players), [`belief`] (what the hidden position may be), [`eval`] (leaf values and
//! nets), [`search`] (the searcher interface and Murk's search), [`engine`] (a game's session and
//! the player registry), [`protocol`] (the text front end). Beside them: [`runner`] (matches and
//! tournaments, on rules and view only), [`serve`], [`uci_fog`], [`process`] (engines as child
//! processes, for runner and uci_fog), [`shard`] (a run split over machines), [`datagen`] and
//! [`tools`].
#![deny(missing_docs)]

pub mod belief;
pub mod cli;
pub mod core;
pub mod datagen;
pub mod engine;
pub mod eval;
pub mod process;
pub mod protocol;
pub mod rules;
pub mod runner;
pub mod search;
pub mod serve;
pub mod shard;
pub mod tools;
pub mod uci_fog;
pub mod view;
