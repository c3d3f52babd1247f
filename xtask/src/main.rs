//! `cargo xtask`: the project's build system (rust-analyzer style).
//! Run `cargo xtask help` for the commands.

mod bindgen;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use harness::conformance::{self, Format, KernelSel};
use harness::cworld::{self, BuildOptions};
use harness::model::types::Func;
use harness::{kernel, random, snapshot, vector};

const HELP: &str = "\
cargo xtask — hfi1-conformance's build system

USAGE:
    cargo xtask <COMMAND> [OPTIONS]

COMMANDS:
    conformance     Run every vector on upstream C and on the Rust model, and
                    check upstream against the snapshots of its series
    kernel fetch S  Fetch Debian's linux-source-S (S = 6.1, 6.12, 7.2) into the
                    cache; prints the tree's path as the last line of stdout
    snapshots diff A B
                    Print the vectors whose upstream outcome differs between
                    the snapshots of series A and B
    bindgen [--check]
                    Regenerate harness/src/ffi/bindings.rs from c-shim/shim.h
                    (--check: fail if the committed bindings are stale)
    coverage [--kernel SERIES]
                    Line and branch coverage of each upstream function in
                    scope by the committed corpus (gcov + lcov), and an HTML
                    report under target/coverage/SERIES/html
    bench           Raw upstream call cost vs the whole differential check
                    (vectors/s), for hfi1_setup_wqe and engine selection
    help            This text; `cargo xtask <COMMAND> --help` for one command

OPTIONS OF EVERY COMMAND THAT BUILDS OR RUNS C WORLDS:
    --call-timeout SECS  The longest one upstream call may run before it is a
                         `hang` finding (default 2; x4 for coverage worlds,
                         x10 under --sanitize)
    --no-sandbox         Compile and run trees without the sandbox (bubblewrap,
                         an unprivileged uid, no network, seccomp). Only for
                         trees whose code you have read: patched code runs
                         with your rights.

ENVIRONMENT:
    HFI1_CONFORMANCE_CACHE   where trees and C worlds are cached
                             (default ~/.cache/hfi1-conformance; empty = unset)
    HFI1_CALL_TIMEOUT        the call limit in seconds (--call-timeout wins)
    HFI1_BWRAP               the bubblewrap binary (default: bwrap on PATH)
    CC                       the C compiler for C worlds (default gcc)
";

const CONFORMANCE_HELP: &str = "\
cargo xtask conformance — the corpus on upstream C and on the Rust model

USAGE:
    cargo xtask conformance [--kernel SERIES | --kernel-src PATH]...
                            [--format human|ktap|junit|json] [--vectors DIR]

OPTIONS:
    --kernel SERIES    6.1, 6.12 or 7.2, fetched from Debian on first use;
                       `all` for the three. Repeatable. Default: 6.12
    --kernel-src PATH  Any kernel tree root: a git checkout, an extracted
                       tarball, a patched copy. Checked against the snapshots
                       of its series (VERSION.PATCHLEVEL of its Makefile).
    --format FORMAT    human (default), ktap (KTAP v1, for kernel CI),
                       junit (XML) or json; written to stdout, progress to stderr
    --vectors DIR      A vector corpus other than vectors/
    --sanitize         Build the C worlds with ASan and UBSan (upstream UB
                       aborts the worker: reported per vector as a crash)
    --random N         Instead of the corpus: N generated vectors per function,
                       run on both sides inside the worker; disagreements are
                       minimised and written to target/findings/*.toml
    --seed S           Seed of --random (default 1); same seed, same vectors
    --function NAME    With --random: only this function (repeatable)

    --call-timeout SECS  Per-call limit (see `cargo xtask help`)
    --no-sandbox       Run the trees unsandboxed (see `cargo xtask help`)

Every tree is compiled and run in a sandbox (bubblewrap): no network, no
files but the tree, c-shim and the toolchain, an unprivileged uid, resource
limits, and a seccomp filter on the worker. A call that never returns is a
`hang` finding, one that tries what the sandbox refuses is `denied: CALL`,
one that crashes the worker is `crashed`; the run goes on.

EXIT STATUS:
    0  C and Rust agree on every vector and every snapshot matches
    1  something differs (the report names the vectors)
    2  the run could not happen (bad arguments, no kernel, no sandbox, a
       build failure, a tree that cannot be judged: it needs a symbol the
       boundary lacks, or its world cannot be loaded); the reports of the
       kernels that did run are still written, the others as errors
";

fn main() -> ExitCode {
    cworld::worker_main_if_requested();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args = match sandbox_options(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::from(2);
        }
    };
    match dispatch(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// The options every command that builds or runs C worlds takes:
/// `--no-sandbox` and `--call-timeout SECS`. Returns the other arguments.
fn sandbox_options(args: Vec<String>) -> Result<Vec<String>> {
    let mut rest = vec![];
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let timeout = if a == "--call-timeout" {
            Some(
                it.next()
                    .context("--call-timeout needs a number of seconds")?,
            )
        } else {
            a.strip_prefix("--call-timeout=").map(str::to_owned)
        };
        if let Some(t) = timeout {
            let secs: f64 = t
                .parse()
                .ok()
                .filter(|s: &f64| *s > 0.0 && s.is_finite())
                .with_context(|| format!("--call-timeout {t}: expected seconds, e.g. 2 or 0.5"))?;
            cworld::set_call_timeout(std::time::Duration::from_secs_f64(secs));
        } else if a == "--no-sandbox" {
            harness::sandbox::allow_unsandboxed();
        } else {
            rest.push(a);
        }
    }
    Ok(rest)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn dispatch(args: &[String]) -> Result<ExitCode> {
    let rest = args.get(1..).unwrap_or(&[]);
    match args.first().map(String::as_str) {
        None | Some("help" | "--help" | "-h") => {
            print!("{HELP}");
            Ok(ExitCode::SUCCESS)
        }
        Some("conformance") => conformance_cmd(rest),
        Some("kernel") => kernel_cmd(rest),
        Some("snapshots") => snapshots_cmd(rest),
        Some("bench") => bench_cmd(rest),
        Some("coverage") => coverage_cmd(rest),
        Some("bindgen") => {
            if rest.iter().any(|a| a == "--help" || a == "-h") {
                println!("cargo xtask bindgen [--check]");
                return Ok(ExitCode::SUCCESS);
            }
            bindgen::run(&root(), rest.iter().any(|a| a == "--check"))?;
            Ok(ExitCode::SUCCESS)
        }
        Some(other) => bail!("unknown command {other:?}; see `cargo xtask help`"),
    }
}

fn kernel_cmd(args: &[String]) -> Result<ExitCode> {
    match args {
        [fetch, series] if fetch == "fetch" => {
            let t = std::time::Instant::now();
            let tree = kernel::fetch(series)?;
            eprintln!(
                "[kernel] {} ready in {:.1}s",
                tree.version,
                t.elapsed().as_secs_f64()
            );
            println!("{}", tree.root.display());
            Ok(ExitCode::SUCCESS)
        }
        _ => {
            println!(
                "cargo xtask kernel fetch SERIES\n\n\
                 Fetches Debian's linux-source-SERIES ({}) with a private apt\n\
                 configuration under the cache (the system's apt state is never touched),\n\
                 extracts what the C world needs, and prints the tree's path last.\n\
                 A second call is instant.",
                kernel::SERIES.join(", ")
            );
            Ok(if args.iter().any(|a| a == "--help" || a == "-h") {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            })
        }
    }
}

fn snapshots_cmd(args: &[String]) -> Result<ExitCode> {
    let [diff, a, b] = args else {
        println!("cargo xtask snapshots diff SERIES_A SERIES_B");
        return Ok(ExitCode::from(2));
    };
    if diff != "diff" {
        bail!("unknown snapshots command {diff:?} (expected diff)");
    }
    let rows = snapshot::diff_series(a, b)
        .with_context(|| format!("reading snapshots/{a} and snapshots/{b}"))?;
    if rows.is_empty() {
        println!("snapshots/{a} and snapshots/{b} agree on every vector");
        return Ok(ExitCode::SUCCESS);
    }
    for (fam, name, ra, rb) in &rows {
        println!("{fam}::{name}\n  {a}: {ra}\n  {b}: {rb}");
    }
    println!("{} vector(s) differ", rows.len());
    Ok(ExitCode::from(1))
}

fn conformance_cmd(args: &[String]) -> Result<ExitCode> {
    let mut kernels: Vec<KernelSel> = vec![];
    let mut format = Format::Human;
    let mut dir = vector::corpus_dir();
    let mut opts = BuildOptions::default();
    let mut random: Option<u64> = None;
    let mut seed = 1u64;
    let mut funcs: Vec<Func> = vec![];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .with_context(|| format!("{name} needs a value; see --help"))
        };
        match a.as_str() {
            "--help" | "-h" => {
                print!("{CONFORMANCE_HELP}");
                return Ok(ExitCode::SUCCESS);
            }
            "--kernel" => {
                let k = value("--kernel")?;
                if k == "all" {
                    kernels.extend(
                        kernel::SERIES
                            .iter()
                            .map(|s| KernelSel::Series((*s).into())),
                    );
                } else if kernel::SERIES.contains(&k.as_str()) {
                    kernels.push(KernelSel::Series(k));
                } else {
                    bail!(
                        "--kernel {k}: unknown series (expected {} or all; for another tree use --kernel-src PATH)",
                        kernel::SERIES.join(", ")
                    );
                }
            }
            "--kernel-src" => kernels.push(KernelSel::Path(value("--kernel-src")?.into())),
            "--format" => {
                let f = value("--format")?;
                format = Format::parse(&f).with_context(|| {
                    format!("--format {f}: expected human, ktap, junit or json")
                })?;
            }
            "--vectors" => dir = value("--vectors")?.into(),
            "--sanitize" => opts.sanitize = true,
            "--random" => {
                let n = value("--random")?;
                random = Some(
                    n.parse()
                        .with_context(|| format!("--random {n}: not a count"))?,
                );
            }
            "--seed" => {
                let v = value("--seed")?;
                seed = v
                    .parse()
                    .with_context(|| format!("--seed {v}: not a number"))?;
            }
            "--function" => {
                let v = value("--function")?;
                funcs.push(Func::from_name(&v).with_context(|| {
                    format!("--function {v}: expected one of {}", Func::names())
                })?);
            }
            other => bail!("unknown option {other:?}; see `cargo xtask conformance --help`"),
        }
    }
    if kernels.is_empty() {
        kernels.push(KernelSel::Series(kernel::DEFAULT_SERIES.into()));
    }
    if let Some(n) = random {
        if funcs.is_empty() {
            funcs = Func::ALL.to_vec();
        }
        return random_cmd(&kernels, &opts, &funcs, n, seed);
    }
    let vectors = vector::load_corpus(&dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    let started = std::time::Instant::now();
    let mut runs = vec![];
    for k in &kernels {
        let run = match conformance::run_kernel(k, &vectors, &opts, &mut |m| {
            eprintln!("[conformance] {m}")
        }) {
            Ok(run) => run,
            Err(e) => {
                // The reports of the kernels that ran are still written.
                eprintln!("error: kernel {}: {e:#}", k.label());
                runs.push(conformance::KernelRun::could_not_run(k, &e));
                continue;
            }
        };
        eprintln!(
            "[conformance] kernel {}: {} of {} vectors agree, {} snapshot mismatch(es)",
            run.label,
            run.checks.len() - run.failed(),
            run.checks.len(),
            run.snapshots.len()
        );
        runs.push(run);
    }
    print!("{}", conformance::render(format, &vectors, &runs));
    eprintln!(
        "[conformance] finished in {:.2}s",
        started.elapsed().as_secs_f64()
    );
    Ok(if runs.iter().any(|r| r.error.is_some()) {
        ExitCode::from(2)
    } else if runs.iter().all(|r| r.ok()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn random_cmd(
    kernels: &[KernelSel],
    opts: &BuildOptions,
    funcs: &[Func],
    n: u64,
    seed: u64,
) -> Result<ExitCode> {
    let mut failed = false;
    let mut table = vec![];
    for k in kernels {
        let tree = k.open()?;
        eprintln!(
            "[random] kernel {}: building the C world of {}",
            k.label(),
            tree.version
        );
        let world = cworld::build(&tree, opts)?;
        let mut bar = random::Progress::new();
        let run = random::run(&world, funcs, n, seed, &mut |f, done, total| {
            bar.update(f.name(), done, total)
        })?;
        for f in &run.findings {
            failed = true;
            println!(
                "FINDING [{}] {} vector {} (seed {}): {}\n  minimised vector: {}",
                k.label(),
                f.func,
                f.index,
                f.seed,
                f.what,
                f.file
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            );
        }
        let total: u64 = run.per_func.iter().map(|x| x.1).sum();
        eprintln!(
            "[random] kernel {}: {total} vectors in {:.2}s ({:.0} vectors/s)",
            k.label(),
            run.seconds,
            total as f64 / run.seconds.max(1e-9)
        );
        table.push((k.label(), tree.version.to_string(), run));
    }
    println!(
        "{:28} | {}",
        "function (random, seed)",
        table
            .iter()
            .map(|t| format!("{:>16}", t.1))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    for f in funcs {
        let cells: Vec<String> = table
            .iter()
            .map(|(_, _, run)| {
                let (_, n, bad, crashed) = run
                    .per_func
                    .iter()
                    .find(|x| x.0 == *f)
                    .copied()
                    .unwrap_or((*f, 0, 0, 0));
                format!(
                    "{:>16}",
                    format!(
                        "{}/{}{}",
                        n - bad - crashed,
                        n,
                        if crashed > 0 {
                            format!(" {crashed}!")
                        } else {
                            String::new()
                        }
                    )
                )
            })
            .collect();
        println!("{:28} | {}", f.name(), cells.join(" | "));
    }
    let vectors: u64 = table
        .iter()
        .flat_map(|t| t.2.per_func.iter().map(|x| x.1))
        .sum();
    let bad: u64 = table
        .iter()
        .flat_map(|t| t.2.per_func.iter().map(|x| x.2 + x.3))
        .sum();
    println!("{} passed, {} failed", vectors - bad, bad);
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

const BENCH_HELP: &str = "\
cargo xtask bench [--kernel SERIES] [--vectors N] [--iters N]

Measures, in one run on one core (the worker process does the work while
this process waits), each the best of several repetitions:
  raw      the upstream call alone: hfi1_setup_wqe (or qp_to_sdma_engine +
           qp_to_send_context) in a tight loop on a world built once
  check    the whole differential check per vector: the flat call built from
           the vector, the C world built and called, the Rust model called,
           outcomes compared (vectors generated beforehand, not timed)
and prints vectors/s and the ratio check/raw, for hfi1_setup_wqe and for the
engine-selection pair.
";

fn bench_cmd(args: &[String]) -> Result<ExitCode> {
    let mut series = kernel::DEFAULT_SERIES.to_string();
    let mut count = 200_000u64;
    let mut iters = 20_000_000u64;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .with_context(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--help" | "-h" => {
                print!("{BENCH_HELP}");
                return Ok(ExitCode::SUCCESS);
            }
            "--kernel" => series = value("--kernel")?,
            "--vectors" => count = value("--vectors")?.parse().context("--vectors: a count")?,
            "--iters" => iters = value("--iters")?.parse().context("--iters: a count")?,
            other => bail!("unknown option {other:?}; see `cargo xtask bench --help`"),
        }
    }
    let tree = kernel::fetch(&series)?;
    let world = cworld::build(&tree, &BuildOptions::default())?;
    println!(
        "machine: {} cpus, {}",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(0),
        cpu_model()
    );
    println!("kernel: {}", tree.version);
    let mut worker = cworld::Worker::new(&world)?;
    for (label, func, raw_func) in [
        ("hfi1_setup_wqe", Func::SetupWqe, Func::SetupWqe),
        (
            "engine selection (sdma + pio)",
            Func::QpToSdmaEngine,
            Func::QpToSdmaEngine,
        ),
    ] {
        // Raw: a typical vector's world built once, the call repeated, in
        // the (sandboxed) worker. Best of five: the machine is shared, the
        // minimum is the cost.
        let mut raw_ns = f64::MAX;
        let mut sum = 0;
        for _ in 0..5 {
            let (ns, s) = worker.bench_raw(raw_func, 1, iters / 5)?;
            sum = s;
            raw_ns = raw_ns.min(ns as f64 / (iters / 5) as f64);
        }
        // Warm the worker, then time the check inside it, best of three.
        worker.bench(func, 2, 1000)?;
        let (mut check_ns, mut bad) = (f64::MAX, 0);
        for _ in 0..3 {
            let (ns, n, b) = worker.bench(func, 1, count)?;
            check_ns = check_ns.min(ns as f64 / n as f64);
            bad = b;
        }
        let mut extra = String::new();
        if func == Func::QpToSdmaEngine {
            let mut other = f64::MAX;
            let mut bad2 = 0;
            for _ in 0..3 {
                let (ns2, n2, b2) = worker.bench(Func::QpToSendContext, 1, count)?;
                other = other.min(ns2 as f64 / n2 as f64);
                bad2 = b2;
            }
            let pair = check_ns + other;
            extra = format!(
                "\n  check (pair):    {:>8.1} ns/vector pair  {:>12.0} pairs/s   ratio {:.1}x  ({} disagreements)",
                pair,
                1e9 / pair,
                pair / raw_ns,
                bad + bad2
            );
        }
        println!(
            "{label}\n  raw upstream:    {raw_ns:>8.1} ns/call          {:>12.0} calls/s  (checksum {sum})\n  check:           {check_ns:>8.1} ns/vector        {:>12.0} vectors/s ratio {:.1}x  ({bad} disagreements){extra}",
            1e9 / raw_ns,
            1e9 / check_ns,
            check_ns / raw_ns
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown cpu".into())
}

fn coverage_cmd(args: &[String]) -> Result<ExitCode> {
    let mut series = kernel::DEFAULT_SERIES.to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--help" | "-h" => {
                println!(
                    "cargo xtask coverage [--kernel SERIES]

Builds the C world with gcov, runs the committed corpus (vectors/) in a
worker, and prints line and branch coverage per upstream function in scope
(qp.c, the sdma/pio selection functions, the inline helpers of hfi.h, qp.h,
tid_rdma.h and iowait.c). lcov/genhtml write target/coverage/SERIES/ (HTML
report: html/index.html).

Every line or branch arc the corpus misses must be explained in
vectors/unreached.toml (function, line text, arcs, reason), and every entry
there must still be missed: the command exits 1 on any disagreement, naming
the upstream file:line or the manifest line."
                );
                return Ok(ExitCode::SUCCESS);
            }
            "--kernel" => series = it.next().cloned().context("--kernel needs a value")?,
            other => bail!("unknown option {other:?}; see `cargo xtask coverage --help`"),
        }
    }
    let tree = kernel::fetch(&series)?;
    let vectors = vector::load_corpus(&vector::corpus_dir()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let out = harness::coverage::out_dir(&series);
    let world = harness::coverage::collect(&tree, &vectors)?;
    // The kernel world's tools, run as a script would run them.
    let sh = xshell::Shell::new()?;
    let obj = world.dir.join("obj");
    let info = out.join("coverage.info");
    let html = out.join("html");
    sh.create_dir(&out)?;
    xshell::cmd!(
        sh,
        "lcov --quiet --capture --rc lcov_branch_coverage=1 --directory {obj} --output-file {info}"
    )
    .run()
    .context("lcov failed (apt-get install lcov)")?;
    xshell::cmd!(
        sh,
        "genhtml --quiet --branch-coverage --output-directory {html} {info}"
    )
    .run()
    .context("genhtml failed (apt-get install lcov)")?;
    let cov = harness::coverage::report(&world, &sh.read_file(&info)?)?;
    print!("{}", harness::coverage::render(&tree, &cov, &html));

    // Every miss explained, every explanation still needed.
    let manifest = harness::unreached::path(&vector::corpus_dir());
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    let shown = manifest.display();
    let entries = harness::unreached::parse(&text)
        .map_err(|p| anyhow::anyhow!("{shown}:{}: {}", p.line, p.msg))?;
    let mut sources = std::collections::BTreeMap::new();
    for c in &cov {
        if !sources.contains_key(&c.file) {
            let path = tree.path(&c.file);
            let src = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            sources.insert(c.file.clone(), src);
        }
    }
    let problems =
        harness::unreached::check(&cov, &entries, |f| sources.get(f).map(String::as_str));
    if problems.is_empty() {
        println!(
            "every miss above is explained by {shown} ({} entries)",
            entries.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    for p in &problems {
        match p.line {
            0 => eprintln!("error: {}", p.msg),
            l => eprintln!("{shown}:{l}: {}", p.msg),
        }
    }
    eprintln!(
        "{} disagreement(s) between the measurement and {shown}",
        problems.len()
    );
    Ok(ExitCode::from(1))
}
