//! The shapes values are drawn in, shared by the field rules and the
//! types' own domains: a choice from a table, integers biased to their
//! boundaries, flag sets, engine maps, bytes read in pairs or quarters.

use super::draw::{Draw, Source};
use crate::model::types::*;

/// One of `xs`.
pub(super) fn pick<S: Source, T: Copy>(u: &mut Draw<S>, xs: &[T]) -> T {
    *u.choose(xs)
}

/// A u32 biased to 0, small values, the edges of its range, and `near`
/// (each boundary value, one below and one above).
#[inline]
pub(super) fn u32_near<S: Source>(u: &mut Draw<S>, near: &[u32]) -> u32 {
    match u.int_in_range(0..=7u8) {
        0 => 0,
        1 | 2 if !near.is_empty() => {
            let b = pick(u, near);
            match u.int_in_range(0..=2u8) {
                0 => b.wrapping_sub(1),
                1 => b,
                _ => b.wrapping_add(1),
            }
        }
        3 => u.int_in_range(0..=64),
        4 => pick(u, &[u32::MAX, 0x8000_0000, 0x7fff_ffff]),
        _ => u.arbitrary(),
    }
}

/// `n` (at most 64) draws of `ratio(1, 4)`, as bits: eight bytes at a
/// time, each byte read as that ratio reads it.
#[inline]
pub(super) fn quarter_bits<S: Source>(u: &mut Draw<S>, n: usize) -> u64 {
    let mut bits = 0u64;
    let mut i = 0;
    while i < n {
        let k = (n - i).min(8);
        let w = u.bytes(k);
        for j in 0..k {
            // ratio(1, 4): b * 4 < 256.
            if (w >> (8 * j)) & 0xff < 64 {
                bits |= 1 << (i + j);
            }
        }
        i += k;
    }
    bits
}

/// `n` entries of two bytes each, drawn eight bytes (four entries) at a
/// time: `f(i, first, second)` for entry `i`.
#[inline]
pub(super) fn byte_pairs<S: Source>(u: &mut Draw<S>, n: usize, mut f: impl FnMut(usize, u8, u8)) {
    let mut i = 0;
    while i < n {
        let k = (n - i).min(4);
        let w = u.bytes(2 * k);
        for j in 0..k {
            f(i + j, (w >> (16 * j)) as u8, (w >> (16 * j + 8)) as u8);
        }
        i += k;
    }
}

/// A byte read as `int_in_range(0..=n - 1)` reads it (Lemire's
/// reduction of one byte): `n` at most 256.
#[inline]
pub(super) fn below(b: u8, n: usize) -> u8 {
    ((usize::from(b) * n) >> 8) as u8
}

/// A flag set: each flag one time in four.
pub(super) fn flags<S: Source, T: Symbol + Copy>(u: &mut Draw<S>) -> Flags<T> {
    // Bit i is the flag of index i, which is its place in T::ALL (at most
    // 32 of them: a Flags is a u32).
    Flags::from_bits(quarter_bits(u, T::ALL.len().min(32)) as u32)
}

/// An engine map (or NULL) drawn into `slot` in place.
pub(super) fn vl_map_into<S: Source, T: TableIdx>(
    u: &mut Draw<S>,
    n: usize,
    mk: impl Fn(u8) -> T,
    slot: &mut Option<VlMap<T>>,
) {
    if n == 0 || u.ratio(1, 8) {
        *slot = None;
        return;
    }
    // Masks are 2^k - 1 and stay inside their arrays (the kernel sizes
    // them mask + 1); NULL elements never (corpus::invariants).
    // As the driver sizes them: mask + 1 elements of emask + 1 entries.
    let m = slot.get_or_insert_with(|| VlMap {
        mask: 0,
        elems: Slots::new(),
    });
    m.mask = pick(u, &[0, 1, 3, 7, 15]);
    m.elems.clear();
    for _ in 0..m.mask as usize + 1 {
        let emask: u32 = pick(u, &[0, 1, 3, 7, 15]);
        let mut e = MapElem {
            mask: emask,
            entries: Slots::new(),
        };
        // Each entry NULL one time in ten (`b * 10 < 256`), else an index
        // below n: two bytes an entry.
        byte_pairs(u, emask as usize + 1, |_, d, v| {
            // Indices stay below n <= 64: NullableIdx holds them all.
            let x = NullableIdx::new(Some(mk(below(v, n)))).unwrap_or(NullableIdx::NULL);
            let x = if u32::from(d) * 10 < 256 {
                NullableIdx::NULL
            } else {
                x
            };
            // nentries <= 16 = MAP_SLOTS: the push cannot be refused.
            let _ = e.entries.push(x);
        });
        let _ = m.elems.push(Some(e));
    }
}

pub(super) fn opt_idx<S: Source, T>(u: &mut Draw<S>, n: usize, mk: impl Fn(u8) -> T) -> Option<T> {
    if u.ratio(1, 4) {
        None
    } else {
        Some(mk(u.int_in_range(0..=(n - 1) as u8)))
    }
}

/// An index below `n` (at least 1), three times in four among the first
/// four: where engine state and the arguments that name a context or an
/// engine meet.
pub(super) fn low_index<S: Source>(u: &mut Draw<S>, n: usize) -> u8 {
    let b = u.arbitrary::<u8>();
    let m = if b < 192 { n.min(4) } else { n };
    below(u.arbitrary(), m)
}

/// A value per engine or send context: one time in two every entry at
/// its default, else one or two of the first `n` drawn with `f`
/// ([`low_index`]).
pub(super) fn per_index<S: Source, T: Copy + Default + PartialEq, const N: usize>(
    u: &mut Draw<S>,
    n: usize,
    mut f: impl FnMut(&mut Draw<S>) -> T,
) -> PerIndex<T, N> {
    let mut p = PerIndex::new();
    let n = n.min(N);
    let k = match u.arbitrary::<u8>() {
        _ if n == 0 => 0,
        0..=127 => 0,
        128..=223 => 1,
        _ => 2,
    };
    for _ in 0..k {
        let i = usize::from(low_index(u, n));
        // Two entries at most: there is room (PER_INDEX_INPUT).
        let _ = p.set(i, f(u));
    }
    p
}
