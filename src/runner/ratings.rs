//! Ratings of many engines on one scale: the maximum-likelihood Elo of the Bradley-Terry
//! (logistic) model, with a draw counted as half a win and half a loss, as Ordo and BayesElo's
//! plain model do. The likelihood is maximized by the minorization-maximization iteration
//! (Hunter 2004); the 95% intervals are ±1.96 standard deviations from the inverse of the Fisher
//! information at the solution (relative to the anchor: the mean, or one engine fixed at 0).
//!
//! When some engines won, or lost, every point against all the others, the maximum does not
//! exist (their ratings run off to infinity). Then one virtual draw is added to every pairing
//! that was played, which keeps the ratings finite and the order of the engines; the result
//! says so.

/// Natural log-strength to Elo.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;
/// The normal quantile of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// What the ratings are relative to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Anchor {
    /// The mean of all ratings is 0.
    Mean,
    /// This engine (an index) is at 0.
    Engine(usize),
}

/// The games between every two engines: `points[i][j]` is what `i` scored against `j`
/// (a draw is half a point), `games[i][j] == games[j][i]` the games they played.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    /// Points of the row engine against the column engine.
    pub points: Vec<Vec<f64>>,
    /// Games between the two.
    pub games: Vec<Vec<f64>>,
}

impl Results {
    /// No games yet among `n` engines.
    pub fn new(n: usize) -> Results {
        Results { points: vec![vec![0.0; n]; n], games: vec![vec![0.0; n]; n] }
    }

    /// Adds a game between `a` and `b` in which `a` scored `score_a` (0, 0.5 or 1).
    pub fn add(&mut self, a: usize, b: usize, score_a: f64) {
        self.points[a][b] += score_a;
        self.points[b][a] += 1.0 - score_a;
        self.games[a][b] += 1.0;
        self.games[b][a] += 1.0;
    }

    fn len(&self) -> usize {
        self.points.len()
    }
}

/// The solved ratings.
#[derive(Clone, Debug, PartialEq)]
pub struct Ratings {
    /// Elo per engine, relative to the anchor.
    pub elo: Vec<f64>,
    /// Half the width of each engine's 95% interval, in Elo (0 for an anchor engine).
    pub margin: Vec<f64>,
    /// True if virtual draws were added because the plain maximum does not exist.
    pub regularized: bool,
}

/// Why no ratings can be given.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum RatingError {
    /// Fewer than two engines, or some engine is not linked to the others by games.
    #[error("the games so far do not link every engine to the others")]
    NotConnected,
    /// The anchor is not one of the engines.
    #[error("the anchor is not one of the engines")]
    BadAnchor,
}

/// Solves the ratings of `results`, anchored at `anchor`.
pub fn solve(results: &Results, anchor: Anchor) -> Result<Ratings, RatingError> {
    let n = results.len();
    if let Anchor::Engine(k) = anchor {
        if k >= n {
            return Err(RatingError::BadAnchor);
        }
    }
    if n < 2 || !strongly_connected(n, |i, j| results.games[i][j] > 0.0) {
        return Err(RatingError::NotConnected);
    }
    let regularized = !strongly_connected(n, |i, j| results.points[i][j] > 0.0);
    let mut r = results.clone();
    if regularized {
        for i in 0..n {
            for j in 0..n {
                if r.games[i][j] > 0.0 {
                    r.points[i][j] += 0.5;
                    r.games[i][j] += 1.0;
                }
            }
        }
    }
    let x = maximize(&r);
    let cov = covariance(&fisher(&r, &x), anchor).ok_or(RatingError::NotConnected)?;
    let shift = match anchor {
        Anchor::Mean => x.iter().sum::<f64>() / n as f64,
        Anchor::Engine(k) => x[k],
    };
    Ok(Ratings {
        elo: x.iter().map(|v| (v - shift) * ELO_PER_NAT).collect(),
        margin: (0..n).map(|i| Z95 * cov[i][i].max(0.0).sqrt() * ELO_PER_NAT).collect(),
        regularized,
    })
}

/// True if every engine reaches every other along edges `i -> j` where `edge(i, j)`.
fn strongly_connected(n: usize, edge: impl Fn(usize, usize) -> bool) -> bool {
    let reach_all = |forward: bool| {
        let mut seen = vec![false; n];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(i) = stack.pop() {
            for (j, seen_j) in seen.iter_mut().enumerate() {
                let linked = if forward { edge(i, j) } else { edge(j, i) };
                if linked && !*seen_j {
                    *seen_j = true;
                    stack.push(j);
                }
            }
        }
        seen.into_iter().all(|s| s)
    };
    n > 0 && reach_all(true) && reach_all(false)
}

/// The log-strengths maximizing the likelihood (mean 0), by the MM iteration
/// `γᵢ ← Wᵢ / Σⱼ nᵢⱼ / (γᵢ + γⱼ)`. Needs a strongly connected score graph.
fn maximize(r: &Results) -> Vec<f64> {
    let n = r.len();
    let wins: Vec<f64> = r.points.iter().map(|row| row.iter().sum()).collect();
    let mut gamma = vec![1.0; n];
    for _ in 0..100_000 {
        let mut next: Vec<f64> = (0..n)
            .map(|i| {
                let denom: f64 = (0..n).filter(|&j| j != i).map(|j| r.games[i][j] / (gamma[i] + gamma[j])).sum();
                wins[i] / denom
            })
            .collect();
        let log_mean = next.iter().map(|g| g.ln()).sum::<f64>() / n as f64;
        next.iter_mut().for_each(|g| *g /= log_mean.exp());
        let change = next.iter().zip(&gamma).map(|(a, b)| (a.ln() - b.ln()).abs()).fold(0.0, f64::max);
        gamma = next;
        if change < 1e-12 {
            break;
        }
    }
    gamma.iter().map(|g| g.ln()).collect()
}

/// The Fisher information of the log-strengths `x`: a weighted graph Laplacian with weights
/// `nᵢⱼ pᵢⱼ (1 - pᵢⱼ)`.
fn fisher(r: &Results, x: &[f64]) -> Vec<Vec<f64>> {
    let n = r.len();
    let mut info = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            if i != j && r.games[i][j] > 0.0 {
                let p = 1.0 / (1.0 + (x[j] - x[i]).exp());
                let w = r.games[i][j] * p * (1.0 - p);
                info[i][j] -= w;
                info[i][i] += w;
            }
        }
    }
    info
}

/// The covariance of the ratings relative to `anchor`, from the (singular) information
/// matrix: its pseudo-inverse `(I + J/n)⁻¹ - J/n` for the mean, the inverse without the
/// anchor's row and column otherwise.
fn covariance(info: &[Vec<f64>], anchor: Anchor) -> Option<Vec<Vec<f64>>> {
    let n = info.len();
    match anchor {
        Anchor::Mean => {
            let j = 1.0 / n as f64;
            let shifted: Vec<Vec<f64>> = info.iter().map(|row| row.iter().map(|v| v + j).collect()).collect();
            let inv = invert(shifted)?;
            Some(inv.into_iter().map(|row| row.into_iter().map(|v| v - j).collect()).collect())
        }
        Anchor::Engine(k) => {
            let keep: Vec<usize> = (0..n).filter(|&i| i != k).collect();
            let reduced = keep.iter().map(|&a| keep.iter().map(|&b| info[a][b]).collect()).collect();
            let inv = invert(reduced)?;
            let mut cov = vec![vec![0.0; n]; n];
            for (ia, &a) in keep.iter().enumerate() {
                for (ib, &b) in keep.iter().enumerate() {
                    cov[a][b] = inv[ia][ib];
                }
            }
            Some(cov)
        }
    }
}

/// The inverse of a square matrix by Gauss-Jordan elimination with partial pivoting; `None` if
/// it is singular.
fn invert(mut m: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let mut inv: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect()).collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, pivot);
        inv.swap(col, pivot);
        let p = m[col][col];
        m[col].iter_mut().for_each(|v| *v /= p);
        inv[col].iter_mut().for_each(|v| *v /= p);
        for row in 0..n {
            if row != col {
                let f = m[row][col];
                if f != 0.0 {
                    for k in 0..n {
                        m[row][k] -= f * m[col][k];
                        inv[row][k] -= f * inv[col][k];
                    }
                }
            }
        }
    }
    Some(inv)
}
