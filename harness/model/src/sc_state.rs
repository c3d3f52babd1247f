//! A send context's states (pio.c): disabled, flushed, and the
//! wait for its packets to leave the egress that the first two make; the
//! device's contexts waited for and frozen.

use super::iowait::{list_del_init, piowait, Iowait};
use super::pio::{deref, hw_owner, pio_wakeup, read_hw_csr, write_hw_csr};
use super::pio_ring::{next_slot, release, PRC_SC_DISABLE};
use super::qp::{EINVAL, EIO, ETIMEDOUT};
use super::types::{Engines, Flags, Qp, ScFlag, ScType, SendCtxIdx, World};
use super::{put, Journal, Undefined};

/// `SEND_CTXT_CTRL_CTXT_ENABLE_SMASK` (chip_registers.h).
const CTXT_ENABLE_SMASK: u64 = 0x1;
/// `SEND_CTXT_STATUS_CTXT_HALTED_SMASK` (chip_registers.h).
const CTXT_HALTED_SMASK: u64 = 0x1;
/// `SEND_EGRESS_CTXT_STATUS_CTXT_EGRESS_HALT_STATUS_SMASK`
/// (chip_registers.h).
const EGRESS_HALT_STATUS_SMASK: u64 = 0x10000;
/// `SEND_EGRESS_CTXT_STATUS_CTXT_EGRESS_PACKET_OCCUPANCY_SMASK` (its
/// shift is 0).
const EGRESS_PACKET_OCCUPANCY_SMASK: u64 = 0x3fff;
/// `PACKET_EGRESS_TIMEOUT` (hfi.h): the cclocks `pause_for_credit_return`
/// converts.
const PACKET_EGRESS_TIMEOUT: u32 = 350;
/// The polls without a change of occupancy after which the wait gives up
/// (`loop > 50000` in `sc_wait_for_packet_egress`).
const EGRESS_POLLS: u32 = 50000;

/// What the wait for a context's egress reads of the context: its
/// hardware context and whether its `SCF_HALTED` flag is set.
#[derive(Clone, Copy)]
pub(crate) struct HwCtx {
    pub(crate) hw: u32,
    pub(crate) halted: bool,
}

impl HwCtx {
    /// Context `sc` of the world, with its flags in `e`.
    fn of(w: &World, e: &Engines, sc: SendCtxIdx) -> HwCtx {
        let i = usize::from(sc.0);
        HwCtx {
            hw: u32::from(w.sc_hw_context.get(i)),
            halted: e.sc_flags.get(i).contains(&ScFlag::Halted),
        }
    }
}

/// `read_csr(dd, sc->hw_context * 8 + SEND_EGRESS_CTXT_STATUS)`: the
/// egress status registers are 8 bytes apart, not 0x100.
fn read_egress_status(w: &World, hw: u32, j: &mut Journal) -> u64 {
    j.read_csr(format_args!("SEND_EGRESS_CTXT_STATUS[{hw}]"));
    hw_owner(w, hw).map_or(0, |o| w.sc_egress_csr.get(o))
}

/// Mirrors `is_sc_halted()` (pio.c): the context's status register says
/// halted.
fn is_sc_halted(w: &World, hw: u32, j: &mut Journal) -> bool {
    read_hw_csr(w, hw, "SEND_CTXT_STATUS", j) & CTXT_HALTED_SMASK != 0
}

/// Mirrors `egress_halted()` (pio.c).
fn egress_halted(reg: u64) -> bool {
    reg & EGRESS_HALT_STATUS_SMASK != 0
}

/// Mirrors `packet_occupancy()` (pio.c).
fn packet_occupancy(reg: u64) -> u64 {
    reg & EGRESS_PACKET_OCCUPANCY_SMASK
}

/// Mirrors `pause_for_credit_return()` (hfi.h): `udelay` of
/// `cclock_to_ns(dd, PACKET_EGRESS_TIMEOUT) / 1000` µs, at least 1
/// (`cclock_to_ns` is chip.c's, a boundary that journals its call and
/// answers 0).
fn pause_for_credit_return(j: &mut Journal) {
    j.record(format!("cclock_to_ns({PACKET_EGRESS_TIMEOUT})"));
    let usec = 0;
    j.udelay(if usec != 0 { usec } else { 1 });
}

/// Mirrors the static `sc_wait_for_packet_egress()` (pio.c): polls the
/// egress status until the context is halted (its `SCF_HALTED` flag, then
/// its status register, then the egress's halt bit, in that order) or no
/// packet is left, waiting 1 µs between polls; an occupancy that stays
/// the same for more than 50000 polls bounces the link (`queue_work(ppd->link_wq,
/// &ppd->link_bounce_work)` on the first port) and gives up. A `pause`
/// then waits for the credits (`pause_for_credit_return`).
pub fn sc_wait_for_packet_egress(
    w: &World,
    e: &Engines,
    sc: SendCtxIdx,
    pause: i32,
    j: &mut Journal,
) {
    wait_for_packet_egress(w, HwCtx::of(w, e, sc), pause, j);
}

/// [`sc_wait_for_packet_egress`] of the context `ctx` describes.
pub(crate) fn wait_for_packet_egress(w: &World, ctx: HwCtx, pause: i32, j: &mut Journal) {
    // The world gives a register one value a call: the first poll reads
    // (and journals) each, the later polls see the same values.
    let (mut egress, mut hw_halted) = (None, None);
    let mut reg = 0;
    let mut polls = 0u32;
    loop {
        let reg_prev = reg;
        reg = *egress.get_or_insert_with(|| read_egress_status(w, ctx.hw, j));
        if ctx.halted
            || *hw_halted.get_or_insert_with(|| is_sc_halted(w, ctx.hw, j))
            || egress_halted(reg)
        {
            break;
        }
        reg = packet_occupancy(reg);
        if reg == 0 {
            break;
        }
        if reg != reg_prev {
            polls = 0;
        }
        if polls > EGRESS_POLLS {
            j.record("queue_work_on(64, wq:link, link-bounce-work)".into());
            break;
        }
        polls += 1;
        j.udelay(1);
    }
    if pause != 0 {
        pause_for_credit_return(j);
    }
}

/// Mirrors `sc_disable()` (pio.c): nothing for NULL; otherwise the
/// context's control register read, `SCF_ENABLED` cleared, its packets
/// waited for (with the pause), the register written back without the
/// enable bit, 1 µs for interrupts in flight; every slot of its shadow
/// ring from the tail to the head released with `PRC_SC_DISABLE` (only
/// the QP's send context has a ring); then every QP of its piowait list
/// taken off, its lock cleared,
/// and woken in list order (`hfi1_qp_wakeup` from `RVT_S_WAIT_PIO |
/// HFI1_S_WAIT_PIO_DRAIN`).
pub fn sc_disable(
    w: &World,
    e: &mut Engines,
    qp: &mut Qp,
    sc: Option<SendCtxIdx>,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let Some(sc) = sc else { return Ok(()) };
    let i = usize::from(sc.0);
    let ctx = HwCtx::of(w, e, sc);
    let mut f: Flags<ScFlag> = e.sc_flags.get(i);
    f.remove_all(&[ScFlag::Enabled]);
    put(&mut e.sc_flags, i, f, "sc_flags")?;
    disable_hw(w, ctx, j);
    if qp.s_sendcontext == Some(sc) && !qp.sc_sr_sent_at.is_empty() {
        while qp.sc_sr_tail != qp.sc_sr_head {
            release(w, qp, qp.sc_sr_tail as usize, PRC_SC_DISABLE, j)?;
            qp.sc_sr_tail = next_slot(qp, qp.sc_sr_tail);
        }
    }
    for iow in piowait(qp, sc) {
        list_del_init(qp, iow);
        if iow == Iowait::Qp {
            qp.wait_sc = None;
        }
        pio_wakeup(w, qp, iow, j)?;
    }
    Ok(())
}

/// `sc_disable()`'s steps on the hardware (pio.c): the control register
/// read, the context's packets waited for (with the pause), the register
/// written back without the enable bit, 1 µs for interrupts in flight.
/// (Its `SCF_ENABLED` cleared in between is the caller's.)
pub(crate) fn disable_hw(w: &World, ctx: HwCtx, j: &mut Journal) {
    let reg = read_hw_csr(w, ctx.hw, "SEND_CTXT_CTRL", j) & !CTXT_ENABLE_SMASK;
    wait_for_packet_egress(w, ctx, 1, j);
    write_hw_csr(ctx.hw, "SEND_CTXT_CTRL", reg, j);
    j.udelay(1);
}

/// Mirrors `sc_flush()` (pio.c): nothing for NULL; otherwise its packets
/// waited for, with the pause.
pub fn sc_flush(w: &World, e: &Engines, sc: Option<SendCtxIdx>, j: &mut Journal) {
    if let Some(sc) = sc {
        sc_wait_for_packet_egress(w, e, sc, 1, j);
    }
}

/// Mirrors `sc_wait()` (pio.c): every allocated context of the device
/// waited for, without the pause.
pub fn sc_wait(w: &World, e: &Engines, j: &mut Journal) {
    for i in 0..w.num_send_contexts {
        // `if (!sc) continue;`: a freed context's entry is NULL.
        if w.sc_freed.get(usize::from(i)) {
            continue;
        }
        sc_wait_for_packet_egress(w, e, SendCtxIdx(i), 0, j);
    }
}

/// Mirrors `pio_freeze()` (pio.c): every allocated context that is
/// `SCF_FROZEN` and not a user context (`sc->type`) disabled, in index
/// order.
pub fn pio_freeze(
    w: &World,
    e: &mut Engines,
    qp: &mut Qp,
    j: &mut Journal,
) -> Result<(), Undefined> {
    for i in 0..w.num_send_contexts {
        let sc = SendCtxIdx(i);
        // `if (!sc || ...) continue;`: a freed context's entry is NULL.
        if w.sc_freed.get(usize::from(i))
            || !e.sc_flags.get(usize::from(i)).contains(&ScFlag::Frozen)
            || w.sc_type.get(usize::from(i)) == ScType::User
        {
            continue;
        }
        sc_disable(w, e, qp, Some(sc), j)?;
    }
    Ok(())
}

impl crate::Mirror for super::types::args::ScWait {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sc_wait(cx.w, &cx.engines, &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::PioFreeze {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (qp, e) = (cx.qp.to_mut(), cx.engines.to_mut());
        pio_freeze(cx.w, e, qp, &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::ScDisable {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (qp, e) = (cx.qp.to_mut(), cx.engines.to_mut());
        sc_disable(cx.w, e, qp, self.sc, &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::ScFlush {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sc_flush(cx.w, &cx.engines, self.sc, &mut cx.j);
        Ok(())
    }
}

/// Mirrors `sc_drop()` (pio.c, up to 6.12): with a context, a message
/// that dropping is not implemented (`dd_dev_info`: the kernel log, not
/// observed); nothing is changed either way.
pub fn sc_drop(_sc: Option<SendCtxIdx>) {}

impl crate::Mirror for super::types::args::ScDrop {
    fn mirror(&self, _cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sc_drop(self.sc);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::ScWaitForPacketEgress {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let sc = deref(self.sc, "sc_wait_for_packet_egress")?;
        sc_wait_for_packet_egress(cx.w, &cx.engines, sc, self.pause, &mut cx.j);
        Ok(())
    }
}

/// `SEND_PIO_INIT_CTXT` fields (chip_registers.h).
const PIO_INIT_CTXT_NUM_MASK: u64 = 0xff;
const PIO_INIT_CTXT_NUM_SHIFT: u64 = 8;
const PIO_INIT_SINGLE_CTXT_SMASK: u64 = 0x2;
const PIO_INIT_IN_PROGRESS_SMASK: u64 = 0x4;
const PIO_INIT_ERR_SMASK: u64 = 0x8;

/// Mirrors the static `pio_init_wait_progress()` (pio.c): the PIO init
/// engine polled (`SEND_PIO_INIT_CTXT`, the world's one value a call)
/// while in progress, 5 µs between polls, giving up after 5 polls (120 on
/// an FPGA emulation) with -ETIMEDOUT; done, -EIO if it says an error.
pub(crate) fn pio_init_wait_progress(w: &World, j: &mut Journal) -> i32 {
    let max = if w.fpga_emulation { 120 } else { 5 };
    let mut count = 0;
    let reg = loop {
        // Every poll reads the world's one value (journalled once).
        j.read_csr(format_args!("SEND_PIO_INIT_CTXT"));
        let reg = w.pio_init_csr;
        if reg & PIO_INIT_IN_PROGRESS_SMASK == 0 {
            break reg;
        }
        if count >= max {
            return -ETIMEDOUT;
        }
        j.udelay(5);
        count += 1;
    };
    if reg & PIO_INIT_ERR_SMASK != 0 {
        -EIO
    } else {
        0
    }
}

/// Mirrors `sc_enable()` (pio.c): NULL is -EINVAL; under the context's
/// `alloc_lock`, a context whose control register says enabled is left
/// (0); otherwise the credits the chip returned, `free`, `alloc_free`,
/// `fill`, `fill_wrap`, the shadow ring's head and tail, its flags and its
/// count of buffers allocated all 0 (`reset_buffers_allocated`), its
/// errors cleared (`SEND_CTXT_ERR_CLEAR` with what `SEND_CTXT_ERR_STATUS`
/// reads, if anything), its PIO memory initialised by the chip (the init
/// engine started for its hardware context, 2 µs, then
/// [`pio_init_wait_progress`]); a failure leaves it disabled with that
/// error, success enables it (`SEND_CTXT_CTRL` written with the enable
/// bit, read back, `SCF_ENABLED`).
pub fn sc_enable(
    w: &World,
    e: &mut Engines,
    qp: &mut Qp,
    sc: Option<SendCtxIdx>,
    j: &mut Journal,
) -> Result<i32, Undefined> {
    let Some(sc) = sc else {
        return Ok(-EINVAL);
    };
    if qp.s_sendcontext != Some(sc) {
        return Err(Undefined(
            "sc_enable() of a send context other than the QP's: the world gives only it counters"
                .into(),
        ));
    }
    let i = usize::from(sc.0);
    let hw = u32::from(w.sc_hw_context.get(i));
    let Some(ctrl) = enable_begin(w, hw, j) else {
        return Ok(0);
    };
    qp.sc_hw_free = 0;
    qp.sc_free = 0;
    qp.sc_alloc_free = 0;
    qp.sc_fill = 0;
    qp.sc_fill_wrap = 0;
    qp.sc_sr_head = 0;
    qp.sc_sr_tail = 0;
    put(&mut e.sc_flags, i, Flags::default(), "sc_flags")?;
    qp.sc_buffers_allocated = 0;
    let ret = enable_finish(w, hw, ctrl, j);
    if ret != 0 {
        return Ok(ret);
    }
    put(
        &mut e.sc_flags,
        i,
        Flags::of(&[ScFlag::Enabled]),
        "sc_flags",
    )?;
    Ok(0)
}

/// `sc_enable()`'s first step on hardware context `hw`: its control
/// register read; `None` when that says enabled (nothing more is done),
/// else the value read. Its counters and flags are the caller's to reset
/// next.
pub(crate) fn enable_begin(w: &World, hw: u32, j: &mut Journal) -> Option<u64> {
    let ctrl = read_hw_csr(w, hw, "SEND_CTXT_CTRL", j);
    (ctrl & CTXT_ENABLE_SMASK == 0).then_some(ctrl)
}

/// `sc_enable()`'s steps on the hardware after the reset: its errors
/// cleared (`SEND_CTXT_ERR_CLEAR` with what `SEND_CTXT_ERR_STATUS` reads,
/// if anything), the PIO init engine started for it, 2 µs, then
/// [`pio_init_wait_progress`]; its error returned, or on success the
/// control register written with the enable bit and read back, 0 (the
/// caller sets `SCF_ENABLED`).
pub(crate) fn enable_finish(w: &World, hw: u32, ctrl: u64, j: &mut Journal) -> i32 {
    let reg = read_hw_csr(w, hw, "SEND_CTXT_ERR_STATUS", j);
    if reg != 0 {
        write_hw_csr(hw, "SEND_CTXT_ERR_CLEAR", reg, j);
    }
    let pio = ((u64::from(hw) & PIO_INIT_CTXT_NUM_MASK) << PIO_INIT_CTXT_NUM_SHIFT)
        | PIO_INIT_SINGLE_CTXT_SMASK;
    j.record(format!("write_csr(SEND_PIO_INIT_CTXT, 0x{pio:x})"));
    j.udelay(2);
    let ret = pio_init_wait_progress(w, j);
    if ret != 0 {
        return ret;
    }
    write_hw_csr(hw, "SEND_CTXT_CTRL", ctrl | CTXT_ENABLE_SMASK, j);
    read_hw_csr(w, hw, "SEND_CTXT_CTRL", j);
    0
}

impl crate::Mirror for super::types::args::ScEnable {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (qp, e) = (cx.qp.to_mut(), cx.engines.to_mut());
        cx.out.ret = sc_enable(cx.w, e, qp, self.sc, &mut cx.j)?;
        Ok(())
    }
}

/// `-ETIME` (errno).
const ETIME: i32 = 62;

/// The polls `sc_restart()` waits for a context to halt before it gives
/// up (`loop > 100`).
const HALT_POLLS: u32 = 100;

/// Mirrors `sc_restart()` (pio.c): a context not halted (`SCF_HALTED`) or
/// being freed (`SCF_IN_FREE`) is -EINVAL; otherwise its status register
/// polled until it says halted, 1 µs between polls, -ETIME at the 102nd
/// read; a
/// context not a user's waits for its buffers allocated to drop to 0
/// ([`get_buffers_allocated`], one CPU: the world's count); then
/// [`sc_disable`] and [`sc_enable`].
pub fn sc_restart(
    w: &World,
    e: &mut Engines,
    qp: &mut Qp,
    sc: SendCtxIdx,
    j: &mut Journal,
) -> Result<i32, Undefined> {
    let f = e.sc_flags.get(usize::from(sc.0));
    if !f.contains(&ScFlag::Halted) || f.contains(&ScFlag::InFree) {
        return Ok(-EINVAL);
    }
    let mut polls = 0;
    while !is_sc_halted(w, u32::from(w.sc_hw_context.get(usize::from(sc.0))), j) {
        if polls > HALT_POLLS {
            return Ok(-ETIME);
        }
        polls += 1;
        j.udelay(1);
    }
    if w.sc_type.get(usize::from(sc.0)) != ScType::User && get_buffers_allocated(qp, sc)? != 0 {
        return Err(Undefined(
            "sc_restart() waits for a kernel context's buffers allocated to drop to 0, \
             which nothing does in a world of one thread"
                .into(),
        ));
    }
    sc_disable(w, e, qp, Some(sc), j)?;
    sc_enable(w, e, qp, Some(sc), j)
}

/// Mirrors the static `get_buffers_allocated()` (pio.c): the context's
/// per-CPU counts summed (one CPU: the QP's context's count; the world
/// gives no other context one).
fn get_buffers_allocated(qp: &Qp, sc: SendCtxIdx) -> Result<u32, Undefined> {
    if qp.s_sendcontext != Some(sc) {
        return Err(Undefined(
            "get_buffers_allocated() of a send context other than the QP's: the world gives only it counters"
                .into(),
        ));
    }
    Ok(qp.sc_buffers_allocated)
}

impl crate::Mirror for super::types::args::ScRestart {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (qp, e) = (cx.qp.to_mut(), cx.engines.to_mut());
        let sc = self
            .sc
            .ok_or_else(|| Undefined("sc_restart(NULL) dereferences it".into()))?;
        cx.out.ret = sc_restart(cx.w, e, qp, sc, &mut cx.j)?;
        Ok(())
    }
}

/// Mirrors the static `sc_halted()` (pio.c): the context's halt work
/// restarts it ([`sc_restart`]), its result dropped.
impl crate::Mirror for super::types::args::ScHalted {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (qp, e) = (cx.qp.to_mut(), cx.engines.to_mut());
        let sc = self
            .sc
            .ok_or_else(|| Undefined("sc_halted() of no context".into()))?;
        sc_restart(cx.w, e, qp, sc, &mut cx.j)?;
        Ok(())
    }
}
