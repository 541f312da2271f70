//! `murk uci-fog`: against a fake child engine (a bash script that logs what it is sent and
//! answers, crashes, hangs or lies as told), the child is asked only about our legal moves in
//! each world, a failing child costs no illegal or late move, and scores combine across worlds;
//! against Fairy-Stockfish (ignored without it: `bash tests/data/fsf/install.sh`, then
//! `cargo test --release --test murk uci_fog -- --ignored`), real matches without forfeits.

use crate::protocol::{greedy_opponent, play_on, Engine, Setup};
use crate::runner::fake::{run_match, Scratch};
use murk::core::{Color, Move, Square, Variant};
use murk::rules::Position;
use murk::uci_fog::{choose, ChildScores};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Where `bash tests/data/fsf/install.sh` puts Fairy-Stockfish.
const FSF: &str = "/usr/local/bin/fairy-stockfish";

const FAKE: &str = r#"#!/usr/bin/env bash
# A fake UCI variant engine. Appends every line it reads to $FAKE_LOG. On `go ... searchmoves
# M1 M2 ...` it scores M1 100, M2 90, ... (one multipv line each) and plays M1, unless $FAKE_MODE
# says otherwise: crash-once / hang-once (at the first go of the test, marked in $FAKE_STATE),
# illegal (claims a winning king move e1e5 and plays it), none (bestmove (none)).
set -f
log=${FAKE_LOG:-/dev/null}; mode=${FAKE_MODE:-normal}
while IFS= read -r line; do
  echo "$line" >> "$log"
  set -- $line
  case "$1" in
    uci)
      echo "id name fake-fsf"
      echo "option name Threads type spin default 1 min 1 max 512"
      echo "option name MultiPV type spin default 1 min 1 max 500"
      echo "option name UCI_Variant type combo default chess var chess var fogofwar var darkcrazyhouse var darkcrossroadstry"
      echo "option name VariantPath type string default <empty>"
      echo "uciok" ;;
    isready) echo "readyok" ;;
    quit) exit 0 ;;
    go)
      moves=
      while [ $# -gt 0 ]; do if [ "$1" = searchmoves ]; then shift; moves="$*"; break; fi; shift; done
      case "$mode" in
        crash-once) if [ ! -e "$FAKE_STATE/crashed" ]; then touch "$FAKE_STATE/crashed"; exit 3; fi ;;
        hang-once) if [ ! -e "$FAKE_STATE/hung" ]; then touch "$FAKE_STATE/hung"; exec sleep 30; fi ;;
        illegal) echo "info depth 1 score mate 1 pv e1e5"; echo "bestmove e1e5"; continue ;;
        none) echo "bestmove (none)"; continue ;;
      esac
      set -- $moves
      i=0
      for m in "$@"; do
        i=$((i + 1)); echo "info depth 1 multipv $i score cp $((110 - 10 * i)) nodes 1 pv $m"
      done
      echo "bestmove $1" ;;
  esac
done
"#;

/// A scratch directory with the fake engine and its log.
struct Fake {
    scratch: Scratch,
}

impl Fake {
    fn new(tag: &str) -> Fake {
        let scratch = Scratch::new(&format!("uci-fog-{tag}"));
        let script = scratch.file("fake-fsf.sh");
        std::fs::write(&script, FAKE).expect("write fake engine");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        Fake { scratch }
    }

    fn script(&self) -> PathBuf {
        self.scratch.file("fake-fsf.sh")
    }

    fn log(&self) -> PathBuf {
        self.scratch.file("child.log")
    }

    /// `murk uci-fog` running the fake in `mode`, with extra arguments.
    fn engine(&self, mode: &str, extra: &[&str]) -> Engine {
        let script = self.script().display().to_string();
        let mut args = vec!["uci-fog", "--engine", script.as_str()];
        args.extend_from_slice(extra);
        let log = self.log().display().to_string();
        let state = self.scratch.0.display().to_string();
        Engine::start_with(&args, &[("FAKE_MODE", mode), ("FAKE_LOG", &log), ("FAKE_STATE", &state)])
    }

    /// Every `(position fen, searchmoves)` the child was sent.
    fn searches(&self) -> Vec<(String, Vec<String>)> {
        let log = std::fs::read_to_string(self.log()).unwrap_or_default();
        let mut fen = None;
        let mut out = Vec::new();
        for line in log.lines() {
            if let Some(f) = line.strip_prefix("position fen ") {
                fen = Some(f.to_string());
            } else if line.starts_with("go ") {
                let moves = line
                    .split(" searchmoves ")
                    .nth(1)
                    .map_or(Vec::new(), |m| m.split_whitespace().map(str::to_string).collect());
                out.push((fen.clone().expect("a position before every go"), moves));
            }
        }
        out
    }
}

fn setup<'a>(variant: Variant, fen: Option<&'a str>, side: Color, go: &'a str) -> Setup<'a> {
    Setup { variant, fen, side, options: vec![("Seed", "3".to_string())], go, max_plies: 60 }
}

/// Checks that each world the child saw parses, has us to move, and that every move it was
/// asked about is legal there; returns how many searches there were.
fn check_worlds(fake: &Fake, variant: Variant, side: Color) -> usize {
    let searches = fake.searches();
    for (fen, moves) in &searches {
        let world = Position::from_fen(variant, fen).unwrap_or_else(|e| panic!("world '{fen}': {e}"));
        assert_eq!(world.turn(), side, "{fen}");
        assert!(!moves.is_empty(), "a go without searchmoves for {fen}");
        let legal: Vec<String> = world.moves().iter().map(|m| m.to_uci(variant)).collect();
        for m in moves {
            assert!(legal.contains(m), "searchmoves {m} is not legal in the world {fen}");
        }
    }
    searches.len()
}

#[test]
fn the_child_searches_only_our_moves_that_are_legal_in_each_world_and_the_game_plays_out() {
    // Crazyhouse with knights in hand: drops onto fogged squares are legal from our view but not
    // in the worlds where a hidden piece stands there.
    let zh = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Nn] w KQkq - 0 1";
    for (variant, fen, side) in [
        (Variant::DarkCrazyhouse, Some(zh), Color::Black),
        (Variant::DarkCrossroads, None, Color::White),
        (Variant::DarkChess, None, Color::White),
    ] {
        let fake = Fake::new("legal");
        let rec =
            play_on(fake.engine("normal", &[]), &setup(variant, fen, side, "movetime 150"), &mut greedy_opponent(5));
        assert!(rec.errors.is_empty(), "{variant}: {:?}", rec.errors);
        let searches = check_worlds(&fake, variant, side);
        let our_moves = rec.game.moves().len() / 2;
        assert!(searches >= our_moves, "{variant}: {searches} searches for {our_moves} moves");
        let log = std::fs::read_to_string(fake.log()).expect("child log");
        let expected = format!("setoption name UCI_Variant value {}", murk::uci_fog::fsf_variant(variant));
        assert!(log.contains(&expected) && log.contains("setoption name VariantPath value "), "{log}");
        assert!(log.contains("setoption name MultiPV value 3"), "{log}");
    }
}

#[test]
fn the_runners_searchmoves_bound_the_choice_and_the_childs_questions() {
    let fake = Fake::new("searchmoves");
    let mut e = fake.engine("normal", &["--worlds", "4"]);
    e.send("setoption name UCI_Variant value dark-chess");
    e.send("position startpos");
    e.send("side white");
    e.sync();
    let (_, best) = e.go("movetime 200 searchmoves g1f3 b1c3");
    assert!(["g1f3", "b1c3"].contains(&best.as_str()), "{best}");
    let searches = fake.searches();
    assert!(!searches.is_empty());
    for (_, moves) in &searches {
        assert_eq!(moves, &["b1c3", "g1f3"], "the child is asked about the runner's moves only");
    }
}

/// Plays `go movetime <ms>` from the start as White and returns the lines and the move, checking
/// that the reply came within the move time.
fn timed_go(e: &mut Engine, ms: u64) -> (Vec<String>, String) {
    let t = Instant::now();
    let reply = e.go(&format!("movetime {ms}"));
    assert!(t.elapsed() <= Duration::from_millis(ms), "answered after {:?} of {ms} ms", t.elapsed());
    reply
}

/// Starts a dark-chess game as White and plays `moves` of ours against a knight shuffle of Black,
/// sending what the runner would; returns the `go` replies.
fn play_shuffle(e: &mut Engine, moves: usize) -> Vec<(Vec<String>, String)> {
    e.send("setoption name UCI_Variant value dark-chess");
    e.send("position startpos");
    e.send("side white");
    e.sync();
    let mut game = murk::rules::Game::new(Position::start(Variant::DarkChess));
    let mut replies = Vec::new();
    for i in 0..moves {
        let (lines, best) = timed_go(e, 300);
        let mv = Move::parse(&best, Variant::DarkChess).expect("a move");
        let report = match game.play(mv).unwrap_or_else(|err| panic!("illegal {best}: {err}")) {
            murk::rules::Played::Moved(r) => r,
            murk::rules::Played::Bounced(_) => panic!("no drops in dark chess"),
        };
        let obs = murk::view::Observation::after_ply(game.position(), &report, Color::White);
        e.send(&format!("observe {}", obs.to_args()));
        let (from, to) = if i % 2 == 0 { ("g8", "f6") } else { ("f6", "g8") };
        let shuffle = Move::normal(Square::parse(from).expect("sq"), Square::parse(to).expect("sq"));
        let murk::rules::Played::Moved(report) = game.play(shuffle).expect("the knight shuffle is legal") else {
            panic!("no bounce")
        };
        let obs = murk::view::Observation::after_ply(game.position(), &report, Color::White);
        e.send(&format!("observe {}", obs.to_args()));
        replies.push((lines, best));
        if game.outcome().is_some() {
            break;
        }
    }
    replies
}

fn searched(lines: &[String]) -> usize {
    let line = lines.iter().find(|l| l.contains("uci-fog belief")).expect("a summary line");
    let n = line.split(" searched ").nth(1).and_then(|r| r.split_whitespace().next()).expect("searched N");
    n.parse().expect("a count")
}

#[test]
fn a_crashing_child_costs_one_greedy_move_in_time_and_is_restarted() {
    let fake = Fake::new("crash");
    let mut e = fake.engine("crash-once", &[]);
    let replies = play_shuffle(&mut e, 4);
    let (first, _) = &replies[0];
    assert!(first.iter().any(|l| l.starts_with("info string error: the engine failed")), "{first:?}");
    assert_eq!(searched(first), 0);
    // The next move waits for the child restarted in the background, and searches again.
    let later: usize = replies[1..].iter().map(|(lines, _)| searched(lines)).sum();
    assert!(later > 0, "{replies:?}");
    assert!(replies[1..].iter().all(|(lines, _)| !lines.iter().any(|l| l.contains("error"))), "{replies:?}");
}

#[test]
fn a_hanging_child_is_given_up_in_time_and_restarted() {
    let fake = Fake::new("hang");
    let mut e = fake.engine("hang-once", &[]);
    let replies = play_shuffle(&mut e, 5);
    // First move: the search is given up at the deadline; second: its bestmove never came, so the
    // child is restarted; after that it searches again. Every move came in time (timed_go).
    assert_eq!(searched(&replies[0].0), 0);
    assert!(replies[1].0.iter().any(|l| l.contains("error: the engine failed")), "{replies:?}");
    let later: usize = replies[2..].iter().map(|(lines, _)| searched(lines)).sum();
    assert!(later > 0, "{replies:?}");
}

#[test]
fn a_child_that_claims_illegal_moves_or_none_is_never_followed() {
    for mode in ["illegal", "none"] {
        let fake = Fake::new(mode);
        let rec = play_on(
            fake.engine(mode, &[]),
            &setup(Variant::DarkChess, None, Color::White, "movetime 100"),
            &mut greedy_opponent(2),
        );
        // `play_on` panics on an illegal move; the child's answers gave no score to any legal move.
        assert!(rec.errors.is_empty(), "{mode}: {:?}", rec.errors);
        assert!(!rec.game.moves().is_empty());
        assert!(rec.transcript.iter().any(|l| l.contains("(no score: greedy move)")), "{mode}");
    }
}

fn mv(text: &str) -> Move {
    Move::parse(text, Variant::DarkCrazyhouse).expect("test move")
}

fn world(weight: f64, moves: &[&str], scores: &[(&str, i32)]) -> ChildScores {
    ChildScores {
        weight,
        moves: moves.iter().map(|m| mv(m)).collect(),
        scores: scores.iter().map(|&(m, s)| (mv(m), s)).collect(),
    }
}

#[test]
fn scores_combine_as_a_mix_of_weighted_mean_and_worst_case() {
    let both = ["e2e4", "d2d4"];
    // e2e4 is better on average (weights 3:1), d2d4 is safer.
    let worlds = [world(3.0, &both, &[("e2e4", 100), ("d2d4", 20)]), world(1.0, &both, &[("e2e4", -200), ("d2d4", 0)])];
    let candidates = [mv("e2e4"), mv("d2d4")];
    let greedy = choose(&worlds, &candidates, 0.0).expect("a choice");
    assert_eq!((greedy.mv, greedy.mean, greedy.worst), (mv("e2e4"), 25.0, -200.0));
    let careful = choose(&worlds, &candidates, 0.35).expect("a choice");
    assert_eq!(careful.mv, mv("d2d4"));
    assert!((careful.value - (0.65 * 15.0)).abs() < 1e-9, "{careful:?}");
    // A move the child did not score counts a little below the worst it scored in that world.
    let unscored = [world(1.0, &both, &[("e2e4", 50)])];
    let only_d = choose(&unscored, &[mv("d2d4")], 0.35).expect("a choice");
    assert_eq!(only_d.mean, 50.0 - murk::uci_fog::UNREPORTED_PENALTY_CP);
    // A drop not legal in a world (a hidden piece stands there) is judged by the other worlds.
    let drop = [world(1.0, &["e2e4"], &[("e2e4", 10)]), world(1.0, &["e2e4", "N@e5"], &[("N@e5", 80), ("e2e4", 0)])];
    let best = choose(&drop, &[mv("e2e4"), mv("N@e5")], 0.35).expect("a choice");
    assert_eq!((best.mv, best.mean), (mv("N@e5"), 80.0));
    // Nothing scored: no choice (the player falls back to a greedy move).
    assert_eq!(choose(&[world(1.0, &both, &[])], &candidates, 0.35), None);
}

#[test]
fn uci_fog_declares_what_murk_declares_and_bad_command_lines_fail_clearly() {
    let fake = Fake::new("cli");
    let options = |e: &mut Engine| -> Vec<String> {
        e.send("uci");
        let lines = e.until(|l| l == "uciok");
        lines
            .iter()
            .filter_map(|l| l.strip_prefix("option name "))
            .map(|l| l.split(" type ").next().unwrap().to_string())
            .collect()
    };
    let fog = options(&mut fake.engine("normal", &[]));
    let plain = options(&mut Engine::start());
    assert_eq!(fog, plain);
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_murk")).args(args).output().expect("run murk");
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let script = fake.script().display().to_string();
    for (args, message) in [
        (vec!["uci-fog", "--engine", "/nonexistent/engine"], "cannot start '/nonexistent/engine'"),
        (vec!["uci-fog", "--engine", &script, "--option", "Hash"], "is not NAME=VALUE"),
        (vec!["uci-fog", "--engine", &script, "--option", "multipv=2"], "uci-fog sets MultiPV itself"),
        (vec!["uci-fog", "--engine", &script, "--option", "Nonsense=1"], "the engine has no option 'Nonsense'"),
        (vec!["uci-fog", "--engine", &script, "--worlds", "0"], "--worlds"),
        (vec!["uci-fog", "--engine", &script, "--risk", "2"], "not a number from 0 to 1"),
    ] {
        let (code, stderr) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

fn fsf() -> &'static Path {
    let path = Path::new(FSF);
    assert!(path.exists(), "Fairy-Stockfish is not installed: run bash tests/data/fsf/install.sh");
    path
}

#[test]
#[ignore = "needs Fairy-Stockfish: bash tests/data/fsf/install.sh"]
fn with_fairy_stockfish_every_variant_plays_out_against_random_without_forfeit_or_error() {
    let engine = format!("{} uci-fog --engine {} name=fog", env!("CARGO_BIN_EXE_murk"), fsf().display());
    for variant in Variant::ALL {
        let s = Scratch::new(&format!("uci-fog-fsf-{variant}"));
        let args = ["--variant", variant.name(), "--engine", &engine, "--engine", "builtin:random", "--games", "4"];
        let run = run_match(&s, &[&args[..], &["--movetime", "100", "--seed", "7", "--no-progress"]].concat());
        assert!(run.line("Score of fog vs random: ").ends_with("] 4"), "{}", run.stdout);
        for r in &run.records {
            assert_ne!(r.termination_kind, "forfeit", "{variant} game {}: {}", r.game, r.detail);
            let fog = if r.white == "fog" { Color::White } else { Color::Black };
            let lines: Vec<&str> = r.lines_of(fog).map(|m| m.line.as_str()).collect();
            let errors: Vec<&&str> = lines.iter().filter(|l| l.contains("error")).collect();
            assert!(errors.is_empty(), "{variant} game {}: {errors:?}", r.game);
            let searched = lines.iter().filter(|l| l.contains("uci-fog belief") && !l.contains(" searched 0")).count();
            assert!(searched > 0, "{variant} game {}: Fairy-Stockfish never searched", r.game);
        }
    }
}
