//! From Mistboard's wire to Murk's vocabulary: the game of a `gameSpecId`, square indices and
//! visibility masks, moves, and an observation's view (checked against what the receiver's own
//! pieces can see, which is also how the en-passant chance the wire leaves implicit is read).

use super::wire::{Problem, WireColor, WireMove, WireObservation};
use crate::core::{attacks, Bitboard, Color, Move, MoveKind, Piece, Role, Square, Variant};
use crate::rules::{reach, Castling, Hand};
use crate::view::{SquareView, View};

/// The `gameSpecId`s Murk plays: absent or `dark-chess`, `dark-crazyhouse`, and
/// `dark-crossroads-chess` (`dark-crossroads` is accepted too).
pub fn variant_of_spec(spec: Option<&str>) -> Result<Variant, Problem> {
    match spec {
        None | Some("dark-chess") => Ok(Variant::DarkChess),
        Some("dark-crazyhouse") => Ok(Variant::DarkCrazyhouse),
        Some("dark-crossroads-chess" | "dark-crossroads") => Ok(Variant::DarkCrossroads),
        Some(other) => Err(Problem::new(
            400,
            "unsupported_game_spec",
            format!(
                "gameSpecId '{}' is not a game Murk plays (dark-chess, dark-crazyhouse, dark-crossroads-chess)",
                clip(other)
            ),
        )),
    }
}

/// The `gameSpecId` Murk writes for a variant (`None` for Dark Chess, as Mistboard omits it).
pub fn spec_of_variant(variant: Variant) -> Option<&'static str> {
    match variant {
        Variant::DarkChess => None,
        Variant::DarkCrazyhouse => Some("dark-crazyhouse"),
        Variant::DarkCrossroads => Some("dark-crossroads-chess"),
    }
}

/// A color of the wire as Murk's.
pub fn color(c: WireColor) -> Color {
    match c {
        WireColor::White => Color::White,
        WireColor::Black => Color::Black,
    }
}

/// Murk's color as the wire writes it.
pub fn wire_color(c: Color) -> WireColor {
    match c {
        Color::White => WireColor::White,
        Color::Black => WireColor::Black,
    }
}

/// The square of wire index `index`: `(rank - 1) * width + file`, a1 = 0.
pub fn square_of_index(variant: Variant, index: u32) -> Option<Square> {
    let width = u32::from(variant.width());
    (index < width * 8).then(|| Square::from_coords((index % width) as u8, (index / width) as u8))
}

/// The wire index of a square.
pub fn index_of_square(variant: Variant, sq: Square) -> u32 {
    u32::from(sq.rank()) * u32::from(variant.width()) + u32::from(sq.file())
}

/// A square name (`e4`) on this board.
pub fn square_of_name(variant: Variant, name: &str) -> Option<Square> {
    Square::parse(name).filter(|&s| variant.board_mask().contains(s))
}

/// A `visibility_mask`: `0x` and 1 to 16 hex digits (Mistboard writes 16 for 8x8 boards; 12
/// suffice for the 48 squares of Crossroads); no bit beyond the board may be set.
pub fn parse_mask(variant: Variant, text: &str) -> Result<Bitboard, String> {
    let digits =
        text.strip_prefix("0x").ok_or_else(|| format!("visibility_mask '{}' does not start with 0x", clip(text)))?;
    if digits.is_empty() || digits.len() > 16 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("visibility_mask '{}' is not 0x and 1 to 16 hex digits", clip(text)));
    }
    let bits = u64::from_str_radix(digits, 16).map_err(|e| format!("visibility_mask: {e}"))?;
    let squares = u32::from(variant.width()) * 8;
    if squares < 64 && bits >> squares != 0 {
        return Err(format!("visibility_mask {text} sets bits beyond the {squares} squares of {variant}"));
    }
    let mut mask = Bitboard::EMPTY;
    for index in 0..squares {
        if bits >> index & 1 != 0 {
            mask |= Bitboard::from_square(square_of_index(variant, index).expect("index below the board size"));
        }
    }
    Ok(mask)
}

/// The wire form of a mask of squares (16 hex digits on 8x8 boards, 12 in Crossroads).
pub fn mask_text(variant: Variant, squares: Bitboard) -> String {
    let bits = squares.into_iter().fold(0u64, |acc, sq| acc | 1u64 << index_of_square(variant, sq));
    match variant.width() {
        8 => format!("0x{bits:016x}"),
        _ => format!("0x{bits:012x}"),
    }
}

/// The wire name of a promotion role.
pub fn promotion_name(role: Role) -> &'static str {
    match role {
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        _ => "queen",
    }
}

/// The letter a role is written with on the wire: Murk's FEN letter, upper case.
pub fn role_letter(variant: Variant, role: Role) -> char {
    variant.letter(role).unwrap_or('?').to_ascii_uppercase()
}

/// The role of a wire piece letter; in Crossroads `R` (chariot) and `S` (soldier) are read too,
/// as Mistboard's xiangqi games spell them.
pub fn role_of_letter(variant: Variant, letter: &str) -> Option<Role> {
    let mut chars = letter.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else { return None };
    let c = c.to_ascii_uppercase();
    match (variant, c) {
        (Variant::DarkCrossroads, 'R') => Some(Role::Rook),
        (Variant::DarkCrossroads, 'S') => Some(Role::Soldier),
        _ => variant.role_of_letter(c),
    }
}

/// Murk's move as the wire writes it: castling as the king onto its rook's square, drops as
/// `*` and the piece letter.
pub fn move_to_wire(variant: Variant, side: Color, m: Move) -> WireMove {
    let name = |sq: Square| sq.to_string();
    match m.kind {
        MoveKind::Drop(role) => {
            WireMove { from: format!("*{}", role_letter(variant, role)), to: name(m.to), promotion: None }
        }
        MoveKind::Castle => {
            let king_side = m.to.file() > m.from.file();
            WireMove { from: name(m.from), to: name(Castling::rook_square(side, king_side)), promotion: None }
        }
        MoveKind::Promotion(role) => {
            WireMove { from: name(m.from), to: name(m.to), promotion: Some(promotion_name(role).to_string()) }
        }
        MoveKind::Normal | MoveKind::EnPassant => WireMove { from: name(m.from), to: name(m.to), promotion: None },
    }
}

/// The move among `legal` that the wire move names (castling also as the king's two-square
/// move, `e1g1`, which Mistboard's board accepts as well).
pub fn move_from_wire(variant: Variant, side: Color, legal: &[Move], wanted: &WireMove) -> Option<Move> {
    legal.iter().copied().find(|&m| {
        let wire = move_to_wire(variant, side, m);
        wire == *wanted
            || (m.kind == MoveKind::Castle
                && wanted.promotion.is_none()
                && wanted.from == wire.from
                && wanted.to == m.to.to_string())
    })
}

/// Checks the shape of a wire move (squares on this board, a known promotion, a drop letter of a
/// hand piece in Crazyhouse), saying what is wrong.
pub fn check_move_shape(variant: Variant, m: &WireMove) -> Result<(), String> {
    let bad = |why: &str| Err(format!("move {} {why}", describe(m)));
    if square_of_name(variant, &m.to).is_none() {
        return bad("has a 'to' square that is not on the board");
    }
    if let Some(letter) = m.from.strip_prefix('*') {
        let role = role_of_letter(variant, letter);
        if !variant.has_hands() || !role.is_some_and(|r| Role::HAND.contains(&r)) || m.promotion.is_some() {
            return bad("is not a drop of this game");
        }
        return Ok(());
    }
    if square_of_name(variant, &m.from).is_none() {
        return bad("has a 'from' square that is not on the board");
    }
    match m.promotion.as_deref() {
        None | Some("queen") => Ok(()),
        Some("rook" | "bishop" | "knight") if variant.is_chess_board() => Ok(()),
        Some(_) => bad("has a promotion this game does not have"),
    }
}

/// A move as text for messages: `e2e4`, `e7e8=queen`, `*N@e5`.
pub fn describe(m: &WireMove) -> String {
    let mut s = if m.from.starts_with('*') {
        format!("{}@{}", clip(&m.from), clip(&m.to))
    } else {
        format!("{}{}", clip(&m.from), clip(&m.to))
    };
    if let Some(p) = &m.promotion {
        s.push('=');
        s.push_str(&clip(p));
    }
    s
}

/// At most 40 characters of an input string, for messages.
pub fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(40).map(|c| if c.is_control() { '?' } else { c }).collect();
    if s.chars().count() > 40 {
        out.push_str("...");
    }
    out
}

/// What a view's own pieces see: the squares in full and the silhouettes (RULES.md sections 2
/// and 4), computed from the view itself, without an en-passant chance. A view the true position
/// produced gives back exactly its own seen squares and silhouettes: every square that decides
/// what a piece sees (the first piece on a line, a horse's leg, the square ahead of a pawn) is
/// itself seen, except a fogged square ahead of a pawn, which must then be occupied.
pub fn vision_of_view(view: &View) -> (Bitboard, Bitboard) {
    let side = view.side();
    let board = view.variant().board_mask();
    let own = view.by_color(side);
    let enemies = view.by_color(side.opponent());
    let occ = own | enemies;
    let mut seen = own;
    let mut silhouettes = Bitboard::EMPTY;
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King, Role::Soldier] {
        for sq in view.pieces(side, role) {
            seen |= reach(role, side, sq, occ, enemies, board);
        }
    }
    for sq in view.pieces(side, Role::Pawn) {
        seen |= reach(Role::Pawn, side, sq, occ | view.fog(), enemies, board);
    }
    for sq in view.pieces(side, Role::Cannon) {
        let c = attacks::cannon(sq, occ);
        seen |= (c.quiet & board) | (c.beyond & enemies);
        silhouettes |= c.screens;
    }
    for sq in view.pieces(side, Role::Horse) {
        let (leaps, legs) = attacks::horse(sq, occ, board);
        seen |= leaps;
        silhouettes |= legs;
    }
    (seen, silhouettes & !seen)
}

/// An en-passant chance a view may hold: our pawn on `from` may take on `to`, where the enemy
/// pawn that just made a double step passed; `passed` is the square it stands on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct EpChance {
    /// Our capturing pawn.
    pub from: Square,
    /// The square passed over (empty, the capture's destination).
    pub to: Square,
    /// The enemy pawn that may be taken.
    pub passed: Square,
}

/// The en-passant chances the view's pieces allow (an enemy pawn beside one of ours on our fifth
/// rank, the square behind it seen empty, the square it would have come from not seen occupied).
pub fn ep_chances(view: &View) -> Vec<EpChance> {
    let side = view.side();
    if !view.variant().is_chess_board() {
        return Vec::new();
    }
    let empty = view.seen() & !view.by_color(Color::White) & !view.by_color(Color::Black);
    let mut chances = Vec::new();
    for from in view.pieces(side, Role::Pawn) {
        if side.relative_rank(from.rank()) != 4 {
            continue;
        }
        for to in attacks::pawn_attacks(side, from) {
            let passed = Square::from_coords(to.file(), from.rank());
            let Some(origin) = to.offset(0, side.forward()) else { continue };
            if empty.contains(to)
                && view.pieces(side.opponent(), Role::Pawn).contains(passed)
                && !view.by_color(side).contains(origin)
                && !view.by_color(side.opponent()).contains(origin)
            {
                chances.push(EpChance { from, to, passed });
            }
        }
    }
    chances
}

/// What an observation shows: each square of the board as the receiver knows it (a1 first, by
/// [`Square::index`]) and the receiver's own hand; or what is wrong with the observation.
fn observed_squares(variant: Variant, obs: &WireObservation) -> Result<([SquareView; 64], Hand), String> {
    let mask_text = obs.visibility_mask.as_deref().ok_or("missing field `visibility_mask`")?;
    let mask = parse_mask(variant, mask_text)?;
    let pieces = obs.visible_pieces.as_deref().ok_or("missing field `visible_pieces`")?;
    let mut squares = [SquareView::Fog; 64];
    for sq in mask {
        squares[sq.index()] = SquareView::Empty;
    }
    let mut listed = Bitboard::EMPTY;
    for (index, piece) in pieces {
        let sq = square_of_index(variant, *index)
            .ok_or_else(|| format!("visible_pieces: square {index} is off the board"))?;
        if !mask.contains(sq) {
            return Err(format!("visible_pieces: square {index} ({sq}) is not in visibility_mask"));
        }
        if listed.contains(sq) {
            return Err(format!("visible_pieces: square {index} ({sq}) is listed twice"));
        }
        let role = role_of_letter(variant, &piece.letter)
            .ok_or_else(|| format!("visible_pieces: '{}' on {sq} is not a piece of {variant}", clip(&piece.letter)))?;
        if piece.promoted && (!variant.has_hands() || matches!(role, Role::King | Role::Pawn)) {
            return Err(format!("visible_pieces: the piece on {sq} cannot be promoted in {variant}"));
        }
        listed |= Bitboard::from_square(sq);
        squares[sq.index()] = SquareView::Piece(Piece::new(color(piece.color), role), piece.promoted);
    }
    for (index, owner) in obs.shrouded.as_deref().unwrap_or(&[]) {
        let sq =
            square_of_index(variant, *index).ok_or_else(|| format!("shrouded: square {index} is off the board"))?;
        if variant.is_chess_board() {
            return Err(format!("shrouded: {variant} has no silhouettes (square {index})"));
        }
        if !mask.contains(sq) {
            return Err(format!("shrouded: square {index} ({sq}) is not in visibility_mask"));
        }
        if listed.contains(sq) {
            return Err(format!("shrouded: square {index} ({sq}) is also listed as a piece or twice"));
        }
        listed |= Bitboard::from_square(sq);
        squares[sq.index()] = SquareView::Silhouette(color(*owner));
    }
    Ok((squares, own_hand(variant, obs)?))
}

/// The receiver's own hand an observation shows (`own_hand`, in Dark Crazyhouse only).
fn own_hand(variant: Variant, obs: &WireObservation) -> Result<Hand, String> {
    let mut own = Hand::default();
    match (variant.has_hands(), &obs.own_hand) {
        (true, None) => return Err("missing field `own_hand` (Dark Crazyhouse)".into()),
        (true, Some(hand)) => {
            for (letter, &count) in hand {
                let role = role_of_letter(variant, letter)
                    .filter(|r| Role::HAND.contains(r))
                    .ok_or_else(|| format!("own_hand: '{}' is not a piece a hand holds", clip(letter)))?;
                if count > 16 {
                    return Err(format!("own_hand: {count} pieces of '{}'", clip(letter)));
                }
                (0..count).for_each(|_| own.add(role));
            }
        }
        (false, Some(hand)) if hand.values().any(|&n| n > 0) => {
            return Err(format!("own_hand: {variant} has no hands"));
        }
        (false, _) => {}
    }
    Ok(own)
}

/// The view an observation describes, checked against what the receiver's pieces see. `to_move`
/// is true when the receiver moves next (only then can it hold an en-passant chance); `takes`
/// says whether a pawn capture `from`-`to` onto an empty square is known to be legal now (the
/// receiver's next move, or the request's `legalMoves`), which decides the chance when the mask
/// alone cannot (its two squares are seen anyway).
pub fn decode_view(
    variant: Variant,
    side: Color,
    obs: &WireObservation,
    to_move: bool,
    takes: &dyn Fn(Square, Square) -> bool,
) -> Result<View, String> {
    let (known, hand) = observed_squares(variant, obs)?;
    let build = |ep: Option<Square>| -> Result<View, String> {
        View::from_squares(variant, side, |sq| known[sq.index()], hand, ep).map_err(|e| e.to_string())
    };
    let view = build(None)?;
    let (seen, silhouettes) = vision_of_view(&view);
    if silhouettes != view.silhouettes() {
        return Err(format!(
            "shrouded squares {} are not the silhouettes our pieces see ({})",
            squares(view.silhouettes()),
            squares(silhouettes)
        ));
    }
    let extra = view.seen() & !seen;
    let chances = if to_move { ep_chances(&view) } else { Vec::new() };
    let explains = |c: &EpChance| {
        let both = Bitboard::from_square(c.to) | Bitboard::from_square(c.passed);
        extra.any() && extra & !both == Bitboard::EMPTY
    };
    let ep = if let Some(c) = chances.iter().find(|c| explains(c)) {
        Some(c.to)
    } else if extra.any() {
        return Err(format!("visibility_mask shows {}, which none of our pieces sees", squares(extra)));
    } else {
        chances.iter().find(|c| takes(c.from, c.to)).map(|c| c.to)
    };
    if seen & !view.seen() & !view.silhouettes() != Bitboard::EMPTY {
        return Err(format!(
            "visibility_mask leaves out {}, which our pieces see",
            squares(seen & !view.seen() & !view.silhouettes())
        ));
    }
    match ep {
        None => Ok(view),
        Some(_) => build(ep),
    }
}

/// Square names, for messages.
fn squares(set: Bitboard) -> String {
    let names: Vec<String> = set.into_iter().map(|s| s.to_string()).collect();
    if names.is_empty() {
        "no square".into()
    } else {
        names.join(" ")
    }
}
