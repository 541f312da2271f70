//! Requests mutated at random (fields removed, nulled, made huge, strings replaced, array entries
//! dropped or repeated) never make the server fail: each gets an error naming a problem, or a
//! legal move. A panic on the worker thread would show as `internal_error`; one elsewhere fails
//! the test.

use super::referee::{legal_moves, Referee, Seat};
use crate::protocol::greedy_opponent;
use murk::core::{Color, Variant};
use murk::serve::{wire, ServeConfig, Timing, TurnService};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

fn mutate(v: &mut Value, rng: &mut impl Rng, depth: usize) {
    match v {
        Value::Object(map) if !map.is_empty() => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let key = keys[rng.gen_range(0..keys.len())].clone();
            if depth > 0 && rng.gen_bool(0.7) {
                mutate(map.get_mut(&key).expect("a key"), rng, depth - 1);
                return;
            }
            match rng.gen_range(0..4) {
                0 => drop(map.remove(&key)),
                1 => drop(map.insert(key, Value::Null)),
                2 => drop(map.insert(key, json!(u64::MAX))),
                _ => drop(map.insert(key, json!("0x"))),
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let i = rng.gen_range(0..items.len());
            if depth > 0 && rng.gen_bool(0.7) {
                mutate(&mut items[i], rng, depth - 1);
            } else if rng.gen_bool(0.5) {
                items.remove(i);
            } else {
                let copy = items[i].clone();
                items.push(copy);
            }
        }
        Value::Number(_) => *v = json!(rng.gen_range(0..100)),
        Value::String(s) => *s = if rng.gen_bool(0.5) { "0xffffffffffffffff".into() } else { "*Q".into() },
        _ => {}
    }
}

#[test]
fn mutated_requests_get_an_error_or_a_legal_move() {
    let engine =
        Arc::new(TurnService::new(ServeConfig { player: "random".into(), ..ServeConfig::default() }).expect("config"));
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    let mut bases = Vec::new();
    for (variant, side) in [
        (Variant::DarkChess, Color::White),
        (Variant::DarkCrazyhouse, Color::Black),
        (Variant::DarkCrossroads, Color::White),
    ] {
        let mut referee = Referee::new(Seat::new(variant, side, "fuzz"));
        let mut opponent = greedy_opponent(1);
        while referee.game.outcome().is_none() && referee.game.moves().len() < 12 {
            if referee.engine_to_move() {
                bases.push(referee.request(1));
                let first = legal_moves(&referee.game)[0].clone();
                referee.play_engine(&first).expect("legal");
            } else {
                let m = opponent(&referee.game);
                referee.play_opponent(m);
            }
        }
    }
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..2000 {
        let mut request = bases[i % bases.len()].clone();
        for _ in 0..rng.gen_range(1..4) {
            mutate(&mut request, &mut rng, 5);
        }
        request["sessionId"] = json!(format!("fuzz-{}", i % 7));
        let answer = wire::check_version(&request)
            .and_then(|()| wire::turn_request(request.clone()))
            .and_then(|r| engine.turn(r, Timing::now(Some(5), Some(200))));
        let outcome = match answer {
            Ok(response) => {
                let legal = request["legalMoves"].as_array().expect("answered requests have legal moves");
                let mv = serde_json::to_value(&response.mv).expect("a move");
                assert!(legal.contains(&mv), "{mv} is not among legalMoves");
                response.diagnostics.get("error").map_or("move".to_string(), |e| e["code"].to_string())
            }
            Err(problem) => {
                assert!((400..500).contains(&problem.status), "{problem:?}");
                problem.code.to_string()
            }
        };
        assert!(!outcome.contains("internal_error"), "request {i}: {request}");
        *outcomes.entry(outcome).or_default() += 1;
    }
    eprintln!("{outcomes:?}");
    assert!(outcomes.len() >= 4, "the mutations reach several checks: {outcomes:?}");
}
