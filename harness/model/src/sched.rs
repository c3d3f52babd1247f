//! qp.c: scheduling the send engine, wake-ups, and error handling of a QP.

use super::flags::{s_flag_value, HFI1_S_ANY_WAIT_IO, RVT_S_ANY_WAIT_SEND};
use super::qp::{EAGAIN, EBUSY};
use super::types::{DevFlag, IowaitFlag, PrivFlag, Qp, SFlag, Symbol, World};
use super::{at, qp_name, Journal, Undefined};

/// `cpumask_first(cpumask_of_node(dd->node))`: the lowest cpu of the node,
/// or `nr_cpu_ids` (64 here) when it has none.
fn first_node_cpu(w: &World) -> u32 {
    if w.node_cpus.0 == 0 {
        64
    } else {
        w.node_cpus.0.trailing_zeros()
    }
}

/// Mirrors `_hfi1_schedule_send()` (qp.c): nothing to do while the device
/// shuts down (returns true); otherwise queues the IB leg's work on the
/// QP's engine's cpu, or the first cpu of the device's node, and returns
/// what `queue_work_on` returned (`iowait_schedule`).
pub fn hfi1_schedule_send_nocheck(w: &World, qp: &Qp, j: &mut Journal) -> Result<bool, Undefined> {
    if w.has(DevFlag::Shutdown) {
        return Ok(true);
    }
    let cpu = match qp.s_sde {
        Some(e) => i64::from(*at(&w.sdma_cpus, usize::from(e.0), "dd->per_sdma")?),
        None => i64::from(first_node_cpu(w)),
    };
    j.record(format!("queue_work_on({cpu}, wq:hfi1, iowork:IB)"));
    Ok(w.queue_work_ret)
}

/// Mirrors `sdma_descq_freecnt()` (sdma.h): the ring's free descriptors,
/// in the kernel's arithmetic (u32, then truncated to the u16 returned).
pub fn sdma_descq_freecnt(qp: &Qp) -> u16 {
    u32::from(qp.sde_descq_cnt)
        .wrapping_sub(qp.sde_descq_tail.wrapping_sub(qp.sde_descq_head))
        .wrapping_sub(1) as u16
}

/// Mirrors `sdma_progress()` (sdma.h): when the head moved since `seq`
/// (its seqlock's sequence differs), `desc_avail` is recomputed and the
/// ring has room for `num_desc` descriptors or not.
pub(crate) fn sdma_progress(qp: &mut Qp, seq: u32, num_desc: u16) -> bool {
    if qp.sde_head_seq == seq {
        return false;
    }
    qp.sde_desc_avail = sdma_descq_freecnt(qp);
    num_desc <= qp.sde_desc_avail
}

/// Mirrors the static `iowait_sleep()` (qp.c), the callback
/// `qp_priv_alloc()` installs for an SDMA engine whose ring is full, with
/// the QP's engine (`priv->s_sde`), the leg's work (`tid_leg`), a fresh tx
/// of `num_desc` descriptors (named `tx_name` in the journal), the head
/// sequence the caller saw and whether packets were sent. In a state that
/// processes receives: the tx joins
/// the leg's list; if the ring made progress meanwhile the tx leaves it
/// again (-EAGAIN); otherwise a QP not yet waiting goes on the engine's
/// wait list (`n_dmawait`, `RVT_S_WAIT_DMA_DESC`, priority recomputed,
/// `iowait_queue`, traced, a reference taken) and the leg is unbusied
/// (-EBUSY). In any other state the tx is freed (0).
pub fn iowait_sleep(
    qp: &mut Qp,
    tid_leg: bool,
    seq: u32,
    pkts_sent: bool,
    num_desc: u16,
    tx_name: &str,
    j: &mut Journal,
) -> i32 {
    if !super::flags::process_recv_ok(qp.state) {
        j.record(format!("hfi1_put_txreq({tx_name})"));
        return 0;
    }
    // list_add_tail(&stx->list, &wait->tx_head): on an empty list the tx
    // is the first, the one whose descriptors are weighed.
    // Behind a first, it is one more.
    let (queued, first_desc, more) = if tid_leg {
        (
            &mut qp.tid_tx_queued,
            &mut qp.tid_tx_num_desc,
            &mut qp.tid_tx_more,
        )
    } else {
        (
            &mut qp.ib_tx_queued,
            &mut qp.ib_tx_num_desc,
            &mut qp.ib_tx_more,
        )
    };
    let was = (*queued, *first_desc, *more);
    if *queued {
        *more = more.wrapping_add(1);
    } else {
        *first_desc = num_desc;
    }
    *queued = true;
    if sdma_progress(qp, seq, num_desc) {
        // eagain: list_del_init(&stx->list)
        if tid_leg {
            (qp.tid_tx_queued, qp.tid_tx_num_desc, qp.tid_tx_more) = was;
        } else {
            (qp.ib_tx_queued, qp.ib_tx_num_desc, qp.ib_tx_more) = was;
        }
        return -EAGAIN;
    }
    if !qp.on_wait_list {
        qp.port_n_dmawait = qp.port_n_dmawait.wrapping_add(1);
        qp.s_flags.insert(SFlag::WaitDmaDesc);
        // iowait_get_priority(): init_priority, then each leg's first tx
        // (none of the world's is SDMA_TXREQ_F_VIP).
        qp.iowait_priority = hfi1_init_priority(qp) as u8;
        // iowait_queue()
        qp.starved_cnt = if pkts_sent {
            0
        } else {
            qp.starved_cnt.wrapping_add(1)
        };
        qp.on_wait_list = true;
        // priv->s_iowait.lock = &sde->waitlock: the QP's engine's (the
        // one lock: a send context's it may have held is gone).
        qp.wait_lock = qp.s_sde;
        qp.wait_sc = None;
        j.trace(
            "hfi1_qpsleep",
            format_args!(
                "qp#0x{:x}, 0x{:x}",
                qp.num,
                s_flag_value(SFlag::WaitDmaDesc)
            ),
        );
        qp.refcount = qp.refcount.wrapping_add(1);
    }
    hfi1_qp_unbusy(qp, tid_leg, j);
    -EBUSY
}

/// `lockdep_assert_held(&qp->s_lock)`, as the C world journals it: every
/// caller in scope holds the lock (the shim takes it where upstream's
/// callers would).
pub(crate) fn lockdep_assert_s_lock(qp: &Qp, j: &mut Journal) {
    j.record(format!("lockdep_assert_held(s_lock#0x{:x})", qp.num));
}

/// Mirrors `iowait_set_flag()` (iowait.c): traced, then set.
pub fn iowait_set_flag(qp: &mut Qp, f: IowaitFlag, j: &mut Journal) {
    j.trace(
        "hfi1_iowait_set",
        format_args!("iowait#0x{:x}, 0x{:x}", qp.num, f.index()),
    );
    qp.iowait_flags.insert(f);
}

/// Mirrors `iowait_clear_flag()` (iowait.c): traced, then cleared.
pub fn iowait_clear_flag(qp: &mut Qp, f: IowaitFlag, j: &mut Journal) {
    j.trace(
        "hfi1_iowait_clear",
        format_args!("iowait#0x{:x}, 0x{:x}", qp.num, f.index()),
    );
    qp.iowait_flags.remove_all(&[f]);
}

/// Mirrors the static `flush_tx_list()` (qp.c): each queued tx of the IB
/// leg, then of the TID leg, back to its cache (`hfi1_put_txreq`).
pub fn flush_tx_list(qp: &mut Qp, j: &mut Journal) {
    for (queued, more, leg) in [
        (&mut qp.ib_tx_queued, &mut qp.ib_tx_more, "IB"),
        (&mut qp.tid_tx_queued, &mut qp.tid_tx_more, "TID"),
    ] {
        if *queued {
            for _ in 0..=*more {
                j.record(format!("hfi1_put_txreq(txreq:{leg})"));
            }
        }
        (*queued, *more) = (false, 0);
    }
}

/// Mirrors `hfi1_send_ok()` (qp.h): not busy, not waiting for I/O, and
/// either a packet is queued, a response is pending, or nothing blocks
/// sends.
pub fn hfi1_send_ok(qp: &Qp) -> bool {
    !qp.s_flags.contains(&SFlag::Busy)
        && !qp.s_flags.any_of(HFI1_S_ANY_WAIT_IO)
        && (qp.ib_tx_queued
            || qp.s_flags.contains(&SFlag::RespPending)
            || !qp.s_flags.any_of(RVT_S_ANY_WAIT_SEND))
}

/// Mirrors `hfi1_schedule_send()` (qp.c), called with `s_lock` held:
/// schedules when `hfi1_send_ok`; otherwise, when waiting for I/O, marks the
/// IB leg pending (`IOWAIT_PENDING_IB`) and returns false.
pub fn hfi1_schedule_send(w: &World, qp: &mut Qp, j: &mut Journal) -> Result<bool, Undefined> {
    lockdep_assert_s_lock(qp, j);
    if hfi1_send_ok(qp) {
        hfi1_schedule_send_nocheck(w, qp, j)?;
        return Ok(true);
    }
    if qp.s_flags.any_of(HFI1_S_ANY_WAIT_IO) {
        iowait_set_flag(qp, IowaitFlag::PendingIb, j);
    }
    Ok(false)
}

/// Mirrors the static `hfi1_qp_schedule()` (qp.c): reschedules each leg
/// marked pending, clearing the mark when scheduling succeeded. The TID
/// leg goes to the boundary `hfi1_schedule_tid_send`, which answers
/// `world.tid_send_ret`.
fn hfi1_qp_schedule(w: &World, qp: &mut Qp, j: &mut Journal) -> Result<(), Undefined> {
    if qp.iowait_flags.contains(&IowaitFlag::PendingIb) && hfi1_schedule_send(w, qp, j)? {
        iowait_clear_flag(qp, IowaitFlag::PendingIb, j);
    }
    if qp.iowait_flags.contains(&IowaitFlag::PendingTid) {
        j.record(format!("hfi1_schedule_tid_send({})", qp_name(qp)));
        if w.tid_send_ret {
            iowait_clear_flag(qp, IowaitFlag::PendingTid, j);
        }
    }
    Ok(())
}

/// `rvt_put_qp()` (rdmavt_qp.h): drops a reference, waking waiters on the
/// last one.
pub(crate) fn rvt_put_qp(qp: &mut Qp, j: &mut Journal) {
    qp.refcount = qp.refcount.wrapping_sub(1);
    if qp.refcount == 0 {
        j.record(format!("wake_up(qp-wait#0x{:x})", qp.num));
    }
}

/// Mirrors `hfi1_qp_wakeup()` (qp.c): if any of `flag` is set, clears it
/// and reschedules the pending legs; then drops the caller's reference.
pub fn hfi1_qp_wakeup(
    w: &World,
    qp: &mut Qp,
    flag: &[SFlag],
    j: &mut Journal,
) -> Result<(), Undefined> {
    if qp.s_flags.any_of(flag) {
        qp.s_flags.remove_all(flag);
        let value = flag.iter().fold(0, |a, f| a | s_flag_value(*f));
        j.trace(
            "hfi1_qpwakeup",
            format_args!("qp#0x{:x}, 0x{value:x}", qp.num),
        );
        hfi1_qp_schedule(w, qp, j)?;
    }
    rvt_put_qp(qp, j);
    Ok(())
}

/// Mirrors `hfi1_qp_unbusy()` (qp.c) for the IB leg (`tid_leg` false) or
/// the TID leg: `iowait_set_work_flag` marks that leg pending; the IB leg
/// clears `RVT_S_BUSY` and, when the TID leg had set its busy mark, hands
/// over to it; the TID leg clears only the private busy flag.
pub fn hfi1_qp_unbusy(qp: &mut Qp, tid_leg: bool, j: &mut Journal) {
    if !tid_leg {
        iowait_set_flag(qp, IowaitFlag::PendingIb, j);
        qp.s_flags.remove_all(&[SFlag::Busy]);
        if qp.priv_flags.contains(&PrivFlag::TidBusySet) {
            qp.priv_flags
                .remove_all(&[PrivFlag::TidBusySet, PrivFlag::Busy]);
            iowait_set_flag(qp, IowaitFlag::PendingTid, j);
        }
    } else {
        iowait_set_flag(qp, IowaitFlag::PendingTid, j);
        qp.priv_flags.remove_all(&[PrivFlag::Busy]);
    }
}

/// Mirrors `notify_error_qp()` (qp.c): a QP waiting on an engine's list
/// and not busy leaves the list (dropping the list's reference) with its
/// I/O waits and pending marks cleared; a QP not busy also drops its RDMA
/// MR's reference (`rvt_put_mr`) and flushes its queued tx requests.
/// Returns what the shim reports of a QP that held an MR.
pub fn notify_error_qp(qp: &mut Qp, j: &mut Journal) -> Option<String> {
    let busy =
        |qp: &Qp| qp.s_flags.contains(&SFlag::Busy) || qp.priv_flags.contains(&PrivFlag::Busy);
    if qp.on_wait_list && !busy(qp) {
        qp.s_flags.remove_all(HFI1_S_ANY_WAIT_IO);
        iowait_clear_flag(qp, IowaitFlag::PendingIb, j);
        iowait_clear_flag(qp, IowaitFlag::PendingTid, j);
        qp.on_wait_list = false;
        qp.wait_lock = None;
        qp.wait_sc = None;
        rvt_put_qp(qp, j);
    }
    let had_mr = qp.rdma_mr_refs.is_some();
    // atomic_long_t in the kernel: no wrap at 32 bits.
    let mut mr_refs = i64::from(qp.rdma_mr_refs.unwrap_or(0));
    if !busy(qp) {
        // rvt_put_mr(): the MR's reference dropped, the pointer cleared.
        if qp.rdma_mr_refs.take().is_some() {
            mr_refs -= 1;
        }
        qp.s_hdrwords = 0;
        flush_tx_list(qp, j);
    }
    // What the shim reports of a QP that held an MR.
    had_mr.then(|| {
        format!(
            "s_rdma_mr={} mr_refs={}",
            if qp.rdma_mr_refs.is_some() {
                "set"
            } else {
                "NULL"
            },
            mr_refs
        )
    })
}

/// `SDMA_AVAIL_REASON` (iowait.h).
pub const SDMA_AVAIL_REASON: u32 = 0;

/// Mirrors the static `iowait_wakeup()` (qp.c), the iowait callback the SDMA
/// engine calls when descriptors free up: warns on any other reason, then
/// wakes the QP from `RVT_S_WAIT_DMA_DESC`.
pub fn iowait_wakeup(
    w: &World,
    qp: &mut Qp,
    reason: u32,
    j: &mut Journal,
) -> Result<(), Undefined> {
    if reason != SDMA_AVAIL_REASON {
        j.record("WARN(reason != SDMA_AVAIL_REASON)".into());
    }
    hfi1_qp_wakeup(w, qp, &[SFlag::WaitDmaDesc], j)
}

/// Mirrors the static `iowait_sdma_drained()` (qp.c): a QP that waited for
/// its SDMA work to drain stops waiting and is rescheduled.
pub fn iowait_sdma_drained(w: &World, qp: &mut Qp, j: &mut Journal) -> Result<(), Undefined> {
    if qp.s_flags.contains(&SFlag::WaitDma) {
        qp.s_flags.remove_all(&[SFlag::WaitDma]);
        hfi1_schedule_send(w, qp, j)?;
    }
    Ok(())
}

/// Mirrors `iowait_drain_wakeup()` (iowait.h) on the QP's iowait: both
/// its wait queues woken, then its `sdma_drained` callback (qp.c's
/// [`iowait_sdma_drained`]).
pub fn iowait_drain_wakeup(w: &World, qp: &mut Qp, j: &mut Journal) -> Result<(), Undefined> {
    j.record("wake_up(wait_dma)".into());
    j.record("wake_up(wait_pio)".into());
    iowait_sdma_drained(w, qp, j)
}

/// Mirrors the static `hfi1_init_priority()` (qp.c): one step of priority
/// for an ACK pending on each leg. Returns the priority from 0.
pub fn hfi1_init_priority(qp: &Qp) -> i32 {
    i32::from(qp.s_flags.contains(&SFlag::AckPending))
        + i32::from(qp.priv_flags.contains(&PrivFlag::AckPending))
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::HfiScheduleSendNoCheck {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = i32::from(hfi1_schedule_send_nocheck(cx.w, &cx.qp, &mut cx.j)?);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::HfiScheduleSend {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = i32::from(hfi1_schedule_send(cx.w, cx.qp.to_mut(), &mut cx.j)?);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::QpUnbusy {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        hfi1_qp_unbusy(
            cx.qp.to_mut(),
            self.leg == super::types::Leg::Tid,
            &mut cx.j,
        );
        Ok(())
    }
}

impl crate::Mirror for super::types::args::QpWakeup {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let flags: Vec<SFlag> = self.flags.iter().copied().collect();
        hfi1_qp_wakeup(cx.w, cx.qp.to_mut(), &flags, &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::NotifyErrorQp {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        if let Some(t) = notify_error_qp(cx.qp.to_mut(), &mut cx.j) {
            cx.out.text = t;
        }
        Ok(())
    }
}

impl crate::Mirror for super::types::args::IowaitWakeup {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        iowait_wakeup(cx.w, cx.qp.to_mut(), self.reason, &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::IowaitSdmaDrained {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        iowait_sdma_drained(cx.w, cx.qp.to_mut(), &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::InitPriority {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        // The shim zeroes the priority first, as iowait_init_priority().
        cx.out.ret = hfi1_init_priority(&cx.qp);
        cx.qp.to_mut().iowait_priority = cx.out.ret as u8;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::IowaitSleep {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = iowait_sleep(
            cx.qp.to_mut(),
            self.leg == super::types::Leg::Tid,
            self.seq,
            self.pkts_sent,
            self.num_desc,
            // The tx given for a leg is named by its leg, as the ones
            // queued on it are.
            if self.leg == super::types::Leg::Tid {
                "txreq:TID"
            } else {
                "txreq:IB"
            },
            &mut cx.j,
        );
        Ok(())
    }
}
