//! The gate on interfaces: a patch using one its tree lacks breaks the
//! build, as `make` would; one using an interface the tree has and the
//! harness has no stand-in for cannot be judged, never `breaks-build`.

use harness::cmd::gate::{self, PatchVerdict};
use harness::kernel::KernelTree;
use libtest_mimic::Failed;

use super::{verdicts, Gate, PIO, SDMA};

/// An interface newer than the tree: the typed allocators came in v7.0,
/// so a patch that uses kzalloc_obj() on 5.10 does not build there
/// (kcompat offers them to every tree; the gate reads the tree's own
/// headers, which lack them), timer_container_of() in v6.16 and
/// kmap_local_page() in v5.11; and one older: del_timer_sync() went in
/// v6.15, from_timer() in v6.16. Trees that have them use them
/// themselves, which their worlds build; a stable tree given one by a
/// backport (Debian's 6.12.117 has kzalloc_obj) builds the patch: its
/// headers, not its version, decide.
pub fn gate_newer_interface(tree: &KernelTree) -> Result<(), Failed> {
    let g = Gate::new(tree)?;
    let v = (tree.version.version, tree.version.patchlevel);
    let names = harness::kernel::names::TreeNames::of(&tree.root, &harness::kernel::extracted)?
        .ok_or("the tree has no index of names and no headers")?;
    let mut newer = vec![];
    let typed = (
        "rht_node = kzalloc(sizeof(*rht_node), GFP_KERNEL);",
        "rht_node = kzalloc_obj(*rht_node);",
    );
    if v < (7, 0) && !names.defines("kzalloc_obj") {
        newer.push(typed);
    } else if v < (7, 0) {
        // Backported: the same code as kzalloc(sizeof(...)).
        let j = g.run(g.patch(SDMA, typed.0, typed.1, "a backported interface"))?;
        if verdicts(&j) != ["preserves"] {
            return Err(format!("{} on {}: {:?}", typed.1, tree.version, verdicts(&j)).into());
        }
    }
    if v < (6, 16) {
        newer.push((
            "from_timer(sde, t, err_progress_check_timer);",
            "timer_container_of(sde, t, err_progress_check_timer);",
        ));
    }
    if v < (5, 11) {
        newer.push(("kvaddr = kmap(page);", "kvaddr = kmap_local_page(page);"));
    }
    // And interfaces older than the tree: gone from v6.15 (del_timer*)
    // and v6.16 (from_timer), as a stale backport would use them.
    if v >= (6, 15) {
        newer.push((
            "timer_delete_sync(&sde->err_progress_check_timer);",
            "del_timer_sync(&sde->err_progress_check_timer);",
        ));
    }
    if v >= (6, 16) {
        newer.push(("timer_container_of(sde, t,", "from_timer(sde, t,"));
    }
    if v >= (7, 0) {
        // A tree that has them all uses them itself: its world builds.
        let src = std::fs::read_to_string(tree.path(SDMA))?;
        if !src.contains("kzalloc_obj") || !src.contains("timer_container_of") {
            return Err(format!(
                "{}: expected kzalloc_obj and timer_container_of",
                tree.version
            )
            .into());
        }
    }
    for (from, to) in newer {
        let j = g.run(g.patch(SDMA, from, to, "a newer interface"))?;
        if verdicts(&j) != ["breaks-build"] {
            return Err(format!("{to} on {}: {:?}", tree.version, verdicts(&j)).into());
        }
    }
    Ok(())
}

/// A real interface the harness has no stand-in for: `add_taint()` and
/// its constants, in every pinned tree's headers and in no kcompat header
/// (the harness never taints). A patch calling it cannot be judged, with
/// the name and its place said; misspelt, it breaks the build; declared
/// by the patch itself in a generic header (which the harness does not
/// compile), it cannot be judged either.
pub fn gate_missing_stand_in(tree: &KernelTree) -> Result<(), Failed> {
    let g = Gate::new(tree)?;
    let from = "\tsdma_finalput(&sde->state);\n";
    let call = |f: &str| format!("{from}\t{f}(TAINT_USER, LOCKDEP_STILL_OK);\n");
    let j = g.run(g.patch(SDMA, from, &call("add_taint"), "taint"))?;
    match &j[0].verdict {
        PatchVerdict::CannotJudge(m)
            if m.contains("no stand-in for `add_taint`")
                && m.contains("drivers/infiniband/hw/hfi1/sdma.c:") => {}
        v => return Err(format!("add_taint on {}: {v:?}", tree.version).into()),
    }
    let j = g.run(g.patch(SDMA, from, &call("add_tiant"), "misspelt"))?;
    if verdicts(&j) != ["breaks-build"] {
        return Err(format!("add_tiant on {}: {:?}", tree.version, verdicts(&j)).into());
    }
    // The patch declares a helper in include/linux/rcupdate.h and calls
    // it: the harness cannot build it, a real build can.
    let header = "diff --git a/include/linux/rcupdate.h b/include/linux/rcupdate.h\n\
                  --- a/include/linux/rcupdate.h\n+++ b/include/linux/rcupdate.h\n\
                  @@ -30,2 +30,3 @@\n #include <linux/types.h>\n+void hfi1_trial_helper(void);\n \n";
    let patch = g.patch(
        SDMA,
        from,
        &format!("{from}\thfi1_trial_helper();\n"),
        "helper",
    );
    let (head, body) = patch
        .split_once("---\n")
        .ok_or("a patch without its --- line")?;
    let j = g.run(format!("{head}---\n{header}{body}"))?;
    match &j[0].verdict {
        PatchVerdict::CannotJudge(m) if m.contains("`hfi1_trial_helper`") => Ok(()),
        v => Err(format!("declared by the patch on {}: {v:?}", tree.version).into()),
    }
}

/// An interface the harness offers every tree and the tree lacks:
/// kcompat has `upper_16_bits()` whatever the version, 5.10's headers do
/// not (6.1's on do). A patch using it breaks 5.10's build, at its line,
/// though the harness's world builds; on a tree that has it, it is a
/// patch like any other. And upstream's own files use nothing their tree
/// lacks, which is what lets the check blame a patch.
pub fn gate_tree_lacks(tree: &KernelTree) -> Result<(), Failed> {
    let upstream = gate::lacking_in_tree(&tree.root).map_err(|e| format!("{e:#}"))?;
    if !upstream.is_empty() {
        return Err(format!("{}: upstream lacks {upstream:?}", tree.version).into());
    }
    let g = Gate::new(tree)?;
    let from = "\tsdma_finalput(&sde->state);\n";
    let to = format!("{from}\t\t(void)upper_16_bits(sde->this_idx);\n");
    let j = g.run(g.patch(SDMA, from, &to, "upper half"))?;
    let lacks = (tree.version.version, tree.version.patchlevel) < (6, 1);
    match &j[0].verdict {
        PatchVerdict::BreaksBuild(m)
            if lacks
                && m.contains("`upper_16_bits` (drivers/infiniband/hw/hfi1/sdma.c:")
                && m.contains("does not declare") => {}
        v if !lacks && v.word() == "preserves" => {}
        v => return Err(format!("upper_16_bits on {}: {v:?}", tree.version).into()),
    }
    Ok(())
}

/// Scope-based locking (`<linux/cleanup.h>`), which every pinned tree's
/// headers have (5.10 and 6.1 by backport): sdma_flush's lock and unlock
/// of `flushlist_lock` turned into `scoped_guard(spinlock_irqsave, ...)`
/// is the same code and `preserves`; a guard's lock is a lock like any
/// (the same stand-ins, the same lockdep), so the lock taken again
/// inside the guard `changes` sdma_flush with lockdep's recursive
/// locking line. A tree whose headers lack the guards breaks the build.
pub fn gate_scoped_guard(tree: &KernelTree) -> Result<(), Failed> {
    let names = harness::kernel::names::TreeNames::of(&tree.root, &harness::kernel::extracted)
        .map_err(|e| format!("{e:#}"))?
        .ok_or("no index of names")?;
    let has = names.declares("scoped_guard");
    let g = Gate::new(tree)?;
    let from = "\tunsigned long flags;\n\tuint seq;\n\n\t/* flush from head to tail */\n\
                \tsdma_flush_descq(sde);\n\tspin_lock_irqsave(&sde->flushlist_lock, flags);\n\
                \t/* copy flush list */\n\tlist_splice_init(&sde->flushlist, &flushlist);\n\
                \tspin_unlock_irqrestore(&sde->flushlist_lock, flags);\n";
    let guarded = |inner: &str| {
        format!(
            "\tuint seq;\n\n\t/* flush from head to tail */\n\tsdma_flush_descq(sde);\n\
             \tscoped_guard(spinlock_irqsave, &sde->flushlist_lock) {{\n{inner}\
             \t\t/* copy flush list */\n\t\tlist_splice_init(&sde->flushlist, &flushlist);\n\
             \t}}\n"
        )
    };
    let j = g.run(g.patch(SDMA, from, &guarded(""), "scoped_guard"))?;
    let want = if has { "preserves" } else { "breaks-build" };
    if verdicts(&j) != [want] {
        return Err(format!("scoped_guard on {}: {:?}", tree.version, verdicts(&j)).into());
    }
    if !has {
        return Ok(());
    }
    let again = "\t\tspin_lock(&sde->flushlist_lock);\n\t\tspin_unlock(&sde->flushlist_lock);\n";
    let j = g.run(g.patch(SDMA, from, &guarded(again), "locked twice"))?;
    let Some(c) = j[0].comparison.as_ref() else {
        return Err(format!("no comparison: {:?}", verdicts(&j)).into());
    };
    let recursive = c.groups.iter().any(|x| {
        x.func == harness::model::types::Func::SdmaFlush
            && x.fields.iter().any(|(f, before, after)| {
                f == "lockdep"
                    && !before.contains("recursive locking")
                    && after.contains("possible recursive locking detected: sde#")
                    && after.contains(".flushlist_lock")
            })
    });
    if verdicts(&j) != ["changes"] || !recursive {
        return Err(format!("{:?}: {:#?}", verdicts(&j), c.groups).into());
    }
    Ok(())
}

/// Helpers of generic headers that real cleanups bring to hfi1, which
/// kcompat offers every tree: `umin()` for a `min()` of two u32
/// thresholds in sc_alloc and `FIELD_PREP()` (a patch adding
/// `<linux/bitfield.h>`, which the worlds then include as the file does)
/// for sc_enable's mask and shift are the same code and `preserves` on
/// every pinned tree, both functions judged; the include line is not
/// (no world says whether a real build finds the header). A constant
/// too wide for the field breaks the build, as the kernel's check does. 5.10.262's
/// headers have `umin` by backport. `secs_to_jiffies()` (v6.13, and
/// 6.1's by backport) breaks 5.10's build; where the tree has it the
/// patch is built and judged (its verdict is not asserted: time stands
/// still in the worlds, so a timeout's length is not seen).
pub fn gate_generic_helpers(tree: &KernelTree) -> Result<(), Failed> {
    let names = harness::kernel::names::TreeNames::of(&tree.root, &harness::kernel::extracted)
        .map_err(|e| format!("{e:#}"))?
        .ok_or("no index of names")?;
    let g = Gate::new(tree)?;
    let edits = [
        (
            "#include <linux/delay.h>\n",
            "#include <linux/bitfield.h>\n#include <linux/delay.h>\n",
        ),
        (
            "thresh = min(sc_percent_to_threshold(sc, 50),",
            "thresh = umin(sc_percent_to_threshold(sc, 50),",
        ),
        (
            "pio = ((sc->hw_context & SEND_PIO_INIT_CTXT_PIO_CTXT_NUM_MASK) <<\n\
             \t       SEND_PIO_INIT_CTXT_PIO_CTXT_NUM_SHIFT) |",
            "pio = FIELD_PREP(SEND_PIO_INIT_CTXT_PIO_CTXT_NUM_MASK <<\n\
             \t\t\t SEND_PIO_INIT_CTXT_PIO_CTXT_NUM_SHIFT, sc->hw_context) |",
        ),
    ];
    let patch = g.patch_all(PIO, &edits, "umin and FIELD_PREP");
    let added = patch
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"));
    if added.count() != 4 {
        return Err(format!("{}: the edits did not all apply:\n{patch}", tree.version).into());
    }
    let j = g.run(patch)?;
    let judged = &j[0].functions.judged;
    let both = ["pio.c: sc_alloc", "pio.c: sc_enable"]
        .iter()
        .all(|f| judged.iter().any(|x| x == f));
    let include_only = matches!(&j[0].not_judged[..], [n] if n.contains("outside any function"));
    if verdicts(&j) != ["preserves"] || !both || !include_only {
        return Err(format!(
            "umin/FIELD_PREP on {}: {:?}, judged {judged:?}, not judged: {:?}",
            tree.version, j[0].verdict, j[0].not_judged
        )
        .into());
    }
    // A constant too wide for its field fails the kernel's build-time
    // check, which kcompat's FIELD_PREP makes too: the patch's fault.
    let mut wide = edits;
    wide[2].1 = "pio = FIELD_PREP(SEND_PIO_INIT_CTXT_PIO_CTXT_NUM_MASK <<\n\
                 \t\t\t SEND_PIO_INIT_CTXT_PIO_CTXT_NUM_SHIFT, 0x1ff) |";
    let j = g.run(g.patch_all(PIO, &wide, "FIELD_PREP of too wide a value"))?;
    if verdicts(&j) != ["breaks-build"] {
        return Err(format!("too wide on {}: {:?}", tree.version, j[0].verdict).into());
    }
    let has = names.declares("secs_to_jiffies");
    let j = g.run(g.patch(
        SDMA,
        "msecs_to_jiffies(SDMA_ERR_HALT_TIMEOUT);",
        "secs_to_jiffies(SDMA_ERR_HALT_TIMEOUT) / 1000;",
        "secs_to_jiffies",
    ))?;
    match (&j[0].verdict, has) {
        (PatchVerdict::BreaksBuild(m), false) if m.contains("`secs_to_jiffies`") => Ok(()),
        (v, true) if ["preserves", "changes"].contains(&v.word()) => Ok(()),
        (v, _) => Err(format!("secs_to_jiffies on {}: {v:?}", tree.version).into()),
    }
}

/// The engine's clean-up tasklets converted to BH work items (as posted
/// for many drivers when tasklets were deprecated in v6.9): the members'
/// type in sdma.h and the handlers', `from_work()` for `from_tasklet()`,
/// `INIT_WORK()` for `tasklet_setup()` and `queue_work()` on the
/// high-priority BH queue for `tasklet_hi_schedule()`. A tree with the
/// BH queues builds it, and the patch `changes` only what the engine asks
/// of the kernel: the reproducer's journal shows the tasklet scheduled
/// before and the work queued after. A tree without them breaks the
/// build, naming what it lacks.
pub fn gate_bh_workqueue(tree: &KernelTree) -> Result<(), Failed> {
    let names = harness::kernel::names::TreeNames::of(&tree.root, &harness::kernel::extracted)
        .map_err(|e| format!("{e:#}"))?
        .ok_or("no index of names")?;
    let every = |file: &str, edits: &[(&'static str, &'static str)]| {
        let src = std::fs::read_to_string(tree.path(file)).unwrap_or_default();
        let all: Vec<(&str, &str)> = edits
            .iter()
            .flat_map(|&(from, to)| std::iter::repeat_n((from, to), src.matches(from).count()))
            .collect();
        super::diff_of_all(tree, file, &all)
    };
    let c = every(
        SDMA,
        &[
            ("(struct tasklet_struct *", "(struct work_struct *"),
            ("from_tasklet(", "from_work("),
            ("tasklet_setup(&", "INIT_WORK(&"),
            (
                "tasklet_hi_schedule(&",
                "queue_work(system_bh_highpri_wq, &",
            ),
        ],
    );
    let h = every(
        "drivers/infiniband/hw/hfi1/sdma.h",
        &[("struct tasklet_struct sdma_", "struct work_struct sdma_")],
    );
    if c.is_empty() || h.is_empty() {
        return Err(format!("{}: no tasklets to convert", tree.version).into());
    }
    let g = Gate::new(tree)?;
    let text = format!(
        "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n\
         Subject: [PATCH] IB/hfi1: convert the clean-up tasklets to BH work\n\n---\n{h}{c}"
    );
    let j = g.run(text)?;
    let lacks: Vec<&str> = ["from_work", "system_bh_highpri_wq"]
        .into_iter()
        .filter(|n| !names.declares(n))
        .collect();
    match (&j[0].verdict, lacks.first()) {
        (PatchVerdict::BreaksBuild(m), Some(n)) if m.contains(&format!("`{n}`")) => Ok(()),
        (PatchVerdict::Changes, None) => {
            let groups = j[0].comparison.as_ref().map_or(&[][..], |c| &c.groups[..]);
            let shown = groups.iter().any(|gr| {
                gr.fields.iter().any(|(f, a, b)| {
                    f == "journal"
                        && a.contains("tasklet_hi_schedule(sde#")
                        && b.contains("queue_work_on(64, wq:bh-highpri, sde#")
                })
            });
            if groups.iter().all(|gr| gr.shape == ["journal"]) && shown {
                Ok(())
            } else {
                let shapes: Vec<_> = groups.iter().map(|gr| (gr.func, &gr.shape)).collect();
                Err(format!(
                    "{}: changes, but {shapes:?} (the work queued shown: {shown})",
                    tree.version
                )
                .into())
            }
        }
        (v, _) => Err(format!("{} (lacking {lacks:?}): {v:?}", tree.version).into()),
    }
}
