//! Kernels as the command line names them: a series, a tree by path, a
//! vendor tree on a base; and the names reports give them.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::tree::KernelTree;

/// A kernel named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelArg {
    /// A series or `SERIES=VERSION`.
    Series(String),
    /// A tree by path (`--kernel-src`).
    Path(PathBuf),
    /// A vendor tree composed on a base (`super::overlay`).
    Overlay {
        /// The vendor tree.
        dir: PathBuf,
        /// The base it is composed on.
        on: Box<KernelArg>,
        /// Its profile file, if not the defaults.
        profile: Option<PathBuf>,
    },
}

impl KernelArg {
    /// How the kernel was named, for messages.
    pub fn label(&self) -> String {
        match self {
            KernelArg::Series(s) => s.clone(),
            KernelArg::Path(p) => p.display().to_string(),
            KernelArg::Overlay { dir, on, .. } => format!("{} on {}", dir.display(), on.label()),
        }
    }

    /// The tree: fetched, opened, or composed on its base.
    pub fn open(&self) -> Result<KernelTree> {
        match self {
            KernelArg::Series(s) => super::fetch::fetch(s),
            KernelArg::Path(p) => KernelTree::open(p),
            KernelArg::Overlay { dir, on, profile } => {
                let base = on.open()?;
                let profile = match profile {
                    Some(p) => super::overlay::Profile::load(p)?,
                    None => super::overlay::Profile::default(),
                };
                super::overlay::compose(&base, dir, &profile)
            }
        }
    }

    /// Whether a directory is shaped like a vendor overlay rather than a
    /// kernel tree: the hfi1 driver without a top-level kernel Makefile.
    pub fn looks_like_overlay(dir: &Path) -> bool {
        dir.join("drivers/infiniband/hw/hfi1/qp.c").is_file() && !dir.join("Makefile").is_file()
    }
}

/// Suite names: the series of each kernel, never a path; a series that
/// appears twice is told apart (`6.12 (tree 2)`), a kernel that could not
/// be opened is `kernel N` unless it was named by series.
pub fn suite_names<'a>(kernels: impl Iterator<Item = (&'a str, &'a KernelArg)>) -> Vec<String> {
    let base: Vec<String> = kernels
        .enumerate()
        .map(|(i, (series, sel))| match (series, sel) {
            ("", KernelArg::Series(s)) => s.clone(),
            ("", _) => format!("kernel {}", i + 1),
            // A vendor tree is named by its directory: never a temporary
            // path, and never mistaken for its base series.
            (s, KernelArg::Overlay { dir, .. }) => format!(
                "{} on {s}",
                dir.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "overlay".into())
            ),
            (s, _) => s.to_owned(),
        })
        .collect();
    base.iter()
        .enumerate()
        .map(|(i, n)| {
            let same = base[..i].iter().filter(|m| *m == n).count();
            if same == 0 {
                n.clone()
            } else {
                format!("{n} (tree {})", same + 1)
            }
        })
        .collect()
}
