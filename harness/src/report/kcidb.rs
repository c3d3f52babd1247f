//! The KCIDB report: KernelCI's I/O JSON, schema v5.3 (the newest that
//! `kcidb-io` validates), as `kcidb-submit` takes it.
//!
//! A suite's trees are checkouts (the tree, its Debian package or git
//! commit, the gate's patches and their patchset hash), their C worlds are
//! builds (compiler, flags, architecture, whether it built), and its cases
//! are tests of the last tree's build, at `hfi1.qp.FUNCTION.…` (a case's
//! name cut at `::`, each part made a KCIDB path component). Every id is
//! `ORIGIN:KIND-HASH`, the hash of what the object is: the same run gives
//! the same ids, two objects never share one.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::{hex, BuildStatus, Case, PatchFile, Report, Status, Suite, Tree};

/// The KCIDB I/O schema version written.
pub const SCHEMA_VERSION: (u32, u32) = (5, 3);

/// The root of every test's path in KCIDB's test tree.
const PATH_ROOT: &str = "hfi1.qp";

/// The longest `log_excerpt` the schema takes, in characters.
const MAX_EXCERPT: usize = 16384;

/// A KCIDB origin: the name of the CI system submitting, the prefix of
/// every id (`^[a-z0-9_]+$`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin(String);

impl Origin {
    /// The origin unless told otherwise.
    pub const DEFAULT: &'static str = "hfi1_conformance";

    /// `name` as an origin, or why it cannot be one.
    pub fn new(name: &str) -> Result<Origin, String> {
        let ok = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_';
        if !name.is_empty() && name.bytes().all(ok) {
            Ok(Origin(name.to_owned()))
        } else {
            Err(format!(
                "{name:?} is not a KCIDB origin: use lowercase letters, digits and `_` \
                 only (KCIDB's ^[a-z0-9_]+$), such as {}; KernelCI names the origin a \
                 submitter may use",
                Origin::DEFAULT
            ))
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Origin {
    fn default() -> Origin {
        Origin(Origin::DEFAULT.to_owned())
    }
}

/// The report as KCIDB I/O JSON v5.3, pretty-printed, one trailing
/// newline: a checkout and a build per tree (each once), a test per case,
/// one for a suite that was skipped (`SKIP`) and one for a suite that
/// could not run on a tree that exists and built (`ERROR`; a patch that
/// does not apply is an invalid checkout, a tree that does not build a
/// failed build).
pub fn kcidb(r: &Report, origin: &Origin) -> String {
    let mut o = Objects {
        origin,
        kind: &r.kind,
        checkouts: vec![],
        builds: vec![],
        tests: vec![],
        ids: BTreeSet::new(),
    };
    for s in &r.suites {
        o.suite(s);
    }
    let v = json!({
        "version": {"major": SCHEMA_VERSION.0, "minor": SCHEMA_VERSION.1},
        "checkouts": o.checkouts,
        "builds": o.builds,
        "tests": o.tests,
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// The objects being written, and every id given.
struct Objects<'a> {
    origin: &'a Origin,
    /// The report's kind (`conformance`, `gate`, …).
    kind: &'a str,
    checkouts: Vec<Value>,
    builds: Vec<Value>,
    tests: Vec<Value>,
    ids: BTreeSet<String>,
}

/// A built object's fields, in the order given.
type Fields = Map<String, Value>;

impl Objects<'_> {
    /// `ORIGIN:KIND-HASH`, the hash of `parts` (each ended by a NUL, so
    /// that no two lists of parts run together the same).
    fn id(&self, kind: &str, parts: &[&str]) -> String {
        let mut h = Sha256::new();
        for p in parts {
            h.update(p.as_bytes());
            h.update([0]);
        }
        let hash = hex(&h.finalize());
        format!("{}:{kind}-{}", self.origin.as_str(), &hash[..20])
    }

    /// An object with its id and origin, the rest from `fields`.
    fn object(&self, id: &str, fields: Fields) -> Value {
        let mut m = Fields::new();
        m.insert("id".into(), id.into());
        m.insert("origin".into(), self.origin.as_str().into());
        m.extend(fields);
        Value::Object(m)
    }

    fn suite(&mut self, s: &Suite) {
        let trees = if s.trees.is_empty() {
            vec![unrecorded(s)]
        } else {
            s.trees.clone()
        };
        let mut builds = vec![];
        for t in &trees {
            let checkout = self.checkout(t);
            builds.push(self.build(t, &checkout));
        }
        let tested = trees.last().cloned().unwrap_or_default();
        let build = builds.pop().unwrap_or_default();
        let baseline = (!builds.is_empty()).then(|| builds[0].clone());
        let at = Place {
            suite: s,
            build: &build,
            baseline: baseline.as_deref(),
        };
        if let Some(why) = &s.skipped {
            self.test(&at, None, "SKIP", why);
        }
        let made = tested.valid != Some(false);
        let built = tested.build.as_ref().map(|b| b.status) != Some(BuildStatus::Failed);
        if let (Some(e), true, true) = (&s.error, made, built) {
            self.test(&at, None, "ERROR", e);
        }
        for c in &s.cases {
            let message = c.message.clone().unwrap_or_default();
            self.test(&at, Some(c), test_status(c), &message);
        }
    }

    /// The checkout of `t` (written once): its id.
    fn checkout(&mut self, t: &Tree) -> String {
        let patchset = PatchFile::patchset_hash(&t.patches);
        let package = t.package.as_deref().unwrap_or("");
        let git = t.git_commit.as_deref().unwrap_or("");
        // A tree not read (no digest) is known by its name alone.
        let name = if t.digest.is_empty() { &t.kernel } else { "" };
        let id = self.id(
            "checkout",
            &[&t.digest, package, git, &patchset, name, &t.version],
        );
        if !self.ids.insert(id.clone()) {
            return id;
        }
        let mut f = Fields::new();
        if let Some(p) = &t.package {
            // A Debian tree has no commit: the package version names it.
            f.insert("tree_name".into(), "debian".into());
            f.insert("git_commit_name".into(), p.as_str().into());
        }
        if let Some(g) = &t.git_commit {
            f.insert("git_commit_hash".into(), g.as_str().into());
        }
        if let Some(u) = &t.git_url {
            f.insert("git_repository_url".into(), u.as_str().into());
        }
        f.insert("patchset_hash".into(), patchset.into());
        if let Some(v) = t.valid {
            f.insert("valid".into(), v.into());
        }
        let mut comment = match &t.package {
            Some(p) => format!("Debian linux-source {p}"),
            None => format!("{} ({})", t.kernel, t.version),
        };
        if !t.patches.is_empty() {
            comment.push_str(&format!(" + {} patch(es)", t.patches.len()));
        }
        f.insert("comment".into(), text(&comment).into());
        let mut misc = Fields::new();
        misc.insert("kernel".into(), text(&t.kernel).into());
        misc.insert("version".into(), t.version.as_str().into());
        if !t.digest.is_empty() {
            misc.insert("tree_digest".into(), t.digest.as_str().into());
        }
        if !t.patches.is_empty() {
            misc.insert("patches".into(), json!(t.patches));
        }
        f.insert("misc".into(), misc.into());
        let v = self.object(&id, f);
        self.checkouts.push(v);
        id
    }

    /// The build of `t`'s world (written once): its id.
    fn build(&mut self, t: &Tree, checkout: &str) -> String {
        let (key, config) = t
            .build
            .as_ref()
            .map(|b| (b.recipe.key.as_str(), b.recipe.config.as_str()))
            .unwrap_or(("", ""));
        let id = self.id("build", &[checkout, key, config]);
        if !self.ids.insert(id.clone()) {
            return id;
        }
        let mut f = Fields::new();
        f.insert("checkout_id".into(), checkout.into());
        f.insert(
            "comment".into(),
            text(&format!("C world of {} ({})", t.kernel, t.version)).into(),
        );
        if let Some(b) = &t.build {
            if is_architecture(&b.recipe.architecture) {
                f.insert("architecture".into(), b.recipe.architecture.as_str().into());
            }
            f.insert("compiler".into(), text(&b.recipe.compiler).into());
            f.insert("config_name".into(), text(&b.recipe.config).into());
            let status = match b.status {
                BuildStatus::Built => "PASS",
                BuildStatus::Failed => "FAIL",
                BuildStatus::Error => "ERROR",
                BuildStatus::NotBuilt => "SKIP",
            };
            f.insert("status".into(), status.into());
            if let Some(e) = &b.error {
                f.insert("log_excerpt".into(), excerpt(e).into());
            }
            let misc = json!({
                "command": text(&b.recipe.command),
                "cflags": b.recipe.flags.iter().map(|x| text(x)).collect::<Vec<_>>(),
                "world_key": b.recipe.key,
                "role": t.role,
            });
            f.insert("misc".into(), misc);
        }
        let v = self.object(&id, f);
        self.builds.push(v);
        id
    }

    /// A test of `at`'s build: case `c`, or the suite itself (`None`).
    fn test(&mut self, at: &Place, c: Option<&Case>, status: &str, message: &str) {
        let s = at.suite;
        let name = c.map(|c| c.name.as_str()).unwrap_or("");
        let base = at.baseline.unwrap_or("");
        let mut id = self.id("test", &[at.build, base, &s.name, name]);
        let mut n = 1;
        while !self.ids.insert(id.clone()) {
            n += 1;
            id = self.id("test", &[at.build, base, &s.name, name, &n.to_string()]);
        }
        let mut f = Fields::new();
        f.insert("build_id".into(), at.build.into());
        f.insert(
            "path".into(),
            c.map(test_path).unwrap_or(PATH_ROOT.into()).into(),
        );
        f.insert("status".into(), status.into());
        let title = if name.is_empty() {
            s.name.clone()
        } else {
            format!("{}: {name}", s.name)
        };
        f.insert("comment".into(), text(&title).into());
        let mut log = message.to_owned();
        if let Some(d) = c.and_then(|c| c.detail.as_deref()) {
            log.push('\n');
            log.push_str(d);
        }
        if !log.trim().is_empty() {
            f.insert("log_excerpt".into(), excerpt(&log).into());
        }
        f.insert("misc".into(), self.test_misc(at, c, message));
        let v = self.object(&id, f);
        self.tests.push(v);
    }

    /// What KCIDB has no field for: the case as the harness names it, its
    /// status word, its message, the comparison's baseline, the patch's
    /// depth line.
    fn test_misc(&self, at: &Place, c: Option<&Case>, message: &str) -> Value {
        let mut m = Fields::new();
        m.insert("kind".into(), self.kind.into());
        m.insert("suite".into(), text(&at.suite.name).into());
        if let Some(v) = &at.suite.verdict {
            m.insert("verdict".into(), v.as_str().into());
        }
        // Depth qualifies the patch, never its tests' statuses.
        if let Some(d) = &at.suite.depth {
            m.insert("depth".into(), text(&d.line()).into());
        }
        if let Some(b) = at.baseline {
            m.insert("baseline_build_id".into(), b.into());
        }
        if let Some(pc) = &at.suite.patch_coverage {
            m.insert("patch_coverage".into(), json!(pc));
        }
        if let Some(pm) = &at.suite.patch_mcdc {
            m.insert("mcdc".into(), text(&pm.line()).into());
        }
        if !message.is_empty() {
            m.insert("message".into(), text(message).into());
        }
        if let Some(c) = c {
            m.insert("case".into(), text(&c.name).into());
            m.insert("function".into(), text(&c.function).into());
            m.insert("status".into(), c.status.word().into());
            m.insert("vectors".into(), c.vectors.into());
            m.insert("failed".into(), c.failed.into());
            if let Some(file) = &c.file {
                m.insert("file".into(), text(file).into());
            }
            if let Some(line) = c.line {
                m.insert("line".into(), line.into());
            }
        }
        m.into()
    }
}

/// Where a suite's tests go: its tested build, and the one it was
/// compared against.
struct Place<'a> {
    suite: &'a Suite,
    build: &'a str,
    baseline: Option<&'a str>,
}

/// The tree of a suite that recorded none (a kernel that could not be
/// opened): known by its name.
fn unrecorded(s: &Suite) -> Tree {
    Tree {
        role: "tree".into(),
        kernel: s.kernel.clone(),
        version: s.version.clone(),
        ..Default::default()
    }
}

/// A case's KCIDB status: a harness fault (crash, hang, denied, refused)
/// is `ERROR`, a disagreement `FAIL`, a pass that ran no vector `SKIP`.
fn test_status(c: &Case) -> &'static str {
    match c.status {
        Status::Pass if c.vectors == 0 => "SKIP",
        Status::Skip => "SKIP",
        Status::Pass => "PASS",
        s if s.is_error() => "ERROR",
        _ => "FAIL",
    }
}

/// `hfi1.qp.FUNCTION.PART…`: the case's function, then its name's parts
/// (cut at `::`, the function's own name left out), each a KCIDB path
/// component.
fn test_path(c: &Case) -> String {
    let mut parts = vec![PATH_ROOT.to_owned()];
    let func = component(&c.function);
    if !func.is_empty() {
        parts.push(func.clone());
    }
    for p in c.name.split("::").map(component) {
        if !p.is_empty() && p != func {
            parts.push(p);
        }
    }
    parts.join(".")
}

/// `s` as a KCIDB path component (`[a-zA-Z0-9_-]+`): every run of other
/// characters (`.`, spaces, `#`, parentheses, …) one `_`, none at the
/// ends.
fn component(s: &str) -> String {
    let mut out = String::new();
    for ch in s.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' || ch == '-' {
            out.push(ch);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_owned()
}

/// Whether `a` is an architecture as the schema has it (`^[a-z0-9_]*$`).
fn is_architecture(a: &str) -> bool {
    !a.is_empty()
        && a.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Text as the schema takes it: no NUL.
fn text(s: &str) -> String {
    s.replace('\0', "\u{fffd}")
}

/// A log excerpt: the text's first [`MAX_EXCERPT`] characters.
fn excerpt(s: &str) -> String {
    text(s).chars().take(MAX_EXCERPT).collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{gate_report, report};
    use super::super::{Build, Report, Suite};
    use super::*;
    use crate::cworld::build::Recipe;

    fn parsed(r: &Report) -> Value {
        serde_json::from_str(&kcidb(r, &Origin::default())).expect("JSON")
    }

    fn tests_of(v: &Value) -> Vec<&Value> {
        v["tests"].as_array().expect("tests").iter().collect()
    }

    /// Every id of every object, each once, all `origin:`.
    fn all_ids(v: &Value) -> Vec<String> {
        let mut out = vec![];
        for kind in ["checkouts", "builds", "tests"] {
            for o in v[kind].as_array().expect(kind) {
                out.push(o["id"].as_str().expect("id").to_owned());
            }
        }
        out
    }

    #[test]
    fn statuses_map_to_kcidbs() {
        let v = parsed(&report());
        let st: Vec<&str> = tests_of(&v)
            .iter()
            .map(|t| t["status"].as_str().expect("status"))
            .collect();
        // pass, fail, hang, denied: a harness fault is an ERROR.
        assert_eq!(st, ["PASS", "FAIL", "ERROR", "ERROR"]);
        let mut c = Case {
            status: Status::Undefined,
            vectors: 1,
            ..Default::default()
        };
        assert_eq!(
            test_status(&c),
            "FAIL",
            "C returned where the model says undefined"
        );
        for (s, want) in [
            (Status::Crashed, "ERROR"),
            (Status::Malformed, "ERROR"),
            (Status::Pass, "PASS"),
            (Status::Skip, "SKIP"),
        ] {
            c.status = s;
            assert_eq!(test_status(&c), want, "{s:?}");
        }
        c.status = Status::Pass;
        c.vectors = 0;
        assert_eq!(
            test_status(&c),
            "SKIP",
            "a pass that ran nothing did not run"
        );
        // The one-line message is each test's excerpt and misc.
        let bad = tests_of(&v)[1];
        assert_eq!(bad["misc"]["message"], "fail happened");
        assert_eq!(bad["misc"]["status"], "fail");
        let log = bad["log_excerpt"].as_str().expect("excerpt");
        assert!(log.starts_with("fail happened\nline one\n"), "{log}");
        assert_eq!(v["version"], json!({"major": 5, "minor": 3}));
    }

    #[test]
    fn ids_are_unique_deterministic_and_of_the_origin() {
        let (a, b) = (
            kcidb(&report(), &Origin::default()),
            kcidb(&report(), &Origin::default()),
        );
        assert_eq!(a, b, "the same report gives the same ids");
        let v = parsed(&report());
        let ids = all_ids(&v);
        let unique: BTreeSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{ids:?}");
        assert!(ids.iter().all(|i| i.starts_with("hfi1_conformance:")));
        // Tests hang off the build, the build off the checkout.
        let build = &v["builds"][0];
        assert_eq!(build["checkout_id"], v["checkouts"][0]["id"]);
        assert!(tests_of(&v).iter().all(|t| t["build_id"] == build["id"]));
        // Another origin, the same objects under its name.
        let other = Origin::new("lab_2").expect("origin");
        let w: Value = serde_json::from_str(&kcidb(&report(), &other)).expect("JSON");
        assert!(all_ids(&w).iter().all(|i| i.starts_with("lab_2:")));
        assert_eq!(w["tests"][0]["origin"], "lab_2");
        // The same case twice in a suite: two ids still.
        let mut r = report();
        let dup = r.suites[0].cases[0].clone();
        r.suites[0].cases.push(dup);
        let v = parsed(&Report::new("conformance", r.suites));
        let ids = all_ids(&v);
        assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), ids.len());
    }

    #[test]
    fn paths_are_dot_separated_sanitised_components() {
        let v = parsed(&report());
        let paths: Vec<&str> = tests_of(&v)
            .iter()
            .map(|t| t["path"].as_str().expect("path"))
            .collect();
        assert_eq!(
            paths,
            [
                "hfi1.qp.hfi1_setup_wqe.fam.ok",
                "hfi1.qp.hfi1_setup_wqe.fam.bad_1",
                "hfi1.qp.hfi1_setup_wqe.fam.loops",
                "hfi1.qp.hfi1_setup_wqe.fam.sock",
            ]
        );
        let c = |name: &str, function: &str| Case {
            name: name.into(),
            function: function.into(),
            ..Default::default()
        };
        // A C-vs-C case names its function once; a dotted name splits no
        // further; a snapshot has no function.
        assert_eq!(
            test_path(&c("diff::hfi1_setup_wqe", "hfi1_setup_wqe")),
            "hfi1.qp.hfi1_setup_wqe.diff"
        );
        assert_eq!(
            test_path(&c("unavailable::6.1=6.1.1-1", "(unavailable)")),
            "hfi1.qp.unavailable.6_1_6_1_1-1"
        );
        assert_eq!(test_path(&c("snapshot::mtu", "")), "hfi1.qp.snapshot.mtu");
        assert_eq!(
            test_path(&c("model::corpus", "(rust model)")),
            "hfi1.qp.rust_model.model.corpus"
        );
        let re = |p: &str| {
            p.split('.').all(|x| {
                !x.is_empty()
                    && x.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            })
        };
        assert!(paths.iter().all(|p| re(p)), "{paths:?}");
    }

    #[test]
    fn a_gate_report_skips_what_was_not_judged() {
        let mut r = gate_report();
        r.suites[1].trees = vec![
            Tree {
                role: "before".into(),
                kernel: "6.12".into(),
                version: "6.12.117".into(),
                package: Some("6.12.117-1~deb12u1".into()),
                digest: "d0".into(),
                ..Default::default()
            },
            Tree {
                role: "after".into(),
                kernel: "6.12 + 1 patch".into(),
                version: "6.12.117".into(),
                package: Some("6.12.117-1~deb12u1".into()),
                digest: "d1".into(),
                patches: vec![PatchFile::new(1, "qp: a change", "diff --git a/x b/x\n")],
                valid: Some(true),
                build: Some(Build {
                    recipe: Recipe {
                        compiler: "gcc (Debian 12.2.0-14) 12.2.0".into(),
                        command: "gcc".into(),
                        flags: vec!["-O2".into()],
                        architecture: "x86_64".into(),
                        config: "plain".into(),
                        key: "k1".into(),
                    },
                    ..Default::default()
                }),
                ..Default::default()
            },
        ];
        let v = parsed(&r);
        let t = tests_of(&v);
        assert_eq!(
            (t[0]["status"].as_str(), t[0]["path"].as_str()),
            (Some("SKIP"), Some("hfi1.qp"))
        );
        assert_eq!(t[0]["log_excerpt"], "no changed line runs in a world");
        assert_eq!(t[1]["status"], "FAIL");
        assert_eq!(t[1]["misc"]["verdict"], "changes");
        // The patched tree: its patchset hash, its build the tested one,
        // the base its baseline.
        let co = v["checkouts"].as_array().expect("checkouts");
        assert_eq!(co.len(), 3, "the skipped suite's, before, after");
        let after = &co[2];
        assert_eq!(
            after["patchset_hash"],
            PatchFile::patchset_hash(&r.suites[1].trees[1].patches)
        );
        assert_eq!(after["patchset_hash"].as_str().map(str::len), Some(64));
        assert_eq!(co[1]["patchset_hash"], "");
        assert_eq!(after["git_commit_name"], "6.12.117-1~deb12u1");
        let builds = v["builds"].as_array().expect("builds");
        let tested = &builds[2];
        assert_eq!(tested["status"], "PASS");
        assert_eq!(tested["architecture"], "x86_64");
        assert_eq!(t[1]["build_id"], tested["id"]);
        assert_eq!(t[1]["misc"]["baseline_build_id"], builds[1]["id"]);
    }

    #[test]
    fn a_suite_that_could_not_run_is_an_error_unless_its_build_failed() {
        let mut suites = report().suites;
        suites.push(Suite {
            name: "kernel 2".into(),
            kernel: "/tmp/x".into(),
            error: Some("cannot judge: needs `open`".into()),
            ..Default::default()
        });
        let v = parsed(&Report::new("conformance", suites.clone()));
        let last = *tests_of(&v).last().expect("a test");
        assert_eq!(
            (last["status"].as_str(), last["path"].as_str()),
            (Some("ERROR"), Some("hfi1.qp"))
        );
        assert_eq!(last["log_excerpt"], "cannot judge: needs `open`");
        assert_eq!(v["checkouts"].as_array().map(Vec::len), Some(2));
        // A tree whose code does not build: a failed build, no test.
        suites[1].trees = vec![Tree {
            kernel: "/tmp/x".into(),
            digest: "d".into(),
            build: Some(Build {
                status: BuildStatus::Failed,
                error: Some("qp.c:1: error: x".into()),
                ..Default::default()
            }),
            ..Default::default()
        }];
        let v = parsed(&Report::new("conformance", suites.clone()));
        assert_eq!(tests_of(&v).len(), 4);
        assert_eq!(v["builds"][1]["status"], "FAIL");
        assert_eq!(v["builds"][1]["log_excerpt"], "qp.c:1: error: x");
        // A patch that does not apply: an invalid checkout, no test.
        suites[1].trees[0].build = None;
        suites[1].trees[0].valid = Some(false);
        let v = parsed(&Report::new("gate", suites));
        assert_eq!(tests_of(&v).len(), 4);
        assert_eq!(v["checkouts"][1]["valid"], false);
    }

    #[test]
    fn origins_are_what_kcidb_allows() {
        assert_eq!(Origin::default().as_str(), "hfi1_conformance");
        for ok in ["hfi1_conformance", "lab2", "x"] {
            assert!(Origin::new(ok).is_ok(), "{ok}");
        }
        for bad in ["", "Lab", "my-lab", "a:b", "a b", "ü"] {
            let e = Origin::new(bad).expect_err(bad);
            assert!(
                e.contains("^[a-z0-9_]+$") && e.contains("hfi1_conformance"),
                "{e}"
            );
        }
    }

    #[test]
    fn patch_files_are_named_and_hashed_as_kcidb_says() {
        let p = PatchFile::new(1, "IB/hfi1: fix a thing (v2)", "text\n");
        assert_eq!(p.name, "0001-IB-hfi1-fix-a-thing-v2.patch");
        // sha256 of "text\n", and the patchset hash of it alone, as
        // `sha256sum *.patch | cut -c-64 | sha256sum` computes them.
        assert_eq!(p.sha256, hex(&Sha256::digest(b"text\n")));
        let line = format!("{}\n", p.sha256);
        assert_eq!(
            PatchFile::patchset_hash(std::slice::from_ref(&p)),
            hex(&Sha256::digest(line.as_bytes()))
        );
        assert_eq!(PatchFile::patchset_hash(&[]), "");
    }
}
