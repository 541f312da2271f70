//! The command line: one clap subcommand per job; with no subcommand Murk speaks the protocol.

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Murk, an engine for fog-of-war chess (dark-crazyhouse, dark-crossroads, dark-chess).
#[derive(Parser, Debug)]
#[command(
    name = "murk",
    version,
    about,
    after_help = "The manual: README.md and docs/ in Murk's source; the protocol: protocol.md."
)]
pub struct Cli {
    /// The job to run; without one, Murk speaks the engine protocol on stdin/stdout.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count the move tree: one line per root move, a blank line, then `Nodes searched: N`.
    #[command(after_help = "The manual: docs/tools.md in Murk's source.")]
    Perft(crate::tools::perft::PerftArgs),
    /// Print one side's view of a position: the text form, then an ASCII diagram.
    #[command(after_help = "The manual: docs/tools.md in Murk's source.")]
    View(crate::tools::view::ViewArgs),
    /// Play a match between two engines under fog, refereed on the true position.
    ///
    /// The runner sends each engine only what protocol.md allows, and prints the score and the
    /// Elo difference as cutechess-cli does.
    #[command(after_help = "The manual: docs/match.md in Murk's source.")]
    Match(crate::runner::MatchArgs),
    /// Play a tournament of many engines under fog (round robin or gauntlet), with a crosstable
    /// and maximum-likelihood ratings of all engines on one scale; `--resume` continues one.
    #[command(after_help = "The manual: docs/match.md in Murk's source.")]
    Tournament(crate::runner::TournamentArgs),
    /// Print the standing of a run from its JSON record files, e.g. those of all its shards: a
    /// match's score, Elo, SPRT and pentanomial lines, or a tournament's crosstable and ratings.
    #[command(after_help = "The manual: docs/match.md in Murk's source.")]
    Results(crate::runner::ResultsArgs),
    /// Print a game recorded by `murk match --json` ply by ply, as ASCII boards of one view.
    #[command(after_help = "The manual: docs/replay.md in Murk's source.")]
    Replay(crate::runner::ReplayArgs),
    /// Measure the belief state against the referee: play games, track each side's belief, and
    /// print the naive baseline, then as the last line `belief-eval variant=... games=... plies=...
    /// consistent=... truth_in_support=... square_acc=... hand_acc=... lost=... update_ms_p50=...
    /// update_ms_p99=...`.
    #[command(after_help = "The manual: docs/tools.md in Murk's source.")]
    BeliefEval(crate::tools::belief_eval::BeliefEvalArgs),
    /// Search a fixed set of positions with a fixed seed and node count; the last two lines are
    /// `Nodes searched: N` (a signature of search and evaluation) and `Nodes/second: X`.
    #[command(after_help = "The manual: docs/tools.md in Murk's source.")]
    Bench(crate::tools::bench::BenchArgs),
    /// Replay recorded games and search sampled turns at several move times: what more time
    /// changes (depth, worlds, nodes, the move chosen, its worst-world score), one line per time.
    #[command(after_help = "The manual: docs/tools.md in Murk's source.")]
    Scaling(crate::tools::scaling::ScalingArgs),
    /// Speak the engine protocol, choosing moves by running a UCI variant engine (e.g.
    /// Fairy-Stockfish) on worlds drawn from Murk's belief.
    #[command(after_help = "The manual: docs/uci-fog.md in Murk's source.")]
    UciFog(crate::uci_fog::UciFogArgs),
    /// Write training positions for the learned evaluation: Murk's own games under fog, the
    /// truth and belief worlds, labelled by a teacher and the result (train.bin, valid.bin);
    /// `--shard K/N` plays part of a run, `murk datagen merge` joins the parts.
    #[command(after_help = "The manual: docs/nets.md in Murk's source.")]
    Datagen(crate::datagen::DatagenCommand),
    /// Serve Mistboard's engine protocol (one JSON request per turn) over HTTP or stdio, so a
    /// game server can use Murk as its engine.
    #[command(after_help = "The manual: docs/serve.md in Murk's source.")]
    Serve(crate::serve::ServeArgs),
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        None => crate::protocol::run_stdio(crate::engine::Session::default())?,
        Some(Command::Perft(args)) => crate::tools::perft::run(&args, &mut std::io::stdout().lock())?,
        Some(Command::View(args)) => crate::tools::view::run(&args, &mut std::io::stdout().lock())?,
        Some(Command::Match(args)) => crate::runner::run_match_command(&args)?,
        Some(Command::Tournament(args)) => crate::runner::run_tournament_command(&args)?,
        Some(Command::Results(args)) => crate::runner::run_results_command(&args)?,
        Some(Command::Replay(args)) => crate::runner::run_replay_command(&args)?,
        Some(Command::Bench(args)) => crate::tools::bench::run(&args, &mut std::io::stdout().lock())?,
        Some(Command::Scaling(args)) => crate::tools::scaling::run(&args, &mut std::io::stdout().lock())?,
        Some(Command::UciFog(args)) => crate::uci_fog::run(&args)?,
        Some(Command::Datagen(command)) => crate::datagen::run_command(&command, &mut std::io::stdout().lock())?,
        Some(Command::Serve(args)) => crate::serve::run(&args)?,
        Some(Command::BeliefEval(args)) => match (&args.records, &args.fit) {
            (Some(path), Some(name)) => {
                crate::tools::opponent_fit::run(path, args.variant, name, &mut std::io::stdout().lock())?;
            }
            (Some(path), None) => {
                crate::tools::belief_records::run(&args, path, &mut std::io::stdout().lock())?;
            }
            (None, _) => {
                crate::tools::belief_eval::run(&args, &mut std::io::stdout().lock())?;
            }
        },
    }
    Ok(())
}
