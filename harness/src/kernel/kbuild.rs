//! The warning flags a kernel tree builds its C code with, read from the
//! tree's own top `Makefile` and `scripts/Makefile.extrawarn` (5.x and
//! later; older trees keep them all in the top Makefile).
//!
//! The gate compiles base and patched upstream code with these, so the
//! warnings it reports a patch adding are the ones `make` would print for
//! that tree (a default build: `W=` unset, gcc, no `CONFIG_WERROR`).
//!
//! This is not make: it follows `KBUILD_CFLAGS` through the conditionals of
//! the normal build path (the sub-make, not a config or mixed build), and
//! evaluates `$(VAR)`, `$(findstring …)`, `$(call cc-option, …)` and
//! `$(call cc-disable-warning, …)`. A condition on a `CONFIG_` option it
//! cannot know (say `CONFIG_FRAME_WARN`) leaves both of its branches out,
//! so a flag is included only when the default build certainly has it.

/// The names kbuild has given the file of default warning flags, newest
/// last.
pub const WARN_FILES: &[&str] = &["Makefile.extrawarn", "Makefile.warn"];

/// What the normal build path of a default gcc build sees.
fn known(var: &str) -> Option<&'static str> {
    Some(match var {
        // The sub-make of an ordinary in-tree build, not a configuration
        // target, not a mixed build, no `W=`.
        "need-sub-make" | "mixed-build" | "config-build" | "KBUILD_EXTMOD" => "",
        "KBUILD_EXTRA_WARN" | "KBUILD_ENABLE_EXTRA_GCC_CHECKS" | "W" => "",
        "CONFIG_CC_IS_GCC" => "y",
        "CONFIG_CC_IS_CLANG" | "CONFIG_WERROR" => "",
        // init/Kconfig: `default "-Wimplicit-fallthrough=5" if CC_IS_GCC`.
        "CONFIG_CC_IMPLICIT_FALLTHROUGH" => "-Wimplicit-fallthrough=5",
        _ => return None,
    })
}

/// The `-W…` flags of `KBUILD_CFLAGS` in a default build of the tree whose
/// top Makefile is `top`; `extrawarn` is `scripts/Makefile.extrawarn`
/// when the tree has one (it is read where the Makefile includes it).
pub fn warning_flags(top: &str, extrawarn: Option<&str>) -> Vec<String> {
    let mut flags = vec![];
    let mut conds: Vec<Cond> = vec![];
    walk(top, extrawarn, &mut conds, &mut flags);
    // Later flags win in gcc, as in make's order: keep the last of each
    // duplicate only.
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<String> = flags
        .into_iter()
        .rev()
        .filter(|f| seen.insert(f.clone()))
        .collect();
    out.reverse();
    out
}

/// One open conditional: whether its current branch is taken (`None`: not
/// known, so neither branch is).
#[derive(Clone, Copy)]
struct Cond {
    taken: Option<bool>,
}

fn walk(text: &str, extrawarn: Option<&str>, conds: &mut Vec<Cond>, flags: &mut Vec<String>) {
    for line in logical_lines(text) {
        let line = strip_comment(&line);
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        let (word, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
        let rest = rest.trim();
        match word {
            "ifeq" | "ifneq" => {
                let t = eval_compare(rest).map(|eq| eq == (word == "ifeq"));
                conds.push(Cond { taken: t });
                continue;
            }
            "ifdef" | "ifndef" => {
                let t = lookup(rest).map(|v| v.is_empty() == (word == "ifndef"));
                conds.push(Cond { taken: t });
                continue;
            }
            "else" => {
                if let Some(c) = conds.last_mut() {
                    // `else ifeq …` chains: the else branch is the nested
                    // test, taken only if the first was not.
                    let before = c.taken;
                    let nested = rest.split_once(char::is_whitespace);
                    c.taken = before.map(|b| !b);
                    if let Some((w, r)) = nested {
                        let inner = match w {
                            "ifeq" | "ifneq" => eval_compare(r.trim()).map(|e| e == (w == "ifeq")),
                            "ifdef" | "ifndef" => {
                                lookup(r.trim()).map(|v| v.is_empty() == (w == "ifndef"))
                            }
                            _ => None,
                        };
                        c.taken = match (before, inner) {
                            (Some(true), _) => Some(false),
                            (Some(false), i) => i,
                            (None, _) => None,
                        };
                    }
                }
                continue;
            }
            "endif" => {
                conds.pop();
                continue;
            }
            _ => {}
        }
        if !conds.iter().all(|c| c.taken == Some(true)) {
            continue;
        }
        // `include $(srctree)/scripts/Makefile.extrawarn` (≤6.6),
        // `include-y := scripts/Makefile.extrawarn` (later), and the file
        // renamed `Makefile.warn` (7.x): read where it is named.
        if WARN_FILES
            .iter()
            .any(|f| l.contains(&format!("scripts/{f}")))
        {
            if let Some(x) = extrawarn {
                let mut inner = vec![];
                walk(x, None, &mut inner, flags);
            }
            continue;
        }
        let Some((lhs, op, rhs)) = assignment(l) else {
            continue;
        };
        if lhs != "KBUILD_CFLAGS" {
            continue;
        }
        if op == ":=" || op == "=" {
            flags.clear();
        }
        for tok in tokens(rhs) {
            flags.extend(expand(&tok));
        }
    }
}

/// Joins `\`-continued lines.
fn logical_lines(text: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    for l in text.lines() {
        if let Some(head) = l.strip_suffix('\\') {
            cur.push_str(head);
            cur.push(' ');
        } else {
            cur.push_str(l);
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn strip_comment(l: &str) -> String {
    match l.find('#') {
        // A recipe line or `\#` is not a comment start; neither matters
        // for KBUILD_CFLAGS.
        Some(i) if !l[..i].ends_with('\\') => l[..i].to_owned(),
        _ => l.to_owned(),
    }
}

fn assignment(l: &str) -> Option<(&str, &str, &str)> {
    for op in ["+=", ":=", "?=", "="] {
        if let Some((lhs, rhs)) = l.split_once(op) {
            let lhs = lhs.trim();
            if !lhs.is_empty() && !lhs.contains(char::is_whitespace) && !lhs.contains('$') {
                return Some((lhs, op, rhs.trim()));
            }
            return None;
        }
    }
    None
}

/// Splits at whitespace outside `$(…)`.
fn tokens(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut depth = 0usize;
    for ch in s.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if ch.is_whitespace() && depth == 0 {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(ch);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The warning flags one token of `KBUILD_CFLAGS` stands for.
fn expand(tok: &str) -> Vec<String> {
    if let Some(inner) = tok.strip_prefix("$(").and_then(|t| t.strip_suffix(')')) {
        if let Some(args) = inner.strip_prefix("call ") {
            let mut parts = args.splitn(2, ',');
            let func = parts.next().unwrap_or("").trim();
            let arg = parts
                .next()
                .unwrap_or("")
                .split(',')
                .next()
                .unwrap_or("")
                .trim();
            return match func {
                "cc-disable-warning" if is_plain(arg) => vec![format!("-Wno-{arg}")],
                "cc-option" => tokens(arg)
                    .into_iter()
                    .filter(|f| f.starts_with("-W") && is_plain(f))
                    .collect(),
                _ => vec![],
            };
        }
        return match known(inner.trim()) {
            Some(v) => tokens(v).into_iter().flat_map(|t| expand(&t)).collect(),
            None => vec![],
        };
    }
    if tok.starts_with("-W") && is_plain(tok) && tok != "-Werror" {
        return vec![tok.to_owned()];
    }
    vec![]
}

fn is_plain(s: &str) -> bool {
    !s.is_empty() && !s.contains('$')
}

/// The value of `$(NAME)` or `NAME`; `None` when it cannot be known.
fn lookup(name: &str) -> Option<String> {
    let n = name
        .trim()
        .strip_prefix("$(")
        .and_then(|n| n.strip_suffix(')'))
        .unwrap_or(name.trim());
    known(n).map(str::to_owned)
}

/// `(A,B)` or `"A" "B"` of an `ifeq`: whether A equals B, if both can be
/// known.
fn eval_compare(args: &str) -> Option<bool> {
    let (a, b) = if let Some(inner) = args.strip_prefix('(').and_then(|a| a.strip_suffix(')')) {
        split_top_comma(inner)?
    } else {
        let q: Vec<&str> = args.split(['"', '\'']).collect();
        // "A" "B" → ["", A, " ", B, ""]
        if q.len() != 5 {
            return None;
        }
        (q[1].to_owned(), q[3].to_owned())
    };
    Some(eval(&a)? == eval(&b)?)
}

fn split_top_comma(s: &str) -> Option<(String, String)> {
    let mut depth = 0usize;
    for (i, ch) in s.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return Some((s[..i].to_owned(), s[i + 1..].to_owned())),
            _ => {}
        }
    }
    None
}

/// A make expression: text, `$(VAR)` and `$(findstring A,B)`.
fn eval(s: &str) -> Option<String> {
    let s = s.trim();
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("$(") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let mut depth = 1usize;
        let mut end = None;
        for (j, ch) in after.char_indices() {
            match ch {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end?;
        let inner = &after[..end];
        if let Some(args) = inner.strip_prefix("findstring ") {
            let (needle, hay) = split_top_comma(args)?;
            let (needle, hay) = (eval(&needle)?, eval(&hay)?);
            if hay.contains(needle.trim()) {
                out.push_str(needle.trim());
            }
        } else if inner.contains(' ') {
            return None;
        } else {
            out.push_str(known(inner)?);
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Some(out.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    // A made-up Makefile in the shapes kbuild uses (not a copy of one).
    const TOP: &str = "\
ifeq ($(need-sub-make),1)
KBUILD_CFLAGS := -Wsubmake-only
else
ifdef config-build
KBUILD_CFLAGS := -Wconfig-only
else
KBUILD_CFLAGS   := -Wall -Wundef \\
\t\t   -fno-common -Werror=return-type # trailing comment
ifneq ($(CONFIG_FRAME_WARN),0)
KBUILD_CFLAGS += -Wframe-larger-than=$(CONFIG_FRAME_WARN)
else
KBUILD_CFLAGS += -Wunknowable-else
endif
ifdef CONFIG_CC_IS_CLANG
KBUILD_CFLAGS += -Wno-gnu
else
KBUILD_CFLAGS += -Wno-main
endif
KBUILD_CFLAGS += $(call cc-disable-warning, dangling-pointer)
KBUILD_CFLAGS += $(call cc-option,-Wcast-function-type,)
KBUILD_CFLAGS += $(CONFIG_CC_IMPLICIT_FALLTHROUGH)
KBUILD_CFLAGS-$(CONFIG_WERROR) += -Werror
include $(srctree)/scripts/Makefile.extrawarn
endif
endif
";
    const EXTRA: &str = "\
KBUILD_CFLAGS += -Wextra
ifneq ($(findstring 1, $(KBUILD_EXTRA_WARN)),)
KBUILD_CFLAGS += -Wshadow
else
KBUILD_CFLAGS += -Wno-sign-compare
endif
";

    #[test]
    fn follows_the_default_build_path() {
        let f = warning_flags(TOP, Some(EXTRA));
        assert_eq!(
            f,
            [
                "-Wall",
                "-Wundef",
                "-Werror=return-type",
                "-Wno-main",
                "-Wno-dangling-pointer",
                "-Wcast-function-type",
                "-Wimplicit-fallthrough=5",
                "-Wextra",
                "-Wno-sign-compare",
            ]
        );
    }

    /// A tree's Makefile is untrusted input: any text gives an answer,
    /// never a panic.
    #[test]
    fn any_text_is_read_without_panicking() {
        let pieces = [
            "ifeq",
            "ifneq",
            "ifdef",
            "else",
            "endif",
            "(",
            ")",
            ",",
            "$(",
            "$(call ",
            "cc-option",
            "findstring",
            "KBUILD_CFLAGS",
            "+=",
            ":=",
            "=",
            "-W",
            "-Wall",
            "#",
            "\\",
            "\n",
            " ",
            "\t",
            "é",
            "include",
            "scripts/Makefile.extrawarn",
            "\"",
            "'",
        ];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..(x % 40) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                text.push_str(pieces[(x % pieces.len() as u64) as usize]);
            }
            let _ = warning_flags(&text, Some(&text));
        }
    }

    #[test]
    fn without_extrawarn_only_the_top_makefile_counts() {
        let f = warning_flags(TOP, None);
        assert!(!f.iter().any(|x| x == "-Wextra"), "{f:?}");
        assert!(f.iter().any(|x| x == "-Wall"), "{f:?}");
    }
}
