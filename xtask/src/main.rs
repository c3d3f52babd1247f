//! `cargo xtask`: the project's build system (rust-analyzer style).
//! Run `cargo xtask --help` for the commands.

mod bindgen;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use harness::cmd::conformance;
use harness::cmd::random;
use harness::cworld::{self, BuildOptions};
use harness::judge::snapshot;
use harness::kernel::select::{suite_names, KernelSel};
use harness::model::types::Func;
use harness::report::{self, Format};
use harness::{corpus, kernel};

/// hfi1-conformance's build system: upstream hfi1 qp.c in userspace,
/// checked vector by vector against the Rust model.
#[derive(Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    arg_required_else_help = true,
    after_help = "EXAMPLES:
    cargo xtask conformance                        # the corpus on 6.12 (fetched on first use)
    cargo xtask conformance --kernel all --format ktap > out.ktap
    cargo xtask conformance --kernel-src ~/linux   # any tree: a checkout, a patched copy
    cargo xtask conformance --random 100000 --seed 7 --function hfi1_setup_wqe
    cargo xtask kernel fetch 7.2
    cargo xtask snapshots diff 6.1 7.2

ENVIRONMENT:
    HFI1_CONFORMANCE_CACHE   where trees and C worlds are cached
                             (default ~/.cache/hfi1-conformance; empty = unset)
    HFI1_CALL_TIMEOUT        the call limit in seconds (--call-timeout wins)
    HFI1_BWRAP               the bubblewrap binary (default: bwrap on PATH)
    CC                       the C compiler for C worlds (default gcc)"
)]
struct Cli {
    #[command(flatten)]
    sandbox: SandboxArgs,
    #[command(subcommand)]
    cmd: Cmd,
}

/// Options of every command that builds or runs C worlds.
#[derive(Args)]
struct SandboxArgs {
    /// The longest one upstream call may run before it is a `hang` finding,
    /// in seconds (default 2; x4 in coverage worlds, x10 under --sanitize)
    #[arg(long, global = true, value_name = "SECS", value_parser = seconds)]
    call_timeout: Option<f64>,
    /// Compile and run trees without the sandbox (bubblewrap, an
    /// unprivileged uid, no network, seccomp). Only for trees whose code
    /// you have read: their code runs with your rights
    #[arg(long, global = true)]
    no_sandbox: bool,
}

fn seconds(s: &str) -> std::result::Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|v| *v > 0.0 && v.is_finite())
        .ok_or_else(|| format!("{s:?} is not a number of seconds (e.g. 2 or 0.5)"))
}

#[derive(Subcommand)]
enum Cmd {
    /// Run every vector on upstream C and on the Rust model, and check
    /// upstream against the snapshots of its series
    #[command(after_help = CONFORMANCE_AFTER)]
    Conformance(ConformanceArgs),
    /// Kernel trees from Debian's linux-source-* packages
    Kernel {
        #[command(subcommand)]
        cmd: KernelCmd,
    },
    /// The committed snapshots of upstream behaviour
    Snapshots {
        #[command(subcommand)]
        cmd: SnapshotsCmd,
    },
    /// Regenerate harness/src/cworld/ffi/bindings.rs from c-shim/shim.h (needs
    /// libclang)
    Bindgen {
        /// Fail if the committed bindings are stale instead of writing them
        #[arg(long)]
        check: bool,
    },
    /// Write harness/report.schema.json, the JSON schema of the reports
    Schema {
        /// Fail if the committed schema is stale instead of writing it
        #[arg(long)]
        check: bool,
    },
    /// Judge patches: each applied to the tree with the patches before it,
    /// C against C; a verdict per patch, grouped minimal reproducers
    #[command(after_help = GATE_AFTER)]
    Gate(GateArgs),
    /// Compare two trees, C against C (no model): the corpus and N
    /// generated vectors per function on both; every difference grouped by
    /// function and shape, each group with a minimal reproducer
    #[command(after_help = DIFF_AFTER)]
    Diff(DiffArgs),
    /// Every published Debian version of each series, oldest to newest,
    /// each compared with the one before it (C against C: the corpus and
    /// generated vectors); prints per function the versions where upstream
    /// behaviour changed
    #[command(after_help = SWEEP_AFTER)]
    Sweep(SweepArgs),
    /// Single-point mutants of the upstream functions in scope (qp.c), each
    /// judged base world against mutant world on the corpus (and generated
    /// vectors): the mutation score per function and every survivor with
    /// file:line and the mutation, checked against vectors/mutants.toml
    #[command(after_help = MUTANTS_AFTER)]
    Mutants(MutantsArgs),
    /// Line and branch coverage of each upstream function in scope by the
    /// committed corpus (gcov + lcov), HTML under target/coverage/SERIES/html
    #[command(after_help = COVERAGE_AFTER)]
    Coverage {
        /// The series to measure
        #[arg(long, default_value = kernel::DEFAULT_SERIES, value_parser = series)]
        kernel: String,
    },
    /// Raw upstream call cost vs the whole differential check (vectors/s)
    #[command(after_help = BENCH_AFTER)]
    Bench {
        #[arg(long, default_value = kernel::DEFAULT_SERIES, value_parser = series)]
        kernel: String,
        /// Generated vectors per check repetition
        #[arg(long, default_value_t = 200_000)]
        vectors: u64,
        /// Raw upstream calls in all
        #[arg(long, default_value_t = 20_000_000)]
        iters: u64,
    },
}

#[derive(Subcommand)]
enum KernelCmd {
    /// Fetch Debian's linux-source-SERIES with a private apt configuration
    /// under the cache (the system's apt state is never touched), extract
    /// what the C world needs, and print the tree's path as the last line of
    /// stdout. A second call is instant.
    #[command(
        after_help = "EXAMPLES:\n    cd \"$(cargo xtask kernel fetch 6.12 | tail -1)\"\n    \
                            cargo xtask kernel fetch 6.1=6.1.180-1~deb11u1"
    )]
    Fetch {
        /// A pinned series (snapshots/kernels.lock), or SERIES=VERSION for
        /// an exact Debian version (cached apart from the pin)
        #[arg(value_parser = series, value_name = "SERIES[=VERSION]")]
        series: String,
    },
    /// List every version of linux-source-* Debian publishes (all its
    /// suites, bullseye to experimental), marking the pinned and cached ones
    #[command(
        after_help = "EXAMPLES:\n    cargo xtask kernel list\n    cargo xtask kernel list 6.1 6.12"
    )]
    List {
        /// Only these series (default: every series Debian has)
        series: Vec<String>,
    },
    /// Pin a series to the newest version Debian publishes (or pin a new
    /// series): fetch it, write snapshots/kernels.lock, and print the
    /// corpus's differences from the series' snapshots (the upgrade report).
    /// Review and commit the lock file with the snapshots
    #[command(after_help = "EXAMPLE:\n    cargo xtask kernel update 6.12 && cargo insta review")]
    Update {
        /// The series (6.12, or one not pinned yet such as 5.10)
        series: String,
    },
}

#[derive(Subcommand)]
enum SnapshotsCmd {
    /// Print the vectors whose upstream outcome differs between two
    /// series' snapshots, or between a series' snapshots and a tree (a
    /// path or SERIES=VERSION, whose outcomes are computed) (exit 1 when
    /// any does)
    #[command(after_help = "EXAMPLES:\n    cargo xtask snapshots diff 6.1 7.2\n    \
                            cargo xtask snapshots diff 6.12 ~/linux\n    \
                            cargo xtask snapshots diff 6.1 6.1=6.1.176-1")]
    Diff {
        /// A series, SERIES=VERSION, or the path of a kernel tree
        a: String,
        /// A series, SERIES=VERSION, or the path of a kernel tree
        b: String,
    },
}

/// A kernel name: a pinned series (`6.12`) or an exact Debian version
/// of a series (`6.1=6.1.180-1~deb11u1`).
fn series(s: &str) -> std::result::Result<String, String> {
    let spec = kernel::KernelSpec::parse(s).map_err(|e| format!("{e:#}"))?;
    if spec.version.is_some() || kernel::series().contains(&spec.series) {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "series {} is not pinned (pinned: {}; name an exact version as {}=VERSION, \
             see `cargo xtask kernel list {}`; for another tree use --kernel-src PATH)",
            spec.series,
            kernel::series().join(", "),
            spec.series,
            spec.series
        ))
    }
}

fn series_or_all(s: &str) -> std::result::Result<String, String> {
    if s == "all" {
        Ok(s.to_owned())
    } else {
        series(s).map_err(|e| e.replace("(expected ", "(expected all, "))
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    /// Failures explained, a function x kernel table, totals
    Human,
    /// KTAP version 1, for kernel CI (kunit.py parse reads it)
    Ktap,
    /// JUnit XML
    Junit,
    /// JSON, schema harness/report.schema.json
    Json,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Human => Format::Human,
            FormatArg::Ktap => Format::Ktap,
            FormatArg::Junit => Format::Junit,
            FormatArg::Json => Format::Json,
        }
    }
}

#[derive(Args)]
struct ConformanceArgs {
    /// A pinned series (snapshots/kernels.lock) fetched from Debian on first
    /// use, SERIES=VERSION for an exact Debian version, or `all` (every
    /// pinned series). Repeatable. Default: 6.12
    #[arg(long, value_name = "SERIES[=VERSION]|all", value_parser = series_or_all)]
    kernel: Vec<String>,
    /// Any kernel tree root: a git checkout, an extracted tarball, a patched
    /// copy; checked against the snapshots of its series. Repeatable
    #[arg(long, value_name = "PATH")]
    kernel_src: Vec<PathBuf>,
    #[command(flatten)]
    overlay: OverlayArgs,
    /// The report on stdout (progress goes to stderr)
    #[arg(long, value_enum, default_value = "human")]
    format: FormatArg,
    /// A vector corpus other than vectors/
    #[arg(long, value_name = "DIR")]
    vectors: Option<PathBuf>,
    /// Build the C worlds with ASan and UBSan (upstream UB is a crash
    /// finding for the vector, with the sanitizer's report)
    #[arg(long)]
    sanitize: bool,
    /// Instead of the corpus: N generated vectors per function, run on both
    /// sides in the worker; findings are minimised and written to
    /// target/findings/*.toml
    #[arg(long, value_name = "N")]
    random: Option<u64>,
    /// Seed of --random; same seed, same vectors
    #[arg(long, default_value_t = 1, requires = "random")]
    seed: u64,
    /// With --random: only this function (repeatable)
    #[arg(long, value_name = "NAME", requires = "random", value_parser = function)]
    function: Vec<String>,
}

#[derive(Args)]
struct GateArgs {
    /// `git format-patch` files, an mbox holding a series, plain diffs, or
    /// `-` for stdin; applied in order
    #[arg(required = true, value_name = "PATCH")]
    patches: Vec<String>,
    /// The series to apply to (repeatable; default 6.12). `all`: every
    /// series the patch applies to (the exit code and the patchwork line
    /// leave out the series where it does not; the report lists them)
    #[arg(long, value_name = "SERIES|all", value_parser = series_or_all)]
    base: Vec<String>,
    /// A tree to apply to instead (repeatable)
    #[arg(long, value_name = "PATH")]
    kernel_src: Vec<PathBuf>,
    /// Generated vectors per function, besides the corpus (eight share a
    /// world: the default sees 10,000 worlds)
    #[arg(long, default_value_t = 80_000, value_name = "N")]
    random: u64,
    /// Seed of the generated vectors
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A function every patch means to change (as a `Conformance-Changes:`
    /// trailer says for one patch); repeatable
    #[arg(long, value_name = "FUNCTION", value_parser = function)]
    expect_change: Vec<String>,
    /// The report on stdout; the patchwork line goes to stderr
    #[arg(long, value_enum, default_value = "human")]
    format: FormatArg,
    /// Print the seconds of each phase (apply, build, compare) per patch
    /// on stderr
    #[arg(long)]
    timings: bool,
}

const GATE_AFTER: &str = "\
VERDICTS (per patch and base; the series exits with the worst):
    preserves            0  no call behaves differently
    changes-as-declared  0  only functions the patch declares changed
                            (Conformance-Changes: FUNCTION ... trailer)
    changes              1  calls behave differently (grouped, reproducers)
    breaks-build         1  the patched upstream code does not compile
    does-not-apply       2  the patch does not apply to the tree
    cannot-judge         2  the harness lacks something (a header, a symbol)

EXAMPLES:
    cargo xtask gate 0001-IB-hfi1-fix.patch
    b4 am -o - MSGID | cargo xtask gate --base all --format ktap -
    cargo xtask gate --expect-change hfi1_setup_wqe fix.diff";

#[derive(Args)]
struct DiffArgs {
    /// A series, SERIES=VERSION, the path of a kernel tree, or of a vendor
    /// tree (no top Makefile: composed on --on)
    a: String,
    /// Like A
    b: String,
    #[command(flatten)]
    overlay: OverlayArgs,
    /// Generated vectors per function, besides the corpus (eight share a
    /// world: the default sees 10,000 worlds)
    #[arg(long, default_value_t = 80_000, value_name = "N")]
    random: u64,
    /// Seed of the generated vectors
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only this function's generated vectors (repeatable)
    #[arg(long, value_name = "NAME", value_parser = function)]
    function: Vec<String>,
    /// The report on stdout (progress goes to stderr)
    #[arg(long, value_enum, default_value = "human")]
    format: FormatArg,
}

/// A vendor driver tree (opa-hfi1 or shaped like it) as an overlay on a
/// base kernel.
#[derive(Args)]
struct OverlayArgs {
    /// A vendor hfi1 tree without a kernel around it (its own
    /// drivers/infiniband/hw/hfi1, header overlays, compat headers),
    /// composed on the --on kernel. Repeatable
    #[arg(long, value_name = "DIR")]
    overlay: Vec<PathBuf>,
    /// The base kernel of --overlay (and of an overlay-shaped tree given to
    /// `diff`): a series, SERIES=VERSION or a path. Default: 6.12
    #[arg(long, value_name = "KERNEL", default_value = kernel::DEFAULT_SERIES)]
    on: String,
    /// The overlay's compat profile (TOML: include, force_include, defines,
    /// [have]; see README "Vendor trees"). Default: the overlay's
    /// include/ and include/uapi/ first, nothing forced or defined
    #[arg(long, value_name = "FILE")]
    profile: Option<PathBuf>,
}

impl OverlayArgs {
    fn sel(&self, dir: &std::path::Path) -> Result<KernelSel> {
        Ok(KernelSel::Overlay {
            dir: dir.to_owned(),
            on: Box::new(tree_arg(&self.on)?),
            profile: self.profile.clone(),
        })
    }
}

#[derive(Args)]
struct MutantsArgs {
    /// The kernel whose qp.c is mutated (a series or SERIES=VERSION)
    #[arg(long, default_value = kernel::DEFAULT_SERIES, value_parser = series)]
    kernel: String,
    /// A tree given by path instead
    #[arg(long, value_name = "PATH")]
    kernel_src: Option<PathBuf>,
    /// Only this function's mutants (repeatable; C names)
    #[arg(long, value_name = "NAME", value_parser = function)]
    function: Vec<String>,
    /// Judge only N mutants, picked with --seed (0: all)
    #[arg(long, default_value_t = 0, value_name = "N")]
    sample: usize,
    /// Seed of --sample and of the generated vectors
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Generated vectors per function per mutant, besides the corpus
    #[arg(long, default_value_t = 0, value_name = "N")]
    random: u64,
    /// Only list the mutants (file:line and id), judging none
    #[arg(long)]
    list: bool,
    /// Build base and mutant worlds with ASan and UBSan (slower; objects
    /// past a world's declared counts are poisoned)
    #[arg(long)]
    sanitize: bool,
    /// The report on stdout (progress goes to stderr)
    #[arg(long, value_enum, default_value = "human")]
    format: FormatArg,
}

const MUTANTS_AFTER: &str = "\
Each mutant is its own world (about a second to build here), so a full run
of qp.c takes minutes (4 on 6.12 here); --sample N judges a reproducible
sample. Survivors that no vector can kill are accepted by id, with their
reason, in vectors/mutants.toml; the run is checked against that list both
ways.

EXAMPLES:
    cargo xtask mutants --sample 20 --seed 1
    cargo xtask mutants --function hfi1_setup_wqe --random 2000
    cargo xtask mutants --format json > mutants.json

EXIT STATUS:
    0  every survivor is accepted in vectors/mutants.toml
    1  a survivor is not listed there, or a listed mutant is killed now
       (or, in a run of every mutant, no longer exists)
    2  the tree could not be opened or its base world built";

#[derive(Args)]
struct SweepArgs {
    /// A series to sweep (repeatable; default: every pinned series)
    #[arg(long, value_name = "SERIES")]
    series: Vec<String>,
    /// Only the newest N versions of each series (0: all)
    #[arg(long, default_value_t = 0, value_name = "N")]
    limit: usize,
    /// Generated vectors per function per step, besides the corpus
    #[arg(long, default_value_t = 2_000, value_name = "N")]
    random: u64,
    /// Seed of the generated vectors
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The report on stdout (progress goes to stderr)
    #[arg(long, value_enum, default_value = "human")]
    format: FormatArg,
}

const SWEEP_AFTER: &str = "\
Each version is downloaded once (about 150 MB) and kept in the cache.

EXAMPLES:
    cargo xtask sweep --series 6.1               # every 6.1 Debian publishes
    cargo xtask sweep --limit 3 --format json > sweep.json

EXIT STATUS:
    0  no function changed behaviour between consecutive versions
    1  some did (listed per function, with grouped minimal reproducers)
    2  a version could not be fetched or built";

const DIFF_AFTER: &str = "\
EXAMPLES:
    cargo xtask diff 6.1 6.12                   # did upstream change between series?
    cargo xtask diff 6.12 ~/linux --random 50000
    cargo xtask diff 6.12 ~/patched --format json | jq '.totals'

EXIT STATUS:
    0  the two trees behave the same on every call
    1  they differ (the report groups the calls, with minimal reproducers)
    2  a tree could not be opened, built or judged";

fn function(s: &str) -> std::result::Result<String, String> {
    Func::from_name(s)
        .map(|_| s.to_owned())
        .ok_or_else(|| format!("unknown function (expected one of {})", Func::names()))
}

const CONFORMANCE_AFTER: &str = "\
Every tree is compiled and run in a sandbox (bubblewrap): no network, no
files but the tree, c-shim and the toolchain, an unprivileged uid, resource
limits, and a seccomp filter on the worker. A call that never returns is a
`hang` finding, one that tries what the sandbox refuses is `denied: CALL`,
one that crashes the worker is `crashed`; the run goes on.

EXAMPLES:
    cargo xtask conformance --kernel all
    cargo xtask conformance --kernel=6.1 --format=junit > report.xml
    cargo xtask conformance --kernel-src ~/linux --format json | jq .totals
    cargo xtask conformance --random 100000 --seed 7 --function hfi1_setup_wqe

EXIT STATUS:
    0  C and Rust agree on every vector and every snapshot matches
    1  something differs (the report names the vectors)
    2  the run could not happen (bad arguments, no kernel, no sandbox, a
       build failure, a tree that cannot be judged: it needs a symbol the
       boundary lacks, or its world cannot be loaded); the reports of the
       kernels that did run are still written, the others as errors";

const COVERAGE_AFTER: &str = "\
Builds the C world with gcov, runs the committed corpus (vectors/) in a
worker, and prints line and branch coverage per upstream function in scope
(qp.c, the sdma/pio selection functions, the inline helpers of hfi.h, qp.h,
tid_rdma.h and iowait.c). lcov/genhtml write target/coverage/SERIES/ (HTML
report: html/index.html).

Every line or branch arc the corpus misses must be explained in
vectors/unreached.toml (function, line text, arcs, reason), and every entry
there must still be missed: the command exits 1 on any disagreement, naming
the upstream file:line or the manifest line.";

const BENCH_AFTER: &str = "\
Measures, in one run on one core (the worker process does the work while
this process waits), each the best of several repetitions:
  raw      the upstream call alone: hfi1_setup_wqe (or qp_to_sdma_engine +
           qp_to_send_context) in a tight loop on a world built once
  check    the whole differential check per vector: the flat call built from
           the vector, the C world built and called, the Rust model called,
           outcomes compared (each batch of 32 vectors drawn beforehand)
  generation
           drawing those vectors
  generate+check
           the loop `conformance --random` runs, timed whole: a batch drawn,
           then checked, and so on (one core; --random runs one such loop
           per core)
and prints vectors/s and the ratio check/raw, for hfi1_setup_wqe and for the
engine-selection pair.

Example: cargo xtask bench --kernel 6.12 --vectors 500000";

fn main() -> ExitCode {
    cworld::worker_main_if_requested();
    let cli = Cli::parse();
    if let Some(s) = cli.sandbox.call_timeout {
        cworld::set_call_timeout(std::time::Duration::from_secs_f64(s));
    }
    if cli.sandbox.no_sandbox {
        harness::sandbox::allow_unsandboxed();
    }
    match dispatch(cli.cmd) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn root() -> PathBuf {
    let r = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::canonicalize(&r).unwrap_or(r)
}

fn dispatch(cmd: Cmd) -> Result<ExitCode> {
    match cmd {
        Cmd::Conformance(a) => conformance_cmd(a),
        Cmd::Kernel {
            cmd: KernelCmd::List { series },
        } => kernel_list(&series),
        Cmd::Kernel {
            cmd: KernelCmd::Update { series },
        } => kernel_update(&series),
        Cmd::Kernel {
            cmd: KernelCmd::Fetch { series },
        } => {
            let t = std::time::Instant::now();
            let tree = kernel::fetch(&series)?;
            eprintln!(
                "[kernel] {} ready in {:.1}s",
                tree.version,
                t.elapsed().as_secs_f64()
            );
            println!("{}", tree.root.display());
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Snapshots {
            cmd: SnapshotsCmd::Diff { a, b },
        } => snapshots_diff(&a, &b),
        Cmd::Bindgen { check } => {
            bindgen::run(&root(), check)?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Schema { check } => {
            let path = root().join("harness/report.schema.json");
            let want = report::json_schema();
            if check {
                let have = std::fs::read_to_string(&path).unwrap_or_default();
                if have != want {
                    anyhow::bail!("{} is stale: run `cargo xtask schema`", path.display());
                }
                println!("{} is fresh", path.display());
            } else {
                std::fs::write(&path, want)
                    .with_context(|| format!("writing {}", path.display()))?;
                println!("wrote {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Coverage { kernel } => coverage_cmd(kernel),
        Cmd::Diff(a) => diff_cmd(a),
        Cmd::Sweep(a) => sweep_cmd(a),
        Cmd::Mutants(a) => mutants_cmd(a),
        Cmd::Gate(a) => gate_cmd(a),
        Cmd::Bench {
            kernel,
            vectors,
            iters,
        } => bench_cmd(kernel, vectors, iters),
    }
}

fn gate_cmd(a: GateArgs) -> Result<ExitCode> {
    let mut patches = vec![];
    for p in &a.patches {
        let (text, name) = if p == "-" {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                .context("reading the patch from stdin")?;
            (s, "stdin".to_owned())
        } else {
            let path = PathBuf::from(p);
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading the patch {}", path.display()))?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.clone());
            (text, name)
        };
        let found = harness::cmd::gate::parse(&text, &name);
        if found.is_empty() {
            anyhow::bail!(
                "{p}: no patch in it (expected a diff, a git format-patch file or an mbox)"
            );
        }
        patches.extend(found);
    }
    let bases = kernels(&a.base, &a.kernel_src);
    let opts = harness::cmd::gate::Options {
        random: a.random,
        seed: a.seed,
        funcs: Func::ALL.to_vec(),
        expect: a.expect_change.clone(),
    };
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut judged = vec![];
    for (i, b) in bases.iter().enumerate() {
        let tree = b.open()?;
        let name = if matches!(b, KernelSel::Series(_)) {
            tree.version.series()
        } else {
            format!("{} (tree {})", tree.version.series(), i + 1)
        };
        judged.extend(harness::cmd::gate::judge(
            &tree,
            &name,
            &patches,
            &vectors,
            &opts,
            &mut |m| eprintln!("[gate] {m}"),
        )?);
    }
    for j in &judged {
        eprintln!(
            "[gate] {}: {}: {}",
            j.base,
            j.patch.subject,
            j.verdict.word()
        );
        if a.timings {
            let phases: Vec<String> = j
                .timings
                .iter()
                .map(|(p, s)| format!("{p} {s:.2} s"))
                .collect();
            eprintln!(
                "[timings] {}: {}: {}",
                j.base,
                j.patch.subject,
                phases.join(", ")
            );
        }
    }
    // Worlds built for patches pile up: keep the cache under its cap.
    let evicted = cworld::build::evict(cworld::build::worlds_cap());
    if evicted > 0 {
        eprintln!("[gate] evicted {evicted} least recently used world(s) from the cache");
    }
    let report = harness::cmd::gate::report(&judged);
    print!("{}", report::render(Format::from(a.format), &report));
    // `--base all` asks about every series the patch applies to; the
    // report above still lists the ones it does not.
    let verdicts = if a.base.iter().any(|b| b == "all") {
        harness::cmd::gate::where_it_applies(&judged)
    } else {
        judged
    };
    eprintln!(
        "patchwork: {}",
        harness::cmd::gate::patchwork_line(&verdicts)
    );
    Ok(ExitCode::from(harness::cmd::gate::exit_code(&verdicts)))
}

fn mutants_cmd(a: MutantsArgs) -> Result<ExitCode> {
    let sel = match &a.kernel_src {
        Some(p) => KernelSel::Path(p.clone()),
        None => KernelSel::Series(a.kernel.clone()),
    };
    let tree = sel.open()?;
    if a.list {
        let fns: Vec<String> = if a.function.is_empty() {
            Func::ALL.iter().map(|f| f.name().to_owned()).collect()
        } else {
            a.function.clone()
        };
        let all = harness::cmd::mutants::generate(&tree, &fns)?;
        for m in &all {
            println!("drivers/infiniband/hw/hfi1/qp.c:{}: {}", m.line, m.id());
        }
        eprintln!("[mutants] {} mutants", all.len());
        return Ok(ExitCode::SUCCESS);
    }
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let opts = harness::cmd::mutants::Options {
        functions: a.function.clone(),
        sample: a.sample,
        seed: a.seed,
        random: a.random,
        sanitize: a.sanitize,
    };
    let path = harness::cmd::mutants::manifest_path();
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let listed = harness::cmd::mutants::parse_manifest(&path, &text)?;
    let started = std::time::Instant::now();
    let results =
        harness::cmd::mutants::run(&tree, &vectors, &opts, &mut |m| eprintln!("[mutants] {m}"))?;
    let report = harness::cmd::mutants::report(&tree.version.series(), &results, &listed);
    print!("{}", report::render(Format::from(a.format), &report));
    let count =
        |f: fn(&harness::cmd::mutants::Fate) -> bool| results.iter().filter(|(_, x)| f(x)).count();
    let killed = count(|f| matches!(f, harness::cmd::mutants::Fate::Killed { .. }));
    let judged = count(|f| !matches!(f, harness::cmd::mutants::Fate::Stillborn(_)));
    let every = a.sample == 0 && a.function.is_empty();
    let problems = harness::cmd::mutants::check_manifest(&listed, &results, every, a.sanitize);
    let accepted = judged - killed - problems.iter().filter(|p| p.contains("not listed")).count();
    eprintln!(
        "[mutants] {killed} of {judged} mutants killed ({:.1}%), {accepted} accepted \
         ({:.1}% killed or accepted), {} did not compile, in {:.1}s",
        100.0 * killed as f64 / judged.max(1) as f64,
        100.0 * (killed + accepted) as f64 / judged.max(1) as f64,
        results.len() - judged,
        started.elapsed().as_secs_f64()
    );
    for p in &problems {
        eprintln!("error: {p}");
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn sweep_cmd(a: SweepArgs) -> Result<ExitCode> {
    for s in &a.series {
        kernel::KernelSpec::parse(s)?;
    }
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let opts = harness::cmd::sweep::Options {
        series: a.series,
        limit: a.limit,
        random: a.random,
        seed: a.seed,
        funcs: Func::ALL.to_vec(),
    };
    let started = std::time::Instant::now();
    let sweep = harness::cmd::sweep::run(&opts, &vectors, &mut |m| eprintln!("[sweep] {m}"))?;
    let report = harness::cmd::sweep::report(&sweep);
    print!("{}", report::render(Format::from(a.format), &report));
    let changes = harness::cmd::sweep::changes(&sweep);
    for (f, at) in &changes {
        eprintln!("[sweep] {f} changed behaviour at: {}", at.join("; "));
    }
    if changes.is_empty() {
        eprintln!("[sweep] no function in scope changed behaviour between consecutive versions");
    }
    eprintln!(
        "[sweep] {} step(s), {} version(s) unavailable, in {:.1}s",
        sweep.steps.len(),
        sweep.unavailable.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::from(report.exit_code()))
}

fn kernel_list(only: &[String]) -> Result<ExitCode> {
    for s in only {
        kernel::KernelSpec::parse(s)?;
    }
    let all = kernel::published(only)?;
    let w = all.iter().map(|p| p.version.len()).max().unwrap_or(8);
    for p in &all {
        let mut marks = vec![];
        if p.pinned {
            marks.push("pinned");
        }
        if p.cached {
            marks.push("cached");
        }
        let line = format!(
            "{:6} {:w$}  {:40} {}",
            p.series,
            p.version,
            p.suites,
            marks.join(" ")
        );
        println!("{}", line.trim_end());
    }
    if all.is_empty() {
        eprintln!("[kernel] Debian publishes no linux-source package of {only:?}");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn kernel_update(series: &str) -> Result<ExitCode> {
    let (old, new) = kernel::update(series)?;
    match &old {
        Some(o) if o.version == new.version => {
            eprintln!("[kernel] {series} is pinned to {}, the newest", new.version);
            return Ok(ExitCode::SUCCESS);
        }
        Some(o) => eprintln!(
            "[kernel] {series}: {} -> {} (snapshots/kernels.lock)",
            o.version, new.version
        ),
        None => eprintln!(
            "[kernel] {series} pinned to {} (snapshots/kernels.lock)",
            new.version
        ),
    }
    // The upgrade report: the corpus on the new version against the
    // series' snapshots.
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let sel = KernelSel::Series(series.to_owned());
    let run = conformance::run_kernel(&sel, &vectors, &BuildOptions::default(), &mut |m| {
        eprintln!("[kernel] {m}")
    })?;
    let (against, mismatches) = match &run.stand_in {
        Some((other, ms)) => (other.clone(), ms),
        None => (series.to_owned(), &run.snapshots),
    };
    let changed: usize = mismatches.iter().map(|m| m.rows.len()).sum();
    for m in mismatches {
        for (n, a, b) in &m.rows {
            println!("{}::{n}\n  snapshot: {a}\n  {}: {b}", m.family, new.version);
        }
    }
    println!(
        "{changed} vector(s) of {} behave differently on {} than in snapshots/{against}/{}; \
         `HFI1_KERNELS={series} cargo test` then `cargo insta review` writes the snapshots \
         of {series}; commit them with snapshots/kernels.lock",
        vectors.len(),
        new.version,
        if against == series {
            String::new()
        } else {
            format!(" (series {series} has no snapshots yet)")
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// A tree named on the command line: a series, or else a path.
fn tree_arg(s: &str) -> Result<KernelSel> {
    if std::path::Path::new(s).exists() {
        return Ok(KernelSel::Path(PathBuf::from(s)));
    }
    match series(s) {
        Ok(_) => Ok(KernelSel::Series(s.to_owned())),
        // Looks like a kernel name, is not a directory: say why it is
        // neither.
        Err(e) if kernel::KernelSpec::parse(s).is_ok() => anyhow::bail!("{s}: {e}"),
        Err(_) => anyhow::bail!(
            "{s}: no such directory, and not a kernel name (a pinned series such as {}, or \
             SERIES=VERSION)",
            kernel::DEFAULT_SERIES
        ),
    }
}

fn diff_cmd(a: DiffArgs) -> Result<ExitCode> {
    let funcs = functions(&a.function);
    let side = |s: &str| -> Result<KernelSel> {
        let p = std::path::Path::new(s);
        if KernelSel::looks_like_overlay(p) {
            a.overlay.sel(p)
        } else {
            tree_arg(s)
        }
    };
    let (sa, sb) = (side(&a.a)?, side(&a.b)?);
    let build = |s: &KernelSel| -> Result<(String, cworld::BuiltWorld)> {
        let tree = s.open()?;
        eprintln!(
            "[diff] {}: building the C world of {}",
            s.label(),
            tree.version
        );
        let w = cworld::build(&tree, &BuildOptions::default())?;
        Ok((tree.version.series(), w))
    };
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let result = build(&sa).and_then(|(na, wa)| {
        let (nb, wb) = build(&sb)?;
        let names = suite_names([(na.as_str(), &sa), (nb.as_str(), &sb)].into_iter());
        let c = harness::judge::compare::compare(
            &wa,
            &wb,
            &vectors,
            &funcs,
            a.random,
            a.seed,
            &mut |m| eprintln!("[diff] {m}"),
        )?;
        Ok((names, c))
    });
    let report = match result {
        Ok((n, c)) => {
            harness::judge::compare::report(&format!("{} vs {}", n[0], n[1]), &n[0], &n[1], &c)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            let n = suite_names([("", &sa), ("", &sb)].into_iter());
            harness::report::Report::new(
                "diff",
                vec![harness::report::Suite {
                    name: format!("{} vs {}", n[0], n[1]),
                    kernel: format!("{} vs {}", sa.label(), sb.label()),
                    version: String::new(),
                    error: Some(format!("{e:#}")),
                    cases: vec![],
                    seconds: 0.0,
                    ..Default::default()
                }],
            )
        }
    };
    print!("{}", report::render(Format::from(a.format), &report));
    Ok(ExitCode::from(report.exit_code()))
}

fn snapshots_diff(a: &str, b: &str) -> Result<ExitCode> {
    // A pinned series is its committed snapshots; anything else (a path, an
    // exact version) is a tree whose outcomes are computed now.
    let tables = |s: &str| -> Result<(String, snapshot::Tables)> {
        if kernel::series().iter().any(|x| x == s) && !std::path::Path::new(s).exists() {
            let t = snapshot::series_tables(s).with_context(|| format!("reading snapshots/{s}"))?;
            return Ok((format!("snapshots/{s}"), t));
        }
        let sel = tree_arg(s)?;
        let vectors =
            corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| anyhow::anyhow!("{e}"))?;
        let run = conformance::run_kernel(&sel, &vectors, &BuildOptions::default(), &mut |m| {
            eprintln!("[snapshots] {m}")
        })?;
        Ok((
            format!("{} ({})", s, run.version),
            snapshot::checked_tables(&vectors, &run.checks),
        ))
    };
    let ((na, ta), (nb, tb)) = (tables(a)?, tables(b)?);
    let rows = snapshot::diff_tables(&ta, &tb);
    let (a, b) = (na.as_str(), nb.as_str());
    if rows.is_empty() {
        println!("{a} and {b} agree on every vector");
        return Ok(ExitCode::SUCCESS);
    }
    for (fam, name, ra, rb) in &rows {
        println!("{fam}::{name}\n  {a}: {ra}\n  {b}: {rb}");
    }
    println!("{} vector(s) differ", rows.len());
    Ok(ExitCode::from(1))
}

/// The kernels named by `--kernel`/`--base` (series, or `all`) and
/// `--kernel-src` (paths), in that order; the default series when none.
fn kernels(series: &[String], paths: &[PathBuf]) -> Vec<KernelSel> {
    let mut out: Vec<KernelSel> = vec![];
    for k in series {
        if k == "all" {
            out.extend(kernel::series().into_iter().map(KernelSel::Series));
        } else {
            out.push(KernelSel::Series(k.clone()));
        }
    }
    out.extend(paths.iter().cloned().map(KernelSel::Path));
    if out.is_empty() {
        out.push(KernelSel::Series(kernel::DEFAULT_SERIES.into()));
    }
    out
}

/// The functions named by `--function` (already checked by clap), or all.
fn functions(names: &[String]) -> Vec<Func> {
    if names.is_empty() {
        Func::ALL.to_vec()
    } else {
        names.iter().filter_map(|f| Func::from_name(f)).collect()
    }
}

fn conformance_cmd(a: ConformanceArgs) -> Result<ExitCode> {
    let mut kernels =
        if a.kernel.is_empty() && a.kernel_src.is_empty() && !a.overlay.overlay.is_empty() {
            vec![]
        } else {
            kernels(&a.kernel, &a.kernel_src)
        };
    for d in &a.overlay.overlay {
        kernels.push(a.overlay.sel(d)?);
    }
    let opts = BuildOptions {
        sanitize: a.sanitize,
        ..Default::default()
    };
    let format = Format::from(a.format);
    if let Some(n) = a.random {
        let funcs = functions(&a.function);
        return random_cmd(&kernels, &opts, &funcs, n, a.seed, format);
    }
    let dir = a.vectors.unwrap_or_else(corpus::corpus_dir);
    let vectors = corpus::load_corpus(&dir).map_err(|e| anyhow::anyhow!("{e}"))?;
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
    let report = conformance::report(&vectors, &runs);
    print!("{}", report::render(format, &report));
    eprintln!(
        "[conformance] finished in {:.2}s",
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::from(report.exit_code()))
}

fn random_cmd(
    kernels: &[KernelSel],
    opts: &BuildOptions,
    funcs: &[Func],
    n: u64,
    seed: u64,
    format: Format,
) -> Result<ExitCode> {
    let mut out = vec![];
    for k in kernels {
        let ran = (|| -> Result<(String, String, random::RandomRun)> {
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
            let total: u64 = run.per_func.iter().map(|x| x.1).sum();
            eprintln!(
                "[random] kernel {}: {total} vectors in {:.2}s ({:.0} vectors/s)",
                k.label(),
                run.seconds,
                total as f64 / run.seconds.max(1e-9)
            );
            Ok((tree.version.series(), tree.version.to_string(), run))
        })();
        out.push(match ran {
            Ok((series, version, run)) => random::KernelRandom {
                sel: k.clone(),
                series,
                version,
                run: Ok(run),
            },
            Err(e) => {
                eprintln!("error: kernel {}: {e:#}", k.label());
                random::KernelRandom {
                    sel: k.clone(),
                    series: String::new(),
                    version: String::new(),
                    run: Err(format!("{e:#}")),
                }
            }
        });
    }
    let report = random::report(&out);
    print!("{}", report::render(format, &report));
    Ok(ExitCode::from(report.exit_code()))
}

fn bench_cmd(series: String, count: u64, iters: u64) -> Result<ExitCode> {
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
        let (mut check_ns, mut gen_ns, mut whole, mut bad) = (f64::MAX, f64::MAX, f64::MAX, 0);
        for _ in 0..3 {
            let r = worker.bench(func, 1, count)?;
            let n = r.vectors as f64;
            check_ns = check_ns.min(r.check_ns as f64 / n);
            gen_ns = gen_ns.min(r.generation_ns as f64 / n);
            whole = whole.min(r.loop_ns as f64 / n);
            bad = r.disagreements;
        }
        let mut extra = String::new();
        if func == Func::QpToSdmaEngine {
            let mut other = f64::MAX;
            let mut bad2 = 0;
            for _ in 0..3 {
                let r = worker.bench(Func::QpToSendContext, 1, count)?;
                other = other.min(r.check_ns as f64 / r.vectors as f64);
                bad2 = r.disagreements;
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
            "{label}\n  raw upstream:    {raw_ns:>8.1} ns/call          {:>12.0} calls/s  (checksum {sum})\n  check:           {check_ns:>8.1} ns/vector        {:>12.0} vectors/s ratio {:.1}x  ({bad} disagreements){extra}\n  generation:      {gen_ns:>8.1} ns/vector\n  generate+check:  {whole:>8.1} ns/vector        {:>12.0} vectors/s (one core)",
            1e9 / raw_ns,
            1e9 / check_ns,
            check_ns / raw_ns,
            1e9 / whole
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

fn coverage_cmd(series: String) -> Result<ExitCode> {
    let tree = kernel::fetch(&series)?;
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let out = harness::judge::coverage::out_dir(&series);
    let world = harness::judge::coverage::collect(&tree, &vectors)?;
    let obj = world.dir.join("obj");
    let cov = harness::judge::coverage::report(
        &world,
        &harness::judge::coverage::Tracefile::capture(&obj)?,
    )?;
    // The HTML report, when lcov is installed: its tools, run as a script
    // would run them.
    let html = out.join("html");
    let drawn = harness::judge::coverage::html_tools();
    if drawn {
        let sh = xshell::Shell::new()?;
        let info = out.join("coverage.info");
        sh.create_dir(&out)?;
        xshell::cmd!(
            sh,
            "lcov --quiet --capture --rc lcov_branch_coverage=1 --directory {obj} --output-file {info}"
        )
        .run()
        .context("lcov failed")?;
        xshell::cmd!(
            sh,
            "genhtml --quiet --branch-coverage --output-directory {html} {info}"
        )
        .run()
        .context("genhtml failed")?;
    }
    print!(
        "{}",
        harness::judge::coverage::render(&tree, &cov, drawn.then_some(html.as_path()))
    );

    // Every miss explained, every explanation still needed.
    let manifest = harness::cmd::coverage::path(&corpus::corpus_dir());
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    let shown = manifest.display();
    let entries = harness::cmd::coverage::parse(&text)
        .map_err(|p| anyhow::anyhow!("{shown}:{}: {}", p.line, p.msg))?;
    let entries = harness::cmd::coverage::applicable(&entries, &tree.version.series());
    let mut sources = std::collections::BTreeMap::new();
    for c in &cov {
        if !sources.contains_key(&c.file) {
            let path = tree.path(&c.file);
            let src = tree.read_to_string(&path)?;
            sources.insert(c.file.clone(), src);
        }
    }
    let problems =
        harness::cmd::coverage::check(&cov, &entries, |f| sources.get(f).map(String::as_str));
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
