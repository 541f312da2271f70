//! The information state against the referee: over random games, both players' states accept
//! every observation, and the moves each can decide from its view are its true moves.

use crate::support::{random_game, Step};
use murk::core::{Color, MoveKind, Variant};
use murk::rules::Position;
use murk::view::InfoState;
use std::collections::HashSet;

fn board_moves(moves: &[murk::core::Move]) -> HashSet<murk::core::Move> {
    moves.iter().copied().filter(|m| !matches!(m.kind, MoveKind::Drop(_))).collect()
}

#[test]
fn own_moves_match_the_true_moves_and_observations_never_contradict() {
    for variant in Variant::ALL {
        for seed in 0..40 {
            let start = Position::start(variant);
            let mut states = [InfoState::new(start.clone(), Color::White), InfoState::new(start, Color::Black)];
            random_game(variant, seed, 300, |step| match step {
                Step::Ply(ply) => {
                    let mover = ply.before.turn();
                    let state = &mut states[mover.index()];
                    let decidable = state.legal_moves();
                    let truth = ply.before.moves();
                    assert_eq!(
                        board_moves(&decidable),
                        board_moves(&truth),
                        "{variant} seed {seed}: {}",
                        ply.before.to_fen()
                    );
                    for m in truth.iter().filter(|m| m.is_drop()) {
                        assert!(decidable.contains(m), "{variant}: true drop {m:?} not offered");
                    }
                    state.send_move(ply.mv).expect("true move is legal from the view");
                    for color in Color::ALL {
                        states[color.index()]
                            .observe(ply.observations[color.index()].clone())
                            .unwrap_or_else(|e| panic!("{variant} seed {seed} {color:?}: {e}; {}", ply.after.to_fen()));
                    }
                }
                Step::Bounce(_, m) => {
                    let mover = if states[0].is_our_turn() { 0 } else { 1 };
                    states[mover].send_move(m).expect("drop into fog is offered");
                    states[mover].bounce(m.to).expect("bounce accepted");
                    assert!(!states[mover].legal_moves().contains(&m), "a bounced square is offered again");
                }
            });
        }
    }
}
