//! The learned evaluation as the engine uses it: the built-in nets compute what the trainer
//! computed, `EvalFile` refuses damaged files with a clear error and keeps playing, and a net of
//! zeros (an evaluation that knows nothing) still plays legal moves to the end of a game.

use super::protocol::{greedy_opponent, play, Engine, Setup};
use murk::core::{Color, Variant};
use murk::eval::net::{Base, Net};
use murk::eval::{features, Evaluator};
use murk::rules::Position;

/// The check file the trainer wrote beside a built-in net: its own output and the active inputs
/// of each validation position.
fn check_positions(variant: Variant) -> Vec<(f32, Vec<u16>)> {
    let path = format!("{}/nets/{variant}.check.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut words = l.split_whitespace();
            let out = words.next().expect("an output").parse().expect("a number");
            (out, words.map(|w| w.parse().expect("an input index")).collect())
        })
        .collect()
}

#[test]
fn the_built_in_nets_compute_what_the_trainer_computed() {
    for variant in Variant::ALL {
        let net = Net::builtin(variant);
        let checks = check_positions(variant);
        assert!(checks.len() >= 100, "{variant}: {} check positions", checks.len());
        let mut worst = 0f32;
        for (expected, inputs) in &checks {
            let got = net.forward(inputs);
            worst = worst.max((got - expected).abs());
            assert!((got - expected).abs() <= 1e-3 * (1.0 + expected.abs()), "{variant}: {got} vs trainer {expected}");
        }
        // The nets must tell positions apart (a constant net would pass the comparison too).
        let spread =
            checks.iter().map(|c| c.0).fold(f32::MIN, f32::max) - checks.iter().map(|c| c.0).fold(f32::MAX, f32::min);
        assert!(spread > 0.1, "{variant}: outputs span only {spread} pawns");
        eprintln!("{variant}: {} positions, largest difference {worst:e}", checks.len());
    }
}

#[test]
fn the_built_in_nets_evaluations_prefer_the_side_a_queen_up() {
    let cases = [
        (Variant::DarkChess, "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        (Variant::DarkCrazyhouse, "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"),
        (Variant::DarkCrossroads, "bkn1cv/pppooo/6/6/6/6/OOOPPP/VCHNKB w - - 0 1"),
    ];
    for (variant, fen) in cases {
        let pos = Position::from_fen(variant, fen).unwrap();
        let flipped = Position::from_fen(variant, &fen.replacen(" w ", " b ", 1)).unwrap();
        let eval = Evaluator::Net(Net::builtin(variant));
        let (ours, theirs) = (eval.score(&pos), eval.score(&flipped));
        assert!(ours > 2.0 && theirs < -2.0, "{variant}: a queen up {ours}, a queen down {theirs}");
        assert_eq!(features::active(&pos).len() as u32, pos.occupied().count());
    }
}

/// A scratch file that is removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str, bytes: &[u8]) -> Scratch {
        let path = std::env::temp_dir().join(format!("murk-nets-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn eval_file_refuses_damaged_files_and_the_engine_plays_on() {
    let good = Net::zeros(Variant::DarkChess, Base::Zero, 8, 4).to_bytes();
    let mut flipped = good.clone();
    flipped[200] ^= 0x40;
    let cases = [
        ("missing", None, "cannot read"),
        ("text", Some(b"not a net at all".to_vec()), "bad magic"),
        ("flipped", Some(flipped), "hash does not match"),
        ("short", Some(good[..good.len() / 2].to_vec()), "bytes, its header says"),
    ];
    for (name, bytes, why) in cases {
        let file = Scratch::new(name, bytes.as_deref().unwrap_or_default());
        if bytes.is_none() {
            std::fs::remove_file(&file.0).unwrap();
        }
        let mut engine = Engine::start();
        engine.send("uci");
        engine.until(|l| l == "uciok");
        let errors = engine.errors_after(&format!("setoption name EvalFile value {}", file.0.display()));
        assert_eq!(errors.len(), 1, "{name}: {errors:?}");
        assert!(errors[0].contains("EvalFile") && errors[0].contains(why), "{name}: {}", errors[0]);
        // Nothing was lost: the engine still plays with its own net.
        engine.send("setoption name UCI_Variant value dark-chess");
        engine.send("position startpos");
        engine.send("side white");
        let (_, best) = engine.go("nodes 2000");
        assert!(
            Position::start(Variant::DarkChess).moves().iter().any(|m| m.to_uci(Variant::DarkChess) == best),
            "{name}: {best}"
        );
        engine.close();
    }
}

#[test]
fn a_net_of_zeros_plays_legal_moves_to_the_end_of_a_game() {
    for variant in Variant::ALL {
        let file = Scratch::new(&format!("zeros-{variant}"), &Net::zeros(variant, Base::Zero, 16, 8).to_bytes());
        let setup = Setup {
            variant,
            fen: None,
            side: Color::White,
            options: vec![("EvalFile", file.0.display().to_string()), ("Seed", "3".into())],
            go: "nodes 3000",
            max_plies: 80,
        };
        let record = play(&setup, &mut greedy_opponent(3));
        assert!(record.errors.is_empty(), "{variant}: {:?}", record.errors);
        assert!(record.game.moves().len() >= 2, "{variant}: the game was played");
    }
}
