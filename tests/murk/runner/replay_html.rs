//! `murk replay --html`: the page is self-contained, has one frame per ply (and one for the
//! start), its views agree with the true position where they see and hide it where fog is,
//! silhouettes and bounces are drawn, the engines' info values reach the move list; and the page
//! renders in headless Chromium with boards that change between plies.

use super::fake::{openings_file, run_match, Scratch, MURK, ZH_KNIGHTS};
use murk::core::{Color, Move, Square, Variant};
use murk::rules::{Game, Position};
use murk::runner::line_engine::{Dir, Msg};
use murk::runner::record::{PlyRecord, SideLogs};
use murk::runner::replay_html::{replay_html, summarize_info};
use murk::runner::GameRecord;
use murk::view::View;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A game record made by hand: `moves` from `fen`, the mover writing `info` before each move.
fn record(variant: &str, fen: &str, moves: &[&str], info: &str) -> GameRecord {
    let plies = moves
        .iter()
        .enumerate()
        .map(|(i, mv)| {
            let side = if i % 2 == 0 { "white" } else { "black" };
            let lines = vec![
                Msg { dir: Dir::In, line: "go movetime 50".into(), t_ms: 0 },
                Msg { dir: Dir::Out, line: info.into(), t_ms: 1 },
                Msg { dir: Dir::Out, line: format!("bestmove {mv}"), t_ms: 2 },
            ];
            let lines = if i % 2 == 0 {
                SideLogs { white: lines, black: vec![] }
            } else {
                SideLogs { white: vec![], black: lines }
            };
            PlyRecord {
                ply: i + 1,
                side: side.into(),
                mv: mv.to_string(),
                bounces: vec![],
                think_ms: 3,
                clock_ms: None,
                lines,
            }
        })
        .collect();
    GameRecord {
        game: 1,
        pair: 1,
        variant: variant.into(),
        white: "<b>white & co</b>".into(),
        black: "black-engine".into(),
        start_fen: fen.into(),
        time_control: "movetime 50".into(),
        wire: Default::default(),
        seeds: [None, None],
        result: "1/2-1/2".into(),
        termination: "adjudication".into(),
        termination_kind: "adjudication".into(),
        forfeited_by: None,
        detail: "stopped by hand".into(),
        moves: moves.iter().map(|m| m.to_string()).collect(),
        setup: SideLogs::default(),
        plies,
        end: SideLogs::default(),
    }
}

/// The page split into frames, each frame's boards keyed by `truth`, `white`, `black`.
struct Frame {
    html: String,
    boards: HashMap<String, Board>,
}

/// What a board draws on each square, by the shape ids used there (`fog`, `wK`, `sb`, `bn`...).
type Board = HashMap<(u32, u32), Vec<String>>;

fn frames(page: &str) -> Vec<Frame> {
    page.split("<section class=\"frame\"")
        .skip(1)
        .map(|section| {
            let html = section.split("</section>").next().expect("frame").to_string();
            let boards = html
                .split("<svg class=\"board\" data-board=\"")
                .skip(1)
                .map(|svg| {
                    let name = svg.split('"').next().expect("board name").to_string();
                    let svg = svg.split("</svg>").next().expect("svg");
                    let mut board = Board::new();
                    for used in svg.split("<use href=\"#").skip(1) {
                        let id = used.split('"').next().expect("id").to_string();
                        let num = |attr: &str| used.split(attr).nth(1).and_then(|v| v.split('"').next()?.parse().ok());
                        if let (Some(x), Some(y)) = (num(" x=\""), num(" y=\"")) {
                            board.entry((x, y)).or_default().push(id);
                        }
                    }
                    (name, board)
                })
                .collect();
            Frame { html, boards }
        })
        .collect()
}

/// The piece drawn on a square (`wN`, `bP`), if any.
fn piece(shapes: Option<&Vec<String>>) -> Option<&str> {
    shapes?.iter().map(String::as_str).find(|id| {
        let b = id.as_bytes();
        b.len() == 2 && (b[0] == b'w' || b[0] == b'b') && b[1].is_ascii_uppercase()
    })
}

fn has(shapes: Option<&Vec<String>>, id: &str) -> bool {
    shapes.is_some_and(|s| s.iter().any(|x| x == id))
}

/// Checks that nothing on the page is loaded from elsewhere.
fn assert_self_contained(page: &str) {
    for banned in ["http://", "https://", "<link", " src=", "@import", "<iframe", "<img"] {
        assert!(!page.contains(banned), "the page refers to something outside it: {banned}");
    }
    for (i, _) in page.match_indices("url(") {
        assert!(page[i..].starts_with("url(#"), "an outside url(): {}", &page[i..i + 40]);
    }
}

#[test]
fn html_replay_has_a_frame_per_ply_and_views_that_hide_what_fog_hides() {
    let s = Scratch::new("replay-html");
    let openings = openings_file(&s, &[ZH_KNIGHTS]);
    let args = ["--variant", "dark-crazyhouse", "--games", "2", "--openings", openings.to_str().expect("path")];
    let engines = ["--engine", &s.fake("bounce-once 1 any"), "--engine", &s.fake("none")].map(String::from);
    let run = run_match(&s, &[&args[..], &engines.iter().map(String::as_str).collect::<Vec<_>>()].concat());
    let out = s.file("game2.html");
    let replay = Command::new(MURK)
        .args(["replay", s.file("games.json").to_str().expect("path"), "--game", "2", "--html"])
        .arg(&out)
        .output()
        .expect("run murk replay --html");
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
    assert!(replay.stdout.is_empty(), "the page goes to the file, not stdout");
    let page = std::fs::read_to_string(&out).expect("read the page");
    assert_self_contained(&page);
    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"));
    assert!(page.contains("<script>") && page.matches("<script").count() == 1);

    let game = run.game(2);
    let frames = frames(&page);
    assert_eq!(frames.len(), game.moves.len() + 1, "one frame per ply, and the start");
    assert_eq!(page.matches("<tr data-ply=").count(), frames.len(), "one move-list row per frame");
    for (n, f) in frames.iter().enumerate() {
        assert!(f.html.starts_with(&format!(" id=\"ply{n}\" data-ply=\"{n}\"")), "frame {n} in order");
        assert_eq!(f.html.contains(" hidden>"), n > 0, "frame {n}: only the start is shown without the script");
        let truth = &f.boards["truth"];
        assert!(truth.values().all(|s| !s.contains(&"fog".to_string())), "frame {n}: no fog on the truth");
        for side in ["white", "black"] {
            let view = &f.boards[side];
            let mut hidden = 0;
            for file in 0..8 {
                for rank in 0..8 {
                    let at = (16 + 40 * file, 40 * (7 - rank));
                    if has(view.get(&at), "fog") {
                        hidden += usize::from(piece(truth.get(&at)).is_some());
                        assert_eq!(piece(view.get(&at)), None, "frame {n} {side}: a piece drawn in fog");
                    } else {
                        assert_eq!(piece(view.get(&at)), piece(truth.get(&at)), "frame {n} {side} {at:?}");
                    }
                }
            }
            assert!(hidden >= 8, "frame {n} {side}: the fog hides enemy pieces the truth shows ({hidden})");
        }
    }
    // Game 2: Black's knight drop on a1 bounced before 1... Nf6; White is not told.
    let f = &frames[2];
    assert!(f.html.contains("Black plays g8f6 <span class=\"bounce\">after bounced N@a1</span>"), "{}", f.html);
    let a1 = (16, 280);
    assert!(has(f.boards["truth"].get(&a1), "bn") && has(f.boards["black"].get(&a1), "bn"));
    assert!(!has(f.boards["white"].get(&a1), "bn"), "White's view marks a bounce it was never told of");
    let g8 = (16 + 40 * 6, 0);
    assert!(has(f.boards["truth"].get(&g8), "lm") && has(f.boards["black"].get(&g8), "lm"), "last move marked");
    assert!(f.html.contains("White hand: N") && f.html.contains("Black hand: n"), "both hands on the truth");
    assert!(f.html.contains("&larr; info string some chatter the runner ignores"), "the engines' lines");
    assert!(frames.last().expect("frames").html.contains("gameover 1/2-1/2 repetition"));
}

#[test]
fn html_replay_draws_crossroads_silhouettes_escapes_names_and_lists_info_values() {
    let info = "info depth 3 score cp 25 nodes 1234 nps 99 pv b1b7 string worlds 7 sampled 2";
    let rec = record("dark-crossroads", "bknhcv/pppooo/6/6/6/6/OOOPPP/VCHNKB w - - 0 1", &["b1b7"], info);
    let page = replay_html(&rec).expect("render");
    assert_self_contained(&page);
    let frames = frames(&page);
    assert_eq!(frames.len(), 2);
    let after = &frames[1].boards;
    let count = |board: &Board, id: &str| board.values().flatten().filter(|s| *s == id).count();
    assert!(count(&after["white"], "sb") > 0, "the cannon's screens are Red silhouettes for White");
    assert_eq!(count(&after["truth"], "sb") + count(&after["truth"], "sw"), 0, "no silhouettes on the truth");
    // Fog (and silhouettes, drawn over fog) exactly where the view code says, square by square.
    let start = Position::from_fen(Variant::DarkCrossroads, &rec.start_fen).expect("FEN");
    let mut game = Game::new(start.clone());
    game.play(Move::parse("b1b7", Variant::DarkCrossroads).expect("move")).expect("legal");
    for (n, pos) in [(0, &start), (1, game.position())] {
        for side in [Color::White, Color::Black] {
            let view = View::of(pos, side);
            let board = &frames[n].boards[side.name()];
            for sq in Square::all().filter(|&sq| Variant::DarkCrossroads.board_mask().contains(sq)) {
                let at = (16 + 40 * sq.file() as u32, 40 * (7 - sq.rank() as u32));
                let hidden = view.fog().contains(sq) || view.silhouettes().contains(sq);
                assert_eq!(has(board.get(&at), "fog"), hidden, "frame {n} {side:?} {sq}");
            }
            assert!(view.fog().count() >= 10, "frame {n} {side:?}: fog to draw");
        }
    }
    assert!(page.contains("Red's view (black-engine)") && page.contains("&lt;b&gt;white &amp; co&lt;/b&gt;"));
    assert!(!page.contains("<b>white"), "an engine name is written as text");
    let row = page.split("<tr data-ply=\"1\"").nth(1).and_then(|r| r.split("</tr>").next()).expect("row 1");
    assert!(row.contains("<td>+0.25</td><td>3</td><td>1234</td><td>7</td>"), "{row}");

    let msg = |line: &str| Msg { dir: Dir::Out, line: line.into(), t_ms: 0 };
    let s = summarize_info(&[
        msg("info depth 1 score cp -40 nodes 10"),
        msg("info depth 2 score mate -3"),
        msg("bestmove a1a2"),
    ]);
    assert_eq!((s.depth.as_deref(), s.score.as_deref(), s.nodes.as_deref()), (Some("2"), Some("#-3"), Some("10")));
    assert_eq!(s.worlds, None);
}

/// The Chromium binary: `MURK_CHROMIUM`, or `chromium` (Debian's package) or a Chrome on PATH.
fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("MURK_CHROMIUM") {
        return PathBuf::from(path);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
        if let Some(found) = std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file()) {
            return found;
        }
    }
    panic!(
        "this test renders the replay page in headless Chromium and none was found: install Debian's \
         package (apt-get install -y chromium; .ci/run does) or set MURK_CHROMIUM to a Chromium binary"
    );
}

/// Screenshots `page` at `address` (a `#ply=N` fragment) into `png`; returns its RGB pixels.
fn screenshot(scratch: &Scratch, page: &Path, fragment: &str, png: &Path) -> Vec<[u8; 3]> {
    let profile = scratch.file(&format!("profile-{fragment}"));
    let mut child = Command::new(chromium())
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"])
        .arg("--disable-dev-shm-usage")
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1400,900")
        .arg(format!("file://{}#{fragment}", page.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start Chromium");
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().expect("wait for Chromium").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("Chromium took over 120 s to screenshot the page");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let file =
        std::fs::File::open(png).unwrap_or_else(|e| panic!("Chromium wrote no screenshot {}: {e}", png.display()));
    let mut reader = png::Decoder::new(file).read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG pixels");
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let step = info.color_type.samples();
    assert!(step >= 3, "a color screenshot");
    buf[..info.buffer_size()].chunks(step).map(|p| [p[0], p[1], p[2]]).collect()
}

#[test]
fn html_replay_renders_in_headless_chromium_and_its_boards_change_between_plies() {
    let s = Scratch::new("replay-chromium");
    let moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1", "f8c5"];
    let rec = record("dark-chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", &moves, "info depth 1");
    let page = s.file("game.html");
    std::fs::write(&page, replay_html(&rec).expect("render")).expect("write the page");
    let start = screenshot(&s, &page, "ply=0", &s.file("start.png"));
    let later = screenshot(&s, &page, "ply=8", &s.file("later.png"));
    assert_eq!(start.len(), later.len());
    // The board's light squares, dark squares and fog, as the page draws them.
    let palette = [[0xf0, 0xd9, 0xb5], [0xb5, 0x88, 0x63], [0x7d, 0x83, 0x8c]];
    for (name, shot) in [("start", &start), ("ply 8", &later)] {
        let counts = palette.map(|c| shot.iter().filter(|p| **p == c).count());
        assert!(counts.iter().all(|&n| n > 5_000), "{name}: the boards are not drawn: {counts:?} pixels");
        let mut colors: Vec<_> = shot.clone();
        colors.sort();
        colors.dedup();
        assert!(colors.len() > 50, "{name}: a blank screenshot ({} colors)", colors.len());
    }
    let changed =
        start.iter().zip(&later).filter(|(a, b)| a != b && (palette.contains(a) || palette.contains(b))).count();
    assert!(changed > 5_000, "the boards look the same at the start and at ply 8 ({changed} pixels differ)");
    let fog = |shot: &[[u8; 3]]| shot.iter().filter(|p| **p == palette[2]).count();
    assert_ne!(fog(&start), fog(&later), "the fog is the same at the start and at ply 8");
}
