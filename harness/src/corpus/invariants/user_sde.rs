//! The user engine table's invariants: `dd->sdma_rht` as
//! `sdma_set_cpu_to_sde_map()` leaves it, and what the calls that read it
//! need of the calling task.

use crate::model::types::*;
use crate::model::user_sde::HFI1_MAX_VLS_SUPPORTED;

/// The table's maps: none without a table; each (CPU, VL) once, by CPU
/// then VL (a CPU has one node, a node one map per VL); a VL indexes the
/// node's `map[HFI1_MAX_VLS_SUPPORTED]`; `ctr` counts engines mapped (at
/// most the 16 slots `sdma_set_cpu_to_sde_map()` allocates) and `mask`
/// (`roundup_pow_of_two(ctr) - 1`) picks among those slots; a slot names
/// an engine of the world. The task runs on one of the CPUs it may run
/// on, at least one of the 64 (`NR_CPUS`).
pub(super) fn check_user_sde_world(w: &World) -> Result<(), String> {
    if !w.sdma_rht_set && !w.sdma_rht.is_empty() {
        return Err("world.sdma_rht has maps but world.sdma_rht_set is false (no table)".into());
    }
    let engines = w.sdma_cpus.len();
    for (i, m) in w.sdma_rht.iter().enumerate() {
        let at = format!("world.sdma_rht[{i}] (cpu {}, vl {})", m.cpu, m.vl);
        if i > 0 && (w.sdma_rht[i - 1].cpu, w.sdma_rht[i - 1].vl) >= (m.cpu, m.vl) {
            return Err(format!(
                "{at}: maps are listed by CPU then VL, each once (a CPU has one node, with one map per VL)"
            ));
        }
        if m.cpu >= 64 || m.vl >= HFI1_MAX_VLS_SUPPORTED {
            return Err(format!(
                "{at}: a CPU below NR_CPUS (64), a VL below HFI1_MAX_VLS_SUPPORTED ({HFI1_MAX_VLS_SUPPORTED}: node->map[] has no more)"
            ));
        }
        if usize::from(m.ctr) > MAP_SLOTS || m.mask as usize >= MAP_SLOTS {
            return Err(format!(
                "{at}: ctr {} / mask {}: at most 16 engines mapped, a mask below 16 (map->sde[] has TXE_NUM_SDMA_ENGINES slots)",
                m.ctr, m.mask
            ));
        }
        if let Some(e) = m
            .sde
            .iter()
            .filter_map(|x| x.get())
            .find(|e| usize::from(e.0) >= engines)
        {
            return Err(format!(
                "{at}: engine {} is not an engine of the world ({engines})",
                e.0
            ));
        }
    }
    if w.sdma_engine_to_vl.len() > engines {
        return Err(format!(
            "world.sdma_engine_to_vl has {} entries for {engines} engines",
            w.sdma_engine_to_vl.len()
        ));
    }
    if !(1..=64).contains(&w.nr_cpus_allowed) || w.this_cpu >= 64 {
        return Err(format!(
            "world.nr_cpus_allowed {} / this_cpu {}: a task may run on 1 to 64 CPUs (NR_CPUS) and runs on one of them",
            w.nr_cpus_allowed, w.this_cpu
        ));
    }
    Ok(())
}

/// What the functions that look the table up need of the world: a lookup
/// dereferences `dd->sdma_rht` (`sdma_select_user_engine()` only for a
/// task pinned to one CPU).
pub(super) fn check_user_sde_world_for(func: Func, w: &World) -> Result<(), String> {
    let needs = match func {
        Func::SdmaSelectUserEngine => w.nr_cpus_allowed == 1,
        Func::SdmaSeqfileDumpCpuList | Func::SdmaSetCpuToSdeMap => true,
        _ => false,
    };
    if needs && !w.sdma_rht_set {
        return Err(format!(
            "{func} looks a CPU up in dd->sdma_rht: world.sdma_rht_set (a task pinned to one CPU, for sdma_select_user_engine)"
        ));
    }
    Ok(())
}

/// The calls' arguments: `node->map[vl]` is read for the pinned task's
/// CPU's node; an engine argument is an engine of the world; an engine
/// added to a map finds room there.
pub(super) fn check_user_sde_call(c: &Call) -> Result<(), String> {
    let w = &c.world;
    let has_node = |cpu: u64| w.sdma_rht.iter().any(|m| u64::from(m.cpu) == cpu);
    match &c.args {
        Args::SdmaSelectUserEngine(a)
            if w.nr_cpus_allowed == 1
                && has_node(u64::from(w.this_cpu))
                && a.vl.0 >= HFI1_MAX_VLS_SUPPORTED =>
        {
            Err(format!(
                "vl {}: the pinned task's CPU has a node, whose map[{}] is past its {HFI1_MAX_VLS_SUPPORTED} maps",
                a.vl.0, a.vl.0
            ))
        }
        Args::SdmaEngineGetVl(args::SdmaEngineGetVl { sde })
        | Args::SdmaGetCpuToSdeMap(args::SdmaGetCpuToSdeMap { sde })
        | Args::SdmaSetCpuToSdeMap(args::SdmaSetCpuToSdeMap { sde, .. })
            if usize::from(*sde) >= w.sdma_cpus.len() =>
        {
            Err(format!(
                "sde {sde} is not an engine of the world ({})",
                w.sdma_cpus.len()
            ))
        }
        Args::SdmaSetCpuToSdeMap(a) => check_room(c, a.sde),
        _ => Ok(()),
    }
}

/// `sdma_set_cpu_to_sde_map()` writes `sde[ctr]` of a map of the engine's
/// VL on each CPU its `cpu_mask` lacks: such a map has room (the engine is
/// not among its at most 15 others, as the driver keeps it).
fn check_room(c: &Call, sde: u8) -> Result<(), String> {
    let w = &c.world;
    if w.sdma_map.is_none() {
        return Ok(());
    }
    let vl = w
        .sdma_engine_to_vl
        .get(usize::from(sde))
        .copied()
        .unwrap_or(0);
    let mine = c.engines.sde_cpu_mask.get(usize::from(sde)).0;
    match w
        .sdma_rht
        .iter()
        .find(|m| m.vl == vl && mine & (1 << m.cpu) == 0 && usize::from(m.ctr) >= MAP_SLOTS)
    {
        Some(m) => Err(format!(
            "world.sdma_rht: cpu {}'s map of vl {vl} has {} engines and not engine {sde}, whose cpu_mask lacks the CPU: no room to add it (map->sde[] has 16 slots)",
            m.cpu, m.ctr
        )),
        None => Ok(()),
    }
}

/// The user engine table is built from the world for the calls that look
/// it up, in blocks of the call's own: a later step of a scenario builds
/// no world, so none of them is one (the error names the step, from 1).
pub(super) fn check_user_sde_steps(then: &[Call]) -> Result<(), (usize, String)> {
    match then.iter().map(|s| s.func()).enumerate().find(|(_, f)| {
        matches!(
            f,
            Func::SdmaSelectUserEngine | Func::SdmaSeqfileDumpCpuList | Func::SdmaSetCpuToSdeMap
        )
    }) {
        Some((k, f)) => Err((
            k + 2,
            format!("{f} looks in the user engine table the world builds for a scenario's first step only"),
        )),
        None => Ok(()),
    }
}
