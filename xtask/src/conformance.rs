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
    if let Some(n) = a.random {
        let funcs = a.function.funcs();
        let runs = random::run_kernels(&kernels, &opts, &funcs, n, a.seed, &mut |m| {
            eprintln!("[random] {m}")
        });
        let report = random::report(&runs);
        print!("{}", a.output.render(&report));
        return Ok(report.exit_code());
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
