//! `cargo xtask scope`: before running anything, which files and
//! functions of a tree's hfi1 driver (and rdmavt) the gate judges, and
//! which it lists as not judged. The answer is `judge::scope`'s, the one
//! the gate gives patch by patch.

use anyhow::Result;
use serde::Serialize;

use crate::cworld;
use crate::judge::scope::{Runs, Unjudged};
use crate::kernel::{cscan, KernelTree};

/// The directories whose C files and headers the statement lists.
const DRIVERS: &[&str] = &["drivers/infiniband/hw/hfi1", "drivers/infiniband/sw/rdmavt"];

/// What the gate judges in one tree.
#[derive(Debug, Clone, Serialize)]
pub struct Statement {
    /// The tree's kernel version (`6.12.117`).
    pub kernel: String,
    /// Its series (`6.12`).
    pub series: String,
    /// Every C file and header of the drivers, in path order.
    pub files: Vec<FileScope>,
}

/// What the gate judges in one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileScope {
    /// The path in the tree.
    pub path: String,
    /// How the worlds take it ([`Runs::word`]).
    pub how: String,
    /// The definitions an edit of which is judged (a header's: all, through
    /// the build).
    pub judged: Vec<String>,
    /// The definitions an edit of which is listed as not judged.
    pub not_judged: Vec<String>,
    /// For a file whose every definition is judged or listed with why
    /// (`c-shim/unjudged.toml`): its definitions not judged, by reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<Because>,
    /// For such a file: the definitions not judged that the list does not
    /// explain (a gap `--check` fails on).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unlisted: Vec<String>,
    /// Code in judged definitions (a header: anywhere) that no world
    /// compiles, by the directive that leaves it out: an edit of it is
    /// not judged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub compiled_out: Vec<CompiledOut>,
}

/// Lines of a file no world compiles, under one directive.
#[derive(Debug, Clone, Serialize)]
pub struct CompiledOut {
    /// The directive (`#ifdef CONFIG_SDMA_VERBOSITY`).
    pub directive: String,
    /// The code lines it leaves out.
    pub lines: Vec<usize>,
    /// The judged definitions they are in (none in a header's top level).
    pub functions: Vec<String>,
}

/// Definitions of a file not judged for one reason.
#[derive(Debug, Clone, Serialize)]
pub struct Because {
    /// `not yet` or `cannot`.
    pub kind: String,
    /// Why.
    pub why: String,
    /// The definitions of this tree's file it explains.
    pub functions: Vec<String>,
}

impl Statement {
    /// How many definitions are judged and how many there are.
    pub fn counts(&self) -> (usize, usize) {
        self.files.iter().fold((0, 0), |(j, t), f| {
            (j + f.judged.len(), t + f.judged.len() + f.not_judged.len())
        })
    }
}

/// The statement of `tree`, with the reasons of `list`.
pub fn statement(tree: &KernelTree, list: &Unjudged) -> Result<Statement> {
    let inputs = cworld::build::tree_inputs(tree)?;
    let lines = cworld::build::compiled_lines(tree)?;
    let mut files = vec![];
    for dir in DRIVERS {
        let Ok(rd) = std::fs::read_dir(tree.path(dir)) else {
            continue;
        };
        let mut names: Vec<String> = rd
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".c") || n.ends_with(".h"))
            .collect();
        names.sort();
        for n in names {
            let path = format!("{dir}/{n}");
            let runs = Runs::of(&path, &inputs);
            // A file that cannot be read or scanned lists no definitions.
            let src = crate::kernel::read_tree_file(&tree.root, &tree.path(&path))
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            let all = cscan::definitions(&src).unwrap_or_default();
            // Each name once (a static function's prototype comes first).
            let mut seen = std::collections::HashSet::new();
            let defs: Vec<String> = all
                .iter()
                .map(|d| d.name.clone())
                .filter(|n| seen.insert(n.clone()))
                .collect();
            let (judged, not_judged): (Vec<String>, Vec<String>) =
                defs.into_iter().partition(|d| runs.judges(d));
            let (reasons, unlisted) = explained(list, &path, &not_judged);
            let compiled = !matches!(runs, Runs::Outside | Runs::NotCompiled);
            let compiled_out = match lines.file(&path, &src) {
                Some(f) if compiled => compiled_out(&f, &all, &runs, path.ends_with(".c")),
                _ => vec![],
            };
            files.push(FileScope {
                path,
                how: runs.word().to_owned(),
                judged,
                not_judged,
                reasons,
                unlisted,
                compiled_out,
            });
        }
    }
    Ok(Statement {
        kernel: tree.version.to_string(),
        series: tree.version.series(),
        files,
    })
}

/// The groups of a compiled file no world compiles (`file`), by
/// directive; in a C file only the code inside definitions `runs` judges
/// (`defs`: the rest is not judged anyway, and an extracted file's other
/// definitions are never preprocessed).
fn compiled_out(
    file: &cworld::build::FileLines,
    defs: &[cscan::Definition],
    runs: &Runs,
    c_file: bool,
) -> Vec<CompiledOut> {
    let mut out: Vec<CompiledOut> = vec![];
    for (head, code) in file.groups_compiled_out() {
        let mut functions = vec![];
        let mut lines = vec![];
        for l in code {
            let def = defs
                .iter()
                .find(|d| l >= d.line && l < d.line + d.text.lines().count().max(1));
            let judged = def.filter(|d| runs.judges(&d.name));
            if judged.is_none() && c_file {
                continue;
            }
            if let Some(d) = judged.filter(|d| !functions.contains(&d.name)) {
                functions.push(d.name.clone());
            }
            lines.push(l);
        }
        if lines.is_empty() {
            continue;
        }
        match out.iter_mut().find(|c| c.directive == head) {
            Some(c) => {
                c.lines.extend(lines);
                for f in functions {
                    if !c.functions.contains(&f) {
                        c.functions.push(f);
                    }
                }
            }
            None => out.push(CompiledOut {
                directive: head.to_owned(),
                lines,
                functions,
            }),
        }
    }
    out
}

/// The definitions `not_judged` of `path` grouped by the reason `list`
/// gives, and those it gives none (nothing for a file it does not cover).
fn explained(list: &Unjudged, path: &str, not_judged: &[String]) -> (Vec<Because>, Vec<String>) {
    if !list.files.iter().any(|f| f == path) {
        return (vec![], vec![]);
    }
    let mut reasons: Vec<Because> = vec![];
    let mut unlisted = vec![];
    for name in not_judged {
        let Some(r) = list.reason(path, name) else {
            unlisted.push(name.clone());
            continue;
        };
        match reasons.iter_mut().find(|b| b.why == r.why) {
            Some(b) => b.functions.push(name.clone()),
            None => reasons.push(Because {
                kind: r.kind.clone(),
                why: r.why.clone(),
                functions: vec![name.clone()],
            }),
        }
    }
    (reasons, unlisted)
}

/// Where the statements and `list` part, both ways: a definition of a
/// file the list covers that no world runs and the list does not explain,
/// a listed one some world runs now, and a listed one no tree defines.
pub fn check(statements: &[Statement], list: &Unjudged) -> Vec<String> {
    let at = Unjudged::path();
    let at = crate::report::shown_path(&at);
    let mut problems = vec![];
    for s in statements {
        for f in s.files.iter().filter(|f| list.files.contains(&f.path)) {
            for name in &f.unlisted {
                problems.push(format!(
                    "{}: {}: {name} runs in no world and {at} does not say why: bring it \
                     into scope, or list it with the reason",
                    s.series, f.path
                ));
            }
            for name in f
                .judged
                .iter()
                .filter(|n| list.reason(&f.path, n).is_some())
            {
                problems.push(format!(
                    "{}: {}: {name} is judged now: remove it from {at}",
                    s.series, f.path
                ));
            }
        }
    }
    for r in &list.unjudged {
        for name in &r.functions {
            let defined = statements.iter().any(|s| {
                s.files.iter().any(|f| {
                    f.path == r.file && (f.judged.contains(name) || f.not_judged.contains(name))
                })
            });
            if !defined {
                let series: Vec<&str> = statements.iter().map(|s| s.series.as_str()).collect();
                problems.push(format!(
                    "{}: {name} is listed in {at} but defined in none of {}: remove it \
                     (or list it under its new name)",
                    r.file,
                    series.join(", ")
                ));
            }
        }
    }
    problems
}

/// The statements as a reader wants them: per tree, the files some world
/// compiles with what of them is judged, then the files none compiles.
pub fn human(statements: &[Statement]) -> String {
    let mut out = String::new();
    for s in statements {
        let (judged, total) = s.counts();
        out.push_str(&format!(
            "SCOPE {} ({}): {judged} of {total} definitions judged\n",
            s.series, s.kernel
        ));
        let runs = |f: &&FileScope| !["not compiled", "outside"].contains(&f.how.as_str());
        for f in s.files.iter().filter(runs) {
            let all = f.not_judged.is_empty();
            out.push_str(&format!(
                "  {} ({}): {}\n",
                f.path,
                f.how,
                if f.judged.is_empty() && all {
                    "no definitions; edits judged through the build".to_owned()
                } else if all {
                    format!("every definition ({})", f.judged.len())
                } else {
                    format!(
                        "{} of {}: {}",
                        f.judged.len(),
                        f.judged.len() + f.not_judged.len(),
                        f.judged.join(", ")
                    )
                }
            ));
            for b in &f.reasons {
                out.push_str(&format!(
                    "    not judged, {} ({}): {}\n      why: {}\n",
                    b.kind,
                    b.functions.len(),
                    b.functions.join(", "),
                    b.why.replace('\n', " ")
                ));
            }
            if !f.unlisted.is_empty() {
                out.push_str(&format!(
                    "    not judged, no reason listed ({}): {}\n",
                    f.unlisted.len(),
                    f.unlisted.join(", ")
                ));
            }
            for c in &f.compiled_out {
                let within = match c.functions.as_slice() {
                    [] => String::new(),
                    fs => format!(" in {}", fs.join(", ")),
                };
                let n = c.lines.len();
                out.push_str(&format!(
                    "    not judged, compiled out in every world: `{}` ({n} line{}{within})\n",
                    c.directive,
                    if n == 1 { "" } else { "s" }
                ));
            }
        }
        let none: Vec<&str> = s
            .files
            .iter()
            .filter(|f| !runs(f))
            .map(|f| f.path.as_str())
            .collect();
        if !none.is_empty() {
            out.push_str(&format!(
                "  not judged ({} files no world compiles): {}\n",
                none.len(),
                none.join(", ")
            ));
        }
    }
    out
}

/// The statements as JSON: an array, one per tree.
pub fn json(statements: &[Statement]) -> Result<String> {
    Ok(serde_json::to_string_pretty(statements)? + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list() -> Unjudged {
        Unjudged::parse(
            "files = [\"a.c\"]\n[[unjudged]]\nfile = \"a.c\"\nkind = \"not yet\"\n\
             why = \"later\"\nfunctions = [\"slow\", \"gone\", \"now_run\"]\n",
        )
        .expect("parses")
    }

    /// A tree of series `series` where a.c defines `judged` (run) and
    /// `not_judged` (not), explained by [`list`].
    fn statement(series: &str, judged: &[&str], not_judged: &[&str]) -> Statement {
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (reasons, unlisted) = explained(&list(), "a.c", &names(not_judged));
        Statement {
            kernel: format!("{series}.1"),
            series: series.into(),
            files: vec![FileScope {
                path: "a.c".into(),
                how: "in scope".into(),
                judged: names(judged),
                not_judged: names(not_judged),
                reasons,
                unlisted,
                compiled_out: vec![],
            }],
        }
    }

    #[test]
    fn the_list_is_checked_both_ways() {
        // `gone` is defined in the older tree only: listed rightly.
        let agree = [
            statement("6.1", &["now"], &["slow", "gone"]),
            statement("6.12", &["now"], &["slow", "now_run"]),
        ];
        assert_eq!(check(&agree, &list()), Vec::<String>::new());
        let s = &agree[0].files[0];
        assert_eq!(s.reasons.len(), 1);
        assert_eq!(s.reasons[0].functions, ["slow", "gone"]);
        // A definition run by none and unexplained; one listed that runs.
        let part = [statement(
            "6.12",
            &["now", "now_run"],
            &["slow", "gone", "new"],
        )];
        let p = check(&part, &list());
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p[0].contains("a.c: new runs in no world"), "{p:?}");
        assert!(p[1].contains("a.c: now_run is judged now"), "{p:?}");
        // Listed, defined in none of the trees.
        let p = check(&[statement("6.12", &["now"], &["slow"])][..0], &list());
        assert_eq!(p.len(), 3, "{p:?}");
        let p = check(&[statement("6.12", &[], &["slow", "now_run"])], &list());
        assert_eq!(p, ["a.c: gone is listed in c-shim/unjudged.toml but defined in none of 6.12: remove it (or list it under its new name)"]);
    }
}
