//! The commands: one module each, every one built from the layers below
//! (`judge`, `report`, `cworld`, `generate`, `corpus`, `kernel`). A
//! command never imports another command; what two of them share is here
//! ([`each_kernel`]) or a layer below.

pub mod bench;
pub mod conformance;
pub mod coverage;
pub mod gate;
pub mod mutants;
pub mod random;
pub mod sweep;

use crate::kernel::select::KernelArg;

/// `run` on each kernel in turn, in order. A kernel it fails on is said on
/// stderr (`error: kernel LABEL: …`) and kept as `failed` makes it, so that
/// the report of the kernels that ran is still written, with this one as
/// an error.
pub fn each_kernel<T>(
    kernels: &[KernelArg],
    mut run: impl FnMut(&KernelArg) -> anyhow::Result<T>,
    failed: impl Fn(&KernelArg, &anyhow::Error) -> T,
) -> Vec<T> {
    kernels
        .iter()
        .map(|k| {
            run(k).unwrap_or_else(|e| {
                eprintln!("error: kernel {}: {e:#}", k.label());
                failed(k, &e)
            })
        })
        .collect()
}
