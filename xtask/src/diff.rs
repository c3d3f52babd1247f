//! `cargo xtask diff A B`: two trees, C against C, on the corpus and
//! generated vectors.

use anyhow::Result;
use harness::cmd::diff;
use harness::corpus;
use harness::kernel::select::KernelArg;

use crate::flags;

pub fn run(a: flags::Diff) -> Result<u8> {
    let side = |s: &str| -> Result<KernelArg> {
        let p = std::path::Path::new(s);
        if KernelArg::looks_like_overlay(p) {
            a.overlay.sel(p)
        } else {
            flags::tree(s)
        }
    };
    let (sa, sb) = (side(&a.a)?, side(&a.b)?);
    let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
    let opts = diff::Options {
        funcs: a.function.funcs(),
        random: a.generated.random,
        seed: a.generated.seed,
    };
    let report = diff::run(&sa, &sb, &vectors, &opts, &mut |m| eprintln!("[diff] {m}"));
    print!("{}", a.output.render(&report));
    Ok(report.exit_code())
}
