//! The leak property through the server: two different true games whose requests to the engine
//! are identical get identical answers.
//!
//! Game A is played against a greedy opponent. Game B swaps pairs of the opponent's moves (ply
//! k's move at ply k+2 and back) wherever the referee can check beforehand that every request
//! the engine would get stays byte-identical to A's: the true positions in between differ, the
//! engine cannot tell. B is played on another session of the same game id (so the same seeds);
//! if an answer depended on anything but the request, B's answers would differ from A's. The
//! built-in players are deterministic whatever the time, so the answers must be equal exactly.

use super::client::{local_player, play, Http, Played, Reply, BUDGET_MS, WATCHDOG_MS};
use super::referee::{Referee, Seat};
use crate::protocol::greedy_opponent;
use murk::core::{Color, Move, Variant};
use serde_json::Value;
use std::cell::RefCell;

/// One step of a game: the engine's answer (a played move or a bounced drop), or the opponent's move.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Engine(Value),
    Opponent(Move),
}

/// The requests the engine gets when the game follows `plan`, or `None` if it does not replay.
fn requests_of(seat: &Seat, plan: &[Step]) -> Option<Vec<Value>> {
    let mut referee = Referee::new(seat.clone());
    let mut requests = Vec::new();
    for step in plan {
        match step {
            Step::Engine(answer) => {
                if !referee.engine_to_move() {
                    return None;
                }
                requests.push(referee.request(requests.len() as u64 * 7919 + 11));
                referee.play_engine(answer).ok()?;
            }
            Step::Opponent(m) => {
                if referee.engine_to_move()
                    || referee.game.outcome().is_some()
                    || !referee.game.position().moves().contains(m)
                {
                    return None;
                }
                referee.play_opponent(*m);
            }
        }
    }
    Some(requests)
}

/// Plays a game on `http`, recording its steps; the opponent is `opponent`.
fn recorded(http: &Http, seat: Seat, opponent: &mut dyn FnMut(&murk::rules::Game) -> Move) -> (Played, Vec<Step>) {
    let steps = RefCell::new(Vec::new());
    let mut ask = |request: &Value, _| {
        let reply = http.turn(request, BUDGET_MS, WATCHDOG_MS);
        steps.borrow_mut().push(Step::Engine(reply.body["move"].clone()));
        reply
    };
    let mut opp = |game: &murk::rules::Game| {
        let m = opponent(game);
        steps.borrow_mut().push(Step::Opponent(m));
        m
    };
    let played = play(seat, &mut ask, &mut opp, 60, WATCHDOG_MS);
    (played, steps.into_inner())
}

/// A's plan with as many opponent move pairs swapped as keep every request equal; the swaps.
fn swapped(seat: &Seat, plan: &[Step]) -> (Vec<Step>, usize) {
    let expected = requests_of(seat, plan).expect("A replays");
    let opponent: Vec<usize> = (0..plan.len()).filter(|&i| matches!(plan[i], Step::Opponent(_))).collect();
    let mut plan = plan.to_vec();
    let mut swaps = 0;
    let mut k = 0;
    while k + 1 < opponent.len() {
        let (i, j) = (opponent[k], opponent[k + 1]);
        if plan[i] != plan[j] {
            let mut trial = plan.clone();
            trial.swap(i, j);
            if requests_of(seat, &trial).as_ref() == Some(&expected) {
                plan = trial;
                swaps += 1;
                k += 2;
                continue;
            }
        }
        k += 1;
    }
    (plan, swaps)
}

/// What an answer says, less the time it took.
fn answer(reply: &Reply) -> Value {
    let mut body = reply.body.clone();
    if let Some(d) = body["diagnostics"].as_object_mut() {
        d.remove("elapsedMs");
    }
    body.as_object_mut().map(|o| o.remove("sessionId"));
    body
}

fn leak_check(player: &str, variant: Variant, side: Color) {
    let local = local_player(player);
    let found = (0..30u64).find_map(|seed| {
        let mut seat = Seat::new(variant, side, &format!("leak-{player}-{seed}"));
        seat.session_id = format!("A-{seed}");
        let (a, steps) = recorded(&local.http, seat.clone(), &mut greedy_opponent(seed));
        let (plan, swaps) = swapped(&seat, &steps);
        (swaps >= 2).then_some((seat, a, plan))
    });
    let (seat, a, plan) = found.unwrap_or_else(|| panic!("{player} {variant}: no game with two invisible swaps"));
    let mut b_seat = seat.clone();
    b_seat.session_id = seat.session_id.replace("A-", "B-");
    let opponent_moves: Vec<Move> =
        plan.iter().filter_map(|s| if let Step::Opponent(m) = s { Some(*m) } else { None }).collect();
    let mut next = 0;
    let mut b_opponent = |game: &murk::rules::Game| {
        let legal = game.position().moves();
        let planned = opponent_moves.get(next).copied().filter(|m| legal.contains(m));
        next += 1;
        planned.unwrap_or(legal[0])
    };
    let (b, _) = recorded(&local.http, b_seat, &mut b_opponent);
    assert_ne!(a.referee.game.moves(), b.referee.game.moves(), "{player} {variant}: B is a different true game");
    assert_eq!(a.replies.len(), b.replies.len(), "{player} {variant}");
    for (i, (ra, rb)) in a.replies.iter().zip(&b.replies).enumerate() {
        assert_eq!(answer(ra), answer(rb), "{player} {variant}: answer {i} differs on equal requests");
    }
}

#[test]
fn equal_requests_get_equal_answers_whatever_the_true_game() {
    leak_check("random", Variant::DarkChess, Color::White);
    leak_check("greedy", Variant::DarkCrazyhouse, Color::Black);
    leak_check("random", Variant::DarkCrossroads, Color::White);
}
