//! The invariants of the QP's SDMA engine: its tx requests and
//! descriptors, the chip's head, and what the calls on it read.

use crate::model::sdma_state::{
    ALL_SDMA_ENG_HALT_ERRS, ENG_ERR_STATUS_HALT_ERR, STATUS_ENG_CLEANED_UP, STATUS_ENG_HALTED,
};
use crate::model::types::*;

/// The QP's engine's tx requests (the shim places them on it): on a ring
/// of at most `MAX_TX_RING` descriptors, a power of two (`tx_ring` is
/// indexed by `sdma_mask`; the world gives a larger ring no slots of its
/// own), no more than its descriptors, exactly the slots from `tx_head`
/// to `tx_tail` (submit_tx() fills the tail, the completions empty the
/// head); each request's descriptors within its array (`NUM_DESC`, 6,
/// unless it allocated one: `_extend_sdma_tx_descs()` makes it
/// `MAX_DESC`, 64, the world's 8), none described past them, a 3-bit
/// header mode.
pub(super) fn check_dma_tx(q: &Qp) -> Result<(), String> {
    let n = q.sde_tx_ring.len();
    if (n > 0 || !q.sde_flushlist.is_empty() || !q.txlist.is_empty()) && q.s_sde.is_none() {
        return Err("qp.sde_tx_ring / sde_flushlist / txlist: tx requests for the QP's engine, and it has none (qp.s_sde)".into());
    }
    if n > 0 && !q.ring_holds_txs() {
        return Err(format!(
            "qp.sde_tx_ring: a ring of {} descriptors holds no tx request in a world (a power of two up to {MAX_TX_RING} does)",
            q.sde_descq_cnt
        ));
    }
    if n > usize::from(q.sde_descq_cnt) {
        return Err(format!(
            "qp.sde_tx_ring: {n} requests in a ring of {} slots",
            q.sde_descq_cnt
        ));
    }
    if q.sde_tx_tail != q.sde_tx_head.wrapping_add(n as u16) {
        return Err(format!(
            "qp.sde_tx_tail {} is not sde_tx_head {} + {n}: the ring holds exactly the requests from its head to its tail",
            q.sde_tx_tail, q.sde_tx_head
        ));
    }
    if q.sde_tx_stray != 0 {
        return Err(
            "qp.sde_tx_stray: a vector's requests are all on the ring or the flush list".into(),
        );
    }
    for tx in q
        .sde_tx_ring
        .iter()
        .chain(&q.sde_flushlist)
        .chain(&q.txlist)
    {
        check_tx(tx)?;
    }
    if !q.sde_descq.is_empty() && (q.s_sde.is_none() || !q.ring_holds_txs()) {
        return Err(format!(
            "qp.sde_descq: descriptors of a ring of {} a world does not hold (the QP's engine's, a power of two up to {MAX_TX_RING})",
            q.sde_descq_cnt
        ));
    }
    let mut last: Option<u8> = None;
    for d in q.sde_descq.iter() {
        if u16::from(d.idx) >= q.sde_descq_cnt
            || d.qw0 | d.qw1 == 0
            || last.is_some_and(|l| d.idx <= l)
        {
            return Err(format!(
                "qp.sde_descq: descq#{} is not a slot of the {}-descriptor ring in order, with a word not 0 (what the world reads back)",
                d.idx, q.sde_descq_cnt
            ));
        }
        last = Some(d.idx);
    }
    Ok(())
}

/// A tx request's descriptors fit its array, none described past them.
fn check_tx(tx: &DmaTx) -> Result<(), String> {
    let most = if tx.ext {
        MAX_TX_DESC
    } else {
        crate::model::sdma_tx::NUM_DESC
    };
    if tx.num_desc > most {
        return Err(format!(
            "dtx#{}: {} descriptors in an array of {most} (ext = {})",
            tx.id, tx.num_desc, tx.ext
        ));
    }
    if u32::from(tx.map) >> (2 * u32::from(tx.num_desc)) != 0
        || u32::from(tx.pinned) >> tx.num_desc != 0
        || tx.mode > 7
    {
        return Err(format!(
            "dtx#{}: a descriptor described past its {} (or a header mode above 7)",
            tx.id, tx.num_desc
        ));
    }
    Ok(())
}

/// The head the chip reports (`sdma_gethead()`): an index of the ring
/// (as the u16 the driver takes; sdma_make_progress() walks the software
/// head to it by the mask and would never reach one past the ring), and,
/// where the driver reads it from host memory and checks it (both
/// `HFI1_CAP_` bits, a running engine, `HFI1_HAS_SDMA_TIMEOUT`), within the
/// ring's busy part: an insane DMA head sends sdma_gethead() back to a
/// retry that reads host memory again, spinning until the chip writes a
/// sane one (its CSR fallback never runs). The state machine's steps read
/// the head only from a halted engine (`e60_hw_halted` leaves running
/// first), but for the software clean-up, which reads it as it finds the
/// engine.
fn check_hw_head(c: &Call) -> Result<(), String> {
    let q = &c.qp;
    let (dma, csr) = (q.sde_head_dma as u16, q.sde_head_csr as u16);
    if dma >= q.sde_descq_cnt || csr >= q.sde_descq_cnt {
        return Err(format!(
            "qp.sde_head_dma {dma} / sde_head_csr {csr}: the chip's head is an index of the {}-descriptor ring",
            q.sde_descq_cnt
        ));
    }
    let w = &c.world;
    let running = q
        .s_sde
        .is_some_and(|e| c.engines.sde_state.get(usize::from(e.0)) == SdmaState::S99Running)
        && matches!(
            c.func(),
            Func::SdmaEngineInterrupt | Func::SdmaSwCleanUpTask
        );
    if w.cap_use_sdma_head && w.cap_sdma_head_check && running && w.has(DevFlag::HasSdmaTimeout) {
        let mask = u32::from(q.sde_descq_cnt) - 1;
        let (sw, tail) = (
            (q.sde_descq_head & mask) as u16,
            (q.sde_descq_tail & mask) as u16,
        );
        let sane = match sw.cmp(&tail) {
            std::cmp::Ordering::Less => (sw..=tail).contains(&dma),
            std::cmp::Ordering::Greater => dma >= sw || dma <= tail,
            std::cmp::Ordering::Equal => dma == sw,
        };
        if !sane {
            return Err(format!(
                "qp.sde_head_dma {dma}: out of the ring's busy part {sw}..{tail}, where sdma_gethead() checks it and spins until the chip writes a sane head"
            ));
        }
    }
    Ok(())
}

/// The calls on the QP's engine: it has one, and those that walk its ring
/// find it a power of two and the chip's head in it.
pub(super) fn check_sdma_call(c: &Call) -> Result<(), String> {
    let q = &c.qp;
    // iowait_sleep(): the SDMA engine calls it for the engine the tx went
    // to (sdma_send_txreq/sdma_send_txlist pass their sde); the shim calls
    // sdma_flush()/sdma_desc_avail() on the QP's engine.
    if (c.func().wakes_dmawait()
        || matches!(
            c.func(),
            Func::IowaitSleep
                | Func::SdmaSendTxreq
                | Func::SdmaSendTxlist
                | Func::SdmaErrProgressCheck
                | Func::SetSdmaIntegrity
                | Func::InitSdmaRegs
                | Func::SdmaWaitForPacketEgress
                | Func::SdmaSeqfileDumpSde
                | Func::SdmaDumpstate
        ))
        && q.s_sde.is_none()
    {
        return Err(format!(
            "{} needs the QP's engine (qp.s_sde): the SDMA engine whose QPs it serves",
            c.func()
        ));
    }
    // sdma_seqfile_dump_sde(): prints the ring's descriptors from its head
    // to its tail, which a world allocates only for a ring holding tx
    // requests (`sde->descq` is NULL for another).
    let mask = u32::from(q.sde_descq_cnt).wrapping_sub(1);
    if c.func() == Func::SdmaSeqfileDumpSde
        && (q.sde_descq_head & mask) as u16 != (q.sde_descq_tail & mask) as u16
        && !q.ring_holds_txs()
    {
        return Err(format!(
            "sdma_seqfile_dump_sde() prints the descriptors between head and tail of its {}-descriptor ring, which a world does not allocate (a power of two up to {MAX_TX_RING} it does)",
            q.sde_descq_cnt
        ));
    }
    // sdma_flush_descq(): the head walks to the tail by `& sdma_mask`,
    // descq_cnt - 1; sdma_init() makes descq_cnt a power of two (any other
    // mask may make the walk 2^32 steps long).
    if c.func().walks_engine_ring() && !q.sde_descq_cnt.is_power_of_two() {
        return Err(format!(
            "qp.sde_descq_cnt {} is not a power of two (sdma_init makes the ring one)",
            q.sde_descq_cnt
        ));
    }
    if c.func().reads_chip_head() {
        check_hw_head(c)?;
    }
    check_state_machine(c)?;
    match &c.args {
        Args::SdmaSendTxreq(a) => {
            check_tx(&a.tx)?;
            check_sends(c, std::slice::from_ref(&a.tx))
        }
        Args::SdmaSendTxlist(_) => check_sends(c, &q.txlist),
        Args::SdmaMapInit(a) => check_map_init(c, a),
        Args::SdmaInit(a) => check_sdma_init(c, a),
        _ => Ok(()),
    }
}

/// sdma_init(): a port of `dd->pport[]` (the world has 2); the world's
/// part is [`check_world_for`]'s.
fn check_sdma_init(_c: &Call, a: &args::SdmaInit) -> Result<(), String> {
    if a.port >= 2 {
        return Err(format!("port {}: dd->pport has 2 entries", a.port));
    }
    Ok(())
}

/// What a world must be for `func` (the generator draws a function's
/// worlds to it): the calls that step every engine, as many engines as
/// the engines record has room for (each engine's state is read back);
/// sdma_init(), 1 to 16 engines on the chip (0 divides the SDMA memory by
/// zero; the map's back-map has 16 entries, as `TXE_NUM_SDMA_ENGINES`)
/// and an engine for each operational VL whichever count the probe takes,
/// the chip's or the `num_sdma` module parameter's (sdma_map_init()'s
/// `roundup_pow_of_two(0)` otherwise).
pub(super) fn check_world_for(func: Func, w: &World) -> Result<(), String> {
    if func.drives_every_engine() && w.sdma_cpus.len() > PER_INDEX_SLOTS {
        return Err(format!(
            "{func} steps every engine: {} engines, more than a record holds ({PER_INDEX_SLOTS})",
            w.sdma_cpus.len()
        ));
    }
    if func != Func::SdmaInit {
        return Ok(());
    }
    if !(1..=16).contains(&w.chip_sdma_engines) {
        return Err(format!(
            "chip_sdma_engines {}: 1 to 16 (0 divides by zero; TXE_NUM_SDMA_ENGINES is 16)",
            w.chip_sdma_engines
        ));
    }
    let m = if w.mod_num_sdma_set {
        w.mod_num_sdma
    } else {
        0
    };
    let most = if m != 0 {
        u32::from(w.chip_sdma_engines).min(m)
    } else {
        u32::from(w.chip_sdma_engines)
    };
    if w.vls_operational == 0 || u32::from(w.vls_operational) > most {
        return Err(format!(
            "vls_operational {}: 1 to {most}, an engine for each VL (roundup_pow_of_two(0) is undefined)",
            w.vls_operational
        ));
    }
    Ok(())
}

/// sdma_map_init(): each VL gets at least one engine
/// (`roundup_pow_of_two(0)` is undefined), which the device's engines
/// spread over the VLs give only when there are as many (sdma_init()
/// checks it of the num_sdma module parameter); given counts, one per
/// VL, name engines the device has (`&dd->per_sdma[engine]`, the back-map
/// of 16 entries). At most 16 VLs: the map read back holds that many.
fn check_map_init(c: &Call, a: &args::SdmaMapInit) -> Result<(), String> {
    let n = c.world.sdma_cpus.len();
    if !(1..=16).contains(&a.num_vls) {
        return Err(format!(
            "num_vls {}: 1 to 16 (0 divides by zero; a map holds 16 elements)",
            a.num_vls
        ));
    }
    if a.vl_engines.is_empty() {
        if usize::from(a.num_vls) > n {
            return Err(format!(
                "num_vls {} with {n} engines: a VL without an engine (roundup_pow_of_two(0) is undefined)",
                a.num_vls
            ));
        }
        return Ok(());
    }
    if a.vl_engines.len() != usize::from(a.num_vls) {
        return Err(format!(
            "vl_engines: {} counts for {} VLs (one per VL)",
            a.vl_engines.len(),
            a.num_vls
        ));
    }
    let sum: usize = a.vl_engines.iter().map(|&v| usize::from(v)).sum();
    if a.vl_engines.contains(&0) || sum > n {
        return Err(format!(
            "vl_engines {:?}: each VL at least one engine, {sum} in all of the device's {n}",
            &a.vl_engines[..]
        ));
    }
    Ok(())
}

/// submit_tx(): a send's requests' descriptors go to the ring's slots and
/// the requests to its tx ring or flush list, which a world holds only
/// this small: room for them all where a world reads them back.
fn check_sends(c: &Call, txs: &[DmaTx]) -> Result<(), String> {
    let (q, f) = (&c.qp, c.func());
    if !q.ring_holds_txs() {
        return Err(format!(
            "{f} writes the ring's descriptors: a world holds a ring of a power of two up to {MAX_TX_RING}, not {}",
            q.sde_descq_cnt
        ));
    }
    if q.sde_tx_ring.len() + txs.len() > MAX_DMA_TX
        || q.sde_flushlist.len() + txs.len() > MAX_DMA_TX
    {
        return Err(format!(
            "{f} adds {} requests to the tx ring or the flush list: a world reads back {MAX_DMA_TX} of each",
            txs.len()
        ));
    }
    let descs: usize = txs.iter().map(|t| usize::from(t.num_desc.max(1))).sum();
    if q.sde_descq.len() + descs > MAX_DESCQ {
        return Err(format!(
            "{f} writes {descs} descriptors to a ring holding {}: a world reads back {MAX_DESCQ}",
            q.sde_descq.len()
        ));
    }
    Ok(())
}

/// The state machine's steps: the hardware clean-up polls
/// `SEND_DMA_STATUS` until the chip says the engine is cleaned up, the
/// halt worker until it says halted, which a world must say (they would
/// poll forever); an error whose status has a
/// bit other than the halt error dumps the ring's descriptors from its
/// head to its tail, which a world holds only for a ring that holds tx
/// requests (`sde->descq` is NULL for a larger one; an empty ring reads
/// none, but a scenario's step may find it busy).
fn check_state_machine(c: &Call) -> Result<(), String> {
    let q = &c.qp;
    match &c.args {
        Args::SdmaHwCleanUpTask(_) if c.world.sdma_status_csr & STATUS_ENG_CLEANED_UP == 0 => Err(
            "world.sdma_status_csr: without ENG_CLEANED_UP (bit 57), sdma_hw_clean_up_task() polls forever".into(),
        ),
        Args::SdmaErrHaltWait(_) if c.world.sdma_status_csr & STATUS_ENG_HALTED == 0 => Err(
            "world.sdma_status_csr: without ENG_HALTED (bit 56), sdma_err_halt_wait() polls forever (jiffies stand still)".into(),
        ),
        Args::SdmaProcessEvent(_) | Args::SdmaEngineError(_) if halt_fills_check_heads(c) => Err(format!(
            "a halt of the running engine on an A-step chip with AHG sets every other engine's progress check head: {} engines, more than a record holds ({PER_INDEX_SLOTS} entries, one perhaps its own)",
            c.world.sdma_cpus.len()
        )),
        Args::SdmaEngineError(a) if a.status & !ENG_ERR_STATUS_HALT_ERR != 0 && !q.ring_holds_txs() => Err(format!(
            "sdma_engine_error() dumps the descriptors of its {}-descriptor ring from head to tail, which a world does not allocate (a power of two up to {MAX_TX_RING} it does)",
            q.sde_descq_cnt
        )),
        _ => Ok(()),
    }
}

/// The call halts the QP's engine as it runs, on an A-step chip with AHG,
/// in a world of more engines than a record's room past it: every other
/// engine's progress check head is set (sdma_err_progress_check_schedule).
fn halt_fills_check_heads(c: &Call) -> bool {
    let w = &c.world;
    let halts = match &c.args {
        Args::SdmaProcessEvent(a) => a.event == SdmaEvent::E60HwHalted,
        Args::SdmaEngineError(a) => a.status & ALL_SDMA_ENG_HALT_ERRS != 0,
        _ => false,
    };
    let running =
        c.qp.s_sde
            .is_some_and(|e| c.engines.sde_state.get(usize::from(e.0)) == SdmaState::S99Running);
    halts && running && w.cap_sdma_ahg && !w.chip_bx && w.sdma_cpus.len() > PER_INDEX_SLOTS
}
