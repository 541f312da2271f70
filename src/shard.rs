//! One part of a seeded run split over processes or machines: `--shard K/N` of `murk datagen`,
//! `murk match` and `murk tournament`. A run's units of work (datagen's games, a match's pairs of
//! games) are numbered from 0, and shard K of N does the units whose number leaves K when divided
//! by N, so N shards together do every unit exactly once, and a unit's work depends only on its
//! number and the run's seed: merged, they give what one run gives.

use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (`0 <= index < count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    /// Which part, from 0.
    pub index: u64,
    /// How many parts the run is split into.
    pub count: u64,
}

impl Shard {
    /// The whole run, unsplit.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Whether unit `unit` of the run is this shard's work.
    pub fn owns(self, unit: u64) -> bool {
        unit % self.count == self.index
    }

    /// Whether this is the whole run.
    pub fn is_whole(self) -> bool {
        self.count == 1
    }
}

impl Default for Shard {
    fn default() -> Shard {
        Shard::WHOLE
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// Reads `K/N`, as in `--shard 3/16`.
    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("a shard is K/N with 0 <= K < N (e.g. 3/16), not {text:?}");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (k.trim().parse::<u64>().map_err(|_| bad())?, n.trim().parse::<u64>().map_err(|_| bad())?);
        if index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_the_units_and_bad_text_is_refused() {
        let shards: Vec<Shard> = ["0/3", "1/3", " 2 / 3 "].iter().map(|t| t.parse().unwrap()).collect();
        for unit in 0..30 {
            assert_eq!(shards.iter().filter(|s| s.owns(unit)).count(), 1, "unit {unit}");
        }
        assert_eq!(shards[1].to_string(), "1/3");
        assert!(Shard::WHOLE.owns(7) && Shard::WHOLE.is_whole() && !shards[0].is_whole());
        for bad in ["3/3", "1", "-1/2", "a/b", "1/0", ""] {
            assert!(bad.parse::<Shard>().unwrap_err().contains("K/N"), "{bad}");
        }
    }
}
