//! pio.c's probe-time allocation of the kernel's send contexts
//! (`init_pervl_scs`: VL15's and two a data VL, each enabled, then the
//! PIO map over them), with what it calls of chip.c (`hfi1_init_ctxt`)
//! and driver.c (`enum_to_mtu`). The text is what the C world's
//! `shim_describe_pervl()` (c-shim/contexts.c) writes.

use super::alloc::{Allocs, ENOMEM};
use super::check_enable::DISALLOW_PBC_STATIC_RATE_CONTROL;
use super::pio::{
    read_hw_csr, sc_mtu_to_threshold, sc_percent_to_threshold, set_cr_threshold_hw, write_hw_csr,
};
use super::sc_alloc::{alloc_in, sc_free, NewSc, Tables};
use super::sc_state::{enable_begin, enable_finish};
use super::types::{ScType, World};
use super::vl_map::{build_pio_map, publish_pio_map};
use super::{Journal, Undefined};

/// `OPA_MTU_2048` (rdma/opa_port_info.h).
const OPA_MTU_2048: i32 = 4;
/// `INIT_SC_PER_VL` (pio.h): the kernel contexts of a data VL.
const INIT_SC_PER_VL: usize = 2;
/// `dd->vld[]`'s entries (`PER_VL_SEND_CONTEXTS`); VL15's is the last.
const VLD: usize = 16;
/// `SEND_CTXT_CHECK_VL`'s mask of VLs 0-7 and 15 (`all_vl_mask`).
const ALL_VL_MASK: u64 = 0x80ff;
/// VLs 0-7 (`data_vls_mask`).
const DATA_VLS_MASK: u64 = 0x00ff;

/// Mirrors `enum_to_mtu()` (driver.c): an `OPA_MTU_*` code's bytes
/// (0 for `OPA_MTU_0`), 0xffff for any other value.
pub fn enum_to_mtu(mtu: i32) -> u16 {
    match mtu {
        0 => 0,
        1 => 256,
        2 => 512,
        3 => 1024,
        4 => 2048,
        5 => 4096,
        6 => 8192,
        7 => 10240,
        _ => 0xffff,
    }
}

/// Mirrors `hfi1_init_ctxt()` (chip.c) of a context of type `ty` on
/// hardware context `hw`: its `SEND_CTXT_CHECK_ENABLE` read, the PBC
/// static rate control check cleared when the capabilities let its kind
/// use static rate control (`HFI1_CAP_IS_USET` for a user context: the
/// world never sets the user bit; `HFI1_CAP_IS_KSET` for the others),
/// else set, and written back.
pub(crate) fn hfi1_init_ctxt(w: &World, ty: ScType, hw: u32, j: &mut Journal) {
    let set = ty != ScType::User && w.cap_static_rate_ctrl;
    let mut reg = read_hw_csr(w, hw, "SEND_CTXT_CHECK_ENABLE", j);
    if set {
        reg &= !DISALLOW_PBC_STATIC_RATE_CONTROL;
    } else {
        reg |= DISALLOW_PBC_STATIC_RATE_CONTROL;
    }
    write_hw_csr(hw, "SEND_CTXT_CHECK_ENABLE", reg, j);
}

/// What `init_pervl_scs()` holds while it runs: the tables, the
/// allocations, the contexts it made (in order), `dd->vld[]` (an index
/// into them, and the MTU) and `dd->kernel_send_context` (entries, or
/// none).
struct Pervl<'a> {
    before: Tables,
    t: Tables,
    a: Allocs<'a>,
    made: Vec<NewSc>,
    freed: Vec<bool>,
    vld: [(Option<usize>, u16); VLD],
    ksc: Option<Vec<Option<usize>>>,
}

impl<'a> Pervl<'a> {
    fn new(w: &'a World) -> Self {
        let before = Tables::of(w);
        Pervl {
            t: before.clone(),
            before,
            a: Allocs::new(w),
            made: vec![],
            freed: vec![],
            vld: std::array::from_fn(|i| (None, w.vl_mtu[i])),
            ksc: None,
        }
    }

    /// `sc_alloc(dd, ty, dd->rcd[0]->rcvhdrqentsize, dd->node)`: the
    /// index of the context made.
    fn alloc(
        &mut self,
        w: &World,
        ty: ScType,
        j: &mut Journal,
    ) -> Result<Option<usize>, Undefined> {
        let Some(sc) = alloc_in(w, &mut self.t, &mut self.a, ty, w.rcvhdrqentsize, w.node, j)?
        else {
            return Ok(None);
        };
        hfi1_init_ctxt(w, sc.ty, sc.hw as u32, j);
        self.made.push(sc);
        self.freed.push(false);
        Ok(Some(self.made.len() - 1))
    }

    /// `sc_free()` of a context made (NULL: nothing).
    fn free(&mut self, w: &World, k: Option<usize>, j: &mut Journal) {
        if let Some(k) = k {
            sc_free(w, &mut self.t, &self.made[k], j);
            self.freed[k] = true;
        }
    }

    /// `sc_enable()` of a context made, then its `SEND_CTXT_CHECK_VL`
    /// (the VLs it may not carry: `mask`).
    fn enable(&mut self, w: &World, k: usize, mask: u64, j: &mut Journal) {
        let hw = self.made[k].hw as u32;
        if let Some(ctrl) = enable_begin(w, hw, j) {
            self.made[k].enabled = false;
            if enable_finish(w, hw, ctrl, j) == 0 {
                self.made[k].enabled = true;
            }
        }
        write_hw_csr(hw, "SEND_CTXT_CHECK_VL", mask, j);
    }

    /// `dd->kernel_send_context[i] = k`.
    fn set_ksc(&mut self, i: usize, k: Option<usize>) {
        if let Some(e) = self.ksc.as_mut().and_then(|ksc| ksc.get_mut(i)) {
            *e = k;
        }
    }

    /// A pointer to context `k` as the text names it.
    fn name(&self, k: Option<usize>) -> String {
        match k {
            None => "(null)".into(),
            Some(k) if self.freed[k] => "freed".into(),
            Some(k) => self.made[k].name(),
        }
    }

    /// The text: each VL's context and MTU changed, the kernel's
    /// contexts' array, each context made and still in the table (its
    /// credit control and flags), the tables' entries changed; the PIO
    /// map is the caller's.
    fn describe(&self, w: &World) -> String {
        let mut s = String::new();
        for (i, &(k, mtu)) in self.vld.iter().enumerate() {
            if k.is_some() || mtu != w.vl_mtu[i] {
                s += &format!(
                    " vld[{i}]: sc (null)->{} mtu {}->{mtu}",
                    self.name(k),
                    w.vl_mtu[i]
                );
            }
        }
        match &self.ksc {
            None => s += " kernel_send_context=NULL",
            Some(ksc) => {
                s += &format!(" kernel_send_context={} entries:", ksc.len());
                for (i, &k) in ksc.iter().enumerate() {
                    if k.is_some() {
                        s += &format!(" [{i}]={}", self.name(k));
                    }
                }
            }
        }
        let mut live: Vec<&NewSc> = (0..self.made.len())
            .filter(|&k| !self.freed[k])
            .map(|k| &self.made[k])
            .collect();
        live.sort_by_key(|sc| sc.sw_index);
        for sc in live {
            s += &format!(
                " {}: credit_ctrl=0x{:x} flags=0x{:x}",
                sc.name(),
                sc.credit_ctrl,
                u32::from(sc.enabled)
            );
        }
        s + &self.t.changes(&self.before)
    }
}

/// Mirrors `init_pervl_scs()` (pio.c): VL15's context allocated
/// ([`alloc_in`], then [`hfi1_init_ctxt`]; NULL: -ENOMEM) with the MTU
/// [`enum_to_mtu`] gives `OPA_MTU_2048`; the kernel's contexts' array
/// (`num_send_contexts` pointers on the device's node; failing: VL15's
/// freed, -ENOMEM) with VL15's first; each data VL's context, its MTU
/// `max_mtu`, then a second context a VL, each listed after; then each
/// enabled (`sc_enable`, whose failure it ignores) and told the VLs it
/// may not carry (VL15's all but 15, the others' 15); then the PIO map
/// over them (`pio_map_init` on port `port - 1`). An allocation that
/// fails after the array frees the data VLs' contexts (their entries
/// NULL), the second ones, the array (NULL), then VL15's (its entry
/// left pointing at it): -ENOMEM.
pub fn init_pervl_scs(w: &World, j: &mut Journal) -> Result<(i32, String), Undefined> {
    let mut p = Pervl::new(w);
    let nvls = w.num_vls as usize;
    let vl15 = p.alloc(w, ScType::Vl15, j)?;
    p.vld[15].0 = vl15;
    let map = match vl15 {
        None => None,
        Some(vl15) => {
            p.vld[15].1 = enum_to_mtu(OPA_MTU_2048);
            if p.a.kmalloc(w.node, j) {
                let mut ksc = vec![None; usize::from(w.num_send_contexts)];
                ksc[0] = Some(vl15);
                p.ksc = Some(ksc);
                let map = data_vls(w, &mut p, nvls, vl15, j)?;
                if map.is_none() {
                    nomem(w, &mut p, nvls, j);
                }
                map
            } else {
                None
            }
            .or_else(|| {
                p.free(w, Some(vl15), j);
                None
            })
        }
    };
    let (ret, map) = match map {
        Some(text) => (0, text),
        None => (-ENOMEM, publish_pio_map(w, None, j).1),
    };
    Ok((ret, p.describe(w) + " " + &map))
}

/// `init_pervl_scs()`'s `nomem` path: the data VLs' contexts freed (their
/// entries NULL), the second ones, the array freed (NULL). VL15's is the
/// caller's (`freesc15`).
fn nomem(w: &World, p: &mut Pervl<'_>, nvls: usize, j: &mut Journal) {
    for i in 0..nvls {
        let k = p.vld[i].0.take();
        p.free(w, k, j);
    }
    for i in nvls..INIT_SC_PER_VL * nvls {
        let k = p.ksc.as_ref().and_then(|ksc| ksc[i + 1]);
        p.free(w, k, j);
    }
    j.record("kfree".into());
    p.ksc = None;
}

/// `init_pervl_scs()` from its data VLs' contexts to the PIO map: the
/// text of the map published, or `None` where it goes to `nomem`.
fn data_vls(
    w: &World,
    p: &mut Pervl<'_>,
    nvls: usize,
    vl15: usize,
    j: &mut Journal,
) -> Result<Option<String>, Undefined> {
    for i in 0..nvls {
        let k = p.alloc(w, ScType::Kernel, j)?;
        p.vld[i].0 = k;
        if k.is_none() {
            return Ok(None);
        }
        p.set_ksc(i + 1, k);
        p.vld[i].1 = w.max_mtu;
    }
    for i in nvls..INIT_SC_PER_VL * nvls {
        let k = p.alloc(w, ScType::Kernel, j)?;
        p.set_ksc(i + 1, k);
        if k.is_none() {
            return Ok(None);
        }
    }
    p.enable(w, vl15, ALL_VL_MASK & !(1 << 15), j);
    for i in 0..INIT_SC_PER_VL * nvls {
        let k = p.ksc.as_ref().and_then(|ksc| ksc[i + 1]);
        if let Some(k) = k {
            p.enable(w, k, ALL_VL_MASK & !DATA_VLS_MASK, j);
        }
    }
    let Pervl {
        a, made, vld, ksc, ..
    } = p;
    let ksc = ksc.as_deref().unwrap_or_default();
    let mut entry = |scontext: u32, vl: usize, j: &mut Journal| {
        let Some(k) = ksc.get(scontext as usize).copied().flatten() else {
            return Ok(None);
        };
        let sc = &mut made[k];
        let thres = sc_percent_to_threshold(sc.credits, 50).min(sc_mtu_to_threshold(
            sc.credits,
            u32::from(vld[vl].1),
            u32::from(w.rcvhdrqentsize),
        ));
        set_cr_threshold_hw(w, sc.hw as u32, &mut sc.credit_ctrl, thres, j);
        Ok(Some(sc.name()))
    };
    let m = build_pio_map(w, a, w.num_vls as u8, &[], &mut entry, j)?;
    if m.is_none() {
        return Ok(None);
    }
    Ok(Some(publish_pio_map(w, m, j).1))
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::InitPervlScs {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (ret, text) = init_pervl_scs(cx.w, &mut cx.j)?;
        cx.out.ret = ret;
        cx.out.text = text;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::Hfi1InitCtxt {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        if let Some(sc) = self.sc {
            let i = usize::from(sc.0);
            let hw = u32::from(cx.w.sc_hw_context.get(i));
            hfi1_init_ctxt(cx.w, cx.w.sc_type.get(i), hw, &mut cx.j);
        }
        Ok(())
    }
}

impl crate::Mirror for super::types::args::EnumToMtu {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = i32::from(enum_to_mtu(self.mtu));
        Ok(())
    }
}
