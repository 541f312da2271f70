//! Where finished games go, for match and tournament alike: the PGN and JSON-lines files, each
//! game appended as it ends, and the progress display on stderr (a bar, or plain lines).

use super::pgn::{today, write_pgn};
use super::record::{append_json, GameRecord};
use super::schedule::Progress;
use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

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
