//! The registry behind the `Player` option (as lc0's search/register.h): each player's name and
//! how to build its [`Searcher`] for a game.
//!
//! To add a player, add one [`PlayerEntry`] line to [`players`]; the first entry is the default.
//! A front end with players of its own (`murk uci-fog`) hands its list to
//! [`super::EngineOptions::with_players`].

use crate::core::Move;
use crate::search::{Limits, SearchConfig, SearchInfo, Searcher};
use crate::view::{InfoState, SimplePlayer};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
