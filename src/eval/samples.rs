//! Training samples of the learned evaluation, as `murk datagen` writes them and the trainer reads
//! them: a position's active inputs ([`super::features::active`]), the teacher's score, the game's
//! result and the mover's own value of its belief, all for the side to move.
//!
//! The file is a sequence of records, each: `u8` number of inputs n, `i16` teacher score in
//! centipawns (little-endian, clamped to +-[`MAX_CP`]), `i8` result (1 win, 0 draw, -1 loss),
//! `i16` belief value in centipawns (clamped the same), then n `u16` input indices.

use super::features::{Active, INPUTS};
use std::io::{self, BufRead, Write};

/// Largest teacher score stored, in centipawns; mates are stored as it.
pub const MAX_CP: i16 = 3000;

/// One training position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The inputs the position switches on.
    pub active: Active,
    /// The teacher's score for the side to move, in centipawns.
    pub score_cp: i16,
    /// The game's result for the side to move: 1, 0 or -1.
    pub result: i8,
    /// The value Murk's search gave the mover's position over its belief (all the worlds it
    /// thought possible, not this one alone), in centipawns: what the fog costs or gives.
    pub belief_cp: i16,
}

impl Sample {
    /// Appends the record to `out`.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&[self.active.len() as u8])?;
        out.write_all(&self.score_cp.clamp(-MAX_CP, MAX_CP).to_le_bytes())?;
        out.write_all(&[self.result as u8])?;
        out.write_all(&self.belief_cp.clamp(-MAX_CP, MAX_CP).to_le_bytes())?;
        for &i in &self.active {
            out.write_all(&i.to_le_bytes())?;
        }
        Ok(())
    }

    /// The record's length in bytes.
    pub fn encoded_len(&self) -> u64 {
        6 + 2 * self.active.len() as u64
    }

    /// Reads the next record, `None` at the end of the file.
    pub fn read(input: &mut impl BufRead) -> io::Result<Option<Sample>> {
        if input.fill_buf()?.is_empty() {
            return Ok(None);
        }
        let mut head = [0u8; 6];
        input.read_exact(&mut head)?;
        let n = head[0] as usize;
        let score_cp = i16::from_le_bytes([head[1], head[2]]);
        let result = head[3] as i8;
        let belief_cp = i16::from_le_bytes([head[4], head[5]]);
        let mut body = vec![0u8; 2 * n];
        input.read_exact(&mut body)?;
        let active: Active = body.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        let bad = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
        if let Some(&i) = active.iter().find(|&&i| i as usize >= INPUTS) {
            return Err(bad(format!("input {i} out of range (the encoding has {INPUTS})")));
        }
        if !(-1..=1).contains(&result) || score_cp.abs() > MAX_CP || belief_cp.abs() > MAX_CP {
            return Err(bad(format!("result {result}, score {score_cp} or belief value {belief_cp} out of range")));
        }
        Ok(Some(Sample { active, score_cp, result, belief_cp }))
    }

    /// Every record of a file.
    pub fn read_all(input: &mut impl BufRead) -> io::Result<Vec<Sample>> {
        let mut all = Vec::new();
        while let Some(s) = Sample::read(input)? {
            all.push(s);
        }
        Ok(all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_a_truncated_file_is_an_error() {
        let samples = vec![
            Sample { active: [3u16, 700, 1200].into_iter().collect(), score_cp: -250, result: -1, belief_cp: -40 },
            Sample { active: Active::new(), score_cp: MAX_CP, result: 1, belief_cp: MAX_CP },
        ];
        let mut bytes = Vec::new();
        for s in &samples {
            s.write(&mut bytes).unwrap();
        }
        assert_eq!(Sample::read_all(&mut &bytes[..]).unwrap(), samples);
        assert_eq!(samples.iter().map(Sample::encoded_len).sum::<u64>(), bytes.len() as u64);
        assert!(Sample::read_all(&mut &bytes[..bytes.len() - 1]).is_err());
    }
}
