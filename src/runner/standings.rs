//! A tournament's standing, kept from its game records: the crosstable (points and games of
//! every engine against every other), the rating list (see [`ratings`](super::ratings)), and
//! each engine's conduct (think times, forfeits by kind). Shown as text and as JSON.

use super::ratings::{solve, Anchor, Ratings, Results};
use super::record::GameRecord;
use super::stats::fixed;
use serde::Serialize;

/// How one engine behaved over its games.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Conduct {
    /// Moves it played.
    pub moves: u64,
    /// Its total think time, in milliseconds.
    pub think_total_ms: u64,
    /// Its longest think, in milliseconds.
    pub think_max_ms: u64,
    /// Games lost on time.
    pub time_forfeits: u32,
    /// Games lost by an illegal move, a malformed reply or a repeated bounce.
    pub illegal: u32,
    /// Games lost by a crash, or by not answering `isready`.
    pub crashes: u32,
}

/// The standing so far.
#[derive(Clone, Debug)]
pub struct Tally {
    names: Vec<String>,
    results: Results,
    draws: Vec<u32>,
    conduct: Vec<Conduct>,
}

/// One engine's line of the rating list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingRow {
    /// The engine.
    pub name: String,
    /// Its Elo relative to the anchor (absent while the games do not link every engine).
    pub elo: Option<f64>,
    /// Half the width of its 95% interval.
    pub elo_95: Option<f64>,
    /// Games played.
    pub games: u32,
    /// Points scored.
    pub points: f64,
    /// Points per game, in percent.
    pub score_pct: f64,
    /// Drawn games, in percent.
    pub draw_pct: f64,
    /// Its conduct.
    pub conduct: Conduct,
}

/// The standing as shown: engines ranked, the crosstable in the same order.
#[derive(Clone, Debug, Serialize)]
pub struct Standings {
    /// How the ratings were computed.
    pub method: &'static str,
    /// What is at 0: `mean` or an engine's name.
    pub anchor: String,
    /// A note when the ratings could not be computed plainly (or at all).
    pub note: Option<String>,
    /// The engines, best first.
    pub engines: Vec<RatingRow>,
    /// `crosstable[i][j]`: `[points, games]` of ranked engine `i` against ranked engine `j`.
    pub crosstable: Vec<Vec<[f64; 2]>>,
}

/// The index in `names` of the engine `anchor` names (`--anchor`), if any.
pub fn anchor_index(anchor: Option<&str>, names: &[String]) -> anyhow::Result<Option<usize>> {
    anchor
        .map(|a| {
            names
                .iter()
                .position(|n| n == a)
                .ok_or_else(|| anyhow::anyhow!("--anchor {a} is none of the engines ({})", names.join(", ")))
        })
        .transpose()
}

/// The method line shown with the ratings.
const METHOD: &str =
    "maximum-likelihood Elo (Bradley-Terry, draws as half points); 95% intervals from the Fisher information";

impl Tally {
    /// An empty standing of the engines `names`.
    pub fn new(names: &[String]) -> Tally {
        let n = names.len();
        Tally {
            names: names.to_vec(),
            results: Results::new(n),
            draws: vec![0; n],
            conduct: vec![Conduct::default(); n],
        }
    }

    /// Counts a finished game played by `players` (White, Black).
    pub fn add(&mut self, players: [usize; 2], record: &GameRecord) {
        let [white, black] = players;
        let white_score = match record.result.as_str() {
            "1-0" => 1.0,
            "0-1" => 0.0,
            _ => 0.5,
        };
        self.results.add(white, black, white_score);
        if white_score == 0.5 {
            self.draws[white] += 1;
            self.draws[black] += 1;
        }
        for ply in &record.plies {
            let c = &mut self.conduct[if ply.side == "white" { white } else { black }];
            c.moves += 1;
            c.think_total_ms += ply.think_ms;
            c.think_max_ms = c.think_max_ms.max(ply.think_ms);
        }
        if let Some(side) = &record.forfeited_by {
            let c = &mut self.conduct[if side == "white" { white } else { black }];
            match record.termination.as_str() {
                "time-forfeit" => c.time_forfeits += 1,
                "crash" | "unresponsive" => c.crashes += 1,
                _ => c.illegal += 1,
            }
        }
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        let twice: f64 = self.results.games.iter().flatten().sum();
        (twice / 2.0).round() as u32
    }

    /// The engine with the best score share so far, with it in percent and its games.
    pub fn leader(&self) -> Option<(&str, f64, u32)> {
        (0..self.names.len())
            .map(|i| (i, self.points(i), self.games_of(i)))
            .filter(|&(_, _, g)| g > 0)
            .max_by(|a, b| (a.1 / f64::from(a.2)).total_cmp(&(b.1 / f64::from(b.2))))
            .map(|(i, p, g)| (self.names[i].as_str(), 100.0 * p / f64::from(g), g))
    }

    fn points(&self, i: usize) -> f64 {
        self.results.points[i].iter().sum()
    }

    fn games_of(&self, i: usize) -> u32 {
        self.results.games[i].iter().sum::<f64>().round() as u32
    }

    /// The standing, ratings anchored at `anchor` (an engine's index, or the mean).
    pub fn standings(&self, anchor: Option<usize>) -> Standings {
        let solved = solve(&self.results, anchor.map_or(Anchor::Mean, Anchor::Engine));
        let (ratings, note): (Option<Ratings>, Option<String>) = match solved {
            Ok(r) if r.regularized => {
                let note = format!(
                    "{} every point against the rest: the maximum-likelihood ratings would be infinite, so one virtual draw was added to every pairing played",
                    self.extremes()
                );
                (Some(r), Some(note))
            }
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(format!("no ratings yet: {e}"))),
        };
        let n = self.names.len();
        let mut order: Vec<usize> = (0..n).collect();
        let key = |i: usize| ratings.as_ref().map_or(self.points(i) / f64::from(self.games_of(i).max(1)), |r| r.elo[i]);
        order.sort_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
        let engines = order
            .iter()
            .map(|&i| {
                let games = self.games_of(i);
                let per_game = |v: f64| if games == 0 { 0.0 } else { 100.0 * v / f64::from(games) };
                RatingRow {
                    name: self.names[i].clone(),
                    elo: ratings.as_ref().map(|r| r.elo[i]),
                    elo_95: ratings.as_ref().map(|r| r.margin[i]),
                    games,
                    points: self.points(i),
                    score_pct: per_game(self.points(i)),
                    draw_pct: per_game(f64::from(self.draws[i])),
                    conduct: self.conduct[i].clone(),
                }
            })
            .collect();
        let crosstable = order
            .iter()
            .map(|&i| order.iter().map(|&j| [self.results.points[i][j], self.results.games[i][j]]).collect())
            .collect();
        Standings {
            method: METHOD,
            anchor: anchor.map_or("mean".to_string(), |k| self.names[k].clone()),
            note,
            engines,
            crosstable,
        }
    }

    /// "A won" / "B lost" / "A won and B lost": the engines that scored all or nothing.
    fn extremes(&self) -> String {
        let mut parts = Vec::new();
        for i in 0..self.names.len() {
            let (p, g) = (self.points(i), f64::from(self.games_of(i)));
            if g > 0.0 && p == g {
                parts.push(format!("{} won", self.names[i]));
            } else if g > 0.0 && p == 0.0 {
                parts.push(format!("{} lost", self.names[i]));
            }
        }
        if parts.is_empty() {
            "a group of engines won or lost".to_string()
        } else {
            parts.join(" and ")
        }
    }
}

impl Standings {
    /// The crosstable and the rating list as text.
    pub fn table_text(&self) -> String {
        let width = self.engines.iter().map(|e| e.name.len()).max().unwrap_or(6).max(6);
        let cell = 9;
        let mut s = String::from("Crosstable (points of the row engine against the column engine / games):\n");
        s.push_str(&format!("{:>3}  {:<width$}", "", "Engine"));
        for k in 1..=self.engines.len() {
            s.push_str(&format!("{:>cell$}", k));
        }
        s.push_str(&format!("{:>9}{:>7}\n", "Points", "Games"));
        for (i, (row, e)) in self.crosstable.iter().zip(&self.engines).enumerate() {
            s.push_str(&format!("{:>3}  {:<width$}", i + 1, e.name));
            for (j, [points, games]) in row.iter().enumerate() {
                let text = if i == j {
                    "-".to_string()
                } else if *games == 0.0 {
                    ".".to_string()
                } else {
                    format!("{}/{}", half(*points), games)
                };
                s.push_str(&format!("{text:>cell$}"));
            }
            s.push_str(&format!("{:>9}{:>7}\n", half(e.points), e.games));
        }
        s.push_str(&format!("\nRatings: {} (anchor: {}):\n", self.method, self.anchor));
        s.push_str(&format!(
            "{:>4}  {:<width$}{:>9}{:>10}{:>7}{:>8}{:>8}\n",
            "Rank", "Engine", "Elo", "95%", "Games", "Score", "Draws"
        ));
        for (i, e) in self.engines.iter().enumerate() {
            let elo = e.elo.map_or("-".to_string(), |v| format!("{:+.1}", v));
            let margin = e.elo_95.map_or("-".to_string(), |v| format!("+/- {}", fixed(v, 1)));
            s.push_str(&format!(
                "{:>4}  {:<width$}{elo:>9}{margin:>10}{:>7}{:>7}%{:>7}%\n",
                i + 1,
                e.name,
                e.games,
                fixed(e.score_pct, 1),
                fixed(e.draw_pct, 1)
            ));
        }
        if let Some(note) = &self.note {
            s.push_str(&format!("Note: {note}.\n"));
        }
        s
    }

    /// Each engine's conduct as text.
    pub fn conduct_text(&self) -> String {
        let width = self.engines.iter().map(|e| e.name.len()).max().unwrap_or(6).max(6);
        let mut s = format!(
            "Engines (from the game records):\n{:<width$}{:>8}{:>12}{:>12}{:>15}{:>9}{:>9}\n",
            "Engine", "Moves", "Think avg", "Think max", "Time forfeits", "Illegal", "Crashes"
        );
        for e in &self.engines {
            let c = &e.conduct;
            let avg = if c.moves == 0 { 0.0 } else { c.think_total_ms as f64 / c.moves as f64 };
            s.push_str(&format!(
                "{:<width$}{:>8}{:>10}ms{:>10}ms{:>15}{:>9}{:>9}\n",
                e.name,
                c.moves,
                fixed(avg, 1),
                c.think_max_ms,
                c.time_forfeits,
                c.illegal,
                c.crashes
            ));
        }
        s
    }
}

/// A score in half points: `3`, `2.5`.
fn half(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}
