//! The VL maps' rebuild (`sdma_map_init`): how many VLs, and each VL's
//! engines when the caller gives them.

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
