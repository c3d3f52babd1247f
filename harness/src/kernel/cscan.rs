//! A small C definition extractor.
//!
//! Some upstream driver logic lives in files too large to compile whole in
//! userspace (`sdma.c`, `pio.c`, `verbs.c`, `driver.c`, rdmavt's `qp.c`).
//! The build takes the named top-level definitions from those files
//! verbatim, at build time, and compiles them behind a `#line` directive so
//! diagnostics and coverage point at the upstream file and line.
//!
//! The scanner understands exactly what is needed to find the extent of a
//! top-level definition: comments, string and character literals,
//! preprocessor lines (with continuations) and nested braces, brackets and
//! parentheses. It does not parse C.

use std::fmt;

/// One top-level definition found in a C file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// The declared name (`sdma_select_engine_vl`, `ib_rvt_state_ops`).
    pub name: String,
    /// The definition's text, from the first token of its declaration
    /// specifiers to its closing `}` or `;`.
    pub text: String,
    /// 1-based line of the first character of `text`.
    pub line: usize,
}

/// Why a definition could not be extracted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtractError {
    /// No top-level definition of that name.
    NotFound {
        /// The name looked for.
        name: String,
    },
    /// More than one (for example under different `#if` branches).
    Ambiguous {
        /// The name looked for.
        name: String,
        /// Where each definition starts.
        lines: Vec<usize>,
    },
    /// The file ends inside a comment, literal or block.
    Unterminated {
        /// `comment`, `string`, `character literal` or `block`.
        what: &'static str,
        /// Where it starts.
        line: usize,
    },
}

impl fmt::Display for ExtractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtractError::NotFound { name } => {
                write!(f, "no top-level definition of `{name}`")
            }
            ExtractError::Ambiguous { name, lines } => {
                write!(f, "`{name}` is defined more than once (lines {lines:?})")
            }
            ExtractError::Unterminated { what, line } => {
                write!(f, "unterminated {what} starting at line {line}")
            }
        }
    }
}

impl std::error::Error for ExtractError {}

/// A cursor over C source: the byte it is at, and that byte's line.
struct Cursor<'a> {
    src: &'a str,
    b: &'a [u8],
    i: usize,
    line: usize,
}

impl Cursor<'_> {
    /// Whether the source at the cursor starts with `two`.
    fn at_pair(&self, two: &[u8; 2]) -> bool {
        self.i + 1 < self.b.len() && self.b[self.i] == two[0] && self.b[self.i + 1] == two[1]
    }

    /// Moves to the end of the line (its newline, not consumed).
    fn skip_line(&mut self) {
        while self.i < self.b.len() && self.b[self.i] != b'\n' {
            self.i += 1;
        }
    }

    /// Skips the `/* ... */` comment at the cursor.
    fn skip_block_comment(&mut self) -> Result<(), ExtractError> {
        let l0 = self.line;
        self.i += 2;
        loop {
            if self.i + 1 >= self.b.len() {
                return Err(ExtractError::Unterminated {
                    what: "comment",
                    line: l0,
                });
            }
            if self.at_pair(b"*/") {
                self.i += 2;
                return Ok(());
            }
            if self.b[self.i] == b'\n' {
                self.line += 1;
            }
            self.i += 1;
        }
    }

    /// Skips a preprocessor line between definitions, with its backslash
    /// continuations and the block comments in it.
    fn skip_directive(&mut self) -> Result<(), ExtractError> {
        while self.i < self.b.len() && self.b[self.i] != b'\n' {
            if self.at_pair(b"\\\n") {
                self.line += 1;
                self.i += 2;
            } else if self.at_pair(b"/*") {
                self.skip_block_comment()?;
            } else {
                self.i += 1;
            }
        }
        Ok(())
    }

    /// Skips a preprocessor line inside a definition (it stays part of
    /// the definition's text), noting in `pp` the conditional it opens,
    /// switches to a later branch, or closes.
    fn skip_inner_directive(&mut self, pp: &mut Vec<bool>) {
        let word: String = self.src[self.i + 1..]
            .trim_start_matches([' ', '\t'])
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        match word.as_str() {
            "if" | "ifdef" | "ifndef" => pp.push(false),
            "elif" | "else" => {
                if let Some(top) = pp.last_mut() {
                    *top = true;
                }
            }
            "endif" => {
                pp.pop();
            }
            _ => {}
        }
        while self.i < self.b.len() && self.b[self.i] != b'\n' {
            if self.at_pair(b"\\\n") {
                self.line += 1;
                self.i += 1;
            }
            self.i += 1;
        }
    }

    /// Skips the string or character literal opened by `quote` at the
    /// cursor; a literal must end on its line.
    fn skip_literal(&mut self, quote: u8) -> Result<(), ExtractError> {
        let l0 = self.line;
        self.i += 1;
        loop {
            if self.i >= self.b.len() || self.b[self.i] == b'\n' {
                return Err(ExtractError::Unterminated {
                    what: if quote == b'"' {
                        "string"
                    } else {
                        "character literal"
                    },
                    line: l0,
                });
            }
            if self.b[self.i] == b'\\' {
                self.i += 2;
                continue;
            }
            if self.b[self.i] == quote {
                self.i += 1;
                return Ok(());
            }
            self.i += 1;
        }
    }
}

/// The top-level chunk being read: where it started, how deep in
/// brackets the scan is, and whether it has a `(` before any `=` at depth
/// 0 (so looks like a function declarator) and an `=`.
#[derive(Default)]
struct Chunk {
    start: Option<(usize, usize)>,
    depth: i32,
    saw_paren: bool,
    saw_assign: bool,
}

impl Chunk {
    /// Starts a chunk at a token at byte `i` of `line`, unless one is open.
    fn open(&mut self, i: usize, line: usize) {
        if self.start.is_none() {
            self.start = Some((i, line));
            self.saw_paren = false;
            self.saw_assign = false;
        }
    }

    /// Reads the token `c` at byte `i`; a chunk it ends (a function's
    /// closing brace, a `;` at depth 0) goes to `out` as (start, end,
    /// line).
    fn token(&mut self, c: u8, i: usize, line: usize, out: &mut Vec<(usize, usize, usize)>) {
        match c {
            b'(' | b'[' => {
                if self.depth == 0 && c == b'(' && !self.saw_assign {
                    self.saw_paren = true;
                }
                self.depth += 1;
            }
            b')' | b']' => self.depth -= 1,
            b'{' => self.depth += 1,
            b'}' => {
                self.depth -= 1;
                if self.depth == 0 && self.saw_paren && !self.saw_assign {
                    // The end of a function body.
                    let (s, l) = self.start.take().unwrap_or((i, line));
                    out.push((s, i + 1, l));
                }
            }
            b'=' if self.depth == 0 => self.saw_assign = true,
            b';' if self.depth == 0 => {
                let (s, l) = self.start.take().unwrap_or((i, line));
                out.push((s, i + 1, l));
            }
            _ => {}
        }
    }
}

/// Splits `src` into its top-level chunks (declarations and definitions),
/// skipping preprocessor lines and comments between them, as (start,
/// end, line).
fn chunks(src: &str) -> Result<Vec<(usize, usize, usize)>, ExtractError> {
    let mut cur = Cursor {
        src,
        b: src.as_bytes(),
        i: 0,
        line: 1,
    };
    let mut out = Vec::new();
    let mut chunk = Chunk::default();
    let mut at_line_start = true;
    // Conditionals opened inside a definition: whether each one's current
    // branch is skipped. Only the first branch of an `#if … #else …
    // #endif` inside a definition is counted (vendor code duplicates a
    // line's opening `if (` in both branches); the text keeps them all.
    let mut pp: Vec<bool> = vec![];

    while let Some(&c) = cur.b.get(cur.i) {
        match c {
            b'\n' => {
                cur.line += 1;
                at_line_start = true;
                cur.i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\x0c' => {
                cur.i += 1;
                continue;
            }
            b'#' if at_line_start && chunk.depth == 0 && chunk.start.is_none() && pp.is_empty() => {
                cur.skip_directive()?;
                continue;
            }
            b'#' if at_line_start => {
                cur.skip_inner_directive(&mut pp);
                continue;
            }
            _ => {}
        }
        if pp.iter().any(|&skipped| skipped) {
            // A later branch of a conditional: not counted.
            cur.skip_line();
            continue;
        }
        at_line_start = false;
        if cur.at_pair(b"//") {
            cur.skip_line();
            continue;
        }
        if cur.at_pair(b"/*") {
            cur.skip_block_comment()?;
            continue;
        }
        chunk.open(cur.i, cur.line);
        if c == b'"' || c == b'\'' {
            cur.skip_literal(c)?;
            continue;
        }
        chunk.token(c, cur.i, cur.line, &mut out);
        cur.i += 1;
    }
    if let Some((_, l)) = chunk.start {
        if chunk.depth != 0 {
            return Err(ExtractError::Unterminated {
                what: "block",
                line: l,
            });
        }
    }
    Ok(out)
}

/// The declared name of a chunk: the identifier just before the first `(`,
/// `[`, `=` or `;` outside any nesting (for a function, its name; for an
/// array or variable, the variable; for a type declaring none, its tag).
fn declared_name(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut last_ident: Option<&str> = None;
    // The tag of a type whose body was skipped: the name of a definition
    // that declares no variable (`struct mem_pool_info { ... };`).
    let mut tag: Option<&str> = None;
    while i < b.len() {
        let c = b[i];
        if c == b'_' || c.is_ascii_alphabetic() {
            let s = i;
            while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric()) {
                i += 1;
            }
            let id = &text[s..i];
            // `__attribute__((...))` and friends are not declarators.
            if id.starts_with("__attribute") {
                let mut d = 0;
                while i < b.len() {
                    match b[i] {
                        b'(' => d += 1,
                        b')' => {
                            d -= 1;
                            if d == 0 {
                                i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                continue;
            }
            last_ident = Some(id);
            continue;
        }
        match c {
            b'(' => {
                // `(*name)(...)` declares a function pointer called `name`.
                let rest = text[i + 1..].trim_start();
                if let Some(r) = rest.strip_prefix('*') {
                    let r = r.trim_start();
                    let n: String = r
                        .chars()
                        .take_while(|c| *c == '_' || c.is_ascii_alphanumeric())
                        .collect();
                    if !n.is_empty() {
                        return Some(n);
                    }
                }
                return last_ident.map(str::to_owned);
            }
            b'{' if matches!(last_ident, Some("struct" | "union" | "enum"))
                || text[..i]
                    .split_whitespace()
                    .rev()
                    .nth(1)
                    .is_some_and(|w| matches!(w, "struct" | "union" | "enum")) =>
            {
                // A type's body: skip it, the declarator follows.
                if !matches!(last_ident, Some("struct" | "union" | "enum")) {
                    tag = last_ident;
                }
                let mut d = 0;
                while i < b.len() {
                    match b[i] {
                        b'{' => d += 1,
                        b'}' => {
                            d -= 1;
                            if d == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                last_ident = None;
            }
            b';' if last_ident.is_none() => return tag.map(str::to_owned),
            b'[' | b'=' | b';' | b'{' => return last_ident.map(str::to_owned),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Every top-level definition (and declaration) in `src`, in order.
pub fn definitions(src: &str) -> Result<Vec<Definition>, ExtractError> {
    Ok(chunks(src)?
        .into_iter()
        .filter_map(|(s, e, line)| {
            let text = &src[s..e];
            declared_name(text).map(|name| Definition {
                name,
                text: text.to_owned(),
                line,
            })
        })
        .collect())
}

/// The one top-level *definition* named `name` in `src`: a function with a
/// body, or a variable with an initializer. Prototypes and `extern`
/// declarations are skipped.
pub fn extract(src: &str, name: &str) -> Result<Definition, ExtractError> {
    let mut found: Vec<Definition> = definitions(src)?
        .into_iter()
        .filter(|d| d.name == name && is_definition(&d.text))
        .collect();
    if found.is_empty() {
        found = macro_definitions(src, name);
    }
    match found.len() {
        0 => Err(ExtractError::NotFound {
            name: name.to_owned(),
        }),
        1 => Ok(found.into_iter().next().unwrap_or_else(|| unreachable!())),
        _ => Err(ExtractError::Ambiguous {
            name: name.to_owned(),
            lines: found.iter().map(|d| d.line).collect(),
        }),
    }
}

/// The file's own `#define name` lines (object-like or function-like),
/// each with its backslash continuations: the macros a definition taken
/// from the file uses (pio.c's `SC(name)`).
fn macro_definitions(src: &str, name: &str) -> Vec<Definition> {
    macros(src).into_iter().filter(|d| d.name == name).collect()
}

/// Every `#define` of `src`, named by its macro, with its continuation
/// lines.
pub fn macros(src: &str) -> Vec<Definition> {
    let lines: Vec<&str> = src.split_inclusive('\n').collect();
    let mut out = vec![];
    let mut i = 0;
    while i < lines.len() {
        let start = i;
        let mut text = String::from(lines[i]);
        while text.trim_end_matches('\n').ends_with('\\') && i + 1 < lines.len() {
            i += 1;
            text.push_str(lines[i]);
        }
        i += 1;
        let Some(rest) = text.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| *c == '_' || c.is_ascii_alphanumeric())
            .collect();
        if !name.is_empty() {
            out.push(Definition {
                name,
                text: text.trim_end().to_owned(),
                line: start + 1,
            });
        }
    }
    out
}

fn is_definition(text: &str) -> bool {
    let t = text.trim_start();
    if t.starts_with("extern ") || t.starts_with("EXPORT_SYMBOL") {
        return false;
    }
    // A body, an initializer, or a type's members (`struct x { ... };`).
    if text.trim_end().ends_with('}') || text.contains('=') || text.contains('{') {
        return true;
    }
    // A variable a kernel macro defines (`static DEFINE_MUTEX(m);`).
    let bare = t.strip_prefix("static ").unwrap_or(t).trim_start();
    if bare.starts_with("DEFINE_") && t.trim_end().ends_with(");") {
        return true;
    }
    // A tentative definition (`uint mod_num_sdma;`): a variable, no
    // prototype (no parameter list), no type named alone (`struct x;`)
    // and no typedef.
    let first = t.split_whitespace().next().unwrap_or("");
    !text.contains('(')
        && !matches!(first, "typedef" | "struct" | "union" | "enum")
        && t.trim_end().ends_with(';')
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"// SPDX
#include "hfi.h"
#define BRACE "{" /* } */ \
	more

/* a comment with { and } and "quotes" */
struct sdma_engine *sdma_select_engine_vl(
	struct hfi1_devdata *dd,
	u32 selector,
	u8 vl)
{
	const char *s = "}";
	char c = '}';
	if (vl >= num_vls) {
		/* } */
		return NULL;
	}
	return dd->per_sdma;
}
EXPORT_SYMBOL(sdma_select_engine_vl);

int proto(int a);

const int ib_rvt_state_ops[IB_QPS_ERR + 1] = {
	[IB_QPS_RESET] = 0,
	[IB_QPS_INIT] = RVT_POST_RECV_OK,
};

static struct foo {
	int a;
} bar = { 1 };

int proto(int a)
{
	return a;
}
"#;

    #[test]
    fn extracts_a_function_with_braces_in_literals_and_comments() {
        let d = extract(SRC, "sdma_select_engine_vl").expect("found");
        assert_eq!(d.line, 7);
        assert!(d
            .text
            .starts_with("struct sdma_engine *sdma_select_engine_vl("));
        assert!(d.text.ends_with("return dd->per_sdma;\n}"));
    }

    #[test]
    fn extracts_an_initialised_array() {
        let d = extract(SRC, "ib_rvt_state_ops").expect("found");
        assert_eq!(d.line, 24);
        assert!(d
            .text
            .starts_with("const int ib_rvt_state_ops[IB_QPS_ERR + 1] = {"));
        assert!(d.text.ends_with("};"));
    }

    #[test]
    fn skips_prototypes_and_exports() {
        let d = extract(SRC, "proto").expect("found");
        assert_eq!(d.line, 33);
        assert!(d.text.contains("return a;"));
    }

    #[test]
    fn extracts_a_macro_with_its_continuations() {
        let d = extract(SRC, "BRACE").expect("found");
        assert_eq!(d.line, 3);
        assert_eq!(d.text, "#define BRACE \"{\" /* } */ \\\n\tmore");
        let src = "# define SC(name) SEND_CTXT_##name\n#define SCX 1\n#define S C\n";
        let d = extract(src, "SC").expect("found");
        assert_eq!(
            (d.line, d.text.as_str()),
            (1, "# define SC(name) SEND_CTXT_##name")
        );
        assert_eq!(extract(src, "S").map(|d| d.line), Ok(3));
        let twice = "#ifdef A\n#define M 1\n#else\n#define M 2\n#endif\n";
        assert_eq!(
            extract(twice, "M"),
            Err(ExtractError::Ambiguous {
                name: "M".into(),
                lines: vec![2, 4]
            })
        );
    }

    #[test]
    fn names_a_type_definition_by_its_tag() {
        let src = "struct pool;\nstruct pool {\n\tint blocks;\n};\nstatic struct pool p[2] = { { 1 } };\n";
        let d = extract(src, "pool").expect("found");
        assert_eq!(
            (d.line, d.text.as_str()),
            (2, "struct pool {\n\tint blocks;\n};")
        );
        assert_eq!(extract(src, "p").map(|d| d.line), Ok(5));
    }

    #[test]
    fn names_a_struct_variable() {
        let d = extract(SRC, "bar").expect("found");
        assert!(d.text.starts_with("static struct foo {"));
    }

    #[test]
    fn missing_is_an_error() {
        assert_eq!(
            extract(SRC, "nope"),
            Err(ExtractError::NotFound {
                name: "nope".into()
            })
        );
    }

    #[test]
    fn duplicate_is_an_error() {
        let src = "int f(void)\n{\n}\n#if X\nint f(void)\n{\n}\n#endif\n";
        assert_eq!(
            extract(src, "f"),
            Err(ExtractError::Ambiguous {
                name: "f".into(),
                lines: vec![1, 5]
            })
        );
    }

    #[test]
    fn counts_the_first_branch_of_a_conditional() {
        // Vendor code opens `if (` in both branches of an #ifdef.
        let src = "int f(int a)\n{\n#ifdef X\n\tif (a > 1 ||\n#else\n\tif (a > 2 ||\n#endif\n\t    a < 0)\n\t\treturn 1;\n\treturn 0;\n}\n\nint g(void)\n{\n\treturn 2;\n}\n";
        let d = extract(src, "f").expect("f");
        assert!(d.text.ends_with("return 0;\n}"), "{}", d.text);
        assert!(d.text.contains("#else"), "{}", d.text);
        assert_eq!(extract(src, "g").expect("g").line, 13);
    }

    #[test]
    fn unterminated_comment_is_an_error() {
        assert_eq!(
            extract("int a;\n/* open", "a"),
            Err(ExtractError::Unterminated {
                what: "comment",
                line: 2
            })
        );
    }

    #[test]
    fn function_pointer_variable() {
        let src = "static void (*hook)(int) = handler;\n";
        let d = extract(src, "hook").expect("found");
        assert_eq!(d.line, 1);
    }

    #[test]
    fn a_tentative_definition_is_a_definition() {
        let src = "uint mod_num_sdma;\nstruct later;\nstatic void f(int);\nextern uint num_vls;\n";
        assert_eq!(extract(src, "mod_num_sdma").map(|d| d.line).ok(), Some(1));
        assert!(extract(src, "f").is_err(), "a prototype is no definition");
        assert!(
            extract(src, "num_vls").is_err(),
            "an extern declaration is none"
        );
        assert!(extract(src, "later").is_err(), "a type named alone is none");
    }

    /// `static DEFINE_MUTEX(m);` defines a variable (named by its macro,
    /// as the scope statement lists it); a call of another macro does not.
    #[test]
    fn a_define_macro_is_a_definition() {
        let src = "static DEFINE_MUTEX(process_to_sde_mutex);
MODULE_LICENSE(\"GPL\");
";
        let d = extract(src, "DEFINE_MUTEX").expect("defined");
        assert_eq!(
            (d.line, d.text.trim()),
            (1, "static DEFINE_MUTEX(process_to_sde_mutex);")
        );
        assert!(extract(src, "MODULE_LICENSE").is_err());
    }
}
