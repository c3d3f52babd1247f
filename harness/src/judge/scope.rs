//! What of a tree the worlds run: for a file, how the worlds take it and
//! which of its definitions some world runs. The gate's verdicts (what a
//! patch's edits reach) and `cargo xtask scope` (what any patch could
//! reach) both ask here, so they cannot disagree.

use crate::cworld::build::Manifest;

/// How the worlds take one file of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runs {
    /// Outside the part of the kernel the harness extracts.
    Outside,
    /// Extracted, but no world compiles it.
    NotCompiled,
    /// Compiled, and some world runs every definition (qp.c).
    Every,
    /// Compiled; these definitions are in scope (run by some world, their
    /// lines' coverage measured), the others not.
    InScope(Vec<String>),
    /// Only these definitions are compiled (extracted verbatim), read by
    /// the functions in scope.
    Extracted(Vec<String>),
    /// A header (or the Makefile) the worlds compile: an edit is judged
    /// through the build, whichever definition it is in; these inline
    /// functions are in scope (their changed lines' coverage measured).
    Header(Vec<String>),
}

impl Runs {
    /// How the worlds take `path` (relative to the tree), whose worlds
    /// compile `inputs`.
    pub fn of(path: &str, inputs: &[String]) -> Runs {
        if !crate::kernel::extracted(path) {
            return Runs::Outside;
        }
        if !inputs.iter().any(|i| i == path) {
            return Runs::NotCompiled;
        }
        let in_scope = crate::judge::coverage::in_scope();
        let named = in_scope
            .iter()
            .find(|(f, _)| *f == path)
            .map(|(_, names)| names.iter().map(|n| n.to_string()).collect::<Vec<_>>());
        if !path.ends_with(".c") {
            return Runs::Header(named.unwrap_or_default());
        }
        if let Some(names) = named {
            return match names.is_empty() {
                true => Runs::Every,
                false => Runs::InScope(names),
            };
        }
        // Compiled for some definitions only (rdmavt's state table).
        let extracted = Manifest::load().ok().and_then(|m| {
            m.upstream
                .extract
                .iter()
                .find(|e| e.file == path)
                .map(|e| e.symbols.clone())
        });
        extracted.map_or(Runs::Every, Runs::Extracted)
    }

    /// Whether an edit inside definition `name` of such a file is judged.
    pub fn judges(&self, name: &str) -> bool {
        match self {
            Runs::Outside | Runs::NotCompiled => false,
            Runs::Every | Runs::Header(_) => true,
            Runs::InScope(names) | Runs::Extracted(names) => names.iter().any(|n| n == name),
        }
    }

    /// One word for reports: `outside`, `not compiled`, `whole`, `in
    /// scope`, `extracted`, `header`.
    pub fn word(&self) -> &'static str {
        match self {
            Runs::Outside => "outside",
            Runs::NotCompiled => "not compiled",
            Runs::Every => "whole",
            Runs::InScope(_) => "in scope",
            Runs::Extracted(_) => "extracted",
            Runs::Header(_) => "header",
        }
    }
}
