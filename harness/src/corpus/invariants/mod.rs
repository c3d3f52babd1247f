//! The invariants every vector keeps, hand-written or generated, each
//! with its upstream reason: a vector outside them drives upstream code out
//! of bounds (or into C undefined behaviour), which is a crash finding, not
//! a behaviour.

use crate::model::types::*;
use crate::outcome::Outcome;

mod pio;
mod sdma;
mod txbuild;
mod user_sde;
use pio::{
    check_dump_sci, check_init_pervl_scs, check_init_sc_pools, check_init_send_contexts,
    check_pervl_world, check_pio_chip, check_pio_map_init, check_probe_node, check_restart,
    check_sc_alloc, check_sc_enable,
};
use sdma::{check_dma_tx, check_sdma_call, check_world_for};
use txbuild::{check_btx, check_btx_call};
use user_sde::*;

/// The invariants every vector keeps, each with the upstream reason. A
/// vector outside them drives upstream code out of bounds (or into C
/// undefined behaviour), which is a crash finding, not a behaviour.
pub fn validate(c: &Call) -> Result<(), String> {
    validate_world(&c.world)?;
    validate_call(c)
}

/// What a world must be for the calls of `func` beyond
/// [`validate_world`] (the generator draws each function's worlds to it;
/// [`validate_call`] checks it again).
pub fn validate_world_for(func: Func, w: &World) -> Result<(), String> {
    check_world_for(func, w)?;
    check_pervl_world(func, w)?;
    check_probe_node(func, w)?;
    check_user_sde_world_for(func, w)
}

/// The world's own invariants (the first part of [`validate`]): a world
/// that keeps them is one every call may be given, so the generator
/// checks a world once for the vectors that share it.
pub fn validate_world(w: &World) -> Result<(), String> {
    if w.sl_to_sc.len() > 2 {
        return Err("at most 2 ports (the shim's limit)".into());
    }
    // qp_to_sdma_engine()/qp_to_send_context(): qp_num >> qos_shift is a
    // u32 shift.
    if w.qos_shift >= 32 {
        return Err(format!(
            "world.qos_shift {} >= 32 makes qp_num >> qos_shift undefined",
            w.qos_shift
        ));
    }
    // sc_to_vlt(): values of dd->sc2vl are VLs; hardware has 32 VLs at most.
    // (Any u8 is representable; no bound needed for memory safety.)
    for (name, n, max) in [
        ("sdma_cpus", w.sdma_cpus.len(), 16usize),
        ("num_send_contexts", usize::from(w.num_send_contexts), 64),
    ] {
        if n > max {
            return Err(format!(
                "world.{name}: {n} is above the shim's limit of {max}"
            ));
        }
    }
    if w.sdma_cpus.is_empty() {
        return Err("world.sdma_cpus: the device needs at least engine 0 (the selectors fall back to &dd->per_sdma[0])".into());
    }
    check_per_context(w)?;
    check_groups(w)?;
    check_hw_contexts(w)?;
    for (i, sc) in w.vl_sc.iter().enumerate() {
        if let Some(s) = sc {
            if s.0 >= w.num_send_contexts {
                return Err(format!(
                    "world.vl_sc[{i}] = {} is not a send context (num_send_contexts = {})",
                    s.0, w.num_send_contexts
                ));
            }
        }
    }
    check_kernel_sc(w)?;
    if w.port_ibmtu.len() != w.sl_to_sc.len() {
        return Err(format!(
            "world.port_ibmtu has {} entries for {} port(s): one per port",
            w.port_ibmtu.len(),
            w.sl_to_sc.len()
        ));
    }
    // Other per-port fields may be left short (the missing ports read 0),
    // never run past the ports the device declares: the kernel has no port
    // there (dd->num_pports bounds every loop over them).
    for (name, n) in [
        ("port_lid", w.port_lid.len()),
        ("port_gid_prefix", w.port_gid_prefix.len()),
        ("port_qp0", w.port_qp0.len()),
        ("port_qp1", w.port_qp1.len()),
    ] {
        if n > w.sl_to_sc.len() {
            return Err(format!(
                "world.{name} has {n} entries for {} port(s): a port the device does not have",
                w.sl_to_sc.len()
            ));
        }
    }
    check_map("sdma_map", &w.sdma_map, w.sdma_cpus.len())?;
    check_map("pio_map", &w.pio_map, usize::from(w.num_send_contexts))?;
    check_user_sde_world(w)?;
    check_nodes(w)
}

/// sc_group_release_update(): a group of 2^group hardware contexts from
/// one below TXE_NUM_CONTEXTS (160) rounded down ends within
/// dd->hw_to_sw[] for a group of up to 8.
fn check_groups(w: &World) -> Result<(), String> {
    match w.sc_group.iter().find(|(_, g)| *g > 3) {
        Some((i, g)) => Err(format!(
            "world.sc_group[{i}] = {g}: a group of at most 8 hardware contexts (3; sc_alloc() makes 0)"
        )),
        None => Ok(()),
    }
}

/// A send context's hardware context is one of the chip's
/// TXE_NUM_CONTEXTS (160; sc_hw_alloc() gives `chip_send_contexts - i -
/// 1`): past them its per-context registers alias others (its
/// SEND_EGRESS_CTXT_STATUS from 192 on is an engine's
/// SEND_EGRESS_SEND_DMA_STATUS).
fn check_hw_contexts(w: &World) -> Result<(), String> {
    let most = crate::model::pio_ring::TXE_NUM_CONTEXTS;
    match w.sc_hw_context.iter().find(|(_, h)| u32::from(*h) >= most) {
        Some((i, h)) => Err(format!(
            "world.sc_hw_context[{i}] = {h}: a hardware context of the chip's {most} (TXE_NUM_CONTEXTS; past them its registers are others')"
        )),
        None => Ok(()),
    }
}

/// Online nodes are possible ones (node ids index per-node arrays sized
/// num_possible_nodes), and only online nodes have CPUs.
fn check_nodes(w: &World) -> Result<(), String> {
    if w.online_nodes & !w.possible_nodes_mask() != 0 || w.cpu_nodes & !w.online_nodes != 0 {
        return Err(format!(
            "world.online_nodes 0x{:x} / cpu_nodes 0x{:x}: online nodes are among the {} possible, nodes with CPUs among the online",
            w.online_nodes, w.cpu_nodes, w.possible_nodes
        ));
    }
    Ok(())
}

/// The invariants of the call in its world (the second part of
/// [`validate`]), given a world that keeps [`validate_world`]'s.
pub fn validate_call(c: &Call) -> Result<(), String> {
    let w = &c.world;
    // to_iport(): pidx = port - 1 indexes dd->pport[] unchecked (it only
    // WARNs), so a QP's port must exist.
    if c.qp.port == 0 || c.qp.port as usize > w.sl_to_sc.len() {
        return Err(format!(
            "qp.port {} does not exist (the world has {} port(s); to_iport() indexes dd->pport[port - 1])",
            c.qp.port,
            w.sl_to_sc.len()
        ));
    }
    check_wqe(c)?;
    check_qp(&c.qp, w)?;
    check_freed(c)?;
    check_function(c)
}

/// The swqe as rdmavt hands it over.
fn check_wqe(c: &Call) -> Result<(), String> {
    // rdmavt's rvt_qp_valid_operation() dereferences ud_wr(wr)->ah for
    // every QP type but RC and UC before hfi1_setup_wqe() sees the wqe (and
    // GSI/UD read rvt_get_swqe_ah(wqe) there): an SMI, GSI or UD wqe always
    // has an AH.
    if matches!(c.qp.qp_type, QpType::Ud | QpType::Gsi | QpType::Smi) && c.func() == Func::SetupWqe
    {
        let Some(ah) = c.wqe.ah else {
            return Err(format!(
                "a {} wqe needs wqe.ah (rdmavt's rvt_qp_valid_operation() dereferences \
                 ud_wr(wr)->ah for every QP type but RC and UC)",
                c.qp.qp_type
            ));
        };
        // 1 << ah->log_pmtu is an int shift.
        if ah.log_pmtu > 30 {
            return Err(format!(
                "wqe.ah.log_pmtu {} > 30 overflows 1 << log_pmtu",
                ah.log_pmtu
            ));
        }
        // ibp->sl_to_sc[] has 32 entries.
        if ah.sl.0 >= 32 {
            return Err(format!(
                "wqe.ah.sl {} >= 32 indexes sl_to_sc[32] out of bounds",
                ah.sl.0
            ));
        }
    }
    Ok(())
}

/// The QP's own fields, in its world.
fn check_qp(q: &Qp, w: &World) -> Result<(), String> {
    // A leg's tx_head list: txs behind its first only when it has one;
    // the world holds MAX_TX_MORE of them a leg.
    for (leg, queued, more) in [
        ("ib", q.ib_tx_queued, q.ib_tx_more),
        ("tid", q.tid_tx_queued, q.tid_tx_more),
    ] {
        if more > MAX_TX_MORE || (!queued && more > 0) {
            return Err(format!(
                "qp.{leg}_tx_more {more}: at most {MAX_TX_MORE}, and 0 unless qp.{leg}_tx_queued"
            ));
        }
    }
    // priv->s_sde and priv->s_sendcontext point into the device.
    if q.s_sde
        .is_some_and(|e| usize::from(e.0) >= w.sdma_cpus.len())
    {
        return Err("qp.s_sde names an engine the world lacks".into());
    }
    if q.s_sendcontext.is_some_and(|s| s.0 >= w.num_send_contexts) {
        return Err("qp.s_sendcontext names a send context the world lacks".into());
    }
    // The DGID is part of the GRH: without IB_AH_GRH the AH has none.
    if !q.remote_grh && (q.remote_gid_prefix != 0 || q.remote_gid_iid != 0) {
        return Err(
            "qp.remote_gid_prefix/remote_gid_iid describe a GRH: set qp.remote_grh = true".into(),
        );
    }
    // iowait_queue()'s callers set the lock with the list (iowait_sleep,
    // the PIO and SDMA wait paths): a QP on a list has its engine's lock.
    if q.on_wait_list && q.wait_lock.is_none() && q.wait_sc.is_none() {
        return Err(
            "qp.on_wait_list needs qp.wait_lock (an engine's dmawait) or qp.wait_sc (a send context's piowait): the list's lock (upstream sets the lock with the list)"
                .into(),
        );
    }
    if q.wait_lock.is_some() && q.wait_sc.is_some() {
        return Err(
            "qp.wait_lock and qp.wait_sc: priv->s_iowait.lock is one lock, an engine's or a send context's"
                .into(),
        );
    }
    if q.wait_sc.is_some_and(|s| s.0 >= w.num_send_contexts) {
        return Err("qp.wait_sc names a send context the world lacks".into());
    }
    if q.wait_lock
        .is_some_and(|e| usize::from(e.0) >= w.sdma_cpus.len())
    {
        return Err("qp.wait_lock names an engine the world lacks".into());
    }
    // qp_iter_print(): rvt_get_swqe_ptr(qp, qp->s_last) and
    // s_ack_queue[s_tail_ack_queue] are read unchecked.
    if q.s_last >= 16 {
        return Err(format!(
            "qp.s_last {} is past the world's 16-entry send queue",
            q.s_last
        ));
    }
    if q.ack_queue.is_some() && q.s_tail_ack_queue >= 8 {
        return Err(format!(
            "qp.s_tail_ack_queue {} is past the world's 8-entry ack queue",
            q.s_tail_ack_queue
        ));
    }
    // mtu_from_qp(): ibp->sl_to_sc[rdma_ah_get_sl(&qp->remote_ah_attr)].
    if q.remote_sl >= 32 {
        return Err(format!(
            "qp.remote_sl {} >= 32 indexes sl_to_sc[32] out of bounds",
            q.remote_sl
        ));
    }
    Ok(())
}

/// The other waiters on the QP's engine's and send context's wait lists
/// are world state only for the calls that empty those lists.
fn check_wait_lists(c: &Call) -> Result<(), String> {
    let q = &c.qp;
    // The other waiters sit on the dmawait list of the QP's engine
    // (priv->s_sde, which the shim dereferences to place them). They are
    // world state for the wakeups that harvest that list, sdma_desc_avail()
    // and its callers sdma_flush() and sdma_engine_interrupt(); a sleeper's place among them (iowait_queue()'s head
    // or tail) is not modelled yet, so no other function is given them.
    if !q.waiters.is_empty() && (q.s_sde.is_none() || !c.func().wakes_dmawait()) {
        return Err(
            "qp.waiters: other iowaits on the QP's engine's dmawait list need qp.s_sde, and only sdma_desc_avail and its callers (the flush and its worker, the interrupt, the state machine's steps) are given them".into(),
        );
    }
    // The other QPs on the piowait list of the QP's send context
    // (priv->s_sendcontext): world state for the calls that empty that
    // list, sc_piobufavail() and sc_disable() (pio_freeze()'s); a sleeper's place among them
    // is not modelled yet.
    if !q.pio_waiters.is_empty()
        && (q.s_sendcontext.is_none()
            || !matches!(
                c.func(),
                Func::ScPiobufavail | Func::ScDisable | Func::PioFreeze
            ))
    {
        return Err(
            "qp.pio_waiters: other QPs on the QP's send context's piowait list need qp.s_sendcontext, and only sc_piobufavail, sc_disable and pio_freeze are given them".into(),
        );
    }
    Ok(())
}

/// The shadow ring is the QP's send context's (the shim places it there):
/// its head and tail are slots of it (both 0 without one), the slots past
/// it have no callback (a ring of `sr_size` slots has no more).
fn check_ring(q: &Qp) -> Result<(), String> {
    let n = q.sc_sr_sent_at.len();
    if n > 0 && q.s_sendcontext.is_none() {
        return Err("qp.sc_sr_sent_at: the shadow ring is the QP's send context's, and it has none (qp.s_sendcontext)".into());
    }
    if q.sc_sr_head as usize >= n.max(1) || q.sc_sr_tail as usize >= n.max(1) {
        return Err(format!(
            "qp.sc_sr_head {} / sc_sr_tail {} is not a slot of the {n}-slot shadow ring (sc->sr[] is indexed by both)",
            q.sc_sr_head, q.sc_sr_tail
        ));
    }
    if q.sc_sr_cb[n..].iter().any(|&c| c != PioCb::Null) {
        return Err(format!(
            "qp.sc_sr_cb: a callback past the {n}-slot shadow ring (it has no such slot)"
        ));
    }
    Ok(())
}

/// The per-context fields name contexts of the world.
fn check_per_context(w: &World) -> Result<(), String> {
    let per_context: [(&str, Vec<usize>); 10] = [
        (
            "sc_hw_context",
            w.sc_hw_context.iter().map(|(i, _)| i).collect(),
        ),
        ("sc_group", w.sc_group.iter().map(|(i, _)| i).collect()),
        ("sc_type", w.sc_type.iter().map(|(i, _)| i).collect()),
        (
            "sc_ctrl_csr",
            w.sc_ctrl_csr.iter().map(|(i, _)| i).collect(),
        ),
        (
            "sc_status_csr",
            w.sc_status_csr.iter().map(|(i, _)| i).collect(),
        ),
        (
            "sc_egress_csr",
            w.sc_egress_csr.iter().map(|(i, _)| i).collect(),
        ),
        ("sc_err_csr", w.sc_err_csr.iter().map(|(i, _)| i).collect()),
        (
            "sc_credit_status_csr",
            w.sc_credit_status_csr.iter().map(|(i, _)| i).collect(),
        ),
        (
            "sci_credits",
            w.sci_credits.iter().map(|(i, _)| i).collect(),
        ),
        ("sci_base", w.sci_base.iter().map(|(i, _)| i).collect()),
    ];
    for (field, indices) in per_context {
        if let Some(i) = indices
            .into_iter()
            .find(|i| *i >= usize::from(w.num_send_contexts))
        {
            return Err(format!(
                "world.{field}[{i}]: not a send context (num_send_contexts = {})",
                w.num_send_contexts
            ));
        }
    }
    Ok(())
}

/// The device's credit return memory: a node's block only with `cr_base`,
/// of a possible node; `init_credit_return()` (and `init_send_contexts()`,
/// which calls it) runs at probe, before any (it would drop the pointer;
/// its node: `check_probe_node`).
fn check_credit_return(c: &Call) -> Result<(), String> {
    let (w, q) = (&c.world, &c.qp);
    if (q.cr_va != 0 && !q.cr_base) || q.cr_va & !w.possible_nodes_mask() != 0 {
        return Err(format!(
            "qp.cr_va 0x{:x}: blocks of possible nodes ({}), with qp.cr_base",
            q.cr_va, w.possible_nodes
        ));
    }
    if matches!(c.func(), Func::InitCreditReturn | Func::InitSendContexts) && q.cr_base {
        return Err(format!(
            "{} runs at probe, before the credit return memory is allocated (qp.cr_base)",
            c.func()
        ));
    }
    Ok(())
}

/// What one function reads of its arguments, or of the QP only it reads.
fn check_function(c: &Call) -> Result<(), String> {
    validate_world_for(c.func(), &c.world)?;
    check_credit_return(c)?;
    let w = &c.world;
    let q = &c.qp;
    // hfi1_check_modify_qp(): ah_to_sc() indexes the AH's port and SL.
    let ahs = match &c.args {
        Args::CheckModifyQp(a) => [(a.attr_ah, "attr_ah"), (a.attr_alt_ah, "attr_alt_ah")],
        _ => [(None, ""), (None, "")],
    };
    for (ah, name) in ahs {
        let Some(ah) = ah else { continue };
        if ah.port == 0 || usize::from(ah.port) > w.sl_to_sc.len() || ah.sl >= 32 {
            return Err(format!(
                "{name}: port {} / sl {} does not exist (ah_to_sc() indexes both)",
                ah.port, ah.sl
            ));
        }
    }
    check_wait_lists(c)?;
    check_ring(q)?;
    check_dma_tx(q)?;
    check_btx(q)?;
    check_btx_call(c)?;
    // hfi1_migrate_qp(): the alternate path becomes the QP's port and its
    // SL indexes sl_to_sc.
    if c.func() == Func::MigrateQp
        && (q.alt_port == 0 || usize::from(q.alt_port) > w.sl_to_sc.len() || q.alt_sl >= 32)
    {
        return Err(format!(
            "qp.alt_port {} / alt_sl {} does not exist (hfi1_migrate_qp makes it the QP's path)",
            q.alt_port, q.alt_sl
        ));
    }
    // quiesce_qp(): qp_pio_drain() loops until pio_busy drops, which
    // nothing does in a world of one thread.
    if c.func() == Func::QuiesceQp && q.s_sendcontext.is_some() && q.pio_busy != 0 {
        return Err(
            "quiesce_qp with pio_busy != 0 and a send context never returns (qp_pio_drain)".into(),
        );
    }
    check_sdma_call(c)?;
    check_user_sde_call(c)?;
    // sc_buffer_alloc(): on the QP's send context, the one with a ring
    // (sc->sr[head] is written).
    if c.func() == Func::ScBufferAlloc && q.sc_sr_sent_at.is_empty() {
        return Err(
            "sc_buffer_alloc needs the QP's send context's shadow ring (qp.sc_sr_sent_at): it fills sc->sr[sr_head]"
                .into(),
        );
    }
    // sc_piobufavail(): the shim calls it on the QP's send context.
    if c.func() == Func::ScPiobufavail && q.s_sendcontext.is_none() {
        return Err(
            "sc_piobufavail needs the QP's send context (qp.s_sendcontext): the context whose buffers freed up"
                .into(),
        );
    }
    check_engine_args(c)?;
    // hfi1_qp_iter_cb(): to_iport(qp->port_num) for every QP walked.
    let walked: &[IterQp] = match &c.args {
        Args::ErrorPortQps(a) => &a.iter,
        _ => &[],
    };
    for (i, iq) in walked.iter().enumerate() {
        if iq.port == 0 || iq.port as usize > w.sl_to_sc.len() {
            return Err(format!(
                "iter[{i}].port {} does not exist (to_iport() indexes dd->pport[port - 1])",
                iq.port
            ));
        }
    }
    Ok(())
}

/// From the engines' schema: the state holds a few entries off their
/// default (every field a `PerIndex`); a call starts from at most
/// `PER_INDEX_INPUT` of each, so what it touches has room
/// (harness/model/src/types/containers.rs).
///
/// Entries name objects of the world (the schema says which: `=> sde`
/// its engines, `=> sc` its send contexts): past the world's counts the C
/// world has no object (--sanitize poisons them).
macro_rules! engines_room {
    ([] $( $(#[doc = $doc:literal])* $key:literal $f:ident : $t:ty $([$($rule:tt)*])?
        = $d:expr $(=> $c:ident)? , )*) => {
        fn engines_room(e: &Engines, w: &World) -> Result<(), String> {
            $( if e.$f.len() > PER_INDEX_INPUT {
                return Err(format!(
                    "engines.{}: {} entries off their default; a call starts from at most {PER_INDEX_INPUT}",
                    $key,
                    e.$f.len()
                ));
            }
            let n = objects(concat!($(stringify!($c))?), w);
            if let Some((i, _)) = e.$f.iter().find(|(i, _)| *i >= n) {
                return Err(format!(
                    "engines.{}[{i}]: the world has {n} of those (its index {i} does not exist)",
                    $key
                ));
            } )*
            Ok(())
        }
    };
}
crate::model::engines_schema!(engines_room []);

/// What a scenario's step after `prev` runs on: its own function and
/// arguments, the world of its scenario, and the QP and engines as the
/// step before left them (every field of the post-call state is read
/// back, so that is all a step leaves).
pub fn carried(prev: &Outcome, next: &Call) -> Call {
    Call {
        qp: prev.qp,
        engines: prev.engines,
        ..next.clone()
    }
}

/// A scenario's later steps keep the invariants: each step's state, the
/// one the model says the step before left with the step's function and
/// arguments ([`carried`]), is valid and the model runs
/// it. `Err((k, why))`: step `k` (from 2) does not. Only such a scenario
/// runs in C (the corpus refuses the others, the generator ends one there).
pub fn steps_keep_invariants(first: &Call, then: &[Call]) -> Result<(), (usize, String)> {
    // A world has a new tx request for each of these (c-shim/state.h).
    for (f, most) in [
        (Func::SdmaSendTxreq, MAX_SEND_TX),
        (Func::IowaitSleep, MAX_SLEEP_TX),
    ] {
        let mut n = 0;
        for (k, step) in std::iter::once(first).chain(then).enumerate() {
            n += usize::from(step.func() == f);
            if n > most {
                return Err((
                    k + 1,
                    format!("more than {most} {f} steps: a world has a new tx request for {most}"),
                ));
            }
        }
    }
    // What the model carries is the QP and the engines: a map a step
    // publishes, or a context it allocates (its text), would be read by
    // the steps after it; and static data a step writes
    // (init_sc_pools_and_sizes: sc_config_sizes) is restored only when a
    // world is built, which a later step's is not.
    let steps = std::iter::once(first).chain(then);
    if let Some((k, f)) = steps
        .take(then.len())
        .map(|s| s.func())
        .enumerate()
        .find(|(_, f)| {
            matches!(
                f,
                Func::SdmaMapInit
                    | Func::PioMapInit
                    | Func::ScAlloc
                    | Func::InitPervlScs
                    | Func::InitSendContexts
                    | Func::InitScPoolsAndSizes
                    | Func::SdmaInit
                    | Func::FreePioMap
                    | Func::SdmaSetCpuToSdeMap
            )
        })
    {
        return Err((
            k + 1,
            format!("{f} is only a scenario's last step: what it publishes (its text) is not carried to the next"),
        ));
    }
    // The other engines' rings are carried in C (each its own) but the
    // model starts each from the world's: a call that steps every engine
    // is only a scenario's first step.
    if let Some((k, f)) = then
        .iter()
        .map(|s| s.func())
        .enumerate()
        .find(|(_, f)| f.drives_every_engine())
    {
        return Err((
            k + 2,
            format!("{f} steps every engine on its own ring, which a later step does not carry: only a scenario's first step"),
        ));
    }
    check_user_sde_steps(then)?;
    let mut state = crate::model::run(first).map_err(|u| (1, u.0))?;
    for (k, step) in then.iter().enumerate() {
        let at = carried(&state, step);
        validate(&at).map_err(|m| (k + 2, m))?;
        state = crate::model::run(&at).map_err(|u| (k + 2, u.0))?;
    }
    Ok(())
}

/// `dd->kernel_send_context` has `num_send_contexts` entries, each a
/// send context of the world or NULL.
fn check_kernel_sc(w: &World) -> Result<(), String> {
    if w.kernel_sc.len() > usize::from(w.num_send_contexts) {
        return Err(format!(
            "world.kernel_sc: {} entries, more than the array's num_send_contexts ({})",
            w.kernel_sc.len(),
            w.num_send_contexts
        ));
    }
    if let Some((i, s)) = w
        .kernel_sc
        .iter()
        .enumerate()
        .find_map(|(i, s)| s.filter(|s| s.0 >= w.num_send_contexts).map(|s| (i, s)))
    {
        return Err(format!(
            "world.kernel_sc[{i}] = {} is not a send context (num_send_contexts = {})",
            s.0, w.num_send_contexts
        ));
    }
    Ok(())
}

/// Whether the world's tables name send context `i`: a VL's context
/// (`dd->vld[].sc`), a kernel context (`dd->kernel_send_context[]`) or
/// an entry of the PIO map. A freed context
/// (`world.sc_freed`) is named by nothing, as sc_free() leaves it.
pub fn world_names_sc(w: &World, i: u8) -> bool {
    w.vl_sc.iter().any(|s| s.is_some_and(|s| s.0 == i))
        || w.kernel_sc.iter().any(|s| s.is_some_and(|s| s.0 == i))
        || w.pio_map.as_ref().is_some_and(|m| {
            m.elems
                .iter()
                .flatten()
                .any(|e| e.entries.iter().any(|s| s.raw() == i))
        })
}

/// The send contexts freed (`world.sc_freed`) are named by nothing: no VL,
/// the PIO map, the QP (its context, the piowait list it is on) nor an
/// argument (their users would dereference a freed context).
fn check_freed(c: &Call) -> Result<(), String> {
    let w = &c.world;
    let arg = match &c.args {
        Args::ScAddCreditReturnIntr(a) => a.sc,
        Args::ScDelCreditReturnIntr(a) => a.sc,
        Args::ScWantPiobufIntr(a) => a.sc,
        Args::ScStop(a) => a.sc,
        Args::ScWaitForPacketEgress(a) => a.sc,
        Args::ScReturnCredits(a) => a.sc,
        Args::ScDisable(a) => a.sc,
        Args::ScReleaseUpdate(a) => a.sc,
        Args::ScFlush(a) => a.sc,
        Args::Hfi1InitCtxt(a) => a.sc,
        _ => None,
    };
    for (i, freed) in w.sc_freed.iter() {
        if !freed {
            continue;
        }
        let i = i as u8;
        if i >= w.num_send_contexts {
            return Err(format!("world.sc_freed names {i}, past num_send_contexts"));
        }
        let by_qp = [c.qp.s_sendcontext, c.qp.wait_sc, arg]
            .iter()
            .any(|s| s.is_some_and(|s| s.0 == i));
        if world_names_sc(w, i) || by_qp {
            return Err(format!(
                "send context {i} is freed (world.sc_freed) yet named by the world, the QP or \
                 an argument: sc_free() leaves a context nothing names"
            ));
        }
    }
    Ok(())
}

/// How many objects of a kind (`"sc"`, `"sde"`) the world has; none of a
/// kind the schema does not name.
fn objects(kind: &str, w: &World) -> usize {
    match kind {
        "sc" => usize::from(w.num_send_contexts),
        "sde" => w.sdma_cpus.len(),
        _ => 0,
    }
}

/// The send-context and engine arguments point into the world's tables;
/// sc_add/del_credit_return_intr(), hfi1_sc_wantpiobuf_intr(), sc_stop()
/// and sc_wait_for_packet_egress() dereference theirs unchecked.
fn check_engine_args(c: &Call) -> Result<(), String> {
    let w = &c.world;
    engines_room(&c.engines, w)?;
    let (sc, deref) = match &c.args {
        Args::ScAddCreditReturnIntr(a) => (Some(a.sc), true),
        Args::ScDelCreditReturnIntr(a) => (Some(a.sc), true),
        Args::ScWantPiobufIntr(a) => (Some(a.sc), true),
        Args::ScStop(a) => (Some(a.sc), true),
        Args::ScWaitForPacketEgress(a) => (Some(a.sc), true),
        Args::ScReturnCredits(a) => (Some(a.sc), false),
        Args::ScDisable(a) => (Some(a.sc), false),
        Args::ScReleaseUpdate(a) => (Some(a.sc), false),
        Args::ScFlush(a) => (Some(a.sc), false),
        Args::Hfi1InitCtxt(a) => (Some(a.sc), false),
        _ => (None, false),
    };
    match sc {
        Some(None) if deref => {
            return Err(format!(
                "{}() dereferences its send context: sc = \"none\" is a NULL dereference",
                c.func()
            ))
        }
        Some(Some(s)) if s.0 >= w.num_send_contexts => {
            return Err(format!(
                "sc = {} is not a send context (num_send_contexts = {})",
                s.0, w.num_send_contexts
            ))
        }
        _ => {}
    }
    check_sc_enable(c)?;
    check_restart(c)?;
    check_pio_chip(c)?;
    check_pio_map_init(c)?;
    check_sc_alloc(c)?;
    check_init_pervl_scs(c)?;
    check_init_send_contexts(c)?;
    check_init_sc_pools(c)?;
    check_dump_sci(c)?;
    // sc_group_release_update(): dd->hw_to_sw[] has TXE_NUM_CONTEXTS
    // entries, indexed by the interrupt's source unchecked.
    if let Args::ScGroupReleaseUpdate(a) = &c.args {
        if a.hw_context >= crate::model::pio_ring::TXE_NUM_CONTEXTS {
            return Err(format!(
                "hw_context {} is not a hardware context (below TXE_NUM_CONTEXTS, {}): dd->hw_to_sw[] is indexed by it unchecked",
                a.hw_context,
                crate::model::pio_ring::TXE_NUM_CONTEXTS
            ));
        }
    }
    let sde = match &c.args {
        Args::SdmaAhgAlloc(a) => a.sde,
        Args::SdmaAhgFree(a) => a.sde,
        Args::SdmaEngineProgressSchedule(a) => match a.sde {
            Some(e) => Some(e),
            None => {
                return Err(
                    "_sdma_engine_progress_schedule dereferences sde: it is never NULL".into(),
                )
            }
        },
        _ => None,
    };
    if let Some(e) = sde {
        if usize::from(e.0) >= w.sdma_cpus.len() {
            return Err(format!(
                "sde = {} is not an engine ({} engines)",
                e.0,
                w.sdma_cpus.len()
            ));
        }
        // sdma_ahg_alloc(): ffz() of a word with no clear bit is undefined
        // (an engine's bit 32 is always clear: sdma_init()).
        if c.func() == Func::SdmaAhgAlloc
            && c.engines.sde_ahg_bits.get(usize::from(e.0)) == u64::MAX
        {
            return Err(format!(
                "engines.sde_ahg_bits[{}] has no clear bit: ffz() is undefined (sdma_init leaves bit 32 clear)",
                e.0
            ));
        }
    }
    Ok(())
}

/// sdma_select_engine_vl()/pio_select_send_context_vl(): m->map[vl &
/// m->mask] and e->sde[selector & e->mask] are unchecked, so each mask must
/// stay inside its array (the kernel sizes them as mask + 1), and
/// m->map[vl & mask] must not be NULL for any vl below num_vls.
fn check_map<T: TableIdx>(name: &str, m: &Option<VlMap<T>>, n: usize) -> Result<(), String> {
    // An index at or past n (n <= 255) names a slot the world lacks.
    let n = n.min(255) as u8;
    let Some(m) = m else { return Ok(()) };
    if m.mask as usize >= m.elems.len() {
        return Err(format!(
            "world.{name}.mask {} reaches past its {} element(s)",
            m.mask,
            m.elems.len()
        ));
    }
    for (i, e) in m.elems.iter().enumerate() {
        let Some(e) = e else {
            return Err(format!(
                "world.{name}.elems[{i}] is NULL: the selector dereferences it (build a world \
                 without that VL instead)"
            ));
        };
        if e.mask as usize >= e.entries.len() {
            return Err(format!(
                "world.{name}.elems[{i}].mask {} reaches past its {} entries",
                e.mask,
                e.entries.len()
            ));
        }
        // Every slot (those past the count are NULL): a fixed-length scan
        // without a branch per entry.
        let null = NullableIdx::<T>::NULL.raw();
        let bad = e
            .entries
            .all()
            .iter()
            .fold(false, |bad, x| bad | (x.raw() != null && x.raw() >= n));
        if bad {
            return Err(format!(
                "world.{name}.elems[{i}] names an engine the world lacks"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A freed send context is named by nothing: not the QP, not an
    /// argument, not the world's tables; one nothing names is fine.
    #[test]
    fn a_freed_context_is_named_by_nothing() {
        let mut c = crate::generate::seeded_call(1, Func::ScDisable, 0);
        c.world.num_send_contexts = 64;
        c.args = Args::ScDisable(args::ScDisable {
            sc: Some(SendCtxIdx(40)),
        });
        assert_eq!(validate(&c), Ok(()));
        let by_call = [c.qp.s_sendcontext, c.qp.wait_sc, Some(SendCtxIdx(40))];
        let named = |i: u8| world_names_sc(&c.world, i) || by_call.contains(&Some(SendCtxIdx(i)));
        let free = (0..64u8)
            .rev()
            .find(|i| !named(*i))
            .expect("a context nothing names");
        let mut ok = c.clone();
        let _ = ok.world.sc_freed.set(usize::from(free), true);
        assert_eq!(validate(&ok), Ok(()));
        let mut bad = c.clone();
        let _ = bad.world.sc_freed.set(40, true);
        let e = validate(&bad).expect_err("the argument's context freed");
        assert!(e.contains("send context 40 is freed"), "{e}");
        let mut bad = ok.clone();
        bad.world.vl_sc[0] = Some(SendCtxIdx(free));
        assert!(validate(&bad).is_err());
    }

    /// init_sc_pools_and_sizes(): a fixed-size type counted per CPU with
    /// fewer receive contexts than kernel queues leaves more blocks than
    /// the memory (a negative count); past `INT_MAX / 10000` a pool's
    /// share overflows an int, so such a world is refused.
    #[test]
    fn negative_per_cpu_counts_bound_the_pool_blocks() {
        let mut c = crate::generate::seeded_call(1, Func::InitScPoolsAndSizes, 0);
        c.world.pio_mem_size = 0x30000;
        c.world.sc_config_set = true;
        c.world.sc_config_size = [0xffff, 102, 32, 32767];
        c.world.sc_config_count = [0xffff, 1, 0xfffd, 0xfffe];
        c.world.n_krcv_queues = 16;
        c.world.num_rcv_contexts = 16;
        assert_eq!(check_init_sc_pools(&c), Ok(()));
        c.world.num_rcv_contexts = 0;
        let e = check_init_sc_pools(&c).expect_err("16 * 32767 blocks more");
        assert!(e.contains("negative per-CPU counts"), "{e}");
        c.world.sc_config_size[3] = 0xffff;
        assert_eq!(
            check_init_sc_pools(&c),
            Ok(()),
            "a pool's size: no fixed blocks"
        );
    }

    /// A per-port field may not describe a port the device lacks.
    #[test]
    fn per_port_fields_stop_at_the_declared_ports() {
        let mut c = crate::generate::seeded_call(1, Func::FreeAllQps, 0);
        c.world.sl_to_sc.truncate(1);
        c.world.port_ibmtu.truncate(1);
        c.world.port_gid_prefix.truncate(1);
        c.world.port_qp0.truncate(1);
        c.world.port_qp1.truncate(1);
        c.world.port_lid.truncate(1);
        c.qp.port = 1;
        c.qp.alt_port = 1;
        assert_eq!(validate(&c), Ok(()));
        c.world.port_lid.push(7).expect("two ports fit");
        let e = validate(&c).expect_err("a second port's LID on a one-port device");
        assert!(
            e.contains("world.port_lid") && e.contains("1 port(s)"),
            "{e}"
        );
        c.world.port_lid.clear();
        assert_eq!(validate(&c), Ok(()), "short per-port fields read 0");
    }
}
