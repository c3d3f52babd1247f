//! MC/DC of upstream code by the committed corpus (`cargo xtask coverage
//! --mcdc`): the C world built as a measuring instrument (clang 19,
//! source-based coverage with `-fcoverage-mcdc`, -O0), the corpus run in a
//! worker, the profiles merged by `llvm-profdata` and read back with
//! `llvm-cov export`, per decision of the upstream functions in scope.
//!
//! A *decision* is a boolean expression of two or more conditions joined
//! by `&&`/`||` (clang's definition); a condition is *shown* when two
//! executed test vectors differ in it alone (and in the outcome), the
//! DO-178C unique-cause criterion clang measures. The gcc world stays the
//! reference; this world only measures.
//!
//! Where clang names places the tree does not: its coverage mapping
//! ignores `#line`, so a decision of the extracted unit is moved back to
//! the upstream file and line its `#line` directives name ([`LineMap`]),
//! and a decision written inside a macro's argument (`unlikely(a || b)`)
//! is placed at the macro's call in the function's file, its conditions
//! numbered (`C2`) where their text is the macro's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::corpus::Vector;
use crate::cworld::{self, BuildOptions, BuiltWorld};
use crate::judge::check;
use crate::judge::coverage::{scope_functions, Counters, Extent};
use crate::kernel::KernelTree;

/// One condition of a decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    /// Its source text (`qp->s_flags & RVT_S_BUSY`), or `C<n>` (1-based,
    /// clang's numbering) when it is spelled inside a macro.
    pub text: String,
    /// Whether the corpus shows it flipping the decision on its own.
    pub shown: bool,
}

/// One decision of an upstream function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The upstream line it starts on (the macro's call for one inside a
    /// macro).
    pub line: usize,
    /// The upstream line it ends on (its first for one inside a macro).
    pub end: usize,
    /// That line's text, trimmed (how `vectors/mcdc.toml` names it).
    pub text: String,
    /// Its conditions in clang's order (left to right).
    pub conditions: Vec<Condition>,
}

impl Decision {
    /// Whether every condition is shown.
    pub fn complete(&self) -> bool {
        self.conditions.iter().all(|c| c.shown)
    }
}

/// MC/DC of one upstream function.
#[derive(Debug, Clone)]
pub struct FuncMcdc {
    /// The function and where it is.
    pub at: Extent,
    /// Its decisions, by line.
    pub decisions: Vec<Decision>,
}

impl FuncMcdc {
    /// (conditions shown, conditions).
    pub fn shown(&self) -> (usize, usize) {
        let all = self.decisions.iter().flat_map(|d| &d.conditions);
        (all.clone().filter(|c| c.shown).count(), all.count())
    }
}

/// How a measuring world is built: clang's counters in every unit, or in
/// those compiled from `instrument`'s files (a patch's changed ones).
pub fn world_options(instrument: Option<Vec<String>>) -> BuildOptions {
    BuildOptions {
        measure: true,
        instrument,
        ..Default::default()
    }
}

/// Fails with what to install when the measuring compiler cannot do MC/DC.
pub fn require_clang() -> Result<()> {
    let major = cworld::build::measuring_cc_major();
    if major < 19 {
        bail!(
            "MC/DC needs clang 19 or later ({} says {}): apt-get install clang-19 llvm-19, \
             or set HFI1_MEASURE_CC to such a clang",
            cworld::build::measuring_cc(),
            if major == 0 {
                "nothing".to_string()
            } else {
                format!("version {major}")
            }
        );
    }
    Ok(())
}

/// Builds the measuring world and runs `vectors` in it; when this returns
/// the worker has exited and written its profile under `profiles/`, ready
/// for [`merge_profiles`] (and the comparison recorder's files for
/// `cmd::coverage::boundaries`) while the counters are held.
pub fn collect(
    tree: &KernelTree,
    vectors: &[Vector],
    instrument: Option<Vec<String>>,
) -> Result<Counters> {
    require_clang()?;
    let world = Counters::hold(cworld::build(tree, &world_options(instrument))?)?;
    let profiles = world.dir.join("profiles");
    let _ = std::fs::remove_dir_all(&profiles);
    std::fs::create_dir_all(&profiles)
        .with_context(|| format!("creating {}", profiles.display()))?;
    let mut w = cworld::Worker::new(&world)?;
    w.presume_hangs(1);
    let checks = check::check_all_with(&mut w, vectors)?;
    drop(w); // the worker exits: the profile runtime writes its file
    let bad = checks.iter().filter(|c| !c.verdict.ok()).count();
    if bad > 0 {
        eprintln!("[mcdc] note: {bad} vectors disagree (MC/DC is still measured)");
    }
    Ok(world)
}

/// Merges the profiles the world's workers wrote into one indexed profile
/// (`llvm-profdata merge`), returned.
pub fn merge_profiles(world: &BuiltWorld) -> Result<PathBuf> {
    let dir = world.dir.join("profiles");
    let mut raw: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "profraw"))
        .collect();
    raw.sort();
    if raw.is_empty() {
        bail!(
            "no profiles in {}: the measuring world's worker wrote none (it writes one \
             when it exits normally)",
            dir.display()
        );
    }
    let out = world.dir.join("mcdc.profdata");
    merge(&raw, &out)?;
    Ok(out)
}

/// `llvm-profdata merge -sparse` of `raw` profiles into `out`.
fn merge(raw: &[PathBuf], out: &Path) -> Result<()> {
    let tool = cworld::build::llvm_tool("llvm-profdata");
    let o = Command::new(&tool)
        .args(["merge", "-sparse", "-o"])
        .arg(out)
        .args(raw)
        .output()
        .with_context(|| format!("running {} (apt-get install llvm-19)", tool.display()))?;
    if !o.status.success() {
        bail!(
            "{} merge failed: {}",
            tool.display(),
            String::from_utf8_lossy(&o.stderr).trim_end()
        );
    }
    Ok(())
}

/// `llvm-cov export` of the shared object `so` with `profile`, as JSON.
fn export(so: &Path, profile: &Path) -> Result<Vec<u8>> {
    let tool = cworld::build::llvm_tool("llvm-cov");
    let o = Command::new(&tool)
        .args(["export", "-format=text", "-instr-profile"])
        .arg(profile)
        .arg(so)
        .output()
        .with_context(|| format!("running {} (apt-get install llvm-19)", tool.display()))?;
    if !o.status.success() {
        bail!(
            "{} export failed: {}",
            tool.display(),
            String::from_utf8_lossy(&o.stderr).trim_end()
        );
    }
    Ok(o.stdout)
}

/// Every decision of the mappings in `llvm-cov export`'s JSON.
fn read_export(json: &[u8]) -> Result<Vec<RawDecision>> {
    let doc: Export = serde_json::from_slice(json)
        .context("reading the JSON of `llvm-cov export` (LLVM 19 writes mcdc_records)")?;
    Ok(doc
        .data
        .iter()
        .flat_map(|d| &d.functions)
        .flat_map(decisions_of)
        .collect())
}

/// The part of `llvm-cov export`'s JSON this reads.
#[derive(Deserialize)]
struct Export {
    data: Vec<ExportData>,
}

#[derive(Deserialize)]
struct ExportData {
    #[serde(default)]
    functions: Vec<Function>,
}

/// One function's mapping: regions `[LS, CS, LE, CE, count, file,
/// expanded file, kind]`, branches `[LS, CS, LE, CE, true, false, file,
/// expanded file, kind]`, MC/DC records `[LS, CS, LE, CE, expanded file,
/// kind, [shown per condition]]` (LLVM 19's CoverageExporterJson).
#[derive(Deserialize)]
struct Function {
    #[serde(default)]
    filenames: Vec<String>,
    #[serde(default)]
    regions: Vec<Vec<i64>>,
    #[serde(default)]
    branches: Vec<Vec<i64>>,
    #[serde(default)]
    mcdc_records: Vec<McdcRecord>,
}

/// `[LS, CS, LE, CE, expanded file, kind, [shown per condition]]`.
type McdcRecord = (i64, i64, i64, i64, i64, i64, Vec<bool>);

/// LLVM's region kinds (CounterMappingRegion::RegionKind).
const EXPANSION_REGION: i64 = 1;
const MCDC_BRANCH_REGION: i64 = 6;

/// A place in a file clang compiled: (file id of the function's mapping,
/// line, column), 1-based, the end exclusive.
type Pos = (usize, i64, i64);

/// A decision as clang gives it, before it is placed upstream.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct RawDecision {
    /// The file (absolute, as compiled) and position in it of the
    /// decision, or of the outermost macro call holding it.
    file: String,
    line: i64,
    col: i64,
    /// The line it ends on there.
    end: i64,
    /// The conditions' spans in that file, when the decision is written
    /// there (not inside a macro).
    spans: Option<Vec<(i64, i64, i64, i64)>>,
    shown: Vec<bool>,
}

/// The decisions of one function's mapping.
fn decisions_of(f: &Function) -> Vec<RawDecision> {
    // Each expansion's call site: expanded file -> (file, line, col).
    let mut parent: BTreeMap<i64, Pos> = BTreeMap::new();
    for r in &f.regions {
        if r.len() >= 8 && r[7] == EXPANSION_REGION {
            parent.insert(r[6], (r[5] as usize, r[0], r[1]));
        }
    }
    let branches: Vec<&Vec<i64>> = f
        .branches
        .iter()
        .filter(|b| b.len() >= 9 && b[8] == MCDC_BRANCH_REGION)
        .collect();
    let mut out = vec![];
    for (ls, cs, le, ce, _, _, shown) in &f.mcdc_records {
        let inside = |b: &&&Vec<i64>| (b[0], b[1]) >= (*ls, *cs) && (b[2], b[3]) <= (*le, *ce);
        // The file the decision is in: the one holding its conditions.
        let mut by_file: BTreeMap<i64, Vec<(i64, i64, i64, i64)>> = BTreeMap::new();
        for b in branches.iter().filter(inside) {
            by_file
                .entry(b[6])
                .or_default()
                .push((b[0], b[1], b[2], b[3]));
        }
        let fits: Vec<i64> = by_file
            .iter()
            .filter(|(_, v)| v.len() == shown.len())
            .map(|(f, _)| *f)
            .collect();
        let file = if fits.contains(&0) {
            0
        } else {
            fits.first().copied().unwrap_or(0)
        };
        // Up the macro calls to the function's own file.
        let (mut at, mut seen) = ((file as usize, *ls, *cs), 0);
        while at.0 != 0 && seen < 64 {
            match parent.get(&(at.0 as i64)) {
                Some(p) => at = *p,
                None => break,
            }
            seen += 1;
        }
        let Some(name) = f.filenames.get(at.0) else {
            continue;
        };
        let spans = (file == 0).then(|| {
            let mut v = by_file.remove(&0).unwrap_or_default();
            v.sort();
            v
        });
        out.push(RawDecision {
            file: name.clone(),
            line: at.1,
            col: at.2,
            end: if file == 0 { *le } else { at.1 },
            spans,
            shown: shown.clone(),
        });
    }
    out
}

/// Where the lines of a file clang compiled come from: its `#line`
/// directives (the extracted unit's), or the file itself.
#[derive(Debug, Default)]
pub struct LineMap {
    /// (real line of a directive, the file it names, the line it names).
    directives: Vec<(usize, String, usize)>,
}

impl LineMap {
    /// The map of a file's text.
    pub fn of(text: &str) -> LineMap {
        let mut directives = vec![];
        for (i, l) in text.lines().enumerate() {
            let Some(rest) = l.strip_prefix("#line ") else {
                continue;
            };
            let mut it = rest.splitn(2, ' ');
            let (Some(n), Some(f)) = (it.next(), it.next()) else {
                continue;
            };
            if let Ok(n) = n.trim().parse::<usize>() {
                directives.push((i + 1, f.trim().trim_matches('"').to_owned(), n));
            }
        }
        LineMap { directives }
    }

    /// Where real line `line` of `file` comes from.
    pub fn place(&self, file: &str, line: usize) -> (String, usize) {
        match self.directives.iter().rev().find(|(d, _, _)| *d < line) {
            Some((d, f, n)) => (f.clone(), n + (line - d - 1)),
            None => (file.to_owned(), line),
        }
    }
}

/// The text of `span` (1-based lines and columns, end exclusive) of `src`.
fn span_text(src: &[&str], (ls, cs, le, ce): (i64, i64, i64, i64)) -> Option<String> {
    let line = |n: i64| src.get(usize::try_from(n - 1).ok()?).copied();
    let col = |s: &str, c: i64| {
        s.get(usize::try_from(c - 1).ok()?..)
            .map(|_| c as usize - 1)
    };
    if ls == le {
        let l = line(ls)?;
        return l
            .get(col(l, cs)?..(ce as usize - 1).min(l.len()))
            .map(str::to_owned);
    }
    let mut out = String::new();
    let first = line(ls)?;
    out.push_str(first.get(col(first, cs)?..)?);
    for n in ls + 1..le {
        out.push(' ');
        out.push_str(line(n)?.trim());
    }
    let last = line(le)?;
    out.push(' ');
    out.push_str(last.get(..(ce as usize - 1).min(last.len()))?.trim_start());
    Some(out)
}

/// Reads the world's profile back per upstream function in scope.
pub fn report(world: &BuiltWorld, profile: &Path) -> Result<Vec<FuncMcdc>> {
    let raw = read_export(&export(&world.so, profile)?)?;
    let placed = place(raw);
    let root = world.tree.root.display().to_string();
    let mut out = vec![];
    for at in scope_functions(&world.tree)? {
        let path = format!("{root}/{}", at.file);
        let decisions: Vec<Decision> = placed
            .iter()
            .filter(|((f, l, _, _), _)| {
                crate::judge::coverage::same_file(f, &path) && (at.start..=at.end).contains(l)
            })
            .map(|(_, d)| d.clone())
            .collect();
        out.push(FuncMcdc { at, decisions });
    }
    Ok(out)
}

/// A decision's place upstream: (file, line, column where clang has it,
/// conditions).
type Place = (String, usize, i64, usize);

/// The decisions placed upstream. A decision compiled more than once (an
/// inline helper of a header, in every unit that calls it) is one
/// decision, a condition shown when any copy shows it.
fn place(raw: Vec<RawDecision>) -> BTreeMap<Place, Decision> {
    let mut texts: BTreeMap<String, (Vec<String>, LineMap)> = BTreeMap::new();
    let mut merged: BTreeMap<Place, Decision> = BTreeMap::new();
    for r in raw {
        let (lines, map) = texts.entry(r.file.clone()).or_insert_with(|| {
            let t = std::fs::read_to_string(&r.file).unwrap_or_default();
            (t.lines().map(str::to_owned).collect(), LineMap::of(&t))
        });
        let src: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (file, line) = map.place(&r.file, r.line as usize);
        let end = line + (r.end.max(r.line) - r.line) as usize;
        let text = src
            .get((r.line as usize).wrapping_sub(1))
            .map(|l| l.trim().to_owned())
            .unwrap_or_default();
        let conditions: Vec<Condition> = r
            .shown
            .iter()
            .enumerate()
            .map(|(i, shown)| Condition {
                text: r
                    .spans
                    .as_ref()
                    .and_then(|s| s.get(i))
                    .and_then(|s| span_text(&src, *s))
                    .unwrap_or_else(|| format!("C{}", i + 1)),
                shown: *shown,
            })
            .collect();
        let key = (file, line, r.col, conditions.len());
        match merged.get_mut(&key) {
            Some(d) => {
                for (c, n) in d.conditions.iter_mut().zip(&conditions) {
                    c.shown |= n.shown;
                }
            }
            None => {
                merged.insert(
                    key,
                    Decision {
                        line,
                        end,
                        text,
                        conditions,
                    },
                );
            }
        }
    }
    merged
}

/// The per-function table and the conditions not shown; `html`, the HTML
/// report's directory.
pub fn render(tree: &KernelTree, cov: &[FuncMcdc], html: Option<&Path>) -> String {
    let mut s = format!("MC/DC of upstream functions on {}\n", tree.version);
    let w = cov
        .iter()
        .map(|c| c.at.name.len())
        .max()
        .unwrap_or(8)
        .max(8);
    s.push_str(&format!(
        "{:w$}  {:>9}  {:>10}  file\n",
        "function", "decisions", "conditions"
    ));
    let (mut dc, mut dt, mut ch, mut ct) = (0, 0, 0, 0);
    for c in cov.iter().filter(|c| !c.decisions.is_empty()) {
        let complete = c.decisions.iter().filter(|d| d.complete()).count();
        let (h, t) = c.shown();
        dc += complete;
        dt += c.decisions.len();
        ch += h;
        ct += t;
        s.push_str(&format!(
            "{:w$}  {:>9}  {:>10}  {}:{}\n",
            c.at.name,
            format!("{complete}/{}", c.decisions.len()),
            format!("{h}/{t}"),
            c.at.file.rsplit('/').next().unwrap_or(&c.at.file),
            c.at.start
        ));
    }
    s.push_str(&format!(
        "{:w$}  {:>9}  {:>10}\n",
        "total",
        format!("{dc}/{dt}"),
        format!("{ch}/{ct}")
    ));
    let mut missed = vec![];
    for c in cov {
        let f = c.at.file.rsplit('/').next().unwrap_or(&c.at.file);
        for d in c.decisions.iter().filter(|d| !d.complete()) {
            let not: Vec<String> = d
                .conditions
                .iter()
                .filter(|c| !c.shown)
                .map(|c| format!("`{}`", c.text))
                .collect();
            missed.push(format!(
                "  {}: {f}:{} `{}`: not shown {}\n",
                c.at.name,
                d.line,
                d.text,
                not.join(", ")
            ));
        }
    }
    if !missed.is_empty() {
        s.push_str("\nconditions not shown (function: file:line `decision`):\n");
        s.extend(missed);
    }
    if let Some(html) = html {
        s.push_str(&format!(
            "\nHTML report: {}\n",
            html.join("index.html").display()
        ));
    }
    s
}

/// Draws the HTML report (`llvm-cov show -format=html -show-mcdc`) of the
/// upstream files in scope into `out`.
pub fn html(world: &BuiltWorld, profile: &Path, out: &Path) -> Result<()> {
    let tool = cworld::build::llvm_tool("llvm-cov");
    let mut sources: Vec<PathBuf> = scope_functions(&world.tree)?
        .iter()
        .map(|e| world.tree.path(&e.file))
        .collect();
    sources.push(world.dir.join("upstream_extract.c"));
    sources.sort();
    sources.dedup();
    let o = Command::new(&tool)
        .args(["show", "-format=html", "-show-mcdc", "-show-branches=count"])
        .arg("-instr-profile")
        .arg(profile)
        .arg("-output-dir")
        .arg(out)
        .arg(&world.so)
        .arg("-sources")
        .args(&sources)
        .output()
        .with_context(|| format!("running {}", tool.display()))?;
    if !o.status.success() {
        bail!(
            "{} show failed: {}",
            tool.display(),
            String::from_utf8_lossy(&o.stderr).trim_end()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit whose `f` comes from `orig.c` line 40 on (`#line`), with a
    /// decision in its own text and one in a macro's argument.
    const PROGRAM: &str = "\
#define unlikely(x) __builtin_expect(!!(x), 0)
#line 40 \"ORIG\"
int f(int a, int b, int c)
{
\tif ((a > 5 && b) ||
\t    c)
\t\treturn 1;
\tif (unlikely(a == 3 || b == 2))
\t\treturn 2;
\treturn 0;
}
int main(void)
{
\treturn (f(6, 1, 0) + f(1, 1, 0) + f(3, 0, 0)) & 0;
}
";

    /// Compiles PROGRAM with the measuring world's flags, runs it once and
    /// reads its decisions back; `None` without clang 19.
    fn measured() -> Option<BTreeMap<Place, Decision>> {
        if cworld::build::measuring_cc_major() < 19 {
            assert!(
                std::env::var_os("HFI1_REQUIRE_CLANG19").is_none(),
                "HFI1_REQUIRE_CLANG19 is set but there is no clang 19 (apt-get install clang-19)"
            );
            eprintln!("note: no clang 19; the MC/DC reading test measures nothing");
            return None;
        }
        let dir = std::env::temp_dir().join(format!("hfi1-mcdc-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let orig = dir.join("orig.c");
        std::fs::write(&orig, "").unwrap();
        let src = dir.join("t.c");
        std::fs::write(&src, PROGRAM.replace("ORIG", &orig.display().to_string())).unwrap();
        let bin = dir.join("t");
        let run = |c: &mut Command| {
            let o = c.output().unwrap();
            assert!(o.status.success(), "{c:?}: {o:?}");
        };
        run(Command::new(cworld::build::measuring_cc())
            .args(["-O0", "-fprofile-instr-generate", "-fcoverage-mapping"])
            .arg("-fcoverage-mcdc")
            .arg(&src)
            .arg("-o")
            .arg(&bin));
        run(Command::new(&bin).env("LLVM_PROFILE_FILE", dir.join("t.profraw")));
        let profile = dir.join("t.profdata");
        merge(&[dir.join("t.profraw")], &profile).unwrap();
        let raw = read_export(&export(&bin, &profile).unwrap()).unwrap();
        let placed = place(raw);
        let _ = std::fs::remove_dir_all(&dir);
        Some(
            placed
                .into_iter()
                .map(|((f, l, c, n), d)| {
                    (
                        (f.replace(&orig.display().to_string(), "orig.c"), l, c, n),
                        d,
                    )
                })
                .collect(),
        )
    }

    #[test]
    fn decisions_are_placed_upstream_with_their_conditions() {
        let Some(placed) = measured() else { return };
        type Seen<'a> = (&'a str, (usize, usize), &'a str, Vec<(&'a str, bool)>);
        let got: Vec<Seen> = placed
            .iter()
            .map(|((f, l, _, _), d)| {
                let conds = d
                    .conditions
                    .iter()
                    .map(|c| (c.text.as_str(), c.shown))
                    .collect();
                assert_eq!(*l, d.line);
                (f.as_str(), (d.line, d.end), d.text.as_str(), conds)
            })
            .collect();
        // f(6,1,0) takes the first decision true, f(1,1,0) and f(3,0,0)
        // false with `a > 5` alone changed: only it is shown. The macro's
        // decision ran false (1, 1) and true (3, 0): its first condition
        // alone flipped it.
        assert_eq!(
            got,
            vec![
                (
                    "orig.c",
                    (42, 43),
                    "if ((a > 5 && b) ||",
                    vec![("a > 5", true), ("b", false), ("c", false)]
                ),
                (
                    "orig.c",
                    (45, 45),
                    "if (unlikely(a == 3 || b == 2))",
                    vec![("C1", true), ("C2", false)]
                ),
            ]
        );
        assert!(!placed.values().next().unwrap().complete());
    }

    #[test]
    fn line_directives_map_lines_back() {
        let m = LineMap::of("a\n#line 10 \"x.c\"\nb\nc\n#line 3 \"y.c\"\nd\n");
        assert_eq!(m.place("u.c", 1), ("u.c".into(), 1));
        assert_eq!(m.place("u.c", 3), ("x.c".into(), 10));
        assert_eq!(m.place("u.c", 4), ("x.c".into(), 11));
        assert_eq!(m.place("u.c", 6), ("y.c".into(), 3));
    }

    #[test]
    fn span_text_reads_one_or_several_lines() {
        let src = ["\tif (a &&", "\t    b)"];
        assert_eq!(span_text(&src, (1, 6, 1, 7)).as_deref(), Some("a"));
        assert_eq!(span_text(&src, (1, 6, 2, 7)).as_deref(), Some("a && b"));
        assert_eq!(span_text(&src, (3, 1, 3, 2)), None);
    }
}
