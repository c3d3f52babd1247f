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
use super::types::args::SdmaSendTxreq;
use super::types::{DescqEntry, DmaTx, EngineIdx, Engines, Leg, Qp, World, MAX_DESCQ};
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
fn sdma_update_tail(sde: EngineIdx, tail: u16, j: &mut Journal) {
    j.record(format!("writeq(SEND_DMA_TAIL[{}], 0x{tail:x})", sde.0));
}

/// Mirrors the static `sdma_check_progress()` (sdma.c): `desc_avail`
/// recomputed from the ring; room for the request is -EAGAIN (try
/// again); otherwise the QP's iowait (the world's has qp.c's callbacks)
/// sleeps on the engine with the head sequence as now (`raw_seqcount_begin`,
/// its low bit cleared), and if its sleep saw progress (-EAGAIN)
/// `desc_avail` is recomputed again; with no iowait, -EBUSY.
fn sdma_check_progress(
    qp: &mut Qp,
    wait: Option<Leg>,
    tx: &DmaTx,
    pkts_sent: bool,
    j: &mut Journal,
) -> i32 {
    qp.sde_desc_avail = sdma_descq_freecnt(qp);
    if u16::from(tx.num_desc) <= qp.sde_desc_avail {
        return -EAGAIN;
    }
    let Some(leg) = wait else {
        return -EBUSY;
    };
    let seq = qp.sde_head_seq & !1;
    let ret = iowait_sleep(
        qp,
        leg == Leg::Tid,
        seq,
        pkts_sent,
        u16::from(tx.num_desc),
        &format!("dtx#{}", tx.id),
        j,
    );
    if ret == -EAGAIN {
        qp.sde_desc_avail = sdma_descq_freecnt(qp);
    }
    ret
}

/// An engine that does not run takes a request for its flush worker:
/// the request (its `next_descq_idx` 0) on the flush list, the iowait's
/// counts of SDMA work and waiting requests and descriptors raised
/// (`iowait_sdma_inc`, `iowait_inc_wait_count`), the flush worker queued
/// on the engine's CPU (`system_highpri_wq`); -ECOMM.
fn unlock_noconn(
    w: &World,
    qp: &mut Qp,
    sde: EngineIdx,
    wait: Option<Leg>,
    mut tx: DmaTx,
    j: &mut Journal,
) -> Result<i32, Undefined> {
    if wait.is_some() {
        qp.sdma_busy = qp.sdma_busy.wrapping_add(1);
    }
    tx.next_descq_idx = 0;
    qp.sde_flushlist.push(tx).map_err(|_| {
        Undefined("a fifth tx request on the flush list: more than a world reads back".into())
    })?;
    if wait.is_some() {
        qp.iowait_tx_count = qp.iowait_tx_count.wrapping_add(1);
        qp.iowait_count = qp.iowait_count.wrapping_add(u32::from(tx.num_desc));
    }
    let cpu = w.sdma_cpus.get(usize::from(sde.0)).copied().unwrap_or(0);
    j.record(format!(
        "queue_work_on({cpu}, wq:highpri, sde#{}.flush_worker)",
        sde.0
    ));
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
    let (wait, mut tx, pkts_sent) = (a.wait.then_some(a.leg), a.tx, a.pkts_sent);
    tx.qp_wait = wait.is_some();
    loop {
        if !sdma_running(e, sde) {
            return unlock_noconn(w, qp, sde, wait, tx, j);
        }
        if u16::from(tx.num_desc) > qp.sde_desc_avail {
            let ret = sdma_check_progress(qp, wait, &tx, pkts_sent, j);
            if ret == -EAGAIN {
                // Room now: the retry submits.
                continue;
            }
            qp.sde_descq_full_count = qp.sde_descq_full_count.wrapping_add(1);
            return Ok(ret);
        }
        let tail = submit_tx(qp, sde, &mut tx, j)?;
        if wait.is_some() {
            qp.sdma_busy = qp.sdma_busy.wrapping_add(1);
        }
        sdma_update_tail(sde, tail, j);
        return Ok(0);
    }
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for SdmaSendTxreq {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = sdma_send_txreq(cx.w, &cx.engines, cx.qp.to_mut(), self, &mut cx.j)?;
        Ok(())
    }
}
