//! The one report model: what a run found, as Rust types with serde, and
//! every writer of it — human, KTAP, JUnit XML, JSON. `cargo xtask
//! conformance` (corpus and `--random`) builds a [`Report`]; the writers
//! never look at anything else, so a new producer (the gate, tree diffs,
//! mutants) gets every format by building one.
//!
//! The JSON form is the schema: [`SCHEMA`] version [`VERSION`], described
//! by `harness/report.schema.json` (generated from these types by
//! `cargo xtask codegen`, checked fresh by a test). A change that removes or
//! renames a field raises the version.
//!
//! The model is here; each format is written by a file of its own:
//! `human`, `ktap`, `junit`, `json`, `kcidb`.

pub mod exit_code;
mod human;
mod json;
mod junit;
mod kcidb;
mod ktap;
pub mod shard;

pub use human::human;
pub use json::{json, json_schema};
pub use junit::junit;
pub use kcidb::{kcidb, Origin};
pub use ktap::{ktap, ktap_name};
pub use shard::{Shard, ShardSpec};

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `schema` field of every JSON report.
pub const SCHEMA: &str = "hfi1-conformance/report";
/// Raised on any change a consumer could trip over.
pub const VERSION: u32 = 1;

/// A whole run.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
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
    /// Counts over every suite.
    pub totals: Totals,
    /// For the report of one shard of a run (`--shard K/N`): which, of
    /// what run; absent from a whole run's (and from a merged one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

// A new field gets its empty value from `Default`: producers that do not
// fill it need no change (`..Default::default()`).
/// One kernel's results.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
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
    /// Its tests.
    pub cases: Vec<Case>,
    /// Wall time of the suite, in seconds.
    pub seconds: f64,
    /// For a `gate` report: the patch's verdict on this base (`preserves`,
    /// `changes-as-declared`, `changes`, `not-judged`, `breaks-build`,
    /// `does-not-apply`, `cannot-judge`).
    pub verdict: Option<String>,
    /// For a `gate` report: every edit of the patch no world runs (listed,
    /// not judged): outside the extracted tree, in a file no world
    /// compiles, in a function no world runs.
    pub not_judged: Vec<String>,
    /// For a `gate` report: compiler warnings about upstream code that the
    /// patch adds (`file:line:col: warning: …`, paths in the tree).
    pub warnings: Vec<String>,
    /// For a `gate` report: how many of the changed lines inside functions
    /// in scope the corpus and the generated vectors executed.
    pub patch_coverage: Option<PatchCoverage>,
    /// For a `gate` report: MC/DC of the decisions on the changed lines
    /// (absent when none was measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_mcdc: Option<PatchMcdc>,
    /// For a `gate` report: the mutants of the lines the patch adds,
    /// judged against the patched tree; absent when not measured
    /// (`--no-depth`, a patch not compared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<Depth>,
    /// Why the suite was skipped (a `gate` patch that is `not-judged`: no
    /// changed function runs in a world); absent when it was not. A
    /// skipped suite has no cases and counts as passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// For a `gate` report: of the patch's changed functions, how many some
    /// world runs; absent when every one is judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_functions: Option<usize>,
    /// For a `gate` report: how many functions the patch changes (a
    /// changed definition of a C file, or a file for edits outside any);
    /// absent when every one is judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_functions: Option<usize>,
    /// For a `gate` report: the changed functions no world runs
    /// (`sdma.c: sdma_make_progress`); absent when every one is judged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_judged_functions: Vec<String>,
    /// The trees the suite ran, each with its C world: the one tree (C
    /// against the model), or `before` then `after` (C against C: the
    /// cases say how `after` behaves against `before`). What a KCIDB
    /// report's checkouts and builds say; absent when not recorded (a
    /// kernel that could not be opened).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trees: Vec<Tree>,
}

/// A kernel tree a suite ran, and its C world.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Tree {
    /// Its part in the suite: `tree` (C against the model), `before` or
    /// `after` (C against C).
    pub role: String,
    /// How the user named it (a series or a path), or the base and the
    /// patches on it.
    pub kernel: String,
    /// The version its top Makefile names (`6.12.117`).
    pub version: String,
    /// The Debian package version it was extracted from
    /// (`6.12.117-1~deb12u1`), for a fetched tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// The commit its `.git` has checked out, for a tree that is a git
    /// clone (edits not committed are not seen: `digest` is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_commit: Option<String>,
    /// The `https://` URL of the clone's `origin` remote, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_url: Option<String>,
    /// sha256 over the path and content of every tree file its world is
    /// built from: the same code gives the same digest on any machine.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub digest: String,
    /// The patches applied to the tree, in order (for the gate: the
    /// series up to and including the suite's patch, for `after`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patches: Vec<PatchFile>,
    /// False when the tree could not be made (a patch did not apply);
    /// absent when it was not tried (a patch after one that failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid: Option<bool>,
    /// Its C world: how it is built and whether it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<Build>,
}

/// A patch applied to a tree.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PatchFile {
    /// A file name for it, as `git format-patch` names one
    /// (`0001-subject.patch`).
    pub name: String,
    /// The sha256 of its text (hex).
    pub sha256: String,
}

/// A C world's build: how it is built, and whether it was.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Build {
    /// The compiler, its flags, the options and the world's key.
    #[serde(flatten)]
    pub recipe: crate::cworld::build::Recipe,
    /// Whether it was built.
    pub status: BuildStatus,
    /// Why it was not, as the compiler or the harness said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How a world's build ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum BuildStatus {
    /// It was built (or found in the cache).
    #[default]
    Built,
    /// The tree's code does not compile or link.
    Failed,
    /// The harness could not build it (no sandbox, a symbol outside the
    /// boundary): nothing is known of the tree.
    Error,
    /// Nothing needed it (a patch no world runs).
    NotBuilt,
}

impl PatchFile {
    /// The `index`th patch (from 1) of a series, titled `subject`, of
    /// text `text`.
    pub fn new(index: usize, subject: &str, text: &str) -> PatchFile {
        use sha2::{Digest, Sha256};
        // A plain diff's subject is its file name: not `x.patch.patch`.
        let subject = [".patch", ".diff"]
            .iter()
            .find_map(|x| subject.strip_suffix(x))
            .unwrap_or(subject);
        let mut slug = String::new();
        for c in subject.chars() {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                slug.push(c);
            } else if !slug.ends_with('-') {
                slug.push('-');
            }
        }
        let slug: String = slug.trim_matches(['-', '.']).chars().take(52).collect();
        PatchFile {
            name: format!("{index:04}-{slug}.patch"),
            sha256: hex(&Sha256::digest(text.as_bytes())),
        }
    }

    /// KCIDB's patchset hash of `patches`: the sha256 of each patch's
    /// sha256 and a newline, in order (`sha256sum *.patch | cut -c-64 |
    /// sha256sum`); empty for none.
    pub fn patchset_hash(patches: &[PatchFile]) -> String {
        use sha2::{Digest, Sha256};
        if patches.is_empty() {
            return String::new();
        }
        let mut h = Sha256::new();
        for p in patches {
            h.update(p.sha256.as_bytes());
            h.update(b"\n");
        }
        hex(&h.finalize())
    }
}

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Suite {
    /// What qualifies its verdict: the skip reason, or how much of the
    /// patch was judged (`1 of 2 changed functions judged; not judged:
    /// sdma.c: sdma_make_progress`); `None` for a verdict on everything changed.
    pub fn verdict_note(&self) -> Option<String> {
        if let Some(why) = &self.skipped {
            return Some(why.clone());
        }
        let (judged, changed) = (self.judged_functions?, self.changed_functions?);
        let mut note = format!("{judged} of {changed} changed functions judged");
        if !self.not_judged_functions.is_empty() {
            note.push_str("; not judged: ");
            note.push_str(&self.not_judged_functions.join(", "));
        }
        Some(note)
    }
}

/// Of the changed, executable lines inside functions in scope, those the
/// vectors ran (gcov).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PatchCoverage {
    /// The changed lines that are executable.
    pub changed: usize,
    /// Of those, the ones some vector ran.
    pub executed: usize,
    /// `file:line` of every changed line no vector ran.
    pub missed: Vec<String>,
}

/// MC/DC of the decisions on a patch's changed lines (clang 19): which of
/// their conditions the vectors show flipping the decision on their own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PatchMcdc {
    /// The decisions that touch a changed line.
    pub decisions: usize,
    /// Their conditions.
    pub conditions: usize,
    /// Of those, the ones shown.
    pub shown: usize,
    /// Every condition not shown: `` `COND` of `DECISION` at FILE:LINE ``.
    pub not_shown: Vec<String>,
    /// Why nothing was measured (no clang 19), when it was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmeasured: Option<String>,
}

impl PatchMcdc {
    /// The line reports print: `MC/DC of changed decisions: 3 of 4
    /// conditions shown; not shown: …`.
    pub fn line(&self) -> String {
        if let Some(why) = &self.unmeasured {
            return format!("MC/DC of changed decisions: not measured ({why})");
        }
        let mut s = format!(
            "MC/DC of changed decisions: {} of {} conditions shown",
            self.shown, self.conditions
        );
        if !self.not_shown.is_empty() {
            s.push_str("; not shown: ");
            s.push_str(&self.not_shown.join(", "));
        }
        s
    }
}

/// How well a patch's changed lines are tested: the mutants of the lines
/// it adds (cargo-mutants' `--in-diff`), each judged against the patched
/// tree on the corpus and the gate's generated vectors.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Depth {
    /// The mutants judged (those that compiled and could be judged).
    pub mutants: usize,
    /// Of those, the ones some vector killed.
    pub killed: usize,
    /// Mutants that did not compile or could not be judged.
    pub not_judged: usize,
    /// Every survivor.
    pub survivors: Vec<Survivor>,
    /// Wall time of the measure, in seconds.
    pub seconds: f64,
}

/// A mutant of a changed line that no vector killed.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Survivor {
    /// `FILE:LINE` in the patched tree (hfi1's files by name).
    pub at: String,
    /// What it changes (`` `<` → `<=` ``, `statement deleted`).
    pub change: String,
    /// Its stable id (`cargo xtask mutants --id`).
    pub id: String,
    /// The command that judges it again.
    pub reproduce: String,
    /// A vector that kills it (minimised, a `[[case]]`), or
    /// `equivalent? …` with what to check.
    pub suggestion: String,
}

impl Depth {
    /// The one line: `mutants of changed lines: 11 of 12 killed; survivor:
    /// qp.c:LINE `<` → `<=``.
    pub fn line(&self) -> String {
        let mut s = String::from("mutants of changed lines: ");
        if self.mutants == 0 && self.not_judged == 0 {
            s.push_str("none (no changed line has a mutation site)");
            return s;
        }
        s.push_str(&format!("{} of {} killed", self.killed, self.mutants));
        if self.not_judged > 0 {
            s.push_str(&format!(" ({} did not compile)", self.not_judged));
        }
        if !self.survivors.is_empty() {
            let each: Vec<String> = self
                .survivors
                .iter()
                .map(|x| format!("{} {}", x.at, x.change))
                .collect();
            let word = if each.len() == 1 {
                "survivor"
            } else {
                "survivors"
            };
            s.push_str(&format!("; {word}: {}", each.join(", ")));
        }
        s
    }

    /// Each survivor in a few lines: where, what, the command that
    /// reproduces it and the suggestion. Empty when none survived.
    pub fn detail(&self) -> String {
        let mut s = String::new();
        for x in &self.survivors {
            s.push_str(&format!(
                "survivor {} {}: {}\n  reproduce: {}\n",
                x.at, x.change, x.id, x.reproduce
            ));
            for l in x.suggestion.lines() {
                s.push_str(&format!("  {l}\n"));
            }
        }
        s
    }
}

/// One test: a vector, a snapshot file, or (for `--random` and `diff`) a
/// function.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Case {
    /// `FAMILY::VECTOR`, `snapshot::FAMILY`, or `random::FUNCTION`.
    pub name: String,
    /// The upstream function called (empty for snapshot cases).
    pub function: String,
    /// Where the vector is written, relative to the project (or as given).
    pub file: Option<String>,
    /// The line of `file` the vector starts on.
    pub line: Option<usize>,
    /// The branch the vector targets.
    pub branch: Option<String>,
    /// How it ended.
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
    /// Nothing ran: the tree lacks the function (KTAP `ok … # SKIP`,
    /// JUnit `<skipped>`); counted as passed.
    Skip,
}

impl Status {
    /// Whether the case passed (or was skipped).
    pub fn passed(self) -> bool {
        matches!(self, Status::Pass | Status::Skip)
    }

    /// A failure of the run rather than a disagreement: JUnit `<error>`,
    /// KTAP `# ERROR` / `# TIMEOUT`.
    pub fn is_error(self) -> bool {
        matches!(
            self,
            Status::Crashed | Status::Hang | Status::Denied | Status::Malformed
        )
    }

    /// The status as reports write it (`pass`, `hang`, …).
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Crashed => "crashed",
            Status::Hang => "hang",
            Status::Denied => "denied",
            Status::Undefined => "undefined",
            Status::Malformed => "malformed",
            Status::Skip => "skip",
        }
    }
}

/// A field where C and the model differ (or, in a `diff` report, where
/// tree A and tree B do).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Difference {
    /// The outcome's field (`ret`, `flags`, …).
    pub field: String,
    /// Upstream C (tree A in a `diff` report).
    pub c: String,
    /// The Rust model (tree B in a `diff` report).
    pub rust: String,
}

/// An outcome, field by field.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct OutcomeView {
    /// The return value.
    pub ret: i32,
    /// `*call_send` after the call.
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
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SnapshotRow {
    /// The vector's name.
    pub vector: String,
    /// The committed row (`-`: none).
    pub old: String,
    /// The row now (`-`: none).
    pub new: String,
}

/// A generated vector where C and Rust parted (or that faulted).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    /// The seed the vector was drawn from.
    pub seed: u64,
    /// Its index among the function's generated vectors.
    pub index: u64,
    /// What went wrong, in one line.
    pub what: String,
    /// The minimised, ready-to-commit vector file.
    pub file: Option<String>,
}

/// Counts over every suite.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Totals {
    /// Cases, over every suite.
    pub tests: usize,
    /// Cases that passed (those skipped among them).
    pub passed: usize,
    /// Of the passed cases, those skipped: nothing ran (the tree lacks the
    /// function).
    #[serde(default)]
    pub skipped_cases: usize,
    /// Cases that failed without an error.
    pub failed: usize,
    /// Cases that crashed, hung, were denied or refused.
    pub errors: usize,
    /// Kernels that could not be run.
    pub suite_errors: usize,
    /// The suites' wall times added up, in seconds (suites run at once
    /// overlap: the sum may pass the run's own wall time).
    pub seconds: f64,
}

impl Report {
    /// A report of `kind` (see [`Report::kind`]) holding `suites`, with
    /// their totals.
    pub fn new(kind: &str, suites: Vec<Suite>) -> Report {
        let mut t = Totals::default();
        for s in &suites {
            t.seconds += s.seconds;
            if s.skipped.is_some() {
                continue; // nothing was run: it counts as passed
            }
            if s.error.is_some() {
                t.suite_errors += 1;
            }
            for c in &s.cases {
                t.tests += 1;
                match c.status {
                    Status::Pass => t.passed += 1,
                    Status::Skip => {
                        (t.passed, t.skipped_cases) = (t.passed + 1, t.skipped_cases + 1)
                    }
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
            shard: None,
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
    /// For a terminal: the failures explained, a table, the totals.
    Human,
    /// KTAP version 1, as kunit.py reads it.
    Ktap,
    /// JUnit XML, as CI systems read it.
    Junit,
    /// JSON, the schema's form.
    Json,
    /// KCIDB I/O JSON (schema v5.3), as KernelCI's `kcidb-submit` takes it.
    Kcidb,
}

impl Format {
    /// The format named `human`, `ktap`, `junit`, `json` or `kcidb`.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "human" => Some(Format::Human),
            "ktap" => Some(Format::Ktap),
            "junit" => Some(Format::Junit),
            "json" => Some(Format::Json),
            "kcidb" => Some(Format::Kcidb),
            _ => None,
        }
    }
}

/// Renders a report (KCIDB's with the default origin: [`kcidb`] takes
/// another).
pub fn render(format: Format, r: &Report) -> String {
    match format {
        Format::Human => human(r),
        Format::Ktap => ktap(r),
        Format::Junit => junit(r),
        Format::Json => json(r),
        Format::Kcidb => kcidb(r, &Origin::default()),
    }
}

/// A path as reports show it: relative to the project when inside it,
/// without `..` detours.
pub fn shown_path(p: &Path) -> String {
    let root = crate::project_path("");
    match crate::canonical(p) {
        Some(c) => shown_under(&c, &root),
        None => shown_under(p, &root),
    }
}

/// `p` relative to `root` when under it, else whole.
fn shown_under(p: &Path, root: &Path) -> String {
    p.strip_prefix(root)
        .map(|r| r.display().to_string())
        .unwrap_or_else(|_| p.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A case of `hfi1_setup_wqe` that ended as `status`.
    pub(super) fn case(name: &str, status: Status) -> Case {
        Case {
            name: name.into(),
            function: "hfi1_setup_wqe".into(),
            file: Some("vectors/setup_wqe.toml".into()),
            line: Some(3),
            status,
            message: (!status.passed()).then(|| format!("{} happened", status.word())),
            detail: (!status.passed()).then(|| "line one\nline # two\u{1}".into()),
            vectors: 1,
            failed: u64::from(!status.passed()),
            ..Default::default()
        }
    }

    /// A kernel's report: a case that passed, one that failed, a hang and
    /// a denied call; names and details hold `#` and control characters.
    /// [`report`] with a fifth case, skipped: the tree lacks `sc_drop`.
    pub(super) fn report_with_a_skip() -> Report {
        let mut suites = report().suites;
        let mut c = case("fam::gone", Status::Skip);
        c.message = Some("sc_drop is not in this tree: not run".into());
        suites[0].cases.push(c);
        Report::new("conformance", suites)
    }

    pub(super) fn report() -> Report {
        Report::new(
            "conformance",
            vec![Suite {
                name: "6.12".into(),
                kernel: "6.12".into(),
                version: "6.12.117".into(),
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

    /// A gate report: a patch not judged (its suite skipped) and one judged
    /// in part.
    pub(super) fn gate_report() -> Report {
        Report::new(
            "gate",
            vec![
                Suite {
                    name: "6.12: sdma only".into(),
                    kernel: "6.12".into(),
                    verdict: Some("not-judged".into()),
                    not_judged: vec!["drivers/infiniband/hw/hfi1/sdma.c: sdma_make_progress (line 362): no world runs it (not judged)".into()],
                    skipped: Some("no changed line runs in a world".into()),
                    judged_functions: Some(0),
                    changed_functions: Some(1),
                    not_judged_functions: vec!["sdma.c: sdma_make_progress".into()],
                    ..Default::default()
                },
                Suite {
                    name: "6.12: qp and sdma".into(),
                    kernel: "6.12".into(),
                    verdict: Some("changes".into()),
                    cases: vec![case("diff::hfi1_setup_wqe", Status::Fail)],
                    judged_functions: Some(1),
                    changed_functions: Some(2),
                    not_judged_functions: vec!["sdma.c: sdma_make_progress".into()],
                    ..Default::default()
                },
            ],
        )
    }

    /// MC/DC of a patch's changed decisions is in every format, and so is
    /// why it was not measured; a report without it is as before.
    #[test]
    fn mcdc_of_changed_decisions_is_in_every_format() {
        let mut r = gate_report();
        let before = json(&r);
        assert!(!before.contains("patch_mcdc"), "absent when unmeasured");
        r.suites[1].patch_mcdc = Some(PatchMcdc {
            decisions: 1,
            conditions: 4,
            shown: 3,
            not_shown: vec!["`qp->s_flags & RVT_S_BUSY` of `if (a &&` at qp.c:849".into()],
            unmeasured: None,
        });
        let line = "MC/DC of changed decisions: 3 of 4 conditions shown; not shown: \
                    `qp->s_flags & RVT_S_BUSY` of `if (a &&` at qp.c:849";
        assert!(human(&r).contains(&format!("DEPTH [6.12: qp and sdma] {line}\n")));
        assert!(
            ktap(&r).contains(&format!("    # depth: {line}\n")),
            "{}",
            ktap(&r)
        );
        let j = junit(&r);
        assert!(
            j.contains("<property name=\"mcdc\" value=\"MC/DC of changed decisions: 3 of 4"),
            "{j}"
        );
        let v: serde_json::Value = serde_json::from_str(&json(&r)).expect("JSON");
        assert_eq!(v["suites"][1]["patch_mcdc"]["shown"], 3);
        assert_eq!(v["suites"][1]["patch_mcdc"]["conditions"], 4);
        r.suites[1].patch_mcdc = Some(PatchMcdc {
            unmeasured: Some("MC/DC needs clang 19".into()),
            ..Default::default()
        });
        assert!(
            human(&r).contains("MC/DC of changed decisions: not measured (MC/DC needs clang 19)")
        );
    }

    /// A skipped suite counts as passed: a report of it alone exits 0.
    #[test]
    fn a_skipped_suite_counts_as_passed() {
        let mut r = gate_report();
        assert_eq!(r.exit_code(), exit_code::FINDING);
        r.suites.truncate(1);
        let r = Report::new("gate", r.suites);
        assert_eq!((r.totals.tests, r.totals.suite_errors), (0, 0));
        assert_eq!(r.exit_code(), exit_code::SUCCESS);
    }

    /// A kernel that could not run is an error entry in every format.
    #[test]
    fn a_kernel_that_could_not_run_is_an_error_everywhere() {
        let mut suites = report().suites;
        suites.push(Suite {
            name: "kernel 2".into(),
            kernel: "/tmp/x".into(),
            error: Some("cannot judge: needs `open`\nsecond line".into()),
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
    fn exit_codes() {
        assert_eq!(report().exit_code(), 1);
        let mut r = report();
        r.suites[0].cases.truncate(1);
        assert_eq!(Report::new("conformance", r.suites.clone()).exit_code(), 0);
        r.suites[0].error = Some("no tree".into());
        assert_eq!(Report::new("conformance", r.suites).exit_code(), 2);
    }
}
