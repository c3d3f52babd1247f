//! `cargo xtask mutants`: single-point mutants of the upstream functions
//! in scope (whatever file the worlds take them from), each judged against
//! the base world, checked against vectors/mutants.toml.

use anyhow::Result;
use harness::cmd::mutants;
use harness::corpus;
use harness::kernel::select::KernelArg;
use harness::report::exit_code;

use crate::flags;

pub fn run(a: flags::Mutants) -> Result<u8> {
    let sel = match a.kernel_src.kernel_src.first() {
        Some(p) => KernelArg::Path(p.clone()),
        None => KernelArg::Series(a.kernel.kernel.clone()),
    };
    let tree = sel.open()?;
    if a.list {
        let all = mutants::list(&tree, &a.function.function)?;
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
    };
    let mut listed = mutants::listed_for_run(&mutants::read_manifest()?, &opts.functions);
    let units = match a.sharding.shard {
        Some(spec) => {
            let (_, units) = mutants::planned(&tree, &opts)?;
            listed = mutants::listed_for_shard(&listed, &units, spec);
            units.len()
        }
        None => 0,
    };
    let started = std::time::Instant::now();
    let results = mutants::run(&tree, &vectors, &opts, &mut |m| eprintln!("[mutants] {m}"))?;
    let report = mutants::report(&tree.version.series(), &results, &listed);
    let mut report = mutants::with_tree(report, &sel.label(), &tree, &opts);
    let tally = mutants::tally(&listed, &results, &opts);
    let inputs = serde_json::json!({
        "command": "mutants",
        "kernel": tree.version.to_string(),
        "functions": opts.functions,
        "sample": opts.sample,
        "seed": opts.seed,
        "random": opts.random,
        "sanitize": opts.sanitize,
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
