//! The one shrink loop: a call pulled toward its simplest values while a
//! property holds (C and the model still disagree, a fault still happens,
//! two worlds still differ; a scenario still fails the same way). Used by
//! `--random`, `--scenarios`, `diff`, the gate and
//! mutants.

use anyhow::Result;

use crate::corpus::invariants::validate;
use crate::corpus::Vector;
use crate::cworld::{call, CallResult, Fault, Worker};
use crate::judge::check::{judge, Verdict};
use crate::model::types::*;

/// The verdict on one call, a fault confirmed alone before it is one.
pub fn verdict_of(worker: &mut Worker, c: &Call) -> Result<Verdict> {
    let r = worker.run_batch(&[call::to_shim(c)])?;
    let first = r
        .into_iter()
        .next()
        .unwrap_or(CallResult::Fault(Fault::Crashed("no reply".into())));
    Ok(judge(&first, crate::implementation::get().run(c)).verdict)
}

/// The verdict on one step of a minimisation: a fault is not confirmed
/// (the minimised call is, once, at the end).
fn step_verdict(worker: &mut Worker, c: &Call) -> Result<Verdict> {
    let r = worker.run_unconfirmed(&call::to_shim(c))?;
    Ok(judge(&r, crate::implementation::get().run(c)).verdict)
}

/// How long minimising one fault may take: every step that still hangs
/// costs a call limit and a new worker.
pub const FAULT_MINIMISE_BUDGET: std::time::Duration = std::time::Duration::from_secs(1);

/// A named simplification of a call.
pub type Step = (&'static str, Box<dyn Fn(&mut Call)>);

/// The simplifications tried, in order: each sets one part of the call to
/// its simplest value — each argument of the function to its default,
/// then parts of the swqe, QP and world, then each field of the engines'
/// state.
pub fn shrink_steps() -> Vec<Step> {
    let most = Func::ALL
        .iter()
        .map(|f| Args::blank(*f).fields().len())
        .max()
        .unwrap_or(0);
    let mut steps: Vec<Step> = (0..most)
        .map(|i| -> Step {
            (
                "argument",
                Box::new(move |c: &mut Call| {
                    c.args.reset(i);
                }),
            )
        })
        .collect();
    type Part = (&'static str, fn(&mut Call));
    let parts: [Part; 18] = [
        ("wqe.length", |c| c.wqe.length = 0),
        ("wqe.opcode", |c| c.wqe.opcode = WrOpcode::Send),
        ("wqe.priv", |c| c.wqe.has_priv = false),
        ("qp.s_flags", |c| c.qp.s_flags.clear()),
        ("qp.priv_flags", |c| c.qp.priv_flags.clear()),
        ("qp.iowait_flags", |c| c.qp.iowait_flags.clear()),
        ("qp.num", |c| c.qp.num = 0),
        ("qp.s_sde", |c| c.qp.s_sde = None),
        ("qp.s_sendcontext", |c| c.qp.s_sendcontext = None),
        ("qp.ack_queue", |c| c.qp.ack_queue = None),
        ("qp.srq_size", |c| c.qp.srq_size = None),
        ("world.sdma_map", |c| c.world.sdma_map = None),
        ("world.pio_map", |c| c.world.pio_map = None),
        ("world.qos_shift", |c| c.world.qos_shift = 0),
        ("world.dev_flags", |c| c.world.dev_flags.clear()),
        ("world.alloc_fail", |c| c.world.alloc_fail = 0),
        ("world.num_vls", |c| c.world.num_vls = 8),
        ("world.piothreshold", |c| c.world.piothreshold = 256),
    ];
    steps.extend(parts.map(|(n, f)| -> Step { (n, Box::new(f)) }));
    // Every field of the engines' state, back to its default.
    steps.extend(Engines::FIELDS.iter().enumerate().map(|(i, f)| -> Step {
        (
            f.key,
            Box::new(move |c: &mut Call| {
                c.engines.reset(i);
            }),
        )
    }));
    steps
}

/// Minimises a disagreeing call: applies each simplification that keeps C
/// and Rust disagreeing, until none does.
pub fn minimise(worker: &mut Worker, c: &Call) -> Result<Call> {
    minimise_while(worker, c, None, |v| !v.ok())
}

/// Minimises a call that faulted (crashed, hung, was denied) while it
/// keeps faulting the same way, within [`FAULT_MINIMISE_BUDGET`]: a hang
/// stays a hang. The result is confirmed alone; if it no longer faults so,
/// the call as found is returned.
pub fn minimise_fault(worker: &mut Worker, c: &Call, fault: &Fault) -> Result<Call> {
    let kind = fault.word();
    let same = |v: &Verdict| matches!(v, Verdict::Fault(f) if f.word() == kind);
    let deadline = std::time::Instant::now() + FAULT_MINIMISE_BUDGET;
    let small = minimise_while(worker, c, Some(deadline), same)?;
    if small == *c {
        return Ok(small);
    }
    // The minimised call must fault so alone too; if not (or not the
    // same way), the call as found (already confirmed) is the finding.
    match verdict_of(worker, &small) {
        Ok(v) if same(&v) => Ok(small),
        Ok(_) => Ok(c.clone()),
        Err(e) if crate::cworld::HarnessFault::in_chain(&e) => Ok(c.clone()),
        Err(e) => Err(e),
    }
}

fn minimise_while(
    worker: &mut Worker,
    c: &Call,
    deadline: Option<std::time::Instant>,
    keep: impl Fn(&Verdict) -> bool,
) -> Result<Call> {
    shrink(c, deadline, |cand| Ok(keep(&step_verdict(worker, cand)?)))
}

/// The one shrink loop (random findings, comparisons): applies each of
/// [`shrink_steps`] that leaves a valid call for which `keep` still holds,
/// in rounds, until a round changes nothing or `deadline` passes.
pub fn shrink(
    c: &Call,
    deadline: Option<std::time::Instant>,
    mut keep: impl FnMut(&Call) -> Result<bool>,
) -> Result<Call> {
    let mut best = c.clone();
    for _ in 0..4 {
        let mut changed = false;
        for (_, step) in shrink_steps() {
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return Ok(best);
            }
            let mut cand = best.clone();
            step(&mut cand);
            if cand == best || validate(&cand).is_err() {
                continue;
            }
            if keep(&cand)? {
                best = cand;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    Ok(best)
}

/// What a failing scenario shows, for its minimisation to keep: the
/// function of its first failing step and how that step fails (the fields
/// that differ, or the kind of verdict).
fn scenario_shape(v: &Vector, c: &crate::judge::check::Checked) -> Option<String> {
    let step = c.failing_step()?;
    let func = v.steps().nth(step - 1)?.func();
    let how = match c.step_verdict(step)? {
        Verdict::Differ(d) => d.iter().map(|x| x.0).collect::<Vec<_>>().join(","),
        other => format!("{:?}", std::mem::discriminant(other)),
    };
    Some(format!("{func}: {how}"))
}

/// The shape of `v` run now, `None` when it agrees or its steps leave the
/// invariants (such a candidate is never run in C).
pub fn scenario_verdict(worker: &mut Worker, v: &Vector) -> Result<Option<String>> {
    if crate::corpus::invariants::steps_keep_invariants(&v.call, &v.then).is_err() {
        return Ok(None);
    }
    let c = crate::judge::check::check_all_with(worker, std::slice::from_ref(v))?;
    Ok(c.first().and_then(|c| scenario_shape(v, c)))
}

/// Minimises a failing scenario while it fails the same way (the same
/// step function, the same fields): its later steps dropped one at a
/// time, then its first call's fields pulled toward their simplest values
/// (each later step keeping its function, arguments and failing
/// allocations), until `deadline`.
pub fn minimise_scenario(
    worker: &mut Worker,
    v: &Vector,
    deadline: std::time::Instant,
) -> Result<Vector> {
    let Some(want) = scenario_verdict(worker, v)? else {
        return Ok(v.clone());
    };
    let mut best = v.clone();
    let mut i = best.then.len();
    while i > 0 && std::time::Instant::now() < deadline {
        i -= 1;
        let mut cand = best.clone();
        cand.then.remove(i);
        if scenario_verdict(worker, &cand)?.as_ref() == Some(&want) {
            best = cand;
        }
    }
    let with_first = |first: &Call, of: &Vector| Vector {
        call: first.clone(),
        then: of
            .then
            .iter()
            .map(|s| {
                let mut c = Call {
                    args: s.args,
                    ..first.clone()
                };
                c.world.alloc_fail = s.world.alloc_fail;
                c
            })
            .collect(),
        ..of.clone()
    };
    let steps = best.clone();
    let first = shrink(&best.call, Some(deadline), |cand| {
        Ok(scenario_verdict(worker, &with_first(cand, &steps))?.as_ref() == Some(&want))
    })?;
    best = with_first(&first, &best);
    Ok(best)
}
