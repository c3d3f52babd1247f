//! The C world's isolation: a crash, undefined behaviour or a read past
//! what a world declares is a finding for that vector alone, and a
//! worker's first call and reused buffers see what any other call sees.

use harness::cworld::{self, call, BuildOptions, CallResult, Worker};
use harness::kernel::KernelTree;
use harness::model::types::*;
use libtest_mimic::Failed;

use crate::common::copy_tree;
use crate::smoke::call;

/// A vector outside the invariants (a NULL element in the SDMA map, which
/// sdma_select_engine_vl dereferences) crashes the worker; the batch around
/// it still completes and the crash is reported for that vector alone.
pub fn crash_is_a_finding(world: &cworld::BuiltWorld) -> Result<(), Failed> {
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
pub fn first_call_sees_the_whole_world(world: &cworld::BuiltWorld) -> Result<(), Failed> {
    let c = call(Func::QpToSendContext, QpType::Smi, 0);
    let mut w = Worker::new(world).map_err(|e| format!("{e:#}"))?;
    let r = w
        .run_batch(&[call::to_shim(&c), call::to_shim(&c)])
        .map_err(|e| format!("{e:#}"))?;
    let model = harness::model::run(&c).map_err(|e| format!("model: {e:?}"))?;
    match (&r[0], &r[1]) {
        (CallResult::Done(a), CallResult::Done(b)) => {
            let (a, b) = (&**a, &**b);
            if a != b || *a != model {
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
pub fn ubsan_reports_upstream_ub(tree: &KernelTree) -> Result<(), Failed> {
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
pub fn sanitize_poisons_past_declared_ports(tree: &KernelTree) -> Result<(), Failed> {
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
                    CallResult::NotRun => "not run".to_owned(),
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
pub fn reused_flat_call_buffer(world: &cworld::BuiltWorld) -> Result<(), Failed> {
    // SAFETY: the default series' Debian tree and valid vectors.
    let lib = unsafe { cworld::Loaded::open(&world.so) }.map_err(|e| format!("{e:#}"))?;
    let mut reused = Box::<harness::cworld::ffi::shim_call>::default();
    let (mut a, mut b) = (
        harness::cworld::ffi::shim_outcome::default(),
        harness::cworld::ffi::shim_outcome::default(),
    );
    for i in 0..3000u64 {
        let f = Func::ALL[(i % Func::ALL.len() as u64) as usize];
        if world.lacks(f) {
            continue; // the tree has no such function
        }
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

/// A scenario's later step runs on the state the step before kept, and on
/// nothing else: a step that crashes is confirmed with the steps before
/// it and is its scenario's alone (the step after it is not run, the
/// next vector runs on its own world); a later step after a call that
/// kept nothing is refused; a batch may not begin with one.
pub fn scenario_steps_carry_only_kept_state(world: &cworld::BuiltWorld) -> Result<(), Failed> {
    let (c, k) = (cworld::ffi::SHIM_STEP_CARRIED, cworld::ffi::SHIM_STEP_KEEP);
    let good = call(Func::QpToSdmaEngine, QpType::Rc, 0);
    // The world of `crash_is_a_finding`: VL1's element of the SDMA map is
    // NULL, which VL0's call never reads and VL1's dereferences.
    let mut first = good.clone();
    if let Some(m) = first.world.sdma_map.as_mut() {
        m.elems[1] = None;
    }
    let mut bad = good.clone();
    bad.args = Args::QpToSdmaEngine(args::QpToSdmaEngine { sc5: Sc(1) });
    let step = |c: &Call, carry: u32| {
        let mut s = call::to_shim(c);
        s.carry = carry;
        s
    };
    let e = |e: anyhow::Error| format!("{e:#}");
    let mut w = Worker::new(world).map_err(e)?;
    let r = w
        .run_batch(&[
            step(&first, k),
            step(&good, c | k),
            step(&bad, c | k),
            step(&good, c),
            step(&good, 0),
        ])
        .map_err(e)?;
    match &r[..] {
        [CallResult::Done(_), CallResult::Done(_), CallResult::Fault(cworld::Fault::Crashed(_)), CallResult::NotRun, CallResult::Done(_)] =>
            {}
        other => {
            return Err(format!("expected done, done, crash, not run, done; got {other:?}").into())
        }
    }
    // Alone, the crashing step runs on its own (whole) world and returns.
    let r = w.run_batch(&[step(&bad, 0)]).map_err(e)?;
    if !matches!(&r[..], [CallResult::Done(_)]) {
        return Err(format!("the step alone: {r:?}").into());
    }
    let r = w.run_batch(&[step(&good, 0), step(&good, c)]).map_err(e)?;
    if !matches!(&r[..], [CallResult::Done(_), CallResult::Malformed]) {
        return Err(format!("a step after a call that kept nothing: {r:?}").into());
    }
    match w.run_batch(&[step(&good, c)]) {
        Err(err) if format!("{err:#}").contains("begins with a later step") => Ok(()),
        other => Err(format!("a batch beginning with a later step: {other:?}").into()),
    }
}

/// Two runs measuring one coverage world at once (a list bot's two
/// gates, two test threads) each read their own counters: the second
/// waits until the first has read its own (and rebuilds the world, found
/// damaged, only then), and neither's counts hold the other's calls nor
/// lose their own.
pub fn measurements_do_not_mix(tree: &KernelTree) -> Result<(), Failed> {
    use harness::judge::coverage::{self, Tracefile};
    use std::sync::atomic::{AtomicBool, Ordering};
    let err = |e: anyhow::Error| Failed::from(format!("{e:#}"));
    let all =
        harness::corpus::load_corpus(&harness::corpus::corpus_dir()).map_err(|e| format!("{e}"))?;
    let of = |f: Func| -> Vec<_> {
        all.iter()
            .filter(|v| v.steps().any(|c| c.func() == f))
            .cloned()
            .collect()
    };
    let (v1, v2) = (of(Func::SetupWqe), of(Func::QpToSdmaEngine));
    let qp_c = "drivers/infiniband/hw/hfi1/qp.c";
    let hits = |c: &coverage::Counters| -> Result<_, Failed> {
        let t = Tracefile::capture(&c.dir.join("obj")).map_err(err)?;
        Ok(coverage::line_hits(&t, qp_c))
    };
    let alone = |v: &[harness::corpus::Vector]| -> Result<_, Failed> {
        hits(&coverage::collect(tree, v, None).map_err(err)?)
    };
    let (h1, h2) = (alone(&v1)?, alone(&v2)?);
    if h1 == h2 {
        return Err("the two sets of vectors should reach qp.c differently".into());
    }
    let first = coverage::collect(tree, &v1, None).map_err(err)?;
    // Held: no other run may take the counters.
    if coverage::Counters::try_hold(first.world.clone())
        .map_err(err)?
        .is_some()
    {
        return Err("a second run took the counters the first holds".into());
    }
    // Nor rebuild the world, found damaged, under the first: the second
    // run below waits for the first to read its counters before removing
    // them with the world.
    std::fs::write(&first.so, b"damaged").map_err(|e| format!("damaging the world: {e}"))?;
    let second_done = std::sync::Arc::new(AtomicBool::new(false));
    let second = {
        let (tree, v2, done) = (tree.clone(), v2.clone(), second_done.clone());
        std::thread::spawn(move || -> Result<_, String> {
            let c = coverage::collect(&tree, &v2, None).map_err(|e| format!("{e:#}"))?;
            done.store(true, Ordering::SeqCst);
            let t = Tracefile::capture(&c.dir.join("obj")).map_err(|e| format!("{e:#}"))?;
            Ok(coverage::line_hits(&t, qp_c))
        })
    };
    // Time enough for the second run to measure, were it not held back.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let waited = !second_done.load(Ordering::SeqCst);
    let got1 = hits(&first)?;
    drop(first);
    let got2 = second
        .join()
        .map_err(|_| "the second run panicked")?
        .map_err(Failed::from)?;
    if !waited || got1 != h1 || got2 != h2 {
        return Err(format!(
            "second run waited: {waited}; first run's qp.c counts its own: {}; \
             second's: {}",
            got1 == h1,
            got2 == h2
        )
        .into());
    }
    Ok(())
}
