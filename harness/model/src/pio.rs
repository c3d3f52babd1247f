//! PIO send contexts (pio.c): selection, credit return interrupts,
//! stopping, and waking the QPs waiting for buffers.

use super::hfi::sc_to_vlt;
use super::iowait::{
    iowait_get_priority, iowait_priority_update_top, list_del_init, pio_qp, pio_qp_back, piowait,
    Iowait,
};
use super::sched::hfi1_qp_wakeup;
use super::types::{Engines, Flags, Ptr, Qp, SFlag, Sc, ScFlag, ScType, SendCtxIdx, Vl, World};
use super::{at, null_or, put, Journal, Undefined};

/// `SEND_CTXT_CREDIT_CTRL_CREDIT_INTR_SMASK` (chip_registers.h).
const CREDIT_CTRL_CREDIT_INTR_SMASK: u64 = 0x20000;
/// `SEND_CTXT_CREDIT_FORCE_FORCE_RETURN_SMASK` (chip_registers.h).
const CREDIT_FORCE_FORCE_RETURN_SMASK: u64 = 0x1;
/// `SEND_CTXT_CREDIT_CTRL_THRESHOLD_MASK` (chip_registers.h, shift 0).
const CREDIT_CTRL_THRESHOLD_MASK: u64 = 0x7ff;
/// `PIO_BLOCK_SIZE` (pio.h): a credit is 64 bytes.
pub(crate) const PIO_BLOCK_SIZE: u32 = 64;

/// `dd->vld[0].sc`: the fallback send context (itself possibly NULL).
fn vl0_context(w: &World) -> Ptr<SendCtxIdx> {
    null_or(w.vl_sc[0])
}

/// Mirrors `pio_select_send_context_vl()` (pio.c): a VL at or above the
/// module's `num_vls`, a missing map or a NULL context in the element give
/// VL0's send context; otherwise `m->map[vl & m->mask]->ksc[selector &
/// e->mask]`.
pub fn pio_select_send_context_vl(
    w: &World,
    selector: u32,
    vl: Vl,
) -> Result<Ptr<SendCtxIdx>, Undefined> {
    if u32::from(vl.0) >= w.num_vls {
        return Ok(vl0_context(w));
    }
    let Some(m) = &w.pio_map else {
        return Ok(vl0_context(w));
    };
    let e = at(
        &m.elems,
        (u32::from(vl.0) & m.mask) as usize,
        "pio_map->map",
    )?
    .as_ref()
    .ok_or_else(|| Undefined("pio_map->map[vl & mask] is NULL and is dereferenced".into()))?;
    let ksc = at(
        &e.entries,
        (selector & e.mask) as usize,
        "pio_map_elem->ksc",
    )?
    .get();
    Ok(match ksc {
        Some(i) => Ptr::To(i),
        None => vl0_context(w),
    })
}

/// Mirrors `pio_select_send_context_sc()` (pio.c): the VL of the SC, then
/// [`pio_select_send_context_vl`].
pub fn pio_select_send_context_sc(
    w: &World,
    selector: u32,
    sc5: Sc,
) -> Result<Ptr<SendCtxIdx>, Undefined> {
    let vl = sc_to_vlt(w, sc5);
    pio_select_send_context_vl(w, selector, vl)
}

/// `write_kctxt_csr(dd, sc->hw_context, csr, value)` (chip.h): the
/// boundary `write_csr` journals the register by name and context.
pub(crate) fn write_kctxt_csr(w: &World, sc: SendCtxIdx, csr: &str, value: u64, j: &mut Journal) {
    write_hw_csr(
        u32::from(w.sc_hw_context.get(usize::from(sc.0))),
        csr,
        value,
        j,
    );
}

/// `write_kctxt_csr(dd, hw, csr, value)` of hardware context `hw`.
pub(crate) fn write_hw_csr(hw: u32, csr: &str, value: u64, j: &mut Journal) {
    j.record(format!("write_csr({csr}[{hw}], 0x{value:x})"));
}

/// The send context whose registers hardware context `hw` reads: the
/// lowest index of the world on it (the world's rule for contexts that
/// share one); none: the registers read 0.
pub(crate) fn hw_owner(w: &World, hw: u32) -> Option<usize> {
    (0..usize::from(w.num_send_contexts)).find(|&i| u32::from(w.sc_hw_context.get(i)) == hw)
}

/// `read_kctxt_csr(dd, hw, csr)` (chip.h) of hardware context `hw`:
/// journalled (once a call, [`Journal::read_csr`]); the value is what the
/// world says the register reads (`sc_ctrl_csr`, `sc_status_csr`, ...;
/// any other 0).
pub(crate) fn read_hw_csr(w: &World, hw: u32, csr: &str, j: &mut Journal) -> u64 {
    j.read_csr(format_args!("{csr}[{hw}]"));
    let Some(owner) = hw_owner(w, hw) else {
        return 0;
    };
    match csr {
        "SEND_CTXT_CTRL" => w.sc_ctrl_csr.get(owner),
        "SEND_CTXT_STATUS" => w.sc_status_csr.get(owner),
        "SEND_CTXT_ERR_STATUS" => w.sc_err_csr.get(owner),
        "SEND_CTXT_CREDIT_STATUS" => w.sc_credit_status_csr.get(owner),
        _ => 0,
    }
}

/// The send context a pointer argument names: NULL, or a context of the
/// world (dereferenced by the functions without a NULL check).
pub(crate) fn deref(sc: Option<SendCtxIdx>, who: &str) -> Result<SendCtxIdx, Undefined> {
    sc.ok_or_else(|| Undefined(format!("{who}() dereferences a NULL send context")))
}

/// Mirrors `sc_add_credit_return_intr()` (pio.c): the first user turns
/// the credit return interrupt on (the cached CSR and the CSR); every user
/// is counted.
pub fn sc_add_credit_return_intr(
    w: &World,
    e: &mut Engines,
    sc: SendCtxIdx,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let i = usize::from(sc.0);
    let count = e.sc_credit_intr_count.get(i);
    if count == 0 {
        let ctrl = e.sc_credit_ctrl.get(i) | CREDIT_CTRL_CREDIT_INTR_SMASK;
        put(&mut e.sc_credit_ctrl, i, ctrl, "sc_credit_ctrl")?;
        write_kctxt_csr(w, sc, "SEND_CTXT_CREDIT_CTRL", ctrl, j);
    }
    put(
        &mut e.sc_credit_intr_count,
        i,
        count.wrapping_add(1),
        "sc_credit_intr_count",
    )
}

/// Mirrors `sc_del_credit_return_intr()` (pio.c): warns when there is no
/// user to remove (and counts below zero); the last user turns the
/// interrupt off.
pub fn sc_del_credit_return_intr(
    w: &World,
    e: &mut Engines,
    sc: SendCtxIdx,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let i = usize::from(sc.0);
    let mut count = e.sc_credit_intr_count.get(i);
    if count == 0 {
        j.record("WARN(sc->credit_intr_count == 0)".into());
    }
    count = count.wrapping_sub(1);
    put(
        &mut e.sc_credit_intr_count,
        i,
        count,
        "sc_credit_intr_count",
    )?;
    if count == 0 {
        let ctrl = e.sc_credit_ctrl.get(i) & !CREDIT_CTRL_CREDIT_INTR_SMASK;
        put(&mut e.sc_credit_ctrl, i, ctrl, "sc_credit_ctrl")?;
        write_kctxt_csr(w, sc, "SEND_CTXT_CREDIT_CTRL", ctrl, j);
    }
    Ok(())
}

/// Mirrors `sc_return_credits()` (pio.c): nothing for NULL; otherwise a
/// 0 -> 1 -> 0 pulse of the force-return bit, read back in between.
pub fn sc_return_credits(w: &World, sc: Option<SendCtxIdx>, j: &mut Journal) {
    let Some(sc) = sc else { return };
    return_credits_hw(w, u32::from(w.sc_hw_context.get(usize::from(sc.0))), j);
}

/// [`sc_return_credits`] of hardware context `hw`.
pub(crate) fn return_credits_hw(w: &World, hw: u32, j: &mut Journal) {
    let csr = "SEND_CTXT_CREDIT_FORCE";
    write_hw_csr(hw, csr, CREDIT_FORCE_FORCE_RETURN_SMASK, j);
    read_hw_csr(w, hw, csr, j);
    write_hw_csr(hw, csr, 0, j);
}

/// `sc->credits`: the QP's send context's from the QP (`sc_credits`),
/// every other context of the world 0.
pub(crate) fn sc_credits_of(qp: &Qp, sc: SendCtxIdx) -> u32 {
    if qp.s_sendcontext == Some(sc) {
        qp.sc_credits
    } else {
        0
    }
}

/// Mirrors `sc_percent_to_threshold()` (pio.c): `percent` of the
/// context's credits (u32 arithmetic).
pub fn sc_percent_to_threshold(credits: u32, percent: u32) -> u32 {
    credits.wrapping_mul(percent) / 100
}

/// Mirrors `sc_mtu_to_threshold()` (pio.c): the credits an MTU's packet
/// with its header (`hdrqentsize` dwords) takes; the context's credits
/// less those, or 1 when it has no more.
pub fn sc_mtu_to_threshold(credits: u32, mtu: u32, hdrqentsize: u32) -> u32 {
    let mtu = mtu.wrapping_add(hdrqentsize << 2);
    let release_credits = mtu.div_ceil(PIO_BLOCK_SIZE);
    if credits <= release_credits {
        1
    } else {
        credits - release_credits
    }
}

/// Mirrors `sc_set_cr_threshold()` (pio.c): a threshold other than the
/// one in the context's credit control shadow is written into it (its
/// low 11 bits) and to `SEND_CTXT_CREDIT_CTRL`, then a credit return
/// forced ([`sc_return_credits`]).
pub fn sc_set_cr_threshold(
    w: &World,
    e: &mut Engines,
    sc: SendCtxIdx,
    new_threshold: u32,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let i = usize::from(sc.0);
    let hw = u32::from(w.sc_hw_context.get(i));
    let mut ctrl = e.sc_credit_ctrl.get(i);
    if set_cr_threshold_hw(w, hw, &mut ctrl, new_threshold, j) {
        put(&mut e.sc_credit_ctrl, i, ctrl, "sc_credit_ctrl")?;
    }
    Ok(())
}

/// [`sc_set_cr_threshold`] of hardware context `hw` whose credit control
/// shadow is `ctrl`: whether the threshold changed (and `ctrl` with it).
pub(crate) fn set_cr_threshold_hw(
    w: &World,
    hw: u32,
    ctrl: &mut u64,
    new_threshold: u32,
    j: &mut Journal,
) -> bool {
    let old_threshold = *ctrl & CREDIT_CTRL_THRESHOLD_MASK;
    if u64::from(new_threshold) == old_threshold {
        return false;
    }
    *ctrl = (*ctrl & !CREDIT_CTRL_THRESHOLD_MASK)
        | (u64::from(new_threshold) & CREDIT_CTRL_THRESHOLD_MASK);
    write_hw_csr(hw, "SEND_CTXT_CREDIT_CTRL", *ctrl, j);
    return_credits_hw(w, hw, j);
    true
}

/// Mirrors `hfi1_sc_wantpiobuf_intr()` (pio.c): a user of credit return
/// interrupts added (`needint`) or removed, the tracepoint
/// `hfi1_wantpiointr(sc, needint, credit_ctrl)`, and for an added user a
/// forced credit return.
pub fn hfi1_sc_wantpiobuf_intr(
    w: &World,
    e: &mut Engines,
    sc: SendCtxIdx,
    needint: u32,
    j: &mut Journal,
) -> Result<(), Undefined> {
    if needint != 0 {
        sc_add_credit_return_intr(w, e, sc, j)?;
    } else {
        sc_del_credit_return_intr(w, e, sc, j)?;
    }
    j.trace(
        "hfi1_wantpiointr",
        format_args!(
            "sc#{}, 0x{needint:x}, 0x{:x}",
            sc.0,
            e.sc_credit_ctrl.get(usize::from(sc.0))
        ),
    );
    if needint != 0 {
        sc_return_credits(w, Some(sc), j);
    }
    Ok(())
}

/// Mirrors `sc_stop()` (pio.c): the context marked with `flag` and no
/// longer enabled, its halt waiters woken.
pub fn sc_stop(
    e: &mut Engines,
    sc: SendCtxIdx,
    flag: Flags<ScFlag>,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let i = usize::from(sc.0);
    let mut f = Flags::from_bits(e.sc_flags.get(i).bits() | flag.bits());
    f.remove_all(&[ScFlag::Enabled]);
    put(&mut e.sc_flags, i, f, "sc_flags")?;
    j.record(format!("wake_up(sc#{}.halt_wait)", sc.0));
    Ok(())
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::PioSelectSendContextSc {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.send_context = pio_select_send_context_sc(cx.w, self.selector, self.sc5)?;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::PioSelectSendContextVl {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.send_context = pio_select_send_context_vl(cx.w, self.selector, self.vl)?;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::ScAddCreditReturnIntr {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let sc = deref(self.sc, "sc_add_credit_return_intr")?;
        sc_add_credit_return_intr(cx.w, cx.engines.to_mut(), sc, &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::ScDelCreditReturnIntr {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let sc = deref(self.sc, "sc_del_credit_return_intr")?;
        sc_del_credit_return_intr(cx.w, cx.engines.to_mut(), sc, &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::ScReturnCredits {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sc_return_credits(cx.w, self.sc, &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::ScWantPiobufIntr {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let sc = deref(self.sc, "hfi1_sc_wantpiobuf_intr")?;
        hfi1_sc_wantpiobuf_intr(cx.w, cx.engines.to_mut(), sc, self.needint, &mut cx.j)
    }
}

/// `PIO_WAIT_BATCH_SIZE` (pio.c): the QPs one wakeup takes at most.
const PIO_WAIT_BATCH_SIZE: usize = 5;

/// `hfi1_qp_wakeup()` from `RVT_S_WAIT_PIO | HFI1_S_WAIT_PIO_DRAIN` on the
/// QP or another QP of the list.
pub(crate) fn pio_wakeup(
    w: &World,
    qp: &mut Qp,
    iow: Iowait,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let flag = [SFlag::WaitPio, SFlag::WaitPioDrain];
    match iow {
        Iowait::Pio(i) => {
            let mut other = pio_qp(qp, i);
            hfi1_qp_wakeup(w, &mut other, &flag, j)?;
            pio_qp_back(qp, i, &other);
            Ok(())
        }
        _ => hfi1_qp_wakeup(w, qp, &flag, j),
    }
}

/// Mirrors the static `sc_piobufavail()` (pio.c) on send context `sc`:
/// nothing unless the context is a kernel or VL15 one
/// (`dd->send_contexts[sc->sw_index].type`); otherwise it takes the QPs
/// of its piowait list from the front, a batch of `PIO_WAIT_BATCH_SIZE`
/// at most, each with its priority recomputed (`iowait_get_priority`),
/// off the list with its lock cleared, the top-priority one so far kept
/// (`iowait_priority_update_top`, from the second on). If it took any, the
/// context stops wanting buffer interrupts (`hfi1_sc_wantpiobuf_intr(sc,
/// 0)`) and wants them again when QPs are left on the list; then the top
/// one is woken first, the others in list order (`hfi1_qp_wakeup` from
/// `RVT_S_WAIT_PIO | HFI1_S_WAIT_PIO_DRAIN`).
pub fn sc_piobufavail(
    w: &World,
    e: &mut Engines,
    qp: &mut Qp,
    sc: SendCtxIdx,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let ty = w.sc_type.get(usize::from(sc.0));
    if ty != ScType::Kernel && ty != ScType::Vl15 {
        return Ok(());
    }
    let list = piowait(qp, sc);
    let mut qps: Vec<Iowait> = Vec::new();
    let mut top_idx = 0;
    for &iow in &list {
        if qps.len() == PIO_WAIT_BATCH_SIZE {
            break;
        }
        iowait_get_priority(qp, iow);
        list_del_init(qp, iow);
        if iow == Iowait::Qp {
            qp.wait_sc = None;
        }
        if !qps.is_empty() {
            top_idx = iowait_priority_update_top(qp, iow, qps[top_idx], qps.len(), top_idx);
        }
        qps.push(iow);
    }
    if !qps.is_empty() {
        hfi1_sc_wantpiobuf_intr(w, e, sc, 0, j)?;
        if list.len() > qps.len() {
            hfi1_sc_wantpiobuf_intr(w, e, sc, 1, j)?;
        }
    }
    if let Some(&top) = qps.get(top_idx) {
        pio_wakeup(w, qp, top, j)?;
    }
    for (i, &iow) in qps.iter().enumerate() {
        if i != top_idx {
            pio_wakeup(w, qp, iow, j)?;
        }
    }
    Ok(())
}

impl crate::Mirror for super::types::args::ScPiobufavail {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let sc = cx.qp.s_sendcontext.ok_or_else(|| {
            Undefined("sc_piobufavail() is given the QP's send context, and it has none".into())
        })?;
        let (qp, e) = (cx.qp.to_mut(), cx.engines.to_mut());
        sc_piobufavail(cx.w, e, qp, sc, &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::ScStop {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let sc = deref(self.sc, "sc_stop")?;
        sc_stop(cx.engines.to_mut(), sc, self.flag, &mut cx.j)
    }
}
