//! `--scenarios N --seed S`: generated scenarios on both sides, step by
//! step. Scenario `i` is `generate::seeded_scenario(S, i)`: a first call
//! and one to three later steps on one world, each kept only while the
//! model's state keeps the invariants. A failing one is minimised (its
//! later steps dropped, then its first call's fields pulled toward their
//! simplest values, while its first failing step fails the same way) and
//! written as a vector file with `then`, ready to commit.

use std::path::PathBuf;

use anyhow::{Context, Result};

use super::chunks::in_chunks;
use super::{findings_dir, FINDINGS_PER_SHAPE};
use crate::corpus::invariants::validate;
use crate::corpus::write::scenario_toml;
use crate::corpus::Vector;
use crate::cworld::Worker;
use crate::generate::seeded_scenario;
use crate::judge::check::{check_all_with, Checked};
use crate::judge::shrink::{minimise_scenario, scenario_verdict};

/// A failing generated scenario.
#[derive(Debug, Clone)]
pub struct ScenarioFinding {
    /// Its index in the run.
    pub index: u64,
    /// How it fails, minimised: the step, its function, the fields.
    pub what: String,
    /// The minimised scenario.
    pub vector: Vector,
    /// Where it was written.
    pub file: Option<PathBuf>,
}

/// What a run of generated scenarios did.
#[derive(Debug, Clone, Default)]
pub struct ScenarioRun {
    /// Scenarios run.
    pub n: u64,
    /// Scenarios not run: the generator gave up on their first call.
    pub not_drawn: u64,
    /// Steps run, every scenario's.
    pub steps: u64,
    /// Scenarios that failed (a step differed, faulted or was undefined).
    pub failed: u64,
    /// The first few of each shape, minimised and written.
    pub findings: Vec<ScenarioFinding>,
    /// Wall time, in seconds.
    pub seconds: f64,
}

/// How long minimising one failing scenario may take.
const MINIMISE_BUDGET: std::time::Duration = std::time::Duration::from_secs(3);

/// Scenario `index` of the run seeded `seed`, as a vector.
pub fn scenario(seed: u64, index: u64) -> Vector {
    let (call, then) = seeded_scenario(seed, index);
    Vector {
        family: "generated".into(),
        name: format!("scenario_{seed}_{index}"),
        branch: String::new(),
        file: PathBuf::from("generated"),
        line: 0,
        call,
        then,
    }
}

/// Scenarios `0..n` from `seed`, shared out among `workers` in chunks
/// (the result does not depend on how many).
pub fn run(
    workers: &mut [Worker],
    n: u64,
    seed: u64,
    kernel: &str,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ScenarioRun> {
    let started = std::time::Instant::now();
    let parts = in_chunks(
        workers,
        n,
        2_000,
        |w, r| {
            // A scenario whose first call the generator gave up on is
            // not run (its stand-in need not keep the invariants).
            let (at, vs): (Vec<u64>, Vec<Vector>) = r
                .map(|i| (i, scenario(seed, i)))
                .filter(|(_, v)| validate(&v.call).is_ok())
                .unzip();
            let checks = check_all_with(w, &vs)?;
            let steps: u64 = vs.iter().map(|v| 1 + v.then.len() as u64).sum();
            let run = vs.len() as u64;
            let bad: Vec<u64> = at
                .into_iter()
                .zip(&checks)
                .filter(|(_, c)| !c.verdict.ok())
                .map(|(i, _)| i)
                .collect();
            Ok((steps, run, bad))
        },
        progress,
    )?;
    let steps = parts.iter().map(|p| p.0).sum();
    let ran: u64 = parts.iter().map(|p| p.1).sum();
    let failing: Vec<u64> = parts.into_iter().flat_map(|p| p.2).collect();
    let mut out = ScenarioRun {
        n: ran,
        not_drawn: n - ran,
        steps,
        failed: failing.len() as u64,
        ..Default::default()
    };
    let worker = workers
        .first_mut()
        .context("a scenario run needs a worker")?;
    out.findings = findings(worker, &failing, seed, kernel)?;
    out.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}

/// The failing scenarios of a run: the first few of each shape minimised
/// and written; one that agrees alone written as found, said so.
fn findings(
    worker: &mut Worker,
    failing: &[u64],
    seed: u64,
    kernel: &str,
) -> Result<Vec<ScenarioFinding>> {
    let mut found = vec![];
    let mut shapes: Vec<(String, usize)> = vec![];
    for &index in failing {
        let v = scenario(seed, index);
        let Some(shape) = scenario_verdict(worker, &v)? else {
            // Failed in its batch, agrees alone: written as found, said so.
            let mut f = ScenarioFinding {
                index,
                what: "failed in the run, but agrees when run again alone: its outcome \
                       depends on what the worker ran before it (state that outlives a \
                       scenario), so it is written as found, not minimised"
                    .into(),
                vector: v,
                file: None,
            };
            f.file = Some(write(&f, seed, kernel)?);
            found.push(f);
            continue;
        };
        match shapes.iter_mut().find(|(s, _)| *s == shape) {
            Some((_, k)) if *k >= FINDINGS_PER_SHAPE => continue,
            Some((_, k)) => *k += 1,
            None => shapes.push((shape, 1)),
        }
        let small = minimise_scenario(worker, &v, std::time::Instant::now() + MINIMISE_BUDGET)?;
        let checked = check_all_with(worker, std::slice::from_ref(&small))?;
        let what = checked
            .first()
            .map(|c| describe(&small, c))
            .unwrap_or_default();
        let mut f = ScenarioFinding {
            index,
            what,
            vector: small,
            file: None,
        };
        f.file = Some(write(&f, seed, kernel)?);
        found.push(f);
    }
    Ok(found)
}

/// One line: the failing step, its function, and how it fails.
fn describe(v: &Vector, c: &Checked) -> String {
    let Some(step) = c.failing_step() else {
        return "agrees when run again".into();
    };
    let func = v.steps().nth(step - 1).map(|s| s.func().to_string());
    let how = match c.step_verdict(step) {
        Some(crate::judge::check::Verdict::Differ(d)) => d
            .iter()
            .map(|(k, a, b)| format!("{k}: C {a} / Rust {b}"))
            .collect::<Vec<_>>()
            .join("; "),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    };
    format!(
        "step {step} of {} ({}): {how}",
        1 + v.then.len(),
        func.unwrap_or_default()
    )
}

/// Writes a finding as a vector file with `then`.
fn write(f: &ScenarioFinding, seed: u64, kernel: &str) -> Result<PathBuf> {
    let dir = findings_dir();
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("creating {} for the findings", dir.display()))?;
    let name = format!("random_scenario_{seed}_{}", f.index);
    let path = dir.join(format!("{name}.toml"));
    let mut text = format!(
        "# Found by `cargo xtask conformance --scenarios ... --seed {seed}` on {kernel}:\n\
         # scenario {}, minimised. {}\n\
         # Alone: {}\n\
         # Move it into vectors/scenario.toml once understood.\n\n",
        f.index,
        f.what.lines().next().unwrap_or(""),
        super::alone(kernel, &name)
    );
    text.push_str(&scenario_toml(
        &f.vector.call,
        &f.vector.then,
        &name,
        "random finding: scenario",
    ));
    std::fs::write(&path, text)
        .with_context(|| format!("writing the finding {}", path.display()))?;
    Ok(path)
}
