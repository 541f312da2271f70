//! `murk belief-eval --records FILE.json --fit NAME`: fits the purposeful opponent model to the
//! moves engine NAME (`any`: every engine) played in recorded games. Each of its moves is taken
//! in the true position it was played from, among all the moves there; the softmax weights of
//! the move [`features`] are fitted by maximum likelihood (Newton's method, with a small ridge),
//! then the uniform floor by a search over its values. Prints the weights (for
//! [`purpose_weights`](crate::belief::purpose_weights)) and the mean log-likelihood of a move
//! under the uniform, the current and the fitted model.

use crate::belief::{features, purpose_weights, Target, FEATURES, FEATURE_NAMES, PURPOSE_FLOOR};
use crate::core::{Move, Variant};
use crate::rules::{Game, Played, Position};
use crate::runner::record::read_records;
use anyhow::{anyhow, Result};
use std::io::Write;
use std::path::Path;

/// One decision: the features of every move of a position, and which was played.
struct Decision {
    features: Vec<[f64; FEATURES]>,
    chosen: usize,
}

/// The ridge on the weights (per decision, so the data outweigh it as it grows).
const RIDGE: f64 = 1e-3;

/// The decisions of engine `name` (or every engine) in the records of `path`, games of
/// `variant` only.
fn decisions(path: &Path, variant: Variant, name: &str) -> Result<Vec<Decision>> {
    let mut out = Vec::new();
    for rec in read_records(path)?.iter().filter(|r| r.variant == variant.name()) {
        let start = Position::from_fen(variant, &rec.start_fen)?;
        let mut game = Game::new(start);
        for text in &rec.moves {
            let pos = game.position().clone();
            let mover = pos.turn();
            let played = pos.find_move(Move::parse(text, variant)?).ok_or_else(|| anyhow!("{text} is not legal"))?;
            let engine = if mover.index() == 0 { &rec.white } else { &rec.black };
            if name == "any" || engine == name {
                let moves = pos.moves();
                let target = Target::new(&pos, mover.opponent());
                if let Some(chosen) = moves.iter().position(|&m| m == played) {
                    let features = moves.iter().map(|&m| features(&pos, m, &target).map(f64::from)).collect();
                    out.push(Decision { features, chosen });
                }
            }
            match game.play(played) {
                Ok(Played::Moved(_)) => {}
                _ => return Err(anyhow!("game {}: {text} does not play", rec.game)),
            }
        }
    }
    Ok(out)
}

/// The softmax chances of one decision's moves under `w`.
fn chances(d: &Decision, w: &[f64; FEATURES]) -> Vec<f64> {
    let scores: Vec<f64> = d.features.iter().map(|f| f.iter().zip(w).map(|(a, b)| a * b).sum()).collect();
    let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = scores.iter().map(|s| (s - top).exp()).collect();
    let total: f64 = exps.iter().sum();
    exps.into_iter().map(|e| e / total).collect()
}

/// The mean log-likelihood of the choices under `w` mixed with a uniform `floor`.
fn mean_ll(data: &[Decision], w: &[f64; FEATURES], floor: f64) -> f64 {
    let sum: f64 = data
        .iter()
        .map(|d| {
            let p = chances(d, w)[d.chosen];
            ((1.0 - floor) * p + floor / d.features.len() as f64).ln()
        })
        .sum();
    sum / data.len().max(1) as f64
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting (`a` is positive definite here).
fn solve(mut a: [[f64; FEATURES]; FEATURES], mut b: [f64; FEATURES]) -> [f64; FEATURES] {
    for col in 0..FEATURES {
        let pivot = (col..FEATURES).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())).unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        let d = a[col][col];
        if d.abs() < 1e-12 {
            continue;
        }
        for row in col + 1..FEATURES {
            let k = a[row][col] / d;
            let pivot_row = a[col];
            for (cell, above) in a[row].iter_mut().zip(pivot_row).skip(col) {
                *cell -= k * above;
            }
            b[row] -= k * b[col];
        }
    }
    let mut x = [0.0; FEATURES];
    for row in (0..FEATURES).rev() {
        let rest: f64 = (row + 1..FEATURES).map(|c| a[row][c] * x[c]).sum();
        x[row] = if a[row][row].abs() < 1e-12 { 0.0 } else { (b[row] - rest) / a[row][row] };
    }
    x
}

/// Fits the softmax weights by Newton's method on the ridge-penalized log-likelihood.
fn fit_weights(data: &[Decision]) -> [f64; FEATURES] {
    let mut w = [0.0; FEATURES];
    let ridge = RIDGE * data.len() as f64;
    for _ in 0..30 {
        let mut grad = [0.0; FEATURES];
        let mut hess = [[0.0; FEATURES]; FEATURES];
        for d in data {
            let p = chances(d, &w);
            let mut mean = [0.0; FEATURES];
            for (f, pi) in d.features.iter().zip(&p) {
                for k in 0..FEATURES {
                    mean[k] += pi * f[k];
                }
            }
            for k in 0..FEATURES {
                grad[k] += d.features[d.chosen][k] - mean[k];
            }
            for (f, pi) in d.features.iter().zip(&p) {
                for i in 0..FEATURES {
                    for j in 0..FEATURES {
                        hess[i][j] += pi * (f[i] - mean[i]) * (f[j] - mean[j]);
                    }
                }
            }
        }
        for k in 0..FEATURES {
            grad[k] -= ridge * w[k];
            hess[k][k] += ridge;
        }
        let step = solve(hess, grad);
        // Backtracking: halve the step until the penalized likelihood does not fall.
        let objective = |w: &[f64; FEATURES]| {
            mean_ll(data, w, 0.0) * data.len() as f64 - 0.5 * ridge * w.iter().map(|v| v * v).sum::<f64>()
        };
        let before = objective(&w);
        let mut scale = 1.0;
        let mut next = w;
        while scale > 1e-4 {
            next = std::array::from_fn(|k| w[k] + scale * step[k]);
            if objective(&next) >= before {
                break;
            }
            scale /= 2.0;
        }
        let moved: f64 = (0..FEATURES).map(|k| (next[k] - w[k]).powi(2)).sum::<f64>().sqrt();
        w = next;
        if moved < 1e-6 {
            break;
        }
    }
    w
}

/// Fits the model to engine `name`'s moves in the records of `path` and prints the result.
pub fn run(path: &Path, variant: Variant, name: &str, out: &mut impl Write) -> Result<()> {
    let data = decisions(path, variant, name)?;
    if data.is_empty() {
        return Err(anyhow!("no move of '{name}' in the {variant} games of {}", path.display()));
    }
    let w = fit_weights(&data);
    let floors = [0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5];
    let floor =
        floors.into_iter().max_by(|a, b| mean_ll(&data, &w, *a).total_cmp(&mean_ll(&data, &w, *b))).unwrap_or(0.1);
    let uniform = mean_ll(&data, &[0.0; FEATURES], 0.0);
    let current = mean_ll(&data, &purpose_weights(variant).map(f64::from), PURPOSE_FLOOR);
    let fitted = mean_ll(&data, &w, floor);
    let names: Vec<String> = FEATURE_NAMES.iter().zip(&w).map(|(n, v)| format!("{n}={v:.3}")).collect();
    writeln!(out, "opponent-fit engine={name} variant={variant} moves={} {}", data.len(), names.join(" "))?;
    let list: Vec<String> = w.iter().map(|v| format!("{v:.3}")).collect();
    writeln!(out, "opponent-fit weights=[{}] floor={floor}", list.join(", "))?;
    writeln!(out, "opponent-fit mean_ll uniform={uniform:.4} current={current:.4} fitted={fitted:.4}")?;
    Ok(())
}
