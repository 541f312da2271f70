//! Test harness for the protocol: the real `murk` binary as a subprocess, and a small referee
//! that plays a true game against it, sending it exactly what protocol.md says.

use murk::core::role_value;
use murk::core::{Color, Move, Role, Variant};
use murk::engine::Session;
use murk::rules::{Game, Played, Position};
use murk::view::Observation;
use rand::seq::SliceRandom;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long to wait for an expected line before failing (a hang is a failure, not a pause).
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(10);

/// How an engine ended.
pub enum Exit {
    /// The `murk` process exited.
    Process(ExitStatus),
    /// The in-process front end returned (or panicked).
    Thread(Result<(), String>),
}

impl Exit {
    /// True for exit status 0 / a clean return.
    pub fn success(&self) -> bool {
        match self {
            Exit::Process(status) => status.success(),
            Exit::Thread(result) => result.is_ok(),
        }
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exit::Process(status) => write!(f, "{status}"),
            Exit::Thread(result) => write!(f, "{result:?}"),
        }
    }
}

/// The input end of an in-process engine: bytes go through a channel.
struct ChannelReader {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.pos == self.buf.len() {
            match self.rx.recv() {
                Ok(bytes) => (self.buf, self.pos) = (bytes, 0),
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The feeding end of a [`ChannelReader`].
struct ChannelWriter(Sender<Vec<u8>>);

impl Write for ChannelWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.send(bytes.to_vec()).map_err(|_| std::io::ErrorKind::BrokenPipe)?;
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The output end of an in-process engine: complete lines go through a channel.
struct LineSender {
    tx: Sender<String>,
    partial: Vec<u8>,
}

impl Write for LineSender {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        for &b in bytes {
            if b == b'\n' {
                let line = String::from_utf8(std::mem::take(&mut self.partial)).expect("UTF-8 output");
                let _ = self.tx.send(line);
            } else {
                self.partial.push(b);
            }
        }
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A `murk` engine speaking the protocol (a process, or the front end on a thread); keeps a
/// transcript (`> ` sent, `< ` received).
pub struct Engine {
    child: Option<Child>,
    thread: Option<JoinHandle<std::io::Result<()>>>,
    stdin: Option<Box<dyn Write + Send>>,
    lines: Receiver<String>,
    /// Everything sent and received, in order.
    pub transcript: Vec<String>,
}

impl Engine {
    /// Starts `murk` with no arguments.
    pub fn start() -> Engine {
        Engine::start_with(&[], &[])
    }

    /// Starts `murk` with these arguments and extra environment variables.
    pub fn start_with(args: &[&str], envs: &[(&str, &str)]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_murk"))
            .args(args)
            .envs(envs.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start murk");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin: Option<Box<dyn Write + Send>> = Some(Box::new(child.stdin.take().expect("piped stdin")));
        Engine { child: Some(child), thread: None, stdin, lines, transcript: Vec::new() }
    }

    /// Runs the protocol front end of the library on a thread, with this session.
    pub fn in_process_with(session: Session) -> Engine {
        let (in_tx, in_rx) = channel();
        let (out_tx, lines) = channel();
        let reader = BufReader::new(ChannelReader { rx: in_rx, buf: Vec::new(), pos: 0 });
        let writer = LineSender { tx: out_tx, partial: Vec::new() };
        let thread = std::thread::spawn(move || murk::protocol::run(session, reader, writer));
        let stdin: Option<Box<dyn Write + Send>> = Some(Box::new(ChannelWriter(in_tx)));
        Engine { child: None, thread: Some(thread), stdin, lines, transcript: Vec::new() }
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        self.transcript.push(format!("> {line}"));
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").and_then(|_| stdin.flush()).expect("write to murk");
    }

    /// Sends raw bytes (for garbage that is not UTF-8); not recorded.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).and_then(|_| stdin.flush()).expect("write to murk");
    }

    /// The next output line; fails after [`REPLY_TIMEOUT`] or at end of output.
    pub fn recv(&mut self) -> String {
        match self.lines.recv_timeout(REPLY_TIMEOUT) {
            Ok(line) => {
                self.transcript.push(format!("< {line}"));
                line
            }
            Err(RecvTimeoutError::Timeout) => panic!("no reply within {REPLY_TIMEOUT:?}; {}", self.tail()),
            Err(RecvTimeoutError::Disconnected) => panic!("murk closed its output; {}", self.tail()),
        }
    }

    /// Output lines up to and including the first one for which `last` holds.
    pub fn until(&mut self, last: impl Fn(&str) -> bool) -> Vec<String> {
        let mut got = Vec::new();
        loop {
            let line = self.recv();
            let done = last(&line);
            got.push(line);
            if done {
                return got;
            }
        }
    }

    /// Sends `isready` and returns the lines written before its `readyok`.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.until(|l| l == "readyok");
        lines.pop();
        lines
    }

    /// Sends `line` and returns the errors it caused (checked with `isready`).
    pub fn errors_after(&mut self, line: &str) -> Vec<String> {
        self.send(line);
        let lines = self.sync();
        assert!(lines.iter().all(|l| l.starts_with("info string error: ")), "unexpected output {lines:?}");
        lines
    }

    /// Sends `go <args>`; returns the lines before the `bestmove` and the move text.
    pub fn go(&mut self, args: &str) -> (Vec<String>, String) {
        self.send(format!("go {args}").trim_end());
        let mut lines = self.until(|l| l.starts_with("bestmove "));
        let best = lines.pop().expect("a bestmove line");
        (lines, best["bestmove ".len()..].to_string())
    }

    /// Closes stdin (end of input) and returns the remaining output and the exit status.
    pub fn close(mut self) -> (Vec<String>, Exit, Vec<String>) {
        self.stdin = None;
        let mut rest = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(REPLY_TIMEOUT) {
            self.transcript.push(format!("< {line}"));
            rest.push(line);
        }
        let exit = match (self.child.as_mut(), self.thread.take()) {
            (Some(child), _) => Exit::Process(child.wait().expect("murk exits")),
            (None, Some(thread)) => Exit::Thread(
                thread.join().map_err(|_| "panicked".to_string()).and_then(|r| r.map_err(|e| e.to_string())),
            ),
            (None, None) => Exit::Thread(Err("already closed".into())),
        };
        (rest, exit, std::mem::take(&mut self.transcript))
    }

    /// Sends `quit` and returns like [`Engine::close`].
    pub fn quit(mut self) -> (Vec<String>, Exit, Vec<String>) {
        self.send("quit");
        self.close()
    }

    fn tail(&self) -> String {
        let from = self.transcript.len().saturating_sub(12);
        format!("transcript tail:\n{}", self.transcript[from..].join("\n"))
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// One game between the engine and a test opponent.
pub struct Setup<'a> {
    /// The game.
    pub variant: Variant,
    /// `None` for `position startpos`.
    pub fen: Option<&'a str>,
    /// The engine's color.
    pub side: Color,
    /// `setoption` pairs sent after `uci`.
    pub options: Vec<(&'a str, String)>,
    /// The arguments of every `go`.
    pub go: &'a str,
    /// Adjudicate a draw after this many plies.
    pub max_plies: usize,
}

/// What happened in a game against the engine.
pub struct Record {
    /// The engine's stdin and stdout, `> ` and `< ` lines, with `# ` comments from the referee.
    pub transcript: Vec<String>,
    /// The true game.
    pub game: Game,
    /// The engine's bounced drops.
    pub bounces: usize,
    /// Plies in which the engine lost a piece.
    pub engine_losses: usize,
    /// Tries of the engine.
    pub tries: usize,
    /// Lines that were `info string error: ...`.
    pub errors: Vec<String>,
    /// Per ply, every move tried: the engine's bounced drops, then the move played.
    pub attempts: Vec<Vec<Move>>,
}

/// The opponent's choice: sees the true position (it is the test's referee, not a player).
pub type Opponent<'o> = dyn FnMut(&Game) -> Move + 'o;

/// An opponent that takes a king if it can, else the most valuable piece, else plays at random.
pub fn greedy_opponent(seed: u64) -> impl FnMut(&Game) -> Move {
    let mut rng = crate::support::rng(seed);
    move |game: &Game| {
        let pos = game.position();
        let moves = pos.moves();
        let value = |m: &Move| match m.kind {
            murk::core::MoveKind::Drop(_) | murk::core::MoveKind::Castle => 0.0,
            murk::core::MoveKind::EnPassant => role_value(Role::Pawn),
            _ => pos.role_at(m.to).map_or(0.0, role_value),
        };
        let best = moves.iter().map(value).fold(0.0, f64::max);
        let choices: Vec<Move> = moves.iter().copied().filter(|m| value(m) == best).collect();
        *choices.choose(&mut rng).expect("the opponent has a move")
    }
}

/// Sets up the game on a started engine: handshake, options, position, side.
pub fn open_game(mut engine: Engine, setup: &Setup) -> (Engine, Position, Vec<String>) {
    engine.send("uci");
    engine.until(|l| l == "uciok");
    for (name, value) in &setup.options {
        engine.send(&format!("setoption name {name} value {value}"));
    }
    engine.send(&format!("setoption name UCI_Variant value {}", setup.variant));
    engine.send("ucinewgame");
    let start = match setup.fen {
        Some(fen) => {
            engine.send(&format!("position fen {fen}"));
            Position::from_fen(setup.variant, fen).expect("test FEN")
        }
        None => {
            engine.send("position startpos");
            Position::start(setup.variant)
        }
    };
    engine.send(&format!("side {}", setup.side.name()));
    engine.send(&format!("observe {} start", Observation::initial(&start, setup.side).to_args()));
    let errors = engine.sync();
    (engine, start, errors)
}

/// Plays a whole game: the referee keeps the true game, the engine is told only its observations.
pub fn play(setup: &Setup, opponent: &mut Opponent) -> Record {
    play_on(Engine::start(), setup, opponent)
}

/// [`play`] against an engine already started (e.g. `murk uci-fog`).
pub fn play_on(engine: Engine, setup: &Setup, opponent: &mut Opponent) -> Record {
    let (mut engine, start, errors) = open_game(engine, setup);
    let mut game = Game::new(start);
    let mut rec = Record {
        transcript: Vec::new(),
        game: game.clone(),
        bounces: 0,
        engine_losses: 0,
        tries: 0,
        errors,
        attempts: vec![Vec::new()],
    };
    while game.outcome().is_none() && game.moves().len() < setup.max_plies {
        let mover = game.position().turn();
        let (mv, lines) = if mover == setup.side {
            let (lines, best) = engine.go(setup.go);
            let mv = Move::parse(&best, setup.variant).unwrap_or_else(|e| panic!("{e}; {}", engine.tail()));
            (mv, lines)
        } else {
            (opponent(&game), Vec::new())
        };
        rec.errors.extend(lines.into_iter().filter(|l| l.starts_with("info string error")));
        let notation = mv.to_uci(setup.variant);
        rec.attempts.last_mut().expect("current ply").push(mv);
        match game.play(mv).unwrap_or_else(|e| panic!("{e}; {}", engine.tail())) {
            Played::Bounced(sq) => {
                rec.bounces += 1;
                engine.transcript.push(format!("# {notation} bounced: {sq} holds a hidden piece"));
                engine.send(&format!("bounce {sq}"));
            }
            Played::Moved(report) => {
                let obs = Observation::after_ply(game.position(), &report, setup.side);
                let who = if mover == setup.side { "we play" } else { "the opponent plays (not sent)" };
                engine.transcript.push(format!("# {who} {notation}"));
                rec.engine_losses += usize::from(obs.captured.is_some());
                rec.tries += usize::from(obs.try_armed);
                engine.send(&format!("observe {}", obs.to_args()));
                rec.attempts.push(Vec::new());
            }
        }
    }
    match game.outcome() {
        Some(outcome) => engine.send(&format!("gameover {outcome}")),
        None => engine.send("gameover 1/2-1/2 adjudication"),
    }
    let (rest, status, transcript) = engine.quit();
    assert!(status.success(), "murk exited with {status}");
    rec.errors.extend(rest.into_iter().filter(|l| l.starts_with("info string error")));
    rec.transcript = transcript;
    rec.game = game;
    rec.attempts.pop();
    rec
}

/// The transcript as the engine saw it: no referee comments.
pub fn engine_io(transcript: &[String]) -> Vec<String> {
    transcript.iter().filter(|l| !l.starts_with('#')).cloned().collect()
}
