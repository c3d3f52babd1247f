//! qp.c: changing a QP's path (hfi1_modify_qp, hfi1_migrate_qp) and the
//! inline LID helpers of hfi.h they go through (qp_set_16b).

use super::hfi::port_sl_to_sc;
use super::qp::{qp_to_sdma_engine, qp_to_send_context};
use super::types::{EngineIdx, MigState, Ptr, Qp, SFlag, Sc, SendCtxIdx, World};
use super::{at, ptr_name, qp_name, Journal, Undefined};

/// `OPA_SPECIAL_OUI` (opa_addr.h).
const OPA_SPECIAL_OUI: u64 = 0x0000_066a;
/// `be16_to_cpu(IB_MULTICAST_LID_BASE)`, `IB_LID_PERMISSIVE`,
/// `OPA_LID_PERMISSIVE`, `opa_get_mcast_base(OPA_MCAST_NR)`.
const IB_MCAST_BASE: u32 = 0xC000;
const IB_LID_PERMISSIVE: u32 = 0xFFFF;
const OPA_LID_PERMISSIVE: u32 = 0xFFFF_FFFF;
const OPA_MCAST_BASE: u32 = 0xF000_0000;
/// `HFI1_PKT_TYPE_9B`, `HFI1_PKT_TYPE_16B`.
const PKT_9B: u8 = 0;
const PKT_16B: u8 = 1;

/// The remote address vector as qp.c sees it (`qp->remote_ah_attr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteAh {
    /// `rdma_ah_get_sl()`.
    pub sl: u8,
    /// `rdma_ah_get_dlid()`.
    pub dlid: u32,
    /// `rdma_ah_get_port_num()`.
    pub port: u32,
    /// `IB_AH_GRH` in its flags.
    pub grh: bool,
    /// `rdma_ah_get_make_grd()`.
    pub make_grd: bool,
    /// The GRH's DGID: its interface ID.
    pub interface_id: u64,
    /// The GRH's DGID: its subnet prefix.
    pub subnet_prefix: u64,
}

/// The path state hfi1_modify_qp and hfi1_migrate_qp change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathState {
    /// `priv->s_sc`.
    pub s_sc: u8,
    /// `priv->s_sde`.
    pub s_sde: Ptr<EngineIdx>,
    /// `priv->s_sendcontext`.
    pub s_sendcontext: Ptr<SendCtxIdx>,
    /// `qp->remote_ah_attr`.
    pub remote: RemoteAh,
}

impl PathState {
    /// The path state of `qp`.
    pub fn of(qp: &Qp) -> PathState {
        PathState {
            s_sc: qp.s_sc,
            s_sde: qp.s_sde.map_or(Ptr::Null, Ptr::To),
            s_sendcontext: qp.s_sendcontext.map_or(Ptr::Null, Ptr::To),
            remote: RemoteAh {
                sl: qp.remote_sl,
                dlid: qp.remote_dlid,
                port: qp.port,
                grh: qp.remote_grh,
                make_grd: qp.remote_make_grd,
                interface_id: qp.remote_gid_iid,
                subnet_prefix: qp.remote_gid_prefix,
            },
        }
    }

    /// Writes the path state into the QP (`priv->s_sc`, `s_sde`,
    /// `s_sendcontext`, `qp->remote_ah_attr`): what the functions leave.
    /// The model's pointers are the world's or NULL, never foreign.
    pub fn apply(&self, qp: &mut Qp) {
        qp.s_sc = self.s_sc;
        qp.s_sde = world_ptr(self.s_sde);
        qp.s_sendcontext = world_ptr(self.s_sendcontext);
        qp.remote_sl = self.remote.sl;
        qp.remote_dlid = self.remote.dlid;
        qp.remote_grh = self.remote.grh;
        qp.remote_make_grd = self.remote.make_grd;
        qp.remote_gid_iid = self.remote.interface_id;
        qp.remote_gid_prefix = self.remote.subnet_prefix;
    }

    /// The shim's key=value description of the path state.
    pub fn describe(&self, qp: &Qp) -> String {
        format!(
            "s_sc={} s_sde={} s_sendcontext={} hdr_type={} port={} dlid=0x{:x} grh={} iid=0x{:x} prefix=0x{:x} mig={} pkey={}",
            self.s_sc,
            ptr_name(self.s_sde, "sde", |e| e.0).0,
            ptr_name(self.s_sendcontext, "sc", |s| s.0).0,
            qp.hdr_type,
            qp.port,
            self.remote.dlid,
            i32::from(self.remote.grh),
            self.remote.interface_id,
            self.remote.subnet_prefix,
            match qp.mig_state {
                MigState::Migrated => 0,
                MigState::Rearm => 1,
                MigState::Armed => 2,
            },
            qp.s_pkey_index
        )
    }
}

/// A pointer the model holds: the world's object or NULL.
fn world_ptr<T>(p: Ptr<T>) -> Option<T> {
    match p {
        Ptr::To(t) => Some(t),
        Ptr::Null | Ptr::Foreign => None,
    }
}

fn is_opa_gid(interface_id: u64) -> bool {
    interface_id >> 40 == OPA_SPECIAL_OUI
}

/// Mirrors `hfi1_update_ah_attr()` (hfi.h): an AH without a GRH whose
/// DLID (or whose port's LID) is extended, or an AH that asks for one
/// (`make_grd`), gets an OPA GRH carrying the DLID.
pub fn hfi1_update_ah_attr(w: &World, ah: &mut RemoteAh) -> Result<(), Undefined> {
    port_sl_to_sc(w, ah.port)?; // to_iport(): the port must exist
    let lid = w.port_lid.get(ah.port as usize - 1).copied().unwrap_or(0);
    if ((ah.dlid >= IB_MCAST_BASE || lid >= IB_MCAST_BASE)
        && ah.dlid != OPA_LID_PERMISSIVE
        && ah.dlid != IB_LID_PERMISSIVE
        && !ah.grh)
        || ah.make_grd
    {
        ah.grh = true;
        ah.interface_id = (OPA_SPECIAL_OUI << 40) | u64::from(ah.dlid);
        ah.subnet_prefix = w
            .port_gid_prefix
            .get(ah.port as usize - 1)
            .copied()
            .unwrap_or(0);
    }
    Ok(())
}

/// Mirrors `hfi1_make_opa_lid()` (hfi.h): the DLID in the 32-bit LID space.
pub fn hfi1_make_opa_lid(ah: &mut RemoteAh) {
    let dlid = ah.dlid;
    ah.dlid = if is_opa_gid(ah.interface_id) {
        (ah.interface_id & 0xFFFF_FFFF) as u32
    } else if dlid >= IB_MCAST_BASE && dlid != IB_LID_PERMISSIVE && dlid != OPA_LID_PERMISSIVE {
        dlid.wrapping_sub(IB_MCAST_BASE)
            .wrapping_add(OPA_MCAST_BASE)
    } else if dlid == IB_LID_PERMISSIVE {
        OPA_LID_PERMISSIVE
    } else {
        dlid
    };
}

/// Mirrors `hfi1_get_packet_type()` (hfi.h).
fn packet_type(lid: u32) -> u8 {
    if lid >= OPA_MCAST_BASE {
        PKT_9B
    } else if lid >= IB_MCAST_BASE {
        // opa_get_lid(opa_get_mcast_base(OPA_MCAST_NR), 9B) == 0xC000
        PKT_16B
    } else {
        PKT_9B
    }
}

/// Mirrors `hfi1_get_hdr_type()` (hfi.h).
pub fn hfi1_get_hdr_type(lid: u32, ah: &RemoteAh) -> u8 {
    if ah.dlid == OPA_LID_PERMISSIVE {
        return if is_opa_gid(ah.interface_id) {
            PKT_16B
        } else {
            PKT_9B
        };
    }
    if packet_type(ah.dlid) == PKT_16B {
        return PKT_16B;
    }
    packet_type(lid)
}

/// Mirrors the static `qp_set_16b()` (qp.c): extend the AH, then, when it
/// has a GRH, choose the header type from the QP's port LID.
fn qp_set_16b(w: &World, qp: &mut Qp, st: &mut PathState) -> Result<(), Undefined> {
    hfi1_update_ah_attr(w, &mut st.remote)?;
    hfi1_make_opa_lid(&mut st.remote);
    if !st.remote.grh {
        return Ok(());
    }
    port_sl_to_sc(w, qp.port)?;
    let lid = w.port_lid.get(qp.port as usize - 1).copied().unwrap_or(0);
    qp.hdr_type = hfi1_get_hdr_type(lid, &st.remote);
    Ok(())
}

fn ah_to_sc(w: &World, ah: &RemoteAh) -> Result<u8, Undefined> {
    let t = port_sl_to_sc(w, ah.port)?;
    Ok(*at(t, usize::from(ah.sl), "sl_to_sc")?)
}

/// The tree's `attr_mask` bits (ib_verbs.h): `IB_QP_AV`.
pub const IB_QP_AV: u32 = 1 << 7;
/// `IB_QP_ALT_PATH`.
pub const IB_QP_ALT_PATH: u32 = 1 << 14;
/// `IB_QP_PATH_MIG_STATE`.
pub const IB_QP_PATH_MIG_STATE: u32 = 1 << 18;

fn repath(
    w: &World,
    qp: &mut Qp,
    st: &mut PathState,
    with_context: bool,
    j: &mut Journal,
) -> Result<(), Undefined> {
    st.s_sc = ah_to_sc(w, &st.remote)?;
    qp.s_sc = st.s_sc;
    st.s_sde = qp_to_sdma_engine(w, qp, Sc(st.s_sc), j)?;
    if with_context {
        st.s_sendcontext = qp_to_send_context(w, qp, Sc(st.s_sc))?;
    }
    qp_set_16b(w, qp, st)
}

/// Mirrors `hfi1_modify_qp()` (qp.c): a new primary path (`IB_QP_AV`) or a
/// completed migration of an armed QP re-derives the SC, SDMA engine, send
/// context and header type (the migration also sets `HFI1_S_AHG_CLEAR`);
/// then OPFN hears of the change.
pub fn hfi1_modify_qp(
    w: &World,
    qp: &mut Qp,
    av: bool,
    alt_path: bool,
    path_mig: Option<MigState>,
    j: &mut Journal,
) -> Result<PathState, Undefined> {
    let mut st = PathState::of(qp);
    if av {
        repath(w, qp, &mut st, true, j)?;
    }
    if path_mig == Some(MigState::Migrated) && qp.mig_state == MigState::Armed {
        qp.s_flags.insert(SFlag::AhgClear);
        repath(w, qp, &mut st, true, j)?;
    }
    let mask = if av { IB_QP_AV } else { 0 }
        | if alt_path { IB_QP_ALT_PATH } else { 0 }
        | if path_mig.is_some() {
            IB_QP_PATH_MIG_STATE
        } else {
            0
        };
    j.record(format!("opfn_qp_init({}, mask=0x{mask:x})", qp_name(qp)));
    st.apply(qp);
    Ok(st)
}

/// Mirrors `hfi1_migrate_qp()` (qp.c): the alternate path becomes the
/// primary (AH, port, P_Key index), `HFI1_S_AHG_CLEAR` is set, the SC, SDMA
/// engine and header type follow the new path — the send context is left
/// as it was — and the QP's owner hears `IB_EVENT_PATH_MIG`.
pub fn hfi1_migrate_qp(w: &World, qp: &mut Qp, j: &mut Journal) -> Result<PathState, Undefined> {
    let mut st = PathState::of(qp);
    qp.mig_state = MigState::Migrated;
    st.remote = RemoteAh {
        sl: qp.alt_sl,
        dlid: qp.alt_dlid,
        port: u32::from(qp.alt_port),
        grh: false,
        make_grd: false,
        interface_id: 0,
        subnet_prefix: 0,
    };
    qp.port = u32::from(qp.alt_port);
    qp.s_pkey_index = qp.s_alt_pkey_index;
    qp.s_flags.insert(SFlag::AhgClear);
    repath(w, qp, &mut st, false, j)?;
    st.apply(qp);
    j.record(format!(
        "event_handler(dd, {}, IB_EVENT_PATH_MIG)",
        qp_name(qp)
    ));
    Ok(st)
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::ModifyQp {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let st = hfi1_modify_qp(
            cx.w,
            cx.qp.to_mut(),
            self.attr_av,
            self.attr_alt_path,
            self.path_mig_state,
            &mut cx.j,
        )?;
        cx.out.text = st.describe(&cx.qp);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::MigrateQp {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let st = hfi1_migrate_qp(cx.w, cx.qp.to_mut(), &mut cx.j)?;
        cx.out.text = st.describe(&cx.qp);
        Ok(())
    }
}
