//! Murk's integration tests: one binary, a module per area.

mod info;
mod perft;
mod rules;
mod support;
mod views;
