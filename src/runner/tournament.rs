//! A tournament of many engines on the match machinery ([`schedule`](super::schedule)):
//! round robin or gauntlet, rounds of color-swapped pairs, a live standing, the final crosstable
//! and rating list, and `--resume` from the JSON records after an interruption.
//!
//! The JSON-lines record file is the tournament's state: each game's number fixes who plays it
//! and its opening and seeds, so a resumed run plays exactly the games missing from the file.

use super::outputs::{ProgressView, RecordFiles};
use super::record::GameRecord;
use super::referee::GameResult;
use super::schedule::{play_games, GameConfig, Lineup, Schedule};
use super::spec::EngineSpec;
use super::standings::{Standings, Tally};
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

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
    let anchor = match &cfg.anchor {
        Some(a) => Some(
            names
                .iter()
                .position(|n| n == a)
                .with_context(|| format!("--anchor {a} is none of the engines ({})", names.join(", ")))?,
        ),
        None => None,
    };
    let schedule = schedule(cfg.format, names.len(), cfg.rounds, cfg.games_per_pair);
    let mut tally = Tally::new(&names);
    let mut done = vec![false; schedule.len()];
    if let (true, Some(path)) = (cfg.resume, &common.json) {
        for record in resume_state(path)? {
            let index = check_resumed(&record, &schedule, &names, common, &done)?;
            tally.add(schedule.players(index), &record);
            done[index] = true;
        }
    }
    let pending: Vec<usize> = (0..schedule.len()).filter(|&i| !done[i]).collect();
    let played = schedule.len() - pending.len();
    if played > 0 {
        eprintln!("Resuming: {played} of {} games already played, {} to go", schedule.len(), pending.len());
    }
    let mut files = RecordFiles::open(&common.pgn, &common.json)?;
    let view = ProgressView::new(common.progress, played, schedule.len(), leader_text(&tally));
    play_games(common, lineup, &schedule, &pending, |players, result: GameResult| {
        files.write(&result.record)?;
        tally.add(players, &result.record);
        view.game(&result.record, leader_text(&tally));
        let n = tally.games() as usize;
        if cfg.report_every > 0 && n.is_multiple_of(cfg.report_every) && n < schedule.len() {
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

/// The records already in the state file `path` (none if it does not exist). A last line cut
/// short by an interruption is dropped, and the file truncated to the complete records.
fn resume_state(path: &Path) -> Result<Vec<GameRecord>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut records = Vec::new();
    let mut good_len = 0;
    let mut lines = text.split_inclusive('\n').enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        if !line.trim().is_empty() {
            match serde_json::from_str::<GameRecord>(line) {
                Ok(record) if line.ends_with('\n') => records.push(record),
                _ if lines.peek().is_none() => break,
                _ => bail!("{} line {}: not a game record (cannot resume from it)", path.display(), i + 1),
            }
        }
        good_len += line.len();
    }
    if good_len < text.len() {
        eprintln!("note: dropping an incomplete last record from {}", path.display());
        let f = std::fs::File::options()
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        f.set_len(good_len as u64).with_context(|| format!("cannot truncate {}", path.display()))?;
    }
    Ok(records)
}

/// The schedule index of a record from the state file, once it is checked to be this
/// tournament's game (same players, variant and start) and not seen before.
fn check_resumed(
    record: &GameRecord,
    schedule: &Schedule,
    names: &[String],
    common: &GameConfig,
    done: &[bool],
) -> Result<usize> {
    let Some(index) = record.game.checked_sub(1).filter(|&i| i < schedule.len()) else {
        bail!(
            "the record file holds game {}, but this tournament has {} games: resume with the same arguments",
            record.game,
            schedule.len()
        );
    };
    let [w, b] = schedule.players(index).map(|p| names[p].as_str());
    if (record.white.as_str(), record.black.as_str()) != (w, b) || record.variant != common.variant.name() {
        bail!(
            "game {} in the record file is {} vs {} ({}), but in this tournament it is {w} vs {b} ({}): resume with the same arguments",
            record.game,
            record.white,
            record.black,
            record.variant,
            common.variant.name()
        );
    }
    if done[index] {
        bail!("the record file holds game {} twice", record.game);
    }
    Ok(index)
}
