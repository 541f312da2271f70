//! The determinized search over worlds drawn from the belief: alpha-beta on each world (the
//! default), or PIMC or single-observer ISMCTS trees; run on one rayon pool of `Threads` threads
//! that also updates the belief, with a risk-aware root choice.

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
pub use worlds::{thread_pool, WorldSource};
