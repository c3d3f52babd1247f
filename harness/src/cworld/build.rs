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

use fs_err as fs;
use std::collections::BTreeMap;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::kernel::cscan;
use crate::kernel::{cache_dir, KernelTree};
use crate::sandbox::{Limits, Sandbox, Spec};

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

/// The parsed `c-shim/boundary.toml`.
#[derive(Debug, Deserialize)]
pub struct Manifest {
    pub upstream: Upstream,
    pub mock: BTreeMap<String, Mock>,
    #[serde(default)]
    pub world: BTreeMap<String, String>,
    pub compiler: CompilerSymbols,
}

/// What the compiler may make upstream objects import.
#[derive(Debug, Deserialize)]
pub struct CompilerSymbols {
    pub symbols: Vec<String>,
    pub prefixes: Vec<String>,
    pub why: String,
}

#[derive(Debug, Deserialize)]
pub struct Upstream {
    pub compile: Vec<Compiled>,
    pub extract: Vec<Extracted>,
}

#[derive(Debug, Deserialize)]
pub struct Compiled {
    pub file: String,
    pub why: String,
}

#[derive(Debug, Deserialize)]
pub struct Extracted {
    pub file: String,
    pub symbols: Vec<String>,
    pub why: String,
}

#[derive(Debug, Deserialize)]
pub struct Mock {
    pub file: String,
    pub why: String,
}

/// The project's `c-shim` directory.
pub fn cshim_dir() -> PathBuf {
    // Canonical: the sandbox shows c-shim alone, not harness/ to go up from.
    crate::project_path("c-shim")
}

impl Manifest {
    pub fn load() -> Result<Manifest> {
        let path = cshim_dir().join("boundary.toml");
        let text =
            fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    /// The project's own C sources: the shim's files (every `.c` of
    /// `c-shim` itself: entry points, world builder, names, describers)
    /// and every mock file.
    pub fn shim_sources(&self) -> Vec<PathBuf> {
        let dir = cshim_dir();
        let mut files: Vec<PathBuf> = self.mock.values().map(|m| dir.join(&m.file)).collect();
        if let Ok(rd) = fs::read_dir(&dir) {
            files.extend(
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "c")),
            );
        }
        files.sort();
        files.dedup();
        files
    }
}

/// How to build a world.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Build with AddressSanitizer and UndefinedBehaviorSanitizer.
    pub sanitize: bool,
    /// Build with gcov instrumentation (`--coverage`).
    pub coverage: bool,
    /// Build for libFuzzer (clang, `-fsanitize=fuzzer-no-link`): the
    /// world's edges feed the fuzzer; the sancov callbacks come from the
    /// fuzz binary, so the link allows them undefined.
    pub fuzz: bool,
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
    pub so: PathBuf,
    pub dir: PathBuf,
    pub tree: KernelTree,
    /// How it was built (workers preload ASan for a sanitizer world, let a
    /// coverage world write its counters, and scale the call limit).
    pub opts: BuildOptions,
}

fn gcc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "gcc".into())
}

fn compiler(opts: &BuildOptions) -> String {
    if opts.fuzz {
        std::env::var("HFI1_FUZZ_CC").unwrap_or_else(|_| "clang".into())
    } else {
        gcc()
    }
}

fn compiler_include_dir(cc: &str) -> Result<PathBuf> {
    let out = Command::new(cc)
        .arg("-print-file-name=include")
        .output()
        .with_context(|| format!("running {cc} (is a C compiler installed?)"))?;
    let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !p.join("stddef.h").is_file() {
        bail!(
            "{cc} -print-file-name=include gave {}, which has no stddef.h",
            p.display()
        );
    }
    Ok(p)
}

fn compiler_version() -> String {
    Command::new(gcc())
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// The files of a tree whose content goes into its world, relative to the
/// tree's root: an edit anywhere else is not judged.
pub fn tree_inputs(tree: &KernelTree) -> Result<Vec<String>> {
    let manifest = Manifest::load()?;
    Ok(inputs(tree, &manifest)?
        .into_iter()
        .filter_map(|p| {
            p.strip_prefix(&tree.root)
                .ok()
                .map(|r| r.display().to_string())
        })
        .collect())
}

/// Every file whose content goes into the world, for the cache key.
fn inputs(tree: &KernelTree, manifest: &Manifest) -> Result<Vec<PathBuf>> {
    let mut files = vec![tree.path("Makefile")];
    for c in &manifest.upstream.compile {
        files.push(tree.path(&c.file));
    }
    for e in &manifest.upstream.extract {
        files.push(tree.path(&e.file));
    }
    for dir in [
        "drivers/infiniband/hw/hfi1",
        "drivers/infiniband/sw/rdmavt",
        "include/rdma",
        "include/uapi/rdma",
        // A composed vendor tree's own headers (kernel/overlay.rs).
        "overlay",
    ] {
        if !tree.path(dir).exists() {
            continue;
        }
        walk(&tree.path(dir), &mut |p| {
            if p.extension().is_some_and(|x| x == "h") {
                files.push(p.to_owned());
            }
        })?;
    }
    walk(&cshim_dir(), &mut |p| {
        if p.extension()
            .is_some_and(|x| x == "h" || x == "c" || x == "toml")
        {
            files.push(p.to_owned());
        }
    })?;
    files.sort();
    files.dedup();
    Ok(files)
}

/// Every file below `dir`, sorted. Symbolic links are not followed into
/// directories (a tree's link to `/` would walk the whole machine); a link
/// is listed as a file, and reading it checks where it leads.
fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) -> Result<()> {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            walk(&p, f)?;
        } else {
            f(&p);
        }
    }
    Ok(())
}

/// A 64-bit FNV-1a hash: stable across Rust releases, unlike `DefaultHasher`.
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x100000001b3);
        }
    }
}

fn cache_key(tree: &KernelTree, manifest: &Manifest, opts: &BuildOptions) -> Result<String> {
    let mut h = Fnv(0xcbf29ce484222325);
    h.write(compiler_version().as_bytes());
    // The recipe itself: a change to how worlds are built rebuilds them.
    h.write(include_str!("build.rs").as_bytes());
    h.write(format!("{opts:?}").as_bytes());
    if let Some(o) = &tree.overlay {
        // The overlay's flags, with paths relative to the tree.
        let rel = |p: &PathBuf| {
            p.strip_prefix(&tree.root)
                .unwrap_or(p)
                .display()
                .to_string()
        };
        let inc: Vec<String> = o.include.iter().map(rel).collect();
        let force: Vec<String> = o.force_include.iter().map(rel).collect();
        h.write(format!("overlay {inc:?} {force:?} {:?}", o.defines).as_bytes());
    }
    if opts.coverage {
        // A coverage world is bound to its tree's place: gcov notes the
        // sources' absolute paths, which lcov and genhtml read back. Two
        // copies of one tree (a gate's scratch copy and the cached tree)
        // must not share one.
        h.write(tree.root.to_string_lossy().as_bytes());
    }
    for f in inputs(tree, manifest)? {
        // Paths relative to their root, so a copied tree hashes the same.
        let rel = f
            .strip_prefix(&tree.root)
            .or_else(|_| f.strip_prefix(cshim_dir()))
            .unwrap_or(&f);
        h.write(rel.to_string_lossy().as_bytes());
        // Tree files are untrusted: read only regular files inside it.
        let bytes = if f.starts_with(&tree.root) {
            crate::kernel::read_tree_file(&tree.root, &f)?
        } else {
            fs::read(&f).with_context(|| format!("reading {}", f.display()))?
        };
        h.write(&bytes);
    }
    Ok(format!("{:016x}", h.finish()))
}

/// Lays out the include directories: only `rdma/` of the tree's `include/`
/// and `include/uapi/` is visible, never its `linux/` or `asm/`.
fn stage(tree: &KernelTree, dir: &Path) -> Result<PathBuf> {
    let stage = dir.join("stage");
    let _ = fs::remove_dir_all(&stage);
    for (link, target) in [
        ("include/rdma", "include/rdma"),
        ("include/uapi/rdma", "include/uapi/rdma"),
        ("uapi/rdma", "include/uapi/rdma"),
    ] {
        let l = stage.join(link);
        fs::create_dir_all(l.parent().context("stage parent")?)?;
        std::os::unix::fs::symlink(tree.path(target), &l)
            .with_context(|| format!("linking {}", l.display()))?;
    }
    Ok(stage)
}

/// Writes the translation unit holding the extracted upstream definitions.
fn write_extract_unit(tree: &KernelTree, manifest: &Manifest, dir: &Path) -> Result<PathBuf> {
    let mut unit = String::from(
        "// SPDX-License-Identifier: GPL-2.0\n\
         /* Generated by harness/src/cworld/build.rs from c-shim/boundary.toml. */\n\
         #include <linux/module.h>\n\
         #include <rdma/rdma_vt.h>\n\
         #include <rdma/rdmavt_qp.h>\n\
         #include \"hfi.h\"\n\
         #include \"qp.h\"\n\
         #include \"sdma.h\"\n\
         #include \"pio.h\"\n\
         #include \"trace.h\"\n\n",
    );
    for e in &manifest.upstream.extract {
        let path = tree.path(&e.file);
        let src = tree.read_to_string(&path)?;
        for sym in &e.symbols {
            let d = cscan::extract(&src, sym)
                .with_context(|| format!("{}: extracting {sym}", path.display()))?;
            unit.push_str(&format!("#line {} \"{}\"\n", d.line, path.display()));
            unit.push_str(&d.text);
            unit.push_str("\n\n");
        }
    }
    let out = dir.join("upstream_extract.c");
    fs::write(&out, unit)?;
    Ok(out)
}

/// Builds (or finds in the cache) the C world of `tree`.
pub fn build(tree: &KernelTree, opts: &BuildOptions) -> Result<BuiltWorld> {
    build_cached(tree, opts).map_err(crate::kernel::with_cache_hint)
}

fn build_cached(tree: &KernelTree, opts: &BuildOptions) -> Result<BuiltWorld> {
    let manifest = Manifest::load()?;
    let key = cache_key(tree, &manifest, opts)?;
    let dir = cache_dir()
        .join("worlds")
        .join(format!("{}-{key}", tree.version));
    let so = dir.join("libhfi1world.so");
    let built = |so: PathBuf, dir: PathBuf| BuiltWorld {
        so,
        dir,
        tree: tree.clone(),
        opts: opts.clone(),
    };
    if verified(&so) {
        mark_used(&dir);
        return Ok(built(so, dir));
    }
    // One builder per world: others wait, then find it built.
    let _lock = crate::kernel::cache_lock::FileLock::acquire(
        &cache_dir().join("worlds").join(format!(".lock-{key}")),
    )?;
    if verified(&so) {
        return Ok(built(so, dir));
    }
    if dir.exists() {
        // Damaged (truncated, altered, half-written): build it again.
        crate::kernel::progress(&format!(
            "the cached world {} does not match its checksum: rebuilding it",
            dir.display()
        ));
        fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    let sb = Sandbox::get()?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // gcov records the object's absolute path at compile time and writes
    // its counters next to it: coverage worlds are built in place.
    let tmp = if opts.coverage {
        dir.clone()
    } else {
        dir.with_file_name(format!(".{name}.tmp{}", std::process::id()))
    };
    if !opts.coverage {
        let _ = fs::remove_dir_all(&tmp);
    }
    fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let result = compile_into(sb, tree, &manifest, opts, &tmp).and_then(|()| {
        let so = tmp.join("libhfi1world.so");
        let sum = checksum(&so)?;
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

/// Notes that a cached world was used (for [`evict`]); a read-only cache
/// keeps no such note, which is fine.
fn mark_used(dir: &Path) {
    let _ = fs::File::create(dir.join("used"));
}

/// When a world was last used: its `used` note, or when it was built.
fn last_used(dir: &Path) -> std::time::SystemTime {
    fs::metadata(dir.join("used"))
        .or_else(|_| fs::metadata(dir.join("libhfi1world.so")))
        .and_then(|m| m.modified())
        .unwrap_or(std::time::UNIX_EPOCH)
}

fn size_of(dir: &Path) -> u64 {
    let mut n = 0;
    let _ = walk(dir, &mut |p| {
        n += fs::symlink_metadata(p).map(|m| m.len()).unwrap_or(0)
    });
    n
}

/// The cap on the cache's worlds (`HFI1_WORLDS_MAX_MB`, default 2048 MiB).
pub fn worlds_cap() -> u64 {
    std::env::var("HFI1_WORLDS_MAX_MB")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(2048)
        << 20
}

/// Removes the least recently used worlds of the cache until they take at
/// most `cap` bytes (a patch bot builds a world per patch, for weeks).
/// Worlds used in the last minute stay whatever the cap: they may be in
/// use. Returns how many were removed.
pub fn evict(cap: u64) -> usize {
    evict_in(&cache_dir().join("worlds"), cap)
}

/// [`evict`] in the worlds directory `root`.
pub fn evict_in(root: &Path, cap: u64) -> usize {
    let Ok(rd) = fs::read_dir(root) else {
        return 0;
    };
    let mut worlds: Vec<(std::time::SystemTime, u64, PathBuf)> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .map(|p| (last_used(&p), size_of(&p), p))
        .collect();
    worlds.sort();
    let mut total: u64 = worlds.iter().map(|w| w.1).sum();
    let recent = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    let mut removed = 0;
    for (used, size, p) in worlds {
        if total <= cap || used > recent {
            break;
        }
        if fs::remove_dir_all(&p).is_ok() {
            total -= size;
            removed += 1;
        }
    }
    removed
}

/// The FNV-1a hash of a file, as hex.
fn checksum(path: &Path) -> Result<String> {
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let mut h = Fnv(0xcbf29ce484222325);
    h.write(&bytes);
    Ok(format!("{:016x} {}\n", h.finish(), bytes.len()))
}

/// A cached world is used only if its object hashes as when it was built.
fn verified(so: &Path) -> bool {
    let Ok(want) = fs::read_to_string(so.with_extension("so.sum")) else {
        return false;
    };
    checksum(so).is_ok_and(|got| got == want)
}

/// The absolute path of a program named on PATH (or already absolute).
fn resolve(program: &std::ffi::OsStr) -> PathBuf {
    let p = Path::new(program);
    if p.is_absolute() {
        return p.to_owned();
    }
    crate::sandbox::which(&p.to_string_lossy()).unwrap_or_else(|| p.to_owned())
}

/// `cmd` (a program and its arguments) run in the sandbox of `spec`.
fn contained(sb: &Sandbox, spec: &Spec, cmd: &Command) -> Result<Command> {
    let mut c = sb.command(spec, &resolve(cmd.get_program()))?;
    c.args(cmd.get_args());
    Ok(c)
}

fn compile_into(
    sb: &Sandbox,
    tree: &KernelTree,
    manifest: &Manifest,
    opts: &BuildOptions,
    dir: &Path,
) -> Result<()> {
    // What the compiler sees: the tree and c-shim read-only, this build's
    // directory writable, the toolchain.
    let mut spec = Spec::new(Limits::TOOL)
        .read_only(&tree.root)
        .read_only(cshim_dir())
        .writable(dir)
        .cwd(dir);
    let cc = resolve(std::ffi::OsStr::new(&compiler(opts)));
    if !cc.starts_with("/usr") {
        if let Some(d) = cc.parent() {
            spec = spec.read_only(d);
        }
    }
    let stage = stage(tree, dir)?;
    let kcompat = cshim_dir().join("kcompat/include");
    let hfi1 = tree.path("drivers/infiniband/hw/hfi1");
    let extract_unit = write_extract_unit(tree, manifest, dir)?;

    // (source, object name): upstream objects are named upstream-*.o, the
    // project's own shim-*.o (tests tell them apart by name).
    let mut units: Vec<(PathBuf, String)> = manifest
        .upstream
        .compile
        .iter()
        .map(|c| (tree.path(&c.file), unit_name("upstream", &c.file)))
        .collect();
    units.push((extract_unit, "upstream-extract.o".into()));
    for f in manifest.shim_sources() {
        let rel = f
            .strip_prefix(cshim_dir())
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| f.display().to_string());
        let name = unit_name("shim", &rel);
        units.push((f, name));
    }

    let target = env!("HARNESS_TARGET");
    let mut b = cc::Build::new();
    // A vendor overlay's header directories come first, as its Makefile's
    // `-I${M}/include` does (its `#include_next` reaches the base's).
    if let Some(o) = &tree.overlay {
        for d in &o.include {
            b.include(d);
        }
    }
    b.cargo_metadata(false)
        .cargo_warnings(false)
        .extra_warnings(false)
        .target(target)
        .host(target)
        .opt_level(2)
        .debug(true)
        .pic(true)
        .compiler(compiler(opts))
        .out_dir(dir.join("obj"))
        .flag("-std=gnu11")
        .flag("-nostdinc")
        .flag("-ffreestanding")
        .flag("-isystem")
        .flag(compiler_include_dir(&compiler(opts))?.display().to_string())
        .include(&kcompat)
        .include(kcompat.join("uapi"))
        .include(stage.join("include"))
        .include(stage.join("uapi"))
        .include(&hfi1)
        .include(cshim_dir())
        .include(cshim_dir().join("mocks"))
        .flag("-include")
        .flag(kcompat.join("linux/kconfig.h").display().to_string())
        .define("__KERNEL__", None)
        .define("KBUILD_MODNAME", Some("\"hfi1\""))
        .define(
            "SHIM_KERNEL_VERSION",
            Some(format!("\"{}\"", tree.version).as_str()),
        )
        .define(
            "SHIM_LINUX_VERSION_CODE",
            Some(
                (tree.version.version << 16
                    | tree.version.patchlevel << 8
                    | tree.version.sublevel.min(255))
                .to_string()
                .as_str(),
            ),
        )
        .flag("-fno-common")
        .flag("-fshort-wchar")
        .flag("-Wall")
        .flag("-Wno-address-of-packed-member")
        .flag("-Wno-unused-function")
        .flag("-Werror=implicit-function-declaration")
        .flag("-Werror=incompatible-pointer-types")
        .flag("-Werror=int-conversion");
    for f in tree.semantic_cflags()? {
        b.flag(&f);
    }
    if let Some(o) = &tree.overlay {
        for f in &o.force_include {
            b.flag("-include").flag(f.display().to_string());
        }
        for d in &o.defines {
            match d.split_once('=') {
                Some((k, v)) => b.define(k, Some(v)),
                None => b.define(d, None),
            };
        }
    }
    if opts.sanitize {
        // Upstream UB aborts the worker: a crash finding for that vector,
        // with the sanitizer's report.
        b.flag("-fsanitize=address,undefined")
            .flag("-fno-omit-frame-pointer")
            .flag("-fno-sanitize-recover=undefined");
    }
    if opts.coverage {
        // -O0: gcov attributes an arc to the line that tests it only when
        // nothing is inlined or merged (gcc's gcov manual: "compile without
        // optimization"); at -O2 the branches of static inline helpers
        // land on their callers' lines. The conformance verdicts of a
        // coverage run are still computed (collect() notes disagreements).
        b.flag("--coverage").flag("-O0");
    }
    if opts.fuzz {
        // The world's flexible-array storage is a GNU extension clang
        // names; the kernel is built with it.
        b.flag("-fsanitize=fuzzer-no-link")
            .flag("-Wno-gnu-variable-sized-type-not-at-end");
    }
    let warn = supported(sb, &spec, &b, dir, tree.warning_cflags()?)?;
    let objects = compile_units(sb, &spec, &b, &warn, &units, &dir.join("obj"), &tree.root)?;
    if !opts.fuzz {
        check_boundary(sb, &spec, manifest, &objects, tree)?;
    }

    let so = dir.join("libhfi1world.so");
    let mut link = Command::new(compiler(opts));
    link.arg("-shared").arg("-o").arg(&so).args(&objects);
    if !opts.fuzz {
        // An unresolved symbol is a link error that names it.
        link.arg("-Wl,-z,defs").arg("-Wl,--no-undefined");
    }
    if opts.sanitize {
        link.arg("-fsanitize=address,undefined");
    }
    if opts.coverage {
        link.arg("--coverage");
    }
    let out = contained(sb, &spec, &link)?
        .output()
        .context("running the linker")?;
    if !out.status.success() {
        bail!(
            "linking the C world of {} failed (a symbol upstream needs is neither compiled \
             nor mocked: add it to c-shim/boundary.toml and c-shim/mocks):\n{}",
            tree.root.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// Compiles each unit with the flags of `b` (the `cc` crate's view of the
/// compiler), two at a time, and returns the objects. A failure carries the
/// compiler's own message, which names the file and line.
fn compile_units(
    sb: &Sandbox,
    spec: &Spec,
    b: &cc::Build,
    warn: &[String],
    units: &[(PathBuf, String)],
    obj: &Path,
    root: &Path,
) -> Result<Vec<PathBuf>> {
    fs::create_dir_all(obj)?;
    let tool = b
        .try_get_compiler()
        .map_err(|e| anyhow::anyhow!("no C compiler: {e}"))?;
    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let mut objects = vec![];
    let mut errors = vec![];
    let mut warnings = vec![];
    for chunk in units.chunks(jobs) {
        let mut running = vec![];
        for (u, name) in chunk {
            let o = obj.join(name);
            let mut bare = tool.to_command();
            if name_is_upstream(&o) {
                // The tree's own warning flags (its Makefiles', read by
                // `kernel::kbuild`), for the gate's report of warnings a patch
                // adds: after the project's, so they win.
                bare.args(warn);
            }
            bare.arg("-c").arg(u).arg("-o").arg(&o);
            let mut cmd = contained(sb, spec, &bare)?;
            cmd.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            let child = cmd
                .spawn()
                .with_context(|| format!("starting {:?}", tool.path()))?;
            running.push((u.clone(), o, child));
        }
        for (u, o, child) in running {
            let out = child.wait_with_output()?;
            let msg = String::from_utf8_lossy(&out.stderr).into_owned();
            if !out.status.success() {
                errors.push(format!("{}:\n{msg}", u.display()));
                continue;
            }
            // Warnings in upstream code are the tree's business (kept for
            // the gate, which reports those a patch adds); in the project's
            // own code they are errors.
            if name_is_upstream(&o) {
                warnings.extend(
                    msg.lines()
                        .filter(|l| l.contains(": warning: "))
                        .map(str::to_owned),
                );
            }
            if !msg.trim().is_empty() && !u.starts_with(root) && !name_is_upstream(&o) {
                errors.push(format!(
                    "{} (warnings are errors in c-shim):\n{msg}",
                    u.display()
                ));
            }
            objects.push(o);
        }
    }
    if !errors.is_empty() {
        bail!(
            "compiling the C world of {} failed:\n{}",
            root.display(),
            errors.join("\n")
        );
    }
    warnings.sort();
    warnings.dedup();
    let mut text = warnings.join("\n");
    text.push('\n');
    fs::write(obj.join("../warnings.txt"), text.trim_start())
        .with_context(|| format!("writing {}", obj.join("../warnings.txt").display()))?;
    Ok(objects)
}

/// The flags of `want` this compiler knows: kbuild's `cc-option` drops a
/// flag the compiler rejects, and so does this (one probe compile; a
/// rejected flag is named in the compiler's error).
fn supported(
    sb: &Sandbox,
    spec: &Spec,
    b: &cc::Build,
    out_dir: &Path,
    mut want: Vec<String>,
) -> Result<Vec<String>> {
    let tool = b
        .try_get_compiler()
        .map_err(|e| anyhow::anyhow!("no C compiler: {e}"))?;
    let empty = out_dir.join("probe.c");
    fs::write(&empty, "").with_context(|| format!("writing {}", empty.display()))?;
    for _ in 0..4 {
        // The bare compiler: the world's own flags (includes, a vendor's
        // force-included header) are not on trial here.
        let mut probe = Command::new(tool.path());
        probe
            .args(&want)
            .arg("-c")
            .arg(&empty)
            .arg("-o")
            .arg(out_dir.join("probe.o"));
        let out = contained(sb, spec, &probe)?
            .output()
            .context("probing the compiler's warning flags")?;
        if out.status.success() {
            return Ok(want);
        }
        let msg = String::from_utf8_lossy(&out.stderr);
        let bad: Vec<String> = want
            .iter()
            .filter(|f| {
                msg.lines().any(|l| {
                    l.contains("unrecognized") && l.contains("error") && l.contains(f.as_str())
                })
            })
            .cloned()
            .collect();
        if bad.is_empty() {
            bail!("the compiler rejects the tree's warning flags {want:?}:\n{msg}");
        }
        want.retain(|f| !bad.contains(f));
    }
    Ok(want)
}

/// `upstream-qp.o`, `shim-mocks-hfi1.o`: an object name from a path.
fn unit_name(kind: &str, rel: &str) -> String {
    let stem = rel.trim_end_matches(".c").replace('/', "-");
    let short = stem.rsplit("-").next().unwrap_or(&stem).to_owned();
    match kind {
        // Upstream files are named by their base name (qp, iowait); two
        // upstream files of one name would collide, which the manifest
        // test catches.
        "upstream" => format!("upstream-{short}.o"),
        _ => format!("{kind}-{stem}.o"),
    }
}

fn name_is_upstream(o: &Path) -> bool {
    o.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("upstream-"))
}

/// Global symbols of an object: the undefined ones with `-u`, the defined
/// ones with `--defined-only -g`. `nm` reads untrusted objects: it runs in
/// the sandbox too.
fn nm(sb: &Sandbox, spec: &Spec, args: &[&str], obj: &Path) -> Result<Vec<String>> {
    let mut bare = Command::new("nm");
    bare.args(args).arg(obj);
    let out = contained(sb, spec, &bare)?
        .output()
        .context("running nm (binutils)")?;
    if !out.status.success() {
        bail!(
            "nm {}: {}",
            obj.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last().map(str::to_owned))
        .collect())
}

/// Upstream links only to the boundary: every symbol an upstream object
/// imports is defined by upstream itself, or listed in `boundary.toml` as a
/// mock, a world variable or a compiler symbol. Anything else (the C
/// library's `open`, `system`, `fork`, `socket` ...) is [`CannotJudge`],
/// naming the symbol and the upstream lines that use it.
fn check_boundary(
    sb: &Sandbox,
    spec: &Spec,
    manifest: &Manifest,
    objects: &[PathBuf],
    tree: &KernelTree,
) -> Result<()> {
    let upstream: Vec<&PathBuf> = objects.iter().filter(|o| name_is_upstream(o)).collect();
    let mut defined = std::collections::BTreeSet::new();
    let mut needed: BTreeMap<String, Vec<&PathBuf>> = BTreeMap::new();
    for o in &upstream {
        defined.extend(nm(sb, spec, &["--defined-only", "-g"], o)?);
        for s in nm(sb, spec, &["-u"], o)? {
            needed.entry(s).or_default().push(o);
        }
    }
    let allowed = |s: &str| {
        defined.contains(s)
            || manifest.mock.contains_key(s)
            || manifest.world.contains_key(s)
            || manifest.compiler.symbols.iter().any(|c| c == s)
            || manifest.compiler.prefixes.iter().any(|p| s.starts_with(p))
    };
    let outside: Vec<(&String, &Vec<&PathBuf>)> =
        needed.iter().filter(|(s, _)| !allowed(s)).collect();
    if outside.is_empty() {
        return Ok(());
    }
    let mut msg = format!(
        "upstream code of {} needs {} symbol(s) that neither kcompat nor c-shim/boundary.toml \
         provides (a C world links upstream only to the boundary):",
        tree.root.display(),
        outside.len()
    );
    for (sym, objs) in &outside {
        let mut wher: Vec<String> = vec![];
        for o in objs.iter() {
            wher.extend(uses(sb, spec, o, sym, &tree.root));
        }
        wher.sort();
        wher.dedup();
        if wher.is_empty() {
            wher = objs.iter().map(|o| o.display().to_string()).collect();
        }
        msg.push_str(&format!("\n  {sym}: used at {}", wher.join(", ")));
    }
    msg.push_str(
        "\nIf upstream really calls it, it is a boundary the project lacks: add a mock to \
         c-shim/mocks and c-shim/boundary.toml with the reason (or a kcompat header).",
    );
    Err(CannotJudge(msg).into())
}

/// The source lines of `obj` that refer to `sym`, from `objdump -dr -l`
/// (the last `file:line` seen before each relocation naming it), with the
/// tree's root left out.
fn uses(sb: &Sandbox, spec: &Spec, obj: &Path, sym: &str, root: &Path) -> Vec<String> {
    let mut bare = Command::new("objdump");
    bare.args(["-dr", "-l", "--no-show-raw-insn"]).arg(obj);
    let Ok(out) = contained(sb, spec, &bare).and_then(|mut c| Ok(c.output()?)) else {
        return vec![];
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut at = String::new();
    let mut found = vec![];
    for l in text.lines() {
        let t = l.trim();
        if t.starts_with('/')
            && t.rsplit_once(':').is_some_and(|(_, n)| {
                n.split_whitespace()
                    .next()
                    .is_some_and(|n| n.parse::<u32>().is_ok())
            })
        {
            at = t.split_whitespace().next().unwrap_or(t).to_owned();
        } else if t.contains("R_X86_64") || t.contains("R_AARCH64") {
            let target = t.split_whitespace().last().unwrap_or("");
            let name = target.split(['-', '+']).next().unwrap_or("");
            if name == sym && !at.is_empty() {
                let rel = at
                    .strip_prefix(&format!("{}/", root.display()))
                    .unwrap_or(&at);
                found.push(rel.to_owned());
            }
        }
    }
    found
}
