//! hfi1-conformance: runs the Linux hfi1 driver's queue-pair logic
//! (`drivers/infiniband/hw/hfi1/qp.c`) in userspace and checks it, vector by
//! vector, against an independent Rust model. See ARCHITECTURE.md.

/// A path of the project (`vectors`, `snapshots`, `c-shim`, `target/…`),
/// absolute and without `..`: reports and the sandbox see it as it is.
pub fn project_path(rel: &str) -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::canonicalize(&root).unwrap_or(root).join(rel)
}

/// The model and the call/outcome vocabulary: the `hfi1-model` crate.
pub use hfi1_model as model;
pub use hfi1_model::outcome;

pub mod compare;
pub mod conformance;
pub mod coverage;
pub mod cworld;
pub mod draw;
pub mod extract;
pub mod ffi;
pub mod gate;
pub mod generate;
pub mod implementation;
pub mod kbuild;
pub mod kernel;
pub mod lock;
pub mod mutants;
pub mod random;
pub mod report;
pub mod runner;
pub mod sandbox;
pub mod snapshot;
pub mod sweep;
pub mod unreached;
pub mod vector;
pub mod vecwrite;
