//! The rules of the calls on a send context's states and on the chip's
//! PIO as a whole: the context a restart is given, the global send
//! control register and its ops.

use super::super::draw::{Draw, Source};
use crate::model::types::*;

/// The QP's send context (the one the world gives counters) three times
/// in four, else any of the world's.
pub fn sc_is_qps<S: Source, R>(u: &mut Draw<S>, w: &World, q: &Qp, _: &R) -> Option<SendCtxIdx> {
    match q.s_sendcontext {
        Some(sc) if u.ratio(3, 4) => Some(sc),
        _ => Some(SendCtxIdx(
            u.int_in_range(0..=w.num_send_contexts.max(1) - 1),
        )),
    }
}

/// What the chip's send control register reads: 0 half the time, else
/// any bits but the CM reset's (a reset that never clears is polled
/// forever), one time in eight any at all.
pub fn send_ctrl_csr<S: Source>(u: &mut Draw<S>, _: &World) -> u64 {
    match u.int_in_range(0..=7u8) {
        0..=3 => 0,
        4 => u.arbitrary(),
        _ => u.arbitrary::<u64>() & !0x4,
    }
}

/// A `pio_send_control()` op: one of the seven `PSC_*` mostly, now and
/// then one it does not know.
pub fn psc_op<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> i32 {
    if u.ratio(7, 8) {
        u.int_in_range(0..=6)
    } else {
        u.arbitrary()
    }
}
