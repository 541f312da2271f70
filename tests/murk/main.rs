//! Murk's integration tests: one binary, a module per area.

mod info;
mod rules;
mod support;
mod views;
