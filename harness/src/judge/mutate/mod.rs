//! Mutants, made and judged: classic single-point mutants of upstream
//! functions ([`make`]), all built into one world behind a run-time switch
//! ([`schemata`]), each judged as base world against mutant world (the
//! gate's C-against-C comparison) on the corpus and, optionally,
//! generated vectors; a survivor's suggested vector ([`suggest`]). What
//! `cargo xtask mutants` and the gate's depth line share.
//!
//! A mutant that changes no outcome *survived*: an effect the harness
//! does not observe, a branch no vector drives, or an equivalent mutant.
//! Mutants are made from the tree at run time (nothing of upstream is
//! committed). A function is looked for in the files the worlds take from
//! the tree, as `c-shim/boundary.toml` says: the files compiled whole
//! (qp.c, iowait.c) by any of their definitions, the files definitions are
//! extracted from (sdma.c, pio.c, …) by the names listed for them. The
//! operators: a relational operator moved across its boundary or negated
//! (`<` → `<=`, `==` → `!=`, …), `&&` ↔ `||`, a logical `!` dropped, an
//! integer literal plus one, and a call or assignment statement deleted; a
//! variable (a table such as `hfi1_post_parms`) has none. A mutant's id is
//! stable across line shifts and series: the function, the trimmed text
//! of its line, the operator and which of the line's sites it is.
//!
//! Each mutant is judged by the schemata world with its switch on against
//! the base world, on the functions whose calls can reach its function's
//! switch ([`cworld::reach::reaching`]; the others run the same code). A
//! copy that does not compile is left out of the schemata and its mutant
//! built alone, as its own world (the base tree with its one file
//! mutated), where it does not compile either; `alone` builds every
//! mutant so, the slow check that schemata change no verdict.
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};

use crate::corpus::Vector;
use crate::cworld::{self, BuildOptions, BuiltWorld};
use crate::judge::compare;
use crate::kernel::{self, KernelTree};
use crate::model::types::Func;

pub mod make;
pub mod schemata;
pub mod suggest;

pub use make::{functions_on_lines, generate, on_lines, searched, Mutant, Searched};

/// The mutants on the lines `added` of `tree` (cargo-mutants'
/// `--in-diff`): of the functions named, or of every function the worlds
/// take that holds such a line.
pub fn in_diff(
    tree: &KernelTree,
    functions: &[String],
    added: &[(String, Vec<usize>)],
) -> Result<Vec<Mutant>> {
    let functions = if functions.is_empty() {
        let files = searched(&crate::cworld::build::Manifest::load()?);
        functions_on_lines(tree, &files, added)?
    } else {
        functions.to_vec()
    };
    if functions.is_empty() {
        return Ok(vec![]);
    }
    Ok(compiled(tree, on_lines(generate(tree, &functions)?, added)))
}

/// `mutants` without those on lines no world compiles (inside a
/// conditional group the worlds' preprocessor leaves out, such as
/// `#ifdef CONFIG_SDMA_VERBOSITY`): a change the compiler never sees is
/// no mutant of the code judged. The tree is preprocessed only when a
/// mutant's line is inside some conditional group.
pub fn compiled(tree: &KernelTree, mutants: Vec<Mutant>) -> Vec<Mutant> {
    use kernel::cond::Conditionals;
    // Each file's groups, scanned once; a file with none has nothing
    // compiled out.
    let mut groups: BTreeMap<String, Conditionals> = BTreeMap::new();
    for m in &mutants {
        if !groups.contains_key(&m.file) {
            let src = tree.read_to_string(&tree.path(&m.file)).unwrap_or_default();
            groups.insert(m.file.clone(), Conditionals::scan(&src));
        }
    }
    let inside = mutants.iter().any(|m| {
        groups
            .get(&m.file)
            .is_some_and(|c| c.of_line(m.line).is_some())
    });
    if !inside {
        return mutants;
    }
    let lines = match cworld::build::compiled_lines(tree) {
        Ok(l) => l,
        Err(e) => {
            // As the gate: without the compiled lines, every mutant is
            // judged (those the compiler never sees survive).
            eprintln!("[mutants] compiled lines not read, every mutant kept: {e:#}");
            return mutants;
        }
    };
    let files: BTreeMap<String, cworld::build::FileLines> = groups
        .into_iter()
        .filter_map(|(f, g)| Some((f.clone(), lines.file_of(&f, g)?)))
        .collect();
    mutants
        .into_iter()
        .filter(|m| {
            files
                .get(&m.file)
                .is_none_or(|f| f.compiled_out(cworld::build::Site::Line(m.line)).is_none())
        })
        .collect()
}

/// What became of a mutant.
#[derive(Debug, Clone)]
pub enum Fate {
    /// Some vector's outcome changed: the harness sees it.
    Killed {
        /// How many calls' outcomes changed.
        calls: u64,
    },
    /// Every outcome the same.
    Survived,
    /// It does not compile, or cannot be judged (a call of its world did
    /// not behave the same twice): not counted.
    Stillborn(String),
}

impl std::fmt::Display for Fate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fate::Killed { calls } => write!(f, "killed ({calls} calls differ)"),
            Fate::Survived => write!(f, "survived"),
            Fate::Stillborn(why) => write!(f, "not judged ({why})"),
        }
    }
}

/// How mutants are judged.
#[derive(Debug, Clone, Default)]
pub struct Judging {
    /// Generated vectors per function, besides the corpus.
    pub random: u64,
    /// The seed of the generated vectors.
    pub seed: u64,
    /// How the base and mutant worlds are built.
    pub build: BuildOptions,
    /// Build every mutant as its own world instead of in the schemata.
    pub alone: bool,
}

/// The schemata world of a run's mutants and where each is in it: what
/// judging them and suggesting vectors for them share.
#[derive(Debug, Clone, Default)]
pub struct Schemata {
    /// The world; `None` when every mutant was built alone.
    pub world: Option<BuiltWorld>,
    /// Each mutant's switch value in it (`None`: built alone).
    pub values: Vec<Option<i32>>,
    /// Per mutated function, the functions whose calls reach its switch.
    pub reach: BTreeMap<String, cworld::reach::Reach>,
}

impl Schemata {
    /// The world with mutant `k`'s switch on, and the functions whose
    /// calls reach it; `None` for a mutant built alone.
    pub fn mutant(&self, k: usize, m: &Mutant) -> Option<(BuiltWorld, cworld::reach::Reach)> {
        let (w, v) = (self.world.as_ref()?, self.values.get(k).copied().flatten()?);
        let r = self.reach.get(&m.function)?.clone();
        Some((w.switched(&schemata::switch_of(&m.function), v), r))
    }
}

/// Builds `all`'s mutants of `tree` and judges each against `base` (the
/// world of `tree`): all in one schemata world, each with its switch on in
/// turn; those that do not compile there (or every one, with
/// `how.alone`) each in its own world. Each mutant's fate, and the
/// schemata.
pub fn judge(
    tree: &KernelTree,
    base: &BuiltWorld,
    all: Vec<Mutant>,
    vectors: &[Vector],
    how: &Judging,
    progress: &mut dyn FnMut(&str),
) -> Result<(Vec<(Mutant, Fate)>, Schemata)> {
    let (world, values) = if how.alone || all.is_empty() {
        (None, vec![None; all.len()])
    } else {
        schemata::build(tree, &all, &how.build, progress)?
    };
    let funcs: Vec<Func> = Func::ALL.to_vec();
    let mut s = Schemata {
        world,
        values,
        reach: BTreeMap::new(),
    };
    if let Some(w) = &s.world {
        let mut names: Vec<String> = all.iter().map(|m| m.function.clone()).collect();
        names.dedup();
        let symbols: Vec<String> = names.iter().map(|f| schemata::switch_of(f)).collect();
        let found = cworld::reach::reaching(w, &symbols, &funcs);
        s.reach.extend(names.into_iter().zip(found));
    }
    let mut alone = Alone::new(tree);
    let mut out = vec![];
    let total = all.len();
    for (k, m) in all.into_iter().enumerate() {
        let judged = match s.mutant(k, &m) {
            Some((w, r)) => compare::compare_reaching(
                (base, &w),
                vectors,
                (&funcs, r),
                (how.random, how.seed),
                false,
            )
            .map_err(|e| unreproducible(e, &w))
            .and_then(differing_calls),
            None => alone.judge(&m, base, vectors, how),
        };
        let fate = match judged {
            Ok(0) => Fate::Survived,
            Ok(n) => Fate::Killed { calls: n },
            // A call of the mutant's own world that did not behave the
            // same twice (an uninitialised read, say): neither killed nor
            // a survivor, not counted, with the reason. Every other
            // harness fault (the base world's, a stalled worker) stops
            // the run.
            Err(e) if e.downcast_ref::<Unreproducible>().is_some() => {
                let why = format!("{e:#}").lines().next().unwrap_or("").to_owned();
                eprintln!("[mutants] not judged: {}: {why}", m.id());
                Fate::Stillborn(why)
            }
            Err(e) if cworld::HarnessFault::in_chain(&e) => return Err(e),
            Err(e) => Fate::Stillborn(format!("{e:#}").lines().next().unwrap_or("").to_owned()),
        };
        progress(&format!("[{}/{total}] {}: {fate}", k + 1, m.id()));
        out.push((m, fate));
    }
    drop(alone);
    Ok((out, s))
}

/// How many calls of a comparison differ; an error when none does but
/// some were not run (a crash storm cut short on both sides alike): that
/// mutant is not judged, rather than said to survive.
fn differing_calls(c: compare::Comparison) -> Result<u64> {
    let n = c.per_func.iter().map(|p| p.2).sum();
    if n == 0 && !c.not_run.is_empty() {
        let k: u64 = c.not_run.iter().map(|x| x.1).sum();
        anyhow::bail!(
            "no call differs, but {k} generated calls were not run (faults confirmed {} \
             times on a side)",
            crate::cworld::FAULT_PROOFS
        );
    }
    Ok(n)
}

/// Mutants judged each in its own world: a copy of the tree (made on
/// first use, removed on drop) with the mutant's one file mutated.
struct Alone<'a> {
    tree: &'a KernelTree,
    dir: Option<std::path::PathBuf>,
    /// The files mutated, as the tree has them.
    sources: BTreeMap<String, String>,
}

impl<'a> Alone<'a> {
    fn new(tree: &'a KernelTree) -> Alone<'a> {
        Alone {
            tree,
            dir: None,
            sources: BTreeMap::new(),
        }
    }

    /// The differing calls of `m`'s own world against `base`.
    fn judge(
        &mut self,
        m: &Mutant,
        base: &BuiltWorld,
        vectors: &[Vector],
        how: &Judging,
    ) -> Result<u64> {
        let dir = match &self.dir {
            Some(d) => d.clone(),
            None => {
                let d =
                    std::env::temp_dir().join(format!("hfi1-mutant-tree-{}", std::process::id()));
                let _ = std::fs::remove_dir_all(&d);
                kernel::copy_tree(&self.tree.root, &d).context("copying the tree")?;
                self.dir.insert(d).clone()
            }
        };
        if !self.sources.contains_key(&m.file) {
            let src = self.tree.read_to_string(&self.tree.path(&m.file))?;
            self.sources.insert(m.file.clone(), src);
        }
        let src = &self.sources[&m.file];
        let mut text = src.clone();
        text.replace_range(m.at.clone(), &m.replacement);
        // The base tree with this one file mutated; put back after.
        let at = dir.join(&m.file);
        std::fs::write(&at, &text)?;
        let judged = judge_alone(base, &dir, vectors, how);
        std::fs::write(&at, src)?;
        judged
    }
}

impl Drop for Alone<'_> {
    fn drop(&mut self) {
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

fn judge_alone(base: &BuiltWorld, dir: &Path, vectors: &[Vector], how: &Judging) -> Result<u64> {
    let tree = KernelTree::open(dir)?;
    let world = cworld::build(&tree, &how.build)?;
    let c = compare::count_differences(
        base,
        &world,
        vectors,
        Func::ALL,
        (how.random, how.seed),
        compare::Selection::Reached,
    )
    .map_err(|e| unreproducible(e, &world))?;
    differing_calls(c)
}

/// A mutant world whose call did not behave the same twice.
#[derive(Debug)]
struct Unreproducible(String);

impl std::fmt::Display for Unreproducible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not reproducible in the mutant's world: {}", self.0)
    }
}

impl std::error::Error for Unreproducible {}

/// `e`, or [`Unreproducible`] when it is the harness fault of a call of
/// the mutant's world (`world`, named in the fault) that did not fault
/// the same way when run again alone (blame.rs's "first run, in a
/// batch").
pub(super) fn unreproducible(e: anyhow::Error, world: &BuiltWorld) -> anyhow::Error {
    let text = format!("{e:#}");
    let mine = text.contains(&world.so.display().to_string());
    if cworld::HarnessFault::in_chain(&e) && mine && text.contains("first run, in a batch") {
        anyhow::Error::new(Unreproducible(text.lines().next().unwrap_or("").to_owned()))
    } else {
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a call of the mutant's own world that did not behave the same
    /// twice is the mutant's (not judged); the base world's faults and a
    /// worker that stalled between calls stay harness faults (exit 2).
    #[test]
    fn only_the_mutants_unreproducible_call_is_the_mutants() {
        let mutant = BuiltWorld::unbuilt(Path::new("/w/mutant"));
        let fault = |text: String| anyhow::Error::new(cworld::HarnessFault(text));
        let twice = |so: &str| {
            fault(format!(
                "call 6 of a batch (sdma_desc_avail) in {so}: first run, in a batch: hang; \
                 run again alone in a fresh worker: it returned"
            ))
        };
        let e = unreproducible(twice("/w/mutant/libhfi1world.so"), &mutant);
        assert!(e.downcast_ref::<Unreproducible>().is_some(), "{e:#}");
        assert!(!cworld::HarnessFault::in_chain(&e));
        let e = unreproducible(twice("/w/base/libhfi1world.so"), &mutant);
        assert!(cworld::HarnessFault::in_chain(&e), "{e:#}");
        let stalled = fault(
            "the worker for /w/mutant/libhfi1world.so stopped outside any call during a batch"
                .into(),
        );
        let e = unreproducible(stalled, &mutant);
        assert!(cworld::HarnessFault::in_chain(&e), "{e:#}");
        let other = unreproducible(anyhow::anyhow!("does not compile"), &mutant);
        assert!(other.downcast_ref::<Unreproducible>().is_none());
    }
}
