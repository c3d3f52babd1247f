//! The byte source generated vectors are drawn from: the few operations of
//! `arbitrary::Unstructured` the generator uses, each a handful of
//! instructions (a generated world takes a few hundred draws, and
//! `--random` draws millions of worlds).
//!
//! Every operation takes its bytes from the front, little-endian, as
//! `Unstructured` does for integers; when the bytes run out it reads
//! zeros, so any byte string (a seed's stream, a fuzzer's input) gives a
//! value: the lower bound of a range, `true` for a ratio, the first choice.

use std::ops::RangeInclusive;

pub use arbitrary::{Error, Result};

/// Bytes being drawn from.
#[derive(Debug)]
pub struct Draw<'a> {
    data: &'a [u8],
}

/// The integers a draw can make.
pub trait Int: Copy {
    /// The value as an unsigned offset from zero (two's complement).
    fn to_u64(self) -> u64;
    fn from_u64(v: u64) -> Self;
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

impl<'a> Draw<'a> {
    pub fn new(data: &'a [u8]) -> Draw<'a> {
        Draw { data }
    }

    /// Whether every byte has been drawn.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The next `n` (at most 8) bytes as a little-endian number; zeros past
    /// the end.
    #[inline]
    fn take(&mut self, n: usize) -> u64 {
        if let (Some(word), true) = (self.data.first_chunk::<8>(), n <= 8) {
            // The common case: one unaligned load, masked to n bytes.
            let v = u64::from_le_bytes(*word);
            self.data = &self.data[n..];
            return if n == 8 {
                v
            } else {
                v & ((1u64 << (8 * n)) - 1)
            };
        }
        let k = n.min(8).min(self.data.len());
        let mut v = 0u64;
        for (i, b) in self.data[..k].iter().enumerate() {
            v |= u64::from(*b) << (8 * i);
        }
        self.data = &self.data[k..];
        v
    }

    /// A value in `range`: as many bytes as its width needs, reduced into
    /// it.
    #[inline]
    pub fn int_in_range<T: Int>(&mut self, range: RangeInclusive<T>) -> Result<T> {
        let (lo, hi) = (range.start().to_u64(), range.end().to_u64());
        let span = hi.wrapping_sub(lo);
        if span == 0 {
            return Ok(*range.start());
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
        Ok(T::from_u64(lo.wrapping_add(off)))
    }

    /// True with probability `num / den` (for `den` up to 256).
    #[inline]
    pub fn ratio(&mut self, num: u8, den: u8) -> Result<bool> {
        if den == 0 || num > den {
            return Err(Error::IncorrectFormat);
        }
        let b = self.take(1) as u32;
        Ok(b * u32::from(den) < u32::from(num) * 256)
    }

    /// One of `xs`.
    #[inline]
    pub fn choose<'b, T>(&mut self, xs: &'b [T]) -> Result<&'b T> {
        if xs.is_empty() {
            return Err(Error::EmptyChoose);
        }
        let i = self.int_in_range(0..=xs.len() - 1)?;
        Ok(&xs[i])
    }

    /// Any value of an integer type (or a bool).
    #[inline]
    pub fn arbitrary<T: Arbitrary>(&mut self) -> Result<T> {
        Ok(T::draw(self))
    }
}

/// What [`Draw::arbitrary`] makes: integers of any value, bools.
pub trait Arbitrary: Sized {
    fn draw(d: &mut Draw) -> Self;
}

impl<T: Int> Arbitrary for T {
    #[inline]
    fn draw(d: &mut Draw) -> T {
        T::from_u64(d.take(T::BYTES))
    }
}

impl Arbitrary for bool {
    #[inline]
    fn draw(d: &mut Draw) -> bool {
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
            let v = d.int_in_range(3..=9u32).expect("in range");
            assert!((3..=9).contains(&v));
            lo |= v == 3;
            hi |= v == 9;
        }
        assert!(lo && hi);
        let mut d = Draw::new(&[0xff, 0xff, 0xff, 0xff]);
        assert_eq!(d.int_in_range(0..=u32::MAX).expect("full"), u32::MAX);
        let mut d = Draw::new(&[0]);
        assert_eq!(d.int_in_range(-2..=2i32).expect("signed"), -2);
        let mut d = Draw::new(&[0xff]);
        assert_eq!(d.int_in_range(-2..=2i32).expect("signed"), 2);
    }

    #[test]
    fn out_of_bytes_gives_the_low_end() {
        let mut d = Draw::new(&[]);
        assert_eq!(d.int_in_range(7..=9u8).expect("empty"), 7);
        assert!(d.ratio(1, 4).expect("ratio"));
        assert_eq!(*d.choose(&[4, 5]).expect("choose"), 4);
        assert_eq!(d.arbitrary::<u64>().expect("int"), 0);
        assert!(d.is_empty());
    }

    #[test]
    fn ratios_are_about_right() {
        let bytes: Vec<u8> = (0..=255u8).collect();
        let mut d = Draw::new(&bytes);
        let hits = (0..256).filter(|_| d.ratio(1, 4).expect("ratio")).count();
        assert!((60..=70).contains(&hits), "{hits}");
    }
}
