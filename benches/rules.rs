//! Speed of the rules core: pseudo-legal perft per variant (nodes per second, single thread),
//! move generation, playing a move, and computing a view.
//!
//! Run with `cargo bench --bench rules`. Compare against Fairy-Stockfish in the same run with
//! `bash benches/perft_vs_fsf.sh`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use murk::core::{Color, Variant};
use murk::rules::{perft, Legality, Position};
use murk::view::View;

/// Positions per variant: the start and a busy middlegame.
fn positions() -> Vec<(&'static str, Variant, &'static str)> {
    vec![
        ("chess-start", Variant::DarkChess, Variant::DarkChess.start_fen()),
        ("kiwipete", Variant::DarkChess, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        ("zh-start", Variant::DarkCrazyhouse, Variant::DarkCrazyhouse.start_fen()),
        ("zh-hands", Variant::DarkCrazyhouse, "r1bqk2r/ppp2ppp/2n5/3Pp3/1b6/2N5/PPP2PPP/R1BQKB~NR[QPPn] w KQkq e6 0 9"),
        ("crossroads-start", Variant::DarkCrossroads, Variant::DarkCrossroads.start_fen()),
        ("crossroads-mid", Variant::DarkCrossroads, "1k1h2/3o1v/1nb2o/V1p2P/1O1P2/4P1/2O1c1/1CH1KB w - - 0 26"),
    ]
}

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, variant, fen) in positions() {
        let pos = Position::from_fen(variant, fen).unwrap();
        let depth = if variant.has_hands() { 3 } else { 4 };
        let nodes = perft(&pos, depth, Legality::Pseudo);
        group.throughput(Throughput::Elements(nodes));
        group.bench_with_input(BenchmarkId::new(name, depth), &pos, |b, pos| {
            b.iter(|| perft(black_box(pos), depth, Legality::Pseudo))
        });
    }
    group.finish();
}

fn bench_movegen_play_view(c: &mut Criterion) {
    let mut group = c.benchmark_group("ops");
    for (name, variant, fen) in positions() {
        let pos = Position::from_fen(variant, fen).unwrap();
        group.bench_function(BenchmarkId::new("moves", name), |b| b.iter(|| black_box(&pos).moves().len()));
        let first = pos.moves()[0];
        group.bench_function(BenchmarkId::new("play", name), |b| {
            b.iter(|| {
                let mut p = black_box(&pos).clone();
                p.play_unchecked(first)
            })
        });
        group.bench_function(BenchmarkId::new("view", name), |b| b.iter(|| View::of(black_box(&pos), Color::White)));
    }
    group.finish();
}

criterion_group!(benches, bench_perft, bench_movegen_play_view);
criterion_main!(benches);
