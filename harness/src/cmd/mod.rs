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

use crate::kernel::select::KernelSel;

/// `run` on each kernel in turn, in order. A kernel it fails on is said on
/// stderr (`error: kernel LABEL: …`) and kept as `failed` makes it, so that
/// the report of the kernels that ran is still written, with this one as
/// an error.
pub fn each_kernel<T>(
    kernels: &[KernelSel],
    mut run: impl FnMut(&KernelSel) -> anyhow::Result<T>,
    failed: impl Fn(&KernelSel, &anyhow::Error) -> T,
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
