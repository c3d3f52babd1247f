//! `cargo xtask sweep`: every published Debian version of each series,
//! oldest to newest, each compared with the one before it, C against C
//! (the gate's and `diff`'s comparison: the corpus and generated
//! vectors). A stable update that changes the behaviour of a function in
//! scope shows up as the pair of versions where it changed, with grouped
//! minimal reproducers.

use anyhow::Result;

use crate::corpus::Vector;
use crate::cworld::{self, BuildOptions};
use crate::judge::compare::{self, Comparison};
use crate::kernel::{self, Published};
use crate::model::types::Func;
use crate::report::{Case, Report, Status, Suite};

/// What to sweep.
#[derive(Debug, Clone)]
pub struct Options {
    /// The series (default: the pinned ones).
    pub series: Vec<String>,
    /// At most this many versions per series, the newest (0: all).
    pub limit: usize,
    /// Generated vectors per function, besides the corpus.
    pub random: u64,
    /// The seed they are drawn from.
    pub seed: u64,
    /// The functions whose generated vectors run.
    pub funcs: Vec<Func>,
}

/// One step of a sweep: version `from` to version `to` of a series.
#[derive(Debug, Clone)]
pub struct Step {
    /// The series.
    pub series: String,
    /// The version before (empty when none before `to` was built).
    pub from: String,
    /// The version after.
    pub to: String,
    /// The comparison, or why it could not be made (a version that does
    /// not build: a finding too).
    pub result: std::result::Result<Comparison, String>,
}

/// The versions a sweep visits, per series oldest first.
pub fn plan(opts: &Options) -> Result<Vec<(String, Vec<Published>)>> {
    let series = if opts.series.is_empty() {
        kernel::series()
    } else {
        opts.series.clone()
    };
    let all = kernel::published(&series)?;
    let mut out = vec![];
    for s in series {
        let mut v: Vec<Published> = all.iter().filter(|p| p.series == s).cloned().collect();
        // apt lists newest first.
        if opts.limit > 0 {
            v.truncate(opts.limit);
        }
        v.reverse();
        out.push((s, v));
    }
    Ok(out)
}

/// What a sweep did.
#[derive(Debug, Clone, Default)]
pub struct Sweep {
    /// Each step, in order.
    pub steps: Vec<Step>,
    /// `(series, version, why)`: published versions the archive would not
    /// hand over (a package listed but gone from the pool). They are left
    /// out of the chain, not counted as failures.
    pub unavailable: Vec<(String, String, String)>,
}

/// Runs a sweep: fetch and build each version, compare it with the
/// previous one of its series that could be built. A version that does
/// not build is a failed step (a finding); one that cannot be downloaded
/// is listed and skipped.
pub fn run(opts: &Options, vectors: &[Vector], progress: &mut dyn FnMut(&str)) -> Result<Sweep> {
    let mut out = Sweep::default();
    for (series, versions) in plan(opts)? {
        progress(&format!(
            "series {series}: {} version(s): {}",
            versions.len(),
            versions
                .iter()
                .map(|p| p.version.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let mut prev: Option<(String, cworld::BuiltWorld)> = None;
        for p in versions {
            progress(&format!("{series}: fetching and building {}", p.version));
            let tree = match kernel::fetch_version(&series, &p.version, None) {
                Ok(t) => t,
                Err(e) => {
                    progress(&format!("{series}: {} is not available: {e:#}", p.version));
                    out.unavailable
                        .push((series.clone(), p.version.clone(), format!("{e:#}")));
                    continue;
                }
            };
            let world = match cworld::build(&tree, &BuildOptions::default()) {
                Ok(w) => w,
                Err(e) => {
                    out.steps.push(Step {
                        series: series.clone(),
                        from: prev.as_ref().map(|x| x.0.clone()).unwrap_or_default(),
                        to: p.version.clone(),
                        result: Err(format!("{}: {e:#}", p.version)),
                    });
                    continue;
                }
            };
            if let Some((from, before)) = &prev {
                progress(&format!("{series}: {from} -> {}", p.version));
                let result = compare::compare(
                    before,
                    &world,
                    vectors,
                    &opts.funcs,
                    opts.random,
                    opts.seed,
                    progress,
                )
                .map_err(|e| format!("{e:#}"));
                out.steps.push(Step {
                    series: series.clone(),
                    from: from.clone(),
                    to: p.version.clone(),
                    result,
                });
            }
            prev = Some((p.version.clone(), world));
        }
    }
    Ok(out)
}

/// The sweep's report: a suite per step (`6.1: 6.1.176-1 -> 6.1.177-1`),
/// with `diff`'s cases (one per function, failing with its groups when
/// the function's behaviour changed between the two versions), and a note
/// per version the archive would not hand over.
pub fn report(sweep: &Sweep) -> Report {
    let mut suites = vec![];
    for s in &sweep.steps {
        let name = format!("{}: {} -> {}", s.series, s.from, s.to);
        match &s.result {
            Ok(c) => {
                let mut r = compare::report(&name, &s.from, &s.to, c);
                suites.append(&mut r.suites);
            }
            Err(e) => suites.push(Suite {
                name: name.clone(),
                kernel: name,
                error: Some(e.clone()),
                ..Default::default()
            }),
        }
    }
    if !sweep.unavailable.is_empty() {
        suites.push(Suite {
            name: "unavailable".into(),
            kernel: "unavailable".into(),
            cases: sweep
                .unavailable
                .iter()
                .map(|(series, version, why)| Case {
                    name: format!("unavailable::{series}={version}"),
                    function: "(unavailable)".into(),
                    status: Status::Pass,
                    message: Some(format!(
                        "{series}={version} is listed by Debian but could not be fetched \
                         (left out of the sweep): {why}"
                    )),
                    vectors: 0,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        });
    }
    Report::new("sweep", suites)
}

/// Per function, the steps where its behaviour changed: the summary a
/// sweep ends with.
pub fn changes(sweep: &Sweep) -> Vec<(Func, Vec<String>)> {
    let mut out: Vec<(Func, Vec<String>)> = vec![];
    for s in &sweep.steps {
        let Ok(c) = &s.result else { continue };
        for g in &c.groups {
            let at = format!("{} -> {}", s.from, s.to);
            match out.iter_mut().find(|(f, _)| *f == g.func) {
                Some((_, v)) if v.contains(&at) => {}
                Some((_, v)) => v.push(at),
                None => out.push((g.func, vec![at])),
            }
        }
    }
    out
}
