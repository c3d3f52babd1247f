//! hfi1-conformance: runs the Linux hfi1 driver's queue-pair logic
//! (`drivers/infiniband/hw/hfi1/qp.c`) in userspace and checks it, vector by
//! vector, against an independent Rust model. See ARCHITECTURE.md.

pub mod conformance;
pub mod coverage;
pub mod cworld;
pub mod draw;
pub mod extract;
pub mod ffi;
pub mod generate;
pub mod kernel;
pub mod lock;
pub mod model;
pub mod outcome;
pub mod random;
pub mod report;
pub mod runner;
pub mod sandbox;
pub mod snapshot;
pub mod unreached;
pub mod vector;
pub mod vecwrite;
