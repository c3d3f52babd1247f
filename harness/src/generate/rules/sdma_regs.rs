//! An engine's registers programmed at probe (`init_sdma_regs`,
//! `set_sdma_integrity`, `sdma_update_lmc`), the ring size asked for
//! (`sdma_get_descq_cnt`), the engines' egress status
//! (`sdma_wait`) and a state's name (`sdma_state_name`).

use super::super::draw::{Draw, Source};
use super::super::shapes::per_index;
use crate::model::types::*;

/// The ring size asked for: mostly a power of two around the valid
/// range (32 to 65536), now and then upstream's default, 0, or any `u32`
/// (read as a `u16`).
pub fn sdma_descq_cnt<S: Source>(u: &mut Draw<S>, _: &World) -> u32 {
    match u.int_in_range(0u8..=3) {
        0 | 1 => 1 << u.int_in_range(5u32..=16),
        2 => *u.choose(&[2048, 0, 63, 64, 65, 32767, 32768, 0x10000 | 64]),
        _ => u.arbitrary(),
    }
}

/// An engine's share of the SDMA memory in blocks: a chip's (a few
/// hundred), now and then any `u32` (its product with the engine's index
/// wraps).
pub fn sdma_credits<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u32 {
    if u.ratio(3, 4) {
        u.int_in_range(0..=1024)
    } else {
        u.arbitrary()
    }
}

/// The idle count in chip clocks: 0 (no idle interrupt), a few hundred,
/// or any `u32`.
pub fn sdma_idle_cnt<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u32 {
    match u.int_in_range(0u8..=3) {
        0 => 0,
        1 | 2 => u.int_in_range(1..=1000),
        _ => u.arbitrary(),
    }
}

/// An LMC mask: mostly a LID mask with its low bits clear (LMC 0 to 7),
/// now and then any `u64` (bits past 16 are dropped).
pub fn lmc_mask<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u64 {
    if u.ratio(3, 4) {
        0xffff & !((1u64 << u.int_in_range(0u32..=7)) - 1)
    } else {
        u.arbitrary()
    }
}

/// A LID: mostly a unicast one, now and then any `u32`.
pub fn lmc_lid<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u32 {
    if u.ratio(3, 4) {
        u.int_in_range(1..=0xbfff)
    } else {
        u.arbitrary()
    }
}

/// Any state.
pub fn state_name_arg<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> SdmaState {
    *u.choose(SdmaState::ALL)
}

/// A few engines' egress status: mostly none left, else one packet, two,
/// the most the field holds, or any value (bits past the field set too).
pub fn sde_egress_csr<S: Source>(u: &mut Draw<S>, w: &World) -> PerIndex<u64, 16> {
    per_index(u, w.sdma_cpus.len(), |u| match u.int_in_range(0..=7u8) {
        0 => *u.choose(&[1, 2, 0x3fff]),
        1 => u.arbitrary(),
        _ => 0,
    })
}

/// One time in two.
pub fn ratio_half<S: Source>(u: &mut Draw<S>, _: &World) -> bool {
    u.ratio(1, 2)
}

/// The module parameter `sdma_idle_cnt` in ns: upstream's default, 0 (no
/// idle interrupt), or any `u32`.
pub fn sdma_idle_cnt_param<S: Source>(u: &mut Draw<S>, _: &World) -> u32 {
    match u.int_in_range(0u8..=3) {
        0 => 250,
        1 => 0,
        2 => u.int_in_range(1..=10_000),
        _ => u.arbitrary(),
    }
}

/// The module parameter `num_sdma`: 0 (the chip's), a count around the
/// chip's and the VLs', or any `u32`.
pub fn mod_num_sdma<S: Source>(u: &mut Draw<S>, _: &World) -> u32 {
    match u.int_in_range(0u8..=3) {
        0 => 0,
        1 | 2 => u.int_in_range(1..=17),
        _ => u.arbitrary(),
    }
}

/// The chip's engines (`SEND_DMA_ENGINES`, what sdma_init() reads):
/// mostly 1 to 4, whose probe and teardown the journal and text hold
/// whole, now and then up to a chip's 16 (whose journal overflows: its
/// tail is not observed).
pub fn chip_sdma_engines<S: Source>(u: &mut Draw<S>, _: &World) -> u8 {
    if u.ratio(7, 8) {
        u.int_in_range(1..=4)
    } else {
        u.int_in_range(5..=16)
    }
}

/// The chip's SDMA memory in bytes: a chip's, a few blocks, or any `u32`.
pub fn chip_sdma_mem_size<S: Source>(u: &mut Draw<S>, _: &World) -> u32 {
    match u.int_in_range(0u8..=3) {
        0 | 1 => 0x10000,
        2 => u.int_in_range(0..=0x1000),
        _ => u.arbitrary(),
    }
}

/// The idle count in chip clocks `ns_to_cclock()` gives: 0 (none), a
/// few hundred, or any `u32`.
pub fn ns_to_cclock<S: Source>(u: &mut Draw<S>, _: &World) -> u32 {
    match u.int_in_range(0u8..=3) {
        0 => 0,
        1 | 2 => u.int_in_range(1..=1000),
        _ => u.arbitrary(),
    }
}

/// The port's operational VLs: 1 to 8 mostly (what a link comes up
/// with), now and then up to 16.
pub fn vls_operational<S: Source>(u: &mut Draw<S>, w: &World) -> u8 {
    let most = w.chip_sdma_engines.clamp(1, 16);
    if u.ratio(3, 4) {
        u.int_in_range(1..=most.min(8))
    } else {
        u.int_in_range(1..=most)
    }
}

/// sdma_init()'s port: 0 (the driver's only one), now and then 1.
pub fn sdma_init_port<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u8 {
    u8::from(u.ratio(1, 4))
}

/// Whether the probe is torn down after: half the time.
pub fn sdma_init_clean<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> bool {
    u.ratio(1, 2)
}

/// sdma_freeze_notify()'s `link_down`: 0 or 1 mostly, now and then any
/// `int` (a truth value).
pub fn link_down<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> i32 {
    match u.int_in_range(0u8..=3) {
        0 | 1 => 0,
        2 => 1,
        _ => u.arbitrary(),
    }
}
