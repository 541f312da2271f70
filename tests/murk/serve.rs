//! `murk serve`: Murk behind a game server that speaks Mistboard's engine protocol. A real HTTP
//! client (ureq) and the stdio worker play whole games of each variant, refereed by the rules
//! core; the leak property; every kind of bad input, and mutated requests; views read back from
//! the wire's squares; the session cache; the time headers; the worked examples of protocol.md
//! section 12; and an ignored load test.

mod bad_input;
mod client;
mod decode;
mod examples;
mod fuzz;
mod games;
mod leak;
mod load;
pub mod referee;
mod sessions;
