//! The patch gate: a patch (or a series) in, a behaviour verdict per patch
//! out. Each patch is applied to a copy of the base tree holding the
//! patches before it, and judged C against C ([`crate::judge::compare`]) against
//! that tree, so a behaviour change is attributed to the patch that made
//! it. Everything untrusted — `patch`, the compiler, the worlds — runs in
//! the [sandbox](crate::sandbox).
//!
//! Verdicts and exit codes: `preserves` and `changes-as-declared` (0),
//! `changes` and `breaks-build` (1), `does-not-apply` and `cannot-judge`
//! (2). A patch declares the functions it means to change with a
//! `Conformance-Changes: FUNCTION …` trailer (or `--expect-change`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::corpus::Vector;
use crate::cworld::{self, build::CannotJudge, BuildOptions, BuiltWorld};
use crate::judge::compare::{self, Comparison};
use crate::kernel::{self, KernelTree};
use crate::model::types::Func;
use crate::report::exit_code;
use crate::report::{Report, Suite};
use crate::sandbox::{Limits, Sandbox, Spec};

/// One patch of a series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The subject without `[PATCH n/m]`, or the file name of a plain diff.
    pub subject: String,
    /// Functions the patch says it changes (`Conformance-Changes:`).
    pub declared: Vec<String>,
    /// The files its diff touches (paths in the tree, `b/` side).
    pub files: Vec<String>,
    /// The whole text, message and diff.
    pub text: String,
}

/// Splits `input` (a `git format-patch` file, an mbox of a series, or a
/// plain diff) into patches, in order.
pub fn parse(input: &str, name: &str) -> Vec<Patch> {
    let mut messages: Vec<String> = vec![];
    let mut cur = String::new();
    for line in input.split_inclusive('\n') {
        let mbox_from = line.starts_with("From ") && (cur.is_empty() || cur.ends_with("\n\n"));
        if mbox_from && !cur.trim().is_empty() {
            messages.push(std::mem::take(&mut cur));
        }
        cur.push_str(line);
    }
    if !cur.trim().is_empty() {
        messages.push(cur);
    }
    messages
        .into_iter()
        .filter(|m| m.contains("\n+++ ") || m.starts_with("+++ ") || m.contains("diff --git "))
        .map(|m| {
            let head = m.split("\ndiff --git ").next().unwrap_or(&m);
            let head = head.split("\n--- ").next().unwrap_or(head);
            let mut subject = String::new();
            let mut in_subject = false;
            let mut declared = vec![];
            for l in head.lines() {
                if let Some(s) = l.strip_prefix("Subject:") {
                    subject = s.trim().to_owned();
                    in_subject = true;
                    continue;
                }
                if in_subject && (l.starts_with(' ') || l.starts_with('\t')) {
                    subject.push(' ');
                    subject.push_str(l.trim());
                    continue;
                }
                in_subject = false;
                if let Some(v) = l.trim().strip_prefix("Conformance-Changes:") {
                    declared.extend(
                        v.split([',', ' '])
                            .map(str::trim)
                            .filter(|s| !s.is_empty())
                            .map(str::to_owned),
                    );
                }
            }
            while subject.starts_with('[') {
                match subject.find(']') {
                    Some(i) => subject = subject[i + 1..].trim().to_owned(),
                    None => break,
                }
            }
            if subject.is_empty() {
                subject = name.to_owned();
            }
            let mut files = vec![];
            for l in m.lines() {
                if let Some(p) = l.strip_prefix("+++ ") {
                    let p = p.split('\t').next().unwrap_or(p).trim();
                    let p = p.strip_prefix("b/").unwrap_or(p);
                    if p != "/dev/null" && !files.iter().any(|f| f == p) {
                        files.push(p.to_owned());
                    }
                }
            }
            Patch {
                subject,
                declared,
                files,
                text: m,
            }
        })
        .collect()
}

/// A patch's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Preserves,
    ChangesAsDeclared,
    Changes,
    BreaksBuild(String),
    DoesNotApply(String),
    CannotJudge(String),
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Preserves => "preserves",
            Verdict::ChangesAsDeclared => "changes-as-declared",
            Verdict::Changes => "changes",
            Verdict::BreaksBuild(_) => "breaks-build",
            Verdict::DoesNotApply(_) => "does-not-apply",
            Verdict::CannotJudge(_) => "cannot-judge",
        }
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            Verdict::Preserves | Verdict::ChangesAsDeclared => exit_code::SUCCESS,
            Verdict::Changes | Verdict::BreaksBuild(_) => exit_code::FINDING,
            Verdict::DoesNotApply(_) | Verdict::CannotJudge(_) => exit_code::CANNOT_JUDGE,
        }
    }

    /// The patchwork check state: success, warning or fail.
    pub fn patchwork(&self) -> &'static str {
        match self {
            Verdict::Preserves | Verdict::ChangesAsDeclared => "success",
            Verdict::Changes | Verdict::CannotJudge(_) => "warning",
            Verdict::BreaksBuild(_) | Verdict::DoesNotApply(_) => "fail",
        }
    }
}

/// One patch judged on one base.
#[derive(Debug, Clone)]
pub struct Judged {
    pub base: String,
    pub patch: Patch,
    pub verdict: Verdict,
    pub comparison: Option<Comparison>,
    /// Touched files no world compiles (listed, not judged).
    pub not_judged: Vec<String>,
    /// Compiler warnings the patch adds.
    pub new_warnings: Vec<String>,
    /// Seconds per phase: apply, build, compare, coverage.
    pub timings: Vec<(&'static str, f64)>,
    /// Of the changed lines inside functions in scope, those the vectors
    /// ran.
    pub coverage: Option<crate::report::PatchCoverage>,
    /// The corpus vectors where the tree parts from the Rust model, before
    /// and after the patch (reported apart from the verdict: a patch can
    /// move upstream away from the model, or toward it).
    pub model: Option<ModelDrift>,
}

/// The corpus vectors on which a tree parts from the Rust model, before and
/// after a patch.
#[derive(Debug, Clone, Default)]
pub struct ModelDrift {
    pub before: Vec<String>,
    pub after: Vec<String>,
    /// How many corpus vectors were compared.
    pub corpus: usize,
}

/// The corpus vectors on which `world` and the Rust model disagree.
fn model_disagreements(world: &BuiltWorld, vectors: &[Vector]) -> Result<Vec<String>> {
    // A hang is a disagreement whether proven again or not: the
    // comparison just proved the world's hangs.
    let mut w = cworld::Worker::new(world)?;
    w.presume_hangs(1);
    let checks = crate::judge::check::check_all_with(&mut w, vectors)?;
    Ok(vectors
        .iter()
        .zip(&checks)
        .filter(|(_, c)| !c.verdict.ok())
        .map(|(v, _)| v.id())
        .collect())
}

/// A warning as `path-in-tree:line:col: warning: …`, and its key (the path
/// and the message, without the line: lines shift under a patch).
fn warning_key(w: &str) -> (String, String) {
    let rel = ["/drivers/", "/include/"]
        .iter()
        .find_map(|m| w.find(m).map(|i| w[i + 1..].to_owned()))
        .unwrap_or_else(|| w.to_owned());
    let file = rel.split(':').next().unwrap_or("").to_owned();
    let msg = rel.split(": warning: ").nth(1).unwrap_or("").to_owned();
    (rel, format!("{file}|{msg}"))
}

/// Warnings of `after` whose file and message `before` does not have.
pub fn added_warnings(before: &[String], after: &[String]) -> Vec<String> {
    let old: std::collections::HashSet<String> = before.iter().map(|w| warning_key(w).1).collect();
    after
        .iter()
        .map(|w| warning_key(w))
        .filter(|(_, k)| !old.contains(k))
        .map(|(rel, _)| rel)
        .collect()
}

/// What to compare with.
#[derive(Debug, Clone)]
pub struct Options {
    pub random: u64,
    pub seed: u64,
    pub funcs: Vec<Func>,
    /// Functions every patch may change (`--expect-change`).
    pub expect: Vec<String>,
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir()
        .join(format!(
            "hfi1-gate-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ))
        .to_string_lossy()
        .replace(['(', ')'], "")
        .into()
}

/// The parts of the tree the harness extracts: an edit anywhere else is
/// outside the tree it has, listed and not applied.
const EXTRACTED: &[&str] = &[
    "Makefile",
    "drivers/infiniband/hw/hfi1/",
    "drivers/infiniband/sw/rdmavt/",
    "include/rdma/",
    "include/uapi/rdma/",
];

/// A patch's diff cut into file sections: `(path, section text)`, in
/// order; the text before the first section is dropped.
fn sections(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut starts = vec![];
    for (i, l) in lines.iter().enumerate() {
        let next = lines.get(i + 1).copied().unwrap_or("");
        if l.starts_with("diff --git ")
            || (l.starts_with("--- ")
                && next.starts_with("+++ ")
                && !(i > 0 && lines[i - 1].starts_with("diff --git ")))
        {
            starts.push(i);
        }
    }
    let mut out = vec![];
    for (k, &s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(lines.len());
        let body: String = lines[s..e].concat();
        let path = body
            .lines()
            .find_map(|l| l.strip_prefix("+++ "))
            .map(|p| p.split('\t').next().unwrap_or(p).trim())
            .map(|p| p.strip_prefix("b/").unwrap_or(p).to_owned())
            .unwrap_or_default();
        out.push((path, body));
    }
    out
}

/// The lines of the new file each section touches (added lines, and the
/// line where a removal was): `(path, lines)`.
fn touched_lines(text: &str) -> Vec<(String, Vec<usize>)> {
    sections(text)
        .into_iter()
        .map(|(path, body)| {
            let mut lines = vec![];
            let mut new = 0usize;
            for l in body.lines() {
                if let Some(h) = l.strip_prefix("@@ ") {
                    // @@ -a,b +c,d @@
                    new = h
                        .split_whitespace()
                        .find_map(|w| w.strip_prefix('+'))
                        .and_then(|w| w.split(',').next())
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0);
                } else if new > 0 && l.starts_with('+') && !l.starts_with("+++") {
                    lines.push(new);
                    new += 1;
                } else if new > 0 && l.starts_with('-') && !l.starts_with("---") {
                    lines.push(new);
                } else if new > 0 && (l.starts_with(' ') || l.is_empty()) {
                    new += 1;
                }
            }
            lines.dedup();
            (path, lines)
        })
        .collect()
}

/// Where each edit of a patch falls, for the files it does not judge:
/// outside the extracted tree, in a file no world compiles, or in a
/// function of a compiled file that no world runs. An edit inside a
/// function in scope, or in a header the world compiles, is judged.
fn scope(tree: &Path, patch: &Patch, inputs: &[String]) -> Vec<String> {
    classify(tree, patch, inputs).0
}

/// [`scope`]'s list, and the changed lines inside functions in scope
/// (`(path, line)`), whose coverage the gate measures.
fn classify(tree: &Path, patch: &Patch, inputs: &[String]) -> (Vec<String>, Vec<(String, usize)>) {
    let in_scope = crate::judge::coverage::in_scope();
    let mut out = vec![];
    let mut judged_lines = vec![];
    for (path, lines) in touched_lines(&patch.text) {
        if !EXTRACTED.iter().any(|p| path == *p || path.starts_with(p)) {
            out.push(format!(
                "{path}: outside the tree the harness extracts (not judged)"
            ));
            continue;
        }
        if !inputs.contains(&path) {
            out.push(format!("{path}: no world compiles it (not judged)"));
            continue;
        }
        let Some((_, names)) = in_scope.iter().find(|(f, _)| *f == path) else {
            continue; // a header the world compiles: judged through the build
        };
        let Ok(src) = crate::kernel::read_tree_text(tree, &tree.join(&path)) else {
            continue;
        };
        let defs = crate::kernel::cscan::definitions(&src).unwrap_or_default();
        let mut outside = vec![];
        for l in lines {
            let def = defs
                .iter()
                .find(|d| l >= d.line && l < d.line + d.text.lines().count().max(1));
            match def {
                Some(d) if names.is_empty() || names.contains(&d.name.as_str()) => {
                    judged_lines.push((path.clone(), l));
                }
                // Another inline of a compiled header: through the build.
                Some(_) if path.ends_with(".h") => {}
                Some(d) => outside.push(format!("{} (line {l})", d.name)),
                None if path.ends_with(".c") && !names.is_empty() => {
                    outside.push(format!("line {l}, outside any function"))
                }
                None => {}
            }
        }
        outside.dedup();
        for o in outside {
            out.push(format!("{path}: {o}: no world runs it (not judged)"));
        }
    }
    (out, judged_lines)
}

/// Patch coverage: builds the patched tree's coverage world (gcov, -O0),
/// runs the corpus in it and reads the counters back with gcov; only if a
/// changed executable line is still unexecuted, the generated vectors too.
/// Counts the changed executable lines inside functions in scope that ran.
/// `None` when the patch changes no such line (no coverage world is built
/// then).
fn patch_coverage(
    tree: &KernelTree,
    lines: &[(String, usize)],
    vectors: &[Vector],
    opts: &Options,
) -> Result<Option<crate::report::PatchCoverage>> {
    if lines.is_empty() {
        return Ok(None);
    }
    // The corpus reaches every line but those unreached.toml lists: most
    // patches need nothing more, and it costs a fraction of a second.
    let world = crate::judge::coverage::collect(tree, vectors)?;
    let obj = world.dir.join("obj");
    let pc = count_executed(&crate::judge::coverage::Tracefile::capture(&obj)?, lines);
    if pc.missed.is_empty() {
        return Ok(Some(pc));
    }
    // Counters add up across workers: the generated vectors, shared
    // between two workers.
    let mut w1 = cworld::Worker::new(&world)?;
    let mut w2 = cworld::Worker::new(&world)?;
    // Coverage needs no proof of a hang (and a killed worker writes no
    // counters): presumed after the first few.
    w1.presume_hangs(1);
    w2.presume_hangs(1);
    for f in &opts.funcs {
        cworld::digests::compute(&mut [&mut w1, &mut w2], *f, opts.seed, opts.random)?;
    }
    drop((w1, w2)); // the workers exit: gcov writes their counters
    Ok(Some(count_executed(
        &crate::judge::coverage::Tracefile::capture(&obj)?,
        lines,
    )))
}

/// The tree copied to a place in the cache named by its content
/// (`gate-trees/HASH`): a coverage world is bound to its tree's place
/// (gcov notes absolute paths), so a tree judged again — the same patch on
/// the same base — finds its coverage world built. The tree itself where
/// the cache cannot be written. The 16 most recently used copies are kept.
fn stable_copy(tree: &KernelTree) -> KernelTree {
    use sha2::Digest;
    fn walk(root: &Path, dir: &Path, h: &mut sha2::Sha256) -> std::io::Result<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<std::io::Result<_>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            let t = e.file_type()?;
            h.update(
                p.strip_prefix(root)
                    .unwrap_or(&p)
                    .to_string_lossy()
                    .as_bytes(),
            );
            if t.is_dir() {
                h.update(b"/");
                walk(root, &p, h)?;
            } else if t.is_symlink() {
                h.update(b"->");
                h.update(std::fs::read_link(&p)?.to_string_lossy().as_bytes());
            } else {
                h.update(std::fs::read(&p)?);
            }
            h.update([0]);
        }
        Ok(())
    }
    let placed = || -> std::io::Result<KernelTree> {
        let mut h = sha2::Sha256::new();
        walk(&tree.root, &tree.root, &mut h)?;
        let hex: String = h.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let trees = kernel::cache_dir().join("gate-trees");
        let dst = trees.join(&hex);
        if !dst.is_dir() {
            let tmp = trees.join(format!(".{hex}.{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&tmp);
            kernel::copy_tree(&tree.root, &tmp)?;
            if std::fs::rename(&tmp, &dst).is_err() {
                let _ = std::fs::remove_dir_all(&tmp);
            }
        }
        // Used now: the eviction below keeps it.
        let _ = std::fs::File::options()
            .append(true)
            .create(true)
            .open(dst.join(".used"))
            .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        let mut all: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(&trees)?
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| {
                let used = std::fs::metadata(e.path().join(".used"))
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH);
                (used, e.path())
            })
            .collect();
        all.sort();
        all.reverse();
        for (_, old) in all.iter().skip(16) {
            let _ = std::fs::remove_dir_all(old);
        }
        KernelTree::open(&dst).map_err(std::io::Error::other)
    };
    placed().unwrap_or_else(|_| tree.clone())
}

/// How many of the changed `lines` are executable and how many of those
/// ran.
fn count_executed(
    trace: &crate::judge::coverage::Tracefile,
    lines: &[(String, usize)],
) -> crate::report::PatchCoverage {
    let mut files: std::collections::BTreeMap<&str, std::collections::BTreeMap<usize, u64>> =
        Default::default();
    let mut pc = crate::report::PatchCoverage {
        changed: 0,
        executed: 0,
        missed: vec![],
    };
    for (path, line) in lines {
        let hits = files
            .entry(path.as_str())
            .or_insert_with(|| crate::judge::coverage::line_hits(trace, path));
        match hits.get(line) {
            None => {} // not an executable line
            Some(0) => {
                pc.changed += 1;
                pc.missed.push(format!("{path}:{line}"));
            }
            Some(_) => {
                pc.changed += 1;
                pc.executed += 1;
            }
        }
    }
    pc
}

/// Applies `patch` to the tree at `dir` with `patch -p1`, in the sandbox;
/// a dry run first, so that a patch that does not apply changes nothing.
/// File sections outside the tree the harness extracts are left out.
fn apply(sb: &Sandbox, dir: &Path, patch: &Patch, tmp: &Path) -> Result<Result<(), String>> {
    let file = tmp.join("patch.diff");
    let kept: String = sections(&patch.text)
        .into_iter()
        .filter(|(path, _)| EXTRACTED.iter().any(|p| path == p || path.starts_with(p)))
        .map(|(_, body)| body)
        .collect();
    if kept.is_empty() {
        return Ok(Ok(()));
    }
    std::fs::write(&file, kept).with_context(|| format!("writing {}", file.display()))?;
    for dry in [true, false] {
        let spec = Spec::new(Limits::TOOL)
            .writable(dir)
            .read_only(&file)
            .cwd(dir);
        let mut c = sb.command(&spec, Path::new("/usr/bin/patch"))?;
        c.args([
            "-p1",
            "--batch",
            "--forward",
            "--no-backup-if-mismatch",
            "-i",
        ])
        .arg(crate::sandbox::absolute(&file));
        if dry {
            c.arg("--dry-run");
        }
        let out = c
            .output()
            .context("running patch (apt-get install patch)")?;
        if !out.status.success() {
            let mut msg = String::from_utf8_lossy(&out.stdout).into_owned();
            msg.push_str(&String::from_utf8_lossy(&out.stderr));
            return Ok(Err(msg.trim().to_owned()));
        }
    }
    Ok(Ok(()))
}

/// Whether a build error is the patched upstream code's (the compiler
/// names a file of the tree) rather than the harness's.
fn upstream_error(err: &anyhow::Error, tree: &Path) -> bool {
    if err.downcast_ref::<CannotJudge>().is_some() {
        return false;
    }
    let text = format!("{err:#}");
    let root = tree.display().to_string();
    text.lines().any(|l| {
        (l.contains("error:") || l.contains("undefined reference")) && l.starts_with(&root)
    })
}

/// Judges `patches` in order on `base`.
pub fn judge(
    base: &KernelTree,
    base_name: &str,
    patches: &[Patch],
    vectors: &[Vector],
    opts: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Judged>> {
    let sb = Sandbox::get()?;
    let dir = scratch("tree");
    let tmp = scratch("tmp");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    kernel::copy_tree(&base.root, &dir).context("copying the base tree")?;
    let result = judge_in(
        sb, base, base_name, patches, vectors, opts, &dir, &tmp, progress,
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

#[allow(clippy::too_many_arguments)]
fn judge_in(
    sb: &Sandbox,
    base: &KernelTree,
    base_name: &str,
    patches: &[Patch],
    vectors: &[Vector],
    opts: &Options,
    dir: &Path,
    tmp: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Judged>> {
    let bopts = BuildOptions::default();
    let inputs = cworld::build::tree_inputs(base)?;
    let mut prev: Result<BuiltWorld, String> =
        cworld::build(base, &bopts).map_err(|e| format!("the base tree: {e:#}"));
    let mut out = vec![];
    let mut blocked: Option<String> = None;
    for (k, p) in patches.iter().enumerate() {
        let judged = |verdict, comparison, new_warnings| Judged {
            base: base_name.to_owned(),
            patch: p.clone(),
            verdict,
            comparison,
            not_judged: scope(dir, p, &inputs),
            new_warnings,
            timings: vec![],
            coverage: None,
            model: None,
        };
        progress(&format!(
            "{base_name}: patch {} of {}: {}",
            k + 1,
            patches.len(),
            p.subject
        ));
        let mut times: Vec<(&'static str, f64)> = vec![];
        'patch: {
            if let Some(why) = &blocked {
                out.push(judged(Verdict::CannotJudge(why.clone()), None, vec![]));
                break 'patch;
            }
            let t = std::time::Instant::now();
            let applied = apply(sb, dir, p, tmp)?;
            times.push(("apply", t.elapsed().as_secs_f64()));
            if let Err(e) = applied {
                blocked = Some(format!("patch {} did not apply", k + 1));
                out.push(judged(Verdict::DoesNotApply(e), None, vec![]));
                break 'patch;
            }
            let tree = KernelTree::open(dir)?;
            let t = std::time::Instant::now();
            let built = cworld::build(&tree, &bopts);
            times.push(("build", t.elapsed().as_secs_f64()));
            let world = match built {
                Ok(w) => w,
                Err(e) => {
                    let msg = format!("{e:#}");
                    blocked = Some(format!("patch {} left a tree that does not build", k + 1));
                    out.push(judged(
                        if upstream_error(&e, dir) {
                            Verdict::BreaksBuild(msg)
                        } else {
                            Verdict::CannotJudge(msg)
                        },
                        None,
                        vec![],
                    ));
                    break 'patch;
                }
            };
            let before = match &prev {
                Ok(w) => w.clone(),
                Err(e) => {
                    out.push(judged(Verdict::CannotJudge(e.clone()), None, vec![]));
                    prev = Ok(world);
                    break 'patch;
                }
            };
            let new_warnings = added_warnings(&before.warnings(), &world.warnings());
            let t = std::time::Instant::now();
            let c = compare::compare(
                &before,
                &world,
                vectors,
                &opts.funcs,
                opts.random,
                opts.seed,
                &mut |m| progress(m),
            );
            times.push(("compare", t.elapsed().as_secs_f64()));
            let c = match c {
                Ok(c) => c,
                Err(e) if cworld::HarnessFault::in_chain(&e) => return Err(e),
                Err(e) => {
                    out.push(judged(
                        Verdict::CannotJudge(format!("{e:#}")),
                        None,
                        new_warnings,
                    ));
                    prev = Ok(world);
                    break 'patch;
                }
            };
            let declared: Vec<&String> = p.declared.iter().chain(&opts.expect).collect();
            let verdict = if !c.differs() {
                Verdict::Preserves
            } else if c
                .groups
                .iter()
                .all(|g| declared.iter().any(|d| *d == g.func.name()))
            {
                Verdict::ChangesAsDeclared
            } else {
                Verdict::Changes
            };
            let mut j = judged(verdict, Some(c), new_warnings);
            let t = std::time::Instant::now();
            j.model = match (
                model_disagreements(&before, vectors),
                model_disagreements(&world, vectors),
            ) {
                (Ok(before), Ok(after)) => Some(ModelDrift {
                    before,
                    after,
                    corpus: vectors.len(),
                }),
                (Err(e), _) | (_, Err(e)) if cworld::HarnessFault::in_chain(&e) => return Err(e),
                _ => None,
            };
            times.push(("model", t.elapsed().as_secs_f64()));
            progress(&format!(
                "{base_name}: {}: {} (measuring patch coverage next)",
                p.subject,
                j.verdict.word()
            ));
            let t = std::time::Instant::now();
            let (_, lines) = classify(dir, p, &inputs);
            let placed = if lines.is_empty() {
                tree.clone()
            } else {
                stable_copy(&tree)
            };
            j.coverage = match patch_coverage(&placed, &lines, vectors, opts) {
                Ok(c) => c,
                Err(e) if cworld::HarnessFault::in_chain(&e) => return Err(e),
                Err(e) => {
                    progress(&format!("patch coverage not measured: {e:#}"));
                    None
                }
            };
            times.push(("coverage", t.elapsed().as_secs_f64()));
            out.push(j);
            prev = Ok(world);
        }
        if let Some(last) = out.last_mut() {
            last.timings = times;
        }
    }
    Ok(out)
}

/// The gate's report: a suite per patch and base (`6.12: subject`), its
/// verdict, the files not judged, and the comparison's cases.
pub fn report(judged: &[Judged]) -> Report {
    let suites = judged
        .iter()
        .map(|j| {
            let name = format!("{}: {}", j.base, j.patch.subject);
            let mut suite = match &j.comparison {
                Some(c) => {
                    let mut r = compare::report(&name, "before", "after", c);
                    r.suites.remove(0)
                }
                None => Suite {
                    name: name.clone(),
                    kernel: j.base.clone(),
                    version: String::new(),
                    error: None,
                    cases: vec![],
                    seconds: 0.0,
                    ..Default::default()
                },
            };
            suite.kernel = j.base.clone();
            suite.verdict = Some(j.verdict.word().to_owned());
            suite.not_judged = j.not_judged.clone();
            suite.warnings = j.new_warnings.clone();
            suite.patch_coverage = j.coverage.clone();
            if let Some(m) = &j.model {
                suite.cases.push(model_case(&m.before, &m.after, m.corpus));
            }
            match &j.verdict {
                Verdict::BreaksBuild(m) | Verdict::DoesNotApply(m) | Verdict::CannotJudge(m) => {
                    suite.error = Some(format!("{}: {m}", j.verdict.word()));
                }
                _ => {}
            }
            suite
        })
        .collect();
    Report::new("gate", suites)
}

/// The patched tree against the Rust model on the corpus, as a case of its
/// own: it fails when the patch moves upstream away from the model on some
/// vector (the model or the patch is wrong), and says where it moves toward.
fn model_case(before: &[String], after: &[String], corpus: usize) -> crate::report::Case {
    use crate::report::{Case, Status};
    let away: Vec<&String> = after.iter().filter(|v| !before.contains(v)).collect();
    let toward: Vec<&String> = before.iter().filter(|v| !after.contains(v)).collect();
    let mut detail = String::new();
    if !away.is_empty() {
        detail.push_str(&format!(
            "after the patch upstream parts from the Rust model on: {}\n",
            away.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !toward.is_empty() {
        detail.push_str(&format!(
            "after the patch upstream agrees with the Rust model again on: {}\n",
            toward
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Case {
        name: "model::corpus".into(),
        function: "(rust model)".into(),
        file: None,
        line: None,
        branch: None,
        status: if away.is_empty() {
            Status::Pass
        } else {
            Status::Fail
        },
        message: (!detail.is_empty()).then(|| {
            format!(
                "the Rust model: {} corpus vector(s) disagree before the patch, {} after",
                before.len(),
                after.len()
            )
        }),
        detail: (!detail.is_empty()).then_some(detail),
        differences: vec![],
        c: None,
        rust: None,
        snapshot_rows: vec![],
        findings: vec![],
        vectors: corpus as u64,
        failed: away.len() as u64,
    }
}

/// The series' exit code: the worst of its patches'.
pub fn exit_code(judged: &[Judged]) -> u8 {
    judged
        .iter()
        .map(|j| j.verdict.exit_code())
        .max()
        .unwrap_or(exit_code::SUCCESS)
}

/// The judgements of the bases the series applies to, for `--base all`
/// ("does it change behaviour on every series it applies to?"): a base
/// where some patch does not apply drops out (its report still says so),
/// unless it applies nowhere, when all are kept (and the series' verdict
/// is does-not-apply).
pub fn where_it_applies(judged: &[Judged]) -> Vec<Judged> {
    let applies = |base: &str| {
        !judged
            .iter()
            .any(|j| j.base == base && matches!(j.verdict, Verdict::DoesNotApply(_)))
    };
    let kept: Vec<Judged> = judged
        .iter()
        .filter(|j| applies(&j.base))
        .cloned()
        .collect();
    if kept.is_empty() {
        judged.to_vec()
    } else {
        kept
    }
}

/// The line a patchwork bot posts: state, context, description.
pub fn patchwork_line(judged: &[Judged]) -> String {
    let worst = judged.iter().max_by_key(|j| match j.verdict.patchwork() {
        "fail" => 2,
        "warning" => 1,
        _ => 0,
    });
    let state = worst.map_or("success", |j| j.verdict.patchwork());
    let desc: Vec<String> = judged
        .iter()
        .map(|j| format!("{} {}", j.base, j.verdict.word()))
        .collect();
    format!(
        "state={state} context=hfi1-conformance description=\"{}\"",
        desc.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged_on(base: &str, verdict: Verdict) -> Judged {
        Judged {
            base: base.into(),
            patch: parse("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", "p")
                .into_iter()
                .next()
                .expect("a patch"),
            verdict,
            comparison: None,
            not_judged: vec![],
            new_warnings: vec![],
            timings: vec![],
            coverage: None,
            model: None,
        }
    }

    #[test]
    fn base_all_judges_the_series_where_it_applies() {
        let j = vec![
            judged_on("6.1", Verdict::DoesNotApply("hunk 1 failed".into())),
            judged_on("6.12", Verdict::Changes),
            judged_on("7.2", Verdict::Preserves),
        ];
        let kept = where_it_applies(&j);
        let bases: Vec<&str> = kept.iter().map(|j| j.base.as_str()).collect();
        assert_eq!(bases, ["6.12", "7.2"]);
        assert_eq!(exit_code(&kept), 1);
        // Applying nowhere is still does-not-apply.
        let none = vec![judged_on("6.1", Verdict::DoesNotApply("x".into()))];
        assert_eq!(exit_code(&where_it_applies(&none)), 2);
    }

    const SERIES: &str = "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
From: A <a@example.org>
Subject: [PATCH 1/2] IB/hfi1: post sends at the threshold
 later
Conformance-Changes: hfi1_setup_wqe

Conformance-Changes: mtu_to_path_mtu, hfi1_qp_wakeup
---
 drivers/infiniband/hw/hfi1/qp.c | 2 +-

diff --git a/drivers/infiniband/hw/hfi1/qp.c b/drivers/infiniband/hw/hfi1/qp.c
--- a/drivers/infiniband/hw/hfi1/qp.c
+++ b/drivers/infiniband/hw/hfi1/qp.c
@@ -1 +1 @@
-a
+b

From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001
Subject: [PATCH 2/2] IB/hfi1: rc
---
--- a/drivers/infiniband/hw/hfi1/rc.c\t2024-01-01
+++ b/drivers/infiniband/hw/hfi1/rc.c\t2024-01-01
@@ -1 +1 @@
-a
+b
";

    #[test]
    fn an_mbox_series_splits_into_its_patches() {
        let p = parse(SERIES, "series.mbox");
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].subject, "IB/hfi1: post sends at the threshold later");
        assert_eq!(
            p[0].declared,
            ["hfi1_setup_wqe", "mtu_to_path_mtu", "hfi1_qp_wakeup"]
        );
        assert_eq!(p[0].files, ["drivers/infiniband/hw/hfi1/qp.c"]);
        assert_eq!(p[1].subject, "IB/hfi1: rc");
        assert_eq!(p[1].files, ["drivers/infiniband/hw/hfi1/rc.c"]);
    }

    #[test]
    fn a_plain_diff_is_one_patch_named_by_its_file() {
        let d = "--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n";
        let p = parse(d, "fix.diff");
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].subject, "fix.diff");
        assert_eq!(p[0].files, ["x.c"]);
        assert!(parse("no diff here\n", "x").is_empty());
    }
}
