//! The byte source generated vectors are drawn from: the few operations
//! the generator needs (it once took them from `arbitrary::Unstructured`),
//! each a handful of instructions (a generated world takes a few hundred
//! draws, and `--random` draws millions of worlds).
//!
//! Every operation takes its bytes from the front, little-endian, as
//! `Unstructured` does for integers; when the bytes run out it reads
//! zeros, so any byte string (a seed's stream, a fuzzer's input) gives a
//! value: the lower bound of a range, `true` for a ratio, the first choice.
//! No operation fails: the generator's only failure is a call that breaks
//! an invariant (`corpus::invariants::validate`).
//!
//! The bytes come from a [`Source`]: a slice ([`Bytes`], a fuzzer's input)
//! or a seeded stream read as it is drawn ([`Stream`] over [`WyRand`],
//! `--random`), which gives the bytes the same stream written into a
//! buffer would, without writing them first.

use std::ops::RangeInclusive;

/// wyrand (Wang Yi's, as in Go's runtime and Zig's standard library): the
/// byte stream a vector is drawn from. One 64x64->128 multiply a word,
/// where SplitMix64 takes two multiplies and three xor-shifts: the stream
/// fills a vector's bytes faster.
#[derive(Debug, Clone)]
pub struct WyRand(u64);

impl WyRand {
    const STEP: u64 = 0xa076_1d64_78bd_642f;

    /// The stream seeded `seed`.
    pub fn new(seed: u64) -> WyRand {
        WyRand(seed)
    }

    /// The next word.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(Self::STEP);
        let t = u128::from(self.0).wrapping_mul(u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db));
        (t >> 64) as u64 ^ t as u64
    }

    /// Moves the stream on by `n` words without producing them.
    pub fn skip(&mut self, n: u64) {
        self.0 = self.0.wrapping_add(n.wrapping_mul(Self::STEP));
    }

    /// The next words' bytes, little-endian, into `buf`.
    pub fn fill(&mut self, buf: &mut [u8]) {
        // Whole words as fixed-size stores (a variable-length copy per word
        // was a memcpy call each).
        let mut chunks = buf.chunks_exact_mut(8);
        for chunk in &mut chunks {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            let v = self.next_u64().to_le_bytes();
            let n = rest.len();
            rest.copy_from_slice(&v[..n]);
        }
    }
}

/// Where drawn bytes come from.
pub trait Source {
    /// The next `n` (at most 8) bytes as a little-endian number; zeros past
    /// the end.
    fn take(&mut self, n: usize) -> u64;
    /// Whether every byte has been drawn.
    fn is_empty(&self) -> bool;
}

/// A byte slice.
#[derive(Debug)]
pub struct Bytes<'a>(&'a [u8]);

impl Source for Bytes<'_> {
    #[inline]
    fn take(&mut self, n: usize) -> u64 {
        if let (Some(word), true) = (self.0.first_chunk::<8>(), n <= 8) {
            // The common case: one unaligned load, masked to n bytes.
            let v = u64::from_le_bytes(*word);
            self.0 = &self.0[n..];
            return if n == 8 {
                v
            } else {
                v & ((1u64 << (8 * n)) - 1)
            };
        }
        let k = n.min(8).min(self.0.len());
        let mut v = 0u64;
        for (i, b) in self.0[..k].iter().enumerate() {
            v |= u64::from(*b) << (8 * i);
        }
        self.0 = &self.0[k..];
        v
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The first `len` bytes of a [`WyRand`] stream (each word's bytes
/// little-endian, words in order), then zeros: what `WyRand::fill`
/// would write into a `len`-byte buffer, read as drawn.
#[derive(Debug, Clone)]
pub struct Stream {
    rng: WyRand,
    /// Unread bytes of the current word, low first.
    word: u64,
    /// How many bytes of `word` are unread.
    have: usize,
    /// Bytes of the `len` not yet read (including those in `word`).
    left: usize,
}

impl Stream {
    /// The first `len` bytes of `rng`'s stream.
    pub fn new(rng: WyRand, len: usize) -> Stream {
        Stream {
            rng,
            word: 0,
            have: 0,
            left: len,
        }
    }
}

impl Source for Stream {
    #[inline]
    fn take(&mut self, n: usize) -> u64 {
        let n = n.min(8);
        if n > self.left {
            return self.take_slow(n);
        }
        self.left -= n;
        let mask = if n == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * n)) - 1
        };
        if n <= self.have {
            let v = self.word & mask;
            self.word = if n == 8 { 0 } else { self.word >> (8 * n) };
            self.have -= n;
            return v;
        }
        // The rest of this word, then the low bytes of the next one.
        let next = self.rng.next_u64();
        let low = self.have;
        let v = (self.word | if low == 0 { next } else { next << (8 * low) }) & mask;
        let used = n - low;
        self.word = if used == 8 { 0 } else { next >> (8 * used) };
        self.have = 8 - used;
        v
    }

    fn is_empty(&self) -> bool {
        self.left == 0
    }
}

impl Stream {
    /// A take that runs past the end: the bytes left, then zeros.
    #[cold]
    fn take_slow(&mut self, n: usize) -> u64 {
        let mut v = 0u64;
        for i in 0..n {
            if self.left == 0 {
                break;
            }
            if self.have == 0 {
                self.word = self.rng.next_u64();
                self.have = 8;
            }
            v |= (self.word & 0xff) << (8 * i);
            self.word >>= 8;
            self.have -= 1;
            self.left -= 1;
        }
        v
    }
}

/// Bytes being drawn from.
#[derive(Debug)]
pub struct Draw<S> {
    src: S,
}

/// The integers a draw can make.
pub trait Int: Copy {
    /// The value as an unsigned offset from zero (two's complement).
    fn to_u64(self) -> u64;
    /// The value whose offset is `v`, truncated to the type.
    fn from_u64(v: u64) -> Self;
    /// Its width in bytes.
    const BYTES: usize;
}

macro_rules! int {
    ($($t:ty),*) => {$(
        impl Int for $t {
            #[inline]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline]
            fn from_u64(v: u64) -> Self {
                v as $t
            }
            const BYTES: usize = std::mem::size_of::<$t>();
        }
    )*};
}
int!(u8, u16, u32, u64, usize, i8, i16, i32, i64);

impl<'a> Draw<Bytes<'a>> {
    /// Draws from a byte slice.
    pub fn new(data: &'a [u8]) -> Draw<Bytes<'a>> {
        Draw { src: Bytes(data) }
    }
}

impl Draw<Stream> {
    /// Draws from a seeded stream.
    pub fn stream(s: Stream) -> Draw<Stream> {
        Draw { src: s }
    }
}

impl<S: Source> Draw<S> {
    /// Whether every byte has been drawn.
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    #[inline]
    fn take(&mut self, n: usize) -> u64 {
        self.src.take(n)
    }

    /// The next `n` (at most 8) bytes, little-endian: what `n` one-byte
    /// draws would read, in one.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> u64 {
        self.take(n)
    }

    /// A value in `range`: as many bytes as its width needs, reduced into
    /// it.
    #[inline]
    pub fn int_in_range<T: Int>(&mut self, range: RangeInclusive<T>) -> T {
        let (lo, hi) = (range.start().to_u64(), range.end().to_u64());
        let span = hi.wrapping_sub(lo);
        if span == 0 {
            return *range.start();
        }
        let bytes = (8 - (span.leading_zeros() as usize) / 8).min(T::BYTES.max(1));
        let x = self.take(bytes);
        // Up to 4 bytes (every range the generator draws from), a multiply
        // and a shift map them onto the range (Lemire's reduction: no
        // division, which would cost more than the rest of the draw).
        let off = if bytes <= 4 {
            (x * (span + 1)) >> (8 * bytes)
        } else {
            match span.checked_add(1) {
                Some(n) => x % n,
                None => x,
            }
        };
        T::from_u64(lo.wrapping_add(off))
    }

    /// True with probability `num / den` (`num <= den`, `den` up to 256;
    /// a constant in every caller).
    #[inline]
    pub fn ratio(&mut self, num: u8, den: u8) -> bool {
        debug_assert!(den > 0 && num <= den, "ratio {num}/{den}");
        let b = self.take(1) as u32;
        b * u32::from(den) < u32::from(num) * 256
    }

    /// One of `xs` (a non-empty table in every caller).
    #[inline]
    pub fn choose<'b, T>(&mut self, xs: &'b [T]) -> &'b T {
        let i = self.int_in_range(0..=xs.len().saturating_sub(1));
        &xs[i]
    }

    /// Any value of an integer type (or a bool).
    #[inline]
    pub fn arbitrary<T: Arbitrary>(&mut self) -> T {
        T::draw(self)
    }
}

/// What [`Draw::arbitrary`] makes: integers of any value, bools.
pub trait Arbitrary: Sized {
    /// Any value, from the next bytes of `d`.
    fn draw<S: Source>(d: &mut Draw<S>) -> Self;
}

impl<T: Int> Arbitrary for T {
    #[inline]
    fn draw<S: Source>(d: &mut Draw<S>) -> T {
        T::from_u64(d.take(T::BYTES))
    }
}

impl Arbitrary for bool {
    #[inline]
    fn draw<S: Source>(d: &mut Draw<S>) -> bool {
        d.take(1) & 1 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_hold_and_reach_both_ends() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
        let mut d = Draw::new(&bytes);
        let (mut lo, mut hi) = (false, false);
        for _ in 0..1000 {
            let v = d.int_in_range(3..=9u32);
            assert!((3..=9).contains(&v));
            lo |= v == 3;
            hi |= v == 9;
        }
        assert!(lo && hi);
        let mut d = Draw::new(&[0xff, 0xff, 0xff, 0xff]);
        assert_eq!(d.int_in_range(0..=u32::MAX), u32::MAX);
        let mut d = Draw::new(&[0]);
        assert_eq!(d.int_in_range(-2..=2i32), -2);
        let mut d = Draw::new(&[0xff]);
        assert_eq!(d.int_in_range(-2..=2i32), 2);
    }

    #[test]
    fn out_of_bytes_gives_the_low_end() {
        let mut d = Draw::new(&[]);
        assert_eq!(d.int_in_range(7..=9u8), 7);
        assert!(d.ratio(1, 4));
        assert_eq!(*d.choose(&[4, 5]), 4);
        assert_eq!(d.arbitrary::<u64>(), 0);
        assert!(d.is_empty());
    }

    #[test]
    fn ratios_are_about_right() {
        let bytes: Vec<u8> = (0..=255u8).collect();
        let mut d = Draw::new(&bytes);
        let hits = (0..256).filter(|_| d.ratio(1, 4)).count();
        assert!((60..=70).contains(&hits), "{hits}");
    }

    /// A stream read as drawn gives what the same stream written into a
    /// buffer gives, across word boundaries and past the end.
    #[test]
    fn a_stream_is_its_buffer() {
        for seed in 0..20u64 {
            let mut buf = [0u8; 100];
            WyRand::new(seed).fill(&mut buf);
            let mut a = Draw::new(&buf);
            let mut b = Draw::stream(Stream::new(WyRand::new(seed), 100));
            let mut widths = WyRand::new(seed ^ 99);
            for _ in 0..40 {
                let n = (widths.next_u64() % 8 + 1) as usize;
                assert_eq!(a.take(n), b.take(n), "seed {seed} width {n}");
            }
            assert!(a.is_empty() && b.is_empty());
        }
    }
}
