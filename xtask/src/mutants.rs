//! `cargo xtask mutants`: single-point mutants of the upstream functions
//! in scope (whatever file the worlds take them from), each judged against
//! the base world, checked against vectors/mutants.toml.

use anyhow::Result;
use harness::cmd::mutants;
use harness::corpus;
use harness::kernel::patch;
use harness::kernel::select::KernelArg;
use harness::kernel::KernelTree;
use harness::report::exit_code;

use crate::flags;

pub fn run(a: flags::Mutants) -> Result<u8> {
    let sel = match a.kernel_src.kernel_src.first() {
        Some(p) => KernelArg::Path(p.clone()),
        None => KernelArg::Series(a.kernel.kernel.clone()),
    };
    let base = sel.open()?;
    // With --in-diff: the tree patched, and the lines the patches add.
    let (tree, in_diff, scratch) = if a.in_diff.is_empty() {
        (base, None, None)
    } else {
        let mut patches = vec![];
        for p in &a.in_diff {
            patches.extend(crate::gate::read_patches(p)?);
        }
        if a.in_diff_patches > 0 {
            if patches.len() < a.in_diff_patches {
                anyhow::bail!(
                    "--in-diff-patches {}: the --in-diff inputs hold {} patches",
                    a.in_diff_patches,
                    patches.len()
                );
            }
            patches.truncate(a.in_diff_patches);
        }
        let dir = std::env::temp_dir().join(format!("hfi1-in-diff-{}", std::process::id()));
        // Each patch's added lines where it applied, carried through the
        // patches after it: lines of the tree the series made.
        let (tree, applied) = patch::patched_copy(&base, &patches, &dir)?;
        let mut added: Vec<(String, Vec<usize>)> = vec![];
        for (k, p) in applied.iter().enumerate() {
            let lines = applied[k + 1..]
                .iter()
                .fold(patch::added_lines_merged(&p.text), |ls, later| {
                    patch::carried_lines(&ls, &later.text)
                });
            for (path, lines) in lines {
                match added.iter_mut().find(|(q, _)| *q == path) {
                    Some((_, ls)) => ls.extend(lines),
                    None => added.push((path, lines)),
                }
            }
        }
        (tree, Some(added), Some(Scratch(dir)))
    };
    let result = judge(&a, &sel, &tree, in_diff);
    drop(scratch);
    result
}

/// A patched copy of the tree, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn judge(
    a: &flags::Mutants,
    sel: &KernelArg,
    tree: &KernelTree,
    in_diff: Option<Vec<(String, Vec<usize>)>>,
) -> Result<u8> {
    if a.list {
        let all = match &in_diff {
            Some(added) => mutants::in_diff(tree, &a.function.function, added)?,
            None => mutants::list(tree, &a.function.function)?,
        };
        for m in &all {
            println!("{}", m.location());
        }
        eprintln!("[mutants] {} mutants", all.len());
        return Ok(exit_code::SUCCESS);
    }
    let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
    let opts = mutants::Options {
        functions: a.function.function.clone(),
        sample: a.sample,
        seed: a.generated.seed,
        random: a.generated.random,
        sanitize: a.sanitize.sanitize,
        shard: a.sharding.shard,
        alone: a.alone,
        in_diff,
        ids: a.id.clone(),
        suggest: a.suggest,
    };
    let mut listed = mutants::listed_for_tree(
        &mutants::listed_for_run(&mutants::read_manifest()?, &opts.functions),
        &tree.version,
    );
    let units = match a.sharding.shard {
        Some(spec) => {
            let (_, units) = mutants::planned(tree, &opts)?;
            listed = mutants::listed_for_shard(&listed, &units, spec);
            units.len()
        }
        None => 0,
    };
    let started = std::time::Instant::now();
    let run = mutants::run_suggesting(tree, &vectors, &opts, &listed, &mut |m| {
        eprintln!("[mutants] {m}")
    })?;
    let results = &run.results;
    let report = mutants::report(&tree.version.series(), &run, &listed);
    let mut report = mutants::with_tree(report, &sel.label(), tree, &opts);
    let tally = mutants::tally(&listed, results, &opts);
    let inputs = serde_json::json!({
        "command": "mutants",
        "kernel": tree.version.to_string(),
        "functions": opts.functions,
        "sample": opts.sample,
        "seed": opts.seed,
        "random": opts.random,
        "sanitize": opts.sanitize,
        "in_diff": a.in_diff,
        "in_diff_patches": a.in_diff_patches,
        "ids": opts.ids,
        "suggest": opts.suggest,
    });
    let shared = report.suites.iter().map(|s| s.name.clone()).collect();
    a.sharding
        .mark(&mut report, units, inputs, tally.exit_code(), shared);
    print!("{}", a.output.render(&report));
    eprintln!(
        "[mutants] {}",
        tally.summary(started.elapsed().as_secs_f64())
    );
    for p in &tally.problems {
        eprintln!("error: {p}");
    }
    Ok(tally.exit_code())
}
