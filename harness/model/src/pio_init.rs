//! pio.c's probe and teardown of what the device's send contexts share:
//! the credit return memory, a block of coherent DMA memory per NUMA node
//! with CPUs, where the chip writes each context's returned credits; and
//! the table of send contexts laid out for them.

use super::alloc::{dma_handle, Allocs, ENOMEM, NUMA_NO_NODE};
use super::sc_alloc::{INVALID_SCI, TXE_NUM_CONTEXTS};
use super::types::{Qp, World, MAX_NUMNODES};
use super::{Journal, Undefined};

/// `TXE_NUM_CONTEXTS * sizeof(struct credit_return)` (chip.h, pio.h): a
/// node's credit return block, 160 contexts of 8 __le64.
const CREDIT_RETURN_BYTES: usize = TXE_NUM_CONTEXTS * 64;

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
    init_credit_return_counted(w, qp, &mut Allocs::new(w), j)
}

/// [`init_credit_return`] as one step of a call whose allocations `a`
/// counts (failslab counts a call's, whoever makes them).
fn init_credit_return_counted(w: &World, qp: &mut Qp, a: &mut Allocs, j: &mut Journal) -> i32 {
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

/// An entry of `dd->send_contexts` as [`init_send_contexts`] lays it
/// out (`allocated` 0, `sc` NULL: the table is kcalloc'd).
#[derive(Clone, Copy, Default, PartialEq)]
struct Sci {
    ty: u16,
    base: u16,
    credits: u16,
}

/// Mirrors `init_send_contexts()` (pio.c): the credit return memory
/// ([`init_credit_return`]; its failure returned as is), then
/// `dd->hw_to_sw` (`kmalloc_array`) and `dd->send_contexts` (`kcalloc`
/// of `num_send_contexts`) allocated, both tried; either failing frees
/// both (the pointers left dangling) and the credit return memory,
/// -ENOMEM. Else every hardware context maps to `INVALID_SCI`, and the
/// entries are laid out type by type (`dd->sc_sizes`, pio.h's order), a
/// type's `count` contexts of `size` blocks each, the blocks numbered
/// on from 1 (a `u16`, wrapping). The text is the two tables left in `dd`.
pub fn init_send_contexts(
    w: &World,
    qp: &mut Qp,
    j: &mut Journal,
) -> Result<(i32, String), Undefined> {
    let mut a = Allocs::new(w);
    let ret = init_credit_return_counted(w, qp, &mut a, j);
    if ret != 0 {
        return Ok((ret, "send_contexts=world hw_to_sw=world".into()));
    }
    let hw_ok = a.kmalloc(NUMA_NO_NODE, j);
    let sc_ok = a.kmalloc(NUMA_NO_NODE, j);
    if !hw_ok || !sc_ok {
        for ok in [hw_ok, sc_ok] {
            if ok {
                j.record("kfree".into());
            }
        }
        free_credit_return(w, qp, j);
        let left = |ok| if ok { "freed" } else { "NULL" };
        return Ok((
            -ENOMEM,
            format!("send_contexts={} hw_to_sw={}", left(sc_ok), left(hw_ok)),
        ));
    }
    let mut t = vec![Sci::default(); usize::from(w.num_send_contexts)];
    let (mut context, mut base) = (0usize, 1u16);
    for (ty, (&count, &size)) in w.sc_size_count.iter().zip(&w.sc_size_blocks).enumerate() {
        for _ in 0..(count as i16).max(0) {
            let n = t.len();
            *t.get_mut(context).ok_or_else(|| {
                Undefined(format!(
                    "init_send_contexts() writes dd->send_contexts[{context}], past its {n} entries (the sizes' counts add up to more than num_send_contexts)"
                ))
            })? = Sci {
                ty: ty as u16,
                base,
                credits: size,
            };
            context += 1;
            base = base.wrapping_add(size);
        }
    }
    Ok((0, describe_tables(&t)))
}

/// The tables [`init_send_contexts`] laid out, as `shim_put_sci()` and
/// `shim_put_hw_to_sw()` write them: the entries in runs (alike, each
/// starting where the one before ends), `dd->hw_to_sw` all `INVALID_SCI`.
fn describe_tables(t: &[Sci]) -> String {
    let mut s = format!("send_contexts={} entries:", t.len());
    let mut i = 0;
    while i < t.len() {
        let mut k = i + 1;
        while k < t.len()
            && t[k].ty == t[k - 1].ty
            && t[k].credits == t[k - 1].credits
            && t[k].base == t[k - 1].base.wrapping_add(t[k - 1].credits)
        {
            k += 1;
        }
        s += &format!(
            " [{i}-{}] type={} base={} credits={}",
            k - 1,
            t[i].ty,
            t[i].base,
            t[i].credits
        );
        i = k;
    }
    s + &format!(
        " hw_to_sw={TXE_NUM_CONTEXTS} entries: [0-{}]={INVALID_SCI}",
        TXE_NUM_CONTEXTS - 1
    )
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

impl crate::Mirror for super::types::args::InitSendContexts {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (ret, text) = init_send_contexts(cx.w, cx.qp.to_mut(), &mut cx.j)?;
        cx.out.ret = ret;
        cx.out.text = text;
        Ok(())
    }
}
