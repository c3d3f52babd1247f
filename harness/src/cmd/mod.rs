//! The commands: one module each, every one built from the layers below
//! (`judge`, `report`, `cworld`, `generate`, `corpus`, `kernel`). A
//! command never imports another command.

pub mod conformance;
pub mod coverage;
pub mod gate;
pub mod mutants;
pub mod random;
pub mod sweep;
