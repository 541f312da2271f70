//! The learned evaluation: a small fully connected net over [`features`] inputs, and its file.
//!
//! Layers: the inputs to `hidden1` units (a sum of the active inputs' weight columns), clipped to
//! 0..1; `hidden1` to `hidden2`, rectified (below 0 is 0; unbounded above, so that a unit cannot
//! die saturated while the net learns a shift of every score); `hidden2` to one output, the score
//! in pawns for the side to move (the scale of [`super::score`]), to which the base is added.
//!
//! File (little-endian): the magic `MURKNET\0`; `u32` format version; the variant's protocol name
//! and the input encoding's name, each as `u8` length + bytes; `u32` inputs, hidden1, hidden2;
//! `u8` quantisation (0: f32 weights); `u8` base (0: none, 1: the net's output is added to the
//! hand evaluation, whose errors it was trained to correct) and the base's weight as f32; the weights as f32: `w1` (inputs x hidden1, one input's
//! column after another), `b1`, `w2` (hidden1 x hidden2, one first-layer unit's column after
//! another), `b2`, `w3` (hidden2), `b3`; and last a `u64` FNV-1a hash of every byte before it.
//!
//! Both layers are laid out so that inference only adds whole columns (vectorised by the
//! compiler; with AVX2 and FMA where the processor has them).

use super::features::{self, ENCODING, INPUTS};
use crate::core::hash::fnv1a;
use crate::core::Variant;
use crate::rules::Position;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"MURKNET\0";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;
/// The quantisation code of plain f32 weights.
const F32: u8 = 0;
/// Largest hidden layer a file may declare (bounds what a corrupt header can make us allocate).
const MAX_HIDDEN: usize = 1024;

/// Why a net file was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum NetError {
    /// Not a Murk net file at all.
    #[error("not a Murk net file (bad magic)")]
    Magic,
    /// A format version this build does not read.
    #[error("net format version {0}, this build reads version {VERSION}")]
    Version(u32),
    /// A net of another game.
    #[error("the net is for {found}, not {wanted}")]
    Variant {
        /// The file's variant name.
        found: String,
        /// The game being played.
        wanted: Variant,
    },
    /// Another input encoding or input count.
    #[error("the net's inputs are {found}, this build's are {ENCODING} with {INPUTS}")]
    Encoding {
        /// The file's encoding and input count.
        found: String,
    },
    /// Layer sizes out of bounds, or a quantisation this build does not know.
    #[error("unsupported layout: {0}")]
    Layout(String),
    /// The file is shorter or longer than its header says.
    #[error("the file is {found} bytes, its header says {expected}")]
    Size {
        /// The file's length.
        found: usize,
        /// The length its header implies.
        expected: usize,
    },
    /// The hash does not match the contents.
    #[error("the net's hash does not match its contents (a damaged file)")]
    Hash,
    /// The file could not be read.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        reason: String,
    },
}

/// What the net's output is added to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// Nothing: the output is the score.
    Zero,
    /// The hand evaluation ([`super::score`]): the net learned what it misses.
    Hand,
}

impl Base {
    /// The code of the base in a net file.
    fn code(self) -> u8 {
        match self {
            Base::Zero => 0,
            Base::Hand => 1,
        }
    }
}

/// A loaded net, ready to evaluate positions.
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    /// The game it was trained for.
    pub variant: Variant,
    /// What its output is added to.
    pub base: Base,
    /// The weight of the base score in the net's evaluation.
    pub base_weight: f32,
    /// Units of the first hidden layer.
    pub hidden1: usize,
    /// Units of the second hidden layer.
    pub hidden2: usize,
    /// First layer: `hidden1` weights per input, input after input.
    pub w1: Vec<f32>,
    /// First layer biases.
    pub b1: Vec<f32>,
    /// Second layer: `hidden2` weights per unit of the first layer, unit after unit.
    pub w2: Vec<f32>,
    /// Second layer biases.
    pub b2: Vec<f32>,
    /// Output weights.
    pub w3: Vec<f32>,
    /// Output bias.
    pub b3: f32,
}

/// A cursor over the file's bytes that reports a short file instead of panicking.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], NetError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or(NetError::Size { found: self.bytes.len(), expected: self.at.saturating_add(n) + 8 })?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, NetError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, NetError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn text(&mut self) -> Result<String, NetError> {
        let n = self.u8()? as usize;
        Ok(String::from_utf8_lossy(self.take(n)?).into_owned())
    }
    fn floats(&mut self, n: usize) -> Result<Vec<f32>, NetError> {
        Ok(self.take(4 * n)?.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))).collect())
    }
}

impl Net {
    /// A net of the given sizes whose every weight is zero (it scores every position 0).
    pub fn zeros(variant: Variant, base: Base, hidden1: usize, hidden2: usize) -> Net {
        Net {
            variant,
            base,
            base_weight: 1.0,
            hidden1,
            hidden2,
            w1: vec![0.0; INPUTS * hidden1],
            b1: vec![0.0; hidden1],
            w2: vec![0.0; hidden1 * hidden2],
            b2: vec![0.0; hidden2],
            w3: vec![0.0; hidden2],
            b3: 0.0,
        }
    }

    /// Reads a net file for `variant`.
    pub fn from_bytes(bytes: &[u8], variant: Variant) -> Result<Net, NetError> {
        let net = Net::from_bytes_any(bytes)?;
        if net.variant != variant {
            return Err(NetError::Variant { found: net.variant.name().to_string(), wanted: variant });
        }
        Ok(net)
    }

    /// Reads a net file of whatever game its header names.
    pub fn from_bytes_any(bytes: &[u8]) -> Result<Net, NetError> {
        if bytes.len() < MAGIC.len() + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(NetError::Magic);
        }
        let mut r = Reader { bytes: &bytes[..bytes.len() - 8], at: MAGIC.len() };
        let version = r.u32()?;
        if version != VERSION {
            return Err(NetError::Version(version));
        }
        let name = r.text()?;
        let variant: Variant = name.parse().map_err(|_| NetError::Layout(format!("unknown variant '{name}'")))?;
        let encoding = r.text()?;
        let inputs = r.u32()? as usize;
        if encoding != ENCODING || inputs != INPUTS {
            return Err(NetError::Encoding { found: format!("{encoding} with {inputs}") });
        }
        let (hidden1, hidden2) = (r.u32()? as usize, r.u32()? as usize);
        if !(1..=MAX_HIDDEN).contains(&hidden1) || !(1..=MAX_HIDDEN).contains(&hidden2) {
            return Err(NetError::Layout(format!("hidden layers of {hidden1} and {hidden2} units")));
        }
        let quantisation = r.u8()?;
        if quantisation != F32 {
            return Err(NetError::Layout(format!("quantisation {quantisation}")));
        }
        let base = match r.u8()? {
            0 => Base::Zero,
            1 => Base::Hand,
            other => return Err(NetError::Layout(format!("base {other}"))),
        };
        let base_weight = r.floats(1)?[0];
        let expected = r.at + 4 * (inputs * hidden1 + hidden1 + hidden1 * hidden2 + 2 * hidden2 + 1) + 8;
        if bytes.len() != expected {
            return Err(NetError::Size { found: bytes.len(), expected });
        }
        let body = bytes.len() - 8;
        if fnv1a(&bytes[..body]).to_le_bytes() != bytes[body..] {
            return Err(NetError::Hash);
        }
        Ok(Net {
            variant,
            base,
            base_weight,
            hidden1,
            hidden2,
            w1: r.floats(inputs * hidden1)?,
            b1: r.floats(hidden1)?,
            w2: r.floats(hidden1 * hidden2)?,
            b2: r.floats(hidden2)?,
            w3: r.floats(hidden2)?,
            b3: r.floats(1)?[0],
        })
    }

    /// The net built into the binary for `variant` (from `nets/<variant>.nnue`), read once.
    pub fn builtin(variant: Variant) -> Arc<Net> {
        static NETS: [OnceLock<Arc<Net>>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let (slot, bytes): (_, &[u8]) = match variant {
            Variant::DarkCrazyhouse => (&NETS[0], include_bytes!("../../nets/dark-crazyhouse.nnue")),
            Variant::DarkCrossroads => (&NETS[1], include_bytes!("../../nets/dark-crossroads.nnue")),
            Variant::DarkChess => (&NETS[2], include_bytes!("../../nets/dark-chess.nnue")),
        };
        let read = || Arc::new(Net::from_bytes(bytes, variant).expect("the built-in net is checked by the tests"));
        Arc::clone(slot.get_or_init(read))
    }

    /// Reads a net file of any game from disk.
    pub fn load(path: &Path) -> Result<Net, NetError> {
        let io = |e: std::io::Error| NetError::Io { path: path.display().to_string(), reason: e.to_string() };
        Net::from_bytes_any(&std::fs::read(path).map_err(io)?)
    }

    /// The net file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(VERSION.to_le_bytes());
        for text in [self.variant.name(), ENCODING] {
            out.push(text.len() as u8);
            out.extend(text.as_bytes());
        }
        for n in [INPUTS, self.hidden1, self.hidden2] {
            out.extend((n as u32).to_le_bytes());
        }
        out.push(F32);
        out.push(self.base.code());
        out.extend(self.base_weight.to_le_bytes());
        for layer in [&self.w1, &self.b1, &self.w2, &self.b2, &self.w3, &vec![self.b3]] {
            out.extend(layer.iter().flat_map(|w| w.to_le_bytes()));
        }
        out.extend(fnv1a(&out).to_le_bytes());
        out
    }

    /// The net's score of a set of active inputs, in pawns for the side to move.
    pub fn forward(&self, active: &[u16]) -> f32 {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: the processor has the features the function is compiled for.
            return unsafe { self.layers_avx2(active) };
        }
        self.layers(active)
    }

    /// The net's score of `pos`, in pawns for the side to move.
    pub fn evaluate(&self, pos: &Position) -> f32 {
        let mut inputs = [0u16; features::MAX_ACTIVE];
        let n = features::fill(pos, &mut inputs);
        self.forward(&inputs[..n])
    }

    /// [`Net::layers`] compiled for AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn layers_avx2(&self, active: &[u16]) -> f32 {
        self.layers(active)
    }

    /// The layers, with the common layer sizes fixed at compile time so that every column
    /// addition is unrolled and vectorised.
    #[inline(always)]
    fn layers(&self, active: &[u16]) -> f32 {
        match (self.hidden1, self.hidden2) {
            (32, 8) => self.sized::<32, 8>(active),
            (64, 16) => self.sized::<64, 16>(active),
            (128, 32) => self.sized::<128, 32>(active),
            _ => self.any_size(active),
        }
    }

    #[inline(always)]
    fn sized<const H1: usize, const H2: usize>(&self, active: &[u16]) -> f32 {
        let mut first: [f32; H1] = self.b1[..H1].try_into().expect("hidden1 biases");
        for &i in active {
            let i = i as usize;
            let column: &[f32; H1] = self.w1[i * H1..(i + 1) * H1].try_into().expect("an input's column");
            for k in 0..H1 {
                first[k] += column[k];
            }
        }
        let mut second: [f32; H2] = self.b2[..H2].try_into().expect("hidden2 biases");
        for (k, &a) in first.iter().enumerate() {
            let a = a.clamp(0.0, 1.0);
            let column: &[f32; H2] = self.w2[k * H2..(k + 1) * H2].try_into().expect("a unit's column");
            for j in 0..H2 {
                second[j] += a * column[j];
            }
        }
        self.b3 + second.iter().zip(&self.w3).map(|(s, w)| s.max(0.0) * w).sum::<f32>()
    }

    #[inline(always)]
    fn any_size(&self, active: &[u16]) -> f32 {
        let (h1, h2) = (self.hidden1, self.hidden2);
        let mut first = [0f32; MAX_HIDDEN];
        let first = &mut first[..h1];
        first.copy_from_slice(&self.b1);
        for &i in active {
            let i = i as usize;
            for (a, w) in first.iter_mut().zip(&self.w1[i * h1..(i + 1) * h1]) {
                *a += w;
            }
        }
        let mut second = [0f32; MAX_HIDDEN];
        let second = &mut second[..h2];
        second.copy_from_slice(&self.b2);
        for (&a, column) in first.iter().zip(self.w2.chunks_exact(h2)) {
            let a = a.clamp(0.0, 1.0);
            for (s, w) in second.iter_mut().zip(column) {
                *s += a * w;
            }
        }
        self.b3 + second.iter().zip(&self.w3).map(|(s, w)| s.max(0.0) * w).sum::<f32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_net() -> Net {
        let mut net = Net::zeros(Variant::DarkChess, Base::Hand, 4, 2);
        for (i, w) in net.w1.iter_mut().enumerate() {
            *w = ((i * 7919) % 13) as f32 / 40.0 - 0.15;
        }
        net.b1 = vec![0.1, -0.2, 0.3, 0.0];
        net.w2 = vec![0.5, -0.25, 1.0, 0.75, -0.5, 0.25, 0.125, 1.5];
        net.b2 = vec![0.05, -0.05];
        net.w3 = vec![2.0, -1.5];
        net.b3 = 0.25;
        net
    }

    #[test]
    fn a_written_net_reads_back_the_same() {
        let net = small_net();
        assert_eq!(Net::from_bytes(&net.to_bytes(), Variant::DarkChess), Ok(net));
    }

    #[test]
    fn forward_is_the_layers_by_hand() {
        let net = small_net();
        let active = [5u16, 900];
        let h1: Vec<f32> =
            (0..4).map(|k| (net.b1[k] + net.w1[5 * 4 + k] + net.w1[900 * 4 + k]).clamp(0.0, 1.0)).collect();
        let h2: Vec<f32> =
            (0..2).map(|j| ((0..4).map(|k| net.w2[k * 2 + j] * h1[k]).sum::<f32>() + net.b2[j]).max(0.0)).collect();
        let expected = net.b3 + net.w3[0] * h2[0] + net.w3[1] * h2[1];
        assert!((net.forward(&active) - expected).abs() < 1e-6);
    }

    #[test]
    fn damaged_or_foreign_files_are_refused() {
        let bytes = small_net().to_bytes();
        assert_eq!(
            Net::from_bytes(&bytes, Variant::DarkCrazyhouse).unwrap_err().to_string(),
            "the net is for dark-chess, not dark-crazyhouse"
        );
        let mut flipped = bytes.clone();
        flipped[100] ^= 1;
        assert_eq!(Net::from_bytes(&flipped, Variant::DarkChess), Err(NetError::Hash));
        assert!(matches!(Net::from_bytes(&bytes[..bytes.len() - 9], Variant::DarkChess), Err(NetError::Size { .. })));
        assert_eq!(Net::from_bytes(b"hello", Variant::DarkChess), Err(NetError::Magic));
        let mut version = bytes.clone();
        version[8] = 9;
        assert_eq!(Net::from_bytes(&version, Variant::DarkChess), Err(NetError::Version(9)));
        for cut in 0..bytes.len() {
            assert!(Net::from_bytes(&bytes[..cut], Variant::DarkChess).is_err(), "a file cut at {cut} bytes");
        }
    }
}
