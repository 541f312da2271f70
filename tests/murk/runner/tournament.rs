//! `murk tournament`: the rating solver against known answers, the crosstable and conduct
//! tallies, the schedule, and whole tournaments through the binary (fake engines for exact
//! results, built-ins for a resume after `kill -9`), bad arguments, and engines' stderr logs.

use super::fake::{Scratch, MURK};
use murk::runner::ratings::{solve, Anchor, RatingError, Results};
use murk::runner::record::{read_records, PlyRecord, SideLogs};
use murk::runner::standings::Tally;
use murk::runner::tournament::{schedule, Format};
use murk::runner::GameRecord;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn results(n: usize, games: &[(usize, usize, f64, f64)]) -> Results {
    let mut r = Results::new(n);
    for &(a, b, points_a, count) in games {
        r.points[a][b] += points_a;
        r.points[b][a] += count - points_a;
        r.games[a][b] += count;
        r.games[b][a] += count;
    }
    r
}

#[test]
fn two_engines_at_75_percent_are_191_elo_apart() {
    let r = results(2, &[(0, 1, 30.0, 40.0)]);
    let mean = solve(&r, Anchor::Mean).expect("ratings");
    let expected = 400.0 * 3f64.log10();
    assert!((mean.elo[0] - mean.elo[1] - expected).abs() < 1e-6, "{mean:?}");
    assert!((mean.elo[0] + mean.elo[1]).abs() < 1e-9, "mean at 0: {mean:?}");
    assert!(!mean.regularized);
    let anchored = solve(&r, Anchor::Engine(1)).expect("ratings");
    assert!((anchored.elo[0] - expected).abs() < 1e-6 && anchored.elo[1] == 0.0, "{anchored:?}");
    assert_eq!(anchored.margin[1], 0.0);
    // The difference's interval: 1.96 / sqrt(n p (1 - p)) nats.
    let nats = 1.959_963_984_540_054 / (40.0f64 * 0.75 * 0.25).sqrt();
    assert!((anchored.margin[0] - nats * 400.0 / std::f64::consts::LN_10).abs() < 1e-6, "{anchored:?}");
    // With the mean anchored each engine carries half the difference's deviation.
    assert!((mean.margin[0] - anchored.margin[0] / 2.0).abs() < 1e-6, "{mean:?}");
}

#[test]
fn three_consistent_engines_get_their_exact_differences() {
    // A-B and B-C at 75% (190.85 Elo each), A-C at 90%: exactly the model's 381.7.
    let r = results(3, &[(0, 1, 30.0, 40.0), (1, 2, 30.0, 40.0), (0, 2, 36.0, 40.0)]);
    let ratings = solve(&r, Anchor::Mean).expect("ratings");
    let step = 400.0 * 3f64.log10();
    assert!((ratings.elo[0] - step).abs() < 1e-6, "{ratings:?}");
    assert!(ratings.elo[1].abs() < 1e-6, "{ratings:?}");
    assert!((ratings.elo[2] + step).abs() < 1e-6, "{ratings:?}");
    // An inconsistent result moves the ratings: the solver is not just adding pairwise Elo.
    let skewed = solve(&results(3, &[(0, 1, 30.0, 40.0), (1, 2, 30.0, 40.0), (0, 2, 20.0, 40.0)]), Anchor::Mean)
        .expect("ratings");
    assert!(skewed.elo[0] - skewed.elo[2] < step, "{skewed:?}");
}

#[test]
fn intervals_shrink_as_games_grow() {
    let few = solve(&results(3, &[(0, 1, 6.0, 10.0), (1, 2, 5.5, 10.0), (0, 2, 7.0, 10.0)]), Anchor::Mean);
    let many = solve(&results(3, &[(0, 1, 24.0, 40.0), (1, 2, 22.0, 40.0), (0, 2, 28.0, 40.0)]), Anchor::Mean);
    let (few, many) = (few.expect("ratings"), many.expect("ratings"));
    for i in 0..3 {
        assert!((few.elo[i] - many.elo[i]).abs() < 1e-6, "same shares, same ratings");
        let ratio = many.margin[i] / few.margin[i];
        assert!((ratio - 0.5).abs() < 1e-6, "four times the games halve the interval: {ratio}");
    }
}

#[test]
fn an_engine_that_wins_everything_gets_a_finite_regularized_rating() {
    let r = results(3, &[(0, 1, 4.0, 4.0), (0, 2, 4.0, 4.0), (1, 2, 2.0, 4.0)]);
    let ratings = solve(&r, Anchor::Mean).expect("ratings");
    assert!(ratings.regularized);
    assert!(ratings.elo.iter().chain(&ratings.margin).all(|v| v.is_finite()), "{ratings:?}");
    assert!(ratings.elo[0] > ratings.elo[1] && ratings.elo[0] > ratings.elo[2], "{ratings:?}");
    // Engines never linked by games cannot be put on one scale.
    assert_eq!(solve(&results(3, &[(0, 1, 1.0, 2.0)]), Anchor::Mean), Err(RatingError::NotConnected));
    assert_eq!(solve(&r, Anchor::Engine(3)), Err(RatingError::BadAnchor));
}

/// A finished game record with `plies` plies of `think_ms` each (White moving first).
fn record(
    game: usize,
    white: &str,
    black: &str,
    result: &str,
    forfeit: Option<(&str, &str)>,
    think: &[u64],
) -> GameRecord {
    let plies = think
        .iter()
        .enumerate()
        .map(|(i, &think_ms)| PlyRecord {
            ply: i + 1,
            side: if i % 2 == 0 { "white" } else { "black" }.to_string(),
            mv: "e2e4".to_string(),
            bounces: Vec::new(),
            think_ms,
            clock_ms: None,
            lines: SideLogs::default(),
        })
        .collect();
    GameRecord {
        game,
        pair: game.div_ceil(2),
        variant: "dark-chess".to_string(),
        white: white.to_string(),
        black: black.to_string(),
        start_fen: String::new(),
        time_control: "movetime 50".to_string(),
        wire: Default::default(),
        seeds: [None, None],
        result: result.to_string(),
        termination: forfeit.map_or("king-captured", |f| f.1).to_string(),
        termination_kind: if forfeit.is_some() { "forfeit" } else { "rule" }.to_string(),
        forfeited_by: forfeit.map(|f| f.0.to_string()),
        detail: String::new(),
        moves: Vec::new(),
        setup: SideLogs::default(),
        plies,
        end: SideLogs::default(),
    }
}

#[test]
fn the_crosstable_and_conduct_count_each_game_for_the_right_engines() {
    let names = ["a", "b", "c"].map(String::from);
    let mut tally = Tally::new(&names);
    tally.add([0, 1], &record(1, "a", "b", "1-0", None, &[10, 20, 30]));
    tally.add([1, 0], &record(2, "b", "a", "1/2-1/2", None, &[5, 50]));
    tally.add([2, 0], &record(3, "c", "a", "1-0", Some(("black", "time-forfeit")), &[1, 700]));
    tally.add([1, 2], &record(4, "b", "c", "0-1", Some(("white", "illegal-move")), &[]));
    tally.add([2, 1], &record(5, "c", "b", "0-1", Some(("white", "crash")), &[]));
    let s = tally.standings(None);
    let row = |name: &str| s.engines.iter().position(|e| e.name == name).expect("engine");
    let (a, b, c) = (row("a"), row("b"), row("c"));
    assert_eq!(s.crosstable[a][b], [1.5, 2.0]);
    assert_eq!(s.crosstable[b][a], [0.5, 2.0]);
    assert_eq!(s.crosstable[c][a], [1.0, 1.0]);
    assert_eq!(s.crosstable[b][c], [1.0, 2.0]);
    assert_eq!(s.crosstable[a][c], [0.0, 1.0]);
    let e = &s.engines;
    assert_eq!((e[a].games, e[a].points, e[b].games, e[c].games), (3, 1.5, 4, 3));
    assert!((e[a].draw_pct - 100.0 / 3.0).abs() < 1e-9 && e[c].draw_pct == 0.0);
    assert_eq!((e[a].conduct.moves, e[a].conduct.think_total_ms, e[a].conduct.think_max_ms), (4, 790, 700));
    assert_eq!((e[b].conduct.moves, e[b].conduct.think_max_ms), (2, 20));
    assert_eq!((e[a].conduct.time_forfeits, e[b].conduct.illegal, e[c].conduct.crashes), (1, 1, 1));
    assert!(s.note.is_none(), "{:?}", s.note);
    let text = s.table_text();
    assert!(text.contains("1.5/2") && text.contains("0.5/2"), "{text}");
    assert!(s.conduct_text().contains("700ms"), "{}", s.conduct_text());
    // An engine that has played nobody yet leaves the ratings out, and says why.
    let early = Tally::new(&names);
    assert!(early.standings(Some(1)).note.is_some_and(|n| n.contains("do not link")));
}

#[test]
fn every_pairing_plays_its_games_with_colors_balanced() {
    for (format, pairs) in [(Format::RoundRobin, 6), (Format::Gauntlet, 3)] {
        let sched = schedule(format, 4, 3, 4);
        assert_eq!(sched.len(), pairs * 3 * 4, "{format:?}");
        let mut white = std::collections::HashMap::<[usize; 2], usize>::new();
        for i in 0..sched.len() {
            let [w, b] = sched.players(i);
            assert_ne!(w, b);
            if format == Format::Gauntlet {
                assert!(w == 0 || b == 0, "gauntlet game {i}: {w} vs {b}");
            }
            *white.entry([w, b]).or_default() += 1;
            if i % 2 == 1 {
                assert_eq!(sched.players(i - 1), [b, w], "a pair swaps colors");
            }
        }
        assert_eq!(white.len(), pairs * 2, "{format:?}: {white:?}");
        assert!(white.values().all(|&n| n == 6), "{format:?}: {white:?}");
    }
}

/// Runs `murk tournament` with `args`.
fn tournament(args: &[&str]) -> Output {
    Command::new(MURK).arg("tournament").args(args).arg("--no-progress").output().expect("run murk tournament")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_round_robin_of_fake_engines_plays_every_pairing_in_both_colors_and_logs_stderr() {
    let s = Scratch::new("tour-fakes");
    let (json, logs) = (s.file("t.json"), s.file("logs"));
    let own_log = s.file("third.err");
    let engines = [
        s.fake("none name=one"),
        s.fake("none name=two"),
        s.fake(&format!("none name=three stderr={}", own_log.display())),
    ];
    let mut args = vec!["--variant", "dark-chess", "--rounds", "2", "--games-per-pair", "2", "--concurrency", "2"];
    for e in &engines {
        args.extend(["--engine", e.as_str()]);
    }
    args.extend(["--seed", "5", "--json", json.to_str().expect("path"), "--engine-log", logs.to_str().expect("path")]);
    let out = tournament(&args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let records = read_records(&json).expect("records");
    let mut games: Vec<usize> = records.iter().map(|r| r.game).collect();
    games.sort();
    assert_eq!(games, (1..=12).collect::<Vec<_>>());
    for a in ["one", "two", "three"] {
        for b in ["one", "two", "three"].into_iter().filter(|&b| b != a) {
            let n = records.iter().filter(|r| r.white == a && r.black == b).count();
            assert_eq!(n, 2, "{a} as White against {b}");
        }
    }
    // The fakes draw every game by repetition: all equal, and so are their ratings.
    assert!(records.iter().all(|r| r.result == "1/2-1/2"));
    assert!(stdout.contains("2/4") && stdout.matches(" +0.0 ").count() == 3, "{stdout}");
    // Each engine's stderr is kept: in DIR/<name>.log, or in the file its spec names.
    for name in ["one", "two"] {
        let log = std::fs::read_to_string(logs.join(format!("{name}.log"))).expect("engine log");
        assert!(log.contains("fake-none started"), "{name}: {log:?}");
    }
    assert!(std::fs::read_to_string(&own_log).expect("own log").contains("fake-none started"));
    assert!(!logs.join("three.log").exists());
}

#[test]
fn match_keeps_engine_stderr_in_the_log_directory() {
    let s = Scratch::new("match-log");
    let logs = s.file("logs");
    let out = Command::new(MURK)
        .args(["match", "--variant", "dark-chess", "--games", "2", "--no-progress"])
        .args(["--engine", &s.fake("none"), "--engine", &s.fake("illegal 1 any")])
        .arg("--engine-log")
        .arg(&logs)
        .output()
        .expect("run murk match");
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Labels come from the program's file name, made unique.
    for (file, mode) in [("fake.log", "none"), ("fake-2.log", "illegal")] {
        let log = std::fs::read_to_string(logs.join(file)).expect("engine log");
        assert!(log.contains(&format!("fake-{mode} started")), "{file}: {log:?}");
    }
}

#[test]
fn bad_arguments_are_refused_before_any_game() {
    let s = Scratch::new("tour-bad");
    let json = s.file("t.json");
    let json_arg = json.to_str().expect("path");
    let fake = s.fake("none");
    let zh_only = s.fake("zh-only");
    let cases: [(Vec<&str>, &str); 7] = [
        (vec!["--engine", &fake], "at least two --engine"),
        (vec!["--engine", &fake, "--engine", "/nonexistent/engine"], "cannot start engine 2"),
        (
            vec!["--engine", &zh_only, "--engine", &fake],
            "does not play dark-chess: its UCI_Variant option offers only dark-crazyhouse",
        ),
        (vec!["--engine", &fake, "--engine", &fake, "--format", "swiss"], "invalid value 'swiss'"),
        (vec!["--engine", &fake, "--engine", &fake, "--games-per-pair", "3"], "positive even number"),
        (vec!["--engine", &fake, "--engine", &fake, "--resume"], "--resume needs the --seed"),
        (vec!["--engine", &fake, "--engine", &fake, "--anchor", "nobody"], "--anchor nobody is none of the engines"),
    ];
    for (args, message) in cases {
        let out = tournament(&[&["--variant", "dark-chess", "--json", json_arg][..], &args].concat());
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(std::fs::read_to_string(&json).unwrap_or_default().is_empty(), "{args:?} played a game");
    }
}

/// The crosstable and ratings part of a tournament's stdout (the conduct part has times).
fn table(stdout: &str) -> String {
    stdout.split("Engines (from the game records)").next().unwrap_or_default().to_string()
}

#[test]
fn a_tournament_killed_mid_run_and_resumed_gives_the_uninterrupted_table() {
    let s = Scratch::new("tour-resume");
    let run = |json: &std::path::Path, extra: &[&str]| {
        let mut cmd = Command::new(MURK);
        cmd.args(["tournament", "--variant", "dark-crazyhouse", "--no-progress", "--seed", "77"])
            .args(["--engine", "builtin:random", "--engine", "builtin:greedy", "--engine", "builtin:murk"])
            .args(["--rounds", "2", "--games-per-pair", "2", "--nodes", "3000", "--max-plies", "60"])
            .arg("--json")
            .arg(json)
            .args(extra);
        cmd
    };
    let whole = s.file("whole.json");
    let out = run(&whole, &[]).output().expect("run");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let expected = table(&text(&out.stdout));

    let cut = s.file("cut.json");
    let mut child =
        run(&cut, &[]).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().expect("spawn");
    let start = Instant::now();
    while read_records(&cut).map_or(0, |r| r.len()) < 3 && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("kill -9");
    child.wait().expect("wait");
    let before = read_records(&cut).expect("records").len();
    assert!((3..12).contains(&before), "killed after {before} of 12 games");
    // A record cut short by the kill is dropped on resume.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&cut)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"{\"game\": 1"))
        .expect("append");

    let out = run(&cut, &["--resume"]).output().expect("resume");
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("Resuming: {before} of 12 games already played")), "{stderr}");
    assert_eq!(table(&text(&out.stdout)), expected);
    let records = read_records(&cut).expect("records after resume");
    let mut games: Vec<usize> = records.iter().map(|r| r.game).collect();
    games.sort();
    assert_eq!(games, (1..=12).collect::<Vec<_>>(), "each game exactly once");
    // Every game is the one the uninterrupted run played.
    let reference = read_records(&whole).expect("records");
    for r in &records {
        let twin = reference.iter().find(|w| w.game == r.game).expect("same game");
        assert_eq!((&r.white, &r.black, &r.moves), (&twin.white, &twin.black, &twin.moves), "game {}", r.game);
    }
    // Without --resume a record file that holds games is refused: appending would mix two runs.
    let refused = run(&cut, &[]).output().expect("rerun");
    assert!(!refused.status.success() && text(&refused.stderr).contains("pass --resume"), "{}", text(&refused.stderr));
    // Resuming a finished tournament plays nothing and gives the same table again.
    let again = run(&cut, &["--resume"]).output().expect("resume again");
    assert_eq!(table(&text(&again.stdout)), expected);
    assert_eq!(read_records(&cut).expect("records").len(), 12);
}
