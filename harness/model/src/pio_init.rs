//! pio.c's probe and teardown of what the device's send contexts share:
//! the credit return memory, a block of coherent DMA memory per NUMA node
//! with CPUs, where the chip writes each context's returned credits.

use super::alloc::{dma_handle, Allocs, ENOMEM, NUMA_NO_NODE};
use super::types::{Qp, World, MAX_NUMNODES};
use super::{Journal, Undefined};

/// `TXE_NUM_CONTEXTS * sizeof(struct credit_return)` (chip.h, pio.h): a
/// node's credit return block, 160 contexts of 8 __le64.
const CREDIT_RETURN_BYTES: usize = 160 * 64;

/// `for_each_node_with_cpus()`: the online nodes with CPUs, in order; the
/// device's node is online, with CPUs when `node_cpus` has any.
fn nodes_with_cpus(w: &World) -> impl Iterator<Item = i32> + '_ {
    (0..i32::from(MAX_NUMNODES)).filter(move |&n| {
        if n == w.node {
            w.node_cpus.0 != 0
        } else {
            w.online_nodes & (1 << n) != 0 && w.cpu_nodes & (1 << n) != 0
        }
    })
}

/// Mirrors `init_credit_return()` (pio.c): `dd->cr_base`, one entry per
/// possible node, allocated (`kcalloc`, no node: -ENOMEM when it fails);
/// then for each node with CPUs, the device moved to that node
/// (`set_dev_node`) and its block of coherent DMA memory allocated there;
/// one failing moves the device back to its node and frees everything
/// ([`free_credit_return`]), -ENOMEM; else the device back to its node, 0.
pub fn init_credit_return(w: &World, qp: &mut Qp, j: &mut Journal) -> i32 {
    let mut a = Allocs::new(w);
    if !a.kmalloc(NUMA_NO_NODE, j) {
        qp.cr_base = false;
        qp.cr_va = 0;
        return -ENOMEM;
    }
    qp.cr_base = true;
    qp.cr_va = 0;
    for n in nodes_with_cpus(w) {
        qp.dev_node = n;
        if !a.dma_alloc_coherent(n, CREDIT_RETURN_BYTES, j) {
            qp.dev_node = w.node;
            free_credit_return(w, qp, j);
            return -ENOMEM;
        }
        qp.cr_va |= 1 << n;
    }
    qp.dev_node = w.node;
    0
}

/// Mirrors `free_credit_return()` (pio.c): with `dd->cr_base`, each
/// possible node's block that is allocated freed (`dma_free_coherent`,
/// its bus address), then `cr_base` freed and NULL; without, nothing.
pub fn free_credit_return(w: &World, qp: &mut Qp, j: &mut Journal) {
    if !qp.cr_base {
        return;
    }
    for n in 0..i32::from(w.possible_nodes) {
        if n < i32::from(MAX_NUMNODES) && qp.cr_va & (1 << n) != 0 {
            j.record(format!(
                "dma_free_coherent({CREDIT_RETURN_BYTES}, 0x{:x})",
                dma_handle(n)
            ));
        }
    }
    j.record("kfree".into());
    qp.cr_base = false;
    qp.cr_va = 0;
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::InitCreditReturn {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.ret = init_credit_return(cx.w, cx.qp.to_mut(), &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::FreeCreditReturn {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        free_credit_return(cx.w, cx.qp.to_mut(), &mut cx.j);
        Ok(())
    }
}
