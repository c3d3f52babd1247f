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

/// `c-shim/unjudged.toml`: the definitions of the send engines' files no
/// world runs yet, each group with why.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unjudged {
    /// The files whose every definition is judged or listed.
    pub files: Vec<String>,
    /// The groups.
    #[serde(default)]
    pub unjudged: Vec<Reason>,
}

/// A group of definitions of one file no world runs, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reason {
    /// The file (path in the tree).
    pub file: String,
    /// `not yet` (work to do) or `cannot` (cannot run in userspace).
    pub kind: String,
    /// Why.
    pub why: String,
    /// The definitions' names.
    pub functions: Vec<String>,
}

impl Reason {
    /// The kind and the reason's first words, for a line of a report:
    /// `not yet: the send path`.
    pub fn headline(&self) -> String {
        let head = self
            .why
            .split([':', '.', '(', ','])
            .next()
            .unwrap_or("")
            .trim();
        let mut head = head.to_owned();
        if let Some(c) = head.get(..1) {
            head = c.to_lowercase() + &head[1..];
        }
        format!("{}: {head}", self.kind)
    }
}

impl Unjudged {
    /// Where the list is.
    pub fn path() -> std::path::PathBuf {
        crate::project_path("c-shim/unjudged.toml")
    }

    /// Reads the committed list.
    pub fn load() -> anyhow::Result<Unjudged> {
        let path = Unjudged::path();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
        Unjudged::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    /// Parses a list: every group of a file the list covers, its kind
    /// known, and no name in two groups.
    pub fn parse(text: &str) -> anyhow::Result<Unjudged> {
        let u: Unjudged = toml::from_str(text)?;
        let mut seen = std::collections::HashSet::new();
        for r in &u.unjudged {
            if !u.files.contains(&r.file) {
                anyhow::bail!("a group of {}, which is not in `files`", r.file);
            }
            if !["not yet", "cannot"].contains(&r.kind.as_str()) {
                anyhow::bail!("kind {:?}: expected \"not yet\" or \"cannot\"", r.kind);
            }
            for f in &r.functions {
                if !seen.insert((r.file.as_str(), f.as_str())) {
                    anyhow::bail!("{}: {f} is listed twice", r.file);
                }
            }
        }
        Ok(u)
    }

    /// Why `name` of `file` is not judged, when it is listed.
    pub fn reason(&self, file: &str, name: &str) -> Option<&Reason> {
        self.unjudged
            .iter()
            .find(|r| r.file == file && r.functions.iter().any(|f| f == name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_list_parses_and_its_files_are_extracted() {
        let u = Unjudged::load().expect("c-shim/unjudged.toml");
        assert!(u.files.iter().all(|f| crate::kernel::extracted(f)), "{u:?}");
        assert!(u
            .reason("drivers/infiniband/hw/hfi1/sdma.c", "sdma_event_names")
            .is_some());
    }

    #[test]
    fn a_name_twice_an_unknown_kind_or_file_is_refused() {
        let group = |file: &str, kind: &str, fns: &str| {
            format!("[[unjudged]]\nfile = \"{file}\"\nkind = \"{kind}\"\nwhy = \"w\"\nfunctions = [{fns}]\n")
        };
        let head = "files = [\"a.c\"]\n";
        let ok = format!("{head}{}", group("a.c", "not yet", "\"f\", \"g\""));
        assert!(Unjudged::parse(&ok).is_ok());
        let twice = format!("{ok}{}", group("a.c", "cannot", "\"g\""));
        let e = |t: &str| {
            Unjudged::parse(t)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(e(&twice).contains("g is listed twice"));
        assert!(e(&format!("{head}{}", group("a.c", "later", "\"f\""))).contains("kind"));
        assert!(e(&format!("{head}{}", group("b.c", "cannot", "\"f\""))).contains("not in `files`"));
    }
}
