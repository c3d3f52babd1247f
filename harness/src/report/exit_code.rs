//! The exit codes of every command, named once.

/// Everything judged passed: vectors agree, the patch preserves behaviour
/// (or changes it as it declares), every mutant is killed or accepted.
pub const SUCCESS: u8 = 0;

/// A finding: a disagreement, a snapshot mismatch, a behaviour change, a
/// build the patch breaks, a surviving mutant.
pub const FINDING: u8 = 1;

/// Nothing could be judged, or not all of it: a tree that did not open, a
/// patch that does not apply, a fault of the harness itself, bad usage.
pub const CANNOT_JUDGE: u8 = 2;
