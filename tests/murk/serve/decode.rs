//! An observation's view read from the wire's squares: every view of random games comes back
//! equal through `encode::observation` and `decode::decode_view`, and each malformed square,
//! piece or hand is refused with a message naming it (never a panic).

use crate::support::{random_game, Step};
use murk::core::{Color, Square, Variant};
use murk::serve::decode::{decode_view, square_of_index};
use murk::serve::encode::{observation, Source};
use murk::serve::wire::{WireColor, WireObservation, WirePiece};
use murk::view::View;

#[test]
fn every_view_of_random_games_comes_back_from_the_wire() {
    // Views checked, and those with an en-passant square, silhouettes, a hand, a promoted piece.
    let mut seen = [0; 5];
    for variant in Variant::ALL {
        for seed in 0..4 {
            random_game(variant, 7100 + seed, 120, |step| {
                let Step::Ply(ply) = step else { return };
                for (side, obs) in [Color::White, Color::Black].into_iter().zip(&ply.observations) {
                    let view = &obs.view;
                    let wire = observation(view, 1, Source::Initial);
                    let to_move = ply.after.turn() == side;
                    let takes = |_: Square, to: Square| view.ep_square() == Some(to);
                    let decoded = decode_view(variant, side, &wire, to_move, &takes);
                    assert_eq!(decoded.as_ref(), Ok(view), "{variant} {side:?} {}", view.to_text());
                    let has = [
                        true,
                        view.ep_square().is_some(),
                        view.silhouettes().any(),
                        !view.hand().is_empty(),
                        view.promoted().any(),
                    ];
                    for (n, has) in seen.iter_mut().zip(has) {
                        *n += usize::from(has);
                    }
                }
            });
        }
    }
    assert!(seen[0] > 1000 && seen[1..].iter().all(|&n| n > 0), "{seen:?}");
}

/// White's view of the start position as the wire writes it.
fn start(variant: Variant) -> WireObservation {
    let view = View::of(&murk::rules::Position::start(variant), Color::White);
    observation(&view, 0, Source::Initial)
}

fn piece(letter: &str, color: WireColor, promoted: bool) -> WirePiece {
    WirePiece { letter: letter.into(), color, promoted }
}

fn index(variant: Variant, name: &str) -> u32 {
    let sq = Square::parse(name).unwrap();
    (0..64).find(|&i| square_of_index(variant, i) == Some(sq)).unwrap()
}

/// The error `decode_view` gives for White's start view changed by `change`.
fn error(variant: Variant, change: impl FnOnce(&mut WireObservation)) -> String {
    let mut obs = start(variant);
    change(&mut obs);
    match decode_view(variant, Color::White, &obs, true, &|_, _| false) {
        Ok(view) => panic!("{variant}: accepted {obs:?} as {}", view.to_text()),
        Err(e) => e,
    }
}

#[test]
fn malformed_squares_pieces_and_hands_are_refused_with_a_message() {
    use Variant::{DarkChess as Chess, DarkCrazyhouse as House, DarkCrossroads as Cross};
    let white = WireColor::White;
    let cases: Vec<(String, &str)> = vec![
        (error(Chess, |o| o.visibility_mask = None), "missing field `visibility_mask`"),
        (error(Chess, |o| o.visible_pieces = None), "missing field `visible_pieces`"),
        (
            error(Chess, |o| o.visible_pieces.as_mut().unwrap()[0].1.letter = "Z".into()),
            "visible_pieces: 'Z' on a1 is not a piece of dark-chess",
        ),
        (
            error(Chess, |o| o.visible_pieces.as_mut().unwrap()[0].1.letter = "C".into()),
            "visible_pieces: 'C' on a1 is not a piece of dark-chess",
        ),
        (
            error(Chess, |o| o.visible_pieces.as_mut().unwrap()[0].1.letter = "RR".into()),
            "visible_pieces: 'RR' on a1 is not a piece of dark-chess",
        ),
        (
            error(Chess, |o| o.visible_pieces.as_mut().unwrap().push((64, piece("Q", white, false)))),
            "visible_pieces: square 64 is off the board",
        ),
        (
            error(Cross, |o| o.visible_pieces.as_mut().unwrap().push((48, piece("Q", white, false)))),
            "visible_pieces: square 48 is off the board",
        ),
        (
            error(Chess, |o| o.visible_pieces.as_mut().unwrap().push((index(Chess, "e5"), piece("Q", white, false)))),
            "visible_pieces: square 36 (e5) is not in visibility_mask",
        ),
        (
            error(Chess, |o| {
                let again = o.visible_pieces.as_ref().unwrap()[0].clone();
                o.visible_pieces.as_mut().unwrap().push(again);
            }),
            "visible_pieces: square 0 (a1) is listed twice",
        ),
        (
            error(Chess, |o| o.visible_pieces.as_mut().unwrap()[1].1.promoted = true),
            "visible_pieces: the piece on b1 cannot be promoted in dark-chess",
        ),
        (
            error(House, |o| o.visible_pieces.as_mut().unwrap()[8].1.promoted = true),
            "visible_pieces: the piece on a2 cannot be promoted in dark-crazyhouse",
        ),
        (
            error(Chess, |o| o.visible_pieces.as_mut().unwrap().push((index(Chess, "e3"), piece("K", white, false)))),
            "view shows more than one king of the viewer",
        ),
        (error(Chess, |o| o.shrouded = Some(vec![(16, white)])), "shrouded: dark-chess has no silhouettes (square 16)"),
        (error(Cross, |o| o.shrouded = Some(vec![(99, white)])), "shrouded: square 99 is off the board"),
        (
            error(Cross, |o| o.shrouded = Some(vec![(index(Cross, "a5"), white)])),
            "shrouded: square 24 (a5) is not in visibility_mask",
        ),
        (
            error(Cross, |o| o.shrouded = Some(vec![(0, white)])),
            "shrouded: square 0 (a1) is also listed as a piece or twice",
        ),
        (error(House, |o| o.own_hand = None), "missing field `own_hand` (Dark Crazyhouse)"),
        (
            error(House, |o| o.own_hand = Some([("K".to_string(), 1)].into())),
            "own_hand: 'K' is not a piece a hand holds",
        ),
        (
            error(House, |o| o.own_hand = Some([("Z".to_string(), 1)].into())),
            "own_hand: 'Z' is not a piece a hand holds",
        ),
        (error(House, |o| o.own_hand = Some([("N".to_string(), 17)].into())), "own_hand: 17 pieces of 'N'"),
        (error(Chess, |o| o.own_hand = Some([("N".to_string(), 1)].into())), "own_hand: dark-chess has no hands"),
    ];
    for (got, expected) in cases {
        assert_eq!(got, expected);
    }
}
