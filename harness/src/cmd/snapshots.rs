//! `cargo xtask snapshots diff A B`: where upstream outcomes differ
//! between two series' snapshots, or a series' snapshots and a tree.
//!
//! Exit codes ([`crate::report::exit_code`]): `SUCCESS` when the two agree
//! on every vector, `FINDING` when some vector differs.

use anyhow::{Context, Result};

use crate::corpus;
use crate::cworld::BuildOptions;
use crate::judge::snapshot::{self, Tables};
use crate::kernel::{self, select::KernelArg};
use crate::report::exit_code;

/// One side of the comparison.
#[derive(Debug, Clone)]
pub enum Side {
    /// A pinned series: its committed snapshots.
    Committed(String),
    /// A tree (as named, and opened as), whose outcomes are computed now.
    Tree(String, KernelArg),
}

/// Whether `name` means a pinned series' committed snapshots: it is a
/// pinned series and no path of that name exists. Anything else (a path,
/// an exact version) is a tree.
pub fn committed(name: &str) -> bool {
    kernel::series().iter().any(|x| x == name) && !std::path::Path::new(name).exists()
}

/// The outcomes of a side, and its name in the output.
pub fn tables(side: &Side, progress: &mut dyn FnMut(&str)) -> Result<(String, Tables)> {
    match side {
        Side::Committed(s) => {
            let t = snapshot::series_tables(s).with_context(|| format!("reading snapshots/{s}"))?;
            Ok((format!("snapshots/{s}"), t))
        }
        Side::Tree(name, sel) => {
            let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
            let run = super::run_kernel(sel, &vectors, &BuildOptions::default(), progress)?;
            Ok((
                format!("{} ({})", name, run.version),
                snapshot::checked_tables(&vectors, &run.checks),
            ))
        }
    }
}

/// Where two sides' outcomes differ.
#[derive(Debug, Clone)]
pub struct Differences {
    /// The first side's name.
    pub a: String,
    /// The second side's name.
    pub b: String,
    /// Each vector whose outcome differs: family, vector, A's outcome,
    /// B's.
    pub rows: Vec<(String, String, String, String)>,
}

/// Compares the outcomes of two sides (as [`tables`] gives them).
pub fn diff(a: (String, Tables), b: (String, Tables)) -> Differences {
    let rows = snapshot::diff_tables(&a.1, &b.1);
    Differences {
        a: a.0,
        b: b.0,
        rows,
    }
}

impl Differences {
    /// Each differing vector with both outcomes, then how many; or that
    /// they agree.
    pub fn render(&self) -> String {
        let (a, b) = (&self.a, &self.b);
        if self.rows.is_empty() {
            return format!("{a} and {b} agree on every vector\n");
        }
        let mut out = String::new();
        for (fam, name, ra, rb) in &self.rows {
            out.push_str(&format!("{fam}::{name}\n  {a}: {ra}\n  {b}: {rb}\n"));
        }
        out.push_str(&format!("{} vector(s) differ\n", self.rows.len()));
        out
    }

    /// [`exit_code::SUCCESS`] when they agree, [`exit_code::FINDING`] when
    /// some vector differs.
    pub fn exit_code(&self) -> u8 {
        if self.rows.is_empty() {
            exit_code::SUCCESS
        } else {
            exit_code::FINDING
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_listed_then_counted() {
        let t = |o: &str| Tables::from([("mtu".into(), [("v1".into(), o.into())].into())]);
        let same = diff(("a".into(), t("x")), ("b".into(), t("x")));
        assert_eq!(same.render(), "a and b agree on every vector\n");
        assert_eq!(same.exit_code(), exit_code::SUCCESS);
        let d = diff(("a".into(), t("x")), ("b".into(), t("y")));
        assert_eq!(d.render(), "mtu::v1\n  a: x\n  b: y\n1 vector(s) differ\n");
        assert_eq!(d.exit_code(), exit_code::FINDING);
    }
}
