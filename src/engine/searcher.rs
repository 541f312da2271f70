//! The interface every move chooser implements, and the registry behind the `Player` option.
//!
//! A [`Searcher`] is made once per game (when the game starts) from a [`SearchConfig`] that holds
//! the game's seed and resource options; the protocol front end then calls
//! [`Searcher::search`] for every `go`, on a worker thread, with the engine's information state
//! (never the true position), the `go` limits, a stop flag and a reporting callback.
//!
//! To add a player, add one [`PlayerEntry`] line to [`players`]; the first entry is the default.
//! A front end with players of its own (`murk uci-fog`) hands its list to
//! [`super::EngineOptions::with_players`].

use super::limits::Limits;
use super::players::SimplePlayer;
use crate::core::{Color, Move, Variant};
use crate::view::InfoState;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
    /// The `Search` option: how the MCTS shares knowledge across sampled worlds.
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

/// A move chooser: the built-in simple players now, the MCTS search later.
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

/// Builds a fresh searcher for a new game.
pub type MakeSearcher = dyn Fn(&SearchConfig) -> Box<dyn Searcher> + Send + Sync;

/// One value of the `Player` option and how to build its searcher. The builder may carry state
/// shared by the searchers of successive games (e.g. `uci-fog`'s child engine).
#[derive(Clone)]
pub struct PlayerEntry {
    /// The option value.
    pub name: &'static str,
    /// Builds a fresh searcher for a new game.
    pub make: Arc<MakeSearcher>,
}

impl PlayerEntry {
    /// The player `name`, built by `make`.
    pub fn new(
        name: &'static str,
        make: impl Fn(&SearchConfig) -> Box<dyn Searcher> + Send + Sync + 'static,
    ) -> PlayerEntry {
        PlayerEntry { name, make: Arc::new(make) }
    }
}

impl std::fmt::Debug for PlayerEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlayerEntry").field("name", &self.name).finish()
    }
}

/// The values of the `Player` option of the `murk` engine; the first is the default.
pub fn players() -> Vec<PlayerEntry> {
    vec![
        PlayerEntry::new("murk", |c| Box::new(crate::search::MurkSearcher::new(c, Default::default()))),
        PlayerEntry::new("greedy", |c| Box::new(SimpleSearcher::new(SimplePlayer::Greedy, c.seed))),
        PlayerEntry::new("random", |c| Box::new(SimpleSearcher::new(SimplePlayer::Random, c.seed))),
    ]
}

/// A built-in simple player with its own random stream, seeded once per game.
#[derive(Clone, Debug)]
pub struct SimpleSearcher {
    player: SimplePlayer,
    rng: Xoshiro256PlusPlus,
}

impl SimpleSearcher {
    /// The player with a random stream seeded from `seed`.
    pub fn new(player: SimplePlayer, seed: u64) -> SimpleSearcher {
        SimpleSearcher { player, rng: Xoshiro256PlusPlus::seed_from_u64(seed) }
    }
}

impl Searcher for SimpleSearcher {
    fn search(
        &mut self,
        info: &InfoState,
        limits: &Limits,
        _stop: &AtomicBool,
        _report: &mut dyn FnMut(SearchInfo),
    ) -> Option<Move> {
        if limits.searchmoves.is_empty() {
            self.player.choose(info, &mut self.rng)
        } else {
            self.player.choose_from(info, &limits.searchmoves, &mut self.rng)
        }
    }
}
