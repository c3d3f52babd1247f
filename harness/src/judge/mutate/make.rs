//! Making mutants: the files a function is looked for in, its
//! definition there, and the sites of each operator in its body.

use std::collections::BTreeMap;

use anyhow::{bail, Result};

use crate::cworld::build::Manifest;
use crate::kernel::{cscan, KernelTree};

/// One mutant of a function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutant {
    /// The C function mutated.
    pub function: String,
    /// The file it is defined in (and mutated), its path in the tree.
    pub file: String,
    /// 1-based line in the file it was made from.
    pub line: usize,
    /// The trimmed text of that line (part of the id).
    pub site: String,
    /// `<= -> <`, `delete statement`, …
    pub operator: String,
    /// Which site of this operator on a line of this text in the
    /// function (0 first): two equal lines' mutants are told apart.
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

    /// Where it is and what it is, as `--list` shows it: `FILE:LINE: ID`
    /// (the file with its path in the tree).
    pub fn location(&self) -> String {
        format!("{}:{}: {}", self.file, self.line, self.id())
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
/// `offset` of `file`, on its line `def_line`.
fn mutants_of(
    (file, function): (&str, &str),
    def: &str,
    offset: usize,
    def_line: usize,
) -> Vec<Mutant> {
    let Some(open) = def.find('{') else {
        return vec![];
    };
    let mut sites = Sites {
        file,
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
    file: &'a str,
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
            .filter(|m| m.function == self.function && m.site == site && m.operator == op)
            .count();
        self.out.push(Mutant {
            function: self.function.to_owned(),
            file: self.file.to_owned(),
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
    /// of its own, deleted: replaced by an empty block, so that the body of
    /// an unbraced `if`, `else` or loop is emptied (an empty line there
    /// would make the next statement the body, another mutant).
    fn statements(&mut self, from: usize) {
        let mut pos = from;
        for line in self.def[from..].split_inclusive('\n') {
            let t = line.trim();
            let start = pos + (line.len() - line.trim_start().len());
            pos += line.len();
            let first_code = self.code.get(start).copied().unwrap_or(false);
            if first_code && deletable(t) {
                self.push(start, t.len(), "delete statement", "{}");
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

/// A file the worlds take from the tree, where mutated functions are
/// looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Searched {
    /// Its path in the tree.
    pub file: String,
    /// The definitions the worlds take from it: `None` for a file compiled
    /// whole (every one), the names listed for a file extracted from.
    pub only: Option<Vec<String>>,
}

impl std::fmt::Display for Searched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.only {
            None => write!(f, "{} (whole)", self.file),
            Some(names) => write!(f, "{} ({})", self.file, names.join(", ")),
        }
    }
}

/// Where mutated functions are looked for, as `c-shim/boundary.toml`
/// says: the files compiled whole, then the files definitions are
/// extracted from (one entry per file), in its order.
pub fn searched(manifest: &Manifest) -> Vec<Searched> {
    let mut out: Vec<Searched> = manifest
        .upstream
        .compile
        .iter()
        .map(|c| Searched {
            file: c.file.clone(),
            only: None,
        })
        .collect();
    for e in &manifest.upstream.extract {
        match out.iter_mut().find(|s| s.file == e.file) {
            Some(Searched {
                only: Some(names), ..
            }) => names.extend(e.symbols.iter().cloned()),
            Some(Searched { only: None, .. }) => {}
            None => out.push(Searched {
                file: e.file.clone(),
                only: Some(e.symbols.clone()),
            }),
        }
    }
    out
}

/// Whether a top-level definition's text is a function's: the text before
/// its body's `{` is a declarator with a parameter list (a table's ends
/// with `=`). cscan does not say which a definition is.
fn is_function(text: &str) -> bool {
    text.find('{').is_some_and(|open| {
        let head = text[..open].trim_end();
        head.ends_with(')') && head.contains('(')
    })
}

/// Whether a top-level declaration's text defines its name: a function
/// with a body or an initialised variable, not a prototype or an `extern`
/// (cscan's test for what it extracts).
fn is_definition(text: &str) -> bool {
    let t = text.trim_start();
    !t.starts_with("extern ")
        && !t.starts_with("EXPORT_SYMBOL")
        && (text.trim_end().ends_with('}') || text.contains('='))
}

/// The definition of function `name` in `src` (a file the worlds take
/// from the tree) and the byte it starts at, as [`generate`] finds it.
pub(super) fn located(src: &str, name: &str) -> Result<(usize, cscan::Definition), String> {
    let defs = cscan::definitions(src).map_err(|e| e.to_string())?;
    let mut from = 0;
    for d in defs {
        let Some(at) = src[from..].find(&d.text).map(|p| from + p) else {
            continue;
        };
        from = at + d.text.len();
        if d.name == name && is_definition(&d.text) && is_function(&d.text) {
            return Ok((at, d));
        }
    }
    Err(format!("no definition of {name}"))
}

/// Every mutant of the functions named (C names), each looked for in the
/// files the worlds take from `tree` ([`searched`]): by file in the
/// manifest's order, in file order within each. A name defined in none of
/// them, or in two, is an error; a variable's definition has no mutants.
///
/// A function of the manifest's `optional` the tree lacks has none.
pub fn generate(tree: &KernelTree, functions: &[String]) -> Result<Vec<Mutant>> {
    let m = Manifest::load()?;
    let absent = m.absent(tree)?;
    let present: Vec<String> = functions
        .iter()
        .filter(|f| !absent.contains(f))
        .cloned()
        .collect();
    generate_in(tree, &searched(&m), &present)
}

/// [`generate`] over the files `files`.
fn generate_in(tree: &KernelTree, files: &[Searched], functions: &[String]) -> Result<Vec<Mutant>> {
    // Where each name is defined.
    let mut home: BTreeMap<&str, &str> = BTreeMap::new();
    let mut out = vec![];
    for f in files {
        let wanted: Vec<&String> = functions
            .iter()
            .filter(|n| f.only.as_ref().is_none_or(|only| only.contains(n)))
            .collect();
        if wanted.is_empty() {
            continue;
        }
        let path = tree.path(&f.file);
        let src = tree.read_to_string(&path)?;
        let defs =
            cscan::definitions(&src).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let mut from = 0;
        for d in defs {
            let Some(name) = wanted.iter().find(|n| **n == &d.name) else {
                continue;
            };
            let Some(at) = src[from..].find(&d.text).map(|p| from + p) else {
                continue;
            };
            from = at + d.text.len();
            if !is_definition(&d.text) {
                continue;
            }
            match home.insert(name.as_str(), f.file.as_str()) {
                Some(other) if other != f.file => bail!(
                    "`{name}` is defined in both {other} and {}: a mutant's id would not \
                     say which",
                    f.file
                ),
                _ => {}
            }
            if is_function(&d.text) {
                out.extend(mutants_of((&f.file, &d.name), &d.text, at, d.line));
            }
        }
    }
    let missing: Vec<&str> = functions
        .iter()
        .filter(|n| !home.contains_key(n.as_str()))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        let files: Vec<String> = files.iter().map(Searched::to_string).collect();
        bail!(
            "no upstream definition of {} in the files the worlds take from {} (as \
             c-shim/boundary.toml lists them): {}",
            missing
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            tree.root.display(),
            files.join("; ")
        );
    }
    Ok(out)
}

/// The functions a diff adds lines to (`added`: `(path, lines)` of the
/// new file, [`added_lines`](crate::kernel::patch::added_lines)) in
/// `tree`, the patched tree: each definition of a function the worlds
/// take from a file ([`searched`]) that holds an added line, by file in
/// `files`' order, in file order within each.
pub fn functions_on_lines(
    tree: &KernelTree,
    files: &[Searched],
    added: &[(String, Vec<usize>)],
) -> Result<Vec<String>> {
    let mut out = vec![];
    for f in files {
        let Some((_, lines)) = added.iter().find(|(p, _)| *p == f.file) else {
            continue;
        };
        let path = tree.path(&f.file);
        let src = tree.read_to_string(&path)?;
        let defs =
            cscan::definitions(&src).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        for d in defs {
            let last = d.line + d.text.matches('\n').count();
            let taken = f.only.as_ref().is_none_or(|only| only.contains(&d.name));
            if taken
                && is_definition(&d.text)
                && is_function(&d.text)
                && lines.iter().any(|l| (d.line..=last).contains(l))
                && !out.contains(&d.name)
            {
                out.push(d.name);
            }
        }
    }
    Ok(out)
}

/// The mutants of `all` whose site is on a line `added` holds for its
/// file (cargo-mutants' `--in-diff`: mutants overlapping the new side of
/// the diff; a context line or a removed one has none).
pub fn on_lines(all: Vec<Mutant>, added: &[(String, Vec<usize>)]) -> Vec<Mutant> {
    all.into_iter()
        .filter(|m| {
            added
                .iter()
                .any(|(p, ls)| *p == m.file && ls.contains(&m.line))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel;

    // A made-up function in kernel style (not upstream code).
    const SRC: &str = "int pick(int a, int b)\n{\n\t/* a < b in a comment */\n\tif (a <= b && !b)\n\t\treturn a->x;\n\tcount(a, \"<=\");\n\tb = 16;\n\treturn 0;\n}\n";

    #[test]
    fn a_deleted_statement_empties_an_unbraced_body() {
        // Made up: the sole statement of an unbraced `if`, then another.
        let src = "int f(int a)\n{\n\tif (a)\n\t\tg(a);\n\th(a);\n\treturn 0;\n}\n";
        let ms = mutants_of(("f.c", "f"), src, 0, 1);
        let m = ms
            .iter()
            .find(|m| m.line == 4 && m.operator == "delete statement")
            .expect("g(a); is deletable");
        let mut t = src.to_owned();
        t.replace_range(m.at.clone(), &m.replacement);
        // h(a) stays unconditional: only g(a) is gone.
        assert!(t.contains("\tif (a)\n\t\t{}\n\th(a);\n"), "{t}");
    }

    #[test]
    fn operators_outside_comments_and_strings() {
        let ms = mutants_of(("pick.c", "pick"), SRC, 0, 1);
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
        assert_eq!(
            m.location(),
            "pick.c:4: pick: `if (a <= b && !b)` [<= -> <#0]"
        );
    }

    /// `--in-diff` takes the mutants of the lines the diff adds, in the
    /// new file: the changed line's and the added line's, not those of a
    /// context line (shifted down by the addition above it, its text the
    /// same) nor of a removed line.
    #[test]
    fn in_diff_takes_the_mutants_of_added_lines_only() {
        // Made-up kernel-style C (not upstream code), after the patch.
        let new = "int pick(int a, int b)\n{\n\tif (a < 1)\n\t\treturn 0;\n\
                   \tif (a <= b)\n\t\treturn 1;\n\tif (b == 2)\n\t\treturn 2;\n\treturn 3;\n}\n";
        // Line 3 added; `if (a < b)` (old line 4) changed to line 5; old
        // `if (b != 7)` removed; `if (b == 2)` context, now line 7.
        let diff = "--- a/pick.c\n+++ b/pick.c\n@@ -1,9 +1,9 @@\n int pick(int a, int b)\n {\n\
                    +\tif (a < 1)\n+\t\treturn 0;\n-\tif (a < b)\n+\tif (a <= b)\n \t\treturn 1;\n\
                    -\tif (b != 7)\n-\t\treturn 7;\n \tif (b == 2)\n \t\treturn 2;\n \treturn 3;\n }\n";
        let added = crate::kernel::patch::added_lines(diff);
        assert_eq!(added, [("pick.c".to_owned(), vec![3, 4, 5])]);
        let all = mutants_of(("pick.c", "pick"), new, 0, 1);
        assert!(
            all.iter().any(|m| m.line == 7),
            "a context line has mutants"
        );
        let chosen: Vec<(usize, String)> = on_lines(all.clone(), &added)
            .into_iter()
            .map(|m| (m.line, m.operator))
            .collect();
        let want = [
            (3, "< -> <="),
            (3, "literal + 1"),
            (4, "literal + 1"),
            (5, "<= -> <"),
        ];
        assert_eq!(
            chosen,
            want.map(|(l, o)| (l, o.to_owned())),
            "context line 7 and the removed `b != 7` have none"
        );
        // Another file's added lines choose nothing here.
        assert_eq!(on_lines(all, &[("other.c".to_owned(), vec![3, 5])]), []);
    }

    /// A scratch tree with every file a tree must have, `files` holding
    /// made-up C in kernel style (not upstream code), the others empty.
    fn scratch_tree(tag: &str, files: &[(&str, &str)]) -> (std::path::PathBuf, KernelTree) {
        let dir = std::env::temp_dir().join(format!("hfi1-mutants-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for f in kernel::REQUIRED_FILES {
            let text = match files.iter().find(|(p, _)| p == f) {
                Some((_, t)) => t,
                None if *f == "Makefile" => "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n",
                None => "",
            };
            let p = dir.join(f);
            std::fs::create_dir_all(p.parent().expect("in a directory")).expect("mkdir");
            std::fs::write(&p, text).expect("write");
        }
        let tree = KernelTree::open(&dir).expect("a tree");
        (dir, tree)
    }

    const HFI1: &str = "drivers/infiniband/hw/hfi1/";

    /// A function is looked for where the manifest says the worlds take it
    /// from: sdma.c's extracted function has its mutants in sdma.c at its
    /// lines; a prototype elsewhere is no second definition; variables (a
    /// table in a file compiled whole, one extracted) have none; a name
    /// sdma.c defines but the manifest does not list, or one defined
    /// nowhere, is an error naming it and the files searched.
    #[test]
    fn functions_are_found_in_the_files_the_worlds_take() {
        let qp_c = "// SPDX\nstruct sdma_engine *sdma_select_engine_vl(struct hfi1_devdata *dd,\n\
                    \t\t\t\t\t  u32 selector, u8 vl);\n\n\
                    const int qp_table[2] = {\n\t[0] = 1,\n\t[1] = 2 < 3,\n};\n\n\
                    int qp_pick(int a)\n{\n\treturn a == 1;\n}\n";
        let sdma_c = "// SPDX\nvoid sdma_unlisted(int a)\n{\n\tif (a < 2)\n\t\tkick(a);\n}\n\n\
                      struct sdma_engine *sdma_select_engine_vl(\n\tstruct hfi1_devdata *dd,\n\
                      \tu32 selector,\n\tu8 vl)\n{\n\tif (vl >= num_vls)\n\
                      \t\treturn NULL;\n\treturn &dd->per_sdma[selector & 7];\n}\n";
        let rvt_c = "// SPDX\nconst int ib_rvt_state_ops[2] = {\n\t[0] = 0,\n\t[1] = 1 | 2,\n};\n";
        let (dir, tree) = scratch_tree(
            "find",
            &[
                ("drivers/infiniband/hw/hfi1/qp.c", qp_c),
                ("drivers/infiniband/hw/hfi1/sdma.c", sdma_c),
                ("drivers/infiniband/sw/rdmavt/qp.c", rvt_c),
            ],
        );
        let names = |ns: &[&str]| ns.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let ms = generate(&tree, &names(&["sdma_select_engine_vl", "qp_pick"])).expect("found");
        let got: Vec<String> = ms.iter().map(Mutant::location).collect();
        let sdma = format!("{HFI1}sdma.c");
        assert_eq!(
            got,
            [
                format!("{HFI1}qp.c:12: qp_pick: `return a == 1;` [== -> !=#0]"),
                format!("{HFI1}qp.c:12: qp_pick: `return a == 1;` [literal + 1#0]"),
                format!("{sdma}:13: sdma_select_engine_vl: `if (vl >= num_vls)` [>= -> >#0]"),
                format!(
                    "{sdma}:15: sdma_select_engine_vl: `return &dd->per_sdma[selector & 7];` \
                     [literal + 1#0]"
                ),
            ]
        );
        // Each mutant's range is its site in its own file.
        let m = &ms[2];
        let mut text = sdma_c.to_owned();
        text.replace_range(m.at.clone(), &m.replacement);
        assert!(text.contains("\tif (vl > num_vls)\n"), "{text}");
        // Variables are defined, with nothing to mutate.
        let none = generate(&tree, &names(&["qp_table", "ib_rvt_state_ops"])).expect("defined");
        assert_eq!(none, []);
        // Defined in sdma.c, but not taken from it; defined nowhere.
        for name in ["sdma_unlisted", "no_such_function"] {
            let e = generate(&tree, &names(&["qp_pick", name])).expect_err(name);
            let e = e.to_string();
            assert!(
                e.contains(&format!("no upstream definition of `{name}`"))
                    && !e.contains("`qp_pick`")
                    && e.contains(&format!("{HFI1}qp.c (whole)"))
                    && e.contains(&format!("{HFI1}iowait.c (whole)"))
                    && e.contains(&format!("{sdma} (sdma_select_engine_vl, "))
                    && e.contains("rdmavt/qp.c (ib_rvt_state_ops)"),
                "{e}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Functions are found only in the files searched, and a name defined
    /// in two of them is an error (ids would not tell the two apart).
    #[test]
    fn a_name_defined_twice_is_an_error() {
        let body = "int twice(int a)\n{\n\treturn a < 1;\n}\n";
        let (dir, tree) = scratch_tree(
            "twice",
            &[
                ("drivers/infiniband/hw/hfi1/qp.c", body),
                ("drivers/infiniband/hw/hfi1/iowait.c", body),
            ],
        );
        let whole = |f: &str| Searched {
            file: format!("{HFI1}{f}"),
            only: None,
        };
        let twice = ["twice".to_owned()];
        let ms = generate_in(&tree, &[whole("iowait.c")], &twice).expect("once");
        assert!(ms
            .iter()
            .all(|m| m.file == format!("{HFI1}iowait.c") && m.line == 3));
        let e = generate_in(&tree, &[whole("qp.c"), whole("iowait.c")], &twice).expect_err("twice");
        assert!(e.to_string().contains("defined in both"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
