//! Bad input never costs a game or the server: each kind gets a 4xx with a JSON error naming the
//! problem, or, where a move can still be given, a legal move and a diagnostic; and the server
//! answers the next good request as before.

use super::client::{local, local_player, Http, Local, Reply, BUDGET_MS, WATCHDOG_MS};
use super::referee::{Referee, Seat};
use murk::core::{Color, Variant};
use murk::serve::{HttpConfig, ServeConfig};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// A valid request: the engine (White) to move after `plies` plies of a random-ish game.
fn request_after(variant: Variant, plies: usize, name: &str) -> (Referee, Value) {
    let mut referee = Referee::new(Seat::new(variant, Color::White, name));
    let mut opponent = crate::protocol::greedy_opponent(3);
    while referee.game.moves().len() < plies {
        if referee.engine_to_move() {
            let legal = super::referee::legal_moves(&referee.game);
            let pick =
                legal.iter().find(|m| !m["from"].as_str().unwrap_or("").starts_with('*')).expect("a move").clone();
            referee.play_engine(&pick).expect("legal");
        } else {
            let m = opponent(&referee.game);
            referee.play_opponent(m);
        }
    }
    let request = referee.request(5);
    (referee, request)
}

fn assert_still_serving(http: &Http) {
    let (_, request) = request_after(Variant::DarkChess, 0, &format!("check-{}", rand_id()));
    let reply = http.turn(&request, BUDGET_MS, WATCHDOG_MS);
    assert_eq!(reply.status, 200, "the server stopped serving: {}", reply.body);
}

fn rand_id() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
}

fn assert_error(reply: &Reply, status: u16, code: &str, mentions: &str) {
    assert_eq!(reply.status, status, "{}", reply.body);
    assert_eq!(reply.body["error"], code, "{}", reply.body);
    let message = reply.body["message"].as_str().unwrap_or("");
    assert!(message.contains(mentions), "the message should name '{mentions}': {message}");
}

/// A 200 answer with one of the request's legal moves and a diagnostic of this code.
fn assert_degraded(reply: &Reply, request: &Value, code: &str, mentions: &str) {
    assert_eq!(reply.status, 200, "{}", reply.body);
    let legal = request["legalMoves"].as_array().expect("legal moves");
    assert!(legal.contains(&reply.body["move"]), "{} is not among legalMoves", reply.body["move"]);
    let error = &reply.body["diagnostics"]["error"];
    assert_eq!(error["code"], code, "{}", reply.body);
    let message = error["message"].as_str().unwrap_or("");
    assert!(message.contains(mentions), "the diagnostic should name '{mentions}': {message}");
}

fn post_raw(http: &Http, body: &str) -> Reply {
    http.post("/internal/engine/turn", body, &[("x-mistboard-engine-compute-budget-ms", BUDGET_MS.to_string())])
}

#[test]
fn malformed_json_unknown_versions_and_missing_fields_get_400_naming_the_problem() {
    let Local { http, engine, server: _server } = local_player("random");
    assert_error(&post_raw(&http, "{\"protocolVersion\": \"1\", "), 400, "malformed_json", "not valid JSON");
    assert_error(&post_raw(&http, "\u{1}\u{2}garbage"), 400, "malformed_json", "not valid JSON");
    assert_error(&post_raw(&http, "[1, 2]"), 400, "invalid_request", "not a JSON object");
    let (_, good) = request_after(Variant::DarkChess, 2, "fields");
    for version in [json!("2"), json!(1), json!(null)] {
        let mut request = good.clone();
        request["protocolVersion"] = version;
        assert_error(&post_raw(&http, &request.to_string()), 400, "unsupported_protocol_version", "protocolVersion");
    }
    for field in ["protocolVersion", "gameId", "sessionId", "color", "ply", "clock", "legalMoves", "engineSeed"] {
        let mut request = good.clone();
        request.as_object_mut().unwrap().remove(field);
        assert_error(&post_raw(&http, &request.to_string()), 400, "invalid_request", field);
    }
    let mut request = good.clone();
    request["observationTranscript"][1].as_object_mut().unwrap().remove("kind");
    assert_error(&post_raw(&http, &request.to_string()), 400, "invalid_request", "observationTranscript[1]");
    let mut request = good.clone();
    request["legalMoves"][0]["to"] = json!(42);
    assert_error(&post_raw(&http, &request.to_string()), 400, "invalid_request", "legalMoves[0].to");
    let mut request = good.clone();
    request["legalMoves"][0]["to"] = json!("z9");
    assert_error(&post_raw(&http, &request.to_string()), 400, "invalid_request", "legalMoves[0]");
    let mut request = good.clone();
    request["latestObservationDelta"] = request["observationTranscript"][2].clone();
    assert_error(&post_raw(&http, &request.to_string()), 400, "invalid_request", "exactly one");
    let mut request = good.clone();
    request.as_object_mut().unwrap().remove("observationTranscript");
    assert_error(&post_raw(&http, &request.to_string()), 400, "invalid_request", "exactly one");
    let mut request = good.clone();
    request["gameSpecId"] = json!("dark-xiangqi");
    assert_error(&post_raw(&http, &request.to_string()), 400, "unsupported_game_spec", "dark-xiangqi");
    let mut request = good.clone();
    request["legalMoves"] = json!([]);
    assert_error(&post_raw(&http, &request.to_string()), 422, "no_legal_moves", "legalMoves");
    assert_eq!(engine.stats().turns, 0, "none of these reached a session");
    assert_still_serving(&http);
    assert_eq!(post_raw(&http, &good.to_string()).status, 200);
}

#[test]
fn legal_moves_that_disagree_with_the_transcript_get_a_legal_move_and_a_diagnostic() {
    let Local { http, server: _server, .. } = local_player("murk");
    let (_, good) = request_after(Variant::DarkChess, 4, "mismatch");
    // An extra move no piece of ours can make: never played, since the search keeps to the
    // moves both lists hold.
    let mut request = good.clone();
    request["legalMoves"].as_array_mut().unwrap().push(json!({ "from": "a1", "to": "a6" }));
    let reply = http.turn(&request, BUDGET_MS, WATCHDOG_MS);
    assert_degraded(&reply, &request, "legal_moves_mismatch", "a1a6");
    assert_ne!(reply.body["move"], json!({ "from": "a1", "to": "a6" }));
    assert_eq!(reply.body["diagnostics"]["source"], "search");
    // A list with a legal move missing: the answer is still one of the list.
    let mut request = good.clone();
    let removed = request["legalMoves"].as_array_mut().unwrap().remove(0);
    let reply = http.turn(&request, BUDGET_MS, WATCHDOG_MS);
    assert_degraded(&reply, &request, "legal_moves_mismatch", "legal but not offered");
    assert_ne!(reply.body["move"], removed);
    // Nothing in common: the only offered move, by the fallback.
    let mut request = good.clone();
    request["legalMoves"] = json!([{ "from": "h1", "to": "h5" }]);
    let reply = http.turn(&request, BUDGET_MS, WATCHDOG_MS);
    assert_degraded(&reply, &request, "legal_moves_mismatch", "h1h5");
    assert_eq!(reply.body["diagnostics"]["source"], "fallback");
    assert_still_serving(&http);
}

#[test]
fn a_transcript_that_contradicts_itself_gets_a_legal_move_and_a_diagnostic() {
    let Local { http, engine, server: _server } = local_player("murk");
    let (_, good) = request_after(Variant::DarkChess, 6, "contradiction");
    let variant = Variant::DarkChess;
    let idx = |name: &str| super::referee::index(variant, murk::core::Square::parse(name).unwrap());
    let mut cases: Vec<(Value, &str)> = Vec::new();
    // Our own move is not one we could make.
    let mut r = good.clone();
    r["observationTranscript"][1]["own_move"] = json!({ "from": "e2", "to": "e5" });
    cases.push((r, "observationTranscript[1]: own_move e2e5 is not legal"));
    // Plies that skip one.
    let mut r = good.clone();
    r["observationTranscript"][3]["ply"] = json!(7);
    cases.push((r, "observationTranscript[3]: ply 7"));
    // A piece shown outside the mask.
    let mut r = good.clone();
    r["observationTranscript"][2]["visible_pieces"]
        .as_array_mut()
        .unwrap()
        .push(json!([idx("e6"), { "type": "Q", "color": "black" }]));
    cases.push((r, "not in visibility_mask"));
    // One of our pieces vanishes without a reported capture.
    let mut r = good.clone();
    let pieces = r["observationTranscript"][2]["visible_pieces"].as_array_mut().unwrap();
    pieces.retain(|p| p[0] != json!(idx("a2")));
    cases.push((r, "observationTranscript[2]"));
    // A mask that shows a square none of our pieces sees.
    let mut r = good.clone();
    let mask = r["observationTranscript"][2]["visibility_mask"].as_str().unwrap().to_string();
    let bits = u64::from_str_radix(&mask[2..], 16).unwrap() | 1 << idx("e7");
    r["observationTranscript"][2]["visibility_mask"] = json!(format!("0x{bits:016x}"));
    cases.push((r, "none of our pieces sees"));
    // A capture reported on a square where we had nothing.
    let mut r = good.clone();
    r["observationTranscript"][2]["own_capture_square"] = json!(idx("e5"));
    cases.push((r, "own_capture_square"));
    // The request's ply disagrees with the transcript.
    let mut r = good.clone();
    r["ply"] = json!(4);
    cases.push((r, "ply is 4 but the transcript has 6 plies"));
    // The transcript ends with our own move: not our turn.
    let mut r = good.clone();
    r["observationTranscript"].as_array_mut().unwrap().pop();
    cases.push((r, "not our turn"));
    // The initial observation is not the start position.
    let mut r = good.clone();
    r["observationTranscript"][0]["visibility_mask"] = json!("0xffffffffffffffff");
    cases.push((r, "observationTranscript[0]"));
    // Our color is not the one to move.
    let mut r = good.clone();
    r["color"] = json!("black");
    r["sessionId"] = json!("contradiction-as-black");
    cases.push((r, "observationTranscript[0]"));
    for (i, (request, mentions)) in cases.iter().enumerate() {
        let mut request = request.clone();
        if request["sessionId"] == good["sessionId"] {
            request["sessionId"] = json!(format!("contradiction-{i}"));
        }
        let reply = http.turn(&request, BUDGET_MS, WATCHDOG_MS);
        assert_degraded(&reply, &request, "contradictory_transcript", mentions);
    }
    // The same session continues with the good transcript, which is replayed from the start.
    let mut request = good.clone();
    request["sessionId"] = json!("contradiction-0");
    let reply = http.turn(&request, BUDGET_MS, WATCHDOG_MS);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["diagnostics"]["source"], "search", "{}", reply.body);
    assert!(engine.stats().fallbacks >= cases.len() as u64);
    assert_still_serving(&http);
}

#[test]
fn a_finished_game_a_delta_without_history_and_wrong_routes_get_4xx() {
    let Local { http, server: _server, .. } = local_player("random");
    let (_, good) = request_after(Variant::DarkChess, 2, "routes");
    let mut over = good.clone();
    let last = over["observationTranscript"].as_array().unwrap().len() - 1;
    over["observationTranscript"][last]["game_over"] = json!({ "winner": "black", "reason": "king-captured" });
    assert_error(&http.turn(&over, BUDGET_MS, WATCHDOG_MS), 409, "game_over", "king-captured");
    let mut delta = good.clone();
    let latest = delta["observationTranscript"][last].clone();
    delta.as_object_mut().unwrap().remove("observationTranscript");
    delta["latestObservationDelta"] = latest;
    assert_error(&http.turn(&delta, BUDGET_MS, WATCHDOG_MS), 409, "no_session_state", "observationTranscript");
    assert_error(&http.post("/internal/engine/nothing", "{}", &[]), 404, "not_found", "/internal/engine/nothing");
    let reply = http.agent_get("/internal/engine/turn");
    assert_eq!(reply.status, 405, "{}", reply.body);
    let health = http.agent_get("/health");
    assert_eq!((health.status, &health.body["ok"]), (200, &json!(true)));
    assert_still_serving(&http);
}

#[test]
fn a_body_over_the_limit_gets_413_and_the_server_lives_on() {
    let Local { http, server, engine: _engine } = local_player("random");
    let (_, good) = request_after(Variant::DarkChess, 2, "big");
    let mut big = good.clone();
    big["padding"] = json!("x".repeat(10 << 20));
    assert_error(&post_raw(&http, &big.to_string()), 413, "payload_too_large", "larger than");
    // A declared length far beyond memory, with a few bytes sent: refused at once.
    let mut stream = TcpStream::connect(server.addr()).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    stream
        .write_all(b"POST /internal/engine/turn HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n{\"a\"")
        .unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    // Chunked, with no declared length.
    let mut stream = TcpStream::connect(server.addr()).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    stream.write_all(b"POST /internal/engine/turn HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n").unwrap();
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..6 {
        if stream.write_all(format!("{:x}\r\n", chunk.len()).as_bytes()).is_err() || stream.write_all(&chunk).is_err() {
            break;
        }
        let _ = stream.write_all(b"\r\n");
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    assert_still_serving(&http);
    assert_eq!(post_raw(&http, &good.to_string()).status, 200);
}

#[test]
fn a_slow_client_gets_408_while_the_others_are_served() {
    let http_config = HttpConfig { body_timeout: Duration::from_millis(400), ..HttpConfig::default() };
    let Local { http, server, engine: _engine } =
        local(ServeConfig { player: "random".into(), ..ServeConfig::default() }, http_config);
    let (_, good) = request_after(Variant::DarkChess, 2, "slow");
    let body = good.to_string();
    let started = Instant::now();
    let mut stream = TcpStream::connect(server.addr()).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let head = format!("POST /internal/engine/turn HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n", body.len());
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(&body.as_bytes()[..10]).unwrap();
    // While this client stalls, another is served.
    assert_still_serving(&http);
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("request_timeout"), "{reply}");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(350) && waited < Duration::from_secs(3), "{waited:?}");
    // Headers that never end: the connection is closed.
    let mut stream = TcpStream::connect(server.addr()).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    stream.write_all(b"POST /internal/engine/turn HTTP/1.1\r\nHost: x\r\n").unwrap();
    let mut rest = Vec::new();
    let closed = stream.read_to_end(&mut rest);
    assert!(closed.is_ok(), "the server closes a connection whose headers stall: {closed:?}");
    assert_still_serving(&http);
}

#[test]
fn without_the_token_a_request_gets_401_and_no_work() {
    let http_config = HttpConfig { token: Some("s3cret-token".into()), ..HttpConfig::default() };
    let Local { http, engine, server: _server } =
        local(ServeConfig { player: "murk".into(), ..ServeConfig::default() }, http_config);
    let (_, good) = request_after(Variant::DarkChess, 2, "token");
    for token in [None, Some("wrong"), Some("s3cret-toke"), Some("s3cret-token2"), Some("")] {
        let mut client = http.clone();
        client.token = token.map(String::from);
        let started = Instant::now();
        let reply = client.turn(&good, 2000, 5000);
        assert_error(&reply, 401, "unauthorized", "token");
        assert!(started.elapsed() < Duration::from_millis(1000), "a refused request does no search");
    }
    let mut raw = http.clone();
    raw.token = None;
    let reply = raw.post("/internal/engine/turn", &good.to_string(), &[("authorization", "Basic s3cret-token".into())]);
    assert_eq!(reply.status, 401);
    assert_eq!(engine.stats().turns, 0, "no request reached the engine");
    assert_eq!(engine.stats().sessions, 0);
    let health = raw.agent_get("/health");
    assert_eq!(health.status, 200, "the health route needs no token");
    let mut authorized = http.clone();
    authorized.token = Some("s3cret-token".into());
    let reply = authorized.turn(&good, BUDGET_MS, WATCHDOG_MS);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(engine.stats().turns, 1);
}

#[test]
fn stdio_answers_bad_lines_with_errors_and_goes_on() {
    let mut worker = super::client::Process::start(&["--stdio", "--player", "random"]);
    let _ready = worker.line();
    let (answer, _) = worker.exchange("{not json");
    assert_eq!((&answer["ok"], &answer["code"]), (&json!(false), &json!("malformed_json")), "{answer}");
    let (_, good) = request_after(Variant::DarkChess, 2, "stdio-bad");
    let mut bad = good.clone();
    bad.as_object_mut().unwrap().remove("legalMoves");
    let line = super::client::envelope(&bad, 1, BUDGET_MS, WATCHDOG_MS).to_string();
    let (answer, _) = worker.exchange(&line);
    assert_eq!(answer["requestId"], "req-1");
    assert_eq!(answer["ok"], false);
    assert_eq!(answer["status"], 400);
    assert!(answer["error"].as_str().unwrap().contains("legalMoves"), "{answer}");
    let (answer, _) = worker.exchange(&json!({ "protocolVersion": "7" }).to_string());
    assert_eq!(answer["error"], "unsupported_protocol_version", "{answer}");
    let line = super::client::envelope(&good, 2, BUDGET_MS, WATCHDOG_MS).to_string();
    let (answer, _) = worker.exchange(&line);
    assert_eq!(answer["ok"], true, "{answer}");
    // A bare request is answered with the bare response.
    let (answer, _) = worker.exchange(&good.to_string());
    assert_eq!(answer["protocolVersion"], "1", "{answer}");
    assert!(good["legalMoves"].as_array().unwrap().contains(&answer["move"]));
    assert!(worker.finish().success());
}

#[test]
fn castling_may_be_offered_as_the_kings_two_square_move() {
    let Local { http, server: _server, .. } = local_player("random");
    let mut seat = Seat::new(Variant::DarkChess, Color::White, "castling");
    seat.start_fen = Some("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1".into());
    let mut request = Referee::new(seat).request(1);
    let moves = request["legalMoves"].as_array_mut().unwrap();
    assert!(
        moves.contains(&json!({ "from": "e1", "to": "h1" })) && moves.contains(&json!({ "from": "e1", "to": "a1" }))
    );
    for m in moves.iter_mut() {
        if m["from"] == "e1" && (m["to"] == "h1" || m["to"] == "a1") {
            m["to"] = json!(if m["to"] == "h1" { "g1" } else { "c1" });
        }
    }
    for seed in 0..8 {
        request["sessionId"] = json!(format!("castling-{seed}"));
        request["gameId"] = json!(format!("castling-{seed}"));
        let reply = http.turn(&request, BUDGET_MS, WATCHDOG_MS);
        assert_eq!(reply.status, 200);
        assert!(reply.body["diagnostics"].get("error").is_none(), "{}", reply.body);
        assert!(request["legalMoves"].as_array().unwrap().contains(&reply.body["move"]));
    }
}
