//! The patch gate: a patch (or a series) in, a behaviour verdict per patch
//! out. Each patch is applied to a copy of the base tree holding the
//! patches before it, and judged C against C ([`crate::judge::compare`]) against
//! that tree, so a behaviour change is attributed to the patch that made
//! it. Everything untrusted — `patch`, the compiler, the worlds — runs in
//! the [sandbox](crate::sandbox).
//!
//! Verdicts and exit codes: `preserves`, `changes-as-declared` and
//! `not-judged` (0), `changes` and `breaks-build` (1), `does-not-apply`
//! and `cannot-judge` (2). A patch declares the functions it means to
//! change with a `Conformance-Changes: FUNCTION …` trailer (or
//! `--expect-change`). A patch none of whose changed functions a world
//! runs is `not-judged` before anything is built or compared; one judged
//! in part says how many of its changed functions were.
//!
//! The parts, in the order a patch meets them: `patch` reads a series
//! (its cover letter names it, never a patch) and applies a patch (`diff` cuts it into file sections), `scope` says which
//! of its edits and changed functions are judged, `judging`
//! runs a series on one base, `coverage` measures the changed lines the
//! vectors ran, `depth` the mutants of the lines it adds, `record` says what became of each tree and its build, and
//! `verdict` turns judgements into the verdict, the exit code and the
//! report.

mod coverage;
mod decisions;
mod depth;
mod judging;
mod lacking;
mod record;
mod scope;
mod unbuilt;
mod verdict;

pub use crate::kernel::patch::{parse, read, Patch, Series};
pub use judging::{added_warnings, judge, judge_part};
pub use lacking::lacking_in_tree;
pub use verdict::{
    exit_code, exit_code_of, patchwork_line, patchwork_line_of, patchwork_state, report,
    verdicts_of, PatchVerdict, Weighed, NOT_JUDGED_REASON,
};

use crate::judge::compare::Comparison;
use crate::model::types::Func;
use crate::report::{Depth, PatchCoverage};

/// One patch judged on one base.
#[derive(Debug, Clone)]
pub struct Judged {
    /// The base as reports name it (`6.12`, or `6.12 (tree 2)`).
    pub base: String,
    /// The patch judged.
    pub patch: Patch,
    /// What the gate says of it.
    pub verdict: PatchVerdict,
    /// The tree before the patch against the tree after it, when both
    /// were built and compared.
    pub comparison: Option<Comparison>,
    /// Every edit no world runs (listed, not judged): outside the
    /// extracted tree, in a file no world compiles, in a function no world
    /// runs.
    pub not_judged: Vec<String>,
    /// The patch's changed functions, judged or not.
    pub functions: ChangedFunctions,
    /// Compiler warnings the patch adds.
    pub new_warnings: Vec<String>,
    /// Seconds per phase: apply, build, compare, model, coverage.
    pub timings: Vec<(&'static str, f64)>,
    /// Of the changed lines inside functions in scope, those the vectors
    /// ran.
    pub coverage: Option<PatchCoverage>,
    /// MC/DC of the decisions on those lines.
    pub mcdc: Option<crate::report::PatchMcdc>,
    /// The mutants of the lines the patch adds, judged against the
    /// patched tree (not measured: `None`).
    pub depth: Option<Depth>,
    /// The corpus vectors where the tree parts from the Rust model, before
    /// and after the patch (reported apart from the verdict: a patch can
    /// move upstream away from the model, or toward it).
    pub model: Option<ModelDrift>,
    /// The tree before the patch and after it, with their worlds' builds,
    /// as reports record them.
    pub trees: Vec<crate::report::Tree>,
}

/// A patch's changed functions, each judged (some world runs it) or not.
/// A unit is a changed definition of a C file (`sdma.c: sdma_flush`,
/// paths of the hfi1 driver shortened to the file), or a whole file
/// (`sdma.c`, `include/linux/list.h`): its edits outside any function, a
/// header, a file outside the extracted tree, a file that is not C.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangedFunctions {
    /// Those some world runs (or compiles, for a header).
    pub judged: Vec<String>,
    /// Those no world runs.
    pub not_judged: Vec<String>,
}

impl ChangedFunctions {
    /// How many functions changed.
    pub fn changed(&self) -> usize {
        self.judged.len() + self.not_judged.len()
    }

    /// Whether some changed and none of them is judged.
    pub fn none_judged(&self) -> bool {
        self.judged.is_empty() && !self.not_judged.is_empty()
    }

    /// `1 of 2 changed functions judged; not judged: sdma.c: sdma_flush`.
    pub fn summary(&self) -> String {
        format!(
            "{} of {} changed functions judged; not judged: {}",
            self.judged.len(),
            self.changed(),
            self.not_judged.join(", ")
        )
    }
}

/// The corpus vectors on which a tree parts from the Rust model, before and
/// after a patch.
#[derive(Debug, Clone, Default)]
pub struct ModelDrift {
    /// Ids of the vectors that disagree before the patch.
    pub before: Vec<String>,
    /// Ids of the vectors that disagree after it.
    pub after: Vec<String>,
    /// How many corpus vectors were compared.
    pub corpus: usize,
}

/// What to compare with.
#[derive(Debug, Clone)]
pub struct Options {
    /// Generated vectors per function, besides the corpus.
    pub random: u64,
    /// The seed the generated vectors are drawn from.
    pub seed: u64,
    /// The functions whose generated vectors run.
    pub funcs: Vec<Func>,
    /// Functions every patch may change (`--expect-change`).
    pub expect: Vec<String>,
    /// Measure depth: the mutants of the lines each judged patch adds
    /// (`--no-depth` clears it).
    pub depth: bool,
    /// Generated vectors per function tried for each surviving mutant, for
    /// a vector that kills it (0: none).
    pub suggest: u64,
}
