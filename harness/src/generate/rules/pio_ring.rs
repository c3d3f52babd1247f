//! The rules of the QP's send context's PIO state: its shadow ring, its
//! credit counts and the length `sc_buffer_alloc` asks for; the send
//! contexts' groups and the send credit interrupt's hardware context.

use super::super::draw::{Draw, Source};
use super::super::shapes::{per_index, pick, u32_near};
use crate::model::types::*;

/// The shadow ring of the QP's send context, for the calls that walk it
/// (`sc_release_update`, `sc_disable`: none half the time) or fill it
/// (`sc_buffer_alloc`: always): 1 to `MAX_SR` slots whose `sent_at` rise
/// by 0 to 4 from near 0 or from just below the top of the range (so the
/// counts wrap).
pub fn sr_sent_at<S: Source>(u: &mut Draw<S>, _: &World, func: Func, q: &Qp) -> Slots<u64, MAX_SR> {
    let mut s = Slots::new();
    let walks = matches!(
        func,
        Func::ScReleaseUpdate | Func::ScDisable | Func::PioFreeze
    ) && u.arbitrary();
    if !(walks || func == Func::ScBufferAlloc) || q.s_sendcontext.is_none() {
        return s;
    }
    let n = u.int_in_range(1..=MAX_SR as u8);
    let mut at: u64 = if u.ratio(1, 4) {
        u64::MAX - 8
    } else {
        u.int_in_range(0..=64)
    };
    for _ in 0..n {
        at = at.wrapping_add(u.int_in_range(0..=4));
        let _ = s.push(at);
    }
    s
}

/// Each slot's callback: `verbs_pio_complete` or the recording one
/// mostly, none one time in four; none past the ring (corpus::invariants).
pub fn sr_cb<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> [PioCb; MAX_SR] {
    let mut cbs = [PioCb::Null; MAX_SR];
    for c in cbs.iter_mut().take(q.sc_sr_sent_at.len()) {
        *c = match u.int_in_range(0..=3u8) {
            0 => PioCb::Null,
            1 => PioCb::Verbs,
            _ => PioCb::Record,
        };
    }
    cbs
}

/// A slot of the QP's send context's ring (0 without one).
pub fn sr_index<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u32 {
    match q.sc_sr_sent_at.len() as u32 {
        0 => 0,
        n => u.int_in_range(0..=n - 1),
    }
}

/// `sc->free`: a slot's `sent_at`, one below or one above it (where
/// `sent_before` turns), now and then any count.
pub fn sc_free<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u64 {
    let sent: Vec<u64> = q.sc_sr_sent_at.iter().copied().collect();
    if sent.is_empty() || u.ratio(1, 8) {
        return u.arbitrary();
    }
    pick(u, &sent).wrapping_add(pick(u, &[0, 1, u64::MAX]))
}

/// `*sc->hw_free`: mostly a counter 0 to 8 credits past `free`'s (11
/// bits, so it wraps), now and then any; each status and reason bit
/// (11-15) one time in two; now and then bits above them.
pub fn hw_free<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u64 {
    let counter = if u.ratio(7, 8) {
        q.sc_free.wrapping_add(u.int_in_range(0..=8))
    } else {
        u.arbitrary()
    } & 0x7ff;
    let reasons = u64::from(u.arbitrary::<u8>() & 0x1f) << 11;
    let high = if u.ratio(1, 8) {
        u.arbitrary::<u64>() & !0xffff
    } else {
        0
    };
    counter | reasons | high
}

/// The context's credits: mostly a few (so a buffer runs short), now
/// and then any.
pub fn sc_credits<S: Source>(u: &mut Draw<S>, _: &World, _: Func, _: &Qp) -> u32 {
    if u.ratio(7, 8) {
        u.int_in_range(0..=16)
    } else {
        u.arbitrary()
    }
}

/// `fill`: at `free` or a few blocks past it (the buffers in flight),
/// now and then any count.
pub fn sc_fill<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u64 {
    if u.ratio(7, 8) {
        q.sc_free
            .wrapping_add(u.int_in_range(0..=u64::from(q.sc_credits.min(32))))
    } else {
        u.arbitrary()
    }
}

/// `alloc_free`: `free` or a few blocks behind it (a stale copy).
pub fn sc_alloc_free<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u64 {
    q.sc_free.wrapping_sub(u.int_in_range(0..=4))
}

/// `fill_wrap`: within the credits mostly, now and then at or past them.
pub fn sc_fill_wrap<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u32 {
    if u.ratio(7, 8) && q.sc_credits > 0 {
        u.int_in_range(0..=q.sc_credits - 1)
    } else {
        u32_near(u, &[q.sc_credits])
    }
}

/// `dw_len`: a few dwords around a block (16), now and then any length.
pub fn dw_len<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u32 {
    if u.ratio(7, 8) {
        u.int_in_range(0..=80)
    } else {
        u32_near(u, &[16, 0xffff_fff0])
    }
}

/// A few send contexts' groups (`sc_alloc()` makes 0): 0 to 3.
pub fn sc_group<S: Source>(u: &mut Draw<S>, w: &World) -> PerIndex<u8, 64> {
    per_index(u, usize::from(w.num_send_contexts), |u| {
        u.int_in_range(0..=3)
    })
}

/// The send credit interrupt's source: mostly a world context's hardware
/// context, else any of the chip's 160.
pub fn hw_context<S: Source, R>(u: &mut Draw<S>, w: &World, _: &Qp, _: &R) -> u32 {
    let n = usize::from(w.num_send_contexts);
    let hw = if n > 0 && u.ratio(3, 4) {
        u32::from(w.sc_hw_context.get(u.int_in_range(0..=n - 1)))
    } else {
        u32::MAX
    };
    if hw < crate::model::pio_ring::TXE_NUM_CONTEXTS {
        hw
    } else {
        u.int_in_range(0..=crate::model::pio_ring::TXE_NUM_CONTEXTS - 1)
    }
}

/// What the PIO init engine's register reads: mostly done (0), now and
/// then in progress or with an error, rarely anything.
pub fn pio_init_csr<S: Source>(u: &mut Draw<S>, _: &World) -> u64 {
    match u.int_in_range(0..=7u8) {
        0 => 0x4,
        1 => 0x8,
        2 => u.arbitrary(),
        _ => 0,
    }
}
