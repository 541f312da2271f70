//! Helpers shared by the test modules: seeded random games through the referee.

use murk::core::{Color, Move, Variant};
use murk::rules::{Game, Played, Position};
use murk::view::Observation;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A seeded random number generator.
pub fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// One ply of a random game, as the referee saw it.
pub struct Ply {
    /// The position before the ply.
    pub before: Position,
    /// The move played.
    pub mv: Move,
    /// The position after the ply.
    pub after: Position,
    /// What each side observed after it, White first.
    pub observations: [Observation; 2],
}

/// A step of a random game.
pub enum Step<'a> {
    /// A ply was played.
    Ply(&'a Ply),
    /// The side to move tried a drop onto an occupied square it cannot see, and it bounced.
    Bounce(&'a Position, Move),
}

/// Plays a random game of `variant` up to `max_plies` (in Crazyhouse, a drop onto a hidden
/// occupied square is tried now and then and bounces), calling `on_step` after every step.
pub fn random_game(variant: Variant, seed: u64, max_plies: usize, mut on_step: impl FnMut(Step)) -> Game {
    let mut rng = rng(seed);
    let mut game = Game::new(Position::start(variant));
    for _ in 0..max_plies {
        if game.outcome().is_some() {
            break;
        }
        let before = game.position().clone();
        if variant.has_hands() && rng.gen_bool(0.2) {
            if let Some(m) = bouncing_drop(&game, &mut rng) {
                if let Ok(Played::Bounced(_)) = game.play(m) {
                    on_step(Step::Bounce(&before, m));
                }
            }
        }
        let moves = before.moves();
        let &mv = moves.choose(&mut rng).expect("a game that is not over has moves");
        let Ok(Played::Moved(report)) = game.play(mv) else { panic!("pseudo-legal move {mv:?} refused") };
        let after = game.position().clone();
        let observations = [Color::White, Color::Black].map(|c| Observation::after_ply(&after, &report, c));
        on_step(Step::Ply(&Ply { before, mv, after, observations }));
    }
    game
}

/// A drop from the mover's hand onto an occupied square it cannot see, if there is one.
fn bouncing_drop(game: &Game, rng: &mut impl Rng) -> Option<Move> {
    let pos = game.position();
    let role = pos.hand(pos.turn()).roles().find(|&r| r != murk::core::Role::Pawn)?;
    let (seen, sil) = murk::rules::vision(pos, pos.turn());
    let hidden: Vec<_> = (pos.occupied() & !seen & !sil & !game.bounced_this_turn()).collect();
    hidden.choose(rng).map(|&sq| Move::drop(role, sq))
}

/// Runs `murk` with `args`; its stdout.
pub fn murk(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_murk")).args(args).output().expect("run murk");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "murk {args:?}: {stderr}");
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The number after `key=` in `line`.
pub fn field(line: &str, key: &str) -> f64 {
    let value = line.split_whitespace().find_map(|w| w.strip_prefix(&format!("{key}="))).expect(key);
    value.parse().unwrap_or_else(|_| panic!("{key}={value}"))
}

/// Records `games` Dark Chess games of builtin:random (White first) against builtin:greedy at 20 ms
/// a move with `seed`, by `murk match --json`, in a fresh temporary folder named after `name`;
/// the folder and the records file.
pub fn recorded_random_greedy_games(name: &str, games: usize, seed: u64) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("murk-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let json = dir.join("games.json");
    let (games, seed) = (games.to_string(), seed.to_string());
    murk(&[
        "match",
        "--variant",
        "dark-chess",
        "--engine",
        "builtin:random",
        "--engine",
        "builtin:greedy",
        "--games",
        &games,
        "--movetime",
        "20",
        "--seed",
        &seed,
        "--no-progress",
        "--json",
        json.to_str().expect("path"),
    ]);
    (dir, json)
}
