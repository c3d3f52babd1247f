//! The allocations of one call as the kernel's failslab sees them: each
//! kmalloc-family or coherent DMA allocation counted, the n-th failing
//! where the world says (`alloc_fail`, bit n), each journalled as the C
//! world's allocation mock does.

use super::types::World;
use super::Journal;

/// `-ENOMEM`.
pub const ENOMEM: i32 = 12;

/// `NUMA_NO_NODE`: no node asked for (plain `kmalloc`, `kcalloc`).
pub const NUMA_NO_NODE: i32 = -1;

/// Allocations of one call, failing where the world says.
pub(crate) struct Allocs<'a> {
    w: &'a World,
    n: u32,
}

impl<'a> Allocs<'a> {
    /// None made yet.
    pub(crate) fn new(w: &'a World) -> Self {
        Allocs { w, n: 0 }
    }

    /// The next allocation fails.
    fn fails(&mut self) -> bool {
        let fail = self.w.alloc_fail & (1 << (self.n & 63)) != 0;
        self.n += 1;
        fail
    }

    /// A kmalloc-family allocation on `node`: whether it succeeded.
    pub(crate) fn kmalloc(&mut self, node: i32, j: &mut Journal) -> bool {
        let fail = self.fails();
        j.record(format!(
            "kmalloc(node={node}){}",
            if fail { " = NULL" } else { "" }
        ));
        !fail
    }

    /// `alloc_percpu()`: the world's one CPU's object, counted and
    /// journalled as a kmalloc is; whether it succeeded.
    pub(crate) fn alloc_percpu(&mut self, j: &mut Journal) -> bool {
        let fail = self.fails();
        j.record(format!(
            "alloc_percpu(){}",
            if fail { " = NULL" } else { "" }
        ));
        !fail
    }

    /// `dma_alloc_coherent()` of `size` bytes on the device's node `node`:
    /// whether it succeeded.
    pub(crate) fn dma_alloc_coherent(&mut self, node: i32, size: usize, j: &mut Journal) -> bool {
        let fail = self.fails();
        j.record(format!(
            "dma_alloc_coherent(node={node}, {size}){}",
            if fail { " = NULL" } else { "" }
        ));
        !fail
    }
}

/// The bus address the world gives coherent DMA memory of `size` bytes on
/// `node`, by node and size
/// (symbolic: `c-shim/world.h`'s `shim_dma_handle()`).
pub(crate) fn dma_handle(node: i32, size: u64) -> u64 {
    (((node + 1) as u64) << 32).wrapping_add(size << 12)
}
