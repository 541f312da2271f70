//! Match statistics: the score, the Elo difference with its 95% interval from the logistic model
//! (computed exactly as cutechess-cli does), pentanomial statistics over game pairs, and the SPRT.

use std::collections::HashMap;

/// The score of the first engine against the second.
#[derive(Clone, Debug, Default)]
pub struct Score {
    /// Games won by the first engine.
    pub wins: u32,
    /// Games lost by the first engine.
    pub losses: u32,
    /// Drawn games.
    pub draws: u32,
    /// Completed pairs by the first engine's pair score 0, 0.5, 1, 1.5, 2.
    pub ptnml: [u32; 5],
    half_pairs: HashMap<usize, u8>,
}

impl Score {
    /// Adds one game of pair `pair` in which the first engine scored `half_points` (0, 1 or 2
    /// half-points).
    pub fn add(&mut self, pair: usize, half_points: u8) {
        match half_points {
            2 => self.wins += 1,
            1 => self.draws += 1,
            _ => self.losses += 1,
        }
        match self.half_pairs.remove(&pair) {
            Some(first) => self.ptnml[usize::from(first + half_points.min(2)).min(4)] += 1,
            None => {
                self.half_pairs.insert(pair, half_points.min(2));
            }
        }
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// The first engine's share of the points (NaN before any game).
    pub fn ratio(&self) -> f64 {
        (self.wins as f64 + self.draws as f64 / 2.0) / self.games() as f64
    }

    /// The Elo difference and its 95% margin from the win/draw/loss counts.
    pub fn elo(&self) -> (f64, f64) {
        let n = self.games() as f64;
        let probs = [self.wins as f64 / n, self.draws as f64 / n, self.losses as f64 / n];
        elo_with_margin(&[1.0, 0.5, 0.0], &probs, n)
    }

    /// The Elo difference and its 95% margin from the pentanomial pair counts.
    pub fn ptnml_elo(&self) -> (f64, f64) {
        let n: f64 = self.ptnml.iter().map(|&c| c as f64).sum();
        let probs: Vec<f64> = self.ptnml.iter().map(|&c| c as f64 / n).collect();
        elo_with_margin(&[0.0, 0.25, 0.5, 0.75, 1.0], &probs, n)
    }

    /// `Score of A vs B: W - L - D  [ratio] N`, as cutechess-cli prints it.
    pub fn score_line(&self, first: &str, second: &str) -> String {
        format!(
            "Score of {first} vs {second}: {} - {} - {}  [{}] {}",
            self.wins,
            self.losses,
            self.draws,
            fixed(self.ratio(), 3),
            self.games()
        )
    }

    /// `Elo difference: E +/- M`, as cutechess-cli prints it.
    pub fn elo_line(&self) -> String {
        let (diff, margin) = self.elo();
        format!("Elo difference: {} +/- {}", fixed(diff, 2), fixed(margin, 2))
    }

    /// `Ptnml(0-2): [LL, LD, DD+WL, WD, WW], Elo (pentanomial): E +/- M`.
    pub fn ptnml_line(&self) -> String {
        let (diff, margin) = self.ptnml_elo();
        let p = self.ptnml;
        format!(
            "Ptnml(0-2): [{}, {}, {}, {}, {}], Elo (pentanomial): {} +/- {}",
            p[0],
            p[1],
            p[2],
            p[3],
            p[4],
            fixed(diff, 2),
            fixed(margin, 2)
        )
    }
}

/// The Elo difference for a score share `p` under the logistic model.
pub fn elo_diff(p: f64) -> f64 {
    -400.0 * (1.0 / p - 1.0).log10()
}

/// The expected score share at an Elo difference `elo`.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Mean score, and half the Elo width of the 95% interval of the mean, for outcomes worth
/// `values` with frequencies `probs` over `n` samples.
fn elo_with_margin(values: &[f64], probs: &[f64], n: f64) -> (f64, f64) {
    let mu: f64 = values.iter().zip(probs).map(|(v, p)| v * p).sum();
    let var: f64 = values.iter().zip(probs).map(|(v, p)| p * (v - mu).powi(2)).sum();
    let stdev = var.sqrt() / n.sqrt();
    let lo = mu + phi_inv(0.025) * stdev;
    let hi = mu + phi_inv(0.975) * stdev;
    (elo_diff(mu), (elo_diff(hi) - elo_diff(lo)) / 2.0)
}

/// The inverse normal distribution function, with cutechess-cli's approximation of `erf⁻¹`.
pub fn phi_inv(p: f64) -> f64 {
    std::f64::consts::SQRT_2 * erf_inv(2.0 * p - 1.0)
}

fn erf_inv(x: f64) -> f64 {
    let pi = std::f64::consts::PI;
    let a = 8.0 * (pi - 3.0) / (3.0 * pi * (4.0 - pi));
    let y = (1.0 - x * x).ln();
    let z = 2.0 / (pi * a) + y / 2.0;
    let r = ((z * z - y / a).sqrt() - z).sqrt();
    if x < 0.0 {
        -r
    } else {
        r
    }
}

/// `value` with `decimals` decimals, `inf`/`-inf`/`nan` as Qt writes them.
pub fn fixed(value: f64, decimals: usize) -> String {
    if value.is_nan() {
        "nan".to_string()
    } else {
        // An exact zero prints unsigned (the Elo of an even score is -0.0 by the formula).
        let value = if value == 0.0 { 0.0 } else { value };
        format!("{value:.decimals$}")
    }
}

/// `value` with three significant digits, like C's `%.3g` (cutechess's SPRT line).
pub fn g3(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return fixed(value, 0);
    }
    let exp = value.abs().log10().floor() as i32;
    if !(-5..3).contains(&exp) {
        let s = format!("{value:.2e}");
        let (mantissa, e) = s.split_once('e').unwrap_or((&s, "0"));
        let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{mantissa}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let decimals = (2 - exp).max(0) as usize;
    let s = format!("{value:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A sequential probability ratio test of H0: Elo = `elo0` against H1: Elo = `elo1`.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// The false-positive rate.
    pub alpha: f64,
    /// The false-negative rate.
    pub beta: f64,
}

/// An SPRT specification that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed --sprt '{0}' (expected elo0=E0 elo1=E1 alpha=A beta=B, with 0 < A, B < 1 and E0 < E1)")]
pub struct SprtError(pub String);

/// The SPRT's decision so far.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// H0 accepted: the lower bound was crossed.
    H0,
    /// H1 accepted: the upper bound was crossed.
    H1,
}

impl Sprt {
    /// Parses `elo0=.. elo1=.. alpha=.. beta=..` (the words in any order, all four required).
    pub fn parse(text: &str) -> Result<Sprt, SprtError> {
        let err = || SprtError(text.to_string());
        let mut vals = [None; 4];
        for word in text.split_whitespace() {
            let (key, value) = word.split_once('=').ok_or_else(err)?;
            let i = ["elo0", "elo1", "alpha", "beta"].iter().position(|&k| k == key).ok_or_else(err)?;
            vals[i] = Some(value.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(err)?);
        }
        let [Some(elo0), Some(elo1), Some(alpha), Some(beta)] = vals else { return Err(err()) };
        let rate_ok = |r: f64| r > 0.0 && r < 1.0;
        if !(elo0 < elo1 && rate_ok(alpha) && rate_ok(beta)) {
            return Err(err());
        }
        Ok(Sprt { elo0, elo1, alpha, beta })
    }

    /// The lower and upper log-likelihood-ratio bounds.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 for `score` (the generalized SPRT with a normal
    /// approximation of the trinomial; while a result class is still empty, each class counts
    /// half a game more, so one lucky game cannot end a test).
    pub fn llr(&self, score: &Score) -> f64 {
        let mut counts = [score.wins as f64, score.draws as f64, score.losses as f64];
        if counts.contains(&0.0) {
            counts.iter_mut().for_each(|c| *c += 0.5);
        }
        let n: f64 = counts.iter().sum();
        let mean = (counts[0] + counts[1] / 2.0) / n;
        let var = (counts[0] * (1.0 - mean).powi(2) + counts[1] * (0.5 - mean).powi(2) + counts[2] * mean.powi(2)) / n;
        if var <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The decision for `score`, if a bound has been crossed.
    pub fn verdict(&self, score: &Score) -> Option<Verdict> {
        let llr = self.llr(score);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(Verdict::H1)
        } else if llr <= lower {
            Some(Verdict::H0)
        } else {
            None
        }
    }

    /// `SPRT: llr L (P%), lbound A, ubound B[ - H1 was accepted]`, as cutechess-cli prints it.
    pub fn line(&self, score: &Score, verdict: Option<Verdict>) -> String {
        let llr = self.llr(score);
        let (lower, upper) = self.bounds();
        let mut s = format!(
            "SPRT: llr {} ({}%), lbound {}, ubound {}",
            g3(llr),
            fixed(llr / upper * 100.0, 1),
            g3(lower),
            g3(upper)
        );
        match verdict {
            Some(Verdict::H0) => s.push_str(" - H0 was accepted"),
            Some(Verdict::H1) => s.push_str(" - H1 was accepted"),
            None => {}
        }
        s
    }
}
