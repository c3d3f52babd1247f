//! The one report model: what a run found, as Rust types with serde, and
//! every writer of it — human, KTAP, JUnit XML, JSON. `cargo xtask
//! conformance` (corpus and `--random`) builds a [`Report`]; the writers
//! never look at anything else, so a new producer (the gate, tree diffs,
//! mutants) gets every format by building one.
//!
//! The JSON form is the schema: [`SCHEMA`] version [`VERSION`], described
//! by `harness/report.schema.json` (generated from these types by
//! `cargo xtask schema`, checked fresh by a test). A change that removes or
//! renames a field raises the version.

pub mod exit_code;

use std::fmt::Write as _;
use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;

/// The `schema` field of every JSON report.
pub const SCHEMA: &str = "hfi1-conformance/report";
/// Raised on any change a consumer could trip over.
pub const VERSION: u32 = 1;

/// A whole run.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Report {
    /// Always `hfi1-conformance/report`.
    pub schema: String,
    /// The schema version.
    pub version: u32,
    /// What made it: `conformance` (the corpus), `random`, `diff` (two
    /// trees, C against C) or `gate` (patches, each against the tree
    /// before it).
    pub kind: String,
    /// One suite per kernel.
    pub suites: Vec<Suite>,
    pub totals: Totals,
}

// A new field gets its empty value from `Default`: producers that do not
// fill it need no change (`..Default::default()`).
/// One kernel's results.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Suite {
    /// The kernel series (`6.12`), or `SERIES (tree N)` for a tree named by
    /// path when the series is not unique in the run; never a path.
    pub name: String,
    /// How the user named the kernel: a series or a path.
    pub kernel: String,
    /// `6.12.117`; empty when the tree could not be opened.
    pub version: String,
    /// Why the kernel could not be run (no tree, no sandbox, a build that
    /// failed, a world that cannot be judged); its cases are then empty.
    pub error: Option<String>,
    pub cases: Vec<Case>,
    /// Wall time of the suite, in seconds.
    pub seconds: f64,
    /// For a `gate` report: the patch's verdict on this base (`preserves`,
    /// `changes-as-declared`, `changes`, `breaks-build`, `does-not-apply`,
    /// `cannot-judge`).
    pub verdict: Option<String>,
    /// For a `gate` report: files the patch touches that no world compiles
    /// (listed, not judged).
    pub not_judged: Vec<String>,
    /// For a `gate` report: compiler warnings about upstream code that the
    /// patch adds (`file:line:col: warning: …`, paths in the tree).
    pub warnings: Vec<String>,
    /// For a `gate` report: how many of the changed lines inside functions
    /// in scope the corpus and the generated vectors executed.
    pub patch_coverage: Option<PatchCoverage>,
}

/// Of the changed, executable lines inside functions in scope, those the
/// vectors ran (gcov).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PatchCoverage {
    pub changed: usize,
    pub executed: usize,
    /// `file:line` of every changed line no vector ran.
    pub missed: Vec<String>,
}

/// One test: a vector, a snapshot file, or (for `--random` and `diff`) a
/// function.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Case {
    /// `FAMILY::VECTOR`, `snapshot::FAMILY`, or `random::FUNCTION`.
    pub name: String,
    /// The upstream function called (empty for snapshot cases).
    pub function: String,
    /// Where the vector is written, relative to the project (or as given).
    pub file: Option<String>,
    pub line: Option<usize>,
    /// The branch the vector targets.
    pub branch: Option<String>,
    pub status: Status,
    /// One line saying what went wrong.
    pub message: Option<String>,
    /// The full explanation (the call, each differing field).
    pub detail: Option<String>,
    /// Each differing field, C against the Rust model.
    pub differences: Vec<Difference>,
    /// What upstream C did.
    pub c: Option<OutcomeView>,
    /// What the Rust model did (absent when it calls the input undefined).
    pub rust: Option<OutcomeView>,
    /// For a snapshot case that fails: the rows that changed.
    pub snapshot_rows: Vec<SnapshotRow>,
    /// For a `--random` case: what was found.
    pub findings: Vec<Finding>,
    /// Vectors run (1 for a corpus vector).
    pub vectors: u64,
    /// Of those, the ones that failed (disagreed, differed or faulted).
    pub failed: u64,
}

/// How a case ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// C and Rust agree (and the snapshot matches).
    #[default]
    Pass,
    /// They differ, or the snapshot does.
    Fail,
    /// The C world crashed on it.
    Crashed,
    /// The call did not return within the call limit.
    Hang,
    /// The call made a system call the sandbox refuses.
    Denied,
    /// The model calls the input undefined, yet C returned.
    Undefined,
    /// The shim refused the call (a harness bug).
    Malformed,
}

impl Status {
    pub fn passed(self) -> bool {
        self == Status::Pass
    }

    /// A failure of the run rather than a disagreement: JUnit `<error>`,
    /// KTAP `# ERROR` / `# TIMEOUT`.
    pub fn is_error(self) -> bool {
        matches!(
            self,
            Status::Crashed | Status::Hang | Status::Denied | Status::Malformed
        )
    }

    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Crashed => "crashed",
            Status::Hang => "hang",
            Status::Denied => "denied",
            Status::Undefined => "undefined",
            Status::Malformed => "malformed",
        }
    }
}

/// A field where C and the model differ (or, in a `diff` report, where
/// tree A and tree B do).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Difference {
    pub field: String,
    /// Upstream C (tree A in a `diff` report).
    pub c: String,
    /// The Rust model (tree B in a `diff` report).
    pub rust: String,
}

/// An outcome, field by field.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OutcomeView {
    pub ret: i32,
    pub call_send: bool,
    /// `sde#N`, `NULL`, `foreign`.
    pub sdma_engine: String,
    /// `sc#N`, `NULL`, `foreign`.
    pub send_context: String,
    /// `qp->s_flags`, `priv->s_flags` and the iowait flags, by name.
    pub flags: String,
    /// What the function printed.
    pub text: String,
    /// Boundary calls and warnings, one per line.
    pub journal: Vec<String>,
}

impl From<&crate::outcome::Outcome> for OutcomeView {
    fn from(o: &crate::outcome::Outcome) -> OutcomeView {
        OutcomeView {
            ret: o.ret,
            call_send: o.call_send,
            sdma_engine: o.engine_text(),
            send_context: o.send_context_text(),
            flags: o.flags_text(),
            text: o.text.clone(),
            journal: o.journal.clone(),
        }
    }
}

/// A vector whose snapshot row changed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SnapshotRow {
    pub vector: String,
    /// The committed row (`-`: none).
    pub old: String,
    /// The row now (`-`: none).
    pub new: String,
}

/// A generated vector where C and Rust parted (or that faulted).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Finding {
    pub seed: u64,
    pub index: u64,
    pub what: String,
    /// The minimised, ready-to-commit vector file.
    pub file: Option<String>,
}

/// Counts over every suite.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Totals {
    pub tests: usize,
    pub passed: usize,
    pub failed: usize,
    /// Cases that crashed, hung, were denied or refused.
    pub errors: usize,
    /// Kernels that could not be run.
    pub suite_errors: usize,
    pub seconds: f64,
}

impl Report {
    pub fn new(kind: &str, suites: Vec<Suite>) -> Report {
        let mut t = Totals::default();
        for s in &suites {
            t.seconds += s.seconds;
            if s.error.is_some() {
                t.suite_errors += 1;
            }
            for c in &s.cases {
                t.tests += 1;
                match c.status {
                    Status::Pass => t.passed += 1,
                    st if st.is_error() => t.errors += 1,
                    _ => t.failed += 1,
                }
            }
        }
        Report {
            schema: SCHEMA.to_owned(),
            version: VERSION,
            kind: kind.to_owned(),
            suites,
            totals: t,
        }
    }

    /// 0 all passed, 1 something failed, 2 a kernel could not be run.
    pub fn exit_code(&self) -> u8 {
        if self.totals.suite_errors > 0 {
            exit_code::CANNOT_JUDGE
        } else if self.totals.passed < self.totals.tests {
            exit_code::FINDING
        } else {
            exit_code::SUCCESS
        }
    }
}

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Human,
    Ktap,
    Junit,
    Json,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "human" => Some(Format::Human),
            "ktap" => Some(Format::Ktap),
            "junit" => Some(Format::Junit),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// Renders a report.
pub fn render(format: Format, r: &Report) -> String {
    match format {
        Format::Human => human(r),
        Format::Ktap => ktap(r),
        Format::Junit => junit(r),
        Format::Json => json(r),
    }
}

/// JSON, pretty-printed, one trailing newline.
pub fn json(r: &Report) -> String {
    let mut s = serde_json::to_string_pretty(r).unwrap_or_else(|e| {
        // Serializing plain data cannot fail; say so if it ever does.
        format!("{{\"schema\":\"{SCHEMA}\",\"error\":\"serializing the report: {e}\"}}")
    });
    s.push('\n');
    s
}

/// The JSON schema of [`Report`].
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Report);
    serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
}

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
/// as diagnostic lines before the result. kunit.py parses it.
pub fn ktap(r: &Report) -> String {
    let mut s = String::from("KTAP version 1\n");
    let _ = writeln!(s, "1..{}", r.suites.len());
    for (k, suite) in r.suites.iter().enumerate() {
        let _ = writeln!(s, "    KTAP version 1");
        let _ = writeln!(s, "    # Subtest: {}", ktap_name(&suite.name));
        if let Some(v) = &suite.verdict {
            let _ = writeln!(s, "    # verdict: {}", ktap_diag(v));
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
                Status::Hang => writeln!(s, "    not ok {} {name} # TIMEOUT {msg}", n + 1),
                st if st.is_error() => writeln!(s, "    not ok {} {name} # ERROR {msg}", n + 1),
                _ => writeln!(s, "    not ok {} {name}", n + 1),
            };
        }
        let ok = suite.error.is_none() && suite.cases.iter().all(|c| c.status.passed());
        let _ = match &suite.error {
            Some(e) => writeln!(
                s,
                "not ok {} {} # ERROR {}",
                k + 1,
                ktap_name(&suite.name),
                ktap_diag(e.lines().next().unwrap_or(""))
            ),
            None => writeln!(
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

/// JUnit XML as the common schema (Jenkins' junit-10.xsd, which GitLab,
/// junitparser and the others read): `<testsuites>` with totals, a
/// `<testsuite>` per kernel with `tests`/`failures`/`errors`/`skipped`/
/// `time`, a `<testcase>` per case; a disagreement is `<failure>`, a crash,
/// hang or denied call `<error>`, a kernel that could not run one
/// `<testcase>` with `<error>`.
pub fn junit(r: &Report) -> String {
    use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
    let mut w = quick_xml::Writer::new_with_indent(Vec::new(), b' ', 2);
    let time = |t: f64| format!("{t:.3}");
    let suite_errors = |s: &Suite| {
        s.cases.iter().filter(|c| c.status.is_error()).count() + usize::from(s.error.is_some())
    };
    let suite_failures = |s: &Suite| {
        s.cases
            .iter()
            .filter(|c| !c.status.passed() && !c.status.is_error())
            .count()
    };
    let suite_tests = |s: &Suite| s.cases.len() + usize::from(s.error.is_some());
    let mut ev = |e: Event| {
        // Writing into a Vec cannot fail.
        let _ = w.write_event(e);
    };
    ev(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let mut top = BytesStart::new("testsuites");
    top.push_attribute(("name", "hfi1-conformance"));
    top.push_attribute((
        "tests",
        r.suites
            .iter()
            .map(suite_tests)
            .sum::<usize>()
            .to_string()
            .as_str(),
    ));
    top.push_attribute((
        "failures",
        r.suites
            .iter()
            .map(suite_failures)
            .sum::<usize>()
            .to_string()
            .as_str(),
    ));
    top.push_attribute((
        "errors",
        r.suites
            .iter()
            .map(suite_errors)
            .sum::<usize>()
            .to_string()
            .as_str(),
    ));
    top.push_attribute(("time", time(r.totals.seconds).as_str()));
    ev(Event::Start(top));
    for s in &r.suites {
        let name = xml_text(&s.name);
        let mut st = BytesStart::new("testsuite");
        st.push_attribute(("name", name.as_str()));
        st.push_attribute(("tests", suite_tests(s).to_string().as_str()));
        st.push_attribute(("failures", suite_failures(s).to_string().as_str()));
        st.push_attribute(("errors", suite_errors(s).to_string().as_str()));
        st.push_attribute(("skipped", "0"));
        st.push_attribute(("time", time(s.seconds).as_str()));
        ev(Event::Start(st));
        if let Some(e) = &s.error {
            let mut tc = BytesStart::new("testcase");
            tc.push_attribute(("classname", name.as_str()));
            tc.push_attribute(("name", "build and load"));
            tc.push_attribute(("time", "0"));
            ev(Event::Start(tc));
            let mut er = BytesStart::new("error");
            er.push_attribute(("message", "could not run"));
            er.push_attribute(("type", "could-not-run"));
            ev(Event::Start(er));
            ev(Event::Text(BytesText::new(&xml_text(e))));
            ev(Event::End(BytesEnd::new("error")));
            ev(Event::End(BytesEnd::new("testcase")));
        }
        for c in &s.cases {
            let (class, case) = match c.name.split_once("::") {
                Some((a, b)) => (format!("{name}.{a}"), b.to_owned()),
                None => (name.clone(), c.name.clone()),
            };
            let mut tc = BytesStart::new("testcase");
            tc.push_attribute(("classname", xml_text(&class).as_str()));
            tc.push_attribute(("name", xml_text(&case).as_str()));
            tc.push_attribute(("time", "0"));
            if c.status.passed() {
                ev(Event::Empty(tc));
                continue;
            }
            ev(Event::Start(tc));
            let tag = if c.status.is_error() {
                "error"
            } else {
                "failure"
            };
            let mut f = BytesStart::new(tag);
            let msg = xml_text(c.message.as_deref().unwrap_or(c.status.word()));
            f.push_attribute(("message", msg.lines().next().unwrap_or("")));
            f.push_attribute(("type", c.status.word()));
            ev(Event::Start(f));
            let mut body = String::new();
            if let (Some(file), Some(line)) = (&c.file, c.line) {
                let _ = writeln!(body, "{file}:{line}");
            }
            body.push_str(c.detail.as_deref().unwrap_or(""));
            ev(Event::Text(BytesText::new(&xml_text(&body))));
            ev(Event::End(BytesEnd::new(tag)));
            ev(Event::End(BytesEnd::new("testcase")));
        }
        ev(Event::End(BytesEnd::new("testsuite")));
    }
    ev(Event::End(BytesEnd::new("testsuites")));
    let mut out = String::from_utf8(w.into_inner()).unwrap_or_default();
    out.push('\n');
    out
}

/// The human report: what failed, explained; a function × kernel table;
/// the totals, and the closing `N passed, N failed` line.
pub fn human(r: &Report) -> String {
    let mut s = String::new();
    for suite in &r.suites {
        if let Some(v) = &suite.verdict {
            let _ = writeln!(s, "VERDICT [{}] {v}", suite.name);
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
        if let Some(e) = &suite.error {
            let _ = writeln!(s, "ERROR [{}] could not run: {e}", suite.name);
        }
        // A passing case with something to say (a tree whose series has
        // no snapshots of its own).
        for c in suite.cases.iter().filter(|c| c.status.passed()) {
            if let Some(d) = c.detail.as_deref() {
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
    let _ = writeln!(
        s,
        "{} tests x {} kernel(s): {} passed, {} failed, {} errors (crashed, hang, denied)",
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
    s
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

/// A path as reports show it: relative to the project when inside it,
/// without `..` detours.
pub fn shown_path(p: &Path) -> String {
    let root = crate::project_path("");
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    let (p, root) = (canon(p), canon(&root));
    p.strip_prefix(&root)
        .map(|r| r.display().to_string())
        .unwrap_or_else(|_| p.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(name: &str, status: Status) -> Case {
        Case {
            name: name.into(),
            function: "hfi1_setup_wqe".into(),
            file: Some("vectors/setup_wqe.toml".into()),
            line: Some(3),
            branch: None,
            status,
            message: (!status.passed()).then(|| format!("{} happened", status.word())),
            detail: (!status.passed()).then(|| "line one\nline # two\u{1}".into()),
            differences: vec![],
            c: None,
            rust: None,
            snapshot_rows: vec![],
            findings: vec![],
            vectors: 1,
            failed: u64::from(!status.passed()),
        }
    }

    fn report() -> Report {
        Report::new(
            "conformance",
            vec![Suite {
                name: "6.12".into(),
                kernel: "6.12".into(),
                version: "6.12.117".into(),
                error: None,
                cases: vec![
                    case("fam::ok", Status::Pass),
                    case("fam::bad #1\u{7}", Status::Fail),
                    case("fam::loops", Status::Hang),
                    case("fam::sock", Status::Denied),
                ],
                seconds: 0.5,
                ..Default::default()
            }],
        )
    }

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

    #[test]
    fn json_carries_schema_version_and_totals() {
        let v: serde_json::Value = serde_json::from_str(&json(&report())).expect("JSON");
        assert_eq!(v["schema"], SCHEMA);
        assert_eq!(v["version"], VERSION);
        assert_eq!(v["totals"]["tests"], 4);
        assert_eq!(v["totals"]["errors"], 2);
        assert_eq!(v["suites"][0]["cases"][2]["status"], "hang");
        assert_eq!(v["suites"][0]["cases"][0]["function"], "hfi1_setup_wqe");
    }

    /// A kernel that could not run is an error entry in every format.
    #[test]
    fn a_kernel_that_could_not_run_is_an_error_everywhere() {
        let mut suites = report().suites;
        suites.push(Suite {
            name: "kernel 2".into(),
            kernel: "/tmp/x".into(),
            version: String::new(),
            error: Some("cannot judge: needs `open`\nsecond line".into()),
            cases: vec![],
            seconds: 0.0,
            ..Default::default()
        });
        let r = Report::new("conformance", suites);
        assert_eq!(r.exit_code(), 2);
        let k = ktap(&r);
        assert!(
            k.contains("not ok 2 kernel 2 # ERROR cannot judge: needs `open`\n"),
            "{k}"
        );
        assert!(!k.contains("/tmp/x"), "a path as a KTAP name: {k}");
        let j = junit(&r);
        assert!(j.contains("<error message=\"could not run\""), "{j}");
        let v: serde_json::Value = serde_json::from_str(&json(&r)).expect("JSON");
        assert_eq!(
            v["suites"][1]["error"],
            "cannot judge: needs `open`\nsecond line"
        );
        assert_eq!(v["totals"]["suite_errors"], 1);
        assert!(human(&r).contains("ERROR [kernel 2] could not run: cannot judge"));
    }

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
    fn exit_codes() {
        assert_eq!(report().exit_code(), 1);
        let mut r = report();
        r.suites[0].cases.truncate(1);
        assert_eq!(Report::new("conformance", r.suites.clone()).exit_code(), 0);
        r.suites[0].error = Some("no tree".into());
        assert_eq!(Report::new("conformance", r.suites).exit_code(), 2);
    }

    /// harness/report.schema.json is what these types say (`cargo xtask
    /// schema` writes it).
    #[test]
    fn committed_schema_is_fresh() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("report.schema.json");
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == json_schema(),
            "{} is stale: run `cargo xtask schema`",
            path.display()
        );
    }
}
