//! The gate on hand-made patches, each verdict with its attribution: a
//! patch is made from the series' tree with diff(1) and judged on it.

use harness::cmd::gate::{self, PatchVerdict};
use harness::corpus::{self, Vector};
use harness::judge::compare;
use harness::kernel::KernelTree;
use harness::model::types::Func;
use libtest_mimic::Failed;

/// The gate on interfaces the tree has or lacks (`upstream/interfaces.rs`).
pub mod interfaces;
/// The gate on what lockdep reports (`upstream/lockdep.rs`).
pub mod lockdep;

const QP: &str = "drivers/infiniband/hw/hfi1/qp.c";
const SDMA: &str = "drivers/infiniband/hw/hfi1/sdma.c";
const PIO: &str = "drivers/infiniband/hw/hfi1/pio.c";
const LE: &str = "if (wqe->length <= piothreshold)";
const LT: &str = "if (wqe->length < piothreshold)";
/// The start of a definition no world compiles (sdma.c's event names,
/// read only with CONFIG_SDMA_VERBOSITY: `c-shim/unjudged.toml`), and it
/// with a comment added.
const UNRUN: &str = "static const char * const sdma_event_names[] = {\n";
const UNRUN_EDITED: &str = "static const char * const sdma_event_names[] = {\n\t/* verbose */\n";

/// The unified diff (diff(1), `a/` and `b/` labels) of `file` in `tree`
/// with `from` replaced by `to`; empty when `from` is not there.
fn diff_of(tree: &KernelTree, file: &str, from: &str, to: &str) -> String {
    diff_of_all(tree, file, &[(from, to)])
}

/// [`diff_of`] with each `(from, to)` of `edits` replaced in turn.
fn diff_of_all(tree: &KernelTree, file: &str, edits: &[(&str, &str)]) -> String {
    let old = std::fs::read_to_string(tree.path(file)).unwrap_or_default();
    let new = edits
        .iter()
        .fold(old.clone(), |text, (from, to)| text.replacen(from, to, 1));
    let dir = std::env::temp_dir().join(format!(
        "hfi1-mkpatch-{}-{}-{:?}",
        std::process::id(),
        tree.version,
        std::thread::current().id()
    ));
    let _ = std::fs::create_dir_all(&dir);
    let (a, b) = (dir.join("a"), dir.join("b"));
    let _ = std::fs::write(&a, &old);
    let _ = std::fs::write(&b, &new);
    let out = std::process::Command::new("diff")
        .args(["-u", "--label"])
        .arg(format!("a/{file}"))
        .arg("--label")
        .arg(format!("b/{file}"))
        .arg(&a)
        .arg(&b)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// A patch of `file` in `tree` that replaces `from` by `to` (a unified
/// diff made by diff(1), as a reviewer would get it).
pub fn make_patch(tree: &KernelTree, file: &str, from: &str, to: &str, subject: &str) -> String {
    make_patch_all(tree, file, &[(from, to)], subject)
}

/// [`make_patch`] of several replacements in one file.
fn make_patch_all(tree: &KernelTree, file: &str, edits: &[(&str, &str)], subject: &str) -> String {
    let out = diff_of_all(tree, file, edits);
    format!("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] {subject}\n\n---\n{out}")
}

/// A patch as `git format-patch` writes it, of every `(file, from, to)`
/// replacement in `tree`: each file's section opens with `diff --git` and
/// `index` lines.
fn format_patch(tree: &KernelTree, edits: &[(&str, &str, &str)], subject: &str) -> String {
    let mut text = format!(
        "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n\
         From: A <a@example.org>\nSubject: [PATCH] {subject}\n\n---\n"
    );
    for (file, from, to) in edits {
        text.push_str(&format!(
            "diff --git a/{file} b/{file}\nindex 0123456789ab..ba9876543210 100644\n"
        ));
        text.push_str(&diff_of(tree, file, from, to));
    }
    text.push_str("-- \n2.43.0\n");
    text
}

/// The gate on one base, with the corpus loaded.
struct Gate<'a> {
    tree: &'a KernelTree,
    vectors: Vec<Vector>,
    opts: gate::Options,
}

impl<'a> Gate<'a> {
    /// The gate on `tree` with the corpus and 200 generated vectors a
    /// function.
    fn new(tree: &'a KernelTree) -> Result<Gate<'a>, Failed> {
        Ok(Gate {
            tree,
            vectors: corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?,
            opts: gate::Options {
                random: 200,
                seed: 1,
                funcs: Func::ALL.to_vec(),
                expect: vec![],
                depth: false,
                suggest: 0,
            },
        })
    }

    /// A patch of `file` in the tree (see [`make_patch`]).
    fn patch(&self, file: &str, from: &str, to: &str, subject: &str) -> String {
        make_patch(self.tree, file, from, to, subject)
    }

    /// A patch of several replacements in `file` (see [`make_patch_all`]).
    fn patch_all(&self, file: &str, edits: &[(&str, &str)], subject: &str) -> String {
        make_patch_all(self.tree, file, edits, subject)
    }

    /// Judges the series `text` on the tree.
    fn run(&self, text: String) -> Result<Vec<gate::Judged>, Failed> {
        let patches = gate::parse(&text, "t.mbox");
        gate::judge(
            self.tree,
            "base",
            &patches,
            &self.vectors,
            &self.opts,
            &mut |_| {},
        )
        .map_err(|e| format!("{e:#}").into())
    }
}

/// Each judgement's verdict word.
fn verdicts(j: &[gate::Judged]) -> Vec<&'static str> {
    j.iter().map(|x| x.verdict.word()).collect()
}

/// The `(function, shape)` of each group of differing calls.
fn shapes(j: &gate::Judged) -> Vec<(Func, Vec<String>)> {
    j.comparison
        .as_ref()
        .map(|c| c.groups.iter().map(|g| (g.func, g.shape.clone())).collect())
        .unwrap_or_default()
}

/// The gate on hand-made patches, each verdict with its attribution.
pub fn gate_verdicts(tree: &KernelTree) -> Result<(), Failed> {
    let g = Gate::new(tree)?;
    // A comment only: preserves.
    let j = g.run(g.patch(QP, LE, &format!("/* threshold */ {LE}"), "comment"))?;
    if verdicts(&j) != ["preserves"] {
        return Err(format!("comment: {:?}", verdicts(&j)).into());
    }
    let change = a_changed_comparison(&g)?;
    as_archived(&g, &change)?;
    a_deleted_tracepoint(&g)?;
    a_removed_function(&g)?;
    declared_reverted_and_not_applying(&g, &change)?;
    build_errors_and_warnings(&g)?;
    what_is_not_judged(&g)
}

/// A changed comparison: changes, in hfi1_setup_wqe's call_send only,
/// with a one-key reproducer, the world state it reads, the drift from
/// the model and the patch coverage. The patch, for the tests after it.
fn a_changed_comparison(g: &Gate) -> Result<String, Failed> {
    let change = g.patch(QP, LE, LT, "threshold");
    let j = g.run(change.clone())?;
    let groups = shapes(&j[0]);
    if verdicts(&j) != ["changes"] || groups != [(Func::SetupWqe, vec!["call_send".to_owned()])] {
        return Err(format!("change: {:?} {groups:?}", verdicts(&j)).into());
    }
    let first = j[0].comparison.as_ref().and_then(|c| c.groups.first());
    // The reproducer, as a case of setup_wqe.toml, needs one key: a send
    // of exactly the threshold.
    let case = first.and_then(|g| g.case.clone()).unwrap_or_default();
    let keys: Vec<&str> = case
        .lines()
        .filter(|l| {
            !l.starts_with("[[case]]")
                && !l.starts_with("name ")
                && !l.starts_with("branch ")
                && !l.starts_with("fn ")
        })
        .collect();
    if keys != ["wqe.length = 256"] {
        return Err(format!("reproducer: {case}").into());
    }
    // The call line names the world state the outcome depends on: the
    // module parameter the changed comparison reads.
    let reads = first.map(|g| g.reads.clone()).unwrap_or_default();
    if !reads.iter().any(|r| r.starts_with("world.piothreshold = ")) {
        return Err(format!("reads: {reads:?}").into());
    }
    // Against the Rust model, reported apart: the patch moves upstream away
    // from it on the vector that pins the threshold.
    match &j[0].model {
        Some(gate::ModelDrift { before, after, .. })
            if before.is_empty()
                && after.contains(&"setup_wqe::rc_at_piothreshold_sets_call_send".to_owned()) => {}
        other => return Err(format!("model: {other:?}").into()),
    }
    // The changed line is executable and the vectors ran it (gcov).
    match &j[0].coverage {
        Some(c) if c.changed == 1 && c.executed == 1 && c.missed.is_empty() => {}
        other => return Err(format!("patch coverage: {other:?}").into()),
    }
    Ok(change)
}

/// The same patch as a list archive stores one message of a stable queue
/// (no mbox line, `[PATCH 5.10 069/306]`, `commit X upstream.`, the body
/// quoted-printable with soft line breaks): the same verdict and groups.
fn as_archived(g: &Gate, change: &str) -> Result<(), Failed> {
    let body = change.split_once("\n\n").map_or(change, |x| x.1);
    let mut qp = String::new();
    for line in
        format!("commit 0123456789abcdef0123456789abcdef01234567 upstream.\n\n{body}").lines()
    {
        let enc = line.replace('=', "=3D");
        // Lines of at most 76, each break a soft one (`=` at its end).
        let mut rest = enc.as_str();
        while rest.len() > 70 {
            let cut = (60..70)
                .find(|&i| rest.is_char_boundary(i) && !rest[..i].ends_with(['=', '3']))
                .unwrap_or(70);
            qp.push_str(&rest[..cut]);
            qp.push_str("=\n");
            rest = &rest[cut..];
        }
        qp.push_str(rest);
        qp.push('\n');
    }
    let message = format!(
        "From: Stable <s@example.org>\nSubject: [PATCH 5.10 069/306] IB/hfi1: threshold\n\
         MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\
         Content-Transfer-Encoding: quoted-printable\n\n{qp}"
    );
    let (plain, archived) = (g.run(change.to_owned())?, g.run(message)?);
    if verdicts(&archived) != verdicts(&plain)
        || shapes(&archived[0]) != shapes(&plain[0])
        || archived[0].patch.subject != "IB/hfi1: threshold"
    {
        return Err(format!(
            "archived: {:?} {:?} {:?}",
            verdicts(&archived),
            shapes(&archived[0]),
            archived[0].patch.subject
        )
        .into());
    }
    Ok(())
}

/// A deleted tracepoint: changes, and every group says it is the
/// tracepoints alone that moved (hfi1_qp_wakeup and the iowait callback
/// that calls it).
fn a_deleted_tracepoint(g: &Gate) -> Result<(), Failed> {
    let j = g.run(g.patch(QP, "\t\ttrace_hfi1_qpwakeup(qp, flag);\n", "", "untrace"))?;
    let shapes = shapes(&j[0]);
    if verdicts(&j) != ["changes"]
        || shapes.is_empty()
        || shapes.iter().any(|(_, s)| s != &["tracepoints".to_owned()])
        || !shapes.iter().any(|(f, _)| *f == Func::QpWakeup)
    {
        return Err(format!("tracepoint: {:?} {shapes:?}", verdicts(&j)).into());
    }
    Ok(())
}

/// A patch removing a function and its prototype (sdma_all_idle, in the
/// trees up to 6.12): the function is a changed one, judged; its vectors
/// run on the tree before only (named removed), so it `preserves`.
fn a_removed_function(g: &Gate) -> Result<(), Failed> {
    let src = std::fs::read_to_string(g.tree.path(SDMA)).unwrap_or_default();
    let Some(at) = src.find("void sdma_all_idle(struct hfi1_devdata *dd)\n{") else {
        return Ok(()); // removed upstream already (7.2 on)
    };
    let end = src[at..].find("\n}\n").map_or(src.len(), |e| at + e + 3);
    let proto = "void sdma_all_idle(struct hfi1_devdata *dd);\n";
    let text = format_patch(
        g.tree,
        &[
            (SDMA, &src[at..end], ""),
            ("drivers/infiniband/hw/hfi1/sdma.h", proto, ""),
        ],
        "IB/hfi1: Remove sdma_all_idle",
    );
    let j = g.run(text)?;
    let removed = j[0].comparison.as_ref().map(|c| c.not_in_tree.clone());
    let judged = &j[0].functions.judged;
    if verdicts(&j) != ["preserves"]
        || !judged.iter().any(|f| f == "sdma.c: sdma_all_idle")
        || !j[0].functions.not_judged.is_empty()
        || removed != Some(vec![(Func::SdmaAllIdle, compare::Presence::Removed)])
    {
        return Err(format!(
            "removed: {:?} judged {judged:?} not judged {:?}, {removed:?}",
            verdicts(&j),
            j[0].functions.not_judged
        )
        .into());
    }
    Ok(())
}

/// The `change` patch declared, followed by its revert, and after a patch
/// that does not apply.
fn declared_reverted_and_not_applying(g: &Gate, change: &str) -> Result<(), Failed> {
    // Declared: changes-as-declared.
    let declared = change.replacen(
        "\n\n---\n",
        "\n\nConformance-Changes: hfi1_setup_wqe\n---\n",
        1,
    );
    let j = g.run(declared)?;
    if verdicts(&j) != ["changes-as-declared"] {
        return Err(format!("declared: {:?}", verdicts(&j)).into());
    }
    // A series whose second patch reverts the first: each one changes
    // behaviour against the tree before it.
    let revert = change
        .replace("-\tif (wqe->length <= piothreshold)", "-\tTMP")
        .replace(
            "+\tif (wqe->length < piothreshold)",
            "-\tif (wqe->length < piothreshold)",
        )
        .replace("-\tTMP", "+\tif (wqe->length <= piothreshold)")
        .replace("[PATCH] threshold", "[PATCH] revert");
    let j = g.run(format!("{change}\n{revert}"))?;
    if verdicts(&j) != ["changes", "changes"] {
        return Err(format!("series: {:?}", verdicts(&j)).into());
    }
    // The revert brings upstream back to the model.
    match &j[1].model {
        Some(gate::ModelDrift { before, after, .. }) if !before.is_empty() && after.is_empty() => {}
        other => return Err(format!("revert vs model: {other:?}").into()),
    }
    // Context that is not there: does not apply (and nothing after it runs).
    let bad = change.replace(" \t", " \tNOT THERE ");
    let j = g.run(format!("{bad}\n{change}"))?;
    if !matches!(j[0].verdict, PatchVerdict::DoesNotApply(_))
        || !matches!(j[1].verdict, PatchVerdict::CannotJudge(_))
    {
        return Err(format!("does not apply: {:?}", verdicts(&j)).into());
    }
    Ok(())
}

/// A syntax error breaks the build; an unused variable and a function
/// without a prototype preserve behaviour, with the warnings they add.
fn build_errors_and_warnings(g: &Gate) -> Result<(), Failed> {
    // A syntax error in qp.c: breaks the build, naming qp.c.
    let j = g.run(g.patch(QP, LE, "if (wqe->length <= piothreshold))", "syntax"))?;
    match &j[0].verdict {
        PatchVerdict::BreaksBuild(m) if m.contains("qp.c") => {}
        v => return Err(format!("syntax: {v:?}").into()),
    }
    // An unused variable: preserves, and the new warning is reported with
    // its place in qp.c.
    let j = g.run(g.patch(
        QP,
        "int mtu_to_path_mtu(u32 mtu)\n{\n",
        "int mtu_to_path_mtu(u32 mtu)\n{\n\tint unused_by_patch;\n\n",
        "unused",
    ))?;
    let w = &j[0].new_warnings;
    if verdicts(&j) != ["preserves"]
        || w.len() != 1
        || !w[0].starts_with("drivers/infiniband/hw/hfi1/qp.c:")
        || !w[0].contains("unused_by_patch")
    {
        return Err(format!("unused: {:?} {w:?}", verdicts(&j)).into());
    }
    // A global function without a prototype: the tree's own kbuild flags
    // decide. -Wmissing-prototypes is in every default build since 6.8
    // (scripts/Makefile.extrawarn, "Makefile.warn" in 7.x), W=1 before.
    let j = g.run(g.patch(
        QP,
        "int mtu_to_path_mtu(u32 mtu)\n{\n",
        "int gate_unprototyped(void)\n{\n\treturn 0;\n}\n\nint mtu_to_path_mtu(u32 mtu)\n{\n",
        "unprototyped",
    ))?;
    let w = &j[0].new_warnings;
    let version = &g.tree.version;
    let default_since_6_8 = (version.version, version.patchlevel) >= (6, 8);
    let warned = w
        .iter()
        .any(|x| x.contains("gate_unprototyped") && x.contains("-Wmissing-prototypes"));
    if verdicts(&j) != ["preserves"] || warned != default_since_6_8 {
        return Err(format!("missing prototype ({version}): {w:?}").into());
    }
    Ok(())
}

/// `text` with every hunk header `by` lines earlier, as if made on a tree
/// with fewer lines before each hunk.
fn shifted(text: &str, by: usize) -> String {
    let shift = |w: &str| {
        let (n, count) = w.split_once(',').map_or((w, None), |(n, c)| (n, Some(c)));
        let n = n.parse::<usize>().map_or(0, |n| n.saturating_sub(by));
        count.map_or(n.to_string(), |c| format!("{n},{c}"))
    };
    text.lines()
        .map(|l| match l.strip_prefix("@@ -") {
            Some(rest) => {
                let mut words = rest.splitn(3, ' ');
                let old = words.next().unwrap_or("0");
                let new = words.next().unwrap_or("+0").trim_start_matches('+');
                let tail = words.next().unwrap_or("@@");
                format!("@@ -{} +{} {tail}\n", shift(old), shift(new))
            }
            None => format!("{l}\n"),
        })
        .collect()
}

/// What the gate lists as not judged: nothing for a header the worlds
/// compile, a file no world compiles, a function no world runs, lines the
/// worlds' preprocessor leaves out, a file outside the extracted tree.
fn what_is_not_judged(g: &Gate) -> Result<(), Failed> {
    // Two fields of a struct swapped in a header: the layout changes, the
    // behaviour does not.
    let verbs_h = "drivers/infiniband/hw/hfi1/verbs.h";
    let j = g.run(g.patch(
        verbs_h,
        "\tu8 sl_to_sc[32];\n\tu8 sc_to_sl[32];\n",
        "\tu8 sc_to_sl[32];\n\tu8 sl_to_sc[32];\n",
        "reorder",
    ))?;
    if verdicts(&j) != ["preserves"] || !j[0].not_judged.is_empty() {
        return Err(format!("reorder: {:?} {:?}", verdicts(&j), j[0].not_judged).into());
    }
    // Only rc.c: nothing a world compiles; not judged, and rc.c is listed.
    let rc = "drivers/infiniband/hw/hfi1/rc.c";
    let j = g.run(g.patch(rc, "#include", "/* rc */\n#include", "rc"))?;
    if verdicts(&j) != ["not-judged"]
        || j[0].not_judged != [format!("{rc}: no world compiles it (not judged)")]
    {
        return Err(format!("rc.c: {:?} {:?}", verdicts(&j), j[0].not_judged).into());
    }
    // sdma.c, but in a function no world runs: not judged, listed by
    // function.
    let sdma = "drivers/infiniband/hw/hfi1/sdma.c";
    let j = g.run(g.patch(sdma, UNRUN, UNRUN_EDITED, "sdma"))?;
    if verdicts(&j) != ["not-judged"]
        || j[0].not_judged.len() != 1
        || !j[0].not_judged[0].starts_with(&format!("{sdma}: sdma_event_names (line "))
    {
        return Err(format!("sdma.c: {:?} {:?}", verdicts(&j), j[0].not_judged).into());
    }
    // A line of sdma_desc_avail (which worlds run) that only a kernel
    // built with CONFIG_SDMA_VERBOSITY compiles: not judged, named with
    // its directive, nothing built.
    let verbose = "\tdd_dev_err(sde->dd, \"avail: %u\\n\", avail);\n";
    let made = g.patch(
        sdma,
        verbose,
        &verbose.replace("avail:", "avail now:"),
        "verbose",
    );
    // As made on this tree, and as made on a tree 40 lines shorter there
    // (`patch` applies it at an offset: its lines are read where it did).
    for text in [made.clone(), shifted(&made, 40)] {
        let j = g.run(text)?;
        if verdicts(&j) != ["not-judged"]
            || j[0].functions.not_judged
                != ["sdma.c: sdma_desc_avail (under #ifdef CONFIG_SDMA_VERBOSITY)"]
            || j[0].not_judged.len() != 1
            || !j[0].not_judged[0].contains("compiled out under `#ifdef CONFIG_SDMA_VERBOSITY`")
            || j[0].timings.iter().any(|(phase, _)| *phase == "build")
        {
            return Err(format!("verbose: {:?} {:?}", verdicts(&j), j[0].not_judged).into());
        }
    }
    // So is a header's field that only CONFIG_HFI1_DEBUG_SDMA_ORDER
    // compiles.
    let sdma_h = "drivers/infiniband/hw/hfi1/sdma.h";
    let field = "\tu64                   tail_sn;\n";
    let j = g.run(g.patch(sdma_h, field, &field.replace("u64", "u32"), "order"))?;
    if verdicts(&j) != ["not-judged"]
        || j[0].functions.not_judged != ["sdma.h (under #ifdef CONFIG_HFI1_DEBUG_SDMA_ORDER)"]
    {
        return Err(format!("sdma.h: {:?} {:?}", verdicts(&j), j[0].not_judged).into());
    }
    // A file outside the extracted tree next to a qp.c edit: that section
    // is left out and listed, the rest is judged.
    let outside = "--- a/include/linux/list.h\n+++ b/include/linux/list.h\n@@ -1,1 +1,2 @@\n /* x */\n+/* y */\n";
    let j = g.run(format!("{}{outside}", g.patch(QP, LE, LT, "with-outside")))?;
    if verdicts(&j) != ["changes"]
        || j[0].not_judged
            != ["include/linux/list.h: outside the tree the harness extracts (not judged)"]
    {
        return Err(format!("outside: {:?} {:?}", verdicts(&j), j[0].not_judged).into());
    }
    Ok(())
}

/// Patches the worlds do not run, as `git format-patch` writes them: one
/// changing only a function of sdma.c that no world runs is `not-judged`
/// (exit 0, nothing built), every not-judged entry naming its file; one
/// that also changes a qp.c function in scope is judged on that one and
/// says so (1 of 2), its patchwork state never `success`.
pub fn gate_not_judged(tree: &KernelTree) -> Result<(), Failed> {
    let g = Gate::new(tree)?;
    let sdma = "drivers/infiniband/hw/hfi1/sdma.c";
    let unrun = (sdma, UNRUN, UNRUN_EDITED);
    if diff_of(tree, unrun.0, unrun.1, unrun.2).is_empty() {
        return Err(format!("{}: no sdma_event_names to change", tree.version).into());
    }
    let j = g.run(format_patch(tree, &[unrun], "sdma only"))?;
    let named = |j: &gate::Judged| {
        j.not_judged
            .iter()
            .all(|n| n.starts_with("drivers/infiniband/hw/hfi1/"))
    };
    if verdicts(&j) != ["not-judged"]
        || gate::exit_code(&j) != 0
        || j[0].not_judged.len() != 1
        || !j[0].not_judged[0].starts_with(&format!("{sdma}: sdma_event_names (line "))
        || !named(&j[0])
        || j[0].comparison.is_some()
        || j[0].timings.iter().any(|(phase, _)| *phase == "build")
    {
        return Err(format!(
            "sdma only: {:?} {:?} {:?}",
            verdicts(&j),
            j[0].not_judged,
            j[0].timings
        )
        .into());
    }
    let line = gate::patchwork_line(&j);
    let s = &gate::report(&j).suites[0];
    if !line.starts_with("state=warning ")
        || !line.contains("not-judged (no changed line runs in a world)")
        || s.skipped.as_deref() != Some(gate::NOT_JUDGED_REASON)
        || s.not_judged_functions != ["sdma.c: sdma_event_names"]
    {
        return Err(format!("sdma only: {line} {s:?}").into());
    }
    // With a behaviour change in hfi1_setup_wqe: changes, judged in part.
    let j = g.run(format_patch(tree, &[(QP, LE, LT), unrun], "qp and sdma"))?;
    let f = &j[0].functions;
    if verdicts(&j) != ["changes"]
        || f.judged != ["qp.c: hfi1_setup_wqe"]
        || f.not_judged != ["sdma.c: sdma_event_names"]
        || !named(&j[0])
        || gate::patchwork_state(&j[0]) == "success"
    {
        return Err(format!(
            "qp and sdma: {:?} {f:?} {:?}",
            verdicts(&j),
            j[0].not_judged
        )
        .into());
    }
    let line = gate::patchwork_line(&j);
    let s = &gate::report(&j).suites[0];
    if !line
        .contains("changes (1 of 2 changed functions judged; not judged: sdma.c: sdma_event_names)")
        || (s.judged_functions, s.changed_functions) != (Some(1), Some(2))
        || s.skipped.is_some()
    {
        return Err(format!("qp and sdma: {line} {s:?}").into());
    }
    Ok(())
}

/// `cargo xtask scope`'s statement of the tree: qp.c judged whole, the
/// engine selection, flush and progress of sdma.c in scope (each name
/// once) and its verbose event names not, pio.c judged whole, rc.c not
/// compiled, a compiled header judged through the build; every definition
/// of the engines' files judged or listed with why; and a patch to
/// a function the statement lists as not judged is `not-judged` in the gate.
pub fn scope_statement(tree: &KernelTree) -> Result<(), Failed> {
    let list = harness::judge::scope::Unjudged::load().map_err(|e| format!("{e:#}"))?;
    let s = harness::cmd::scope::statement(tree, &list).map_err(|e| format!("{e:#}"))?;
    // Every definition of the engines' files judged or listed with why,
    // and nothing listed that this tree judges (a listed name this tree
    // does not define may be another series': `scope --check` on all).
    let problems: Vec<String> = harness::cmd::scope::check(std::slice::from_ref(&s), &list)
        .into_iter()
        .filter(|p| !p.contains("defined in none"))
        .collect();
    if !problems.is_empty() {
        return Err(problems.join("\n").into());
    }
    let file = |p: &str| {
        s.files
            .iter()
            .find(|f| f.path == format!("drivers/infiniband/hw/hfi1/{p}"))
            .cloned()
            .ok_or_else(|| Failed::from(format!("{p} missing from the statement")))
    };
    let (qp, sdma, pio, rc, hfi) = (
        file("qp.c")?,
        file("sdma.c")?,
        file("pio.c")?,
        file("rc.c")?,
        file("hfi.h")?,
    );
    if qp.how != "whole"
        || !qp.not_judged.is_empty()
        || !qp.judged.contains(&"hfi1_setup_wqe".into())
    {
        return Err(format!("qp.c: {qp:?}").into());
    }
    let has = |v: &[String], n: &str| v.iter().any(|x| x == n);
    let once = |v: &[String]| v.iter().all(|x| v.iter().filter(|y| *y == x).count() == 1);
    if ![
        "sdma_select_engine_vl",
        "sdma_flush",
        "sdma_desc_avail",
        "sdma_make_progress",
        "sdma_field_flush",
    ]
    .iter()
    .all(|n| has(&sdma.judged, n))
        || has(&sdma.not_judged, "sdma_flush")
        || !once(&sdma.judged)
        || !once(&sdma.not_judged)
    {
        return Err(format!("sdma.c: {:?} / {:?}", sdma.judged, sdma.not_judged).into());
    }
    if !has(&sdma.not_judged, "sdma_event_names")
        || !has(&sdma.judged, "sdma_dumpstate")
        || !sdma
            .reasons
            .iter()
            .any(|b| has(&b.functions, "sdma_event_names"))
        || !pio.not_judged.is_empty()
        || !has(&pio.judged, "init_pervl_scs")
    {
        return Err(format!("pio.c: {:?} / {:?}", pio.judged, pio.not_judged).into());
    }
    if rc.how != "not compiled"
        || !rc.judged.is_empty()
        || hfi.how != "header"
        || !hfi.not_judged.is_empty()
    {
        return Err(format!("rc.c {}, hfi.h {}", rc.how, hfi.how).into());
    }
    // The verbose messages inside judged functions are compiled out, and
    // said so; sdma_dumpstate (extracted whole) and qp.c are not.
    let verbose = sdma
        .compiled_out
        .iter()
        .find(|c| c.directive == "#ifdef CONFIG_SDMA_VERBOSITY");
    if !verbose.is_some_and(|c| {
        has(&c.functions, "sdma_desc_avail") && !has(&c.functions, "sdma_dumpstate")
    }) || !qp.compiled_out.is_empty()
        || !pio.compiled_out.is_empty()
    {
        return Err(format!("compiled out: {:?}", sdma.compiled_out).into());
    }
    let g = Gate::new(tree)?;
    let j = g.run(g.patch(
        "drivers/infiniband/hw/hfi1/sdma.c",
        UNRUN,
        UNRUN_EDITED,
        "event names",
    ))?;
    if verdicts(&j) != ["not-judged"] {
        return Err(format!("sdma_event_names patch: {:?}", verdicts(&j)).into());
    }
    Ok(())
}

/// A write past an allocated array, as KASAN would report it. A patch that
/// allocates `dd->cr_base` one entry short has init_credit_return write
/// the last node's entry past the block: `changes`, the differing calls of
/// init_credit_return journal the redzone write (`BUG: write past the
/// end of a block: kmalloc in init_credit_return`).
pub fn gate_write_past_block(tree: &KernelTree) -> Result<(), Failed> {
    let g = Gate::new(tree)?;
    let pio = "drivers/infiniband/hw/hfi1/pio.c";
    let text = std::fs::read_to_string(tree.path(pio))?;
    // 7.2 allocates with kzalloc_objs(), earlier series with kcalloc().
    let (from, to) = if text.contains("kzalloc_objs(struct credit_return_base,") {
        (
            "kzalloc_objs(struct credit_return_base,\n\t\t\t\t   node_affinity.num_possible_nodes);",
            "kzalloc_objs(struct credit_return_base,\n\t\t\t\t   node_affinity.num_possible_nodes - 1);",
        )
    } else {
        (
            "\t\tnode_affinity.num_possible_nodes,\n\t\tsizeof(struct credit_return_base),",
            "\t\tnode_affinity.num_possible_nodes - 1,\n\t\tsizeof(struct credit_return_base),",
        )
    };
    let j = g.run(g.patch(pio, from, to, "one credit return entry short"))?;
    let Some(c) = j[0].comparison.as_ref() else {
        return Err(format!("no comparison: {:?}", verdicts(&j)).into());
    };
    let ok = verdicts(&j) == ["changes"]
        && c.groups.iter().any(|x| {
            x.func == Func::InitCreditReturn
                && x.fields.iter().any(|(_, _, after)| {
                    after.contains(
                        "BUG: write past the end of a block: kmalloc in init_credit_return",
                    )
                })
        });
    if !ok {
        return Err(format!("{:?}: {:#?}", verdicts(&j), c.groups).into());
    }
    Ok(())
}

/// A write to freed memory, as KASAN's quarantine would report it. A patch
/// that has ext_coal_sdma_tx_descs() go on adding after a failed extension
/// (which cleaned the request, freeing its array) makes sdma_txadd_*
/// write a descriptor into the freed array: `changes`, the differing calls
/// journal it (`BUG: write after free: descp`) where the worker's heap
/// would otherwise be corrupted.
pub fn gate_write_after_free(tree: &KernelTree) -> Result<(), Failed> {
    let g = Gate::new(tree)?;
    let from = "\trval = _extend_sdma_tx_descs(dd, tx);\n\tif (rval) {\n\t\t__sdma_txclean(dd, tx);\n\t\treturn rval;";
    let to = "\trval = _extend_sdma_tx_descs(dd, tx);\n\tif (rval) {\n\t\t__sdma_txclean(dd, tx);\n\t\treturn 1;";
    let j = g.run(g.patch(SDMA, from, to, "go on after a failed extension"))?;
    let Some(c) = j[0].comparison.as_ref() else {
        return Err(format!("no comparison: {:?}", verdicts(&j)).into());
    };
    let ok = verdicts(&j) == ["changes"]
        && c.groups.iter().any(|x| {
            x.fields
                .iter()
                .any(|(_, _, after)| after.contains("BUG: write after free: descp"))
        });
    if !ok {
        return Err(format!("{:?}: {:#?}", verdicts(&j), c.groups).into());
    }
    Ok(())
}

/// A crash storm: a patch that makes free_pio_map fault on every world
/// with a map (most of its generated vectors) and return on the others.
/// Each fault costs fresh workers, so a comparison stops running that
/// function's vectors once a side has faulted FAULT_PROOFS times in a
/// request: `changes`, the crash group present, the rest of the vectors
/// counted as not run and said so in the report, never compared. A later
/// patch of that function in the same series, both trees crashing alike,
/// is judged in part (`preserves (0 of 1 changed functions judged; ...)`,
/// patchwork warning), never `preserves` outright.
pub fn gate_crash_storm(tree: &KernelTree) -> Result<(), Failed> {
    let mut g = Gate::new(tree)?;
    g.opts.random = 2000;
    let pio = "drivers/infiniband/hw/hfi1/pio.c";
    let from = "\t\tspin_lock_irq(&dd->pio_map_lock);\n";
    let to = "\t\tspin_lock_irq(&dd->pio_map_lock);\n\t\t*(volatile int *)8 = 0;\n";
    let text = make_patch(g.tree, pio, from, to, "fault with a map");
    let j = g.run(text.clone())?;
    let Some(c) = j[0].comparison.as_ref() else {
        return Err(format!("no comparison: {:?}", verdicts(&j)).into());
    };
    let crashed = c
        .groups
        .iter()
        .any(|x| x.func == Func::FreePioMap && x.shape.iter().any(|s| s.contains("crashed")));
    let not_run = c
        .not_run
        .iter()
        .find(|x| x.0 == Func::FreePioMap)
        .map_or(0, |x| x.1);
    let compared = c.per_func.iter().find(|x| x.0 == Func::FreePioMap);
    if verdicts(&j) != ["changes"] || !crashed || not_run == 0 {
        return Err(format!(
            "{:?} not_run={not_run} {compared:?}: {:#?}",
            verdicts(&j),
            c.groups
        )
        .into());
    }
    // A later patch of the same function, whose calls both trees then
    // crash on alike: not judged past the cut, never `preserves` outright.
    let end = "\tdd->kernel_send_context = NULL;\n}\n";
    let delay = "\tdd->kernel_send_context = NULL;\n\tif (dd->num_send_contexts == 37)\n\t\tudelay(1);\n}\n";
    let second = make_patch(g.tree, pio, end, delay, "delay on 37 contexts");
    let j = g.run(format!("{text}\n{second}"))?;
    let unjudged = j.get(1).is_some_and(|x| {
        x.functions
            .not_judged
            .iter()
            .any(|u| u.ends_with(": free_pio_map"))
    });
    if verdicts(&j) != ["changes", "preserves"] || !unjudged {
        return Err(format!(
            "series: {:?} {:?}",
            verdicts(&j),
            j.get(1).map(|x| &x.functions)
        )
        .into());
    }
    Ok(())
}
