//! qp.c: work-request set-up and engine selection.

use super::hfi::port_sl_to_sc;
use super::pio::pio_select_send_context_sc;
use super::sdma::sdma_select_engine_sc;
use super::tid_rdma::hfi1_setup_tid_rdma_wqe;
use super::types::{DevFlag, EngineIdx, Ptr, Qp, QpType, Sc, SendCtxIdx, World, Wqe};
use super::{null_or, Journal, Undefined};

/// `-EINVAL`.
pub const EINVAL: i32 = 22;
/// `EAGAIN` (errno-base.h).
pub const EAGAIN: i32 = 11;
/// `EBUSY` (errno-base.h).
pub const EBUSY: i32 = 16;
/// `ECOMM` (errno.h): no link to the hardware (an engine or a send
/// context not running).
pub const ECOMM: i32 = 70;
/// `EIO` (errno.h).
pub const EIO: i32 = 5;
/// `ETIMEDOUT` (errno.h).
pub const ETIMEDOUT: i32 = 110;

/// Mirrors `hfi1_setup_wqe()` (qp.c).
///
/// RC first runs the TID RDMA precondition, then shares UC's checks: a
/// length above 2 GiB is invalid, one above the path MTU clears
/// `call_send`. SMI packets must fit VL15's MTU. GSI and UD packets must fit
/// the AH's MTU and their SL must not map to SC 0xf on the QP's port.
/// Finally, every valid request at or below `piothreshold` bytes is posted
/// at once (`call_send = true`); otherwise `call_send` keeps the value it
/// came with.
pub fn hfi1_setup_wqe(
    w: &World,
    qp: &Qp,
    wqe: &Wqe,
    call_send: &mut bool,
    j: &mut Journal,
) -> Result<i32, Undefined> {
    match qp.qp_type {
        QpType::Rc | QpType::Uc => {
            if qp.qp_type == QpType::Rc {
                hfi1_setup_tid_rdma_wqe(qp, wqe, j);
            }
            if wqe.length > 0x8000_0000 {
                return Ok(-EINVAL);
            }
            if wqe.length > u32::from(qp.pmtu) {
                *call_send = false;
            }
        }
        QpType::Smi => {
            if wqe.length > u32::from(w.vl_mtu[15]) {
                return Ok(-EINVAL);
            }
        }
        QpType::Gsi | QpType::Ud => {
            let ah = wqe
                .ah
                .ok_or_else(|| Undefined("a UD/GSI wqe without an AH is dereferenced".into()))?;
            if ah.log_pmtu >= 31 {
                return Err(Undefined(format!(
                    "1 << log_pmtu overflows an int for log_pmtu {}",
                    ah.log_pmtu
                )));
            }
            // `1 << ah->log_pmtu` is an int compared with a u32 length.
            if wqe.length > (1u32 << ah.log_pmtu) {
                return Ok(-EINVAL);
            }
            // to_iport() of the QP's port, not the AH's.
            let sl_to_sc = port_sl_to_sc(w, qp.port)?;
            let sc = *sl_to_sc
                .get(usize::from(ah.sl.0))
                .ok_or_else(|| Undefined(format!("sl_to_sc[{}] is out of bounds", ah.sl.0)))?;
            if sc == 0xf {
                return Ok(-EINVAL);
            }
        }
    }
    if wqe.length <= u32::from(w.piothreshold) {
        *call_send = true;
    }
    Ok(0)
}

/// The selector both engine maps are indexed with: `qp_num >> qos_shift`.
fn selector(w: &World, qp: &Qp) -> Result<u32, Undefined> {
    qp.num
        .checked_shr(u32::from(w.qos_shift))
        .ok_or_else(|| Undefined(format!("qp_num >> {} is undefined", w.qos_shift)))
}

/// Mirrors `qp_to_sdma_engine()` (qp.c): no engine without
/// `HFI1_HAS_SEND_DMA` or for SMI QPs; otherwise the engine the SDMA map
/// selects for the QP's number and the SC.
pub fn qp_to_sdma_engine(
    w: &World,
    qp: &Qp,
    sc5: Sc,
    j: &mut Journal,
) -> Result<Ptr<EngineIdx>, Undefined> {
    if !w.has(DevFlag::HasSendDma) {
        return Ok(Ptr::Null);
    }
    if qp.qp_type == QpType::Smi {
        return Ok(Ptr::Null);
    }
    sdma_select_engine_sc(w, selector(w, qp)?, sc5, j)
}

/// Mirrors `qp_to_send_context()` (qp.c): SMI QPs use VL15's send
/// context; others the context the PIO map selects.
pub fn qp_to_send_context(w: &World, qp: &Qp, sc5: Sc) -> Result<Ptr<SendCtxIdx>, Undefined> {
    if qp.qp_type == QpType::Smi {
        return Ok(null_or(w.vl_sc[15]));
    }
    pio_select_send_context_sc(w, selector(w, qp)?, sc5)
}

/// Mirrors `ah_to_sc()` (verbs.c): the SC the AH's SL maps to on the AH's
/// port.
pub fn ah_to_sc(w: &World, ah: &super::types::AttrAh) -> Result<u8, Undefined> {
    let t = super::hfi::port_sl_to_sc(w, u32::from(ah.port))?;
    t.get(usize::from(ah.sl))
        .copied()
        .ok_or_else(|| Undefined(format!("sl_to_sc[{}] is out of bounds", ah.sl)))
}

/// Mirrors `hfi1_check_modify_qp()` (qp.c): a new primary (`IB_QP_AV`) or
/// alternate (`IB_QP_ALT_PATH`) path must map to a valid SC that has a
/// send engine (when the device has send DMA) and a send context. An SMI
/// QP has no engine, so with send DMA any path is refused.
pub fn hfi1_check_modify_qp(
    w: &World,
    qp: &Qp,
    paths: &[Option<super::types::AttrAh>],
    j: &mut Journal,
) -> Result<i32, Undefined> {
    for ah in paths {
        let Some(ah) = ah else {
            continue;
        };
        let sc = ah_to_sc(w, ah)?;
        if sc == 0xf {
            return Ok(-EINVAL);
        }
        if qp_to_sdma_engine(w, qp, Sc(sc), j)? == Ptr::Null && w.has(DevFlag::HasSendDma) {
            return Ok(-EINVAL);
        }
        if qp_to_send_context(w, qp, Sc(sc))? == Ptr::Null {
            return Ok(-EINVAL);
        }
    }
    Ok(0)
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::SetupWqe {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let mut call_send = self.call_send;
        cx.out.ret = hfi1_setup_wqe(cx.w, &cx.qp, cx.wqe, &mut call_send, &mut cx.j)?;
        cx.out.call_send = call_send;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::QpToSdmaEngine {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.sdma_engine = qp_to_sdma_engine(cx.w, &cx.qp, self.sc5, &mut cx.j)?;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::QpToSendContext {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.send_context = qp_to_send_context(cx.w, &cx.qp, self.sc5)?;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::CheckModifyQp {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let paths = [self.attr_ah, self.attr_alt_ah];
        cx.out.ret = hfi1_check_modify_qp(cx.w, &cx.qp, &paths, &mut cx.j)?;
        Ok(())
    }
}
