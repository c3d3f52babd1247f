//! Running vectors on both sides and judging them.

use anyhow::Result;

use crate::corpus::Vector;
use crate::cworld::ffi::{shim_call, SHIM_STEP_CARRIED, SHIM_STEP_KEEP};
use crate::cworld::{call, BuiltWorld, CallResult, Fault, Worker};
use crate::model;
use crate::model::types::{Call, Func};
use crate::outcome::Outcome;

/// The judgement on one vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// C and Rust did the same.
    Agree,
    /// They differ: `(field, C, Rust)` for every field that does.
    Differ(Vec<(&'static str, String, String)>),
    /// The call did not return: the C world crashed, hung, or made a
    /// system call the sandbox refuses.
    Fault(Fault),
    /// The shim refused the call (a harness bug: vectors are validated).
    Malformed,
    /// The model says upstream behaviour is undefined here (the vector is
    /// outside the invariants), while C returned.
    Undefined(String),
    /// The tree lacks the function a step calls (removed or not yet added
    /// upstream: `optional` in c-shim/boundary.toml): nothing ran.
    NotInTree(String),
}

impl Verdict {
    /// Whether the vector did not fail: C and the model agreed, or the
    /// tree lacks the function ([`Verdict::skipped`]).
    pub fn ok(&self) -> bool {
        matches!(self, Verdict::Agree | Verdict::NotInTree(_))
    }

    /// Whether nothing was judged: the tree lacks the function.
    pub fn skipped(&self) -> bool {
        matches!(self, Verdict::NotInTree(_))
    }
}

/// One vector, run on both sides.
#[derive(Debug, Clone)]
pub struct Checked {
    /// What upstream C did, when the call returned.
    pub c: Option<Outcome>,
    /// What the model did, or why it calls the input undefined.
    pub rust: Result<Outcome, model::Undefined>,
    /// The judgement: a scenario's is its first step's that is not an
    /// agreement ([`Checked::failing_step`] says which).
    pub verdict: Verdict,
    /// A scenario's later steps that ran, each judged alone.
    pub then: Vec<Checked>,
    /// The step the verdict comes from (1: the first, or a single call).
    pub step: usize,
}

impl Checked {
    /// The step (1: the first) the verdict comes from, when it is not an
    /// agreement.
    pub fn failing_step(&self) -> Option<usize> {
        (!self.verdict.ok()).then_some(self.step)
    }

    /// The judgement of the step the verdict comes from (itself for the
    /// first): the C and Rust outcomes the verdict is about.
    pub fn verdict_step(&self) -> &Checked {
        match self.step.checked_sub(2) {
            Some(k) => self.then.get(k).unwrap_or(self),
            None => self,
        }
    }

    /// The verdict of step `step` alone (1: the first), when it ran.
    pub fn step_verdict(&self, step: usize) -> Option<&Verdict> {
        static AGREE: Verdict = Verdict::Agree;
        match step {
            // A later step's verdict is the scenario's only when every
            // step before it agreed.
            1 if self.step == 1 => Some(&self.verdict),
            1 => Some(&AGREE),
            k => self.then.get(k.checked_sub(2)?).map(|c| &c.verdict),
        }
    }
}

/// The model's outcome of every step of `v`, each step's state carried
/// from the step before as the model left it.
pub fn run_model(v: &Vector) -> Vec<Result<Outcome, model::Undefined>> {
    let imp = crate::implementation::get();
    let mut out: Vec<Result<Outcome, model::Undefined>> = vec![imp.run(&v.call)];
    for next in &v.then {
        let r = match out.last() {
            Some(Ok(prev)) => imp.run(&crate::corpus::carried(prev, next)),
            _ => Err(model::Undefined(
                "a step before this one is undefined upstream".to_owned(),
            )),
        };
        out.push(r);
    }
    out
}

/// The flat calls of `vectors`, every scenario's steps in order: each but
/// the last keeps its state for the next, each but the first carries it.
pub fn flat_calls<'a>(vectors: impl IntoIterator<Item = &'a Vector>) -> Vec<shim_call> {
    let mut flat = vec![];
    for v in vectors {
        for (i, c) in v.steps().enumerate() {
            let mut s = call::to_shim(c);
            if i > 0 {
                s.carry |= SHIM_STEP_CARRIED;
            }
            if i < v.then.len() {
                s.carry |= SHIM_STEP_KEEP;
            }
            flat.push(s);
        }
    }
    flat
}

/// Judges every step of one vector: `c` holds its steps' C results (a
/// scenario's steps after one that did not return are absent or
/// [`CallResult::NotRun`]).
fn judge_vector(v: &Vector, c: &[CallResult]) -> Checked {
    let mut rust = run_model(v).into_iter();
    let mut steps = c
        .iter()
        .zip(rust.by_ref())
        .filter(|(r, _)| !matches!(r, CallResult::NotRun))
        .map(|(r, m)| judge(r, m));
    let Some(mut first) = steps.next() else {
        return judge(&CallResult::NotRun, Err(model::Undefined(String::new())));
    };
    first.then = steps.collect();
    for (k, c) in first.then.iter_mut().enumerate() {
        c.step = k + 2;
    }
    if first.verdict.ok() {
        if let Some(bad) = first.then.iter().find(|c| !c.verdict.ok()) {
            (first.verdict, first.step) = (bad.verdict.clone(), bad.step);
        }
    }
    first
}

/// Judges one C result against the model.
pub fn judge(c: &CallResult, rust: Result<Outcome, model::Undefined>) -> Checked {
    match c {
        CallResult::Done(o) => {
            let c = (**o).clone();
            let verdict = match &rust {
                Ok(r) => {
                    let d = call::model_diff(&c, r);
                    if d.is_empty() {
                        Verdict::Agree
                    } else {
                        Verdict::Differ(d)
                    }
                }
                Err(u) => Verdict::Undefined(u.0.clone()),
            };
            Checked {
                c: Some(c),
                rust,
                verdict,
                then: vec![],
                step: 1,
            }
        }
        CallResult::Fault(f) => Checked {
            c: None,
            rust,
            verdict: Verdict::Fault(f.clone()),
            then: vec![],
            step: 1,
        },
        CallResult::Malformed | CallResult::NotRun => Checked {
            c: None,
            rust,
            verdict: Verdict::Malformed,
            then: vec![],
            step: 1,
        },
    }
}

/// Runs every vector in one C world (in a worker, in batches) and in the
/// model.
pub fn check_all(world: &BuiltWorld, vectors: &[Vector]) -> Result<Vec<Checked>> {
    let mut worker = Worker::new(world)?;
    check_all_with(&mut worker, vectors)
}

/// [`check_all`] in a worker the caller holds (its limits and hang
/// proofs as the caller set them).
pub fn check_all_with(worker: &mut Worker, vectors: &[Vector]) -> Result<Vec<Checked>> {
    let lacking = |v: &Vector| v.steps().map(Call::func).find(|f| worker.lacks(*f));
    let absent: Vec<Option<Func>> = vectors.iter().map(lacking).collect();
    if absent.iter().all(Option::is_none) {
        return check_present(worker, vectors);
    }
    let run: Vec<Vector> = vectors
        .iter()
        .zip(&absent)
        .filter(|(_, a)| a.is_none())
        .map(|(v, _)| v.clone())
        .collect();
    let mut checked = check_present(worker, &run)?.into_iter();
    absent
        .iter()
        .map(|a| match a {
            Some(f) => Ok(not_in_tree(*f)),
            None => checked
                .next()
                .ok_or_else(|| anyhow::anyhow!("a checked vector went missing (a harness bug)")),
        })
        .collect()
}

/// [`check_all_with`] of vectors whose every function the tree has.
fn check_present(worker: &mut Worker, vectors: &[Vector]) -> Result<Vec<Checked>> {
    let mut out = Vec::with_capacity(vectors.len());
    for vs in vectors.chunks(4096) {
        let results = worker.run_batch(&flat_calls(vs))?;
        let mut at = 0;
        for v in vs {
            let n = 1 + v.then.len();
            out.push(judge_vector(v, &results[at..at + n]));
            at += n;
        }
    }
    Ok(out)
}

/// The judgement of a vector whose step calls `f`, which the tree lacks.
fn not_in_tree(f: Func) -> Checked {
    Checked {
        c: None,
        rust: Err(model::Undefined(format!("{f} is not in this tree"))),
        verdict: Verdict::NotInTree(f.name().to_owned()),
        then: vec![],
        step: 1,
    }
}

/// The failure text of a trial: the vector and a field-by-field diff.
pub fn explain(v: &Vector, c: &Checked) -> String {
    let mut s = format!(
        "{}:{}: {}\n  branch: {}\n  call:   {}\n",
        v.file.display(),
        v.line,
        v.id(),
        if v.branch.is_empty() { "-" } else { &v.branch },
        describe_call(&v.call)
    );
    for (i, t) in v.then.iter().enumerate() {
        s.push_str(&format!("  then {}: {}\n", i + 2, describe_step(t)));
    }
    if !v.then.is_empty() && !c.verdict.ok() {
        s.push_str(&format!("  at step {} of {}:\n", c.step, 1 + v.then.len()));
    }
    let c = c.verdict_step();
    match &c.verdict {
        Verdict::Agree => s.push_str("  C and Rust agree\n"),
        Verdict::Differ(d) => {
            s.push_str("  C and Rust differ:\n");
            let w = d.iter().map(|x| x.0.len()).max().unwrap_or(0);
            for (f, cv, rv) in d {
                s.push_str(&format!("    {f:w$}  C: {cv}\n    {:w$}  R: {rv}\n", ""));
            }
        }
        Verdict::Fault(f) => s.push_str(&format!("  {f}\n")),
        Verdict::Malformed => s.push_str("  the shim refused the call as malformed\n"),
        Verdict::NotInTree(f) => s.push_str(&format!("  {f} is not in this tree: not run\n")),
        Verdict::Undefined(u) => s.push_str(&format!(
            "  the model calls this undefined upstream ({u}), yet C returned {}\n",
            c.c.as_ref().map(|o| o.to_string()).unwrap_or_default()
        )),
    }
    s
}

/// A call's arguments, `key=value` each, separated by spaces.
fn args_text(c: &Call) -> String {
    let args: Vec<String> = c
        .args
        .texts()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    args.join(" ")
}

/// A scenario's later step: its function and arguments (its state is the
/// one the step before left).
pub fn describe_step(c: &Call) -> String {
    format!("{}({})", c.func(), args_text(c))
}

/// One line saying what a vector calls with what.
pub fn describe_call(c: &Call) -> String {
    format!(
        "{}({}; qp {} num=0x{:x} port={} pmtu={} {}; wqe len={} {} priv={} ah={})",
        c.func(),
        args_text(c),
        c.qp.qp_type,
        c.qp.num,
        c.qp.port,
        c.qp.pmtu,
        c.qp.state,
        c.wqe.length,
        c.wqe.opcode,
        c.wqe.has_priv,
        c.wqe
            .ah
            .map(|a| format!("{{log_pmtu={} sl={} port={}}}", a.log_pmtu, a.sl.0, a.port))
            .unwrap_or_else(|| "none".into()),
    )
}
