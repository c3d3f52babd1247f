//! `vectors/unreached.toml`: what the committed corpus does not reach in
//! the upstream functions in scope, each with its reason, compared with
//! what `cargo xtask coverage` measured.
//!
//! An entry names a function and either the whole of what is missed in it
//! (`whole = true`: a function the world cannot drive), or source lines by
//! their text (trimmed; line numbers move between kernels, text rarely
//! does): `line = "..."` with how many of that line's branch arcs are never
//! taken (`branches`), or `lines = [...]` for lines that are only never
//! executed (no arcs of their own). The comparison
//! goes both ways: a miss no entry explains is an error (add a vector, or
//! an entry saying why none can reach it), and so is an entry that explains
//! nothing (the corpus reaches it now, or the line changed: remove it).
//! `since = "X.Y"` limits an entry to trees of that series and later,
//! `until = "X.Y"` to that series and earlier (code that upstream changed
//! in between).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::corpus;
use crate::judge::coverage::{self as measure, FuncCoverage, Tracefile};
use crate::judge::mcdc as clang;
use crate::kernel::{self, KernelTree};
use crate::report::exit_code;

pub mod boundaries;
pub mod mcdc;

/// The committed corpus measured on a series' tree.
#[derive(Debug)]
pub struct Measured {
    /// The tree measured.
    pub tree: KernelTree,
    /// Line and branch coverage per upstream function in scope.
    pub cov: Vec<FuncCoverage>,
    /// The objects of the gcov world, with their counters.
    pub obj: PathBuf,
    /// The counters, this run's until it is dropped.
    pub counters: measure::Counters,
}

/// Fetches `series`, builds its gcov world, runs the committed corpus in
/// it and reads the counters back per upstream function in scope.
pub fn measure(series: &str) -> Result<Measured> {
    let tree = kernel::fetch(series)?;
    let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
    let world = measure::collect(&tree, &vectors, None)?;
    let obj = world.dir.join("obj");
    let cov = measure::report(&world, &Tracefile::capture(&obj)?)?;
    Ok(Measured {
        tree,
        cov,
        obj,
        counters: world,
    })
}

/// The committed corpus measured for MC/DC on a series' tree.
#[derive(Debug)]
pub struct MeasuredMcdc {
    /// The tree measured.
    pub tree: KernelTree,
    /// MC/DC per upstream function in scope.
    pub cov: Vec<clang::FuncMcdc>,
    /// The measuring world, its counters this run's until it is dropped.
    pub world: measure::Counters,
    /// Its merged profile.
    pub profile: PathBuf,
}

/// Fetches `series`, builds its measuring world (clang 19, MC/DC), runs
/// the committed corpus in it and reads MC/DC back per function in scope.
pub fn measure_mcdc(series: &str) -> Result<MeasuredMcdc> {
    clang::require_clang()?;
    let tree = kernel::fetch(series)?;
    let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
    let world = clang::collect(&tree, &vectors, None)?;
    let profile = clang::merge_profiles(&world)?;
    let cov = clang::report(&world, &profile)?;
    Ok(MeasuredMcdc {
        tree,
        cov,
        world,
        profile,
    })
}

/// One entry of the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Line of the entry in the manifest, for messages.
    pub at: usize,
    /// The upstream function the entry is about.
    pub function: String,
    /// The text of the lines it explains, trimmed. Empty: the whole
    /// function.
    pub lines: Vec<String>,
    /// How many branch arcs of its line are never taken (0: the lines are
    /// never executed).
    pub branches: usize,
    /// Why no vector can reach it.
    pub reason: String,
    /// The series the entry applies to.
    pub series: Series,
}

/// The series a manifest entry applies to: `since = "X.Y"` and later,
/// `until = "X.Y"` and earlier (`None`: no bound).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Series {
    /// The oldest series.
    pub since: Option<String>,
    /// The newest series.
    pub until: Option<String>,
}

impl Series {
    /// Whether a tree of `series` is in the range.
    pub fn holds(&self, series: &str) -> bool {
        let order = crate::kernel::series_order;
        self.since
            .as_deref()
            .is_none_or(|s| order(series) >= order(s))
            && self
                .until
                .as_deref()
                .is_none_or(|u| order(series) <= order(u))
    }
}

/// An entry of a manifest that may say `since` or `until`.
pub trait InSeries {
    /// The series the entry applies to.
    fn series(&self) -> &Series;
}

impl InSeries for Entry {
    fn series(&self) -> &Series {
        &self.series
    }
}

/// The entries that apply to a tree of `series`.
pub fn applicable<E: InSeries + Clone>(entries: &[E], series: &str) -> Vec<E> {
    entries
        .iter()
        .filter(|e| e.series().holds(series))
        .cloned()
        .collect()
}

/// A manifest entry that could not be read, or a disagreement with the
/// measurement: `file:line: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The manifest's line (0: the problem is a miss, not an entry).
    pub line: usize,
    /// What is wrong.
    pub msg: String,
}

pub(crate) fn line_of(text: &str, span: Option<Range<usize>>) -> usize {
    span.map_or(1, |s| {
        text[..s.start.min(text.len())]
            .bytes()
            .filter(|b| *b == b'\n')
            .count()
            + 1
    })
}

/// One `[[NAME]]` table of a manifest as its entry is read: where it
/// starts, and its `reason` (present, not empty), `since` and `until`
/// (series) already checked.
pub(crate) struct Table<'a> {
    /// The manifest line the table starts on.
    pub at: usize,
    /// The table.
    pub t: &'a toml_edit::Table,
    /// Why.
    pub reason: String,
    /// The series it applies to.
    pub series: Series,
}

impl Table<'_> {
    /// A problem of this entry.
    pub fn bad(&self, msg: impl Into<String>) -> Problem {
        Problem {
            line: self.at,
            msg: msg.into(),
        }
    }

    /// The string value of key `k`, if any.
    pub fn str(&self, k: &str) -> Option<String> {
        self.t.get(k).and_then(|v| v.as_str()).map(str::to_owned)
    }

    /// The string value of key `k`, which the entry must have.
    pub fn need(&self, k: &str) -> Result<String, Problem> {
        self.str(k)
            .ok_or_else(|| self.bad(format!("missing {k} = \"...\"")))
    }

    /// The array of strings of key `k`, if any.
    pub fn strings(&self, k: &str) -> Result<Option<Vec<String>>, Problem> {
        let Some(v) = self.t.get(k) else {
            return Ok(None);
        };
        let bad = || self.bad(format!("{k}: expected an array of strings"));
        let a = v.as_array().ok_or_else(bad)?;
        let mut out = vec![];
        for x in a.iter() {
            out.push(x.as_str().ok_or_else(bad)?.trim().to_owned());
        }
        Ok(Some(out))
    }
}

/// Reads each `[[name]]` table of a manifest's `text` with `entry`, after
/// checking it has only `keys` (every manifest's entries have `reason`
/// and may have `since`, which are checked here).
pub(crate) fn read_tables<E>(
    text: &str,
    name: &str,
    keys: &[&str],
    mut entry: impl FnMut(&Table) -> Result<E, Problem>,
) -> Result<Vec<E>, Problem> {
    let doc: toml_edit::ImDocument<&str> =
        toml_edit::ImDocument::parse(text).map_err(|e| Problem {
            line: line_of(text, e.span()),
            msg: e.message().to_owned(),
        })?;
    let Some(item) = doc.get(name) else {
        return Ok(vec![]);
    };
    let tables = item.as_array_of_tables().ok_or_else(|| Problem {
        line: line_of(text, item.span()),
        msg: format!("expected [[{name}]] tables"),
    })?;
    let mut out = vec![];
    for t in tables.iter() {
        let at = line_of(text, t.span());
        let bad = |msg: String| Problem { line: at, msg };
        if let Some((k, _)) = t
            .iter()
            .find(|(k, _)| !keys.contains(k) && !["reason", "since", "until"].contains(k))
        {
            return Err(bad(format!(
                "unknown key {k:?} (expected {}, reason, since, until)",
                keys.join(", ")
            )));
        }
        let s = |k: &str| t.get(k).and_then(|v| v.as_str()).map(str::to_owned);
        let reason = s("reason").ok_or_else(|| bad("missing reason = \"...\"".into()))?;
        if reason.trim().is_empty() {
            return Err(bad("an empty reason explains nothing".into()));
        }
        let series = Series {
            since: s("since"),
            until: s("until"),
        };
        for (k, v) in [("since", &series.since), ("until", &series.until)] {
            if let Some(v) = v {
                if crate::kernel::KernelSpec::parse(v).map_or(true, |k| k.version.is_some()) {
                    return Err(bad(format!("{k} = {v:?}: a series such as \"6.1\"")));
                }
            }
        }
        out.push(entry(&Table {
            at,
            t,
            reason,
            series,
        })?);
    }
    Ok(out)
}

/// Reads the manifest text (`[[unreached]]` tables).
pub fn parse(text: &str) -> Result<Vec<Entry>, Problem> {
    let keys = ["function", "line", "lines", "whole", "branches"];
    read_tables(text, "unreached", &keys, |t| {
        let function = t.need("function")?;
        let whole = t.t.get("whole").and_then(|v| v.as_bool()).unwrap_or(false);
        let mut lines: Vec<String> = t.str("line").into_iter().collect();
        if let Some(more) = t.strings("lines")? {
            if t.t.contains_key("line") || t.t.contains_key("branches") {
                return Err(
                    t.bad("lines = [...] lists never-executed lines: no line or branches with it")
                );
            }
            lines.extend(more);
        }
        let branches = match t.t.get("branches").and_then(|v| v.as_integer()) {
            Some(n) if n >= 0 => n as usize,
            Some(n) => return Err(t.bad(format!("branches = {n}: a count of arcs"))),
            None => 0,
        };
        match (whole, lines.is_empty()) {
            (true, false) => return Err(t.bad("whole = true names no line")),
            (false, true) => {
                return Err(t.bad("needs line = \"...\", lines = [...] or whole = true"))
            }
            _ => {}
        }
        Ok(Entry {
            at: t.at,
            function,
            lines: lines.iter().map(|l| l.trim().to_owned()).collect(),
            branches,
            reason: t.reason.clone(),
            series: t.series.clone(),
        })
    })
}

/// What is missed in one function: (line, its text, branch arcs never
/// taken there; 0 for a line only never executed).
fn misses(c: &FuncCoverage, src: &[&str]) -> Vec<(usize, String, usize)> {
    let text = |l: usize| {
        src.get(l.wrapping_sub(1))
            .map_or("", |s| s.trim())
            .to_owned()
    };
    let mut v: Vec<(usize, String, usize)> = c
        .missed_branches
        .iter()
        .map(|&(l, taken, total)| (l, text(l), total - taken))
        .collect();
    for &l in &c.missed_lines {
        if !v.iter().any(|m| m.0 == l) {
            v.push((l, text(l), 0));
        }
    }
    v.sort();
    v
}

/// Compares the measurement with the manifest. `source` gives a file's
/// lines (as `FuncCoverage::file` names it). Returns every disagreement.
pub fn check<'a>(
    cov: &[FuncCoverage],
    entries: &[Entry],
    source: impl Fn(&str) -> Option<&'a str>,
) -> Vec<Problem> {
    let mut used = vec![false; entries.len()];
    let mut problems = vec![];
    for c in cov {
        let src: Vec<&str> = source(&c.file).map_or(vec![], |s| s.lines().collect());
        let file = c.file.rsplit('/').next().unwrap_or(&c.file);
        let mine: Vec<usize> = (0..entries.len())
            .filter(|&i| entries[i].function == c.name)
            .collect();
        let whole = mine.iter().find(|&&i| entries[i].lines.is_empty());
        let found = misses(c, &src);
        if let Some(&i) = whole {
            used[i] = !found.is_empty();
            continue;
        }
        for (l, text, arcs) in found {
            let hit = mine
                .iter()
                .find(|&&i| entries[i].lines.contains(&text) && entries[i].branches == arcs);
            match hit {
                Some(&i) => used[i] = true,
                None => problems.push(Problem {
                    line: 0,
                    msg: format!(
                        "{file}:{l} in {}: `{text}` {} and no entry explains it (add a vector \
                         that reaches it, or an entry with the reason none can)",
                        c.name,
                        if arcs > 0 {
                            format!("has {arcs} branch arc(s) never taken")
                        } else {
                            "is never executed".into()
                        }
                    ),
                }),
            }
        }
    }
    for (i, e) in entries.iter().enumerate() {
        if !used[i] {
            problems.push(Problem {
                line: e.at,
                msg: format!(
                    "{} {}: listed as unreached, but nothing like it is missed now (the corpus \
                     reaches it, or the line changed): remove or correct the entry",
                    e.function,
                    if e.lines.is_empty() {
                        "(whole function)".to_owned()
                    } else {
                        format!("`{}` ({} arcs)", e.lines.join("`, `"), e.branches)
                    }
                ),
            });
        }
    }
    problems
}

/// The manifest's path.
pub fn path(corpus: &Path) -> PathBuf {
    corpus.join("unreached.toml")
}

/// A tree's measurement against the manifest: every miss explained, every
/// explanation still needed, or not.
#[derive(Debug, Clone)]
pub struct Explained {
    /// The manifest read.
    pub manifest: PathBuf,
    /// How many of its entries apply to the tree's series.
    pub entries: usize,
    /// Every disagreement between the two (none: they agree).
    pub problems: Vec<Problem>,
}

impl Explained {
    /// The line saying every miss is explained, when the two agree.
    pub fn agreed(&self) -> Option<String> {
        self.problems.is_empty().then(|| {
            format!(
                "every miss above is explained by {} ({} entries)",
                self.manifest.display(),
                self.entries
            )
        })
    }

    /// Each disagreement (`MANIFEST:LINE: …`, or `error: …` for a miss no
    /// entry explains), then how many; none when the two agree.
    pub fn disagreements(&self) -> Vec<String> {
        if self.problems.is_empty() {
            return vec![];
        }
        let shown = self.manifest.display();
        let mut out: Vec<String> = self
            .problems
            .iter()
            .map(|p| match p.line {
                0 => format!("error: {}", p.msg),
                l => format!("{shown}:{l}: {}", p.msg),
            })
            .collect();
        out.push(format!(
            "{} disagreement(s) between the measurement and {shown}",
            self.problems.len()
        ));
        out
    }

    /// [`exit_code::SUCCESS`] when they agree, [`exit_code::FINDING`] when
    /// they do not.
    pub fn exit_code(&self) -> u8 {
        if self.problems.is_empty() {
            exit_code::SUCCESS
        } else {
            exit_code::FINDING
        }
    }
}

/// Reads the manifest of `corpus` and compares it with what the corpus
/// misses in `tree` (`cov`, measured), only the entries that apply to the
/// tree's series counted. An error: the manifest or an upstream source
/// could not be read.
pub fn explain(tree: &KernelTree, cov: &[FuncCoverage], corpus: &Path) -> Result<Explained> {
    let manifest = path(corpus);
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    let entries = parse(&text)
        .map_err(|p| anyhow::anyhow!("{}:{}: {}", manifest.display(), p.line, p.msg))?;
    let entries = applicable(&entries, &tree.version.series());
    let mut sources = BTreeMap::new();
    for c in cov {
        if !sources.contains_key(&c.file) {
            let src = tree.read_to_string(&tree.path(&c.file))?;
            sources.insert(c.file.clone(), src);
        }
    }
    let problems = check(cov, &entries, |f| sources.get(f).map(String::as_str));
    Ok(Explained {
        manifest,
        entries: entries.len(),
        problems,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(missed_branches: Vec<(usize, usize, usize)>, missed_lines: Vec<usize>) -> FuncCoverage {
        FuncCoverage {
            file: "drivers/infiniband/hw/hfi1/qp.c".into(),
            name: "f".into(),
            start: 1,
            end: 5,
            lines_hit: 0,
            lines: 0,
            branches_taken: 0,
            branches: 0,
            missed_branches,
            missed_lines,
        }
    }

    const SRC: &str = "void f(void)\n{\n\tif (a)\n\t\tb();\n}\n";

    fn entries(t: &str) -> Vec<Entry> {
        parse(t).expect("parses")
    }

    #[test]
    fn since_limits_an_entry_to_later_series() {
        let e = entries(
            "[[unreached]]\nfunction = \"f\"\nlines = [\"b();\"]\nsince = \"6.1\"\nreason = \"r\"\n",
        );
        assert_eq!(applicable(&e, "6.12").len(), 1);
        assert_eq!(applicable(&e, "6.1").len(), 1);
        assert!(applicable(&e, "5.10").is_empty());
        assert!(parse(
            "[[unreached]]\nfunction = \"f\"\nwhole = true\nsince = \"x\"\nreason = \"r\"\n"
        )
        .is_err());
    }

    #[test]
    fn until_limits_an_entry_to_earlier_series() {
        let e = entries(
            "[[unreached]]\nfunction = \"f\"\nlines = [\"b();\"]\nuntil = \"5.10\"\nreason = \"r\"\n",
        );
        assert_eq!(applicable(&e, "5.10").len(), 1);
        assert!(applicable(&e, "6.1").is_empty());
        assert!(parse(
            "[[unreached]]\nfunction = \"f\"\nwhole = true\nuntil = \"6.1.2\"\nreason = \"r\"\n"
        )
        .is_err());
    }

    #[test]
    fn a_miss_is_matched_by_its_line_text_and_arc_count() {
        let cov = [func(vec![(3, 1, 2)], vec![4])];
        let e = entries(
            "[[unreached]]\nfunction = \"f\"\nline = \"if (a)\"\nbranches = 1\nreason = \"r\"\n\
             [[unreached]]\nfunction = \"f\"\nlines = [\"b();\"]\nreason = \"r\"\n",
        );
        assert_eq!(check(&cov, &e, |_| Some(SRC)), vec![]);
    }

    #[test]
    fn an_unexplained_miss_and_a_stale_entry_are_both_reported() {
        let cov = [func(vec![(3, 1, 2)], vec![])];
        let e = entries("[[unreached]]\nfunction = \"f\"\nline = \"b();\"\nreason = \"r\"\n");
        let p = check(&cov, &e, |_| Some(SRC));
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(
            p[0].msg.contains("qp.c:3") && p[0].msg.contains("1 branch arc"),
            "{p:?}"
        );
        assert_eq!(p[1].line, 1);
        assert!(p[1].msg.contains("remove"), "{p:?}");
    }

    #[test]
    fn the_arc_count_must_match() {
        let cov = [func(vec![(3, 0, 2)], vec![])];
        let e = entries(
            "[[unreached]]\nfunction = \"f\"\nline = \"if (a)\"\nbranches = 1\nreason = \"r\"\n",
        );
        assert_eq!(check(&cov, &e, |_| Some(SRC)).len(), 2);
    }

    #[test]
    fn whole_covers_everything_missed_but_not_nothing() {
        let e = entries("[[unreached]]\nfunction = \"f\"\nwhole = true\nreason = \"r\"\n");
        let missed = [func(vec![(3, 0, 2)], vec![4])];
        assert_eq!(check(&missed, &e, |_| Some(SRC)), vec![]);
        let reached = [func(vec![], vec![])];
        assert_eq!(check(&reached, &e, |_| Some(SRC)).len(), 1);
    }

    #[test]
    fn bad_entries_name_their_line() {
        let p = parse("[[unreached]]\nfunction = \"f\"\nreason = \"r\"\n").expect_err("no line");
        assert_eq!(p.line, 1);
        assert!(p.msg.contains("line"), "{p:?}");
        let p = parse("\n[[unreached]]\nfunction = \"f\"\nwhole = true\nreason = \" \"\n")
            .expect_err("empty reason");
        assert_eq!(p.line, 2);
        let p = parse("[[unreached]]\nfunction = \"f\"\nwhole = true\nreason = \"r\"\nwhy = 1\n")
            .expect_err("unknown key");
        assert!(p.msg.contains("why"), "{p:?}");
    }

    /// What the command says: one line when the two agree; else each
    /// disagreement (a miss as `error:`, an entry by its manifest line)
    /// and their count.
    #[test]
    fn agreement_and_disagreements_are_said() {
        let mut e = Explained {
            manifest: PathBuf::from("vectors/unreached.toml"),
            entries: 3,
            problems: vec![],
        };
        assert_eq!(
            e.agreed().as_deref(),
            Some("every miss above is explained by vectors/unreached.toml (3 entries)")
        );
        assert!(e.disagreements().is_empty());
        assert_eq!(e.exit_code(), exit_code::SUCCESS);
        e.problems = vec![
            Problem {
                line: 0,
                msg: "a miss".into(),
            },
            Problem {
                line: 7,
                msg: "a stale entry".into(),
            },
        ];
        assert_eq!(e.agreed(), None);
        assert_eq!(
            e.disagreements(),
            [
                "error: a miss",
                "vectors/unreached.toml:7: a stale entry",
                "2 disagreement(s) between the measurement and vectors/unreached.toml",
            ]
        );
        assert_eq!(e.exit_code(), exit_code::FINDING);
    }
}
