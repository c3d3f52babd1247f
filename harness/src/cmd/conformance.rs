//! `cargo xtask conformance`: the corpus against one or more kernels,
//! C against Rust, upstream against the snapshots, one report.
//!
//! Exit codes ([`crate::report::exit_code`]): `SUCCESS` when C and Rust
//! agree on every vector and every snapshot matches; `FINDING` when
//! anything differs; `CANNOT_JUDGE` when the run could not happen (bad
//! arguments, no kernel, a build failure).

use anyhow::Result;

use crate::corpus::Vector;
use crate::cworld::{self, BuildOptions, Fault};
use crate::judge::check::{self, Checked, Verdict};
use crate::judge::snapshot;
use crate::kernel::select::{suite_names, KernelArg};
use crate::report::shown_path;
use crate::report::{Case, Difference, OutcomeView, Report, SnapshotRow, Status, Suite};

/// The report formats.
pub use crate::report::Format;

/// How a series' snapshots and a run disagree.
pub use crate::judge::snapshot::SnapshotMismatch;

/// What one kernel gave.
#[derive(Debug, Clone)]
pub struct KernelRun {
    /// The kernel as the user named it.
    pub sel: KernelArg,
    /// The kernel's name in messages and reports ([`KernelArg::label`]).
    pub label: String,
    /// The tree's version (empty when it could not be opened).
    pub version: String,
    /// The tree's series (empty when it could not be opened).
    pub series: String,
    /// Every vector of the corpus as run, in corpus order.
    pub checks: Vec<Checked>,
    /// Where the upstream outcomes differ from the series' snapshots.
    pub snapshots: Vec<SnapshotMismatch>,
    /// For a tree of a series without snapshots: the nearest series that
    /// has them, and how the tree differs from them (a report, not a
    /// failure: `snapshots` is then empty).
    pub stand_in: Option<(String, Vec<SnapshotMismatch>)>,
    /// Why this kernel could not be run (no tree, a build failure, a world
    /// that cannot be judged); its checks are then empty.
    pub error: Option<String>,
    /// Wall time, in seconds.
    pub seconds: f64,
}

impl KernelRun {
    /// The entry of a kernel that could not be run, so that the reports of
    /// the kernels that ran are still written, with this one as an error.
    pub fn could_not_run(sel: &KernelArg, error: &anyhow::Error) -> KernelRun {
        KernelRun {
            sel: sel.clone(),
            label: sel.label(),
            version: String::new(),
            series: String::new(),
            checks: vec![],
            snapshots: vec![],
            stand_in: None,
            error: Some(format!("{error:#}")),
            seconds: 0.0,
        }
    }

    /// How many vectors did not pass (differ, fault, or are refused).
    pub fn failed(&self) -> usize {
        self.checks.iter().filter(|c| !c.verdict.ok()).count()
    }

    /// Whether the kernel ran, every vector passed and every snapshot
    /// matched.
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.failed() == 0 && self.snapshots.is_empty()
    }
}

/// Runs the corpus on one kernel and compares against its series'
/// snapshots.
pub fn run_kernel(
    sel: &KernelArg,
    vectors: &[Vector],
    opts: &BuildOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<KernelRun> {
    let started = std::time::Instant::now();
    progress(&format!("kernel {}: opening", sel.label()));
    let tree = sel.open()?;
    progress(&format!(
        "kernel {}: building the C world of {}",
        sel.label(),
        tree.version
    ));
    let world = cworld::build(&tree, opts)?;
    progress(&format!(
        "kernel {}: running {} vectors",
        sel.label(),
        vectors.len()
    ));
    let checks = check::check_all(&world, vectors)?;
    let series = tree.version.series();
    let against = snapshot::snapshot_series(&series).unwrap_or_else(|| series.clone());
    let mut snapshots = vec![];
    for (fam, rows) in snapshot::by_family(vectors, &checks) {
        snapshots.extend(snapshot::compare(&against, &fam, &snapshot::render(&rows)));
    }
    let stand_in = (against != series).then(|| {
        progress(&format!(
            "kernel {}: the project has no snapshots for series {series}: compared with \
             {against}'s, the nearest series that has them (not a failure)",
            sel.label()
        ));
        (against, std::mem::take(&mut snapshots))
    });
    Ok(KernelRun {
        sel: sel.clone(),
        label: sel.label(),
        version: tree.version.to_string(),
        series,
        checks,
        snapshots,
        stand_in,
        error: None,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Runs the corpus on each kernel in turn ([`run_kernel`]), saying how
/// each went. A kernel that cannot be run is said on stderr and kept as
/// [`KernelRun::could_not_run`]: the others still get their report.
pub fn run_kernels(
    kernels: &[KernelArg],
    vectors: &[Vector],
    opts: &BuildOptions,
    progress: &mut dyn FnMut(&str),
) -> Vec<KernelRun> {
    crate::cmd::each_kernel(
        kernels,
        |k| {
            let run = run_kernel(k, vectors, opts, progress)?;
            progress(&format!(
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
                ..Default::default()
            }
        })
        .collect();
    Report::new("conformance", suites)
}

/// The case of one corpus vector: its verdict, and where C and Rust differ.
fn vector_case(v: &Vector, c: &Checked) -> Case {
    Case {
        name: v.id(),
        function: v.call.func().to_string(),
        file: Some(shown_path(&v.file)),
        line: Some(v.line),
        branch: (!v.branch.is_empty()).then(|| v.branch.clone()),
        status: status(&c.verdict),
        message: message(&c.verdict),
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
        c: c.c.as_ref().map(OutcomeView::from),
        rust: c.rust.as_ref().ok().map(OutcomeView::from),
        vectors: 1,
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
