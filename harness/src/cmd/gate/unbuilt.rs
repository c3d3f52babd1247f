//! Whose fault it is when a patched tree does not build in the harness.
//!
//! The harness compiles upstream's hfi1 code against its own stand-ins
//! for the generic kernel headers (`c-shim/kcompat`), which offer what
//! the pinned trees use, not all the kernel has. A patch that starts using
//! `synchronize_rcu_expedited()` fails to build here and builds in the
//! kernel: blaming it (`breaks-build`, patchwork `fail`) would be a false
//! finding. So each error gcc reports in the tree's code is read for the
//! name it stops at, and that name is looked up in the tree's own generic
//! headers ([`TreeNames`]) and in what the series adds to headers the
//! harness does not compile:
//!
//! - a name the tree never declares (a typo, an interface removed by
//!   then, a member hfi1's own structure lacks) is the patch's;
//! - one the tree declares that the harness's compile did not know is the
//!   harness's: `cannot-judge`, naming it and where it is used, with what
//!   to add.
//!
//! An error the patch certainly made wins over one the harness caused;
//! errors of other kinds (types, syntax) follow the first two, and are
//! the patch's when they stand alone.

use std::collections::HashSet;
use std::path::Path;

use crate::kernel::names::{is_keyword, TreeNames};

/// Whose fault a failed build is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Blame {
    /// The patched code's: a real build fails too.
    Patch,
    /// The harness's: it lacks stand-ins the tree has. What to say.
    Harness(String),
}

/// What one error gcc reported is about.
#[derive(Debug, Clone, PartialEq, Eq)]
enum About<'a> {
    /// An unknown name: a function, a variable, a type, a constant.
    Name(&'a str),
    /// A structure with no member of that name, or one whose definition
    /// the compile lacks (`member` empty).
    Member { record: &'a str, member: &'a str },
    /// A syntax error before a name (an unknown attribute macro).
    Before(&'a str),
    /// A macro given a wrong number of arguments: the call's, as every
    /// stand-in takes the arguments the kernel's does.
    MacroArguments,
    /// An object of a type the compile does not know whole, not named
    /// (`storage size of 'x' isn't known`): the type is read from the
    /// line.
    Unnamed,
    /// A `__cleanup__` attribute naming no function (`__free(kvfree)`
    /// where no `DEFINE_FREE(kvfree, ...)` is seen): the name is read
    /// from the line.
    Cleanup,
    /// Anything else (a call whose arguments do not fit a function is
    /// the call's, as above).
    Other,
}

/// The names `<linux/cleanup.h>`'s definers make by pasting, each with
/// the definer: the kernel's generic headers define their classes and
/// free functions (`DEFINE_FREE(kvfree, ...)` in slab.h,
/// `DEFINE_LOCK_GUARD_1(spinlock, ...)` in spinlock.h), which kcompat
/// stands in for only in part, and the tree's index of names does not
/// hold pasted names.
const PASTED: &[(&str, &str)] = &[("__free_", "DEFINE_FREE"), ("class_", "DEFINE_CLASS")];

/// Whether `n` is a name a cleanup.h definer makes, where the tree's
/// headers have that definer: a real build may well have it.
fn pasted_by_definer(n: &str, names: &TreeNames) -> bool {
    PASTED.iter().any(|(prefix, definer)| {
        n.len() > prefix.len() && n.starts_with(prefix) && names.defines(definer)
    })
}

/// What the harness lacks when `n`, made by a cleanup.h definer, is
/// missing.
fn pasted_lacked(n: &str) -> String {
    format!(
        "no stand-in for `{n}` (made by a <linux/cleanup.h> definer the tree's headers have: \
         add the definition, DEFINE_FREE or a guard's, to c-shim/kcompat beside the interface \
         it frees or locks)"
    )
}

/// The pasted name a `__cleanup__` error on source line `line` is about:
/// `__free_X` for `__free(X)`, `class_X_destructor` for `guard(X)`,
/// `scoped_guard(X, ...)` and `CLASS(X, ...)`.
fn cleanup_name(line: &str) -> Option<String> {
    let toks = crate::kernel::names::tokens(line);
    toks.windows(3).find_map(|w| {
        if w[1].text != "(" {
            return None;
        }
        match w[0].text {
            "__free" => Some(format!("__free_{}", w[2].text)),
            "guard" | "scoped_guard" | "CLASS" => Some(format!("class_{}_destructor", w[2].text)),
            _ => None,
        }
    })
}

/// The first quoted text of `s` (gcc quotes with `'` or `‘’`) and the
/// rest after it.
fn quoted(s: &str) -> Option<(&str, &str)> {
    let open = s.find(['\'', '‘'])?;
    let q = &s[open..];
    let start = open + q.chars().next()?.len_utf8();
    let body = &s[start..];
    let close = body.find(['\'', '’'])?;
    let after = &body[close..];
    let rest = &after[after.chars().next()?.len_utf8()..];
    Some((&body[..close], rest))
}

/// The tag of a type gcc quotes: `struct work_struct` is `work_struct`;
/// `spinlock_t {aka struct spinlock}` is read from its `aka`.
fn tag(t: &str) -> &str {
    t.trim_start_matches("struct ")
        .trim_start_matches("union ")
        .trim()
}

/// What gcc's error message `msg` (after `error: `) is about.
fn about(msg: &str) -> About<'_> {
    let q = quoted(msg);
    let first = q.map(|(a, _)| a).unwrap_or("");
    if msg.starts_with("implicit declaration of function")
        || msg.starts_with("unknown type name")
        || q.is_some_and(|(_, rest)| rest.starts_with(" undeclared"))
    {
        return About::Name(first);
    }
    if let Some(i) = msg.find("has no member named") {
        // `'spinlock_t' {aka 'struct spinlock'} has no member named 'x'`
        let (head, tail) = msg.split_at(i);
        let record = match head.find("{aka") {
            Some(a) => quoted(&head[a..]).map_or(first, |(t, _)| t),
            None => first,
        };
        let member = quoted(tail).map_or("", |(m, _)| m);
        return About::Member {
            record: tag(record),
            member,
        };
    }
    if msg.starts_with("macro ") && msg.contains(" passed ") {
        return About::MacroArguments;
    }
    if msg.contains("incomplete type") || msg.starts_with("invalid use of undefined type") {
        // The type, when gcc quotes it after `type`.
        if let Some((t, _)) = msg.rfind("type ").and_then(|i| quoted(&msg[i..])) {
            return About::Member {
                record: tag(t),
                member: "",
            };
        }
        return About::Unnamed;
    }
    if msg.starts_with("cleanup argument not a function") {
        return About::Cleanup;
    }
    if msg.starts_with("storage size of") || msg.contains("incomplete element type") {
        return About::Unnamed;
    }
    if msg.starts_with("expected ") {
        if let Some(i) = msg.find(" before ") {
            if let Some((t, _)) = quoted(&msg[i..]) {
                return About::Before(t);
            }
        }
    }
    About::Other
}

/// One error's blame: certainly the patch's, the harness's (what it
/// lacks), or unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
enum One {
    Patch,
    Harness(String),
    Unknown,
}

/// The blame of one error about `a`; `records` says whether the patched
/// tree's own code defines a structure or union of that tag, `offered`
/// holds what kcompat declares ([`super::lacking::offered`]), and `line`
/// is the source line the error is at.
fn one(
    a: &About,
    (names, offered, own): (&TreeNames, &HashSet<String>, &HashSet<String>),
    records: &dyn Fn(&str) -> bool,
    line: &str,
) -> One {
    let stand_in = |n: &str| {
        One::Harness(format!(
            "no stand-in for `{n}` (the tree's headers declare it: add it to c-shim/kcompat, \
             one header per Linux header, and a function to c-shim/boundary.toml)"
        ))
    };
    let pasted = |n: &str| One::Harness(pasted_lacked(n));
    let around = |n: &str| lacked_macro_around(n, line, names, offered);
    match *a {
        About::Name(n) if is_keyword(n) || n.is_empty() => One::Patch,
        About::Name(n) if names.declares(n) => stand_in(n),
        About::Name(n) if pasted_by_definer(n, names) => pasted(n),
        // A definition the patch adds to a file the worlds take only
        // named definitions from.
        About::Name(n) if own.contains(n) => One::Harness(format!(
            "no copy of `{n}` (the patched tree's own code defines it, where no world takes \
             it from: name it in c-shim/boundary.toml's extracted definitions)"
        )),
        // An argument of a macro the harness lacks need not be a C
        // expression (`scoped_guard(spinlock_irqsave, &l)`): what gcc
        // makes of it follows from the missing macro.
        About::Name(n) => match around(n) {
            Some(m) => stand_in(m),
            None => One::Patch,
        },
        About::Member { record, .. } if records(record) => One::Patch,
        About::Member { record, member: "" } => {
            if names.defines_tag(record) {
                One::Harness(format!(
                    "no definition of `struct {record}` (the tree's headers have it: add it to \
                     c-shim/kcompat)"
                ))
            } else {
                One::Patch
            }
        }
        About::Member { record, member } if names.has_member(record, member) => {
            One::Harness(format!(
                "no member `{member}` in `{record}` (the tree's headers have it: add it to \
                 c-shim/kcompat)"
            ))
        }
        About::Member { .. } => One::Patch,
        // A real macro kcompat has as something else, or not at all; a
        // syntax error before a name kcompat has as a macro too is the
        // patch's own.
        About::Before(n) if names.defines(n) && !offered.contains(n) => One::Harness(format!(
            "no stand-in for the macro `{n}` (the tree's headers define it: add it to \
                 c-shim/kcompat)"
        )),
        About::MacroArguments => One::Patch,
        About::Unnamed => {
            // The tags on the line: one the tree declares and its own
            // code does not define is a definition kcompat lacks.
            let toks = crate::kernel::names::identifiers(line);
            let lacked = toks.windows(2).find_map(|w| {
                (matches!(w[0].text, "struct" | "union" | "enum")
                    && names.defines_tag(w[1].text)
                    && !records(w[1].text))
                .then_some(w[1].text)
            });
            match lacked {
                Some(t) => One::Harness(format!(
                    "no definition of `struct {t}` (the tree's headers have it: add it to \
                     c-shim/kcompat)"
                )),
                None => One::Unknown,
            }
        }
        About::Cleanup => match cleanup_name(line) {
            Some(n) if pasted_by_definer(&n, names) => pasted(&n),
            Some(_) => One::Patch,
            None => One::Unknown,
        },
        About::Before(_) | About::Other => One::Unknown,
    }
}

/// The macro the tree defines and kcompat lacks whose arguments, on
/// source line `line`, hold the name `n`: `scoped_guard` for
/// `spinlock_irqsave` in `scoped_guard(spinlock_irqsave, &l) {`.
fn lacked_macro_around<'a>(
    n: &str,
    line: &'a str,
    names: &TreeNames,
    offered: &HashSet<String>,
) -> Option<&'a str> {
    let toks = crate::kernel::names::tokens(line);
    toks.iter().enumerate().find_map(|(i, m)| {
        let lacked = toks.get(i + 1).is_some_and(|t| t.text == "(")
            && names.defines(m.text)
            && !offered.contains(m.text);
        if !lacked {
            return None;
        }
        let mut depth = 0usize;
        for t in &toks[i + 1..] {
            match t.text {
                "(" => depth += 1,
                ")" if depth == 1 => return None,
                ")" => depth -= 1,
                x if x == n => return Some(m.text),
                _ => {}
            }
        }
        None
    })
}

/// Whose fault the build failure `text` (the compiler's output, paths
/// under `root`, the patched tree) is, given the tree's generic names
/// `names` and `records` ([`one`]). Only errors in the tree's code are
/// read; the caller has checked there is one.
pub(super) fn blame(
    text: &str,
    root: &Path,
    names: &TreeNames,
    (offered, own): (&HashSet<String>, &HashSet<String>),
    records: &dyn Fn(&str) -> bool,
) -> Blame {
    let tree = root;
    let root = format!("{}/", root.display());
    let mut lacks: Vec<String> = vec![];
    let mut at: Vec<String> = vec![];
    let kcompat = format!(
        "{}/",
        crate::cworld::build::cshim_dir()
            .join("kcompat/include")
            .display()
    );
    for l in text.lines() {
        // In a stand-in's expansion, only a name a cleanup.h definer
        // pastes is read: the stand-in lacks the tree's definition. A
        // build-time check the kernel's macro makes too fails a real
        // build.
        if let Some((_, msg)) = l
            .strip_prefix(&kcompat)
            .and_then(|r| r.split_once(": error: "))
        {
            if kernel_check(msg) {
                return Blame::Patch;
            }
            if let About::Name(n) = about(msg) {
                if pasted_by_definer(n, names) {
                    let what = pasted_lacked(n);
                    if !lacks.contains(&what) {
                        lacks.push(what);
                    }
                }
            }
            continue;
        }
        let Some(rel) = l.strip_prefix(&root) else {
            continue;
        };
        let Some((place, msg)) = rel.split_once(": error: ") else {
            continue;
        };
        let line = source_line(tree, place).unwrap_or_default();
        match one(&about(msg), (names, offered, own), records, &line) {
            One::Patch => return Blame::Patch,
            One::Harness(what) => {
                if !lacks.contains(&what) {
                    lacks.push(what);
                }
                let place = place.rsplit_once(':').map_or(place, |(p, _)| p);
                if !at.iter().any(|a| a == place) {
                    at.push(place.to_string());
                }
            }
            One::Unknown => {}
        }
    }
    if lacks.is_empty() {
        return Blame::Patch;
    }
    let used = if at.is_empty() {
        String::new()
    } else {
        format!(" (used at {})", at.join(", "))
    };
    Blame::Harness(format!(
        "the harness cannot build this tree: it has {}{used}; a real build need not fail",
        lacks.join("; "),
    ))
}

/// Whether gcc's error `msg` is one of the build-time checks kcompat's
/// `FIELD_*` make as the kernel's do (a constant mask and value checked
/// by arithmetic alone, whatever kcompat's types): the code using them
/// fails a real build too. The shim itself uses none.
pub(super) fn kernel_check(msg: &str) -> bool {
    msg.strip_prefix("static assertion failed: \"")
        .is_some_and(|m| m.starts_with("FIELD_"))
}

/// The line `place` (`FILE:LINE:COLUMN`, `FILE` in the tree at `root`)
/// names, if the tree has it.
fn source_line(root: &Path, place: &str) -> Option<String> {
    let mut parts = place.split(':');
    let (file, line) = (parts.next()?, parts.next()?.parse::<usize>().ok()?);
    let text = crate::kernel::read_tree_text(root, &root.join(file)).ok()?;
    text.lines().nth(line.checked_sub(1)?).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> TreeNames {
        let mut t = TreeNames::default();
        t.add(
            "void synchronize_rcu_expedited(void);\n\
             #define __counted_by(m) __attribute__((counted_by(m)))\n\
             struct work_struct { long data; };\n\
             void kfree(const void *p);\n\
             #define spin_lock_init(l) do { } while (0)\n\
             #define del_timer_sync(t) timer_delete_sync(t)\n\
             struct rcu_work { int x; };\n\
             struct kmem_cache;\n\
             struct timer_list { long expires; };\n\
             #define scoped_guard(_name, args...) for (CLASS(_name, scope)(args); ; )\n",
        );
        t
    }

    const ROOT: &str = "/t";

    fn offered() -> HashSet<String> {
        ["spin_lock_init", "kfree", "del_timer_sync"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    fn judge(lines: &[&str]) -> Blame {
        let text = lines.join("\n");
        let own: HashSet<String> = ["sdma_idx_of".to_string()].into_iter().collect();
        blame(&text, Path::new(ROOT), &names(), (&offered(), &own), &|t| {
            t == "sdma_engine"
        })
    }

    #[test]
    fn a_name_the_tree_declares_is_the_harness_s() {
        let b = judge(&[
            "/t/drivers/infiniband/hw/hfi1/sdma.c: In function 'sdma_clean':",
            "/t/drivers/infiniband/hw/hfi1/sdma.c:1296:17: error: implicit declaration of \
             function 'synchronize_rcu_expedited' [-Werror=implicit-function-declaration]",
        ]);
        let Blame::Harness(m) = b else {
            panic!("{b:?}")
        };
        assert!(m.contains("`synchronize_rcu_expedited`"), "{m}");
        assert!(m.contains("drivers/infiniband/hw/hfi1/sdma.c:1296"), "{m}");
        assert!(m.contains("c-shim/kcompat"), "{m}");
    }

    #[test]
    fn a_definition_no_world_takes_and_an_opaque_structure() {
        // A helper the patch adds to sdma.c, which worlds extract from.
        let b = judge(
            &["/t/drivers/infiniband/hw/hfi1/sdma.c:9:3: error: implicit \
                         declaration of function 'sdma_idx_of'"],
        );
        assert!(
            matches!(&b, Blame::Harness(m) if m.contains("no copy of `sdma_idx_of`")),
            "{b:?}"
        );
        // A structure the tree's headers only name: opaque there too.
        let l = "/t/drivers/infiniband/hw/hfi1/sdma.c:9:3: error: invalid use of undefined \
                 type 'struct kmem_cache'";
        assert_eq!(judge(&[l]), Blame::Patch);
    }

    #[test]
    fn a_name_the_tree_never_declares_is_the_patch_s() {
        for msg in [
            "implicit declaration of function 'synchronise_rcu'",
            "'sde_flgas' undeclared (first use in this function)",
            "unknown type name 'sdma_state_t'",
            "‘ret’ undeclared (first use in this function)",
            "'struct sdma_engine' has no member named 'data'",
            "'struct work_struct' has no member named 'fn'",
            // `data` is a member of another structure only.
            "'struct timer_list' has no member named 'data'",
            // A syntax error before a macro kcompat has too.
            "expected ';' before 'spin_lock_init'",
            // A macro given too many arguments, then taken as undeclared.
            "macro \"del_timer_sync\" passed 2 arguments, but takes just 1",
            "too many arguments to function 'kfree'",
        ] {
            let l = format!("/t/drivers/infiniband/hw/hfi1/sdma.c:9:3: error: {msg}");
            assert_eq!(judge(&[&l]), Blame::Patch, "{msg}");
        }
    }

    #[test]
    fn members_macros_and_arguments_of_stand_ins() {
        for (msg, what) in [
            (
                "'struct work_struct' has no member named 'data'",
                "member `data`",
            ),
            (
                "'wq_t' {aka 'struct work_struct'} has no member named ‘data’",
                "member `data`",
            ),
            (
                "expected ':', ',', ';', '}' or '__attribute__' before '__counted_by'",
                "macro `__counted_by`",
            ),
            (
                "invalid use of undefined type 'struct work_struct'",
                "definition of `struct work_struct`",
            ),
        ] {
            let l = format!("/t/drivers/infiniband/hw/hfi1/pio.c:9:3: error: {msg}");
            match judge(&[&l]) {
                Blame::Harness(m) => assert!(m.contains(what), "{msg}: {m}"),
                b => panic!("{msg}: {b:?}"),
            }
        }
    }

    #[test]
    fn the_patch_s_error_wins_and_others_alone_are_the_patch_s() {
        let harness = "/t/drivers/infiniband/hw/hfi1/sdma.c:5:1: error: implicit declaration \
                       of function 'synchronize_rcu_expedited'";
        let typo = "/t/drivers/infiniband/hw/hfi1/sdma.c:9:1: error: 'sde_x' undeclared";
        let other = "/t/drivers/infiniband/hw/hfi1/sdma.c:7:1: error: incompatible types when \
                     assigning to type 'int' from type 'struct x'";
        assert_eq!(judge(&[harness, typo]), Blame::Patch);
        assert_eq!(judge(&[typo, harness]), Blame::Patch);
        assert_eq!(judge(&[other]), Blame::Patch);
        assert!(matches!(judge(&[harness, other]), Blame::Harness(_)));
        // Errors outside the tree are not read here.
        let shim = "/elsewhere/c-shim/kcompat/include/linux/slab.h:3:1: error: \
                    implicit declaration of function 'synchronize_rcu_expedited'";
        assert_eq!(judge(&[shim]), Blame::Patch);
    }

    #[test]
    fn arguments_of_a_macro_the_harness_lacks_are_its() {
        let dir = std::env::temp_dir().join(format!("unbuilt-args-{}", std::process::id()));
        let hfi1 = dir.join("drivers/infiniband/hw/hfi1");
        std::fs::create_dir_all(&hfi1).unwrap();
        std::fs::write(
            hfi1.join("sdma.c"),
            "void f(void)\n{\n\tscoped_guard(spinlock_irqsave, &l) {\n\t}\n\
             \tspin_lock_init(spinlock_irqsave);\n\tg(spinlock_irqsave);\n}\n",
        )
        .unwrap();
        let root = dir.display().to_string();
        let at = |line: usize, msg: &str| {
            format!("{root}/drivers/infiniband/hw/hfi1/sdma.c:{line}:9: error: {msg}")
        };
        let judge = |errors: &[String]| {
            blame(
                &errors.join("\n"),
                &dir,
                &names(),
                (&offered(), &HashSet::new()),
                &|_| false,
            )
        };
        let undeclared = "'spinlock_irqsave' undeclared (first use in this function)";
        let all = [
            at(3, "implicit declaration of function 'scoped_guard'"),
            at(3, undeclared),
            at(3, "expected ';' before '{' token"),
        ];
        match judge(&all) {
            Blame::Harness(m) => assert!(m.contains("`scoped_guard`"), "{m}"),
            b => panic!("{b:?}"),
        }
        // The argument alone is still the macro's.
        assert!(matches!(judge(&[at(3, undeclared)]), Blame::Harness(_)));
        // Not an argument of a macro kcompat lacks: the patch's.
        assert_eq!(judge(&[at(5, undeclared)]), Blame::Patch);
        assert_eq!(judge(&[at(6, undeclared)]), Blame::Patch);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn names_cleanup_h_definers_paste_are_the_harness_s() {
        let dir = std::env::temp_dir().join(format!("unbuilt-paste-{}", std::process::id()));
        let hfi1 = dir.join("drivers/infiniband/hw/hfi1");
        std::fs::create_dir_all(&hfi1).unwrap();
        std::fs::write(
            hfi1.join("sdma.c"),
            "void f(void)\n{\n\tguard(irqsave)();\n\tvoid *p __free(kvfree) = 0;\n}\n",
        )
        .unwrap();
        let root = dir.display().to_string();
        let kcompat = crate::cworld::build::cshim_dir().join("kcompat/include/linux/cleanup.h");
        let errors = [
            format!(
                "{}:43:9: error: unknown type name 'class_irqsave_t'",
                kcompat.display()
            ),
            format!(
                "{root}/drivers/infiniband/hw/hfi1/sdma.c:3:9: error: cleanup argument not a \
                 function"
            ),
        ];
        let mut with = names();
        with.add("#define DEFINE_FREE(n, t, f) t __free_##n\n#define DEFINE_CLASS(n) n\n");
        let judge = |names: &TreeNames, errors: &[String]| {
            blame(
                &errors.join("\n"),
                &dir,
                names,
                (&offered(), &HashSet::new()),
                &|_| false,
            )
        };
        match judge(&with, &errors) {
            Blame::Harness(m) => {
                assert!(m.contains("`class_irqsave_t`"), "{m}");
                assert!(m.contains("drivers/infiniband/hw/hfi1/sdma.c:3"), "{m}");
            }
            b => panic!("{b:?}"),
        }
        let free = format!(
            "{root}/drivers/infiniband/hw/hfi1/sdma.c:4:9: error: cleanup argument not a function"
        );
        match judge(&with, std::slice::from_ref(&free)) {
            Blame::Harness(m) => assert!(m.contains("`__free_kvfree`"), "{m}"),
            b => panic!("{b:?}"),
        }
        // A tree without the definers: the patch's.
        assert_eq!(judge(&names(), &errors), Blame::Patch);
        assert_eq!(judge(&names(), &[free]), Blame::Patch);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unnamed_type_is_read_from_the_line() {
        let dir = std::env::temp_dir().join(format!("unbuilt-line-{}", std::process::id()));
        let hfi1 = dir.join("drivers/infiniband/hw/hfi1");
        std::fs::create_dir_all(&hfi1).unwrap();
        std::fs::write(
            hfi1.join("sdma.c"),
            "void f(void)\n{\n\tstruct rcu_work rw;\n\tstruct nowhere nw;\n}\n",
        )
        .unwrap();
        let root = dir.display().to_string();
        let judge_at = |line: usize, msg: &str| {
            let l = format!("{root}/drivers/infiniband/hw/hfi1/sdma.c:{line}:18: error: {msg}");
            blame(&l, &dir, &names(), (&offered(), &HashSet::new()), &|_| {
                false
            })
        };
        match judge_at(3, "storage size of 'rw' isn't known") {
            Blame::Harness(m) => assert!(m.contains("`struct rcu_work`"), "{m}"),
            b => panic!("{b:?}"),
        }
        // A tag the tree never declares: the patch's.
        assert_eq!(
            judge_at(4, "storage size of 'nw' isn't known"),
            Blame::Patch
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
