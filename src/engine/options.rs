//! The engine's options (`setoption name <N> value <V>`) and their `option ...` lines for `uci`.
//!
//! Names are matched without regard to case, as UCI asks; combo values too, and are stored in
//! their canonical spelling.

use super::players::{players, PlayerEntry};
use crate::core::{Color, Variant};
use crate::eval::net::Net;
use crate::eval::Evaluator;
use crate::search::Mode;
use crate::search::SearchConfig;
use std::path::Path;
use std::sync::Arc;

/// The values of the `Eval` option, the hand evaluation first.
const EVALS: [&str; 2] = ["hand", "net"];
/// The `EvalFile` value that stands for the game's built-in net.
pub const BUILTIN_NET: &str = "<builtin>";

/// Bounds of the `Threads` option.
pub const THREADS_RANGE: (u64, u64) = (1, 256);
/// Bounds of the `Hash` option, in MiB.
pub const HASH_RANGE: (u64, u64) = (1, 65536);
/// Bounds of the `Seed` option (the largest value a signed 64-bit spin can carry).
pub const SEED_RANGE: (u64, u64) = (0, i64::MAX as u64);
/// Bounds of the `Move Overhead` option, in milliseconds.
pub const OVERHEAD_RANGE: (u64, u64) = (0, 5000);

/// The current value of every option.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// `UCI_Variant`.
    pub variant: Variant,
    /// `Player`: an index into [`EngineOptions::players`].
    pub player: usize,
    /// `Seed`.
    pub seed: u64,
    /// `Threads`.
    pub threads: usize,
    /// `Hash`, in MiB.
    pub hash_mib: usize,
    /// `Move Overhead`, in milliseconds.
    pub move_overhead_ms: u64,
    /// `Search`: alpha-beta per world (the default), PIMC or ISMCTS.
    pub search_mode: Mode,
    /// `Eval`: the net (true) or the hand-written evaluation.
    pub use_net: bool,
    /// `EvalFile`: nets loaded from files, with the paths they came from, one slot per game
    /// (indexed like [`Variant::ALL`]; `None`: that game's built-in net).
    pub eval_files: [Option<(String, Arc<Net>)>; 3],
    /// The values `Player` may take (the first is the default).
    pub players: Vec<PlayerEntry>,
}

/// Which option a successful `setoption` changed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OptionName {
    /// `UCI_Variant`.
    Variant,
    /// `Player`.
    Player,
    /// `Seed`.
    Seed,
    /// `Threads`.
    Threads,
    /// `Hash`.
    Hash,
    /// `Move Overhead`.
    MoveOverhead,
    /// `Search`.
    Search,
    /// `Eval`.
    Eval,
    /// `EvalFile`.
    EvalFile,
}

/// A `setoption` that cannot be applied (nothing is changed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// No option has this name.
    #[error("unknown option '{0}'")]
    Unknown(String),
    /// The option needs a value and none was given.
    #[error("option '{0}' needs a value")]
    MissingValue(&'static str),
    /// The value is not one the option accepts.
    #[error("option '{name}' does not accept '{value}' (expected {expected})")]
    BadValue {
        /// The option.
        name: &'static str,
        /// The value given.
        value: String,
        /// What is accepted.
        expected: String,
    },
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions::with_players(players())
    }
}

impl EngineOptions {
    /// The default options with a given list of players (tests and `murk uci-fog` plug in their
    /// own searchers).
    pub fn with_players(players: Vec<PlayerEntry>) -> EngineOptions {
        assert!(!players.is_empty(), "at least one player");
        EngineOptions {
            variant: Variant::DarkCrazyhouse,
            player: 0,
            seed: 0,
            threads: 1,
            hash_mib: 320,
            move_overhead_ms: 30,
            search_mode: Mode::default(),
            use_net: true,
            eval_files: [None, None, None],
            players,
        }
    }

    /// The selected player.
    pub fn player_entry(&self) -> &PlayerEntry {
        &self.players[self.player]
    }

    /// The searcher configuration for a game in which the engine plays `side`.
    pub fn search_config(&self, side: Color) -> SearchConfig {
        SearchConfig {
            variant: self.variant,
            side,
            seed: self.seed,
            threads: self.threads,
            hash_mib: self.hash_mib,
            mode: self.search_mode,
            eval: self.evaluator(),
        }
    }

    /// What values the leaves under `Eval` and `EvalFile`: the net loaded for the game being
    /// played, else the game's built-in net.
    pub fn evaluator(&self) -> Evaluator {
        if !self.use_net {
            return Evaluator::Hand;
        }
        match &self.eval_files[variant_slot(self.variant)] {
            Some((_, net)) => Evaluator::Net(Arc::clone(net)),
            None => Evaluator::Net(Net::builtin(self.variant)),
        }
    }

    /// The `option ...` lines of the `uci` reply, defaults shown (not current values).
    pub fn uci_lines(&self) -> Vec<String> {
        let defaults = EngineOptions::with_players(self.players.clone());
        let variants: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        let players: Vec<&str> = self.players.iter().map(|p| p.name).collect();
        let spin = |name: &str, default: u64, (min, max): (u64, u64)| {
            format!("option name {name} type spin default {default} min {min} max {max}")
        };
        vec![
            combo("UCI_Variant", defaults.variant.name(), &variants),
            combo("Player", players[0], &players),
            spin("Seed", defaults.seed, SEED_RANGE),
            spin("Threads", defaults.threads as u64, THREADS_RANGE),
            spin("Hash", defaults.hash_mib as u64, HASH_RANGE),
            spin("Move Overhead", defaults.move_overhead_ms, OVERHEAD_RANGE),
            combo("Search", defaults.search_mode.name(), &Mode::ALL.map(Mode::name)),
            combo("Eval", EVALS[usize::from(defaults.use_net)], &EVALS),
            format!("option name EvalFile type string default {BUILTIN_NET}"),
        ]
    }

    /// Applies `setoption name <name> value <value>`; on error nothing changes.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<OptionName, OptionError> {
        let key = name.to_ascii_lowercase();
        let option = match key.as_str() {
            "uci_variant" => OptionName::Variant,
            "player" => OptionName::Player,
            "seed" => OptionName::Seed,
            "threads" => OptionName::Threads,
            "hash" => OptionName::Hash,
            "move overhead" => OptionName::MoveOverhead,
            "search" => OptionName::Search,
            "eval" => OptionName::Eval,
            "evalfile" => OptionName::EvalFile,
            _ => return Err(OptionError::Unknown(name.to_string())),
        };
        let canonical = option.canonical();
        let value = value.ok_or(OptionError::MissingValue(canonical))?;
        match option {
            OptionName::Variant => {
                let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
                self.variant = Variant::ALL[combo_index(canonical, value, &names)?];
            }
            OptionName::Player => {
                let names: Vec<&str> = self.players.iter().map(|p| p.name).collect();
                self.player = combo_index(canonical, value, &names)?;
            }
            OptionName::Seed => self.seed = spin_value(canonical, value, SEED_RANGE)?,
            OptionName::Threads => self.threads = spin_value(canonical, value, THREADS_RANGE)? as usize,
            OptionName::Hash => self.hash_mib = spin_value(canonical, value, HASH_RANGE)? as usize,
            OptionName::MoveOverhead => self.move_overhead_ms = spin_value(canonical, value, OVERHEAD_RANGE)?,
            OptionName::Search => {
                self.search_mode = Mode::ALL[combo_index(canonical, value, &Mode::ALL.map(Mode::name))?];
            }
            OptionName::Eval => self.use_net = combo_index(canonical, value, &EVALS)? == 1,
            OptionName::EvalFile if value == BUILTIN_NET => self.eval_files = [None, None, None],
            OptionName::EvalFile => {
                let net = Net::load(Path::new(value)).map_err(|e| OptionError::BadValue {
                    name: canonical,
                    value: value.to_string(),
                    expected: format!("a Murk net file: {e}"),
                })?;
                let slot = variant_slot(net.variant);
                self.eval_files[slot] = Some((value.to_string(), Arc::new(net)));
            }
        }
        Ok(option)
    }
}

impl OptionName {
    /// The name as `uci` lists it.
    pub fn canonical(self) -> &'static str {
        match self {
            OptionName::Variant => "UCI_Variant",
            OptionName::Player => "Player",
            OptionName::Seed => "Seed",
            OptionName::Threads => "Threads",
            OptionName::Hash => "Hash",
            OptionName::MoveOverhead => "Move Overhead",
            OptionName::Search => "Search",
            OptionName::Eval => "Eval",
            OptionName::EvalFile => "EvalFile",
        }
    }
}

/// The index of `variant` in [`Variant::ALL`].
fn variant_slot(variant: Variant) -> usize {
    Variant::ALL.iter().position(|&v| v == variant).expect("every variant is in ALL")
}

fn combo(name: &str, default: &str, vars: &[&str]) -> String {
    let mut line = format!("option name {name} type combo default {default}");
    for v in vars {
        line.push_str(" var ");
        line.push_str(v);
    }
    line
}

fn combo_index(name: &'static str, value: &str, vars: &[&str]) -> Result<usize, OptionError> {
    vars.iter().position(|v| v.eq_ignore_ascii_case(value)).ok_or_else(|| OptionError::BadValue {
        name,
        value: value.to_string(),
        expected: format!("one of {}", vars.join(", ")),
    })
}

fn spin_value(name: &'static str, value: &str, (min, max): (u64, u64)) -> Result<u64, OptionError> {
    value.parse::<u64>().ok().filter(|v| (min..=max).contains(v)).ok_or_else(|| OptionError::BadValue {
        name,
        value: value.to_string(),
        expected: format!("an integer from {min} to {max}"),
    })
}
