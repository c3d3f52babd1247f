//! `cargo xtask conformance`: the corpus against one or more kernels,
//! C against Rust, upstream against the snapshots, one report.
//!
//! Exit codes ([`crate::report::exit_code`]): `SUCCESS` when C and Rust
//! agree on every vector and every snapshot matches; `FINDING` when
//! anything differs; `CANNOT_JUDGE` when the run could not happen (bad
//! arguments, no kernel, a build failure).

use crate::corpus::Vector;
use crate::cworld::{BuildOptions, Fault};
use crate::judge::check::{self, Checked, Verdict};
use crate::judge::snapshot::{self, SnapshotMismatch};
use crate::kernel::select::{suite_names, KernelArg};
use crate::report::shown_path;
use crate::report::{Case, Difference, Format, OutcomeView, Report, SnapshotRow, Status, Suite};

// What a corpus run on one kernel gives is shared with `kernel update` and
// `snapshots diff`: it is in `cmd`, and kept reachable here by the name the
// tests and docs/port.md use.
pub use super::{run_kernel, run_tree, KernelRun};

/// Runs the corpus on each kernel ([`run_kernel`]), up to one kernel per
/// core at once ([`crate::cmd::each_kernel_at_once`]), saying how each
/// went. A kernel that cannot be run is said on stderr and kept as
/// [`KernelRun::could_not_run`]: the others still get their report.
pub fn run_kernels(
    kernels: &[KernelArg],
    vectors: &[Vector],
    opts: &BuildOptions,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Vec<KernelRun> {
    let progress = std::sync::Mutex::new(progress);
    let say = |m: &str| (crate::cmd::lock(&progress))(m);
    crate::cmd::each_kernel_at_once(
        kernels,
        crate::cmd::jobs(),
        |k| {
            say(&format!("kernel {}: opening", k.label()));
            let started = std::time::Instant::now();
            let tree = k.open()?;
            Ok((started.elapsed(), tree))
        },
        |k, (opening, tree)| {
            let run = run_tree(k, &tree, vectors, opts, opening, &mut |m| say(m))?;
            say(&format!(
                "kernel {}: {} of {} vectors agree, {} snapshot mismatch(es)",
                run.label,
                run.checks.len() - run.failed(),
                run.checks.len(),
                run.snapshots.len()
            ));
            Ok(run)
        },
        KernelRun::could_not_run,
    )
}

/// The status of a checked vector in a report.
fn status(v: &Verdict) -> Status {
    match v {
        Verdict::Agree => Status::Pass,
        Verdict::Differ(_) => Status::Fail,
        Verdict::Fault(Fault::Crashed(_)) => Status::Crashed,
        Verdict::Fault(Fault::Hung(_)) => Status::Hang,
        Verdict::Fault(Fault::Denied(_)) => Status::Denied,
        Verdict::Malformed => Status::Malformed,
        Verdict::Undefined(_) => Status::Undefined,
        Verdict::NotInTree(_) => Status::Skip,
    }
}

/// One line saying what a verdict is.
fn message(v: &Verdict) -> Option<String> {
    match v {
        Verdict::Agree => None,
        Verdict::Differ(d) => Some(format!(
            "C and Rust differ in {}",
            d.iter().map(|x| x.0).collect::<Vec<_>>().join(", ")
        )),
        Verdict::Fault(f) => Some(f.to_string()),
        Verdict::Malformed => Some("the shim refused the call as malformed".into()),
        Verdict::Undefined(u) => Some(format!(
            "the model calls this undefined ({u}), yet C returned"
        )),
        Verdict::NotInTree(f) => Some(format!("{f} is not in this tree: not run")),
    }
}

/// The report of a corpus run: a suite per kernel, a case per vector and
/// per snapshot file.
pub fn report(vectors: &[Vector], runs: &[KernelRun]) -> Report {
    let names = suite_names(runs.iter().map(|r| (r.series.as_str(), &r.sel)));
    let suites = runs
        .iter()
        .zip(names)
        .map(|(r, name)| {
            let mut cases: Vec<Case> = vectors
                .iter()
                .zip(&r.checks)
                .map(|(v, c)| vector_case(v, c))
                .collect();
            for (fam, _) in snapshot::by_family(vectors, &r.checks) {
                let m = r.snapshots.iter().find(|m| m.family == fam);
                cases.push(snapshot_case(&r.series, &fam, m));
            }
            if let Some((other, ms)) = &r.stand_in {
                cases.push(stand_in_case(&r.series, other, ms));
            }
            Suite {
                name,
                kernel: r.label.clone(),
                version: r.version.clone(),
                error: r.error.clone(),
                cases,
                seconds: r.seconds,
                trees: r.trees.clone(),
                ..Default::default()
            }
        })
        .collect();
    Report::new("conformance", suites)
}

/// The case of one corpus vector: its verdict, and where C and Rust differ.
/// A scenario's verdict is its first failing step's: the case names that
/// step (its function, `step K of N`) and shows that step's outcomes.
fn vector_case(v: &Vector, c: &Checked) -> Case {
    let at = c.verdict_step();
    let func = v
        .steps()
        .nth(c.step.saturating_sub(1))
        .unwrap_or(&v.call)
        .func();
    let message = message(&c.verdict).map(|m| match v.then.len() {
        0 => m,
        later => format!("step {} of {}: {m}", c.step, 1 + later),
    });
    Case {
        name: v.id(),
        function: func.to_string(),
        file: Some(shown_path(&v.file)),
        line: Some(v.line),
        branch: (!v.branch.is_empty()).then(|| v.branch.clone()),
        status: status(&c.verdict),
        message,
        detail: (!c.verdict.ok()).then(|| check::explain(v, c)),
        differences: match &c.verdict {
            Verdict::Differ(d) => d
                .iter()
                .map(|(f, a, b)| Difference {
                    field: (*f).to_owned(),
                    c: a.clone(),
                    rust: b.clone(),
                })
                .collect(),
            _ => vec![],
        },
        c: at.c.as_ref().map(OutcomeView::from),
        rust: at.rust.as_ref().ok().map(OutcomeView::from),
        vectors: u64::from(!c.verdict.skipped()),
        failed: u64::from(!c.verdict.ok()),
        ..Default::default()
    }
}

/// The case of one snapshot file of `series`: a pass, or (`m`) the rows
/// whose upstream outcome changed.
fn snapshot_case(series: &str, fam: &str, m: Option<&SnapshotMismatch>) -> Case {
    Case {
        name: format!("snapshot::{fam}"),
        file: Some(shown_path(
            &snapshot::snapshots_dir()
                .join(series)
                .join(format!("{fam}.snap")),
        )),
        status: if m.is_some() {
            Status::Fail
        } else {
            Status::Pass
        },
        message: m.map(|m| {
            format!(
                "upstream outcomes of {} vector(s) differ from {}",
                m.rows.len(),
                shown_path(&m.path)
            )
        }),
        detail: m.map(snapshot_detail),
        snapshot_rows: m
            .map(|m| {
                m.rows
                    .iter()
                    .map(|(n, a, b)| SnapshotRow {
                        vector: n.clone(),
                        old: a.clone(),
                        new: b.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        vectors: 1,
        failed: u64::from(m.is_some()),
        ..Default::default()
    }
}

/// What a snapshot mismatch shows: each changed row, and how to accept the
/// change when it is meant.
fn snapshot_detail(m: &SnapshotMismatch) -> String {
    let mut d = format!("upstream outcomes differ from {}:\n", shown_path(&m.path));
    for (n, a, b) in &m.rows {
        d.push_str(&format!("  {n}\n    snapshot: {a}\n    now:      {b}\n"));
    }
    d.push_str(
        "  if the change is intended: `cargo test` (HFI1_KERNELS=SERIES for \
         another series) leaves the new snapshots pending, `cargo insta \
         review` shows and accepts them (cargo install cargo-insta); say \
         why in the commit\n",
    );
    d
}

/// The one case a tree of a series without snapshots gets: a pass that
/// says so, with how it differs from the nearest series' snapshots.
fn stand_in_case(series: &str, other: &str, ms: &[SnapshotMismatch]) -> Case {
    let rows: Vec<SnapshotRow> = ms
        .iter()
        .flat_map(|m| {
            m.rows.iter().map(|(n, a, b)| SnapshotRow {
                vector: format!("{}::{n}", m.family),
                old: a.clone(),
                new: b.clone(),
            })
        })
        .collect();
    let mut detail = format!(
        "the project has no snapshots for series {series}; against {other}'s (the nearest \
         series that has them) {} vector(s) behave differently\n",
        rows.len()
    );
    for r in &rows {
        detail.push_str(&format!(
            "  {}\n    {other}: {}\n    now: {}\n",
            r.vector, r.old, r.new
        ));
    }
    detail.push_str(&format!(
        "  to pin series {series} with snapshots of its own: `cargo xtask kernel update {series}`, \
         then `HFI1_KERNELS={series} cargo test` and `cargo insta review`\n"
    ));
    Case {
        name: format!("snapshot::none-for-{series}"),
        status: Status::Pass,
        message: Some(format!(
            "no snapshots for series {series}: {} vector(s) differ from {other}'s snapshots \
             (reported, not judged)",
            rows.len()
        )),
        detail: Some(detail),
        snapshot_rows: rows,
        vectors: 1,
        failed: 0,
        ..Default::default()
    }
}

/// Renders the report of a finished run.
pub fn render(format: Format, vectors: &[Vector], runs: &[KernelRun]) -> String {
    crate::report::render(format, &report(vectors, runs))
}

/// The vectors that disagree on a run, by id.
pub fn failing_ids(vectors: &[Vector], run: &KernelRun) -> Vec<String> {
    vectors
        .iter()
        .zip(&run.checks)
        .filter(|(_, c)| !c.verdict.ok())
        .map(|(v, _)| v.id())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cworld::call::model_diff;
    use crate::judge::check::run_model;
    use crate::outcome::Outcome;

    /// A generated scenario whose last step calls another function than
    /// its first.
    fn scenario() -> Vector {
        (0..500)
            .map(|i| {
                let (call, then) = crate::generate::seeded_scenario(1, i);
                Vector {
                    family: "generated".into(),
                    name: format!("scenario_1_{i}"),
                    branch: String::new(),
                    file: "generated".into(),
                    line: 0,
                    call,
                    then,
                }
            })
            .find(|v| v.then.last().is_some_and(|l| l.func() != v.call.func()))
            .expect("a scenario whose last step calls another function")
    }

    /// A scenario's steps judged as `check::judge_vector` judges them: C did
    /// `c`, the model `rust`.
    fn judged(c: &[Outcome], rust: &[Outcome]) -> Checked {
        let mut steps = c.iter().zip(rust).enumerate().map(|(i, (c, r))| {
            let d = model_diff(c, r);
            Checked {
                c: Some(c.clone()),
                rust: Ok(r.clone()),
                verdict: if d.is_empty() {
                    Verdict::Agree
                } else {
                    Verdict::Differ(d)
                },
                then: vec![],
                step: i + 1,
            }
        });
        let mut first = steps.next().expect("a first step");
        first.then = steps.collect();
        if let Some(bad) = first.then.iter().find(|s| !s.verdict.ok()) {
            (first.verdict, first.step) = (bad.verdict.clone(), bad.step);
        }
        first
    }

    /// A scenario whose later step differs is reported at that step: its
    /// function, `step K of N`, and its C and Rust outcomes beside its
    /// differences (not the first step's).
    #[test]
    fn a_scenario_failing_at_a_later_step_is_reported_at_that_step() {
        let v = scenario();
        let rust: Vec<Outcome> = run_model(&v)
            .into_iter()
            .collect::<Result<_, _>>()
            .expect("the model defines every step of a generated scenario");
        let k = rust.len();
        // C as the model, but for the last step's return value.
        let mut c = rust.clone();
        c[k - 1].ret = -12345;
        let case = vector_case(&v, &judged(&c, &rust));
        assert_eq!(case.status, Status::Fail);
        assert_eq!(case.function, v.then[k - 2].func().to_string());
        assert_eq!(
            case.message,
            Some(format!("step {k} of {k}: C and Rust differ in ret"))
        );
        let view = |o: &Outcome| serde_json::to_string(&OutcomeView::from(o)).ok();
        let shown =
            |o: &Option<OutcomeView>| o.as_ref().and_then(|o| serde_json::to_string(o).ok());
        assert_eq!(shown(&case.c), view(&c[k - 1]));
        assert_eq!(shown(&case.rust), view(&rust[k - 1]));
        assert_eq!(case.differences.len(), 1);
        assert_eq!(case.differences[0].c, "-12345");
        assert!(case
            .detail
            .is_some_and(|d| d.contains(&format!("at step {k} of {k}:"))));
    }
}
