//! `cargo xtask mutants`: single-point mutants of qp.c, each judged
//! against the base world, checked against vectors/mutants.toml.

use anyhow::{Context, Result};
use harness::cmd::mutants::{self, Fate};
use harness::corpus;
use harness::kernel::select::KernelArg;
use harness::model::types::Func;
use harness::report::exit_code;

use crate::flags;

pub fn run(a: flags::Mutants) -> Result<u8> {
    let sel = match &a.kernel_src {
        Some(p) => KernelArg::Path(p.clone()),
        None => KernelArg::Series(a.kernel.kernel.clone()),
    };
    let tree = sel.open()?;
    if a.list {
        let fns: Vec<String> = if a.function.is_empty() {
            Func::ALL.iter().map(|f| f.name().to_owned()).collect()
        } else {
            a.function.clone()
        };
        let all = mutants::generate(&tree, &fns)?;
        for m in &all {
            println!("drivers/infiniband/hw/hfi1/qp.c:{}: {}", m.line, m.id());
        }
        eprintln!("[mutants] {} mutants", all.len());
        return Ok(exit_code::SUCCESS);
    }
    let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
    let opts = mutants::Options {
        functions: a.function.clone(),
        sample: a.sample,
        seed: a.seed,
        random: a.random,
        sanitize: a.sanitize,
    };
    let path = mutants::manifest_path();
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let listed = mutants::parse_manifest(&path, &text)?;
    let started = std::time::Instant::now();
    let results = mutants::run(&tree, &vectors, &opts, &mut |m| eprintln!("[mutants] {m}"))?;
    let report = mutants::report(&tree.version.series(), &results, &listed);
    print!("{}", a.output.render(&report));
    let count = |f: fn(&Fate) -> bool| results.iter().filter(|(_, x)| f(x)).count();
    let killed = count(|f| matches!(f, Fate::Killed { .. }));
    let judged = count(|f| !matches!(f, Fate::Stillborn(_)));
    let every = a.sample == 0 && a.function.is_empty();
    let problems = mutants::check_manifest(&listed, &results, every, a.sanitize);
    let accepted = judged - killed - problems.iter().filter(|p| p.contains("not listed")).count();
    eprintln!(
        "[mutants] {killed} of {judged} mutants killed ({:.1}%), {accepted} accepted \
         ({:.1}% killed or accepted), {} did not compile, in {:.1}s",
        100.0 * killed as f64 / judged.max(1) as f64,
        100.0 * (killed + accepted) as f64 / judged.max(1) as f64,
        results.len() - judged,
        started.elapsed().as_secs_f64()
    );
    for p in &problems {
        eprintln!("error: {p}");
    }
    Ok(if problems.is_empty() {
        exit_code::SUCCESS
    } else {
        exit_code::FINDING
    })
}
