//! The training files from the games files of a run: what an unsplit `murk datagen` does at its
//! end, and `murk datagen merge` does with the files of all its shards. Games are taken in number
//! order, a position is kept only the first time the run meets it, and every `valid_every`-th
//! game goes to `valid.bin`: so the shards of a run, merged, give the files one run gives.

use super::games_file::{GamesReader, Header, LabelledGame};
use super::DatagenSummary;
use anyhow::{anyhow, bail, Context, Result};
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The command line of `murk datagen merge`.
#[derive(clap::Args, Debug, Clone)]
pub struct MergeArgs {
    /// The folder to write `train.bin` and `valid.bin` into (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// The games files of every shard of one run (`games-K-of-N.bin`, N of them).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Merge the games played so far while the shards still run: games 0 to the first one no
    /// file holds yet (the files a run of that many games writes).
    #[arg(long)]
    pub partial: bool,
}

/// The value of `key=value` in a run line.
pub(super) fn run_value<T: std::str::FromStr>(run: &str, key: &str) -> Result<T> {
    run.split_whitespace()
        .find_map(|word| word.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| anyhow!("the run line {run:?} has no {key}="))
}

/// Merges the games files `files` (one per shard of one run, any order) into `train.bin` and
/// `valid.bin` in `out`; returns the run line and what was written. With `partial`, the games up
/// to the first one missing are merged (a shard still running, or cut short, ends the merge).
pub fn merge(files: &[PathBuf], out: &Path, partial: bool) -> Result<(String, DatagenSummary)> {
    let mut shards: Vec<(Header, GamesReader<BufReader<File>>, &PathBuf)> = Vec::new();
    for path in files {
        let (header, reader) = GamesReader::open(path)?;
        shards.push((header, reader, path));
    }
    let Some(first) = shards.first().map(|(h, _, _)| h.clone()) else { bail!("no games file to merge") };
    for (header, _, path) in &shards {
        if header.run != first.run || header.shard.count != first.shard.count {
            bail!(
                "{} is of another run than {}: {} shard={} against {} shard={}",
                path.display(),
                shards[0].2.display(),
                header.run,
                header.shard,
                first.run,
                first.shard
            );
        }
    }
    shards.sort_by_key(|(h, _, _)| h.shard.index);
    for (k, (header, _, path)) in shards.iter().enumerate() {
        match (header.shard.index as usize).cmp(&k) {
            std::cmp::Ordering::Greater => bail!("shard {k}/{} is missing", first.shard.count),
            std::cmp::Ordering::Less => bail!("shard {} is given twice ({})", header.shard, path.display()),
            std::cmp::Ordering::Equal => {}
        }
    }
    if shards.len() as u64 != first.shard.count {
        bail!("shard {}/{} is missing", shards.len(), first.shard.count);
    }
    let games = run_value(&first.run, "games")?;
    let mut sink = SampleSink::create(out, run_value(&first.run, "valid_every")?)?;
    for index in 0..games {
        let (header, reader, path) = &mut shards[(index % first.shard.count) as usize];
        let incomplete = || {
            format!("{} (shard {}) stops before game {index}: finish it with --resume", path.display(), header.shard)
        };
        match reader.next_game() {
            Ok(Some(game)) if game.index == index => sink.add(&game)?,
            Ok(Some(game)) => bail!("{} holds game {} where game {index} belongs", path.display(), game.index),
            Ok(None) if partial => break,
            Err(e) if partial && e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Ok(None) => bail!(incomplete()),
            Err(e) => return Err(e).with_context(incomplete),
        }
    }
    for (_, reader, path) in &mut shards {
        if !partial && reader.next_game().ok().flatten().is_some() {
            bail!("{} holds more games than the run's {games}", path.display());
        }
    }
    Ok((first.run, sink.finish()?))
}

/// Writes games, in number order, into the training files.
struct SampleSink {
    train: BufWriter<File>,
    valid: BufWriter<File>,
    valid_every: u64,
    seen: HashSet<u64>,
    summary: DatagenSummary,
}

impl SampleSink {
    fn create(dir: &Path, valid_every: u64) -> Result<SampleSink> {
        if valid_every == 0 {
            bail!("valid_every must be at least 1");
        }
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let create = |name: &str| -> Result<BufWriter<File>> {
            let path = dir.join(name);
            Ok(BufWriter::new(File::create(&path).with_context(|| format!("cannot write {}", path.display()))?))
        };
        Ok(SampleSink {
            train: create("train.bin")?,
            valid: create("valid.bin")?,
            valid_every,
            seen: HashSet::new(),
            summary: DatagenSummary::default(),
        })
    }

    /// Takes the next game: its positions not met before go to its file.
    fn add(&mut self, game: &LabelledGame) -> Result<()> {
        let (file, count) = if game.index.is_multiple_of(self.valid_every) {
            (&mut self.valid, &mut self.summary.valid)
        } else {
            (&mut self.train, &mut self.summary.train)
        };
        for (key, sample) in &game.samples {
            if self.seen.insert(*key) {
                sample.write(file)?;
                *count += 1;
            } else {
                self.summary.duplicates += 1;
            }
        }
        self.summary.games += 1;
        Ok(())
    }

    fn finish(mut self) -> Result<DatagenSummary> {
        self.train.flush()?;
        self.valid.flush()?;
        Ok(self.summary)
    }
}
