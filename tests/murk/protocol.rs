//! The protocol of protocol.md, spoken by the real binary: handshake, whole games of each
//! variant against a referee (bounces, captures, the Try, game ends), notation, `stop` and
//! `isready` during a search, bad input, and the end of the process. Also the time budget.

mod examples;
mod harness;
mod leak;

pub use harness::{engine_io, greedy_opponent, play, play_on, Engine, Record, Setup};
use murk::core::{Color, Move, Variant};
use murk::engine::{EngineOptions, PlayerEntry, Session};
use murk::rules::Position;
use murk::search::limits::clock_budget;
use murk::search::{Limits, SearchClock, SearchInfo, Searcher};
use murk::view::{InfoState, View};
use rand::seq::SliceRandom;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The text form of `side`'s view of the position `fen`.
fn view_of(variant: Variant, fen: &str, side: Color) -> String {
    View::of(&Position::from_fen(variant, fen).expect("test FEN"), side).to_text()
}

/// An engine with a game set up: variant, seed, player, position, side.
fn engine_with_game(variant: Variant, fen: Option<&str>, side: Color) -> Engine {
    let mut e = Engine::start();
    e.send(&format!("setoption name UCI_Variant value {variant}"));
    e.send("setoption name Player value random");
    e.send("setoption name Seed value 7");
    match fen {
        Some(fen) => e.send(&format!("position fen {fen}")),
        None => e.send("position startpos"),
    }
    e.send(&format!("side {}", side.name()));
    assert_eq!(e.sync(), Vec::<String>::new());
    e
}

#[test]
fn uci_handshake_lists_the_options() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until(|l| l == "uciok");
    assert!(lines[0].starts_with("id name Murk "), "{lines:?}");
    assert!(lines[1].starts_with("id author "), "{lines:?}");
    for option in [
        "option name UCI_Variant type combo default dark-crazyhouse var dark-crazyhouse var dark-crossroads var dark-chess",
        "option name Threads type spin default 1 min 1",
        "option name Hash type spin default 320 min 1",
        "option name Seed type spin default 0 min 0",
        "option name Move Overhead type spin default 30 min 0",
        "option name Player type combo default ",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(option)), "missing '{option}' in {lines:?}");
    }
    let player = lines.iter().find(|l| l.starts_with("option name Player")).unwrap();
    assert!(player.contains(" var random") && player.contains(" var greedy"), "{player}");
    for (name, value) in [("uci_variant", "DARK-CHESS"), ("Threads", "4"), ("hash", "64"), ("move overhead", "0")] {
        assert_eq!(e.errors_after(&format!("setoption name {name} value {value}")), Vec::<String>::new());
    }
    let (rest, status, _) = e.quit();
    assert!(rest.is_empty() && status.success(), "{rest:?} {status}");
}

/// Plays games with seeds from `seeds` until one satisfies `wanted`; every game must be clean.
fn find_game(make: impl Fn(u64) -> (Setup<'static>, u64), wanted: impl Fn(&Record) -> bool) -> Record {
    for seed in 0..40 {
        let (setup, opponent_seed) = make(seed);
        let rec = play(&setup, &mut greedy_opponent(opponent_seed));
        assert!(rec.errors.is_empty(), "seed {seed}: {:?}\n{}", rec.errors, rec.transcript.join("\n"));
        if wanted(&rec) {
            return rec;
        }
    }
    panic!("no game had the wanted events");
}

fn setup(variant: Variant, fen: Option<&'static str>, side: Color, seed: u64, player: &str) -> Setup<'static> {
    Setup {
        variant,
        fen,
        side,
        options: vec![("Player", player.to_string()), ("Seed", seed.to_string())],
        go: "movetime 500",
        max_plies: 120,
    }
}

const HOUSE_FEN: &str = "r1b1k2r/ppp2ppp/2n5/3qp3/8/2N5/PPP2PPP/R1BQKB1R[NBp] w KQkq - 0 1";

#[test]
fn crazyhouse_game_with_a_bounce_a_capture_and_an_end() {
    let rec = find_game(
        |seed| (setup(Variant::DarkCrazyhouse, Some(HOUSE_FEN), Color::White, seed, "random"), seed),
        |r| r.bounces > 0 && r.engine_losses > 0 && r.game.outcome().is_some(),
    );
    let io = rec.transcript.join("\n");
    assert!(io.contains("\n> bounce ") && io.contains(" captured "), "{io}");
    assert!(io.contains("\n> gameover "), "{io}");
}

#[test]
fn crossroads_game_with_a_try() {
    let fen = "b1k3/p2o2/6/1K4/6/6/O2P2/6 w - - 0 1";
    let rec = find_game(
        |seed| (setup(Variant::DarkCrossroads, Some(fen), Color::White, seed, "random"), seed),
        |r| r.tries > 0 && r.game.outcome().is_some(),
    );
    let io = rec.transcript.join("\n");
    assert!(io.lines().any(|l| l.starts_with("> observe ") && l.ends_with(" try")), "{io}");
}

#[test]
fn dark_chess_game_as_black_from_the_start() {
    let rec = find_game(
        |seed| (setup(Variant::DarkChess, None, Color::Black, seed, "greedy"), seed + 100),
        |r| r.engine_losses > 0 && r.game.outcome().is_some(),
    );
    let io = engine_io(&rec.transcript);
    // The engine as Black hears of White's first move before its first `go`.
    let first_go = io.iter().position(|l| l.starts_with("> go")).unwrap();
    assert!(io[..first_go].iter().any(|l| l.starts_with("> observe ")), "{io:?}");
}

#[test]
fn a_bounced_square_is_not_offered_again_and_a_second_bounce_is_an_error() {
    let fen = "4k3/8/8/4p3/8/8/8/4K3[N] w - - 0 1";
    let mut e = engine_with_game(Variant::DarkCrazyhouse, Some(fen), Color::White);
    assert_eq!(e.go("searchmoves N@e5").1, "N@e5");
    assert_eq!(e.errors_after("bounce e5"), Vec::<String>::new());
    let (lines, best) = e.go("searchmoves N@e5");
    assert_eq!(best, "0000");
    assert!(lines[0].contains("searchmoves: 'N@e5'"), "{lines:?}");
    assert!(!e.errors_after("bounce e5").is_empty(), "a bounce without a pending drop");
    // A drop onto a square the engine sees empty cannot bounce.
    assert_eq!(e.go("searchmoves N@e2").1, "N@e2");
    assert!(!e.errors_after("bounce e2").is_empty());
    let after = view_of(Variant::DarkCrazyhouse, "4k3/8/8/4p3/8/8/4N3/4K3[] b - - 0 1", Color::White);
    assert_eq!(e.errors_after(&format!("observe {after}")), Vec::<String>::new());
}

#[test]
fn castling_is_written_as_the_king_move_and_king_takes_rook_is_read() {
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    let mut e = engine_with_game(Variant::DarkChess, Some(fen), Color::White);
    assert_eq!(e.go("searchmoves e1h1").1, "e1g1");
    let after = view_of(Variant::DarkChess, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1", Color::White);
    assert_eq!(e.errors_after(&format!("observe {after}")), Vec::<String>::new());
    let mut e = engine_with_game(Variant::DarkChess, Some(fen), Color::White);
    assert_eq!(e.go("searchmoves e1a1").1, "e1c1");
}

#[test]
fn promotions_and_crossroads_letters() {
    let fen = "7k/4P3/8/8/8/8/8/K7 w - - 0 1";
    let mut e = engine_with_game(Variant::DarkChess, Some(fen), Color::White);
    assert_eq!(e.go("searchmoves e7e8n").1, "e7e8n");
    let fen = "6/3P1k/6/6/6/6/6/K5 w - - 0 1";
    let mut e = engine_with_game(Variant::DarkCrossroads, Some(fen), Color::White);
    assert_eq!(e.go("searchmoves d7d8q").1, "d7d8q");
    let mut e = engine_with_game(Variant::DarkCrossroads, Some(fen), Color::White);
    assert_eq!(e.go("searchmoves d7d8n").1, "0000", "Crossroads pawns promote to a queen only");
}

#[test]
fn stop_ends_go_infinite_and_isready_is_answered_during_the_search() {
    let mut e = engine_with_game(Variant::DarkCrazyhouse, None, Color::White);
    e.send("go infinite");
    assert_eq!(e.sync(), Vec::<String>::new(), "no bestmove before stop");
    e.send("uci");
    assert!(e.until(|l| l == "uciok").iter().all(|l| !l.starts_with("bestmove")));
    e.send("stop");
    let lines = e.until(|l| l.starts_with("bestmove "));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(e.sync(), Vec::<String>::new(), "exactly one bestmove per go");
    e.send("stop");
    assert_eq!(e.sync(), Vec::<String>::new(), "stop without a search is harmless");
}

#[test]
fn a_state_command_during_go_infinite_ends_the_search_first() {
    let mut e = engine_with_game(Variant::DarkChess, None, Color::White);
    e.send("go infinite");
    e.send("gameover 0-1 time-forfeit");
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with("bestmove ") && lines[0] != "bestmove 0000", "{lines:?}");
    assert_eq!(e.go("").1, "0000", "the game is over");
}

#[test]
fn go_when_the_engine_cannot_move_answers_0000() {
    let mut e = Engine::start();
    for setup in ["", "setoption name UCI_Variant value dark-chess", "position startpos"] {
        if !setup.is_empty() {
            e.send(setup);
        }
        let (lines, best) = e.go("movetime 10");
        assert_eq!(best, "0000");
        assert!(lines.len() == 1 && lines[0].starts_with("info string error: "), "{lines:?}");
    }
    e.send("side black");
    let (lines, best) = e.go("");
    assert_eq!((lines[0].as_str(), best.as_str()), ("info string error: cannot move: it is not our turn", "0000"));
    let (rest, status, _) = e.close();
    assert!(rest.is_empty() && status.success());
}

#[test]
fn the_start_view_is_checked_against_the_position_and_only_before_the_first_ply() {
    for variant in [Variant::DarkChess, Variant::DarkCrossroads, Variant::DarkCrazyhouse] {
        let fen = Position::start(variant).to_fen();
        let ours = view_of(variant, &fen, Color::White);
        let theirs = view_of(variant, &fen, Color::Black);
        let mut e = engine_with_game(variant, None, Color::White);
        e.send(&format!("observe {ours} start"));
        assert_eq!(e.sync(), Vec::<String>::new(), "{variant}: the true start view is accepted");
        e.send(&format!("observe {theirs} start"));
        let errors = e.sync();
        assert!(
            errors.len() == 1 && errors[0].contains("the start view should be"),
            "{variant}: the other side's view is rejected: {errors:?}"
        );
        let (_, best) = e.go("nodes 50");
        let mv = Move::parse(&best, variant).expect("a move");
        let mut after = Position::start(variant);
        after.play_unchecked(mv);
        e.send(&format!("observe {} ", View::of(&after, Color::White).to_text()));
        assert_eq!(e.sync(), Vec::<String>::new(), "{variant}: the observe of our move");
        e.send(&format!("observe {ours} start"));
        let errors = e.sync();
        assert!(
            errors.len() == 1 && errors[0].contains("a start view after the game has begun"),
            "{variant}: a start view after a ply is rejected: {errors:?}"
        );
    }
}

/// Lines that must each produce an error and change nothing.
fn garbage(start_view: &str) -> Vec<String> {
    let mut lines: Vec<String> = [
        "hello",
        "UCI",
        "isready now",
        "setoption",
        "setoption name",
        "setoption name Nope value 1",
        "setoption name Seed value -1",
        "setoption name Threads value 0",
        "setoption name Hash",
        "setoption name UCI_Variant value chess",
        "setoption name Player value stockfish",
        "position",
        "position fen",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",
        "position startpos moves e2e4",
        "side green",
        "side",
        "observe",
        "observe ????????/8/8/8/8/8/8/8 -",
        "observe ???? ????",
        "bounce e4",
        "bounce z9",
        "gameover",
        "gameover 2-0 king-captured",
        "gameover 1/2-1/2 king-captured",
        "gameover 1-0 try-completed",
        "gameover 1-0 Bad_Reason",
        "debug maybe",
        "ponderhit",
        "\u{1b}[2J\u{7}",
        "é♞ 𝄞",
    ]
    .map(String::from)
    .to_vec();
    lines.push(format!("observe {start_view} captured e2 P"));
    lines.push(format!("observe {start_view} try"));
    lines.push(format!("observe {start_view} extra"));
    lines.push(format!("observe {}", start_view.replacen('K', "1", 1)));
    lines
}

#[test]
fn garbage_lines_each_get_an_error_and_change_nothing() {
    let view = view_of(Variant::DarkChess, Variant::DarkChess.start_fen(), Color::White);
    let mut clean = engine_with_game(Variant::DarkChess, None, Color::White);
    let mut dirty = engine_with_game(Variant::DarkChess, None, Color::White);
    for line in garbage(&view) {
        let errors = dirty.errors_after(&line);
        assert_eq!(errors.len(), 1, "'{line}' gave {errors:?}");
    }
    for bad_go in ["go wtime", "go movetime x", "go nodes 5 nodes 6", "go ponder", "go searchmoves", "go banana"] {
        let (lines, best) = dirty.go(bad_go.strip_prefix("go ").unwrap());
        assert!(lines.len() == 1 && lines[0].starts_with("info string error: go: "), "{bad_go}: {lines:?}");
        assert_eq!(best, "0000");
    }
    dirty.send_bytes(b"go \xff\xfe\n");
    assert_eq!(dirty.recv(), "info string error: go: unexpected '\u{fffd}\u{fffd}'");
    assert_eq!(dirty.recv(), "bestmove 0000");
    dirty.send_bytes(&vec![b'x'; 1 << 21]);
    dirty.send("");
    assert_eq!(dirty.sync(), vec![format!("info string error: line longer than {} bytes ignored", 1 << 20)]);
    // Same seed, same information: the engine that saw garbage plays as the one that did not.
    assert_eq!(dirty.go("movetime 10"), clean.go("movetime 10"));
}

#[test]
fn quit_and_end_of_input_exit_cleanly() {
    let mut e = engine_with_game(Variant::DarkCrossroads, None, Color::White);
    e.send("go infinite");
    let (rest, status, _) = e.close();
    assert!(status.success(), "{status}");
    assert_eq!(rest.len(), 1, "the pending go still gets its bestmove: {rest:?}");
    assert!(rest[0].starts_with("bestmove ") && rest[0] != "bestmove 0000");
    let e = Engine::start();
    let (rest, status, _) = e.quit();
    assert!(rest.is_empty() && status.success());
}

#[test]
fn time_budget_follows_the_clock_and_the_overhead() {
    let limits = |f: fn(&mut Limits)| {
        let mut l = Limits { overhead_ms: 50, ..Limits::default() };
        f(&mut l);
        l
    };
    let ms = Duration::from_millis;
    let b = limits(|l| l.infinite = true).budget(Color::White);
    assert_eq!((b.soft, b.hard, b.nodes), (None, None, None));
    let b = limits(|l| l.movetime = Some(1000)).budget(Color::White);
    assert_eq!((b.soft, b.hard), (Some(ms(950)), Some(ms(950))));
    let b = limits(|_| {}).budget(Color::Black);
    assert_eq!(b.hard, Some(ms(950)), "a bare go searches as movetime 1000");
    let b = limits(|l| l.wtime = Some(5000)).budget(Color::Black);
    assert_eq!(b.hard, Some(ms(950)), "only the other side's clock: as a bare go");
    let b = limits(|l| l.nodes = Some(500)).budget(Color::White);
    assert_eq!((b.soft, b.hard, b.nodes), (None, None, Some(500)));
    let b = limits(|l| {
        l.wtime = Some(60_050);
        l.btime = Some(1000);
        l.winc = Some(1000);
    })
    .budget(Color::White);
    assert_eq!((b.soft, b.hard), (Some(ms(2000 + 750)), Some(ms(11_000))));
    let b = limits(|l| {
        l.wtime = Some(60_050);
        l.btime = Some(1_050);
        l.movestogo = Some(1);
    })
    .budget(Color::Black);
    assert_eq!((b.soft, b.hard), (Some(ms(800)), Some(ms(800))), "never more than 4/5 of the clock");
    assert_eq!(clock_budget(10, 0, None, 50), (ms(1), ms(1)), "an empty clock still gets 1 ms");
    let b = limits(|l| {
        l.wtime = Some(600_050);
        l.movetime = Some(300);
    })
    .budget(Color::White);
    assert_eq!((b.soft, b.hard), (Some(ms(250)), Some(ms(250))), "movetime caps the clock's share");
}

/// A searcher that counts nodes until its budget or `stop` ends it, reporting at powers of two.
struct Counter;

impl Searcher for Counter {
    fn search(
        &mut self,
        info: &InfoState,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(SearchInfo),
    ) -> Option<Move> {
        let clock = SearchClock::start(limits.budget(info.side()));
        let first = info.legal_moves().first().copied();
        let mut nodes = 0u64;
        while !clock.should_stop(nodes, stop) {
            nodes += 1;
            if nodes.is_power_of_two() && nodes >= 1024 {
                report(SearchInfo {
                    depth: Some(1),
                    nodes: Some(nodes),
                    pv: first.into_iter().collect(),
                    ..SearchInfo::default()
                });
            }
        }
        first
    }
}

/// A searcher that panics.
struct Panicker;

impl Searcher for Panicker {
    fn search(&mut self, _: &InfoState, _: &Limits, _: &AtomicBool, _: &mut dyn FnMut(SearchInfo)) -> Option<Move> {
        panic!("this searcher always fails")
    }
}

fn engine_with_players(players: Vec<PlayerEntry>) -> Engine {
    let mut e = Engine::in_process_with(Session::new(EngineOptions::with_players(players)));
    e.send("setoption name UCI_Variant value dark-chess");
    e.send("position startpos");
    e.send("side white");
    assert_eq!(e.sync(), Vec::<String>::new());
    e
}

#[test]
fn a_real_search_reports_stops_on_its_budget_and_on_stop() {
    let counter = PlayerEntry::new("counter", |_| Box::new(Counter));
    let mut e = engine_with_players(vec![counter.clone()]);
    let (lines, best) = e.go("nodes 5000");
    let expected: Vec<String> = [1024, 2048, 4096].iter().map(|n| format!("info depth 1 nodes {n} pv b1a3")).collect();
    assert_eq!((lines, best.as_str()), (expected, "b1a3"));
    let mut e = engine_with_players(vec![counter.clone()]);
    e.send("go infinite");
    // The worker is still counting: `isready` is answered meanwhile, and no bestmove comes.
    let before: Vec<String> = e.sync().into_iter().filter(|l| !l.starts_with("info depth 1 ")).collect();
    assert_eq!(before, Vec::<String>::new());
    e.send("stop");
    let lines = e.until(|l| l.starts_with("bestmove "));
    assert_eq!(lines.last().unwrap(), "bestmove b1a3");
    let mut e = engine_with_players(vec![counter]);
    let (_, best) = e.go("movetime 30");
    assert_eq!(best, "b1a3", "a time budget ends the search without stop");
}

#[test]
fn a_failing_searcher_is_reported_and_a_legal_move_is_sent_anyway() {
    let mut e = engine_with_players(vec![PlayerEntry::new("panicker", |_| Box::new(Panicker))]);
    let (lines, best) = e.go("movetime 10");
    assert_eq!(lines, vec!["info string error: search failed: the search returned no move".to_string()]);
    assert_eq!(best, "b1a3");
    let (rest, exit, _) = e.quit();
    assert!(rest.is_empty() && exit.success(), "{rest:?} {exit}");
}

/// Plays a Crazyhouse game of random moves on both sides against an engine started with `envs`
/// (the engine's moves chosen by `go nodes 3000 searchmoves` between two), so that its belief
/// grows past the size at which its update runs in parallel. Returns each `go`'s move and node
/// count and the belief's largest size.
fn forced_random_game(envs: &[(&str, &str)]) -> (Vec<String>, usize) {
    let mut setup = setup(Variant::DarkCrazyhouse, None, Color::White, 3, "murk");
    setup.options.push(("Threads", "1".to_string()));
    let (mut engine, start, errors) = harness::open_game(Engine::start_with(&[], envs), &setup);
    assert!(errors.is_empty(), "{errors:?}");
    let mut game = murk::rules::Game::new(start);
    let mut rng = crate::support::rng(4);
    let (mut answers, mut largest) = (Vec::new(), 0);
    while game.outcome().is_none() && game.moves().len() < 60 {
        let board_moves: Vec<Move> = game.position().moves().iter().copied().filter(|m| !m.is_drop()).collect();
        let Some(&mine) = board_moves.choose(&mut rng) else { break };
        let mv = if game.position().turn() == Color::White {
            let other = *board_moves.choose(&mut rng).expect("a move");
            let v = setup.variant;
            let (lines, best) = engine.go(&format!("nodes 3000 searchmoves {} {}", mine.to_uci(v), other.to_uci(v)));
            let field =
                |l: &String, name: &str| l.split_once(name).and_then(|(_, r)| r.split(' ').nth(1).map(str::to_string));
            let nodes = lines.iter().rev().find_map(|l| field(l, " nodes"));
            largest = lines.iter().filter_map(|l| field(l, "string worlds")?.parse().ok()).fold(largest, usize::max);
            answers.push(format!("{best} nodes {nodes:?}"));
            Move::parse(&best, v).expect("a move")
        } else {
            mine
        };
        let murk::rules::Played::Moved(report) = game.play(mv).expect("a legal move") else { panic!("no drops") };
        let obs = murk::view::Observation::after_ply(game.position(), &report, Color::White);
        engine.send(&format!("observe {}", obs.to_args()));
    }
    (answers, largest)
}

#[test]
fn at_threads_1_the_belief_update_runs_on_the_search_pool_whatever_the_cores() {
    // The belief's parallel work splits into one chunk per thread of the pool it runs on: on the
    // search's pool that is `Threads`; on rayon's global pool it would be the machine's cores
    // (here set by RAYON_NUM_THREADS), and the answers would differ between these two engines.
    let (one, largest) = forced_random_game(&[("RAYON_NUM_THREADS", "1")]);
    assert!(largest >= 4096, "the belief stayed small: {largest} worlds at most");
    let (three, _) = forced_random_game(&[("RAYON_NUM_THREADS", "3")]);
    assert_eq!(one, three);
}
