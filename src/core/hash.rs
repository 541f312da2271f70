//! The crate's hashing of numbers and bytes: SplitMix64 (Zobrist keys, seeds), a seed
//! derivation for independent streams, and FNV-1a (net files, game ids).

/// SplitMix64's increment (2^64 divided by the golden ratio), also the multiplier of
/// Fibonacci hashing.
pub const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// One step of SplitMix64 from `state`: the next state and its output.
pub const fn splitmix64(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(GOLDEN_GAMMA);
    let mut z = next;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (next, z ^ (z >> 31))
}

/// A 64-bit mix of `x` (SplitMix64's output for state `x`): every input bit moves every output bit.
pub const fn mix64(x: u64) -> u64 {
    splitmix64(x).1
}

/// The seed of stream `index` of a run seeded by `seed`: distinct indices give unrelated seeds.
pub const fn derive_seed(seed: u64, index: u64) -> u64 {
    mix64(seed ^ mix64(index))
}

/// 64-bit FNV-1a of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64's published first outputs from state 0 (Vigna's splitmix64.c).
    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        let (s, a) = splitmix64(0);
        let (_, b) = splitmix64(s);
        assert_eq!((a, b), (0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4));
    }

    /// FNV-1a's published test vectors.
    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
