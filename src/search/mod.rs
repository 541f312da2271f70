//! The determinized search over worlds drawn from the belief: alpha-beta on each world (the
//! default), or PIMC or single-observer ISMCTS trees; run on one rayon pool of `Threads` threads
//! that also updates the belief, with a risk-aware root choice.

pub mod alphabeta;
pub mod driver;
pub mod infoset;
pub mod limits;
pub mod murk;
pub mod priors;
pub mod quiesce;
pub mod root;
pub mod searcher;
pub mod sim;
pub mod tree;
pub mod worlds;

pub use driver::Mode;
pub use limits::{Budget, Limits, SearchClock};
pub use murk::{MurkSearcher, SearchParams};
pub use searcher::{SearchConfig, SearchInfo, Searcher};
pub use worlds::{thread_pool, WorldSource};
