//! The conformance suite: every vector of `vectors/` is one trial per
//! kernel, run on upstream C and on the Rust model; every vector file is
//! one snapshot trial per kernel series.
//!
//! Kernels: `HFI1_KERNELS=6.1,6.12` (pinned series or `SERIES=VERSION`, or
//! `all` for every pinned series; default 6.12) and/or
//! `HFI1_KERNEL_SRC=PATH[:PATH…]` for trees given by path. With more than
//! one kernel, trial names are prefixed with the kernel (`6.12::…`).
//!
//! `cargo test -- setup_wqe::` filters, `cargo nextest run` partitions.
//! A process asked for one trial (`--exact NAME`, as nextest runs each
//! trial) runs only that trial's vectors: its family for a snapshot trial,
//! one vector otherwise; a process running many runs the corpus in one
//! batch per kernel. The C world is built once and cached on disk either
//! way.

use std::sync::{Arc, OnceLock};

use harness::corpus::{self, Vector};
use harness::cworld::{self, BuildOptions};
use harness::judge::check::{self, Checked, Verdict};
use harness::judge::snapshot;
use harness::kernel::{self, KernelTree};
use libtest_mimic::{Arguments, Failed, Trial};

/// A kernel to run, named as the user named it.
#[derive(Clone)]
enum Kernel {
    Series(String),
    Path(String),
}

impl Kernel {
    fn label(&self) -> String {
        match self {
            Kernel::Series(s) => s.clone(),
            Kernel::Path(p) => p.clone(),
        }
    }

    fn open(&self) -> anyhow::Result<KernelTree> {
        match self {
            Kernel::Series(s) => kernel::fetch(s),
            Kernel::Path(p) => KernelTree::open(std::path::Path::new(p)),
        }
    }
}

fn kernels() -> Vec<Kernel> {
    let mut out = vec![];
    match std::env::var("HFI1_KERNELS") {
        Ok(k) if k.trim() == "all" => out.extend(kernel::series().into_iter().map(Kernel::Series)),
        Ok(k) if !k.trim().is_empty() => out.extend(
            k.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| Kernel::Series(s.into())),
        ),
        _ => {}
    }
    if let Ok(p) = std::env::var("HFI1_KERNEL_SRC") {
        out.extend(
            p.split(':')
                .filter(|s| !s.is_empty())
                .map(|s| Kernel::Path(s.into())),
        );
    }
    if out.is_empty() {
        out.push(Kernel::Series(kernel::DEFAULT_SERIES.into()));
    }
    out
}

/// What one kernel gave: its series and the checked corpus.
type Ran = Result<(String, Vec<Checked>), String>;

/// Runs the vectors `pick` selects (all when `None`); the others are
/// left unchecked, as agreeing (no trial of this process reads them).
fn run_kernel(k: &Kernel, vectors: &[Vector], pick: Option<&dyn Fn(&Vector) -> bool>) -> Ran {
    let tree = k.open().map_err(|e| format!("{e:#}"))?;
    let world = cworld::build(&tree, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
    let Some(pick) = pick else {
        let checks = check::check_all(&world, vectors).map_err(|e| format!("{e:#}"))?;
        return Ok((tree.version.series(), checks));
    };
    let chosen: Vec<Vector> = vectors.iter().filter(|v| pick(v)).cloned().collect();
    let mut done = check::check_all(&world, &chosen)
        .map_err(|e| format!("{e:#}"))?
        .into_iter();
    let checks = vectors
        .iter()
        .map(|v| {
            if pick(v) {
                done.next().ok_or_else(|| "a check went missing".to_owned())
            } else {
                Ok(check::Checked {
                    c: None,
                    rust: Err(harness::model::Undefined("not run in this process".into())),
                    verdict: Verdict::Agree,
                    then: vec![],
                    step: 1,
                })
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((tree.version.series(), checks))
}

/// A kernel's checked corpus, run the first time a trial asks for it.
type Get = Arc<dyn Fn() -> Result<(String, Vec<Checked>), Failed> + Send + Sync>;

/// How trials of kernel `k` get its checked corpus: the whole corpus, or
/// only what the one trial asked for (`only`, named with `prefix`) needs.
fn kernel_state(
    k: &Kernel,
    vectors: &Arc<Vec<Vector>>,
    only: &Option<String>,
    prefix: &str,
) -> Get {
    let state: Arc<OnceLock<Ran>> = Arc::new(OnceLock::new());
    let (k, vectors) = (k.clone(), vectors.clone());
    let (only, prefix) = (only.clone(), prefix.to_owned());
    Arc::new(move || -> Result<(String, Vec<Checked>), Failed> {
        state
            .get_or_init(|| match &only {
                None => run_kernel(&k, &vectors, None),
                Some(name) => {
                    let name = name.strip_prefix(&prefix).unwrap_or(name);
                    let fam = name.strip_prefix("snapshot::");
                    let pick = |v: &Vector| match fam {
                        Some(f) => v.family == f,
                        None => v.id() == name,
                    };
                    run_kernel(&k, &vectors, Some(&pick))
                }
            })
            .clone()
            .map_err(|e| Failed::from(format!("kernel {}: {e}", k.label())))
    })
}

/// The trial of vector `i`: C and the model agree on it.
fn vector_trial(get: &Get, vectors: &Arc<Vec<Vector>>, prefix: &str, i: usize) -> Trial {
    let (get, vectors) = (get.clone(), vectors.clone());
    Trial::test(format!("{prefix}{}", vectors[i].id()), move || {
        let (_, checks) = get()?;
        let c = &checks[i];
        // A vector of a function the tree lacks passes: nothing ran (its
        // snapshot row says so).
        if c.verdict.ok() {
            Ok(())
        } else {
            Err(check::explain(&vectors[i], c).into())
        }
    })
}

/// The snapshot trial of family `fam`: upstream's outcomes are the ones
/// its snapshot holds.
fn snapshot_trial(get: &Get, vectors: &Arc<Vec<Vector>>, prefix: &str, fam: String) -> Trial {
    let (get, vectors) = (get.clone(), vectors.clone());
    Trial::test(format!("{prefix}snapshot::{fam}"), move || {
        let (series, checks) = get()?;
        let rows: Vec<(&Vector, &Checked)> = vectors
            .iter()
            .zip(&checks)
            .filter(|(v, _)| v.family == fam)
            .collect();
        let table = snapshot::render(&rows);
        // Judged by the one comparison `cargo xtask conformance`
        // uses; insta only writes the pending snapshot for review.
        let Some(m) = snapshot::compare(&series, &fam, &table) else {
            return Ok(());
        };
        let dir = snapshot::snapshots_dir().join(&series);
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(dir);
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(false);
        let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            settings.bind(|| insta::assert_snapshot!(fam.as_str(), table, "table"));
        }));
        let rows: String = m
            .rows
            .iter()
            .map(|(n, a, b)| format!("  {n}\n    snapshot: {a}\n    now:      {b}\n"))
            .collect();
        // INSTA_UPDATE=always wrote it: accepted on purpose.
        if res.is_ok() {
            return Ok(());
        }
        Err({
            Failed::from(format!(
                "{rows}upstream outcomes of {fam} on {series} differ from snapshots/{series}/{fam}.snap; \
                 if the change is intended, `cargo insta review` shows the pending \
                 snapshot and accepts it (cargo install cargo-insta; or \
                 INSTA_UPDATE=always cargo test, then git diff); say why in the commit"
            ))
        })
    })
}

/// Starts, each on a thread of its own, every kernel (its trials'
/// `prefix` and once-only getter) some selected trial of which runs: the
/// trees are fetched (a download, then one core's xz), built and checked
/// side by side from the start instead of one after another as the trials
/// reach them. A selected trial waits for the same work, so the process
/// never exits in the middle of it; a warm-up that fails or panics leaves
/// the work to that trial, which reports it.
fn warm_selected(args: &Arguments, trials: &[Trial], warm: Vec<(String, Get)>) {
    let selected = |name: &str| {
        let hit = |f: &str| {
            if args.exact {
                name == f
            } else {
                name.contains(f)
            }
        };
        // --ignored and --bench run none of these trials.
        !args.list
            && !args.ignored
            && !args.bench
            && args.filter.as_deref().is_none_or(hit)
            && !args.skip.iter().any(|s| hit(s))
    };
    for (prefix, get) in warm {
        if trials
            .iter()
            .any(|t| t.name().starts_with(&prefix) && selected(t.name()))
        {
            std::thread::spawn(move || drop(get()));
        }
    }
}

fn main() {
    cworld::worker_main_if_requested();
    let args = Arguments::from_args();
    // One trial asked for by its exact name (nextest's way): run only it.
    let only: Option<String> = args.filter.clone().filter(|_| args.exact);
    let kernels = kernels();
    let many = kernels.len() > 1;

    let vectors = match corpus::load_corpus(&corpus::corpus_dir()) {
        Ok(v) => Arc::new(v),
        Err(e) => {
            let msg = e.to_string();
            let t = Trial::test("corpus::load", move || Err(Failed::from(msg)));
            libtest_mimic::run(&args, vec![t]).exit();
        }
    };

    let mut trials = vec![];
    let mut warm = vec![];
    for k in kernels {
        let prefix = if many {
            format!("{}::", k.label())
        } else {
            String::new()
        };
        let get = kernel_state(&k, &vectors, &only, &prefix);
        warm.push((prefix.clone(), get.clone()));
        for i in 0..vectors.len() {
            trials.push(vector_trial(&get, &vectors, &prefix, i));
        }
        let mut families: Vec<String> = vectors.iter().map(|v| v.family.clone()).collect();
        families.dedup();
        for fam in families {
            trials.push(snapshot_trial(&get, &vectors, &prefix, fam));
        }
    }
    warm_selected(&args, &trials, warm);
    libtest_mimic::run(&args, trials).exit();
}
