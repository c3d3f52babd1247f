//! `cargo xtask mutants`: single-point mutants of the upstream functions
//! in scope, each judged as base world against mutant world on the corpus
//! and, optionally, generated vectors (made and judged by
//! [`judge::mutate`](crate::judge::mutate), which says how); the report
//! and the check against `vectors/mutants.toml` ([`survivors`]). By
//! default the functions mutated are those of the call schema; with
//! `in_diff`, only the mutants on the lines a patch adds, in the patched
//! tree (cargo-mutants' `--in-diff`).
use anyhow::Result;

use crate::corpus::Vector;
use crate::cworld::{self, BuildOptions};
use crate::judge::mutate::{self, Judging};
use crate::kernel::KernelTree;
use crate::model::types::Func;
use crate::report::{Case, Report, ShardSpec, Status, Suite};

mod survivors;

pub use crate::judge::mutate::suggest::{suggest, Suggestion};
pub use crate::judge::mutate::{generate, in_diff, schemata, searched, Fate, Mutant, Searched};
pub use survivors::{
    check_manifest, manifest_path, parse_manifest, read_manifest, tally, Listed, Problem, Tally,
};

/// Calls whose upstream function is a header's inline (sdma.h), which the
/// shim's call compiles, and the functions of the files the worlds take
/// that they reach: a default run mutates those instead.
const VIA_HEADER: &[(Func, &[&str])] = &[
    (Func::SdmaTxinitAhg, &["_sdma_txreq_ahgadd"]),
    (
        Func::SdmaTxaddPage,
        &[
            "ext_coal_sdma_tx_descs",
            "_extend_sdma_tx_descs",
            "_pad_sdma_tx_descs",
        ],
    ),
    (Func::SdmaTxaddKvaddr, &[]),
    (Func::SdmaTxaddDaddr, &[]),
];

/// The functions named (C names), or every function of the call schema
/// when none is (a header's inline replaced by what it reaches,
/// [`VIA_HEADER`]).
fn named_or_all(functions: &[String]) -> Vec<String> {
    if !functions.is_empty() {
        return functions.to_vec();
    }
    let mut all = vec![];
    for f in Func::ALL {
        match VIA_HEADER.iter().find(|(h, _)| h == f) {
            Some((_, reached)) => all.extend(reached.iter().map(|n| n.to_string())),
            None => all.push(f.name().to_owned()),
        }
    }
    all
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

/// The manifest entries that apply to a tree of series `v`: all but
/// those for trees before a series `v` is not before (`before`).
pub fn listed_for_tree(listed: &[Listed], v: &crate::kernel::KernelVersion) -> Vec<Listed> {
    listed
        .iter()
        .filter(|l| l.before.is_none_or(|b| (v.version, v.patchlevel) < b))
        .cloned()
        .collect()
}

/// Every mutant of the functions named ([`generate`]), every function of
/// the call schema when none is, but those no world compiles
/// ([`mutate::compiled`]): what `--list` lists, judging none.
pub fn list(tree: &KernelTree, functions: &[String]) -> Result<Vec<Mutant>> {
    Ok(mutate::compiled(
        tree,
        generate(tree, &named_or_all(functions))?,
    ))
}

/// Options of a mutants run.
#[derive(Debug, Clone, Default)]
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
    /// Only the mutants on these lines of the tree (`(path, lines)`: the
    /// lines patches add, the tree patched): cargo-mutants' `--in-diff`.
    /// The functions mutated are then those holding such a line, unless
    /// named.
    pub in_diff: Option<Vec<(String, Vec<usize>)>>,
    /// Only the mutants of these ids (to reproduce one).
    pub ids: Vec<String>,
    /// Generated vectors per reaching function tried, for each survivor
    /// the manifest does not list, for a vector that kills it (0: none).
    pub suggest: u64,
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
    /// function, diff or id named): only then is a listed mutant the tree
    /// does not have a problem.
    pub fn every_mutant(&self) -> bool {
        self.sample == 0
            && self.functions.is_empty()
            && self.in_diff.is_none()
            && self.ids.is_empty()
    }

    /// How the mutants are judged.
    fn judging(&self) -> Judging {
        Judging {
            random: self.random,
            seed: self.seed,
            build: self.build_options(),
            alone: self.alone,
        }
    }
}

/// The mutants a run judges (every mutant of the functions asked for, or
/// the sample; of those, the shard's), and the run's units: the functions
/// with a mutant, in order, whole runs and every shard alike.
pub fn planned(tree: &KernelTree, opts: &Options) -> Result<(Vec<Mutant>, Vec<String>)> {
    let mut all = match &opts.in_diff {
        Some(added) => in_diff(tree, &opts.functions, added)?,
        None => list(tree, &opts.functions)?,
    };
    if !opts.ids.is_empty() {
        for id in &opts.ids {
            if !all.iter().any(|m| m.id() == *id) {
                anyhow::bail!(
                    "no mutant `{id}` in {}{}: `cargo xtask mutants --list` lists them \
                     (with the same --function, --in-diff)",
                    tree.root.display(),
                    if opts.in_diff.is_some() {
                        " on the lines the patch adds"
                    } else {
                        ""
                    }
                );
            }
        }
        all.retain(|m| opts.ids.contains(&m.id()));
    }
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

/// A run's mutants, each with its fate, and the suggestions for its
/// survivors.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// Each mutant judged, and what became of it.
    pub results: Vec<(Mutant, Fate)>,
    /// For each survivor the manifest does not list (by id), what a
    /// reviewer is told: the vector that kills it, or "equivalent?".
    pub suggestions: Vec<(String, Suggestion)>,
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
    Ok(run_suggesting(tree, vectors, opts, &[], progress)?.results)
}

/// [`run`], then for each survivor `listed` does not accept, with
/// `opts.suggest` vectors, a [`Suggestion`].
pub fn run_suggesting(
    tree: &KernelTree,
    vectors: &[Vector],
    opts: &Options,
    listed: &[Listed],
    progress: &mut dyn FnMut(&str),
) -> Result<Run> {
    let (all, _) = planned(tree, opts)?;
    let how = opts.judging();
    let base = cworld::build(tree, &how.build)?;
    let (results, schemata) = mutate::judge(tree, &base, all, vectors, &how, progress)?;
    let mut suggestions = vec![];
    for (k, (m, fate)) in results.iter().enumerate() {
        let id = m.id();
        if opts.suggest == 0 || !matches!(fate, Fate::Survived) || listed.iter().any(|l| l.id == id)
        {
            continue;
        }
        let s = suggest(&base, &schemata, (k, m), vectors, (opts.suggest, opts.seed))?;
        progress(&format!("{id}: {}", s.text().lines().next().unwrap_or("")));
        suggestions.push((id, s));
    }
    // Mutant worlds are one-offs: keep the cache under its cap.
    cworld::build::evict(cworld::build::worlds_cap());
    Ok(Run {
        results,
        suggestions,
    })
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
/// and the mutation, and its suggestion; accepted ones in the detail with
/// their reason).
pub fn report(kernel: &str, run: &Run, listed: &[Listed]) -> Report {
    let results = &run.results;
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
                        None => {
                            let id = m.id();
                            let hint: String = run
                                .suggestions
                                .iter()
                                .find(|(i, _)| *i == id)
                                .map(|(_, s)| {
                                    s.text().lines().map(|l| format!("    {l}\n")).collect()
                                })
                                .unwrap_or_default();
                            format!("{}:{}: survived: {id}\n{hint}", m.file, m.line)
                        }
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

    #[test]
    fn a_default_run_mutates_what_header_inlines_reach() {
        let all = named_or_all(&[]);
        for (f, reached) in VIA_HEADER {
            assert!(
                !all.iter().any(|n| n == f.name()),
                "{f:?} is a header inline"
            );
            assert!(reached.iter().all(|r| all.iter().any(|n| n == r)));
        }
        assert!(all.iter().any(|n| n == "hfi1_setup_wqe"));
        assert_eq!(named_or_all(&["x".into()]), ["x"]);
    }

    /// Manifest entries of functions `a`, `b`, `c` and `helper`.
    fn manifest() -> Vec<Listed> {
        let text: String = ["a", "b", "c", "helper"]
            .iter()
            .map(|f| {
                format!("[[survivor]]\nid = \"{f}: `x` [delete statement#0]\"\nreason = \"r\"\n")
            })
            .collect();
        parse_manifest(std::path::Path::new("m.toml"), &text).expect("parses")
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
}
