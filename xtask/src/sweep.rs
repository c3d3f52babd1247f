//! `cargo xtask sweep`: every published version of each series against
//! the one before it, C against C.

use anyhow::Result;
use harness::cmd::sweep;
use harness::corpus;
use harness::kernel;
use harness::model::types::Func;

use crate::flags;

pub fn run(a: flags::Sweep) -> Result<u8> {
    for s in &a.series {
        kernel::KernelSpec::parse(s)?;
    }
    let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
    let opts = sweep::Options {
        series: a.series,
        limit: a.limit,
        random: a.generated.random,
        seed: a.generated.seed,
        funcs: Func::ALL.to_vec(),
        shard: a.sharding.shard,
    };
    let started = std::time::Instant::now();
    let done = sweep::run(&opts, &vectors, &mut |m| eprintln!("[sweep] {m}"))?;
    let mut report = sweep::report(&done);
    let exit = report.exit_code();
    if a.sharding.shard.is_some() {
        let inputs = serde_json::json!({
            "command": "sweep",
            "versions": done.planned,
            "random": opts.random,
            "seed": opts.seed,
        });
        let units = done.planned.iter().map(|(_, v)| v.len()).sum();
        let shared = vec![sweep::UNAVAILABLE.to_owned()];
        a.sharding.mark(&mut report, units, inputs, exit, shared);
    }
    print!("{}", a.output.render(&report));
    let changes = sweep::changes(&done);
    for (f, at) in &changes {
        eprintln!("[sweep] {f} changed behaviour at: {}", at.join("; "));
    }
    if changes.is_empty() {
        eprintln!("[sweep] no function in scope changed behaviour between consecutive versions");
    }
    eprintln!(
        "[sweep] {} step(s), {} version(s) unavailable, in {:.1}s",
        done.steps.len(),
        done.unavailable.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(exit)
}
