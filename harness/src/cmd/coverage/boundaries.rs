//! `vectors/boundaries.toml` against the boundaries the corpus reaches
//! (`cargo xtask coverage --mcdc`): every relational comparison of
//! upstream code in scope whose operands the corpus never makes equal,
//! one below or one above is listed there with the reason, and every
//! entry still names such a comparison; either way round, the check
//! fails.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{applicable, read_tables, Explained, Problem};
use crate::judge::boundaries::{self, sides_text, FuncBoundaries, Side};
use crate::kernel::KernelTree;

/// One entry of the list: a comparison and the sides it misses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Line of the entry in the list, for messages.
    pub at: usize,
    /// The upstream function holding the comparison.
    pub function: String,
    /// The text of its line, trimmed.
    pub line: String,
    /// The comparison as the measurement writes it (`n < dd->num_pports`).
    pub expr: String,
    /// The sides no vector reaches.
    pub missed: Vec<Side>,
    /// `false`: no vector runs the comparison at all.
    pub reached: bool,
    /// Why.
    pub reason: String,
    /// The series the entry applies to.
    pub series: super::Series,
}

/// Reads the list's text (`[[boundary]]` tables).
pub fn parse(text: &str) -> Result<Vec<Entry>, Problem> {
    let keys = ["function", "line", "expr", "missed", "reached"];
    read_tables(text, "boundary", &keys, |t| {
        let names = || {
            let v: Vec<&str> = Side::ALL.iter().map(|s| s.name()).collect();
            v.join(", ")
        };
        let sides =
            t.t.get("missed")
                .and_then(|v| v.as_array())
                .ok_or_else(|| t.bad(format!("missing missed = [...] (of {})", names())))?;
        let mut missed = vec![];
        for v in sides.iter() {
            let side = v.as_str().and_then(Side::named).ok_or_else(|| {
                t.bad(format!("missed: {v} is not a side (expected {})", names()))
            })?;
            missed.push(side);
        }
        missed.sort();
        missed.dedup();
        if missed.is_empty() {
            return Err(t.bad("missed = []: an entry names the sides missed"));
        }
        let reached = match t.t.get("reached") {
            None => true,
            Some(v) => v
                .as_bool()
                .ok_or_else(|| t.bad("reached: expected true or false"))?,
        };
        if !reached && missed.len() != Side::ALL.len() {
            return Err(t.bad("reached = false misses every side"));
        }
        Ok(Entry {
            at: t.at,
            function: t.need("function")?,
            line: t.need("line")?.trim().to_owned(),
            expr: t.need("expr")?,
            missed,
            reached,
            reason: t.reason.clone(),
            series: t.series.clone(),
        })
    })
}

impl super::InSeries for Entry {
    fn series(&self) -> &super::Series {
        &self.series
    }
}

/// Compares the measurement with the list; returns every disagreement.
pub fn check(cov: &[FuncBoundaries], entries: &[Entry]) -> Vec<Problem> {
    let mut used = vec![false; entries.len()];
    let mut problems = vec![];
    for f in cov {
        let file = f.at.file.rsplit('/').next().unwrap_or(&f.at.file);
        for c in f.comparisons.iter().filter(|c| !c.missed().is_empty()) {
            let missed = c.missed();
            let reached = c.runs > 0;
            let how = if reached {
                format!("misses {}", sides_text(&missed))
            } else {
                "is not reached".to_owned()
            };
            let same = |e: &Entry| e.function == f.at.name && e.line == c.text && e.expr == c.expr;
            match (0..entries.len()).find(|&i| same(&entries[i])) {
                Some(i) if entries[i].missed == missed && entries[i].reached == reached => {
                    used[i] = true
                }
                Some(i) => {
                    used[i] = true;
                    problems.push(Problem {
                        line: entries[i].at,
                        msg: format!(
                            "{}: `{}` {how} now, but the entry says {}{}: correct it",
                            f.at.name,
                            c.expr,
                            if entries[i].reached {
                                ""
                            } else {
                                "not reached, "
                            },
                            format_args!("missed = {}", sides_text(&entries[i].missed))
                        ),
                    });
                }
                None => problems.push(Problem {
                    line: 0,
                    msg: format!(
                        "{file}:{} in {}: `{}` {how} and no entry explains it (add a vector \
                         that reaches the side, or an entry in boundaries.toml with the reason \
                         none can)",
                        c.line, f.at.name, c.expr
                    ),
                }),
            }
        }
    }
    for (e, _) in entries.iter().zip(&used).filter(|(_, u)| !**u) {
        problems.push(Problem {
            line: e.at,
            msg: format!(
                "{} `{}` (line `{}`): listed as missing {}, but no comparison like it misses a \
                 side now (the corpus reaches them, or the line changed): remove or correct \
                 the entry",
                e.function,
                e.expr,
                e.line,
                sides_text(&e.missed)
            ),
        });
    }
    problems
}

/// The list's path.
pub fn path(corpus: &Path) -> PathBuf {
    corpus.join("boundaries.toml")
}

/// Reads the list of `corpus` and compares it with the boundaries the
/// corpus misses in `tree` (`cov`), the entries of the tree's series
/// only.
pub fn explain(tree: &KernelTree, cov: &[FuncBoundaries], corpus: &Path) -> Result<Explained> {
    let list = path(corpus);
    let text =
        std::fs::read_to_string(&list).with_context(|| format!("reading {}", list.display()))?;
    let entries =
        parse(&text).map_err(|p| anyhow::anyhow!("{}:{}: {}", list.display(), p.line, p.msg))?;
    let entries = applicable(&entries, &tree.version.series());
    let problems = check(cov, &entries);
    Ok(Explained {
        manifest: list,
        entries: entries.len(),
        problems,
    })
}

/// The measuring world's boundaries (after `judge::mcdc::collect` ran the
/// corpus in it), their table, and the list's verdict on them.
pub fn measure_and_explain(
    world: &crate::cworld::BuiltWorld,
    corpus: &Path,
) -> Result<(String, Explained)> {
    let cov = boundaries::report(world)?;
    let explained = explain(&world.tree, &cov, corpus)?;
    Ok((boundaries::render(&world.tree, &cov), explained))
}

#[cfg(test)]
mod tests;
