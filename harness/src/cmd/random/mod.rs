//! `--random N --seed S`: generated vectors on both sides, in the worker.
//!
//! Vector `i` of function `f` is `generate::seeded_call(S, f, i)`, so a run
//! is reproducible and any single vector can be regenerated. Disagreements
//! are minimised here — fields pulled toward their simplest values while
//! C and Rust still disagree — and written out as a vector file ready to
//! commit; crashes are reported per vector with the signal.

mod chunks;
pub mod scenarios;

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::cmd::jobs;
use crate::corpus::write::case_toml;
use crate::cworld::{self, BuildOptions, BuiltWorld, Fault, FindingKind, RandomFinding, Worker};
use crate::generate::seeded_call;
use crate::judge::check::Verdict;
use crate::judge::shrink::{minimise, minimise_fault, verdict_of};
use crate::kernel::select::{suite_names, KernelArg};
use crate::model::types::*;
use crate::report::{shown_path, Case, Report, Status, Suite};

/// One thing a random run found.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The function the vector calls.
    pub func: Func,
    /// The run's seed.
    pub seed: u64,
    /// The vector's index among the function's generated vectors.
    pub index: u64,
    /// What was seen: a field-by-field diff, "undefined", or the crash.
    pub what: String,
    /// The minimised call (for a fault: minimised while it faults the same
    /// way).
    pub call: Call,
    /// Where the ready-to-commit vector file was written.
    pub file: Option<PathBuf>,
}

/// What a random run did.
#[derive(Debug, Clone, Default)]
pub struct RandomRun {
    /// `(function, vectors run, disagreements, crashes)`: the vectors run
    /// are those drawn ([`RandomRun::not_drawn`] are not).
    pub per_func: Vec<(Func, u64, u64, u64)>,
    /// What was found, each minimised and written out.
    pub findings: Vec<Finding>,
    /// Generated scenarios, when asked for (`--scenarios`).
    pub scenarios: Option<scenarios::ScenarioRun>,
    /// The functions asked for that the tree lacks: not run.
    pub not_in_tree: Vec<Func>,
    /// Each function's indices the generator drew no vector for (it found
    /// none within the invariants): not run, not counted in `per_func`.
    pub not_drawn: Vec<(Func, u64)>,
    /// Wall time, in seconds.
    pub seconds: f64,
}

/// How many disagreements of one shape a random run minimises and writes
/// (the rest are counted).
pub const FINDINGS_PER_SHAPE: usize = 3;

/// Where findings are written: `target/findings/`.
pub fn findings_dir() -> PathBuf {
    crate::project_path("target/findings")
}

/// The command that runs finding `name` alone on the series of `kernel`
/// (the tree it was found on, `6.12.117`).
fn alone(kernel: &str, name: &str) -> String {
    let series: Vec<&str> = kernel.split('.').take(2).collect();
    format!(
        "cargo xtask conformance --kernel {} --vectors target/findings/{name}.toml",
        series.join(".")
    )
}

fn write_finding(f: &Finding, kernel: &str) -> Result<PathBuf> {
    let dir = findings_dir();
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("creating {} for the findings", dir.display()))?;
    let name = format!("random_{}_{}_{}", f.func, f.seed, f.index);
    let path = dir.join(format!("{name}.toml"));
    let mut text = format!(
        "# Found by `cargo xtask conformance --random ... --seed {}` on {kernel}:\n\
         # vector {} of {}, minimised. {}\n\
         # Alone: {}\n\
         # Move it into vectors/ (its family's file or a new one) once understood.\n\n",
        f.seed,
        f.index,
        f.func,
        f.what.lines().next().unwrap_or(""),
        alone(kernel, &name)
    );
    text.push_str(&case_toml(
        &f.call,
        &name,
        &format!("random finding: {}", f.func),
    ));
    std::fs::write(&path, text)
        .with_context(|| format!("writing the finding {}", path.display()))?;
    Ok(path)
}

/// Runs `n` generated vectors of each function in `funcs` from `seed`.
pub fn run(
    world: &BuiltWorld,
    funcs: &[Func],
    n: u64,
    seed: u64,
    progress: &mut dyn FnMut(Func, u64, u64),
) -> Result<RandomRun> {
    run_jobs(world, funcs, n, seed, jobs(), progress)
}

/// [`run`] with `jobs` workers (the result does not depend on it).
pub fn run_jobs(
    world: &BuiltWorld,
    funcs: &[Func],
    n: u64,
    seed: u64,
    jobs: usize,
    progress: &mut dyn FnMut(Func, u64, u64),
) -> Result<RandomRun> {
    let started = std::time::Instant::now();
    let mut workers = (0..jobs.max(1))
        .map(|_| Worker::new(world))
        .collect::<Result<Vec<_>>>()?;
    let mut out = RandomRun::default();
    let kernel = world.tree.version.to_string();
    for &f in funcs {
        if world.lacks(f) {
            out.not_in_tree.push(f);
            continue;
        }
        let (mut found, crashes) = run_parallel(&mut workers, f, seed, n, progress)?;
        let drawn = found.len();
        found.retain(|r| r.kind != FindingKind::NotDrawn);
        let not_drawn = (drawn - found.len()) as u64;
        if not_drawn > 0 {
            out.not_drawn.push((f, not_drawn));
        }
        let (bad, crashed) = (found.len() as u64, crashes.len() as u64);
        let worker = &mut workers[0];
        disagreements(worker, f, seed, found, &kernel, &mut out.findings)?;
        faults(worker, f, seed, crashes, &kernel, &mut out.findings)?;
        out.per_func.push((f, n - not_drawn, bad, crashed));
    }
    out.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}

/// The disagreements of `f` a run found: the first few of each shape (the
/// same fields differ) minimised and written out, the rest only counted,
/// not one file per vector: an implementation with one bug disagrees on
/// thousands.
fn disagreements(
    worker: &mut Worker,
    f: Func,
    seed: u64,
    found: Vec<RandomFinding>,
    kernel: &str,
    out: &mut Vec<Finding>,
) -> Result<()> {
    let mut shapes: Vec<(String, usize)> = vec![];
    for r in found {
        let c = seeded_call(seed, f, r.index);
        let shape = match verdict_of(worker, &c)? {
            Verdict::Differ(d) => d.iter().map(|x| x.0).collect::<Vec<_>>().join(","),
            other => format!("{:?}", std::mem::discriminant(&other)),
        };
        match shapes.iter_mut().find(|(s, _)| *s == shape) {
            Some((_, n)) if *n >= FINDINGS_PER_SHAPE => continue,
            Some((_, n)) => *n += 1,
            None => shapes.push((shape, 1)),
        }
        let small = minimise(worker, &c)?;
        let what = match &verdict_of(worker, &small)? {
            Verdict::Differ(d) => d
                .iter()
                .map(|(k, a, b)| format!("{k}: C {a} / Rust {b}"))
                .collect::<Vec<_>>()
                .join("; "),
            Verdict::Agree => format!(
                "{} in the run, but agrees when run again: its outcome depends on \
                 what the C world ran before it (state that outlives a call), so the \
                 vector is written as found, not minimised",
                match r.kind {
                    FindingKind::Differ => "C and Rust differed",
                    FindingKind::Undefined => "the model called it undefined",
                    FindingKind::Malformed => "the shim refused it",
                    FindingKind::NotDrawn => "no vector was drawn",
                }
            ),
            other => format!("{other:?}"),
        };
        out.push(written(f, seed, r.index, what, small, kernel)?);
    }
    Ok(())
}

/// The faults of `f` found by a run. Every fault is reported and written;
/// the first few of each kind are minimised (keeping their kind, within a
/// budget), the rest written as found: a tree that loops hangs on every
/// vector.
fn faults(
    worker: &mut Worker,
    f: Func,
    seed: u64,
    crashes: Vec<(u64, Fault)>,
    kernel: &str,
    out: &mut Vec<Finding>,
) -> Result<()> {
    let mut minimised: Vec<(&'static str, usize)> = vec![];
    for (index, fault) in crashes {
        let found = seeded_call(seed, f, index);
        let n = match minimised.iter_mut().find(|(w, _)| *w == fault.word()) {
            Some((_, n)) => n,
            None => {
                minimised.push((fault.word(), 0));
                &mut minimised.last_mut().expect("just pushed").1
            }
        };
        let (small, what) = if *n < FINDINGS_PER_SHAPE {
            *n += 1;
            (minimise_fault(worker, &found, &fault)?, fault.to_string())
        } else {
            let what = format!(
                "{fault} (written as found: {FINDINGS_PER_SHAPE} of this kind were \
                 minimised)"
            );
            (found, what)
        };
        out.push(written(f, seed, index, what, small, kernel)?);
    }
    Ok(())
}

/// A finding, written out as a vector file.
fn written(
    f: Func,
    seed: u64,
    index: u64,
    what: String,
    call: Call,
    kernel: &str,
) -> Result<Finding> {
    let mut finding = Finding {
        func: f,
        seed,
        index,
        what,
        call,
        file: None,
    };
    finding.file = Some(write_finding(&finding, kernel)?);
    Ok(finding)
}

/// Vectors `0..n` of `f`, run in chunks by every worker at once. What is
/// found depends only on the indices, so the result (in index order) is
/// the same for any number of workers.
fn run_parallel(
    workers: &mut [Worker],
    f: Func,
    seed: u64,
    n: u64,
    progress: &mut dyn FnMut(Func, u64, u64),
) -> Result<crate::cworld::RandomReply> {
    let parts = chunks::in_chunks(
        workers,
        n,
        20_000,
        |w, r| w.run_random(f, seed, r.start, r.end - r.start),
        &mut |done, n| progress(f, done, n),
    )?;
    let (mut found, mut faults) = (vec![], vec![]);
    for (fd, fl) in parts {
        found.extend(fd);
        faults.extend(fl);
    }
    Ok((found, faults))
}

/// A progress bar on stderr: redrawn in place on a terminal, a line per
/// tenth otherwise (CI logs).
pub struct Progress {
    tty: bool,
    last_tenth: u64,
    started: std::time::Instant,
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new()
    }
}

impl Progress {
    /// A bar starting now, drawn in place when stderr is a terminal.
    pub fn new() -> Progress {
        use std::io::IsTerminal;
        Progress {
            tty: std::io::stderr().is_terminal(),
            last_tenth: u64::MAX,
            started: std::time::Instant::now(),
        }
    }

    /// Shows `done` of `total` vectors of `label` run.
    pub fn update(&mut self, label: &str, done: u64, total: u64) {
        let pct = done * 100 / total.max(1);
        let rate = done as f64 / self.started.elapsed().as_secs_f64().max(1e-9);
        if self.tty {
            let width = 30;
            let fill = (pct as usize * width / 100).min(width);
            eprint!(
                "\r[random] {label:28} [{}{}] {done}/{total} ({rate:.0} vectors/s)   ",
                "#".repeat(fill),
                " ".repeat(width - fill)
            );
            if done >= total {
                eprintln!();
                self.started = std::time::Instant::now();
            }
            let _ = std::io::stderr().flush();
        } else if pct / 10 != self.last_tenth || done >= total {
            self.last_tenth = pct / 10;
            eprintln!("[random] {label}: {done}/{total} ({pct}%)");
            if done >= total {
                self.last_tenth = u64::MAX;
                self.started = std::time::Instant::now();
            }
        }
    }
}

/// A kernel's random run, or why it could not run.
pub struct KernelRandom {
    /// The kernel as the user named it.
    pub sel: KernelArg,
    /// The tree's series (empty when it could not be opened).
    pub series: String,
    /// The tree's version (empty when it could not be opened).
    pub version: String,
    /// The run, or why there was none.
    pub run: std::result::Result<RandomRun, String>,
    /// The tree and its world, as reports record them (empty when the
    /// kernel could not be run).
    pub trees: Vec<crate::report::Tree>,
}

/// `n` generated vectors of each function in `funcs` and `scenarios`
/// generated scenarios from `seed` on each kernel in turn, each in a world
/// built with `opts`. A kernel that cannot be run is said on stderr and
/// kept with its error: the others still get their report.
pub fn run_kernels(
    kernels: &[KernelArg],
    opts: &BuildOptions,
    funcs: &[Func],
    (n, scenarios): (u64, u64),
    seed: u64,
    progress: &mut dyn FnMut(&str),
) -> Vec<KernelRandom> {
    crate::cmd::each_kernel(
        kernels,
        |k| {
            let tree = k.open()?;
            progress(&format!(
                "kernel {}: building the C world of {}",
                k.label(),
                tree.version
            ));
            let world = cworld::build(&tree, opts)?;
            let mut bar = Progress::new();
            let mut run = run(&world, funcs, n, seed, &mut |f, done, total| {
                bar.update(f.name(), done, total)
            })?;
            let total: u64 = run.per_func.iter().map(|x| x.1).sum();
            if !funcs.is_empty() {
                progress(&format!(
                    "kernel {}: {total} vectors in {:.2}s ({:.0} vectors/s)",
                    k.label(),
                    run.seconds,
                    total as f64 / run.seconds.max(1e-9)
                ));
            }
            if scenarios > 0 {
                let mut workers = (0..jobs())
                    .map(|_| Worker::new(&world))
                    .collect::<Result<Vec<_>>>()?;
                let version = tree.version.to_string();
                let s = scenarios::run(&mut workers, scenarios, seed, &version, &mut |d, t| {
                    bar.update("scenarios", d, t)
                })?;
                progress(&format!(
                    "kernel {}: {} scenarios ({} steps) in {:.2}s ({:.0} steps/s)",
                    k.label(),
                    s.n,
                    s.steps,
                    s.seconds,
                    s.steps as f64 / s.seconds.max(1e-9)
                ));
                run.seconds += s.seconds;
                run.scenarios = Some(s);
            }
            Ok(KernelRandom {
                sel: k.clone(),
                series: tree.version.series(),
                version: tree.version.to_string(),
                run: Ok(run),
                trees: vec![crate::cmd::tree_record(
                    "tree",
                    &k.label(),
                    &tree,
                    opts,
                    crate::report::BuildStatus::Built,
                    None,
                )],
            })
        },
        |k, e| KernelRandom {
            sel: k.clone(),
            series: String::new(),
            version: String::new(),
            run: Err(format!("{e:#}")),
            trees: vec![],
        },
    )
}

/// The report of a random run: a suite per kernel, a case per function
/// (`random::FUNCTION`), its findings listed.
pub fn report(kernels: &[KernelRandom]) -> Report {
    let names = suite_names(kernels.iter().map(|k| (k.series.as_str(), &k.sel)));
    let suites = kernels
        .iter()
        .zip(names)
        .map(|(k, name)| {
            let (cases, error, seconds) = match &k.run {
                Err(e) => (vec![], Some(e.clone()), 0.0),
                Ok(run) => {
                    let mut cases: Vec<Case> =
                        run.per_func.iter().map(|x| function_case(run, x)).collect();
                    cases.extend(run.not_in_tree.iter().map(|f| Case {
                        name: format!("random::{f}"),
                        function: f.to_string(),
                        status: Status::Skip,
                        message: Some(format!("{f} is not in this tree: not run")),
                        ..Default::default()
                    }));
                    cases.extend(run.scenarios.as_ref().map(scenarios_case));
                    (cases, None, run.seconds)
                }
            };
            Suite {
                name,
                kernel: k.sel.label(),
                version: k.version.clone(),
                error,
                cases,
                seconds,
                trees: k.trees.clone(),
                ..Default::default()
            }
        })
        .collect();
    Report::new("random", suites)
}

/// What a case says of the indices the generator gave up on (`what`:
/// indices, scenarios), beside its verdict: they are neither run nor
/// passed. `None` when there are none.
fn undrawn_note(not_drawn: u64, run: u64, what: &str) -> Option<String> {
    (not_drawn > 0).then(|| {
        format!(
            "{not_drawn} of {} {what} not drawn (the generator found no vector \
             within the invariants there): not run",
            run + not_drawn
        )
    })
}

/// A case's detail with the note after it: a passing case shows it as
/// a NOTE line, a failing one after its findings (human, KTAP).
fn with_note(detail: Option<String>, note: &Option<String>) -> Option<String> {
    match (detail, note) {
        (d, None) => d,
        (None, Some(n)) => Some(n.clone()),
        (Some(d), Some(n)) => Some(format!("{d}{n}\n")),
    }
}

/// The case of a run's generated scenarios (`random::scenarios`).
fn scenarios_case(s: &scenarios::ScenarioRun) -> Case {
    let undrawn = undrawn_note(s.not_drawn, s.n, "scenarios");
    let detail = (!s.findings.is_empty()).then(|| {
        s.findings
            .iter()
            .map(|x| {
                format!(
                    "scenario {}: {}\n  minimised scenario: {}\n",
                    x.index,
                    x.what,
                    x.file.as_ref().map(|p| shown_path(p)).unwrap_or_default()
                )
            })
            .collect::<String>()
    });
    Case {
        name: "random::scenarios".into(),
        function: "scenarios".into(),
        status: if s.failed > 0 {
            Status::Fail
        } else {
            Status::Pass
        },
        message: match s.failed {
            0 => undrawn.clone(),
            _ => Some(format!(
                "{} of {} generated scenarios ({} steps) fail{}",
                s.failed,
                s.n,
                s.steps,
                undrawn
                    .as_ref()
                    .map(|u| format!("; {u}"))
                    .unwrap_or_default()
            )),
        },
        detail: with_note(detail, &undrawn),
        vectors: s.n,
        failed: s.failed,
        ..Default::default()
    }
}

/// The case of one function of a run: `(f, n, bad, faults)` as
/// [`RandomRun::per_func`] has it, with the findings of `f`.
fn function_case(run: &RandomRun, &(f, n, bad, faults): &(Func, u64, u64, u64)) -> Case {
    let found: Vec<&Finding> = run.findings.iter().filter(|x| x.func == f).collect();
    let not_drawn = run.not_drawn.iter().find(|x| x.0 == f).map_or(0, |x| x.1);
    let undrawn = undrawn_note(not_drawn, n, "indices");
    let status = if bad > 0 {
        Status::Fail
    } else if faults > 0 {
        let w = found.first().map(|x| x.what.as_str()).unwrap_or("");
        if w.starts_with("hang") {
            Status::Hang
        } else if w.starts_with("denied") {
            Status::Denied
        } else {
            Status::Crashed
        }
    } else {
        Status::Pass
    };
    let detail = (!found.is_empty()).then(|| {
        found
            .iter()
            .map(|x| {
                format!(
                    "vector {} (seed {}): {}\n  minimised vector: {}\n",
                    x.index,
                    x.seed,
                    x.what,
                    x.file.as_ref().map(|p| shown_path(p)).unwrap_or_default()
                )
            })
            .collect::<String>()
    });
    let detail = with_note(detail, &undrawn);
    Case {
        name: format!("random::{f}"),
        function: f.to_string(),
        status,
        message: match (found.is_empty(), undrawn) {
            (true, undrawn) => undrawn,
            (false, undrawn) => Some(format!(
                "{} of {n} generated vectors: {} disagree, {} faulted{}",
                bad + faults,
                bad,
                faults,
                undrawn.map(|u| format!("; {u}")).unwrap_or_default()
            )),
        },
        detail,
        findings: found
            .iter()
            .map(|x| crate::report::Finding {
                seed: x.seed,
                index: x.index,
                what: x.what.clone(),
                file: x.file.as_ref().map(|p| shown_path(p)),
            })
            .collect(),
        vectors: n,
        failed: bad + faults,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Indices the generator gave up on are neither run nor passed: the
    /// case counts the vectors run and says how many were not drawn.
    #[test]
    fn indices_not_drawn_are_said_not_passed() {
        let f = Func::InitSendContexts;
        let run = RandomRun {
            per_func: vec![(f, 90, 0, 0)],
            not_drawn: vec![(f, 10)],
            ..Default::default()
        };
        let c = function_case(&run, &run.per_func[0]);
        assert_eq!((c.status, c.vectors, c.failed), (Status::Pass, 90, 0));
        let m = c.message.unwrap_or_default();
        assert!(m.starts_with("10 of 100 indices not drawn"), "{m}");
        assert_eq!(c.detail, Some(m.clone()));
        // Beside findings, after them.
        let mut failing = run.clone();
        failing.per_func[0].2 = 1;
        failing.findings.push(Finding {
            func: f,
            seed: 1,
            index: 7,
            what: "text: differs".into(),
            call: seeded_call(1, f, 7),
            file: None,
        });
        let c = function_case(&failing, &failing.per_func[0]);
        let d = c.detail.unwrap_or_default();
        assert!(
            d.starts_with("vector 7 (seed 1)") && d.ends_with(&format!("{m}\n")),
            "{d}"
        );
        let all = RandomRun {
            per_func: vec![(f, 100, 0, 0)],
            ..Default::default()
        };
        assert_eq!(function_case(&all, &all.per_func[0]).message, None);
    }
}
