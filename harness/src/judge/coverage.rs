//! Coverage of upstream code by the committed corpus (`cargo xtask
//! coverage`): the C world built with gcov instrumentation, the corpus run
//! in a worker, gcov's counters read back per upstream function
//! ([`Tracefile::capture`]; lcov only draws the optional HTML report).
//!
//! A function's extent is taken from the tree itself with the definition
//! extractor, so the report is per function of qp.c, the extracted
//! sdma.c/pio.c/verbs.c/driver.c definitions, and the inline helpers of
//! the driver's headers that the corpus reaches.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::corpus::Vector;
use crate::cworld::{self, BuildOptions, BuiltWorld};
use crate::judge::check;
use crate::kernel::cache_lock::FileLock;
use crate::kernel::cscan;
use crate::kernel::KernelTree;

/// One source file's data from a tracefile.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct FileData {
    /// line -> hits
    lines: BTreeMap<usize, u64>,
    /// line -> [(key, taken)], one entry a branch arc (lcov's BRDA lines;
    /// the key is lcov's "block:branch")
    branches: BTreeMap<usize, Vec<(String, u64)>>,
}

impl FileData {
    fn add_line(&mut self, line: usize, hits: u64) {
        *self.lines.entry(line).or_default() += hits;
    }

    fn add_branch(&mut self, line: usize, key: String, taken: u64) {
        let v = self.branches.entry(line).or_default();
        match v.iter_mut().find(|(k, _)| *k == key) {
            Some(x) => x.1 += taken,
            None => v.push((key, taken)),
        }
    }
}

/// Line and branch counts per source file (absolute path), summed over
/// every object that compiled the file: what lcov's tracefile holds, read
/// either from such a tracefile or straight from gcov.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Tracefile {
    files: BTreeMap<String, FileData>,
}

impl Tracefile {
    /// Reads an lcov tracefile (`SF:`, `DA:`, `BRDA:` records; several
    /// records of one file add up, as lcov adds them).
    pub fn from_lcov(text: &str) -> Tracefile {
        let mut out: BTreeMap<String, FileData> = BTreeMap::new();
        let mut cur: Option<String> = None;
        for l in text.lines() {
            if let Some(f) = l.strip_prefix("SF:") {
                cur = Some(f.to_owned());
                out.entry(f.to_owned()).or_default();
            } else if let (Some(d), Some(f)) = (l.strip_prefix("DA:"), &cur) {
                let mut it = d.split(',');
                if let (Some(Ok(line)), Some(Ok(hits))) = (
                    it.next().map(str::parse::<usize>),
                    it.next().map(str::parse::<u64>),
                ) {
                    out.entry(f.clone()).or_default().add_line(line, hits);
                }
            } else if let (Some(d), Some(f)) = (l.strip_prefix("BRDA:"), &cur) {
                let p: Vec<&str> = d.split(',').collect();
                if p.len() == 4 {
                    if let Ok(line) = p[0].parse::<usize>() {
                        // "-": the arc's block never ran.
                        let taken = p[3].parse::<u64>().unwrap_or(0);
                        let key = format!("{}:{}", p[1], p[2]);
                        out.entry(f.clone())
                            .or_default()
                            .add_branch(line, key, taken);
                    }
                }
            } else if l == "end_of_record" {
                cur = None;
            }
        }
        Tracefile { files: out }
    }

    /// Reads the counters of every `.gcda` file in `obj_dir` (a coverage
    /// world's objects, with their `.gcno` notes) with gcc's own gcov:
    /// `gcov --json-format --stdout --branch-probabilities
    /// --object-directory OBJ_DIR OBJ_DIR/*.gcda`, run in `obj_dir`. No
    /// lcov needed; the counts are the ones lcov 1.16 writes from the same
    /// gcov JSON (`DA:` every line gcov reports, `BRDA:line,0,n,count` each
    /// branch arc of the line in gcov's order), and source paths are
    /// absolute as lcov's `SF:` (a relative one is taken from gcov's
    /// `current_working_directory`, the compiler's).
    pub fn capture(obj_dir: &Path) -> Result<Tracefile> {
        let dir = crate::sandbox::absolute(obj_dir);
        let shown = dir.display();
        let mut gcda: Vec<PathBuf> = std::fs::read_dir(&dir)
            .with_context(|| format!("reading {shown} (a coverage world's objects)"))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "gcda"))
            .collect();
        gcda.sort();
        if gcda.is_empty() {
            bail!(
                "no .gcda counters in {shown}: build the world with coverage and run it \
                 first (coverage::collect); the worker writes them when it exits"
            );
        }
        let args = ["--json-format", "--stdout", "--branch-probabilities"];
        let cmdline = format!(
            "gcov {} --object-directory {shown} <{} .gcda files of {shown}>",
            args.join(" "),
            gcda.len()
        );
        let out = Command::new("gcov")
            .args(args)
            .arg("--object-directory")
            .arg(&dir)
            .args(&gcda)
            .current_dir(&dir)
            .output()
            .with_context(|| {
                format!("running `{cmdline}` (gcov comes with gcc: apt-get install gcc)")
            })?;
        if !out.status.success() {
            bail!(
                "`{cmdline}` failed ({}); gcov must come from the gcc that built the \
                 objects in {shown} (rebuild the coverage world if gcc changed):\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim_end()
            );
        }
        let mut files: BTreeMap<String, FileData> = BTreeMap::new();
        let mut docs = 0;
        // One JSON document per .gcda file.
        for doc in serde_json::Deserializer::from_slice(&out.stdout).into_iter::<GcovDoc>() {
            let doc = doc.with_context(|| {
                format!(
                    "reading the JSON of `{cmdline}` (gcov of gcc 9 or later writes it; \
                     `gcov --version` names this one)"
                )
            })?;
            docs += 1;
            let cwd = Path::new(&doc.current_working_directory);
            for f in doc.files {
                let fd = files.entry(normalize(&cwd.join(&f.file))).or_default();
                for l in f.lines {
                    fd.add_line(l.line_number, l.count);
                    // lcov writes "-" for the arcs of a line whose block
                    // never ran, read back as 0: their count here.
                    for (n, b) in l.branches.iter().enumerate() {
                        fd.add_branch(l.line_number, format!("0:{n}"), b.count);
                    }
                }
            }
        }
        if docs != gcda.len() {
            bail!(
                "`{cmdline}` wrote {docs} JSON documents for {} .gcda files:\n{}",
                gcda.len(),
                String::from_utf8_lossy(&out.stderr).trim_end()
            );
        }
        Ok(Tracefile { files })
    }
}

/// The part of gcov's JSON intermediate format (gcc 9 and later, `gcov
/// --json-format`) a tracefile needs; other fields are ignored.
#[derive(Deserialize)]
struct GcovDoc {
    #[serde(default)]
    current_working_directory: String,
    #[serde(default)]
    files: Vec<GcovFile>,
}

#[derive(Deserialize)]
struct GcovFile {
    file: String,
    #[serde(default)]
    lines: Vec<GcovLine>,
}

#[derive(Deserialize)]
struct GcovLine {
    line_number: usize,
    count: u64,
    /// Present with `--branch-probabilities`.
    #[serde(default)]
    branches: Vec<GcovBranch>,
}

#[derive(Deserialize)]
struct GcovBranch {
    count: u64,
}

/// `path` with its `.` and `dir/..` components resolved without looking
/// at the file system, as lcov resolves a source path.
fn normalize(path: &Path) -> String {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(c);
                }
            }
            c => out.push(c),
        }
    }
    out.display().to_string()
}

/// Coverage of one upstream function.
#[derive(Debug, Clone)]
pub struct FuncCoverage {
    /// The file defining it, relative to the tree.
    pub file: String,
    /// The function's name.
    pub name: String,
    /// The first line of its definition.
    pub start: usize,
    /// The last line of its definition.
    pub end: usize,
    /// Executable lines that ran.
    pub lines_hit: usize,
    /// Executable lines.
    pub lines: usize,
    /// Branches taken at least once.
    pub branches_taken: usize,
    /// Branches.
    pub branches: usize,
    /// Lines with a branch never taken: (line, taken/total there).
    pub missed_branches: Vec<(usize, usize, usize)>,
    /// Executable lines that never ran.
    pub missed_lines: Vec<usize>,
}

/// The upstream functions in scope, by file (relative to the tree) and
/// name: every definition of qp.c, the definitions `c-shim/boundary.toml`
/// extracts from the driver's other files (rdmavt's, a table the driver
/// reads, are not in scope), the inline helpers of the headers that the
/// functions in scope reach, and iowait.c's. Without a readable manifest
/// the extracted ones are missing (building a world fails on it first).
pub fn in_scope() -> Vec<(String, Vec<String>)> {
    const DRIVER: &str = "drivers/infiniband/hw/hfi1/";
    let owned = |(file, names): (&str, &[&str])| {
        (
            file.to_owned(),
            names.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
        )
    };
    let mut out = vec![owned(("drivers/infiniband/hw/hfi1/qp.c", &[]))]; // every function
    if let Ok(m) = cworld::build::Manifest::load() {
        out.extend(
            m.upstream
                .extract
                .into_iter()
                .filter(|e| e.file.starts_with(DRIVER))
                .map(|e| (e.file, e.symbols)),
        );
    }
    out.extend(
        [
            (
                "drivers/infiniband/hw/hfi1/qp.h",
                &["hfi1_send_ok", "clear_ahg"][..],
            ),
            (
                "drivers/infiniband/hw/hfi1/tid_rdma.h",
                &["hfi1_setup_tid_rdma_wqe"],
            ),
            (
                "drivers/infiniband/hw/hfi1/hfi.h",
                &[
                    "sc_to_vlt",
                    "to_iport",
                    "hfi1_update_ah_attr",
                    "hfi1_make_opa_lid",
                    "hfi1_get_packet_type",
                    "hfi1_get_hdr_type",
                    "hfi1_check_mcast",
                    "__opa_get_lid",
                ],
            ),
            // Compiled whole, every function reached (from qp.c and from
            // the wakeups of sdma.c and pio.c).
            ("drivers/infiniband/hw/hfi1/iowait.c", &[]),
        ]
        .map(owned),
    );
    out
}

/// How a coverage world is built: gcov in every unit, or in those
/// compiled from `instrument`'s files (a patch's changed ones).
pub fn world_options(instrument: Option<Vec<String>>) -> BuildOptions {
    BuildOptions {
        coverage: true,
        instrument,
        ..Default::default()
    }
}

/// An instrumented world (gcov's, or clang's measuring one) whose
/// counters this run alone clears, adds to and reads for as long as it
/// holds them, among runs that go through [`collect`],
/// `mcdc::collect` or [`Counters::hold`] (cache eviction leaves the
/// world alone as any world in use, `BuiltWorld::in_use`). The counters live in the world's cached directory, which
/// every run of the same tree, place and options shares: two gates of a
/// list bot, or two test threads, measuring one world at once would add
/// to each other's counts or delete each other's files.
pub struct Counters {
    /// The world measured.
    pub world: BuiltWorld,
    _held: FileLock,
}

impl Counters {
    /// `world`'s counters, once no other run holds them (it waits). Not
    /// re-entrant: a thread holding them that asks again waits forever.
    pub fn hold(world: BuiltWorld) -> Result<Counters> {
        let path = world.dir.join(cworld::build::COUNTERS_LOCK);
        loop {
            let held = FileLock::acquire(&path)?;
            // A damaged world's rebuild may have removed the lock file
            // this waited on: the world's lock is the one there now.
            if held.is_at(&path) {
                return Ok(Counters { world, _held: held });
            }
        }
    }

    /// `world`'s counters if no run holds them now; `None` when one does.
    pub fn try_hold(world: BuiltWorld) -> Result<Option<Counters>> {
        let path = world.dir.join(cworld::build::COUNTERS_LOCK);
        // There to lock, as `hold` makes it.
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("opening lock {}", path.display()))?;
        Ok(FileLock::try_acquire(&path).map(|held| Counters { world, _held: held }))
    }
}

impl std::fmt::Debug for Counters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counters")
            .field("world", &self.world)
            .finish_non_exhaustive()
    }
}

impl std::ops::Deref for Counters {
    type Target = BuiltWorld;
    fn deref(&self) -> &BuiltWorld {
        &self.world
    }
}

/// Builds the instrumented world and runs `vectors` in it; when this
/// returns, the worker has exited and written its `.gcda` counters next to
/// the objects (`world.dir/obj`), ready for [`Tracefile::capture`] while
/// the counters are held.
pub fn collect(
    tree: &KernelTree,
    vectors: &[Vector],
    instrument: Option<Vec<String>>,
) -> Result<Counters> {
    let world = Counters::hold(cworld::build(tree, &world_options(instrument))?)?;
    let obj = world.dir.join("obj");
    // Fresh counters for this run.
    for e in std::fs::read_dir(&obj)?.flatten() {
        if e.path().extension().is_some_and(|x| x == "gcda") {
            let _ = std::fs::remove_file(e.path());
        }
    }
    // Coverage needs no proof of a fault (a worker killed for a hang
    // writes no counters; one that crashed, those of the calls before):
    // after the first, a function's faults are presumed.
    let mut w = cworld::Worker::new(&world)?;
    w.presume_hangs(1);
    let checks = check::check_all_with(&mut w, vectors)?;
    drop(w); // the worker exits: gcov writes its counters
    let bad = checks.iter().filter(|c| !c.verdict.ok()).count();
    if bad > 0 {
        eprintln!("[coverage] note: {bad} vectors disagree (coverage is still measured)");
    }
    Ok(world)
}

/// Line hits of the source file whose path ends with `rel`: line -> hits,
/// executable lines only.
pub fn line_hits(trace: &Tracefile, rel: &str) -> BTreeMap<usize, u64> {
    let suffix = format!("/{rel}");
    trace
        .files
        .iter()
        .filter(|(f, _)| f.ends_with(&suffix))
        .flat_map(|(_, d)| d.lines.clone())
        .collect()
}

/// An upstream function in scope and where its definition is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extent {
    /// The file defining it, relative to the tree.
    pub file: String,
    /// The function's name.
    pub name: String,
    /// The first line of its definition.
    pub start: usize,
    /// The last line of its definition.
    pub end: usize,
}

/// Every function [`in_scope`] names, found in `tree` by the definition
/// extractor: what coverage and MC/DC are measured per.
pub fn scope_functions(tree: &KernelTree) -> Result<Vec<Extent>> {
    let mut out = vec![];
    for (rel, names) in in_scope() {
        let path = tree.path(&rel);
        let src = tree.read_to_string(&path)?;
        let defs = cscan::definitions(&src).map_err(|e| anyhow::anyhow!("{rel}: {e}"))?;
        for d in defs {
            let is_fn = d.text.trim_end().ends_with('}') && d.text.contains('(');
            if !is_fn || (!names.is_empty() && !names.contains(&d.name)) {
                continue;
            }
            if names.is_empty() && !d.text.contains('{') {
                continue;
            }
            let start = d.line;
            out.push(Extent {
                file: rel.clone(),
                name: d.name.clone(),
                start,
                end: start + d.text.lines().count().saturating_sub(1),
            });
        }
    }
    Ok(out)
}

/// Whether two absolute source paths name one file (`.` and `dir/..`
/// resolved as lcov resolves them).
pub fn same_file(a: &str, b: &str) -> bool {
    normalize(Path::new(a)) == normalize(Path::new(b))
}

/// A tracefile read back per upstream function in scope.
pub fn report(world: &BuiltWorld, trace: &Tracefile) -> Result<Vec<FuncCoverage>> {
    let data = &trace.files;
    let tree = &world.tree;
    let mut out = vec![];
    for at in scope_functions(tree)? {
        let key = tree.path(&at.file).display().to_string();
        let fd = data.get(&key).cloned().unwrap_or_default();
        let (start, end) = (at.start, at.end);
        let lines: Vec<(&usize, &u64)> = fd.lines.range(start..=end).collect();
        let mut f = FuncCoverage {
            file: at.file,
            name: at.name,
            start,
            end,
            lines_hit: lines.iter().filter(|(_, h)| **h > 0).count(),
            lines: lines.len(),
            branches_taken: 0,
            branches: 0,
            missed_branches: vec![],
            missed_lines: lines
                .iter()
                .filter(|(_, h)| **h == 0)
                .map(|(l, _)| **l)
                .collect(),
        };
        for (line, brs) in fd.branches.range(start..=end) {
            let taken = brs.iter().filter(|(_, t)| *t > 0).count();
            f.branches += brs.len();
            f.branches_taken += taken;
            if taken < brs.len() {
                f.missed_branches.push((*line, taken, brs.len()));
            }
        }
        out.push(f);
    }
    Ok(out)
}

/// Whether lcov and genhtml, which draw the HTML report, are on `PATH`
/// (the numbers need neither).
pub fn html_tools() -> bool {
    crate::sandbox::which("lcov").is_some() && crate::sandbox::which("genhtml").is_some()
}

/// The per-function table and the list of what was missed; `html`, the
/// HTML report's directory, `None` when it was not drawn.
pub fn render(tree: &KernelTree, cov: &[FuncCoverage], html: Option<&Path>) -> String {
    let mut s = format!("coverage of upstream functions on {}\n", tree.version);
    let w = cov.iter().map(|c| c.name.len()).max().unwrap_or(8).max(8);
    s.push_str(&format!(
        "{:w$}  {:>12}  {:>12}  file\n",
        "function", "lines", "branches"
    ));
    let (mut lh, mut lt, mut bh, mut bt) = (0, 0, 0, 0);
    for c in cov {
        lh += c.lines_hit;
        lt += c.lines;
        bh += c.branches_taken;
        bt += c.branches;
        let pct = |a: usize, b: usize| match (a * 100).checked_div(b) {
            None => "-".to_string(),
            Some(p) => format!("{a}/{b} {p:>3}%"),
        };
        s.push_str(&format!(
            "{:w$}  {:>12}  {:>12}  {}:{}\n",
            c.name,
            pct(c.lines_hit, c.lines),
            pct(c.branches_taken, c.branches),
            c.file.rsplit('/').next().unwrap_or(&c.file),
            c.start
        ));
    }
    s.push_str(&format!(
        "{:w$}  {:>12}  {:>12}\n",
        "total",
        format!("{lh}/{lt}"),
        format!("{bh}/{bt}")
    ));
    let missed: Vec<&FuncCoverage> = cov
        .iter()
        .filter(|c| !c.missed_branches.is_empty() || !c.missed_lines.is_empty())
        .collect();
    if !missed.is_empty() {
        s.push_str("\nnot reached (file:line):\n");
        for c in missed {
            let f = c.file.rsplit('/').next().unwrap_or(&c.file);
            let lines: Vec<String> = c.missed_lines.iter().map(|l| format!("{f}:{l}")).collect();
            let brs: Vec<String> = c
                .missed_branches
                .iter()
                .map(|(l, t, n)| format!("{f}:{l} ({t}/{n} branches)"))
                .collect();
            s.push_str(&format!(
                "  {}: lines [{}] branches [{}]\n",
                c.name,
                lines.join(", "),
                brs.join(", ")
            ));
        }
    }
    match html {
        Some(html) => s.push_str(&format!(
            "\nHTML report: {}\n",
            html.join("index.html").display()
        )),
        None => s.push_str(
            "\nHTML report skipped: lcov and genhtml are not on PATH (apt-get install lcov)\n",
        ),
    }
    s
}

/// Where `cargo xtask coverage` writes its reports.
pub fn out_dir(series: &str) -> PathBuf {
    crate::project_path("target/coverage").join(series)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program whose lines 4 and 13 never run; line 3's test is true 0
    /// times and false 3 times.
    const PROGRAM: &str = "\
int f(int x)
{
\tif (x > 5)
\t\treturn 1;
\treturn 0;
}
int main(int argc, char **argv)
{
\tint s = 0;
\tfor (int i = 0; i < 3; i++)
\t\ts += f(i);
\tif (argc > 10)
\t\ts = 99;
\treturn s;
}
";

    /// A scratch directory, removed when dropped.
    struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Compiles PROGRAM as `t.c` with gcov instrumentation in a fresh
    /// directory (objects under `obj/`, compiled from that directory with
    /// a relative source name, as gcov then records it), and runs it once.
    fn run_program(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("hfi1-coverage-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("obj")).unwrap();
        let dir = Scratch(dir);
        std::fs::write(dir.0.join("t.c"), PROGRAM).unwrap();
        let run = |cmd: &mut Command| {
            let out = cmd.current_dir(&dir.0).output().unwrap();
            assert!(out.status.success(), "{cmd:?}: {out:?}");
        };
        run(Command::new("gcc").args(["--coverage", "-O0", "-c", "t.c", "-o", "obj/t.o"]));
        run(Command::new("gcc").args(["--coverage", "obj/t.o", "-o", "t"]));
        run(&mut Command::new(dir.0.join("t")));
        dir
    }

    #[test]
    fn capture_reads_gcov_counters() {
        let dir = run_program("capture");
        let trace = Tracefile::capture(&dir.0.join("obj")).unwrap();
        let src = normalize(&crate::sandbox::absolute(&dir.0).join("t.c"));
        assert_eq!(trace.files.keys().collect::<Vec<_>>(), vec![&src]);
        let hits = line_hits(&trace, "t.c");
        assert_eq!(hits.get(&3), Some(&3), "{hits:?}");
        assert_eq!(hits.get(&4), Some(&0), "never returns 1: {hits:?}");
        assert_eq!(hits.get(&5), Some(&3));
        assert_eq!(hits.get(&9), Some(&1));
        assert_eq!(hits.get(&11), Some(&3));
        assert_eq!(hits.get(&13), Some(&0), "argc is 1: {hits:?}");
        assert_eq!(hits.get(&14), Some(&1));
        // A function's entry is counted on its name's line, not its brace.
        assert_eq!(hits.get(&1), Some(&3));
        assert_eq!(hits.get(&2), None);
        assert_eq!(hits.get(&7), Some(&1));
        assert_eq!(hits.get(&8), None);
        assert!(hits.keys().all(|l| *l <= 15));

        let br = &trace.files[&src].branches;
        let taken = |line: usize| {
            let mut v: Vec<u64> = br[&line].iter().map(|(_, t)| *t).collect();
            v.sort();
            v
        };
        assert_eq!(taken(3), vec![0, 3], "x > 5 never true: {br:?}");
        assert_eq!(taken(10), vec![1, 3], "the loop: 3 rounds, one exit");
        assert_eq!(taken(12), vec![0, 1], "argc > 10 never true");
        assert_eq!(br.keys().copied().collect::<Vec<_>>(), vec![3, 10, 12]);
    }

    #[test]
    fn capture_errors_name_the_directory() {
        let dir = Scratch(
            std::env::temp_dir().join(format!("hfi1-coverage-test-empty-{}", std::process::id())),
        );
        std::fs::create_dir_all(&dir.0).unwrap();
        let e = format!("{:#}", Tracefile::capture(&dir.0).unwrap_err());
        assert!(e.contains("no .gcda counters"), "{e}");
        assert!(e.contains(&dir.0.display().to_string()), "{e}");
        // A .gcda without its notes: gcov fails, and the error says so.
        std::fs::write(dir.0.join("x.gcda"), b"not counters").unwrap();
        let e = format!("{:#}", Tracefile::capture(&dir.0).unwrap_err());
        assert!(e.contains("gcov --json-format"), "{e}");
        assert!(e.contains("x.gcno"), "gcov's own message: {e}");
    }

    #[test]
    fn from_lcov_sums_records_of_one_file() {
        let text = "TN:\nSF:/a/b.c\nDA:3,2\nDA:4,0\nBRDA:3,0,0,2\nBRDA:3,0,1,-\n\
                    end_of_record\nSF:/a/b.c\nDA:3,1\nBRDA:3,0,1,5\nend_of_record\n";
        let t = Tracefile::from_lcov(text);
        let d = &t.files["/a/b.c"];
        assert_eq!(d.lines, BTreeMap::from([(3, 3), (4, 0)]));
        assert_eq!(
            d.branches[&3],
            vec![("0:0".to_string(), 2), ("0:1".to_string(), 5)]
        );
        assert_eq!(line_hits(&t, "b.c"), d.lines);
        assert!(line_hits(&t, "c").is_empty(), "a whole name only");
    }

    /// lcov (1.16 reads the same gcov JSON) and `capture` agree on every
    /// line and branch arc of the program.
    #[test]
    fn capture_agrees_with_lcov() {
        if crate::sandbox::which("lcov").is_none() {
            eprintln!("note: lcov is not installed; capture_agrees_with_lcov compares nothing");
            return;
        }
        let dir = run_program("lcov");
        let info = dir.0.join("t.info");
        let out = Command::new("lcov")
            .args(["--quiet", "--capture", "--rc", "lcov_branch_coverage=1"])
            .arg("--directory")
            .arg(dir.0.join("obj"))
            .arg("--output-file")
            .arg(&info)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let lcov = Tracefile::from_lcov(&std::fs::read_to_string(&info).unwrap());
        let gcov = Tracefile::capture(&dir.0.join("obj")).unwrap();
        assert!(!gcov.files.is_empty());
        assert_eq!(
            lcov.files.keys().collect::<Vec<_>>(),
            gcov.files.keys().collect::<Vec<_>>()
        );
        for (f, g) in &gcov.files {
            let l = &lcov.files[f];
            assert_eq!(l.lines, g.lines, "{f}");
            // Each line's arcs in gcov's order (lcov 2 numbers them otherwise).
            let arcs = |d: &FileData| -> BTreeMap<usize, Vec<u64>> {
                d.branches
                    .iter()
                    .map(|(line, v)| (*line, v.iter().map(|(_, t)| *t).collect()))
                    .collect()
            };
            assert_eq!(arcs(l), arcs(g), "{f}");
        }
    }

    /// The extracted definitions in scope are the manifest's, file by file
    /// of the driver (rdmavt's table is read, not in scope); qp.c comes
    /// first with every function, the headers' inline helpers after.
    #[test]
    fn the_extracted_definitions_in_scope_are_the_manifests() {
        let scope = in_scope();
        assert_eq!(
            scope[0],
            ("drivers/infiniband/hw/hfi1/qp.c".to_owned(), vec![])
        );
        let manifest = cworld::build::Manifest::load().expect("c-shim/boundary.toml");
        for e in &manifest.upstream.extract {
            let names = scope.iter().find(|(f, _)| *f == e.file).map(|(_, n)| n);
            let driver = e.file.starts_with("drivers/infiniband/hw/hfi1/");
            assert_eq!(names, driver.then_some(&e.symbols), "{}", e.file);
        }
        let has = |file: &str, name: &str| {
            scope
                .iter()
                .any(|(f, n)| f.ends_with(file) && n.iter().any(|x| x == name))
        };
        assert!(has("hfi1/sdma.c", "sdma_select_engine_vl"));
        assert!(has("hfi1/hfi.h", "sc_to_vlt"));
        let whole = |f: &str| scope.contains(&(format!("drivers/infiniband/hw/hfi1/{f}"), vec![]));
        assert!(whole("qp.c") && whole("iowait.c"));
        assert!(!scope.iter().any(|(f, _)| f.contains("rdmavt")));
    }
}
