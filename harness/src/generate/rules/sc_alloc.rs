//! A send context's allocation (`sc_alloc`): the table entries it may
//! take (their PIO blocks), the chip's count of hardware contexts, the
//! module parameters and capabilities it reads, and its arguments.

use super::super::draw::{Draw, Source};
use super::super::shapes::per_index;
use crate::model::types::*;

/// An entry's PIO blocks: mostly what the context depth field holds
/// (11 bits), now and then more (the field masks them).
fn blocks<S: Source>(u: &mut Draw<S>) -> u16 {
    if u.ratio(7, 8) {
        u.int_in_range(0..=0x7ff)
    } else {
        u.arbitrary()
    }
}

/// Each freed entry's credits (the entries `sc_alloc` takes), and a few
/// others'.
pub fn sci_credits<S: Source>(u: &mut Draw<S>, w: &World) -> PerIndex<u16, 64> {
    let n = usize::from(w.num_send_contexts);
    let mut p = per_index(u, n, blocks);
    for i in (0..n).filter(|&i| w.sc_freed.get(i)) {
        let v = blocks(u);
        let _ = p.set(i, v);
    }
    p
}

/// Each freed entry's first block, and a few others'.
pub fn sci_base<S: Source>(u: &mut Draw<S>, w: &World) -> PerIndex<u16, 64> {
    sci_credits(u, w)
}

/// The chip's hardware contexts: 160 (what every hfi1 has) mostly, else
/// as few as the world's contexts (each index needs one).
pub fn chip_send_contexts<S: Source>(u: &mut Draw<S>, w: &World) -> u8 {
    if u.ratio(3, 4) {
        160
    } else {
        u.int_in_range(w.num_send_contexts.min(160)..=160)
    }
}

/// A percentage module parameter: its default (33) half the time.
pub fn percent<S: Source>(u: &mut Draw<S>, _: &World) -> u8 {
    if u.ratio(1, 2) {
        33
    } else {
        u.int_in_range(0..=100)
    }
}

/// Module parameter `max_mtu`: one of the MTUs the driver accepts.
pub fn max_mtu<S: Source>(u: &mut Draw<S>, _: &World) -> u16 {
    *u.choose(&[2048, 4096, 8192, 10240])
}

/// The type asked for: a freed entry's three times in four (else the
/// allocation finds none), any other now and then.
pub fn sc_alloc_type<S: Source, R>(u: &mut Draw<S>, w: &World, _: &Qp, _: &R) -> ScType {
    let freed: Vec<usize> = (0..usize::from(w.num_send_contexts))
        .filter(|&i| w.sc_freed.get(i))
        .collect();
    if !freed.is_empty() && u.ratio(3, 4) {
        w.sc_type.get(*u.choose(&freed))
    } else {
        *u.choose(ScType::ALL)
    }
}

/// The receive header entry size a kernel context is sized for: the
/// module parameter's values (2, 16, 32 dwords) mostly.
pub fn sc_alloc_hdrqentsize<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u8 {
    if u.ratio(7, 8) {
        *u.choose(&[2, 16, 32])
    } else {
        u.arbitrary()
    }
}

/// The node: one whose credit return block is allocated (the context's
/// slot is in it).
pub fn sc_alloc_numa<S: Source, R>(u: &mut Draw<S>, w: &World, q: &Qp, _: &R) -> i32 {
    let nodes: Vec<i32> = (0..i32::from(w.possible_nodes.min(MAX_NUMNODES)))
        .filter(|&n| q.cr_va & (1 << n) != 0)
        .collect();
    if nodes.is_empty() {
        0
    } else {
        *u.choose(&nodes)
    }
}

/// Each type's count of contexts as `init_sc_pools_and_sizes()` sized
/// them: together at most the world's contexts (the table has that many
/// entries), mostly kernel ones; now and then a negative count (a
/// `short int`), which lays out none.
pub fn sc_size_count<S: Source>(u: &mut Draw<S>, w: &World) -> [u16; 4] {
    let mut left = u16::from(w.num_send_contexts);
    let mut c = [0u16; 4];
    for v in &mut c {
        if u.ratio(1, 16) {
            *v = 0x8000 | u.arbitrary::<u16>();
            continue;
        }
        *v = u.int_in_range(0..=left);
        left -= *v;
    }
    c
}

/// Each type's PIO blocks a context: mostly a context's worth (1 to 512),
/// now and then 0 or a negative `short int`.
pub fn sc_size_blocks<S: Source>(u: &mut Draw<S>, _: &World) -> [u16; 4] {
    let mut b = [0u16; 4];
    for v in &mut b {
        *v = if u.ratio(7, 8) {
            u.int_in_range(1..=512)
        } else {
            u.arbitrary()
        };
    }
    b
}

/// The entry debugfs dumps: a context of the world that is allocated
/// (its context not freed), mostly the QP's (the one with a ring).
pub fn dump_sci<S: Source, R>(u: &mut Draw<S>, w: &World, q: &Qp, _: &R) -> u8 {
    let live: Vec<u8> = (0..w.num_send_contexts)
        .filter(|&i| !w.sc_freed.get(usize::from(i)))
        .collect();
    match q.s_sendcontext {
        Some(s) if u.ratio(1, 2) && !w.sc_freed.get(usize::from(s.0)) => s.0,
        _ if live.is_empty() => 0,
        _ => *u.choose(&live),
    }
}

/// An `OPA_MTU_*` code: one of the eight (0 to 7) mostly, else any int.
pub fn mtu_code<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> i32 {
    if u.ratio(7, 8) {
        u.int_in_range(0..=7)
    } else {
        u.arbitrary()
    }
}

/// The device at probe, for `init_pervl_scs`: on a possible node, no VL
/// has a context, no kernel context is listed, no PIO map; a few VLs
/// mostly (the contexts a record can free are eight: VL15's and two a VL
/// for up to three VLs), any the module accepts now and then, and
/// entries for VL15's and two a VL; the table's first entries free (as
/// `init_send_contexts()` leaves them) but now and then one, VL15's type
/// among them, each free entry's blocks drawn again.
pub fn probe_world<S: Source>(u: &mut Draw<S>, w: &mut World) {
    w.vl_sc = [None; 16];
    w.node = u.int_in_range(0..=i32::from(w.possible_nodes.clamp(1, MAX_NUMNODES)) - 1);
    w.kernel_sc = Slots::new();
    w.pio_map = None;
    w.num_vls = if u.ratio(3, 4) {
        u.int_in_range(1..=3)
    } else {
        u.int_in_range(1..=8)
    };
    w.num_send_contexts = w.num_send_contexts.max(2 * w.num_vls as u8 + 1);
    w.chip_send_contexts = w.chip_send_contexts.max(w.num_send_contexts);
    let n = usize::from(w.num_send_contexts);
    let mut freed = PerIndex::new();
    for i in 0..n.min(PER_INDEX_SLOTS) {
        if !u.ratio(1, 16) {
            let _ = freed.set(i, true);
        }
    }
    w.sc_freed = freed;
    let vl15 = u.int_in_range(0..=n.min(PER_INDEX_SLOTS) - 1);
    let mut ty = PerIndex::new();
    let _ = ty.set(vl15, ScType::Vl15);
    w.sc_type = ty;
    w.sci_credits = sci_credits(u, w);
    w.sci_base = sci_base(u, w);
}
