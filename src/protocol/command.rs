//! Parsing one input line into a [`Command`]. Pure and total: every string gives a command,
//! nothing (a blank line), or an error with a message for `info string error: ...`.

use crate::core::Color;
use crate::search::Limits;

/// A parsed input line.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Command {
    /// `uci`.
    Uci,
    /// `debug on|off` (accepted; Murk has no debug mode).
    Debug(bool),
    /// `isready`.
    IsReady,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// The option name (may contain spaces).
        name: String,
        /// The value, if given (may contain spaces).
        value: Option<String>,
    },
    /// `ucinewgame`.
    UciNewGame,
    /// `position startpos` (`None`) or `position fen <fen>`.
    Position(Option<String>),
    /// `side white|black`.
    Side(Color),
    /// `observe <view> [captured <square> <letter>] [try]`: the arguments, unparsed.
    Observe(String),
    /// `bounce <square>`.
    Bounce(String),
    /// `gameover <result> <reason>`.
    GameOver {
        /// `1-0`, `0-1` or `1/2-1/2`.
        result: String,
        /// The reason word.
        reason: String,
    },
    /// `go ...`.
    Go(Go),
    /// `stop`.
    Stop,
    /// `quit`.
    Quit,
}

/// The parameters of a `go`.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Go {
    /// Clocks, budgets and `infinite` (`searchmoves` and the overhead are filled in later).
    pub limits: Limits,
    /// The `searchmoves` list as written.
    pub searchmoves: Vec<String>,
}

/// A line that is not a well-formed command.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CommandError {
    /// What is wrong.
    pub message: String,
    /// True if the line was a `go`: it still gets its one `bestmove` (`0000`).
    pub is_go: bool,
}

fn error<T>(message: impl Into<String>) -> Result<T, CommandError> {
    Err(CommandError { message: message.into(), is_go: false })
}

/// Parses one line (without its line ending). `Ok(None)` for a blank line.
pub fn parse(line: &str) -> Result<Option<Command>, CommandError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((&word, args)) = tokens.split_first() else { return Ok(None) };
    let no_args = |cmd: Command| match args {
        [] => Ok(Some(cmd)),
        _ => error(format!("'{word}' takes no arguments, got '{}'", args.join(" "))),
    };
    match word {
        "uci" => no_args(Command::Uci),
        "isready" => no_args(Command::IsReady),
        "ucinewgame" => no_args(Command::UciNewGame),
        "stop" => no_args(Command::Stop),
        "quit" => no_args(Command::Quit),
        "debug" => match args {
            ["on"] => Ok(Some(Command::Debug(true))),
            ["off"] => Ok(Some(Command::Debug(false))),
            _ => error("expected 'debug on' or 'debug off'"),
        },
        "setoption" => parse_setoption(args).map(Some),
        "position" => parse_position(args).map(Some),
        "side" => match args {
            [name] => match Color::from_name(name) {
                Some(color) => Ok(Some(Command::Side(color))),
                None => error(format!("unknown side '{name}' (expected white or black)")),
            },
            _ => error("expected 'side white' or 'side black'"),
        },
        "observe" if args.is_empty() => error("'observe' needs a view"),
        "observe" => Ok(Some(Command::Observe(args.join(" ")))),
        "bounce" => match args {
            [sq] => Ok(Some(Command::Bounce(sq.to_string()))),
            _ => error("expected 'bounce <square>'"),
        },
        "gameover" => match args {
            [result, reason] => Ok(Some(Command::GameOver { result: result.to_string(), reason: reason.to_string() })),
            _ => error("expected 'gameover <result> <reason>'"),
        },
        "go" => parse_go(args).map(|go| Some(Command::Go(go))).map_err(|message| CommandError { message, is_go: true }),
        _ => error(format!("unknown command '{word}'")),
    }
}

fn parse_setoption(args: &[&str]) -> Result<Command, CommandError> {
    let ["name", rest @ ..] = args else { return error("expected 'setoption name <name> [value <value>]'") };
    let (name, value) = match rest.iter().position(|&t| t == "value") {
        Some(i) => (&rest[..i], Some(rest[i + 1..].join(" "))),
        None => (rest, None),
    };
    if name.is_empty() {
        return error("setoption: missing option name");
    }
    Ok(Command::SetOption { name: name.join(" "), value })
}

fn parse_position(args: &[&str]) -> Result<Command, CommandError> {
    if args.contains(&"moves") {
        return error("position: no 'moves' list in a fog game (the engine is told observations instead)");
    }
    match args {
        ["startpos"] => Ok(Command::Position(None)),
        ["fen", fen @ ..] if !fen.is_empty() => Ok(Command::Position(Some(fen.join(" ")))),
        _ => error("expected 'position startpos' or 'position fen <fen>'"),
    }
}

/// The `go` keywords that take a number, and where they go.
fn number_slot<'a>(limits: &'a mut Limits, key: &str) -> Option<&'a mut Option<u64>> {
    Some(match key {
        "wtime" => &mut limits.wtime,
        "btime" => &mut limits.btime,
        "winc" => &mut limits.winc,
        "binc" => &mut limits.binc,
        "movestogo" => &mut limits.movestogo,
        "movetime" => &mut limits.movetime,
        "nodes" => &mut limits.nodes,
        _ => return None,
    })
}

fn parse_go(args: &[&str]) -> Result<Go, String> {
    let mut go = Go::default();
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        i += 1;
        if let Some(slot) = number_slot(&mut go.limits, key) {
            let text = args.get(i).ok_or_else(|| format!("go: '{key}' needs a number"))?;
            // Clocks may run below zero in some GUIs; a negative time counts as none left.
            let n = text.parse::<i64>().map_err(|_| format!("go: '{key}' needs a number, got '{text}'"))?.max(0);
            if slot.replace(n as u64).is_some() {
                return Err(format!("go: '{key}' given twice"));
            }
            i += 1;
            continue;
        }
        match key {
            "infinite" if !go.limits.infinite => go.limits.infinite = true,
            "searchmoves" if go.searchmoves.is_empty() => {
                while let Some(&m) = args.get(i).filter(|t| !is_go_keyword(t)) {
                    go.searchmoves.push(m.to_string());
                    i += 1;
                }
                if go.searchmoves.is_empty() {
                    return Err("go: 'searchmoves' needs at least one move".into());
                }
            }
            "ponder" | "depth" | "mate" => return Err(format!("go: '{key}' is not supported")),
            _ => return Err(format!("go: unexpected '{key}'")),
        }
    }
    Ok(go)
}

fn is_go_keyword(token: &str) -> bool {
    matches!(
        token,
        "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "movetime"
            | "nodes"
            | "infinite"
            | "searchmoves"
            | "ponder"
            | "depth"
            | "mate"
    )
}
