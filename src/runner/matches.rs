//! A match between two engines: the two-engine case of [`schedule`](super::schedule) (games in
//! pairs with colors swapped, K at once, restarts), with the first engine's score, a live
//! progress bar, an SPRT that stops the match once a bound is crossed, and `--resume` and
//! `--shard` as for a tournament.

use super::outputs::{pending_games, resumed_games, ProgressView, RecordFiles};
use super::record::GameRecord;
use super::schedule::{play_games, GameConfig, Lineup, Schedule};
use super::spec::EngineSpec;
use super::stats::{fixed, Score, Sprt, Verdict};
use crate::core::Color;
use anyhow::Result;
use std::collections::BTreeMap;

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// What every game shares and where the records go.
    pub games_cfg: GameConfig,
    /// The two engines; the first is the one the score is reported for.
    pub specs: [EngineSpec; 2],
    /// Number of games.
    pub games: usize,
    /// Stop early when this test decides.
    pub sprt: Option<Sprt>,
    /// Continue from the games already in the JSON file.
    pub resume: bool,
}

/// The result of a match.
#[derive(Clone, Debug)]
pub struct MatchSummary {
    /// The engines' names, first engine first.
    pub names: [String; 2],
    /// The first engine's score.
    pub score: Score,
    /// The SPRT, if one was run.
    pub sprt: Option<Sprt>,
    /// The SPRT's decision, if a bound was crossed.
    pub verdict: Option<Verdict>,
    /// How many games ended each way, by termination word.
    pub terminations: BTreeMap<String, u32>,
}

impl MatchSummary {
    /// The closing lines: the score and Elo lines as cutechess-cli prints them, the SPRT line if
    /// any, and the pentanomial line once a pair is complete.
    pub fn report(&self) -> String {
        let mut s = format!("{}\n{}\n", self.score.score_line(&self.names[0], &self.names[1]), self.score.elo_line());
        if let Some(sprt) = &self.sprt {
            s.push_str(&sprt.line(&self.score, self.verdict));
            s.push('\n');
        }
        if self.score.ptnml.iter().any(|&c| c > 0) {
            s.push_str(&self.score.ptnml_line());
            s.push('\n');
        }
        s
    }
}

/// Plays (or resumes) a match and returns its summary.
pub fn run_match(cfg: &MatchConfig) -> Result<MatchSummary> {
    let common = &cfg.games_cfg;
    let lineup = Lineup::start(cfg.specs.to_vec(), common.variant, common.stall)?;
    let names = [lineup.names()[0].clone(), lineup.names()[1].clone()];
    let schedule = Schedule::new(vec![[0, 1]; cfg.games.div_ceil(2)], cfg.games);
    let resumed = if cfg.resume { resumed_games(common, &schedule, lineup.names())? } else { Vec::new() };
    let mut tally = MatchTally::new(names, cfg.sprt);
    for (_, record) in &resumed {
        tally.add(record);
    }
    let pending = pending_games(common, &schedule, &resumed);
    let mut files = RecordFiles::open(&common.pgn, &common.json)?;
    let view = ProgressView::new(
        common.progress,
        resumed.len(),
        resumed.len() + pending.len(),
        format!("{} vs {}", tally.names[0], tally.names[1]),
    );
    play_games(common, lineup, &schedule, &pending, |_, result| {
        let record = &result.record;
        files.write(record)?;
        let decided = tally.add(record);
        let s = &tally.score;
        let (elo, margin) = s.elo();
        view.game(
            record,
            format!("W-L-D {}-{}-{}  Elo {} +/- {}", s.wins, s.losses, s.draws, fixed(elo, 1), fixed(margin, 1)),
        );
        Ok(decided)
    })?;
    view.finish();
    Ok(tally.summary())
}

/// A match's standing, kept from its game records: the first engine's score, the terminations,
/// and the SPRT's decision at the first game that crossed a bound.
#[derive(Clone, Debug)]
pub struct MatchTally {
    names: [String; 2],
    score: Score,
    sprt: Option<Sprt>,
    verdict: Option<Verdict>,
    terminations: BTreeMap<String, u32>,
}

impl MatchTally {
    /// An empty standing of `names` (the first engine first), with an optional SPRT.
    pub fn new(names: [String; 2], sprt: Option<Sprt>) -> MatchTally {
        MatchTally { names, score: Score::default(), sprt, verdict: None, terminations: BTreeMap::new() }
    }

    /// Counts one game (the first engine plays White in odd-numbered games); returns true when
    /// the SPRT has just decided.
    pub fn add(&mut self, record: &GameRecord) -> bool {
        let first_color = if (record.game - 1).is_multiple_of(2) { Color::White } else { Color::Black };
        let half_points = match record.winner() {
            None => 1,
            Some(c) if c == first_color => 2,
            Some(_) => 0,
        };
        self.score.add(record.pair, half_points);
        *self.terminations.entry(record.termination.clone()).or_default() += 1;
        if self.verdict.is_none() {
            self.verdict = self.sprt.and_then(|t| t.verdict(&self.score));
            return self.verdict.is_some();
        }
        false
    }

    /// The summary of the games counted.
    pub fn summary(self) -> MatchSummary {
        MatchSummary {
            names: self.names,
            score: self.score,
            sprt: self.sprt,
            verdict: self.verdict,
            terminations: self.terminations,
        }
    }
}
