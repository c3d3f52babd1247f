//! SDMA engine selection (sdma.c).

use super::hfi::sc_to_vlt;
use super::types::{EngineIdx, Ptr, Sc, Vl, World};
use super::{at, Journal, Undefined};

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
