//! The session cache and the time: a transcript that extends the held one is applied
//! incrementally, one that does not is replayed from the start, the least recently used game is
//! dropped past `--max-games`, and none of it changes an answer; different sessions are searched
//! in parallel, one session's requests in order; observation pushes and deltas; the budget and
//! watchdog headers and the clock.

use super::client::{local, local_player, play, Http, Reply, BUDGET_MS, WATCHDOG_MS};
use super::referee::{Referee, Seat};
use crate::protocol::greedy_opponent;
use murk::core::{Color, Variant};
use murk::serve::{HttpConfig, ServeConfig, Timing, TurnBudget};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn without_time(reply: &Reply) -> Value {
    let mut body = reply.body.clone();
    let diagnostics = body["diagnostics"].as_object_mut().expect("diagnostics");
    diagnostics.remove("elapsedMs");
    diagnostics.remove("cache");
    body
}

/// The requests of a game the engine plays as `side` (answers from a random player).
fn game_requests(variant: Variant, side: Color, name: &str, http: &Http) -> Vec<Value> {
    let mut requests = Vec::new();
    let seat = Seat::new(variant, side, name);
    let mut ask = |request: &Value, _| {
        requests.push(request.clone());
        http.turn(request, BUDGET_MS, WATCHDOG_MS)
    };
    play(seat, &mut ask, &mut greedy_opponent(9), 40, WATCHDOG_MS);
    requests
}

#[test]
fn extending_rebuilding_and_evicting_sessions_never_changes_an_answer() {
    let reference = local_player("random");
    let games: Vec<Vec<Value>> = [
        (Variant::DarkChess, Color::White),
        (Variant::DarkCrazyhouse, Color::Black),
        (Variant::DarkCrossroads, Color::White),
    ]
    .iter()
    .enumerate()
    .map(|(i, &(v, s))| game_requests(v, s, &format!("cache-{i}"), &reference.http))
    .collect();
    let expected: Vec<Vec<Value>> = games
        .iter()
        .map(|g| g.iter().map(|r| without_time(&reference.http.turn(r, BUDGET_MS, WATCHDOG_MS))).collect())
        .collect();
    // Two games held at most, three played interleaved: every request of a game whose state
    // was dropped is replayed from the start.
    let small =
        local(ServeConfig { player: "random".into(), max_games: 2, ..ServeConfig::default() }, HttpConfig::default());
    let mut labels = Vec::new();
    let longest = games.iter().map(Vec::len).max().unwrap_or(0);
    for turn in 0..longest {
        for (g, (requests, answers)) in games.iter().zip(&expected).enumerate() {
            let Some(request) = requests.get(turn) else { continue };
            let reply = small.http.turn(request, BUDGET_MS, WATCHDOG_MS);
            assert_eq!(without_time(&reply), answers[turn], "game {g} turn {turn}");
            labels.push(reply.body["diagnostics"]["cache"].as_str().unwrap_or("").to_string());
            assert!(small.engine.stats().sessions <= 2);
        }
    }
    assert!(labels.iter().filter(|l| *l == "new").count() > 3, "evicted games come back as new: {labels:?}");
    // In order, one game at a time: each request extends the held transcript.
    let roomy = local_player("random");
    for (g, requests) in games.iter().enumerate() {
        for (turn, request) in requests.iter().enumerate() {
            let reply = roomy.http.turn(request, BUDGET_MS, WATCHDOG_MS);
            assert_eq!(without_time(&reply), expected[g][turn]);
            let label = reply.body["diagnostics"]["cache"].as_str().unwrap_or("");
            assert_eq!(label, if turn == 0 { "new" } else { "extended" }, "game {g} turn {turn}");
        }
        // The same request again: nothing new to apply.
        let again = roomy.http.turn(requests.last().unwrap(), BUDGET_MS, WATCHDOG_MS);
        assert_eq!(again.body["diagnostics"]["cache"], "hit");
        // A transcript that does not extend the held one (the game's start again): replayed.
        let restart = roomy.http.turn(&requests[0], BUDGET_MS, WATCHDOG_MS);
        assert_eq!(restart.body["diagnostics"]["cache"], "rebuilt");
        assert_eq!(without_time(&restart), expected[g][0]);
    }
}

#[test]
fn different_sessions_run_in_parallel_and_one_session_in_order() {
    let server = local_player("murk");
    let budget = 300;
    let requests: Vec<Value> = (0..6)
        .map(|i| Referee::new(Seat::new(Variant::DarkChess, Color::White, &format!("par-{i}"))).request(1))
        .collect();
    let started = Instant::now();
    let replies: Vec<Reply> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            requests.iter().map(|r| scope.spawn(|| server.http.turn(r, budget, budget * 4))).collect();
        handles.into_iter().map(|h| h.join().expect("a reply")).collect()
    });
    let parallel = started.elapsed();
    assert!(replies.iter().all(|r| r.status == 200));
    assert!(parallel < Duration::from_millis(budget * 3), "6 sessions took {parallel:?}: not in parallel");
    // Two requests of one session at once: the second waits for the first and finds the state
    // the first built (its time ran while it waited, so it answers at once).
    let same = Referee::new(Seat::new(Variant::DarkChess, Color::White, "same-session")).request(1);
    let replies: Vec<Reply> = std::thread::scope(|scope| {
        let a = scope.spawn(|| server.http.turn(&same, budget, budget * 10));
        let b = scope.spawn(|| server.http.turn(&same, budget, budget * 10));
        vec![a.join().expect("a"), b.join().expect("b")]
    });
    assert!(replies.iter().all(|r| r.status == 200), "{replies:?}");
    let mut labels: Vec<&str> = replies.iter().map(|r| r.body["diagnostics"]["cache"].as_str().unwrap_or("")).collect();
    labels.sort();
    assert_eq!(labels, ["hit", "new"], "one request built the session, the other found it built");
    let (first, second) = if replies[0].body["diagnostics"]["cache"] == "new" {
        (&replies[0], &replies[1])
    } else {
        (&replies[1], &replies[0])
    };
    assert!(second.elapsed + Duration::from_millis(20) >= first.elapsed, "the second ended before the first");
}

#[test]
fn the_budget_header_the_watchdog_and_the_clock_bound_the_answer() {
    let server = local_player("murk");
    let referee = Referee::new(Seat::new(Variant::DarkCrazyhouse, Color::White, "time"));
    let mut request = referee.request(3);
    // The budget is spent, about all of it.
    let reply = server.http.turn(&request, 250, 5000);
    assert_eq!(reply.status, 200);
    assert!(
        reply.elapsed >= Duration::from_millis(180) && reply.elapsed < Duration::from_millis(1500),
        "{:?}",
        reply.elapsed
    );
    assert_eq!(reply.body["diagnostics"]["budgetMs"], 250);
    // A budget beyond the watchdog: the watchdog wins.
    request["sessionId"] = json!("time-2");
    let reply = server.http.turn(&request, 10_000, 400);
    assert_eq!(reply.status, 200);
    assert!(reply.elapsed < Duration::from_millis(400), "answered after the watchdog: {:?}", reply.elapsed);
    // No budget header: the clock decides (3 s left, a thirtieth of it).
    request["sessionId"] = json!("time-3");
    request["clock"] = json!({ "remaining_ms": 3000, "increment_ms": 0 });
    let reply = server.http.post(
        "/internal/engine/turn",
        &request.to_string(),
        &[("x-mistboard-engine-timeout-ms", "5000".into())],
    );
    assert_eq!(reply.status, 200);
    let budget = reply.body["diagnostics"]["budgetMs"].as_u64().unwrap();
    assert!((90..=100).contains(&budget), "{budget}");
    assert!(reply.elapsed < Duration::from_millis(1000), "{:?}", reply.elapsed);
}

#[test]
fn the_time_plan_follows_the_headers_then_the_clock() {
    let at = Instant::now();
    let clock = |remaining: Option<f64>| murk::serve::wire::WireClock { remaining_ms: remaining, increment_ms: 2000.0 };
    let plan = |budget, watchdog, remaining| {
        TurnBudget::new(
            &Timing { received: at, compute_budget_ms: budget, watchdog_ms: watchdog },
            &clock(remaining),
            5,
        )
    };
    let p = plan(Some(800), Some(6000), Some(60_000.0));
    assert_eq!((p.movetime_ms, p.clock_ms, p.budget_ms), (Some(800), None, 800));
    assert_eq!(p.answer_by, at + Duration::from_millis(6000 - 250));
    let p = plan(Some(800), Some(500), None);
    assert_eq!((p.movetime_ms, p.answer_by), (Some(450), at + Duration::from_millis(450)));
    let p = plan(None, None, Some(60_000.0));
    assert_eq!((p.movetime_ms, p.clock_ms), (None, Some((60_000, 2000))));
    assert_eq!(p.budget_ms, (60_000 - 5) / 30 + 1500);
    let p = plan(None, Some(1000), Some(60_000.0));
    assert_eq!(p.movetime_ms, Some(900), "the watchdog caps a clock's move");
    let p = plan(None, None, None);
    assert_eq!((p.movetime_ms, p.answer_by), (Some(1000), at + Duration::from_millis(2100)));
    // Absurd values are bounded, never an overflow.
    let p = plan(Some(u64::MAX), None, Some(1e300));
    assert_eq!(p.movetime_ms, Some(600_000));
    let p = plan(None, Some(u64::MAX), Some(f64::MAX));
    assert!(p.answer_by <= at + Duration::from_secs(600));
    let p = plan(None, None, Some(-5.0));
    assert_eq!(p.clock_ms, Some((0, 2000)));
}

#[test]
fn observation_pushes_and_deltas_continue_a_held_session() {
    let server = local_player("random");
    let reference = local_player("random");
    let mut referee = Referee::new(Seat::new(Variant::DarkChess, Color::White, "delta"));
    let mut opponent = greedy_opponent(4);
    let mut turns = 0;
    while referee.game.outcome().is_none() && turns < 12 {
        if !referee.engine_to_move() {
            let m = opponent(&referee.game);
            referee.play_opponent(m);
            continue;
        }
        let full = referee.request(turns);
        let mut request = full.clone();
        if turns > 0 {
            let latest = request["observationTranscript"].as_array().unwrap().last().cloned().unwrap();
            request.as_object_mut().unwrap().remove("observationTranscript");
            request["latestObservationDelta"] = latest;
        }
        let reply = server.http.turn(&request, BUDGET_MS, WATCHDOG_MS);
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(reply.body["diagnostics"]["cache"], if turns == 0 { "new" } else { "delta" });
        let expected = reference.http.turn(&full, BUDGET_MS, WATCHDOG_MS);
        assert_eq!(reply.body["move"], expected.body["move"], "a delta gives the answer the whole transcript gives");
        referee.play_engine(&reply.body["move"]).expect("legal");
        // Push the own-move observation, as Mistboard does right after applying the move.
        let own = referee.final_observation.clone().unwrap_or_else(|| referee.transcript.last().cloned().unwrap());
        let push = json!({
            "protocolVersion": "1", "gameId": full["gameId"], "engineId": "murk-test", "sessionId": full["sessionId"],
            "color": "white", "ply": own["ply"], "observation": own,
        });
        let ack = server.http.post("/internal/engine/observe", &push.to_string(), &[]);
        assert_eq!(ack.status, 200, "{}", ack.body);
        assert_eq!(
            ack.body,
            json!({ "protocolVersion": "1", "gameId": full["gameId"], "sessionId": full["sessionId"], "received": true })
        );
        // A second push of the same ply is a duplicate, and harmless.
        assert_eq!(server.http.post("/internal/engine/observe", &push.to_string(), &[]).status, 200);
        turns += 1;
    }
    assert!(turns >= 3);
    // The final observation (game over) ends the session.
    let mut last = referee.transcript.last().cloned().unwrap();
    last["game_over"] = json!({ "winner": null, "reason": "draw" });
    let push = json!({ "protocolVersion": "1", "gameId": "game-delta", "sessionId": "session-delta-white", "color": "white", "ply": last["ply"], "observation": last });
    let before = server.engine.stats().sessions;
    assert_eq!(server.http.post("/internal/engine/observe", &push.to_string(), &[]).status, 200);
    assert_eq!(server.engine.stats().sessions, before - 1);
    let bad = server.http.post("/internal/engine/observe", "{\"protocolVersion\":\"1\"}", &[]);
    assert_eq!(bad.status, 400, "{}", bad.body);
}
