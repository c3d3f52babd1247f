//! `cargo xtask diff A B`: two trees, C against C, on the corpus and
//! generated vectors.

use anyhow::Result;
use harness::corpus;
use harness::cworld::{self, BuildOptions, BuiltWorld};
use harness::judge::compare;
use harness::kernel::select::{suite_names, KernelArg};
use harness::report::{Report, Suite};

use crate::flags;

pub fn run(a: flags::Diff) -> Result<u8> {
    let funcs = flags::functions(&a.function);
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
    let result = build(&sa).and_then(|(na, wa)| {
        let (nb, wb) = build(&sb)?;
        let names = suite_names([(na.as_str(), &sa), (nb.as_str(), &sb)].into_iter());
        let c = compare::compare(
            &wa,
            &wb,
            &vectors,
            &funcs,
            a.generated.random,
            a.generated.seed,
            &mut |m| eprintln!("[diff] {m}"),
        )?;
        Ok((names, c))
    });
    let report = match result {
        Ok((n, c)) => compare::report(&format!("{} vs {}", n[0], n[1]), &n[0], &n[1], &c),
        Err(e) => {
            eprintln!("error: {e:#}");
            could_not_compare(&sa, &sb, &e)
        }
    };
    print!("{}", a.output.render(&report));
    Ok(report.exit_code())
}

/// The C world of a side, and the side's series.
fn build(s: &KernelArg) -> Result<(String, BuiltWorld)> {
    let tree = s.open()?;
    eprintln!(
        "[diff] {}: building the C world of {}",
        s.label(),
        tree.version
    );
    let w = cworld::build(&tree, &BuildOptions::default())?;
    Ok((tree.version.series(), w))
}

/// The report of a comparison that could not happen: one suite, its error.
fn could_not_compare(sa: &KernelArg, sb: &KernelArg, e: &anyhow::Error) -> Report {
    let n = suite_names([("", sa), ("", sb)].into_iter());
    Report::new(
        "diff",
        vec![Suite {
            name: format!("{} vs {}", n[0], n[1]),
            kernel: format!("{} vs {}", sa.label(), sb.label()),
            version: String::new(),
            error: Some(format!("{e:#}")),
            cases: vec![],
            seconds: 0.0,
            ..Default::default()
        }],
    )
}
