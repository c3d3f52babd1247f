//! Judging runs: C against the model (`check`), C against C (`compare`),
//! upstream against its snapshots (`snapshot`), what a corpus reaches
//! (`coverage`), mutants made and judged (`mutate`), and the one shrink
//! loop findings are minimised with.

pub mod boundaries;
pub mod check;
pub mod compare;
pub mod coverage;
pub mod mcdc;
pub mod mutate;
pub mod scope;
pub mod shrink;
pub mod snapshot;
