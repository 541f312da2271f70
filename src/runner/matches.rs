//! A match between two engines: the two-engine case of [`schedule`](super::schedule) (games in
//! pairs with colors swapped, K at once, restarts), with the first engine's score, a live
//! progress bar, and an SPRT that stops the match once a bound is crossed.

use super::outputs::{ProgressView, RecordFiles};
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

/// Plays a match and returns its summary.
pub fn run_match(cfg: &MatchConfig) -> Result<MatchSummary> {
    let common = &cfg.games_cfg;
    let lineup = Lineup::start(cfg.specs.to_vec(), common.variant, common.stall)?;
    let names = [lineup.names()[0].clone(), lineup.names()[1].clone()];
    let schedule = Schedule::new(vec![[0, 1]; cfg.games.div_ceil(2)], cfg.games);
    let pending: Vec<usize> = (0..schedule.len()).collect();
    let mut collector = Collector::new(cfg, names)?;
    play_games(common, lineup, &schedule, &pending, |_, result| collector.add(&result.record))?;
    Ok(collector.finish())
}

/// Receives finished games: writes them out, keeps the score, draws the progress bar, runs the SPRT.
struct Collector {
    names: [String; 2],
    score: Score,
    sprt: Option<Sprt>,
    verdict: Option<Verdict>,
    terminations: BTreeMap<String, u32>,
    files: RecordFiles,
    view: ProgressView,
}

impl Collector {
    fn new(cfg: &MatchConfig, names: [String; 2]) -> Result<Collector> {
        let common = &cfg.games_cfg;
        let view = ProgressView::new(common.progress, 0, cfg.games, format!("{} vs {}", names[0], names[1]));
        Ok(Collector {
            names,
            score: Score::default(),
            sprt: cfg.sprt,
            verdict: None,
            terminations: BTreeMap::new(),
            files: RecordFiles::open(&common.pgn, &common.json)?,
            view,
        })
    }

    /// Takes one finished game; returns true when the SPRT has just decided.
    fn add(&mut self, record: &GameRecord) -> Result<bool> {
        self.files.write(record)?;
        let first_color = if (record.game - 1).is_multiple_of(2) { Color::White } else { Color::Black };
        let half_points = match record.winner() {
            None => 1,
            Some(c) if c == first_color => 2,
            Some(_) => 0,
        };
        self.score.add(record.pair, half_points);
        *self.terminations.entry(record.termination.clone()).or_default() += 1;
        let (elo, margin) = self.score.elo();
        let s = &self.score;
        let running =
            format!("W-L-D {}-{}-{}  Elo {} +/- {}", s.wins, s.losses, s.draws, fixed(elo, 1), fixed(margin, 1));
        self.view.game(record, running);
        if self.verdict.is_none() {
            self.verdict = self.sprt.and_then(|t| t.verdict(&self.score));
            return Ok(self.verdict.is_some());
        }
        Ok(false)
    }

    fn finish(self) -> MatchSummary {
        self.view.finish();
        MatchSummary {
            names: self.names,
            score: self.score,
            sprt: self.sprt,
            verdict: self.verdict,
            terminations: self.terminations,
        }
    }
}
