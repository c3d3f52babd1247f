//! The cache of built worlds: a world's key (the hash of every input and
//! of this recipe), its checksum, when it was last used, and eviction.

use fs_err as fs;
use std::hash::Hasher;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::manifest::{cshim_dir, Manifest};
use super::tools::{compiler, version_of};
use super::BuildOptions;
use crate::kernel::{cache_dir, KernelTree};

/// How worlds are built, every file of it: a change to the recipe
/// rebuilds them.
const RECIPE: [&str; 6] = [
    include_str!("mod.rs"),
    include_str!("manifest.rs"),
    include_str!("tools.rs"),
    include_str!("compile.rs"),
    include_str!("boundary.rs"),
    include_str!("cache.rs"),
];

/// Every file whose content goes into the world, for the cache key.
pub(super) fn world_inputs(tree: &KernelTree, manifest: &Manifest) -> Result<Vec<PathBuf>> {
    let mut files = vec![tree.path("Makefile")];
    for c in &manifest.upstream.compile {
        files.push(tree.path(&c.file));
    }
    for e in &manifest.upstream.extract {
        files.push(tree.path(&e.file));
    }
    for dir in [
        "drivers/infiniband/hw/hfi1",
        "drivers/infiniband/sw/rdmavt",
        "include/rdma",
        "include/uapi/rdma",
        // A composed vendor tree's own headers (kernel/overlay.rs).
        "overlay",
    ] {
        if !tree.path(dir).exists() {
            continue;
        }
        walk_files(&tree.path(dir), &mut |p| {
            if p.extension().is_some_and(|x| x == "h") {
                files.push(p.to_owned());
            }
        })?;
    }
    walk_files(&cshim_dir(), &mut |p| {
        if p.extension()
            .is_some_and(|x| x == "h" || x == "c" || x == "toml")
        {
            files.push(p.to_owned());
        }
    })?;
    files.sort();
    files.dedup();
    Ok(files)
}

/// Every file below `dir`, sorted. Symbolic links are not followed into
/// directories (a tree's link to `/` would walk the whole machine); a link
/// is listed as a file, and reading it checks where it leads.
fn walk_files(dir: &Path, f: &mut dyn FnMut(&Path)) -> Result<()> {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            walk_files(&p, f)?;
        } else {
            f(&p);
        }
    }
    Ok(())
}

/// A 64-bit FNV-1a hash: stable across Rust releases, unlike `DefaultHasher`.
struct Fnv(u64);

/// FNV-1a's offset basis: the hash of nothing.
const FNV_START: u64 = 0xcbf29ce484222325;

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x100000001b3);
        }
    }
}

pub(super) fn cache_key(
    tree: &KernelTree,
    manifest: &Manifest,
    opts: &BuildOptions,
) -> Result<String> {
    let mut h = Fnv(FNV_START);
    h.write(version_of(&compiler(opts)).as_bytes());
    for part in RECIPE {
        h.write(part.as_bytes());
    }
    h.write(format!("{opts:?}").as_bytes());
    // The flags themselves: some come from outside this module (the
    // tree's semantic flags, `KernelTree::semantic_cflags`), and a world
    // built with others is another world.
    for f in super::compile::cflags(tree, opts)? {
        h.write(f.as_bytes());
        h.write(b"\0");
    }
    if let Some(o) = &tree.overlay {
        // The overlay's flags, with paths relative to the tree.
        let rel = |p: &PathBuf| {
            p.strip_prefix(&tree.root)
                .unwrap_or(p)
                .display()
                .to_string()
        };
        let inc: Vec<String> = o.include.iter().map(rel).collect();
        let force: Vec<String> = o.force_include.iter().map(rel).collect();
        h.write(format!("overlay {inc:?} {force:?} {:?}", o.defines).as_bytes());
    }
    if opts.instruments() {
        // A coverage world is bound to its tree's place: gcov notes the
        // sources' absolute paths, which lcov and genhtml read back. Two
        // copies of one tree (a gate's scratch copy and the cached tree)
        // must not share one.
        h.write(tree.root.to_string_lossy().as_bytes());
    }
    for f in world_inputs(tree, manifest)? {
        // Paths relative to their root, so a copied tree hashes the same.
        let rel = f
            .strip_prefix(&tree.root)
            .or_else(|_| f.strip_prefix(cshim_dir()))
            .unwrap_or(&f);
        h.write(rel.to_string_lossy().as_bytes());
        // Tree files are untrusted: read only regular files inside it.
        let bytes = if f.starts_with(&tree.root) {
            crate::kernel::read_tree_file(&tree.root, &f)?
        } else {
            fs::read(&f).with_context(|| format!("reading {}", f.display()))?
        };
        h.write(&bytes);
    }
    Ok(format!("{:016x}", h.finish()))
}

/// Notes that a cached world was used (for [`evict`]); a read-only cache
/// keeps no such note, which is fine.
pub(super) fn mark_used(dir: &Path) {
    let _ = fs::File::create(dir.join("used"));
}

/// When a world was last used: its `used` note, or when it was built.
fn last_used(dir: &Path) -> std::time::SystemTime {
    fs::metadata(dir.join("used"))
        .or_else(|_| fs::metadata(dir.join("libhfi1world.so")))
        .and_then(|m| m.modified())
        .unwrap_or(std::time::UNIX_EPOCH)
}

/// The bytes a world's files take.
fn size_of(dir: &Path) -> u64 {
    let mut n = 0;
    let _ = walk_files(dir, &mut |p| {
        n += fs::symlink_metadata(p).map(|m| m.len()).unwrap_or(0)
    });
    n
}

/// The cap on the cache's worlds (`HFI1_WORLDS_MAX_MB`, default 2048 MiB).
pub fn worlds_cap() -> u64 {
    std::env::var("HFI1_WORLDS_MAX_MB")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(2048)
        << 20
}

/// Removes the least recently used worlds of the cache until they take at
/// most `cap` bytes (a patch bot builds a world per patch, for weeks).
/// Worlds used in the last minute stay whatever the cap: they may be in
/// use. Returns how many were removed.
pub fn evict(cap: u64) -> usize {
    evict_in(&cache_dir().join("worlds"), cap)
}

/// The lock file, in an instrumented world's directory, that a run
/// measuring the world holds from clearing its counters to reading them
/// (`judge::coverage::Counters`).
pub const COUNTERS_LOCK: &str = ".lock-counters";

/// The lock file, in every world's directory, that each process using
/// the world holds shared for as long as it has the world
/// ([`InUse`]); eviction removes a world only when it can lock it alone.
pub const IN_USE_LOCK: &str = ".lock-in-use";

/// A world in use by this process (a shared lock on its [`IN_USE_LOCK`],
/// released when the last handle of it is dropped): eviction, in this
/// process or another, leaves it alone however long ago it was built.
#[derive(Debug, Clone, Default)]
pub struct InUse {
    _held: Option<std::sync::Arc<crate::kernel::cache_lock::FileLock>>,
}

impl InUse {
    /// The world in `dir` in use from now on (not at all, when its lock
    /// file cannot be made: eviction then falls back on its age).
    pub(super) fn take(dir: &Path) -> InUse {
        InUse {
            _held: crate::kernel::cache_lock::FileLock::acquire_shared(&dir.join(IN_USE_LOCK))
                .ok()
                .map(std::sync::Arc::new),
        }
    }
}

/// [`evict`] in the worlds directory `root`.
pub fn evict_in(root: &Path, cap: u64) -> usize {
    let Ok(rd) = fs::read_dir(root) else {
        return 0;
    };
    let mut worlds: Vec<(std::time::SystemTime, u64, PathBuf)> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .map(|p| (last_used(&p), size_of(&p), p))
        .collect();
    worlds.sort();
    let mut total: u64 = worlds.iter().map(|w| w.1).sum();
    let recent = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    let mut removed = 0;
    for (used, size, p) in worlds {
        if total <= cap || used > recent {
            break;
        }
        // A process using the world (a gate's workers, a run measuring
        // its counters) holds it shared, however long ago it was built:
        // it stays.
        let in_use = p.join(IN_USE_LOCK);
        let _alone = if in_use.exists() {
            match crate::kernel::cache_lock::FileLock::try_acquire(&in_use) {
                Some(l) => Some(l),
                None => continue,
            }
        } else {
            None
        };
        if fs::remove_dir_all(&p).is_ok() {
            total -= size;
            removed += 1;
        }
    }
    removed
}

/// The FNV-1a hash of a file, as hex.
pub(super) fn checksum(path: &Path) -> Result<String> {
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let mut h = Fnv(FNV_START);
    h.write(&bytes);
    Ok(format!("{:016x} {}\n", h.finish(), bytes.len()))
}

/// A cached world is used only if its object hashes as when it was built.
pub(super) fn checksum_matches(so: &Path) -> bool {
    let Ok(want) = fs::read_to_string(so.with_extension("so.sum")) else {
        return false;
    };
    checksum(so).is_ok_and(|got| got == want)
}
