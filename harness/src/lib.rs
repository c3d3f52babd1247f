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

// The layers, each using only those listed after it (checked by
// `tests/layers.rs`): commands, judging, reports, the C world, generated
// and hand-written vectors, kernel trees, the sandbox, and the model.
pub mod cmd;
pub mod corpus;
pub mod cworld;
pub mod generate;
pub mod implementation;
pub mod judge;
pub mod kernel;
pub mod report;
pub mod sandbox;
