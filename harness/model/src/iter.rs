//! qp.c: putting a port's QPs into the error state.

use super::flags::post_send_ok;
use super::hfi::port_sl_to_sc;
use super::types::{IterQp, QpType, World};
use super::{Journal, Undefined};

/// Mirrors the static `hfi1_qp_iter_cb()` (qp.c): an RC or UC QP on its
/// own port, with the given SL, in a state that may post sends, is moved
/// to the error state (`rvt_error_qp`); when that reports the last WQE,
/// the QP's event handler hears `IB_EVENT_QP_LAST_WQE_REACHED`.
pub fn hfi1_qp_iter_cb(w: &World, qp: &IterQp, sl: u8, j: &mut Journal) -> Result<(), Undefined> {
    // to_iport(qp->port_num): the port must exist; ppd->port is then
    // qp->port_num itself, so the first test never skips.
    port_sl_to_sc(w, qp.port)?;
    if !matches!(qp.qp_type, QpType::Uc | QpType::Rc)
        || qp.remote_sl != sl
        || !post_send_ok(qp.state)
    {
        return Ok(());
    }
    j.record(format!(
        "rvt_error_qp(qp#0x{:x}, IB_WC_WR_FLUSH_ERR)",
        qp.num
    ));
    if qp.error_qp_ret {
        j.record(format!(
            "event_handler(dd, qp#0x{:x}, IB_EVENT_QP_LAST_WQE_REACHED)",
            qp.num
        ));
    }
    Ok(())
}

/// Mirrors `hfi1_error_port_qps()` (qp.c): walks every QP of the device
/// (`rvt_qp_iter`, which the world walks in its listed order) with `sl`.
/// Whatever port `ibp` is, the callback filters by each QP's own port,
/// so QPs of every port are candidates.
pub fn hfi1_error_port_qps(
    w: &World,
    sl: u8,
    qps: &[IterQp],
    j: &mut Journal,
) -> Result<(), Undefined> {
    j.record(format!("rvt_qp_iter({sl})"));
    for qp in qps {
        hfi1_qp_iter_cb(w, qp, sl, j)?;
    }
    Ok(())
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::ErrorPortQps {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        // hfi1_error_port_qps(ibp, u8 sl)
        hfi1_error_port_qps(cx.w, self.sl as u8, &self.iter, &mut cx.j)
    }
}
