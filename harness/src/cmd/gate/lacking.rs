//! Interfaces a patch uses that its tree lacks, though the harness's
//! stand-ins offer them.
//!
//! kcompat stands in for the generic headers of every pinned series at
//! once: most of what it offers is gated by `LINUX_VERSION_CODE` as the
//! trees have it, but not all (attribute macros such as `__counted_by`,
//! helpers such as `upper_16_bits`). A patch that uses one on a tree that
//! does not have it builds in the harness and fails in a real build. So
//! the lines a patch adds (those the worlds compile, directives left out)
//! are read for names kcompat declares that the tree's own generic
//! headers ([`TreeNames`]) and its own code do not: each is the patch's
//! build error, `breaks-build`, with its place.

use std::collections::HashSet;
use std::path::Path;

use crate::cworld::build::{CompiledLines, Site};
use crate::kernel::names::{declarations, directive_lines, identifiers, is_keyword};
use crate::kernel::names::{Declared, TreeNames};
use crate::kernel::patch::{added_lines, Patch};

/// Names a real build defines outside the headers (the command line, the
/// generated `version.h`): never a lack.
const BUILD_DEFINED: &[&str] = &[
    "LINUX_VERSION_CODE",
    "KERNEL_VERSION",
    "LINUX_VERSION_MAJOR",
    "LINUX_VERSION_PATCHLEVEL",
    "LINUX_VERSION_SUBLEVEL",
    "KBUILD_MODNAME",
    "KBUILD_BASENAME",
];

/// The parts of a tree the harness compiles as is.
const OWN_DIRS: &[&str] = &[
    "drivers/infiniband/hw/hfi1",
    "drivers/infiniband/sw/rdmavt",
    "include/rdma",
    "include/uapi/rdma",
];

/// What kcompat's headers declare (not their members), from the headers
/// under `dir`.
pub(super) fn offered(dir: &Path) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "h") {
                let Ok(text) = std::fs::read_to_string(&p) else {
                    continue;
                };
                out.extend(
                    declarations(&text)
                        .into_iter()
                        .filter(|(_, k)| *k != Declared::Member)
                        .map(|(n, _)| n.to_string()),
                );
            }
        }
    }
    out
}

/// What the tree at `root`'s own code declares at file scope.
fn own(root: &Path) -> HashSet<String> {
    let mut out = HashSet::new();
    for d in OWN_DIRS {
        let Ok(rd) = std::fs::read_dir(root.join(d)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if !p.extension().is_some_and(|x| x == "h" || x == "c") {
                continue;
            }
            if let Ok(text) = crate::kernel::read_tree_text(root, &p) {
                out.extend(
                    declarations(&text)
                        .into_iter()
                        .filter(|(_, k)| *k != Declared::Member)
                        .map(|(n, _)| n.to_string()),
                );
            }
        }
    }
    out
}

/// The names `applied` (a patch as applied to the tree at `root`) adds on
/// compiled lines that `offered` has and neither `names` nor the tree's
/// own code declares, each as "`NAME` (FILE:LINE)", in order, once.
pub(super) fn lacking(
    root: &Path,
    applied: &Patch,
    names: &TreeNames,
    offered: &HashSet<String>,
    compiled: Option<&CompiledLines>,
) -> Vec<String> {
    let mut own_names: Option<HashSet<String>> = None;
    let mut out: Vec<String> = vec![];
    let mut seen = HashSet::new();
    for (path, lines) in added_lines(&applied.text) {
        if !crate::kernel::extracted(&path) || !(path.ends_with(".c") || path.ends_with(".h")) {
            continue;
        }
        let Ok(src) = crate::kernel::read_tree_text(root, &root.join(&path)) else {
            continue;
        };
        let directives = directive_lines(&src);
        let file = compiled.and_then(|c| c.file(&path, &src));
        let added: HashSet<usize> = lines.into_iter().collect();
        for t in identifiers(&src) {
            if !added.contains(&t.line)
                || directives.get(t.line).copied().unwrap_or(false)
                || !offered.contains(t.text)
                || names.declares(t.text)
                || is_keyword(t.text)
                || t.text.starts_with("CONFIG_")
                || BUILD_DEFINED.contains(&t.text)
                || file
                    .as_ref()
                    .is_some_and(|f| f.compiled_out(Site::Line(t.line)).is_some())
                || !seen.insert(t.text.to_string())
            {
                continue;
            }
            if own_names.get_or_insert_with(|| own(root)).contains(t.text) {
                continue;
            }
            out.push(format!("`{}` ({path}:{})", t.text, t.line));
        }
    }
    out
}

/// What the tree at `root`'s own hfi1 and rdmavt files use that the tree
/// lacks and kcompat offers, read as if a patch added every line (none
/// compiled out): empty for any tree a real build builds, which is what
/// lets [`lacking`] blame a patch for the names it finds.
pub fn lacking_in_tree(root: &Path) -> anyhow::Result<Vec<String>> {
    let names = TreeNames::of(root, &crate::kernel::extracted)?
        .ok_or_else(|| anyhow::anyhow!("{}: no index of names", root.display()))?;
    let offered = offered(&crate::cworld::build::cshim_dir().join("kcompat/include"));
    let mut out = vec![];
    for d in ["drivers/infiniband/hw/hfi1", "drivers/infiniband/sw/rdmavt"] {
        for e in std::fs::read_dir(root.join(d))?.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root)?.display().to_string();
            if !(rel.ends_with(".c") || rel.ends_with(".h")) {
                continue;
            }
            let src = crate::kernel::read_tree_text(root, &p)?;
            let body: String = src.lines().map(|l| format!("+{l}\n")).collect();
            let n = src.lines().count();
            let patch = Patch {
                text: format!("--- a/{rel}\n+++ b/{rel}\n@@ -0,0 +1,{n} @@\n{body}"),
                subject: rel.clone(),
                declared: vec![],
                files: vec![rel],
                source: String::new(),
            };
            out.extend(lacking(root, &patch, &names, &offered, None));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_kcompat_offers_and_the_tree_lacks_on_added_lines() {
        let dir = std::env::temp_dir().join(format!("lacking-{}", std::process::id()));
        let hfi1 = dir.join("drivers/infiniband/hw/hfi1");
        std::fs::create_dir_all(&hfi1).unwrap();
        std::fs::write(
            hfi1.join("sdma.c"),
            "static void own_helper(void) {}\n\
             void f(struct timer_list *t)\n{\n\
             \ttimer_delete_sync(t); /* del_timer_sync */\n\
             \town_helper(); kfree(t); upper_16_bits(1);\n\
             #if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)\n\
             \tdel_timer_sync(t);\n}\n",
        )
        .unwrap();
        let patch = Patch {
            text: "--- a/drivers/infiniband/hw/hfi1/sdma.c\n\
                   +++ b/drivers/infiniband/hw/hfi1/sdma.c\n\
                   @@ -1,3 +1,8 @@\n\
                   +static void own_helper(void) {}\n void f(struct timer_list *t)\n {\n\
                   +\ttimer_delete_sync(t); /* del_timer_sync */\n\
                   +\town_helper(); kfree(t); upper_16_bits(1);\n\
                   +#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)\n \tdel_timer_sync(t);\n }\n"
                .into(),
            subject: "t".into(),
            declared: vec![],
            files: vec![],
            source: String::new(),
        };
        let mut names = TreeNames::default();
        names.add("void kfree(const void *);\nint del_timer_sync(struct timer_list *);\n");
        let offered: HashSet<String> = [
            "timer_delete_sync",
            "del_timer_sync",
            "kfree",
            "upper_16_bits",
            "own_helper",
            "LINUX_VERSION_CODE",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let got = lacking(&dir, &patch, &names, &offered, None);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            got,
            vec![
                "`timer_delete_sync` (drivers/infiniband/hw/hfi1/sdma.c:4)",
                "`upper_16_bits` (drivers/infiniband/hw/hfi1/sdma.c:5)",
            ]
        );
    }

    #[test]
    fn kcompat_offers_what_its_headers_declare() {
        let o = offered(&crate::cworld::build::cshim_dir().join("kcompat/include"));
        for n in [
            "kfree",
            "spin_lock_irqsave",
            "list_add_tail",
            "timer_delete_sync",
        ] {
            assert!(o.contains(n), "{n}");
        }
    }
}
