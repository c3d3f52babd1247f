//! The gate on patches that change what lockdep reports: lock order,
//! interrupt state and recursion across a scenario's steps, and RCU
//! misuse (PROVE_RCU's "suspicious RCU usage").

use harness::cmd::gate;
use harness::kernel::KernelTree;
use harness::model::types::Func;
use libtest_mimic::Failed;

use super::{verdicts, Gate, SDMA};

/// Lock order across a scenario's steps. Upstream's sdma_flush wakes the
/// QPs orphaned on its dmawait list holding the engine's waitlock
/// (waitlock, then s_lock) after iowait_sleep took that waitlock holding
/// s_lock: scenario::sleep_then_flush's snapshot has the lockdep line. A
/// patch that wakes sdma_desc_avail's top waiter inside its waitlock adds
/// the same inversion there: `changes`, the differing group of
/// sdma_desc_avail is only its `lockdep` line (the first differing call:
/// scenario::sleep_then_desc_avail, step 2), and its reproducer is the
/// scenario up to that step.
pub fn gate_lock_order(tree: &KernelTree) -> Result<(), Failed> {
    let g = Gate::new(tree)?;
    let from = "\t\t\twrite_sequnlock(&sde->waitlock);\n\t\t\tbreak;\n\t\t}\n\t} while \
                (read_seqretry(&sde->waitlock, seq));\n\n\t/* Schedule the top-priority entry \
                first */\n\tif (n)\n\t\twaits[tidx]->wakeup(waits[tidx], SDMA_AVAIL_REASON);\n";
    let to = "\t\t\tif (n)\n\t\t\t\twaits[tidx]->wakeup(waits[tidx], SDMA_AVAIL_REASON);\n\
              \t\t\twrite_sequnlock(&sde->waitlock);\n\t\t\tbreak;\n\t\t}\n\t} while \
              (read_seqretry(&sde->waitlock, seq));\n\n";
    let j = g.run(g.patch(SDMA, from, to, "wake the top waiter under the waitlock"))?;
    let Some(c) = j[0].comparison.as_ref() else {
        return Err(format!("no comparison: {:?}", verdicts(&j)).into());
    };
    let group = c.groups.iter().find(|x| x.func == Func::SdmaDescAvail);
    let ok = verdicts(&j) == ["changes"]
        && group.is_some_and(|x| {
            x.shape == ["lockdep"]
                && x.first.to_string() == "scenario::sleep_then_desc_avail, step 2"
                && x.fields.iter().any(|(f, before, after)| {
                    f == "lockdep"
                        && before == "-"
                        && after.starts_with("lockdep: possible ABBA deadlock: s_lock#0x42")
                })
                && x.case
                    .as_deref()
                    .is_some_and(|t| t.contains("then = [{ fn = \"sdma_desc_avail\""))
        });
    if !ok {
        return Err(format!("{:?}: {:#?}", verdicts(&j), c.groups).into());
    }
    Ok(())
}

/// Interrupt state across a scenario's steps. The engine's flush worker
/// takes its head_lock with interrupts off (irqsave), as every taker of a
/// lock the engine's interrupt handler also takes must. A patch that
/// takes it with interrupts on changes scenario::interrupt_then_field_flush:
/// its step 2 takes head_lock with interrupts on after the interrupt took
/// it in hard interrupt context: `changes`, the differing group of
/// sdma_field_flush is only its `lockdep` line, lockdep's
/// inconsistent-usage report.
pub fn gate_irq_safety(tree: &KernelTree) -> Result<(), Failed> {
    let g = Gate::new(tree)?;
    let from = "\twrite_seqlock_irqsave(&sde->head_lock, flags);\n\tif (!__sdma_running(sde))";
    let to = "\tflags = 0;\n\twrite_seqlock(&sde->head_lock);\n\tif (!__sdma_running(sde))";
    let j = g.run(g.patch(SDMA, from, to, "take head_lock with interrupts on"))?;
    let Some(c) = j[0].comparison.as_ref() else {
        return Err(format!("no comparison: {:?}", verdicts(&j)).into());
    };
    let group = c.groups.iter().find(|x| x.func == Func::SdmaFieldFlush);
    let ok = verdicts(&j) == ["changes"]
        && group.is_some_and(|x| {
            x.shape == ["lockdep"]
                && x.first.to_string() == "scenario::interrupt_then_field_flush, step 2"
                && x.fields.iter().any(|(f, before, after)| {
                    f == "lockdep"
                        && before == "-"
                        && after.contains(
                            "lockdep: inconsistent {IN-HARDIRQ-W} -> {HARDIRQ-ON-W} usage: ",
                        )
                })
        });
    if !ok {
        return Err(format!("{:?}: {:#?}", verdicts(&j), c.groups).into());
    }
    Ok(())
}

/// A lock taken again while held, as lockdep's "possible recursive
/// locking" warns of it: a patch that has sdma_check_progress take the
/// engine's tail_lock, which both its callers (sdma_send_txreq and
/// sdma_send_txlist, on a full ring) already hold, deadlocks the CPU on
/// itself. `changes`, each caller's differing group only its `lockdep`
/// line naming that lock.
pub fn gate_recursive_lock(tree: &KernelTree) -> Result<(), Failed> {
    let g = Gate::new(tree)?;
    let from =
        "\tsde->desc_avail = sdma_descq_freecnt(sde);\n\tif (tx->num_desc <= sde->desc_avail)";
    let to = "\tspin_lock(&sde->tail_lock);\n\tsde->desc_avail = sdma_descq_freecnt(sde);\n\
              \tspin_unlock(&sde->tail_lock);\n\tif (tx->num_desc <= sde->desc_avail)";
    let j = g.run(g.patch(SDMA, from, to, "take tail_lock for desc_avail"))?;
    let Some(c) = j[0].comparison.as_ref() else {
        return Err(format!("no comparison: {:?}", verdicts(&j)).into());
    };
    let recursive = |f: Func| {
        c.groups.iter().any(|x| {
            x.func == f
                && x.shape == ["lockdep"]
                && x.fields.iter().any(|(_, before, after)| {
                    before == "-"
                        && after.starts_with(
                            "lockdep: possible recursive locking detected: sde#1.tail_lock",
                        )
                })
        })
    };
    if verdicts(&j) != ["changes"]
        || !recursive(Func::SdmaSendTxreq)
        || !recursive(Func::SdmaSendTxlist)
    {
        return Err(format!("{:?}: {:#?}", verdicts(&j), c.groups).into());
    }
    Ok(())
}

const PIO: &str = "drivers/infiniband/hw/hfi1/pio.c";

/// Whether the gate's one judgement of `j` is `changes` with a group of
/// `func` whose `lockdep` field gains or loses (`added`) a line starting
/// with `line`.
fn lockdep_group(j: &[gate::Judged], func: Func, line: &str, added: bool) -> Result<(), Failed> {
    let Some(c) = j[0].comparison.as_ref() else {
        return Err(format!("no comparison: {:?}", verdicts(j)).into());
    };
    let found = c.groups.iter().any(|x| {
        x.func == func
            && x.fields.iter().any(|(f, before, after)| {
                let (from, to) = if added {
                    (before, after)
                } else {
                    (after, before)
                };
                f == "lockdep" && !from.contains(line) && to.contains(line)
            })
    });
    if verdicts(j) != ["changes"] || !found {
        return Err(format!("{:?}: {:#?}", verdicts(j), c.groups).into());
    }
    Ok(())
}

/// A block freed while RCU readers may still hold it, which PROVE_RCU
/// and KASAN find in a kernel only when a reader races the free. Up to
/// 6.12, free_pio_map frees the published map before unpublishing it
/// (fixed in 7.2 by freeing it after synchronize_rcu()): on those trees
/// the fix `changes` free_pio_map, its `lockdep` line gone; on later ones
/// the bug put back `changes` it, the line back. On every tree, freeing
/// the replaced map in pio_map_init at once instead of by call_rcu()
/// `changes` pio_map_init: the map freed with no grace period since it
/// was unpublished; by kfree_rcu() instead, it is freed after one (its
/// elements leak, which `changes` pio_map_init too, but no misuse).
pub fn gate_rcu_free(tree: &KernelTree) -> Result<(), Failed> {
    let g = Gate::new(tree)?;
    let published = "lockdep: suspicious RCU usage: kfree(an element of the world's pio_map) \
                     while dd.pio_map publishes it to readers";
    let fixed =
        "\t\tRCU_INIT_POINTER(dd->pio_map, NULL);\n\t\tspin_unlock_irq(&dd->pio_map_lock);\n\
                 \t\tsynchronize_rcu();\n\t\tpio_map_free(map);\n";
    let text = std::fs::read_to_string(tree.path(PIO))?;
    let j = if text.contains(fixed) {
        let bug = "\t\tpio_map_free(map);\n\t\tRCU_INIT_POINTER(dd->pio_map, NULL);\n\
                   \t\tspin_unlock_irq(&dd->pio_map_lock);\n\t\tsynchronize_rcu();\n";
        g.run(g.patch(PIO, fixed, bug, "free the pio map before unpublishing it"))?
    } else {
        let from = "\t\tspin_lock_irq(&dd->pio_map_lock);\n\
                    \t\tpio_map_free(rcu_access_pointer(dd->pio_map));\n\
                    \t\tRCU_INIT_POINTER(dd->pio_map, NULL);\n\
                    \t\tspin_unlock_irq(&dd->pio_map_lock);\n\t\tsynchronize_rcu();\n";
        let to = "\t\tstruct pio_vl_map *map = rcu_access_pointer(dd->pio_map);\n\n\
                  \t\tspin_lock_irq(&dd->pio_map_lock);\n"
            .to_owned()
            + fixed;
        g.run(g.patch(PIO, from, &to, "free the pio map after a grace period"))?
    };
    lockdep_group(&j, Func::FreePioMap, published, text.contains(fixed))?;
    let from = "\t\tcall_rcu(&oldmap->list, pio_map_rcu_callback);";
    let j = g.run(g.patch(
        PIO,
        from,
        "\t\tpio_map_free(oldmap);",
        "free the old map at once",
    ))?;
    let unpublished = "lockdep: suspicious RCU usage: kfree(";
    lockdep_group(&j, Func::PioMapInit, unpublished, true)?;
    let grace = "with no grace period since dd.pio_map stopped publishing it";
    if !j[0].comparison.iter().flat_map(|c| &c.groups).any(|x| {
        x.fields
            .iter()
            .any(|(f, _, after)| f == "lockdep" && after.contains(grace))
    }) {
        return Err(format!("no group says {grace:?}").into());
    }
    // kfree_rcu() frees after the grace period: the old map's elements
    // leak (only the map is freed), and no RCU misuse is reported.
    let j = g.run(g.patch(
        PIO,
        from,
        "\t\tkfree_rcu(oldmap, list);",
        "kfree_rcu the old map",
    ))?;
    let groups = j[0].comparison.iter().flat_map(|c| &c.groups);
    let (mut leaks, mut misuse) = (false, false);
    for x in groups.filter(|x| x.func == Func::PioMapInit) {
        for (_, _, after) in &x.fields {
            leaks |= after.contains("leak: ");
            misuse |= after.contains("suspicious RCU usage");
        }
    }
    if verdicts(&j) != ["changes"] || !leaks || misuse {
        return Err(format!(
            "kfree_rcu: {:?} leaks={leaks} misuse={misuse}",
            verdicts(&j)
        )
        .into());
    }
    Ok(())
}
