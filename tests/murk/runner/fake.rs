//! Fake engines for the runner's tests (a bash script that shuffles a knight out and back and
//! misbehaves as told, and says `fake-MODE started` on stderr) and a helper that runs `murk match`
//! and reads back what it wrote.

use murk::runner::record::read_records;
use murk::runner::{audit_record, GameRecord};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The murk binary under test.
pub const MURK: &str = env!("CARGO_BIN_EXE_murk");

/// A crazyhouse start with a knight in each hand, so that drops (and bounces) can happen at once.
pub const ZH_KNIGHTS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Nn] w KQkq - 0 1";

const SCRIPT: &str = r#"#!/usr/bin/env bash
# A fake engine: plays Ng1-f3-g1 (White) or Ng8-f6-g8 (Black), in Crossroads Nd1-c3-d1 or
# Nc8-b6-c8, so two of them draw by repetition after 8 plies. Usage: fake.sh MODE AT SIDE.
# From its AT-th `go` on (counting bounced tries), when playing SIDE (white, black or any), it
# misbehaves as MODE says (`late`: answers a go only after `stop`; `zh-only` declares that it
# plays only dark-crazyhouse).
set -f
mode=${1:-none}; at=${2:-1}; only=${3:-any}
side=white; n=0; k=0; bounced=; variant=
while IFS= read -r line; do
  set -- $line
  case "$1" in
    setoption) [ "$3" = UCI_Variant ] && variant=$5 ;;
    uci) echo "fake-$mode started" >&2; echo "id name fake-$mode"; echo "option name Seed type spin default 0 min 0 max 9223372036854775807"
      [ "$mode" = zh-only ] && echo "option name UCI_Variant type combo default dark-crazyhouse var dark-crazyhouse"
      echo "uciok" ;;
    isready) echo "readyok" ;;
    ucinewgame) n=0; k=0; bounced= ;;
    side) side=$2 ;;
    quit) exit 0 ;;
    go)
      n=$((n + 1))
      if [ "$mode" != none ] && [ "$n" -ge "$at" ] && { [ "$only" = any ] || [ "$only" = "$side" ]; }; then
        if [ "$side" = white ]; then far=a8; own=e2; king=e1e5; else far=a1; own=e7; king=e8e4; fi
        case "$mode" in
          crash) exit 3 ;;
          hang) exec sleep 30 ;;
          late) while IFS= read -r l; do [ "$l" = stop ] && break; done ;;
          illegal) echo "bestmove $king"; continue ;;
          garbage) echo "bestmove hello"; continue ;;
          repeat-bounce) echo "bestmove N@$far"; continue ;;
          drop-known) echo "bestmove N@$own"; continue ;;
          bounce-once) if [ -z "$bounced" ]; then bounced=1; echo "bestmove N@$far"; continue; fi ;;
        esac
      fi
      if [ "$side" = white ]; then a=g1; b=f3; else a=g8; b=f6; fi
      if [ "$variant" = dark-crossroads ]; then
        if [ "$side" = white ]; then a=d1; b=c3; else a=c8; b=b6; fi
      fi
      k=$((k + 1))
      if [ $((k % 2)) -eq 1 ]; then m="$a$b"; else m="$b$a"; fi
      echo "info string some chatter the runner ignores"
      echo "bestmove $m" ;;
  esac
done
"#;

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A scratch directory, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A fresh directory holding the fake engine script.
    pub fn new(tag: &str) -> Scratch {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("murk-runner-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let script = dir.join("fake.sh");
        std::fs::write(&script, SCRIPT).expect("write fake engine");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        Scratch(dir)
    }

    /// An engine spec running the fake engine with `args` (mode, at, side, settings).
    pub fn fake(&self, args: &str) -> String {
        format!("{} {args}", self.0.join("fake.sh").display())
    }

    /// A file in the directory.
    pub fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What one `murk match` run produced.
pub struct MatchRun {
    /// Its standard output (the closing lines).
    pub stdout: String,
    /// Its standard error (per-game lines).
    pub stderr: String,
    /// The JSON records, in the order written.
    pub records: Vec<GameRecord>,
    /// The PGN file.
    pub pgn: String,
}

impl MatchRun {
    /// The record of game `n` (from 1).
    pub fn game(&self, n: usize) -> &GameRecord {
        self.records.iter().find(|r| r.game == n).unwrap_or_else(|| panic!("no game {n}\n{}", self.stderr))
    }

    /// The stdout line starting with `prefix`.
    pub fn line(&self, prefix: &str) -> &str {
        self.stdout
            .lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no '{prefix}' in\n{}", self.stdout))
    }
}

/// Runs `murk match` with `args` plus `--json` and `--pgn` files in `scratch`; checks it
/// succeeded and that every record passes the leak audit.
pub fn run_match(scratch: &Scratch, args: &[&str]) -> MatchRun {
    let json = scratch.file("games.json");
    let pgn = scratch.file("games.pgn");
    let _ = std::fs::remove_file(&json);
    let _ = std::fs::remove_file(&pgn);
    let out = Command::new(MURK)
        .arg("match")
        .args(args)
        .arg("--json")
        .arg(&json)
        .arg("--pgn")
        .arg(&pgn)
        .output()
        .expect("run murk match");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "murk match {args:?} failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    let records = read_records(&json).expect("read JSON records");
    for record in &records {
        audit_record(record).unwrap_or_else(|e| panic!("audit: {e}"));
    }
    let pgn = std::fs::read_to_string(&pgn).unwrap_or_default();
    MatchRun { stdout, stderr, records, pgn }
}

/// The lines `side`'s engine received in `lines` (a log slice), in order.
pub fn received(lines: &[murk::runner::line_engine::Msg]) -> Vec<&str> {
    lines.iter().filter(|m| m.dir == murk::runner::line_engine::Dir::In).map(|m| m.line.as_str()).collect()
}

/// Writes `lines` as an openings file in `scratch` and returns its path.
pub fn openings_file(scratch: &Scratch, lines: &[&str]) -> PathBuf {
    let path = scratch.file("openings.txt");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write openings");
    path
}
