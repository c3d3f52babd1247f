//! The command line: every command, its options and its help, and what
//! the options name (kernels, functions, report formats) in the library's
//! terms.
//!
//! An option group several commands share (`--format`, `--random`/`--seed`,
//! `--kernel`, `--kernel-src`, `--function`, `--sanitize`, `--overlay`) is
//! one `#[derive(Args)]` struct, flattened into each. Where a command's
//! help said more than the group's (or another default), the command
//! adjusts the group's option with `mut_arg`, so that every `--help` reads
//! as it always has.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, Parser, Subcommand, ValueEnum};
use harness::kernel::{self, select::KernelArg};
use harness::model::types::Func;
use harness::report::{self, Format, Report, ShardSpec};
use serde_json::Value;

mod names;
use names::{c_name, function, kcidb_origin, seconds, series, series_or_all, shard};
pub use names::{kernels, tree};

/// hfi1-conformance's build system: upstream hfi1 qp.c in userspace,
/// checked vector by vector against the Rust model.
#[derive(Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    arg_required_else_help = true,
    after_help = XTASK_AFTER
)]
pub struct Xtask {
    #[command(flatten)]
    pub sandbox: Sandbox,
    #[command(subcommand)]
    pub cmd: Cmd,
}

const XTASK_AFTER: &str = "EXAMPLES:
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
    HFI1_KCIDB_ORIGIN        the KCIDB origin of --format kcidb (--kcidb-origin wins)
    CC                       the C compiler for C worlds (default gcc)";

/// Options of every command that builds or runs C worlds.
#[derive(Args)]
pub struct Sandbox {
    /// The longest one upstream call may run before it is a `hang` finding,
    /// in seconds (default 2; x4 in coverage worlds, x10 under --sanitize)
    #[arg(long, global = true, value_name = "SECS", value_parser = seconds)]
    pub call_timeout: Option<f64>,
    /// Compile and run trees without the sandbox (bubblewrap, an
    /// unprivileged uid, no network, seccomp). Only for trees whose code
    /// you have read: their code runs with your rights
    #[arg(long, global = true)]
    pub no_sandbox: bool,
}

#[derive(Subcommand)]
pub enum Cmd {
    /// Run every vector on upstream C and on the Rust model, and check
    /// upstream against the snapshots of its series
    #[command(after_help = CONFORMANCE_AFTER)]
    Conformance(Conformance),
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
    /// Write the generated files the repository commits (the C schema, the
    /// FFI bindings, the reports' JSON schema), or check they are fresh
    #[command(after_help = CODEGEN_AFTER)]
    Codegen(Codegen),
    /// Judge patches: each applied to the tree with the patches before it,
    /// C against C; a verdict per patch, grouped minimal reproducers
    #[command(after_help = GATE_AFTER)]
    Gate(Gate),
    /// Compare two trees, C against C (no model): the corpus and N
    /// generated vectors per function on both; every difference grouped by
    /// function and shape, each group with a minimal reproducer
    #[command(after_help = DIFF_AFTER)]
    Diff(Diff),
    /// Every published Debian version of each series, oldest to newest,
    /// each compared with the one before it (C against C: the corpus and
    /// generated vectors); prints per function the versions where upstream
    /// behaviour changed
    #[command(after_help = SWEEP_AFTER)]
    Sweep(Sweep),
    /// Single-point mutants of the upstream functions in scope (`cargo
    /// xtask scope` lists them: qp.c, sdma.c, pio.c, iowait.c and kin), each
    /// judged base world against mutant world on the corpus (and generated
    /// vectors): the mutation score per function and every survivor with
    /// file:line and the mutation, checked against vectors/mutants.toml
    #[command(after_help = MUTANTS_AFTER)]
    Mutants(Mutants),
    /// Line and branch coverage of each upstream function in scope by the
    /// committed corpus (gcov + lcov), HTML under target/coverage/SERIES/html
    #[command(after_help = COVERAGE_AFTER)]
    Coverage(Coverage),
    /// Raw upstream call cost vs the whole differential check (vectors/s)
    #[command(after_help = BENCH_AFTER)]
    Bench(Bench),
    /// Which files and functions of the hfi1 driver (and rdmavt) the gate
    /// judges in each tree, before anything runs
    #[command(after_help = SCOPE_AFTER)]
    Scope(Scope),
    /// Join the JSON reports of every shard of a run (`--shard K/N`) into
    /// the report, and the exit code, of the whole run
    #[command(after_help = MERGE_AFTER)]
    Merge(Merge),
}

impl Cmd {
    /// The command's `--format` group, for those that write a report.
    pub fn output(&self) -> Option<&Output> {
        match self {
            Cmd::Conformance(a) => Some(&a.output),
            Cmd::Gate(a) => Some(&a.output),
            Cmd::Diff(a) => Some(&a.output),
            Cmd::Sweep(a) => Some(&a.output),
            Cmd::Mutants(a) => Some(&a.output),
            Cmd::Merge(a) => Some(&a.output),
            _ => None,
        }
    }
}

// ---- Option groups ----

/// `--format`: the report on stdout.
#[derive(Args)]
pub struct Output {
    /// The report on stdout (progress goes to stderr)
    #[arg(long, value_enum, default_value = "human")]
    pub format: FormatArg,
    /// With --format kcidb: the origin (the CI system's name KernelCI
    /// gave it) that every id starts with; lowercase letters, digits and
    /// `_` [env: HFI1_KCIDB_ORIGIN] [default: hfi1_conformance]
    #[arg(long, value_name = "NAME", value_parser = kcidb_origin)]
    pub kcidb_origin: Option<report::Origin>,
}

impl Output {
    /// The report in the chosen format.
    pub fn render(&self, r: &Report) -> String {
        match self.format {
            FormatArg::Kcidb => report::kcidb(r, &self.origin().unwrap_or_default()),
            f => report::render(f.into(), r),
        }
    }

    /// The KCIDB origin: `--kcidb-origin`, else `HFI1_KCIDB_ORIGIN` (empty:
    /// unset), else the default; an invalid one is an error before
    /// anything runs.
    pub fn origin(&self) -> Result<report::Origin> {
        if let Some(o) = &self.kcidb_origin {
            return Ok(o.clone());
        }
        match std::env::var("HFI1_KCIDB_ORIGIN") {
            Ok(v) if !v.is_empty() => {
                report::Origin::new(&v).map_err(|e| anyhow::anyhow!("HFI1_KCIDB_ORIGIN: {e}"))
            }
            _ => Ok(report::Origin::default()),
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// Failures explained, a function x kernel table, totals
    Human,
    /// KTAP version 1, for kernel CI (kunit.py parse reads it)
    Ktap,
    /// JUnit XML
    Junit,
    /// JSON, schema harness/report.schema.json
    Json,
    /// KCIDB I/O JSON v5.3, for KernelCI's kcidb-submit (see --kcidb-origin)
    Kcidb,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Human => Format::Human,
            FormatArg::Ktap => Format::Ktap,
            FormatArg::Junit => Format::Junit,
            FormatArg::Json => Format::Json,
            FormatArg::Kcidb => Format::Kcidb,
        }
    }
}

/// `--shard K/N`: one machine's part of a run.
#[derive(Args)]
pub struct Sharding {
    /// Do only the K-th of N contiguous blocks of the run's work (1 <= K <=
    /// N; every shard splits the same inputs alike, no coordination), and
    /// mark the report as that shard's: join the shards' `--format json`
    /// reports with `cargo xtask merge`
    #[arg(long, value_name = "K/N", value_parser = shard)]
    pub shard: Option<ShardSpec>,
}

impl Sharding {
    /// Marks `r` as this shard's report (a whole run's stays as it is):
    /// `units` in the run, the run's `inputs`, the exit code the shard
    /// ends with, and the suites every shard writes a part of.
    pub fn mark(&self, r: &mut Report, units: usize, inputs: Value, exit: u8, shared: Vec<String>) {
        if let Some(spec) = self.shard {
            let mut s = spec.record(units, inputs, exit);
            s.shared = shared;
            eprintln!("[shard] {spec}: units {:?} of {units}", spec.range(units));
            r.shard = Some(s);
        }
    }
}

/// `--random N --seed S`: generated vectors besides the corpus.
#[derive(Args)]
pub struct Generated {
    /// Generated vectors per function, besides the corpus (eight share a
    /// world: the default sees 10,000 worlds)
    #[arg(long, default_value_t = 80_000, value_name = "N")]
    pub random: u64,
    /// Seed of the generated vectors
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// `--kernel`: one kernel, a series or SERIES=VERSION (the default series
/// unless given). What the command does with it is in its own help.
#[derive(Args)]
pub struct OneKernel {
    #[arg(long, default_value = kernel::DEFAULT_SERIES, value_parser = series)]
    pub kernel: String,
}

/// `--kernel-src PATH`: kernel trees given by path.
#[derive(Args)]
pub struct KernelSrc {
    /// Any kernel tree root: a git checkout, an extracted tarball, a patched
    /// copy; checked against the snapshots of its series. Repeatable
    #[arg(long, value_name = "PATH")]
    pub kernel_src: Vec<PathBuf>,
}

/// `--function NAME`: only these functions (C names; every function in
/// scope when none is named).
#[derive(Args)]
pub struct Functions {
    /// Only this function's generated vectors (repeatable)
    #[arg(long, value_name = "NAME", value_parser = function)]
    pub function: Vec<String>,
}

impl Functions {
    /// The functions named (already checked by clap), or all.
    pub fn funcs(&self) -> Vec<Func> {
        if self.function.is_empty() {
            Func::ALL.to_vec()
        } else {
            self.function
                .iter()
                .filter_map(|f| Func::from_name(f))
                .collect()
        }
    }
}

/// `--sanitize`: C worlds built with ASan and UBSan.
#[derive(Args)]
pub struct Sanitize {
    /// Build the C worlds with ASan and UBSan (upstream UB is a crash
    /// finding for the vector, with the sanitizer's report)
    #[arg(long)]
    pub sanitize: bool,
}

/// A vendor driver tree (opa-hfi1 or shaped like it) as an overlay on a
/// base kernel.
#[derive(Args)]
pub struct Overlay {
    /// A vendor hfi1 tree without a kernel around it (its own
    /// drivers/infiniband/hw/hfi1, header overlays, compat headers),
    /// composed on the --on kernel. Repeatable
    #[arg(long, value_name = "DIR")]
    pub overlay: Vec<PathBuf>,
    /// The base kernel of --overlay (and of an overlay-shaped tree given to
    /// `diff`): a series, SERIES=VERSION or a path. Default: 6.12
    #[arg(long, value_name = "KERNEL", default_value = kernel::DEFAULT_SERIES)]
    pub on: String,
    /// The overlay's compat profile (TOML: include, force_include, defines,
    /// [have]; see docs/kernels.md "Vendor trees"). Default: the overlay's
    /// include/ and include/uapi/ first, nothing forced or defined
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
}

impl Overlay {
    /// The vendor tree `dir` composed on `--on`.
    pub fn sel(&self, dir: &Path) -> Result<KernelArg> {
        Ok(KernelArg::Overlay {
            dir: dir.to_owned(),
            on: Box::new(tree(&self.on)?),
            profile: self.profile.clone(),
        })
    }
}

// ---- Commands ----

#[derive(Args)]
#[command(mut_arg("function", |a| a
    .help("With --random: only this function (repeatable)")
    .requires("random")))]
#[command(mut_arg("shard", |a| a.requires("random")))]
pub struct Conformance {
    /// A pinned series (snapshots/kernels.lock) fetched from Debian on first
    /// use, SERIES=VERSION for an exact Debian version, or `all` (every
    /// pinned series). Repeatable. Default: 6.12
    #[arg(long, value_name = "SERIES[=VERSION]|all", value_parser = series_or_all)]
    pub kernel: Vec<String>,
    #[command(flatten)]
    pub kernel_src: KernelSrc,
    #[command(flatten)]
    pub overlay: Overlay,
    #[command(flatten)]
    pub output: Output,
    /// A vector corpus other than vectors/: a directory of vector files
    /// (`target/findings`) or one file; worlds from its `worlds.toml`, else
    /// vectors/worlds.toml
    #[arg(long, value_name = "DIR|FILE")]
    pub vectors: Option<PathBuf>,
    #[command(flatten)]
    pub sanitize: Sanitize,
    // `--random` and `--seed` are not the `Generated` group: here
    // `--random` picks another mode (absent: the corpus), an `Option` with
    // no default, where `Generated` counts vectors besides the corpus (a
    // `u64` with a default). clap's derive takes that from the field's
    // type, which a flattened group fixes.
    /// Instead of the corpus: N generated vectors per function, run on both
    /// sides in the worker; findings are minimised and written to
    /// target/findings/*.toml
    #[arg(long, value_name = "N")]
    pub random: Option<u64>,
    /// Instead of the corpus (or besides --random): N generated scenarios,
    /// a first call and one to three later steps on one world, judged step
    /// by step; failing ones are minimised (steps, then keys) and written
    /// to target/findings/random_scenario_*.toml
    #[arg(long, value_name = "N", conflicts_with = "shard")]
    pub scenarios: Option<u64>,
    /// Seed of --random and --scenarios; same seed, same vectors
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// With --random: one machine's part (`--shard K/N`)
    #[command(flatten)]
    pub sharding: Sharding,
    #[command(flatten)]
    pub function: Functions,
}

impl Conformance {
    /// The kernels named: `--kernel`, `--kernel-src`, then each `--overlay`
    /// (the default series only when none is named).
    pub fn kernels(&self) -> Result<Vec<KernelArg>> {
        let only_overlays = self.kernel.is_empty()
            && self.kernel_src.kernel_src.is_empty()
            && !self.overlay.overlay.is_empty();
        let mut out = if only_overlays {
            vec![]
        } else {
            kernels(&self.kernel, &self.kernel_src.kernel_src)
        };
        for d in &self.overlay.overlay {
            out.push(self.overlay.sel(d)?);
        }
        Ok(out)
    }
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
    cargo xtask conformance --scenarios 20000 --seed 3

EXIT STATUS:
    0  C and Rust agree on every vector and every snapshot matches
    1  something differs (the report names the vectors)
    2  the run could not happen (bad arguments, no kernel, no sandbox, a
       build failure, a tree that cannot be judged: it needs a symbol the
       boundary lacks, or its world cannot be loaded); the reports of the
       kernels that did run are still written, the others as errors";

#[derive(Subcommand)]
pub enum KernelCmd {
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
pub enum SnapshotsCmd {
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

#[derive(Args)]
pub struct Codegen {
    /// Write nothing: fail if a committed file is not what it would be
    /// (without libclang the bindings are skipped, and said so)
    #[arg(long)]
    pub check: bool,
}

const CODEGEN_AFTER: &str = "\
FILES (in the order written):
    c-shim/schema.h      the model's schema, as C
    harness/report.schema.json
                         the JSON schema of the reports
    harness/src/cworld/ffi/bindings.rs
                         bindgen on c-shim/shim.h (which includes schema.h);
                         needs libclang (apt-get install libclang-dev)

EXAMPLES:
    cargo xtask codegen             # after changing the schema or c-shim/shim.h
    cargo xtask codegen --check     # are the committed ones fresh?

EXIT STATUS:
    0  every file written, or (--check) every one fresh
    1  --check: a committed file is stale (each named, with the fix)
    2  a file could not be made or written (the bindings without libclang)";

#[derive(Args)]
#[command(
    mut_arg("format", |a| a.help("The report on stdout; the patchwork line goes to stderr")),
    mut_arg("kernel_src", |a| a.help("A tree to apply to instead (repeatable)"))
)]
pub struct Gate {
    /// `git format-patch` files, an mbox holding a series, plain diffs, or
    /// `-` for stdin; applied in order
    #[arg(required = true, value_name = "PATCH")]
    pub patches: Vec<String>,
    /// The series to apply to (repeatable; default 6.12). `all`: every
    /// series the patch applies to (the exit code and the patchwork line
    /// leave out the series where it does not; the report lists them)
    #[arg(long, value_name = "SERIES|all", value_parser = series_or_all)]
    pub base: Vec<String>,
    #[command(flatten)]
    pub kernel_src: KernelSrc,
    #[command(flatten)]
    pub generated: Generated,
    /// A function every patch means to change (as a `Conformance-Changes:`
    /// trailer says for one patch); repeatable
    #[arg(long, value_name = "FUNCTION", value_parser = function)]
    pub expect_change: Vec<String>,
    #[command(flatten)]
    pub output: Output,
    #[command(flatten)]
    pub sharding: Sharding,
    /// Print the seconds of each phase (apply, build, compare) per patch
    /// on stderr
    #[arg(long)]
    pub timings: bool,
    /// Skip the depth line: the mutants of the changed lines, judged
    /// against the patched tree
    #[arg(long)]
    pub no_depth: bool,
    /// Generated vectors per function tried for each surviving mutant of
    /// the changed lines, for a vector that kills it (0: none)
    #[arg(long, default_value_t = 20_000, value_name = "N")]
    pub suggest: u64,
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
pub struct Diff {
    /// A series, SERIES=VERSION, the path of a kernel tree, or of a vendor
    /// tree (no top Makefile: composed on --on)
    pub a: String,
    /// Like A
    pub b: String,
    #[command(flatten)]
    pub overlay: Overlay,
    #[command(flatten)]
    pub generated: Generated,
    #[command(flatten)]
    pub function: Functions,
    #[command(flatten)]
    pub output: Output,
}

const DIFF_AFTER: &str = "\
EXAMPLES:
    cargo xtask diff 6.1 6.12                   # did upstream change between series?
    cargo xtask diff 6.12 ~/linux --random 50000
    cargo xtask diff 6.12 ~/patched --format json | jq '.totals'

EXIT STATUS:
    0  the two trees behave the same on every call
    1  they differ (the report groups the calls, with minimal reproducers)
    2  a tree could not be opened, built or judged";

#[derive(Args)]
#[command(mut_arg("random", |a| a
    .default_value("2000")
    .help("Generated vectors per function per step, besides the corpus")))]
pub struct Sweep {
    /// A series to sweep (repeatable; default: every pinned series)
    #[arg(long, value_name = "SERIES")]
    pub series: Vec<String>,
    /// Only the newest N versions of each series (0: all)
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub limit: usize,
    #[command(flatten)]
    pub generated: Generated,
    #[command(flatten)]
    pub output: Output,
    #[command(flatten)]
    pub sharding: Sharding,
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

// Here `--kernel-src` takes one tree (`Set`: a second is an error), and
// `--seed` is listed before `--random`, as they always were: clap numbers
// the options in the order they are added (`--kernel` 0, ... `--sample` 3,
// `--list` 6), so the two are given 4 and 5.
#[derive(Args)]
#[command(
    mut_arg("kernel", |a| a
        .help("The kernel whose upstream functions are mutated (a series or SERIES=VERSION)")),
    mut_arg("kernel_src", |a| a
        .help("A tree given by path instead")
        .action(clap::ArgAction::Set)),
    mut_arg("function", |a| a
        .value_parser(c_name)
        .help("Only this function's mutants (repeatable; a C name: any function the worlds \
               compile, as c-shim/boundary.toml lists them; default: the call schema's)")),
    mut_arg("seed", |a| a
        .help("Seed of --sample and of the generated vectors")
        .display_order(4)),
    mut_arg("random", |a| a
        .default_value("0")
        .help("Generated vectors per function per mutant, besides the corpus")
        .display_order(5)),
    mut_arg("sanitize", |a| a.help(
        "Build base and mutant worlds with ASan and UBSan (slower; objects past a \
         world's declared counts are poisoned)"
    ))
)]
pub struct Mutants {
    #[command(flatten)]
    pub kernel: OneKernel,
    #[command(flatten)]
    pub kernel_src: KernelSrc,
    #[command(flatten)]
    pub function: Functions,
    /// Judge only N mutants, picked with --seed (0: all)
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub sample: usize,
    #[command(flatten)]
    pub generated: Generated,
    /// Only list the mutants (file:line and id), judging none
    #[arg(long)]
    pub list: bool,
    /// Build each mutant as its own world, not all in one schemata world
    /// (slower; the check that schemata change no verdict)
    #[arg(long)]
    pub alone: bool,
    /// Apply PATCH (repeatable, in order; format-patch files, an mbox, plain
    /// diffs) to the tree and judge only the mutants on the lines it adds,
    /// against the patched tree (cargo-mutants' --in-diff)
    #[arg(long, value_name = "PATCH")]
    pub in_diff: Vec<String>,
    /// Only the first N patches the --in-diff inputs hold, in order (a
    /// series' patch N as the gate judged it, before the patches after it;
    /// 0: all)
    #[arg(long, default_value_t = 0, value_name = "N", requires = "in_diff")]
    pub in_diff_patches: usize,
    /// Only the mutant of this id, as --list and reports print it
    /// (repeatable): to reproduce one
    #[arg(long, value_name = "ID")]
    pub id: Vec<String>,
    /// Generated vectors per function tried for each survivor that
    /// vectors/mutants.toml does not list, for a vector that kills it
    /// (0: none)
    #[arg(long, default_value_t = 20_000, value_name = "N")]
    pub suggest: u64,
    #[command(flatten)]
    pub sanitize: Sanitize,
    #[command(flatten)]
    pub sharding: Sharding,
    #[command(flatten)]
    pub output: Output,
}

const MUTANTS_AFTER: &str = "\
Every mutant is compiled into one world and judged with its switch on in
turn (measured: docs/benchmarks.md); --sample N judges a reproducible
sample. Survivors that no vector can kill are accepted by id, with their
reason, in vectors/mutants.toml; the run is checked against that list
both ways. Each survivor it does not list is tried on --suggest generated
vectors: the one that kills it, minimised, is printed as a [[case]] to
add, else \"equivalent?\" with what to check.

EXAMPLES:
    cargo xtask mutants --sample 20 --seed 1
    cargo xtask mutants --function hfi1_setup_wqe --random 2000
    cargo xtask mutants --function sdma_select_engine_vl --list
    cargo xtask mutants --format json > mutants.json
    cargo xtask mutants --in-diff 0001-fix.patch       # the lines it adds
    cargo xtask mutants --in-diff 0001-fix.patch --id 'ID'

EXIT STATUS:
    0  every survivor is accepted in vectors/mutants.toml
    1  a survivor is not listed there, or a listed mutant is killed now
       (or, in a run of every mutant, no longer exists)
    2  the tree could not be opened or its base world built";

#[derive(Args)]
#[command(mut_arg("kernel", |a| a.help("The series to measure")))]
pub struct Coverage {
    #[command(flatten)]
    pub kernel: OneKernel,
    /// MC/DC of every decision instead of lines and branches (clang 19):
    /// every condition not shown must be listed in vectors/mcdc.toml, and
    /// every comparison whose operands are never equal, one below or one
    /// above in vectors/boundaries.toml
    #[arg(long)]
    pub mcdc: bool,
}

const COVERAGE_AFTER: &str = "\
Builds the C world with gcov, runs the committed corpus (vectors/) in a
worker, and prints line and branch coverage per upstream function in scope
(qp.c, the sdma/pio selection functions, the inline helpers of hfi.h, qp.h,
tid_rdma.h and iowait.c). lcov/genhtml write target/coverage/SERIES/ (HTML
report: html/index.html).

Every line or branch arc the corpus misses must be explained in
vectors/unreached.toml (function, line text, arcs, reason), and every entry
there must still be missed: the command exits 1 on any disagreement, naming
the upstream file:line or the manifest line.

--mcdc measures MC/DC instead, in a world built with clang 19 (clang-19, or
$HFI1_MEASURE_CC; apt-get install clang-19 llvm-19 libclang-rt-19-dev): for
each decision (conditions joined by && or ||) of the functions in scope,
which conditions the corpus shows flipping the decision on their own. HTML:
target/coverage/SERIES/mcdc-html/index.html. Every condition not shown must
be listed in vectors/mcdc.toml with its reason, and every listed one must
still be not shown (exit 1 otherwise).";

#[derive(Args)]
pub struct Bench {
    #[command(flatten)]
    pub kernel: OneKernel,
    /// Generated vectors per check repetition
    #[arg(long, default_value_t = 200_000)]
    pub vectors: u64,
    /// Raw upstream calls in all
    #[arg(long, default_value_t = 20_000_000)]
    pub iters: u64,
}

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

#[derive(Args)]
pub struct Merge {
    /// The JSON report of each shard (`--shard K/N --format json`), in any
    /// order; `-` reads one from stdin
    #[arg(required = true, value_name = "REPORT")]
    pub reports: Vec<String>,
    #[command(flatten)]
    pub output: Output,
}

const MERGE_AFTER: &str = "\
`mutants`, `sweep`, `conformance --random` and `gate` take --shard K/N:
each of N machines runs the same command with its own K and writes its
report with --format json; merge joins them into the report one machine
would have written (byte for byte, apart from durations) in any format,
and exits as that run would. Every shard 1..N of one run is needed, once.
How to run the shards as a CI matrix: docs/shards.md.

EXAMPLES:
    cargo xtask mutants --shard 1/4 --format json > shard-1.json   # one per machine
    cargo xtask merge shard-*.json --format junit > mutants.xml
    cargo xtask conformance --random 1000000 --shard 2/8 --format json > r2.json

EXIT STATUS:
    the whole run's: the highest of the shards' (the gate's from the
    joined verdicts, as --base all weighs them)
    2  a report is not a shard's, is another run's, or a shard is missing";

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;

    /// clap's own checks of the command line (each `mut_arg` names an
    /// option that exists, no two options clash).
    #[test]
    fn the_command_line_is_well_formed() {
        Xtask::command().debug_assert();
    }

    /// The shared groups keep what each command gave its options.
    #[test]
    fn shared_options_keep_each_command_s_defaults_and_rules() {
        let parse = |args: &[&str]| Xtask::try_parse_from([&["cargo xtask"], args].concat());
        let Ok(Xtask {
            cmd: Cmd::Mutants(m),
            ..
        }) = parse(&["mutants"])
        else {
            panic!("mutants parses");
        };
        assert_eq!((m.generated.random, m.generated.seed), (0, 1));
        let Ok(Xtask {
            cmd: Cmd::Diff(d), ..
        }) = parse(&["diff", "a", "b"])
        else {
            panic!("diff parses");
        };
        assert_eq!((d.generated.random, d.generated.seed), (80_000, 1));
        assert_eq!(d.function.funcs(), Func::ALL.to_vec());
        // One tree for mutants, any number for conformance and gate.
        assert!(parse(&["mutants", "--kernel-src", "a", "--kernel-src", "b"]).is_err());
        assert!(parse(&["conformance", "--kernel-src", "a", "--kernel-src", "b"]).is_ok());
        // Conformance's --function and --seed only with --random.
        assert!(parse(&["conformance", "--function", "mtu_from_qp"]).is_err());
        assert!(parse(&["conformance", "--random", "1", "--function", "mtu_from_qp"]).is_ok());
        assert!(parse(&["diff", "a", "b", "--function", "mtu_from_qp"]).is_ok());
    }
}

#[derive(Args)]
pub struct Scope {
    /// A pinned series, SERIES=VERSION, or `all`. Repeatable. Default: 6.12
    #[arg(long, value_name = "SERIES[=VERSION]|all", value_parser = series_or_all)]
    pub kernel: Vec<String>,
    #[command(flatten)]
    pub kernel_src: KernelSrc,
    /// `human`, or `json` (an array, one statement per tree)
    #[arg(long, value_enum, default_value = "human")]
    pub format: ScopeFormat,
    /// Check c-shim/unjudged.toml against the trees, both ways: exit 1
    /// when a definition of the engines' files is neither judged nor
    /// listed with why, or a listed one is judged or defined in none
    #[arg(long)]
    pub check: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ScopeFormat {
    /// Per tree the files some world compiles, with what is judged
    Human,
    /// `[{kernel, series, files: [{path, how, judged, not_judged}]}]`
    Json,
}

const SCOPE_AFTER: &str = "\
An edit inside a judged definition is compared C against C by the gate;
one anywhere else is listed as not judged and never read as `preserves`.
How a file is taken: `whole` (every definition runs), `in scope` (the
named ones), `extracted` (definitions compiled verbatim, read by those in
scope), `header` (judged through the build), `not compiled`.

EXAMPLES:
    cargo xtask scope
    cargo xtask scope --kernel all --format json | jq '.[].files[] | select(.how != \"not compiled\") | .path'
    cargo xtask scope --kernel all --check > /dev/null   # c-shim/unjudged.toml, both ways

Each definition of sdma.c, pio.c and iowait.c not judged is listed with why
in c-shim/unjudged.toml (`not yet` or `cannot` run in userspace); the
statement prints the reasons.

EXIT STATUS:
    0  the statement was written (with --check: and agrees with the list)
    1  with --check: the trees and c-shim/unjudged.toml part
    2  a tree could not be opened
";
