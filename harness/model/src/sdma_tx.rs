//! An SDMA engine's tx requests completed (sdma.c): each one's mappings
//! undone and buffers freed, its owner's callback called and its iowait's
//! count of SDMA work dropped; and the flush of the descriptor ring that
//! completes those the ring holds.

use super::sched::{iowait_drain_wakeup, sdma_descq_freecnt};
use super::sdma::sdma_desc_avail;
use super::types::{DmaTx, EngineIdx, Qp, TxWait, World};
use super::{Journal, Undefined};

/// `SDMA_TXREQ_S_ABORTED` (sdma_txreq.h): a request the engine will not
/// send.
pub const SDMA_TXREQ_S_ABORTED: i32 = 2;

/// `SDMA_MAP_SINGLE`, `SDMA_MAP_PAGE` (sdma.h): what a descriptor mapped.
const SDMA_MAP_SINGLE: u8 = 1;
const SDMA_MAP_PAGE: u8 = 2;

/// `SDMA_AHG_APPLY_UPDATE1` (sdma.h): modes above it carry AHG update
/// descriptors after the first.
pub(crate) const SDMA_AHG_APPLY_UPDATE1: u8 = 2;

/// `NUM_DESC` (sdma_txreq.h): the descriptors a request holds in itself.
pub const NUM_DESC: u8 = 6;

/// The engine's ring mask (`sde->sdma_mask`, `descq_cnt - 1`), by which
/// `who` walks the software head to a target it must reach: a power of
/// two (`sdma_init()` makes `descq_cnt` one), else the walk may never end.
pub(crate) fn ring_mask(qp: &Qp, who: &str) -> Result<u32, Undefined> {
    if !qp.sde_descq_cnt.is_power_of_two() {
        return Err(Undefined(format!(
            "{who}() walks a ring of {} descriptors by the mask descq_cnt - 1 \
             (sdma_init makes it a power of two)",
            qp.sde_descq_cnt
        )));
    }
    Ok(u32::from(qp.sde_descq_cnt) - 1)
}

/// The tracepoint `hfi1_sdma_progress(sde, hwhead, swhead, txp)`.
pub(crate) fn trace_progress(
    j: &mut Journal,
    sde: EngineIdx,
    hw: u16,
    sw: u16,
    txp: Option<&DmaTx>,
) {
    let txp = txp.map_or_else(|| "(null)".to_string(), |t| format!("dtx#{}", t.id));
    j.trace(
        "hfi1_sdma_progress",
        format_args!("sde#{}, 0x{hw:x}, 0x{sw:x}, {txp}", sde.0),
    );
}

/// The DMA address and length of descriptor `i` of a world's request (the
/// world's own convention, `c-shim/dmatx.c`: symbolic, nothing is mapped).
fn desc_addr_len(tx: &DmaTx, i: u8) -> (u64, u64) {
    (
        (u64::from(tx.id) + 1) << 16 | u64::from(i) << 12,
        64 * (u64::from(i) + 1),
    )
}

/// `SDMA_DESC1_GENERATION_SHIFT`, `_MASK` and `SDMA_DESC1_HEADER_MODE_SHIFT`
/// (sdma.h): where `qw[1]` keeps the generation (in a request's own
/// descriptors, the mapping type) and the first descriptor's header mode.
pub(crate) const GENERATION_SHIFT: u32 = 2;
pub(crate) const GENERATION_MASK: u64 = 3;
const HEADER_MODE_SHIFT: u32 = 13;

/// The two words of descriptor `i` of a world's request (`descp[i].qw`),
/// as the world builds them: `qw[0]` its address (bits 0-47) and byte
/// count (bits 48-61), `qw[1]` its mapping type in the generation bits
/// and, for the first, the header mode; past `num_desc`, 0 (the first's
/// header mode all the same).
pub(crate) fn desc_words(tx: &DmaTx, i: u8) -> (u64, u64) {
    let mode = if i == 0 {
        u64::from(tx.mode & 7) << HEADER_MODE_SHIFT
    } else {
        0
    };
    if i >= tx.num_desc {
        return (0, mode);
    }
    let (addr, len) = desc_addr_len(tx, i);
    let qw0 = (addr & ((1 << 48) - 1)) | (len & ((1 << 14) - 1)) << 48;
    (
        qw0,
        mode | (u64::from(tx.map_of(i)) & GENERATION_MASK) << GENERATION_SHIFT,
    )
}

/// The name of a status (`SDMA_TXREQ_S_*`).
fn status_name(res: i32) -> String {
    match res {
        0 => "SDMA_TXREQ_S_OK".into(),
        1 => "SDMA_TXREQ_S_SENDERROR".into(),
        SDMA_TXREQ_S_ABORTED => "SDMA_TXREQ_S_ABORTED".into(),
        3 => "SDMA_TXREQ_S_SHUTDOWN".into(),
        n => n.to_string(),
    }
}

/// Mirrors the static inline `sdma_unmap_desc()` (sdma.c): a single or
/// page mapping undone (both `dma_unmap_page` under the DMA API), then a
/// pinning context released through its `ctx_put` and forgotten.
fn sdma_unmap_desc(tx: &mut DmaTx, i: u8, j: &mut Journal) {
    if matches!(tx.map_of(i), SDMA_MAP_SINGLE | SDMA_MAP_PAGE) {
        let (addr, len) = desc_addr_len(tx, i);
        j.record(format!("dma_unmap_page(0x{addr:x}, {len})"));
    }
    if tx.pinned & 1 << i != 0 {
        j.record(format!("ctx_put(dtx#{}.desc#{i})", tx.id));
        tx.pinned &= !(1 << i);
    }
}

/// Mirrors the static inline `ahg_mode()` (sdma.c): the header mode of
/// the request's first descriptor.
pub(crate) fn ahg_mode(tx: &DmaTx) -> u8 {
    tx.mode
}

/// Mirrors `__sdma_txclean()` (sdma.c): with descriptors, the first
/// unmapped, the AHG update descriptors after it skipped (`mode >> 1` of
/// them for a mode above `SDMA_AHG_APPLY_UPDATE1`), the rest unmapped,
/// and none left; the coalesce buffer freed (`kfree(NULL)` journals
/// nothing); an allocated descriptor array freed, the limit back to
/// `NUM_DESC`.
pub fn sdma_txclean(tx: &mut DmaTx, j: &mut Journal) {
    if tx.num_desc != 0 {
        let mode = ahg_mode(tx);
        sdma_unmap_desc(tx, 0, j);
        let skip = if mode > SDMA_AHG_APPLY_UPDATE1 {
            mode >> 1
        } else {
            0
        };
        // `i` is a u16 upstream; num_desc is at most 8 here.
        for i in (1 + u16::from(skip))..u16::from(tx.num_desc) {
            sdma_unmap_desc(tx, i as u8, j);
        }
        tx.num_desc = 0;
    }
    if tx.coalesce {
        j.record("kfree".into());
        tx.coalesce = false;
    }
    if tx.ext {
        tx.ext = false;
        j.record("kfree".into());
    }
}

/// Mirrors the static inline `complete_tx()` (sdma.c): the request's
/// callback and iowait taken first, the request cleaned
/// ([`sdma_txclean`]), the callback (the world's records the request as
/// its owner sees it) called with `res`, and its iowait's (the QP's or
/// the packet queue's) count of SDMA work dropped, its drain waiters woken
/// at 0 (`iowait_sdma_dec`, `iowait_drain_wakeup`).
pub fn complete_tx(
    w: &World,
    qp: &mut Qp,
    tx: &mut DmaTx,
    res: i32,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let (wait, complete) = (tx.wait, tx.complete);
    sdma_txclean(tx, j);
    if complete {
        j.record(format!(
            "sdma_complete(dtx#{}, {}) num_desc={} desc_limit={} coalesce_buf={}",
            tx.id,
            status_name(res),
            tx.num_desc,
            // Cleaned: the limit is back to NUM_DESC.
            NUM_DESC,
            if tx.coalesce { "set" } else { "NULL" },
        ));
    }
    match wait {
        TxWait::Null => {}
        TxWait::Qp => {
            qp.sdma_busy = qp.sdma_busy.wrapping_sub(1);
            if qp.sdma_busy == 0 {
                iowait_drain_wakeup(w, qp, j)?;
            }
        }
        TxWait::Queue => {
            qp.queue_sdma_busy = qp.queue_sdma_busy.wrapping_sub(1);
            if qp.queue_sdma_busy == 0 {
                // iowait_drain_wakeup(): the queue has no sdma_drained.
                j.record("wake_up(queue.wait_dma)".into());
                j.record("wake_up(queue.wait_pio)".into());
            }
        }
    }
    Ok(())
}

/// Mirrors the static `sdma_flush_descq()` (sdma.c) on engine `sde` (its
/// ring the QP's fields): the head moves to the tail one descriptor at a time (`descq_head &
/// sdma_mask`, the mask `descq_cnt - 1`, both u16); each time it reaches
/// the ring's first request's `next_descq_idx`, that request leaves the
/// tx ring (`tx_head` moves on), is completed `SDMA_TXREQ_S_ABORTED` and
/// traced (`hfi1_sdma_progress`), and the next becomes the first. If the
/// head moved, the free descriptors are offered to the waiters
/// (`sdma_desc_avail`).
pub fn sdma_flush_descq(
    w: &World,
    qp: &mut Qp,
    sde: EngineIdx,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let mask = ring_mask(qp, "sdma_flush_descq")?;
    let tail = (qp.sde_descq_tail & mask) as u16;
    let mut progress = false;
    while (qp.sde_descq_head & mask) as u16 != tail {
        qp.sde_descq_head = qp.sde_descq_head.wrapping_add(1);
        let head = (qp.sde_descq_head & mask) as u16;
        if let Some(&first) = qp.sde_tx_ring.first() {
            if first.next_descq_idx == head {
                let mut tx = first;
                qp.sde_tx_ring = qp.sde_tx_ring.iter().skip(1).copied().collect();
                qp.sde_tx_head = qp.sde_tx_head.wrapping_add(1);
                complete_tx(w, qp, &mut tx, SDMA_TXREQ_S_ABORTED, j)?;
                trace_progress(j, sde, head, tail, Some(&tx));
            }
        }
        progress = true;
    }
    if progress {
        sdma_desc_avail(w, qp, sde, u32::from(sdma_descq_freecnt(qp)), j)?;
    }
    Ok(())
}

/// The flush list of `sdma_flush()` (sdma.c), after the ring: every
/// request on it, in order, taken off (`list_splice_init`) and completed
/// `SDMA_TXREQ_S_ABORTED`.
pub fn flush_flushlist(w: &World, qp: &mut Qp, j: &mut Journal) -> Result<(), Undefined> {
    let list = std::mem::take(&mut qp.sde_flushlist);
    for &tx in &list {
        let mut tx = tx;
        complete_tx(w, qp, &mut tx, SDMA_TXREQ_S_ABORTED, j)?;
    }
    Ok(())
}
