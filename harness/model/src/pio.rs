//! PIO send-context selection (pio.c).

use super::hfi::sc_to_vlt;
use super::types::{Ptr, Sc, SendCtxIdx, Vl, World};
use super::{at, null_or, Undefined};

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
