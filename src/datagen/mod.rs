//! `murk datagen`: training positions for the learned evaluation. Murk plays itself under fog at
//! a fixed node count (a few random plies first, and now and then a random move, for variety);
//! at each of its moves the true position and a few worlds drawn from the mover's belief are kept,
//! labelled with the game's result, the value Murk's search gave that move over its whole belief
//! (what the fog costs), and a teacher's score of the world itself (Fairy-Stockfish's search at a
//! fixed node count, or without one Murk's own alpha-beta on the world), and written as
//! [`crate::eval::samples`] records: `train.bin`, and `valid.bin` from every `--valid-every`-th game.
//!
//! Only quiet positions are kept (no king under attack, no capture that wins material by static
//! exchange): the search asks the evaluation about quiet positions, and a tactical position's
//! score says more about the tactic than about the position. A position already kept (by
//! [`Position::repetition_key`]) is not labelled again. A run is a function of its arguments: games are seeded
//! by number, and their samples are written in game order whatever `--jobs` is.
//!
//! A run can be split: `--shard K/N` plays games K, K+N, K+2N, ... into its own
//! [`games_file`], `--resume` continues a killed one, and [`merge`] turns the files of all shards
//! into the training files one run would have written (an unsplit run does the same with its one
//! file).

pub mod games_file;
pub mod merge;

use crate::core::{Color, Variant};
use crate::engine::EngineOptions;
use crate::eval::features;
use crate::eval::samples::{Sample, MAX_CP};
use crate::eval::see::see;
use crate::eval::{Evaluator, WIN};
use crate::rules::{Game, Played, Position};
use crate::search::alphabeta::{score_root_moves, WorldLimit, DEFAULT_TABLE_ENTRIES};
use crate::search::{Limits, SearchConfig, SearchInfo, Searcher};
use crate::search::{Mode, MurkSearcher, SearchParams};
use crate::shard::Shard;
use crate::uci_fog::child::{ChildConfig, ChildEngine, ChildLimit};
use crate::uci_fog::{fsf_variant, variants_file};
use crate::view::{InfoState, Observation};
use anyhow::{anyhow, bail, Context, Result};
use games_file::{GamesWriter, Header, LabelledGame};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// The command line of `murk datagen`: play games (the default), or merge the files of shards.
#[derive(clap::Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct DatagenCommand {
    /// `merge`: the training files from the games files of all shards of a run.
    #[command(subcommand)]
    pub action: Option<DatagenAction>,
    /// The games to play.
    #[command(flatten)]
    pub play: Option<DatagenArgs>,
}

/// What `murk datagen` does besides playing.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum DatagenAction {
    /// Write train.bin and valid.bin from the games files of every shard of one run, exactly as
    /// the unsplit run would have.
    Merge(merge::MergeArgs),
}

/// The arguments of a `murk datagen` run.
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
    /// The folder to write into (created if missing): the shard's games file
    /// `games-K-of-N.bin` and, for an unsplit run, `train.bin` and `valid.bin`.
    #[arg(long)]
    pub out: PathBuf,
    /// Play only part K of N of the games (those numbered K, K+N, ...), into its own games
    /// file; `murk datagen merge` makes the training files from all N.
    #[arg(long, default_value_t = Shard::WHOLE)]
    pub shard: Shard,
    /// Continue the games file a killed run of the same arguments left in --out.
    #[arg(long)]
    pub resume: bool,
}

impl DatagenArgs {
    /// Every argument the games depend on, as one line (the games file's run line). The
    /// teacher is named by its file name, so shards on machines with other paths still match.
    fn run_line(&self) -> String {
        let teacher = match &self.teacher {
            Some(path) => path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into()),
            None => "murk".to_string(),
        };
        format!(
            "variant={} seed={} games={} nodes={} worlds={} random_plies={} random_rate={} max_plies={} teacher={} teacher_nodes={} eval={} valid_every={}",
            self.variant,
            self.seed,
            self.games,
            self.nodes,
            self.worlds,
            self.random_plies,
            self.random_rate,
            self.max_plies,
            teacher.replace(char::is_whitespace, "_"),
            self.teacher_nodes,
            self.eval,
            self.valid_every
        )
    }
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

/// One game's positions before labelling: each with the value the mover's search gave it over
/// its belief, in centipawns.
struct GamePositions {
    positions: Vec<(Position, i32)>,
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
            let mut value = 0;
            let report = &mut |info: SearchInfo| value = info.score_cp.unwrap_or(value);
            let mv = searchers[mover].search(&infos[mover], &limits, &AtomicBool::new(false), report);
            positions.push((game.position().clone(), value));
            let worlds = searchers[mover].draw_worlds(args.worlds, &mut rng);
            positions.extend(worlds.into_iter().map(|(w, _)| (w, value)));
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
    positions.retain(|(pos, _)| is_quiet(pos));
    Ok(GamePositions { positions, winner: game.outcome().and_then(|o| o.winner) })
}

/// What the training files of a run hold.
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

/// What a `murk datagen` run did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatagenReport {
    /// Games of the shard in its games file (those of a resumed run included).
    pub games: u64,
    /// Of them, games this run played (the others were resumed).
    pub played: u64,
    /// Samples in the games file.
    pub samples: u64,
    /// The training files written, for an unsplit run.
    pub merged: Option<DatagenSummary>,
}

/// Runs `murk datagen`: plays the shard's games into its games file (continuing it with
/// `--resume`), and for an unsplit run writes the training files from it. Prints progress to
/// stderr and a summary line to `out`.
pub fn run(args: &DatagenArgs, out: &mut impl Write) -> Result<DatagenReport> {
    if args.jobs == 0 || args.valid_every == 0 {
        bail!("--jobs and --valid-every must be at least 1");
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let header = Header { run: args.run_line(), shard: args.shard };
    let path = games_file::path(&args.out, args.shard);
    let (resumed, mut file) = if args.resume {
        GamesWriter::resume(&path, &header)?
    } else {
        (Vec::new(), GamesWriter::create(&path, &header)?)
    };
    let mut todo = (0..args.games).filter(|&i| args.shard.owns(i));
    for (game, expected) in resumed.iter().zip(todo.by_ref()) {
        if game.index != expected {
            bail!("{} holds game {} where game {expected} belongs", path.display(), game.index);
        }
    }
    let todo: Vec<u64> = todo.collect();
    if !resumed.is_empty() {
        eprintln!("Resuming: {} games of shard {} already played, {} to go", resumed.len(), args.shard, todo.len());
    }
    let mut report = DatagenReport {
        games: resumed.len() as u64,
        played: 0,
        samples: resumed.iter().map(|g| g.samples.len() as u64).sum(),
        merged: None,
    };
    let started = Instant::now();
    play_shard(args, &todo, |game| {
        file.write(&game)?;
        report.games += 1;
        report.played += 1;
        report.samples += game.samples.len() as u64;
        if report.played.is_multiple_of(10) || report.played == todo.len() as u64 {
            eprintln!(
                "datagen {} shard {}: {} games, {} samples, {:.0} s",
                args.variant,
                args.shard,
                report.games,
                report.samples,
                started.elapsed().as_secs_f64()
            );
        }
        Ok(())
    })?;
    drop(file);
    let seconds = started.elapsed().as_secs_f64();
    if args.shard.is_whole() {
        let (_, summary) = merge::merge(&[path], &args.out, false)?;
        writeln!(out, "{} seconds={seconds:.1}", summary_line(args.variant, &summary))?;
        report.merged = Some(summary);
    } else {
        writeln!(
            out,
            "datagen variant={} shard={} games={} samples={} seconds={seconds:.1}",
            args.variant, args.shard, report.games, report.samples
        )?;
    }
    Ok(report)
}

/// Runs a `murk datagen` command line: a run, or a merge of shards.
pub fn run_command(command: &DatagenCommand, out: &mut impl Write) -> Result<()> {
    match (&command.action, &command.play) {
        (Some(DatagenAction::Merge(args)), _) => {
            let (run, summary) = merge::merge(&args.files, &args.out, args.partial)?;
            writeln!(out, "{}", summary_line(merge::run_value(&run, "variant")?, &summary))?;
        }
        (None, Some(args)) => {
            run(args, out)?;
        }
        (None, None) => bail!("murk datagen needs --variant and --out (or the merge subcommand); see --help"),
    }
    Ok(())
}

/// The line that says what training files hold.
pub fn summary_line(variant: Variant, summary: &DatagenSummary) -> String {
    format!(
        "datagen variant={} games={} train={} valid={} duplicates={}",
        variant, summary.games, summary.train, summary.valid, summary.duplicates
    )
}

/// Plays and labels the games numbered `todo`, `--jobs` at once, and hands them to `on_game`
/// in the order of `todo` (games finish out of order; the files must not depend on `--jobs`).
fn play_shard(args: &DatagenArgs, todo: &[u64], mut on_game: impl FnMut(LabelledGame) -> Result<()>) -> Result<()> {
    let next = Arc::new(AtomicU64::new(0));
    let (tx, rx) = mpsc::channel::<(usize, Result<LabelledGame>)>();
    let mut workers = Vec::new();
    for _ in 0..args.jobs.min(todo.len().max(1)) {
        let (args, todo, next, tx) = (args.clone(), todo.to_vec(), Arc::clone(&next), tx.clone());
        workers.push(std::thread::spawn(move || {
            let mut teacher = match Teacher::start(&args) {
                Ok(t) => t,
                Err(e) => return drop(tx.send((0, Err(e)))),
            };
            loop {
                let slot = next.fetch_add(1, Ordering::Relaxed) as usize;
                let Some(&index) = todo.get(slot) else { return };
                let labelled = label_game(&args, index, &mut teacher).with_context(|| format!("game {index}"));
                let failed = labelled.is_err();
                if tx.send((slot, labelled)).is_err() || failed {
                    return;
                }
            }
        }));
    }
    drop(tx);
    let mut waiting: BTreeMap<usize, LabelledGame> = BTreeMap::new();
    let mut written = 0;
    for (slot, labelled) in rx {
        waiting.insert(slot, labelled?);
        while let Some(game) = waiting.remove(&written) {
            on_game(game)?;
            written += 1;
        }
    }
    for worker in workers {
        worker.join().map_err(|_| anyhow!("a datagen worker panicked"))?;
    }
    Ok(())
}

/// Plays game `index` and labels its positions (each once), with their keys.
fn label_game(args: &DatagenArgs, index: u64, teacher: &mut Teacher) -> Result<LabelledGame> {
    let game = play_game(args, index)?;
    teacher.new_game(args.variant)?;
    let mut seen = HashSet::new();
    let mut samples = Vec::new();
    for (pos, belief) in game.positions {
        let key = pos.repetition_key();
        if !seen.insert(key) {
            continue;
        }
        let result = match game.winner {
            None => 0,
            Some(w) if w == pos.turn() => 1,
            Some(_) => -1,
        };
        let sample = Sample {
            active: features::active(&pos),
            score_cp: teacher.score_cp(&pos)?,
            result,
            belief_cp: belief.clamp(-i32::from(MAX_CP), i32::from(MAX_CP)) as i16,
        };
        samples.push((key, sample));
    }
    Ok(LabelledGame { index, samples })
}
