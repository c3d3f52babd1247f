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

/// Loads a corpus: every `*.toml` of a directory but [`NOT_VECTORS`],
/// sorted by file name, or one vector file (`--vectors
/// target/findings/random_F_S_I.toml`). Cases name their worlds from the
/// directory's `worlds.toml`, or from the committed one when it has none
/// (a directory of `--random` findings).
pub fn load_corpus(path: &Path) -> Result<Vec<Vector>, VectorError> {
    let dir = if path.is_dir() {
        path
    } else {
        path.parent().unwrap_or(Path::new("."))
    };
    let own = dir.join("worlds.toml");
    let presets = if own.exists() || dir == corpus_dir() {
        Presets::load(&own)?
    } else {
        Presets::load(&corpus_dir().join("worlds.toml"))?
    };
    if !path.is_dir() {
        let text = read_text(path)?;
        return parse_file(path, &text, &presets);
    }
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

    /// `--vectors target/findings`: a directory of findings has no
    /// `worlds.toml`; its cases take the committed one's, as does one
    /// file named alone. A file that is not there is named without a line.
    #[test]
    fn findings_load_without_their_own_worlds() {
        let dir = std::env::temp_dir().join(format!("hfi1-findings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let call = crate::generate::seeded_call(1, crate::model::types::Func::SetupWqe, 0);
        let case = crate::corpus::write::case_toml(&call, "f", "random finding");
        std::fs::write(dir.join("random_f.toml"), case).expect("write");
        let whole = load_corpus(&dir);
        let one = load_corpus(&dir.join("random_f.toml"));
        let missing = load_corpus(&dir.join("gone.toml")).map(|_| ());
        let _ = std::fs::remove_dir_all(&dir);
        let (whole, one) = (whole.expect("the directory"), one.expect("the file"));
        assert_eq!((whole.len(), one.len()), (1, 1));
        assert_eq!(one[0].call, call);
        let err = missing.expect_err("no such file").to_string();
        assert!(
            err.contains("gone.toml: cannot read") && !err.contains(":0"),
            "{err}"
        );
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
