//! The line protocol of `protocol.md` on stdin/stdout: the only writer to stdout.
//!
//! Three kinds of thread meet here. A reader thread turns input lines into events; a worker
//! thread runs each `go`'s search and sends its progress and result as events; the front end
//! (the calling thread) handles the events one at a time, drives the [`Session`], and writes
//! every output line. So `isready` is answered at once even while a search runs, and `bestmove`
//! is written only after the move has been recorded in the information state, before any later
//! command is read.

pub mod command;

use crate::core::{Move, Variant};
use crate::engine::{SearchDone, Session};
use crate::search::SearchInfo;
use command::{Command, Go};
use std::collections::VecDeque;
use std::io::{self, BufRead, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::Instant;

/// The longest input line read; longer lines are rejected whole.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

/// The longest `info string error: ...` message written (longer ones are cut).
const MAX_ERROR_CHARS: usize = 300;

/// The engine's name and author, as `uci` reports them.
pub const ENGINE_NAME: &str = concat!("Murk ", env!("CARGO_PKG_VERSION"));
/// The author line of `uci`.
pub const ENGINE_AUTHOR: &str = "the Murk developers";

/// Something for the front end to handle.
enum Event {
    /// An input line and when it was read (a `go`'s time counts from then).
    Line(String, Instant),
    /// An input line longer than [`MAX_LINE_BYTES`].
    TooLong,
    /// The end of the input.
    Eof,
    /// Progress of the running search.
    Info(SearchInfo),
    /// The running search finished.
    Done(SearchDone),
}

/// A `go` in progress.
struct Running {
    stop: Arc<AtomicBool>,
    infinite: bool,
    stopped: bool,
    /// The result of a finished `go infinite`, held until `stop`.
    held: Option<SearchDone>,
}

/// Whether to keep reading.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// Speaks the protocol on the process's stdin and stdout until `quit` or end of input.
pub fn run_stdio(session: Session) -> io::Result<()> {
    run(session, io::BufReader::new(io::stdin()), io::stdout().lock())
}

/// Speaks the protocol on `input` and `output` until `quit` or end of input. A search still
/// running then is stopped and its `bestmove` written first.
pub fn run<R, W>(session: Session, input: R, output: W) -> io::Result<()>
where
    R: BufRead + Send + 'static,
    W: Write,
{
    let (tx, rx) = channel();
    let reader_tx = tx.clone();
    std::thread::Builder::new().name("murk-input".into()).spawn(move || read_lines(input, reader_tx))?;
    let mut frontend = Frontend { session, out: output, tx, rx, backlog: VecDeque::new(), running: None };
    frontend.main_loop()
}

/// The reader thread: one event per line, then [`Event::Eof`].
fn read_lines(mut input: impl BufRead, tx: Sender<Event>) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match (&mut input).take(MAX_LINE_BYTES).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) if buf.last() != Some(&b'\n') && buf.len() as u64 == MAX_LINE_BYTES => {
                let rest_ended = skip_line(&mut input);
                if tx.send(Event::TooLong).is_err() || !rest_ended {
                    break;
                }
            }
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf).trim_end_matches(['\n', '\r']).to_string();
                if tx.send(Event::Line(line, Instant::now())).is_err() {
                    return;
                }
            }
        }
    }
    let _ = tx.send(Event::Eof);
}

/// Discards input up to and including the next newline; false at end of input.
fn skip_line(input: &mut impl BufRead) -> bool {
    loop {
        let (consumed, found) = match input.fill_buf() {
            Ok([]) | Err(_) => return false,
            Ok(buf) => match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            },
        };
        input.consume(consumed);
        if found {
            return true;
        }
    }
}

struct Frontend<W: Write> {
    session: Session,
    out: W,
    tx: Sender<Event>,
    rx: Receiver<Event>,
    /// Input events that arrived while waiting for a search to end, in order.
    backlog: VecDeque<Event>,
    running: Option<Running>,
}

impl<W: Write> Frontend<W> {
    fn main_loop(&mut self) -> io::Result<()> {
        loop {
            let event = match self.backlog.pop_front() {
                Some(e) => e,
                None => self.rx.recv().expect("the front end holds a sender"),
            };
            let flow = match event {
                Event::Line(line, read_at) => self.line(&line, read_at)?,
                Event::TooLong => {
                    self.error(&format!("line longer than {MAX_LINE_BYTES} bytes ignored"))?;
                    Flow::Continue
                }
                Event::Eof => Flow::Quit,
                Event::Info(info) => {
                    self.write_info(&info)?;
                    Flow::Continue
                }
                Event::Done(done) => {
                    self.search_done(done)?;
                    Flow::Continue
                }
            };
            self.out.flush()?;
            if flow == Flow::Quit {
                self.stop_and_wait()?;
                return self.out.flush();
            }
        }
    }

    /// Handles one input line.
    fn line(&mut self, line: &str, read_at: Instant) -> io::Result<Flow> {
        let command = match command::parse(line) {
            Ok(None) => return Ok(Flow::Continue),
            Ok(Some(c)) => c,
            Err(e) => {
                self.error(&e.message)?;
                if e.is_go {
                    self.write_bestmove(None)?;
                }
                return Ok(Flow::Continue);
            }
        };
        match command {
            Command::Uci => self.uci()?,
            Command::IsReady => self.write("readyok")?,
            Command::Debug(_) => {}
            Command::Stop => self.stop()?,
            Command::Quit => return Ok(Flow::Quit),
            mut other => {
                if let Command::Go(go) = &mut other {
                    go.limits.started = Some(read_at);
                }
                // Every other command changes the state: a running search ends first, as on `stop`.
                self.stop_and_wait()?;
                let is_go = matches!(other, Command::Go(_));
                let outcome = catch_unwind(AssertUnwindSafe(|| self.apply(other)));
                match outcome {
                    Ok(result) => result?,
                    Err(_) => {
                        self.error(&format!("internal error while handling '{line}'"))?;
                        if is_go && self.running.is_none() {
                            self.write_bestmove(None)?;
                        }
                    }
                }
            }
        }
        Ok(Flow::Continue)
    }

    /// Applies a state-changing command (no search is running).
    fn apply(&mut self, command: Command) -> io::Result<()> {
        let s = &mut self.session;
        let result = match command {
            Command::SetOption { name, value } => s.set_option(&name, value.as_deref()),
            Command::UciNewGame => s.new_game(),
            Command::Position(fen) => s.set_position(fen.as_deref()),
            Command::Side(color) => s.set_side(color),
            Command::Observe(args) => s.observe(&args),
            Command::Bounce(square) => s.bounce(&square),
            Command::GameOver { result, reason } => s.game_over(&result, &reason),
            Command::Go(go) => return self.go(go),
            Command::Uci | Command::IsReady | Command::Debug(_) | Command::Stop | Command::Quit => Ok(()),
        };
        match result {
            Ok(()) => Ok(()),
            Err(e) => self.error(&e.to_string()),
        }
    }

    fn uci(&mut self) -> io::Result<()> {
        self.write(&format!("id name {ENGINE_NAME}"))?;
        self.write(&format!("id author {ENGINE_AUTHOR}"))?;
        for line in self.session.options().uci_lines() {
            self.write(&line)?;
        }
        self.write("uciok")
    }

    /// Starts a search on a worker thread, or answers at once when the engine cannot move.
    fn go(&mut self, go: Go) -> io::Result<()> {
        let job = match self.session.begin_search(go.limits, &go.searchmoves) {
            Ok(job) => job,
            Err(e) => {
                self.error(&e.to_string())?;
                return self.write_bestmove(None);
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        self.running =
            Some(Running { stop: Arc::clone(&stop), infinite: job.limits.infinite, stopped: false, held: None });
        let tx = self.tx.clone();
        let work = move || {
            let mut report = |info: SearchInfo| {
                let _ = tx.send(Event::Info(info));
            };
            let done = catch_unwind(AssertUnwindSafe(|| job.run(&stop, &mut report)))
                .unwrap_or(SearchDone { searcher: None, best: None });
            let _ = tx.send(Event::Done(done));
        };
        std::thread::Builder::new().name("murk-search".into()).spawn(work).map(drop)
    }

    /// A search finished: announce its move now, or hold it until `stop` in `go infinite`.
    fn search_done(&mut self, done: SearchDone) -> io::Result<()> {
        match self.running.as_mut() {
            Some(r) if r.infinite && !r.stopped => {
                r.held = Some(done);
                Ok(())
            }
            Some(_) => self.finish(done),
            None => Ok(()),
        }
    }

    fn finish(&mut self, done: SearchDone) -> io::Result<()> {
        self.running = None;
        let best = self.session.end_search(done);
        if let Some(e) = &best.error {
            self.error(&e.to_string())?;
        }
        self.write_bestmove(best.mv)
    }

    /// `stop`: raise the flag; a held result is announced at once, else when the worker ends.
    fn stop(&mut self) -> io::Result<()> {
        let Some(running) = self.running.as_mut() else { return Ok(()) };
        running.stopped = true;
        running.stop.store(true, Ordering::Relaxed);
        match running.held.take() {
            Some(done) => self.finish(done),
            None => Ok(()),
        }
    }

    /// Stops a running search and waits for its `bestmove`; input arriving meanwhile is kept.
    fn stop_and_wait(&mut self) -> io::Result<()> {
        self.stop()?;
        while self.running.is_some() {
            match self.rx.recv().expect("the front end holds a sender") {
                Event::Info(info) => self.write_info(&info)?,
                Event::Done(done) => self.search_done(done)?,
                input => self.backlog.push_back(input),
            }
        }
        Ok(())
    }

    fn variant(&self) -> Variant {
        self.session.variant()
    }

    fn write(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.out, "{line}")
    }

    /// Writes `info string error: <message>` on one line, control characters replaced.
    fn error(&mut self, message: &str) -> io::Result<()> {
        let mut clean: String =
            message.chars().map(|c| if c.is_control() { '?' } else { c }).take(MAX_ERROR_CHARS).collect();
        if message.chars().count() > MAX_ERROR_CHARS {
            clean.push_str("...");
        }
        self.write(&format!("info string error: {clean}"))
    }

    fn write_bestmove(&mut self, mv: Option<Move>) -> io::Result<()> {
        let text = mv.map_or("0000".to_string(), |m| m.to_uci(self.variant()));
        self.write(&format!("bestmove {text}"))
    }

    fn write_info(&mut self, info: &SearchInfo) -> io::Result<()> {
        match info_line(info, self.variant()) {
            Some(line) => self.write(&line),
            None => Ok(()),
        }
    }
}

/// The `info ...` line for a progress report, or `None` if it says nothing. Fields in UCI's
/// usual order: depth, score, wdl, nodes, nps, time, pv, string (newlines in the string become
/// spaces, so the report stays one line).
pub fn info_line(info: &SearchInfo, variant: Variant) -> Option<String> {
    let mut s = String::from("info");
    let mut add = |key: &str, value: Option<String>| {
        if let Some(v) = value {
            s.push_str(&format!(" {key} {v}"));
        }
    };
    add("depth", info.depth.map(|d| d.to_string()));
    add("score cp", info.score_cp.map(|c| c.to_string()));
    add("wdl", info.wdl.map(|[w, d, l]| format!("{w} {d} {l}")));
    add("nodes", info.nodes.map(|n| n.to_string()));
    add("nps", info.nps.map(|n| n.to_string()));
    add("time", info.time_ms.map(|t| t.to_string()));
    let pv: Vec<String> = info.pv.iter().map(|m| m.to_uci(variant)).collect();
    add("pv", (!pv.is_empty()).then(|| pv.join(" ")));
    add("string", info.string.as_ref().map(|t| t.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()));
    (s != "info").then_some(s)
}
