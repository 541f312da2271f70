//! `murk datagen`: training positions for the learned evaluation. Murk plays itself under fog at
//! a fixed node count (a few random plies first, and now and then a random move, for variety);
//! at each of its moves the true position and a few worlds drawn from the mover's belief are kept,
//! labelled with the game's result and a teacher's score (Fairy-Stockfish's search at a fixed node
//! count, or without one Murk's own alpha-beta on the world), and written as
//! [`crate::eval::samples`] records: `train.bin`, and `valid.bin` from every `--valid-every`-th game.
//!
//! Only quiet positions are kept (no king under attack, no capture that wins material by static
//! exchange): the search asks the evaluation about quiet positions, and a tactical position's
//! score says more about the tactic than about the position. A position already kept (by
//! [`Position::repetition_key`]) is not labelled again. A run is a function of its arguments: games are seeded
//! by number, and their samples are written in game order whatever `--jobs` is.

use crate::core::{Color, Variant};
use crate::engine::EngineOptions;
use crate::eval::features;
use crate::eval::samples::{Sample, MAX_CP};
use crate::eval::see::see;
use crate::eval::{Evaluator, WIN};
use crate::rules::{Game, Played, Position};
use crate::search::alphabeta::{score_root_moves, WorldLimit, DEFAULT_TABLE_ENTRIES};
use crate::search::{Limits, SearchConfig, Searcher};
use crate::search::{Mode, MurkSearcher, SearchParams};
use crate::uci_fog::child::{ChildConfig, ChildEngine, ChildLimit};
use crate::uci_fog::{fsf_variant, variants_file};
use crate::view::{InfoState, Observation};
use anyhow::{anyhow, bail, Context, Result};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::{BTreeMap, HashSet};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// The command line of `murk datagen`.
#[derive(clap::Args, Debug, Clone)]
pub struct DatagenArgs {
    /// The game.
    #[arg(long)]
    pub variant: Variant,
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Seed of the first game (game `i` is seeded `seed + i`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Nodes of Murk's search per move.
    #[arg(long, default_value_t = 20_000)]
    pub nodes: u64,
    /// Worlds drawn from the mover's belief at each of its searched moves, beside the truth.
    #[arg(long, default_value_t = 2)]
    pub worlds: usize,
    /// Most random plies at the start of a game (each game plays 0 to this many).
    #[arg(long, default_value_t = 8)]
    pub random_plies: u32,
    /// Chance that a later move is random instead of searched.
    #[arg(long, default_value_t = 0.03)]
    pub random_rate: f64,
    /// A game still going after this many plies is a draw.
    #[arg(long, default_value_t = 300)]
    pub max_plies: u32,
    /// The teacher: a UCI engine (Fairy-Stockfish, see tests/data/fsf/install.sh) scoring each
    /// position at `--teacher-nodes`; without it, Murk's own alpha-beta on the world scores it.
    #[arg(long)]
    pub teacher: Option<PathBuf>,
    /// Nodes of the teacher's search per position.
    #[arg(long, default_value_t = 10_000)]
    pub teacher_nodes: u64,
    /// The evaluation Murk plays with: `hand` or `net` (its built-in net).
    #[arg(long, default_value = "hand", value_parser = ["hand", "net"])]
    pub eval: String,
    /// Games played at once (each on its own thread, with its own teacher).
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// One game in this many goes to the validation set.
    #[arg(long, default_value_t = 20)]
    pub valid_every: u64,
    /// The folder to write `train.bin` and `valid.bin` into (created if missing).
    #[arg(long)]
    pub out: PathBuf,
}

/// How positions get their score.
enum Teacher {
    /// A UCI engine searching each position for a number of nodes.
    Engine(ChildEngine, u64),
    /// Murk's alpha-beta on the world, with a node quota.
    Search(u64),
}

/// How long the teacher may take to start, or to answer one search before it is given up.
const TEACHER_TIMEOUT: Duration = Duration::from_secs(20);

impl Teacher {
    fn start(args: &DatagenArgs) -> Result<Teacher> {
        let Some(program) = &args.teacher else { return Ok(Teacher::Search(args.teacher_nodes)) };
        let config = ChildConfig {
            program: program.clone(),
            options: Vec::new(),
            multipv: 1,
            variant_path: variants_file().context("writing the variant definitions")?,
        };
        let deadline = || Instant::now() + TEACHER_TIMEOUT;
        let mut child = ChildEngine::start(&config, deadline()).context("starting the teacher")?;
        child.new_game(fsf_variant(args.variant), deadline()).context("setting the teacher's variant")?;
        Ok(Teacher::Engine(child, args.teacher_nodes))
    }

    /// Clears what the teacher remembers (its hash table), so that a game's scores do not depend
    /// on which games the same teacher scored before.
    fn new_game(&mut self, variant: Variant) -> Result<()> {
        if let Teacher::Engine(child, _) = self {
            child.new_game(fsf_variant(variant), Instant::now() + TEACHER_TIMEOUT).context("the teacher's new game")?;
        }
        Ok(())
    }

    /// The score of `pos` for the side to move, in centipawns (clamped to [`MAX_CP`]).
    fn score_cp(&mut self, pos: &Position) -> Result<i16> {
        let cp = match self {
            Teacher::Engine(child, nodes) => {
                let limit = ChildLimit {
                    movetime: None,
                    nodes: Some(*nodes),
                    stop_at: None,
                    deadline: Some(Instant::now() + TEACHER_TIMEOUT),
                };
                let result = child.search(&pos.to_fen(), &[], &limit, &AtomicBool::new(false))?;
                let best = result.best.as_ref().and_then(|b| result.scores.iter().find(|(m, _)| m == b));
                match best.or(result.scores.last()) {
                    Some(&(_, score)) => score,
                    None => bail!("the teacher gave no score for {}", pos.to_fen()),
                }
            }
            Teacher::Search(nodes) => {
                let moves = pos.moves().to_vec();
                let limit = WorldLimit {
                    nodes: Some(*nodes),
                    deadline: None,
                    max_depth: 64,
                    table_entries: DEFAULT_TABLE_ENTRIES,
                };
                let result = score_root_moves(pos, &moves, limit, &AtomicBool::new(false), &Evaluator::Hand);
                let best = result.scores.iter().flatten().copied().fold(-WIN, f32::max);
                (best * 100.0).round() as i32
            }
        };
        Ok(cp.clamp(-i32::from(MAX_CP), i32::from(MAX_CP)) as i16)
    }
}

/// Whether `pos` is worth a sample: both kings on the board, neither under attack, and no
/// capture for the side to move that wins material by static exchange.
pub fn is_quiet(pos: &Position) -> bool {
    let us = pos.turn();
    let (Some(ours), Some(theirs)) = (pos.king(us), pos.king(us.opponent())) else { return false };
    if pos.is_attacked(ours, us.opponent()) || pos.is_attacked(theirs, us) {
        return false;
    }
    pos.tactical_moves().iter().all(|&m| see(pos, m) <= 0.0)
}

/// One game's positions before labelling: each with the side that was to move.
struct GamePositions {
    positions: Vec<Position>,
    winner: Option<Color>,
}

/// Plays game `index` and returns the quiet positions it met (the truth at each searched move,
/// and worlds from the mover's belief).
fn play_game(args: &DatagenArgs, index: u64) -> Result<GamePositions> {
    let game_seed = args.seed.wrapping_add(index);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(game_seed);
    let start = Position::start(args.variant);
    let mut game = Game::new(start.clone());
    let mut infos = [InfoState::new(start.clone(), Color::White), InfoState::new(start, Color::Black)];
    let options = EngineOptions { variant: args.variant, use_net: args.eval == "net", ..EngineOptions::default() };
    let mut searchers: Vec<MurkSearcher> = Color::ALL
        .iter()
        .map(|&side| {
            let config = SearchConfig {
                variant: args.variant,
                side,
                seed: game_seed.wrapping_mul(2).wrapping_add(side.index() as u64),
                threads: 1,
                hash_mib: 64,
                mode: Mode::AlphaBeta,
                eval: options.evaluator(),
            };
            MurkSearcher::new(&config, SearchParams::default())
        })
        .collect();
    let opening = rng.gen_range(0..=args.random_plies);
    let limits = Limits { nodes: Some(args.nodes), ..Limits::default() };
    let mut positions = Vec::new();
    let mut plies = 0;
    while game.outcome().is_none() && plies < args.max_plies {
        let mover = game.position().turn().index();
        let legal = infos[mover].legal_moves();
        let random = plies < opening || rng.gen_bool(args.random_rate);
        let mv = if random {
            *legal.as_slice().choose(&mut rng).ok_or_else(|| anyhow!("no legal move"))?
        } else {
            let mv = searchers[mover].search(&infos[mover], &limits, &AtomicBool::new(false), &mut |_| {});
            positions.push(game.position().clone());
            positions.extend(searchers[mover].draw_worlds(args.worlds, &mut rng).into_iter().map(|(w, _)| w));
            mv.ok_or_else(|| anyhow!("the search offered no move"))?
        };
        infos[mover].send_move(mv).context("the player chose an illegal move")?;
        match game.play(mv).map_err(|e| anyhow!("the referee refused {mv:?}: {e}"))? {
            Played::Bounced(sq) => infos[mover].bounce(sq).context("bounce refused")?,
            Played::Moved(report) => {
                plies += 1;
                for info in &mut infos {
                    let obs = Observation::after_ply(game.position(), &report, info.side());
                    info.observe(obs).context("observation refused")?;
                }
            }
        }
    }
    positions.retain(is_quiet);
    Ok(GamePositions { positions, winner: game.outcome().and_then(|o| o.winner) })
}

/// What a run wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatagenSummary {
    /// Games played.
    pub games: u64,
    /// Training samples written.
    pub train: u64,
    /// Validation samples written.
    pub valid: u64,
    /// Positions skipped because an earlier game had them.
    pub duplicates: u64,
}

/// Runs `murk datagen`, printing progress to stderr and the summary line to `out`.
pub fn run(args: &DatagenArgs, out: &mut impl Write) -> Result<DatagenSummary> {
    if args.jobs == 0 || args.valid_every == 0 {
        bail!("--jobs and --valid-every must be at least 1");
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let create = |name: &str| -> Result<BufWriter<std::fs::File>> {
        let path = args.out.join(name);
        Ok(BufWriter::new(std::fs::File::create(&path).with_context(|| format!("cannot write {}", path.display()))?))
    };
    let (mut train, mut valid) = (create("train.bin")?, create("valid.bin")?);
    let started = Instant::now();
    let next_game = Arc::new(AtomicU64::new(0));
    let (tx, rx) = mpsc::channel::<(u64, Result<Vec<(u64, Sample)>>)>();
    let mut workers = Vec::new();
    for _ in 0..args.jobs.min(args.games.max(1) as usize) {
        let (args, next_game, tx) = (args.clone(), Arc::clone(&next_game), tx.clone());
        workers.push(std::thread::spawn(move || {
            let mut teacher = match Teacher::start(&args) {
                Ok(t) => t,
                Err(e) => return drop(tx.send((0, Err(e)))),
            };
            loop {
                let index = next_game.fetch_add(1, Ordering::Relaxed);
                if index >= args.games {
                    return;
                }
                let labelled = label_game(&args, index, &mut teacher);
                let failed = labelled.is_err();
                if tx.send((index, labelled)).is_err() || failed {
                    return;
                }
            }
        }));
    }
    drop(tx);
    // Games finish out of order; they are written in order, so the files do not depend on --jobs.
    let mut waiting: BTreeMap<u64, Vec<(u64, Sample)>> = BTreeMap::new();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut summary = DatagenSummary::default();
    for (index, labelled) in rx {
        waiting.insert(index, labelled.with_context(|| format!("game {index}"))?);
        while let Some(samples) = waiting.remove(&summary.games) {
            let (file, count) = if summary.games % args.valid_every == 0 {
                (&mut valid, &mut summary.valid)
            } else {
                (&mut train, &mut summary.train)
            };
            for (key, sample) in &samples {
                if seen.insert(*key) {
                    sample.write(file)?;
                    *count += 1;
                } else {
                    summary.duplicates += 1;
                }
            }
            summary.games += 1;
            if summary.games % 10 == 0 || summary.games == args.games {
                eprintln!(
                    "datagen {}: {}/{} games, {} samples, {:.0} s",
                    args.variant,
                    summary.games,
                    args.games,
                    summary.train + summary.valid,
                    started.elapsed().as_secs_f64()
                );
            }
        }
    }
    for worker in workers {
        worker.join().map_err(|_| anyhow!("a datagen worker panicked"))?;
    }
    train.flush()?;
    valid.flush()?;
    writeln!(
        out,
        "datagen variant={} games={} train={} valid={} duplicates={} seconds={:.1}",
        args.variant,
        summary.games,
        summary.train,
        summary.valid,
        summary.duplicates,
        started.elapsed().as_secs_f64()
    )?;
    Ok(summary)
}

/// Plays game `index` and labels its positions (each once), with their keys.
fn label_game(args: &DatagenArgs, index: u64, teacher: &mut Teacher) -> Result<Vec<(u64, Sample)>> {
    let game = play_game(args, index)?;
    teacher.new_game(args.variant)?;
    let mut seen = HashSet::new();
    let mut samples = Vec::new();
    for pos in game.positions {
        let key = pos.repetition_key();
        if !seen.insert(key) {
            continue;
        }
        let result = match game.winner {
            None => 0,
            Some(w) if w == pos.turn() => 1,
            Some(_) => -1,
        };
        samples.push((key, Sample { active: features::active(&pos), score_cp: teacher.score_cp(&pos)?, result }));
    }
    Ok(samples)
}
