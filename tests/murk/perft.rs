//! Perft against independent numbers: the published counts named in the issue, and the files in
//! `tests/data/perft/` generated with Fairy-Stockfish (their headers give the commands).
//! Lines marked `#deep` run only in the ignored test:
//! `cargo test --release --test murk perft::deep -- --ignored`.

use murk::core::Variant;
use murk::rules::{perft, Legality, Position};
use std::path::Path;

/// The data files: name, variant, and which moves they count.
const FILES: [(&str, Variant, Legality); 6] = [
    ("dark-chess", Variant::DarkChess, Legality::Pseudo),
    ("dark-crazyhouse", Variant::DarkCrazyhouse, Legality::Pseudo),
    ("dark-crossroads", Variant::DarkCrossroads, Legality::Pseudo),
    ("chess-legal", Variant::DarkChess, Legality::CheckAware),
    ("crazyhouse-legal", Variant::DarkCrazyhouse, Legality::CheckAware),
    ("crossroads-legal", Variant::DarkCrossroads, Legality::CheckAware),
];

/// One expectation: a FEN, a depth and the node count.
struct Case {
    fen: String,
    depth: u32,
    nodes: u64,
}

fn cases(name: &str, deep: bool) -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/perft").join(format!("{name}.perft"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for line in text.lines() {
        let line = match (line.strip_prefix("#deep "), deep) {
            (Some(rest), true) => rest,
            (None, false) if !line.starts_with('#') && !line.trim().is_empty() => line,
            _ => continue,
        };
        let mut fields = line.split(';');
        let fen = fields.next().unwrap().trim().to_string();
        for field in fields {
            let (depth, nodes) = field.trim().split_once(':').unwrap_or_else(|| panic!("bad field {field:?}"));
            out.push(Case { fen: fen.clone(), depth: depth.parse().unwrap(), nodes: nodes.parse().unwrap() });
        }
    }
    out
}

fn check(deep: bool) {
    let mut checked = 0;
    for (name, variant, legality) in FILES {
        for case in cases(name, deep) {
            let pos = Position::from_fen(variant, &case.fen).unwrap_or_else(|e| panic!("{name}: {}: {e}", case.fen));
            assert_eq!(perft(&pos, case.depth, legality), case.nodes, "{name}: {} depth {}", case.fen, case.depth);
            checked += 1;
        }
    }
    assert!(checked > 0, "no perft cases found");
}

#[test]
fn perft_matches_the_reference_files() {
    check(false);
}

#[test]
#[ignore = "deep perft, minutes: cargo test --release --test murk perft::deep -- --ignored"]
fn deep() {
    check(true);
}

#[test]
fn published_counts() {
    let start = Position::start(Variant::DarkChess);
    for (depth, nodes) in [(1, 20), (2, 400), (3, 8902), (4, 197_742), (5, 4_897_256)] {
        assert_eq!(perft(&start, depth, Legality::Pseudo), nodes, "fog-of-war chess depth {depth}");
    }
    for (depth, nodes) in [(1, 20), (2, 400), (3, 8902), (4, 197_281), (5, 4_865_609)] {
        assert_eq!(perft(&start, depth, Legality::CheckAware), nodes, "chess depth {depth}");
    }
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let kiwipete = Position::from_fen(Variant::DarkChess, kiwipete).unwrap();
    assert_eq!(perft(&kiwipete, 4, Legality::Pseudo), 4_206_146);
    for (depth, nodes) in [(1, 48), (2, 2039), (3, 97_862), (4, 4_085_603)] {
        assert_eq!(perft(&kiwipete, depth, Legality::CheckAware), nodes, "kiwipete depth {depth}");
    }
    let zh = Position::start(Variant::DarkCrazyhouse);
    assert_eq!(perft(&zh, 5, Legality::CheckAware), 4_888_832, "crazyhouse depth 5");
}
