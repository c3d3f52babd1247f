//! `vectors/mcdc.toml`: the conditions of upstream decisions the committed
//! corpus does not show flipping their decision on their own (MC/DC,
//! `cargo xtask coverage --mcdc`), each with its reason, compared with
//! what was measured, both ways.
//!
//! An entry names a function, a decision by the trimmed text of the line
//! it starts on, and the conditions not shown by their text (`C2` for one
//! spelled inside a macro: clang's numbering). A condition not shown that
//! no entry lists is an error (add a vector that shows it, or an entry
//! saying why none can), and so is a listed condition that is shown now
//! or gone. `since = "X.Y"` limits an entry to that series and later, `until`
//! to that series and earlier.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{applicable, read_tables, Explained, Problem};
use crate::judge::mcdc::FuncMcdc;
use crate::kernel::KernelTree;

/// One entry of the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Line of the entry in the manifest, for messages.
    pub at: usize,
    /// The upstream function.
    pub function: String,
    /// The text of the decision's first line, trimmed.
    pub decision: String,
    /// The conditions not shown, by their text.
    pub conditions: Vec<String>,
    /// Why no vector can show them (or, where said, does not yet).
    pub reason: String,
    /// The series the entry applies to.
    pub series: super::Series,
}

/// Reads the manifest text (`[[not_shown]]` tables).
pub fn parse(text: &str) -> Result<Vec<Entry>, Problem> {
    read_tables(
        text,
        "not_shown",
        &["function", "decision", "conditions"],
        |t| {
            let conditions = t
                .strings("conditions")?
                .ok_or_else(|| t.bad("missing conditions = [\"...\"] (their text)"))?;
            if conditions.is_empty() {
                return Err(t.bad("conditions = []: list the conditions not shown"));
            }
            Ok(Entry {
                at: t.at,
                function: t.need("function")?,
                decision: t.need("decision")?.trim().to_owned(),
                conditions,
                reason: t.reason.clone(),
                series: t.series.clone(),
            })
        },
    )
}

impl super::InSeries for Entry {
    fn series(&self) -> &super::Series {
        &self.series
    }
}

/// Compares the measurement with the manifest; every disagreement.
pub fn check(cov: &[FuncMcdc], entries: &[Entry]) -> Vec<Problem> {
    let mut used = vec![vec![false; 0]; entries.len()];
    for (u, e) in used.iter_mut().zip(entries) {
        *u = vec![false; e.conditions.len()];
    }
    let mut problems = vec![];
    for f in cov {
        let file = f.at.file.rsplit('/').next().unwrap_or(&f.at.file);
        for d in &f.decisions {
            for c in d.conditions.iter().filter(|c| !c.shown) {
                let hit = entries.iter().enumerate().find_map(|(i, e)| {
                    let j = e.conditions.iter().position(|x| *x == c.text)?;
                    (e.function == f.at.name && e.decision == d.text && !used[i][j])
                        .then_some((i, j))
                });
                match hit {
                    Some((i, j)) => used[i][j] = true,
                    None => problems.push(Problem {
                        line: 0,
                        msg: format!(
                            "{file}:{} in {}: condition `{}` of `{}` is not shown flipping \
                             the decision on its own, and no entry explains it (add a vector \
                             that shows it, or an entry with the reason none can)",
                            d.line, f.at.name, c.text, d.text
                        ),
                    }),
                }
            }
        }
    }
    for (e, u) in entries.iter().zip(&used) {
        let stale: Vec<&str> = e
            .conditions
            .iter()
            .zip(u)
            .filter(|(_, used)| !**used)
            .map(|(c, _)| c.as_str())
            .collect();
        if !stale.is_empty() {
            problems.push(Problem {
                line: e.at,
                msg: format!(
                    "{} `{}`: `{}` listed as not shown, but no such condition is missed now \
                     (a vector shows it, or the code changed): remove or correct the entry",
                    e.function,
                    e.decision,
                    stale.join("`, `")
                ),
            });
        }
    }
    problems
}

/// The manifest's path.
pub fn path(corpus: &Path) -> PathBuf {
    corpus.join("mcdc.toml")
}

/// Reads the manifest of `corpus` and compares it with the MC/DC measured
/// in `tree`, only the entries that apply to the tree's series counted.
pub fn explain(tree: &KernelTree, cov: &[FuncMcdc], corpus: &Path) -> Result<Explained> {
    let manifest = path(corpus);
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    let entries = parse(&text)
        .map_err(|p| anyhow::anyhow!("{}:{}: {}", manifest.display(), p.line, p.msg))?;
    let entries = applicable(&entries, &tree.version.series());
    Ok(Explained {
        problems: check(cov, &entries),
        manifest,
        entries: entries.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::coverage::Extent;
    use crate::judge::mcdc::{Condition, Decision};

    fn func(conds: &[(&str, bool)]) -> FuncMcdc {
        FuncMcdc {
            at: Extent {
                file: "drivers/infiniband/hw/hfi1/qp.c".into(),
                name: "f".into(),
                start: 1,
                end: 9,
            },
            decisions: vec![Decision {
                line: 3,
                end: 3,
                text: "if (a && b)".into(),
                conditions: conds
                    .iter()
                    .map(|(t, s)| Condition {
                        text: t.to_string(),
                        shown: *s,
                    })
                    .collect(),
            }],
        }
    }

    const ENTRY: &str = "[[not_shown]]\nfunction = \"f\"\ndecision = \"if (a && b)\"\n\
                         conditions = [\"b\"]\nreason = \"r\"\n";

    #[test]
    fn a_listed_condition_is_explained() {
        let e = parse(ENTRY).expect("parses");
        assert_eq!(check(&[func(&[("a", true), ("b", false)])], &e), vec![]);
    }

    #[test]
    fn an_unlisted_condition_and_a_stale_entry_are_both_reported() {
        let e = parse(ENTRY).expect("parses");
        let p = check(&[func(&[("a", false), ("b", true)])], &e);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(
            p[0].msg.contains("qp.c:3") && p[0].msg.contains("`a`"),
            "{p:?}"
        );
        assert_eq!(p[1].line, 1);
        assert!(p[1].msg.contains("remove"), "{p:?}");
    }

    #[test]
    fn the_decision_text_and_function_must_match() {
        let other = ENTRY.replace("if (a && b)", "if (a || b)");
        let e = parse(&other).expect("parses");
        assert_eq!(check(&[func(&[("a", true), ("b", false)])], &e).len(), 2);
        let other = ENTRY.replace("\"f\"", "\"g\"");
        let e = parse(&other).expect("parses");
        assert_eq!(check(&[func(&[("a", true), ("b", false)])], &e).len(), 2);
    }

    #[test]
    fn bad_entries_name_their_line() {
        let p = parse("\n[[not_shown]]\nfunction = \"f\"\ndecision = \"x\"\nreason = \"r\"\n")
            .expect_err("no conditions");
        assert_eq!(p.line, 2);
        assert!(p.msg.contains("conditions"), "{p:?}");
        let p = parse(&ENTRY.replace("\"r\"", "\" \"")).expect_err("empty reason");
        assert!(p.msg.contains("reason"), "{p:?}");
        let p = parse(&format!("{ENTRY}why = 1\n")).expect_err("unknown key");
        assert!(p.msg.contains("why"), "{p:?}");
        let p = parse(&format!("{ENTRY}since = \"6.12.1\"\n")).expect_err("a version");
        assert!(p.msg.contains("series"), "{p:?}");
    }

    #[test]
    fn since_limits_an_entry_to_later_series() {
        let e = parse(&format!("{ENTRY}since = \"6.1\"\n")).expect("parses");
        assert_eq!(applicable(&e, "6.12").len(), 1);
        assert!(applicable(&e, "5.10").is_empty());
    }
}
