//! Compiles a C world: one shared object per kernel tree.
//!
//! The object holds the tree's unmodified `qp.c` and `iowait.c`, the
//! definitions `c-shim/boundary.toml` extracts from other upstream files,
//! and the project's `c-shim` (world builder and mocks), all compiled
//! against `c-shim/kcompat` with `-nostdinc`. A new tree costs one C
//! compile and no cargo rebuild; a tree already built is found in the cache
//! by the hash of every input, and used only when its shared object still
//! hashes as it did when it was built.
//!
//! Every compiler, linker and `nm` run happens in the
//! [sandbox](crate::sandbox): the tree is untrusted input. Before the link,
//! the undefined symbols of the upstream objects are checked against the
//! boundary (`c-shim/boundary.toml`): upstream links to nothing else.
//!
//! A build may replace upstream definitions by other text
//! ([`BuildOptions::replaced`]: a mutant schemata world's variants and
//! dispatchers): a file compiled whole is then compiled from a copy with
//! the definitions replaced, in the world's directory, finding its
//! includes as the file would; an extracted definition is replaced in the
//! extracted unit.
//!
//! By job: `manifest` reads the boundary, `tools` runs the toolchain in
//! the sandbox, `compile` compiles and links, `boundary` checks what
//! upstream imports, `cache` keys, checks and evicts the cached worlds.

mod boundary;
mod cache;
mod compile;
mod includes;
mod manifest;
mod objcache;
mod preprocess;
mod tools;
pub use preprocess::{compiled_lines, CompiledLines, FileLines, Site};
pub use tools::{llvm_tool, measuring_cc, measuring_cc_major};

use fs_err as fs;
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::kernel::{cache_dir, KernelTree};
use crate::sandbox::Sandbox;

pub use cache::{evict, evict_in, worlds_cap, InUse, COUNTERS_LOCK, IN_USE_LOCK};
pub use manifest::{cshim_dir, Compiled, CompilerSymbols, Extracted, Manifest, Mock, Upstream};

/// A tree the harness cannot judge, through no fault of its own code
/// paths: it needs something the boundary does not provide (a symbol), or
/// its world cannot be loaded or run. Reported as `cannot-judge`, exit 2.
#[derive(Debug)]
pub struct CannotJudge(pub String);

impl std::fmt::Display for CannotJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot judge: {}", self.0)
    }
}

impl std::error::Error for CannotJudge {}

/// How to build a world.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Build with AddressSanitizer and UndefinedBehaviorSanitizer.
    pub sanitize: bool,
    /// Build with gcov instrumentation (`--coverage`, -O0).
    pub coverage: bool,
    /// With `coverage` or `measure`, instrument only the units compiled from these
    /// tree files (tree-relative; a file extracted from goes with the
    /// extracted unit); the others are compiled as a plain world's are.
    /// `None`: every unit.
    pub instrument: Option<Vec<String>>,
    /// Build for libFuzzer (clang, `-fsanitize=fuzzer-no-link`): the
    /// world's edges feed the fuzzer; the sancov callbacks come from the
    /// fuzz binary, so the link allows them undefined.
    pub fuzz: bool,
    /// Build the measuring instrument (`cargo xtask coverage --mcdc`):
    /// clang 19 or later ([`tools::compiler`]) with source-based coverage
    /// and MC/DC (`-fprofile-instr-generate -fcoverage-mapping
    /// -fcoverage-mcdc`, -O0) in the units `instrument` selects; workers
    /// write their profiles under the world's `profiles/`. The gcc world
    /// stays the reference: this one only measures.
    pub measure: bool,
    /// Upstream definitions replaced by other text (mutant schemata: a
    /// function's variants and the dispatcher that picks one), wherever
    /// the world takes the definition from: a file compiled whole is
    /// compiled from a copy with the definition replaced, an extracted
    /// one is replaced in the extracted unit.
    pub replaced: std::sync::Arc<[Replaced]>,
}

/// An upstream definition of a world replaced by other text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The file the world takes the definition from, its path in the tree.
    pub file: String,
    /// The definition's name.
    pub name: String,
    /// What replaces the definition's text: C with its own `#line`
    /// directives (the lines after it keep theirs).
    pub text: String,
}

/// A measuring world's instrumented upstream units also call the
/// comparison recorder (`c-shim/measure/cmp.c`) before every integer
/// comparison with both operands (SanitizerCoverage's trace-cmp, read by
/// `judge::boundaries`). SanitizerCoverage instruments nothing without a
/// kind of coverage beside it: `func,inline-bool-flag` is the cheapest
/// (a flag per function, no callback per edge).
pub const TRACE_CMP_FLAGS: [&str; 1] = ["-fsanitize-coverage=func,inline-bool-flag,trace-cmp"];

/// Where a measuring world's workers write the comparison recorder's
/// tables (`c-shim/measure/cmp.h`'s `CMP_DIR_ENV`): the world's
/// `profiles/`, beside the profiles.
pub const CMP_DIR_ENV: &str = "HFI1_CMP_DIR";

impl BuildOptions {
    /// Whether some units carry counters (gcov's or clang's).
    pub fn instruments(&self) -> bool {
        self.coverage || self.measure
    }
}

impl BuiltWorld {
    /// The compiler's warnings about upstream code (`file:line:col:
    /// warning: …`), as the build wrote them.
    pub fn warnings(&self) -> Vec<String> {
        fs::read_to_string(self.dir.join("warnings.txt"))
            .map(|t| {
                t.lines()
                    .filter(|l| !l.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// A compiled C world on disk.
#[derive(Debug, Clone)]
pub struct BuiltWorld {
    /// The shared object.
    pub so: PathBuf,
    /// Its directory in the cache (objects, warnings, kept digests).
    pub dir: PathBuf,
    /// The tree it was built from.
    pub tree: KernelTree,
    /// How it was built (workers preload ASan for a sanitizer world, let a
    /// coverage world write its counters, and scale the call limit).
    pub opts: BuildOptions,
    /// A variable of the world its workers set after loading it, before
    /// any call (a mutant schemata world's switch): `(symbol, value)`.
    /// Not part of the build: one world, many settings.
    pub switch: Option<(String, i32)>,
    /// The functions of the manifest's `optional` the tree does not
    /// define ([`Manifest::absent`]): the world has no call of them.
    pub absent: Vec<String>,
    /// Held while any copy of this handle lives: no eviction removes the
    /// world meanwhile.
    pub in_use: InUse,
}

impl BuiltWorld {
    /// Whether the tree lacks upstream function `f` (a vector of it is
    /// skipped on this world: there is nothing to run).
    pub fn lacks(&self, f: crate::model::types::Func) -> bool {
        lacks_in(&self.absent, f)
    }
}

/// Whether `f` is among a tree's `absent` functions (by upstream name).
pub(crate) fn lacks_in(absent: &[String], f: crate::model::types::Func) -> bool {
    absent.iter().any(|n| n == f.name())
}

impl BuiltWorld {
    /// This world with its workers setting `symbol` to `value` (an `int`
    /// the world defines) after loading it.
    pub fn switched(&self, symbol: &str, value: i32) -> BuiltWorld {
        BuiltWorld {
            switch: Some((symbol.to_owned(), value)),
            ..self.clone()
        }
    }
}

impl BuiltWorld {
    /// A world that was never built, in `dir` (its shared object would be
    /// `dir/libhfi1world.so`), for tests of what reads a world's paths.
    #[cfg(test)]
    pub(crate) fn unbuilt(dir: &std::path::Path) -> BuiltWorld {
        BuiltWorld {
            so: dir.join("libhfi1world.so"),
            dir: dir.to_owned(),
            tree: KernelTree {
                root: dir.to_owned(),
                version: crate::kernel::KernelVersion {
                    version: 6,
                    patchlevel: 12,
                    sublevel: 0,
                    extraversion: String::new(),
                },
                package: None,
                overlay: None,
            },
            opts: Default::default(),
            switch: None,
            absent: vec![],
            in_use: InUse::default(),
        }
    }
}

/// How a world is built, as reports describe it (a report's
/// [`Build`](crate::report::Build) holds it).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Recipe {
    /// The compiler as its `--version` names itself (`gcc (Debian
    /// 12.2.0-14) 12.2.0`).
    pub compiler: String,
    /// The program run (`gcc`, `$CC`, `clang` for fuzzing).
    pub command: String,
    /// The flags every unit is compiled with, without those naming a path
    /// (include directories, forced headers); upstream units add the
    /// tree's own warning flags.
    pub flags: Vec<String>,
    /// The target architecture (`x86_64`).
    pub architecture: String,
    /// The build's options: `plain`, or `sanitize`, `coverage`, `fuzz`,
    /// `measure`.
    pub config: String,
    /// The world's key in the cache: a hash of every input (tree files,
    /// c-shim, compiler, recipe, options).
    pub key: String,
}

/// The recipe of `tree`'s world built with `opts`; what cannot be found
/// out (a compiler that does not run, a tree that cannot be read) is
/// left empty.
pub fn recipe(tree: &KernelTree, opts: &BuildOptions) -> Recipe {
    let command = tools::compiler(opts);
    let mut config: Vec<&str> = [
        (opts.sanitize, "sanitize"),
        (opts.coverage, "coverage"),
        (opts.fuzz, "fuzz"),
        (opts.measure, "measure"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect();
    if config.is_empty() {
        config.push("plain");
    }
    Recipe {
        compiler: tools::version_of(&command)
            .lines()
            .next()
            .unwrap_or("")
            .to_owned(),
        flags: compile::cflags(tree, opts).unwrap_or_default(),
        architecture: env!("HARNESS_TARGET")
            .split('-')
            .next()
            .unwrap_or("")
            .to_owned(),
        config: config.join("+"),
        key: Manifest::load()
            .and_then(|m| cache::cache_key(tree, &m, opts))
            .unwrap_or_default(),
        command,
    }
}

/// sha256 (hex) over the path and content of every file of `tree` its
/// world is built from: the same code gives the same digest wherever the
/// tree is.
pub fn tree_digest(tree: &KernelTree) -> Result<String> {
    use sha2::{Digest, Sha256};
    let manifest = Manifest::load()?;
    let mut h = Sha256::new();
    for p in cache::world_inputs(tree, &manifest)? {
        let Ok(rel) = p.strip_prefix(&tree.root) else {
            continue; // c-shim's own files: not the tree's
        };
        h.update(rel.display().to_string().as_bytes());
        h.update([0]);
        let bytes = crate::kernel::read_tree_file(&tree.root, &p).unwrap_or_default();
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The files of a tree whose content goes into its world, relative to the
/// tree's root: an edit anywhere else is not judged.
pub fn tree_inputs(tree: &KernelTree) -> Result<Vec<String>> {
    let manifest = Manifest::load()?;
    Ok(cache::world_inputs(tree, &manifest)?
        .into_iter()
        .filter_map(|p| {
            p.strip_prefix(&tree.root)
                .ok()
                .map(|r| r.display().to_string())
        })
        .collect())
}

/// Builds (or finds in the cache) the C world of `tree`.
pub fn build(tree: &KernelTree, opts: &BuildOptions) -> Result<BuiltWorld> {
    build_cached(tree, opts).map_err(crate::kernel::with_cache_hint)
}

/// [`build`], its errors without the hint: the world found in the cache
/// if its checksum holds, else compiled (by one process at a time) into a
/// temporary directory and moved into place.
fn build_cached(tree: &KernelTree, opts: &BuildOptions) -> Result<BuiltWorld> {
    let manifest = Manifest::load()?;
    let key = cache::cache_key(tree, &manifest, opts)?;
    let dir = cache_dir()
        .join("worlds")
        .join(format!("{}-{key}", tree.version));
    let so = dir.join("libhfi1world.so");
    let absent = manifest.absent(tree)?;
    let built = |so: PathBuf, dir: PathBuf| BuiltWorld {
        in_use: InUse::take(&dir),
        so,
        dir,
        tree: tree.clone(),
        opts: opts.clone(),
        switch: None,
        absent: absent.clone(),
    };
    if cache::checksum_matches(&so) {
        cache::mark_used(&dir);
        return Ok(built(so, dir));
    }
    // One builder per world: others wait, then find it built.
    let _lock = crate::kernel::cache_lock::FileLock::acquire(
        &cache_dir().join("worlds").join(format!(".lock-{key}")),
    )?;
    if cache::checksum_matches(&so) {
        return Ok(built(so, dir));
    }
    if dir.exists() {
        // Damaged (truncated, altered, half-written): build it again.
        crate::kernel::progress(&format!(
            "the cached world {} does not match its checksum: rebuilding it",
            dir.display()
        ));
        // Not under a run measuring it (`judge::coverage::Counters`):
        // its counters and lock file go with the directory.
        let counters = dir.join(COUNTERS_LOCK);
        let _measured = match counters.exists() {
            true => Some(crate::kernel::cache_lock::FileLock::acquire(&counters)?),
            false => None,
        };
        fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    let sb = Sandbox::get()?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // gcov records the object's absolute path at compile time and writes
    // its counters next to it, clang's coverage mapping names the sources
    // by absolute path: instrumented worlds are built in place.
    let tmp = if opts.instruments() {
        dir.clone()
    } else {
        dir.with_file_name(format!(".{name}.tmp{}", std::process::id()))
    };
    if !opts.instruments() {
        let _ = fs::remove_dir_all(&tmp);
    }
    fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let result = compile::compile_into(sb, tree, &manifest, opts, &tmp).and_then(|()| {
        let so = tmp.join("libhfi1world.so");
        let sum = cache::checksum(&so)?;
        fs::write(tmp.join("libhfi1world.so.sum"), sum)
            .with_context(|| format!("writing the checksum of {}", so.display()))
    });
    if let Err(e) = result {
        // Keep the failed build for inspection, under a stable name.
        let failed = dir.with_file_name(format!("{name}.failed"));
        let _ = fs::remove_dir_all(&failed);
        let _ = fs::rename(&tmp, &failed);
        return Err(e);
    }
    if tmp == dir {
        return Ok(built(so, dir));
    }
    match fs::rename(&tmp, &dir) {
        Ok(()) => {}
        Err(_) if so.is_file() => {
            let _ = fs::remove_dir_all(&tmp);
        }
        Err(e) => return Err(e).with_context(|| format!("moving world to {}", dir.display())),
    }
    Ok(built(so, dir))
}
