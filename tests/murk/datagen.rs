//! `murk datagen`: a run is a function of its arguments (the same files whatever `--jobs`), its
//! summary counts what the files hold, every position is scored by the teacher it was given, and
//! the validation file takes every `--valid-every`-th game.

use crate::runner::fake::Scratch;
use murk::core::Variant;
use murk::datagen::{is_quiet, run, DatagenArgs, DatagenSummary};
use murk::eval::samples::{Sample, MAX_CP};
use murk::rules::Position;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// A fake UCI teacher: scores every position with White to move 123 cp, and every position with
/// Black to move a mate in 3 (which the samples clamp to their largest score).
const FAKE_TEACHER: &str = r#"#!/usr/bin/env bash
set -f
while IFS= read -r line; do
  set -- $line
  case "$1" in
    uci)
      echo "id name fake-teacher"
      echo "option name UCI_Variant type combo default chess var fogofwar var darkcrazyhouse var darkcrossroadstry"
      echo "option name VariantPath type string default <empty>"
      echo "uciok" ;;
    isready) echo "readyok" ;;
    position) side=$4 ;;
    go)
      if [ "$side" = w ]; then echo "info depth 1 score cp 123 pv a1a2"; else echo "info depth 1 score mate 3 pv a1a2"; fi
      echo "bestmove a1a2" ;;
    quit) exit 0 ;;
  esac
done
"#;

fn args(variant: Variant, out: PathBuf) -> DatagenArgs {
    DatagenArgs {
        variant,
        games: 4,
        seed: 11,
        nodes: 3_000,
        worlds: 2,
        random_plies: 4,
        random_rate: 0.05,
        max_plies: 60,
        teacher: None,
        teacher_nodes: 300,
        eval: "hand".into(),
        jobs: 1,
        valid_every: 2,
        out,
        shard: Default::default(),
        resume: false,
    }
}

fn samples(path: &Path) -> Vec<Sample> {
    Sample::read_all(&mut BufReader::new(std::fs::File::open(path).unwrap())).unwrap()
}

#[test]
fn a_run_writes_the_same_files_whatever_the_jobs_and_counts_them() {
    let scratch = Scratch::new("datagen-jobs");
    let mut summaries: Vec<DatagenSummary> = Vec::new();
    for jobs in [1, 3] {
        let mut a = args(Variant::DarkChess, scratch.file(&format!("jobs{jobs}")));
        a.jobs = jobs;
        let mut line = Vec::new();
        summaries.push(run(&a, &mut line).unwrap().merged.expect("an unsplit run writes the training files"));
        let line = String::from_utf8(line).unwrap();
        assert!(line.starts_with("datagen variant=dark-chess games=4 "), "{line}");
    }
    assert_eq!(summaries[0], summaries[1]);
    for name in ["train.bin", "valid.bin"] {
        let one = std::fs::read(scratch.file("jobs1").join(name)).unwrap();
        assert_eq!(one, std::fs::read(scratch.file("jobs3").join(name)).unwrap(), "{name} depends on --jobs");
    }
    let (train, valid) = (samples(&scratch.file("jobs1/train.bin")), samples(&scratch.file("jobs1/valid.bin")));
    assert_eq!((train.len() as u64, valid.len() as u64), (summaries[0].train, summaries[0].valid));
    assert!(train.len() >= 20 && valid.len() >= 20, "{} and {} samples", train.len(), valid.len());
    // Murk's own search labels them: scores vary, within the clamp.
    assert!(train.iter().any(|s| s.score_cp != train[0].score_cp));
    assert!(train.iter().all(|s| s.score_cp.abs() <= MAX_CP && (-1..=1).contains(&s.result)));
    // The belief's value is the mover's search over all its worlds: it varies, and is not the
    // score of the world itself.
    assert!(train.iter().any(|s| s.belief_cp != train[0].belief_cp));
    assert!(train.iter().filter(|s| s.belief_cp != s.score_cp).count() > train.len() / 4);
}

#[test]
fn every_position_gets_the_teachers_score_for_the_side_to_move() {
    let scratch = Scratch::new("datagen-teacher");
    let script = scratch.file("teacher.sh");
    std::fs::write(&script, FAKE_TEACHER).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    for variant in Variant::ALL {
        let mut a = args(variant, scratch.file(variant.name()));
        a.teacher = Some(script.clone());
        a.games = 2;
        run(&a, &mut Vec::new()).unwrap();
        let all: Vec<Sample> = ["train.bin", "valid.bin"].iter().flat_map(|f| samples(&a.out.join(f))).collect();
        assert!(
            all.iter().all(|s| s.score_cp == 123 || s.score_cp == MAX_CP),
            "{variant}: a score the teacher did not give"
        );
        assert!(
            all.iter().any(|s| s.score_cp == 123) && all.iter().any(|s| s.score_cp == MAX_CP),
            "{variant}: both sides to move"
        );
    }
}

#[test]
fn a_teacher_that_does_not_start_is_an_error() {
    let scratch = Scratch::new("datagen-no-teacher");
    let mut a = args(Variant::DarkChess, scratch.file("out"));
    a.teacher = Some(scratch.file("no-such-engine"));
    let err = run(&a, &mut Vec::new()).unwrap_err();
    assert!(format!("{err:#}").contains("starting the teacher"), "{err:#}");
}

#[test]
fn only_quiet_positions_are_kept() {
    let quiet = [
        (Variant::DarkChess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        // The knight can take a defended pawn, which loses material.
        (Variant::DarkChess, "4k3/8/2p5/3p4/8/4N3/8/4K3 w - - 0 1"),
    ];
    let tactical = [
        // A free knight.
        (Variant::DarkChess, "4k3/8/8/3n4/8/4N3/8/4K3 b - - 0 1"),
        // The side to move's king is attacked.
        (Variant::DarkChess, "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1"),
        // The side to move can take the king.
        (Variant::DarkChess, "4k3/8/8/8/8/8/4r3/4K3 b - - 0 1"),
        (Variant::DarkCrazyhouse, "4k3/8/8/3q4/8/4N3/8/4K3[] w - - 0 1"),
    ];
    for (variant, fen) in quiet {
        assert!(is_quiet(&Position::from_fen(variant, fen).unwrap()), "{fen}");
    }
    for (variant, fen) in tactical {
        assert!(!is_quiet(&Position::from_fen(variant, fen).unwrap()), "{fen}");
    }
}
