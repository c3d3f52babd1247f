//! The KTAP report (Documentation/dev-tools/ktap.rst), as kunit.py reads
//! it.

use std::fmt::Write as _;

use super::{Report, Status};

/// A KTAP test or suite name: no `#` (KTAP reserves it for directives),
/// no line breaks or other control characters, no leading or trailing
/// space.
pub fn ktap_name(s: &str) -> String {
    let mut o: String = s
        .chars()
        .map(|c| match c {
            '#' => "no.".to_owned(),
            c if c.is_control() => " ".to_owned(),
            c => c.to_string(),
        })
        .collect();
    o = o.trim().to_owned();
    if o.is_empty() {
        o.push('-');
    }
    o
}

fn ktap_diag(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() && c != '\t' { ' ' } else { c })
        .collect()
}

/// KTAP version 1 (Documentation/dev-tools/ktap.rst): a subtest per suite,
/// a result line per case. A crash, a denied call or a refused call is
/// `not ok … # ERROR`, a hang `not ok … # TIMEOUT`; the explanation comes
/// as diagnostic lines before the result. A skipped suite is `ok N NAME #
/// SKIP reason` (kunit.py: skipped, not "0 tests run"). kunit.py parses
/// it.
pub fn ktap(r: &Report) -> String {
    let mut s = String::from("KTAP version 1\n");
    let _ = writeln!(s, "1..{}", r.suites.len());
    for (k, suite) in r.suites.iter().enumerate() {
        let _ = writeln!(s, "    KTAP version 1");
        let _ = writeln!(s, "    # Subtest: {}", ktap_name(&suite.name));
        if let Some(v) = &suite.verdict {
            let v = match suite.verdict_note() {
                Some(note) => format!("{v} ({note})"),
                None => v.clone(),
            };
            let _ = writeln!(s, "    # verdict: {}", ktap_diag(&v));
        }
        for w in &suite.warnings {
            let _ = writeln!(s, "    # warning added: {}", ktap_diag(w));
        }
        for f in &suite.not_judged {
            let _ = writeln!(s, "    # not judged: {}", ktap_diag(f));
        }
        if let Some(pc) = &suite.patch_coverage {
            let _ = writeln!(
                s,
                "    # patch coverage: {} of {} changed lines executed {}",
                pc.executed,
                pc.changed,
                ktap_diag(&pc.missed.join(", "))
            );
        }
        if let Some(m) = &suite.patch_mcdc {
            let _ = writeln!(s, "    # depth: {}", ktap_diag(&m.line()));
        }
        if let Some(d) = &suite.depth {
            let _ = writeln!(s, "    # depth: {}", ktap_diag(&d.line()));
            for l in d.detail().lines() {
                let _ = writeln!(s, "    # depth:   {}", ktap_diag(l));
            }
        }
        if let Some(e) = &suite.error {
            for l in e.lines() {
                let _ = writeln!(s, "    # could not run: {}", ktap_diag(l));
            }
        }
        let _ = writeln!(s, "    1..{}", suite.cases.len());
        for (n, c) in suite.cases.iter().enumerate() {
            if !c.status.passed() {
                if let Some(d) = c.detail.as_ref().or(c.message.as_ref()) {
                    for l in d.lines() {
                        let _ = writeln!(s, "    # {}", ktap_diag(l));
                    }
                }
            }
            let name = ktap_name(&c.name);
            let msg = ktap_diag(
                c.message
                    .as_deref()
                    .unwrap_or("")
                    .lines()
                    .next()
                    .unwrap_or(""),
            );
            let _ = match c.status {
                Status::Pass => writeln!(s, "    ok {} {name}", n + 1),
                Status::Skip => writeln!(s, "    ok {} {name} # SKIP {msg}", n + 1),
                Status::Hang => writeln!(s, "    not ok {} {name} # TIMEOUT {msg}", n + 1),
                st if st.is_error() => writeln!(s, "    not ok {} {name} # ERROR {msg}", n + 1),
                _ => writeln!(s, "    not ok {} {name}", n + 1),
            };
        }
        let ok = suite.error.is_none() && suite.cases.iter().all(|c| c.status.passed());
        let _ = match (&suite.skipped, &suite.error) {
            (Some(why), _) => writeln!(
                s,
                "ok {} {} # SKIP {}",
                k + 1,
                ktap_name(&suite.name),
                ktap_diag(why.lines().next().unwrap_or(""))
            ),
            (None, Some(e)) => writeln!(
                s,
                "not ok {} {} # ERROR {}",
                k + 1,
                ktap_name(&suite.name),
                ktap_diag(e.lines().next().unwrap_or(""))
            ),
            (None, None) => writeln!(
                s,
                "{} {} {}",
                if ok { "ok" } else { "not ok" },
                k + 1,
                ktap_name(&suite.name)
            ),
        };
    }
    s
}
#[cfg(test)]
mod tests {
    use super::super::tests::report;
    use super::*;

    #[test]
    fn ktap_names_hold_no_hash_and_errors_use_directives() {
        let k = ktap(&report());
        assert!(k.contains("    not ok 2 fam::bad no.1\n"), "{k}");
        assert!(
            k.contains("    not ok 3 fam::loops # TIMEOUT hang happened\n"),
            "{k}"
        );
        assert!(
            k.contains("    not ok 4 fam::sock # ERROR denied happened\n"),
            "{k}"
        );
        for l in k
            .lines()
            .filter(|l| l.trim_start().starts_with("ok") || l.trim_start().starts_with("not ok"))
        {
            let name = l.split(" # ").next().unwrap_or(l);
            assert!(!name.contains('#'), "{l}");
        }
    }

    /// A vector of a function the tree lacks: `ok` with a SKIP directive,
    /// its reason after it, counted as passed.
    #[test]
    fn a_skipped_case_is_ok_with_a_skip_directive() {
        let r = super::super::tests::report_with_a_skip();
        let k = ktap(&r);
        assert!(
            k.contains("    ok 5 fam::gone # SKIP sc_drop is not in this tree: not run\n"),
            "{k}"
        );
        assert!(
            !k.contains("    # sc_drop"),
            "no diagnostic for a skip: {k}"
        );
        assert_eq!(
            (r.totals.passed, r.totals.skipped_cases),
            (2, 1),
            "{:?}",
            r.totals
        );
    }

    #[test]
    fn a_skipped_suite_is_ok_with_a_skip_directive() {
        let k = ktap(&super::super::tests::gate_report());
        assert!(
            k.contains("    1..0\nok 1 6.12: sdma only # SKIP no changed line runs in a world\n"),
            "{k}"
        );
        assert!(
            k.contains("    # verdict: not-judged (no changed line runs in a world)\n"),
            "{k}"
        );
        assert!(
            k.contains("    # verdict: changes (1 of 2 changed functions judged; not judged: sdma.c: sdma_make_progress)\n"),
            "{k}"
        );
        assert!(k.contains("\nnot ok 2 6.12: qp and sdma\n"), "{k}");
    }
}
