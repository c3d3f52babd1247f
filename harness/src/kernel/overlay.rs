//! Vendor trees: an out-of-tree hfi1 driver (Cornelis Networks' opa-hfi1,
//! the IFS driver, or any tree shaped like it) is an *overlay* on a base
//! kernel. It carries its own `drivers/infiniband/hw/hfi1` (and perhaps
//! rdmavt) and some headers that shadow the kernel's (`include/rdma/…`,
//! found first, reaching the kernel's with `#include_next`), picks code
//! with compat macros (`HAVE_*`, a force-included `compat.h`), and lacks
//! everything else — a top Makefile, `ib_verbs.h` — which the base gives.
//!
//! [`compose`] lays such a pair out as one tree in the cache: the base's
//! Makefile, headers and (when the overlay has none) rdmavt, the overlay's
//! driver directories, and the overlay's header directories under
//! `overlay/`, searched before the base's. A [`Profile`] (a small TOML file
//! the user writes, or the defaults) says which overlay directories are
//! include directories, what is force-included, which macros are defined,
//! and which `HAVE_*` macros follow from the base's own headers — the rule
//! a vendor's Makefile states with `grep -q SYMBOL FILE && echo -DHAVE_X`.
//! Nothing of the vendor's is committed: the overlay is read like any tree.

use fs_err as fs;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use super::cache::cache_dir;
use super::tree::{copy_tree, read_tree_text, KernelTree};

pub use super::tree::OverlayFlags;

/// How an overlay builds: its compat-macro profile.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Overlay directories searched for headers before the base's, in
    /// order (default: `include` and `include/uapi` where present).
    #[serde(default)]
    pub include: Option<Vec<String>>,
    /// Overlay headers force-included in every unit (`-include`), as a
    /// vendor's `CFLAGS_MODULE += -include compat.h` does.
    #[serde(default)]
    pub force_include: Vec<String>,
    /// Macros defined for every unit: `NAME` or `NAME=VALUE`.
    #[serde(default)]
    pub defines: Vec<String>,
    /// `HAVE_X = { file = "include/rdma/ib_verbs.h", contains = "TEXT" }`:
    /// defined when the base's file holds the text.
    #[serde(default)]
    pub have: BTreeMap<String, Have>,
}

/// A `HAVE_*` rule: the macro is defined when the base's `file` holds
/// `contains`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Have {
    /// A file of the base tree, relative to its root.
    pub file: String,
    /// The text to look for in it.
    pub contains: String,
}

impl Profile {
    /// Reads a profile file (TOML; errors name the file, line and key).
    pub fn load(path: &Path) -> Result<Profile> {
        let text = fs::read_to_string(path)
            .with_context(|| format!("reading the overlay profile {}", path.display()))?;
        toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }
}

/// Driver directories an overlay may carry; each replaces the base's
/// whole when present.
const DRIVER_DIRS: &[&str] = &["drivers/infiniband/hw/hfi1", "drivers/infiniband/sw/rdmavt"];

/// The base's files a composed tree keeps (besides driver directories the
/// overlay lacks).
const BASE_FILES: &[&str] = &[
    "Makefile",
    "include/rdma",
    "include/uapi/rdma",
    "scripts",
    // The base's index of names: an overlay's generic headers are its.
    super::names::INDEX_FILE,
];

fn inside(root: &Path, rel: &str, what: &str) -> Result<PathBuf> {
    let p = Path::new(rel);
    if p.is_absolute()
        || p.components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        bail!("{what} {rel:?}: give a path inside the overlay, without `..`");
    }
    Ok(root.join(p))
}

/// Composes `overlay` on `base` into one tree in the cache, built
/// afresh each time (it is small: the driver and header directories).
pub fn compose(base: &KernelTree, overlay: &Path, profile: &Profile) -> Result<KernelTree> {
    let src = overlay_root(overlay)?;
    let include = include_dirs(&src, profile)?;
    let defines = defines(base, profile)?;
    let dest = lay_out(base, &src, profile, &include)?;
    let mut tree = KernelTree::open(&dest).with_context(|| {
        format!(
            "{} on {}: the composed tree is incomplete",
            overlay.display(),
            base.root.display()
        )
    })?;
    let root = tree.root.clone();
    tree.overlay = Some(OverlayFlags {
        source: src,
        include: include
            .iter()
            .map(|d| root.join("overlay").join(d))
            .collect(),
        force_include: profile
            .force_include
            .iter()
            .map(|f| root.join("overlay").join(f))
            .collect(),
        defines,
    });
    Ok(tree)
}

/// The overlay's root, canonical, once it is seen to hold an hfi1 driver.
fn overlay_root(overlay: &Path) -> Result<PathBuf> {
    let src = fs::canonicalize(overlay)
        .with_context(|| format!("overlay {}: no such directory", overlay.display()))?;
    if !src.is_dir() {
        bail!("overlay {}: not a directory", overlay.display());
    }
    let qp = src.join("drivers/infiniband/hw/hfi1/qp.c");
    let qp_inside = fs::canonicalize(&qp).is_ok_and(|r| r.starts_with(&src) && r.is_file());
    if !qp_inside {
        bail!(
            "overlay {}: no drivers/infiniband/hw/hfi1/qp.c (an overlay is an out-of-tree hfi1 \
             driver laid out as the kernel lays it out, e.g. opa-hfi1)",
            overlay.display()
        );
    }
    Ok(src)
}

/// The overlay's header directories (relative to it), once every
/// force-included file and every directory is seen to be there.
fn include_dirs(src: &Path, profile: &Profile) -> Result<Vec<String>> {
    for f in &profile.force_include {
        let p = inside(src, f, "force_include")?;
        if !p.is_file() {
            bail!("force_include {f:?}: the overlay has no such file");
        }
    }
    let include: Vec<String> = match &profile.include {
        Some(v) => v.clone(),
        None => ["include", "include/uapi"]
            .iter()
            .filter(|d| src.join(d).is_dir())
            .map(|d| d.to_string())
            .collect(),
    };
    for d in &include {
        if !inside(src, d, "include")?.is_dir() {
            bail!("include {d:?}: the overlay has no such directory");
        }
    }
    Ok(include)
}

/// The macros every unit gets: the profile's, and each `HAVE_*` whose
/// text the base's file holds; every one checked to be `NAME[=VALUE]`.
fn defines(base: &KernelTree, profile: &Profile) -> Result<Vec<String>> {
    let mut defines = profile.defines.clone();
    for (name, h) in &profile.have {
        let file = inside(&base.root, &h.file, &format!("have.{name}.file"))?;
        if !file.is_file() {
            bail!(
                "have.{name}: the base tree {} has no {} (the harness keeps hfi1, rdmavt, \
                 include/rdma and include/uapi/rdma of a fetched kernel)",
                base.root.display(),
                h.file
            );
        }
        if read_tree_text(&base.root, &file)?.contains(&h.contains) {
            defines.push(name.clone());
        }
    }
    for d in &defines {
        let name = d.split('=').next().unwrap_or("");
        let ok = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !ok {
            bail!("define {d:?}: not NAME or NAME=VALUE");
        }
    }
    Ok(defines)
}

/// Lays the composed tree out in the cache and returns its directory:
/// the base's files, each driver directory from the overlay if it has
/// one (else the base's), and the overlay's header directories and
/// force-included files under `overlay/`.
fn lay_out(
    base: &KernelTree,
    src: &Path,
    profile: &Profile,
    include: &[String],
) -> Result<PathBuf> {
    let key = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        base.root.hash(&mut h);
        src.hash(&mut h);
        format!("{profile:?}").hash(&mut h);
        h.finish()
    };
    let name = src
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "overlay".into());
    let dir = cache_dir().join("overlays");
    fs::create_dir_all(&dir)?;
    let dest = dir.join(format!("{name}-{key:016x}"));
    let tmp = dir.join(format!(".{name}-{key:016x}.{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    for rel in BASE_FILES {
        let from = base.root.join(rel);
        let to = tmp.join(rel);
        if from.is_dir() {
            copy_tree(&from, &to)?;
        } else if from.is_file() {
            fs::create_dir_all(to.parent().context("no parent")?)?;
            fs::copy(&from, &to)?;
        }
    }
    for rel in DRIVER_DIRS {
        let mine = src.join(rel);
        let from = if mine.is_dir() {
            mine
        } else {
            base.root.join(rel)
        };
        copy_tree(&from, &tmp.join(rel)).with_context(|| format!("copying {}", from.display()))?;
    }
    // The overlay's header directories and force-included files, under
    // overlay/ (their own relative paths).
    let mut wanted: Vec<String> = include.to_vec();
    for f in &profile.force_include {
        if let Some(parent) = Path::new(f).parent() {
            wanted.push(parent.display().to_string());
        }
    }
    for rel in &wanted {
        let from = src.join(rel);
        let to = tmp.join("overlay").join(rel);
        if from.is_dir() && !to.exists() {
            copy_tree(&from, &to).with_context(|| format!("copying {}", from.display()))?;
        }
    }
    let _ = fs::remove_dir_all(&dest);
    fs::rename(&tmp, &dest).with_context(|| format!("moving {}", dest.display()))?;
    Ok(dest)
}
