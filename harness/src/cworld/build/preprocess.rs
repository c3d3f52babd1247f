//! Which lines of a tree its worlds compile: every upstream unit of the
//! default world preprocessed in the sandbox as it is compiled, with
//! `-E -fdirectives-only` (conditionals decided, macros left unexpanded,
//! so each line the compiler reads keeps its line). An edit or a mutant
//! on a line no unit emits, inside a conditional group none of whose
//! code lines is emitted, is compiled out: no world can judge it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use fs_err as fs;

use super::compile::{
    add_option_flags, cc_build, stage_includes, toolchain_spec, write_extract_unit,
};
use super::manifest::Manifest;
use super::tools::sandboxed;
use super::BuildOptions;
use crate::kernel::cond::Conditionals;
use crate::kernel::KernelTree;
use crate::sandbox::Sandbox;

/// The lines of a tree's files that some upstream unit of its world
/// emits, by path in the tree.
#[derive(Debug, Clone, Default)]
pub struct CompiledLines {
    emitted: HashMap<String, HashSet<usize>>,
}

/// Where an edit is: a line of the file, or the gap before a line (where
/// lines were removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    /// Line `n` (from 1).
    Line(usize),
    /// Between lines `n - 1` and `n`.
    Gap(usize),
}

/// One file's compiled lines, with its conditional groups.
pub struct FileLines<'a> {
    emitted: &'a HashSet<usize>,
    groups: Conditionals,
}

impl FileLines<'_> {
    /// The directive that leaves `site` out of every world (`#ifdef
    /// CONFIG_X`), or `None` when it is compiled, or not known to be left
    /// out: a site outside every group, a directive, or a group with no
    /// code line to tell by, is taken as compiled.
    pub fn compiled_out(&self, site: Site) -> Option<&str> {
        let g = match site {
            Site::Line(n) => self.groups.of_line(n)?,
            Site::Gap(n) => self.groups.of_gap(n)?,
        };
        let mut code = self.groups.code_lines(g).peekable();
        code.peek()?;
        code.all(|l| !self.emitted.contains(&l))
            .then(|| self.groups.head(g))
    }
}

impl FileLines<'_> {
    /// The groups no world compiles (none of their code lines emitted):
    /// each its directive and its code lines.
    pub fn groups_compiled_out(&self) -> Vec<(&str, Vec<usize>)> {
        self.groups
            .groups()
            .filter_map(|g| {
                let code: Vec<usize> = self.groups.code_lines(g).collect();
                let out = !code.is_empty() && code.iter().all(|l| !self.emitted.contains(l));
                out.then(|| (self.groups.head(g), code))
            })
            .collect()
    }
}

impl CompiledLines {
    /// The compiled lines of `path` (in the tree), its text `src`; `None`
    /// when no unit reads the file or it has no conditional.
    pub fn file(&self, path: &str, src: &str) -> Option<FileLines<'_>> {
        self.file_of(path, Conditionals::scan(src))
    }

    /// [`CompiledLines::file`] for a file whose groups are scanned already.
    pub fn file_of(&self, path: &str, groups: Conditionals) -> Option<FileLines<'_>> {
        let emitted = self.emitted.get(path)?;
        groups.any().then_some(FileLines { emitted, groups })
    }

    /// Reads one unit's preprocessed text (`-E`, linemarkers kept): the
    /// lines each linemarker's file emits, for files inside `root`
    /// (canonical).
    pub(crate) fn read_preprocessed(&mut self, text: &str, root: &Path) {
        let mut names: HashMap<String, Option<String>> = HashMap::new();
        let mut at: Option<(String, usize)> = None;
        for l in text.lines() {
            if let Some((n, name)) = linemarker(l) {
                let rel = names
                    .entry(name.to_owned())
                    .or_insert_with(|| {
                        let p = std::fs::canonicalize(name).ok()?;
                        Some(p.strip_prefix(root).ok()?.to_string_lossy().into_owned())
                    })
                    .clone();
                at = rel.map(|r| (r, n));
                continue;
            }
            if let Some((file, n)) = &mut at {
                if !l.trim().is_empty() {
                    self.emitted.entry(file.clone()).or_default().insert(*n);
                }
                *n += 1;
            }
        }
    }
}

/// A linemarker (`# 12 "path" 2`): the line the next line is, and the
/// file.
fn linemarker(l: &str) -> Option<(usize, &str)> {
    let rest = l.strip_prefix("# ")?;
    let (n, rest) = rest.split_once(' ')?;
    let name = rest.strip_prefix('"')?.split('"').next()?;
    Some((n.parse().ok()?, name))
}

/// The lines `tree`'s default world compiles: each upstream unit (the
/// files compiled whole, the extracted definitions) preprocessed in the
/// sandbox with the world's flags.
pub fn compiled_lines(tree: &KernelTree) -> Result<CompiledLines> {
    // Not in the cache, which may be read-only.
    let dir = std::env::temp_dir().join(format!(
        "hfi1-preprocess-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let dir = PathBuf::from(dir.to_string_lossy().replace(['(', ')'], ""));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir)?;
    let r = preprocess_in(tree, &dir);
    let _ = fs::remove_dir_all(&dir);
    r
}

/// [`compiled_lines`] in the scratch directory `dir`.
fn preprocess_in(tree: &KernelTree, dir: &Path) -> Result<CompiledLines> {
    let sb = Sandbox::get()?;
    let manifest = Manifest::load()?;
    let opts = BuildOptions::default();
    let stage = stage_includes(tree, dir)?;
    let absent = manifest.absent(tree)?;
    let extract = write_extract_unit(tree, &manifest, (&[], &absent), dir)?;
    let mut units: Vec<PathBuf> = manifest
        .upstream
        .compile
        .iter()
        .map(|c| tree.path(&c.file))
        .collect();
    units.push(extract);
    // As compile_into() compiles them: an overlay's flags, the absent
    // functions' defines.
    let mut b = cc_build(tree, &opts, dir, &stage)?;
    add_option_flags(&mut b, tree, &opts);
    for name in &absent {
        b.define(&format!("SHIM_ABSENT_{name}"), None);
    }
    let tool = b
        .try_get_compiler()
        .map_err(|e| anyhow::anyhow!("no C compiler: {e}"))?;
    let spec = toolchain_spec(tree, &opts, dir);
    let mut running = vec![];
    for (k, u) in units.iter().enumerate() {
        let out = dir.join(format!("unit{k}.i"));
        let mut bare = tool.to_command();
        bare.args(["-E", "-fdirectives-only", "-o"])
            .arg(&out)
            .arg(u);
        let started = sandboxed(sb, &spec, &bare).and_then(|mut cmd| {
            cmd.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().context("starting the preprocessor")
        });
        match started {
            Ok(child) => running.push((u, out, child)),
            Err(e) => {
                // None left running in the directory about to go.
                for (_, _, mut c) in running {
                    let _ = c.kill();
                    let _ = c.wait();
                }
                return Err(e);
            }
        }
    }
    let root = std::fs::canonicalize(&tree.root)
        .with_context(|| format!("reading {}", tree.root.display()))?;
    // Every child waited for before any failure is told.
    let done: Vec<_> = running
        .into_iter()
        .map(|(u, out, child)| (u, out, child.wait_with_output()))
        .collect();
    let mut lines = CompiledLines::default();
    for (u, out, done) in done {
        let done = done?;
        if !done.status.success() {
            bail!(
                "preprocessing {} failed:\n{}",
                u.display(),
                String::from_utf8_lossy(&done.stderr)
            );
        }
        // Comments are kept: any bytes may be there.
        let text = fs::read(&out)?;
        lines.read_preprocessed(&String::from_utf8_lossy(&text), &root);
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The preprocessor's output read back: lines emitted by file, blank
    /// lines (a group left out) not, a linemarker moving the count.
    #[test]
    fn emitted_lines_are_read_by_linemarker() {
        let dir = std::env::temp_dir().join(format!("hfi1-pp-test-{}", std::process::id()));
        let _ = fs::create_dir_all(&dir);
        let root = std::fs::canonicalize(&dir).expect("the test directory");
        let f = root.join("f.c");
        fs::write(&f, "").expect("a file");
        let text = format!(
            "# 1 \"{f}\"\nint f(int x)\n{{\n\n\n\tx--;\n# 9 \"{f}\"\n\treturn x;\n\
             # 1 \"/elsewhere.h\" 1\nint y;\n",
            f = f.display()
        );
        let mut c = CompiledLines::default();
        c.read_preprocessed(&text, &root);
        let _ = fs::remove_dir_all(&dir);
        let got: std::collections::BTreeSet<_> = c.emitted["f.c"].iter().copied().collect();
        assert_eq!(got, [1, 2, 5, 9].into_iter().collect());
        assert_eq!(c.emitted.len(), 1, "files outside the tree are left out");
        // Lines 3-4 are blank in the output: a group around them, with
        // no code line emitted, is compiled out; one around line 5 is not.
        let src = "int f(int x)\n{\n#ifdef A\n\tx++;\n#endif\n\tx--;\n";
        let file = c.file("f.c", src).expect("f.c has a group");
        assert_eq!(file.compiled_out(Site::Line(4)), Some("#ifdef A"));
        assert_eq!(file.compiled_out(Site::Gap(5)), Some("#ifdef A"));
        assert_eq!(file.compiled_out(Site::Gap(6)), None);
        assert_eq!(file.compiled_out(Site::Line(6)), None);
        assert_eq!(file.compiled_out(Site::Line(3)), None, "a directive");
        assert_eq!(file.groups_compiled_out(), [("#ifdef A", vec![4])]);
    }
}
