//! A C file's conditional groups, as the preprocessor nests them: each
//! `#if`/`#ifdef`/`#ifndef` opens a group, each `#elif`/`#else` starts its
//! sibling, `#endif` closes it. Which group a line or the gap between two
//! lines is directly in, and the code lines of a group: what deciding
//! whether an edit is compiled out needs beside the preprocessor's own
//! output (`cworld::build::compiled_lines`). Only the nesting is read
//! here; no condition is evaluated.

/// Where a C lexer stands at the end of a line: in code, or inside a
/// block comment (a string or character literal ends with its line).
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Lex {
    Code,
    Comment,
}

/// Lexes `line` from `state`: the state at its end, and whether the line
/// holds nothing but comments and whitespace.
pub(crate) fn lex_line(line: &str, mut state: Lex) -> (Lex, bool) {
    let b = line.as_bytes();
    let (mut i, mut inert) = (0, true);
    while i < b.len() {
        match state {
            Lex::Comment if b[i..].starts_with(b"*/") => {
                state = Lex::Code;
                i += 2;
            }
            Lex::Comment => i += 1,
            Lex::Code if b[i..].starts_with(b"/*") => {
                state = Lex::Comment;
                i += 2;
            }
            Lex::Code if b[i..].starts_with(b"//") => break,
            Lex::Code if b[i].is_ascii_whitespace() => i += 1,
            Lex::Code => {
                inert = false;
                if b[i] == b'"' || b[i] == b'\'' {
                    // A literal: to its closing quote (a comment opener
                    // inside it is not one).
                    let q = b[i];
                    i += 1;
                    while i < b.len() && b[i] != q {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                }
                i += 1;
            }
        }
    }
    (state, inert)
}

/// Whether `line`, read from code (not inside a comment), is a
/// preprocessor directive: its first token, past whitespace and
/// comments, is `#`.
pub fn is_directive(line: &str) -> bool {
    directive_body(line).is_some()
}

/// Whether `line` is a conditional directive (`#if`, `#ifdef`, `#ifndef`,
/// `#elif`, `#else`, `#endif`).
pub fn is_conditional(line: &str) -> bool {
    conditional(line).is_some()
}

/// The text after a directive line's `#` (see [`is_directive`]).
fn directive_body(line: &str) -> Option<&str> {
    let mut rest = line;
    loop {
        rest = rest.trim_start();
        match rest.strip_prefix("/*").map(|r| r.split_once("*/")) {
            Some(Some((_, after))) => rest = after,
            Some(None) => return None,
            None => return rest.strip_prefix('#'),
        }
    }
}

/// What a line of the file is.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    /// Something the compiler reads.
    Code,
    /// Whitespace and comments only.
    Inert,
    /// A preprocessor directive, or a continuation of one.
    Directive,
}

/// The conditional groups of one file.
#[derive(Debug, Clone, Default)]
pub struct Conditionals {
    /// Per line (from line 1): its kind and the group it is directly in.
    lines: Vec<(Kind, Option<usize>)>,
    /// Per line: the group the text after it is directly in.
    after: Vec<Option<usize>>,
    /// Per group: the directive that starts it, as a reader names it
    /// (`#ifdef CONFIG_X`, `#else of #ifdef CONFIG_X`).
    heads: Vec<String>,
}

/// The conditional directive a line starts, and the rest of its text.
fn conditional(line: &str) -> Option<(&str, &str)> {
    let rest = directive_body(line)?.trim_start();
    let word = rest
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()?;
    match word {
        "if" | "ifdef" | "ifndef" | "elif" | "elifdef" | "elifndef" | "else" | "endif" => {
            Some((word, rest))
        }
        _ => None,
    }
}

/// A directive's text as one line: continuations joined, comments and
/// runs of whitespace cut.
fn head_text(text: &str) -> String {
    let text = text.split("/*").next().unwrap_or(text);
    let text = text.split("//").next().unwrap_or(text);
    let words: Vec<&str> = text.split_whitespace().collect();
    format!("#{}", words.join(" "))
}

impl Conditionals {
    /// The groups of the C text `src`.
    pub fn scan(src: &str) -> Conditionals {
        let mut c = Conditionals::default();
        // The open groups, innermost last: (group, head of its #if).
        let mut stack: Vec<(usize, String)> = vec![];
        let (mut state, mut continued) = (Lex::Code, false);
        // The directive being read, its continuations joined.
        let mut directive_text = String::new();
        for line in src.lines() {
            let at_start = state;
            let (end, inert) = lex_line(line, state);
            state = end;
            let top = stack.last().map(|(g, _)| *g);
            let directive = continued || (at_start == Lex::Code && is_directive(line));
            if !directive {
                let kind = if inert { Kind::Inert } else { Kind::Code };
                c.lines.push((kind, top));
                c.after.push(top);
                continue;
            }
            if !continued {
                directive_text.clear();
            }
            directive_text.push_str(line.trim_end().trim_end_matches('\\'));
            directive_text.push(' ');
            continued = line.trim_end().ends_with('\\');
            c.lines.push((Kind::Directive, top));
            if !continued {
                if let Some((word, rest)) = conditional(&directive_text) {
                    c.open_or_close(&mut stack, word, head_text(rest));
                }
            }
            c.after.push(stack.last().map(|(g, _)| *g));
        }
        c
    }

    /// The groups after conditional directive `word` (`head` its text).
    fn open_or_close(&mut self, stack: &mut Vec<(usize, String)>, word: &str, head: String) {
        match word {
            "if" | "ifdef" | "ifndef" => {
                self.heads.push(head.clone());
                stack.push((self.heads.len() - 1, head));
            }
            "endif" => {
                stack.pop();
            }
            _ => {
                if let Some((g, opening)) = stack.last_mut() {
                    self.heads.push(format!("{head} of {opening}"));
                    *g = self.heads.len() - 1;
                }
            }
        }
    }

    /// The group code line `line` (from 1) is directly in; `None` for a
    /// line outside every group, or one that is not code.
    pub fn of_line(&self, line: usize) -> Option<usize> {
        match self.lines.get(line.checked_sub(1)?)? {
            (Kind::Code, g) => *g,
            _ => None,
        }
    }

    /// The group the gap before line `line` (from 1; where a removal
    /// was) is directly in.
    pub fn of_gap(&self, line: usize) -> Option<usize> {
        *self.after.get(line.checked_sub(2)?)?
    }

    /// The code lines directly in group `g` (not in a group inside it).
    pub fn code_lines(&self, g: usize) -> impl Iterator<Item = usize> + '_ {
        self.lines
            .iter()
            .enumerate()
            .filter(move |(_, l)| **l == (Kind::Code, Some(g)))
            .map(|(i, _)| i + 1)
    }

    /// The directive that starts group `g`.
    pub fn head(&self, g: usize) -> &str {
        self.heads.get(g).map_or("", String::as_str)
    }

    /// Every group, in the order their directives come.
    pub fn groups(&self) -> std::ops::Range<usize> {
        0..self.heads.len()
    }

    /// Whether the file has a conditional group at all.
    pub fn any(&self) -> bool {
        !self.heads.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "\
#ifndef X_H
#define X_H
int f(int x)
{
#ifdef CONFIG_A
\tx++; /* a */
#if B > \\
    1
\tx--;
#endif
#else
\tx = 0;
\t/* only a comment */
#endif
\treturn x;
}
#endif
";

    #[test]
    fn lines_and_gaps_are_in_their_innermost_group() {
        let c = Conditionals::scan(SRC);
        let g = |l| c.of_line(l).map(|g| c.head(g).to_owned());
        assert_eq!(g(3).as_deref(), Some("#ifndef X_H"));
        assert_eq!(g(6).as_deref(), Some("#ifdef CONFIG_A"));
        assert_eq!(g(9).as_deref(), Some("#if B > 1"));
        assert_eq!(g(12).as_deref(), Some("#else of #ifdef CONFIG_A"));
        // Directives, their continuations and comments are not code.
        for l in [1, 2, 5, 7, 8, 10, 13, 14] {
            assert_eq!(c.of_line(l), None, "line {l}");
        }
        // The gap after #endif is back in the group around it.
        let gap = |l| c.of_gap(l).map(|g| c.head(g).to_owned());
        assert_eq!(gap(11).as_deref(), Some("#ifdef CONFIG_A"));
        assert_eq!(gap(15).as_deref(), Some("#ifndef X_H"));
        assert_eq!(gap(18), None);
        assert_eq!(gap(1), None);
        let a = c.of_line(6).expect("a group");
        assert_eq!(c.code_lines(a).collect::<Vec<_>>(), [6]);
        assert!(c.any() && !Conditionals::scan("int x;\n").any());
    }

    /// A `#` inside a comment opens nothing; one after a comment on its
    /// line does, as the preprocessor reads it.
    #[test]
    fn a_directive_inside_a_comment_is_not_one() {
        let c = Conditionals::scan("/*\n#if 0\n*/\nint x;\n");
        assert!(!c.any());
        assert_eq!(c.of_line(4), None);
        let c = Conditionals::scan("/* a */ #ifdef B\nint x;\n#endif\n");
        assert_eq!(c.of_line(2).map(|g| c.head(g)), Some("#ifdef B"));
        assert!(is_directive("\t# define X") && !is_directive("x = 1; /* # */"));
    }
}
