//! The inline TID RDMA precondition of tid_rdma.h.

use super::types::{Qp, Wqe, WrOpcode};
use super::{qp_name, Journal};

/// `TID_RDMA_MIN_SEGMENT_SIZE`: `BIT(18)`, 256 KiB.
pub const TID_RDMA_MIN_SEGMENT_SIZE: u32 = 1 << 18;

/// Mirrors `hfi1_setup_tid_rdma_wqe()` (tid_rdma.h): calls the boundary
/// `setup_tid_rdma_wqe()` only for a wqe with private data that is an RDMA
/// READ or WRITE of at least `TID_RDMA_MIN_SEGMENT_SIZE` bytes.
pub fn hfi1_setup_tid_rdma_wqe(qp: &Qp, wqe: &Wqe, j: &mut Journal) {
    if wqe.has_priv
        && matches!(wqe.opcode, WrOpcode::RdmaRead | WrOpcode::RdmaWrite)
        && wqe.length >= TID_RDMA_MIN_SEGMENT_SIZE
    {
        j.record(format!("setup_tid_rdma_wqe({}, wqe)", qp_name(qp)));
    }
}
