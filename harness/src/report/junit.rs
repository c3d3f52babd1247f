//! The JUnit XML report, in the common schema (Jenkins' junit-10.xsd,
//! which GitLab, junitparser and the others read).

use std::fmt::Write as _;

use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};

use super::{Case, Report, Status, Suite};

/// The XML being written.
type Xml = quick_xml::Writer<Vec<u8>>;

/// JUnit XML as the common schema (Jenkins' junit-10.xsd, which GitLab,
/// junitparser and the others read): `<testsuites>` with totals, a
/// `<testsuite>` per kernel with `tests`/`failures`/`errors`/`skipped`/
/// `time`, a `<testcase>` per case; a disagreement is `<failure>`, a crash,
/// hang or denied call `<error>`, a kernel that could not run one
/// `<testcase>` with `<error>`, a skipped suite one with `<skipped>`.
pub fn junit(r: &Report) -> String {
    let mut w = quick_xml::Writer::new_with_indent(Vec::new(), b' ', 2);
    ev(
        &mut w,
        Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)),
    );
    let mut top = BytesStart::new("testsuites");
    top.push_attribute(("name", "hfi1-conformance"));
    let total = |count: fn(&Suite) -> usize| r.suites.iter().map(count).sum::<usize>().to_string();
    top.push_attribute(("tests", total(suite_tests).as_str()));
    top.push_attribute(("failures", total(suite_failures).as_str()));
    top.push_attribute(("errors", total(suite_errors).as_str()));
    top.push_attribute(("time", time(r.totals.seconds).as_str()));
    ev(&mut w, Event::Start(top));
    for s in &r.suites {
        testsuite(&mut w, s);
    }
    ev(&mut w, Event::End(BytesEnd::new("testsuites")));
    let mut out = String::from_utf8(w.into_inner()).unwrap_or_default();
    out.push('\n');
    out
}

/// Writes one event.
fn ev(w: &mut Xml, e: Event) {
    // Writing into a Vec cannot fail.
    let _ = w.write_event(e);
}

/// Seconds as JUnit's `time` attribute.
fn time(t: f64) -> String {
    format!("{t:.3}")
}

/// A suite's tests: its cases, one for a kernel that could not run, and
/// one for a suite that was skipped.
fn suite_tests(s: &Suite) -> usize {
    s.cases.len() + usize::from(s.error.is_some()) + usize::from(s.skipped.is_some())
}

/// A suite's `<skipped>`s: one when the suite was skipped, and one a
/// skipped case.
fn suite_skipped(s: &Suite) -> usize {
    usize::from(s.skipped.is_some()) + s.cases.iter().filter(|c| c.status == Status::Skip).count()
}

/// A suite's `<failure>`s: the cases that failed without an error.
fn suite_failures(s: &Suite) -> usize {
    s.cases
        .iter()
        .filter(|c| !c.status.passed() && !c.status.is_error())
        .count()
}

/// A suite's `<error>`s: the cases that ended in one, and a kernel that
/// could not run.
fn suite_errors(s: &Suite) -> usize {
    s.cases.iter().filter(|c| c.status.is_error()).count() + usize::from(s.error.is_some())
}

/// A `<testsuite>`: the kernel's error, or why the suite was skipped, as
/// a test case of its own, then every case.
fn testsuite(w: &mut Xml, s: &Suite) {
    let name = xml_text(&s.name);
    let mut st = BytesStart::new("testsuite");
    st.push_attribute(("name", name.as_str()));
    st.push_attribute(("tests", suite_tests(s).to_string().as_str()));
    st.push_attribute(("failures", suite_failures(s).to_string().as_str()));
    st.push_attribute(("errors", suite_errors(s).to_string().as_str()));
    st.push_attribute(("skipped", suite_skipped(s).to_string().as_str()));
    st.push_attribute(("time", time(s.seconds).as_str()));
    ev(w, Event::Start(st));
    properties(w, s);
    if let Some(e) = &s.error {
        let mut tc = BytesStart::new("testcase");
        tc.push_attribute(("classname", name.as_str()));
        tc.push_attribute(("name", "build and load"));
        tc.push_attribute(("time", "0"));
        ev(w, Event::Start(tc));
        let mut er = BytesStart::new("error");
        er.push_attribute(("message", "could not run"));
        er.push_attribute(("type", "could-not-run"));
        ev(w, Event::Start(er));
        ev(w, Event::Text(BytesText::new(&xml_text(e))));
        ev(w, Event::End(BytesEnd::new("error")));
        ev(w, Event::End(BytesEnd::new("testcase")));
    }
    if let Some(why) = &s.skipped {
        let mut tc = BytesStart::new("testcase");
        tc.push_attribute(("classname", name.as_str()));
        tc.push_attribute(("name", "run"));
        tc.push_attribute(("time", "0"));
        ev(w, Event::Start(tc));
        let mut sk = BytesStart::new("skipped");
        sk.push_attribute(("message", xml_text(why).as_str()));
        ev(w, Event::Empty(sk));
        ev(w, Event::End(BytesEnd::new("testcase")));
    }
    for c in &s.cases {
        testcase(w, &name, c);
    }
    if let Some(d) = s.depth.as_ref().filter(|d| !d.survivors.is_empty()) {
        // ... and its output last.
        ev(w, Event::Start(BytesStart::new("system-out")));
        let text = format!("{}\n{}", d.line(), d.detail());
        ev(w, Event::Text(BytesText::new(&xml_text(&text))));
        ev(w, Event::End(BytesEnd::new("system-out")));
    }
    ev(w, Event::End(BytesEnd::new("testsuite")));
}

/// A gate suite's `<properties>` (junit-10.xsd: before its test cases):
/// its verdict and how deeply the vectors test the changed code (patch
/// coverage, MC/DC of changed decisions, mutants of changed lines).
fn properties(w: &mut Xml, s: &Suite) {
    let mut props: Vec<(&str, String)> = vec![];
    if let Some(v) = &s.verdict {
        props.push(("verdict", v.clone()));
    }
    if let Some(pc) = &s.patch_coverage {
        props.push((
            "patch-coverage",
            format!("{} of {} changed lines executed", pc.executed, pc.changed),
        ));
    }
    if let Some(m) = &s.patch_mcdc {
        props.push(("mcdc", m.line()));
    }
    if let Some(d) = &s.depth {
        props.push(("depth", d.line()));
    }
    if props.is_empty() {
        return;
    }
    ev(w, Event::Start(BytesStart::new("properties")));
    for (name, value) in props {
        let mut p = BytesStart::new("property");
        p.push_attribute(("name", name));
        p.push_attribute(("value", xml_text(&value).as_str()));
        ev(w, Event::Empty(p));
    }
    ev(w, Event::End(BytesEnd::new("properties")));
}

/// A `<testcase>` (class: the suite and the case's family), empty when it
/// passed, else holding its `<failure>` or `<error>`.
fn testcase(w: &mut Xml, suite: &str, c: &Case) {
    let (class, case) = match c.name.split_once("::") {
        Some((a, b)) => (format!("{suite}.{a}"), b.to_owned()),
        None => (suite.to_owned(), c.name.clone()),
    };
    let mut tc = BytesStart::new("testcase");
    tc.push_attribute(("classname", xml_text(&class).as_str()));
    tc.push_attribute(("name", xml_text(&case).as_str()));
    tc.push_attribute(("time", "0"));
    if c.status == Status::Skip {
        ev(w, Event::Start(tc));
        let mut sk = BytesStart::new("skipped");
        let msg = xml_text(c.message.as_deref().unwrap_or(c.status.word()));
        sk.push_attribute(("message", msg.lines().next().unwrap_or("")));
        ev(w, Event::Empty(sk));
        ev(w, Event::End(BytesEnd::new("testcase")));
        return;
    }
    if c.status.passed() {
        ev(w, Event::Empty(tc));
        return;
    }
    ev(w, Event::Start(tc));
    let tag = if c.status.is_error() {
        "error"
    } else {
        "failure"
    };
    let mut f = BytesStart::new(tag);
    let msg = xml_text(c.message.as_deref().unwrap_or(c.status.word()));
    f.push_attribute(("message", msg.lines().next().unwrap_or("")));
    f.push_attribute(("type", c.status.word()));
    ev(w, Event::Start(f));
    let mut body = String::new();
    if let (Some(file), Some(line)) = (&c.file, c.line) {
        let _ = writeln!(body, "{file}:{line}");
    }
    body.push_str(c.detail.as_deref().unwrap_or(""));
    ev(w, Event::Text(BytesText::new(&xml_text(&body))));
    ev(w, Event::End(BytesEnd::new(tag)));
    ev(w, Event::End(BytesEnd::new("testcase")));
}

/// Text for XML 1.0: characters it cannot hold (most C0 controls) become
/// U+FFFD.
fn xml_text(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => '\u{fffd}',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests::report;
    use super::*;

    #[test]
    fn junit_counts_and_is_well_formed() {
        let j = junit(&report());
        assert!(j.contains("tests=\"4\" failures=\"1\" errors=\"2\""), "{j}");
        assert!(
            !j.contains('\u{1}') && !j.contains('\u{7}'),
            "control characters: {j}"
        );
        let mut rd = quick_xml::Reader::from_str(&j);
        let (mut errors, mut failures) = (0, 0);
        loop {
            match rd.read_event().expect("well-formed XML") {
                quick_xml::events::Event::Eof => break,
                quick_xml::events::Event::Start(e) if e.name().as_ref() == b"error" => errors += 1,
                quick_xml::events::Event::Start(e) if e.name().as_ref() == b"failure" => {
                    failures += 1
                }
                _ => {}
            }
        }
        assert_eq!((errors, failures), (2, 1));
    }

    /// A case skipped (the tree lacks its function) is a `<testcase>`
    /// holding `<skipped>`, counted in the suite's `skipped`.
    #[test]
    fn a_skipped_case_holds_skipped() {
        let j = junit(&super::super::tests::report_with_a_skip());
        assert!(
            j.contains("tests=\"5\" failures=\"1\" errors=\"2\" skipped=\"1\""),
            "{j}"
        );
        assert!(
            j.contains("name=\"gone\" time=\"0\">\n      <skipped message=\"sc_drop is not in this tree: not run\"/>\n    </testcase>"),
            "{j}"
        );
    }

    #[test]
    fn a_skipped_suite_is_a_skipped_test_case() {
        let j = junit(&super::super::tests::gate_report());
        assert!(
            j.contains("<testsuite name=\"6.12: sdma only\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\""),
            "{j}"
        );
        assert!(
            j.contains("<testcase classname=\"6.12: sdma only\" name=\"run\" time=\"0\">\n      <skipped message=\"no changed line runs in a world\"/>"),
            "{j}"
        );
        assert!(j.contains("<testsuite name=\"6.12: qp and sdma\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\""), "{j}");
        let mut rd = quick_xml::Reader::from_str(&j);
        let mut skipped = 0;
        loop {
            match rd.read_event().expect("well-formed XML") {
                quick_xml::events::Event::Eof => break,
                quick_xml::events::Event::Empty(e) if e.name().as_ref() == b"skipped" => {
                    skipped += 1
                }
                _ => {}
            }
        }
        assert_eq!(skipped, 1);
    }
}
