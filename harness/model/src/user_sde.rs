//! The user SDMA engines of sdma.c: the engine a user process's request
//! goes to (`sdma_select_user_engine`: the per-CPU table `dd->sdma_rht`
//! for a process pinned to one CPU), an engine's VL, and what the sysfs
//! `cpu_list` file and debugfs's `sdma_cpu_list` read of the table.

use super::qp::EINVAL;
use super::sdma::sdma_select_engine_vl;
use super::types::{CpuMask, EngineIdx, Engines, Ptr, UserSdeMap, Vl, World};
use super::{at, Journal, Undefined};

/// `HFI1_MAX_VLS_SUPPORTED`: the maps of a CPU's node (`node->map[]`).
pub const HFI1_MAX_VLS_SUPPORTED: u8 = 8;

/// `rhashtable_lookup_fast(dd->sdma_rht, &cpu, sdma_rht_params)`: the
/// maps of `cpu`'s node, none when the table has no node of it. A NULL
/// table is undefined (the lookup dereferences it).
fn node_of(w: &World, cpu: u64) -> Result<Option<Vec<&UserSdeMap>>, Undefined> {
    if !w.sdma_rht_set {
        return Err(Undefined(
            "rhashtable_lookup() dereferences dd->sdma_rht, which is NULL".into(),
        ));
    }
    let maps: Vec<&UserSdeMap> = w
        .sdma_rht
        .iter()
        .filter(|m| u64::from(m.cpu) == cpu)
        .collect();
    Ok((!maps.is_empty()).then_some(maps))
}

/// `node->map[vl]`: the node's map of `vl`, or NULL.
fn map_of<'a>(node: &[&'a UserSdeMap], vl: u8) -> Option<&'a UserSdeMap> {
    node.iter().copied().find(|m| m.vl == vl)
}

/// Mirrors `sdma_engine_get_vl()` (sdma.c): `-EINVAL` without a published
/// map, else the map's `engine_to_vl[sde->this_idx]` (a `u8`). An engine
/// of the world is below `TXE_NUM_SDMA_ENGINES`, so the first check never
/// fails here (vectors/unreached.toml).
pub fn sdma_engine_get_vl(w: &World, sde: u8) -> i32 {
    if w.sdma_map.is_none() {
        return -EINVAL;
    }
    i32::from(
        w.sdma_engine_to_vl
            .get(usize::from(sde))
            .copied()
            .unwrap_or(0),
    )
}

/// Mirrors `sdma_select_user_engine()` (sdma.c): a task allowed on one
/// CPU only looks its CPU up in `dd->sdma_rht`; the engine of its map of
/// `vl` at `selector & map->mask` is the answer when there is one. Else
/// (more CPUs allowed, no node, no map, a NULL slot)
/// `sdma_select_engine_vl()`'s engine, with its tracepoint.
pub fn sdma_select_user_engine(
    w: &World,
    selector: u32,
    vl: Vl,
    j: &mut Journal,
) -> Result<Ptr<EngineIdx>, Undefined> {
    if w.nr_cpus_allowed == 1 {
        if let Some(node) = node_of(w, u64::from(w.this_cpu))? {
            if vl.0 >= HFI1_MAX_VLS_SUPPORTED {
                return Err(Undefined(format!(
                    "rht_node->map[{}] is past the node's {HFI1_MAX_VLS_SUPPORTED} maps",
                    vl.0
                )));
            }
            if let Some(m) = map_of(&node, vl.0) {
                let slot = (selector & m.mask) as usize;
                if let Some(i) = at(&m.sde, slot, "map->sde")?.get() {
                    return Ok(Ptr::To(i));
                }
            }
        }
    }
    sdma_select_engine_vl(w, selector, vl, j)
}

/// `cpumap_print_to_pagebuf(true, buf, mask)`: the mask as a list of CPUs
/// and ranges (`%*pbl`), a newline.
fn cpu_list(m: CpuMask) -> String {
    let mut parts = vec![];
    let mut cpu = 0u32;
    while cpu < 64 {
        if m.0 & (1 << cpu) == 0 {
            cpu += 1;
            continue;
        }
        let first = cpu;
        while cpu < 64 && m.0 & (1 << cpu) != 0 {
            cpu += 1;
        }
        parts.push(if cpu - 1 == first {
            format!("{first}")
        } else {
            format!("{first}-{}", cpu - 1)
        });
    }
    format!("{}\n", parts.join(","))
}

/// Mirrors `sdma_get_cpu_to_sde_map()` (sdma.c): under the mutex, the
/// engine's `cpu_mask` as a list, or "empty", into the page; its length.
pub fn sdma_get_cpu_to_sde_map(e: &Engines, sde: u8) -> (i32, String) {
    let m = e.sde_cpu_mask.get(usize::from(sde));
    let text = if m.0 == 0 {
        "empty\n".to_owned()
    } else {
        cpu_list(m)
    };
    (text.len() as i32, text)
}

/// Mirrors `sdma_seqfile_dump_cpu_list()` (sdma.c): nothing for a CPU the
/// table has no node of; else `cpu%3lu: `, then each VL whose map has
/// engines (`ctr`), ` vl%d: [` and each non-NULL engine of its first
/// `ctr` slots (` sdma%2d`, a comma before all but the first slot), ` ]`;
/// a newline.
pub fn sdma_seqfile_dump_cpu_list(w: &World, cpuid: u64) -> Result<String, Undefined> {
    let Some(node) = node_of(w, cpuid)? else {
        return Ok(String::new());
    };
    let mut s = format!("cpu{cpuid:>3}: ");
    for vl in 0..HFI1_MAX_VLS_SUPPORTED {
        let Some(m) = map_of(&node, vl).filter(|m| m.ctr != 0) else {
            continue;
        };
        s += &format!(" vl{vl}: [");
        for k in 0..usize::from(m.ctr) {
            let Some(i) = at(&m.sde, k, "map->sde")?.get() else {
                continue;
            };
            if k > 0 {
                s += ",";
            }
            s += &format!(" sdma{:>2}", i.0);
        }
        s += " ]";
    }
    s += "\n";
    Ok(s)
}

impl crate::Mirror for super::types::args::SdmaEngineGetVl {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = sdma_engine_get_vl(cx.w, self.sde);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::SdmaSelectUserEngine {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.sdma_engine = sdma_select_user_engine(cx.w, self.selector, self.vl, &mut cx.j)?;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::SdmaGetCpuToSdeMap {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        (cx.out.ret, cx.out.text) = sdma_get_cpu_to_sde_map(&cx.engines, self.sde);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::SdmaSeqfileDumpCpuList {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.text = sdma_seqfile_dump_cpu_list(cx.w, self.cpuid)?;
        Ok(())
    }
}
