//! Murk's integration tests: one binary, a module per area.

mod belief;
mod info;
mod protocol;
mod protocol_fuzz;
mod perft;
mod rules;
mod runner;
mod search;
mod support;
mod views;
