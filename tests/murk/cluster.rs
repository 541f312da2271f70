//! Runs split over processes, as a batch system runs them (scripts/cluster): shards of
//! `murk datagen`, `murk match` and `murk tournament` started by the scripts the way a Slurm job
//! array, a Kubernetes Indexed Job and GNU parallel start them, one killed and resumed, merged
//! (`murk datagen merge`, `murk results`) to exactly what one run gives; and the manifests checked
//! by a validator.

use crate::runner::fake::{Scratch, MURK};
use murk::datagen::games_file::GamesReader;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/cluster")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(out: Output, what: &str) -> String {
    assert!(out.status.success(), "{what} failed: {}", text(&out.stderr));
    text(&out.stdout)
}

/// `murk-shard.sh ARGS` with the scheduler's variables `env`.
fn shard_script(env: &[(&str, &str)], args: &[&str]) -> Command {
    let mut cmd = Command::new(scripts().join("murk-shard.sh"));
    cmd.env("MURK", MURK).args(args);
    for var in
        ["MURK_SHARD_INDEX", "MURK_SHARDS", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX"]
    {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    cmd
}

/// Waits until `done` holds, then kills `child` (as `kill -9`).
fn kill_when(mut child: Child, what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(120), "{what}: never got there");
        assert!(child.try_wait().expect("wait").is_none(), "{what}: ended before it could be killed");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().expect("kill");
    child.wait().expect("wait");
}

/// Complete games in a games file (none while it has no header).
fn games_in(path: &Path) -> usize {
    let Ok((_, mut reader)) = GamesReader::open(path) else { return 0 };
    let mut n = 0;
    while let Ok(Some(_)) = reader.next_game() {
        n += 1;
    }
    n
}

const DATAGEN: [&str; 12] = [
    "--variant",
    "dark-crazyhouse",
    "--games",
    "9",
    "--seed",
    "21",
    "--valid-every",
    "4",
    "--nodes",
    "2000",
    "--max-plies",
    "60",
];

#[test]
fn datagen_shards_from_the_batch_scripts_killed_and_resumed_merge_to_the_files_of_one_run() {
    let s = Scratch::new("cluster-datagen");
    let whole = s.file("whole");
    let mut cmd = Command::new(MURK);
    cmd.arg("datagen").args(DATAGEN).arg("--out").arg(&whole);
    ok(cmd.output().expect("run"), "the single run");

    let out = s.file("shards");
    let out_text = out.to_str().expect("utf-8 path");
    // Shard 0 as Slurm runs it: the sbatch file, its array task 0 of 3.
    let sbatch = Command::new(scripts().join("datagen.sbatch"))
        .env("MURK", MURK)
        .env("MURK_SCRIPTS", scripts())
        .env("SLURM_ARRAY_TASK_ID", "0")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .env("VARIANT", "dark-crazyhouse")
        .env("GAMES", "9")
        .env("SEED", "21")
        .env("DATAGEN_ARGS", "--valid-every 4 --nodes 2000 --max-plies 60")
        .env("OUT", &out)
        .output()
        .expect("sbatch script");
    assert!(ok(sbatch, "shard 0").contains("shard=0/3 games=3 "));
    // Shard 1 as a Kubernetes Indexed Job's pod runs it, killed after its first game and started again.
    let pod = |cmd: &mut Command| {
        cmd.args(["--out", out_text]);
    };
    let args: Vec<&str> = ["datagen"].iter().chain(DATAGEN.iter()).copied().collect();
    let mut first = shard_script(&[("JOB_COMPLETION_INDEX", "1"), ("MURK_SHARDS", "3")], &args);
    pod(&mut first);
    let file1 = out.join("games-1-of-3.bin");
    let child = first.stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("spawn");
    kill_when(child, "shard 1", || games_in(&file1) >= 1);
    assert_eq!(games_in(&file1), 1, "killed after its first of three games");
    // A game cut short by the kill is dropped on resume.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&file1)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &[4, 0, 0, 0, 0, 0, 0, 0, 9]))
        .expect("append");
    let mut again = shard_script(&[("JOB_COMPLETION_INDEX", "1"), ("MURK_SHARDS", "3")], &args);
    pod(&mut again);
    let resumed = again.output().expect("resume");
    assert!(
        text(&resumed.stderr).contains("Resuming: 1 games of shard 1/3 already played, 2 to go"),
        "{}",
        text(&resumed.stderr)
    );
    ok(resumed, "shard 1 resumed");
    // Shard 2 as GNU parallel runs it.
    let mut last = shard_script(&[("MURK_SHARD_INDEX", "2"), ("MURK_SHARDS", "3")], &args);
    pod(&mut last);
    ok(last.output().expect("shard 2"), "shard 2");

    let files: Vec<PathBuf> = (0..3).map(|k| out.join(format!("games-{k}-of-3.bin"))).collect();
    let merge = |out: &Path, files: &[PathBuf]| {
        Command::new(MURK).args(["datagen", "merge", "--out"]).arg(out).args(files).output().expect("merge")
    };
    let line = ok(merge(&s.file("merged"), &files), "merge");
    assert!(line.starts_with("datagen variant=dark-crazyhouse games=9 train="), "{line}");
    for name in ["train.bin", "valid.bin"] {
        let one = std::fs::read(whole.join(name)).expect("single run's file");
        assert!(!one.is_empty(), "{name} is empty");
        assert_eq!(one, std::fs::read(s.file("merged").join(name)).expect("merged file"), "{name} differs");
    }
    // What the merge refuses: a shard missing, one given twice, a shard of another run.
    let refused = |files: &[PathBuf], message: &str| {
        let out = merge(&s.file("refused"), files);
        assert!(!out.status.success() && text(&out.stderr).contains(message), "{message}: {}", text(&out.stderr));
    };
    refused(&files[..2], "shard 2/3 is missing");
    refused(&[files[0].clone(), files[1].clone(), files[1].clone()], "given twice");
    refused(&[files[0].clone(), files[1].clone(), whole.join("games-0-of-1.bin")], "of another run");
    // A shard still short of games is named.
    let cut = s.file("cut.bin");
    let bytes = std::fs::read(&files[2]).expect("shard 2");
    std::fs::write(&cut, &bytes[..bytes.len() - 10]).expect("cut");
    refused(&[files[0].clone(), files[1].clone(), cut.clone()], "stops before game 8");
    // ... unless the merge is partial: then it gives the files of a run of the first 8 games.
    let partial = Command::new(MURK)
        .args(["datagen", "merge", "--partial", "--out"])
        .arg(s.file("partial"))
        .args([&files[0], &files[1], &cut])
        .output()
        .expect("partial merge");
    assert!(ok(partial, "partial merge").starts_with("datagen variant=dark-crazyhouse games=8 "));
    let mut eight = Command::new(MURK);
    let args: Vec<&str> = DATAGEN.iter().map(|&a| if a == "9" { "8" } else { a }).collect();
    ok(eight.arg("datagen").args(args).arg("--out").arg(s.file("eight")).output().expect("run"), "8 games");
    for name in ["train.bin", "valid.bin"] {
        let read = |dir: &str| std::fs::read(s.file(dir).join(name)).expect("file");
        assert_eq!(read("partial"), read("eight"), "{name}: a partial merge is a shorter run");
    }
}

#[test]
fn match_and_tournament_shards_killed_and_resumed_give_the_results_of_one_run() {
    let s = Scratch::new("cluster-match");
    let match_args = |json: &str| -> Vec<String> {
        let args = "match --variant dark-chess --engine builtin:murk --engine builtin:greedy --nodes 2000 --max-plies 60 --games 8 --seed 9 --no-progress --json";
        args.split(' ').map(String::from).chain([json.to_string()]).collect()
    };
    let whole =
        ok(Command::new(MURK).args(match_args(s.file("whole.json").to_str().unwrap())).output().expect("run"), "match");
    assert!(whole.starts_with("Score of murk vs greedy: "), "{whole}");

    let pattern = s.file("shard-%K.json");
    let args = match_args(pattern.to_str().unwrap());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let env0 = [("MURK_SHARD_INDEX", "0"), ("MURK_SHARDS", "2")];
    let child = shard_script(&env0, &args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("spawn");
    let json0 = s.file("shard-0.json");
    let records = |p: &Path| std::fs::read_to_string(p).map_or(0, |t| t.matches('\n').count());
    kill_when(child, "match shard 0", || records(&json0) >= 1);
    let resumed = shard_script(&env0, &args).output().expect("resume");
    assert!(
        text(&resumed.stderr).contains("Resuming: 1 of 4 games already played, 3 to go"),
        "{}",
        text(&resumed.stderr)
    );
    ok(resumed, "shard 0 resumed");
    ok(shard_script(&[("MURK_SHARD_INDEX", "1"), ("MURK_SHARDS", "2")], &args).output().expect("shard 1"), "shard 1");
    assert_eq!((records(&json0), records(&s.file("shard-1.json"))), (4, 4), "pairs 0, 2 and 1, 3");
    let results = |files: &[&str], extra: &[&str]| {
        // Files first: --sprt takes up to four words.
        Command::new(MURK).arg("results").args(files.iter().map(|f| s.file(f))).args(extra).output().expect("results")
    };
    assert_eq!(ok(results(&["shard-0.json", "shard-1.json"], &[]), "results"), whole);
    let sprt = ok(
        results(&["shard-1.json", "shard-0.json"], &["--sprt", "elo0=0 elo1=10 alpha=0.05 beta=0.05"]),
        "results --sprt",
    );
    assert!(sprt.starts_with(&whole[..whole.find('\n').unwrap()]) && sprt.contains("SPRT"), "{sprt}");
    let twice = results(&["shard-0.json", "whole.json"], &[]);
    assert!(!twice.status.success() && text(&twice.stderr).contains("is in"), "{}", text(&twice.stderr));

    // A tournament of three, in two shards (Slurm's variables), against the single run's table.
    let tour = |json: &str| -> Vec<String> {
        let args = "tournament --variant dark-crossroads --engine builtin:murk --engine builtin:greedy --engine builtin:random --nodes 2000 --max-plies 60 --seed 4 --no-progress --json";
        args.split(' ').map(String::from).chain([json.to_string()]).collect()
    };
    let table = |stdout: &str| stdout.split("Engines (from the game records)").next().unwrap_or_default().to_string();
    let whole = ok(
        Command::new(MURK).args(tour(s.file("tour.json").to_str().unwrap())).output().expect("tournament"),
        "tournament",
    );
    let args = tour(s.file("tour-%K.json").to_str().unwrap());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    for k in ["0", "1"] {
        ok(
            shard_script(&[("SLURM_ARRAY_TASK_ID", k), ("SLURM_ARRAY_TASK_COUNT", "2")], &args)
                .output()
                .expect("shard"),
            "tournament shard",
        );
    }
    let merged = ok(results(&["tour-1.json", "tour-0.json"], &[]), "results");
    assert!(table(&whole).contains("Crosstable"), "{whole}");
    assert_eq!(table(&merged), table(&whole));
}

#[test]
fn the_shard_script_refuses_to_run_without_a_shard() {
    let out =
        shard_script(&[], &["datagen", "--variant", "dark-chess", "--out", "/nonexistent"]).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no shard index or count"), "{}", text(&out.stderr));
    let bad = shard_script(
        &[("MURK_SHARD_INDEX", "3"), ("MURK_SHARDS", "3")],
        &["datagen", "--variant", "dark-chess", "--out", "/nonexistent"],
    )
    .output()
    .expect("run");
    assert!(!bad.status.success() && text(&bad.stderr).contains("K/N"), "{}", text(&bad.stderr));
}

/// The Kubernetes manifest against the API's schemas, with `kubernetes-validate` (PyPI), found
/// in `MURK_KUBERNETES_VALIDATE` or on the PATH. Without it the test says on stderr that it is
/// skipped, unless `MURK_REQUIRE_VALIDATOR` is set (CI installs it and sets it).
#[test]
fn the_kubernetes_manifest_validates_and_its_shards_match() {
    let manifest = scripts().join("datagen-job.yaml");
    let yaml = std::fs::read_to_string(&manifest).expect("manifest");
    let field = |name: &str| {
        yaml.lines().find_map(|l| l.trim().strip_prefix(name)).map(|v| v.trim().trim_matches('"').to_string())
    };
    assert_eq!(field("completions:"), field("parallelism:"));
    let shards =
        yaml.lines().skip_while(|l| !l.contains("MURK_SHARDS")).nth(1).and_then(|l| l.trim().strip_prefix("value:"));
    assert_eq!(
        shards.map(|v| v.trim().trim_matches('"').to_string()),
        field("completions:"),
        "MURK_SHARDS is the completion count"
    );
    let sbatch = std::fs::read_to_string(scripts().join("datagen.sbatch")).expect("sbatch");
    assert!(
        sbatch.contains("#SBATCH --array=0-15") && sbatch.contains("games-*-of-16.bin"),
        "the array's size is the merge's shard count"
    );

    let program = std::env::var("MURK_KUBERNETES_VALIDATE").unwrap_or_else(|_| "kubernetes-validate".into());
    let out = match Command::new(&program).arg("--strict").arg(&manifest).output() {
        Ok(out) => out,
        Err(e) => {
            assert!(std::env::var_os("MURK_REQUIRE_VALIDATOR").is_none(), "{program}: {e}");
            eprintln!(
                "SKIPPED: validating {} needs kubernetes-validate (pip install kubernetes-validate): {e}",
                manifest.display()
            );
            return;
        }
    };
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success() && said.contains("passed"), "{said}");
    // The validator catches a mistake.
    let broken = std::env::temp_dir().join(format!("murk-broken-job-{}.yaml", std::process::id()));
    std::fs::write(&broken, yaml.replace("parallelism:", "paralelism:")).expect("write");
    let out = Command::new(&program).arg("--strict").arg(&broken).output().expect("validator");
    let _ = std::fs::remove_file(&broken);
    assert!(!out.status.success(), "a misspelt field passed");
}
