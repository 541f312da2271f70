//! The fallback move: a move chosen from the request alone, for when the engine cannot search (a
//! transcript it cannot follow, a search past the deadline, a failure), and the answer built on
//! it.

use super::decode::{color, role_of_letter, square_of_index, square_of_name};
use super::turn::last_observation;
use super::wire::{TurnRequest, WireMove, WireObservation};
use crate::core::{role_value, Color, Variant};
use serde_json::{json, Map, Value};

/// A move chosen from the request alone, for when the engine cannot search (a transcript it
/// cannot follow, a search past the deadline): take a king the latest observation shows, else the
/// most valuable piece it shows, else any legal move; ties broken by `seed`. `None` only when
/// `legal` is empty.
pub fn fallback_move(
    variant: Variant,
    side: Color,
    last: Option<&WireObservation>,
    legal: &[WireMove],
    seed: u64,
) -> Option<WireMove> {
    if legal.is_empty() {
        return None;
    }
    let mut targets: Vec<Option<f64>> = vec![None; 64];
    for (index, piece) in last.and_then(|o| o.visible_pieces.as_deref()).unwrap_or(&[]) {
        let (Some(sq), Some(role)) = (square_of_index(variant, *index), role_of_letter(variant, &piece.letter)) else {
            continue;
        };
        if color(piece.color) != side {
            targets[sq.index()] = Some(role_value(role));
        }
    }
    let value = |m: &WireMove| -> Option<f64> {
        if m.from.starts_with('*') {
            return None;
        }
        let v = targets[square_of_name(variant, &m.to)?.index()]?;
        Some(v + if m.promotion.as_deref() == Some("queen") { 0.5 } else { 0.0 })
    };
    let best = legal.iter().filter_map(value).fold(None, |acc: Option<f64>, v| Some(acc.map_or(v, |a| a.max(v))));
    let pool: Vec<&WireMove> = match best {
        Some(b) => legal.iter().filter(|m| value(m) == Some(b)).collect(),
        None => legal.iter().collect(),
    };
    Some(pool[(seed % pool.len() as u64) as usize].clone())
}

/// The answer to a turn the search did not answer: the [`fallback_move`] of the request (its
/// `engineSeed` breaking ties) and the diagnostics so far, marked `source: fallback` unless
/// they name a source already, and carrying the problem (`code`, `message`) unless it is only
/// lateness. The request's `legalMoves` must not be empty.
pub(super) fn fallback_answer(
    request: &TurnRequest,
    variant: Variant,
    code: &str,
    message: String,
    mut diag: Map<String, Value>,
) -> (WireMove, Map<String, Value>) {
    let side = color(request.color);
    let seed = request.engine_seed.abs() as u64;
    let mv = fallback_move(variant, side, last_observation(request), &request.legal_moves, seed)
        .expect("legalMoves is not empty");
    diag.entry("source").or_insert(json!("fallback"));
    if code != "late" {
        diag.insert("error".into(), json!({ "code": code, "message": message }));
    }
    (mv, diag)
}
