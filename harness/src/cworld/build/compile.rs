//! Compiling and linking a world: the include directories staged, the
//! extracted definitions written out, every unit compiled in the sandbox
//! with the tree's own warning flags for upstream code, the boundary
//! checked, the shared object linked.

use fs_err as fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use super::boundary::{check_boundary, name_is_upstream};
use super::includes::kcompat_dir;
use super::manifest::{cshim_dir, Manifest};
use super::objcache;
use super::tools::{cc_base, compiler, compiler_include_dir, program_path, sandboxed};
use super::{BuildOptions, Replaced, TRACE_CMP_FLAGS};
use crate::kernel::{cscan, KernelTree};
use crate::sandbox::{Limits, Sandbox, Spec};

/// Compiles and links the world of `tree` in `dir`: its shared object is
/// `dir/libhfi1world.so`.
pub(super) fn compile_into(
    sb: &Sandbox,
    tree: &KernelTree,
    manifest: &Manifest,
    opts: &BuildOptions,
    dir: &Path,
) -> Result<()> {
    let spec = toolchain_spec(tree, opts, dir);
    let stage = stage_includes(tree, dir)?;
    let absent = manifest.absent(tree)?;
    let extract_unit = write_extract_unit(tree, manifest, (&opts.replaced, &absent), dir)?;
    let replaced = replaced_files(tree, opts, dir)?;
    let mut units = units(tree, manifest, extract_unit, &replaced);
    if opts.measure {
        units.extend(measure_units());
    }
    let mut b = cc_build(tree, opts, dir, &stage)?;
    add_option_flags(&mut b, tree, opts);
    // The shim's calls of the functions this tree lacks are compiled as
    // absent (calls.h's SHIM_ABSENT_CALL).
    for name in &absent {
        b.define(&format!("SHIM_ABSENT_{name}"), None);
    }
    let warn = supported_flags(sb, &spec, &b, dir, tree.warning_cflags()?)?;
    let plan = Plan {
        warn,
        // Objects of identical compiles are reused, but not instrumented
        // ones (bound to where they were compiled).
        places: objcache::Places::new(&tree.root, dir, &cshim_dir()),
        instrumented: instrumented(tree, manifest, opts, &units),
        counters: instrument_flags(opts),
        upstream_counters: if opts.measure { &TRACE_CMP_FLAGS } else { &[] },
        replaced,
    };
    let objects = compile_units(sb, &spec, &b, &plan, &units, (&dir.join("obj"), &tree.root))?;
    if !opts.fuzz {
        check_boundary(sb, &spec, manifest, &objects, tree)?;
    }
    link(
        sb,
        &spec,
        tree,
        opts,
        &objects,
        &dir.join("libhfi1world.so"),
    )
}

/// The flags every unit of `tree`'s world built with `opts` is compiled
/// with, as the `cc` crate hands them to the compiler, without those that
/// name a path (include directories, forced headers): what reports say
/// of a build. Upstream units add the tree's own warning flags.
pub(super) fn cflags(tree: &KernelTree, opts: &BuildOptions) -> Result<Vec<String>> {
    let scratch = std::env::temp_dir();
    let mut b = cc_build(tree, opts, &scratch, &scratch)?;
    add_option_flags(&mut b, tree, opts);
    let tool = b
        .try_get_compiler()
        .context("asking the cc crate for the compiler's flags")?;
    let mut out = vec![];
    let mut args = tool.args().iter().map(|a| a.to_string_lossy().into_owned());
    while let Some(a) = args.next() {
        match a.as_str() {
            "-isystem" | "-include" | "-I" => {
                args.next();
            }
            _ if a.starts_with("-I") => {}
            _ => out.push(a),
        }
    }
    Ok(out)
}

/// What the compiler sees: the tree and c-shim read-only, this build's
/// directory writable, the toolchain.
pub(super) fn toolchain_spec(tree: &KernelTree, opts: &BuildOptions, dir: &Path) -> Spec {
    let mut spec = Spec::new(Limits::TOOL)
        .read_only(&tree.root)
        .read_only(cshim_dir())
        .writable(dir)
        .cwd(dir);
    let cc = program_path(std::ffi::OsStr::new(&compiler(opts)));
    if !cc.starts_with("/usr") {
        if let Some(d) = cc.parent() {
            spec = spec.read_only(d);
        }
    }
    spec
}

/// Lays out the include directories: only `rdma/` of the tree's `include/`
/// and `include/uapi/` is visible, never its `linux/` or `asm/`.
pub(super) fn stage_includes(tree: &KernelTree, dir: &Path) -> Result<PathBuf> {
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

/// The text of `src` (the file `path`) with each definition `replaced`
/// names replaced by its text, the lines after it keeping their numbers.
pub(super) fn with_replaced(src: &str, path: &Path, replaced: &[&Replaced]) -> Result<String> {
    let mut spans = vec![];
    for r in replaced {
        let d = cscan::extract(src, &r.name)
            .with_context(|| format!("{}: replacing {}", path.display(), r.name))?;
        let at = src
            .find(&d.text)
            .with_context(|| format!("{}: {} not found again", path.display(), r.name))?;
        spans.push((at, at + d.text.len(), d.line, r));
    }
    spans.sort_by_key(|s| s.0);
    let mut out = format!("#line 1 \"{}\"\n", path.display());
    let mut from = 0;
    for (start, end, line, r) in spans {
        if start < from {
            bail!(
                "{}: replaced definitions overlap at {}",
                path.display(),
                r.name
            );
        }
        out.push_str(&src[from..start]);
        // The definition's last line, which the rest of `src` goes on.
        let last = line + src[start..end].matches('\n').count();
        out.push_str(&format!(
            "\n{}\n#line {last} \"{}\"\n",
            r.text,
            path.display()
        ));
        from = end;
    }
    out.push_str(&src[from..]);
    Ok(out)
}

/// The files compiled whole that have definitions replaced, each written
/// to `dir/replaced/` with them replaced: `(tree file, copy)`.
fn replaced_files(
    tree: &KernelTree,
    opts: &BuildOptions,
    dir: &Path,
) -> Result<Vec<(PathBuf, PathBuf)>> {
    let mut files: Vec<&str> = opts.replaced.iter().map(|r| r.file.as_str()).collect();
    files.sort_unstable();
    files.dedup();
    let mut out = vec![];
    for f in files {
        let path = tree.path(f);
        let mine: Vec<&Replaced> = opts.replaced.iter().filter(|r| r.file == f).collect();
        let src = tree.read_to_string(&path)?;
        let copy = dir.join("replaced").join(f.replace('/', "-"));
        fs::create_dir_all(dir.join("replaced"))?;
        fs::write(&copy, with_replaced(&src, &path, &mine)?)?;
        out.push((path, copy));
    }
    Ok(out)
}

/// Writes the translation unit holding the extracted upstream definitions
/// (a definition `replaced` names, its text instead).
pub(super) fn write_extract_unit(
    tree: &KernelTree,
    manifest: &Manifest,
    (replaced, absent): (&[Replaced], &[String]),
    dir: &Path,
) -> Result<PathBuf> {
    let mut unit = String::from(
        "// SPDX-License-Identifier: GPL-2.0\n\
         /* Generated by harness/src/cworld/build/compile.rs from c-shim/boundary.toml. */\n\
         #include <linux/module.h>\n\
         #include <linux/highmem.h>\n\
         #include <rdma/rdma_vt.h>\n\
         #include <rdma/rdmavt_qp.h>\n\
         #include \"hfi.h\"\n\
         #include \"qp.h\"\n\
         #include \"sdma.h\"\n\
         #include \"pio.h\"\n\
         #include \"trace.h\"\n\n",
    );
    unit.push_str(&super::includes::own_includes(tree, manifest)?);
    // The variables kernel macros define among them (`DEFINE_MUTEX(m)`):
    // file-static data `data` may name by the variable.
    let mut macro_defined = vec![];
    for e in &manifest.upstream.extract {
        let path = tree.path(&e.file);
        let src = tree.read_to_string(&path)?;
        if let Some(o) = e.optional.iter().find(|o| !e.symbols.contains(o)) {
            bail!(
                "c-shim/boundary.toml: optional {o} of {} is not among its symbols",
                e.file
            );
        }
        for sym in e.symbols.iter().filter(|s| !absent.contains(s)) {
            let d = cscan::extract(&src, sym)
                .with_context(|| format!("{}: extracting {sym}", path.display()))?;
            if sym.starts_with("DEFINE_") {
                macro_defined.push((e.file.clone(), d.text.clone()));
            }
            match replaced.iter().find(|r| r.file == e.file && r.name == *sym) {
                Some(r) => unit.push_str(&r.text),
                None => {
                    unit.push_str(&format!("#line {} \"{}\"\n", d.line, path.display()));
                    unit.push_str(&d.text);
                }
            }
            unit.push_str("\n\n");
        }
        // The static functions the shim calls, reachable only from this
        // unit: a constant pointer each, whose relocation names the
        // function (cworld::reach follows it from the shim's caller),
        // checked against the shim's declaration (entries.h).
        if !e.entries.is_empty() {
            unit.push_str("#include \"entries.h\"\n");
        }
        for f in &e.entries {
            if !e.symbols.contains(f) {
                bail!(
                    "c-shim/boundary.toml: entry {f} of {} is not among its symbols",
                    e.file
                );
            }
            unit.push_str(&format!(
                "#line 1 \"<shim entries>\"\n__typeof__(&{f}) const shim_static_{f} = {f};\n\n"
            ));
        }
    }
    // The layouts of the file's own structs the shim reads, from the
    // tree's definitions (entries.h declares each).
    unit.push_str("#include \"entries.h\"\n");
    for e in &manifest.upstream.extract {
        for l in &e.layouts {
            unit.push_str(&layout_export(l, &e.symbols, &e.file)?);
        }
    }
    // The file-static data the shim restores before every call, in one
    // table (entries.h declares it; an empty one when there is none).
    unit.push_str(
        "#include \"entries.h\"\n#line 1 \"<shim data>\"\n\
         const struct shim_static_data shim_static_data[] = {\n",
    );
    for e in &manifest.upstream.extract {
        for v in &e.data {
            let by_macro = macro_defined
                .iter()
                .any(|(f, t)| *f == e.file && t.contains(&format!("({v})")));
            if !e.symbols.contains(v) && !by_macro {
                bail!(
                    "c-shim/boundary.toml: data {v} of {} is not among its symbols \
                     (nor a variable one of its DEFINE_ macros defines)",
                    e.file
                );
            }
            unit.push_str(&format!("\t{{ \"{v}\", &{v}, sizeof({v}) }},\n"));
        }
    }
    unit.push_str("\t{ NULL, NULL, 0 }\n};\n");
    let out = dir.join("upstream_extract.c");
    fs::write(&out, unit)?;
    Ok(out)
}

/// The export of one `layouts` entry of `file` (see
/// [`super::manifest::Extracted::layouts`]): `TYPE`, `TYPE.MEMBER` or
/// `TYPE.MEMBER[]`, whose struct is among the file's `symbols`.
fn layout_export(l: &str, symbols: &[String], file: &str) -> Result<String> {
    let (ty, member) = match l.split_once('.') {
        Some((t, m)) => (t, Some(m)),
        None => (l, None),
    };
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !symbols.iter().any(|s| s == ty) {
        bail!("c-shim/boundary.toml: layout {l} of {file}: struct {ty} is not among its symbols");
    }
    let head = "#line 1 \"<shim layouts>\"\nconst struct shim_member";
    Ok(match member {
        None if ident(ty) => {
            format!("{head} shim_layout_{ty} = {{ 0, sizeof(struct {ty}) }};\n\n")
        }
        Some(m) if ident(m.trim_end_matches("[]")) && ident(ty) => {
            let (name, one) = match m.strip_suffix("[]") {
                Some(a) => (a, format!("{a}[0]")),
                None => (m, m.to_owned()),
            };
            format!(
                "{head} shim_layout_{ty}__{name} = {{ offsetof(struct {ty}, {name}), \
                 sizeof(((struct {ty} *)0)->{one}) }};\n\n"
            )
        }
        _ => bail!("c-shim/boundary.toml: layout {l:?} of {file}: expected TYPE, TYPE.MEMBER or TYPE.MEMBER[]"),
    })
}

/// The units to compile, as (source, object name): upstream objects are
/// named upstream-*.o, the project's own shim-*.o (tests tell them apart
/// by name); a file with definitions replaced is compiled from its copy
/// (`replaced`), under the same name.
fn units(
    tree: &KernelTree,
    manifest: &Manifest,
    extract_unit: PathBuf,
    replaced: &[(PathBuf, PathBuf)],
) -> Vec<(PathBuf, String)> {
    let mut units: Vec<(PathBuf, String)> = manifest
        .upstream
        .compile
        .iter()
        .map(|c| {
            let path = tree.path(&c.file);
            let source = replaced
                .iter()
                .find(|(p, _)| *p == path)
                .map_or(path, |(_, copy)| copy.clone());
            (source, unit_name("upstream", &c.file))
        })
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
    units
}

/// The compiler's flags for every unit of `tree`'s world (the `cc`
/// crate's view of the compiler): `-nostdinc` against kcompat, only the
/// tree's `rdma/` headers (`stage`) and its hfi1 directory, the kernel's
/// defines, warnings that are errors in any C, and the tree's own flags
/// that change what C code means.
pub(super) fn cc_build(
    tree: &KernelTree,
    opts: &BuildOptions,
    dir: &Path,
    stage: &Path,
) -> Result<cc::Build> {
    let kcompat = kcompat_dir();
    let hfi1 = tree.path("drivers/infiniband/hw/hfi1");
    let mut b = cc_base(&compiler(opts));
    // A vendor overlay's header directories come first, as its Makefile's
    // `-I${M}/include` does (its `#include_next` reaches the base's).
    if let Some(o) = &tree.overlay {
        for d in &o.include {
            b.include(d);
        }
    }
    b.out_dir(dir.join("obj"))
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
    Ok(b)
}

/// The flags of a vendor overlay (force-included headers, macros) and of
/// the build's options (sanitizers, coverage, fuzzing), after the others.
pub(super) fn add_option_flags(b: &mut cc::Build, tree: &KernelTree, opts: &BuildOptions) {
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
    if opts.fuzz {
        b.flag("-fsanitize=fuzzer-no-link");
    }
    // Which runtime's counters shim_flush_counters() writes out.
    if opts.coverage {
        b.define("SHIM_GCOV", None);
    }
    if opts.measure {
        b.define("SHIM_LLVM_PROFILE", None);
    }
    if opts.fuzz || opts.measure {
        // The world's flexible-array storage is a GNU extension clang
        // names; the kernel is built with it.
        b.flag("-Wno-gnu-variable-sized-type-not-at-end");
    }
}

/// How the units are compiled, beyond the world's common flags.
struct Plan {
    /// The tree's own warning flags, for upstream units.
    warn: Vec<String>,
    /// Where paths are relative to, for the kept objects.
    places: objcache::Places,
    /// The units compiled with counters (gcov's or clang's).
    instrumented: Vec<PathBuf>,
    /// The flags that add them.
    counters: &'static [&'static str],
    /// The flags an instrumented upstream unit adds to those.
    upstream_counters: &'static [&'static str],
    /// The files compiled whole from a copy with definitions replaced:
    /// `(tree file, copy)`.
    replaced: Vec<(PathBuf, PathBuf)>,
}

/// -O0: gcov attributes an arc to the line that tests it only when nothing
/// is inlined or merged (gcc's gcov manual: "compile without
/// optimization"); at -O2 the branches of static inline helpers land on
/// their callers' lines. The conformance verdicts of a coverage run are
/// still computed (`judge::coverage::collect` notes disagreements).
const COVERAGE_FLAGS: [&str; 2] = ["--coverage", "-O0"];

/// The measuring world's instrumented units: clang's source-based coverage
/// with MC/DC (clang 19: every `&&`/`||` decision's test vectors), at -O0
/// so that no decision is folded away.
const MEASURE_FLAGS: [&str; 4] = [
    "-O0",
    "-fprofile-instr-generate",
    "-fcoverage-mapping",
    "-fcoverage-mcdc",
];

/// The project's sources only a measuring world compiles (the callbacks
/// of `TRACE_CMP_FLAGS`; a fuzz world's come from the fuzz binary), as
/// `units` names them.
fn measure_units() -> Vec<(PathBuf, String)> {
    ["measure/cmp.c"]
        .into_iter()
        .map(|f| (cshim_dir().join(f), unit_name("shim", f)))
        .collect()
}

/// The flags of an instrumented unit of a world built with `opts`.
fn instrument_flags(opts: &BuildOptions) -> &'static [&'static str] {
    if opts.measure {
        &MEASURE_FLAGS
    } else {
        &COVERAGE_FLAGS
    }
}

/// The units of a coverage world that carry gcov's instrumentation: all,
/// or those compiled from the files asked for (a file extracted from
/// instruments the extracted unit).
fn instrumented(
    tree: &KernelTree,
    manifest: &Manifest,
    opts: &BuildOptions,
    units: &[(PathBuf, String)],
) -> Vec<PathBuf> {
    if !opts.instruments() {
        return vec![];
    }
    let Some(files) = &opts.instrument else {
        // The recorder of comparisons is not measured itself.
        let recorder = measure_units();
        return units
            .iter()
            .filter(|u| !recorder.contains(u))
            .map(|(u, _)| u.clone())
            .collect();
    };
    units
        .iter()
        .filter(|(u, name)| {
            files.iter().any(|f| {
                *u == tree.path(f)
                    || (name == "upstream-extract.o"
                        && manifest.upstream.extract.iter().any(|e| e.file == *f))
            })
        })
        .map(|(u, _)| u.clone())
        .collect()
}

/// Links `objects` into the shared object `so`; a symbol upstream needs
/// that nothing defines fails the link, named.
fn link(
    sb: &Sandbox,
    spec: &Spec,
    tree: &KernelTree,
    opts: &BuildOptions,
    objects: &[PathBuf],
    so: &Path,
) -> Result<()> {
    let mut link = Command::new(compiler(opts));
    link.arg("-shared").arg("-o").arg(so).args(objects);
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
    if opts.measure {
        link.arg("-fprofile-instr-generate");
    }
    let out = sandboxed(sb, spec, &link)?
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
/// compiler), as many at a time as the machine has cores, and returns
/// the objects. A failure carries the
/// compiler's own message, which names the file and line.
fn compile_units(
    sb: &Sandbox,
    spec: &Spec,
    b: &cc::Build,
    plan: &Plan,
    units: &[(PathBuf, String)],
    (obj, root): (&Path, &Path),
) -> Result<Vec<PathBuf>> {
    fs::create_dir_all(obj)?;
    fs::create_dir_all(obj.join("../deps"))?;
    let tool = b
        .try_get_compiler()
        .map_err(|e| anyhow::anyhow!("no C compiler: {e}"))?;
    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let mut objects = vec![];
    let mut errors = vec![];
    let mut warnings = vec![];
    let (mut done, mut misses) = kept_objects(&tool, plan, units, obj);
    for chunk in misses.chunks_mut(jobs) {
        let mut running = vec![];
        for (_, o, bare, _) in chunk.iter_mut() {
            bare.arg("-o").arg(&*o);
            bare.arg("-MD").arg("-MF").arg(depfile(o));
            let mut cmd = sandboxed(sb, spec, bare)?;
            cmd.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            let child = cmd
                .spawn()
                .with_context(|| format!("starting {:?}", tool.path()))?;
            running.push(child);
        }
        for ((u, o, _, unit), child) in chunk.iter().zip(running) {
            let out = child.wait_with_output()?;
            let msg = String::from_utf8_lossy(&out.stderr).into_owned();
            if !out.status.success() {
                errors.push(format!("{}:\n{msg}", u.display()));
                continue;
            }
            if !plan.instrumented.contains(u) {
                objcache::store(unit, &plan.places, o, &depfile(o), &msg);
            }
            done.push((u.to_path_buf(), o.clone(), msg));
        }
    }
    // In the units' order, whichever way each object came.
    done.sort_by_key(|(u, _, _)| units.iter().position(|(x, _)| x == u));
    for (u, o, msg) in done {
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

/// Where the compiler lists the headers a unit read (`-MD -MF`): beside
/// `obj/`, which holds objects only.
fn depfile(o: &Path) -> PathBuf {
    let dir = o.parent().and_then(Path::parent).unwrap_or(Path::new("."));
    let name = o.file_name().unwrap_or_default();
    dir.join("deps").join(name).with_extension("d")
}

/// A compile still to run: the unit, its object, the command so far, and
/// the unit as the object cache knows it.
type Miss<'a> = (&'a PathBuf, PathBuf, Command, objcache::Unit<'a>);

/// Each unit's command, and the units whose objects the cache holds
/// (copied into `obj`, with their messages) apart from those to compile.
fn kept_objects<'a>(
    tool: &cc::Tool,
    plan: &Plan,
    units: &'a [(PathBuf, String)],
    obj: &Path,
) -> (Vec<(PathBuf, PathBuf, String)>, Vec<Miss<'a>>) {
    let mut done = vec![];
    let mut misses = vec![];
    for (u, name) in units {
        let o = obj.join(name);
        let mut bare = tool.to_command();
        if name_is_upstream(&o) {
            // The tree's own warning flags (its Makefiles', read by
            // `kernel::kbuild`), for the gate's report of warnings a patch
            // adds: after the project's, so they win.
            bare.args(&plan.warn);
        }
        let counted = plan.instrumented.contains(u);
        if !counted {
            // Kept and reused by other copies of the tree: its lines name
            // the tree as the cache does, not as this copy's path.
            bare.arg(format!(
                "-fdebug-prefix-map={}={}",
                plan.places.tree(),
                objcache::TREE_IN_DEBUG_INFO
            ));
            // And __FILE__ (a leak's site), likewise.
            bare.arg(format!(
                "-fmacro-prefix-map={}={}",
                plan.places.tree(),
                objcache::TREE_IN_DEBUG_INFO
            ));
        }
        if counted {
            bare.args(plan.counters);
            if name_is_upstream(&o) {
                bare.args(plan.upstream_counters);
            }
        }
        // A copy finds the quoted includes its file would, in that file's
        // directory first.
        if let Some(dir) = plan
            .replaced
            .iter()
            .find(|(_, copy)| copy == u)
            .and_then(|(file, _)| file.parent())
        {
            bare.arg("-iquote").arg(dir);
        }
        bare.arg("-c").arg(u);
        let command: Vec<String> = std::iter::once(bare.get_program())
            .chain(bare.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let unit = objcache::Unit::keyed(command, u, &plan.places);
        let places = (!counted).then_some(&plan.places);
        match places.and_then(|p| objcache::lookup(&unit, p, &o)) {
            Some(msg) => done.push((u.clone(), o, msg)),
            None => misses.push((u, o, bare, unit)),
        }
    }
    (done, misses)
}

/// The flags of `want` this compiler knows: kbuild's `cc-option` drops a
/// flag the compiler rejects, and so does this (one probe compile; a
/// rejected flag is named in the compiler's error).
fn supported_flags(
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
        let out = sandboxed(sb, spec, &probe)?
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A definition replaced in a file compiled whole: the text before and
    /// after it as it was, the replacement in its place, and the lines
    /// after it numbered as in the file (made-up C, not upstream code).
    #[test]
    fn a_replaced_definition_keeps_the_lines_after_it() {
        let src = "#include \"a.h\"\n\nint one(int a)\n{\n\treturn a;\n}\n\nint two(void)\n{\n\treturn 2;\n}\n";
        let r = Replaced {
            file: "d/f.c".into(),
            name: "one".into(),
            text: "#line 3 \"/t/d/f.c\"\nint one(int a)\n{\n\treturn -a;\n}".into(),
        };
        let out = with_replaced(src, Path::new("/t/d/f.c"), &[&r]).unwrap();
        assert_eq!(
            out,
            "#line 1 \"/t/d/f.c\"\n#include \"a.h\"\n\n\
             \n#line 3 \"/t/d/f.c\"\nint one(int a)\n{\n\treturn -a;\n}\n#line 6 \"/t/d/f.c\"\n\
             \n\nint two(void)\n{\n\treturn 2;\n}\n"
        );
        // `two` is on line 8 of the file: after `#line 6`, the rest of
        // line 6 (empty), 7 (empty), then 8.
        let after = out.split("#line 6 \"/t/d/f.c\"\n").nth(1).unwrap();
        assert_eq!(
            after.lines().position(|l| l.starts_with("int two")),
            Some(2)
        );
        let missing = Replaced {
            name: "three".into(),
            ..r
        };
        let e = with_replaced(src, Path::new("/t/d/f.c"), &[&missing]).unwrap_err();
        assert!(format!("{e:#}").contains("replacing three"), "{e:#}");
    }
}
