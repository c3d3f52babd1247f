//! `cargo xtask snapshots diff A B`: where upstream outcomes differ
//! between two series' snapshots, or a series' snapshots and a tree.
//!
//! Exit codes ([`crate::report::exit_code`]): `SUCCESS` when the two agree
//! on every vector both run, `FINDING` when some vector differs. A vector
//! of a function one side's tree lacks (removed or added upstream) is
//! listed apart, not a difference: there is nothing to compare.

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
    /// Each vector of a function one side lacks: family, vector, and
    /// which function the other side has.
    pub lacking: Vec<(String, String, String)>,
}

/// Compares the outcomes of two sides (as [`tables`] gives them).
pub fn diff(a: (String, Tables), b: (String, Tables)) -> Differences {
    let (mut rows, mut lacking) = (vec![], vec![]);
    for (fam, name, ra, rb) in snapshot::diff_tables(&a.1, &b.1) {
        let func = |row: &str| row.split(" | ").next().unwrap_or("").trim().to_owned();
        match (
            snapshot::row_not_in_tree(&ra),
            snapshot::row_not_in_tree(&rb),
        ) {
            (false, true) => lacking.push((fam, name, format!("{} in {} only", func(&ra), a.0))),
            (true, false) => lacking.push((fam, name, format!("{} in {} only", func(&rb), b.0))),
            _ => rows.push((fam, name, ra, rb)),
        }
    }
    Differences {
        a: a.0,
        b: b.0,
        rows,
        lacking,
    }
}

impl Differences {
    /// Each differing vector with both outcomes, then how many; or that
    /// they agree.
    pub fn render(&self) -> String {
        let (a, b) = (&self.a, &self.b);
        let mut out = String::new();
        for (fam, name, has) in &self.lacking {
            out.push_str(&format!("{fam}::{name}: not compared, {has}\n"));
        }
        if !self.lacking.is_empty() {
            out.push_str(&format!(
                "{} vector(s) of functions one tree lacks, not compared\n",
                self.lacking.len()
            ));
        }
        if self.rows.is_empty() {
            let both = if self.lacking.is_empty() {
                ""
            } else {
                " both run"
            };
            out.push_str(&format!("{a} and {b} agree on every vector{both}\n"));
            return out;
        }
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
        // A vector of a function b's tree lacks is listed, not a difference.
        let gone = diff(
            ("a".into(), t("sc_drop | 0 | false")),
            ("b".into(), t("sc_drop | not in this tree | -")),
        );
        assert_eq!(
            gone.render(),
            "mtu::v1: not compared, sc_drop in a only\n\
             1 vector(s) of functions one tree lacks, not compared\n\
             a and b agree on every vector both run\n"
        );
        assert_eq!(gone.exit_code(), exit_code::SUCCESS);
    }
}
