//! The VL maps' rebuild (`sdma_map_init`, `pio_map_init`): how many VLs,
//! each VL's engines or send contexts when the caller gives them, and the
//! world's kernel send contexts the PIO map is built from.

use super::super::draw::{Draw, Source};
use crate::model::types::*;

/// The VLs a map is built for: mostly the 1-8 data VLs a port runs, now
/// and then up to 16; never more than the device has engines (a VL
/// without one is `roundup_pow_of_two(0)`, corpus::invariants).
pub fn map_num_vls<S: Source, R>(u: &mut Draw<S>, w: &World, _: &Qp, _: &R) -> u8 {
    let most = w.sdma_cpus.len().clamp(1, 16) as u8;
    if u.ratio(7, 8) {
        u.int_in_range(1..=most.min(8))
    } else {
        u.int_in_range(1..=most)
    }
}

/// Each VL's engines: mostly NULL (what every upstream caller passes),
/// else a count of at least one per VL, all of them within the device's
/// engines.
pub fn vl_engines<S: Source>(
    u: &mut Draw<S>,
    w: &World,
    _: &Qp,
    a: &args::SdmaMapInit,
) -> Slots<u8, 16> {
    let mut s = Slots::new();
    let n = a.num_vls as usize;
    let total = w.sdma_cpus.len();
    if u.ratio(3, 4) || n > total {
        return s;
    }
    let mut left = total - n;
    for _ in 0..n {
        let more = u.int_in_range(0..=left);
        left -= more;
        // At most 16 VLs (map_num_vls): never full.
        let _ = s.push(1 + more as u8);
    }
    s
}

/// The send contexts `dd->kernel_send_context[]` may index (from 1):
/// fewer than the array's `num_send_contexts` entries.
fn sc_room(w: &World) -> usize {
    usize::from(w.num_send_contexts).saturating_sub(1)
}

/// The `SC_KERNEL` contexts `pio_map_init` spreads when given no counts.
fn kernel_contexts(w: &World) -> usize {
    (0..usize::from(w.num_send_contexts))
        .filter(|&i| w.sc_type.get(i) == ScType::Kernel)
        .count()
}

/// The VLs the PIO map is built for: as [`map_num_vls`], within the
/// contexts the kernel's array can index.
pub fn pio_map_num_vls<S: Source, R>(u: &mut Draw<S>, w: &World, _: &Qp, _: &R) -> u8 {
    let most = sc_room(w).clamp(1, 16) as u8;
    if u.ratio(7, 8) {
        u.int_in_range(1..=most.min(8))
    } else {
        u.int_in_range(1..=most)
    }
}

/// Each VL's send contexts: mostly NULL where the kernel contexts can be
/// spread (at least one a VL, all within the array, 64 entries at most),
/// else counts of one to four per VL within the array.
pub fn vl_scontexts<S: Source>(
    u: &mut Draw<S>,
    w: &World,
    _: &Qp,
    a: &args::PioMapInit,
) -> Slots<u8, 16> {
    let mut s = Slots::new();
    let (n, room, k) = (usize::from(a.num_vls), sc_room(w), kernel_contexts(w));
    // Spread, each VL's element of up to 2 * k / n entries: at most 64
    // in all (corpus::invariants: the text describes them whole).
    let entries: usize = crate::model::vl_map::loading(a.num_vls, &[], k as u32)
        .iter()
        .map(|&c| usize::from(c).next_power_of_two())
        .sum();
    let spread = n <= k && k <= room && entries <= 64;
    if (spread && u.ratio(3, 4)) || n > room {
        return s;
    }
    let mut left = room - n;
    for _ in 0..n {
        let more = u.int_in_range(0..=left.min(3));
        left -= more;
        // At most 16 VLs (pio_map_num_vls): never full.
        let _ = s.push(1 + more as u8);
    }
    s
}

/// The kernel's send contexts: mostly as `init_pervl_scs()` leaves them
/// (VL15's first, then each data VL's, then a few more contexts), now and
/// then any contexts of the world or NULL; never more than it has.
pub fn kernel_sc<S: Source>(u: &mut Draw<S>, w: &World) -> Slots<Option<SendCtxIdx>, 24> {
    let mut s = Slots::new();
    let nsc = usize::from(w.num_send_contexts);
    let len = u.int_in_range(0..=nsc.min(24));
    if u.ratio(3, 4) {
        let vls = std::iter::once(w.vl_sc[15]).chain(w.vl_sc[..8].iter().copied());
        for sc in vls
            .chain((0..nsc).map(|i| Some(SendCtxIdx(i as u8))))
            .take(len)
        {
            let _ = s.push(sc);
        }
    } else {
        for _ in 0..len {
            let sc = (!u.ratio(1, 8)).then(|| SendCtxIdx(u.int_in_range(0..=nsc - 1) as u8));
            let _ = s.push(sc);
        }
    }
    s
}

/// `hdrq_entsize`: the three sizes the module takes, now and then any.
pub fn rcvhdrqentsize<S: Source>(u: &mut Draw<S>, _: &World) -> u8 {
    if u.ratio(7, 8) {
        [2, 16, 32][u.int_in_range(0..=2usize)]
    } else {
        u.arbitrary()
    }
}
