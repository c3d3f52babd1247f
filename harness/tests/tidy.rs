//! The house rules a newcomer relies on, checked: the docs name only paths
//! that exist and counts that are current, no source file or function grows
//! past what a reader can hold, and the README stays a ten-minute read.

use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::Visit;

/// The longest a Rust source file may be (generated bindings aside).
const MAX_FILE_LINES: usize = 900;
/// The longest a function may be.
const MAX_FN_LINES: usize = 100;
/// The functions allowed to be longer (`file:function`), each because
/// splitting it would hide its logic, said in a comment above it. At most
/// three; none today.
const LONG_FNS_ALLOWED: &[&str] = &[];
const MAX_README_LINES: usize = 200;
const MAX_XTASK_MAIN_LINES: usize = 200;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The project's Rust sources (not `target/`, not bindgen's output).
fn rust_sources() -> Vec<PathBuf> {
    let mut out = vec![];
    for dir in [
        "harness/src",
        "harness/tests",
        "harness/examples",
        "harness/model/src",
        "xtask/src",
        "fuzz/fuzz_targets",
    ] {
        walk(&root().join(dir), &mut out);
    }
    out.retain(|p| {
        p.extension().is_some_and(|e| e == "rs")
            && !p.ends_with("ffi/bindings.rs")
            && !p.ends_with("ffi/types.rs")
    });
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    // A directory that is gone must fail the check, not empty it.
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e} (renamed? update tidy.rs)", dir.display()));
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
}

fn shown(p: &Path) -> String {
    let root = std::fs::canonicalize(root()).expect("the project root");
    let p = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    p.strip_prefix(&root).unwrap_or(&p).display().to_string()
}

#[test]
fn no_source_file_is_too_long() {
    let long: Vec<String> = rust_sources()
        .iter()
        .filter_map(|p| {
            let n = read(p).lines().count();
            (n > MAX_FILE_LINES).then(|| format!("{}: {n} lines", shown(p)))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these files by job (at most {MAX_FILE_LINES} lines):\n{}",
        long.join("\n")
    );
    let main = read(&root().join("xtask/src/main.rs")).lines().count();
    assert!(
        main <= MAX_XTASK_MAIN_LINES,
        "xtask/src/main.rs has {main} lines: it parses and dispatches; a command's code goes in its own file"
    );
    let readme = read(&root().join("README.md")).lines().count();
    assert!(
        readme <= MAX_README_LINES,
        "README.md has {readme} lines: details go in docs/"
    );
}

/// Every function with its length in lines, from `fn` to its closing brace.
struct Lengths<'a> {
    file: &'a str,
    out: Vec<(usize, String)>,
}

impl Lengths<'_> {
    fn record(&mut self, name: &syn::Ident, from: proc_macro2::Span, to: proc_macro2::Span) {
        let lines = to.end().line + 1 - from.start().line;
        self.out
            .push((lines, format!("{}:{} {name}", self.file, from.start().line)));
    }
}

impl<'ast> Visit<'ast> for Lengths<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.record(&f.sig.ident, f.sig.fn_token.span, f.block.span());
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.record(&f.sig.ident, f.sig.fn_token.span, f.block.span());
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(b) = &f.default {
            self.record(&f.sig.ident, f.sig.fn_token.span, b.span());
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

fn function_lengths(file: &str, text: &str) -> Vec<(usize, String)> {
    let ast = syn::parse_file(text).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut v = Lengths { file, out: vec![] };
    v.visit_file(&ast);
    v.out
}

#[test]
fn few_functions_are_long() {
    let mut long = vec![];
    for p in rust_sources() {
        let file = shown(&p);
        long.extend(
            function_lengths(&file, &read(&p))
                .into_iter()
                .filter(|(n, _)| *n > MAX_FN_LINES),
        );
    }
    long.sort();
    assert!(LONG_FNS_ALLOWED.len() <= 3, "at most three long functions");
    let list: Vec<String> = long
        .iter()
        .filter(|(_, f)| !LONG_FNS_ALLOWED.iter().any(|a| allowed(f, a)))
        .map(|(n, f)| format!("{f}: {n} lines"))
        .collect();
    assert!(
        list.is_empty(),
        "split these functions (at most {MAX_FN_LINES} lines), or add one to LONG_FNS_ALLOWED saying why:\n{}",
        list.join("\n")
    );
}

/// Whether `found` (`file:line name`) is the allowed `file:name`.
fn allowed(found: &str, allowed: &str) -> bool {
    let (file, name) = allowed.split_once(':').unwrap_or((allowed, ""));
    found.starts_with(&format!("{file}:")) && found.ends_with(&format!(" {name}"))
}

#[test]
fn function_lengths_count_from_fn_to_the_closing_brace() {
    assert!(allowed("a/b.rs:10 main", "a/b.rs:main"));
    assert!(!allowed("a/b.rs:10 mainly", "a/b.rs:main"));
    let text = "/// doc\n#[inline]\nfn a() {\n    let x = 1;\n}\nimpl S {\n    fn b(&self) {}\n}\n";
    let got = function_lengths("t.rs", text);
    assert_eq!(
        got,
        [(3, "t.rs:3 a".to_owned()), (1, "t.rs:7 b".to_owned())]
    );
}

/// The docs a newcomer reads, and what their paths are relative to.
fn docs() -> Vec<PathBuf> {
    let mut out = vec![
        root().join("README.md"),
        root().join("ARCHITECTURE.md"),
        root().join("CONTRIBUTING.md"),
    ];
    walk(&root().join("docs"), &mut out);
    out.retain(|p| p.extension().is_some_and(|e| e == "md"));
    out
}

/// The top-level directories a path named in the docs starts with.
const TOP: &[&str] = &[
    "harness/",
    "c-shim/",
    "vectors/",
    "snapshots/",
    "xtask/",
    "ci/",
    "fuzz/",
    "docs/",
    ".ci/",
];

/// The paths a doc names: backticked words that start with a top-level
/// directory (or, under an ARCHITECTURE.md section headed by a directory,
/// file names in it), and the targets of relative links.
fn named_paths(text: &str) -> Vec<(usize, String, Option<String>)> {
    let mut out = vec![];
    let mut section: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(h) = line.strip_prefix("### `") {
            section = h
                .split('`')
                .next()
                .filter(|s| s.ends_with('/'))
                .map(str::to_owned);
        } else if line.starts_with("## ") || line.starts_with("### ") {
            section = None;
        }
        for (j, part) in line.split('`').enumerate() {
            if j % 2 == 0 || part.contains(' ') {
                continue;
            }
            let word = part.trim_end_matches([',', '.']);
            if TOP.iter().any(|t| word.starts_with(t)) {
                out.push((i + 1, word.to_owned(), None));
            } else if section.is_some()
                && [".rs", ".toml", ".h", ".c", ".sh"]
                    .iter()
                    .any(|e| word.ends_with(e))
                && !word.contains('/')
            {
                out.push((i + 1, word.to_owned(), section.clone()));
            }
        }
        let mut rest = line;
        while let Some(k) = rest.find("](") {
            rest = &rest[k + 2..];
            let target = rest.split([')', '#']).next().unwrap_or("");
            if !target.is_empty() && !target.contains("://") {
                out.push((i + 1, format!("./{target}"), None));
            }
        }
    }
    out
}

/// A path segment standing for any value: `SERIES`, `FAMILY.toml`, `*.rs`.
fn is_placeholder(segment: &str) -> bool {
    const WORDS: &[&str] = &[
        "SERIES", "FAMILY", "VERSION", "NAME", "HASH", "FUNCTION", "KERNEL", "PATCH", "DIR",
    ];
    let stem = segment.split('.').next().unwrap_or("");
    segment.contains(['*', '…', '{']) || WORDS.contains(&stem)
}

fn exists_under(dir: &Path, name: &str) -> bool {
    let mut all = vec![];
    walk(dir, &mut all);
    all.iter().any(|p| p.file_name().is_some_and(|n| n == name))
}

#[test]
fn docs_name_only_paths_that_exist() {
    let mut missing = vec![];
    for doc in docs() {
        let text = read(&doc);
        let here = doc.parent().expect("a doc's directory").to_owned();
        for (line, path, section) in named_paths(&text) {
            let ok = match (&section, path.strip_prefix("./")) {
                (_, Some(rel)) => here.join(rel).exists(),
                (Some(dir), None) => exists_under(&root().join(dir), &path),
                (None, None) => {
                    // `snapshots/SERIES/FAMILY.snap` names a pattern: what
                    // comes before its first placeholder must exist.
                    let known: Vec<&str> = path
                        .trim_end_matches('/')
                        .split('/')
                        .take_while(|s| !is_placeholder(s))
                        .collect();
                    root().join(known.join("/")).exists()
                }
            };
            if !ok {
                missing.push(format!("{}:{line}: `{path}` does not exist", shown(&doc)));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "fix these docs:\n{}",
        missing.join("\n")
    );
}

#[test]
fn docs_give_current_counts() {
    // The ABI version ARCHITECTURE.md gives is shim.h's.
    let arch = read(&root().join("ARCHITECTURE.md"));
    let shim = read(&root().join("c-shim/shim.h"));
    let abi = shim
        .lines()
        .find_map(|l| l.strip_prefix("#define SHIM_ABI_VERSION "))
        .expect("shim.h defines SHIM_ABI_VERSION")
        .trim();
    let said: Vec<&str> = arch
        .split("ABI version ")
        .skip(1)
        .map(|s| s.split(|c: char| !c.is_ascii_digit()).next().unwrap_or(""))
        .collect();
    assert!(
        !said.is_empty(),
        "ARCHITECTURE.md no longer gives the ABI version"
    );
    for v in said {
        assert_eq!(
            v, abi,
            "ARCHITECTURE.md says ABI version {v}, c-shim/shim.h {abi}"
        );
    }
    // The series the README lists are the pinned ones.
    let lock = read(&root().join("snapshots/kernels.lock"));
    let pinned: Vec<&str> = lock
        .lines()
        .filter_map(|l| l.strip_prefix("[series.\"")?.strip_suffix("\"]"))
        .collect();
    let readme = read(&root().join("README.md"));
    let listed = readme
        .lines()
        .find_map(|l| l.split("every pinned series: ").nth(1))
        .expect("the README lists the pinned series");
    let listed: Vec<&str> = listed.split(", ").map(str::trim).collect();
    assert_eq!(listed, pinned, "README.md's list of pinned series is stale");
}

#[test]
fn the_path_reader_sees_paths_links_and_section_files() {
    let text = "see `harness/src/x.rs` and [a](docs/a.md)\n### `harness/src/cworld/`\n`build.rs` builds; `a b.rs` is prose\n## Next\n`other.rs`\n";
    let got: Vec<String> = named_paths(text)
        .into_iter()
        .map(|(l, p, s)| format!("{l} {p} {s:?}"))
        .collect();
    assert_eq!(
        got,
        [
            "1 harness/src/x.rs None",
            "1 ./docs/a.md None",
            "2 harness/src/cworld/ None",
            "3 build.rs Some(\"harness/src/cworld/\")",
        ]
    );
}
