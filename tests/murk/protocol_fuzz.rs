//! Fuzzing the protocol: no input can panic the line parser or the session, every `go` gets
//! exactly one `bestmove`, and every output line is a protocol reply. In-process with proptest
//! (the real front end over an in-memory input), plus one short run of the real binary.

use crate::protocol::Engine;
use crate::support::{random_game, rng, Step};
use murk::core::{Move, Variant};
use murk::engine::{players, EngineOptions, Session};
use murk::protocol::command::parse;
use murk::rules::{Game, Played, Position};
use murk::view::Observation;
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::Rng;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

const WORDS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "stop",
    "quit",
    "debug",
    "on",
    "setoption",
    "name",
    "value",
    "UCI_Variant",
    "dark-chess",
    "dark-crazyhouse",
    "dark-crossroads",
    "Player",
    "random",
    "greedy",
    "Seed",
    "Threads",
    "Hash",
    "Move",
    "Overhead",
    "position",
    "startpos",
    "fen",
    "moves",
    "side",
    "white",
    "black",
    "red",
    "observe",
    "captured",
    "try",
    "bounce",
    "gameover",
    "1-0",
    "0-1",
    "1/2-1/2",
    "king-captured",
    "try-completed",
    "no-legal-move",
    "repetition",
    "adjudication",
    "go",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "nodes",
    "infinite",
    "searchmoves",
    "ponder",
    "-",
    "0",
    "-1",
    "18446744073709551616",
    "e2e4",
    "e1h1",
    "N@e5",
    "P@a1",
    "e7e8q",
    "e1g1",
    "a1",
    "h8",
    "f8",
    "g8",
    "[]",
    "[Qq]",
    "?",
    "X",
    "x",
    "~",
    "",
];

/// Real `observe` arguments and start FENs, per variant: the raw material for mutations.
fn samples() -> &'static Vec<(Variant, Vec<String>)> {
    static SAMPLES: OnceLock<Vec<(Variant, Vec<String>)>> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        Variant::ALL
            .into_iter()
            .map(|variant| {
                let mut lines = vec![variant.start_fen().to_string()];
                random_game(variant, 5, 60, |step| {
                    if let Step::Ply(ply) = step {
                        lines.extend(ply.observations.iter().map(|o| o.to_args()));
                    }
                });
                (variant, lines)
            })
            .collect()
    })
}

/// A sample with a few characters replaced.
fn mutate(text: &str, edits: &[(usize, char)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for &(at, c) in edits {
        if !chars.is_empty() {
            let i = at % chars.len();
            chars[i] = c;
        }
    }
    chars.into_iter().collect()
}

fn line_strategy() -> impl Strategy<Value = String> {
    let words = prop::collection::vec(prop::sample::select(WORDS), 0..7).prop_map(|w| w.join(" "));
    let edit =
        (any::<usize>(), prop::sample::select(&['?', 'x', 'X', 'K', 'k', 'P', 'p', '1', '8', '/', '~', ' ', '[']));
    let observe = (0usize..3, any::<prop::sample::Index>(), prop::collection::vec(edit, 0..3), 0usize..4).prop_map(
        |(v, i, edits, head)| {
            let (_, lines) = &samples()[v];
            let text = mutate(i.get::<String>(lines), &edits);
            let head = ["observe", "observe", "position fen", "go searchmoves"][head];
            format!("{head} {text}")
        },
    );
    prop_oneof![3 => words, 3 => observe, 1 => "[^\n]{0,40}", 1 => "[a-z@0-9 ]{0,20}"]
}

fn session_strategy() -> impl Strategy<Value = Vec<String>> {
    let setup = (0usize..3, any::<bool>()).prop_map(|(v, white)| {
        let variant = Variant::ALL[v];
        let side = if white { "white" } else { "black" };
        vec![format!("setoption name UCI_Variant value {variant}"), "position startpos".into(), format!("side {side}")]
    });
    (setup, prop::collection::vec(line_strategy(), 0..24)).prop_map(|(mut lines, more)| {
        lines.extend(more);
        lines
    })
}

/// A session offering only the built-in simple players, so that fuzzing stays fast whatever the
/// default player becomes.
fn simple_session() -> Session {
    let simple = players().into_iter().filter(|p| ["random", "greedy"].contains(&p.name)).collect();
    Session::new(EngineOptions::with_players(simple))
}

/// How many lines the front end reads as `go` before a `quit` ends the session.
fn gos_before_quit(lines: &[String]) -> usize {
    let quit = lines.iter().position(|l| l.split_whitespace().eq(["quit"])).unwrap_or(lines.len());
    lines[..quit].iter().filter(|l| l.split_whitespace().next() == Some("go")).count()
}

/// Every output line is a protocol reply, and none reports an internal error (a caught panic).
fn check_replies<'a>(out: impl IntoIterator<Item = &'a str>) {
    for line in out {
        let known = ["id ", "option ", "info ", "bestmove "].iter().any(|p| line.starts_with(p))
            || line == "uciok"
            || line == "readyok";
        assert!(known, "not a protocol reply: '{line}'");
        assert!(!line.contains("internal error"), "{line}");
    }
}

/// [`check_replies`], and the `bestmove` lines number the `go` lines.
fn check_output(lines: &[String], out: &str) {
    check_replies(out.lines());
    let bestmoves = out.lines().filter(|l| l.starts_with("bestmove ")).count();
    assert_eq!(bestmoves, gos_before_quit(lines), "one bestmove per go\n{lines:#?}\n{out}");
}

/// A disturbance of a real game: a line sent before a ply, or the ply's observation sent first
/// with some characters changed (then the true one).
#[derive(Clone, Debug)]
enum Injection {
    Line(String),
    Mutated(Vec<(usize, char)>),
}

fn injection_strategy() -> impl Strategy<Value = Injection> {
    let edit =
        (any::<usize>(), prop::sample::select(&['?', 'x', 'X', 'K', 'k', 'P', 'p', 'Q', '1', '8', '/', '~', ' ']));
    prop_oneof![
        line_strategy().prop_map(Injection::Line),
        prop::collection::vec(edit, 1..4).prop_map(Injection::Mutated),
    ]
}

/// Plays a real game of the random player against a random referee opponent on the in-process
/// front end, with the injections; the game stops early where they put the engine off track.
/// Checks that nothing panicked, that the engine stayed responsive, and that every reply is one.
fn disturbed_game(variant: Variant, side: murk::core::Color, seed: u64, injections: &[(usize, Injection)]) {
    let mut e = Engine::in_process_with(simple_session());
    for line in [
        format!("setoption name UCI_Variant value {variant}"),
        "setoption name Player value random".into(),
        format!("setoption name Seed value {}", seed >> 1),
        "position startpos".into(),
        format!("side {}", side.name()),
    ] {
        e.send(&line);
    }
    let mut game = Game::new(Position::start(variant));
    let mut r = rng(seed);
    let mut steps = 0;
    while game.outcome().is_none() && steps < 80 {
        steps += 1;
        let ply = game.moves().len();
        let mut mutations = Vec::new();
        for (_, inj) in injections.iter().filter(|(at, _)| *at == ply) {
            match inj {
                Injection::Line(l) if !matches!(l.split_whitespace().next(), Some("go" | "quit")) => {
                    e.send(l);
                    e.sync();
                }
                Injection::Line(_) => {}
                Injection::Mutated(edits) => mutations.push(edits.clone()),
            }
        }
        let mv = if game.position().turn() == side {
            let (_, best) = e.go("movetime 10");
            match Move::parse(&best, variant) {
                Ok(m) => m,
                Err(_) => break,
            }
        } else {
            *game.position().moves().choose(&mut r).expect("a move")
        };
        match game.play(mv) {
            Ok(Played::Bounced(sq)) => e.send(&format!("bounce {sq}")),
            Ok(Played::Moved(report)) => {
                let args = Observation::after_ply(game.position(), &report, side).to_args();
                for edits in mutations {
                    e.send(&format!("observe {}", mutate(&args, &edits)));
                }
                e.send(&format!("observe {args}"));
            }
            Err(_) => break,
        }
    }
    if let Some(outcome) = game.outcome() {
        e.send(&format!("gameover {outcome}"));
    }
    let (rest, exit, transcript) = e.quit();
    assert!(exit.success(), "{exit}");
    assert!(rest.iter().all(|l| !l.starts_with("bestmove")), "{rest:?}");
    let out: Vec<&str> = transcript.iter().filter_map(|l| l.strip_prefix("< ")).collect();
    check_replies(out);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_line_panics_the_parser(line in "\\PC{0,60}") {
        let _ = parse(&line);
    }

    #[test]
    fn no_disturbance_of_a_real_game_panics_the_engine(
        v in 0usize..3,
        white in any::<bool>(),
        seed in any::<u64>(),
        injections in prop::collection::vec((0usize..50, injection_strategy()), 0..8),
    ) {
        let side = if white { murk::core::Color::White } else { murk::core::Color::Black };
        disturbed_game(Variant::ALL[v], side, seed, &injections);
    }

    #[test]
    fn no_session_panics_the_front_end(lines in session_strategy()) {
        let mut out = Vec::new();
        let input = std::io::Cursor::new(lines.join("\n").into_bytes());
        murk::protocol::run(simple_session(), input, &mut out).expect("in-memory I/O");
        check_output(&lines, &String::from_utf8(out).expect("UTF-8 output"));
    }
}

#[test]
fn the_binary_survives_random_input() {
    let mut r = rng(99);
    let (variant, samples) = &samples()[2];
    let mut lines = vec![
        "setoption name Player value random".to_string(),
        format!("setoption name UCI_Variant value {variant}"),
        "position startpos".into(),
        "side white".into(),
    ];
    for _ in 0..300 {
        let line = match r.gen_range(0..4) {
            0 => (0..r.gen_range(0..6)).map(|_| *WORDS.choose(&mut r).unwrap()).collect::<Vec<_>>().join(" "),
            1 => format!("observe {}", mutate(samples.choose(&mut r).unwrap(), &[(r.gen(), '?'), (r.gen(), 'k')])),
            2 => (0..r.gen_range(0..30)).map(|_| r.gen_range(' '..='~')).collect(),
            _ => ["go", "go infinite", "isready", "stop", "observe", "bounce e5"].choose(&mut r).unwrap().to_string(),
        };
        lines.push(line);
    }
    lines.retain(|l| !l.split_whitespace().eq(["quit"]));
    let mut child = Command::new(env!("CARGO_BIN_EXE_murk"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start murk");
    let mut stdin = child.stdin.take().unwrap();
    let input = lines.join("\n");
    let writer = std::thread::spawn(move || {
        stdin.write_all(input.as_bytes()).unwrap();
        stdin.write_all(b"\n\xff\xfe\x00garbage\n").unwrap();
    });
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).expect("UTF-8 output");
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    check_output(&lines, &out);
}
