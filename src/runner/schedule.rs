//! Games over K workers, shared by `murk match` and `murk tournament`. Every engine is started
//! once before any game (so a bad command or handshake is an error up front, and repeated names
//! are made unique), then each worker thread takes the next game still to play, keeps a process
//! per engine it has started (reused across its games, restarted after a crash or hang), and
//! hands every finished game to one consumer on the calling thread.
//!
//! A game's setup depends only on the run's seed and the game's index: game `i` is pair `i / 2`
//! of the schedule, its first engine White when `i` is even; both games of a pair share the
//! opening and the engines' seeds, colors swapped. So a resumed run plays the same games.

use super::clock::TimeControl;
use super::contestant::{launch, Contestant};
use super::line_engine::EngineInit;
use super::referee::{play_game, unstarted_game, GameResult, GameSetup};
use super::spec::{unique_name, EngineSpec};
use crate::core::hash::derive_seed;
use crate::core::{Color, Variant};
use crate::rules::Position;
use crate::shard::Shard;
use anyhow::{Context, Result};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::time::Duration;

/// How long an engine may take to quit at the end before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(200);

/// What every game of a run shares, and where its results go (the same for match and tournament).
#[derive(Clone, Debug)]
pub struct GameConfig {
    /// The game.
    pub variant: Variant,
    /// The time control (an engine's own `st=`/`tc=` overrides it).
    pub tc: TimeControl,
    /// Games played at once.
    pub concurrency: usize,
    /// PGN file to append to.
    pub pgn: Option<PathBuf>,
    /// JSON-lines file to append to.
    pub json: Option<PathBuf>,
    /// The seed every random choice follows from.
    pub seed: u64,
    /// Adjudicate a draw after this many plies.
    pub max_plies: Option<usize>,
    /// Start positions, used pair by pair (in an order shuffled by the seed); empty for the start.
    pub openings: Vec<Position>,
    /// Tolerance on every time limit.
    pub margin: Duration,
    /// Limit for handshakes, `isready`, and moves under a node budget.
    pub stall: Duration,
    /// How to show progress on stderr.
    pub progress: Progress,
    /// The part of the run's pairs of games this process plays.
    pub shard: Shard,
}

/// How a run shows its progress on stderr.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Progress {
    /// A live progress bar, with a line per finished game above it.
    Bar,
    /// A plain line per finished game with the running standing (when stderr is not a terminal).
    Lines,
    /// Nothing.
    Off,
}

/// The engines of a run: started once and checked, with their final (unique) names.
pub struct Lineup {
    specs: Vec<EngineSpec>,
    inits: Vec<EngineInit>,
    names: Vec<String>,
    first: Vec<Option<Box<dyn Contestant>>>,
}

impl Lineup {
    /// Starts every engine of `specs` once and completes its handshake; an engine that cannot
    /// start is an error naming it. A name already taken gets `-2`, `-3`, ... appended.
    pub fn start(specs: Vec<EngineSpec>, variant: Variant, stall: Duration) -> Result<Lineup> {
        let mut inits: Vec<EngineInit> = specs.iter().map(|s| EngineInit::from_spec(s, variant, stall)).collect();
        let mut names: Vec<String> = Vec::new();
        let mut first = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let handle = launch(spec, &inits[i])
                .with_context(|| format!("cannot start engine {} ({})", i + 1, spec.describe()))?;
            for warning in handle.warnings() {
                eprintln!("warning: engine {} ({}) said during the handshake: {warning}", i + 1, handle.name());
            }
            let name = unique_name(handle.name(), &names);
            if name == handle.name() {
                first.push(Some(handle));
            } else {
                eprintln!("note: engine {} is also called {}: it is shown as {name}", i + 1, handle.name());
                // Restarted under its new name by the worker that first needs it.
                handle.shutdown(QUIT_GRACE);
                first.push(None);
            }
            inits[i].name = Some(name.clone());
            names.push(name);
        }
        Ok(Lineup { specs, inits, names, first })
    }

    /// The engines' names, in the order of the specs.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// Which engines play each game: game `i` is played by pairing `i / 2`, its first engine White
/// when `i` is even.
#[derive(Clone, Debug)]
pub struct Schedule {
    pairings: Vec<[usize; 2]>,
    games: usize,
}

impl Schedule {
    /// `games` games over `pairings` (at most two games per pairing entry).
    pub fn new(pairings: Vec<[usize; 2]>, games: usize) -> Schedule {
        let games = games.min(pairings.len() * 2);
        Schedule { pairings, games }
    }

    /// Number of games.
    pub fn len(&self) -> usize {
        self.games
    }

    /// True if there is no game.
    pub fn is_empty(&self) -> bool {
        self.games == 0
    }

    /// The engines (indexes into the lineup) playing White and Black in game `index` (from 0).
    pub fn players(&self, index: usize) -> [usize; 2] {
        let [a, b] = self.pairings[index / 2];
        if index.is_multiple_of(2) {
            [a, b]
        } else {
            [b, a]
        }
    }
}

/// The setup of every game of a schedule, from the run's seed alone.
struct Setups<'a> {
    cfg: &'a GameConfig,
    specs: &'a [EngineSpec],
    opening_order: Vec<usize>,
}

impl Setups<'_> {
    fn new<'a>(cfg: &'a GameConfig, specs: &'a [EngineSpec]) -> Setups<'a> {
        let mut opening_order: Vec<usize> = (0..cfg.openings.len()).collect();
        opening_order.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(cfg.seed));
        Setups { cfg, specs, opening_order }
    }

    /// The setup of game `index` (from 0) played by `players` (White, Black).
    fn setup(&self, index: usize, players: [usize; 2]) -> GameSetup {
        let cfg = self.cfg;
        let pair = index / 2;
        let start = match self.opening_order.len() {
            0 => Position::start(cfg.variant),
            n => cfg.openings[self.opening_order[pair % n]].clone(),
        };
        // 63 bits: UCI spin options are signed 64-bit numbers.
        let engine_seed = |slot: u64| derive_seed(cfg.seed, pair as u64 * 2 + slot) >> 1;
        let seeds =
            if index.is_multiple_of(2) { [engine_seed(0), engine_seed(1)] } else { [engine_seed(1), engine_seed(0)] };
        GameSetup {
            game: index + 1,
            pair: pair + 1,
            start,
            tc: players.map(|p| self.specs[p].tc.unwrap_or(cfg.tc)),
            margin: cfg.margin,
            stall: cfg.stall,
            max_plies: cfg.max_plies,
            seeds,
        }
    }
}

/// What the workers share.
struct Shared<'a> {
    specs: &'a [EngineSpec],
    inits: &'a [EngineInit],
    names: &'a [String],
    setups: Setups<'a>,
    schedule: &'a Schedule,
    pending: &'a [usize],
    next: AtomicUsize,
    stop: AtomicBool,
}

/// Plays the games of `schedule` whose indexes are in `pending`, `cfg.concurrency` at once, and
/// passes each finished game (with its players) to `on_game` as it ends. When `on_game` returns
/// true no further game is started (those running are finished and passed on); an error stops
/// the run and is returned.
pub fn play_games(
    cfg: &GameConfig,
    lineup: Lineup,
    schedule: &Schedule,
    pending: &[usize],
    mut on_game: impl FnMut([usize; 2], GameResult) -> Result<bool>,
) -> Result<()> {
    let Lineup { specs, inits, names, first } = lineup;
    let shared = Shared {
        specs: &specs,
        inits: &inits,
        names: &names,
        setups: Setups::new(cfg, &specs),
        schedule,
        pending,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
    };
    let workers = cfg.concurrency.clamp(1, pending.len().max(1));
    let mut first_slots = Some(first);
    std::thread::scope(|scope| -> Result<()> {
        let (tx, rx) = mpsc::channel();
        for w in 0..workers {
            let slots = match first_slots.take().filter(|_| w == 0) {
                Some(handles) => handles,
                None => (0..specs.len()).map(|_| None).collect(),
            };
            let tx = tx.clone();
            let shared = &shared;
            scope.spawn(move || worker(shared, tx, slots));
        }
        drop(tx);
        for (players, result) in rx {
            match on_game(players, result) {
                Ok(true) => shared.stop.store(true, Ordering::Relaxed),
                Ok(false) => {}
                Err(e) => {
                    shared.stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        Ok(())
    })
}

/// Plays games until none are left or the run stops; `slots` holds a process per engine.
fn worker(shared: &Shared, tx: Sender<([usize; 2], GameResult)>, mut slots: Vec<Option<Box<dyn Contestant>>>) {
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            break;
        }
        let Some(&index) = shared.pending.get(shared.next.fetch_add(1, Ordering::Relaxed)) else { break };
        let players = shared.schedule.players(index);
        let setup = shared.setups.setup(index, players);
        let result = play_one(shared, &mut slots, &setup, players);
        for color in Color::ALL {
            if result.restart[color.index()] {
                slots[players[color.index()]] = None;
            }
        }
        if tx.send((players, result)).is_err() {
            break;
        }
    }
    for handle in slots.into_iter().flatten() {
        handle.shutdown(QUIT_GRACE);
    }
}

/// Plays one game between `players` (White, Black), first (re)starting either if not running.
fn play_one(
    shared: &Shared,
    slots: &mut [Option<Box<dyn Contestant>>],
    setup: &GameSetup,
    players: [usize; 2],
) -> GameResult {
    for color in Color::ALL {
        let engine = players[color.index()];
        let slot = &mut slots[engine];
        if slot.as_mut().is_some_and(|h| !h.alive()) {
            *slot = None;
        }
        if slot.is_none() {
            match launch(&shared.specs[engine], &shared.inits[engine]) {
                Ok(handle) => *slot = Some(handle),
                Err(e) => {
                    let names = players.map(|p| shared.names[p].clone());
                    return unstarted_game(setup, names, color, e.failure(), &e.to_string());
                }
            }
        }
    }
    let [white, black] = players;
    // Two distinct slots: a schedule never pairs an engine with itself.
    let (low, high) = slots.split_at_mut(white.max(black));
    let (Some(lower), Some(upper)) = (low[white.min(black)].as_mut(), high[0].as_mut()) else {
        unreachable!("both engines were just started")
    };
    let engines: [&mut dyn Contestant; 2] =
        if white < black { [lower.as_mut(), upper.as_mut()] } else { [upper.as_mut(), lower.as_mut()] };
    play_game(setup, engines)
}
