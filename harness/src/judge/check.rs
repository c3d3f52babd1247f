//! Running vectors on both sides and judging them.

use anyhow::Result;

use crate::corpus::Vector;
use crate::cworld::{call, BuiltWorld, CallResult, Fault, Worker};
use crate::model;
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
}

impl Verdict {
    /// Whether C and the model agreed.
    pub fn ok(&self) -> bool {
        matches!(self, Verdict::Agree)
    }
}

/// One vector, run on both sides.
#[derive(Debug, Clone)]
pub struct Checked {
    /// What upstream C did, when the call returned.
    pub c: Option<Outcome>,
    /// What the model did, or why it calls the input undefined.
    pub rust: Result<Outcome, model::Undefined>,
    /// The judgement.
    pub verdict: Verdict,
}

/// Judges one C result against the model.
pub fn judge(c: &CallResult, rust: Result<Outcome, model::Undefined>) -> Checked {
    match c {
        CallResult::Done(o) => {
            let c = call::from_shim(o);
            let verdict = match &rust {
                Ok(r) => {
                    let d = c.diff(r);
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
            }
        }
        CallResult::Fault(f) => Checked {
            c: None,
            rust,
            verdict: Verdict::Fault(f.clone()),
        },
        CallResult::Malformed => Checked {
            c: None,
            rust,
            verdict: Verdict::Malformed,
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
    let calls: Vec<_> = vectors.iter().map(|v| call::to_shim(&v.call)).collect();
    let mut out = Vec::with_capacity(vectors.len());
    for (vs, cs) in vectors.chunks(4096).zip(calls.chunks(4096)) {
        let results = worker.run_batch(cs)?;
        for (v, r) in vs.iter().zip(&results) {
            out.push(judge(r, crate::implementation::get().run(&v.call)));
        }
    }
    Ok(out)
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
        Verdict::Undefined(u) => s.push_str(&format!(
            "  the model calls this undefined upstream ({u}), yet C returned {}\n",
            c.c.as_ref().map(|o| o.to_string()).unwrap_or_default()
        )),
    }
    s
}

/// One line saying what a vector calls with what.
pub fn describe_call(c: &crate::model::types::Call) -> String {
    let args: Vec<String> = c
        .args
        .texts()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!(
        "{}({}; qp {} num=0x{:x} port={} pmtu={} {}; wqe len={} {} priv={} ah={})",
        c.func(),
        args.join(" "),
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
