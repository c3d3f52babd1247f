//! Between the model's types and the shim ABI: a [`Call`] becomes a flat
//! `shim_call` (symbolic names as the shim's own enumerations, which the C
//! side maps to the tree's values), a `shim_outcome` becomes an
//! [`Outcome`].

use crate::ffi::*;
use crate::model::types::{
    Call, DevFlag, EngineIdx, Func, MapElem, Ptr, QpState, QpType, SendCtxIdx, VlMap, WrOpcode,
};
use crate::outcome::Outcome;

fn func(f: Func) -> u32 {
    match f {
        Func::SetupWqe => SHIM_FN_HFI1_SETUP_WQE,
        Func::QpToSdmaEngine => SHIM_FN_QP_TO_SDMA_ENGINE,
        Func::QpToSendContext => SHIM_FN_QP_TO_SEND_CONTEXT,
        Func::SdmaSelectEngineSc => SHIM_FN_SDMA_SELECT_ENGINE_SC,
        Func::SdmaSelectEngineVl => SHIM_FN_SDMA_SELECT_ENGINE_VL,
        Func::PioSelectSendContextSc => SHIM_FN_PIO_SELECT_SEND_CONTEXT_SC,
        Func::PioSelectSendContextVl => SHIM_FN_PIO_SELECT_SEND_CONTEXT_VL,
    }
}

fn dev_flag(f: DevFlag) -> u32 {
    match f {
        DevFlag::Initted => SHIM_HFI1_INITTED,
        DevFlag::Present => SHIM_HFI1_PRESENT,
        DevFlag::Frozen => SHIM_HFI1_FROZEN,
        DevFlag::HasSdmaTimeout => SHIM_HFI1_HAS_SDMA_TIMEOUT,
        DevFlag::HasSendDma => SHIM_HFI1_HAS_SEND_DMA,
        DevFlag::ForcedFreeze => SHIM_HFI1_FORCED_FREEZE,
        DevFlag::Shutdown => SHIM_HFI1_SHUTDOWN,
    }
}

fn qp_type(t: QpType) -> u32 {
    match t {
        QpType::Smi => SHIM_IB_QPT_SMI,
        QpType::Gsi => SHIM_IB_QPT_GSI,
        QpType::Rc => SHIM_IB_QPT_RC,
        QpType::Uc => SHIM_IB_QPT_UC,
        QpType::Ud => SHIM_IB_QPT_UD,
    }
}

fn qp_state(s: QpState) -> u32 {
    match s {
        QpState::Reset => SHIM_IB_QPS_RESET,
        QpState::Init => SHIM_IB_QPS_INIT,
        QpState::Rtr => SHIM_IB_QPS_RTR,
        QpState::Rts => SHIM_IB_QPS_RTS,
        QpState::Sqd => SHIM_IB_QPS_SQD,
        QpState::Sqe => SHIM_IB_QPS_SQE,
        QpState::Err => SHIM_IB_QPS_ERR,
    }
}

fn wr_opcode(o: WrOpcode) -> u32 {
    match o {
        WrOpcode::RdmaWrite => SHIM_IB_WR_RDMA_WRITE,
        WrOpcode::RdmaWriteWithImm => SHIM_IB_WR_RDMA_WRITE_WITH_IMM,
        WrOpcode::Send => SHIM_IB_WR_SEND,
        WrOpcode::SendWithImm => SHIM_IB_WR_SEND_WITH_IMM,
        WrOpcode::RdmaRead => SHIM_IB_WR_RDMA_READ,
        WrOpcode::AtomicCmpAndSwp => SHIM_IB_WR_ATOMIC_CMP_AND_SWP,
        WrOpcode::AtomicFetchAndAdd => SHIM_IB_WR_ATOMIC_FETCH_AND_ADD,
        WrOpcode::LocalInv => SHIM_IB_WR_LOCAL_INV,
        WrOpcode::SendWithInv => SHIM_IB_WR_SEND_WITH_INV,
        WrOpcode::RegMr => SHIM_IB_WR_REG_MR,
        WrOpcode::Opfn => SHIM_IB_WR_OPFN,
        WrOpcode::TidRdmaWrite => SHIM_IB_WR_TID_RDMA_WRITE,
        WrOpcode::TidRdmaRead => SHIM_IB_WR_TID_RDMA_READ,
    }
}

fn map<T: Copy>(m: &Option<VlMap<T>>, idx: impl Fn(T) -> u8) -> shim_map {
    let mut out = shim_map::default();
    let Some(m) = m else { return out };
    out.present = 1;
    out.mask = m.mask;
    out.nelems = m.elems.len().min(SHIM_MAP_MAX_ELEMS as usize) as u8;
    for (d, e) in out.elems.iter_mut().zip(&m.elems) {
        let Some(MapElem { mask, entries }) = e else {
            continue;
        };
        d.present = 1;
        d.mask = *mask;
        d.nentries = entries.len().min(SHIM_ELEM_MAX_ENTRIES as usize) as u8;
        for (de, se) in d.entries.iter_mut().zip(entries) {
            *de = se.map_or(SHIM_NONE as i16, |t| i16::from(idx(t)));
        }
    }
    out
}

/// The flat ABI form of a call. (A zeroed C struct filled field by field:
/// every byte, padding included, starts at zero.)
#[allow(clippy::field_reassign_with_default)]
pub fn to_shim(c: &Call) -> shim_call {
    let mut s = shim_call::default();
    s.fn_ = func(c.func);
    s.call_send = u8::from(c.call_send);
    s.sc5 = c.sc5.0;
    s.vl = c.vl.0;
    s.selector = c.selector;

    let w = &c.world;
    let sw = &mut s.world;
    sw.dev_flags = w.dev_flags.iter().fold(0, |a, f| a | (1 << dev_flag(*f)));
    sw.qos_shift = w.qos_shift;
    sw.num_vls = w.num_vls;
    sw.piothreshold = w.piothreshold;
    sw.node = w.node;
    sw.node_cpus = w.node_cpus;
    sw.sc_to_vl = w.sc_to_vl;
    sw.vl_mtu = w.vl_mtu;
    for (d, s) in sw.vl_sc.iter_mut().zip(&w.vl_sc) {
        *d = s.map_or(SHIM_NONE as i16, |i| i16::from(i.0));
    }
    sw.num_sdma = w.sdma_cpus.len().min(SHIM_MAX_SDMA as usize) as u8;
    for (d, cpu) in sw.sdma.iter_mut().zip(&w.sdma_cpus) {
        d.cpu = *cpu;
    }
    sw.num_send_contexts = w.num_send_contexts;
    for (i, d) in sw.send_contexts.iter_mut().enumerate() {
        d.sw_index = i as u8;
    }
    sw.sdma_map = map(&w.sdma_map, |e: EngineIdx| e.0);
    sw.pio_map = map(&w.pio_map, |s: SendCtxIdx| s.0);
    sw.num_pports = w.sl_to_sc.len().min(SHIM_MAX_PORTS as usize) as u8;
    for (d, t) in sw.ports.iter_mut().zip(&w.sl_to_sc) {
        d.sl_to_sc = *t;
    }

    s.qp.qp_type = qp_type(c.qp.qp_type);
    s.qp.qp_num = c.qp.num;
    s.qp.port_num = c.qp.port;
    s.qp.pmtu = c.qp.pmtu;
    s.qp.state = qp_state(c.qp.state);

    s.wqe.length = c.wqe.length;
    s.wqe.opcode = wr_opcode(c.wqe.opcode);
    s.wqe.has_priv = u8::from(c.wqe.has_priv);
    if let Some(ah) = c.wqe.ah {
        s.wqe.has_ah = 1;
        s.wqe.ah.log_pmtu = ah.log_pmtu;
        s.wqe.ah.sl = ah.sl.0;
        s.wqe.ah.port_num = ah.port;
    }
    s
}

fn ptr<T>(v: i16, f: impl Fn(u8) -> T) -> Ptr<T> {
    match v {
        v if v == SHIM_NONE as i16 => Ptr::Null,
        v if (0..=255).contains(&v) => Ptr::To(f(v as u8)),
        _ => Ptr::Foreign,
    }
}

/// The outcome the C world reported.
pub fn from_shim(o: &shim_outcome) -> Outcome {
    Outcome {
        ret: o.ret,
        call_send: o.call_send != 0,
        sdma_engine: ptr(o.sdma_engine, EngineIdx),
        send_context: ptr(o.send_context, SendCtxIdx),
        journal: o
            .journal_text()
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
    }
}
