//! The send contexts' sizing at probe (`init_sc_pools_and_sizes`): the
//! chip's PIO memory, the receive contexts it counts contexts by, and
//! pio.c's configuration of the types and pools, mostly upstream's with
//! an entry or two off it (wildcards, fixed sizes, invalid values).

use super::super::draw::{Draw, Source};
use crate::model::types::*;

/// The chip's PIO memory in bytes: mostly a chip's (64 to 256 KiB), now
/// and then a few blocks or none (the sizes do not fit), or more, up to
/// what a pool's share is computed in an `int` for
/// (`corpus::invariants`).
pub fn pio_mem_size<S: Source>(u: &mut Draw<S>, _: &World) -> u32 {
    match u.int_in_range(0u8..=3) {
        0 | 1 => 64 * u.int_in_range(1024u32..=4096),
        2 => u.int_in_range(0u32..=0x4000),
        _ => u.int_in_range(0u32..=13_000_000),
    }
}

/// The kernel's receive queues: a few, now and then any `u8`.
pub fn n_krcv_queues<S: Source>(u: &mut Draw<S>, _: &World) -> u8 {
    if u.ratio(7, 8) {
        u.int_in_range(0..=16)
    } else {
        u.arbitrary()
    }
}

/// The receive contexts: the kernel's queues and up to 160 user ones,
/// now and then any `u8` (fewer than the kernel's: the user count wraps).
pub fn num_rcv_contexts<S: Source>(u: &mut Draw<S>, w: &World) -> u8 {
    if u.ratio(7, 8) {
        w.n_krcv_queues.saturating_add(u.int_in_range(0..=160))
    } else {
        u.arbitrary()
    }
}

/// The world sets pio.c's configuration one time in three.
pub fn sc_config_set<S: Source>(u: &mut Draw<S>, _: &World) -> bool {
    u.ratio(1, 3)
}

/// A `short int` of `choices`, as the schema's `u16`.
fn short<S: Source>(u: &mut Draw<S>, choices: &[i16]) -> u16 {
    *u.choose(choices) as u16
}

/// Each type's size: upstream's, one entry in three a pool wildcard (-1,
/// -2), an invalid one, a fixed size, or any `short`.
pub fn sc_config_size<S: Source>(u: &mut Draw<S>, _: &World) -> [u16; 4] {
    let mut v = [0xffff, 102, 32, 0xffff];
    for e in &mut v {
        if u.ratio(1, 3) {
            *e = match u.int_in_range(0u8..=3) {
                0 => short(u, &[-1, -2]),
                1 => short(u, &[-3, -4, i16::MIN]),
                2 => u.int_in_range(0..=300),
                _ => u.arbitrary(),
            };
        }
    }
    v
}

/// Each type's count: upstream's, one entry in three a wildcard (per VL,
/// CPU, kernel receive queue), an invalid one, a few, or any `short`.
pub fn sc_config_count<S: Source>(u: &mut Draw<S>, _: &World) -> [u16; 4] {
    let mut v = [0xffff, 1, 0xfffd, 0xfffe];
    for e in &mut v {
        if u.ratio(1, 3) {
            *e = match u.int_in_range(0u8..=3) {
                0 => short(u, &[-1, -2, -3]),
                1 => short(u, &[-4, i16::MIN]),
                2 => u.int_in_range(0..=8),
                _ => u.arbitrary(),
            };
        }
    }
    v
}

/// Each pool's centipercent: upstream's (all in pool 0), split between
/// the pools, one or both unused (-1: by blocks), a total off 10000, or
/// any `short`s.
pub fn sc_pool_centipercent<S: Source>(u: &mut Draw<S>, _: &World) -> [u16; 2] {
    match u.int_in_range(0u8..=5) {
        0 | 1 => [10000, 0],
        2 => {
            let x = u.int_in_range(0..=10000);
            [x, 10000 - x]
        }
        3 => *u.choose(&[[0xffff, 0xffff], [10000, 0xffff], [0xffff, 10000], [0, 0]]),
        4 => [u.int_in_range(0..=10001), u.int_in_range(0..=10001)],
        _ => [u.arbitrary(), u.arbitrary()],
    }
}

/// Each pool's absolute blocks: upstream's (-1, unused), a few hundred,
/// or any `short`.
pub fn sc_pool_blocks<S: Source>(u: &mut Draw<S>, _: &World) -> [u16; 2] {
    let mut v = [0xffff; 2];
    for e in &mut v {
        *e = match u.int_in_range(0u8..=3) {
            0 | 1 => 0xffff,
            2 => u.int_in_range(0..=3000),
            _ => u.arbitrary(),
        };
    }
    v
}
