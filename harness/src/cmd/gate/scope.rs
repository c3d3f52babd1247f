//! Where a patch's edits fall: which the gate judges, and which it lists
//! as not judged (outside the extracted tree, in a file no world
//! compiles, or in a function no world runs).

use std::path::Path;

use super::patch::{extracted, touched_lines, Patch};

/// Where each edit of a patch falls, for the files it does not judge:
/// outside the extracted tree, in a file no world compiles, or in a
/// function of a compiled file that no world runs. An edit inside a
/// function in scope, or in a header the world compiles, is judged.
pub(super) fn scope(tree: &Path, patch: &Patch, inputs: &[String]) -> Vec<String> {
    classify(tree, patch, inputs).0
}

/// [`scope`]'s list, and the changed lines inside functions in scope
/// (`(path, line)`), whose coverage the gate measures.
pub(super) fn classify(
    tree: &Path,
    patch: &Patch,
    inputs: &[String],
) -> (Vec<String>, Vec<(String, usize)>) {
    let in_scope = crate::judge::coverage::in_scope();
    let mut out = vec![];
    let mut judged_lines = vec![];
    for (path, lines) in touched_lines(&patch.text) {
        if !extracted(&path) {
            out.push(format!(
                "{path}: outside the tree the harness extracts (not judged)"
            ));
            continue;
        }
        if !inputs.contains(&path) {
            out.push(format!("{path}: no world compiles it (not judged)"));
            continue;
        }
        let Some((_, names)) = in_scope.iter().find(|(f, _)| *f == path) else {
            continue; // a header the world compiles: judged through the build
        };
        let Ok(src) = crate::kernel::read_tree_text(tree, &tree.join(&path)) else {
            continue;
        };
        let defs = crate::kernel::cscan::definitions(&src).unwrap_or_default();
        let mut outside = vec![];
        for l in lines {
            let def = defs
                .iter()
                .find(|d| l >= d.line && l < d.line + d.text.lines().count().max(1));
            match def {
                Some(d) if names.is_empty() || names.contains(&d.name.as_str()) => {
                    judged_lines.push((path.clone(), l));
                }
                // Another inline of a compiled header: through the build.
                Some(_) if path.ends_with(".h") => {}
                Some(d) => outside.push(format!("{} (line {l})", d.name)),
                None if path.ends_with(".c") && !names.is_empty() => {
                    outside.push(format!("line {l}, outside any function"))
                }
                None => {}
            }
        }
        outside.dedup();
        for o in outside {
            out.push(format!("{path}: {o}: no world runs it (not judged)"));
        }
    }
    (out, judged_lines)
}
