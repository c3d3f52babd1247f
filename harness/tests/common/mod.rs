//! Helpers shared by the integration tests.

pub use harness::kernel::copy_tree;
