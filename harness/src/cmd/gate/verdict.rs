//! A patch's verdict, and what a series' verdicts add up to: the exit
//! code, the patchwork line, and the report.

use super::Judged;
use crate::judge::compare;
use crate::report::exit_code;
use crate::report::{Case, Report, Status, Suite};

/// A patch's verdict on one base. The text a verdict carries says why:
/// the compiler's, `patch`'s or the harness's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchVerdict {
    /// No outcome changed.
    Preserves,
    /// Outcomes changed, only in the functions the patch declares.
    ChangesAsDeclared,
    /// Outcomes changed in a function the patch does not declare.
    Changes,
    /// No function the patch changes runs in a world (every edit is
    /// outside the extracted tree, in a file no world compiles, or in a
    /// function no world runs): nothing was compared, and nothing is
    /// said of its behaviour.
    NotJudged,
    /// The patched tree does not compile, by an error in upstream code.
    BreaksBuild(String),
    /// `patch` refused it on this tree.
    DoesNotApply(String),
    /// The harness could not judge it (a world that cannot be built or
    /// run, or a patch before it that did not apply or build).
    CannotJudge(String),
}

impl PatchVerdict {
    /// The verdict as reports write it (`changes-as-declared`).
    pub fn word(&self) -> &'static str {
        match self {
            PatchVerdict::Preserves => "preserves",
            PatchVerdict::ChangesAsDeclared => "changes-as-declared",
            PatchVerdict::Changes => "changes",
            PatchVerdict::NotJudged => "not-judged",
            PatchVerdict::BreaksBuild(_) => "breaks-build",
            PatchVerdict::DoesNotApply(_) => "does-not-apply",
            PatchVerdict::CannotJudge(_) => "cannot-judge",
        }
    }

    /// The gate's exit code for this verdict.
    pub fn exit_code(&self) -> u8 {
        weight(self.word()).0
    }

    /// The patchwork check state: success, warning or fail (a verdict on
    /// part of a patch is a warning: see [`patchwork_state`]).
    pub fn patchwork(&self) -> &'static str {
        weight(self.word()).1
    }

    /// Whether the verdict is on the patch's behaviour (or that no
    /// behaviour was judged), so that how much of it was judged qualifies
    /// it.
    fn on_behaviour(&self) -> bool {
        matches!(
            self,
            PatchVerdict::Preserves
                | PatchVerdict::ChangesAsDeclared
                | PatchVerdict::Changes
                | PatchVerdict::NotJudged
        )
    }
}

/// Why a `not-judged` patch's suite was skipped.
pub const NOT_JUDGED_REASON: &str = "no changed line runs in a world";

/// What qualifies a patch's verdict: why it was not judged, or how much of
/// it was (`1 of 2 changed functions judged; not judged: sdma.c:
/// sdma_flush`); `None` when every changed function was judged.
fn verdict_note(j: &Judged) -> Option<String> {
    if j.verdict == PatchVerdict::NotJudged {
        return Some(NOT_JUDGED_REASON.to_owned());
    }
    (j.verdict.on_behaviour() && !j.functions.not_judged.is_empty()).then(|| j.functions.summary())
}

/// A verdict (as reports write it): the gate's exit code for it and its
/// patchwork state. A word no verdict has (a report edited by hand) cannot
/// be judged.
fn weight(word: &str) -> (u8, &'static str) {
    match word {
        "preserves" | "changes-as-declared" => (exit_code::SUCCESS, "success"),
        "not-judged" => (exit_code::SUCCESS, "warning"),
        "changes" => (exit_code::FINDING, "warning"),
        "breaks-build" => (exit_code::FINDING, "fail"),
        "does-not-apply" => (exit_code::CANNOT_JUDGE, "fail"),
        _ => (exit_code::CANNOT_JUDGE, "warning"),
    }
}

/// A patch's verdict on one base as its suite in the gate's report says
/// it: all that the exit code, `--base all` and the patchwork line weigh,
/// so that a run and the merge of its shards' reports weigh alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Weighed {
    /// The base (`6.12`).
    pub base: String,
    /// The verdict word.
    pub verdict: String,
    /// What qualifies it (not judged, or judged in part).
    pub note: Option<String>,
}

impl Weighed {
    /// The patchwork state: the verdict's, but `success` only when every
    /// changed function was judged (`warning` otherwise).
    pub fn state(&self) -> &'static str {
        match weight(&self.verdict).1 {
            "success" if self.note.is_some() => "warning",
            s => s,
        }
    }
}

/// The verdicts a gate report states, each patch on each base; with
/// `base_all` (`--base all`: "does it change behaviour on every series it
/// applies to?") only the bases the series applies to: a base where some
/// patch does not apply drops out (its report still says so), unless it
/// applies nowhere, when all are kept (and the series' verdict is
/// does-not-apply).
pub fn verdicts_of(r: &Report, base_all: bool) -> Vec<Weighed> {
    let all: Vec<Weighed> = r
        .suites
        .iter()
        .filter_map(|s| {
            Some(Weighed {
                base: s.kernel.clone(),
                verdict: s.verdict.clone()?,
                note: s.verdict_note(),
            })
        })
        .collect();
    if !base_all {
        return all;
    }
    let applies = |base: &str| {
        !all.iter()
            .any(|w| w.base == base && w.verdict == "does-not-apply")
    };
    let kept: Vec<Weighed> = all.iter().filter(|w| applies(&w.base)).cloned().collect();
    if kept.is_empty() {
        all
    } else {
        kept
    }
}

/// The series' exit code: the worst of its patches'.
pub fn exit_code_of(verdicts: &[Weighed]) -> u8 {
    verdicts
        .iter()
        .map(|w| weight(&w.verdict).0)
        .max()
        .unwrap_or(exit_code::SUCCESS)
}

/// The line a patchwork bot posts: state, context, description.
pub fn patchwork_line_of(verdicts: &[Weighed]) -> String {
    let worst = verdicts.iter().max_by_key(|w| match w.state() {
        "fail" => 2,
        "warning" => 1,
        _ => 0,
    });
    let state = worst.map_or("success", Weighed::state);
    let desc: Vec<String> = verdicts
        .iter()
        .map(|w| match &w.note {
            Some(note) => format!("{} {} ({note})", w.base, w.verdict),
            None => format!("{} {}", w.base, w.verdict),
        })
        .collect();
    format!(
        "state={state} context=hfi1-conformance description=\"{}\"",
        desc.join(", ")
    )
}

/// A patch's patchwork state ([`Weighed::state`]).
pub fn patchwork_state(j: &Judged) -> &'static str {
    verdicts_of(&report(std::slice::from_ref(j)), false)
        .first()
        .map_or("warning", Weighed::state)
}

/// The series' exit code ([`exit_code_of`] its report's verdicts).
pub fn exit_code(judged: &[Judged]) -> u8 {
    exit_code_of(&verdicts_of(&report(judged), false))
}

/// The patchwork line ([`patchwork_line_of`] its report's verdicts).
pub fn patchwork_line(judged: &[Judged]) -> String {
    patchwork_line_of(&verdicts_of(&report(judged), false))
}

/// The gate's report: a suite per patch and base (`6.12: subject`), its
/// verdict, the files not judged, and the comparison's cases.
pub fn report(judged: &[Judged]) -> Report {
    let suites = judged.iter().map(suite).collect();
    Report::new("gate", suites)
}

/// One patch on one base, as a suite of the gate's report: a `not-judged`
/// patch's is skipped; a patch judged in part says how much was.
fn suite(j: &Judged) -> Suite {
    let name = format!("{}: {}", j.base, j.patch.subject);
    let mut suite = match &j.comparison {
        Some(c) => {
            let mut r = compare::report(&name, "before", "after", c);
            r.suites.remove(0)
        }
        None => Suite {
            name: name.clone(),
            kernel: j.base.clone(),
            ..Default::default()
        },
    };
    suite.kernel = j.base.clone();
    suite.verdict = Some(j.verdict.word().to_owned());
    suite.not_judged = j.not_judged.clone();
    suite.warnings = j.new_warnings.clone();
    suite.patch_coverage = j.coverage.clone();
    suite.patch_mcdc = j.mcdc.clone();
    suite.depth = j.depth.clone();
    suite.trees = j.trees.clone();
    if j.verdict == PatchVerdict::NotJudged {
        suite.skipped = Some(NOT_JUDGED_REASON.to_owned());
    }
    if verdict_note(j).is_some() {
        suite.judged_functions = Some(j.functions.judged.len());
        suite.changed_functions = Some(j.functions.changed());
        suite.not_judged_functions = j.functions.not_judged.clone();
    }
    if let Some(m) = &j.model {
        suite.cases.push(model_case(&m.before, &m.after, m.corpus));
    }
    match &j.verdict {
        PatchVerdict::BreaksBuild(m)
        | PatchVerdict::DoesNotApply(m)
        | PatchVerdict::CannotJudge(m) => {
            suite.error = Some(format!("{}: {m}", j.verdict.word()));
        }
        _ => {}
    }
    suite
}

/// The patched tree against the Rust model on the corpus, as a case of its
/// own: it fails when the patch moves upstream away from the model on some
/// vector (the model or the patch is wrong), and says where it moves toward.
fn model_case(before: &[String], after: &[String], corpus: usize) -> Case {
    let away: Vec<&String> = after.iter().filter(|v| !before.contains(v)).collect();
    let toward: Vec<&String> = before.iter().filter(|v| !after.contains(v)).collect();
    let list = |vs: &[&String]| vs.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
    let mut detail = String::new();
    if !away.is_empty() {
        detail.push_str(&format!(
            "after the patch upstream parts from the Rust model on: {}\n",
            list(&away)
        ));
    }
    if !toward.is_empty() {
        detail.push_str(&format!(
            "after the patch upstream agrees with the Rust model again on: {}\n",
            list(&toward)
        ));
    }
    Case {
        name: "model::corpus".into(),
        function: "(rust model)".into(),
        status: if away.is_empty() {
            Status::Pass
        } else {
            Status::Fail
        },
        message: (!detail.is_empty()).then(|| {
            format!(
                "the Rust model: {} corpus vector(s) disagree before the patch, {} after",
                before.len(),
                after.len()
            )
        }),
        detail: (!detail.is_empty()).then_some(detail),
        vectors: corpus as u64,
        failed: away.len() as u64,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse, ChangedFunctions};
    use super::*;

    fn judged_on(base: &str, verdict: PatchVerdict) -> Judged {
        Judged {
            base: base.into(),
            patch: parse("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", "p")
                .into_iter()
                .next()
                .expect("a patch"),
            verdict,
            comparison: None,
            not_judged: vec![],
            functions: Default::default(),
            new_warnings: vec![],
            timings: vec![],
            coverage: None,
            mcdc: None,
            depth: None,
            model: None,
            trees: vec![],
        }
    }

    #[test]
    fn base_all_judges_the_series_where_it_applies() {
        let j = vec![
            judged_on("6.1", PatchVerdict::DoesNotApply("hunk 1 failed".into())),
            judged_on("6.12", PatchVerdict::Changes),
            judged_on("7.2", PatchVerdict::Preserves),
        ];
        let kept = verdicts_of(&report(&j), true);
        let bases: Vec<&str> = kept.iter().map(|w| w.base.as_str()).collect();
        assert_eq!(bases, ["6.12", "7.2"]);
        assert_eq!(exit_code_of(&kept), 1);
        assert_eq!(exit_code(&j), 2, "every base weighs without --base all");
        // Applying nowhere is still does-not-apply.
        let none = vec![judged_on("6.1", PatchVerdict::DoesNotApply("x".into()))];
        assert_eq!(exit_code_of(&verdicts_of(&report(&none), true)), 2);
    }

    /// A judgement of `verdict` whose changed functions are `judged` and
    /// `not_judged`.
    fn with_functions(verdict: PatchVerdict, judged: &[&str], not_judged: &[&str]) -> Judged {
        let mut j = judged_on("6.12", verdict);
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect();
        j.functions = ChangedFunctions {
            judged: names(judged),
            not_judged: names(not_judged),
        };
        j
    }

    #[test]
    fn not_judged_is_a_success_with_a_warning_and_a_skipped_suite() {
        let j = with_functions(
            PatchVerdict::NotJudged,
            &[],
            &["sdma.c: sdma_seqfile_dump_sde"],
        );
        assert_eq!(j.verdict.word(), "not-judged");
        assert_eq!(j.verdict.exit_code(), exit_code::SUCCESS);
        assert_eq!(exit_code(std::slice::from_ref(&j)), exit_code::SUCCESS);
        assert_eq!(
            patchwork_line(std::slice::from_ref(&j)),
            "state=warning context=hfi1-conformance \
             description=\"6.12 not-judged (no changed line runs in a world)\""
        );
        let r = report(std::slice::from_ref(&j));
        let s = &r.suites[0];
        assert_eq!(s.verdict.as_deref(), Some("not-judged"));
        assert_eq!(s.skipped.as_deref(), Some(NOT_JUDGED_REASON));
        assert_eq!(
            (s.judged_functions, s.changed_functions),
            (Some(0), Some(1))
        );
        assert_eq!(s.not_judged_functions, ["sdma.c: sdma_seqfile_dump_sde"]);
        assert!(s.cases.is_empty() && s.error.is_none());
        assert_eq!(r.exit_code(), exit_code::SUCCESS);
    }

    #[test]
    fn a_verdict_on_part_of_a_patch_says_how_much_and_warns() {
        let one_of_two = |v| {
            with_functions(
                v,
                &["qp.c: mtu_to_path_mtu"],
                &["sdma.c: sdma_seqfile_dump_sde"],
            )
        };
        let j = one_of_two(PatchVerdict::Preserves);
        // The verdict word stays; patchwork warns, and says how much.
        assert_eq!(j.verdict.word(), "preserves");
        assert_eq!(patchwork_state(&j), "warning");
        assert_eq!(
            patchwork_line(std::slice::from_ref(&j)),
            "state=warning context=hfi1-conformance description=\"6.12 preserves \
             (1 of 2 changed functions judged; not judged: sdma.c: sdma_seqfile_dump_sde)\""
        );
        assert_eq!(exit_code(std::slice::from_ref(&j)), exit_code::SUCCESS);
        let s = &report(std::slice::from_ref(&j)).suites[0];
        assert_eq!(s.verdict.as_deref(), Some("preserves"));
        assert_eq!(s.skipped, None);
        assert_eq!(
            (s.judged_functions, s.changed_functions),
            (Some(1), Some(2))
        );
        assert_eq!(
            s.verdict_note().as_deref(),
            Some("1 of 2 changed functions judged; not judged: sdma.c: sdma_seqfile_dump_sde")
        );
        assert_eq!(
            patchwork_state(&one_of_two(PatchVerdict::ChangesAsDeclared)),
            "warning"
        );
        assert_eq!(
            patchwork_state(&one_of_two(PatchVerdict::Changes)),
            "warning"
        );
        let broken = one_of_two(PatchVerdict::BreaksBuild("x".into()));
        assert_eq!(patchwork_state(&broken), "fail");
        assert_eq!(report(&[broken]).suites[0].changed_functions, None);
    }

    #[test]
    fn a_patch_judged_whole_is_reported_as_before() {
        let j = with_functions(PatchVerdict::Preserves, &["qp.c: mtu_to_path_mtu"], &[]);
        assert_eq!(
            patchwork_line(std::slice::from_ref(&j)),
            "state=success context=hfi1-conformance description=\"6.12 preserves\""
        );
        let s = &report(&[j]).suites[0];
        assert_eq!((s.skipped.as_ref(), s.judged_functions), (None, None));
        assert_eq!(s.verdict_note(), None);
        let v = serde_json::to_value(s).expect("JSON");
        for key in [
            "skipped",
            "judged_functions",
            "changed_functions",
            "not_judged_functions",
        ] {
            assert!(v.get(key).is_none(), "{key} in {v}");
        }
    }
}
