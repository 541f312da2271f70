//! The command-line arguments of `murk match`, `murk tournament` and `murk replay`, and what
//! running them (and `murk results`) does.

use super::clock::TimeControl;
use super::matches::{run_match, MatchConfig, MatchSummary};
use super::openings::read_openings;
use super::record::read_records;
use super::replay::{replay_text, ReplaySide};
use super::replay_html::replay_html;
use super::results::{results, ResultsArgs, RunResults};
use super::schedule::{GameConfig, Progress};
use super::spec::{assign_logs, EngineSpec};
use super::standings::Standings;
use super::stats::Sprt;
use super::tournament::{run_tournament, Format, TournamentConfig};
use crate::core::hash::mix64;
use crate::core::Variant;
use crate::shard::Shard;
use anyhow::{bail, Context, Result};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

/// The arguments `murk match` and `murk tournament` share: the game, time, files, seed.
#[derive(clap::Args, Debug, Clone)]
pub struct GameArgs {
    /// The game: dark-crazyhouse, dark-crossroads or dark-chess.
    #[arg(long)]
    pub variant: Variant,
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
    /// Start positions: one FEN or move sequence per line, each played with both colors.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Tolerance in milliseconds on every time limit before a time forfeit.
    #[arg(long, default_value_t = 100)]
    pub time_margin: u64,
    /// Milliseconds an engine may take for the handshake, `isready`, or a node-budget move.
    #[arg(long, default_value_t = 10_000)]
    pub stall_ms: u64,
    /// Keep each engine's stderr in `DIR/<label>.log` (label: its `name=`, built-in kind or program
    /// file name); an engine's own `stderr=FILE` setting wins.
    #[arg(long, value_name = "DIR")]
    pub engine_log: Option<PathBuf>,
    /// Hide the progress bar.
    #[arg(long)]
    pub no_progress: bool,
    /// Play only part K of N of the run: its pairs of games numbered K, K+N, ... (from 0), with
    /// the openings and seeds the whole run gives them. `murk results` reads the record files
    /// of all N as one run.
    #[arg(long, default_value_t = Shard::WHOLE)]
    pub shard: Shard,
}

/// Arguments of `murk match`.
#[derive(clap::Args, Debug, Clone)]
pub struct MatchArgs {
    /// An engine, given twice: a quoted command line with optional `name=N`, `cmd=PATH`,
    /// `dir=D`, `arg=A`, `stderr=FILE` and `option.X=Y` settings (as cutechess), or
    /// builtin:random, builtin:greedy, builtin:murk. The score is reported for the first.
    #[arg(long = "engine", required = true)]
    pub engines: Vec<String>,
    /// Number of games, played in pairs with colors swapped.
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Sequential test: `--sprt elo0=0 elo1=10 alpha=0.05 beta=0.05`; stops once decided.
    #[arg(long, num_args = 1..=4, value_delimiter = ' ')]
    pub sprt: Option<Vec<String>>,
    /// Continue the match recorded in --json: play only the games missing from it (needs the
    /// same arguments, --seed included).
    #[arg(long)]
    pub resume: bool,
    /// The game, time, files and seed.
    #[command(flatten)]
    pub common: GameArgs,
}

/// Arguments of `murk tournament`.
#[derive(clap::Args, Debug, Clone)]
pub struct TournamentArgs {
    /// An engine, at least twice (same specs as `murk match`). Names that repeat get -2, -3, ...
    #[arg(long = "engine", required = true)]
    pub engines: Vec<String>,
    /// round-robin (everyone plays everyone) or gauntlet (the first engine plays each other).
    #[arg(long, value_enum, default_value_t = Format::RoundRobin)]
    pub format: Format,
    /// Rounds; in each, every pairing plays --games-per-pair games.
    #[arg(long, default_value_t = 1)]
    pub rounds: usize,
    /// Games per pairing and round: an even number (pairs with colors swapped).
    #[arg(long, default_value_t = 2)]
    pub games_per_pair: usize,
    /// Continue the tournament recorded in --json: play only the games missing from it (needs
    /// the same arguments, --seed included).
    #[arg(long)]
    pub resume: bool,
    /// The engine rated 0 (by default the mean rating is 0).
    #[arg(long)]
    pub anchor: Option<String>,
    /// Also print the crosstable and ratings on stderr every N games.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub report_every: usize,
    /// Write the final standing (ratings, crosstable, engines' conduct) as JSON to this file.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// The game, time, files and seed.
    #[command(flatten)]
    pub common: GameArgs,
}

/// Arguments of `murk replay`.
#[derive(clap::Args, Debug, Clone)]
pub struct ReplayArgs {
    /// A JSON-lines file written by `murk match --json` or `murk tournament --json`.
    pub file: PathBuf,
    /// Whose boards: white, black (red), or truth (the true position).
    #[arg(long, default_value = "truth")]
    pub side: ReplaySide,
    /// Which game of the file, by its game number (default: the first in the file).
    #[arg(long)]
    pub game: Option<usize>,
    /// Write the game as one self-contained HTML page to this file instead: the true position
    /// and both sides' views side by side, ply by ply, with the engines' info lines (--side is
    /// not used).
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
}

impl GameArgs {
    /// Checks the arguments and builds the shared configuration.
    pub fn config(&self) -> Result<GameConfig> {
        let tc = match (&self.tc, self.movetime, self.nodes) {
            (Some(tc), _, _) => TimeControl::parse_tc(tc)?,
            (_, Some(ms), _) => TimeControl::MoveTime(ms),
            (_, _, Some(n)) => TimeControl::Nodes(n),
            _ => TimeControl::MoveTime(100),
        };
        let openings = match &self.openings {
            Some(path) => read_openings(self.variant, path)?,
            None => Vec::new(),
        };
        let seed = self.seed.unwrap_or_else(|| {
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
            mix64(nanos as u64 ^ u64::from(std::process::id()))
        });
        Ok(GameConfig {
            variant: self.variant,
            tc,
            concurrency: self.concurrency.max(1),
            pgn: self.pgn.clone(),
            json: self.json.clone(),
            seed,
            max_plies: self.max_plies,
            openings,
            margin: Duration::from_millis(self.time_margin),
            stall: Duration::from_millis(self.stall_ms),
            shard: self.shard,
            progress: if self.no_progress {
                Progress::Off
            } else if std::io::stderr().is_terminal() {
                Progress::Bar
            } else {
                Progress::Lines
            },
        })
    }

    /// Parses the `--engine` specs (built-ins run `murk_exe`) and gives them their stderr logs.
    /// A Mistboard engine needs a time to move (its protocol has no node budget): under
    /// `--nodes` it must have its own `st=` or `tc=`.
    pub fn specs(&self, engines: &[String], murk_exe: &std::path::Path, tc: TimeControl) -> Result<Vec<EngineSpec>> {
        let mut specs = engines
            .iter()
            .enumerate()
            .map(|(i, text)| EngineSpec::parse(text, murk_exe).with_context(|| format!("--engine {}", i + 1)))
            .collect::<Result<Vec<_>>>()?;
        for (i, spec) in specs.iter().enumerate() {
            if spec.protocol.is_mistboard() && matches!(spec.tc.unwrap_or(tc), TimeControl::Nodes(_)) {
                bail!(
                    "--engine {}: a Mistboard engine is given a time, not nodes: add st=<seconds> to its spec",
                    i + 1
                );
            }
        }
        if let Some(dir) = &self.engine_log {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create --engine-log {}", dir.display()))?;
            assign_logs(&mut specs, dir);
        }
        Ok(specs)
    }

    /// Tells the user the seed when it was drawn.
    fn announce_seed(&self, cfg: &GameConfig) {
        if self.seed.is_none() {
            eprintln!("Seed: {} (pass --seed {} to repeat the random choices)", cfg.seed, cfg.seed);
        }
    }
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
        let games_cfg = self.common.config()?;
        let [a, b]: [EngineSpec; 2] = self
            .common
            .specs(&self.engines, murk_exe, games_cfg.tc)?
            .try_into()
            .map_err(|_| anyhow::anyhow!("give exactly two --engine options"))?;
        let sprt = self.sprt.as_ref().map(|words| Sprt::parse(&words.join(" "))).transpose()?;
        if sprt.is_some() && !self.common.shard.is_whole() {
            bail!("--sprt stops a match once decided, which one shard cannot: play the shards without it and run `murk results --sprt ...` on their records");
        }
        if self.resume && self.common.seed.is_none() {
            bail!("--resume needs the --seed of the interrupted run (it printed it at the start)");
        }
        Ok(MatchConfig { games_cfg, specs: [a, b], games: self.games, sprt, resume: self.resume })
    }
}

impl TournamentArgs {
    /// Checks the arguments and builds the tournament configuration; built-ins run `murk_exe`.
    pub fn config(&self, murk_exe: &std::path::Path) -> Result<TournamentConfig> {
        if self.engines.len() < 2 {
            bail!("a tournament needs at least two --engine options (got {})", self.engines.len());
        }
        if self.rounds == 0 {
            bail!("--rounds must be at least 1");
        }
        if self.games_per_pair == 0 || !self.games_per_pair.is_multiple_of(2) {
            bail!(
                "--games-per-pair must be a positive even number (pairs with colors swapped), not {}",
                self.games_per_pair
            );
        }
        if self.resume && self.common.seed.is_none() {
            bail!("--resume needs the --seed of the interrupted run (it printed it at the start)");
        }
        let games_cfg = self.common.config()?;
        Ok(TournamentConfig {
            specs: self.common.specs(&self.engines, murk_exe, games_cfg.tc)?,
            games_cfg,
            format: self.format,
            rounds: self.rounds,
            games_per_pair: self.games_per_pair,
            resume: self.resume,
            anchor: self.anchor.clone(),
            report_every: self.report_every,
            summary: self.summary.clone(),
        })
    }
}

/// Runs `murk match`: plays the match and prints the closing lines on stdout.
pub fn run_match_command(args: &MatchArgs) -> Result<()> {
    let exe = std::env::current_exe().context("cannot find the murk binary for built-in engines")?;
    let cfg = args.config(&exe)?;
    args.common.announce_seed(&cfg.games_cfg);
    print_match(&run_match(&cfg)?)
}

/// Prints a match's closing lines on stdout and its terminations on stderr.
fn print_match(summary: &MatchSummary) -> Result<()> {
    std::io::stdout().lock().write_all(summary.report().as_bytes())?;
    let ends: Vec<String> = summary.terminations.iter().map(|(t, n)| format!("{t} {n}")).collect();
    eprintln!("Terminations: {}", ends.join(", "));
    Ok(())
}

/// Prints a tournament's crosstable, ratings and conduct on stdout.
fn print_standings(standings: &Standings) -> Result<()> {
    writeln!(std::io::stdout().lock(), "{}\n{}", standings.table_text(), standings.conduct_text())?;
    Ok(())
}

/// Runs `murk results`: prints what the run of the record files printed (or would have).
pub fn run_results_command(args: &ResultsArgs) -> Result<()> {
    match results(args)? {
        RunResults::Match(summary) => print_match(&summary),
        RunResults::Tournament(standings) => print_standings(&standings),
    }
}

/// Runs `murk tournament`: plays (or resumes) it and prints the crosstable, the ratings and the
/// engines' conduct on stdout.
pub fn run_tournament_command(args: &TournamentArgs) -> Result<()> {
    let exe = std::env::current_exe().context("cannot find the murk binary for built-in engines")?;
    let cfg = args.config(&exe)?;
    args.common.announce_seed(&cfg.games_cfg);
    print_standings(&run_tournament(&cfg)?)
}

/// Runs `murk replay`: prints the chosen game ply by ply, or writes it as an HTML page.
pub fn run_replay_command(args: &ReplayArgs) -> Result<()> {
    let records = read_records(&args.file)?;
    let record = match args.game {
        Some(n) => records.iter().find(|r| r.game == n),
        None => records.first(),
    };
    let Some(record) = record else {
        bail!("{} holds no game{}", args.file.display(), args.game.map(|n| format!(" number {n}")).unwrap_or_default());
    };
    match &args.html {
        Some(out) => {
            let page = replay_html(record)?;
            std::fs::write(out, page).with_context(|| format!("cannot write {}", out.display()))?;
            eprintln!("Wrote game {} ({} plies) to {}", record.game, record.moves.len(), out.display());
        }
        None => std::io::stdout().lock().write_all(replay_text(record, args.side)?.as_bytes())?,
    }
    Ok(())
}
