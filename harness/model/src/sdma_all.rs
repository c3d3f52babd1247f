//! sdma.c's calls that step the state machine of every engine of the
//! device at once (`sdma_start`, `sdma_all_running`, `sdma_exit`,
//! `sdma_freeze_notify`, `sdma_freeze`, `sdma_unfreeze`), each engine on
//! its own ring.
//!
//! Every engine of a world starts with the world's ring (the QP's fields
//! `sde_*`); the QP's engine has the tx ring, flush list and descriptors
//! the world gives, the others none (c-shim/build.c). The QP's engine's
//! ring is read back with the QP, each other engine's as the call left
//! it is the text (c-shim/engine_calls.c).

use std::fmt::Write;

use super::iowait::dmawait;
use super::sdma_state::{sdma_kref, sdma_process_event};
use super::types::{
    DescqEntry, DmaTx, EngineIdx, Engines, Qp, SdmaEvent, Slots, World, MAX_DESCQ, MAX_DMA_TX,
};
use super::{Journal, Undefined};

/// An engine's ring as the QP's fields hold the QP's engine's.
#[derive(Clone)]
struct Ring {
    descq_cnt: u16,
    descq_head: u32,
    descq_tail: u32,
    desc_avail: u16,
    head_seq: u32,
    head_dma: u64,
    tx_head: u16,
    tx_ring: Slots<DmaTx, MAX_DMA_TX>,
    tx_tail: u16,
    flushlist: Slots<DmaTx, MAX_DMA_TX>,
    descq: Slots<DescqEntry, MAX_DESCQ>,
    descq_full_count: u32,
}

impl Ring {
    /// The ring the QP's fields hold.
    fn of(qp: &Qp) -> Ring {
        Ring {
            descq_cnt: qp.sde_descq_cnt,
            descq_head: qp.sde_descq_head,
            descq_tail: qp.sde_descq_tail,
            desc_avail: qp.sde_desc_avail,
            head_seq: qp.sde_head_seq,
            head_dma: qp.sde_head_dma,
            tx_head: qp.sde_tx_head,
            tx_ring: qp.sde_tx_ring,
            tx_tail: qp.sde_tx_tail,
            flushlist: qp.sde_flushlist,
            descq: qp.sde_descq,
            descq_full_count: qp.sde_descq_full_count,
        }
    }

    /// Puts the ring in the QP's fields.
    fn put(self, qp: &mut Qp) {
        qp.sde_descq_cnt = self.descq_cnt;
        qp.sde_descq_head = self.descq_head;
        qp.sde_descq_tail = self.descq_tail;
        qp.sde_desc_avail = self.desc_avail;
        qp.sde_head_seq = self.head_seq;
        qp.sde_head_dma = self.head_dma;
        qp.sde_tx_head = self.tx_head;
        qp.sde_tx_ring = self.tx_ring;
        qp.sde_tx_tail = self.tx_tail;
        qp.sde_flushlist = self.flushlist;
        qp.sde_descq = self.descq;
        qp.sde_descq_full_count = self.descq_full_count;
    }

    /// Another engine's ring as the world builds it: the world's, with no
    /// tx request, nothing to flush and no descriptors.
    fn other(init: &Qp) -> Ring {
        Ring {
            tx_head: 0,
            tx_ring: Slots::new(),
            tx_tail: 0,
            flushlist: Slots::new(),
            descq: Slots::new(),
            ..Ring::of(init)
        }
    }
}

/// The device's engines, each stepped by [`every_engine`]: the QP's on
/// the QP's ring, each other one on its own, kept here for the text.
struct Device<'a> {
    w: &'a World,
    rings: Vec<Ring>,
}

impl<'a> Device<'a> {
    /// The world's engines, each other engine's ring the world's.
    fn new(w: &'a World, init: &Qp) -> Self {
        Device {
            w,
            rings: vec![Ring::other(init); w.sdma_cpus.len()],
        }
    }

    /// Runs `f` on engine `sde`: on the QP's, the QP's ring; on another,
    /// its own ring, put in the QP's fields while `f` runs.
    fn on(
        &mut self,
        qp: &mut Qp,
        sde: EngineIdx,
        f: impl FnOnce(&mut Qp) -> Result<(), Undefined>,
    ) -> Result<(), Undefined> {
        if qp.s_sde == Some(sde) {
            return f(qp);
        }
        let i = usize::from(sde.0);
        let own = Ring::of(qp);
        self.rings[i].clone().put(qp);
        let r = f(qp);
        self.rings[i] = Ring::of(qp);
        own.put(qp);
        r
    }

    /// The text: each engine but the QP's, its ring as the call left it
    /// and the iowaits on its dmawait list.
    fn text(&self, qp: &Qp) -> String {
        let mut s = String::new();
        for (i, r) in self.rings.iter().enumerate() {
            let sde = EngineIdx(i as u8);
            if qp.s_sde == Some(sde) {
                continue;
            }
            let _ = write!(
                s,
                "{}sde#{i}: head={} tail={} avail={} seq={} head_dma=0x{:x} full={} tx={}/{} \
                 flushlist={} dmawait={}",
                if s.is_empty() { "" } else { " " },
                r.descq_head,
                r.descq_tail,
                r.desc_avail,
                r.head_seq,
                r.head_dma,
                r.descq_full_count,
                r.tx_head,
                r.tx_tail,
                if r.flushlist.is_empty() {
                    "empty"
                } else {
                    "not-empty"
                },
                dmawait(qp, sde).len(),
            );
        }
        s
    }
}

/// `sdma_process_event(sde, event)` for every engine of the device, in
/// order (the loop of `sdma_start()` and kin).
fn every_engine(
    d: &mut Device<'_>,
    qp: &mut Qp,
    e: &mut Engines,
    event: SdmaEvent,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let w = d.w;
    for i in 0..w.sdma_cpus.len() {
        let sde = EngineIdx(i as u8);
        d.on(qp, sde, |qp| sdma_process_event(w, qp, e, sde, event, j))?;
    }
    Ok(())
}

/// Mirrors the static `sdma_finalput()` (sdma.c): the state machine's
/// reference dropped (`sdma_put`), then its completion waited for, which
/// in a world of one thread is done or never will be (kcompat's
/// `wait_for_completion` warns then).
fn sdma_finalput(e: &mut Engines, sde: EngineIdx, j: &mut Journal) -> Result<(), Undefined> {
    sdma_kref(e, sde, false)?;
    if e.sde_comp_done.get(usize::from(sde.0)) == 0 {
        j.record("WARN(!(&ss->comp)->done)".into());
    }
    Ok(())
}

/// Mirrors `sdma_exit()` (sdma.c): for every engine, a non-empty dmawait
/// list complained of (printing only), `e00_go_hw_down`, its progress
/// check timer waited for (`del_timer_sync`), [`sdma_finalput`].
fn sdma_exit(
    d: &mut Device<'_>,
    qp: &mut Qp,
    e: &mut Engines,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let w = d.w;
    for i in 0..w.sdma_cpus.len() {
        let sde = EngineIdx(i as u8);
        d.on(qp, sde, |qp| {
            sdma_process_event(w, qp, e, sde, SdmaEvent::E00GoHwDown, j)?;
            j.record(format!("del_timer_sync(sde#{i}.err_progress_check_timer)"));
            sdma_finalput(e, sde, j)
        })?;
    }
    Ok(())
}

/// `wait_event_interruptible(dd->sdma_unfreeze_wq, count <= 0)`: done
/// when the count is at most 0; else nothing could wake it (recorded) and
/// it ends as a signal would: whether it was interrupted.
fn wait_unfreeze(qp: &Qp, j: &mut Journal) -> bool {
    if qp.sdma_unfreeze_count <= 0 {
        return false;
    }
    j.record("wait_event(sdma-unfreeze-wq): sleeps forever".into());
    true
}

/// Mirrors `sdma_freeze()` (sdma.c): the wait for every engine to have
/// left running ([`wait_unfreeze`]); interrupted, or the count below 0
/// (unloading), nothing more; else the count set to the engines,
/// `e81_hw_frozen` for every engine, and the wait for their clean-up.
fn sdma_freeze(
    d: &mut Device<'_>,
    qp: &mut Qp,
    e: &mut Engines,
    j: &mut Journal,
) -> Result<(), Undefined> {
    if wait_unfreeze(qp, j) || qp.sdma_unfreeze_count < 0 {
        return Ok(());
    }
    qp.sdma_unfreeze_count = d.w.sdma_cpus.len() as i32;
    every_engine(d, qp, e, SdmaEvent::E81HwFrozen, j)?;
    wait_unfreeze(qp, j);
    Ok(())
}

/// Runs `f` on the call's device and puts the other engines' rings in the
/// text.
fn on_device(
    cx: &mut crate::Cx<'_>,
    f: impl FnOnce(&mut Device<'_>, &mut Qp, &mut Engines, &mut Journal) -> Result<(), Undefined>,
) -> Result<(), Undefined> {
    let mut d = Device::new(cx.w, &cx.qp);
    let qp = cx.qp.to_mut();
    f(&mut d, qp, cx.engines.to_mut(), &mut cx.j)?;
    cx.out.text = d.text(qp);
    Ok(())
}

impl crate::Mirror for super::types::args::SdmaStart {
    /// Mirrors `sdma_start()` (sdma.c): `e10_go_hw_start` for every engine.
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        on_device(cx, |d, qp, e, j| {
            every_engine(d, qp, e, SdmaEvent::E10GoHwStart, j)
        })
    }
}

impl crate::Mirror for super::types::args::SdmaAllRunning {
    /// Mirrors `sdma_all_running()` (sdma.c): `e30_go_running` for every
    /// engine.
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        on_device(cx, |d, qp, e, j| {
            every_engine(d, qp, e, SdmaEvent::E30GoRunning, j)
        })
    }
}

impl crate::Mirror for super::types::args::SdmaAllIdle {
    /// Mirrors `sdma_all_idle()` (sdma.c, up to 6.12): `e70_go_idle` for
    /// every engine.
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        on_device(cx, |d, qp, e, j| {
            every_engine(d, qp, e, SdmaEvent::E70GoIdle, j)
        })
    }
}

impl crate::Mirror for super::types::args::SdmaExit {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        on_device(cx, sdma_exit)
    }
}

impl crate::Mirror for super::types::args::SdmaFreezeNotify {
    /// Mirrors `sdma_freeze_notify()` (sdma.c): the freeze count set to
    /// the engines, then `e85_link_down` with `link_down`, else
    /// `e80_hw_freeze`, for every engine.
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let event = if self.link_down != 0 {
            SdmaEvent::E85LinkDown
        } else {
            SdmaEvent::E80HwFreeze
        };
        on_device(cx, |d, qp, e, j| {
            qp.sdma_unfreeze_count = d.w.sdma_cpus.len() as i32;
            every_engine(d, qp, e, event, j)
        })
    }
}

impl crate::Mirror for super::types::args::SdmaFreeze {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        on_device(cx, sdma_freeze)
    }
}

impl crate::Mirror for super::types::args::SdmaUnfreeze {
    /// Mirrors `sdma_unfreeze()` (sdma.c): `e82_hw_unfreeze` for every
    /// engine.
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        on_device(cx, |d, qp, e, j| {
            every_engine(d, qp, e, SdmaEvent::E82HwUnfreeze, j)
        })
    }
}
