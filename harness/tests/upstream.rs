//! Smoke tests of the C world alone, and proof that it runs the tree's code.
//!
//! The smoke tests call upstream functions through the shim with small
//! hand-built worlds and assert outcomes derived by reading the C (the line
//! read is quoted above each assertion) — not from the Rust model.
//!
//! The mutation tests copy a tree, change one comparison in its source,
//! and show that the outcome changes and that the conformance run (the code
//! behind `cargo xtask conformance --kernel-src COPY`) fails, naming the
//! vectors that caught it.
//!
//! Kernels: every series in `HFI1_KERNELS` (default 6.12), like the
//! conformance suite.

mod common;

use common::copy_tree;

use harness::cmd::conformance;
use harness::cworld::{self, call, BuildOptions, CallResult, Worker};
use harness::kernel::select::KernelSel;
use harness::kernel::{self, KernelTree};
use harness::model::types::*;

/// A map element's entries from indices (None: NULL).
fn entries<T: TableIdx, const N: usize>(v: [Option<T>; N]) -> Slots<NullableIdx<T>, MAP_SLOTS> {
    v.into_iter()
        .map(|x| NullableIdx::new(x).expect("a test index below 255"))
        .collect()
}
use harness::corpus;
use harness::outcome::Outcome;
use libtest_mimic::{Arguments, Failed, Trial};

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
        sdma_cpus: [0, 1, 0, 1].into_iter().collect(),
        num_send_contexts: 3,
        sdma_map: Some(VlMap {
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
        }),
        pio_map: Some(VlMap {
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
        }),
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
    }
}

fn call(func: Func, qp_type: QpType, length: u32) -> Call {
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
        Some(CallResult::Done(o)) => Ok(call::from_shim(&o)),
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

type Smoke = fn(&mut Worker) -> Result<(), Failed>;

fn smoke_tests() -> Vec<(&'static str, Smoke)> {
    vec![
        ("ud_length_above_ah_mtu_is_einval", |w| {
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
        }),
        ("smi_length_above_vl15_mtu_is_einval", |w| {
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
        }),
        ("rc_at_piothreshold_posts_now", |w| {
            // qp.c hfi1_setup_wqe, after the switch:
            //   if (wqe->length <= piothreshold) *call_send = true;
            let c = call(Func::SetupWqe, QpType::Rc, 256);
            let o = run_c(w, &c)?;
            check("ret", o.ret, 0)?;
            check("call_send", o.call_send, true)?;
            // No TID RDMA: the wqe has no priv (tid_rdma.h).
            check("journal", o.journal, Vec::<String>::new())
        }),
        ("rc_tid_setup_only_when_conditions_hold", |w| {
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
        }),
        ("smi_has_no_sdma_engine_and_vl15_context", |w| {
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
        }),
        ("rc_engine_from_the_map", |w| {
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
        }),
    ]
}

/// A vector outside the invariants (a NULL element in the SDMA map, which
/// sdma_select_engine_vl dereferences) crashes the worker; the batch around
/// it still completes and the crash is reported for that vector alone.
fn crash_is_a_finding(world: &cworld::BuiltWorld) -> Result<(), Failed> {
    let good = call(Func::QpToSdmaEngine, QpType::Rc, 0);
    let mut bad = good.clone();
    // VL1: the element made NULL below.
    bad.args = Args::QpToSdmaEngine(args::QpToSdmaEngine { sc5: Sc(1) });
    if let Some(m) = bad.world.sdma_map.as_mut() {
        m.elems[1] = None;
    }
    let calls = [
        call::to_shim(&good),
        call::to_shim(&bad),
        call::to_shim(&good),
    ];
    let mut w = Worker::new(world).map_err(|e| format!("{e:#}"))?;
    let r = w.run_batch(&calls).map_err(|e| format!("{e:#}"))?;
    match (&r[0], &r[1], &r[2]) {
        (
            CallResult::Done(_),
            CallResult::Fault(cworld::Fault::Crashed(why)),
            CallResult::Done(_),
        ) if why.contains("SIGSEGV") => Ok(()),
        other => Err(format!("expected done, SIGSEGV crash, done; got {other:?}").into()),
    }
}

/// The first call a fresh worker runs sees the same world as any later
/// one: a vector whose outcome goes through the send-context table
/// (`dd->vld[15].sc` for an SMI QP), first and then again, gives the same
/// outcome both times, the model's. (A random run found the world's
/// one-time set-up ordered after its first use.)
fn first_call_sees_the_whole_world(world: &cworld::BuiltWorld) -> Result<(), Failed> {
    let c = call(Func::QpToSendContext, QpType::Smi, 0);
    let mut w = Worker::new(world).map_err(|e| format!("{e:#}"))?;
    let r = w
        .run_batch(&[call::to_shim(&c), call::to_shim(&c)])
        .map_err(|e| format!("{e:#}"))?;
    let model = harness::model::run(&c).map_err(|e| format!("model: {e:?}"))?;
    match (&r[0], &r[1]) {
        (CallResult::Done(a), CallResult::Done(b)) => {
            let (a, b) = (call::from_shim(a), call::from_shim(b));
            if a != b || a != model {
                return Err(format!("first {a:?}\nsecond {b:?}\nmodel {model:?}").into());
            }
            if model.send_context == Ptr::Null {
                return Err("the vector should reach a send context".into());
            }
            Ok(())
        }
        other => Err(format!("expected two outcomes, got {other:?}").into()),
    }
}

/// Built with ASan and UBSan, upstream's undefined behaviour for a vector
/// outside the invariants (`qp_num >> qos_shift` with a shift of 40) is
/// reported for that vector with the sanitizer's words.
fn ubsan_reports_upstream_ub(tree: &KernelTree) -> Result<(), Failed> {
    let world = cworld::build(
        tree,
        &BuildOptions {
            sanitize: true,
            ..Default::default()
        },
    )
    .map_err(|e| format!("{e:#}"))?;
    let mut bad = call(Func::QpToSdmaEngine, QpType::Rc, 0);
    bad.world.qos_shift = 40;
    let good = call(Func::QpToSdmaEngine, QpType::Rc, 0);
    let mut w = Worker::new(&world).map_err(|e| format!("{e:#}"))?;
    let r = w
        .run_batch(&[call::to_shim(&good), call::to_shim(&bad)])
        .map_err(|e| format!("{e:#}"))?;
    match (&r[0], &r[1]) {
        (CallResult::Done(_), CallResult::Fault(cworld::Fault::Crashed(why)))
            if why.contains("runtime error") && why.contains("shift") =>
        {
            Ok(())
        }
        other => Err(format!("expected a UBSan shift report; got {other:?}").into()),
    }
}

/// Worlds as strict as the kernel: past the ports a world declares there
/// is nothing, so under --sanitize an off-by-one loop bound over the ports
/// (free_all_qps: `n <= dd->num_pports`) is a crash finding on a one-port
/// world, with the sanitizer's report, while the same world with two ports
/// still returns.
fn sanitize_poisons_past_declared_ports(tree: &KernelTree) -> Result<(), Failed> {
    let qp = "drivers/infiniband/hw/hfi1/qp.c";
    let from = "for (n = 0; n < dd->num_pports; n++) {";
    let dir = std::env::temp_dir().join(format!(
        "hfi1-poison-{}-{}-{:?}",
        tree.version,
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(&tree.root, &dir).map_err(|e| e.to_string())?;
    let result = (|| -> Result<(), Failed> {
        let path = dir.join(qp);
        let src = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        if !src.contains(from) {
            return Err(format!("{qp} has no `{from}`").into());
        }
        std::fs::write(
            &path,
            src.replacen(from, "for (n = 0; n <= dd->num_pports; n++) {", 1),
        )
        .map_err(|e| e.to_string())?;
        let mutant = KernelTree::open(&dir).map_err(|e| format!("{e:#}"))?;
        let world = cworld::build(
            &mutant,
            &BuildOptions {
                sanitize: true,
                ..Default::default()
            },
        )
        .map_err(|e| format!("{e:#}"))?;
        let mut one = call(Func::FreeAllQps, QpType::Rc, 0);
        let base = harness::generate::seeded_call(1, Func::FreeAllQps, 0).world;
        one.world = base;
        one.world.sl_to_sc.truncate(1);
        one.world.port_ibmtu.truncate(1);
        one.world.port_lid.truncate(1);
        one.world.port_gid_prefix.truncate(1);
        one.world.port_qp0.truncate(1);
        one.world.port_qp1.truncate(1);
        one.qp.port = 1;
        one.qp.alt_port = 1;
        let mut two = one.clone();
        two.world = base;
        while two.world.sl_to_sc.len() < 2 {
            two.world
                .sl_to_sc
                .push([0; 32])
                .map_err(|_| "two ports fit")?;
        }
        while two.world.port_ibmtu.len() < 2 {
            two.world
                .port_ibmtu
                .push(4096)
                .map_err(|_| "two ports fit")?;
        }
        harness::corpus::invariants::validate(&one).map_err(|e| format!("one port: {e}"))?;
        harness::corpus::invariants::validate(&two).map_err(|e| format!("two ports: {e}"))?;
        let mut w = Worker::new(&world).map_err(|e| format!("{e:#}"))?;
        let r = w
            .run_batch(&[call::to_shim(&two), call::to_shim(&one)])
            .map_err(|e| format!("{e:#}"))?;
        match (&r[0], &r[1]) {
            (CallResult::Done(_), CallResult::Fault(cworld::Fault::Crashed(why)))
                if why.contains("AddressSanitizer") =>
            {
                Ok(())
            }
            (a, b) => {
                let short = |r: &CallResult| match r {
                    CallResult::Done(o) => format!("returned {}", o.ret),
                    CallResult::Fault(f) => format!("{f}"),
                    CallResult::Malformed => "malformed".to_owned(),
                };
                Err(format!(
                    "expected two ports to return and one port to be an ASan crash; got {} and {}",
                    short(a),
                    short(b)
                )
                .into())
            }
        }
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The worker reuses one flat-call buffer from vector to vector
/// (`call::fill_shim`): every generated vector must give the same outcome
/// through a reused buffer as through a fresh one. (Valid vectors only, so
/// the world is loaded in this process, as the benchmark does.)
fn reused_flat_call_buffer(world: &cworld::BuiltWorld) -> Result<(), Failed> {
    // SAFETY: the default series' Debian tree and valid vectors.
    let lib = unsafe { cworld::Loaded::open(&world.so) }.map_err(|e| format!("{e:#}"))?;
    let mut reused = Box::<harness::cworld::ffi::shim_call>::default();
    let (mut a, mut b) = (
        harness::cworld::ffi::shim_outcome::default(),
        harness::cworld::ffi::shim_outcome::default(),
    );
    for i in 0..3000u64 {
        let f = Func::ALL[(i % Func::ALL.len() as u64) as usize];
        let c = harness::generate::seeded_call(11, f, i);
        call::fill_shim(&c, &mut reused);
        let fresh = call::to_shim(&c);
        if !lib.call(&reused, &mut a) || !lib.call(&fresh, &mut b) {
            return Err(format!("{f} #{i}: the shim refused a valid call").into());
        }
        if call::from_shim(&a) != call::from_shim(&b) {
            return Err(format!(
                "{f} #{i}: reused buffer {} / fresh {}",
                call::from_shim(&a),
                call::from_shim(&b)
            )
            .into());
        }
    }
    Ok(())
}

struct Mutation {
    name: &'static str,
    file: &'static str,
    from: &'static str,
    to: &'static str,
    /// Vectors of the corpus that must catch it.
    caught_by: &'static [&'static str],
}

const MUTATIONS: &[Mutation] = &[
    // A missing unlock: no field of the outcome moves, but the call returns
    // holding qp->s_lock, which the shim journals (kcompat lockdep.h).
    Mutation {
        name: "wakeup_keeps_s_lock",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "\t\thfi1_qp_schedule(qp);\n\t}\n\tspin_unlock_irqrestore(&qp->s_lock, flags);\n",
        to: "\t\thfi1_qp_schedule(qp);\n\t}\n",
        caught_by: &["schedule::wakeup_flag_not_set"],
    },
    Mutation {
        name: "piothreshold_le_to_lt",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (wqe->length <= piothreshold)",
        to: "if (wqe->length < piothreshold)",
        caught_by: &["setup_wqe::rc_at_piothreshold_sets_call_send"],
    },
    Mutation {
        name: "pmtu_gt_to_ge",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (wqe->length > qp->pmtu)",
        to: "if (wqe->length >= qp->pmtu)",
        caught_by: &["setup_wqe::rc_at_pmtu_keeps_call_send_true"],
    },
    Mutation {
        name: "sdma_selector_unmasked",
        file: "drivers/infiniband/hw/hfi1/sdma.c",
        from: "rval = e->sde[selector & e->mask];",
        to: "rval = e->sde[selector];",
        caught_by: &["engine::sdma_rc_odd_qpn", "select::sdma_vl_selector_masked"],
    },
    Mutation {
        name: "iter_cb_sl_ne_to_eq",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "rdma_ah_get_sl(&qp->remote_ah_attr) != sl ||",
        to: "rdma_ah_get_sl(&qp->remote_ah_attr) == sl ||",
        caught_by: &["error_port::rc_matching_sl", "error_port::other_sl_skipped"],
    },
    Mutation {
        name: "qp_idle_last_test",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "qp->s_tail == qp->s_head;",
        to: "qp->s_tail != qp->s_head;",
        caught_by: &["print::idle_rc", "print::idle_but_head_differs"],
    },
    Mutation {
        name: "shutdown_returns_false",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (dd->flags & HFI1_SHUTDOWN)\n\t\treturn true;",
        to: "if (dd->flags & HFI1_SHUTDOWN)\n\t\treturn false;",
        caught_by: &["schedule::nocheck_shutdown"],
    },
    Mutation {
        name: "unbusy_tid_handover_inverted",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (priv->s_flags & HFI1_S_TID_BUSY_SET) {",
        to: "if (!(priv->s_flags & HFI1_S_TID_BUSY_SET)) {",
        caught_by: &[
            "schedule::unbusy_ib_leg",
            "schedule::unbusy_ib_leg_hands_over_to_tid",
        ],
    },
    Mutation {
        name: "mtu_10240_not_constrained",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (mtu == (enum ib_mtu)OPA_MTU_10240)",
        to: "if (mtu != (enum ib_mtu)OPA_MTU_10240)",
        caught_by: &[
            "mtu::from_qp_10240_uncapped",
            "mtu::pmtu_attr_10240_is_8192",
        ],
    },
    Mutation {
        name: "send_ok_resp_pending_ignored",
        file: "drivers/infiniband/hw/hfi1/qp.h",
        from: "(qp->s_flags & RVT_S_RESP_PENDING) ||",
        to: "(qp->s_flags & 0) ||",
        caught_by: &["schedule::sched_wait_send_resp_pending"],
    },
    Mutation {
        name: "migration_needs_armed_inverted",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "qp->s_mig_state == IB_MIG_ARMED) {",
        to: "qp->s_mig_state != IB_MIG_ARMED) {",
        caught_by: &[
            "path::modify_migrated_from_armed",
            "path::modify_migrated_not_armed",
        ],
    },
    Mutation {
        name: "running_pkt_size_quarter",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "priv->s_running_pkt_size = piothreshold / 2;",
        to: "priv->s_running_pkt_size = piothreshold / 4;",
        caught_by: &["lifecycle::alloc_ok", "lifecycle::alloc_ok_other_threshold"],
    },
    Mutation {
        name: "check_modify_alt_sc_unchecked",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "sc = ah_to_sc(ibqp->device, &attr->alt_ah_attr);\n\t\tif (sc == 0xf)",
        to: "sc = ah_to_sc(ibqp->device, &attr->alt_ah_attr);\n\t\tif (sc == 0xe)",
        caught_by: &["modify::alt_path_sc_0xf", "modify::av_ok_alt_bad"],
    },
    Mutation {
        name: "init_priority_ignores_tid_leg",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (priv->s_flags & RVT_S_ACK_PENDING)\n\t\tw->priority++;",
        to: "if (0)\n\t\tw->priority++;",
        caught_by: &["callbacks::priority_priv_ack", "callbacks::priority_both"],
    },
    Mutation {
        name: "hdr_type_permissive_gid_test_inverted",
        file: "drivers/infiniband/hw/hfi1/hfi.h",
        from: "HFI1_PKT_TYPE_16B : HFI1_PKT_TYPE_9B;",
        to: "HFI1_PKT_TYPE_9B : HFI1_PKT_TYPE_16B;",
        caught_by: &[
            "path::modify_av_grh_opa_permissive_opa_gid",
            "path::modify_av_grh_opa_permissive_ib_gid",
        ],
    },
    Mutation {
        name: "stop_send_queue_keeps_trigger_reference",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (cancel_work_sync(&priv->tid_rdma.trigger_work))\n\t\trvt_put_qp(qp);",
        to: "if (cancel_work_sync(&priv->tid_rdma.trigger_work))\n\t\t;",
        caught_by: &["lifecycle::stop_send_queue_trigger_last_reference"],
    },
    Mutation {
        name: "tid_schedule_result_inverted",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (ret)\n\t\t\tiowait_clear_flag(&priv->s_iowait, IOWAIT_PENDING_TID);",
        to: "if (!ret)\n\t\t\tiowait_clear_flag(&priv->s_iowait, IOWAIT_PENDING_TID);",
        caught_by: &[
            "schedule::wakeup_pending_tid",
            "schedule::wakeup_pending_tid_scheduled",
        ],
    },
];

fn mutate(tree: &KernelTree, m: &Mutation) -> Result<(), Failed> {
    let dir = std::env::temp_dir().join(format!(
        "hfi1-mutant-{}-{}-{}",
        tree.version,
        m.name,
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(&tree.root, &dir).map_err(|e| format!("copying the tree: {e}"))?;
    let path = dir.join(m.file);
    let src = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    if src.matches(m.from).count() != 1 {
        return Err(format!(
            "{}: `{}` is not there exactly once; update this mutation",
            m.file, m.from
        )
        .into());
    }
    std::fs::write(&path, src.replacen(m.from, m.to, 1)).map_err(|e| e.to_string())?;
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
    let run = conformance::run_kernel(
        &KernelSel::Path(dir.clone()),
        &vectors,
        &BuildOptions::default(),
        &mut |_| {},
    )
    .map_err(|e| format!("{e:#}"))?;
    let _ = std::fs::remove_dir_all(&dir);
    if run.ok() {
        return Err(format!(
            "the mutant {} passed conformance: nothing caught it",
            m.name
        )
        .into());
    }
    let failing = conformance::failing_ids(&vectors, &run);
    for want in m.caught_by {
        if !failing.iter().any(|f| f == want) {
            return Err(format!("{want} did not catch {}; failing: {failing:?}", m.name).into());
        }
    }
    // The unmutated tree passes, so it is the change that was caught.
    if run.snapshots.is_empty() {
        return Err("the mutant's upstream outcomes still match the snapshots".into());
    }
    Ok(())
}

/// C against C: a tree compared with itself differs nowhere; with the
/// piothreshold mutant (`<=` → `<`), exactly hfi1_setup_wqe's call_send
/// differs, on the corpus vector that pins it and on generated vectors, and
/// the minimal reproducer still shows it with the send at the threshold.
fn diff_finds_the_mutant(tree: &KernelTree) -> Result<(), Failed> {
    let m = MUTATIONS
        .iter()
        .find(|m| m.name == "piothreshold_le_to_lt")
        .ok_or("no piothreshold mutation")?;
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
    let base = cworld::build(tree, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
    let funcs = [Func::SetupWqe, Func::QpToSdmaEngine];
    let same =
        harness::judge::compare::compare(&base, &base, &vectors, &funcs, 300, 1, &mut |_| {})
            .map_err(|e| format!("{e:#}"))?;
    if same.differs() {
        return Err(format!("a tree differs from itself: {:?}", same.groups).into());
    }
    let dir =
        std::env::temp_dir().join(format!("hfi1-diff-{}-{}", tree.version, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(&tree.root, &dir).map_err(|e| e.to_string())?;
    let path = dir.join(m.file);
    let src = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    std::fs::write(&path, src.replacen(m.from, m.to, 1)).map_err(|e| e.to_string())?;
    let mutant = KernelTree::open(&dir)
        .and_then(|t| cworld::build(&t, &BuildOptions::default()))
        .map_err(|e| format!("{e:#}"));
    let c = mutant.and_then(|w| {
        harness::judge::compare::compare(&base, &w, &vectors, &funcs, 300, 1, &mut |_| {})
            .map_err(|e| format!("{e:#}"))
    });
    let _ = std::fs::remove_dir_all(&dir);
    let c = c?;
    let shapes: Vec<(Func, Vec<String>)> =
        c.groups.iter().map(|g| (g.func, g.shape.clone())).collect();
    if shapes != vec![(Func::SetupWqe, vec!["call_send".to_owned()])] {
        return Err(format!("groups {shapes:?}").into());
    }
    let g = &c.groups[0];
    if g.count < 2 || g.minimal.wqe.length != u32::from(g.minimal.world.piothreshold) {
        return Err(format!("count {}, minimal {:?}", g.count, g.minimal.wqe).into());
    }
    Ok(())
}

/// A vendor-shaped tree of our own, made from `tree`'s hfi1 driver at
/// test time (nothing of a vendor's is committed): no top Makefile, an
/// `include/rdma/rdmavt_qp.h` overlay reaching the kernel's with
/// `#include_next`, a `compat/compat.h` defining a compat macro, and a
/// qp.c whose qp_iter_print prints one more word only when the compat
/// macro and the overlay header are both in effect (or calls two symbols
/// no world provides, under another macro).
fn vendor_fixture(tree: &KernelTree, dir: &std::path::Path) -> Result<(), Failed> {
    let e = |e: std::io::Error| Failed::from(e.to_string());
    let _ = std::fs::remove_dir_all(dir);
    let hfi1 = "drivers/infiniband/hw/hfi1";
    copy_tree(&tree.path(hfi1), &dir.join(hfi1)).map_err(e)?;
    std::fs::create_dir_all(dir.join("include/rdma")).map_err(e)?;
    std::fs::create_dir_all(dir.join("compat")).map_err(e)?;
    std::fs::write(
        dir.join("include/rdma/rdmavt_qp.h"),
        "#include_next <rdma/rdmavt_qp.h>\n#define RVT_VENDOR_OVERLAY 1\n",
    )
    .map_err(e)?;
    std::fs::write(
        dir.join("compat/compat.h"),
        "#define HAVE_VENDOR_EXTRA 1\nstruct rvt_qp;\nint vendor_tid_print(struct rvt_qp *qp);\n\
         int vendor_opfn(struct rvt_qp *qp);\n",
    )
    .map_err(e)?;
    let qp = dir.join(hfi1).join("qp.c");
    let src = std::fs::read_to_string(&qp).map_err(e)?;
    let at = src
        .find("void qp_iter_print(")
        .and_then(|i| src[i..].find("\tseq_printf(s,").map(|j| i + j))
        .ok_or("no seq_printf in qp_iter_print")?;
    let insert = "#if defined(HAVE_VENDOR_EXTRA) && defined(RVT_VENDOR_OVERLAY)\n\
                  \tseq_printf(s, \"VENDOR \");\n#endif\n\
                  #ifdef HAVE_VENDOR_CALLS\n\tvendor_tid_print(qp);\n\tvendor_opfn(qp);\n#endif\n";
    std::fs::write(&qp, format!("{}{insert}{}", &src[..at], &src[at..])).map_err(e)?;
    Ok(())
}

/// A vendor overlay on the series' tree: refused as a kernel tree with
/// the way to pass it; composed with its profile, it differs from upstream
/// in qp_iter_print only, and only when its compat macro is on (forced by
/// its compat header, or derived from the base's headers); symbols no
/// world provides are listed all at once with where they are used.
fn vendor_overlay(tree: &KernelTree) -> Result<(), Failed> {
    use harness::kernel::overlay::{compose, Have, Profile};
    let dir = std::env::temp_dir().join(format!(
        "hfi1-vendor-{}-{}-{:?}",
        tree.version,
        std::process::id(),
        std::thread::current().id()
    ));
    vendor_fixture(tree, &dir)?;
    let result = (|| -> Result<(), Failed> {
        match KernelTree::open(&dir) {
            Err(e) if format!("{e:#}").contains("--overlay") => {}
            other => return Err(format!("opened as a kernel: {other:?}").into()),
        }
        let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
        let base = cworld::build(tree, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
        let shapes = |p: &Profile| -> Result<Vec<(Func, Vec<String>)>, Failed> {
            let t = compose(tree, &dir, p).map_err(|e| format!("{e:#}"))?;
            let w = cworld::build(&t, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
            let c = harness::judge::compare::compare(
                &base,
                &w,
                &vectors,
                Func::ALL,
                100,
                1,
                &mut |_| {},
            )
            .map_err(|e| format!("{e:#}"))?;
            Ok(c.groups.iter().map(|g| (g.func, g.shape.clone())).collect())
        };
        let printed = vec![(Func::QpIterPrint, vec!["text".to_owned()])];
        let forced = Profile {
            force_include: vec!["compat/compat.h".into()],
            ..Default::default()
        };
        let s = shapes(&forced)?;
        if s != printed {
            return Err(format!("forced compat.h: {s:?}").into());
        }
        let s = shapes(&Profile::default())?;
        if !s.is_empty() {
            return Err(format!("no profile: {s:?}").into());
        }
        let mut derived = Profile::default();
        derived.have.insert(
            "HAVE_VENDOR_EXTRA".into(),
            Have {
                file: "include/rdma/rdmavt_qp.h".into(),
                contains: "struct rvt_qp".into(),
            },
        );
        let s = shapes(&derived)?;
        if s != printed {
            return Err(format!("derived HAVE_: {s:?}").into());
        }
        let calls = Profile {
            force_include: vec!["compat/compat.h".into()],
            defines: vec!["HAVE_VENDOR_CALLS".into()],
            ..Default::default()
        };
        let t = compose(tree, &dir, &calls).map_err(|e| format!("{e:#}"))?;
        match cworld::build(&t, &BuildOptions::default()) {
            Err(e) => {
                let m = format!("{e:#}");
                let named = |s: &str| {
                    m.lines()
                        .any(|l| l.contains(&format!("{s}: used at")) && l.contains("qp.c:"))
                };
                if !named("vendor_tid_print") || !named("vendor_opfn") {
                    return Err(format!("missing symbols not listed: {m}").into());
                }
            }
            Ok(_) => return Err("a world linked symbols nobody provides".into()),
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// A patch of `file` in `tree` that replaces `from` by `to` (a unified
/// diff made by diff(1), as a reviewer would get it).
fn make_patch(tree: &KernelTree, file: &str, from: &str, to: &str, subject: &str) -> String {
    let old = std::fs::read_to_string(tree.path(file)).unwrap_or_default();
    let new = old.replacen(from, to, 1);
    let dir = std::env::temp_dir().join(format!(
        "hfi1-mkpatch-{}-{}-{subject}",
        std::process::id(),
        tree.version
    ));
    let _ = std::fs::create_dir_all(&dir);
    let (a, b) = (dir.join("a"), dir.join("b"));
    let _ = std::fs::write(&a, &old);
    let _ = std::fs::write(&b, &new);
    let out = std::process::Command::new("diff")
        .args(["-u", "--label"])
        .arg(format!("a/{file}"))
        .arg("--label")
        .arg(format!("b/{file}"))
        .arg(&a)
        .arg(&b)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    format!("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] {subject}\n\n---\n{out}")
}

/// The gate on hand-made patches, each verdict with its attribution.
fn gate_verdicts(tree: &KernelTree) -> Result<(), Failed> {
    use harness::cmd::gate::{self, Verdict};
    let qp = "drivers/infiniband/hw/hfi1/qp.c";
    let le = "if (wqe->length <= piothreshold)";
    let lt = "if (wqe->length < piothreshold)";
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
    let opts = gate::Options {
        random: 200,
        seed: 1,
        funcs: Func::ALL.to_vec(),
        expect: vec![],
    };
    let run = |text: String| -> Result<Vec<gate::Judged>, Failed> {
        let patches = gate::parse(&text, "t.mbox");
        gate::judge(tree, "base", &patches, &vectors, &opts, &mut |_| {})
            .map_err(|e| format!("{e:#}").into())
    };
    let verdicts = |j: &[gate::Judged]| j.iter().map(|x| x.verdict.word()).collect::<Vec<_>>();
    // A comment only: preserves.
    let j = run(make_patch(
        tree,
        qp,
        le,
        &format!("/* threshold */ {le}"),
        "comment",
    ))?;
    if verdicts(&j) != ["preserves"] {
        return Err(format!("comment: {:?}", verdicts(&j)).into());
    }
    // A changed comparison: changes, in hfi1_setup_wqe's call_send only.
    let change = make_patch(tree, qp, le, lt, "threshold");
    let j = run(change.clone())?;
    let groups: Vec<(Func, Vec<String>)> = j[0]
        .comparison
        .as_ref()
        .map(|c| c.groups.iter().map(|g| (g.func, g.shape.clone())).collect())
        .unwrap_or_default();
    if verdicts(&j) != ["changes"] || groups != [(Func::SetupWqe, vec!["call_send".to_owned()])] {
        return Err(format!("change: {:?} {groups:?}", verdicts(&j)).into());
    }
    // The reproducer, as a case of setup_wqe.toml, needs one key: a send
    // of exactly the threshold.
    let case = j[0]
        .comparison
        .as_ref()
        .and_then(|c| c.groups.first())
        .and_then(|g| g.case.clone())
        .unwrap_or_default();
    let keys: Vec<&str> = case
        .lines()
        .filter(|l| {
            !l.starts_with("[[case]]")
                && !l.starts_with("name ")
                && !l.starts_with("branch ")
                && !l.starts_with("fn ")
        })
        .collect();
    if keys != ["wqe.length = 256"] {
        return Err(format!("reproducer: {case}").into());
    }
    // The call line names the world state the outcome depends on: the
    // module parameter the changed comparison reads.
    let reads = j[0]
        .comparison
        .as_ref()
        .and_then(|c| c.groups.first())
        .map(|g| g.reads.clone())
        .unwrap_or_default();
    if !reads.iter().any(|r| r.starts_with("world.piothreshold = ")) {
        return Err(format!("reads: {reads:?}").into());
    }
    // Against the Rust model, reported apart: the patch moves upstream away
    // from it on the vector that pins the threshold.
    match &j[0].model {
        Some(harness::cmd::gate::ModelDrift { before, after, .. })
            if before.is_empty()
                && after.contains(&"setup_wqe::rc_at_piothreshold_sets_call_send".to_owned()) => {}
        other => return Err(format!("model: {other:?}").into()),
    }
    // The changed line is executable and the vectors ran it (gcov).
    match &j[0].coverage {
        Some(c) if c.changed == 1 && c.executed == 1 && c.missed.is_empty() => {}
        other => return Err(format!("patch coverage: {other:?}").into()),
    }
    // A deleted tracepoint: changes, and every group says it is the
    // tracepoints alone that moved (hfi1_qp_wakeup and the iowait
    // callback that calls it).
    let j = run(make_patch(
        tree,
        qp,
        "\t\ttrace_hfi1_qpwakeup(qp, flag);\n",
        "",
        "untrace",
    ))?;
    let shapes: Vec<(Func, Vec<String>)> = j[0]
        .comparison
        .as_ref()
        .map(|c| c.groups.iter().map(|g| (g.func, g.shape.clone())).collect())
        .unwrap_or_default();
    if verdicts(&j) != ["changes"]
        || shapes.is_empty()
        || shapes.iter().any(|(_, s)| s != &["tracepoints".to_owned()])
        || !shapes.iter().any(|(f, _)| *f == Func::QpWakeup)
    {
        return Err(format!("tracepoint: {:?} {shapes:?}", verdicts(&j)).into());
    }
    // Declared: changes-as-declared.
    let declared = change.replacen(
        "\n\n---\n",
        "\n\nConformance-Changes: hfi1_setup_wqe\n---\n",
        1,
    );
    let j = run(declared)?;
    if verdicts(&j) != ["changes-as-declared"] {
        return Err(format!("declared: {:?}", verdicts(&j)).into());
    }
    // A series whose second patch reverts the first: each one changes
    // behaviour against the tree before it.
    let revert = change
        .replace("-\tif (wqe->length <= piothreshold)", "-\tTMP")
        .replace(
            "+\tif (wqe->length < piothreshold)",
            "-\tif (wqe->length < piothreshold)",
        )
        .replace("-\tTMP", "+\tif (wqe->length <= piothreshold)")
        .replace("[PATCH] threshold", "[PATCH] revert");
    let j = run(format!("{change}\n{revert}"))?;
    if verdicts(&j) != ["changes", "changes"] {
        return Err(format!("series: {:?}", verdicts(&j)).into());
    }
    // The revert brings upstream back to the model.
    match &j[1].model {
        Some(harness::cmd::gate::ModelDrift { before, after, .. })
            if !before.is_empty() && after.is_empty() => {}
        other => return Err(format!("revert vs model: {other:?}").into()),
    }
    // Context that is not there: does not apply (and nothing after it runs).
    let bad = change.replace(" \t", " \tNOT THERE ");
    let j = run(format!("{bad}\n{change}"))?;
    if !matches!(j[0].verdict, Verdict::DoesNotApply(_))
        || !matches!(j[1].verdict, Verdict::CannotJudge(_))
    {
        return Err(format!("does not apply: {:?}", verdicts(&j)).into());
    }
    // A syntax error in qp.c: breaks the build, naming qp.c.
    let j = run(make_patch(
        tree,
        qp,
        le,
        "if (wqe->length <= piothreshold))",
        "syntax",
    ))?;
    match &j[0].verdict {
        Verdict::BreaksBuild(m) if m.contains("qp.c") => {}
        v => return Err(format!("syntax: {v:?}").into()),
    }
    // An unused variable: preserves, and the new warning is reported with
    // its place in qp.c.
    let j = run(make_patch(
        tree,
        qp,
        "int mtu_to_path_mtu(u32 mtu)\n{\n",
        "int mtu_to_path_mtu(u32 mtu)\n{\n\tint unused_by_patch;\n\n",
        "unused",
    ))?;
    let w = &j[0].new_warnings;
    if verdicts(&j) != ["preserves"]
        || w.len() != 1
        || !w[0].starts_with("drivers/infiniband/hw/hfi1/qp.c:")
        || !w[0].contains("unused_by_patch")
    {
        return Err(format!("unused: {:?} {w:?}", verdicts(&j)).into());
    }
    // A global function without a prototype: the tree's own kbuild flags
    // decide. -Wmissing-prototypes is in every default build since 6.8
    // (scripts/Makefile.extrawarn, "Makefile.warn" in 7.x), W=1 before.
    let j = run(make_patch(
        tree,
        qp,
        "int mtu_to_path_mtu(u32 mtu)\n{\n",
        "int gate_unprototyped(void)\n{\n\treturn 0;\n}\n\nint mtu_to_path_mtu(u32 mtu)\n{\n",
        "unprototyped",
    ))?;
    let w = &j[0].new_warnings;
    let default_since_6_8 = (tree.version.version, tree.version.patchlevel) >= (6, 8);
    let warned = w
        .iter()
        .any(|x| x.contains("gate_unprototyped") && x.contains("-Wmissing-prototypes"));
    if verdicts(&j) != ["preserves"] || warned != default_since_6_8 {
        return Err(format!("missing prototype ({}): {w:?}", tree.version).into());
    }
    // Two fields of a struct swapped in a header: the layout changes, the
    // behaviour does not.
    let verbs_h = "drivers/infiniband/hw/hfi1/verbs.h";
    let j = run(make_patch(
        tree,
        verbs_h,
        "\tu8 sl_to_sc[32];\n\tu8 sc_to_sl[32];\n",
        "\tu8 sc_to_sl[32];\n\tu8 sl_to_sc[32];\n",
        "reorder",
    ))?;
    if verdicts(&j) != ["preserves"] || !j[0].not_judged.is_empty() {
        return Err(format!("reorder: {:?} {:?}", verdicts(&j), j[0].not_judged).into());
    }
    // Only rc.c: nothing a world compiles; preserves, and rc.c is listed.
    let rc = "drivers/infiniband/hw/hfi1/rc.c";
    let j = run(make_patch(tree, rc, "#include", "/* rc */\n#include", "rc"))?;
    if verdicts(&j) != ["preserves"]
        || j[0].not_judged != [format!("{rc}: no world compiles it (not judged)")]
    {
        return Err(format!("rc.c: {:?} {:?}", verdicts(&j), j[0].not_judged).into());
    }
    // sdma.c, but in a function no world runs: listed by function.
    let sdma = "drivers/infiniband/hw/hfi1/sdma.c";
    let j = run(make_patch(
        tree,
        sdma,
        "void sdma_exit(struct hfi1_devdata *dd)\n{\n",
        "void sdma_exit(struct hfi1_devdata *dd)\n{\n\t/* exit */\n",
        "sdma",
    ))?;
    if verdicts(&j) != ["preserves"]
        || j[0].not_judged.len() != 1
        || !j[0].not_judged[0].starts_with(&format!("{sdma}: sdma_exit (line "))
    {
        return Err(format!("sdma.c: {:?} {:?}", verdicts(&j), j[0].not_judged).into());
    }
    // A file outside the extracted tree next to a qp.c edit: that section
    // is left out and listed, the rest is judged.
    let outside = "--- a/include/linux/list.h\n+++ b/include/linux/list.h\n@@ -1,1 +1,2 @@\n /* x */\n+/* y */\n";
    let j = run(format!(
        "{}{outside}",
        make_patch(tree, qp, le, lt, "with-outside")
    ))?;
    if verdicts(&j) != ["changes"]
        || j[0].not_judged
            != ["include/linux/list.h: outside the tree the harness extracts (not judged)"]
    {
        return Err(format!("outside: {:?} {:?}", verdicts(&j), j[0].not_judged).into());
    }
    Ok(())
}

fn main() {
    cworld::worker_main_if_requested();
    let args = Arguments::from_args();
    let series: Vec<String> = match std::env::var("HFI1_KERNELS") {
        Ok(k) if k.trim() == "all" => kernel::series(),
        Ok(k) if !k.trim().is_empty() => k.split(',').map(|s| s.trim().to_string()).collect(),
        _ => vec![kernel::DEFAULT_SERIES.to_string()],
    };
    let mut trials = vec![];
    for s in series {
        let built =
            std::sync::Arc::new(std::sync::OnceLock::<Result<cworld::BuiltWorld, String>>::new());
        let get = {
            let (built, s) = (built.clone(), s.clone());
            move || -> Result<cworld::BuiltWorld, Failed> {
                built
                    .get_or_init(|| {
                        let t = kernel::fetch(&s).map_err(|e| format!("{e:#}"))?;
                        cworld::build(&t, &BuildOptions::default()).map_err(|e| format!("{e:#}"))
                    })
                    .clone()
                    .map_err(Failed::from)
            }
        };
        let get = std::sync::Arc::new(get);
        for (name, f) in smoke_tests() {
            let get = get.clone();
            trials.push(Trial::test(format!("{s}::smoke::{name}"), move || {
                let world = get()?;
                let mut w = Worker::new(&world).map_err(|e| format!("{e:#}"))?;
                f(&mut w)
            }));
        }
        {
            let get = get.clone();
            trials.push(Trial::test(
                format!("{s}::isolation::crash_is_a_finding"),
                move || crash_is_a_finding(&get()?),
            ));
        }
        {
            let get = get.clone();
            trials.push(Trial::test(
                format!("{s}::isolation::first_call_sees_the_whole_world"),
                move || first_call_sees_the_whole_world(&get()?),
            ));
        }
        {
            let get = get.clone();
            trials.push(Trial::test(
                format!("{s}::isolation::ubsan_reports_upstream_ub"),
                move || ubsan_reports_upstream_ub(&get()?.tree),
            ));
        }
        {
            let get = get.clone();
            trials.push(Trial::test(
                format!("{s}::isolation::sanitize_poisons_past_declared_ports"),
                move || sanitize_poisons_past_declared_ports(&get()?.tree),
            ));
        }
        {
            let get = get.clone();
            trials.push(Trial::test(
                format!("{s}::isolation::reused_flat_call_buffer"),
                move || reused_flat_call_buffer(&get()?),
            ));
        }
        {
            let get = get.clone();
            trials.push(Trial::test(format!("{s}::gate::verdicts"), move || {
                gate_verdicts(&get()?.tree)
            }));
        }
        {
            let get = get.clone();
            trials.push(Trial::test(
                format!("{s}::diff::finds_the_mutant"),
                move || diff_finds_the_mutant(&get()?.tree),
            ));
        }
        {
            let get = get.clone();
            trials.push(Trial::test(format!("{s}::vendor::overlay"), move || {
                vendor_overlay(&get()?.tree)
            }));
        }
        for m in MUTATIONS {
            let get = get.clone();
            trials.push(Trial::test(format!("{s}::mutant::{}", m.name), move || {
                let world = get()?;
                mutate(&world.tree, m)
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
