//! Whole games through the server: every answer legal (one of `legalMoves`, and a move of the
//! true game) and in before the watchdog, over HTTP and over stdio.

use super::client::{binary_http, envelope, local_player, play, Process, Reply, BUDGET_MS, WATCHDOG_MS};
use super::referee::Seat;
use crate::protocol::greedy_opponent;
use murk::core::{Color, Variant};
use std::time::Duration;

const SEATS: [(Variant, Color); 4] = [
    (Variant::DarkChess, Color::White),
    (Variant::DarkChess, Color::Black),
    (Variant::DarkCrazyhouse, Color::White),
    (Variant::DarkCrossroads, Color::Black),
];

#[test]
fn http_plays_whole_games_of_each_variant() {
    let local = local_player("murk");
    let mut ended = 0;
    for (i, &(variant, side)) in SEATS.iter().enumerate() {
        let seat = Seat::new(variant, side, &format!("http-{i}"));
        let http = local.http.clone();
        let mut ask = |request: &serde_json::Value, _| http.turn(request, BUDGET_MS, WATCHDOG_MS);
        let played = play(seat, &mut ask, &mut greedy_opponent(i as u64), 160, WATCHDOG_MS);
        assert!(played.replies.len() >= 3, "{variant}: too short a game to test anything");
        let sources: Vec<&str> =
            played.replies.iter().filter_map(|r| r.body["diagnostics"]["source"].as_str()).collect();
        assert!(sources.iter().all(|&s| s == "search"), "{variant}: {sources:?}");
        let slowest = played.replies.iter().map(|r| r.elapsed).max().unwrap_or_default();
        let outcome = played.referee.game.outcome().map_or("unfinished".to_string(), |o| o.to_string());
        let plies = played.referee.game.moves().len();
        eprintln!(
            "{variant} {}: {plies} plies, {outcome}, {} answers, slowest {slowest:?}",
            side.name(),
            played.replies.len()
        );
        ended += usize::from(played.referee.game.outcome().is_some());
    }
    assert!(ended >= 2, "most games should end within 160 plies ({ended} of {})", SEATS.len());
    let stats = local.engine.stats();
    assert_eq!(stats.fallbacks, 0, "{stats:?}");
}

#[test]
fn the_binary_plays_a_game_over_http() {
    let (_process, http) = binary_http(&["--max-games", "4", "--hash", "64"]);
    let seat = Seat::new(Variant::DarkCrazyhouse, Color::Black, "binary");
    let mut ask = |request: &serde_json::Value, _| http.turn(request, BUDGET_MS, WATCHDOG_MS);
    let played = play(seat, &mut ask, &mut greedy_opponent(5), 120, WATCHDOG_MS);
    assert!(played.replies.len() >= 3);
}

#[test]
fn stdio_worker_plays_whole_games_of_each_variant() {
    let mut worker = Process::start(&["--stdio"]);
    let ready: serde_json::Value = serde_json::from_str(&worker.line()).expect("JSON");
    assert_eq!(ready["kind"], "ready", "{ready}");
    for (i, &(variant, side)) in SEATS.iter().enumerate() {
        let seat = Seat::new(variant, side, &format!("stdio-{i}"));
        let mut ask = |request: &serde_json::Value, n: usize| {
            let line = envelope(request, n, BUDGET_MS, WATCHDOG_MS).to_string();
            let (answer, elapsed) = worker.exchange(&line);
            assert_eq!(answer["requestId"], format!("req-{n}"), "{answer}");
            assert_eq!(answer["ok"], true, "{answer}");
            assert_eq!(answer["response"]["engine"]["id"], "murk-test", "{answer}");
            Reply { status: 200, body: answer["response"].clone(), elapsed }
        };
        let played = play(seat, &mut ask, &mut greedy_opponent(20 + i as u64), 120, WATCHDOG_MS);
        assert!(played.replies.len() >= 3, "{variant}");
        assert!(played.replies.iter().all(|r| r.elapsed < Duration::from_millis(WATCHDOG_MS)));
    }
    assert!(worker.finish().success());
}

#[test]
fn drops_into_the_fog_bounce_and_the_engine_is_asked_again() {
    let fen = "r3k2r/ppp2ppp/2n5/3qp3/8/2N5/PPP2PPP/R1BQK2R[NBp] w KQkq - 0 1";
    for player in ["random", "murk"] {
        let local = local_player(player);
        let mut bounces = 0;
        let games = if player == "random" { 40 } else { 6 };
        for seed in 0..games {
            let mut seat = Seat::new(Variant::DarkCrazyhouse, Color::White, &format!("drops-{player}-{seed}"));
            seat.start_fen = Some(fen.into());
            let http = local.http.clone();
            let mut ask = |request: &serde_json::Value, _| http.turn(request, BUDGET_MS, WATCHDOG_MS);
            let played = play(seat, &mut ask, &mut greedy_opponent(seed), 40, WATCHDOG_MS);
            bounces += played.referee.bounces;
        }
        eprintln!("{player}: {bounces} bounced drops in {games} games");
        if player == "random" {
            assert!(bounces > 0, "random drops into the fog should bounce now and then");
        }
    }
}
