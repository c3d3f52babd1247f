//! Patch coverage: of the lines a patch changes inside functions in
//! scope, the executable ones the vectors ran (gcov), measured in a
//! coverage world of the patched tree.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::Options;
use crate::corpus::Vector;
use crate::cworld;
use crate::judge::coverage::{self, Tracefile};
use crate::kernel::{self, KernelTree};
use crate::model::types::Func;
use crate::report::PatchCoverage;

/// Patch coverage: builds the patched tree's coverage world (gcov, -O0),
/// runs the corpus in it and reads the counters back with gcov; only if a
/// changed executable line is still unexecuted, the generated vectors too.
/// Counts the changed executable lines inside functions in scope that ran.
/// `None` when the patch changes no such line (no coverage world is built
/// then).
pub(super) fn patch_coverage(
    tree: &KernelTree,
    lines: &[(String, usize)],
    vectors: &[Vector],
    opts: &Options,
    not_run: &[Func],
) -> Result<Option<PatchCoverage>> {
    if lines.is_empty() {
        return Ok(None);
    }
    let funcs: Vec<Func> = opts
        .funcs
        .iter()
        .copied()
        .filter(|f| !not_run.contains(f))
        .collect();
    if funcs.is_empty() {
        anyhow::bail!(
            "no function runs code the patch changed and returns after it (each one's compiled code is the base's, or the patch makes it hang)"
        );
    }
    let vectors: Vec<Vector> = vectors
        .iter()
        .filter(|v| v.steps().any(|c| funcs.contains(&c.func())))
        .cloned()
        .collect();
    // The corpus reaches every line but those unreached.toml lists: most
    // patches need nothing more, and the corpus is the cheap part.
    let world = coverage::collect(tree, &vectors, Some(changed_files(lines)))?;
    let obj = world.dir.join("obj");
    let pc = count_executed(&Tracefile::capture(&obj)?, lines, &tree.root);
    if pc.missed.is_empty() {
        return Ok(Some(pc));
    }
    // Counters add up across workers: the generated vectors, shared
    // between two workers.
    let mut w1 = cworld::Worker::new(&world)?;
    let mut w2 = cworld::Worker::new(&world)?;
    // Coverage needs no proof of a fault (a worker killed for a hang
    // writes no counters; one that crashed, those of the calls before):
    // presumed after the first.
    w1.presume_hangs(1);
    w2.presume_hangs(1);
    // Nor the rest of a crash storm's vectors (what ran counts).
    w1.cut_fault_storms();
    w2.cut_fault_storms();
    for f in &funcs {
        cworld::digests::compute(&mut [&mut w1, &mut w2], *f, opts.seed, opts.random)?;
    }
    drop((w1, w2)); // the workers exit: gcov writes their counters
    Ok(Some(count_executed(
        &Tracefile::capture(&obj)?,
        lines,
        &tree.root,
    )))
}

/// The files of the changed lines: only they carry gcov's counters in a
/// patch's coverage world (the rest is a plain world's, its objects
/// reused).
fn changed_files(lines: &[(String, usize)]) -> Vec<String> {
    let mut files: Vec<String> = lines.iter().map(|(f, _)| f.clone()).collect();
    files.sort();
    files.dedup();
    files
}

/// The coverage world of `lines` in `tree` (placed: [`stable_copy`]),
/// built on another thread while the patch is judged: on two cores it
/// costs no wall time, and [`patch_coverage`] finds it in the cache. Its
/// errors are [`patch_coverage`]'s to report, when it builds it again.
pub(super) fn prebuild(
    tree: &KernelTree,
    lines: &[(String, usize)],
) -> Option<std::thread::JoinHandle<()>> {
    if lines.is_empty() {
        return None;
    }
    let (tree, files) = (tree.clone(), changed_files(lines));
    Some(std::thread::spawn(move || {
        let _ = cworld::build(&tree, &coverage::world_options(Some(files)));
    }))
}

/// How many of the changed `lines` are executable and how many of those
/// ran. A changed line gcov has no count for that continues a statement
/// (a multi-line call's later argument, say) counts as the statement's
/// first line, where gcov puts it; other lines (blank, comments,
/// declarations) are not executable.
fn count_executed(trace: &Tracefile, lines: &[(String, usize)], root: &Path) -> PatchCoverage {
    let mut files: std::collections::BTreeMap<
        &str,
        (std::collections::BTreeMap<usize, u64>, Vec<String>),
    > = Default::default();
    let mut pc = PatchCoverage {
        changed: 0,
        executed: 0,
        missed: vec![],
    };
    for (path, line) in lines {
        let (hits, text) = files.entry(path.as_str()).or_insert_with(|| {
            let text = std::fs::read_to_string(root.join(path)).unwrap_or_default();
            (
                coverage::line_hits(trace, path),
                text.lines().map(str::to_owned).collect(),
            )
        });
        let at = if hits.contains_key(line) {
            Some(*line)
        } else {
            statement_start(text, *line).filter(|s| hits.contains_key(s))
        };
        match at.and_then(|l| hits.get(&l)) {
            None => {} // not an executable line
            Some(0) => {
                pc.changed += 1;
                pc.missed.push(format!("{path}:{line}"));
            }
            Some(_) => {
                pc.changed += 1;
                pc.executed += 1;
            }
        }
    }
    pc
}

/// The first line (1-based) of the statement line `line` of `text`
/// continues. `None` when `line` starts its own statement, or is blank or
/// a comment (not executable).
fn statement_start(text: &[String], line: usize) -> Option<usize> {
    let own = text.get(line - 1).map_or("", |s| s.trim());
    if own.is_empty() || own.starts_with("/*") || own.starts_with('*') || own.starts_with("//") {
        return None;
    }
    let k = first_line(text, line);
    (k < line).then_some(k)
}

/// The first line of the statement `line` is part of: back over the
/// lines before it while the statement they make stays open — it does
/// not end in `;`, a brace, a label or a comment's end, is not blank or a
/// preprocessor line, and is not a whole control head (`if (...)`, `for
/// (...)`, `while (...)`, `switch (...)` with its parentheses closed, over
/// however many lines, or an `else` or `do`), whose body is a statement
/// of its own.
fn first_line(text: &[String], line: usize) -> usize {
    let at = |l: usize| text.get(l - 1).map_or("", |s| s.trim());
    let mut k = line;
    while k > 1 {
        let prev = at(k - 1);
        if prev.is_empty()
            || prev.ends_with(';')
            || prev.ends_with('{')
            || prev.ends_with('}')
            || prev.ends_with(':')
            || prev.ends_with("*/")
            || prev.starts_with('#')
        {
            break;
        }
        let p0 = first_line(text, k - 1);
        let joined: Vec<&str> = (p0..k).map(at).collect();
        if control_head(&joined.join(" ")) {
            break;
        }
        k = p0;
    }
    k
}

/// Whether `t` is a whole control head: `if`, `for`, `while` or `switch`
/// with its parentheses closed, or a bare `else` or `do` (after a closing
/// brace, maybe).
fn control_head(t: &str) -> bool {
    let head = t.trim_start_matches('}').trim_start();
    let head = head.strip_prefix("else").map_or(head, str::trim_start);
    if head.is_empty() || head == "do" {
        return true;
    }
    let control = ["if", "for", "while", "switch"].iter().any(|k| {
        head.strip_prefix(k)
            .is_some_and(|r| r.starts_with('(') || r.starts_with(' '))
    });
    control && t.matches('(').count() == t.matches(')').count()
}

/// How many copies of judged trees the cache keeps.
const KEPT_TREES: usize = 16;

/// The tree copied to a place in the cache named by its content
/// (`gate-trees/HASH`): a coverage world is bound to its tree's place
/// (gcov notes absolute paths), so a tree judged again — the same patch on
/// the same base — finds its coverage world built. The tree itself where
/// the cache cannot be written. The [`KEPT_TREES`] most recently used
/// copies are kept.
pub(super) fn stable_copy(tree: &KernelTree) -> KernelTree {
    placed(tree).unwrap_or_else(|_| tree.clone())
}

/// [`stable_copy`], failing where the cache cannot be written.
fn placed(tree: &KernelTree) -> std::io::Result<KernelTree> {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    hash_tree(&tree.root, &tree.root, &mut h)?;
    let hex: String = h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let trees = kernel::cache_dir().join("gate-trees");
    let dst = trees.join(&hex);
    if !dst.is_dir() {
        let tmp = trees.join(format!(".{hex}.{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        kernel::copy_tree(&tree.root, &tmp)?;
        if std::fs::rename(&tmp, &dst).is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
        }
    }
    // Used now: the eviction below keeps it.
    let _ = std::fs::File::options()
        .append(true)
        .create(true)
        .open(dst.join(".used"))
        .and_then(|f| f.set_modified(std::time::SystemTime::now()));
    evict_trees(&trees)?;
    KernelTree::open(&dst).map_err(std::io::Error::other)
}

/// Every path under `dir` (relative to `root`), in order, with what it
/// holds: a file's bytes, a link's target.
fn hash_tree(root: &Path, dir: &Path, h: &mut sha2::Sha256) -> std::io::Result<()> {
    use sha2::Digest;
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        let t = e.file_type()?;
        h.update(
            p.strip_prefix(root)
                .unwrap_or(&p)
                .to_string_lossy()
                .as_bytes(),
        );
        if t.is_dir() {
            h.update(b"/");
            hash_tree(root, &p, h)?;
        } else if t.is_symlink() {
            h.update(b"->");
            h.update(std::fs::read_link(&p)?.to_string_lossy().as_bytes());
        } else {
            h.update(std::fs::read(&p)?);
        }
        h.update([0]);
    }
    Ok(())
}

/// Removes all but the [`KEPT_TREES`] most recently used copies in
/// `trees`.
fn evict_trees(trees: &Path) -> std::io::Result<()> {
    let mut all: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(trees)?
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| {
            let used = std::fs::metadata(e.path().join(".used"))
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            (used, e.path())
        })
        .collect();
    all.sort();
    all.reverse();
    for (_, old) in all.iter().skip(KEPT_TREES) {
        let _ = std::fs::remove_dir_all(old);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::statement_start;

    fn text(s: &str) -> Vec<String> {
        s.lines().map(str::to_owned).collect()
    }

    #[test]
    fn a_continuation_line_belongs_to_its_statement() {
        let t = text(
            "\tret = 0;\n\tdd->send_contexts = kcalloc(dd->num_send_contexts,\n\t\t\t\t    sizeof(*dd->send_contexts),\n\t\t\t\t    GFP_KERNEL);\n\tif (!x) {",
        );
        assert_eq!(statement_start(&t, 3), Some(2));
        assert_eq!(statement_start(&t, 4), Some(2));
        // A line that starts its own statement, after one that ended.
        assert_eq!(statement_start(&t, 2), None);
        assert_eq!(statement_start(&t, 5), None);
    }

    #[test]
    fn a_body_without_braces_is_a_statement_of_its_own() {
        let t = text(
            "\tif (n)\n\t\thfi1_qp_wakeup(qp,\n\t\t\t       RVT_S_WAIT_PIO | HFI1_S_WAIT_PIO_DRAIN);\n\tfor (i = 0; i < n; i++)\n\t\tf(a,\n\t\t  b);\n\telse\n\t\tg(1,\n\t\t  2);\n\tif (a &&\n\t    b)\n\t\tc();",
        );
        assert_eq!(statement_start(&t, 3), Some(2));
        assert_eq!(statement_start(&t, 2), None);
        assert_eq!(statement_start(&t, 6), Some(5));
        assert_eq!(statement_start(&t, 9), Some(8));
        // A condition split over lines is one statement; its body is not.
        assert_eq!(statement_start(&t, 11), Some(10));
        assert_eq!(statement_start(&t, 12), None);
    }

    #[test]
    fn a_comment_or_blank_line_is_not_executable() {
        let t = text("\tf(a,\n\t  /* why */\n\n\t  b);");
        assert_eq!(statement_start(&t, 2), None);
        assert_eq!(statement_start(&t, 3), None);
    }

    #[test]
    fn a_statement_after_a_brace_label_or_comment_starts_there() {
        let t = text("\tif (a) {\n\t\tb();\nout:\n\tc(x,\n\t  y);\n\t/* note */\n\td(1,\n\t  2);");
        assert_eq!(statement_start(&t, 2), None);
        assert_eq!(statement_start(&t, 4), None);
        assert_eq!(statement_start(&t, 5), Some(4));
        assert_eq!(statement_start(&t, 7), None);
        assert_eq!(statement_start(&t, 8), Some(7));
    }
}
