//! The invariants of the calls on a send context's states and on the
//! chip's PIO as a whole (pio.c): a restart, the global send control,
//! the kernel contexts enabled again after a freeze or a link down.

use crate::model::types::*;

/// sc_restart() and its halt work: a context of the world (it is
/// dereferenced); one it restarts (halted, not being freed) is the QP's
/// (the one the world gives counters), whose buffers allocated a kernel
/// context waits for, forever unless they are 0 (one thread drops none).
pub(super) fn check_restart(c: &Call) -> Result<(), String> {
    let w = &c.world;
    if let Args::ScRestart(args::ScRestart { sc }) | Args::ScHalted(args::ScHalted { sc }) = &c.args
    {
        let name = c.func().name();
        let Some(sc) = sc.filter(|s| s.0 < w.num_send_contexts) else {
            return Err(format!(
                "{name}'s sc is a send context of the world (not NULL: it is dereferenced)"
            ));
        };
        let f = c.engines.sc_flags.get(usize::from(sc.0));
        let restarts = f.contains(&ScFlag::Halted) && !f.contains(&ScFlag::InFree);
        if restarts && Some(sc) != c.qp.s_sendcontext {
            return Err(format!(
                "{name} of a halted context other than the QP's (qp.s_sendcontext): the world gives only it counters"
            ));
        }
        if restarts
            && w.sc_type.get(usize::from(sc.0)) != ScType::User
            && c.qp.sc_buffers_allocated != 0
        {
            return Err(format!(
                "{name} of a halted kernel context with buffers allocated never returns (it waits for them to drop to 0)"
            ));
        }
    }
    Ok(())
}

/// The chip-wide PIO calls: `__cm_reset()` polls `SEND_CTRL` until the chip
/// clears the CM reset bit (the world's register reads one value a call,
/// so a set bit is polled forever); `pio_kernel_unfreeze()` and
/// `pio_kernel_linkup()` enable only the QP's context (the world gives
/// only it counters).
pub(super) fn check_pio_chip(c: &Call) -> Result<(), String> {
    let w = &c.world;
    if let Args::PioSendControl(a) = &c.args {
        if a.op == 4 && w.send_ctrl_csr & 0x4 != 0 {
            return Err("pio_send_control(PSC_CM_RESET) with world.send_ctrl_csr's CM reset bit (0x4) set never returns".into());
        }
    }
    let pick: fn(&Flags<ScFlag>) -> bool = match c.args {
        Args::PioKernelUnfreeze(_) => {
            |f| f.contains(&ScFlag::Frozen) && !f.contains(&ScFlag::LinkDown)
        }
        Args::PioKernelLinkup(_) => |f| f.contains(&ScFlag::LinkDown),
        _ => return Ok(()),
    };
    for i in 0..w.num_send_contexts {
        let k = usize::from(i);
        let enables = !w.sc_freed.get(k)
            && pick(&c.engines.sc_flags.get(k))
            && w.sc_type.get(k) != ScType::User;
        if enables && c.qp.s_sendcontext != Some(SendCtxIdx(i)) {
            return Err(format!(
                "{} enables send context {i}, not the QP's (qp.s_sendcontext): the world gives only it counters",
                c.func().name()
            ));
        }
    }
    Ok(())
}

/// The entries of a PIO map's elements its description holds: 64 of at
/// most 6 bytes (` sc#63`), with 16 elements' and the header's text, stay
/// within an outcome's 1023 bytes.
const MAP_TEXT_ENTRIES: usize = 64;

/// pio_map_init(): each VL gets at least one context
/// (`roundup_pow_of_two(0)` is undefined): the `SC_KERNEL` contexts spread
/// over the VLs give that only when there are as many; the contexts it
/// indexes in `dd->kernel_send_context[]`, from 1 up to the sum of the
/// counts, are within the array's `num_send_contexts` entries. At most
/// 16 VLs: the map read back holds that many; and at most
/// [`MAP_TEXT_ENTRIES`] entries in all, which the text describes whole.
pub(super) fn check_pio_map_init(c: &Call) -> Result<(), String> {
    let Args::PioMapInit(a) = &c.args else {
        return Ok(());
    };
    let w = &c.world;
    let n = usize::from(w.num_send_contexts);
    if !(1..=16).contains(&a.num_vls) {
        return Err(format!(
            "num_vls {}: 1 to 16 (0 divides by zero; a map holds 16 elements)",
            a.num_vls
        ));
    }
    let counts: Vec<usize> = if a.vl_scontexts.is_empty() {
        let kernel = (0..n)
            .filter(|&i| w.sc_type.get(i) == ScType::Kernel)
            .count();
        if usize::from(a.num_vls) > kernel {
            return Err(format!(
                "num_vls {} with {kernel} SC_KERNEL contexts: a VL without one (roundup_pow_of_two(0) is undefined)",
                a.num_vls
            ));
        }
        crate::model::vl_map::loading(a.num_vls, &[], kernel as u32)
            .into_iter()
            .map(usize::from)
            .collect()
    } else {
        if a.vl_scontexts.len() != usize::from(a.num_vls) {
            return Err(format!(
                "vl_scontexts: {} counts for {} VLs (one per VL)",
                a.vl_scontexts.len(),
                a.num_vls
            ));
        }
        if a.vl_scontexts.contains(&0) {
            return Err("vl_scontexts: each VL at least one context".into());
        }
        a.vl_scontexts.iter().map(|&v| usize::from(v)).collect()
    };
    let last: usize = counts.iter().sum();
    if last >= n {
        return Err(format!(
            "the contexts indexed reach dd->kernel_send_context[{last}], past its {n} entries (num_send_contexts)"
        ));
    }
    // The map is the call's text, of at most 1023 bytes (the outcome's).
    let entries: usize = counts.iter().map(|c| c.next_power_of_two()).sum();
    if entries > MAP_TEXT_ENTRIES {
        return Err(format!(
            "the map's elements hold {entries} entries: more than the {MAP_TEXT_ENTRIES} an outcome's text describes"
        ));
    }
    Ok(())
}

/// sc_alloc(): a node with credit return memory (`cr_base[numa].va` is
/// read unchecked, and is NULL only when the probe failed), and a chip
/// with a hardware context for every index of the world
/// (`chip_send_contexts - index - 1` indexes `dd->hw_to_sw[]`, which has
/// `TXE_NUM_CONTEXTS` entries).
pub(super) fn check_sc_alloc(c: &Call) -> Result<(), String> {
    let Args::ScAlloc(a) = &c.args else {
        return Ok(());
    };
    alloc_fits(c, a.numa, "numa")
}

/// What every `sc_alloc()` on node `numa` needs (`what` names the node).
fn alloc_fits(c: &Call, numa: i32, what: &str) -> Result<(), String> {
    let w = &c.world;
    if numa < 0 || numa >= i32::from(w.possible_nodes.min(MAX_NUMNODES)) {
        return Err(format!(
            "{what} {numa}: not a possible node (cr_base has {} entries)",
            w.possible_nodes
        ));
    }
    if !c.qp.cr_base || c.qp.cr_va & (1 << numa) == 0 {
        return Err(format!(
            "{what} {numa}: no credit return memory there (qp.cr_base, qp.cr_va): sc_alloc() reads cr_base[numa].va unchecked"
        ));
    }
    if w.chip_send_contexts < w.num_send_contexts || w.chip_send_contexts > 160 {
        return Err(format!(
            "world.chip_send_contexts {}: from num_send_contexts ({}) to TXE_NUM_CONTEXTS (160), a hardware context for each index",
            w.chip_send_contexts, w.num_send_contexts
        ));
    }
    Ok(())
}

/// sc_enable(): the world gives only the QP's send context its counters
/// (buffers_allocated, a credit return).
pub(super) fn check_sc_enable(c: &Call) -> Result<(), String> {
    if let Args::ScEnable(a) = &c.args {
        if a.sc.is_some() && a.sc != c.qp.s_sendcontext {
            return Err("sc_enable's sc is NULL or the QP's send context (qp.s_sendcontext): the world gives only it counters".into());
        }
    }
    Ok(())
}

/// init_pervl_scs()'s world, as at probe: 1 to 8 VLs (chip.c refuses
/// others; `dd->vld[]` has 16 entries, VL15's last), `dd->vld[]` holding
/// no context (its error path frees every data VL's entry), the kernel's
/// contexts' array (`num_send_contexts` pointers) long enough for VL15's,
/// two a VL and the PIO map's kernel contexts (from entry 1), a kernel
/// context a VL (`roundup_pow_of_two(0)` is undefined), the device on a
/// possible node and a chip with a hardware context for every index.
pub(super) fn check_pervl_world(func: Func, w: &World) -> Result<(), String> {
    if func != Func::InitPervlScs {
        return Ok(());
    }
    if !(1..=8).contains(&w.num_vls) {
        return Err(format!(
            "world.num_vls {}: 1 to 8, as chip.c accepts the module parameter",
            w.num_vls
        ));
    }
    if let Some(vl) = w.vl_sc.iter().position(Option::is_some) {
        return Err(format!(
            "world.vl_sc[{vl}] names a context: at probe dd->vld[] holds none, and \
             init_pervl_scs()'s error path frees every data VL's"
        ));
    }
    let n = u32::from(w.num_send_contexts);
    let kernel = crate::model::vl_map::kernel_contexts(w);
    if 2 * w.num_vls + 1 > n || kernel + 1 > n {
        return Err(format!(
            "world.num_send_contexts {n}: dd->kernel_send_context[] has that many entries, \
             fewer than VL15's and two a VL ({}) or the PIO map's {kernel} kernel contexts from 1",
            2 * w.num_vls + 1
        ));
    }
    if kernel < w.num_vls {
        return Err(format!(
            "{kernel} SC_KERNEL contexts for {} VLs: a VL without one (roundup_pow_of_two(0) is undefined)",
            w.num_vls
        ));
    }
    if w.node < 0 || w.node >= i32::from(w.possible_nodes.min(MAX_NUMNODES)) {
        return Err(format!(
            "world.node {}: not a possible node (cr_base has {} entries)",
            w.node, w.possible_nodes
        ));
    }
    Ok(())
}

/// init_credit_return() (and init_send_contexts(), which calls it) indexes
/// `cr_base` by the device's node when that node has CPUs: a possible
/// node then.
pub(super) fn check_probe_node(func: Func, w: &World) -> Result<(), String> {
    if matches!(func, Func::InitCreditReturn | Func::InitSendContexts)
        && w.node_cpus.0 != 0
        && !(0..i32::from(w.possible_nodes)).contains(&w.node)
    {
        return Err(format!(
            "{func} runs on a device of a possible node (world.node {}, {} possible)",
            w.node, w.possible_nodes
        ));
    }
    Ok(())
}

/// init_pervl_scs(): its world ([`check_pervl_world`]) and what
/// `sc_alloc()` needs on the device's node.
pub(super) fn check_init_pervl_scs(c: &Call) -> Result<(), String> {
    if !matches!(c.args, Args::InitPervlScs(_)) {
        return Ok(());
    }
    check_pervl_world(Func::InitPervlScs, &c.world)?;
    alloc_fits(c, c.world.node, "world.node")
}

/// init_send_contexts(): the sizes' counts (those not negative) add up to
/// at most `num_send_contexts`, the entries of the table it allocates
/// (`init_sc_pools_and_sizes()` makes them equal); more would write past
/// it.
pub(super) fn check_init_send_contexts(c: &Call) -> Result<(), String> {
    if !matches!(c.args, Args::InitSendContexts(_)) {
        return Ok(());
    }
    let w = &c.world;
    let sum: u32 = w
        .sc_size_count
        .iter()
        .map(|&n| (n as i16).max(0) as u32)
        .sum();
    if w.num_send_contexts == 0 {
        return Err("world.num_send_contexts 0: init_send_contexts() lays out a table of at least one entry (the driver has VL15's)".into());
    }
    if sum > u32::from(w.num_send_contexts) {
        return Err(format!(
            "world.sc_size_count adds up to {sum} contexts, more than the table's num_send_contexts ({}): init_send_contexts() would write past it",
            w.num_send_contexts
        ));
    }
    Ok(())
}

/// seqfile_dump_sci(): an entry of the world's table whose context is
/// allocated (it dereferences `sci->sc`; debugfs skips NULL ones).
pub(super) fn check_dump_sci(c: &Call) -> Result<(), String> {
    let Args::SeqfileDumpSci(a) = &c.args else {
        return Ok(());
    };
    let w = &c.world;
    if a.i >= w.num_send_contexts || w.sc_freed.get(usize::from(a.i)) {
        return Err(format!(
            "i {}: not an allocated context of the world ({} contexts; freed ones have no sc)",
            a.i, w.num_send_contexts
        ));
    }
    Ok(())
}

/// init_sc_pools_and_sizes(): a pool's share of the PIO blocks is
/// computed in an `int` (the blocks the fixed sizes leave times its
/// centipercent, at most 10000): more than `INT_MAX / 10000` would
/// overflow it. The fixed sizes leave more than the memory when a type of
/// fixed size counts per CPU (VL15's or the user type's count
/// `SCC_PER_CPU`, the world's configuration) on a device with fewer
/// receive contexts than kernel queues: a negative count.
pub(super) fn check_init_sc_pools(c: &Call) -> Result<(), String> {
    if !matches!(c.args, Args::InitScPoolsAndSizes(_)) {
        return Ok(());
    }
    let w = &c.world;
    let deficit = i64::from(w.n_krcv_queues) - i64::from(w.num_rcv_contexts);
    let mut negative = 0i64;
    if w.sc_config_set && deficit > 0 {
        for t in [1, 3] {
            let (size, count) = (w.sc_config_size[t] as i16, w.sc_config_count[t] as i16);
            if count == -2 && size >= 0 {
                negative += i64::from(size) * deficit;
            }
        }
    }
    let blocks = i64::from(w.pio_mem_size / 64) + negative;
    if blocks > i64::from(i32::MAX / 10000 + 1) {
        return Err(format!(
            "world.pio_mem_size {:#x} is {} PIO blocks, {negative} more left by negative per-CPU counts: a pool's share (blocks * centipercent) would overflow an int past {} blocks",
            w.pio_mem_size,
            w.pio_mem_size / 64,
            i32::MAX / 10000 + 1
        ));
    }
    Ok(())
}
