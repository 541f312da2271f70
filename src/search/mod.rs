//! Determinized Monte Carlo tree search over worlds drawn from the belief: PUCT with heuristic
//! priors, leaves valued by the hand-written evaluation, PIMC or single-observer ISMCTS, run in
//! parallel with rayon, and a risk-aware root choice.

pub mod alphabeta;
pub mod bench;
pub mod driver;
pub mod priors;
pub mod quiesce;
pub mod root;
pub mod searcher;
pub mod sim;
pub mod tree;
pub mod worlds;

pub use driver::Mode;
pub use searcher::{MurkSearcher, SearchParams};
pub use worlds::WorldSource;
