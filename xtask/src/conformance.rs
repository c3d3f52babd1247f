//! `cargo xtask conformance`: the corpus, or `--random N` generated
//! vectors, on each kernel named, C against the Rust model.

use anyhow::Result;
use harness::cmd::{conformance, random};
use harness::corpus;
use harness::cworld::BuildOptions;

use crate::flags;

pub fn run(a: flags::Conformance) -> Result<u8> {
    let kernels = a.kernels()?;
    let opts = BuildOptions {
        sanitize: a.sanitize.sanitize,
        ..Default::default()
    };
    if a.random.is_some() || a.scenarios.is_some() {
        let n = a.random.unwrap_or(0);
        // The units: each function's generated vectors, in order.
        let all = match a.random {
            Some(_) => a.function.funcs(),
            None => vec![],
        };
        let sharding = &a.sharding;
        let funcs = sharding
            .shard
            .map_or(all.clone(), |s| all[s.range(all.len())].to_vec());
        let scenarios = a.scenarios.unwrap_or(0);
        let runs = random::run_kernels(&kernels, &opts, &funcs, (n, scenarios), a.seed, &mut |m| {
            eprintln!("[random] {m}")
        });
        let mut report = random::report(&runs);
        let inputs = serde_json::json!({
            "command": "conformance --random",
            "kernels": runs.iter().map(|k| (k.sel.label(), &k.version)).collect::<Vec<_>>(),
            "functions": all.iter().map(|f| f.name()).collect::<Vec<_>>(),
            "random": n,
            "scenarios": scenarios,
            "seed": a.seed,
            "sanitize": opts.sanitize,
        });
        let shared = report.suites.iter().map(|s| s.name.clone()).collect();
        let exit = report.exit_code();
        sharding.mark(&mut report, all.len(), inputs, exit, shared);
        print!("{}", a.output.render(&report));
        return Ok(exit);
    }
    let dir = a.vectors.clone().unwrap_or_else(corpus::corpus_dir);
    let vectors = corpus::load_corpus(&dir)?;
    let started = std::time::Instant::now();
    let runs = conformance::run_kernels(&kernels, &vectors, &opts, &mut |m| {
        eprintln!("[conformance] {m}")
    });
    let report = conformance::report(&vectors, &runs);
    print!("{}", a.output.render(&report));
    eprintln!(
        "[conformance] finished in {:.2}s",
        started.elapsed().as_secs_f64()
    );
    Ok(report.exit_code())
}
