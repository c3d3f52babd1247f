//! An SDMA engine's completion side (sdma.c): its interrupt counted, the
//! chip's head read, the descriptors up to it retired and the tx requests
//! they end completed, the free descriptors offered to the waiters; and
//! the work around it: the progress interrupt forced, the flush worker.

use super::sched::sdma_descq_freecnt;
use super::sdma::{qp_engine, sdma_desc_avail, sdma_flush};
use super::sdma_tx::{complete_tx, ring_mask, trace_progress};
use super::types::{DevFlag, EngineIdx, Engines, Qp, SdmaState, World};
use super::{put, Journal, Undefined};

/// `SDMA_TXREQ_S_OK` (sdma_txreq.h): a request the engine sent.
const SDMA_TXREQ_S_OK: i32 = 0;

/// `TXE_NUM_SDMA_ENGINES` (chip.h): the stride of the engines' interrupt
/// bits.
const TXE_NUM_SDMA_ENGINES: u32 = 16;

/// Mirrors `__sdma_running()` (sdma.h): the engine's state machine is in
/// `sdma_state_s99_running`.
pub(crate) fn sdma_running(e: &Engines, sde: EngineIdx) -> bool {
    e.sde_state.get(usize::from(sde.0)) == SdmaState::S99Running
}

/// `write_seqlock(&sde->head_lock)` ... `write_sequnlock()` around
/// `body`: the QP's engine's head sequence up by one at each end (a
/// reader that saw it move retries: `sdma_progress()`).
pub(crate) fn under_head_lock(
    qp: &mut Qp,
    body: impl FnOnce(&mut Qp) -> Result<(), Undefined>,
) -> Result<(), Undefined> {
    qp.sde_head_seq = qp.sde_head_seq.wrapping_add(1);
    body(qp)?;
    qp.sde_head_seq = qp.sde_head_seq.wrapping_add(1);
    Ok(())
}

/// `SDMA_DESC_INTR` (sdma.c): the `desct_intr` module parameter's
/// default, which the world leaves.
const SDMA_DESC_INTR: u64 = 64;

/// `SEND_DMA_DESC_CNT_CNT_MASK` (chip_registers.h; its shift is 0).
const SEND_DMA_DESC_CNT_CNT_MASK: u64 = 0xffff;

/// The interrupt, progress and idle masks `sdma_init()` gives engine `i`
/// (`1 << (k * TXE_NUM_SDMA_ENGINES + i)`), which the world keeps.
fn int_masks(sde: EngineIdx) -> [u64; 3] {
    let i = u32::from(sde.0);
    [0, 1, 2].map(|k| 1u64 << (k * TXE_NUM_SDMA_ENGINES + i))
}

/// `read_sde_csr(sde, SD(HEAD))`: the engine's head CSR, read through
/// chip.c (journalled the first time a call reads it).
fn read_head_csr(qp: &Qp, sde: EngineIdx, j: &mut Journal) -> u16 {
    j.read_csr(format_args!("SEND_DMA_HEAD[{}]", sde.0));
    qp.sde_head_csr as u16
}

/// Mirrors the static inline `sdma_gethead()` (sdma.c): the head from host
/// memory when the module says so (`HFI1_CAP_USE_SDMA_HEAD`), the engine
/// runs and the chip has the SDMA timeout, else from the CSR; with
/// `HFI1_CAP_SDMA_HEAD_CHECK`, checked to lie from the software head to the
/// tail (wrapped or not, or equal to an empty ring's head): a CSR head out
/// of it is taken as no progress (the software head). An insane head from
/// host memory sends it back to `retry`, which chooses host memory again:
/// it spins until the chip writes a sane head, which a world never does.
fn sdma_gethead(
    w: &World,
    qp: &Qp,
    e: &Engines,
    sde: EngineIdx,
    j: &mut Journal,
) -> Result<u16, Undefined> {
    let running = sdma_running(e, sde);
    let use_dmahead = w.cap_use_sdma_head && running && w.has(DevFlag::HasSdmaTimeout);
    let hwhead = if use_dmahead {
        qp.sde_head_dma as u16
    } else {
        read_head_csr(qp, sde, j)
    };
    if !w.cap_sdma_head_check {
        return Ok(hwhead);
    }
    let mask = u32::from(qp.sde_descq_cnt).wrapping_sub(1);
    let swhead = (qp.sde_descq_head & mask) as u16;
    let swtail = (qp.sde_descq_tail & mask) as u16;
    let cnt = qp.sde_descq_cnt;
    let sane = if swhead < swtail {
        hwhead >= swhead && hwhead <= swtail
    } else if swhead > swtail {
        (hwhead >= swhead && hwhead < cnt) || hwhead <= swtail
    } else {
        hwhead == swhead
    };
    match (sane, use_dmahead) {
        (true, _) => Ok(hwhead),
        (false, true) => Err(Undefined(format!(
            "sdma_gethead() spins: the DMA head {hwhead} is out of the ring's {swhead}..{swtail} \
             and its retry reads the DMA head again (the CSR fallback never runs)"
        ))),
        (false, false) => Ok(swhead),
    }
}

/// Mirrors the static `sdma_make_progress()` (sdma.c): the chip's head
/// read ([`sdma_gethead`]); the software head moved up to it one
/// descriptor at a time, each time it reaches the ring's first request's
/// `next_descq_idx` that request leaving the ring and completing
/// `SDMA_TXREQ_S_OK`, traced before the walk and at each step; on an idle
/// interrupt (`idle_mask`) with descriptors still out, the head read once
/// more from the CSR and the walk taken up again; `last_status` kept, and
/// after progress the free descriptors offered (`sdma_desc_avail`).
pub fn sdma_make_progress(
    w: &World,
    qp: &mut Qp,
    e: &mut Engines,
    sde: EngineIdx,
    status: u64,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let [_, _, idle_mask] = int_masks(sde);
    let mask = ring_mask(qp, "sdma_make_progress")?;
    let mut hwhead = sdma_gethead(w, qp, e, sde, j)?;
    let mut progress = false;
    let mut idle_check_done = false;
    loop {
        if u32::from(hwhead) > mask {
            return Err(Undefined(format!(
                "sdma_make_progress() walks the ring's head (masked by {mask:#x}) to the chip's \
                 head {hwhead}, which it never reaches"
            )));
        }
        let mut txp = qp.sde_tx_ring.first().copied();
        let mut swhead = (qp.sde_descq_head & mask) as u16;
        trace_progress(j, sde, hwhead, swhead, txp.as_ref());
        while swhead != hwhead {
            qp.sde_descq_head = qp.sde_descq_head.wrapping_add(1);
            swhead = (qp.sde_descq_head & mask) as u16;
            if let Some(mut tx) = txp.filter(|t| t.next_descq_idx == swhead) {
                qp.sde_tx_ring = qp.sde_tx_ring.iter().skip(1).copied().collect();
                qp.sde_tx_head = qp.sde_tx_head.wrapping_add(1);
                complete_tx(w, qp, &mut tx, SDMA_TXREQ_S_OK, j)?;
                txp = qp.sde_tx_ring.first().copied();
            }
            trace_progress(j, sde, hwhead, swhead, txp.as_ref());
            progress = true;
        }
        if status & idle_mask != 0 && !idle_check_done {
            let swtail = (qp.sde_descq_tail & mask) as u16;
            if swtail != hwhead {
                hwhead = read_head_csr(qp, sde, j);
                idle_check_done = true;
                continue;
            }
        }
        break;
    }
    put(
        &mut e.sde_last_status,
        usize::from(sde.0),
        status,
        "sde_last_status",
    )?;
    if progress {
        sdma_desc_avail(w, qp, sde, u32::from(sdma_descq_freecnt(qp)), j)?;
    }
    Ok(())
}

/// Mirrors the static inline `sdma_set_desc_cnt()` (sdma.c): with the
/// chip's SDMA timeout, the engine's `SEND_DMA_DESC_CNT` CSR written.
fn sdma_set_desc_cnt(w: &World, sde: EngineIdx, cnt: u64, j: &mut Journal) {
    if !w.has(DevFlag::HasSdmaTimeout) {
        return;
    }
    let reg = cnt & SEND_DMA_DESC_CNT_CNT_MASK;
    j.record(format!(
        "write_csr(SEND_DMA_DESC_CNT[{}], 0x{reg:x})",
        sde.0
    ));
}

/// Mirrors `sdma_engine_interrupt()` (sdma.c) on the QP's engine: traced;
/// under the engine's `head_lock` (its sequence up by one at each end), the
/// descriptor count CSR set ([`sdma_set_desc_cnt`] with `desct_intr`), the
/// interrupt counted by its first kind of idle, progress, interrupt, and
/// progress made ([`sdma_make_progress`]).
pub fn sdma_engine_interrupt(
    w: &World,
    qp: &mut Qp,
    e: &mut Engines,
    status: u64,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let sde = qp_engine(qp, "sdma_engine_interrupt")?;
    j.trace(
        "hfi1_sdma_engine_interrupt",
        format_args!("sde#{}, 0x{status:x}", sde.0),
    );
    under_head_lock(qp, |qp| {
        sdma_set_desc_cnt(w, sde, SDMA_DESC_INTR, j);
        let [int_mask, progress_mask, idle_mask] = int_masks(sde);
        let count = if status & idle_mask != 0 {
            Some(&mut e.sde_idle_int_cnt)
        } else if status & progress_mask != 0 {
            Some(&mut e.sde_progress_int_cnt)
        } else if status & int_mask != 0 {
            Some(&mut e.sde_sdma_int_cnt)
        } else {
            None
        };
        if let Some(c) = count {
            let i = usize::from(sde.0);
            let v = c.get(i).wrapping_add(1);
            put(c, i, v, "sde_*_int_cnt")?;
        }
        sdma_make_progress(w, qp, e, sde, status, j)
    })
}

/// `IS_SDMA_START` (chip.h): the first SDMA interrupt source; its force
/// register is `CCE_INT_FORCE + 8 * (IS_SDMA_START / 64)`.
const IS_SDMA_START: u32 = 192;

/// Mirrors `_sdma_engine_progress_schedule()` (sdma.c): traced
/// (`hfi1_sdma_engine_progress` with the progress mask), the engine's
/// progress interrupt forced (`CCE_INT_FORCE`).
pub fn sdma_engine_progress_schedule(sde: EngineIdx, j: &mut Journal) {
    let [_, progress_mask, _] = int_masks(sde);
    j.trace(
        "hfi1_sdma_engine_progress",
        format_args!("sde#{}, 0x{progress_mask:x}", sde.0),
    );
    j.record(format!(
        "write_csr(CCE_INT_FORCE[{}], 0x{progress_mask:x})",
        IS_SDMA_START / 64
    ));
}

/// Mirrors the static `sdma_field_flush()` (sdma.c), the QP's engine's
/// flush worker: under its `head_lock` (the sequence up by one at each
/// end), the engine flushed ([`sdma_flush`]) unless it runs.
pub fn sdma_field_flush(
    w: &World,
    qp: &mut Qp,
    e: &Engines,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let sde = qp_engine(qp, "sdma_field_flush")?;
    under_head_lock(qp, |qp| {
        if !sdma_running(e, sde) {
            sdma_flush(w, qp, sde, j)?;
        }
        Ok(())
    })
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::SdmaFieldFlush {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sdma_field_flush(cx.w, cx.qp.to_mut(), &cx.engines, &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::SdmaEngineProgressSchedule {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let sde = self.sde.ok_or_else(|| {
            Undefined("_sdma_engine_progress_schedule() dereferences sde, and it is NULL".into())
        })?;
        sdma_engine_progress_schedule(sde, &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::SdmaEngineInterrupt {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sdma_engine_interrupt(
            cx.w,
            cx.qp.to_mut(),
            cx.engines.to_mut(),
            self.status,
            &mut cx.j,
        )
    }
}
