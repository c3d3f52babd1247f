//! An SDMA engine's send path (sdma.c) for the QP's work: a tx request's
//! descriptors copied onto the descriptor ring with the ring's
//! generation and the chip's tail moved; on an engine that does not run,
//! the request parked on the flush list for the flush worker; on a full
//! ring, the QP made to wait for descriptors (its `iowait_sleep()`).

use super::qp::{EAGAIN, EBUSY, ECOMM, EINVAL};
use super::sched::{iowait_sleep, sdma_descq_freecnt};
use super::sdma::qp_engine;
use super::sdma_progress::sdma_running;
use super::sdma_tx::{
    ahg_mode, desc_words, ring_mask, GENERATION_MASK, GENERATION_SHIFT, SDMA_AHG_APPLY_UPDATE1,
};
use super::types::args::{SdmaSendTxlist, SdmaSendTxreq};
use super::types::{DescqEntry, DmaTx, EngineIdx, Engines, Leg, Qp, TxWait, World, MAX_DESCQ};
use super::{Journal, Undefined};

/// Mirrors the static inline `add_gen()` (sdma.c): `qw1` with its
/// generation bits replaced by the ring's generation at the tail,
/// `(descq_tail >> sdma_shift) & 3` (the shift is `ilog2(descq_cnt)`, as
/// `sdma_init()` sets it).
fn add_gen(qp: &Qp, qw1: u64) -> u64 {
    let shift = qp.sde_descq_cnt.checked_ilog2().unwrap_or(0);
    let generation = u64::from((qp.sde_descq_tail >> shift) & 3);
    (qw1 & !(GENERATION_MASK << GENERATION_SHIFT))
        | (generation & GENERATION_MASK) << GENERATION_SHIFT
}

/// Slot `idx` of the ring (`sde->descq[idx]`) written: the slots whose
/// words are not both 0 are what a world reads back, in slot order, at
/// most [`MAX_DESCQ`] of them.
fn descq_set(qp: &mut Qp, idx: u16, qw0: u64, qw1: u64) -> Result<(), Undefined> {
    let mut v: Vec<DescqEntry> = qp
        .sde_descq
        .iter()
        .copied()
        .filter(|e| u16::from(e.idx) != idx)
        .collect();
    if qw0 | qw1 != 0 {
        let at = v.partition_point(|e| u16::from(e.idx) < idx);
        // Rings that hold descriptors in a world have at most 64 slots.
        v.insert(
            at,
            DescqEntry {
                idx: idx as u8,
                qw0,
                qw1,
            },
        );
    }
    if v.len() > MAX_DESCQ {
        return Err(Undefined(format!(
            "more than {MAX_DESCQ} descriptors of the ring set: more than a world reads back"
        )));
    }
    qp.sde_descq = v.into_iter().collect();
    Ok(())
}

/// The tracepoint `hfi1_sdma_descriptor(sde, desc0, desc1, e, descp)`.
fn trace_descriptor(j: &mut Journal, sde: EngineIdx, qw0: u64, qw1: u64, e: u16) {
    j.trace(
        "hfi1_sdma_descriptor",
        format_args!("sde#{}, 0x{qw0:x}, 0x{qw1:x}, 0x{e:x}, descq#{e}", sde.0),
    );
}

/// `sde->tx_ring[sde->tx_tail++ & sde->sdma_mask] = tx`: the model keeps
/// the ring's requests from its head on, so the slot is the one `tx_tail`
/// is past the head (the next, or, on a ring with fewer slots than
/// requests, one it overwrites).
fn tx_ring_put(qp: &mut Qp, mask: u32, tx: DmaTx) -> Result<(), Undefined> {
    let k = usize::from(qp.sde_tx_tail.wrapping_sub(qp.sde_tx_head) & mask as u16);
    qp.sde_tx_tail = qp.sde_tx_tail.wrapping_add(1);
    match k.cmp(&qp.sde_tx_ring.len()) {
        std::cmp::Ordering::Less => {
            qp.sde_tx_ring = qp
                .sde_tx_ring
                .iter()
                .enumerate()
                .map(|(i, &t)| if i == k { tx } else { t })
                .collect();
            Ok(())
        }
        std::cmp::Ordering::Equal => qp.sde_tx_ring.push(tx).map_err(|_| {
            Undefined("a fifth tx request on the ring: more than a world reads back".into())
        }),
        std::cmp::Ordering::Greater => Err(Undefined(
            "a tx request past an empty slot of the ring: more than a world reads back".into(),
        )),
    }
}

/// Mirrors the static inline `submit_tx()` (sdma.c): each descriptor of
/// the request copied to the ring's slot at the tail (`descq_tail &
/// sdma_mask`), traced, and the tail moved on; the generation put in
/// every `qw[1]` but those of the AHG update descriptors after the first
/// (`mode >> 1` of them for a mode above `SDMA_AHG_APPLY_UPDATE1`); the
/// request's `next_descq_idx` the slot after its last; the request put on
/// the tx ring and its descriptors taken from `desc_avail`. It returns the
/// new tail.
fn submit_tx(
    qp: &mut Qp,
    sde: EngineIdx,
    tx: &mut DmaTx,
    j: &mut Journal,
) -> Result<u16, Undefined> {
    let mask = ring_mask(qp, "submit_tx")?;
    let mode = ahg_mode(tx);
    let (qw0, qw1) = desc_words(tx, 0);
    let mut tail = (qp.sde_descq_tail & mask) as u16;
    descq_set(qp, tail, qw0, add_gen(qp, qw1))?;
    // The first descriptor is traced as the request holds it.
    trace_descriptor(j, sde, qw0, qw1, tail);
    qp.sde_descq_tail = qp.sde_descq_tail.wrapping_add(1);
    tail = (qp.sde_descq_tail & mask) as u16;
    let mut skip = if mode > SDMA_AHG_APPLY_UPDATE1 {
        mode >> 1
    } else {
        0
    };
    for i in 1..tx.num_desc {
        let (qw0, own) = desc_words(tx, i);
        let qw1 = if skip > 0 {
            // Edits carry no generation.
            skip -= 1;
            own
        } else {
            add_gen(qp, own)
        };
        descq_set(qp, tail, qw0, qw1)?;
        trace_descriptor(j, sde, qw0, qw1, tail);
        qp.sde_descq_tail = qp.sde_descq_tail.wrapping_add(1);
        tail = (qp.sde_descq_tail & mask) as u16;
    }
    tx.next_descq_idx = tail;
    tx_ring_put(qp, mask, *tx)?;
    qp.sde_desc_avail = qp.sde_desc_avail.wrapping_sub(u16::from(tx.num_desc));
    Ok(tail)
}

/// Mirrors the static inline `sdma_update_tail()` (sdma.c): the tail
/// written to the engine's `SEND_DMA_TAIL` register (`sde->tail_csr`).
pub(crate) fn sdma_update_tail(sde: EngineIdx, tail: u16, j: &mut Journal) {
    j.record(format!("writeq(SEND_DMA_TAIL[{}], 0x{tail:x})", sde.0));
}

/// The iowait work a send is given (`struct iowait_work *wait`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Work {
    /// NULL.
    Null,
    /// A leg of the QP's iowait (qp.c's callbacks).
    Qp(Leg),
    /// The IB work of the world's packet queue (the shim's sleep).
    Queue,
}

impl Work {
    /// `iowait_ioww_to_iow(wait)`, as a request's `tx->wait` names it.
    fn iow(self) -> TxWait {
        match self {
            Work::Null => TxWait::Null,
            Work::Qp(_) => TxWait::Qp,
            Work::Queue => TxWait::Queue,
        }
    }
}

/// The world's packet queue's sleep (the shim's, standing for user SDMA's
/// or ipoib's, which are not in the world): records its arguments and
/// returns -EAGAIN while the queue has `queue_sleep_eagain` left, then
/// -EBUSY; it queues nothing.
fn queue_sleep(
    qp: &mut Qp,
    sde: EngineIdx,
    tx: &DmaTx,
    seq: u32,
    pkts_sent: bool,
    j: &mut Journal,
) -> i32 {
    let ret = if qp.queue_sleep_eagain > 0 {
        qp.queue_sleep_eagain -= 1;
        -EAGAIN
    } else {
        -EBUSY
    };
    j.record(format!(
        "sleep(sde#{}, queue.ib, dtx#{}, {seq}, {pkts_sent}) = {}",
        sde.0,
        tx.id,
        if ret == -EAGAIN { "-EAGAIN" } else { "-EBUSY" }
    ));
    ret
}

/// Mirrors the static `sdma_check_progress()` (sdma.c): `desc_avail`
/// recomputed from the ring; room for the request is -EAGAIN (try
/// again); otherwise an iowait with a sleep (the QP's has qp.c's
/// `iowait_sleep()`, the queue's the shim's) sleeps on the engine with the
/// head sequence as now (`raw_seqcount_begin`, its low bit cleared), and
/// if its sleep saw progress (-EAGAIN) `desc_avail` is recomputed again;
/// with no iowait or no sleep, -EBUSY.
fn sdma_check_progress(
    qp: &mut Qp,
    sde: EngineIdx,
    wait: Work,
    tx: &DmaTx,
    pkts_sent: bool,
    j: &mut Journal,
) -> i32 {
    qp.sde_desc_avail = sdma_descq_freecnt(qp);
    if u16::from(tx.num_desc) <= qp.sde_desc_avail {
        return -EAGAIN;
    }
    let seq = qp.sde_head_seq & !1;
    let ret = match wait {
        Work::Null => return -EBUSY,
        Work::Queue if !qp.queue_sleep => return -EBUSY,
        Work::Qp(leg) => iowait_sleep(
            qp,
            leg == Leg::Tid,
            seq,
            pkts_sent,
            u16::from(tx.num_desc),
            &format!("dtx#{}", tx.id),
            j,
        ),
        Work::Queue => queue_sleep(qp, sde, tx, seq, pkts_sent, j),
    };
    if ret == -EAGAIN {
        qp.sde_desc_avail = sdma_descq_freecnt(qp);
    }
    ret
}

/// `iowait_sdma_add(iowait_ioww_to_iow(wait), n)`: the iowait's count of
/// SDMA work raised.
fn iowait_sdma_add(qp: &mut Qp, wait: Work, n: i32) {
    match wait {
        Work::Null => {}
        Work::Qp(_) => qp.sdma_busy = qp.sdma_busy.wrapping_add(n),
        Work::Queue => qp.queue_sdma_busy = qp.queue_sdma_busy.wrapping_add(n),
    }
}

/// `iowait_starve_clear(pkts_sent, iowait_ioww_to_iow(wait))`: the
/// iowait's starvation count cleared when packets were sent.
fn iowait_starve_clear(qp: &mut Qp, pkts_sent: bool, wait: Work) {
    let starved = match wait {
        Work::Null => return,
        Work::Qp(_) => &mut qp.starved_cnt,
        Work::Queue => &mut qp.queue_starved_cnt,
    };
    if pkts_sent {
        *starved = 0;
    }
}

/// `iowait_inc_wait_count(wait, n)`: the iowait's requests and
/// descriptors waiting to be flushed counted.
fn iowait_inc_wait_count(qp: &mut Qp, wait: Work, n: u8) {
    let (tx_count, count) = match wait {
        Work::Null => return,
        Work::Qp(_) => (&mut qp.iowait_tx_count, &mut qp.iowait_count),
        Work::Queue => (&mut qp.queue_tx_count, &mut qp.queue_count),
    };
    *tx_count = tx_count.wrapping_add(1);
    *count = count.wrapping_add(u32::from(n));
}

/// The flush worker of an engine queued on its CPU (`system_highpri_wq`).
fn queue_flush_worker(w: &World, sde: EngineIdx, j: &mut Journal) {
    let cpu = w.sdma_cpus.get(usize::from(sde.0)).copied().unwrap_or(0);
    j.record(format!(
        "queue_work_on({cpu}, wq:highpri, sde#{}.flush_worker)",
        sde.0
    ));
}

/// A request an engine that does not run takes for its flush worker: its
/// `next_descq_idx` 0, on the flush list, counted as waiting on its iowait
/// (`iowait_inc_wait_count`).
fn park(qp: &mut Qp, wait: Work, mut tx: DmaTx) -> Result<(), Undefined> {
    tx.next_descq_idx = 0;
    qp.sde_flushlist.push(tx).map_err(|_| {
        Undefined("a fifth tx request on the flush list: more than a world reads back".into())
    })?;
    iowait_inc_wait_count(qp, wait, tx.num_desc);
    Ok(())
}

/// An engine that does not run takes a request for its flush worker:
/// the iowait's count of SDMA work raised (`iowait_sdma_inc`), the request
/// parked ([`park`]), the flush worker queued; -ECOMM.
fn unlock_noconn(
    w: &World,
    qp: &mut Qp,
    sde: EngineIdx,
    wait: Work,
    tx: DmaTx,
    j: &mut Journal,
) -> Result<i32, Undefined> {
    iowait_sdma_add(qp, wait, 1);
    park(qp, wait, tx)?;
    queue_flush_worker(w, sde, j);
    Ok(-ECOMM)
}

/// Mirrors `sdma_send_txreq()` (sdma.c) on the QP's engine with its
/// arguments `a` (the QP's work of a leg or NULL, the request, whether
/// packets were sent): a request still lacking bytes (`tlen`) is
/// -EINVAL; its `wait` is set; under the tail lock, an engine that does not
/// run takes it for its flush worker (-ECOMM); a request that does not
/// fit `desc_avail` checks progress ([`sdma_check_progress`]), which
/// either says try again or is the result, the engine's
/// `descq_full_count` raised; one that fits is submitted, the iowait's
/// SDMA count raised and the chip's tail moved (0).
pub fn sdma_send_txreq(
    w: &World,
    e: &Engines,
    qp: &mut Qp,
    a: &SdmaSendTxreq,
    j: &mut Journal,
) -> Result<i32, Undefined> {
    let sde = qp_engine(qp, "sdma_send_txreq")?;
    if a.tlen != 0 {
        return Ok(-EINVAL);
    }
    let wait = if a.wait { Work::Qp(a.leg) } else { Work::Null };
    let (mut tx, pkts_sent) = (a.tx, a.pkts_sent);
    tx.wait = wait.iow();
    loop {
        if !sdma_running(e, sde) {
            return unlock_noconn(w, qp, sde, wait, tx, j);
        }
        if u16::from(tx.num_desc) > qp.sde_desc_avail {
            let ret = sdma_check_progress(qp, sde, wait, &tx, pkts_sent, j);
            if ret == -EAGAIN {
                // Room now: the retry submits.
                continue;
            }
            qp.sde_descq_full_count = qp.sde_descq_full_count.wrapping_add(1);
            return Ok(ret);
        }
        let tail = submit_tx(qp, sde, &mut tx, j)?;
        iowait_sdma_add(qp, wait, 1);
        sdma_update_tail(sde, tail, j);
        return Ok(0);
    }
}

/// `SDMA_TAIL_UPDATE_THRESH` (sdma.c): the tail is written every 32
/// requests of a list, and after its last.
const SDMA_TAIL_UPDATE_THRESH: u32 = 0x1f;

/// Mirrors `sdma_send_txlist()` (sdma.c) on the QP's engine with the
/// caller's list (the QP's `txlist`) and its arguments `a` (the world's
/// packet queue's IB work or NULL; the requests lacking bytes). Under the
/// tail lock, each request from the list's head, its `wait` set: an
/// engine that does not run takes it and the rest for its flush worker
/// (-ECOMM); one that does not fit `desc_avail` checks progress
/// ([`sdma_check_progress`]), which either starts the walk again or ends
/// it, the engine's `descq_full_count` raised; one lacking bytes ends it
/// (-EINVAL); one that fits leaves the list and is submitted (the tail
/// written every [`SDMA_TAIL_UPDATE_THRESH`] + 1). Then the iowait's SDMA
/// count raised by all the call took and its starvation cleared if any was
/// submitted, the tail written if one is pending. Returns the result and
/// `*count_out`, the requests taken.
pub fn sdma_send_txlist(
    w: &World,
    e: &Engines,
    qp: &mut Qp,
    a: &SdmaSendTxlist,
    j: &mut Journal,
) -> Result<(i32, u16), Undefined> {
    let sde = qp_engine(qp, "sdma_send_txlist")?;
    let wait = if a.wait { Work::Queue } else { Work::Null };
    let mut list: Vec<(DmaTx, bool)> = (qp.txlist.iter().enumerate())
        .map(|(i, &tx)| (tx, a.incomplete >> i & 1 != 0))
        .collect();
    let (mut ret, mut tail) = (0, None);
    let (mut submit_count, mut flush_count) = (0u32, 0u32);
    // retry: the walk starts again from the list's head.
    while let Some(first) = list.first_mut() {
        first.0.wait = wait.iow();
        let (mut tx, incomplete) = *first;
        if !sdma_running(e, sde) {
            // unlock_noconn: every request left, in order.
            for (mut tx, _) in list.drain(..) {
                tx.wait = wait.iow();
                park(qp, wait, tx)?;
                flush_count += 1;
            }
            queue_flush_worker(w, sde, j);
            ret = -ECOMM;
            break;
        }
        if u16::from(tx.num_desc) > qp.sde_desc_avail {
            ret = sdma_check_progress(qp, sde, wait, &tx, submit_count > 0, j);
            if ret == -EAGAIN {
                ret = 0;
                continue;
            }
            qp.sde_descq_full_count = qp.sde_descq_full_count.wrapping_add(1);
            break;
        }
        if incomplete {
            ret = -EINVAL;
            break;
        }
        list.remove(0);
        tail = Some(submit_tx(qp, sde, &mut tx, j)?);
        submit_count += 1;
        if let Some(t) = tail.filter(|_| submit_count & SDMA_TAIL_UPDATE_THRESH == 0) {
            sdma_update_tail(sde, t, j);
            tail = None;
        }
    }
    // update_tail
    let total_count = submit_count + flush_count;
    if wait != Work::Null {
        iowait_sdma_add(qp, wait, total_count as i32);
        iowait_starve_clear(qp, submit_count > 0, wait);
    }
    if let Some(t) = tail {
        sdma_update_tail(sde, t, j);
    }
    qp.txlist = list.into_iter().map(|(tx, _)| tx).collect();
    Ok((ret, total_count as u16))
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for SdmaSendTxreq {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = sdma_send_txreq(cx.w, &cx.engines, cx.qp.to_mut(), self, &mut cx.j)?;
        Ok(())
    }
}

impl crate::Mirror for SdmaSendTxlist {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (ret, count_out) =
            sdma_send_txlist(cx.w, &cx.engines, cx.qp.to_mut(), self, &mut cx.j)?;
        cx.out.ret = ret;
        cx.out.text = format!("count_out={count_out}");
        Ok(())
    }
}
