//! The interface every move chooser implements (as lc0's search/search.h): the engine builds a
//! [`Searcher`] per game from a [`SearchConfig`] and calls [`Searcher::search`] for every `go`,
//! on a worker thread, with the engine's information state (never the true position), the `go`
//! limits, a stop flag and a reporting callback.

use super::limits::Limits;
use crate::core::{Color, Move, Variant};
use crate::view::InfoState;
use std::sync::atomic::AtomicBool;

/// What a searcher is built from at the start of a game.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SearchConfig {
    /// The game.
    pub variant: Variant,
    /// The engine's color in this game.
    pub side: Color,
    /// The `Seed` option: every random choice of the game derives from it.
    pub seed: u64,
    /// The `Threads` option: how many threads the search may use.
    pub threads: usize,
    /// The `Hash` option: a hard bound on the search's memory, in MiB.
    pub hash_mib: usize,
    /// The `Search` option: how the worlds are searched (alpha-beta on each, or PIMC or ISMCTS
    /// trees).
    pub mode: crate::search::Mode,
    /// The `Eval` and `EvalFile` options: what values the search's leaves.
    pub eval: crate::eval::Evaluator,
}

/// A progress report of a running search; the front end writes it as one `info` line.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct SearchInfo {
    /// Search depth reached.
    pub depth: Option<u32>,
    /// Nodes searched so far.
    pub nodes: Option<u64>,
    /// Nodes per second.
    pub nps: Option<u64>,
    /// Milliseconds since the search started.
    pub time_ms: Option<u64>,
    /// Evaluation in centipawns from the engine's point of view.
    pub score_cp: Option<i32>,
    /// Win, draw and loss chances in per mille, from the engine's point of view.
    pub wdl: Option<[u32; 3]>,
    /// The principal variation, starting with the move it would play.
    pub pv: Vec<Move>,
    /// Free text (written last, as `string ...`).
    pub string: Option<String>,
}

/// A move chooser: Murk's search, `uci-fog`'s, or a simple built-in player.
///
/// Contract: `search` reads only `info` (the engine's own information), follows the budget of
/// `limits` (see [`Limits::budget`] and [`super::limits::SearchClock`]), returns promptly once
/// `stop` is raised, chooses among `limits.searchmoves` when that is not empty, and returns a
/// move that is legal from the engine's view (one of `info.legal_moves()`), or `None` only when
/// there is none. Everything it does must follow from its seed and its inputs, so that equal
/// information gives equal output.
pub trait Searcher: Send {
    /// Chooses a move for the position described by `info`.
    fn search(
        &mut self,
        info: &InfoState,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(SearchInfo),
    ) -> Option<Move>;
}
