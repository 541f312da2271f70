//! PGN output: one game per record, with `[Variant]`, `[FEN]`/`[SetUp]` when the game did not
//! start from the variant's start, `[TimeControl]`, `[Termination]` (the runner's word: a rule
//! outcome, a forfeit or `adjudication`) and the true moves in SAN. There is no check in these
//! games, so SAN has no `+`; drops are written `N@e5`; bounced drops appear as comments before
//! the move that was finally played (`{bounced: N@a8}`).

use super::record::GameRecord;
use crate::core::{Move, MoveKind, Role, Variant};
use crate::rules::{Game, Played, Position};
use std::fmt::Write;

/// The SAN of `mv`, a pseudo-legal move of `pos` as the rules read it.
pub fn san(pos: &Position, mv: Move) -> String {
    let variant = pos.variant();
    match mv.kind {
        MoveKind::Drop(_) => return mv.to_uci(variant),
        MoveKind::Castle => return if mv.to.file() > mv.from.file() { "O-O" } else { "O-O-O" }.to_string(),
        _ => {}
    }
    let Some(role) = pos.role_at(mv.from) else { return mv.to_uci(variant) };
    let capture = pos.occupied().contains(mv.to) || mv.kind == MoveKind::EnPassant;
    let mut s = String::new();
    if role == Role::Pawn {
        if capture {
            s.push((b'a' + mv.from.file()) as char);
        }
    } else {
        s.push(upper_letter(variant, role));
        s.push_str(&disambiguation(pos, mv, role));
    }
    if capture {
        s.push('x');
    }
    let _ = write!(s, "{}", mv.to);
    if let MoveKind::Promotion(r) = mv.kind {
        s.push('=');
        s.push(upper_letter(variant, r));
    }
    s
}

fn upper_letter(variant: Variant, role: Role) -> char {
    variant.letter(role).unwrap_or('?').to_ascii_uppercase()
}

/// The origin file, rank or square needed to tell `mv` apart from same-role moves to its target.
fn disambiguation(pos: &Position, mv: Move, role: Role) -> String {
    let rivals: Vec<Move> = pos
        .moves()
        .iter()
        .copied()
        .filter(|m| m.to == mv.to && m.from != mv.from && !m.is_drop() && m.kind != MoveKind::Castle)
        .filter(|m| pos.role_at(m.from) == Some(role))
        .collect();
    if rivals.is_empty() {
        return String::new();
    }
    let file = (b'a' + mv.from.file()) as char;
    let rank = (b'1' + mv.from.rank()) as char;
    if rivals.iter().all(|m| m.from.file() != mv.from.file()) {
        file.to_string()
    } else if rivals.iter().all(|m| m.from.rank() != mv.from.rank()) {
        rank.to_string()
    } else {
        format!("{file}{rank}")
    }
}

/// The PGN of `record` (with a blank line after it). `date` is the `[Date]` tag, `YYYY.MM.DD`.
pub fn write_pgn(record: &GameRecord, date: &str) -> String {
    let variant: Option<Variant> = record.variant.parse().ok();
    let start = variant.and_then(|v| Position::from_fen(v, &record.start_fen).ok());
    let mut s = String::new();
    let mut tag = |name: &str, value: &str| {
        let _ = writeln!(s, "[{name} \"{}\"]", value.replace('\\', "\\\\").replace('"', "\\\""));
    };
    tag("Event", "Murk match");
    tag("Site", "?");
    tag("Date", date);
    tag("Round", &record.pair.to_string());
    tag("White", &record.white);
    tag("Black", &record.black);
    tag("Result", &record.result);
    tag("Variant", &record.variant);
    if variant.is_some_and(|v| start.as_ref() != Some(&Position::start(v))) {
        tag("FEN", &record.start_fen);
        tag("SetUp", "1");
    }
    tag("TimeControl", &record.time_control.replace("tc ", ""));
    tag("Termination", &record.termination);
    tag("PlyCount", &record.moves.len().to_string());
    s.push('\n');
    let mut tokens = start.map(|pos| movetext(record, pos)).unwrap_or_default();
    if !record.detail.is_empty() {
        tokens.push(format!("{{{}}}", record.detail.replace('}', ")")));
    }
    tokens.push(record.result.clone());
    s.push_str(&wrap(&tokens, 79));
    s.push_str("\n\n");
    s
}

/// Move numbers, SAN moves and bounce comments, replayed from the start position.
fn movetext(record: &GameRecord, start: Position) -> Vec<String> {
    let variant = start.variant();
    let mut game = Game::new(start);
    let mut tokens: Vec<String> = Vec::new();
    for (i, text) in record.moves.iter().enumerate() {
        let pos = game.position().clone();
        let Some(mv) = Move::parse(text, variant).ok().and_then(|m| pos.find_move(m)) else {
            tokens.push(format!("{{unreadable move {text}}}"));
            break;
        };
        let white = pos.turn() == crate::core::Color::White;
        let number = pos.fullmoves();
        if white {
            tokens.push(format!("{number}."));
        }
        let bounces = record.plies.get(i).map(|p| p.bounces.as_slice()).unwrap_or(&[]);
        if !bounces.is_empty() {
            tokens.push(format!("{{bounced: {}}}", bounces.join(", ")));
        }
        if !white && (tokens.is_empty() || tokens.last().is_some_and(|t| t.ends_with('}'))) {
            tokens.push(format!("{number}..."));
        }
        tokens.push(san(&pos, mv));
        if !matches!(game.play(mv), Ok(Played::Moved(_))) {
            break;
        }
    }
    tokens
}

fn wrap(tokens: &[String], width: usize) -> String {
    let mut out = String::new();
    let mut line_len = 0;
    for t in tokens {
        if line_len > 0 && line_len + 1 + t.len() > width {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(t);
        line_len += t.len();
    }
    out
}

/// Today's date as `YYYY.MM.DD` (UTC).
pub fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let days = (secs / 86_400) as i64;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}
