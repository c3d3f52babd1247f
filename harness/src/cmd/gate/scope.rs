//! Where a patch's edits fall: which the gate judges, and which it lists
//! as not judged (outside the extracted tree, in a file no world
//! compiles, or in a function no world runs); and the changed functions,
//! each judged or not.

use std::path::Path;

use std::collections::BTreeMap;

use super::ChangedFunctions;
use crate::cworld::build::{CompiledLines, Manifest, Site};
use crate::judge::scope::{Reason, Runs, Unjudged};
use crate::kernel::cond::Conditionals;
use crate::kernel::cscan::{self, Definition};
use crate::kernel::patch::Patch;
use crate::kernel::patch::{
    added_lines, changes_conditionals, comment_only_lines, removed_definitions, renamed,
    touched_lines,
};

/// Where a patch's edits fall.
#[derive(Debug, Clone, Default)]
pub(super) struct Scope {
    /// Each edit the gate does not judge, with where it falls: outside the
    /// extracted tree, in a file no world compiles, or in a function of a
    /// compiled file that no world runs. An edit inside a function in
    /// scope, or in a header the world compiles, is judged.
    pub not_judged: Vec<String>,
    /// The changed lines inside functions in scope (`(path, line)`), whose
    /// coverage the gate measures.
    pub lines: Vec<(String, usize)>,
    /// The changed functions (see [`ChangedFunctions`]), judged or not.
    pub functions: ChangedFunctions,
    /// Whether the patch touches a file a world compiles whole: its world
    /// changes even when no function a world runs does (a patch not
    /// judged is still built then, for the build and its warnings).
    pub compiled_whole: bool,
}

/// Where `patch`'s edits fall in the patched tree `tree`, whose worlds
/// compile `inputs` (paths in the tree) and, when known, the lines
/// `compiled` (an edit on lines no world compiles is not judged).
pub(super) fn classify(
    tree: &Path,
    patch: &Patch,
    inputs: &[String],
    compiled: Option<&CompiledLines>,
) -> Scope {
    let manifest = Manifest::load().ok();
    let mut s = Scope::default();
    let added = added_lines(&patch.text);
    for (path, lines) in touched_lines(&patch.text) {
        let file = short(&path);
        let runs = Runs::of(&path, inputs);
        match runs {
            Runs::Outside => {
                s.not_judged.push(format!(
                    "{path}: outside the tree the harness extracts (not judged)"
                ));
                s.functions.not_judged.push(file.to_owned());
                continue;
            }
            Runs::NotCompiled => {
                s.not_judged
                    .push(format!("{path}: no world compiles it (not judged)"));
                // Named from the tree when it is C, else the file.
                for (unit, _) in units(tree, &path, &lines) {
                    s.functions.not_judged.push(unit);
                }
                continue;
            }
            // A header (or the Makefile): judged through the build, but
            // for the lines its preprocessor leaves out.
            Runs::Header(ref names) if names.is_empty() => {
                let out = compiled_out(tree, (&path, &patch.text), compiled, &added, &lines);
                if lines.is_empty() || !not_compiled(&path, file, &lines, &out, &mut s).is_empty() {
                    s.functions.judged.push(file.to_owned());
                }
                continue;
            }
            _ => {}
        }
        if manifest
            .as_ref()
            .is_some_and(|m| m.upstream.compile.iter().any(|c| c.file == path))
        {
            s.compiled_whole = true;
        }
        let inert = crate::kernel::read_tree_text(tree, &tree.join(&path))
            .map(|src| comment_only_lines(&patch.text, &path, &src))
            .unwrap_or_default();
        // Where a function was removed whole is not an edit of what
        // follows it.
        let gone = removed(tree, (&path, &patch.text), &runs, &mut s);
        let rest: Vec<usize> = lines
            .iter()
            .copied()
            .filter(|l| !gone.contains(l))
            .collect();
        if rest.is_empty() && !lines.is_empty() {
            continue;
        }
        let out = compiled_out(tree, (&path, &patch.text), compiled, &added, &rest);
        in_compiled_file(tree, &path, (&rest, &inert, &out), &runs, &mut s);
    }
    // A compiled file renamed (or copied) away: the worlds' build reads
    // it by its old name, so the build judges it.
    for (from, _) in renamed(&patch.text) {
        if !matches!(Runs::of(&from, inputs), Runs::Outside | Runs::NotCompiled) {
            s.functions.judged.push(short(&from).to_owned());
            s.compiled_whole = true;
        }
    }
    for names in [&mut s.functions.judged, &mut s.functions.not_judged] {
        let mut seen = std::collections::HashSet::new();
        names.retain(|n| seen.insert(n.clone()));
    }
    s
}

/// Whether some edit of `patch` in a file the worlds compile (`inputs`)
/// lies inside a conditional group of the patched `tree`: only then can
/// it be compiled out, and the tree's compiled lines are worth reading.
pub(super) fn inside_conditionals(tree: &Path, patch: &Patch, inputs: &[String]) -> bool {
    touched_lines(&patch.text).iter().any(|(path, lines)| {
        let compiled = matches!(
            Runs::of(path, inputs),
            Runs::Every | Runs::InScope(_) | Runs::Extracted(_) | Runs::Header(_)
        );
        let Some(src) = compiled
            .then(|| crate::kernel::read_tree_text(tree, &tree.join(path)).ok())
            .flatten()
        else {
            return false;
        };
        let groups = Conditionals::scan(&src);
        groups.any()
            && lines
                .iter()
                .any(|&l| groups.of_line(l).or_else(|| groups.of_gap(l)).is_some())
    })
}

/// The functions of `path` the patch removes whole (gone from the patched
/// `tree`): each a changed function, judged when a world runs it in the
/// tree before (its vectors run there only: see the comparison's `not in
/// tree`), else listed. Returns the lines of the new file the removals
/// touch: nothing else of the file changes there.
fn removed(tree: &Path, (path, text): (&str, &str), runs: &Runs, s: &mut Scope) -> Vec<usize> {
    if !path.ends_with(".c") {
        return vec![];
    }
    let defs = definitions(tree, path).unwrap_or_default();
    let mut touched = vec![];
    for (lines, names) in removed_definitions(text, path) {
        if names.iter().any(|n| defs.iter().any(|d| d.name == *n)) {
            continue; // moved, not removed
        }
        for name in names {
            let unit = format!("{}: {name}", short(path));
            if runs.judges(&name) {
                s.functions.judged.push(unit);
            } else {
                s.not_judged.push(format!(
                    "{path}: {name} (removed): no world runs it (not judged)"
                ));
                s.functions.not_judged.push(unit);
            }
        }
        touched.extend(lines);
    }
    touched
}

/// The edits of a compiled file `path`. A header is one unit, judged
/// through the build. In a `.c` file each changed definition is judged
/// when some world runs it, else listed; edits outside any definition
/// are judged only where every function is, or when they change only
/// comments and whitespace (`inert`: no compiler sees them). Lines
/// compiled out (`out`, each with the directive that leaves it out) are
/// a unit of their own per definition, not judged.
fn in_compiled_file(
    tree: &Path,
    path: &str,
    (lines, inert, out): (&[usize], &[usize], &BTreeMap<usize, String>),
    runs: &Runs,
    s: &mut Scope,
) {
    let units = units(tree, path, lines);
    if path.ends_with(".h") {
        let kept = not_compiled(path, short(path), lines, out, s);
        if lines.is_empty() || !kept.is_empty() {
            s.functions.judged.push(short(path).to_owned());
        }
        if let Runs::Header(names) = runs {
            for (name, _, ls) in units.into_iter().filter_map(|(_, d)| d) {
                if names.contains(&name) {
                    let ls = ls.into_iter().filter(|l| kept.contains(l));
                    s.lines.extend(ls.map(|l| (path.to_owned(), l)));
                }
            }
        }
        return;
    }
    let mut outside = vec![];
    for (unit, def) in units {
        let Some((name, first, ls)) = def else {
            // Outside any definition, or a file that could not be read.
            let code_outside = outside_lines(tree, path, lines)
                .iter()
                .any(|l| !inert.contains(l));
            if matches!(runs, Runs::Every) || lines.is_empty() || !code_outside {
                s.functions.judged.push(unit);
            } else {
                outside.push(unit);
            }
            continue;
        };
        let ls = if runs.judges(&name) {
            not_compiled(path, &unit, &ls, out, s)
        } else {
            ls
        };
        if ls.is_empty() {
            continue;
        }
        match runs {
            Runs::Every => s.lines.extend(ls.into_iter().map(|l| (path.to_owned(), l))),
            Runs::InScope(names) if names.contains(&name) => {
                s.lines.extend(ls.into_iter().map(|l| (path.to_owned(), l)))
            }
            r if r.judges(&name) => {}
            _ => {
                let why = Unjudged::load()
                    .ok()
                    .and_then(|u| u.reason(path, &name).map(Reason::headline))
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default();
                s.not_judged.push(format!(
                    "{path}: {name} (line {first}): no world runs it (not judged{why})"
                ));
                s.functions.not_judged.push(unit);
                continue;
            }
        }
        s.functions.judged.push(unit);
    }
    if !outside.is_empty() {
        let off: Vec<usize> = outside_lines(tree, path, lines)
            .into_iter()
            .filter(|l| !inert.contains(l))
            .collect();
        let what = which_lines(&off);
        s.not_judged.push(format!(
            "{path}: {what}, outside any function: no world runs it (not judged)"
        ));
        s.functions.not_judged.extend(outside);
    }
}

/// `line 3`, `lines 3, 5`.
fn which_lines(ls: &[usize]) -> String {
    match ls {
        [l] => format!("line {l}"),
        ls => format!(
            "lines {}",
            ls.iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The lines `added` (as [`added_lines`] gives them) of `path`.
fn added_in<'a>(added: &'a [(String, Vec<usize>)], path: &str) -> &'a [usize] {
    added
        .iter()
        .find(|(p, _)| *p == path)
        .map_or(&[][..], |(_, a)| a.as_slice())
}

/// The touched `lines` of `path` whose edits no world compiles, each
/// with the directive that leaves it out (see [`Site`]): an added line
/// where it is, a removal in the gap it left in the patched file (`text`
/// the patch). A patch that adds or removes a conditional directive in
/// the file changes its groups themselves: the build alone judges it.
/// Empty then, and when `compiled` is not known or the file has no
/// conditional.
fn compiled_out(
    tree: &Path,
    (path, text): (&str, &str),
    compiled: Option<&CompiledLines>,
    added: &[(String, Vec<usize>)],
    lines: &[usize],
) -> BTreeMap<usize, String> {
    let Some(compiled) = compiled.filter(|_| !changes_conditionals(text, path)) else {
        return BTreeMap::new();
    };
    let src = crate::kernel::read_tree_text(tree, &tree.join(path)).unwrap_or_default();
    let Some(file) = compiled.file(path, &src) else {
        return BTreeMap::new();
    };
    let added = added_in(added, path);
    lines
        .iter()
        .filter_map(|&l| {
            let site = if added.contains(&l) {
                Site::Line(l)
            } else {
                Site::Gap(l)
            };
            Some((l, file.compiled_out(site)?.to_owned()))
        })
        .collect()
}

/// Lists the lines of `unit` (`ls`, of `path`) that `out` says are
/// compiled out as not judged, a unit per directive (`sdma.c:
/// sdma_desc_avail (under #ifdef CONFIG_X)`); returns the others.
fn not_compiled(
    path: &str,
    unit: &str,
    ls: &[usize],
    out: &BTreeMap<usize, String>,
    s: &mut Scope,
) -> Vec<usize> {
    let mut by_head: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for l in ls {
        if let Some(h) = out.get(l) {
            by_head.entry(h).or_default().push(*l);
        }
    }
    for (head, lines) in &by_head {
        let which = which_lines(lines);
        // A definition is named; a header is its path.
        let at = match unit.split_once(": ") {
            Some((_, name)) => format!("{name} ({which})"),
            None => which,
        };
        s.not_judged.push(format!(
            "{path}: {at}: compiled out under `{head}` in every world (not judged)"
        ));
        s.functions
            .not_judged
            .push(format!("{unit} (under {head})"));
    }
    ls.iter()
        .copied()
        .filter(|l| !out.contains_key(l))
        .collect()
}

/// A changed unit of `path` and, for a definition, its name, the first
/// changed line in it and every changed line in it.
type Unit = (String, Option<(String, usize, Vec<usize>)>);

/// The changed units of `path` in the patched `tree`: each definition of
/// a C file its `lines` fall in (`sdma.c: sdma_flush`), in order, and the
/// file itself once (`sdma.c`) for lines outside any definition, for a
/// file with no changed lines (a rename, a mode change, a deletion), and
/// for a file that is not C or cannot be read.
fn units(tree: &Path, path: &str, lines: &[usize]) -> Vec<Unit> {
    let file = short(path);
    let defs = definitions(tree, path);
    let mut out: Vec<Unit> = vec![];
    let mut file_unit = lines.is_empty() || defs.is_none();
    for &l in lines {
        match defs.as_ref().and_then(|d| containing(d, l)) {
            Some(d) => match out
                .iter_mut()
                .find(|(_, x)| x.as_ref().is_some_and(|(n, _, _)| *n == d.name))
            {
                Some((_, Some((_, _, ls)))) => ls.push(l),
                _ => out.push((
                    format!("{file}: {}", d.name),
                    Some((d.name.clone(), l, vec![l])),
                )),
            },
            None => file_unit = true,
        }
    }
    if file_unit {
        out.push((file.to_owned(), None));
    }
    out
}

/// The changed `lines` of `path` outside any definition.
fn outside_lines(tree: &Path, path: &str, lines: &[usize]) -> Vec<usize> {
    let defs = definitions(tree, path).unwrap_or_default();
    lines
        .iter()
        .copied()
        .filter(|l| containing(&defs, *l).is_none())
        .collect()
}

/// The top-level definitions of a C file of the tree, its macros with
/// them (a world extracts a macro by name as it does a function); `None`
/// for another kind of file, or one that cannot be read or scanned (a
/// deleted file).
fn definitions(tree: &Path, path: &str) -> Option<Vec<Definition>> {
    if !(path.ends_with(".c") || path.ends_with(".h")) {
        return None;
    }
    let src = crate::kernel::read_tree_text(tree, &tree.join(path)).ok()?;
    let mut defs = cscan::definitions(&src).ok()?;
    defs.extend(cscan::macros(&src));
    Some(defs)
}

/// The definition line `l` falls in.
fn containing(defs: &[Definition], l: usize) -> Option<&Definition> {
    defs.iter()
        .find(|d| l >= d.line && l < d.line + d.text.lines().count().max(1))
}

/// A path as the changed functions name it: relative to the hfi1 driver
/// (`sdma.c`), else the path in the tree.
fn short(path: &str) -> &str {
    path.strip_prefix("drivers/infiniband/hw/hfi1/")
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HFI1: &str = "drivers/infiniband/hw/hfi1";

    /// A tree of a few hfi1 files: sdma.c with a function no world runs
    /// (lines 3-6), one in scope (8-11) and a macro outside both (13);
    /// qp.c; iowait.c; rc.c, which no world compiles.
    fn tree() -> (std::path::PathBuf, Vec<String>) {
        let dir = std::env::temp_dir().join(format!(
            "hfi1-scope-test-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let files = [
            (
                "sdma.c",
                "#include \"sdma.h\"\n\nstatic int sdma_event_names(int x)\n{\n\treturn x;\n}\n\n\
int sdma_select_engine_vl(int vl)\n{\n\treturn vl;\n}\n\n#define SDMA_X 1\n",
            ),
            (
                "qp.c",
                "int mtu_to_path_mtu(int mtu)\n{\n\treturn mtu;\n}\n",
            ),
            (
                "iowait.c",
                "unsigned iowait_priority_update_top(int w)\n{\n\treturn w;\n}\n",
            ),
            ("rc.c", "void hfi1_rc_rcv(int p)\n{\n\tp++;\n}\n"),
            ("verbs.h", "struct x {\n\tint a;\n};\n"),
        ];
        let _ = std::fs::create_dir_all(dir.join(HFI1));
        for (f, text) in files {
            std::fs::write(dir.join(HFI1).join(f), text).expect("writing the tree");
        }
        let inputs = ["sdma.c", "qp.c", "iowait.c", "verbs.h"]
            .iter()
            .map(|f| format!("{HFI1}/{f}"))
            .collect();
        (dir, inputs)
    }

    /// A patch changing line `line` of each `(file, line)`.
    fn patch(edits: &[(&str, usize)]) -> Patch {
        let mut text = String::from("Subject: [PATCH] x\n\n---\n");
        for (f, l) in edits {
            let p = if f.contains('/') {
                f.to_string()
            } else {
                format!("{HFI1}/{f}")
            };
            text.push_str(&format!(
                "diff --git a/{p} b/{p}\nindex 1..2 100644\n--- a/{p}\n+++ b/{p}\n@@ -{l} +{l} @@\n-a\n+b\n"
            ));
        }
        super::super::parse(&text, "p").remove(0)
    }

    /// The patch's changed functions, judged and not.
    fn classified(edits: &[(&str, usize)]) -> Scope {
        let (dir, inputs) = tree();
        let s = classify(&dir, &patch(edits), &inputs, None);
        let _ = std::fs::remove_dir_all(&dir);
        s
    }

    #[test]
    fn a_function_no_world_runs_is_all_there_is_to_judge() {
        let s = classified(&[("sdma.c", 5)]);
        assert!(s.functions.none_judged(), "{s:?}");
        assert_eq!(s.functions.not_judged, ["sdma.c: sdma_event_names"]);
        assert_eq!(
            s.not_judged,
            [format!(
                "{HFI1}/sdma.c: sdma_event_names (line 5): no world runs it \
                 (not judged; not yet: compiled only with CONFIG_SDMA_VERBOSITY)"
            )]
        );
        assert!(s.lines.is_empty() && !s.compiled_whole);
    }

    #[test]
    fn a_two_file_patch_is_judged_in_part() {
        let s = classified(&[("qp.c", 3), ("sdma.c", 5), ("sdma.c", 10)]);
        assert_eq!(
            s.functions.judged,
            ["qp.c: mtu_to_path_mtu", "sdma.c: sdma_select_engine_vl"]
        );
        assert_eq!(s.functions.not_judged, ["sdma.c: sdma_event_names"]);
        assert_eq!(
            s.functions.summary(),
            "2 of 3 changed functions judged; not judged: sdma.c: sdma_event_names"
        );
        assert_eq!(
            s.lines,
            [(format!("{HFI1}/qp.c"), 3), (format!("{HFI1}/sdma.c"), 10)]
        );
        assert!(s.compiled_whole, "qp.c is compiled whole");
    }

    #[test]
    fn files_and_lines_outside_functions_are_units_of_their_own() {
        let s = classified(&[
            ("sdma.c", 1),
            ("rc.c", 3),
            ("include/linux/list.h", 1),
            ("verbs.h", 2),
        ]);
        assert_eq!(s.functions.judged, ["verbs.h"]);
        assert_eq!(
            s.functions.not_judged,
            ["sdma.c", "rc.c: hfi1_rc_rcv", "include/linux/list.h"]
        );
        assert_eq!(
            s.not_judged,
            [
                format!(
                    "{HFI1}/sdma.c: line 1, outside any function: no world runs it (not judged)"
                ),
                format!("{HFI1}/rc.c: no world compiles it (not judged)"),
                "include/linux/list.h: outside the tree the harness extracts (not judged)".into(),
            ]
        );
    }

    /// A macro is a definition of its own (worlds extract macros by
    /// name): one no world extracts is named and not judged.
    #[test]
    fn a_macro_is_a_unit_of_its_own() {
        let s = classified(&[("sdma.c", 13)]);
        assert_eq!(s.functions.not_judged, ["sdma.c: SDMA_X"]);
        assert_eq!(
            s.not_judged,
            [format!(
                "{HFI1}/sdma.c: SDMA_X (line 13): no world runs it (not judged)"
            )]
        );
    }

    /// An edit outside any function that changes only comments is
    /// judged: no compiler sees it. One that changes code is not.
    #[test]
    fn comments_outside_functions_are_judged() {
        let (dir, inputs) = tree();
        let p = format!("{HFI1}/sdma.c");
        let text = |old: &str, new: &str| {
            format!(
                "Subject: [PATCH] x\n\n---\ndiff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -12 +12 @@\n-{old}\n+{new}\n"
            )
        };
        let comment = super::super::parse(&text("/* a */", "/* b */"), "p").remove(0);
        let s = classify(&dir, &comment, &inputs, None);
        assert_eq!(s.functions.judged, ["sdma.c"], "{s:?}");
        assert!(s.not_judged.is_empty(), "{s:?}");
        let code = super::super::parse(&text("int a;", "int b;"), "p").remove(0);
        let s = classify(&dir, &code, &inputs, None);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(s.functions.not_judged, ["sdma.c"], "{s:?}");
    }

    /// A function removed whole is a changed function: judged when a world
    /// runs it (in the tree before), named and not judged otherwise; where
    /// it was is not an edit of what follows (here the macro SDMA_X).
    #[test]
    fn a_removed_function_is_a_changed_function() {
        let (dir, inputs) = tree();
        let p = format!("{HFI1}/sdma.c");
        let text = |removed: &str| {
            let n = removed.lines().count();
            let body: String = removed.lines().map(|l| format!("-{l}\n")).collect();
            format!(
                "Subject: [PATCH] x\n\n---\ndiff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n\
                 @@ -11,{} +11,3 @@\n }}\n \n{body} #define SDMA_X 1\n",
                n + 3
            )
        };
        let whole = "/* doc */\nvoid sdma_all_idle(int d)\n{\n\td++;\n}\n\n\
                     static void sdma_gone(void)\n{\n}\n\n";
        let s = classify(
            &dir,
            &super::super::parse(&text(whole), "p").remove(0),
            &inputs,
            None,
        );
        assert_eq!(s.functions.judged, ["sdma.c: sdma_all_idle"], "{s:?}");
        assert_eq!(s.functions.not_judged, ["sdma.c: sdma_gone"], "{s:?}");
        assert_eq!(
            s.not_judged,
            [format!(
                "{HFI1}/sdma.c: sdma_gone (removed): no world runs it (not judged)"
            )]
        );
        let parse = |t: &str| super::super::parse(t, "p").remove(0);
        let idle_judged = |s: &Scope| {
            s.functions
                .judged
                .iter()
                .any(|f| f.contains("sdma_all_idle"))
        };
        // Code removed beside a function is an edit outside any function.
        let more = "int sdma_x;\nvoid sdma_all_idle(int d)\n{\n}\n";
        let s = classify(&dir, &parse(&text(more)), &inputs, None);
        assert!(!idle_judged(&s), "{s:?}");
        assert_eq!(s.functions.not_judged, ["sdma.c: SDMA_X"], "{s:?}");
        // A function that moves (its name on a line the patch adds) is not
        // removed; nor is a block inside a function.
        let moved = format!(
            "{}diff --git a/{HFI1}/qp.c b/{HFI1}/qp.c\n--- a/{HFI1}/qp.c\n+++ b/{HFI1}/qp.c\n\
             @@ -4 +4,2 @@\n }}\n+void sdma_all_idle(int d) {{ }}\n",
            text("void sdma_all_idle(int d)\n{\n}\n")
        );
        let s = classify(&dir, &parse(&moved), &inputs, None);
        assert!(!idle_judged(&s), "{s:?}");
        let block = "\tif (d) {\n\t\td++;\n\t}\n";
        let s = classify(&dir, &parse(&text(block)), &inputs, None);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            !s.functions.judged.iter().any(|f| f.contains("if")),
            "{s:?}"
        );
        assert_eq!(s.functions.not_judged, ["sdma.c: SDMA_X"], "{s:?}");
    }

    /// iowait.c is compiled whole and every function of it runs (from
    /// qp.c, and from the wakeups of sdma.c and pio.c): all judged.
    #[test]
    fn every_function_of_iowait_c_is_judged() {
        let s = classified(&[("iowait.c", 3)]);
        assert!(s.compiled_whole, "{s:?}");
        assert_eq!(s.functions.judged, ["iowait.c: iowait_priority_update_top"]);
        assert!(s.functions.not_judged.is_empty(), "{s:?}");
    }

    /// The test tree with a group in sdma_select_engine_vl (lines 5-8 of
    /// sdma.c, in scope) and one in verbs.h (lines 2-4), neither of
    /// which the preprocessor emits: the tree, its inputs, its compiled
    /// lines, sdma.c's and verbs.h's paths.
    fn with_groups() -> (
        std::path::PathBuf,
        Vec<String>,
        CompiledLines,
        String,
        String,
    ) {
        let (dir, inputs) = tree();
        let p = format!("{HFI1}/sdma.c");
        let src = "#include \"sdma.h\"\n\nint sdma_select_engine_vl(int vl)\n{\n\
                   #ifdef CONFIG_X\n\tvl++;\n\tvl--;\n#endif\n\treturn vl;\n}\n";
        std::fs::write(dir.join(&p), src).expect("sdma.c");
        let h = format!("{HFI1}/verbs.h");
        let header = "struct x {\n#ifdef CONFIG_X\n\tint a;\n#endif\n\tint b;\n};\n";
        std::fs::write(dir.join(&h), header).expect("verbs.h");
        let root = std::fs::canonicalize(&dir).expect("the tree");
        let emitted = format!(
            "# 1 \"{}\"\n#include \"sdma.h\"\n\nint sdma_select_engine_vl(int vl)\n{{\n\n\n\n\n\treturn vl;\n}}\n\
             # 1 \"{}\"\nstruct x {{\n\n\n\n\tint b;\n}};\n",
            root.join(&p).display(),
            root.join(&h).display()
        );
        let mut compiled = CompiledLines::default();
        compiled.read_preprocessed(&emitted, &root);
        (dir, inputs, compiled, p, h)
    }

    /// The scope of a patch whose diff is `diff` in the tree of
    /// [`with_groups`].
    fn with_compiled(
        (dir, inputs, compiled): (&Path, &[String], &CompiledLines),
        diff: &str,
    ) -> Scope {
        let text = format!("Subject: [PATCH] x\n\n---\n{diff}");
        let patch = super::super::parse(&text, "p").remove(0);
        classify(dir, &patch, inputs, Some(compiled))
    }

    /// An edit the worlds' preprocessor leaves out (under `#ifdef
    /// CONFIG_X`, no line of which any unit emits) is not judged, named
    /// with its directive; one beside it that is compiled is judged, and
    /// only it is a line to measure. Removals count at their gap, but
    /// for a hunk that removes a directive.
    #[test]
    fn compiled_out_lines_are_not_judged() {
        let (dir, inputs, compiled, p, _) = with_groups();
        let edit = |hunk: &str| {
            let diff = format!("diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n{hunk}");
            with_compiled((&dir, &inputs, &compiled), &diff)
        };
        let s = edit("@@ -6 +6 @@\n-\tvl += 2;\n+\tvl++;\n");
        assert!(s.functions.none_judged(), "{s:?}");
        assert_eq!(
            s.functions.not_judged,
            ["sdma.c: sdma_select_engine_vl (under #ifdef CONFIG_X)"]
        );
        assert_eq!(
            s.not_judged,
            [format!(
                "{p}: sdma_select_engine_vl (line 6): compiled out under `#ifdef CONFIG_X` \
                 in every world (not judged)"
            )]
        );
        assert!(s.lines.is_empty(), "{s:?}");
        // A line removed from the group, and one changed after it.
        let s = edit("@@ -6,5 +6,4 @@\n \tvl++;\n-\tvl -= 2;\n \tvl--;\n #endif\n-\treturn 0;\n+\treturn vl;\n");
        let judged = ["sdma.c: sdma_select_engine_vl"];
        assert_eq!(s.functions.judged, judged, "{s:?}");
        assert_eq!(s.lines, [(p.clone(), 9)]);
        assert_eq!(s.not_judged.len(), 1, "{s:?}");
        // Removing an #else branch (code the worlds compiled) leaves its
        // gap in the #ifdef group: the groups changed, the build judges.
        let s = edit(
            "@@ -5,6 +5,4 @@\n #ifdef CONFIG_X\n \tvl++;\n \tvl--;\n-#else\n-\tvl = 0;\n #endif\n",
        );
        assert_eq!(s.functions.judged, judged, "{s:?}");
        assert!(s.not_judged.is_empty(), "{s:?}");
        // So is an edit in the group when another hunk of the file adds a
        // directive: the groups are not the ones the lines were in.
        let s = edit("@@ -6 +6 @@\n-\tvl += 2;\n+\tvl++;\n@@ -10 +10,3 @@\n }\n+#if 1\n+#endif\n");
        assert_eq!(s.functions.judged, judged, "{s:?}");
        assert_eq!(s.lines, [(p.clone(), 6)]);
        assert!(
            !s.not_judged.iter().any(|n| n.contains("compiled out")),
            "{s:?}"
        );
        // Without the compiled lines, the build alone judges.
        let text = format!(
            "Subject: [PATCH] x\n\n---\ndiff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -6 +6 @@\n-\tvl += 2;\n+\tvl++;\n"
        );
        let patch = super::super::parse(&text, "p").remove(0);
        assert!(inside_conditionals(&dir, &patch, &inputs));
        let s = classify(&dir, &patch, &inputs, None);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(s.functions.judged, judged);
    }

    /// A compiled header's lines the preprocessor leaves out are not
    /// judged; its other lines are, and so is a header deleted whole (no
    /// line of it left to touch), through the build.
    #[test]
    fn compiled_out_header_lines_are_not_judged() {
        let (dir, inputs, compiled, _, h) = with_groups();
        let line = |n: usize| {
            let diff = format!(
                "diff --git a/{h} b/{h}\n--- a/{h}\n+++ b/{h}\n@@ -{n} +{n} @@\n-\tint c;\n+\tint d;\n"
            );
            with_compiled((&dir, &inputs, &compiled), &diff)
        };
        let s = line(3);
        assert_eq!(
            s.functions.not_judged,
            ["verbs.h (under #ifdef CONFIG_X)"],
            "{s:?}"
        );
        assert_eq!(
            s.not_judged,
            [format!(
                "{h}: line 3: compiled out under `#ifdef CONFIG_X` in every world (not judged)"
            )]
        );
        let s = line(5);
        assert_eq!(s.functions.judged, ["verbs.h"], "{s:?}");
        assert!(s.not_judged.is_empty(), "{s:?}");
        let deleted = format!(
            "diff --git a/{h} b/{h}\ndeleted file mode 100644\n--- a/{h}\n+++ /dev/null\n\
             @@ -1,2 +0,0 @@\n-struct x {{\n-}};\n"
        );
        let s = with_compiled((&dir, &inputs, &compiled), &deleted);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(s.functions.judged, ["verbs.h"], "{s:?}");
    }
}
