//! A shard's file of labelled games, `games-K-of-N.bin`: what `murk datagen` writes as it plays,
//! what a killed run resumes from, and what [`super::merge`] turns into `train.bin` and
//! `valid.bin`.
//!
//! The file opens with the line `murk-datagen-games 1`, then one line naming the run (every
//! argument the games depend on, so that files of different runs are never mixed) and one naming
//! the shard (`shard=K/N`). Then, per game in the shard's order: the game's number (`u64`), its
//! sample count (`u32`), and per sample its position key (`u64`, for the merge's deduplication)
//! and the [`Sample`] record. Numbers are little-endian. A game is written whole and flushed, so a
//! killed run leaves complete games and at most one cut-short tail, which a resume drops.

use crate::eval::samples::Sample;
use crate::shard::Shard;
use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The first line of every games file.
const MAGIC: &str = "murk-datagen-games 1";

/// One labelled game: its number in the run and its samples with their position keys.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelledGame {
    /// The game's number in the run (from 0).
    pub index: u64,
    /// Its samples in order, each with its position's key.
    pub samples: Vec<(u64, Sample)>,
}

/// What a games file says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Every argument the run's games depend on, as one line.
    pub run: String,
    /// Which part of the run the file holds.
    pub shard: Shard,
}

/// The file of shard `shard` in the folder `dir`.
pub fn path(dir: &Path, shard: Shard) -> PathBuf {
    dir.join(format!("games-{}-of-{}.bin", shard.index, shard.count))
}

/// Reads a games file game by game.
pub struct GamesReader<R> {
    input: R,
    /// Bytes read up to the end of the last complete game.
    complete_len: u64,
}

impl GamesReader<BufReader<File>> {
    /// Opens `path` and reads its header.
    pub fn open(path: &Path) -> Result<(Header, GamesReader<BufReader<File>>)> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        GamesReader::new(BufReader::new(file)).with_context(|| format!("{} is not a games file", path.display()))
    }
}

impl<R: BufRead> GamesReader<R> {
    /// Reads the header from `input`.
    pub fn new(mut input: R) -> Result<(Header, GamesReader<R>)> {
        let mut lines = [String::new(), String::new(), String::new()];
        let mut len = 0;
        for line in &mut lines {
            len += input.read_line(line)? as u64;
        }
        let [magic, run, shard] = lines.map(|l| l.trim_end_matches('\n').to_string());
        if magic != MAGIC {
            bail!("its first line is {magic:?}, not {MAGIC:?}");
        }
        let shard = match shard.strip_prefix("shard=").map(str::parse::<Shard>) {
            Some(Ok(shard)) => shard,
            _ => bail!("its third line is {shard:?}, not shard=K/N"),
        };
        Ok((Header { run, shard }, GamesReader { input, complete_len: len }))
    }

    /// The next game, `None` at the end. A game cut short is an error of kind `UnexpectedEof`.
    pub fn next_game(&mut self) -> io::Result<Option<LabelledGame>> {
        if self.input.fill_buf()?.is_empty() {
            return Ok(None);
        }
        let mut head = [0u8; 12];
        self.input.read_exact(&mut head)?;
        let index = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
        let count = u32::from_le_bytes(head[8..].try_into().expect("4 bytes"));
        let mut len = head.len() as u64;
        let mut samples = Vec::with_capacity(count.min(4096) as usize);
        for _ in 0..count {
            let mut key = [0u8; 8];
            self.input.read_exact(&mut key)?;
            let sample = Sample::read(&mut self.input)?
                .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "a game cut short"))?;
            len += key.len() as u64 + sample.encoded_len();
            samples.push((u64::from_le_bytes(key), sample));
        }
        self.complete_len += len;
        Ok(Some(LabelledGame { index, samples }))
    }

    /// Bytes up to the end of the last complete game read.
    pub fn complete_len(&self) -> u64 {
        self.complete_len
    }
}

/// Appends games to a shard's file, each whole and flushed.
pub struct GamesWriter {
    out: BufWriter<File>,
}

impl GamesWriter {
    /// Starts the file at `path` afresh, with its header.
    pub fn create(path: &Path, header: &Header) -> Result<GamesWriter> {
        let file = File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
        let mut out = BufWriter::new(file);
        write!(out, "{MAGIC}\n{}\nshard={}\n", header.run, header.shard)?;
        out.flush()?;
        Ok(GamesWriter { out })
    }

    /// Continues the file at `path` of the same run and shard: returns the games it holds and a
    /// writer after the last complete one (a cut-short tail is dropped). A missing file starts
    /// afresh; a file of another run or shard is an error.
    pub fn resume(path: &Path, header: &Header) -> Result<(Vec<LabelledGame>, GamesWriter)> {
        if !path.exists() {
            return Ok((Vec::new(), GamesWriter::create(path, header)?));
        }
        let (found, mut reader) = GamesReader::open(path)?;
        if found != *header {
            bail!(
                "{} holds another run ({} shard={}): resume with the arguments it was started with, or choose another --out\n  this run: {} shard={}",
                path.display(),
                found.run,
                found.shard,
                header.run,
                header.shard
            );
        }
        let mut games = Vec::new();
        loop {
            match reader.next_game() {
                Ok(Some(game)) => games.push(game),
                Ok(None) => break,
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                    eprintln!("note: dropping a game cut short at the end of {}", path.display());
                    break;
                }
                Err(e) => return Err(e).with_context(|| format!("cannot resume from {}", path.display())),
            }
        }
        let file = File::options().write(true).open(path).with_context(|| format!("cannot open {}", path.display()))?;
        file.set_len(reader.complete_len()).with_context(|| format!("cannot truncate {}", path.display()))?;
        let mut out = BufWriter::new(file);
        io::Seek::seek(&mut out, io::SeekFrom::End(0))?;
        Ok((games, GamesWriter { out }))
    }

    /// Appends one game and flushes it to the file.
    pub fn write(&mut self, game: &LabelledGame) -> Result<()> {
        self.out.write_all(&game.index.to_le_bytes())?;
        self.out.write_all(&(game.samples.len() as u32).to_le_bytes())?;
        for (key, sample) in &game.samples {
            self.out.write_all(&key.to_le_bytes())?;
            sample.write(&mut self.out)?;
        }
        self.out.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::features::Active;

    fn game(index: u64, n: usize) -> LabelledGame {
        let samples = (0..n)
            .map(|i| {
                let sample = Sample {
                    active: [i as u16, 40].into_iter().collect::<Active>(),
                    score_cp: 7,
                    result: 1,
                    belief_cp: -3,
                };
                (index * 100 + i as u64, sample)
            })
            .collect();
        LabelledGame { index, samples }
    }

    #[test]
    fn a_resume_keeps_the_complete_games_and_refuses_another_run() {
        let dir = std::env::temp_dir().join(format!("murk-games-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let header = Header { run: "variant=dark-chess seed=3".into(), shard: "1/2".parse().unwrap() };
        let file = path(&dir, header.shard);
        assert!(file.ends_with("games-1-of-2.bin"));
        let mut w = GamesWriter::create(&file, &header).unwrap();
        w.write(&game(1, 3)).unwrap();
        w.write(&game(3, 0)).unwrap();
        w.write(&game(5, 2)).unwrap();
        drop(w);
        // Cut the last game short, as a kill would.
        let full = std::fs::metadata(&file).unwrap().len();
        std::fs::File::options().write(true).open(&file).unwrap().set_len(full - 3).unwrap();
        let (games, mut w) = GamesWriter::resume(&file, &header).unwrap();
        assert_eq!(games, vec![game(1, 3), game(3, 0)]);
        w.write(&game(5, 2)).unwrap();
        drop(w);
        let (found, mut reader) = GamesReader::open(&file).unwrap();
        assert_eq!(found, header);
        let mut all = Vec::new();
        while let Some(g) = reader.next_game().unwrap() {
            all.push(g);
        }
        assert_eq!(all, vec![game(1, 3), game(3, 0), game(5, 2)]);
        let other = Header { run: "variant=dark-chess seed=4".into(), ..header };
        let err = GamesWriter::resume(&file, &other).err().expect("another run is refused");
        assert!(format!("{err:#}").contains("holds another run"), "{err:#}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
