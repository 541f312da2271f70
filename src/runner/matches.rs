//! A match between two engines: games in pairs with colors swapped (same opening, same seeds),
//! K games at once (each worker thread holds its own pair of engine processes and restarts one
//! that crashed or hung), results written as each game ends, a live progress bar, and an SPRT
//! that stops the match once a bound is crossed.

use super::clock::TimeControl;
use super::engine::{EngineHandle, EngineInit};
use super::pgn::{today, write_pgn};
use super::record::{append_json, GameRecord};
use super::referee::{play_game, unstarted_game, GameResult, GameSetup};
use super::spec::EngineSpec;
use super::stats::{fixed, Score, Sprt, Verdict};
use crate::core::{Color, Variant};
use crate::rules::Position;
use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::time::Duration;

/// How long an engine may take to quit at the end before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(200);

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The game.
    pub variant: Variant,
    /// The two engines; the first is the one the score is reported for.
    pub specs: [EngineSpec; 2],
    /// Number of games.
    pub games: usize,
    /// The time control.
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
    /// Stop early when this test decides.
    pub sprt: Option<Sprt>,
    /// Start positions, used pair by pair (in an order shuffled by the seed); empty for the start.
    pub openings: Vec<Position>,
    /// Tolerance on every time limit.
    pub margin: Duration,
    /// Limit for handshakes, `isready`, and moves under a node budget.
    pub stall: Duration,
    /// How to show progress on stderr.
    pub progress: Progress,
}

/// How a match shows its progress on stderr.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Progress {
    /// A live progress bar (games, W-L-D, Elo), with a line per finished game above it.
    Bar,
    /// A plain line per finished game with the running score (when stderr is not a terminal).
    Lines,
    /// Nothing.
    Off,
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

/// A 64-bit mix of `x` (SplitMix64's finalizer).
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What the workers share.
struct Shared<'a> {
    cfg: &'a MatchConfig,
    inits: [EngineInit; 2],
    names: [String; 2],
    opening_order: Vec<usize>,
    next: AtomicUsize,
    stop: AtomicBool,
}

impl Shared<'_> {
    /// The setup of game `index` (from 0): pair `index / 2`, the first engine White in even games.
    fn setup(&self, index: usize) -> GameSetup {
        let cfg = self.cfg;
        let pair = index / 2;
        let start = match self.opening_order.len() {
            0 => Position::start(cfg.variant),
            n => cfg.openings[self.opening_order[pair % n]].clone(),
        };
        // 63 bits: UCI spin options are signed 64-bit numbers.
        let engine_seed = |engine: u64| mix(cfg.seed ^ mix(pair as u64 * 2 + engine)) >> 1;
        let seeds =
            if index.is_multiple_of(2) { [engine_seed(0), engine_seed(1)] } else { [engine_seed(1), engine_seed(0)] };
        let tc_of = |engine: usize| cfg.specs[engine].tc.unwrap_or(cfg.tc);
        let tc = if index.is_multiple_of(2) { [tc_of(0), tc_of(1)] } else { [tc_of(1), tc_of(0)] };
        GameSetup {
            game: index + 1,
            pair: pair + 1,
            start,
            tc,
            margin: cfg.margin,
            stall: cfg.stall,
            max_plies: cfg.max_plies,
            seeds,
        }
    }
}

/// The engine (0 = first) playing `color` in game `index`.
fn engine_of(index: usize, color: Color) -> usize {
    (index + color.index()) % 2
}

/// Plays a match and returns its summary.
pub fn run_match(cfg: &MatchConfig) -> Result<MatchSummary> {
    let inits = [0, 1].map(|i| EngineInit::from_spec(&cfg.specs[i], cfg.variant, cfg.stall));
    let mut first = Vec::new();
    for (i, (spec, init)) in cfg.specs.iter().zip(&inits).enumerate() {
        let handle = EngineHandle::launch(spec, init)
            .with_context(|| format!("cannot start engine {} ({})", i + 1, spec.program.display()))?;
        for error in handle.errors() {
            eprintln!("warning: engine {} ({}) said during the handshake: {error}", i + 1, handle.name());
        }
        first.push(handle);
    }
    let names = [first[0].name().to_string(), first[1].name().to_string()];
    let mut order: Vec<usize> = (0..cfg.openings.len()).collect();
    order.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(cfg.seed));
    let shared = Shared {
        cfg,
        inits,
        names: names.clone(),
        opening_order: order,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
    };
    let mut collector = Collector::new(cfg, names)?;
    let workers = cfg.concurrency.clamp(1, cfg.games.max(1));
    let mut first_slots = Some(first);
    std::thread::scope(|scope| -> Result<()> {
        let (tx, rx) = mpsc::channel();
        for w in 0..workers {
            let slots = match first_slots.take().filter(|_| w == 0) {
                Some(handles) => handles.into_iter().map(Some).collect(),
                None => vec![None, None],
            };
            let tx = tx.clone();
            let shared = &shared;
            scope.spawn(move || worker(shared, tx, slots));
        }
        drop(tx);
        for result in rx {
            match collector.add(&result.record) {
                Ok(true) => shared.stop.store(true, Ordering::Relaxed),
                Ok(false) => {}
                Err(e) => {
                    shared.stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        Ok(())
    })?;
    Ok(collector.finish())
}

/// Plays games until none are left or the match stops; `slots` holds engine 1 and engine 2.
fn worker(shared: &Shared, tx: Sender<GameResult>, mut slots: Vec<Option<EngineHandle>>) {
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            break;
        }
        let index = shared.next.fetch_add(1, Ordering::Relaxed);
        if index >= shared.cfg.games {
            break;
        }
        let setup = shared.setup(index);
        let result = play_one(shared, &mut slots, &setup, index);
        for color in Color::ALL {
            if result.restart[color.index()] {
                slots[engine_of(index, color)] = None;
            }
        }
        if tx.send(result).is_err() {
            break;
        }
    }
    for handle in slots.into_iter().flatten() {
        handle.shutdown(QUIT_GRACE);
    }
}

/// Plays game `index`, first (re)starting any engine that is not running.
fn play_one(shared: &Shared, slots: &mut [Option<EngineHandle>], setup: &GameSetup, index: usize) -> GameResult {
    let by_color = |names: &[String; 2]| Color::ALL.map(|c| names[engine_of(index, c)].clone());
    for (i, slot) in slots.iter_mut().enumerate() {
        if slot.as_mut().is_some_and(|h| !h.alive()) {
            *slot = None;
        }
        if slot.is_none() {
            match EngineHandle::launch(&shared.cfg.specs[i], &shared.inits[i]) {
                Ok(handle) => *slot = Some(handle),
                Err(e) => {
                    let color = if engine_of(index, Color::White) == i { Color::White } else { Color::Black };
                    return unstarted_game(setup, by_color(&shared.names), color, e.failure(), &e.to_string());
                }
            }
        }
    }
    let [Some(a), Some(b)] = slots else { unreachable!("both engines were just started") };
    let engines = if engine_of(index, Color::White) == 0 { [a, b] } else { [b, a] };
    play_game(setup, engines)
}

/// Receives finished games: writes them out, keeps the score, draws the progress bar, runs the SPRT.
struct Collector {
    names: [String; 2],
    score: Score,
    sprt: Option<Sprt>,
    verdict: Option<Verdict>,
    terminations: BTreeMap<String, u32>,
    pgn: Option<File>,
    json: Option<File>,
    date: String,
    bar: ProgressBar,
    lines: bool,
}

fn append_to(path: &Option<PathBuf>) -> Result<Option<File>> {
    path.as_ref()
        .map(|p| {
            File::options().create(true).append(true).open(p).with_context(|| format!("cannot open {}", p.display()))
        })
        .transpose()
}

impl Collector {
    fn new(cfg: &MatchConfig, names: [String; 2]) -> Result<Collector> {
        let target = match cfg.progress {
            Progress::Bar => ProgressDrawTarget::stderr(),
            _ => ProgressDrawTarget::hidden(),
        };
        let bar = ProgressBar::with_draw_target(Some(cfg.games as u64), target);
        let style = ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        bar.set_message(format!("{} vs {}", names[0], names[1]));
        Ok(Collector {
            names,
            score: Score::default(),
            sprt: cfg.sprt,
            verdict: None,
            terminations: BTreeMap::new(),
            pgn: append_to(&cfg.pgn)?,
            json: append_to(&cfg.json)?,
            date: today(),
            bar,
            lines: cfg.progress == Progress::Lines,
        })
    }

    /// Takes one finished game; returns true when the SPRT has just decided.
    fn add(&mut self, record: &GameRecord) -> Result<bool> {
        if let Some(f) = &mut self.json {
            append_json(f, record).context("cannot write the JSON record")?;
        }
        if let Some(f) = &mut self.pgn {
            f.write_all(write_pgn(record, &self.date).as_bytes())
                .and_then(|_| f.flush())
                .context("cannot write PGN")?;
        }
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
        let finished = format!(
            "Finished game {} ({} vs {}): {} {{{}}}",
            record.game, record.white, record.black, record.result, record.detail
        );
        if self.lines {
            eprintln!("{finished}  [{}/{}  {running}]", s.games(), self.bar.length().unwrap_or(0));
        }
        self.bar.set_message(running);
        self.bar.println(finished);
        self.bar.inc(1);
        if self.verdict.is_none() {
            self.verdict = self.sprt.and_then(|t| t.verdict(&self.score));
            return Ok(self.verdict.is_some());
        }
        Ok(false)
    }

    fn finish(self) -> MatchSummary {
        self.bar.finish();
        MatchSummary {
            names: self.names,
            score: self.score,
            sprt: self.sprt,
            verdict: self.verdict,
            terminations: self.terminations,
        }
    }
}
