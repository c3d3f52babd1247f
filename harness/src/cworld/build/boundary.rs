//! The boundary check before a world is linked: upstream objects import
//! nothing the boundary does not provide (`c-shim/boundary.toml`), and
//! a symbol that breaks it is named with the upstream lines that use it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use super::manifest::Manifest;
use super::tools::sandboxed;
use super::CannotJudge;
use crate::kernel::KernelTree;
use crate::sandbox::{Sandbox, Spec};

/// Whether an object is upstream code: upstream objects are named
/// `upstream-*.o`, the project's own `shim-*.o`.
pub(super) fn name_is_upstream(o: &Path) -> bool {
    o.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("upstream-"))
}

/// Global symbols of an object: the undefined ones with `-u`, the defined
/// ones with `--defined-only -g`. `nm` reads untrusted objects: it runs in
/// the sandbox too.
fn global_symbols(sb: &Sandbox, spec: &Spec, args: &[&str], obj: &Path) -> Result<Vec<String>> {
    let mut bare = Command::new("nm");
    bare.args(args).arg(obj);
    let out = sandboxed(sb, spec, &bare)?
        .output()
        .context("running nm (binutils)")?;
    if !out.status.success() {
        bail!(
            "nm {}: {}",
            obj.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last().map(str::to_owned))
        .collect())
}

/// Upstream links only to the boundary: every symbol an upstream object
/// imports is defined by upstream itself, or listed in `boundary.toml` as a
/// mock, a world variable or a compiler symbol. Anything else (the C
/// library's `open`, `system`, `fork`, `socket` ...) is [`CannotJudge`],
/// naming the symbol and the upstream lines that use it.
pub(super) fn check_boundary(
    sb: &Sandbox,
    spec: &Spec,
    manifest: &Manifest,
    objects: &[PathBuf],
    tree: &KernelTree,
) -> Result<()> {
    let upstream: Vec<&PathBuf> = objects.iter().filter(|o| name_is_upstream(o)).collect();
    let mut defined = std::collections::BTreeSet::new();
    let mut needed: BTreeMap<String, Vec<&PathBuf>> = BTreeMap::new();
    for o in &upstream {
        defined.extend(global_symbols(sb, spec, &["--defined-only", "-g"], o)?);
        for s in global_symbols(sb, spec, &["-u"], o)? {
            needed.entry(s).or_default().push(o);
        }
    }
    let allowed = |s: &str| {
        defined.contains(s)
            || manifest.mock.contains_key(s)
            || manifest.world.contains_key(s)
            || manifest.compiler.symbols.iter().any(|c| c == s)
            || manifest.compiler.prefixes.iter().any(|p| s.starts_with(p))
    };
    let outside: Vec<(&String, &Vec<&PathBuf>)> =
        needed.iter().filter(|(s, _)| !allowed(s)).collect();
    if outside.is_empty() {
        return Ok(());
    }
    let mut msg = format!(
        "upstream code of {} needs {} symbol(s) that neither kcompat nor c-shim/boundary.toml \
         provides (a C world links upstream only to the boundary):",
        tree.root.display(),
        outside.len()
    );
    for (sym, objs) in &outside {
        let mut places: Vec<String> = vec![];
        for o in objs.iter() {
            places.extend(symbol_uses(sb, spec, o, sym, &tree.root));
        }
        places.sort();
        places.dedup();
        if places.is_empty() {
            places = objs.iter().map(|o| o.display().to_string()).collect();
        }
        msg.push_str(&format!("\n  {sym}: used at {}", places.join(", ")));
    }
    msg.push_str(
        "\nIf upstream really calls it, it is a boundary the project lacks: add a mock to \
         c-shim/mocks and c-shim/boundary.toml with the reason (or a kcompat header).",
    );
    Err(CannotJudge(msg).into())
}

/// The source lines of `obj` that refer to `sym`, from `objdump -dr -l`
/// (the last `file:line` seen before each relocation naming it), with the
/// tree's root left out (its own path, or the one a kept object's debug
/// information gives every tree).
fn symbol_uses(sb: &Sandbox, spec: &Spec, obj: &Path, sym: &str, root: &Path) -> Vec<String> {
    let mut bare = Command::new("objdump");
    bare.args(["-dr", "-l", "--no-show-raw-insn"]).arg(obj);
    let Ok(out) = sandboxed(sb, spec, &bare).and_then(|mut c| Ok(c.output()?)) else {
        return vec![];
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut at = String::new();
    let mut found = vec![];
    for l in text.lines() {
        let t = l.trim();
        if t.starts_with('/')
            && t.rsplit_once(':').is_some_and(|(_, n)| {
                n.split_whitespace()
                    .next()
                    .is_some_and(|n| n.parse::<u32>().is_ok())
            })
        {
            at = t.split_whitespace().next().unwrap_or(t).to_owned();
        } else if t.contains("R_X86_64") || t.contains("R_AARCH64") {
            let target = t.split_whitespace().last().unwrap_or("");
            let name = target.split(['-', '+']).next().unwrap_or("");
            if name == sym && !at.is_empty() {
                let rel = at
                    .strip_prefix(&format!("{}/", root.display()))
                    .or_else(|| {
                        at.strip_prefix(&format!("{}/", super::objcache::TREE_IN_DEBUG_INFO))
                    })
                    .unwrap_or(&at);
                found.push(rel.to_owned());
            }
        }
    }
    found
}
