//! The VL maps rebuilt when the number of VLs changes: sdma.c's
//! VL-to-engine map (`dd->sdma_map`) and pio.c's VL-to-send-context map
//! (`dd->pio_map`), each built whole, published, and the map it replaces
//! freed after a grace period. What the call leaves is the published map,
//! described as the C world's describer writes it (`c-shim/vl_maps.c`):
//! `sdma_map=world` while the world's own map is published,
//! `sdma_map=NULL` while none is, else the new map whole.

use std::fmt::Write;

use super::alloc::{Allocs, ENOMEM, NUMA_NO_NODE};
use super::pio::{
    sc_credits_of, sc_mtu_to_threshold, sc_percent_to_threshold, sc_set_cr_threshold,
};
use super::types::{DevFlag, Engines, Qp, ScType, SendCtxIdx, VlMap, World};
use super::{Journal, Undefined};

/// `TXE_NUM_SDMA_ENGINES` (chip_registers.h): the back-map's entries.
const TXE_NUM_SDMA_ENGINES: usize = 16;

/// `roundup_pow_of_two(n)` for `n >= 1`.
fn roundup_pow_of_two(n: u32) -> u32 {
    n.next_power_of_two()
}

/// A map upstream built: `vls` elements, the first `actual_vls` its own,
/// each later one the element `i % actual_vls` again.
pub(crate) struct Built {
    actual_vls: u8,
    vls: u32,
    mask: u32,
    /// The back-map (`sdma_vl_map` only).
    engine_to_vl: Option<[i8; TXE_NUM_SDMA_ENGINES]>,
    /// Each own element's mask and entries, by the world's names.
    elems: Vec<(u32, Vec<String>)>,
}

impl Built {
    /// The elements the map owns (`actual_vls`): what freeing it frees
    /// besides the map.
    pub(crate) fn own(&self) -> usize {
        self.elems.len()
    }
}

/// The elements the world's map allocated: what freeing its copy frees
/// besides the map.
pub(crate) fn world_elems<T>(m: &VlMap<T>) -> usize {
    m.elems.iter().flatten().count()
}

/// The text a map init leaves: the map `name` that is published.
pub(crate) fn describe(
    name: &str,
    built: Option<&Built>,
    world: Option<&VlMap<impl Sized>>,
) -> String {
    let Some(m) = built else {
        return format!("{name}={}", if world.is_some() { "world" } else { "NULL" });
    };
    let mut s = format!(
        "{name}: actual_vls={} vls={} mask={}",
        m.actual_vls, m.vls, m.mask
    );
    if let Some(e2v) = &m.engine_to_vl {
        let v: Vec<String> = e2v.iter().map(|v| v.to_string()).collect();
        let _ = write!(s, " engine_to_vl={}", v.join(","));
    }
    for i in 0..m.vls as usize {
        let own = usize::from(m.actual_vls);
        if i < own {
            let (mask, entries) = &m.elems[i];
            let _ = write!(s, " map[{i}]={{mask={mask}:");
            for e in entries {
                let _ = write!(s, " {e}");
            }
            s.push('}');
        } else {
            let _ = write!(s, " map[{i}]=map[{}]", i % own);
        }
    }
    s
}

/// The `kfree` lines of freeing a map of `elems` own elements and the map
/// itself (`sdma_map_free`, `pio_map_free`: a NULL element is not
/// journalled, as `kfree(NULL)` is not).
pub(crate) fn free_lines(elems: usize, j: &mut Journal) {
    for _ in 0..elems {
        j.record("kfree".into());
    }
    j.record("kfree".into());
}

/// The world's map freed after its grace period: the RCU callback
/// (`sdma_map_rcu_callback`, `pio_map_rcu_callback`) runs as the call
/// returns, each element the world allocated freed, then the map.
fn free_world_map<T>(m: &VlMap<T>, name: &str, j: &mut Journal) {
    j.record(format!("call_rcu({name}.list)"));
    free_lines(world_elems(m), j);
}

/// Each VL's count of what it gets: `vl_given`, or `total` spread evenly,
/// the extras from the last VL down (`sdma_map_init`'s and
/// `pio_map_init`'s automatic loading).
pub fn loading(num_vls: u8, vl_given: &[u8], total: u32) -> Vec<u8> {
    if !vl_given.is_empty() {
        return vl_given.to_vec();
    }
    let n = u32::from(num_vls);
    let per = total / n;
    let mut extra = (total % n) as i32;
    let mut v = vec![0u8; usize::from(num_vls)];
    for i in (0..usize::from(num_vls)).rev() {
        v[i] = (per + u32::from(extra > 0)) as u8;
        extra -= 1;
    }
    v
}

/// The map `sdma_map_init()` builds for `num_sdma` engines (the part
/// after its `HFI1_HAS_SEND_DMA` check): each VL's engine count
/// (`vl_engines`, or the engines spread evenly with the extras from the
/// last VL down), the map allocated (`kzalloc`) with
/// `roundup_pow_of_two(num_vls)` elements, each VL's element allocated
/// with `roundup_pow_of_two(count)` entries filled round robin from the
/// VL's first engine, the back-map set; an allocation failing frees what
/// was built (`sdma_map_free`): `None`, -ENOMEM.
pub(crate) fn build_sdma_map(
    a: &mut Allocs<'_>,
    num_sdma: u32,
    num_vls: u8,
    vl_engines: &[u8],
    j: &mut Journal,
) -> Result<Option<Built>, Undefined> {
    let v = loading(num_vls, vl_engines, num_sdma);
    if let Some(i) = v.iter().position(|&n| n == 0) {
        return Err(Undefined(format!(
            "VL {i} gets no engine: roundup_pow_of_two(0) is undefined"
        )));
    }
    if !a.kmalloc(NUMA_NO_NODE, j) {
        return Ok(None);
    }
    let vls = roundup_pow_of_two(u32::from(num_vls));
    let mut m = Built {
        actual_vls: num_vls,
        vls,
        mask: vls - 1,
        engine_to_vl: Some([-1; TXE_NUM_SDMA_ENGINES]),
        elems: vec![],
    };
    let mut engine = 0u32;
    for (i, &count) in v.iter().enumerate() {
        let first = engine;
        let count = u32::from(count);
        let sz = roundup_pow_of_two(count);
        if !a.kmalloc(NUMA_NO_NODE, j) {
            free_lines(m.elems.len(), j);
            return Ok(None);
        }
        let mut entries = vec![];
        for _ in 0..sz {
            entries.push(format!("sde#{engine}"));
            engine += 1;
            if engine >= first + count {
                engine = first;
            }
        }
        if let Some(e2v) = &mut m.engine_to_vl {
            for k in first..first + count {
                e2v[k as usize] = i as i8;
            }
        }
        m.elems.push((sz - 1, entries));
        engine = first + count;
    }
    Ok(Some(m))
}

/// Mirrors `sdma_map_init()` (sdma.c): without `HFI1_HAS_SEND_DMA`, 0;
/// else the map built for `dd->num_sdma` engines ([`build_sdma_map`]),
/// -ENOMEM when an allocation fails; else the map published and the old
/// one, if any, freed after a grace period. The text is the published
/// map.
pub fn sdma_map_init(
    w: &World,
    num_vls: u8,
    vl_engines: &[u8],
    j: &mut Journal,
) -> Result<(i32, String), Undefined> {
    let world = w.sdma_map.as_ref();
    if !w.has(DevFlag::HasSendDma) {
        return Ok((0, describe("sdma_map", None, world)));
    }
    let mut a = Allocs::new(w);
    let num_sdma = w.sdma_cpus.len() as u32;
    let Some(m) = build_sdma_map(&mut a, num_sdma, num_vls, vl_engines, j)? else {
        return Ok((-ENOMEM, describe("sdma_map", None, world)));
    };
    if let Some(old) = world {
        free_world_map(old, "sdma_map", j);
    }
    Ok((0, describe("sdma_map", Some(&m), world)))
}

/// Mirrors the static `set_threshold()` (pio.c): kernel send context
/// `sc`'s credit return threshold set to the smaller of half its credits
/// and what an MTU packet of VL `vl` leaves ([`sc_set_cr_threshold`]).
fn set_threshold(
    w: &World,
    qp: &Qp,
    e: &mut Engines,
    sc: SendCtxIdx,
    vl: usize,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let credits = sc_credits_of(qp, sc);
    let thres = sc_percent_to_threshold(credits, 50).min(sc_mtu_to_threshold(
        credits,
        u32::from(w.vl_mtu[vl]),
        u32::from(w.rcvhdrqentsize),
    ));
    sc_set_cr_threshold(w, e, sc, thres, j)
}

/// `dd->kernel_send_context[i]`: the world's list, NULL past it.
fn kernel_send_context(w: &World, i: u32) -> Option<SendCtxIdx> {
    w.kernel_sc.get(i as usize).copied().flatten()
}

/// Mirrors `pio_map_init()` (pio.c): each VL's count of kernel send
/// contexts (`vl_scontexts`, or the `SC_KERNEL` contexts of
/// `dd->send_contexts` spread evenly with the extras from the last VL
/// down), the map allocated with `roundup_pow_of_two(num_vls)` elements,
/// each VL's element with `roundup_pow_of_two(count)` entries filled
/// round robin from the VL's first context (`dd->kernel_send_context[]`,
/// from 1; a NULL one leaves its entry NULL, and each other gets its
/// credit return threshold, [`set_threshold`]), the elements past the VLs
/// the first ones again; an allocation failing frees what was built
/// (`pio_map_free`), -ENOMEM. Else the map published and the old one, if
/// any, freed after a grace period. The text is the published map.
pub fn pio_map_init(
    w: &World,
    qp: &Qp,
    e: &mut Engines,
    num_vls: u8,
    vl_scontexts: &[u8],
    j: &mut Journal,
) -> Result<(i32, String), Undefined> {
    let mut a = Allocs::new(w);
    let mut entry = |scontext: u32, vl: usize, j: &mut Journal| {
        let Some(sc) = kernel_send_context(w, scontext) else {
            return Ok(None);
        };
        set_threshold(w, qp, e, sc, vl, j)?;
        Ok(Some(format!("sc#{}", sc.0)))
    };
    let m = build_pio_map(w, &mut a, num_vls, vl_scontexts, &mut entry, j)?;
    Ok(publish_pio_map(w, m, j))
}

/// The SC_KERNEL entries of `dd->send_contexts` (their types).
pub fn kernel_contexts(w: &World) -> u32 {
    (0..usize::from(w.num_send_contexts))
        .filter(|&i| w.sc_type.get(i) == ScType::Kernel)
        .count() as u32
}

/// What `pio_map_init()` puts at `(scontext, vl)`: [`build_pio_map`].
pub(crate) type MapEntry<'a> =
    dyn FnMut(u32, usize, &mut Journal) -> Result<Option<String>, Undefined> + 'a;

/// `pio_map_init()`'s map for `num_vls` VLs (everything before the
/// publishing): `entry(scontext, vl, j)` is `kernel_send_context[scontext]`
/// put in VL `vl`'s element, its threshold set (`set_threshold`), its
/// name; `None` for NULL. `None` when an allocation failed (what was
/// built freed).
pub(crate) fn build_pio_map(
    w: &World,
    a: &mut Allocs<'_>,
    num_vls: u8,
    vl_scontexts: &[u8],
    entry: &mut MapEntry<'_>,
    j: &mut Journal,
) -> Result<Option<Built>, Undefined> {
    let v = loading(num_vls, vl_scontexts, kernel_contexts(w));
    if let Some(i) = v.iter().position(|&n| n == 0) {
        return Err(Undefined(format!(
            "VL {i} gets no send context: roundup_pow_of_two(0) is undefined"
        )));
    }
    if !a.kmalloc(NUMA_NO_NODE, j) {
        return Ok(None);
    }
    let vls = roundup_pow_of_two(u32::from(num_vls));
    let mut m = Built {
        actual_vls: num_vls,
        vls,
        mask: vls - 1,
        engine_to_vl: None,
        elems: vec![],
    };
    let mut scontext = 1u32;
    for (i, &count) in v.iter().enumerate() {
        let first = scontext;
        let count = u32::from(count);
        let sz = roundup_pow_of_two(count);
        if !a.kmalloc(NUMA_NO_NODE, j) {
            free_lines(m.elems.len(), j);
            return Ok(None);
        }
        let mut entries = vec![];
        for _ in 0..sz {
            entries.push(entry(scontext, i, j)?.unwrap_or_else(|| "(null)".into()));
            scontext += 1;
            if scontext >= first + count {
                scontext = first;
            }
        }
        m.elems.push((sz - 1, entries));
        scontext = first + count;
    }
    Ok(Some(m))
}

/// `pio_map_init()`'s end: a map built published and the world's, if
/// any, freed after a grace period, 0; none, -ENOMEM. With the text of
/// the map published.
pub(crate) fn publish_pio_map(w: &World, m: Option<Built>, j: &mut Journal) -> (i32, String) {
    let world = w.pio_map.as_ref();
    let Some(m) = m else {
        return (-ENOMEM, describe("pio_map", None, world));
    };
    if let Some(old) = world {
        free_world_map(old, "pio_map", j);
    }
    (0, describe("pio_map", Some(&m), world))
}

// The functions of this module as the model runs them (`crate::Mirror`).

/// Mirrors `free_pio_map()` (pio.c): the published map, if any, freed
/// (`pio_map_free`: each element the world allocated, then the map) and
/// NULL; the kernel's contexts' array freed (`kfree`, journalled when
/// there is one) and NULL. The grace period between the map's unpublishing
/// and its free (before it up to 6.12, after it from 7.2) is not
/// journalled, so every series reads the same; the C world reports the
/// early free as a `lockdep:` line (suspicious RCU usage), upstream's own
/// finding, which no model mirrors. The text: the map, then the array.
pub fn free_pio_map(w: &World, j: &mut Journal) -> String {
    if let Some(m) = w.pio_map.as_ref() {
        free_lines(world_elems(m), j);
    }
    if !w.kernel_sc.is_empty() {
        j.record("kfree".into());
    }
    "pio_map=NULL kernel_send_context=NULL".into()
}

impl crate::Mirror for super::types::args::FreePioMap {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.text = free_pio_map(cx.w, &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::SdmaMapInit {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (ret, text) = sdma_map_init(cx.w, self.num_vls, &self.vl_engines, &mut cx.j)?;
        cx.out.ret = ret;
        cx.out.text = text;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::PioMapInit {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (ret, text) = pio_map_init(
            cx.w,
            &cx.qp,
            cx.engines.to_mut(),
            self.num_vls,
            &self.vl_scontexts,
            &mut cx.j,
        )?;
        cx.out.ret = ret;
        cx.out.text = text;
        Ok(())
    }
}
