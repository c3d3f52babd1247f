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
                dma_handle(n, CREDIT_RETURN_BYTES as u64)
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

/// pio.c's `NUM_SC_POOLS`: the send context memory pools.
const NUM_SC_POOLS: usize = 2;

/// pio.h's `INIT_SC_PER_VL`: the kernel's send contexts per VL.
const INIT_SC_PER_VL: u32 = 2;

/// pio.c's count wildcards `SCC_PER_CPU` (the user contexts) and the
/// ceiling of `piothreshold` it sizes kernel contexts by.
const SCC_PER_CPU: i32 = -2;
const PIO_THRESHOLD_CEILING: u16 = 4096;

/// pio.c's static configuration of the send contexts as a call finds it:
/// `sc_config_sizes[t]` (size, count) of each type and
/// `sc_mem_pool_config[p]` (centipercent, absolute blocks) of each pool.
#[derive(Clone, Copy, PartialEq)]
struct ScConfig {
    size: [i16; 4],
    count: [i16; 4],
    centipercent: [i32; NUM_SC_POOLS],
    absolute_blocks: [i32; NUM_SC_POOLS],
}

impl ScConfig {
    /// The world's (`sc_config_set`), or upstream's initializers: each
    /// type's size a pool wildcard (`SCS_POOL_0`, -1) but VL15's
    /// (`SCS_VL15_CREDITS`, 102) and ack's (`SCS_ACK_CREDITS`, 32), its
    /// count `SCC_PER_VL` (-1), 1, `SCC_PER_KRCVQ` (-3), `SCC_PER_CPU`
    /// (-2); all the memory in pool 0 (10000 centipercent), no absolute
    /// blocks (-1).
    fn of(w: &World) -> ScConfig {
        if !w.sc_config_set {
            return ScConfig {
                size: [-1, 102, 32, -1],
                count: [-1, 1, -3, -2],
                centipercent: [10000, 0],
                absolute_blocks: [-1, -1],
            };
        }
        ScConfig {
            size: w.sc_config_size.map(|v| v as i16),
            count: w.sc_config_count.map(|v| v as i16),
            centipercent: w.sc_pool_centipercent.map(|v| i32::from(v as i16)),
            absolute_blocks: w.sc_pool_blocks.map(|v| i32::from(v as i16)),
        }
    }
}

/// A pool's sizing in `init_sc_pools_and_sizes()` (`struct
/// mem_pool_info`).
#[derive(Clone, Copy, Default)]
struct PoolInfo {
    centipercent: i32,
    count: i32,
    blocks: i32,
    size: i32,
}

/// Mirrors the static `wildcard_to_pool()` (pio.c): a size wildcard's
/// pool (-1 is pool 0, -2 pool 1, ...), -1 for a size that is not one.
fn wildcard_to_pool(wc: i32) -> i32 {
    if wc >= 0 {
        return -1;
    }
    -wc - 1
}

/// Mirrors `init_sc_pools_and_sizes()` (pio.c): the PIO memory's blocks
/// (`SEND_PIO_MEM_SIZE` / 64, less one); with `HFI1_CAP_SDMA`, the
/// kernel type's configured size set to three packets of `piothreshold`
/// (at most 4096) and 128 bytes, in blocks. Step 0: the pools, each
/// counted by centipercent when that is not negative, else by absolute
/// blocks, else -EINVAL; mixing the two, centipercents not adding up to
/// 10000, or absolute blocks past the memory: -EINVAL. Step 2: each
/// type's count (ack: `n_krcv_queues`; kernel: two per VL; a count of
/// `SCC_PER_CPU`: the receive contexts not the kernel's; another negative
/// one: -EINVAL) cut to the chip's contexts left, and its size: a fixed
/// one adds up, a pool wildcard counts the type's contexts in its pool,
/// another -EINVAL; both written to `dd->sc_sizes` as they go. Fixed
/// blocks past the memory, or the absolute blocks past what they leave:
/// -EINVAL. Step 3: each pool's blocks (its share of what is left) and
/// its contexts' size (-EINVAL for contexts without blocks). Step 4: each
/// wildcard size replaced by its pool's, at most 1024. The contexts'
/// total. The text is `dd->sc_sizes` and what the call changed of the
/// configuration.
pub fn init_sc_pools_and_sizes(w: &World, j: &mut Journal) -> Result<(i32, String), Undefined> {
    let mut cfg = ScConfig::of(w);
    let given = cfg;
    let mut sizes: [(i16, i16); 4] =
        std::array::from_fn(|t| (w.sc_size_count[t] as i16, w.sc_size_blocks[t] as i16));
    let ret = pools_and_sizes(w, &mut cfg, &mut sizes, j)?.unwrap_or_else(|e| e);
    Ok((ret, describe_sizes(&sizes, &given, &cfg)))
}

/// `-EINVAL`, what [`init_sc_pools_and_sizes`] returns for a
/// configuration that does not fit.
const EINVAL: i32 = 22;

/// [`init_sc_pools_and_sizes`]'s steps, on the configuration and
/// `dd->sc_sizes` they write: `Err(-EINVAL)` where one gives up.
fn pools_and_sizes(
    w: &World,
    cfg: &mut ScConfig,
    sizes: &mut [(i16, i16); 4],
    j: &mut Journal,
) -> Result<Result<i32, i32>, Undefined> {
    j.read_csr(format_args!("SEND_PIO_MEM_SIZE"));
    // u32 arithmetic (chip_pio_mem_size() is a u32), then an int.
    let total_blocks = (w.pio_mem_size / 64).wrapping_sub(1) as i32;
    if w.cap_sdma {
        let max_pkt_size = w.piothreshold.min(PIO_THRESHOLD_CEILING);
        cfg.size[0] = (3 * (i32::from(max_pkt_size) + 128) / 64) as i16;
    }
    let mut pools = [PoolInfo::default(); NUM_SC_POOLS];
    let Some(ab_total) = pool_totals(cfg, &mut pools, total_blocks) else {
        return Ok(Err(-EINVAL));
    };
    let Some((total_contexts, fixed_blocks)) = type_counts(w, cfg, &mut pools, sizes, j)? else {
        return Ok(Err(-EINVAL));
    };
    // Step 3: the pools' blocks and their contexts' size.
    if fixed_blocks > total_blocks {
        return Ok(Err(-EINVAL));
    }
    let mut pool_blocks = total_blocks - fixed_blocks;
    if ab_total > pool_blocks {
        return Ok(Err(-EINVAL));
    }
    pool_blocks -= ab_total;
    for pi in &mut pools {
        if pi.centipercent >= 0 {
            pi.blocks = pool_blocks.checked_mul(pi.centipercent).ok_or_else(|| {
                Undefined(
                    "init_sc_pools_and_sizes(): pool_blocks * centipercent overflows int".into(),
                )
            })? / 10000;
        }
        if pi.blocks == 0 && pi.count != 0 {
            return Ok(Err(-EINVAL));
        }
        pi.size = if pi.count == 0 {
            0
        } else {
            pi.blocks / pi.count
        };
    }
    // Step 4: each wildcard size its pool's (a short), at most 1024.
    for (_, size) in sizes.iter_mut() {
        if *size < 0 {
            let pool = wildcard_to_pool(i32::from(*size)) as u32;
            if pool as usize >= NUM_SC_POOLS {
                j.record("WARN(pool >= NUM_SC_POOLS)".into());
            }
            *size = pools
                .get(pool as usize)
                .ok_or_else(|| {
                    Undefined(format!(
                        "mem_pool_info[{pool}] is read past its {NUM_SC_POOLS} pools"
                    ))
                })?
                .size as i16;
        }
        *size = (*size).min(1024);
    }
    Ok(Ok(total_contexts))
}

/// Step 0 of [`init_sc_pools_and_sizes`]: each pool counted by its
/// centipercent when that is not negative, else by its absolute blocks
/// (neither: `None`, -EINVAL); then no mixing of the two, centipercents
/// adding up to 10000 when there are any, absolute blocks within the
/// memory (else `None`). The absolute blocks' total.
fn pool_totals(cfg: &ScConfig, pools: &mut [PoolInfo], total_blocks: i32) -> Option<i32> {
    let (mut cp_total, mut ab_total) = (0i32, 0i32);
    for (i, pi) in pools.iter_mut().enumerate() {
        let (cp, ab) = (cfg.centipercent[i], cfg.absolute_blocks[i]);
        if cp >= 0 {
            cp_total += cp;
        } else if ab >= 0 {
            ab_total += ab;
        } else {
            return None;
        }
        pi.centipercent = cp;
        pi.blocks = ab;
    }
    if cp_total != 0 && ab_total != 0 {
        return None;
    }
    if cp_total != 0 && cp_total != 10000 {
        return None;
    }
    if ab_total > total_blocks {
        return None;
    }
    Some(ab_total)
}

/// Step 2 of [`init_sc_pools_and_sizes`]: each type's count (ack:
/// `n_krcv_queues`; kernel: two a VL; `SCC_PER_CPU`: the receive contexts
/// not the kernel's; another negative one: `None`, -EINVAL) cut to the
/// chip's contexts left; its size fixed (added up) or a pool's (counted
/// in the pool; past the pools: `None`); both written to `dd->sc_sizes`.
/// The contexts' total and the fixed blocks'.
fn type_counts(
    w: &World,
    cfg: &ScConfig,
    pools: &mut [PoolInfo],
    sizes: &mut [(i16, i16); 4],
    j: &mut Journal,
) -> Result<Option<(i32, i32)>, Undefined> {
    let (mut total_contexts, mut fixed_blocks) = (0i32, 0i32);
    for (t, entry) in sizes.iter_mut().enumerate() {
        let mut count = i32::from(cfg.count[t]);
        let size = i32::from(cfg.size[t]);
        if t == 2 {
            count = i32::from(w.n_krcv_queues);
        } else if t == 0 {
            count = INIT_SC_PER_VL.wrapping_mul(w.num_vls) as i32;
        } else if count == SCC_PER_CPU {
            count = u32::from(w.num_rcv_contexts).wrapping_sub(u32::from(w.n_krcv_queues)) as i32;
        } else if count < 0 {
            return Ok(None);
        }
        // An int against chip_send_contexts()'s u32: compared unsigned.
        j.read_csr(format_args!("SEND_CONTEXTS"));
        let chip = u32::from(w.chip_send_contexts);
        if (total_contexts.wrapping_add(count) as u32) > chip {
            count = chip.wrapping_sub(total_contexts as u32) as i32;
        }
        total_contexts = total_contexts.wrapping_add(count);
        let pool = wildcard_to_pool(size);
        if pool == -1 {
            fixed_blocks = size
                .checked_mul(count)
                .and_then(|b| fixed_blocks.checked_add(b))
                .ok_or_else(|| {
                    Undefined("init_sc_pools_and_sizes(): fixed_blocks overflows int".into())
                })?;
        } else if (pool as usize) < NUM_SC_POOLS {
            pools[pool as usize].count += count;
        } else {
            return Ok(None);
        }
        // Stored as short ints.
        *entry = (count as i16, size as i16);
    }
    Ok(Some((total_contexts, fixed_blocks)))
}

/// What [`init_sc_pools_and_sizes`] leaves, as `shim_put_sc_sizes()`
/// writes it: each type's `dd->sc_sizes` (count x size), then each field
/// of the configuration the call changed.
fn describe_sizes(sizes: &[(i16, i16); 4], given: &ScConfig, cfg: &ScConfig) -> String {
    const NAMES: [&str; 4] = ["SC_KERNEL", "SC_VL15", "SC_ACK", "SC_USER"];
    let mut s = String::from("sc_sizes");
    for (name, (count, size)) in NAMES.iter().zip(sizes) {
        s += &format!(" {name}={count}x{size}");
    }
    for (t, name) in NAMES.iter().enumerate() {
        if cfg.size[t] != given.size[t] {
            s += &format!(" sc_config_sizes[{name}].size={}", cfg.size[t]);
        }
        if cfg.count[t] != given.count[t] {
            s += &format!(" sc_config_sizes[{name}].count={}", cfg.count[t]);
        }
    }
    s
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

impl crate::Mirror for super::types::args::InitScPoolsAndSizes {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (ret, text) = init_sc_pools_and_sizes(cx.w, &mut cx.j)?;
        cx.out.ret = ret;
        cx.out.text = text;
        Ok(())
    }
}
