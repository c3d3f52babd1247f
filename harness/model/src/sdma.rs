//! SDMA engines (sdma.c): selection, AHG entries, offering free
//! descriptors to the QPs waiting on an engine, flushing it.

use super::hfi::sc_to_vlt;
use super::iowait::{
    dmawait, iowait_get_all_desc, iowait_init_priority, iowait_priority_update_top, list_del_init,
    Iowait,
};
use super::qp::EINVAL;
use super::sched::{iowait_wakeup, SDMA_AVAIL_REASON};
use super::sdma_tx::{flush_flushlist, sdma_flush_descq};
use super::types::{EngineIdx, Engines, Ptr, Qp, Sc, Vl, World};
use super::{at, put, Journal, Undefined};

/// `&dd->per_sdma[0]`: the fallback engine.
fn engine0() -> Ptr<EngineIdx> {
    Ptr::To(EngineIdx(0))
}

/// Mirrors `sdma_select_engine_vl()` (sdma.c): a VL at or above the
/// module's `num_vls`, a missing map or a NULL engine in the map element
/// all give engine 0; otherwise `m->map[vl & m->mask]->sde[selector &
/// e->mask]`. Every path but the missing map's early return hits the
/// tracepoint `hfi1_sdma_engine_select(dd, selector, vl, idx)`.
pub fn sdma_select_engine_vl(
    w: &World,
    selector: u32,
    vl: Vl,
    j: &mut Journal,
) -> Result<Ptr<EngineIdx>, Undefined> {
    let traced = |j: &mut Journal, e: Ptr<EngineIdx>| {
        let idx = match e {
            Ptr::To(i) => i.0,
            Ptr::Null | Ptr::Foreign => 0,
        };
        j.trace(
            "hfi1_sdma_engine_select",
            format_args!("dd, 0x{selector:x}, 0x{:x}, 0x{idx:x}", vl.0),
        );
        e
    };
    if u32::from(vl.0) >= w.num_vls {
        return Ok(traced(j, engine0()));
    }
    let Some(m) = &w.sdma_map else {
        return Ok(engine0());
    };
    let e = at(
        &m.elems,
        (u32::from(vl.0) & m.mask) as usize,
        "sdma_map->map",
    )?
    .as_ref()
    .ok_or_else(|| Undefined("sdma_map->map[vl & mask] is NULL and is dereferenced".into()))?;
    let sde = at(
        &e.entries,
        (selector & e.mask) as usize,
        "sdma_map_elem->sde",
    )?
    .get();
    Ok(traced(
        j,
        match sde {
            Some(i) => Ptr::To(i),
            None => engine0(),
        },
    ))
}

/// Mirrors `sdma_select_engine_sc()` (sdma.c): the VL of the SC, then
/// [`sdma_select_engine_vl`].
pub fn sdma_select_engine_sc(
    w: &World,
    selector: u32,
    sc5: Sc,
    j: &mut Journal,
) -> Result<Ptr<EngineIdx>, Undefined> {
    let vl = sc_to_vlt(w, sc5);
    sdma_select_engine_vl(w, selector, vl, j)
}

/// `-ENOSPC`.
const ENOSPC: i32 = 28;

/// The tracepoints `hfi1_ahg_allocate` / `hfi1_ahg_deallocate(sde, aidx)`.
fn trace_ahg(j: &mut Journal, name: &str, sde: Option<EngineIdx>, aidx: i32) {
    let sde = match sde {
        Some(e) => format!("sde#{}", e.0),
        None => "(null)".into(),
    };
    j.trace(name, format_args!("{sde}, 0x{:x}", aidx as u32));
}

/// Mirrors `sdma_ahg_alloc()` (sdma.c): `-EINVAL` for a NULL engine;
/// otherwise the lowest clear bit of `ahg_bits` (`ffz`), taken if it is
/// below 32, else `-ENOSPC`; the tracepoint `hfi1_ahg_allocate` with the
/// result. `ffz` of a word with no clear bit is undefined: an engine's
/// bit 32 is never set (sdma_init sets `0xfffffffe00000000`).
pub fn sdma_ahg_alloc(
    e: &mut Engines,
    sde: Option<EngineIdx>,
    j: &mut Journal,
) -> Result<i32, Undefined> {
    let Some(idx) = sde else {
        trace_ahg(j, "hfi1_ahg_allocate", sde, -EINVAL);
        return Ok(-EINVAL);
    };
    let i = usize::from(idx.0);
    let bits = e.sde_ahg_bits.get(i);
    if bits == u64::MAX {
        return Err(Undefined(
            "ffz(sde->ahg_bits) of a word with no clear bit".into(),
        ));
    }
    let nr = (!bits).trailing_zeros() as i32;
    if nr > 31 {
        trace_ahg(j, "hfi1_ahg_allocate", sde, -ENOSPC);
        return Ok(-ENOSPC);
    }
    put(&mut e.sde_ahg_bits, i, bits | 1 << nr, "sde_ahg_bits")?;
    trace_ahg(j, "hfi1_ahg_allocate", sde, nr);
    Ok(nr)
}

/// Mirrors `sdma_ahg_free()` (sdma.c): nothing for a NULL engine;
/// otherwise the tracepoint `hfi1_ahg_deallocate`, and an index in 0..=31
/// cleared from `ahg_bits`.
pub fn sdma_ahg_free(
    e: &mut Engines,
    sde: Option<EngineIdx>,
    ahg_index: i32,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let Some(idx) = sde else { return Ok(()) };
    trace_ahg(j, "hfi1_ahg_deallocate", sde, ahg_index);
    if !(0..=31).contains(&ahg_index) {
        return Ok(());
    }
    let i = usize::from(idx.0);
    let bits = e.sde_ahg_bits.get(i) & !(1u64 << ahg_index);
    put(&mut e.sde_ahg_bits, i, bits, "sde_ahg_bits")
}

/// The QP's engine (`priv->s_sde`), which these functions are given.
pub(crate) fn qp_engine(qp: &Qp, who: &str) -> Result<EngineIdx, Undefined> {
    qp.s_sde
        .ok_or_else(|| Undefined(format!("{who}() is given the QP's engine, and it has none")))
}

/// `SDMA_WAIT_BATCH_SIZE` (sdma.c): the waiters one offer wakes at most.
const SDMA_WAIT_BATCH_SIZE: usize = 20;

/// An iowait's wakeup callback with `SDMA_AVAIL_REASON`: the QP's
/// `iowait_wakeup()` (qp.c), or the shim's recording one for the other
/// waiters.
fn wakeup(w: &World, qp: &mut Qp, iow: Iowait, j: &mut Journal) -> Result<(), Undefined> {
    match iow {
        Iowait::Waiter(i) => {
            j.record(format!("wakeup(waiter#{i}, SDMA_AVAIL_REASON)"));
            Ok(())
        }
        // The QP: only it and the engine's waiters are on a dmawait list.
        _ => iowait_wakeup(w, qp, SDMA_AVAIL_REASON, j),
    }
}

/// Mirrors the static `sdma_desc_avail()` (sdma.c) on engine `sde` (its
/// ring the QP's fields) with `avail` free descriptors: it harvests the waiters of the engine's
/// dmawait list in order (every one there has a wakeup), stopping at a
/// batch of `SDMA_WAIT_BATCH_SIZE` or at the first whose first tx
/// requests need more descriptors than are left (`iowait_get_all_desc`,
/// after `iowait_init_priority`); each harvested one leaves the list and
/// takes its descriptors, and the top-priority one so far is kept
/// (`iowait_priority_update_top`, from the second on). It wakes the top
/// one first, then the others in harvest order (`SDMA_AVAIL_REASON`).
pub fn sdma_desc_avail(
    w: &World,
    qp: &mut Qp,
    sde: EngineIdx,
    avail: u32,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let mut avail = avail;
    let mut waits: Vec<Iowait> = Vec::new();
    let mut tidx = 0;
    for iow in dmawait(qp, sde) {
        if waits.len() == SDMA_WAIT_BATCH_SIZE {
            break;
        }
        iowait_init_priority(qp, iow);
        let num_desc = iowait_get_all_desc(qp, iow);
        if num_desc > avail {
            break;
        }
        avail -= num_desc;
        if !waits.is_empty() {
            tidx = iowait_priority_update_top(qp, iow, waits[tidx], waits.len(), tidx);
        }
        list_del_init(qp, iow);
        waits.push(iow);
    }
    if let Some(&top) = waits.get(tidx) {
        wakeup(w, qp, top, j)?;
    }
    for (i, &iow) in waits.iter().enumerate() {
        if i != tidx {
            wakeup(w, qp, iow, j)?;
        }
    }
    Ok(())
}

/// Mirrors the static `sdma_flush()` (sdma.c) on engine `sde` (its ring
/// the QP's fields): the ring flushed from head to tail ([`sdma_flush_descq`]), then the
/// flush list ([`flush_flushlist`]), then every waiter still on the
/// engine's list (orphaned), in order, woken and taken off it.
pub fn sdma_flush(
    w: &World,
    qp: &mut Qp,
    sde: EngineIdx,
    j: &mut Journal,
) -> Result<(), Undefined> {
    sdma_flush_descq(w, qp, sde, j)?;
    flush_flushlist(w, qp, j)?;
    for iow in dmawait(qp, sde) {
        wakeup(w, qp, iow, j)?;
        list_del_init(qp, iow);
    }
    Ok(())
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::SdmaSelectEngineSc {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.sdma_engine = sdma_select_engine_sc(cx.w, self.selector, self.sc5, &mut cx.j)?;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::SdmaSelectEngineVl {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.sdma_engine = sdma_select_engine_vl(cx.w, self.selector, self.vl, &mut cx.j)?;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::SdmaAhgAlloc {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = sdma_ahg_alloc(cx.engines.to_mut(), self.sde, &mut cx.j)?;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::SdmaAhgFree {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sdma_ahg_free(cx.engines.to_mut(), self.sde, self.ahg_index, &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::SdmaDescAvail {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let sde = qp_engine(&cx.qp, "sdma_desc_avail")?;
        sdma_desc_avail(cx.w, cx.qp.to_mut(), sde, self.avail, &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::SdmaFlush {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let sde = qp_engine(&cx.qp, "sdma_flush")?;
        sdma_flush(cx.w, cx.qp.to_mut(), sde, &mut cx.j)
    }
}
