//! The library's layers, read from its source: each module uses only the
//! layers below its own, a command never uses another command, and no two
//! modules use each other, directly or round a longer circle (a module and
//! its own submodules are one unit: those edges are not counted).
//!
//! Unit tests (`#[cfg(test)] mod tests` at the end of a file) may reach
//! anywhere and are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top to bottom; a layer may use the ones after it.
const LAYERS: &[&str] = &[
    "cmd",
    "judge",
    "report",
    "cworld",
    "generate",
    "corpus",
    "kernel",
    "sandbox",
    // The model and what the crate root holds.
    "implementation",
];

/// What the crate root holds: the model re-exports and `project_path`.
const ROOT_ITEMS: &[&str] = &["model", "outcome", "project_path"];

fn rank(layer: &str) -> Option<usize> {
    if ROOT_ITEMS.contains(&layer) {
        return Some(LAYERS.len());
    }
    LAYERS.iter().position(|l| *l == layer)
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a source file (`cworld/ffi/mod.rs` -> `cworld::ffi`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The file's text without its unit tests.
fn code(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    }
}

/// Every module path a file names (`crate::a::b`, `super::c`, including
/// each path of a `use crate::{a, b::c}` group), resolved to absolute
/// paths. Paths are cut to the modules that exist.
fn uses(module: &[String], text: &str, modules: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    for (start, anchor) in ["crate::", "super::"]
        .iter()
        .flat_map(|a| text.match_indices(a).map(|(i, _)| (i, *a)))
    {
        // A word boundary before the anchor.
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            continue;
        }
        let mut base: Vec<String> = if anchor == "crate::" {
            vec![]
        } else {
            module[..module.len().saturating_sub(1)].to_vec()
        };
        let mut rest = &text[start + anchor.len()..];
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        for path in paths(rest) {
            let mut full = base.clone();
            full.extend(path.iter().cloned());
            while !full.is_empty() && !modules.contains(&full) {
                full.pop();
            }
            if full.is_empty() {
                // An item of the crate root (`crate::project_path`).
                if let Some(first) = path.first() {
                    out.insert(vec![first.clone()]);
                }
            } else {
                out.insert(full);
            }
        }
    }
    out
}

/// The paths at the start of `rest`: `a::b::c`, or each of `{a, b::c}`.
fn paths(rest: &str) -> Vec<Vec<String>> {
    if let Some(group) = rest.strip_prefix('{') {
        let end = group.find('}').unwrap_or(group.len());
        return group[..end]
            .split(',')
            .map(|p| segments(p.trim()))
            .filter(|p| !p.is_empty())
            .collect();
    }
    vec![segments(rest)]
}

fn segments(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut rest = s;
    loop {
        let id: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if id.is_empty() || id == "self" {
            break;
        }
        rest = &rest[id.len()..];
        out.push(id);
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    out
}

/// The edge `from -> to` between the two sibling units holding them (the
/// children of their deepest common ancestor), or none when one holds the
/// other.
fn sibling_edge(from: &[String], to: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == from.len() || common == to.len() {
        return None;
    }
    Some((from[..=common].to_vec(), to[..=common].to_vec()))
}

/// What breaks the layers among `files` (module path, source text).
fn broken(files: &[(Vec<String>, String)]) -> Vec<String> {
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    let mut wrong = vec![];
    for (module, text) in files {
        let Some(layer) = module.first() else {
            continue; // lib.rs declares the layers
        };
        let Some(own) = rank(layer) else {
            wrong.push(format!("module `{layer}` is in no layer: add it to LAYERS"));
            continue;
        };
        for used in uses(module, code(text), &modules) {
            let Some(other) = rank(&used[0]) else {
                wrong.push(format!("`{}` is in no layer: add it to LAYERS", used[0]));
                continue;
            };
            if other < own {
                wrong.push(format!(
                    "`{}` uses `{}`, a layer above it",
                    module.join("::"),
                    used.join("::")
                ));
            }
            if layer == "cmd" && used[0] == "cmd" && used.len() > 1 && used.get(1) != module.get(1)
            {
                wrong.push(format!(
                    "command `{}` uses command `{}`: move what they share down a layer",
                    module.join("::"),
                    used.join("::")
                ));
            }
            if let Some((a, b)) = sibling_edge(module, &used) {
                edges.entry(a).or_default().insert(b);
            }
        }
    }
    // A circle: a path from a unit back to itself, shown from its least
    // member so that each circle is told once.
    for start in edges.keys() {
        let mut stack = vec![(start.clone(), vec![start.join("::")])];
        let mut seen = BTreeSet::new();
        while let Some((m, trail)) = stack.pop() {
            for next in edges.get(&m).into_iter().flatten() {
                if next == start {
                    wrong.push(format!("a circle: {} -> {}", trail.join(" -> "), trail[0]));
                } else if next > start && seen.insert(next.clone()) {
                    let mut t = trail.clone();
                    t.push(next.join("::"));
                    stack.push((next.clone(), t));
                }
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    wrong
}

#[test]
fn layers_use_only_what_is_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = vec![];
    sources(&src, &mut paths);
    let files: Vec<(Vec<String>, String)> = paths
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f)
                .unwrap_or_else(|e| panic!("reading {}: {e}", f.display()));
            (module_of(&src, f), text)
        })
        .collect();
    let wrong = broken(&files);
    assert!(
        wrong.is_empty(),
        "the layers are broken:\n{}",
        wrong.join("\n")
    );
}

fn m(path: &str) -> Vec<String> {
    path.split("::").map(String::from).collect()
}

#[test]
fn an_upward_use_a_command_using_another_and_a_circle_are_seen() {
    let files = vec![
        (
            m("kernel"),
            "use crate::{cmd::gate::run, model::types::Func};".to_owned(),
        ),
        (
            m("cmd::gate"),
            "fn f() { crate::cmd::random::run(); }".to_owned(),
        ),
        (m("cmd::random"), String::new()),
        (m("cworld::a"), "use super::b::X;".to_owned()),
        (
            m("cworld::b::c"),
            "fn f() { crate::cworld::a::y() }".to_owned(),
        ),
        (m("cworld::b"), "use crate::cworld::b::c;".to_owned()),
        (
            m("judge"),
            "use crate::kernel;\n#[cfg(test)]\nmod tests { crate::cmd::gate }".to_owned(),
        ),
    ];
    assert_eq!(
        broken(&files),
        [
            "`kernel` uses `cmd::gate`, a layer above it",
            "a circle: cworld::a -> cworld::b -> cworld::a",
            "command `cmd::gate` uses command `cmd::random`: move what they share down a layer",
        ]
    );
}
