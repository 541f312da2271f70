//! Mistboard engines in `murk match` and `murk tournament`: `murk serve` (stdio worker and HTTP)
//! plays whole games of every variant against the built-in Murk, its requests checked against an
//! independent Mistboard-like referee and by the record audit; a fake worker that misbehaves in
//! every way the protocol allows forfeits as a line engine would, and the match goes on; an
//! engine that refuses the game is refused before the first one; a tournament with a Mistboard
//! engine resumes after `kill -9`; and, ignored, a match against Misty.

use super::fake::{run_match, Scratch, MURK};
use crate::serve::referee::{Referee, Seat};
use murk::core::{Color, Move, Variant};
use murk::runner::line_engine::Dir;
use murk::runner::record::read_records;
use murk::runner::{audit_record, GameRecord, Wire};
use murk::serve::wire::{WireMove, WireObservation};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A fake Mistboard stdio worker: White shuffles Ng1-f3-g1, Black Ng8-f6-g8 (in Crossroads
/// Nd1-c3-d1 and Nc8-b6-c8), so against the fake line engine the game is drawn by repetition.
/// Usage: fake_worker.py MODE AT SIDE. From its AT-th request of a game on, playing SIDE (white,
/// black or any), it misbehaves as MODE says; `refuse` answers every request of a game other than
/// dark-crazyhouse with Misty's `unsupported_game` error.
const WORKER: &str = r#"#!/usr/bin/env python3
import json, sys, time
mode, at, only = (sys.argv[1:] + ["none", "1", "any"][len(sys.argv) - 1:])[:3]
at = int(at)
n, game = 0, None
print("fake-worker-%s started" % mode, file=sys.stderr, flush=True)
for line in sys.stdin:
    env = json.loads(line)
    req = env["engineTurnRequest"]
    rid = env["requestId"]
    spec = req.get("gameSpecId") or "dark-chess"
    if mode == "refuse" and spec != "dark-crazyhouse":
        print(json.dumps({"requestId": rid, "ok": False, "code": "unsupported_game",
                          "error": "unsupported_game: plays dark-crazyhouse only, not %s" % spec}), flush=True)
        continue
    if req["gameId"] != game:
        game, n = req["gameId"], 0
    n += 1
    side = req["color"]
    legal = req["legalMoves"]
    if req["gameId"] != "murk-probe" and mode != "none" and n >= at and only in ("any", side):
        if mode == "crash":
            sys.exit(3)
        if mode == "hang":
            time.sleep(30)
        if mode == "late":
            time.sleep(env["workerDeadlineMs"] / 1000.0 + 0.3)
        if mode == "garbage":
            print("this is not json", flush=True)
            continue
        if mode == "notok":
            print(json.dumps({"requestId": rid, "ok": False, "error": "engine_error: boom", "code": "engine_error"}), flush=True)
            continue
        if mode == "malformed":
            print(json.dumps({"requestId": rid, "ok": True, "response": {"protocolVersion": "1"}}), flush=True)
            continue
        if mode == "illegal":
            king = {"from": "e1", "to": "e5"} if side == "white" else {"from": "e8", "to": "e4"}
            print(json.dumps({"requestId": rid, "ok": True, "response": {"protocolVersion": "1", "gameId": req["gameId"],
                  "sessionId": req["sessionId"], "move": king}}), flush=True)
            continue
    if spec.startswith("dark-crossroads"):
        a, b = ("d1", "c3") if side == "white" else ("c8", "b6")
    else:
        a, b = ("g1", "f3") if side == "white" else ("g8", "f6")
    own = sum(1 for o in req["observationTranscript"] if o["kind"] == "own_move")
    want = {"from": a, "to": b} if own % 2 == 0 else {"from": b, "to": a}
    move = want if want in legal else legal[0]
    print(json.dumps({"requestId": rid, "ok": True, "response": {"protocolVersion": "1", "gameId": req["gameId"],
          "sessionId": req["sessionId"], "move": move, "diagnostics": {}}}), flush=True)
"#;

/// The fake worker as an engine spec (`proto=mistboard`), with `args` (mode, at, side, settings).
fn worker(s: &Scratch, args: &str) -> String {
    let script = s.file("fake_worker.py");
    if !script.exists() {
        std::fs::write(&script, WORKER).expect("write the fake worker");
    }
    format!("proto=mistboard python3 {} {args}", script.display())
}

/// The JSON messages `side`'s engine received (`Dir::In`) or wrote in a record, in order.
fn messages(rec: &GameRecord, side: Color, dir: Dir) -> Vec<Value> {
    rec.setup
        .of(side)
        .iter()
        .chain(rec.plies.iter().flat_map(|p| p.lines.of(side)))
        .chain(rec.end.of(side))
        .filter(|m| m.dir == dir)
        .filter_map(|m| serde_json::from_str(&m.line).ok())
        .collect()
}

/// The turn request a logged message holds (a stdio envelope's, or an HTTP body).
fn request(message: &Value) -> &Value {
    message.get("engineTurnRequest").unwrap_or(message)
}

/// Replays `rec` with the test referee seated at `side` (built from the rules core, apart from
/// the runner's code) and checks that every request `side`'s Mistboard engine received holds
/// exactly the transcript and `legalMoves` the referee writes for that moment. Returns the number
/// of requests checked.
fn check_against_referee(rec: &GameRecord, side: Color) -> usize {
    let variant: Variant = rec.variant.parse().expect("variant");
    let mut seat = Seat::new(variant, side, "check");
    if rec.start_fen != murk::rules::Position::start(variant).to_fen() {
        seat.start_fen = Some(rec.start_fen.clone());
    }
    let mut referee = Referee::new(seat);
    let requests: Vec<Value> =
        messages(rec, side, Dir::In).iter().map(request).filter(|r| r["gameId"] != "murk-probe").cloned().collect();
    let mut next = requests.iter();
    let as_obs = |v: &Value| -> Vec<WireObservation> { serde_json::from_value(v.clone()).expect("transcript") };
    let as_moves = |v: &Value| -> Vec<WireMove> {
        let mut m: Vec<WireMove> = serde_json::from_value(v.clone()).expect("legal moves");
        m.sort_by_key(|m| (m.from.clone(), m.to.clone(), m.promotion.clone()));
        m
    };
    for (i, text) in rec.moves.iter().enumerate() {
        let mv = Move::parse(text, variant).expect("move");
        if !referee.engine_to_move() {
            referee.play_opponent(mv);
            continue;
        }
        let bounces = &rec.plies[i].bounces;
        for tried in bounces.iter().map(Some).chain([None]) {
            let got = next.next().unwrap_or_else(|| panic!("game {}: no request for ply {}", rec.game, i + 1));
            let want = referee.request(1);
            assert_eq!(got["ply"], want["ply"], "game {} ply {}", rec.game, i + 1);
            assert_eq!(
                as_obs(&got["observationTranscript"]),
                as_obs(&want["observationTranscript"]),
                "game {} ply {}: the transcript differs from the referee's",
                rec.game,
                i + 1
            );
            assert_eq!(as_moves(&got["legalMoves"]), as_moves(&want["legalMoves"]), "game {} ply {}", rec.game, i + 1);
            let played = tried.map_or(mv, |t| Move::parse(t, variant).expect("bounced drop"));
            // The move as the rules read it (castling filled in); a bounced drop is no move of the position.
            let moves = referee.game.position().moves();
            let played = moves.iter().copied().find(|m| m.matches_shape(played)).unwrap_or(played);
            let wire = murk::serve::decode::move_to_wire(variant, side, played);
            referee.play_engine(&serde_json::to_value(wire).expect("move")).expect("the engine's move is legal");
        }
    }
    assert!(next.next().is_none() || rec.termination_kind != "rule", "game {}: requests left over", rec.game);
    requests.len()
}

/// `murk serve --http 127.0.0.1:0` as a child process, and its address.
struct HttpServe(Child, String);

impl HttpServe {
    fn start(extra: &[&str]) -> HttpServe {
        let mut child = Command::new(MURK)
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start murk serve --http");
        let mut first = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut first).expect("the listening line");
        let url = first.split_whitespace().find(|w| w.starts_with("http://")).expect("an address").to_string();
        HttpServe(child, url)
    }
}

impl Drop for HttpServe {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn murk_serve_over_stdio_and_http_plays_whole_games_of_every_variant_with_its_requests_audited() {
    let s = Scratch::new("mistboard-serve");
    let token = s.file("token.txt");
    std::fs::write(&token, "s3cret\n").expect("token");
    let http = HttpServe::start(&["--token-file", token.to_str().expect("path")]);
    let stdio = format!("proto=mistboard name=serve-stdio {MURK} serve --stdio");
    let over_http = format!("url={} token={} name=serve-http", http.1, token.display());
    let mut requests = 0;
    for variant in ["dark-chess", "dark-crazyhouse", "dark-crossroads"] {
        for spec in [&stdio, &over_http] {
            let run = run_match(
                &s,
                &[
                    "--variant",
                    variant,
                    "--engine",
                    spec,
                    "--engine",
                    "builtin:murk",
                    "--games",
                    "2",
                    "--movetime",
                    "40",
                    "--max-plies",
                    "300",
                    "--seed",
                    "3",
                ],
            );
            for rec in &run.records {
                assert_ne!(rec.termination_kind, "forfeit", "{variant} game {}: {}", rec.game, rec.detail);
                let side = if rec.white.starts_with("serve") { Color::White } else { Color::Black };
                assert_eq!(rec.wire[side.index()], Wire::Mistboard);
                assert_eq!(rec.wire[side.opponent().index()], Wire::Lines);
                requests += check_against_referee(rec, side);
                // Every answer (but the worker's ready line) is a move chosen by the search.
                for answer in messages(rec, side, Dir::Out).iter().filter(|a| a["kind"] != "ready") {
                    let response = answer.get("response").unwrap_or(answer);
                    assert!(response["move"].is_object(), "{answer}");
                    assert_eq!(response["diagnostics"]["source"], "search", "{answer}");
                }
            }
        }
    }
    assert!(requests > 100, "only {requests} requests");
}

/// `rec` with the `n`-th request `side`'s engine received changed by `edit`.
fn edited(rec: &GameRecord, side: Color, n: usize, edit: impl Fn(&mut Value)) -> GameRecord {
    let mut rec = rec.clone();
    let msg = rec
        .plies
        .iter_mut()
        .flat_map(|p| match side {
            Color::White => p.lines.white.iter_mut(),
            Color::Black => p.lines.black.iter_mut(),
        })
        .filter(|m| m.dir == Dir::In)
        .nth(n)
        .expect("a request");
    let mut value: Value = serde_json::from_str(&msg.line).expect("JSON");
    edit(value.get_mut("engineTurnRequest").expect("an envelope"));
    msg.line = value.to_string();
    rec
}

#[test]
fn the_audit_catches_a_request_that_tells_more_than_the_side_sees() {
    let s = Scratch::new("mistboard-audit");
    let stdio = format!("proto=mistboard name=serve {MURK} serve --stdio --player greedy");
    let run = run_match(
        &s,
        &["--variant", "dark-chess", "--engine", &stdio, "--engine", "builtin:greedy", "--games", "1", "--seed", "4"],
    );
    let rec = &run.records[0];
    assert!(rec.moves.len() > 8, "a game of some length");
    audit_record(rec).expect("the untouched record passes");
    let n = 3;
    fn last(r: &Value) -> Value {
        r["observationTranscript"].as_array().and_then(|t| t.last()).cloned().expect("an entry")
    }
    type Edit = Box<dyn Fn(&mut Value)>;
    let leaks: [(&str, Edit); 6] = [
        ("an extra field", Box::new(|r: &mut Value| r["opponentMove"] = serde_json::json!("e2e4"))),
        (
            "a hidden piece",
            Box::new(|r: &mut Value| {
                let mut entry = last(r);
                entry["visible_pieces"]
                    .as_array_mut()
                    .unwrap()
                    .push(serde_json::json!([36, {"type": "Q", "color": "black"}]));
                *r["observationTranscript"].as_array_mut().unwrap().last_mut().unwrap() = entry;
            }),
        ),
        (
            "a wider mask",
            Box::new(|r: &mut Value| {
                let mut entry = last(r);
                entry["visibility_mask"] = serde_json::json!("0xffffffffffffffff");
                *r["observationTranscript"].as_array_mut().unwrap().last_mut().unwrap() = entry;
            }),
        ),
        ("the opponent's clock", Box::new(|r: &mut Value| r["clock"]["remaining_ms"] = serde_json::json!(12345))),
        (
            "a move it may not play",
            Box::new(|r: &mut Value| {
                r["legalMoves"].as_array_mut().unwrap().push(serde_json::json!({"from": "a1", "to": "a8"}))
            }),
        ),
        ("another ply", Box::new(|r: &mut Value| r["ply"] = serde_json::json!(r["ply"].as_u64().unwrap() + 2))),
    ];
    for (what, edit) in leaks {
        let bad = edited(rec, Color::White, n, edit);
        assert!(audit_record(&bad).is_err(), "{what} must be caught");
    }
}

#[test]
fn a_misbehaving_mistboard_worker_forfeits_as_a_line_engine_would_and_the_match_goes_on() {
    let s = Scratch::new("mistboard-fake");
    let cases = [
        ("illegal", "illegal-move", "not one of legalMoves"),
        ("malformed", "malformed-reply", "does not parse"),
        ("garbage", "malformed-reply", "not JSON"),
        ("notok", "malformed-reply", "ok: false (engine_error: boom)"),
        ("late", "time-forfeit", "ms allowed"),
        ("hang", "time-forfeit", "ms allowed"),
        ("crash", "crash", "exited while thinking"),
    ];
    for (mode, termination, detail) in cases {
        let run = run_match(
            &s,
            &[
                "--variant",
                "dark-chess",
                "--engine",
                &worker(&s, &format!("{mode} 2 white name=worker")),
                "--engine",
                &s.fake("none"),
                "--games",
                "2",
                "--movetime",
                "200",
                "--time-margin",
                "100",
                "--seed",
                "1",
            ],
        );
        let g = run.game(1);
        assert_eq!((g.result.as_str(), g.termination.as_str()), ("0-1", termination), "{mode}: {}", g.detail);
        assert_eq!(g.forfeited_by.as_deref(), Some("white"), "{mode}");
        assert!(g.detail.contains(detail), "{mode}: {}", g.detail);
        assert_eq!(g.moves.len(), 2, "{mode}: it misbehaved at its second move");
        // The second game (the worker is Black, and behaves) is played to its end.
        let g = run.game(2);
        assert_eq!((g.result.as_str(), g.termination.as_str()), ("1/2-1/2", "repetition"), "{mode}: {}", g.detail);
        let restarted = g.setup.black.iter().any(|m| m.line.contains("murk-probe"));
        assert_eq!(restarted, ["hang", "crash"].contains(&mode), "{mode}: restarted only when it had to be");
    }
}

#[test]
fn a_mistboard_engine_that_refuses_the_game_is_refused_before_the_first_game() {
    let s = Scratch::new("mistboard-refuse");
    let json = s.file("games.json");
    let out = Command::new(MURK)
        .args(["match", "--variant", "dark-chess", "--games", "2", "--no-progress"])
        .args(["--engine", &s.fake("none"), "--engine", &worker(&s, "refuse")])
        .arg("--json")
        .arg(&json)
        .output()
        .expect("run murk match");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("cannot start engine 2")
            && stderr.contains("does not play dark-chess")
            && stderr.contains("plays dark-crazyhouse only"),
        "{stderr}"
    );
    assert!(std::fs::read_to_string(&json).unwrap_or_default().is_empty(), "a game was played");
    // The same engine plays the game it offers.
    let run = run_match(
        &s,
        &[
            "--variant",
            "dark-crazyhouse",
            "--engine",
            &s.fake("none"),
            "--engine",
            &worker(&s, "refuse"),
            "--games",
            "2",
        ],
    );
    assert_eq!(run.records.len(), 2);
}

#[test]
fn mistboard_specs_are_checked_before_any_game() {
    let cases: [(&[&str], &str); 4] = [
        (&["--engine", "proto=xboard prog"], "unknown proto=xboard"),
        (&["--engine", "url=https://example.org"], "expected http://HOST:PORT"),
        (&["--engine", "url=http://127.0.0.1:1 prog"], "it takes no command"),
        (&["--nodes", "100", "--engine", "proto=mistboard prog"], "is given a time, not nodes"),
    ];
    for (args, message) in cases {
        let out = Command::new(MURK)
            .args(["match", "--variant", "dark-chess", "--no-progress", "--engine", "builtin:random"])
            .args(args)
            .output()
            .expect("run murk match");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(message), "{args:?}: {stderr}");
    }
    // Nothing listens there: the engine cannot be started.
    let out = Command::new(MURK)
        .args(["match", "--variant", "dark-chess", "--no-progress", "--engine", "builtin:random"])
        .args(["--engine", "url=http://127.0.0.1:9", "--stall-ms", "2000"])
        .output()
        .expect("run murk match");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("cannot start engine 2 (http://127.0.0.1:9)"), "{stderr}");
}

#[test]
fn a_tournament_with_a_mistboard_engine_killed_mid_run_and_resumed_plays_each_game_once() {
    let s = Scratch::new("mistboard-resume");
    let serve = format!("proto=mistboard name=serve st=0.2 {MURK} serve --stdio --player greedy");
    let run = |json: &std::path::Path, extra: &[&str]| {
        let mut cmd = Command::new(MURK);
        cmd.args(["tournament", "--variant", "dark-crazyhouse", "--no-progress", "--seed", "78"])
            .args(["--engine", "builtin:random", "--engine", "builtin:greedy", "--engine", &serve])
            .args(["--rounds", "2", "--games-per-pair", "2", "--nodes", "3000", "--max-plies", "60"])
            .arg("--json")
            .arg(json)
            .args(extra);
        cmd
    };
    let whole = s.file("whole.json");
    let out = run(&whole, &[]).output().expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cut = s.file("cut.json");
    let mut child = run(&cut, &[]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("spawn");
    let start = Instant::now();
    while read_records(&cut).map_or(0, |r| r.len()) < 3 && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("kill -9");
    child.wait().expect("wait");
    let before = read_records(&cut).expect("records").len();
    assert!((3..12).contains(&before), "killed after {before} of 12 games");
    let out = run(&cut, &["--resume"]).output().expect("resume");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("Resuming: {before} of 12 games already played")), "{stderr}");
    let records = read_records(&cut).expect("records after resume");
    let mut games: Vec<usize> = records.iter().map(|r| r.game).collect();
    games.sort();
    assert_eq!(games, (1..=12).collect::<Vec<_>>(), "each game exactly once");
    // Every game is the one the uninterrupted run played (greedy answers depend on the request alone).
    let reference = read_records(&whole).expect("records");
    for r in &records {
        audit_record(r).unwrap_or_else(|e| panic!("audit: {e}"));
        let twin = reference.iter().find(|w| w.game == r.game).expect("same game");
        assert_eq!((&r.white, &r.black, &r.moves), (&twin.white, &twin.black, &twin.moves), "game {}", r.game);
    }
    assert!(records.iter().any(|r| r.wire.contains(&Wire::Mistboard)));
}

/// Misty (docs/match.md, "Playing Mistboard engines"): two games at 1 s a move against the built-in
/// Murk through `scripts/misty_worker.py`. Needs Misty installed (`MURK_MISTY_PYTHON`, default
/// `~/misty/bin/python`); fails if it is not.
/// `cargo test --release --test murk misty -- --ignored`
#[test]
#[ignore]
fn misty_plays_two_games_against_murk() {
    let home = std::env::var("HOME").unwrap_or_default();
    let python = std::env::var("MURK_MISTY_PYTHON").unwrap_or(format!("{home}/misty/bin/python"));
    let worker = format!("{}/scripts/misty_worker.py", env!("CARGO_MANIFEST_DIR"));
    assert!(std::path::Path::new(&python).exists(), "Misty's Python is not at {python} (set MURK_MISTY_PYTHON)");
    let s = Scratch::new("misty");
    let misty = format!("proto=mistboard name=misty {python} {worker} --profile v1.0");
    let run = run_match(
        &s,
        &[
            "--variant",
            "dark-chess",
            "--engine",
            "builtin:murk",
            "--engine",
            &misty,
            "--games",
            "2",
            "--movetime",
            "1000",
        ],
    );
    for rec in &run.records {
        assert_ne!(rec.termination_kind, "forfeit", "game {}: {}", rec.game, rec.detail);
    }
}
