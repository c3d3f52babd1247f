//! The source side of comparison boundaries: which relational operator a
//! call site's column names, the operators written inside a macro call's
//! arguments (the debug information places code expanded from a macro at
//! the macro's name), and the comparison's expression as the line writes
//! it.

/// The relational operator (`<`, `<=`, `>`, `>=`) starting at byte
/// column `col` (1-based) of `line`; none for `->`, `<<`, `>>`, `<<=`,
/// `>>=` or anything else.
pub fn operator_at(line: &str, col: usize) -> Option<&'static str> {
    let b = line.as_bytes();
    let i = col.checked_sub(1)?;
    let c = *b.get(i)?;
    if c != b'<' && c != b'>' {
        return None;
    }
    let prev = i.checked_sub(1).and_then(|p| b.get(p)).copied();
    if matches!(prev, Some(b'-' | b'<' | b'>')) {
        return None;
    }
    match (c, b.get(i + 1).copied()) {
        (b'<', Some(b'=')) => Some("<="),
        (b'>', Some(b'=')) => Some(">="),
        (_, Some(n)) if n == c => None,
        (b'<', _) => Some("<"),
        _ => Some(">"),
    }
}

/// The byte ranges of `text` outside comments and string and character
/// literals, as a mask: `code[i]` is whether byte `i` is code.
fn code_mask(text: &str) -> Vec<bool> {
    let b = text.as_bytes();
    let mut mask = vec![true; b.len()];
    let mut i = 0;
    while i < b.len() {
        let end = match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                text[i + 2..].find("*/").map_or(b.len(), |p| i + p + 4)
            }
            q @ (b'"' | b'\'') => {
                let mut j = i + 1;
                while j < b.len() && b[j] != q {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                (j + 1).min(b.len())
            }
            _ => {
                i += 1;
                continue;
            }
        };
        mask[i..end].iter_mut().for_each(|m| *m = false);
        i = end;
    }
    mask
}

/// The byte offsets of every relational operator written in `text`
/// (outside comments and literals).
pub fn operators_in(text: &str) -> Vec<(usize, &'static str)> {
    let code = code_mask(text);
    (0..text.len())
        .filter(|&i| code[i])
        .filter_map(|i| operator_at(text, i + 1).map(|op| (i, op)))
        .collect()
}

/// When `col` of `line` starts a macro call (`unlikely(`, `WARN_ON(`):
/// its arguments' text, from `line` and the lines after it (`rest`) up to
/// the closing parenthesis, and the byte offset in `line` where it begins.
pub fn macro_arguments(line: &str, rest: &[&str], col: usize) -> Option<(String, usize)> {
    let start = col.checked_sub(1)?;
    let tail = line.get(start..)?;
    let name_len = tail
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
        .count();
    if name_len == 0 || tail.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    let after = tail[name_len..].trim_start();
    if !after.starts_with('(') {
        return None;
    }
    let open = start + name_len + (tail.len() - name_len - after.len());
    let mut text = line[open + 1..].to_owned();
    let mut more = rest.iter();
    loop {
        let code = code_mask(&text);
        let mut depth = 0usize;
        for (i, c) in text.bytes().enumerate().filter(|(i, _)| code[*i]) {
            match c {
                b'(' => depth += 1,
                b')' if depth == 0 => return Some((text[..i].to_owned(), open + 1)),
                b')' => depth -= 1,
                _ => {}
            }
        }
        text.push('\n');
        text.push_str(more.next()?);
    }
}

/// Whether a two-character operator starts at `i` of `b`.
fn pair(b: &[u8], i: usize, two: &[u8; 2]) -> bool {
    b.get(i..i + 2) == Some(&two[..])
}

/// Where an operand running left from (`dir` < 0) or right from the
/// operator ends: at an unmatched bracket, `,`, `;`, `?`, `:`, `{`, `&&`,
/// `||`, an assignment or a logical not.
fn operand_end(b: &[u8], from: usize, left: bool) -> usize {
    let mut depth = 0i32;
    let mut i = from;
    loop {
        let (c, next) = if left {
            if i == 0 {
                return 0;
            }
            (b[i - 1], i - 1)
        } else {
            if i >= b.len() {
                return b.len();
            }
            (b[i], i + 1)
        };
        let at = if left { i - 1 } else { i };
        let (open, close) = if left { (b')', b'(') } else { (b'(', b')') };
        match c {
            _ if c == open || (c == b'[' && !left) || (c == b']' && left) => depth += 1,
            _ if c == close || (c == b']' && !left) || (c == b'[' && left) => {
                if depth == 0 {
                    return i;
                }
                depth -= 1;
            }
            b',' | b';' | b'?' | b':' | b'{' | b'}' if depth == 0 => return i,
            b'&' | b'|' if depth == 0 => {
                let start = if left { at.saturating_sub(1) } else { at };
                if pair(b, start, b"&&") || pair(b, start, b"||") {
                    return i;
                }
            }
            b'=' if depth == 0 => {
                let before = at.checked_sub(1).map(|p| b[p]);
                let after = b.get(at + 1).copied();
                let compound = matches!(before, Some(b'=' | b'!' | b'<' | b'>'));
                if !compound && after != Some(b'=') {
                    return i;
                }
            }
            b'!' if depth == 0 && b.get(at + 1) != Some(&b'=') => return i,
            _ => {}
        }
        i = next;
    }
}

/// The operands of the comparison whose operator is at byte offset `at`
/// of `text`, as written (whitespace squashed); they end where an
/// expression around them goes on.
pub fn operands(text: &str, at: usize, op: &str) -> (String, String) {
    let b = text.as_bytes();
    if at + op.len() > b.len() {
        return (String::new(), String::new());
    }
    let l = operand_end(b, at, true);
    let r = operand_end(b, at + op.len(), false);
    let left = text[l..at].trim();
    let left = ["return ", "if ", "while "]
        .iter()
        .fold(left, |s, k| s.strip_prefix(k).unwrap_or(s));
    let right = &text[at + op.len()..r];
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    (squash(left), squash(right))
}

/// The comparison whose operator is at byte offset `at` of `text`, as
/// written (`qp->s_cur >= qp->s_size`), one space each side of the
/// operator.
pub fn expression_at(text: &str, at: usize, op: &str) -> String {
    let (left, right) = operands(text, at, op);
    format!("{left} {op} {right}")
}

/// Whether an operand's text is a constant as kernel code writes them: a
/// number, or names in capitals (`RVT_MAX_RDMA_ATOMIC`, `SZ_4K - 1`). A
/// constant on the left of a comparison is the case the recorder cannot
/// tell (the compiler passes the constant first either way).
pub fn looks_constant(operand: &str) -> bool {
    let s = operand.trim();
    if s.is_empty() || s.contains("->") || s.contains('.') {
        return false;
    }
    let mut words = s
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .peekable();
    words.peek().is_some()
        && words.all(|w| {
            w.starts_with(|c: char| c.is_ascii_digit())
                || !w.bytes().any(|c| c.is_ascii_lowercase())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_column_names_relational_operators_only() {
        let l = "\tif (a >= b && c<d && p->n > (x >> 2) && y <<= 1 && q <= r)";
        let col = |s: &str| l.find(s).unwrap() + 1;
        assert_eq!(operator_at(l, col(">= b")), Some(">="));
        assert_eq!(operator_at(l, col("<d")), Some("<"));
        assert_eq!(operator_at(l, col("> (x")), Some(">"));
        assert_eq!(operator_at(l, col("<= r")), Some("<="));
        assert_eq!(operator_at(l, col("->") + 1), None);
        assert_eq!(operator_at(l, col(">> 2")), None);
        assert_eq!(operator_at(l, col(">> 2") + 1), None);
        assert_eq!(operator_at(l, col("<<=")), None);
        assert_eq!(operator_at(l, col("<<=") + 1), None);
        assert_eq!(operator_at(l, col("if")), None);
        assert_eq!(operator_at(l, 999), None);
    }

    #[test]
    fn operators_in_code_not_in_comments_or_strings() {
        let t = "a < b /* c > d */ && s == \"<x>\" && e>=f // g < h";
        let ops: Vec<&str> = operators_in(t).iter().map(|o| o.1).collect();
        assert_eq!(ops, vec!["<", ">="]);
    }

    #[test]
    fn a_macro_calls_arguments_may_span_lines() {
        let l = "\tif (unlikely(qp->s_cur >= n ||";
        let col = l.find("unlikely").unwrap() + 1;
        let (args, at) = macro_arguments(l, &["\t\t     f(x) < 3))", "more"], col).unwrap();
        assert_eq!(args, "qp->s_cur >= n ||\n\t\t     f(x) < 3");
        assert_eq!(&l[at..at + 4], "qp->");
        assert_eq!(operators_in(&args).len(), 2);
        assert_eq!(macro_arguments(l, &[], l.find("if").unwrap() + 1), None);
        assert_eq!(macro_arguments("WARN_ON(a", &[], 1), None);
    }

    #[test]
    fn the_expression_is_cut_where_the_expression_around_it_goes_on() {
        let l = "\tif (qp->s_last >= qp->s_size && (n = f(a, b)) < 3)";
        let at = l.find(">=").unwrap();
        assert_eq!(expression_at(l, at, ">="), "qp->s_last >= qp->s_size");
        let at = l.find(") < 3").unwrap() + 2;
        assert_eq!(expression_at(l, at, "<"), "(n = f(a, b)) < 3");
        let l = "\treturn x[i] <= lim;";
        assert_eq!(expression_at(l, l.find("<=").unwrap(), "<="), "x[i] <= lim");
        let l = "for (i = 0; i < n; i++) {";
        assert_eq!(expression_at(l, l.find("< n").unwrap(), "<"), "i < n");
        let l = "if (!a > b)";
        assert_eq!(expression_at(l, l.find('>').unwrap(), ">"), "a > b");
    }

    #[test]
    fn constants_are_numbers_and_capitals() {
        assert!(looks_constant("7"));
        assert!(looks_constant("0x1fU"));
        assert!(looks_constant("RVT_MAX_RDMA_ATOMIC"));
        assert!(looks_constant("(SZ_4K - 1)"));
        assert!(!looks_constant("qp->s_size"));
        assert!(!looks_constant("n"));
        assert!(!looks_constant("QP->x"));
        assert!(!looks_constant("(x)"));
        assert!(!looks_constant("sizeof(X)"));
    }
}
