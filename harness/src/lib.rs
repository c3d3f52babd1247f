//! hfi1-conformance: runs the Linux hfi1 driver's queue-pair logic
//! (`drivers/infiniband/hw/hfi1/qp.c`) in userspace and checks it, vector by
//! vector, against an independent Rust model. See ARCHITECTURE.md.

/// A path of the project (`vectors`, `snapshots`, `c-shim`, `target/…`),
/// absolute and without `..`: reports and the sandbox see it as it is.
pub fn project_path(rel: &str) -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    canonical(&root).unwrap_or(root).join(rel)
}

/// `p` made absolute, its links and `..` resolved ([`std::fs::canonicalize`]),
/// or `None` when it does not exist. A path that exists is resolved once
/// per process: reports and snapshot matching ask about the same few
/// vector files thousands of times in a corpus run.
pub fn canonical(p: &std::path::Path) -> Option<std::path::PathBuf> {
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    static KNOWN: std::sync::Mutex<BTreeMap<PathBuf, PathBuf>> =
        std::sync::Mutex::new(BTreeMap::new());
    let known = || {
        KNOWN
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if let Some(c) = known().get(p) {
        return Some(c.clone());
    }
    let c = std::fs::canonicalize(p).ok()?;
    known().insert(p.to_owned(), c.clone());
    Some(c)
}

/// The model and the call/outcome vocabulary: the `hfi1-model` crate.
pub use hfi1_model as model;
pub use hfi1_model::outcome;

// The layers, top to bottom: a module uses only the layers after its own
// (checked by `tests/layers.rs`, whose LAYERS list is this order).

/// The commands, one module each.
pub mod cmd;

/// Judging runs: C against the model, C against C, snapshots, coverage.
pub mod judge;

/// The one report model, its writers and the exit codes.
pub mod report;

/// C worlds: build, cache, the ABI, the worker.
pub mod cworld;

/// Generated vectors.
pub mod generate;

/// Vector files and the invariants every vector keeps.
pub mod corpus;

/// Kernel trees.
pub mod kernel;

/// The sandbox every step that touches a tree runs in.
pub mod sandbox;

/// The implementation upstream is judged against.
pub mod implementation;
