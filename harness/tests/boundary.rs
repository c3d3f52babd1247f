//! The boundary manifest (c-shim/boundary.toml) says exactly what the C
//! world mocks: every symbol the upstream objects need that a c-shim object
//! defines is listed there with a reason, and nothing else is.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use harness::cworld::build::Manifest;
use harness::cworld::{self, BuildOptions};
use harness::kernel;

fn nm(args: &[&str], obj: &Path) -> BTreeSet<String> {
    let out = Command::new("nm")
        .args(args)
        .arg(obj)
        .output()
        .expect("nm (binutils) runs");
    assert!(out.status.success(), "nm {}: {:?}", obj.display(), out);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last().map(str::to_owned))
        .collect()
}

/// The series under test: `HFI1_KERNELS` (`all`: every pinned one;
/// default 6.12), as the other suites take it.
fn series() -> Vec<String> {
    match std::env::var("HFI1_KERNELS") {
        Ok(k) if k.trim() == "all" => kernel::series(),
        Ok(k) if !k.trim().is_empty() => k.split(',').map(|s| s.trim().to_string()).collect(),
        _ => vec![kernel::DEFAULT_SERIES.to_string()],
    }
}

/// What upstream needs from outside upstream that c-shim provides, in
/// the world of `series`.
fn mocked_in(series: &str) -> BTreeSet<String> {
    let tree = kernel::fetch(series).expect("kernel tree");
    let world = cworld::build(&tree, &BuildOptions::default()).expect("C world");
    let mut needed = BTreeSet::new();
    let mut upstream_defined = BTreeSet::new();
    let mut shim_defined = BTreeSet::new();
    for e in std::fs::read_dir(world.dir.join("obj")).expect("objects") {
        let p = e.expect("entry").path();
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.starts_with("upstream-") {
            needed.extend(nm(&["-u"], &p));
            upstream_defined.extend(nm(&["--defined-only", "-g"], &p));
        } else if name.starts_with("shim-") {
            shim_defined.extend(nm(&["--defined-only", "-g"], &p));
        }
    }
    needed
        .into_iter()
        .filter(|s| !upstream_defined.contains(s) && shim_defined.contains(s))
        .collect()
}

/// Every mock a series' upstream needs is listed; an entry no series
/// needs is stale, checked when every pinned series is under test (a
/// boundary only some trees cross: `sysfs_emit` is 7.3's), unless it says
/// which patches cross it (`patches`), and then no series may need it.
#[test]
fn manifest_lists_exactly_the_mocks_upstream_needs() {
    let manifest = Manifest::load().expect("manifest");
    let under_test = series();
    let mocked: BTreeSet<String> = under_test.iter().flat_map(|s| mocked_in(s)).collect();
    let listed: BTreeSet<String> = manifest
        .mock
        .keys()
        .chain(manifest.world.keys())
        .cloned()
        .collect();
    let unlisted: Vec<_> = mocked.difference(&listed).collect();
    let every = kernel::series().iter().all(|s| under_test.contains(s));
    let for_patches = |s: &String| manifest.mock.get(s).is_some_and(|m| m.patches.is_some());
    let stale: Vec<_> = listed
        .difference(&mocked)
        .filter(|s| every && !for_patches(s))
        .collect();
    // One only patches cross, which a pinned tree crosses after all.
    let crossed: Vec<_> = mocked.iter().filter(|s| for_patches(s)).collect();
    assert!(
        unlisted.is_empty() && stale.is_empty() && crossed.is_empty(),
        "c-shim/boundary.toml is out of date:\n  mocked but not listed: {unlisted:?}\n  \
         listed but not needed: {stale:?}\n  \
         listed as only patches' (`patches`) but a pinned tree needs it: {crossed:?}"
    );
    for (sym, m) in &manifest.mock {
        assert!(!m.why.trim().is_empty(), "{sym}: say why it is a boundary");
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../c-shim")
                .join(&m.file)
                .is_file(),
            "{sym}: {} does not exist",
            m.file
        );
    }
}

#[test]
fn upstream_objects_are_the_trees_own_files() {
    // Nothing of the real include/linux or arch/ is visible to the build:
    // the stage directory only links rdma/ headers.
    let tree = kernel::fetch(kernel::DEFAULT_SERIES).expect("kernel tree");
    let world = cworld::build(&tree, &BuildOptions::default()).expect("C world");
    let stage = world.dir.join("stage");
    let mut seen = vec![];
    for d in ["include", "include/uapi", "uapi"] {
        for e in std::fs::read_dir(stage.join(d)).expect("stage dir") {
            let n = e.expect("entry").file_name().to_string_lossy().into_owned();
            seen.push(format!("{d}/{n}"));
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        vec![
            "include/rdma",
            "include/uapi",
            "include/uapi/rdma",
            "uapi/rdma"
        ]
    );
}

/// kcompat offers every tree all it has; the gate blames a patch for
/// using what the tree's own headers lack (`gate/lacking.rs`). That holds
/// only if upstream itself never does: its hfi1 and rdmavt files, read as
/// if a patch added every line, use nothing their tree lacks, in every
/// series under test.
#[test]
fn upstream_uses_nothing_its_tree_lacks() {
    for s in series() {
        let tree = kernel::fetch(&s).expect("kernel tree");
        let lacks = harness::cmd::gate::lacking_in_tree(&tree.root).expect("index of names");
        assert!(lacks.is_empty(), "{s}: upstream uses {lacks:?}");
    }
}
