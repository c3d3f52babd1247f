//! A patch's diff cut into file sections, each with its path in the tree
//! and the lines of the new file its hunks touch. Reads what `git
//! format-patch` writes (`diff --git`, `index`, mode, rename and binary
//! lines) and plain unified diffs.

use crate::kernel::cond::{lex_line, Lex};

/// A diff cut into file sections: `(path, section text)`, in order; the
/// text before the first section is dropped. A section starts at a `diff
/// --git` line, or at a `---`/`+++` pair that is not the header of a
/// section a `diff --git` line started; the lines of a hunk (counted from
/// its `@@` line) never start one. Its path is never empty (see
/// [`section_path`]).
pub(super) fn sections(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut starts = vec![];
    // A `diff --git` section whose `---`/`+++` header may still come.
    let mut git_header = false;
    // Old and new lines still to come in the current hunk.
    let mut hunk = (0usize, 0usize);
    for (i, l) in lines.iter().enumerate() {
        if hunk != (0, 0) {
            if hunk_line(l, &mut hunk).is_some() {
                continue;
            }
            hunk = (0, 0); // a hunk cut short: the line is read as a header
        }
        let next = lines.get(i + 1).copied().unwrap_or("");
        if l.starts_with("diff --git ") {
            starts.push(i);
            git_header = true;
        } else if l.starts_with("--- ") && next.starts_with("+++ ") {
            if !git_header {
                starts.push(i);
            }
            git_header = false;
        } else if let Some(h) = l.strip_prefix("@@ ") {
            if let Some((_, old, _, new)) = hunk_header(h) {
                hunk = (old, new);
            }
            git_header = false;
        }
    }
    let mut out = vec![];
    for (k, &s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(lines.len());
        out.push((section_path(&lines[s..e]), lines[s..e].concat()));
    }
    out
}

/// A section's path in the tree: its `+++` path; for a deleted file
/// (`+++ /dev/null`) its `---` path; for a section with neither (a
/// rename, a mode change, a binary file) the `b/` path of its `diff
/// --git` line. Only the header counts (the lines before the first hunk).
fn section_path(lines: &[&str]) -> String {
    let (mut new, mut old, mut git) = (None, None, None);
    for l in lines.iter().take_while(|l| !l.starts_with("@@ ")) {
        let l = l.trim_end_matches(['\n', '\r']);
        if let Some(p) = l.strip_prefix("+++ ") {
            new = new.or_else(|| diff_path(p));
        } else if let Some(p) = l.strip_prefix("--- ") {
            old = old.or_else(|| diff_path(p));
        } else if let Some(p) = l.strip_prefix("diff --git ") {
            git = git.or_else(|| git_b_path(p));
        }
    }
    new.or(old)
        .or(git)
        .unwrap_or_else(|| "(a file the diff does not name)".to_owned())
}

/// The path in the tree of a `---`/`+++` line's file: a timestamp after a
/// tab dropped, and the first component (`patch -p1`); `None` for
/// `/dev/null` or nothing.
fn diff_path(p: &str) -> Option<String> {
    let p = p.split('\t').next().unwrap_or(p).trim();
    let p = p
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(p);
    if p.is_empty() || p == "/dev/null" {
        return None;
    }
    let p = p.split_once('/').map_or(p, |(_, rest)| rest);
    (!p.is_empty()).then(|| p.to_owned())
}

/// The `b/` path of a `diff --git a/X b/Y` line (the text after `diff
/// --git `).
fn git_b_path(rest: &str) -> Option<String> {
    let rest = rest.trim();
    // `a/X b/X`: two halves naming the same file (X may hold " b/").
    let n = rest.len();
    if n % 2 == 1 && rest.is_char_boundary(n / 2) && rest.is_char_boundary(n / 2 + 1) {
        let (a, b) = (&rest[..n / 2], &rest[n / 2 + 1..]);
        if let (Some(x), Some(y)) = (a.strip_prefix("a/"), b.strip_prefix("b/")) {
            if x == y && !y.is_empty() {
                return Some(y.to_owned());
            }
        }
    }
    let i = rest.rfind(" b/")?;
    let p = rest[i + 3..].trim_matches('"');
    (!p.is_empty()).then(|| p.to_owned())
}

/// A hunk's `@@ -a,b +c,d @@` (the text after `@@ `): `(a, b, c, d)`, a
/// count left out being 1.
pub(super) fn hunk_header(h: &str) -> Option<(usize, usize, usize, usize)> {
    let mut words = h.split_whitespace();
    let range = |w: Option<&str>, sign: char| -> Option<(usize, usize)> {
        let w = w?.strip_prefix(sign)?;
        let (start, count) = w.split_once(',').unwrap_or((w, "1"));
        Some((start.parse().ok()?, count.parse().ok()?))
    };
    let (a, b) = range(words.next(), '-')?;
    let (c, d) = range(words.next(), '+')?;
    Some((a, b, c, d))
}

/// Counts a line of a hunk against the old and new lines still to come
/// (`left`): its kind (`' '`, `'-'`, `'+'`, `'\\'`), or `None` when it is
/// not a line of the hunk. An empty line is context a mailer stripped.
pub(super) fn hunk_line(l: &str, left: &mut (usize, usize)) -> Option<char> {
    let kind = match l.as_bytes().first() {
        None | Some(b'\n') | Some(b'\r') | Some(b' ') => ' ',
        Some(b'-') if left.0 > 0 => '-',
        Some(b'+') if left.1 > 0 => '+',
        Some(b'\\') => '\\',
        _ => return None,
    };
    match kind {
        ' ' => {
            left.0 = left.0.saturating_sub(1);
            left.1 = left.1.saturating_sub(1);
        }
        '-' => left.0 -= 1,
        '+' => left.1 -= 1,
        _ => {}
    }
    Some(kind)
}

/// The lines of the new file each section touches (added lines, and the
/// line where a removal was): `(path, lines)`.
pub fn touched_lines(text: &str) -> Vec<(String, Vec<usize>)> {
    sections(text)
        .into_iter()
        .map(|(path, body)| {
            let lines = changed_lines(&body);
            (path, lines)
        })
        .collect()
}

/// The lines of the new file a section's hunks touch: added lines, and
/// the line where a removal was (none in a file the section deletes).
fn changed_lines(body: &str) -> Vec<usize> {
    let mut lines = new_side_lines(body, true);
    lines.dedup();
    lines
}

/// The new-file lines of a section's `+` lines, by its hunk headers, and
/// with `removals` the line where each removed line was (none before the
/// file's first line).
fn new_side_lines(body: &str, removals: bool) -> Vec<usize> {
    let mut lines = vec![];
    let mut new = 0usize;
    let mut left = (0usize, 0usize);
    for l in body.split_inclusive('\n') {
        if left == (0, 0) {
            if let Some((_, old, start, count)) = l.strip_prefix("@@ ").and_then(hunk_header) {
                (new, left) = (start, (old, count));
            }
            continue;
        }
        match hunk_line(l, &mut left) {
            Some('+') => {
                lines.push(new);
                new = new.saturating_add(1);
            }
            Some('-') if removals && new > 0 => lines.push(new),
            Some(' ') => new = new.saturating_add(1),
            Some(_) => {}
            None => left = (0, 0),
        }
    }
    lines
}

/// The lines of `path`'s patched text `new_src` that `text`'s hunks touch
/// (as [`touched_lines`] gives them) in hunks whose every removed and
/// added line holds only comments and whitespace: edits no compiler sees.
/// The lexer's state where a hunk starts is the patched file's there (the
/// text before a hunk is the same on both sides), and each side of the
/// hunk is lexed from it.
pub fn comment_only_lines(text: &str, path: &str, new_src: &str) -> Vec<usize> {
    let src: Vec<&str> = new_src.split_inclusive('\n').collect();
    let state_before = |line: usize| {
        src.iter()
            .take(line.saturating_sub(1))
            .fold(Lex::Code, |s, l| lex_line(l, s).0)
    };
    let mut out = vec![];
    let hunks = sections(text)
        .into_iter()
        .filter(|(p, _)| p == path)
        .flat_map(|(_, body)| body_hunks(&body));
    for (start, hunk) in hunks {
        let (mut old, mut new) = (state_before(start), state_before(start));
        let mut inert = true;
        for (kind, text) in &hunk {
            if *kind != '+' {
                let (s, i) = lex_line(text, old);
                old = s;
                inert &= *kind == ' ' || i;
            }
            if *kind != '-' {
                let (s, i) = lex_line(text, new);
                new = s;
                inert &= *kind == ' ' || i;
            }
        }
        // The two sides must also leave the same state behind them.
        if inert && old == new {
            out.extend(changed_lines(&hunk_text(start, &hunk)));
        }
    }
    out
}

/// Whether `text`'s hunks of `path` add or remove a conditional
/// directive (`#if` … `#endif`): the file's groups are then not the ones
/// the lines around were in before the patch, anywhere after it.
pub fn changes_conditionals(text: &str, path: &str) -> bool {
    sections(text)
        .into_iter()
        .filter(|(p, _)| p == path)
        .flat_map(|(_, body)| body_hunks(&body))
        .any(|(_, hunk)| {
            hunk.iter()
                .any(|(k, l)| *k != ' ' && crate::kernel::cond::is_conditional(l))
        })
}

/// The files `text` renames or copies, old path first (`rename from`,
/// `copy from` lines of git's extended headers).
pub fn renamed(text: &str) -> Vec<(String, String)> {
    let mut out = vec![];
    let mut from: Option<&str> = None;
    for l in text.lines() {
        if let Some(f) = l
            .strip_prefix("rename from ")
            .or_else(|| l.strip_prefix("copy from "))
        {
            from = Some(f.trim());
        } else if let Some(t) = l
            .strip_prefix("rename to ")
            .or_else(|| l.strip_prefix("copy to "))
        {
            if let Some(f) = from.take() {
                out.push((f.to_owned(), t.trim().to_owned()));
            }
        }
    }
    out
}

/// The lines `text` adds to files outside the part of the tree the
/// harness extracts (`include/linux/...`), each hunk's joined apart (an
/// unbalanced brace in one must not hide the next): what a series
/// declares where the harness does not compile it.
pub fn added_outside(text: &str) -> Vec<String> {
    let mut out = vec![];
    for (path, body) in sections(text) {
        if crate::kernel::extracted(&path) {
            continue;
        }
        for (_, h) in body_hunks(&body) {
            let mut hunk = String::new();
            for (_, l) in h.into_iter().filter(|(k, _)| *k == '+') {
                hunk.push_str(l.trim_end_matches('\n'));
                hunk.push('\n');
            }
            out.push(hunk);
        }
    }
    out
}

/// The definitions `text`'s hunks of `path` remove whole: for each hunk
/// that adds no line and whose removed lines are whole top-level
/// definitions (as [`cscan`](crate::kernel::cscan) finds them) and
/// comments and whitespace, the lines of the new file it touches (as
/// [`touched_lines`] gives them) and the definitions' names. A definition
/// rewritten in place, or a hunk that also adds, is not a removal; nor is
/// a block that does not start a line (a statement's `if (x) {...}`), or
/// one whose name a line the patch adds anywhere holds (moved, or still
/// called).
pub fn removed_definitions(text: &str, path: &str) -> Vec<(Vec<usize>, Vec<String>)> {
    const NOT_NAMES: [&str; 6] = ["if", "for", "while", "switch", "do", "return"];
    let added: Vec<String> = sections(text)
        .into_iter()
        .flat_map(|(_, body)| body_hunks(&body))
        .flat_map(|(_, h)| h.into_iter().filter(|(k, _)| *k == '+').map(|(_, l)| l))
        .collect();
    let hunks = sections(text)
        .into_iter()
        .filter(|(p, _)| p == path)
        .flat_map(|(_, body)| body_hunks(&body));
    let mut out = vec![];
    for (start, hunk) in hunks {
        if hunk.iter().any(|(k, _)| *k == '+') {
            continue;
        }
        let removed: String = hunk
            .iter()
            .filter(|(k, _)| *k == '-')
            .map(|(_, l)| {
                if l.ends_with('\n') {
                    l.clone()
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        // The scanner reads the removed text as the file holds it: inside
        // the comment the hunk's leading context opened, if it did, and
        // closing the one its last line opens.
        let lead = hunk
            .iter()
            .take_while(|(k, _)| *k == ' ')
            .fold(Lex::Code, |st, (_, l)| lex_line(l, st).0);
        let tail = removed
            .split_inclusive('\n')
            .fold(lead, |st, l| lex_line(l, st).0);
        let scanned = format!(
            "{}{removed}{}",
            if lead == Lex::Comment { "/*" } else { "" },
            if tail == Lex::Comment { "*/\n" } else { "" }
        );
        let Ok(defs) = crate::kernel::cscan::definitions(&scanned) else {
            continue;
        };
        // A definition on lines of its own: its first line starts with it
        // and its last ends with it (`} int x;` is code beside it).
        let whole_lines = |d: &crate::kernel::cscan::Definition| {
            let lines: Vec<&str> = scanned.lines().collect();
            let n = d.text.lines().count().max(1);
            let (first, last) = (d.text.lines().next(), d.text.lines().last());
            let at = |k: usize| lines.get(k).map(|l| l.trim_end());
            d.line >= 1
                && at(d.line - 1).zip(first).is_some_and(|(l, f)| {
                    l.starts_with(|c: char| !c.is_whitespace()) && l.starts_with(f.trim_end())
                })
                && at(d.line + n - 2)
                    .zip(last)
                    .is_some_and(|(l, e)| l.ends_with(e.trim()))
        };
        let defs: Vec<_> = defs
            .into_iter()
            .filter(|d| d.text.ends_with('}') && whole_lines(d))
            .filter(|d| !NOT_NAMES.contains(&d.name.as_str()))
            .collect();
        if defs.iter().any(|d| added.iter().any(|l| names(l, &d.name))) {
            continue;
        }
        // The removed lines of the definitions (1-based, in `removed`).
        let in_def = |n: usize| {
            defs.iter()
                .any(|d| n >= d.line && n < d.line + d.text.lines().count())
        };
        // Both sides lexed from the hunk's first context line (where a
        // removal starts inside a comment its context opened, say): what
        // is removed beside the definitions must be comments, and leave
        // the lexer as the new side's context does.
        let (mut old, mut new) = (Lex::Code, Lex::Code);
        let (mut inert, mut n) = (true, 0);
        for (k, l) in &hunk {
            let (s, i) = lex_line(l, old);
            old = s;
            if *k == '-' {
                n += 1;
                inert &= i || in_def(n);
            } else {
                new = lex_line(l, new).0;
            }
        }
        if defs.is_empty() || !inert || old != new {
            continue;
        }
        let names = defs.into_iter().map(|d| d.name).collect();
        out.push((changed_lines(&hunk_text(start, &hunk)), names));
    }
    out
}

/// Whether a line `text` adds (any section's) holds the identifier `name`.
pub fn adds_identifier(text: &str, name: &str) -> bool {
    sections(text)
        .into_iter()
        .flat_map(|(_, body)| body_hunks(&body))
        .flat_map(|(_, h)| h.into_iter())
        .any(|(k, l)| k == '+' && names(&l, name))
}

/// Whether `line` holds the identifier `name` (not as part of a longer
/// one: `sc_drop_count` does not hold `sc_drop`).
fn names(line: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(name).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// A section's hunks: each one's first new line and its lines (kind,
/// text without the kind).
fn body_hunks(body: &str) -> Vec<(usize, Vec<(char, String)>)> {
    let mut hunks: Vec<(usize, Vec<(char, String)>)> = vec![];
    let mut left = (0usize, 0usize);
    for l in body.split_inclusive('\n') {
        if left == (0, 0) {
            if let Some((_, old, start, count)) = l.strip_prefix("@@ ").and_then(hunk_header) {
                left = (old, count);
                hunks.push((start, vec![]));
            }
            continue;
        }
        match hunk_line(l, &mut left) {
            Some(k @ (' ' | '-' | '+')) => {
                if let Some((_, h)) = hunks.last_mut() {
                    h.push((k, l.get(1..).unwrap_or("").to_owned()));
                }
            }
            Some(_) => {}
            None => left = (0, 0),
        }
    }
    hunks
}

/// A hunk written back as [`changed_lines`] reads one.
fn hunk_text(start: usize, hunk: &[(char, String)]) -> String {
    let old = hunk.iter().filter(|(k, _)| *k != '+').count();
    let new = hunk.iter().filter(|(k, _)| *k != '-').count();
    let mut t = format!("@@ -1,{old} +{start},{new} @@\n");
    for (k, l) in hunk {
        t.push(*k);
        t.push_str(l);
        if !l.ends_with('\n') {
            t.push('\n');
        }
    }
    t
}

/// The lines of the new file each section adds (`+` lines: a changed line
/// is removed and added), as cargo-mutants' `--in-diff` reads a diff: the
/// new side only, never a context line or where a removal was. `(path,
/// lines)`, a section's lines as its hunk headers give them (like
/// [`touched_lines`]), sections adding nothing left out.
pub fn added_lines(text: &str) -> Vec<(String, Vec<usize>)> {
    sections(text)
        .into_iter()
        .filter_map(|(path, body)| {
            let lines = section_added(&body);
            (!lines.is_empty()).then_some((path, lines))
        })
        .collect()
}

/// The new-side lines a section's `+` lines are, by its hunk headers.
pub(super) fn section_added(body: &str) -> Vec<usize> {
    new_side_lines(body, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paths of `text`'s sections.
    fn paths(text: &str) -> Vec<String> {
        sections(text).into_iter().map(|(p, _)| p).collect()
    }

    const QP: &str = "drivers/infiniband/hw/hfi1/qp.c";
    const SDMA: &str = "drivers/infiniband/hw/hfi1/sdma.c";

    /// One file as `git format-patch` writes it: `diff --git`, `index`,
    /// then `---`/`+++`; a removed line that reads `-- x` (so `--- x`)
    /// followed by an added `++ y` (so `+++ y`) inside the hunk.
    const ONE_FILE: &str = "Subject: [PATCH] IB/hfi1: x\n\n---\n \
drivers/infiniband/hw/hfi1/qp.c | 2 +-\n 1 file changed\n\n\
diff --git a/drivers/infiniband/hw/hfi1/qp.c b/drivers/infiniband/hw/hfi1/qp.c\n\
index 0123456..789abcd 100644\n\
--- a/drivers/infiniband/hw/hfi1/qp.c\n\
+++ b/drivers/infiniband/hw/hfi1/qp.c\n\
@@ -10,4 +10,4 @@ int f(void)\n \
a\n\
--- x\n\
+++ y\n \
b\n\
\n\
-- \n2.43.0\n";

    #[test]
    fn a_format_patch_file_is_one_section_with_its_git_header() {
        let s = sections(ONE_FILE);
        assert_eq!(s.len(), 1, "{s:#?}");
        assert_eq!(s[0].0, QP);
        assert!(s[0].1.starts_with("diff --git a/"), "{}", s[0].1);
        assert!(s[0].1.contains("index 0123456..789abcd"));
        // The hunk's own `--- x`/`+++ y` lines start nothing; the changed
        // line is where both are.
        assert_eq!(touched_lines(ONE_FILE), [(QP.to_owned(), vec![11])]);
    }

    #[test]
    fn two_files_are_two_sections() {
        let two = format!(
            "{ONE_FILE}diff --git a/{SDMA} b/{SDMA}\nindex 1..2 100644\n--- a/{SDMA}\n+++ b/{SDMA}\n@@ -5 +5,2 @@\n x\n+y\n"
        );
        assert_eq!(paths(&two), [QP, SDMA]);
        assert_eq!(touched_lines(&two)[1], (SDMA.to_owned(), vec![6]));
    }

    #[test]
    fn a_new_file_is_named_by_its_new_path() {
        let d =
            "diff --git a/drivers/infiniband/hw/hfi1/new.c b/drivers/infiniband/hw/hfi1/new.c\n\
new file mode 100644\nindex 0000000..e69de29\n--- /dev/null\n\
+++ b/drivers/infiniband/hw/hfi1/new.c\n@@ -0,0 +1,2 @@\n+a\n+b\n";
        assert_eq!(paths(d), ["drivers/infiniband/hw/hfi1/new.c"]);
        assert_eq!(touched_lines(d)[0].1, [1, 2]);
    }

    #[test]
    fn a_deleted_file_is_named_by_its_old_path() {
        let d = format!(
            "diff --git a/{SDMA} b/{SDMA}\ndeleted file mode 100644\nindex e69de29..0000000\n\
--- a/{SDMA}\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n"
        );
        assert_eq!(paths(&d), [SDMA]);
        assert!(touched_lines(&d)[0].1.is_empty());
    }

    #[test]
    fn a_rename_a_mode_change_and_a_binary_file_are_named_by_the_git_line() {
        let d = "diff --git a/drivers/infiniband/hw/hfi1/old.c b/drivers/infiniband/hw/hfi1/renamed.c\n\
similarity index 100%\nrename from drivers/infiniband/hw/hfi1/old.c\n\
rename to drivers/infiniband/hw/hfi1/renamed.c\n\
diff --git a/Makefile b/Makefile\nold mode 100644\nnew mode 100755\n\
diff --git a/include/rdma/fw.bin b/include/rdma/fw.bin\nindex 1..2 100644\n\
Binary files a/include/rdma/fw.bin and b/include/rdma/fw.bin differ\n";
        assert_eq!(
            paths(d),
            [
                "drivers/infiniband/hw/hfi1/renamed.c",
                "Makefile",
                "include/rdma/fw.bin"
            ]
        );
    }

    #[test]
    fn plain_diffs_follow_patch_p1() {
        let d = "--- linux.orig/drivers/infiniband/hw/hfi1/qp.c\t2024-01-01\n\
+++ linux/drivers/infiniband/hw/hfi1/qp.c\t2024-01-01\n@@ -3 +3 @@\n-a\n+b\n\
--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(paths(d), [QP, "x.c"]);
        for (p, _) in sections(d) {
            assert!(!p.is_empty());
        }
    }

    /// Only the new side's added lines: context and removed lines are
    /// not, and lines are numbered in the new file (an addition above
    /// shifts the hunks below).
    #[test]
    fn added_lines_are_the_new_sides_plus_lines() {
        let d = "--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,4 @@\n ctx\n+new\n old\n ctx\n\
                 @@ -10,4 +11,3 @@\n ctx\n-gone\n-was\n+now\n ctx\n\
                 --- a/y.c\n+++ b/y.c\n@@ -5,2 +5,1 @@\n ctx\n-removed only\n";
        assert_eq!(added_lines(d), [("x.c".to_owned(), vec![2, 12])]);
        // touched_lines also has where the removal was (y.c:6).
        assert_eq!(touched_lines(d)[1], ("y.c".to_owned(), vec![6]));
    }

    /// A patched file, and a patch of one hunk against it at `line`.
    fn one_hunk(line: usize, body: &[&str]) -> String {
        let old = body.iter().filter(|l| !l.starts_with('+')).count();
        let new = body.iter().filter(|l| !l.starts_with('-')).count();
        let mut t = format!("--- a/x.c\n+++ b/x.c\n@@ -{line},{old} +{line},{new} @@\n");
        for l in body {
            t.push_str(l);
            t.push('\n');
        }
        t
    }

    #[test]
    fn comment_only_hunks_are_told_from_code() {
        let src = "#define A 1\n/**\n * f() - does f\n * @x: x\n */\nint f(int x)\n{\n\treturn x; /* x */\n}\nchar *s = \"/*\";\nint g;\n";
        // A kernel-doc line inside the comment (its state from the file).
        let p = one_hunk(3, &["- * f() - does F", "+ * f() - does f", "  * @x: x"]);
        assert_eq!(comment_only_lines(&p, "x.c", src), vec![3]);
        // A macro's value: code.
        let p = one_hunk(1, &["-#define A 2", "+#define A 1", " /**"]);
        assert!(comment_only_lines(&p, "x.c", src).is_empty());
        // A trailing comment changed beside code: the line holds code.
        let p = one_hunk(8, &["-\treturn x; /* y */", "+\treturn x; /* x */", " }"]);
        assert!(comment_only_lines(&p, "x.c", src).is_empty());
        // An opener inside a string is not one: `int g;` stays code.
        let p = one_hunk(10, &[" char *s = \"/*\";", "-int h;", "+int g;"]);
        assert!(comment_only_lines(&p, "x.c", src).is_empty());
        // A blank line added, and a comment opened that swallows code
        // on one side only: the sides end in other states.
        let p = one_hunk(11, &["+", " int g;"]);
        assert_eq!(
            comment_only_lines(&p, "x.c", "char *s;\n\nint g;\n"),
            vec![11]
        );
        let p = one_hunk(2, &["+/*", " int g;"]);
        assert!(comment_only_lines(&p, "x.c", "int a;\n/*\nint g;\n").is_empty());
    }

    /// A function removed with its kernel-doc, as git aligns it when the
    /// next function's doc comment opens with the same `/**`: the removal
    /// starts inside the comment its context opened, and ends opening
    /// one. Both alignments remove the function and comments only.
    #[test]
    fn a_removal_starting_inside_a_comment_is_a_removed_definition() {
        let doc = ["- * f() - does f", "- */", "-void f(void)", "-{", "-}", "-"];
        let mid: Vec<&str> = ["  }", " ", " /**"]
            .into_iter()
            .chain(doc)
            .chain(["-/**", "  * g() - does g"])
            .collect();
        let whole: Vec<&str> = ["  }", " "]
            .into_iter()
            .chain(["-/**"])
            .chain(doc)
            .chain([" /**", "  * g() - does g"])
            .collect();
        for body in [mid, whole] {
            let got = removed_definitions(&one_hunk(10, &body), "x.c");
            assert_eq!(got.len(), 1, "{body:?}");
            assert_eq!(got[0].1, ["f"]);
        }
        // Code removed beside it is not a removal of definitions only.
        let code = [
            "  }",
            " ",
            " /**",
            "- * f()",
            "- */",
            "-void f(void)",
            "-{",
            "-}",
            "-int x;",
        ];
        assert!(removed_definitions(&one_hunk(10, &code), "x.c").is_empty());
        // Nor is code on the definition's first or last line.
        let after = ["  }", " ", "-void f(void)", "-{", "-} int x;", " "];
        assert!(removed_definitions(&one_hunk(10, &after), "x.c").is_empty());
        let before = ["  }", " ", "-int y; void f(void)", "-{", "-}", " "];
        assert!(removed_definitions(&one_hunk(10, &before), "x.c").is_empty());
    }

    #[test]
    fn hunk_headers() {
        assert_eq!(hunk_header("-1 +1 @@"), Some((1, 1, 1, 1)));
        assert_eq!(hunk_header("-10,4 +12,5 @@ f()"), Some((10, 4, 12, 5)));
        assert_eq!(hunk_header("-0,0 +1 @@"), Some((0, 0, 1, 1)));
        assert_eq!(hunk_header("garbage"), None);
    }

    /// A name is an identifier, not part of a longer one; and only lines
    /// a patch adds name it.
    #[test]
    fn identifiers_added() {
        assert!(names("\tsc_drop(sc);", "sc_drop"));
        assert!(!names("\tsc_drop_count++;", "sc_drop"));
        assert!(!names("\tmy_sc_drop(sc);", "sc_drop"));
        let p = "--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n-void sc_drop(int x);\n+void sc_drop_all(int x);\n int y;\n";
        assert!(!adds_identifier(p, "sc_drop"));
        assert!(adds_identifier(p, "sc_drop_all"));
        assert!(!adds_identifier(p, "y"), "a context line is not added");
    }
}
