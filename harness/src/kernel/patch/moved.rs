//! Where a patch's lines are: its hunks moved where `patch` applied them
//! (an offset, a hand-edited `+` start), and lines carried through the
//! patches applied after it, so that every line analysis reads the tree
//! the patches made.

use super::diff::{hunk_header, hunk_line, section_added, sections};

/// `text`'s file sections with each hunk moved where `patch` applied it:
/// `offsets` gives, per path, the offset (in lines) of its hunks in
/// order, as `patch` reports them (`Hunk #2 succeeded at 1700 (offset
/// -29 lines)`; a hunk it says nothing of applied where its header says).
/// What the line analyses of this module read of the tree the patch was
/// applied to, when that tree is not the one the patch was made on.
///
/// A hunk's new-file start is where `patch` puts its lines, not what its
/// header says: `patch` places a hunk by its old start (and the offset
/// it finds), so a hand-edited header whose `+` start disagrees is read
/// as applied (the old start, moved, plus what the section's hunks
/// before it added). The message and every header that already says so
/// are left as written.
pub fn moved_hunks(text: &str, offsets: &[(String, Vec<i64>)]) -> String {
    let sections = sections(text);
    // The message before the first section, as it was: the sections are
    // the rest of the text, line for line.
    let body_len: usize = sections.iter().map(|(_, b)| b.len()).sum();
    let mut out = text[..text.len() - body_len].to_owned();
    // A path's n-th section is `patch`'s n-th `patching file` of it.
    let mut seen: Vec<&str> = vec![];
    for (path, body) in &sections {
        let nth = seen.iter().filter(|p| **p == path.as_str()).count();
        seen.push(path);
        let moved = offsets
            .iter()
            .filter(|(p, _)| p == path)
            .nth(nth)
            .map(|(_, o)| o);
        let mut hunk = 0usize;
        let mut left = (0usize, 0usize);
        // New lines less old lines of the section's hunks so far.
        let mut grown = 0i64;
        for l in body.split_inclusive('\n') {
            if left == (0, 0) {
                if let Some((a, b, c, d)) = l.strip_prefix("@@ ").and_then(hunk_header) {
                    left = (b, d);
                    let k = moved.and_then(|o| o.get(hunk)).copied().unwrap_or(0);
                    hunk += 1;
                    let old = signed(a).saturating_add(k).max(0);
                    let new = new_start(old, b, d, grown);
                    grown = grown.saturating_add(signed(d)).saturating_sub(signed(b));
                    if (old, new) == (signed(a), signed(c)) {
                        out.push_str(l);
                    } else {
                        let tail = l.splitn(4, ' ').nth(3).unwrap_or("@@\n");
                        out.push_str(&format!("@@ -{old},{b} +{new},{d} {tail}"));
                    }
                    continue;
                }
                out.push_str(l);
                continue;
            }
            if hunk_line(l, &mut left).is_none() {
                left = (0, 0);
            }
            out.push_str(l);
        }
    }
    out
}

/// Where a hunk of `b` old and `d` new lines whose old start is `old`
/// begins in the new file, the section's hunks before it having added
/// `grown` lines, as `diff -u` writes it: a hunk that removes nothing
/// (`b == 0`) inserts after old line `old`; one that adds nothing
/// (`d == 0`) names the new line before where its lines were.
fn new_start(old: i64, b: usize, d: usize, grown: i64) -> i64 {
    let at = old.saturating_add(grown);
    match (b, d) {
        (0, _) => at.saturating_add(1),
        (_, 0) => at.saturating_sub(1),
        _ => at,
    }
    .max(0)
}

/// Lines of the tree a patch was applied to (`(path, lines)`), where they
/// are in the tree it made: `text` the patch as applied (its hunks' old
/// starts where `patch` put them, [`moved_hunks`]). A line the patch
/// removes is gone; a line before, between or after its hunks moves by
/// what the hunks before it added; a context line moves with its hunk.
/// How the lines an earlier patch of a series added are read in the
/// tree the whole series made.
pub fn carried_lines(lines: &[(String, Vec<usize>)], text: &str) -> Vec<(String, Vec<usize>)> {
    let sections = sections(text);
    lines
        .iter()
        .map(|(path, ls)| carry_through(path, ls, &sections))
        .collect()
}

/// `path`'s lines `ls` through `sections` in order: each section that
/// patches the file (its path, or a rename of it) moves them, and a
/// rename names the file anew. The file's path and its lines after them.
fn carry_through(path: &str, ls: &[usize], sections: &[(String, String)]) -> (String, Vec<usize>) {
    let mut path = path.to_owned();
    let mut bodies = vec![];
    for (p, body) in sections {
        if let Some(to) = renamed_to(&path, body) {
            path = to;
        } else if *p != path {
            continue;
        }
        bodies.push(body.as_str());
    }
    let moved = ls
        .iter()
        .filter_map(|&l| bodies.iter().try_fold(l, |l, b| carried(l, b)))
        .collect();
    (path, moved)
}

/// The new path of `path` when section `body` renames it (git's `rename
/// from`/`rename to` header; a copy leaves the file where it was).
fn renamed_to(path: &str, body: &str) -> Option<String> {
    let mut from = None;
    for l in body.lines().take_while(|l| !l.starts_with("@@ ")) {
        let name = |n: &str| n.trim().trim_matches('"').to_owned();
        if let Some(f) = l.strip_prefix("rename from ") {
            from = Some(name(f));
        } else if let Some(t) = l.strip_prefix("rename to ") {
            if from.as_deref() == Some(path) {
                return Some(name(t));
            }
        }
    }
    None
}

/// Old line `at` of a section's file, where it is after the section's
/// hunks; `None` when a hunk removes it.
fn carried(at: usize, body: &str) -> Option<usize> {
    let mut grown = 0i64;
    let mut left = (0usize, 0usize);
    // The old and new line the hunk's next line is.
    let (mut old, mut new) = (0usize, 0usize);
    for l in body.split_inclusive('\n') {
        if left == (0, 0) {
            let Some((a, b, _, d)) = l.strip_prefix("@@ ").and_then(hunk_header) else {
                continue;
            };
            // A hunk that removes nothing inserts after old line `a`.
            // Header numbers are the text's: saturating, never wrapping.
            let first = if b == 0 { a.saturating_add(1) } else { a };
            if at < first {
                break;
            }
            if at >= first.saturating_add(b) {
                grown = grown.saturating_add(signed(d)).saturating_sub(signed(b));
                continue;
            }
            let start = signed(first).saturating_add(grown);
            (old, new, left) = (first, usize::try_from(start).unwrap_or(0), (b, d));
            continue;
        }
        match hunk_line(l, &mut left) {
            Some(' ') if old == at => return Some(new),
            Some('-') if old == at => return None,
            Some(' ') => (old, new) = (old.saturating_add(1), new.saturating_add(1)),
            Some('-') => old = old.saturating_add(1),
            Some('+') => new = new.saturating_add(1),
            Some(_) => {}
            None => left = (0, 0),
        }
    }
    usize::try_from(signed(at).saturating_add(grown)).ok()
}

/// A line number or count as a signed one, saturating.
fn signed(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// [`added_lines`] read in the files the whole patch made, one entry a
/// file: a section's lines carried through the later sections of the
/// same file ([`carried_lines`]; `patch` applies them after it), then
/// merged. What the mutants of a patch's added lines are made from.
pub fn added_lines_merged(text: &str) -> Vec<(String, Vec<usize>)> {
    let sections = sections(text);
    let mut out: Vec<(String, Vec<usize>)> = vec![];
    for (i, (path, body)) in sections.iter().enumerate() {
        let lines = section_added(body);
        if lines.is_empty() {
            continue;
        }
        let (path, lines) = carry_through(path, &lines, &sections[i + 1..]);
        match out.iter_mut().find(|(p, _)| *p == path) {
            Some((_, ls)) => ls.extend(lines),
            None => out.push((path, lines)),
        }
    }
    for (_, ls) in &mut out {
        ls.sort_unstable();
        ls.dedup();
    }
    out.retain(|(_, ls)| !ls.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::super::diff::{
        added_lines, adds_identifier, changes_conditionals, comment_only_lines,
        removed_definitions, renamed, touched_lines,
    };
    use super::*;

    /// A hunk `patch` applied at an offset is read where it applied: its
    /// touched and added lines move by the offset, those of a hunk at no
    /// offset and of other files stay.
    #[test]
    fn hunks_move_by_their_offset() {
        let text = "Subject: x\n\n---\n--- a/f.c\n+++ b/f.c\n@@ -10,3 +10,3 @@ int f(void)\n a\n-b\n+c\n d\n\
                    @@ -40,2 +40,3 @@\n e\n+f\n g\n--- a/g.c\n+++ b/g.c\n@@ -5 +5 @@\n-x\n+y\n";
        let moved = moved_hunks(text, &[("f.c".into(), vec![-4, 7])]);
        assert_eq!(
            touched_lines(&moved),
            [
                ("f.c".to_string(), vec![7, 48]),
                ("g.c".to_string(), vec![5])
            ]
        );
        assert_eq!(added_lines(&moved)[0], ("f.c".to_string(), vec![7, 48]));
        assert!(moved.contains("@@ -6,3 +6,3 @@ int f(void)\n"), "{moved}");
        assert_eq!(touched_lines(&moved_hunks(text, &[])), touched_lines(text));
        // A file in two sections: each its own `patching file`.
        let twice = "--- a/f.c\n+++ b/f.c\n@@ -10 +10 @@\n-b\n+c\n--- a/f.c\n+++ b/f.c\n@@ -50 +50 @@\n-d\n+e\n";
        let moved = moved_hunks(twice, &[("f.c".into(), vec![10]), ("f.c".into(), vec![13])]);
        assert_eq!(
            added_lines(&moved),
            [("f.c".to_string(), vec![20]), ("f.c".to_string(), vec![63])]
        );
        assert_eq!(
            renamed("rename from a/x.h\nrename to a/y.h\n"),
            [("a/x.h".to_string(), "a/y.h".to_string())]
        );
    }

    /// `patch` places a hunk by its old start: a hand-edited `+` start
    /// is read where the lines went (the old start, moved, plus what the
    /// section's hunks before it added), and a patch whose headers agree
    /// comes back as written.
    #[test]
    fn new_starts_are_read_from_old_ones() {
        // Hunk 1 adds a line at 10; hunk 2 says +40 but lands at 41;
        // hunk 3 inserts after old line 60 (new 62); hunk 4 removes old
        // line 70, new 72 (`+N,0` names new line 71, the one before).
        let text = "--- a/f.c\n+++ b/f.c\n@@ -10,2 +90,3 @@\n a\n+b\n c\n\
                    @@ -40,2 +40,2 @@\n-d\n+e\n f\n@@ -60,0 +7,1 @@\n+g\n@@ -70 +1,0 @@\n-h\n";
        let moved = moved_hunks(text, &[]);
        assert_eq!(added_lines(&moved), [("f.c".to_string(), vec![11, 41, 62])]);
        assert!(moved.contains("@@ -60,0 +62,1 @@\n"), "{moved}");
        assert!(moved.contains("@@ -70,1 +71,0 @@\n"), "{moved}");
        // Moved by an offset as well.
        let moved = moved_hunks(text, &[("f.c".into(), vec![5, 5, 5, 5])]);
        assert_eq!(added_lines(&moved), [("f.c".to_string(), vec![16, 46, 67])]);
        // Headers that agree, a count left out included: unchanged.
        let agree = "--- a/f.c\n+++ b/f.c\n@@ -10,2 +10,3 @@ int f(void)\n a\n+b\n c\n\
                     @@ -40 +41 @@\n-d\n+e\n@@ -60,0 +62 @@\n+g\n";
        assert_eq!(moved_hunks(agree, &[]), agree);
        let del = "--- a/g.c\n+++ b/g.c\n@@ -1,2 +0,0 @@\n-x\n-y\n";
        assert_eq!(moved_hunks(del, &[]), del);
        // The message before the diff stays too.
        let mail = format!("Subject: [PATCH] x\n\nWhy.\n---\ndiff --git a/f.c b/f.c\n{agree}");
        assert_eq!(moved_hunks(&mail, &[]), mail);
        assert!(moved_hunks(&mail, &[("f.c".into(), vec![1])])
            .starts_with("Subject: [PATCH] x\n\nWhy.\n---\ndiff --git"));
    }

    /// Header numbers near the top of their type saturate: no panic, no
    /// wrap, whatever the text says.
    #[test]
    fn huge_header_numbers_saturate() {
        let max = usize::MAX;
        let text = format!("--- a/f.c\n+++ b/f.c\n@@ -{max},{max} +{max},{max} @@\n-a\n+b\n");
        let _ = moved_hunks(&text, &[("f.c".into(), vec![i64::MAX])]);
        let _ = carried_lines(&[("f.c".into(), vec![max, 1])], &text);
        let _ = added_lines_merged(&text);
        let _ = (touched_lines(&text), added_lines(&text));
        let _ = comment_only_lines(&text, "f.c", "a\nb\n");
        let _ = (
            changes_conditionals(&text, "f.c"),
            adds_identifier(&text, "b"),
        );
        let _ = removed_definitions(&text, "f.c");
    }

    /// A line of the tree before a patch, read in the tree after it:
    /// moved by the hunks before it, with its hunk when it is context,
    /// gone when removed; other files' lines stay.
    #[test]
    fn lines_are_carried_through_a_later_patch() {
        let later = "--- a/f.c\n+++ b/f.c\n@@ -10,3 +10,4 @@\n a\n-b\n+c\n+d\n e\n\
                     @@ -30,0 +32,2 @@\n+x\n+y\n@@ -50,2 +53,1 @@\n-p\n q\n";
        let lines = vec![
            (
                "f.c".to_string(),
                vec![5, 10, 11, 12, 20, 30, 31, 50, 51, 60],
            ),
            ("g.c".to_string(), vec![7]),
        ];
        assert_eq!(
            carried_lines(&lines, later),
            [
                ("f.c".to_string(), vec![5, 10, 13, 21, 31, 34, 53, 62]),
                ("g.c".to_string(), vec![7])
            ]
        );
        // A rename names the file anew and its hunks move the lines; a
        // copy leaves them.
        let rename =
            "diff --git a/f.c b/h.c\nsimilarity index 90%\nrename from f.c\nrename to h.c\n\
                      --- a/f.c\n+++ b/h.c\n@@ -3,0 +4 @@\n+z\n";
        assert_eq!(
            carried_lines(&[("f.c".to_string(), vec![2, 9])], rename),
            [("h.c".to_string(), vec![2, 10])]
        );
        let copy = rename.replace("rename ", "copy ");
        assert_eq!(
            carried_lines(&[("f.c".to_string(), vec![2, 9])], &copy),
            [("f.c".to_string(), vec![2, 9])]
        );
    }

    /// A patch that patches a file in two sections: the lines the first
    /// adds are read where the second, applied after it, moved them.
    #[test]
    fn a_files_second_section_moves_the_first_ones_lines() {
        let text = "--- a/f.c\n+++ b/f.c\n@@ -20 +20 @@\n-a\n+b\n\
                    --- a/f.c\n+++ b/f.c\n@@ -4,0 +5,3 @@\n+x\n+y\n+z\n";
        assert_eq!(
            added_lines_merged(text),
            [("f.c".to_string(), vec![5, 6, 7, 23])]
        );
        // Section by section, as touched_lines reads them.
        assert_eq!(
            added_lines(text),
            [
                ("f.c".to_string(), vec![20]),
                ("f.c".to_string(), vec![5, 6, 7])
            ]
        );
    }
}
