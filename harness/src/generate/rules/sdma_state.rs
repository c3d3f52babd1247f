//! The rules of an SDMA engine's state machine: the bookkeeping of its
//! state (ops, `go_s99_running`, the last event, its reference), its
//! control register's shadow, the status the chip reports, and the
//! events and errors the calls are given.

use super::super::draw::{Draw, Source};
use super::super::shapes::{per_index, pick};
use crate::model::sdma_state::{
    ALL_SDMA_ENG_HALT_ERRS, ENG_ERR_STATUS_HALT_ERR, STATUS_ENG_CLEANED_UP, STATUS_ENG_HALTED,
};
use crate::model::types::*;

/// A few engines' `SDMA_SENDCTRL_OP_*` bits (any of the four), now and
/// then any value.
pub fn sde_op<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<u32, 16> {
    per_index(u, w.sdma_cpus.len(), |u| {
        if u.ratio(7, 8) {
            u.int_in_range(0..=15)
        } else {
            u.arbitrary()
        }
    })
}

/// A few engines' `go_s99_running`: 1 mostly (0 is the default), now and
/// then another value (an `unsigned`, tested for not 0).
pub fn sde_go_running<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<u32, 16> {
    per_index(u, w.sdma_cpus.len(), |u| {
        if u.ratio(7, 8) {
            1
        } else {
            u.arbitrary()
        }
    })
}

/// A few engines' last event: any.
pub fn sde_last_event<S: Source>(
    u: &mut Draw<S>,
    w: &World,
    _: &Engines,
) -> PerIndex<SdmaEvent, 16> {
    per_index(u, w.sdma_cpus.len(), |u| *u.choose(SdmaEvent::ALL))
}

/// A few engines' state references: 1 (initialised) or 2 (started)
/// mostly, now and then any count.
pub fn sde_kref<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<u32, 16> {
    per_index(u, w.sdma_cpus.len(), |u| {
        if u.ratio(7, 8) {
            pick(u, &[1, 2])
        } else {
            u.arbitrary()
        }
    })
}

/// A few engines' completions: once, now and then more.
pub fn sde_comp_done<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<u32, 16> {
    per_index(u, w.sdma_cpus.len(), |u| u.int_in_range(1..=3))
}

/// A few engines' send control shadows: the four control bits in any
/// combination, now and then any value.
pub fn sde_senddmactrl<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<u64, 16> {
    per_index(u, w.sdma_cpus.len(), |u| {
        if u.ratio(3, 4) {
            u.int_in_range(0..=15)
        } else {
            u.arbitrary()
        }
    })
}

/// A few engines' progress check heads: small, or any.
pub fn sde_check_head<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<u32, 16> {
    per_index(u, w.sdma_cpus.len(), |u| {
        if u.ratio(3, 4) {
            u.int_in_range(0..=64)
        } else {
            u.arbitrary()
        }
    })
}

/// What the engines' status register reads: any other bits, always
/// cleaned up (bit 57) and halted (bit 56): the hardware clean-up tasklet
/// and the halt worker, the only readers, poll for them forever
/// (corpus::invariants).
pub fn sdma_status_csr<S: Source>(u: &mut Draw<S>, _: &World) -> u64 {
    let v: u64 = match u.int_in_range(0..=3u8) {
        0 => 0,
        1 => 3 << 56,
        2 => 1 << 56,
        _ => u.arbitrary(),
    };
    v | STATUS_ENG_CLEANED_UP | STATUS_ENG_HALTED
}

/// A halt of a running engine on an A-step chip with AHG sets every other
/// engine's progress check head: more than a record's room of them in a
/// world of more engines (corpus::invariants), where no event halts.
fn halt_fills_check_heads(w: &World) -> bool {
    w.cap_sdma_ahg && !w.chip_bx && w.sdma_cpus.len() > PER_INDEX_SLOTS
}

/// An event for the state machine: any (but a halt where it would set
/// more progress check heads than a record holds).
pub fn sdma_event<S: Source, R>(u: &mut Draw<S>, w: &World, _: &Qp, _: &R) -> SdmaEvent {
    let e = *u.choose(SdmaEvent::ALL);
    if e == SdmaEvent::E60HwHalted && halt_fills_check_heads(w) {
        SdmaEvent::E90SwHalted
    } else {
        e
    }
}

/// An engine error's status: one halting error, the one error bit that
/// does not halt (bit 9), the halt error alone (bit 6: no dump), none, or
/// any value. Only the halt error or none where a dump would read a ring
/// the world does not allocate; no halting error where a halt would
/// set more progress check heads than a record holds
/// (corpus::invariants).
pub fn sdma_err_status<S: Source, R>(u: &mut Draw<S>, w: &World, q: &Qp, _: &R) -> u64 {
    let mut s = match u.int_in_range(0..=5u8) {
        0 => 1 << u.int_in_range(0..=18u32),
        1 => 0x200,
        2 => ENG_ERR_STATUS_HALT_ERR,
        3 => 0,
        _ => u.arbitrary(),
    };
    if !q.ring_holds_txs() {
        s &= ENG_ERR_STATUS_HALT_ERR;
    }
    if halt_fills_check_heads(w) {
        s &= !ALL_SDMA_ENG_HALT_ERRS;
    }
    s
}
