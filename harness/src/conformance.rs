//! `cargo xtask conformance`: the corpus against one or more kernels,
//! C against Rust, upstream against the snapshots, one report.
//!
//! Exit codes: 0 when C and Rust agree on every vector and every snapshot
//! matches; 1 when anything differs; 2 when the run could not happen (bad
//! arguments, no kernel, a build failure).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;

use crate::cworld::{self, BuildOptions};
use crate::kernel::{self, KernelTree};
use crate::model::types::Func;
use crate::runner::{self, Checked, Verdict};
use crate::snapshot;
use crate::vector::Vector;

/// A kernel named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelSel {
    Series(String),
    Path(PathBuf),
}

impl KernelSel {
    pub fn label(&self) -> String {
        match self {
            KernelSel::Series(s) => s.clone(),
            KernelSel::Path(p) => p.display().to_string(),
        }
    }

    pub fn open(&self) -> Result<KernelTree> {
        match self {
            KernelSel::Series(s) => kernel::fetch(s),
            KernelSel::Path(p) => KernelTree::open(p),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Human,
    Ktap,
    Junit,
    Json,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "human" => Some(Format::Human),
            "ktap" => Some(Format::Ktap),
            "junit" => Some(Format::Junit),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// A snapshot that does not match.
#[derive(Debug, Clone)]
pub struct SnapshotMismatch {
    pub family: String,
    pub path: PathBuf,
    /// `(vector, snapshot row, upstream row now)`.
    pub rows: Vec<(String, String, String)>,
}

/// What one kernel gave.
#[derive(Debug, Clone)]
pub struct KernelRun {
    pub label: String,
    pub version: String,
    pub series: String,
    pub checks: Vec<Checked>,
    pub snapshots: Vec<SnapshotMismatch>,
    /// Why this kernel could not be run (no tree, a build failure, a world
    /// that cannot be judged); its checks are then empty.
    pub error: Option<String>,
}

impl KernelRun {
    /// The entry of a kernel that could not be run, so that the reports of
    /// the kernels that ran are still written, with this one as an error.
    pub fn could_not_run(sel: &KernelSel, error: &anyhow::Error) -> KernelRun {
        KernelRun {
            label: sel.label(),
            version: String::new(),
            series: String::new(),
            checks: vec![],
            snapshots: vec![],
            error: Some(format!("{error:#}")),
        }
    }

    pub fn failed(&self) -> usize {
        self.checks.iter().filter(|c| !c.verdict.ok()).count()
    }

    pub fn ok(&self) -> bool {
        self.error.is_none() && self.failed() == 0 && self.snapshots.is_empty()
    }
}

/// Runs the corpus on one kernel and compares against its series'
/// snapshots.
pub fn run_kernel(
    sel: &KernelSel,
    vectors: &[Vector],
    opts: &BuildOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<KernelRun> {
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
    let checks = runner::check_all(&world, vectors)?;
    let series = tree.version.series();
    let mut snapshots = vec![];
    for (fam, rows) in snapshot::by_family(vectors, &checks) {
        let path = snapshot::snapshots_dir()
            .join(&series)
            .join(format!("{fam}.snap"));
        let now = snapshot::render(&rows);
        let old = snapshot::read_snap(&path).unwrap_or_default();
        if old != now {
            let (t_old, t_now) = (snapshot::parse_table(&old), snapshot::parse_table(&now));
            let mut names: Vec<&String> = t_old.keys().chain(t_now.keys()).collect();
            names.sort();
            names.dedup();
            let rows = names
                .into_iter()
                .filter_map(|n| {
                    let a = t_old.get(n).cloned().unwrap_or_else(|| "-".into());
                    let b = t_now.get(n).cloned().unwrap_or_else(|| "-".into());
                    (a != b).then(|| (n.clone(), a, b))
                })
                .collect();
            snapshots.push(SnapshotMismatch {
                family: fam,
                path,
                rows,
            });
        }
    }
    Ok(KernelRun {
        label: sel.label(),
        version: tree.version.to_string(),
        series,
        checks,
        snapshots,
        error: None,
    })
}

fn verdict_word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Agree => "agree",
        Verdict::Differ(_) => "differ",
        Verdict::Fault(f) => f.word(),
        Verdict::Malformed => "malformed",
        Verdict::Undefined(_) => "undefined",
    }
}

/// The human report: failures explained, then a function × kernel table.
pub fn human(vectors: &[Vector], runs: &[KernelRun]) -> String {
    let mut s = String::new();
    for r in runs {
        if let Some(e) = &r.error {
            let _ = writeln!(s, "ERROR [{}] could not run: {e}", r.label);
        }
        for (v, c) in vectors.iter().zip(&r.checks) {
            if !c.verdict.ok() {
                let _ = writeln!(s, "FAIL [{}] {}", r.label, runner::explain(v, c));
            }
        }
        for m in &r.snapshots {
            let _ = writeln!(
                s,
                "FAIL [{}] upstream outcomes differ from {}:",
                r.label,
                m.path.display()
            );
            for (n, a, b) in &m.rows {
                let _ = writeln!(s, "  {n}\n    snapshot: {a}\n    now:      {b}");
            }
            let _ = writeln!(
                s,
                "  if the change is intended, accept it with `cargo insta review` after \
                 `cargo insta test` (or INSTA_UPDATE=always cargo test), and say why in the commit"
            );
        }
    }
    s.push_str(&table(vectors, runs));
    let total: usize = runs.iter().map(|r| r.checks.len()).sum();
    let failed: usize = runs.iter().map(KernelRun::failed).sum();
    let snaps: usize = runs.iter().map(|r| r.snapshots.len()).sum();
    let _ = writeln!(
        s,
        "{} vectors x {} kernel(s): {} agree, {} differ; {} snapshot mismatch(es)",
        vectors.len(),
        runs.len(),
        total - failed,
        failed,
        snaps
    );
    let snap_files: usize = runs
        .iter()
        .map(|r| snapshot::by_family(vectors, &r.checks).len())
        .sum();
    let errors = runs.iter().filter(|r| r.error.is_some()).count();
    if errors > 0 {
        let _ = writeln!(s, "{errors} kernel(s) could not run (see ERROR above)");
    }
    let _ = writeln!(
        s,
        "{} passed, {} failed",
        total - failed + snap_files - snaps,
        failed + snaps + errors
    );
    s
}

/// Function × kernel: `agree/total` per cell, `snap!` when a snapshot of
/// that kernel differs.
pub fn table(vectors: &[Vector], runs: &[KernelRun]) -> String {
    let mut s = String::new();
    let heads: Vec<String> = runs
        .iter()
        .map(|r| {
            if r.label == r.series {
                r.version.clone()
            } else {
                format!("{} ({})", r.label, r.version)
            }
        })
        .collect();
    let fw = Func::ALL.iter().map(|f| f.name().len()).max().unwrap_or(8);
    let _ = write!(s, "{:fw$}", "function");
    for h in &heads {
        let _ = write!(s, " | {h:>12}");
    }
    s.push('\n');
    for f in Func::ALL {
        let idx: Vec<usize> = vectors
            .iter()
            .enumerate()
            .filter(|(_, v)| v.call.func == *f)
            .map(|(i, _)| i)
            .collect();
        if idx.is_empty() {
            continue;
        }
        let _ = write!(s, "{:fw$}", f.name());
        for r in runs {
            let cell = if r.error.is_some() {
                "error".to_owned()
            } else {
                let agree = idx
                    .iter()
                    .filter(|i| r.checks.get(**i).is_some_and(|c| c.verdict.ok()))
                    .count();
                format!("{agree}/{}", idx.len())
            };
            let _ = write!(s, " | {cell:>12}");
        }
        s.push('\n');
    }
    let _ = write!(s, "{:fw$}", "snapshots");
    for r in runs {
        let cell = if r.error.is_some() {
            "error".to_owned()
        } else if r.snapshots.is_empty() {
            "match".to_owned()
        } else {
            format!("{} differ", r.snapshots.len())
        };
        let _ = write!(s, " | {cell:>12}");
    }
    s.push('\n');
    s
}

fn ktap_escape(s: &str) -> String {
    s.replace('#', "\\#")
}

/// KTAP (Documentation/dev-tools/ktap.rst): one subtest per kernel, one
/// test per vector plus one per snapshot file.
pub fn ktap(vectors: &[Vector], runs: &[KernelRun]) -> String {
    let mut s = String::from("KTAP version 1\n");
    let _ = writeln!(s, "1..{}", runs.len());
    for (k, r) in runs.iter().enumerate() {
        if let Some(e) = &r.error {
            let _ = writeln!(s, "    KTAP version 1");
            let _ = writeln!(s, "    # Subtest: {}", ktap_escape(&r.label));
            for l in e.lines() {
                let _ = writeln!(s, "    # could not run: {}", ktap_escape(l));
            }
            let _ = writeln!(s, "    1..0");
            let _ = writeln!(s, "not ok {} {}", k + 1, ktap_escape(&r.label));
            continue;
        }
        let fams = snapshot::by_family(vectors, &r.checks);
        let _ = writeln!(s, "    KTAP version 1");
        let _ = writeln!(s, "    # Subtest: {}", ktap_escape(&r.label));
        let _ = writeln!(s, "    1..{}", vectors.len() + fams.len());
        let mut n = 0;
        for (v, c) in vectors.iter().zip(&r.checks) {
            n += 1;
            if c.verdict.ok() {
                let _ = writeln!(s, "    ok {n} {}", v.id());
            } else {
                for l in runner::explain(v, c).lines() {
                    let _ = writeln!(s, "    # {l}");
                }
                let _ = writeln!(s, "    not ok {n} {}", v.id());
            }
        }
        for (fam, _) in &fams {
            n += 1;
            match r.snapshots.iter().find(|m| &m.family == fam) {
                None => {
                    let _ = writeln!(s, "    ok {n} snapshot::{fam}");
                }
                Some(m) => {
                    for (name, a, b) in &m.rows {
                        let _ = writeln!(
                            s,
                            "    # {name}: snapshot {} now {}",
                            ktap_escape(a),
                            ktap_escape(b)
                        );
                    }
                    let _ = writeln!(s, "    not ok {n} snapshot::{fam}");
                }
            }
        }
        let _ = writeln!(
            s,
            "{} {} {}",
            if r.ok() { "ok" } else { "not ok" },
            k + 1,
            ktap_escape(&r.label)
        );
    }
    s
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JUnit XML: one testsuite per kernel.
pub fn junit(vectors: &[Vector], runs: &[KernelRun]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"hfi1-conformance\">\n",
    );
    for r in runs {
        if let Some(e) = &r.error {
            let _ = writeln!(
                s,
                "  <testsuite name=\"{l}\" tests=\"1\" failures=\"0\" errors=\"1\">\n    \
                 <testcase classname=\"{l}\" name=\"build and load\"><error message=\"could not \
                 run\">{}</error></testcase>\n  </testsuite>",
                xml(e),
                l = xml(&r.label)
            );
            continue;
        }
        let fams = snapshot::by_family(vectors, &r.checks);
        let _ = writeln!(
            s,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">",
            xml(&r.label),
            vectors.len() + fams.len(),
            r.failed() + r.snapshots.len()
        );
        for (v, c) in vectors.iter().zip(&r.checks) {
            let _ = write!(
                s,
                "    <testcase classname=\"{}.{}\" name=\"{}\" file=\"{}\" line=\"{}\"",
                xml(&r.label),
                xml(&v.family),
                xml(&v.name),
                xml(&v.file.display().to_string()),
                v.line
            );
            if c.verdict.ok() {
                s.push_str("/>\n");
            } else {
                let _ = writeln!(
                    s,
                    "><failure message=\"{}\">{}</failure></testcase>",
                    verdict_word(&c.verdict),
                    xml(&runner::explain(v, c))
                );
            }
        }
        for (fam, _) in &fams {
            let _ = write!(
                s,
                "    <testcase classname=\"{}.snapshot\" name=\"{}\"",
                xml(&r.label),
                xml(fam)
            );
            match r.snapshots.iter().find(|m| &m.family == fam) {
                None => s.push_str("/>\n"),
                Some(m) => {
                    let body: String = m
                        .rows
                        .iter()
                        .map(|(n, a, b)| format!("{n}: snapshot {a} / now {b}\n"))
                        .collect();
                    let _ = writeln!(
                        s,
                        "><failure message=\"snapshot differs\">{}</failure></testcase>",
                        xml(&body)
                    );
                }
            }
        }
        s.push_str("  </testsuite>\n");
    }
    s.push_str("</testsuites>\n");
    s
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// JSON: every kernel, every vector with its verdict and both outcomes.
pub fn json(vectors: &[Vector], runs: &[KernelRun]) -> String {
    let mut s = String::from("{\"kernels\":[");
    for (k, r) in runs.iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            "{{\"kernel\":{},\"version\":{},\"series\":{},\"ok\":{},\"error\":{},\"vectors\":[",
            json_str(&r.label),
            json_str(&r.version),
            json_str(&r.series),
            r.ok(),
            r.error
                .as_deref()
                .map(json_str)
                .unwrap_or_else(|| "null".into())
        );
        for (i, (v, c)) in vectors.iter().zip(&r.checks).enumerate() {
            if i > 0 {
                s.push(',');
            }
            let o = |x: Option<&crate::outcome::Outcome>| {
                x.map(|o| json_str(&o.to_string()))
                    .unwrap_or_else(|| "null".into())
            };
            let _ = write!(
                s,
                "{{\"id\":{},\"file\":{},\"line\":{},\"verdict\":{},\"c\":{},\"rust\":{},\"detail\":{}}}",
                json_str(&v.id()),
                json_str(&v.file.display().to_string()),
                v.line,
                json_str(verdict_word(&c.verdict)),
                o(c.c.as_ref()),
                o(c.rust.as_ref().ok()),
                if c.verdict.ok() {
                    "null".into()
                } else {
                    json_str(&runner::explain(v, c))
                }
            );
        }
        s.push_str("],\"snapshot_mismatches\":[");
        for (i, m) in r.snapshots.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(
                s,
                "{{\"family\":{},\"path\":{},\"vectors\":[{}]}}",
                json_str(&m.family),
                json_str(&m.path.display().to_string()),
                m.rows
                    .iter()
                    .map(|(n, _, _)| json_str(n))
                    .collect::<Vec<_>>()
                    .join(",")
            );
        }
        s.push_str("]}");
    }
    s.push_str("]}\n");
    s
}

/// Renders the report of a finished run.
pub fn render(format: Format, vectors: &[Vector], runs: &[KernelRun]) -> String {
    match format {
        Format::Human => human(vectors, runs),
        Format::Ktap => ktap(vectors, runs),
        Format::Junit => junit(vectors, runs),
        Format::Json => json(vectors, runs),
    }
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
