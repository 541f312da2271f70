//! Golden views (the seeds' own examples, cannon screens and targets, horse legs, pawns blocked
//! head-on, en passant) and properties: views never reveal a fogged square, and their text form
//! round-trips.

use crate::support::{random_game, Step};
use murk::core::{Color, Square, Variant};
use murk::rules::Position;
use murk::view::{SquareView, View};
use proptest::prelude::*;

fn view_text(variant: Variant, fen: &str, side: Color) -> String {
    View::of(&Position::from_fen(variant, fen).unwrap(), side).to_text()
}

#[test]
fn start_position_views() {
    let cases = [
        (Variant::DarkChess, Color::White, "????????/????????/????????/????????/8/8/PPPPPPPP/RNBQKBNR -"),
        (Variant::DarkChess, Color::Black, "rnbqkbnr/pppppppp/8/8/????????/????????/????????/???????? -"),
        (Variant::DarkCrazyhouse, Color::White, "????????/????????/????????/????????/8/8/PPPPPPPP/RNBQKBNR[] -"),
        // White's cannon on b1 looks over its own soldier on b2 and sees Red's pawn on b7.
        (Variant::DarkCrossroads, Color::White, "??????/?p????/??????/??????/???3/6/OOOPPP/VCHNKB -"),
        (Variant::DarkCrossroads, Color::Black, "bknhcv/pppooo/6/3???/??????/??????/????P?/?????? -"),
    ];
    for (variant, side, expected) in cases {
        assert_eq!(View::of(&Position::start(variant), side).to_text(), expected, "{variant} {side:?}");
    }
}

#[test]
fn the_chariot_sees_the_soldier_but_not_the_king_behind_it() {
    let text = view_text(Variant::DarkCrossroads, "6/1k4/1o4/6/6/6/6/1V2K1 w - - 0 1", Color::White);
    assert_eq!(text, "??????/??????/?o????/?1????/?1????/?1????/?1?3/1V2K1 -");
}

#[test]
fn cannon_screens_are_silhouettes_and_enemy_targets_are_seen() {
    let v = Variant::DarkCrossroads;
    // Enemy screen on a3, enemy horse first beyond it on a7: a4-a6 stay fogged.
    assert_eq!(
        view_text(v, "k5/h5/6/6/6/o5/6/C3K1 w - - 0 1", Color::White),
        "??????/h?????/??????/??????/??????/x?????/1??3/C3K1 -"
    );
    // The screen is a silhouette even with nothing behind it.
    assert_eq!(
        view_text(v, "k5/6/6/6/6/6/6/C3K1 w - - 0 1", Color::White),
        "x?????/1?????/1?????/1?????/1?????/1?????/1??3/C3K1 -"
    );
    // Over an own screen the cannon sees the enemy king beyond.
    assert_eq!(
        view_text(v, "k5/6/6/6/6/O5/6/C3K1 w - - 0 1", Color::White),
        "k?????/??????/??????/??????/1?????/O?????/1??3/C3K1 -"
    );
}

#[test]
fn blocked_horse_legs_show_a_silhouette_and_lose_their_leaps() {
    let v = Variant::DarkCrossroads;
    assert_eq!(
        view_text(v, "k5/6/6/6/2o3/2H3/6/4K1 w - - 0 1", Color::White),
        "??????/??????/??????/??????/1?x?1?/??H???/1??3/?1?1K1 -"
    );
    // A horse in the corner: its north leg is its own soldier, so b3 is lost; its east leg is free.
    assert_eq!(
        view_text(v, "k5/6/6/6/6/6/O5/H3K1 w - - 0 1", Color::White),
        "??????/??????/??????/??????/??????/1?????/O?4/H??1K1 -"
    );
}

#[test]
fn a_pawn_does_not_see_a_piece_blocking_it_head_on() {
    let text = view_text(Variant::DarkChess, "4k3/8/8/4p3/4P3/8/8/4K3 w - - 0 1", Color::White);
    assert_eq!(text, "????????/????????/????????/????????/????P???/????????/???3??/???1K1?? -");
}

#[test]
fn en_passant_shows_the_target_and_the_pawn_for_one_turn() {
    let fen = "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1";
    assert_eq!(
        view_text(Variant::DarkChess, fen, Color::Black),
        "???1k1??/???3??/????????/????????/???pP???/???2???/????????/???????? e3"
    );
    assert_eq!(
        view_text(Variant::DarkChess, fen, Color::White),
        "????????/????????/????????/????1???/????P???/????????/???3??/???1K1?? -"
    );
}

#[test]
fn view_text_errors_are_typed() {
    for bad in [
        "",
        "8/8/8/8/8/8/8/8",
        "8/8/8/8/8/8/8/3KK3 -",
        "????????/8/8/8/8/8/8/4K3",
        "????????/8/8/8/8/8/8/4K3 e9",
        "????????/8/8/8/8/8/8/4Z3 -",
    ] {
        assert!(View::parse(Variant::DarkChess, Color::White, bad).is_err(), "{bad:?}");
    }
    assert!(View::parse(Variant::DarkCrazyhouse, Color::White, "????????/8/8/8/8/8/8/4K3[q] -").is_err(), "enemy hand");
}

#[test]
fn views_built_square_by_square_equal_the_views_of_random_games() {
    for variant in Variant::ALL {
        for seed in 0..3 {
            random_game(variant, 300 + seed, 150, |step| {
                let Step::Ply(ply) = step else { return };
                for view in ply.observations.iter().map(|o| &o.view) {
                    let built =
                        View::from_squares(variant, view.side(), |sq| view.square(sq), *view.hand(), view.ep_square());
                    assert_eq!(built.as_ref(), Ok(view), "{variant} {}", view.to_text());
                }
            });
        }
    }
}

#[test]
fn views_built_square_by_square_are_checked_as_the_text_is() {
    use murk::core::{Piece, Role};
    use murk::rules::fen::FenError;
    use murk::rules::Hand;
    use murk::view::ViewParseError;
    let e1 = Square::parse("e1").unwrap();
    // White's king on e1 and what `at` shows elsewhere, the rest fog.
    let build = |variant: Variant, at: &dyn Fn(Square) -> Option<SquareView>, hand: Hand, ep: Option<&str>| {
        let square = |sq: Square| match at(sq) {
            Some(known) => known,
            None if sq == e1 => SquareView::Piece(Piece::new(Color::White, Role::King), false),
            None => SquareView::Fog,
        };
        View::from_squares(variant, Color::White, square, hand, ep.map(|e| Square::parse(e).unwrap()))
    };
    let on = |name: &str, known: SquareView| {
        let at = Square::parse(name).unwrap();
        move |sq: Square| (sq == at).then_some(known)
    };
    let piece = |color, role, promoted| SquareView::Piece(Piece::new(color, role), promoted);
    let chess = Variant::DarkChess;
    let ok = build(chess, &|_| None, Hand::default(), None).unwrap();
    assert_eq!(ok.to_text(), "????????/????????/????????/????????/????????/????????/????????/????K??? -");
    assert_eq!(
        build(chess, &on("a1", piece(Color::White, Role::Cannon, false)), Hand::default(), None),
        Err(ViewParseError::Board(FenError::BadPiece('?', chess)))
    );
    assert_eq!(
        build(chess, &on("a1", piece(Color::White, Role::Knight, true)), Hand::default(), None),
        Err(ViewParseError::Board(FenError::BadPromotedMark))
    );
    assert_eq!(
        build(Variant::DarkCrazyhouse, &on("a2", piece(Color::White, Role::Pawn, true)), Hand::default(), None),
        Err(ViewParseError::Board(FenError::BadPromotedMark))
    );
    let mut hand = Hand::default();
    hand.add(Role::Knight);
    assert_eq!(build(chess, &|_| None, hand, None), Err(ViewParseError::Hand("N".into())));
    assert_eq!(
        build(chess, &on("a1", piece(Color::White, Role::King, false)), Hand::default(), None),
        Err(ViewParseError::OwnKings)
    );
    assert_eq!(
        build(chess, &on("e6", SquareView::Empty), Hand::default(), Some("e6")),
        Err(ViewParseError::EnPassant("e6".into()))
    );
    // With our pawn on d5 beside the square passed over, the chance is taken.
    let d5_e6 = |sq: Square| match sq.to_string().as_str() {
        "d5" => Some(piece(Color::White, Role::Pawn, false)),
        "e6" => Some(SquareView::Empty),
        _ => None,
    };
    assert_eq!(build(chess, &d5_e6, Hand::default(), Some("e6")).unwrap().ep_square(), Square::parse("e6"));
}

/// The FEN with the piece on `sq` replaced by `letter` (used to vary what stands in the fog).
fn with_piece(pos: &Position, sq: Square, letter: char) -> Position {
    let variant = pos.variant();
    let fen = pos.to_fen();
    let (board, rest) = fen.split_once(' ').unwrap();
    let (board, hand) = board.split_once('[').map_or((board, String::new()), |(b, h)| (b, format!("[{h}")));
    let mut cells: Vec<Vec<String>> = board
        .split('/')
        .map(|rank| {
            let mut cells = Vec::new();
            for c in rank.chars() {
                match c.to_digit(10) {
                    Some(n) => cells.extend((0..n).map(|_| String::new())),
                    None if c == '~' => cells.last_mut().map(|s: &mut String| s.push('~')).unwrap_or(()),
                    None => cells.push(c.to_string()),
                }
            }
            cells
        })
        .collect();
    cells[7 - sq.rank() as usize][sq.file() as usize] = letter.to_string();
    let ranks: Vec<String> = cells
        .iter()
        .map(|rank| {
            let mut s = String::new();
            let mut empty = 0;
            for cell in rank {
                if cell.is_empty() {
                    empty += 1;
                } else {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    s.push_str(cell);
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            s
        })
        .collect();
    Position::from_fen(variant, &format!("{}{hand} {rest}", ranks.join("/"))).unwrap()
}

fn check_view_hides_the_fog(pos: &Position, side: Color) {
    let view = View::of(pos, side);
    assert_eq!(View::parse(pos.variant(), side, &view.to_text()).as_ref(), Ok(&view), "text round trip");
    for sq in Square::all().filter(|&s| pos.variant().board_mask().contains(s)) {
        match view.square(sq) {
            SquareView::Fog => {}
            SquareView::Empty => assert!(pos.piece_at(sq).is_none()),
            SquareView::Piece(p, promoted) => {
                assert_eq!(pos.piece_at(sq), Some(p));
                assert_eq!(pos.promoted().contains(sq), promoted);
            }
            SquareView::Silhouette(color) => assert_eq!(pos.piece_at(sq).map(|p| p.color), Some(color)),
        }
    }
    if pos.is_king_captured() || pos.king_on_far_rank(pos.turn()) {
        // A game that ended so has a last position no FEN may hold (the variants below are FENs).
        return;
    }
    // What stands on a fogged or silhouetted enemy-held square may change kind without changing the view.
    let hidden = (view.fog() | view.silhouettes()) & pos.by_color(side.opponent());
    let alias = if pos.variant() == Variant::DarkCrossroads { ['o', 'h'] } else { ['n', 'b'] };
    for sq in hidden {
        let piece = pos.piece_at(sq).unwrap();
        let castling_rook = (sq.file() == 0 || sq.file() == 7) && (sq.rank() == 0 || sq.rank() == 7);
        if piece.role == murk::core::Role::King || castling_rook || pos.promoted().contains(sq) {
            continue;
        }
        for letter in alias {
            let letter = if side == Color::White { letter } else { letter.to_ascii_uppercase() };
            let other = with_piece(pos, sq, letter);
            assert_eq!(View::of(&other, side), view, "changing {sq} to {letter} leaked: {}", pos.to_fen());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_games_round_trip_fen_and_never_reveal_the_fog(seed in any::<u64>(), v in 0usize..3) {
        let variant = Variant::ALL[v];
        random_game(variant, seed, 200, |step| {
            if let Step::Ply(ply) = step {
                let fen = ply.after.to_fen();
                let try_won = ply.after.king_on_far_rank(ply.after.turn());
                if !ply.after.is_king_captured() && !try_won {
                    // A FEN must hold both kings and no Try already won; a game that ended so prints
                    // its last position, which does not parse.
                    assert_eq!(Position::from_fen(variant, &fen).as_ref(), Ok(&ply.after), "{fen}");
                }
                for side in Color::ALL {
                    check_view_hides_the_fog(&ply.after, side);
                    assert_eq!(ply.observations[side.index()].view, View::of(&ply.after, side));
                }
            }
        });
    }
}
