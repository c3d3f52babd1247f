//! sdma.c's probe of the send engines (`sdma_init`) and its teardown
//! (`sdma_clean`), on error paths and as the driver's removal calls it:
//! what `dd` and its new engines hold after each, described as the C world
//! describes them (`c-shim/sdma_probe.c`).

use std::fmt::Write;

use super::alloc::{dma_handle, Allocs, ENOMEM, NUMA_NO_NODE};
use super::sdma_init::{init_sdma_regs, sdma_get_descq_cnt, RingAt};
use super::sdma_state::sdma_set_state;
use super::types::{DevFlag, EngineIdx, Engines, Flags, Qp, SdmaState, VlMap, World};
use super::vl_map::{build_sdma_map, describe, free_lines, world_elems, Built};
use super::{Journal, Undefined};

/// `TXE_NUM_SDMA_ENGINES` (chip.h).
const TXE_NUM_SDMA_ENGINES: u32 = 16;
/// `SDMA_BLOCK_SIZE` (chip.h): bytes of SDMA memory a credit.
const SDMA_BLOCK_SIZE: u64 = 64;
/// `L1_CACHE_BYTES` (x86-64): each engine's head in host memory.
const L1_CACHE_BYTES: u64 = 64;
/// `SDMA_PAD` (sdma.c): `max(MAX_16B_PADDING, sizeof(u32))`.
const SDMA_PAD: u64 = 12;
/// `SDMA_DESC1_HEAD_TO_HOST_FLAG`, `SDMA_DESC1_INT_REQ_FLAG` (sdma.h).
const DESC1_HEAD_TO_HOST: u64 = 1 << 0;
const DESC1_INT_REQ: u64 = 1 << 1;
/// The engine's AHG entries at probe (sdma.c: "insure there is always a
/// zero bit").
const AHG_BITS: u64 = 0xffff_fffe_0000_0000;
/// Upstream's initializer of the module parameter `sdma_idle_cnt`.
const SDMA_IDLE_CNT: u32 = 250;

/// The map `dd->sdma_map` publishes.
enum Published {
    /// None.
    Null,
    /// The world's (its copy in blocks: c-shim/vl_maps.c).
    World,
    /// The one the probe built.
    New(Built),
}

/// What `dd` holds of the probe's, as the call goes.
struct Dd {
    num_sdma: u32,
    flags: Flags<DevFlag>,
    default_desc1: u64,
    cap_sdma_ahg: bool,
    /// `dd->per_sdma`: the engines allocated (`kcalloc_node`), or NULL.
    per_sdma: Option<u32>,
    /// Each engine's ring (`descq`) and tx ring allocated.
    rings: Vec<(bool, bool)>,
    /// `dd->sdma_heads_dma` (its size), `sdma_heads_phys` and
    /// `sdma_heads_size` (which the teardown leaves).
    heads: Option<u64>,
    heads_size: u64,
    heads_phys: u64,
    /// `dd->sdma_pad_dma` and `sdma_pad_phys`.
    pad: bool,
    pad_phys: u64,
    /// `dd->sdma_rht`.
    rht: bool,
    map: Published,
    descq_cnt: u16,
    /// Each engine's state machine as `sdma_set_state()` left it (entry
    /// `i` of the `i`-th record).
    states: Vec<Engines>,
    /// The device's node (`dd->pcidev->dev`'s), where DMA memory is.
    dev_node: i32,
}

/// The engines the probe makes: the chip's (`SEND_DMA_ENGINES`), or the
/// module parameter `num_sdma` when it is set, at most the chip's and at
/// least the module parameter `num_vls`.
fn num_engines(w: &World, j: &mut Journal) -> u32 {
    j.read_csr(format_args!("SEND_DMA_ENGINES"));
    let chip = u32::from(w.chip_sdma_engines);
    let m = if w.mod_num_sdma_set {
        w.mod_num_sdma
    } else {
        0
    };
    if m != 0 && m <= chip && m >= w.num_vls {
        m
    } else {
        chip
    }
}

/// Mirrors `sdma_clean()` (sdma.c): the pad and the head memory freed
/// (`dma_free_coherent`), each of the first `num_engines` engines' ring
/// freed and its tx ring (`kvfree`), the published map freed
/// (`sdma_map_free`, then a grace period) and NULL, the engines' array
/// freed, the per-CPU table destroyed (empty) and freed.
fn sdma_clean(dd: &mut Dd, w: &World, num_engines: u32, j: &mut Journal) {
    let handle = |size: u64| dma_handle(dd.dev_node, size);
    if dd.pad {
        j.record(format!(
            "dma_free_coherent({SDMA_PAD}, 0x{:x})",
            handle(SDMA_PAD)
        ));
        dd.pad = false;
        dd.pad_phys = 0;
    }
    if let Some(size) = dd.heads.take() {
        j.record(format!("dma_free_coherent({size}, 0x{:x})", handle(size)));
        dd.heads_phys = 0;
    }
    if dd.per_sdma.is_some() {
        let descq_bytes = u64::from(dd.descq_cnt) * 16;
        for (descq, tx_ring) in dd.rings.iter_mut().take(num_engines as usize) {
            if std::mem::take(descq) {
                j.record(format!(
                    "dma_free_coherent({descq_bytes}, 0x{:x})",
                    handle(descq_bytes)
                ));
            }
            if std::mem::take(tx_ring) {
                j.record("kfree".into());
            }
        }
    }
    match std::mem::replace(&mut dd.map, Published::Null) {
        Published::Null => {}
        Published::World => {
            if let Some(m) = w.sdma_map.as_ref() {
                free_lines(world_elems(m), j);
            }
        }
        Published::New(m) => free_lines(m.own(), j),
    }
    if dd.per_sdma.take().is_some() {
        j.record("kfree".into());
    }
    if std::mem::take(&mut dd.rht) {
        j.record("kfree".into());
    }
}

/// Mirrors `sdma_init()` (sdma.c) up to its return: see
/// [`Func::SdmaInit`](crate::types::Func::SdmaInit). Each engine's state
/// set to `s00_hw_down` (`sdma_set_state`: traced, its send control
/// written), its reference count 1. Returns what the probe returns and
/// whether it replaced the world's map (freed as the call returns).
fn probe(w: &World, qp: &mut Qp, dd: &mut Dd, j: &mut Journal) -> Result<(i32, bool), Undefined> {
    let chip_engines = num_engines(w, j);
    if !w.cap_sdma {
        dd.cap_sdma_ahg = false;
        return Ok((0, false));
    }
    let n = chip_engines;
    j.read_csr(format_args!("SEND_DMA_MEM_SIZE"));
    let credits = (u64::from(w.chip_sdma_mem_size) / (u64::from(n) * SDMA_BLOCK_SIZE)) as u32;
    qp.sdma_unfreeze_count = 0;
    dd.descq_cnt = sdma_get_descq_cnt(w);
    let mut a = Allocs::new(w);
    if !a.kmalloc(w.node, j) {
        return Ok((-ENOMEM, false));
    }
    dd.per_sdma = Some(n);
    dd.rings = vec![(false, false); n as usize];
    let idle_ns = if w.sdma_idle_cnt_set {
        w.sdma_idle_cnt
    } else {
        SDMA_IDLE_CNT
    };
    j.record(format!("ns_to_cclock({idle_ns})"));
    let idle_cnt = w.ns_to_cclock;
    dd.default_desc1 = if idle_cnt != 0 {
        DESC1_HEAD_TO_HOST
    } else {
        DESC1_INT_REQ
    };
    let descq_bytes = u64::from(dd.descq_cnt) * 16;
    for i in 0..n {
        let mut state = Engines::blank();
        let sde = EngineIdx(i as u8);
        sdma_set_state(w, qp, &mut state, sde, SdmaState::S00HwDown, j)?;
        dd.states.push(state);
        if !a.dma_alloc_coherent(dd.dev_node, descq_bytes as usize, j) {
            sdma_clean(dd, w, n, j);
            return Ok((-ENOMEM, false));
        }
        dd.rings[i as usize].0 = true;
        if !a.kmalloc(w.node, j) {
            sdma_clean(dd, w, n, j);
            return Ok((-ENOMEM, false));
        }
        dd.rings[i as usize].1 = true;
    }
    let heads_size = L1_CACHE_BYTES * u64::from(n);
    dd.heads_size = heads_size;
    if !a.dma_alloc_coherent(dd.dev_node, heads_size as usize, j) {
        sdma_clean(dd, w, n, j);
        return Ok((-ENOMEM, false));
    }
    dd.heads = Some(heads_size);
    dd.heads_phys = dma_handle(dd.dev_node, heads_size);
    if !a.dma_alloc_coherent(dd.dev_node, SDMA_PAD as usize, j) {
        sdma_clean(dd, w, n, j);
        return Ok((-ENOMEM, false));
    }
    dd.pad = true;
    dd.pad_phys = dma_handle(dd.dev_node, SDMA_PAD);
    for i in 0..n {
        let ring = RingAt {
            descq_phys: dma_handle(dd.dev_node, descq_bytes),
            head_phys: dd.heads_phys.wrapping_add(u64::from(i) * L1_CACHE_BYTES),
            descq_cnt: dd.descq_cnt,
        };
        init_sdma_regs(w, ring, EngineIdx(i as u8), credits, idle_cnt, j);
    }
    dd.flags.insert(DevFlag::HasSendDma);
    if idle_cnt != 0 {
        dd.flags.insert(DevFlag::HasSdmaTimeout);
    }
    dd.num_sdma = n;
    let Some(m) = build_sdma_map(&mut a, n, w.vls_operational, &[], j)? else {
        sdma_clean(dd, w, n, j);
        return Ok((-ENOMEM, false));
    };
    let replaced = matches!(dd.map, Published::World);
    if replaced {
        j.record("call_rcu(sdma_map.list)".into());
    }
    dd.map = Published::New(m);
    if !a.kmalloc(NUMA_NO_NODE, j) {
        sdma_clean(dd, w, n, j);
        return Ok((-ENOMEM, replaced));
    }
    dd.rht = true;
    Ok((0, replaced))
}

/// One new engine as c-shim/sdma_probe.c describes it: every field
/// `sdma_init()` set.
fn put_engine(s: &mut String, dd: &Dd, i: u32, port: u8) {
    let ix = i as usize;
    let Some(scratch) = dd.states.get(ix) else {
        return;
    };
    let cnt = dd.descq_cnt;
    let shift = cnt.trailing_zeros();
    let (int, progress, idle) = (1u64 << i, 1u64 << (16 + i), 1u64 << (32 + i));
    let _ = write!(
        s,
        " sde#{i}: dd=dd ppd=pport[{port}] this_idx={i} descq_cnt={cnt} desc_avail={} \
         shift={shift} mask=0x{:x} int_mask=0x{int:x} progress_mask=0x{progress:x} \
         idle_mask=0x{idle:x} imask=0x{:x} ahg_bits=0x{AHG_BITS:x}",
        cnt.wrapping_sub(1),
        (1u32 << shift) - 1,
        int | progress | idle,
    );
    let _ = write!(
        s,
        " state={} prev={} op=0x{:x} prev_op=0x{:x} go={} kref=1 done=0 ctrl=0x{:x} \
         tail_csr=SEND_DMA_TAIL[{i}] check_head=0",
        scratch.sde_state.get(ix).name(),
        scratch.sde_previous_state.get(ix).name(),
        scratch.sde_current_op.get(ix),
        scratch.sde_previous_op.get(ix),
        scratch.sde_go_s99_running.get(ix),
        scratch.sde_p_senddmactrl.get(ix),
    );
    let descq_bytes = u64::from(cnt) * 16;
    let _ = write!(
        s,
        " descq={descq_bytes}@0x{:x} tx_ring={} head=heads+{} head_phys=0x{:x} timer_flags=0x0 \
         lists=empty tasks=hswft",
        dma_handle(dd.dev_node, descq_bytes),
        u64::from(cnt) * 8,
        u64::from(i) * L1_CACHE_BYTES,
        dd.heads_phys.wrapping_add(u64::from(i) * L1_CACHE_BYTES),
    );
}

/// The text c-shim/sdma_probe.c writes of `dd` after the probe (`when`:
/// "probe") or the teardown.
fn put_dd(s: &mut String, w: &World, dd: &Dd, when: &str, port: u8) {
    let _ = write!(
        s,
        "{when}: num_sdma={} flags=0x{:x} default_desc1=0x{:x} cap_sdma_ahg={}",
        dd.num_sdma,
        dd.flags.bits(),
        dd.default_desc1,
        i32::from(dd.cap_sdma_ahg),
    );
    match dd.heads {
        Some(size) => write!(s, " heads={size}@0x{:x}", dd.heads_phys),
        None => write!(s, " heads=NULL phys=0x{:x}", dd.heads_phys),
    }
    .ok();
    let _ = write!(s, " heads_size={}", dd.heads_size);
    if dd.pad {
        let _ = write!(s, " pad={SDMA_PAD}@0x{:x}", dd.pad_phys);
    } else {
        let _ = write!(s, " pad=NULL phys=0x{:x}", dd.pad_phys);
    }
    let _ = write!(s, " rht={}", if dd.rht { "set" } else { "NULL" });
    match dd.per_sdma {
        None => s.push_str(" per_sdma=NULL"),
        Some(n) => {
            let _ = write!(s, " per_sdma={n} engines");
            for i in 0..n {
                put_engine(s, dd, i, port);
            }
        }
    }
    s.push(' ');
    let world = w.sdma_map.as_ref();
    s.push_str(&match &dd.map {
        Published::Null => describe("sdma_map", None, None::<&VlMap<EngineIdx>>),
        Published::World => describe("sdma_map", None, world),
        Published::New(m) => describe("sdma_map", Some(m), world),
    });
    s.push(';');
}

/// Mirrors `sdma_init(dd, port)` (sdma.c) on a device with no engines
/// yet, then, with `clean` and a probe that succeeded,
/// `sdma_clean(dd, dd->num_sdma)`; the world's map it replaced freed as
/// the call returns (its RCU callback).
pub fn sdma_init(
    w: &World,
    qp: &mut Qp,
    port: u8,
    clean: bool,
    j: &mut Journal,
) -> Result<(i32, String), Undefined> {
    let mut dd = Dd {
        num_sdma: 0,
        flags: w.dev_flags,
        default_desc1: w.default_desc1,
        cap_sdma_ahg: w.cap_sdma_ahg,
        per_sdma: None,
        rings: vec![],
        heads: None,
        heads_size: 0,
        heads_phys: 0,
        pad: false,
        pad_phys: w.sdma_pad_phys,
        rht: false,
        map: if w.sdma_map.is_some() {
            Published::World
        } else {
            Published::Null
        },
        descq_cnt: 0,
        states: vec![],
        dev_node: qp.dev_node,
    };
    debug_assert!(u32::from(w.chip_sdma_engines) <= TXE_NUM_SDMA_ENGINES);
    let (ret, replaced) = probe(w, qp, &mut dd, j)?;
    let mut text = String::new();
    put_dd(&mut text, w, &dd, "probe", port);
    if clean && ret == 0 {
        let n = dd.num_sdma;
        sdma_clean(&mut dd, w, n, j);
        put_dd(&mut text, w, &dd, " teardown", port);
    }
    if replaced {
        if let Some(m) = w.sdma_map.as_ref() {
            free_lines(world_elems(m), j);
        }
    }
    Ok((ret, text))
}

impl crate::Mirror for super::types::args::SdmaInit {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (ret, text) = sdma_init(cx.w, cx.qp.to_mut(), self.port, self.clean, &mut cx.j)?;
        cx.out.ret = ret;
        cx.out.text = text;
        Ok(())
    }
}
