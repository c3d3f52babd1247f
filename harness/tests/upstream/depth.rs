//! The gate's depth lines on a patch made for the test: a changed line the
//! corpus does not test has a surviving mutant, named with the command
//! that reproduces it and a suggested vector, and a condition MC/DC does
//! not show; with a vector that sends 511 bytes added to the corpus, the
//! mutant is killed and the condition shown. Judged on the corpus alone
//! (the question is whether the committed vectors test the line). MC/DC
//! needs clang 19: without it the trial checks that the gate says it was
//! not measured (and fails if `HFI1_REQUIRE_CLANG19` is set).

use harness::cmd::gate;
use harness::corpus::{self, Vector};
use harness::kernel::KernelTree;
use harness::model::types::Func;
use harness::report::{self, Depth};
use libtest_mimic::Failed;

use super::gate::make_patch;

const QP: &str = "drivers/infiniband/hw/hfi1/qp.c";
const LE: &str = "if (wqe->length <= piothreshold)";
/// The line the patch writes: a send of 511 bytes also sets call_send. No
/// corpus vector sends 511 or 512 bytes, so `511` → `512` goes unseen.
const ODD: &str = "if (wqe->length <= piothreshold || wqe->length == 511)";

/// The gate on `tree`, the corpus alone, depth measured with 2,000
/// suggestion vectors a function.
fn judge(tree: &KernelTree, patch: &str, vectors: &[Vector]) -> Result<gate::Judged, Failed> {
    let opts = gate::Options {
        random: 0,
        seed: 1,
        funcs: Func::ALL.to_vec(),
        expect: vec![],
        depth: true,
        suggest: 2000,
    };
    let patches = gate::parse(patch, "depth.patch");
    let mut said = vec![];
    let mut j = gate::judge(tree, "base", &patches, vectors, &opts, &mut |m| {
        said.push(m.to_owned())
    })
    .map_err(|e| format!("{e:#}"))?;
    let j = j.pop().ok_or("no judgement")?;
    // What the gate said of a measure it could not make is the failure's
    // explanation.
    let missing = |what: &str| {
        let notes: Vec<&String> = said.iter().filter(|m| m.contains("not measured")).collect();
        format!("no {what} measured; the gate said: {notes:?}")
    };
    if j.depth.is_none() {
        return Err(missing("depth").into());
    }
    if j.mcdc.is_none() {
        return Err(missing("MC/DC").into());
    }
    Ok(j)
}

/// The patch's survivor is named, reproducible and explained; the
/// suggested vector, added, kills it; every report format says so.
pub fn depth_of_changed_lines(tree: &KernelTree) -> Result<(), Failed> {
    let text = std::fs::read_to_string(tree.path(QP)).map_err(|e| e.to_string())?;
    let Some(at) = text.find(LE) else {
        return Err(format!("{QP} has no `{LE}`").into());
    };
    let line = text[..at].matches('\n').count() + 1;
    let patch = make_patch(tree, QP, LE, ODD, "IB/hfi1: a 511-byte send sets call_send");
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|e| e.to_string())?;
    let j = judge(tree, &patch, &vectors)?;
    let d = j.depth.clone().ok_or("no depth measured")?;
    let [s] = d.survivors.as_slice() else {
        return Err(format!("survivors: {d:#?}").into());
    };
    let at = format!("qp.c:{line}");
    if s.at != at || s.change != "literal + 1" || d.killed + 1 != d.mutants || d.mutants < 3 {
        return Err(format!("depth: {d:#?}").into());
    }
    if !(s.reproduce.starts_with("cargo xtask mutants ")
        && s.reproduce.contains(" --in-diff ")
        && s.reproduce.contains(&format!("--id '{}'", s.id)))
    {
        return Err(format!("reproduce: {}", s.reproduce).into());
    }
    // The suggestion: a minimised case of setup_wqe.toml sending 511 or
    // 512 bytes (either tells the two apart).
    let sends = ["wqe.length = 511", "wqe.length = 512"];
    if !(s.suggestion.contains("vectors/setup_wqe.toml")
        && s.suggestion.contains("[[case]]")
        && sends.iter().any(|l| s.suggestion.lines().any(|x| x == *l)))
    {
        return Err(format!("suggestion: {}", s.suggestion).into());
    }
    in_every_format(&j, &d, &at)?;
    let measured = mcdc_not_shown(&j, &format!("`wqe->length == 511` of `{ODD}` at {at}"))?;
    // The verdict is the gate's without depth.
    let mut without = judge(tree, &patch, &vectors)?;
    without.depth = None;
    if without.verdict.word() != j.verdict.word() {
        return Err("depth changed the verdict".into());
    }
    // The suggested vector, sending 511 bytes (512 also kills the mutant
    // but leaves the condition false), added to (a copy of) the corpus
    // kills the mutant and shows the condition.
    let odd: String = s
        .suggestion
        .lines()
        .map(|l| match l.starts_with("wqe.length = ") {
            true => "wqe.length = 511\n".to_owned(),
            false => format!("{l}\n"),
        })
        .collect();
    let after = with_case(&odd, |dir| {
        let more = corpus::load_corpus(dir).map_err(|e| e.to_string())?;
        judge(tree, &patch, &more)
    })?;
    match &after.depth {
        Some(k) if k.survivors.is_empty() && k.killed == k.mutants && k.mutants == d.mutants => {}
        other => return Err(format!("with the suggested vector: {other:#?}").into()),
    }
    match (&after.mcdc, measured) {
        (Some(m), true) if m.not_shown.is_empty() && m.shown == m.conditions => Ok(()),
        (_, false) => Ok(()),
        (other, true) => Err(format!("MC/DC with the vector: {other:#?}").into()),
    }
}

/// MC/DC of the changed decision names `condition` as not shown, in
/// every format; `false` when it could not be measured (no clang 19).
fn mcdc_not_shown(j: &gate::Judged, condition: &str) -> Result<bool, Failed> {
    let m = j.mcdc.clone().ok_or("no MC/DC of the changed decision")?;
    if let Some(why) = &m.unmeasured {
        if std::env::var_os("HFI1_REQUIRE_CLANG19").is_some() {
            return Err(format!("MC/DC not measured: {why}").into());
        }
        eprintln!("note: MC/DC of changed decisions not measured: {why}");
        return Ok(false);
    }
    // `wqe->length <= piothreshold` is shown (the corpus sends on both
    // sides of the threshold); the added condition is never true.
    if (m.decisions, m.conditions, m.shown) != (1, 2, 1) || m.not_shown != [condition] {
        return Err(format!("MC/DC: {m:#?}").into());
    }
    let r = gate::report(std::slice::from_ref(j));
    let line = m.line();
    for (name, text) in [
        ("human", report::human(&r)),
        ("ktap", report::ktap(&r)),
        ("junit", report::junit(&r)),
    ] {
        // JUnit escapes the backquotes' neighbours (`>`), not the line's start.
        if !text.contains("MC/DC of changed decisions: 1 of 2 conditions shown") {
            return Err(format!("{name} has no `{line}`:\n{text}").into());
        }
    }
    let v: serde_json::Value =
        serde_json::from_str(&report::json(&r)).map_err(|e| e.to_string())?;
    if v["suites"][0]["patch_mcdc"]["not_shown"][0] != condition {
        return Err(format!("json: {}", v["suites"][0]["patch_mcdc"]).into());
    }
    Ok(true)
}

/// Runs `f` on a copy of the corpus with the `[[case]]` of `suggestion`
/// appended to setup_wqe.toml.
fn with_case<T>(
    suggestion: &str,
    f: impl FnOnce(&std::path::Path) -> Result<T, Failed>,
) -> Result<T, Failed> {
    let case: String = suggestion
        .lines()
        .skip_while(|l| !l.starts_with("[[case]]"))
        .map(|l| format!("{l}\n"))
        .collect();
    // Trials of several series run at once in this process: a directory
    // each.
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("hfi1-depth-corpus-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    for e in std::fs::read_dir(corpus::corpus_dir()).map_err(|e| e.to_string())? {
        let p = e.map_err(|e| e.to_string())?.path();
        if p.extension().is_some_and(|x| x == "toml") {
            let name = p.file_name().ok_or("a file name")?;
            let mut text = std::fs::read_to_string(&p).map_err(|e| e.to_string())?;
            if name == "setup_wqe.toml" {
                text.push_str(&format!("\n{case}"));
            }
            std::fs::write(dir.join(name), text).map_err(|e| e.to_string())?;
        }
    }
    let r = f(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    r
}

/// The depth line, with the survivor at `at`, in the human, KTAP, JUnit
/// and JSON reports; the reproduce command in the human one.
fn in_every_format(j: &gate::Judged, d: &Depth, at: &str) -> Result<(), Failed> {
    let r = gate::report(std::slice::from_ref(j));
    let line = format!(
        "mutants of changed lines: {} of {} killed; survivor: {at} literal + 1",
        d.killed, d.mutants
    );
    let human = report::human(&r);
    let formats = [
        ("human", human.clone()),
        ("ktap", report::ktap(&r)),
        ("junit", report::junit(&r)),
    ];
    for (name, text) in formats {
        if !text.contains(&line) {
            return Err(format!("{name} has no `{line}`:\n{text}").into());
        }
    }
    // JSON carries the same, as fields.
    let json = report::json(&r);
    let v: serde_json::Value = serde_json::from_str(&json).map_err(|e| e.to_string())?;
    let jd = &v["suites"][0]["depth"];
    if jd["killed"] != d.killed
        || jd["mutants"] != d.mutants
        || jd["survivors"][0]["at"] != at
        || jd["survivors"][0]["change"] != "literal + 1"
    {
        return Err(format!("json depth: {jd}").into());
    }
    if !human.contains(&d.survivors[0].reproduce) {
        return Err(format!("human has no reproduce command:\n{human}").into());
    }
    Ok(())
}
