//! `cargo xtask diff A B`: two trees, C against C (no model), on the corpus
//! and generated vectors; every difference grouped by function and shape,
//! each group with a minimal reproducer.
//!
//! Exit codes ([`crate::report::exit_code`]): `SUCCESS` when the two trees
//! behave the same on every call; `FINDING` when they differ;
//! `CANNOT_JUDGE` when a tree could not be opened, built or judged (the
//! report is then one suite holding the error).

use anyhow::Result;

use crate::corpus::Vector;
use crate::cworld::{self, BuildOptions, BuiltWorld};
use crate::judge::compare;
use crate::kernel::select::{suite_names, KernelArg};
use crate::model::types::Func;
use crate::report::{Report, Suite};

/// Options of a comparison.
#[derive(Debug, Clone)]
pub struct Options {
    /// The functions whose generated vectors run.
    pub funcs: Vec<Func>,
    /// Generated vectors per function, besides the corpus.
    pub random: u64,
    /// Seed of the generated vectors.
    pub seed: u64,
}

/// Compares `a` with `b` and reports it. When the comparison cannot happen
/// the error is said on stderr (`error: …`) and the report is
/// [`could_not_compare`].
pub fn run(
    a: &KernelArg,
    b: &KernelArg,
    vectors: &[Vector],
    opts: &Options,
    progress: &mut dyn FnMut(&str),
) -> Report {
    compare(a, b, vectors, opts, progress).unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        could_not_compare(a, b, &e)
    })
}

/// Builds both sides and compares them: the report, a suite named after
/// both.
pub fn compare(
    a: &KernelArg,
    b: &KernelArg,
    vectors: &[Vector],
    opts: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Report> {
    let (na, wa) = build(a, progress)?;
    let (nb, wb) = build(b, progress)?;
    let trees = vec![record("before", a, &wa.tree), record("after", b, &wb.tree)];
    let n = suite_names([(na.as_str(), a), (nb.as_str(), b)].into_iter());
    let c = compare::compare(
        &wa,
        &wb,
        vectors,
        &opts.funcs,
        opts.random,
        opts.seed,
        progress,
    )?;
    let mut r = compare::report(&format!("{} vs {}", n[0], n[1]), &n[0], &n[1], &c);
    for s in &mut r.suites {
        s.trees = trees.clone();
    }
    Ok(r)
}

/// A side's tree and world as the report records them: A is `before`, B
/// `after` (the cases say how B behaves against A).
fn record(role: &str, s: &KernelArg, tree: &crate::kernel::KernelTree) -> crate::report::Tree {
    let built = crate::report::BuildStatus::Built;
    super::tree_record(
        role,
        &s.label(),
        tree,
        &BuildOptions::default(),
        built,
        None,
    )
}

/// The C world of a side, and the side's series.
fn build(s: &KernelArg, progress: &mut dyn FnMut(&str)) -> Result<(String, BuiltWorld)> {
    let tree = s.open()?;
    progress(&format!(
        "{}: building the C world of {}",
        s.label(),
        tree.version
    ));
    let w = cworld::build(&tree, &BuildOptions::default())?;
    Ok((tree.version.series(), w))
}

/// The report of a comparison that could not happen: one suite, its error.
pub fn could_not_compare(a: &KernelArg, b: &KernelArg, e: &anyhow::Error) -> Report {
    let n = suite_names([("", a), ("", b)].into_iter());
    Report::new(
        "diff",
        vec![Suite {
            name: format!("{} vs {}", n[0], n[1]),
            kernel: format!("{} vs {}", a.label(), b.label()),
            version: String::new(),
            error: Some(format!("{e:#}")),
            cases: vec![],
            seconds: 0.0,
            ..Default::default()
        }],
    )
}
