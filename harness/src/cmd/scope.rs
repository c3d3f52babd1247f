//! `cargo xtask scope`: before running anything, which files and
//! functions of a tree's hfi1 driver (and rdmavt) the gate judges, and
//! which it lists as not judged. The answer is `judge::scope`'s, the one
//! the gate gives patch by patch.

use anyhow::Result;
use serde::Serialize;

use crate::cworld;
use crate::judge::scope::Runs;
use crate::kernel::{cscan, KernelTree};

/// The directories whose C files and headers the statement lists.
const DRIVERS: &[&str] = &["drivers/infiniband/hw/hfi1", "drivers/infiniband/sw/rdmavt"];

/// What the gate judges in one tree.
#[derive(Debug, Clone, Serialize)]
pub struct Statement {
    /// The tree's kernel version (`6.12.117`).
    pub kernel: String,
    /// Its series (`6.12`).
    pub series: String,
    /// Every C file and header of the drivers, in path order.
    pub files: Vec<FileScope>,
}

/// What the gate judges in one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileScope {
    /// The path in the tree.
    pub path: String,
    /// How the worlds take it ([`Runs::word`]).
    pub how: String,
    /// The definitions an edit of which is judged (a header's: all, through
    /// the build).
    pub judged: Vec<String>,
    /// The definitions an edit of which is listed as not judged.
    pub not_judged: Vec<String>,
}

impl Statement {
    /// How many definitions are judged and how many there are.
    pub fn counts(&self) -> (usize, usize) {
        self.files.iter().fold((0, 0), |(j, t), f| {
            (j + f.judged.len(), t + f.judged.len() + f.not_judged.len())
        })
    }
}

/// The statement of `tree`.
pub fn statement(tree: &KernelTree) -> Result<Statement> {
    let inputs = cworld::build::tree_inputs(tree)?;
    let mut files = vec![];
    for dir in DRIVERS {
        let Ok(rd) = std::fs::read_dir(tree.path(dir)) else {
            continue;
        };
        let mut names: Vec<String> = rd
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".c") || n.ends_with(".h"))
            .collect();
        names.sort();
        for n in names {
            let path = format!("{dir}/{n}");
            let runs = Runs::of(&path, &inputs);
            // A file that cannot be read or scanned lists no definitions.
            let src = crate::kernel::read_tree_file(&tree.root, &tree.path(&path))
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            // Each name once (a static function's prototype comes first).
            let mut seen = std::collections::HashSet::new();
            let defs: Vec<String> = cscan::definitions(&src)
                .map(|d| d.into_iter().map(|d| d.name).collect::<Vec<_>>())
                .unwrap_or_default()
                .into_iter()
                .filter(|n| seen.insert(n.clone()))
                .collect();
            let (judged, not_judged) = defs.into_iter().partition(|d| runs.judges(d));
            files.push(FileScope {
                path,
                how: runs.word().to_owned(),
                judged,
                not_judged,
            });
        }
    }
    Ok(Statement {
        kernel: tree.version.to_string(),
        series: tree.version.series(),
        files,
    })
}

/// The statements as a reader wants them: per tree, the files some world
/// compiles with what of them is judged, then the files none compiles.
pub fn human(statements: &[Statement]) -> String {
    let mut out = String::new();
    for s in statements {
        let (judged, total) = s.counts();
        out.push_str(&format!(
            "SCOPE {} ({}): {judged} of {total} definitions judged\n",
            s.series, s.kernel
        ));
        let runs = |f: &&FileScope| !["not compiled", "outside"].contains(&f.how.as_str());
        for f in s.files.iter().filter(runs) {
            let all = f.not_judged.is_empty();
            out.push_str(&format!(
                "  {} ({}): {}\n",
                f.path,
                f.how,
                if f.judged.is_empty() && all {
                    "no definitions; edits judged through the build".to_owned()
                } else if all {
                    format!("every definition ({})", f.judged.len())
                } else {
                    format!(
                        "{} of {}: {}",
                        f.judged.len(),
                        f.judged.len() + f.not_judged.len(),
                        f.judged.join(", ")
                    )
                }
            ));
        }
        let none: Vec<&str> = s
            .files
            .iter()
            .filter(|f| !runs(f))
            .map(|f| f.path.as_str())
            .collect();
        if !none.is_empty() {
            out.push_str(&format!(
                "  not judged ({} files no world compiles): {}\n",
                none.len(),
                none.join(", ")
            ));
        }
    }
    out
}

/// The statements as JSON: an array, one per tree.
pub fn json(statements: &[Statement]) -> Result<String> {
    Ok(serde_json::to_string_pretty(statements)? + "\n")
}
