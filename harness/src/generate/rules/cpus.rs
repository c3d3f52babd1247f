//! CPUs: the device node's, each engine's, the per-CPU table of user
//! engines (`dd->sdma_rht`) and the engines' CPU masks, the calling task's
//! CPUs, and the arguments of the calls that read them.

use super::super::draw::{Draw, Source};
use super::super::shapes::{below, byte_pairs, low_index, per_index};
use crate::model::types::*;
use crate::model::user_sde::HFI1_MAX_VLS_SUPPORTED;

/// A node without CPUs one time in eight.
pub fn node_cpus<S: Source>(u: &mut Draw<S>, _: &World) -> CpuMask {
    CpuMask(if u.ratio(1, 8) { 0 } else { u.arbitrary() })
}

/// 1 to 16 engines, each on a CPU 0..63.
pub fn sdma_cpus<S: Source>(u: &mut Draw<S>, _: &World) -> Slots<i32, 16> {
    let mut s = Slots::new();
    let n = usize::from(u.int_in_range(1..=16u8));
    // A byte a CPU, eight a draw.
    let mut i = 0;
    while i < n {
        let k = (n - i).min(8);
        let w = u.bytes(k);
        for j in 0..k {
            let _ = s.push(i32::from(below((w >> (8 * j)) as u8, 64)));
        }
        i += k;
    }
    s
}

/// Seven times in eight: a probed device has its table.
pub fn sdma_rht_set<S: Source>(u: &mut Draw<S>, _: &World) -> bool {
    u.ratio(7, 8)
}

/// Up to four maps of CPUs 0..3 (so the task's CPU mostly has one), by
/// CPU then VL: each with up to the world's engines mapped, its mask
/// mostly `roundup_pow_of_two(ctr) - 1`, else any below 16; its slots
/// mostly engines up to the mask (copies past `ctr`, as
/// `sdma_populate_sde_map()` makes them), now and then NULL or any.
pub fn sdma_rht<S: Source>(u: &mut Draw<S>, w: &World) -> Slots<UserSdeMap, RHT_SLOTS> {
    let mut maps: Slots<UserSdeMap, RHT_SLOTS> = Slots::new();
    let engines = w.sdma_cpus.len();
    if !w.sdma_rht_set || engines == 0 {
        return maps;
    }
    for _ in 0..u.int_in_range(0..=4u8) {
        // Six bytes a map: where, how many (a case and a value), which
        // mask (a case and a value).
        let h = u.bytes(6);
        let byte = |k: u32| (h >> (8 * k)) as u8;
        let (cpu, vl) = (below(byte(0), 4), below(byte(1), 8));
        let ctr = if byte(2) < 32 {
            0
        } else {
            1 + below(byte(3), engines.min(MAP_SLOTS))
        };
        let pow = u32::from(ctr.max(1)).next_power_of_two();
        let mask = if byte(4) < 192 {
            pow - 1
        } else {
            u32::from(below(byte(5), MAP_SLOTS))
        };
        let mut m = UserSdeMap {
            cpu,
            vl,
            ctr,
            mask,
            ..UserSdeMap::default()
        };
        let filled = (pow as usize).max(usize::from(ctr)).min(MAP_SLOTS);
        let ctr = usize::from(ctr);
        // Two bytes a slot: which case (one in eight NULL, one in eight
        // any engine), which engine.
        byte_pairs(u, filled, |k, d, v| {
            let any = Some(below(v, engines));
            let e = match below(d, 8) {
                0 => None,
                1 => any,
                _ if k >= ctr && ctr > 0 => m.sde[k - ctr].get().map(|e| e.0),
                _ => any,
            };
            m.sde[k] = NullableIdx::new(e.map(EngineIdx)).unwrap_or_default();
        });
        // By CPU then VL, each once (a later draw of the same place lost).
        let at = maps
            .iter()
            .position(|x| (x.cpu, x.vl) >= (cpu, vl))
            .unwrap_or(maps.len());
        if maps.get(at).is_none_or(|x| (x.cpu, x.vl) != (cpu, vl)) && maps.push(m).is_ok() {
            maps[at..].rotate_right(1);
        }
    }
    maps
}

/// Each engine's VL: mostly one of the module's, one time in eight any
/// byte (8 and past: no VL a node has a map of).
pub fn sdma_engine_to_vl<S: Source>(u: &mut Draw<S>, w: &World) -> Slots<u8, 16> {
    let mut s = Slots::new();
    for _ in 0..w.sdma_cpus.len() {
        let vl = if u.ratio(7, 8) {
            below(u.arbitrary(), (w.num_vls as usize).clamp(1, 8))
        } else {
            u.arbitrary()
        };
        let _ = s.push(vl);
    }
    s
}

/// Mostly a task pinned to one CPU, else a few or every CPU.
pub fn nr_cpus_allowed<S: Source>(u: &mut Draw<S>, _: &World) -> i32 {
    if u.ratio(3, 4) {
        1
    } else {
        *u.choose(&[2, 4, 64])
    }
}

/// Mostly CPU 0..3 (those the table's maps are of), else any of the 64.
pub fn this_cpu<S: Source>(u: &mut Draw<S>, _: &World) -> u8 {
    if u.ratio(7, 8) {
        u.int_in_range(0..=3)
    } else {
        below(u.arbitrary(), 64)
    }
}

/// A few engines' CPU masks: mostly of CPUs 0..3, else any.
pub fn sde_cpu_mask<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<CpuMask, 16> {
    per_index(u, w.sdma_cpus.len(), |u| {
        CpuMask(if u.ratio(3, 4) {
            u.int_in_range(1..=15)
        } else {
            u.arbitrary()
        })
    })
}

/// An engine of the world.
pub fn world_sde<S: Source, R>(u: &mut Draw<S>, w: &World, _: &Qp, _: &R) -> u8 {
    low_index(u, w.sdma_cpus.len().max(1))
}

/// A VL of a node's maps when the pinned task's CPU has a node (past them
/// is undefined), else also past the module's VLs.
pub fn user_vl<S: Source, R>(u: &mut Draw<S>, w: &World, _: &Qp, _: &R) -> Vl {
    let node = w.nr_cpus_allowed == 1 && w.sdma_rht.iter().any(|m| m.cpu == w.this_cpu);
    Vl(if node || u.ratio(3, 4) {
        u.int_in_range(0..=HFI1_MAX_VLS_SUPPORTED - 1)
    } else {
        u.arbitrary()
    })
}

/// Mostly a CPU the table's maps are of, else any `unsigned long`.
pub fn cpuid<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u64 {
    if u.ratio(7, 8) {
        u.int_in_range(0..=4)
    } else {
        u.arbitrary()
    }
}

/// Mostly CPUs 0..3 (the default), else any of the 64 (never none: CPU 0
/// boots).
pub fn cpu_online<S: Source>(u: &mut Draw<S>, _: &World) -> CpuMask {
    CpuMask(if u.ratio(3, 4) {
        0xf
    } else {
        u.arbitrary::<u64>() | 1
    })
}

/// What a caller writes to an engine's `cpu_list`: mostly a list of CPUs
/// 0..5 as ranges and single CPUs, a newline after it (as `echo` writes
/// it); now and then a list lib/bitmap.c refuses or reads in another
/// form (a reversed range, past the 64 CPUs, not a number, `N`, `all`, a
/// group pattern, empty).
pub fn cpu_list_text<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> ShortText {
    let odd: [&[u8]; 10] = [
        b"3-1\n",
        b"0-64\n",
        b"x\n",
        b"N\n",
        b"all\n",
        b"0-5:1/2\n",
        b"",
        b"\n",
        b"1 3,,5\n",
        b"4294967296\n",
    ];
    if u.ratio(1, 4) {
        let pick: &&[u8] = u.choose(&odd);
        return ShortText::new(pick).unwrap_or_default();
    }
    let mask: u8 = u.arbitrary::<u8>() & 0x3f;
    let mut s = String::new();
    let mut cpu = 0;
    while cpu < 6 {
        if mask & (1 << cpu) == 0 {
            cpu += 1;
            continue;
        }
        let first = cpu;
        while cpu < 6 && mask & (1 << cpu) != 0 {
            cpu += 1;
        }
        if !s.is_empty() {
            s.push(',');
        }
        s += &if cpu - 1 > first && u.ratio(3, 4) {
            format!("{first}-{}", cpu - 1)
        } else {
            (first..cpu)
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
    }
    if u.ratio(3, 4) {
        s.push('\n');
    }
    ShortText::new(s.as_bytes()).unwrap_or_default()
}
