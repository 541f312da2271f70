//! The leak audit of a game record: replays the true moves and checks, line by line, that each
//! engine received only what protocol.md allows. Every `observe` must equal what the engine's
//! view after that ply gives, and every square it shows must be one the engine could see, with
//! its true content; `position`, `side`, `go`, `bounce` and `gameover` must say only what they
//! may; nothing else about the game may be sent at all.

use super::engine::Dir;
use super::record::GameRecord;
use crate::core::{Color, Move, Square, Variant};
use crate::rules::vision;
use crate::rules::{Game, Played, Position};
use crate::view::{Observation, SquareView};

/// A line an engine should not have received.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {game}, {side}'s engine received '{line}': {problem}")]
pub struct AuditError {
    /// The game number.
    pub game: usize,
    /// The engine's color.
    pub side: &'static str,
    /// The offending line.
    pub line: String,
    /// What is wrong with it.
    pub problem: String,
}

/// What an audit checked.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct AuditCounts {
    /// `observe` lines checked.
    pub observes: usize,
    /// `bounce` lines checked.
    pub bounces: usize,
    /// Lines received in all.
    pub lines: usize,
}

/// The true game of a record, replayed.
struct Truth {
    variant: Variant,
    start: Position,
    /// The position after each ply, the start first.
    positions: Vec<Position>,
    /// Per ply, the `observe` line each side should receive (White first).
    observes: Vec<[String; 2]>,
}

fn replay(rec: &GameRecord) -> Result<Truth, String> {
    let variant: Variant = rec.variant.parse().map_err(|e| format!("{e}"))?;
    let start = Position::from_fen(variant, &rec.start_fen).map_err(|e| format!("start FEN: {e}"))?;
    let mut game = Game::new(start.clone());
    let mut truth = Truth { variant, start: start.clone(), positions: vec![start], observes: Vec::new() };
    for text in &rec.moves {
        let mv = Move::parse(text, variant).map_err(|e| e.to_string())?;
        let Ok(Played::Moved(report)) = game.play(mv) else { return Err(format!("recorded move {text} is not legal")) };
        let after = game.position().clone();
        truth.observes.push(
            Color::ALL.map(|side| format!("observe {}", Observation::after_ply(&after, &report, side).to_args())),
        );
        truth.positions.push(after);
    }
    Ok(truth)
}

/// Audits every line each engine received in `rec`.
pub fn audit_record(rec: &GameRecord) -> Result<AuditCounts, AuditError> {
    let truth = replay(rec).map_err(|problem| AuditError {
        game: rec.game,
        side: "either",
        line: String::new(),
        problem: format!("the record does not replay: {problem}"),
    })?;
    let mut counts = AuditCounts::default();
    for side in Color::ALL {
        audit_side(rec, &truth, side, &mut counts)?;
    }
    Ok(counts)
}

fn audit_side(rec: &GameRecord, truth: &Truth, side: Color, counts: &mut AuditCounts) -> Result<(), AuditError> {
    let fail =
        |line: &str, problem: String| AuditError { game: rec.game, side: side.name(), line: line.to_string(), problem };
    let mut plies = 0;
    let mut last_bestmove: Option<String> = None;
    let mut over = false;
    for msg in rec.lines_of(side) {
        if msg.dir == Dir::Out {
            let mut words = msg.line.split_whitespace();
            if words.next() == Some("bestmove") {
                last_bestmove = words.next().map(str::to_string);
            }
            continue;
        }
        counts.lines += 1;
        let line = msg.line.as_str();
        if over {
            return Err(fail(line, "sent after gameover".into()));
        }
        let (word, args) = line.split_once(' ').unwrap_or((line, ""));
        let checked = match word {
            "uci" | "isready" | "ucinewgame" | "quit" | "stop" if args.is_empty() => Ok(()),
            "setoption" if args.starts_with("name ") => Ok(()),
            "position" => check_position(truth, args),
            "side" if args == side.name() => Ok(()),
            "go" => check_go(truth, plies, side, args),
            "observe" if args.ends_with(" start") => check_start_view(truth, plies, side, args),
            "observe" => {
                let r = check_observe(truth, plies, side, line);
                plies += 1;
                counts.observes += 1;
                r
            }
            "bounce" => {
                counts.bounces += 1;
                check_bounce(truth, plies, side, args, last_bestmove.as_deref())
            }
            "gameover" => {
                over = true;
                let expected = format!("{} {}", rec.result, rec.termination);
                if args == expected {
                    Ok(())
                } else {
                    Err(format!("expected 'gameover {expected}'"))
                }
            }
            _ => Err("not a message the runner may send".to_string()),
        };
        checked.map_err(|problem| fail(line, problem))?;
    }
    if plies != rec.moves.len() {
        return Err(fail("", format!("received {plies} observe lines for {} plies", rec.moves.len())));
    }
    Ok(())
}

fn check_position(truth: &Truth, args: &str) -> Result<(), String> {
    let ok = match args.split_once(' ') {
        None => args == "startpos" && truth.start == Position::start(truth.variant),
        Some(("fen", fen)) => Position::from_fen(truth.variant, fen).is_ok_and(|p| p == truth.start),
        _ => false,
    };
    ok.then_some(()).ok_or_else(|| format!("the start position is {}", truth.start.to_fen()))
}

fn check_go(truth: &Truth, plies: usize, side: Color, args: &str) -> Result<(), String> {
    let pos = truth.positions.get(plies).ok_or("go after the last ply")?;
    if pos.turn() != side {
        return Err("go while it is not this engine's turn".into());
    }
    let words: Vec<&str> = args.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            "infinite" => i += 1,
            "wtime" | "btime" | "winc" | "binc" | "movestogo" | "movetime" | "nodes" | "depth"
                if words.get(i + 1).is_some_and(|v| v.parse::<u64>().is_ok()) =>
            {
                i += 2
            }
            other => return Err(format!("'{other}' has no place in go")),
        }
    }
    Ok(())
}

fn check_start_view(truth: &Truth, plies: usize, side: Color, args: &str) -> Result<(), String> {
    let expected = format!("{} start", Observation::initial(&truth.start, side).to_args());
    match (plies, args == expected) {
        (0, true) => Ok(()),
        (0, false) => Err(format!("the start view is '{expected}'")),
        _ => Err("a start view after the first ply".into()),
    }
}

fn check_observe(truth: &Truth, plies: usize, side: Color, line: &str) -> Result<(), String> {
    let expected = truth.observes.get(plies).ok_or("more observe lines than plies")?;
    let pos = &truth.positions[plies + 1];
    let obs = Observation::parse_args(truth.variant, side, &line["observe ".len()..]).map_err(|e| e.to_string())?;
    check_only_visible(pos, side, &obs)
        .map_err(|sq| format!("square {sq} is shown but not visible, or shown wrong"))?;
    if line != expected[side.index()] {
        return Err(format!("after ply {} the view gives '{}'", plies + 1, expected[side.index()]));
    }
    if obs.view.hand() != pos.hand(side) {
        return Err("the hand shown is not the engine's own".into());
    }
    if let Some((sq, role)) = obs.captured {
        let before = &truth.positions[plies];
        if before.piece_at(sq).is_none_or(|p| p.color != side || p.role != role) {
            return Err(format!("no piece of this engine was captured on {sq}"));
        }
    }
    Ok(())
}

/// Checks that every square `obs` shows is visible to `side` in `pos` and shown as it truly is.
fn check_only_visible(pos: &Position, side: Color, obs: &Observation) -> Result<(), Square> {
    let (seen, silhouettes) = vision(pos, side);
    let board = pos.variant().board_mask();
    for sq in Square::all().filter(|&s| board.contains(s)) {
        let ok = match obs.view.square(sq) {
            SquareView::Fog => true,
            SquareView::Empty => seen.contains(sq) && pos.piece_at(sq).is_none(),
            SquareView::Piece(p, promoted) => {
                seen.contains(sq) && pos.piece_at(sq) == Some(p) && pos.promoted().contains(sq) == promoted
            }
            SquareView::Silhouette(c) => {
                silhouettes.contains(sq) && !seen.contains(sq) && pos.piece_at(sq).is_some_and(|p| p.color == c)
            }
        };
        if !ok {
            return Err(sq);
        }
    }
    Ok(())
}

fn check_bounce(truth: &Truth, plies: usize, side: Color, args: &str, bestmove: Option<&str>) -> Result<(), String> {
    let pos = truth.positions.get(plies).ok_or("bounce after the last ply")?;
    let sq = Square::parse(args).ok_or("not a square")?;
    let drop = bestmove.and_then(|m| Move::parse(m, truth.variant).ok());
    if pos.turn() != side || !drop.is_some_and(|m| m.is_drop() && m.to == sq) {
        return Err("does not answer this engine's drop".into());
    }
    let (seen, silhouettes) = vision(pos, side);
    if pos.piece_at(sq).is_none() || seen.contains(sq) || silhouettes.contains(sq) {
        return Err("the square is not an occupied fogged square".into());
    }
    Ok(())
}
