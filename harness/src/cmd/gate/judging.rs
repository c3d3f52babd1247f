//! Judging a series on one base: each patch applied to a copy of the tree
//! holding the patches before it, built, compared C against C with that
//! tree, checked against the Rust model, and measured for patch coverage.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};

use super::coverage::{patch_coverage, prebuild, stable_copy};
use super::decisions::patch_mcdc;
use super::depth::{depth, Origin};
use super::lacking;
use super::record;
use super::scope::{classify, inside_conditionals};
use super::unbuilt::{self, Blame};
use super::verdict::PatchVerdict;
use super::{Judged, ModelDrift, Options};
use crate::corpus::Vector;
use crate::cworld::build::{CannotJudge, CompiledLines};
use crate::cworld::{self, BuildOptions, BuiltWorld, HarnessFault};
use crate::judge::compare::{self, Comparison};
use crate::kernel::names::TreeNames;
use crate::kernel::patch::{added_outside, apply, Patch};
use crate::kernel::{self, KernelTree};
use crate::report::Tree;
use crate::sandbox::Sandbox;

/// Judges `patches` in order on `base`.
pub fn judge(
    base: &KernelTree,
    base_name: &str,
    patches: &[Patch],
    vectors: &[Vector],
    opts: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Judged>> {
    let all = 0..patches.len();
    judge_part(base, base_name, patches, all, vectors, opts, progress)
}

/// Judges `patches[only]` on `base` as [`judge`] judges them in the whole
/// series (a shard's part): the patches before them applied first, and
/// built only when they leave a tree that does not build (to say which).
pub fn judge_part(
    base: &KernelTree,
    base_name: &str,
    patches: &[Patch],
    only: std::ops::Range<usize>,
    vectors: &[Vector],
    opts: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Judged>> {
    if only.is_empty() {
        return Ok(vec![]);
    }
    let sb = Sandbox::get()?;
    let dir = scratch("tree");
    let tmp = scratch("tmp");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    kernel::copy_tree(&base.root, &dir).context("copying the base tree")?;
    let result = Series {
        sb,
        base,
        base_name,
        vectors,
        opts,
        patches,
        dir: &dir,
        tmp: &tmp,
        base_names: std::cell::OnceCell::new(),
        offered: std::cell::OnceCell::new(),
    }
    .judge(patches, only, progress);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

/// Why the patches after patch `k` (from 0) cannot be judged.
fn did_not_apply(k: usize) -> String {
    format!("patch {} did not apply", k + 1)
}

/// Why the patches after patch `k` (from 0) cannot be judged when it
/// broke the build.
fn did_not_build(k: usize) -> String {
    format!("patch {} left a tree that does not build", k + 1)
}

/// A scratch directory of this process and thread.
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

/// What judging a series on one base works with.
struct Series<'a> {
    sb: &'a Sandbox,
    base: &'a KernelTree,
    /// The base as reports name it (`6.12`).
    base_name: &'a str,
    vectors: &'a [Vector],
    opts: &'a Options,
    /// The series.
    patches: &'a [Patch],
    /// A copy of the base, each patch applied to it in turn.
    dir: &'a Path,
    /// Scratch space for the patch file.
    tmp: &'a Path,
    /// The base's index of names, read once ([`Series::names`]).
    base_names: std::cell::OnceCell<Option<TreeNames>>,
    /// What kcompat declares, read once ([`Series::offered`]).
    offered: std::cell::OnceCell<std::collections::HashSet<String>>,
}

/// Where a series stands between two of its patches.
struct Progress {
    /// The files some world of the base compiles.
    inputs: Vec<String>,
    /// The world of the tree before the next patch, or why there is none.
    prev: Result<BuiltWorld, String>,
    /// Why no later patch can be judged (one did not apply or build).
    blocked: Option<String>,
    /// The lines the tree's worlds compile, once the patch applied has an
    /// edit inside a conditional group (else `None`: nothing to tell).
    compiled: Option<CompiledLines>,
    /// The patch just applied, its hunks where `patch` put them (the
    /// lines it touches in this tree are read from it).
    applied: Option<Patch>,
}

/// Seconds per phase of one patch: apply, build, compare, model, coverage.
type Timings = Vec<(&'static str, f64)>;

impl Series<'_> {
    fn judge(
        &self,
        patches: &[Patch],
        only: std::ops::Range<usize>,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Vec<Judged>> {
        let (mut at, mut before) = match self.skip_to(patches, only.start)? {
            Some(skipped) => skipped,
            None => {
                // A patch before the part leaves a tree that does not
                // build: judge them again, from the base, to say which.
                let _ = std::fs::remove_dir_all(self.dir);
                kernel::copy_tree(&self.base.root, self.dir).context("copying the base tree")?;
                let mut at = self.start()?;
                let mut before = record::base(self.base_name, self.base, &at.prev);
                for (k, p) in patches[..only.start].iter().enumerate() {
                    self.step(patches, (k, p), &mut at, &mut before, progress)?;
                }
                (at, before)
            }
        };
        let mut out = vec![];
        for (k, p) in patches.iter().enumerate().take(only.end).skip(only.start) {
            out.push(self.step(patches, (k, p), &mut at, &mut before, progress)?);
        }
        Ok(out)
    }

    /// Judges patch `k`, `p`, and records its trees: `before`, the tree
    /// it was applied to, becomes the tree after it.
    fn step(
        &self,
        patches: &[Patch],
        (k, p): (usize, &Patch),
        at: &mut Progress,
        before: &mut Tree,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Judged> {
        progress(&format!(
            "{}: patch {} of {}: {}",
            self.base_name,
            k + 1,
            patches.len(),
            p.subject
        ));
        let mut times = Timings::new();
        let blocked = at.blocked.is_some();
        let mut j = self.judge_patch(k, p, at, &mut times, progress)?;
        j.timings = times;
        let after = record::After {
            base: self.base_name,
            base_tree: self.base,
            patches,
            k,
            blocked,
            dir: self.dir,
            world: at.prev.as_ref().ok(),
        };
        j.trees = after.trees(&j, before);
        *before = j.trees[1].clone();
        Ok(j)
    }

    /// Where judging stands before the first patch: the base built.
    fn start(&self) -> Result<Progress> {
        Ok(Progress {
            inputs: cworld::build::tree_inputs(self.base)?,
            prev: cworld::build(self.base, &BuildOptions::default())
                .map_err(|e| format!("the base tree: {e:#}")),
            blocked: None,
            compiled: None,
            applied: None,
        })
    }

    /// Where judging stands after the first `n` patches, applied without
    /// being judged, and the tree patch `n` is applied to, as judging them
    /// would have left both: the tree they leave built, or blocked by the
    /// first that does not apply; `None` when that tree does not build.
    fn skip_to(&self, patches: &[Patch], n: usize) -> Result<Option<(Progress, Tree)>> {
        if n == 0 {
            let at = self.start()?;
            let base = record::base(self.base_name, self.base, &at.prev);
            return Ok(Some((at, base)));
        }
        // What the record of the tree after patch n - 1 takes of the base:
        // its checkout (its world is not needed).
        let base = record::base(self.base_name, self.base, &Err(String::new()));
        let inputs = cworld::build::tree_inputs(self.base)?;
        let key = |t: &KernelTree| cworld::build::recipe(t, &BuildOptions::default()).key;
        // The key of the world a whole run would hold: the tree's after the
        // last patch it would have built (a patch none of whose changed
        // functions runs, touching no file compiled whole, is not built).
        let mut held = key(self.base);
        let mut failed = None;
        let mut last = None;
        for (k, p) in patches[..n].iter().enumerate() {
            let Ok(p) = apply(self.sb, self.dir, p, self.tmp)? else {
                failed = Some(k);
                break;
            };
            let compiled = self.compiled_lines(&p, &inputs, &mut |_| {});
            let scope = classify(self.dir, &p, &inputs, compiled.as_ref());
            last = Some((p, compiled));
            if !scope.functions.none_judged() || scope.compiled_whole {
                held = key(&KernelTree::open(self.dir)?);
            }
        }
        let (at, verdict) = match failed {
            Some(k) => {
                let at = Progress {
                    inputs,
                    prev: Err(did_not_apply(k)),
                    blocked: Some(did_not_apply(k)),
                    compiled: None,
                    applied: None,
                };
                (at, PatchVerdict::DoesNotApply(String::new()))
            }
            None => {
                let tree = KernelTree::open(self.dir)?;
                let Ok(world) = cworld::build(&tree, &BuildOptions::default()) else {
                    return Ok(None);
                };
                let (applied, compiled) = last.unzip();
                let at = Progress {
                    inputs,
                    prev: Ok(world),
                    blocked: None,
                    compiled: compiled.flatten(),
                    applied,
                };
                (at, PatchVerdict::Preserves)
            }
        };
        // The tree after patch n - 1, as its judgement recorded it (what
        // of it the record reads: whether it applied, whether the world
        // the series held is that tree's).
        let last = &patches[n - 1];
        let this = KernelTree::open(self.dir)
            .map(|t| key(&t))
            .unwrap_or_default();
        let after = record::After {
            base: self.base_name,
            base_tree: self.base,
            patches,
            k: n - 1,
            blocked: failed.is_some_and(|k| k < n - 1),
            dir: self.dir,
            world: at.prev.as_ref().ok().filter(|_| held == this),
        };
        let j = self.judged(last, &at, verdict, None, vec![]);
        let before = after.trees(&j, &base).swap_remove(1);
        Ok(Some((at, before)))
    }

    /// The lines the worlds of the tree `p` was just applied to compile,
    /// when some edit of `p` is inside a conditional group; `None`
    /// otherwise, or (said through `progress`) when the tree could not be
    /// preprocessed: its edits are then judged by the build alone.
    fn compiled_lines(
        &self,
        p: &Patch,
        inputs: &[String],
        progress: &mut dyn FnMut(&str),
    ) -> Option<CompiledLines> {
        if !inside_conditionals(self.dir, p, inputs) {
            return None;
        }
        let lines = KernelTree::open(self.dir).and_then(|t| cworld::build::compiled_lines(&t));
        lines
            .map_err(|e| progress(&format!("compiled lines not read: {e:#}")))
            .ok()
    }

    /// A judgement of `p` on this base, the rest measured later.
    fn judged(
        &self,
        p: &Patch,
        at: &Progress,
        verdict: PatchVerdict,
        comparison: Option<Comparison>,
        new_warnings: Vec<String>,
    ) -> Judged {
        let applied = at.applied.as_ref().unwrap_or(p);
        let scope = classify(self.dir, applied, &at.inputs, at.compiled.as_ref());
        Judged {
            base: self.base_name.to_owned(),
            patch: p.clone(),
            verdict,
            comparison,
            not_judged: scope.not_judged,
            functions: scope.functions,
            new_warnings,
            timings: vec![],
            coverage: None,
            mcdc: None,
            depth: None,
            model: None,
            trees: vec![],
        }
    }

    /// Applies `p` to the tree and reads where its edits fall (`at` keeps
    /// the patch as applied and the tree's compiled lines): the patch as
    /// applied and its scope, or `patch`'s words when it does not apply.
    fn apply_and_classify(
        &self,
        p: &Patch,
        at: &mut Progress,
        times: &mut Timings,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Result<(Patch, super::scope::Scope), String>> {
        let t = Instant::now();
        let applied = apply(self.sb, self.dir, p, self.tmp)?;
        times.push(("apply", t.elapsed().as_secs_f64()));
        let applied = match applied {
            Ok(a) => a,
            Err(e) => return Ok(Err(e)),
        };
        let t = Instant::now();
        at.compiled = self.compiled_lines(&applied, &at.inputs, progress);
        if at.compiled.is_some() {
            times.push(("preprocess", t.elapsed().as_secs_f64()));
        }
        let scope = classify(self.dir, &applied, &at.inputs, at.compiled.as_ref());
        at.applied = Some(applied.clone());
        Ok(Ok((applied, scope)))
    }

    /// Judges patch `k`, `p`, on the tree the patches before it left. A
    /// patch none of whose changed functions a world runs is `not-judged`
    /// once applied, without a build (with one when it touches a file a
    /// world compiles whole: it must still build, and the patches after it
    /// are compared with its world).
    fn judge_patch(
        &self,
        k: usize,
        p: &Patch,
        at: &mut Progress,
        times: &mut Timings,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Judged> {
        at.compiled = None;
        at.applied = None;
        if let Some(why) = &at.blocked {
            let verdict = PatchVerdict::CannotJudge(why.clone());
            return Ok(self.judged(p, at, verdict, None, vec![]));
        }
        let (applied, scope) = match self.apply_and_classify(p, at, times, progress)? {
            Ok(done) => done,
            Err(e) => {
                at.blocked = Some(did_not_apply(k));
                return Ok(self.judged(p, at, PatchVerdict::DoesNotApply(e), None, vec![]));
            }
        };
        let unrun = scope.functions.none_judged();
        if unrun && !scope.compiled_whole {
            // No world runs its code, but a real build still reads it.
            if let Some(msg) = self.lacking(k, &applied, at.compiled.as_ref()) {
                at.blocked = Some(did_not_build(k));
                return Ok(self.judged(p, at, PatchVerdict::BreaksBuild(msg), None, vec![]));
            }
            return Ok(self.judged(p, at, PatchVerdict::NotJudged, None, vec![]));
        }
        // Patch coverage's tree, placed, and its world built meanwhile.
        let placed = (!scope.lines.is_empty())
            .then(|| KernelTree::open(self.dir).map(|t| stable_copy(&t)))
            .transpose()?;
        let cov = placed.as_ref().and_then(|t| prebuild(t, &scope.lines));
        let (tree, world) = match self.build(k, &applied, at.compiled.as_ref(), times)? {
            Ok(built) => built,
            Err((verdict, why)) => {
                at.blocked = Some(why);
                return Ok(self.judged(p, at, verdict, None, vec![]));
            }
        };
        let before = match &at.prev {
            Ok(w) => w.clone(),
            Err(_) if unrun => {
                at.prev = Ok(world);
                return Ok(self.judged(p, at, PatchVerdict::NotJudged, None, vec![]));
            }
            Err(e) => {
                let j = self.judged(p, at, PatchVerdict::CannotJudge(e.clone()), None, vec![]);
                at.prev = Ok(world);
                return Ok(j);
            }
        };
        let new_warnings = added_warnings(&before.warnings(), &world.warnings());
        if unrun {
            at.prev = Ok(world);
            return Ok(self.judged(p, at, PatchVerdict::NotJudged, None, new_warnings));
        }
        let j = self.compare(p, at, (&before, &world), new_warnings, times, progress)?;
        let j = match j {
            Ok(mut j) => {
                let t = Instant::now();
                // Coverage runs the functions the comparison ran and saw
                // return: a function the patch makes hang would hang again
                // under four times the limit, and a worker killed for it
                // writes no counters.
                let mut not_run = vec![];
                if let Some(c) = &j.comparison {
                    not_run.extend(c.same_code.iter().copied());
                    // A function one tree lacks cannot run in both.
                    not_run.extend(c.not_in_tree.iter().map(|n| n.0));
                    not_run.extend(
                        c.groups
                            .iter()
                            .filter(|g| g.shape.iter().any(|s| s.ends_with("-> hang")))
                            .map(|g| g.func),
                    );
                }
                if let Some(h) = cov {
                    let _ = h.join();
                }
                let placed = placed.unwrap_or(tree);
                j.coverage = self.coverage(&placed, &scope.lines, &not_run, progress)?;
                times.push(("coverage", t.elapsed().as_secs_f64()));
                if self.opts.depth {
                    let t = Instant::now();
                    j.mcdc = self.mcdc(&placed, &scope.lines, &not_run, progress)?;
                    times.push(("mcdc", t.elapsed().as_secs_f64()));
                }
                j.depth = self.depth((k, &applied), (&placed, &world), times, progress)?;
                j
            }
            Err(j) => j,
        };
        at.prev = Ok(world);
        Ok(j)
    }

    /// Compares the worlds before and after `p` and checks both against
    /// the Rust model: the judgement (its coverage to measure), or one
    /// that could not be made (`Err`).
    fn compare(
        &self,
        p: &Patch,
        at: &Progress,
        (before, world): (&BuiltWorld, &BuiltWorld),
        new_warnings: Vec<String>,
        times: &mut Timings,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Result<Judged, Judged>> {
        let opts = self.opts;
        let t = Instant::now();
        let c = compare::compare(
            before,
            world,
            self.vectors,
            &opts.funcs,
            opts.random,
            opts.seed,
            &mut |m| progress(m),
        );
        times.push(("compare", t.elapsed().as_secs_f64()));
        let c = match c {
            Ok(c) => c,
            Err(e) if HarnessFault::in_chain(&e) => return Err(e),
            Err(e) => {
                let verdict = PatchVerdict::CannotJudge(format!("{e:#}"));
                return Ok(Err(self.judged(p, at, verdict, None, new_warnings)));
            }
        };
        let verdict = self.verdict(p, &c);
        let moved = moved_out_of_reach(p, &c);
        let cut = c.judged_in_part();
        let mut j = self.judged(p, at, verdict, Some(c), new_warnings);
        // A function whose calls both trees fault on alike, past the
        // faults confirmed, was not compared further: no `preserves` for it.
        for (f, k) in cut {
            j.not_judged.push(format!(
                "{f}: {k} generated calls not run (both trees faulted on its calls alike, \
                 {} times each confirmed alone; not judged past them)",
                crate::cworld::FAULT_PROOFS
            ));
            // The changed unit of that function, if it is one, is judged
            // in part; else the function itself is named.
            let own = format!(": {f}");
            let unit = match j.functions.judged.iter().position(|u| u.ends_with(&own)) {
                Some(i) => j.functions.judged.remove(i),
                None => f.to_string(),
            };
            j.functions.not_judged.push(unit);
        }
        for unit in moved {
            j.not_judged.push(format!(
                "{unit}: the patch adds it where no world takes it (its calls run in the tree before only; not judged)"
            ));
            j.functions.not_judged.push(unit);
        }
        let t = Instant::now();
        j.model = model_drift(before, world, self.vectors)?;
        times.push(("model", t.elapsed().as_secs_f64()));
        progress(&format!(
            "{}: {}: {} (measuring patch coverage next)",
            self.base_name,
            p.subject,
            j.verdict.word()
        ));
        Ok(Ok(j))
    }

    /// Builds the tree patch `k` left; or the verdict when it does not
    /// build, with why the patches after it cannot be judged.
    fn build(
        &self,
        k: usize,
        applied: &Patch,
        compiled: Option<&CompiledLines>,
        times: &mut Timings,
    ) -> Result<Result<(KernelTree, BuiltWorld), (PatchVerdict, String)>> {
        let tree = KernelTree::open(self.dir)?;
        // What the tree lacks fails a real build whatever the harness's
        // compile would say: known before building, from the patch's lines.
        if let Some(msg) = self.lacking(k, applied, compiled) {
            return Ok(Err((PatchVerdict::BreaksBuild(msg), did_not_build(k))));
        }
        let t = Instant::now();
        let built = cworld::build(&tree, &BuildOptions::default());
        times.push(("build", t.elapsed().as_secs_f64()));
        match built {
            Ok(world) => Ok(Ok((tree, world))),
            Err(e) => {
                // Paths in the tree, not in this process's scratch copy of
                // it: the same patch gives the same words in any run.
                let dir = self.dir.display().to_string();
                let msg = format!("{e:#}")
                    .replace(&format!("{dir}/"), "")
                    .replace(&dir, "the patched tree");
                let verdict = if !upstream_error(&e, self.dir) {
                    PatchVerdict::CannotJudge(msg)
                } else {
                    match self.blame(k, &format!("{e:#}")) {
                        Blame::Patch => PatchVerdict::BreaksBuild(msg),
                        Blame::Harness(why) => {
                            PatchVerdict::CannotJudge(format!("{why}. The compiler said:\n{msg}"))
                        }
                    }
                };
                Ok(Err((verdict, did_not_build(k))))
            }
        }
    }

    /// Whose fault the failed build `text` of the tree patch `k` left is
    /// ([`unbuilt`]): the base's generic headers, and what the series up
    /// to `k` adds to headers the harness does not compile, are what a
    /// real build would see. With no index of the base's names (a tree of
    /// the extracted part only), the patch's, as the compiler says.
    fn blame(&self, k: usize, text: &str) -> Blame {
        let Some(names) = self.names(k) else {
            return Blame::Patch;
        };
        let own = lacking::own(self.dir);
        unbuilt::blame(
            text,
            self.dir,
            &names,
            (self.offered(), &own.names),
            &|tag| own.bodies.contains(tag),
        )
    }

    /// The names a real build of the tree patch `k` left sees: the base's
    /// generic headers' (its index), and what the series up to `k` adds
    /// to headers the harness does not compile. `None`, said, when the
    /// base has no index that can be read.
    fn names(&self, k: usize) -> Option<TreeNames> {
        let base = self.base_names.get_or_init(|| {
            match TreeNames::of(&self.base.root, &kernel::extracted) {
                Ok(n) => n,
                Err(e) => {
                    eprintln!(
                        "[gate] the index of the names of {} cannot be read ({e:#}): build \
                         errors are taken as the patch's, and what kcompat alone offers is \
                         not checked",
                        self.base.root.display()
                    );
                    None
                }
            }
        });
        let mut names = base.clone()?;
        for p in &self.patches[..=k] {
            for hunk in added_outside(&p.text) {
                names.add(&hunk);
            }
        }
        Some(names)
    }

    /// What kcompat's headers declare ([`lacking::offered`]), read once.
    fn offered(&self) -> &std::collections::HashSet<String> {
        self.offered
            .get_or_init(|| lacking::offered(&cworld::build::cshim_dir().join("kcompat/include")))
    }

    /// Why the tree patch `k` (`applied`) left would not build in a real
    /// build though the harness built it: the interfaces its added lines
    /// use that the tree lacks and kcompat offers ([`lacking`]).
    fn lacking(
        &self,
        k: usize,
        applied: &Patch,
        compiled: Option<&CompiledLines>,
    ) -> Option<String> {
        let names = self.names(k)?;
        let found = lacking::lacking(self.dir, applied, &names, self.offered(), compiled);
        (!found.is_empty()).then(|| {
            format!(
                "the patch uses {}, which this tree ({}) does not declare: a real build \
                 fails there (read from the patch's lines and the tree's headers before any \
                 compile; c-shim/kcompat offers {} to every tree)",
                found.join(", "),
                self.base.version,
                if found.len() == 1 { "it" } else { "them" }
            )
        })
    }

    /// The verdict on a comparison that could be made: a change is as
    /// declared when every function it changes is declared, by the patch
    /// or by `--expect-change`.
    fn verdict(&self, p: &Patch, c: &Comparison) -> PatchVerdict {
        let declared: Vec<&String> = p.declared.iter().chain(&self.opts.expect).collect();
        if !c.differs() {
            PatchVerdict::Preserves
        } else if c
            .differing_functions()
            .iter()
            .all(|f| declared.iter().any(|d| *d == f.name()))
        {
            PatchVerdict::ChangesAsDeclared
        } else {
            PatchVerdict::Changes
        }
    }

    /// The depth of patch `k` ([`depth`]) in `tree`, the tree it left,
    /// whose world is `world`; `None` with `--no-depth`, or (said through
    /// `progress`) when it could not be measured.
    fn depth(
        &self,
        (k, applied): (usize, &Patch),
        (tree, world): (&KernelTree, &BuiltWorld),
        times: &mut Timings,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Option<crate::report::Depth>> {
        if !self.opts.depth {
            return Ok(None);
        }
        let t = Instant::now();
        let origin = Origin {
            base: self.base,
            patches: &self.patches[..=k],
            later: k + 1 < self.patches.len(),
        };
        let p = &self.patches[k];
        let d = depth(
            (tree, world),
            applied,
            &origin,
            self.vectors,
            self.opts,
            progress,
        );
        times.push(("depth", t.elapsed().as_secs_f64()));
        match d {
            Ok(d) => {
                progress(&format!("{}: {}: {}", self.base_name, p.subject, d.line()));
                Ok(Some(d))
            }
            Err(e) if HarnessFault::in_chain(&e) => Err(e),
            Err(e) => {
                progress(&format!("depth not measured: {e:#}"));
                Ok(None)
            }
        }
    }

    /// The coverage of a patch's changed `lines` in the patched tree,
    /// `placed` ([`stable_copy`]), run by the functions the comparison
    /// ran; `None` when there are none, or (said through `progress`) when
    /// it could not be measured.
    fn coverage(
        &self,
        placed: &KernelTree,
        lines: &[(String, usize)],
        not_run: &[crate::model::types::Func],
        progress: &mut dyn FnMut(&str),
    ) -> Result<Option<crate::report::PatchCoverage>> {
        match patch_coverage(placed, lines, self.vectors, self.opts, not_run) {
            Ok(c) => Ok(c),
            Err(e) if HarnessFault::in_chain(&e) => Err(e),
            Err(e) => {
                progress(&format!("patch coverage not measured: {e:#}"));
                Ok(None)
            }
        }
    }

    /// MC/DC of the decisions on a patch's changed `lines` in the patched
    /// tree, `placed`, run by the functions the comparison ran; `None`
    /// when no changed line holds a decision, or (said through
    /// `progress`) when it could not be measured.
    fn mcdc(
        &self,
        placed: &KernelTree,
        lines: &[(String, usize)],
        not_run: &[crate::model::types::Func],
        progress: &mut dyn FnMut(&str),
    ) -> Result<Option<crate::report::PatchMcdc>> {
        let funcs: Vec<_> = self
            .opts
            .funcs
            .iter()
            .copied()
            .filter(|f| !not_run.contains(f))
            .collect();
        match patch_mcdc(placed, lines, self.vectors, self.opts, &funcs) {
            Ok(m) => Ok(m),
            Err(e) if HarnessFault::in_chain(&e) => Err(e),
            Err(e) => {
                progress(&format!("MC/DC of changed decisions not measured: {e:#}"));
                Ok(None)
            }
        }
    }
}

/// The functions one tree lacks (removed or added, as boundary.toml's
/// `optional` looks for them) that the patch still names on a line it
/// adds: moved or defined where no world extracts them (a header's
/// inline, another file), so what they do after the patch is not run.
/// Each as a changed function's unit (`sdma.c: sdma_all_idle`).
fn moved_out_of_reach(p: &Patch, c: &Comparison) -> Vec<String> {
    let manifest = cworld::build::Manifest::load().ok();
    let file_of = |name: &str| {
        manifest
            .as_ref()
            .and_then(|m| {
                m.upstream
                    .extract
                    .iter()
                    .find(|e| e.optional.iter().any(|o| o == name))
            })
            .map(|e| e.file.rsplit('/').next().unwrap_or(&e.file).to_owned())
            .unwrap_or_default()
    };
    c.not_in_tree
        .iter()
        .filter(|(_, presence)| *presence != compare::Presence::Neither)
        .filter(|(f, _)| crate::kernel::patch::adds_identifier(&p.text, f.name()))
        .map(|(f, _)| format!("{}: {}", file_of(f.name()), f.name()))
        .collect()
}

/// The corpus vectors where the trees before and after a patch part from
/// the Rust model; `None` when either could not be run. Only vectors the
/// tree after the patch can run count: one of a function the patch
/// removes neither agrees nor disagrees after it (one it adds is judged
/// after it, and not run before).
fn model_drift(
    before: &BuiltWorld,
    after: &BuiltWorld,
    vectors: &[Vector],
) -> Result<Option<ModelDrift>> {
    let both: Vec<Vector> = vectors
        .iter()
        .filter(|v| !v.steps().any(|c| after.lacks(c.func())))
        .cloned()
        .collect();
    let vectors = &both[..];
    match (
        model_disagreements(before, vectors),
        model_disagreements(after, vectors),
    ) {
        (Ok(before), Ok(after)) => Ok(Some(ModelDrift {
            before,
            after,
            corpus: vectors.len(),
        })),
        (Err(e), _) | (_, Err(e)) if HarnessFault::in_chain(&e) => Err(e),
        _ => Ok(None),
    }
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

/// Whether a build error is the patched upstream code's (the compiler
/// names a file of the tree, or a kernel build-time check failed,
/// [`unbuilt::kernel_check`]) rather than the harness's.
fn upstream_error(err: &anyhow::Error, tree: &Path) -> bool {
    if err.downcast_ref::<CannotJudge>().is_some() {
        return false;
    }
    let text = format!("{err:#}");
    let root = tree.display().to_string();
    text.lines().any(|l| {
        (l.contains("error:") || l.contains("undefined reference")) && l.starts_with(&root)
            || l.split_once(": error: ")
                .is_some_and(|(_, m)| unbuilt::kernel_check(m))
    })
}
