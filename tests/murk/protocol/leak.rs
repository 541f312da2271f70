//! The leak test: two different true games that give the engine the same observations, with the
//! same seed, must give byte-identical engine output.
//!
//! Game A is played against a greedy opponent. Game B is A with pairs of the opponent's moves
//! played in the other order (ply k's move at ply k+2 and back), wherever the referee can check
//! beforehand that the engine's observations stay exactly those of A: the true positions
//! between the two plies differ, the engine cannot tell. A fresh engine process, with the same
//! seed, plays B; if its output depended on anything but its observations and seed, it would
//! differ from A's.

use super::harness::{engine_io, greedy_opponent, play, Record, Setup};
use murk::core::{Color, Move, Variant};
use murk::rules::{Game, Outcome, Played, Position};
use murk::view::Observation;

/// The engine's observation and the outcome after each ply when the game is played with these
/// attempts (per ply: bounced drops, then the move), or `None` if some attempt does not replay.
fn engine_observations(
    start: &Position,
    attempts: &[Vec<Move>],
    side: Color,
) -> Option<Vec<(Observation, Option<Outcome>)>> {
    let mut game = Game::new(start.clone());
    let mut seen = Vec::new();
    for ply in attempts {
        let (last, bounced) = ply.split_last()?;
        for &m in bounced {
            if !matches!(game.play(m), Ok(Played::Bounced(_))) {
                return None;
            }
        }
        let Ok(Played::Moved(report)) = game.play(*last) else { return None };
        seen.push((Observation::after_ply(game.position(), &report, side), report.outcome));
    }
    Some(seen)
}

/// A's attempts with as many of the opponent's move pairs swapped as keep every observation of
/// the engine equal; and the number of swaps.
fn swapped_plan(a: &Record, side: Color) -> (Vec<Vec<Move>>, usize) {
    let start = a.game.start();
    let expected = engine_observations(start, &a.attempts, side).expect("A replays");
    let mut plan = a.attempts.clone();
    let mut swaps = 0;
    let mut k = 0;
    while k + 2 < plan.len() {
        let mover = if k % 2 == 0 { start.turn() } else { start.turn().opponent() };
        if mover != side && plan[k] != plan[k + 2] {
            let mut trial = plan.clone();
            trial.swap(k, k + 2);
            if engine_observations(start, &trial, side).as_ref() == Some(&expected) {
                plan = trial;
                swaps += 1;
                k += 4;
                continue;
            }
        }
        k += 1;
    }
    (plan, swaps)
}

/// Plays A games with seeds from `first_seed` on until one allows two swaps, then checks B.
fn leak_check(variant: Variant, side: Color, first_seed: u64) {
    let setup = |seed: u64| Setup {
        variant,
        fen: None,
        side,
        options: vec![("Player", "random".into()), ("Seed", seed.to_string())],
        go: "movetime 100",
        max_plies: 40,
    };
    let (a, plan, seed) = (first_seed..first_seed + 20)
        .find_map(|seed| {
            let a = play(&setup(seed), &mut greedy_opponent(seed));
            assert!(a.errors.is_empty(), "{:?}", a.errors);
            let (plan, swaps) = swapped_plan(&a, side);
            (swaps >= 2).then_some((a, plan, seed))
        })
        .unwrap_or_else(|| panic!("{variant}: no game with two invisible swaps"));
    let mut b_opponent = |game: &Game| {
        let legal = game.position().moves();
        let planned = plan.get(game.moves().len()).and_then(|p| p.last().copied());
        // If the engine left A's path, any legal move will do: the transcripts differ anyway.
        planned.filter(|m| legal.contains(m)).unwrap_or(legal[0])
    };
    let b = play(&setup(seed), &mut b_opponent);
    assert_ne!(a.game.moves(), b.game.moves(), "{variant}: B is a different true game");
    let (a_io, b_io) = (engine_io(&a.transcript).join("\n"), engine_io(&b.transcript).join("\n"));
    assert!(a_io == b_io, "{variant}: equal observations, different engine output:\nA:\n{a_io}\nB:\n{b_io}");
}

#[test]
fn equal_observations_give_byte_identical_output() {
    leak_check(Variant::DarkChess, Color::White, 11);
    leak_check(Variant::DarkCrazyhouse, Color::Black, 12);
    leak_check(Variant::DarkCrossroads, Color::White, 13);
}
