//! The small deterministic generator (xorshift64*) the property and differential tests of
//! `hw` and `sim-gpu` draw from, so they need no extra crate and repeat exactly.

pub struct Rng(pub u64);

impl Rng {
    // An endless stream has no use for `Iterator`'s adapters, and the tests' calls read well.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform enough in [0, n) for tests.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn bool(&mut self) -> bool {
        self.below(2) == 1
    }

    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}
