//! The names a tree's generic headers declare: what the real kernel
//! offers the driver, which the harness stands in for (`c-shim/kcompat`)
//! rather than compiles.
//!
//! A patched tree that fails to compile in the harness is the patch's
//! fault only when a real build would fail too. When the name gcc stops at
//! is one the tree's own headers declare (`synchronize_rcu_expedited`,
//! `struct_size`), the harness lacks a stand-in, and the verdict is the
//! harness's (`cannot-judge`), never the patch's (`breaks-build`).
//!
//! The index holds, of every header under [`HEADER_DIRS`] outside the
//! part the harness compiles as is (`kernel::extracted`, which callers
//! pass), the names it
//! declares at file scope (functions, variables, types, enum constants,
//! macros, which it also marks, and the classes and free functions
//! `<linux/cleanup.h>`'s definers make: `class_spinlock_t`,
//! `__free_kfree`) and the members of its structures and unions: not the locals of inline functions, nor parameters, nor what
//! comments and literals mention. Debian trees keep it in [`INDEX_FILE`],
//! written when they are extracted (their headers are not kept); a full
//! tree (`--kernel-src`) has its headers, read when the index is first
//! needed.

use fs_err as fs;
use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result};

mod cleanup;
pub use cleanup::made;
use cleanup::made_by;

/// Where a tree's generic headers are, relative to its root.
pub const HEADER_DIRS: &[&str] = &["include", "arch/x86/include"];

/// The largest index read: the pinned trees' are 7-14 MB.
const MAX_INDEX: u64 = 256 << 20;

/// The index file a Debian tree keeps at its root.
pub const INDEX_FILE: &str = ".hfi1-conformance-names";

/// The first line of an index file: what it was made from and how.
pub(super) const INDEX_HEADER: &str =
    "# hfi1-conformance names v4: include/ arch/x86/include/ (#macro, %tag, {tag with body, .tag.member; cleanup.h classes)";

/// The names of a tree's generic headers.
#[derive(Debug, Default, Clone)]
pub struct TreeNames {
    /// Names declared at file scope, macros included.
    names: HashSet<String>,
    /// Those a `#define` defines.
    macros: HashSet<String>,
    /// Tags of structures, unions and enums, declared or mentioned.
    tags: HashSet<String>,
    /// Those of them defined with a body somewhere.
    bodies: HashSet<String>,
    /// Members of structures and unions, as `TAG.MEMBER` (an anonymous
    /// one's under the tag of the structure holding it, or none).
    members: HashSet<String>,
}

impl TreeNames {
    /// The index of the tree at `root`: its index file, or its headers
    /// read now, but for the paths `as_is` says the harness compiles as
    /// they are; `None` when it has neither (a tree of only the extracted
    /// part, made by an older harness).
    pub fn of(root: &Path, as_is: &dyn Fn(&str) -> bool) -> Result<Option<TreeNames>> {
        let file = root.join(INDEX_FILE);
        if file.is_file() {
            // A file of the tree, read as any is (regular, inside it,
            // bounded): a tree someone sent may hold anything there.
            let bytes = super::read_tree_file_up_to(root, &file, MAX_INDEX)?;
            let text = String::from_utf8(bytes).context("an index of names is UTF-8 text")?;
            return Ok(Some(TreeNames::parse(&text).with_context(|| {
                format!(
                    "{}: not an index of names (delete it to read the headers again)",
                    file.display()
                )
            })?));
        }
        if !root.join("include/linux").is_dir() {
            return Ok(None);
        }
        Ok(Some(TreeNames::scan(root, as_is)?))
    }

    /// Reads the headers of the tree at `root` but those `as_is` names.
    pub fn scan(root: &Path, as_is: &dyn Fn(&str) -> bool) -> Result<TreeNames> {
        let mut t = TreeNames::default();
        for dir in HEADER_DIRS {
            let d = root.join(dir);
            if d.is_dir() {
                t.scan_dir(root, &d, as_is)?;
            }
        }
        Ok(t)
    }

    fn scan_dir(&mut self, root: &Path, dir: &Path, as_is: &dyn Fn(&str) -> bool) -> Result<()> {
        for e in fs::read_dir(dir)? {
            let e = e?;
            let p = e.path();
            let ty = e.file_type()?;
            if ty.is_dir() {
                self.scan_dir(root, &p, as_is)?;
                continue;
            }
            let rel = p.strip_prefix(root).unwrap_or(&p).to_string_lossy();
            if !ty.is_file() || !rel.ends_with(".h") || as_is(&rel) {
                continue;
            }
            // Headers are source text; a stray non-UTF-8 byte (a name in
            // a comment) must not hide the rest of the file.
            let bytes = super::read_tree_file(root, &p)?;
            self.add(&String::from_utf8_lossy(&bytes));
        }
        Ok(())
    }

    /// Adds what header text `text` declares (a patch's lines added to a
    /// header the harness does not compile).
    pub fn add(&mut self, text: &str) {
        for (name, kind) in declarations(text) {
            let (set, key) = match kind {
                Declared::Macro => {
                    self.names.insert(name.to_string());
                    (&mut self.macros, name.to_string())
                }
                Declared::Name => (&mut self.names, name.to_string()),
                Declared::Tag => (&mut self.tags, name.to_string()),
                Declared::Body => {
                    self.tags.insert(name.to_string());
                    (&mut self.bodies, name.to_string())
                }
                Declared::Member(record) => (&mut self.members, format!("{record}.{name}")),
                Declared::Made {
                    prefix,
                    second,
                    suffix,
                } => (&mut self.names, made(name, prefix, second, suffix)),
            };
            if !set.contains(&key) {
                set.insert(key);
            }
        }
    }

    /// The index as [`INDEX_FILE`] holds it: sorted, one name a line.
    pub fn to_text(&self) -> String {
        let mut lines: Vec<String> = self
            .names
            .iter()
            .filter(|n| !self.macros.contains(*n))
            .cloned()
            .collect();
        lines.extend(self.macros.iter().map(|m| format!("#{m}")));
        lines.extend(
            self.tags
                .iter()
                .filter(|t| !self.bodies.contains(*t))
                .map(|m| format!("%{m}")),
        );
        lines.extend(self.bodies.iter().map(|m| format!("{{{m}")));
        lines.extend(self.members.iter().map(|m| format!(".{m}")));
        lines.sort_unstable();
        let mut out = String::with_capacity(lines.len() * 16 + 80);
        out.push_str(INDEX_HEADER);
        out.push('\n');
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
        out
    }

    /// An index as [`TreeNames::to_text`] wrote it.
    pub fn parse(text: &str) -> Result<TreeNames> {
        let mut lines = text.lines();
        anyhow::ensure!(
            lines.next() == Some(INDEX_HEADER),
            "its first line is not {INDEX_HEADER:?}"
        );
        let mut t = TreeNames::default();
        for l in lines {
            if let Some(m) = l.strip_prefix('#') {
                t.names.insert(m.to_string());
                t.macros.insert(m.to_string());
            } else if let Some(m) = l.strip_prefix('%') {
                t.tags.insert(m.to_string());
            } else if let Some(m) = l.strip_prefix('{') {
                t.tags.insert(m.to_string());
                t.bodies.insert(m.to_string());
            } else if let Some(m) = l.strip_prefix('.') {
                t.members.insert(m.to_string());
            } else {
                t.names.insert(l.to_string());
            }
        }
        Ok(t)
    }

    /// Whether the headers declare `name` at file scope (a macro too; a
    /// tag is not a name).
    pub fn declares(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// Whether the headers declare `struct TAG` (or a union or enum), if
    /// only by name (`struct kmem_cache;`): a pointer to it builds.
    pub fn declares_tag(&self, tag: &str) -> bool {
        self.tags.contains(tag)
    }

    /// Whether the headers define `struct TAG` with a body: an object of
    /// it, or a member of one, builds.
    pub fn defines_tag(&self, tag: &str) -> bool {
        self.bodies.contains(tag)
    }

    /// Whether the headers' structure or union `record` (a tag) has a
    /// member `member`.
    pub fn has_member(&self, record: &str, member: &str) -> bool {
        self.members.contains(&format!("{record}.{member}"))
    }

    /// Whether a header `#define`s `name`.
    pub fn defines(&self, name: &str) -> bool {
        self.macros.contains(name)
    }
}

/// Writes the index of the headers of the tree at `root` (but those
/// `as_is` names) into its [`INDEX_FILE`].
pub fn write_index(root: &Path, as_is: &dyn Fn(&str) -> bool) -> Result<()> {
    let t = TreeNames::scan(root, as_is)?;
    fs::write(root.join(INDEX_FILE), t.to_text())?;
    Ok(())
}

/// A token of C source: an identifier, or one of `(){}[];=,.*->`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    /// Its text.
    pub text: &'a str,
    /// Its line, from 1.
    pub line: usize,
    /// Whether it is the name a `#define` defines.
    pub defined: bool,
    /// The byte offset just past it.
    pub end: usize,
}

/// The identifiers of C source `src`, in order, outside comments, string
/// and character literals (numbers' letters are not identifiers). A
/// comment or literal left open ends the text.
pub fn identifiers(src: &str) -> Vec<Token<'_>> {
    tokens(src)
        .into_iter()
        .filter(|t| {
            t.text
                .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        })
        .collect()
}

/// Whether the newline at `nl` ends a line that a backslash continues
/// (`\\\n` or `\\\r\n`).
fn continued(b: &[u8], nl: usize) -> bool {
    match nl.checked_sub(1).map(|k| b[k]) {
        Some(b'\\') => true,
        Some(b'\r') => nl >= 2 && b[nl - 2] == b'\\',
        _ => false,
    }
}

/// The `n`-byte punctuation token at `i` of `src`, on `line`.
fn punctuation(src: &str, i: usize, n: usize, line: usize) -> Token<'_> {
    Token {
        text: &src[i..i + n],
        line,
        defined: false,
        end: i + n,
    }
}

/// Past the comment starting at `i` (`//` or `/*`), counting its lines
/// into `line`; a `//` comment goes on past a backslash-newline.
fn skip_comment(b: &[u8], mut i: usize, line: &mut usize) -> usize {
    if b[i + 1] == b'/' {
        while i < b.len() && (b[i] != b'\n' || continued(b, i)) {
            *line += usize::from(b[i] == b'\n');
            i += 1;
        }
        return i;
    }
    i += 2;
    while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
        *line += usize::from(b[i] == b'\n');
        i += 1;
    }
    i + 2
}

/// Past the string or character literal starting at `i`, counting the
/// lines its backslash-newlines continue into `line`. A quote left open
/// ends at its line's end, which is read as one (`#error don't`).
fn skip_literal(b: &[u8], mut i: usize, line: &mut usize) -> usize {
    let quote = b[i];
    i += 1;
    while i < b.len() && b[i] != quote && b[i] != b'\n' {
        if b[i] == b'\\' {
            *line += usize::from(b.get(i + 1) == Some(&b'\n'));
            i += 1;
        }
        i += 1;
    }
    if i < b.len() && b[i] == quote {
        i += 1;
    }
    i
}

/// [`identifiers`], and the punctuation `(){}[];=,.*->` between them.
pub fn tokens(src: &str) -> Vec<Token<'_>> {
    let b = src.as_bytes();
    let mut out = vec![];
    let (mut i, mut line) = (0, 1);
    // Where the current line's first token is `#`, and whether the next
    // identifier after `define` is the macro's name.
    let (mut line_start, mut directive, mut want_macro) = (true, false, false);
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
                if !continued(b, i - 1) {
                    directive = false;
                    want_macro = false;
                }
                line_start = true;
                continue;
            }
            b'/' if matches!(b.get(i + 1), Some(b'/' | b'*')) => {
                i = skip_comment(b, i, &mut line);
                continue;
            }
            b'"' | b'\'' => i = skip_literal(b, i, &mut line),
            b'#' if line_start => {
                directive = true;
                i += 1;
            }
            b'0'..=b'9' => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.')
                {
                    i += 1;
                }
            }
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let name = &src[start..i];
                if directive && line_start && name == "define" {
                    want_macro = true;
                } else {
                    out.push(Token {
                        text: name,
                        line,
                        defined: want_macro,
                        end: i,
                    });
                    want_macro = false;
                }
            }
            b'-' if b.get(i + 1) == Some(&b'>') => {
                out.push(punctuation(src, i, 2, line));
                i += 2;
            }
            b'(' | b')' | b'{' | b'}' | b'[' | b']' | b';' | b'=' | b',' | b'.' | b'*' => {
                out.push(punctuation(src, i, 1, line));
                i += 1;
            }
            _ => i += 1,
        }
        if !c.is_ascii_whitespace() && c != b'#' {
            line_start = false;
        }
    }
    out
}

/// What a header declares a name as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declared<'a> {
    /// At file scope: a function, a variable, a typedef, an enum constant.
    Name,
    /// By `#define`.
    Macro,
    /// The tag of a structure, union or enum, declared or mentioned.
    Tag,
    /// The tag of a structure, union or enum defined here with a body.
    Body,
    /// A member of the structure or union of that tag (empty: none).
    Member(&'a str),
    /// A name `<linux/cleanup.h>`'s definers make by pasting, from the
    /// first argument (the name in the tuple) and, for a conditional
    /// guard, the second: [`made`] spells it.
    Made {
        /// `__free_` or `class_`.
        prefix: &'static str,
        /// A conditional guard's second argument (`_try`), or empty.
        second: &'a str,
        /// `_t` for a class, empty for a free function.
        suffix: &'static str,
    },
}

/// What a brace opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block<'a> {
    Enum,
    /// A structure's or union's body, and its tag (empty: none).
    Record(&'a str),
    Other,
}

/// The names header text `src` declares ([`Declared`]), in order: the
/// identifiers outside parentheses at file scope, in an enum's body, or
/// (as members) in a structure's or union's; of a directive, only the
/// name a `#define` defines. A guess from tokens, not a parse: a name made
/// by pasting (`##`) or declared inside parentheses (a function pointer)
/// is not seen, which errs towards blaming the patch, as before the index.
pub fn declarations(src: &str) -> Vec<(&str, Declared<'_>)> {
    let lines = directive_lines(src);
    let asm = assembly_lines(src);
    let mut out = vec![];
    // Open blocks, each with the parentheses open where it opened.
    let mut blocks: Vec<(Block, usize)> = vec![];
    let mut parens = 0usize;
    // The struct/union/enum keyword of the declaration being read, and
    // the tag after it.
    let mut tag: Option<Block> = None;
    let mut after_keyword = false;
    // The tag named after the keyword, and the enum's (Block::Enum has
    // none).
    let mut named: Option<&str> = None;
    // Where the members of an anonymous structure at file scope start in
    // `out`, until the typedef name after its body names them.
    let (mut anonymous, mut unnamed): (Option<usize>, Option<usize>) = (None, None);
    let toks = tokens(src);
    for (k, &t) in toks.iter().enumerate() {
        if asm.get(t.line).copied().unwrap_or(false) {
            continue;
        }
        if lines.get(t.line).copied().unwrap_or(false) {
            if t.defined {
                out.push((t.text, Declared::Macro));
            }
            continue;
        }
        let was_after_keyword = std::mem::take(&mut after_keyword);
        let in_code = parens > 0 || blocks.iter().any(|(b, _)| *b == Block::Other);
        match t.text.as_bytes()[0] {
            // A tag ends at a parameter list, an initializer, the next
            // declarator: only `struct x {` opens a structure's body.
            b'(' | b'[' => {
                parens += 1;
                tag = None;
            }
            b')' | b']' => {
                parens = parens.saturating_sub(1);
                tag = None;
            }
            b'=' | b',' => tag = None,
            b'{' => {
                let kind = opened(tag.take(), &blocks, &mut anonymous, out.len());
                if let (Some(n), false) = (named.take(), in_code || kind == Block::Other) {
                    out.push((n, Declared::Body));
                }
                blocks.push((if in_code { Block::Other } else { kind }, parens));
                parens = 0;
            }
            b'}' => {
                let closed = blocks.pop();
                parens = closed.map_or(0, |(_, p)| p);
                if blocks.is_empty() && closed.is_some_and(|(b, _)| b == Block::Record("")) {
                    unnamed = anonymous.take();
                }
                tag = None;
            }
            b';' => {
                tag = None;
                named = None;
                unnamed = None;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => match t.text {
                "enum" => {
                    tag = Some(Block::Enum);
                    after_keyword = true;
                }
                "struct" | "union" => {
                    tag = Some(Block::Record(""));
                    after_keyword = true;
                }
                _ if in_code || is_keyword(t.text) => {}
                name if was_after_keyword => {
                    if tag == Some(Block::Record("")) {
                        tag = Some(Block::Record(name));
                    }
                    named = Some(name);
                    out.push((name, Declared::Tag));
                }
                _ => match blocks.last().map(|(b, _)| *b) {
                    None => {
                        // `typedef struct { ... } NAME;`: its members are
                        // NAME's.
                        if let Some(from) = unnamed.take() {
                            name_members(&mut out[from..], t.text);
                        }
                        out.push((t.text, Declared::Name));
                        out.extend(made_by(&toks[k..]));
                    }
                    Some(Block::Enum) => out.push((t.text, Declared::Name)),
                    Some(Block::Record(r)) => out.push((t.text, Declared::Member(r))),
                    Some(Block::Other) => {}
                },
            },
            _ => {}
        }
    }
    out
}

/// What a `{` opens after `tag` (the declaration's keyword, with its tag),
/// inside `blocks`: whatever a function's body (or a macro's argument)
/// declares is its own (the caller sees to it); an anonymous structure
/// inside another is the outer one's; one at file scope has its members
/// start at `at` in the output, kept in `anonymous`.
fn opened<'a>(
    tag: Option<Block<'a>>,
    blocks: &[(Block<'a>, usize)],
    anonymous: &mut Option<usize>,
    at: usize,
) -> Block<'a> {
    match (tag.unwrap_or(Block::Other), blocks.last()) {
        (Block::Record(""), Some((Block::Record(outer), _))) => Block::Record(outer),
        (Block::Record(""), _) => {
            *anonymous = Some(at);
            Block::Record("")
        }
        (k, _) => k,
    }
}

/// Files the members of an anonymous structure under `name`, the typedef
/// naming it.
fn name_members<'a>(members: &mut [(&'a str, Declared<'a>)], name: &'a str) {
    for d in members {
        if d.1 == Declared::Member("") {
            d.1 = Declared::Member(name);
        }
    }
}

/// Which lines (by number, from 1) only an assembler sees: the groups of
/// `#ifdef __ASSEMBLY__` (`#if defined(__ASSEMBLY__)`), and the `#else`
/// of `#ifndef __ASSEMBLY__`. Their words are not C's names.
fn assembly_lines(src: &str) -> Vec<bool> {
    let mut out = vec![false];
    // Each open conditional: whether its current group is assembly
    // (`None` for one that does not test __ASSEMBLY__).
    let mut stack: Vec<Option<bool>> = vec![];
    for l in src.split('\n') {
        let d = l.trim_start();
        let words: String = d
            .strip_prefix('#')
            .map(|r| r.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        let asm_test = words.contains("__ASSEMBLY__");
        let negated = words.starts_with("ifndef")
            || words.contains("!defined")
            || words.contains("! defined");
        if words.starts_with("if") {
            stack.push(asm_test.then_some(!negated));
        } else if words.starts_with("el") {
            if let Some(Some(a)) = stack.last_mut() {
                *a = !*a;
            }
        } else if words.starts_with("endif") {
            stack.pop();
        }
        out.push(stack.contains(&Some(true)));
    }
    out
}

/// Which lines (by number, from 1) belong to a preprocessor directive,
/// continuations included.
pub fn directive_lines(src: &str) -> Vec<bool> {
    let mut out = vec![false];
    let mut cont = false;
    for l in src.split('\n') {
        let d = cont || l.trim_start().starts_with('#');
        out.push(d);
        cont = d && l.trim_end().ends_with('\\');
    }
    out
}

/// C's keywords and the compiler's own words: never a name a header
/// offers.
pub fn is_keyword(name: &str) -> bool {
    const WORDS: &[&str] = &[
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
        "_Bool",
        "bool",
        "true",
        "false",
        "typeof",
        "asm",
        "__attribute__",
        "__typeof__",
        "__asm__",
        "__inline__",
        "__volatile__",
        "_Static_assert",
        "__extension__",
        "__restrict",
    ];
    WORDS.contains(&name) || name.starts_with("__builtin_")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(src: &str) -> Vec<(&str, usize, bool)> {
        identifiers(src)
            .into_iter()
            .map(|i| (i.text, i.line, i.defined))
            .collect()
    }

    #[test]
    fn comments_literals_and_numbers_are_not_names() {
        let src = "/* del_timer */ int a; // timer_delete\nchar *s = \"kfree\", c = 'x';\n\
                   long n = 0x1fUL + 1e3;";
        assert_eq!(
            names(src),
            vec![
                ("int", 1, false),
                ("a", 1, false),
                ("char", 2, false),
                ("s", 2, false),
                ("c", 2, false),
                ("long", 3, false),
                ("n", 3, false),
            ]
        );
    }

    #[test]
    fn a_define_names_its_macro_across_continuations() {
        let src =
            "#define __counted_by(m) \\\n\t__attribute__((x(m)))\n# define  B 1\nint define;\n";
        let n = names(src);
        assert_eq!(n[0], ("__counted_by", 1, true));
        assert!(n.contains(&("B", 3, true)));
        // `define` outside a directive is a name like any other.
        assert!(n.contains(&("define", 4, false)));
        // After the macro's name, the rest of the directive is not defined.
        assert!(n.contains(&("m", 1, false)) && n.contains(&("__attribute__", 2, false)));
    }

    #[test]
    fn a_multi_line_comment_keeps_the_line_count() {
        let n = names("/* a\n b\n */ x\n\"s\\\nt\" y");
        assert_eq!(n, vec![("x", 3, false), ("y", 5, false)]);
    }

    #[test]
    fn an_index_reads_back_what_it_wrote() {
        let mut t = TreeNames::default();
        t.names
            .extend(["synchronize_rcu_expedited".into(), "kvfree_rcu".into()]);
        t.macros.insert("kvfree_rcu".into());
        t.members.insert("spinlock.rlock".into());
        t.tags.insert("page".into());
        let back = TreeNames::parse(&t.to_text()).unwrap();
        assert!(back.declares("synchronize_rcu_expedited") && back.declares("kvfree_rcu"));
        assert!(back.defines("kvfree_rcu") && !back.defines("synchronize_rcu_expedited"));
        assert!(back.has_member("spinlock", "rlock") && !back.declares("rlock"));
        assert!(!back.has_member("page", "rlock"));
        assert!(back.declares_tag("page") && !back.declares("page"));
        assert!(!back.declares("del_timer"));
        assert!(TreeNames::parse("kfree\n").is_err());
    }

    #[test]
    fn file_scope_names_enum_constants_and_members_but_no_locals() {
        let src = "#define ret_max(a) ({ int ret = (a); ret; })\n\
                   enum hrtimer_mode { HRTIMER_MODE_ABS = 0, HRTIMER_MODE_REL = 1 };\n\
                   struct work_struct { atomic_long_t data; struct list_head entry; };\n\
                   extern unsigned long volatile jiffies;\n\
                   static inline int synchronize_rcu_expedited(int nparam)\n\
                   { int ret = nparam; struct { int inner; } x; return ret; }\n\
                   static inline bool detect(enum gmux_type *type_ret)\n{ bool local = 0; }\n\
                   void kfree(const void *objp);\n";
        let d = declarations(src);
        let of = |k: Declared| -> Vec<&str> {
            d.iter()
                .filter(|(_, kk)| std::mem::discriminant(kk) == std::mem::discriminant(&k))
                .map(|(n, _)| *n)
                .collect()
        };
        assert_eq!(of(Declared::Macro), vec!["ret_max"]);
        let names = of(Declared::Name);
        for n in [
            "HRTIMER_MODE_ABS",
            "HRTIMER_MODE_REL",
            "jiffies",
            "synchronize_rcu_expedited",
            "kfree",
        ] {
            assert!(names.contains(&n), "{n} in {names:?}");
        }
        for n in [
            "ret", "nparam", "objp", "a", "data", "inner", "x", "local", "type_ret",
        ] {
            assert!(!names.contains(&n), "{n} in {names:?}");
        }
        let tags = of(Declared::Tag);
        assert!(tags.contains(&"hrtimer_mode") && tags.contains(&"work_struct"));
        assert!(tags.contains(&"list_head"), "{tags:?}");
        // A tag only mentioned in a parameter list is not declared.
        assert!(!tags.contains(&"gmux_type"), "{tags:?}");
        let bodies = of(Declared::Body);
        assert!(bodies.contains(&"work_struct") && bodies.contains(&"hrtimer_mode"));
        assert!(!bodies.contains(&"list_head"), "{bodies:?}");
        assert!(!names.contains(&"work_struct") && !names.contains(&"list_head"));
        let members: Vec<_> = d
            .iter()
            .filter_map(|(n, k)| match k {
                Declared::Member(r) => Some((*r, *n)),
                _ => None,
            })
            .collect();
        // (A member's type counts too: a guess from tokens, harmless as a
        // member access never names a type.)
        assert!(members.contains(&("work_struct", "data")), "{members:?}");
        assert!(members.contains(&("work_struct", "entry")), "{members:?}");
        assert!(members
            .iter()
            .all(|(r, n)| *r == "work_struct" && !["inner", "ret"].contains(n)));
    }

    #[test]
    fn cleanup_definers_declare_what_they_paste() {
        let mut t = TreeNames::default();
        t.add(
            "DEFINE_FREE(kfree, void *, if (_T) kfree(_T))\n\
             DEFINE_LOCK_GUARD_1(spinlock, spinlock_t, spin_lock(_T->lock),\n\
             \t\t    spin_unlock(_T->lock))\n\
             DEFINE_GUARD(mutex, struct mutex *, mutex_lock(_T), mutex_unlock(_T))\n\
             DEFINE_GUARD_COND(mutex, _try, mutex_trylock(_T))\n\
             static inline void f(void) { DEFINE_FREE(inner, void *, x) }\n\
             #define DEFINE_FREE(_name, _type, _free) x\n",
        );
        for n in [
            "__free_kfree",
            "class_spinlock_t",
            "class_mutex_t",
            "class_mutex_try_t",
        ] {
            assert!(t.declares(n), "{n}");
        }
        // Not inside a body, nor a definition's parameters.
        assert!(!t.declares("__free_inner"));
        assert!(!t.declares("__free__name"));
        assert!(!t.declares("class_spin_lock_t"));
    }

    #[test]
    fn assembly_is_not_c() {
        let src = "#ifdef __ASSEMBLY__\nsize: .long 0\nlock name, type\n#else\nint c_name;\n\
                   #endif\n#ifndef __ASSEMBLY__\nint c_too;\n#else\nreg base\n#endif\n\
                   #if defined(__ASSEMBLY__) && X\noffset:\n#endif\nint last;\n";
        let names: Vec<&str> = declarations(src).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, vec!["c_name", "c_too", "last"]);
    }

    #[test]
    fn anonymous_structures_are_their_holder_s() {
        let src =
            "typedef struct spinlock {\n\tunion { struct raw_spinlock rlock; };\n} spinlock_t;\n\
                   typedef struct { int counter; } atomic_t;\n";
        let d = declarations(src);
        assert!(
            d.contains(&("rlock", Declared::Member("spinlock"))),
            "{d:?}"
        );
        assert!(
            d.contains(&("counter", Declared::Member("atomic_t"))),
            "{d:?}"
        );
        assert!(d.contains(&("spinlock", Declared::Body)), "{d:?}");
        assert!(
            d.contains(&("spinlock_t", Declared::Name))
                && d.contains(&("atomic_t", Declared::Name))
        );
    }

    #[test]
    fn open_quotes_crlf_and_continued_comments_keep_lines() {
        // A quote left open ends at its line.
        assert_eq!(
            names("#error don't\nint y;"),
            vec![
                ("error", 1, false),
                ("don", 1, false),
                ("int", 2, false),
                ("y", 2, false)
            ]
        );
        // A CRLF continuation continues a directive.
        let n = names("#define \\\r\nNAME 1\r\nint z;\r\n");
        assert_eq!(n[0], ("NAME", 2, true));
        assert!(n.contains(&("z", 3, false)));
        // A // comment a backslash continues swallows the next line.
        assert_eq!(names("// a \\\nhidden\nshown"), vec![("shown", 3, false)]);
    }
}
