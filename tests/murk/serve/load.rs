//! The load test (ignored; `cargo test --release --test murk serve::load -- --ignored
//! --nocapture`): 32 games at once on loopback against the real binary, every answer checked by
//! the referee. It fails on any error or any answer after the watchdog, and prints the latency
//! against the budget and the server's peak memory.

use super::client::{binary_http, play, Reply};
use super::referee::Seat;
use crate::protocol::greedy_opponent;
use murk::core::{Color, Variant};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const GAMES: usize = 32;
/// Mistboard's smallest live budget.
const BUDGET_MS: u64 = 50;
const WATCHDOG_MS: u64 = 1000;
const MAX_PLIES: usize = 200;

/// A field of /proc/<pid>/status in KiB.
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[test]
#[ignore = "load test: 32 games at once (about a minute); run with --ignored --nocapture"]
fn thirty_two_games_at_once() {
    let (process, http) = binary_http(&["--max-games", "32", "--hash", "2048", "--threads", "1"]);
    let pid = process.pid();
    let done = Arc::new(AtomicBool::new(false));
    let peak_rss = Arc::new(AtomicU64::new(0));
    let monitor = {
        let (done, peak_rss) = (Arc::clone(&done), Arc::clone(&peak_rss));
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                if let Some(rss) = status_kib(pid, "VmRSS:") {
                    peak_rss.fetch_max(rss, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let variants = [Variant::DarkChess, Variant::DarkCrazyhouse, Variant::DarkCrossroads];
    let started = Instant::now();
    let results: Vec<(Vec<Reply>, usize, bool)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..GAMES)
            .map(|g| {
                let http = http.clone();
                scope.spawn(move || {
                    let side = if g % 2 == 0 { Color::White } else { Color::Black };
                    let seat = Seat::new(variants[g % 3], side, &format!("load-{g}"));
                    let mut ask = |request: &serde_json::Value, _| http.turn(request, BUDGET_MS, WATCHDOG_MS);
                    let played = play(seat, &mut ask, &mut greedy_opponent(g as u64), MAX_PLIES, WATCHDOG_MS);
                    let plies = played.referee.game.moves().len();
                    (played.replies, plies, played.referee.game.outcome().is_some())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("every game is played without error")).collect()
    });
    let wall = started.elapsed();
    done.store(true, Ordering::Relaxed);
    monitor.join().expect("monitor");
    let hwm = status_kib(pid, "VmHWM:").unwrap_or(0);
    let mut latencies: Vec<Duration> = results.iter().flat_map(|(r, _, _)| r.iter().map(|r| r.elapsed)).collect();
    latencies.sort();
    let answers = latencies.len();
    let late = latencies.iter().filter(|&&l| l >= Duration::from_millis(WATCHDOG_MS)).count();
    let over_budget = latencies.iter().filter(|&&l| l > Duration::from_millis(BUDGET_MS)).count();
    let errors = results.iter().flat_map(|(r, _, _)| r).filter(|r| r.status != 200).count();
    let fallbacks =
        results.iter().flat_map(|(r, _, _)| r).filter(|r| r.body["diagnostics"]["source"] != "search").count();
    let plies: usize = results.iter().map(|(_, p, _)| p).sum();
    let ended = results.iter().filter(|(_, _, e)| *e).count();
    println!(
        "load: {GAMES} games at once ({ended} ended, {plies} plies), {answers} answers in {:.1} s; \
         errors {errors}, after the watchdog ({WATCHDOG_MS} ms) {late}, fallback moves {fallbacks}",
        wall.as_secs_f64()
    );
    println!(
        "latency against a {BUDGET_MS} ms budget: p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms; over the budget {over_budget}",
        percentile(&latencies, 0.5).as_secs_f64() * 1e3,
        percentile(&latencies, 0.9).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3,
        latencies.last().map_or(0.0, |l| l.as_secs_f64() * 1e3),
    );
    println!(
        "server memory: peak RSS sampled {:.1} MiB, VmHWM {:.1} MiB",
        peak_rss.load(Ordering::Relaxed) as f64 / 1024.0,
        hwm as f64 / 1024.0
    );
    assert_eq!(errors, 0);
    assert_eq!(late, 0);
    drop(process);
}
