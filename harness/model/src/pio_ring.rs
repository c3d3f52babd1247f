//! A send context's shadow ring (pio.c): the PIO buffers handed out, and
//! their release when the chip returns their credits.

use super::pio::sc_piobufavail;
use super::qp::ECOMM;
use super::sched::iowait_drain_wakeup;
use super::types::{Engines, PioCb, Qp, ScFlag, SendCtxIdx, World};
use super::{qp_name, Journal, Undefined};

/// `CR_COUNTER_MASK` (chip.h; its shift is 0): the credit counter of a
/// credit return.
const CR_COUNTER_MASK: u64 = 0x7ff;
/// `CR_STATUS_SMASK` and the `CR_CREDIT_RETURN_DUE_TO_*_SMASK`s (chip.h),
/// each with the code `fill_code` gives it (pio.h's `PRC_*`): a forced
/// return reads as a disable.
const FILL_CODES: [(u64, i32); 5] = [
    (1 << 11, PRC_STATUS_ERR),
    (1 << 12, 0x02),
    (1 << 13, 0x04),
    (1 << 14, 0x08),
    (1 << 15, PRC_SC_DISABLE),
];
/// `PRC_STATUS_ERR` (pio.h).
const PRC_STATUS_ERR: i32 = 0x01;
/// `PRC_SC_DISABLE` (pio.h): the code `sc_disable` releases buffers with.
pub(crate) const PRC_SC_DISABLE: i32 = 0x20;

/// Mirrors the static `fill_code()` (pio.c): the `PRC_*` code of a
/// credit return's status and reason bits.
fn fill_code(hw_free: u64) -> i32 {
    FILL_CODES
        .iter()
        .filter(|(bit, _)| hw_free & bit != 0)
        .fold(0, |code, (_, c)| code | c)
}

/// `sent_before(a, b)` (pio.c): `time_before`, a wrapping `a < b`.
fn sent_before(a: u64, b: u64) -> bool {
    (a.wrapping_sub(b) as i64) < 0
}

/// Mirrors the static `verbs_pio_complete()` (verbs.c) on the QP: its PIO
/// count dropped (`iowait_pio_dec`) and, at 0, its drain waiters woken
/// (`iowait_drain_wakeup`: both wait queues, then the iowait's
/// `sdma_drained` callback, qp.c's `iowait_sdma_drained`).
fn verbs_pio_complete(w: &World, qp: &mut Qp, j: &mut Journal) -> Result<(), Undefined> {
    qp.pio_busy = qp.pio_busy.wrapping_sub(1);
    if qp.pio_busy == 0 {
        iowait_drain_wakeup(w, qp, j)?;
    }
    Ok(())
}

/// `(*pbuf->cb)(pbuf->arg, code)` of the QP's send context's ring slot
/// `slot`.
pub(crate) fn release(
    w: &World,
    qp: &mut Qp,
    slot: usize,
    code: i32,
    j: &mut Journal,
) -> Result<(), Undefined> {
    match qp.sc_sr_cb[slot] {
        PioCb::Null => Ok(()),
        PioCb::Verbs => verbs_pio_complete(w, qp, j),
        PioCb::Record => {
            j.record(format!("pio_release(sr#{slot}, 0x{code:x})"));
            Ok(())
        }
    }
}

/// The tail one slot on (`if (++tail >= sr_size) tail = 0`).
pub(crate) fn next_slot(qp: &Qp, tail: u32) -> u32 {
    let t = tail + 1;
    if t >= qp.sc_sr_sent_at.len() as u32 {
        0
    } else {
        t
    }
}

/// Mirrors `sc_release_update()` (pio.c): nothing for NULL; otherwise the
/// credits the chip returned since `free` was last updated (the counter's
/// 11 bits, wrapping) are added to it (tracepoint `hfi1_piofree(sc,
/// extra)`), the ring's slots from the tail whose credits are back
/// (`sent_at` not after the new `free`) released with the return's code
/// (`fill_code`, worked out for the first callback), the tail moved past
/// them; then the QPs waiting for buffers woken (`sc_piobufavail`). Only
/// the QP's send context has a ring and a credit return; any other's adds
/// nothing.
pub fn sc_release_update(
    w: &World,
    e: &mut Engines,
    qp: &mut Qp,
    sc: Option<SendCtxIdx>,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let Some(sc) = sc else { return Ok(()) };
    let ours = qp.s_sendcontext == Some(sc);
    let (hw_free, old_free) = if ours {
        (qp.sc_hw_free, qp.sc_free)
    } else {
        (0, 0)
    };
    let extra =
        ((hw_free & CR_COUNTER_MASK).wrapping_sub(old_free & CR_COUNTER_MASK)) & CR_COUNTER_MASK;
    let free = old_free.wrapping_add(extra);
    j.trace("hfi1_piofree", format_args!("sc#{}, 0x{extra:x}", sc.0));
    if ours {
        let mut code = -1;
        let head = qp.sc_sr_head;
        let mut tail = qp.sc_sr_tail;
        while head != tail {
            if sent_before(free, qp.sc_sr_sent_at[tail as usize]) {
                break;
            }
            if qp.sc_sr_cb[tail as usize] != PioCb::Null {
                if code < 0 {
                    code = fill_code(hw_free);
                }
                release(w, qp, tail as usize, code, j)?;
            }
            tail = next_slot(qp, tail);
        }
        qp.sc_sr_tail = tail;
        qp.sc_free = free;
    }
    sc_piobufavail(w, e, qp, sc, j)
}

/// `INVALID_SCI` (hfi.h): no send context on a hardware context.
const INVALID_SCI: u8 = 0xff;

/// `TXE_NUM_CONTEXTS` (chip.h): the hardware send contexts, the entries of
/// `dd->hw_to_sw`.
pub const TXE_NUM_CONTEXTS: u32 = 160;

/// `dd->hw_to_sw[hw]` as `sc_hw_alloc()`/`sc_hw_free()` leave it for the
/// world's contexts: the lowest send context on hardware context `hw`
/// that is not freed, else `INVALID_SCI`.
pub fn hw_to_sw(w: &World, hw: u32) -> u8 {
    (0..usize::from(w.num_send_contexts))
        .find(|&i| !w.sc_freed.get(i) && u32::from(w.sc_hw_context.get(i)) == hw)
        .map_or(INVALID_SCI, |i| i as u8)
}

/// Mirrors `sc_group_release_update()` (pio.c), the send credit
/// interrupt's, under `dd->sc_lock`: the send context of hardware context
/// `hw_context` ([`hw_to_sw`]; none is an error message, which the world
/// does not journal); then for each hardware context of its group
/// (`2^group` of them from `hw_context` rounded down to the group) the
/// credits returned to its send context ([`sc_release_update`]), one with
/// none skipped with an error message. A context `hw_to_sw` names is never
/// NULL in `dd->send_contexts` (`sc_free()` clears both under the lock).
pub fn sc_group_release_update(
    w: &World,
    e: &mut Engines,
    qp: &mut Qp,
    hw_context: u32,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let sw = hw_to_sw(w, hw_context);
    if sw >= w.num_send_contexts {
        return Ok(());
    }
    let group = u32::from(w.sc_group.get(usize::from(sw)));
    let gc = (hw_context >> group) << group;
    for hw in gc..gc + (1 << group) {
        let sw = hw_to_sw(w, hw);
        if sw >= w.num_send_contexts {
            continue;
        }
        sc_release_update(w, e, qp, Some(SendCtxIdx(sw)), j)?;
    }
    Ok(())
}

/// `PIO_BLOCK_SIZE` (chip.h): bytes a credit is.
const PIO_BLOCK_SIZE: u32 = 64;

/// Mirrors `sc_buffer_alloc()` (pio.c) on the QP's send context, whose
/// ring it is: a context not `SCF_ENABLED` gives `ERR_PTR(-ECOMM)`;
/// otherwise `dw_len` dwords take `DIV_ROUND_UP(dw_len, 16)` blocks of
/// the credits not yet handed out (`credits - (fill - alloc_free)`, in
/// unsigned long), when short first with a fresh copy of `free`, then
/// after `sc_release_update`, a second shortage giving NULL. The buffer
/// is the ring's head slot: its `sent_at` the new `fill`, its callback,
/// the head moved on (wrapping), `fill_wrap` moved on (less `credits` at
/// or past them), the buffers allocated counted, preemption left disabled
/// (for `pio_copy`, which enables it); it starts at the old
/// `fill_wrap` block of the context's PIO memory and ends at its size,
/// nothing written. Returns the outcome's text, as the C world
/// describes the buffer.
pub fn sc_buffer_alloc(
    w: &World,
    e: &mut Engines,
    qp: &mut Qp,
    sc: SendCtxIdx,
    dw_len: u32,
    cb: PioCb,
    j: &mut Journal,
) -> Result<String, Undefined> {
    if !e.sc_flags.get(usize::from(sc.0)).contains(&ScFlag::Enabled) {
        return Ok(format!("pbuf=ERR_PTR(-{ECOMM})"));
    }
    let blocks = u64::from(dw_len).div_ceil(u64::from(PIO_BLOCK_SIZE / 4));
    let avail =
        |qp: &Qp| u64::from(qp.sc_credits).wrapping_sub(qp.sc_fill.wrapping_sub(qp.sc_alloc_free));
    let mut tried = false;
    while blocks > avail(qp) {
        if tried {
            return Ok("pbuf=NULL".into());
        }
        qp.sc_alloc_free = qp.sc_free;
        if blocks <= avail(qp) {
            break;
        }
        sc_release_update(w, e, qp, Some(sc), j)?;
        qp.sc_alloc_free = qp.sc_free;
        tried = true;
    }
    // Preemption stays disabled until pio_copy() has filled the buffer.
    j.preempt_disable();
    qp.sc_buffers_allocated = qp.sc_buffers_allocated.wrapping_add(1);
    let head = qp.sc_sr_head;
    qp.sc_fill = qp.sc_fill.wrapping_add(blocks);
    let fill_wrap = qp.sc_fill_wrap;
    // `sc->fill_wrap += blocks`: a u32 plus an unsigned long, stored back.
    qp.sc_fill_wrap = (u64::from(fill_wrap).wrapping_add(blocks)) as u32;
    if qp.sc_fill_wrap >= qp.sc_credits {
        qp.sc_fill_wrap = qp.sc_fill_wrap.wrapping_sub(qp.sc_credits);
    }
    let slot = head as usize;
    qp.sc_sr_sent_at[slot] = qp.sc_fill;
    qp.sc_sr_cb[slot] = cb;
    qp.sc_sr_head = next_slot(qp, head);
    // The argument a slot with this callback holds (the world's rule).
    let arg = match cb {
        PioCb::Record => format!("sr#{slot}"),
        PioCb::Verbs | PioCb::Null => qp_name(qp),
    };
    Ok(format!(
        "pbuf=sr#{slot} sc=sc#{} arg={arg} start=+0x{:x} end=+0x{:x} qw_written=0 carry_bytes=0 carry=0x0",
        sc.0,
        fill_wrap.wrapping_mul(PIO_BLOCK_SIZE),
        qp.sc_size
    ))
}

impl crate::Mirror for super::types::args::ScBufferAlloc {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let sc = cx.qp.s_sendcontext.ok_or_else(|| {
            Undefined("sc_buffer_alloc() is given the QP's send context, and it has none".into())
        })?;
        let (qp, e) = (cx.qp.to_mut(), cx.engines.to_mut());
        cx.out.text = sc_buffer_alloc(cx.w, e, qp, sc, self.dw_len, self.cb, &mut cx.j)?;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::ScReleaseUpdate {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (qp, e) = (cx.qp.to_mut(), cx.engines.to_mut());
        sc_release_update(cx.w, e, qp, self.sc, &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::ScGroupReleaseUpdate {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (qp, e) = (cx.qp.to_mut(), cx.engines.to_mut());
        sc_group_release_update(cx.w, e, qp, self.hw_context, &mut cx.j)
    }
}
