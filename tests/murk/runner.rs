//! The match runner (`murk match`, `murk replay`): forfeits of every kind recorded as such with
//! the match going on (crash, hang, illegal move, garbage, repeated bounce), normal matches with
//! their closing lines, PGN and JSON records, SPRT, replay, and the leak audit (every record
//! written here is audited; `local` audits many in-process games).

pub mod fake;
mod local;
mod mistboard;
mod replay_html;
mod tournament;
mod units;

use fake::{openings_file, received, run_match, Scratch, MURK, ZH_KNIGHTS};
use murk::core::Color;

#[test]
fn crash_mid_game_loses_that_game_and_the_engine_is_restarted() {
    let s = Scratch::new("crash");
    let run = run_match(
        &s,
        &[
            "--variant",
            "dark-chess",
            "--engine",
            &s.fake("crash 2 white name=crashy"),
            "--engine",
            &s.fake("none"),
            "--games",
            "4",
            "--movetime",
            "200",
            "--seed",
            "1",
        ],
    );
    for n in [1, 3] {
        let g = run.game(n);
        assert_eq!((g.result.as_str(), g.termination.as_str()), ("0-1", "crash"), "game {n}: {}", g.detail);
        assert_eq!(g.termination_kind, "forfeit");
        assert_eq!(g.forfeited_by.as_deref(), Some("white"));
        assert_eq!(g.moves.len(), 2, "crashed at its second move");
    }
    for n in [2, 4] {
        let g = run.game(n);
        assert_eq!((g.result.as_str(), g.termination.as_str()), ("1/2-1/2", "repetition"), "game {n}");
        assert_eq!(g.termination_kind, "rule");
        // The crashed engine was started afresh for this game: its handshake is in the record.
        assert!(received(&g.setup.black).contains(&"uci"), "game {n}: no restart of the crashed engine");
        assert_eq!(g.moves, ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"]);
    }
    assert_eq!(run.line("Score of"), "Score of crashy vs fake-none: 0 - 2 - 2  [0.250] 4");
    assert!(run.line("Elo difference: ").starts_with("Elo difference: -190.85 +/- "), "{}", run.stdout);
    assert!(run.pgn.contains("[Termination \"crash\"]") && run.pgn.contains("[Termination \"repetition\"]"));
}

#[test]
fn an_engine_hanging_past_its_clock_loses_on_time_and_is_restarted() {
    let s = Scratch::new("hang");
    let run = run_match(
        &s,
        &[
            "--variant",
            "dark-crossroads",
            "--engine",
            &s.fake("none"),
            "--engine",
            &s.fake("hang 2 black name=sleepy"),
            "--games",
            "2",
            "--tc",
            "0.3+0.1",
            "--time-margin",
            "50",
        ],
    );
    let g = run.game(1);
    assert_eq!((g.result.as_str(), g.termination.as_str()), ("1-0", "time-forfeit"), "{}", g.detail);
    assert_eq!(g.forfeited_by.as_deref(), Some("black"));
    // Runner-side clocks with increment: the first go carries the base time, later ones less + inc.
    let white_in = received(&g.setup.white);
    assert!(white_in.contains(&"position startpos") && white_in.contains(&"side white"), "{white_in:?}");
    let go = received(&g.plies[0].lines.white);
    assert_eq!(go[0], "go wtime 300 btime 300 winc 100 binc 100");
    let left = g.plies[0].clock_ms.expect("clocks");
    assert!(left[0] > 300 && left[0] <= 400 && left[1] == 300, "{left:?}");
    let g2 = run.game(2);
    assert_eq!(g2.termination, "repetition", "restarted engine plays game 2: {}", g2.detail);
    assert!(run.line("Score of").starts_with("Score of fake-none vs sleepy: 1 - 0 - 1  [0.750] 2"));
}

#[test]
fn an_engine_late_on_its_move_is_stopped_before_gameover_and_keeps_its_process() {
    let s = Scratch::new("late");
    let run = run_match(
        &s,
        &[
            "--variant",
            "dark-chess",
            "--engine",
            &s.fake("late 2 white name=slow"),
            "--engine",
            &s.fake("none"),
            "--games",
            "2",
            "--movetime",
            "100",
            "--time-margin",
            "20",
        ],
    );
    let g = run.game(1);
    assert_eq!((g.result.as_str(), g.termination.as_str()), ("0-1", "time-forfeit"), "{}", g.detail);
    let end = received(&g.end.white);
    assert_eq!(end, ["go movetime 100", "stop", "gameover 0-1 time-forfeit"], "the late go is stopped, then ended");
    assert!(
        g.end.white.iter().any(|m| m.line.starts_with("bestmove")),
        "the stale bestmove is read before gameover: {:?}",
        g.end.white
    );
    let g2 = run.game(2);
    assert!(!received(&g2.setup.black).contains(&"uci"), "no restart: the engine answered stop");
    for (n, g) in [(1, g), (2, g2)] {
        let start: Vec<&str> = received(&g.setup.white).into_iter().filter(|l| l.ends_with(" start")).collect();
        assert_eq!(start.len(), 1, "game {n}: one start view for White: {:?}", g.setup.white);
        assert!(start[0].starts_with("observe ") && start[0].contains("/RNBQKBNR "), "game {n}: {start:?}");
    }
}

#[test]
fn illegal_moves_garbage_and_drops_onto_known_pieces_are_forfeits() {
    let cases = [
        ("illegal 1 white", "dark-chess", None, "illegal-move", "e1e5"),
        ("garbage 3 white", "dark-chess", None, "malformed-reply", "hello"),
        ("drop-known 1 white", "dark-crazyhouse", Some(ZH_KNIGHTS), "illegal-move", "e2"),
    ];
    for (fake, variant, fen, termination, detail) in cases {
        let s = Scratch::new("illegal");
        let mut args =
            vec!["--variant".to_string(), variant.into(), "--engine".into(), s.fake(fake), "--engine".into()];
        args.extend([s.fake("none"), "--games".into(), "2".into(), "--movetime".into(), "100".into()]);
        if let Some(fen) = fen {
            args.extend(["--openings".into(), openings_file(&s, &[fen]).display().to_string()]);
        }
        let run = run_match(&s, &args.iter().map(String::as_str).collect::<Vec<_>>());
        let g = run.game(1);
        assert_eq!((g.result.as_str(), g.termination.as_str()), ("0-1", termination), "{fake}: {}", g.detail);
        assert!(g.detail.contains(detail), "{fake}: {}", g.detail);
        assert!(received(&g.end.black).contains(&format!("gameover 0-1 {termination}").as_str()));
        assert_eq!(run.game(2).termination, "repetition", "{fake}: the match goes on");
    }
}

#[test]
fn a_repeated_bounce_is_a_forfeit_and_a_single_bounce_is_answered() {
    let s = Scratch::new("bounce");
    let openings = openings_file(&s, &["# knights in hand", ZH_KNIGHTS]);
    let openings = openings.to_str().expect("path");
    let common = ["--variant", "dark-crazyhouse", "--openings", openings, "--games", "2", "--tc", "5+0.1"];
    let run = run_match(
        &s,
        &[&common[..], &["--engine", &s.fake("repeat-bounce 1 white"), "--engine", &s.fake("none")]].concat(),
    );
    let g = run.game(1);
    assert_eq!((g.result.as_str(), g.termination.as_str()), ("0-1", "repeated-bounce"), "{}", g.detail);
    assert!(g.moves.is_empty());
    let white_in = received(&g.end.white);
    assert_eq!(white_in[..3], [white_in[0], "bounce a8", white_in[0]], "go again with the clock as it was");
    assert!(white_in[0].starts_with("go wtime 5000 btime 5000"));
    assert!(!received(&g.end.black).iter().any(|l| l.starts_with("bounce")), "the opponent learns nothing");
    assert!(run.pgn.contains(&format!("[FEN \"{ZH_KNIGHTS}\"]")) && run.pgn.contains("[SetUp \"1\"]"));
    assert!(run.pgn.contains("[Variant \"dark-crazyhouse\"]") && run.pgn.contains("[Termination \"repeated-bounce\"]"));

    let run = run_match(
        &s,
        &[&common[..], &["--engine", &s.fake("bounce-once 1 any"), "--engine", &s.fake("none")]].concat(),
    );
    let (g1, g2) = (run.game(1), run.game(2));
    assert_eq!(g1.plies[0].bounces, ["N@a8"]);
    assert_eq!(g2.plies[1].bounces, ["N@a1"]);
    assert!(received(&g1.plies[0].lines.white).contains(&"bounce a8"));
    assert_eq!((g1.termination.as_str(), g2.termination.as_str()), ("repetition", "repetition"));
    assert!(run.pgn.contains("1. {bounced: N@a8} Nf3 Nf6"), "{}", run.pgn);
    assert!(run.pgn.contains("1. Nf3 {bounced: N@a1} 1... Nf6"), "{}", run.pgn);
}

#[test]
fn a_normal_match_runs_games_in_pairs_concurrently_and_reports_like_cutechess() {
    let s = Scratch::new("normal");
    let run = run_match(
        &s,
        &[
            "--variant",
            "dark-chess",
            "--engine",
            &s.fake("none name=first option.Hash=16"),
            "--engine",
            &s.fake("none name=second"),
            "--games",
            "6",
            "--concurrency",
            "3",
            "--max-plies",
            "6",
            "--seed",
            "42",
        ],
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "Score of first vs second: 0 - 0 - 6  [0.500] 6");
    assert_eq!(lines[1], "Elo difference: 0.00 +/- 0.00");
    assert_eq!(lines[2], "Ptnml(0-2): [0, 0, 3, 0, 0], Elo (pentanomial): 0.00 +/- 0.00");
    let mut games: Vec<usize> = run.records.iter().map(|r| r.game).collect();
    games.sort();
    assert_eq!(games, [1, 2, 3, 4, 5, 6]);
    assert_eq!(run.pgn.matches("[Event ").count(), 6);
    for r in &run.records {
        assert_eq!(
            (r.termination.as_str(), r.termination_kind.as_str(), r.moves.len()),
            ("adjudication", "adjudication", 6)
        );
        let (white, black) = if r.game % 2 == 1 { ("first", "second") } else { ("second", "first") };
        assert_eq!((r.white.as_str(), r.black.as_str(), r.pair), (white, black, r.game.div_ceil(2)));
        assert!(r.seeds[0].is_some() && r.seeds[1].is_some());
        assert!(received(&r.setup.white).iter().any(|l| l.starts_with("setoption name Seed value ")));
        assert!(r.plies.iter().all(|p| p.think_ms < 1000));
    }
    // A pair shares its seeds, colors swapped; pairs differ.
    let (g1, g2, g3) = (run.game(1), run.game(2), run.game(3));
    assert_eq!(g1.seeds, [g2.seeds[1], g2.seeds[0]]);
    assert_ne!(g1.seeds, g3.seeds);
    assert!(run.stderr.contains("Finished game 6"), "{}", run.stderr);
    // The option setting reached the engine at its handshake.
    let first_in = received(&g1.setup.white);
    assert!(first_in.contains(&"setoption name Hash value 16"), "{first_in:?}");
    assert!(first_in.contains(&"setoption name UCI_Variant value dark-chess"));
}

#[test]
fn sprt_stops_the_match_once_a_bound_is_crossed() {
    let s = Scratch::new("sprt");
    let run = run_match(
        &s,
        &[
            "--variant",
            "dark-chess",
            "--engine",
            &s.fake("crash 1 any name=broken"),
            "--engine",
            &s.fake("none"),
            "--games",
            "400",
            "--movetime",
            "100",
            "--sprt",
            "elo0=0 elo1=20 alpha=0.05 beta=0.05",
        ],
    );
    let sprt = run.line("SPRT: ");
    assert!(sprt.ends_with(" - H0 was accepted") && sprt.contains("lbound -2.94, ubound 2.94"), "{sprt}");
    let n = run.records.len();
    assert!((2..400).contains(&n), "stopped after {n} games");
    assert!(run.records.iter().all(|r| r.termination == "crash"));
}

#[test]
fn builtin_players_play_a_match_through_the_murk_binary() {
    let s = Scratch::new("builtin");
    let args = [
        "--variant",
        "dark-crazyhouse",
        "--engine",
        "builtin:greedy",
        "--engine",
        "builtin:random",
        "--games",
        "6",
        "--concurrency",
        "2",
        "--movetime",
        "20",
        "--max-plies",
        "200",
        "--seed",
        "9",
    ];
    let run = run_match(&s, &args);
    assert!(run.line("Score of greedy vs random: ").ends_with("] 6"), "{}", run.stdout);
    for r in &run.records {
        assert_ne!(r.termination_kind, "forfeit", "game {}: {}", r.game, r.detail);
        assert!(received(&r.setup.white).contains(&"ucinewgame"));
        // The engines accepted every setting, the per-game Seed included.
        let refused = r.lines_of(Color::White).chain(r.lines_of(Color::Black)).find(|m| m.line.contains("error"));
        assert!(refused.is_none(), "game {}: {refused:?}", r.game);
    }
    // Every random choice follows from --seed: the same match again gives the same games.
    let again = run_match(&s, &args);
    for r in &run.records {
        assert_eq!(r.moves, again.game(r.game).moves, "game {}", r.game);
    }
}

#[test]
fn each_engine_may_have_its_own_time_per_move() {
    let s = Scratch::new("per-engine-time");
    let args = [
        "--variant",
        "dark-chess",
        "--engine",
        "builtin:greedy st=0.03",
        "--engine",
        "builtin:random",
        "--games",
        "2",
        "--movetime",
        "20",
        "--max-plies",
        "40",
        "--seed",
        "4",
    ];
    let run = run_match(&s, &args);
    for r in &run.records {
        let greedy = if r.white == "greedy" { Color::White } else { Color::Black };
        let gos = |side: Color| -> Vec<String> {
            let lines: Vec<_> = r.lines_of(side).cloned().collect();
            received(&lines).into_iter().filter(|l| l.starts_with("go ")).map(str::to_string).collect()
        };
        let (own, other) = (gos(greedy), gos(greedy.opponent()));
        assert!(!own.is_empty() && own.iter().all(|g| g == "go movetime 30"), "game {}: {own:?}", r.game);
        assert!(!other.is_empty() && other.iter().all(|g| g == "go movetime 20"), "game {}: {other:?}", r.game);
    }
    assert!(murk::runner::EngineSpec::parse("builtin:murk st=x", std::path::Path::new(MURK)).is_err());
}

#[test]
fn replay_prints_each_ply_as_boards_of_the_chosen_view() {
    let s = Scratch::new("replay");
    let openings = openings_file(&s, &[ZH_KNIGHTS]);
    let args = ["--variant", "dark-crazyhouse", "--games", "2", "--openings", openings.to_str().expect("path")];
    let engines = ["--engine", &s.fake("bounce-once 1 any"), "--engine", &s.fake("none")].map(String::from);
    let run = run_match(&s, &[&args[..], &engines.iter().map(String::as_str).collect::<Vec<_>>()].concat());
    assert_eq!(run.records.len(), 2);
    let replay = |side: &str| {
        let out = std::process::Command::new(MURK)
            .args(["replay", s.file("games.json").to_str().expect("path"), "--side", side, "--game", "2"])
            .output()
            .expect("run murk replay");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let truth = replay("truth");
    assert!(truth.contains("Ply 2: black g8f6 (bounced first: N@a1)"), "{truth}");
    assert!(truth.contains("8 | r n b q k b . r |"), "{truth}");
    assert!(truth.contains("white hand: N") && truth.contains("Result: 1/2-1/2 (repetition"), "{truth}");
    let white = replay("white");
    assert_eq!(white.matches("\nPly ").count(), 8);
    assert!(white.contains("  observe ") && white.contains("8 | ? ? ? ? ? ? ? ? |"), "{white}");
    assert!(!white.contains(" r n b q k b"), "White's view shows Black's back rank: {white}");
}
