//! Mutants of the tree made by hand: each one changes one comparison,
//! and the conformance run fails, naming the vectors that catch it; C
//! against C finds the same change without the model.

use harness::cmd::conformance;
use harness::corpus;
use harness::cworld::{self, BuildOptions};
use harness::kernel::select::KernelArg;
use harness::kernel::KernelTree;
use harness::model::types::Func;
use libtest_mimic::Failed;

use crate::common::copy_tree;

const QP_C: &str = "drivers/infiniband/hw/hfi1/qp.c";

/// A change of one comparison in the tree, and the corpus vectors that
/// must catch it.
pub struct Mutation {
    /// The trial's name.
    pub name: &'static str,
    /// The file changed, in the tree.
    file: &'static str,
    /// The text replaced, there exactly once.
    from: &'static str,
    /// What replaces it.
    to: &'static str,
    /// Vectors of the corpus that must catch it.
    caught_by: &'static [&'static str],
}

/// Every mutation, each one its own trial.
pub const MUTATIONS: &[Mutation] = &[
    // A missing unlock: no field of the outcome moves, but the call returns
    // holding qp->s_lock, which the shim journals (kcompat lockdep.h).
    Mutation {
        name: "wakeup_keeps_s_lock",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "\t\thfi1_qp_schedule(qp);\n\t}\n\tspin_unlock_irqrestore(&qp->s_lock, flags);\n",
        to: "\t\thfi1_qp_schedule(qp);\n\t}\n",
        caught_by: &["schedule::wakeup_flag_not_set"],
    },
    Mutation {
        name: "piothreshold_le_to_lt",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (wqe->length <= piothreshold)",
        to: "if (wqe->length < piothreshold)",
        caught_by: &["setup_wqe::rc_at_piothreshold_sets_call_send"],
    },
    Mutation {
        name: "pmtu_gt_to_ge",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (wqe->length > qp->pmtu)",
        to: "if (wqe->length >= qp->pmtu)",
        caught_by: &["setup_wqe::rc_at_pmtu_keeps_call_send_true"],
    },
    Mutation {
        name: "sdma_selector_unmasked",
        file: "drivers/infiniband/hw/hfi1/sdma.c",
        from: "rval = e->sde[selector & e->mask];",
        to: "rval = e->sde[selector];",
        caught_by: &["engine::sdma_rc_odd_qpn", "select::sdma_vl_selector_masked"],
    },
    Mutation {
        name: "iter_cb_sl_ne_to_eq",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "rdma_ah_get_sl(&qp->remote_ah_attr) != sl ||",
        to: "rdma_ah_get_sl(&qp->remote_ah_attr) == sl ||",
        caught_by: &["error_port::rc_matching_sl", "error_port::other_sl_skipped"],
    },
    Mutation {
        name: "qp_idle_last_test",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "qp->s_tail == qp->s_head;",
        to: "qp->s_tail != qp->s_head;",
        caught_by: &["print::idle_rc", "print::idle_but_head_differs"],
    },
    Mutation {
        name: "shutdown_returns_false",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (dd->flags & HFI1_SHUTDOWN)\n\t\treturn true;",
        to: "if (dd->flags & HFI1_SHUTDOWN)\n\t\treturn false;",
        caught_by: &["schedule::nocheck_shutdown"],
    },
    Mutation {
        name: "unbusy_tid_handover_inverted",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (priv->s_flags & HFI1_S_TID_BUSY_SET) {",
        to: "if (!(priv->s_flags & HFI1_S_TID_BUSY_SET)) {",
        caught_by: &[
            "schedule::unbusy_ib_leg",
            "schedule::unbusy_ib_leg_hands_over_to_tid",
        ],
    },
    Mutation {
        name: "mtu_10240_not_constrained",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (mtu == (enum ib_mtu)OPA_MTU_10240)",
        to: "if (mtu != (enum ib_mtu)OPA_MTU_10240)",
        caught_by: &[
            "mtu::from_qp_10240_uncapped",
            "mtu::pmtu_attr_10240_is_8192",
        ],
    },
    Mutation {
        name: "send_ok_resp_pending_ignored",
        file: "drivers/infiniband/hw/hfi1/qp.h",
        from: "(qp->s_flags & RVT_S_RESP_PENDING) ||",
        to: "(qp->s_flags & 0) ||",
        caught_by: &["schedule::sched_wait_send_resp_pending"],
    },
    Mutation {
        name: "migration_needs_armed_inverted",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "qp->s_mig_state == IB_MIG_ARMED) {",
        to: "qp->s_mig_state != IB_MIG_ARMED) {",
        caught_by: &[
            "path::modify_migrated_from_armed",
            "path::modify_migrated_not_armed",
        ],
    },
    Mutation {
        name: "running_pkt_size_quarter",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "priv->s_running_pkt_size = piothreshold / 2;",
        to: "priv->s_running_pkt_size = piothreshold / 4;",
        caught_by: &["lifecycle::alloc_ok", "lifecycle::alloc_ok_other_threshold"],
    },
    Mutation {
        name: "check_modify_alt_sc_unchecked",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "sc = ah_to_sc(ibqp->device, &attr->alt_ah_attr);\n\t\tif (sc == 0xf)",
        to: "sc = ah_to_sc(ibqp->device, &attr->alt_ah_attr);\n\t\tif (sc == 0xe)",
        caught_by: &["modify::alt_path_sc_0xf", "modify::av_ok_alt_bad"],
    },
    Mutation {
        name: "init_priority_ignores_tid_leg",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (priv->s_flags & RVT_S_ACK_PENDING)\n\t\tw->priority++;",
        to: "if (0)\n\t\tw->priority++;",
        caught_by: &["callbacks::priority_priv_ack", "callbacks::priority_both"],
    },
    Mutation {
        name: "hdr_type_permissive_gid_test_inverted",
        file: "drivers/infiniband/hw/hfi1/hfi.h",
        from: "HFI1_PKT_TYPE_16B : HFI1_PKT_TYPE_9B;",
        to: "HFI1_PKT_TYPE_9B : HFI1_PKT_TYPE_16B;",
        caught_by: &[
            "path::modify_av_grh_opa_permissive_opa_gid",
            "path::modify_av_grh_opa_permissive_ib_gid",
        ],
    },
    Mutation {
        name: "stop_send_queue_keeps_trigger_reference",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (cancel_work_sync(&priv->tid_rdma.trigger_work))\n\t\trvt_put_qp(qp);",
        to: "if (cancel_work_sync(&priv->tid_rdma.trigger_work))\n\t\t;",
        caught_by: &["lifecycle::stop_send_queue_trigger_last_reference"],
    },
    Mutation {
        name: "tid_schedule_result_inverted",
        file: "drivers/infiniband/hw/hfi1/qp.c",
        from: "if (ret)\n\t\t\tiowait_clear_flag(&priv->s_iowait, IOWAIT_PENDING_TID);",
        to: "if (!ret)\n\t\t\tiowait_clear_flag(&priv->s_iowait, IOWAIT_PENDING_TID);",
        caught_by: &[
            "schedule::wakeup_pending_tid",
            "schedule::wakeup_pending_tid_scheduled",
        ],
    },
];

pub fn mutate(tree: &KernelTree, m: &Mutation) -> Result<(), Failed> {
    let dir = std::env::temp_dir().join(format!(
        "hfi1-mutant-{}-{}-{}",
        tree.version,
        m.name,
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(&tree.root, &dir).map_err(|e| format!("copying the tree: {e}"))?;
    let path = dir.join(m.file);
    let src = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    if src.matches(m.from).count() != 1 {
        return Err(format!(
            "{}: `{}` is not there exactly once; update this mutation",
            m.file, m.from
        )
        .into());
    }
    std::fs::write(&path, src.replacen(m.from, m.to, 1)).map_err(|e| e.to_string())?;
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
    let run = conformance::run_kernel(
        &KernelArg::Path(dir.clone()),
        &vectors,
        &BuildOptions::default(),
        &mut |_| {},
    )
    .map_err(|e| format!("{e:#}"))?;
    let _ = std::fs::remove_dir_all(&dir);
    if run.ok() {
        return Err(format!(
            "the mutant {} passed conformance: nothing caught it",
            m.name
        )
        .into());
    }
    let failing = conformance::failing_ids(&vectors, &run);
    for want in m.caught_by {
        if !failing.iter().any(|f| f == want) {
            return Err(format!("{want} did not catch {}; failing: {failing:?}", m.name).into());
        }
    }
    // The unmutated tree passes, so it is the change that was caught.
    if run.snapshots.is_empty() {
        return Err("the mutant's upstream outcomes still match the snapshots".into());
    }
    Ok(())
}

/// `f` on a copy of `tree` whose `file` has its first `from` replaced by
/// `to` (named `tag` in the temporary directory, removed after).
fn edited<T>(
    tree: &KernelTree,
    (file, from, to): (&str, &str, &str),
    tag: &str,
    f: impl FnOnce(&KernelTree) -> Result<T, Failed>,
) -> Result<T, Failed> {
    let dir = std::env::temp_dir().join(format!(
        "hfi1-{tag}-{}-{}",
        tree.version,
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(&tree.root, &dir).map_err(|e| format!("copying the tree: {e}"))?;
    let path = dir.join(file);
    let src = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !src.contains(from) {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(format!("{file}: `{from}` is not there").into());
    }
    std::fs::write(&path, src.replacen(from, to, 1)).map_err(|e| e.to_string())?;
    let out = KernelTree::open(&dir)
        .map_err(|e| Failed::from(format!("{e:#}")))
        .and_then(|t| f(&t));
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// A tree's world, or the failure that says why not.
fn world_of(t: &KernelTree) -> Result<harness::cworld::BuiltWorld, Failed> {
    cworld::build(t, &BuildOptions::default()).map_err(|e| format!("{e:#}").into())
}

/// C against C: a tree compared with itself differs nowhere; with the
/// piothreshold mutant (`<=` → `<`), exactly hfi1_setup_wqe's call_send
/// differs, on the corpus vector that pins it and on generated vectors, and
/// the minimal reproducer still shows it with the send at the threshold.
pub fn diff_finds_the_mutant(tree: &KernelTree) -> Result<(), Failed> {
    let m = MUTATIONS
        .iter()
        .find(|m| m.name == "piothreshold_le_to_lt")
        .ok_or("no piothreshold mutation")?;
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
    let base = cworld::build(tree, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
    let funcs = [Func::SetupWqe, Func::QpToSdmaEngine];
    let same =
        harness::judge::compare::compare(&base, &base, &vectors, &funcs, 300, 1, &mut |_| {})
            .map_err(|e| format!("{e:#}"))?;
    // The same objects on both sides: nothing to run.
    if same.differs() || same.same_code != funcs {
        return Err(format!(
            "a tree against itself: groups {:?}, not run {:?}",
            same.groups, same.same_code
        )
        .into());
    }
    let c = edited(tree, (m.file, m.from, m.to), "diff", |t| {
        harness::judge::compare::compare(
            &base,
            &world_of(t)?,
            &vectors,
            &funcs,
            300,
            1,
            &mut |_| {},
        )
        .map_err(|e| format!("{e:#}").into())
    })?;
    let shapes: Vec<(Func, Vec<String>)> =
        c.groups.iter().map(|g| (g.func, g.shape.clone())).collect();
    if shapes != vec![(Func::SetupWqe, vec!["call_send".to_owned()])] {
        return Err(format!("groups {shapes:?}").into());
    }
    let g = &c.groups[0];
    if g.count < 2 || g.minimal.wqe.length != u32::from(g.minimal.world.piothreshold) {
        return Err(format!("count {}, minimal {:?}", g.count, g.minimal.wqe).into());
    }
    Ok(())
}

/// The functions a comparison does not run are never ones that differ:
/// for every mutation, each function is run on both sides whatever the
/// objects say (`Selection::Every`), and each that differs must be among
/// those `cworld::reach` finds reaching changed code. And it is not
/// everything: the piothreshold mutant reaches hfi1_setup_wqe and not the
/// engine selection.
pub fn reach_is_sound(tree: &KernelTree) -> Result<(), Failed> {
    use harness::judge::compare::{count_differences, Selection};
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
    let base = cworld::build(tree, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
    for m in MUTATIONS {
        let world = edited(tree, (m.file, m.from, m.to), "reach", world_of)
            .map_err(|e| format!("{}: {e:?}", m.name))?;
        let reach = cworld::reach::affected(&base, &world, Func::ALL);
        if reach.fallback.is_some() || reach.affected.is_empty() {
            return Err(format!("{}: {reach:?}", m.name).into());
        }
        let differ = |funcs: &[Func]| {
            count_differences(&base, &world, &vectors, funcs, (100, 1), Selection::Every)
        };
        // Every function at once; where that fails (a mutant that reads
        // out of bounds may crash only after other calls), one at a time,
        // a failing one counted as differing.
        let differing: Vec<Func> = match differ(Func::ALL) {
            Ok(c) => c.groups.iter().map(|g| g.func).collect(),
            Err(_) => Func::ALL
                .iter()
                .copied()
                .filter(|f| differ(&[*f]).map_or(true, |c| c.differs()))
                .collect(),
        };
        let missed: Vec<Func> = differing
            .into_iter()
            .filter(|f| !reach.affected.contains(f))
            .collect();
        if !missed.is_empty() {
            return Err(format!(
                "{}: {missed:?} differ but reach only {:?} (changed: {:?})",
                m.name, reach.affected, reach.changed
            )
            .into());
        }
        if m.name == "piothreshold_le_to_lt"
            && (!reach.affected.contains(&Func::SetupWqe)
                || reach.affected.contains(&Func::QpToSdmaEngine))
        {
            return Err(format!("{}: reaches {:?}", m.name, reach.affected).into());
        }
    }
    Ok(())
}

/// Leaks are findings in the normal build: a tree whose qp_priv_alloc
/// keeps its private data when the AHG block cannot be allocated, and one
/// whose qp_priv_free keeps the AHG block, each journal the block no data
/// of the world reaches (`leak: …`) where the tree as released journals
/// none; beside the journal, a note gives the block's size and where
/// it was allocated (the line of the edited tree's own file).
pub fn leaks_are_found(tree: &KernelTree) -> Result<(), Failed> {
    use harness::cworld::{call, CallResult, Worker};
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
    let outcome = |t: &KernelTree, id: &str| -> Result<harness::outcome::Outcome, Failed> {
        let v = vectors
            .iter()
            .find(|v| v.id() == id)
            .ok_or_else(|| format!("no vector {id}"))?;
        let world = cworld::build(t, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
        let mut w = Worker::new(&world).map_err(|e| format!("{e:#}"))?;
        let r = w
            .run_batch(&[call::to_shim(&v.call)])
            .map_err(|e| format!("{e:#}"))?;
        match r.first() {
            Some(CallResult::Done(o)) => Ok((**o).clone()),
            other => Err(format!("{id}: {other:?}").into()),
        }
    };
    let journal = |t: &KernelTree, id: &str| outcome(t, id).map(|o| o.journal);
    let leaks = |j: &[String]| -> Vec<String> {
        j.iter()
            .filter(|l| l.starts_with("leak: "))
            .cloned()
            .collect()
    };
    // (vector, edit, the leak line, the note: where upstream allocated
    // the block, by the text of its line, or the world's name for it)
    let cases = [
        (
            "lifecycle::alloc_ahg_fails",
            "\t\tkfree(priv);\n\t\treturn ERR_PTR(-ENOMEM);",
            "\t\treturn ERR_PTR(-ENOMEM);",
            "leak: kmalloc in qp_priv_alloc",
            Ok("priv = kzalloc_node(sizeof(*priv)"),
        ),
        (
            "lifecycle::priv_free",
            "\tkfree(priv->s_ahg);\n\tkfree(priv);",
            "\tkfree(priv);",
            "leak: its AHG block",
            Err("(the world's: its AHG block)"),
        ),
    ];
    for (id, from, to, want, site) in cases {
        let before = leaks(&journal(tree, id)?);
        if !before.is_empty() {
            return Err(format!("{id}: the released tree leaks: {before:?}").into());
        }
        let (after, notes, want_note) = edited(tree, (QP_C, from, to), "leak", |t| {
            let o = outcome(t, id)?;
            let want_note = match site {
                Ok(text) => {
                    let src = std::fs::read_to_string(t.root.join(QP_C))
                        .map_err(|e| format!("{QP_C}: {e}"))?;
                    let line = src
                        .lines()
                        .position(|l| l.contains(text))
                        .ok_or_else(|| format!("{QP_C}: no line holds `{text}`"))?;
                    let what = want.trim_start_matches("leak: ");
                    format!("bytes from qp.c:{} ({what})", line + 1)
                }
                Err(world) => format!("bytes {world}"),
            };
            Ok((o.journal, o.notes.0, want_note))
        })?;
        let after = leaks(&after);
        if after != [want] {
            return Err(format!("{id}: leaks {after:?}, want [{want:?}]").into());
        }
        // `leak: SIZE bytes from qp.c:LINE`, SIZE a block's (not zero).
        let sized = |n: &str| {
            n.strip_prefix("leak: ")
                .and_then(|r| r.split_once(' '))
                .is_some_and(|(size, rest)| {
                    size.parse::<usize>().is_ok_and(|s| s > 0) && rest == want_note
                })
        };
        if notes.len() != 1 || !sized(&notes[0]) {
            return Err(format!("{id}: notes {notes:?}, want [leak: SIZE {want_note}]").into());
        }
    }
    leak_found_in_a_batch(tree, &vectors)?;
    leak_reported_once(tree, &vectors)?;
    notes_overflow_is_marked(tree, &vectors)
}

/// Leaks past the notes' room: every journal line kept, the notes that
/// fit whole, then `notes-overflow` once. (60 blocks after the vector's
/// two allocations: none is the 65th, which fails again.)
fn notes_overflow_is_marked(tree: &KernelTree, vectors: &[corpus::Vector]) -> Result<(), Failed> {
    use harness::cworld::{call, CallResult, Worker};
    let id = "lifecycle::alloc_ahg_fails";
    let v = vectors
        .iter()
        .find(|v| v.id() == id)
        .ok_or_else(|| format!("no vector {id}"))?;
    let (from, to) = (
        "\t\tkfree(priv);\n\t\treturn ERR_PTR(-ENOMEM);",
        "\t\t{ int i; void *p; for (i = 0; i < 60; i++) p = kmalloc(8, GFP_KERNEL); (void)p; }\n\t\tkfree(priv);\n\t\treturn ERR_PTR(-ENOMEM);",
    );
    let o = edited(tree, (QP_C, from, to), "leaks-many", |t| {
        let world = cworld::build(t, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
        let mut w = Worker::new(&world).map_err(|e| format!("{e:#}"))?;
        let r = w
            .run_batch(&[call::to_shim(&v.call)])
            .map_err(|e| format!("{e:#}"))?;
        match r.into_iter().next() {
            Some(CallResult::Done(o)) => Ok(*o),
            other => Err(format!("{id}: {other:?}").into()),
        }
    })?;
    let notes = &o.notes.0;
    let lines = o.journal.iter().filter(|l| l.starts_with("leak: ")).count();
    let whole = notes[..notes.len().saturating_sub(1)].iter().all(|n| {
        n.starts_with("leak: 8 bytes from qp.c:") && n.ends_with("(kmalloc in qp_priv_alloc)")
    });
    let bytes: usize = notes.iter().map(|n| n.len() + 1).sum();
    if lines != 60
        || notes.last().map(String::as_str) != Some("notes-overflow")
        || !whole
        || notes.len() > 40
        || bytes > 2047
    {
        return Err(format!(
            "{lines} leak lines; {} notes, {bytes} bytes: {notes:?}",
            notes.len()
        )
        .into());
    }
    Ok(())
}

/// A leak found alone is found in a batch too: a tree whose pio_map_init
/// keeps its partial map when an element cannot be allocated leaks it in
/// every corpus vector of pio_map_init that fails so, run one after the
/// other in one worker. (The mocks' own tables once kept stale addresses
/// of blocks freed by the calls before, which the allocator gave again:
/// a leaked block at such an address looked referenced.)
fn leak_found_in_a_batch(tree: &KernelTree, vectors: &[corpus::Vector]) -> Result<(), Failed> {
    use harness::cworld::{call, CallResult, Worker};
    use harness::model::types::Func;
    let pio = "drivers/infiniband/hw/hfi1/pio.c";
    let from = "\t/* free any partial allocation */\n\tpio_map_free(newmap);\n";
    let ours: Vec<&corpus::Vector> = vectors
        .iter()
        .filter(|v| v.then.is_empty() && v.call.func() == Func::PioMapInit)
        .collect();
    let calls: Vec<_> = ours.iter().map(|v| call::to_shim(&v.call)).collect();
    let leaking = edited(tree, (pio, from, ""), "leak-batch", |t| {
        let world = cworld::build(t, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
        let mut w = Worker::new(&world).map_err(|e| format!("{e:#}"))?;
        let r = w.run_batch(&calls).map_err(|e| format!("{e:#}"))?;
        let mut leaking = vec![];
        for (v, r) in ours.iter().zip(&r) {
            let CallResult::Done(o) = r else {
                return Err(format!("{}: {r:?}", v.id()).into());
            };
            let j = &o.journal;
            // The map allocated, a later allocation failing: it is kept.
            let failed = j.iter().any(|l| l.ends_with("= NULL"))
                && j.iter()
                    .find(|l| l.starts_with("kmalloc("))
                    .is_some_and(|l| !l.ends_with("= NULL"));
            let leaked = j.iter().any(|l| l == "leak: kmalloc in pio_map_init");
            if failed != leaked {
                return Err(format!(
                    "{}: allocation failed {failed}, leak {leaked}: {j:?}",
                    v.id()
                )
                .into());
            }
            leaking.extend(leaked.then(|| v.id()));
        }
        Ok(leaking)
    })?;
    if leaking.len() < 2 {
        return Err(format!("too few pio_map_init vectors fail an allocation: {leaking:?}").into());
    }
    Ok(())
}

/// A leak is reported once in a scenario: a later step keeps the blocks
/// of the step before (the leaked one among them) and does not journal
/// that leak again.
fn leak_reported_once(tree: &KernelTree, vectors: &[corpus::Vector]) -> Result<(), Failed> {
    use harness::cworld::{CallResult, Worker};
    let find = |id: &str| {
        vectors
            .iter()
            .find(|v| v.id() == id)
            .ok_or_else(|| format!("no vector {id}"))
    };
    let mut scenario = find("lifecycle::alloc_ahg_fails")?.clone();
    let later = find("setup_wqe::rc_zero_length")?.call.args;
    scenario.then = vec![harness::model::types::Call {
        args: later,
        ..scenario.call.clone()
    }];
    let from = "\t\tkfree(priv);\n\t\treturn ERR_PTR(-ENOMEM);";
    let to = "\t\treturn ERR_PTR(-ENOMEM);";
    let journals = edited(tree, (QP_C, from, to), "leak", |t| {
        let world = cworld::build(t, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
        let mut w = Worker::new(&world).map_err(|e| format!("{e:#}"))?;
        let flat = harness::judge::check::flat_calls([&scenario]);
        let r = w.run_batch(&flat).map_err(|e| format!("{e:#}"))?;
        r.iter()
            .map(|r| match r {
                CallResult::Done(o) => Ok(o.journal.clone()),
                other => Err(Failed::from(format!("scenario step: {other:?}"))),
            })
            .collect::<Result<Vec<_>, Failed>>()
    })?;
    let leaks: Vec<usize> = journals
        .iter()
        .map(|j| j.iter().filter(|l| l.starts_with("leak: ")).count())
        .collect();
    if leaks != [1, 0] {
        return Err(format!("leak lines per step {leaks:?}, want [1, 0]: {journals:?}").into());
    }
    Ok(())
}

/// The failslab sweep: a tree whose qp_priv_alloc returns another error
/// when its second allocation fails differs from the released one even
/// when the corpus given holds no vector that fails an allocation — the
/// comparison fails each allocation of `lifecycle::alloc_ok` in turn. And
/// of a scenario's later step: one whose extension returns another error
/// when its array cannot be allocated differs in a scenario that fails
/// nothing itself, at the step that extends, with that step's allocation
/// failing.
pub fn failslab_sweep(tree: &KernelTree) -> Result<(), Failed> {
    failslab_sweep_of_a_scenario(tree)?;
    let vectors: Vec<corpus::Vector> = corpus::load_corpus(&corpus::corpus_dir())
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|v| v.id() == "lifecycle::alloc_ok")
        .collect();
    if vectors.len() != 1 || vectors[0].call.world.alloc_fail != 0 {
        return Err("lifecycle::alloc_ok is not one vector failing nothing".into());
    }
    let base = cworld::build(tree, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
    let from = "\t\tkfree(priv);\n\t\treturn ERR_PTR(-ENOMEM);";
    let to = "\t\tkfree(priv);\n\t\treturn ERR_PTR(-ENOSPC);";
    let c = edited(tree, (QP_C, from, to), "failslab", |t| {
        harness::judge::compare::compare(
            &base,
            &world_of(t)?,
            &vectors,
            &[Func::QpPrivAlloc],
            0,
            1,
            &mut |_| {},
        )
        .map_err(|e| format!("{e:#}").into())
    })?;
    let firsts: Vec<String> = c.groups.iter().map(|g| g.first.to_string()).collect();
    if firsts != ["lifecycle::alloc_ok with allocation 2 failing"] {
        return Err(format!("groups first seen at {firsts:?}").into());
    }
    Ok(())
}

fn failslab_sweep_of_a_scenario(tree: &KernelTree) -> Result<(), Failed> {
    const SDMA_C: &str = "drivers/infiniband/hw/hfi1/sdma.c";
    let id = "txbuild::build_extend_fails_later";
    let mut v = corpus::load_corpus(&corpus::corpus_dir())
        .map_err(|e| e.to_string())?
        .into_iter()
        .find(|v| v.id() == id)
        .ok_or_else(|| format!("no scenario {id}"))?;
    if v.then.len() != 1 || v.then[0].world.alloc_fail == 0 {
        return Err(format!("{id} is not a scenario whose second step fails").into());
    }
    // The scenario failing nothing: the sweep fails each allocation.
    v.then[0].world.alloc_fail = 0;
    let base = cworld::build(tree, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
    let from = "enomem:\n\t__sdma_txclean(dd, tx);\n\treturn -ENOMEM;";
    let to = "enomem:\n\t__sdma_txclean(dd, tx);\n\treturn -ENOSPC;";
    let c = edited(tree, (SDMA_C, from, to), "failslab-steps", |t| {
        harness::judge::compare::compare(
            &base,
            &world_of(t)?,
            std::slice::from_ref(&v),
            &[Func::SdmaTxaddPage],
            0,
            1,
            &mut |_| {},
        )
        .map_err(|e| format!("{e:#}").into())
    })?;
    let firsts: Vec<String> = c.groups.iter().map(|g| g.first.to_string()).collect();
    let want = format!("{id}, step 2, with allocation 1 of step 2 failing");
    if firsts != [want.as_str()] {
        return Err(format!("groups first seen at {firsts:?}, want [{want}]").into());
    }
    // Its reproducer is the scenario with that step failing it.
    let case = c.groups[0].case.clone().unwrap_or_default();
    if !case.contains("world.alloc_fail = \"0x1\"") || !case.contains("then = [") {
        return Err(format!("reproducer:\n{case}").into());
    }
    Ok(())
}

/// `cargo xtask mutants --function qp_to_send_context --function
/// sdma_select_engine_vl`: mutants are made wherever the worlds take a
/// function from, qp.c compiled whole or sdma.c's extracted definition,
/// each located at its line of its own file; the corpus (select.toml)
/// kills every one of sdma.c's, and the run agrees with
/// vectors/mutants.toml. qp.c's mutant comes first and is killed. The
/// deletion of `rval = NULL;` is killed too since locals hold a pattern
/// (-ftrivial-auto-var-init=pattern): the uninitialised rval gcc made 0
/// before, which `!rval` turned into per_sdma[0] as the original does,
/// hid it.
pub fn mutants_of_an_extracted_function(tree: &KernelTree) -> Result<(), Failed> {
    use harness::cmd::mutants::{self as m, Fate};
    const SDMA_C: &str = "drivers/infiniband/hw/hfi1/sdma.c";
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
    let opts = m::Options {
        functions: vec!["qp_to_send_context".into(), "sdma_select_engine_vl".into()],
        sample: 0,
        seed: 1,
        random: 0,
        sanitize: false,
        shard: None,
        alone: false,
        ..Default::default()
    };
    let results = m::run(tree, &vectors, &opts, &mut |_| {}).map_err(|e| format!("{e:#}"))?;
    let files: Vec<(&str, &str)> = results
        .iter()
        .map(|(x, _)| (x.file.as_str(), x.function.as_str()))
        .collect();
    let qp = ("drivers/infiniband/hw/hfi1/qp.c", "qp_to_send_context");
    let sdma = (SDMA_C, "sdma_select_engine_vl");
    if files.len() < 10 || files[0] != qp || files[1..].iter().any(|f| *f != sdma) {
        return Err(format!("mutants of {files:?}").into());
    }
    // Each mutant's line is its site's line in the tree's file.
    let lines: Vec<String> = std::fs::read_to_string(tree.path(SDMA_C))
        .map_err(|e| e.to_string())?
        .lines()
        .map(|l| l.trim().to_owned())
        .collect();
    for (x, _) in &results[1..] {
        if lines.get(x.line - 1) != Some(&x.site) {
            return Err(format!("{}: not the text of line {}", x.location(), x.line).into());
        }
    }
    let fate = |id: &str| {
        results
            .iter()
            .find(|(x, _)| x.id().contains(id))
            .map(|(_, f)| f)
    };
    let killed = |f: Option<&Fate>| matches!(f, Some(Fate::Killed { .. }));
    if !killed(fate("qp_to_send_context: "))
        || !killed(fate("`if (vl >= num_vls) {` [>= -> >#0]"))
        || !killed(fate("`rval = NULL;` [delete statement#0]"))
        || !results.iter().all(|(_, f)| killed(Some(f)))
    {
        return Err(format!("fates {results:?}").into());
    }
    let listed = m::read_manifest().map_err(|e| format!("{e:#}"))?;
    let listed = m::listed_for_tree(&listed, &tree.version);
    let tally = m::tally(&listed, &results, &opts);
    if !tally.problems.is_empty() || tally.stillborn != 0 {
        let problems: Vec<String> = tally.problems.iter().map(|p| p.to_string()).collect();
        return Err(format!("{} stillborn; {problems:?}", tally.stillborn).into());
    }
    Ok(())
}

/// The functions of the schemata trials: a global function extracted from
/// sdma.c whose survivor reads an uninitialised variable (its fate is the
/// compiler's), static ones of qp.c, a `void` one, one of qp.c called by
/// many, and `_hfi1_schedule_send`, whose one mutant (a deleted call whose
/// value initialises a declaration) does not compile, so the schemata
/// finds it and builds it alone.
const SCHEMATA_SAMPLE: [&str; 6] = [
    "sdma_select_engine_vl",
    "mtu_from_qp",
    "hfi1_sc_wantpiobuf_intr",
    "iowait_wakeup",
    "qp_to_send_context",
    "_hfi1_schedule_send",
];

fn sample_options(alone: bool) -> harness::cmd::mutants::Options {
    harness::cmd::mutants::Options {
        functions: SCHEMATA_SAMPLE.iter().map(|f| f.to_string()).collect(),
        sample: 0,
        seed: 1,
        random: 0,
        sanitize: false,
        shard: None,
        alone,
        ..Default::default()
    }
}

/// Mutant schemata change no verdict: the sample's mutants judged in one
/// schemata world and each in its own world have the same fates; those
/// that do not compile are found in the schemata and built alone, and do
/// not compile there either. (How many calls a killed mutant changes may
/// differ where it reads out of bounds: mtu_from_qp's `port_num - 2` reads
/// the bytes of pointers in the device, and code is laid out otherwise.)
pub fn schemata_agree_with_alone(tree: &KernelTree) -> Result<(), Failed> {
    use harness::cmd::mutants::{self as m, Fate};
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
    let mut lines = vec![];
    let schemata = m::run(tree, &vectors, &sample_options(false), &mut |l| {
        lines.push(l.to_owned())
    })
    .map_err(|e| format!("{e:#}"))?;
    let alone =
        m::run(tree, &vectors, &sample_options(true), &mut |_| {}).map_err(|e| format!("{e:#}"))?;
    let kind = |f: &Fate| match f {
        Fate::Killed { .. } => "killed".to_owned(),
        Fate::Survived => "survived".into(),
        Fate::Stillborn(_) => "not judged".into(),
    };
    let fates = |r: &[(m::Mutant, Fate)]| -> Vec<(String, String)> {
        r.iter().map(|(x, f)| (x.id(), kind(f))).collect()
    };
    let (s, a) = (fates(&schemata), fates(&alone));
    if s.len() < 25 || s != a {
        let differ: Vec<_> = s.iter().zip(&a).filter(|(x, y)| x != y).collect();
        return Err(format!("{} mutants; schemata vs alone: {differ:?}", s.len()).into());
    }
    let left_out: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("does not compile in the schemata: "))
        .collect();
    let stillborn = s.iter().filter(|(_, f)| f == "not judged").count();
    if left_out.len() != stillborn || stillborn == 0 || lines.iter().any(|l| l.contains("alone:")) {
        return Err(format!("{stillborn} not judged; progress: {lines:?}").into());
    }
    Ok(())
}

/// A schemata world's reach is sound: with a mutant's switch on (the first
/// four of each function of the sample), every function whose calls
/// differ from the base world's when all run (`Selection::Every`) is among
/// those `cworld::reach::reaching` finds reaching the switch of the
/// function mutated — and not every function.
pub fn schemata_reach_is_sound(tree: &KernelTree) -> Result<(), Failed> {
    use harness::cmd::mutants::{self as m, schemata};
    use harness::judge::compare::{count_differences, Selection};
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
    let base = cworld::build(tree, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
    let all = m::list(tree, &sample_options(false).functions).map_err(|e| format!("{e:#}"))?;
    let (world, values) = schemata::build(tree, &all, &BuildOptions::default(), &mut |_| {})
        .map_err(|e| format!("{e:#}"))?;
    let world = world.ok_or("no schemata world")?;
    for (x, v) in all.iter().zip(values) {
        let Some(v) = v.filter(|v| *v <= 4) else {
            continue;
        };
        let switch = schemata::switch_of(&x.function);
        let reach = &cworld::reach::reaching(&world, std::slice::from_ref(&switch), Func::ALL)[0];
        if reach.fallback.is_some() || reach.same_code.is_empty() {
            return Err(format!("{}: {reach:?}", x.id()).into());
        }
        let w = world.switched(&switch, v);
        let c = count_differences(&base, &w, &vectors, Func::ALL, (100, 1), Selection::Every)
            .map_err(|e| format!("{}: {e:#}", x.id()))?;
        let missed: Vec<Func> = c
            .per_func
            .iter()
            .filter(|p| p.2 > 0 && !reach.affected.contains(&p.0))
            .map(|p| p.0)
            .collect();
        if !missed.is_empty() {
            return Err(
                format!("{}: {missed:?} differ, reach {:?}", x.id(), reach.affected).into(),
            );
        }
    }
    Ok(())
}
