//! The commands: one module each, every one built from the layers below
//! (`judge`, `report`, `cworld`, `generate`, `corpus`, `kernel`). A
//! command never imports another command; what two of them share is here
//! ([`each_kernel`]; [`run_kernel`], the corpus on one kernel against its
//! series' snapshots) or a layer below.

pub mod bench;
pub mod conformance;
pub mod coverage;
pub mod diff;
pub mod gate;
pub mod kernel;
pub mod mutants;
pub mod random;
pub mod scope;
pub mod snapshots;
pub mod sweep;

use anyhow::Result;

use crate::corpus::Vector;
use crate::cworld::{self, BuildOptions};
use crate::judge::check::{self, Checked};
use crate::judge::snapshot::{self, SnapshotMismatch};
use crate::kernel::select::KernelArg;
use crate::kernel::{git, KernelTree};
use crate::report::{self, BuildStatus};

/// What reports say of `tree` (its `role` in a suite, named `kernel`) and
/// of its world built with `opts`: the tree's Debian package, git commit
/// and digest, the world's compiler, flags and key, and how its build
/// ended (`status`, and why when it did not build).
pub fn tree_record(
    role: &str,
    kernel: &str,
    tree: &KernelTree,
    opts: &BuildOptions,
    status: BuildStatus,
    error: Option<String>,
) -> report::Tree {
    let git = git::checkout(&tree.root);
    report::Tree {
        role: role.to_owned(),
        kernel: kernel.to_owned(),
        version: tree.version.to_string(),
        package: tree.package.clone(),
        git_commit: git.as_ref().map(|g| g.commit.clone()),
        git_url: git.and_then(|g| g.url),
        digest: cworld::build::tree_digest(tree).unwrap_or_default(),
        patches: vec![],
        valid: Some(true),
        build: Some(report::Build {
            recipe: cworld::build::recipe(tree, opts),
            status,
            error,
        }),
    }
}

/// Workers a command runs at once: one per core (`HFI1_JOBS` sets another
/// count).
pub fn jobs() -> usize {
    std::env::var("HFI1_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .filter(|j| *j > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `run` on each kernel in turn, in order. A kernel it fails on is said on
/// stderr (`error: kernel LABEL: …`) and kept as `failed` makes it, so that
/// the report of the kernels that ran is still written, with this one as
/// an error.
pub fn each_kernel<T>(
    kernels: &[KernelArg],
    mut run: impl FnMut(&KernelArg) -> anyhow::Result<T>,
    failed: impl Fn(&KernelArg, &anyhow::Error) -> T,
) -> Vec<T> {
    kernels
        .iter()
        .map(|k| run(k).unwrap_or_else(|e| said(k, &e, &failed)))
        .collect()
}

/// [`each_kernel`] on up to `jobs` kernels at once ([`jobs`] is the
/// usual count), the results in `kernels`' order. `open` runs first on
/// each kernel in turn (fetching a series takes the package manager's
/// lock, which is not shared); `run` then runs on the opened ones from as
/// many threads. A run that panics is that kernel's error (a harness bug,
/// said with the panic's message); the other kernels still run.
pub fn each_kernel_at_once<O: Send, T: Send>(
    kernels: &[KernelArg],
    jobs: usize,
    mut open: impl FnMut(&KernelArg) -> Result<O>,
    run: impl Fn(&KernelArg, O) -> Result<T> + Sync,
    failed: impl Fn(&KernelArg, &anyhow::Error) -> T + Sync,
) -> Vec<T> {
    use std::sync::Mutex;
    let opened: Vec<Mutex<Option<Result<O>>>> =
        kernels.iter().map(|k| Mutex::new(Some(open(k)))).collect();
    let out: Vec<Mutex<Option<T>>> = kernels.iter().map(|_| Mutex::new(None)).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || loop {
        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(k) = kernels.get(i) else { return };
        let got = match lock(&opened[i]).take() {
            Some(Ok(o)) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(k, o)))
                .unwrap_or_else(|p| {
                    let why = p
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_owned())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    Err(anyhow::anyhow!("the harness panicked (a bug): {why}"))
                }),
            Some(Err(e)) => Err(e),
            None => Err(anyhow::anyhow!(
                "the kernel was taken twice (a harness bug)"
            )),
        };
        *lock(&out[i]) = Some(got.unwrap_or_else(|e| said(k, &e, &failed)));
    };
    std::thread::scope(|s| {
        for _ in 1..jobs.min(kernels.len()) {
            s.spawn(work);
        }
        work();
    });
    kernels
        .iter()
        .zip(out)
        .map(|(k, t)| {
            let t = t
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            t.unwrap_or_else(|| {
                let e = anyhow::anyhow!("the kernel gave no result (a harness bug)");
                said(k, &e, &failed)
            })
        })
        .collect()
}

/// What `failed` keeps of kernel `k`'s error `e`, said on stderr first.
fn said<T>(
    k: &KernelArg,
    e: &anyhow::Error,
    failed: impl Fn(&KernelArg, &anyhow::Error) -> T,
) -> T {
    eprintln!("error: kernel {}: {e:#}", k.label());
    failed(k, e)
}

/// A mutex's value, also when a thread holding it panicked (what it
/// guards here is whole between statements).
pub fn lock<V>(m: &std::sync::Mutex<V>) -> std::sync::MutexGuard<'_, V> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

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
    /// The tree and its world, as reports record them (empty when the
    /// kernel could not be run).
    pub trees: Vec<report::Tree>,
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
            trees: vec![],
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
    run_tree(sel, &tree, vectors, opts, started.elapsed(), progress)
}

/// [`run_kernel`] of `tree`, the kernel `sel` opened in `opening`.
pub fn run_tree(
    sel: &KernelArg,
    tree: &KernelTree,
    vectors: &[Vector],
    opts: &BuildOptions,
    opening: std::time::Duration,
    progress: &mut dyn FnMut(&str),
) -> Result<KernelRun> {
    let started = std::time::Instant::now();
    progress(&format!(
        "kernel {}: building the C world of {}",
        sel.label(),
        tree.version
    ));
    let world = cworld::build(tree, opts)?;
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
        seconds: (opening + started.elapsed()).as_secs_f64(),
        trees: vec![tree_record(
            "tree",
            &sel.label(),
            tree,
            opts,
            BuildStatus::Built,
            None,
        )],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kernels run at once come back in the order named, each with what
    /// its own run gave; one that could not be opened, failed or panicked
    /// is kept as `failed` makes it, and the others still run. Every tree
    /// is opened before any run, and two runs are under way together.
    #[test]
    fn kernels_run_at_once_keep_their_order_and_their_failures() {
        let kernels: Vec<KernelArg> = ["a", "b", "c", "d", "e", "f"]
            .iter()
            .map(|s| KernelArg::Series((*s).into()))
            .collect();
        let events = std::sync::Mutex::new(vec![]);
        let (to_c, from_a) = std::sync::mpsc::channel::<()>();
        let (to_a, from_c) = std::sync::mpsc::channel::<()>();
        let (to_c, to_a) = (std::sync::Mutex::new(to_c), std::sync::Mutex::new(to_a));
        let (from_a, from_c) = (std::sync::Mutex::new(from_a), std::sync::Mutex::new(from_c));
        // "a" and "c" each wait for the other's start: only runs under way
        // together both finish.
        let meet = |tx: &std::sync::Mutex<std::sync::mpsc::Sender<()>>,
                    rx: &std::sync::Mutex<std::sync::mpsc::Receiver<()>>| {
            let _ = lock(tx).send(());
            lock(rx)
                .recv_timeout(std::time::Duration::from_secs(10))
                .map_err(|_| anyhow::anyhow!("ran alone"))
        };
        let got = each_kernel_at_once(
            &kernels,
            2,
            |k| {
                lock(&events).push(format!("open {}", k.label()));
                match k.label().as_str() {
                    "b" => anyhow::bail!("no such series"),
                    l => Ok(l.repeat(2)),
                }
            },
            |k, o| {
                lock(&events).push(format!("run {}", k.label()));
                match k.label().as_str() {
                    "a" => meet(&to_c, &from_c)?,
                    "c" => meet(&to_a, &from_a)?,
                    "d" => anyhow::bail!("did not build"),
                    "e" => panic!("a harness bug"),
                    _ => {}
                }
                Ok(format!("{} ran {o}", k.label()))
            },
            |k, e| format!("{} failed: {e}", k.label()),
        );
        assert_eq!(
            got,
            [
                "a ran aa",
                "b failed: no such series",
                "c ran cc",
                "d failed: did not build",
                "e failed: the harness panicked (a bug): a harness bug",
                "f ran ff"
            ]
        );
        let events = lock(&events);
        let opens: Vec<&String> = events.iter().take(6).collect();
        assert!(
            opens.iter().all(|e| e.starts_with("open ")),
            "a run began before every tree was opened: {events:?}"
        );
    }
}
