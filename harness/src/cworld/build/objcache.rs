//! Objects kept across worlds, as ccache's direct mode keeps them: a unit
//! whose command, source and every header it read (the compiler's `-MD`
//! list) are the same as in an earlier world reuses that world's object
//! and compiler messages instead of compiling again. A patch to qp.c then
//! recompiles qp.c alone.
//!
//! Paths are kept relative to where they were (`@TREE`, `@WORLD`,
//! `@CSHIM`), so a scratch copy of a tree finds the objects of the cached
//! tree. Not for coverage worlds: gcov writes counters to the absolute
//! place an object was compiled at. An object's debug information names
//! the tree as [`TREE_IN_DEBUG_INFO`], whichever copy compiled it.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::kernel::cache_dir;

/// What a kept object's debug information calls the tree's root
/// (`-fdebug-prefix-map`): a reused object was compiled in another copy of
/// the tree, whose path means nothing here (`boundary.rs` reads it back).
pub(super) const TREE_IN_DEBUG_INFO: &str = "/hfi1-tree";

/// How many command-and-source keys are kept (each with up to
/// [`PER_KEY`] sets of headers): the least recently used go first.
const KEYS_KEPT: usize = 2048;
/// How many sets of header contents one command and source keep.
const PER_KEY: usize = 4;

/// The places a build's paths are made relative to, longest first.
pub(super) struct Places(Vec<(String, &'static str)>);

impl Places {
    /// The tree's root, the world's build directory, c-shim.
    pub(super) fn new(tree: &Path, world: &Path, cshim: &Path) -> Places {
        let mut v = vec![
            (tree.display().to_string(), "@TREE"),
            (world.display().to_string(), "@WORLD"),
            (cshim.display().to_string(), "@CSHIM"),
        ];
        v.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        Places(v)
    }

    /// The tree's root.
    pub(super) fn tree(&self) -> &str {
        self.0
            .iter()
            .find(|(_, name)| *name == "@TREE")
            .map_or("", |(p, _)| p.as_str())
    }

    /// `s` with every place replaced by its name.
    fn relative(&self, s: &str) -> String {
        self.0
            .iter()
            .fold(s.to_owned(), |s, (p, name)| s.replace(p.as_str(), name))
    }

    /// `s` with every name replaced by its place here.
    fn absolute(&self, s: &str) -> String {
        self.0
            .iter()
            .fold(s.to_owned(), |s, (p, name)| s.replace(name, p))
    }
}

/// One unit's compile, as the cache sees it.
pub(super) struct Unit<'a> {
    /// The compiler's path, arguments and the unit (without `-o`).
    pub command: Vec<String>,
    /// The source file.
    pub source: &'a Path,
    /// Its key, taken before it is compiled (see [`Unit::keyed`]).
    pub key: Option<String>,
}

impl<'a> Unit<'a> {
    /// The unit with its key, read now: before the compile, so that what
    /// is stored is what was compiled.
    pub(super) fn keyed(command: Vec<String>, source: &'a Path, places: &Places) -> Unit<'a> {
        let mut u = Unit {
            command,
            source,
            key: None,
        };
        u.key = u.key(places);
        u
    }

    /// The key of the command and the source's content; `None` when the
    /// source cannot be read.
    fn key(&self, places: &Places) -> Option<String> {
        let mut h = Sha256::new();
        h.update(super::tools::compiler_version());
        for a in &self.command {
            h.update(places.relative(a));
            h.update([0]);
        }
        let tool = self.command.first().map(PathBuf::from)?;
        let tool = super::tools::program_path(tool.as_os_str());
        if let Ok(m) = std::fs::metadata(&tool) {
            h.update(format!("{} {:?}", m.len(), m.modified().ok()));
        }
        h.update(std::fs::read(self.source).ok()?);
        // Every file an #include could find first: a header added where
        // the search looks before the one read last time shadows it.
        for dir in self.search_dirs() {
            let mut names = vec![];
            list(&dir, &dir, &mut names, 0);
            names.sort();
            h.update(places.relative(&dir.display().to_string()));
            for n in names {
                h.update(format!("\n{n}"));
            }
        }
        Some(hex(&h.finalize()))
    }

    /// The directories the preprocessor searches: the source's own, then
    /// each `-I`/`-iquote` and `-include`d file's (not the compiler's).
    fn search_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self
            .source
            .parent()
            .map(Path::to_path_buf)
            .into_iter()
            .collect();
        let mut args = self.command.iter().peekable();
        while let Some(a) = args.next() {
            for flag in ["-I", "-iquote"] {
                if let Some(rest) = a.strip_prefix(flag) {
                    let d = if rest.is_empty() {
                        args.peek().map(|s| s.as_str())
                    } else {
                        Some(rest)
                    };
                    dirs.extend(d.map(PathBuf::from));
                }
            }
        }
        dirs
    }
}

/// Every path under `dir` (relative to `root`), links followed, at most
/// eight levels down.
fn list(root: &Path, dir: &Path, out: &mut Vec<String>, depth: usize) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        out.push(p.strip_prefix(root).unwrap_or(&p).display().to_string());
        if depth < 8 && p.is_dir() {
            list(root, &p, out, depth + 1);
        }
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

fn store_dir() -> PathBuf {
    cache_dir().join("objects")
}

/// Each dependency's content hash, `None` when one cannot be read.
fn dep_hashes(deps: &[String], places: &Places) -> Option<String> {
    let mut out = String::new();
    for d in deps {
        let bytes = std::fs::read(places.absolute(d)).ok()?;
        out.push_str(&format!("{d}\t{}\n", hex(&Sha256::digest(&bytes))));
    }
    Some(out)
}

/// The object and the compiler's messages of an earlier identical
/// compile, copied to `obj`; `None` when there is none.
pub(super) fn lookup(unit: &Unit, places: &Places, obj: &Path) -> Option<String> {
    let dir = store_dir().join(unit.key.as_deref()?);
    for e in std::fs::read_dir(&dir).ok()?.flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "deps") {
            continue;
        }
        let kept = std::fs::read_to_string(&p).ok()?;
        let deps: Vec<String> = kept
            .lines()
            .filter_map(|l| l.split('\t').next().map(str::to_owned))
            .collect();
        if dep_hashes(&deps, places).as_deref() != Some(kept.as_str()) {
            continue;
        }
        let msg = std::fs::read_to_string(p.with_extension("msg")).ok()?;
        // A kept object whose bytes no longer match its sum (truncated,
        // altered) is dropped, never used.
        let bytes = std::fs::read(p.with_extension("o")).ok()?;
        let sum = std::fs::read_to_string(p.with_extension("sum")).unwrap_or_default();
        if hex(&Sha256::digest(&bytes)) != sum.trim() {
            for ext in ["o", "msg", "sum", "deps"] {
                let _ = std::fs::remove_file(p.with_extension(ext));
            }
            continue;
        }
        std::fs::write(obj, &bytes).ok()?;
        // Used now: eviction keeps it.
        let _ = std::fs::File::options()
            .append(true)
            .open(&p)
            .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        let _ =
            std::fs::File::open(&dir).and_then(|f| f.set_modified(std::time::SystemTime::now()));
        return Some(places.absolute(&msg));
    }
    None
}

/// Keeps a compile's object `obj`, its dependency file `depfile` (written
/// by `-MD -MF`) and its messages `msg`. Best effort: a cache that cannot
/// be written costs only the next compile.
pub(super) fn store(unit: &Unit, places: &Places, obj: &Path, depfile: &Path, msg: &str) {
    let Some(key) = unit.key.clone() else {
        return;
    };
    let Ok(text) = std::fs::read_to_string(depfile) else {
        return;
    };
    let mut deps: Vec<String> = depfile_paths(&text)
        .into_iter()
        .map(|d| places.relative(&d))
        .collect();
    deps.sort();
    deps.dedup();
    let Some(hashes) = dep_hashes(&deps, places) else {
        return;
    };
    let dir = store_dir().join(&key);
    let name = hex(&Sha256::digest(hashes.as_bytes()));
    // Apart from any other writer: another process, or another thread of
    // this one (kernels built at once may store the same object).
    static STORES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = STORES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}-{}-{n}", std::process::id()));
    let Ok(bytes) = std::fs::read(obj) else {
        return;
    };
    let ok = std::fs::create_dir_all(&dir).is_ok()
        && std::fs::write(tmp.with_extension("o"), &bytes).is_ok()
        && std::fs::write(tmp.with_extension("sum"), hex(&Sha256::digest(&bytes))).is_ok()
        && std::fs::write(tmp.with_extension("msg"), places.relative(msg)).is_ok()
        && std::fs::write(tmp.with_extension("deps"), &hashes).is_ok();
    // The object, its sum and messages before the list that makes them
    // findable.
    for ext in ["o", "sum", "msg", "deps"] {
        let from = tmp.with_extension(ext);
        if !ok || std::fs::rename(&from, dir.join(&name).with_extension(ext)).is_err() {
            let _ = std::fs::remove_file(&from);
        }
    }
    evict(&dir, PER_KEY, "deps");
    evict(&store_dir(), KEYS_KEPT, "");
}

/// Removes all but the `keep` most recently used entries of `dir` (files
/// with extension `ext` and their siblings, or directories for `""`).
fn evict(dir: &Path, keep: usize, ext: &str) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut all: Vec<(std::time::SystemTime, PathBuf)> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| match ext {
            "" => p.is_dir(),
            x => p.extension().is_some_and(|e| e == x),
        })
        .map(|p| {
            let t = std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            (t, p)
        })
        .collect();
    if all.len() <= keep {
        return;
    }
    all.sort();
    for (_, p) in &all[..all.len() - keep] {
        if ext.is_empty() {
            let _ = std::fs::remove_dir_all(p);
        } else {
            for x in ["o", "sum", "msg", "deps"] {
                let _ = std::fs::remove_file(p.with_extension(x));
            }
        }
    }
}

/// The prerequisites of a make rule as gcc's `-MD` writes it (`obj:
/// a.c b.h \` continued over lines, spaces in names escaped).
fn depfile_paths(text: &str) -> Vec<String> {
    let joined = text.replace("\\\n", " ");
    let Some((_, deps)) = joined.split_once(": ") else {
        return vec![];
    };
    let mut out = vec![];
    let mut cur = String::new();
    let mut chars = deps.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                cur.push(' ');
                chars.next();
            }
            ' ' | '\n' | '\t' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_depfile_lists_every_prerequisite() {
        let d = "obj/x.o: /t/a.c /t/b\\ c.h \\\n /k/linux/types.h\n";
        assert_eq!(depfile_paths(d), ["/t/a.c", "/t/b c.h", "/k/linux/types.h"]);
    }

    #[test]
    fn places_are_named_longest_first() {
        let p = Places::new(
            Path::new("/c/kernels/6.12"),
            Path::new("/c/worlds/x"),
            Path::new("/src/c-shim"),
        );
        let s = "-I/c/kernels/6.12/drivers -I/c/worlds/x/stage -I/src/c-shim/mocks";
        let r = p.relative(s);
        assert_eq!(r, "-I@TREE/drivers -I@WORLD/stage -I@CSHIM/mocks");
        assert_eq!(p.absolute(&r), s);
    }
}
