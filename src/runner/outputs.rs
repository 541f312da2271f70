//! Where finished games go, for match and tournament alike: the PGN and JSON-lines files, each
//! game appended as it ends (the JSON file is also the run's state, from which `--resume`
//! continues it), and the progress display on stderr (a bar, or plain lines).

use super::pgn::{today, write_pgn};
use super::record::{append_json, GameRecord};
use super::schedule::{GameConfig, Progress, Schedule};
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The PGN and JSON-lines files a run appends to.
pub struct RecordFiles {
    pgn: Option<File>,
    json: Option<File>,
    date: String,
}

fn append_to(path: &Option<PathBuf>) -> Result<Option<File>> {
    path.as_ref()
        .map(|p| {
            File::options().create(true).append(true).open(p).with_context(|| format!("cannot open {}", p.display()))
        })
        .transpose()
}

impl RecordFiles {
    /// Opens (creating if need be) the files to append to.
    pub fn open(pgn: &Option<PathBuf>, json: &Option<PathBuf>) -> Result<RecordFiles> {
        Ok(RecordFiles { pgn: append_to(pgn)?, json: append_to(json)?, date: today() })
    }

    /// Appends one finished game to both files and flushes them.
    pub fn write(&mut self, record: &GameRecord) -> Result<()> {
        if let Some(f) = &mut self.json {
            append_json(f, record).context("cannot write the JSON record")?;
        }
        if let Some(f) = &mut self.pgn {
            f.write_all(write_pgn(record, &self.date).as_bytes())
                .and_then(|_| f.flush())
                .context("cannot write PGN")?;
        }
        Ok(())
    }
}

/// The games of `schedule` already in the run's JSON record file (its state), with their
/// schedule indexes, each checked to be this run's; a record cut short by an interruption is
/// dropped and the file truncated. No file yet is no game.
pub fn resumed_games(common: &GameConfig, schedule: &Schedule, names: &[String]) -> Result<Vec<(usize, GameRecord)>> {
    let Some(path) = &common.json else { bail!("--resume needs --json: the record file is the run's state") };
    let mut done = vec![false; schedule.len()];
    let mut games = Vec::new();
    for record in read_state(path)? {
        let index = check_resumed(&record, schedule, names, common, &done)?;
        done[index] = true;
        games.push((index, record));
    }
    Ok(games)
}

/// The games of `schedule` this run still has to play: those of its shard not in `resumed`. Says
/// on stderr how many are done when some are.
pub fn pending_games(common: &GameConfig, schedule: &Schedule, resumed: &[(usize, GameRecord)]) -> Vec<usize> {
    let done: std::collections::HashSet<usize> = resumed.iter().map(|(i, _)| *i).collect();
    let pending: Vec<usize> =
        (0..schedule.len()).filter(|&i| common.shard.owns((i / 2) as u64) && !done.contains(&i)).collect();
    if !resumed.is_empty() {
        let total = pending.len() + resumed.len();
        eprintln!("Resuming: {} of {total} games already played, {} to go", resumed.len(), pending.len());
    }
    pending
}

/// The records already in the state file `path` (none if it does not exist). A last line cut
/// short by an interruption is dropped, and the file truncated to the complete records.
fn read_state(path: &Path) -> Result<Vec<GameRecord>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut records = Vec::new();
    let mut good_len = 0;
    let mut lines = text.split_inclusive('\n').enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        if !line.trim().is_empty() {
            match serde_json::from_str::<GameRecord>(line) {
                Ok(record) if line.ends_with('\n') => records.push(record),
                _ if lines.peek().is_none() => break,
                _ => bail!("{} line {}: not a game record (cannot resume from it)", path.display(), i + 1),
            }
        }
        good_len += line.len();
    }
    if good_len < text.len() {
        eprintln!("note: dropping an incomplete last record from {}", path.display());
        let f = std::fs::File::options()
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        f.set_len(good_len as u64).with_context(|| format!("cannot truncate {}", path.display()))?;
    }
    Ok(records)
}

/// The schedule index of a record from the state file, once it is checked to be this run's
/// game (same players and variant, of this shard) and not seen before.
fn check_resumed(
    record: &GameRecord,
    schedule: &Schedule,
    names: &[String],
    common: &GameConfig,
    done: &[bool],
) -> Result<usize> {
    let Some(index) = record.game.checked_sub(1).filter(|&i| i < schedule.len()) else {
        bail!(
            "the record file holds game {}, but this run has {} games: resume with the same arguments",
            record.game,
            schedule.len()
        );
    };
    let [w, b] = schedule.players(index).map(|p| names[p].as_str());
    if (record.white.as_str(), record.black.as_str()) != (w, b) || record.variant != common.variant.name() {
        bail!(
            "game {} in the record file is {} vs {} ({}), but in this run it is {w} vs {b} ({}): resume with the same arguments",
            record.game,
            record.white,
            record.black,
            record.variant,
            common.variant.name()
        );
    }
    if done[index] {
        bail!("the record file holds game {} twice", record.game);
    }
    if !common.shard.owns((index / 2) as u64) {
        bail!(
            "the record file holds game {}, which is not shard {}'s: resume with the same --shard",
            record.game,
            common.shard
        );
    }
    Ok(index)
}

/// The progress display on stderr.
pub struct ProgressView {
    bar: ProgressBar,
    mode: Progress,
}

impl ProgressView {
    /// A display for `total` games of which `done` are already played, showing `message`.
    pub fn new(mode: Progress, done: usize, total: usize, message: String) -> ProgressView {
        let target = match mode {
            Progress::Bar => ProgressDrawTarget::stderr(),
            _ => ProgressDrawTarget::hidden(),
        };
        let bar = ProgressBar::with_draw_target(Some(total as u64), target);
        let style = ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  ETA {eta}  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        bar.set_position(done as u64);
        bar.reset_eta();
        bar.set_message(message);
        ProgressView { bar, mode }
    }

    /// Shows a finished game: its line above the bar (or on its own with the running `standing`
    /// when stderr is not a terminal), and `standing` as the bar's message.
    pub fn game(&self, record: &GameRecord, standing: String) {
        let finished = format!(
            "Finished game {} ({} vs {}): {} {{{}}}",
            record.game, record.white, record.black, record.result, record.detail
        );
        self.bar.inc(1);
        if self.mode == Progress::Lines {
            eprintln!("{finished}  [{}/{}  {standing}]", self.bar.position(), self.bar.length().unwrap_or(0));
        }
        self.bar.println(finished);
        self.bar.set_message(standing);
    }

    /// Prints `text` on stderr (above the bar when there is one), whatever the mode.
    pub fn note(&self, text: &str) {
        match self.mode {
            Progress::Bar => self.bar.println(text.trim_end()),
            _ => eprintln!("{}", text.trim_end()),
        }
    }

    /// Removes the bar's live line, leaving its last state.
    pub fn finish(&self) {
        self.bar.finish();
    }
}
