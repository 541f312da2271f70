//! `murk results`: the standing of a run from its JSON record files alone: the files of a match's
//! or tournament's shards (`--shard K/N`), or of one run. It prints what the run prints: for two
//! engines the match's score, Elo, SPRT and pentanomial lines, for more (or with `--table`) the
//! crosstable, the ratings and the engines' conduct.

use super::matches::{MatchSummary, MatchTally};
use super::record::{read_records, GameRecord};
use super::standings::{anchor_index, Standings, Tally};
use super::stats::Sprt;
use anyhow::{bail, Result};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Arguments of `murk results`.
#[derive(clap::Args, Debug, Clone)]
pub struct ResultsArgs {
    /// JSON-lines record files of one run (`--json` of `murk match` or `murk tournament`), e.g.
    /// one per shard.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Test the first engine's score: `--sprt elo0=0 elo1=10 alpha=0.05 beta=0.05`.
    #[arg(long, num_args = 1..=4, value_delimiter = ' ')]
    pub sprt: Option<Vec<String>>,
    /// The engine rated 0 in the rating list (by default the mean rating is 0).
    #[arg(long)]
    pub anchor: Option<String>,
    /// Print the crosstable and ratings also when two engines played.
    #[arg(long)]
    pub table: bool,
}

/// What the records of a run add up to.
pub enum RunResults {
    /// Two engines: the match's summary.
    Match(MatchSummary),
    /// More engines (or `--table`): the tournament's standing.
    Tournament(Standings),
}

/// Reads the files of `args` and adds their games up.
pub fn results(args: &ResultsArgs) -> Result<RunResults> {
    let mut games: BTreeMap<usize, (GameRecord, &PathBuf)> = BTreeMap::new();
    for path in &args.files {
        for record in read_records(path)? {
            if let Some((_, other)) = games.get(&record.game) {
                bail!(
                    "game {} is in {} and in {}: give each run's games once",
                    record.game,
                    other.display(),
                    path.display()
                );
            }
            games.insert(record.game, (record, path));
        }
    }
    let records: Vec<GameRecord> = games.into_values().map(|(record, _)| record).collect();
    let Some(first) = records.first() else { bail!("the files hold no game") };
    if let Some(other) = records.iter().find(|r| r.variant != first.variant) {
        bail!(
            "game {} is {} and game {} is {}: one run's files only",
            first.game,
            first.variant,
            other.game,
            other.variant
        );
    }
    let missing = records.last().map_or(0, |r| r.game) - records.len();
    if missing > 0 {
        eprintln!(
            "note: {missing} game numbers below the highest ({}) are in none of the files",
            records.len() + missing
        );
    }
    let names = engines_in_schedule_order(&records);
    let sprt = args.sprt.as_ref().map(|words| Sprt::parse(&words.join(" "))).transpose()?;
    if names.len() == 2 && !args.table {
        let mut tally = MatchTally::new([names[0].clone(), names[1].clone()], sprt);
        for record in &records {
            if first_engine_first(record) != [&names[0], &names[1]] {
                bail!(
                    "game {} has {} as White where a match has {} (White in odd-numbered games): pass --table to rate these games",
                    record.game,
                    record.white,
                    if record.game % 2 == 1 { &names[0] } else { &names[1] }
                );
            }
            tally.add(record);
        }
        return Ok(RunResults::Match(tally.summary()));
    }
    if sprt.is_some() {
        bail!("--sprt tests a match: these records hold {} engines", names.len());
    }
    let anchor = anchor_index(args.anchor.as_deref(), &names)?;
    let mut tally = Tally::new(&names);
    for record in &records {
        let index = |name: &String| names.iter().position(|n| n == name).expect("every name was collected");
        tally.add([index(&record.white), index(&record.black)], record);
    }
    Ok(RunResults::Tournament(tally.standings(anchor)))
}

/// The engines in the order the run's command line gave them: the order in which they first
/// play, a pair's first engine (White in its odd-numbered game) before its second.
fn engines_in_schedule_order(records: &[GameRecord]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for record in records {
        for name in first_engine_first(record) {
            if !names.iter().any(|n| n == name) {
                names.push(name.clone());
            }
        }
    }
    names
}

/// The two engines of a game, its pair's first engine first.
fn first_engine_first(record: &GameRecord) -> [&String; 2] {
    if (record.game - 1).is_multiple_of(2) {
        [&record.white, &record.black]
    } else {
        [&record.black, &record.white]
    }
}
