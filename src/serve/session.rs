//! The session cache: one game's state (its information state and searcher) per `sessionId`,
//! bounded by the number of games (the least recently used is dropped first), with each game's
//! searcher sized to its share of `--hash`. A cache miss costs time, never correctness: the
//! state is rebuilt from the request's transcript ([`sync`](super::sync)).

use super::wire::WireObservation;
use super::TurnService;
use crate::core::{Color, Variant};
use crate::engine::EngineOptions;
use crate::search::Searcher;
use crate::view::InfoState;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The least memory one game's searcher is given, in MiB.
pub const MIN_GAME_HASH_MIB: usize = 8;

/// One seat of one game, as the engine holds it between requests.
pub(super) struct GameState {
    pub(super) variant: Variant,
    pub(super) side: Color,
    pub(super) start_fen: Option<String>,
    /// The game's seed (from `--seed`, the `gameId` and the side).
    pub(super) seed: u64,
    /// The transcript entries applied so far.
    pub(super) applied: Vec<WireObservation>,
    pub(super) info: InfoState,
    /// The game's searcher (`None` after a panic, or for the simple players, which are built
    /// afresh every turn so that their choice depends on the request alone).
    pub(super) searcher: Option<Box<dyn Searcher>>,
}

/// A session's state, locked while a request of the session works on it (`None` until its
/// transcript is brought in).
pub(super) type Slot = Arc<Mutex<Option<GameState>>>;

struct CacheEntry {
    slot: Slot,
    used: u64,
}

/// The sessions held, each with the tick of its last use.
#[derive(Default)]
pub(super) struct Cache {
    slots: HashMap<String, CacheEntry>,
    tick: u64,
}

impl Cache {
    /// The number of sessions held.
    pub(super) fn len(&self) -> usize {
        self.slots.len()
    }
}

impl TurnService {
    /// MiB each game's searcher may use.
    pub fn game_hash_mib(&self) -> usize {
        (self.config.hash_mib / self.config.max_games).max(MIN_GAME_HASH_MIB)
    }

    /// The session's slot, created if new (dropping the least recently used games beyond
    /// `max_games`).
    pub(super) fn slot(&self, session: &str, create: bool) -> Option<Slot> {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        cache.tick += 1;
        let tick = cache.tick;
        if let Some(entry) = cache.slots.get_mut(session) {
            entry.used = tick;
            return Some(Arc::clone(&entry.slot));
        }
        if !create {
            return None;
        }
        while cache.slots.len() >= self.config.max_games {
            let oldest = cache.slots.iter().min_by_key(|(_, e)| e.used).map(|(k, _)| k.clone());
            match oldest {
                Some(key) => cache.slots.remove(&key),
                None => break,
            };
        }
        let slot: Slot = Arc::default();
        cache.slots.insert(session.to_string(), CacheEntry { slot: Arc::clone(&slot), used: tick });
        Some(slot)
    }

    /// Drops the session.
    pub(super) fn forget(&self, session: &str) {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner).slots.remove(session);
    }

    /// A fresh searcher for one game (or, for the simple players, one turn).
    pub(super) fn make_searcher(&self, variant: Variant, side: Color, seed: u64) -> Box<dyn Searcher> {
        let mut options = EngineOptions::default();
        options.variant = variant;
        options.player = self.player;
        options.seed = seed & crate::engine::options::SEED_RANGE.1;
        options.threads = self.config.threads;
        options.hash_mib = self.game_hash_mib();
        (options.player_entry().make)(&options.search_config(side))
    }
}
