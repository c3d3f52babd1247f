//! `c-shim/boundary.toml`: what a world compiles of upstream whole, what it
//! extracts of other upstream files, and what the project mocks, each with
//! its reason; read here for the build and the boundary check.

use fs_err as fs;
use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Deserialize;

/// The parsed `c-shim/boundary.toml`.
#[derive(Debug, Deserialize)]
pub struct Manifest {
    /// What is taken from the tree.
    pub upstream: Upstream,
    /// The mocks, by symbol: boundaries defined in `c-shim/mocks`.
    pub mock: BTreeMap<String, Mock>,
    /// Symbols the world builder defines from the vector, with the reason.
    #[serde(default)]
    pub world: BTreeMap<String, String>,
    /// What the compiler itself may make upstream objects import.
    pub compiler: CompilerSymbols,
}

/// What the compiler may make upstream objects import.
#[derive(Debug, Deserialize)]
pub struct CompilerSymbols {
    /// Symbols by name (`memcpy`, ...).
    pub symbols: Vec<String>,
    /// Symbols by prefix (the callbacks of sanitizer, coverage and fuzzing instrumentation).
    pub prefixes: Vec<String>,
    /// Why the compiler may.
    pub why: String,
}

/// What a world takes from the tree.
#[derive(Debug, Deserialize)]
pub struct Upstream {
    /// Files compiled whole, unmodified.
    pub compile: Vec<Compiled>,
    /// Named definitions taken verbatim from other files.
    pub extract: Vec<Extracted>,
}

/// An upstream file compiled whole.
#[derive(Debug, Deserialize)]
pub struct Compiled {
    /// Its path in the tree.
    pub file: String,
    /// Why the world needs it.
    pub why: String,
}

/// Top-level definitions taken from an upstream file ([`crate::kernel::cscan`]).
#[derive(Debug, Deserialize)]
pub struct Extracted {
    /// The file's path in the tree.
    pub file: String,
    /// The definitions' names.
    pub symbols: Vec<String>,
    /// The `static` functions among them the shim calls: each is exported
    /// from the extracted unit as a constant pointer `shim_static_NAME`.
    #[serde(default)]
    pub entries: Vec<String>,
    /// The file-static variables among them an upstream function writes
    /// or a vector sets: listed in the extracted unit's `shim_static_data`
    /// table (name, address, size), whose initial bytes the shim restores
    /// before every call; a variable a listed `DEFINE_*` macro defines
    /// (`static DEFINE_MUTEX(m);`) is named by the variable.
    #[serde(default)]
    pub data: Vec<String>,
    /// The layout the shim reads of structs among them that no header
    /// declares (`TYPE`: its size; `TYPE.MEMBER`: the member's offset and
    /// size; `TYPE.MEMBER[]`: an array member's offset and the size of
    /// one element), each exported from the extracted unit as a constant
    /// `struct shim_member shim_layout_TYPE[__MEMBER]` (c-shim/entries.h):
    /// the shim builds and reads such objects through the tree's own
    /// layout, never a copy of the struct.
    #[serde(default)]
    pub layouts: Vec<String>,
    /// The functions among them some trees lack (added or removed
    /// upstream within the pinned series): extracted where the tree
    /// defines them; where it does not, the world is built without them
    /// (`SHIM_ABSENT_NAME` defined for the shim, whose call of it is
    /// never made) and their vectors are skipped on that tree
    /// ([`Manifest::absent`]).
    #[serde(default)]
    pub optional: Vec<String>,
    /// Why the world needs them.
    pub why: String,
}

/// A mock: a boundary the project defines, which records its call and
/// never re-implements driver logic.
#[derive(Debug, Deserialize)]
pub struct Mock {
    /// Its C file, relative to `c-shim`.
    pub file: String,
    /// Why it is a boundary.
    pub why: String,
    /// For a boundary no pinned tree crosses, only patches: the interface
    /// a patch would use (`the BH workqueues (v6.9)`). Checked both ways:
    /// no pinned tree's upstream needs it (harness/tests/boundary.rs).
    #[serde(default)]
    pub patches: Option<String>,
}

/// The project's `c-shim` directory.
pub fn cshim_dir() -> PathBuf {
    // Canonical: the sandbox shows c-shim alone, not harness/ to go up from.
    crate::project_path("c-shim")
}

impl Manifest {
    /// Reads `c-shim/boundary.toml`.
    pub fn load() -> Result<Manifest> {
        let path = cshim_dir().join("boundary.toml");
        let text =
            fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    /// The `optional` functions `tree` does not define, sorted: its world
    /// is built without them, and its vectors of them are skipped.
    pub fn absent(&self, tree: &crate::kernel::KernelTree) -> Result<Vec<String>> {
        let mut absent = vec![];
        for e in self
            .upstream
            .extract
            .iter()
            .filter(|e| !e.optional.is_empty())
        {
            let path = tree.path(&e.file);
            let src = tree.read_to_string(&path)?;
            for name in &e.optional {
                match crate::kernel::cscan::extract(&src, name) {
                    Ok(_) => {}
                    Err(crate::kernel::cscan::ExtractError::NotFound { .. }) => {
                        absent.push(name.clone())
                    }
                    Err(err) => {
                        return Err(anyhow::anyhow!("{err}"))
                            .with_context(|| format!("{}: looking for {name}", path.display()))
                    }
                }
            }
        }
        absent.sort();
        Ok(absent)
    }

    /// The project's own C sources: the shim's files (every `.c` of
    /// `c-shim` itself: entry points, world builder, names, describers)
    /// and every mock file.
    pub fn shim_sources(&self) -> Vec<PathBuf> {
        let dir = cshim_dir();
        let mut files: Vec<PathBuf> = self.mock.values().map(|m| dir.join(&m.file)).collect();
        if let Ok(rd) = fs::read_dir(&dir) {
            files.extend(
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "c")),
            );
        }
        files.sort();
        files.dedup();
        files
    }
}
