//! qp.c's MTU helpers, with driver.c's mtu_to_enum and ib_verbs.h's enum
//! conversions.

use super::hfi::{port_sl_to_sc, sc_to_vlt};
use super::types::{Qp, Sc, World};
use super::{at, Undefined};

/// `OPA_MTU_8192`.
pub const OPA_MTU_8192: i32 = 6;
/// `OPA_MTU_10240`.
pub const OPA_MTU_10240: i32 = 7;
/// `IB_MTU_2048`.
pub const IB_MTU_2048: i32 = 4;

/// Mirrors `mtu_to_enum()` (driver.c): a byte count to its OPA MTU enum,
/// or `default_if_bad`.
pub fn mtu_to_enum(mtu: u32, default_if_bad: i32) -> i32 {
    match mtu {
        0 => 0,
        256 => 1,
        512 => 2,
        1024 => 3,
        2048 => 4,
        4096 => 5,
        8192 => 6,
        10240 => 7,
        _ => default_if_bad,
    }
}

/// Mirrors `ib_mtu_enum_to_int()` and `opa_mtu_enum_to_int()` (ib_verbs.h).
pub fn opa_mtu_enum_to_int(mtu: i32) -> i32 {
    match mtu {
        6 => 8192,
        7 => 10240,
        1 => 256,
        2 => 512,
        3 => 1024,
        4 => 2048,
        5 => 4096,
        _ => -1,
    }
}

/// Mirrors the static `verbs_mtu_enum_to_int()` (qp.c): 10 KiB packets are
/// constrained to 8 KiB.
pub fn verbs_mtu_enum_to_int(mtu: i32) -> i32 {
    let mtu = if mtu == OPA_MTU_10240 {
        OPA_MTU_8192
    } else {
        mtu
    };
    opa_mtu_enum_to_int(mtu)
}

/// Mirrors `mtu_to_path_mtu()` (qp.c).
pub fn mtu_to_path_mtu(mtu: u32) -> i32 {
    mtu_to_enum(mtu, OPA_MTU_8192)
}

/// Mirrors `mtu_from_qp()` (qp.c): the MTU of the path MTU enum, capped by
/// the MTU of the VL the QP's SL maps to (for VLs below 16).
pub fn mtu_from_qp(w: &World, qp: &Qp, pmtu: u32) -> Result<u32, Undefined> {
    let sl_to_sc = port_sl_to_sc(w, qp.port)?;
    let sc = *at(sl_to_sc, usize::from(qp.remote_sl), "sl_to_sc")?;
    let vl = sc_to_vlt(w, Sc(sc));
    let mut mtu = verbs_mtu_enum_to_int(pmtu as i32) as u32;
    if vl.0 < 16 {
        mtu = mtu.min(u32::from(w.vl_mtu[usize::from(vl.0)]));
    }
    Ok(mtu)
}

/// Mirrors `get_pmtu_from_attr()` (qp.c): -1 for an invalid enum; the
/// port's MTU (as an enum, IB_MTU_2048 if it has none) when the requested
/// one is larger; else the requested enum.
pub fn get_pmtu_from_attr(w: &World, qp: &Qp, path_mtu: u32) -> Result<i32, Undefined> {
    let pidx = qp.port.wrapping_sub(1) as usize;
    let mtu = verbs_mtu_enum_to_int(path_mtu as i32);
    if mtu == -1 {
        return Ok(-1);
    }
    let ibmtu = *at(&w.port_ibmtu, pidx, "dd->pport")?;
    if mtu as u32 > ibmtu {
        Ok(mtu_to_enum(ibmtu, IB_MTU_2048))
    } else {
        Ok(path_mtu as i32)
    }
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::MtuToPathMtu {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = mtu_to_path_mtu(self.mtu);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::MtuFromQp {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = mtu_from_qp(cx.w, &cx.qp, self.pmtu)? as i32;
        Ok(())
    }
}

impl crate::Mirror for super::types::args::GetPmtuFromAttr {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = get_pmtu_from_attr(cx.w, &cx.qp, self.path_mtu)?;
        Ok(())
    }
}
