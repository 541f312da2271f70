//! One engine process's state between protocol commands, with no I/O and no threads: the
//! options, the agreed start position, the game in progress (the engine's information state and
//! its searcher), and the steps of a search request.
//!
//! The protocol front end parses lines and calls these methods; every method either applies its
//! command completely or returns an error and changes nothing.

use super::options::{EngineOptions, OptionError, OptionName};
use crate::core::{Color, Move, MoveKind, Role, Square, Variant};
use crate::rules::{Castling, Position};
use crate::search::{Limits, SearchInfo, Searcher};
use crate::view::{InfoError, InfoState};
use crate::view::{Observation, ObservationParseError};
use std::sync::atomic::AtomicBool;

/// Why a command could not be applied (the session is unchanged).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// `side` before any `position`.
    #[error("no position: send 'position startpos' or 'position fen <fen>' first")]
    NoPosition,
    /// A game command before `position` and `side`.
    #[error("no game in progress: send 'position' and 'side' first")]
    NoGame,
    /// A state-changing command while a search runs (the front end stops the search first).
    #[error("a search is running")]
    Searching,
    /// A bad `setoption`.
    #[error("{0}")]
    Option(#[from] OptionError),
    /// A `position fen` that does not parse for the current variant.
    #[error("bad FEN for {variant}: {message}")]
    Fen {
        /// The variant in force.
        variant: Variant,
        /// What is wrong.
        message: String,
    },
    /// An `observe` line that does not parse.
    #[error("bad observe: {0}")]
    Observation(#[from] ObservationParseError),
    /// An observation or bounce that the information state rejects.
    #[error("{0}")]
    Info(#[from] InfoError),
    /// A square that is not on this board.
    #[error("bad square '{0}'")]
    BadSquare(String),
    /// A `searchmoves` entry that does not parse or is not legal from the engine's view.
    #[error("searchmoves: '{0}' is not a legal move from our view")]
    BadSearchMove(String),
    /// A `go` the engine cannot answer with a move.
    #[error("cannot move: {0}")]
    CannotMove(String),
    /// A `gameover` whose result or reason is malformed or contradictory.
    #[error("bad gameover: {0}")]
    GameOver(String),
    /// The searcher failed to produce a legal move.
    #[error("search failed: {0}")]
    SearchFailed(String),
}

/// The game in progress.
struct GameState {
    info: InfoState,
    /// `None` while a search runs (the worker owns it).
    searcher: Option<Box<dyn Searcher>>,
}

/// The engine's state between commands.
pub struct Session {
    options: EngineOptions,
    start: Option<Position>,
    game: Option<GameState>,
}

/// A search handed to a worker: the searcher, a copy of the information state, the limits.
pub struct SearchJob {
    /// The game's searcher, lent to the worker.
    pub searcher: Box<dyn Searcher>,
    /// The engine's information state when the search started.
    pub info: InfoState,
    /// The `go` limits, overhead and resolved `searchmoves` included.
    pub limits: Limits,
}

/// What a finished search gives back to the session.
pub struct SearchDone {
    /// The searcher, or `None` if it panicked (the session builds a fresh one).
    pub searcher: Option<Box<dyn Searcher>>,
    /// The move it chose.
    pub best: Option<Move>,
}

/// The move to announce with `bestmove` (`None`: `0000`) and an error to report first, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BestMove {
    /// The move, already recorded as sent in the information state.
    pub mv: Option<Move>,
    /// Something went wrong on the way (reported as `info string error: ...`).
    pub error: Option<SessionError>,
}

impl SearchJob {
    /// Runs the search; `report` receives its progress.
    pub fn run(mut self, stop: &AtomicBool, report: &mut dyn FnMut(SearchInfo)) -> SearchDone {
        let best = self.searcher.search(&self.info, &self.limits, stop, report);
        SearchDone { searcher: Some(self.searcher), best }
    }
}

impl Default for Session {
    fn default() -> Self {
        Session::new(EngineOptions::default())
    }
}

impl Session {
    /// A session with these options and no game.
    pub fn new(options: EngineOptions) -> Session {
        Session { options, start: None, game: None }
    }

    /// The current options.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// The engine's information state, once a game has started.
    pub fn info(&self) -> Option<&InfoState> {
        self.game.as_ref().map(|g| &g.info)
    }

    /// The variant of the game in progress, else the `UCI_Variant` option.
    pub fn variant(&self) -> Variant {
        self.info().map_or(self.options.variant, InfoState::variant)
    }

    /// True while a search holds the game's searcher.
    pub fn is_searching(&self) -> bool {
        self.game.as_ref().is_some_and(|g| g.searcher.is_none())
    }

    fn idle(&self) -> Result<(), SessionError> {
        if self.is_searching() {
            return Err(SessionError::Searching);
        }
        Ok(())
    }

    /// `setoption`. A new `UCI_Variant` ends the game and forgets the position; the other options
    /// apply from the next game (`side`), except `Move Overhead`, which applies from the next `go`.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), SessionError> {
        self.idle()?;
        let before = self.options.variant;
        if self.options.set(name, value)? == OptionName::Variant && self.options.variant != before {
            self.start = None;
            self.game = None;
        }
        Ok(())
    }

    /// `ucinewgame`: forgets the position and the game.
    pub fn new_game(&mut self) -> Result<(), SessionError> {
        self.idle()?;
        self.start = None;
        self.game = None;
        Ok(())
    }

    /// `position startpos` (`fen` is `None`) or `position fen <fen>`: the start position of the
    /// next game, in the `UCI_Variant` in force. Ends any game in progress.
    pub fn set_position(&mut self, fen: Option<&str>) -> Result<(), SessionError> {
        self.idle()?;
        let variant = self.options.variant;
        let start = match fen {
            None => Position::start(variant),
            Some(fen) => {
                Position::from_fen(variant, fen).map_err(|e| SessionError::Fen { variant, message: e.to_string() })?
            }
        };
        self.start = Some(start);
        self.game = None;
        Ok(())
    }

    /// `side <color>`: starts a game from the last position with the engine playing `side`, and
    /// builds the game's searcher from the options now in force.
    pub fn set_side(&mut self, side: Color) -> Result<(), SessionError> {
        self.idle()?;
        let start = self.start.clone().ok_or(SessionError::NoPosition)?;
        let searcher = (self.options.player_entry().make)(&self.options.search_config(side));
        self.game = Some(GameState { info: InfoState::new(start, side), searcher: Some(searcher) });
        Ok(())
    }

    fn game_mut(&mut self) -> Result<&mut GameState, SessionError> {
        self.idle()?;
        self.game.as_mut().ok_or(SessionError::NoGame)
    }

    /// `observe <args>`: the observation after the next ply, or (ending in `start`) the start view.
    pub fn observe(&mut self, args: &str) -> Result<(), SessionError> {
        let game = self.game_mut()?;
        let info = &mut game.info;
        if info.is_finished() {
            return Err(InfoError::GameOver.into());
        }
        if let Some(view) = args.trim_end().strip_suffix(" start") {
            let obs = Observation::parse_args(info.variant(), info.side(), view)?;
            info.check_start_view(&obs)?;
            return Ok(());
        }
        let obs = Observation::parse_args(info.variant(), info.side(), args)?;
        info.observe(obs)?;
        Ok(())
    }

    /// `bounce <square>`: the engine's drop onto that square bounced.
    pub fn bounce(&mut self, square: &str) -> Result<(), SessionError> {
        let game = self.game_mut()?;
        let variant = game.info.variant();
        let sq = Square::parse(square)
            .filter(|&s| variant.board_mask().contains(s))
            .ok_or_else(|| SessionError::BadSquare(square.to_string()))?;
        game.info.bounce(sq)?;
        Ok(())
    }

    /// `gameover <result> <reason>`: the game is over; nothing more is applied to it.
    pub fn game_over(&mut self, result: &str, reason: &str) -> Result<(), SessionError> {
        let game = self.game_mut()?;
        if game.info.is_finished() {
            return Err(SessionError::GameOver("the game is already over".into()));
        }
        check_game_over(game.info.variant(), result, reason)?;
        game.info.finish();
        Ok(())
    }

    /// `go`: checks that the engine can move now, resolves `searchmoves`, fills in the move
    /// overhead, and lends the searcher to the returned job until [`Session::end_search`].
    pub fn begin_search(&mut self, mut limits: Limits, searchmoves: &[String]) -> Result<SearchJob, SessionError> {
        let overhead = self.options.move_overhead_ms;
        let game = self.game_mut()?;
        let info = &game.info;
        let cannot = |why: String| Err(SessionError::CannotMove(why));
        if info.is_finished() {
            return cannot("the game is over".into());
        }
        if !info.is_our_turn() {
            return cannot("it is not our turn".into());
        }
        if let Some(m) = info.pending_move() {
            let m = m.to_uci(info.variant());
            return cannot(format!("our move {m} still awaits its observe or bounce"));
        }
        let legal = info.legal_moves();
        if legal.is_empty() {
            return cannot("we have no legal move".into());
        }
        limits.searchmoves = Vec::with_capacity(searchmoves.len());
        for text in searchmoves {
            let m = resolve_move(info, text).ok_or_else(|| SessionError::BadSearchMove(text.clone()))?;
            if !limits.searchmoves.contains(&m) {
                limits.searchmoves.push(m);
            }
        }
        limits.overhead_ms = overhead;
        let searcher = game.searcher.take().expect("idle() checked that the searcher is home");
        Ok(SearchJob { searcher, info: game.info.clone(), limits })
    }

    /// Takes back the searcher and records the chosen move as sent. A searcher that chose no
    /// move or an illegal one is reported, and the first legal move is sent instead.
    pub fn end_search(&mut self, done: SearchDone) -> BestMove {
        let options = &self.options;
        let Some(game) = self.game.as_mut().filter(|g| g.searcher.is_none()) else {
            return BestMove { mv: None, error: Some(SessionError::NoGame) };
        };
        let config = options.search_config(game.info.side());
        game.searcher = Some(done.searcher.unwrap_or_else(|| (options.player_entry().make)(&config)));
        let info = &mut game.info;
        let variant = info.variant();
        let mut error = None;
        let chosen = match done.best {
            Some(m) if info.legal_moves().contains(&m) => Some(m),
            other => {
                let what = other.map_or("no move".to_string(), |m| format!("{} (not legal)", m.to_uci(variant)));
                error = Some(SessionError::SearchFailed(format!("the search returned {what}")));
                info.legal_moves().first().copied()
            }
        };
        let mv = chosen.and_then(|m| info.send_move(m).ok());
        BestMove { mv, error }
    }
}

/// Reads a move in the game's notation and finds it among the legal moves; the king taking its
/// own rook (`e1h1`) is read as castling.
pub fn resolve_move(info: &InfoState, text: &str) -> Option<Move> {
    let wanted = Move::parse(text, info.variant()).ok()?;
    let legal = info.legal_moves();
    let same = |m: &Move, w: Move| {
        m.from == w.from
            && m.to == w.to
            && match (m.kind, w.kind) {
                (MoveKind::Promotion(a), MoveKind::Promotion(b)) | (MoveKind::Drop(a), MoveKind::Drop(b)) => a == b,
                (MoveKind::Promotion(_) | MoveKind::Drop(_), _) | (_, MoveKind::Promotion(_) | MoveKind::Drop(_)) => {
                    false
                }
                _ => true,
            }
    };
    if let Some(&m) = legal.iter().find(|m| same(m, wanted)) {
        return Some(m);
    }
    let side = info.side();
    let king_home = Castling::king_square(side);
    let on_own_rook = wanted.kind == MoveKind::Normal
        && wanted.from == king_home
        && info.view().pieces(side, Role::King).contains(king_home)
        && info.view().pieces(side, Role::Rook).contains(wanted.to);
    let castle_to = [(true, 6), (false, 2)]
        .into_iter()
        .find(|&(king_side, _)| wanted.to == Castling::rook_square(side, king_side))
        .map(|(_, file)| Square::from_coords(file, king_home.rank()));
    match castle_to {
        Some(to) if on_own_rook => legal.iter().copied().find(|m| m.kind == MoveKind::Castle && m.to == to),
        _ => None,
    }
}

/// Checks a `gameover` line's result and reason against each other and the rules.
fn check_game_over(variant: Variant, result: &str, reason: &str) -> Result<(), SessionError> {
    let decisive = match result {
        "1-0" | "0-1" => true,
        "1/2-1/2" => false,
        _ => return Err(SessionError::GameOver(format!("result '{result}' is not 1-0, 0-1 or 1/2-1/2"))),
    };
    let word_ok = !reason.is_empty()
        && reason.len() <= 64
        && reason.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !word_ok {
        return Err(SessionError::GameOver(format!("reason '{reason}' is not a word of a-z, 0-9 and '-'")));
    }
    let needs_decisive = match reason {
        "king-captured" | "try-completed" => Some(true),
        "no-legal-move" => Some(variant.no_move_loses()),
        "repetition" | "no-progress" => Some(false),
        _ => None,
    };
    if reason == "try-completed" && !variant.has_try() {
        return Err(SessionError::GameOver(format!("{variant} has no Try")));
    }
    match needs_decisive {
        Some(d) if d != decisive => Err(SessionError::GameOver(format!("{result} cannot end a game by {reason}"))),
        _ => Ok(()),
    }
}
