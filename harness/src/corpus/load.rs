//! The corpus directory: every vector file in it, read and parsed with
//! its named worlds.

use std::path::{Path, PathBuf};

use super::case::{parse_file, Vector};
use super::presets::Presets;
use super::source::{read_text, VectorError};

/// The committed corpus directory.
pub fn corpus_dir() -> PathBuf {
    crate::project_path("vectors")
}

/// The files of a corpus directory that are not vector files: the named
/// worlds and the manifests (coverage, mutants, MC/DC, comparison
/// boundaries).
pub const NOT_VECTORS: [&str; 5] = [
    "worlds.toml",
    "unreached.toml",
    "mutants.toml",
    "mcdc.toml",
    "boundaries.toml",
];

/// Loads every `*.toml` of a corpus directory but [`NOT_VECTORS`], sorted
/// by file name.
pub fn load_corpus(dir: &Path) -> Result<Vec<Vector>, VectorError> {
    let presets = Presets::load(&dir.join("worlds.toml"))?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| VectorError {
            file: dir.to_owned(),
            line: 0,
            field: String::new(),
            msg: format!("cannot read the vector directory: {e}"),
        })?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "toml")
                && p.file_name()
                    .is_some_and(|n| !NOT_VECTORS.iter().any(|x| n == *x))
        })
        .collect();
    files.sort();
    let mut all = vec![];
    for f in files {
        let text = read_text(&f)?;
        all.extend(parse_file(&f, &text, &presets)?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_corpus_loads() {
        let v = load_corpus(&corpus_dir()).expect("the corpus is valid");
        assert!(v.len() > 50);
    }

    #[test]
    fn every_branch_is_listed_and_covered() {
        let readme =
            std::fs::read_to_string(corpus_dir().join("README.md")).expect("vectors/README.md");
        let listed: std::collections::BTreeSet<String> = readme
            .lines()
            .filter_map(|l| {
                l.strip_prefix("- `")?
                    .split_once('`')
                    .map(|(b, _)| b.to_owned())
            })
            .collect();
        let vectors = load_corpus(&corpus_dir()).expect("corpus");
        let named: std::collections::BTreeSet<String> =
            vectors.iter().map(|v| v.branch.clone()).collect();
        let unnamed: Vec<String> = vectors
            .iter()
            .filter(|v| v.branch.is_empty())
            .map(|v| v.id())
            .collect();
        assert!(unnamed.is_empty(), "vectors without a branch: {unnamed:?}");
        let uncovered: Vec<_> = listed.difference(&named).collect();
        let unlisted: Vec<_> = named.difference(&listed).collect();
        assert!(
            uncovered.is_empty(),
            "branches in vectors/README.md with no vector: {uncovered:?}"
        );
        assert!(
            unlisted.is_empty(),
            "vectors name branches missing from vectors/README.md: {unlisted:?}"
        );
    }
}
