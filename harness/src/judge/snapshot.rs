//! Snapshots of upstream behaviour: per kernel series, one readable table
//! per vector file of what the C world did for every vector
//! (`snapshots/SERIES/FAMILY.snap`, insta's format).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::corpus::Vector;
use crate::judge::check::{Checked, Verdict};
use crate::model::types::{Engines, Func, Qp};
use crate::outcome::FLAG_KEYS;

/// Where the snapshots are: `snapshots/`, a directory per series.
pub fn snapshots_dir() -> PathBuf {
    crate::project_path("snapshots")
}

/// The series whose snapshots a tree of `series` is compared with: its
/// own, or, when the project has none for it (a series newer or older than
/// any pinned one), the nearest series that has snapshots (the newest older
/// one, else the oldest newer one). `None`: no snapshots at all.
pub fn snapshot_series(series: &str) -> Option<String> {
    let dir = snapshots_dir();
    let has = |s: &str| {
        std::fs::read_dir(dir.join(s)).is_ok_and(|rd| {
            rd.flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "snap"))
        })
    };
    if has(series) {
        return Some(series.to_owned());
    }
    let order = crate::kernel::series_order;
    let mut all: Vec<String> = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|s| crate::kernel::KernelSpec::parse(s).is_ok() && has(s))
        .collect();
    all.sort_by_key(|s| order(s));
    let me = order(series);
    all.iter()
        .rev()
        .find(|s| order(s) < me)
        .or_else(|| all.iter().find(|s| order(s) > me))
        .cloned()
}

/// What the call changed in the QP besides its flags, and in the engines'
/// state, as the line under a row shows it (`refcount 2->1,
/// sc_credit_intr_count {2=1}->{2=2}`); empty when nothing changed.
pub fn post_line(v: &Vector, c: &Checked) -> String {
    post_from(&v.call.qp, &v.call.engines, c)
}

/// [`post_line`] of a call whose pre-call QP and engines were `qp` and
/// `engines` (a scenario's later step: what the step before left).
fn post_from(qp: &Qp, engines: &Engines, c: &Checked) -> String {
    let Some(o) = &c.c else {
        return String::new();
    };
    let mut parts: Vec<String> = qp
        .changes(&o.qp)
        .into_iter()
        .filter(|(k, _, _)| !FLAG_KEYS.contains(k))
        .chain(engines.changes(&o.engines))
        .map(|(k, a, b)| format!("{k} {a}->{b}"))
        .collect();
    if !o.qp_unnamed.is_empty() {
        parts.push(format!("unnamed {}", o.qp_unnamed.join(",")));
    }
    parts.join(", ")
}

/// The C outcome of one call (`name`, of `func`) as the cells of a row.
fn cells(name: &str, func: Func, c: &Checked) -> [String; 8] {
    match &c.c {
        Some(o) => [
            name.to_owned(),
            func.to_string(),
            o.ret.to_string(),
            o.call_send.to_string(),
            o.engine_text(),
            o.send_context_text(),
            o.flags_text(),
            if o.text.is_empty() {
                o.journal_text()
            } else {
                // One row a call: a text of several lines (a dump) keeps
                // its line breaks as `\n`.
                format!(
                    "{} // print: {}",
                    o.journal_text(),
                    o.text.trim_end().replace('\n', "\\n")
                )
            },
        ],
        None => [
            name.to_owned(),
            func.to_string(),
            match &c.verdict {
                Verdict::NotInTree(_) => NOT_IN_TREE.into(),
                v => format!("{v:?}"),
            },
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
        ],
    }
}

/// A row's `ret` cell for a vector of a function the tree lacks.
pub const NOT_IN_TREE: &str = "not in this tree";

/// Whether a row (cells joined by ` | `) is of a vector the tree lacks
/// the function of.
pub fn row_not_in_tree(row: &str) -> bool {
    row.split(" | ").nth(1).map(str::trim) == Some(NOT_IN_TREE)
}

const HEAD: [&str; 8] = [
    "vector",
    "function",
    "ret",
    "call_send",
    "sdma_engine",
    "send_context",
    "flags",
    "journal",
];

/// Every row of one vector: its cells and its `post:` line. A scenario
/// has a row per step that ran, the later ones named `NAME#2`, …, each
/// `post:` line against what the step before left.
fn vector_rows(v: &Vector, c: &Checked) -> Vec<([String; 8], String)> {
    let mut rows = vec![(cells(&v.name, v.call.func(), c), post_line(v, c))];
    let mut before = c.c.as_ref();
    for (i, (call, step)) in v.then.iter().zip(&c.then).enumerate() {
        let name = format!("{}#{}", v.name, i + 2);
        let post = before.map_or_else(String::new, |b| post_from(&b.qp, &b.engines, step));
        rows.push((cells(&name, call.func(), step), post));
        before = step.c.as_ref();
    }
    rows
}

/// The table of one family: a header, then one row per vector in file
/// order (a scenario's steps one row each), columns aligned; under a row
/// whose call changed the QP beyond its flags, an indented `post:` line
/// with the changes (the post-call state as a difference from the
/// pre-call state).
pub fn render(rows: &[(&Vector, &Checked)]) -> String {
    let all: Vec<([String; 8], String)> =
        rows.iter().flat_map(|(v, c)| vector_rows(v, c)).collect();
    let body: Vec<&[String; 8]> = all.iter().map(|(r, _)| r).collect();
    let mut w = HEAD.map(str::len);
    for r in &body {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.len());
        }
    }
    let line = |r: &[String]| -> String {
        let mut s = String::new();
        for (i, c) in r.iter().enumerate() {
            if i + 1 == r.len() {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:w$} | ", w = w[i]));
            }
        }
        s.trim_end().to_owned() + "\n"
    };
    let mut out = line(&HEAD.map(str::to_owned));
    for (r, post) in &all {
        out.push_str(&line(r));
        if !post.is_empty() {
            out.push_str(&format!("{POST}{post}\n"));
        }
    }
    out
}

/// Whether `v` is pinned by snapshots: it is a vector of the committed
/// corpus (`vectors/`). Another corpus (`--vectors target/findings`, a
/// reviewer's own) has no snapshots to match.
pub fn pinned(v: &Vector) -> bool {
    static CORPUS: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    let corpus = CORPUS.get_or_init(|| crate::canonical(&crate::corpus::corpus_dir()));
    let dir = v.file.parent().and_then(crate::canonical);
    dir.is_some() && dir == *corpus
}

/// Groups checked vectors of the committed corpus ([`pinned`]) by family,
/// in first-seen order.
pub fn by_family<'a>(
    vectors: &'a [Vector],
    checks: &'a [Checked],
) -> Vec<(String, Vec<(&'a Vector, &'a Checked)>)> {
    let mut out: Vec<(String, Vec<(&Vector, &Checked)>)> = vec![];
    for (v, c) in vectors.iter().zip(checks).filter(|(v, _)| pinned(v)) {
        match out.iter_mut().find(|(f, _)| *f == v.family) {
            Some((_, rows)) => rows.push((v, c)),
            None => out.push((v.family.clone(), vec![(v, c)])),
        }
    }
    out
}

/// A snapshot that does not match.
#[derive(Debug, Clone)]
pub struct SnapshotMismatch {
    /// The vector file's family.
    pub family: String,
    /// The snapshot file.
    pub path: PathBuf,
    /// `(vector, snapshot row, upstream row now)`.
    pub rows: Vec<(String, String, String)>,
}

/// The one comparison of a family's table now with the committed snapshot
/// of its series (`cargo xtask conformance` and the test suite both judge
/// through it; the tests then let insta write the pending snapshot).
pub fn compare(series: &str, family: &str, now: &str) -> Option<SnapshotMismatch> {
    let path = snapshots_dir().join(series).join(format!("{family}.snap"));
    let old = read_snap(&path).unwrap_or_default();
    if old.trim_end() == now.trim_end() {
        return None;
    }
    let (t_old, t_now) = (parse_table(&old), parse_table(now));
    let mut names: Vec<&String> = t_old.keys().chain(t_now.keys()).collect();
    names.sort();
    names.dedup();
    let rows = names
        .into_iter()
        .filter_map(|n| {
            let a = t_old.get(n).cloned().unwrap_or_else(|| "-".into());
            let b = t_now.get(n).cloned().unwrap_or_else(|| "-".into());
            (a != b).then(|| (n.clone(), a, b))
        })
        .collect();
    Some(SnapshotMismatch {
        family: family.to_owned(),
        path,
        rows,
    })
}

/// The content of an insta `.snap` file, without its header.
pub fn read_snap(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let rest = text.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    Some(rest[end + 5..].to_owned())
}

/// How a post line starts.
const POST: &str = "    post: ";

/// The rows of a snapshot table, by vector name (a row's post line is
/// part of it).
pub fn parse_table(content: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut last: Option<String> = None;
    for l in content.lines().skip(1) {
        if let (Some(post), Some(name)) = (l.strip_prefix(POST), &last) {
            if let Some(row) = out.get_mut(name) {
                let row: &mut String = row;
                row.push_str(" | post: ");
                row.push_str(post.trim());
            }
            continue;
        }
        let mut cells = l.split('|').map(str::trim);
        let Some(name) = cells.next().map(str::to_owned) else {
            continue;
        };
        out.insert(name.clone(), cells.collect::<Vec<_>>().join(" | "));
        last = Some(name);
    }
    out
}

/// Upstream's outcome rows, by family and vector name: a series'
/// committed snapshots, or a tree's outcomes now.
pub type Tables = BTreeMap<String, BTreeMap<String, String>>;

/// The committed snapshots of `series`.
pub fn series_tables(series: &str) -> std::io::Result<Tables> {
    let dir = snapshots_dir().join(series);
    let mut out = Tables::new();
    for e in std::fs::read_dir(&dir)?.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "snap") {
            if let (Some(stem), Some(c)) = (p.file_stem(), read_snap(&p)) {
                out.insert(stem.to_string_lossy().into_owned(), parse_table(&c));
            }
        }
    }
    Ok(out)
}

/// The tables of checked vectors, as the snapshots would hold them.
pub fn checked_tables(vectors: &[Vector], checks: &[Checked]) -> Tables {
    by_family(vectors, checks)
        .into_iter()
        .map(|(fam, rows)| (fam, parse_table(&render(&rows))))
        .collect()
}

/// `(family, vector, row in A, row in B)` for every vector whose upstream
/// outcome differs between two tables (a missing row is "-").
pub fn diff_tables(a: &Tables, b: &Tables) -> Vec<(String, String, String, String)> {
    let mut fams: Vec<&String> = a.keys().chain(b.keys()).collect();
    fams.sort();
    fams.dedup();
    let empty = BTreeMap::new();
    let mut out = vec![];
    for f in fams {
        let (ta, tb) = (a.get(f).unwrap_or(&empty), b.get(f).unwrap_or(&empty));
        let mut names: Vec<&String> = ta.keys().chain(tb.keys()).collect();
        names.sort();
        names.dedup();
        for n in names {
            let ra = ta.get(n).cloned().unwrap_or_else(|| "-".into());
            let rb = tb.get(n).cloned().unwrap_or_else(|| "-".into());
            if ra != rb {
                out.push((f.clone(), n.clone(), ra, rb));
            }
        }
    }
    out
}

/// [`diff_tables`] of two series' snapshots.
pub fn diff_series(a: &str, b: &str) -> std::io::Result<Vec<(String, String, String, String)>> {
    Ok(diff_tables(&series_tables(a)?, &series_tables(b)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the committed corpus has snapshots: the same case loaded from
    /// another directory (`--vectors target/findings`) is matched against
    /// none, so a run of findings cannot fail on a snapshot it never had.
    #[test]
    fn only_the_committed_corpus_is_pinned() {
        let committed = crate::corpus::load_corpus(&crate::corpus::corpus_dir()).expect("corpus");
        let v = &committed[0];
        let dir = std::env::temp_dir().join(format!("hfi1-pinned-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let copy = dir.join(v.file.file_name().expect("a file name"));
        std::fs::copy(&v.file, &copy).expect("copy");
        let elsewhere = crate::corpus::load_corpus(&copy);
        let _ = std::fs::remove_dir_all(&dir);
        let elsewhere = elsewhere.expect("the copy loads");
        assert!(pinned(v) && !pinned(&elsewhere[0]));
        let checks: Vec<Checked> = elsewhere
            .iter()
            .map(|_| Checked {
                c: None,
                rust: Err(crate::model::Undefined("not run".into())),
                verdict: Verdict::Malformed,
                then: vec![],
                step: 1,
            })
            .collect();
        assert!(by_family(&elsewhere, &checks).is_empty());
        assert_eq!(by_family(&committed[..1], &checks).len(), 1);
    }
}
