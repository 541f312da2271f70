//! The command-line arguments of `murk match` and `murk replay`, and what running them does.

use super::clock::TimeControl;
use super::matches::{mix, run_match, MatchConfig, Progress};
use super::openings::read_openings;
use super::record::read_records;
use super::replay::{replay_text, ReplaySide};
use super::spec::EngineSpec;
use super::stats::Sprt;
use crate::core::Variant;
use anyhow::{bail, Context, Result};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `murk match`.
#[derive(clap::Args, Debug, Clone)]
pub struct MatchArgs {
    /// The game: dark-crazyhouse, dark-crossroads or dark-chess.
    #[arg(long)]
    pub variant: Variant,
    /// An engine, given twice: a quoted command line with optional `name=N`, `cmd=PATH`,
    /// `dir=D`, `arg=A` and `option.X=Y` settings (as cutechess), or builtin:random,
    /// builtin:greedy, builtin:murk. The score is reported for the first.
    #[arg(long = "engine", required = true)]
    pub engines: Vec<String>,
    /// Number of games, played in pairs with colors swapped.
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Clock per side in seconds, `base+inc` (e.g. 10+0.1).
    #[arg(long, conflicts_with_all = ["movetime", "nodes"])]
    pub tc: Option<String>,
    /// Fixed time per move in milliseconds (the default, 100, when no limit is given).
    #[arg(long, conflicts_with = "nodes")]
    pub movetime: Option<u64>,
    /// Node budget per move (no clock; the stall limit applies).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Append each game's PGN to this file as it ends.
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Append each game's JSON record (one line per game) to this file as it ends.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Seed for every random choice (openings order, engines' Seed option); random if absent.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Adjudicate a draw after this many plies.
    #[arg(long)]
    pub max_plies: Option<usize>,
    /// Sequential test: `--sprt elo0=0 elo1=10 alpha=0.05 beta=0.05`; stops once decided.
    #[arg(long, num_args = 1..=4, value_delimiter = ' ')]
    pub sprt: Option<Vec<String>>,
    /// Start positions: one FEN or move sequence per line, each played with both colors.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Tolerance in milliseconds on every time limit before a time forfeit.
    #[arg(long, default_value_t = 100)]
    pub time_margin: u64,
    /// Milliseconds an engine may take for the handshake, `isready`, or a node-budget move.
    #[arg(long, default_value_t = 10_000)]
    pub stall_ms: u64,
    /// Hide the progress bar.
    #[arg(long)]
    pub no_progress: bool,
}

/// Arguments of `murk replay`.
#[derive(clap::Args, Debug, Clone)]
pub struct ReplayArgs {
    /// A JSON-lines file written by `murk match --json`.
    pub file: PathBuf,
    /// Whose boards: white, black (red), or truth (the true position).
    #[arg(long, default_value = "truth")]
    pub side: ReplaySide,
    /// Which game of the file, by its game number (default: the first in the file).
    #[arg(long)]
    pub game: Option<usize>,
}

impl MatchArgs {
    /// Checks the arguments and builds the match configuration; built-ins run `murk_exe`.
    pub fn config(&self, murk_exe: &std::path::Path) -> Result<MatchConfig> {
        if self.engines.len() != 2 {
            bail!("give exactly two --engine options (got {})", self.engines.len());
        }
        if self.games == 0 {
            bail!("--games must be at least 1");
        }
        let parse =
            |i: usize| EngineSpec::parse(&self.engines[i], murk_exe).with_context(|| format!("--engine {}", i + 1));
        let tc = match (&self.tc, self.movetime, self.nodes) {
            (Some(tc), _, _) => TimeControl::parse_tc(tc)?,
            (_, Some(ms), _) => TimeControl::MoveTime(ms),
            (_, _, Some(n)) => TimeControl::Nodes(n),
            _ => TimeControl::MoveTime(100),
        };
        let sprt = self.sprt.as_ref().map(|words| Sprt::parse(&words.join(" "))).transpose()?;
        let openings = match &self.openings {
            Some(path) => read_openings(self.variant, path)?,
            None => Vec::new(),
        };
        let seed = self.seed.unwrap_or_else(|| {
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
            mix(nanos as u64 ^ u64::from(std::process::id()))
        });
        Ok(MatchConfig {
            variant: self.variant,
            specs: [parse(0)?, parse(1)?],
            games: self.games,
            tc,
            concurrency: self.concurrency.max(1),
            pgn: self.pgn.clone(),
            json: self.json.clone(),
            seed,
            max_plies: self.max_plies,
            sprt,
            openings,
            margin: Duration::from_millis(self.time_margin),
            stall: Duration::from_millis(self.stall_ms),
            progress: if self.no_progress {
                Progress::Off
            } else if std::io::stderr().is_terminal() {
                Progress::Bar
            } else {
                Progress::Lines
            },
        })
    }
}

/// Runs `murk match`: plays the match and prints the closing lines on stdout.
pub fn run_match_command(args: &MatchArgs) -> Result<()> {
    let exe = std::env::current_exe().context("cannot find the murk binary for built-in engines")?;
    let cfg = args.config(&exe)?;
    if args.seed.is_none() {
        eprintln!("Seed: {} (pass --seed {} to repeat the random choices)", cfg.seed, cfg.seed);
    }
    let summary = run_match(&cfg)?;
    let mut out = std::io::stdout().lock();
    out.write_all(summary.report().as_bytes())?;
    let ends: Vec<String> = summary.terminations.iter().map(|(t, n)| format!("{t} {n}")).collect();
    eprintln!("Terminations: {}", ends.join(", "));
    Ok(())
}

/// Runs `murk replay`: prints the chosen game ply by ply.
pub fn run_replay_command(args: &ReplayArgs) -> Result<()> {
    let records = read_records(&args.file)?;
    let record = match args.game {
        Some(n) => records.iter().find(|r| r.game == n),
        None => records.first(),
    };
    let Some(record) = record else {
        bail!("{} holds no game{}", args.file.display(), args.game.map(|n| format!(" number {n}")).unwrap_or_default());
    };
    std::io::stdout().lock().write_all(replay_text(record, args.side)?.as_bytes())?;
    Ok(())
}
