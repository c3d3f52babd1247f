//! `cargo xtask`: the project's build system (rust-analyzer style).
//! Run `cargo xtask help` for the commands.

mod bindgen;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use harness::conformance::{self, Format, KernelSel};
use harness::cworld::{self, BuildOptions};
use harness::{kernel, snapshot, vector};

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
    help            This text; `cargo xtask <COMMAND> --help` for one command

ENVIRONMENT:
    HFI1_CONFORMANCE_CACHE   where trees and C worlds are cached
                             (default ~/.cache/hfi1-conformance)
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
    --sanitize         Build the C worlds with ASan and UBSan

EXIT STATUS:
    0  C and Rust agree on every vector and every snapshot matches
    1  something differs (the report names the vectors)
    2  the run could not happen (bad arguments, no kernel, build failure)
";

fn main() -> ExitCode {
    cworld::worker_main_if_requested();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
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
            other => bail!("unknown option {other:?}; see `cargo xtask conformance --help`"),
        }
    }
    if kernels.is_empty() {
        kernels.push(KernelSel::Series(kernel::DEFAULT_SERIES.into()));
    }
    let vectors = vector::load_corpus(&dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    let started = std::time::Instant::now();
    let mut runs = vec![];
    for k in &kernels {
        let run =
            conformance::run_kernel(k, &vectors, &opts, &mut |m| eprintln!("[conformance] {m}"))?;
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
    Ok(if runs.iter().all(|r| r.ok()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
