//! A tournament of many engines on the match machinery ([`schedule`](super::schedule)):
//! round robin or gauntlet, rounds of color-swapped pairs, a live standing, the final crosstable
//! and rating list, and `--resume` from the JSON records after an interruption.
//!
//! The JSON-lines record file is the tournament's state: each game's number fixes who plays it
//! and its opening and seeds, so a resumed run plays exactly the games missing from the file,
//! and the shards of a tournament (`--shard K/N`) play disjoint parts of it.

use super::outputs::{pending_games, resumed_games, ProgressView, RecordFiles};
use super::referee::GameResult;
use super::schedule::{play_games, GameConfig, Lineup, Schedule};
use super::spec::EngineSpec;
use super::standings::{anchor_index, Standings, Tally};
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::PathBuf;

/// Who plays whom.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Format {
    /// Every engine plays every other.
    RoundRobin,
    /// The first engine plays each of the others.
    Gauntlet,
}

/// Everything a tournament needs.
#[derive(Clone, Debug)]
pub struct TournamentConfig {
    /// What every game shares and where the records go.
    pub games_cfg: GameConfig,
    /// The engines.
    pub specs: Vec<EngineSpec>,
    /// Who plays whom.
    pub format: Format,
    /// Rounds: each round every pairing plays `games_per_pair` games.
    pub rounds: usize,
    /// Games per pairing and round (even: color-swapped pairs).
    pub games_per_pair: usize,
    /// Continue from the games already in the JSON file.
    pub resume: bool,
    /// The engine rated 0 (else the mean is 0).
    pub anchor: Option<String>,
    /// Show the standing on stderr every this many games (0: only at the end).
    pub report_every: usize,
    /// Write the final standing as JSON here.
    pub summary: Option<PathBuf>,
}

/// The pairings of `format` among `n` engines, in order.
pub fn pairings(format: Format, n: usize) -> Vec<[usize; 2]> {
    match format {
        Format::RoundRobin => (0..n).flat_map(|a| (a + 1..n).map(move |b| [a, b])).collect(),
        Format::Gauntlet => (1..n).map(|b| [0, b]).collect(),
    }
}

/// The schedule: round by round, every pairing's games in a row (pairs of colors swapped).
pub fn schedule(format: Format, n: usize, rounds: usize, games_per_pair: usize) -> Schedule {
    let per_round = pairings(format, n);
    let mut pairs = Vec::new();
    for _ in 0..rounds {
        for p in &per_round {
            pairs.extend(std::iter::repeat_n(*p, games_per_pair / 2));
        }
    }
    let games = pairs.len() * 2;
    Schedule::new(pairs, games)
}

/// Plays (or resumes) a tournament; returns the final standing.
pub fn run_tournament(cfg: &TournamentConfig) -> Result<Standings> {
    let common = &cfg.games_cfg;
    if cfg.resume && common.json.is_none() {
        bail!("--resume needs --json: the record file is the tournament's state");
    }
    if let (false, Some(path)) = (cfg.resume, &common.json) {
        if std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
            bail!(
                "{} already holds games: pass --resume to continue that tournament, or name another file",
                path.display()
            );
        }
    }
    let lineup = Lineup::start(cfg.specs.clone(), common.variant, common.stall)?;
    let names = lineup.names().to_vec();
    let anchor = anchor_index(cfg.anchor.as_deref(), &names)?;
    let schedule = schedule(cfg.format, names.len(), cfg.rounds, cfg.games_per_pair);
    let mut tally = Tally::new(&names);
    let resumed = if cfg.resume { resumed_games(common, &schedule, &names)? } else { Vec::new() };
    for (index, record) in &resumed {
        tally.add(schedule.players(*index), record);
    }
    let pending = pending_games(common, &schedule, &resumed);
    let total = pending.len() + resumed.len();
    let mut files = RecordFiles::open(&common.pgn, &common.json)?;
    let view = ProgressView::new(common.progress, resumed.len(), total, leader_text(&tally));
    play_games(common, lineup, &schedule, &pending, |players, result: GameResult| {
        files.write(&result.record)?;
        tally.add(players, &result.record);
        view.game(&result.record, leader_text(&tally));
        let n = tally.games() as usize;
        if cfg.report_every > 0 && n.is_multiple_of(cfg.report_every) && n < total {
            view.note(&format!("Standing after {n} games:\n{}", tally.standings(anchor).table_text()));
        }
        Ok(false)
    })?;
    view.finish();
    let standings = tally.standings(anchor);
    if let Some(path) = &cfg.summary {
        let text = serde_json::to_string_pretty(&standings).context("cannot write the summary")?;
        let mut f = std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        writeln!(f, "{text}").with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(standings)
}

/// The progress bar's message: the leader by score so far.
fn leader_text(tally: &Tally) -> String {
    match tally.leader() {
        Some((name, pct, games)) => format!("leader {name} {pct:.1}% of {games}"),
        None => "no game yet".to_string(),
    }
}
