//! Engines run as child processes and talked to line by line: a line channel with deadlines
//! ([`EngineIo`]) and its implementation over a child process ([`Process`]). A reader and a
//! writer thread per process keep the caller from ever blocking on a hung engine: sends never
//! wait, receives wait at most until a deadline.
//!
//! Shared by the match runner ([`crate::runner`], the engines it referees) and `murk uci-fog`
//! ([`crate::uci_fog`], the perfect-information engine it consults).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest line read from an engine; longer output is cut into pieces of this size.
pub const MAX_LINE: u64 = 64 * 1024;

/// Why a line could not be exchanged.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum IoFailure {
    /// The engine's output is closed: it exited or crashed.
    #[error("the engine exited")]
    Closed,
    /// No line came before the deadline.
    #[error("no reply in time")]
    Timeout,
}

/// A line channel to an engine.
pub trait EngineIo: Send {
    /// Sends one line (without its newline). Never blocks on the engine.
    fn send(&mut self, line: &str) -> Result<(), IoFailure>;
    /// The next line from the engine, waiting at most until `deadline`.
    fn recv(&mut self, deadline: Instant) -> Result<String, IoFailure>;
    /// The next line if one is waiting already.
    fn try_recv(&mut self) -> Result<Option<String>, IoFailure>;
    /// False once the engine is known to have exited.
    fn alive(&mut self) -> bool {
        true
    }
    /// Asks the engine to quit, waits up to `grace`, then makes sure it is gone.
    fn shutdown(&mut self, _grace: Duration) {}
}

/// An engine running as a child process.
pub struct Process {
    child: Child,
    to_engine: Option<Sender<String>>,
    from_engine: Receiver<String>,
    write_failed: Arc<AtomicBool>,
}

impl Process {
    /// Starts `program` with `args` (in `dir`, if given) with piped stdin and stdout; stderr is
    /// appended to the file `stderr_log`, or discarded without one.
    pub fn spawn(
        program: &Path,
        args: &[String],
        dir: Option<&Path>,
        stderr_log: Option<&Path>,
    ) -> std::io::Result<Process> {
        let stderr = match stderr_log {
            Some(path) => Stdio::from(std::fs::File::options().create(true).append(true).open(path).map_err(|e| {
                std::io::Error::new(e.kind(), format!("cannot open the stderr log {}: {e}", path.display()))
            })?),
            None => Stdio::null(),
        };
        let mut cmd = Command::new(program);
        cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(stderr);
        if let Some(dir) = dir {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn()?;
        let stdin = child.stdin.take().ok_or_else(|| std::io::Error::other("no stdin pipe"))?;
        let stdout = child.stdout.take().ok_or_else(|| std::io::Error::other("no stdout pipe"))?;
        let (line_tx, from_engine) = mpsc::channel();
        let (to_engine, write_rx) = mpsc::channel();
        let write_failed = Arc::new(AtomicBool::new(false));
        std::thread::Builder::new().name("engine-reader".into()).spawn(move || read_lines(stdout, line_tx))?;
        let failed = Arc::clone(&write_failed);
        std::thread::Builder::new().name("engine-writer".into()).spawn(move || write_lines(stdin, write_rx, failed))?;
        Ok(Process { child, to_engine: Some(to_engine), from_engine, write_failed })
    }

    /// Closes the engine's input (a worker ends at the end of its input), waits up to `grace`
    /// for it to exit, then makes sure it is gone.
    pub fn close(&mut self, grace: Duration) {
        self.to_engine = None;
        let end = Instant::now() + grace;
        while Instant::now() < end {
            if !matches!(self.child.try_wait(), Ok(None)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }

    fn kill(&mut self) {
        self.to_engine = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl EngineIo for Process {
    fn send(&mut self, line: &str) -> Result<(), IoFailure> {
        if self.write_failed.load(Ordering::Relaxed) {
            return Err(IoFailure::Closed);
        }
        let sender = self.to_engine.as_ref().ok_or(IoFailure::Closed)?;
        sender.send(line.to_string()).map_err(|_| IoFailure::Closed)
    }

    fn recv(&mut self, deadline: Instant) -> Result<String, IoFailure> {
        let wait = deadline.saturating_duration_since(Instant::now());
        self.from_engine.recv_timeout(wait).map_err(|e| match e {
            RecvTimeoutError::Timeout => IoFailure::Timeout,
            RecvTimeoutError::Disconnected => IoFailure::Closed,
        })
    }

    fn try_recv(&mut self) -> Result<Option<String>, IoFailure> {
        match self.from_engine.try_recv() {
            Ok(line) => Ok(Some(line)),
            Err(TryRecvError::Empty) => Ok(None),
            Err(TryRecvError::Disconnected) => Err(IoFailure::Closed),
        }
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None)) && !self.write_failed.load(Ordering::Relaxed)
    }

    fn shutdown(&mut self, grace: Duration) {
        let _ = self.send("quit");
        self.close(grace);
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Forwards the engine's output line by line (lossily decoded, `\r` trimmed) until it closes.
fn read_lines(stdout: ChildStdout, tx: Sender<String>) {
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                while matches!(buf.last(), Some(b'\n' | b'\r')) {
                    buf.pop();
                }
                if tx.send(String::from_utf8_lossy(&buf).into_owned()).is_err() {
                    return;
                }
            }
        }
    }
}

/// Writes queued lines to the engine until the queue closes or a write fails.
fn write_lines(mut stdin: ChildStdin, rx: Receiver<String>, failed: Arc<AtomicBool>) {
    for line in rx {
        let ok = stdin.write_all(line.as_bytes()).and_then(|_| stdin.write_all(b"\n")).and_then(|_| stdin.flush());
        if ok.is_err() {
            failed.store(true, Ordering::Relaxed);
            return;
        }
    }
}
