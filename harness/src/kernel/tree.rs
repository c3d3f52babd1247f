//! A kernel tree on disk: what it must hold, opening and verifying it,
//! reading its files safely, and the flags its own Makefiles give C code.

use fs_err as fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::kbuild;
use super::version::{parse_makefile_version, KernelVersion};

/// Files a tree must have, relative to its root.
pub const REQUIRED_FILES: &[&str] = &[
    "Makefile",
    "drivers/infiniband/hw/hfi1/qp.c",
    "drivers/infiniband/hw/hfi1/qp.h",
    "drivers/infiniband/hw/hfi1/hfi.h",
    "drivers/infiniband/hw/hfi1/iowait.c",
    "drivers/infiniband/hw/hfi1/sdma.c",
    "drivers/infiniband/hw/hfi1/pio.c",
    "drivers/infiniband/hw/hfi1/verbs.c",
    "drivers/infiniband/hw/hfi1/driver.c",
    "drivers/infiniband/sw/rdmavt/qp.c",
    "include/rdma/rdma_vt.h",
    "include/rdma/rdmavt_qp.h",
    "include/rdma/ib_verbs.h",
    "include/uapi/rdma/ib_user_verbs.h",
];

/// The largest file of a tree the harness reads itself (outside the
/// sandbox): far more than any upstream C file needs.
pub const MAX_TREE_FILE: u64 = 16 << 20;

/// Reads a file of the tree at `root` on the harness's side, where the
/// sandbox does not hold: only a regular file inside the tree (a symlink
/// must resolve inside it), of at most [`MAX_TREE_FILE`] bytes. A FIFO, a
/// device or a link to `/etc/shadow` in a tree someone sent is refused with
/// its name, never read.
pub fn read_tree_file(root: &Path, path: &Path) -> Result<Vec<u8>> {
    read_tree_file_up_to(root, path, MAX_TREE_FILE)
}

/// [`read_tree_file`] with a bound of `max` bytes of its own (an index the
/// harness wrote, larger than any upstream file).
pub fn read_tree_file_up_to(root: &Path, path: &Path, max: u64) -> Result<Vec<u8>> {
    let real =
        fs::canonicalize(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_owned());
    if !real.starts_with(&root) {
        bail!(
            "{} leads outside the tree (to {}): refused",
            path.display(),
            real.display()
        );
    }
    let meta = fs::metadata(&real).with_context(|| format!("{}: cannot open", path.display()))?;
    if !meta.is_file() {
        bail!("{} is not a regular file: refused", path.display());
    }
    if meta.len() > max {
        bail!(
            "{} has {} bytes, more than any upstream file ({max}): refused",
            path.display(),
            meta.len()
        );
    }
    let mut f = fs::File::open(&real).with_context(|| format!("opening {}", path.display()))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    (&mut f)
        .take(max + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    Ok(bytes)
}

/// [`read_tree_file`] as text.
pub fn read_tree_text(root: &Path, path: &Path) -> Result<String> {
    String::from_utf8(read_tree_file(root, path)?)
        .with_context(|| format!("{} is not UTF-8 text", path.display()))
}

/// A verified kernel tree.
#[derive(Debug, Clone)]
pub struct KernelTree {
    /// Its root directory, canonical.
    pub root: PathBuf,
    /// The version its top Makefile names.
    pub version: KernelVersion,
    /// The Debian package version it was extracted from
    /// (`6.12.117-1~deb12u1`), for a fetched tree.
    pub package: Option<String>,
    /// For a vendor overlay composed on a base ([`overlay::compose`]): its
    /// include directories, force-included headers and macros.
    pub overlay: Option<OverlayFlags>,
}

impl KernelTree {
    /// Opens and verifies a tree: every required file exists and the top
    /// Makefile names a version.
    pub fn open(root: &Path) -> Result<KernelTree> {
        let root = fs::canonicalize(root)
            .with_context(|| format!("kernel tree {}: no such directory", root.display()))?;
        if !root.is_dir() {
            bail!("kernel tree {}: not a directory", root.display());
        }
        for f in REQUIRED_FILES {
            let p = root.join(f);
            let inside = fs::canonicalize(&p).is_ok_and(|r| r.starts_with(&root));
            if !p.is_file() || !inside {
                if *f == "Makefile" && root.join("drivers/infiniband/hw/hfi1/qp.c").is_file() {
                    bail!(
                        "{} has an hfi1 driver but no top-level kernel Makefile: a vendor tree \
                         (such as opa-hfi1) is an overlay on a kernel; pass it as \
                         `--overlay {} --on SERIES` (or to `cargo xtask diff` as is, with --on)",
                        root.display(),
                        root.display()
                    );
                }
                bail!(
                    "{} is not a usable kernel tree: missing {}\n\
                     (pass the root of a Linux source tree, the directory holding its top Makefile)",
                    root.display(),
                    p.display()
                );
            }
        }
        let makefile = root.join("Makefile");
        let text = read_tree_text(&root, &makefile)?;
        let version = parse_makefile_version(&text)
            .with_context(|| format!("{}: not a kernel Makefile", makefile.display()))?;
        Ok(KernelTree {
            root,
            version,
            package: None,
            overlay: None,
        })
    }

    /// The path of `rel` (relative to the root) in this tree.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// A file of this tree, read safely ([`read_tree_text`]).
    pub fn read_to_string(&self, path: &Path) -> Result<String> {
        read_tree_text(&self.root, path)
    }

    /// The flags of the tree's top Makefile that change the meaning of C
    /// code (for example `-funsigned-char`, added in 6.2).
    ///
    /// `-ftrivial-auto-var-init=pattern` is the Makefile's under
    /// `CONFIG_INIT_STACK_ALL_PATTERN`, the kernel's option for finding
    /// locals read before they are written: such a read gives the same
    /// value alone as in a batch (what the stack held, without it, no run
    /// can reproduce), and a value no correct code relies on (Debian's
    /// kernels zero them instead, `CONFIG_INIT_STACK_ALL_ZERO`, which
    /// would hide a patch's dropped initialisation).
    pub fn semantic_cflags(&self) -> Result<Vec<String>> {
        let text = self.read_to_string(&self.root.join("Makefile"))?;
        let mut flags = vec![];
        for f in [
            "-funsigned-char",
            "-fno-strict-overflow",
            "-fno-delete-null-pointer-checks",
            "-fno-strict-aliasing",
            "-ftrivial-auto-var-init=pattern",
        ] {
            if text.contains(f) {
                flags.push(f.to_owned());
            }
        }
        Ok(flags)
    }

    /// The warning flags the tree's own kbuild compiles C code with
    /// ([`kbuild::warning_flags`]).
    pub fn warning_cflags(&self) -> Result<Vec<String>> {
        let top = self.read_to_string(&self.root.join("Makefile"))?;
        let mut extrawarn = None;
        for f in kbuild::WARN_FILES {
            let x = self.root.join("scripts").join(f);
            if x.exists() {
                extrawarn = Some(self.read_to_string(&x)?);
            }
        }
        Ok(kbuild::warning_flags(&top, extrawarn.as_deref()))
    }
}

/// Copies a tree (regular files and directories; links are not followed,
/// so a tree's link out of itself is not copied as what it points at).
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for e in fs::read_dir(from)? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let t = e.file_type()?;
        if t.is_dir() {
            copy_tree(&src, &dst)?;
        } else if t.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&src)?, &dst)?;
        } else if t.is_file() {
            fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// The compiler's view of an overlay, once composed: absolute paths
/// inside the composed tree.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OverlayFlags {
    /// The overlay, as the user named it.
    pub source: PathBuf,
    /// Its header directories, searched before the base's.
    pub include: Vec<PathBuf>,
    /// Its headers force-included in every unit.
    pub force_include: Vec<PathBuf>,
    /// `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_without_qp_c_is_named() {
        let dir = std::env::temp_dir().join(format!("hfi1-notree-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("tmp");
        fs::write(
            dir.join("Makefile"),
            "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n",
        )
        .expect("write");
        let e = KernelTree::open(&dir).expect_err("not a tree");
        assert!(
            e.to_string().contains("missing") && e.to_string().contains("hfi1/qp.c"),
            "{e}"
        );
        let _ = fs::remove_dir_all(&dir);
    }
}
