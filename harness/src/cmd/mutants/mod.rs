//! `cargo xtask mutants`: classic single-point mutants of the upstream
//! functions in scope, each judged as base world against mutant world (the
//! gate's C-against-C comparison) on the corpus and, optionally, generated
//! vectors. A mutant that changes no outcome *survived*: an effect the
//! harness does not observe, a branch no vector drives, or an equivalent
//! mutant.
//!
//! Mutants are made from the tree at run time (nothing of upstream is
//! committed). A function is looked for in the files the worlds take from
//! the tree, as `c-shim/boundary.toml` says: the files compiled whole
//! (qp.c, iowait.c) by any of their definitions, the files definitions are
//! extracted from (sdma.c, pio.c, …) by the names listed for them; by
//! default the functions mutated are those of the call schema. A mutant
//! mutates that one file of a copy of the tree. The operators: a
//! relational operator moved across its boundary or negated (`<` → `<=`,
//! `==` → `!=`, …), `&&` ↔ `||`, a logical `!` dropped, an integer literal
//! plus one, and a call or assignment statement deleted; a variable (a
//! table such as `hfi1_post_parms`) has none. A mutant's id is stable
//! across line shifts and series: the function, the trimmed text of its
//! line, the operator and which of the line's sites it is.
//!
//! Every mutant of a run is compiled into one world, the *mutant
//! schemata* ([`schemata`]): each mutated function's original, a copy per
//! mutant and a dispatcher that picks one by a switch the worker sets
//! after loading the world. Each mutant is judged by that world with its
//! switch on against the base world, on the functions whose calls can
//! reach its function's switch ([`cworld::reach::reaching`]; the others
//! run the same code). A copy that does not compile is left out of the
//! schemata and its mutant built alone, as its own world (the base tree
//! with its one file mutated), where it does not compile either; `alone`
//! builds every mutant so, the slow check that schemata change no
//! verdict.
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};

use crate::corpus::Vector;
use crate::cworld::{self, BuildOptions, BuiltWorld};
use crate::judge::compare;
use crate::kernel::{self, KernelTree};
use crate::model::types::Func;
use crate::report::{Case, Report, ShardSpec, Status, Suite};

mod make;
pub mod schemata;
mod survivors;

pub use make::{generate, searched, Mutant, Searched};
pub use survivors::{
    check_manifest, manifest_path, parse_manifest, read_manifest, tally, Listed, Problem, Tally,
};

/// The functions named (C names), or every function of the call schema
/// when none is.
fn named_or_all(functions: &[String]) -> Vec<String> {
    if functions.is_empty() {
        Func::ALL.iter().map(|f| f.name().to_owned()).collect()
    } else {
        functions.to_vec()
    }
}

/// The manifest entries a run answers for: those of the functions it
/// mutates ([`named_or_all`]). An entry of a helper mutated only when
/// named (`--function sdma_flush_descq`) is not gone from a default run.
pub fn listed_for_run(listed: &[Listed], functions: &[String]) -> Vec<Listed> {
    let mutated = named_or_all(functions);
    listed
        .iter()
        .filter(|l| {
            mutated
                .iter()
                .any(|f| l.id.split(": ").next() == Some(f.as_str()))
        })
        .cloned()
        .collect()
}

/// Every mutant of the functions named ([`generate`]), every function of
/// the call schema when none is: what `--list` lists, judging none.
pub fn list(tree: &KernelTree, functions: &[String]) -> Result<Vec<Mutant>> {
    generate(tree, &named_or_all(functions))
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

/// Options of a mutants run.
#[derive(Debug, Clone)]
pub struct Options {
    /// C names of the functions to mutate, each defined in a file the
    /// worlds take from the tree (default: every function of the call
    /// schema).
    pub functions: Vec<String>,
    /// Judge only this many mutants, picked with `seed` (0: all).
    pub sample: usize,
    /// The seed of the sample and of the generated vectors.
    pub seed: u64,
    /// Generated vectors per function, besides the corpus.
    pub random: u64,
    /// Build base and mutants with ASan and UBSan (objects past a world's
    /// declared counts are poisoned: an off-by-one loop bound is killed).
    pub sanitize: bool,
    /// Judge only this shard's block of the functions mutated.
    pub shard: Option<ShardSpec>,
    /// Build every mutant as its own world instead of in the schemata
    /// (slower: what schemata must agree with).
    pub alone: bool,
}

impl Options {
    /// How the base and mutant worlds are built.
    pub fn build_options(&self) -> BuildOptions {
        BuildOptions {
            sanitize: self.sanitize,
            ..Default::default()
        }
    }

    /// Whether the run judges every mutant of the tree (no sample, no
    /// function named): only then is a listed mutant the tree does not
    /// have a problem.
    pub fn every_mutant(&self) -> bool {
        self.sample == 0 && self.functions.is_empty()
    }
}

/// The mutants a run judges (every mutant of the functions asked for, or
/// the sample; of those, the shard's), and the run's units: the functions
/// with a mutant, in order, whole runs and every shard alike.
pub fn planned(tree: &KernelTree, opts: &Options) -> Result<(Vec<Mutant>, Vec<String>)> {
    let mut all = list(tree, &opts.functions)?;
    if opts.sample > 0 && opts.sample < all.len() {
        let mut rng = crate::generate::SplitMix64::new(opts.seed);
        let mut left: Vec<usize> = (0..all.len()).collect();
        let mut picked = vec![];
        while picked.len() < opts.sample {
            let k = (rng.next_u64() % left.len() as u64) as usize;
            picked.push(left.swap_remove(k));
        }
        // In the list's order: by file, then by place in the file.
        picked.sort_unstable();
        all = picked.into_iter().map(|k| all[k].clone()).collect();
    }
    let mut units: Vec<String> = vec![];
    for m in &all {
        if !units.contains(&m.function) {
            units.push(m.function.clone());
        }
    }
    if let Some(spec) = opts.shard {
        let mine = &units[spec.range(units.len())];
        all.retain(|m| mine.contains(&m.function));
    }
    Ok((all, units))
}

/// The manifest entries a shard answers for: those of its block of
/// `units`, and (shard 1) those of functions the run has no mutant of, so
/// that the shards check the manifest once between them.
pub fn listed_for_shard(listed: &[Listed], units: &[String], spec: ShardSpec) -> Vec<Listed> {
    let mine = &units[spec.range(units.len())];
    listed
        .iter()
        .filter(|l| {
            let f = l.id.split(": ").next().unwrap_or("");
            mine.iter().any(|u| u == f) || (spec.index == 1 && !units.iter().any(|u| u == f))
        })
        .cloned()
        .collect()
}

/// Makes, builds and judges the mutants ([`planned`]): all in one
/// schemata world, each with its switch on in turn; those that do not
/// compile there (or every one, with `opts.alone`) each in its own world.
pub fn run(
    tree: &KernelTree,
    vectors: &[Vector],
    opts: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<(Mutant, Fate)>> {
    let (all, _) = planned(tree, opts)?;
    let build = opts.build_options();
    let base = cworld::build(tree, &build)?;
    let (world, values) = if opts.alone || all.is_empty() {
        (None, vec![None; all.len()])
    } else {
        schemata::build(tree, &all, &build, progress)?
    };
    let funcs: Vec<Func> = Func::ALL.to_vec();
    // Which functions' calls can run each function's mutants.
    let mut reach: BTreeMap<String, cworld::reach::Reach> = BTreeMap::new();
    if let Some(w) = &world {
        let mut names: Vec<String> = all.iter().map(|m| m.function.clone()).collect();
        names.dedup();
        let symbols: Vec<String> = names.iter().map(|f| schemata::switch_of(f)).collect();
        let found = cworld::reach::reaching(w, &symbols, &funcs);
        reach.extend(names.into_iter().zip(found));
    }
    let mut alone = Alone::new(tree);
    let mut out = vec![];
    let total = all.len();
    for (k, (m, value)) in all.into_iter().zip(values).enumerate() {
        let judged = match (&world, value) {
            (Some(w), Some(v)) => {
                let w = w.switched(&schemata::switch_of(&m.function), v);
                let r = reach[&m.function].clone();
                compare::count_differences_reaching(
                    (&base, &w),
                    vectors,
                    (&funcs, r),
                    (opts.random, opts.seed),
                )
                .map(|c| c.per_func.iter().map(|p| p.2).sum())
                .map_err(|e| unreproducible(e, &w))
            }
            _ => alone.judge(&m, &base, vectors, opts, &build),
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
    // Mutant worlds are one-offs: keep the cache under its cap.
    cworld::build::evict(cworld::build::worlds_cap());
    Ok(out)
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
        opts: &Options,
        build: &BuildOptions,
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
        let judged = judge(base, &dir, vectors, Func::ALL, opts, build);
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

fn judge(
    base: &BuiltWorld,
    dir: &Path,
    vectors: &[Vector],
    funcs: &[Func],
    opts: &Options,
    build: &BuildOptions,
) -> Result<u64> {
    let tree = KernelTree::open(dir)?;
    let world = cworld::build(&tree, build)?;
    let c = compare::count_differences(
        base,
        &world,
        vectors,
        funcs,
        (opts.random, opts.seed),
        compare::Selection::Reached,
    )
    .map_err(|e| unreproducible(e, &world))?;
    Ok(c.per_func.iter().map(|p| p.2).sum())
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
fn unreproducible(e: anyhow::Error, world: &BuiltWorld) -> anyhow::Error {
    let text = format!("{e:#}");
    let mine = text.contains(&world.so.display().to_string());
    if cworld::HarnessFault::in_chain(&e) && mine && text.contains("first run, in a batch") {
        anyhow::Error::new(Unreproducible(text.lines().next().unwrap_or("").to_owned()))
    } else {
        e
    }
}

/// `r` with the base tree (`label`) and its world recorded in its suite:
/// the mutants are judged against them.
pub fn with_tree(mut r: Report, label: &str, tree: &KernelTree, opts: &Options) -> Report {
    let built = crate::report::BuildStatus::Built;
    let t = crate::cmd::tree_record("tree", label, tree, &opts.build_options(), built, None);
    for s in &mut r.suites {
        s.trees = vec![t.clone()];
    }
    r
}

/// The report: a case per function (its mutants as vectors, the survivors
/// the manifest does not accept as failures, each named with file:line
/// and the mutation; accepted ones in the detail with their reason).
pub fn report(kernel: &str, results: &[(Mutant, Fate)], listed: &[Listed]) -> Report {
    let mut names: Vec<&str> = vec![];
    for (m, _) in results {
        if !names.contains(&m.function.as_str()) {
            names.push(&m.function);
        }
    }
    let cases = names
        .iter()
        .map(|f| {
            let mine: Vec<&(Mutant, Fate)> =
                results.iter().filter(|(m, _)| m.function == *f).collect();
            let judged = mine
                .iter()
                .filter(|(_, x)| !matches!(x, Fate::Stillborn(_)))
                .count();
            let survivors: Vec<&Mutant> = mine
                .iter()
                .filter(|(_, x)| matches!(x, Fate::Survived))
                .map(|(m, _)| m)
                .collect();
            let accepted = |m: &Mutant| listed.iter().find(|l| l.id == m.id());
            let detail = (!survivors.is_empty()).then(|| {
                survivors
                    .iter()
                    .map(|m| match accepted(m) {
                        Some(l) => format!(
                            "{}:{}: survived, accepted ({}): {}\n",
                            m.file,
                            m.line,
                            l.reason,
                            m.id()
                        ),
                        None => format!("{}:{}: survived: {}\n", m.file, m.line, m.id()),
                    })
                    .collect::<String>()
            });
            let unaccepted = survivors.iter().filter(|m| accepted(m).is_none()).count();
            Case {
                name: format!("mutants::{f}"),
                function: f.to_string(),
                file: mine.first().map(|(m, _)| m.file.clone()),
                status: if unaccepted == 0 {
                    Status::Pass
                } else {
                    Status::Fail
                },
                message: Some(format!(
                    "{} of {judged} mutants killed, {} accepted ({} did not compile)",
                    judged - survivors.len(),
                    survivors.len() - unaccepted,
                    mine.len() - judged
                )),
                detail,
                vectors: judged as u64,
                failed: unaccepted as u64,
                ..Default::default()
            }
        })
        .collect();
    Report::new(
        "mutants",
        vec![Suite {
            name: kernel.to_owned(),
            kernel: kernel.to_owned(),
            cases,
            ..Default::default()
        }],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Manifest entries of functions `a`, `b`, `c` and `helper`.
    fn manifest() -> Vec<Listed> {
        let text: String = ["a", "b", "c", "helper"]
            .iter()
            .map(|f| {
                format!("[[survivor]]\nid = \"{f}: `x` [delete statement#0]\"\nreason = \"r\"\n")
            })
            .collect();
        parse_manifest(Path::new("m.toml"), &text).expect("parses")
    }

    fn functions(l: &[Listed]) -> Vec<&str> {
        l.iter().filter_map(|l| l.id.split(": ").next()).collect()
    }

    /// Every entry is some shard's, once: those of the run's functions by
    /// block, the rest (a function with no mutant) shard 1's.
    #[test]
    fn the_shards_answer_for_every_manifest_entry_once() {
        let units: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let all = manifest();
        let mut seen = vec![];
        for index in 1..=3 {
            let mine = listed_for_shard(&all, &units, ShardSpec { index, count: 3 });
            seen.extend(functions(&mine).into_iter().map(str::to_owned));
        }
        seen.sort();
        assert_eq!(seen, ["a", "b", "c", "helper"]);
        let first = listed_for_shard(&all, &units, ShardSpec { index: 1, count: 3 });
        assert_eq!(functions(&first), ["a", "helper"]);
    }

    /// A helper mutated only when named answers in that run alone.
    #[test]
    fn a_run_answers_for_the_entries_of_the_functions_it_mutates() {
        let named = listed_for_run(&manifest(), &["helper".into(), "b".into()]);
        assert_eq!(functions(&named), ["b", "helper"]);
        let default = listed_for_run(&manifest(), &[]);
        assert!(
            functions(&default).is_empty(),
            "a, b, c, helper are no Func"
        );
    }

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
