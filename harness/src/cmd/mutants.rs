//! `cargo xtask mutants`: classic single-point mutants of the upstream
//! functions in scope, each judged as base world against mutant world (the
//! gate's C-against-C comparison) on the corpus and, optionally, generated
//! vectors. A mutant that changes no outcome *survived*: an effect the
//! harness does not observe, a branch no vector drives, or an equivalent
//! mutant.
//!
//! Mutants are made from the tree at run time (nothing of upstream is
//! committed) over the bodies the definition extractor finds in qp.c, with
//! these operators: a relational operator moved across its boundary or
//! negated (`<` → `<=`, `==` → `!=`, …), `&&` ↔ `||`, a logical `!`
//! dropped, an integer literal plus one, and a call or assignment statement
//! deleted. A mutant's id is stable across line shifts and series: the
//! function, the trimmed text of its line, the operator and which of the
//! line's sites it is.
//!
//! Each mutant is compiled as its own world; mutant schemata (all mutants
//! of a file in one world, switched at run time) are not built yet.

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::corpus::Vector;
use crate::cworld::{self, BuildOptions, BuiltWorld};
use crate::judge::compare;
use crate::kernel::{self, KernelTree};
use crate::model::types::Func;
use crate::report::{exit_code, Case, Report, Status, Suite};

const QP_C: &str = "drivers/infiniband/hw/hfi1/qp.c";

/// One mutant of a function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutant {
    /// The C function mutated.
    pub function: String,
    /// 1-based line in the file it was made from.
    pub line: usize,
    /// The trimmed text of that line (part of the id).
    pub site: String,
    /// `<= -> <`, `delete statement`, …
    pub operator: String,
    /// Which site of this operator on the line (0 first).
    pub nth: usize,
    /// Byte range in the file, and what replaces it.
    pub at: std::ops::Range<usize>,
    /// The text put in place of `at`.
    pub replacement: String,
}

impl Mutant {
    /// The stable id: function, line text, operator, occurrence.
    pub fn id(&self) -> String {
        format!(
            "{}: `{}` [{}#{}]",
            self.function, self.site, self.operator, self.nth
        )
    }

    /// Where it is and what it is, as `--list` shows it: `qp.c:LINE: ID`
    /// (qp.c with its path in the tree).
    pub fn location(&self) -> String {
        format!("{QP_C}:{}: {}", self.line, self.id())
    }
}

/// Byte ranges of `body` that are code (not comments, string or character
/// literals, or preprocessor lines).
fn code_mask(body: &str) -> Vec<bool> {
    let b = body.as_bytes();
    let mut code = vec![true; b.len()];
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if line_start && c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                code[i] = false;
                i += 1;
            }
            continue;
        }
        if !c.is_ascii_whitespace() {
            line_start = false;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                code[i] = false;
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                code[i] = false;
                i += 1;
            }
            for c in code.iter_mut().skip(i).take(2) {
                *c = false;
            }
            i += 2;
            continue;
        }
        if c == b'"' || c == b'\'' {
            code[i] = false;
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                if b[i] == b'\\' {
                    code[i] = false;
                    i += 1;
                }
                if i < b.len() {
                    code[i] = false;
                }
                i += 1;
            }
            if i < b.len() {
                code[i] = false;
            }
            i += 1;
            continue;
        }
        i += 1;
    }
    code
}

/// The mutants of one function's definition, `def` starting at byte
/// `offset` of a file whose line 1 is `def_line - (lines before def)`.
fn mutants_of(function: &str, def: &str, offset: usize, def_line: usize) -> Vec<Mutant> {
    let Some(open) = def.find('{') else {
        return vec![];
    };
    let mut sites = Sites {
        function,
        def,
        offset,
        def_line,
        code: code_mask(def),
        out: vec![],
    };
    sites.operators(open + 1);
    sites.statements(open + 1);
    sites.out
}

/// The mutants of one definition, as they are found.
struct Sites<'a> {
    function: &'a str,
    def: &'a str,
    offset: usize,
    def_line: usize,
    /// Which bytes of `def` are code ([`code_mask`]).
    code: Vec<bool>,
    out: Vec<Mutant>,
}

impl Sites<'_> {
    /// The line of byte `i` of the definition, in the file.
    fn line_of(&self, i: usize) -> usize {
        self.def_line + self.def[..i].bytes().filter(|c| *c == b'\n').count()
    }

    /// The trimmed text of the line holding byte `i`.
    fn line_text(&self, i: usize) -> String {
        let def = self.def;
        let s = def[..i].rfind('\n').map_or(0, |p| p + 1);
        let e = def[i..].find('\n').map_or(def.len(), |p| i + p);
        def[s..e].trim().to_owned()
    }

    /// The mutant replacing `len` bytes at `i` by `rep`.
    fn push(&mut self, i: usize, len: usize, op: &str, rep: &str) {
        let site = self.line_text(i);
        let line = self.line_of(i);
        let nth = self
            .out
            .iter()
            .filter(|m| m.site == site && m.operator == op && m.line == line)
            .count();
        self.out.push(Mutant {
            function: self.function.to_owned(),
            line,
            site,
            operator: op.to_owned(),
            nth,
            at: self.offset + i..self.offset + i + len,
            replacement: rep.to_owned(),
        });
    }

    /// Relational and logical operators, logical `!`s and integer
    /// literals in the code from byte `from` on.
    fn operators(&mut self, from: usize) {
        let def = self.def;
        let b = def.as_bytes();
        let mut i = from;
        while i < b.len() {
            if !self.code[i] {
                i += 1;
                continue;
            }
            let two = def.get(i..i + 2).unwrap_or("");
            let prev = if i > 0 { b[i - 1] } else { b' ' };
            let next2 = b.get(i + 2).copied().unwrap_or(b' ');
            let swap = match two {
                "<=" if prev != b'<' => Some(("<= -> <", "<")),
                ">=" if prev != b'>' => Some((">= -> >", ">")),
                "==" => Some(("== -> !=", "!=")),
                "!=" => Some(("!= -> ==", "==")),
                "&&" => Some(("&& -> ||", "||")),
                "||" => Some(("|| -> &&", "&&")),
                _ => None,
            };
            if let Some((op, rep)) = swap {
                self.push(i, 2, op, rep);
                i += 2;
                continue;
            }
            if matches!(two, "<<" | ">>" | "->") {
                i += 2;
                continue;
            }
            let c = b[i];
            if c == b'<' && next2 != b'=' && b.get(i + 1) != Some(&b'=') && prev != b'<' {
                self.push(i, 1, "< -> <=", "<=");
            } else if c == b'>' && b.get(i + 1) != Some(&b'=') && prev != b'-' && prev != b'>' {
                self.push(i, 1, "> -> >=", ">=");
            } else if c == b'!' && b.get(i + 1) != Some(&b'=') {
                self.push(i, 1, "drop !", "");
            } else if c.is_ascii_digit() && !(prev.is_ascii_alphanumeric() || prev == b'_') {
                i = self.literal(i);
                continue;
            }
            i += 1;
        }
    }

    /// The integer literal starting at byte `i`, plus one; where it ends.
    fn literal(&mut self, i: usize) -> usize {
        let def = self.def;
        let b = def.as_bytes();
        let mut e = i;
        while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_') {
            e += 1;
        }
        let lit = &def[i..e];
        let value = if let Some(h) = lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X")) {
            u64::from_str_radix(h.trim_end_matches(['u', 'U', 'l', 'L']), 16).ok()
        } else {
            lit.trim_end_matches(['u', 'U', 'l', 'L'])
                .parse::<u64>()
                .ok()
        };
        if let Some(v) = value {
            self.push(i, e - i, "literal + 1", &(v + 1).to_string());
        }
        e
    }

    /// Statements from byte `from` on: a call or an assignment on a line
    /// of its own, deleted.
    fn statements(&mut self, from: usize) {
        let mut pos = from;
        for line in self.def[from..].split_inclusive('\n') {
            let t = line.trim();
            let start = pos + (line.len() - line.trim_start().len());
            pos += line.len();
            let first_code = self.code.get(start).copied().unwrap_or(false);
            if first_code && deletable(t) {
                self.push(start, t.len(), "delete statement", "");
            }
        }
    }
}

/// Whether the trimmed line `t` is a statement a mutant may delete: a call
/// or an assignment, not a declaration, a return or a jump.
fn deletable(t: &str) -> bool {
    t.ends_with(';')
        && !t.starts_with("return")
        && !t.starts_with("struct ")
        && !t.starts_with("unsigned ")
        && !t.starts_with("int ")
        && !t.starts_with("u32 ")
        && !t.starts_with("u8 ")
        && !t.starts_with("bool ")
        && !t.starts_with("break")
        && !t.starts_with("continue")
        && !t.starts_with("goto")
        && t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '*')
        && (t.contains('(') || t.contains('='))
        && t.matches('(').count() == t.matches(')').count()
}

/// Every mutant of the functions named (C names) that `qp.c` of `tree`
/// defines, in file order.
pub fn generate(tree: &KernelTree, functions: &[String]) -> Result<Vec<Mutant>> {
    let path = tree.path(QP_C);
    let src = tree.read_to_string(&path)?;
    let defs = crate::kernel::cscan::definitions(&src)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut out = vec![];
    for d in defs {
        if !functions.contains(&d.name) || !d.text.contains('{') {
            continue;
        }
        let Some(offset) = src.find(&d.text) else {
            continue;
        };
        out.extend(mutants_of(&d.name, &d.text, offset, d.line));
    }
    Ok(out)
}

/// The functions named (C names), or every function in scope when none is.
fn named_or_all(functions: &[String]) -> Vec<String> {
    if functions.is_empty() {
        Func::ALL.iter().map(|f| f.name().to_owned()).collect()
    } else {
        functions.to_vec()
    }
}

/// Every mutant of the functions named ([`generate`]), every function in
/// scope when none is: what `--list` lists, judging none.
pub fn list(tree: &KernelTree, functions: &[String]) -> Result<Vec<Mutant>> {
    generate(tree, &named_or_all(functions))
}

/// What became of a mutant.
#[derive(Debug, Clone)]
pub enum Fate {
    /// Some vector's outcome changed: the harness sees it.
    Killed {
        /// How many calls' outcomes changed.
        calls: u64,
    },
    /// Every outcome the same.
    Survived,
    /// It does not compile (or cannot be judged): not counted.
    Stillborn(String),
}

/// Options of a mutants run.
#[derive(Debug, Clone)]
pub struct Options {
    /// C names of the functions to mutate (default: every function in
    /// scope that qp.c defines).
    pub functions: Vec<String>,
    /// Judge only this many mutants, picked with `seed` (0: all).
    pub sample: usize,
    /// The seed of the sample and of the generated vectors.
    pub seed: u64,
    /// Generated vectors per function, besides the corpus.
    pub random: u64,
    /// Build base and mutants with ASan and UBSan (objects past a world's
    /// declared counts are poisoned: an off-by-one loop bound is killed).
    pub sanitize: bool,
}

impl Options {
    /// Whether the run judges every mutant of the tree (no sample, no
    /// function named): only then is a listed mutant the tree does not
    /// have a problem.
    pub fn every_mutant(&self) -> bool {
        self.sample == 0 && self.functions.is_empty()
    }
}

/// Makes, builds and judges the mutants.
pub fn run(
    tree: &KernelTree,
    vectors: &[Vector],
    opts: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<(Mutant, Fate)>> {
    let mut all = list(tree, &opts.functions)?;
    if opts.sample > 0 && opts.sample < all.len() {
        let mut rng = crate::generate::SplitMix64::new(opts.seed);
        let mut picked = vec![];
        while picked.len() < opts.sample {
            let k = (rng.next_u64() % all.len() as u64) as usize;
            picked.push(all.swap_remove(k));
        }
        picked.sort_by_key(|m| m.at.start);
        all = picked;
    }
    let build = BuildOptions {
        sanitize: opts.sanitize,
        ..Default::default()
    };
    let base = cworld::build(tree, &build)?;
    let dir = std::env::temp_dir().join(format!("hfi1-mutant-tree-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    kernel::copy_tree(&tree.root, &dir).context("copying the tree")?;
    let src = tree.read_to_string(&tree.path(QP_C))?;
    let funcs: Vec<Func> = Func::ALL.to_vec();
    let mut out = vec![];
    let total = all.len();
    for (k, m) in all.into_iter().enumerate() {
        progress(&format!("[{}/{total}] {}", k + 1, m.id()));
        let mut text = src.clone();
        text.replace_range(m.at.clone(), &m.replacement);
        std::fs::write(dir.join(QP_C), &text)?;
        let fate = match judge(&base, &dir, vectors, &funcs, opts, &build) {
            Ok(0) => Fate::Survived,
            Ok(n) => Fate::Killed { calls: n },
            Err(e) if cworld::HarnessFault::in_chain(&e) => return Err(e),
            Err(e) => Fate::Stillborn(format!("{e:#}").lines().next().unwrap_or("").to_owned()),
        };
        out.push((m, fate));
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Mutant worlds are one-offs: keep the cache under its cap.
    cworld::build::evict(cworld::build::worlds_cap());
    Ok(out)
}

fn judge(
    base: &BuiltWorld,
    dir: &Path,
    vectors: &[Vector],
    funcs: &[Func],
    opts: &Options,
    build: &BuildOptions,
) -> Result<u64> {
    let tree = KernelTree::open(dir)?;
    let world = cworld::build(&tree, build)?;
    let c = compare::count_differences(
        base,
        &world,
        vectors,
        funcs,
        (opts.random, opts.seed),
        compare::Selection::Reached,
    )?;
    Ok(c.per_func.iter().map(|p| p.2).sum())
}

/// The report: a case per function (its mutants as vectors, the survivors
/// the manifest does not accept as failures, each named with file:line
/// and the mutation; accepted ones in the detail with their reason).
pub fn report(kernel: &str, results: &[(Mutant, Fate)], listed: &[Listed]) -> Report {
    let mut names: Vec<&str> = vec![];
    for (m, _) in results {
        if !names.contains(&m.function.as_str()) {
            names.push(&m.function);
        }
    }
    let cases = names
        .iter()
        .map(|f| {
            let mine: Vec<&(Mutant, Fate)> =
                results.iter().filter(|(m, _)| m.function == *f).collect();
            let judged = mine
                .iter()
                .filter(|(_, x)| !matches!(x, Fate::Stillborn(_)))
                .count();
            let survivors: Vec<&Mutant> = mine
                .iter()
                .filter(|(_, x)| matches!(x, Fate::Survived))
                .map(|(m, _)| m)
                .collect();
            let accepted = |m: &Mutant| listed.iter().find(|l| l.id == m.id());
            let detail = (!survivors.is_empty()).then(|| {
                survivors
                    .iter()
                    .map(|m| match accepted(m) {
                        Some(l) => format!(
                            "{QP_C}:{}: survived, accepted ({}): {}\n",
                            m.line,
                            l.reason,
                            m.id()
                        ),
                        None => format!("{QP_C}:{}: survived: {}\n", m.line, m.id()),
                    })
                    .collect::<String>()
            });
            let unaccepted = survivors.iter().filter(|m| accepted(m).is_none()).count();
            Case {
                name: format!("mutants::{f}"),
                function: f.to_string(),
                file: Some(QP_C.to_owned()),
                status: if unaccepted == 0 {
                    Status::Pass
                } else {
                    Status::Fail
                },
                message: Some(format!(
                    "{} of {judged} mutants killed, {} accepted ({} did not compile)",
                    judged - survivors.len(),
                    survivors.len() - unaccepted,
                    mine.len() - judged
                )),
                detail,
                vectors: judged as u64,
                failed: unaccepted as u64,
                ..Default::default()
            }
        })
        .collect();
    Report::new(
        "mutants",
        vec![Suite {
            name: kernel.to_owned(),
            kernel: kernel.to_owned(),
            cases,
            ..Default::default()
        }],
    )
}

/// A surviving mutant the project accepts, from `vectors/mutants.toml`:
/// equivalent to upstream, or unreachable from a single-threaded world,
/// with the reason a reviewer accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Line of the entry in the manifest, for messages.
    pub at: usize,
    /// The mutant's stable id ([`Mutant::id`]).
    pub id: String,
    /// Why it is accepted.
    pub reason: String,
    /// `--sanitize` kills it (the entry does not apply there).
    pub sanitize_kills: bool,
}

/// The committed manifest of accepted survivors.
pub fn manifest_path() -> std::path::PathBuf {
    crate::corpus::corpus_dir().join("mutants.toml")
}

/// Reads the committed manifest ([`manifest_path`], [`parse_manifest`]).
pub fn read_manifest() -> Result<Vec<Listed>> {
    let path = manifest_path();
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    parse_manifest(&path, &text)
}

/// Reads the manifest (`[[survivor]]` tables: `id`, `reason`, optionally
/// `sanitize_kills = true`); errors name the manifest's line.
pub fn parse_manifest(path: &Path, text: &str) -> Result<Vec<Listed>> {
    let line = |span: Option<std::ops::Range<usize>>| {
        span.map_or(1, |s| {
            text[..s.start.min(text.len())].matches('\n').count() + 1
        })
    };
    let doc: toml_edit::ImDocument<&str> = toml_edit::ImDocument::parse(text)
        .map_err(|e| anyhow::anyhow!("{}:{}: {}", path.display(), line(e.span()), e.message()))?;
    let mut out = vec![];
    let Some(item) = doc.get("survivor") else {
        return Ok(out);
    };
    let tables = item.as_array_of_tables().ok_or_else(|| {
        anyhow::anyhow!(
            "{}:{}: expected [[survivor]] tables",
            path.display(),
            line(item.span())
        )
    })?;
    for t in tables.iter() {
        let at = line(t.span());
        for (k, _) in t.iter() {
            if !["id", "reason", "sanitize_kills"].contains(&k) {
                bail!(
                    "{}:{at}: unknown key {k:?} (expected id, reason, sanitize_kills)",
                    path.display()
                );
            }
        }
        let text_of = |k: &str| -> Result<String> {
            t.get(k)
                .and_then(|v| v.as_str())
                .filter(|s| !s.trim().is_empty())
                .map(str::to_owned)
                .ok_or_else(|| {
                    anyhow::anyhow!("{}:{at}: `{k}` must be a non-empty string", path.display())
                })
        };
        out.push(Listed {
            at,
            id: text_of("id")?,
            reason: text_of("reason")?,
            sanitize_kills: match t.get("sanitize_kills") {
                None => false,
                Some(v) => v.as_bool().ok_or_else(|| {
                    anyhow::anyhow!(
                        "{}:{at}: `sanitize_kills` must be true or false",
                        path.display()
                    )
                })?,
            },
        });
    }
    Ok(out)
}

/// Where the manifest and a run part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A mutant survived that the manifest does not list.
    Unlisted {
        /// The mutant's line in qp.c.
        line: usize,
        /// The mutant's id.
        id: String,
    },
    /// A listed mutant is killed now.
    KilledNow {
        /// The entry's line in the manifest.
        at: usize,
        /// The mutant's id.
        id: String,
    },
    /// In a run of every mutant: a listed mutant the tree does not have.
    Gone {
        /// The entry's line in the manifest.
        at: usize,
        /// The mutant's id.
        id: String,
    },
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Unlisted { line, id } => write!(
                f,
                "{QP_C}:{line}: survived and not listed in vectors/mutants.toml: {id} \
                 (add a vector that kills it, or an entry saying why none can)"
            ),
            Problem::KilledNow { at, id } => write!(
                f,
                "vectors/mutants.toml:{at}: {id} is killed now: remove the entry"
            ),
            Problem::Gone { at, id } => write!(
                f,
                "vectors/mutants.toml:{at}: no mutant {id} in this tree: remove the entry \
                 (or the site changed)"
            ),
        }
    }
}

/// Where the manifest and a run part, either way: a survivor it does not
/// list, or an entry whose mutant was killed (or, in a run of every
/// mutant, does not exist). Entries that do not apply under `--sanitize`
/// are left out there.
pub fn check_manifest(
    listed: &[Listed],
    results: &[(Mutant, Fate)],
    every_mutant: bool,
    sanitize: bool,
) -> Vec<Problem> {
    let applies: Vec<&Listed> = listed
        .iter()
        .filter(|l| !(sanitize && l.sanitize_kills))
        .collect();
    let mut problems = vec![];
    for (m, f) in results {
        let id = m.id();
        let entry = applies.iter().find(|l| l.id == id);
        match (f, entry) {
            (Fate::Survived, None) => problems.push(Problem::Unlisted { line: m.line, id }),
            (Fate::Killed { .. }, Some(l)) => problems.push(Problem::KilledNow { at: l.at, id }),
            _ => {}
        }
    }
    if every_mutant {
        for l in &applies {
            if !results.iter().any(|(m, _)| m.id() == l.id) {
                problems.push(Problem::Gone {
                    at: l.at,
                    id: l.id.clone(),
                });
            }
        }
    }
    problems
}

/// A run's counts, and where it parts from the manifest.
#[derive(Debug, Clone)]
pub struct Tally {
    /// Mutants that compiled and were judged.
    pub judged: usize,
    /// Judged mutants some vector kills.
    pub killed: usize,
    /// Survivors the manifest accepts (as it applies to the run).
    pub accepted: usize,
    /// Mutants that did not compile (or could not be judged).
    pub stillborn: usize,
    /// Every disagreement with the manifest ([`check_manifest`]).
    pub problems: Vec<Problem>,
}

/// Counts a run's mutants and checks them against the manifest.
pub fn tally(listed: &[Listed], results: &[(Mutant, Fate)], opts: &Options) -> Tally {
    let count = |f: fn(&Fate) -> bool| results.iter().filter(|(_, x)| f(x)).count();
    let judged = count(|f| !matches!(f, Fate::Stillborn(_)));
    let killed = count(|f| matches!(f, Fate::Killed { .. }));
    let problems = check_manifest(listed, results, opts.every_mutant(), opts.sanitize);
    let unlisted = problems
        .iter()
        .filter(|p| matches!(p, Problem::Unlisted { .. }))
        .count();
    Tally {
        judged,
        killed,
        accepted: judged - killed - unlisted,
        stillborn: results.len() - judged,
        problems,
    }
}

impl Tally {
    /// One line: the mutation score, and how long the run took.
    pub fn summary(&self, seconds: f64) -> String {
        let (killed, accepted) = (self.killed, self.accepted);
        let judged = self.judged.max(1) as f64;
        format!(
            "{killed} of {} mutants killed ({:.1}%), {accepted} accepted \
             ({:.1}% killed or accepted), {} did not compile, in {seconds:.1}s",
            self.judged,
            100.0 * killed as f64 / judged,
            100.0 * (killed + accepted) as f64 / judged,
            self.stillborn,
        )
    }

    /// [`exit_code::SUCCESS`] when the run and the manifest agree,
    /// [`exit_code::FINDING`] when they part.
    pub fn exit_code(&self) -> u8 {
        if self.problems.is_empty() {
            exit_code::SUCCESS
        } else {
            exit_code::FINDING
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A made-up function in kernel style (not upstream code).
    const SRC: &str = "int pick(int a, int b)\n{\n\t/* a < b in a comment */\n\tif (a <= b && !b)\n\t\treturn a->x;\n\tcount(a, \"<=\");\n\tb = 16;\n\treturn 0;\n}\n";

    #[test]
    fn operators_outside_comments_and_strings() {
        let ms = mutants_of("pick", SRC, 0, 1);
        let ops: Vec<(usize, &str)> = ms.iter().map(|m| (m.line, m.operator.as_str())).collect();
        assert_eq!(
            ops,
            [
                (4, "<= -> <"),
                (4, "&& -> ||"),
                (4, "drop !"),
                (7, "literal + 1"),
                (8, "literal + 1"),
                (6, "delete statement"),
                (7, "delete statement"),
            ]
        );
        // Applying one gives the mutated text.
        let m = &ms[0];
        let mut t = SRC.to_owned();
        t.replace_range(m.at.clone(), &m.replacement);
        assert!(t.contains("if (a < b && !b)"), "{t}");
        assert_eq!(m.id(), "pick: `if (a <= b && !b)` [<= -> <#0]");
    }

    fn mutant(site: &str, op: &str) -> Mutant {
        Mutant {
            function: "pick".into(),
            line: 4,
            site: site.into(),
            operator: op.into(),
            nth: 0,
            at: 0..0,
            replacement: String::new(),
        }
    }

    /// The manifest and a run are compared both ways: an unlisted survivor
    /// and a listed mutant that is killed are both errors; an entry whose
    /// mutant is not in the tree is one only when every mutant ran; under
    /// --sanitize, `sanitize_kills` entries do not apply.
    #[test]
    fn the_manifest_and_the_run_part_either_way() {
        let text = "[[survivor]]\nid = \"pick: `a <= b` [<= -> <#0]\"\nreason = \"equivalent\"\n\n\
                    [[survivor]]\nid = \"pick: `gone` [drop !#0]\"\nreason = \"old\"\nsanitize_kills = true\n";
        let listed = parse_manifest(Path::new("m.toml"), text).expect("parses");
        assert_eq!(listed.len(), 2);
        assert_eq!((listed[1].at, listed[1].sanitize_kills), (5, true));
        let survived = vec![(mutant("a <= b", "<= -> <"), Fate::Survived)];
        assert!(check_manifest(&listed, &survived, false, false).is_empty());
        let p = check_manifest(&listed, &survived, true, false);
        assert!(
            matches!(&p[..], [Problem::Gone { at: 5, .. }])
                && p[0].to_string().contains(":5: no mutant"),
            "{p:?}"
        );
        assert!(check_manifest(&listed, &survived, true, true).is_empty());
        let killed = vec![(mutant("a <= b", "<= -> <"), Fate::Killed { calls: 3 })];
        let p = check_manifest(&listed, &killed, false, false);
        assert!(
            matches!(&p[..], [Problem::KilledNow { at: 1, .. }])
                && p[0].to_string().contains("is killed now"),
            "{p:?}"
        );
        let other = vec![(mutant("a && b", "&& -> ||"), Fate::Survived)];
        let p = check_manifest(&listed, &other, false, false);
        assert!(
            matches!(&p[..], [Problem::Unlisted { line: 4, .. }])
                && p[0].to_string().contains("not listed"),
            "{p:?}"
        );
        // Malformed entries name their line.
        let e = parse_manifest(Path::new("m.toml"), "[[survivor]]\nid = \"x\"\n")
            .expect_err("no reason");
        assert!(e.to_string().contains("m.toml:1: `reason`"), "{e}");
        let e = parse_manifest(
            Path::new("m.toml"),
            "[[survivor]]\nid = \"x\"\nreason = \"r\"\nwhy = 1\n",
        )
        .expect_err("unknown key");
        assert!(e.to_string().contains("unknown key \"why\""), "{e}");
    }

    /// The tally counts the fates, the survivors the manifest accepts, and
    /// fails the run on any disagreement with it.
    #[test]
    fn the_tally_counts_fates_and_decides_the_exit_code() {
        let text = "[[survivor]]\nid = \"pick: `a <= b` [<= -> <#0]\"\nreason = \"equivalent\"\n";
        let listed = parse_manifest(Path::new("m.toml"), text).expect("parses");
        let opts = Options {
            functions: vec!["pick".into()],
            sample: 0,
            seed: 1,
            random: 0,
            sanitize: false,
        };
        let mut results = vec![
            (mutant("a <= b", "<= -> <"), Fate::Survived),
            (mutant("a && b", "&& -> ||"), Fate::Killed { calls: 2 }),
            (mutant("x", "drop !"), Fate::Stillborn("error".into())),
        ];
        let t = tally(&listed, &results, &opts);
        assert_eq!((t.judged, t.killed, t.accepted, t.stillborn), (2, 1, 1, 1));
        assert_eq!(t.exit_code(), exit_code::SUCCESS);
        assert_eq!(
            t.summary(2.0),
            "1 of 2 mutants killed (50.0%), 1 accepted (100.0% killed or accepted), \
             1 did not compile, in 2.0s"
        );
        results.push((mutant("b", "literal + 1"), Fate::Survived));
        let t = tally(&listed, &results, &opts);
        assert_eq!((t.judged, t.killed, t.accepted), (3, 1, 1));
        assert!(matches!(&t.problems[..], [Problem::Unlisted { .. }]));
        assert_eq!(t.exit_code(), exit_code::FINDING);
    }

    /// The committed manifest reads.
    #[test]
    fn the_committed_manifest_reads() {
        let path = manifest_path();
        let text = std::fs::read_to_string(&path).expect("vectors/mutants.toml");
        let listed = parse_manifest(&path, &text).expect("parses");
        assert!(!listed.is_empty());
    }
}
