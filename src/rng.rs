//! The crate's one seeded random number generator, for BPE-dropout: SplitMix64 (Steele,
//! Lea and Flood, 2014), small and reproducible from a seed. Our own rather than a
//! library's, whose algorithm may change between versions: a seed must give the same
//! output in every release (`pipeline` tests pin a few seeded encodings).

#[derive(Debug, Clone, Copy)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), like Python's `random.random()`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `lo..hi` (for tests and benchmarks: the modulo bias is negligible there).
    pub fn below(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.next_u64() % u64::from(hi - lo)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    #[test]
    fn known_first_outputs() {
        // The reference sequence of SplitMix64 from seed 0.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        let x = SplitMix64::new(7).next_f64();
        assert!((0.0..1.0).contains(&x));
    }
}
