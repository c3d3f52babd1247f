//! The trees of a judged patch as reports record them: the tree before it
//! (the base with the patches before it) and after it, each with its
//! patches (named and hashed as KCIDB's patchsets are) and its world's
//! build: built, failed (`breaks-build`), not built (`not-judged` without
//! a build, or the harness could not), or not tried.

use super::verdict::PatchVerdict;
use super::Judged;
use crate::cworld::{build::recipe, BuildOptions, BuiltWorld};
use crate::kernel::patch::Patch;
use crate::kernel::KernelTree;
use crate::report::{BuildStatus, PatchFile, Tree};

/// The base tree as the `before` of the first patch: its world built
/// (`prev`), or why not.
pub(super) fn base(name: &str, tree: &KernelTree, prev: &Result<BuiltWorld, String>) -> Tree {
    let (status, error) = match prev {
        Ok(_) => (BuildStatus::Built, None),
        Err(e) => (BuildStatus::Error, Some(e.clone())),
    };
    let opts = BuildOptions::default();
    crate::cmd::tree_record("before", name, tree, &opts, status, error)
}

/// What became of patch `k`'s tree, known once it is judged.
pub(super) struct After<'a> {
    /// The base as reports name it.
    pub base: &'a str,
    /// The base tree (its package and git commit are the patched tree's
    /// too).
    pub base_tree: &'a KernelTree,
    /// The series; patch `k` (from 0) was judged.
    pub patches: &'a [Patch],
    pub k: usize,
    /// Whether an earlier patch left nothing to apply it to.
    pub blocked: bool,
    /// The patched tree (the series' copy of the base, patch `k` applied
    /// when it applied).
    pub dir: &'a std::path::Path,
    /// The world the series holds after patch `k`.
    pub world: Option<&'a BuiltWorld>,
}

impl After<'_> {
    /// `before` (the tree the patch was applied to) and the tree after
    /// patch `k`.
    pub(super) fn trees(&self, j: &Judged, before: &Tree) -> Vec<Tree> {
        let patches: Vec<PatchFile> = self.patches[..=self.k]
            .iter()
            .enumerate()
            .map(|(i, p)| PatchFile::new(i + 1, &p.subject, &p.text))
            .collect();
        let kernel = format!("{} + {} patch(es)", self.base, patches.len());
        let before = Tree {
            role: "before".into(),
            ..before.clone()
        };
        let unmade = Tree {
            role: "after".into(),
            kernel: kernel.clone(),
            version: self.base_tree.version.to_string(),
            package: self.base_tree.package.clone(),
            git_commit: before.git_commit.clone(),
            git_url: before.git_url.clone(),
            patches: patches.clone(),
            ..Default::default()
        };
        let applied = !matches!(j.verdict, PatchVerdict::DoesNotApply(_));
        let tree = KernelTree::open(self.dir).ok();
        let after = match (self.blocked, applied, tree) {
            (true, _, _) => unmade,
            (false, false, _) | (false, true, None) => Tree {
                valid: Some(false),
                ..unmade
            },
            (false, true, Some(mut tree)) => {
                tree.package = self.base_tree.package.clone();
                let (status, error) = self.build_end(j, &tree);
                let opts = BuildOptions::default();
                let mut t = crate::cmd::tree_record("after", &kernel, &tree, &opts, status, error);
                t.git_commit = before.git_commit.clone();
                t.git_url = before.git_url.clone();
                t.patches = patches;
                t
            }
        };
        vec![before, after]
    }

    /// How the build of the patched tree ended: built when the series
    /// holds its world, failed when the patch breaks the build, not built
    /// by the harness when it could not judge, else not needed.
    fn build_end(&self, j: &Judged, tree: &KernelTree) -> (BuildStatus, Option<String>) {
        let key = recipe(tree, &BuildOptions::default()).key;
        let held = self.world.is_some_and(|w| {
            let name = w.dir.file_name().map(|n| n.to_string_lossy().into_owned());
            !key.is_empty() && name.is_some_and(|n| n.ends_with(&format!("-{key}")))
        });
        match &j.verdict {
            _ if held => (BuildStatus::Built, None),
            PatchVerdict::BreaksBuild(m) => (BuildStatus::Failed, Some(m.clone())),
            PatchVerdict::CannotJudge(m) => (BuildStatus::Error, Some(m.clone())),
            _ => (BuildStatus::NotBuilt, None),
        }
    }
}
