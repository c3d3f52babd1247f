//! The human report: the failures explained, a function × kernel table,
//! and the totals.

use std::fmt::Write as _;

use super::{Case, Report, Status, Suite};

/// The human report: what failed, explained; a function × kernel table;
/// the totals, and the closing `N passed, N failed` line.
pub fn human(r: &Report) -> String {
    let mut s = String::new();
    for suite in &r.suites {
        match (&suite.verdict, suite.verdict_note()) {
            (Some(v), Some(note)) => {
                let _ = writeln!(s, "VERDICT [{}] {v} ({note})", suite.name);
            }
            (Some(v), None) => {
                let _ = writeln!(s, "VERDICT [{}] {v}", suite.name);
            }
            (None, Some(why)) => {
                let _ = writeln!(s, "SKIPPED [{}] {why}", suite.name);
            }
            (None, None) => {}
        }
        for w in &suite.warnings {
            let _ = writeln!(s, "WARNING [{}] added: {w}", suite.name);
        }
        for f in &suite.not_judged {
            let _ = writeln!(s, "NOT JUDGED [{}] {f}", suite.name);
        }
        if let Some(pc) = &suite.patch_coverage {
            let _ = writeln!(
                s,
                "COVERAGE [{}] {} of {} changed lines executed{}",
                suite.name,
                pc.executed,
                pc.changed,
                if pc.missed.is_empty() {
                    String::new()
                } else {
                    format!("; not executed: {}", pc.missed.join(", "))
                }
            );
        }
        if let Some(m) = &suite.patch_mcdc {
            let _ = writeln!(s, "DEPTH [{}] {}", suite.name, m.line());
        }
        if let Some(d) = &suite.depth {
            let _ = writeln!(s, "DEPTH [{}] {}", suite.name, d.line());
            for l in d.detail().lines() {
                let _ = writeln!(s, "DEPTH [{}]   {l}", suite.name);
            }
        }
        if let Some(e) = &suite.error {
            let _ = writeln!(s, "ERROR [{}] could not run: {e}", suite.name);
        }
        // A passing case with something to say (a tree whose series has
        // no snapshots of its own).
        for c in suite.cases.iter().filter(|c| c.status.passed()) {
            if c.status == Status::Skip {
                let why = c.message.as_deref().unwrap_or("");
                let _ = writeln!(s, "SKIP [{}] {}: {why}", suite.name, c.name);
            } else if let Some(d) = c.detail.as_deref() {
                let _ = writeln!(s, "NOTE [{}] {}", suite.name, d);
            }
        }
        for c in suite.cases.iter().filter(|c| !c.status.passed()) {
            let _ = writeln!(
                s,
                "FAIL [{}] {}",
                suite.name,
                c.detail
                    .as_deref()
                    .or(c.message.as_deref())
                    .unwrap_or(c.status.word())
            );
        }
    }
    s.push_str(&table(r));
    let t = &r.totals;
    if t.suite_errors > 0 {
        let _ = writeln!(
            s,
            "{} kernel(s) could not run (see ERROR above)",
            t.suite_errors
        );
    }
    let skipped = r.suites.iter().filter(|x| x.skipped.is_some()).count();
    if skipped > 0 {
        let _ = writeln!(s, "{skipped} suite(s) skipped, nothing run (see above)");
    }
    totals(&mut s, r);
    s
}

/// The closing lines: cases passed (and skipped), failed and in error
/// over every kernel, then `N passed, N failed`.
fn totals(s: &mut String, r: &Report) {
    let t = &r.totals;
    let skips = match t.skipped_cases {
        0 => String::new(),
        n => format!(" ({n} skipped: not in the tree)"),
    };
    let _ = writeln!(
        s,
        "{} tests x {} kernel(s): {} passed{skips}, {} failed, {} errors (crashed, hang, denied)",
        r.suites.iter().map(|x| x.cases.len()).max().unwrap_or(0),
        r.suites.len(),
        t.passed,
        t.failed,
        t.errors
    );
    let _ = writeln!(
        s,
        "{} passed, {} failed",
        t.passed,
        t.failed + t.errors + t.suite_errors
    );
}

/// Function × kernel: `passed/total` per cell; the snapshot cases of a
/// kernel in the last row.
fn table(r: &Report) -> String {
    let mut funcs: Vec<&str> = vec![];
    for suite in &r.suites {
        for c in &suite.cases {
            if !c.function.is_empty() && !funcs.contains(&c.function.as_str()) {
                funcs.push(&c.function);
            }
        }
    }
    let fw = funcs.iter().map(|f| f.len()).max().unwrap_or(8).max(9);
    let mut s = String::new();
    let _ = write!(s, "{:fw$}", "function");
    for suite in &r.suites {
        let h = if suite.version.is_empty() || suite.version.starts_with(&suite.name) {
            if suite.version.is_empty() {
                suite.name.clone()
            } else {
                suite.version.clone()
            }
        } else {
            format!("{} ({})", suite.name, suite.version)
        };
        let _ = write!(s, " | {h:>16}");
    }
    s.push('\n');
    let cell = |suite: &Suite, pick: &dyn Fn(&Case) -> bool| -> String {
        if suite.error.is_some() {
            return "error".into();
        }
        let cases: Vec<&Case> = suite.cases.iter().filter(|c| pick(c)).collect();
        let n: u64 = cases.iter().map(|c| c.vectors).sum();
        let bad: u64 = cases.iter().map(|c| c.failed).sum();
        if n == 0 && cases.iter().any(|c| c.status == Status::Skip) {
            return "skipped".into();
        }
        format!("{}/{n}", n.saturating_sub(bad))
    };
    for f in &funcs {
        let _ = write!(s, "{f:fw$}");
        for suite in &r.suites {
            let _ = write!(s, " | {:>16}", cell(suite, &|c: &Case| c.function == *f));
        }
        s.push('\n');
    }
    if r.suites
        .iter()
        .any(|x| x.cases.iter().any(|c| c.function.is_empty()))
    {
        let _ = write!(s, "{:fw$}", "snapshots");
        for suite in &r.suites {
            let _ = write!(
                s,
                " | {:>16}",
                cell(suite, &|c: &Case| c.function.is_empty())
            );
        }
        s.push('\n');
    }
    s
}
#[cfg(test)]
mod tests {
    use super::super::tests::case;
    use super::super::Status;
    use super::*;

    #[test]
    fn the_table_counts_vectors_not_cases() {
        // A diff case stands for many calls; 37 of 10,000 differ.
        let mut c = case("diff::hfi1_setup_wqe", Status::Fail);
        c.function = "hfi1_setup_wqe".into();
        c.vectors = 10_000;
        c.failed = 37;
        let r = Report::new(
            "diff",
            vec![Suite {
                name: "6.1 vs 6.12".into(),
                cases: vec![c],
                ..Default::default()
            }],
        );
        let t = table(&r);
        assert!(t.contains("9963/10000"), "{t}");
    }

    #[test]
    fn verdicts_say_why_nothing_was_judged_or_how_much_was() {
        let h = human(&super::super::tests::gate_report());
        assert!(
            h.contains("VERDICT [6.12: sdma only] not-judged (no changed line runs in a world)\n"),
            "{h}"
        );
        assert!(
            h.contains("VERDICT [6.12: qp and sdma] changes (1 of 2 changed functions judged; not judged: sdma.c: sdma_make_progress)\n"),
            "{h}"
        );
        assert!(h.contains("1 suite(s) skipped, nothing run"), "{h}");
        // A report with no skipped suite says nothing of skipping.
        assert!(!human(&super::super::tests::report()).contains("skipped"));
    }
}
