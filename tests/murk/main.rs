//! Murk's integration tests: one binary, a module per area.

mod belief;
mod cluster;
mod datagen;
mod help;
mod info;
mod nets;
mod perft;
mod protocol;
mod protocol_fuzz;
mod rules;
mod runner;
mod search;
mod serve;
mod support;
mod uci_fog;
mod views;
