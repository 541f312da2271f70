//! Speed of one leaf evaluation: the hand-written evaluation against the built-in net of each
//! variant, on the same positions (the start and a busy middlegame per variant).
//!
//! Run with `cargo bench --bench eval`; the ratio of the two times per position is what matters
//! on a shared machine.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use murk::core::Variant;
use murk::eval::{features, net::Net, Evaluator};
use murk::rules::Position;

fn positions() -> Vec<(&'static str, Variant, &'static str)> {
    vec![
        ("chess-start", Variant::DarkChess, Variant::DarkChess.start_fen()),
        ("kiwipete", Variant::DarkChess, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        ("zh-hands", Variant::DarkCrazyhouse, "r1bqk2r/ppp2ppp/2n5/3Pp3/1b6/2N5/PPP2PPP/R1BQKB~NR[QPPn] w KQkq e6 0 9"),
        ("crossroads-mid", Variant::DarkCrossroads, "1k1h2/3o1v/1nb2o/V1p2P/1O1P2/4P1/2O1c1/1CH1KB w - - 0 26"),
    ]
}

fn bench_eval(c: &mut Criterion) {
    let mut group = c.benchmark_group("eval");
    for (name, variant, fen) in positions() {
        let pos = Position::from_fen(variant, fen).unwrap();
        for eval in [Evaluator::Hand, Evaluator::Net(Net::builtin(variant))] {
            group.bench_function(BenchmarkId::new(eval.name(), name), |b| b.iter(|| eval.score(black_box(&pos))));
        }
        // The net's two parts: finding the inputs, and the layers.
        group.bench_function(BenchmarkId::new("inputs", name), |b| b.iter(|| features::active(black_box(&pos))));
        let (net, active) = (Net::builtin(variant), features::active(&pos));
        group.bench_function(BenchmarkId::new("layers", name), |b| b.iter(|| net.forward(black_box(&active))));
    }
    group.finish();
}

criterion_group!(benches, bench_eval);
criterion_main!(benches);
