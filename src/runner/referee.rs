//! The referee: plays one game between two engines on the true position. It checks every move
//! with the rules core, answers bounces, keeps the clocks, and tells each engine only what
//! protocol.md allows: the start position, its side and start view at the start, its own
//! observation after every ply, its own bounced drops, its clock when it is asked to move, and
//! the result at the end. How that is written (lines or Mistboard's requests) is the
//! [`Contestant`]'s business.

use super::clock::{Clocks, TimeControl};
use super::contestant::{AskError, Contestant, GameStart};
use super::line_engine::Msg;
use super::record::{Forfeit, GameRecord, PlyRecord, SideLogs, Termination};
use crate::core::{Color, Move};
use crate::process::IoFailure;
use crate::rules::{Game, Outcome, PlayError, Played, PlyReport, Position};
use crate::serve::encode::landing_square;
use crate::view::Observation;
use std::time::{Duration, Instant};

/// How long an engine that overran its time may take to answer `stop` before it is restarted.
const STOP_GRACE: Duration = Duration::from_millis(1000);

/// Everything the referee needs to know about one game.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// Game number in the match, from 1.
    pub game: usize,
    /// Pair number, from 1.
    pub pair: usize,
    /// The start position, known to both engines.
    pub start: Position,
    /// The time controls of White and Black.
    pub tc: [TimeControl; 2],
    /// The tolerance added to every time limit.
    pub margin: Duration,
    /// How long an engine may take to answer `isready`, or to move under a node budget.
    pub stall: Duration,
    /// Adjudicate a draw after this many plies.
    pub max_plies: Option<usize>,
    /// The `Seed` option value per engine, White first (sent to engines that declare `Seed`).
    pub seeds: [u64; 2],
}

/// A finished game and what the match should do about the engines.
#[derive(Clone, Debug)]
pub struct GameResult {
    /// The record.
    pub record: GameRecord,
    /// Per color: the engine crashed or hung and must be restarted before its next game.
    pub restart: [bool; 2],
}

/// How the referee stopped the game.
#[derive(Clone, Debug)]
enum Ending {
    Rule(Outcome),
    Forfeit { side: Color, kind: Forfeit, detail: String },
    Adjudication,
}

fn forfeit(side: Color, kind: Forfeit, detail: impl Into<String>) -> Ending {
    Ending::Forfeit { side, kind, detail: detail.into() }
}

/// The forfeit for a channel failure while waiting on a reply outside the clock.
fn channel_forfeit(side: Color, failure: IoFailure, waiting_for: &str) -> Ending {
    match failure {
        IoFailure::Closed => forfeit(side, Forfeit::Crash, format!("{} engine exited ({waiting_for})", side.name())),
        IoFailure::Timeout => {
            forfeit(side, Forfeit::Unresponsive, format!("{} engine did not answer ({waiting_for})", side.name()))
        }
    }
}

/// Plays one game: `engines[0]` is White, `engines[1]` Black (Red).
pub fn play_game<'a>(setup: &'a GameSetup, engines: [&'a mut dyn Contestant; 2]) -> GameResult {
    let mut referee = Referee::new(setup, engines);
    let ending = referee.run();
    referee.finish(ending)
}

/// The record of a game that could not start because `side`'s engine could not be (re)started.
pub fn unstarted_game(setup: &GameSetup, names: [String; 2], side: Color, failure: IoFailure, why: &str) -> GameResult {
    let mut record = blank_record(setup, names);
    let ending = channel_forfeit(side, failure, why);
    conclude(&mut record, &ending);
    let mut restart = [false; 2];
    restart[side.index()] = true;
    GameResult { record, restart }
}

fn blank_record(setup: &GameSetup, [white, black]: [String; 2]) -> GameRecord {
    GameRecord {
        wire: Default::default(),
        game: setup.game,
        pair: setup.pair,
        variant: setup.start.variant().name().to_string(),
        white,
        black,
        start_fen: setup.start.to_fen(),
        time_control: if setup.tc[0] == setup.tc[1] {
            setup.tc[0].to_string()
        } else {
            format!("white {} / black {}", setup.tc[0], setup.tc[1])
        },
        seeds: [None, None],
        result: "*".to_string(),
        termination: String::new(),
        termination_kind: String::new(),
        forfeited_by: None,
        detail: String::new(),
        moves: Vec::new(),
        setup: SideLogs::default(),
        plies: Vec::new(),
        end: SideLogs::default(),
    }
}

/// Fills in the result fields of `record` from `ending`.
fn conclude(record: &mut GameRecord, ending: &Ending) {
    let (winner, termination, detail) = match ending {
        Ending::Rule(outcome) => {
            let who = outcome.winner.map_or("draw".to_string(), |c| format!("{} wins", c.name()));
            (outcome.winner, Termination::Rule(outcome.reason), format!("{who} by {}", outcome.reason.name()))
        }
        Ending::Forfeit { side, kind, detail } => {
            record.forfeited_by = Some(side.name().to_string());
            (Some(side.opponent()), Termination::Forfeit(*kind), detail.clone())
        }
        Ending::Adjudication => {
            (None, Termination::Adjudication, format!("draw adjudicated after {} plies", record.moves.len()))
        }
    };
    record.result = match winner {
        Some(Color::White) => "1-0",
        Some(Color::Black) => "0-1",
        None => "1/2-1/2",
    }
    .to_string();
    record.termination = termination.name().to_string();
    record.termination_kind = termination.kind().to_string();
    record.detail = detail;
}

struct Referee<'a> {
    setup: &'a GameSetup,
    engines: [&'a mut dyn Contestant; 2],
    game: Game,
    clocks: Clocks,
    record: GameRecord,
    /// The side whose last `go` was not answered in time (it is sent `stop` before `gameover`).
    unanswered: Option<Color>,
}

impl<'a> Referee<'a> {
    fn new(setup: &'a GameSetup, engines: [&'a mut dyn Contestant; 2]) -> Referee<'a> {
        let names = [engines[0].name().to_string(), engines[1].name().to_string()];
        let mut record = blank_record(setup, names);
        record.wire = [engines[0].wire(), engines[1].wire()];
        Referee {
            setup,
            game: Game::new(setup.start.clone()),
            clocks: Clocks::new(setup.tc, setup.margin, setup.stall),
            record,
            unanswered: None,
            engines,
        }
    }

    fn engine(&mut self, side: Color) -> &mut dyn Contestant {
        &mut *self.engines[side.index()]
    }

    fn run(&mut self) -> Ending {
        let started = self.start_both();
        self.record.setup = SideLogs::from_array(self.take_logs());
        if let Err(ending) = started {
            return ending;
        }
        loop {
            if let Some(outcome) = self.game.outcome() {
                return Ending::Rule(outcome);
            }
            if self.setup.max_plies.is_some_and(|max| self.game.moves().len() >= max) {
                return Ending::Adjudication;
            }
            if let Err(ending) = self.play_ply() {
                return ending;
            }
        }
    }

    /// Tells each engine the game setup and waits until it is ready.
    fn start_both(&mut self) -> Result<(), Ending> {
        let game_id = format!("game-{}-{:08x}", self.setup.game, self.setup.seeds[0] >> 32);
        for side in Color::ALL {
            let setup = self.setup;
            let game = GameStart {
                game_id: &game_id,
                start: &setup.start,
                side,
                seed: setup.seeds[side.index()],
                stall: setup.stall,
            };
            let engine = self.engine(side);
            engine.begin_game();
            let seed = engine
                .start_game(&game)
                .map_err(|failure| channel_forfeit(side, failure, "isready before the game"))?;
            self.record.seeds[side.index()] = seed;
        }
        Ok(())
    }

    fn take_logs(&mut self) -> [Vec<Msg>; 2] {
        [self.engines[0].take_log(), self.engines[1].take_log()]
    }

    /// Asks the side to move for moves until one is played (answering bounces) or it forfeits.
    fn play_ply(&mut self) -> Result<(), Ending> {
        let mover = self.game.position().turn();
        let variant = self.game.position().variant();
        let mut bounces = Vec::new();
        loop {
            let (text, used) = self.ask_move(mover)?;
            let wanted = parse_reply(&text, variant).map_err(|(kind, why)| forfeit(mover, kind, why))?;
            match self.game.play(wanted) {
                Ok(Played::Bounced(sq)) => {
                    bounces.push(wanted.to_uci(variant));
                    self.engine(mover).bounce(sq).map_err(|f| channel_forfeit(mover, f, "bounce"))?;
                }
                Ok(Played::Moved(report)) => {
                    self.clocks.charge(mover, used);
                    return self.after_ply(report, bounces, used);
                }
                Err(PlayError::RepeatedBounce(sq)) => {
                    let why = format!("{} repeated the drop {text} onto {sq}, which already bounced", mover.name());
                    return Err(forfeit(mover, Forfeit::RepeatedBounce, why));
                }
                Err(err) => return Err(forfeit(mover, Forfeit::IllegalMove, format!("{}: {err}", mover.name()))),
            }
        }
    }

    /// Asks the side to move for its move; returns the move text and the time it took.
    fn ask_move(&mut self, side: Color) -> Result<(String, Duration), Ending> {
        let allowance = self.clocks.allowance(side);
        let start = Instant::now();
        let asked = self.engines[side.index()].ask(&self.clocks, side, start + allowance);
        let used = start.elapsed();
        let late = |used: Duration| {
            let why = format!("{} used {} ms of {} ms allowed", side.name(), used.as_millis(), allowance.as_millis());
            forfeit(side, Forfeit::TimeForfeit, why)
        };
        match asked {
            Ok(_) if used > allowance => Err(late(used)),
            Ok(text) => Ok((text, used)),
            Err(AskError::Io(IoFailure::Closed)) => {
                Err(forfeit(side, Forfeit::Crash, format!("{} engine exited while thinking", side.name())))
            }
            Err(AskError::Io(IoFailure::Timeout)) => {
                self.unanswered = Some(side);
                Err(late(used))
            }
            Err(AskError::Reply(kind, why)) => Err(forfeit(side, kind, format!("{}: {why}", side.name()))),
        }
    }

    /// Records a played ply and sends both engines their observations.
    fn after_ply(&mut self, report: PlyReport, bounces: Vec<String>, used: Duration) -> Result<(), Ending> {
        let after = self.game.position().clone();
        let mover = after.turn().opponent();
        let variant = after.variant();
        let mut failed = None;
        for side in [mover, mover.opponent()] {
            let obs = Observation::after_ply(&after, &report, side);
            let landing = if side == mover { None } else { landing_square(&obs.view, report.mv) };
            if let Err(f) = self.engine(side).observe(&obs, landing) {
                failed = failed.or(Some((side, f)));
            }
        }
        let mv = report.mv.to_uci(variant);
        self.record.moves.push(mv.clone());
        let lines = SideLogs::from_array(self.take_logs());
        self.record.plies.push(PlyRecord {
            ply: self.game.moves().len(),
            side: mover.name().to_string(),
            mv,
            bounces,
            think_ms: used.as_millis() as u64,
            clock_ms: self.clocks.left_ms(),
            lines,
        });
        match failed {
            Some((side, f)) if report.outcome.is_none() => Err(channel_forfeit(side, f, "observe")),
            _ => Ok(()),
        }
    }

    /// Tells both engines the result, closes the record and says which engines need a
    /// restart: one whose move is still unanswered is stopped first (and restarted unless it
    /// answers within [`STOP_GRACE`]).
    fn finish(mut self, ending: Ending) -> GameResult {
        conclude(&mut self.record, &ending);
        let mut restart = [false; 2];
        if let Some(side) = self.unanswered {
            restart[side.index()] = !self.engine(side).stop(STOP_GRACE);
        }
        let (result, termination) = (self.record.result.clone(), self.record.termination.clone());
        for side in Color::ALL {
            let engine = self.engine(side);
            engine.end_game(&result, &termination);
            restart[side.index()] |= !engine.alive();
        }
        if let Ending::Forfeit { side, kind, .. } = ending {
            restart[side.index()] |= kind.needs_restart();
        }
        self.record.end = SideLogs::from_array(self.take_logs());
        GameResult { record: self.record, restart }
    }
}

/// Reads the move of a `bestmove` reply; a claim of having no move is an illegal move.
fn parse_reply(text: &str, variant: crate::core::Variant) -> Result<Move, (Forfeit, String)> {
    if text == "(none)" || text == "0000" {
        return Err((Forfeit::IllegalMove, format!("'bestmove {text}' claims no legal move, but there are moves")));
    }
    Move::parse(text, variant).map_err(|e| (Forfeit::MalformedReply, e.to_string()))
}
