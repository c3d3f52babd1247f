//! qp.c: a QP's private data from allocation to teardown, and the
//! operation table rdmavt checks posts against.

use super::sched::rvt_put_qp;
use super::types::{Engines, Qp, QpType, SFlag, World, WrOpcode};
use super::{qp_name, Journal, Undefined};

use super::alloc::Allocs;
pub use super::alloc::ENOMEM;

/// Mirrors `qp_priv_alloc()` (qp.c): the private data on the device's node,
/// owned by the QP, with an AHG block, an iowait set up for the send
/// engines (one tx at a time) and a running packet size of half the PIO
/// threshold; `-ENOMEM` (freeing what was taken) when an allocation fails.
/// Returns the return code and the description of what was initialised.
pub fn qp_priv_alloc(w: &World, qp: &Qp, j: &mut Journal) -> (i32, String) {
    let mut a = Allocs::new(w);
    if !a.kmalloc(w.node, j) {
        return (-ENOMEM, String::new());
    }
    if !a.kmalloc(w.node, j) {
        j.record("kfree".into());
        return (-ENOMEM, String::new());
    }
    (
        0,
        format!(
            "owner={} ahg=set tx_limit=1 func=_hfi1_do_send tidfunc=_hfi1_do_tid_send sleep=set wakeup=set sdma_drained=set init_priority=set running_pkt_size={} \
             list=empty wait_dma=empty wait_pio=empty ib_tx_head=empty tid_tx_head=empty iow=self,self",
            qp_name(qp),
            w.piothreshold / 2
        ),
    )
}

/// Mirrors `qp_priv_free()` (qp.c): TID RDMA state first, then the AHG
/// block and the private data.
pub fn qp_priv_free(qp: &Qp, j: &mut Journal) {
    j.record(format!("hfi1_qp_priv_tid_free({})", qp_name(qp)));
    j.record("kfree".into());
    j.record("kfree".into());
}

/// Mirrors `free_all_qps()` (qp.c): counts the special QPs (0 and 1) still
/// present on each port.
pub fn free_all_qps(w: &World) -> i32 {
    (0..w.sl_to_sc.len())
        .map(|i| {
            i32::from(w.port_qp0.get(i).copied().unwrap_or(false))
                + i32::from(w.port_qp1.get(i).copied().unwrap_or(false))
        })
        .sum()
}

/// Mirrors `flush_qp_waiters()` (qp.c) with the static `flush_iowait()`: a
/// QP on an engine's wait list leaves it, dropping the list's reference;
/// then TID RDMA waiters are flushed.
pub fn flush_qp_waiters(qp: &mut Qp, j: &mut Journal) {
    super::sched::lockdep_assert_s_lock(qp, j);
    if qp.on_wait_list {
        qp.on_wait_list = false;
        qp.wait_lock = None;
        qp.wait_sc = None;
        rvt_put_qp(qp, j);
    }
    j.record(format!("hfi1_tid_rdma_flush_wait({})", qp_name(qp)));
}

/// Mirrors `stop_send_queue()` (qp.c) with iowait.c's
/// `iowait_cancel_work()`: cancels both legs' work and the TID trigger;
/// when `cancel_work_sync` says the trigger was pending, the reference it
/// held is dropped.
pub fn stop_send_queue(w: &World, qp: &mut Qp, j: &mut Journal) {
    j.record("cancel_work_sync(iowork:IB)".into());
    j.record("cancel_work_sync(iowork:TID)".into());
    j.record("cancel_work_sync(tid-trigger-work)".into());
    // A pending trigger work held a reference: cancelled, it is dropped.
    if w.cancel_work_ret {
        super::sched::rvt_put_qp(qp, j);
    }
}

/// Mirrors `quiesce_qp()` (qp.c): TID timers stopped, SDMA drained (with
/// descriptors in flight, `wait_event` would sleep forever: recorded), PIO
/// drained (nothing in flight by the world's invariant), tx list flushed.
pub fn quiesce_qp(qp: &mut Qp, j: &mut Journal) -> Result<(), Undefined> {
    j.record(format!("hfi1_del_tid_reap_timer({})", qp_name(qp)));
    j.record(format!("hfi1_del_tid_retry_timer({})", qp_name(qp)));
    if qp.sdma_busy != 0 {
        j.record("wait_event(wait_dma): sleeps forever".into());
    }
    if qp.s_sendcontext.is_some() && qp.pio_busy != 0 {
        return Err(Undefined(
            "qp_pio_drain() loops forever while pio_busy != 0".into(),
        ));
    }
    super::sched::flush_tx_list(qp, j);
    Ok(())
}

/// Mirrors `notify_qp_reset()` (qp.c) with qp.h's `clear_ahg()`: expected
/// receive flows cleared, deferred ACKs forgotten, AHG state reset (a slot
/// held on an engine is freed), OPFN told for RC QPs. Returns the
/// description of the AHG state left (the engine's count).
pub fn notify_qp_reset(qp: &mut Qp, e: &mut Engines, j: &mut Journal) -> Result<String, Undefined> {
    j.record(format!("hfi1_qp_kern_exp_rcv_clear_all({})", qp_name(qp)));
    qp.r_adefered = 0;
    qp.s_flags.remove_all(&[SFlag::AhgValid, SFlag::AhgClear]);
    if qp.s_sde.is_some() && qp.s_ahgidx >= 0 {
        super::sdma::sdma_ahg_free(e, qp.s_sde, qp.s_ahgidx.into(), j)?;
    }
    qp.s_ahgidx = -1;
    if qp.qp_type == QpType::Rc {
        j.record(format!("opfn_conn_error({})", qp_name(qp)));
    }
    Ok("ahgidx=-1 ahgcount=0".into())
}

/// `sizeof` of the work-request structs (x86_64, ib_verbs.h): the shim
/// names a length by every struct of that size.
fn wr_len_names(len: u32) -> &'static str {
    match len {
        56 => "ib_rdma_wr|ib_reg_wr",
        88 => "ib_atomic_wr",
        40 => "ib_send_wr",
        80 => "ib_ud_wr",
        0 => "0",
        _ => "other",
    }
}

/// Mirrors the `hfi1_post_parms[]` table (qp.c): for each opcode, the
/// work-request struct rdmavt copies, the QP types that may post it, and
/// the operation flags.
pub fn hfi1_post_parms(op: WrOpcode) -> String {
    const RDMA: u32 = 56;
    const ATOMIC: u32 = 88;
    const SEND: u32 = 40;
    const REG: u32 = 56;
    let all = "SMI,GSI,RC,UC,UD";
    let (len, qpt, flags) = match op {
        WrOpcode::RdmaWrite | WrOpcode::RdmaWriteWithImm => (RDMA, "RC,UC", ""),
        WrOpcode::RdmaRead => (RDMA, "RC", "ATOMIC"),
        WrOpcode::AtomicCmpAndSwp | WrOpcode::AtomicFetchAndAdd => {
            (ATOMIC, "RC", "ATOMIC,ATOMIC_SGE")
        }
        WrOpcode::Send | WrOpcode::SendWithImm => (SEND, all, ""),
        WrOpcode::RegMr => (REG, "RC,UC", "LOCAL"),
        WrOpcode::LocalInv => (SEND, "RC,UC", "LOCAL"),
        WrOpcode::SendWithInv => (SEND, "RC", ""),
        WrOpcode::Opfn => (ATOMIC, "RC", "USE_RESERVE"),
        WrOpcode::TidRdmaWrite => (RDMA, "RC", "IGN_RNR_CNT"),
        WrOpcode::TidRdmaRead => (0, "", ""),
    };
    format!(
        "length={} qpt={{{qpt}}} flags={{{flags}}}",
        wr_len_names(len)
    )
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::QpPrivAlloc {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (ret, text) = qp_priv_alloc(cx.w, &cx.qp, &mut cx.j);
        cx.out.ret = ret;
        cx.out.text = text;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::QpPrivFree {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        qp_priv_free(&cx.qp, &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::FreeAllQps {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = free_all_qps(cx.w);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::FlushQpWaiters {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        flush_qp_waiters(cx.qp.to_mut(), &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::StopSendQueue {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        stop_send_queue(cx.w, cx.qp.to_mut(), &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::QuiesceQp {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        quiesce_qp(cx.qp.to_mut(), &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::NotifyQpReset {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.text = notify_qp_reset(cx.qp.to_mut(), cx.engines.to_mut(), &mut cx.j)?;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::PostParms {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.text = hfi1_post_parms(self.opcode);
        Ok(())
    }
}
