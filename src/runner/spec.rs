//! Engine specifications as `murk match --engine` takes them, in the manner of cutechess-cli:
//! a command line whose words may include `cmd=`, `name=`, `dir=`, `arg=`, `proto=`, `stderr=`,
//! `st=`, `tc=` and `option.X=Y` settings, or a built-in player `builtin:random`,
//! `builtin:greedy`, `builtin:murk`.
//!
//! Words are split on whitespace; single or double quotes keep spaces inside one word
//! (`option.Book="my book.bin"`). A word `key=value` is a setting only for the keys above; any
//! other word is part of the command line (the first is the program, unless `cmd=` gave it).
//! A built-in runs the `murk` binary itself with `setoption name Player value <kind>`, so every
//! engine, built-in or not, is played through the same process-based code path.
//!
//! `proto=uci` (the default) is the line protocol; `proto=mistboard` runs the command as a
//! Mistboard stdio worker (one JSON envelope per line, protocol.md 12.1), and `url=http://HOST:PORT`
//! names a Mistboard HTTP engine instead of a command (`token=FILE`: its bearer token).

use super::clock::TimeControl;
use crate::process::Process;
use std::path::PathBuf;

/// The built-in players a spec may name.
pub const BUILTINS: [&str; 3] = ["random", "greedy", "murk"];

/// The protocol an engine speaks, and where it is reached.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub enum Protocol {
    /// The line protocol of protocol.md (UCI-like), over the program's stdin and stdout.
    #[default]
    Lines,
    /// Mistboard's engine protocol, the program being a stdio worker (`proto=mistboard`).
    MistboardStdio,
    /// Mistboard's engine protocol over HTTP (`url=`): `POST <url>/internal/engine/turn`.
    MistboardHttp {
        /// The engine's base URL, `http://host:port` (no trailing slash).
        url: String,
    },
}

impl Protocol {
    /// True for the two forms of Mistboard's engine protocol.
    pub fn is_mistboard(&self) -> bool {
        !matches!(self, Protocol::Lines)
    }
}

/// How to start one engine and what to tell it before its first game.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct EngineSpec {
    /// The program to run.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The working directory, if not the runner's.
    pub dir: Option<PathBuf>,
    /// The display name (`name=`); without one, the built-in's kind or the engine's `id name`.
    pub name: Option<String>,
    /// `setoption` pairs sent after the handshake, in order (for built-ins, `Player` first).
    pub options: Vec<(String, String)>,
    /// The built-in kind, for `builtin:*` specs.
    pub builtin: Option<String>,
    /// This engine's own time control (`st=<seconds per move>` or `tc=<base+inc>`, as in
    /// cutechess), overriding the match's.
    pub tc: Option<TimeControl>,
    /// The file the engine's stderr is appended to (`stderr=FILE` or `--engine-log DIR`);
    /// without one it is discarded.
    pub stderr: Option<PathBuf>,
    /// The protocol it speaks (`proto=`, `url=`).
    pub protocol: Protocol,
    /// A file holding the bearer token of a Mistboard HTTP engine (`token=FILE`).
    pub token_file: Option<PathBuf>,
}

/// A spec that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// Nothing names the program to run.
    #[error("engine spec '{0}' names no command")]
    NoCommand(String),
    /// A quote is not closed.
    #[error("unclosed quote in engine spec '{0}'")]
    Quote(String),
    /// `builtin:` names an unknown player.
    #[error("unknown built-in '{0}' (expected builtin:random, builtin:greedy or builtin:murk)")]
    UnknownBuiltin(String),
    /// An `option.X=Y` setting without a name.
    #[error("malformed option setting '{0}' (expected option.NAME=VALUE)")]
    Option(String),
    /// A malformed `st=` or `tc=` setting.
    #[error("bad time setting '{0}' (expected st=<seconds per move> or tc=<base+inc>)")]
    Setting(String),
    /// An unknown `proto=`, a `url=` that is not `http://`, or settings that do not go together.
    #[error("{0}")]
    Protocol(String),
}

impl EngineSpec {
    /// Parses `text`; built-ins run `murk_exe` (normally the running binary).
    pub fn parse(text: &str, murk_exe: &std::path::Path) -> Result<EngineSpec, SpecError> {
        let words = split_words(text).ok_or_else(|| SpecError::Quote(text.to_string()))?;
        let mut spec = EngineSpec::default();
        let mut program: Option<String> = None;
        let mut proto: Option<String> = None;
        for word in words {
            if let Some(value) = word.strip_prefix("proto=") {
                proto = Some(value.to_string());
                continue;
            }
            if let Some(kind) = word.strip_prefix("builtin:") {
                if !BUILTINS.contains(&kind) {
                    return Err(SpecError::UnknownBuiltin(kind.to_string()));
                }
                spec.builtin = Some(kind.to_string());
                spec.options.insert(0, ("Player".to_string(), kind.to_string()));
                program = Some(murk_exe.display().to_string());
                continue;
            }
            if !spec.apply_setting(&word, &mut program)? {
                match program {
                    None => program = Some(word),
                    Some(_) => spec.args.push(word),
                }
            }
        }
        let bad = |why: String| Err(SpecError::Protocol(format!("engine spec '{text}': {why}")));
        if let Some(other) = proto.as_deref().filter(|p| !["uci", "mistboard"].contains(p)) {
            return bad(format!("unknown proto={other} (expected uci or mistboard)"));
        }
        if matches!(spec.protocol, Protocol::MistboardHttp { .. }) {
            if proto.as_deref() == Some("uci") || program.is_some() || spec.builtin.is_some() {
                return bad("url= names a Mistboard HTTP engine: it takes no command and no proto=uci".into());
            }
            return Ok(spec);
        }
        if proto.as_deref() == Some("mistboard") {
            if spec.builtin.is_some() {
                return bad("a built-in speaks the line protocol (`murk serve --stdio` is Murk as a worker)".into());
            }
            spec.protocol = Protocol::MistboardStdio;
        }
        if spec.token_file.is_some() {
            return bad("token= belongs to an HTTP engine (url=)".into());
        }
        spec.program = PathBuf::from(program.ok_or_else(|| SpecError::NoCommand(text.to_string()))?);
        Ok(spec)
    }

    /// Applies `word` if it is a setting; returns false for a plain command-line word.
    fn apply_setting(&mut self, word: &str, program: &mut Option<String>) -> Result<bool, SpecError> {
        let Some((key, value)) = word.split_once('=') else { return Ok(false) };
        match key {
            "cmd" => *program = Some(value.to_string()),
            "name" => self.name = Some(value.to_string()),
            "dir" => self.dir = Some(PathBuf::from(value)),
            "stderr" => self.stderr = Some(PathBuf::from(value)),
            "arg" => self.args.push(value.to_string()),
            "tc" => self.tc = Some(TimeControl::parse_tc(value).map_err(|_| SpecError::Setting(word.to_string()))?),
            "st" => {
                let secs: f64 = value
                    .parse()
                    .ok()
                    .filter(|s: &f64| *s > 0.0)
                    .ok_or_else(|| SpecError::Setting(word.to_string()))?;
                self.tc = Some(TimeControl::MoveTime((secs * 1000.0).round() as u64));
            }
            "token" => self.token_file = Some(PathBuf::from(value)),
            "url" => {
                let url = value.trim_end_matches('/');
                if !url.starts_with("http://") || url.len() <= "http://".len() {
                    return Err(SpecError::Protocol(format!(
                        "url={value}: expected http://HOST:PORT (Murk speaks plain HTTP to engines)"
                    )));
                }
                self.protocol = Protocol::MistboardHttp { url: url.to_string() };
            }
            _ => match key.strip_prefix("option.") {
                Some("") => return Err(SpecError::Option(word.to_string())),
                Some(name) => self.options.push((name.to_string(), value.to_string())),
                None => return Ok(false),
            },
        }
        Ok(true)
    }

    /// The program, or the URL of an HTTP engine, for messages.
    pub fn describe(&self) -> String {
        match &self.protocol {
            Protocol::MistboardHttp { url } => url.clone(),
            _ => self.program.display().to_string(),
        }
    }

    /// The name to show when neither `name=` nor the engine's `id name` gives one.
    pub fn fallback_name(&self) -> String {
        if let Some(kind) = &self.builtin {
            return kind.clone();
        }
        if let Protocol::MistboardHttp { url } = &self.protocol {
            return url.trim_start_matches("http://").to_string();
        }
        self.program.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "engine".to_string())
    }

    /// Starts the spec's program as a child process: its arguments, in its directory, stderr
    /// appended to its log file (or discarded without one).
    pub fn spawn(&self) -> std::io::Result<Process> {
        Process::spawn(&self.program, &self.args, self.dir.as_deref(), self.stderr.as_deref())
    }
}

/// Gives every spec without a `stderr=` file the log `dir/<label>.log`, where the label is its
/// `name=`, its built-in kind or its program's file name (a label already taken gets `-2`, ...).
pub fn assign_logs(specs: &mut [EngineSpec], dir: &std::path::Path) {
    let mut taken: Vec<String> = Vec::new();
    for spec in specs.iter_mut() {
        let base = spec.name.clone().unwrap_or_else(|| spec.fallback_name());
        let label = unique_name(&base, &taken);
        if spec.stderr.is_none() {
            spec.stderr = Some(dir.join(format!("{label}.log")));
        }
        taken.push(label);
    }
}

/// `name`, or `name-2`, `name-3`, ... if `taken` already holds it.
pub fn unique_name(name: &str, taken: &[String]) -> String {
    (1..)
        .map(|n| if n == 1 { name.to_string() } else { format!("{name}-{n}") })
        .find(|candidate| !taken.contains(candidate))
        .unwrap_or_else(|| name.to_string())
}

/// Splits `text` into words on whitespace, honouring single and double quotes; `None` if a
/// quote is left open.
pub fn split_words(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return None;
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}
