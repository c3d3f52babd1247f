//! sdma.c's probe of the engines: the ring size asked for
//! (`sdma_get_descq_cnt`), each engine's registers programmed
//! (`init_sdma_regs`, `set_sdma_integrity`), the LID checks updated when
//! the LMC changes (`sdma_update_lmc`), and a state's name
//! (`sdma_state_name`).

use super::check_enable::*;
use super::sdma_send::sdma_update_tail;
use super::sdma_state::{sdma_setlengen, state_name};
use super::types::{EngineIdx, Qp, SdmaState, World};
use super::{Journal, Undefined};

/// sdma.c's `SDMA_DESCQ_CNT`: the ring size when the one asked for will
/// not do.
const SDMA_DESCQ_CNT: u16 = 2048;

/// Mirrors `sdma_get_descq_cnt()` (sdma.c): `sdma_descq_cnt` (the
/// world's, or upstream's initializer, `SDMA_DESCQ_CNT`) as a `u16`; 0,
/// not a power of two, below 64 or past 32768: `SDMA_DESCQ_CNT`.
pub fn sdma_get_descq_cnt(w: &World) -> u16 {
    let param = if w.sdma_descq_cnt_set {
        w.sdma_descq_cnt
    } else {
        u32::from(SDMA_DESCQ_CNT)
    };
    let count = param as u16;
    if count == 0 || !count.is_power_of_two() || !(64..=32768).contains(&count) {
        return SDMA_DESCQ_CNT;
    }
    count
}

/// Mirrors `hfi1_pkt_base_sdma_integrity()` (hfi.h): none with
/// `HFI1_CAP_NO_INTEGRITY`; else the base checks, the PBC static rate
/// control one unless `HFI1_CAP_STATIC_RATE_CTRL`, and the job key check
/// unless the chip is an A step (`is_ax`, a boundary: a world's chip is
/// an A step unless it is a B step).
fn hfi1_pkt_base_sdma_integrity(w: &World) -> u64 {
    if w.cap_no_integrity {
        return 0;
    }
    let mut base = DISALLOW_BYPASS_BAD_PKT_LEN
        | DISALLOW_TOO_LONG_BYPASS_PACKETS
        | DISALLOW_TOO_LONG_IB_PACKETS
        | DISALLOW_BAD_PKT_LEN
        | DISALLOW_TOO_SMALL_BYPASS_PACKETS
        | DISALLOW_TOO_SMALL_IB_PACKETS
        | DISALLOW_RAW_IPV6
        | DISALLOW_RAW
        | CHECK_BYPASS_VL_MAPPING
        | CHECK_VL_MAPPING
        | CHECK_OPCODE
        | CHECK_SLID
        | CHECK_VL
        | CHECK_ENABLE;
    if !w.cap_static_rate_ctrl {
        base |= DISALLOW_PBC_STATIC_RATE_CONTROL;
    }
    if w.chip_bx {
        base |= CHECK_JOB_KEY;
    }
    base
}

/// Mirrors the static `set_sdma_integrity()` (sdma.c): the engine's
/// `SEND_DMA_CHECK_ENABLE` written with [`hfi1_pkt_base_sdma_integrity`].
pub fn set_sdma_integrity(w: &World, sde: EngineIdx, j: &mut Journal) {
    j.record(format!(
        "write_csr(SEND_DMA_CHECK_ENABLE[{}], 0x{:x})",
        sde.0,
        hfi1_pkt_base_sdma_integrity(w)
    ));
}

/// Where an engine's ring and its head in host memory are, and the
/// ring's size: what `init_sdma_regs()` programs.
#[derive(Clone, Copy)]
pub(crate) struct RingAt {
    /// `sde->descq_phys`.
    pub(crate) descq_phys: u64,
    /// `sde->head_phys`.
    pub(crate) head_phys: u64,
    /// `sde->descq_cnt`.
    pub(crate) descq_cnt: u16,
}

/// The world's engine `i` (the QP's): its ring and head where the world
/// puts them (c-shim/build.c: where `sdma_init()` would have allocated
/// them), its ring's size the QP's engine's.
fn world_ring(qp: &Qp, sde: EngineIdx) -> RingAt {
    RingAt {
        descq_phys: 0x1_0000_0000 + (u64::from(sde.0) << 16),
        head_phys: 0x2_0000_0000 + u64::from(sde.0) * 64,
        descq_cnt: qp.sde_descq_cnt,
    }
}

/// Mirrors the static `init_sdma_regs()` (sdma.c): the engine's ring
/// address (`SEND_DMA_BASE_ADDR`), length and generation
/// (`sdma_setlengen`), tail 0, idle count (`SEND_DMA_RELOAD_CNT`), no
/// descriptor count, head address, SDMA memory (`credits` blocks from
/// `credits * index`, a `u32` product), every error unmasked, the
/// integrity checks (`set_sdma_integrity`) and no opcode check.
pub(crate) fn init_sdma_regs(
    w: &World,
    ring: RingAt,
    sde: EngineIdx,
    credits: u32,
    idle_cnt: u32,
    j: &mut Journal,
) {
    let i = sde.0;
    j.record(format!(
        "write_csr(SEND_DMA_BASE_ADDR[{i}], 0x{:x})",
        ring.descq_phys
    ));
    sdma_setlengen(ring.descq_cnt, sde, j);
    sdma_update_tail(sde, 0, j);
    j.record(format!(
        "write_csr(SEND_DMA_RELOAD_CNT[{i}], 0x{idle_cnt:x})"
    ));
    j.record(format!("write_csr(SEND_DMA_DESC_CNT[{i}], 0x0)"));
    j.record(format!(
        "write_csr(SEND_DMA_HEAD_ADDR[{i}], 0x{:x})",
        ring.head_phys
    ));
    let memory = u64::from(credits) << 16 | u64::from(credits.wrapping_mul(u32::from(i)));
    j.record(format!("write_csr(SEND_DMA_MEMORY[{i}], 0x{memory:x})"));
    j.record(format!(
        "write_csr(SEND_DMA_ENG_ERR_MASK[{i}], 0x{:x})",
        u64::MAX
    ));
    set_sdma_integrity(w, sde, j);
    j.record(format!("write_csr(SEND_DMA_CHECK_OPCODE[{i}], 0x0)"));
}

/// Mirrors `sdma_update_lmc()` (sdma.c): the SLID check (the mask's low
/// 16 bits at 16, the LID under the mask's at 0) written to every
/// engine's `SEND_DMA_CHECK_SLID`, each with its debug trace
/// (`hfi1_cdbg(LINKVERB, ...)`, the value as a `u32`).
pub fn sdma_update_lmc(w: &World, mask: u64, lid: u32, j: &mut Journal) {
    let sreg = (mask & 0xffff) << 16 | (u64::from(lid) & mask & 0xffff);
    for i in 0..w.sdma_cpus.len() {
        j.record(format!(
            "hfi1_cdbg(LINKVERB) sdma_update_lmc: SendDmaEngine[{i}].SLID_CHECK = 0x{:x}",
            sreg as u32
        ));
        j.record(format!("write_csr(SEND_DMA_CHECK_SLID[{i}], 0x{sreg:x})"));
    }
}

/// Mirrors the static `sdma_wait_for_packet_egress()` (sdma.c): the
/// engine's `SEND_EGRESS_SEND_DMA_STATUS` (8 bytes an engine) polled
/// until its packet occupancy (bits 0-13) is 0; a count unchanged from
/// one poll to the next over 500 times bounces the link (its work queued)
/// and gives up; a microsecond between polls. The world gives a register
/// one value a call: the first poll reads (and journals) it. `pause` is
/// not read.
pub fn sdma_wait_for_packet_egress(w: &World, sde: EngineIdx, j: &mut Journal) {
    let i = usize::from(sde.0);
    let (mut reg, mut lcnt) = (0u64, 0u32);
    let mut status = None;
    loop {
        let reg_prev = reg;
        reg = *status.get_or_insert_with(|| {
            j.read_csr(format_args!("SEND_EGRESS_SEND_DMA_STATUS[{i}]"));
            w.sde_egress_csr.get(i)
        }) & 0x3fff;
        if reg == 0 {
            break;
        }
        if reg != reg_prev {
            lcnt = 0;
        }
        let timed_out = lcnt > 500;
        lcnt += 1;
        if timed_out {
            j.record("queue_work_on(64, wq:link, link-bounce-work)".into());
            break;
        }
        j.udelay(1);
    }
}

/// Mirrors `sdma_wait()` (sdma.c): [`sdma_wait_for_packet_egress`] of
/// every engine of the device, in order.
pub fn sdma_wait(w: &World, j: &mut Journal) {
    for i in 0..w.sdma_cpus.len() {
        sdma_wait_for_packet_egress(w, EngineIdx(i as u8), j);
    }
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::SdmaGetDescqCnt {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = i32::from(sdma_get_descq_cnt(cx.w));
        Ok(())
    }
}

/// The QP's engine, which the call runs on (an invariant: it has one).
fn qp_engine(qp: &Qp) -> Result<EngineIdx, Undefined> {
    qp.s_sde
        .ok_or_else(|| Undefined("the call runs on the QP's engine, and qp.s_sde is NULL".into()))
}

impl crate::Mirror for super::types::args::SetSdmaIntegrity {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        set_sdma_integrity(cx.w, qp_engine(&cx.qp)?, &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::InitSdmaRegs {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let sde = qp_engine(&cx.qp)?;
        let ring = world_ring(&cx.qp, sde);
        init_sdma_regs(cx.w, ring, sde, self.credits, self.idle_cnt, &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::SdmaUpdateLmc {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sdma_update_lmc(cx.w, self.mask, self.lid, &mut cx.j);
        Ok(())
    }
}

/// Mirrors the static `sdma_state_name()` (sdma.c): the state's entry of
/// `sdma_state_names[]`.
pub fn sdma_state_name(state: SdmaState) -> &'static str {
    state_name(state)
}

impl crate::Mirror for super::types::args::SdmaStateName {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.text = sdma_state_name(self.state).into();
        Ok(())
    }
}

impl crate::Mirror for super::types::args::SdmaWaitForPacketEgress {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sdma_wait_for_packet_egress(cx.w, qp_engine(&cx.qp)?, &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::SdmaWait {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sdma_wait(cx.w, &mut cx.j);
        Ok(())
    }
}
