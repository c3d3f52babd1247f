//! Kernel trees: where upstream code comes from.
//!
//! A tree is any directory laid out like the root of a Linux source tree (a
//! git checkout, an extracted kernel.org tarball, a patched copy, or the
//! part of Debian's `linux-source-SERIES` package this module extracts).
//! Only the files listed in [`REQUIRED_FILES`] and the header directories
//! next to them are ever read.
//!
//! The layer, by job:
//!
//! - `tree`: a tree on disk ([`KernelTree`]), opened, verified and read
//!   safely; `version`: its version and the order of series;
//! - `spec`: a kernel as a user names it ([`KernelSpec`]), and [`pins`]:
//!   the exact version each series stands for;
//! - `fetch`: the tree a name stands for, from the cache or Debian
//!   ([`fetch`]), with `apt` (the project's own apt configuration) and
//!   `deb` (unpacking the package);
//! - `cache`: where all of it is kept ([`cache_dir`]), and [`cache_lock`]
//!   so that processes sharing it fetch or build a thing once;
//! - [`select`]: kernels as the command line names them; [`overlay`]:
//!   vendor trees on a base;
//! - [`kbuild`]: the warning flags a tree's Makefiles give C code, and
//!   [`cscan`]: definitions taken from upstream files;
//! - [`git`]: the commit a tree that is a git clone has checked out;
//!   [`names`]: what the tree's generic headers declare, which the harness
//!   stands in for.

mod apt;
mod cache;
pub mod cache_lock;
pub mod cond;
pub mod cscan;
mod deb;
mod fetch;
pub mod git;
pub mod kbuild;
pub mod names;
pub mod overlay;
pub mod patch;
pub mod pins;
pub mod select;
mod spec;
mod tree;
mod version;

pub use cache::{cache_dir, with_cache_hint};
pub use deb::extracted;
pub use fetch::{fetch, fetch_version, published, update, Published};
pub use pins::series;
pub use spec::{KernelSpec, DEFAULT_SERIES};
pub use tree::{
    copy_tree, read_tree_file, read_tree_file_up_to, read_tree_text, KernelTree, MAX_TREE_FILE,
    REQUIRED_FILES,
};
pub use version::{parse_makefile_version, series_order, KernelVersion};

/// Progress lines go to stderr, so stdout stays machine-readable.
pub(crate) fn progress(msg: &str) {
    eprintln!("[kernel] {msg}");
}
