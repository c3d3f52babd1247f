//! Smoke tests of the C world alone: upstream functions called through
//! the shim with small hand-built worlds, each outcome asserted as read
//! from the C (the line read is quoted above each assertion) — not from
//! the Rust model.

use harness::corpus;
use harness::cworld::{call, CallResult, Worker};
use harness::model::types::*;
use harness::outcome::Outcome;
use libtest_mimic::Failed;

/// A map element's entries from indices (None: NULL).
fn entries<T: TableIdx, const N: usize>(v: [Option<T>; N]) -> Slots<NullableIdx<T>, MAP_SLOTS> {
    v.into_iter()
        .map(|x| NullableIdx::new(x).expect("a test index below 255"))
        .collect()
}

/// A small world: one port, 2 VLs, 4 engines, 3 send contexts
/// (VL0 → sc#0, VL1 → sc#1, VL15 → sc#2), identity SL→SC.
fn small_world() -> World {
    let mut sc_to_vl = [0u8; 32];
    sc_to_vl[1] = 1;
    sc_to_vl[15] = 15;
    let mut vl_mtu = [0u16; 16];
    vl_mtu[0] = 4096;
    vl_mtu[1] = 4096;
    vl_mtu[15] = 2048;
    let mut vl_sc = [None; 16];
    vl_sc[0] = Some(SendCtxIdx(0));
    vl_sc[1] = Some(SendCtxIdx(1));
    vl_sc[15] = Some(SendCtxIdx(2));
    let mut sl_to_sc = [0u8; 32];
    for (i, s) in sl_to_sc.iter_mut().enumerate() {
        *s = i as u8;
    }
    World {
        dev_flags: Flags::of(&[DevFlag::Initted, DevFlag::Present, DevFlag::HasSendDma]),
        qos_shift: 0,
        num_vls: 2,
        piothreshold: 256,
        node: 0,
        node_cpus: CpuMask(0b11),
        sc_to_vl,
        vl_mtu,
        vl_sc,
        // sc#1 is hardware context 7 (its CSRs are 0x100 * 7 apart).
        sc_hw_context: {
            let mut h = PerIndex::new();
            h.set(1, 7).expect("room");
            h
        },
        // Every group one hardware context, as sc_alloc() makes it.
        sc_group: PerIndex::new(),
        // Every context the kernel's.
        sc_type: PerIndex::new(),
        sc_freed: PerIndex::new(),
        cap_use_sdma_head: false,
        cap_sdma_head_check: false,
        // One NUMA node, the device's.
        possible_nodes: 1,
        online_nodes: 1,
        cpu_nodes: 1,
        // No register set: each reads 0 (the PIO init engine done).
        sc_ctrl_csr: PerIndex::new(),
        sc_status_csr: PerIndex::new(),
        sc_err_csr: PerIndex::new(),
        pio_init_csr: 0,
        // Silicon, not an FPGA emulation.
        fpga_emulation: false,
        // An A-step chip without AHG; no engine status bit set.
        cap_sdma_ahg: false,
        chip_bx: false,
        sdma_status_csr: 0,
        default_desc1: 0,
        sdma_pad_phys: 0,
        dma_map_fail: 0,
        send_ctrl_csr: 0,
        sc_egress_csr: PerIndex::new(),
        sdma_cpus: [0, 1, 0, 1].into_iter().collect(),
        num_send_contexts: 3,
        sdma_map: Some(small_sdma_map()),
        pio_map: Some(small_pio_map()),
        kernel_sc: Slots::new(),
        rcvhdrqentsize: 32,
        sl_to_sc: [sl_to_sc].into_iter().collect(),
        port_ibmtu: [4096].into_iter().collect(),
        max_rdma_atomic: 16,
        extra_rdma_atomic: 0,
        queue_work_ret: true,
        tid_send_ret: false,
        cancel_work_ret: false,
        port_lid: [1].into_iter().collect(),
        port_gid_prefix: [0xfe80_0000_0000_0000].into_iter().collect(),
        port_qp0: [true].into_iter().collect(),
        port_qp1: [true].into_iter().collect(),
        alloc_fail: 0,
        // The send context table's and allocation's fields: the schema's
        // defaults (a 160-context chip, the module parameters' defaults).
        ..World::blank()
    }
}

/// The small world's SDMA map: VL0 on engines 0 and 1, VL1 on 2 and 3.
fn small_sdma_map() -> VlMap<EngineIdx> {
    VlMap {
        mask: 1,
        elems: [
            Some(MapElem {
                mask: 1,
                entries: entries([Some(EngineIdx(0)), Some(EngineIdx(1))]),
            }),
            Some(MapElem {
                mask: 1,
                entries: entries([Some(EngineIdx(2)), Some(EngineIdx(3))]),
            }),
        ]
        .into_iter()
        .collect(),
    }
}

/// The small world's PIO map: VL0 on sc#0, VL1 on sc#1.
fn small_pio_map() -> VlMap<SendCtxIdx> {
    VlMap {
        mask: 1,
        elems: [
            Some(MapElem {
                mask: 0,
                entries: entries([Some(SendCtxIdx(0))]),
            }),
            Some(MapElem {
                mask: 0,
                entries: entries([Some(SendCtxIdx(1))]),
            }),
        ]
        .into_iter()
        .collect(),
    }
}

/// A call of `func` on an RTS QP of `qp_type` (number 0x41, port 1, pmtu
/// 4096) in the small world, posting a SEND of `length` bytes.
pub fn call(func: Func, qp_type: QpType, length: u32) -> Call {
    Call::new(
        func,
        small_world(),
        Qp::new(qp_type, 0x41, 1, 4096, QpState::Rts),
        Wqe {
            length,
            opcode: WrOpcode::Send,
            has_priv: false,
            ah: None,
        },
    )
}

fn run_c(worker: &mut Worker, c: &Call) -> Result<Outcome, Failed> {
    corpus::validate(c).map_err(|e| format!("hand-built call breaks an invariant: {e}"))?;
    let r = worker
        .run_batch(&[call::to_shim(c)])
        .map_err(|e| format!("{e:#}"))?;
    match r.into_iter().next() {
        Some(CallResult::Done(o)) => Ok(*o),
        other => Err(format!("the C world did not return: {other:?}").into()),
    }
}

fn check(
    what: &str,
    got: impl PartialEq + std::fmt::Debug,
    want: impl PartialEq + std::fmt::Debug,
) -> Result<(), Failed>
where
{
    if format!("{got:?}") == format!("{want:?}") {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}").into())
    }
}

/// A smoke test: a call or two in a fresh worker, asserted.
pub type Smoke = fn(&mut Worker) -> Result<(), Failed>;

/// Every smoke test, by trial name.
pub fn smoke_tests() -> Vec<(&'static str, Smoke)> {
    vec![
        (
            "ud_length_above_ah_mtu_is_einval",
            ud_length_above_ah_mtu_is_einval,
        ),
        (
            "smi_length_above_vl15_mtu_is_einval",
            smi_length_above_vl15_mtu_is_einval,
        ),
        ("rc_at_piothreshold_posts_now", rc_at_piothreshold_posts_now),
        (
            "rc_tid_setup_only_when_conditions_hold",
            rc_tid_setup_only_when_conditions_hold,
        ),
        (
            "smi_has_no_sdma_engine_and_vl15_context",
            smi_has_no_sdma_engine_and_vl15_context,
        ),
        ("rc_engine_from_the_map", rc_engine_from_the_map),
        (
            "credit_interrupt_first_user_forces_a_return",
            credit_interrupt_first_user_forces_a_return,
        ),
    ]
}

fn credit_interrupt_first_user_forces_a_return(w: &mut Worker) -> Result<(), Failed> {
    // pio.c, hfi1_sc_wantpiobuf_intr(sc, 1): sc_add_credit_return_intr()
    // sets the interrupt bit of the cached credit control (0x20000) and
    // writes it to the context's CREDIT_CTRL register for the first user,
    // then counts the user; the tracepoint; sc_return_credits() pulses the
    // force-return bit of CREDIT_FORCE (write 1, read, write 0).
    let mut c = call(Func::ScWantPiobufIntr, QpType::Rc, 0);
    c.args = Args::ScWantPiobufIntr(args::ScWantPiobufIntr {
        sc: Some(SendCtxIdx(1)),
        needint: 1,
    });
    c.engines.sc_credit_ctrl.set(1, 0x4).expect("room");
    let o = run_c(w, &c)?;
    check("count", o.engines.sc_credit_intr_count.get(1), 1)?;
    check("credit_ctrl", o.engines.sc_credit_ctrl.get(1), 0x20004)?;
    check(
        "journal",
        &o.journal,
        [
            "write_csr(SEND_CTXT_CREDIT_CTRL[7], 0x20004)",
            "trace hfi1_wantpiointr(sc#1, 0x1, 0x20004)",
            "write_csr(SEND_CTXT_CREDIT_FORCE[7], 0x1)",
            "read_csr(SEND_CTXT_CREDIT_FORCE[7])",
            "write_csr(SEND_CTXT_CREDIT_FORCE[7], 0x0)",
        ],
    )?;
    // The last user's removal: count 1 -> 0 clears the bit and writes it.
    c.args = Args::ScWantPiobufIntr(args::ScWantPiobufIntr {
        sc: Some(SendCtxIdx(1)),
        needint: 0,
    });
    c.engines = o.engines;
    let o = run_c(w, &c)?;
    check("count after", o.engines.sc_credit_intr_count.get(1), 0)?;
    check("credit_ctrl after", o.engines.sc_credit_ctrl.get(1), 0x4)?;
    check(
        "journal after",
        &o.journal,
        [
            "write_csr(SEND_CTXT_CREDIT_CTRL[7], 0x4)",
            "trace hfi1_wantpiointr(sc#1, 0x0, 0x4)",
        ],
    )
}

fn ud_length_above_ah_mtu_is_einval(w: &mut Worker) -> Result<(), Failed> {
    // qp.c hfi1_setup_wqe, case IB_QPT_UD:
    //   if (wqe->length > (1 << ah->log_pmtu)) return -EINVAL;
    let mut c = call(Func::SetupWqe, QpType::Ud, 4097);
    c.wqe.ah = Some(Ah {
        log_pmtu: 12,
        sl: Sl(0),
        port: 1,
    });
    check("ret", run_c(w, &c)?.ret, -22)?;
    c.wqe.length = 4096;
    check("ret at 1 << log_pmtu", run_c(w, &c)?.ret, 0)
}

fn smi_length_above_vl15_mtu_is_einval(w: &mut Worker) -> Result<(), Failed> {
    // qp.c hfi1_setup_wqe, case IB_QPT_SMI:
    //   if (wqe->length > dd->vld[15].mtu) return -EINVAL;
    let mut c = call(Func::SetupWqe, QpType::Smi, 2049);
    c.qp.num = 0;
    // rdmavt posts SMI work requests with an AH; hfi1 ignores it
    // for SMI (an MTU of 256 here would reject 2048 if it counted).
    c.wqe.ah = Some(Ah {
        log_pmtu: 8,
        sl: Sl(0),
        port: 1,
    });
    check("ret", run_c(w, &c)?.ret, -22)?;
    c.wqe.length = 2048;
    check("ret at vld[15].mtu", run_c(w, &c)?.ret, 0)
}

fn rc_at_piothreshold_posts_now(w: &mut Worker) -> Result<(), Failed> {
    // qp.c hfi1_setup_wqe, after the switch:
    //   if (wqe->length <= piothreshold) *call_send = true;
    let c = call(Func::SetupWqe, QpType::Rc, 256);
    let o = run_c(w, &c)?;
    check("ret", o.ret, 0)?;
    check("call_send", o.call_send, true)?;
    // No TID RDMA: the wqe has no priv (tid_rdma.h).
    check("journal", o.journal, Vec::<String>::new())
}

fn rc_tid_setup_only_when_conditions_hold(w: &mut Worker) -> Result<(), Failed> {
    // tid_rdma.h hfi1_setup_tid_rdma_wqe:
    //   if (wqe->priv && (opcode == IB_WR_RDMA_READ || opcode ==
    //       IB_WR_RDMA_WRITE) && wqe->length >= TID_RDMA_MIN_SEGMENT_SIZE)
    //           setup_tid_rdma_wqe(qp, wqe);
    // TID_RDMA_MIN_SEGMENT_SIZE is BIT(18).
    let mut c = call(Func::SetupWqe, QpType::Rc, 1 << 18);
    c.wqe.opcode = WrOpcode::RdmaRead;
    c.wqe.has_priv = true;
    let o = run_c(w, &c)?;
    check(
        "journal",
        o.journal,
        vec!["setup_tid_rdma_wqe(qp#0x41, wqe)".to_string()],
    )?;
    // Above pmtu (4096): *call_send = false; above piothreshold: kept.
    check("call_send", o.call_send, false)?;
    c.wqe.length = (1 << 18) - 1;
    check(
        "journal below the minimum",
        run_c(w, &c)?.journal,
        Vec::<String>::new(),
    )?;
    c.wqe.length = 1 << 18;
    c.wqe.has_priv = false;
    check(
        "journal without priv",
        run_c(w, &c)?.journal,
        Vec::<String>::new(),
    )?;
    c.wqe.has_priv = true;
    c.wqe.opcode = WrOpcode::Send;
    check(
        "journal for SEND",
        run_c(w, &c)?.journal,
        Vec::<String>::new(),
    )
}

fn smi_has_no_sdma_engine_and_vl15_context(w: &mut Worker) -> Result<(), Failed> {
    // qp.c qp_to_sdma_engine: case IB_QPT_SMI: return NULL;
    let mut c = call(Func::QpToSdmaEngine, QpType::Smi, 0);
    c.qp.num = 0;
    check("engine", run_c(w, &c)?.sdma_engine, Ptr::<EngineIdx>::Null)?;
    // qp.c qp_to_send_context: case IB_QPT_SMI: return dd->vld[15].sc;
    c.args = Args::blank(Func::QpToSendContext);
    check(
        "send context",
        run_c(w, &c)?.send_context,
        Ptr::To(SendCtxIdx(2)),
    )
}

fn rc_engine_from_the_map(w: &mut Worker) -> Result<(), Failed> {
    // qp.c qp_to_sdma_engine: sdma_select_engine_sc(dd, qp_num >>
    // qos_shift, sc5); sdma.c: e = m->map[vl & m->mask];
    // rval = e->sde[selector & e->mask]. SC1 → VL1 → element 1,
    // selector 0x41 & 1 = 1 → engine 3.
    let mut c = call(Func::QpToSdmaEngine, QpType::Rc, 0);
    c.args = Args::QpToSdmaEngine(args::QpToSdmaEngine { sc5: Sc(1) });
    check("engine", run_c(w, &c)?.sdma_engine, Ptr::To(EngineIdx(3)))?;
    // sdma.c: if (vl >= num_vls) ... rval = &dd->per_sdma[0]. SC15 → VL15.
    c.args = Args::QpToSdmaEngine(args::QpToSdmaEngine { sc5: Sc(15) });
    check(
        "engine for VL15",
        run_c(w, &c)?.sdma_engine,
        Ptr::To(EngineIdx(0)),
    )
}
