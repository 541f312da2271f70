//! The search: known answers under fog (take the visible king, keep the king out of visible
//! attacks, answer a visible Try, do not arm a Try into a visible capture, respect enemy drops),
//! both ways of sharing knowledge across worlds, and determinism across thread counts.

use crate::support::{field, murk, recorded_random_greedy_games};
use murk::core::{Color, Move, Role, Variant};
use murk::engine::EngineOptions;
use murk::eval::Evaluator;
use murk::rules::Position;
use murk::search::{Limits, SearchConfig, SearchInfo, Searcher};
use murk::search::{Mode, MurkSearcher, SearchParams};
use murk::view::InfoState;
use std::sync::atomic::AtomicBool;

/// The evaluation the engine uses by default in `variant`.
fn engine_eval(variant: Variant) -> Evaluator {
    EngineOptions { variant, ..EngineOptions::default() }.evaluator()
}

fn search(variant: Variant, fen: &str, mode: Mode, nodes: u64, threads: usize) -> (Move, Vec<SearchInfo>) {
    let pos = Position::from_fen(variant, fen).unwrap();
    let side = pos.turn();
    let info = InfoState::new(pos, side);
    let config = SearchConfig { variant, side, seed: 7, threads, hash_mib: 64, mode, eval: engine_eval(variant) };
    let mut searcher = MurkSearcher::new(&config, SearchParams::default());
    let limits = Limits { nodes: Some(nodes), ..Limits::default() };
    let mut reports = Vec::new();
    let mv = searcher.search(&info, &limits, &AtomicBool::new(false), &mut |r| reports.push(r)).expect("a move");
    assert!(info.legal_moves().contains(&mv), "illegal {mv:?}");
    (mv, reports)
}

fn uci(variant: Variant, fen: &str, mode: Mode) -> String {
    search(variant, fen, mode, 3000, 1).0.to_uci(variant)
}

/// True if, in the true position after `m`, the mover's king can be captured at once.
fn king_hangs(variant: Variant, fen: &str, m: &str) -> bool {
    let mut pos = Position::from_fen(variant, fen).unwrap();
    let side = pos.turn();
    let mv = pos.find_move(Move::parse(m, variant).unwrap()).unwrap();
    pos.play_unchecked(mv);
    pos.in_check(side)
}

const MODES: [Mode; 4] = [Mode::Pimc, Mode::Ismcts, Mode::AlphaBeta, Mode::InfoSet];

#[test]
fn takes_a_king_it_sees() {
    for mode in MODES {
        assert_eq!(uci(Variant::DarkChess, "4k3/8/8/8/8/8/4Q3/4K3 w - - 0 1", mode), "e2e8");
        // Crossroads: a racing king on the defender's back rank that the defender sees is taken.
        assert_eq!(uci(Variant::DarkCrossroads, "v3K1/6/6/6/6/6/k5/6 b - - 0 1", mode), "a8e8");
    }
}

#[test]
fn keeps_the_king_out_of_visible_attacks() {
    let cases = [
        // A black queen next to the white king.
        (Variant::DarkChess, "4k3/8/8/3q4/3K4/8/8/8 w - - 0 1"),
        // A black rook the white rook sees, attacking the second rank.
        (Variant::DarkChess, "4k3/8/8/8/8/8/r7/R3K3 w - - 0 1"),
        (Variant::DarkCrazyhouse, "4k3/8/8/8/8/8/r7/R3K3[] w - - 0 1"),
    ];
    for mode in MODES {
        for (variant, fen) in cases {
            let m = uci(variant, fen, mode);
            assert!(!king_hangs(variant, fen, &m), "{mode:?} {fen}: {m} leaves the king en prise");
        }
    }
}

#[test]
fn does_not_arm_a_try_into_a_visible_capture() {
    // White's chariot on a1 sees Red's chariot on a8, which covers the whole eighth rank.
    let fen = "v5/4K1/6/6/6/6/6/V4k w - - 0 1";
    for mode in MODES {
        let m = uci(Variant::DarkCrossroads, fen, mode);
        assert!(!m.starts_with("e7") || !m.ends_with('8'), "{mode:?}: {m} arms a Try into a capture");
        assert!(!king_hangs(Variant::DarkCrossroads, fen, &m), "{mode:?}: {m}");
    }
}

#[test]
fn respects_enemy_drops_next_to_the_king() {
    // Black holds a queen: a white king that leaves its pawn shelter gives drops a target.
    let fen = "4k3/pppppppp/8/8/8/8/5PPP/6K1[q] w - - 0 1";
    for mode in MODES {
        let (m, _) = search(Variant::DarkCrazyhouse, fen, mode, 3000, 1);
        let pos = Position::from_fen(Variant::DarkCrazyhouse, fen).unwrap();
        let king_move = pos.role_at(m.from) == Some(Role::King);
        assert!(!(king_move && m.to.rank() > 0), "{mode:?}: the king walks out with {m:?}");
    }
}

#[test]
fn fixed_nodes_give_the_same_move_and_count_on_any_thread_count() {
    let cases = [
        (Variant::DarkChess, Mode::Pimc, 2000),
        (Variant::DarkCrossroads, Mode::Ismcts, 2000),
        (Variant::DarkCrazyhouse, Mode::AlphaBeta, 100_000),
        (Variant::DarkChess, Mode::InfoSet, 6000),
    ];
    for (variant, mode, budget) in cases {
        let fen = variant.start_fen();
        let (m1, r1) = search(variant, fen, mode, budget, 1);
        let (m2, r2) = search(variant, fen, mode, budget, 2);
        assert_eq!(m1, m2);
        let nodes = |r: &[SearchInfo]| r.last().and_then(|i| i.nodes);
        assert_eq!(nodes(&r1), nodes(&r2));
        // Trees count iterations exactly; alpha-beta stops each world within a clock interval
        // and one quiescence search of its quota; the information-set tree stops short of the
        // budget by less than one expansion's children.
        let tolerance = match mode {
            Mode::AlphaBeta => budget / 10,
            Mode::InfoSet => 100,
            Mode::Pimc | Mode::Ismcts => 0,
        };
        assert!(nodes(&r1).unwrap().abs_diff(budget) <= tolerance, "{mode:?}: {:?}", nodes(&r1));
        assert_eq!(r1.last().map(|i| i.pv.clone()), r2.last().map(|i| i.pv.clone()));
        let text = r1.last().and_then(|i| i.string.clone()).unwrap_or_default();
        assert!(text.contains("worlds") && text.contains("sampled"), "{text}");
    }
}

#[test]
fn plays_from_the_engine_side_only() {
    // Black to move at the start: the searcher plays Black's moves.
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let (m, _) = search(Variant::DarkChess, fen, Mode::Pimc, 500, 1);
    let pos = Position::from_fen(Variant::DarkChess, fen).unwrap();
    assert_eq!(pos.piece_at(m.from).map(|p| p.color), Some(Color::Black));
}

#[test]
fn the_next_search_starts_from_the_subtrees_of_the_last() {
    use murk::rules::{Game, Played};
    use murk::view::Observation;
    let variant = Variant::DarkChess;
    let mut game = Game::new(Position::start(variant));
    let mut info = InfoState::new(Position::start(variant), Color::White);
    // The hand evaluation: which replies the tree visits depends on the evaluation, and this
    // line is one whose reply the tree explored.
    let eval = Evaluator::Hand;
    let config =
        SearchConfig { variant, side: Color::White, seed: 3, threads: 1, hash_mib: 64, mode: Mode::Pimc, eval };
    let mut searcher = MurkSearcher::new(&config, SearchParams::default());
    let limits = Limits { nodes: Some(4000), ..Limits::default() };
    let stop = AtomicBool::new(false);
    let mut last_string = String::new();
    for ply in 0..4 {
        let mv = if ply % 2 == 0 {
            let m = searcher.search(&info, &limits, &stop, &mut |r| last_string = r.string.unwrap_or_default());
            info.send_move(m.unwrap()).unwrap()
        } else {
            // The opponent answers with its most natural reply: the first move generated.
            game.position().moves()[0]
        };
        let Ok(Played::Moved(report)) = game.play(mv) else { panic!("{mv:?}") };
        info.observe(Observation::after_ply(game.position(), &report, Color::White)).unwrap();
    }
    let _ = searcher.search(&info, &limits, &stop, &mut |r| last_string = r.string.unwrap_or_default());
    let reused: usize = last_string.split("reused ").nth(1).and_then(|s| s.split(' ').next()?.parse().ok()).unwrap();
    assert!(reused > 0, "no tree reused: {last_string}");
}

#[test]
fn a_position_repeated_inside_the_search_is_a_draw() {
    use murk::search::sim::Sim;
    let variant = Variant::DarkChess;
    let mut sim = Sim::new(Position::start(variant));
    let mut results = Vec::new();
    for text in ["g1f3", "g8f6", "f3g1", "f6g8"] {
        let m = sim.pos.find_move(Move::parse(text, variant).unwrap()).unwrap();
        results.push(sim.play(m));
    }
    assert_eq!(results, [None, None, None, Some(None)], "back at the start: a draw");
    // A capture in between makes the same squares a different position.
    let mut sim = Sim::new(Position::from_fen(variant, "4k3/8/8/8/8/8/8/R3K2R w - - 10 30").unwrap());
    for text in ["a1a2", "e8d8", "a2a1"] {
        let m = sim.pos.find_move(Move::parse(text, variant).unwrap()).unwrap();
        assert_eq!(sim.play(m), None, "{text}");
    }
}

/// The move the engine plays from a start position it knows in full (no fog in its belief yet).
fn answer(variant: Variant, fen: &str) -> String {
    search(variant, fen, Mode::Pimc, 3000, 1).0.to_uci(variant)
}

#[test]
fn a_free_piece_is_taken() {
    // The black rook on d5 stands unguarded in the queen's line.
    assert_eq!(answer(Variant::DarkChess, "4k3/8/8/3r4/8/8/3Q4/4K3 w - - 0 1"), "d2d5");
    assert_eq!(answer(Variant::DarkCrazyhouse, "4k3/8/8/3r4/8/8/3Q4/4K3[] w - - 0 1"), "d2d5");
}

#[test]
fn a_defended_pawn_is_not_taken_by_the_queen() {
    let m = answer(Variant::DarkChess, "4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1");
    assert_ne!(m, "d2d5", "the queen takes a pawn the c6 pawn guards");
}

#[test]
fn a_hanging_queen_is_not_left_hanging() {
    // The knight on d5 attacks the queen on e3, and nothing guards the queen there.
    let fen = "4k3/8/8/3n4/8/4Q3/8/4K3 w - - 0 1";
    let m = answer(Variant::DarkChess, fen);
    let mut pos = Position::from_fen(Variant::DarkChess, fen).unwrap();
    let mv = pos.find_move(Move::parse(&m, Variant::DarkChess).unwrap()).unwrap();
    pos.play_unchecked(mv);
    let queen = pos.pieces(Color::White, Role::Queen).first().expect("the queen is still there");
    assert!(!pos.is_attacked(queen, Color::Black), "{m} leaves the queen en prise");
}

#[test]
fn a_timed_search_of_one_world_on_two_threads_still_finds_the_best_move() {
    // A position the engine knows in full is one world: two threads split its root moves, and
    // the merged scores must still take the free rook, and leave the defended pawn.
    for (fen, taken) in [("4k3/8/8/3r4/8/8/3Q4/4K3 w - - 0 1", true), ("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1", false)] {
        let variant = Variant::DarkChess;
        let pos = Position::from_fen(variant, fen).unwrap();
        let info = InfoState::new(pos, Color::White);
        let config = SearchConfig {
            variant,
            side: Color::White,
            seed: 7,
            threads: 2,
            hash_mib: 64,
            mode: Mode::AlphaBeta,
            eval: engine_eval(variant),
        };
        let mut searcher = MurkSearcher::new(&config, SearchParams::default());
        let limits = Limits { movetime: Some(150), overhead_ms: 0, ..Limits::default() };
        let mut last = String::new();
        let mv = searcher
            .search(&info, &limits, &AtomicBool::new(false), &mut |r| last = r.string.unwrap_or_default())
            .expect("a move");
        assert!(last.contains("sampled 1 "), "{last}");
        assert_eq!(mv.to_uci(variant) == "d2d5", taken, "{fen}: {}", mv.to_uci(variant));
    }
}

/// The engine's information state after the true game from `fen` went through `moves` (the
/// engine plays `side` and sends its own moves; it observes every ply as the rules report it),
/// and the true position then.
fn after_moves(variant: Variant, fen: &str, side: Color, moves: &[&str]) -> (InfoState, Position) {
    use murk::rules::{Game, Played};
    use murk::view::Observation;
    let start = Position::from_fen(variant, fen).unwrap();
    let mut game = Game::new(start.clone());
    let mut info = InfoState::new(start, side);
    for text in moves {
        let wanted = Move::parse(text, variant).unwrap();
        let mv = if game.position().turn() == side { info.send_move(wanted).unwrap() } else { wanted };
        let Ok(Played::Moved(report)) = game.play(mv) else { panic!("{text} is not a move here") };
        info.observe(Observation::after_ply(game.position(), &report, side)).unwrap();
    }
    (info, game.position().clone())
}

/// The engine's move from `info` in `mode` with a node budget.
fn search_info(info: &InfoState, mode: Mode, nodes: u64) -> Move {
    let (variant, side, eval) = (info.variant(), info.side(), engine_eval(info.variant()));
    let config = SearchConfig { variant, side, seed: 5, threads: 1, hash_mib: 64, mode, eval };
    let mut searcher = MurkSearcher::new(&config, SearchParams::default());
    let limits = Limits { nodes: Some(nodes), ..Limits::default() };
    let mv = searcher.search(info, &limits, &AtomicBool::new(false), &mut |_| {}).expect("a move");
    assert!(info.legal_moves().contains(&mv), "illegal {mv:?}");
    mv
}

/// A node budget that gives each mode a real search (alpha-beta counts quiescence nodes too).
fn nodes_for(mode: Mode) -> u64 {
    match mode {
        Mode::AlphaBeta => 200_000,
        Mode::Pimc | Mode::Ismcts => 3000,
        Mode::InfoSet => 20_000,
    }
}

#[test]
fn the_king_does_not_recapture_where_an_unseen_knight_may_guard() {
    // The black knight leaves f6 for the fog (g4, which guards f2, among its squares), then the
    // queen comes out of the fog to take on f2. Rxf2 is safe; Kxf2 loses the king wherever the
    // knight went to e4 or g4.
    let variant = Variant::DarkChess;
    let fen = "4k3/p7/1q3n2/8/8/8/P4P1P/5RK1 b - - 0 1";
    let (info, truth) = after_moves(variant, fen, Color::White, &["f6g4", "a2a3", "b6f2"]);
    for square in ["e4", "g4"] {
        let sq = murk::core::Square::parse(square).unwrap();
        assert!(info.view().fog().contains(sq), "{square} must be in the fog");
    }
    assert!(info.legal_moves().iter().any(|m| m.to_uci(variant) == "g1f2"));
    for mode in MODES {
        let m = search_info(&info, mode, nodes_for(mode)).to_uci(variant);
        assert_ne!(m, "g1f2", "{mode:?}: the king recaptures into the knight (true position {})", truth.to_fen());
    }
}

#[test]
fn a_recapture_that_opens_the_kings_file_to_an_unseen_rook_is_avoided() {
    // The bishop takes on d3 from the fog; exd3 would open the e-file to the rook on e8, which
    // the engine has not seen since the start; cxd3 recaptures safely.
    let variant = Variant::DarkChess;
    let fen = "4r1k1/8/6b1/8/8/3N4/2P1P3/4K3 b - - 0 1";
    let (info, _) = after_moves(variant, fen, Color::White, &["g6d3"]);
    let e8 = murk::core::Square::parse("e8").unwrap();
    assert!(info.view().fog().contains(e8), "the rook must be unseen");
    for mode in MODES {
        let m = search_info(&info, mode, nodes_for(mode)).to_uci(variant);
        assert_ne!(m, "e2d3", "{mode:?}: the recapture opens the king's file");
    }
}

#[test]
fn the_king_is_not_left_where_a_knight_from_the_hand_can_take_it_unseen() {
    // Black holds a knight. On g1 every square a dropped knight would attack the king from is
    // seen; Kf1 leaves d2 in the fog and f2-f4 leaves f3 in it. The engine keeps its king where
    // no knight can be dropped unseen next to it.
    let variant = Variant::DarkCrazyhouse;
    let fen = "4k3/8/8/8/8/8/5PPP/4R1K1[n] w - - 0 1";
    let pos = Position::from_fen(variant, fen).unwrap();
    assert!(!murk::eval::blind_drop_squares(&pos, Color::White).any(), "g1 starts safe");
    let blind_after = |m: Move| {
        let mut after = pos.clone();
        after.play_unchecked(m);
        murk::eval::blind_drop_squares(&after, Color::White).any()
    };
    let unsafe_moves: Vec<String> =
        pos.moves().iter().filter(|&&m| blind_after(m)).map(|m| m.to_uci(variant)).collect();
    assert!(
        unsafe_moves.contains(&"g1f1".to_string()) && unsafe_moves.contains(&"f2f4".to_string()),
        "{unsafe_moves:?}"
    );
    let info = InfoState::new(pos.clone(), Color::White);
    for mode in MODES {
        let m = search_info(&info, mode, nodes_for(mode));
        assert!(!blind_after(m), "{mode:?}: {} lets a knight be dropped unseen next to the king", m.to_uci(variant));
    }
}

#[test]
fn a_king_race_inferred_from_a_capture_is_stopped() {
    // Red's king, hidden behind the pawn it blocks, takes the pawn on d2: the engine never sees
    // it, but only the king could have made that capture. Next it steps onto rank 1 and arms a
    // Try; White stops the race only by covering rank 1 now (Va1), so that any king arriving
    // there is taken.
    let variant = Variant::DarkCrossroads;
    let fen = "5o/6/6/V4K/6/3k2/3P2/6 b - - 0 1";
    let (info, truth) = after_moves(variant, fen, Color::White, &["d3d2"]);
    let d2 = murk::core::Square::parse("d2").unwrap();
    assert!(info.view().fog().contains(d2), "the racing king must be unseen");
    // The race is stopped if every king step onto rank 1 can be answered by taking the king.
    let race_stopped = |m: Move| {
        let mut pos = truth.clone();
        pos.play_unchecked(m);
        pos.moves().iter().filter(|r| pos.role_at(r.from) == Some(Role::King) && r.to.rank() == 0).all(|&r| {
            let mut after = pos.clone();
            after.play_unchecked(r);
            let king = after.king(Color::Black).unwrap();
            after.moves().iter().any(|a| a.to == king)
        })
    };
    let stoppers: Vec<String> =
        info.legal_moves().iter().filter(|&&m| race_stopped(m)).map(|m| m.to_uci(variant)).collect();
    assert!(!stoppers.is_empty() && stoppers.len() < info.legal_moves().len(), "{stoppers:?}");
    for mode in MODES {
        let m = search_info(&info, mode, nodes_for(mode));
        assert!(race_stopped(m), "{mode:?}: {} lets the king reach rank 1 (stoppers {stoppers:?})", m.to_uci(variant));
    }
}

/// `murk bench` with these arguments: its output, which must end with the two summary lines.
fn bench(args: &[&str]) -> String {
    let out =
        std::process::Command::new(env!("CARGO_BIN_EXE_murk")).arg("bench").args(args).output().expect("run murk");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[lines.len() - 2].starts_with("Nodes searched: ") && lines[lines.len() - 1].starts_with("Nodes/second: ")
    );
    assert_eq!(lines.iter().filter(|l| l.starts_with("position ")).count(), 6, "{text}");
    text
}

#[test]
fn bench_signature_is_the_same_on_two_threads_and_a_timed_bench_runs_for_its_time() {
    let signature = |text: &str| text.lines().filter(|l| !l.starts_with("Nodes/second")).collect::<Vec<_>>().join("\n");
    let one = bench(&["--nodes", "30000", "--threads", "1"]);
    let two = bench(&["--nodes", "30000", "--threads", "2"]);
    assert_eq!(signature(&one), signature(&two));
    let started = std::time::Instant::now();
    bench(&["--movetime", "50", "--threads", "2"]);
    // Six positions of 50 ms each, less the few milliseconds each search keeps for its reply.
    assert!(started.elapsed() >= std::time::Duration::from_millis(240), "{:?}", started.elapsed());
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_murk"))
        .args(["bench", "--nodes", "10", "--movetime", "10"])
        .output()
        .expect("run murk");
    assert!(!refused.status.success(), "--nodes and --movetime together are refused");
}

#[test]
fn scaling_searches_recorded_turns_at_each_time_and_compares_the_moves() {
    let (dir, json) = recorded_random_greedy_games("scaling", 2, 5);
    let json_arg = json.to_str().expect("path");
    let out = murk(&[
        "scaling",
        "--records",
        json_arg,
        "--variant",
        "dark-chess",
        "--times",
        "80,20",
        "--positions",
        "4",
        "--every",
        "3",
        "--eval",
        "hand",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    let (short, long) = (lines[0], lines[1]);
    assert_eq!((field(short, "movetime"), field(long, "movetime")), (20.0, 80.0), "shortest first: {out}");
    for line in &lines {
        assert_eq!(field(line, "positions"), 4.0, "{out}");
        assert!(field(line, "worlds") >= 1.0 && field(line, "depth_mean") >= field(line, "depth_min"), "{out}");
    }
    assert_eq!(field(long, "same_as_longest"), 1.0, "{out}");
    assert_eq!(field(long, "changed"), 1.0 - field(short, "same_as_longest"), "two times: {out}");
    assert!(field(long, "knodes") > field(short, "knodes"), "four times the time searches more: {out}");
    let _ = std::fs::remove_dir_all(&dir);
}
