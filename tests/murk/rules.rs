//! Rules of RULES.md checked on hand-made positions: outcomes in their order, bounces, hands,
//! drops, castling and en passant details.

use murk::core::{Color, Move, MoveKind, Role, Square, Variant};
use murk::rules::{EndReason, Game, PlayError, Played, Position};

fn pos(variant: Variant, fen: &str) -> Position {
    Position::from_fen(variant, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn mv(variant: Variant, text: &str) -> Move {
    Move::parse(text, variant).unwrap()
}

fn play(game: &mut Game, text: &str) -> Played {
    let m = mv(game.position().variant(), text);
    game.play(m).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn moved(game: &mut Game, text: &str) -> murk::rules::PlyReport {
    match play(game, text) {
        Played::Moved(report) => report,
        Played::Bounced(sq) => panic!("{text} bounced on {sq}"),
    }
}

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

#[test]
fn capturing_the_king_wins_at_once() {
    let mut game = Game::new(pos(Variant::DarkChess, "4k3/8/8/8/8/8/8/4K2Q w - - 0 1"));
    let report = moved(&mut game, "h1e4");
    assert_eq!(report.outcome, None);
    moved(&mut game, "e8d8");
    let report = moved(&mut game, "e4d4");
    assert_eq!(report.outcome, None, "no check: a king may stand attacked");
    let report = moved(&mut game, "d8d7");
    assert_eq!(report.outcome, None, "and may walk into attack");
    let report = moved(&mut game, "d4d7");
    let outcome = report.outcome.expect("king captured");
    assert_eq!((outcome.winner, outcome.reason), (Some(Color::White), EndReason::KingCaptured));
    assert_eq!(game.play(mv(Variant::DarkChess, "e1e2")), Err(PlayError::GameOver));
    assert_eq!(game.position().count_moves(), 0, "a position without a king has no moves");
}

#[test]
fn castling_ignores_attacks_and_accepts_king_takes_rook_notation() {
    // Black rooks attack f1 and e1: castling is still allowed (no check in these games).
    let start = pos(Variant::DarkChess, "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    let mut game = Game::new(start.clone());
    let report = moved(&mut game, "e1h1");
    assert_eq!(report.mv.kind, MoveKind::Castle);
    assert_eq!(game.position().to_fen(), "4kr2/8/8/8/8/8/8/R4RK1 b - - 1 1");
    // In the check-aware test mode the same castling is illegal (through check).
    assert!(start.moves().iter().any(|m| m.kind == MoveKind::Castle && m.to == sq("g1")));
    assert!(!start.legal_moves().iter().any(|m| m.kind == MoveKind::Castle && m.to == sq("g1")));
}

#[test]
fn a_try_is_answered_once_then_the_racer_wins() {
    let mut game = Game::new(pos(Variant::DarkCrossroads, "6/k3K1/6/6/6/6/6/6 w - - 0 1"));
    let report = moved(&mut game, "e7e8");
    assert!(report.try_armed && report.outcome.is_none());
    assert_eq!(game.pending_try(), Some(Color::White));
    let report = moved(&mut game, "a7a6");
    let outcome = report.outcome.expect("try completes");
    assert_eq!((outcome.winner, outcome.reason), (Some(Color::White), EndReason::TryCompleted));
}

#[test]
fn a_try_fails_when_the_reply_captures_the_king() {
    let mut game = Game::new(pos(Variant::DarkCrossroads, "v5/k3K1/6/6/6/6/6/6 w - - 0 1"));
    assert!(moved(&mut game, "e7e8").try_armed);
    let outcome = moved(&mut game, "a8e8").outcome.expect("capture");
    assert_eq!((outcome.winner, outcome.reason), (Some(Color::Black), EndReason::KingCaptured));
}

#[test]
fn a_king_on_its_far_rank_in_a_fen_start_is_a_pending_try() {
    // White's king already on rank 8, Red to move: the reply must capture it, as after any arming.
    let start = pos(Variant::DarkCrossroads, "4K1/6/6/6/6/6/k5/6 b - - 0 1");
    let mut game = Game::new(start.clone());
    assert_eq!(game.pending_try(), Some(Color::White));
    let outcome = moved(&mut game, "a2b2").outcome.expect("the race is won");
    assert_eq!((outcome.winner, outcome.reason), (Some(Color::White), EndReason::TryCompleted));
    assert_eq!(game.pending_try(), None, "nothing is pending once the game is over");
    // The same position with White to move is over already: such a FEN is refused.
    let err = Position::from_fen(Variant::DarkCrossroads, "4K1/6/6/6/6/6/k5/6 w - - 0 1").unwrap_err();
    assert!(err.to_string().contains("already won"), "{err}");
    // A king on its far rank means nothing in the games without the Try.
    assert!(Position::from_fen(Variant::DarkChess, "4K3/8/8/8/8/8/8/k7 w - - 0 1").is_ok());
}

#[test]
fn the_defenders_own_race_does_not_save_it() {
    // Red answers White's Try by arming its own: White still wins the race.
    let mut game = Game::new(pos(Variant::DarkCrossroads, "6/4K1/6/6/6/6/k5/6 w - - 0 1"));
    assert!(moved(&mut game, "e7e8").try_armed);
    let outcome = moved(&mut game, "a2a1").outcome.expect("white wins");
    assert_eq!((outcome.winner, outcome.reason), (Some(Color::White), EndReason::TryCompleted));
}

/// Red's king on a2 walled in by its own soldiers on ranks 1 to 3: Red has no move at all. (A
/// Red king on rank 1 would be a pending Red Try.)
const RED_WALLED_IN: &str = "6/4K1/6/6/6/oooooo/kooooo/oooooo w - - 0 1";

#[test]
fn a_try_against_a_side_without_moves_wins_at_once() {
    let mut game = Game::new(pos(Variant::DarkCrossroads, RED_WALLED_IN));
    let report = moved(&mut game, "e7e8");
    let outcome = report.outcome.expect("immediate race win");
    assert_eq!((outcome.winner, outcome.reason), (Some(Color::White), EndReason::TryCompleted));
}

#[test]
fn no_legal_move_loses_except_in_dark_chess() {
    let mut game = Game::new(pos(Variant::DarkCrossroads, RED_WALLED_IN));
    let outcome = moved(&mut game, "e7e6").outcome.expect("red is stuck");
    assert_eq!((outcome.winner, outcome.reason), (Some(Color::White), EndReason::NoLegalMove));

    let walled = "4K3/8/8/8/8/8/pppppppp/rbbqkbbr w - - 0 1";
    let mut game = Game::new(pos(Variant::DarkChess, walled));
    let outcome = moved(&mut game, "e8e7").outcome.expect("black is stuck");
    assert_eq!((outcome.winner, outcome.reason), (None, EndReason::NoLegalMove));

    let mut game = Game::new(pos(Variant::DarkCrazyhouse, "4K3/8/8/8/8/8/pppppppp/rbbqkbbr[] w - - 0 1"));
    let outcome = moved(&mut game, "e8e7").outcome.expect("black is stuck");
    assert_eq!((outcome.winner, outcome.reason), (Some(Color::White), EndReason::NoLegalMove));
    // With a piece in hand the same side can always drop.
    let mut game = Game::new(pos(Variant::DarkCrazyhouse, "4K3/8/8/8/8/8/pppppppp/rbbqkbbr[n] w - - 0 1"));
    assert_eq!(moved(&mut game, "e8e7").outcome, None);
}

#[test]
fn threefold_repetition_of_the_true_position_draws() {
    let mut game = Game::new(Position::start(Variant::DarkChess));
    let cycle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    for text in cycle.iter().chain(&cycle[..3]) {
        assert_eq!(moved(&mut game, text).outcome, None, "{text}");
    }
    let outcome = moved(&mut game, "f6g8").outcome.expect("third occurrence");
    assert_eq!((outcome.winner, outcome.reason), (None, EndReason::Repetition));
}

#[test]
fn hundred_quiet_plies_draw_and_drops_reset_the_count() {
    let mut game = Game::new(pos(Variant::DarkChess, "4k3/8/8/8/8/8/8/R3K3 w - - 98 60"));
    assert_eq!(moved(&mut game, "a1a2").outcome, None);
    let outcome = moved(&mut game, "e8d8").outcome.expect("100 plies");
    assert_eq!((outcome.winner, outcome.reason), (None, EndReason::NoProgress));

    let mut game = Game::new(pos(Variant::DarkCrazyhouse, "4k3/8/8/8/8/8/8/R3K3[N] w - - 99 60"));
    assert_eq!(moved(&mut game, "N@c3").outcome, None);
    assert_eq!(game.position().halfmoves(), 0);

    let mut game = Game::new(pos(Variant::DarkCrossroads, "k5/6/6/6/6/6/O5/4K1 w - - 99 60"));
    assert_eq!(moved(&mut game, "a2a3").outcome, None, "a soldier move is progress");
}

#[test]
fn a_drop_onto_a_hidden_piece_bounces_and_changes_nothing() {
    // Black's knight on d4 is in White's fog; White holds a knight.
    let start = pos(Variant::DarkCrazyhouse, "4k3/8/8/8/3n4/8/8/4K3[N] w - - 3 10");
    let mut game = Game::new(start.clone());
    assert_eq!(play(&mut game, "N@d4"), Played::Bounced(sq("d4")));
    assert_eq!(game.position(), &start, "position, hand, turn and counters unchanged");
    assert_eq!(game.moves().len(), 0);
    assert_eq!(game.play(mv(Variant::DarkCrazyhouse, "N@d4")), Err(PlayError::RepeatedBounce(sq("d4"))));
    // Another hidden piece bounces too; a square the dropper sees occupied is simply illegal.
    assert_eq!(play(&mut game, "N@e8"), Played::Bounced(sq("e8")));
    assert_eq!(game.play(mv(Variant::DarkCrazyhouse, "B@c3")), Err(PlayError::Illegal("B@c3".into())));
    assert_eq!(game.play(mv(Variant::DarkCrazyhouse, "N@e1")), Err(PlayError::DropOntoKnownPiece(sq("e1"))));
    moved(&mut game, "N@c3");
    assert_eq!(game.bounced_this_turn().count(), 0, "bounces are forgotten once the turn passes");
}

#[test]
fn captures_flip_into_the_hand_and_promoted_pieces_demote() {
    let mut game = Game::new(pos(Variant::DarkCrazyhouse, "4k3/8/8/8/8/8/3q~r3/4K3[] w - - 0 1"));
    let report = moved(&mut game, "e1d2");
    assert_eq!(report.captured.map(|(s, p)| (s, p.role)), Some((sq("d2"), Role::Queen)));
    assert_eq!(game.position().hand(Color::White).count(Role::Pawn), 1, "a promoted queen returns as a pawn");
    moved(&mut game, "e8e7");
    moved(&mut game, "d2e2");
    assert_eq!(game.position().hand(Color::White).count(Role::Rook), 1, "an unpromoted rook stays a rook");
    moved(&mut game, "e7e6");
    assert!(game.position().to_fen().starts_with("8/8/4k3/8/8/8/4K3/8[RP] "), "{}", game.position().to_fen());
}

#[test]
fn promotion_marks_and_choices() {
    let p = pos(Variant::DarkCrazyhouse, "4k3/P7/8/8/8/8/8/4K3[] w - - 0 1");
    let promos: Vec<String> =
        p.moves().iter().filter(|m| m.from == sq("a7")).map(|m| m.to_uci(Variant::DarkCrazyhouse)).collect();
    assert_eq!(promos, ["a7a8q", "a7a8r", "a7a8b", "a7a8n"]);
    let mut game = Game::new(p);
    moved(&mut game, "a7a8n");
    assert!(game.position().to_fen().starts_with("N~3k3/"));
    let p = pos(Variant::DarkCrossroads, "k5/4P1/6/6/6/6/6/K5 w - - 0 1");
    let promos: Vec<String> =
        p.moves().iter().filter(|m| m.from == sq("e7")).map(|m| m.to_uci(Variant::DarkCrossroads)).collect();
    assert_eq!(promos, ["e7e8q"], "queen only in Crossroads");
}

#[test]
fn drop_rules() {
    let p = pos(Variant::DarkCrazyhouse, "4k3/8/8/8/8/8/8/4K3[PR] w - - 0 1");
    let drops: Vec<Move> = p.moves().iter().copied().filter(|m| m.is_drop()).collect();
    assert!(drops.iter().all(|m| m.kind != MoveKind::Drop(Role::Pawn) || (1..7).contains(&m.to.rank())));
    assert_eq!(drops.len(), 48 + 62, "pawns on ranks 2-7, rooks anywhere empty");
    // A dropped rook gives no castling right.
    let mut game = Game::new(pos(Variant::DarkCrazyhouse, "4k3/8/8/8/8/8/8/4K3[R] w - - 0 1"));
    moved(&mut game, "R@h1");
    assert_eq!(game.position().castling().0, 0);
    moved(&mut game, "e8e7");
    assert!(game.play(mv(Variant::DarkCrazyhouse, "e1g1")).is_err());
    // A pawn dropped on its second rank may double-step.
    let mut game = Game::new(pos(Variant::DarkCrazyhouse, "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1"));
    moved(&mut game, "P@d2");
    moved(&mut game, "e8e7");
    moved(&mut game, "d2d4");
}

#[test]
fn en_passant_exists_only_when_a_capture_is_possible() {
    let mut game = Game::new(pos(Variant::DarkChess, "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1"));
    moved(&mut game, "e2e4");
    assert_eq!(game.position().ep_square(), Some(sq("e3")));
    let report = moved(&mut game, "d4e3");
    assert_eq!(report.mv.kind, MoveKind::EnPassant);
    assert_eq!(report.captured.map(|(s, _)| s), Some(sq("e4")));
    let mut game = Game::new(pos(Variant::DarkChess, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"));
    moved(&mut game, "e2e4");
    assert_eq!(game.position().ep_square(), None);
}

#[test]
fn cannon_horse_and_soldier_moves() {
    // White cannon a1: a3 is a screen, a6 an enemy beyond it; a1-a2 empty.
    let p = pos(Variant::DarkCrossroads, "k5/6/o5/6/6/O5/6/C3K1 w - - 0 1");
    let cannon: Vec<String> =
        p.moves().iter().filter(|m| m.from == sq("a1")).map(|m| m.to_uci(Variant::DarkCrossroads)).collect();
    assert_eq!(cannon, ["a1b1", "a1c1", "a1d1", "a1a2", "a1a6"]);
    // A horse on c3 with its north leg (c4) blocked loses b5 and d5.
    let p = pos(Variant::DarkCrossroads, "k5/6/6/6/2o3/2H3/6/4K1 w - - 0 1");
    let horse: Vec<Square> = p.moves().iter().filter(|m| m.from == sq("c3")).map(|m| m.to).collect();
    assert!(!horse.contains(&sq("b5")) && !horse.contains(&sq("d5")));
    assert!(horse.contains(&sq("a4")) && horse.contains(&sq("e2")) && horse.contains(&sq("b1")));
    // Soldiers: forward only before the river, sideways too after it; never backward.
    let p = pos(Variant::DarkCrossroads, "k5/6/6/2O3/6/O5/6/4K1 w - - 0 1");
    let targets =
        |from: &str| -> Vec<Square> { p.moves().iter().filter(|m| m.from == sq(from)).map(|m| m.to).collect() };
    assert_eq!(targets("a3"), [sq("a4")]);
    assert_eq!(targets("c5"), [sq("b5"), sq("d5"), sq("c6")]);
}

#[test]
fn bad_fens_are_typed_errors() {
    let cases = [
        (Variant::DarkChess, ""),
        (Variant::DarkChess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1"),
        (Variant::DarkChess, "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        (Variant::DarkChess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"),
        (Variant::DarkChess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Q] w KQkq - 0 1"),
        (Variant::DarkChess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1"),
        (Variant::DarkChess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1"),
        (Variant::DarkChess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1"),
        (Variant::DarkChess, "Pnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
        (Variant::DarkCrazyhouse, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[K] w KQkq - 0 1"),
        (Variant::DarkCrazyhouse, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQK~BNR[] w KQkq - 0 1"),
        (Variant::DarkCrossroads, "bknhcv/pppooo/6/6/6/6/OOOPPP/VCHNKBR w - - 0 1"),
        (Variant::DarkCrossroads, "bknhcv/pppooo/6/6/6/6/OOOPPP/RCHNKB w - - 0 1"),
        (Variant::DarkCrossroads, "bknhcv/pppooo/6/6/6/6/OOOPPP/VCHNKB w K - 0 1"),
    ];
    for (variant, fen) in cases {
        let err = Position::from_fen(variant, fen).expect_err(fen);
        assert!(!err.to_string().is_empty());
    }
}

#[test]
fn fen_round_trips_on_handmade_positions() {
    for (variant, fen) in [
        (Variant::DarkCrazyhouse, "r1bqk2r/ppp2ppp/2n5/3Pp3/1b6/2N5/PPP2PPP/R1BQKB~NR[QPPn] w KQkq e6 0 9"),
        (Variant::DarkCrossroads, "bknhcv/pppooo/6/6/6/6/OOOPPP/VCHNKB w - - 0 1"),
        (Variant::DarkChess, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ] {
        assert_eq!(pos(variant, fen).to_fen(), fen);
    }
}
