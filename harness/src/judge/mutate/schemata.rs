//! Mutant schemata: every mutant of a run in one world, each behind a
//! switch a worker sets.
//!
//! A function `F` with mutants becomes, where the world takes it from:
//! its original definition renamed `F__mut0`, one copy per mutant with the
//! mutation applied (`F__mut1`, …), and a dispatcher with
//! `F`'s own declarator that calls the copy `hfi1_mutant__F` names (0, the
//! original, unless a worker set it). Each copy has `F`'s lines (`#line`),
//! `__func__` and linkage (a global function's copies are global too, so
//! compiled alone as `F` is: never inlined, an uninitialised read given
//! the same value), so with its switch on the world does what the world
//! of that one mutant does; `&F` is still `F`. Only the dispatchers read a
//! switch, so the calls that can run a mutant of `F` are those that reach
//! its switch ([`reach::reaching`](crate::cworld::reach::reaching)).
//!
//! A copy that does not compile (its mutant would not compile alone
//! either) is found by the function the compiler names, and its mutant is
//! left out of the schemata, to be built alone as before.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use super::make::{located, Mutant};
use crate::cworld::build::{BuildOptions, BuiltWorld, Replaced};
use crate::kernel::KernelTree;

/// The variable a world's mutants of `function` switch on: the value `k`
/// runs its `k`-th mutant, 0 the original.
pub fn switch_of(function: &str) -> String {
    format!("hfi1_mutant__{function}")
}

/// The name of `function`'s variant `k` (0: the original).
fn variant_name(function: &str, k: usize) -> String {
    format!("{function}__mut{k}")
}

/// What the dispatcher needs of a function's declarator.
#[derive(Debug, PartialEq, Eq)]
struct Declarator {
    /// Where the function's name starts in the text before its body.
    name_at: usize,
    /// Its parameters' names, in order.
    params: Vec<String>,
    /// Whether it returns `void`.
    void: bool,
}

/// The byte at which `s`'s bracket opened at `open` closes.
fn matching(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.bytes().enumerate().skip(open) {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The identifiers of `s`, outside brackets, in order.
fn words(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = vec![];
    let (mut i, mut depth) = (0, 0usize);
    while i < b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            c if is_ident(c) && depth == 0 => {
                let s0 = i;
                while i < b.len() && is_ident(b[i]) {
                    i += 1;
                }
                out.push(&s[s0..i]);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Annotations that may follow a parameter's name (kernel attributes).
const TRAILING: [&str; 4] = [
    "__maybe_unused",
    "__always_unused",
    "__unused",
    "__attribute__",
];

/// The name a parameter declaration declares (`struct rvt_qp *qp` → `qp`,
/// `void (*cb)(int)` → `cb`, `u8 v[4]` → `v`).
fn param_name(p: &str) -> Option<String> {
    let p = p.trim();
    // A pointer to a function or an array: the name is in the first
    // parentheses, after the `*`s and qualifiers.
    if let Some(open) = p.find('(') {
        let close = matching(p, open)?;
        let inner = &p[open + 1..close];
        return inner
            .starts_with(|c: char| c == '*' || c.is_whitespace())
            .then(|| words(inner).last().map(|w| w.to_string()))
            .flatten();
    }
    let ws = words(p);
    let name = ws.iter().rev().find(|w| !TRAILING.contains(w))?;
    let keyword = matches!(
        *name,
        "void"
            | "int"
            | "char"
            | "short"
            | "long"
            | "unsigned"
            | "signed"
            | "const"
            | "volatile"
            | "struct"
            | "union"
            | "enum"
            | "bool"
    );
    (ws.len() >= 2 && !keyword && !name.starts_with(|c: char| c.is_ascii_digit()))
        .then(|| name.to_string())
}

/// The declarator of function `name` in `head`, the text of its definition
/// before the body: its name's place, its parameters, whether it returns
/// `void`. `Err` says what a dispatcher could not be written for
/// (variadic, an unnamed parameter, a function returning a pointer to a
/// function).
fn declarator(head: &str, name: &str) -> Result<Declarator, String> {
    let b = head.as_bytes();
    let name_at = head
        .match_indices(name)
        .map(|(i, _)| i)
        .find(|&i| {
            let before = i == 0 || !is_ident(b[i - 1]);
            let after = head[i + name.len()..].trim_start();
            before
                && after.starts_with('(')
                && !head[i + name.len()..]
                    .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        })
        .ok_or_else(|| format!("no declarator of {name}"))?;
    let before = &head[..name_at];
    if before.matches('(').count() != before.matches(')').count() {
        return Err(format!("{name} returns a pointer to a function"));
    }
    let open = name_at
        + name.len()
        + (head[name_at + name.len()..].len() - head[name_at + name.len()..].trim_start().len());
    let close = matching(head, open).ok_or_else(|| format!("{name}: unbalanced parameters"))?;
    let list = &head[open + 1..close];
    let mut params = vec![];
    let (mut depth, mut from) = (0usize, 0);
    let mut parts = vec![];
    for (i, c) in list.bytes().enumerate() {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                parts.push(&list[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[from..]);
    let only_void = parts.len() == 1 && matches!(parts[0].trim(), "void" | "");
    if !only_void {
        for p in parts {
            if p.trim() == "..." {
                return Err(format!("{name} is variadic"));
            }
            params.push(param_name(p).ok_or_else(|| format!("{name}: parameter `{}`", p.trim()))?);
        }
    }
    let returns = words(before);
    let void = returns.contains(&"void") && !before.contains('*');
    Ok(Declarator {
        name_at,
        params,
        void,
    })
}

/// The schemata of one function: its definition `def` (at line `line` of
/// `path`, its name `name`) and the definition with each of its mutants
/// applied (`variants`, switched on by values 1, 2, …), as the C that
/// replaces the definition. `Err`: no dispatcher can be written for it.
pub fn block(
    def: &str,
    (path, line): (&str, usize),
    name: &str,
    variants: &[String],
) -> Result<String, String> {
    let open = def.find('{').ok_or_else(|| format!("{name} has no body"))?;
    let head = &def[..open];
    let d = declarator(head, name)?;
    let switch = switch_of(name);
    let mut out =
        format!("int {switch};\n#define __func__ \"{name}\"\n#define __FUNCTION__ \"{name}\"\n");
    for (k, text) in std::iter::once(def)
        .chain(variants.iter().map(String::as_str))
        .enumerate()
    {
        if !text.starts_with(&def[..d.name_at]) || !text[d.name_at..].starts_with(name) {
            return Err(format!("variant {k} of {name} changes its declarator"));
        }
        out.push_str(&format!(
            "#line {line} \"{path}\"\n{}{}{}\n",
            &text[..d.name_at],
            variant_name(name, k),
            &text[d.name_at + name.len()..]
        ));
    }
    out.push_str("#undef __FUNCTION__\n#undef __func__\n");
    let args = d.params.join(", ");
    let call = |k: usize| {
        let f = variant_name(name, k);
        if d.void {
            format!("{f}({args});\n\t\treturn;\n")
        } else {
            format!("return {f}({args});\n")
        }
    };
    out.push_str(&format!(
        "#line {line} \"{path}\"\n{head}{{\n\tswitch ({switch}) {{\n"
    ));
    for k in 1..=variants.len() {
        out.push_str(&format!("\tcase {k}:\n\t\t{}", call(k)));
    }
    out.push_str(&format!("\tdefault:\n\t\t{}\t}}\n}}", call(0)));
    Ok(out)
}

/// The functions a compiler's messages (`err`) name errors in: for each,
/// the variant (`Some(k)`) or the function's own code (`None`: the
/// original or the dispatcher). `None` when an error is in no function
/// of `functions`.
fn failed_in(err: &str, functions: &BTreeSet<&str>) -> Option<BTreeSet<(String, Option<usize>)>> {
    let mut out = BTreeSet::new();
    let mut current: Option<&str> = None;
    for l in err.lines() {
        if let Some(at) = l.find(": In function ") {
            let name = &l[at + ": In function ".len()..];
            current = Some(name.trim_matches(|c: char| "'`‘’: ".contains(c)));
        } else if l.contains(": At top level:") {
            current = None;
        } else if l.contains(": error: ") {
            let f = current?;
            let (base, k) = match f.rsplit_once("__mut") {
                Some((b, k)) => (b, k.parse::<usize>().ok().filter(|k| *k > 0)),
                None => (f, None),
            };
            if !functions.contains(base) {
                return None;
            }
            out.insert((base.to_owned(), k));
        }
    }
    Some(out)
}

/// The schemata world of `all`'s mutants, and each mutant's switch value
/// in it (`None`: left out, to be built alone). `progress` hears which
/// mutants are left out and why.
pub fn build(
    tree: &KernelTree,
    all: &[Mutant],
    opts: &BuildOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<(Option<BuiltWorld>, Vec<Option<i32>>)> {
    let mut alone: BTreeSet<usize> = BTreeSet::new();
    let mut sources: BTreeMap<&str, String> = BTreeMap::new();
    for m in all {
        if !sources.contains_key(m.file.as_str()) {
            sources.insert(&m.file, tree.read_to_string(&tree.path(&m.file))?);
        }
    }
    let functions: BTreeSet<&str> = all.iter().map(|m| m.function.as_str()).collect();
    // Every function's mutants at first; each failed build leaves out
    // those whose copies the compiler named.
    for _ in 0..=functions.len() {
        let (replaced, values) = replacements(tree, all, &sources, &mut alone, progress);
        if replaced.is_empty() {
            return Ok((None, values));
        }
        let build = BuildOptions {
            replaced: replaced.into(),
            ..opts.clone()
        };
        let e = match crate::cworld::build(tree, &build) {
            Ok(world) => return Ok((Some(world), values)),
            Err(e) => format!("{e:#}"),
        };
        let Some(failed) = failed_in(&e, &functions) else {
            progress(&format!(
                "the schemata world does not build, every mutant is built alone: {}",
                e.lines().next().unwrap_or("")
            ));
            return Ok((None, vec![None; all.len()]));
        };
        let before = alone.len();
        for (k, m) in all.iter().enumerate() {
            let hit = failed
                .iter()
                .any(|(f, v)| *f == m.function && v.is_none_or(|v| values[k] == Some(v as i32)));
            if hit && alone.insert(k) {
                progress(&format!("does not compile in the schemata: {}", m.id()));
            }
        }
        if alone.len() == before {
            progress(&format!(
                "the schemata world does not build, every mutant is built alone: {}",
                e.lines().next().unwrap_or("")
            ));
            return Ok((None, vec![None; all.len()]));
        }
    }
    Ok((None, vec![None; all.len()]))
}

/// The replaced definitions for the mutants of `all` not `alone`, and each
/// mutant's switch value; a function whose schemata cannot be written has
/// its mutants put `alone`.
fn replacements(
    tree: &KernelTree,
    all: &[Mutant],
    sources: &BTreeMap<&str, String>,
    alone: &mut BTreeSet<usize>,
    progress: &mut dyn FnMut(&str),
) -> (Vec<Replaced>, Vec<Option<i32>>) {
    let mut values = vec![None; all.len()];
    let mut replaced = vec![];
    let mut done: BTreeSet<&str> = BTreeSet::new();
    for m in all {
        if !done.insert(&m.function) {
            continue;
        }
        let mine: Vec<usize> = (0..all.len())
            .filter(|&k| all[k].function == m.function && !alone.contains(&k))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let src = &sources[m.file.as_str()];
        let path = tree.path(&m.file).display().to_string();
        let text = located(src, &m.function).and_then(|(at, d)| {
            let range = at..at + d.text.len();
            let variants = mine
                .iter()
                .map(|&k| {
                    let x = &all[k];
                    if !(range.contains(&x.at.start) && x.at.end <= range.end) {
                        return Err(format!("{} is outside {}", x.id(), m.function));
                    }
                    let mut t = d.text.clone();
                    t.replace_range(x.at.start - at..x.at.end - at, &x.replacement);
                    Ok(t)
                })
                .collect::<Result<Vec<String>, String>>()?;
            block(&d.text, (&path, d.line), &m.function, &variants)
        });
        match text {
            Ok(text) => {
                for (v, &k) in mine.iter().enumerate() {
                    values[k] = Some(v as i32 + 1);
                }
                replaced.push(Replaced {
                    file: m.file.clone(),
                    name: m.function.clone(),
                    text,
                });
            }
            Err(why) => {
                progress(&format!("{} is built alone: {why}", m.function));
                alone.extend(mine);
            }
        }
    }
    (replaced, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Made-up functions in kernel style (not upstream code).
    const PICK: &str = "static inline int pick(struct q *qp, u32 n,\n\t\t       void (*cb)(int), u8 v[4])\n{\n\treturn n < 4 ? cb != NULL : v[0];\n}";
    const KICK: &str = "void kick(struct q *qp) __must_hold(&qp->lock)\n{\n\tqp->n = 1;\n}";

    #[test]
    fn declarators_give_parameter_names_and_void() {
        let d = declarator(&PICK[..PICK.find('{').unwrap()], "pick").unwrap();
        assert_eq!(d.params, ["qp", "n", "cb", "v"]);
        assert!(!d.void);
        assert_eq!(&PICK[d.name_at..d.name_at + 4], "pick");
        let d = declarator("void kick(struct q *qp) __must_hold(&qp->lock)\n", "kick").unwrap();
        assert_eq!(
            (d.params.as_slice(), d.void),
            (&["qp".to_owned()][..], true)
        );
        let d = declarator("static void *mem(void)\n", "mem").unwrap();
        assert_eq!((d.params.len(), d.void), (0, false));
        let d = declarator(
            "int count(const char *const name, int x __maybe_unused)",
            "count",
        );
        assert_eq!(d.unwrap().params, ["name", "x"]);
        assert!(declarator("int log(const char *fmt, ...)", "log").is_err());
        assert!(declarator("void (*get_cb(int x))(int)", "get_cb").is_err());
    }

    /// The block: the original and each variant renamed, at the
    /// definition's line with its `__func__` and linkage; the dispatcher
    /// keeps the declarator and forwards every argument.
    #[test]
    fn a_block_forwards_to_the_switched_variant() {
        let v1 = PICK.replace("n < 4", "n <= 4");
        let b = block(PICK, ("/t/pick.c", 7), "pick", &[v1]).unwrap();
        assert!(
            b.starts_with("int hfi1_mutant__pick;\n#define __func__ \"pick\"\n"),
            "{b}"
        );
        assert!(b.contains("#line 7 \"/t/pick.c\"\nstatic inline int pick__mut0(struct q *qp"));
        assert!(b.contains("static inline int pick__mut1(struct q *qp, u32 n,"));
        assert!(b.contains("return n <= 4 ?"));
        assert!(b.contains("#undef __func__\n#line 7 \"/t/pick.c\"\nstatic inline int pick(struct"));
        assert!(b.contains(
            "\tswitch (hfi1_mutant__pick) {\n\tcase 1:\n\t\treturn pick__mut1(qp, n, cb, v);\n"
        ));
        assert!(
            b.ends_with("\tdefault:\n\t\treturn pick__mut0(qp, n, cb, v);\n\t}\n}"),
            "{b}"
        );
        // A function of external linkage: so are its variants; a void one
        // returns after the call.
        let b = block(
            KICK,
            ("/t/kick.c", 1),
            "kick",
            &[KICK.replace("\tqp->n = 1;\n", "")],
        )
        .unwrap();
        assert!(
            b.contains("\nvoid kick__mut1(struct q *qp) __must_hold(&qp->lock)\n{\n}"),
            "{b}"
        );
        assert!(b.contains("\n#line 1 \"/t/kick.c\"\nvoid kick(struct q *qp)"));
        assert!(b.contains("\tcase 1:\n\t\tkick__mut1(qp);\n\t\treturn;\n"));
    }

    /// The block compiles with the compiler the worlds use, and with the
    /// switch set, calls run the mutant; `__func__` is the function's.
    #[test]
    fn a_block_compiles_and_switches() {
        let dir = std::env::temp_dir().join(format!("hfi1-schemata-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let def =
            "static int pick(int n, const char **who)\n{\n\t*who = __func__;\n\treturn n < 4;\n}";
        let b = block(
            def,
            ("pick.c", 1),
            "pick",
            &[def.replace("n < 4", "n <= 4")],
        )
        .unwrap();
        let main = format!(
            "#include <stdio.h>\n#include <string.h>\n{b}\n\
             int main(void)\n{{\n\tconst char *who;\n\tint a = pick(4, &who);\n\
             \thfi1_mutant__pick = 1;\n\tint c = pick(4, &who);\n\
             \tprintf(\"%d %d %s\\n\", a, c, who);\n\treturn 0;\n}}\n"
        );
        std::fs::write(dir.join("t.c"), main).unwrap();
        let out = std::process::Command::new("cc")
            .args(["-std=gnu11", "-O2", "-Wall", "-Werror", "-o"])
            .arg(dir.join("t"))
            .arg(dir.join("t.c"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let run = std::process::Command::new(dir.join("t")).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&run.stdout), "0 1 pick\n");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn compile_errors_name_the_variant() {
        let fs: BTreeSet<&str> = ["pick", "kick"].into();
        let err = "qp.c: In function 'pick__mut3':\nqp.c:9:2: error: 'x' undeclared\n\
                   qp.c: In function 'kick':\nqp.c:20:1: error: bad\n";
        let got = failed_in(err, &fs).unwrap();
        assert_eq!(
            got,
            [("kick".into(), None), ("pick".into(), Some(3))].into()
        );
        // An error in no function of the schemata.
        assert!(failed_in("x.c:1:1: error: y\n", &fs).is_none());
        assert!(failed_in("x.c: In function 'other':\nx.c:1:1: error: y\n", &fs).is_none());
    }
}
