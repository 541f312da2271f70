//! Murk: an engine for fog-of-war chess. It plays Dark Crazyhouse, Dark Crossroads Chess and
//! Dark Chess.
//!
//! The crate is layered: [`core`] is the shared vocabulary, [`rules`] plays the true game,
//! [`view`] computes what each side sees.
#![deny(missing_docs)]

pub mod belief;
pub mod cli;
pub mod core;
pub mod datagen;
pub mod engine;
pub mod eval;
pub mod protocol;
pub mod rules;
pub mod runner;
pub mod search;
pub mod serve;
pub mod uci_fog;
pub mod view;
