//! The user SDMA engines of sdma.c: the engine a user process's request
//! goes to (`sdma_select_user_engine`: the per-CPU table `dd->sdma_rht`
//! for a process pinned to one CPU), an engine's VL, what the sysfs
//! `cpu_list` file reads and writes of the table, and what debugfs's
//! `sdma_cpu_list` prints of it.

use super::alloc::{Allocs, ENOMEM, NUMA_NO_NODE};
use super::qp::EINVAL;
use super::sdma::sdma_select_engine_vl;
use super::types::{
    CpuMask, EngineIdx, Engines, NullableIdx, Ptr, ShortText, UserSdeMap, Vl, World,
};
use super::{at, put, Journal, Undefined};

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

/// `-ERANGE`, `-EOVERFLOW`.
const ERANGE: i32 = 34;
const EOVERFLOW: i32 = 75;

/// `nr_cpu_ids`: the CPUs a mask has (kcompat's `NR_CPUS`).
const NR_CPUS: u32 = 64;

/// lib/bitmap.c's `bitmap_parselist()` as `cpulist_parse()` calls it (64
/// CPUs), as 6.x parses (the boundary gives every series' world this one
/// grammar, 5.10's too): regions separated by commas or spaces, each `A`,
/// `A-B` or `A-B:used/group` (`N` the last CPU, `all` 0-N), the list ended
/// by NUL or a newline (after a region without a pattern; after one with
/// a pattern, a newline is a separator). -EINVAL for bad syntax or an
/// empty region, -EOVERFLOW for a number past a `u32`, -ERANGE for a CPU
/// past the 64. The kernel's library, not the driver: the C world's
/// boundary (`c-shim/mocks/runtime.c`) parses the same grammar.
pub fn cpulist_parse(b: &[u8]) -> Result<u64, i32> {
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let space = |c: u8| c == b' ' || (b'\t'..=b'\r').contains(&c) || c == 0xa0;
    let end_of_str = |c: u8| c == 0 || c == b'\n';
    let end_of_region = |c: u8| space(c) || c == b',' || end_of_str(c);
    let getnum = |i: usize| -> Result<(u32, usize), i32> {
        if at(i) == b'N' {
            return Ok((NR_CPUS - 1, i + 1));
        }
        let (mut n, mut over, mut k) = (0u64, false, i);
        while at(k).is_ascii_digit() {
            over |= n > (u64::MAX - 9) / 10;
            n = n.wrapping_mul(10).wrapping_add(u64::from(at(k) - b'0'));
            k += 1;
        }
        match () {
            _ if k == i => Err(-EINVAL),
            _ if over || n > u64::from(u32::MAX) => Err(-EOVERFLOW),
            _ => Ok((n as u32, k)),
        }
    };
    let mut mask = 0u64;
    let mut i = 0;
    loop {
        while space(at(i)) || at(i) == b',' {
            i += 1;
        }
        if end_of_str(at(i)) {
            return Ok(mask);
        }
        let (start, end);
        let mut pattern = true;
        if at(i) | 0x20 == b'a' && at(i + 1) | 0x20 == b'l' && at(i + 2) | 0x20 == b'l' {
            (start, end) = (0, NR_CPUS - 1);
            i += 3;
        } else {
            let (s, k) = getnum(i)?;
            i = k;
            if end_of_region(at(i)) {
                (start, end, pattern) = (s, s, false);
            } else if at(i) != b'-' {
                return Err(-EINVAL);
            } else {
                let (e, k) = getnum(i + 1)?;
                (start, end, i) = (s, e, k);
            }
        }
        let (off, group, last) = if pattern && !end_of_region(at(i)) {
            if at(i) != b':' {
                return Err(-EINVAL);
            }
            let (o, k) = getnum(i + 1)?;
            if at(k) != b'/' {
                return Err(-EINVAL);
            }
            let (g, k) = getnum(k + 1)?;
            i = k;
            (o, g, false)
        } else {
            (end.wrapping_add(1), end.wrapping_add(1), end_of_str(at(i)))
        };
        if start > end || group == 0 || off > group {
            return Err(-EINVAL);
        }
        if end >= NR_CPUS {
            return Err(-ERANGE);
        }
        let mut first = start;
        while first <= end {
            for cpu in first..first + (end - first + 1).min(off) {
                mask |= 1 << cpu;
            }
            // An unsigned int in C: a step past it wraps (and ends past `end`).
            first = first.wrapping_add(group);
        }
        if last {
            return Ok(mask);
        }
    }
}

/// `roundup_pow_of_two(n)`.
fn roundup_pow_of_two(n: u32) -> u32 {
    n.next_power_of_two()
}

/// Mirrors the static `sdma_populate_sde_map()` (sdma.c): the slots from
/// `ctr` up to the mask's end copy the first ones, in order.
fn sdma_populate_sde_map(m: &mut UserSdeMap) {
    let ctr = usize::from(m.ctr);
    let n = roundup_pow_of_two(u32::from(m.ctr.max(1))) as usize - ctr;
    for i in 0..n {
        m.sde[ctr + i] = m.sde[i];
    }
}

/// Mirrors the static `sdma_cleanup_sde_map()` (sdma.c): the engine's
/// first slot among the map's `ctr` taken out (the slots after it moved
/// down), `ctr` and the mask down with it, the slots past `ctr` filled
/// again.
fn sdma_cleanup_sde_map(m: &mut UserSdeMap, sde: NullableIdx<EngineIdx>) {
    let ctr = usize::from(m.ctr);
    if let Some(i) = m.sde[..ctr].iter().position(|&x| x == sde) {
        m.sde.copy_within(i + 1..ctr, i);
        m.ctr -= 1;
        m.mask = roundup_pow_of_two(u32::from(m.ctr.max(1))) - 1;
        sdma_populate_sde_map(m);
    }
}

/// The CPUs of a mask, lowest first (`for_each_cpu`).
fn cpus_of(m: u64) -> impl Iterator<Item = u8> {
    (0..64u8).filter(move |c| m & (1 << c) != 0)
}

/// Mirrors `sdma_set_cpu_to_sde_map()` (sdma.c): `-EINVAL` for an engine
/// whose VL has no node map (none published, or past
/// `HFI1_MAX_VLS_SUPPORTED`); two CPU masks allocated (`-ENOMEM`, the first
/// freed, when either fails: `CONFIG_CPUMASK_OFFSTACK`) and freed on the
/// way out; `buf` parsed (its error returned), `-EINVAL` for a CPU not
/// online. Then each CPU of the list new to the engine's
/// `cpu_mask`: without a node, a node and the map allocated (`-ENOMEM`,
/// the node freed, when either fails) holding the engine alone; with one,
/// its map of the VL allocated when NULL (`-ENOMEM`), the engine added
/// after its `ctr` engines, the mask `roundup_pow_of_two(ctr) - 1`, the
/// slots past `ctr` filled again. An allocation failing ends the call
/// there: the maps changed so far stay, `cpu_mask` does not change. Then
/// each online CPU left out with a node: the engine taken out of each of
/// its maps, and the node, when no map has an engine left, removed with
/// its maps and freed. `cpu_mask` is the list's CPUs; the length of `buf`
/// returned. The table as the call leaves it is returned beside.
pub fn sdma_set_cpu_to_sde_map(
    w: &World,
    e: &mut Engines,
    sde: u8,
    buf: &ShortText,
    j: &mut Journal,
) -> Result<(i32, Vec<UserSdeMap>), Undefined> {
    let mut t: Vec<UserSdeMap> = w.sdma_rht.to_vec();
    let vl = sdma_engine_get_vl(w, sde);
    if !(0..i32::from(HFI1_MAX_VLS_SUPPORTED)).contains(&vl) {
        return Ok((-EINVAL, t));
    }
    let vl = vl as u8;
    // zalloc_cpumask_var() of `mask` and `new_mask`; both freed on the way
    // out.
    let mut a = Allocs::new(w);
    if !a.kmalloc(NUMA_NO_NODE, j) {
        return Ok((-ENOMEM, t));
    }
    if !a.kmalloc(NUMA_NO_NODE, j) {
        j.record("kfree".into());
        return Ok((-ENOMEM, t));
    }
    let ret = set_cpus(w, e, sde, vl, buf, &mut t, &mut a, j);
    j.record("kfree".into());
    j.record("kfree".into());
    Ok((ret?, t))
}

/// [`sdma_set_cpu_to_sde_map`] from the list's parsing to its end, the
/// two masks allocated: what it returns.
#[allow(clippy::too_many_arguments)]
fn set_cpus(
    w: &World,
    e: &mut Engines,
    sde: u8,
    vl: u8,
    buf: &ShortText,
    t: &mut Vec<UserSdeMap>,
    a: &mut Allocs<'_>,
    j: &mut Journal,
) -> Result<i32, Undefined> {
    let mask = match cpulist_parse(buf.as_bytes()) {
        Ok(m) => m,
        Err(err) => return Ok(err),
    };
    if !w.sdma_rht_set {
        return Err(Undefined(
            "rhashtable_lookup_fast() dereferences dd->sdma_rht, which is NULL".into(),
        ));
    }
    if mask & !w.cpu_online.0 != 0 {
        return Ok(-EINVAL);
    }
    let me = NullableIdx::new(Some(EngineIdx(sde))).unwrap_or_default();
    let old = e.sde_cpu_mask.get(usize::from(sde)).0;
    let mut new_mask = 0u64;
    for cpu in cpus_of(mask) {
        if old & (1 << cpu) != 0 {
            new_mask |= 1 << cpu;
            continue;
        }
        let has_node = t.iter().any(|m| m.cpu == cpu);
        let k = t
            .iter()
            .position(|m| (m.cpu, m.vl) >= (cpu, vl))
            .unwrap_or(t.len());
        let fresh = UserSdeMap {
            cpu,
            vl,
            ..UserSdeMap::default()
        };
        if !has_node {
            if !a.kmalloc(NUMA_NO_NODE, j) {
                return Ok(-ENOMEM);
            }
            if !a.kmalloc(NUMA_NO_NODE, j) {
                j.record("kfree".into());
                return Ok(-ENOMEM);
            }
            let mut m = UserSdeMap { ctr: 1, ..fresh };
            m.sde[0] = me;
            t.insert(k, m);
        } else {
            if t.get(k).is_none_or(|m| (m.cpu, m.vl) != (cpu, vl)) {
                if !a.kmalloc(NUMA_NO_NODE, j) {
                    return Ok(-ENOMEM);
                }
                t.insert(k, fresh);
            }
            let m = &mut t[k];
            if usize::from(m.ctr) >= m.sde.len() {
                return Err(Undefined(format!(
                    "map->sde[{}] is past the map's {} slots",
                    m.ctr,
                    m.sde.len()
                )));
            }
            m.ctr += 1;
            m.sde[usize::from(m.ctr) - 1] = me;
            m.mask = roundup_pow_of_two(u32::from(m.ctr)) - 1;
            sdma_populate_sde_map(m);
        }
        new_mask |= 1 << cpu;
    }
    for cpu in cpus_of(w.cpu_online.0 & !mask) {
        if !t.iter().any(|m| m.cpu == cpu) {
            continue;
        }
        for m in t.iter_mut().filter(|m| m.cpu == cpu) {
            sdma_cleanup_sde_map(m, me);
        }
        if t.iter().filter(|m| m.cpu == cpu).all(|m| m.ctr == 0) {
            for _ in t.iter().filter(|m| m.cpu == cpu) {
                j.record("kfree".into());
            }
            j.record("kfree".into());
            t.retain(|m| m.cpu != cpu);
        }
    }
    put(
        &mut e.sde_cpu_mask,
        usize::from(sde),
        CpuMask(new_mask),
        "sde_cpu_mask",
    )?;
    Ok(buf.as_bytes().len() as i32)
}

/// The table as a call leaves it, in the C world's words: each CPU's
/// node, lowest first, with each map it holds (`vlV={ctr mask [slots up
/// to the last engine]}`); `sdma_rht: empty` without a node.
pub fn describe_table(t: &[UserSdeMap]) -> String {
    let mut s = String::from("sdma_rht:");
    if t.is_empty() {
        s += " empty";
    }
    let mut cpu = None;
    for m in t {
        if cpu != Some(m.cpu) {
            s += &format!(" cpu{}", m.cpu);
            cpu = Some(m.cpu);
        }
        let slots: Vec<String> = m
            .used()
            .iter()
            .map(|x| x.get().map_or("NULL".into(), |i| i.0.to_string()))
            .collect();
        s += &format!(
            " vl{}={{ctr={} mask={} [{}]}}",
            m.vl,
            m.ctr,
            m.mask,
            slots.join(",")
        );
    }
    s
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

impl crate::Mirror for super::types::args::SdmaSetCpuToSdeMap {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (ret, t) =
            sdma_set_cpu_to_sde_map(cx.w, cx.engines.to_mut(), self.sde, &self.buf, &mut cx.j)?;
        cx.out.ret = ret;
        cx.out.text = describe_table(&t);
        Ok(())
    }
}
