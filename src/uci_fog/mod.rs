//! `murk uci-fog`: Murk's protocol on stdin/stdout, its moves chosen by a perfect-information UCI
//! engine (Fairy-Stockfish) that searches worlds drawn from Murk's belief.
//!
//! Each `go` brings the belief up to date, draws worlds (likeliest first), has the child search
//! each one among our legal moves that are legal there, and plays the move with the best mix of
//! mean and worst score across the worlds ([`choose`]). A child that fails costs that move its
//! search (a greedy move is played) and is restarted in the background for the next `go`.

pub mod child;

use crate::core::{Move, Variant};
use crate::engine::{EngineOptions, PlayerEntry, Session};
use crate::rules::Position;
use crate::search::limits::{Budget, Limits, SearchClock, DEFAULT_MOVE_TIME_MS};
use crate::search::murk::visible_king_capture;
use crate::search::root::{mean_and_worst, risk_blend};
use crate::search::{thread_pool, WorldSource};
use crate::search::{SearchConfig, SearchInfo, Searcher};
use crate::view::InfoState;
use crate::view::SimplePlayer;
use anyhow::{Context, Result};
use child::{ChildConfig, ChildEngine, ChildError, ChildLimit};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The Fairy-Stockfish variant definitions the project ships, written to a file at startup.
pub const VARIANTS_INI: &str = include_str!("../../tests/data/fsf/variants.ini");

/// How long the child may take to start and to set up a game outside any `go`.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(5);

/// How long the child may take for a move bounded by nodes only.
pub const NODES_TIMEOUT: Duration = Duration::from_secs(5);

/// Time kept back at the end of a timed move for writing `bestmove`.
const END_MARGIN: Duration = Duration::from_millis(3);

/// Time allowed per child search for sending the position and reading the reply.
const CALL_SLACK: Duration = Duration::from_millis(2);

/// A world gets no search with less time than this.
const MIN_SHARE: Duration = Duration::from_millis(2);

/// A move the child did not score in a world counts as this much worse than the worst it scored.
pub const UNREPORTED_PENALTY_CP: f64 = 30.0;

/// Options the command sets on the child itself.
const RESERVED_OPTIONS: [&str; 3] = ["UCI_Variant", "VariantPath", "MultiPV"];

/// The Fairy-Stockfish variant (of [`VARIANTS_INI`]) that plays each game with full
/// information: non-royal kings (no check, king capture wins), and in Crossroads the Try as a
/// flag the reply must capture.
pub fn fsf_variant(variant: Variant) -> &'static str {
    match variant {
        Variant::DarkCrazyhouse => "darkcrazyhouse",
        Variant::DarkCrossroads => "darkcrossroadstry",
        Variant::DarkChess => "fogofwar",
    }
}

/// The command line of `murk uci-fog`.
#[derive(clap::Args, Debug)]
pub struct UciFogArgs {
    /// The UCI engine to run (a path, or a program on PATH), e.g. /usr/local/bin/fairy-stockfish.
    #[arg(long)]
    pub engine: PathBuf,
    /// Sent to the engine as `setoption name NAME value VALUE` (repeatable), e.g. Threads=2.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = parse_option)]
    pub options: Vec<(String, String)>,
    /// Worlds drawn from the belief per move (identical ones merge; the likeliest is searched first).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub worlds: u32,
    /// Moves the engine scores in each world (its MultiPV).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub multipv: u32,
    /// Weight of the worst world against the weighted mean when choosing the move (0 to 1).
    #[arg(long, default_value_t = 0.35, value_parser = parse_risk)]
    pub risk: f64,
}

fn parse_option(s: &str) -> Result<(String, String), String> {
    let (name, value) = s.split_once('=').ok_or_else(|| format!("'{s}' is not NAME=VALUE"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("'{s}' names no option"));
    }
    if let Some(own) = RESERVED_OPTIONS.iter().find(|o| o.eq_ignore_ascii_case(name)) {
        return Err(format!("uci-fog sets {own} itself (use --multipv for MultiPV)"));
    }
    Ok((name.to_string(), value.to_string()))
}

fn parse_risk(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|r| (0.0..=1.0).contains(r))
        .ok_or_else(|| format!("'{s}' is not a number from 0 to 1"))
}

/// Runs `murk uci-fog`: starts the child (failing with a clear error if it does not complete its
/// handshake), then speaks the protocol on stdin/stdout until `quit`.
pub fn run(args: &UciFogArgs) -> Result<()> {
    let config = ChildConfig {
        program: args.engine.clone(),
        options: args.options.clone(),
        multipv: args.multipv as usize,
        variant_path: variants_file().context("writing the variant definitions")?,
    };
    let child = ChildEngine::start(&config, Instant::now() + STARTUP_TIMEOUT).context("starting the engine")?;
    let slot = Arc::new(Mutex::new(Slot { config: Arc::new(config), state: ChildState::Ready(child) }));
    let params = FogParams { worlds: args.worlds as usize, risk: args.risk };
    let entry = PlayerEntry::new("uci-fog", move |c| Box::new(UciFogSearcher::new(c, params, Arc::clone(&slot))));
    crate::protocol::run_stdio(Session::new(EngineOptions::with_players(vec![entry])))?;
    Ok(())
}

/// [`VARIANTS_INI`] as a file in the temp directory, named by its content (written atomically
/// under a name of its own per process and call, so that engines and threads starting at once
/// share it).
pub fn variants_file() -> std::io::Result<PathBuf> {
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    VARIANTS_INI.hash(&mut hasher);
    let path = std::env::temp_dir().join(format!("murk-fsf-variants-{:016x}.ini", hasher.finish()));
    if std::fs::read_to_string(&path).is_ok_and(|text| text == VARIANTS_INI) {
        return Ok(path);
    }
    let write = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let partial = path.with_extension(format!("{}-{write}.partial", std::process::id()));
    std::fs::write(&partial, VARIANTS_INI)?;
    std::fs::rename(&partial, &path)?;
    Ok(path)
}

/// The child engine, shared by the searchers of successive games.
struct Slot {
    config: Arc<ChildConfig>,
    state: ChildState,
}

/// A child ready for use, or one starting on a thread of its own (after a failure, so that its
/// start-up does not have to fit in a move's time).
enum ChildState {
    Ready(ChildEngine),
    Starting(Receiver<Result<ChildEngine, ChildError>>),
}

impl Slot {
    /// Drops the child (killing it) and starts a new one in the background.
    fn restart(&mut self) {
        let (tx, rx) = channel();
        let config = Arc::clone(&self.config);
        self.state = ChildState::Starting(rx);
        // A thread that cannot be spawned leaves the channel closed, and a start nobody waits
        // for any more is dropped: the next use reports or retries either.
        let _ = std::thread::Builder::new().name("uci-fog-child-start".into()).spawn(move || {
            let _ = tx.send(ChildEngine::start(&config, Instant::now() + STARTUP_TIMEOUT));
        });
    }

    /// The child, waiting by `deadline` for one that is starting, set up for `variant`; a new
    /// game or a fresh child gets `ucinewgame`. A child that fails is restarted in the background.
    fn engine(&mut self, variant: Variant, new_game: bool, deadline: Instant) -> Result<&mut ChildEngine, ChildError> {
        if let ChildState::Starting(rx) = &self.state {
            let wait = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(wait) {
                Ok(Ok(child)) => self.state = ChildState::Ready(child),
                Ok(Err(e)) => {
                    self.restart();
                    return Err(e);
                }
                Err(RecvTimeoutError::Timeout) => return Err(ChildError::StillStarting),
                Err(RecvTimeoutError::Disconnected) => {
                    self.restart();
                    return Err(ChildError::StillStarting);
                }
            }
        }
        let name = fsf_variant(variant);
        let setup = match &mut self.state {
            ChildState::Ready(child) if new_game || child.variant() != Some(name) => child.new_game(name, deadline),
            _ => Ok(()),
        };
        if let Err(e) = setup {
            self.restart();
            return Err(e);
        }
        match &mut self.state {
            ChildState::Ready(child) => Ok(child),
            ChildState::Starting(_) => Err(ChildError::StillStarting),
        }
    }
}

/// The choices of [`UciFogSearcher`] that come from the command line.
#[derive(Clone, Copy, Debug)]
struct FogParams {
    worlds: usize,
    risk: f64,
}

/// The `uci-fog` player of one game.
struct UciFogSearcher {
    variant: Variant,
    params: FogParams,
    worlds: WorldSource,
    slot: Arc<Mutex<Slot>>,
    rng: Xoshiro256PlusPlus,
    /// The child has not yet been told of this game.
    new_game: bool,
    /// A failure at the start of the game, reported at its first `go`.
    pending_error: Option<String>,
}

impl UciFogSearcher {
    /// The player of a new game: the child is readied for it now, outside any `go`.
    fn new(config: &SearchConfig, params: FogParams, slot: Arc<Mutex<Slot>>) -> UciFogSearcher {
        let mut searcher = UciFogSearcher {
            variant: config.variant,
            params,
            worlds: WorldSource::new(config.hash_mib, config.seed, thread_pool(config.threads)),
            slot,
            rng: Xoshiro256PlusPlus::seed_from_u64(config.seed),
            new_game: true,
            pending_error: None,
        };
        let ready = lock(&searcher.slot).engine(config.variant, true, Instant::now() + STARTUP_TIMEOUT).map(drop);
        match ready {
            Ok(()) => searcher.new_game = false,
            Err(e) => searcher.pending_error = Some(format!("error: the engine failed to start a game: {e}")),
        }
        searcher
    }

    /// Has the child search each world in turn while time is left; the worlds it scored (also
    /// those before a failure) are kept in `scored`.
    fn search_worlds(
        &mut self,
        legal: &[Move],
        worlds: &[(Position, f64)],
        plan: &TimePlan,
        stop: &AtomicBool,
        scored: &mut Vec<ChildScores>,
    ) -> Result<(), ChildError> {
        let mut slot = lock(&self.slot);
        let ready_by = plan.deadline().unwrap_or_else(|| Instant::now() + STARTUP_TIMEOUT);
        let child = slot.engine(self.variant, self.new_game, ready_by)?;
        self.new_game = false;
        for (i, (world, weight)) in worlds.iter().enumerate() {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let world_moves = world.moves();
            let moves: Vec<Move> = legal.iter().copied().filter(|m| world_moves.as_slice().contains(m)).collect();
            if moves.is_empty() {
                continue;
            }
            let Some(limit) = plan.next(worlds.len() - i) else { break };
            let texts: Vec<String> = moves.iter().map(|m| m.to_uci(self.variant)).collect();
            let result = match child.search(&world.to_fen(), &texts, &limit, stop) {
                Ok(r) => r,
                Err(e) => {
                    slot.restart();
                    return Err(e);
                }
            };
            let known = |text: &str| texts.iter().position(|t| t == text).map(|i| moves[i]);
            let mut scores: Vec<(Move, i32)> =
                result.scores.iter().filter_map(|(text, s)| known(text).map(|m| (m, *s))).collect();
            if let Some(best) = result.best.as_deref().and_then(known) {
                if !scores.iter().any(|(m, _)| *m == best) {
                    let top = scores.iter().map(|(_, s)| *s).max().unwrap_or(0);
                    scores.push((best, top));
                }
            }
            if !scores.is_empty() {
                scored.push(ChildScores { weight: *weight, moves, scores });
            }
        }
        Ok(())
    }
}

fn lock(slot: &Mutex<Slot>) -> std::sync::MutexGuard<'_, Slot> {
    slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Searcher for UciFogSearcher {
    fn search(
        &mut self,
        info: &InfoState,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(SearchInfo),
    ) -> Option<Move> {
        let clock = SearchClock::start(limits.budget(info.side()));
        let mut legal: Vec<Move> = info.legal_moves().to_vec();
        if !limits.searchmoves.is_empty() {
            legal.retain(|m| limits.searchmoves.contains(m));
        }
        if let Some(m) = visible_king_capture(info, &legal) {
            return Some(m);
        }
        let fallback = SimplePlayer::Greedy.choose_from(info, &legal, &mut self.rng)?;
        if legal.len() == 1 {
            return Some(fallback);
        }
        let say = |report: &mut dyn FnMut(SearchInfo), text: String| {
            report(SearchInfo { string: Some(text), ..SearchInfo::default() })
        };
        if let Some(error) = self.pending_error.take() {
            say(report, error);
        }
        let plan = TimePlan::new(&clock);
        let (belief_size, note) = self.worlds.update(info, &clock.budget());
        if let Some(note) = note {
            say(report, note);
        }
        let worlds = self.worlds.draw(self.params.worlds, &mut self.rng);
        let mut scored = Vec::new();
        if let Err(e) = self.search_worlds(&legal, &worlds, &plan, stop, &mut scored) {
            say(report, format!("error: the engine failed: {e}; playing a greedy move"));
        }
        let best = choose(&scored, &legal, self.params.risk);
        let elapsed = clock.elapsed();
        report(SearchInfo {
            time_ms: Some(elapsed.as_millis() as u64),
            score_cp: best.as_ref().map(|b| b.value.round() as i32),
            pv: vec![best.as_ref().map_or(fallback, |b| b.mv)],
            string: Some(format!(
                "uci-fog belief {belief_size} worlds {} searched {}{}",
                worlds.len(),
                scored.len(),
                best.as_ref().map_or(" (no score: greedy move)".to_string(), |b| format!(
                    " mean {:.0} worst {:.0}",
                    b.mean, b.worst
                )),
            )),
            ..SearchInfo::default()
        });
        Some(best.map_or(fallback, |b| b.mv))
    }
}

/// How a move's time is shared among the worlds.
struct TimePlan {
    start: Instant,
    budget: Budget,
}

impl TimePlan {
    fn new(clock: &SearchClock) -> TimePlan {
        TimePlan { start: Instant::now() - clock.elapsed(), budget: clock.budget() }
    }

    /// When to give up on the child: just before the hard time; for a move bounded by nodes
    /// only, [`NODES_TIMEOUT`] from the start; for `go infinite`, only once `stop` comes.
    fn deadline(&self) -> Option<Instant> {
        match (self.budget.hard, self.budget.nodes) {
            (Some(hard), _) => Some(self.start + hard.saturating_sub(END_MARGIN)),
            (None, Some(_)) => Some(self.start + NODES_TIMEOUT),
            (None, None) => None,
        }
    }

    /// The limits of the next child search with `left` worlds to go (this one included), or
    /// `None` when the time left is too short. A timed move shares what remains of its soft time
    /// equally; a node budget is split equally; `go infinite` searches each world for
    /// [`DEFAULT_MOVE_TIME_MS`].
    fn next(&self, left: usize) -> Option<ChildLimit> {
        let now = Instant::now();
        let nodes = self.budget.nodes.map(|n| (n / left as u64).max(1));
        let Some(target) = self.budget.soft.or(self.budget.hard) else {
            let movetime = nodes.is_none().then(|| Duration::from_millis(DEFAULT_MOVE_TIME_MS));
            return Some(ChildLimit { movetime, nodes, stop_at: None, deadline: self.deadline() });
        };
        let remaining = (self.start + target).saturating_duration_since(now).saturating_sub(END_MARGIN);
        let share = (remaining / left as u32).saturating_sub(CALL_SLACK);
        if share < MIN_SHARE {
            return None;
        }
        Some(ChildLimit {
            movetime: Some(share),
            nodes,
            stop_at: Some(now + share + CALL_SLACK),
            deadline: self.deadline(),
        })
    }
}

/// What the child reported in one world.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildScores {
    /// The world's weight (how many of the drawn worlds it stands for).
    pub weight: f64,
    /// Our moves that are legal in this world (the ones the child was asked about).
    pub moves: Vec<Move>,
    /// The scores the child gave, in centipawns for us (see [`child::MATE_CP`]).
    pub scores: Vec<(Move, i32)>,
}

/// A move's value across the worlds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// Its weighted mean score over the worlds where it is legal.
    pub mean: f64,
    /// Its lowest score there.
    pub worst: f64,
    /// `(1 - risk) * mean + risk * worst`.
    pub value: f64,
}

/// The candidate with the highest value across `worlds`, or `None` when no world scored any
/// (the first candidate wins ties). In a world, a move the child did not score but could play
/// counts [`UNREPORTED_PENALTY_CP`] below the lowest score there; worlds without any score, and
/// worlds where the move is not legal (a drop onto a hidden piece), do not count for it.
pub fn choose(worlds: &[ChildScores], candidates: &[Move], risk: f64) -> Option<MoveValue> {
    let mut best: Option<MoveValue> = None;
    for &mv in candidates {
        let values = worlds.iter().filter(|w| w.moves.contains(&mv)).filter_map(|w| {
            let floor = w.scores.iter().map(|(_, s)| f64::from(*s)).reduce(f64::min)?;
            let score =
                w.scores.iter().find(|(m, _)| *m == mv).map_or(floor - UNREPORTED_PENALTY_CP, |(_, s)| f64::from(*s));
            Some((score, w.weight))
        });
        let Some((mean, worst)) = mean_and_worst(values) else { continue };
        let value = risk_blend(mean, worst, risk);
        if best.as_ref().is_none_or(|b| value > b.value) {
            best = Some(MoveValue { mv, mean, worst, value });
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_writing_the_variants_file_at_once_all_get_it_whole() {
        if let Ok(path) = variants_file() {
            let _ = std::fs::remove_file(path);
        }
        let threads: Vec<_> = (0..16).map(|_| std::thread::spawn(variants_file)).collect();
        for t in threads {
            let path = t.join().unwrap().expect("every thread gets the file");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), VARIANTS_INI);
        }
    }
}
