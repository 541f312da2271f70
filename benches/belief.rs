//! Speed of the belief's update step: one event applied to the belief of a seeded random game
//! at a fixed ply, per variant (and for the large sets behind the slowest updates), for the
//! opponent's hidden ply (expansion) and the engine's own move (filter). Also the per-square
//! marginals the search reads.
//!
//! Run with `cargo bench --bench belief`.

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use murk::belief::{Belief, BeliefConfig};
use murk::core::{Color, Variant};
use murk::rules::{Game, Played, Position};
use murk::view::SimplePlayer;
use murk::view::{InfoState, Observation};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// White's belief in the first seeded random game that gets to a point where the belief holds at
/// least `min_worlds` and the next ply is the opponent's (`opponent`) or White's own (in
/// Crazyhouse also: Black has pieces in hand), with White's information after that ply.
fn case(variant: Variant, min_worlds: usize, opponent: bool, cfg: &BeliefConfig) -> (Belief, InfoState) {
    (1..100)
        .find_map(|seed| case_in_game(variant, seed, min_worlds, opponent, cfg))
        .expect("a large belief in some game")
}

/// [`case`] in game `seed`, if it gets there.
fn case_in_game(
    variant: Variant,
    seed: u64,
    min_worlds: usize,
    opponent: bool,
    cfg: &BeliefConfig,
) -> Option<(Belief, InfoState)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let start = Position::start(variant);
    let mut game = Game::new(start.clone());
    let mut infos = [InfoState::new(start.clone(), Color::White), InfoState::new(start, Color::Black)];
    let mut belief = Belief::new(&infos[0], cfg.clone());
    let mut armed = false;
    while game.outcome().is_none() {
        let mover = game.position().turn().index();
        // In Crazyhouse, wait until Black holds something to drop in the fog.
        let drops = !variant.has_hands() || !game.position().hand(Color::Black).is_empty();
        armed |= belief.len() >= min_worlds && (mover == 1) == opponent && drops;
        let mv = SimplePlayer::Random.choose(&infos[mover], &mut rng)?;
        infos[mover].send_move(mv).expect("legal");
        match game.play(mv).expect("referee accepts") {
            Played::Bounced(sq) => infos[mover].bounce(sq).expect("bounce"),
            Played::Moved(report) => {
                for c in Color::ALL {
                    infos[c.index()].observe(Observation::after_ply(game.position(), &report, c)).expect("observe");
                }
                if armed {
                    return Some((belief, infos[0].clone()));
                }
            }
        }
        belief.update(&infos[0]);
    }
    None
}

fn bench_update(c: &mut Criterion) {
    // No deadline: the update's whole work is measured, not the clock.
    let cfg = BeliefConfig { lineage: false, expand_ms: 0, ..BeliefConfig::default() };
    let mut group = c.benchmark_group("belief-update");
    group.sample_size(10);
    // The first four are typical sets; the last two are the large ones (past the sample size,
    // so the expansion cuts) that make the slowest updates. Each iteration starts from a fresh
    // clone, so the update writes to memory the process has just been given, page by page: the
    // large opponent ply measured 52 ms so, and 33 ms with glibc told to keep freed memory
    // (GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4294967295:glibc.malloc.trim_threshold=4294967295),
    // about what a long run's updates of that size take (belief-eval, dark-chess r-r: a median
    // of 36 ms over the opponent plies slower than 25 ms). The belief is dropped untimed.
    let cases = [
        ("chess-opponent-ply", Variant::DarkChess, 5_000, true),
        ("chess-own-move", Variant::DarkChess, 5_000, false),
        ("crazyhouse-opponent-ply", Variant::DarkCrazyhouse, 5_000, true),
        ("crossroads-opponent-ply", Variant::DarkCrossroads, 5_000, true),
        ("chess-opponent-ply-large", Variant::DarkChess, 60_000, true),
        ("chess-own-move-large", Variant::DarkChess, 60_000, false),
    ];
    for (name, variant, min_worlds, opponent) in cases {
        let (before, info) = case(variant, min_worlds, opponent, &cfg);
        let after = Belief::new(&info, cfg.clone()).len();
        eprintln!("{name}: {} worlds before the event, {after} after", before.len());
        group.bench_function(name, |b| {
            b.iter_batched(
                || before.clone(),
                |mut belief| {
                    black_box(belief.update(&info));
                    belief
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

fn bench_marginals(c: &mut Criterion) {
    let cfg = BeliefConfig { lineage: false, expand_ms: 0, ..BeliefConfig::default() };
    let (belief, _) = case(Variant::DarkChess, 5_000, true, &cfg);
    c.bench_function("belief-square-probabilities", |b| b.iter(|| black_box(belief.square_probabilities())));
}

criterion_group!(benches, bench_update, bench_marginals);
criterion_main!(benches);
