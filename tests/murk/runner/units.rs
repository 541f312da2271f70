//! The runner's parts on their own: statistics against published cutechess-cli output, the
//! SPRT, engine specs, time controls, openings and SAN.

use murk::core::{Move, Variant};
use murk::rules::Position;
use murk::runner::openings::parse_opening;
use murk::runner::pgn::san;
use murk::runner::stats::{fixed, g3, Verdict};
use murk::runner::{EngineSpec, Score, Sprt, TimeControl};
use std::path::Path;

fn score(wins: u32, losses: u32, draws: u32) -> Score {
    let mut s = Score::default();
    for (n, half_points) in [(wins, 2), (losses, 0), (draws, 1)] {
        for i in 0..n {
            s.add(10_000_000 * (1 + half_points as usize) + i as usize, half_points);
        }
    }
    s
}

#[test]
fn elo_and_margin_match_published_cutechess_results() {
    // (wins, losses, draws, cutechess's "Elo difference: E +/- M" with one decimal)
    let published = [
        (476, 3, 521, "178.6", "14.0"),
        (364, 209, 427, "54.3", "16.3"),
        (585, 278, 137, "110.2", "20.8"),
        (318, 88, 594, "81.4", "13.5"),
    ];
    for (w, l, d, elo, margin) in published {
        let s = score(w, l, d);
        let (e, m) = s.elo();
        assert_eq!((fixed(e, 1), fixed(m, 1)), (elo.to_string(), margin.to_string()), "{w}-{l}-{d}");
    }
    let s = score(364, 209, 427);
    assert_eq!(s.score_line("A", "B"), "Score of A vs B: 364 - 209 - 427  [0.578] 1000");
    assert!(s.elo_line().starts_with("Elo difference: 54.") && s.elo_line().contains(" +/- 16."), "{}", s.elo_line());
    let all_won = score(3, 0, 0);
    assert_eq!(all_won.elo_line(), "Elo difference: inf +/- nan");
}

#[test]
fn pentanomial_counts_pairs() {
    let mut s = Score::default();
    for (pair, a, b) in [(1, 2, 2), (2, 2, 0), (3, 1, 0), (4, 0, 0), (5, 1, 1), (6, 2, 1)] {
        s.add(pair, a);
        s.add(pair, b);
    }
    s.add(7, 2); // an unfinished pair counts in W/L/D only
    assert_eq!(s.ptnml, [1, 1, 2, 1, 1]);
    assert_eq!((s.wins, s.losses, s.draws), (5, 4, 4));
    let (e, m) = s.ptnml_elo();
    assert!(e.abs() < 1e-9 && m > 100.0, "{e} {m}");
}

#[test]
fn sprt_bounds_llr_and_lines() {
    let sprt = Sprt::parse("elo0=0 elo1=10 alpha=0.05 beta=0.05").expect("parse");
    let (lo, hi) = sprt.bounds();
    assert_eq!((g3(lo), g3(hi)), ("-2.94".to_string(), "2.94".to_string()));
    assert!(sprt.llr(&score(30, 30, 40)) < 0.0);
    let strong = score(300, 100, 200);
    assert_eq!(sprt.verdict(&strong), Some(Verdict::H1));
    assert!(sprt.line(&strong, Some(Verdict::H1)).ends_with("lbound -2.94, ubound 2.94 - H1 was accepted"));
    assert_eq!(sprt.verdict(&score(1, 0, 0)), None, "one game decides nothing");
    assert_eq!(sprt.verdict(&score(100, 300, 200)), Some(Verdict::H0));
    for bad in ["elo0=0 elo1=10 alpha=0.05", "elo0=5 elo1=0 alpha=0.05 beta=0.05", "elo0=0 elo1=5 alpha=2 beta=0.1"] {
        assert!(Sprt::parse(bad).is_err(), "{bad}");
    }
    assert_eq!([g3(0.0123456), g3(123.456), g3(-7.0), g3(12345.0)], ["0.0123", "123", "-7", "1.23e+04"]);
}

#[test]
fn engine_specs_read_like_cutechess() {
    let exe = Path::new("/bin/murk");
    let spec = EngineSpec::parse("./eng --uci name=Foo option.Hash=16 'option.Book File=my book.bin' arg=-x", exe)
        .expect("parse");
    assert_eq!(spec.program, Path::new("./eng"));
    assert_eq!(spec.args, ["--uci", "-x"]);
    assert_eq!(spec.name.as_deref(), Some("Foo"));
    assert_eq!(spec.options, [("Hash".into(), "16".into()), ("Book File".into(), "my book.bin".into())]);
    let spec = EngineSpec::parse("cmd=/opt/e dir=/tmp proto=uci", exe).expect("parse");
    assert_eq!((spec.program.as_path(), spec.dir.as_deref()), (Path::new("/opt/e"), Some(Path::new("/tmp"))));
    let spec = EngineSpec::parse("builtin:greedy option.Seed=3", exe).expect("parse");
    assert_eq!(spec.program, exe);
    assert_eq!(spec.options[0], ("Player".to_string(), "greedy".to_string()));
    assert_eq!(spec.fallback_name(), "greedy");
    assert!(EngineSpec::parse("builtin:nobody", exe).is_err());
    assert!(EngineSpec::parse("name=x", exe).is_err());
    assert!(EngineSpec::parse("./e 'open", exe).is_err());
}

#[test]
fn time_controls_parse_as_seconds() {
    assert_eq!(TimeControl::parse_tc("10+0.1"), Ok(TimeControl::Clock { base_ms: 10_000, inc_ms: 100 }));
    assert_eq!(TimeControl::parse_tc("60"), Ok(TimeControl::Clock { base_ms: 60_000, inc_ms: 0 }));
    assert!(TimeControl::parse_tc("x+1").is_err() && TimeControl::parse_tc("0+1").is_err());
    assert_eq!(TimeControl::Clock { base_ms: 10_000, inc_ms: 100 }.pgn_tag(), "10+0.1");
}

#[test]
fn openings_are_fens_or_move_sequences() {
    let v = Variant::DarkChess;
    let after = parse_opening(v, "1. e2e4 e7e5 2. g1f3").expect("moves");
    assert_eq!(after.to_fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
    let epd = parse_opening(v, "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - id \"x\"").expect("epd");
    assert_eq!(epd.to_fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 0 1");
    assert!(parse_opening(v, "e2e5").is_err());
}

#[test]
fn san_has_disambiguation_captures_drops_and_castling() {
    let pos = |fen: &str| Position::from_fen(Variant::DarkCrazyhouse, fen).expect("fen");
    let mv = |p: &Position, text: &str| p.find_move(Move::parse(text, p.variant()).expect("move")).expect("legal");
    let p = pos("4k3/8/8/8/8/8/8/R5RK[] w - - 0 1");
    assert_eq!(san(&p, mv(&p, "a1d1")), "Rad1");
    let p = pos("4k3/8/8/8/8/8/8/R3K2R[N] w KQ - 0 1");
    assert_eq!(san(&p, mv(&p, "a1d1")), "Rd1");
    assert_eq!(san(&p, mv(&p, "e1g1")), "O-O");
    assert_eq!(san(&p, mv(&p, "N@e5")), "N@e5");
    let p = pos("4k3/8/8/3p4/4P3/8/8/4K3[] w - - 0 1");
    assert_eq!(san(&p, mv(&p, "e4d5")), "exd5");
    let p = pos("4k3/1P6/8/8/8/8/8/4K3[] w - - 0 1");
    assert_eq!(san(&p, mv(&p, "b7b8n")), "b8=N");
    let p = pos("4k3/8/8/8/R7/8/8/R3K3[] w - - 0 1");
    assert_eq!(san(&p, mv(&p, "a1a2")), "R1a2");
}
