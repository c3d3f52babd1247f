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
            PatchVerdict::BreaksBuild(_) => "breaks-build",
            PatchVerdict::DoesNotApply(_) => "does-not-apply",
            PatchVerdict::CannotJudge(_) => "cannot-judge",
        }
    }

    /// The gate's exit code for this verdict.
    pub fn exit_code(&self) -> u8 {
        match self {
            PatchVerdict::Preserves | PatchVerdict::ChangesAsDeclared => exit_code::SUCCESS,
            PatchVerdict::Changes | PatchVerdict::BreaksBuild(_) => exit_code::FINDING,
            PatchVerdict::DoesNotApply(_) | PatchVerdict::CannotJudge(_) => exit_code::CANNOT_JUDGE,
        }
    }

    /// The patchwork check state: success, warning or fail.
    pub fn patchwork(&self) -> &'static str {
        match self {
            PatchVerdict::Preserves | PatchVerdict::ChangesAsDeclared => "success",
            PatchVerdict::Changes | PatchVerdict::CannotJudge(_) => "warning",
            PatchVerdict::BreaksBuild(_) | PatchVerdict::DoesNotApply(_) => "fail",
        }
    }
}

/// The series' exit code: the worst of its patches'.
pub fn exit_code(judged: &[Judged]) -> u8 {
    judged
        .iter()
        .map(|j| j.verdict.exit_code())
        .max()
        .unwrap_or(exit_code::SUCCESS)
}

/// The judgements of the bases the series applies to, for `--base all`
/// ("does it change behaviour on every series it applies to?"): a base
/// where some patch does not apply drops out (its report still says so),
/// unless it applies nowhere, when all are kept (and the series' verdict
/// is does-not-apply).
pub fn where_it_applies(judged: &[Judged]) -> Vec<Judged> {
    let applies = |base: &str| {
        !judged
            .iter()
            .any(|j| j.base == base && matches!(j.verdict, PatchVerdict::DoesNotApply(_)))
    };
    let kept: Vec<Judged> = judged
        .iter()
        .filter(|j| applies(&j.base))
        .cloned()
        .collect();
    if kept.is_empty() {
        judged.to_vec()
    } else {
        kept
    }
}

/// The line a patchwork bot posts: state, context, description.
pub fn patchwork_line(judged: &[Judged]) -> String {
    let worst = judged.iter().max_by_key(|j| match j.verdict.patchwork() {
        "fail" => 2,
        "warning" => 1,
        _ => 0,
    });
    let state = worst.map_or("success", |j| j.verdict.patchwork());
    let desc: Vec<String> = judged
        .iter()
        .map(|j| format!("{} {}", j.base, j.verdict.word()))
        .collect();
    format!(
        "state={state} context=hfi1-conformance description=\"{}\"",
        desc.join(", ")
    )
}

/// The gate's report: a suite per patch and base (`6.12: subject`), its
/// verdict, the files not judged, and the comparison's cases.
pub fn report(judged: &[Judged]) -> Report {
    let suites = judged.iter().map(suite).collect();
    Report::new("gate", suites)
}

/// One patch on one base, as a suite of the gate's report.
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
    use super::super::parse;
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
            new_warnings: vec![],
            timings: vec![],
            coverage: None,
            model: None,
        }
    }

    #[test]
    fn base_all_judges_the_series_where_it_applies() {
        let j = vec![
            judged_on("6.1", PatchVerdict::DoesNotApply("hunk 1 failed".into())),
            judged_on("6.12", PatchVerdict::Changes),
            judged_on("7.2", PatchVerdict::Preserves),
        ];
        let kept = where_it_applies(&j);
        let bases: Vec<&str> = kept.iter().map(|j| j.base.as_str()).collect();
        assert_eq!(bases, ["6.12", "7.2"]);
        assert_eq!(exit_code(&kept), 1);
        // Applying nowhere is still does-not-apply.
        let none = vec![judged_on("6.1", PatchVerdict::DoesNotApply("x".into()))];
        assert_eq!(exit_code(&where_it_applies(&none)), 2);
    }
}
