//! A small deterministic generator for the tests.

/// A small deterministic generator (xorshift) for the tests that compare a hand reading with
/// serde's on many texts, so they need no crate.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// A number below `n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
