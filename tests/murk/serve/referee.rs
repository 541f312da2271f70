//! A Mistboard-like referee for `murk serve`: it holds the true game with the rules core and
//! writes, for the engine's seat, exactly what Mistboard's request builder would send (its
//! `buildObservationForPly`: the mask of visible squares, every piece on them, the square where
//! one of the receiver's pieces vanished other than the move's origin, the mover's landing square
//! when the receiver sees it, the end of the game), plus Murk's extension for the two variants
//! Mistboard leaves open (6x8 indices, `shrouded`, `own_hand`, `promoted`, drops `*N`, and a
//! `drop_rejected` entry for a bounced drop). Written from the rules core, independently of the
//! server's decoder.

use murk::core::{Bitboard, Color, Move, MoveKind, Role, Square, Variant};
use murk::rules::vision;
use murk::rules::{Castling, EndReason, Game, Outcome, Played, Position};
use serde_json::{json, Map, Value};

/// The engine's seat in one game.
#[derive(Clone, Debug)]
pub struct Seat {
    /// The game.
    pub variant: Variant,
    /// The engine's side.
    pub side: Color,
    /// `gameId`.
    pub game_id: String,
    /// `sessionId`.
    pub session_id: String,
    /// Murk's `startFen` extension (`None`: the variant's start).
    pub start_fen: Option<String>,
}

impl Seat {
    /// A seat from the start position, its ids derived from `name`.
    pub fn new(variant: Variant, side: Color, name: &str) -> Seat {
        Seat {
            variant,
            side,
            game_id: format!("game-{name}"),
            session_id: format!("session-{name}-{}", side.name()),
            start_fen: None,
        }
    }
}

/// The wire index of a square.
pub fn index(variant: Variant, sq: Square) -> u32 {
    u32::from(sq.rank()) * u32::from(variant.width()) + u32::from(sq.file())
}

/// `"white"` / `"black"`.
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn letter(variant: Variant, role: Role) -> String {
    variant.letter(role).expect("a role of the game").to_ascii_uppercase().to_string()
}

/// Mistboard's form of a move: castling onto the rook's square, drops `*N`, promotions named.
pub fn wire_move(variant: Variant, side: Color, m: Move) -> Value {
    match m.kind {
        MoveKind::Drop(role) => json!({ "from": format!("*{}", letter(variant, role)), "to": m.to.to_string() }),
        MoveKind::Castle => {
            let rook = Castling::rook_square(side, m.to.file() > m.from.file());
            json!({ "from": m.from.to_string(), "to": rook.to_string() })
        }
        MoveKind::Promotion(role) => {
            let name = match role {
                Role::Rook => "rook",
                Role::Bishop => "bishop",
                Role::Knight => "knight",
                _ => "queen",
            };
            json!({ "from": m.from.to_string(), "to": m.to.to_string(), "promotion": name })
        }
        _ => json!({ "from": m.from.to_string(), "to": m.to.to_string() }),
    }
}

/// The move of the true position a wire move names.
pub fn move_of_wire(pos: &Position, side: Color, wire: &Value) -> Option<Move> {
    let variant = pos.variant();
    let candidates = pos.moves().iter().copied().chain(drops(pos, side, Bitboard::EMPTY)).collect::<Vec<_>>();
    candidates.into_iter().find(|&m| wire_move(variant, side, m) == *wire)
}

/// Every drop the side may choose: onto any square it does not see occupied (a fogged square may
/// hold a hidden piece; the drop then bounces), pawns not onto the first and last ranks, except
/// squares that bounced this turn.
fn drops(pos: &Position, side: Color, bounced: Bitboard) -> Vec<Move> {
    let variant = pos.variant();
    if !variant.has_hands() {
        return Vec::new();
    }
    let (seen, silhouettes) = vision(pos, side);
    let known_occupied = (seen | silhouettes) & pos.occupied();
    let free = variant.board_mask() & !known_occupied & !bounced;
    let mut list = Vec::new();
    for role in Role::HAND {
        if pos.hand(side).count(role) == 0 {
            continue;
        }
        for sq in free {
            if role == Role::Pawn && (sq.rank() == 0 || sq.rank() == 7) {
                continue;
            }
            list.push(Move::drop(role, sq));
        }
    }
    list
}

/// The fog-legal moves of the side to move, as Mistboard lists them.
pub fn legal_moves(game: &Game) -> Vec<Value> {
    let pos = game.position();
    let side = pos.turn();
    let board = pos.moves().iter().copied().filter(|m| !m.is_drop()).collect::<Vec<_>>();
    board
        .into_iter()
        .chain(drops(pos, side, game.bounced_this_turn()))
        .map(|m| wire_move(pos.variant(), side, m))
        .collect()
}

/// Mistboard's `game_over` of an outcome.
fn game_over(outcome: Option<Outcome>) -> Value {
    match outcome {
        None => Value::Null,
        Some(o) => {
            let reason = match o.reason {
                EndReason::KingCaptured => "king-captured",
                EndReason::TryCompleted => "try-completed",
                EndReason::NoLegalMove => "no-legal-moves",
                EndReason::Repetition | EndReason::NoProgress => "draw",
            };
            json!({ "winner": o.winner.map(color_name), "reason": reason })
        }
    }
}

/// The observation `side` receives of the position `pos` (after ply `ply`).
#[allow(clippy::too_many_arguments)]
pub fn observation(
    pos: &Position,
    side: Color,
    ply: usize,
    kind: &str,
    own_move: Option<Value>,
    own_capture: Option<Square>,
    landing: Option<Square>,
    outcome: Option<Outcome>,
) -> Value {
    let variant = pos.variant();
    let (seen, silhouettes) = vision(pos, side);
    let mut bits = 0u64;
    for sq in seen | silhouettes {
        bits |= 1 << index(variant, sq);
    }
    let mask = if variant.width() == 8 { format!("0x{bits:016x}") } else { format!("0x{bits:012x}") };
    let mut pieces: Vec<(u32, Value)> = Vec::new();
    for sq in seen & pos.occupied() {
        let piece = pos.piece_at(sq).expect("occupied");
        let mut entry = json!({ "type": letter(variant, piece.role), "color": color_name(piece.color) });
        if variant.has_hands() && pos.promoted().contains(sq) {
            entry["promoted"] = json!(true);
        }
        pieces.push((index(variant, sq), entry));
    }
    pieces.sort_by_key(|p| p.0);
    let mut shrouded: Vec<(u32, &str)> = Vec::new();
    for sq in silhouettes {
        let owner = if pos.by_color(Color::White).contains(sq) { Color::White } else { Color::Black };
        shrouded.push((index(variant, sq), color_name(owner)));
    }
    shrouded.sort_by_key(|s| s.0);
    let mut obs = Map::new();
    obs.insert("ply".into(), json!(ply));
    obs.insert("kind".into(), json!(kind));
    obs.insert("own_move".into(), own_move.unwrap_or(Value::Null));
    obs.insert("visibility_mask".into(), json!(mask));
    obs.insert("visible_pieces".into(), Value::Array(pieces.into_iter().map(|(i, p)| json!([i, p])).collect()));
    obs.insert("own_capture_square".into(), json!(own_capture.map(|s| index(variant, s))));
    obs.insert("opp_capture_landing_square".into(), json!(landing.map(|s| index(variant, s))));
    if !shrouded.is_empty() {
        obs.insert("shrouded".into(), Value::Array(shrouded.into_iter().map(|(i, c)| json!([i, c])).collect()));
    }
    obs.insert("game_over".into(), game_over(outcome));
    if variant.has_hands() {
        let mut hand = Map::new();
        for role in Role::HAND {
            let n = pos.hand(side).count(role);
            if n > 0 {
                hand.insert(letter(variant, role), json!(n));
            }
        }
        obs.insert("own_hand".into(), Value::Object(hand));
    }
    Value::Object(obs)
}

/// What happened to the engine's move.
#[derive(Debug, PartialEq, Eq)]
pub enum Answered {
    /// It was played.
    Played,
    /// The drop bounced: the engine is asked again.
    Bounced,
}

/// The true game and the engine's transcript of it.
pub struct Referee {
    /// The seat.
    pub seat: Seat,
    /// The true game.
    pub game: Game,
    /// The engine's observations so far, the first `initial`.
    pub transcript: Vec<Value>,
    /// Drops of the engine that bounced.
    pub bounces: usize,
    /// The observation that ended the game for the engine, if it ended.
    pub final_observation: Option<Value>,
}

impl Referee {
    /// The game at its start.
    pub fn new(seat: Seat) -> Referee {
        let start = match &seat.start_fen {
            None => Position::start(seat.variant),
            Some(fen) => Position::from_fen(seat.variant, fen).expect("test FEN"),
        };
        let initial = observation(&start, seat.side, 0, "initial", None, None, None, None);
        Referee { seat, game: Game::new(start), transcript: vec![initial], bounces: 0, final_observation: None }
    }

    /// True if the game goes on and the engine is to move.
    pub fn engine_to_move(&self) -> bool {
        self.game.outcome().is_none() && self.game.position().turn() == self.seat.side
    }

    /// The turn request for the engine now.
    pub fn request(&self, engine_seed: u64) -> Value {
        let seat = &self.seat;
        let mut request = json!({
            "protocolVersion": "1",
            "gameId": seat.game_id,
            "engineId": "murk-test",
            "sessionId": seat.session_id,
            "color": color_name(seat.side),
            "ply": self.game.moves().len(),
            "engineSeed": engine_seed,
            "clock": { "remaining_ms": 60000, "increment_ms": 0 },
            "legalMoves": legal_moves(&self.game),
            "observationTranscript": self.transcript,
        });
        match seat.variant {
            Variant::DarkChess => {}
            Variant::DarkCrazyhouse => request["gameSpecId"] = json!("dark-crazyhouse"),
            Variant::DarkCrossroads => request["gameSpecId"] = json!("dark-crossroads-chess"),
        }
        if let Some(fen) = &seat.start_fen {
            request["startFen"] = json!(fen);
        }
        request
    }

    /// Plays a move of the side to move and records what the engine observes.
    fn play(&mut self, m: Move) -> Result<Answered, String> {
        let side = self.seat.side;
        let variant = self.seat.variant;
        let before = self.game.position().clone();
        let mover = before.turn();
        let played = self.game.play(m).map_err(|e| e.to_string())?;
        let report = match played {
            Played::Bounced(_) => {
                let ply = self.game.moves().len();
                self.transcript
                    .push(json!({ "ply": ply, "kind": "drop_rejected", "own_move": wire_move(variant, side, m) }));
                self.bounces += 1;
                return Ok(Answered::Bounced);
            }
            Played::Moved(report) => report,
        };
        let after = self.game.position();
        let ply = self.game.moves().len();
        let own_before = before.by_color(side);
        let vanished = own_before & !after.by_color(side) & !Bitboard::from_square(report.mv.from);
        let own_capture = (vanished.count() == 1).then(|| vanished.first().expect("one square"));
        let wire = wire_move(variant, mover, report.mv);
        let obs = if mover == side {
            observation(after, side, ply, "own_move", Some(wire), own_capture, None, report.outcome)
        } else {
            let to = murk::core::Square::parse(wire["to"].as_str().expect("to")).expect("square");
            let (seen, _) = vision(after, side);
            let landing = (seen.contains(to) && after.by_color(mover).contains(to)).then_some(to);
            observation(after, side, ply, "opp_move", None, own_capture, landing, report.outcome)
        };
        if report.outcome.is_some() {
            self.final_observation = Some(obs);
        } else {
            self.transcript.push(obs);
        }
        Ok(Answered::Played)
    }

    /// Plays the engine's answer (a wire move, which must be among the legal moves).
    pub fn play_engine(&mut self, answer: &Value) -> Result<Answered, String> {
        let legal = legal_moves(&self.game);
        if !legal.contains(answer) {
            return Err(format!("the answer {answer} is not one of legalMoves"));
        }
        let m = move_of_wire(self.game.position(), self.seat.side, answer)
            .ok_or_else(|| format!("the answer {answer} names no move of the true position"))?;
        self.play(m)
    }

    /// Plays the opponent's move.
    pub fn play_opponent(&mut self, m: Move) {
        self.play(m).expect("the opponent's move is legal");
    }
}
